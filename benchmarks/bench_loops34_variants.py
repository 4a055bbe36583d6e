"""Variants of a compacted loop's generated code, timed against the code as generated
(issue 20: loops that pay for the slow lanes only): a script, not a test::

    python benchmarks/bench_loops34_variants.py --move 1,2,1.5   # the compaction constant
    python benchmarks/bench_loops34_variants.py --mask 512       # small compactions by mask

``--move``: the loops of `live_workloads` generated with `passes.compact._MOVE_PER_LANE` (the
cost of moving a lane in a compaction, in lane-operations of a pass: it sets when the loop
compacts, ``idle >= per_lane * lanes.size + fixed``) set to each value, the first the
baseline; each variant is generated in a process of its own (the constant is read when the
code is built). ``--mask N``: the generated code, and the same with each compaction of at most
``N`` lanes gathering by the mask itself (``x_lanes = x_lanes[active_lanes]``: no
``np.flatnonzero``, a boolean index instead of ``take``). Every variant must give the
baseline's bits. Times: the process's CPU time, variants interleaved round by round, the
median of ``--rounds`` rounds, and each variant's ratio to the baseline. The source runs as
it is, on one thread, without the wrapper's runtime choices (chunks, threads): its times are
those of the loop's code alone, not those of `bench_live_loops`.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
for path in (str(HERE.parent), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

import live_workloads as live  # noqa: E402

CASES = [("newton tail", 10**4), ("newton tail", 10**5), ("newton sqrt", 10**5),
         ("mandelbrot", 10**4), ("mandelbrot", 10**5), ("first root", 10**4)]


def sources(move: float) -> dict:
    """``{workload: generated source}`` with `_MOVE_PER_LANE` = ``move`` (a fresh process)."""
    code = (f"import sys, json; sys.path[:0] = {[str(HERE.parent), str(HERE)]!r}\n"
            "import numpy as np\nimport vectorize.passes.compact as C\n"
            f"C._MOVE_PER_LANE = {move!r}\nimport live_workloads as live, vectorize as vz\n"
            "out = {}\nfor name, (f, *_, make) in live.WORKLOADS.items():\n"
            "    args = make(1000, np.random.default_rng(0))\n"
            "    out[name] = vz.vectorize(f).source(*args)\nprint(json.dumps(out))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def by_mask(source: str, most: int) -> str:
    """``source`` whose compactions of at most ``most`` lanes gather by the mask."""
    out = []
    for line in source.split("\n"):
        pad, text = line[:len(line) - len(line.lstrip())], line.strip()
        take = re.fullmatch(r"(\w+) = (\w+)\.take\(keep, axis=0\)", text)
        if text == "keep = np.flatnonzero(active_lanes)":
            out += [f"{pad}small = lanes.size <= {most}",
                    f"{pad}keep = active_lanes if small else np.flatnonzero(active_lanes)"]
        elif text.startswith("lanes = keep if lanes.size == len("):
            out.append(f"{pad}lanes = lanes[keep] if small else ({text[len('lanes = '):]})")
        elif take:
            out.append(f"{pad}{take[1]} = {take[2]}[keep] if small else "
                       f"{take[2]}.take(keep, axis=0)")
        else:
            out.append(line.replace("np.full(keep.size, True)", "np.full(running, True)"))
    return "\n".join(out)


def compiled(source: str, name: str):
    space: dict = {"__name__": "variant"}
    exec(compile(source, f"<{name}>", "exec"), space)
    return space[live.WORKLOADS[name][0].__name__]


def _cpu(g, args, reps: int) -> float:
    start = time.process_time()
    for _ in range(reps):
        g(*args)
    return (time.process_time() - start) / reps


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--move", default=None, help="comma-separated values, baseline first")
    parser.add_argument("--mask", type=int, default=None, help="lanes at most")
    parser.add_argument("--rounds", type=int, default=7)
    ns = parser.parse_args(argv)
    if ns.move:
        variants = {f"move={m}": sources(float(m)) for m in ns.move.split(",")}
    else:
        base = sources(1.0)
        variants = {"generated": base,
                    f"mask<={ns.mask or 512}": {k: by_mask(s, ns.mask or 512)
                                                for k, s in base.items()}}
    for name, n in CASES:
        args = live.WORKLOADS[name][5](n, np.random.default_rng(n))
        calls = {v: compiled(srcs[name], name) for v, srcs in variants.items()}
        with np.errstate(all="ignore"):
            outs = [g(*args) for g in calls.values()]
            if not all(np.array_equal(o, outs[0], equal_nan=True) for o in outs):
                raise SystemExit(f"{name} at N={n}: a variant differs")
            first_call = next(iter(calls.values()))
            reps = max(1, int(0.03 / max(1e-6, _cpu(first_call, args, 1))))
            times: dict = {v: [] for v in calls}
            for _ in range(ns.rounds):
                for v, g in calls.items():
                    times[v].append(_cpu(g, args, reps))
        med = {v: sorted(ts)[len(ts) // 2] for v, ts in times.items()}
        first = next(iter(med.values()))
        print(f"{name} {n:.0e}: " + "  ".join(
            f"{v} {t * 1e6:.0f} µs ({t / first:.3f})" for v, t in med.items()), flush=True)


if __name__ == "__main__":
    main()
