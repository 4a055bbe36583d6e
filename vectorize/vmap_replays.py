"""`vmap`'s replays made visible: where the batched code raised and the per-example loop ran.

A replay gives the reference's answer, so it is never wrong, but it can hide an engine bug
as a slow correct answer. Each vmapped function counts them (``.replays``: calls that ran
the loop after the batched code raised, whether the loop then raised or returned;
``.last_replay``: that exception, as text), and warns (`VectorizeWarning`, once per
specialization) where the loop RETURNED after the batched code raised an exception the
user's code could not have raised per example.

Legitimate replays (no warning): the batched code raised by a ``raise`` statement (the
engine's checks where Python's numbers differ from NumPy's, the user's own ``raise`` or
``assert`` reached on lanes its caller keeps out), or inside the user's own code (a piece run
per example), or an exception type the user's code can raise on the lanes Python never
runs (both branches of a per-example ``if`` run on every lane): an ``ArithmeticError``, a
``ValueError`` (NumPy's ``2 ** n`` of a negative int, its conversions and functions),
PyTorch's ``RuntimeError("ZeroDivisionError")`` of an integer division by zero, an
``IndexError`` / ``KeyError`` where the code subscripts. Anything else (a ``TypeError``, an
``AttributeError``, a ``NameError``, an ``IndexError`` in code without subscripts) is the
engine's own code failing: the loop's answer is returned, with the warning.
"""

from __future__ import annotations

import ast
import inspect
import linecache
import os
import sys
import textwrap
import types
import warnings

from .errors import VectorizeWarning

_GENERATED = "<vectorize"     # the file name of generated code (`codegen`)
_PYMATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pymath.py")


def returned(vm, exc: BaseException, spec) -> None:
    """The loop returned after the batched code of ``spec`` raised ``exc``: warned about
    once per specialization of the vmapped function ``vm`` where suspicious."""
    if id(spec) in vm._replay_warned or not suspicious(exc, vm._target):
        return
    vm._replay_warned.add(id(spec))
    warnings.warn(
        f"vectorize.vmap: {vm._name}: the batched code raised {type(exc).__name__} "
        f"({exc}), which the per-example code cannot raise, and the per-example loop "
        "returned: its results are returned (correct, at the loop's cost). This may be a bug "
        "of vectorize: please report it with the function and its arguments.",
        VectorizeWarning, stacklevel=4)


def raised_by_statement(exc: BaseException) -> bool:
    """Whether ``exc`` was raised by the generated code itself: a ``raise`` statement (a
    check where Python's numbers differ from NumPy's, which the loop decides; the user's own
    ``raise``), or Python's operation on values the same for every example in a branch every
    lane computes (``-0.0 << 2``: the loop raises it only where a lane takes the branch),
    where the backend's other exceptions, raised inside its library, are no per-example
    raise (JAX's). So is a `raise` of `pymath`, the functions the generated code calls for
    Python's semantics (``pymath.factorial`` of a negative int: Python's ValueError, which a
    `try` around ``math.factorial(k)`` takes per example), which JAX runs op by op."""
    frame = _innermost(exc)
    return frame is not None and (frame[0].startswith(_GENERATED) or
                                  os.path.abspath(frame[0]) == _PYMATH)


def reached_by_every_example(exc: BaseException) -> bool:
    """Whether the generated code's statement that raised ``exc`` is one every example
    reaches: no statement run before it (in its function, or in the generated functions
    that called it) holds a check that may raise for some examples only, a `raise` under a
    test that calls something (``if np.any(bad):``, the per-example `raise` of the user or of
    the engine) or a call of a generated function that holds one. Over an empty batch such a
    check raises nothing, so the statement after it runs though the examples that would
    raise there never get to it (`vmap` then returns the empty result, as its loop)."""
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        filename = tb.tb_frame.f_code.co_filename
        if filename.startswith(_GENERATED):
            frames.append((filename, tb.tb_lineno))
        tb = tb.tb_next
    for filename, line in frames:
        tree = _generated_tree(filename)
        if tree is None:
            return False
        defs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        # (the statements of the function that holds the line: the module's other
        # functions run before it only where it calls them, `_checks_some_examples`)
        body = next((d.body for d in defs.values()
                     if d.lineno <= line <= (d.end_lineno or d.lineno)), tree.body)
        for stmt in _run_before(body, line):
            if _checks_some_examples(stmt, defs, set()):
                return False
    return not raised_in_a_merged_arm(exc)


_MERGES = ("where", "blend", "blend_pass")


