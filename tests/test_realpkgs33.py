"""Constructs of real packages (tests/real_pkgs: pyXSteam, trueskill) that the engine refused,
each against numpy.vectorize (vectorize) and the per-example loop (vmap).

- a name bound to a coefficient table in each branch of a per-example ``if``, of ints and
  floats mixed (pyXSteam's ``Region2.T2_ps``: ``Ii = [-1.5, ..., -1, ...]`` per subregion),
  each read only in its own branch: one table per branch, read as the list it is;
- a method of an object the same for every example, called on per-example values
  (pyXSteam's ``XSteam.t_ph``: ``self._unit_converter.toSIunit_p(p)``);
- a closure over a parameter named like a module the file imports (trueskill's
  ``_gen_ppf(erfc, math=math)``: ``math.sqrt(2)`` compiles to other bytecode in CPython 3.11).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from vectorize import vectorize, vmap

P = np.array([1.5, 2.0, 3.0, 0.5, 0.25, 4.0])
S = np.array([0.0, 2.0, 0.5, 3.0, 0.75, -1.0])


def _check(f, *args):
    want = np.vectorize(f)(*args)
    got = vectorize(f, fallback="error")(*args)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-13)
    loop = np.stack([f(*[a[i] for a in args]) for i in range(len(args[0]))])
    np.testing.assert_allclose(vmap(f)(*args), loop, rtol=1e-13)


def tables_per_branch(p, s):
    if s < 1:
        sub = 1
    else:
        sub = 2
    if sub == 1:
        Ii = [1, 2.5, -1]
        ni = [0.5, -2, 3.25]
        t = 0
        for i in range(0, 3):
            t = t + ni[i] * p ** Ii[i]
    else:
        Ii = [3, 4.5]
        ni = [1, -0.5]
        t = 0
        for i in range(0, 2):
            t = t + ni[i] * p ** Ii[i]
    return t


def test_tables_of_ints_and_floats_per_branch():
    _check(tables_per_branch, P, S)


def table_read_after_the_if(p, s):
    if s < 1:
        c = [1, 2.5]
    else:
        c = [3.5, 4, 5]
    return c[0] * p + c[1]


def test_a_table_read_after_its_branches_is_still_refused():
    # (both bindings reach the read: one padded array of them would hold 1 as 1.0, 4 as 4.0)
    from vectorize.errors import VectorizeError
    with pytest.raises(VectorizeError, match="holds"):
        vectorize(table_read_after_the_if, fallback="error")(P, S)


class Converter:
    BAR = 1
    PSI = 2

    def __init__(self, unit):
        self._unit = unit

    def to_si(self, x):
        if self._unit is self.BAR:
            return float(x / 10)
        elif self._unit is self.PSI:
            return float(x * 0.00689475729)
        return float(x)


class Steam:
    def __init__(self, unit):
        self._conv = Converter(unit)
        self.offset = 273.15

    def t_of(self, p, h):
        p = self._conv.to_si(p)
        if h > 2.0:
            return self.scaled(p, h) + self.offset
        return p - h

    def scaled(self, p, h):
        return p * h ** 0.5


CONV = Converter(Converter.PSI)


def through_a_global(p):
    return CONV.to_si(p) * 2 + 1


@pytest.mark.parametrize("unit", [Converter.BAR, Converter.PSI, 0])
def test_method_of_an_object_of_the_bound_method(unit):
    _check(Steam(unit).t_of, P, S * 2)


def test_method_of_a_global_object():
    _check(through_a_global, P)


def make_scaled(erfc, math=math):
    def scaled(x, mu=0, sigma=1):
        return mu - sigma * math.sqrt(2) * erfc(2 * x)
    return scaled


def test_closure_over_a_parameter_named_like_an_imported_module():
    f = make_scaled(lambda y: y * y - 1.0)
    _check(f, S)


def test_method_of_an_object_changed_after_the_first_call():
    steam = Steam(Converter.BAR)
    f = vectorize(steam.t_of, fallback="error")
    np.testing.assert_allclose(f(P, S * 2), np.vectorize(steam.t_of)(P, S * 2), rtol=1e-13)
    steam._conv._unit, steam.offset = Converter.PSI, 0.0
    np.testing.assert_allclose(f(P, S * 2), np.vectorize(steam.t_of)(P, S * 2), rtol=1e-13)


class Counter:
    def __init__(self):
        self.n = 0

    def count(self, x):
        self.n = self.n + 1
        return x * 2


COUNTER = Counter()


def counts(x):
    return COUNTER.count(x) + 1


def test_method_that_assigns_into_its_object_is_refused():
    # (per example the object's count grows by one: the batch would add one once)
    from vectorize.errors import VectorizeError
    with pytest.raises(VectorizeError, match=r"test_realpkgs33.py:\d+:\d+: assigning into"):
        vectorize(counts, fallback="error")(P)
    with pytest.raises(VectorizeError, match="assigning into"):
        vmap(counts)(P)
    assert COUNTER.n == 0


def polevl(x, coefs):
    ans = 0
    power = len(coefs) - 1
    for coef in coefs:
        try:
            ans += coef * x**power
        except OverflowError:
            pass
        power -= 1
    return ans


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_vmap_power_of_a_float_parameter_in_a_try(dtype):
    # (pyerf's `_polevl`: a NumPy float to any power warns, never raises: no handler runs)
    x = np.array([0.5, -2.0, 3.0, 1e30, 0.0], dtype=dtype)
    coefs = [2.5, -1.0, 0.25, 3.0]
    with np.errstate(all="ignore"):
        loop = np.stack([polevl(v, coefs) for v in x])
        got = vmap(polevl, in_axes=(0, None))(x, coefs)
    assert got.dtype == loop.dtype
    np.testing.assert_allclose(got, loop, rtol=1e-6 if dtype is np.float32 else 1e-13)


def test_vmap_power_of_an_int_parameter_in_a_try_stays_refused():
    # (a NumPy int to a negative power raises ValueError: which lanes do is not told here)
    from vectorize.errors import VectorizeError
    with pytest.raises(VectorizeError, match="inside a `try` under `vmap`"):
        vmap(polevl, in_axes=(0, None))(np.array([1, 2, 3]), [1.0, 2.0])


def polevl_of_a_root(y):
    # (pyerf's `_ndtri`: `math.sqrt` of a NumPy value is a Python float, whose power can
    # raise OverflowError; the counter `power = len(coefs) - 1; power -= 1` a Python int)
    z = math.sqrt(y)
    return polevl(z, [2.5, -1.0, 0.25, 3.0]) + polevl(1.0 / z, [1e300, 1.0, 2.0, 3.0, 4.0])


def test_vmap_power_of_a_python_float_in_a_helper_try():
    x = np.array([0.25, 4.0, 9.0, 1e-250, 1e200])
    with np.errstate(all="ignore"):
        loop = np.stack([polevl_of_a_root(v) for v in x])
        got = vmap(polevl_of_a_root)(x)
    assert got.dtype == loop.dtype
    np.testing.assert_allclose(got, loop, rtol=1e-13)


def p1evl(x, coefs):
    # (pyerf's `_p1evl`: the helper is passed a list display concatenated with an argument)
    return polevl(x, [1] + coefs)


def test_vmap_list_display_concatenated_with_a_shared_list():
    x = np.array([0.5, -2.0, 3.0])
    coefs = [2.5, -1.0, 0.25]
    loop = np.stack([p1evl(v, coefs) for v in x])
    got = vmap(p1evl, in_axes=(0, None))(x, coefs)
    assert got.dtype == loop.dtype
    np.testing.assert_allclose(got, loop, rtol=1e-13)
    want = np.vectorize(p1evl, excluded={1})(x, coefs)
    np.testing.assert_allclose(vectorize(p1evl, excluded={1})(x, coefs), want, rtol=1e-13)
