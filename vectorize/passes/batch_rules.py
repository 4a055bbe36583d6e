"""Apply the batching rules: every operation on batched values becomes its array form.

Assumes: all control flow on batched values is gone (earlier passes); the current analysis.
Reads: `records.MaskedLoopFacts` (masks, strategies, placeholders) and
`records.CompactedIfs`. Writes: `records.BatchedLoopFacts` (the loops to compact, the batch
length's name and parameters), the values of `CompactedIfs` (`compact.record_if_facts`), and
`records.ArrayValues` (the abstract value of each name assigned, for `temporaries`).
Guarantees: each operator, call, conditional expression and boolean operation with a batched
input is replaced by what its rule in the registry generates; operations on unbatched values
are untouched; calls of the user's own functions go to their batched specializations; a call
with no rule runs per example in a visible list comprehension (only when the user allowed
fallbacks). This is the last pass over scalar-style code: its output is array code.
"""

from __future__ import annotations

import libcst as cst
import numpy as np

from ..abstract import TupleValue, Value
from ..errors import Unsupported
from ..liveness import flows_from, liveness_of, reads, writes
from ..rules.families import pad
from ..rules.lanes import ANY_LANE, LANE
from ..rules.python_errors import RAISE_LANE
from ..rules.registry import Site
from ..syntax.edit import AugmentedToAssignment, as_assignment
from ..syntax.templates import expr
from ..syntax.traversal import rewrite
from .records import ArrayValues, BatchedLoopFacts, CompactedIfs, MaskedLoopFacts
from .simplify import single_target_assign as _single_target_assign


def _is_batched(value) -> bool:
    return bool(getattr(value, "batched", False))


def _batched_item(path: str, value) -> str | None:
    """The code of the first per-example array inside the container ``value`` bound to
    ``path`` (``a[0]``, ``p['w']``), or None."""
    if not isinstance(value, TupleValue):
        return path if getattr(value, "batched", False) else None
    for k, item in enumerate(value.items):
        key = value.keys[k] if value.keys is not None and isinstance(
            value.kind, type) and issubclass(value.kind, dict) else k
        found = _batched_item(f"{path}[{key!r}]", item)
        if found:
            return found
    return None


