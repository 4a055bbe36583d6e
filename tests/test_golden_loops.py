"""Golden tests of the generated source of loops: the select and the compact form.

Each golden file under tests/golden_loops/ is exactly what ``.source()`` shows for the arguments
below; it must pass ``ruff check --isolated`` (default rules), keep the user's names, read like
a masked loop written by hand, and compute what the per-example loop computes. Regenerate after
a deliberate change with
``VECTORIZE_UPDATE_GOLDEN=1 python -m pytest tests/test_golden_loops.py`` and review the diff.
"""

import os
import pathlib
import shutil
import subprocess
import sys

import if_corpus as I
import loop_corpus as L
import numpy as np
import pytest
from differential import assert_matches_loop

from vectorize import vectorize

GOLDEN = pathlib.Path(__file__).parent / "golden_loops"
ints = np.arange(-3, 30)
big = np.array([0, 12, 7, 832040, -18, 5])
small = np.array([18, 0, 21, 514229, 12, -5])
cr = np.linspace(-2.0, 1.0, 13)
ci = np.linspace(-1.0, 1.0, 13)
xs = np.linspace(-3.0, 3.0, 13)

# name -> (function, arguments, strategy of its masked loops, or "compact_if" for compacted ifs)
CASES = {
    "collatz_steps_select": (L.collatz_steps_select, (ints,), "select"),
    "collatz_steps_compact": (L.collatz_steps_compact, (ints,), "compact"),
    "gcd_select": (L.gcd_select, (big, small), "select"),
    "gcd_compact": (L.gcd_compact, (big, small), "compact"),
    "isqrt_select": (L.isqrt_select, (np.abs(ints) * 37,), "select"),
    "isqrt_compact": (L.isqrt_compact, (np.abs(ints) * 37,), "compact"),
    "triangular_select": (L.triangular_select, (ints,), "select"),
    "triangular_compact": (L.triangular_compact, (ints,), "compact"),
    # a `for` loop left by a per-example `break` is compacted by default, as a `while` is
    "escape_for": (L.escape_for, (cr, ci), "compact"),
    # tested at the top of each pass: the test and the body share `zr * zr` and `zi * zi`
    "escape_while_select": (L.escape_while_select, (cr, ci), "select"),
    "skip_thirds_compact": (L.skip_thirds_compact, (ints,), "compact"),
    "escape_for_compact": (L.escape_for_compact, (cr, ci), "compact"),
    # compacted ifs: each branch on its own lanes
    "elif_chain_compact": (I.elif_chain_compact, (xs,), "compact_if"),
    "some_lanes_compact": (I.some_lanes_compact, (xs, xs[::-1]), "compact_if"),
    "early_return_compact": (I.early_return_compact, (xs, 1.0), "compact_if"),
    "halvings_compact": (I.halvings_compact, (xs * 9,), "compact_if"),
    "default_loop_branch": (I.default_loop_branch, (xs,), "compact_if"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_source(name):
    f, args, _strategy = CASES[name]
    source = vectorize(f, fallback="error").source(*args)
    path = GOLDEN / f"{name}.py"
    if os.environ.get("VECTORIZE_UPDATE_GOLDEN"):
        path.write_text(source)
    assert source == path.read_text()
    assert_matches_loop(f, *args)


def test_golden_sources_pass_ruff():
    ruff = shutil.which("ruff")
    cmd = [ruff] if ruff else [sys.executable, "-m", "ruff"]
    result = subprocess.run([*cmd, "check", "--isolated", "--output-format", "concise",
                             str(GOLDEN)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_golden_sources_keep_user_names():
    for name, (f, _args, _strategy) in CASES.items():
        text = (GOLDEN / f"{name}.py").read_text()
        assert f"def {f.__name__}(" in text
        body = text.split("def ", 1)[1].split("\n", 1)[1]      # after the def line
        # (no numbered temporaries; a scalar tail's lists are named `x_tail`)
        assert "_t" not in body.replace("_to", "").replace("_tail", ""), name


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_sources_have_their_strategy(name):
    """The select form merges with np.where under `while active.any():` (or breaks out of a
    Python `for` when no lane is active); the compact form gathers the running lanes with
    np.flatnonzero, merges with merge.blend_pass and scatters them back (a `for` loop breaks
    when none is left). A compacted `if` gathers the lanes of each branch and merges nothing
    with np.where."""
    _f, _args, strategy = CASES[name]
    body = (GOLDEN / f"{name}.py").read_text().split("def ", 1)[1]
    if strategy == "compact_if":
        assert "lanes = np.flatnonzero(cond)" in body
        assert "np.where(cond" not in body and "merge.blend(cond" not in body
        return
    assert "np.where(active" in body or "merge.blend_pass(active_lanes" in body
    if strategy == "select":
        assert "np.flatnonzero" not in body
        assert "while active.any():" in body or "if not active.any():" in body
    else:
        assert "lanes = np.flatnonzero(active)" in body
        assert "while lanes.size:" in body or "if not lanes.size:" in body
