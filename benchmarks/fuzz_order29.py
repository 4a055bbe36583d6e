"""Differential fuzz of Python's evaluation order (``tests/fuzz/order29_programs.py``):
statements whose examples raise different exceptions (ZeroDivisionError, KeyError,
IndexError, ValueError, OverflowError, AssertionError, UnboundLocalError) in one expression.
``vectorize`` must raise numpy.vectorize's exception (type and message), the rewritten file
(no replay) each example's own exception type, ``vmap`` the loop's type.

    python benchmarks/fuzz_order29.py --n 300 --seed 0 [--no-vmap] [--no-rewrite]

Prints each mismatch with its seed and the counts; exit status 1 on a mismatch.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from fuzz import order29_programs  # noqa: E402


def main(argv=None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=200)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-vmap", action="store_true")
    p.add_argument("--no-rewrite", action="store_true")
    p.add_argument("--show", action="store_true", help="print each mismatching program")
    opts = p.parse_args(argv)
    counts, kinds, reasons, bad = Counter(), Counter(), Counter(), []
    for seed in range(opts.seed, opts.seed + opts.n):
        rng = random.Random(seed)
        text = order29_programs.make_program(rng)
        args = order29_programs.inputs(rng)
        mismatches, refused = order29_programs.compare(
            text, args, path=f"{tempfile.gettempdir()}/order29_case_{seed}.py",
            vmap_too=not opts.no_vmap, rewrite_too=not opts.no_rewrite)
        counts["programs"] += 1
        counts["rewrite refused"] += bool(refused)
        if refused:
            reasons[refused] += 1
        if mismatches:
            counts["mismatching programs"] += 1
            bad.append(seed)
            for m in mismatches:
                kinds[m.split(":")[0].split(",")[0]] += 1
            print(f"seed {seed}: " + "; ".join(mismatches), flush=True)
            if opts.show:
                print(text.split("\ndef f(")[1], flush=True)
    print(dict(counts), dict(kinds))
    for r, c in reasons.most_common(6):
        print(f"  refused {c:4d}: {r}")
    print("bad seeds:", bad)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
