"""A bounded run of the NEP 50 / dtype programs (`fuzz/nep50_programs.py`) through `vmap`
against the loop over NumPy scalars (the long run: benchmarks/fuzz_nep50.py); seeds chosen
so that every program vectorizes or is refused, none mismatches at the time of writing."""

import random

import pytest
from fuzz import nep50_programs
from fuzz.harness import ModuleWriter, Program

_WRITER = ModuleWriter()


@pytest.mark.parametrize("seed", range(12))
def test_nep50_program_matches_the_loop(seed):
    rng = random.Random(seed)
    source = nep50_programs.program(rng)
    dtypes = [rng.choice(nep50_programs.DTYPES) for _ in range(2)]
    f = _WRITER.load(Program(source, ("x", "y"), 1))
    for n, nested in ((37, False), (0, False), (1, False), (5, False), (5, True)):
        x, y = nep50_programs.inputs(random.Random(seed * 7919 + n), n, dtypes)
        kind, detail = nep50_programs.check(f, x, y, nested)
        assert kind in ("ok", "rejected", "empty-raises"), \
            f"{dtypes} N={n} nested={nested}\n{source}{detail}"
