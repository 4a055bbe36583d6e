"""The passes spell no array namespace: what they write comes from ``registry.primitives``."""

from __future__ import annotations

import ast
import pathlib
import re

import numpy as np

from vectorize import backends
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


# ---------------------------------------------------------------- the whole package
PACKAGE = PASSES.parent
# every registered backend's alias, and JAX's spellings (``jnp``, ``jax``, ``lax``) before or
# after it is one
_ALIASES = {backends.get(name).alias for name in backends.KNOWN} | {"jnp", "jax", "lax"}
_NAMESPACE_TEXT = re.compile(r"\b(" + "|".join(sorted(_ALIASES)) + r")\.")
# prose about code, not code: exception messages and their suggestions, warnings, a rule's
# documentation (`Rule(name, family, explanation, before, after, ...)`), and the user code of a
# rule's example on the rules page (`Example(source, ...)`, tables named ``*EXAMPLES``), and
# tables of rules documented (``*_RULES``)
_PROSE_KEYWORDS = {"suggestion", "explanation", "before", "after", "name", "family"}


def _table_name(target) -> str:
    """The name a target assigns (``T`` of ``T = ...`` and of ``T[k] = ...``)."""
    if isinstance(target, ast.Subscript):
        target = target.value
    return target.id if isinstance(target, ast.Name) else ""


def _prose(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            out.add(id(node.value))          # docstrings, attribute docstrings included
        if isinstance(node, ast.Assign) and all(
                isinstance(t, ast.Name) and t.id.endswith("_NOTE") for t in node.targets):
            out |= {id(n) for n in ast.walk(node.value)}    # header notes of `.source()`
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None and all(
                _table_name(t).endswith(("EXAMPLES", "_RULES")) for t in getattr(
                    node, "targets", [getattr(node, "target", None)])):
            # tables of rule examples, and of the engine's rules documented (`rules/doc.py`:
            # (name, family, explanation))
            out |= {id(n) for n in ast.walk(node.value)}
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        prose = [k.value for k in node.keywords if k.arg in _PROSE_KEYWORDS]
        if called.endswith(("Error", "_error", "Unsupported", "Exception", "Warning", "warn")):
            prose += node.args + [k.value for k in node.keywords]
        if called == "Rule":
            prose += node.args[:5]
        if called == "Example":
            prose += node.args + [k.value for k in node.keywords]
        for part in prose:
            out |= {id(n) for n in ast.walk(part)}
    return out


def generated_text(source: str) -> list[tuple[int, str]]:
    """(line, text) of every string literal that spells a namespace (``np.``, ``torch.``,
    ``jnp.``) in code the engine writes: prose (`_prose`) is left out."""
    tree = ast.parse(source)
    prose = _prose(tree)
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in prose and _NAMESPACE_TEXT.search(node.value)]


def _allowed(path: pathlib.Path) -> set[str]:
    """The spellings ``path`` may write: in a backend's folder its own (every spelling but
    the other registered backends' aliases: JAX's folder writes ``jnp.``, ``jax.`` and
    ``lax.``), nothing elsewhere."""
    parts = path.relative_to(PACKAGE).parts
    if parts[0] == "backends" and len(parts) > 2:
        others = {backends.get(name).alias for name in backends.KNOWN if name != parts[1]}
        return _ALIASES - others
    return set()


def test_namespaces_are_spelled_only_in_their_backend():
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        allowed = _allowed(path)
        hits = [(line, text) for line, text in generated_text(path.read_text())
                if set(_NAMESPACE_TEXT.findall(text)) - allowed]
        if hits:
            found[str(path.relative_to(PACKAGE))] = hits
    assert found == {}


def test_the_whole_package_check_finds_namespace_text():
    source = ('x = "torch.where({c}, {a}, {b})"\n'
              'raise Unsupported("use np.where", node, suggestion="np.clip")\n'
              'r = Rule("n", "f", "`np.sum` is", "np.sum(x)", "np.sum(x, axis=1)", f)\n'
              'y = f"jnp.{name}"\n'
              'COMPACTED_NOTE = "the form with `np.where`"\n'
              'e = Example("def f(x):\\n    return np.sum(x)\\n", "V")\n'
              'TORCH_EXAMPLES["t"] = _torch("def f(x):\\n    return torch.sin(x)\\n", "X")\n'
              'z = "jax.lax.select({c}, {a}, {b})"\n'
              'w = "lax.while_loop"\n')
    assert sorted(line for line, _ in generated_text(source)) == [1, 4, 8, 9]
    assert "torch" in _allowed(PACKAGE / "backends" / "torch" / "rules.py")
    assert "np" not in _allowed(PACKAGE / "backends" / "torch" / "rules.py")
    assert {"jnp", "jax", "lax"} <= _allowed(PACKAGE / "backends" / "jax" / "rules.py")
    assert not {"np", "torch"} & _allowed(PACKAGE / "backends" / "jax" / "rules.py")
    assert _allowed(PACKAGE / "passes" / "compact.py") == set()


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
