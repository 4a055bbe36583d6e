"""Indexes that Python evaluates on some examples only are kept in bounds on the others.

Assumes: scalar-style code in which returns under batched conditions are lowered and masked
loops are ``if active:`` blocks (`masked_loops`, `early_return`); the current analysis.
Guarantees: every index that differs per example (a gather ``v[i]`` with a batched ``i``) and
sits where Python evaluates it only under a condition that differs per example -- the right
side of ``and``/``or``, an arm of a conditional expression, a branch of a batched ``if``
(masked loop bodies included) -- becomes ``v[i if guard else 0]``, where ``guard`` is the
conjunction of those conditions. Per example this is ``v[i]`` wherever Python evaluates it,
so the meaning is unchanged; once later passes evaluate both sides on every lane, the lanes
Python skips read element 0 instead of an index that may be out of bounds
(``while i < len(v) and v[i] < 0:`` no longer reads ``v[len(v)]``). An ``if`` test used as a
guard is first kept in a fresh name (``cond = test``; ``if cond:``) unless it is a name the
branch does not assign before the index: the guard is then the value the test had, computed
once.

    while i < len(v) and v[i] < 0.0:        while i < len(v) and v[i if i < len(v) else 0] < 0.0:
        i += 1                        ->        i += 1

Indexes that are the same for every example (``v[0]``, ``v[k]`` with an unbatched ``k``) are
left as they are: where no lane evaluates them they can still raise (docs/semantics.md).
"""

from __future__ import annotations

import libcst as cst

from ..cst_util import children, rewrite, walk
from ..liveness import reads, target_names, writes


class _Guard:
    """A condition under which Python evaluates the code below it: ``node`` (an ``if`` test
    or the left side of ``and``), negated for ``else`` branches and ``or``. Valid as long as
    no name it reads was assigned since it was evaluated (``versions``)."""

    def __init__(self, node, negated: bool, versions: dict, if_node=None):
        self.node = node
        self.negated = negated
        self.if_node = if_node      # the `if` whose test it is (it can be kept in a name)
        self.names = reads(node)
        self.versions = {n: versions.get(n, 0) for n in self.names}

    def valid(self, versions: dict) -> bool:
        return all(versions.get(n, 0) == v for n, v in self.versions.items())


def _batched(analysis, node) -> bool:
    return bool(getattr(analysis.values.get(node), "batched", False))


class _Plan:
    """Which indexes need guards, and which ``if`` tests must be kept in a name first."""

    def __init__(self, analysis):
        self.analysis = analysis
        self.subscripts: dict[cst.Subscript, list[_Guard]] = {}
        # (a dict, not a set: fresh names are handed out in its order, which must not
        # depend on where the nodes lie in memory)
        self.kept_tests: dict[cst.If, None] = {}

    # statements carry ``versions``: how often each name was assigned on the path so far
    def block(self, stmts, guards: list, versions: dict) -> None:
        for stmt in stmts:
            self.statement(stmt, guards, versions)

    def statement(self, stmt, guards, versions) -> None:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                for child in children(small):
                    if not isinstance(child, cst.AssignTarget):
                        self.expr(child, guards, versions)
                _bump(versions, writes(small))
        elif isinstance(stmt, cst.If):
            self.if_statement(stmt, guards, versions)
        elif isinstance(stmt, (cst.For, cst.While)):
            _bump(versions, writes(stmt))     # a later iteration sees this one's assignments
            self.expr(stmt.iter if isinstance(stmt, cst.For) else stmt.test, guards, versions)
            self.block(stmt.body.body, guards, dict(versions))
            if stmt.orelse is not None:
                self.block(stmt.orelse.body.body, guards, dict(versions))
        elif isinstance(stmt, cst.With):
            for item in stmt.items:
                self.expr(item.item, guards, versions)
            self.block(stmt.body.body, guards, versions)
            return
        else:
            self.expr(stmt, guards, versions)
        _bump(versions, writes(stmt))

    def if_statement(self, stmt: cst.If, guards, versions) -> None:
        self.expr(stmt.test, guards, versions)
        inner = guards
        if self.analysis.batched_tests.get(stmt, False):
            inner = guards + [_Guard(stmt.test, False, versions, stmt)]
        self.block(stmt.body.body, inner, dict(versions))
        if stmt.orelse is not None:
            if inner is not guards:
                inner = guards + [_Guard(stmt.test, True, versions, stmt)]
            if isinstance(stmt.orelse, cst.If):
                self.if_statement(stmt.orelse, inner, dict(versions))
            else:
                self.block(stmt.orelse.body.body, inner, dict(versions))

    def expr(self, node, guards, versions) -> None:
        t = type(node)
        if t is cst.BooleanOperation and _batched(self.analysis, node):
            self.expr(node.left, guards, versions)
            guard = _Guard(node.left, isinstance(node.operator, cst.Or), versions)
            self.expr(node.right, guards + [guard], versions)
            return
        if t is cst.IfExp and _batched(self.analysis, node.test):
            self.expr(node.test, guards, versions)
            self.expr(node.body, guards + [_Guard(node.test, False, versions)], versions)
            self.expr(node.orelse, guards + [_Guard(node.test, True, versions)], versions)
            return
        if t is cst.Subscript and guards and any(
                _batched(self.analysis, e.slice.value) for e in node.slice
                if isinstance(e.slice, cst.Index)):
            self.subscripts[node] = self.usable(guards, versions)
        if t is cst.NamedExpr:
            self.expr(node.value, guards, versions)
            _bump(versions, set(target_names(node.target)))
            return
        if t in (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp):
            return        # per-example values never reach these (the analysis rejects them)
        for child in children(node):
            self.expr(child, guards, versions)

    def usable(self, guards, versions) -> list[_Guard]:
        """The guards that still say whether Python evaluates this index. An ``if`` test is
        kept in a name (computed once; and its value then, even when the branch assigns what
        it reads); a left side of ``and`` changed by ``:=`` since is dropped (a weaker guard
        still holds on every lane Python evaluates the index on, so it is still right)."""
        out = []
        for guard in guards:
            if guard.if_node is not None and not isinstance(guard.node, cst.Name):
                self.kept_tests[guard.if_node] = None    # computed once, read by name
            elif not guard.valid(versions):
                if guard.if_node is None:
                    continue
                self.kept_tests[guard.if_node] = None
            out.append(guard)
        return out


