"""Real scalar functions of refet (ASCE standardized reference evapotranspiration: vapour
pressures, extraterrestrial and clear-sky radiation, net radiation, the Penman-Monteith form),
unchanged, with the domains a user passes.

Source: WSWUP/RefET, refet/calcs.py (PyPI ``refet==0.5.0``), Apache License 2.0, Copyright
(c) Charles Morton et al. The functions are imported from the installed package, not copied:
their source is what ``vectorize`` reads. They are written with NumPy for scalars or arrays
(``np.array(...)`` of the input, ``np.where``, ``np.clip``, ``np.mod``); a station's daily
record is often run one day at a time.
Domains from the docstrings: temperatures -40..50 C, elevations 0..4000 m, air pressures
60..105 kPa, vapour pressures 0.01..7 kPa, days of year 1..366, latitudes -1.5..1.5 rad,
longitudes -3.1..3.1 rad, solar radiation 0..40 MJ m-2 d-1, wind speeds 0..20 m/s at 2..10 m.
"""

import refet.calcs as calcs
from harness import Case, Dom

NAN = float("nan")
T = Dom(-40.0, 50.0, edges=(0.0, NAN))
ELEV = Dom(0.0, 4000.0, edges=(0.0,))
PAIR = Dom(60.0, 105.0)
EA = Dom(0.01, 7.0, edges=(1.0,))
DOY = Dom(1, 366, integer=True, edges=(1, 172, 366))
LAT = Dom(-1.5, 1.5, edges=(0.0,))
LON = Dom(-3.1, 3.1, edges=(0.0,))
RS = Dom(0.0, 40.0, edges=(0.0,))
RA = Dom(0.0, 45.0, edges=(0.0,))
FCD = Dom(0.05, 1.0)
HOUR = Dom(0.0, 24.0, edges=(12.0,))


def _case(f, *args):
    return Case(f"refet.calcs.{f.__name__}", f, args)


CASES = [
    _case(calcs.air_pressure, ELEV),
    Case("refet.calcs.air_pressure[refet]", calcs.air_pressure, (ELEV, "refet")),
    _case(calcs.sat_vapor_pressure, T),
    _case(calcs.es_slope, T),
    Case("refet.calcs.es_slope[refet]", calcs.es_slope, (T, "refet")),
    _case(calcs.actual_vapor_pressure, Dom(0.0, 0.03), PAIR),
    _case(calcs.specific_humidity, EA, PAIR),
    _case(calcs.vpd, Dom(0.0, 7.0), EA),
    _case(calcs.precipitable_water, PAIR, EA),
    _case(calcs.doy_fraction, DOY),
    _case(calcs.declination, DOY),
    Case("refet.calcs.declination[refet]", calcs.declination, (DOY, "refet")),
    _case(calcs.dr, DOY),
    _case(calcs.seasonal_correction, DOY),
    _case(calcs.solar_time_rad, LON, HOUR, Dom(-0.3, 0.3)),
    _case(calcs.solar_hour_angle, Dom(0.0, 24.0)),
    _case(calcs.sunset_hour_angle, LAT, Dom(-0.41, 0.41)),
    _case(calcs.ra_daily, LAT, DOY),
    Case("refet.calcs.ra_daily[refet]", calcs.ra_daily, (LAT, DOY, "refet")),
    _case(calcs.ra_hourly, LAT, LON, DOY, HOUR),
    _case(calcs.rso_daily, RA, EA, PAIR, DOY, LAT),
    _case(calcs.rso_hourly, RA, EA, PAIR, DOY, HOUR, LAT, LON),
    _case(calcs.rso_simple, RA, ELEV),
    _case(calcs.fcd_daily, RS, Dom(0.0, 40.0, edges=(0.0,))),
    _case(calcs.fcd_hourly, RS, Dom(0.0, 5.0, edges=(0.0,)), DOY, HOUR, LAT, LON),
    _case(calcs.rnl_daily, T, T, EA, FCD),
    _case(calcs.rnl_hourly, T, EA, FCD),
    _case(calcs.rn_daily, RS, Dom(0.0, 10.0)),
    _case(calcs.rn_hourly, RS, Dom(0.0, 1.0)),
    _case(calcs.wind_height_adjust, Dom(0.0, 20.0, edges=(0.0,)), Dom(2.0, 10.0, edges=(2.0,))),
    _case(calcs.etsz, Dom(0.0, 25.0), Dom(-2.0, 2.0), T, Dom(0.0, 20.0), Dom(0.0, 7.0),
          Dom(0.0, 0.5), Dom(0.05, 0.07), 900.0, 0.34),
    _case(calcs.wrap, Dom(-1e3, 1e3, edges=(0.0, 180.0)), -180.0, 180.0),
]
