"""Products written as ``@`` of whole batches (`rules.contractions.as_matmul`, the NumPy
backend's `matmul`): differential tests of the optimized form against the simple one.

An einsum of two numeric arrays that is one matrix product over the batch becomes ``x @ w``
or ``x @ w.T``. Every such rewrite the rule makes, over every two-operand contraction of
vectors and matrices with a batch letter, must compute what ``np.einsum`` of the same
subscripts computes (same shape and dtype; equal values for integers and booleans, and for
floats up to the summation order), at N = 0, 1, 5 and a large batch; and the vectorized
functions that use it agree with the per-example loop (`vmap`) and with `numpy.vectorize`
on random inputs, shared operands given as the same array as a batched one (aliasing)
included. Shared lists keep the einsum (no ``@`` on a list).
"""

from __future__ import annotations

import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vectorize import vectorize, vmap
from vectorize.rules.contractions import as_matmul

SIZES = {"b": 5, "i": 3, "j": 4, "k": 2}


def _numpy_transposed(x, rank):
    return f"{x}.T" if rank == 2 else None


def _all_subscripts():
    """Every two-operand einsum of vectors and matrices over the letters i, j, k where at
    least one operand carries the batch letter b first, which the output keeps first."""
    per_example = ["i", "j", "ij", "ji", "jk", "kj", "ik"]
    for a, b in itertools.product(per_example, repeat=2):
        for batched in ((True, False), (False, True), (True, True)):
            specs = [("b" + s) if m else s for s, m in zip((a, b), batched)]
            letters = a + b
            free = [c for c in dict.fromkeys(letters) if letters.count(c) == 1]
            for out in {"".join(p) for p in itertools.permutations(free)}:
                yield f"{specs[0]},{specs[1]}->b{out}"


SUBSCRIPTS = sorted(set(_all_subscripts()))
REWRITTEN = [s for s in SUBSCRIPTS
             if as_matmul(s, ["a", "b"], _numpy_transposed, stacks=False) is not None]


def _operands(subscripts, n, dtype, rng):
    specs = subscripts.split("->")[0].split(",")
    out = []
    for spec in specs:
        shape = tuple(n if c == "b" else SIZES[c] for c in spec)
        if dtype == np.bool_:
            out.append(rng.random(shape) < 0.5)
        elif np.dtype(dtype).kind == "c":
            out.append((rng.standard_normal(shape) + 1j * rng.standard_normal(shape))
                       .astype(dtype))
        elif np.dtype(dtype).kind in "iu":
            out.append(rng.integers(-50, 50, shape).astype(dtype))
        else:
            out.append(rng.standard_normal(shape).astype(dtype))
    return out


def test_the_rewrite_covers_the_matrix_products():
    # the forms the benchmarks and the goldens rely on, and none that is not one product
    assert {"bi,i->b", "bj,ij->bi", "ij,bj->bi", "bi,ij->bj", "i,bij->bj"} <= set(SUBSCRIPTS)
    for s in ("bi,i->b", "bj,ij->bi", "ij,bj->bi", "bi,ij->bj"):
        assert s in REWRITTEN, s
    for s in ("bi,bi->b", "bi,bj->bij", "bi,j->bij", "bij,bj->bi"):
        assert as_matmul(s, ["a", "b"], _numpy_transposed, stacks=False) is None, s
    # stacks stay einsums for NumPy (`@` loops over small matrices one by one)
    assert as_matmul("bij,jk->bik", ["a", "b"], _numpy_transposed, stacks=False) is None
    assert as_matmul("i,bij->bj", ["a", "b"], _numpy_transposed, stacks=False) is None
    assert len(REWRITTEN) >= 16


@pytest.mark.parametrize("n", [0, 1, 5, 2000])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int8, np.bool_,
                                   np.complex128])
def test_every_rewritten_einsum_computes_the_einsum(n, dtype):
    rng = np.random.default_rng(n)
    for subscripts in REWRITTEN:
        a, b = _operands(subscripts, n, dtype, rng)
        spelled = as_matmul(subscripts, ["a", "b"], _numpy_transposed, stacks=False)
        got = eval(spelled, {"a": a, "b": b})
        expected = np.einsum(subscripts, a, b)
        what = f"{subscripts} -> {spelled} ({np.dtype(dtype)}, N={n})"
        assert got.shape == expected.shape and got.dtype == expected.dtype, what
        if expected.dtype.kind in "fc":
            rtol = 1e-5 if expected.dtype.itemsize <= 4 else 1e-12
            np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol, err_msg=what)
        else:
            np.testing.assert_array_equal(got, expected, err_msg=what)


@pytest.mark.parametrize("subscripts", ["bi,i->b", "ij,bj->bi", "bi,ij->bj"])
def test_nan_and_inf_propagate_as_in_the_einsum(subscripts):
    # nonzero partners: BLAS then propagates NaN and inf as the einsum does
    rng = np.random.default_rng(0)
    a, b = _operands(subscripts, 6, np.float64, rng)
    batched = a if subscripts.startswith("b") else b
    batched[1, 0] = math.nan
    batched[2, 1] = math.inf
    batched[3, :] = -math.inf
    spelled = as_matmul(subscripts, ["a", "b"], _numpy_transposed, stacks=False)
    with np.errstate(invalid="ignore"):     # inf - inf: `@` warns as `np.dot` does
        got = eval(spelled, {"a": a, "b": b})
    np.testing.assert_allclose(got, np.einsum(subscripts, a, b), rtol=1e-12, equal_nan=True)


