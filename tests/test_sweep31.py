"""Wrong results found by the fuzzers at fresh seeds (sweep31).

``vmap(f, backend="jax")`` on NumPy arrays against the loop over NumPy scalars.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from vectorize import VectorizeError, vectorize, vmap


def _loop(f, args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        rows = [f(*[a[i] for a in args]) for i in range(len(args[0]))]
    return np.stack([np.asarray(r) for r in rows])


# ------------------------------------------- np.sign of -0.0 is 0.0 in NumPy (jax nep50 4008)
def sign_power(x, y):
    # the fuzzer's program: jnp.sign(-0.0) is -0.0, so the power was -inf where NumPy's is inf
    r = (np.sign(y) ** -1)
    return r


def sign_reciprocal(x):
    return 1 / np.sign(x)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_jax_sign_of_negative_zero_is_positive_zero(dtype):
    pytest.importorskip("jax")
    x = np.array([-0.0, 0.0, -2.5, 3.0, np.nan], dtype=dtype)
    for f, args in ((sign_power, (x, x)), (sign_reciprocal, (x,))):
        want = _loop(f, args)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            got = np.asarray(vmap(f, backend="jax")(*args))
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
        assert list(np.signbit(got)) == list(np.signbit(want))


def test_jax_sign_of_ints_unchanged():
    pytest.importorskip("jax")
    x = np.array([-3, 0, 7], dtype=np.int32)
    want = _loop(lambda v: np.sign(v) * 2, (x,))
    got = np.asarray(vmap(lambda v: np.sign(v) * 2, backend="jax")(x))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


# ------------------------ math.ceil of a NumPy float beyond int64 (jax nep50 4134, numpy too)
def ceil_of_numpy_floor(x, y):
    # the fuzzer's program: the loop's result is the exact Python int 10**300-ish (an
    # object array); the batch held it in int64: -2**63 on every lane
    r = math.ceil(np.floor(1e300))
    return r


def ceil_of_numpy_floor_plus(x, y):
    return math.floor(np.float32(3e38)) + x


@pytest.mark.parametrize("backend", ["numpy", "jax"])
@pytest.mark.parametrize("f", [ceil_of_numpy_floor, ceil_of_numpy_floor_plus])
def test_rounding_a_numpy_float_beyond_int64_is_refused(f, backend):
    if backend == "jax":
        pytest.importorskip("jax")
    x = np.arange(3, dtype=np.int32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loop = _loop_or_error(f, (x, x))
        assert loop is not None     # the reference: Python ints beyond int64 (or a raise)
        # refused, located, or the loop's own answer (its exact ints, or its exception, by
        # the per-example replay): never int64's -2**63
        try:
            got = vmap(f, backend=backend)(x, x)
        except VectorizeError as exc:
            assert "beyond int64" in str(exc)
            return
        except OverflowError:
            assert isinstance(loop, OverflowError)
            return
        assert not isinstance(loop, OverflowError)
        assert got.dtype == object and list(got) == loop


def _loop_or_error(f, args):
    try:
        out = [f(*[a[i] for a in args]) for i in range(len(args[0]))]
    except OverflowError as exc:
        return exc
    assert all(type(v) is int and abs(v) >= 2 ** 63 for v in out)
    return out


def test_vectorize_rounding_a_numpy_float_beyond_int64_is_numpy_vectorize():
    x = np.arange(3, dtype=np.int32)
    want = np.vectorize(ceil_of_numpy_floor)(x, x)
    assert want.dtype == object and want[0] == math.ceil(1e300)
    try:
        got = vectorize(ceil_of_numpy_floor)(x, x)
    except VectorizeError as exc:
        assert "beyond int64" in str(exc)
    else:
        assert got.dtype == object and list(got) == list(want)


# --------------- `%`/`//` by a negative constant of an int-or-float value (nep50 80024, vmap)
def mod_of_mixed_lanes(x, y):
    # int64 on some lanes, float64 on others: `0 % -1` is int 0 there (0.0 once stacked),
    # the batch's float `0.0 % -1` is -0.0
    r = x
    if x == 3:
        r = y
    return r % -1


def floordiv_of_mixed_lanes(x, y):
    r = x
    if x == 3:
        r = y
    return r // -2


@pytest.mark.parametrize("f", [mod_of_mixed_lanes, floordiv_of_mixed_lanes])
def test_vmap_negative_divisor_of_int_or_float_lanes_keeps_zero_signs(f):
    x = np.array([3, 0, -3, 0, 5], dtype=np.int64)
    y = np.array([-0.0, 0.5, 0.25, 0.5, 9.0])
    want = np.stack([np.asarray(f(x[i], y[i]), dtype=np.float64) for i in range(len(x))])
    try:
        got = vmap(f)(x, y)
    except VectorizeError as exc:
        assert "negative divisor" in str(exc)
    else:
        np.testing.assert_array_equal(got, want)
        assert list(np.signbit(got)) == list(np.signbit(want))
