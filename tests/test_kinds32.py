"""`vmap` results that are a different type of number on different lanes: each call's result
has the type the per-example loop's ``np.stack`` gives the lanes of that call
(`passes.lane_kinds`, `merge.settle`), differentially against that loop."""

from __future__ import annotations

import math

import numpy as np
import pytest
from differential import assert_same_stacked, loop_stacked
from hypothesis import given, settings
from hypothesis import strategies as st

from vectorize import vmap
from vectorize.errors import VectorizeError


def _loop(f, *args):
    return loop_stacked(f, *args)


def _same(got, want) -> None:
    assert_same_stacked(got, want, signed_zeros=True)


# --- the functions ------------------------------------------------------------------------

def ternary(x):
    return x if x > 0 else 0


def early_returns(x):
    if x > 1:
        return 0.0
    if x < -1:
        return 0
    return x


def assigned_under_if(x):
    r = 0
    if x > 0:
        r = x * 2.0
    return r


def computed_on(x):
    r = x if x > 0 else 0
    return r * 2


def int_or_bool(x):
    return x > 5 if x > 0 else 0


def carried(x):
    r = 0
    k = 0
    while k < x:
        r = r + 0.5
        k += 1
    return r


def pair(x):
    if x > 0:
        return x, 1.0
    return 0, 2.0


def record(x):
    return {"a": x if x > 0 else 0, "b": x}


def rounded_or_not(y):
    return round(y) if y > 0 else y


FLOAT_FUNCTIONS = [ternary, early_returns, assigned_under_if, computed_on, int_or_bool,
                   pair, record]

SPECIAL = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, 3.0, -2.5, 1.5])


@pytest.mark.parametrize("f", FLOAT_FUNCTIONS)
@pytest.mark.parametrize("x", [
    np.array([-1.0, -2.0, -3.0]),           # every lane the int path
    np.array([1.5, 2.0, 7.0]),              # every lane the float path
    np.array([1.5, -2.0, 0.0, 3.0, -0.0]),  # mixed
    np.array([-4.0]),
    np.array([4.0]),
    SPECIAL,
    SPECIAL[:2],                            # nan and -0.0: the int path only
], ids=["int-path", "float-path", "mixed", "one-int", "one-float", "special", "nan-zero"])
def test_the_type_follows_the_paths_of_the_call(f, x):
    _same(vmap(f)(x), _loop(f, x))


@pytest.mark.parametrize("x", [[-1.0, -2.0], [1.5, 2.0], [-1.0, 2.0, 0.0, 3.5], [np.nan, -0.0]])
def test_a_loop_carry_retyped_on_some_lanes(x):
    # (`r = 0`, then `r = r + 0.5` on the lanes that enter the loop)
    x = np.array(x)
    _same(vmap(carried)(x), _loop(carried, x))


@pytest.mark.parametrize("f", [ternary, early_returns, assigned_under_if, computed_on])
def test_repeated_calls_of_one_vmap_follow_each_call(f):
    vf = vmap(f)
    for x in ([-1.0, -2.0], [1.5, 2.0], [-1.0, 2.0], [-3.0], [2.5], [-1.0, -2.0]):
        x = np.array(x)
        _same(vf(x), _loop(f, x))


@pytest.mark.parametrize("f", [ternary, assigned_under_if, carried])
def test_an_empty_batch_keeps_the_join(f):
    # no example tells a type: the join of an int and a float64 path is float64
    got = vmap(f)(np.zeros(0))
    assert got.shape == (0,) and got.dtype == np.float64


def test_an_int_beyond_the_float_join_is_the_loops():
    # every lane takes `round`: the loop stacks exact ints, which the float64 join cannot
    # hold beyond 2**53 (the loop decides there)
    for y in ([1e17, 3.0 * 2**60], [2.5, -3.0], [1e17, -1.0], [-1.0, -2.0]):
        y = np.array(y)
        _same(vmap(rounded_or_not)(y), _loop(rounded_or_not, y))


# --- narrow types beside Python numbers -----------------------------------------------------

def narrow_or_zero(x):
    return x if x > 0 else 0


def single_or_half(y):
    return y if y > 0 else 0.5


