"""Core-engine benchmark: our generated NumPy against the Python loop, ``numpy.vectorize`` and
hand-written NumPy, plus the costs of importing, of a first call and of a warm call.

This is a script, not a test::

    python benchmarks/bench_core.py                 # full run, prints a Markdown report
    python benchmarks/bench_core.py --quick         # fewer rounds, smaller calibration
    python benchmarks/bench_core.py --out report.md

How it times (the machine it was written for has 2 cores and often runs test suites next to
it, so single timings are noisy):

- everything runs in ONE process, peers are INTERLEAVED: round 1 times peer A, B, C, D, round
  2 again A, B, C, D, ...; each peer's figure is the MEDIAN over rounds;
- one timing is ``reps`` back-to-back calls measured with ``time.perf_counter``, with ``reps``
  calibrated so that a timing lasts at least ~20 ms; the figure is per call;
- ours is warm: called (the transform happens on the first call) until ``chunk_size="auto"``
  has timed its ways of running the batch (one call, chunks, chunks on threads) and kept one;
  "ours" is that default, "ours, one call" the same code run on the whole batch at once
  (``chunk_size=None``).

The timing and report helpers are shared with the other scripts in ``_timing.py``.
"""

from __future__ import annotations

import argparse
import atexit
import importlib
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for path in (str(ROOT), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

from _timing import MIN_TIMING_S, fmt_time, interleaved, machine_facts, settle  # noqa: E402

import vectorize as vz  # noqa: E402

SIZES = (1_000, 100_000, 1_000_000)


# ----------------------------------------------------------------------------- the functions
def func(t, b):
    tmp = t * b
    if tmp > 5:
        root = t * b
    else:
        root = -t
    return root


def piecewise(x):
    if x < -1.0:
        y = -x - 0.5
    elif x < 1.0:
        y = 0.5 * x * x
    elif x < 4.0:
        y = math.sqrt(x) - 0.5
    else:
        y = 0.25 * x * x - 1.5 * x + 3.5
    return y


# What a person would write by hand (two versions each; the table compares with the faster).
def func_hand_literal(t, b):
    return np.where(t * b > 5, t * b, -t)        # the `if` transcribed as it stands


def func_hand_reuse(t, b):
    tmp = t * b
    return np.where(tmp > 5, tmp, -t)            # noticing that `root = t * b` is `tmp`


def piecewise_hand_select(x):
    with np.errstate(invalid="ignore"):          # sqrt of the x < 1 lanes, discarded
        return np.select([x < -1.0, x < 1.0, x < 4.0],
                         [-x - 0.5, 0.5 * x * x, np.sqrt(x) - 0.5],
                         0.25 * x * x - 1.5 * x + 3.5)


def piecewise_hand_where(x):
    with np.errstate(invalid="ignore"):
        return np.where(x < -1.0, -x - 0.5,
                        np.where(x < 1.0, 0.5 * x * x,
                                 np.where(x < 4.0, np.sqrt(x) - 0.5,
                                          0.25 * x * x - 1.5 * x + 3.5)))


def piecewise_expert(x):
    """The fastest NumPy version of `piecewise` we could write by hand (not what a person
    writes first, so not in the "hand-written" column): every branch in place on one scratch
    array, merges by ``np.copyto(..., where=)`` in reverse order, the root only where it is
    used. It bounds what any NumPy code can do here: ``numpy.vectorize / it`` is the ceiling
    of the ``numpy.vectorize / ours`` ratio for code that runs as NumPy calls on one thread."""
    with np.errstate(invalid="ignore"):
        c1 = x < -1.0
        c2 = x < 1.0
        c3 = x < 4.0
        y = 0.25 * x
        y *= x
        t = 1.5 * x
        y -= t
        y += 3.5
        np.sqrt(x, out=t, where=c3)
        t -= 0.5
        np.copyto(y, t, where=c3)
        np.multiply(0.5, x, out=t)
        t *= x
        np.copyto(y, t, where=c2)
        np.negative(x, out=t)
        t -= 0.5
        np.copyto(y, t, where=c1)
    return y


def piecewise_compact(x):
    if x < -1.0:  # vectorize: compact
        y = -x - 0.5
    elif x < 1.0:
        y = 0.5 * x * x
    elif x < 4.0:
        y = math.sqrt(x) - 0.5
    else:
        y = 0.25 * x * x - 1.5 * x + 3.5
    return y


# ----------------------------------------------------------------------- peers and agreement
def peers_for(name: str, n: int):
    """(peers, hand-written names, our vectorized function) for one function at batch size
    ``n``."""
    t = np.linspace(-10, 10, n)
    if name == "func":
        ours = vz.vectorize(func, fallback="error")
        whole = vz.vectorize(func, fallback="error", chunk_size=None)
        npvec = np.vectorize(func)
        settle(lambda: ours(t, 1.0), ours, n)      # warm: the transform happens here
        whole(t, 1.0)
        peers = {
            "loop": lambda: np.array([func(x, 1.0) for x in t]),
            "np.vectorize": lambda: npvec(t, 1.0),
            "hand (literal)": lambda: func_hand_literal(t, 1.0),
            "hand (reuse tmp)": lambda: func_hand_reuse(t, 1.0),
            "ours": lambda: ours(t, 1.0),
            "ours (one call)": lambda: whole(t, 1.0),
        }
        return peers, ["hand (literal)", "hand (reuse tmp)"], ours
    ours = vz.vectorize(piecewise, fallback="error")
    whole = vz.vectorize(piecewise, fallback="error", chunk_size=None)
    npvec = np.vectorize(piecewise)
    settle(lambda: ours(t), ours, n)
    whole(t)
    peers = {
        "loop": lambda: np.array([piecewise(x) for x in t]),
        "np.vectorize": lambda: npvec(t),
        "hand (np.select)": lambda: piecewise_hand_select(t),
        "hand (np.where)": lambda: piecewise_hand_where(t),
        "expert (in place)": lambda: piecewise_expert(t),
        "ours": lambda: ours(t),
        "ours (one call)": lambda: whole(t),
    }
    return peers, ["hand (np.select)", "hand (np.where)"], ours


SHUFFLED_N = 100_000


def shuffled_section(rounds: int) -> list[str]:
    """`piecewise` at N = 1e5 on the same values in random order. The table above uses a
    sorted ``linspace``, where every mask is one run of True and ``np.where`` predicts its
    branch perfectly; shuffled, each lane is a coin toss for the CPU, and merging costs about
    8 times more (select) while compaction's gathers barely change."""
    t = np.random.default_rng(0).permutation(np.linspace(-10, 10, SHUFFLED_N))
    ours = vz.vectorize(piecewise, fallback="error")
    compact = vz.vectorize(piecewise_compact, fallback="error")
    select = vz.vectorize(piecewise, fallback="error", chunk_size=None)
    npvec = np.vectorize(piecewise)
    settle(lambda: ours(t), ours, SHUFFLED_N)
    settle(lambda: compact(t), compact, SHUFFLED_N)
    peers = {
        "loop": lambda: np.array([piecewise(x) for x in t]),
        "numpy.vectorize": lambda: npvec(t),
        "hand (np.where)": lambda: piecewise_hand_where(t),
        "hand (np.select)": lambda: piecewise_hand_select(t),
        "expert (in place)": lambda: piecewise_expert(t),
        "ours (default: the faster form, timed)": lambda: ours(t),
        "ours, select form (one call)": lambda: select(t),
        "ours (`# vectorize: compact`)": lambda: compact(t),
    }
    agree = agreement(peers)
    res = interleaved(peers, rounds)
    npv = res["numpy.vectorize"][0]
    out = [f"`piecewise` at N = {SHUFFLED_N:.0e} on shuffled input (the same values in random "
           f"order; peers agree: {agree}):", "",
           "| peer | time | ns / lane | numpy.vectorize / it |", "|---|---|---|---|"]
    for name, (value, *_) in res.items():
        out.append(f"| {name} | {fmt_time(value)} | {value / SHUFFLED_N * 1e9:.1f} | "
                   f"{npv / value:.0f}x |")
    out += ["", f"Ours ran {way_chosen(ours, SHUFFLED_N)}."]
    print("\n".join(out), flush=True)
    return out


def way_chosen(vf, n: int) -> str:
    """How ``chunk_size="auto"`` runs batches of ``n`` lanes (`vectorize.chunks.run`)."""
    (entry,) = vf._specs._entries.values()
    way = entry.tuning.chunking.get(n.bit_length(), 0)
    if not isinstance(way, int):
        return "(still timing the ways)"
    form = " (the `if`s compacted)" if n.bit_length() in entry.tuning.variants else ""
    return ("as one call" if way == 0 else
            f"in chunks on {way} thread{'s' * (way > 1)}") + form


def page_faults(peers: dict, calls: int = 10) -> dict:
    """Minor page faults per call (``ru_minflt``) of each peer, after two warm-up calls: the
    cost of temporaries whose memory is fresh pages on every call."""
    import resource

    out = {}
    for name, call in peers.items():
        call()
        call()
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        for _ in range(calls):
            call()
        out[name] = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / calls
    return out


def agreement(peers: dict) -> str:
    """'exact' when every peer returns the loop's result bit for bit, else the worst
    relative difference."""
    results = {name: np.asarray(call()) for name, call in peers.items()}
    ref = results["loop"]
    worst = 0.0
    for name, res in results.items():
        if res.shape != ref.shape or res.dtype != ref.dtype:
            return f"MISMATCH ({name}: {res.dtype}{res.shape} vs {ref.dtype}{ref.shape})"
        if not np.array_equal(res, ref, equal_nan=True):
            diff = np.max(np.abs(res - ref) / np.maximum(np.abs(ref), 1e-300))
            worst = max(worst, float(diff))
    return "exact" if worst == 0.0 else f"max rel diff {worst:.1e}"


# --------------------------------------------------------------------------- import and calls
IMPORT_PROBE = textwrap.dedent("""
    import sys, time
    t0 = time.perf_counter()
    import numpy
    t1 = time.perf_counter()
    import vectorize
    t2 = time.perf_counter()
    print(t1 - t0, t2 - t1, 'libcst' in sys.modules)
""")


def measure_import(runs: int, pycache: str | None = None) -> dict:
    """`import vectorize` in fresh interpreters (numpy imported first and timed apart). With
    ``pycache`` (a folder), bytecode is written there and reused, as in a normal install;
    without it the environment decides (PYTHONDONTWRITEBYTECODE=1 means compiling each time)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    if pycache is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = pycache
    numpy_s, ours_s, libcst = [], [], set()
    for i in range(runs + (pycache is not None)):
        out = subprocess.run([sys.executable, "-c", IMPORT_PROBE], capture_output=True,
                             text=True, check=True, env=env, cwd=str(ROOT)).stdout.split()
        if pycache is not None and i == 0:
            continue                      # this run only fills the bytecode cache
        numpy_s.append(float(out[0]))
        ours_s.append(float(out[1]))
        libcst.add(out[2])
    return {"numpy": statistics.median(numpy_s), "vectorize": statistics.median(ours_s),
            "vectorize_min": min(ours_s), "vectorize_max": max(ours_s),
            "libcst_imported": ", ".join(sorted(libcst)), "runs": runs}


TWENTY_LINES = '''\
import math


def {name}(x, y):
    s = x * x + y * y
    if s > 4.0:
        r = math.sqrt(s)
        scale = 2.0 / r
    else:
        r = s
        scale = 1.0
    if x > 0:
        u = x * scale
    elif x < -1.0:
        u = -x * scale + 0.5
    else:
        u = 0.0
    if y > u:
        v = y - u
    else:
        v = u - y
    w = abs(v) + min(u, 3.0)
    if w > 10.0:
        return 10.0
    return w * r
'''


REFERENCE_N = 200_000
"""``sum(range(REFERENCE_N))``, timed after each first call: how fast the host runs plain
Python in the same window (the first call is plain Python too, so on this shared machine it
moves with it)."""


def measure_first_call(count: int) -> dict:
    """First call (decorate + transform + run) of fresh 20-line functions in a warm process:
    each is written to its own module file under a new name and imported (import not timed)."""
    x = np.linspace(-3, 3, 1000)
    y = np.linspace(2, -2, 1000)
    vz.vectorize(func, fallback="error")(x, 1.0)       # libcst and the engine are warm now
    times, cpu, reference, lines, checked = [], [], [], 0, True
    with tempfile.TemporaryDirectory(prefix="bench_core_") as tmp:
        sys.path.insert(0, tmp)
        try:
            for i in range(count):
                name = f"fresh_{os.getpid()}_{i}"
                text = TWENTY_LINES.format(name=name)
                Path(tmp, name + ".py").write_text(text)
                importlib.invalidate_caches()
                fn = getattr(importlib.import_module(name), name)
                lines = len(text.split("def ", 1)[1].splitlines())
                start, start_cpu = time.perf_counter(), time.process_time()
                out = vz.vectorize(fn, fallback="error")(x, y)
                times.append(time.perf_counter() - start)
                cpu.append(time.process_time() - start_cpu)
                start = time.perf_counter()
                sum(range(REFERENCE_N))
                reference.append(time.perf_counter() - start)
                ref = np.array([fn(a, b) for a, b in zip(x, y)])
                checked = checked and np.array_equal(out, ref)
                del sys.modules[name]
        finally:
            sys.path.remove(tmp)
    return {"median": statistics.median(times), "min": min(times), "max": max(times),
            "cpu_median": statistics.median(cpu), "reference": statistics.median(reference),
            "count": count, "lines": lines, "agrees": checked}


def generated_function(vf):
    (entry,) = vf._specs._entries.values()
    return entry.spec.function


def measure_overhead(rounds: int) -> list[dict]:
    """Warm ``vf(...)`` against the generated function called directly, N = 10."""
    x = np.linspace(-3, 3, 10)
    y = np.linspace(2, -2, 10)
    cases = []
    for label, fn, args in (("func(t, 1.0)", func, (x, 1.0)),
                            ("piecewise(x)", piecewise, (x,)),
                            ("20-line f(x, y)", _twenty_from_file(), (x, y))):
        vf = vz.vectorize(fn, fallback="error")
        vf(*args)
        gen = generated_function(vf)
        # as vectorize/api.py passes them: 1-D float arrays, scalars as NumPy scalars
        direct = tuple(a.reshape(-1) if isinstance(a, np.ndarray) else np.float64(a)
                       for a in args)
        assert np.array_equal(np.asarray(gen(*direct)), vf(*args))
        res = interleaved({"direct": lambda g=gen, d=direct: g(*d),
                           "vf": lambda v=vf, a=args: v(*a)}, rounds)
        cases.append({"label": label, "direct": res["direct"][0], "vf": res["vf"][0],
                      "overhead": res["vf"][0] - res["direct"][0], "rounds": rounds})
    vm = vz.vmap(func, in_axes=(0, None), fallback="error")
    vm(x, 1.0)
    (entry,) = vm._specs._entries.values()
    gen = entry.spec.function
    assert np.array_equal(gen(x, 1.0), vm(x, 1.0))
    res = interleaved({"direct": lambda: gen(x, 1.0), "vf": lambda: vm(x, 1.0)}, rounds)
    cases.append({"label": "vmap(func, in_axes=(0, None))(t, 1.0)", "direct": res["direct"][0],
                  "vf": res["vf"][0], "overhead": res["vf"][0] - res["direct"][0],
                  "rounds": rounds})
    return cases


def _twenty_from_file():
    """The 20-line function from a real module file (vectorize needs its source); the file
    lives until the process ends."""
    folder = tempfile.mkdtemp(prefix="bench_core_twenty_")
    atexit.register(shutil.rmtree, folder, True)
    name = f"twenty_{os.getpid()}"
    Path(folder, name + ".py").write_text(TWENTY_LINES.format(name=name))
    sys.path.insert(0, folder)
    try:
        importlib.invalidate_caches()
        return getattr(importlib.import_module(name), name)
    finally:
        sys.path.remove(folder)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    parser.add_argument("--out", type=Path, help="also write the Markdown report here")
    opts = parser.parse_args(argv)

    rounds = 5 if opts.quick else 21
    slow_rounds_1e6 = 2 if opts.quick else 5      # loop and numpy.vectorize at N = 1e6
    md = ["# bench_core results", "",
          f"Command: `python benchmarks/bench_core.py{' --quick' if opts.quick else ''}`", ""]
    md += machine_facts()
    md += ["", f"Median of {rounds} interleaved rounds per peer (loop and numpy.vectorize at "
           f"N = 1e6: {slow_rounds_1e6} rounds); each timing >= {MIN_TIMING_S * 1e3:.0f} ms "
           "of back-to-back calls; times are per call.", ""]
    header = ("| function | N | loop | numpy.vectorize | hand-written | ours | ours, one call | "
              "ours / hand | numpy.vectorize / ours | loop / ours | peers agree |")
    md += [header, "|" + "---|" * 11]
    extra, fault_rows = [], []
    for name in ("func", "piecewise"):
        for n in SIZES:
            peers, hands, ours_vf = peers_for(name, n)
            agree = agreement(peers)
            slow = {"loop": slow_rounds_1e6, "np.vectorize": slow_rounds_1e6} if n >= 1e6 else {}
            res = interleaved(peers, rounds, slow)
            ours = res["ours"][0]
            best_hand = min(hands, key=lambda h: res[h][0])
            hand = res[best_hand][0]
            hand_cell = fmt_time(hand) + (f" ({best_hand[6:-1]})" if len(hands) > 1 else "")
            md.append(f"| {name} | {n:.0e} | {fmt_time(res['loop'][0])} | "
                      f"{fmt_time(res['np.vectorize'][0])} | {hand_cell} | {fmt_time(ours)} | "
                      f"{fmt_time(res['ours (one call)'][0])} | {ours / hand:.2f}x | "
                      f"{res['np.vectorize'][0] / ours:.0f}x | "
                      f"{res['loop'][0] / ours:.0f}x | {agree} |")
            faults = page_faults({k: v for k, v in peers.items()
                                  if k in ("ours", "ours (one call)", *hands)})
            fault_rows.append(f"| {name} | {n:.0e} | " + " | ".join(
                f"{faults[k]:.0f}" for k in ("ours", "ours (one call)", *hands)) + " |")
            if len(hands) > 1:
                extra.append(f"- {name} N={n:.0e}: " + ", ".join(
                    f"{h} {fmt_time(res[h][0])} (ours / it = {ours / res[h][0]:.2f}x)"
                    for h in hands) + f"; ours ran {way_chosen(ours_vf, n)}")
            if "expert (in place)" in res:
                expert = res["expert (in place)"][0]
                extra.append(f"  - expert in-place NumPy (`piecewise_expert`, one thread) "
                             f"{fmt_time(expert)}: numpy.vectorize / it = "
                             f"{res['np.vectorize'][0] / expert:.0f}x, ours / it = "
                             f"{ours / expert:.2f}x")
            print(md[-1], flush=True)
    if extra:
        md += ["", "Both hand-written versions of each function (the table uses the faster):", ""]
        md += extra
    md += ["", "Minor page faults per call (`ru_minflt`, mean of 10 calls after 2 warm-up "
           "calls; the hand-written columns are the two versions listed above, in that order):",
           "", "| function | N | ours | ours, one call | hand 1 | hand 2 |",
           "|---|---|---|---|---|---|"]
    md += fault_rows

    md += ["", *shuffled_section(rounds)]
    imp = measure_import(5 if opts.quick else 11)
    with tempfile.TemporaryDirectory(prefix="bench_core_pyc_") as pyc:
        imp_pyc = measure_import(5 if opts.quick else 11, pyc)
    first = measure_first_call(5 if opts.quick else 15)
    over = measure_overhead(rounds)
    md += ["", "| cost | measured |", "|---|---|",
           f"| `import vectorize` (fresh process, numpy already imported, PYTHONDONTWRITEBYTECODE="
           f"{os.environ.get('PYTHONDONTWRITEBYTECODE', 'unset')}; median of "
           f"{imp['runs']}) | {fmt_time(imp['vectorize'])} (min {fmt_time(imp['vectorize_min'])}"
           f", max {fmt_time(imp['vectorize_max'])}); `import numpy` before it: "
           f"{fmt_time(imp['numpy'])} |",
           f"| same, bytecode cached (PYTHONPYCACHEPREFIX, filled by one earlier run) | "
           f"{fmt_time(imp_pyc['vectorize'])} (min {fmt_time(imp_pyc['vectorize_min'])}, max "
           f"{fmt_time(imp_pyc['vectorize_max'])}) |",
           f"| libcst imported by `import vectorize` | {imp['libcst_imported']}, "
           f"{imp_pyc['libcst_imported']} |",
           f"| first call of a fresh {first['lines']}-line function, warm process (median of "
           f"{first['count']}, N = 1000) | {fmt_time(first['median'])} (min "
           f"{fmt_time(first['min'])}, max {fmt_time(first['max'])}); CPU time of this "
           f"process (median): {fmt_time(first['cpu_median'])}; agrees with loop: "
           f"{first['agrees']}; host speed in the same window: `sum(range({REFERENCE_N:,}))` "
           f"took {fmt_time(first['reference'])} |"]
    for case in over:
        md.append(f"| warm-call overhead, {case['label']}, N = 10 (median of {case['rounds']} "
                  f"interleaved rounds) | {case['overhead'] * 1e6:.1f} µs (vf "
                  f"{fmt_time(case['vf'])}, generated function directly "
                  f"{fmt_time(case['direct'])}) |")
    report = "\n".join(md) + "\n"
    print(report)
    if opts.out:
        opts.out.write_text(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
