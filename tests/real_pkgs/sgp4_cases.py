"""Real scalar functions of sgp4 (orbit propagation: Julian dates, TLE epochs, anomalies,
sidereal time), unchanged, with the domains a user passes.

Source: brandon-rhodes/python-sgp4, sgp4/functions.py, sgp4/ext.py and sgp4/propagation.py
(PyPI ``sgp4==2.27``), MIT License, Copyright (c) 2012-2020 Brandon Rhodes. The functions
are imported from the installed package (its pure-Python modules), not copied: their source
is what ``vectorize`` reads.
Domains from the docstrings: calendar dates of the TLE era (years 1957..2056), days of the
year 1..367 (a TLE epoch's), eccentricities of circular, elliptical, parabolic and
hyperbolic orbits, Julian dates of the same era.
"""

import sgp4.ext as ext
import sgp4.functions as fn
import sgp4.propagation as prop
from harness import Case, Dom

NAN = float("nan")
YEAR = Dom(1957, 2056, integer=True, edges=(2000, 1900, 2100))
MONTH = Dom(1, 12, integer=True)
DAY = Dom(1, 28, integer=True)
HOUR = Dom(0, 23, integer=True)
MINUTE = Dom(0, 59, integer=True)
SECOND = Dom(0.0, 60.0, edges=(0.0, 59.999999))
DAYS = Dom(1.0, 367.0, edges=(1.0, 32.0, 60.0, 366.0, 366.9999999999, 1.00000000001))
JD = Dom(2436116.0, 2470000.0, edges=(2451545.0, 2415020.5))
ECC = Dom(0.0, 3.0, edges=(0.0, 1e-9, 0.5, 1.0, 1.0 + 1e-9, 2.0))
NU = Dom(-3.14159, 3.14159, edges=(0.0, 3.0, -3.0))

CASES = [
    Case("sgp4.functions.jday", fn.jday, (YEAR, MONTH, DAY, HOUR, MINUTE, SECOND)),
    Case("sgp4.functions.days2mdhms", fn.days2mdhms, (YEAR, DAYS)),
    Case("sgp4.functions.days2mdhms[no rounding]", fn.days2mdhms, (YEAR, DAYS, None)),
    Case("sgp4.functions._day_of_year_to_month_day", fn._day_of_year_to_month_day,
         (Dom(1, 366, integer=True, edges=(59, 60, 61, 366)), Dom(0, 1, integer=True))),
    Case("sgp4.ext.newtonnu", ext.newtonnu, (ECC, NU)),
    Case("sgp4.ext.invjday", ext.invjday, (JD,)),
    Case("sgp4.ext.jday", ext.jday, (YEAR, MONTH, DAY, HOUR, MINUTE, SECOND)),
    Case("sgp4.propagation.gstime", prop.gstime, (JD,)),
]
