"""Indexes that Python evaluates on some examples only are kept in bounds on the others.

Assumes: scalar-style code in which returns under batched conditions are lowered and masked
loops are ``if active:`` blocks (`masked_loops`, `early_return`); the current analysis.
Reads and writes no record (`records`).
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

A ``raise`` that Python reaches on some examples only (`Analysis.lane_raises`) becomes
``if __raise_lane__(guard): raise ...``: per example ``guard`` holds wherever Python gets
there, so the meaning is unchanged; on a batch it raises where any example would, and never
for lanes Python keeps out (dead branches, finished lanes of masked loops):

    if x < 0:                                  if x < 0:
        raise ValueError("negative")   ->          if __raise_lane__(x < 0):
                                                       raise ValueError("negative")
"""

from __future__ import annotations

import libcst as cst

from ..liveness import reads, target_names, writes
from ..rules.lanes import FIRST_LANE, LANE, WARN_LANES
from ..rules.python_errors import RAISE_LANE
from ..syntax.traversal import by_type, children, rewrite, walk


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
        self.raises: dict[cst.Raise, list[_Guard]] = {}
        # (and `warnings.warn` / `logging` calls there: warned if any example would)
        self.lane_raises = set(analysis.lane_raises) | set(analysis.lane_warnings)
        # per-example parts of the exception of such a raise -> the raise (they are read
        # from the first example that raises)
        self.picks: dict[cst.CSTNode, cst.Raise] = {}
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
                if small in self.lane_raises and guards:
                    self.raises[small] = self.usable(guards, versions)
                    parts = (small.exc, small.cause) if type(small) is cst.Raise else (
                        small.value,)
                    for part in parts:
                        for picked in self._per_example_parts(part):
                            self.picks[picked] = small
                for child in children(small):
                    if not isinstance(child, cst.AssignTarget):
                        self.expr(child, guards, versions)
                    else:
                        # `y[k] = v` on some lanes: their index is kept in bounds too (the
                        # write is masked by `if_to_where`), not a name it binds
                        for item in _items_written(child.target):
                            self.expr(item, guards, versions)
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

    def _per_example_parts(self, node):
        """The largest per-example subexpressions of ``node``."""
        if node is None:
            return
        if isinstance(node, cst.BaseExpression) and _batched(self.analysis, node) and \
                type(node) not in (cst.Tuple, cst.List):     # `"%s %s" % (x, y)`: each item
            yield node
            return
        for child in children(node):
            yield from self._per_example_parts(child)

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


def _items_written(target) -> list:
    """The items of arrays an assignment target writes into (``y[k]``, and those in a tuple
    target)."""
    if type(target) is cst.Subscript:
        return [target]
    if type(target) in (cst.Tuple, cst.List):
        return [i for e in target.elements for i in _items_written(e.value)]
    return []


def _bump(versions: dict, names) -> None:
    for name in names:
        versions[name] = versions.get(name, 0) + 1


