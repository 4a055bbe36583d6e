"""A bounded run of the NEP 50 / dtype programs (`fuzz/nep50_programs.py`) through `vmap`
against the loop over NumPy scalars (the long run: benchmarks/fuzz_nep50.py); seeds chosen
so that every program vectorizes or is refused, none mismatches at the time of writing."""

import random

import pytest
from fuzz import nep50_programs
from fuzz.harness import ModuleWriter, Program

_WRITER = ModuleWriter()


# seed 9: an empty batch raises the OverflowError of a branch no example takes
# (`x & 16384` of an int8 under `if r > r`), where the loop over no examples returns: open
@pytest.mark.parametrize("seed", [pytest.param(s, marks=pytest.mark.xfail(
    strict=True, reason="empty batch raises a dead branch's error")) if s == 9 else s
    for s in range(12)])
def test_nep50_program_matches_the_loop(seed):
    rng = random.Random(seed)
    source = nep50_programs.program(rng)
    dtypes = [rng.choice(nep50_programs.DTYPES) for _ in range(2)]
    f = _WRITER.load(Program(source, ("x", "y"), 1))
    for n, nested in ((37, False), (0, False), (1, False), (5, False), (5, True)):
        x, y = nep50_programs.inputs(random.Random(seed * 7919 + n), n, dtypes)
        kind, detail = nep50_programs.check(f, x, y, nested)
        assert kind in ("ok", "rejected"), f"{dtypes} N={n} nested={nested}\n{source}{detail}"
