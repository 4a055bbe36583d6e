"""Exits lowered into branches: what `early_return` and `masked_loops` share (not a pass).

A statement sequence with exits in it (``return``; in a loop body also ``break`` and
``continue``) becomes one with none: each exit is replaced by what it stands for (an
assignment of the result, clearing the loop's mask...), and the statements that followed an
``if`` holding an exit move into its branches that fall through -- the *continuation*,
duplicated only when both branches can fall through and it is short (`COPY_LIMIT`; a longer
one runs after the ``if`` under ``if not returned:`` in a function, ``if not exited:`` in a
loop body, a flag its exits set); a tail both branches end with is hoisted after the ``if``
again. Every path that falls off the end of the sequence continues with ``tail()``.

    if c:                      if c:
        <exit>                     <the exit's lowering>
    rest              ->       else:
                                   rest
                                   <tail>
"""

from __future__ import annotations

import libcst as cst

from ..abstract import TupleValue
from ..errors import Unsupported
from ..liveness import body_of
from ..syntax.edit import hoist_common_tail
from ..syntax.traversal import statements

COPY_LIMIT = 12
"""Statements (nested ones counted) of a continuation copied into both branches at most. A
longer one runs once after the ``if``, on the examples that did not exit in it (a flag its
exits set), where the lowering has such a flag (`ContinuationLowering.flag`): copying it
into both branches of each of a series of ``if``s doubles the code with each (a 59-line
function became 5,753 lines and took 16 s to transform; the same in a loop body, with
``break``s, 4,879 lines and 8 s), and the select form runs every copy on every lane."""


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
    holds one (`holds_exit`), what an exit becomes (`exit_for`) and, optionally, how a long
    continuation is guarded instead of copied (`flag`)."""

    exits: tuple[type, ...] = ()      # (exact types: libcst's statement classes)
    _flags: tuple[str, ...] = ()      # the flags of the guarded ``if``s around this point

    def flag(self) -> str | None:
        """A fresh flag name, False before an ``if`` whose continuation is guarded and set by
        every exit inside it; None: continuations are always copied."""
        return None

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
                        return out + self.exit_for(small, tail) + [
                            _assign(flag, "True") for flag in self._flags]
                    before.append(small)
            if type(stmt) is cst.If and self.holds_exit(stmt):
                rest = stmts[i + 1:]
                flag = self._guard_for(stmt, rest, tail)
                if flag is not None:
                    return out + self._guarded(stmt, flag, rest, tail)
                calls = []

                def continuation(rest=rest, calls=calls):
                    # the statements themselves where they go once, copies where again
                    # (copying each time made a function of n sequential exits quadratic)
                    calls.append(None)
                    return self.seq(rest if len(calls) == 1 else
                                    [s.deep_clone() for s in rest], tail)
                continuation.statements, continuation.tail = rest, tail   # (`_guard_for`)
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

    def _guard_for(self, stmt: cst.If, rest: list, tail) -> str | None:
        """The flag of a guarded continuation, where copying it would be long and the
        lowering can guard it (`can_guard` what runs under the flag: the continuation and
        the statements of the continuations it ends with)."""
        if _falls_through(list(stmt.body.body)) + _falls_through(body_of(stmt.orelse)) < 2 \
                or _size(rest) <= COPY_LIMIT:
            return None
        after = list(rest)
        while hasattr(tail, "statements"):
            after += tail.statements
            tail = tail.tail
        return self.flag() if self.can_guard(stmt, after) else None

    def can_guard(self, stmt: cst.If, after: list) -> bool:
        """Whether ``after`` may run under a flag after ``stmt`` (not in its branches)."""
        return True

    def _guarded(self, stmt: cst.If, flag: str, rest: list, tail) -> list:
        """``flag = False``, the ``if`` with its exits setting the flag and nothing after
        its branches, then ``if not flag:`` the continuation."""
        self._flags = self._flags + (flag,)
        try:
            lowered = self.if_stmt(stmt, list)
        finally:
            self._flags = self._flags[:-1]
        test = cst.UnaryOperation(operator=cst.Not(), expression=cst.Name(flag))
        return [_assign(flag, "False"), *hoist_common_tail(lowered),
                cst.If(test=test, body=cst.IndentedBlock(
                    body=self.seq(rest, tail) or [cst.SimpleStatementLine([cst.Pass()])]))]


def _assign(name: str, value: str) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))],
                                               cst.Name(value))])


def _falls_through(stmts: list) -> bool:
    """Whether some path through the statements reaches their end (not ending in an exit:
    ``return``, ``break``, ``continue``, ``raise``; an ``if`` falls through where either
    branch does)."""
    if not stmts:
        return True
    last = stmts[-1]
    if type(last) is cst.SimpleStatementLine:
        return not any(type(s) in (cst.Return, cst.Break, cst.Continue, cst.Raise)
                       for s in last.body)
    if type(last) is cst.If:
        return last.orelse is None or _falls_through(list(last.body.body)) \
            or _falls_through(body_of(last.orelse))
    return True


def _size(stmts: list) -> int:
    """Statements, nested ones counted."""
    return sum(1 for stmt in stmts for _ in statements(stmt))
