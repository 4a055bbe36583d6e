"""Real scalar functions of PyMeeus (Jean Meeus' "Astronomical Algorithms": calendar rules,
Delta T, angle reductions), unchanged, with the domains a user passes.

Source: architest/pymeeus (PyPI ``pymeeus==0.5.12``), LGPL-3.0 License, Copyright (C) 2018
Dagoberto Salazar. The functions are imported from the installed package, not copied: their
source is what ``vectorize`` reads. They are static methods of its classes (``Epoch``,
``Angle``) and module functions (``base.iint``): ``if``/``elif`` chains on the year (Delta T's
polynomials per era, Julian or Gregorian rules), ``%`` and ``iint`` (an int of a float,
rounding towards zero) arithmetic, tuple results (Easter's month and day), ``isinstance``
tests on the argument's type with a ValueError, ``datetime.date`` for a day of the year.
Domains from the docstrings: years -2000..3000, months 1..12, days 1..31 (fractions of a day
too), angles in degrees of either sign.
"""

from harness import Case, Dom
from pymeeus import base
from pymeeus.Angle import Angle
from pymeeus.Epoch import Epoch

YEAR = Dom(-2000, 3000, integer=True, edges=(1582, 1600, 1900, 2000, 0, -1, 500, -500))
GREG_YEAR = Dom(1583, 3000, integer=True, edges=(1600, 1900, 2000))
MONTH = Dom(1, 12, integer=True, edges=(1, 2, 10, 12))
DAY = Dom(1.0, 28.9, edges=(1.0, 5.0, 4.5))
DEG = Dom(-1000.0, 1000.0, edges=(0.0, -0.0, 360.0, -360.0, 720.0, 359.9999))


def _case(name, f, *args):
    return Case(f"pymeeus.{name}", f, args)


CASES = [
    _case("base.iint", base.iint, Dom(-1e6, 1e6, edges=(0.0, -0.5, 0.5, 2.5, -2.5))),
    _case("Epoch.is_julian", Epoch.is_julian, YEAR, MONTH, DAY),
    _case("Epoch.is_leap", Epoch.is_leap, YEAR),
    _case("Epoch.get_doy", Epoch.get_doy, GREG_YEAR, MONTH, DAY),
    _case("Epoch.easter", Epoch.easter, YEAR),
    _case("Epoch.jewish_pesach", Epoch.jewish_pesach, YEAR),
    _case("Epoch.tt2ut", Epoch.tt2ut, YEAR, MONTH),
    _case("Epoch.leap_seconds", Epoch.leap_seconds, Dom(1960, 2030, integer=True), MONTH),
    _case("Angle.reduce_deg", Angle.reduce_deg, DEG),
    _case("Angle.deg2dms", Angle.deg2dms, DEG),
    _case("Angle.dms2deg", Angle.dms2deg, Dom(-359, 359, integer=True), Dom(0, 59, integer=True),
          Dom(0.0, 59.999)),
    _case("Angle.reduce_dms", Angle.reduce_dms, Dom(-1000, 1000, integer=True),
          Dom(0, 59, integer=True), Dom(0.0, 59.999)),
]
