"""A compacted loop's compactions and merges made cheaper (`passes/compact.py`,
`vectorize.backends.numpy.merge`): the mask's kept lanes, all true by construction, are made
(``active_lanes = np.full(keep.size, True)``) instead of gathered; arithmetic of the values
the loop only reads, computed once before it, is computed again on the kept lanes at each
compaction where it is one or two operations (``invariant = 1e-12 * a_lanes``), else
gathered; the running lanes are counted as a Python int (``running =
int(np.count_nonzero(active_lanes))``: the loop's control computes on Python ints); and
``merge.blend_pass`` samples the mask from `merge.LOOP_MIN_LANES` (16,384) lanes on, and
patches a copy where at most 1 lane in `merge.FEW_FALSE` is false.

Checked in the generated text (NumPy and PyTorch), and by results: the compacted loop
against its ``# vectorize: select`` twin (the same bits) and ``numpy.vectorize`` (values and
dtype, or the exception type), where the made mask is read after a compaction (a zero
divisor reached by a lane still running after several compactions raises, one reached only
by lanes that had finished does not), NaN/inf/-0 lanes, int counts and float32 carries; and
``blend_pass`` on a batch between 16,384 and 65,536 lanes: branch-free on a mask in no order,
``np.where`` on a mask with few false lanes, the same bits as ``np.where`` either way.
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest
from differential import check_twins as _check

import vectorize as vz
from vectorize.backends.numpy import merge as merges

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent.parent))
from benchmarks.live_workloads import (  # noqa: E402
    countdown_div,
    countdown_div_select,
    halve32,
    halve32_select,
    newton_tail,
    newton_tail_select,
    tol2,
    tol2_select,
    tol3,
    tol3_select,
)


def _countdown_args(n, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(5, 60, n).astype(np.float64)
    steps = np.minimum(rng.integers(0, 50, n), x.astype(np.int64) - 1)   # never reaches 0
    return x, steps


# ---------------------------------------------------------------------------- the text
def test_the_mask_is_made_not_gathered():
    source = vz.vectorize(countdown_div).source(*_countdown_args(50, 0))
    assert "active_lanes = np.full(keep.size, True)" in source, source
    assert "active_lanes = active_lanes.take(" not in source, source
    # the other arrays are still gathered
    assert "x_lanes = x_lanes.take(keep, axis=0)" in source, source
    # the running lanes counted as a Python int: the loop's control computes on Python ints
    assert "running = int(np.count_nonzero(active_lanes))" in source, source


def test_torch_makes_the_mask_on_the_lanes_device():
    torch = pytest.importorskip("torch")
    x, steps = _countdown_args(600, 1)
    f = vz.vectorize(countdown_div, backend="torch")
    tx, ts = torch.from_numpy(x), torch.from_numpy(steps)
    source = f.source(tx, ts)
    assert "active_lanes = torch.as_tensor(True, device=active_lanes.device)" in source, \
        source
    assert "running = int(torch.count_nonzero(active_lanes))" in source, source
    expected = np.vectorize(countdown_div, otypes=[np.float64])(x, steps)
    assert np.array_equal(f(tx, ts).numpy(), expected)
    # a lane reaching x == 0 after compactions: PyTorch's semantics (no ZeroDivisionError,
    # docs/torch.md), the bits of the select twin's
    x[17], steps[17] = 30.0, 45
    tx, ts = torch.from_numpy(x), torch.from_numpy(steps)
    got = f(tx, ts).numpy()
    twin = vz.vectorize(countdown_div_select, backend="torch")(tx, ts).numpy()
    assert got.tobytes() == twin.tobytes() and got[17] == math.inf


def _tol_args(n, seed, dtype=np.float64):
    rng = np.random.default_rng(seed)
    a = rng.uniform(1.0, 2.0, n)
    b = rng.choice([0.0, -0.0, 1e-13, 1e-9], n)
    x0 = a * 2.0 ** np.minimum(rng.pareto(1.5, n), 60.0)
    a[:3], b[3:6], x0[6:9] = [math.nan, math.inf, 4.0], [math.nan, math.inf, -math.inf], \
        [math.nan, -0.0, 1e300]
    with np.errstate(over="ignore"):        # (1e300 is inf in float32)
        return a.astype(dtype), b.astype(dtype), x0.astype(dtype)


def test_invariants_computed_again_or_gathered():
    args = _tol_args(50, 0)
    one = vz.vectorize(newton_tail).source(*args[::2])
    assert one.count("invariant = 1e-12 * a_lanes") == 2, one     # before, and compacting
    assert "invariant.take(" not in one, one
    two = vz.vectorize(tol2).source(*args)
    assert two.count("invariant = a_lanes * 1e-12 + b_lanes") == 2, two
    three = vz.vectorize(tol3).source(*args)
    assert "invariant = invariant.take(keep, axis=0)" in three, three


@pytest.mark.parametrize("n", [12, 3000])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_invariants_values(n, dtype):
    args = _tol_args(n, n, dtype)
    _check(tol2, tol2_select, args, dtype)
    _check(tol3, tol3_select, args, dtype)
    if dtype == np.float64:         # (float32 never meets 1e-12: an endless loop)
        _check(newton_tail, newton_tail_select, args[::2], dtype)


# --------------------------------------------------------------------------- the values
@pytest.mark.parametrize("n", [1, 9, 400, 5000])
def test_countdown_values(n):
    assert _check(countdown_div, countdown_div_select, _countdown_args(n, n),
                  np.float64) is None


@pytest.mark.parametrize("lane", [0, 1234, 4999])
def test_a_zero_divisor_after_compactions_raises(lane):
    # most lanes finish within 50 passes (several compactions); the one lane running on
    # reaches x == 0 at its 56th pass, where the mask the compaction made is read
    x, steps = _countdown_args(5000, 2)
    x[lane], steps[lane] = 55.0, 70
    assert type(_check(countdown_div, countdown_div_select, (x, steps), np.float64)) \
        is ZeroDivisionError


def test_a_zero_reached_only_by_finished_lanes_does_not_raise():
    # lanes that stop one pass before their x reaches 0: finished lanes are never checked
    x, steps = _countdown_args(5000, 3)
    steps[::7] = x[::7].astype(np.int64)
    assert _check(countdown_div, countdown_div_select, (x, steps), np.float64) is None


def test_newton_special_values():
    rng = np.random.default_rng(4)
    a = rng.uniform(1.0, 2.0, 3000)
    x0 = a * 2.0 ** np.minimum(rng.pareto(1.5, 3000), 60.0)
    a[[0, 5, 9]] = [math.nan, math.inf, 1.5]
    x0[[1, 2, 3, 4]] = [math.nan, -0.0, -3.0, math.inf]
    _check(newton_tail, newton_tail_select, (a, x0), np.float64)
    x0[2000] = 0.0
    assert type(_check(newton_tail, newton_tail_select, (a, x0), np.float64)) \
        is ZeroDivisionError


def test_float32_carries():
    rng = np.random.default_rng(5)
    x = rng.uniform(0.0, 1e9, 3000).astype(np.float32)
    x[[0, 1, 2, 3]] = [np.nan, np.inf, -0.0, 0.5]
    _check(halve32, halve32_select, (x, np.float32(1.0)), np.float32)


# ---------------------------------------------------------------- blend_pass's threshold
@pytest.fixture
def branch_free(monkeypatch):
    calls = []
    original = merges._branch_free

    def counted(*args):
        calls.append(1)
        return original(*args)

    monkeypatch.setattr(merges, "_branch_free", counted)
    return calls


N = 20011       # between LOOP_MIN_LANES and the 65,536 of before


def test_blend_pass_threshold():
    assert merges.LOOP_MIN_LANES <= N < 65536


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.bool_])
def test_blend_pass_is_branch_free_on_a_mask_in_no_order(dtype, branch_free):
    rng = np.random.default_rng(6)
    a = (rng.standard_normal(N) * 100).astype(dtype)
    b = (rng.standard_normal(N) * 100).astype(dtype)
    if a.dtype.kind == "f":
        a[:4] = [np.nan, -0.0, np.inf, -np.inf]
    cond = rng.random(N) < 0.7
    got = merges.blend_pass(cond, a, b)
    assert branch_free == [1]
    want = np.where(cond, a, b)
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


def test_blend_pass_is_not_branch_free_on_a_mask_with_few_false_lanes(branch_free):
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal(N), rng.standard_normal(N)
    cond = rng.random(N) < 0.995
    got = merges.blend_pass(cond, a, b)
    assert branch_free == []
    assert got.tobytes() == np.where(cond, a, b).tobytes()


@pytest.fixture
def patched(monkeypatch):
    calls = []
    original = merges._patched

    def counted(*args):
        calls.append(1)
        return original(*args)

    monkeypatch.setattr(merges, "_patched", counted)
    return calls


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.uint8, np.bool_])
@pytest.mark.parametrize("false_lanes", [1, 17, N // merges.FEW_FALSE])
def test_blend_pass_patches_a_mask_with_few_false_lanes(dtype, false_lanes, patched):
    rng = np.random.default_rng(false_lanes)
    a = (rng.standard_normal(N) * 100).astype(dtype)
    b = (rng.standard_normal(N) * 100).astype(dtype)
    cond = np.ones(N, bool)
    off = rng.choice(N, false_lanes, replace=False)
    cond[off] = False
    if a.dtype.kind == "f":
        # NaN payloads, signed zeros and infinities on both sides of the false lanes
        nan = np.array(np.nan, dtype).view(f"u{a.itemsize}") | 0b101
        b[off[:1]] = nan.view(dtype)
        a[off[-1:]], b[off[-1:]] = -0.0, np.inf
        a[:3] = [np.nan, -0.0, -np.inf]
    got = merges.blend_pass(cond, a, b)
    assert patched == [1]
    want = np.where(cond, a, b)
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
    assert got is not a and not np.shares_memory(got, a)
    numbers = {np.float64: -0.0, np.float32: np.float32(-0.0), np.int64: -3, np.uint8: 7,
               np.bool_: np.bool_(True)}
    got = merges.blend_pass(cond, a, numbers[dtype])
    want = np.where(cond, a, numbers[dtype])
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


def test_blend_pass_does_not_patch_beyond_few_false_lanes(patched):
    rng = np.random.default_rng(8)
    a, b = rng.standard_normal(N), rng.standard_normal(N)
    cond = np.ones(N, bool)
    cond[:N // merges.FEW_FALSE + 1] = False       # in order (not mixed), one false too many
    got = merges.blend_pass(cond, a, b)
    assert patched == []
    assert got.tobytes() == np.where(cond, a, b).tobytes()
    got = merges.blend_pass(np.ones(N, bool)[::1], 0.5, b)    # a number as a: np.where
    assert patched == [] and got.tobytes() == np.where(True, 0.5, b).tobytes()
