"""Real scalar functions of pythermalcomfort (thermal comfort and heat stress: Lu & Romps'
heat index, the two-node Gagge model's helpers, solar gain on a person), unchanged, with the
domains a user passes.

Source: CenterForTheBuiltEnvironment/pythermalcomfort, pythermalcomfort/models/*.py (PyPI
``pythermalcomfort==4.8.0``), MIT License, Copyright (c) 2019 Federico Tartarini. The
package compiles these scalar kernels with numba's ``@njit``: ``vectorize`` reads the Python
function numba compiled (``py_func``), as imported from the installed package, not copied.
Domains from the docstrings: air temperatures in deg C (K where the model says), relative
humidity 0..1, solar altitudes and sharps in degrees.
"""

from importlib import import_module

from harness import Case, Dom
from pythermalcomfort.environment import transpose_sharp_altitude

# the package's `__init__` binds each model's function over its module's name
ce = import_module("pythermalcomfort.models.cooling_effect")
hi = import_module("pythermalcomfort.models.heat_index_lu")
sg = import_module("pythermalcomfort.models.solar_gain")
sleep = import_module("pythermalcomfort.models.two_nodes_gagge_sleep")

NAN = float("nan")
TK = Dom(200.0, 340.0, edges=(273.16, NAN))
TC = Dom(-10.0, 50.0, edges=(0.0, NAN))
RH = Dom(0.0, 1.0, edges=(0.0, 1.0, NAN))
ALT = Dom(0.0, 90.0, edges=(0.0, 90.0))
SHARP = Dom(0.0, 180.0, edges=(0.0, 90.0, 180.0))


def _case(module, f, *args):
    return Case(f"pythermalcomfort.{module}.{f.py_func.__name__}", f, args)


CASES = [
    _case("heat_index_lu", hi._pv_star, TK),
    _case("heat_index_lu", hi._latent_heat_vap, TK),
    _case("heat_index_lu", hi._qv, TK, Dom(100.0, 6000.0)),
    _case("heat_index_lu", hi._zs, Dom(0.0, 1.0)),
    _case("heat_index_lu", hi._ra, TK, TK),
    _case("heat_index_lu", hi._ra_bar, TK, TK),
    _case("heat_index_lu", hi._ra_un, TK, TK),
    _case("heat_index_lu", hi._find_eq_var, TK, RH),
    _case("cooling_effect", ce._p_sat_torr, TC),
    _case("two_nodes_gagge_sleep", sleep._fnsvp, TC),
    _case("solar_gain", sg._projected_area_factor, ALT, SHARP, 0),      # sitting
    Case("pythermalcomfort.solar_gain._projected_area_factor[standing]",
         sg._projected_area_factor, (ALT, SHARP, 1)),
    _case("environment", transpose_sharp_altitude, SHARP, ALT),
]