class _Guarded(cst.CSTTransformer):
    def __init__(self, plan: _Plan, kept: dict[cst.If, str], elifs: set, namer,
                 warns_per_lane: bool = False, replay_warnings: bool = False):
        self.plan = plan
        self.warns_per_lane = warns_per_lane
        # a helper's warning under a per-example condition (`vectorize`): the helper cannot
        # tell which lanes its caller keeps, so where the condition holds on some lane it
        # raises, and `vectorize` replays the loop, whose examples warn as Python does
        self.replay_warnings = replay_warnings
        self.kept = kept            # `if` -> the name its test is kept in
        self.elifs = elifs
        # raise -> (name of its guard's value, name of the first lane that raises)
        self.lanes = {small: (namer.fresh("failed"), namer.fresh("lane"))
                      for small in set(plan.picks.values())}
        if replay_warnings:
            self.lanes.update({small: (namer.fresh("failed"), namer.fresh("lane"))
                               for small in plan.raises if type(small) is cst.Expr
                               and small not in self.lanes})

    def _picked(self, original, updated):
        """A per-example part of an exception: the value of the first example that raises."""
        small = self.plan.picks.get(original)
        if small is None:
            return updated
        return cst.Call(cst.Name(LANE), [cst.Arg(updated),
                                         cst.Arg(cst.Name(self.lanes[small][1]))])

    def conjunction(self, guards, flip: bool = False) -> cst.BaseExpression:
        """``g1 and g2 ...`` of the guards (without the ``not`` of each, ``flip``)."""
        test = None
        for guard in guards:
            part = self.condition(guard)
            if flip:
                part = part.expression
            test = part if test is None else cst.BooleanOperation(
                left=test, operator=cst.And(), right=part)
        return test

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
            return self._picked(original_node, updated_node)
        flip = len(guards) == 1 and guards[0].negated   # `0 if t else i`, not `not t`
        test = self.conjunction(guards, flip)
        elements = []
        for original, element in zip(original_node.slice, updated_node.slice):
            if isinstance(element.slice, cst.Index) and _batched(self.plan.analysis,
                                                                 original.slice.value):
                value = self.plan.analysis.values.get(original.slice.value)
                # (a truth value per example selects all of `y` or nothing: `False` keeps
                # the other lanes' write from writing anything, where 0 would be an index)
                zero = cst.Name("False") if getattr(value, "kind", None) == "b" and getattr(
                    value, "rank", None) == 0 else cst.Integer("0")
                index = element.slice.value
                index = cst.IfExp(test=test.deep_clone(), body=zero if flip else index,
                                  orelse=index if flip else zero)
                element = element.with_changes(slice=element.slice.with_changes(value=index))
            elements.append(element)
        return self._picked(original_node, updated_node.with_changes(slice=elements))

    def leave_SimpleStatementLine(self, original_node, updated_node):
        """``raise E`` that some examples reach -> ``if __raise_lane__(guard): raise E``."""
        guarded = [self.plan.raises.get(small) for small in original_node.body]
        if not any(guarded):
            return updated_node
        lines, before = [], []
        for original, small, guards in zip(original_node.body, updated_node.body, guarded):
            if not guards:
                before.append(small)
                continue
            if before:
                lines.append(updated_node.with_changes(body=before))
                before = []
            test = self.conjunction(guards)
            body = [cst.SimpleStatementLine([small])]
            if original in self.lanes and type(original) is cst.Expr and self.replay_warnings:
                body = [cst.parse_statement(
                    'raise RuntimeError("a warning of a helper on some lane: the loop decides '
                    'which examples warn")\n')]
            if original in self.lanes and type(original) is cst.Expr and (
                    self.warns_per_lane or self.replay_warnings):
                # a warning with a per-example message: issued for each example that takes
                # the branch, in order, as the loop issues it (the filter then decides)
                failed, lane = self.lanes[original]
                lines.append(_keep(failed, test).with_changes(
                    leading_lines=updated_node.leading_lines if not lines else ()))
                lines.append(cst.For(
                    target=cst.Name(lane),
                    iter=cst.Call(cst.Name(WARN_LANES), [cst.Arg(cst.Name(failed))]),
                    body=cst.IndentedBlock(body)))
                continue
            if original in self.lanes:
                # failed = <guard>; if __raise_lane__(failed): lane = __first_lane__(failed)
                failed, lane = self.lanes[original]
                lines.append(_keep(failed, test))
                test = cst.Name(failed)
                body.insert(0, _keep(lane, cst.Call(cst.Name(FIRST_LANE),
                                                    [cst.Arg(cst.Name(failed))])))
            lines.append(cst.If(
                test=cst.Call(cst.Name(RAISE_LANE), [cst.Arg(test)]),
                body=cst.IndentedBlock(body),
                leading_lines=updated_node.leading_lines if not lines else ()))
        if before:
            lines.append(updated_node.with_changes(body=before))
        return cst.FlattenSentinel(lines)

    def leave_If(self, original_node, updated_node):
        test = updated_node.test
        if original_node in self.kept:
            updated_node = updated_node.with_changes(test=cst.Name(self.kept[original_node]))
        orelse = original_node.orelse
        if isinstance(orelse, cst.If) and orelse in self.kept:
            # `elif t:` -> `else:` / `cond = t` / `if cond:` (t runs where Python runs it)
            kept = _keep(self.kept[orelse], orelse.test.visit(self).deep_clone())
            rest = updated_node.orelse
            updated_node = updated_node.with_changes(orelse=cst.Else(body=cst.IndentedBlock(
                body=[kept] + (list(rest.body.body) if type(rest) is cst.Else else [rest]))))
        statements = self._without_raising_branch(original_node, updated_node)
        if original_node in self.elifs:
            if statements is None:
                return updated_node
            return cst.Else(body=cst.IndentedBlock(statements))
        if statements is None:
            statements = [_merged(updated_node)]
        if original_node in self.kept:
            statements = [_keep(self.kept[original_node], test)] + statements
        return statements[0] if len(statements) == 1 else cst.FlattenSentinel(statements)

    def _raises(self, block) -> bool:
        """Whether an (original) branch ends in a ``raise`` that some examples reach, or in
        a per-example ``if`` every branch of which does (`_chain_raises`)."""
        last = block.body[-1] if block.body else None
        return type(last) is cst.SimpleStatementLine and type(last.body[-1]) is cst.Raise \
            and last.body[-1] in self.plan.raises or type(last) is cst.If and \
            self._chain_raises(last)

    def _ends_in_chain(self, block) -> bool:
        return bool(block.body) and type(block.body[-1]) is cst.If

    def _chain_raises(self, node: cst.If) -> bool:
        """Whether every branch of an (original) ``if``/``elif``/``else`` chain ends in
        such a ``raise``."""
        orelse = node.orelse
        return self.plan.analysis.batched_tests.get(node, False) and \
            self._raises(node.body) and (
                type(orelse) is cst.Else and self._raises(orelse.body) or
                type(orelse) is cst.If and self._chain_raises(orelse))

    def _without_raising_branch(self, original, updated) -> list | None:
        """A per-example ``if`` one of whose branches ends in such a ``raise``: that branch,
        under ``if __raise_lane__(guard):``, then the other branch's statements, which every
        example that does not raise runs (the validity check ``if x < 0: raise ...``
        before the code for valid examples); None for any other ``if``."""
        if not self.plan.analysis.batched_tests.get(original, False):
            return None
        if self._raises(original.body):
            raising, orelse = list(updated.body.body), updated.orelse
            rest = [] if orelse is None else (
                [orelse.with_changes(leading_lines=())] if type(orelse) is cst.If
                else list(orelse.body.body))
            chain = self._ends_in_chain(original.body)
        elif type(original.orelse) is cst.Else and self._raises(original.orelse.body):
            raising, rest = list(updated.orelse.body.body), list(updated.body.body)
            chain = self._ends_in_chain(original.orelse.body)
        elif type(original.orelse) is cst.If and self._chain_raises(original.orelse) and \
                type(updated.orelse) is cst.Else:
            # `elif a: raise ... else: raise ...`: the chain is its checks already, each
            # `if __raise_lane__(guard):` with its own statements (`leave_If` of the elif),
            # which every example that raises meets; the other branch runs after them
            out = [*updated.orelse.body.body, *updated.body.body]
            out[0] = out[0].with_changes(leading_lines=updated.leading_lines)
            return out
        else:
            return None
        if chain:
            # the branch ends in an `if` all of whose branches raise: its checks already,
            # each `if __raise_lane__(guard):` with its own statements, which every example
            # that raises meets; the other branch runs after them
            out = [*raising, *rest]
            out[0] = out[0].with_changes(leading_lines=updated.leading_lines)
            return out
        check = raising[-1]  # `if __raise_lane__(guard): raise ...` (leave_SimpleStatementLine)
        failed = [] if len(raising) < 2 or not _assigns_to(raising[-2], check.test) else [
            raising.pop(-2)]      # `failed = <guard>` before it
        check = check.with_changes(body=check.body.with_changes(
            body=raising[:-1] + list(check.body.body)))
        out = [*failed, check, *rest]
        out[0] = out[0].with_changes(leading_lines=updated.leading_lines)
        return out


