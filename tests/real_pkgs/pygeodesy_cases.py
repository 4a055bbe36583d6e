"""Real scalar functions of PyGeodesy (angle wrapping, spherical distances and bearings, the
float helpers of its fmath), unchanged, with the domains a user passes.

Source: mrJean1/PyGeodesy, pygeodesy/utily.py, formy.py and fmath.py (PyPI
``pygeodesy==26.10.26``), MIT License, Copyright (c) 2016-2026 Jean M. Brouwers. The functions
are imported from the installed package, not copied: their source is what ``vectorize`` reads
(module constants ``_180_0``, ``_umod_360`` helpers, ``float(deg)``, keyword defaults such as
``radius=R_M`` and ``wrap=False``, ``**options`` parameters, unit classes (``Radians``,
``Meter``: float subclasses) that validate their argument, lazily imported modules).
Domains from the docstrings: degrees of latitude -90..90 and longitude -180..180 (wrap180 and
wrap360 take any angle), radians, distances in metres, cosines in -1..1.
"""

from importlib import import_module

from harness import Case, Dom

utily = import_module("pygeodesy.utily")
formy = import_module("pygeodesy.formy")
fmath = import_module("pygeodesy.fmath")

NAN, INF = float("nan"), float("inf")
ANGLE = Dom(-1000.0, 1000.0, edges=(0.0, -0.0, 180.0, -180.0, 360.0, -360.0, 90.0, -90.0, NAN))
LAT = Dom(-90.0, 90.0, edges=(0.0, 90.0, -90.0))
LON = Dom(-180.0, 180.0, edges=(0.0, 180.0, -180.0))
RAD = Dom(-3.2, 3.2, edges=(0.0, -0.0, 1.5707963267948966))
COS = Dom(-1.2, 1.2, edges=(0.0, 1.0, -1.0, 1.0000000000000002))
X = Dom(-100.0, 100.0, edges=(0.0, -0.0, 1.0, -8.0, 27.0, NAN, INF))
M = Dom(0.0, 1e7, edges=(0.0, 1852.0))


def _case(module, f, *args, name="", rtol=1e-12, reason=""):
    return Case(f"pygeodesy.{module}.{name or f.__name__}", f, args, rtol=rtol,
                rtol_reason=reason)


CASES = [
    *[_case("utily", f, ANGLE) for f in (
        utily.wrap90, utily.wrap180, utily.wrap360, utily.wrapPI, utily.wrapPI2,
        utily.wrapPI_2, utily.degrees90, utily.degrees180, utily.degrees360,
        utily.radiansPI, utily.radiansPI_2, utily.radiansPI2, utily.sincos2d, utily.tand,
        utily.cotd, utily.sincos2, utily.hav, utily.atan1d, utily.tanPI_2_2)],
    _case("utily", utily.atan2d, X, X),
    _case("utily", utily.atan2b, X, X),
    _case("utily", utily.unroll180, LON, ANGLE),
    _case("utily", utily.acos1, COS),
    _case("utily", utily.asin1, COS),
    _case("utily", utily.m2km, M),
    _case("utily", utily.m2NM, M),
    _case("utily", utily.km2m, M),
    _case("utily", utily.ft2m, M),
    _case("utily", utily.truncate, Dom(-100.0, 100.0, edges=(0.0, 1.23456)),
          Dom(0, 6, integer=True)),
    _case("formy", formy.haversine_, RAD, RAD, RAD),
    _case("formy", formy.haversine, LAT, LON, LAT, LON),
    _case("formy", formy.bearing, LAT, LON, LAT, LON),
    _case("formy", formy.bearing_, RAD, RAD, RAD, RAD),
    _case("formy", formy.cosineLaw_, RAD, RAD, RAD),
    _case("formy", formy.euclidean_, RAD, RAD, RAD),
    _case("formy", formy.flatPolar_, RAD, RAD, RAD),
    _case("formy", formy.equirectangular, LAT, LON, LAT, LON),
    _case("formy", formy.euclidean, LAT, LON, LAT, LON),
    _case("formy", formy.flatPolar, LAT, LON, LAT, LON),
    _case("formy", formy.angle2chord, RAD),
    _case("formy", formy.chord2angle, Dom(0.0, 1.2e7, edges=(0.0, 12742018.0))),
    _case("formy", formy.heightOf, Dom(0.0, 90.0, edges=(0.0, 90.0)), M),
    _case("formy", formy.horizon, Dom(0.0, 10000.0, edges=(0.0, -1.0))),
    _case("formy", formy.isantipode, LAT, LON, LAT, LON),
    _case("formy", formy.isnormal, Dom(-100.0, 100.0, edges=(90.0, -90.0, NAN)),
          Dom(-200.0, 200.0, edges=(180.0, NAN))),
    _case("fmath", fmath.cbrt, X),
    _case("fmath", fmath.cbrt2, X),
    _case("fmath", fmath.bqrt, X),
    _case("fmath", fmath.sqrt3, X),
    _case("fmath", fmath.sqrt0, X),
    _case("fmath", fmath.facos1, COS),
    _case("fmath", fmath.fasin1, COS),
    _case("fmath", fmath.fatan, X),
    _case("fmath", fmath.fatan1, Dom(0.0, 100.0, edges=(0.0, 1.0))),
    _case("fmath", fmath.fatan2, X, X),
    _case("fmath", fmath.favg, X, X),
    _case("fmath", fmath.hypot1, X),
    _case("fmath", fmath.hypot2, X, X),
    _case("fmath", fmath.euclid, X, X),
    _case("fmath", fmath.fremainder, X, Dom(0.5, 10.0, edges=(1.0, 360.0))),
]
