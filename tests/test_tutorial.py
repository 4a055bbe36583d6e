"""docs/tutorial.md runs: its ``python`` blocks, in order, as one module; and the generated code
it shows in ``text`` blocks right after a block is what ``.source()`` prints (lines with
``...`` stand for the lines they leave out)."""

from __future__ import annotations

import pathlib
import re
import runpy

import pytest

TUTORIAL = pathlib.Path(__file__).resolve().parent.parent / "docs" / "tutorial.md"
_BLOCK = re.compile(r"```(python|text)\n(.*?)```", re.S)


def blocks():
    return _BLOCK.findall(TUTORIAL.read_text())


def test_the_tutorial_has_code():
    kinds = [kind for kind, _ in blocks()]
    assert kinds.count("python") >= 9 and kinds.count("text") >= 6


@pytest.fixture(scope="module")
def tutorial(tmp_path_factory):
    pytest.importorskip("torch")  # the last section; torch is in the test extra
    path = tmp_path_factory.mktemp("tutorial") / "tutorial.py"
    path.write_text("\n\n".join(code for kind, code in blocks() if kind == "python"))
    return runpy.run_path(str(path), run_name="tutorial")


def test_the_tutorial_runs(tutorial):
    assert "func" in tutorial and "attention" in tutorial


def _function_text(source: str) -> list[str]:
    """The generated function's lines (without the header and the imports)."""
    lines = source.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("def "))
    return [line for line in lines[start:] if line.strip()]


def _matches(shown: list[str], actual: list[str]) -> bool:
    """Whether the shown lines appear in order in the actual ones, ``...`` lines standing for
    any number of lines (a trailing comment after ``...`` is only a comment)."""
    pattern = ""
    for line in shown:
        if line.strip().startswith("..."):
            pattern += r"(?:.*\n)*?"
        else:
            pattern += re.escape(line) + r"\n"
    return re.fullmatch(pattern, "\n".join(actual) + "\n") is not None


SHOWN = {   # the function each `text` block shows, and the call that selects it
    "func": lambda ns: ns["func"].source(ns["np"].arange(1.0, 9.0), 1.0),
    "safe_sqrt": lambda ns: ns["safe_sqrt"].source(ns["np"].ones(2)),
    "collatz_steps": lambda ns: ns["collatz_steps"].source(ns["np"].arange(1, 10)),
    "score": lambda ns: ns["batched_score"].source(ns["X"], ns["w"], 0.1),
    "attention": lambda ns: ns["vmap"](ns["attention"], in_axes=(0, None, None)).source(
        ns["Q"], ns["K"], ns["V"]),
    "func_t": lambda ns: ns["vmap"](ns["func_t"], in_axes=(0, None)).source(ns["t"], ns["b"]),
}


@pytest.mark.parametrize("name", sorted(SHOWN))
def test_the_shown_code_is_what_runs(tutorial, name):
    (text,) = [code for kind, code in blocks() if kind == "text"
               and code.startswith(f"def {name}(")]
    shown = [line for line in text.splitlines() if line.strip()]
    actual = _function_text(SHOWN[name](tutorial))
    assert _matches(shown, actual), "\n".join(actual)


def test_the_shown_explanation_is_what_explain_says(tutorial):
    """The `explain` output shown for `func` (a line ending in ``...`` is cut there)."""
    (text,) = [code for kind, code in blocks() if kind == "text" and "| " in code
               and "rule " in code]
    actual = tutorial["explain"](tutorial["func"], tutorial["np"].arange(1.0, 9.0),
                                 1.0).splitlines()
    for line in text.splitlines():
        if line.endswith(" ..."):
            assert any(a.startswith(line[:-len(" ...")]) for a in actual), line
        else:
            assert line in actual, line
