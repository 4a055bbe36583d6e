"""The differential fuzzers not covered by the suite's JAX runs, under ``backend="jax"``.

    python benchmarks/fuzz_jax27.py --n 1000 --seed 0                  # nep50 + bools
    python benchmarks/fuzz_jax27.py --only nep50 --n 3000

- ``nep50`` (``tests/fuzz/nep50_programs.py``): ``vmap(f, backend="jax")`` on NumPy arrays
  of two drawn dtypes at N = 37, 0, 1, 5 and nested (``vmap(vmap(f))``), against the loop
  over NumPy scalars;
- ``bools`` (``tests/fuzz/bool_programs.py``): ``vectorize(f, backend="jax")`` against
  numpy.vectorize itself, Python numbers, NumPy scalars and 0-d arrays as arguments.

The other two generators run under JAX through their own scripts:
``benchmarks/fuzz_long.py --kind vectors --backend jax`` (``vector_programs.py``) and
``benchmarks/fuzz_wide.py --backend jax`` (``wide_programs.py``'s construct families).
Prints every mismatch and internal error with its program, the counts and the refusal
reasons; exit status 1 when there was a mismatch or an internal error. A result that differs
from the reference only in the sign of zeros is counted apart ("known: sign of a zero",
docs/jax.md "Divergences"), and so is one that the loop over the program with XLA's
divisions by a constant (products with the reciprocal) gives ("known: a division by a
constant": an ulp of `y / 300`, which a later `x % (y / 300)` makes larger).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
import traceback
import warnings
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from fuzz import bool_programs, nep50_programs  # noqa: E402
from fuzz.harness import ModuleWriter, Program, xla_division_variant  # noqa: E402


def _zero_signs_only(got, expected) -> bool:
    """Whether ``got`` equals ``expected`` but for the sign of zeros (XLA's, docs/jax.md
    "Divergences": it folds ``x + 0.0`` to ``x``, picks either zero in ``%``/``//``)."""
    got, expected = np.asarray(got), np.asarray(expected)
    if got.shape != expected.shape or got.dtype != expected.dtype or got.dtype.kind != "f":
        return False
    return bool(np.array_equal(got, expected, equal_nan=True))


def nep50_seed(seed: int, writer: ModuleWriter):
    rng = random.Random(seed)
    source = nep50_programs.program(rng)
    dtypes = [rng.choice(nep50_programs.DTYPES) for _ in range(2)]
    f = writer.load(Program(source, ("x", "y"), 1))
    for n, nested in ((37, False), (0, False), (1, False), (5, False), (5, True)):
        x, y = nep50_programs.inputs(random.Random(seed * 7919 + n), n, dtypes)
        kind, detail = nep50_programs.check(f, x, y, nested, backend="jax")
        if kind == "mismatch" and detail.startswith("sign of zero differs"):
            kind = "known: sign of a zero"
        elif kind == "mismatch" and detail.startswith("values differ"):
            # XLA's division by a constant as a product with its reciprocal (docs/jax.md),
            # an ulp that a later `%` or `//` may make larger: the loop over that variant
            variant = xla_division_variant(f, source)
            if variant is not None and nep50_programs.check(
                    f, x, y, nested, backend="jax", reference=variant)[0] == "ok":
                kind = "known: a division by a constant"
        if kind not in ("ok", "empty-raises"):
            return kind, f"dtypes={dtypes} N={n} nested={nested}\n{source}{detail}"
    return "ok", ""


def bools_seed(seed: int, writer: ModuleWriter):
    source, dtypes, shapes = bool_programs.case(random.Random(seed))
    kind, detail = bool_programs.run_case(source, dtypes, shapes, seed, backend="jax")
    if kind == "mismatch":
        same = bool_programs._same
        bool_programs._same = lambda got, expected: (
            None if _zero_signs_only(got, expected) else same(got, expected))
        try:
            if bool_programs.run_case(source, dtypes, shapes, seed, backend="jax")[0] != \
                    "mismatch":
                kind = "known: sign of a zero"
        finally:
            bool_programs._same = same
    return kind, f"{dtypes} {shapes}\n{source}{detail[:1500]}"


FUZZERS = {"nep50": nep50_seed, "bools": bools_seed}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=500, help="seeds per fuzzer")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", choices=sorted(FUZZERS), default=None)
    opts = parser.parse_args(argv)
    writer = ModuleWriter(tempfile.mkdtemp(prefix="vectorize_jax27_"))
    bad = 0
    for name, run in FUZZERS.items():
        if opts.only and name != opts.only:
            continue
        counts, reasons = Counter(), Counter()
        start = time.time()
        for seed in range(opts.seed, opts.seed + opts.n):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    kind, detail = run(seed, writer)
                except Exception:  # noqa: BLE001 -- the harness's own failure: report it
                    kind, detail = "internal", traceback.format_exc()
            counts[kind] += 1
            if kind == "rejected":
                reasons[detail.split("\n")[-1].split(": ", 1)[-1][:100]] += 1
            elif kind in ("mismatch", "internal"):
                bad += 1
                print(f"== {name} seed {seed}: {kind} {detail}\n", flush=True)
        print(f"{name}: {opts.n} seeds in {time.time() - start:.0f} s: {dict(counts)}",
              flush=True)
        for reason, count in reasons.most_common(15):
            print(f"  {count:5d}  {reason}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
