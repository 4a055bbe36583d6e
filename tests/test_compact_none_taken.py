"""Compacted ``if``s and early returns where no lane takes the branch, and the cheap spelling
of a division's zero check (issue 21).

Where no lane takes a compacted ``if`` (``lanes`` empty), the ``else`` runs on the whole batch
without gathers and the values after it need no scatters, and a compacted loop that every
lane enters starts without gathers (`passes.compact`); a division's check is
``not merge.all_lanes(x)`` (`rules.lanes`). Each form is checked against `numpy.vectorize` (the
reference: equal values and dtypes, the same exception) with `fallback="error"` (a failure of
the generated code is never hidden by the per-example replay), on batches where no lane,
every lane and some lanes return early, at N = 0, 1, 5 and 10,000; the caller's arrays are
never changed.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_array_corpus import assert_same, per_example

from vectorize import vectorize, vmap

SIZES = (0, 1, 5, 10_000)


# ------------------------------------------------------------------------- the functions
def newton_step(x, a):
    return 0.5 * (x + a / x)


def sqrt_newton(a):
    if a < 0:
        return math.nan
    if a == 0:
        return 0.0
    x = max(a, 1.0)
    while abs(x * x - a) > 1e-12 * a:
        x = newton_step(x, a)
    return x


def int_or_float(a, n):
    """The early return an int, the rest a float: the result's dtype is the first lane's, as
    numpy.vectorize learns it (an int64 array of truncated floats where the first lane
    returns an int: docs/semantics.md, "Output types")."""
    if a > n:
        return 1
    b = a * 2.0
    if b < -1.0:
        return -1
    return b + n


def counter(x):
    """A shared counter in one branch, a per-example flag in the other."""
    count = 0
    big = False
    if x > 2.0:  # vectorize: compact
        count += 1
    else:
        big = x < -2.0
    return count + big


def reciprocal(x, y):
    """A division by a per-example value behind an early return: raises on the lanes that
    get there only."""
    if x < 0:
        return 0.0
    return x / y


def reference(f, *args, otypes=None):
    """`numpy.vectorize`'s result; an empty batch (where it cannot tell a dtype): the dtype
    of the function's result on a zero example."""
    if any(np.size(a) == 0 for a in args):
        return per_example(f, args, [0 if np.ndim(a) else None for a in args])
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return np.vectorize(f, otypes=otypes)(*args)


def check(f, *args, otypes=None):
    ours = vectorize(f, fallback="error")
    try:
        expected = reference(f, *args, otypes=otypes)
    except Exception as e:          # noqa: BLE001 (the same exception type, ours too)
        with pytest.raises(type(e)):
            ours(*args)
        return ours
    kept = [np.copy(a) for a in args]
    got = ours(*args)
    assert_same(got, expected, f"{f.__name__}: ")
    for a, b in zip(args, kept):
        np.testing.assert_array_equal(a, b)     # the caller's arrays as they were
    return ours


def batches(n, rng):
    """Where no lane returns early, where every lane does, where some do."""
    positive = rng.uniform(0.5, 1e6, n)
    yield positive
    yield -positive
    mixed = rng.uniform(-1.0, 1e3, n)
    mixed[::3] = 0.0
    yield mixed
    some = rng.uniform(0.5, 1e6, n)
    some[1::4] = 1.0            # no early return; these lanes do not enter the loop
    yield some


# ----------------------------------------------------------------------------- the tests
@pytest.mark.parametrize("n", SIZES)
def test_sqrt_newton_against_numpy_vectorize(n):
    rng = np.random.default_rng(n)
    for a in batches(n, rng):
        check(sqrt_newton, a)


