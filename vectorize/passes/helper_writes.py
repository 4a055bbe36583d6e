"""A helper that writes into its argument, called under a condition, writes into a copy.

Assumes: scalar-style code, not yet analysed; the helpers are the user's Python functions.
Reads and writes no record (`records`): the copies are the names bound to
``__lanes_copy__(...)`` (`rules.lane_copies.copies`).
Guarantees: a call statement ``h(a, x)`` (or assignment ``t = h(a, x)``, ``t`` not ``a``,
at the function's top level, where every example runs it) that may run for some examples
only (inside an ``if``, a ``while``, a ``for`` with a ``break``/``continue``/``return``, or
after an ``if`` that returns, breaks or continues: the test may differ per example; where it
does not, the copy is merely one more) -- and in a function that has such code or any
``if`` or ``while``, every such call, as the analysis after `if_to_where` cannot tell them
apart -- where ``h`` writes into the items of the parameter that the name ``a`` is passed
as (``w[i] += v``) and
``a`` is the function's own (not a parameter) and passed once, becomes

    if x > 0:                           if x > 0:
        bump(a, 1)            ->            a_call = __lanes_copy__(a)
                                            bump(a_call, 1)
                                            a[:] = a_call

Per example ``__lanes_copy__(a)`` is ``a.copy()``: the example that makes the call changes its
array as the call did, the others leave it alone, so the meaning is unchanged. On the batch
every lane runs the call (the ``if`` becomes merges), into the copy; the write back is masked
(`if_to_where`), so only the lanes that take the branch keep what the helper wrote. Anything
else (a helper that rebinds its parameter, ``w += v``; an argument passed twice; the caller's
own argument) is left as it is, for the analysis to refuse where it is written.
"""

from __future__ import annotations

import inspect
import types

import libcst as cst

from ..analysis.aliasing import parameters_written_into
from ..introspect import lookup
from ..rules.lane_copies import LANES_COPY
from ..syntax.templates import parse_expr
from ..syntax.traversal import by_type, rewrite, walk

# expressions whose value is a new object, whatever they read
_NEW_VALUES = (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.BooleanOperation)


def _written_names(call: cst.Call, fn, own: set[str]) -> list[str]:
    """The names passed to ``fn`` as parameters it writes items of (see the docstring)."""
    written = parameters_written_into(fn)
    if not written:
        return []
    positional = [a.value for a in call.args if a.keyword is None and not a.star]
    if len(positional) + sum(a.keyword is not None for a in call.args) != len(call.args):
        return []
    keywords = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
    try:
        bound = inspect.signature(fn, follow_wrapped=False).bind(*range(len(positional)),
                                           **dict.fromkeys(keywords, -1))
    except (TypeError, ValueError):
        return []
    names = []
    for parameter in written:
        index = bound.arguments.get(parameter)
        if not isinstance(index, int):
            continue
        arg = keywords[parameter] if index == -1 else positional[index]
        if type(arg) is not cst.Name or arg.value not in own:
            continue
        # `a` passed once; other arguments may read it only into new values (`a[i] + k`),
        # never pass it or a view of it (`a[1:]`), which the helper's writes would change
        others = [a.value for a in call.args if a.value is not arg]
        if not any(type(n) is cst.Name and n.value == arg.value for o in others
                   for n in walk(o) if type(o) not in _NEW_VALUES):
            names.append(arg.value)
    return names


def _on_some_lanes(block, some: bool, out: set) -> None:
    """Collect into ``out`` the ids of the simple statements of ``block`` that may run for
    some examples only (``some``: the block itself may): in an ``if``, a ``while``, a ``for``
    with a ``break``/``continue``/``return``, or after a statement that may leave some
    examples (`_may_exit`)."""
    for stmt in block.body:
        if type(stmt) is cst.SimpleStatementLine:
            if some:
                out.add(id(stmt))
            continue
        inner = some or type(stmt) in (cst.If, cst.While) or (
            type(stmt) is cst.For and _exits(stmt))
        for body in _blocks(stmt):
            _on_some_lanes(body, inner, out)
        some = some or _may_exit(stmt)


def _blocks(stmt) -> list:
    """The blocks directly inside a compound statement (its body, ``elif``/``else``...)."""
    out = []
    node = stmt
    while node is not None:
        body = getattr(node, "body", None)
        if type(body) is cst.IndentedBlock:
            out.append(body)
        node = getattr(node, "orelse", None)
        if type(node) is cst.Else:
            if type(node.body) is cst.IndentedBlock:
                out.append(node.body)
            break
    return out


