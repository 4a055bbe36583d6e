"""Loop benchmark (issue 4): masked loops, select and compact, against the Python loop,
``numpy.vectorize`` and a hand-written masked NumPy loop.

This is a script, not a test::

    python benchmarks/bench_loops.py                 # full run, prints a Markdown report
    python benchmarks/bench_loops.py --quick         # fewer rounds
    python benchmarks/bench_loops.py --out report.md

Workloads:

- Mandelbrot escape counts (at most 50 iterations) for N = 1e3 and 1e5 points of the usual
  window [-2, 0.5] x [-1.25, 1.25]: loop, numpy.vectorize, two hand-written masked loops,
  ours (select), ours (compact), and ours for the ``for ... break`` spelling;
- lanes that finish at very different times: Collatz step counts for n in [1, 1e5), and
  Mandelbrot over [-2.5, 1.5] x [-2, 2] (most points escape in a few steps, the rest run 50):
  the hand-written masked loop against ours (select) and ours (compact);
- numba ``@vectorize`` and ``jax.vmap`` of ``lax.while_loop`` on every workload, only if those
  packages can be imported (they are optional: ``pip install -e ".[bench]"``, not
  dependencies); their results are checked like the other peers' and reported in a table of
  their own, and the report says when they were skipped.

How it times (same method as bench_core.py; the helpers are in _timing.py): everything runs in
ONE process; peers are INTERLEAVED (round 1 times A, B, C, ..., round 2 again A, B, C, ...),
each figure is the MEDIAN over rounds; one timing is ``reps`` back-to-back calls lasting at
least ~20 ms; ours is warm (called until it has decided how to run the batch: `settle`). The
loop and numpy.vectorize at N = 1e5 run in fewer rounds. Every peer's result is compared with
the loop's (or, where the loop is not timed, with the hand-written loop's) before timing.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for path in (str(ROOT), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

from _timing import (  # noqa: E402
    MIN_TIMING_S,
    fmt_time,
    interleaved,
    machine_facts,
    medians,
    settle,
)

import vectorize as vz  # noqa: E402

MAX_ITER = 50


# ------------------------------------------------------------------ per-example functions
def mandel_for(cr, ci):
    """The textbook spelling: a fixed 50-step loop left by `break`."""
    zr = 0.0
    zi = 0.0
    count = 0
    for _ in range(50):
        if zr * zr + zi * zi > 4.0:
            break
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        count += 1
    return count


# The same count as a `while` on a batched condition. z starts at c with count 1 (the first
# step from z = 0 always passes the test): a condition that is unbatched on entry (z = 0.0)
# is not supported yet (see the bugs in tests/test_loops.py).
def mandel_select(cr, ci):
    zr = cr
    zi = ci
    count = 1
    while count < 50 and zr * zr + zi * zi <= 4.0:  # vectorize: select
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        count += 1
    return count


def mandel_compact(cr, ci):
    zr = cr
    zi = ci
    count = 1
    while count < 50 and zr * zr + zi * zi <= 4.0:  # vectorize: compact
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        count += 1
    return count


def collatz_select(n):
    steps = 0
    while n > 1:  # vectorize: select
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def collatz_compact(n):
    steps = 0
    while n > 1:  # vectorize: compact
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


# --------------------------------------------------- what a careful person writes by hand
def mandel_hand_while(cr, ci):
    """`active` mask, np.where updates, `while active.any()`."""
    zr = np.zeros_like(cr)
    zi = np.zeros_like(ci)
    count = np.zeros(cr.shape, dtype=np.int64)
    active = np.ones(cr.shape, dtype=bool)
    while active.any():
        zr2 = zr * zr
        zi2 = zi * zi
        active &= (zr2 + zi2 <= 4.0) & (count < MAX_ITER)
        zr, zi = (np.where(active, zr2 - zi2 + cr, zr),
                  np.where(active, 2.0 * zr * zi + ci, zi))
        count += active
    return count


def mandel_hand_fixed(cr, ci):
    """A fixed 50-step loop with an early exit when every point has escaped."""
    zr = np.zeros_like(cr)
    zi = np.zeros_like(ci)
    count = np.zeros(cr.shape, dtype=np.int64)
    active = np.ones(cr.shape, dtype=bool)
    for _ in range(MAX_ITER):
        zr2 = zr * zr
        zi2 = zi * zi
        active &= zr2 + zi2 <= 4.0
        if not active.any():
            break
        zr, zi = (np.where(active, zr2 - zi2 + cr, zr),
                  np.where(active, 2.0 * zr * zi + ci, zi))
        count += active
    return count


def collatz_hand(n):
    """`active` mask, np.where update of n, in-place `+=`/`&=` for the counter and mask."""
    steps = np.zeros(n.shape, dtype=np.int64)
    active = n > 1
    while active.any():
        n = np.where(active, np.where(n % 2 == 0, n // 2, 3 * n + 1), n)
        steps += active
        active &= n > 1
    return steps


def collatz_hand_where(n):
    """`active` mask, np.where for every carry, `while active.any()`."""
    steps = np.zeros(n.shape, dtype=np.int64)
    active = n > 1
    while active.any():
        n_next = np.where(n % 2 == 0, n // 2, 3 * n + 1)
        n = np.where(active, n_next, n)
        steps = np.where(active, steps + 1, steps)
        active = active & (n_next > 1)
    return steps


# ------------------------------------------------------------------------- optional peers
OPTIONAL_PEERS = ("numba @vectorize", "jax.vmap(lax.while_loop)")


def optional_versions() -> str:
    """Versions of the optional peers' packages, for the report."""
    found = []
    for dist in ("numba", "jax", "jaxlib"):
        try:
            found.append(f"{dist} {importlib.metadata.version(dist)}")
        except importlib.metadata.PackageNotFoundError:
            found.append(f"{dist} not installed")
    return ", ".join(found)


