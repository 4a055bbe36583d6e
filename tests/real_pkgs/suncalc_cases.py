"""Real scalar functions of suncalc (sun and moon position helpers, a port of the SunCalc
JavaScript library), unchanged, with the domains a user passes.

Source: kylebarron/suncalc-py (PyPI ``suncalc==0.1.3``), MIT License, Copyright (c) 2020 Kyle
Barron. The functions are imported from the installed package, not copied: their source is
what ``vectorize`` reads. They are written with NumPy's ufuncs under module-level aliases
(``sin = np.sin``, ``atan = np.arctan2``, ``asin = np.arcsin``, ``acos = np.arccos``) and
module constants (``rad``, ``e``, ``J0``, ``J2000``), call each other (``get_set_j`` through
``hour_angle``, ``approx_transit`` and ``solar_transit_j``), clamp with ``np.maximum``, round
with ``np.round`` and return dicts of results (``sun_coords``, ``moon_coords``: the ``[key]``
cases take one entry, as a caller does). ``hour_angle`` and ``observer_angle`` give NaN
outside their domain (``arccos`` of more than 1, ``sqrt`` of a negative height).
Domains from the library's use: days since J2000 -20000..20000, angles in radians
(longitudes, hour angles -2 pi..2 pi, latitudes and declinations -pi/2..pi/2), altitudes
-0.2..1.6 rad, observer heights 0..9000 m.
"""

import math

from harness import Case, Dom
from suncalc import suncalc as sc

DAYS = Dom(-20000.0, 20000.0, edges=(0.0, 9000.5))
LON = Dom(-math.pi, math.pi, edges=(0.0,))
LAT = Dom(-1.5, 1.5, edges=(0.0, 1.2))
HOUR = Dom(-2 * math.pi, 2 * math.pi, edges=(0.0, math.pi / 2))
ALT = Dom(-0.2, 1.6, edges=(0.0, -0.08901179, -0.0145))
HEIGHT = Dom(0.0, 9000.0, edges=(0.0,))
BAD_HEIGHT = Dom(-100.0, 9000.0, edges=(0.0, -1.0))
N = Dom(-20000.0, 20000.0, integer=True, edges=(0,))


def sun_coords_dec(d):
    return sc.sun_coords(d)["dec"]


def sun_coords_ra(d):
    return sc.sun_coords(d)["ra"]


def moon_coords_ra(d):
    return sc.moon_coords(d)["ra"]


def moon_coords_dec(d):
    return sc.moon_coords(d)["dec"]


def moon_coords_dist(d):
    return sc.moon_coords(d)["dist"]


CASES = [
    Case("suncalc.right_ascension", sc.right_ascension, (LON, LAT)),
    Case("suncalc.declination", sc.declination, (LON, LAT)),
    Case("suncalc.azimuth", sc.azimuth, (HOUR, LAT, LAT)),
    Case("suncalc.altitude", sc.altitude, (HOUR, LAT, LAT)),
    Case("suncalc.sidereal_time", sc.sidereal_time, (DAYS, LON)),
    Case("suncalc.astro_refraction", sc.astro_refraction, (ALT,)),
    Case("suncalc.solar_mean_anomaly", sc.solar_mean_anomaly, (DAYS,)),
    Case("suncalc.ecliptic_longitude", sc.ecliptic_longitude, (HOUR,)),
    Case("suncalc.sun_coords[dec]", sun_coords_dec, (DAYS,)),
    Case("suncalc.sun_coords[ra]", sun_coords_ra, (DAYS,)),
    Case("suncalc.julian_cycle", sc.julian_cycle, (DAYS, LON)),
    Case("suncalc.approx_transit", sc.approx_transit, (HOUR, LON, N)),
    Case("suncalc.solar_transit_j", sc.solar_transit_j, (DAYS, HOUR, HOUR)),
    Case("suncalc.hour_angle", sc.hour_angle, (ALT, LAT, LAT)),
    Case("suncalc.observer_angle", sc.observer_angle, (HEIGHT,)),
    Case("suncalc.observer_angle[bad]", sc.observer_angle, (BAD_HEIGHT,)),
    Case("suncalc.get_set_j", sc.get_set_j, (ALT, LON, LAT, LAT, N, HOUR, HOUR)),
    Case("suncalc.moon_coords[ra]", moon_coords_ra, (DAYS,)),
    Case("suncalc.moon_coords[dec]", moon_coords_dec, (DAYS,)),
    Case("suncalc.moon_coords[dist]", moon_coords_dist, (DAYS,)),
]
