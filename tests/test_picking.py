"""Picking, repeating and differencing per-example arrays, and lookups in shared tables
(`vectorize.backends.numpy.picking`): ``np.take``, ``np.diagonal``, ``np.trace``,
``np.tile``, ``np.repeat``, ``np.diff``, ``np.interp``, ``np.searchsorted`` (and the cumulative,
flipping, sorting and clipping rules next to them).

``vmap`` against the per-example loop (NumPy rows, the same on the JAX backend), at N = 0, 1,
5 and a large N called repeatedly; ``vectorize`` against ``numpy.vectorize`` itself on
per-example numbers looked up in shared tables; what cannot be batched refused where it is
written."""

from __future__ import annotations

import numpy as np
import pytest
from batch_sizes import explore_at_once
from differential import assert_like_numpy_vectorize, assert_values_equal, numpy_vectorize_outcome

from vectorize import VectorizeError, vectorize, vmap

RNG = np.random.default_rng(20)
XP = np.array([-2.0, -0.5, 0.0, 1.0, 4.0])
FP = np.array([3.0, 1.0, 0.0, -1.0, 2.5])
EDGES = np.array([-1.0, 0.0, 0.0, 0.5, 3.0])
TABLE = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])


def take_index(v, k):
    return np.take(v, k) * 2.0


def take_rows(m, k):
    return np.take(m, k, axis=0).sum() + m.take([0, -1], axis=1)[0, 1]


def take_matrix_of_indices(m, j):
    return np.take(m, np.stack([j, 2 - j]), axis=1)


def take_table(k):
    return np.take(TABLE, k, axis=1) + np.take(XP, k + 1)


def tiled(v):
    return np.tile(v, (2, 2)) - np.tile(v, 2)[None, :]


def repeated(m):
    return np.repeat(m, [2, 0, 1], axis=0).sum(axis=1) + m.repeat(2)[:3]


def diagonals(t):
    return np.diagonal(t, 1).sum() + np.trace(t, -1) + t.diagonal().prod() + t.trace()


def differences(v, x):
    return np.diff(v, prepend=x) + np.diff(v, n=2, append=[0.5, 0.5]) * 0.0 + np.diff(
        np.cumsum(v), append=1.0)


def tabulated(x):
    return np.interp(x, XP, FP, left=-9.0) + np.searchsorted(EDGES, x, side="right")


def tabulated_vectors(v):
    i = np.searchsorted(EDGES, v)
    return np.interp(v, XP, FP)[i % 3] + np.clip(v, XP[1], XP[-1]).max()


def ordered(v):
    s = np.sort(v)
    return np.flip(s)[np.argsort(v)] + np.cumprod(np.flip(v))


ARRAY_CASES = [
    (take_index, lambda n: (RNG.normal(size=(n, 4)), RNG.integers(-4, 4, n))),
    (take_rows, lambda n: (RNG.normal(size=(n, 3, 3)), RNG.integers(-3, 3, n))),
    (take_matrix_of_indices, lambda n: (RNG.normal(size=(n, 2, 3)), RNG.integers(0, 3, n))),
    (take_table, lambda n: (RNG.integers(-3, 3, n),)),
    (tiled, lambda n: (RNG.normal(size=(n, 3)),)),
    (repeated, lambda n: (RNG.normal(size=(n, 3, 2)),)),
    (diagonals, lambda n: (RNG.normal(size=(n, 3, 3)),)),
    (differences, lambda n: (RNG.normal(size=(n, 4)), RNG.normal(size=n))),
    (tabulated, lambda n: (RNG.normal(size=n) * 3,)),
    (tabulated_vectors, lambda n: (RNG.normal(size=(n, 3)) * 3,)),
    (ordered, lambda n: (RNG.normal(size=(n, 4)),)),
]


