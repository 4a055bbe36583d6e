"""Real scalar functions of pyXSteam (IAPWS IF-97 water and steam properties, a port of the
Matlab/Excel XSteam), unchanged, with the domains a user passes.

Source: drunsinn/pyXSteam, pyXSteam/Regions.py, RegionSelection.py, RegionBorders.py,
TransportProperties.py, IAPWS_R14.py and XSteam.py (PyPI ``pyxsteam==0.4.10``), GPL-2.0
License, Copyright (c) Magnus Holmgren (XSteam) and drunsinn. The functions are imported from
the installed package, not copied: their source is what ``vectorize`` reads (staticmethods of
the classes ``Region1`` .. ``Region5`` that build coefficient lists ``I1``, ``J1``, ``n1``
and sum ``for i in range(0, 34)`` over them; ``if``/``elif`` chains over sub-regions that
call each other's staticmethods; ``while`` bisections (``h4L_p``, ``h4V_p``) with a
``logger.warning`` and ``break`` where they stall; int sentinels ``-99999`` and ``0`` returned
from float functions; region selectors that return ints after a chain of early returns and
``logging`` calls; ``XSteam`` methods that convert units through ``self._unit_converter``,
``is`` comparisons of the unit system and ``float()``, then dispatch on the region number).
Domains from the IF-97 release and the code's thresholds: pressures in MPa in
[0.000611657, 100] (bar for the XSteam(MKS) methods), temperatures in K in [273.15, 2273.15]
(degC for XSteam), enthalpies in kJ/kg, entropies in kJ/(kg K), densities in kg/m3, with the
edges where the region borders switch (16.5292 MPa, 22.064 MPa, 623.15 K, 1073.15 K, the
triple and critical points).
"""

import logging

from harness import Case, Dom
from pyXSteam import IAPWS_R14, RegionBorders, RegionSelection, TransportProperties
from pyXSteam.Regions import Region1, Region2, Region3, Region4, Region5
from pyXSteam.XSteam import XSteam

NAN = float("nan")
# (out of range the functions log a warning or an error per example, then return NaN or
# a sentinel: quiet)
logging.getLogger("pyXSteam").setLevel(logging.CRITICAL)

P = Dom(0.000611657, 100.0, log=True, edges=(16.5292, 22.064, 100.0, 1.0, 0.1, 10.0))
P_ANY = Dom(1e-4, 110.0, log=True, edges=(0.000611, 50.0, 100.0, 16.5292, 22.064, 0.0, -1.0))
P1 = Dom(0.001, 100.0, log=True, edges=(16.5292, 100.0, 1.0))
T1 = Dom(273.15, 623.15, edges=(273.15, 373.15, 623.15))
P2 = Dom(0.000611657, 10.0, log=True, edges=(4.0, 0.1, 1.0))
T2 = Dom(623.15, 1073.15, edges=(623.15, 1073.15, 800.0))
P_SAT = Dom(0.000611657, 22.064, log=True, edges=(16.529, 16.5292, 20.0, 22.0, 1.0, 0.1))
T_SAT = Dom(273.15, 647.096, edges=(273.15, 273.16, 373.15, 623.15, 647.0))
T_ANY = Dom(200.0, 2400.0, edges=(273.15, 623.15, 647.096, 1073.15, 2273.15, NAN))
H1 = Dom(0.0, 1600.0, edges=(0.0, 100.0, 1500.0))
H2 = Dom(2000.0, 4000.0, edges=(2500.0, 2800.0, 3500.0))
H_ANY = Dom(-100.0, 4500.0, edges=(0.0, 1670.9, 2087.2, 2563.6, 4000.0, NAN))
S1 = Dom(0.0, 3.7, edges=(0.0, 1.0, 3.397782955))
S2 = Dom(5.3, 9.1, edges=(5.85, 6.07, 7.0))
S_SAT = Dom(-0.0001545495919, 9.155759395,
            edges=(0.0, 3.77828134, 5.210887663, 4.4, 9.15))
S_ANY = Dom(-1.0, 12.0, edges=(0.0, 3.78, 5.21, 9.155759395, NAN))
RHO3 = Dom(100.0, 800.0, edges=(322.0, 500.0))
T3 = Dom(623.15, 900.0, edges=(647.096, 700.0))
P3 = Dom(16.6, 100.0, edges=(22.064, 25.0, 50.0))
H3 = Dom(1600.0, 2700.0, edges=(2087.23500164864, 2000.0))
S3 = Dom(3.4, 5.1, edges=(4.41202148223476, 3.8))
P5 = Dom(0.001, 50.0, log=True, edges=(10.0, 1.0))
T5 = Dom(1073.15, 2273.15, edges=(1073.15, 2000.0))
H5 = Dom(4200.0, 7000.0, edges=(5000.0,))
RHO = Dom(0.01, 1100.0, log=True, edges=(1000.0, 322.0, 0.5))
X = Dom(0.0, 1.0, edges=(0.0, 1.0, 0.5))

