"""A file's functions as real function objects, without running the file.

The engine reads a function from a function object: its source (through ``inspect`` and
``linecache``), its globals (``np``, ``math``, helper functions, module constants). The file
rewriter builds those objects from a *skeleton* of the module, run statement by statement in
a fresh namespace:

- ``import`` and ``from ... import`` statements at module level are executed (so the modules
  they name run as on any import); one that fails leaves its names unknown;
- module-level ``def`` statements are executed without their decorators (defaults are
  evaluated); a function with a decorator other than a mark of the file rewriter stays
  unknown, since its decorator could make it anything;
- module-level assignments whose value is a *constant expression* (literals, containers and
  arithmetic of those, names already known, attributes of imported modules such as
  ``np.pi``, and calls of a few pure constructors: ``np.array``, ``np.linspace``, NumPy's
  ufuncs, ``math`` functions, ``float``, ``range``... on constant arguments) are executed;
- nothing else runs: not classes, not other statements (``if __name__ == "__main__":``,
  loops, calls), whose names stay unknown, as do names bound more than once at module level
  (to different objects) or rebound by a ``global`` statement in a function: the rewritten
  code would otherwise be specialized for a value the module does not keep.

Each statement is compiled with the file's real name and line numbers, and the file's text is
registered in `linecache`, so that ``inspect.getsource`` reads the functions from it (for text
read from stdin or not saved, too).
"""

from __future__ import annotations

import ast
import builtins
import copy
import linecache
import math
import os
import sys
from dataclasses import dataclass, field

import numpy as np

_PURE_BUILTINS = ("abs", "bool", "complex", "dict", "divmod", "float", "frozenset", "int",
                  "len", "list", "max", "min", "pow", "range", "round", "set", "slice", "str",
                  "sum", "tuple")
_PURE_NUMPY = ("arange", "array", "asarray", "diag", "dtype", "eye", "full", "full_like",
               "geomspace", "identity", "linspace", "logspace", "ones", "ones_like", "zeros",
               "zeros_like")


def _pure_callables() -> dict[int, object]:
    """Callables a constant expression may call (by identity), kept with the objects."""
    found = [getattr(builtins, name) for name in _PURE_BUILTINS]
    found += [getattr(np, name) for name in _PURE_NUMPY]
    found += [v for v in vars(np).values() if isinstance(v, np.ufunc)
              or isinstance(v, type) and issubclass(v, np.generic)]
    found += [v for k, v in vars(math).items() if callable(v) and not k.startswith("_")]
    return {id(f): f for f in found}


_PURE = _pure_callables()


@dataclass
class Skeleton:
    """The module's namespace as the file rewriter built it."""

    filename: str
    namespace: dict
    functions: dict = field(default_factory=dict)   # name -> function object (top level)
    # top-level functions without their decorators (what a mark of the rewriter gets)
    marked: dict = field(default_factory=dict)
    unknown: dict = field(default_factory=dict)     # name -> why its value is not known

    def why_unknown(self, name: str) -> str | None:
        return self.unknown.get(name)


def register(filename: str, text: str) -> None:
    """Make ``text`` the lines `linecache` (and so ``inspect``) gives for ``filename``."""
    # an entry without a modification time is never checked against the disk
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)


