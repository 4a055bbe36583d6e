"""The construct programs (`fuzz/construct_programs.py`: issue 20's list of constructs real
code uses) through `vectorize` against numpy.vectorize itself and through `vmap` against the
loop over NumPy scalars, at N = 0, 1, 5, a drawn N and a repeated larger call, sometimes
with the module helper rebound before the last call. A refusal is fine (counted); a
mismatch or an internal error is a bug. The long run is `benchmarks/fuzz_constructs.py`."""

from __future__ import annotations

import random

import numpy as np
import pytest
from fuzz import construct_programs
from fuzz.harness import ModuleWriter, run_construct_case

SEEDS = range(40)


def _case(seed: int):
    rng = random.Random(seed)
    text, features = construct_programs.program(rng)
    sizes = [rng.randint(8, 24), 0, 1, 5, 300, 300]
    first = construct_programs.inputs(random.Random(seed * 7919), sizes[0])
    arg_sets = [first]
    for n in sizes[1:]:
        args = construct_programs.inputs(random.Random(seed * 7919 + n), n)
        with np.errstate(all="ignore"):
            arg_sets.append(tuple(a.astype(f.dtype) for a, f in zip(args, first)))
    return text, features, arg_sets, rng.random() < 0.3


@pytest.fixture(scope="module")
def writer(tmp_path_factory):
    return ModuleWriter(tmp_path_factory.mktemp("constructs"))


@pytest.mark.parametrize("api", ["vectorize", "vmap"])
def test_construct_programs(writer, api):
    kinds, failures = {}, []
    for seed in SEEDS:
        text, features, arg_sets, rebind = _case(seed)
        outcome = run_construct_case(text, arg_sets, writer, api, rebind)
        kinds[outcome.kind] = kinds.get(outcome.kind, 0) + 1
        if outcome.kind in ("mismatch", "internal"):
            failures.append(f"seed {seed} ({', '.join(features)}): {outcome.kind} at "
                            f"{outcome.call}: {outcome.detail[:800]}\n{text}")
    assert not failures, "\n\n".join(failures)
    # the programs are not all refused (the comparison is not vacuous)
    assert kinds.get("ok", 0) >= len(SEEDS) // 4, kinds


def test_the_generator_makes_every_construct():
    seen = set()
    for seed in range(400):
        seen.update(construct_programs.program(random.Random(seed))[1])
    names = {name for name, _ in construct_programs._snippets(random.Random(0), "x", "y",
                                                                "v0", 0)}
    assert seen == names
