"""Long differential run of the construct programs (``tests/fuzz/construct_programs.py``).

    python benchmarks/fuzz_constructs.py --n 2000 --seed 0

Each seed draws one program and its inputs (N = 0, 1, 5, a drawn call of 8 to 40 examples and
a repeated call of 2,000, sometimes with the helper ``g`` rebound before the last) and runs it
through ``vectorize`` (against numpy.vectorize) and ``vmap`` (against the loop over NumPy
scalars). Prints every mismatch and internal error with its program, the refusal count per
feature and the reasons; exit status 1 when there was a mismatch or an internal error.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from fuzz import construct_programs  # noqa: E402
from fuzz.harness import ModuleWriter, run_construct_case  # noqa: E402


def case(seed: int):
    rng = random.Random(seed)
    text, features = construct_programs.program(rng)
    drawn = rng.randint(8, 40)
    sizes = [drawn, 0, 1, 5, 2000, 2000]
    arg_sets = []
    for n in sizes:
        args = construct_programs.inputs(random.Random(seed * 7919 + n), n)
        arg_sets.append(args)
    # the same dtypes in every call: take the first call's
    dtypes = [a.dtype for a in arg_sets[0]]
    with np.errstate(all="ignore"):
        arg_sets = [tuple(a.astype(d) for a, d in zip(args, dtypes)) for args in arg_sets]
    return text, features, arg_sets, rng.random() < 0.3


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--api", choices=["vectorize", "vmap", "both"], default="both")
    parser.add_argument("--backend", choices=["jax", "torch"], default=None,
                        help="wrap every program with backend=... (jax: XLA's documented "
                             "divergences accepted by name)")
    opts = parser.parse_args(argv)
    writer = ModuleWriter(tempfile.mkdtemp(prefix="vectorize_constructs_"))
    counts, refused_by, reasons, tried_by = Counter(), Counter(), Counter(), Counter()
    failures = []
    start = time.time()
    apis = ["vectorize", "vmap"] if opts.api == "both" else [opts.api]
    for seed in range(opts.seed, opts.seed + opts.n):
        text, features, arg_sets, rebind = case(seed)
        for api in apis:
            try:
                outcome = run_construct_case(text, arg_sets, writer, api, rebind,
                                             opts.backend)
            except Exception as exc:  # noqa: BLE001 -- the harness must go on
                counts["harness"] += 1
                failures.append((seed, api, "harness", repr(exc), text))
                continue
            counts[outcome.kind] += 1
            for feat in set(features):
                tried_by[feat] += 1
                if outcome.kind == "rejected":
                    refused_by[feat] += 1
            if outcome.kind == "rejected":
                reasons[outcome.reason.split(": ", 1)[-1][:140]] += 1
            elif outcome.kind not in ("ok", "documented"):
                # ("documented": a warning docs/semantics.md lists as a difference)
                failures.append((seed, api, outcome.kind,
                                 f"{outcome.call}: {outcome.detail}", text))
                print(f"---- seed {seed} {api}: {outcome.kind} ({', '.join(features)}): "
                      f"{outcome.detail.splitlines()[0][:200] if outcome.detail else ''}",
                      flush=True)
        if (seed - opts.seed) % 100 == 99:
            print(f"[{seed - opts.seed + 1} seeds, {time.time() - start:.0f} s] "
                  f"{dict(counts)}", flush=True)
    for seed, api, kind, detail, text in failures:
        print(f"\n==== seed {seed} {api}: {kind}\n{detail}\n{text}")
    print("\nrefused by feature (refused/tried):")
    for feat in sorted(tried_by):
        print(f"  {feat:16} {refused_by[feat]}/{tried_by[feat]}")
    print("\nrefusal reasons:")
    for reason, count in reasons.most_common(30):
        print(f"  {count:5}  {reason}")
    print(f"\nprograms: {opts.n}, runs: {sum(counts.values())}, {dict(counts)}, "
          f"{time.time() - start:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
