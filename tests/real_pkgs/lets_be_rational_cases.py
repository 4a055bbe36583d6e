"""Real scalar functions of py_lets_be_rational (Peter Jäckel's "Let's Be Rational": Black
prices, implied volatility by a rational guess and Householder steps) and of the two helper
packages it ships with, cody_special (W. J. Cody's erf/erfc/erfcx, the normal distribution)
and piecewise_rational (rational cubic interpolation), unchanged, with the domains a user
passes.

Source: vollib/py_lets_be_rational (PyPI ``py_lets_be_rational==1.1.2``,
``cody-special==1.0.0``, ``piecewise-rational==1.0.0``), MIT License, Copyright (c) 2017
Gammon Capital LLC; the algorithms Copyright (c) 2013-2014 Peter Jäckel. The functions are
imported from the installed packages, not copied: their source is what ``vectorize`` reads
(numba compiles them only where PY_LETS_BE_RATIONAL_ENABLE_NUMBA is set: here they are plain
Python). Their shapes: ``while`` loops with early exits, ``if``/``elif`` chains over the
regions of (x, s), module constants, helpers that call helpers, a raising branch.
Domains from the docstrings: forwards and strikes 1..200, volatilities 0..2 (0 exactly: the
intrinsic value), expiries 0..10 years, q = +1 (call) or -1 (put), log-moneyness x = ln(F/K)
in -3..3, normalised volatilities s = sigma * sqrt(T) in 0..5, prices between the intrinsic
value and the forward (outside: the below-intrinsic / above-maximum sentinels).
"""

from importlib import import_module

from harness import Case, Dom

# (`import cody_special.erf_cody as erf` would give the function: the package's __init__
# binds the name erf_cody to it)
erf = import_module("cody_special.erf_cody")
nd = import_module("cody_special.normaldistribution")
rc = import_module("piecewise_rational.rationalcubic")
lbr = import_module("py_lets_be_rational.lets_be_rational")

NAN, INF = float("nan"), float("inf")
FWD = Dom(1.0, 200.0, edges=(100.0,))
STRIKE = Dom(1.0, 200.0, edges=(100.0, 1e-8))
SIGMA = Dom(0.0, 2.0, edges=(0.0, 0.2, 1e-9))
EXPIRY = Dom(0.0, 10.0, edges=(0.0, 1.0))
PRICE = Dom(0.0, 100.0, edges=(0.0, 1e-12, 5.0, 99.9999))
X = Dom(-3.0, 3.0, edges=(0.0, -0.0, 1e-10, NAN))
S = Dom(0.0, 5.0, edges=(0.0, 1e-8, 0.5, INF))
BETA = Dom(0.0, 1.0, edges=(0.0, 1e-14, 0.5))
Z = Dom(-40.0, 40.0, edges=(0.0, -0.0, 0.46875, 4.0, -4.0, -26.6, 26.6, NAN, INF, -INF))
U = Dom(0.0, 1.0, edges=(0.0, 1.0, 0.5, 1e-300, 0.02425, 0.97575))
RTOL_SOLVER = 1e-9
SOLVER_REASON = ("Householder steps on the normalised price: a last-bit difference between "
                 "math's exp/log/sqrt and NumPy's array kernels moves the converged iterate by "
                 "a few ulps of the price's condition number")
CANCEL_REASON = ("fpp's `(3 s2 (s2 - 8) - 8 x x) Phi / phi` cancels against `8 sqrt(3) s |x|` "
                 "where z = |x| / (sqrt(3) s) is large: NumPy's exp in norm_pdf differs from "
                 "math.exp in the last bit (docs/semantics.md), magnified to 1e-11")


def _case(module, f, *args, rtol=1e-12, reason=""):
    return Case(f"{module}.{f.__name__}", f, args, rtol=rtol, rtol_reason=reason)


