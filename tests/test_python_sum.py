"""Python's builtin `sum` of a per-example array, bit for bit: Python iterates the row's items
(NumPy scalars, or rows of a matrix) and adds them LEFT TO RIGHT in their own dtype, from the
int 0 (or ``start``); ``np.sum`` adds in pairs, which changes the last bits where magnitudes
differ. `vectorize` against numpy.vectorize itself, `vmap` against the per-example loop (and
JAX's backend where it is installed): equal dtype, equal values, equal signs of zero, NaN where
NaN, at N = 0, 1, 5 and 10,000, row lengths 0 and up."""

from __future__ import annotations

import math
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vectorize import VectorizeError, vectorize, vmap

SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.1, 1e16, -1e16, 1e308, -1e308, 1e-308, 5e-324, -5e-324,
           math.nan, math.inf, -math.inf]
items = st.one_of(st.sampled_from(SPECIAL), st.floats(allow_nan=True, allow_infinity=True),
                  st.builds(lambda m, e: m * 10.0 ** e, st.floats(-10, 10), st.integers(-12, 12)))


def row_sum(v):
    return sum(v)


def row_sum_from(v, s):
    return sum(v, s)


def positive_sum(v):
    return sum(v[v > 0])


def same_bits(got, expected):
    """Equal dtype and shape, equal values bit for bit (NaN where NaN, signs of zero)."""
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    assert np.array_equal(got, expected, equal_nan=True), (got, expected)
    # signs of zeros (a NaN's sign is whichever operand NumPy's loop propagates)
    parts = (got, expected) if got.dtype.kind == "f" else (
        (got.real, expected.real), (got.imag, expected.imag)) if got.dtype.kind == "c" else ()
    for g, e in ([parts] if got.dtype.kind == "f" else parts):
        zero = (g == 0) & (e == 0)
        assert np.array_equal(np.signbit(g[zero]), np.signbit(e[zero])), (got, expected)


def quiet(call):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return call()


def check(f, *args, signature="(n)->()"):
    """`vectorize` against numpy.vectorize, `vmap` against the loop of NumPy rows."""
    expected = quiet(lambda: np.vectorize(f, signature=signature)(*args))
    same_bits(quiet(lambda: vectorize(f, signature=signature, fallback="error")(*args)),
              expected)
    loop = quiet(lambda: np.array([f(*per) for per in zip(*args)]))
    same_bits(quiet(lambda: vmap(f, fallback="error")(*args)), loop)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(items, min_size=8, max_size=8), min_size=1, max_size=6))
def test_rows_added_left_to_right(rows):
    check(row_sum, np.array(rows))


def test_rows_of_mixed_magnitudes():
    # the lead's reproduction: 32 of 50 rows differed from Python's sum in the last bits
    rng = np.random.default_rng(0)
    x = rng.standard_normal((50, 37)) * 10.0 ** rng.integers(-8, 8, (50, 37))
    check(row_sum, x)
    check(row_sum, x.astype(np.float32))       # float32 items add in float32
    check(row_sum, quiet(lambda: x.astype(np.float16)))
    check(row_sum, x[:, ::-1])                   # a view, not contiguous
    z = x[:, :36].reshape(50, 18, 2).copy().view(np.complex128)[..., 0]
    check(row_sum, z)


def test_signed_zeros_and_specials():
    x = np.array([[-0.0, -0.0], [-0.0, 0.0], [math.inf, -math.inf], [math.nan, 1.0],
                  [1e308, 1e308], [-1e308, -1e308], [5e-324, -5e-324]])
    check(row_sum, x)
    check(row_sum, np.array([[-0.0]]))
    check(row_sum, np.array([[complex(-0.0, -0.0)], [complex(1e16, -0.0)]]))


def test_matrix_items_are_rows():
    # per example a matrix: Python's sum adds its rows, elementwise, first to last
    rng = np.random.default_rng(1)
    m = rng.standard_normal((5, 9, 3)) * 10.0 ** rng.integers(-9, 9, (5, 9, 3))
    got = vmap(row_sum, fallback="error")(m)
    same_bits(got, np.array([row_sum(per) for per in m]))
    got = vectorize(row_sum, signature="(n,k)->(k)", fallback="error")(m)
    same_bits(got, np.vectorize(row_sum, signature="(n,k)->(k)")(m))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int64, np.bool_])
def test_integer_rows_keep_their_dtype(dtype):
    # int8 items add (and wrap) in int8, as Python adds NumPy scalars; bools give ints
    x = (np.arange(40).reshape(5, 8) * 37).astype(dtype)
    check(row_sum, x)


def test_start():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((20, 11)) * 10.0 ** rng.integers(-8, 8, (20, 11))
    s = rng.standard_normal(20) * 1e8
    check(row_sum_from, x, s, signature="(n),()->()")
    # a float32 row from a float64 start (NumPy scalars: float64 throughout)
    loop = np.array([row_sum_from(v, t) for v, t in zip(x.astype(np.float32), s)])
    same_bits(vmap(row_sum_from, fallback="error")(x.astype(np.float32), s), loop)
    loop = np.array([row_sum_from(v, t) for v, t in zip(x, s.astype(np.float32))])
    same_bits(vmap(row_sum_from, fallback="error")(x, s.astype(np.float32)), loop)


