"""A list the function builds by appending a number of items the code fixes, and returns,
written out as the display of its items (`appended_results_as_displays`)."""

from __future__ import annotations

import libcst as cst

from ..introspect import lookup
from ..liveness import Namer, all_names, bound_names, writes
from ..syntax.traversal import walk

APPENDED_LIMIT = 64
"""Items of a returned list that `appended_results_as_displays` writes out (more: as before)."""
_STATEMENT_LIMIT = 2000
"""Statements the loops it writes out may make, in all."""


def appended_results_as_displays(tree: cst.FunctionDef, func, origins: dict | None = None
                                 ) -> cst.FunctionDef:
    """``out = []`` in the function's own body, ``out.append(e)`` statements, and ``return
    out`` as the body's last statement, where the name is used nowhere else and every append
    is a statement of the body or of ``for``/``while`` loops only (no ``if``, ``try``,
    ``with`` around it) whose trip count the code fixes: ``for t in range(...)`` of int
    literals, and ``while n < b`` (or ``<=``) with ``n = a`` of int literals before it, ``n
    += 1`` a statement of its body and no other write of ``n`` in it; neither loop with an
    ``else``, a ``break`` or a ``continue`` of its own. Every example then appends the same
    number of items (Haxe's translation of ``for c in 0...3``, hsluv's ``_get_bounds``).
    Those loops are written out (``n = a``, the body, the body..., each copy in Python's
    order), each append becomes ``out_k = e`` and the return ``return [out_0, out_1, ...]``:
    the same items, evaluated in the same order, in a list no code sees before it is
    returned. The engine takes the display as a list of per-example values (a helper's
    result a caller indexes, loops over or unpacks). Anything else is left as it is."""
    body = list(tree.body.body)
    if not body or not _is_return_of_name(body[-1]):
        return tree
    name = body[-1].body[0].value.value
    init = next((k for k, s in enumerate(body[:-1]) if _initial_items(s, name) is not None),
                None)
    if init is None or not _only_appends(tree, name, body[init], body[-1]) or any(
            _holds_append(s, name) for s in body[:init]):
        return tree
    if not any(_append_of(n, name) is not None for n in walk(tree.body)):
        return tree
    budget = [_STATEMENT_LIMIT]
    out = _written_out(body[init + 1:-1], name, func, tree, budget, origins)
    if out is None:
        return tree
    namer = Namer(all_names(tree))
    items: list = []
    made: list = []
    for value in _initial_items(body[init], name):
        items.append(namer.fresh(f"{name}_item"))
        made.append(_located(_assign(items[-1], value), body[init], origins))
    stmts = list(body[:init]) + made
    for stmt in out:
        value = _append_of(stmt, name)
        if value is None:
            stmts.append(stmt)
            continue
        items.append(namer.fresh(f"{name}_item"))
        stmts.append(_located(_assign(items[-1], value), stmt, origins))
    if len(items) > APPENDED_LIMIT:
        return tree
    ret = body[-1]
    display = _located(cst.List([cst.Element(cst.Name(n)) for n in items]),
                       ret.body[0].value, origins)
    made_return = _located(ret.body[0].with_changes(value=display), ret.body[0], origins)
    stmts.append(_located(cst.SimpleStatementLine([made_return]), ret, origins))
    return tree.with_changes(body=tree.body.with_changes(body=stmts))


def _located(stmt, original, origins):
    if origins is not None:
        origins[stmt] = origins.get(original, original)
    return stmt


def _assign(name: str, value) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], value)])


def _is_return_of_name(stmt) -> bool:
    return type(stmt) is cst.SimpleStatementLine and len(stmt.body) == 1 and type(
        stmt.body[0]) is cst.Return and type(stmt.body[0].value) is cst.Name


def _initial_items(stmt, name: str) -> list | None:
    """The items of ``name = [a, b]`` (no ``*``), else None."""
    if type(stmt) is not cst.SimpleStatementLine or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if type(small) is not cst.Assign or len(small.targets) != 1 or type(
            small.targets[0].target) is not cst.Name or small.targets[0].target.value != name \
            or type(small.value) is not cst.List or any(
                type(e) is not cst.Element for e in small.value.elements):
        return None
    return [e.value for e in small.value.elements]


def _append_of(stmt, name: str):
    """The item of the statement ``name.append(item)``, else None."""
    if type(stmt) is not cst.SimpleStatementLine or len(stmt.body) != 1 or type(
            stmt.body[0]) is not cst.Expr:
        return None
    call = stmt.body[0].value
    if type(call) is not cst.Call or type(call.func) is not cst.Attribute or type(
            call.func.value) is not cst.Name or call.func.value.value != name or \
            call.func.attr.value != "append" or len(call.args) != 1 or \
            call.args[0].keyword is not None or call.args[0].star:
        return None
    return call.args[0].value


def _only_appends(tree, name: str, init, ret) -> bool:
    """``name`` appears (as any name) only as the target of ``init``, in ``name.append(x)``
    statements and in ``ret``."""
    allowed = {id(init.body[0].targets[0].target), id(ret.body[0].value)}
    for n in walk(tree):
        if _append_of(n, name) is not None:
            allowed.add(id(n.body[0].value.func.value))
    for n in walk(tree):
        if type(n) is cst.Name and n.value == name and id(n) not in allowed:
            return False
    return True


