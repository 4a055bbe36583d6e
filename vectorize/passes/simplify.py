"""Tidy what earlier passes left behind, as a person would have written it.

Assumes: scalar-style code.
Reads and writes no record (`records`).
Guarantees: the same per-example meaning. A batched expression computed again while the
variable it was assigned to still holds it (nothing it reads was reassigned) is replaced by
that variable (``tmp = t * b`` ... ``t * b`` -> ``tmp``); only operators and calls with a
batching rule count, so nothing with a side effect is ever merged. A variable the engine
made up (never one the user wrote) that is assigned once and read once, later in the same
block, with nothing in between reassigning what its value reads, is replaced by its value.
``np.errstate`` blocks whose code can no longer warn are unwrapped.



    result_if = y                       y = x * x
    result = result_if if c else z ->   return y if c else z
    return result
"""

from __future__ import annotations

import functools
import re

import libcst as cst

from ..analysis import may_warn
from ..liveness import changes, reads
from ..rules.python_errors import RAISE_LANE
from ..syntax.edit import with_body, with_changes
from ..syntax.templates import bare_code, render
from ..syntax.traversal import by_type, rewrite, statements, walk


class _Count:
    """How often each name is read and assigned in a function."""

    def __init__(self, func):
        self.reads: dict[str, int] = {}
        self.writes: dict[str, int] = {}
        for node in walk(func):
            if type(node) is cst.Name:
                self.reads[node.value] = self.reads.get(node.value, 0) + 1
            elif type(node) is cst.AssignTarget:
                for name in _names(node.target):
                    self.writes[name] = self.writes.get(name, 0) + 1
                    self.reads[name] = self.reads.get(name, 0) - 1   # counted as a Name too
            elif type(node) in (cst.AugAssign, cst.AnnAssign, cst.NamedExpr, cst.For,
                                cst.CompFor):
                # other writes (`v_if += e` reads and writes `v_if`: not a copy to forward)
                for name in _names(node.target):
                    self.writes[name] = self.writes.get(name, 0) + 1


def _names(target):
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in _names(e.value)]
    return []


class _Replace(cst.CSTTransformer):
    def __init__(self, name, value):
        self.name, self.value = name, value

    def leave_Name(self, original_node, updated_node):
        return self.value if updated_node.value == self.name else updated_node


def single_target_assign(stmt):
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        small = stmt.body[0]
        if isinstance(small, cst.Assign) and len(small.targets) == 1 \
                and isinstance(small.targets[0].target, cst.Name):
            return small.targets[0].target.value, small.value
    return None


def _substitute_once(stmts: list, generated: set, counts: _Count):
    for i, stmt in enumerate(stmts):
        found = single_target_assign(stmt)
        if not found:
            continue
        name, value = found
        if name not in generated or counts.writes.get(name) != 1 \
                or counts.reads.get(name) != 1:
            continue
        needed = reads(value)
        for j in range(i + 1, len(stmts)):
            later = stmts[j]
            if name in reads(later):
                if _is_lane_check(later) and name in reads(later.test):
                    # `if __raise_lane__(cond): raise ...`: the test reads it once, first
                    new = later.with_changes(test=rewrite(later.test, _Replace(name, value)))
                    return stmts[:i] + stmts[i + 1:j] + [new] + stmts[j + 1:]
                if not isinstance(later, cst.SimpleStatementLine):
                    break
                new = rewrite(later, _Replace(name, value))
                return stmts[:i] + stmts[i + 1:j] + [new] + stmts[j + 1:]
            if changes(later) & needed or not isinstance(later, cst.SimpleStatementLine):
                break
    return None


def _is_lane_check(stmt) -> bool:
    """``if __raise_lane__(...): raise ...`` (`guard_indices`)."""
    test = getattr(stmt, "test", None) if type(stmt) is cst.If else None
    return (type(test) is cst.Call and type(test.func) is cst.Name
            and test.func.value == RAISE_LANE and stmt.orelse is None)


def _is_pass(stmt) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
            and type(stmt.body[0]) is cst.Pass)


class _NestedChoice(cst.CSTTransformer):
    def leave_IfExp(self, original_node, updated_node):
        """``(x if b else y) if a else y`` -> ``x if a and b else y``."""
        inner, outer_else = updated_node.body, updated_node.orelse
        if isinstance(inner, cst.IfExp) and not inner.lpar and inner.orelse.deep_equals(
                outer_else) and isinstance(outer_else, cst.Name):
            test = cst.BooleanOperation(left=updated_node.test, operator=cst.And(),
                                        right=inner.test)
            return updated_node.with_changes(test=test, body=inner.body)
        return updated_node


