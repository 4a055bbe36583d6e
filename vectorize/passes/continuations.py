"""Exits lowered into branches: what `early_return` and `masked_loops` share (not a pass).

A statement sequence with exits in it (``return``; in a loop body also ``break`` and
``continue``) becomes one with none: each exit is replaced by what it stands for (an
assignment of the result, clearing the loop's mask...), and the statements that followed an
``if`` holding an exit move into its branches that fall through -- the *continuation*,
duplicated only when both branches can fall through; a tail both branches end with is hoisted
after the ``if`` again. Every path that falls off the end of the sequence continues with
``tail()``.

    if c:                      if c:
        <exit>                     <the exit's lowering>
    rest              ->       else:
                                   rest
                                   <tail>
"""

from __future__ import annotations

import libcst as cst

from ..abstract import TupleValue
from ..cst_util import hoist_common_tail
from ..errors import Unsupported


def check_returned_shapes(analysis) -> None:
    """Returns that become one result chosen per example need each value's shape: a value
    the same for every example that comes from a call the engine cannot look into is
    refused where it is returned (guessed a number, it would broadcast against the batch)."""
    for ret, value in analysis.returns:
        items = value.items if isinstance(value, TupleValue) else (value,)
        if any(not item.batched and not item.known for item in items
               if not isinstance(item, TupleValue)):
            raise Unsupported("cannot tell the shape of this returned value (it is the same "
                              "for every example and comes from a call the engine cannot "
                              "look into), and the function returns it on some examples "
                              "only", ret.value if ret.value is not None else ret,
                              "give it a known type (convert it with float(...), or to a "
                              "NumPy array), or compute it outside the function")


class ContinuationLowering:
    """Subclasses say which small statements are exits (`exits`), whether a compound statement
    holds one (`holds_exit`) and what an exit becomes (`exit_for`)."""

    exits: tuple[type, ...] = ()      # (exact types: libcst's statement classes)

    def holds_exit(self, stmt: cst.If) -> bool:
        raise NotImplementedError

    def exit_for(self, small, tail) -> list:
        """The statements an exit becomes; ``tail`` is what follows where it falls through."""
        raise NotImplementedError

    def seq(self, stmts: list, tail) -> list:
        """Lower ``stmts``; every path that falls off their end continues with ``tail()``."""
        out: list = []
        for i, stmt in enumerate(stmts):
            if type(stmt) is cst.SimpleStatementLine and any(
                    type(s) in self.exits for s in stmt.body):
                before = []
                for small in stmt.body:
                    if type(small) in self.exits:
                        if before:
                            out.append(stmt.with_changes(body=before))
                        return out + self.exit_for(small, tail)
                    before.append(small)
            if type(stmt) is cst.If and self.holds_exit(stmt):
                rest = stmts[i + 1:]

                def continuation(rest=rest):
                    return self.seq([s.deep_clone() for s in rest], tail)
                out.extend(hoist_common_tail(self.if_stmt(stmt, continuation)))
                return out
            out.append(stmt)
        return out + tail()

    def if_stmt(self, stmt: cst.If, continuation) -> cst.If:
        body = self.seq(list(stmt.body.body), continuation)
        if stmt.orelse is None:
            orelse = continuation()
        elif isinstance(stmt.orelse, cst.If):
            orelse = [self.if_stmt(stmt.orelse, continuation)]
        else:
            orelse = self.seq(list(stmt.orelse.body.body), continuation)
        return stmt.with_changes(
            body=stmt.body.with_changes(body=body or [cst.SimpleStatementLine([cst.Pass()])]),
            orelse=cst.Else(body=cst.IndentedBlock(body=orelse)) if orelse else None)
