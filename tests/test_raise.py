"""``raise`` under a per-example condition (issue 13, item 9c): the batch raises the same
exception, with the message of the first example that raises, if any example raises, and
runs as the per-example loop does when none does; lanes that Python keeps out (the other
branch of an enclosing per-example ``if``, finished lanes of a loop) never raise.

Each function is called on inputs where no example raises but the raising condition holds
on lanes Python keeps out, and on inputs where exactly one example (at a random place)
raises, at N = 0, 1, 5 and 12 times at a large N (`batch_sizes.check_sizes`).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from batch_sizes import check_sizes

from vectorize import vectorize, vmap


def validity_check(x, y):
    if x < 0:
        raise ValueError("negative input")
    return np.sqrt(x) + y


def check_in_the_else_branch(x, y):
    if x >= 0:
        r = math.sqrt(x)
    else:
        raise ValueError("negative input")
    return r + y


def nested_condition(x, y):
    if y > 0:
        if x < 0:
            raise ValueError("negative x where y > 0")
        z = x * 2
    else:
        z = -x
    return z


def elif_chain(x, y):
    if y > 1:
        return x
    elif x < 0:
        raise ArithmeticError("negative x for y <= 1")
    else:
        return x + y


def after_an_early_return(x, y):
    if y > 0:
        return y
    if x < 0:
        raise ValueError("negative x")
    return x * y


def message_of_the_example(x, y):
    if x < 0:
        raise ValueError(f"negative input {x} (y = {y:.3f})")
    return x - y


def statements_before_the_raise(x, y):
    if x < 0:
        z = -x
        raise ValueError(f"negative input, |x| = {z}")
    return x + y


def while_loop(x, y):
    k = 0
    while x > 1.0:
        x = x / 2
        k += 1
        if k > 3 and y < 0:
            raise RuntimeError("too many halvings for a negative y")
    return k


ALL = [validity_check, check_in_the_else_branch, nested_condition, elif_chain,
       after_an_early_return, message_of_the_example, statements_before_the_raise, while_loop]


def _valid(f):
    """Inputs on which no example raises, though the raising condition holds on lanes
    Python keeps out (y <= 0 for `nested_condition`, y > 1 for `elif_chain`...)."""
    def make(n):
        rng = np.random.default_rng(n)
        x, y = rng.normal(size=n), rng.normal(size=n)
        if f in (validity_check, check_in_the_else_branch, message_of_the_example,
                 statements_before_the_raise):
            x = np.abs(x)
        elif f is nested_condition:
            x = np.where(y > 0, np.abs(x), x)
        elif f is elif_chain:
            x = np.where(y <= 1, np.abs(x), x)
        elif f is after_an_early_return:
            x = np.where(y <= 0, np.abs(x), x)
        elif f is while_loop:
            x = np.abs(x) * 20
            y = np.where(x > 16, np.abs(y), y)
        return x, y
    return make


def _one_raises(f):
    """Valid inputs but for one example, which raises (two, for the message of the first)."""
    valid = _valid(f)

    def make(n):
        x, y = valid(n)
        if n:
            rng = np.random.default_rng(n + 1)
            for lane in sorted(rng.choice(n, size=min(n, 2), replace=False)):
                x[lane], y[lane] = -(lane + 1.5) if f is not while_loop else 100.0, \
                    -0.5 if f is not while_loop else -1.0
        return x, y
    return make


@pytest.mark.parametrize("f", ALL, ids=lambda f: f.__name__)
@pytest.mark.parametrize("entry", ["vectorize", "vmap"])
def test_raise_under_a_per_example_condition(f, entry):
    wrapped = vectorize(f, fallback="error") if entry == "vectorize" else vmap(f)
    check_sizes(wrapped, f, _valid(f), message=True)
    check_sizes(wrapped, f, _one_raises(f), message=True)


def test_the_check_reads_naturally():
    source = vectorize(validity_check, fallback="error").source(np.ones(3), np.ones(3))
    assert 'if np.any(x < 0.0):\n        raise ValueError("negative input")' in source
    source = vectorize(message_of_the_example, fallback="error").source(np.ones(3),
                                                                        np.ones(3))
    assert "lane = np.argmax(failed)" in source and "{x[lane]}" in source


def test_finished_lanes_of_a_loop_do_not_raise():
    def make(n):
        rng = np.random.default_rng(n)
        v = rng.random((n, 6))
        x = rng.random(n)
        v[:, -1] = -1.0     # after the break on most lanes
        v[:, 0] = x + 1.0   # every lane breaks at once...
        v[n // 2:, 0] = x[n // 2:] * 0.5    # ...but half of them, which see only >= 0
        v[n // 2:, 1:] = np.abs(v[n // 2:, 1:])
        return v, x
    check_sizes(vmap(_break_then_check), _break_then_check, make, message=True)


def _break_then_check(v, x):
    total = 0.0
    for i in range(len(v)):
        if v[i] > x:
            break
        if v[i] < 0:
            raise ValueError(f"negative entry at {i}")
        total += v[i]
    return total


def _raises_in_a_helper(x):
    if x < 0:
        raise ValueError("negative")
    return x


def calls_a_raising_helper(x):
    if x > 1:
        return _raises_in_a_helper(x - 2)
    return x


def test_a_helper_that_raises_under_its_own_condition():
    # the caller's condition is not the helper's: a lane that never calls it (0.5 here:
    # 0.5 - 2 < 0) makes the batched helper raise; `vectorize` then runs numpy.vectorize's
    # loop, which decides: no example raises here (the old contract refused the helper)
    x = np.array([0.5, 3.0])
    np.testing.assert_array_equal(vectorize(calls_a_raising_helper, fallback="error")(x),
                                  np.vectorize(calls_a_raising_helper)(x))
    with pytest.raises(ValueError, match="negative"):
        vectorize(calls_a_raising_helper, fallback="error")(np.array([0.5, 1.5]))
    # vmap replays its per-example loop (NumPy scalars) the same way
    from vectorize import vmap
    np.testing.assert_array_equal(vmap(calls_a_raising_helper, fallback="error")(x),
                                  np.array([calls_a_raising_helper(v) for v in x]))
    with pytest.raises(ValueError, match="negative"):
        vmap(calls_a_raising_helper, fallback="error")(np.array([0.5, 1.5]))


@pytest.mark.parametrize("chunk_size", ["auto", 1000])
def test_the_first_example_that_raises_gives_the_message_in_chunks_on_threads(chunk_size):
    n = 40_000
    x, y = np.abs(np.random.default_rng(5).normal(size=(2, n)))
    x[[999, 1000, 39_000]] = [-1.0, -2.0, -3.0]
    for _ in range(REPEATS * 4):
        with pytest.raises(ValueError) as info:
            vectorize(message_of_the_example, fallback="error", chunk_size=chunk_size)(x, y)
        assert str(info.value) == f"negative input -1.0 (y = {y[999]:.3f})"


REPEATS = 12