class _Copies(cst.CSTTransformer):
    def __init__(self, pyfunc, own: set[str], namer, targets: set[int], assigned: set[int]):
        self.pyfunc = pyfunc
        self.own = own
        self.namer = namer
        self.targets = targets
        self.assigned = assigned    # the statements `t = h(a, x)` may be

    def _helper(self, stmt):
        if type(stmt) is not cst.SimpleStatementLine or len(stmt.body) != 1 or type(
                stmt.body[0]) not in (cst.Expr, cst.Assign) or type(
                stmt.body[0].value) is not cst.Call:
            return None
        call = stmt.body[0].value
        if type(call.func) is not cst.Name:
            return None
        if type(stmt.body[0]) is cst.Assign and len(stmt.body[0].targets) != 1:
            return None
        found, fn, _ = lookup(self.pyfunc, call.func.value)
        if not found or not isinstance(fn, types.FunctionType):
            return None
        return call, fn

    def leave_IndentedBlock(self, original_node, updated_node):
        body, changed = [], False
        for original, stmt in zip(original_node.body, updated_node.body):
            found = self._helper(stmt) if id(original) in self.targets else None
            names = _written_names(*found, self.own) if found is not None else []
            if names and type(stmt.body[0]) is cst.Assign and (
                    id(original) not in self.assigned or any(
                        type(n) is cst.Name and n.value in names
                        for n in walk(stmt.body[0].targets[0].target))):
                names = []      # (`a = h(a, x)`: the write back would name another array)
            if not names:
                body.append(stmt)
                continue
            call = found[0]
            before, after = [], []
            for name in names:
                copy = self.namer.fresh(f"{name}_call")
                before.append(cst.SimpleStatementLine([cst.Assign(
                    [cst.AssignTarget(cst.Name(copy))],
                    cst.Call(cst.Name(LANES_COPY), [cst.Arg(cst.Name(name))]))]))
                after.append(cst.SimpleStatementLine([cst.Assign(
                    [cst.AssignTarget(parse_expr(f"{name}[:]"))], cst.Name(copy))]))
                call = call.with_changes(args=[
                    a.with_changes(value=cst.Name(copy))
                    if type(a.value) is cst.Name and a.value.value == name else a
                    for a in call.args])
            body += before + [stmt.with_changes(body=[stmt.body[0].with_changes(value=call)])]
            body += after
            changed = True
        return updated_node.with_changes(body=body) if changed else updated_node


def _may_exit(stmt) -> bool:
    """Whether ``stmt`` holds a ``return``, ``break`` or ``continue`` inside an ``if``: the
    code after it may run for some examples only."""
    if type(stmt) not in (cst.If, cst.For, cst.While):
        return False
    return any(type(n) is cst.If and any(k in by_type(n) for k in (
        cst.Return, cst.Break, cst.Continue)) for n in walk(stmt))


def _exits(loop: cst.For) -> int:
    """1 where a ``break``, ``continue`` or ``return`` in the loop's body may stop some
    examples' iterations, else 0."""
    kinds = by_type(loop.body)
    return int(any(kind in kinds for kind in (cst.Break, cst.Continue, cst.Return)))


def transform(func: cst.FunctionDef, ctx) -> cst.FunctionDef:
    kinds = by_type(func.body)
    if (cst.Expr not in kinds and cst.Assign not in kinds) or not (
            cst.If in kinds or cst.While in kinds or cst.For in kinds):
        return func
    params = {p.name.value for p in (*func.params.params, *func.params.kwonly_params,
                                     *func.params.posonly_params)}
    own = {n.target.value for n in walk(func.body) if type(n) is cst.AssignTarget
           and type(n.target) is cst.Name} - params
    if not own:
        return func
    targets: set[int] = set()
    _on_some_lanes(func.body, False, targets)
    if not targets and cst.If not in kinds and cst.While not in kinds:
        # (an `if` or `while` anywhere may differ per example: then every call is one, below)
        return func
    # once the `if`s are merges, the analysis counts all code as running on some lanes
    # (`transform.branches_per_example`): the calls every lane makes write into copies too
    # `t = h(a, x)` only where every lane runs it (a statement of the function's body
    # before any exit): under a condition the call would become part of a merge of `t`,
    # evaluated after the write back
    assigned = {id(stmt) for stmt in func.body.body} - targets
    _on_some_lanes(func.body, True, targets)
    return rewrite(func, _Copies(ctx.source.func, own, ctx.namer, targets, assigned))
