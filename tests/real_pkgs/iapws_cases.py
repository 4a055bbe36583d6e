"""Real scalar functions of iapws (steam tables: IAPWS-IF97, IAPWS-95 transport properties,
IAPWS-08 seawater), unchanged, with the domains a user passes.

Source: jjgomera/iapws, iapws/iapws97.py, iapws/_iapws.py and iapws/iapws08.py (PyPI
``iapws==1.5.5``), GPL-3.0 License, Copyright (c) Juan José Gómez Romera. The functions are
imported from the installed package, not copied: their source is what ``vectorize`` reads.
Units as the package's: T in K, P in MPa, h in kJ/kg, s in kJ/kgK, rho in kg/m3, S in kg/kg.
Domains from the docstrings and the IF97 region boundaries; the edges are the region
boundaries, values just outside the validity ranges (the functions raise
NotImplementedError there) and NaN.
"""

import iapws._iapws as w
import iapws.iapws08 as sw
import iapws.iapws97 as r
from harness import Case, Dom

NAN = float("nan")


def _case(module, f, *args):
    return Case(f"iapws.{module}.{f.__name__}", f, args)


T_SAT = Dom(273.15, 647.096, edges=(273.15, 647.096, 200.0, 700.0, NAN))
P_SAT = Dom(611.212677e-6, 22.064, log=True, edges=(1e-4, 22.064, 30.0, NAN))
T_B23 = Dom(623.15, 863.15, edges=(623.15, 863.15, NAN))
P_B23 = Dom(16.5292, 100.0, edges=(16.5292, 100.0, NAN))
P_ALL = Dom(0.001, 100.0, log=True, edges=(4.0, 6.546699678, 22.064, 100.0, NAN))
P_LOW = Dom(0.001, 22.0, log=True, edges=(4.0, 6.546699678, NAN))
H1 = Dom(0.0, 1600.0, edges=(0.0, NAN))
H2 = Dom(2500.0, 4000.0, edges=(2600.0, 3500.0, NAN))
S1 = Dom(0.0, 3.7, edges=(0.0, NAN))
S2 = Dom(5.85, 11.9, edges=(6.07, 5.85, NAN))
P3 = Dom(16.6, 100.0, log=True, edges=(22.5, 23.0, 25.0, 40.0, NAN))
T3 = Dom(623.15, 863.15, edges=(623.15, 650.0, NAN))
H3 = Dom(1600.0, 2800.0, edges=(2087.5, NAN))
S3 = Dom(3.4, 5.2, edges=(4.41202148223476, NAN))
T_REG = Dom(273.15, 2273.15, edges=(273.15, 623.15, 1073.15, 2273.15, 250.0, NAN))
RHO = Dom(1.0, 1100.0, log=True, edges=(322.0, 1000.0, NAN))
T_LIQ = Dom(273.16, 1173.15, edges=(273.16, 647.096, NAN))
T_TENS = Dom(248.15, 647.096, edges=(248.15, 647.096, 240.0, NAN))
T_ICE = Dom(190.0, 273.16, edges=(50.0, 273.16, 300.0, NAN))
T_MELT = Dom(251.165, 715.0, edges=(251.165, 273.16, 273.31, 355.0, 715.0, 800.0, NAN))
T_SEA = Dom(273.15, 313.15, edges=(NAN,))
P_SEA = Dom(0.1, 100.0, log=True, edges=(0.101325, NAN))
S_SEA = Dom(0.0, 0.12, edges=(0.0, 0.035, NAN))

