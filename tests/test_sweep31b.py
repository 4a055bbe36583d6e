"""Wrong results found by fuzzing and probing the merged tree (sweep31b).

Differential: `vectorize` against numpy.vectorize itself (Python numbers per example: equal
values and dtype where it returns, the same exception type where it raises); `vmap` against
the loop over NumPy scalars.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from differential import assert_like_numpy_vectorize

from vectorize import VectorizeError, vectorize, vmap

X = np.array([0.0, -0.0, 1.5, -2.5, math.nan, math.inf, 2.0, 3.0])
Y = np.array([1.0, 2.0, -0.5, 0.0, 3.0, -1.0, 4.0, 2.5])


# ------------------------------------- try/finally inside the body of a try with handlers
# Python runs the inner `finally` before the outer handler catches what the inner body
# raised; written as `body; finally` (as a try/finally is lowered), the lanes that raised
# skipped it: x = 0 gave 1.0 (y before the finally) where Python gives 2.0.
def fin_in_handled_try(x, y):
    try:
        try:
            r = 1.0 / x
        finally:
            y = y + 1.0
    except ZeroDivisionError:
        r = y
    return r


def fin_log_in_handled_try(x, y):
    try:
        try:
            r = math.log(x)
        finally:
            y = y + 1.0
    except ValueError:
        r = y
    return r


def fin_with_handlers_in_handled_try(x, y):
    try:
        try:
            r = math.log(x)
        except ZeroDivisionError:
            r = 0.0
        finally:
            y = y + 1.0
    except ValueError:
        r = y
    return r


def fin_handler_raises_in_handled_try(x, y):
    try:
        try:
            r = math.log(x)
        except ValueError:
            r = 1.0 / (y - 1.0)
        finally:
            y = y + 1.0
    except ZeroDivisionError:
        r = y
    return r


NESTED = [fin_in_handled_try, fin_log_in_handled_try, fin_with_handlers_in_handled_try,
          fin_handler_raises_in_handled_try]


@pytest.mark.parametrize("f", NESTED)
def test_finally_in_a_handled_try_is_as_numpy_vectorize(f):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        expected = np.vectorize(f)(X, Y)
        got = vectorize(f)(X, Y)
    assert_like_numpy_vectorize(got, expected, f"{f.__name__}: ")


@pytest.mark.parametrize("f", NESTED)
def test_finally_in_a_handled_try_is_refused_where_written(f):
    with pytest.raises(VectorizeError, match="another `try`'s body") as info:
        vectorize(f, fallback="error")(X, Y)
    assert info.value.line == f.__code__.co_firstlineno + 2


@pytest.mark.parametrize("f", NESTED[1:3])
def test_finally_in_a_handled_try_under_vmap_is_refused_not_wrong(f):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        loop = np.stack([np.asarray(f(a, b)) for a, b in zip(X, Y)])
        try:
            got = vmap(f)(X, Y)
        except VectorizeError:
            return
    np.testing.assert_array_equal(got, loop)


# --------------------- a per-example Python int meeting a narrow NumPy int in a float ufunc
# Per example NEP 50 gives `round(x)` (a Python int) the uint8's type, so `np.hypot` runs its
# float16 loop, the int converted straight to float16 (2**31 - 1 becomes inf); the batch's
# int64 array of it made a float64 hypot (fuzz_nep50 seed 90071: float64 where the loop's
# stack is float16).
def hypot_round_uint8(x, y):
    return np.hypot(round(x), y + y)


def arctan2_int_int16(x, y):
    return np.arctan2(int(x), y)


def logaddexp_floor_int8(x, y):
    return np.logaddexp(y, math.floor(x / 1000.0))


@pytest.mark.parametrize("f, dtypes", [
    (hypot_round_uint8, (np.int32, np.uint8)),
    (arctan2_int_int16, (np.float64, np.int16)),
    (logaddexp_floor_int8, (np.float64, np.int8)),
])
def test_python_int_meeting_a_narrow_int_in_a_float_ufunc_under_vmap(f, dtypes):
    x = np.array([3, -1, 2**31 - 1, 70000, 0], dtype=dtypes[0])
    y = np.array([7, 1, 127, 2, 100], dtype=dtypes[1])
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        loop = np.stack([np.asarray(f(a, b)) for a, b in zip(x, y)])
        got = vmap(f)(x, y)
    assert got.dtype == loop.dtype
    np.testing.assert_array_equal(got, loop)


# ------------ the file rewriter: a call passing a Python number and a NumPy scalar per item
# numpy.vectorize hands each argument on as it is: `a` (an item of a tuple) is a Python
# float, so `1.0 / (x - x)` raises ZeroDivisionError at x = -3.0; the call went to the
# version for NumPy scalars, made as if every argument were one, which gave inf
# (fuzz_clihunt27 seed 356). The check that the two versions are the same code compared the
# version with itself (a second transform under one name printed the first's code).
CLI_MIXED = '''
import numpy as np

from vectorize import vectorize

PAIR = (1.0, 0.0, -3.0, 1.58)


@vectorize
def f3(x, b):
    if x == -3.0:
        return 1.0 / (x - x)
    return x + b


@vectorize
def g(x, b):
    return 1 // x + int(b)


def site():
    return [f3(a, b) for a, b in zip(PAIR, np.ones(3))]


def site_numpy_first():
    # (x a NumPy scalar: 1 // 0.0 is inf there; b a Python float, whose int() checks)
    return [g(x, 2.0) for x in np.array([1.0, 0.0, -3.0])]
'''


def _site_outcome(text: str, site: str = "site"):
    namespace: dict = {}
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(text, "case.py", "exec"), namespace)
        try:
            return [float(v) for v in namespace[site]()]
        except Exception as exc:  # noqa: BLE001 -- the exception type is the result
            return type(exc)


def test_cli_call_with_a_python_number_and_a_numpy_scalar_keeps_python_checks():
    from vectorize.rewrite import rewrite_text

    outcome = rewrite_text(CLI_MIXED, "case.py")
    assert not outcome.errors, outcome.errors
    assert _site_outcome(CLI_MIXED) is ZeroDivisionError
    assert _site_outcome(outcome.text) is ZeroDivisionError, outcome.text
    expected = _site_outcome(CLI_MIXED, "site_numpy_first")
    assert expected == [3.0, math.inf, 1.0]
    assert _site_outcome(outcome.text, "site_numpy_first") == expected, outcome.text


# ------------------------- a NumPy sum / product of a slice of a module's tuple of ints
# Per example `np.prod(T[:0])` is np.prod(()) = 1.0, a float64 (NumPy makes an empty tuple a
# float64 array), the others int64: numpy.vectorize's output type is the first example's
# (float64 here), the loop's stack float64; the batch gave int64 throughout.
T_INTS = (4, 5)


def prod_of_int_tuple_slice(a, b):
    return np.prod(T_INTS[:a]) + len(T_INTS[b:])


def sum_of_int_tuple_slice(a):
    return np.sum(T_INTS[a:])


A = np.array([0, 1, -1, 3, -8, 5, 2, 7])
B = np.array([0, 1, -2, 2, 1, -3, 2, 1])


@pytest.mark.parametrize("f, args", [(prod_of_int_tuple_slice, (A, B)),
                                     (sum_of_int_tuple_slice, (A[::-1],))])
def test_numpy_reduction_of_an_int_tuple_slice_is_as_numpy_vectorize(f, args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = np.vectorize(f)(*args)
        got = vectorize(f)(*args)
        loop = np.stack([np.asarray(f(*ex)) for ex in zip(*args)])
        try:
            lanes = vmap(f)(*args)
        except VectorizeError:
            lanes = loop
    assert_like_numpy_vectorize(got, expected, f"{f.__name__}: ")
    assert lanes.dtype == loop.dtype
    np.testing.assert_array_equal(lanes, loop)


def test_numpy_reduction_of_an_int_tuple_slice_under_vmap_is_refused_where_written():
    with pytest.raises(VectorizeError, match="tuple of ints") as info:
        vmap(prod_of_int_tuple_slice)(A, B)
    assert info.value.line == prod_of_int_tuple_slice.__code__.co_firstlineno + 1


def test_numpy_reduction_of_an_int_tuple_slice_is_vectorized_first_example_decides():
    # (no fallback: an empty first slice makes the output float64, else int64)
    f = vectorize(sum_of_int_tuple_slice, fallback="error")
    for k in (np.array([2, 0, 1, 5]), np.array([0, 2, 1, 5])):
        assert_like_numpy_vectorize(f(k), np.vectorize(sum_of_int_tuple_slice)(k), "")


# ---------------------------------- np.where of a per-example Python int and a narrow int
# Per example `np.where(c, int(x), y)` of an int16 `y` is an int16 (NEP 50), the Python int
# cast as np.where casts it (10**10 wraps to -7168); the batch gave int64 (fuzz_nep50 seed
# 91286).
def where_python_int_int16(x, y):
    return np.where(int(x) > y, int(x), y)


def test_where_of_a_python_int_and_an_int16_under_vmap():
    x = np.array([3, 10**10, -70000, 5], dtype=np.int64)
    y = np.array([7, 1, 127, -2], dtype=np.int16)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loop = np.stack([where_python_int_int16(a, b) for a, b in zip(x, y)])
        got = vmap(where_python_int_int16)(x, y)
    assert got.dtype == loop.dtype == np.int16
    np.testing.assert_array_equal(got, loop)
