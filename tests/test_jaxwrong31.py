"""Results the JAX backend computed otherwise than the per-example code (fuzz_jax27 nep50,
fuzz_constructs/fuzz_wide/fuzz_long --backend jax at fresh seeds).

``vmap(f, backend="jax")`` on NumPy arrays against the loop over NumPy scalars, and
``vectorize(f, backend="jax")`` against numpy.vectorize itself.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

pytest.importorskip("jax")

from vectorize import vectorize, vmap  # noqa: E402


def _loop(f, args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        rows = [f(*[a[i] for a in args]) for i in range(len(args[0]))]
    return np.stack([np.asarray(r) for r in rows])


def _vmap(f, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return vmap(f, backend="jax")(*args)


# ------------------------------------------------------- np.hypot rounded as NumPy's (nep50 3017)
def hypot_mod(x, y):
    # the fuzzer's program: an ulp of the hypotenuse, cancelled by the subtraction and the
    # remainder, was a relative error of 2.4e-15
    r = (np.float32(x) - np.hypot(y, x))
    r %= np.fmod(7, y)
    return r


def plain_hypot(x, y):
    return np.hypot(x, y)


def math_hypot(x, y):
    return math.hypot(x, y)


def test_hypot_mod_of_the_fuzzer():
    x = np.array([-7.0, 3.0, 2.0, 3.0, 0.5], dtype=np.float64)
    y = np.array([-2, -2, 3, 2, 9], dtype=np.int16)
    want = _loop(hypot_mod, (x, y))
    got = _vmap(hypot_mod, x, y)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-15, atol=0)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_hypot_is_numpys_rounding(dtype):
    # jnp.hypot is an ulp from NumPy's on about a third of these pairs (3.6055512754639896 for
    # (3, 2)); NumPy's C hypot is correctly rounded on all but a few in a thousand
    rng = np.random.default_rng(31)
    x = np.concatenate([rng.integers(-40, 40, 300), rng.uniform(-10, 10, 300)]).astype(dtype)
    y = np.concatenate([rng.integers(-40, 40, 300), rng.uniform(-10, 10, 300)]).astype(dtype)
    got = _vmap(plain_hypot, x, y)
    want = np.hypot(x, y)
    assert got.dtype == want.dtype
    assert np.count_nonzero(got != want) <= 6, np.count_nonzero(got != want)
    np.testing.assert_array_max_ulp(got, want, maxulp=1)


def test_hypot_special_values():
    sp = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e308, -1.7e308, 3.0, -4.0, 1e-300])
    x, y = (a.ravel() for a in np.meshgrid(sp, sp))
    got = _vmap(plain_hypot, x, y)
    with np.errstate(all="ignore"):
        want = np.hypot(x, y)
    np.testing.assert_array_equal(got, want)


def test_math_hypot_under_vectorize_is_pythons():
    x = np.array([3.0, -7.0, 2.0, 1e200, 0.0])
    y = np.array([2.0, -2.0, 3.0, 3e199, -0.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = vectorize(math_hypot, backend="jax")(x, y)
    want = np.vectorize(math_hypot)(x, y)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_hypot_gradient():
    import jax
    import jax.numpy as jnp
    with jax.enable_x64(True):
        x = jnp.array([3.0, -7.0, 0.5])
        y = jnp.array([2.0, -2.0, 1e-3])
        grad = jax.grad(lambda a: jnp.sum(vmap(plain_hypot)(a, y)))(x)
        np.testing.assert_allclose(np.asarray(grad), np.asarray(x / jnp.hypot(x, y)),
                                   rtol=1e-12)


# ------------------- a math function raising on constants every example computes (nep50 3188)
def ceil_of_nan_overwritten(x, y):
    # the fuzzer's program: every example raises ValueError at `math.ceil`; the batch wrote
    # NumPy's ceil (nan, no exception) and returned x * x
    r = (round((round(-2, 1)), 1))
    r = math.ceil(np.sqrt(r))
    r = x
    r *= r
    return r


def ceil_of_nan_constant(x, y):
    r = math.ceil(float("nan"))  # noqa: F841 -- raises on every example
    return x + y


@pytest.mark.parametrize("backend", ["numpy", "jax"])
@pytest.mark.parametrize("f", [ceil_of_nan_overwritten, ceil_of_nan_constant])
def test_math_raising_on_constants_raises(f, backend):
    x, y = np.array([True, False]), np.array([1, 2], dtype=np.uint64)
    with pytest.raises(ValueError):
        f(x[0], y[0])
    with warnings.catch_warnings(), pytest.raises(ValueError):
        warnings.simplefilter("ignore")
        vmap(f, backend=backend)(x, y)
    with warnings.catch_warnings(), pytest.raises(ValueError):
        warnings.simplefilter("ignore")
        vectorize(f, backend=backend)(x, y)



# ----------------------------------------- `try` under vmap on JAX (fuzz_constructs: refused)
def try_division_of_python_floats(a, b, c):
    try:
        r = float(a) / float(b)
    except ZeroDivisionError:
        r = c
    return r


def try_sqrt(a, b, c):
    try:
        r = math.sqrt(a)
    except ValueError:
        r = -1.0
    return r + b


def try_log_else(a, b, c):
    try:
        r = math.log(a)
    except (ValueError, TypeError):
        r = c
    else:
        r = r + b * 1.0
    return r


def try_in_handler(a, b, c):
    try:
        r = math.sqrt(a)
    except ValueError:
        try:
            r = 1.0 / float(a + b)
        except ZeroDivisionError:
            r = c
    return r


def try_int_of_nan(a, b, c):
    try:
        r = int(a / b)
    except (ValueError, OverflowError):
        r = -7
    return r


def try_factorial(a, b, c):
    try:
        r = math.factorial(int(c) - 4)
    except ValueError:
        r = 0
    return r


TRIES = [try_division_of_python_floats, try_sqrt, try_log_else, try_in_handler,
         try_int_of_nan, try_factorial]


@pytest.mark.parametrize("f", TRIES)
def test_try_under_vmap_on_jax_is_the_loops(f):
    # the lanes that raise take the handler, as in the loop over NumPy scalars (before: every
    # `try` was refused on JAX)
    a = np.array([4.0, -1.0, 0.0, 2.5, -3.0, 1e300, np.nan, np.inf, 3.0, 1.5])
    b = np.array([0.0, 2.0, 0.0, -2.5, 3.0, 1.0, 1.0, 0.0, 0.0, 2.0])
    c = np.arange(10.0)
    want = _loop(f, (a, b, c))
    got = _vmap(f, a, b, c)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)
