"""The NumPy / math / SciPy operator surface, end to end.

Each function below is a per-example function a user would write. Every one is checked
three ways where it applies: ``vmap`` against the per-example loop at N = 0, 1, 5 and a large
N called repeatedly (`batch_sizes.check_sizes`); ``vectorize(f, signature=...)`` against
``numpy.vectorize(f, signature=...)`` itself; and, for scalar functions, ``vectorize(f)``
against ``numpy.vectorize(f)``, which hands the function Python scalars. The rule table of
tests/test_rules.py checks each rule on hypothesis-drawn inputs; this file holds the
regression tests of what was silently wrong, the refusals, and the whole-function checks.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import scipy.special
import scipy.stats
from batch_sizes import per_example
from differential import assert_values_equal
from test_signature import check_vectorized

from vectorize import VectorizeError, vectorize, vmap

RNG = np.random.default_rng(7)
LARGE = 3000
M = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]])
COLUMNS = np.array([0, 2, 1])


# ------------------------------------------------------ per-example functions (vmap form)
def total3(a, b, c):
    return sum([a, b, c])


def mean_of_list(a, b):
    return np.mean([a, b, 1.0])


def max_of_tuple(a, b):
    return np.max((a, b)) - np.min([a, b])


def norm_of_list(a, b, c):
    return np.linalg.norm([a, b, c])


def dot_of_list(a, b, w):
    return np.dot([a, b, 2.0], w)


def named_list(a, b):
    pieces = [a, b, 2.0 * a]
    return np.std(pieces) + pieces[1]


def nested_list(a, b, v):
    return np.array([[a, b], [b, 1.0]]) @ v[:2]


def list_of_vectors(v, w):
    return np.sum([v, w, v * w], axis=0)


def sorted_abs(v):
    return np.sort(np.abs(v))


def ranks(v):
    return np.argsort(np.argsort(v))


def median_by_sort(v):
    s = np.sort(v)
    return s[len(s) // 2]


def descending(m):
    return np.flip(np.sort(m, axis=1), axis=1)


def rolled(v, k):
    return np.roll(v, k) + np.roll(v, 1)


def by_order(v, w):
    return np.take_along_axis(w, np.argsort(v), axis=0)


def padded(m):
    return np.pad(m, ((1, 0), (0, 2)), mode="edge") + np.pad(m, 1, "wrap")[:3, :5]


def smoothed(v):
    p = np.pad(v, 1, mode="reflect")
    return (p[:-2] + p[1:-1] + p[2:]) / 3.0


def cumulative(m):
    return np.cumsum(m, axis=0) - np.cumprod(m, axis=-1)


def joined(v):
    return np.concatenate([v, M[0], [1.0]]) + 1.0


def stacked(v):
    return np.stack([v, M[1]], axis=1)


def constants_inside(v):
    w = np.array([1.0, 2.0, 3.0])
    return v * w + np.array([[1.0, 0.0, 0.0]]) @ v


def written_copy(v, k):
    x = v.copy()
    x[0] = 5.0
    x[k] = -x[k]
    return x


def gathered(v, idx):
    return v[idx] * 2.0


def gathered_rows(m, idx, k):
    return m[idx, k] + M[k, COLUMNS[:2]]


def scattered(v, idx):
    y = np.zeros(3)
    y[idx] = v
    return y


def cholesky_solve(a, b):
    spd = a @ a.T + 3.0 * np.eye(3)
    lower = np.linalg.cholesky(spd)
    return np.linalg.solve(lower.T, np.linalg.solve(lower, b))


def inverse_det(a):
    spd = a @ a.T + 3.0 * np.eye(3)
    return np.linalg.inv(spd) * np.linalg.det(spd)


def spectral(a):
    w, v = np.linalg.eigh(a + a.T)
    return w[-1] * np.abs(v[:, -1])


def norms(a):
    return (np.linalg.norm(a, "fro") + np.linalg.norm(a, 2) + np.linalg.norm(a, -np.inf)
            + np.linalg.norm(a[0], 1) + np.linalg.norm(a, axis=0)[1])


def shared_system(b):
    return np.linalg.solve(M, b)


def quadratic_roots(b, c):
    return np.roots([1.0, b, c])


def cubic_roots(p):
    return np.roots(p)


def cross_norm(u, v):
    return np.linalg.norm(np.cross(u, v))


def check_sizes(wrapped, f, make, batched=None, large=LARGE, repeats=3):
    """``wrapped`` against the per-example loop of ``f`` at N = 0, 1, 5 and ``repeats``
    times at N = ``large``: every example's result, whatever its shape; where a lane of the
    loop raises, the batch raises the same exception type."""
    for n in (0, 1, 5, large):
        args = make(n)
        flags = batched or [np.ndim(a) >= 1 for a in args]
        lanes, raised = per_example(f, args, flags, n)
        for _ in range(repeats if n == large else 1):
            if raised is not None:
                with pytest.raises(type(raised)):
                    wrapped(*args)
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                got = wrapped(*args)
            if n == 0:
                assert np.shape(got)[:1] == (0,), np.shape(got)
                continue
            assert np.shape(got) == (n,) + np.shape(lanes[0]), (np.shape(got), n)
            assert_values_equal(got, np.array(lanes), what=f"N={n}: ")


def _spd_stack(n):
    return RNG.normal(size=(n, 3, 3))


VMAP_CASES = {
    total3: lambda n: [RNG.normal(size=n), RNG.normal(size=n), RNG.normal(size=n)],
    mean_of_list: lambda n: [RNG.normal(size=n), RNG.normal(size=n)],
    max_of_tuple: lambda n: [RNG.normal(size=n), RNG.integers(-5, 5, n)],
    norm_of_list: lambda n: [RNG.normal(size=n), RNG.normal(size=n), np.float64(2.0)],
    dot_of_list: lambda n: [RNG.normal(size=n), RNG.normal(size=n), RNG.normal(size=(n, 3))],
    named_list: lambda n: [RNG.normal(size=n), RNG.normal(size=n)],
    nested_list: lambda n: [RNG.normal(size=n), RNG.normal(size=n), RNG.normal(size=(n, 3))],
    list_of_vectors: lambda n: [RNG.normal(size=(n, 3)), RNG.normal(size=(n, 3))],
    sorted_abs: lambda n: [RNG.normal(size=(n, 4))],
    ranks: lambda n: [RNG.normal(size=(n, 5))],
    median_by_sort: lambda n: [RNG.normal(size=(n, 5))],
    descending: lambda n: [RNG.normal(size=(n, 2, 3))],
    rolled: lambda n: [RNG.normal(size=(n, 4)), RNG.integers(-6, 6, n)],
    by_order: lambda n: [RNG.normal(size=(n, 4)), RNG.normal(size=(n, 4))],
    padded: lambda n: [RNG.normal(size=(n, 2, 3))],
    smoothed: lambda n: [RNG.normal(size=(n, 6))],
    cumulative: lambda n: [RNG.normal(size=(n, 2, 3))],
    joined: lambda n: [RNG.normal(size=(n, 3))],
    stacked: lambda n: [RNG.normal(size=(n, 3))],
    constants_inside: lambda n: [RNG.normal(size=(n, 3))],
    written_copy: lambda n: [RNG.normal(size=(n, 3)), RNG.integers(-3, 3, n)],
    gathered: lambda n: [RNG.normal(size=(n, 3)), RNG.integers(-3, 3, (n, 5))],
    gathered_rows: lambda n: [RNG.normal(size=(n, 3, 3)), RNG.integers(0, 3, (n, 2)),
                              RNG.integers(0, 3, n)],
    scattered: lambda n: [RNG.normal(size=(n, 3)), RNG.permuted(np.tile([2, 0, 1], (n, 1)),
                                                                 axis=1)],
    cholesky_solve: lambda n: [_spd_stack(n), RNG.normal(size=(n, 3))],
    inverse_det: lambda n: [_spd_stack(n)],
    spectral: lambda n: [_spd_stack(n)],
    norms: lambda n: [RNG.normal(size=(n, 3, 3))],
    shared_system: lambda n: [RNG.normal(size=(n, 3))],
    quadratic_roots: lambda n: [RNG.normal(size=n), RNG.normal(size=n) + 0.5],
    cubic_roots: lambda n: [RNG.normal(size=(n, 4)) + 3.0],
    cross_norm: lambda n: [RNG.normal(size=(n, 3)), RNG.normal(size=(n, 3))],
}


@pytest.mark.parametrize("f", list(VMAP_CASES), ids=lambda f: f.__name__)
def test_vmap_matches_the_loop_at_every_batch_size(f):
    make = VMAP_CASES[f]
    flags = [np.ndim(a) >= 1 for a in make(2)]
    in_axes = tuple(0 if b else None for b in flags)
    check_sizes(vmap(f, in_axes=in_axes, fallback="error"), f, make, batched=flags,
                large=LARGE, repeats=3)


# ------------------------------------------- vectorize(signature=...) against numpy itself
SIGNATURE_CASES = [
    (sorted_abs, "(n)->(n)", lambda n: [RNG.normal(size=(n, 4))]),
    (ranks, "(n)->(n)", lambda n: [RNG.normal(size=(n, 5))]),
    (median_by_sort, "(n)->()", lambda n: [RNG.normal(size=(n, 5))]),
    (smoothed, "(n)->(n)", lambda n: [RNG.normal(size=(n, 6))]),
    (by_order, "(n),(n)->(n)", lambda n: [RNG.normal(size=(n, 4)), RNG.normal(size=(n, 4))]),
    (list_of_vectors, "(n),(n)->(n)", lambda n: [RNG.normal(size=(n, 3)),
                                                 RNG.normal(size=(n, 3))]),
    (inverse_det, "(n,n)->(n,n)", lambda n: [_spd_stack(n)]),
    (cholesky_solve, "(n,n),(n)->(n)", lambda n: [_spd_stack(n), RNG.normal(size=(n, 3))]),
    (norms, "(n,n)->()", lambda n: [RNG.normal(size=(n, 3, 3))]),
    # (the first example has complex roots: numpy.vectorize takes the first example's
    # dtype for every result)
    (cubic_roots, "(n)->(m)", lambda n: [np.concatenate([[[1.0, 0.0, 0.0, 1.0]],
                                                         RNG.normal(size=(n - 1, 4)) + 3.0])]),
    # (real roots for every example: numpy.vectorize keeps the first example's dtype and
    # would drop the imaginary parts of later ones, docs/semantics.md)
    (quadratic_roots, "(),()->(m)", lambda n: [RNG.normal(size=n),
                                               -np.abs(RNG.normal(size=n)) - 0.1]),
    (total3, "(),(),()->()", lambda n: [RNG.normal(size=n), RNG.normal(size=n),
                                        RNG.normal(size=n)]),
    (nested_list, "(),(),(n)->(m)", lambda n: [RNG.normal(size=n), RNG.normal(size=n),
                                               RNG.normal(size=(n, 3))]),
]


@pytest.mark.parametrize("f, signature, make", SIGNATURE_CASES,
                         ids=[c[0].__name__ for c in SIGNATURE_CASES])
@pytest.mark.parametrize("n", [1, 5, 400])
def test_signature_matches_numpy_vectorize(f, signature, make, n):
    check_vectorized(f, signature, *make(n))


# ------------------------------------------------- scalar functions against numpy.vectorize
def ieee_remainder(x, y):
    return math.remainder(x, y)


def special(x):
    return math.gamma(x) - math.lgamma(x) + math.erf(x) * math.erfc(x)


def as_complex(x, y):
    return complex(x, y) * complex(y)


def extended(x):
    return np.emath.sqrt(x) + np.emath.log(x) * np.emath.arcsin(x)


def with_scipy(x, y):
    return scipy.special.erf(x) + scipy.special.jv(2, y) + scipy.special.expit(x * y)


def distributions(x, mu):
    return (scipy.stats.norm.cdf(x, loc=mu, scale=2.0) + scipy.stats.norm(mu, 1.5).pdf(x)
            + scipy.stats.gamma(2.0).sf(abs(x)) - scipy.stats.t.ppf(0.3, 4.0 + abs(mu)))


def python_sum(a, b, c):
    return sum([a, b, c]) + max((a, b, c)) - np.mean([a, c])


def series(x, n):
    return np.sum(x ** np.arange(n) / (np.arange(n) + 1.0))


def triangular(n):
    return sum(np.arange(1, n + 1)) + np.prod(np.arange(1, n % 5 + 1))


def stepped_mean(a, k):
    return np.mean(np.arange(a, a + k % 6 + 1, 2) * 0.5) + np.arange(k % 4).sum()


def any_below(n, x):
    return np.any(np.cos(np.arange(n)) < x)


SCALAR_CASES = {
    series: lambda n: [RNG.normal(size=n), RNG.integers(0, 12, n)],
    triangular: lambda n: [RNG.integers(-3, 40, n)],
    stepped_mean: lambda n: [RNG.integers(-20, 20, n), RNG.integers(0, 30, n)],
    any_below: lambda n: [RNG.integers(0, 9, n), RNG.normal(size=n)],
    ieee_remainder: lambda n: [RNG.normal(size=n) * 10, np.round(RNG.normal(size=n) * 3) + 0.5],
    special: lambda n: [np.abs(RNG.normal(size=n)) * 5 + 0.1],
    as_complex: lambda n: [RNG.normal(size=n), RNG.normal(size=n)],
    extended: lambda n: [RNG.uniform(0.01, 0.99, n)],
    with_scipy: lambda n: [RNG.normal(size=n), RNG.normal(size=n)],
    distributions: lambda n: [RNG.normal(size=n), RNG.normal(size=n)],
    python_sum: lambda n: [RNG.normal(size=n), RNG.normal(size=n), RNG.integers(-9, 9, n)],
}
# the large N per case where the per-example reference is slow: scipy.stats' frozen
# distributions cost about a millisecond per example; 600 lanes take the batched code's
# same path as 3000 (one whole call: chunks start at 2 * chunks.AUTO_MIN_LANES)
LARGE_FOR = {distributions: 600}


@pytest.mark.parametrize("f", list(SCALAR_CASES), ids=lambda f: f.__name__)
def test_vectorize_matches_numpy_vectorize(f):
    ours = vectorize(f, fallback="error")
    make = SCALAR_CASES[f]
    large = LARGE_FOR.get(f, LARGE)
    for n in (1, 5, large, large):
        args = make(n)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            expected = np.vectorize(f)(*args)
        got = ours(*args)
        assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0)
    empty = ours(*make(0))
    assert empty.shape == (0,) and empty.dtype == got.dtype


@pytest.mark.parametrize("f", list(SCALAR_CASES), ids=lambda f: f.__name__)
def test_scalar_functions_under_vmap(f):
    check_sizes(vmap(f, fallback="error"), f, SCALAR_CASES[f], large=LARGE_FOR.get(f, LARGE),
                repeats=3)


def test_remainder_is_exact_on_ties_and_edges():
    x = np.array([5.0, 7.0, -5.0, -0.0, 0.0, 3.0, 1e300, 2.5, -2.5, 6.0, 0.75])
    y = np.array([2.0, 2.0, 2.0, 1.0, -1.0, np.inf, 3.0, 1.0, 1.0, -4.0, 0.5])
    got = vectorize(ieee_remainder, fallback="error")(x, y)
    expected = np.array([math.remainder(a, b) for a, b in zip(x.tolist(), y.tolist())])
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(expected))


def test_complex_keeps_infinities_and_signed_zeros():
    x = np.array([-0.0, 1.0, np.inf, np.nan, 0.0])
    y = np.array([np.inf, -0.0, 2.0, 1.0, -0.0])
    got = vectorize(as_complex, fallback="error")(x, y)
    expected = np.vectorize(as_complex)(x, y)
    np.testing.assert_array_equal(got, expected)
    parts = vectorize(lambda_free_complex, fallback="error")(x, y)
    np.testing.assert_array_equal(np.signbit(parts.real), np.signbit(x))
    np.testing.assert_array_equal(np.signbit(parts.imag), np.signbit(y))


def lambda_free_complex(x, y):
    return complex(x, y)


# ------------------------------------------------ regressions: silently wrong before, fixed
def test_sum_of_a_list_of_per_example_scalars_sums_each_example():
    """`sum([a, b, c])` was `np.sum([a, b, c], axis=1)`: with N == 3 it summed each of a, b
    and c over the batch (a wrong answer), otherwise it crashed."""
    a, b, c = np.array([1.0, 2.0, 3.0]), np.array([10.0, 20.0, 30.0]), np.array([0.5] * 3)
    np.testing.assert_array_equal(vmap(total3)(a, b, c), a + b + c)
    np.testing.assert_array_equal(vectorize(total3)(a, b, c), a + b + c)


@pytest.mark.parametrize("f", [mean_of_list, max_of_tuple, norm_of_list, dot_of_list,
                               named_list], ids=lambda f: f.__name__)
def test_array_functions_of_list_literals_work_at_three_lanes(f):
    """These were internal errors ('TupleValue' object has no attribute 'rank')."""
    make = VMAP_CASES[f]
    args = make(3)
    flags = [np.ndim(a) >= 1 for a in args]
    got = vmap(f, in_axes=tuple(0 if b else None for b in flags))(*args)
    expected = np.stack([f(*[a[i] if b else a for a, b in zip(args, flags)])
                         for i in range(3)])
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_builtin_sum_never_gives_negative_zero():
    """Python's sum starts from the int 0: sum([-0.0, -0.0]) is 0.0; np.sum gives -0.0."""
    def f(v):
        return sum(v)
    got = vmap(f)(np.array([[-0.0, -0.0], [1.0, -1.0]]))
    assert not np.signbit(got).any()
    got = vectorize(total3)(np.array([-0.0]), np.array([-0.0]), np.array([-0.0]))
    assert not np.signbit(got).any()


