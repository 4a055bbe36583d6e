"""A walrus in an ``if``/``elif``/``while`` test (`body_sugar.walrus_as_assignment`): the
assignments the test always evaluates move before it (a ``while`` becomes ``while True``
with ``if not test: break``), so loops and per-example branches that bind a name in their
test vectorize, and equal numpy.vectorize. Before, a walrus in a ``while`` test was refused
as "name `t0_if` is not defined", a name the engine made up."""

import inspect
import math
import textwrap

import libcst as cst
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vectorize import VectorizeError, vectorize
from vectorize.body_sugar import walrus_as_assignment


def halve_while_large(x):
    while (t0 := x * 0.5) > 1:
        x = t0
    return x


def count_until(x):
    i = 0
    while (t0 := i * x) < 10 and i < 20:
        i += 1
    return t0


def elif_chain(x):
    if x < 0:
        r = 0.0
    elif (t0 := x * 2) > 3 and (t1 := t0 + 1) > 0:
        r = t0 + t1
    elif (t2 := x - 1) > 0:
        r = t2
    else:
        r = -1.0
    return r


def loop_with_continue(x):
    n = 0
    while (t0 := x * 0.5) > 1:
        x = t0
        n += 1
        if n > 2:
            continue
        x -= 0.1
    return x + n


def walrus_in_a_for(x):
    y = 0.0
    for k in range(4):
        if (t0 := x * k) > 2:
            y += t0
    return y


def conditional_walrus_stays(x):
    # `(y := x - 1)` is on the else side only: not moved; the ternary binds it per lane
    return x if (y := x + 1) > 2 else -(y := x - 1) + y


FUNCS = [halve_while_large, count_until, elif_chain, loop_with_continue, walrus_in_a_for,
         conditional_walrus_stays]


def _check(f, x):
    want = np.vectorize(f)(x)
    got = vectorize(f, fallback="error")(x)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("n", [1, 5, 10_000])
@pytest.mark.parametrize("f", FUNCS, ids=lambda f: f.__name__)
def test_walrus_tests_equal_numpy_vectorize(f, n):
    rng = np.random.default_rng(n)
    x = rng.uniform(-5, 40, n)
    if f is count_until:
        x = np.abs(x) + 0.5      # i * x < 10 needs a positive step to end early
    for _ in range(2):
        _check(f, x)


def test_an_empty_batch():
    assert vectorize(halve_while_large)(np.array([])).shape == (0,)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=6))
def test_walrus_hypothesis(values):
    x = np.array(values)
    for f in (halve_while_large, elif_chain, walrus_in_a_for):
        _check(f, x)


def _lowered(f) -> str:
    tree = cst.parse_module(textwrap.dedent(inspect.getsource(f))).body[0]
    return cst.Module([walrus_as_assignment(tree)]).code


def test_the_rewrite_reads_like_the_code_one_would_write():
    assert "while True:\n        t0 = x * 0.5\n        if not (t0 > 1):\n            break" \
        in _lowered(halve_while_large)
    assert ("else:\n        t0 = x * 2\n        matched = False\n        if t0 > 3:\n"
            "            t1 = t0 + 1\n            matched = t1 > 0\n        if matched:\n"
            "            r = t0 + t1\n        else:\n            t2 = x - 1\n") in \
        _lowered(elif_chain)


UNCHANGED = {   # walruses a test does not always evaluate stay where they are
    "ternary branch": "def f(x):\n    if (x if x > 0 else (y := 1)) > 0:\n        return 1\n"
                      "    return 0\n",
    "comprehension": "def f(x):\n    if any((y := v) > 0 for v in (x, 1)):\n"
                     "        return 1\n    return 0\n",
    "while with else": "def f(x):\n    while (y := x) > 1:\n        x = y / 2\n"
                       "    else:\n        x = 0\n    return x\n",
}


