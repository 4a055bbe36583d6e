"""The int64 overflow checks of `vectorize` (Python ints per example: numpy.vectorize raises
`OverflowError` where a result does not fit) proved needless from value ranges, and one
comparison of a magnitude where one is needed: after `n ** 4`'s check (|n| <= 55108) the
sum `n ** 4 + 3 * n - 7` cannot overflow, so it is not checked again (a float re-computation
of the whole sum before); a name assigned once at the top of the body keeps its range.
Differential against numpy.vectorize at the bounds, where a wrong proof would show."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vectorize import vectorize


def int_poly(n):
    return n ** 4 + 3 * n - 7


def int_mul_add(n, m):
    return n * m + 3 * n - 7


def square_then_scale(n):
    k = n ** 2
    return k * 3 + n


def square_then_divide(n):
    k = n ** 2
    j = k // 7
    return j * 2 - k


def cube_minus(n, m):
    return n ** 3 - m ** 3


EDGES = [0, 1, -1, 7, -7, 55108, -55108, 55109, -55109, 1_000_003, 2 ** 21, -(2 ** 21),
         3037000499, -3037000499, 3037000500, 2 ** 40, 2 ** 62, -(2 ** 63), 2 ** 63 - 1]

_VECTORIZED = {}


def _same_as_numpy(f, *args):
    try:
        want = np.vectorize(f)(*args)
    except Exception as exc:         # noqa: BLE001 -- the loop's exception is the reference
        want = exc
    if f not in _VECTORIZED:
        _VECTORIZED[f] = vectorize(f, fallback="error")
    try:
        got = _VECTORIZED[f](*args)
    except Exception as exc:         # noqa: BLE001 -- compared by type
        got = exc
    if isinstance(want, Exception) or isinstance(got, Exception):
        assert type(got) is type(want), (got, want)
        return
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_the_sum_after_a_checked_power_is_not_checked_again():
    source = vectorize(int_poly).source(np.array([1, 2]))
    assert source.count("raise OverflowError") == 1
    assert "-55108 <= n" in source and "astype(float)" not in source


def test_a_product_of_two_per_example_ints_is_one_magnitude_comparison():
    source = vectorize(int_mul_add).source(np.array([1, 2]), np.array([1, 2]))
    assert "abs(n.astype(float) * m.astype(float)) > 9.223372036854772e+18" in source


@pytest.mark.parametrize("f", [int_poly, square_then_scale, square_then_divide],
                         ids=lambda f: f.__name__)
def test_one_argument_at_the_edges(f):
    for value in EDGES:
        _same_as_numpy(f, np.array([value], dtype=np.int64))
        _same_as_numpy(f, np.array([3, value, -2], dtype=np.int64))


@pytest.mark.parametrize("n", [1, 5, 10_000])
def test_random_batches(n):
    rng = np.random.default_rng(n)
    small = rng.integers(-60_000, 60_000, n)
    _same_as_numpy(int_poly, small)
    _same_as_numpy(int_poly, np.clip(small, -55108, 55108))     # no lane overflows
    _same_as_numpy(int_mul_add, small, rng.integers(-2 ** 40, 2 ** 40, n))
    _same_as_numpy(cube_minus, small * 30, small)
    _same_as_numpy(square_then_scale, rng.integers(-2 ** 31, 2 ** 31, n))


def test_an_empty_batch():
    assert vectorize(int_poly)(np.array([], dtype=np.int64)).shape == (0,)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-2 ** 63, 2 ** 63 - 1) | st.sampled_from(EDGES), min_size=1,
                max_size=5),
       st.lists(st.integers(-2 ** 63, 2 ** 63 - 1), min_size=5, max_size=5))
def test_checks_hypothesis(values, others):
    n = np.array(values, dtype=np.int64)
    m = np.array(others[:len(values)], dtype=np.int64)
    for f in (int_poly, square_then_scale, square_then_divide):
        _same_as_numpy(f, n)
    _same_as_numpy(int_mul_add, n, m)
    _same_as_numpy(cube_minus, n, m)
