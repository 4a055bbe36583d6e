"""Real scalar functions of mibian (Black-Scholes, Garman-Kohlhagen and Merton option
prices and Greeks), unchanged, with the domains a user passes.

Source: yassinemaaroufi/MibianLib (PyPI ``mibian==0.1.3``), GPLv3, Copyright (C) 2011
Yassine Maaroufi. The classes are imported from the installed package, not copied: their
source is what ``vectorize`` reads. A user builds ``BS([underlying, strike, rate %, days],
volatility=v %)`` and reads a result attribute (``.callPrice``, ``.putDelta``, ``.vega``), as
the cases do: ``__init__`` converts the list's entries with ``float``, sets fourteen
attributes to None through ``self.__dict__[name]`` in a ``for`` loop over a list of names,
then (under ``if volatility:``) computes ``d1``/``d2`` and unpacks the ``[call, put]`` lists
that its methods return (``[self.callPrice, self.putPrice] = self._price()``), each method
branching on a zero volatility or time and raising ``ZeroDivisionError`` for a zero strike;
``scipy.stats.norm.cdf``/``pdf`` give the normal distribution.
Domains from the docstrings: prices 1..1000, strikes within a factor 2, rates 0..15 %,
domestic/foreign rates 0..10 %, 1..1000 days, volatilities 1..200 %.
"""

import mibian
from harness import Case, Dom

U = Dom(1.0, 1000.0, log=True, edges=(100.0,))
K = Dom(50.0, 200.0, edges=(100.0,))
RATE = Dom(0.0, 15.0, edges=(0.0, 5.0))
DAYS = Dom(1.0, 1000.0, log=True, edges=(30.0, 365.0))
VOL = Dom(1.0, 200.0, log=True, edges=(20.0,))
BAD_K = Dom(-10.0, 200.0, edges=(0.0,))


def bs_call_price(u, k, r, days, vol):
    return mibian.BS([u, k, r, days], volatility=vol).callPrice


def bs_put_price(u, k, r, days, vol):
    return mibian.BS([u, k, r, days], volatility=vol).putPrice


def bs_call_delta(u, k, r, days, vol):
    return mibian.BS([u, k, r, days], volatility=vol).callDelta


def bs_vega(u, k, r, days, vol):
    return mibian.BS([u, k, r, days], volatility=vol).vega


def bs_gamma(u, k, r, days, vol):
    return mibian.BS([u, k, r, days], volatility=vol).gamma


def bs_call_theta(u, k, r, days, vol):
    return mibian.BS([u, k, r, days], volatility=vol).callTheta


def bs_put_rho(u, k, r, days, vol):
    return mibian.BS([u, k, r, days], volatility=vol).putRho


def bs_call_price_fast(u, k, r, days, vol):
    return mibian.BS([u, k, r, days], volatility=vol, performance=True).callPrice


def gk_call_price(u, k, rd, rf, days, vol):
    return mibian.GK([u, k, rd, rf, days], volatility=vol).callPrice


def gk_put_delta(u, k, rd, rf, days, vol):
    return mibian.GK([u, k, rd, rf, days], volatility=vol).putDelta


def me_call_price(u, k, r, q, days, vol):
    return mibian.Me([u, k, r, q, days], volatility=vol).callPrice


def me_put_price(u, k, r, q, days, vol):
    return mibian.Me([u, k, r, q, days], volatility=vol).putPrice


CASES = [
    Case("mibian.BS.callPrice", bs_call_price, (U, K, RATE, DAYS, VOL)),
    Case("mibian.BS.putPrice", bs_put_price, (U, K, RATE, DAYS, VOL)),
    Case("mibian.BS.callDelta", bs_call_delta, (U, K, RATE, DAYS, VOL)),
    Case("mibian.BS.vega", bs_vega, (U, K, RATE, DAYS, VOL)),
    Case("mibian.BS.gamma", bs_gamma, (U, K, RATE, DAYS, VOL)),
    Case("mibian.BS.callTheta", bs_call_theta, (U, K, RATE, DAYS, VOL)),
    Case("mibian.BS.putRho", bs_put_rho, (U, K, RATE, DAYS, VOL)),
    Case("mibian.BS.callPrice[performance]", bs_call_price_fast, (U, K, RATE, DAYS, VOL)),
    Case("mibian.BS.callPrice[bad]", bs_call_price, (U, BAD_K, RATE, DAYS, VOL)),
    Case("mibian.GK.callPrice", gk_call_price, (U, K, RATE, RATE, DAYS, VOL)),
    Case("mibian.GK.putDelta", gk_put_delta, (U, K, RATE, RATE, DAYS, VOL)),
    Case("mibian.Me.callPrice", me_call_price, (U, K, RATE, RATE, DAYS, VOL)),
    Case("mibian.Me.putPrice", me_put_price, (U, K, RATE, RATE, DAYS, VOL)),
]