# ------------------------------------------------------------- through vmap and vectorize
def relu_linear(x, w):
    return max(x.dot(w), 0.0)


def relu_np(x, w):
    # np.maximum: builtin max of a float32 and 0.0 is a float32 or a Python float per example
    return np.maximum(x.dot(w), 0)


def layer(x, w, c):
    return np.tanh(w @ x + c) @ w


def quadratic(x, m):
    return x.dot(m).dot(x)


def row_times_rows(x, w):
    return np.einsum("i,ij->j", x, w)


FUNCTIONS = {relu_np: ("i", "i"), layer: ("i", "ii", "i"), quadratic: ("i", "ii"),
             row_times_rows: ("i", "ij")}


def _loop(f, args, mapped):
    n = len(args[0])
    return np.stack([f(*[a[k] if m else a for a, m in zip(args, mapped)]) for k in range(n)]) \
        if n else None


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(sorted(FUNCTIONS, key=lambda f: f.__name__)),
       st.integers(0, 6), st.integers(1, 4), st.sampled_from(["float64", "float32", "int64"]),
       st.integers(0, 2**32 - 1))
def test_vmap_of_products_matches_the_loop(f, n, size, dtype, seed):
    rng = np.random.default_rng(seed)
    cores = FUNCTIONS[f]
    mapped = (True,) + (False,) * (len(cores) - 1)
    args = []
    for core, m in zip(cores, mapped):
        shape = ((n,) if m else ()) + (size,) * len(core)
        args.append((rng.standard_normal(shape) * 4).round().astype(dtype))
    got = vmap(f, in_axes=tuple(0 if m else None for m in mapped), fallback="error")(*args)
    expected = _loop(f, args, mapped)
    if expected is None:
        assert len(got) == 0
        return
    assert got.shape == expected.shape and got.dtype == expected.dtype
    np.testing.assert_allclose(got, expected, rtol=1e-5 if dtype == "float32" else 1e-12)


def test_a_shared_operand_that_is_the_batched_array_itself():
    # aliasing: w is the very array of the batch (the product reads both, writes neither)
    x = np.arange(12.0).reshape(4, 3) - 5.0
    w = x[:3]
    got = vmap(lambda r, m: m @ r, in_axes=(0, None), fallback="error")(x, w)
    np.testing.assert_allclose(got, np.stack([w @ r for r in x]), rtol=1e-12)
    assert np.array_equal(x, np.arange(12.0).reshape(4, 3) - 5.0)


def test_large_batch_matches_numpy_vectorize():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((10_000, 8))
    w = rng.standard_normal(8)
    f = vectorize(relu_linear, signature="(i),(i)->()", fallback="error")
    expected = np.vectorize(relu_linear, signature="(i),(i)->()")(x, w)
    for _ in range(3):
        # the summation orders differ (both BLAS): near-zero sums are compared absolutely
        np.testing.assert_allclose(f(x, w), expected, rtol=1e-12, atol=1e-13)
    assert "merge.rows_dot(x, w)" in f.source(x, w)


def test_a_shared_list_keeps_the_einsum():
    # `.T` and `@` of a shared list would fail: the product stays an einsum
    def with_list(x):
        return x.dot(WEIGHTS)

    x = np.arange(6.0).reshape(2, 3)
    f = vmap(with_list, fallback="error")
    np.testing.assert_allclose(f(x), [r.dot(WEIGHTS) for r in x])
    assert "np.einsum(" in f.source(x)


WEIGHTS = [1.0, -2.0, 0.5]


def _product_in_a_branch(s, x, w):
    if s > 0:
        y = x.dot(w)
    else:
        y = 0.0
    return y


def test_a_product_on_thrown_away_lanes_is_silent():
    # fix: `x @ w` (and an einsum's BLAS path) warns on inf * 0 as `np.dot` does per example;
    # a lane the `if` throws away must not warn, so the product rules are `may_warn`
    s = np.array([1.0, -1.0, 2.0])
    x = np.array([[1.0, 2.0], [math.inf, 1.0], [0.5, -1.0]])
    w = np.array([0.0, 1.0])
    f = vmap(_product_in_a_branch, in_axes=(0, 0, None), fallback="error")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = f(s, x, w)
    np.testing.assert_array_equal(got, [2.0, 0.0, -1.0])
    # fix: `m @ x if s > 0 else x` warned for the thrown-away lane (its einsum's path ran
    # BLAS's matmul before this change too): the operator `@` can warn on floats
    m = np.array([[0.0, 1.0], [1.0, 0.0]])
    g = vmap(lambda s, x, m: m @ x if s > 0 else x, in_axes=(0, 0, None), fallback="error")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = g(s, x, m)
    np.testing.assert_array_equal(got, [[2.0, 1.0], [math.inf, 1.0], [-1.0, 0.5]])