class _Simplify(cst.CSTTransformer):
    def __init__(self, generated, counts):
        self.generated, self.counts = generated, counts

    def _block(self, updated_node):
        stmts = [s for s in updated_node.body if not _is_pass(s)] or list(updated_node.body)
        while True:
            new = _substitute_once(stmts, self.generated, self.counts)
            if new is None:
                return with_changes(updated_node, body=stmts)
            stmts = new

    def leave_IndentedBlock(self, original_node, updated_node):
        return self._block(updated_node)


class _DropNeedlessErrstate(cst.CSTTransformer):
    """``with np.errstate(...)`` whose body can no longer warn (after CSE) is unwrapped."""

    def __init__(self, analysis, registry):
        self.analysis, self.registry = analysis, registry

    def leave_With(self, original_node, updated_node):
        if (len(original_node.items) == 1
                and render(original_node.items[0].item).startswith(
                    self.registry.primitives.quiet_prefix)
                and not may_warn(original_node.body.body, self.analysis, self.registry)):
            return cst.FlattenSentinel(list(updated_node.body.body))
        return updated_node

    def _hoist(self, loop, head: list):
        """``while t: with np.errstate(all="ignore"): B`` -> the ``with`` around the loop:
        entered once instead of once per iteration (it costs microseconds, which a loop
        over a thousand lanes notices). Only when everything else the loop evaluates cannot
        warn, so no warning a live lane would give is silenced."""
        body = list(loop.body.body)
        silencer = self.registry.primitives.quiet
        quiet = [s for s in body if is_errstate(s, silencer)]
        if not quiet or loop.orelse is not None or len({render(s.items[0].item)
                                                        for s in quiet}) != 1:
            return loop
        rest = [s for s in body if not is_errstate(s, silencer)]
        if may_warn(head + rest, self.analysis, self.registry):
            return loop
        unwrapped = [part for s in body
                     for part in (s.body.body if is_errstate(s, silencer) else [s])]
        return quiet[0].with_changes(body=cst.IndentedBlock(
            body=[loop.with_changes(body=loop.body.with_changes(body=unwrapped))]),
            leading_lines=loop.leading_lines)

    def leave_While(self, original_node, updated_node):
        return self._hoist(updated_node, [cst.Expr(original_node.test)])

    def leave_For(self, original_node, updated_node):
        return self._hoist(updated_node, [cst.Expr(original_node.iter)])


def is_errstate(stmt, quiet: str) -> bool:
    """A ``with`` on exactly ``quiet`` (the namespace's silencing context)."""
    return (type(stmt) is cst.With and len(stmt.items) == 1
            and render(stmt.items[0].item) == quiet)


def transform(func: cst.FunctionDef, ctx) -> cst.FunctionDef:
    func = eliminate_common_subexpressions(func, ctx)
    if any(type(n) is cst.With for n in statements(func)):
        func = rewrite(func, _DropNeedlessErrstate(ctx.analyze(func), ctx.registry))
    counts = _Count(func)
    if any(counts.writes.get(name) == 1 and counts.reads.get(name) == 1
           for name in ctx.namer.generated) or _has_pass_lines(func):
        func = rewrite(func, _Simplify(ctx.namer.generated, counts))
    if any(type(n.body) is cst.IfExp for n in by_type(func).get(cst.IfExp, ())):
        func = rewrite(func, _NestedChoice())
    counts = _Count(func)
    dead = {name for name in ctx.namer.generated
            if counts.writes.get(name) and counts.reads.get(name, 0) <= 0}
    if dead:
        func = rewrite(func, _DropDeadCopies(dead))
    return func


class _DropDeadCopies(cst.CSTTransformer):
    """Copies into names the engine made up that nothing reads any more (a branch's
    ``c_if = b`` whose merge `if_to_where` dropped, ``c`` being dead after the ``if``):
    ``b_if, c_if = c, b`` -> ``b_if = c``. Only copies of names and constants, which
    evaluate nothing; the user's own names are kept."""

    def __init__(self, dead: set):
        self.dead = dead

    def leave_SimpleStatementLine(self, original_node, updated_node):
        if len(updated_node.body) != 1 or type(updated_node.body[0]) is not cst.Assign:
            return updated_node
        assign = updated_node.body[0]
        if len(assign.targets) != 1:
            return updated_node
        target, value = assign.targets[0].target, assign.value
        if type(target) is cst.Name:
            pairs = [(target, value)]
        elif type(target) is cst.Tuple and type(value) is cst.Tuple \
                and len(target.elements) == len(value.elements) \
                and all(type(e) is cst.Element for e in [*target.elements, *value.elements]):
            pairs = [(t.value, v.value) for t, v in zip(target.elements, value.elements)]
        else:
            return updated_node
        kept = [(t, v) for t, v in pairs if not (
            type(t) is cst.Name and t.value in self.dead and _copy_of_nothing(v))]
        if len(kept) == len(pairs):
            return updated_node
        if not kept:
            return cst.RemovalSentinel.REMOVE
        if len(kept) == 1:
            new_target, new_value = _bare(kept[0][0]), _bare(kept[0][1])
        else:
            new_target = target.with_changes(elements=[
                cst.Element(t) for t, _ in kept[:-1]] + [cst.Element(kept[-1][0])])
            new_value = value.with_changes(elements=[
                cst.Element(v) for _, v in kept[:-1]] + [cst.Element(kept[-1][1])])
        return updated_node.with_changes(body=[assign.with_changes(
            targets=[assign.targets[0].with_changes(target=new_target)], value=new_value)])


    def leave_IndentedBlock(self, original_node, updated_node):
        if updated_node.body:
            return updated_node
        return updated_node.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])


