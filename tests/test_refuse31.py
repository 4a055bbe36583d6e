"""`math.fsum` and `math.prod` of per-example numbers, vectorized (they were refused: a
Python loop).

`vectorize` against numpy.vectorize itself: the same bits (fsum is exactly rounded, so a
batched sum must give every example's bits, not a value within a rounding), the same dtype,
the same exception type where an example raises. `vmap` against the loop over NumPy scalars.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from vectorize import VectorizeError, vectorize, vmap


def fsum3(a, b, c):
    return math.fsum([a, b, c])


def fsum_tuple(a, b, c):
    return math.fsum((a, 0.1, b * c, -0.1))


def fsum_big(a, b, c):
    return math.fsum([a, 1e16, b, -1e16, c, 1e-16])


def prod3(a, b, c):
    return math.prod([a, b, c])


def prod_mixed(a, b, c):
    # ints multiply exactly until the first float: a * b can exceed 2**53
    return math.prod((a, b, c * 0.5))


def prod_start(a, b, c):
    return math.prod([a, 0.1, b], start=c)


def _outcome(call):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return call(), None
        except Exception as exc:  # noqa: BLE001 -- its type is compared
            return None, exc


def _bits(a):
    a = np.asarray(a)
    if a.dtype.kind == "f":
        return np.where(np.isnan(a), np.nan, a).tobytes(), a.dtype, a.shape
    return a.tobytes(), a.dtype, a.shape


def same_as_numpy_vectorize(f, *args):
    """``vectorize(f)`` (no fallback allowed) gives numpy.vectorize's exact bits and dtype,
    or raises its exception type."""
    if not np.broadcast(*args).size:
        # (numpy.vectorize needs otypes for an empty batch; the generated code's dtype)
        got = vectorize(f, fallback="error")(*args)
        assert got.shape == np.broadcast(*args).shape
        ones = [np.ones(1, np.asarray(a).dtype) for a in args]
        assert got.dtype == np.vectorize(f)(*ones).dtype     # an example of ones' dtype
        return
    want, want_exc = _outcome(lambda: np.vectorize(f)(*args))
    got, got_exc = _outcome(lambda: vectorize(f, fallback="error")(*args))
    assert not isinstance(got_exc, VectorizeError), got_exc
    if want_exc is not None:
        assert type(got_exc) is type(want_exc), (got_exc, want_exc)
        return
    assert got_exc is None, got_exc
    assert _bits(got) == _bits(want), (args, got, want)


FLOATS = st.one_of(
    st.sampled_from([0.0, -0.0, math.inf, -math.inf, math.nan, 1e308, -1e308, 5e-324, 1e16,
                     1.0, 1e-16, 0.1, -0.1]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(-1e20, 1e20).map(lambda v: math.ldexp(round(v), -30)))
INTS = st.one_of(st.integers(-2**63, 2**63 - 1), st.integers(-3000, 3000))


def _batch(elements, dtype, n):
    return hnp.arrays(dtype, n, elements=elements)


@settings(max_examples=20, deadline=None, database=None)
@given(st.integers(0, 6).flatmap(lambda n: st.tuples(
    _batch(FLOATS, np.float64, n), _batch(FLOATS, np.float64, n),
    _batch(FLOATS, np.float64, n))))
def test_fsum_of_floats_is_exactly_rounded_per_example(args):
    for f in (fsum3, fsum_tuple, fsum_big):
        same_as_numpy_vectorize(f, *args)


@settings(max_examples=40, deadline=None, database=None)
@given(st.integers(0, 5).flatmap(lambda n: st.tuples(
    _batch(INTS, np.int64, n), _batch(FLOATS, np.float64, n), _batch(INTS, np.int64, n))))
def test_fsum_of_ints_and_floats(args):
    # an int item is converted to the nearest double (2**63 - 1 becomes 2**63)
    same_as_numpy_vectorize(fsum3, *args)


def test_fsum_bits_where_left_to_right_addition_differs():
    a = np.array([1e-16, 0.1, 1e100, 1.0])
    b = np.array([1.0, 0.2, 1.0, 1e-16])
    c = np.array([1e16, 0.3, -1e100, -1.0])
    out = vectorize(fsum3, fallback="error")(a, b, c)
    assert out.dtype == np.float64
    assert out.tolist() == [math.fsum(t) for t in zip(a.tolist(), b.tolist(), c.tolist())]
    assert out.tolist() == [1.0000000000000002e16, 0.6, 1.0, 1e-16]   # not 1e16, 0.6000..01


def test_fsum_special_values_and_errors():
    f = vectorize(fsum3, fallback="error")
    out = f(np.array([math.inf, math.nan, -0.0]), np.array([1.0, math.inf, -0.0]), -0.0)
    assert np.isinf(out[0]) and out[0] > 0 and np.isnan(out[1])
    assert out[2] == 0.0 and not np.signbit(out[2])        # fsum([-0.0, -0.0]) is 0.0
    with pytest.raises(ValueError):                          # -inf + inf in fsum
        f(np.array([1.0, math.inf]), np.array([2.0, -math.inf]), 0.0)
    with pytest.raises(OverflowError):                       # intermediate overflow
        f(np.array([1.0, 1e308]), np.array([2.0, 1e308]), 0.0)


@pytest.mark.parametrize("n", [0, 1])
def test_fsum_and_prod_of_empty_and_one_example(n):
    floats = np.linspace(0.1, 0.3, n)
    ints = np.arange(3, 3 + n)
    for f in (fsum3, fsum_tuple, prod_mixed, prod_start):
        got = vectorize(f, fallback="error")(floats, ints, ints)
        assert got.shape == (n,) and got.dtype == np.float64
        if n:
            assert _bits(got) == _bits(np.vectorize(f)(floats, ints, ints))
    got = vectorize(prod3, fallback="error")(ints, ints, ints)
    assert got.shape == (n,) and got.dtype == np.int64


@settings(max_examples=30, deadline=None, database=None)
@given(st.integers(0, 6).flatmap(lambda n: st.tuples(
    _batch(INTS, np.int64, n), _batch(INTS, np.int64, n), _batch(INTS, np.int64, n))))
def test_prod_of_ints_is_exact_or_replays(args):
    # beyond int64 numpy.vectorize itself decides (OverflowError, or an object array)
    for f in (prod3, prod_mixed):
        same_as_numpy_vectorize(f, *args)


@settings(max_examples=40, deadline=None, database=None)
@given(st.integers(0, 5).flatmap(lambda n: st.tuples(
    _batch(FLOATS, np.float64, n), _batch(st.integers(-100, 100), np.int64, n),
    _batch(INTS, np.int64, n))))
def test_prod_of_floats_left_to_right(args):
    same_as_numpy_vectorize(prod_start, *args)
    same_as_numpy_vectorize(prod3, *args)


def test_prod_multiplies_ints_exactly_before_the_first_float():
    a = np.array([2**40 + 1, 3])
    b = np.array([2**20 + 3, 5])
    c = np.array([3, 7])
    out = vectorize(prod_mixed, fallback="error")(a, b, c)
    # (2**40 + 1) * (2**20 + 3) is exact as an int, not as the product of two doubles
    assert out.tolist() == [float((2**40 + 1) * (2**20 + 3)) * 1.5, 52.5]
    assert out.tolist() == np.vectorize(prod_mixed)(a, b, c).tolist()


def test_vmap_fsum_matches_the_numpy_scalar_loop():
    rng = np.random.default_rng(0)
    a = rng.normal(size=7) * 10.0 ** rng.integers(-20, 20, 7)
    b = np.float32(rng.normal(size=7))
    c = np.array([1e16, -1e16, 0.0, np.inf, np.nan, -0.0, 1.0])
    got = vmap(fsum3)(a, b, c)
    want = np.stack([fsum3(*t) for t in zip(a, b, c)])
    assert _bits(got) == _bits(want)


def test_vmap_prod_matches_the_numpy_scalar_loop():
    # NumPy scalars per example (ints wrap, a float32 stays float32): where the items are
    # not all int64, bool or float64, or an int product leaves int64, the loop decides
    floats = np.array([1.5, -0.0, np.inf, np.nan, 3.0])
    ints = np.array([2, 3, 2 ** 40, -5, 7])
    for args in ((floats, floats[::-1].copy(), floats), (ints, ints, ints),
                 (floats.astype(np.float32),) * 3, (ints.astype(np.int8),) * 3,
                 (ints, floats, ints)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = vmap(prod3, fallback="error")(*args)
            want = np.stack([prod3(*t) for t in zip(*args)])
        assert got.dtype == want.dtype
        assert _bits(got) == _bits(want)


def dist2(a, b, c):
    return math.dist((a, b), (c, 0.5))


def dist3(a, b, c):
    return math.dist([a, b, c], (b, c, a))


ORIGIN = (1.0, -2)


def dist_global(a, b, c):
    return math.dist((a, b), ORIGIN) + math.dist([c], [a])


@settings(max_examples=30, deadline=None, database=None)
@given(st.integers(0, 6).flatmap(lambda n: st.tuples(
    _batch(FLOATS, np.float64, n), _batch(FLOATS, np.float64, n),
    _batch(FLOATS, np.float64, n))))
def test_dist_has_cpythons_bits(args):
    for f in (dist2, dist3, dist_global):
        same_as_numpy_vectorize(f, *args)


@settings(max_examples=30, deadline=None, database=None)
@given(st.integers(0, 5).flatmap(lambda n: st.tuples(
    _batch(INTS, np.int64, n), _batch(FLOATS, np.float64, n), _batch(INTS, np.int64, n))))
def test_dist_of_ints_and_floats(args):
    same_as_numpy_vectorize(dist2, *args)


def test_dist_bits_where_a_plain_norm_differs():
    rng = np.random.default_rng(7)
    a, b, c = (rng.normal(size=2000) * 10.0 ** rng.integers(-8, 8, 2000) for _ in range(3))
    got = vectorize(dist3, fallback="error")(a, b, c)
    want = [math.dist((x, y, z), (y, z, x)) for x, y, z in zip(a.tolist(), b.tolist(),
                                                                  c.tolist())]
    assert got.tolist() == want
    naive = np.sqrt((a - b) ** 2 + (b - c) ** 2 + (c - a) ** 2)
    assert (naive != got).any()     # (what a plain formula gives: off in the last bits)


def test_dist_of_subnormal_differences_replays():
    # (CPython rescales differences below 2**-1021: the loop decides there)
    same_as_numpy_vectorize(dist3, np.array([3e-310, 1.0]), np.array([1e-311, 2.0]),
                            np.array([0.0, 0.5]))


def wrong_lengths(a, b, c):
    return math.dist((a, b), (1, 2, 3))


def test_dist_of_points_of_other_lengths_raises_valueerror():
    with pytest.raises(ValueError, match="same number of dimensions"):
        vectorize(wrong_lengths, fallback="warn")(np.arange(3.0), 1.0, 2.0)


def test_vmap_dist_matches_the_numpy_scalar_loop():
    rng = np.random.default_rng(3)
    a = np.float32(rng.normal(size=9))
    b = np.arange(9)
    c = np.concatenate([rng.normal(size=6), [np.inf, np.nan, -0.0]])
    got = vmap(dist2)(a, b, c)
    want = np.stack([dist2(*t) for t in zip(a, b, c)])
    assert _bits(got) == _bits(want)


def compare_mixed(u, i):
    return (u < i) + 2 * (u <= i) + 4 * (u == i) + 8 * (i != u) + 16 * (i > u) + 32 * (u >= i)


def compare_chain(u, i):
    return 0 < u <= i


def compare_branch(u, i):
    if u > i:
        return 1.5
    return -0.5


UINTS = st.one_of(st.integers(0, 2**64 - 1), st.sampled_from([0, 2**63 - 1, 2**63, 2**64 - 1,
                                                             2**53 + 1]))
SIGNED = st.one_of(INTS, st.sampled_from([-1, 0, 2**63 - 1, -2**63, 2**53 + 1]))


@settings(max_examples=30, deadline=None, database=None)
@given(st.integers(1, 6).flatmap(lambda n: st.tuples(
    _batch(UINTS, np.uint64, n), _batch(SIGNED, np.int64, n))))
def test_uint64_compared_with_a_signed_int_exactly(args):
    # per example both are Python ints, compared exactly (2**63 > 2**63 - 1; a float64
    # comparison would call them equal); NumPy 2 compares int64 with uint64 exactly too
    u, i = args
    for f in (compare_mixed, compare_chain, compare_branch):
        same_as_numpy_vectorize(f, u, i)
    same_as_numpy_vectorize(compare_mixed, u, int(i[0]))    # an int argument, shared


def test_uint64_comparison_where_float64_would_tie():
    u = np.array([2**63, 2**64 - 1, 2**53 + 1], np.uint64)
    i = np.array([2**63 - 1, -1, 2**53])
    out = vectorize(compare_chain, fallback="error")(u, i)
    assert out.tolist() == [False, False, False]
    out = vectorize(compare_branch, fallback="error")(u, i)
    assert out.tolist() == [1.5, 1.5, 1.5]          # float64 would call the first and last ties
    assert out.tolist() == np.vectorize(compare_branch)(u, i).tolist()


def bit_length_of_int(a, b):
    return int(a).bit_length() - (int(b) * 3).bit_length()


def bit_count(a, b):
    return a.bit_count() + b.bit_count()


def pow_mod(a, b):
    n = int(a)
    return pow(n, int(b) % 70, 1000000007) + pow(n, 3, int(b) or 1) + pow(-n, int(b), 97)


def pow_mod_param(a, b):
    return pow(a, 2, 7)


def bit_length_param(a, b):
    return a.bit_length()


@settings(max_examples=30, deadline=None, database=None)
@given(st.integers(0, 6).flatmap(lambda n: st.tuples(
    _batch(INTS, np.int64, n), _batch(st.integers(-2**61, 2**61), np.int64, n))))
def test_python_int_methods_and_pow_mod(args):
    # beyond what pymath models (a negative exponent, a modulus beyond 2**32, m == 0) and
    # int results beyond int64, numpy.vectorize itself decides
    for f in (bit_length_of_int, bit_count, pow_mod):
        same_as_numpy_vectorize(f, *args)


@settings(max_examples=15, deadline=None, database=None)
@given(st.integers(1, 5).flatmap(lambda n: st.tuples(
    _batch(UINTS, np.uint64, n), _batch(st.booleans(), np.bool_, n))))
def test_bit_count_of_uint64_and_bools(args):
    same_as_numpy_vectorize(bit_count, args[0], args[0])
    # (NumPy's bool has no bit_count: numpy.vectorize's first call raises AttributeError)
    with pytest.raises(VectorizeError, match="bit_count"):
        vectorize(bit_count, fallback="error")(*args)
    with pytest.raises(AttributeError), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        vectorize(bit_count)(*args)


def test_python_int_methods_on_the_int64_edges():
    a = np.array([0, -1, 2**63 - 1, -2**63, 2**53 + 1, 5])
    b = np.array([1, 0, -7, 3, 2**40, -(2**61)])
    got = vectorize(bit_length_of_int, fallback="error")(a, b)
    assert got.dtype == np.int64
    assert got.tolist() == [bit_length_of_int(x, y) for x, y in zip(a.tolist(), b.tolist())]
    got = vectorize(pow_mod, fallback="error")(a, b)
    assert got.tolist() == np.vectorize(pow_mod)(a, b).tolist()


def test_methods_numpy_ints_lack_stay_refused_on_parameters():
    # numpy.vectorize's first call hands `a` as a NumPy int: AttributeError / TypeError
    for f, error in ((bit_length_param, AttributeError), (pow_mod_param, TypeError)):
        with pytest.raises(VectorizeError, match="NumPy int where the function first"):
            vectorize(f, fallback="error")(np.arange(3), 1)
        with pytest.raises(error), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            vectorize(f)(np.arange(3), 1)


def test_vmap_python_int_methods_match_the_loop():
    a = np.array([3, -5, 2**62, 0])
    b = np.array([7, 2, -3, 1])
    for f in (bit_length_of_int, bit_count, pow_mod):
        got = vmap(f)(a, b)
        want = np.stack([f(*t) for t in zip(a, b)])
        assert _bits(got) == _bits(want)
    with pytest.raises(VectorizeError, match="bit_length"):
        vmap(bit_length_param, fallback="error")(a, b)


def prod_row(r):
    return math.prod(r)


def fsum_row(r):
    return math.fsum(r)


def dist_rows(r, q):
    return math.dist(r, q)


@pytest.mark.parametrize("rows", [
    np.array([[100, 100], [3, 4]], np.int8),            # per example NumPy int8s: wraps
    np.array([[2**40, 2**30], [3, -4]]),                # per example NumPy int64s: wraps
    np.array([[0.1, 3.3, 7.7], [1e30, 1e10, 1e-3]], np.float32),   # float32 products
    np.array([[0.1, 0.2, 0.3], [1e16, 1.0, -1e16]])])
def test_rows_under_a_signature_are_numpy_arrays_per_example(rows):
    # with a signature numpy.vectorize hands each example its row as a NumPy array, whose
    # items multiply in their own type (`vectorize` replays where pymath would not)
    for f in (prod_row, fsum_row):
        got = vectorize(f, signature="(n)->()", fallback="error")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert _bits(got(rows)) == _bits(np.vectorize(f, signature="(n)->()")(rows))
    got = vectorize(dist_rows, signature="(n),(n)->()", fallback="error")(rows, rows[::-1])
    assert _bits(got) == _bits(np.vectorize(dist_rows, signature="(n),(n)->()")(rows,
                                                                                rows[::-1]))
