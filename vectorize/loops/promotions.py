"""Promotions: where the analysis joins a value that is the same for every example with
per-example ones, the joined value is per example, so the path with the shared value makes
it an array there (``np.full``), and code that needs arrays (gathers of compaction,
``.astype``, indexing) can rely on it. Above all a loop's carries: a name that enters a loop
the same for every example and is per example at its head becomes an array before the loop
(`carries.carries_needed` says which), and so does one a loop that may run no pass leaves
per example; also the paths into the join after a Python ``if``, a ``break`` or a
``continue``, and the end of a loop's body.

`Promotions` holds the hooks of `passes.batch_rules` that write them (its transformer derives
from it): they read the transformer's ``ctx``, ``analysis``, ``prims``, ``_func`` (the
function), ``_loops`` (the loops around the node), ``_promotions`` (the lines they made) and
its ``_batch_size()`` and ``_like`` (an array of the call, for the device).
"""

from __future__ import annotations

import libcst as cst

from ..abstract import Value
from ..errors import Unsupported
from ..liveness import liveness_of, reads
from ..passes.records import MaskedLoopFacts
from ..rules.operators import refuse_wrapping_constant
from ..syntax.templates import expr
from .carries import carries_needed, flows_into, needs_promotion, promoted_value
from .placeholders import has_literal, literal_for


