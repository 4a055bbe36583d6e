"""Compacted loops whose lanes iterate from 0 to 100 times, against the simple masked form
(issue 20: loops that pay for the slow lanes only).

Every optimized form of a per-example loop (`passes/compact.py`: the gathered lanes, the
rent-or-buy compactions, the merges skipped while every lane runs, the carries never merged,
the scalar tail in Python numbers) must give its ``# vectorize: select`` twin's bits (the
masked loop: every lane runs until the last finishes) and numpy.vectorize's values and dtype,
or raise numpy.vectorize's exception type (`differential.check_twins`). The lanes' iteration
counts are drawn (hypothesis) from 0 to 100, heavy-tailed so that the loops compact several
times and end in the scalar tail, on batches of 0, 1, 5 and a few hundred to a few thousand
examples, with NaN and infinite inputs; ``while`` loops, ``for`` loops left by ``break`` and
``while`` loops left by ``return``.
"""

from __future__ import annotations

import math
import re

import hypothesis.strategies as st
import numpy as np
import pytest
from differential import check_twins
from hypothesis import HealthCheck, given, settings

import vectorize as vz


# ------------------------------------------------------------------ per-example functions
def countdown(n, x, c):
    k = 0
    while k < n:
        x = 0.5 * x + c
        k += 1
    return x


def countdown_select(n, x, c):
    k = 0
    while k < n:  # vectorize: select
        x = 0.5 * x + c
        k += 1
    return x


def halve_to(x, tol):
    # halves |x| until it is under tol: about log2(|x| / tol) passes; NaN never enters
    # (an infinity would never leave)
    steps = 0
    while abs(x) > tol:
        x = x * 0.5
        steps += 1
    return x + steps


def halve_to_select(x, tol):
    steps = 0
    while abs(x) > tol:  # vectorize: select
        x = x * 0.5
        steps += 1
    return x + steps


def grow_break(x, limit):
    # left by a per-example break after about log2(limit / x) passes, at most 100
    total = 0.0
    for _ in range(100):
        x = x * 2.0
        total = total + x
        if x > limit:
            break
    return total


def grow_break_select(x, limit):
    total = 0.0
    for _ in range(100):  # vectorize: select
        x = x * 2.0
        total = total + x
        if x > limit:
            break
    return total


def grow_return(x, limit):
    # left by an early return (or by its test: NaN never enters, stays NaN)
    k = 0
    while k < 100:
        x = x * 2.0 + 1.0
        if x > limit:
            return x - k
        k += 1
    return -1.0


def grow_return_select(x, limit):
    k = 0
    while k < 100:  # vectorize: select
        x = x * 2.0 + 1.0
        if x > limit:
            return x - k
        k += 1
    return -1.0


# ----------------------------------------------------------------------------- the inputs
def _counts(n: int, seed: int, tail: float) -> np.ndarray:
    """``n`` iteration counts from 0 to 100: most small, a heavy tail (a Pareto of shape
    ``tail``), a few at the cap."""
    rng = np.random.default_rng(seed)
    counts = np.minimum(np.floor(rng.pareto(tail, n) * 3.0), 100).astype(np.int64)
    if n:
        counts[rng.integers(0, n, max(1, n // 200))] = 100
    return counts


def _specials(values: np.ndarray, seed: int, share: float, infinite=True) -> np.ndarray:
    """``values`` with a ``share`` of their lanes NaN, inf or -inf (NaN only where not
    ``infinite``: a loop that halves an infinity runs forever)."""
    rng = np.random.default_rng(seed + 1)
    out = values.copy()
    hit = rng.random(values.size) < share
    out[hit] = rng.choice([math.nan, math.inf, -math.inf] if infinite else [math.nan],
                          int(hit.sum()))
    return out


SIZES = st.sampled_from([0, 1, 5, 300, 2000])
CASES = settings(max_examples=12, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow])


@CASES
@given(n=SIZES, seed=st.integers(0, 2**16), tail=st.sampled_from([0.6, 1.0, 2.0]),
       special=st.sampled_from([0.0, 0.01, 0.2]))
def test_while_counted(n, seed, tail, special):
    counts = _counts(n, seed, tail)
    rng = np.random.default_rng(seed)
    x = _specials(rng.normal(size=n), seed, special)
    c = rng.normal(size=n)
    check_twins(countdown, countdown_select, (counts, x, c), np.float64)


@CASES
@given(n=SIZES, seed=st.integers(0, 2**16), tail=st.sampled_from([0.6, 1.0, 2.0]),
       special=st.sampled_from([0.0, 0.01, 0.2]))
def test_while_to_tolerance(n, seed, tail, special):
    # |x| = tol * 2**counts (and a little more): counts + 1 passes
    counts = _counts(n, seed, tail)
    rng = np.random.default_rng(seed)
    tol = rng.uniform(0.5, 2.0, n)
    x = tol * np.exp2(counts) * rng.uniform(1.0, 1.9, n) * rng.choice([-1.0, 1.0], n)
    check_twins(halve_to, halve_to_select, (_specials(x, seed, special, infinite=False), tol),
                np.float64)


@CASES
@given(n=SIZES, seed=st.integers(0, 2**16), tail=st.sampled_from([0.6, 1.0, 2.0]),
       special=st.sampled_from([0.0, 0.01, 0.2]))
def test_for_left_by_break(n, seed, tail, special):
    counts = _counts(n, seed, tail)
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.6, 1.0, n)
    limit = x * np.exp2(counts.astype(np.float64))
    check_twins(grow_break, grow_break_select, (_specials(x, seed, special), limit), np.float64)


@CASES
@given(n=SIZES, seed=st.integers(0, 2**16), tail=st.sampled_from([0.6, 1.0, 2.0]),
       special=st.sampled_from([0.0, 0.01, 0.2]))
def test_while_left_by_return(n, seed, tail, special):
    counts = _counts(n, seed, tail)
    rng = np.random.default_rng(seed)
    x = rng.uniform(0.0, 1.0, n)
    limit = (x + 1.0) * np.exp2(counts.astype(np.float64)) - 1.5
    check_twins(grow_return, grow_return_select, (_specials(x, seed, special), limit),
                np.float64)


# ------------------------------------------------------------- the forms these tests reach
_REACH = _counts(2000, 3, 2.0)


@pytest.mark.parametrize("f, args", [
    (countdown, (_REACH, np.ones(2000), np.ones(2000))),
    (halve_to, (np.exp2(_REACH.astype(np.float64)) * 1.5, np.ones(2000))),
])
def test_the_inputs_reach_compaction_and_the_scalar_tail(f, args):
    """Counts like the tests' (2,000 lanes, a Pareto of shape 2) make these loops compact
    and finish their last lanes in Python numbers: more lanes run on than the tail takes,
    and fewer than it takes run to the cap."""
    source = vz.vectorize(f).source(*args)
    assert "keep = np.flatnonzero(active_lanes)" in source, source
    tail = int(re.search(r"if 0 < running <= (\d+) and scalar_tail", source).group(1))
    assert (_REACH == 100).sum() < tail < (_REACH > 5).sum(), tail
