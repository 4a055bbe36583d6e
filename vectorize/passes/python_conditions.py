"""Conditions the same for every example stay Python's, and are evaluated only where Python
evaluates them.

Assumes: scalar-style code; the current analysis (``decided``: the tests known exactly for
this specialization).
Reads and writes no record (`records`).
Guarantees: an ``if``, ``elif``, ``while``, conditional expression or ``and``/``or`` whose test
is known exactly (a literal, a global, an argument the code is specialized on: ``w is not
None`` with ``w=None``, ``method == "d8"``) keeps only the code that runs for it (a branch that
cannot run is neither analysed nor emitted). An ``and``/``or`` whose left side is the same for
every example but not known exactly, and whose right side differs per example, becomes a
conditional expression, so that the right side is evaluated only where Python evaluates it
(``j + 1 < len(v) and v[j + 1] <= x`` must not index past the end when the guard is false):

    if w is not None:                          return x
        return x / w          (w=None)  ->
    return x

    ok = j + 1 < len(v) and v[j + 1] <= x  ->  ok = v[j + 1] <= x if j + 1 < len(v) else False

A bool left side gives ``False`` (``and``) or ``True`` (``or``) where Python stops; another one
is repeated when it is a name (``b if a else a``), and left alone otherwise.
"""

from __future__ import annotations

import libcst as cst

from ..syntax.edit import unparenthesized
from ..syntax.traversal import by_type, rewrite

_PASS = cst.SimpleStatementLine([cst.Pass()])


def _parenthesized_like(node, outer):
    """``node`` in place of ``outer``, keeping ``outer``'s parentheses (a line break inside
    them stays legal)."""
    if outer.lpar and not node.lpar:
        return node.with_changes(lpar=outer.lpar, rpar=outer.rpar)
    return node


class _Conditions(cst.CSTTransformer):
    def __init__(self, analysis, elifs: set):
        self.analysis = analysis
        self.decided = analysis.decided
        self.elifs = elifs
        self.made: set[int] = set()    # conditional expressions made from `and`/`or`

    def _chain(self, original: cst.If, updated: cst.If) -> list:
        """The statements an ``if``/``elif`` chain leaves once its decided tests are gone."""
        outcome = self.decided.get(original)
        if outcome is True:
            return list(updated.body.body)
        orelse = updated.orelse
        if outcome is False:
            if orelse is None:
                return []
            if type(orelse) is cst.If:
                return self._chain(original.orelse, orelse)
            return list(orelse.body.body)
        if type(orelse) is cst.If:
            rest = self._chain(original.orelse, orelse)
            if not rest:
                updated = updated.with_changes(orelse=None)
            elif len(rest) == 1 and type(rest[0]) is cst.If:
                updated = updated.with_changes(orelse=rest[0])
            else:
                updated = updated.with_changes(orelse=cst.Else(cst.IndentedBlock(rest)))
        return [updated]

    def leave_If(self, original_node, updated_node):
        if original_node in self.elifs:
            return self._strip_made(updated_node, "test")   # its `if` resolves the chain
        statements = self._chain(original_node, updated_node)
        if self.decided.get(original_node) is None:
            return self._strip_made(statements[0], "test")
        if not statements:
            return cst.RemoveFromParent()
        return cst.FlattenSentinel(statements)

    def leave_While(self, original_node, updated_node):
        if self.decided.get(original_node) is not False:
            return self._strip_made(updated_node, "test")
        if updated_node.orelse is None:
            return cst.RemoveFromParent()
        return cst.FlattenSentinel(list(updated_node.orelse.body.body))

    def leave_IndentedBlock(self, original_node, updated_node):
        if not updated_node.body:
            return updated_node.with_changes(body=[_PASS])
        return updated_node

    def leave_IfExp(self, original_node, updated_node):
        outcome = self.decided.get(original_node)
        if outcome is None:
            return updated_node
        return _parenthesized_like(updated_node.body if outcome else updated_node.orelse,
                                   updated_node)

    def leave_BooleanOperation(self, original_node, updated_node):
        is_and = type(original_node.operator) is cst.And
        outcome = self.decided.get(original_node)
        if outcome is not None:
            kept = updated_node.left if outcome != is_and else updated_node.right
            return _parenthesized_like(kept, updated_node)
        values = self.analysis.values
        left, right = values.get(original_node.left), values.get(original_node.right)
        if not (getattr(right, "batched", False) and left is not None
                and not left.batched and left.known):
            return updated_node
        a, b = updated_node.left, updated_node.right
        if left.kind == "b":
            stop = cst.Name("False" if is_and else "True")
        elif type(a) is cst.Name:
            stop = a
        else:
            return updated_node
        choice = cst.IfExp(test=a, body=b if is_and else stop, orelse=stop if is_and else b,
                           lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        self.made.add(id(choice))
        return choice

    # a conditional expression made here needs its parentheses only inside an expression
    def _strip_made(self, node, field: str):
        value = getattr(node, field)
        if id(value) in self.made:
            return node.with_changes(**{field: unparenthesized(value)})
        return node

    def leave_Assign(self, original_node, updated_node):
        return self._strip_made(updated_node, "value")

    def leave_Return(self, original_node, updated_node):
        return self._strip_made(updated_node, "value") if updated_node.value else updated_node


def transform(func: cst.FunctionDef, ctx) -> cst.FunctionDef:
    kinds = (cst.If, cst.While, cst.IfExp, cst.BooleanOperation)
    if not any(kind in by_type(func.body) for kind in kinds):
        return func
    analysis = ctx.analyze(func)
    elifs = {n.orelse for n in by_type(func).get(cst.If, ()) if type(n.orelse) is cst.If}
    return rewrite(func, _Conditions(analysis, elifs))
