"""A compacted loop's merges of its carries on wide batches (`passes/compact.py`): ``x_lanes =
merge.blend_pass(active_lanes, x_new, x_lanes) if idle else x_new``, where
`vectorize.backends.numpy.merge.blend_pass` samples the mask on every call and, on
`merge.LOOP_MIN_LANES` lanes or more in no order (lanes that finish at different passes, in
the order of the data), merges without a branch per lane; else it is ``np.where``.

Checked: ``blend_pass`` against ``np.where`` (the same bits, dtype and shape; a new array) on
both of its paths, every dtype it takes and the operands it leaves to ``np.where``; and
compacted loops over batches wide enough for the branch-free path (which the tests see taken)
against their ``# vectorize: select`` twins (the same bits) and ``numpy.vectorize`` (values
and dtype, on a sample of the lanes): float64 with NaN, inf and signed zeros, float32, int64
and truth carries; and where the user's code names something else ``merge``, the same loop
merging with ``np.where``.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

import vectorize as vz
from vectorize.backends.numpy import merge as merges

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent.parent))
from benchmarks.live_workloads import (  # noqa: E402
    first_root,
    first_root_select,
    gcd,
    gcd_select,
    halve32_cast,
    halve32_cast_select,
    newton_tail,
    newton_tail_select,
)

WIDE = merges.LOOP_MIN_LANES + 3        # the sampled, branch-free path (an odd remainder)
DTYPES = [np.float64, np.float32, np.float16, np.int64, np.int32, np.int8, np.uint64,
          np.uint8, np.bool_]


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()      # bit for bit: NaN payloads, -0.0


def _values(rng, dtype, n):
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        x = rng.standard_normal(n).astype(dtype)
        special = np.array([np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0,
                            np.finfo(dtype).max, np.finfo(dtype).tiny], dtype)
        x[rng.integers(0, max(n, 1), min(n, 64))] = rng.choice(special, min(n, 64))
        if n > 2:
            x.view(np.dtype(f"u{dtype.itemsize}"))[1] |= np.array(
                np.nan, dtype).view(np.dtype(f"u{dtype.itemsize}")) | 0b1011
        return x
    if dtype.kind == "b":
        return rng.random(n) < 0.5
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)


def _mask(rng, n, kind):
    return {"random": lambda: rng.random(n) < 0.6,
            "finishing": lambda: rng.random(n) < 0.97,     # a few lanes done: np.where
            "sorted": lambda: np.arange(n) < n // 3,
            "all": lambda: np.ones(n, bool), "none": lambda: np.zeros(n, bool)}[kind]()


@pytest.fixture
def branch_free(monkeypatch):
    """The number of `blend_pass` calls that merged without branches."""
    calls = []
    original = merges._branch_free

    def counted(*args):
        calls.append(1)
        return original(*args)

    monkeypatch.setattr(merges, "_branch_free", counted)
    return calls


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 5, WIDE])
@pytest.mark.parametrize("kind", ["random", "finishing", "sorted", "all", "none"])
def test_blend_pass_is_where(dtype, n, kind, branch_free):
    rng = np.random.default_rng(n)
    a, b = _values(rng, dtype, n), _values(rng, dtype, n)
    cond = _mask(rng, n, kind)
    got = merges.blend_pass(cond, a, b)
    _same(got, np.where(cond, a, b))
    assert got is not a and got is not b
    # (on the wide batch the mask in no order takes the branch-free path, the others not)
    assert bool(branch_free) == (n == WIDE and kind == "random")


def test_blend_pass_leaves_other_operands_to_where(branch_free):
    rng = np.random.default_rng(1)
    cond = rng.random(WIDE) < 0.5
    a, b = _values(rng, np.float64, WIDE), _values(rng, np.float64, WIDE)
    _same(merges.blend_pass(cond, a, 0.5), np.where(cond, a, 0.5))         # a number
    _same(merges.blend_pass(cond, a, -0.0), np.where(cond, a, -0.0))
    assert len(branch_free) == 2
    branch_free.clear()
    _same(merges.blend_pass(cond, a.astype(np.float32), b),                 # two dtypes
          np.where(cond, a.astype(np.float32), b))
    wide = np.repeat(a, 2)[::2]                                             # a strided view
    _same(merges.blend_pass(cond, wide, b), np.where(cond, wide, b))
    _same(merges.blend_pass(cond.astype(np.int8), a, b), np.where(cond.astype(np.int8), a, b))
    _same(merges.blend_pass(cond, a, 1), np.where(cond, a, 1))              # an int
    assert not branch_free


# ---------------------------------------------------------------- loops on wide batches

def _newton_args(rng):
    a = rng.uniform(1.0, 2.0, WIDE)
    x0 = a * 2.0 ** np.minimum(rng.pareto(1.5, WIDE), 30.0)
    # NaN, huge, negative starts (a NaN lane stops at once: its test is false; x * x of
    # 1e300 is inf) and signed zeros (x halves until x * x is 0)
    x0[:4] = [np.nan, 1e300, -1.5, -1e-300]
    a[4:8] = [np.nan, 0.0, -0.0, np.inf]
    return a, x0


CASES = {
    "newton tail": (newton_tail, newton_tail_select, _newton_args),
    "float32": (halve32_cast, halve32_cast_select, lambda rng: (
        # (half the lanes finish after a pass or two, the others some 20 passes later)
        (rng.uniform(0.8, 1.6, WIDE)
         * 2.0 ** (20 * rng.integers(0, 2, WIDE) + rng.integers(0, 3, WIDE))).astype(np.float32),)),
    "int64": (gcd, gcd_select, lambda rng: (
        rng.integers(1, 10**12, WIDE), rng.integers(0, 10**6, WIDE))),
    "early return": (first_root, first_root_select, lambda rng: (
        np.exp(rng.uniform(-3.0, 3.0, WIDE)),)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_wide_compacted_loops_merge_without_branches(case, branch_free):
    scalar, select, make = CASES[case]
    args = make(np.random.default_rng(31))
    ours = vz.vectorize(scalar)
    source = ours.source(*args)
    assert "merge.blend_pass(active_lanes, " in source, source
    assert "# vectorize: select" not in source
    with np.errstate(all="ignore"):     # (the select twin computes on finished lanes)
        want = vz.vectorize(select)(*args)
    got = ours(*args)
    assert branch_free, "no merge took the branch-free path"
    _same(got, want)
    # numpy.vectorize itself, on a sample of the lanes (each lane is one example)
    sample = np.r_[0:12, 12:WIDE:211]
    sampled = [a[sample] if np.ndim(a) else a for a in args]
    ref = np.vectorize(scalar, otypes=[np.asarray(got).dtype])(*sampled)
    _same(np.asarray(got)[sample], ref)


merge = 0.5     # (the user's own `merge`, read by `halving`)


def halving(x):
    while x > 1.0:
        x = x * merge
    return x


def test_a_name_merge_of_the_users_merges_with_where():
    """Where the user's code reads a global of its own named ``merge``, the generated code
    cannot call the runtime's by that name: the loop's merges are ``np.where``."""
    x = np.random.default_rng(3).uniform(0.0, 2.0**30, WIDE)
    f = vz.vectorize(halving)
    source = f.source(x)
    assert "blend_pass" not in source and "np.where(active_lanes, " in source, source
    got = f(x)
    sample = np.r_[0:WIDE:97]
    _same(got[sample], np.vectorize(halving, otypes=[np.float64])(x[sample]))
