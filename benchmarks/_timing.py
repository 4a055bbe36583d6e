"""Timing and report helpers shared by the benchmark scripts (``bench_core.py``,
``bench_arrays.py``, ``bench_loops.py``). Not a benchmark itself.

The scripts are run as ``python benchmarks/bench_x.py``, so this folder is on ``sys.path``
and they import it as ``_timing``.

How they time (the machine they were written for has 2 cores and often runs test suites next
to them, so single timings are noisy):

- everything runs in ONE process, peers are INTERLEAVED: round 1 times peer A, B, C, D, round
  2 again A, B, C, D, ...; each peer's figure is the MEDIAN over rounds;
- one timing is ``reps`` back-to-back calls measured with ``time.perf_counter``, with ``reps``
  calibrated so that a timing lasts at least ``MIN_TIMING_S``; the figure is per call.
"""

from __future__ import annotations

import datetime
import os
import platform
import statistics
import subprocess
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent   # the repository (for git)
MIN_TIMING_S = 0.020                            # one timing lasts at least this long


# ---------------------------------------------------------------------------------- timing
def settle(call, vf, n: int) -> None:
    """Call until ``chunk_size="auto"`` has decided how to run batches of ``n`` lanes and has
    nothing left to time (`vectorize.chunks.settled`: it times the other ways and forms once
    the calls have paid for it, `vectorize.chunks.run`), so that the timings are of what
    every later call does."""
    from vectorize import chunks
    for _ in range(1000):
        call()
        (entry,) = vf._specs._entries.values()
        if chunks.settled(entry.tuning, n):
            return


def calibrate(call, min_s: float = MIN_TIMING_S) -> int:
    """Repetitions so that ``reps`` calls take at least ``min_s``."""
    reps = 1
    while True:
        start = time.perf_counter()
        for _ in range(reps):
            call()
        elapsed = time.perf_counter() - start
        if elapsed >= min_s:
            return reps
        reps = max(reps * 2, int(reps * min_s * 1.2 / max(elapsed, 1e-9)))


def one_timing(call, reps: int) -> float:
    """Seconds per call over ``reps`` back-to-back calls."""
    start = time.perf_counter()
    for _ in range(reps):
        call()
    return (time.perf_counter() - start) / reps


def interleaved(peers: dict, rounds: int, max_rounds: dict | None = None,
                alternate: bool = False) -> dict:
    """``{name: (median seconds per call, rounds timed, reps per timing, the timings)}`` for
    each peer over ``rounds`` interleaved rounds. A peer listed in ``max_rounds`` is timed
    only in that many rounds (spread evenly over the run). ``alternate``: every other round
    times the peers in reverse order, so that no peer always follows the same one (the first
    calls after a peer that went through a large batch find the CPU's caches full of that
    peer's data: at 1e6 lanes, whichever of two equal peers ran second came out 15-50%
    slower)."""
    max_rounds = max_rounds or {}
    reps = {name: calibrate(call) for name, call in peers.items()}
    times = {name: [] for name in peers}
    order = list(peers.items())
    for r in range(rounds):
        for name, call in (order[::-1] if alternate and r % 2 else order):
            limit = max_rounds.get(name, rounds)
            if limit < rounds and (r * limit) // rounds == ((r + 1) * limit) // rounds:
                continue          # not this round's turn
            times[name].append(one_timing(call, reps[name]))
    return {name: (statistics.median(ts), len(ts), reps[name], ts)
            for name, ts in times.items()}


def paired_spread(mine: list, theirs: list) -> tuple[float, float]:
    """The lower and upper quartiles of the ratios of two peers' timings taken in the same
    rounds (`interleaved`: each round times both, so that a round another process slowed
    slows both): how far one run's median ratio can be trusted."""
    ratios = sorted(a / b for a, b in zip(mine, theirs))
    if not ratios:
        return (float("nan"), float("nan"))
    return ratios[len(ratios) // 4], ratios[(3 * len(ratios)) // 4]


def medians(results: dict) -> dict:
    """``{name: median seconds per call}`` from what ``interleaved`` returns."""
    return {name: stats[0] for name, stats in results.items()}


def fmt_time(seconds: float) -> str:
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} µs"


# ------------------------------------------------------------------------------------ report
def git(*args: str) -> str:
    """Output of ``git ARGS`` in the repository, or "?" when git is not available."""
    try:
        return subprocess.run(["git", *args], capture_output=True, text=True, cwd=str(ROOT),
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"


def machine_facts(full: bool = True) -> list[str]:
    """Markdown bullet lines: commit, date, load, versions. ``full`` adds the MALLOC_*
    environment, the CPU and OPENBLAS_CORETYPE."""
    try:
        load = "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    except OSError:
        load = "?"
    dirty = git("status", "--porcelain", "--", "vectorize")
    state = ("state unknown (not a git checkout)" if dirty == "?"
             else "with uncommitted changes" if dirty else "clean")
    lines = [f"- code: git {git('rev-parse', '--short', 'HEAD')}, vectorize/ {state}"]
    if full:
        malloc = " ".join(f"{k}={v}" for k, v in sorted(os.environ.items())
                          if k.startswith("MALLOC_")) or "(none)"
        lines.append(f"- MALLOC_* environment: {malloc}")
    lines += [
        f"- date: {datetime.datetime.now().isoformat(timespec='seconds')}",
        f"- nproc: {os.cpu_count()}; load average at start: {load}",
    ]
    if full:
        lines.append(f"- cpu: {platform.processor() or platform.machine()}")
    lines.append(f"- python {platform.python_version()}, numpy {np.__version__}, "
                 f"platform {platform.platform()}")
    if full:
        lines.append(f"- OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')}")
    return lines
