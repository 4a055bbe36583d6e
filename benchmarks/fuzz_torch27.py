"""Long differential run of the NEP 50 and bool programs on PyTorch tensors
(``tests/fuzz/torch27_programs.py``): ``vmap`` and ``vectorize`` on tensors of int8 ... float64
and bool against the per-example loop over 0-d tensors (torch.func semantics).

    python benchmarks/fuzz_torch27.py --n 2000 --seed 0

Prints every mismatch and internal error with its program, the counts and the refusal
reasons; exit status 1 when there was a mismatch or an internal error.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import traceback
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from fuzz import torch27_programs  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quiet", action="store_true", help="counts and reasons only")
    options = parser.parse_args()
    counts, reasons = Counter(), Counter()
    start = time.time()
    for seed in range(options.seed, options.seed + options.n):
        source, dtypes, family = torch27_programs.case(random.Random(seed))
        try:
            kind, detail, n, how = torch27_programs.run(source, dtypes, seed)
        except Exception:  # noqa: BLE001 -- the harness's own failure: report it
            kind, detail, n, how = "internal", traceback.format_exc(), None, None
        counts[kind] += 1
        counts[f"{family}:{kind}"] += 1
        if kind == "rejected":
            reasons[detail.split(": ", 1)[-1][:90]] += 1
        elif kind != "ok" and not options.quiet:
            print(f"=== seed {seed} {kind} {family} dtypes={dtypes} N={n} {how}\n{source}"
                  f"{detail[:1500]}\n", flush=True)
    print(dict(counts), f"{time.time() - start:.0f} s")
    for reason, k in reasons.most_common(25):
        print(f"{k:5d}  {reason}")
    return 1 if counts["mismatch"] or counts["internal"] else 0


if __name__ == "__main__":
    sys.exit(main())
