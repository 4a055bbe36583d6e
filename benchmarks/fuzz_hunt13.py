"""Long differential run of `vmap` (``tests/fuzz/hunt13_programs.py``): random scalar/row
programs under random in_axes / out_axes (ints, negative, None, pytrees), 1-3 levels,
axis_size, batches of size 0 and 1, keyword arguments, float32/float64/int32/bool
inputs, on the NumPy, PyTorch and JAX backends, each against the per-example loop.

    python benchmarks/fuzz_hunt13.py --n 1000 --seed 0 --backends numpy,torch,jax

Prints every mismatch, internal error and case where vmap returns while the loop raises,
the counts per backend and the refusal reasons; exit status 1 where there was one.
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

from fuzz import hunt13_programs as hp  # noqa: E402

BAD = ("mismatch", "internal", "raises-vs-returns")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--backends", default="numpy,torch,jax")
    parser.add_argument("--quiet", action="store_true", help="one line per failure")
    opts = parser.parse_args(argv)
    loader = hp.Loader()
    counts = {b: Counter() for b in opts.backends.split(",")}
    reasons = Counter()
    failures = 0
    start = time.time()
    for seed in range(opts.seed, opts.seed + opts.n):
        for backend in counts:
            ns = "torch" if backend == "torch" else "np"
            c = hp.case(seed, ns)
            f = loader.load(c.source)
            kind, detail = hp.run_case(c, f, backend)
            counts[backend][kind] += 1
            if kind == "refused":
                reasons[f"{backend}: {detail.split(': ', 1)[-1][:120]}"] += 1
            elif kind in BAD:
                failures += 1
                if opts.quiet:
                    print(f"seed {seed} {backend}: {kind}: {detail.splitlines()[-1][:160]}",
                          flush=True)
                else:
                    print(f"---- seed {seed} {backend}: {kind}: {c.description}\n"
                          f"kwarg {c.kwarg}\n{c.source}\n{detail[:2500]}", flush=True)
            random.seed(seed)
    print("\nrefusal reasons:")
    for reason, count in reasons.most_common(25):
        print(f"  {count:5}  {reason}")
    for backend, cnt in counts.items():
        print(f"{backend}: {dict(cnt)}")
    print(f"cases: {opts.n}, {time.time() - start:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
