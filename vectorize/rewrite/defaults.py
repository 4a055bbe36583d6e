"""The default values of the batched helpers the file rewriter writes.

The engine prints a helper's parameters without their defaults (the decorator's generated
function gets the original function's ``__defaults__`` and ``__kwdefaults__`` objects at run
time, `codegen.execute`); a call that leaves a parameter out (``h(y)`` for ``def h(x, n=3)``)
keeps its arguments as written, so the helper written into the file needs the same defaults.
Each default is written as its ``def`` wrote it where that expression (names, attributes,
constants, operators), evaluated where the helper is written, gives the very value the helper
was specialized for (``n=N`` for a module constant ``N``, ``f=np.sin``, ``eps=1e-8``); else
as a literal that gives an equal value of the same type (``m=7`` for an ``M`` bound after the
marked function, ``b=float("inf")``, ``t=(1.0, 2.0)``); else the file is not rewritten (an
error at the default says why).
"""

from __future__ import annotations

import ast
import builtins
import inspect
import math
import textwrap

import libcst as cst

from .marks import Located
from .skeleton import bound_names

_SIMPLE = (ast.Expression, ast.Name, ast.Attribute, ast.Constant, ast.BinOp, ast.UnaryOp,
           ast.Tuple, ast.Load, ast.operator, ast.unaryop)
_LITERAL = (bool, int, float, complex, str, bytes, type(None))


def with_defaults(helper: cst.FunctionDef, func, tree: ast.Module, namespace: dict,
                  before: ast.stmt, where: Located) -> cst.FunctionDef:
    """``helper`` (the printed batched version of ``func``) with ``func``'s defaults, written
    so that they evaluate at module level where the helper is placed (after ``before``)."""
    positional = getattr(func, "__defaults__", None) or ()
    keywords = getattr(func, "__kwdefaults__", None) or {}
    if not positional and not keywords:
        return helper
    params = helper.params
    ordered = list(params.posonly_params) + list(params.params)
    kwonly = {p.name.value for p in params.kwonly_params}
    if len(positional) > len(ordered) or not set(keywords) <= kwonly:
        raise where.error(before, f"internal error: the batched `{func.__name__}` has other "
                                  "parameters than its defaults name",
                          f"keep the decorator on `{before.name}`")
    written = {}
    for param, value in zip(ordered[len(ordered) - len(positional):], positional):
        written[param.name.value] = _source(value, func, param.name.value, tree, namespace,
                                            before, where)
    for name, value in keywords.items():
        written[name] = _source(value, func, name, tree, namespace, before, where)

    def fill(group):
        equal = cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))
        return [p.with_changes(default=cst.parse_expression(written[p.name.value]),
                               equal=equal)
                if p.name.value in written and p.default is None else p for p in group]
    return helper.with_changes(params=params.with_changes(
        posonly_params=fill(params.posonly_params), params=fill(params.params),
        kwonly_params=fill(params.kwonly_params)))


def _source(value, func, name: str, tree: ast.Module, namespace: dict, before: ast.stmt,
            where: Located) -> str:
    node, text = _default_node(func, name, tree, namespace, where)
    expression = _as_written(value, node, text, tree, namespace, before)
    if expression is not None:
        return expression
    literal = _literal(value)
    if literal is not None:
        return literal
    here = node if getattr(func, "__globals__", None) is namespace and node else before
    raise where.error(here, f"the default value of `{name}` of `{func.__name__}` "
                            f"({type(value).__name__}) cannot be written into the batched "
                            f"`{func.__name__}`: the file rewriter writes a default as a "
                            "literal, or as the expression of names the file binds before "
                            f"`{before.name}` that the default was written with",
                      f"pass `{name}` at the call, or make the default a literal or a "
                      f"module-level name bound above `{before.name}`")


def _default_node(func, name: str, tree: ast.Module, namespace: dict, where: Located):
    """The default expression of ``name`` in the ``def`` of ``func`` (this file's, or its
    module's source) and the text it is in; (None, "") where there is none."""
    if getattr(func, "__globals__", None) is namespace:
        text = "\n".join(where.lines) + "\n"
        defs = [s for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))
                and s.name == func.__name__]
    else:
        try:
            text = textwrap.dedent(inspect.getsource(func))
            defs = [s for s in ast.parse(text).body if isinstance(s, ast.FunctionDef)]
        except (OSError, TypeError, SyntaxError):
            return None, ""
    for stmt in defs:
        args = stmt.args
        ordered = args.posonlyargs + args.args
        pairs = list(zip(ordered[len(ordered) - len(args.defaults):], args.defaults))
        pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d]
        for arg, default in pairs:
            if arg.arg == name:
                return default, text
    return None, ""


def _as_written(value, node, text: str, tree: ast.Module, namespace: dict,
                before: ast.stmt) -> str | None:
    """The default expression ``node`` as the user wrote it, where it reads only names this
    file binds (once) before ``before`` and gives ``value`` again there."""
    if node is None or not all(isinstance(n, _SIMPLE) for n in ast.walk(node)):
        return None
    earlier = set()
    for stmt in tree.body:
        if stmt.lineno >= before.lineno:
            break
        earlier.update(bound_names(stmt))
    if any(isinstance(n, ast.Name) and (n.id not in earlier or n.id not in namespace)
           for n in ast.walk(node)):
        return None
    try:
        again = eval(compile(ast.Expression(node), "<default>", "eval"),  # noqa: S307
                     {"__builtins__": {}, **{k: v for k, v in namespace.items()
                                             if k != "__builtins__"}})
    except Exception:   # noqa: BLE001 -- not the same: written as a literal, or an error
        return None
    if again is not value and not (_literal(value) is not None and _same(again, value)):
        return None
    written = ast.get_source_segment(text, node)
    return written if written and "\n" not in written else ast.unparse(node)


def _literal(value) -> str | None:
    """Source text that evaluates to a value equal to ``value``, of its type; None if none."""
    if type(value) is float and not math.isfinite(value):
        return 'float("nan")' if math.isnan(value) else \
            ('float("inf")' if value > 0 else '-float("inf")')
    if type(value) in (tuple, list):
        items = [_literal(v) for v in value]
        if any(i is None for i in items):
            return None
        inner = ", ".join(items) + ("," if type(value) is tuple and len(items) == 1 else "")
        return f"({inner})" if type(value) is tuple else f"[{inner}]"
    if type(value) not in _LITERAL:
        return None
    text = repr(value)
    try:
        again = eval(text, {"__builtins__": {"float": builtins.float}})  # noqa: S307
    except Exception:   # noqa: BLE001 -- (complex with nan parts) not a literal
        return None
    return text if _same(again, value) else None


def _same(a, b) -> bool:
    """Equal values of the same type (``-0.0`` is not ``0.0``; NaN is NaN)."""
    if type(a) is not type(b):
        return False
    if type(a) in (tuple, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return repr(a) == repr(b)
