"""Real scalar functions of chemicals (Chemical Engineering Design Library), unchanged, with
the domains a user passes.

Source: CalebBell/chemicals, chemicals/vapor_pressure.py, chemicals/phase_change.py,
chemicals/viscosity.py and chemicals/iapws.py (PyPI ``chemicals==1.5.2``), MIT License,
Copyright (c) 2016-2023 Caleb Bell. The functions are imported from the installed package,
not copied: their source is what ``vectorize`` reads.
Domains from the docstrings; the constants of one fluid (water: Tc = 647.14 K, Pc = 22.048
MPa, omega = 0.344) are passed as numbers the same for every example.
"""

import chemicals.iapws as iw
import chemicals.phase_change as pc
import chemicals.vapor_pressure as vp
import chemicals.viscosity as vs
from harness import Case, Dom

NAN = float("nan")
TC, PC, OMEGA, TB, MW = 647.14, 22048320.0, 0.344, 373.124, 18.01528
T_LIQ = Dom(273.16, 640.0, edges=(373.15, 647.14, NAN))
T_GAS = Dom(300.0, 1500.0, edges=(647.14, NAN))
T_IF97 = Dom(273.15, 2273.15, edges=(623.15, 1073.15, 2273.15, 3000.0, NAN))
P_IF97 = Dom(1e3, 1e8, log=True, edges=(16.5292e6, 50e6, 100e6, 2e8))
RHO = Dom(1.0, 1200.0, log=True, edges=(322.0, 999.0))


def _case(module, f, *args):
    return Case(f"chemicals.{module}.{f.__name__}", f, args)


CASES = [
    _case("vapor_pressure", vp.Antoine, T_LIQ, 8.07131, 1730.63, -39.73),
    _case("vapor_pressure", vp.TRC_Antoine_extended, Dom(300.0, 640.0, edges=(400.0, NAN)),
          647.14, 400.0, 10.26, 1817.99, -45.65, 2.6, 12.0, 1.0),
    _case("vapor_pressure", vp.Wagner_original, T_LIQ, TC, PC, -7.76451, 1.45838, -2.7758,
          -1.23303),
    _case("vapor_pressure", vp.Wagner, T_LIQ, TC, PC, -7.76451, 1.45838, -2.7758, -1.23303),
    _case("vapor_pressure", vp.boiling_critical_relation, T_LIQ, TB, TC, PC),
    _case("vapor_pressure", vp.Lee_Kesler, T_LIQ, TC, PC, OMEGA),
    _case("vapor_pressure", vp.Ambrose_Walton, T_LIQ, TC, PC, OMEGA),
    _case("vapor_pressure", vp.Edalat, T_LIQ, TC, PC, OMEGA),
    _case("vapor_pressure", vp.Sanjari, T_LIQ, TC, PC, OMEGA),
    _case("vapor_pressure", vp.Psat_IAPWS, T_LIQ),
    _case("vapor_pressure", vp.Tsat_IAPWS, Dom(700.0, 2.2e7, log=True, edges=(101325.0,))),
    _case("vapor_pressure", vp.Psub_Clapeyron, Dom(150.0, 273.0, edges=(273.16,)), 273.16,
          611.655, 51100.0),
    _case("vapor_pressure", vp.Yaws_Psat, T_LIQ, 29.8605, -3152.2, -7.3037, 2.4247e-09,
          1.809e-06),
    _case("vapor_pressure", vp.dAntoine_dT, T_LIQ, 8.07131, 1730.63, -39.73),
    _case("phase_change", pc.Watson, T_LIQ, 40650.0, 373.15, TC),
    _case("phase_change", pc.Clapeyron, T_LIQ, TC, PC),
    _case("phase_change", pc.Pitzer, T_LIQ, TC, OMEGA),
    _case("phase_change", pc.SMK, T_LIQ, TC, OMEGA),
    _case("phase_change", pc.MK, T_LIQ, TC, OMEGA),
    _case("phase_change", pc.Velasco, T_LIQ, TC, OMEGA),
    _case("phase_change", pc.Riedel, Dom(200.0, 600.0), Dom(400.0, 900.0), Dom(1e6, 1e7)),
    _case("phase_change", pc.Chen, Dom(200.0, 600.0), Dom(400.0, 900.0), Dom(1e6, 1e7)),
    _case("phase_change", pc.Liu, Dom(200.0, 600.0), Dom(400.0, 900.0), Dom(1e6, 1e7)),
    _case("phase_change", pc.Vetere, Dom(200.0, 600.0), Dom(400.0, 900.0), Dom(1e6, 1e7)),
    _case("viscosity", vs.Letsou_Stiel, T_LIQ, MW, TC, PC, OMEGA),
    _case("viscosity", vs.Stiel_Thodos, T_GAS, TC, PC, MW),
    _case("viscosity", vs.Yoon_Thodos, T_GAS, TC, PC, MW),
    _case("viscosity", vs.Viswanath_Natarajan_3, T_LIQ, -5.9719, 1007.0, -139.0),
    _case("viscosity", vs.mu_IAPWS, Dom(273.16, 1173.0, edges=(647.096, NAN)), RHO),
    _case("viscosity", vs.mu_air_lemmon, Dom(100.0, 2000.0), Dom(0.01, 100.0)),
    _case("iapws", iw.iapws92_Psat, T_LIQ),
    _case("iapws", iw.iapws92_rhol_sat, T_LIQ),
    _case("iapws", iw.iapws92_rhog_sat, T_LIQ),
    _case("iapws", iw.iapws11_Psub, Dom(50.0, 273.16, edges=(273.16, NAN))),
    _case("iapws", iw.iapws97_boundary_2_3, Dom(623.15, 863.15, edges=(623.15,))),
    _case("iapws", iw.iapws97_identify_region_TP, T_IF97, P_IF97),
    _case("iapws", iw.iapws97_rho, T_IF97, P_IF97),
    _case("iapws", iw.iapws97_G_region1, Dom(1.0, 4.3), Dom(0.0, 6.1)),
    _case("iapws", iw.iapws97_Gr_region2, Dom(0.5, 2.2), Dom(0.0, 6.1)),
]
