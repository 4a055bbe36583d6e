"""Threads under load: ours with the default threads against ours with
``VECTORIZE_NUM_THREADS=1`` (two objects, their calls interleaved, each settled first), and
hand-written NumPy, at one batch size, optionally with busy processes started beside it (a
``while True: pass`` each, niced, stopped at the end). This is a script, not a test::

    python benchmarks/bench_perf34_load.py --sizes 1e6 --rounds 9 --busy 1

Prints, per workload, the medians of the rounds and the ratio default / one thread (above
1.00x: the threads lose to the calling thread alone).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
for path in (str(HERE.parent), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

from _timing import settle  # noqa: E402
from workloads import WORKLOADS  # noqa: E402

NAMES = ("seed if", "piecewise", "relu linear")


class _OneThread:
    """``VECTORIZE_NUM_THREADS=1`` around a call (read on every call by `chunks`)."""

    def __init__(self, call):
        self.call = call

    def __call__(self):
        saved = os.environ.get("VECTORIZE_NUM_THREADS")
        os.environ["VECTORIZE_NUM_THREADS"] = "1"
        try:
            return self.call()
        finally:
            if saved is None:
                del os.environ["VECTORIZE_NUM_THREADS"]
            else:
                os.environ["VECTORIZE_NUM_THREADS"] = saved


def measure(work, n: int, rounds: int) -> dict:
    args = work.args(n)
    default, single = work.ours(), work.ours()
    calls = {"hand": lambda: work.hand(*args), "default": lambda: default(*args),
             "1 thread": _OneThread(lambda: single(*args))}
    settle(calls["default"], default, n)
    settle(calls["1 thread"], single, n)
    times = {k: [] for k in calls}
    names = list(calls)
    for r in range(rounds):
        # (the order turns each round: a call right after hand-written NumPy's may wait for
        # BLAS's threads, which spin a while after a product)
        for name in names[r % 3:] + names[:r % 3]:
            call = calls[name]
            start = time.perf_counter()
            call()
            times[name].append(time.perf_counter() - start)
    return {k: statistics.median(v) for k, v in times.items()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1e6")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--busy", type=int, default=0, help="busy processes to start")
    parser.add_argument("--only", default=None)
    opts = parser.parse_args(argv)
    busy = [subprocess.Popen(["nice", sys.executable, "-c", "while True: pass"])
            for _ in range(opts.busy)]
    try:
        print(f"load average at start: {' '.join(f'{v:.2f}' for v in os.getloadavg())}; "
              f"busy processes: {opts.busy}")
        for work in WORKLOADS:
            if work.name not in NAMES or (opts.only and opts.only not in work.name):
                continue
            for n in (int(float(s)) for s in opts.sizes.split(",")):
                res = measure(work, n, opts.rounds)
                print(f"{work.name:12} N={n:.0e}: hand {res['hand'] * 1e3:.2f} ms, default "
                      f"{res['default'] / res['hand']:.3f}x, 1 thread "
                      f"{res['1 thread'] / res['hand']:.3f}x, default / 1 thread "
                      f"{res['default'] / res['1 thread']:.3f}x", flush=True)
    finally:
        for proc in busy:
            proc.terminate()
            proc.wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
