"""Python ints compared with Python floats (`vectorize`: exactly, as Python does; NumPy
converts the int to float64, which rounds it from 2**53 on), and `not x` as a Python bool
per example under `vmap` on NumPy (an int in arithmetic)."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from vectorize import vectorize, vmap

BIG = 2 ** 53


def _same(ours, ref):
    assert ours.dtype == ref.dtype, (ours, ref)
    np.testing.assert_array_equal(ours, ref)


def gt(n, x):
    return n > x


def lt(n, x):
    return n < x


def le(n, x):
    return n <= x


def ge(n, x):
    return x >= n


def eq(n, x):
    return n == x


def ne(n, x):
    return n != x


def chain(n, x):
    return -1.0 < x < n


def pick_max(n, x):
    return max(x, n) == n


def pick_min(n, x):
    return min(n, x) == x


def literal_beyond(n, x):
    return x < 9007199254740993


COMPARISONS = [gt, lt, le, ge, eq, ne, chain, pick_max, pick_min]


@pytest.mark.parametrize("f", COMPARISONS + [literal_beyond], ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_ints_beyond_2_53_compare_exactly_with_floats(f, dtype):
    n = np.array([BIG + 1, 3, BIG + 3, BIG], dtype=dtype)
    x = np.array([2.0 ** 53, 1.0, 2.0 ** 53 + 4, 2.0 ** 53])
    _same(vectorize(f)(n, x), np.vectorize(f)(n, x))


def test_an_int_argument_the_same_for_every_example_compares_exactly():
    x = np.array([2.0 ** 53, 1.0])
    _same(vectorize(gt)(BIG + 1, x), np.vectorize(gt)(BIG + 1, x))


def small_literal(n, x):
    return x > 3 and n > 2.5


def test_small_ints_and_floats_known_need_no_check():
    n = np.array([3, -4], dtype=np.int32)
    x = np.array([2.5, -4.0])
    assert "2**53" not in vectorize(small_literal).source(n.astype(np.int64), x)
    _same(vectorize(small_literal)(n, x), np.vectorize(small_literal)(n, x))
    _same(vectorize(gt)(n, x), np.vectorize(gt)(n, x))
    assert "2**53" in vectorize(gt).source(n.astype(np.int64), x)


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.uint32])
def test_narrow_int_arguments_need_no_check(dtype):
    n = np.array([3, 4, 0], dtype=dtype)
    x = np.array([2.5, 4.0, -0.0])
    v = vectorize(gt)
    assert "2**53" not in v.source(n, x)
    _same(v(n, x), np.vectorize(gt)(n, x))
    # the same function on int64s (the code for the narrow ints is not reused: memo, cache)
    big = np.array([BIG + 1, 3], dtype=np.int64)
    y = np.array([2.0 ** 53, 1.0])
    _same(v(big, y), np.vectorize(gt)(big, y))
    _same(vectorize(gt)(big, y), np.vectorize(gt)(big, y))


def test_vmap_compares_numpy_scalars_as_numpy_does():
    n = np.array([BIG + 1, 3])
    x = np.array([2.0 ** 53, 1.0])
    loop = np.stack([gt(a, b) for a, b in zip(n, x)])
    assert loop[0] == False  # noqa: E712 -- NumPy converts the int64 to float64
    _same(vmap(gt)(n, x), loop)


_INTS = st.one_of(
    st.integers(-2 ** 63, 2 ** 63 - 1),
    st.sampled_from([BIG, BIG + 1, BIG - 1, -BIG, -BIG - 1, -BIG + 1, 2 ** 63 - 1, -2 ** 63,
                     2 ** 63 - 512, 0, 1, -1]),
    st.integers(-8, 8).map(lambda d: BIG + d),
    st.integers(-8, 8).map(lambda d: -BIG + d))
_FLOATS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([2.0 ** 53, -2.0 ** 53, 2.0 ** 53 + 2, 2.0 ** 63, -2.0 ** 63, 0.0, -0.0,
                     math.nan, math.inf, -math.inf, 2.0 ** 53 - 1]))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(_INTS, _FLOATS), min_size=1, max_size=6))
@example([(BIG + 1, 2.0 ** 53), (-BIG - 1, -2.0 ** 53), (2 ** 63 - 1, 2.0 ** 63)])
def test_fuzz_int_float_comparisons(pairs):
    n = np.array([p[0] for p in pairs], dtype=np.int64)
    x = np.array([p[1] for p in pairs], dtype=np.float64)
    for f in (gt, lt, le, ge, eq, ne):
        _same(vectorize(f)(n, x), np.vectorize(f)(n, x))


def not_plus_true(a):
    return (not a) + True


def abs_not(a):
    return abs(not a)


def count_positive(a, b):
    return (a > 0) + (b > 0)


def _loop(f, *args):
    return np.stack([np.asarray(f(*row)) for row in zip(*args)])


@pytest.mark.parametrize("f", [not_plus_true, abs_not], ids=lambda f: f.__name__)
def test_vmap_not_is_a_python_bool_per_example(f):
    a = np.array([0, 5, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _same(vmap(f)(a), _loop(f, a))


def test_vmap_numpy_bools_add_as_numpy_does():
    a, b = np.array([0, 5, 0, 2]), np.array([1, 0, 0, 3])
    _same(vmap(count_positive)(a, b), _loop(count_positive, a, b))


def not_counted(a, b):
    n = not a
    n += not b
    return n


def test_augmented_not_is_a_python_bool_per_example():
    a, b = np.array([0, 5, 0]), np.array([1, 0, 0])
    _same(vectorize(not_counted)(a, b), np.vectorize(not_counted)(a, b))
    _same(vmap(not_counted)(a, b), _loop(not_counted, a, b))


_UINTS = st.one_of(
    st.integers(0, 2 ** 64 - 1),
    st.integers(-8, 8).map(lambda d: BIG + d),
    st.integers(-8, 0).map(lambda d: 2 ** 64 - 1 + d),
    st.integers(-8, 8).map(lambda d: 2 ** 63 + d))


@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(_UINTS, _FLOATS), min_size=1, max_size=6))
@example([(BIG + 1, 2.0 ** 53), (2 ** 64 - 1, 2.0 ** 64), (2 ** 63 + 1, 2.0 ** 63)])
def test_fuzz_uint64_float_comparisons(pairs):
    n = np.array([p[0] for p in pairs], dtype=np.uint64)
    x = np.array([p[1] for p in pairs], dtype=np.float64)
    for f in (gt, lt, le, ge, eq, ne):
        _same(vectorize(f)(n, x), np.vectorize(f)(n, x))


def range_target(x, m):
    t = 0.0
    for i in range(m):
        if i > x:
            t += 1.0
    return t


def counted_up(x):
    k = 0
    while k < x:
        k += 1
    return k


def test_counters_and_range_targets_need_no_check():
    """A counter from a small int by small steps, or a loop target over a range from a
    small start, cannot reach 2**53 (more than 2**32 iterations)."""
    x = np.array([3.5, 1.0, 7.2, -0.0])
    for f, args in ((range_target, (x, 5)), (counted_up, (x,))):
        assert "2**53" not in vectorize(f).source(*args)
        _same(vectorize(f)(*args), np.vectorize(f)(*args))


def big_range(x):
    t = 0
    for i in range(2 ** 53, 2 ** 53 + 3):
        if i > x:
            t += 1
    return t


def test_a_range_from_a_large_start_is_checked():
    x = np.array([2.0 ** 53, 2.0 ** 53 + 2, 1.0])
    _same(vectorize(big_range)(x), np.vectorize(big_range)(x))
