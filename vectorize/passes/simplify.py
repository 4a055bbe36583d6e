"""Tidy what earlier passes left behind, as a person would have written it.

Assumes: scalar-style code.
Guarantees: the same per-example meaning. A variable the engine made up (never one the user
wrote) that is assigned once and read once, later in the same block, with nothing in between
reassigning what its value reads, is replaced by its value:

    result_if = y                       y = x * x
    result = result_if if c else z ->   return y if c else z
    return result
"""

from __future__ import annotations

import libcst as cst

from ..cst_util import walk
from ..liveness import reads, writes


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


def _single_target_assign(stmt):
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        small = stmt.body[0]
        if isinstance(small, cst.Assign) and len(small.targets) == 1 \
                and isinstance(small.targets[0].target, cst.Name):
            return small.targets[0].target.value, small.value
    return None


def _substitute_once(stmts: list, generated: set, counts: _Count):
    for i, stmt in enumerate(stmts):
        found = _single_target_assign(stmt)
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
                if not isinstance(later, cst.SimpleStatementLine):
                    break
                new = later.visit(_Replace(name, value))
                return stmts[:i] + stmts[i + 1:j] + [new] + stmts[j + 1:]
            if writes(later) & needed or not isinstance(later, cst.SimpleStatementLine):
                break
    return None


def _is_pass(stmt) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
            and isinstance(stmt.body[0], cst.Pass))


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
                return updated_node.with_changes(body=stmts)
            stmts = new

    def leave_IndentedBlock(self, original_node, updated_node):
        return self._block(updated_node)


def transform(func: cst.FunctionDef, ctx) -> cst.FunctionDef:
    counts = _Count(func)
    func = func.visit(_Simplify(ctx.namer.generated, counts))
    return func.visit(_NestedChoice())