class _ApplyRules(cst.CSTTransformer):
    def __init__(self, ctx, analysis):
        self.ctx = ctx
        self.analysis = analysis
        self.registry = ctx.registry
        self.prims = ctx.registry.primitives
        self.method_funcs = {call.func for call in analysis.method_calls}
        self._promotions: set[int] = set()   # ids of the lines that make carries arrays
        self._loops: list = []                # the loops around the node being visited
        self._func = None
        self._written = None
        self.size_name = None      # (name, parameter) when the batch size is kept in a name
        self._ragged_args: dict = {}   # np.arange with per-example bounds -> its arguments
        self.array_values = ArrayValues.get(ctx).values

    def value(self, node):
        return self.analysis.values.get(node)

    def _apply(self, rule, original, updated, operands_orig, operands_new, **extra):
        site = Site(args=[self.value(o) for o in operands_orig], nodes=list(operands_new),
                    node=updated, original=original, result=self.value(original),
                    backend=self.registry.backend,
                    python_semantics=self.ctx.module.python_semantics, **extra)
        self.ctx.explain(rule, original)
        try:
            new = rule.rewrite(site)
        except Unsupported as problem:
            problem.node = problem.node or original
            raise
        if new is not updated and getattr(original, "lpar", None) \
                and not getattr(new, "lpar", None):
            new = new.with_changes(lpar=original.lpar, rpar=original.rpar)
        # for `temporaries`, which cannot analyse array code
        values = self.array_values
        values[new] = site.result
        for node, value in zip(site.nodes, site.args):
            values.setdefault(node, value)
        return new

    def _numpy_scalar_op(self, original_node, updated_node):
        scalar = self.analysis.numpy_scalar_ops.get(original_node)
        if scalar is None:
            return updated_node
        return self._apply(self.registry.operators["python_number_division"], original_node,
                           updated_node, [], [], func=scalar)

    def leave_BinaryOperation(self, original_node, updated_node):
        if not _is_batched(self.value(original_node)):
            return self._numpy_scalar_op(original_node, updated_node)
        key = "matmul" if type(original_node.operator) is cst.MatrixMultiply else "binary"
        return self._apply(self.registry.operators[key], original_node, updated_node,
                           [original_node.left, original_node.right],
                           [updated_node.left, updated_node.right])

    def leave_UnaryOperation(self, original_node, updated_node):
        if not _is_batched(self.value(original_node.expression)):
            return updated_node
        key = "not" if isinstance(original_node.operator, cst.Not) else "unary"
        return self._apply(self.registry.operators[key], original_node, updated_node,
                           [original_node.expression], [updated_node.expression])

    def leave_BooleanOperation(self, original_node, updated_node):
        if not _is_batched(self.value(original_node)):
            return updated_node
        key = "and" if isinstance(original_node.operator, cst.And) else "or"
        return self._apply(self.registry.operators[key], original_node, updated_node,
                           [original_node.left, original_node.right],
                           [updated_node.left, updated_node.right])

    def leave_Comparison(self, original_node, updated_node):
        if not _is_batched(self.value(original_node)):
            return updated_node
        orig = [original_node.left] + [c.comparator for c in original_node.comparisons]
        new = [updated_node.left] + [c.comparator for c in updated_node.comparisons]
        return self._apply(self.registry.operators["compare"], original_node, updated_node,
                           orig, new)

    def leave_IfExp(self, original_node, updated_node):
        if not _is_batched(self.value(original_node.test)):
            # stays a Python choice: an arm the same for every example becomes an array when
            # the other is per example (the result is then an array whichever arm is taken)
            result = self.value(original_node)
            arms = {}
            for field in ("body", "orelse"):
                arm = self.value(getattr(original_node, field))
                if _needs_promotion(arm, result):
                    arms[field] = self._full_expr(getattr(updated_node, field), result, arm,
                                                   at=getattr(original_node, field))
            return updated_node.with_changes(**arms) if arms else updated_node
        return self._apply(self.registry.operators["ifexp"], original_node, updated_node,
                           [original_node.test, original_node.body, original_node.orelse],
                           [updated_node.test, updated_node.body, updated_node.orelse])

    def _stacked(self, original_node, updated_node):
        """A list or tuple display of per-example values (or a name bound to one) that a
        rule takes as one array: the pieces stacked after the batch axis."""
        batched = self.analysis.stacked.get(original_node)
        if batched is None:
            return updated_node
        rule = self.registry.operators.get("stacked_display")
        if rule is None:
            raise Unsupported("a list of per-example values as one array is not supported on "
                              f"{self.registry.namespace}", original_node,
                              "stack the values yourself")
        return self._apply(rule, original_node, updated_node, [], [], parts=list(batched))

    leave_List = leave_Tuple = leave_Name = _stacked

    def leave_Subscript(self, original_node, updated_node):
        if original_node in self.analysis.fallback_calls:
            return self._fallback(original_node, updated_node)
        parts = [self.value(e.slice.value) if isinstance(e.slice, cst.Index) else None
                 for e in original_node.slice]
        if isinstance(self.value(original_node.value), TupleValue) and not any(
                _is_batched(p) for p in parts):
            return updated_node            # an item of a tuple, chosen by a constant
        if not (_is_batched(self.value(original_node.value))
                or any(_is_batched(p) for p in parts)):
            return updated_node
        new = self._apply(self.registry.operators["subscript"], original_node, updated_node,
                          [original_node.value], [updated_node.value], parts=parts)
        if original_node in self.analysis.copied_reads:
            # a scalar per example, which the array it is read from must not change later
            new = expr(self.prims.copy("{x}"), x=new)
        return new

    def _batch_size(self) -> cst.BaseExpression:
        """The batch size: ``len(x)`` of a batched parameter that is per example wherever it is
        bound or read (one rebound to a shared value may not be an array by then), else a
        name set to it on entry."""
        batched = [name for name, v in self.ctx.params.items()
                   if getattr(v, "batched", False) and not isinstance(v, TupleValue)]
        if self._written is None:
            # parameters that hold a per-example value everywhere they are read or bound
            from ..syntax.traversal import walk
            self._written = {n.value for n in walk(self._func.body) if type(n) is cst.Name
                             and n in self.analysis.values
                             and not _is_batched(self.analysis.values[n])}
        stable = [name for name in batched if name not in self._written]
        if not batched:
            # only items of containers are per example (`*args`, a tuple, dict or namedtuple
            # argument of vmap): the first such item's length, set on entry
            batched = [path for path in (_batched_item(name, v) for name, v in
                                         self.ctx.params.items()
                                         if isinstance(v, TupleValue)) if path][:1]
        self._like = (stable or batched)[0]     # an array on the arguments' device
        if stable:
            # `compact`: the lanes' count inside
            BatchedLoopFacts.get(self.ctx).batch_len_params.add(stable[0])
            return expr("len({x})", x=cst.Name(stable[0]))
        if self.size_name is None:
            self.size_name = (self.ctx.namer.fresh("batch_size"), batched[0])
        return cst.Name(self.size_name[0])

    def _promote_carries(self, original_node, updated_node):
        """Variables that enter a loop unbatched but are batched at its head (assigned under a
        per-example condition inside it, or from per-example values) become arrays before
        the loop: from the first iteration on, the loop body treats them as batched. A plain
        loop (no mask) needs this only for the carries that reach an operation that needs
        arrays (`_array_only_reads`) or the code after the loop; a carry used only inside
        the loop keeps its scalar start (NumPy broadcasting takes it)."""
        from ..syntax.traversal import walk
        masked = any(type(n) is cst.Name and n.value in MaskedLoopFacts.get(self.ctx).masks
                     for n in walk(original_node))
        entry = self.analysis.loop_entry.get(original_node, {})
        head = self.analysis.loop_head.get(original_node, {})
        needed = None if masked else (_array_only_reads(original_node, self.analysis)
                                      | _compacted_if_operands(original_node, self._func,
                                                               self.ctx, self.analysis))
        if needed is not None:
            # what the loop leaves for the code after it must be what the analysis says
            # there (an array), whatever it started as: code after it may need arrays
            # (gathers of compaction, indexing); so must what flows into those values
            after = self._live().live_after.get(original_node, set())
            needed = needed | {name for name in after & writes(original_node)
                               if getattr(head.get(name), "batched", False)}
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
        may_skip = self.analysis.loop_may_skip.get(original_node, False)
        after = self.analysis.loop_exit.get(original_node) or {}
        live = self._live().live_after.get(original_node, set())
        promoted = {line.body[0].targets[0].target.value for line in lines}
        for name in sorted(live - promoted) if may_skip else ():
            # the loop may not run at all: a value that is per example after it is one
            # before it too
            before, after_value = entry.get(name), after.get(name)
            if _needs_promotion(before, after_value):
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
        from .masked_loops import _has_literal, _literal_for
        live = self._live()
        if name not in live.live_at_head.get(loop, set()) | live.live_after.get(loop, set()):
            return None
        if not _has_literal(value):
            raise Unsupported(f"`{name}` may have no value before this loop, and it is not a "
                              "number", loop, f"give `{name}` a value before the loop")
        return cst.SimpleStatementLine([cst.Assign(
            [cst.AssignTarget(cst.Name(name))],
            self._full_expr(cst.parse_expression(_literal_for(value)), value, None, name,
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
                if name in joined and _needs_promotion(path[name], joined[name])]

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

    def leave_Assign(self, original_node, updated_node):
        """``y[i] = v`` into a batched array: ``v`` gets the per-example axes it broadcasts
        over (the target itself got its ``:`` from the subscript rule)."""
        if len(original_node.targets) == 1 and type(original_node.targets[0].target) is \
                cst.Subscript:
            slot = self.value(original_node.targets[0].target)
            value = self.value(original_node.value)
            if _is_batched(slot) and isinstance(value, Value) and isinstance(slot, Value):
                return updated_node.with_changes(value=pad(updated_node.value, value,
                                                           slot.rank))
        if len(original_node.targets) == 1 and type(original_node.targets[0].target) in (
                cst.Tuple, cst.List):
            value = self.value(original_node.value)
            if isinstance(value, Value) and _is_batched(value) and value.rank == 1:
                # per example a vector unpacked item by item: on the batch, its columns
                return updated_node.with_changes(value=expr("{v}.T", v=updated_node.value))
        return updated_node

    def _apply_call(self, rule, original_node, updated_node, receiver=(), **extra):
        """``rule`` at a call: its operands are the positional arguments (after the
        ``receiver`` pair of original and new nodes, a method's base), its ``kwargs`` the
        keyword arguments."""
        pairs = list(zip(original_node.args, updated_node.args))
        positional = [*receiver] + [(o.value, n.value) for o, n in pairs if o.keyword is None]
        kwargs = {o.keyword.value: (n.value, self.value(o.value))
                  for o, n in pairs if o.keyword is not None}
        return self._apply(rule, original_node, updated_node, [o for o, _ in positional],
                           [n for _, n in positional], kwargs=kwargs, **extra)

    def _masked_reduction(self, original_node, updated_node, ragged):
        """A reduction of ragged ranges: its rule's masked form, told each range's
        arguments (the rule's ``masked`` form)."""
        method = self.analysis.method_calls.get(original_node)
        fn = getattr(self.value(original_node.func), "example", None)
        rule = (method or self.registry.for_call(fn)).masked
        parts = [self._ragged_args[node] for node in ragged]
        if method is not None:
            return self._apply_call(rule, original_node, updated_node,
                                    [(original_node.func.value, updated_node.func.value)],
                                    func=original_node.func.attr.value, parts=parts)
        return self._apply_call(rule, original_node, updated_node, func=fn, parts=parts)

    def leave_Call(self, original_node, updated_node):
        analysis = self.analysis
        if original_node in analysis.ragged:
            self._ragged_args[original_node] = (
                [a.value for a in updated_node.args],
                [self.value(a.value) for a in original_node.args])
        ragged = analysis.masked_reductions.get(original_node)
        if ragged is not None:
            return self._masked_reduction(original_node, updated_node, ragged)
        rule = analysis.promoted_creations.get(original_node) or analysis.random_calls.get(
            original_node)
        if rule is not None:
            # new data for every example (a random draw, an array created for per-example
            # data): the rule puts the batch length in front
            return self._apply_call(rule, original_node, updated_node,
                                    batch=self._batch_size(),
                                    func=getattr(self.value(original_node.func), "example",
                                                 None))
        if original_node in analysis.method_calls:
            return self._apply_call(analysis.method_calls[original_node], original_node,
                                    updated_node,
                                    [(original_node.func.value, updated_node.func.value)],
                                    func=original_node.func.attr.value)
        if original_node in analysis.helper_calls:
            name = self.ctx.helper_name(original_node)
            return updated_node.with_changes(func=cst.Name(name))
        if original_node in analysis.fallback_calls:
            return self._fallback(original_node, updated_node)
        if original_node in analysis.tuple_lengths:
            return updated_node         # `len(args)`: Python's, of the tuple of arrays
        if original_node in analysis.numpy_scalar_ops:
            return self._numpy_scalar_op(original_node, updated_node)
        inputs = [a for a in original_node.args]
        if not any(_is_batched(self.value(a.value)) for a in inputs) and (
                original_node not in analysis.math_in_branches):
            if isinstance(original_node.func, cst.Name) and original_node.func.value in (
                    ANY_LANE, RAISE_LANE):
                return updated_node.with_changes(func=cst.Name("bool"))
            if isinstance(original_node.func, cst.Name) and original_node.func.value == LANE:
                return updated_node.args[0].value      # a value the same for every example
            return updated_node
        fn = getattr(self.value(original_node.func), "example", None)
        rule = self.registry.for_call(fn)
        if rule is None:
            return updated_node   # NumPy scalar types: np.float32(x) converts arrays too
        return self._apply_call(rule, original_node, updated_node, func=fn)

    def _fallback(self, original, updated):
        """``f(x, b)`` with no rule -> ``np.array([f(x_i, b) for x_i in x])``; ``d[k]`` ->
        ``np.array([d[k_i] for k_i in k])``."""
        self.ctx.fallback_used(original, self.analysis.fallback_calls[original])
        if type(original) is cst.Subscript:
            pairs = [(o.slice, n.slice) for o, n in zip(original.slice, updated.slice)]
        else:
            pairs = list(zip(original.args, updated.args))
        loop_vars, iterables, new_args = [], [], []
        for o, n in pairs:
            if _is_batched(self.value(o.value)):
                base = o.value.value if isinstance(o.value, cst.Name) else (
                    "key" if type(original) is cst.Subscript else "value")
                var = self.ctx.namer.fresh(f"{base}_i")
                loop_vars.append(var)
                iterables.append(n.value)
                new_args.append(n.with_changes(value=cst.Name(var)))
            else:
                new_args.append(n)
        if type(original) is cst.Subscript:
            call = updated.with_changes(slice=[e.with_changes(slice=a) for e, a in
                                               zip(updated.slice, new_args)])
        else:
            call = updated.with_changes(args=new_args)
        if len(iterables) == 1:
            target, source = cst.Name(loop_vars[0]), iterables[0]
        else:
            target = cst.Tuple([cst.Element(cst.Name(v)) for v in loop_vars], lpar=[], rpar=[])
            source = cst.Call(cst.Name("zip"), args=[cst.Arg(i) for i in iterables])
        comp = cst.ListComp(elt=call, for_in=cst.CompFor(target=target, iter=source))
        return expr(self.prims.array_of("{comp}"), comp=comp)

    def leave_AugAssign(self, original_node, updated_node):
        """``v[i] += e`` on a batched value becomes ``v[i] = v[i] + e`` (names were rebound
        before the analysis, `transform`)."""
        if not (_is_batched(self.value(original_node.target))
                or _is_batched(self.value(original_node.value))):
            return self._numpy_scalar_op(original_node, updated_node)
        return as_assignment(updated_node)

    def leave_Attribute(self, original_node, updated_node):
        if original_node in self.method_funcs:
            return updated_node
        base = self.value(original_node.value)
        if not _is_batched(base) or isinstance(base, TupleValue):
            return updated_node
        rule = self.registry.attributes.get(original_node.attr.value)
        if rule is None:
            raise Unsupported(f"attribute `.{original_node.attr.value}` of a per-example value",
                              original_node)
        return self._apply(rule, original_node, updated_node, [original_node.value],
                           [updated_node.value])


class _FoldLiteralStarts(cst.CSTTransformer):
    """``x = 0`` ... ``x = np.full(n, x, dtype=np.int64)`` (nothing between reads ``x``):
    ``x = np.full(n, 0, dtype=np.int64)`` in place of the second."""

    def leave_IndentedBlock(self, original_node, updated_node):
        body = list(updated_node.body)
        literal: dict[str, int] = {}      # name -> index of its `name = <literal>` line
        drop = set()
        for k, stmt in enumerate(body):
            full = _full_of_itself(stmt)
            if full is not None and full in literal:
                j = literal.pop(full)
                value = body[j].body[0].value
                assign = stmt.body[0]
                call = assign.value
                args = [call.args[0], call.args[1].with_changes(value=value), *call.args[2:]]
                body[k] = stmt.with_changes(body=[assign.with_changes(
                    value=call.with_changes(args=args))])
                drop.add(j)
                continue
            if literal:
                used = reads(stmt) | writes(stmt)
                for name in [n for n in literal if n in used]:
                    del literal[name]
            start = _literal_start(stmt)
            if start is not None:
                literal[start] = k
        if not drop:
            return updated_node
        return updated_node.with_changes(body=[s for k, s in enumerate(body) if k not in drop])


def _literal_start(stmt) -> str | None:
    """``x`` of ``x = 0`` / ``x = 0.0`` / ``x = True`` / ``x = -1.5``."""
    found = _single_target_assign(stmt)
    if found is None:
        return None
    name, value = found
    if type(value) is cst.UnaryOperation and type(value.operator) is cst.Minus:
        value = value.expression
    if type(value) in (cst.Integer, cst.Float) or (
            type(value) is cst.Name and value.value in ("True", "False")):
        return name
    return None


def _full_of_itself(stmt) -> str | None:
    """``x`` of ``x = np.full(n, x, dtype=...)``."""
    found = _single_target_assign(stmt)
    if found is None:
        return None
    name, call = found
    if (type(call) is cst.Call and len(call.args) >= 2
            and type(call.func) is cst.Attribute and call.func.attr.value == "full"
            and type(call.args[1].value) is cst.Name and call.args[1].value.value == name
            and name not in reads(call.args[0].value)):    # not `np.shape(x)`
        return name
    return None


def is_docstring(stmt) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.Expr)
            and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString)))


