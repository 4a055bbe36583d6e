"""NEP 50 programs where ``backend="jax"`` differed from NumPy's per-example code
(``benchmarks/fuzz_jax27.py`` nep50 seeds): each case runs ``vmap(f, backend="jax")`` on
NumPy arrays against the loop over NumPy scalars (values and dtype, or the same exception
type).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

pytest.importorskip("jax")

from differential import outcome

from vectorize import vmap  # noqa: E402


def _loop(f, *args):
    n = len(args[0])
    return np.stack([np.asarray(f(*[a[i] for a in args])) for i in range(n)])


def _same(got, expected):
    (value, exc), (want, want_exc) = got, expected
    if want_exc is not None:
        assert exc is not None and type(exc) is type(want_exc), (value, exc, want_exc)
        return
    assert exc is None, exc
    value = np.asarray(value)
    assert value.dtype == want.dtype, (value.dtype, want.dtype)
    np.testing.assert_array_equal(value, want)


def _vmap_as_loop(f, *args):
    _same(outcome(lambda: vmap(f, backend="jax")(*args)), outcome(lambda: _loop(f, *args)))


# 1. NumPy calls on Python numbers: a NumPy scalar per example, weakly typed in jnp


def floor_const_minus(x):
    return abs(300 - np.floor(7)) - x       # int64 293 - uint8 (jnp: wrapped in uint8)


def sqrt_const_plus(x):
    return x + np.sqrt(2)                   # float16 + float64 scalar: float64


def minus_floor_const(x):
    return abs(x - np.floor(255))           # float16 - int64: float64 (jnp: float16)


@pytest.mark.parametrize(("f", "dtype", "values"), [
    (floor_const_minus, "uint8", [0, 3, 200, 255]),
    (sqrt_const_plus, "float16", [0.1, 3.3, -2.5, 1000.0]),
    (minus_floor_const, "float16", [3.3, 5.0, -0.1, 60000.0]),
], ids=lambda c: getattr(c, "__name__", None))
def test_numpy_call_of_python_numbers_is_strongly_typed(f, dtype, values):
    _vmap_as_loop(f, np.array(values, dtype=dtype))



# 2. an integer to a negative integer power: NumPy raises ValueError, jnp computes a number


def int_power(x, y):
    return y ** y


def python_int_power(x, y):
    return 300 ** y


def ufunc_power(x, y):
    return np.power(x, y)


def power_in_branch(x, y):
    r = 0
    if y > 1:
        r = x ** (y - 3)            # y = 2 raises; y <= 1 does not compute the power
    return r


@pytest.mark.parametrize("f", [int_power, python_int_power, ufunc_power, power_in_branch],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("ys", [[3, -1, 0, 2], [1, 2, 3, 5], [3, 5, 0, -4]])
def test_int_to_negative_int_power_as_the_loop(f, ys):
    _vmap_as_loop(f, np.array([3, 5, 1, 2], dtype=np.int64), np.array(ys, dtype=np.int32))


# 3. the engine's checks where Python's numbers differ from NumPy's raise on lanes the loop
# computes (or, as written, where it returns): the per-example loop decides, as for NumPy


def ceil_of_uint64(x, y):
    r = math.ceil(np.negative(y))       # a float64 near 2**64: a Python int beyond int64
    r = y
    return r


def sign_of_ceil(x, y):
    r = np.sign(math.ceil(x))                # x near int64's limits: float64 rounds up
    r *= 2 + 0 * y
    return r


def divided_then_rebound(x, y):
    r = x
    r /= math.fmod(x, 3)                    # NumPy int8 / 0.0: inf, no ZeroDivisionError
    r = math.ceil(2 ** 40) == 0
    r %= x
    return r


@pytest.mark.parametrize(("f", "xs", "ys"), [
    (ceil_of_uint64, ("int64", [1, 2, 3]), ("uint64", [1, 2 ** 64 - 1, 2 ** 63])),
    (sign_of_ceil, ("int64", [1, 2 ** 63 - 1, -2 ** 63]), ("int16", [1, 2, 3])),
    (divided_then_rebound, ("int8", [1, 0, 4, 3]), ("float64", [1.0, 2.0, 3.0, 4.0])),
], ids=lambda c: getattr(c, "__name__", None))
def test_python_number_checks_replay_the_loop(f, xs, ys):
    _vmap_as_loop(f, np.array(xs[1], dtype=xs[0]), np.array(ys[1], dtype=ys[0]))


# 4. a per-example choice between an int32 and a float16: NumPy joins them in float64
# (the loop's stacked results), jnp.where in float16 (2**31 - 1 became inf)


def int_or_float16(x, y):
    r = np.fmod(y, y)
    if y > 0:
        r = x
    return r


def test_choice_joins_dtypes_as_numpy():
    _vmap_as_loop(int_or_float16, np.array([1, 2 ** 31 - 1, 4, 70000], dtype=np.int32),
                  np.array([1, 2, -3, 5], dtype=np.float16))


# 5. the builtin min of a float16 array and a NumPy int64: NumPy's minimum computes in
# float64, jnp.minimum in float16


def min_of_float16_and_int64(x, y):
    r = np.negative(70001)                  # beyond float16: -inf there
    return min(x, r) * y


def test_builtin_min_computes_in_numpys_dtype():
    _vmap_as_loop(min_of_float16_and_int64, np.array([0.5, -7.25, 65504.0, -3e4],
                                                     dtype=np.float16),
                  np.array([1.0, 3.0, -2.0, 0.1], dtype=np.float64))


# 6. an integer floor division by zero: NumPy gives 0, XLA -1 (or -2)


def divided_by_clip(x, y):
    r = x
    r //= np.clip(r, -1, 5)
    return r


def python_int_by_uint8(x, y):
    return 128 // x


@pytest.mark.parametrize(("f", "dtype"), [(divided_by_clip, "int16"),
                                          (python_int_by_uint8, "uint8")],
                         ids=lambda c: getattr(c, "__name__", c))
def test_integer_floor_division_by_zero_as_numpy(f, dtype):
    x = np.array([5, 0, 3, 0, 9], dtype=dtype)
    _vmap_as_loop(f, x, x)
