"""Real scalar functions of sunposition (the NREL Solar Position Algorithm of Reda & Andreas
2004, with its own calendar arithmetic), unchanged, with the domains a user passes.

Source: s-bear/sun-position, sunposition.py (PyPI ``sunposition==1.2.1``), MIT License,
Copyright (c) 2025 Samuel Bear Powell. The functions are imported from the installed
package, not copied: their source is what ``vectorize`` reads. They are written for numba
(``@register_jitable``: the plain Python function, which numba compiles where it is called
from a jitted one) on NumPy scalars: ``np.deg2rad``/``np.arctan2``/``np.polyval`` on module
tables of coefficients, ``np.sum(... np.dot(table, x))`` over a per-example vector of five
angles, fixed-width integer casts (``np.uint32``, ``np.int32``, ``np.uint8``) and ``divmod``
in the Neri-Schneider calendar, ``if``/``else`` on the latitude range and on ``atmos_refract
is None``, tuple results.
Domains from the docstrings: timestamps in microseconds since 1970-01-01 (years 1900..2100),
Julian days 2415020..2488070, latitudes -90..90 (out of range: normalised), longitudes
-180..360, elevations 0..5000 m, temperatures -20..40 C, pressures 800..1050 mbar.
"""

import sunposition as sp
from harness import Case, Dom

US = Dom(-2208988800000000, 4102444800000000, integer=True,
         edges=(0, 946684800000000, 86400000000 - 1, -1))
DAYNUM = Dom(-25567, 47482, integer=True, edges=(0, -1, 11016, 59))
JD = Dom(2415020.5, 2488070.5, edges=(2451545.0,))
JCE = Dom(-1.0, 1.0, edges=(0.0,))
JME = Dom(-0.1, 0.1, edges=(0.0,))
LAT = Dom(-90.0, 90.0, edges=(0.0, 90.0, -90.0))
LAT_WIDE = Dom(-120.0, 120.0, edges=(91.0, -91.0, 0.0))
LON = Dom(-180.0, 360.0, edges=(0.0, -180.0, 360.0))
ELEV = Dom(0.0, 5000.0, edges=(0.0,))
TEMP = Dom(-20.0, 40.0, edges=(14.6,))
PRESS = Dom(800.0, 1050.0, edges=(1013.0,))
DELTA_T = Dom(0.0, 80.0, edges=(0.0, 69.0))
DEG = Dom(0.0, 360.0, edges=(0.0, 90.0, 180.0))
ELEV_ANGLE = Dom(-5.0, 90.0, edges=(0.0, -0.8333, -1.0))


def _case(f, *args, name=""):
    return Case(f"sunposition.{name or f.__name__}", f, args)


CASES = [
    _case(sp._time_day_to_date, DAYNUM),
    _case(sp._time_i64_to_datetime, US),
    _case(sp._julian_day, US),
    _case(sp._julian_ephemeris_day, JD, DELTA_T),
    _case(sp._julian_century, JD),
    _case(sp._julian_millennium, JCE),
    _case(sp._heliocentric_longitude, JME),
    _case(sp._heliocentric_latitude, JME),
    _case(sp._heliocentric_radius, JME),
    _case(sp._heliocentric_position, JME),
    _case(sp._nutation_obliquity, JCE),
    _case(sp._ecliptic_obliquity, JME, Dom(-0.01, 0.01)),
    _case(sp._abberation_correction, Dom(0.98, 1.02)),
    _case(sp._greenwich_sidereal_time, JD, Dom(-0.01, 0.01), Dom(23.4, 23.5)),
    _case(sp._sun_ra_decl, DEG, Dom(23.4, 23.5), Dom(-0.001, 0.001)),
    _case(sp._sun_topo_ra_decl_hour, LAT, LON, ELEV, JD, DELTA_T),
    _case(sp._atmospheric_correction, ELEV_ANGLE, TEMP, PRESS, None,
          name="_atmospheric_correction[auto]"),
    _case(sp._atmospheric_correction, ELEV_ANGLE, TEMP, PRESS, 0.5667,
          name="_atmospheric_correction[spa.c]"),
    _case(sp._sun_topo_azimuth_zenith, LAT, Dom(-23.5, 23.5), Dom(-180.0, 180.0), TEMP,
          PRESS, None),
    _case(sp._norm_lat_lon, LAT_WIDE, Dom(-400.0, 400.0, edges=(0.0, 360.0, -1.0))),
    _case(sp._topo_sunpos, US, LAT, LON, ELEV, DELTA_T),
    _case(sp._sunpos, US, LAT, LON, ELEV, TEMP, PRESS, None, DELTA_T),
]
