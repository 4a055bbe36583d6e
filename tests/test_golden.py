"""Golden tests: the generated source for these functions is reviewed like code.

Each golden file is exactly what ``.source()`` shows for the arguments below; it must pass
``ruff check`` (default rules) and compute what the per-example loop computes. Regenerate
after a deliberate change with ``VECTORIZE_UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py``
and review the diff.
"""

import os
import pathlib
import shutil
import subprocess
import sys

import golden_functions as g
import numpy as np
import pytest
from differential import assert_matches_loop

from vectorize import vectorize

GOLDEN = pathlib.Path(__file__).parent / "golden"
x = np.linspace(-3, 3, 13)
ints = np.arange(-6, 7)

CASES = {
    "func": (g.func, (x, 1.0)),
    "piecewise": (g.piecewise, (x,)),
    "clamp": (g.clamp, (x, -1.0, 1.0)),
    "smooth_clamp": (g.smooth_clamp, (x,)),
    "collatz_step": (g.collatz_step, (ints,)),
    "safe_log": (g.safe_log, (x,)),
    "ordered": (g.ordered, (x, x[::-1])),
    "in_band": (g.in_band, (x, -1.0, 2.0)),
    "sign_label": (g.sign_label, (x,)),
    "relu_or_leak": (g.relu_or_leak, (x, 0.1)),
    "quadratic_root": (g.quadratic_root, (1.0, x, -1.0 + x)),
    "hinge": (g.hinge, (x, 1.0)),
    "tanh_mix": (g.tanh_mix, (x, 0.5)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_source(name):
    f, args = CASES[name]
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
    for name, (f, _args) in CASES.items():
        text = (GOLDEN / f"{name}.py").read_text()
        assert f"def {f.__name__}(" in text
        assert "_t" not in text.split("def ", 1)[1].replace("_to", ""), name
