"""Dtype rules and warning hygiene of the vectorized code, against the per-example loop.

Dtypes (issue 2, item 6): integer in -> integer out where the scalar code returns ints, bool
results stay bool, float32 stays float32 where NumPy keeps it. Every case is checked against
the dtype KIND of the per-example loop's results (`differential.loop_reference`), and where the
contract names the dtype (bool; float32 arithmetic with Python float literals and NumPy
ufuncs; integer and complex arithmetic that NumPy scalars keep in their own type) against the
exact dtype of the loop's results as well.

Warnings (item 5): lanes whose result is thrown away must not warn (nor raise); with
``warnings.simplefilter("error")`` and NumPy's default error state no warning may escape from
guarded functions run on inputs full of dead lanes (negatives, zeros, NaN, inf). Live lanes
compute what the scalar NumPy code computes (nan / inf where it gives them).
"""

from __future__ import annotations

import contextlib
import math
import re
import warnings

import numpy as np
import pytest
from differential import assert_lanes_equal, loop_reference
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from vectorize import vectorize, vmap

# --------------------------------------------------------------------------------------------
# per-example functions


def floordiv(x, y):
    return x // y


def mod(x, y):
    return x % y


def to_int(x):
    return int(x)


def round_int(x):
    return round(x)


def floor_int(x):
    return math.floor(x)


def ceil_int(x):
    return math.ceil(x)


def halve_or_negate(x):
    if x > 0:
        return x // 2
    return -x


def digits(x):
    q = x // 10
    r = x % 10
    return q, r


def is_positive(x):
    return x > 0


def both_positive(x, y):
    return x > 0 and y > 0


def negate_bool(x):
    return not x


def truthy(x):
    return bool(x)


def far_from_zero(x):
    if x > 2:
        return True
    return x < -2


def in_unit(x):
    return 0 <= x < 1


def affine_literal(x):
    return x * 2.5 + 1.0


def halve(x):
    return x / 2


def np_sine(x):
    return np.sin(x)


def np_root_abs(x):
    return np.sqrt(np.abs(x))


def absolute(x):
    return abs(x)


def square(x):
    return x ** 2


def branchy_float(x):
    if x > 0:
        return x * 2.0
    return -x


def math_sine(x):
    return math.sin(x)


def affine_int(x):
    return x * 3 + 1


def wrap_shift(x):
    if x > 100:
        return x - 100
    return x + 100


def bool_plus_one(b):
    return b + 1


def select(b, x):
    if b:
        return x
    return -x


def complex_poly(z):
    return z * z + 1.0


def complex_exp(z):
    return np.exp(z)


def complex_is_zero(z):
    return z == 0


def spread(x, y):
    return max(x, y) - min(x, y)


# --------------------------------------------------------------------------------------------
# dtype table: (function, argument arrays, exact dtype required?)

I64 = np.array([-7, -1, 0, 3, 8, 99])
I32 = I64.astype(np.int32)
I8 = np.array([-128, -7, -1, 0, 3, 127], np.int8)
U8 = np.array([0, 1, 3, 99, 200, 255], np.uint8)
U64 = np.array([0, 1, 3, 2**40, 2**63, 2**64 - 1], np.uint64)
NONZERO_I64 = np.array([3, -2, 5, -7, 1, 4])
BOOLS = np.array([True, False, True, False, True, False])
F64 = np.array([-2.5, -0.0, 0.5, 3.7, 1e10, -1e-10])
F32 = F64.astype(np.float32)
C128 = np.array([1 + 2j, 0j, -1j, 3 + 0j, 2.5 - 1j, np.nan + 0j])
C64 = C128.astype(np.complex64)