def _copy_of_nothing(value) -> bool:
    """A name or a constant: evaluating it has no effect."""
    return type(value) in (cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString) \
        or (type(value) is cst.UnaryOperation and type(value.expression) in (
            cst.Integer, cst.Float))


def _bare(node):
    return node.with_changes(lpar=[], rpar=[]) if getattr(node, "lpar", None) else node


def _has_pass_lines(func) -> bool:
    return any(type(n) is cst.IndentedBlock and len(n.body) > 1 and any(map(_is_pass, n.body))
               for n in statements(func))


# --------------------------------------------------------------------------------------------
# Common subexpressions: `tmp = t * b` ... `t * b` -> `tmp`, while t, b and tmp are unchanged.

_CSE_TYPES = (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.Call)
IMPURE_TYPES = (cst.Lambda, cst.NamedExpr, cst.Yield, cst.Await)


def _pure(expr, analysis, registry) -> bool:
    """Only operators, names, constants and calls of functions with a batching rule (not
    of a range whose length differs per example: a reduction must hold it in place)."""
    for n in walk(expr):
        if type(n) is cst.Call:
            fn = getattr(analysis.values.get(n.func), "example", None)
            rule = registry.for_call(fn) if fn is not None else None
            if rule is None or (rule.ragged and n in analysis.ragged):
                return False
        elif type(n) in IMPURE_TYPES:
            return False
    return True


class _UseAvailable(cst.CSTTransformer):
    def __init__(self, available):
        self.available = available   # rendered expression -> variable holding its value

    def on_leave(self, original_node, updated_node):
        if type(original_node) in _CSE_TYPES:
            name = self.available.get(bare_code(original_node))
            if name is not None:
                return cst.Name(name).with_changes(lpar=original_node.lpar,
                                                   rpar=original_node.rpar)
        return updated_node


class _CommonSubexpressions:
    def __init__(self, analysis, registry):
        self.analysis, self.registry = analysis, registry

    def block(self, stmts, available: dict) -> list:
        out = []
        for stmt in stmts:
            if type(stmt) is cst.SimpleStatementLine:
                used = reads(stmt)
                candidates = {key: name for key, name in available.items()
                              if _names_of(key) <= used}
                if candidates:
                    # an expression's key is part of its line's text
                    text = render(stmt)
                    candidates = {key: name for key, name in candidates.items() if key in text}
                new = rewrite(stmt, _UseAvailable(candidates)) if candidates else stmt
                out.append(new)
                self._kill(available, changes(stmt))
                found = single_target_assign(new)
                if found and type(found[1]) in _CSE_TYPES:
                    name, value = found
                    if name not in reads(value) and getattr(
                            self.analysis.values.get(single_target_assign(stmt)[1]),
                            "batched", False) and _pure(value, self.analysis, self.registry):
                        available[bare_code(value)] = name
                continue
            written = changes(stmt)
            if type(stmt) in (cst.For, cst.While):
                self._kill(available, written)
            if isinstance(stmt, (cst.If, cst.With, cst.For, cst.While)):
                stmt = self._compound(stmt, available)
            self._kill(available, written)
            out.append(stmt)
        return out

    def _compound(self, stmt, available):
        stmt = with_body(stmt, self.block(list(stmt.body.body), dict(available)))
        orelse = getattr(stmt, "orelse", None)
        if isinstance(orelse, cst.Else):
            new = with_body(orelse, self.block(list(orelse.body.body), dict(available)))
        elif isinstance(orelse, cst.If):
            new = self._compound(orelse, available)
        else:
            return stmt
        return stmt if new is orelse else stmt.with_changes(orelse=new)

    @staticmethod
    def _kill(available, written):
        if not written:
            return
        for key, name in list(available.items()):
            if name in written or any(w in key for w in written):
                if name in written or written & _names_of(key):
                    del available[key]


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


@functools.lru_cache(maxsize=4096)
def _names_of(code: str) -> frozenset:
    return frozenset(_IDENTIFIER.findall(code)) - {"np", "math"}


def eliminate_common_subexpressions(func, ctx):
    analysis = ctx.analyze(func)
    return with_body(func, _CommonSubexpressions(analysis, ctx.registry).block(
        list(func.body.body), {}))
