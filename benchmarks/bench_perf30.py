"""Ours / hand-written NumPy for the seed `if`, the piecewise and relu linear, steady and the
sum of the first 12 calls, as ``python -m benchmarks`` measures them but without the peers
(a short run). This is a script, not a test::

    python benchmarks/bench_perf30.py --sizes 1e3,1e4,1e5,1e6 --rounds 15

To compare two trees, run it from each in turn, alternating (``PYTHONPATH=<tree>``), on the
same machine: single runs on a shared 2-core machine move by several percent.
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

from _timing import interleaved, settle  # noqa: E402
from workloads import WORKLOADS  # noqa: E402

NAMES = ("seed if", "piecewise", "relu linear")


def measure(work, n: int, rounds: int) -> dict:
    args = work.args(n)
    hand = lambda: work.hand(*args)          # noqa: E731
    ours = work.ours()
    ours(*args)
    hand()
    ours_calls = hand_calls = 0.0
    for _ in range(12):
        start = time.perf_counter()
        ours(*args)
        ours_calls += time.perf_counter() - start
        start = time.perf_counter()
        hand()
        hand_calls += time.perf_counter() - start
    settle(lambda: ours(*args), ours, n)
    timed = interleaved({"hand": hand, "ours": lambda: ours(*args)}, rounds)
    ratios = sorted(a / b for a, b in zip(timed["ours"][3], timed["hand"][3]))
    return {"steady": timed["ours"][0] / timed["hand"][0],
            "paired": statistics.median(ratios), "first12": ours_calls / hand_calls,
            "hand_us": timed["hand"][0] * 1e6}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1e3,1e4,1e5,1e6")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--only", default=None)
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args(argv)
    sizes = [int(float(s)) for s in opts.sizes.split(",")]
    out = {}
    for work in WORKLOADS:
        if work.name not in NAMES or (opts.only and opts.only not in work.name):
            continue
        for n in sizes:
            res = measure(work, n, opts.rounds)
            out[f"{work.name} {n:.0e}"] = res
            if not opts.json:
                print(f"{work.name:12} N={n:.0e}: steady {res['steady']:.3f}x (paired "
                      f"{res['paired']:.3f}x), first 12 {res['first12']:.3f}x, hand "
                      f"{res['hand_us']:.1f} µs", flush=True)
    if opts.json:
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
