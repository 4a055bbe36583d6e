"""Regressions found on real scalar functions of public packages (tests/real_pkgs), each
against the reference (the per-example loop over NumPy scalars for vmap, numpy.vectorize for
vectorize)."""

from __future__ import annotations

import warnings
from math import log, sqrt

import numpy as np
import pytest

from vectorize import vectorize, vmap


def _avci_karagoz(Re, eD):
    # fluids.friction.Avci_Karagoz_2009: a Python float (math.log of a NumPy scalar) to a
    # fractional power, times a literal
    return 6.4*(log(Re) - log(1.0 + 0.01*Re*eD*(1.0+10.0*sqrt(eD))))**-2.4


def _scaled_power(x, y):
    return 2.0 * (log(x) - log(1.0 + y)) ** 0.5 / 3.0


def _loop(f, *cols):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.stack([f(*row) for row in zip(*cols)])


@pytest.mark.parametrize("f, cols", [
    (_avci_karagoz, ([1e5, 1e7, 4e3], [1e-4, 0.05, 0.0])),
    (_scaled_power, ([3.0, 9.0, 1e3], [1.0, 1.5, 0.25])),
])
def test_vmap_python_float_fractional_power_is_real(f, cols):
    # was: complex128 (the power's representative lane, log(1) - log(2) < 0, was Python's
    # complex number, so `6.4 * ...` became a complex product) where every lane is real
    cols = [np.asarray(c) for c in cols]
    ref = _loop(f, *cols)
    got = vmap(f)(*cols)
    assert got.dtype == ref.dtype == np.float64
    np.testing.assert_allclose(got, ref, rtol=1e-14)
    got = vectorize(f)(*cols)
    ref = np.vectorize(f)(*[c.tolist() for c in cols])
    assert got.dtype == ref.dtype
    np.testing.assert_allclose(got, ref, rtol=1e-14)


def test_vmap_python_float_negative_fractional_power_is_the_loops_complex():
    # a lane whose base is negative: the loop's complex number, as the loop gives it
    cols = [np.array([1e5, 1.0]), np.array([1e-4, 1.0])]
    ref = _loop(_avci_karagoz, *cols)
    got = vmap(_avci_karagoz)(*cols)
    assert got.dtype == ref.dtype == np.complex128
    np.testing.assert_allclose(got, ref, rtol=1e-14)


# convertdate.hebrew's shape: `year_days` calls `to_jd(year, 7, 1)`, whose loops over
# `range(7, month)` then never run, so the cycle `to_jd` -> `month_length` -> `year_days`
# never closes for those calls (was refused: "mutual recursion")
_FIRST = 7


def _year_days(year):
    return _to_jd(year + 1, 7, 1) - _to_jd(year, 7, 1)


def _to_jd(year, month, day):
    jd = year * 365 + (year * 7 + 1) % 19 + day
    if month < _FIRST:
        for m in range(1, month):
            jd += _month_length(year, m)
    else:
        for m in range(_FIRST, month):
            jd += _month_length(year, m)
    return jd + 0.5


def _month_length(year, month):
    if month == 2 and _year_days(year) % 10 == 5:
        return 29
    return 30 + month % 2


@pytest.mark.parametrize("f, cols", [
    (_year_days, ([5780, 5781, 5782, -3],)),
    (_to_jd, ([5780, 5781, 5782, 12], [1, 3, 7, 9], [1, 5, 9, 30])),
    (_month_length, ([5780, 5781, 5782, 12], [2, 3, 8, 2])),
])
def test_mutual_recursion_cut_by_a_loop_never_entered(f, cols):
    cols = [np.asarray(c) for c in cols]
    ref = np.vectorize(f)(*[c.tolist() for c in cols])
    got = vectorize(f, fallback="error")(*cols)
    assert got.dtype == ref.dtype
    np.testing.assert_array_equal(got, ref)
    ref = _loop(f, *cols)
    got = vmap(f)(*cols)
    assert got.dtype == ref.dtype
    np.testing.assert_array_equal(got, ref)


def _inner_empty_sometimes(x):
    # `range(i, 2)` is empty on the last pass only: the body is kept
    total = x
    for i in range(3):
        for j in range(i, 2):
            total = total * 2.0 + j
        else:
            total = total - i
    return total


