"""Wrong results the fuzzers found at fresh seeds (sweep33), each against the reference:
``vectorize`` against ``numpy.vectorize`` itself, ``vmap`` against the loop over NumPy
scalars.

JAX backend: XLA computes a product by bools converted to floats (``x * float(b)``) as the
select ``where(b, x, 0)``, 0.0 where ``x`` is infinite or NaN (Python: ``-inf * 0.0`` is
nan) and +0.0 where it is negative (fuzz_long --backend jax seed 112800:
``x * float(0.25 == v0)`` gave 0.0 for x = -inf, numpy.vectorize nan).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("jax")

from vectorize import vectorize, vmap  # noqa: E402

X = np.array([-np.inf, np.nan, np.inf, -2.0, 0.25, 3.0])


def times_float_of_compare(x):
    return x * float(0.25 == x)


def times_float64_of_compare(x):
    return x * np.float64(x > 0)


def times_sum_with_bool(x):
    b = 0.25 == x
    return x * (b + 0.0)


def times_difference_with_bool(x):
    return x * ((0.25 == x) - 0.0)


def fuzz_long_112800(x):
    v0 = x
    n0 = 0
    while n0 < 3:
        n0 += 1
    return x * float(0.25 == v0), np.clip(v0 - n0, -5.0, 0.5)


def ufunc_product(x):
    return np.multiply(x, x > 1)


def ufunc_sum_times(x):
    return x * np.add(x > 1, 0.0)


def times_astype(x):
    return x * (x == 0.25).astype(np.float64)


def _same(got, expected):
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    np.testing.assert_array_equal(got, expected)
    # (-0.0 and 0.0 compare equal: the signs too)
    assert np.array_equal(np.signbit(got), np.signbit(expected)), (got, expected)


def _quiet(call):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return call()


@pytest.mark.parametrize("f", [times_float_of_compare, times_float64_of_compare,
                               times_sum_with_bool, times_difference_with_bool,
                               fuzz_long_112800, ufunc_product, ufunc_sum_times],
                         ids=lambda f: f.__name__)
def test_jax_product_by_converted_bools_vectorize(f):
    expected = _quiet(lambda: np.vectorize(f)(X))
    got = _quiet(lambda: vectorize(f, fallback="error", backend="jax")(X))
    if isinstance(expected, tuple):
        for g, e in zip(got, expected):
            _same(g, e)
    else:
        _same(got, expected)
    # (the case has a product of an infinity or a NaN by a converted False: a NaN twice)
    assert np.isnan(expected[0] if isinstance(expected, tuple) else expected).sum() >= 2


@pytest.mark.parametrize("f", [times_float_of_compare, times_float64_of_compare,
                               times_sum_with_bool, times_astype, ufunc_product,
                               ufunc_sum_times],
                         ids=lambda f: f.__name__)
def test_jax_product_by_converted_bools_vmap(f):
    expected = _quiet(lambda: np.array([f(x) for x in X]))
    _same(_quiet(lambda: vmap(f, backend="jax")(X)), expected)


def bools_astype_float32(x):
    return (x > 0.5).astype(np.float32), x.astype(np.dtype("float32"))


def test_jax_astype_of_a_numpy_type_is_no_internal_error():
    """``b.astype(np.float64)`` under ``vmap(backend="jax")`` was an internal error
    (TypeError: 'getset_descriptor' object is not iterable): JAX's dtype of the call was
    asked with the type ``np.float64`` as an array operand."""
    x = np.array([0.25, 3.0, -1.0])
    expected = [np.array(r) for r in zip(*[bools_astype_float32(v) for v in x])]
    got = vmap(bools_astype_float32, backend="jax")(x)
    for g, e in zip(got, expected):
        _same(g, e)


def zero32_f106(a, c, k):
    r = (a > 1) if c > 0 else a * 0.5
    if a > 1:
        s = np.negative(r)
    else:
        s = a
    return s


def sign_of_bool_or_float(a, c, k):
    r = (a > 1) if c > 0 else a * 0.5
    return np.sign(r)


@pytest.mark.parametrize("f", [zero32_f106, sign_of_bool_or_float], ids=lambda f: f.__name__)
def test_numpy_function_of_a_python_bool_lane_raises(f):
    """fuzz_zero32 seed 113000 f106: ``np.negative(r)`` of ``r``, a Python bool on the
    examples where ``c > 0`` (``a > 1``) and a float on the others, returned -1.0 where
    numpy.vectorize raises TypeError (NumPy has no negative of a bool): the conditional
    expression's lane types were not recorded under ``vectorize``. Now checked at run time
    where a lane may hold the bool (tests/test_wrong34.py): numpy.vectorize decides, and
    raises."""
    a, c, k = np.array([-3.0, 1.5, 7.0]), np.array([1.0, 1.0, -1.0]), np.zeros(3, int)
    with pytest.raises(TypeError):
        _quiet(lambda: np.vectorize(f)(a, c, k))
    with pytest.raises(TypeError):
        _quiet(lambda: vectorize(f, fallback="error")(a, c, k))
    with pytest.raises(TypeError):
        _quiet(lambda: vectorize(f)(a, c, k))