def _shape_words(rank: int) -> str:
    return {0: "a number", 1: "a vector"}.get(rank, f"a {rank}-dimensional array")


def promoted_value(before, at_head):
    """The value a loop carry that enters unbatched (``before``) and is batched at the loop's
    head is made before the loop (`_ApplyRules._promote_carries`), or None where it cannot be
    made an array (a tuple, a value of unknown type)."""
    if isinstance(at_head, Value) and at_head.dtype is None and isinstance(
            before, Value) and before.dtype is not None and before.rank == at_head.rank:
        # what the loop makes of it is of a type the analysis could not tell (an example
        # that raised: `math.acosh(0.0)`); its first iteration sees the start
        at_head = before
    if isinstance(before, Value) and isinstance(at_head, Value) and at_head.dtype is not None:
        return at_head
    return None


def _needs_promotion(path_value, joined_value) -> bool:
    """A value the same for every example on this path, per example where paths join."""
    return (isinstance(path_value, Value) and isinstance(joined_value, Value)
            and not path_value.batched and joined_value.batched
            and joined_value.dtype is not None)


def _array_only_reads(loop, analysis) -> set[str]:
    """Names read by the operations of a loop that need their per-example operands to be
    arrays: a call of anything but a ufunc on per-example scalars (a helper's batched
    specialization calls ``len``, ``int(x)`` is ``x.astype(int)``), indexing, attributes
    and methods of per-example values, and per-example arrays (operands get new axes,
    axes are shifted). A Python number there, the first value of a carry that starts
    unbatched, fails or means something else."""
    from ..liveness import reads
    from ..syntax.traversal import walk
    out: set[str] = set()

    def batched(node) -> bool:
        return _is_batched(analysis.values.get(node))

    for n in walk(loop.body):
        t = type(n)
        if t is cst.Call:
            fn = getattr(analysis.values.get(n.func), "example", None)
            operands = [a.value for a in n.args]
            if isinstance(n.func, cst.Attribute):
                operands.append(n.func.value)
            if not any(batched(o) for o in operands):
                continue
            if isinstance(fn, np.ufunc) and all(
                    getattr(analysis.values.get(o), "rank", 1) == 0 for o in operands):
                continue
        elif t is cst.Subscript:
            if isinstance(analysis.values.get(n.value), TupleValue):
                continue                  # an item of a tuple: Python picks it
            parts = [e.slice.value for e in n.slice if isinstance(e.slice, cst.Index)]
            if not (batched(n.value) or any(batched(p) for p in parts)):
                continue
        elif t is cst.Attribute:
            if not batched(n.value):
                continue
        else:
            value = analysis.values.get(n)
            if not (isinstance(value, Value) and value.batched and value.rank > 0):
                continue
        out |= reads(n)
    return out


