"""Real scalar functions of psypy (psychrometric states of moist air, ASHRAE 2009 Handbook
of Fundamentals chapter 1), unchanged, with the domains a user passes.

Source: psypy (PyPI ``psypy==0.0.2``), psypy/psySI.py, by Tyler Pietri. The functions are
imported from the installed package, not copied: their source is what ``vectorize`` reads.
Its helpers are module-level functions with double-underscore names (``__Pws``,
``__W_DBT_RH_P``, ...) that return a value only inside the valid dry-bulb range (``if
__valid_DBT(DBT): return ...``, None outside it); the inverse ones are bisections (``while
DBTb-DBTa>TOL:`` halving ``[DBTa, DBTb]`` unpacked from a list); ``state`` dispatches on two
property names (strings, fixed per call) through an ``if``/``elif`` tree and returns a list of
six properties: a user vectorizes it with ``signature="(),(),(),(),()->(6)"``.
Domains from the module's comments: SI units, dry-bulb 273.15..473.15 K, relative humidity
0..1, pressure around 101325 Pa, humidity ratio 0..0.05 kg/kg, enthalpy 0..150 kJ/kg.
"""

from harness import Case, Dom
from psypy import psySI

DBT = Dom(273.15, 323.15, edges=(273.15, 300.0))
DBT_WIDE = Dom(250.0, 480.0, edges=(273.15, 473.15, 272.0, 474.0))    # outside: None
RH = Dom(0.05, 1.0, edges=(1.0, 0.5))
P = Dom(80000.0, 105000.0, edges=(101325.0,))
W = Dom(0.001, 0.02, edges=(0.01,))
H = Dom(10.0, 100.0, edges=(50.0,))
V = Dom(0.8, 0.9, edges=(0.85,))
PW = Dom(100.0, 10000.0, log=True, edges=(1000.0,))


def _f(name):
    return getattr(psySI, name)


def _case(name, *args):
    return Case(f"psypy.psySI.{name}", _f(name), args)


CASES = [
    _case("__Pws", DBT_WIDE),
    _case("__valid_DBT", DBT_WIDE),
    _case("__is_positive", Dom(-1.0, 1.0, edges=(0.0, -0.0))),
    _case("__DPT_Pw", PW),
    _case("__Pw_W_P", W, P),
    _case("__H_DBT_W", DBT_WIDE, W),
    _case("__W_DBT_H", DBT, H),
    _case("__W_DBT_RH_P", DBT, RH, P),
    _case("__W_DBT_V_P", DBT, V, P),
    _case("__W_DBT_WBT_P", Dom(290.0, 320.0), Dom(280.0, 290.0), P),
    _case("__RH_DBT_W_P", DBT, W, P),
    _case("__V_DBT_W_P", DBT_WIDE, W, P),
    _case("__WBT_DBT_W_P", Dom(295.0, 320.0), Dom(0.001, 0.01), P),
    _case("__DBT_H_W", H, W),
    _case("__DBT_RH_W_P", RH, W, P),
    _case("__DBT_H_RH_P", H, RH, P),
    _case("__DBT_V_W_P", V, W, P),
    Case("psypy.psySI.state[DBT,RH]", psySI.state, ("DBT", DBT, "RH", RH, P),
         signature="(),(),(),(),()->(6)"),
    Case("psypy.psySI.state[DBT,W]", psySI.state, ("DBT", DBT, "W", W, P),
         signature="(),(),(),(),()->(6)"),
    Case("psypy.psySI.state[H,W]", psySI.state, ("H", H, "W", W, P),
         signature="(),(),(),(),()->(6)"),
]