def test_a_shared_index_array_next_to_a_per_example_index():
    """`M[k, COLUMNS]` with a per-example k and a shared index array broadcast k against
    COLUMNS: with N == 3 it picked one element per lane (a wrong answer), else it crashed."""
    def f(k):
        return M[k, COLUMNS]
    k = np.array([0, 2, 1])
    np.testing.assert_array_equal(vmap(f)(k), np.stack([f(i) for i in k]))


# ------------------------------------------------------------------------------ refusals
def _refusal(f, *args, **kwargs):
    with pytest.raises(VectorizeError) as info:
        vmap(f, fallback="error", **kwargs)(*args)
    return str(info.value)


def test_per_example_pad_values_are_refused_with_a_location():
    def f(v, c):
        return np.pad(v, 1, constant_values=c)
    message = _refusal(f, np.ones((2, 3)), np.ones(2))
    assert "test_numpy_ops.py" in message and "constant" in message


def test_sorting_a_per_example_scalar_is_refused():
    def f(x):
        return np.sort(x)
    assert "rank 0" in _refusal(f, np.ones(4))


def test_matrix_functions_of_per_example_vectors_are_refused():
    def f(v):
        return np.linalg.det(v)
    assert "needs a matrix per example" in _refusal(f, np.ones((4, 3)))


