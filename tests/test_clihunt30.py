"""Call sites where the rewritten function computes otherwise than the decorator did, whether
the loop stays or not (benchmarks/fuzz_clihunt27.py's function-diffs): the rewriter must say so
on stderr (a warning at the call), never change the file's output silently (docs/cli.md).

- the items of an array are NumPy scalars: the decorator hands them to the function as they
  are (`1.0 / np.float64(0.0)` is inf), where the rewritten code checks as Python does and
  raises: the call goes to the function's version for NumPy scalars (no warning is due);
- a generator expression stays as it is, but its items meet the rewritten function's
  specialization as a loop's do (ints to a float64 `x`)."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from vectorize import vectorize
from vectorize.rewrite import rewrite_text

HEAD = '''
import numpy as np

from vectorize import vectorize

GRID = np.linspace(0.0, 1.0, 3)
FLOATS = [0.0, 0.5, 1.0]


@vectorize
def f(x):
    if x == 1.0:
        return 1.0 / (x - x)
    return x
'''


def _warnings(site: str) -> list[str]:
    text = textwrap.dedent(HEAD) + "\n\n" + textwrap.dedent(site)
    outcome = rewrite_text(text, "case.py")
    assert not outcome.errors, outcome.errors
    return [str(w) for w in outcome.warnings]


@pytest.mark.parametrize("site", [
    "out = [f(x) for x in GRID]\n",
    "out = list(map(f, GRID))\n",
    "out = []\nfor x in GRID:\n    out.append(f(x))\n",
    "out = tuple(f(x) for x in GRID)\n",
])
def test_numpy_scalar_items_compute_as_the_decorator(site):
    # (the call goes to the version of `f` for NumPy scalars: no warning is due; the values
    # are checked against the decorator's in tests/test_cli31.py)
    text = textwrap.dedent(HEAD) + "\n\n" + textwrap.dedent(site)
    outcome = rewrite_text(text, "case.py")
    assert not outcome.errors and not outcome.warnings, outcome.warnings
    namespace: dict = {}
    with np.errstate(all="ignore"):
        exec(compile(outcome.text, "case.py", "exec"), namespace)
    assert np.isinf(np.asarray(list(namespace["out"]), dtype=float)[2])


def test_the_warning_is_due():
    # what the warning says: the decorator computes with the NumPy scalar item as NumPy does,
    # the rewritten function (`rewrite_text`'s) raises as Python does
    @vectorize
    def f(x):
        if x == 1.0:
            return 1.0 / (x - x)
        return x

    grid = np.linspace(0.0, 1.0, 3)
    with np.errstate(all="ignore"):
        assert np.isinf(f(grid[2]))
    namespace: dict = {}
    exec(compile(rewrite_text(textwrap.dedent(HEAD), "case.py").text, "case.py", "exec"),
         namespace)
    with pytest.raises(ZeroDivisionError):
        namespace["f"](grid[2])


@pytest.mark.parametrize("site", [
    "out = [f(x) for x in FLOATS]\n",              # Python floats: both raise
    "out = tuple(f(x) for x in FLOATS)\n",
])
def test_python_number_items_are_not_warned(site):
    assert not _warnings(site)


def test_generator_of_ints_is_warned():
    warnings = _warnings("out = tuple(f(x) for x in range(3))\n")
    assert any("int64 numbers" in w and "range(3)" in w for w in warnings), warnings


def test_empty_array_is_not_warned():
    # no items: the function never runs on one
    assert not _warnings("out = [f(x) for x in np.zeros(0)]\n")


def test_enumerate_of_ints_is_warned():
    # fuzz_clihunt27 seed 84: `[f5(x, x) for i, x in enumerate(range(3))]` gave int64(4)
    # where the rewritten function gives float64(4.0), with no word on stderr
    warnings = _warnings("out = [f(x) for i, x in enumerate(range(3))]\n")
    assert any("int64 numbers" in w and "range(3)" in w for w in warnings), warnings
