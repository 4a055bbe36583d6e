"""Wrong results found by the differential fuzzers at fresh seeds (sweep34), each checked
against numpy.vectorize itself (values and dtype)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from differential import outcome

from vectorize import vectorize

INF = math.inf


def _sub_from_int(x, y):
    return -3 - x            # benchmarks/fuzz_wide.py --backend torch, seed 114113


def _augmented(x, y):
    d = x
    d += y
    d -= 1j
    return d


def _complex_minus_float(x, y):
    return x - y             # an infinite float `y` made complex, then its product with 1


COMPLEX_INF = np.array([complex(INF, 0.0), complex(INF, 1.0), complex(-INF, 1.0),
                        complex(1.0, 2.0), complex(0.0, -0.0), complex(2.0, -INF)])
FLOATS = np.array([1.0, INF, -0.0, 2.0, -0.0, -INF])


@pytest.mark.parametrize("func", [_sub_from_int, _augmented, _complex_minus_float])
def test_torch_complex_add_sub_part_by_part_as_python(func):
    """CPython adds and subtracts complex numbers part by part (``-3 - complex(inf, 0.0)`` is
    ``-inf+0j``); PyTorch's complex add/sub multiplies its second operand by a complex 1,
    which made an infinite part a NaN imaginary part (``-inf+nanj``) under
    ``vectorize(backend="torch")``."""
    pytest.importorskip("torch")
    expected, exc = outcome(lambda: np.vectorize(func)(COMPLEX_INF, FLOATS))
    assert exc is None
    got, exc = outcome(lambda: vectorize(func, backend="torch", fallback="error")(
        COMPLEX_INF, FLOATS))
    assert exc is None, exc
    got = np.asarray(got)
    assert got.dtype == expected.dtype == np.complex128
    np.testing.assert_array_equal(got.real, expected.real)
    np.testing.assert_array_equal(got.imag, expected.imag)
    assert (np.signbit(got.imag) == np.signbit(expected.imag)).all()


def _quotients(x, y):
    return x / y + (y + 0.5) / x


def test_torch_complex_division_as_python():
    """CPython divides complex numbers by Smith's method (``_Py_c_quot``); PyTorch's kernel
    gave a different last bit on about half of the quotients under
    ``vectorize(backend="torch")``: now equal bit for bit, and a zero divisor still raises
    ZeroDivisionError."""
    pytest.importorskip("torch")
    rng = np.random.default_rng(34)
    x = rng.normal(size=64) + 1j * rng.normal(size=64)
    y = rng.normal(size=64)
    expected = np.vectorize(_quotients)(x, y)
    got = np.asarray(vectorize(_quotients, backend="torch", fallback="error")(x, y))
    assert got.dtype == expected.dtype == np.complex128
    np.testing.assert_array_equal(got, expected)
    y[3] = 0.0
    _, exc = outcome(lambda: np.vectorize(_quotients)(x, y))
    _, got_exc = outcome(lambda: vectorize(_quotients, backend="torch", fallback="error")(x, y))
    assert type(exc) is type(got_exc) is ZeroDivisionError