DTYPE_CASES = [
    # integer in -> integer out
    (floordiv, (I64, NONZERO_I64), True),
    (floordiv, (I32, NONZERO_I64.astype(np.int32)), True),
    (floordiv, (I8, NONZERO_I64.astype(np.int8)), True),
    (floordiv, (U8, np.array([3, 2, 5, 7, 1, 4], np.uint8)), True),
    (floordiv, (U64, np.array([3, 2, 5, 7, 1, 4], np.uint64)), True),
    (mod, (I64, NONZERO_I64), True),
    (mod, (I8, NONZERO_I64.astype(np.int8)), True),
    (mod, (U64, np.array([3, 2, 5, 7, 1, 4], np.uint64)), True),
    (floordiv, (F64, np.array([2.0, -3.0, 0.5, 1.5, 7.0, -1.0])), True),
    (to_int, (I64,), False),
    (to_int, (I8,), False),
    (to_int, (U8,), False),
    (to_int, (BOOLS,), False),
    (to_int, (F64,), False),
    (to_int, (F32,), False),
    (round_int, (F64,), False),
    (round_int, (F32,), False),
    (round_int, (I64,), False),
    (floor_int, (F64,), False),
    (floor_int, (I32,), False),
    (ceil_int, (F64,), False),
    (ceil_int, (F32,), False),
    (halve_or_negate, (I64,), True),
    (halve_or_negate, (I8,), False),
    (digits, (I64,), True),
    (digits, (np.array([5, 17, 250, 0, 99, 123], np.int16),), True),
    (digits, (U64,), True),
    (affine_int, (I64,), True),
    (affine_int, (I8,), True),
    (affine_int, (U8,), True),
    (wrap_shift, (U8,), True),
    (spread, (I8, I8[::-1].copy()), True),
    (absolute, (I8,), True),
    (square, (I32,), True),
    # bool results stay bool
    (is_positive, (F64,), True),
    (is_positive, (I8,), True),
    (is_positive, (U64,), True),
    (both_positive, (F64, F64[::-1].copy()), True),
    (both_positive, (I64, I64[::-1].copy()), True),
    (negate_bool, (F64,), True),
    (negate_bool, (BOOLS,), True),
    (truthy, (I64,), True),
    (truthy, (C128,), True),
    (far_from_zero, (F64,), True),
    (far_from_zero, (I32,), True),
    (in_unit, (F32,), True),
    (complex_is_zero, (C128,), True),
    # float32 stays float32 (arithmetic with Python float literals, np ufuncs, abs, **)
    (affine_literal, (F32,), True),
    (halve, (F32,), True),
    (np_sine, (F32,), True),
    (np_root_abs, (F32,), True),
    (absolute, (F32,), True),
    (square, (F32,), True),
    (branchy_float, (F32,), True),
    # math.* returns Python floats: float64 whatever the input
    (math_sine, (F32,), True),
    (math_sine, (I8,), True),
    # other inputs
    (affine_literal, (I8,), True),
    (affine_literal, (BOOLS,), True),
    (bool_plus_one, (BOOLS,), True),
    (select, (BOOLS, F64), True),
    (select, (BOOLS, F32), True),
    (complex_poly, (C128,), True),
    (complex_poly, (C64,), True),
    (complex_exp, (C64,), True),
    (absolute, (C64,), True),
    (halve, (I64,), True),
    (np_sine, (I8,), True),
]


def _loop_dtypes(lanes, raised, n_out):
    ok = [lane for i, lane in enumerate(lanes) if i not in set(raised)]
    if n_out is None:
        return [np.array(ok).dtype]
    return [np.array([lane[k] for lane in ok]).dtype for k in range(n_out)]


def _id(case):
    func, args, exact = case
    return f"{func.__name__}-{'-'.join(str(a.dtype) for a in args)}"


