"""Wrong results found by the fuzzers at fresh seeds (sweep31).

``vmap(f, backend="jax")`` on NumPy arrays against the loop over NumPy scalars.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from vectorize import vmap


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
