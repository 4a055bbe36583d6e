"""Long differential run of the NEP 50 / dtype programs (``tests/fuzz/nep50_programs.py``)
through ``vmap`` against the loop over NumPy scalars.

    python benchmarks/fuzz_nep50.py --n 2000 --seed 0

Each seed draws one program and two dtypes, and runs it at N = 37, 0, 1, 5 and nested
(``vmap(vmap(f))`` of one row of 5). Prints every mismatch and internal error with its
program, and the refusal reasons; exit status 1 when there was a mismatch or internal error.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from fuzz import nep50_programs  # noqa: E402
from fuzz.harness import ModuleWriter, Program  # noqa: E402


def run_seed(seed: int, writer: ModuleWriter):
    rng = random.Random(seed)
    source = nep50_programs.program(rng)
    dtypes = [rng.choice(nep50_programs.DTYPES) for _ in range(2)]
    f = writer.load(Program(source, ("x", "y"), 1))
    for n, nested in ((37, False), (0, False), (1, False), (5, False), (5, True)):
        x, y = nep50_programs.inputs(random.Random(seed * 7919 + n), n, dtypes)
        kind, detail = nep50_programs.check(f, x, y, nested)
        if kind not in ("ok", "empty-raises"):
            return kind, detail, source, dtypes, n, nested
    return "ok", "", source, dtypes, None, None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quiet-rejects", action="store_true")
    options = parser.parse_args()
    writer = ModuleWriter()
    counts, reasons = Counter(), Counter()
    start = time.time()
    for seed in range(options.seed, options.seed + options.n):
        kind, detail, source, dtypes, n, nested = run_seed(seed, writer)
        counts[kind] += 1
        if kind == "rejected":
            reasons[detail.split(": ", 1)[-1][:90]] += 1
        elif kind != "ok":
            print(f"=== seed {seed} {kind} dtypes={dtypes} N={n} nested={nested}\n{source}"
                  f"{detail}\n", flush=True)
    print(dict(counts), f"{time.time() - start:.0f} s")
    for reason, k in reasons.most_common(25):
        print(f"{k:5d}  {reason}")
    return 1 if counts["mismatch"] or counts["internal"] else 0


if __name__ == "__main__":
    sys.exit(main())
