"""Real scalar functions of pymap3d (geodetic coordinate conversions: ECEF, ENU, NED, AER,
auxiliary latitudes, radii of curvature, rhumb lines, Vincenty's geodesics), unchanged, with
the domains a user passes.

Source: geospace-code/pymap3d, pymap3d/{ecef,enu,ned,aer,latitude,rcurve,rsphere,lox,
vincenty,haversine,sidereal}.py (PyPI ``pymap3d==3.2.0``), BSD-2-Clause License, Copyright (c)
2014-2024 Michael Hirsch, Ph.D. The functions are imported from the installed package, not
copied: their source is what ``vectorize`` reads. With NumPy installed, pymap3d's ``mathfun``
hands out NumPy's functions (``from numpy import arctan2 as atan2``): the code is written for
scalars or arrays, and users call it per point, in loops or through ``numpy.vectorize``.
Domains from the docstrings: latitudes -90..90 degrees (the poles among the edges),
longitudes -180..180, heights -1e3..1e5 m, ECEF coordinates within 1e7 m, local ENU/NED
offsets within 1e5 m, azimuths 0..360, elevations -90..90, slant ranges 0..1e6 m.
"""

import pymap3d.aer as aer
import pymap3d.ecef as ecef
import pymap3d.enu as enu
import pymap3d.haversine as hav
import pymap3d.latitude as latitude
import pymap3d.lox as lox
import pymap3d.ned as ned
import pymap3d.rcurve as rcurve
import pymap3d.rsphere as rsphere
import pymap3d.sidereal as sidereal
import pymap3d.vincenty as vincenty
from harness import Case, Dom

NAN = float("nan")
LAT = Dom(-90.0, 90.0, edges=(0.0, 90.0, -90.0, 45.0, NAN))
LAT_IN = Dom(-89.0, 89.0, edges=(0.0, 45.0))         # away from the poles (rhumb lines)
LON = Dom(-180.0, 180.0, edges=(0.0, 180.0, -180.0))
ALT = Dom(-1e3, 1e5, edges=(0.0,))
XYZ = Dom(-1e7, 1e7, edges=(0.0, 6378137.0))
LOCAL = Dom(-1e5, 1e5, edges=(0.0,))
AZ = Dom(0.0, 360.0, edges=(0.0, 90.0, 180.0))
EL = Dom(-90.0, 90.0, edges=(0.0, 90.0))
RANGE = Dom(0.0, 1e6, edges=(0.0, 1.0))
JD = Dom(2436116.0, 2470000.0, edges=(2451545.0,))


def _case(module, f, *args):
    return Case(f"pymap3d.{module}.{f.__name__}", f, args)


LATITUDE_1 = [latitude.geodetic2isometric, latitude.isometric2geodetic,
              latitude.geodetic2conformal, latitude.conformal2geodetic,
              latitude.geodetic2rectifying, latitude.rectifying2geodetic,
              latitude.geodetic2authalic, latitude.authalic2geodetic,
              latitude.geodetic2parametric, latitude.parametric2geodetic]
LATITUDE_2 = [latitude.geodetic2geocentric, latitude.geocentric2geodetic]
RCURVE = [rcurve.geocentric_radius, rcurve.meridian, rcurve.parallel, rcurve.transverse]

CASES = [
    _case("ecef", ecef.geodetic2ecef, LAT, LON, ALT),
    _case("ecef", ecef.ecef2geodetic, XYZ, XYZ, XYZ),
    _case("ecef", ecef.ecef2enu, XYZ, XYZ, XYZ, LAT, LON, ALT),
    _case("ecef", ecef.enu2ecef, LOCAL, LOCAL, LOCAL, LAT, LON, ALT),
    _case("ecef", ecef.ecef2enuv, LOCAL, LOCAL, LOCAL, LAT, LON),
    _case("ecef", ecef.enu2uvw, LOCAL, LOCAL, LOCAL, LAT, LON),
    _case("ecef", ecef.uvw2enu, LOCAL, LOCAL, LOCAL, LAT, LON),
    _case("enu", enu.enu2aer, LOCAL, LOCAL, LOCAL),
    _case("enu", enu.aer2enu, AZ, EL, RANGE),
    _case("enu", enu.enu2ecefv, LOCAL, LOCAL, LOCAL, LAT, LON),
    _case("enu", enu.enu2geodetic, LOCAL, LOCAL, LOCAL, LAT, LON, ALT),
    _case("enu", enu.geodetic2enu, LAT, LON, ALT, LAT, LON, ALT),
    _case("ned", ned.aer2ned, AZ, EL, RANGE),
    _case("ned", ned.ned2aer, LOCAL, LOCAL, LOCAL),
    _case("ned", ned.ned2geodetic, LOCAL, LOCAL, LOCAL, LAT, LON, ALT),
    _case("ned", ned.ned2ecef, LOCAL, LOCAL, LOCAL, LAT, LON, ALT),
    _case("ned", ned.ecef2ned, XYZ, XYZ, XYZ, LAT, LON, ALT),
    _case("ned", ned.ecef2nedv, LOCAL, LOCAL, LOCAL, LAT, LON),
    _case("ned", ned.geodetic2ned, LAT, LON, ALT, LAT, LON, ALT),
    _case("aer", aer.ecef2aer, XYZ, XYZ, XYZ, LAT, LON, ALT),
    _case("aer", aer.aer2ecef, AZ, EL, RANGE, LAT, LON, ALT),
    _case("aer", aer.geodetic2aer, LAT, LON, ALT, LAT, LON, ALT),
    _case("aer", aer.aer2geodetic, AZ, EL, RANGE, LAT, LON, ALT),
    *[_case("latitude", f, LAT) for f in LATITUDE_1],
    *[_case("latitude", f, LAT, ALT) for f in LATITUDE_2],
    _case("latitude", latitude.geoc2geod, LAT, Dom(6.3e6, 6.5e6)),
    *[_case("rcurve", f, LAT) for f in RCURVE],
    _case("rsphere", rsphere.curve, LAT),
    _case("rsphere", rsphere.euler, LAT, LON, LAT, LON),
    _case("lox", lox.meridian_dist, LAT),
    _case("lox", lox.meridian_arc, LAT, LAT),
    _case("lox", lox.departure, LON, LON, LAT),
    _case("lox", lox.loxodrome_inverse, LAT_IN, LON, LAT_IN, LON),
    _case("lox", lox.loxodrome_direct, LAT_IN, LON, RANGE, AZ),
    _case("lox", lox.meanm, LAT, LON),
    _case("vincenty", vincenty.vdist, LAT_IN, LON, LAT_IN, LON),
    _case("vincenty", vincenty.vreckon, LAT_IN, LON, RANGE, AZ),
    _case("haversine", hav.haversine, Dom(-6.3, 6.3, edges=(0.0,))),
    _case("haversine", hav.anglesep_meeus, LON, LAT, LON, LAT),
    _case("sidereal", sidereal.greenwichsrt, JD),
]
