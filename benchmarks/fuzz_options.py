"""Long differential run of `vectorize`'s options against numpy.vectorize
(``tests/fuzz/option_programs.py``): otypes of every kind, excluded by position and name,
functools.partial, signatures with core dimensions of size 0 and 1, methods and callable
instances, several outputs; and vmap of a vectorize object at one to three levels against
the loop of loops.

    python benchmarks/fuzz_options.py --n 2000 --seed 0

Prints every mismatch and internal error with its case, the counts and the refusal
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

from fuzz import option_programs  # noqa: E402


def run_vmap_case(seed: int) -> tuple[str, str, str]:
    import numpy as np
    from vmap_reference import assert_same_tree, loop_vmap

    from vectorize import VectorizeError, vectorize, vmap
    desc, options, f, levels, args = option_programs.vmap_case(random.Random(seed))
    mapped, reference = vectorize(f, **options), np.vectorize(f, **options)
    for in_axes, out_axes in levels:
        mapped = vmap(mapped, in_axes=in_axes, out_axes=out_axes)
        reference = loop_vmap(reference, in_axes=in_axes, out_axes=out_axes)
    expected, exc = option_programs._outcome(lambda: reference(*args))
    got, got_exc = option_programs._outcome(lambda: mapped(*args))
    if exc is not None:
        return desc, "both raise" if got_exc is not None else "ok", ""
    if isinstance(got_exc, VectorizeError):
        return desc, "refused", str(got_exc).splitlines()[0]
    if got_exc is not None:
        return desc, "internal", "".join(traceback.format_exception(got_exc))[-1500:]
    try:
        assert_same_tree(got, expected)
    except AssertionError as problem:
        return desc, "mismatch", str(problem)
    return desc, "ok", ""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    opts = parser.parse_args(argv)
    counts, reasons, failures = Counter(), Counter(), []
    start = time.time()
    for seed in range(opts.seed, opts.seed + opts.n):
        if seed % 5 == 4:
            desc, kind, detail = run_vmap_case(seed)
        else:
            desc, f, args, kwargs, options = option_programs.case(random.Random(seed))
            kind, detail = option_programs.run_case(f, args, kwargs, options)
        counts[kind] += 1
        if kind == "refused":
            reasons[detail.split(": ", 1)[-1][:140]] += 1
        elif kind in ("mismatch", "internal"):
            failures.append((seed, kind, desc, detail))
            print(f"---- seed {seed}: {kind}: {desc}\n{detail[:1500]}", flush=True)
    print("\nrefusal reasons:")
    for reason, count in reasons.most_common(20):
        print(f"  {count:5}  {reason}")
    print(f"\ncases: {opts.n}, {dict(counts)}, {time.time() - start:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
