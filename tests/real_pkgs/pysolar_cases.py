"""Real scalar functions of pysolar (solar position after NREL's SPA, clear-sky radiation),
unchanged, with the domains a user passes.

Source: pingswept/pysolar, pysolar/solar.py, pysolar/radiation.py and pysolar/solartime.py
(PyPI ``pysolar==0.13``), GPL-3.0 License, Copyright (c) Brandon Stafford. The functions are
imported from the installed package, not copied: their source is what ``vectorize`` reads.
Domains: Julian ephemeris millennia of the years 1000..3000 (jme -1..1), latitudes,
angles in degrees, days of the year, pressures in Pa and temperatures in K.
"""

import pysolar.radiation as rad
import pysolar.solar as sol
import pysolar.solartime as st
from harness import Case, Dom

NAN = float("nan")
JME = Dom(-1.0, 1.0, edges=(0.0, NAN))
JD = Dom(2299160.5, 2816787.5, edges=(2451545.0,))
DIST = Dom(0.983, 1.017)
LAT = Dom(-90.0, 90.0, edges=(0.0, 90.0, -90.0, NAN))
ANGLE = Dom(-180.0, 360.0, edges=(0.0, 90.0, NAN))
ELEV = Dom(-500.0, 5000.0, edges=(0.0,))
DAY = Dom(1.0, 366.0, edges=(81.0, 275.0))
ALT = Dom(-10.0, 90.0, edges=(0.0, 90.0, NAN))


def _case(module, f, *args):
    return Case(f"pysolar.{module}.{f.__name__}", f, args)


CASES = [
    _case("solar", sol.get_aberration_correction, DIST),
    _case("solar", sol.get_equatorial_horizontal_parallax, DIST),
    _case("solar", sol.get_flattened_latitude, LAT),
    _case("solar", sol.get_heliocentric_longitude, JME),
    _case("solar", sol.get_heliocentric_latitude, JME),
    _case("solar", sol.get_geocentric_longitude, JME),
    _case("solar", sol.get_geocentric_latitude, JME),
    _case("solar", sol.get_sun_earth_distance, JME),
    _case("solar", sol.get_mean_sidereal_time, JD),
    _case("solar", sol.get_projected_radial_distance, ELEV, LAT),
    _case("solar", sol.get_projected_axial_distance, ELEV, LAT),
    _case("solar", sol.get_local_hour_angle, ANGLE, ANGLE, ANGLE),
    _case("solar", sol.get_geocentric_sun_declination, ANGLE, Dom(23.0, 24.0), ANGLE),
    _case("solar", sol.get_geocentric_sun_right_ascension, ANGLE, Dom(23.0, 24.0), ANGLE),
    _case("solar", sol.get_parallax_sun_right_ascension, Dom(0.5, 1.0), Dom(0.002, 0.003),
          ANGLE, Dom(-23.5, 23.5)),
    _case("solar", sol.get_topocentric_local_hour_angle, ANGLE, Dom(-0.01, 0.01)),
    _case("solar", sol.get_topocentric_sun_declination, Dom(-23.5, 23.5), Dom(0.5, 1.0),
          Dom(0.002, 0.003), Dom(-0.01, 0.01), ANGLE),
    _case("solar", sol.get_topocentric_elevation_angle, LAT, Dom(-23.5, 23.5), ANGLE),
    _case("solar", sol.get_topocentric_azimuth_angle, ANGLE, LAT, Dom(-23.5, 23.5)),
    _case("solar", sol.get_refraction_correction, Dom(80000.0, 105000.0), Dom(250.0, 320.0),
          ALT),
    _case("solar", sol.get_topocentric_zenith_angle, LAT, Dom(-23.5, 23.5), ANGLE,
          Dom(80000.0, 105000.0), Dom(250.0, 320.0)),
    _case("solar", sol.get_incidence_angle, Dom(0.0, 90.0), Dom(0.0, 60.0), ANGLE, ANGLE),
    _case("solar", sol.equation_of_time, DAY),
    _case("solar", sol.get_declination, DAY),
    _case("radiation", rad.get_air_mass_ratio, ALT),
    _case("radiation", rad.get_apparent_extraterrestrial_flux, DAY),
    _case("radiation", rad.get_optical_depth, DAY),
    _case("solartime", st.get_julian_century, JD),
    _case("solartime", st.get_julian_ephemeris_century, JD),
    _case("solartime", st.get_julian_ephemeris_millennium, Dom(-10.0, 10.0)),
]
