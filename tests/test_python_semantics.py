"""`vectorize` against `numpy.vectorize` itself: Python numbers per example.

Wherever numpy.vectorize returns, `vectorize` returns equal values, dtype and shape; wherever
it raises for some example, `vectorize` raises the same exception type with the same message
(the first failing example's). Inputs include zeros, -0.0, NaN, inf, huge ints, empty
batches, at N = 0, 1, 5 and a large repeated call (docs/semantics.md, "Exceptions").
"""

from __future__ import annotations

import builtins
import logging
import math
import warnings

import numpy as np
import pytest
import python_semantics_functions as psf
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from vectorize import pymath, vectorize

FLOATS = st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                   st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1e308, -1e308, 5e-324,
                                    0.0005, 2.6985, 2.675, 709.8, 710.0, -1.5, 1e155]))
INTS = st.one_of(st.integers(-2 ** 63, 2 ** 63 - 1),
                 st.sampled_from([0, 1, -1, 2, 55108, 55109, -55109, 2 ** 62, -2 ** 63,
                                  2 ** 63 - 1, 3037000499, 3037000500]))
SMALL_INTS = st.integers(-50, 50)


def _outcome(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return call(), None
        except Exception as exc:  # noqa: BLE001 -- compared below
            return None, exc


ZERO_SIGN_MAY_DIFFER = {"square_half"}
"""NumPy's array power computes ``x ** 0.5`` as a square root: ``(-0.0) ** 0.5`` is -0.0
there and 0.0 in Python (docs/semantics.md, powers)."""


def assert_like_numpy_vectorize(f, *args):
    """``vectorize(f)(*args)`` is what ``np.vectorize(f)(*args)`` is: the same values, dtype
    and shape, or the same exception (type and message)."""
    expected, expected_exc = _outcome(lambda: np.vectorize(f)(*args))
    got, got_exc = _outcome(lambda: vectorize(f, fallback="error")(*args))
    size = np.broadcast(*args).size if args else 1
    if size == 0:
        # numpy.vectorize needs otypes for an empty batch; vectorize does not
        assert got_exc is None, got_exc
        assert got.shape == np.broadcast(*args).shape
        return got
    if expected_exc is not None:
        assert got_exc is not None, f"numpy.vectorize raised {expected_exc!r}, got {got!r}"
        assert type(got_exc) is type(expected_exc), (got_exc, expected_exc)
        assert str(got_exc) == str(expected_exc)
        return None
    assert got_exc is None, f"raised {got_exc!r}; numpy.vectorize gave {expected!r}"
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape
    if got.dtype.kind == "f":
        # `math` functions are NumPy's, which can differ in the last bit (docs/semantics.md)
        same = np.isclose(got, expected, rtol=4e-16, atol=0) | (
            np.isnan(got) & np.isnan(expected))
        assert same.all(), (args, got[~same], expected[~same])
        zero = got == 0
        if f.__name__ not in ZERO_SIGN_MAY_DIFFER:
            assert (np.signbit(got[zero]) == np.signbit(expected[zero])).all()
    else:
        np.testing.assert_array_equal(got, expected)
    return got


ONE_FLOAT = [psf.reciprocal, psf.guarded_reciprocal, psf.early_exit_reciprocal,
             psf.reciprocal_of_square_plus_one, psf.halves, psf.round3, psf.round_digits,
             psf.round_to_int, psf.tle_epoch, psf.square_root, psf.logarithm,
             psf.log_base_two, psf.arc_cosine, psf.exponential, psf.sine, psf.square_half,
             psf.squared, psf.inverse_square, psf.floor_int, psf.to_int, psf.branch_sqrt,
             psf.positive_or_raise, psf.asserted, psf.safe_log, psf.newton_reciprocal]
TWO_FLOATS = [psf.float_floor_and_mod, psf.power, psf.float_power, psf.remainder,
              psf.safe_ratio, psf.kepler]
TWO_INTS = [psf.int_floor_division, psf.int_modulo, psf.divmod_sum, psf.int_sum]
ONE_INT = [psf.fourth_power, psf.cube_by_products, psf.negate_int, psf.halves,
           psf.intermediate_overflow_that_fits, psf.reciprocal, psf.to_int]


@pytest.mark.parametrize("f", ONE_FLOAT, ids=lambda f: f.__name__)
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(x=arrays(np.float64, st.integers(0, 6), elements=FLOATS))
def test_one_float(f, x):
    assert_like_numpy_vectorize(f, x)


@pytest.mark.parametrize("f", TWO_FLOATS, ids=lambda f: f.__name__)
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(x=arrays(np.float64, 5, elements=FLOATS), y=arrays(np.float64, 5, elements=FLOATS))
def test_two_floats(f, x, y):
    assert_like_numpy_vectorize(f, x, y)


@pytest.mark.parametrize("f", ONE_INT, ids=lambda f: f.__name__)
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(n=arrays(np.int64, st.integers(0, 6), elements=st.one_of(INTS, SMALL_INTS)))
def test_one_int(f, n):
    assert_like_numpy_vectorize(f, n)


@pytest.mark.parametrize("f", TWO_INTS, ids=lambda f: f.__name__)
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(a=arrays(np.int64, 5, elements=st.one_of(INTS, SMALL_INTS)),
       b=arrays(np.int64, 5, elements=st.one_of(SMALL_INTS, INTS)))
def test_two_ints(f, a, b):
    assert_like_numpy_vectorize(f, a, b)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(n=arrays(np.int64, 5, elements=SMALL_INTS), k=arrays(np.int64, 5, elements=SMALL_INTS))
def test_shift(n, k):
    assert_like_numpy_vectorize(psf.shift, n, k)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint32, np.float32,
                                   np.float16, np.bool_])