def _holds_append(stmt, name: str) -> bool:
    return any(_append_of(n, name) is not None for n in walk(stmt))


def _written_out(stmts, name, func, tree, budget, origins) -> list | None:
    """``stmts`` with every loop that holds an append written out; None where one cannot be
    (an append under anything but such loops)."""
    out: list = []
    for stmt in stmts:
        if not _holds_append(stmt, name) or _append_of(stmt, name) is not None:
            out.append(stmt)
            continue
        copies = _trips(stmt, out, func, tree, budget, origins)
        if copies is None:
            return None
        inner = _written_out(copies, name, func, tree, budget, origins)
        if inner is None:
            return None
        out.extend(inner)
    return out


def _trips(loop, before: list, func, tree, budget, origins) -> list | None:
    """The statements ``loop`` runs, written out, where its trip count is fixed."""
    if type(loop) not in (cst.For, cst.While) or loop.orelse is not None or _own_jumps(
            loop.body):
        return None
    if type(loop) is cst.For:
        values = _range_values(loop, func, tree)
        if values is None:
            return None
        out: list = []
        for v in values:
            budget[0] -= 1 + len(loop.body.body)
            if budget[0] < 0:
                return None
            value = cst.Integer(str(v)) if v >= 0 else cst.UnaryOperation(
                cst.Minus(), cst.Integer(str(-v)))
            out.append(_located(cst.SimpleStatementLine([cst.Assign(
                [cst.AssignTarget(_clone(loop.target, origins))], value)]), loop, origins))
            out.extend(_clone(s, origins) for s in loop.body.body)
        return out
    count = _while_trips(loop, before)
    if count is None:
        return None
    budget[0] -= count * len(loop.body.body)
    if budget[0] < 0:
        return None
    return [_clone(s, origins) for _ in range(count) for s in loop.body.body]


def _range_values(loop: cst.For, func, tree) -> range | None:
    it = loop.iter
    if type(loop.target) is not cst.Name or loop.asynchronous is not None or type(
            it) is not cst.Call or type(it.func) is not cst.Name or it.func.value != "range" \
            or "range" in bound_names(tree) or lookup(func, "range")[2] != "builtin" or not (
                1 <= len(it.args) <= 3) or any(a.keyword is not None or a.star for a in it.args):
        return None
    values = [_literal_int(a.value) for a in it.args]
    if None in values or values[2:] == [0]:
        return None
    return range(*values)


def _while_trips(loop: cst.While, before: list) -> int | None:
    """The trip count of ``while n < b`` (``<=``) with ``n = a`` the last statement of
    ``before`` that names ``n``, ``n += 1`` a statement of the body and no other write of
    ``n`` in it."""
    test = loop.test
    if type(test) is not cst.Comparison or len(test.comparisons) != 1 or type(
            test.left) is not cst.Name or type(test.comparisons[0].operator) not in (
                cst.LessThan, cst.LessThanEqual):
        return None
    n = test.left.value
    bound = _literal_int(test.comparisons[0].comparator)
    if bound is None:
        return None
    steps = [s for s in loop.body.body if _is_increment(s, n)]
    if len(steps) != 1 or any(n in writes(s) for s in loop.body.body if s is not steps[0]):
        return None
    start = None
    for stmt in reversed(before):
        if any(type(x) is cst.Name and x.value == n for x in walk(stmt)):
            small = stmt.body[0] if type(stmt) is cst.SimpleStatementLine and len(
                stmt.body) == 1 else None
            if type(small) is cst.Assign and len(small.targets) == 1 and type(
                    small.targets[0].target) is cst.Name and small.targets[
                        0].target.value == n:
                start = _literal_int(small.value)
            break
    if start is None:
        return None
    if type(test.comparisons[0].operator) is cst.LessThanEqual:
        bound += 1
    return max(0, bound - start)


def _is_increment(stmt, n: str) -> bool:
    if type(stmt) is not cst.SimpleStatementLine or len(stmt.body) != 1:
        return False
    small = stmt.body[0]
    return type(small) is cst.AugAssign and type(small.target) is cst.Name and \
        small.target.value == n and type(small.operator) is cst.AddAssign and \
        _literal_int(small.value) == 1


def _literal_int(node):
    if type(node) is cst.Integer:
        return int(node.value, 0)
    if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus and \
            type(node.expression) is cst.Integer:
        return -int(node.expression.value, 0)
    return None


def _own_jumps(body) -> bool:
    """A ``break`` or ``continue`` of the loop whose body is ``body``, or a function or
    class defined in it (made once per trip in Python)."""
    stack = list(body.children)
    while stack:
        n = stack.pop()
        if type(n) in (cst.Break, cst.Continue, cst.FunctionDef, cst.ClassDef, cst.Lambda):
            return True
        if type(n) in (cst.For, cst.While):
            if any(type(x) in (cst.FunctionDef, cst.ClassDef, cst.Lambda) for x in walk(n)):
                return True
            continue
        stack.extend(n.children)
    return False


def _clone(node, origins):
    """A deep copy of ``node`` whose every part is located where its original is."""
    made = node.deep_clone()
    if origins is not None:
        pairs = [(made, node)]
        while pairs:
            a, b = pairs.pop()
            origins[a] = origins.get(b, b)
            pairs.extend(zip(a.children, b.children))
    return made
