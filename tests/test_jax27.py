"""Python ints meeting integer arrays under ``backend="jax"`` (`backends.jax.ints`).

``jax.numpy`` wraps a Python int into a narrow integer array's type (-2 is 254 for
uint8), where NumPy, per example, compares it exactly (``np.uint8(3) > -2`` is True) and
raises ``OverflowError`` in arithmetic (``np.uint8(3) + -2``). Each case runs
``vmap(f, backend="jax")`` on NumPy arrays against the loop over NumPy scalars (values and
dtype, or the same exception type), and ``vectorize(f, backend="jax")`` against
numpy.vectorize itself.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("jax")

from differential import outcome

from vectorize import vectorize, vmap  # noqa: E402

LIMIT = -1          # a global the code compares with
BIG = 2 ** 70


def gt_minus_two(x):
    return x > -2


def minus_two_lt(x):
    return -2 < x


def chained(x):
    return -2 < x < 10


def eq_minus_one(x):
    return x == -1


def ne_global(x):
    return x != LIMIT


def lt_300(x):
    return x < 300


def gt_big(x):
    return x > BIG


def ge_arg(x, k):
    return x >= k


def add_minus_two(x):
    return x + -2


def times_300(x):
    return x * 300


def floor_div(x):
    return x // -3


def bit_and(x):
    return x & -2


def builtin_max(x):
    return max(x, -2)


def builtin_min(x):
    return min(x, 1000)


def ufunc_maximum(x):
    return np.maximum(x, -2)


def under_condition(x):
    r = x
    if x > 250:
        r = x + -1      # an OverflowError only for the examples above 250
    return r


def divmod_minus_two(x):
    return divmod(x, -2)[1]


def add_arg(x, k):
    return x + k


def branchy(x, y):
    """fuzz_jax27 nep50 seed 0 (uint64, uint32): the middle branch's `-2 < x < 10`."""
    r = divmod(np.int64(y), x)[1]
    if np.exp(-3.5) < 0:
        r = (x ** 2) ** r
    elif 0 < math.sqrt(abs(-3.5)) <= x:
        r = (-2 < x < 10) * 0.5
    else:
        r = np.exp(x) < (1e300 if 1e300 < x else x) < 10
    return r


def masked(x):
    return x * (x > 1)


def masked_in_place(x):
    r = x
    r *= x < 10
    return r


def masked_rows(v, t):
    return (t > 0) * v         # a per-example vector times a per-example bool


def _loop(f, args, batched):
    n = len(next(a for a, b in zip(args, batched) if b))
    rows = [f(*[a[i] if b else a for a, b in zip(args, batched)]) for i in range(n)]
    return np.stack([np.asarray(r) for r in rows])


def _same(got, expected):
    (value, exc), (want, want_exc) = got, expected
    if want_exc is not None:
        assert exc is not None and type(exc) is type(want_exc), (value, exc, want_exc)
        return
    assert exc is None, exc
    assert isinstance(value, np.ndarray)
    if value.dtype != want.dtype:
        # lanes of different types (`max(x, -2)`: an int8 on some, the Python int on
        # others): `vmap` gives every lane the join of their types (docs/semantics.md)
        # (the loop's stack of both: int64, or float64 beside a uint64)
        assert value.dtype.kind in "iu" and want.dtype in (np.int64, np.float64), \
            (value.dtype, want.dtype)
        assert [int(v) for v in value] == [int(v) for v in want], (value, want)
        return
    np.testing.assert_array_equal(value, want)


INTS = {
    "uint8": [0, 3, 9, 200, 255],
    "uint64": [0, 3, 9, 2 ** 64 - 1, 2 ** 63],
    "int8": [-128, -2, -1, 9, 127],
}
ONE_ARG = [gt_minus_two, minus_two_lt, chained, eq_minus_one, ne_global, lt_300, gt_big,
           add_minus_two, times_300, floor_div, bit_and, builtin_max, builtin_min,
           ufunc_maximum]


CASES = [(f, "uint8") for f in ONE_ARG] + [
    (f, "int8") for f in (lt_300, times_300, gt_big, builtin_max, divmod_minus_two)] + [
    (divmod_minus_two, "uint8")] + [
    (f, "uint64") for f in (gt_minus_two, chained, eq_minus_one, add_minus_two, builtin_max)]


