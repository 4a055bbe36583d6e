"""Random small functions where Python's and NumPy's scalar semantics part
(`fuzz/bool_programs.py`: bools used as numbers, the first example deciding the output type,
narrow ints and floats, Python numbers, NumPy scalars and 0-d arrays as arguments) against
numpy.vectorize itself. A refusal is fine (counted); a mismatch or an internal error is a
bug. The long run is `benchmarks/fuzz_bools.py`."""

from __future__ import annotations

import random

from fuzz import bool_programs


def test_bool_programs_equal_numpy_vectorize():
    kinds, failures = {}, []
    for seed in range(16):
        source, dtypes, shapes = bool_programs.case(random.Random(seed))
        kind, detail = bool_programs.run_case(source, dtypes, shapes, seed)
        kinds[kind] = kinds.get(kind, 0) + 1
        if kind in ("mismatch", "internal"):
            failures.append(f"seed {seed}: {kind} {dtypes} {shapes}\n{source}{detail[:600]}")
    assert not failures, "\n\n".join(failures)
    assert kinds.get("ok", 0) >= 8, kinds     # (not vacuous)
