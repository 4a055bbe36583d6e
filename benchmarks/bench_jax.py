"""The JAX backend against ``jax.jit`` of a hand rewrite, and against hand-written NumPy.

``python -m benchmarks --only jax`` (or ``python benchmarks/bench_jax.py``) runs it alone.
``jax.vmap`` refuses the scalar functions (a traced ``if``/``while``), so the hand rewrite is
what a JAX user writes instead: the batch computed with ``jnp.where``/``jnp.select`` and a
masked ``lax.while_loop``, under ``jax.jit``. Per workload and N, in one process, interleaved
rounds, medians:

- **NumPy in/out**: ours (``backend="jax"``) called on NumPy arrays, NumPy arrays back, against
  ``np.asarray(jax.jit(hand)(...))`` on the same arrays (a read-only view of XLA's buffer);
  ours gives writable arrays of their own (``docs/jax.md``: a copy of a small result, XLA's
  buffer itself for a large one), so a further column is against
  ``np.array(jax.jit(hand)(...))``, writable too (a copy);
- **jax.Array in/out**: both on ``jax.Array``s, results waited for (``block_until_ready``);
- every other round times the peers in reverse order (`_timing.interleaved`'s
  ``alternate``): at N = 1e6 the peer timed right after the NumPy peers (which leave the
  CPU's caches full of their arrays) came out 15-50% slower than its equal timed next;
- each ours / jit(hand) ratio is the ratio of the medians, with the quartiles of the per-round
  ratios in parentheses (each round times both: how far one run's ratio can be trusted);
- **CPU time**: each timing also reads the process's CPU time (all its threads, XLA's
  workers too), and the same ratios are given of the CPU medians: on this machine's 2
  cores, shared with test runs, a call that waits for a core takes longer by the clock and
  no more CPU, so the CPU ratios are the ones that hold from run to run (the wall ratios at
  1e4 moved from 1.0x to 2.1x between two runs of identical code);
- **best round**: the ratio of each peer's fastest round (the round least disturbed by
  other processes);
- **vs hand NumPy** (NumPy in/out): ours against the hand-written NumPy of
  `workloads.py`;
- **compile**: the first call of a fresh ``vectorize``/``vmap`` object (engine + trace + XLA
  compile) and of a fresh ``jax.jit(hand)``; and the first call of ours on a NEW shape
  (another N: a new trace and compile, the engine's code reused), beside the hand rewrite's.
  Steady figures never include compiling. Before any of them, one unrelated function is
  jitted and called: JAX's own first compile in a process (a few tenths of a second setting
  up its lowering) is paid by any JAX program once, and would otherwise fall on whichever
  peer compiles first (ours: its first call came out 0.4 s slower). The first workload's
  first call of ours also imports the engine (``libcst`` included), once per process.

Both compute in float64, as the workloads are: the whole run has 64-bit types on
(``jax.config.update("jax_enable_x64", True)``, as a JAX user computing in float64 sets it;
restored after), and no peer enters ``jax.enable_x64`` per call. (With 64-bit types off, ours
enters that context around each call, a microsecond or two, as a hand rewrite computing in
float64 would have to.) Were the context entered by the hand peers only, or the setting left
to whatever ran before (``python -m benchmarks`` turns it on), the peers would pay different
per-call costs from one run to another.

Reading the figures: XLA runs a call on a worker thread, so at N = 1e4 a call takes about ten
microseconds on an idle machine and several times that on a busy one (the hand-off waits
for a core); ratios at 1e4 move with the load, and only runs on an idle machine compare.
``jit`` takes a NumPy argument without a copy only where its data is 64-byte aligned, which
the workloads' arrays are or are not by chance in a run: both peers get the same arrays, so
the ratios hold, but NumPy in/out times differ between runs.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
for path in (str(HERE.parent), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

import workloads as W  # noqa: E402
from _timing import calibrate, fmt_time, paired_spread  # noqa: E402

import vectorize as vz  # noqa: E402

SIZES = (10_000, 100_000, 1_000_000)
NAMES = ("seed if", "piecewise", "mandelbrot", "mlp")


def hand_rewrites(jax, jnp):
    """The batched hand rewrites, by workload name (each takes the whole batch)."""
    lax = jax.lax

    def seed(t, b):
        tmp = t * b
        return jnp.where(tmp > 5, tmp, -t)

    def piecewise(x):
        return jnp.select([x < 0, x < 1, x < 3], [x * x, 2 * x + 1, jnp.sqrt(x) + 2], 5.0)

    def mandelbrot(cr, ci):
        def cond(s):
            return jnp.any(s[3])

        def body(s):
            zr, zi, count, active = s
            zr, zi = (jnp.where(active, zr * zr - zi * zi + cr, zr),
                      jnp.where(active, 2.0 * zr * zi + ci, zi))
            count = count + active
            active = active & (count < W.MAX_ITER) & (zr * zr + zi * zi <= 4.0)
            return zr, zi, count, active
        count = jnp.ones(cr.shape, dtype=jnp.int64)
        active = (count < W.MAX_ITER) & (cr * cr + ci * ci <= 4.0)
        return lax.while_loop(cond, body, (cr, ci, count, active))[2]

    def mlp(x, w1, b1, w2):
        return jnp.tanh(x @ w1.T + b1) @ w2.T

    return {"seed if": seed, "piecewise": piecewise, "mandelbrot": mandelbrot, "mlp": mlp}


def ours_jax(work):
    if work.api == "vmap":
        axes = tuple(0 if b else None for b in work.batched)
        return vz.vmap(work.scalar, in_axes=axes, backend="jax")
    return vz.vectorize(work.scalar, fallback="error", backend="jax")


IOS = ("NumPy in/out", "jax.Array in/out")


def interleaved_cpu(peers: dict, rounds: int) -> tuple[dict, dict]:
    """`_timing.interleaved` (``alternate``) keeping, per peer and round, the wall time per
    call and the process's CPU time per call (every thread's, XLA's workers too): on a
    machine other processes load, a call waiting for a core takes longer by the clock but
    no more CPU, so the CPU ratios move far less from run to run than the wall ones."""
    reps = {name: calibrate(call) for name, call in peers.items()}
    wall = {name: [] for name in peers}
    cpu = {name: [] for name in peers}
    order = list(peers.items())
    for r in range(rounds):
        for name, call in (order[::-1] if r % 2 else order):
            n = reps[name]
            start, start_cpu = time.perf_counter(), time.process_time()
            for _ in range(n):
                call()
            cpu[name].append((time.process_time() - start_cpu) / n)
            wall[name].append((time.perf_counter() - start) / n)
    return wall, cpu


def timed(call):
    start = time.perf_counter()
    out = call()
    return time.perf_counter() - start, out


def measure(work, hand_jit_of, n: int, rounds: int, jax, jnp) -> dict:
    args = work.args(n)
    expected = work.hand(*args)
    jargs = [jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in args]  # float64

    ours = ours_jax(work)
    first_ours, got = timed(lambda: ours(*args))
    assert isinstance(got, np.ndarray), f"{work.name}: NumPy in, {type(got)} out"
    assert np.allclose(got, expected, rtol=1e-9, atol=1e-12, equal_nan=True), work.name
    hand_jit = hand_jit_of(work.name)
    first_hand, _ = timed(lambda: hand_jit(*jargs).block_until_ready())
    # a new shape: the same objects, one more example
    more = work.args(n + 1)
    jmore = [jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in more]
    new_shape_ours, _ = timed(lambda: ours(*more))
    new_shape_hand, _ = timed(lambda: hand_jit(*jmore).block_until_ready())
    got_jax = ours(*jargs)
    assert isinstance(got_jax, jax.Array), f"{work.name}: jax.Array in, {type(got_jax)} out"
    assert got_jax.dtype == expected.dtype, (work.name, got_jax.dtype, expected.dtype)
    assert np.allclose(np.asarray(got_jax), expected, rtol=1e-9, atol=1e-12, equal_nan=True)

    def hand_np():
        return np.asarray(hand_jit(*args))

    def hand_np_writable():       # writable, as ours is: a copy
        return np.array(hand_jit(*args))

    def hand_jax():
        return hand_jit(*jargs).block_until_ready()

    peers = {
        "hand NumPy": lambda: work.hand(*args),
        "ours, NumPy in/out": lambda: ours(*args),
        "jit(hand), NumPy in/out": hand_np,
        "jit(hand), NumPy in/out, writable": hand_np_writable,
        "ours, jax.Array in/out": lambda: ours(*jargs).block_until_ready(),
        "jit(hand), jax.Array in/out": hand_jax,
    }
    timed_rounds, cpu_rounds = interleaved_cpu(peers, rounds)
    steady = {name: statistics.median(ts) for name, ts in timed_rounds.items()}
    cpu = {name: statistics.median(ts) for name, ts in cpu_rounds.items()}
    best = {name: min(ts) for name, ts in timed_rounds.items()}
    # the quartiles of ours / jit(hand) over the rounds (each round times both)
    spread = {io: paired_spread(timed_rounds[f"ours, {io}"], timed_rounds[f"jit(hand), {io}"])
              for io in IOS}
    cpu_spread = {io: paired_spread(cpu_rounds[f"ours, {io}"], cpu_rounds[f"jit(hand), {io}"])
                  for io in IOS}
    return {"steady": steady, "spread": spread, "cpu": cpu, "cpu_spread": cpu_spread,
            "best": best,
            "first_ours": first_ours,
            "first_hand": first_hand, "new_shape_ours": new_shape_ours,
            "new_shape_hand": new_shape_hand}


def _ratio(steady: dict, spread: dict, io: str, bold: bool = True) -> str:
    low, high = spread[io]
    mark = "**" if bold else ""
    return (f"{mark}{steady[f'ours, {io}'] / steady[f'jit(hand), {io}']:.2f}x{mark} "
            f"({low:.2f}–{high:.2f})")


def report(results: dict) -> list[str]:
    head = ["workload", "N", "ours / jit(hand), NumPy in/out",
            "ours / jit(hand), jax.Array in/out", "CPU time: NumPy in/out",
            "CPU time: jax.Array in/out", "best round: NumPy / jax.Array in/out",
            "ours / jit(hand) copied (NumPy in/out, both writable)",
            "ours (NumPy in/out) / hand NumPy",
            "first call: ours (jit(hand))", "new shape: ours (jit(hand))"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for (name, n), res in results.items():
        s = res["steady"]
        out.append("| " + " | ".join([
            name, f"{n:.0e}",
            _ratio(s, res["spread"], "NumPy in/out"),
            _ratio(s, res["spread"], "jax.Array in/out"),
            _ratio(res["cpu"], res["cpu_spread"], "NumPy in/out", bold=False),
            _ratio(res["cpu"], res["cpu_spread"], "jax.Array in/out", bold=False),
            " / ".join(f"{res['best'][f'ours, {io}'] / res['best'][f'jit(hand), {io}']:.2f}x"
                       for io in IOS),
            f"{s['ours, NumPy in/out'] / s['jit(hand), NumPy in/out, writable']:.2f}x",
            f"{s['ours, NumPy in/out'] / s['hand NumPy']:.2f}x "
            f"({fmt_time(s['ours, NumPy in/out'])} / {fmt_time(s['hand NumPy'])})",
            f"{fmt_time(res['first_ours'])} ({fmt_time(res['first_hand'])})",
            f"{fmt_time(res['new_shape_ours'])} ({fmt_time(res['new_shape_hand'])})",
        ]) + " |")
    return out


def main(sizes=SIZES, rounds: int = 15, only=None) -> list[str]:
    try:
        import jax
        import jax.numpy as jnp
    except ImportError as exc:
        line = f"JAX not measured ({type(exc).__name__}: {exc})"
        print(line)
        return [line]
    x64_before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)   # float64 everywhere (module docstring)
    try:
        return _main(jax, jnp, sizes, rounds, only)
    finally:
        jax.config.update("jax_enable_x64", x64_before)


def _main(jax, jnp, sizes, rounds, only) -> list[str]:
    hands = hand_rewrites(jax, jnp)
    jitted = {}
    # JAX's one-time setup of its first compile, outside every peer's figures (docstring)
    jax.jit(lambda x: x + 1.0)(np.ones(3)).block_until_ready()

    def hand_jit_of(name):       # a fresh jit per workload and N: its first call compiles
        jitted[name] = jax.jit(hands[name])
        return jitted[name]
    results = {}
    for work in W.WORKLOADS:
        if work.name not in NAMES or (only and only not in work.name):
            continue
        for n in sizes:
            results[(work.name, n)] = measure(work, hand_jit_of, n, rounds, jax, jnp)
            s = results[(work.name, n)]["steady"]
            c = results[(work.name, n)]["cpu"]
            print(f"jax {work.name} N={n:.0e}: ours / jit(hand) "
                  f"{s['ours, NumPy in/out'] / s['jit(hand), NumPy in/out']:.2f}x (NumPy), "
                  f"{s['ours, jax.Array in/out'] / s['jit(hand), jax.Array in/out']:.2f}x "
                  f"(jax.Array); CPU time "
                  f"{c['ours, NumPy in/out'] / c['jit(hand), NumPy in/out']:.2f}x / "
                  f"{c['ours, jax.Array in/out'] / c['jit(hand), jax.Array in/out']:.2f}x",
                  file=sys.stderr, flush=True)
    lines = ["### JAX backend: ours (`backend=\"jax\"`) against `jax.jit` of a hand rewrite",
             ""] + report(results) + [""]
    print("\n".join(lines), flush=True)
    return lines


if __name__ == "__main__":
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--sizes", default="1e4,1e5,1e6")
    opts = parser.parse_args()
    main(tuple(int(float(s)) for s in opts.sizes.split(",")), opts.rounds)
