"""Real scalar functions of pvlib's solar position algorithm (NREL SPA), unchanged, with the
domains a user passes.

Source: pvlib/pvlib-python, pvlib/spa.py (PyPI ``pvlib==0.16.1``), BSD 3-Clause License,
Copyright (c) 2013-2023 pvlib python Contributors. The functions are imported from the
installed package, not copied: their source is what ``vectorize`` reads. pvlib writes them
for one time step each, to be compiled by numba (``PVLIB_USE_NUMBA``); without numba they
are plain Python on NumPy scalars. Their tables (``L0``..``R4``) are module-level arrays the
loops of ``sum_mult_cos_add_mult`` run over.
Domains: Julian ephemeris millennia/centuries near J2000, angles in degrees, latitudes
[-90, 90], elevations [-400, 9000] m, dates of the years 1900..2100.
"""

import pvlib.spa as spa
from harness import Case, Dom

NAN = float("nan")
JD = Dom(2415020.5, 2488070.5, edges=(2451545.0, NAN))        # 1900..2100
JC = Dom(-1.0, 1.0, edges=(0.0, NAN))                          # Julian centuries
JME = Dom(-0.1, 0.1, edges=(0.0, NAN))                         # Julian millennia
DEG = Dom(-360.0, 720.0, edges=(0.0, 90.0, -90.0, 180.0, NAN))
LAT = Dom(-90.0, 90.0, edges=(0.0, 90.0, -90.0, NAN))
DECL = Dom(-23.5, 23.5, edges=(0.0,))
ELEV = Dom(-400.0, 9000.0, edges=(0.0,))
AU = Dom(0.98, 1.02, edges=(1.0,))


def _case(f, *args, name=None):
    return Case("pvlib.spa." + (name or f.__name__), f, args)


CASES = [
    _case(spa.julian_day, Dom(-2.2e9, 4.1e9, edges=(0.0, NAN))),
    _case(spa.julian_day_dt, Dom(1900, 2100, integer=True), Dom(1, 12, integer=True),
          Dom(1, 28, integer=True), Dom(0, 23, integer=True), Dom(0, 59, integer=True),
          Dom(0, 59, integer=True), Dom(0, 999_999, integer=True)),
    _case(spa.julian_ephemeris_day, JD, Dom(-10.0, 120.0, edges=(67.0,))),
    _case(spa.julian_century, JD),
    _case(spa.julian_ephemeris_century, JD),
    _case(spa.julian_ephemeris_millennium, JC),
    _case(spa.heliocentric_longitude, JME),
    _case(spa.heliocentric_latitude, JME),
    _case(spa.heliocentric_radius_vector, JME),
    _case(spa.geocentric_longitude, DEG),
    _case(spa.geocentric_latitude, Dom(-0.001, 0.001)),
    _case(spa.mean_elongation, JC),
    _case(spa.mean_anomaly_sun, JC),
    _case(spa.mean_anomaly_moon, JC),
    _case(spa.moon_argument_latitude, JC),
    _case(spa.moon_ascending_longitude, JC),
    _case(spa.mean_ecliptic_obliquity, JME),
    _case(spa.true_ecliptic_obliquity, Dom(23.0, 24.0), Dom(-0.01, 0.01)),
    _case(spa.aberration_correction, AU),
    _case(spa.apparent_sun_longitude, DEG, Dom(-0.01, 0.01), Dom(-0.006, -0.005)),
    _case(spa.mean_sidereal_time, JD, JC),
    _case(spa.apparent_sidereal_time, DEG, Dom(-0.01, 0.01), Dom(23.0, 24.0)),
    _case(spa.geocentric_sun_right_ascension, DEG, Dom(23.0, 24.0), Dom(-0.001, 0.001)),
    _case(spa.geocentric_sun_declination, DEG, Dom(23.0, 24.0), Dom(-0.001, 0.001)),
    _case(spa.local_hour_angle, DEG, Dom(-180.0, 180.0), DEG),
    _case(spa.equatorial_horizontal_parallax, AU),
    _case(spa.uterm, LAT),
    _case(spa.xterm, Dom(-1.6, 1.6), LAT, ELEV),
    _case(spa.yterm, Dom(-1.6, 1.6), LAT, ELEV),
    _case(spa.parallax_sun_right_ascension, Dom(0.0, 1.0), Dom(0.0024, 0.0025), DEG, DECL),
    _case(spa.topocentric_sun_right_ascension, DEG, Dom(-0.01, 0.01)),
    _case(spa.topocentric_sun_declination, DECL, Dom(0.0, 1.0), Dom(-1.0, 1.0),
          Dom(0.0024, 0.0025), Dom(-0.01, 0.01), DEG),
    _case(spa.topocentric_local_hour_angle, DEG, Dom(-0.01, 0.01)),
    _case(spa.topocentric_elevation_angle_without_atmosphere, LAT, DECL, DEG),
    _case(spa.atmospheric_refraction_correction, Dom(500.0, 1100.0), Dom(-40.0, 50.0),
          Dom(-90.0, 90.0, edges=(-0.8, -0.83, 0.0, NAN)), Dom(0.5, 0.6, edges=(0.5667,))),
    _case(spa.topocentric_elevation_angle, Dom(-90.0, 90.0), Dom(0.0, 1.0)),
    _case(spa.topocentric_zenith_angle, Dom(-90.0, 90.0, edges=(NAN,))),
    _case(spa.topocentric_astronomers_azimuth, DEG, DECL, LAT),
    _case(spa.topocentric_azimuth_angle, DEG),
    _case(spa.sun_mean_longitude, JME),
    _case(spa.equation_of_time, DEG, DEG, Dom(-0.01, 0.01), Dom(23.0, 24.0)),
]
