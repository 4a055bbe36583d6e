"""Real scalar functions of jdcal (Julian dates of the proleptic Gregorian and Julian
calendars, two-part Julian dates as in IAU SOFA), unchanged, with the domains a user passes.

Source: phn/jdcal, jdcal.py (PyPI ``jdcal==1.4.1``), BSD-2-Clause License, Copyright (c)
2011 Prasanth Nair. The functions are imported from the installed package, not copied: their
source is what ``vectorize`` reads (``math.modf``/``math.fmod``/``math.floor`` arithmetic on
Python numbers; dates are tuples).
Domains from the docstrings: years -4713..9999 (leap-year rules at 1900, 2000, 1600), months
1..12 and out of range ones (the functions normalise them), days 1..31, two-part Julian dates
(2400000.5 + MJD, and the reverse order).
"""

import jdcal
from harness import Case, Dom

YEAR = Dom(-4700, 9999, integer=True, edges=(1900, 2000, 1600, 0, -1, 1582))
MONTH = Dom(1, 12, integer=True, edges=(0, 13, -1))
DAY = Dom(1, 31, integer=True, edges=(0, 29, 30))
MJD = Dom(-1e5, 1e5, edges=(0.0, 51544.5, -0.5, 0.5))
X = Dom(-1e6, 1e6, edges=(0.0, -0.0, 0.5, -0.5, float("nan")))


def _case(f, *args):
    return Case(f"jdcal.{f.__name__}", f, args)


CASES = [
    _case(jdcal.ipart, X),
    _case(jdcal.is_leap, YEAR),
    _case(jdcal.gcal2jd, YEAR, MONTH, DAY),
    _case(jdcal.jcal2jd, YEAR, MONTH, DAY),
    _case(jdcal.jd2gcal, 2400000.5, MJD),
    _case(jdcal.jd2jcal, 2400000.5, MJD),
    Case("jdcal.jd2gcal[mjd first]", jdcal.jd2gcal, (MJD, 2400000.5)),
]
