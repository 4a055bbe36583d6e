"""A compacted loop's passes and compactions made lean (`passes/compact.py`): the mask's
first narrowing in a pass is the new truths themselves while no lane has finished
(``active_lanes = active_lanes & active_if if idle else active_if``), the first compaction
after every lane ran takes the running lanes' indices as they are (``lanes = keep``), and
the arrays shrink with ``take`` (`Backend.gather_kept`).

Each is checked in the generated text, and by results: the compacted loop against its
``# vectorize: select`` twin (the same bits) and against ``numpy.vectorize`` (values and
dtype, or the exception type), on batches whose lanes all finish together (``idle`` stays 0
until every lane is done: the shortcut taken on every pass, then one compaction of every
lane), at different times (several compactions, then the scalar tail), with NaN, inf,
signed zeros and a zero divisor; ints (a count and a carry) and float32 carries; per-example
rows gathered with ``take`` on axis 0; and PyTorch, whose arrays shrink by indexing.
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest
from differential import check_twins as _check
from differential import twin_bits as _bits

import vectorize as vz

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent.parent))
from benchmarks.live_workloads import (  # noqa: E402
    collatz,
    collatz_select,
    escape_for,
    escape_for_select,
    halve32,
    halve32_select,
    halve_flag,
    halve_flag_select,
    mandelbrot,
    mandelbrot_select,
    newton_tail,
    newton_tail_select,
    walk_rows,
    walk_rows_select,
)
from benchmarks.live_workloads import newton_tail_inputs as _newton_args  # noqa: E402


# ---------------------------------------------------------------------------- the text
def test_generated_text_shows_the_lean_forms():
    source = vz.vectorize(newton_tail).source(*_newton_args(50, 0))
    assert "active_lanes = active_lanes & active_if if idle else active_if" in source, source
    assert "lanes = keep if lanes.size == len(active) else lanes.take(keep, axis=0)" \
        in source, source
    assert "x_lanes = x_lanes.take(keep, axis=0)" in source, source
    assert source.count("invariant = 1e-12 * a_lanes") == 2, source    # (test_live32)
    assert "[keep]" not in source, source


def test_select_form_is_untouched():
    source = vz.vectorize(newton_tail_select).source(*_newton_args(50, 0))
    assert "keep" not in source and "if idle" not in source, source


# --------------------------------------------------------------------------- the values
@pytest.mark.parametrize("n", [1, 7, 300, 3000])
def test_newton_lanes_finishing_at_different_times(n):
    _check(newton_tail, newton_tail_select, _newton_args(n, n), np.float64)


def test_newton_lanes_finishing_together():
    # every lane needs the same passes: idle stays 0, the narrowing is the truths on every
    # pass, and the one compaction (no lane left) takes every lane's index as it is
    a = np.full(500, 2.0)
    _check(newton_tail, newton_tail_select, (a, np.full(500, 1e6)), np.float64)
    # and lanes that never enter the loop beside them (no whole start: gathered first)
    x0 = np.full(500, 1e6)
    x0[::3] = math.sqrt(2.0)
    _check(newton_tail, newton_tail_select, (a, x0), np.float64)


def test_newton_special_values():
    a, x0 = _newton_args(400, 3)
    a[[0, 5, 9]] = [math.nan, math.inf, 1.5]
    x0[[1, 2, 3]] = [math.nan, -0.0, -3.0]
    _check(newton_tail, newton_tail_select, (a, x0), np.float64)
    x0[7] = 0.0        # a zero divisor: ZeroDivisionError, as numpy.vectorize
    _check(newton_tail, newton_tail_select, (a, x0), np.float64)


@pytest.mark.parametrize("values", [
    np.arange(1, 2000, dtype=np.int64),
    np.full(600, 27, dtype=np.int64),                # all finish together
    np.array([1, 0, -5, 2, 3, 97, 27, 871] * 40, dtype=np.int64),
])
def test_collatz_counts_and_int_carries(values):
    _check(collatz, collatz_select, (values,), np.int64)


def test_float32_carries():
    rng = np.random.default_rng(4)
    x = rng.uniform(0.0, 1e9, 2000).astype(np.float32)
    x[[0, 1, 2, 3]] = [np.nan, np.inf, -0.0, 0.5]
    _check(halve32, halve32_select, (x, np.float32(1.0)), np.float32)


def test_for_loop_left_by_a_break():
    rng = np.random.default_rng(5)
    cr, ci = rng.uniform(-2.0, 0.5, 3000), rng.uniform(-1.25, 1.25, 3000)
    _check(escape_for, escape_for_select, (cr, ci), np.int64)
    _check(escape_for, escape_for_select, (np.full(300, 0.1), np.full(300, 0.1)), np.int64)


def test_per_example_rows_shrink_along_the_lanes():
    rng = np.random.default_rng(6)
    v = np.stack([rng.uniform(0.0, 1.0, 3000), rng.uniform(0.3, 0.9, 3000),
                  rng.uniform(0.0, 0.01, 3000)], axis=1)
    x = rng.uniform(0.0, 1e6, 3000)
    f = vz.vectorize(walk_rows, signature="(3),()->()")
    source = f.source(v, x)
    assert "v_lanes = v_lanes.take(keep, axis=0)" in source, source
    got = f(v, x)
    twin = vz.vectorize(walk_rows_select, signature="(3),()->()")(v, x)
    expected = np.vectorize(walk_rows, signature="(3),()->()", otypes=[np.float64])(v, x)
    assert _bits(got) == _bits(twin)
    assert got.dtype == expected.dtype and np.array_equal(got, expected)


def test_torch_shrinks_by_indexing():
    torch = pytest.importorskip("torch")
    a, x0 = _newton_args(3000, 7)
    f = vz.vectorize(newton_tail, backend="torch")
    ta, tx = torch.from_numpy(a), torch.from_numpy(x0)
    source = f.source(ta, tx)
    assert ".take(" not in source and "if idle else" in source, source
    got = f(ta, tx)
    expected = np.vectorize(newton_tail, otypes=[np.float64])(a, x0)
    assert np.array_equal(got.numpy(), expected)


def test_a_compound_narrowing_is_computed_once_under_a_name():
    rng = np.random.default_rng(8)
    cr, ci = rng.uniform(-2.0, 0.5, 3000), rng.uniform(-1.25, 1.25, 3000)
    source = vz.vectorize(mandelbrot).source(cr, ci)
    assert "narrowing = (zr_if * zr_if + zi_if * zi_if <= 4.0) & (n_if < 100)" in source, source
    assert "active_lanes = active_lanes & narrowing if idle else narrowing" in source, source
    _check(mandelbrot, mandelbrot_select, (cr, ci), np.int64)
    cr[:3], ci[:3] = [np.nan, np.inf, -0.0], [0.0, 0.0, np.nan]
    _check(mandelbrot, mandelbrot_select, (cr, ci), np.int64)


def test_narrowing_by_a_carried_truth():
    rng = np.random.default_rng(9)
    x = np.exp(rng.uniform(-2.0, 40.0, 3000))
    x[:4] = [np.nan, np.inf, -0.0, 1.0]
    x = x[np.isfinite(x) | np.isnan(x)]
    _check(halve_flag, halve_flag_select, (x,), np.int64)
    _check(halve_flag, halve_flag_select, (np.full(400, 1e9),), np.int64)
