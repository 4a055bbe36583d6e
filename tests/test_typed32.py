"""Decisions on a refusal read its typed kind (`errors.KINDS`), never its wording.

`vectorize._raises_per_example` (refuse as the policy says, or let the first example decide
the output types) and the file rewriter's "not defined" explanation used to match the text
of refusal messages; a rewording silently changed what they did. The AST check below keeps
any code outside vectorize/errors.py from deciding on a refusal's message text again.
"""

import ast
import math
import pathlib
import warnings

import numpy as np
import pytest

import vectorize
from vectorize import api, errors
from vectorize.errors import RAISES, UNDEFINED_NAME, Unsupported, VectorizeError
from vectorize.frontend import FallbackSpec

PACKAGE = pathlib.Path(vectorize.__file__).parent
TEXT_ATTRS = {"message", "reason"}
TEXT_METHODS = {"startswith", "endswith", "find", "rfind", "index", "rindex", "count",
                "split", "partition", "rpartition"}
REFUSALS = {"Unsupported", "VectorizeError"}


def _is_text(node, names) -> bool:
    """``x.message`` / ``x.reason`` (or a variable so named) anywhere, or ``str(e)`` of
    an exception caught as a refusal (``names``)."""
    if isinstance(node, ast.Attribute) and node.attr in TEXT_ATTRS or \
            isinstance(node, ast.Name) and node.id in TEXT_ATTRS:
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id == "str" and len(node.args) == 1 and \
            isinstance(node.args[0], ast.Name) and node.args[0].id in names:
        return True
    return False


def _refusal_names(tree) -> set:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ExceptHandler) and node.name and node.type is not None:
            types = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
            if any(getattr(t, "id", getattr(t, "attr", None)) in REFUSALS for t in types):
                names.add(node.name)
    return names


def text_decisions(path: pathlib.Path) -> list:
    """Where ``path`` decides on a refusal's message text: ``in``/``==`` on it, a string
    method that looks into it, a regular expression over it."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = _refusal_names(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(isinstance(op, (ast.In, ast.NotIn, ast.Eq, ast.NotEq))
                   for op in node.ops) and any(_is_text(s, names) for s in sides) and \
                    any(isinstance(s, (ast.Constant, ast.JoinedStr)) for s in sides):
                found.append(node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in TEXT_METHODS and _is_text(node.func.value, names):
                found.append(node.lineno)
            elif isinstance(node.func.value, ast.Name) and node.func.value.id == "re" and \
                    any(_is_text(a, names) for a in node.args):
                found.append(node.lineno)
    return sorted(set(found))


def test_no_decision_reads_a_refusals_wording():
    bad = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "errors.py":
            continue
        bad += [f"{path.relative_to(PACKAGE.parent)}:{line}" for line in text_decisions(path)]
    assert not bad, ("these decide on a refusal's message text; give the refusal a kind "
                     f"(errors.KINDS) and read that: {bad}")


def test_the_check_finds_what_it_forbids(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import re\n"
        "def f(spec, exc, reason):\n"
        "    a = 'raise' in spec.reason or 'TypeError' in reason\n"
        "    b = exc.reason.startswith('name `')\n"
        "    c = re.findall('x', exc.message)\n"
        "    try:\n"
        "        pass\n"
        "    except Unsupported as e:\n"
        "        d = 'TypeError' in str(e)\n"
        "    return a, b, c, d\n")
    assert text_decisions(sample) == [3, 4, 5, 9]


def test_the_decision_reads_the_kind_not_the_text():
    worded = FallbackSpec("math.trunc of it raises TypeError", "")
    assert not api._raises_per_example(worded)
    assert api._raises_per_example(FallbackSpec("no such words", "", RAISES))


def test_kinds_travel_to_the_located_error_and_are_checked():
    problem = Unsupported("name `q` is not defined", kind=UNDEFINED_NAME, subject="q")
    exc = VectorizeError(problem.message, kind=problem.kind, subject=problem.subject)
    assert (exc.kind, exc.subject, exc.reason) == (UNDEFINED_NAME, "q", problem.message)
    assert Unsupported("x").kind == "" and VectorizeError("x").kind == ""
    assert errors.KINDS >= {"", RAISES, UNDEFINED_NAME}
    with pytest.raises(AssertionError):
        Unsupported("x", kind="raise")


def _trunc(x):
    return math.trunc(x)


@pytest.mark.parametrize("fallback", ["warn", "loop"])
def test_numpy_scalars_that_raise_still_raise_as_numpy_vectorize(fallback):
    # numpy.vectorize's first call passes an np.float32: math.trunc raises TypeError
    x = np.array([1.5, -2.5], dtype=np.float32)
    with pytest.raises(TypeError) as expected:
        np.vectorize(_trunc)(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(TypeError) as got:
            vectorize.vectorize(_trunc, fallback=fallback)(x)
    assert str(got.value) == str(expected.value)


def test_numpy_scalars_that_raise_are_refused_with_fallback_error():
    x = np.array([1.5, -2.5], dtype=np.float32)
    with pytest.raises(VectorizeError, match="math.trunc` of a NumPy float32") as got:
        vectorize.vectorize(_trunc, fallback="error")(x)
    assert got.value.kind == RAISES
