"""Real scalar functions of blackscholes (Black-Scholes-Merton, Black-76 and binary option
prices and Greeks, and option structures built from them), unchanged, with the domains a user
passes.

Source: CarloLepelaars/blackscholes (PyPI ``blackscholes==0.2.2``), MIT License, Copyright (c)
2023 Carlo Lepelaars. The classes are imported from the installed package, not copied: their
source is what ``vectorize`` reads. A user builds an option from scalars and calls one of its
methods (``BlackScholesCall(S, K, T, r, sigma, q).delta()``), as the cases do through one
closure per (class, method): ``__init__`` checks its parameters with ``assert`` and an
f-string message (``AssertionError`` where S, K, T or sigma is not positive; Black-76 in a
``for`` loop over name/value pairs), the Greeks read ``_d1``/``_d2`` properties and call
``erf``-based ``_cdf``/``_pdf`` static methods of a mixin; the structures (straddle,
strangle, butterfly, spreads) hold calls and puts built in their ``__init__`` and combine
them in ``_calc_attr`` through ``getattr(self.call1, attribute_name)()``.
Domains from the docstrings: prices 1..1000, strikes within a factor 2 of the price, times
0.01..5 years, rates -0.02..0.15, volatilities 0.01..2, dividend yields 0..0.1; edges that
break the asserts (0) only in the ``[bad]`` cases.
"""

import blackscholes as bs
from harness import Case, Dom

S = Dom(1.0, 1000.0, log=True, edges=(100.0,))
K = Dom(50.0, 200.0, edges=(100.0,))
T = Dom(0.01, 5.0, log=True, edges=(1.0,))
R = Dom(-0.02, 0.15, edges=(0.0,))
SIGMA = Dom(0.01, 2.0, log=True, edges=(0.2,))
Q = Dom(0.0, 0.1, edges=(0.0,))
BAD_S = Dom(-10.0, 200.0, edges=(0.0, -0.0))
BAD_T = Dom(-1.0, 2.0, edges=(0.0,))


def _method(cls, name):
    """The user's call ``cls(...).name()``, with as many parameters as ``cls`` takes."""
    method = getattr(cls, name)
    arity = cls.__init__.__code__.co_argcount - 1

    if arity == 5:
        def greek(S, K, T, r, sigma):
            return method(cls(S, K, T, r, sigma))
    elif arity == 6:
        def greek(S, K, T, r, sigma, q):
            return method(cls(S, K, T, r, sigma, q))
    elif arity == 7:
        def greek(S, K1, K2, T, r, sigma, q):
            return method(cls(S, K1, K2, T, r, sigma, q))
    else:
        def greek(S, K1, K2, K3, T, r, sigma, q):
            return method(cls(S, K1, K2, K3, T, r, sigma, q))
    greek.__name__ = f"{cls.__name__}_{name}"
    return greek


BSM = ("price", "delta", "spot_delta", "dual_delta", "gamma", "dual_gamma", "vega", "theta",
       "epsilon", "rho", "lambda_greek", "vanna", "charm", "vomma", "veta", "phi", "speed",
       "zomma", "color", "ultima", "alpha", "in_the_money")
B76 = ("price", "delta", "gamma", "vega", "theta", "rho", "vanna", "vomma", "alpha")
BINARY = ("price", "forward", "delta", "gamma", "vega", "theta", "rho")
STRUCT = ("price", "delta", "gamma", "vega", "theta", "rho")

CASES = []
for _cls in (bs.BlackScholesCall, bs.BlackScholesPut):
    for _m in BSM:
        CASES.append(Case(f"blackscholes.{_cls.__name__}.{_m}", _method(_cls, _m),
                          (S, K, T, R, SIGMA, Q)))
    CASES.append(Case(f"blackscholes.{_cls.__name__}.price[bad]", _method(_cls, "price"),
                      (BAD_S, K, BAD_T, R, SIGMA, Q)))
for _cls in (bs.Black76Call, bs.Black76Put):
    for _m in B76:
        CASES.append(Case(f"blackscholes.{_cls.__name__}.{_m}", _method(_cls, _m),
                          (S, K, T, R, SIGMA)))
    CASES.append(Case(f"blackscholes.{_cls.__name__}.price[bad]", _method(_cls, "price"),
                      (BAD_S, K, BAD_T, R, SIGMA)))
for _cls in (bs.BinaryCall, bs.BinaryPut):
    for _m in BINARY:
        CASES.append(Case(f"blackscholes.{_cls.__name__}.{_m}", _method(_cls, _m),
                          (S, K, T, R, SIGMA)))
for _cls in (bs.BlackScholesStraddleLong, bs.BlackScholesStraddleShort):
    for _m in STRUCT:
        CASES.append(Case(f"blackscholes.{_cls.__name__}.{_m}", _method(_cls, _m),
                          (S, K, T, R, SIGMA, Q)))
K_LO = Dom(50.0, 100.0, edges=(100.0,))
K_HI = Dom(100.0, 200.0, edges=(100.0,))
for _cls in (bs.BlackScholesStrangleLong, bs.BlackScholesBullSpread,
             bs.BlackScholesBearSpread):
    for _m in ("price", "delta", "vega"):
        CASES.append(Case(f"blackscholes.{_cls.__name__}.{_m}", _method(_cls, _m),
                          (S, K_LO, K_HI, T, R, SIGMA, Q)))
for _m in ("price", "gamma"):
    CASES.append(Case(f"blackscholes.BlackScholesButterflyLong.{_m}",
                      _method(bs.BlackScholesButterflyLong, _m),
                      (S, K_LO, K, K_HI, T, R, SIGMA, Q)))