def build(tree: ast.Module, filename: str, text: str, is_mark) -> Skeleton:
    """Run the skeleton of the module ``tree`` (parsed from ``text``). ``is_mark(decorator,
    namespace)`` tells a decorator of the file rewriter (removed) from any other."""
    register(filename, text)
    namespace = {"__name__": "__vectorize_skeleton__", "__file__": filename,
                 "__builtins__": builtins}
    skeleton = Skeleton(filename, namespace)
    bound: dict[str, object] = {}
    ran: list = []
    directory = os.path.dirname(os.path.abspath(filename)) if os.path.exists(filename) \
        else os.getcwd()
    sys.path.insert(0, directory)   # sibling modules import as when the file runs as a script
    try:
        for stmt in tree.body:
            names = bound_names(stmt)
            reason = _run(stmt, skeleton, is_mark)
            if reason is None:
                ran.append(stmt)
            for name in names:
                if reason is not None:
                    skeleton.unknown.setdefault(name, reason)
                elif name in bound and bound[name] is not namespace.get(name, bound):
                    skeleton.unknown.setdefault(
                        name, f"it is bound more than once at module level (line "
                              f"{stmt.lineno})")
                bound[name] = namespace.get(name)
    finally:
        try:
            sys.path.remove(directory)
        except ValueError:
            pass
    for stmt in tree.body:       # a value changed in place by code that does not run here
        if isinstance(stmt, (ast.Import, ast.ImportFrom, ast.FunctionDef,
                             ast.AsyncFunctionDef)) or stmt in ran:
            continue
        for node in ast.walk(stmt):
            if isinstance(node, ast.Name) and isinstance(
                    namespace.get(node.id), (list, dict, set, bytearray, np.ndarray)):
                skeleton.unknown.setdefault(
                    node.id, f"it may be changed in place on line {stmt.lineno} by code the "
                             "file rewriter does not run")
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            for name in node.names:
                skeleton.unknown.setdefault(
                    name, f"a function rebinds it (`global {name}`, line {node.lineno})")
    for name in skeleton.unknown:
        namespace.pop(name, None)
        skeleton.functions.pop(name, None)
    return skeleton


def _run(stmt: ast.stmt, skeleton: Skeleton, is_mark) -> str | None:
    """Execute ``stmt`` if it belongs to the skeleton; None if it ran, else why its names
    are unknown."""
    namespace = skeleton.namespace
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        if isinstance(stmt, ast.ImportFrom) and stmt.level:
            return f"the relative import on line {stmt.lineno} is not run"
        try:
            _exec(stmt, skeleton)
        except BaseException as exc:   # noqa: BLE001 -- any failure of an import
            return f"its import (line {stmt.lineno}) failed: {type(exc).__name__}: {exc}"
        return None
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        marks = [i for i, d in enumerate(stmt.decorator_list) if is_mark(d, namespace)]
        others = [d for i, d in enumerate(stmt.decorator_list) if i not in marks]
        if marks and any(i > marks[-1] for i, d in enumerate(stmt.decorator_list)
                         if i not in marks):
            below = next(d for i, d in enumerate(stmt.decorator_list) if i > marks[-1])
            return (f"its decorator on line {below.lineno} is not run, so the function the "
                    "mark gets is not known")
        if others and not marks:
            return (f"its decorator on line {others[0].lineno} is not run, so the function it "
                    "makes is not known")
        plain = copy.copy(stmt)
        plain.decorator_list = []
        try:
            _exec(plain, skeleton)
        except Exception as exc:
            return (f"its `def` (line {stmt.lineno}) failed: {type(exc).__name__}: {exc}")
        skeleton.marked[stmt.name] = namespace[stmt.name]
        if others:      # decorators above the mark: the name holds what they make of it
            return (f"its decorator on line {others[0].lineno} is not run, so the function it "
                    "makes is not known")
        skeleton.functions[stmt.name] = namespace[stmt.name]
        return None
    if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and stmt.value is not None \
            and all(isinstance(t, ast.Name) or isinstance(t, ast.Tuple) and all(
                isinstance(e, ast.Name) for e in t.elts) for t in _targets(stmt)) \
            and is_constant(stmt.value, namespace):
        if isinstance(stmt, ast.AugAssign) and stmt.target.id not in namespace:
            return f"it is computed on line {stmt.lineno} by code the file rewriter does not run"
        try:
            _exec(stmt, skeleton)
        except Exception as exc:
            return f"its value (line {stmt.lineno}) raised {type(exc).__name__}: {exc}"
        return None
    if isinstance(stmt, ast.ClassDef):
        return f"it is a class (line {stmt.lineno}); class bodies are not run"
    return f"it is set on line {stmt.lineno} by code the file rewriter does not run"


