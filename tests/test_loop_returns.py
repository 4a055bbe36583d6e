"""Early returns from loops, nested loops with helpers, and per-example fallback pieces
(issue 13, items 2 to 5), each against the per-example loop.

Every function runs under `vmap` (and, where it applies, ``vectorize(signature=...)``) at
N = 0, 1 and 5, and twelve times in a row at a large N, where `chunk_size="auto"` times the
compacted form against the select form: each call must give the per-example results.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_array_corpus import assert_same, per_example

from vectorize import vectorize, vmap

LARGE = 20_000
REPEATS = 12


# ----------------------------------------------------------------------------- the checks
def check(f, make, in_axes, call=None):
    """``call(f)`` (default ``vmap(f, in_axes)``) on ``make(rng, n)`` at n = 0, 1, 5 and
    `REPEATS` times at `LARGE`, against the per-example results."""
    rng = np.random.default_rng(7)
    mapped = call(f) if call else vmap(f, in_axes=in_axes)
    for n in (0, 1, 5):
        args = make(rng, n)
        assert_same(mapped(*args), per_example(f, args, in_axes), f"{f.__name__} at N={n}: ")
    args = make(rng, LARGE)
    expected = per_example(f, args, in_axes)
    for k in range(REPEATS):
        assert_same(mapped(*args), expected, f"{f.__name__} at N={LARGE}, call {k + 1}: ")


def vectors(width=4, scale=1.0):
    """(v, x): per-example vectors of ``width`` and per-example numbers."""
    def make(rng, n):
        return rng.random((n, width)), rng.random(n) * scale
    return make


def vector_and_shared(rng, n):
    return rng.random((n, 4)), np.random.default_rng(3).random(4)


# ------------------------------------------- item 3: nested loops, early returns, helpers
def _first_step(a, t):
    for k in range(3):
        if a > t * k:
            return a - k
    return a


def _halvings(a, t):
    n = 0
    while a > t and n < 5:
        a = a / 2
        n += 1
        if n > 3:
            return -a
    return a


def inner_while_then_helper(v, x):
    for i in range(len(v)):
        j = 0
        while j < i:
            if v[j] + v[i] > 2 * x:
                return _first_step(v[i], x)
            j += 1
        if v[i] < x / 3:
            return v[i]
    y = _first_step(x, 0.5)
    return y * 2


def inner_for_then_helper(v, x):
    for i in range(len(v)):
        for j in range(2):
            if v[j] + v[i] > 2 * x:
                return v[i]
    return _first_step(x, 0.5)


def sums_then_helpers(v, x):
    s = 0.0
    for i in range(len(v)):
        for j in range(len(v)):
            if v[i] * v[j] > x:
                return s + _first_step(v[j], x)
            s += v[j]
        if s > 3 * x:
            return s
    t = _halvings(s, x)
    if t > 1:
        return t
    return -t


def helper_before_and_after(v, x):
    r = _first_step(x, 0.3)
    for i in range(len(v)):
        if v[i] > r:
            for j in range(i):
                if v[j] > x:
                    return r + j
            return r
    r = r + _halvings(x, 0.2)
    if r > 0.5:
        return r * 3
    return r


def totals_with_a_shared_exit(v, x):
    total = 0.0
    for _ in range(2):
        if x > 0.9:
            return 0.0
        for j in range(len(v)):
            if v[j] > x:
                total += _first_step(v[j], x)
                if total > 2:
                    return total
    if total > 1:
        return _halvings(total, x)
    return total


NESTED = [inner_while_then_helper, inner_for_then_helper, sums_then_helpers,
          helper_before_and_after, totals_with_a_shared_exit]


@pytest.mark.parametrize("f", NESTED, ids=lambda f: f.__name__)
def test_nested_loops_with_early_returns_and_helpers(f):
    """The flag an inner loop's return sets is tested again after the outer loop; only the
    `if` after the outer loop may be compacted under its name (it was taken for both, and
    the inner `if` stayed a Python `if` on a per-example flag)."""
    check(f, vectors(), (0, 0))


@pytest.mark.parametrize("f", NESTED, ids=lambda f: f.__name__)
def test_nested_loops_with_early_returns_and_helpers_with_a_signature(f):
    check(f, vectors(), (0, 0), call=lambda f: vectorize(f, signature="(n),()->()",
                                                         fallback="error"))


