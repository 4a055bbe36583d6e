"""`vmap` results that are a Python int on some paths of a helper and a NumPy float on others,
where the helper is called under a conditional expression or ``and``/``or``, returns inside
a loop, or calls itself (lets_be_rational's ``normalised_black_call`` shape): each call's
result has the type the per-example loop's ``np.stack`` gives the lanes of that call,
differentially against that loop (the helper is written out into the caller:
`inline_helpers`)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from differential import assert_same_stacked, loop_stacked
from hypothesis import given, settings
from hypothesis import strategies as st

from vectorize import vmap


def _loop(f, *args):
    """The reference (`differential.loop_stacked`); an exception: its type."""
    try:
        return loop_stacked(f, *args)
    except Exception as exc:  # noqa: BLE001 -- compared by type
        return type(exc)


def _ours(f, *args, vf=None):
    try:
        return (vf or vmap(f))(*args)
    except Exception as exc:  # noqa: BLE001 -- compared by type
        return type(exc)


def _same(got, want) -> None:
    if isinstance(want, type):
        assert got is want, (got, want)
        return
    assert_same_stacked(got, want)


def _clip(x):
    if x < -100:
        return -100
    return x


# --- a helper called under a conditional expression or and/or -----------------------------

def in_a_conditional(x):
    return _clip(x) if x < 1000 else 0.5


def assigned_from_a_conditional(x):
    y = _clip(x) if x < 1000 else x
    return y


def in_arithmetic_of_a_conditional(x):
    y = 2 * (_clip(x) if x < 1000 else x)
    return y


def nested_conditionals(x):
    return _clip(x) if x < 1000 else (_clip(x - 5000.0) if x < 5000 else -1)


def after_and(x):
    return x > -1e9 and _clip(x)


def after_or(x):
    return x < -1e9 or _clip(x)


# --- a helper that returns inside a loop ---------------------------------------------------

def _first_bounded(x):
    for _k in range(3):
        if x < -100:
            return -100
        x = x + 1.0
    return x


def _while_bounded(x):
    while x < 10:
        if x < -100:
            return 0
        x = x + 50.0
    return x


def _nested_loops(x):
    for _i in range(2):
        for _j in range(2):
            if x < -100:
                return -100
            x = x * 1.0
        x = x - 0.0
    return x


def _pair_in_loop(x):
    for _k in range(2):
        if x < -100:
            return -100, 0
    return x, 1.5


def for_return(x):
    return _first_bounded(x)


def while_return(x):
    y = _while_bounded(x)
    return y


def nested_loop_return(x):
    return _nested_loops(x)


def pair_from_a_loop(x):
    a, b = _pair_in_loop(x)
    return a, b


# --- a helper that calls itself --------------------------------------------------------------

def _reflected(x):
    # (normalised_black_call: `if x > 0: return g(x) + f(-x, s)`, a per-example base case)
    if x > 0:
        return _reflected(-x) + 1.0
    if x < -100:
        return 0
    return x


def reflected(x):
    return _reflected(x)


def _halved(x, n):
    if x < -100:
        return -100
    if n == 0:
        return x
    return _halved(x * 0.5, n - 1)


def halved_deep(x):
    # (deeper than the written-out levels: the per-example loop decides those calls)
    return _halved(x, 4)


def and_chain(x):
    return x > -1e9 and x < 1e9 and _clip(x)


def or_of_and(x):
    return x > 1e9 or x > -1e9 and _clip(x)


def augmented(x):
    s = 0.5
    s += _clip(x) if x < 1e9 else 0
    return s


def _endless(x):
    while True:
        if x < -100:
            return -100
        if x > 0:
            return x
        x = x + 30.0


def endless_loop(x):
    return _endless(x)


def called_in_a_loop(x):
    s = 0
    for _i in range(2):
        s = _endless(x)
    return s


FUNCTIONS = [in_a_conditional, assigned_from_a_conditional, in_arithmetic_of_a_conditional,
             nested_conditionals, after_and, after_or, for_return, while_return,
             nested_loop_return, pair_from_a_loop, reflected, halved_deep, and_chain,
             or_of_and, augmented, endless_loop, called_in_a_loop]

CALLS = [
    [-200.0, -300.0, -101.0],       # every lane the int path
    [5.0, 2.5, 300.0],              # no lane of it
    [-200.0, 5.0, -0.0, 7.5, -150.0],
    [-250.0],
    [2.0],
]


@pytest.mark.parametrize("f", FUNCTIONS)
@pytest.mark.parametrize("x", CALLS, ids=["int-paths", "float-paths", "mixed", "one-int",
                                          "one-float"])
def test_each_call_has_the_type_of_its_paths(f, x):
    x = np.array(x)
    _same(_ours(f, x), _loop(f, x))


@pytest.mark.parametrize("f", FUNCTIONS)
def test_repeated_calls_of_one_vmap(f):
    vf = vmap(f)
    for x in CALLS[:3] + CALLS[:1]:
        x = np.array(x)
        _same(_ours(f, x, vf=vf), _loop(f, x))


@pytest.mark.parametrize("f", [in_a_conditional, for_return, reflected])
def test_an_empty_batch_keeps_the_join(f):
    got = vmap(f)(np.zeros(0))
    assert got.shape == (0,) and got.dtype == np.float64


_FLOATS = st.floats(allow_nan=True, allow_infinity=True, width=64) | st.sampled_from(
    [0.0, -0.0, -100.0, -100.5, -200.0, 150.0, 1e6, math.inf, -math.inf])


@settings(max_examples=15, deadline=None)
@given(st.lists(_FLOATS, min_size=1, max_size=5), st.sampled_from(FUNCTIONS))
def test_drawn(values, f):
    x = np.array(values)
    _same(_ours(f, x), _loop(f, x))


def _intrinsic(x):
    return x * 0.5


def _black(x, s):
    # (lets_be_rational's normalised_black_call: the reflection, then per-example bases)
    if x > 0:
        return _intrinsic(x) + _black(-x, s)
    ax = math.fabs(x)
    if s <= ax * 0.01:
        return _intrinsic(x)
    if x < -100:
        return 0
    return x * s


def black(x, s):
    return _black(x, s)


@pytest.mark.parametrize("x, s", [([-200.0, -300.0], [0.5, 3.0]),
                                  ([-200.0, 5.0, 300.0], [3.0, 0.5, 0.5]),
                                  ([-200.0], [0.001]), ([1.0, 2.0], [0.5, 0.5])])
def test_a_reflected_recursion_with_two_arguments(x, s):
    x, s = np.array(x), np.array(s)
    _same(_ours(black, x, s), _loop(black, x, s))