class Promotions:
    """The promotion hooks of `batch_rules._ApplyRules` (see the module)."""

    def _promote_carries(self, original_node, updated_node):
        """Variables that enter a loop unbatched but are batched at its head (assigned under a
        per-example condition inside it, or from per-example values) become arrays before
        the loop: from the first iteration on, the loop body treats them as batched. A plain
        loop (no mask) needs this only for the carries that reach an operation that needs
        arrays or the code after the loop (`carries.carries_needed`); a carry used only
        inside the loop keeps its scalar start (NumPy broadcasting takes it)."""
        entry = self.analysis.loop_entry.get(original_node, {})
        head = self.analysis.loop_head.get(original_node, {})
        needed = carries_needed(original_node, self._func, self.ctx, self.analysis)
        lines = []
        for name in sorted(head) if needed is None or needed else ():
            before, at_head = entry.get(name), head[name]
            if before is None or not getattr(at_head, "batched", False) or before.batched:
                continue
            if needed is not None and not flows_into(original_node, name, needed):
                continue
            at_head = promoted_value(before, at_head)
            if at_head is not None and name not in self.analysis.defined_before_loop.get(
                    original_node, head):
                # bound before the loop on some paths only (`for i in range(0)` earlier):
                # where the loop's lanes read it Python has bound it, so the others' start
                # is never read; `np.full` of the name itself may raise UnboundLocalError
                line = self._maybe_unbound_carry(name, at_head, original_node)
                if line is not None:
                    lines.append(line)
                continue
            if at_head is None:
                if needed is None:
                    continue
                raise Unsupported(f"`{name}` starts as one value for every example, becomes a "
                                  "per-example value in the loop and reaches an operation "
                                  "that needs an array there, but it cannot be made an array "
                                  "before the loop (a tuple, or a value of unknown type)",
                                  original_node, f"give `{name}` a per-example start value")
            lines.append(self._full(name, at_head, before, original_node,
                                    ("before this loop", "in it")))
        for name in sorted(head):
            # a per-example bool that the loop makes an int (`k = k + (b > 0)` of Python
            # bools, `passes.python_raises`) is an int from the start: NumPy's arithmetic of
            # the bool array would not be the ints' (`+` a logical or), the loop's first pass
            # would compute on it as it is
            before, at_head = entry.get(name), head[name]
            if isinstance(before, Value) and isinstance(at_head, Value) and before.batched \
                    and at_head.batched and before.kind == "b" and at_head.kind in "iu" and \
                    before.rank == at_head.rank == 0:
                lines.append(cst.parse_statement(f"{name} = " + self.prims.astype(
                    name, self.prims.dtype_code(at_head.dtype))))
            elif isinstance(
                    before, Value) and isinstance(at_head, Value) and before.batched and \
                    at_head.batched and before.rank == at_head.rank == 0 and \
                    before.dtype is not None and at_head.dtype is not None and \
                    before.kind in "biufc" and at_head.kind in "biufc" and \
                    before.dtype != at_head.dtype:
                # a per-example carry the loop gives another type on some lanes
                # (`r = np.float32(y)`, then `r = x` of a uint64): the loop joins them as
                # NumPy does (float64), a namespace keeping the float's width (JAX's
                # float32) from the entry's dtype on; and NumPy itself keeps a float32
                # carry's width where the loop assigns a Python float (`r = 1e300`: the
                # where of the float32 array and the weak float is float32, inf, where the
                # loop's examples hold the Python float)
                lines.append(cst.parse_statement(f"{name} = " + self.prims.astype(
                    name, self.prims.dtype_code(at_head.dtype))))
        may_skip = self.analysis.loop_may_skip.get(original_node, False)
        after = self.analysis.loop_exit.get(original_node) or {}
        live = self._live().live_after.get(original_node, set())
        promoted = {line.body[0].targets[0].target.value for line in lines}
        for name in sorted(live - promoted) if may_skip else ():
            # the loop may not run at all: a value that is per example after it is one
            # before it too
            before, after_value = entry.get(name), after.get(name)
            if needs_promotion(before, after_value):
                lines.append(self._full(name, after_value, before, original_node,
                                        ("before this loop", "after it")))
        updated_node = self._promote_at_body_end(original_node, updated_node)
        if not lines:
            return updated_node
        self._promotions.update(map(id, lines))
        promoted = {line.body[0].targets[0].target.value for line in lines}
        if type(original_node) is cst.For and promoted & reads(original_node.iter):
            # Python evaluates what a `for` iterates over once, before the first pass, where
            # these carries are still the same for every example (`range(len(v))` of a shared
            # `v` the loop rebinds): it is computed before they become arrays
            hoisted, updated_node = self._hoist_iter(updated_node, promoted)
            lines = hoisted + lines
        return cst.FlattenSentinel(lines + [updated_node])

    def _hoist_iter(self, loop, promoted):
        """(assignments, ``loop`` reading them): what ``loop`` iterates over that reads a name
        of ``promoted``, computed into fresh names (each argument of a ``range(...)`` that
        reads one: ``v_len = len(v)``; any other iterable as a whole: ``seq = ...``)."""
        def hoist(node, base):
            name = self.ctx.namer.fresh(base)
            lines.append(cst.SimpleStatementLine([cst.Assign(
                [cst.AssignTarget(cst.Name(name))], node)]))
            return cst.Name(name)

        lines: list = []
        it = loop.iter
        if type(it) is cst.Call and type(it.func) is cst.Name and it.func.value == "range":
            args = []
            for position, arg in enumerate(it.args):
                if reads(arg.value) & promoted:
                    inner = arg.value
                    base = (("start", "stop", "step")[position if len(it.args) > 1 else 1]
                            if position < 3 else "bound")
                    if (type(inner) is cst.Call and type(inner.func) is cst.Name
                            and inner.func.value == "len" and len(inner.args) == 1
                            and type(inner.args[0].value) is cst.Name):
                        base = f"{inner.args[0].value.value}_len"
                    arg = arg.with_changes(value=hoist(inner, base))
                args.append(arg)
            return lines, loop.with_changes(iter=it.with_changes(args=args))
        return lines, loop.with_changes(iter=hoist(it, "seq"))

    # -- runtime promotions: where the analysis joins a value that is the same for every
    # example with per-example ones under a condition or loop that stays Python, the joined
    # value is per example, so the path with the shared value makes it an array there. Code
    # that needs arrays (gathers of compaction, `.astype`, indexing) can then rely on it.
    def _live(self):
        return liveness_of(self._func)

    def _full_expr(self, node, value, start=None, name=None, at=None,
                   paths=("on one path", "on another")) -> cst.BaseExpression:
        """``np.full`` of ``node`` (the same for every example) for the whole batch. Its value
        ``start`` may have a lower rank than ``value`` (the joined one) only where no lane
        reads it (``name`` is a placeholder of `masked_loops`: a number before a loop that
        returns a vector): it then gets length-1 axes after the batch axis, so that it
        broadcasts against the vectors that replace it. Elsewhere the number would stay a
        number on the lanes (or whole batches) that keep it, where the batch has one shape
        for every lane: refused."""
        prims = self.prims
        # a string's dtype has a width, and the analysis does not track the widest string a
        # variable may hold: the array takes the value's own, and `np.where` widens it
        dtype_code = None if value.dtype.kind in "SU" else prims.dtype_named(value.dtype)
        size = self._batch_size()
        rank = start.rank if isinstance(start, Value) else value.rank
        if rank < value.rank and name not in MaskedLoopFacts.get(self.ctx).placeholders:
            shown = f"`{name}`" if name else "this value"
            raise Unsupported(f"{shown} is {_shape_words(rank)} the same for every example "
                              f"{paths[0]} and a per-example {_shape_words(value.rank)[2:]} "
                              f"{paths[1]}: the batch needs one shape for it on every path",
                              self._user_node(at, name),
                              "give it the same shape on every path (start it as an array "
                              "of that shape)")
        if isinstance(start, Value) and start.exact and not start.batched:
            # `r = -2` before a loop that makes it a uint64 on some lanes: per example the
            # lanes that keep it hold -2 itself; the batch's array of the joined dtype
            # cannot (`np.full` raises, or wraps in a narrower float: inf)
            try:
                refuse_wrapping_constant(start, value)
            except Unsupported as problem:
                problem.node = problem.node or self._user_node(at, name)
                raise
        ones = ", 1" * (value.rank - rank)
        if rank == 0:
            shape = "({n}" + ones + ")" if ones else "{n}"
        else:
            shape = "({n}" + ones + ", *" + prims.shape("{v}") + ")"
        return expr(prims.full(shape, "{v}", dtype_code, self._like), n=size, v=node)

    def _maybe_unbound_carry(self, name, value, loop):
        """The start of a carry that may be unbound before ``loop``: nothing where the loop
        does not read its old value (at its head or after it), else a literal of its type
        for every lane (a lane that reads it per example has bound it first)."""
        live = self._live()
        if name not in live.live_at_head.get(loop, set()) | live.live_after.get(loop, set()):
            return None
        if not has_literal(value):
            raise Unsupported(f"`{name}` may have no value before this loop, and it is not a "
                              "number", loop, f"give `{name}` a value before the loop")
        return cst.SimpleStatementLine([cst.Assign(
            [cst.AssignTarget(cst.Name(name))],
            self._full_expr(cst.parse_expression(literal_for(value)), value, None, name,
                            loop))])

    def _user_node(self, at, name):
        """A node of the user's code to point at: where ``name`` appears in ``at`` (passes
        rebuild the statements around what they change), else ``at``."""
        if at is None or name is None:
            return at
        from ..syntax.traversal import walk
        positions = self.ctx.source.positions
        return next((n for n in walk(at) if type(n) is cst.Name and n.value == name
                     and n in positions), at)

    def _full(self, name: str, value, start=None, at=None,
              paths=("on one path", "on another")) -> cst.SimpleStatementLine:
        return cst.SimpleStatementLine([cst.Assign(
            [cst.AssignTarget(cst.Name(name))],
            self._full_expr(cst.Name(name), value, start, name, at, paths))])

    def _promotions_for(self, path: dict | None, joined: dict, live: set, at) -> list:
        if path is None:
            return []
        return [self._full(name, joined[name], path[name], at)
                for name in sorted(live & set(path))
                if name in joined and needs_promotion(path[name], joined[name])]

    def _promote_at_body_end(self, original, updated):
        head = self.analysis.loop_head.get(original, {})
        live = self._live().live_at_head.get(original, set())
        lines = self._promotions_for(self.analysis.loop_body_end.get(original), head, live,
                                     original)
        if not lines:
            return updated
        return updated.with_changes(body=updated.body.with_changes(
            body=list(updated.body.body) + lines))

    def visit_For(self, node):
        self._loops.append(node)

    def visit_While(self, node):
        self._loops.append(node)

    def leave_SimpleStatementLine(self, original_node, updated_node):
        """``break``/``continue`` with a shared value where the loop's is per example."""
        jumps = [s for s in original_node.body if type(s) in (cst.Break, cst.Continue)]
        if not jumps or not self._loops:
            return updated_node
        loop = self._loops[-1]
        if type(jumps[0]) is cst.Break:
            joined = self.analysis.loop_exit.get(loop) or {}
            live = self._live().live_after.get(loop, set())
        else:
            joined = self.analysis.loop_head.get(loop, {})
            live = self._live().live_at_head.get(loop, set())
        lines = self._promotions_for(self.analysis.jump_envs.get(jumps[0]), joined, live,
                                     loop)
        return cst.FlattenSentinel(lines + [updated_node]) if lines else updated_node

    def leave_If(self, original_node, updated_node):
        """Each branch of an ``if`` that stays Python (its test is the same for every
        example) makes arrays of the values that are per example after it."""
        facts = self.analysis.if_envs.get(original_node)
        if facts is None or self.analysis.batched_tests.get(original_node, False):
            return updated_node
        _entry, then_values, else_values, joined = facts
        if joined is None:
            return updated_node
        live = self._live().live_after.get(original_node, set())
        then_lines = self._promotions_for(then_values, joined, live, original_node)
        else_lines = self._promotions_for(else_values, joined, live, original_node)
        if then_lines:
            updated_node = updated_node.with_changes(body=updated_node.body.with_changes(
                body=list(updated_node.body.body) + then_lines))
        if else_lines:
            orelse = updated_node.orelse
            if orelse is None:
                orelse = cst.Else(body=cst.IndentedBlock(body=else_lines))
            elif isinstance(orelse, cst.Else):
                orelse = orelse.with_changes(body=orelse.body.with_changes(
                    body=list(orelse.body.body) + else_lines))
            else:
                orelse = cst.Else(body=cst.IndentedBlock(body=[
                    cst.If(test=orelse.test, body=orelse.body, orelse=orelse.orelse)]
                    + else_lines))
            updated_node = updated_node.with_changes(orelse=orelse)
        return updated_node

    def leave_With(self, original_node, updated_node):
        """A loop under ``with np.errstate(...)`` (hoisted there by `simplify`): its carries'
        promotions go before the ``with``, which keeps only the loop."""
        body = list(updated_node.body.body)
        count = 0
        while count < len(body) and id(body[count]) in self._promotions:
            count += 1
        if not count or count == len(body):
            return updated_node
        return cst.FlattenSentinel(body[:count] + [updated_node.with_changes(
            body=updated_node.body.with_changes(body=body[count:]))])

    def leave_While(self, original_node, updated_node):
        self._loops.pop()
        return self._promote_carries(original_node, updated_node)

    def leave_For(self, original_node, updated_node):
        self._loops.pop()
        return self._promote_carries(original_node, updated_node)


def _shape_words(rank: int) -> str:
    return {0: "a number", 1: "a vector"}.get(rank, f"a {rank}-dimensional array")