def test_none_taken_form_is_written():
    """The generated code takes the whole batch without gathers where no lane returns, and
    writes no check of the divisor: `x` is proven positive (`max(a, 1.0)`, then Newton steps
    for `a > 0`: analysis.ranges)."""
    a = np.array([1.0, 4.0, 9.0])
    source = vectorize(sqrt_newton).source(a)
    assert "if lanes.size:" in source and "a_else = a\n" in source
    assert "result = result_else_2.astype(np.float64)" in source
    assert "if not merge.all_lanes(x):" not in source and "np.any(x == 0)" not in source
    assert "ZeroDivisionError" not in source
    # every lane entering the loop: it starts on the arrays themselves
    # (inside the loop's np.errstate: the invariant `1e-12 * a` is computed there once)
    assert "        x_lanes = x\n        a_lanes = a_else_2\n" in source
    assert "if lanes_3.size < len(active) or not lanes_3.size:\n" \
        "            x = x.astype(np.float64)\n            x_lanes = x[lanes_3]\n" in source


@pytest.mark.parametrize("n", SIZES)
def test_int_or_float_dtypes(n):
    rng = np.random.default_rng(n + 1)
    for a in batches(n, rng):
        for shift in (-1e7, 10.0, 1e7):     # every lane, some lanes, no lane returns 1
            if n == 0:      # (the dtype of an empty batch is the select form's, no lane's)
                assert vectorize(int_or_float, fallback="error")(a, shift).shape == (0,)
            else:
                check(int_or_float, a, shift)


@pytest.mark.parametrize("n", SIZES)
def test_shared_value_joined_when_no_lane_takes_the_branch(n):
    rng = np.random.default_rng(n + 2)
    for x in (rng.uniform(-1.0, 1.0, n), rng.uniform(3.0, 4.0, n), rng.uniform(-9, 9, n)):
        check(counter, x)


def test_zero_divisor_raises_where_a_lane_reaches_it():
    x = np.array([1.0, -2.0, 3.0])
    check(reciprocal, x, np.array([1.0, 0.0, 2.0]))     # the zero on a lane that returned
    check(reciprocal, x, np.array([1.0, 2.0, -0.0]))    # -0.0 reached: ZeroDivisionError
    check(reciprocal, x, np.array([np.nan, 1.0, np.inf]))
    with pytest.raises(ZeroDivisionError):
        vectorize(reciprocal, fallback="error")(x, np.array([0.0, 1.0, 1.0]))


edges = st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.5, 1e-300, 1e300, math.nan, math.inf,
                         -math.inf])
numbers = st.one_of(st.floats(-1e6, 1e6), edges)


@settings(max_examples=40, deadline=None)
@given(st.lists(numbers, max_size=8), st.lists(numbers, min_size=8, max_size=8))
def test_hypothesis_early_returns(xs, ys):
    x = np.array(xs, dtype=np.float64)
    y = np.array(ys[:len(xs)], dtype=np.float64)
    check(sqrt_newton, x)
    check(reciprocal, x, y)
    if len(x):
        check(int_or_float, x, 1.0)


# ------------------------------------------------- vmap: per-example rows are never aliased
def rows_or_zeros(v, x):
    """Rows returned as they are after an early return: the result is a new array, never
    the caller's."""
    if x > 10.0:  # vectorize: compact
        return v * 0.0
    return v


@pytest.mark.parametrize("n", SIZES)
def test_rows_returned_are_not_the_callers_array(n):
    rng = np.random.default_rng(n + 3)
    for x in (rng.uniform(0.0, 1.0, n), rng.uniform(11.0, 12.0, n), rng.uniform(0, 20, n)):
        v = rng.random((n, 3))
        kept = v.copy()
        expected = per_example(rows_or_zeros, (v, x), (0, 0))
        got = vmap(rows_or_zeros)(v, x)
        assert_same(got, expected, "rows_or_zeros: ")
        assert not np.shares_memory(got, v)
        np.testing.assert_array_equal(v, kept)
    source = vmap(rows_or_zeros).source(v, x)
    assert "v_else = v.copy()" in source and "result = result_else.astype" in source