CASES = [
    _case("iapws97", r._PSat_T, T_SAT),
    _case("iapws97", r._TSat_P, P_SAT),
    _case("iapws97", r._P23_T, T_B23),
    _case("iapws97", r._t_P, P_B23),
    _case("iapws97", r._PSat_h, Dom(1670.858218, 2563.592004, edges=(NAN,))),
    _case("iapws97", r._PSat_s, Dom(3.778281340, 5.210887825, edges=(NAN,))),
    _case("iapws97", r._h13_s, Dom(3.397782955, 3.778281340, edges=(NAN,))),
    _case("iapws97", r._t_hs, Dom(2600.0, 2800.0), Dom(5.048096828, 5.260578707)),
    _case("iapws97", r._h1_s, S1),
    _case("iapws97", r._h3a_s, Dom(3.778281340, 4.41202148223476, edges=(NAN,))),
    _case("iapws97", r._h2ab_s, S2),
    _case("iapws97", r._h2c3b_s, Dom(4.41202148223476, 5.85, edges=(NAN,))),
    _case("iapws97", r._Backward1_T_Ph, P_ALL, H1),
    _case("iapws97", r._Backward1_T_Ps, P_ALL, S1),
    _case("iapws97", r._Backward1_P_hs, H1, S1),
    _case("iapws97", r._P_2bc, Dom(2778.265, 3516.004, edges=(NAN,))),
    _case("iapws97", r._hbc_P, Dom(6.546699678, 100.0, edges=(NAN,))),
    _case("iapws97", r._hab_s, S2),
    _case("iapws97", r._Backward2_T_Ph, P_LOW, H2),
    _case("iapws97", r._Backward2a_T_Ph, Dom(0.001, 4.0, log=True), H2),
    _case("iapws97", r._Backward2_T_Ps, P_LOW, S2),
    _case("iapws97", r._Backward2_P_hs, H2, S2),
    _case("iapws97", r._h_3ab, P3),
    _case("iapws97", r._tab_P, P3),
    _case("iapws97", r._top_P, Dom(22.5, 23.0)),
    _case("iapws97", r._twx_P, Dom(22.11, 22.5)),
    _case("iapws97", r._tef_P, Dom(22.064, 40.0)),
    Case("iapws.iapws97._txx_P[cd]", r._txx_P, (Dom(25.0, 40.0), "cd")),
    Case("iapws.iapws97._txx_P[gh]", r._txx_P, (Dom(22.5, 25.0), "gh")),
    _case("iapws97", r._Backward3_v_Ph, P3, H3),
    _case("iapws97", r._Backward3_T_Ph, P3, H3),
    _case("iapws97", r._Backward3_v_Ps, P3, S3),
    _case("iapws97", r._Backward3_T_Ps, P3, S3),
    _case("iapws97", r._Backward3_P_hs, H3, S3),
    _case("iapws97", r._Backward3_v_PT, P3, T3),
    _case("iapws97", r._Backward4_T_hs, Dom(1800.0, 2800.0), Dom(5.2, 9.155759395)),
    _case("iapws97", r._Bound_TP, T_REG, P_ALL),
    _case("iapws97", r._Bound_Ph, P_ALL, Dom(0.0, 4000.0, edges=(NAN,))),
    _case("iapws97", r._Bound_Ps, P_ALL, Dom(0.0, 11.0, edges=(NAN,))),
    _case("iapws97", r.prop0, T_REG, P_ALL),
    _case("_iapws", w._Sublimation_Pressure, T_ICE),
    _case("_iapws", w._Melting_Pressure, T_MELT),
    _case("_iapws", w._Viscosity, RHO, T_LIQ),
    _case("_iapws", w._ThCond, RHO, T_LIQ),
    _case("_iapws", w._Tension, T_TENS),
    _case("_iapws", w._Dielectric, RHO, T_LIQ),
    _case("_iapws", w._Refractive, RHO, Dom(261.15, 773.15)),
    _case("_iapws", w._Kw, RHO, T_LIQ),
    _case("_iapws", w._Conductivity, RHO, T_LIQ),
    _case("_iapws", w._D2O_Viscosity, RHO, T_LIQ),
    _case("_iapws", w._D2O_ThCond, RHO, T_LIQ),
    _case("_iapws", w._D2O_Tension, Dom(269.65, 643.847, edges=(NAN,))),
    _case("_iapws", w._D2O_Sublimation_Pressure, Dom(210.0, 276.969, edges=(NAN,))),
    _case("_iapws", w._D2O_Melting_Pressure, Dom(254.415, 315.0, edges=(NAN,))),
    _case("_iapws", w._Henry, Dom(273.15, 640.0, edges=(NAN,)), "O2"),
    _case("_iapws", w._Kvalue, Dom(273.15, 640.0, edges=(NAN,)), "CO2"),
    _case("iapws08", sw._Tb, P_SEA, S_SEA),
    _case("iapws08", sw._Tf, P_SEA, S_SEA),
    _case("iapws08", sw._OsmoticPressure, T_SEA, P_SEA, S_SEA),
    _case("iapws08", sw._ThCond_SeaWater, T_SEA, P_SEA, S_SEA),
    _case("iapws08", sw._Tension_SeaWater, T_SEA, S_SEA),
]
