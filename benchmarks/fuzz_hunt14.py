"""Long differential run of `vectorize` against numpy.vectorize on generated programs of the
math module and builtins at their edge values (``tests/fuzz/hunt14_programs.py``): return
structures, argument kinds (Python scalars, lists, 0-d arrays, NumPy scalars of every dtype,
broadcasting, empty, Fortran-ordered and strided), the options and the kinds of ``pyfunc``.

    python benchmarks/fuzz_hunt14.py --n 2000 --seed 0

Prints every mismatch and internal error with its program, the counts and the refusal
reasons; exit status 1 when there was a mismatch or an internal error.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from fuzz import hunt14_programs as hp  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quiet", action="store_true", help="one line per failure")
    opts = parser.parse_args(argv)
    counts, reasons, bad = Counter(), Counter(), 0
    start = time.time()
    for seed in range(opts.seed, opts.seed + opts.n):
        kind, detail, c = hp.run_seed(seed)
        if kind == "refused" and detail.startswith("(numpy.vectorize raises"):
            kind = "refused where numpy.vectorize raises"
        elif kind == "refused":
            reasons[detail.split(": ", 1)[-1][:110]] += 1
        counts[kind] += 1
        if kind in ("mismatch", "internal"):
            bad += 1
            if opts.quiet:
                print(f"seed {seed}: {kind}: {detail.splitlines()[0][:300]}", flush=True)
            else:
                print(f"== seed {seed}: {kind} {hp.describe(c)}{detail[:2000]}\n", flush=True)
    print("\nrefusal reasons:")
    for reason, count in reasons.most_common(25):
        print(f"  {count:5}  {reason}")
    print(dict(counts))
    print(f"cases: {opts.n}, {time.time() - start:.0f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