def _compacted_if_operands(loop, func, ctx, analysis) -> set[str]:
    """Names the ``if``s chosen for compaction inside a loop need to be arrays
    (`compact.array_operands`)."""
    from ..syntax.traversal import walk
    from .compact import array_operands
    out: set[str] = set()
    compacted = CompactedIfs.get(ctx).tests
    if not compacted:
        return out
    live = None
    for n in walk(loop.body):
        if type(n) is cst.If and type(n.test) is cst.Name and n.test.value in compacted:
            envs = analysis.if_envs.get(n)
            if envs is not None and envs[0] is not None:
                live = live or liveness_of(func)
                out |= array_operands(n, envs[0], live.live_after.get(n, set()))
    return out


def flows_into(loop, name: str, names: set[str]) -> bool:
    """Whether ``name``'s value reaches a read of ``names`` in the loop (directly, or through
    the variables the loop assigns from it)."""
    return bool(flows_from(loop.body, {name}) & names)


def padded_names(func, analysis) -> set[str]:
    """Names that may hold an array with length-1 axes where the analysis sees a vector:
    a number before a loop that returns vectors (`_full_expr`), and what is computed from
    it. NumPy broadcasts them like the vectors in every operation, but compaction scatters
    the lanes' vectors into them, which needs the whole shape: loops and ``if``s that move
    them keep the select form."""
    names = set()
    for loop, entry in analysis.loop_entry.items():
        head = analysis.loop_head.get(loop, {})
        for name, before in entry.items():
            after = head.get(name)
            if isinstance(before, Value) and isinstance(after, Value) and not before.batched \
                    and after.batched and before.rank < after.rank:
                names.add(name)
    return flows_from(func, names) if names else names


