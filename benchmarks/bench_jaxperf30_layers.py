"""Where a warm call of the JAX backend spends its time at small N, in CPU time.

This is a script, not a test::

    python benchmarks/bench_jaxperf30_layers.py                 # seed `if` and mlp, N = 1e4
    python benchmarks/bench_jaxperf30_layers.py --sizes 1e4,1e5 --rounds 25 --only seed

For each workload (`bench_jax.NAMES`) and N it times, interleaved round by round, the layers
of one warm call against ``jax.jit`` of the hand rewrite (`bench_jax.hand_rewrites`), with
64-bit types on for the whole run (as `bench_jax` does):

- ``jitted``: the ``jax.jit`` of the generated code that ours calls (its C++ dispatch, no
  Python layer of ours), on the same arguments;
- ``jitted + to NumPy``: that, and the result handed out as ours does on NumPy arguments
  (`runtime._fresh_to_numpy`: a writable array over XLA's buffer, or a copy below
  `runtime.VIEW_MIN_BYTES`);
- ``ours``: the user's call of the ``vectorize``/``vmap`` object;
- ``jit(hand)``: the hand rewrite's, ``np.asarray`` of it on NumPy arguments (read-only).

jax.Array results are waited for (``block_until_ready``); NumPy ones are ready when handed
out. Each figure is the smallest per-call process CPU time (all threads: XLA's workers too)
over the rounds: on a 2-core machine shared with other jobs, a wall clock moves by tens of
percent between rounds at N = 1e4 and the CPU time by a few. ``ours - jitted`` is the cost
of our layers; ``jitted - jit(hand)`` that of the generated code against the hand rewrite.
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

import bench_jax as B  # noqa: E402
import workloads as W  # noqa: E402


def _jitted_of(ours, args):
    """The ``jax.jit`` function ours calls for these arguments (`runtime.Compiled`: the
    NumPy path's and the jax.Array path's are objects of their own)."""
    from vectorize.backends.jax.runtime import Compiled
    for compiled in _objects(ours):
        if isinstance(compiled, Compiled):
            jitted = compiled._by_types[0].get(tuple(map(type, args)))
            if jitted is not None:
                return jitted
    return None


def _peers(ours, hand, args, jargs, fresh_to_numpy) -> dict:
    peers = {
        "NumPy: jit(hand)": lambda: np.asarray(hand(*args)),
        "NumPy: ours": lambda: ours(*args),
        "jax: jit(hand)": lambda: hand(*jargs).block_until_ready(),
        "jax: ours": lambda: ours(*jargs).block_until_ready(),
    }
    jitted, jitted_jax = _jitted_of(ours, args), _jitted_of(ours, jargs)
    if jitted is not None:
        peers["NumPy: jitted + to NumPy"] = lambda: fresh_to_numpy(jitted(*args))
    if jitted_jax is not None:
        peers["jax: jitted"] = lambda: jitted_jax(*jargs).block_until_ready()
    return peers


def _objects(ours):
    """The `runtime.Compiled` objects reachable from ours' fast paths (a few levels)."""
    todo, seen, out = [ours], set(), []
    for _ in range(6):
        nxt = []
        for obj in todo:
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            out.append(obj)
            values = []
            if hasattr(obj, "__dict__"):
                values += list(vars(obj).values())
            for slot in getattr(type(obj), "__slots__", ()):
                values.append(getattr(obj, slot, None))
            if callable(obj) and getattr(obj, "__closure__", None):
                values += [c.cell_contents for c in obj.__closure__]
            values.append(getattr(obj, "__wrapped__", None))
            nxt += [v for v in values if v is not None and not isinstance(
                v, (str, int, float, tuple, np.ndarray, dict))]
        todo = nxt
    return out


def main(sizes, rounds: int, only=None) -> None:
    import jax
    import jax.numpy as jnp

    from vectorize.backends.jax.runtime import _fresh_to_numpy
    before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    try:
        hands = B.hand_rewrites(jax, jnp)
        for work in W.WORKLOADS:
            if work.name not in B.NAMES or (only and only not in work.name):
                continue
            for n in sizes:
                args = work.args(n)
                jargs = [jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]
                ours = B.ours_jax(work)
                for _ in range(3):
                    ours(*args)
                    ours(*jargs)
                hand = jax.jit(hands[work.name])
                hand(*args).block_until_ready()
                peers = _peers(ours, hand, args, jargs, _fresh_to_numpy)
                reps = max(20, int(2e6 / n))
                best = {name: float("inf") for name in peers}
                for r in range(rounds):
                    items = list(peers.items())
                    for name, call in (items[::-1] if r % 2 else items):
                        start = time.process_time()
                        for _ in range(reps):
                            call()
                        best[name] = min(best[name], (time.process_time() - start) / reps)
                print(f"{work.name} N={n:.0e} (best per-call CPU time over {rounds} rounds)")
                for name in sorted(best):
                    print(f"  {name:28s} {best[name] * 1e6:9.1f} µs")
                for io in ("NumPy", "jax"):
                    print(f"  {io}: ours / jit(hand) "
                          f"{best[f'{io}: ours'] / best[f'{io}: jit(hand)']:.2f}x")
    finally:
        jax.config.update("jax_enable_x64", before)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1e4")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--only", default=None)
    ns = parser.parse_args()
    main([int(float(s)) for s in ns.sizes.split(",")], ns.rounds, ns.only)
