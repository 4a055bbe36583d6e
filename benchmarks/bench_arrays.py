"""Per-example arrays benchmark: `vmap` of a function on vectors against the Python loop,
``numpy.vectorize(f, signature=...)`` and hand-written NumPy.

This is a script, not a test::

    python benchmarks/bench_arrays.py                 # full run, prints a Markdown report
    python benchmarks/bench_arrays.py --quick         # fewer rounds
    python benchmarks/bench_arrays.py --out report.md

The two functions (issue 3):

- ``relu_linear(x, w) = max(x.dot(w), 0.0)`` with D = 64, ``w`` shared;
- ``mlp(x, w1, b1, w2) = w2 @ np.tanh(w1 @ x + b1)``, 32 -> 64 -> 10, weights shared;

at N = 1e3 and 1e5. Timing as in ``bench_core.py`` (helpers shared in ``_timing.py``): everything in
ONE process, peers INTERLEAVED round by round, each peer's figure the MEDIAN over rounds, one
timing = back-to-back calls lasting at least 20 ms; ours is warm (called once before timing).
The loop and ``numpy.vectorize`` are timed in fewer rounds at N = 1e5 (they take seconds).

Two diagnostic peers show where the time of ours goes: the einsum it generates run directly,
and the same einsum with ``optimize=True`` (a planned path, which hands matrix products to
BLAS).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for path in (str(ROOT), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

from _timing import fmt_time, interleaved, machine_facts  # noqa: E402

import vectorize as vz  # noqa: E402

SIZES = (1_000, 100_000)


# ----------------------------------------------------------------------------- the functions
def relu_linear(x, w):
    return max(x.dot(w), 0.0)


def mlp(x, w1, b1, w2):
    return w2 @ np.tanh(w1 @ x + b1)


# What a person would write by hand.
def relu_linear_hand(X, w):
    return np.maximum(X @ w, 0)


def mlp_hand(X, W1, b1, W2):
    return np.tanh(X @ W1.T + b1) @ W2.T


# ----------------------------------------------------------------------------------- peers
def peers_for(name: str, n: int, with_npvec: bool):
    """(peers, source of ours) for one function at batch size ``n``."""
    rng = np.random.default_rng(0)
    if name == "relu_linear":
        X = rng.standard_normal((n, 64))
        w = rng.standard_normal(64)
        ours = vz.vmap(relu_linear, in_axes=(0, None))
        ours(X, w)                                   # warm: the transform happens here
        npvec = np.vectorize(relu_linear, signature="(d),(d)->()")
        peers = {
            "loop": lambda: np.array([relu_linear(x, w) for x in X]),
            "np.vectorize": lambda: npvec(X, w),
            "hand": lambda: relu_linear_hand(X, w),
            "ours": lambda: ours(X, w),
            "einsum as generated": lambda: np.maximum(0.0, np.einsum("bi,i->b", X, w)),
            "einsum optimize=True": lambda: np.maximum(
                0.0, np.einsum("bi,i->b", X, w, optimize=True)),
        }
        source = ours.source(X, w)
    else:
        X = rng.standard_normal((n, 32))
        W1 = rng.standard_normal((64, 32)) / 6
        b1 = rng.standard_normal(64)
        W2 = rng.standard_normal((10, 64)) / 8
        ours = vz.vmap(mlp, in_axes=(0, None, None, None))
        ours(X, W1, b1, W2)
        npvec = np.vectorize(mlp, signature="(i),(h,i),(h),(o,h)->(o)")
        peers = {
            "loop": lambda: np.stack([mlp(x, W1, b1, W2) for x in X]),
            "np.vectorize": lambda: npvec(X, W1, b1, W2),
            "hand": lambda: mlp_hand(X, W1, b1, W2),
            "ours": lambda: ours(X, W1, b1, W2),
            "einsum as generated": lambda: np.einsum(
                "ij,bj->bi", W2, np.tanh(np.einsum("ij,bj->bi", W1, X) + b1)),
            "einsum optimize=True": lambda: np.einsum(
                "ij,bj->bi", W2, np.tanh(np.einsum("ij,bj->bi", W1, X, optimize=True) + b1),
                optimize=True),
        }
        source = ours.source(X, W1, b1, W2)
    if not with_npvec:
        del peers["np.vectorize"]
    return peers, source


def agreement(peers: dict) -> str:
    """Worst relative difference of any peer from the loop (products are summed in another
    order by BLAS and einsum, so bit-for-bit equality is not expected)."""
    results = {name: np.asarray(call()) for name, call in peers.items()}
    ref = results["loop"]
    worst = 0.0
    for name, res in results.items():
        if res.shape != ref.shape or res.dtype != ref.dtype:
            return f"MISMATCH ({name}: {res.dtype}{res.shape} vs {ref.dtype}{ref.shape})"
        scale = np.maximum(np.abs(ref), 1.0)
        worst = max(worst, float(np.max(np.abs(res - ref) / scale)) if ref.size else 0.0)
    return "exact" if worst == 0.0 else f"max diff {worst:.0e}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    parser.add_argument("--out", type=Path, help="also write the Markdown report here")
    opts = parser.parse_args(argv)

    rounds = 5 if opts.quick else 15
    slow_rounds = 2 if opts.quick else 3        # loop and numpy.vectorize at N = 1e5
    md = ["# bench_arrays results", "",
          f"Command: `python benchmarks/bench_arrays.py{' --quick' if opts.quick else ''}`", ""]
    md += machine_facts()
    md += [f"- OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', '(unset)')}, "
           f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', '(unset)')}"]
    md += ["", f"Median of {rounds} interleaved rounds per peer (loop and numpy.vectorize at "
           f"N = 1e5: {slow_rounds} rounds); times are per call.", ""]
    md += ["| function | N | loop | numpy.vectorize | hand-written | ours | ours / hand | "
           "numpy.vectorize / ours | loop / ours | generated einsum | same, optimize=True | "
           "peers agree |", "|" + "---|" * 12]
    sources = {}
    for name in ("relu_linear", "mlp"):
        for n in SIZES:
            peers, sources[name] = peers_for(name, n, with_npvec=True)
            agree = agreement(peers)
            slow = {"loop": slow_rounds, "np.vectorize": slow_rounds} if n >= 1e5 else {}
            res = interleaved(peers, rounds, slow)
            ours, hand = res["ours"][0], res["hand"][0]
            md.append(f"| {name} | {n:.0e} | {fmt_time(res['loop'][0])} | "
                      f"{fmt_time(res['np.vectorize'][0])} | {fmt_time(hand)} | "
                      f"{fmt_time(ours)} | {ours / hand:.2f}x | "
                      f"{res['np.vectorize'][0] / ours:.0f}x | {res['loop'][0] / ours:.0f}x | "
                      f"{fmt_time(res['einsum as generated'][0])} | "
                      f"{fmt_time(res['einsum optimize=True'][0])} | {agree} |")
            print(md[-1], flush=True)
    md += ["", "The generated code that was timed:", ""]
    for source in sources.values():
        md += ["```python", source.rstrip(), "```", ""]
    report = "\n".join(md) + "\n"
    print(report)
    if opts.out:
        opts.out.write_text(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