@pytest.mark.parametrize("name", list(UNCHANGED))
def test_walruses_evaluated_on_some_paths_stay(name):
    tree = cst.parse_module(UNCHANGED[name]).body[0]
    assert cst.Module([walrus_as_assignment(tree)]).code == UNCHANGED[name]


MOVES_WOULD_CHANGE_READS = {   # the target read before the walrus, or a value reading a
    #                            name a conditional walrus assigns: kept as written
    "read before": "def f(x):\n    if x > (x := 5):\n        return 1\n    return 0\n",
    "conditional then unconditional": "def f(x):\n    if (x and (b := 1)) + (c := b) > 0:\n"
                                      "        return c\n    return 0\n",
}


@pytest.mark.parametrize("name", list(MOVES_WOULD_CHANGE_READS))
def test_walruses_whose_move_would_change_a_read_stay(name):
    tree = cst.parse_module(MOVES_WOULD_CHANGE_READS[name]).body[0]
    assert cst.Module([walrus_as_assignment(tree)]).code == MOVES_WOULD_CHANGE_READS[name]


def own_value(x):
    y = 1.0
    if (y := y + x) > 2:      # reads the old y inside its own value: moved
        return y
    return -y


def test_a_walrus_reading_its_own_target_moves():
    assert "y = y + x\n    if y > 2:" in _lowered(own_value)
    _check(own_value, np.array([0.5, 1.5, 3.0, -1.0]))


def right_of_and(x):
    if x > 0 and (t0 := math.sqrt(x)) > 1:
        return t0
    return 0.0


def right_of_and_with_else(x):
    while x > 1:
        if x > 5 and (t0 := x / 3) > 2:
            x = t0
        else:
            x = x - 1
    return x


def right_of_and_in_a_while_test(x):
    i = 0
    t0 = 0.0
    while i < 10 and (t0 := x * i) < 5:
        i += 1
    return i + t0


@pytest.mark.parametrize("n", [1, 5, 10_000])
@pytest.mark.parametrize("f", [right_of_and, right_of_and_with_else,
                               right_of_and_in_a_while_test], ids=lambda f: f.__name__)
def test_a_walrus_on_the_right_of_and(f, n):
    # split where `and` evaluates it: `if a: t0 = e; if t0 > 1: ...` (a flag with `else`);
    # before, refused as "`t0` is assigned only when the condition is true"
    x = np.random.default_rng(n).uniform(-5, 40, n)
    _check(f, x)


def test_the_split_reads_like_the_code_one_would_write():
    assert "if x > 0:\n        t0 = math.sqrt(x)\n        if t0 > 1:\n" in \
        _lowered(right_of_and)
    assert ("matched = False\n        if x > 5:\n            t0 = x / 3\n"
            "            matched = t0 > 2\n        if matched:") in \
        _lowered(right_of_and_with_else)


def reads_after_a_conditional_walrus(x):
    i = 0
    t0 = 0.0
    while i < 10 and (t0 := x * i) < 5:
        i += 1
    return i + t0         # the examples that stop at i == 10 keep t0 from i == 9


def ternary_walrus_read_after(x):
    s = 0.0
    while x > 1:
        s += (t0 := x / 2) if x > 3 else (t0 := x - 1)
        x = t0
    return s


@pytest.mark.parametrize("n", [1, 5, 1000])
def test_a_walrus_some_examples_skip_keeps_their_old_value(n):
    # before: the walrus ran on every lane, overwriting t0 where Python skips it (wrong
    # values); now the `and` is split (right), or the construct is refused where it is
    x = np.random.default_rng(n).uniform(-5, 40, n)
    _check(reads_after_a_conditional_walrus, x)
    with pytest.raises(VectorizeError, match=r"test_walrus_tests\.py:\d+:\d+") as info:
        vectorize(ternary_walrus_read_after, fallback="error")(x)
    assert "`t0 := ...` runs on some examples only" in str(info.value)
