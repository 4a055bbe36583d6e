"""Real scalar functions of trueskill (the TrueSkill rating system: its pure-Python normal
distribution backend and the "V"/"W" functions of a match's truncated Gaussian), unchanged,
with the domains a user passes.

Source: sublee/trueskill, trueskill/__init__.py and trueskill/backends.py (PyPI
``trueskill==0.4.5``), BSD License, Copyright (c) 2012-2016 Heungsub Lee. The functions are
imported from the installed package, not copied: their source is what ``vectorize`` reads
(``erfc``'s nested Horner polynomial and ``2. - r if x < 0 else r``; ``ppf``, a closure made
by ``_gen_ppf`` over ``erfcinv``, itself a closure of ``_gen_erfcinv`` over ``erfc`` and the
``math`` module passed as a default argument, with early float returns and two Newton steps
in a ``for`` loop; methods of a ``TrueSkill`` environment that call ``self.cdf`` and
``self.pdf``, plain functions stored on the instance, divide under ``if denom else``,
multiply by ``(-1 if diff < 0 else +1)``, call ``self.v_win``, and raise the
``FloatingPointError`` a helper builds from ``env.backend`` where ``0 < w < 1`` fails;
``calc_draw_probability``/``calc_draw_margin``, whose ``env=None`` default is the global
environment, reached through ``global_env()``).
Domains from the docstrings and the rating system's scales: the mean skill 25, its sigma
25/3, beta 25/6; performance differences in about [-50, 50], draw margins in [0, 5], draw
probabilities in [0, 1), team sizes 1..8; ``ppf``/``erfcinv`` take probabilities in (0, 1)
and (0, 2), with the edges where the branches switch (0, 1, 2, and far tails where ``cdf``
underflows and ``w_win`` raises).
"""

import trueskill
from harness import Case, Dom
from trueskill import backends

NAN = float("nan")

X = Dom(-10.0, 10.0, edges=(0.0, -0.0, 1.0, -1.0, 40.0, -40.0))
MU = Dom(-50.0, 50.0, edges=(0.0, 25.0))
SIGMA = Dom(0.1, 25.0, log=True, edges=(1.0, 8.333333333333334))
PROB = Dom(1e-6, 1.0 - 1e-6, edges=(0.5, 0.1, 0.9))
Y2 = Dom(0.0, 2.0, edges=(0.0, 1.0, 2.0, 1e-12, 1.999999))
DIFF = Dom(-50.0, 50.0, edges=(0.0, -0.0, 0.5, -0.5, 40.0, -40.0))
MARGIN = Dom(0.0, 5.0, edges=(0.0, 0.7404666197049553, 2.0))
DRAW_P = Dom(0.0, 0.99, edges=(0.0, 0.1, 0.5))
SIZE = Dom(1, 8, integer=True, edges=(1, 2))

ENV = trueskill.TrueSkill()     # the default environment, the pure-Python backend
ERFCINV = backends._gen_erfcinv(backends.erfc)      # as `ppf` makes it


# (`erfc` calls `math.exp`, which runs as NumPy's `exp`: the last bit can differ
# (docs/semantics.md), and `2 * cdf(x) - 1` near x = 0, `cdf(a) - cdf(b)` for a close b
# cancel it up to about 1e-11 relative)
CANCELS = "2 * cdf(x) - 1 and cdf(a) - cdf(b) cancel NumPy's exp's last-bit difference"


def _case(f, *args, name="", rtol=None):
    if rtol is None:
        return Case(f"trueskill.{name or f.__name__}", f, args)
    return Case(f"trueskill.{name or f.__name__}", f, args, rtol=rtol, rtol_reason=CANCELS)


CASES = [
    _case(backends.erfc, X),
    _case(backends.cdf, X, MU, SIGMA),
    _case(backends.cdf, X, name="cdf_standard"),
    _case(backends.pdf, X, MU, SIGMA),
    _case(backends.ppf, PROB, MU, SIGMA),
    _case(backends.ppf, PROB, name="ppf_standard"),
    _case(ERFCINV, Y2),
    _case(ENV.v_win, DIFF, MARGIN, name="TrueSkill.v_win"),
    _case(ENV.v_draw, DIFF, MARGIN, name="TrueSkill.v_draw"),
    _case(ENV.w_win, DIFF, MARGIN, name="TrueSkill.w_win"),
    _case(ENV.w_draw, DIFF, MARGIN, name="TrueSkill.w_draw", rtol=1e-9),
    _case(trueskill.calc_draw_probability, MARGIN, SIZE, rtol=1e-9),
    _case(trueskill.calc_draw_margin, DRAW_P, SIZE),
    _case(trueskill.calc_draw_probability, MARGIN, SIZE, ENV,
          name="calc_draw_probability_env", rtol=1e-9),
    _case(trueskill.calc_draw_margin, DRAW_P, SIZE, ENV, name="calc_draw_margin_env"),
]
