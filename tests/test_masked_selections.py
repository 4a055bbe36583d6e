"""``v[mask]`` with a per-example boolean mask (`array.masked_selection`): a different number
of elements per example, vectorized where it is reduced (np.sum/prod/mean/min/max/any/all,
``sum``, ``len``, the methods), through lane-by-lane operations and names assigned once;
refused, located, where the selection itself escapes. Differential against numpy.vectorize
(with a signature: each example is a vector) and, for `vmap`, against the NumPy loop."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from vectorize import VectorizeError, vectorize, vmap


def cubic_eos_z(a_dim, b_dim):
    coeffs = [1.0, -(1.0 - b_dim), a_dim - 3 * b_dim ** 2 - 2 * b_dim,
              -(a_dim * b_dim - b_dim ** 2 - b_dim ** 3)]
    roots = np.roots(coeffs)
    real = roots[np.abs(roots.imag) < 1e-10].real
    return float(real.max())


def positive_roots(a_dim, b_dim):
    coeffs = [1.0, -(1.0 - b_dim), a_dim - 3 * b_dim ** 2 - 2 * b_dim,
              -(a_dim * b_dim - b_dim ** 2 - b_dim ** 3)]
    roots = np.roots(coeffs)
    real = roots[np.abs(roots.imag) < 1e-10].real
    pos = real[real > 0]            # a selection of a selection: both masks hold
    return len(pos) + float(pos.min())


def sums_and_counts(v):
    return np.sum(v[v > 0]) + len(v[v < 0])


def spread(v):
    w = v[v > 0.5]
    return w.max() - w.min()


def guarded_max(v):
    w = v[v > 0.5]
    if len(w) > 1:             # an empty selection is never reduced by max
        return float(np.max(w))
    return 0.0


def lane_by_lane(v, k):
    w = v[v > k]
    return np.mean(w * 2) + np.sum(v[v > 0] ** 2) + np.prod(w[w < 1.0])


def int_extremes(n):
    big = n[n > 3]
    return big.min() + big.max() + int(np.any(n[n < 0] > -2))


VECTOR_FUNCS = {sums_and_counts: "(n)->()", spread: "(n)->()", guarded_max: "(n)->()",
                int_extremes: "(n)->()"}


def _same_as_numpy(f, signature, *args):
    try:
        with np.errstate(all="ignore"):
            want = np.vectorize(f, signature=signature)(*args)
    except Exception as exc:       # noqa: BLE001 -- the loop's exception is the reference
        with pytest.raises(type(exc)):
            vectorize(f, signature=signature, fallback="error")(*args)
        return
    with np.errstate(all="ignore"):
        got = vectorize(f, signature=signature, fallback="error")(*args)
    assert got.dtype == want.dtype and got.shape == want.shape
    # (a sum over the padded vector may add in another order: the last bits, as `np.sum`)
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=0, equal_nan=True)


@pytest.mark.parametrize("n", [1, 5, 10_000])
def test_the_cubic_equation_of_state(n):
    rng = np.random.default_rng(n)
    a, b = rng.uniform(0.3, 0.6, n), rng.uniform(0.03, 0.09, n)
    for f in (cubic_eos_z, positive_roots):
        want = np.vectorize(f)(a, b)
        got = vectorize(f, fallback="error")(a, b)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-9)   # eigvals of a batch: last bits


@pytest.mark.parametrize("n", [1, 5, 10_000])
@pytest.mark.parametrize("f", list(VECTOR_FUNCS), ids=lambda f: f.__name__)
def test_reductions_of_selections_equal_numpy_vectorize(f, n):
    rng = np.random.default_rng(n)
    if f is int_extremes:
        v = rng.integers(-5, 10, (n, 6))
        v[:, 0] = 7                  # something above 3 in every example
    else:
        v = rng.normal(size=(n, 4))
        v[:, 0] = 3.0
    for _ in range(2):
        _same_as_numpy(f, VECTOR_FUNCS[f], v)
    if n > 1:
        v[n // 2] = -1           # one example selects nothing: max/min raise as the loop
        _same_as_numpy(f, VECTOR_FUNCS[f], v)


@pytest.mark.parametrize("n", [1, 5, 1000])
def test_a_mask_of_a_shared_threshold(n):
    rng = np.random.default_rng(n)
    _same_as_numpy(lane_by_lane, "(n),()->()", rng.normal(size=(n, 5)) + 0.5,
                   rng.uniform(-1, 1, n))


@settings(max_examples=30, deadline=None)
@given(hnp.arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 5)),
                  elements=st.floats(-1e3, 1e3) | st.sampled_from([np.nan, np.inf, -0.0])))
def test_selections_hypothesis(v):
    for f in (sums_and_counts, spread, guarded_max):
        _same_as_numpy(f, "(n)->()", v)


@pytest.mark.parametrize("n", [1, 5, 1000])
def test_vmap_sums_and_counts_equal_the_loop(n):
    v = np.random.default_rng(n).normal(size=(n, 4))
    want = np.stack([np.asarray(sums_and_counts(row)) for row in v])
    got = vmap(sums_and_counts)(v)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)


def _escapes(v):
    w = v[v > 0.5]
    return w


def _reassigned(v):
    w = v[v > 0.5]
    w = w * 2
    return np.sum(w)


@pytest.mark.parametrize("f, line", [(_escapes, "w = v[v > 0.5]"),
                                     (_reassigned, "w = v[v > 0.5]")])
def test_a_selection_that_escapes_is_refused_where_it_is_made(f, line):
    with pytest.raises(VectorizeError, match=r"test_masked_selections\.py:\d+:\d+") as info:
        vectorize(f, signature="(n)->()", fallback="error")(np.ones((3, 4)))
    assert line in str(info.value) and "different length per example" in str(info.value)


def test_max_of_a_selection_is_refused_for_vmap():
    # vmap has no per-example replay: an empty selection on a lane it keeps out could raise
    with pytest.raises(VectorizeError, match="NumPy scalars"):
        vmap(spread)(np.ones((3, 4)))


def _helper(x):
    return 1.0 / x


def _helper_under_a_condition(v):
    t = float(np.sum(v))
    if t != 0:
        return _helper(t)
    return 0.0


def test_a_signature_call_replays_the_loop_where_a_check_fires():
    # the helper's check fires on the lane its caller keeps out (t == 0); the loop decides
    # (before: ZeroDivisionError from the batched code, with `signature=` only)
    v = np.array([[1.0, 2.0], [1.0, -1.0], [0.5, 0.5]])
    want = np.vectorize(_helper_under_a_condition, signature="(n)->()")(v)
    got = vectorize(_helper_under_a_condition, signature="(n)->()")(v)
    np.testing.assert_array_equal(got, want)


def range_count(n, x):
    r = np.arange(n)
    return len(r) + np.sum(x ** r)       # a range through a name assigned once


@pytest.mark.parametrize("size", [1, 5, 1000])
def test_len_of_a_range_and_a_range_through_a_name(size):
    rng = np.random.default_rng(size)
    n, x = rng.integers(-2, 6, size), rng.uniform(-1, 1, size)
    want = np.vectorize(range_count)(n, x)
    got = vectorize(range_count, fallback="error")(n, x)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-13)


def test_an_empty_batch():
    # numpy.vectorize with a signature needs otypes for no examples; vectorize does not
    with np.errstate(all="ignore"):
        want = np.vectorize(sums_and_counts, signature="(n)->()", otypes=[float])(
            np.ones((0, 4)))
        got = vectorize(sums_and_counts, signature="(n)->()", otypes=[float])(np.ones((0, 4)))
    assert got.shape == want.shape == (0,) and got.dtype == want.dtype
    assert vmap(sums_and_counts)(np.ones((0, 4))).shape == (0,)


def sum_above_other(x, y):
    return np.sum(x[x > y])


@pytest.mark.parametrize("n", [0, 1, 5, 1000])
def test_a_mask_from_two_per_example_arrays(n):
    # in tests/test_arrays.py's list of refusals before (`boolean_mask_sum`)
    rng = np.random.default_rng(n)
    x, y = rng.normal(size=(n, 3)), rng.normal(size=(n, 3))
    got = vmap(sum_above_other)(x, y)
    want = np.array([sum_above_other(a, b) for a, b in zip(x, y)]).reshape(n)
    np.testing.assert_allclose(got, want, rtol=1e-13)
    _same_as_numpy(sum_above_other, "(n),(n)->()", x, y) if n else None
