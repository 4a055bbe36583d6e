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
import math
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
from workloads import newton_step, sqrt_newton, sqrt_newton_hand  # noqa: E402 -- the workloads' own

import vectorize as vz  # noqa: E402


# ------------------------------------------------------------------ per-example functions
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


def sqrt_newton_select(a):
    if a < 0:
        return math.nan
    if a == 0:
        return 0.0
    x = max(a, 1.0)
    while abs(x * x - a) > 1e-12 * a:  # vectorize: select
        x = newton_step(x, a)
    return x


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


def first_root(c):
    x = 0.0
    k = 0
    while k < 200:
        f = math.cos(x) - c * x
        if abs(f) < 1e-9:
            return x
        x = x + 0.5 * f / (math.sin(x) + c)
        k += 1
    return math.nan


def first_root_select(c):
    x = 0.0
    k = 0
    while k < 200:  # vectorize: select
        f = math.cos(x) - c * x
        if abs(f) < 1e-9:
            return x
        x = x + 0.5 * f / (math.sin(x) + c)
        k += 1
    return math.nan


# ------------------------------------ hand-written NumPy: the masked loop a careful person writes
def newton_tail_hand(a, x0):
    x = x0.copy()
    active = np.abs(x * x - a) > 1e-12 * a
    while active.any():
        x = np.where(active, 0.5 * (x + a / x), x)
        active &= np.abs(x * x - a) > 1e-12 * a
    return x


def mandelbrot_hand(cr, ci):
    zr = np.zeros_like(cr)
    zi = np.zeros_like(ci)
    n = np.zeros(cr.shape, dtype=np.int64)
    active = np.full(cr.shape, True)
    while active.any():
        zr, zi = (np.where(active, zr * zr - zi * zi + cr, zr),
                  np.where(active, 2.0 * zr * zi + ci, zi))
        n += active
        active &= (zr * zr + zi * zi <= 4.0) & (n < 100)
    return n


def first_root_hand(c):
    x = np.zeros_like(c)
    result = np.full(c.shape, np.nan)
    active = np.full(c.shape, True)
    k = 0
    while k < 200 and active.any():
        f = np.cos(x) - c * x
        done = active & (np.abs(f) < 1e-9)
        result[done] = x[done]
        active &= ~done
        x = np.where(active, x + 0.5 * f / (np.sin(x) + c), x)
        k += 1
    return result


# ----------------------------------------- one iteration of each body, and iteration counts
def newton_tail_once(a, x0):
    x = 0.5 * (x0 + a / x0)
    return np.abs(x * x - a) > 1e-12 * a, x


def newton_tail_counts(a, x0):
    x, count = x0.copy(), np.zeros(len(a), dtype=np.int64)
    active = np.abs(x * x - a) > 1e-12 * a
    while active.any():
        x = np.where(active, 0.5 * (x + a / x), x)
        count += active
        active &= np.abs(x * x - a) > 1e-12 * a
    return count


def sqrt_newton_once(a):
    return newton_tail_once(a, np.maximum(a, 1.0))


def sqrt_newton_counts(a):
    count = np.zeros(len(a), dtype=np.int64)
    count[a > 0] = newton_tail_counts(a[a > 0], np.maximum(a[a > 0], 1.0))
    return count


def mandelbrot_once(cr, ci):
    zr, zi = cr * cr - ci * ci + cr, 2.0 * cr * ci + ci
    return (zr * zr + zi * zi <= 4.0) & (ci < 100), zr, zi, cr + 1


def mandelbrot_counts(cr, ci):
    return mandelbrot_hand(cr, ci)


def first_root_once(c):
    x = 0.5 * c
    f = np.cos(x) - c * x
    return np.abs(f) < 1e-9, x + 0.5 * f / (np.sin(x) + c), c + 1


def first_root_counts(c):
    x = np.zeros_like(c)
    count = np.zeros(c.shape, dtype=np.int64)
    active = np.full(c.shape, True)
    for _ in range(200):
        count += active
        f = np.cos(x) - c * x
        active &= ~(np.abs(f) < 1e-9)
        if not active.any():
            break
        x = np.where(active, x + 0.5 * f / (np.sin(x) + c), x)
    return count


# ---------------------------------------------------------------------------------- inputs
def newton_tail_args(n, rng):
    a = rng.uniform(1.0, 2.0, n)
    return a, a * 2.0 ** np.minimum(rng.pareto(1.5, n), 88.0)


def sqrt_newton_args(n, rng):
    return (np.exp(rng.uniform(-40.0, 60.0, n)) * rng.choice([-1.0, 1.0, 1.0, 1.0], n),)


def mandelbrot_args(n, rng):
    return rng.uniform(-2.0, 0.5, n), rng.uniform(-1.25, 1.25, n)


def first_root_args(n, rng):
    return (np.exp(rng.uniform(-4.0, 3.0, n)),)


WORKLOADS = {
    "newton tail": (newton_tail, newton_tail_select, newton_tail_hand, newton_tail_once,
                    newton_tail_counts, newton_tail_args),
    "newton sqrt": (sqrt_newton, sqrt_newton_select, sqrt_newton_hand, sqrt_newton_once,
                    sqrt_newton_counts, sqrt_newton_args),
    "mandelbrot": (mandelbrot, mandelbrot_select, mandelbrot_hand, mandelbrot_once,
                   mandelbrot_counts, mandelbrot_args),
    "first root": (first_root, first_root_select, first_root_hand, first_root_once,
                   first_root_counts, first_root_args),
}


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
