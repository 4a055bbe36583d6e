"""A generator function of the user's whose items the caller unpacks at once (pygeodesy's
``s1, c1, s2, c2 = sincos2_(a, b)``): read as a function that returns its items as a tuple.

``def sincos2_(*rads): for r in rads: s, c = sincos2(r); yield s; yield c`` called with two
angles and unpacked into four names is called as ``sincos2___items2(a, b)``: the same body
with the loop over the ``*args`` parameter written out once per item (``r = rads[0]``, ...),
each ``yield e`` an assignment of ``e`` to a fresh name, and the names returned as a tuple.

That is what Python computes only where the caller consumes every item at once and nothing
else runs between them: `check_consumer` accepts the call only as the whole value of an
assignment to a tuple (or list) of exactly as many targets as the generator yields (a
different count makes Python stop pulling items early: the items after the one that did not
fit are never computed). `items_function` gives a reason instead (the call is refused, located)
for a generator that yields anywhere but in a top-level ``yield e`` statement or the top
level of a ``for`` over its ``*args`` parameter (no ``else``), that returns, breaks or
continues, that receives values (``x = yield``), uses ``yield from``, or reads variables of an
enclosing function.
"""

from __future__ import annotations

import inspect
import itertools
import linecache
import textwrap
import types

import libcst as cst

from ..syntax.traversal import walk

_MADE: dict = {}        # (function, star items) -> function or why not (a phrase)
_COUNTER = itertools.count()


def _yield_statement(stmt):
    """The value of a ``yield e`` statement line (alone on its line), else None."""
    if type(stmt) is cst.SimpleStatementLine and len(stmt.body) == 1 and \
            type(stmt.body[0]) is cst.Expr and type(stmt.body[0].value) is cst.Yield:
        value = stmt.body[0].value.value
        if value is not None and type(value) is not cst.From:
            return value
    return None


def _plain(stmt) -> bool:
    """No yield, return, break or continue anywhere in ``stmt`` (nested functions and
    lambdas included: a lambda's body cannot hold them, a nested def is refused later)."""
    return not any(type(n) in (cst.Yield, cst.Return, cst.Break, cst.Continue, cst.FunctionDef,
                               cst.ClassDef) for n in walk(stmt))


def _star_loop(stmt, star: str | None):
    """The body statements of ``for t in <star>:`` (no else, not async), else None."""
    if type(stmt) is cst.For and star is not None and stmt.orelse is None and \
            stmt.asynchronous is None and type(stmt.iter) is cst.Name and \
            stmt.iter.value == star and type(stmt.body) is cst.IndentedBlock:
        return list(stmt.body.body)
    return None


def yield_count(fn, n_star: int) -> int | None:
    """How many items the generator yields with ``n_star`` items in its ``*args``."""
    made = items_function(fn, n_star)
    return None if type(made) is str else made.__vectorize_yields__


def items_function(fn, n_star: int):
    """The function returning the tuple of ``fn``'s items, for calls with ``n_star`` items in
    its ``*args`` (cached), or why not (a phrase)."""
    key = (fn, n_star)
    if key not in _MADE:
        try:
            _MADE[key] = _make(fn, n_star)
        except Exception:       # noqa: BLE001 -- anything unexpected: refused, located
            _MADE[key] = "its source could not be read as one"
    return _MADE[key]


def _make(fn, n_star: int):
    if fn.__code__.co_freevars:
        return "it reads variables of an enclosing function"
    text = textwrap.dedent(inspect.getsource(fn))
    module = cst.parse_module(text)
    func = module.body[0]
    if type(func) is not cst.FunctionDef or func.decorators or func.asynchronous or \
            type(func.body) is not cst.IndentedBlock:
        return "it is not a plain `def`"
    star = func.params.star_arg
    star = star.name.value if type(star) is cst.Param else None
    taken = {n.value for n in walk(func) if type(n) is cst.Name}
    name = f"{func.name.value}__items{n_star}"
    names = (f"{func.name.value}__item{k}" for k in itertools.count())
    items: list = []
    body: list = []

    def item(value):
        target = next(names)
        while target in taken:
            target = next(names)
        items.append(target)
        return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(target))],
                                                   value)])

    stmts = list(func.body.body)
    if stmts and type(stmts[0]) is cst.SimpleStatementLine and len(stmts[0].body) == 1 and \
            type(stmts[0].body[0]) is cst.Expr and \
            type(stmts[0].body[0].value) is cst.SimpleString:
        stmts = stmts[1:]       # (the docstring)
    for stmt in stmts:
        value = _yield_statement(stmt)
        if value is not None:
            body.append(item(value))
            continue
        loop = _star_loop(stmt, star)
        if loop is not None and all(_yield_statement(s) is not None or _plain(s) for s in loop):
            if not n_star:
                # (no pass binds the loop's names: a read of them elsewhere would find a
                # global of the same name instead of raising UnboundLocalError)
                return "it is called with nothing in its `*args`, which it loops over"
            for k in range(n_star):
                body.append(cst.SimpleStatementLine([cst.Assign(
                    [cst.AssignTarget(stmt.target)], cst.Subscript(cst.Name(star), [
                        cst.SubscriptElement(cst.Index(cst.Integer(str(k))))]))]))
                for s in loop:
                    value = _yield_statement(s)
                    body.append(item(value) if value is not None else s)
            continue
        if not _plain(stmt):
            return ("it yields elsewhere than in `yield e` statements at its top level or at "
                    "the top level of a `for` over its `*args` parameter, or it returns, "
                    "breaks or continues")
        body.append(stmt)
    if not items or name in taken:
        return "it yields nothing"
    body.append(cst.SimpleStatementLine([cst.Return(cst.Tuple([
        cst.Element(cst.Name(t)) for t in items]))]))
    new_func = func.with_changes(name=cst.Name(name), body=func.body.with_changes(body=body))
    source = cst.Module([new_func]).code
    filename = f"<vectorize: items of {fn.__module__}.{fn.__qualname__}, {n_star} in *args>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {}
    exec(compile(source, filename, "exec"), fn.__globals__, namespace)    # noqa: S102
    function = namespace[name]
    function.__defaults__ = fn.__defaults__
    function.__kwdefaults__ = fn.__kwdefaults__
    function.__module__ = fn.__module__
    function.__qualname__ = name
    function.__vectorize_yields__ = len(items)
    return function


def is_generator(fn) -> bool:
    return isinstance(fn, types.FunctionType) and inspect.isgeneratorfunction(fn)


def star_items(fn, n_positional: int) -> int:
    """How many positional arguments of a call with ``n_positional`` of them fall into
    ``fn``'s ``*args``."""
    code = fn.__code__
    return max(0, n_positional - code.co_argcount) if code.co_flags & inspect.CO_VARARGS \
        else 0
