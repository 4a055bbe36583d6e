"""Lower ``return`` under batched conditions into single-exit form.

Assumes: scalar-style code; the current analysis (which ``if`` tests are batched).
Reads: `records.MaskedLoopFacts` (the placeholders: a result no lane returns). Writes: no
record.
Guarantees: when some ``return`` sits under a batched condition, the function ends in exactly
one ``return``; every other ``return`` became an assignment of the result variable, and the
statements that followed a conditional ``return`` moved into the branch that falls through
(duplicated only when both branches can fall through and they are few; more run after the
``if`` under ``if not returned:``, a flag its returns set: `continuations.COPY_LIMIT`). The
code is still scalar-style code with the same per-example meaning, so later passes can
analyse it again.

    if x < 0:                       if x < 0:
        return 0.0                      result = 0.0
    y = x * 2             ->        else:
    return y                            y = x * 2
                                        result = y
                                    return result

When every ``return`` returns the same variable, that variable is the result (``return y``
becomes nothing at all: ``y`` already holds the value).
"""

from __future__ import annotations

import libcst as cst

from ..abstract import TupleValue
from ..errors import Unsupported
from ..liveness import exposed_reads, writes
from ..loops.placeholders import has_literal, literal_for
from ..syntax.edit import unparenthesized
from ..syntax.traversal import statements
from .batch_rules import is_docstring as _is_docstring
from .continuations import ContinuationLowering, check_returned_shapes
from .records import MaskedLoopFacts


def _has_return(node) -> bool:
    return any(type(n) is cst.Return for n in statements(node))


def _single_line(small) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([small])


class _Lowering(ContinuationLowering):
    exits = (cst.Return,)

    def __init__(self, result: str, same_name: bool, namer=None, analysis=None):
        self.result = result
        self.same_name = same_name
        self.namer = namer        # flags for long continuations (None: always copied)
        self.analysis = analysis
        self.flagged = False

    def can_guard(self, stmt: cst.If, after: list) -> bool:
        """Not where what runs after reads a name the ``if`` binds that may be unbound on
        the paths that return (it is bound on those that fall through, where a copy of the
        statements would run): the select form would merge it where it may have no value."""
        before = self.analysis.defined_before.get(stmt)
        return before is not None and not (writes(stmt) - before) & exposed_reads(after)

    def flag(self) -> str | None:
        if self.namer is None:
            return None
        self.flagged = True
        return self.namer.fresh("returned")

    def holds_exit(self, stmt) -> bool:
        return _has_return(stmt)

    def exit_for(self, ret: cst.Return, tail) -> list:
        if self.same_name:
            return []    # the variable already holds the result
        value = ret.value if ret.value is not None else cst.Name("None")
        return [_single_line(cst.Assign([cst.AssignTarget(cst.Name(self.result))],
                                        unparenthesized(value)
                                        if isinstance(value, cst.Tuple) else value))]


def _no_placeholder_returned(analysis, returns, loop_return) -> None:
    """Every path returns the result a loop set (the loop is left by ``return`` only): where
    no lane runs it (an empty batch, or a helper called on none of its lanes) the function
    returns the loop's placeholder, a number where the examples have arrays (`masked_loops`),
    so the shape of what it returns is unknown there."""
    for node, value in analysis.returns:
        items = value.items if isinstance(value, TupleValue) else (value,)
        if node in returns and any(getattr(v, "rank", 0) > 0 for v in items):
            raise Unsupported("an array returned from a loop that every example leaves by "
                              "`return`: where no example runs the loop (an empty batch) "
                              "the shape of the result is unknown", loop_return,
                              "give the result a value of its shape before the loop (an "
                              "array of zeros like it), set it and leave the loop with "
                              "`break`, and return it after the loop")


def transform(func: cst.FunctionDef, ctx) -> cst.FunctionDef:
    analysis = ctx.analyze(func)
    if not analysis.batched_returns:
        return func
    check_returned_shapes(analysis)
    returns, loops = [], []
    for n in statements(func):
        if type(n) is cst.Return:
            returns.append(n)
        elif type(n) in (cst.For, cst.While):
            loops.append(n)
    if any(map(_has_return, loops)):
        raise Unsupported("`return` inside a loop in a function whose result depends on a "
                          "per-example condition is not supported yet", func,
                          "compute the value in the loop and return after it")
    values = [r.value for r in returns]
    same = (values and all(isinstance(v, cst.Name) for v in values)
            and len({v.value for v in values}) == 1)
    result = values[0].value if same else ctx.namer.fresh("result")
    placeholders = MaskedLoopFacts.get(ctx).placeholders
    if same and result in placeholders:
        _no_placeholder_returned(analysis, returns, placeholders[result])
    # a long continuation runs after the `if` under a flag instead of being copied into both
    # branches (`continuations.COPY_LIMIT`), where `result` can have a value before: a
    # literal of the type of what the function returns
    guarded = bool(same) or has_literal(analysis.result)
    lowering = _Lowering(result, bool(same), ctx.namer if guarded else None, analysis)
    body = lowering.seq(list(func.body.body), lambda: [])
    if lowering.flagged and not same:
        at = 1 if body and _is_docstring(body[0]) else 0
        body.insert(at, _single_line(cst.Assign([cst.AssignTarget(cst.Name(result))],
                                                cst.parse_expression(
                                                    literal_for(analysis.result)))))
    body.append(_single_line(cst.Return(cst.Name(result))))
    return func.with_changes(body=func.body.with_changes(body=body))