@pytest.mark.parametrize("case", DTYPE_CASES, ids=[_id(c) for c in DTYPE_CASES])
def test_dtype_matches_the_loop(case):
    func, args, exact = case
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            np.vectorize(func)(*args)
        except OverflowError as exc:
            # Python ints beyond the output's dtype (int8 `x * 3 + 1` at 127): numpy.vectorize
            # raises where the NumPy-scalar loop below wraps, and vectorize follows it (the
            # old contract wrapped)
            with pytest.raises(OverflowError, match=re.escape(str(exc))):
                vectorize(func, fallback="error")(*args)
            return
    lanes, shape, raised = loop_reference(func, *args)
    assert len(raised) < len(lanes)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        got = vectorize(func, fallback="error")(*args)
    outs = got if isinstance(got, tuple) else (got,)
    expected = _loop_dtypes(lanes, raised, len(got) if isinstance(got, tuple) else None)
    for k, (out, dtype) in enumerate(zip(outs, expected)):
        part = lanes if not isinstance(got, tuple) else [
            None if lane is None else lane[k] for lane in lanes]
        assert_lanes_equal(out, part, shape, raised, what=f"output {k}: ")
        kinds = {out.dtype.kind, dtype.kind}
        assert out.dtype.kind == dtype.kind or kinds <= {"i", "u"}, (out.dtype, dtype)
        if exact:
            assert out.dtype == dtype, f"output {k}: {out.dtype} != loop's {dtype}"


INT_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(INT_DTYPES), st.data())
def test_integer_code_stays_integer(dtype, data):
    info = np.iinfo(dtype)
    lo, hi = max(int(info.min), -1000), min(int(info.max), 1000)
    x = data.draw(arrays(dtype, st.integers(0, 6), elements=st.integers(lo, hi)))
    y = data.draw(arrays(dtype, x.shape, elements=st.integers(max(lo, 1), hi)))
    for func, args in ((floordiv, (x, y)), (mod, (x, y)), (halve_or_negate, (x,)),
                       (digits, (x,))):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                np.vectorize(func)(*args)
            except OverflowError:
                # a Python int beyond the output's dtype (`-x` of int8 -128 is 128):
                # numpy.vectorize raises where the NumPy-scalar loop below wraps
                with pytest.raises(OverflowError):
                    vectorize(func, fallback="error")(*args)
                continue
            except ValueError:      # (an empty batch: numpy.vectorize needs otypes)
                pass
            got = vectorize(func, fallback="error")(*args)
        lanes, shape, raised = loop_reference(func, *args)
        for k, out in enumerate(got if isinstance(got, tuple) else (got,)):
            assert out.dtype.kind in "iu", (func.__name__, dtype, out.dtype)
            part = lanes if not isinstance(got, tuple) else [
                None if lane is None else lane[k] for lane in lanes]
            assert_lanes_equal(out, part, shape, raised)


def math_plus_self(x):
    return math.sqrt(abs(x)) + x


def math_times_self(x):
    return math.sin(x) * x


def float_plus_self(x):
    return float(x) + x


@pytest.mark.parametrize("func", [math_plus_self, math_times_self, float_plus_self])
def test_python_float_results_are_weak_against_float32(func):
    # math.* / float() give Python floats, which NumPy scalars treat as weak (NEP 50):
    # numpy.vectorize learns float32 from its call on np.float32, and stores the Python
    # floats of every example in it (`float(x) + x` of 3e38 is inf there); the vectorized
    # code returned float64
    x = np.array([1.0, 2.0, -3.5, 3e38], np.float32)
    lanes, shape, raised = loop_reference(func, x)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        got = vectorize(func, fallback="error")(x)
        expected = np.vectorize(func)(x)
    assert got.dtype == np.array(lanes).dtype == expected.dtype == np.float32
    assert_lanes_equal(got, lanes, shape, raised)
    np.testing.assert_array_equal(got, expected)


@settings(max_examples=25, deadline=None)
@given(arrays(np.float32, st.integers(0, 6),
              elements=st.floats(-1e4, 1e4, width=32, allow_subnormal=False)))
def test_float32_arithmetic_and_ufuncs_stay_float32(x):
    for func in (affine_literal, halve, np_sine, np_root_abs, absolute, square, branchy_float):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            got = vectorize(func, fallback="error")(x)
        assert got.dtype == np.float32, (func.__name__, got.dtype)
        lanes, shape, raised = loop_reference(func, x)
        assert_lanes_equal(got, lanes, shape, raised)