def check_against_the_loop(wrapped, func, make, sizes=(0, 1, 5, 10_000), repeats=3):
    """``wrapped`` against the per-example loop of ``func`` over the rows of ``make(n)``:
    the same shape, dtype and values (NaN equal to NaN), the large N called repeatedly."""
    with explore_at_once():
        for n in sizes:
            args = make(n)
            lanes = [func(*[a[k] for a in args]) for k in range(n)]
            for _ in range(repeats if n == sizes[-1] else 1):
                got = np.asarray(wrapped(*args))
                if n == 0:
                    assert got.shape[:1] == (0,)
                    continue
                expected = np.stack(lanes)
                assert got.shape == expected.shape, f"N={n}: {got.shape} != {expected.shape}"
                assert got.dtype == expected.dtype, f"N={n}: {got.dtype} != {expected.dtype}"
                assert_values_equal(got, expected, f"N={n}: ")


@pytest.mark.parametrize(("func", "make"), ARRAY_CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_vmap_matches_the_loop_at_every_size(func, make):
    check_against_the_loop(vmap(func), func, make)


# (the cases whose code JAX spells its own way: checked gathers, arrays for lists)
JAX_CASES = [c for c in ARRAY_CASES if c[0] in (take_index, take_rows, tiled, differences,
                                                 tabulated)]


@pytest.mark.parametrize(("func", "make"), JAX_CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_vmap_on_jax_matches_the_loop(func, make):
    pytest.importorskip("jax")
    # (every size is an XLA compile: N = 1 and the large N are the NumPy backend's test
    # above, the generated code is the same)
    check_against_the_loop(vmap(func, backend="jax"), func, make, sizes=(0, 5), repeats=1)


@pytest.mark.parametrize("backend", ["numpy", "jax"])
def test_an_index_out_of_range_raises_index_error_as_the_loop(backend):
    if backend == "jax":
        pytest.importorskip("jax")
    v = np.arange(12.0).reshape(4, 3)
    k = np.array([0, 2, 3, 1])        # 3 is out of range for an example of length 3
    with pytest.raises(IndexError):
        take_index(v[2], k[2])
    with pytest.raises(IndexError):
        vmap(take_index, backend=backend)(v, k)
    with pytest.raises(IndexError):
        vmap(take_table, backend=backend)(np.array([0, 1, 3]))
    # the wrapping mode never raises, as per example
    wrap = vmap(lambda v, k: np.take(v, k, mode="wrap"), backend=backend)(v, k)
    np.testing.assert_array_equal(np.asarray(wrap), [np.take(r, i, mode="wrap")
                                                     for r, i in zip(v, k)])


def lookup(x):
    return np.interp(x, XP, FP) * 2 + np.searchsorted(EDGES, x)


def lookup_index(k):
    return np.take(FP, k) + np.take(XP, [k, 0]).sum()


@pytest.mark.parametrize(("func", "values"), [
    (lookup, np.array([np.nan, -np.inf, np.inf, -0.0, 0.0, -2.0, 0.7, 5.0, -0.5, 3.0])),
    (lookup_index, np.array([0, -5, 4, 2, -1, 3])),
    (lookup_index, np.array([0, 5, 1])),          # raises IndexError, as numpy.vectorize
])
def test_vectorize_matches_numpy_vectorize_at_every_size(func, values):
    for n in (0, 1, 5, 10_000):
        x = np.resize(values, n)
        result, raised = numpy_vectorize_outcome(func, x)
        wrapped = vectorize(func, fallback="error")
        if raised is not None:
            with pytest.raises(type(raised)):
                wrapped(x)
        elif n == 0:
            assert np.shape(wrapped(x)) == (0,)
        else:
            assert_like_numpy_vectorize(wrapped(x), result, what=f"N={n}: ")


def per_example_counts(v, k):
    return np.repeat(v, k)


def per_example_reps(v, k):
    return np.tile(v, k)


def per_example_table(v, x):
    return np.interp(x, v, v)


def per_example_offset(m, k):
    return np.diagonal(m, k)


@pytest.mark.parametrize("func", [per_example_counts, per_example_reps, per_example_table,
                                  per_example_offset])
def test_what_would_differ_in_shape_or_table_per_example_is_refused_where_written(func):
    v = RNG.normal(size=(4, 3, 3))
    k = np.array([1, 2, 1, 0])
    with pytest.raises(VectorizeError) as info:
        vmap(func)(v if func is per_example_offset else v[:, 0], k if func is not
                   per_example_table else v[:, 0, 0])
    assert info.value.line == func.__code__.co_firstlineno + 1