def _loop_facts(func, ctx, analysis) -> None:
    """For each masked loop to be compacted: the variables it carries (live at its head,
    assigned in it, batched) with their dtypes, and the batched values it only reads."""
    from ..syntax.traversal import walk
    from .compact import loop_mask
    wanted = {m for m, s in MaskedLoopFacts.get(ctx).strategy.items() if s == "compact"}
    loops = [n for n in walk(func) if loop_mask(n) in wanted] if wanted else []
    if not loops:
        return
    liveness = liveness_of(func)
    padded = None
    masks = [loop_mask(loop) for loop in loops]
    for loop, active in zip(loops, masks):
        if masks.count(active) > 1:
            # one loop copied into several branches (the code after an early `return` runs
            # in each): the copies share their mask's name, and the facts are per name, so
            # they keep the select form (same results)
            BatchedLoopFacts.get(ctx).loops.pop(active, None)
            continue
        batched: dict[str, object] = {}
        for n in walk(loop):
            value = analysis.values.get(n)
            if type(n) is cst.Name and getattr(value, "batched", False):
                batched.setdefault(n.value, value)
        assigned = writes(loop)
        head = liveness.live_at_head.get(loop, set())
        # a carry is what the loop holds at its head (the join of every pass), which its uses
        # inside need not show: `returned = True` under a compacted `if` may be the only place
        # the loop names `returned`, a shared True there, yet per example at the head, to be
        # gathered and scattered back with the loop's lanes like any other carry
        at_head = analysis.loop_head.get(loop, {})
        for name in sorted((assigned & head) - {active}):
            value = at_head.get(name)
            if getattr(value, "batched", False):
                batched[name] = value
        if any(isinstance(v, TupleValue) for v in batched.values()):
            continue   # tuples are not gathered: the loop keeps the select form
        if padded is None:
            padded = padded_names(func, analysis)
        if padded & set(batched):
            continue   # an array it cannot scatter into (`padded_names`): select form
        carried = [(name, batched[name].dtype) for name in sorted(batched)
                   if name in assigned and name in head and name != active]
        # (a string carry keeps the select form too: the scatter into it would cut strings
        # wider than the array's, and the analysis does not know the widest one)
        if any(dtype is None or dtype.kind not in "biufc" for _, dtype in carried) or any(
                name not in analysis.defined_before_loop.get(loop, set())
                for name, _ in carried):
            continue   # not enough known to allocate the scattered arrays: keep select
        read_only = {name for name in batched if name not in assigned}
        BatchedLoopFacts.get(ctx).loops[active] = (carried, read_only)


