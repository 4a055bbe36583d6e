"""``python -m benchmarks``: every workload (`benchmarks/workloads.py`) at every batch size,
ours against hand-written NumPy and the peers, as ratios; ``--write`` makes
``docs/performance.md`` (the results page) and its plot from the run.

    python -m benchmarks                   # prints the tables
    python -m benchmarks --quick           # N = 1e3, 1e4, 1e5; fewer rounds
    python -m benchmarks --only seed --sizes 1e6   # one workload, one batch size
    python -m benchmarks --write           # and rewrites docs/performance.md + the PNG
    python -m benchmarks --only jax        # the JAX backend alone (`bench_jax.py`)

What it measures, per workload and N (one process; the machine it was written for has 2
cores shared with other jobs, so single times mean little and every figure is a ratio of
peers timed side by side):

- **first call**: a fresh ``vectorize``/``vmap`` object's first call on the batch: the
  transform (engine, libcst already imported) plus the call; hand-written NumPy's first call on
  the same arrays beside it;
- **first 12 calls**: the 12 calls after that one, ours and hand-written alternating, summed:
  what a user timing us with a fresh ``%timeit``-style loop sees, adaptive choices included
  (`vectorize.chunks.run`);
- **steady**: once ours has decided how to run batches of that size, interleaved rounds of
  every peer (`_timing.interleaved`), medians;
- **1 thread**: for the seed ``if`` and the piecewise at N = 1e6, ours with
  ``VECTORIZE_NUM_THREADS=1`` against hand-written NumPy (which is single-threaded).

Cold start (a fresh process: cache hit, cold first call) is ``benchmarks/bench_coldstart.py``,
run by ``--write`` too.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for path in (str(ROOT), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

from _timing import fmt_time, interleaved, machine_facts, paired_spread, settle  # noqa: E402
from workloads import WORKLOADS  # noqa: E402

SIZES = (1_000, 10_000, 100_000, 1_000_000)
FIRST_CALLS = 12
PAGE = ROOT / "docs" / "performance.md"
PLOT = ROOT / "docs" / "performance.png"


@contextlib.contextmanager
def threads(count: str | None):
    before = os.environ.get("VECTORIZE_NUM_THREADS")
    if count is not None:
        os.environ["VECTORIZE_NUM_THREADS"] = count
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("VECTORIZE_NUM_THREADS", None)
        else:
            os.environ["VECTORIZE_NUM_THREADS"] = before


def one_thread(call):
    def run():
        with threads("1"):
            return call()
    return run


def same(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and np.allclose(a, b, rtol=1e-9, atol=1e-12, equal_nan=True)


def measure(work, n: int, rounds: int) -> dict:
    args = work.args(n)
    hand = lambda: work.hand(*args)          # noqa: E731
    expected = hand()
    ours = work.ours()
    start = time.perf_counter()
    got = ours(*args)
    first = time.perf_counter() - start
    start = time.perf_counter()
    hand()
    first_hand = time.perf_counter() - start
    assert same(got, expected), f"{work.name} at N={n}: ours differs from hand-written"
    ours_calls = hand_calls = 0.0
    for _ in range(FIRST_CALLS):
        start = time.perf_counter()
        ours(*args)
        ours_calls += time.perf_counter() - start
        start = time.perf_counter()
        hand()
        hand_calls += time.perf_counter() - start
    settle(lambda: ours(*args), ours, n)
    peers = {"hand-written NumPy": hand, "ours": lambda: ours(*args)}
    if n == 1_000_000 and work.name in ("seed if", "piecewise"):
        single = work.ours()
        with threads("1"):
            settle(lambda: single(*args), single, n)
        peers["ours, 1 thread"] = one_thread(lambda: single(*args))
    optional, notes = work.peers(args, n)
    for name, call in optional.items():
        if name.startswith(("Python loop", "numpy.vectorize", "numba", "jax")):
            assert same(call(), expected), f"{work.name} at N={n}: {name} differs"
    peers.update(optional)
    slow = {name: max(1, rounds // 3) for name in peers
            if name in ("Python loop", "numpy.vectorize")}
    timed = interleaved(peers, rounds, slow)
    steady = {name: stats[0] for name, stats in timed.items()}
    hand_times = timed["hand-written NumPy"][3]
    spread = {name: paired_spread(timed[name][3], hand_times)
              for name in ("ours", "ours, 1 thread") if name in timed}
    return {"first": first, "first_hand": first_hand, "first12": ours_calls,
            "first12_hand": hand_calls, "steady": steady, "spread": spread, "notes": notes}


def table(work, results: dict) -> list[str]:
    peer_names = []
    for res in results.values():
        peer_names += [p for p in res["steady"] if p not in peer_names
                       and p not in ("hand-written NumPy", "ours")]
    head = ["N", "hand-written", "ours / hand: steady (quartiles of the rounds)",
            "first 12 calls", "first call"]
    head += [f"{p} / hand" for p in peer_names]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for n, res in results.items():
        hand = res["steady"]["hand-written NumPy"]
        low, high = res["spread"]["ours"]
        row = [f"{n:.0e}", fmt_time(hand),
               f"**{res['steady']['ours'] / hand:.2f}x** ({low:.2f}–{high:.2f})",
               f"{res['first12'] / res['first12_hand']:.2f}x",
               f"{fmt_time(res['first'])} (hand {fmt_time(res['first_hand'])})"]
        row += [_ratio(res, p, hand) for p in peer_names]
        out.append("| " + " | ".join(row) + " |")
    notes = sorted({note for res in results.values() for note in res["notes"]})
    return out + ([""] + [f"- {note}" for note in notes] if notes else [])


def _ratio(res: dict, peer: str, hand: float) -> str:
    if peer not in res["steady"]:
        return "—"
    cell = f"{res['steady'][peer] / hand:.2f}x"
    if peer in res["spread"]:
        low, high = res["spread"][peer]
        cell += f" ({low:.2f}–{high:.2f})"
    return cell


def plot(all_results: dict, path: Path) -> bool:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, ax = plt.subplots(figsize=(7, 4.2), dpi=100)
    for name, results in all_results.items():
        sizes = list(results)
        ratios = [res["steady"]["ours"] / res["steady"]["hand-written NumPy"]
                  for res in results.values()]
        ax.plot(sizes, ratios, marker="o", label=name)
    ax.axhline(1.0, color="gray", linewidth=1, linestyle="--")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("examples in the batch (N)")
    ax.set_ylabel("ours / hand-written NumPy (time, steady)")
    ax.set_title("vectorize against hand-written NumPy (below 1: faster)")
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


def coldstart(rounds: int) -> list[str]:
    done = subprocess.run([sys.executable, str(HERE / "bench_coldstart.py"), "--rounds",
                           str(rounds)], capture_output=True, text=True, cwd=str(ROOT))
    if done.returncode != 0:
        return [f"(bench_coldstart.py failed: {done.stderr.strip()[-300:]})"]
    return done.stdout.strip().splitlines()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split(
        "\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="N up to 1e5, fewer rounds")
    parser.add_argument("--rounds", type=int, default=None, help="interleaved rounds")
    parser.add_argument("--only", default=None, help="workloads whose name contains this; "
                        "'jax': the JAX backend's benchmark alone (bench_jax.py)")
    parser.add_argument("--sizes", default=None,
                        help="comma-separated batch sizes (e.g. 1e4,1e6) instead of the default")
    parser.add_argument("--write", action="store_true",
                        help=f"rewrite {PAGE.relative_to(ROOT)} and its plot")
    opts = parser.parse_args(argv)
    sizes = SIZES[:3] if opts.quick else SIZES
    if opts.sizes:
        sizes = tuple(int(float(n)) for n in opts.sizes.split(","))
    rounds = opts.rounds or (5 if opts.quick else 9)
    lines, all_results = [], {}
    if opts.only == "jax":
        import bench_jax
        bench_jax.main(bench_jax.SIZES[:1] if opts.quick else bench_jax.SIZES,
                       opts.rounds or (3 if opts.quick else 7))
        return 0
    for work in WORKLOADS:
        if opts.only and opts.only not in work.name:
            continue
        results = {}
        for n in sizes:
            results[n] = measure(work, n, rounds)
            steady = results[n]["steady"]
            low, high = results[n]["spread"]["ours"]
            print(f"{work.name} N={n:.0e}: ours / hand "
                  f"{steady['ours'] / steady['hand-written NumPy']:.2f}x ({low:.2f}–"
                  f"{high:.2f}), first 12 calls "
                  f"{results[n]['first12'] / results[n]['first12_hand']:.2f}x", file=sys.stderr,
                  flush=True)
        all_results[work.name] = results
        section = [f"### {work.name}: {work.what}", ""] + table(work, results) + [""]
        print("\n".join(section), flush=True)
        lines += section
    if not opts.only:
        import bench_jax
        lines += bench_jax.main(bench_jax.SIZES[:1] if opts.quick else bench_jax.SIZES, rounds)
    if opts.write:
        plotted = plot(all_results, PLOT)
        write_page(lines, plotted, coldstart(5 if opts.quick else 9), sizes, rounds,
                   " ".join(["python -m benchmarks", *(argv or sys.argv[1:])]))
    return 0


def write_page(sections, plotted, cold, sizes, rounds, command):
    intro = (HERE / "performance_intro.md").read_text()
    page = [intro.rstrip(), "", "## Current results", "",
            f"Produced by `{command}` ({rounds} interleaved rounds; N = "
            f"{', '.join(f'{n:.0e}' for n in sizes)}). The machine:", ""]
    page += machine_facts(full=False) + [""]
    if plotted:
        page += ["![ours / hand-written NumPy against N](performance.png)", ""]
    page += sections + ["## Cold start", ""] + cold + [""]
    # the page is the current results: no commit hashes (git has the history)
    PAGE.write_text("\n".join(line for line in page if not line.startswith("- code: git")))


if __name__ == "__main__":
    raise SystemExit(main())