def test_loop_empty_on_some_passes_only_is_kept():
    x = np.array([0.5, -1.0, 3.0])
    ref = np.vectorize(_inner_empty_sometimes)(x.tolist())
    np.testing.assert_array_equal(vectorize(_inner_empty_sometimes, fallback="error")(x), ref)
    np.testing.assert_array_equal(vmap(_inner_empty_sometimes)(x),
                                  _loop(_inner_empty_sometimes, x))


@pytest.mark.parametrize("name", ["year_days"])
def test_convertdate_hebrew(name):
    hebrew = pytest.importorskip("convertdate.hebrew")
    f = getattr(hebrew, name)
    years = np.array([5780, 5781, 5782, 5790, 6000])
    months = np.array([2, 3, 8, 13, 7])
    cols = [years, months, np.array([1, 5, 9, 29, 3])][:f.__code__.co_argcount]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        ref = np.vectorize(f)(*[c.tolist() for c in cols])
        got = vectorize(f, fallback="error")(*cols)
        np.testing.assert_array_equal(got, ref)
        assert got.dtype == ref.dtype
        np.testing.assert_array_equal(vmap(f)(*cols), _loop(f, *cols))


# hsluv's `_dot_product(a, b)`: `sum(i * j for i, j in zip(a, b))` of a row of a module
# matrix and a colour (a per-example vector, or a tuple of per-example numbers): was refused
# ("`zip` has no batching rule")
_M = [[3.240969941904521, -1.537383177570093, -0.498610760293],
      [-0.96924363628087, 1.87596750150772, 0.041555057407175]]
_INTS = [2, -3, 5]


def _dot(a, b):
    return sum(i * j for i, j in zip(a, b))


def _dot_row(t):
    return _dot(_M[0], t)


def _dot_tuple(x, y, z):
    t = (x, y, z)
    return _dot(_M[1], t)


def _dot_loop(x, y, z):
    total = 0.0
    for c, v in zip(_INTS, [x, y]):      # (zip stops at the shorter)
        total = total * c + v
    return total


def _dot_int(k, m):
    return sum(c * v for c, v in zip(_INTS, (k, m, k + m)))


@pytest.mark.parametrize("f, cols, sig", [
    (_dot_row, (np.array([[0.1, 0.5, 0.9], [1.0, 0.0, 0.25], [0.3, 0.3, 0.3]]),), "(3)->()"),
    (_dot_tuple, ([0.1, 1.0, -2.5], [0.5, 0.0, 3.0], [0.9, 0.25, 1e3]), None),
    (_dot_loop, ([0.1, 1.0, -2.5], [0.5, 0.0, 3.0], [0.9, 0.25, 1e3]), None),
    (_dot_int, ([1, 7, -4], [3, 0, 2**40]), None),
])
def test_zip_of_a_number_list_and_per_example_values(f, cols, sig):
    cols = [np.asarray(c) for c in cols]
    ref = np.vectorize(f, signature=sig)(*cols)
    got = vectorize(f, signature=sig, fallback="error")(*cols)
    assert got.dtype == ref.dtype
    np.testing.assert_array_equal(got, ref)
    ref = _loop(f, *cols)
    got = vmap(f)(*cols)
    assert got.dtype == ref.dtype
    np.testing.assert_array_equal(got, ref)


# `np.where` of one number raises ValueError ("Calling nonzero on 0d arrays"), `np.where(c, x)`
# and `np.clip(x, lo)` raise too: a `try` around them takes its handler on every example
# (was: read as raising nothing, so the batch returned the `try` body's value)
def _where_one(x):
    try:
        r = np.where(x)  # noqa: F841 - (as an assignment: an expression statement is refused)
        return 1.0
    except ValueError:
        return 2.0


def _where_two(x):
    try:
        r = np.where(x > 0.5, x)
    except ValueError:
        r = -x
    return r


def _clip_two(x):
    try:
        r = np.clip(x, 0.0)
    except TypeError:
        r = x + 1.0
    return r


@pytest.mark.parametrize("f", [_where_one, _where_two, _clip_two])
def test_numpy_call_that_raises_on_numbers_inside_try(f):
    x = np.array([0.25, 1.0, -3.0])
    ref = np.vectorize(f)(x.tolist())
    loop = _loop(f, x)
    for wrap, want in ((vectorize, ref), (vmap, loop)):
        try:
            got = wrap(f, fallback="error")(x)
        except Exception as exc:    # noqa: BLE001 - a located refusal is allowed
            assert type(exc).__name__ == "VectorizeError" and ":" in str(exc)
            continue
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
