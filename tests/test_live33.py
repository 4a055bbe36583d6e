"""The zero-divisor check of generated NumPy code, ``not merge.all_lanes(d)``
(`Backend.zero_lane`): on small arrays (the passes of a compacted loop after its compactions)
a count of the nonzero lanes, on larger ones ``d.all()``; either way the truth of
``d.all()``. Checked: the helper against ``d.all()`` over dtypes, sizes on both sides of
`merge.COUNTED_BELOW`, signed zeros, NaN and inf, NumPy numbers; the generated text (the
helper, ``np.all`` where the user's code has a ``merge`` of its own); the compacted loop's
elementwise body and scalar tail still read it as ``all`` (no merge of a dead carry, the
tail taken); and results against ``numpy.vectorize`` and the select twins.
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest
from differential import check_twins

import vectorize as vz
from vectorize.backends.numpy import merge as merges

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent.parent))
from benchmarks.live_workloads import (  # noqa: E402
    countdown_div,
    countdown_div_select,
    gcd,
    gcd_select,
    newton_tail,
    newton_tail_select,
)

DTYPES = [np.float64, np.float32, np.float16, np.int64, np.int32, np.int8, np.uint64,
          np.uint8, np.bool_, np.complex128]
SIZES = [0, 1, 7, merges.COUNTED_BELOW - 1, merges.COUNTED_BELOW, merges.COUNTED_BELOW + 5]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_all_lanes_is_all(dtype):
    rng = np.random.default_rng(33)
    for n in SIZES:
        x = (rng.integers(1, 100, n)).astype(dtype)
        assert bool(merges.all_lanes(x)) is bool(x.all()), (dtype, n)
        for lane in sorted({0, n // 2, n - 1}) if n else []:
            y = x.copy()
            y[lane] = 0
            assert not merges.all_lanes(y), (dtype, n, lane)
            if y.dtype.kind in "fc":
                y[lane] = -0.0
                assert not merges.all_lanes(y), (dtype, n, lane)
                for special in (math.nan, math.inf, -math.inf):
                    y[lane] = special
                    assert merges.all_lanes(y), (dtype, n, special)
    # NumPy numbers, and an array that is not contiguous
    assert not merges.all_lanes(np.float64(-0.0))
    assert merges.all_lanes(np.float64(math.nan))
    assert merges.all_lanes(np.int64(3))
    x = np.arange(1.0, 21.0)
    x[4] = 0.0
    assert not merges.all_lanes(x[::2]) and merges.all_lanes(x[1::2])


def reciprocal(x):
    return 1.0 / x


merge = 2.0     # (the user's own `merge`, read by `scaled_reciprocal`)


def scaled_reciprocal(x):
    return merge / x


def test_the_check_in_the_text():
    x = np.array([1.0, 2.0])
    source = vz.vectorize(reciprocal).source(x)
    assert "if not merge.all_lanes(x):" in source, source
    # where the user's code reads a `merge` of its own: NumPy's `all`, the same truth
    source = vz.vectorize(scaled_reciprocal).source(x)
    assert "if not np.all(x):" in source and "all_lanes" not in source, source


@pytest.mark.parametrize("f", [reciprocal, scaled_reciprocal])
@pytest.mark.parametrize("n", [3, merges.COUNTED_BELOW + 3])
def test_the_check_raises_as_python(f, n):
    x = np.linspace(1.0, 2.0, n)
    expected = np.vectorize(f, otypes=[np.float64])(x)
    assert np.array_equal(vz.vectorize(f)(x), expected)
    for zero in (0.0, -0.0):
        y = x.copy()
        y[n // 2] = zero
        with pytest.raises(ZeroDivisionError):
            vz.vectorize(f)(y)
        with pytest.raises(ZeroDivisionError):
            np.vectorize(f, otypes=[np.float64])(y)


def test_the_compacted_loop_still_reads_the_check_as_all():
    """The check in a pass is elementwise (a dead carry is not merged: ``b_lanes = b_if``)
    and its scalar tail reads it as the lane's own test (the tail is taken)."""
    a = np.arange(1, 400, dtype=np.int64) * 7919
    b = np.arange(1, 400, dtype=np.int64)
    source = vz.vectorize(gcd).source(a, b)
    assert "if not merge.all_lanes(b_lanes) and " in source, source
    assert "b_lanes = b_if\n" in source, source
    assert "scalar_tail = True" in source and "a_lane % b_lane" in source, source
    check_twins(gcd, gcd_select, (a, b), np.int64)
    b[::37] = 0          # lanes that never enter the loop
    check_twins(gcd, gcd_select, (a, b), np.int64)


@pytest.mark.parametrize("n", [50, 5000])
def test_compacted_loops_with_the_check(n):
    rng = np.random.default_rng(n)
    a = rng.uniform(1.0, 2.0, n)
    x0 = a * 2.0 ** np.minimum(rng.pareto(1.5, n), 60.0)
    x0[:3] = [math.nan, -0.0, math.inf]
    check_twins(newton_tail, newton_tail_select, (a, x0), np.float64)
    x0[n - 7] = 0.0       # a zero divisor on a running lane: ZeroDivisionError
    assert type(check_twins(newton_tail, newton_tail_select, (a, x0), np.float64)) \
        is ZeroDivisionError
    x = rng.integers(5, 60, n).astype(np.float64)
    steps = np.minimum(rng.integers(0, 50, n), x.astype(np.int64) - 1)
    assert check_twins(countdown_div, countdown_div_select, (x, steps), np.float64) is None
    x[n // 3], steps[n // 3] = 40.0, 55      # reaches x == 0 after compactions
    assert type(check_twins(countdown_div, countdown_div_select, (x, steps), np.float64)) \
        is ZeroDivisionError
