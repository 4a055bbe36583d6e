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

from vectorize import vmap  # noqa: E402


def _loop(f, args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        rows = [f(*[a[i] for a in args]) for i in range(len(args[0]))]
    return np.stack([np.asarray(r) for r in rows])


def _check(f, *args, rtol=1e-12, joined=None):
    """``joined``: the dtype vmap gives where the lanes' results have different types (the
    join of the branches' types, docs/semantics.md), the loop's cast to it."""
    want = _loop(f, args)
    if joined is not None:
        want = want.astype(joined)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = vmap(f, backend="jax")(*args)
    assert isinstance(got, np.ndarray) and got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=0)


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
