"""`vectorize.explain(f, *args)`: the command line's ``--explain`` for a function of a running
program: per statement, the scalar lines at their line numbers in the user's file, the rules
that fired with their reasons, and the batched lines."""

from __future__ import annotations

import inspect
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import vectorize
from vectorize import VectorizeError, explain, vmap

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "examples"))
import seed_func  # noqa: E402 -- the example file, from examples/


def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def _double(v):
    return 2.0 * v


def calls_helper(x):
    y = _double(x)
    return y + 1.0


def norm_or_zero(v, scale):
    s = v.dot(v)
    if s > 1.0:
        return np.sqrt(s) * scale
    return 0.0


def describe(x):
    return f"value {x!r}"      # (a repr per example is refused: a NumPy number's differs)


_SCALAR_LINE = re.compile(r"^ {2}\s*(\d+)(?:-(\d+))? \| (.*)$")


def _scalar_lines(text: str):
    """(line number, shown text) of every scalar line the explanation shows (a span's first
    line carries its number, the next ones follow it)."""
    out, number = [], None
    for line in text.splitlines():
        m = _SCALAR_LINE.match(line)
        if m:
            number = int(m.group(1))
            out.append((number, m.group(3)))
        elif number is not None and line.startswith("            | "):
            number += 1
            out.append((number, line[len("            | "):]))
        else:
            number = None
    return out


def _assert_lines_are_the_users(text: str, func) -> None:
    shown = _scalar_lines(text)
    assert shown
    file_lines = Path(inspect.getsourcefile(func)).read_text().splitlines()
    for number, line in shown:
        assert file_lines[number - 1] == line, (number, line)


def test_the_seed_function_names_the_where_rule_at_the_users_lines():
    t = np.arange(1.0, 9.0)
    text = explain(seed_func.func, t, 1.0)       # the decorated function, as it is called
    lines, first = inspect.getsourcelines(seed_func.func.pyfunc)
    if_line = first + next(k for k, s in enumerate(lines) if s.strip().startswith("if "))
    path = inspect.getsourcefile(seed_func.func.pyfunc)
    assert text.startswith(f"{path}:{first}: `func` becomes a batched function\n")
    assert f"{if_line}-{if_line + 3} |     if tmp > 5:\n" in text
    assert "rule operator.conditional_expression: `a if cond else b` with a batched " \
           "condition chooses lane by lane: `np.where(cond, a, b)`" in text
    assert "=> |     root = merge.blend(tmp > 5.0, tmp, -t)\n" in text
    _assert_lines_are_the_users(text, seed_func.func.pyfunc)
    # the batched lines are those the decorator runs for these arguments
    source = vectorize.vectorize(seed_func.func.pyfunc).source(t, 1.0)
    for line in text.splitlines():
        if line.startswith("         => | ") and line != "         => | (as written)":
            assert line[len("         => | "):] in source.splitlines()


def test_the_text_is_the_command_lines():
    """The function's part of ``--explain`` on the file, from its second line on (the first
    names the file as given on the command line); the differences: a rewritten file's
    merges are ``np.where``, the decorator's ``merge.blend`` (a file must not need
    vectorize), and a file keeps its int literals where the decorator's code writes the
    float they equal beside a float array (``tmp > 5.0``, `operators.float_literals`)."""
    ours = explain(seed_func.func.pyfunc, np.arange(1.0, 9.0), np.arange(8.0))
    cli = subprocess.run([sys.executable, "-m", "vectorize", "--explain",
                          str(ROOT / "examples" / "seed_func.py")], capture_output=True,
                         text=True, cwd=ROOT, check=True).stdout
    block = cli.split("\n\n")[0]
    assert block.startswith(f"{ROOT / 'examples' / 'seed_func.py'}:")
    assert "merge.blend(" in ours and "merge.blend(" not in block
    assert "tmp > 5.0" in ours and "tmp > 5.0" not in block
    ours = ours.replace("merge.blend(", "np.where(").replace("tmp > 5.0", "tmp > 5")
    assert ours.rstrip("\n").split("\n")[1:] == block.split("\n")[1:]


def test_a_loop_names_its_masked_loop_rule():
    text = explain(collatz, np.arange(1, 100))
    # (x2 under Python semantics: the check that `3 * n + 1` fits an int64, which raises
    # where Python's int would grow past it, tests any active lane too)
    assert re.search(r"rule loop\.any_lane(?: \(x\d+\))?: A loop whose examples stop at "
                     r"different times runs while any example is still active", text), text
    lines, first = inspect.getsourcelines(collatz)
    assert f"{first}: `collatz` becomes a batched function" in text
    _assert_lines_are_the_users(text, collatz)


def test_helpers_are_explained_in_their_own_lines():
    text = explain(calls_helper, np.linspace(0, 1, 4))
    helper_first = inspect.getsourcelines(_double)[1]
    assert f"{inspect.getsourcefile(_double)}:{helper_first}: `_double` -> `_double`" in text
    _assert_lines_are_the_users(text, calls_helper)


def test_vmap_semantics_with_in_axes():
    v = np.random.default_rng(0).normal(size=(6, 3))
    text = explain(norm_or_zero, v, 2.0, in_axes=(0, None))
    assert "rule linalg.dot_method: `np.dot(a, b)` / `a.dot(b)` on per-example arrays" in text
    assert "=> |     s = np.einsum(" in text and "merge.blend(s > 1.0" in text
    _assert_lines_are_the_users(text, norm_or_zero)
    # what vmap made of the function: its axes unless given
    assert explain(vmap(norm_or_zero, in_axes=(0, None)), v, 2.0) == text


def test_a_function_it_cannot_vectorize_is_a_located_error():
    with pytest.raises(VectorizeError, match=r"test_explain\.py:\d+"):
        explain(describe, np.ones(3))


def test_it_is_public():
    assert vectorize.explain is explain and "explain" in vectorize.__all__