def test_ragged_lists_are_refused():
    def f(a, v):
        return np.sum([a, v])
    assert "different shapes" in _refusal(f, np.ones(2), np.ones((2, 3)))


def test_roots_with_a_zero_end_coefficient_are_the_loops():
    """Per example np.roots strips zero end coefficients (fewer roots, or zero roots moved
    to the end): such examples make the batched code raise, and vmap runs the per-example
    loop, which gives their roots (or its own error where their counts differ)."""
    for p in (np.array([[1.0, -3.0, 2.0], [1.0, -1.0, 0.0]]), np.array([[0.0, 1.0, 2.0]])):
        np.testing.assert_array_equal(vmap(cubic_roots)(p), np.stack([np.roots(r) for r in p]))


def test_special_functions_without_scipy_are_refused(monkeypatch):
    import importlib.util
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "scipy" else real(name, *a))

    def f(x):
        return math.erf(x) + 1.0
    with pytest.raises(VectorizeError, match="needs SciPy"):
        vectorize(f, fallback="error")(np.ones(3))


def test_a_range_of_per_example_length_is_refused_outside_a_reduction():
    def f(n):
        return np.cumsum(np.arange(n))[-1]     # (`len` of it is a reduction: its count)
    message = _refusal(f, np.array([1, 2]))
    assert "different length per example" in message and "test_numpy_ops.py" in message


def test_masked_ranges_read_like_numpy():
    source = vmap(series).source(np.ones(2), np.ones(2, dtype=np.int64))
    assert "where=np.arange(np.max(n, initial=0)) < n[:, None]" in source


def squares_of_range(x, n):
    return np.sum(np.arange(n) * np.arange(n) + x)


def test_a_range_met_twice_stays_under_its_reduction():
    """`np.arange(n)` twice in one reduction: shared_subexpressions must not name it (the
    reduction could no longer mask it); the result is the per-example loop's."""
    x, n = np.array([0.5, -1.0, 2.0, 3.0]), np.array([0, 1, 3, 5])
    expected = [squares_of_range(a, b) for a, b in zip(x, n)]
    np.testing.assert_array_equal(vmap(squares_of_range, fallback="error")(x, n), expected)
    np.testing.assert_array_equal(vectorize(squares_of_range, fallback="error")(x, n), expected)