class _GuardedAndPicked(_Guarded):
    """`_Guarded` where exceptions are made from per-example values: every expression kind
    such a value can be is looked at (`_picked`)."""

    leave_Name = leave_Attribute = leave_Call = leave_BinaryOperation = _Guarded._picked
    leave_UnaryOperation = leave_Comparison = leave_BooleanOperation = _Guarded._picked
    leave_IfExp = leave_Tuple = leave_List = _Guarded._picked


def _merged(node: cst.If) -> cst.If:
    """``if a:`` whose whole body is ``if __raise_lane__(g): raise ...`` (a check the same
    for every example under per-example conditions) -> ``if a and __raise_lane__(g):``."""
    body = node.body.body
    if node.orelse is not None or len(body) != 1 or type(body[0]) is not cst.If:
        return node
    inner = body[0]
    test = inner.test
    if inner.orelse is not None or not (type(test) is cst.Call and type(test.func) is cst.Name
                                        and test.func.value == RAISE_LANE):
        return node
    return node.with_changes(test=cst.BooleanOperation(node.test, cst.And(), test),
                             body=inner.body)


def _assigns_to(stmt, test) -> bool:
    """Whether ``stmt`` is ``failed = ...`` for the check ``if __raise_lane__(failed):``."""
    arg = test.args[0].value
    return (type(arg) is cst.Name and type(stmt) is cst.SimpleStatementLine
            and type(stmt.body[0]) is cst.Assign
            and getattr(stmt.body[0].targets[0].target, "value", None) == arg.value)


def _keep(name: str, test) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], test)])


def transform(func: cst.FunctionDef, ctx) -> cst.FunctionDef:
    if not any(kind in by_type(func) for kind in (cst.Subscript, cst.Raise, cst.Expr)):
        return func
    analysis = ctx.analyze(func)
    plan = _Plan(analysis)
    plan.block(func.body.body, [], {})
    if not plan.subscripts and not plan.raises:
        return func
    kept = {node: ctx.namer.fresh("cond") for node in plan.kept_tests}
    elifs = {n.orelse for n in walk(func) if type(n) is cst.If and isinstance(n.orelse, cst.If)}
    guarded = _GuardedAndPicked if plan.picks else _Guarded
    return rewrite(func, guarded(plan, kept, elifs, ctx.namer,
                                 getattr(ctx.registry.backend, "warns_per_lane", False),
                                 ctx.helper and getattr(ctx.module, "python_semantics", False)))
