"""Results the JAX backend computed in another dtype or precision than the per-example code
(fuzz_jax27 nep50, fuzz_constructs --backend jax).

Each case runs ``vmap(f, backend="jax")`` on NumPy arrays against the loop over NumPy
scalars: the same dtype, and the same values (float64 within XLA's documented few ulps,
docs/jax.md "Divergences"; float16 exactly).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("jax")

from vectorize import VectorizeError, vmap  # noqa: E402


def _loop(f, args, in_axes=0):
    axes = (in_axes,) * len(args) if in_axes == 0 else in_axes
    size = next(len(a) for a, axis in zip(args, axes) if axis == 0)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        rows = [f(*[a if axis is None else a[i] for a, axis in zip(args, axes)])
                for i in range(size)]
    return np.stack([np.asarray(r) for r in rows])


def _check(f, *args, rtol=1e-12, joined=None, in_axes=0):
    """``joined``: the dtype vmap gives where the lanes' results have different types (the
    join of the branches' types, docs/semantics.md), the loop's cast to it."""
    want = _loop(f, args, in_axes)
    if joined is not None:
        want = want.astype(joined)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = vmap(f, in_axes=in_axes, backend="jax")(*args)
    assert isinstance(got, np.ndarray) and got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=0, equal_nan=True)


# ------------------------------------------ divmod of an int64 and a float16 (nep50 2077)
def divmod_quotient(x, y):
    return divmod(x, y)[0]


def np_divmod_remainder(x, y):
    return np.divmod(x, y)[1]


def divmod_chained(x, y):
    # the fuzzer's program: the quotient of a wide int64 by a float16 overflowed float16
    r = divmod(-x, y)[0]
    r = abs(r - y) if abs(r - y) < (r < y < 10) else (r < y < 10)
    return r


WIDE = np.array([2 ** 63 - 1, -2 ** 63, 9223372036854775508, 10 ** 16 + 7, 70000, -3],
                dtype=np.int64)
HALVES = np.array([9.414, 2.436, 2.0, 0.3, 7.0, 1.5], dtype=np.float16)


@pytest.mark.parametrize("f", [divmod_quotient, np_divmod_remainder])
def test_divmod_of_int64_and_float16_computes_in_float64(f):
    # NumPy's pair is float64 (the int64 beside a float16); jnp.divmod's was float16, which
    # holds no quotient beyond 65504
    _check(f, WIDE, HALVES)


def test_divmod_chained_comparison_of_wide_ints():
    # the branches join float64 (the quotient) and bool: the lanes' bools as float64
    _check(divmod_chained, WIDE, HALVES, joined=np.float64)


# ------------------------ float16 functions NumPy computes in float32 (nep50 1810: hypot)
def hypot_under_a_branch(x, y):
    # the fuzzer's program: the float16 hypot joined with a uint32 is float64, where one
    # ulp of float16 is far beyond float64's tolerance
    r = x
    if (y == 1) == 0:
        r = np.hypot(y + y, 1 ** -1)
    return r


def half_functions(x, y, z):
    # (no division by a constant: XLA multiplies by its reciprocal, docs/jax.md)
    return (np.arccos(z), np.arccosh(y), np.arcsin(z), np.arcsinh(y), np.arctanh(z),
            np.cosh(x), np.sinh(x), np.deg2rad(y), np.radians(y), np.rad2deg(y),
            np.degrees(y), np.exp2(x), np.expm1(x), np.hypot(y, x), np.log10(y), np.log2(y),
            np.logaddexp(x, z), np.logaddexp2(x, z), np.hypot(y, 2.5))


def shared_half_hypot(k, y):
    return np.hypot(k, 2.5) + y     # the same for every example: no rule rewrites it


def half_floor_division(x, y):
    return y // x, divmod(y, x)[0], np.floor_divide(x, y)


HALF_GRID = np.linspace(-350, 350, 1401).astype(np.float16)
HALF_OTHER = np.linspace(0.01, 11, 1401).astype(np.float16)
HALF_UNIT = np.linspace(-1, 1, 1401).astype(np.float16)


def test_hypot_of_float16_under_a_branch():
    y = np.linspace(0.3, 40, 200).astype(np.float16)
    # (every lane takes the branch: the loop's float16 results, vmap's join with uint32)
    _check(hypot_under_a_branch, np.arange(200, dtype=np.uint32), y, joined=np.float64)


def test_float16_functions_round_once_as_numpy():
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        # NumPy's own loops, on the arrays
        want = half_functions(HALF_OTHER, HALF_GRID, HALF_UNIT)
        got = vmap(half_functions, backend="jax")(HALF_OTHER, HALF_GRID, HALF_UNIT)
    for k, (g, w) in enumerate(zip(got, want, strict=True)):
        assert g.dtype == w.dtype == np.float16, k
        np.testing.assert_array_equal(g, w, err_msg=str(k))


def test_shared_float16_function():
    k = np.linspace(0.1, 60, 300).astype(np.float16)    # one vector, shared
    y = np.linspace(0.3, 40, 5).astype(np.float16)
    _check(shared_half_hypot, k, y, in_axes=(None, 0), rtol=0)


def test_float16_floor_division_in_float32():
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        want = half_floor_division(HALF_OTHER[::-1], HALF_GRID)
        got = vmap(half_floor_division, backend="jax")(HALF_OTHER[::-1], HALF_GRID)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype == np.float16
        np.testing.assert_array_equal(g, w)


# ------------ a uint64 difference on lanes where the value is no float (nep50 2229, NumPy too)
def uint_lanes_minus_uint64(x, y):
    r = 1 / x
    if y < 7:
        r = y           # a uint32 on these lanes, a float64 on the others
    r -= x              # per example uint32 - uint64 wraps below zero (2**64 - 7)
    return r


def python_int_lanes_minus_uint64(x, y):
    r = 0.5
    if y < 7:
        r = 255         # a Python int on these lanes: 255 - x is a uint64 there
    return r - x


@pytest.mark.parametrize("backend", ["numpy", "jax"])
@pytest.mark.parametrize("f", [uint_lanes_minus_uint64, python_int_lanes_minus_uint64])
def test_uint64_difference_on_lanes_of_mixed_types_is_refused(f, backend):
    # the batch held `r` in float64 on every lane and gave -7.0 where the loop gives
    # 18446744073709551609.0 (its uint64 stacked with the float lanes)
    x = np.array([1, 2, 262, 2 ** 63 + 5], np.uint64)
    y = np.array([3, 9, 2, 1], np.uint32)
    with pytest.raises(VectorizeError, match="wraps below zero") as info:
        vmap(f, backend=backend)(x, y)
    assert "^" in str(info.value)


# ------------- a Python int beyond the array's type inside a comparison chain (nep50 2347)
def int_between_in_a_chain(x, y):
    return y < -2 ** 40 < 10, 10 > 2 ** 40 > y, 10 < 2 ** 40 < y


def int_between_an_int_beyond(x, y):
    return y > -2 ** 40 > -2 ** 50      # -inf for -2 ** 40 is not above -2 ** 50


def test_python_int_inside_a_chain_is_compared_exactly():
    # `y < -2 ** 40` wrapped -2**40 into int32 (0): True for negative lanes, the loop False
    x = np.array([1, 2, 3, 4], np.uint64)
    y = np.array([-5, 0, 7, -2 ** 31], np.int32)
    got = vmap(int_between_in_a_chain, backend="jax")(x, y)
    for g, w in zip(got, zip(*[int_between_in_a_chain(a, b) for a, b in zip(x, y)]),
                    strict=True):
        np.testing.assert_array_equal(g, np.array(w))


def test_python_int_between_an_array_and_an_int_it_orders_otherwise_is_refused():
    x = np.array([1, 2], np.uint64)
    y = np.array([-5, 0], np.int32)
    with pytest.raises(VectorizeError, match="comparison chain") as info:
        vmap(int_between_an_int_beyond, backend="jax")(x, y)
    assert "^" in str(info.value)


# --------------- a quotient divided by a bool array (nep50 2332: divmod(x / x, bool(y)))
def quotients_by_bools(x, y):
    return (x / x) / (y != 0), (x / x) // (y != 0), divmod(x / x, bool(y))[0]


def test_quotient_by_a_bool_array_keeps_the_sign():
    # XLA computed (a / b) / c as a / (b * c), the product by bools as a select (+0): -inf
    # where x is negative and y zero, NumPy 1.0 / 0.0 = inf
    x = np.array([1, -3, 5, -7, 2], np.int8)
    y = np.array([0.0, 0.0, -0.0, 1.0, 2.0], np.float16)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        got = vmap(quotients_by_bools, backend="jax")(x, y)
        want = [np.stack(w) for w in zip(*[quotients_by_bools(a, b) for a, b in zip(x, y)])]
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def bools_by_a_root(x, y):
    return x / np.sqrt(y)


def test_bool_array_divided_by_a_root_keeps_nan():
    # (nep50 2588) XLA computed x / sqrt(y) as x * rsqrt(y), the product by bools as a
    # select: False / sqrt(0) and False / sqrt(-1) gave 0.0, NumPy nan
    x = np.array([False, True, False, False, True])
    y = np.array([0, 0, 4, -1, 9], np.int64)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        _check(bools_by_a_root, x, y, rtol=0)


# ---------- max/min of a narrow float and a Python int it cannot hold (nep50 2842, NumPy too)
def max_with_a_wide_int(x, y):
    return max(x, 2 ** 40), min(x, -2049)


def wide_int_max_then_arithmetic(x, y):
    r = y
    r -= max(x, 2 ** 40)      # float32 minus the Python int per example, float16 on others
    return r


@pytest.mark.parametrize("backend", ["numpy", "jax"])
def test_max_of_float16_and_an_int_it_cannot_hold(backend):
    # np.maximum(2 ** 40, x) of a float16 x was float16 inf (min: -2048.0 for -2049); the
    # lanes the int wins hold the int, the loop's results join in float64
    x = np.array([1.5, np.inf, np.nan, -3.0, -np.inf], np.float16)
    y = np.zeros(5, np.float32)
    got = vmap(max_with_a_wide_int, backend=backend)(x, y)
    rows = [max_with_a_wide_int(a, b) for a, b in zip(x, y)]
    for k, g in enumerate(got):
        want = np.stack([np.asarray(row[k]) for row in rows])
        assert g.dtype == want.dtype == np.float64
        np.testing.assert_array_equal(g, want)
    with pytest.raises(VectorizeError, match="differs between lanes"):
        vmap(wide_int_max_then_arithmetic, backend=backend)(x, y)
