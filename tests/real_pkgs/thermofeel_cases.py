"""Real functions of thermofeel (ECMWF's thermal-comfort indices: UTCI, WBGT, humidex,
apparent temperature, wind chill, PMV...), unchanged, with the domains a user passes.

Source: ecmwf/thermofeel (PyPI ``thermofeel==2.3.0``), Apache License 2.0, (C) Copyright
1996- ECMWF. The functions are imported from the installed package, not copied: their source
is what ``vectorize`` reads. They are written with NumPy calls (``np.exp``, ``np.log``,
``np.power``, ``np.arctan``, ``np.where``, ``np.clip``, ``np.maximum``) and Python operators,
so they also run on one example of Python floats: what a user who wraps them in
``numpy.vectorize`` (a station at a time, a value from a table) does. Python floats mixed
with NumPy results: ``np.exp(x) * 0.01`` is a NumPy float64, ``x ** 1.5`` of a negative
Python float is a complex number, a Python float divided by zero raises. The ones picked
here run on a scalar (the ones that index with a boolean mask do not). Notable shapes:
``calculate_saturation_vapour_pressure`` sums a list of coefficients in a ``for`` loop;
``calculate_utci`` raises a ValueError without a humidity and picks one of two by ``is not
None``; ``calculate_bgt`` computes under ``np.errstate`` and patches calm air with
``np.where``; ``calculate_wbgt_liljegren`` picks a wind scaling by a string.
Domains from the docstrings: temperatures 230..330 K, dew points 220..310 K, relative
humidity 1..100 %, wind speeds 0..30 m/s, radiation 0..1000 W m-2, cos(zenith) 0..1.
"""

from harness import Case, Dom
from thermofeel import helpers as H
from thermofeel import thermofeel as T
from thermofeel.excess_heat import excess_cold_factor, excess_heat_factor

T2 = Dom(230.0, 330.0, edges=(273.15, 300.0, 313.15))
TD = Dom(220.0, 310.0, edges=(273.15, 290.0))
TC = Dom(-40.0, 50.0, edges=(0.0, 20.0, 40.0))
TF = Dom(-40.0, 120.0, edges=(32.0, 80.0))
RH = Dom(1.0, 100.0, edges=(1.0, 100.0, 13.0, 85.0))
VA = Dom(0.0, 30.0, edges=(0.0, 0.5, 3.0))
VA_POS = Dom(0.5, 30.0, edges=(0.5, 3.0))
MRT = Dom(230.0, 360.0, edges=(300.0,))
RAD = Dom(0.0, 1000.0, edges=(0.0, 500.0))
COSSZA = Dom(0.0, 1.0, edges=(0.0, 0.1, 1.0))
HEIGHT = Dom(0.1, 100.0, log=True, edges=(10.0, 1.1))
EHI = Dom(-10.0, 10.0, edges=(0.0, 1.0, -1.0))
WVP = Dom(0.1, 5.0)
PRESSURE = Dom(800.0, 1050.0, edges=(1013.25,))


def utci_td(t2_k, va, mrt, td_k):
    return T.calculate_utci(t2_k, va, mrt, td_k=td_k)


def utci_ehpa(t2_k, va, mrt, ehpa):
    return T.calculate_utci(t2_k, va, mrt, ehPa=ehpa)


def utci_missing(t2_k, va, mrt):
    return T.calculate_utci(t2_k, va, mrt)


def _case(f, *args, name=""):
    mod = f.__module__.rsplit(".", 1)[-1]
    return Case(f"thermofeel.{mod}.{name or f.__name__}", f, args)


CASES = [
    _case(H.celsius_to_kelvin, TC),
    _case(H.kelvin_to_fahrenheit, T2),
    _case(H.fahrenheit_to_kelvin, TF),
    _case(T.calculate_relative_humidity_percent, T2, TD),
    _case(T.calculate_saturation_vapour_pressure, T2),
    _case(T.calculate_nonsaturation_vapour_pressure, T2, RH),
    _case(T.scale_windspeed, VA, HEIGHT),
    _case(T.calculate_dew_point_from_relative_humidity, RH, T2),
    _case(T.calculate_mean_radiant_temperature, RAD, RAD, RAD, RAD, RAD, RAD, COSSZA),
    _case(T.calculate_utci_polynomial, TC, TC, VA, WVP),
    _case(utci_td, T2, VA_POS, MRT, TD),
    _case(utci_ehpa, T2, VA_POS, MRT, Dom(1.0, 50.0)),
    _case(utci_missing, T2, VA_POS, MRT),
    _case(T.calculate_wbgt_simple, T2, RH),
    _case(T.calculate_wbt, T2, RH),
    _case(T.calculate_bgt, T2, MRT, VA),
    _case(T.calculate_wbgt, T2, MRT, VA, TD),
    _case(T.calculate_heat_force, Dom(280.0, 320.0, edges=(287.15, 307.15))),
    _case(T.calculate_mrt_from_bgt, T2, MRT, VA),
    _case(T.calculate_humidex, T2, TD),
    _case(T.calculate_discomfort_index, T2, RH),
    _case(T.calculate_summer_simmer_index, T2, RH),
    _case(T.calculate_normal_effective_temperature, T2, VA, RH),
    _case(T.calculate_relative_strain_index, T2, RH),
    _case(T.calculate_apparent_temperature, T2, VA, RH),
    _case(T.calculate_apparent_temperature_radiation, T2, VA, RH, RAD),
    _case(T.calculate_wind_chill, T2, VA),
    _case(T.calculate_wbgt_liljegren, T2, RH, PRESSURE, VA, RAD, RAD, COSSZA, "brode",
          name="calculate_wbgt_liljegren[brode]"),
    _case(excess_heat_factor, EHI, EHI),
    _case(excess_cold_factor, EHI, EHI, True, name="excess_cold_factor[clip]"),
]
