"""Calls inside a ``try`` (`passes.try_except`): the engine knows what a call may raise on the
per-example types (rules declare it: `python_errors.raises_on_numbers`; a NumPy function's
failures; a helper's, from its body, less what its own ``try`` catches), and operations whose
failure the per-example type alone decides (item assignment into a number, ``len`` of a
number, ``x[0]`` and ``x.shape`` of a Python number) take the handler statically.

The shapes are those of real scientific code that serves scalars and arrays with one body:
``try: e[abs(e) < tol] = 0.0 except TypeError: if abs(e) < tol: e = 0.0``, conversions
guarded by ``except NameError`` (NumPy missing), ``if (asarray(r) < 0).any(): raise``.
`vectorize` is compared with numpy.vectorize itself (values, dtype, the exception type where it
raises), `vmap` with the per-example loop over NumPy scalars, at N = 0, 1, 5 and 1e4 and on
hypothesis' values; what cannot be decided is refused, located.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from numpy import asarray, broadcast_arrays

from vectorize import VectorizeError, vectorize, vmap

TOL = 1e-3


# ------------------------------------------------------------------- the functions
def snapped(e, n):
    # an array is cleaned in place; a number (each example) raises TypeError and is
    # cleaned by the handler
    try:
        e[abs(e) < TOL] = 0.0
        n[abs(n) < TOL] = 0.0
    except TypeError:
        if abs(e) < TOL:
            e = 0.0
        if abs(n) < TOL:
            n = 0.0
    return math.atan2(e, n) + e


def snapped_twice(e, n):
    # a helper that writes into its arguments (numbers here: it raises, nothing is written)
    return snapped(e * 2.0, n) + snapped(n, e)


def converted(x, y):
    try:
        x = asarray(x)
        y = asarray(y)
    except NameError:
        pass
    return np.sqrt(x * x + y * y)


def checked_range(r, a):
    try:
        r, a = broadcast_arrays(r, a)
        if (asarray(r) < 0).any():
            raise ValueError("negative range")  # noqa: B904 -- (`from` is refused)
    except NameError:
        if r < 0:
            raise ValueError("negative range")  # noqa: B904 -- (`from` is refused)
    return r * np.cos(a)


def squeezed(v):
    try:
        return v.squeeze()[()]
    except AttributeError:
        return v + 1.0


def sized(x):
    try:
        k = len(x)
    except TypeError:
        k = -1
    return x * k


def first_item(x):
    try:
        y = x[0]
    except (TypeError, IndexError):
        y = x * 3.0
    return y


def shape_of(x):
    try:
        y = x + x.ndim
    except AttributeError:
        y = x - 1.0
    return y


def quiet_helper(x):
    return 2.0 * x + 1.0


def raising_helper(x):
    if x > 3.0:
        raise ValueError("too large")
    return math.log(x + 10.0)


def guarded_helper(x):
    # its own try catches what it raises: nothing gets out
    try:
        return 1.0 / x
    except ZeroDivisionError:
        return 0.0


def nested_helper(x):
    return raising_helper(x) * 2.0


def call_quiet(x):
    try:
        y = quiet_helper(x)
    except ValueError:
        y = -1.0
    return y


def call_raising(x):
    try:
        y = nested_helper(x)
    except ValueError:
        y = -1.0
    return y


def call_guarded(x):
    try:
        y = guarded_helper(x) + guarded_helper(x - 1.0)
    except ZeroDivisionError:
        y = -1.0
    return y


def reraised(x):
    try:
        y = math.sqrt(x)
    except ValueError:
        raise
    return y


def raised_anew(x):
    try:
        y = math.log(x)
    except ValueError:
        raise OverflowError("not a positive number")  # noqa: B904
    return y


def caught_broadly(x):
    try:
        y = math.log(x) + 1.0 / (x - 2.0)
    except Exception:
        y = -7.0
    return y


def caught_as(x):
    try:
        y = math.acos(x) + 1.0 / x
    except (TypeError, ValueError, ZeroDivisionError) as e:  # noqa: F841
        y = 5.0
    return y


def with_else(x):
    try:
        y = math.sqrt(x)
    except ValueError:
        y = -1.0
    else:
        y = y + 100.0
    return y


def branch_in_try(x):
    try:
        if x > 1.0:
            y = math.log(x - 2.0)
        else:
            y = 1.0 / x
        y = y * 2.0
    except ValueError:
        y = -1.0
    except ZeroDivisionError:
        y = -2.0
    return y


def loop_in_try(x):
    total = 0.0
    try:
        for k in range(3):
            total = total + math.sqrt(x - k)
    except ValueError:
        total = -total
    return total


def try_in_try(x):
    try:
        try:
            y = math.log(x)
        except ValueError:
            y = 1.0 / (x + 1.0)
    except ZeroDivisionError:
        y = 99.0
    return y


SCALAR = [sized, first_item, call_quiet, call_raising, call_guarded, reraised, raised_anew,
          caught_broadly, caught_as, with_else, branch_in_try, loop_in_try, try_in_try]
# what a Python number lacks and a NumPy scalar has: `vmap`'s examples are NumPy scalars;
# numpy.vectorize learns its output types from a first call on NumPy scalars too, then
# hands Python numbers (`vectorize` refuses these: below)
NUMPY_TYPED = [squeezed, shape_of]
PAIRS = [snapped, snapped_twice, converted, checked_range]

VALUES = np.array([4.0, -1.0, 0.0, -0.0, 9.0, np.nan, np.inf, -np.inf, 2.5, 1e-4, -3.5, 0.5,
                   1.0, 2.0, 3.0, -5e-4])


# ------------------------------------------------------------------- references
def numpy_vectorize(func, *args):
    """numpy.vectorize's results, or the type of its exception."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            return np.vectorize(func)(*args), None
    except Exception as exc:        # noqa: BLE001 -- the reference's exception type
        return None, type(exc)


