"""Long differential run of `tests/fuzz/hunt12_programs.py` (typed constructs, dtypes that
change between calls, ``otypes``, rebound helpers) through ``vectorize`` against
numpy.vectorize itself.

    python benchmarks/fuzz_hunt12.py --n 2000 --seed 0

Prints every mismatch and internal error with its program, the refusals per feature and
their reasons; exit status 1 when there was a mismatch or an internal error.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from fuzz import hunt12_programs  # noqa: E402
from fuzz.harness import ModuleWriter, Program  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quiet", action="store_true")
    opts = parser.parse_args(argv)
    writer = ModuleWriter(tempfile.mkdtemp(prefix="vectorize_hunt12_"))
    counts, refused_by, tried_by, reasons = Counter(), Counter(), Counter(), Counter()
    failures = []
    start = time.time()
    for seed in range(opts.seed, opts.seed + opts.n):
        text, features, calls, otypes = hunt12_programs.case(seed)
        try:
            f = writer.load(Program(text, ("x", "y", "n"), 1))
            res = hunt12_programs.run_case(f, calls, otypes)
        except Exception as exc:  # noqa: BLE001 -- the run must go on
            res = hunt12_programs.Result("harness", repr(exc))
        counts[res.kind] += 1
        for feat in set(features):
            tried_by[feat] += 1
            refused_by[feat] += res.kind == "rejected"
        if res.kind == "ulp":
            print(f"~~~~ seed {seed}: last bits ({', '.join(features)}) {res.call}", flush=True)
        if res.kind == "rejected":
            reasons[re.sub(r"^\S+\.py:\d+:\d+: ", "", res.detail)[:120]] += 1
        elif res.kind not in ("ok", "ulp"):
            failures.append((seed, res, text))
            print(f"---- seed {seed}: {res.kind} ({', '.join(features)}) {res.call}: "
                  f"{res.detail.splitlines()[0][:200]}", flush=True)
    if not opts.quiet:
        for seed, res, text in failures:
            print(f"\n==== seed {seed}: {res.kind} {res.call}\n{res.detail}\n"
                  f"{text.split('class H:')[1]}")
    print("\nrefused by feature (refused/tried):")
    for feat in sorted(tried_by, key=lambda t: -refused_by[t]):
        print(f"  {feat:16} {refused_by[feat]}/{tried_by[feat]}")
    print("\nrefusal reasons:")
    for reason, count in reasons.most_common(25):
        print(f"  {count:5}  {reason}")
    print(f"\nseeds: {opts.n}, {dict(counts)}, {time.time() - start:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
