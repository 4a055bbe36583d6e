"""Issue 21's acceptance check, per workload and N: ours / hand-written NumPy, steady (median
and quartiles of the ratios of interleaved rounds) and the sum of the first 12 calls of fresh
objects (median over objects), and the per-call overhead of ours over its generated function
(CPU time). This is a script, not a test::

    python benchmarks/bench_ovh32.py --sizes 1e4,1e5 --rounds 21 [--only mlp] [--json out.json]

To compare two trees, run it from each (``PYTHONPATH=<tree>``) on the same machine, alternating.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
for path in (str(HERE.parent), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

from _timing import calibrate, one_timing, paired_spread, settle  # noqa: E402
from workloads import WORKLOADS  # noqa: E402

FIRST_CALLS = 12


def first12(work, args, objects: int) -> float:
    """Median over ``objects`` fresh objects (their transform memoized) of the ratio of the
    sum of their 12 calls after the first to hand's, alternating."""
    ratios = []
    for _ in range(objects):
        ours = work.ours()
        ours(*args)
        work.hand(*args)
        mine = hand = 0.0
        for _ in range(FIRST_CALLS):
            start = time.perf_counter()
            ours(*args)
            mine += time.perf_counter() - start
            start = time.perf_counter()
            work.hand(*args)
            hand += time.perf_counter() - start
        ratios.append(mine / hand)
    return statistics.median(ratios)


def overhead(ours, args, rounds: int) -> float | None:
    """CPU µs per call of ours beyond its generated function (one call of it: no chunks)."""
    entry = next(iter(ours._specs._entries.values()))
    fn = entry.spec.function
    fast = getattr(ours, "_last", None) or getattr(ours, "_fast", None)
    call_args = fast.match(args) if fast is not None else None
    if call_args is None:
        return None
    if isinstance(call_args, tuple):      # vmap's: (arguments, size)
        call_args = call_args[0]
    peers = {"gen": lambda: fn(*call_args), "ours": lambda: ours(*args)}
    best = {k: float("inf") for k in peers}
    reps = max(calibrate(c, 0.005) for c in peers.values())
    for _ in range(rounds):
        for k, c in peers.items():
            start = time.thread_time()
            for _ in range(reps):
                c()
            best[k] = min(best[k], (time.thread_time() - start) / reps)
    return (best["ours"] - best["gen"]) * 1e6


def measure(work, n: int, rounds: int) -> dict:
    args = work.args(n)
    ours = work.ours()
    ours(*args)
    settle(lambda: ours(*args), ours, n)
    hand = lambda: work.hand(*args)          # noqa: E731
    mine = lambda: ours(*args)               # noqa: E731
    reps = max(calibrate(hand), calibrate(mine))
    ts = {"hand": [], "ours": []}
    for r in range(rounds):
        order = (("hand", hand), ("ours", mine)) if r % 2 else (("ours", mine), ("hand", hand))
        for name, call in order:
            ts[name].append(one_timing(call, reps))
    ratios = [a / b for a, b in zip(ts["ours"], ts["hand"])]
    lo, hi = paired_spread(ts["ours"], ts["hand"])
    return {"workload": work.name, "n": n, "hand_us": statistics.median(ts["hand"]) * 1e6,
            "steady": statistics.median(ratios), "q1": lo, "q3": hi,
            "first12": first12(work, args, 5 if n <= 100_000 else 2),
            "overhead_us": overhead(ours, args, 5) if n <= 100_000 else None}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1e4,1e5")
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--only", default=None)
    parser.add_argument("--json", default=None)
    opts = parser.parse_args(argv)
    rows = []
    print("| workload | N | hand | ours/hand steady (quartiles) | first 12 | overhead µs |")
    print("|---|---|---|---|---|---|")
    for work in WORKLOADS:
        if opts.only and opts.only not in work.name:
            continue
        for n in (int(float(s)) for s in opts.sizes.split(",")):
            r = measure(work, n, opts.rounds)
            rows.append(r)
            ov = "—" if r["overhead_us"] is None else f"{r['overhead_us']:.2f}"
            print(f"| {work.name} | {n:.0e} | {r['hand_us']:.1f} µs | {r['steady']:.3f}x "
                  f"({r['q1']:.2f}–{r['q3']:.2f}) | {r['first12']:.2f}x | {ov} |", flush=True)
    if opts.json:
        Path(opts.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
