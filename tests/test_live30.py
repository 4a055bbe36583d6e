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

import numpy as np
import pytest
from differential import outcome

import vectorize as vz


def newton_tail(a, x0):
    x = x0
    while abs(x * x - a) > 1e-12 * a:
        x = 0.5 * (x + a / x)
    return x


def newton_tail_select(a, x0):
    x = x0
    while abs(x * x - a) > 1e-12 * a:  # vectorize: select
        x = 0.5 * (x + a / x)
    return x


def collatz(n):
    steps = 0
    while n > 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def collatz_select(n):
    steps = 0
    while n > 1:  # vectorize: select
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def halve32(x, k):
    # float32 carry: no scalar tail (Python floats are float64), compactions only
    n = 0
    while x > k and n < 60:
        x = x * np.float32(0.5)
        n += 1
    return x


def halve32_select(x, k):
    n = 0
    while x > k and n < 60:  # vectorize: select
        x = x * np.float32(0.5)
        n += 1
    return x


def escape_for(cr, ci):
    zr = 0.0
    zi = 0.0
    count = 0
    for _ in range(60):
        if zr * zr + zi * zi > 4.0:
            break
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        count += 1
    return count


def escape_for_select(cr, ci):
    zr = 0.0
    zi = 0.0
    count = 0
    for _ in range(60):  # vectorize: select
        if zr * zr + zi * zi > 4.0:
            break
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        count += 1
    return count


def _bits(value):
    value = np.asarray(value)
    return value.dtype, value.view(np.uint8).tobytes() if value.dtype.kind in "fiub" \
        else value.tolist()


def _check(scalar, select, args, otype):
    """The compacted loop gives the select twin's bits, and numpy.vectorize's values and
    dtype (or raises the same exception type)."""
    got, raised = outcome(lambda: vz.vectorize(scalar)(*args))
    twin, raised_twin = outcome(lambda: vz.vectorize(select)(*args))
    expected, error = outcome(lambda: np.vectorize(scalar, otypes=[otype])(*args))
    assert type(raised) is type(error) and type(raised_twin) is type(error), \
        (raised, raised_twin, error)
    if error is None:
        assert _bits(got) == _bits(twin)
        assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
        assert np.array_equal(got, expected, equal_nan=True)
        if got.dtype.kind == "f":
            assert np.array_equal(np.signbit(got), np.signbit(expected))


def _newton_args(n, seed):
    rng = np.random.default_rng(seed)
    a = rng.uniform(1.0, 2.0, n)
    return a, a * 2.0 ** np.minimum(rng.pareto(1.5, n), 60.0)


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


def walk_rows(v, x):
    # a per-example row read in the loop: gathered, then shrunk with take on axis 0
    n = 0
    while x > v[0] and n < 200:
        x = x * v[1] - v[2]
        n += 1
    return x + n


def walk_rows_select(v, x):
    n = 0
    while x > v[0] and n < 200:  # vectorize: select
        x = x * v[1] - v[2]
        n += 1
    return x + n


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


def mandelbrot(cr, ci):
    zr = 0.0
    zi = 0.0
    n = 0
    while zr * zr + zi * zi <= 4.0 and n < 100:
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        n += 1
    return n


def mandelbrot_select(cr, ci):
    zr = 0.0
    zi = 0.0
    n = 0
    while zr * zr + zi * zi <= 4.0 and n < 100:  # vectorize: select
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        n += 1
    return n


def test_a_compound_narrowing_is_computed_once_under_a_name():
    rng = np.random.default_rng(8)
    cr, ci = rng.uniform(-2.0, 0.5, 3000), rng.uniform(-1.25, 1.25, 3000)
    source = vz.vectorize(mandelbrot).source(cr, ci)
    assert "narrowing = (zr_if * zr_if + zi_if * zi_if <= 4.0) & (n_if < 100)" in source, source
    assert "active_lanes = active_lanes & narrowing if idle else narrowing" in source, source
    _check(mandelbrot, mandelbrot_select, (cr, ci), np.int64)
    cr[:3], ci[:3] = [np.nan, np.inf, -0.0], [0.0, 0.0, np.nan]
    _check(mandelbrot, mandelbrot_select, (cr, ci), np.int64)


def halve_flag(x):
    # the mask narrows by a carried truth (``going``), which the code after the loop reads
    going = x > 1.0
    n = 0
    while going:
        x = x / 2.0
        n += 1
        going = x > 1.0
    return n * 10 + going


def halve_flag_select(x):
    going = x > 1.0
    n = 0
    while going:  # vectorize: select
        x = x / 2.0
        n += 1
        going = x > 1.0
    return n * 10 + going


def test_narrowing_by_a_carried_truth():
    rng = np.random.default_rng(9)
    x = np.exp(rng.uniform(-2.0, 40.0, 3000))
    x[:4] = [np.nan, np.inf, -0.0, 1.0]
    x = x[np.isfinite(x) | np.isnan(x)]
    _check(halve_flag, halve_flag_select, (x,), np.int64)
    _check(halve_flag, halve_flag_select, (np.full(400, 1e9),), np.int64)
