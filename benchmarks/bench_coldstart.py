"""Cold-start benchmark: the first call of a vectorized function in a fresh process, with and
without a disk-cache hit (`vectorize.diskcache`).

This is a script, not a test::

    python benchmarks/bench_coldstart.py                 # 15 rounds, prints a Markdown report
    python benchmarks/bench_coldstart.py --rounds 5
    python benchmarks/bench_coldstart.py --out report.md

Each measurement is one fresh interpreter (``python -c``) that imports NumPy, then
``vectorize``, then makes the callable and calls it once on 1,000 lanes; it reports the time
of ``import numpy`` and of everything after it (``import vectorize`` included; wall time,
and the process' CPU time, which moves less with the load of a shared machine), whether
libcst got imported, and the disk cache's counts. The functions are the README's seed
``func`` and a 20-line function with four ``if`` s (``bench_core.TWENTY_LINES``), each in a
module of its own in a temporary folder. The modes:

- ``cold``: no disk cache (the engine runs: libcst import, rule tables, transform);
- ``miss``: a cache directory without the entry (the engine runs and stores it);
- ``hit``: the entry is there (no transform, no libcst);
- ``baseline``: with ``--baseline PATH``, ``cold`` for the checkout at PATH (say an older
  commit, from ``git archive``), to compare.

Bytecode is written once to a temporary ``PYTHONPYCACHEPREFIX`` and reused by every run, as
in an installed package (``PYTHONDONTWRITEBYTECODE`` would compile every module each time).
The modes and functions are interleaved round by round; each figure is the median over the
rounds (min and max beside it), since this machine's load moves from run to run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for path in (str(ROOT), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

from _timing import machine_facts  # noqa: E402
from bench_core import TWENTY_LINES  # noqa: E402

SEED = """\
def func(t, b):
    tmp = t * b
    if tmp > 5:
        root = t * b
    else:
        root = -t
    return root
"""

PROBE = """\
import sys, time, json
t0, c0 = time.perf_counter(), time.process_time()
import numpy as np
t1, c1 = time.perf_counter(), time.process_time()
sys.path.insert(0, {folder!r})
import {module} as mod
x = np.linspace(-3.0, 12.0, 1000)
t2, c2 = time.perf_counter(), time.process_time()
import vectorize
f = vectorize.vectorize(getattr(mod, {name!r}), fallback="error"{cache})
out = f(x, {second})
t3, c3 = time.perf_counter(), time.process_time()
try:
    from vectorize.diskcache import stats
except ImportError:         # a baseline from before the disk cache
    stats = {{"hits": 0}}
print(json.dumps({{"numpy": t1 - t0, "after": t3 - t2, "numpy_cpu": c1 - c0,
                  "after_cpu": c3 - c2, "libcst": "libcst" in sys.modules,
                  "stats": stats, "checksum": float(np.nansum(out))}}))
"""

LIBCST_PROBE = """\
import sys, time, json
import numpy
t0 = time.perf_counter()
import libcst
print(json.dumps({"libcst": time.perf_counter() - t0}))
"""


def run(code: str, env: dict) -> dict:
    # (in the folder of the checkout it times: `python -c` puts the working folder first on
    # sys.path)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, cwd=env["PYTHONPATH"], check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--out", help="also write the Markdown report here")
    parser.add_argument("--baseline", help="a checkout whose cold first call to time too")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="vz-coldstart-"))
    try:
        report = measure(tmp, args.rounds, args.baseline)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(report)
    if args.out:
        Path(args.out).write_text(report + "\n")


def measure(tmp: Path, rounds: int, baseline: str | None = None) -> str:
    (tmp / "cs_seed.py").write_text(SEED)
    (tmp / "cs_twenty.py").write_text(TWENTY_LINES.format(name="twenty"))
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONPYCACHEPREFIX=str(tmp / "pycache"))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("VECTORIZE_CACHE_DIR", None)
    base_env = dict(env, PYTHONPATH=str(Path(baseline).resolve())) if baseline else None
    functions = {"seed func": ("cs_seed", "func", "1.0"),
                 "20-line function": ("cs_twenty", "twenty", "x[::-1]")}
    modes = ("cold", "miss", "hit") + (("baseline",) if baseline else ())
    hit_dir = str(tmp / "hit-cache")

    def probe(function: str, mode: str, round_: int) -> str:
        module, name, second = functions[function]
        cache = {"cold": ", cache_dir=False", "hit": f", cache_dir={hit_dir!r}",
                 "miss": f", cache_dir={str(tmp / f'miss-{round_}-{module}')!r}",
                 "baseline": ""}[mode]
        return PROBE.format(folder=str(tmp), module=module, name=name, cache=cache,
                            second=second)

    def run_mode(function: str, mode: str, round_: int) -> dict:
        return run(probe(function, mode, round_), base_env if mode == "baseline" else env)

    # fill the bytecode cache and the hit directory; check that the modes agree
    checks = {}
    for function in functions:
        for mode in ("cold", "hit", "hit") + modes[3:] * 2:
            checks.setdefault(function, set()).add(run_mode(function, mode, -1)["checksum"])
    assert all(len(c) == 1 for c in checks.values()), checks
    run(LIBCST_PROBE, env)

    results: dict = {}
    for round_ in range(rounds):
        for function in functions:
            for mode in modes:
                got = run_mode(function, mode, round_)
                expect_hit = mode == "hit"
                assert got["stats"]["hits"] == expect_hit, (mode, got)
                assert got["libcst"] != expect_hit, (mode, got)
                results.setdefault((function, mode), []).append(got)
        results.setdefault(("libcst", ""), []).append(run(LIBCST_PROBE, env))

    def row(values):
        return (f"{statistics.median(values) * 1e3:.1f} ms "
                f"({min(values) * 1e3:.1f}–{max(values) * 1e3:.1f})")

    lines = ["# Cold start: the first call in a fresh process", ""]
    lines += machine_facts(full=False)
    lines += [f"- rounds: {rounds} (modes and functions interleaved; median (min–max))", "",
              "| function | mode | `import numpy` | import vectorize + make + first call "
              "(N = 1000) | the same, CPU time | libcst imported |",
              "|---|---|---|---|---|---|"]
    for function in functions:
        for mode in modes:
            got = results[(function, mode)]
            lines.append(f"| {function} | {mode} | {row([g['numpy'] for g in got])} | "
                         f"{row([g['after'] for g in got])} | "
                         f"{row([g['after_cpu'] for g in got])} | "
                         f"{'yes' if got[0]['libcst'] else 'no'} |")
    lines += ["", f"`import libcst` after NumPy: "
                  f"{row([g['libcst'] for g in results[('libcst', '')]])}"]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
