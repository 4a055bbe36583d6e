"""Where a compacted loop's time goes, pass by pass (issue 20's profile): a script, not a test::

    python benchmarks/bench_live32_phases.py                       # newton tail, 1e5
    python benchmarks/bench_live32_phases.py --only mandelbrot --size 1e4 -v

Runs the generated source of a `bench_live_loops` workload (its ``.source()``, what runs) with
clock readings added where each segment starts: ``body`` a pass's array work (from ``while
lanes.size:``), ``check`` the count of running lanes and the checks after it (from ``running =
...``), ``tail`` the scalar tail (inside ``if 0 < running <= ...:``), ``compact`` a
compaction (inside ``if not running or idle ...:``), ``control`` from a compaction's end to the
next pass; ``setup`` is the time before the first pass. Over ``--rounds`` calls it keeps each
segment's shortest time (the machine these were written on is shared: the minimum is the
least disturbed) and sums them by phase: ``full`` until the first compaction (every lane in
the loop's arrays), ``narrow`` after it. Wall-clock time (``time.perf_counter``), unlike
`bench_live_loops`.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
for path in (str(HERE.parent), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

import live_workloads as live  # noqa: E402

import vectorize as vz  # noqa: E402


def instrumented(source: str) -> str:
    """``source`` with ``_mark(segment, lanes)`` calls where the module docstring's segments
    start."""
    out = []
    for line in source.split("\n"):
        text = line.strip()
        pad = line[:len(line) - len(line.lstrip())]
        if text.startswith("running = "):
            out.append(f"{pad}_mark('check', lanes.size)")
        elif text.startswith("return ") and len(pad) == 4:
            out.append(f"{pad}_mark('end', 0)")
        out.append(line)
        after = {"while lanes.size:": "body"}.get(text) or (
            "tail" if text.startswith("if 0 < running <=") else
            "compact" if text.startswith("if not running or idle") else
            "control" if text == "idle = 0" and len(pad) > 8 else None)
        if after:
            inner = pad if after == "control" else pad + "    "
            out.append(f"{inner}_mark('{after}', lanes.size)")
    return "\n".join(out)


def profile(name: str, n: int, rounds: int):
    scalar, make = live.WORKLOADS[name][0], live.WORKLOADS[name][5]
    args = make(n, np.random.default_rng(n))
    f = vz.vectorize(scalar)
    f(*args)
    marks: list = []
    clock = time.perf_counter
    space = {"_mark": lambda kind, size: marks.append((kind, size, clock()))}
    exec(compile(instrumented(f.source(*args)), f"<{name}>", "exec"), space)
    g = space[scalar.__name__]
    runs = []
    for _ in range(rounds):
        marks.clear()
        start = clock()
        g(*args)
        points = [("setup", n, start), *marks]
        runs.append([(kind, size, t1 - t0) for (kind, size, t0), (*_, t1)
                     in zip(points, points[1:])])
    rows = [(kind, size, min(run[i][2] for run in runs))
            for i, (kind, size, _) in enumerate(runs[0])]
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", default="newton tail")
    parser.add_argument("--size", default="1e5")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("-v", action="store_true", help="every segment, in order")
    ns = parser.parse_args(argv)
    rows = profile(ns.only, int(float(ns.size)), ns.rounds)
    phases: dict = {}
    phase = "full"
    for kind, _, t in rows:
        if kind == "compact":
            phase = "narrow"
        total, count = phases.get((phase, kind), (0.0, 0))
        phases[(phase, kind)] = (total + t, count + 1)
    print(f"{ns.only} at {ns.size}: {sum(t for *_, t in rows) * 1e6:.0f} µs "
          f"(the sum of each segment's minimum over {ns.rounds} calls)")
    for (phase, kind), (t, count) in phases.items():
        print(f"  {phase:6} {kind:8} {t * 1e6:8.0f} µs  ({count} segments)")
    if ns.v:
        for kind, size, t in rows:
            print(f"  {kind:8} {size:7d} {t * 1e6:8.1f}")


if __name__ == "__main__":
    main()
