"""Loops that pay for the slow lanes only (issue 20): the time of a vectorized loop whose
examples stop at different times, against the *live-iteration work*.

This is a script, not a test::

    python benchmarks/bench_live_loops.py                   # N = 1e4, 1e5, 1e6
    python benchmarks/bench_live_loops.py --sizes 1e4 --rounds 5

*Live-iteration work* of a batch: the sum over its examples of the iterations each needs,
times the cost of one iteration for one example at full vector speed, measured as the time of
the loop body (its test included) written in NumPy over all N examples for ONE iteration,
divided by N. A loop that ran only the live iterations, with no overhead, would take that
long; ``ours / live`` says how far the generated loop is from it.

Workloads (each with per-example iteration counts that vary a lot):

- newton tail: Newton's square root from heavy-tailed starting points (``x0 = a * 2**t``,
  ``t`` Pareto): the median example needs 5 iterations, about 0.1% need ~93;
- newton sqrt: ``examples/newton.py``'s square root (early returns, a helper, a ``while``);
- mandelbrot: escape-time ``while`` from ``z = 0``, at most 100 steps (counts 1..100);
- first root: a ``while`` left by an early ``return`` (a damped Newton root of
  ``cos(x) = c x``), with a ``math.nan`` when 200 steps do not reach it.

Peers: ours (default: the compacted loop), ours with ``# vectorize: select`` (every lane runs
until the last finishes), ``numpy.vectorize`` (N = 1e4 only; beyond it takes seconds), and a
hand-written masked NumPy loop. Timing as in ``bench_loops.py``: one process, peers
interleaved round by round, the median over rounds with the quartiles of ours / live over
the rounds (live work is timed in each round too). Times are the process's CPU time, not
wall-clock time (see `interleaved`).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for path in (str(ROOT), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

from _timing import fmt_time, machine_facts, paired_spread, settle  # noqa: E402
from live_workloads import WORKLOADS  # noqa: E402 -- the loops, their twins, peers, inputs

import vectorize as vz  # noqa: E402

# The fewest NumPy calls one pass of each loop makes over its running lanes: its body and test
# (arithmetic of the values it only reads computed once, before the loop), the mask narrowed
# by the test, and the running lanes counted (newton: a / x, +, 0.5 *, x * x, - a, abs, >,
# &, count; first root: also cos, sin, and its early return's test and merge).
CALLS_PER_PASS = {"newton tail": 9, "newton sqrt": 9, "mandelbrot": 13, "first root": 14}


def bound(n: int, name: str, rounds: int) -> str:
    """The best ``ours / live`` a loop of NumPy calls can reach (``--bound``): every pass
    costs its calls (`CALLS_PER_PASS`, each at the measured cost of a NumPy call on a few
    lanes) plus its running lanes at the per-lane cost of one vectorized iteration (live work),
    compaction is free, and from the best pass on the lanes left finish in Python at the
    measured cost of one iteration of the per-example function per lane."""
    scalar, _, _, once, counts, make = WORKLOADS[name]
    args = make(n, np.random.default_rng(n))
    with np.errstate(all="ignore"):
        iters = counts(*args)
    small = np.linspace(1.0, 2.0, 16)
    per_call = min(_cpu(lambda: np.multiply(small, small), 2000) for _ in range(rounds))
    with np.errstate(all="ignore"):
        per_lane = min(_cpu(partial(once, *args), 3) for _ in range(rounds)) / n
    # Python: the per-example function on the examples with the most iterations
    slow = np.argsort(iters)[-min(n, 64):]
    rows = [tuple(float(a[i]) for a in args) for i in slow]
    py = min(_cpu(lambda: [scalar(*r) for r in rows], 3) for _ in range(rounds)) / \
        max(1, int(iters[slow].sum()))
    live = per_lane * iters.sum()
    fixed = CALLS_PER_PASS[name] * per_call
    running = [int((iters > k).sum()) for k in range(int(iters.max()))]
    left = [int(np.maximum(iters - k, 0).sum()) for k in range(int(iters.max()) + 1)]
    best, at, numpy_only, spent = None, 0, 0.0, 0.0
    for k in range(len(running) + 1):
        cost = spent + py * left[k]
        if best is None or cost < best:
            best, at = cost, k
        if k < len(running):
            spent += fixed + per_lane * running[k]
    numpy_only = spent
    return (f"| {name} | {n:.0e} | {per_call * 1e6:.2f} µs x {CALLS_PER_PASS[name]} | "
            f"{per_lane * 1e9:.2f} ns | {py * 1e9:.0f} ns | {numpy_only / live:.2f}x | "
            f"**{best / live:.2f}x** (Python after pass {at}) |")


def _cpu(call, reps: int) -> float:
    start = time.process_time()
    for _ in range(reps):
        call()
    return (time.process_time() - start) / reps


def interleaved(peers: dict, rounds: int, max_rounds: dict) -> dict:
    """``{name: (median seconds per call, timings)}``, peers interleaved round by round; one
    timing is the process's CPU time (``time.process_time``) over calls lasting at least
    ~20 ms: the machine these were written on runs other engineers' work next to them, which
    stretches wall-clock time but not this process's CPU time (NumPy here runs on one
    thread)."""
    def timing(call, reps):
        start = time.process_time()
        for _ in range(reps):
            call()
        return (time.process_time() - start) / reps

    reps = {}
    for name, call in peers.items():
        reps[name] = 1
        while timing(call, reps[name]) * reps[name] < 0.02:
            reps[name] *= 2
    times = {name: [] for name in peers}
    for r in range(rounds):
        for name, call in peers.items():
            limit = max_rounds.get(name, rounds)
            if limit < rounds and (r * limit) // rounds == ((r + 1) * limit) // rounds:
                continue
            times[name].append(timing(call, reps[name]))
    return {name: (statistics.median(ts), ts) for name, ts in times.items()}


def _same(a, b) -> bool:
    return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)


def _peers(ours, ours_select, hand, once, args) -> dict:
    return {"ours": partial(ours, *args), "select": partial(ours_select, *args),
            "hand": partial(hand, *args), "once": partial(once, *args)}


def run(sizes, rounds: int, names) -> list[str]:
    lines = ["| workload | N | iterations (median / max / mean) | live work | ours | ours / live "
             "(quartiles) | select / live | numpy.vectorize / live | hand / live |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name in names:
        scalar, select, hand, once, counts, make = WORKLOADS[name]
        ours, ours_select = vz.vectorize(scalar), vz.vectorize(select)
        for n in sizes:
            args = make(n, np.random.default_rng(n))
            expected = hand(*args)
            with np.errstate(all="ignore"):
                iters = counts(*args)
            total = int(iters.sum())
            for f in (ours, ours_select):
                got = f(*args)
                if not _same(got, expected):
                    raise SystemExit(f"{name} at N={n}: {f.__name__} differs from the hand loop")
            peers = _peers(ours, ours_select, hand, once, args)
            if n <= 10_000:
                npv = np.vectorize(scalar, otypes=[expected.dtype])
                if not _same(npv(*args), expected):
                    raise SystemExit(f"{name} at N={n}: numpy.vectorize differs")
                peers["numpy.vectorize"] = partial(npv, *args)
            for f in (ours, ours_select):
                settle(partial(f, *args), f, n)
            with np.errstate(all="ignore"):
                res = interleaved(peers, rounds, {"numpy.vectorize": max(3, rounds // 3)})
            per_iter = res["once"][0] / n
            live = per_iter * total
            lo, hi = paired_spread(res["ours"][1], [o / n * total for o in res["once"][1]])
            npv_cell = (f"{res['numpy.vectorize'][0] / live:.1f}x"
                        if "numpy.vectorize" in res else "—")
            lines.append(
                f"| {name} | {n:.0e} | {int(np.median(iters))} / {iters.max()} / "
                f"{iters.mean():.1f} | {fmt_time(live)} | {fmt_time(res['ours'][0])} | "
                f"**{res['ours'][0] / live:.2f}x** ({lo:.2f}–{hi:.2f}) | "
                f"{res['select'][0] / live:.2f}x | {npv_cell} | {res['hand'][0] / live:.2f}x |")
            print(lines[-1], flush=True)
    return lines


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1e4,1e5,1e6")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--only", default=None, help="comma-separated workload names")
    parser.add_argument("--bound", action="store_true",
                        help="print the best ours / live NumPy calls can reach (`bound`)")
    ns = parser.parse_args(argv)
    sizes = [int(float(s)) for s in ns.sizes.split(",")]
    names = ns.only.split(",") if ns.only else list(WORKLOADS)
    print("\n".join(machine_facts(full=False)))
    print()
    if ns.bound:
        np.empty(1 << 23, np.uint8)     # (as `vectorize.chunks.prime_allocator`)
        print("| workload | N | per pass | per lane-iteration | Python per lane-iteration "
              "| bound, NumPy only | bound, Python tail |\n|---|---|---|---|---|---|---|")
        for name in names:
            for n in sizes:
                print(bound(n, name, ns.rounds), flush=True)
        return
    lines = run(sizes, ns.rounds, names)
    print()
    print("\n".join(lines))


if __name__ == "__main__":
    main()
