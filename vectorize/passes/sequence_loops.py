"""Loops over per-example arrays become loops over their positions.

Assumes: scalar-style code; the analysis (``sequence_loops``: the ``for`` statements over
per-example arrays, with ``enumerate`` and ``zip`` taken apart).
Reads and writes no record (`records`).
Guarantees: ``for e in v`` over a per-example array ``v`` is a loop over ``range(len(v))``
that binds ``e = v[i]`` first thing in its body: every example has the same length (the batch
has one shape per argument), so the loop is a Python loop the passes after know how to batch
(its index is the same for every example; ``v[i]`` is a column of the batch).

    for e in v:                      for i in range(len(v)):
        total += e          ->           e = v[i]
                                         total += e

``enumerate(v)`` keeps the user's index (``for k, e in enumerate(v)`` -> ``for k in
range(len(v)): e = v[k]``), ``zip(v, w)`` runs to the shorter (``range(min(len(v),
len(w)))``). A sequence that is not a plain name, or a name the loop rebinds, is evaluated
once before the loop, as Python's ``for`` does (``seq = v[::-1]``). Element reads are views
and rows exactly as iterating the array gives them.
"""

from __future__ import annotations

import libcst as cst

from ..liveness import writes
from ..syntax.templates import expr
from ..syntax.traversal import by_type, rewrite


class _SequenceLoops(cst.CSTTransformer):
    def __init__(self, loops: dict, namer):
        self.loops = loops
        self.namer = namer

    def leave_For(self, original_node, updated_node):
        loop = self.loops.get(original_node)
        if loop is None:
            return updated_node
        assigned = set(writes(original_node.body))
        before, sequences = [], []
        for seq in loop.sequences:
            if isinstance(seq, cst.Name) and seq.value not in assigned:
                sequences.append(seq)
                continue
            name = cst.Name(self.namer.fresh("seq"))
            before.append(cst.SimpleStatementLine([cst.Assign(
                [cst.AssignTarget(name)], seq)]))
            sequences.append(name)
        index = loop.index if loop.index is not None else cst.Name(self.namer.fresh("i"))
        lengths = [expr("len({s})", s=s) for s in sequences]
        bound = lengths[0] if len(lengths) == 1 else cst.Call(
            cst.Name("min"), [cst.Arg(n, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(
                " ")) if k < len(lengths) - 1 else cst.MaybeSentinel.DEFAULT)
                for k, n in enumerate(lengths)])
        reads = [cst.SimpleStatementLine([cst.Assign(
            [cst.AssignTarget(target)], expr("{s}[{i}]", s=s, i=cst.Name(index.value)))])
            for target, s in zip(loop.targets, sequences)]
        body = updated_node.body.with_changes(body=reads + list(updated_node.body.body))
        new = updated_node.with_changes(
            target=cst.Name(index.value), iter=expr("range({n})", n=bound), body=body)
        if not before:
            return new
        return cst.FlattenSentinel([*before, new])


def transform(func: cst.FunctionDef, ctx) -> cst.FunctionDef:
    if cst.For not in by_type(func.body):
        return func
    analysis = ctx.analyze(func)
    if not analysis.sequence_loops:
        return func
    return rewrite(func, _SequenceLoops(analysis.sequence_loops, ctx.namer))

