"""Results XLA folded or computed otherwise than NumPy under ``backend="jax"``
(fuzz_jax27 nep50 seeds 250-1249).

Each case runs ``vmap(f, backend="jax")`` on NumPy arrays against the loop over NumPy
scalars: the same values and dtype, or the same exception type.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

pytest.importorskip("jax")

from differential import outcome

from vectorize import vmap  # noqa: E402

INT64_MIN = np.iinfo(np.int64).min


def sqrt_of_abs(y):
    return math.sqrt(abs(y))


def abs_negative_halved(y):
    return np.abs(y) < 0, abs(y) // 2


def sqrt_of_square(y):
    return math.sqrt(y * y)


def squared_negative(y):
    return y ** 2 < 0, np.square(y) < 0, pow(y, 4) < 0, np.power(y, 2) >= 0


def _loop(f, args):
    rows = [f(*[a[i] for a in args]) for i in range(len(args[0]))]
    if isinstance(rows[0], tuple):
        return tuple(np.stack([np.asarray(r[k]) for r in rows]) for k in range(len(rows[0])))
    return np.stack([np.asarray(r) for r in rows])


def _same(got, expected):
    (value, exc), (want, want_exc) = got, expected
    if want_exc is not None:
        assert exc is not None and type(exc) is type(want_exc), (value, exc, want_exc)
        return
    assert exc is None, exc
    values, wants = (value, want) if isinstance(want, tuple) else ((value,), (want,))
    for v, w in zip(values, wants, strict=True):
        assert isinstance(v, np.ndarray) and v.dtype == w.dtype, (v, w)
        np.testing.assert_array_equal(v, w)


def _check(f, *args):
    expected = outcome(lambda: _loop(f, args))
    _same(outcome(lambda: vmap(f, backend="jax")(*args)), expected)
    return expected


@pytest.mark.parametrize("f", [sqrt_of_abs, abs_negative_halved],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", ["int64", "int16"])
def test_abs_of_the_minimum_wraps(f, dtype):
    """``abs`` of a signed integer's minimum is the minimum (negative): XLA took ``abs``
    for non-negative and folded ``abs(y) < 0`` (the check of ``math.sqrt``) to False, so
    ``math.sqrt(abs(y))`` returned NaN where the loop raises ValueError (fuzz_jax27 nep50
    seeds 371, 385, 417), and divided ``abs(y) // 2`` as a non-negative number."""
    y = np.array([np.iinfo(dtype).min, 3, -4], dtype=dtype)
    _check(f, y)


@pytest.mark.parametrize("f", [sqrt_of_square, squared_negative], ids=lambda f: f.__name__)
def test_square_of_a_signed_integer_wraps(f):
    """A signed integer times itself wraps to negative values (``int16(255) ** 2`` is
    -511), which XLA took for non-negative (``y * y < 0`` folded to False)."""
    _check(f, np.array([255, 3, -4], dtype=np.int16))
    _check(f, np.array([3037000500, 3, -4], dtype=np.int64))


def divmod_by_bool(x, y):
    return divmod(x, y == x)


def np_divmod(x, y):
    return np.divmod(x, y)


def test_divmod_quotient_by_zero_is_numpy_s():
    """The quotient of an integer ``divmod`` by zero is 0 as NumPy's (``jnp.divmod`` gave
    XLA's -1, or the type's maximum for unsigned types: fuzz_jax27 nep50 seed 620)."""
    _check(divmod_by_bool, np.array([5, 0, 7], dtype=np.uint32), np.array([1, 0, 2], np.uint32))
    _check(np_divmod, np.array([5, -5, 7], dtype=np.int64), np.array([0, 0, -2], np.int64))


def power_of_constant_expression(x, y):
    return y ** (1 % -2) + x


def power_of_local(x, y):
    k = -1
    return y ** k


def test_integer_to_a_negative_exponent_the_same_for_every_example_raises():
    """NumPy raises ValueError for an integer to a negative integer power; where the
    exponent is the same for every example (``y ** (1 % -2)``, a local ``k = -1``) the
    check was taken for one Python computes itself, and JAX computed garbage (fuzz_jax27
    nep50 seed 480)."""
    x, y = np.array([2, 3, -4], dtype=np.int64), np.array([2, 3, -4], dtype=np.int16)
    for f in (power_of_constant_expression, power_of_local):
        assert _check(f, x, y)[1] is not None


def powers(x, e):
    r = x
    r **= e
    return 300 ** e, x ** e, np.power(x, e), pow(x, e), r


@pytest.mark.parametrize("dtype", ["uint32", "int64"])
def test_integer_power_of_a_large_exponent_array(dtype):
    """An integer to a per-example integer power of 64 or more wraps as NumPy's (an even
    base's powers are 0, an odd one's cycle); ``jnp.power`` used the exponent's low 6 bits
    only (``300 ** e``: fuzz_jax27 nep50 seeds 321, 469)."""
    x = np.array([3, 2, 7, 5, 0, 1], dtype=dtype)
    e = np.array([2 ** 31 + 5, 64, 65, 7, 100, 2 ** 30], dtype=dtype)
    _check(powers, x, e)