@settings(max_examples=25, deadline=None)
@given(arrays(np.float64, st.integers(0, 6), elements=st.floats(allow_nan=True)))
def test_bool_results_stay_bool(x):
    for func in (is_positive, negate_bool, truthy, far_from_zero, in_unit):
        got = vectorize(func, fallback="error")(x)
        assert got.dtype == np.bool_, (func.__name__, got.dtype)
        lanes, shape, raised = loop_reference(func, x)
        assert_lanes_equal(got, lanes, shape, raised)


def test_python_scalar_arguments_keep_the_scalar_dtype_rules():
    got = vectorize(halve_or_negate, fallback="error")(np.arange(-3, 4), )
    assert got.dtype.kind == "i"
    assert vectorize(is_positive, fallback="error")(3).dtype == np.bool_
    assert vectorize(floordiv, fallback="error")(7, np.array([2, 3])).dtype.kind == "i"


# --------------------------------------------------------------------------------------------
# No leaking warnings: dead lanes are silent


def guarded_log(x):
    if x > 0:
        return math.log(x)
    else:
        return 0.0


def quadratic_root(a, b, c):
    disc = b * b - 4 * a * c
    if disc >= 0:
        return (-b + math.sqrt(disc)) / (2 * a)
    return math.nan


def guarded_reciprocal(x):
    if x != 0:
        return 1 / x
    return 0.0


def guarded_np_log(x):
    if x > 0:
        return np.log(x)
    return -1.0


def early_exit_log(x):
    if x <= 0:
        return 0.0
    y = math.log(x)
    return y * 2


def nested_logs(x, y):
    if x > 0:
        if y > 0:
            return math.log(x) + math.log(y)
        return math.log(x)
    return 0.0


def elif_chain(x):
    if x < 0:
        return -1.0
    elif x == 0:
        return 0.0
    else:
        return math.log(x)


def guarded_acos(x):
    if -1 <= x <= 1:
        return math.acos(x)
    return 0.0


def _log_helper(v):
    return math.log(v) * 0.5


def guarded_helper(x):
    if x > 0:
        return _log_helper(x)
    return 0.0


def ternary_log(x):
    return math.log(x) if x > 0 else 0.0


def short_circuit_log(x):
    return x > 0 and math.log(x) > 1


def guarded_exp(x):
    if x < 700:
        return math.exp(x)
    return math.inf


def guarded_int_floordiv(x, y):
    if y != 0:
        return x // y
    return 0


def guarded_int_mod(x, y):
    if y != 0:
        return x % y
    return -1


def guarded_fmod(x):
    if x != 0:
        return 7.0 % x
    return 0.0


def guarded_atanh(x):
    if abs(x) < 1:
        return math.atanh(x)
    return 0.0


def guarded_power(x):
    if x > 0:
        return x ** 0.5
    return 0.0


def guarded_to_int(x):
    if x == x and abs(x) < math.inf:
        return int(x)
    return 0


def guarded_floor(x):
    if x == x and abs(x) < math.inf:
        return math.floor(x)
    return 0


def guarded_int_power(n):
    if n >= 0:
        return 2 ** n
    return 0


DEAD = [-2.0, -1.0, -0.0, 0.0, 0.25, 1.0, math.e, 10.0, 1e300, -1e300, math.nan, math.inf,
        -math.inf, 800.0, -800.0, 0.5, -0.5, 2.0]
DEAD_X = np.array(DEAD)
DEAD_Y = DEAD_X[::-1].copy()
INT_X = np.array([-9, -1, 0, 0, 1, 7, 12, -4])
INT_Y = np.array([0, 3, 0, -2, 0, 5, -5, 0])

