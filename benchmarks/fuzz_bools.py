"""Long differential run of `vectorize` against numpy.vectorize on random small functions
where Python's and NumPy's scalar semantics part (``tests/fuzz/bool_programs.py``): bools
used as numbers, the first example deciding the output type, narrow ints and floats, Python
numbers, NumPy scalars and 0-d arrays as arguments.

    python benchmarks/fuzz_bools.py --n 2000 --seed 0

Prints every mismatch and internal error with its program, the counts and the refusal
reasons; exit status 1 when there was a mismatch or an internal error.
"""

from __future__ import annotations

import argparse
import random
import sys
import traceback
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from fuzz import bool_programs  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    ns = parser.parse_args()
    counts, reasons, bad = Counter(), Counter(), 0
    for seed in range(ns.seed, ns.seed + ns.n):
        source, dtypes, shapes = bool_programs.case(random.Random(seed))
        try:
            kind, detail = bool_programs.run_case(source, dtypes, shapes, seed)
        except Exception:  # noqa: BLE001 -- the harness's own failure: report it
            kind, detail = "internal", traceback.format_exc()
        counts[kind] += 1
        if kind == "rejected":
            reasons[detail.split(": ", 1)[-1][:100]] += 1
        if kind in ("mismatch", "internal"):
            bad += 1
            print(f"== seed {seed}: {kind} {dtypes} {shapes}\n{source}{detail[:1500]}\n",
                  flush=True)
    print(dict(counts))
    for reason, count in reasons.most_common(25):
        print(count, reason)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