def raised_in_a_merged_arm(exc: BaseException) -> bool:
    """Whether the operation of the generated code that raised ``exc`` is inside an arm of a
    per-example choice (``np.where(c, -b, b)``, ``merge.blend``): every lane computes it,
    but per example only the lanes that take that arm do, so over an empty batch no example
    raises it (``-b`` of a NumPy bool raises TypeError per example, where a lane gets there)."""
    tb, last = exc.__traceback__, None
    while tb is not None:
        last, tb = tb, tb.tb_next
    if last is None or not last.tb_frame.f_code.co_filename.startswith(_GENERATED):
        return False
    code = last.tb_frame.f_code
    try:
        position = list(code.co_positions())[last.tb_lasti // 2]
    except (AttributeError, IndexError):
        return False
    line, end_line, col, end_col = position
    tree = _generated_tree(code.co_filename)
    if tree is None or None in position:
        return False

    def within(node) -> bool:
        return (node.lineno, node.col_offset) <= (line, col) and \
            (end_line, end_col) <= (node.end_lineno, node.end_col_offset)

    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and len(node.args) == 3 and not node.keywords:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in _MERGES and any(within(arm) for arm in node.args[1:]):
                return True
    return False


def _generated_tree(filename: str):
    try:
        return ast.parse("".join(linecache.getlines(filename)))
    except (SyntaxError, ValueError):
        return None


def _run_before(body: list, line: int) -> list:
    """The statements of ``body`` and the blocks inside it that run before the statement
    holding ``line`` (its earlier siblings at each depth)."""
    before = []
    for stmt in body:
        if not stmt.lineno <= line <= (stmt.end_lineno or stmt.lineno):
            before.append(stmt)
            continue
        for field in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(stmt, field, None)
            if isinstance(block, list) and any(
                    isinstance(s, ast.AST) and getattr(s, "lineno", 0) <= line <=
                    (getattr(s, "end_lineno", 0) or 0) for s in block):
                if isinstance(stmt, (ast.For, ast.While)):
                    before.append(stmt)     # (its earlier iterations)
                return before + _run_before(block, line)
        return before
    return before


def _checks_some_examples(node, defs: dict, seen: set) -> bool:
    """Whether ``node`` holds a `raise` under a test of the lanes (``if np.any(bad):``,
    ``while active.any():``: the backends' `any_lane`), which over an empty batch raises
    nothing, or a call of a generated function that does. A test the same for every example
    (``if np.isnan(w):`` of a shared ``w``) raises over every batch or none."""
    for inner in ast.walk(node):
        if isinstance(inner, (ast.If, ast.While)) and any(
                isinstance(s, (ast.Raise, ast.Assert)) for part in (inner.body, inner.orelse)
                for stmt in part for s in ast.walk(stmt)) and any(
                    _any_lane(t) for t in ast.walk(inner.test)):
            return True
        if isinstance(inner, ast.Assert) and any(_any_lane(t) for t in ast.walk(inner.test)):
            return True
        if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and \
                inner.func.id in defs and inner.func.id not in seen:
            seen.add(inner.func.id)
            if _checks_some_examples(defs[inner.func.id], defs, seen):
                return True
    return False


def _any_lane(node) -> bool:
    """A call asking whether any (or every) lane holds: ``np.any(m)``, ``torch.any(m)``,
    ``m.any()``, ``jnp.all(m)``."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    return name in ("any", "all", "count_nonzero")


def suspicious(exc: BaseException, func) -> bool:
    """Whether ``exc``, raised by the batched code of ``func``, is one that ``func``'s own
    code could not raise per example (module docstring)."""
    frame = _innermost(exc)
    if frame is not None:
        filename, line = frame
        if filename.startswith(_GENERATED):
            text = _line(filename, line)
            if text.lstrip().startswith("raise"):
                return False        # a check, or the user's `raise` / `assert`
        elif not _library(filename):
            return False            # the user's own code raised it
    if isinstance(exc, (ArithmeticError, ValueError)) or (
            type(exc) is RuntimeError and str(exc) == "ZeroDivisionError"):
        return False        # (PyTorch's integer division by zero raises the latter)
    if isinstance(exc, (IndexError, KeyError)):
        return not _subscripts(func)
    return True


def _innermost(exc):
    tb = exc.__traceback__
    last = None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    if last is None:
        return None
    return last.tb_frame.f_code.co_filename, last.tb_lineno


def _line(filename: str, line: int) -> str:
    return linecache.getline(filename, line)


def _library(filename: str) -> bool:
    """A file of vectorize, NumPy, PyTorch, JAX or the standard library, not the user's."""
    import numpy
    roots = [os.path.dirname(os.path.abspath(__file__)), os.path.dirname(numpy.__file__),
             os.path.dirname(os.__file__)]
    for name in ("torch", "jax", "jaxlib"):
        module = sys.modules.get(name)
        if module is not None and getattr(module, "__file__", None):
            roots.append(os.path.dirname(module.__file__))
    path = os.path.abspath(filename)
    return not os.path.isfile(path) or any(path.startswith(r + os.sep) for r in roots)


def _subscripts(func, seen=None) -> bool:
    """Whether ``func`` or a function of its module it calls subscripts anything."""
    seen = set() if seen is None else seen
    if not isinstance(func, types.FunctionType) or func in seen:
        return False
    seen.add(func)
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    except (OSError, TypeError, SyntaxError):
        return True         # unknown: the user's code may
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript):
            return True
        if isinstance(node, ast.Name) and isinstance(func.__globals__.get(node.id),
                                                     types.FunctionType):
            if _subscripts(func.__globals__[node.id], seen):
                return True
    return False
