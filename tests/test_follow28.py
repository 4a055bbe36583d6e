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


RAGGED = {0: (1.0, 2.0), 1: (0.5, -1.0, 3.0), 2: (4.0,)}
EVEN = {0: (1.0, 2.0), 1: (0.5, -1.0), 2: (4.0, 3.0)}


def _ragged(x, y):
    t0 = RAGGED[(int(min(abs(y), 1e6)) % 3 if math.isfinite(y) else 2)]
    return float(t0[-1] * x + len(t0))


def _even(x, y):
    t0 = EVEN[(int(min(abs(y), 1e6)) % 3 if math.isfinite(y) else 2)]
    return t0[-1] * x + t0[0]


@pytest.mark.parametrize("n", [0, 5])
def test_torch_choice_between_tables_of_different_lengths_is_refused(n):
    pytest.importorskip("torch")
    x, y = np.linspace(-2, 2, n), np.linspace(-3, 7, n)
    with pytest.raises(VectorizeError, match="tables of different lengths"):
        vmap(_ragged, backend="torch")(x, y)


@pytest.mark.parametrize("backend", ["torch", "jax"])
@pytest.mark.parametrize("n", [0, 5])
def test_choice_between_tables_of_one_length_on_backends(backend, n):
    pytest.importorskip(backend)
    x, y = np.linspace(-2, 2, n), np.linspace(-3, 7, n)
    want = np.array([_even(a, b) for a, b in zip(x, y)], dtype=np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")     # (no fallback to the loop after a TypeError)
        got = np.asarray(vmap(_even, backend=backend)(x, y))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def _floor_mod(y):
    v = y * 1.0
    v %= -3.0
    return y // -3.0 + y % -3.0, v, y % 2.0


@pytest.mark.parametrize("api", ["vectorize", "vmap"])
def test_torch_float_remainder_zero_has_the_divisors_sign(api):
    pytest.importorskip("torch")
    y = np.array([0.0, -0.0, 3.0, -3.0, 6.0, 1.5, -4.5])   # fuzz_constructs seed 70
    if api == "vmap":
        got = [np.asarray(g) for g in vmap(_floor_mod, backend="torch")(y)]
        want = [np.array(w) for w in zip(*[_floor_mod(v) for v in y])]
    else:
        got = vectorize(_floor_mod, backend="torch")(y)
        want = np.vectorize(_floor_mod)(y)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
        np.testing.assert_array_equal(np.signbit(g), np.signbit(w))
