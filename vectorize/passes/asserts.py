"""``assert`` statements become the ``raise`` they stand for.

Assumes: scalar-style code, not yet analysed.
Reads and writes no record (`records`).
Guarantees: ``assert test, message`` is ``if not test: raise AssertionError(message)``, which
is what Python runs (unless it runs with ``-O``, where asserts are dropped: so are they here).
An assert on per-example values is then a ``raise`` under a per-example condition, which
`guard_indices` checks on the lanes that get there, with the message made from the values of
the first example that fails.

    assert x >= 0, f"negative: {x}"     ->     if not x >= 0:
                                                   raise AssertionError(f"negative: {x}")
"""

from __future__ import annotations

import libcst as cst

from ..syntax.traversal import by_type, rewrite


class _Asserts(cst.CSTTransformer):
    def leave_SimpleStatementLine(self, original_node, updated_node):
        if not any(type(small) is cst.Assert for small in updated_node.body):
            return updated_node
        out, before = [], []
        for small in updated_node.body:
            if type(small) is not cst.Assert:
                before.append(small)
                continue
            if before:
                out.append(updated_node.with_changes(body=before, leading_lines=()))
                before = []
            if not __debug__:
                continue
            exc = cst.Name("AssertionError")
            if small.msg is not None:
                exc = cst.Call(exc, [cst.Arg(small.msg)])
            test = cst.UnaryOperation(cst.Not(), small.test)
            out.append(cst.If(test=test, body=cst.IndentedBlock(
                [cst.SimpleStatementLine([cst.Raise(exc=exc)])])))
        if before:
            out.append(updated_node.with_changes(body=before, leading_lines=()))
        if not out:
            return cst.RemoveFromParent()
        out[0] = out[0].with_changes(leading_lines=updated_node.leading_lines)
        return cst.FlattenSentinel(out)


def transform(func: cst.FunctionDef, ctx) -> cst.FunctionDef:
    if cst.Assert not in by_type(func.body):
        return func
    return rewrite(func, _Asserts())
