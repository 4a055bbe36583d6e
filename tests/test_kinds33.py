"""`vmap` results that are a different type of number on different lanes, followed through
helpers (written out into the caller: `inline_helpers`), augmented assignments in loops and
operations of two such operands, and not refused where the choice is the same for every
example of a call: each call's result has the type the per-example loop's ``np.stack`` gives
the lanes of that call, differentially against that loop."""

from __future__ import annotations

import math

import numpy as np
import pytest
from differential import assert_same_stacked, loop_stacked
from hypothesis import given, settings
from hypothesis import strategies as st

from vectorize import vmap


def _loop(f, *args, shared=()):
    return loop_stacked(f, *args, shared=shared)


def _same(got, want) -> None:
    assert_same_stacked(got, want)


# --- helpers ------------------------------------------------------------------------------

def _bound(x):
    return max(x, -100)


def bounded(x):
    return _bound(x)


def _clip(x):
    """Psychrolib-style: the int bound on some paths."""
    if x < -100:
        return -100
    return x


def clipped_then_scaled(x):
    y = _clip(x) * 2
    return y


def _outer(x):
    z = _clip(x)
    return z


def nested(x):
    return _outer(x)


def _pair(x):
    if x < 0:
        return 0, x
    return x, 1


def first_of_pair(x):
    a, b = _pair(x)
    return a


def pair_returned(x):
    return _pair(x)


def clipped_twice(x, k):
    # (one helper, an argument of two types: a float64 and an int64 lane)
    return _clip(x) + _clip(k)


def _scaled(x, factor=3):
    if x > 0:
        return x * factor
    return factor


def with_default(x):
    r = _scaled(x)
    return r


HELPERS = [bounded, clipped_then_scaled, nested, first_of_pair, pair_returned, with_default]

CALLS = [
    [-200.0, -300.0, -101.0],       # every lane the int path (helpers below: -100, 0, 3)
    [5.0, 2.5, 300.0],              # no lane of it
    [-200.0, 5.0, -0.0, 7.5, -150.0],
    [-250.0],
    [2.0],
]


@pytest.mark.parametrize("f", HELPERS)
@pytest.mark.parametrize("x", CALLS, ids=["int-paths", "float-paths", "mixed", "one-int",
                                          "one-float"])
def test_a_helpers_result_follows_the_paths_of_the_call(f, x):
    x = np.array(x)
    _same(vmap(f)(x), _loop(f, x))


@pytest.mark.parametrize("f", HELPERS)
def test_repeated_calls_of_one_vmap(f):
    vf = vmap(f)
    for x in CALLS + CALLS[::-1]:
        x = np.array(x)
        _same(vf(x), _loop(f, x))


@pytest.mark.parametrize("f", [bounded, nested, with_default])
def test_an_empty_batch_keeps_the_join(f):
    got = vmap(f)(np.zeros(0))
    assert got.shape == (0,) and got.dtype == np.float64


@pytest.mark.parametrize("x, k", [([-200.0, -300.0], [-500, -200]),
                                  ([-200.0, -300.0], [-500, 4]),
                                  ([1.5, -300.0], [-500, -200])])
def test_a_helper_called_with_two_types(x, k):
    x, k = np.array(x), np.array(k)
    _same(vmap(clipped_twice)(x, k), _loop(clipped_twice, x, k))


_FLOATS = st.floats(allow_nan=True, allow_infinity=True, width=64) | st.sampled_from(
    [0.0, -0.0, -100.0, -100.5, -200.0, 1.0, math.inf, -math.inf])


@settings(max_examples=30, deadline=None)
@given(st.lists(_FLOATS, min_size=1, max_size=5), st.sampled_from(HELPERS))
def test_drawn_helpers(values, f):
    x = np.array(values)
    _same(vmap(f)(x), _loop(f, x))


# --- loops and augmented assignments ------------------------------------------------------

def summed(x, n):
    s = 0
    for i in range(n):
        s += x * (i + 0.5)
    return s


def while_summed(x, n):
    s = 0
    i = 0
    while i < n:
        s += x
        i += 1
    return s


def carried_from_int(x):
    s = 0
    while s < x:
        s += 1.5
    return s


@pytest.mark.parametrize("f", [summed, while_summed])
@pytest.mark.parametrize("n", [[0, 0, 0], [0, 2, 1], [1, 3, 2], [0], [2]])
def test_a_sum_from_an_int_zero(f, n):
    n = np.array(n)
    x = np.linspace(1.0, 2.0, len(n))
    _same(vmap(f)(x, n), _loop(f, x, n))


@pytest.mark.parametrize("x", [[-1.0, -2.0], [1.0, -2.0], [2.0, 4.0], [0.0]])
def test_a_while_carry_that_starts_as_an_int(x):
    x = np.array(x)
    _same(vmap(carried_from_int)(x), _loop(carried_from_int, x))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=5))
