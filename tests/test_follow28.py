"""Wrong results found by the fuzzers: a Python int made per example (`math.floor`, `int`,
`round`) beside a narrow NumPy int under a ``signature`` (numpy.vectorize hands NumPy
scalars, and the Python int is weak beside one: NEP 50), and `math.ldexp` under `vmap` with
a NumPy-int exponent (TypeError per example). Each is checked against numpy.vectorize
itself (values and dtype, or the exception type) or the loop over NumPy scalars."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from vectorize import VectorizeError, vectorize, vmap


def _outcome(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            try:
                out = call()
            except Exception as exc:  # noqa: BLE001 -- the type is compared
                return None, type(exc)
    return out, None


WEAK_INT_FUNCTIONS = [
    lambda a, b: a ^ math.floor(b),          # benchmarks/fuzz_hunt14.py seed 7533
    lambda a, b: (a + math.floor(b)) * 1.0,  # int8 wraps before the float
    lambda a, b: a + int(b),
    lambda a, b: float(a * round(b)),
    lambda a, b: a - math.ceil(b) > 0,
]


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.uint16, np.int32])
@pytest.mark.parametrize("index", range(len(WEAK_INT_FUNCTIONS)))
def test_signature_python_int_is_weak_beside_narrow_int(index, dtype):
    f = WEAK_INT_FUNCTIONS[index]
    for a, b in [([1, -3, 5], [1.5, 2.7, -3.2]), ([100, -3, 5], [100.5, 2.7, -3.2]),
                 ([2, 3], [0.5, 7.9])]:
        with np.errstate(all="ignore"):
            x = np.array(a).astype(dtype)
        y = np.array(b)
        got, got_exc = _outcome(lambda x=x, y=y: vectorize(f, signature="(),()->()")(x, y))
        want, want_exc = _outcome(lambda x=x, y=y: np.vectorize(f, signature="(),()->()")(x, y))
        assert got_exc is want_exc
        if want_exc is None:
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got, want)


def test_vmap_ldexp_numpy_int_exponent_raises_or_refuses():
    g = lambda a, b: math.ldexp(a, b)  # noqa: E731
    x, n = np.array([1.0, 2.0]), np.array([1, 2])
    with pytest.raises(TypeError):
        [g(xi, ni) for xi, ni in zip(x, n)]
    with pytest.raises((TypeError, VectorizeError)):
        vmap(g)(x, n)


def test_vmap_ldexp_python_int_exponent_still_computes():
    x, n = np.array([1.0, 2.0]), np.array([1, 2])
    got = vmap(lambda a, b: math.ldexp(a, int(b)))(x, n)
    np.testing.assert_array_equal(got, [math.ldexp(float(a), int(b)) for a, b in zip(x, n)])
    np.testing.assert_array_equal(vmap(lambda a: math.ldexp(a, 3))(x), [8.0, 16.0])