LEAK_CASES = [
    pytest.param(guarded_log, (DEAD_X,), id="if-log"),
    pytest.param(quadratic_root, (np.array([1.0, 1.0, 2.0, 1.0, 3.0, 1.0]),
                                  np.array([0.0, 1.0, 1.0, 2.0, -1.0, 5.0]),
                                  np.array([1.0, -2.0, 1.0, 1.0, 2.0, 1.0])), id="sqrt-disc"),
    pytest.param(guarded_reciprocal, (DEAD_X,), id="if-reciprocal"),
    pytest.param(guarded_np_log, (DEAD_X,), id="if-np.log"),
    pytest.param(early_exit_log, (DEAD_X,), id="early-return-log"),
    pytest.param(nested_logs, (DEAD_X, DEAD_Y), id="nested-if-log"),
    pytest.param(elif_chain, (DEAD_X,), id="elif-log"),
    pytest.param(guarded_acos, (DEAD_X,), id="chained-guard-acos"),
    pytest.param(guarded_helper, (DEAD_X,), id="helper-log",
                 marks=pytest.mark.xfail(strict=True, reason=(
                     "documented cost (docs/semantics.md): a helper has no live-lane mask, so "
                     "its `math.log` check fires for lanes its caller keeps out; vectorize "
                     "then replays numpy.vectorize, whose first call (on NumPy scalars) warns; "
                     "the values are right"))),
    pytest.param(ternary_log, (DEAD_X,), id="ternary-log"),
    pytest.param(short_circuit_log, (DEAD_X,), id="and-log"),
    pytest.param(guarded_exp, (DEAD_X,), id="if-exp-overflow"),
    pytest.param(guarded_int_floordiv, (INT_X, INT_Y), id="int-floordiv-zero"),
    pytest.param(guarded_int_mod, (INT_X, INT_Y), id="int-mod-zero"),
    pytest.param(guarded_fmod, (DEAD_X,), id="float-mod-zero"),
    pytest.param(guarded_atanh, (DEAD_X,), id="atanh"),
    pytest.param(guarded_power, (DEAD_X,), id="pow-half"),
    pytest.param(guarded_to_int, (DEAD_X,), id="int-of-nan-inf",
                 marks=pytest.mark.xfail(strict=True, reason=(
                     "int() of 1e300 is an exact Python int per example, which the loop "
                     "reference here stacks into an object array; numpy.vectorize raises "
                     "OverflowError (its int64 output cannot hold it), and so does vectorize"))),
    pytest.param(guarded_floor, (DEAD_X,), id="floor-of-nan-inf",
                 marks=pytest.mark.xfail(strict=True, reason=(
                     "math.floor() of 1e300 is an exact Python int per example, which the loop "
                     "reference here stacks into an object array; numpy.vectorize raises "
                     "OverflowError (its int64 output cannot hold it), and so does vectorize"))),
    # (was a strict xfail: the dead negative lanes' ValueError now makes vectorize replay
    # numpy.vectorize, which gives the per-example results)
    pytest.param(guarded_int_power, (INT_X,), id="int-power-negative"),
]


@contextlib.contextmanager
def numpy_defaults_and_warnings_as_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(divide="warn", over="warn", under="ignore", invalid="warn"):
            yield


@pytest.mark.parametrize(("func", "args"), LEAK_CASES)
def test_dead_lanes_do_not_warn(func, args):
    lanes, shape, raised = loop_reference(func, *args)
    with numpy_defaults_and_warnings_as_errors():
        got = vectorize(func, fallback="error")(*args)
    assert_lanes_equal(got, lanes, shape, raised)


# (`guarded_helper` is left out: its warning on dead lanes is the documented cost its strict
# xfail above records; drawn here it would fail whenever a dead lane reaches the helper)
GUARDED = [guarded_log, guarded_reciprocal, guarded_np_log, early_exit_log, elif_chain,
           guarded_acos, ternary_log, short_circuit_log, guarded_exp, guarded_fmod,
           guarded_atanh]