def _bump(versions: dict, names) -> None:
    for name in names:
        versions[name] = versions.get(name, 0) + 1


class _Guarded(cst.CSTTransformer):
    def __init__(self, plan: _Plan, kept: dict[cst.If, str], elifs: set):
        self.plan = plan
        self.kept = kept            # `if` -> the name its test is kept in
        self.elifs = elifs

    def condition(self, guard: _Guard) -> cst.BaseExpression:
        if guard.if_node in self.kept:
            node = cst.Name(self.kept[guard.if_node])
        else:
            node = guard.node.visit(self).deep_clone()    # its own indexes guarded too
        if guard.negated:
            node = cst.UnaryOperation(operator=cst.Not(), expression=node)
        return node

    def leave_Subscript(self, original_node, updated_node):
        guards = self.plan.subscripts.get(original_node)
        if not guards:
            return updated_node
        flip = len(guards) == 1 and guards[0].negated   # `0 if t else i`, not `not t`
        test = None
        for guard in guards:
            part = self.condition(guard)
            if flip:
                part = part.expression
            test = part if test is None else cst.BooleanOperation(
                left=test, operator=cst.And(), right=part)
        elements = []
        for original, element in zip(original_node.slice, updated_node.slice):
            if isinstance(element.slice, cst.Index) and _batched(self.plan.analysis,
                                                                 original.slice.value):
                index, zero = element.slice.value, cst.Integer("0")
                index = cst.IfExp(test=test.deep_clone(), body=zero if flip else index,
                                  orelse=index if flip else zero)
                element = element.with_changes(slice=element.slice.with_changes(value=index))
            elements.append(element)
        return updated_node.with_changes(slice=elements)

    def leave_If(self, original_node, updated_node):
        test = updated_node.test
        if original_node in self.kept:
            updated_node = updated_node.with_changes(test=cst.Name(self.kept[original_node]))
        orelse = original_node.orelse
        if isinstance(orelse, cst.If) and orelse in self.kept:
            # `elif t:` -> `else:` / `cond = t` / `if cond:` (t runs where Python runs it)
            updated_node = updated_node.with_changes(orelse=cst.Else(body=cst.IndentedBlock(
                body=[_keep(self.kept[orelse], orelse.test.visit(self).deep_clone()),
                      updated_node.orelse])))
        if original_node in self.kept and original_node not in self.elifs:
            return cst.FlattenSentinel([_keep(self.kept[original_node], test), updated_node])
        return updated_node


def _keep(name: str, test) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], test)])


def transform(func: cst.FunctionDef, ctx) -> cst.FunctionDef:
    if not any(type(n) is cst.Subscript for n in walk(func)):
        return func
    analysis = ctx.analyze(func)
    plan = _Plan(analysis)
    plan.block(func.body.body, [], {})
    if not plan.subscripts:
        return func
    kept = {node: ctx.namer.fresh("cond") for node in plan.kept_tests}
    elifs = {n.orelse for n in walk(func) if type(n) is cst.If and isinstance(n.orelse, cst.If)}
    return rewrite(func, _Guarded(plan, kept, elifs))