def test_selected_items():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((30, 17)) * 10.0 ** rng.integers(-8, 8, (30, 17))
    check(positive_sum, x)


def test_batch_sizes_and_empty_rows():
    rng = np.random.default_rng(4)
    for n in (1, 5, 10_000, 10_000):
        x = rng.standard_normal((n, 7)) * 10.0 ** rng.integers(-8, 8, (n, 7))
        check(row_sum, x)
    # N = 0: an empty batch keeps the result's shape
    assert vmap(row_sum)(np.zeros((0, 4))).shape == (0,)
    assert vectorize(row_sum, signature="(n)->()")(np.zeros((0, 4))).shape == (0,)
    # n = 0: Python's sum of an empty row is the int 0; numpy.vectorize gives int zeros
    empty = np.zeros((3, 0))
    same_bits(vectorize(row_sum, signature="(n)->()")(empty),
              np.vectorize(row_sum, signature="(n)->()")(empty))
    got = vmap(row_sum)(empty)      # (the loop's int 0s as the rule's float dtype)
    assert got.shape == (3,) and not got.any()


def test_jax_rows_added_left_to_right():
    jax = pytest.importorskip("jax")
    rng = np.random.default_rng(5)
    x = rng.standard_normal((40, 12)) * 10.0 ** rng.integers(-8, 8, (40, 12))
    with jax.enable_x64(True):      # (a float64 jax.Array; the process default left as it is)
        rows = jax.numpy.asarray(x)
    got = np.asarray(vmap(row_sum, backend="jax", fallback="error")(rows))
    same_bits(got, np.array([row_sum(v) for v in x]))


# ---------------------------------------------------------------------- sums of Python floats
# Python 3.12 adds Python floats (not NumPy scalars) with Neumaier's compensation: a display of
# per-example Python numbers follows the running interpreter (numpy.vectorize is the reference
# on it, whatever its version)

floats = st.one_of(st.sampled_from(SPECIAL), st.floats(-1e3, 1e3),
                   st.builds(lambda m, e: m * 10.0 ** e, st.floats(-10, 10), st.integers(-18, 18)))


def three(a, b, c):
    return sum([a, b, c])


def three_numpy_middle(a, b, c):
    return sum([a, np.float64(b), c])


def three_and_int(a, b, c):
    return sum((a, 2, b, c), 0.5)


def scaled(a, b, c):
    return sum([a * 1.0, b, -a, c, 1.0])


def same_as_numpy_vectorize(f, *args):
    same_bits(quiet(lambda: vectorize(f, fallback="error")(*args)),
              quiet(lambda: np.vectorize(f)(*args)))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(floats, floats, floats), min_size=1, max_size=8))
def test_python_floats_follow_the_interpreter(rows):
    a, b, c = (np.array(col) for col in zip(*rows))
    for f in (three, three_numpy_middle, three_and_int, scaled):
        same_as_numpy_vectorize(f, a, b, c)


def test_python_floats_cancelling():
    # 1e16 + 1.0 - 1e16: 0.0 left to right, 1.0 compensated (Python 3.12 and later)
    a = np.array([1e16, 1.0, 0.1, -0.0, math.inf, 1e308])
    b = np.array([1.0, 1e-17, 0.2, -0.0, 1.0, 1e308])
    c = np.array([-1e16, -1.0, 0.3, -0.0, -math.inf, -1e308])
    for f in (three, three_numpy_middle, three_and_int, scaled):
        same_as_numpy_vectorize(f, a, b, c)
    rng = np.random.default_rng(6)
    for n in (1, 5, 10_000):
        a, b, c = rng.standard_normal((3, n)) * 10.0 ** rng.integers(-9, 9, (3, n))
        same_as_numpy_vectorize(three, a, b, c)


def appended(a, b, c):
    out = []
    for t in (a, b, c):
        if t != 0.5:
            out.append(t)
    return sum(out)


def generated(a, b, c):
    return sum(t for t in (a, b, c) if t != 0.5)


@pytest.mark.parametrize("f", [appended, generated], ids=lambda f: f.__name__)
def test_float_sums_as_loops(f):
    # a loop adds left to right: Python 3.12's compensated sum of Python floats is refused
    # where it is written (the function then runs per example), the answer numpy.vectorize's
    a = np.array([1e16, 1.0, 0.1, 0.5, -0.0])
    b = np.array([1.0, 1e-17, 0.2, 0.5, -0.0])
    c = np.array([-1e16, -1.0, 0.3, 0.5, -0.0])
    same_bits(quiet(lambda: vectorize(f)(a, b, c)), quiet(lambda: np.vectorize(f)(a, b, c)))
    if sys.version_info >= (3, 12):
        with pytest.raises(VectorizeError, match=r"test_python_sum.py:\d+:\d+.*3\.12"):
            vectorize(f, fallback="error")(a, b, c)
    else:
        same_bits(vectorize(f, fallback="error")(a, b, c), np.vectorize(f)(a, b, c))
    if f is generated:      # ints add exactly in any order: never refused
        n = np.array([1, 2, 3])
        same_bits(vectorize(f, fallback="error")(n, n, n), np.vectorize(f)(n, n, n))
