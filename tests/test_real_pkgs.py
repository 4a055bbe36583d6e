"""Real functions of public scientific packages (``tests/real_pkgs``) under ``vectorize`` and
``vmap``, against ``numpy.vectorize`` and the per-example loop.

CI runs a fixed subset (`SUBSET`, one or more functions of each kind: closed-form formulas,
``if`` chains, iterative solvers, helpers that raise, numba-compiled functions, tuple results)
at N = 0, 1, 5 and 1000 and on hypothesis-drawn inputs; ``python tests/real_pkgs/report.py``
runs every function of the corpus (it takes minutes) and prints the counts per package.
Each subset entry says what it gives today, so that a regression to a refusal fails too.
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "real_pkgs"))

pytest.importorskip("psychrolib")     # both in the `test` extra
pytest.importorskip("fluids")
pytest.importorskip("ht")
pytest.importorskip("chemicals")
pytest.importorskip("pvlib")
pytest.importorskip("iapws")
pytest.importorskip("sgp4")
pytest.importorskip("pysolar")
pytest.importorskip("pythermalcomfort")
pytest.importorskip("numpy_financial")
pytest.importorskip("pymap3d")
pytest.importorskip("geographiclib")
pytest.importorskip("jdcal")
pytest.importorskip("utm")
pytest.importorskip("refet")
pytest.importorskip("py_lets_be_rational")
pytest.importorskip("astral")
pytest.importorskip("haversine")
pytest.importorskip("pygeodesy")
pytest.importorskip("convertdate")
pytest.importorskip("psypy")
pytest.importorskip("sunposition")
pytest.importorskip("vincenty")
pytest.importorskip("pymeeus")
pytest.importorskip("meteocalc")
pytest.importorskip("hsluv")
pytest.importorskip("geopy")
pytest.importorskip("pyXSteam")
pytest.importorskip("trueskill")
pytest.importorskip("pyerf")
pytest.importorskip("blackscholes")
pytest.importorskip("suncalc")
pytest.importorskip("mibian")
pytest.importorskip("aerocalc3")
pytest.importorskip("great_circle_calculator")
pytest.importorskip("thermofeel")
pytest.importorskip("pygeomag")
pytest.importorskip("seawater")

from cases import ALL  # noqa: E402
from harness import Dom, check_vectorize, check_vmap, default_draws  # noqa: E402

BY_NAME = {case.name: case for case in ALL}

# name -> (vectorize, vmap) status today
SUBSET = {
    "psychrolib.GetSatVapPres": ("equal", "equal"),
    "psychrolib.GetHumRatioFromRelHum": ("equal", "equal"),
    "psychrolib.GetTDewPointFromVapPres": ("equal", "equal"),
    "psychrolib.GetTWetBulbFromHumRatio": ("equal", "equal"),
    "psychrolib.GetStationPressure": ("equal", "equal"),
    # (PsychroLib's helper returns the int bound -100 on lanes where Newton's step leaves
    # the range: a call where every lane does stacks int64 in the loop; a helper's result
    # keeps the join, float64: docs/semantics.md; the drawn inputs never all do)
    "psychrolib.CalcPsychrometricsFromRelHum": ("equal", "equal"),
    "fluids.friction.Clamond": ("equal", "equal"),
    "fluids.friction.Serghides_2": ("equal", "equal"),
    "fluids.friction.ft_Crane": ("equal", "equal"),
    "fluids.friction.Prandtl_von_Karman_Nikuradse": ("equal", "equal"),
    "fluids.friction.helical_turbulent_fd_Schmidt": ("equal", "equal"),
    "fluids.friction.friction_plate_Kumar": ("equal", "equal"),
    "fluids.drag.Morsi_Alexander": ("equal", "equal"),
    "fluids.drag.Clift": ("equal", "equal"),
    "fluids.drag.Almedeij": ("equal", "equal"),
    "ht.conv_internal.turbulent_Churchill_Zajic": ("equal", "equal"),
    "ht.conv_external.Nu_cylinder_Zukauskas": ("equal", "equal"),
    "ht.conv_free_immersed.Nu_vertical_cylinder_Popiel_Churchill": ("equal", "equal"),
    "chemicals.iapws.iapws97_identify_region_TP": ("equal", "equal"),
    "chemicals.vapor_pressure.Wagner_original": ("equal", "refused"),
    "pvlib.spa.julian_day_dt": ("equal", "equal"),
    "pvlib.spa.heliocentric_longitude": ("equal", "equal"),
    "pvlib.spa.mean_elongation": ("equal", "equal"),
    "pvlib.spa.atmospheric_refraction_correction": ("equal", "equal"),
    "iapws.iapws97._PSat_T": ("equal", "equal"),
    "iapws.iapws97._Backward2_T_Ph": ("equal", "equal"),
    "iapws.iapws97._Bound_TP": ("equal", "equal"),
    "iapws.iapws97._Backward3_v_PT": ("refused", "refused"),
    "iapws._iapws._Viscosity": ("equal", "equal"),
    "iapws._iapws._Melting_Pressure": ("equal", "equal"),
    "sgp4.functions.days2mdhms": ("equal", "equal"),
    "sgp4.functions.days2mdhms[no rounding]": ("equal", "equal"),
    "sgp4.ext.newtonnu": ("equal", "equal"),
    "sgp4.ext.invjday": ("equal", "equal"),
    "pysolar.solar.get_heliocentric_longitude": ("equal", "equal"),
    "pysolar.solar.get_topocentric_azimuth_angle": ("equal", "equal"),
    "pysolar.radiation.get_air_mass_ratio": ("equal", "equal"),
    "pythermalcomfort.environment.transpose_sharp_altitude": ("equal", "equal"),
    "pythermalcomfort.solar_gain._projected_area_factor": ("equal", "equal"),
    "numpy_financial.fv": ("equal", "equal"),
    "pymap3d.ecef.geodetic2ecef": ("equal", "equal"),
    "pymap3d.ecef.ecef2geodetic": ("equal", "equal"),
    # (a `try` around `with warnings.catch_warnings(): warnings.simplefilter("error")`)
    "pymap3d.latitude.geodetic2conformal": ("equal", "equal"),
    "pymap3d.enu.enu2aer": ("equal", "equal"),
    # (`try: n = len(data) except TypeError:` of a row)
    "statistics.fmean": ("equal", "equal"),
    "pymap3d.enu.aer2enu": ("equal", "equal"),
    "pymap3d.ecef.ecef2enu": ("equal", "equal"),
    "geographiclib.Math.AngDiff": ("equal", "equal"),
    "geographiclib.Math.polyval": ("equal", "equal"),
    "geographiclib.Geodesic.WGS84._A3f": ("equal", "equal"),
    "jdcal.gcal2jd": ("equal", "equal"),
    "jdcal.jd2gcal": ("equal", "equal"),
    "utm.conversion.latlon_to_zone_number": ("equal", "equal"),
    "utm.conversion.to_latlon": ("equal", "equal"),
    "utm.conversion.from_latlon": ("equal", "equal"),
    "refet.calcs.air_pressure": ("equal", "equal"),
    "refet.calcs.sat_vapor_pressure": ("equal", "equal"),
    "refet.calcs.fcd_daily": ("equal", "equal"),
    "refet.calcs.fcd_hourly": ("equal", "equal"),
    "py_lets_be_rational.lets_be_rational.normalised_vega": ("equal", "equal"),
    # (`except (ValueError, TypeError) as exc` whose handler raises `from exc`)
    "astral.dms_to_float": ("equal", "equal"),
    "cody_special.erf_cody.calerf": ("equal", "equal"),
    "piecewise_rational.rationalcubic.rational_cubic_interpolation": ("equal", "equal"),
    "astral.sun.eq_of_time": ("equal", "equal"),
    "astral.sun.hour_angle[setting]": ("equal", "equal"),
    "haversine._haversine_kernel": ("equal", "equal"),
    "haversine._normalize": ("equal", "equal"),
    "colorsys.rgb_to_hls": ("equal", "equal"),
    "colorsys.hsv_to_rgb": ("equal", "equal"),
    "pygeodesy.utily.wrap180": ("equal", "equal"),
    # (vmap: `r = -r` where the analysis leaves `r` an int on some lanes, its helper's
    # `h = 0` carried into a loop over constants: a run-time check that no lane's `-r` is
    # -0.0, where an int lane's -0 would be the loop's 0.0; the carry is a float on every
    # lane that runs, so it never fires)
    "pygeodesy.fmath.fatan": ("equal", "equal"),
    "pygeodesy.fmath.euclid": ("equal", "equal"),
    "convertdate.gregorian.from_jd": ("equal", "equal"),
    "convertdate.gregorian.legal_date": ("equal", "equal"),
    "convertdate.hebrew.delay_2": ("equal", "equal"),
    "convertdate.holidays._easter_western": ("equal", "equal"),
    "psypy.psySI.__DBT_RH_W_P": ("equal", "equal"),
    # (np.polyval of per-example coefficient vectors one helper builds from tables of two
    # lengths)
    "sunposition._heliocentric_position": ("equal", "equal"),
    "sunposition._norm_lat_lon": ("equal", "equal"),
    "vincenty.vincenty_inverse": ("equal", "equal"),     # (for/else return None, a try)
    "convertdate.holidays.thanksgiving": ("equal", "equal"),     # (calendar.weekday)
    "pymeeus.Epoch.easter": ("equal", "equal"),     # (isinstance: numpy.vectorize's first call)
    "pymeeus.Angle.reduce_dms": ("equal", "equal"),
    "meteocalc.Temp.convert[f2k]": ("equal", "equal"),
    # (sum of a generator over zip of a module matrix's row and a colour per example)
    "hsluv.rgb_to_xyz": ("equal", "equal"),
    "hsluv._y_to_l": ("equal", "equal"),
    "geopy.units.degrees": ("equal", "equal"),
    "geopy.point._normalize_coordinates": ("equal", "equal"),
    # (methods of the XSteam object that call `self._unit_converter.toSIunit_T(t)`, a method
    # of an object the same for every example, then Region4's staticmethods)
    "pyxsteam.XSteam.psat_t": ("equal", "equal"),
    "pyxsteam.XSteam.st_t": ("equal", "equal"),
    # (a closure of `_gen_ppf(erfc, math=math)` over `erfcinv`, itself a closure with two
    # Newton steps; `math.sqrt` of the closure's `math`)
    "trueskill.ppf": ("equal", "equal"),
    # (`self.cdf`/`self.pdf`, functions stored on the instance; `raise` of the exception a
    # helper builds where `0 < w < 1` fails)
    "trueskill.TrueSkill.w_win": ("equal", "equal"),
    # (NumPy ufuncs under module aliases, `np.maximum`, helpers that call helpers)
    "suncalc.astro_refraction": ("equal", "equal"),
    "suncalc.get_set_j": ("equal", "equal"),
    "suncalc.moon_coords[dist]": ("equal", "equal"),
    # (an `abc.ABC` subclass whose `__init__` calls `super().__init__(S=S, ...)`, which
    # asserts and binds its fields in one tuple assignment; `super().gamma()` in a method;
    # the structures' `getattr(self.call1, attribute_name)()`: the attribute named by a
    # string the same for every example, a record's method bound into a local then called)
    "blackscholes.BlackScholesCall.price[bad]": ("equal", "equal"),
    "blackscholes.BinaryPut.gamma": ("equal", "equal"),
    "blackscholes.BlackScholesStraddleLong.price": ("equal", "equal"),
    "blackscholes.BlackScholesButterflyLong.gamma": ("equal", "equal"),
    "mibian.BS.callPrice": ("refused", "refused"),
    # (helpers of two modules that read a global `P0` each binds otherwise: std_atm's in HG,
    # airspeed's Pa; `try: subsonic except ValueError: bisect the supersonic one`)
    "aerocalc3.airspeed.tas2cas": ("equal", "equal"),
    "aerocalc3.airspeed.dp2cas": ("equal", "equal"),
    "aerocalc3.std_atm.alt2press_ratio": ("equal", "equal"),
    # (`hasattr(obj, "__geo_interface__")` / `isinstance(obj, (tuple, list))` of a point
    # tuple; a ValueError whose message prints the tuple: vmap refuses that, its loop's NumPy
    # scalars print otherwise)
    "great_circle.distance_xy[out of range]": ("equal", "refused"),
    "great_circle.CompassComplex.get_abbr": ("equal", "equal"),
    # (NumPy calls on one example's Python floats: np.errstate, np.where, a coefficient loop)
    "thermofeel.thermofeel.calculate_bgt": ("equal", "equal"),
    "thermofeel.thermofeel.calculate_saturation_vapour_pressure": ("equal", "equal"),
    # (the WMM's writes into lists a classmethod made and into the instance's own)
    "pygeomag.declination": ("refused", "refused"),
    # (`s, t, p = list(map(np.asanyarray, (s, t, p)))`, polynomials over tuples of
    # coefficients, a Runge-Kutta sequence of helper calls)
    "seawater.eos80.dens": ("equal", "equal"),
    "seawater.eos80.ptmp[pr]": ("equal", "equal"),
}


def test_corpus_is_whole():
    assert len(ALL) >= 630 and len(BY_NAME) == len(ALL)
    assert set(SUBSET) <= set(BY_NAME)


@pytest.mark.parametrize("name", sorted(SUBSET))
def test_subset(name):
    case = BY_NAME[name]
    draws = default_draws(case, seed=1)
    for mode, check, expected in (("vectorize", check_vectorize, SUBSET[name][0]),
                                  ("vmap", check_vmap, SUBSET[name][1])):
        status, detail = check(case, draws)
        assert status == expected, f"{mode}: {status}: {detail}"


def _strategy(arg):
    if not isinstance(arg, Dom):
        return st.just(arg)
    floats = st.floats(arg.lo, arg.hi, allow_nan=False)
    return floats | st.sampled_from(arg.edges) if arg.edges else floats


DRAWN = ["psychrolib.GetHumRatioFromRelHum", "psychrolib.GetTDewPointFromVapPres",
         "fluids.drag.Morsi_Alexander", "fluids.friction.Clamond"]


@pytest.mark.parametrize("name", DRAWN)
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_drawn_inputs(name, data):
    case = BY_NAME[name]
    n = data.draw(st.integers(0, 6))
    rows = [[data.draw(_strategy(a)) for a in case.args] for _ in range(n)]
    args = tuple(np.asarray([r[k] for r in rows], dtype=float) if isinstance(a, Dom) else a
                 for k, a in enumerate(case.args))
    assert check_vectorize(case, [args])[0] == SUBSET[name][0]
    assert check_vmap(case, [args])[0] == SUBSET[name][1]


# (the packages added last, drawn fewer times: the suite's time)
DRAWN_FEW = ["colorsys.rgb_to_hsv", "pygeodesy.utily.wrap180"]
SUBSET_DRAWN = {"colorsys.rgb_to_hsv": ("equal", "equal"),
                "pygeodesy.utily.wrap180": ("equal", "equal")}


@pytest.mark.parametrize("name", DRAWN_FEW)
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_drawn_inputs_few(name, data):
    case = BY_NAME[name]
    n = data.draw(st.integers(0, 6))
    rows = [[data.draw(_strategy(a)) for a in case.args] for _ in range(n)]
    args = tuple(np.asarray([r[k] for r in rows], dtype=float) if isinstance(a, Dom) else a
                 for k, a in enumerate(case.args))
    assert check_vectorize(case, [args])[0] == SUBSET_DRAWN[name][0]
    assert check_vmap(case, [args])[0] == SUBSET_DRAWN[name][1]