def _skip_note(package: str, exc: ImportError, peer: str) -> str:
    if isinstance(exc, ModuleNotFoundError) and exc.name == package:
        return f"{package} is not installed: {peer} skipped"
    return f"{package} could not be imported ({exc}): {peer} skipped"


def optional_peers(workload: str, args) -> tuple[dict, list[str]]:
    """numba @vectorize and jax.vmap(lax.while_loop) of the same per-example loop, when
    importable (they are not dependencies). ``workload`` is "mandel" (args: cr, ci; escape
    counts, at most MAX_ITER iterations) or "collatz" (args: n; step counts). Each peer is
    called once here (compilation) before any timing."""
    peers, notes = {}, []
    try:
        import numba
    except ImportError as exc:        # not installed, or installed but unusable (numpy too new)
        notes.append(_skip_note("numba", exc, "numba @vectorize"))
    else:
        if workload == "mandel":
            kernel = numba.njit(mandel_for)

            @numba.vectorize(["int64(float64, float64)"])
            def nb(cr, ci):
                return kernel(cr, ci)
        else:
            kernel = numba.njit(collatz_select)

            @numba.vectorize(["int64(int64)"])
            def nb(n):
                return kernel(n)
        nb(*args)
        peers["numba @vectorize"] = lambda: nb(*args)
    try:
        import jax
        import jax.numpy as jnp
    except ImportError as exc:
        notes.append(_skip_note("jax", exc, "jax.vmap of lax.while_loop"))
    else:
        jax.config.update("jax_enable_x64", True)     # int64 counts, float64 arithmetic

        if workload == "mandel":
            def one(cr, ci):
                def cond(s):
                    zr, zi, k = s
                    return (k < MAX_ITER) & (zr * zr + zi * zi <= 4.0)

                def body(s):
                    zr, zi, k = s
                    return zr * zr - zi * zi + cr, 2.0 * zr * zi + ci, k + 1
                # z starts at c with count 1, as in mandel_select: the same counts
                return jax.lax.while_loop(cond, body, (cr, ci, jnp.int64(1)))[2]
        else:
            def one(n):
                def body(s):
                    m, k = s
                    return jnp.where(m % 2 == 0, m // 2, 3 * m + 1), k + 1
                return jax.lax.while_loop(lambda s: s[0] > 1, body, (n, jnp.int64(0)))[1]
        fn = jax.jit(jax.vmap(one))
        jargs = [jnp.asarray(a) for a in args]    # converted once, outside the timing
        fn(*jargs).block_until_ready()
        peers["jax.vmap(lax.while_loop)"] = lambda: fn(*jargs).block_until_ready()
    return peers, notes


def agreement(results: dict, ref_name: str, names=None) -> str:
    """'exact' when every peer in ``names`` (default: all) returned the reference's values
    with an integer dtype. ``results`` maps names to what the peers returned."""
    ref = results[ref_name]
    bad = [f"{name} ({res.dtype})" for name, res in results.items()
           if (names is None or name in names)
           and (res.shape != ref.shape or res.dtype.kind not in "iu"
                or not np.array_equal(res, ref))]
    return "exact" if not bad else "MISMATCH: " + ", ".join(bad)


def outputs(peers: dict) -> dict:
    """Each peer's result (called once, before timing) as a NumPy array."""
    return {name: np.asarray(call()) for name, call in peers.items()}


# -------------------------------------------------------------------------------- workloads
def grid(n: int, x0: float, x1: float, y0: float, y1: float, seed: int = 0):
    """``n`` points spread over a rectangle (a jittered grid, the same every run)."""
    side = int(np.ceil(np.sqrt(n)))
    xs, ys = np.meshgrid(np.linspace(x0, x1, side), np.linspace(y0, y1, side))
    rng = np.random.default_rng(seed)
    cr = (xs.ravel() + rng.uniform(-1e-3, 1e-3, xs.size))[:n]
    ci = (ys.ravel() + rng.uniform(-1e-3, 1e-3, ys.size))[:n]
    return cr, ci


def mandel_peers(cr, ci, with_loop: bool):
    ours_for = vz.vectorize(mandel_for, fallback="error")
    ours_sel = vz.vectorize(mandel_select, fallback="error")
    ours_cmp = vz.vectorize(mandel_compact, fallback="error")
    for f in (ours_for, ours_sel, ours_cmp):         # warm: the transform happens here
        settle(lambda f=f: f(cr, ci), f, cr.size)
    peers = {}
    if with_loop:
        npvec = np.vectorize(mandel_for, otypes=[np.int64])
        crl, cil = cr.tolist(), ci.tolist()
        peers["loop"] = lambda: np.array([mandel_for(a, b) for a, b in zip(crl, cil)])
        peers["numpy.vectorize"] = lambda: npvec(cr, ci)
    peers["hand (while active.any())"] = lambda: mandel_hand_while(cr, ci)
    peers["hand (fixed 50 + early exit)"] = lambda: mandel_hand_fixed(cr, ci)
    peers["ours select"] = lambda: ours_sel(cr, ci)
    peers["ours compact"] = lambda: ours_cmp(cr, ci)
    peers["ours (for + break)"] = lambda: ours_for(cr, ci)
    return peers


def collatz_peers(n):
    ours_sel = vz.vectorize(collatz_select, fallback="error")
    ours_cmp = vz.vectorize(collatz_compact, fallback="error")
    for f in (ours_sel, ours_cmp):
        settle(lambda f=f: f(n), f, n.size)
    return {"hand (in-place += / &=)": lambda: collatz_hand(n),
            "hand (np.where carries)": lambda: collatz_hand_where(n),
            "ours select": lambda: ours_sel(n),
            "ours compact": lambda: ours_cmp(n)}


def escaped_fraction(cr, ci, within: int) -> float:
    counts = mandel_hand_fixed(cr, ci)
    return float(np.mean(counts < within))


# ------------------------------------------------------------------------------------ report
def optional_row(workload: str, n: int, name: str, res: dict, hand: float, agree: str) -> str:
    """One row of the optional-peers table: the peer's time and its ratios to the best
    hand-written loop and to ours."""
    t = res[name]
    return (f"| {workload} | {n:.0e} | {name} | {fmt_time(t)} | {t / hand:.2f}x | "
            f"{t / res['ours select']:.2f}x | {t / res['ours compact']:.2f}x | {agree} |")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    parser.add_argument("--out", type=Path, help="also write the Markdown report here")
    opts = parser.parse_args(argv)
    rounds = 5 if opts.quick else 15
    slow_rounds = 2 if opts.quick else 3

    md = ["# bench_loops results", "",
          f"Command: `python benchmarks/bench_loops.py{' --quick' if opts.quick else ''}`", ""]
    md += machine_facts(full=False)
    md += [f"- optional peers: {optional_versions()}"]
    md += ["", f"Median of {rounds} interleaved rounds (loop and numpy.vectorize at N = 1e5: "
           f"{slow_rounds} rounds); each timing >= {MIN_TIMING_S * 1e3:.0f} ms of back-to-back "
           "calls; times per call.", ""]
    notes: list[str] = []
    optional_rows: list[str] = []

    md += ["### Mandelbrot escape counts (max 50 iterations), window [-2, 0.5] x [-1.25, 1.25]",
           "", "| N | loop | numpy.vectorize | hand (while) | hand (fixed 50) | ours select | "
           "ours compact | ours for+break | select / best hand | compact / best hand | "
           "loop / select | agree |", "|" + "---|" * 12]
    for n in (1_000, 100_000):
        cr, ci = grid(n, -2.0, 0.5, -1.25, 1.25)
        peers = mandel_peers(cr, ci, with_loop=True)
        extra, extra_notes = optional_peers("mandel", (cr, ci))
        peers.update(extra)
        if n == 1_000:
            notes += extra_notes
        results = outputs(peers)
        agree = agreement(results, "loop")
        slow = {"loop": slow_rounds, "numpy.vectorize": slow_rounds} if n >= 100_000 else {}
        res = medians(interleaved(peers, rounds, slow))
        hand = min(res["hand (while active.any())"], res["hand (fixed 50 + early exit)"])
        md.append(
            f"| {n:.0e} | {fmt_time(res['loop'])} | {fmt_time(res['numpy.vectorize'])} | "
            f"{fmt_time(res['hand (while active.any())'])} | "
            f"{fmt_time(res['hand (fixed 50 + early exit)'])} | {fmt_time(res['ours select'])} | "
            f"{fmt_time(res['ours compact'])} | {fmt_time(res['ours (for + break)'])} | "
            f"{res['ours select'] / hand:.2f}x | {res['ours compact'] / hand:.2f}x | "
            f"{res['loop'] / res['ours select']:.0f}x | {agree} |")
        print(md[-1], flush=True)
        for name in extra:
            optional_rows.append(optional_row(
                "Mandelbrot [-2, 0.5] x [-1.25, 1.25]", n, name, res, hand,
                agreement(results, "loop", {"loop", name})))

    md += ["", "### Lanes that finish at very different times", "",
           "| workload | N | best hand-written masked loop | ours select | ours compact | "
           "select / hand | compact / hand | agree |", "|" + "---|" * 8]
    n = np.arange(1, 100_000, dtype=np.int64)
    peers = collatz_peers(n)
    extra, _ = optional_peers("collatz", (n,))
    peers.update(extra)
    results = outputs(peers)
    ref = "hand (np.where carries)"
    agree = agreement(results, ref)
    res = medians(interleaved(peers, rounds))
    hands = ("hand (in-place += / &=)", "hand (np.where carries)")
    best = min(hands, key=res.get)
    hand = res[best]
    notes.append("Collatz hand-written versions: " + ", ".join(
        f"{h} {fmt_time(res[h])}" for h in hands))
    md.append(f"| Collatz steps, n in [1, 1e5) | {n.size:.0e} | {fmt_time(hand)} ({best[6:-1]}) | "
              f"{fmt_time(res['ours select'])} | {fmt_time(res['ours compact'])} | "
              f"{res['ours select'] / hand:.2f}x | {res['ours compact'] / hand:.2f}x | {agree} |")
    print(md[-1], flush=True)
    for name in extra:
        optional_rows.append(optional_row("Collatz steps, n in [1, 1e5)", n.size, name, res,
                                          hand, agreement(results, ref, {ref, name})))

    cr, ci = grid(100_000, -2.5, 1.5, -2.0, 2.0, seed=1)
    peers = mandel_peers(cr, ci, with_loop=False)
    peers.pop("ours (for + break)")
    extra, _ = optional_peers("mandel", (cr, ci))
    peers.update(extra)
    results = outputs(peers)
    ref = "hand (while active.any())"
    agree = agreement(results, ref)
    res = medians(interleaved(peers, rounds))
    hands = ("hand (while active.any())", "hand (fixed 50 + early exit)")
    best = min(hands, key=res.get)
    hand = res[best]
    notes.append("Mandelbrot (outside) hand-written versions: " + ", ".join(
        f"{h} {fmt_time(res[h])}" for h in hands))
    md.append(f"| Mandelbrot, window [-2.5, 1.5] x [-2, 2] ({escaped_fraction(cr, ci, 5):.0%} "
              f"escape within 5 steps, {1 - escaped_fraction(cr, ci, 50):.0%} run all 50) | "
              f"{cr.size:.0e} | {fmt_time(hand)} ({best[6:-1]}) | "
              f"{fmt_time(res['ours select'])} | {fmt_time(res['ours compact'])} | "
              f"{res['ours select'] / hand:.2f}x | {res['ours compact'] / hand:.2f}x | {agree} |")
    print(md[-1], flush=True)
    for name in extra:
        optional_rows.append(optional_row("Mandelbrot [-2.5, 1.5] x [-2, 2]", cr.size, name,
                                          res, hand, agreement(results, ref, {ref, name})))

    if optional_rows:
        md += ["", "### numba `@vectorize` and `jax.vmap` of `lax.while_loop` (optional peers)",
               "", "Timed in the same interleaved rounds as the table rows above; agreement is "
               "with the loop (Mandelbrot 1e3/1e5) or the hand-written loop (the others).", "",
               "| workload | N | peer | time | peer / best hand | peer / ours select | "
               "peer / ours compact | agree |", "|" + "---|" * 8] + optional_rows
    if notes:
        md += ["", "Notes:", ""] + [f"- {note}" for note in notes]
    report = "\n".join(md) + "\n"
    print(report)
    if opts.out:
        opts.out.write_text(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
