"""Real scalar functions of PsychroLib, unchanged, with the domains a user passes (SI units).

Source: psychrometrics/psychrolib, src/python/psychrolib.py (PyPI ``psychrolib==2.5.0``),
MIT License, Copyright (c) 2018-2020 The PsychroLib Contributors. The functions are imported
from the installed package, not copied: their source is what ``vectorize`` reads.
Domains from the docstrings: temperatures in °C within [-100, 200], relative humidity in
[0, 1], pressures in Pa, humidity ratios in kg_H2O/kg_Air.
"""

import psychrolib as p
from harness import Case, Dom

p.SetUnitSystem(p.SI)

NAN, INF = float("nan"), float("inf")
T = Dom(-60.0, 90.0, edges=(0.0, -100.0, 200.0, NAN))         # dry bulb, °C
T_WARM = Dom(10.0, 45.0, edges=(0.01, 25.0))
TDEW = Dom(-50.0, 9.0, edges=(0.0, NAN))                       # below T_WARM
RH = Dom(0.0, 1.0, edges=(0.0, 1.0, 1.2, -0.1, NAN))            # outside [0, 1]: ValueError
P_ATM = Dom(60_000.0, 110_000.0, edges=(101_325.0,))
W = Dom(0.0, 0.03, edges=(0.0, 1e-7, -0.001, NAN))              # humidity ratio
VP = Dom(0.0, 6000.0, edges=(0.0, -1.0, NAN))
ALT = Dom(-500.0, 11_000.0, edges=(0.0, NAN))
ENTH = Dom(-40_000.0, 150_000.0, edges=(0.0, NAN))
SPEC = Dom(0.0, 0.03, edges=(0.0, 1.0, -0.01, NAN))
VOL = Dom(0.7, 1.1)
RTOL_ITER = 1e-6
ITER_REASON = ("an iterative solver stops at the first iterate within PSYCHROLIB_TOLERANCE; a "
               "last-bit difference between math.exp/log and NumPy's can take one step more")


def _case(f, *args, rtol=1e-12, reason=""):
    return Case("psychrolib." + f.__name__, f, args, rtol=rtol, rtol_reason=reason)


CASES = [
    _case(p.GetTKelvinFromTCelsius, T),
    _case(p.GetTCelsiusFromTKelvin, Dom(0.0, 500.0, edges=(0.0, NAN, INF))),
    _case(p.GetTRankineFromTFahrenheit, Dom(-150.0, 400.0, edges=(0.0, NAN))),
    _case(p.GetTFahrenheitFromTRankine, Dom(0.0, 900.0, edges=(0.0, NAN))),
    _case(p.GetSatVapPres, T),
    _case(p.GetSatHumRatio, T_WARM, P_ATM),
    _case(p.GetSatAirEnthalpy, T_WARM, P_ATM),
    _case(p.GetVapPresFromRelHum, T_WARM, RH),
    _case(p.GetRelHumFromVapPres, T_WARM, VP),
    _case(p.GetVapPresFromTDewPoint, TDEW),
    _case(p.GetRelHumFromTDewPoint, T_WARM, TDEW),
    _case(p.GetTDewPointFromVapPres, T_WARM, Dom(1.0, 4000.0, edges=(0.0, NAN)),
          rtol=RTOL_ITER, reason=ITER_REASON),
    _case(p.GetTDewPointFromRelHum, T_WARM, Dom(0.05, 1.0, edges=(1.0, 1.3, -0.1)),
          rtol=RTOL_ITER, reason=ITER_REASON),
    _case(p.GetHumRatioFromVapPres, VP, P_ATM),
    _case(p.GetVapPresFromHumRatio, W, P_ATM),
    _case(p.GetSpecificHumFromHumRatio, W),
    _case(p.GetHumRatioFromSpecificHum, SPEC),
    _case(p.GetHumRatioFromRelHum, T_WARM, RH, P_ATM),
    _case(p.GetRelHumFromHumRatio, T_WARM, W, P_ATM),
    _case(p.GetHumRatioFromTDewPoint, TDEW, P_ATM),
    _case(p.GetTDewPointFromHumRatio, T_WARM, Dom(0.0005, 0.008, edges=(-0.001,)), P_ATM,
          rtol=RTOL_ITER, reason=ITER_REASON),
    _case(p.GetHumRatioFromTWetBulb, T_WARM, Dom(-10.0, 10.0, edges=(0.0, 60.0)), P_ATM),
    _case(p.GetTWetBulbFromHumRatio, T_WARM, Dom(0.0005, 0.008, edges=(-0.001, 1e-7)), P_ATM,
          rtol=RTOL_ITER, reason=ITER_REASON),
    _case(p.GetTWetBulbFromRelHum, T_WARM, Dom(0.05, 1.0, edges=(1.0, -0.1)), P_ATM,
          rtol=RTOL_ITER, reason=ITER_REASON),
    _case(p.GetRelHumFromTWetBulb, T_WARM, Dom(-10.0, 10.0, edges=(0.0, 60.0)), P_ATM,
          rtol=RTOL_ITER, reason=ITER_REASON),
    _case(p.GetTWetBulbFromTDewPoint, T_WARM, TDEW, P_ATM, rtol=RTOL_ITER, reason=ITER_REASON),
    _case(p.GetTDewPointFromTWetBulb, T_WARM, Dom(-10.0, 10.0, edges=(0.0, 60.0)), P_ATM,
          rtol=RTOL_ITER, reason=ITER_REASON),
    _case(p.GetDryAirEnthalpy, T),
    _case(p.GetDryAirDensity, T, P_ATM),
    _case(p.GetDryAirVolume, T, P_ATM),
    _case(p.GetTDryBulbFromEnthalpyAndHumRatio, ENTH, W),
    _case(p.GetHumRatioFromEnthalpyAndTDryBulb, ENTH, T),
    _case(p.GetVaporPressureDeficit, T_WARM, W, P_ATM),
    _case(p.GetDegreeOfSaturation, T_WARM, W, P_ATM),
    _case(p.GetMoistAirEnthalpy, T, W),
    _case(p.GetMoistAirVolume, T, W, P_ATM),
    _case(p.GetTDryBulbFromMoistAirVolumeAndHumRatio, VOL, W, P_ATM),
    _case(p.GetMoistAirDensity, T, W, P_ATM),
    _case(p.GetStandardAtmPressure, ALT),
    _case(p.GetStandardAtmTemperature, ALT),
    _case(p.GetSeaLevelPressure, P_ATM, ALT, T),
    _case(p.GetStationPressure, P_ATM, ALT, T),
    _case(p.CalcPsychrometricsFromTWetBulb, T_WARM, Dom(-10.0, 10.0, edges=(60.0,)), P_ATM,
          rtol=RTOL_ITER, reason=ITER_REASON),
    _case(p.CalcPsychrometricsFromTDewPoint, T_WARM, TDEW, P_ATM,
          rtol=RTOL_ITER, reason=ITER_REASON),
    _case(p.CalcPsychrometricsFromRelHum, T_WARM, Dom(0.05, 1.0, edges=(1.0, -0.1)), P_ATM,
          rtol=RTOL_ITER, reason=ITER_REASON),
]
