"""Real scalar functions of ht (heat transfer, Chemical Engineering Design Library),
unchanged, with the domains a user passes.

Source: CalebBell/ht, ht/conv_internal.py, ht/conv_external.py and ht/conv_free_immersed.py
(PyPI ``ht==1.2.0``), MIT License, Copyright (c) 2016-2023 Caleb Bell. The functions are
imported from the installed package, not copied: their source is what ``vectorize`` reads.
Domains from the docstrings: Reynolds numbers 1e4..1e6 inside pipes, 1..1e6 across cylinders,
Prandtl numbers 0.5..1e3, Grashof numbers 1e2..1e12, Darcy friction factors 0.008..0.08.
"""

import ht.conv_external as ce
import ht.conv_free_immersed as cf
import ht.conv_internal as ci
from harness import Case, Dom

NAN = float("nan")
RE_T = Dom(1e4, 1e6, log=True, edges=(1e5, NAN))
PR = Dom(0.5, 1e3, log=True, edges=(0.7, 7.0, NAN))
FD = Dom(0.008, 0.08, edges=(0.02,))
ED = Dom(1e-6, 0.05, log=True, edges=(0.0,))
RE_X = Dom(1.0, 1e6, log=True, edges=(4.0, 40.0, 4e3, 4e4, 2e5, NAN))     # across cylinders
GR = Dom(1e2, 1e12, log=True, edges=(1e9, NAN))
L_M = Dom(0.1, 10.0)
D_M = Dom(0.005, 0.5)
BOOL = Dom(0, 1, integer=True)       # the keyword flags, per example


def _case(module, f, *args):
    return Case(f"ht.{module}.{f.__name__}", f, args)


INTERNAL_RE_PR = [ci.turbulent_Dittus_Boelter, ci.turbulent_Sieder_Tate, ci.turbulent_Colburn,
                  ci.turbulent_Drexel_McAdams, ci.turbulent_ESDU,
                  ci.turbulent_Gnielinski_smooth_1, ci.turbulent_Gnielinski_smooth_2]
INTERNAL_RE_PR_FD = [ci.turbulent_Gnielinski, ci.turbulent_Petukhov_Kirillov_Popov,
                     ci.turbulent_von_Karman, ci.turbulent_Prandtl, ci.turbulent_Friend_Metzner,
                     ci.turbulent_Webb, ci.turbulent_Sandall, ci.turbulent_Gowen_Smith,
                     ci.turbulent_Kawase_Ulbrecht, ci.turbulent_Kawase_De,
                     ci.turbulent_Martinelli, ci.turbulent_Churchill_Zajic]
EXTERNAL = [ce.Nu_cylinder_Zukauskas, ce.Nu_cylinder_Churchill_Bernstein,
            ce.Nu_cylinder_Sanitjai_Goldstein, ce.Nu_cylinder_Fand, ce.Nu_cylinder_McAdams,
            ce.Nu_cylinder_Whitaker, ce.Nu_cylinder_Perkins_Leppert_1962,
            ce.Nu_cylinder_Perkins_Leppert_1964, ce.Nu_horizontal_plate_laminar_Baehr,
            ce.Nu_horizontal_plate_laminar_Churchill_Ozoe,
            ce.Nu_horizontal_plate_turbulent_Schlichting,
            ce.Nu_horizontal_plate_turbulent_Kreith]
FREE = [cf.Nu_vertical_plate_Churchill, cf.Nu_sphere_Churchill,
        cf.Nu_vertical_cylinder_Griffiths_Davis_Morgan,
        cf.Nu_vertical_cylinder_Jakob_Linke_Morgan, cf.Nu_vertical_cylinder_Carne_Morgan,
        cf.Nu_vertical_cylinder_Eigenson_Morgan, cf.Nu_vertical_cylinder_Touloukian_Morgan,
        cf.Nu_vertical_cylinder_McAdams_Weiss_Saunders, cf.Nu_vertical_cylinder_Kreith_Eckert,
        cf.Nu_vertical_cylinder_Hanesian_Kalish_Morgan, cf.Nu_horizontal_cylinder_Churchill_Chu,
        cf.Nu_horizontal_cylinder_Kuehn_Goldstein, cf.Nu_horizontal_cylinder_Morgan,
        cf.Nu_horizontal_plate_McAdams, cf.Nu_horizontal_plate_VDI,
        cf.Nu_horizontal_plate_Rohsenow, cf.Nu_coil_Xin_Ebadian]

CASES = [
    *[_case("conv_internal", f, RE_T, PR) for f in INTERNAL_RE_PR],
    *[_case("conv_internal", f, RE_T, PR, FD) for f in INTERNAL_RE_PR_FD],
    _case("conv_internal", ci.turbulent_Bhatti_Shah, RE_T, PR, FD, ED),
    _case("conv_internal", ci.turbulent_Dipprey_Sabersky, RE_T, PR, FD, ED),
    _case("conv_internal", ci.turbulent_entry_Hausen, RE_T, PR, D_M, L_M),
    _case("conv_internal", ci.laminar_entry_Seider_Tate, Dom(10.0, 2000.0, log=True), PR,
          L_M, D_M),
    _case("conv_internal", ci.laminar_entry_thermal_Hausen, Dom(10.0, 2000.0, log=True), PR,
          L_M, D_M),
    _case("conv_internal", ci.laminar_entry_Baehr_Stephan, Dom(10.0, 2000.0, log=True), PR,
          L_M, D_M),
    _case("conv_internal", ci.Nu_laminar_rectangular_Shan_London,
          Dom(0.0, 1.0, edges=(0.0, 0.25, 1.0))),
    _case("conv_internal", ci.helical_turbulent_Nu_Mori_Nakayama, RE_T, PR, D_M, L_M),
    _case("conv_internal", ci.helical_turbulent_Nu_Schmidt, RE_T, PR, D_M, L_M),
    _case("conv_internal", ci.helical_turbulent_Nu_Xin_Ebadian, RE_T, PR, D_M, L_M),
    _case("conv_internal", ci.Morimoto_Hotta, RE_T, PR, D_M, L_M),
    *[_case("conv_external", f, RE_X, PR) for f in EXTERNAL],
    *[_case("conv_free_immersed", f, PR, GR) for f in FREE],
    _case("conv_free_immersed", cf.Nu_vertical_cylinder_Popiel_Churchill, PR, GR, L_M, D_M),
    _case("conv_free_immersed", cf.Nu_vertical_cylinder_Al_Arabi_Khamis, PR, GR, L_M, D_M),
    _case("conv_internal", ci.turbulent_Dittus_Boelter, RE_T, PR, BOOL, BOOL),
]
CASES[-1].name += "(heating, revised per example)"