@pytest.mark.parametrize("f, dtype, values", [
    (narrow_or_zero, np.int16, ([1, 2], [-1, -2], [1, -2])),
    (single_or_half, np.float32, ([0.25, 3.5], [-1.0, -2.0], [0.25, -2.0])),
    (narrow_or_zero, np.float16, ([0.5, 2.0], [-1.0, 0.0], [1.0, -1.0])),
])
def test_narrow_dtypes_stack_as_the_loop_does(f, dtype, values):
    vf = vmap(f)
    for v in values:
        x = np.array(v, dtype)
        _same(vf(x), _loop(f, x))


def single_or_tenth(y):
    return y if y > 0 else 0.1


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_a_join_that_cannot_hold_a_lane_is_refused(dtype):
    # the narrow join holds 0.1 rounded (float16: 0.09997559), where the loop's float64
    # stack keeps 0.1 on the lanes that return it
    with pytest.raises(VectorizeError) as info:
        vmap(single_or_tenth)(np.array([1.0, -1.0], dtype))
    assert "test_kinds32.py" in str(info.value) and np.dtype(dtype).name in str(info.value)


# --- axes and nesting -----------------------------------------------------------------------

def test_nested_vmap_stacks_rows_as_the_loop_does():
    x = np.array([[-1.0, -2.0], [-3.0, 4.0]])
    got = vmap(vmap(ternary))(x)
    want = np.stack([np.stack([np.asarray(ternary(v)) for v in row]) for row in x])
    _same(got, want)
    x = -np.abs(x)
    got = vmap(vmap(ternary))(x)
    want = np.stack([np.stack([np.asarray(ternary(v)) for v in row]) for row in x])
    _same(got, want)


def row_pick(v):
    return v[0] if v[0] > 0 else 0


@pytest.mark.parametrize("x", [[[-1.0, -2.0, -3.0], [4.0, -5.0, -6.0]],
                               [[-1.0, 2.0, -3.0], [4.0, -5.0, -6.0]],
                               [[1.0, 2.0, 3.0], [4.0, -5.0, -6.0]]])
def test_in_axes(x):
    x = np.array(x)
    _same(vmap(row_pick, in_axes=1)(x), _loop(row_pick, x.T))


# --- drawn -------------------------------------------------------------------------------

_FLOATS = st.floats(allow_nan=True, allow_infinity=True, width=64) | st.sampled_from(
    [0.0, -0.0, 1.0, -1.0, 2.0, math.inf, -math.inf])


@settings(max_examples=40, deadline=None)
@given(st.lists(_FLOATS, min_size=1, max_size=6),
       st.sampled_from([ternary, early_returns, assigned_under_if, computed_on, int_or_bool,
                        pair]))
def test_drawn(values, f):
    x = np.array(values)
    _same(vmap(f)(x), _loop(f, x))


# --- max / min: Python's choice of one operand ------------------------------------------

def max_of_zero(y):
    return max(y, 0)


def min_assigned(y):
    r = min(y * 2, 1)
    return r


def max_of_big_and_half(x, y):
    r = math.fmod(round(y), 3)
    return max(1e300, np.maximum(y, r))     # (an operand computed before the `return`)


@pytest.mark.parametrize("f", [max_of_zero, min_assigned])
@pytest.mark.parametrize("y", [[-1.0, -2.0], [1.5, 2.0], [-1.0, 2.0, 0.0, -0.0],
                               [np.nan, 0.25], [np.nan, 3.0], [np.inf, -np.inf]])
def test_max_and_min_choose_as_python_does(f, y):
    y = np.array(y)
    _same(vmap(f)(y), _loop(f, y))


@pytest.mark.parametrize("y", [[2.0, 3.0], [6e4, 2.0], [6e4, 6e4]])
def test_max_of_an_operand_computed_before_the_return(y):
    x = np.array([1, 5][:len(y)], np.int8)
    y = np.array(y, np.float16)
    _same(vmap(max_of_big_and_half)(x, y), _loop(max_of_big_and_half, x, y))


# --- a parameter assigned on some paths ---------------------------------------------------

def clamped_parameter(x):
    """A docstring first."""
    if x < 0:
        x = 0
    return x


def other_parameter(x, y):
    if x < 0:
        return y
    return x


@pytest.mark.parametrize("x", [[-1.0, -2.0], [1.0, -2.0], [1.0, 2.0]])
def test_a_parameter_assigned_on_some_lanes(x):
    x = np.array(x)
    _same(vmap(clamped_parameter)(x), _loop(clamped_parameter, x))
    y = np.array([3, -4], np.int32)[:len(x)]
    _same(vmap(other_parameter)(x, y), _loop(other_parameter, x, y))