@pytest.mark.parametrize("f", [psf.int_sum, psf.float_floor_and_mod, psf.halves],
                         ids=lambda f: f.__name__)
def test_small_dtypes(f, dtype):
    rng = np.random.default_rng(5)
    args = [rng.integers(0, 200, 7).astype(dtype) for _ in range(
        2 if f is not psf.halves else 1)]
    assert_like_numpy_vectorize(f, *args)


@pytest.mark.parametrize("n", [0, 1, 5, 100_000])
def test_batch_sizes_and_repeated_calls(n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n)
    vf = vectorize(psf.reciprocal, fallback="error")
    for _ in range(2):
        np.testing.assert_array_equal(vf(x), 1.0 / x)
    if n:
        x[n // 2] = 0.0       # the loop raises at the first zero
        with pytest.raises(ZeroDivisionError, match="float division by zero"):
            vf(x)
        # the first failing example's message: example n // 2 is the first negative one
        y = np.abs(x) + 1.0
        y[n // 2:] = -y[n // 2:]
        with pytest.raises(ValueError, match=f"negative input {y[n // 2]:.3f} "):
            vectorize(psf.positive_or_raise, fallback="error")(y)


def test_the_checks_ride_on_live_lanes_only():
    """A division guarded by ``if x != 0`` (also as an early exit) never raises; a masked
    loop's finished lanes do not make a division raise."""
    x = np.array([0.0, 2.0, -0.0, 4.0])
    for f in (psf.guarded_reciprocal, psf.early_exit_reciprocal):
        assert_like_numpy_vectorize(f, x)
        assert "raise" not in vectorize(f).source(x)


@pytest.mark.parametrize("f", [psf.reciprocal_of_square_plus_one, psf.halves,
                               psf.guarded_reciprocal, psf.early_exit_reciprocal],
                         ids=lambda f: f.__name__)
def test_checks_elided_where_nothing_raises(f):
    """No check where the analysis shows the divisor nonzero: a literal, ``x * x + 1``, a
    guard."""
    assert "raise" not in vectorize(f).source(np.array([1.0, 2.0]))


def test_checks_are_written_where_python_raises():
    source = vectorize(psf.reciprocal).source(np.array([1.0]))
    assert 'if not merge.all_lanes(x):\n        raise ZeroDivisionError("float division by ' \
        'zero")' in source
    source = vectorize(psf.fourth_power).source(np.array([1]))
    assert "raise OverflowError" in source and "55108" in source


def test_int_overflow_raises_where_numpy_vectorize_does():
    with pytest.raises(OverflowError):
        vectorize(psf.fourth_power)(np.array([3, 7_000_000]))
    np.testing.assert_array_equal(vectorize(psf.fourth_power)(np.array([3, 55108])),
                                  np.array([81, 55108 ** 4]))


def test_an_intermediate_beyond_int64_with_a_result_that_fits_is_exact():
    """``(n * n) // (n + 1)`` with n = 2**40: n * n is beyond int64, the result fits; the
    batch's check fires and the per-example loop gives the exact result."""
    n = np.array([5, 2 ** 40, 7])
    assert_like_numpy_vectorize(psf.intermediate_overflow_that_fits, n)
    assert vectorize(psf.intermediate_overflow_that_fits)(n)[1] == (2 ** 80) // (2 ** 40 + 1)


def test_round_is_pythons():
    x = np.array([0.0005, 2.6985, 2.675, -0.0005, 1.5, 2.5, -0.001])
    np.testing.assert_array_equal(vectorize(psf.round3)(x), [round(float(v), 3) for v in x])
    assert vectorize(psf.round3)(np.array([0.0005]))[0] == 0.001    # np.round gives 0.0
    ints = vectorize(psf.round_to_int)(np.array([0.5, 1.5, 2.5, -0.5]))
    assert ints.dtype.kind == "i" and ints.tolist() == [0, 2, 2, 0]


@settings(max_examples=300, deadline=None)
@given(x=st.floats(allow_nan=True, allow_infinity=True), n=st.integers(-30, 30))
def test_pymath_round_equals_builtin_round(x, n):
    got = pymath.round(np.array([x, np.nextafter(x, np.inf), np.nextafter(x, -np.inf)]), n)
    for g, v in zip(got, [x, np.nextafter(x, np.inf), np.nextafter(x, -np.inf)]):
        e = builtins.round(float(v), n)
        assert (g == e and np.signbit(g) == (math.copysign(1, e) < 0)) or (
            math.isnan(g) and math.isnan(e)), (v, n, g, e)


@pytest.mark.parametrize("n", [-7, -2, 0, 1, 3, 6, 12])
def test_pymath_round_near_ties(n):
    """Decimal-looking values are the ones next to a tie: 300,000 of them per ndigits (ten
    times that for ``n=3``, the one large check)."""
    rng = np.random.default_rng(n + 50)
    k = 1_000_000 if n == 3 else 100_000
    x = (rng.integers(-10 ** 8, 10 ** 8, k) * 10 + 5) / 10.0 ** (n + 1)
    x = np.concatenate([x, np.nextafter(x, np.inf), np.nextafter(x, -np.inf)])
    expected = np.array([builtins.round(float(v), n) for v in x])
    np.testing.assert_array_equal(pymath.round(x, n), expected)


def test_raise_in_a_helper_with_the_first_failing_message():
    mean = np.array([0.1, 0.2, 0.3, 0.4])
    assert_like_numpy_vectorize(psf.kepler, mean, np.array([0.1, 0.5, 0.0, 0.9]))
    with pytest.raises(ValueError, match=r"eccentricity 1\.5 outside"):
        vectorize(psf.kepler, fallback="error")(mean, np.array([0.1, 1.5, 2.0, -1.0]))


def test_raise_messages_made_with_format_and_percent():
    with pytest.raises(ValueError, match=r"negative input -2\.000 \(limit 0\)"):
        vectorize(psf.positive_or_raise, fallback="error")(np.array([1.0, -2.0, -3.0]))
    with pytest.raises(OverflowError, match=r"too large: 2000000\.0"):
        vectorize(psf.positive_or_raise, fallback="error")(np.array([1.0, 2e6, 3e6]))


def test_assert_raises_assertion_error_with_the_first_message():
    with pytest.raises(AssertionError, match=r"x = -11\.0 is below -10"):
        vectorize(psf.asserted, fallback="error")(np.array([1.0, -11.0, -12.0]))
    np.testing.assert_array_equal(vectorize(psf.asserted)(np.array([1.0])), [2.0])


def test_warnings_fire_only_when_a_live_example_takes_the_branch():
    vf = vectorize(psf.warned, fallback="error")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        vf(np.array([1.0, 2.0]))
        assert not caught
        np.testing.assert_array_equal(vf(np.array([1.0, 200.0, 300.0])), [1.0, 100.0, 100.0])
    with warnings.catch_warnings(record=True) as looped:
        warnings.simplefilter("always")
        np.vectorize(psf.warned)(np.array([1.0, 200.0, 300.0]))
    # one per example that takes the branch, as the loop issues them (issue 20)
    assert [str(w.message) for w in caught] == [str(w.message) for w in looped]
    assert len(caught) == 2


def test_logging_fires_once_per_example_that_logs(caplog):
    vf = vectorize(psf.logged, fallback="error")
    with caplog.at_level(logging.WARNING, logger=psf.log.name):
        vf(np.array([1.0, 2.0]))
        assert not caplog.records
        vf(np.array([1.0, -200.0, -300.0]))
        got = [r.getMessage() for r in caplog.records]
        caplog.clear()
        np.vectorize(psf.logged)(np.array([1.0, -200.0, -300.0]))
        looped = [r.getMessage() for r in caplog.records]
    assert got == looped == ["small input -200.0", "small input -300.0"]


def test_try_except_takes_the_handler_on_the_lanes_that_raise():
    x = np.array([1.0, -1.0, 0.0, 4.0])
    y = np.array([1.0, 2.0, 0.0, 0.0])
    assert_like_numpy_vectorize(psf.safe_log, x)
    assert_like_numpy_vectorize(psf.safe_ratio, x, y)
    assert "try" not in vectorize(psf.safe_log).source(x)


def test_try_around_what_the_engine_cannot_model_is_refused():
    def h(v):
        return v

    def f(x):
        try:
            y = h(x)
        except ValueError:
            y = 0.0
        return y

    from vectorize import VectorizeError
    with pytest.raises(VectorizeError, match="call inside a `try`"):
        vectorize(f, fallback="error")(np.array([1.0]))


def test_a_shared_float32_stays_float32():
    # a 0-d float32 array shared by every example: float32 batch, float32 result
    x = np.array([1.0, -1.0], dtype=np.float32)
    got = assert_like_numpy_vectorize(psf.shared_divisor, x, np.array(3.0, np.float32))
    assert got.dtype == np.float32
    # a NumPy float32 scalar: numpy.vectorize hands it on as it is and the examples' Python
    # floats take its dtype (NEP 50): the batch converts them to float32 where they meet it
    from vectorize import vectorize
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = vectorize(psf.shared_divisor, fallback="error")(x, np.float32(3.0))
    expected = np.vectorize(psf.shared_divisor)(x, np.float32(3.0))
    assert got.dtype == expected.dtype == np.float32
    np.testing.assert_array_equal(got, expected)


def test_vmap_keeps_numpy_semantics():
    from vectorize import vmap
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = vmap(psf.reciprocal, fallback="error")(np.array([0.0, 2.0]))
    np.testing.assert_array_equal(got, [np.inf, 0.5])
    assert "raise" not in vmap(psf.reciprocal).source(np.array([0.0]))
