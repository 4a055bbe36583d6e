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
