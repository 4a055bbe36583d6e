"""Regressions found by `fuzz/hunt14_programs.py` (the math module and builtins at their edge
values, return structures, argument kinds and options, against numpy.vectorize itself), and
a bounded run of that generator. The long run is `benchmarks/fuzz_hunt14.py`."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from fuzz import hunt14_programs as hp
from fuzz.hunt14_programs import outcome, same

from vectorize import VectorizeError, VectorizeFallbackWarning, vectorize


def _check(f, *args, **options):
    """vectorize(f) (fallback="error") against numpy.vectorize(f): values, dtype, shape or
    the exception type."""
    expected, exc = outcome(np.vectorize(f, **options), args, {})
    got, got_exc = outcome(vectorize(f, fallback="error", **options), args, {})
    assert type(got_exc) is type(exc), (got_exc, exc)
    if exc is None:
        assert same(got, expected) is None, (got, expected)


def _add(a, b):
    return a + b


def _mix(a, b):
    return a * 2 + b * 1j


@pytest.mark.parametrize("f", [_add, _mix])
@pytest.mark.parametrize("args", [
    (np.array([1.0, 2.0]), np.array(-0.0 + 1j, dtype=np.complex64)),
    (np.array([1.0, 2.0], dtype=np.float32), np.array(3 + 1j, dtype=np.complex64)),
    (np.float64(2.0), np.array(-0.0 + 1j, dtype=np.complex64)),
    (np.array(-0.0 + 1j, dtype=np.complex64), np.array([1 + 1j, 2], dtype=np.complex64)),
])
def test_a_0d_complex64_argument(f, args):
    # its item is a Python complex per example: the widening of narrow arguments took it
    # for a NumPy scalar (AttributeError: 'complex' object has no attribute 'dtype')
    _check(f, *args)


def _int_or_float(a, b):
    x = math.sqrt(a)
    return math.factorial(abs(a) % 30) if x else x


@pytest.mark.parametrize("fallback", ["error", "warn"])
def test_signature_output_takes_the_first_examples_type(fallback):
    # numpy.vectorize(signature=...) makes its outputs of the first example's result type
    # (an int here, where another path gives a float): was float64 [6.], numpy gives int64 [6]
    a = np.array([3, 0, 4])
    expected = np.vectorize(_int_or_float, signature="(),()->()")(a, np.array([3.7]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = vectorize(_int_or_float, signature="(),()->()", fallback=fallback)(
            a, np.array([3.7]))
    assert same(got, expected) is None, (got, expected)
    assert got.dtype == np.int64
    # the first example on the float path: float64 for every example, as numpy gives
    _check(_int_or_float, np.array([0, 3]), np.array([1.0]), signature="(),()->()")


def test_generated_programs_equal_numpy_vectorize():
    kinds, failures = {}, []
    for seed in range(12):
        kind, detail, c = hp.run_seed(seed)
        kinds[kind] = kinds.get(kind, 0) + 1
        if kind in ("mismatch", "internal"):
            failures.append(f"seed {seed}: {kind} {hp.describe(c)}{detail[:800]}")
    assert not failures, "\n\n".join(failures)
    assert kinds.get("ok", 0) + kinds.get("raised", 0) >= 3, kinds     # (not vacuous)


def _exponent_scaled(a):
    return math.frexp(a)[1] * 100_000_000


def _exponent(a):
    m, e = math.frexp(a)
    return e


@pytest.mark.parametrize("f", [_exponent_scaled, _exponent, math.frexp])
def test_frexp_exponent_is_a_python_int(f):
    # np.frexp's exponent is an int32: was int32 results, and `e * 100_000_000` wrapped
    # (997 * 1e8 of 1e300 gave a negative number)
    _check(f, np.array([1e300, 1.5, -0.0, 5e-324, np.inf, np.nan]))


def _gcd(a, b):
    return math.gcd(a, b)


def _lcm(a, b):
    return math.lcm(a, b)


INT64_MIN = np.iinfo(np.int64).min


@pytest.mark.parametrize("f, a, b", [
    (_gcd, [INT64_MIN, 4], [0, 6]),             # 2**63 first: numpy.vectorize's uint64
    (_gcd, [4, INT64_MIN], [6, INT64_MIN]),     # 2**63 later: OverflowError storing it
    (_lcm, [2 ** 40, 3], [2 ** 40 - 1, 5]),     # beyond uint64 first: an object array
    (_lcm, [3, 2 ** 40], [5, 2 ** 40 - 1]),     # later: OverflowError
    (_lcm, [INT64_MIN, 3], [1, 5]),
    (_lcm, [0, 3, -4], [0, 5, 6]),
])
def test_gcd_and_lcm_beyond_int64(f, a, b):
    # np.gcd / np.lcm wrap in int64, where Python's ints do not: was -2**63 and
    # -1099511627776 where numpy.vectorize gives 2**63 (uint64), an object array of
    # 1208925819613529663078400 or OverflowError
    _check(f, np.array(a), np.array(b))


def _ordered_complex(a, b):
    n = int(a)
    y = (b + 0j) ** 0.5
    try:
        z = max(y, round(b, -1)) + n
    except ValueError:
        z = -1
    return z


def test_a_complex_power_the_same_for_every_example_stays_a_python_complex():
    # in a `try` body (code that runs on every lane) the power of Python numbers became a
    # NumPy complex128, which is ordered: was [10, 10], numpy.vectorize raises TypeError.
    # `max` of the Python complex raises for every example: the batch raises it too
    for args, options in (((np.array([1.0, 2.0]), 10), {"excluded": {1}}),
                          ((np.array([1.0, 2.0]), np.array(10)), {})):
        with pytest.raises(TypeError):
            np.vectorize(_ordered_complex, **options)(*args)
        with pytest.raises(TypeError):
            vectorize(_ordered_complex, fallback="error", **options)(*args)
        with warnings.catch_warnings(), pytest.raises(TypeError):
            warnings.simplefilter("ignore", VectorizeFallbackWarning)
            vectorize(_ordered_complex, **options)(*args)


def _pair_after_floor(a, b):
    return math.floor(b), a


def test_signature_with_too_many_outputs_raises_the_first_examples_error():
    # numpy.vectorize's first example raises OverflowError (floor of -inf) before it sees
    # two outputs for one: was ValueError("wrong number of outputs")
    _check(_pair_after_floor, 0.0, np.array([-np.inf, 1.0]), signature="(),()->()")
    _check(_pair_after_floor, 0.0, np.array([1.0, -np.inf]), signature="(),()->()")


def _bool_abs(a, b):
    return abs(b)


def _bool_neg(a, b):
    return -b


def _bool_plus(a, b):
    return b + True


def _bools_counted(a, b):
    return (a > 0) + (b > 0)


@pytest.mark.parametrize("f", [_bool_abs, _bool_neg, _bool_plus, _bools_counted])
@pytest.mark.parametrize("a, b", [
    (3, np.array([False, True])),
    (np.array([3, 4]), np.array([False, True])),
    (np.array([1.0, -2.5]), np.array([0.0, 2.0])),
])
def test_signature_examples_are_numpy_scalars(f, a, b):
    # with a signature numpy.vectorize hands each example NumPy scalars, whose bools are
    # NumPy's (`np.True_ + True` is True, `-np.True_` raises TypeError): the code counted
    # them as Python bools: was [1, 2] (int64) where numpy gives [True, True]
    _check(f, a, b, signature="(),()->()")


def _number_or_none(a, b):
    m = b - 63
    return a if m else None


@pytest.mark.parametrize("a, b", [
    (2, np.array([64, 65])),                    # int64 (no example gives None)
    (2, np.array([63, 65])),                    # object (the first gives None)
    (2, np.array([64, 63])),                    # TypeError storing None as an int
    (np.array([2, 3]), np.array([64, 65])),
    (np.array([2.5, 3.0]), np.array([64, 65])),
    (np.array([True, False]), np.array([64, 63])),   # bool: None stored as False
])
def test_a_number_or_none_takes_the_first_examples_type(a, b):
    # numpy.vectorize's output is the first example's type: was an object array [2, 2]
    # where numpy gives int64 [2, 2]
    _check(_number_or_none, a, b)


def _after_ldexp(a, b):
    x = math.ldexp(a, b)
    return 1 / (x - 8)


def _ldexp_then_exp2(a, b):
    x = math.ldexp(a, b)
    y = math.exp2(x)  # noqa: F841 -- (its OverflowError is the test)
    return b >> 70


@pytest.mark.parametrize("options", [{"otypes": "d"}, {}, {"signature": "(),()->()"}])
@pytest.mark.parametrize("f, a, b", [
    (_after_ldexp, [1.0, 2.0], [3, 2]),          # 1 / 0: ZeroDivisionError
    (_after_ldexp, [2.0, 3.0], [3, 1]),
    (_ldexp_then_exp2, [2.0, 64.0], [3, 255]),   # exp2(2**261): OverflowError
])
def test_checks_after_math_ldexp_of_an_int_exponent(f, a, b, options):
    # math.ldexp takes a Python int only: the analysis's example of the result (of an
    # np.int64 exponent) was unknown, and every check after it was dropped (was inf / no
    # OverflowError); numpy.vectorize's first call on NumPy scalars raises TypeError
    # without otypes, and so does every example with a signature
    _check(f, np.array(a), np.array(b), **options)


def _pow_of_an_unknown(a, b):
    x = 1 / math.ulp(a)
    y = math.pow(a, x)  # noqa: F841 -- (its OverflowError is the test)
    return math.modf(b)[0]


def test_a_math_function_of_an_operand_of_unknown_type_is_refused():
    # `math.ulp` has no batching rule: its result's type is unknown, and `math.pow` of it
    # had no check (was [0., 0.] where numpy.vectorize raises OverflowError)
    a, b = np.int64(65), np.array([2, 3])
    with pytest.raises(VectorizeError, match="cannot tell the type of an operand"):
        vectorize(_pow_of_an_unknown, otypes="d", fallback="error")(a, b)
    for a in (np.int64(65), np.int64(2)):
        expected, exc = outcome(np.vectorize(_pow_of_an_unknown, otypes="d"), (a, b), {})
        got, got_exc = outcome(vectorize(_pow_of_an_unknown, otypes="d", fallback="loop"),
                               (a, b), {})
        assert type(got_exc) is type(exc) and same(got, expected) is None, (got, got_exc)


def _ulp_of(a, b):
    return math.ulp(b)


@pytest.mark.parametrize("b", [np.array([1 + 1j, 2]), np.array([2, 1 + 1j]),
                               np.array([1 + 1j, 2], dtype=np.complex64)])
def test_a_per_example_call_gets_python_complex_numbers(b):
    # `math.ulp` has no batching rule: with fallback="warn" it runs per example, on NumPy
    # complex scalars, which `float()` converts (dropping the imaginary part): was
    # [2.2e-16, 4.4e-16] where numpy.vectorize raises TypeError (Python complex numbers)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected, exc = outcome(np.vectorize(_ulp_of), (0, b), {})
        got, got_exc = outcome(vectorize(_ulp_of, fallback="loop"), (0, b), {})
    assert type(got_exc) is type(exc) and same(got, expected) is None, (got, got_exc, exc)


def _divide(t, c):
    return t / c


def _through_a_helper(y):
    c = y + 1.0
    return _divide(y, c)


def _twice(x, g, n=2):
    for _ in range(n):
        x = g(x)
    return x


def _through_a_lambda(y):
    c = y + 1.0
    return _twice(y, lambda t: t / c)


@pytest.mark.parametrize("f", [_through_a_helper, _through_a_lambda])
def test_a_helpers_parameters_are_python_numbers_where_the_callers_are(f):
    # regression (merge of the signature fix above): a helper's per-example parameters were
    # taken for NumPy scalars, so its division lost its check: [0.5, -inf, 0.67] where
    # numpy.vectorize raises ZeroDivisionError
    x = np.array([1.0, -1.0, 2.0])
    with pytest.raises(ZeroDivisionError):
        np.vectorize(f)(x)
    with pytest.raises(ZeroDivisionError):
        vectorize(f, fallback="error")(x)
    np.testing.assert_array_equal(vectorize(f, fallback="error")(x[[0, 2]]),
                                  np.vectorize(f)(x[[0, 2]]))