def transform(func: cst.FunctionDef, ctx) -> cst.FunctionDef:
    # `x += v` as `x = x + v`, analysed as a plain operation: it gets the operator rule's
    # rank alignment (`x += w` with a per-example scalar `x` and a shared vector `w` becomes
    # `x[:, None] + w`)
    func = rewrite(func, AugmentedToAssignment())
    analysis = ctx.analyze(func)
    consumed = {node for found in analysis.masked_reductions.values() for node in found}
    for node in analysis.ragged - consumed:
        from ..syntax.templates import render
        raise Unsupported(f"`{render(node)}` has a different length per example: only a "
                          "reduction of it (sum, prod, mean, any, all), written around it "
                          "through lane-by-lane operations, can be vectorized", node,
                          "write the reduction around the call itself, e.g. "
                          "sum(x ** arange(n)) rather than through a variable")
    _loop_facts(func, ctx, analysis)
    from .compact import record_if_facts
    record_if_facts(func, ctx, analysis)
    apply = _ApplyRules(ctx, analysis)
    apply._func = func
    out = rewrite(func, apply)
    if apply.size_name is not None:
        name, param = apply.size_name
        BatchedLoopFacts.get(ctx).batch_size_name = name
        body = list(out.body.body)
        at = 1 if body and is_docstring(body[0]) else 0
        body.insert(at, cst.parse_statement(f"{name} = len({param})\n"))
        out = out.with_changes(body=out.body.with_changes(body=body))
    out = rewrite(out, _FoldLiteralStarts())
    params = out.params.with_changes(
        params=[p.with_changes(default=None, equal=cst.MaybeSentinel.DEFAULT, annotation=None)
                for p in out.params.params],
        kwonly_params=[p.with_changes(default=None, equal=cst.MaybeSentinel.DEFAULT,
                                      annotation=None)
                       for p in out.params.kwonly_params])
    return out.with_changes(params=params, returns=None)