def test_drawn_sums(n):
    n = np.array(n)
    x = np.arange(len(n), dtype=float) - 1.5
    vf = vmap(summed)
    _same(vf(x, n), _loop(summed, x, n))
    _same(vf(x, n * 0), _loop(summed, x, n * 0))


# --- two operands of several types ----------------------------------------------------------

def two_mixed(x):
    a = x if x > 0 else 0
    b = x if x > 1 else 1
    return a + b


@pytest.mark.parametrize("x", [[-1.0, -2.0], [0.5, -2.0], [3.0, 0.5], [3.0, 4.0], [-0.0]])
def test_two_operands_of_several_types(x):
    x = np.array(x)
    _same(vmap(two_mixed)(x), _loop(two_mixed, x))


# --- a choice the same for every example ------------------------------------------------

def shared_choice(a, b):
    return (not b) + ((not a) if (not b) else a)


@pytest.mark.parametrize("b", [0, 1, 5])
@pytest.mark.parametrize("a", [[1, 0, 5], [0], [-3, 127]])
def test_a_shared_test_is_not_refused(a, b):
    # (`b` the same for every example: the batch keeps Python's `if`, no lane is joined
    # with another, so no join can round a lane's value)
    a, b = np.array(a, dtype=np.int8), np.int8(b)
    _same(vmap(shared_choice, in_axes=(0, None))(a, b), _loop(shared_choice, a, shared=(b,)))


# --- a helper written out is still read by its name ---------------------------------------

def _target(x):
    return max(x, -100)


def _other_target(x):
    return max(x, -50)


def calls_target(x):
    return _target(x)


def test_rebinding_a_helper_written_out_makes_a_new_specialization():
    global _target
    vf = vmap(calls_target)
    x = np.array([-70.0, -300.0])
    _same(vf(x), _loop(calls_target, x))
    saved = _target
    try:
        _target = _other_target
        _same(vf(x), _loop(calls_target, x))
    finally:
        _target = saved
    _same(vf(x), _loop(calls_target, x))


# --- shapes of helpers and calls written out -------------------------------------------------

def _scaled_twice(x, factor=3):
    z = x * 2
    if x > 0:
        return z * factor
    return factor


def keyword_and_local(x):
    z = 1.0         # (the helper's `z` is another variable)
    r = _scaled_twice(x, factor=2)
    return r + z - 1.0 if x > 5 else r


def in_a_test(x):
    if _clip(x) > -100:
        r = x
    else:
        r = _clip(x)
    return r


def _descend(x):
    # (PsychroLib's dew point: a bounded Newton loop left by `break`)
    t = x
    while True:
        t_old = t
        t = max(t - 1.0, -100)
        if abs(t - t_old) < 1.5:
            break
    return min(t, 0)


def descended(x):
    return _descend(x)


def _checked(x):
    if x > 1e3:
        raise ValueError("too big")
    if x < 0:
        return 0
    return x


def checked(x):
    return _checked(x)


@pytest.mark.parametrize("f", [keyword_and_local, in_a_test, descended, checked])
@pytest.mark.parametrize("x", [[-200.0, -300.0], [-200.0, 5.0, 7.0], [3.0, 9.0], [-150.0],
                               [-0.5, -2.0]])
def test_shapes_of_helpers(f, x):
    x = np.array(x)
    _same(vmap(f)(x), _loop(f, x))


def test_a_helper_that_raises_raises_as_the_loop():
    x = np.array([-5.0, 2000.0])
    with pytest.raises(ValueError):
        _loop(checked, x)
    with pytest.raises(ValueError):
        vmap(checked)(x)


# --- a helper of another module -----------------------------------------------------------

_OTHER = '''LIMIT = -100


def bound(x):
    if x < LIMIT:
        return LIMIT
    return abs_of(x) * sign_of(x)


def abs_of(x):
    return abs(x)


def sign_of(x):
    return -1.0 if x < 0 else 1.0
'''


def test_a_helper_of_another_module(tmp_path, monkeypatch):
    import importlib
    (tmp_path / "kinds33_other.py").write_text(_OTHER)
    monkeypatch.syspath_prepend(str(tmp_path))
    other = importlib.import_module("kinds33_other")
    bound = other.bound

    def f(x):
        return bound(x)

    vf = vmap(f)
    for x in ([-200.0, -300.0], [-200.0, 5.0], [-70.0, 3.0]):
        x = np.array(x)
        _same(vf(x), _loop(f, x))
    # (the helper's module global rebound: a new specialization reads it)
    monkeypatch.setattr(other, "LIMIT", -50)
    x = np.array([-70.0, -300.0])
    _same(vf(x), _loop(f, x))
