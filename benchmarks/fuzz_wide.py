"""Differential run of the wide generators (``tests/fuzz/wide_programs.py``): vmap calling
patterns (``axes``), dtypes and NEP 50 literals (``dtypes``), control flow (``flow``) and
NumPy functions on per-example arrays (``vecops``).

    python benchmarks/fuzz_wide.py --family axes --n 500 --seed 0
    python benchmarks/fuzz_wide.py --n 200                 # every family
    python benchmarks/fuzz_wide.py --family condwrites --n 300 --backend jax
    python benchmarks/fuzz_wide.py --family condwrites --n 300 --backend torch

``--backend``: the construct families wrapped with ``backend=...`` against the same
references; ``condwrites`` under ``torch`` runs its programs in PyTorch's spelling
(``torch.zeros(4, dtype=torch.float64)``, ``.clone()``: `wide_programs.torch_spelling`) on
tensors, against the loop over the examples as tensors.

Prints every mismatch and internal error with its program, the counts per family and the
refusal reasons; exit status 1 when there was a mismatch or an internal error.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import warnings
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from fuzz import wide_programs  # noqa: E402
from fuzz.harness import ModuleWriter  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=200, help="programs per family")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--family", choices=wide_programs.FAMILIES + ("all",), default="all")
    parser.add_argument("--backend", choices=["jax", "torch"], default=None,
                        help="wrap the construct families' programs with backend=...")
    parser.add_argument("--each", action="store_true",
                        help="print each program's outcome as it is known")
    opts = parser.parse_args(argv)
    writer = ModuleWriter(tempfile.mkdtemp(prefix="vectorize_wide_"))
    families = wide_programs.FAMILIES if opts.family == "all" else (opts.family,)
    failures = []
    for family in families:
        counts, reasons, features_failed = Counter(), Counter(), Counter()
        start = time.time()
        for seed in range(opts.seed, opts.seed + opts.n):
            source, api, features, run = wide_programs.case(family, seed, opts.backend)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    outcome = run(writer)
                except Exception as exc:  # noqa: BLE001 -- the harness must go on
                    counts["harness"] += 1
                    failures.append((family, seed, api, "harness", repr(exc), source))
                    continue
            counts[outcome.kind] += 1
            if opts.each:
                print(f"{family} seed {seed} {api}: {outcome.kind}", flush=True)
            if outcome.kind == "rejected":
                reasons[outcome.reason.split(": ", 1)[-1][:140]] += 1
            elif outcome.kind not in ("ok", "vacuous", "known"):
                features_failed.update(set(features))
                failures.append((family, seed, api, outcome.kind,
                                 f"{outcome.call}: {outcome.detail}", source))
                print(f"---- {family} seed {seed} {api}: {outcome.kind} "
                      f"({', '.join(sorted(set(features)))}): "
                      f"{outcome.detail.splitlines()[0][:200] if outcome.detail else ''}",
                      flush=True)
        print(f"\n{family}: {opts.n} programs in {time.time() - start:.0f} s: "
              f"{dict(counts)}", flush=True)
        if features_failed:
            print(f"  features of failing programs: {dict(features_failed.most_common())}")
        for reason, count in reasons.most_common(15):
            print(f"  {count:5}  {reason}")
    for family, seed, api, kind, detail, text in failures:
        print(f"\n==== {family} seed {seed} {api}: {kind}\n{detail[:2500]}\n{text}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