@pytest.mark.parametrize(("f", "dtype"), CASES, ids=lambda c: getattr(c, "__name__", c))
def test_python_int_operand_as_the_loop(f, dtype):
    x = np.array(INTS[dtype], dtype=dtype)
    expected = outcome(lambda: _loop(f, [x], [True]))
    _same(outcome(lambda: vmap(f, backend="jax")(x)), expected)


@pytest.mark.parametrize("k", [-1, 300, 2 ** 64])
@pytest.mark.parametrize("f", [ge_arg, add_arg], ids=lambda f: f.__name__)
def test_python_int_argument_as_the_loop(f, k):
    """An int argument shared by every example (static under jit: its value is known when
    the code is traced); a new value is checked again."""
    vf = vmap(f, in_axes=(0, None), backend="jax")
    for dtype in ("uint8", "int8"):
        x = np.array(INTS[dtype], dtype=dtype)
        expected = outcome(lambda x=x: _loop(f, [x, k], [True, False]))
        _same(outcome(lambda x=x: vf(x, k)), expected)


@pytest.mark.parametrize("values", [[3, 5, 0], [3, 255, 0]])
def test_out_of_bounds_int_under_a_condition(values):
    """NumPy's batched code raises for the whole batch, the per-example code only for the
    examples above 250: the loop decides, also on a warm call."""
    x = np.array(values, dtype=np.uint8)
    expected = outcome(lambda: _loop(under_condition, [x], [True]))
    vf = vmap(under_condition, backend="jax")
    for _ in range(2):
        _same(outcome(lambda: vf(x)), expected)


def test_fuzz_program_uint64():
    x = np.array([3, 20, 0, 5, 1], dtype=np.uint64)
    y = np.array([1, 2, 3, 4, 5], dtype=np.uint32)
    expected = outcome(lambda: _loop(branchy, [x, y], [True, True]))
    _same(outcome(lambda: vmap(branchy, backend="jax")(x, y)), expected)


@pytest.mark.parametrize("f", [gt_minus_two, chained, eq_minus_one, add_minus_two,
                               builtin_max], ids=lambda f: f.__name__)
def test_vectorize_as_numpy_vectorize(f):
    x = np.array(INTS["uint8"], dtype=np.uint8)
    expected = outcome(lambda: np.vectorize(f)(x))
    _same(outcome(lambda: vectorize(f, backend="jax")(x)), expected)


def test_in_range_ints_are_written_as_before():
    """A literal that fits the type needs no helper: the generated code is unchanged."""
    x = np.array([1, 2], dtype=np.uint8)
    assert "int_" not in vmap(lambda_free, backend="jax").source(x)
    assert "int_compared(-2, 'uint8')" in vmap(gt_minus_two, backend="jax").source(x)


def lambda_free(x):
    return (x > 2) & (x + 1 < 200)


FLOATS = np.array([np.nan, -3.0, np.inf, -np.inf, 2.0, -0.0, 12.0], dtype=np.float32)


@pytest.mark.parametrize("f", [masked, masked_in_place], ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_float_times_bool_array_as_numpy(f, dtype):
    """XLA multiplies by bools as a select (NaN * False is 0 there, -3.0 * False +0.0):
    the loop's NaN and -0.0."""
    x = FLOATS.astype(dtype)
    expected = _loop(f, [x], [True])
    got = vmap(f, backend="jax")(x)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)
    assert np.array_equal(np.signbit(got.real), np.signbit(expected.real))


def test_vector_times_bool_as_numpy():
    v = np.stack([FLOATS[:3], FLOATS[3:6], FLOATS[4:]])
    t = np.array([-1.0, 2.0, -0.5])
    expected = _loop(masked_rows, [v, t], [True, True])
    got = vmap(masked_rows, backend="jax")(v, t)
    np.testing.assert_array_equal(got, expected)
    assert np.array_equal(np.signbit(got), np.signbit(expected))
    assert list(vectorize(masked, backend="jax")(FLOATS.astype(float))) == \
        pytest.approx(list(np.vectorize(masked)(FLOATS.astype(float))), nan_ok=True)
