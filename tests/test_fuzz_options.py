"""`vectorize`'s options (`fuzz/option_programs.py`: otypes of every kind, excluded by position
and name, functools.partial, signatures with core dimensions of size 0 and 1, methods,
callable instances, several outputs) against numpy.vectorize itself, and vmap of a vectorize
object at one to three levels against the loop of loops. A refusal is fine (counted); a
mismatch or an internal error is a bug. The long run is `benchmarks/fuzz_options.py`."""

from __future__ import annotations

import functools
import random

import numpy as np
from fuzz import option_programs
from vmap_reference import assert_same_tree, loop_vmap

from vectorize import VectorizeError, vectorize, vmap


def test_option_cases_equal_numpy_vectorize():
    kinds, failures = {}, []
    for seed in range(150):
        desc, f, args, kwargs, options = option_programs.case(random.Random(seed))
        kind, detail = option_programs.run_case(f, args, kwargs, options)
        kinds[kind] = kinds.get(kind, 0) + 1
        if kind in ("mismatch", "internal"):
            failures.append(f"seed {seed}: {kind}: {desc}\n{detail[:600]}")
    assert not failures, "\n\n".join(failures)
    assert kinds.get("ok", 0) >= 75, kinds     # (not vacuous)


def test_vmap_of_vectorize_objects_equals_the_loops():
    compared = 0
    for seed in range(30):
        desc, options, f, levels, args = option_programs.vmap_case(random.Random(seed))
        mapped, reference = vectorize(f, **options), np.vectorize(f, **options)
        for in_axes, out_axes in levels:
            mapped = vmap(mapped, in_axes=in_axes, out_axes=out_axes)
            reference = loop_vmap(reference, in_axes=in_axes, out_axes=out_axes)
        expected, exc = option_programs._outcome(functools.partial(reference, *args))
        got, got_exc = option_programs._outcome(functools.partial(mapped, *args))
        if exc is not None:
            continue
        assert not isinstance(got_exc, VectorizeError) or "runs per example" in str(got_exc), \
            (desc, got_exc)
        assert got_exc is None, (desc, got_exc)
        assert_same_tree(got, expected)
        compared += 1
    assert compared >= 20
