"""Regressions found by the fresh-seed sweep of the differential fuzzers (seeds 20000+)."""

import numpy as np
import pytest
from fuzz.harness import ModuleWriter, _raises_on_every_example, run_construct_case

from vectorize import vectorize, vmap

POW_MINUS_ONE = """\
def f(x, y):
    v0 = x ** -1
    return float(v0)
"""


def pow_minus_one(x, y):
    v0 = x ** -1
    return float(v0)


def test_vmap_empty_batch_raises_what_every_example_raises():
    # `x ** -1` of a uint8 `x`: NEP 50's OverflowError on every example, whatever its value,
    # and so on the empty batch (docs/semantics.md: an error every example meets)
    x, y = np.zeros(0, np.uint8), np.zeros(0)
    with pytest.raises(OverflowError):
        vmap(pow_minus_one)(x, y)
    with pytest.raises(OverflowError):
        vmap(pow_minus_one)(np.arange(1, 4, dtype=np.uint8), np.zeros(3))
    # vectorize: the empty batch has a result (numpy.vectorize needs otypes there)
    assert vectorize(pow_minus_one)(x, y).shape == (0,)


def test_construct_harness_accepts_an_empty_batch_raising_what_every_example_raises(
        tmp_path):
    # fuzz_constructs seed 20026 (vmap) was reported "internal" at N=0 for the program above
    arg_sets = [(np.arange(1, 9, dtype=np.uint8), np.linspace(0, 1, 8)),
                (np.zeros(0, np.uint8), np.zeros(0)),
                (np.ones(1, np.uint8), np.ones(1))]
    outcome = run_construct_case(POW_MINUS_ONE, arg_sets, ModuleWriter(tmp_path), "vmap")
    assert outcome.kind == "ok", outcome


def test_every_example_check_is_not_fooled_by_a_function_that_returns():
    empty = (np.zeros(0, np.uint8), np.zeros(0))
    calls = [empty, (np.arange(1, 4, dtype=np.uint8), np.zeros(3))]
    exc = OverflowError("x")
    assert _raises_on_every_example(pow_minus_one, empty, calls, exc)
    assert not _raises_on_every_example(lambda x, y: x + y, empty, calls, exc)
    assert not _raises_on_every_example(pow_minus_one, empty, calls, ValueError("x"))
