"""The JAX backend's warm call with NumPy in/out: ``vectorize._warm`` kept (now) against the
path without it (before: a named backend cleared it), and ``jax.jit`` of the hand rewrite.

This is a script, not a test::

    python benchmarks/bench_jax34_warm.py --sizes 1e3,1e4,1e5 --rounds 9

Per `vectorize` workload of `bench_jax` (seed ``if``, piecewise, Mandelbrot) and N, in one
process with 64-bit types on (as `bench_jax`), interleaved rounds (order reversed every other
round): ours as it is; ours with ``_warm`` set to None after warming (the call path a named
backend took before); ``np.asarray(jax.jit(hand)(...))`` on the same NumPy arrays. Medians of
the per-call wall time and process CPU time (all threads), and each peer's fastest round
(the one least disturbed by other processes).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
for path in (str(HERE.parent), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

import bench_jax as B  # noqa: E402
import workloads as W  # noqa: E402


def main(sizes, rounds: int) -> None:
    import jax
    import jax.numpy as jnp
    before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    try:
        hands = B.hand_rewrites(jax, jnp)
        for work in W.WORKLOADS:
            if work.name not in B.NAMES or work.api == "vmap":
                continue
            for n in sizes:
                args = work.args(n)
                now, old = B.ours_jax(work), B.ours_jax(work)
                for _ in range(3):
                    now(*args)
                    old(*args)
                object.__setattr__(old, "_warm", None)     # the path before
                hand = jax.jit(hands[work.name])
                np.asarray(hand(*args))
                peers = {"ours now": lambda f=now, a=args: f(*a),
                         "ours before": lambda f=old, a=args: f(*a),
                         "jit(hand)": lambda f=hand, a=args: np.asarray(f(*a))}
                reps = max(10, int(3e6 / n))
                wall = {k: [] for k in peers}
                cpu = {k: [] for k in peers}
                for r in range(rounds):
                    items = list(peers.items())
                    for name, call in (items[::-1] if r % 2 else items):
                        s, sc = time.perf_counter(), time.process_time()
                        for _ in range(reps):
                            call()
                        cpu[name].append((time.process_time() - sc) / reps)
                        wall[name].append((time.perf_counter() - s) / reps)
                w = {k: statistics.median(v) for k, v in wall.items()}
                c = {k: statistics.median(v) for k, v in cpu.items()}
                print(f"{work.name} N={n:.0e}: wall µs now {w['ours now'] * 1e6:.1f} / before "
                      f"{w['ours before'] * 1e6:.1f} / jit(hand) {w['jit(hand)'] * 1e6:.1f}; "
                      f"ours/jit(hand) now {w['ours now'] / w['jit(hand)']:.2f}x before "
                      f"{w['ours before'] / w['jit(hand)']:.2f}x; CPU now "
                      f"{c['ours now'] / c['jit(hand)']:.2f}x before "
                      f"{c['ours before'] / c['jit(hand)']:.2f}x; best round µs now "
                      f"{min(wall['ours now']) * 1e6:.1f} / before "
                      f"{min(wall['ours before']) * 1e6:.1f} / jit(hand) "
                      f"{min(wall['jit(hand)']) * 1e6:.1f}", flush=True)
    finally:
        jax.config.update("jax_enable_x64", before)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1e3,1e4,1e5")
    parser.add_argument("--rounds", type=int, default=9)
    ns = parser.parse_args()
    main([int(float(s)) for s in ns.sizes.split(",")], ns.rounds)
