"""Real scalar functions of geopy (angle and length unit conversions, coordinate
normalisation), unchanged, with the domains a user passes.

Source: geopy/geopy, geopy/units.py, geopy/point.py, geopy/distance.py (PyPI
``geopy==2.4.1``), MIT License, Copyright (c) 2006-2018 geopy authors. The functions are
imported from the installed package, not copied: their source is what ``vectorize`` reads
(``units``: truthiness tests ``if radians:`` of float arguments, ``+=`` in branches, calls
of sibling helpers with keyword arguments ``arcmin(degrees=1.)``, one-line aliases;
``point._normalize_angle``: ``fmod(x, 2 * limit) or 0.0`` to turn -0 into +0 and two early
returns; ``point._normalize_coordinates``: ``float(x or 0.0)``, ``all(isfinite(x) for x in
(a, b, c))``, a ValueError with a ``%r`` message, a ``warnings.warn`` before a raise, a tuple
result; ``distance.cmp``: the difference of two comparisons).
Domains from the docstrings: latitudes -90..90 (beyond: the ValueError), longitudes
-540..540 (beyond 180: normalised), angles and lengths of either sign with zeros (the
``if x:`` branches), limits 90 and 180.
"""

from importlib import import_module

from harness import Case, Dom

units = import_module("geopy.units")
point = import_module("geopy.point")
distance = import_module("geopy.distance")

NAN = float("nan")
ANGLE = Dom(-400.0, 400.0, edges=(0.0, -0.0, 1.0, 60.0))
RAD = Dom(-7.0, 7.0, edges=(0.0, -0.0, 3.141592653589793))
LEN = Dom(-1e4, 1e4, edges=(0.0, -0.0, 1.0, 1609.344))
WIDE = Dom(-900.0, 900.0, edges=(0.0, -0.0, 180.0, -180.0, 360.0, -360.0, 540.0))
LIMIT = Dom(90.0, 180.0, integer=True, edges=(90, 180))
LAT = Dom(-95.0, 95.0, edges=(0.0, -0.0, 90.0, -90.0, 90.5, NAN))
LON = Dom(-540.0, 540.0, edges=(0.0, 180.0, -180.0, 180.5, 360.0))
ALT = Dom(-10.0, 10.0, edges=(0.0, -0.0))
SMALL = Dom(-3.0, 3.0, integer=True, edges=(0, 1, -1))


def _case(mod, f, *args, name=""):
    short = mod.__name__.split(".")[-1]
    return Case(f"geopy.{short}.{name or f.__name__}", f, args)


CASES = [
    _case(units, units.degrees, RAD, ANGLE, ANGLE),
    _case(units, units.degrees, RAD, name="degrees_1"),
    _case(units, units.radians, ANGLE, ANGLE, ANGLE),
    _case(units, units.radians, ANGLE, name="radians_1"),
    _case(units, units.arcminutes, ANGLE, RAD, ANGLE),
    _case(units, units.arcseconds, ANGLE, RAD, ANGLE),
    _case(units, units.kilometers, LEN, LEN, LEN, LEN),
    _case(units, units.kilometers, LEN, name="kilometers_1"),
    _case(units, units.meters, LEN, LEN, LEN, LEN),
    _case(units, units.miles, LEN, LEN, LEN, LEN),
    _case(units, units.feet, LEN, LEN, LEN, LEN),
    _case(units, units.nautical, LEN, LEN, LEN, LEN),
    _case(units, units.nautical, LEN, name="nautical_1"),
    _case(units, units.km, LEN, LEN, name="km_alias"),
    _case(point, point._normalize_angle, WIDE, LIMIT),
    _case(point, point._normalize_angle, WIDE, 180.0, name="_normalize_angle_180"),
    _case(point, point._normalize_coordinates, LAT, LON, ALT),
    _case(distance, distance.cmp, SMALL, SMALL),
    _case(distance, distance.cmp, ANGLE, ANGLE, name="cmp_float"),
]
