"""Real scalar functions of astral (sun and moon positions after the NOAA spreadsheet and
Meeus), unchanged, with the domains a user passes: the float-in, float-out ones (the others
take datetimes and observers).

Source: sffjunkie/astral, src/astral/__init__.py, sun.py and moon.py (PyPI ``astral==3.2``),
Apache-2.0 License, Copyright (c) 2009-2022 Simon Kennedy. The functions are imported from the
installed package, not copied: their source is what ``vectorize`` reads (polynomials in the
Julian century, ``if elevation <= 0: return 0`` guards that return an int on one branch,
``acos`` of a ratio that leaves [-1, 1] where the sun never rises, an enum compared with
``==``, ``isinstance`` of a timedelta).
Domains from the docstrings: Julian centuries since J2000 of the years 1900..2100 (-1..1),
days since J2000 for the moon, latitudes -90..90 (polar ones: math domain error),
declinations -23.44..23.44, zeniths 0..108 degrees (astronomical dawn), observer elevations
-100..9000 m, limits of dms_to_float.
"""

import astral
import astral.moon as moon
import astral.sun as sun
from harness import Case, Dom

NAN, INF = float("nan"), float("inf")
JC = Dom(-1.0, 1.0, edges=(0.0, -0.0, 0.25, NAN))
JD2000 = Dom(-36525.0, 36525.0, edges=(0.0, 8766.0, NAN))
LAT = Dom(-65.0, 65.0, edges=(0.0, 51.5, -33.9, 66.0, 89.9, -89.9, 90.0))
DECL = Dom(-23.44, 23.44, edges=(0.0, 23.44))
ZENITH = Dom(0.0, 108.0, edges=(90.833, 96.0, 102.0, 108.0, 0.0, 85.0, 95.0, 90.575))
ELEV = Dom(-100.0, 9000.0, edges=(0.0, -0.0, 1.0, NAN))
P = Dom(-1.0, 2.0, edges=(0.0, 0.5, 1.0))


def _case(module, f, *args):
    return Case(f"astral.{module}{f.__name__}", f, args)


CASES = [
    *[_case("sun.", f, JC) for f in (
        sun.geom_mean_long_sun, sun.geom_mean_anomaly_sun, sun.eccentric_location_earth_orbit,
        sun.sun_eq_of_center, sun.sun_true_long, sun.sun_true_anomoly, sun.sun_rad_vector,
        sun.sun_apparent_long, sun.mean_obliquity_of_ecliptic, sun.obliquity_correction,
        sun.sun_rt_ascension, sun.sun_declination, sun.var_y, sun.eq_of_time)],
    _case("sun.", sun.hour_angle, LAT, DECL, ZENITH, sun.SunDirection.RISING),
    Case("astral.sun.hour_angle[setting]", sun.hour_angle,
         (LAT, DECL, ZENITH, sun.SunDirection.SETTING)),
    _case("sun.", sun.adjust_to_horizon, ELEV),
    _case("", astral.refraction_at_zenith, ZENITH),
    _case("", astral.dms_to_float, Dom(-200.0, 200.0, edges=(0.0, 180.0, NAN)), 180.0),
    *[_case("moon.", f, JD2000) for f in (
        moon.moon_mean_longitude, moon.moon_mean_anomoly, moon.moon_argument_of_latitude,
        moon.moon_mean_elongation_from_sun, moon.longitude_lunar_ascending_node,
        moon.sun_mean_longitude, moon.sun_mean_anomoly, moon.venus_mean_longitude)],
    _case("moon.", moon.interpolate, Dom(-1.0, 1.0), Dom(-1.0, 1.0), Dom(-1.0, 1.0), P),
    _case("moon.", moon.sgn, Dom(-1.0, 1.0, edges=(0.0, -0.0, NAN, INF))),
]