L = "py_lets_be_rational.lets_be_rational"
CASES = [
    _case(L, lbr.black, FWD, STRIKE, SIGMA, EXPIRY, 1),
    Case(f"{L}.black[put]", lbr.black, (FWD, STRIKE, SIGMA, EXPIRY, -1)),
    _case(L, lbr.normalised_black, X, S, 1),
    _case(L, lbr.normalised_black_call, X, S),
    _case(L, lbr.normalised_vega, X, S),
    _case(L, lbr._normalised_intrinsic, X, Dom(-1, 1, integer=True)),
    _case(L, lbr._normalised_intrinsic_call, X),
    _case(L, lbr._is_below_horizon, X),
    _case(L, lbr._square, X),
    _case(L, lbr._householder_factor, X, S, BETA),
    _case(L, lbr._compute_f_lower_map_and_first_two_derivatives, Dom(-3.0, -0.01), S,
          rtol=1e-9, reason=CANCEL_REASON),
    _case(L, lbr._compute_f_upper_map_and_first_two_derivatives, Dom(-3.0, -0.01), S),
    _case(L, lbr._inverse_f_lower_map, Dom(-3.0, -0.01), Dom(0.0, 0.3, edges=(0.0,))),
    _case(L, lbr._inverse_f_upper_map, Dom(0.0, 1.0, edges=(0.0, 1.0))),
    _case(L, lbr._asymptotic_expansion_of_normalized_black_call, Dom(-40.0, -10.0),
          Dom(0.0, 0.2)),
    _case(L, lbr._small_t_expansion_of_normalized_black_call, Dom(-0.5, 0.0), Dom(0.0, 0.2)),
    _case(L, lbr._normalised_black_call_using_erfcx, Dom(-10.0, 0.0), Dom(0.0, 5.0)),
    _case(L, lbr._normalized_black_call_using_norm_cdf, Dom(-3.0, 0.0), Dom(0.01, 5.0)),
    _case(L, lbr.implied_volatility_from_a_transformed_rational_guess, PRICE, 100.0, STRIKE,
          Dom(0.01, 10.0, edges=(1.0,)), 1, rtol=RTOL_SOLVER, reason=SOLVER_REASON),
    Case(f"{L}.implied_volatility_from_a_transformed_rational_guess[put]",
         lbr.implied_volatility_from_a_transformed_rational_guess,
         (PRICE, 100.0, STRIKE, Dom(0.01, 10.0), -1), rtol=RTOL_SOLVER,
         rtol_reason=SOLVER_REASON),
    _case(L, lbr.implied_volatility_from_a_transformed_rational_guess_with_limited_iterations,
          PRICE, 100.0, STRIKE, Dom(0.01, 10.0), 1, Dom(0, 3, integer=True),
          rtol=RTOL_SOLVER, reason=SOLVER_REASON),
    _case(L, lbr.normalised_implied_volatility_from_a_transformed_rational_guess, BETA, X, 1,
          rtol=RTOL_SOLVER, reason=SOLVER_REASON),
    _case("cody_special.erf_cody", erf.erf_cody, Z),
    _case("cody_special.erf_cody", erf.erfc_cody, Z),
    _case("cody_special.erf_cody", erf.erfcx_cody, Z),
    _case("cody_special.erf_cody", erf.d_int, Z),
    _case("cody_special.erf_cody", erf.calerf, Z, Dom(0, 2, integer=True)),
    _case("cody_special.normaldistribution", nd.norm_pdf, Z),
    _case("cody_special.normaldistribution", nd.norm_cdf, Z),
    _case("cody_special.normaldistribution", nd.inverse_norm_cdf, U),
    _case("piecewise_rational.rationalcubic", rc.rational_cubic_interpolation,
          Dom(0.0, 1.0), 0.0, 1.0, 0.0, 1.0, Dom(0.0, 2.0), Dom(0.0, 2.0),
          Dom(0.0, 10.0, edges=(0.0, 1e300))),
    _case("piecewise_rational.rationalcubic",
          rc.rational_cubic_control_parameter_to_fit_second_derivative_at_left_side,
          0.0, 1.0, 0.0, 1.0, Dom(0.0, 2.0), Dom(0.0, 2.0), Dom(-5.0, 5.0, edges=(0.0,))),
    _case("piecewise_rational.rationalcubic", rc.minimum_rational_cubic_control_parameter,
          Dom(-1.0, 2.0, edges=(0.0,)), Dom(-1.0, 2.0, edges=(0.0,)),
          Dom(-1.0, 2.0, edges=(0.0,)), True),
    _case("piecewise_rational.rationalcubic",
          rc.convex_rational_cubic_control_parameter_to_fit_second_derivative_at_right_side,
          0.0, 1.0, 0.0, 1.0, Dom(0.0, 2.0), Dom(0.0, 2.0), Dom(-5.0, 5.0, edges=(0.0,)),
          True),
]
