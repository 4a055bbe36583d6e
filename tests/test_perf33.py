"""`merge.rows_dot`: a batch of rows times a shared vector (``x.dot(w)`` / ``x @ w`` per
example), computed by ``np.einsum`` where long batches of rows stream faster through it than
through BLAS's matrix-vector product. Differential tests of the einsum form against the simple
one (``x @ w``) and against the per-example loop, with the size threshold lowered so that
small arrays take the einsum form; floating-point errors reported as the products report them.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from vectorize import chunks, vmap
from vectorize.backends.numpy import merge


class _EinsumChosen(dict):
    """`merge._rows_choices` where every kind of batch has been measured faster by the
    einsum (no call times the forms)."""

    def get(self, key, default=None):
        choice = merge._RowsChoice()
        choice.einsum, choice.matmul, choice.left, choice.wins = [0.0], [1.0], 1 << 30, True
        return choice


def einsum_chosen(monkeypatch):
    monkeypatch.setattr(merge, "ROWS_DOT_MIN_BYTES", 0)
    monkeypatch.setattr(merge, "_rows_choices", _EinsumChosen())


@pytest.fixture
def einsum_form(monkeypatch):
    """Every batch of rows of a width in `ROWS_DOT_WIDTHS` takes the einsum form."""
    einsum_chosen(monkeypatch)
    calls = []
    real = merge._rows_einsum

    def counted(x, w, *rest):
        calls.append(x.shape)
        return real(x, w, *rest)
    monkeypatch.setattr(merge, "_rows_einsum", counted)
    return calls


def relu_dot(x, w):
    return max(x.dot(w), 0.0)


def plain_dot(x, w):
    return x @ w


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n, k", [(0, 64), (1, 64), (7, 32), (40, 64), (9, 128), (5, 512)])
def test_einsum_form_same_as_simple_form(einsum_form, dtype, n, k):
    rng = np.random.default_rng(n * 1000 + k)
    x, w = rng.standard_normal((n, k)).astype(dtype), rng.standard_normal(k).astype(dtype)
    got, simple = merge.rows_dot(x, w), x @ w
    assert einsum_form == [(n, k)]
    assert got.dtype == simple.dtype and got.shape == simple.shape
    tol = 1e-12 if dtype == np.float64 else 1e-5
    # (another summation order: near-zero sums compared absolutely)
    np.testing.assert_allclose(got, simple, rtol=tol, atol=tol * math.sqrt(k))


@pytest.mark.parametrize("x, w", [
    (np.ones((4, 8)), np.ones(8)),                              # rows too short
    (np.ones((4, 5000)), np.ones(5000)),                        # rows too long
    (np.ones((4, 64), np.int64), np.ones(64, np.int64)),        # not floats
    (np.ones((4, 64)), np.ones(64, np.float32)),                # two dtypes
    (np.ones((64, 4)).T, np.ones(64)),                          # not C-contiguous rows
    (np.ones((4, 128))[:, ::2], np.ones(64)),
    (np.ones((4, 64)), np.ones(128)[::2]),                      # a strided vector
    (np.ones((4, 64, 1))[..., 0], np.ones(64)),                 # (a view: contiguous, taken)
])
def test_other_operands_keep_the_simple_form(einsum_form, x, w):
    got, simple = merge.rows_dot(x, w), x @ w
    assert got.dtype == simple.dtype and np.array_equal(got, simple)
    taken = x.dtype == w.dtype == np.float64 and x.flags.c_contiguous and \
        w.flags.c_contiguous and \
        merge.ROWS_DOT_WIDTHS[0] <= x.shape[1] <= merge.ROWS_DOT_WIDTHS[1]
    assert bool(einsum_form) == taken


def test_matrix_subclass_keeps_the_simple_form(einsum_form):
    x = np.asmatrix(np.ones((3, 64)))
    w = np.ones(64)
    got = merge.rows_dot(x, w)
    assert type(got) is np.matrix and np.array_equal(got, x @ w) and not einsum_form


@pytest.mark.parametrize("n", [0, 1, 33])
def test_vmap_same_as_loop(einsum_form, n):
    rng = np.random.default_rng(n)
    x, w = rng.standard_normal((n, 64)), rng.standard_normal(64)
    before = x.copy(), w.copy()
    f = vmap(relu_dot, in_axes=(0, None), fallback="error")
    got = f(x, w)
    expected = np.array([relu_dot(r, w) for r in x]).reshape(n)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    # (the maximum is taken in the product's own array, never in an argument)
    assert np.array_equal(x, before[0]) and np.array_equal(w, before[1])
    assert "merge.rows_dot(x, w)" in f.source(x, w)
    assert einsum_form


def test_shared_vector_first_is_the_same_product(einsum_form):
    # `w @ x` per example with `w` shared: the rows are still `x`
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((6, 40)), rng.standard_normal(40)
    f = vmap(lambda x, w: w @ x, in_axes=(0, None), fallback="error")
    np.testing.assert_allclose(f(x, w), [w @ r for r in x], rtol=1e-12, atol=1e-12)
    assert "merge.rows_dot(x, w)" in f.source(x, w) and einsum_form


def test_overflow_raises_as_the_loop_does(einsum_form):
    # fix: np.einsum reports no floating-point error; an infinite sum is computed again by
    # `x @ w`, which raises (warns) as `x.dot(w)` per example does
    x = np.full((3, 40), 1e300)
    w = np.full(40, 1e10)
    f = vmap(plain_dot, in_axes=(0, None), fallback="error")
    with np.errstate(over="raise"):
        with pytest.raises(FloatingPointError):
            [r.dot(w) for r in x]
        with pytest.raises(FloatingPointError):
            f(x, w)
    with pytest.warns(RuntimeWarning, match="overflow"):
        got = f(x, w)
    assert np.isposinf(got).all() and einsum_form


def test_underflow_raises_as_the_loop_does(einsum_form):
    # where underflows are not ignored the product is `x @ w` (np.einsum would not tell)
    x = np.full((3, 40), 1e-200)
    w = np.full(40, 1e-200)
    f = vmap(plain_dot, in_axes=(0, None), fallback="error")
    with np.errstate(under="raise"):
        with pytest.raises(FloatingPointError):
            [r.dot(w) for r in x]
        with pytest.raises(FloatingPointError):
            f(x, w)
    assert np.array_equal(f(x, w), x @ w)


def test_nan_and_inf_rows_are_the_simple_form(einsum_form):
    x = np.ones((4, 32))
    x[1, 3] = math.nan
    x[2, 0] = math.inf
    w = np.ones(32)
    w[5] = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        simple = x @ w
        got = merge.rows_dot(x, w)
    np.testing.assert_array_equal(got, simple)


def test_threads_each_take_a_piece_of_rows(monkeypatch):
    # the pieces on several threads give the bits of one einsum call (each row is one sum)
    einsum_chosen(monkeypatch)
    monkeypatch.setattr(chunks, "AUTO_MIN_LANES", 4)
    monkeypatch.setattr(chunks, "spare_threads", lambda: 3)
    rng = np.random.default_rng(5)
    x, w = rng.standard_normal((50, 64)), rng.standard_normal(64)
    pieces = []
    real = np.einsum

    def counted(subscripts, *operands, **kwargs):
        pieces.append(len(operands[0]))
        return real(subscripts, *operands, **kwargs)
    monkeypatch.setattr(merge, "_EINSUM", counted)
    got = merge.rows_dot(x, w)
    assert sorted(pieces) == [16, 17, 17]
    assert np.array_equal(got, np.einsum("ij,j->i", x, w))


def test_a_name_merge_of_the_users_is_written_as_the_operator():
    # the user's code binds `merge`: the generated code is NumPy's own `@`
    f = vmap(_scaled_dot, in_axes=(0, None), fallback="error")
    x, w = np.arange(12.0).reshape(3, 4), np.array([1.0, -1.0, 0.5, 2.0])
    np.testing.assert_allclose(f(x, w), [_scaled_dot(r, w) for r in x])
    text = f.source(x, w)
    assert "return x @ w * merge" in text and "rows_dot" not in text


merge_scale = 2.0
merge_alias = merge_scale


def _scaled_dot(x, w):
    merge = merge_alias
    return x.dot(w) * merge


@pytest.mark.parametrize("setting, load, pieces", [
    ("1", 0.0, 1),          # VECTORIZE_NUM_THREADS=1: threads off
    ("", 64.0, 1),          # every core taken (a fake load average): the calling thread alone
    ("", 0.0, 2),           # idle cores: a piece each
])
def test_threads_back_off_under_load(monkeypatch, setting, load, pieces):
    einsum_chosen(monkeypatch)
    monkeypatch.setattr(chunks, "AUTO_MIN_LANES", 4)
    monkeypatch.setattr(chunks, "_cpus", lambda: 2)
    monkeypatch.setattr(chunks.os, "getloadavg", lambda: (load, load, load))
    monkeypatch.setenv("VECTORIZE_NUM_THREADS", setting)
    seen = []
    real = np.einsum

    def counted(subscripts, *operands, **kwargs):
        seen.append(len(operands[0]))
        return real(subscripts, *operands, **kwargs)
    monkeypatch.setattr(merge, "_EINSUM", counted)
    x, w = np.ones((40, 64)), np.arange(64.0)
    np.testing.assert_array_equal(merge.rows_dot(x, w), np.full(40, 2016.0))
    assert len(seen) == pieces
