"""Real scalar functions of fluids (Chemical Engineering Design Library), unchanged, with the
domains a user passes.

Source: CalebBell/fluids, fluids/friction.py and fluids/drag.py (PyPI ``fluids==1.3.1``),
MIT License, Copyright (c) 2016-2023 Caleb Bell. The functions are imported from the installed
package, not copied: their source is what ``vectorize`` reads.
Domains from the docstrings: Reynolds numbers of pipe flow 1e3..1e8 (laminar below 2300),
relative roughness 0..0.05, particle Reynolds numbers 1e-3..2e5, coil and plate geometries.
"""

import fluids.drag as drag
import fluids.friction as fr
from harness import Case, Dom

NAN, INF = float("nan"), float("inf")
RE = Dom(4e3, 1e8, log=True, edges=(1e5, NAN, INF))
ED = Dom(1e-6, 0.05, log=True, edges=(0.0, 1e-4, NAN))
RE_LAM = Dom(1.0, 2300.0, log=True, edges=(0.0, NAN))
RE_P = Dom(1e-3, 2e5, log=True, edges=(0.01, 1.0, 1e3, NAN))     # particle Reynolds number
DI = Dom(0.005, 0.05)
DC = Dom(0.2, 2.0)
RE_COIL = Dom(100.0, 1e5, log=True, edges=(NAN,))
CHEVRON = Dom(20.0, 70.0, edges=(30.0, 45.0, 60.0))


def _case(module, f, *args):
    return Case(f"fluids.{module}.{f.__name__}", f, args)


ROUGH_PIPE = [
    fr.Moody, fr.Alshul_1952, fr.Wood_1966, fr.Churchill_1973, fr.Eck_1973, fr.Jain_1976,
    fr.Swamee_Jain_1976, fr.Churchill_1977, fr.Chen_1979, fr.Round_1980, fr.Shacham_1980,
    fr.Barr_1981, fr.Zigrang_Sylvester_1, fr.Zigrang_Sylvester_2, fr.Haaland, fr.Serghides_1,
    fr.Serghides_2, fr.Tsal_1989, fr.Manadilli_1997, fr.Romeo_2002, fr.Sonnad_Goudar_2006,
    fr.Rao_Kumar_2007, fr.Buzzelli_2008, fr.Avci_Karagoz_2009, fr.Papaevangelo_2010,
    fr.Brkic_2011_1, fr.Brkic_2011_2, fr.Fang_2011, fr.Clamond, fr.Colebrook,
]
SPHERE_DRAG = [
    drag.Stokes, drag.Barati, drag.Barati_high, drag.Rouse, drag.Engelund_Hansen,
    drag.Clift_Gauvin, drag.Morsi_Alexander, drag.Graf, drag.Flemmer_Banks,
    drag.Khan_Richardson, drag.Swamee_Ojha, drag.Yen, drag.Haider_Levenspiel, drag.Cheng,
    drag.Terfous, drag.Mikhailov_Freire, drag.Clift, drag.Ceylan, drag.Almedeij,
    drag.Morrison, drag.Song_Xu,
]

CASES = [
    *[_case("friction", f, RE, ED) for f in ROUGH_PIPE],
    _case("friction", fr.Blasius, RE),
    _case("friction", fr.Prandtl_von_Karman_Nikuradse, RE),
    _case("friction", fr.von_Karman, ED),
    _case("friction", fr.friction_laminar, RE_LAM),
    _case("friction", fr.ft_Crane, Dom(0.01, 1.0, edges=(0.0254, 0.6))),
    _case("friction", fr.friction_plate_Martin_1999, Dom(100.0, 1e4, log=True), CHEVRON),
    _case("friction", fr.friction_plate_Martin_VDI, Dom(100.0, 1e4, log=True), CHEVRON),
    _case("friction", fr.friction_plate_Kumar, Dom(1.0, 1e4, log=True, edges=(10.0, 100.0)),
          CHEVRON),
    _case("friction", fr.helical_laminar_fd_White, RE_COIL, DI, DC),
    _case("friction", fr.helical_laminar_fd_Mori_Nakayama, RE_COIL, DI, DC),
    _case("friction", fr.helical_laminar_fd_Schmidt, RE_COIL, DI, DC),
    _case("friction", fr.helical_turbulent_fd_Srinivasan, RE_COIL, DI, DC),
    _case("friction", fr.helical_turbulent_fd_Schmidt, RE_COIL, DI, DC),
    _case("friction", fr.helical_turbulent_fd_Mori_Nakayama, RE_COIL, DI, DC),
    _case("friction", fr.helical_transition_Re_Schmidt, DI, DC),
    _case("friction", fr.helical_transition_Re_Ito, DI, DC),
    _case("friction", fr.helical_transition_Re_Srinivasan, DI, DC),
    _case("friction", fr.transmission_factor, Dom(0.008, 0.08, edges=(0.02,))),
    *[_case("drag", f, RE_P) for f in SPHERE_DRAG],
]
