"""Real scalar functions of meteocalc (dew point, heat index, wind chill, feels-like
temperature), unchanged, with the domains a user passes.

Source: malexer/meteocalc (PyPI ``meteocalc==1.1.0``), MIT License, Copyright (c) 2016
Alexey Malashkevich. The functions are imported from the installed package, not copied:
their source is what ``vectorize`` reads. They return a ``Temp`` (a class with a float
value and a unit, built by a metaclass; ``float(t)`` is its value): a user takes the number
out with ``float(...)``, as the ``[float]`` cases do. ``dew_point`` picks a constant set from
a dict of dicts by the sign of the temperature and raises a ValueError with a
``str.format`` message for a humidity outside 1..100; ``heat_index`` sums with
``math.fsum`` over a list of terms; ``wind_chill`` raises outside its domain;
``Temp.convert`` dispatches on unit letters through a class dict of lambdas.
Domains from the docstrings: temperatures -40..50 C (dew point), 40..120 F (heat index),
-40..50 F (wind chill), humidity 1..100 %, wind speeds 0..60 mph.
"""

from harness import Case, Dom
from meteocalc import Temp, dew_point, feels_like, heat_index, wind_chill

T_C = Dom(-40.0, 50.0, edges=(0.0, -0.0, 25.0))
T_F = Dom(-40.0, 120.0, edges=(50.0, 80.0, 79.9))
RH = Dom(1.0, 100.0, edges=(1.0, 100.0, 40.0))
BAD_RH = Dom(-10.0, 110.0, edges=(0.5, 100.5))
WIND = Dom(0.0, 60.0, edges=(3.0, 0.0, 3.1))


def dew_point_value(t, rh):
    return float(dew_point(t, rh))


def heat_index_value(t, rh):
    return float(heat_index(t, rh))


def wind_chill_value(t, v):
    return float(wind_chill(t, v))


def feels_like_value(t, rh, v):
    return float(feels_like(t, rh, v))


def dew_point_f(t, rh):
    return dew_point(t, rh).f


CASES = [
    Case("meteocalc.dew_point", dew_point, (T_C, RH)),
    Case("meteocalc.heat_index", heat_index, (T_F, RH)),
    Case("meteocalc.dew_point[float]", dew_point_value, (T_C, BAD_RH)),
    Case("meteocalc.heat_index[float]", heat_index_value, (T_F, RH)),
    Case("meteocalc.wind_chill[float]", wind_chill_value, (T_F, WIND)),
    Case("meteocalc.feels_like[float]", feels_like_value, (T_F, RH, WIND)),
    Case("meteocalc.dew_point[.f]", dew_point_f, (T_C, RH)),
    Case("meteocalc.Temp.convert[c2f]", Temp.convert, (T_C, "c", "f")),
    Case("meteocalc.Temp.convert[f2k]", Temp.convert, (T_F, "F", "K")),
]