def loop(func, *args):
    """The per-example loop over NumPy scalars, or the type of its exception."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            return np.array([func(*[a[k] for a in args]) for k in range(len(args[0]))]), None
    except Exception as exc:        # noqa: BLE001
        return None, type(exc)


def same(got, expected):
    got = np.asarray(got)
    assert got.shape == expected.shape
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    np.testing.assert_allclose(got, expected, rtol=1e-14, atol=0)
    real = ~np.isnan(expected)
    np.testing.assert_array_equal(np.signbit(got[real]), np.signbit(expected[real]))


def check_vectorize(func, *args):
    expected, raised = numpy_vectorize(func, *args)
    wrapped = vectorize(func, fallback="error")
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        if raised is not None:
            with pytest.raises(raised):
                wrapped(*args)
            return
        same(wrapped(*args), expected)


def check_vmap(func, *args):
    expected, raised = loop(func, *args)
    wrapped = vmap(func)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        if raised is not None:
            with pytest.raises(raised):
                wrapped(*args)
            return
        same(wrapped(*args), expected)


def arguments(func, n):
    x = np.resize(VALUES, n)
    if func in PAIRS:
        y = np.resize(VALUES[::-1], n)
        if func is checked_range:
            x = np.abs(x)
        return x, y
    return (x,)


# ------------------------------------------------------------------- tests
@pytest.mark.parametrize("func", SCALAR + PAIRS)
def test_vectorize_matches_numpy_vectorize_at_every_size(func):
    for n in (1, 5, 10_000):
        args = arguments(func, n)
        for _ in range(2 if n == 10_000 else 1):
            check_vectorize(func, *args)
    got = vectorize(func, fallback="error")(*arguments(func, 0))
    assert np.shape(got) == (0,)


@pytest.mark.parametrize("func", SCALAR + PAIRS + NUMPY_TYPED)
def test_vmap_matches_the_loop_at_every_size(func):
    for n in (1, 5, 10_000):
        args = arguments(func, n)
        for _ in range(2 if n == 10_000 else 1):
            check_vmap(func, *args)
    got = vmap(func)(*arguments(func, 0))
    assert np.shape(got) == (0,)


FLOATS = hnp.arrays(np.float64, st.integers(0, 6), elements=st.floats(allow_subnormal=False))


@pytest.mark.parametrize("func", [snapped, call_raising, caught_as, branch_in_try,
                                  loop_in_try, raised_anew])
@settings(max_examples=20, deadline=None)
@given(x=FLOATS)
def test_on_any_floats(func, x):
    args = (x, x[::-1].copy()) if func in PAIRS else (x,)
    if len(x):
        check_vectorize(func, *args)
    check_vmap(func, *args)


def test_checked_range_raises_as_the_loop():
    r = np.array([1.0, 2.0, -0.5])
    a = np.zeros(3)
    check_vectorize(checked_range, r, a)
    check_vmap(checked_range, r, a)
    with pytest.raises(ValueError, match="negative range"):
        vectorize(checked_range, fallback="error")(r, a)


def test_a_number_takes_the_handler_statically():
    # no write and no length test in the code: the handler is the code
    source = vectorize(snapped).source(VALUES, VALUES)
    assert "e[" not in source and "n[" not in source
    assert "len(" not in vectorize(sized).source(VALUES)


def write_into_row(v):
    try:
        v[abs(v) < TOL] = 0.0
    except TypeError:
        v = 0.0
    return v.sum()


def test_a_row_per_example_is_still_the_callers_array():
    # per example a row supports item assignment: that would write into the caller's array
    m = np.array([[1.0, 1e-5], [2e-4, 3.0]])
    with pytest.raises(VectorizeError, match="write|writing") as info:
        vmap(write_into_row)(m)
    assert info.value.line == write_into_row.__code__.co_firstlineno + 2
    with pytest.raises(VectorizeError, match="write|writing"):
        vectorize(write_into_row, signature="(k)->()", fallback="error")(m)


def opaque(x):
    return np.interp(x, [0.0, 1.0], [1.0, 2.0]) + sorted([x, 1.0])[0]


def call_opaque(x):
    try:
        y = opaque(x)
    except Exception:
        y = 0.0
    return y


def numpy_caught(x):
    try:
        y = np.interp(x, [0.0, 1.0], [1.0, 2.0])
    except ValueError:
        y = 0.0
    return y


def read_exception(x):
    try:
        y = math.log(x)
    except ValueError as e:
        y = len(str(e))
    return y


def with_finally(x):
    # (a `finally:` that returns swallows an exception; one that does not is lowered:
    # tests/test_flow31.py)
    try:
        y = math.log(x)
    except ValueError:
        y = 0.0
    finally:
        return y + x  # noqa: B012 -- the construct refused


def with_block(x):
    try:
        with warnings.catch_warnings():
            y = math.log(x)
    except ValueError:
        y = 0.0
    return y


@pytest.mark.parametrize(("func", "line", "match"), [
    (call_opaque, 2, "does not know"),
    (numpy_caught, 2, "does not know"),
    (read_exception, 3, "reads the exception"),
    (with_finally, 3, "finally"),
    (with_block, 2, "anything but simple statements"),
])
def test_what_cannot_be_modelled_is_refused_where_written(func, line, match):
    x = np.array([1.0, 2.0])
    for wrapped in (vectorize(func, fallback="error"), vmap(func)):
        with pytest.raises(VectorizeError, match=match) as info:
            wrapped(x)
        assert info.value.line == func.__code__.co_firstlineno + line


@pytest.mark.parametrize("func", NUMPY_TYPED)
def test_vectorize_refuses_what_numpy_scalars_and_python_numbers_answer_differently(func):
    # numpy.vectorize's first call (NumPy scalars) may answer otherwise than the Python
    # numbers of the later calls (another type, or raising): refused, located in the try
    with pytest.raises(VectorizeError) as info:
        vectorize(func, fallback="error")(VALUES[:3])
    first = func.__code__.co_firstlineno
    assert first < info.value.line <= first + 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected, raised = numpy_vectorize(func, VALUES[:3])
        if raised is None:
            np.testing.assert_array_equal(vectorize(func)(VALUES[:3]), expected)


def cleaned_through_a_name(e):
    q = e
    try:
        q[abs(q) < TOL] = 0.0
    except TypeError:
        pass
    return e * 2.0


def calls_cleaner(x):
    return cleaned_through_a_name(x) + 1.0


def test_a_write_through_another_name_stays_the_callers_concern():
    # (per example a number: the write raises and nothing changes; the engine does not take
    # the write through `q` as one into `e`'s number: refused or computed, never written)
    x = np.array([1e-4, 2.0, -3e-4, 5.0])
    before = x.copy()
    expected, _ = loop(calls_cleaner, x)
    for wrapped in (vmap(calls_cleaner), vectorize(calls_cleaner, fallback="error")):
        try:
            got = wrapped(x)
        except VectorizeError:
            continue
        same(got, expected)
    np.testing.assert_array_equal(x, before)


def doubled(x):
    return x * 2.0


def root_of(x):
    return math.sqrt(abs(x))


def divided_by_helpers(x):
    # vmap: `doubled` returns a NumPy scalar (x / 0 is inf, no handler), `root_of` a Python
    # float (1 / 0.0 raises ZeroDivisionError: the handler); vectorize: both raise
    try:
        y = 1.0 / doubled(x) + 1.0 / root_of(x)
    except ZeroDivisionError:
        y = -1.0
    return y


def test_a_division_by_what_a_helper_returns():
    x = np.array([0.0, 1.0, -4.0, -0.0, 2.5, np.nan])
    for n in (1, 5, 6):
        check_vmap(divided_by_helpers, x[:n])
        check_vectorize(divided_by_helpers, x[:n])
    assert vmap(divided_by_helpers)(x[:0]).shape == (0,)
