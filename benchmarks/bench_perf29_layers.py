"""Where a warm call's time goes on a batch too small for chunks, in CPU time.

This is a script, not a test::

    python benchmarks/bench_perf29_layers.py              # seed `if` and piecewise, N = 1 and 1e4
    python benchmarks/bench_perf29_layers.py --sizes 1,1e4,16000 --rounds 15

For each workload of `workloads.py` made with ``vectorize`` and each N it times, interleaved
round by round, the peeled layers of one call against hand-written NumPy:

- ``hand``: the hand-written NumPy function;
- ``generated``: the generated function alone (`vectorize.source` shows it), called directly;
- ``warm``: the unrolled warm call (`api._warm_call`: the checks of the arguments, the
  generated function, the checks of its output);
- ``ours``: the user's call of the `vectorize` object (``vectorize.__call__`` around it).

Each figure is the smallest per-call time over the rounds of ``time.thread_time`` (the CPU
time of the calling thread: on a 2-core machine shared with other jobs a wall clock moves
tens of percent between rounds, the CPU time of a single-threaded call a few), so it is only
meaningful where ours runs on the calling thread alone, as batches below two chunks do
(asserted). Then the first calls of a fresh object (its transform memoized: a new object
of a function transformed before, as a fresh ``%timeit`` setup makes): the median over fresh
objects of the CPU time of its 2nd to 6th calls.

It also counts the NumPy operations (calls, operators, comparisons) of the generated function
and of the hand-written one: the work itself, apart from the layers.
"""

from __future__ import annotations

import argparse
import ast
import inspect
import statistics
import sys
import textwrap
import time
import timeit
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for path in (str(ROOT), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

from _timing import machine_facts  # noqa: E402
from workloads import WORKLOADS  # noqa: E402

from vectorize import chunks  # noqa: E402

CLOCK = time.thread_time


def operations(source: str, name: str) -> int:
    """NumPy operations in the function ``name`` of ``source``: calls, binary and unary
    operators, comparisons (the ``with np.errstate`` of a block counted as one call)."""
    tree = ast.parse(textwrap.dedent(source))
    func = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name)
    return sum(isinstance(n, (ast.Call, ast.BinOp, ast.UnaryOp, ast.Compare))
               for n in ast.walk(func))


def per_call(call, number: int) -> float:
    return min(timeit.repeat(call, number=number, repeat=3, timer=CLOCK)) / number


def layers(work, n: int, rounds: int) -> dict:
    args = work.args(n)
    ours = work.ours()
    for _ in range(20):
        ours(*args)
    last = ours._last
    assert last is not None and last.warm is not None, "no warm path for this call"
    assert not chunks.may_chunk(ours.chunk_size, n), "a batch large enough for chunks"
    generated, warm = last.run, last.warm
    peers = {"hand": lambda: work.hand(*args), "generated": lambda: generated(*args),
             "warm": lambda: warm(args), "ours": lambda: ours(*args)}
    number = max(20, min(20_000, int(2e-3 / max(per_call(peers["hand"], 20), 1e-8))))
    times = {name: [] for name in peers}
    for _ in range(rounds):
        for name, call in peers.items():
            times[name].append(per_call(call, number))
    best = {name: min(ts) for name, ts in times.items()}
    source = ours.source(*args)
    counts = (operations(source, work.scalar.__name__),
              operations(inspect.getsource(work.hand), work.hand.__name__))
    return {"best": best, "counts": counts, "first": first_calls(work, args, rounds)}


def first_calls(work, args, objects: int, calls: int = 5) -> list[float]:
    """Median over ``objects`` fresh objects of the CPU time of their 2nd... calls."""
    rows = []
    for _ in range(objects):
        ours = work.ours()
        ours(*args)
        row = []
        for _ in range(calls):
            start = CLOCK()
            ours(*args)
            row.append(CLOCK() - start)
        rows.append(row)
    return [statistics.median(column) for column in zip(*rows)]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1,1e4")
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--only", default=None, help="workloads whose name contains this")
    opts = parser.parse_args(argv)
    sizes = [int(float(s)) for s in opts.sizes.split(",")]
    works = [w for w in WORKLOADS if w.api == "vectorize" and w.name in ("seed if", "piecewise")
             and (opts.only is None or opts.only in w.name)]
    print("# Layers of a warm call (CPU time of the calling thread, best of the rounds)\n")
    print("\n".join(machine_facts(full=False)) + "\n")
    print("| workload | N | NumPy ops (ours / hand) | hand | generated | warm | ours | "
          "ours / hand | 2nd..6th call of a fresh object |")
    print("|---|---|---|---|---|---|---|---|---|")
    for work in works:
        for n in sizes:
            res = layers(work, n, opts.rounds)
            b = res["best"]
            us = {k: f"{v * 1e6:.2f} µs" for k, v in b.items()}
            first = " ".join(f"{t * 1e6:.1f}" for t in res["first"])
            print(f"| {work.name} | {n:.0e} | {res['counts'][0]} / {res['counts'][1]} | "
                  f"{us['hand']} | {us['generated']} (+{(b['generated'] - b['hand']) * 1e6:.2f})"
                  f" | {us['warm']} (+{(b['warm'] - b['generated']) * 1e6:.2f}) | {us['ours']} "
                  f"(+{(b['ours'] - b['warm']) * 1e6:.2f}) | {b['ours'] / b['hand']:.3f}x | "
                  f"{first} µs |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
