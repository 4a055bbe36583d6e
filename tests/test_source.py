"""`introspect.source_lines` gives what `inspect.getsourcelines` gives: for the functions of the
project and of some of the standard library, and for layouts made to test its shortcut."""

import importlib
import inspect
import sys
import types

import pytest

from vectorize.introspect import _block, source_lines

LAYOUTS = {
    "plain": "def f(x):\n    y = x\n    return y\n",
    "decorated": "@dec\n@dec(1, [2])\ndef f(x):\n    return x\n",
    "indented": "class C:\n    def f(self):\n        return 1\n    def g(self):\n        pass\n",
    "nested": "def f(x):\n    if x:\n        for i in x:\n            y = i\n    return y\nz = 1\n",
    "comments after": "def f(x):\n    return x\n    # kept\n  # dropped\n# dropped\n\nz = 1\n",
    "comment first": "def f(x):\n# outside\n    # inside\n    return x\n",
    "blank lines": "def f(x):\n\n    y = x\n\n\n    return y\n\n\n",
    "no newline": "def f(x):\n    return x",
    "odd dedent": "def f(x):\n        if x:\n            y = 1\n      return y\n",
    "async": "async def f(x):\n    return x\n",
    "annotations": "def f(x: int, y: list[int] = None) -> dict[str, int]:  # c\n    return {}\n",
    "one line": "def f(x): return x\n",
    "string": "def f(x):\n    '''doc'''\n    return x\n",
    "continued": "def f(x):\n    y = (x +\n  1)\n    return y\n",
    "backslash": "def f(x):\n    y = x + \\\n1\n    return y\n",
    "multi-line header": "def f(x,\n      y):\n    return x\n",
    "tab": "def f(x):\n\treturn x\n",
    "unicode": "def f(x):\n    é = x\n    return é\n",
    "semicolons": "def f(x):\n    y = x; z = y\n    if z: return z\n    return 0\n",
    "deeper dedent": "class C:\n    def f(self):\n        return 1\nz = 1\n",
    "unknown dedent": "def f(x):\n        y = 1\n      return y\n",
    "comment between": "def f(x):\n    y = 1\n # low\n    return y\n",
}
UNUSUAL = {"one line", "string", "continued", "backslash", "multi-line header", "tab",
           "unicode"}


@pytest.mark.parametrize("name", LAYOUTS)
def test_block_is_getblock(name):
    lines = LAYOUTS[name].splitlines(True)
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith(("@", "def",
                                                                                "async")))
    found = _block(lines, start)
    assert (found is not None) == (name not in UNUSUAL)
    if found is not None:
        assert found == inspect.getblock(lines[start:])


def test_source_lines_of_a_decorated_function(tmp_path, monkeypatch):
    (tmp_path / "decorated_layout.py").write_text(
        "def dec(f):\n    return f\n\n\ndef deco(*a):\n    return dec\n\n\n"
        "@dec\n@deco(1, [2])\ndef f(x):\n    return x\n  # kept\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    fn = importlib.import_module("decorated_layout").f
    assert source_lines(fn) == inspect.getsourcelines(fn)
    assert source_lines(fn)[0][0] == "@dec\n"


def _functions(module):
    for value in vars(module).values():
        if isinstance(value, types.FunctionType):
            yield value
        elif isinstance(value, type) and value.__module__ == module.__name__:
            yield from (v for v in vars(value).values() if isinstance(v, types.FunctionType))


@pytest.mark.parametrize("name", ["vectorize.analysis", "vectorize.syntax.printer",
                                  "vectorize.passes.if_to_where", "inspect", "json.decoder",
                                  "textwrap", "argparse", "dataclasses", "tokenize"])
def test_modules(name):
    for fn in _functions(importlib.import_module(name)):
        # (a `functools.wraps` wrapper: its own lines, not those its `__wrapped__` names)
        assert source_lines(fn) == inspect.getsourcelines(fn.__code__), fn
    assert sys.modules[name]


@pytest.mark.parametrize("name", ["vectorize.analysis.interpreter",
                                  "vectorize.analysis.expressions", "vectorize.analysis.calls",
                                  "vectorize.analysis.aliasing"])
def test_analysis_modules(name):
    test_modules(name)
