"""What the analysis may run, and what a specialization may rely on.

Callables without side effects (`PURE_BUILTINS`, `pure_numpy`) are run on the examples to
learn their results; a value read from a global or a closure is exact (the same on every call
of a specialization) only where it cannot change in place (`immutable`, `is_library`).
"""

from __future__ import annotations

import ast
import textwrap
import types

import numpy as np

from ..introspect import source_lines

PURE_BUILTINS = {len, range, int, float, bool, abs, min, max, round, tuple, list, sum, complex,
                 str, divmod, pow, isinstance, sorted, reversed, enumerate, zip, type, dict}


_IMPURE_NUMPY = {"copyto", "put", "place", "putmask", "fill_diagonal", "save", "savez",
                 "savez_compressed", "savetxt", "load", "loadtxt", "genfromtxt", "fromfile",
                 "seterr", "set_printoptions", "fill", "itemset", "setflags", "tofile", "dump",
                 "dumps", "setfield"}


# methods that change their array in place; the functions of these names (`np.sort(w)`)
# return a new array
_IMPURE_METHODS = {"sort", "resize", "partition"}


def in_package(fn, *packages: str) -> bool:
    """Whether ``fn`` is defined in one of ``packages`` or their submodules (``numpy``,
    ``numpy.linalg``; not ``numpy_financial`` or a user's ``mathutils``)."""
    module = getattr(fn, "__module__", None) or ""
    return any(module == p or module.startswith(p + ".") for p in packages)


def pure_numpy(fn) -> bool:
    """NumPy functions and array methods that compute without side effects (evaluated on
    examples to learn shapes and dtypes)."""
    name = getattr(fn, "__name__", "")
    if name in _IMPURE_NUMPY:
        return False
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, (np.ndarray, np.generic)):
        return name not in _IMPURE_METHODS
    return in_package(fn, "numpy") and not in_package(fn, "numpy.random")


_READ_ONLY_METHODS = {dict: {"get", "keys", "values", "items", "__getitem__",
                             "__contains__", "__len__"},
                      tuple: {"count", "index", "__getitem__", "__contains__", "__len__"},
                      str: {"startswith", "endswith", "upper", "lower", "strip", "lstrip",
                            "rstrip", "split", "replace", "format", "count", "find", "join"}}


def pure_method(fn) -> bool:
    """A method of a dict, tuple or str that only reads it (``options.get("scale", 2.0)``):
    run on the examples like `PURE_BUILTINS` (on an exact receiver, its result is exact)."""
    owner = getattr(fn, "__self__", None)
    return type(fn).__name__ == "builtin_function_or_method" and \
        fn.__name__ in _READ_ONLY_METHODS.get(type(owner), ())


_IMMUTABLE = (int, float, complex, bool, str, bytes, type(None), type(Ellipsis), np.generic,
              np.dtype, range, slice, type, types.ModuleType, types.FunctionType,
              types.BuiltinFunctionType, np.ufunc, types.MethodType)


def immutable(value) -> bool:
    """Whether a value the code reads from a global (or closure) is the same for as long as
    the name is bound to it (numbers, strings, tuples of those, functions, classes,
    modules), so that a specialization may rely on it (exact); a list, dict, array or other
    object may change in place, which no guard sees."""
    if isinstance(value, (tuple, frozenset)):
        return all(immutable(item) for item in value)
    return isinstance(value, _IMMUTABLE) or callable(value) and not isinstance(
        value, (list, dict, set, np.ndarray))


def is_library(module) -> bool:
    """A module of the libraries generated code uses, whose attributes are constants."""
    return (getattr(module, "__name__", "") or "").split(".")[0] in (
        "numpy", "math", "cmath", "operator", "functools", "builtins")


def is_number(value) -> bool:
    return type(value) in (int, float, complex, bool) or isinstance(value, (np.number,
                                                                            np.bool_))

_PREDICATES: dict = {}


def type_predicate(fn) -> bool:
    """``fn`` is a helper that cannot raise: one ``return`` of ``isinstance(p, T)`` (``p`` a
    parameter, ``T`` a global holding a type or a tuple of types), ``p is None``-style
    identity tests of parameters and constants, and ``not``/``and``/``or`` of those
    (pygeodesy's ``_isFsum_2Tuple(x)``): a test calling it may be decided from its result."""
    code = getattr(fn, "__code__", None)
    found = _PREDICATES.get(code)
    if found is None:
        found = _PREDICATES[code] = _reads_as_type_predicate(fn)
    return found


def _reads_as_type_predicate(fn) -> bool:
    # (its own lines, as `introspect.source_lines` reads them: a `functools.wraps` wrapper's,
    # not those of the function it wraps)
    try:
        tree = ast.parse(textwrap.dedent("".join(source_lines(fn)[0])))
    except Exception:       # (no source, or not one function)
        return False
    if len(tree.body) != 1 or type(tree.body[0]) is not ast.FunctionDef:
        return False
    func = tree.body[0]
    body = func.body
    if body and type(body[0]) is ast.Expr and type(body[0].value) is ast.Constant:
        body = body[1:]     # (its docstring)
    if func.decorator_list or len(body) != 1 or type(body[0]) is not ast.Return:
        return False
    params = {a.arg for a in func.args.posonlyargs + func.args.args}
    if func.args.vararg or func.args.kwarg or func.args.kwonlyargs:
        return False

    def is_types(value) -> bool:
        return isinstance(value, type) or (type(value) is tuple and all(
            isinstance(v, type) for v in value))

    def safe(e) -> bool:
        t = type(e)
        if t is ast.BoolOp:
            return all(safe(v) for v in e.values)
        if t is ast.UnaryOp and type(e.op) is ast.Not:
            return safe(e.operand)
        if t is ast.Compare:
            return all(type(o) in (ast.Is, ast.IsNot) for o in e.ops) and all(
                (type(v) is ast.Name and v.id in params) or type(v) is ast.Constant
                for v in [e.left, *e.comparators])
        if t is ast.Call:
            return type(e.func) is ast.Name and e.func.id == "isinstance" and \
                "isinstance" not in fn.__globals__ and not e.keywords and \
                len(e.args) == 2 and type(e.args[0]) is ast.Name and \
                e.args[0].id in params and type(e.args[1]) is ast.Name and \
                e.args[1].id not in params and is_types(fn.__globals__.get(e.args[1].id))
        return False

    return body[0].value is not None and safe(body[0].value)
