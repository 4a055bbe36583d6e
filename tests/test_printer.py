"""`syntax.printer.code` prints exactly what libcst prints: the project's files (comments, blank
lines, every statement kind), every statement and expression of some of them on its own
(the golden outputs, the examples), and unusual shapes."""

from pathlib import Path

import libcst as cst
import pytest

from vectorize.syntax.printer import code
from vectorize.syntax.templates import expr
from vectorize.syntax.traversal import walk

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted(p for folder in ("vectorize", "tests", "examples")
               for p in (ROOT / folder).rglob("*.py"))
_EMPTY = cst.Module(body=[])


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_code_is_libcst_code(path):
    module = cst.parse_module(path.read_text())
    assert code(module, module) == module.code
    if "golden" in path.parent.name or path.parent.name == "examples":
        for node in walk(module):
            if isinstance(node, (cst.BaseExpression, cst.BaseStatement,
                                 cst.BaseSmallStatement, cst.BaseSuite)):
                assert code(node) == _EMPTY.code_for_node(node)


@pytest.mark.parametrize("text", [
    "x = (a ,)\n", "x = a,\n", "x = a, b\n", "f(*a, **k, z = 1)\n", "y = x[1:2, ::3, *i]\n",
    "if a: b = 1\nelif c: pass\nelse:\n    d = 2  # comment\n",
    "with (open(a) as f, open(b) as g):\n    pass\n", "with a, \\\n        b:\n    pass\n",
    "async def f(x, /, y=1, *a, z: int = 2, **k) -> int:\n    return\n",
    "for i in range(3):\n    continue\nelse:\n    break\n",
    "while not (x):\n    x = -~x; y += 1;\n", "x = (  # c\n    a\n    + b)\n",
    "@d\ndef f():\n\n    # c\n    x = a if b else (c)\n\n\n", "a.b(c)[d] = e is not f\n",
    "def f():\n\treturn 1\n", "x = 1\r\ny = 2\r\n", "x = 1",
])
def test_code_of_unusual_shapes(text):
    module = cst.parse_module(text)
    assert code(module, module) == module.code == text
    for node in walk(module):
        if isinstance(node, (cst.BaseExpression, cst.BaseStatement, cst.BaseSmallStatement)):
            assert code(node) == _EMPTY.code_for_node(node)


def test_code_of_built_nodes():
    """Nodes built by the passes (default commas, semicolons, indentation)."""
    call = cst.Call(cst.Name("f"), [cst.Arg(cst.Name("a")), cst.Arg(cst.Name("b"),
                                                                    keyword=cst.Name("k"))])
    line = cst.SimpleStatementLine([cst.Expr(call), cst.Return(cst.Tuple(
        [cst.Element(cst.Name("a"))])), cst.Pass()])
    block = cst.If(test=cst.Name("c"), body=cst.IndentedBlock([line]),
                   orelse=cst.If(test=cst.Name("d"), body=cst.IndentedBlock([])))
    for node in (call, line, block, cst.IndentedBlock([]), cst.SimpleStatementLine([])):
        assert code(node) == _EMPTY.code_for_node(node)


def test_expr_substitutes_placeholders():
    a, b = cst.Name("a"), cst.parse_expression("x + 1")
    out = expr("np.where({a}, {b}, {a})", a=a, b=b)
    assert code(out) == "np.where(a, x + 1, a)"
    assert out.args[0].value is a and out.args[2].value is a and out.args[1].value is b
    assert out.func is expr("np.where({a}, {b}, {a})").func     # what holds none is shared
    assert code(expr("{t}[0] + {u}", t="y", u=a)) == "y[0] + a"
    assert code(expr("f({a}, {b})", a=a)) == "f(a, __b__)"      # one not given stays