EDGE_FLOATS = st.one_of(st.sampled_from(DEAD), st.floats(-5, 5),
                        st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=False,
                                  min_value=None, max_value=None))


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(GUARDED), arrays(np.float64, st.integers(0, 8), elements=EDGE_FLOATS))
def test_dead_lanes_do_not_warn_hypothesis(func, x):
    lanes, shape, raised = loop_reference(func, x)
    # only inputs where the per-example code itself is silent
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for v in x:
            try:
                func(v)
            except (ValueError, OverflowError, ZeroDivisionError):
                pass
    if caught:
        return
    with numpy_defaults_and_warnings_as_errors():
        got = vectorize(func, fallback="error")(x)
    assert_lanes_equal(got, lanes, shape, raised)


@settings(max_examples=20, deadline=None)
@given(arrays(np.float64, st.integers(0, 8), elements=st.floats(-10, 10)),
       arrays(np.float64, st.integers(0, 8), elements=st.floats(-10, 10)),
       arrays(np.float64, st.integers(0, 8), elements=st.floats(-10, 10)))
def test_quadratic_dead_lanes_hypothesis(a, b, c):
    n = min(len(a), len(b), len(c))
    a, b, c = np.where(a[:n] == 0, 1.0, a[:n]), b[:n], c[:n]
    lanes, shape, raised = loop_reference(quadratic_root, a, b, c)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for args in zip(a, b, c):
            quadratic_root(*args)
    if caught:
        return
    with numpy_defaults_and_warnings_as_errors():
        got = vectorize(quadratic_root, fallback="error")(a, b, c)
    assert_lanes_equal(got, lanes, shape, raised)


# --------------------------------------------------------------------------------------------
# Live lanes: what the scalar NumPy code computes, nan and inf included


def live_np_log(x):
    if x > -1:
        return np.log(x)
    return 0.0


def live_reciprocal(x):
    y = 1 / x
    if y > 0:
        return y
    return -y


def live_sqrt(x):
    return np.sqrt(x) + 1.0


def live_mixed(x, y):
    if x > y:
        return x / y
    return np.log(y - x)


def live_float32(x):
    if x < 10:
        return np.float32(1.0) / x
    return np.log(x)


LIVE_X = np.array([-0.5, -0.0, 0.0, 1.0, math.inf, -math.inf, math.nan, 5e-324, 1e308, -2.0])
LIVE_X32 = np.array([-0.5, -0.0, 0.0, 1.0, math.inf, -math.inf, math.nan, 1e-45, 3e38, -2.0],
                    dtype=np.float32)


@pytest.mark.parametrize(("func", "args"), [
    pytest.param(live_np_log, (LIVE_X,), id="log"),
    pytest.param(live_reciprocal, (LIVE_X,), id="reciprocal"),
    pytest.param(live_sqrt, (LIVE_X,), id="sqrt"),
    pytest.param(live_mixed, (LIVE_X, LIVE_X[::-1].copy()), id="mixed"),
    pytest.param(live_float32, (LIVE_X32,), id="float32"),
    pytest.param(guarded_reciprocal, (LIVE_X,), id="guarded-reciprocal"),
])
def test_live_lanes_match_numpy_scalars(func, args):
    """NumPy scalars per example are `vmap`'s contract (`vectorize` follows numpy.vectorize,
    whose Python numbers raise at a zero divisor: `assert_matches_loop` checks that)."""
    lanes, shape, raised = loop_reference(func, *args)
    assert not raised
    expected = np.array(lanes)
    assert np.isnan(expected).any() or np.isinf(expected).any()   # the test has teeth
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        got = vmap(func, fallback="error")(*args)
    assert_lanes_equal(got, lanes, shape, raised)
    assert got.dtype == expected.dtype


@settings(max_examples=25, deadline=None)
@given(arrays(np.float64, st.integers(0, 8),
              elements=st.floats(allow_nan=True, allow_infinity=True)))
def test_live_lanes_hypothesis(x):
    for func in (live_np_log, live_reciprocal, live_sqrt):
        lanes, shape, raised = loop_reference(func, x)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            got = vmap(func, fallback="error")(x)     # NumPy scalars: vmap's contract
        assert_lanes_equal(got, lanes, shape, raised)