STEAM = XSteam(XSteam.UNIT_SYSTEM_MKS)     # bar, degC, kJ/kg, as the README's examples
P_BAR = Dom(0.01, 1000.0, log=True, edges=(1.0, 165.292, 220.64, 1000.0, 0.0))
T_C = Dom(0.01, 2000.0, edges=(0.01, 100.0, 350.0, 373.946, 800.0))
T_C_SAT = Dom(0.01, 373.9, edges=(0.01, 100.0, 350.0))


# (the backward equations sum 30 to 46 terms `n[i] * a ** I[i] * b ** J[i]` that cancel,
# most outside their subregion: NumPy's array power, which can differ from Python's in the
# last bit (docs/semantics.md), moves such a sum by up to about 1e-11 relative)
POWER_SUMS = "sums of powers that cancel magnify NumPy's array power's last-bit difference"
RTOL = 1e-9


def _case(f, *args, name=""):
    return Case(f"pyxsteam.{name or f.__qualname__}", f, args, rtol=RTOL,
                rtol_reason=POWER_SUMS)


def _method(name, *args):
    return Case(f"pyxsteam.XSteam.{name}", getattr(STEAM, name), args, rtol=RTOL,
                rtol_reason=POWER_SUMS)


CASES = [
    _case(Region1.v1_pT, P1, T1),
    _case(Region1.h1_pT, P1, T1),
    _case(Region1.s1_pT, P1, T1),
    _case(Region1.Cp1_pT, P1, T1),
    _case(Region1.w1_pT, P1, T1),
    _case(Region1.T1_ph, P1, H1),
    _case(Region1.T1_ps, P1, S1),
    _case(Region1.p1_hs, H1, S1),
    _case(Region2.v2_pT, P2, T2),
    _case(Region2.h2_pT, P2, T2),
    _case(Region2.Cp2_pT, P2, T2),
    _case(Region2.T2_ph, P, H2),
    _case(Region2.T2_ps, P, S2),
    _case(Region2.p2_hs, H2, S2),
    _case(Region3.p3_rhoT, RHO3, T3),
    _case(Region3.h3_rhoT, RHO3, T3),
    _case(Region3.T3_ph, P3, H3),
    _case(Region3.v3_ph, P3, H3),
    _case(Region3.T3_ps, P3, S3),
    _case(Region3.p3_hs, H3, S3),
    _case(Region4.p4_T, T_SAT),
    _case(Region4.T4_p, P_SAT),
    _case(Region4.h4_s, S_SAT),
    _case(Region4.p4_s, S_SAT),
    _case(Region4.h4L_p, P_SAT),
    _case(Region4.h4V_p, P_SAT),
    _case(Region4.x4_ph, P_SAT, H_ANY),
    _case(Region5.h5_pT, P5, T5),
    _case(Region5.T5_ph, P5, H5),
    _case(RegionBorders.B23p_T, Dom(623.15, 863.15, edges=(623.15, 863.15))),
    _case(RegionBorders.B23T_p, Dom(16.5292, 100.0, edges=(16.5292, 100.0))),
    _case(RegionBorders.p3sat_h, Dom(1670.858218, 2563.592004, edges=(2087.23500164864,))),
    _case(RegionBorders.hB13_s, Dom(3.397782955, 3.77828134)),
    _case(RegionBorders.TB23_hs, Dom(2563.592004, 2812.942061), Dom(5.048096828, 5.260578707)),
    _case(RegionSelection.region_pT, P_ANY, T_ANY),
    _case(RegionSelection.region_ph, P_ANY, H_ANY),
    _case(RegionSelection.region_ps, P_ANY, S_ANY),
    _case(RegionSelection.region_hs, H_ANY, S_ANY),
    _case(RegionSelection.region_prho, P_ANY, RHO),
    _case(TransportProperties.my_AllRegions_pT, P, T_ANY),
    _case(TransportProperties.tc_ptrho, P, T_ANY, RHO),
    _case(TransportProperties.Surface_Tension_T, Dom(200.0, 700.0, edges=(273.16, 647.096))),
    _case(IAPWS_R14.pmelt_T_iceIh, Dom(251.165, 273.16, edges=(251.165, 273.16))),
    _case(IAPWS_R14.psubl_T, Dom(50.0, 273.16, edges=(50.0, 273.16))),
    _method("tsat_p", P_BAR),
    _method("psat_t", T_C_SAT),
    _method("t_ph", P_BAR, H_ANY),
    _method("h_pt", P_BAR, T_C),
    _method("rho_pt", P_BAR, T_C),
    _method("h_px", P_BAR, X),
    _method("x_ph", P_BAR, H_ANY),
    _method("my_pt", P_BAR, T_C),
    _method("tc_pt", P_BAR, T_C),
    _method("st_t", T_C),
]