def reciprocal_of_remainder(x, y):
    r = x
    r %= y
    return 1 / (x % y), 1 / np.remainder(x, y), 1 / divmod(x, y)[1], 1 / r


def test_zero_remainder_has_the_divisor_s_sign():
    """A float remainder that is zero has the divisor's sign in Python and NumPy
    (``-0.0 % 1.0`` is 0.0); ``jnp.remainder`` kept the dividend's, so ``1 / (x % y)``
    was -inf where the loop gives inf (fuzz_jax27 nep50 seed 585)."""
    x = np.array([-0.0, 0.0, -3.0, 3.0, -1.0, 2.5])
    y = np.array([1.0, -1.0, 3.0, -3.0, np.inf, -0.5])
    _check(reciprocal_of_remainder, x, y)


def to_ints(x):
    return np.int64(x), x.astype(int), np.abs(np.int64(x)), x.astype(np.int32), \
        x.astype(np.int16), np.int8(x)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_non_finite_float_to_signed_int_as_numpy(dtype):
    """NumPy converts NaN, infinities and floats beyond the range to int64 / int32 as the
    most negative value (to int16 / int8 through int32); XLA gave the largest for inf and 0
    for NaN (fuzz_jax27 nep50 seeds 376, 883, 1207, 1217)."""
    with np.errstate(over="ignore"):
        x = np.array([np.nan, np.inf, -np.inf, 2.5, -7.9, 60000.0, 1e19, -3e9]).astype(dtype)
    _check(to_ints, x)


def clip_minus_one(x):
    return np.clip(x, -1, 5)


def clip_above(x):
    return np.clip(x, 2, 300)


def clip_bound_beyond(x):
    return np.clip(x, 300, 400)


@pytest.mark.parametrize("f", [clip_minus_one, clip_above, clip_bound_beyond],
                         ids=lambda f: f.__name__)
def test_clip_with_python_int_bounds_beyond_the_type(f):
    """NumPy takes a lower bound below an integer array's type as no bound (an upper one
    above it too) and raises OverflowError for one on the wrong side; ``jnp.clip`` wrapped
    -1 to the type's maximum (``np.clip(x, -1, 5)`` of uint64 was 5 everywhere: fuzz_jax27
    nep50 seeds 435, 901, 943)."""
    for dtype in ("uint8", "uint64"):
        _check(f, np.array([0, 3, 9, 200], dtype=dtype))


def python_bool_product(x, y):
    r = bool(np.negative(-2))
    r = min(r * r, y)
    r -= y
    return r


def test_python_bool_operands_stay_python_s():
    """``r * r`` of a Python bool the same for every example is Python's int 1, weak beside
    a uint64 array; it was converted to an int64 array, which NumPy and JAX join with uint64
    in float64 (float64 results where the loop gives uint64: fuzz_jax27 nep50 seed 939)."""
    y = np.array([0, 3, 2 ** 64 - 3, 2 ** 63 + 1], dtype=np.uint64)
    _check(python_bool_product, np.zeros(4, np.int32), y)


def exp_ratio(x):
    r = np.exp(x)
    return r / r


def test_xla_rewrites_exp_ratio_documented_divergence():
    """docs/jax.md "Divergences": XLA computes ``exp(a) / exp(b)`` as ``exp(a - b)``, finite
    where both exponentials overflow (the loop: ``inf / inf``, nan; fuzz_jax27 nep50 seed
    495). If XLA stops rewriting it, this fails: drop the row."""
    x = np.array([1000.0, 1.0])
    with np.errstate(all="ignore"):
        assert np.isnan(exp_ratio(x[0]))
    got = vmap(exp_ratio, backend="jax")(x)
    assert got[0] == 1.0 and got[1] == 1.0


def python_error_in_a_branch(x, y):
    r = bool(np.hypot(y, 0))
    if (r == 300) > x:
        r = (-0.0 << 2) << 2        # Python raises TypeError, only where a lane gets here
    elif divmod(-2, r)[1] > 0 and y < 3:
        r = y
    else:
        r = x
    r = x
    return r


def test_python_error_in_a_branch_no_lane_takes():
    """Every lane computes both sides of a per-example ``if`` under JAX; Python's
    TypeError of ``-0.0 << 2`` there escaped where the loop, whose lanes never take the
    branch, returns (fuzz_jax27 nep50 seed 1543): the loop decides, as on NumPy."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = np.array([1, 0, 3], dtype=np.uint32)
        _check(python_error_in_a_branch, np.array([1, 2, 3], dtype=np.int64), y)
        assert _check(python_error_in_a_branch, np.array([1, -2, 3], dtype=np.int64), y)[1]
