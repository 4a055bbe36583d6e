"""Real scalar functions of pyerf (pure-Python ports of the Cephes error function, its
complement and the inverse normal distribution), unchanged, with the domains a user passes.

Source: dougthor42/PyErf, pyerf/pyerf.py (PyPI ``pyerf==1.0.1``), GPL-3.0 License,
Copyright (c) 2016 Douglas Thor. The functions are imported from the installed package, not
copied: their source is what ``vectorize`` reads (coefficient lists built in the function,
several per function, chosen by ``if`` on the argument; ``_polevl``, a ``for`` over the list
with a ``try``/``except OverflowError: pass`` around ``coef * x**power``; ``_p1evl``, which
passes ``[1] + coefs`` on; early int returns ``0``, ``1``, ``-1``, ``2`` beside float
results; ``erfinv``'s ``ValueError`` where ``abs(z) > 1`` and its ``inf`` returns; module
constants ``MAXVAL``, ``EXP_NEG2``, ``ROOT_2PI``).
Domains from the docstrings: ``erfinv`` takes [-1, 1], ``_ndtri`` a probability in (0, 1),
``_erf``/``_erfc`` any real (with the branch edges 0, +-1, +-8 and MAXVAL = 1e50); the
polynomial helpers a point in [-2, 2] and the Cephes coefficient tables of the module.
"""

import pyerf.pyerf as pe
from harness import Case, Dom

NAN = float("nan")

X = Dom(-4.0, 4.0, edges=(0.0, -0.0, 1.0, -1.0, 8.0, -8.0, 1e50, -1e50, 0.5))
X_SMALL = Dom(-1.0, 1.0, edges=(0.0, -0.0, 1.0, -1.0))
Z = Dom(-1.0, 1.0, edges=(0.0, 1.0, -1.0, 0.5, -0.5, 0.999999999))
Z_ANY = Dom(-1.5, 1.5, edges=(0.0, 1.0, -1.0, 1.2, NAN))
Y = Dom(1e-12, 1.0 - 1e-12, edges=(0.5, 0.135, 0.865, 1e-20, 1e-300))
T = Dom(-2.0, 2.0, edges=(0.0, 1.0, -1.0))
# (a Cephes table of the module: `_erfc`'s P, as a plain list of floats)
COEFS = [2.46196981473530512524E-10, 5.64189564831068821977E-1, 7.46321056442269912687E0,
         4.86371970985681366614E1, 1.96520832956077098242E2]
INT_COEFS = [1, -3, 2]


def _case(f, *args, name=""):
    return Case(f"pyerf.{name or f.__name__}", f, args)


CASES = [
    _case(pe._erf, X),
    _case(pe._erf, X_SMALL, name="_erf_small"),
    _case(pe._erfc, X),
    _case(pe._ndtri, Y),
    _case(pe.erfinv, Z),
    _case(pe.erfinv, Z_ANY, name="erfinv_outside"),
    _case(pe._polevl, T, COEFS, 4),
    _case(pe._polevl, T, INT_COEFS, 2, name="_polevl_ints"),
    _case(pe._p1evl, T, COEFS, 5),
]
