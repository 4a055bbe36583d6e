"""The passes spell no array namespace: what they write comes from ``registry.primitives``."""

from __future__ import annotations

import ast
import pathlib
import re

import numpy as np

from vectorize.rules import NUMPY

PASSES = pathlib.Path(__file__).resolve().parent.parent / "vectorize" / "passes"
_NP_TEXT = re.compile(r"\bnp\.")


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def namespace_text(source: str) -> list[tuple[int, str]]:
    """(line, text) of every string literal (f-string parts included) outside docstrings
    that spells ``np.``."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docs and _NP_TEXT.search(node.value)]


def test_passes_write_no_numpy_text():
    found = {path.name: namespace_text(path.read_text()) for path in PASSES.glob("*.py")}
    assert {name: hits for name, hits in found.items() if hits} == {}


def test_the_check_finds_numpy_text():
    source = ('"""Docstring: np.where is fine here."""\n'
              'def f(x, d):\n    """np.full too."""\n    # np.empty in a comment\n'
              '    a = "np.flatnonzero({m})"\n    return f"np.{d}" + a\n')
    assert [line for line, _ in namespace_text(source)] == [5, 6]


def test_numpy_primitives():
    prims = NUMPY.primitives
    assert prims.lanes_of("~c") == "np.flatnonzero(~c)"
    assert prims.full("n", "{v}", prims.dtype_code(np.int64)) == "np.full(n, {v}, dtype=np.int64)"
    assert prims.dtype_code(bool) == prims.dtype_named(bool) == "np.bool_"
    assert prims.dtype_code(np.dtype("U3")) == 'np.dtype("<U3")'
    assert prims.data_calls == {"np.flatnonzero", "np.full", "np.empty"}
    assert prims.quiet == 'np.errstate(all="ignore")' and prims.quiet_prefix == "np.errstate("