def _exec(stmt: ast.stmt, skeleton: Skeleton) -> None:
    module = ast.Module(body=[stmt], type_ignores=[])
    exec(compile(module, skeleton.filename, "exec"), skeleton.namespace)


def _targets(stmt) -> list:
    return stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]


def bound_names(stmt: ast.stmt) -> list[str]:
    """The module-level names a statement binds (not those of nested scopes)."""
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return [(a.asname or a.name).split(".")[0] for a in stmt.names if a.name != "*"]
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [stmt.name]
    names = []
    stack = [stmt]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.append(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom, ast.FunctionDef,
                               ast.AsyncFunctionDef, ast.ClassDef)):
            names += bound_names(node)
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            # its own scope, but a walrus in it binds in the enclosing one
            names += [n.target.id for n in ast.walk(node) if isinstance(n, ast.NamedExpr)]
        elif not isinstance(node, ast.Lambda):
            stack.extend(ast.iter_child_nodes(node))
    return names


def is_constant(node: ast.AST, namespace: dict) -> bool:
    """Whether evaluating ``node`` can run nothing but the pure operations listed in the
    module docstring."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(not isinstance(e, ast.Starred) and is_constant(e, namespace)
                   for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and is_constant(k, namespace) and is_constant(v, namespace)
                   for k, v in zip(node.keys, node.values))
    if isinstance(node, ast.UnaryOp):
        return is_constant(node.operand, namespace)
    if isinstance(node, ast.BinOp):
        return is_constant(node.left, namespace) and is_constant(node.right, namespace)
    if isinstance(node, ast.BoolOp):
        return all(is_constant(v, namespace) for v in node.values)
    if isinstance(node, ast.Compare):
        return all(is_constant(v, namespace) for v in [node.left, *node.comparators])
    if isinstance(node, ast.Subscript):
        return is_constant(node.value, namespace) and is_constant(node.slice, namespace)
    if isinstance(node, ast.Slice):
        return all(p is None or is_constant(p, namespace)
                   for p in (node.lower, node.upper, node.step))
    if isinstance(node, (ast.Name, ast.Attribute)):
        found, value = resolve(node, namespace)
        return found and (isinstance(node, ast.Name) or _module_attribute(node, namespace)
                          ) and not callable(value) or found and id(value) in _PURE
    if isinstance(node, ast.Call):
        found, value = resolve(node.func, namespace)
        return (found and id(value) in _PURE
                and all(not isinstance(a, ast.Starred) and is_constant(a, namespace)
                        for a in node.args)
                and all(k.arg is not None and is_constant(k.value, namespace)
                        for k in node.keywords))
    return False


def _module_attribute(node: ast.Attribute, namespace: dict) -> bool:
    found, base = resolve(node.value, namespace)
    return found and type(base).__name__ == "module"


def resolve(node: ast.AST, namespace: dict) -> tuple[bool, object]:
    """(found, value) of a name or a chain of attributes of a module (``np.random.rand``),
    read without calling anything; (False, None) for anything else."""
    if isinstance(node, ast.Name):
        if node.id in namespace:
            return True, namespace[node.id]
        if hasattr(builtins, node.id):
            return True, getattr(builtins, node.id)
        return False, None
    if isinstance(node, ast.Attribute):
        found, base = resolve(node.value, namespace)
        if found and type(base).__name__ == "module" and hasattr(base, node.attr):
            return True, getattr(base, node.attr)
        if found and isinstance(base, type) and node.attr in vars(base):
            return True, getattr(base, node.attr)
    return False, None


def evaluate(node: ast.AST, namespace: dict, filename: str):
    """The value of a constant expression (`is_constant`)."""
    return eval(compile(ast.Expression(body=node), filename, "eval"), dict(namespace))
