"""Loops whose examples stop at different times become masked loops.

Assumes: scalar-style code; the current analysis, which marks *masked* loops (a batched
``while`` test, a ``for`` over a ``range`` with batched bounds, or ``break``/``continue``/
``return`` under a batched condition).
Reads: no record. Writes: `records.MaskedLoopFacts` (its masks, their strategies, the
placeholders of results returned in loops).
Guarantees: every masked loop becomes a loop over an unbatched condition,
``while __any_lane__(active):`` (or the original unbatched ``for``), whose body runs under
``if active:``. ``break`` clears ``active``; ``continue`` skips to the end of the iteration;
``return v`` inside a loop sets ``result``/``returned``, clears ``active`` and is answered
after the loop by ``if returned: return result``. The statements after a ``break``/
``continue``/``return`` move into the branch that falls through, as in `early_return`
(both use `continuations`). The output is still scalar-style code with the same per-example
meaning (``__any_lane__(a)`` is ``bool(a)`` per example); `if_to_where` then turns
``if active:`` into ``np.where`` merges and `batch_rules` turns ``__any_lane__(active)`` into
``active.any()``.

    while abs(y * y - x) > tol:             active = abs(y * y - x) > tol
        y = (y + x / y) / 2          ->     while __any_lane__(active):
                                                if active:
                                                    y = (y + x / y) / 2
                                                    active = abs(y * y - x) > tol
"""

from __future__ import annotations

import functools

import libcst as cst

from ..abstract import TupleValue, join
from ..errors import Unsupported
from ..liveness import Liveness, changes, exposed_reads, reads, target_names, writes
from ..loops.placeholders import has_literal, literal_for
from ..loops.strategy import strategy_of
from ..rules.lanes import ANY_LANE
from ..syntax.edit import unparenthesized
from ..syntax.templates import bare_code, parse_expr, parse_stmt
from ..syntax.traversal import children, rewrite, statements, walk
from .continuations import ContinuationLowering, check_returned_shapes
from .records import MaskedLoopFacts

_EXITS = (cst.Break, cst.Continue, cst.Return)


def _line(small) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([small])


def _assign(name: str, value) -> cst.SimpleStatementLine:
    if isinstance(value, str):
        value = parse_expr(value)
    return _line(cst.Assign([cst.AssignTarget(cst.Name(name))], value))


def _exits_in(node, kinds=_EXITS) -> bool:
    """Whether ``node`` holds a break/continue/return that belongs to the current loop
    (those inside nested loops belong to them, except returns)."""
    stack = list(children(node)) if isinstance(node, (cst.For, cst.While)) else [node]
    while stack:
        n = stack.pop()
        if isinstance(n, kinds):
            return True
        if isinstance(n, (cst.For, cst.While)):
            if cst.Return in kinds and _exits_in(n, (cst.Return,)):
                return True
            continue
        stack.extend(children(n))
    return False


class _Loop(ContinuationLowering):
    """Lowering of one loop body."""

    exits = _EXITS

    def __init__(self, names, active: str | None, iteration_end=list):
        self.names = names
        self.active = active
        self.iteration_end = iteration_end   # what ends every iteration (`continue` too)

    def holds_exit(self, stmt) -> bool:
        return _exits_in(stmt)

    def flag(self) -> str:
        return self.names.ctx.namer.fresh("exited")

    def can_guard(self, stmt: cst.If, after: list) -> bool:
        """As `early_return._Lowering.can_guard`."""
        before = self.names.analysis.defined_before.get(stmt)
        return before is not None and not (writes(stmt) - before) & exposed_reads(after)

    def exit_for(self, small, tail) -> list:
        if isinstance(small, cst.Break):
            return [_assign(self.active, "False")] if self.active else [_line(small)]
        if isinstance(small, cst.Continue):
            return self.iteration_end()
        result, returned = self.names.result_names()
        out = []
        value = small.value if small.value is not None else cst.Name("None")
        if not (isinstance(value, cst.Name) and value.value == result):
            out.append(_assign(result, unparenthesized(value)
                               if isinstance(value, cst.Tuple) else value))
        out.append(_assign(returned, "True"))
        out.append(_assign(self.active, "False") if self.active else _line(cst.Break()))
        return out


class _Names:
    def __init__(self, ctx, analysis):
        self.ctx = ctx
        self.analysis = analysis
        self._result = None

    def result_names(self):
        if self._result is None:
            self._result = (self.ctx.namer.fresh("result"), self.ctx.namer.fresh("returned"))
        return self._result

    def mask(self, strategy: str = "select", loop=None) -> str:
        if not self.ctx.registry.primitives.compaction:
            strategy = "select"         # the backend cannot gather lanes
        elif loop is not None and _writes_into_items(loop):
            # the gathered lanes of an array written into are a copy, which the compacted
            # loop never scatters back (it scatters the names it assigns)
            strategy = "select"
        name = self.ctx.namer.fresh("active")
        facts = MaskedLoopFacts.get(self.ctx)
        facts.masks.add(name)
        facts.loops[name] = loop
        facts.strategy[name] = strategy
        return name


def _writes_into_items(loop) -> bool:
    """Whether ``loop`` assigns into an item of something (``y[i] = v``, ``y[i] += v``)."""
    for n in walk(loop):
        t = type(n)
        if t is cst.AssignTarget or t is cst.AugAssign:
            target = n.target
            if type(target) in (cst.Tuple, cst.List):
                if any(type(e.value) is cst.Subscript for e in target.elements):
                    return True
            elif type(target) is cst.Subscript:
                return True
    return False


def _guarded(active: str, body: list) -> cst.If:
    return cst.If(test=cst.Name(active), body=cst.IndentedBlock(body=body or
                                                                 [_line(cst.Pass())]))


class _MaskLoops(cst.CSTTransformer):
    def __init__(self, ctx, analysis, names, func):
        self.ctx = ctx
        self.analysis = analysis
        self.names = names
        self.func = func
        self._liveness = None
        self._nested = None       # the loops inside other loops

    def _placeholders(self, original) -> list:
        """Names the loop binds before each of its exits and the code after it reads, but
        that have no value before it (``while True:`` with ``y = ...`` before the
        ``break``): the masked form assigns them under ``if active:`` only, so they get a
        typed placeholder first. No lane keeps it: each leaves the loop by an exit that
        assigned the name (the analysis rejects the function otherwise)."""
        if self._liveness is None:
            self._liveness = Liveness(self.func)
        live = self._liveness.live_after.get(original, set())
        defined = self.analysis.defined_before_loop.get(original, set())
        out = []
        for name in sorted((writes(original) & live) - defined):
            # every value it has in the loop (all assigned there): their join is its type
            values = [self.analysis.values[n] for n in walk(original)
                      if type(n) is cst.Name and n.value == name and n in self.analysis.values]
            if not values:
                continue
            value = functools.reduce(join, values)
            if not has_literal(value):
                raise Unsupported(f"`{name}` gets its first value inside a loop whose examples "
                                  "stop at different times, and it is not a number",
                                  original, f"give `{name}` a value before the loop")
            out.append(_assign(name, literal_for(value)))
        return out

    def _needs(self, original) -> bool:
        if original in self.analysis.masked_loops:
            return True
        return self.analysis.batched_returns and _exits_in(original, (cst.Return,))

    def _prologue(self, original) -> list:
        """``returned``/``result`` before a loop that returns, typed from the analysis (not
        before a loop inside another: that one's are set already, and every lane that
        reaches the inner loop has not returned)."""
        if not _exits_in(original, (cst.Return,)) or self._inside_a_loop(original):
            return []
        result, returned = self.names.result_names()
        inside = {id(n) for n in statements(original) if type(n) is cst.Return}
        values = [v for node, v in self.analysis.returns if id(node) in inside]
        literal = literal_for(values[0]) if values else "None"
        # a number also where a vector is returned: `batch_rules` makes it an array that
        # broadcasts against the returned values
        MaskedLoopFacts.get(self.ctx).placeholders.setdefault(result, next(
            (node for node, _ in self.analysis.returns if id(node) in inside), None))
        return [_assign(returned, "False"), _assign(result, literal)]

    def _inside_a_loop(self, original) -> bool:
        if self._nested is None:
            self._nested = {inner for loop in walk(self.func) if type(loop) in (cst.For, cst.While)
                            for inner in walk(loop.body) if type(inner) in (cst.For, cst.While)}
        return original in self._nested

    def _epilogue(self, original) -> list:
        if not _exits_in(original, (cst.Return,)):
            return []
        result, returned = self.names.result_names()
        return [parse_stmt(f"if {returned}:\n    return {result}\n")]

    def leave_While(self, original_node, updated_node):
        if not self._needs(original_node):
            return updated_node
        strategy = strategy_of(original_node, default="compact")
        if not self.ctx.registry.primitives.compaction:
            strategy = "select"
        active = self.names.mask(strategy, original_node)
        strategy = MaskedLoopFacts.get(self.ctx).strategy[active]
        test = updated_node.test
        if strategy == "select" and _shares_work(updated_node.test, updated_node.body):
            return self._rotated(original_node, updated_node, active)
        def iteration_end():
            return [_assign(active, _truth(test.deep_clone()))]
        body = _Loop(self.names, active, iteration_end).seq(list(updated_node.body.body),
                                                            iteration_end)
        loop = updated_node.with_changes(
            test=parse_expr(f"{ANY_LANE}({active})"),
            body=cst.IndentedBlock(body=[_guarded(active, body)]))
        return cst.FlattenSentinel(self._prologue(original_node)
                                   + self._placeholders(original_node)
                                   + [_assign(active, _truth(test.deep_clone())), loop]
                                   + self._epilogue(original_node))

    def _rotated(self, original, updated, active: str):
        """The select form of a ``while``, tested at the top of each pass: the test and
        the body then read the same values, so what they share is computed once (`simplify`
        extracts it), and no lane's test is computed on values it is about to throw away.

            active = True
            while True:
                active = active and <test>
                if not __any_lane__(active):
                    break
                if active:
                    <body>
        """
        body = _Loop(self.names, active).seq(list(updated.body.body), list)
        retest = _assign(active, cst.BooleanOperation(
            left=cst.Name(active), operator=cst.And(), right=_truth(updated.test.deep_clone())))
        stop = parse_stmt(f"if not {ANY_LANE}({active}):\n    break\n")
        loop = updated.with_changes(test=cst.Name("True"), body=cst.IndentedBlock(
            body=[retest, stop, _guarded(active, body)]))
        return cst.FlattenSentinel(self._prologue(original) + self._placeholders(original)
                                   + [_assign(active, "True"), loop] + self._epilogue(original))

    def leave_For(self, original_node, updated_node):
        if not self._needs(original_node):
            return updated_node
        iterable = self.analysis.values.get(original_node.iter)
        if original_node in self.analysis.sequence_loops:
            # a loop over a per-example array that `sequence_loops` did not see: code the
            # first analysis did not reach (after a loop whose examples all return), which
            # lowering the returns made reachable
            raise Unsupported("a `for` loop over a per-example array after a loop that "
                              "returns on every path is not supported yet",
                              original_node.iter, "loop over `range(len(v))` and index "
                              "`v[i]`")
        if getattr(iterable, "batched", False) and not isinstance(iterable, TupleValue):
            # (a tuple of per-example values, `*args`, is a Python loop over its items)
            return self._batched_range(original_node, updated_node)
        if original_node not in self.analysis.masked_loops or not _exits_in(
                original_node, (cst.Break, cst.Return)):
            # only `continue` differs per example (the rest of the body moves into the branch
            # that does not skip), or returns under unbatched conditions: an ordinary break
            # after noting the result
            body = _Loop(self.names, None).seq(list(updated_node.body.body), list)
            loop = updated_node.with_changes(body=cst.IndentedBlock(body=body))
            return cst.FlattenSentinel(self._prologue(original_node) + [loop]
                                       + self._epilogue(original_node))
        active = self.names.mask(strategy_of(original_node, default="compact"), original_node)
        statements = list(updated_node.body.body)
        updated_node, kept, placeholders = self._per_lane_target(original_node, updated_node)
        before = placeholders + [line for line in self._placeholders(original_node)
                                 if line.body[0].targets[0].target.value not in kept] \
            if kept else self._placeholders(original_node)
        statements[:0] = list(kept.values())
        body = _Loop(self.names, active).seq(statements, list)
        stop = parse_stmt(f"if not {ANY_LANE}({active}):\n    break\n")
        loop = updated_node.with_changes(body=cst.IndentedBlock(
            body=[_guarded(active, body), stop]))
        return cst.FlattenSentinel(self._prologue(original_node) + before
                                   + [_assign(active, "True"), loop]
                                   + self._epilogue(original_node))

    def _per_lane_target(self, original, updated):
        """``for i in range(5):`` left by a per-example ``break``, with ``i`` read after the
        loop: each lane keeps the ``i`` of its last pass. The loop runs on a fresh name and
        the body starts with ``i = i_2`` (under the mask, so finished lanes keep theirs);
        ``i`` gets a typed placeholder first when it has no value before the loop (no lane
        keeps it: the sequence is not empty, or the analysis would reject the read)."""
        if self._liveness is None:
            self._liveness = Liveness(self.func)
        live = self._liveness.live_after.get(original, set())
        flat = isinstance(original.target, (cst.Tuple, cst.List)) and all(
            type(e) is cst.Element and type(e.value) is cst.Name
            for e in original.target.elements)
        targets = [e.value for e in original.target.elements] if flat else [original.target]
        if not all(isinstance(t, cst.Name) for t in targets):
            if set(target_names(original.target)) & live:
                raise Unsupported("a nested unpacking target of a loop whose examples stop at "
                                  "different times, read after the loop", original.target,
                                  "unpack the item in the loop's body")
            return updated, {}, []
        if not any(t.value in live for t in targets):
            return updated, {}, []
        kept, placeholders, steps = {}, [], []
        for target in targets:       # (each name of `for t, a, b in TABLE:` the same way)
            if target.value not in live:
                steps.append(target)
                continue
            step = self.ctx.namer.fresh(target.value)
            steps.append(cst.Name(step))
            kept[target.value] = _assign(target.value, cst.Name(step))
            if target.value not in self.analysis.defined_before_loop.get(original, set()):
                value = self.analysis.loop_head.get(original, {}).get(target.value)
                if not has_literal(value):
                    raise Unsupported(f"the loop variable `{target.value}` is read after a "
                                      "loop whose examples stop at different times, and it "
                                      "is not a number", target, f"give `{target.value}` a "
                                      "value before the loop")
                placeholders.append(_assign(target.value, literal_for(value)))
        new_target = steps[0] if not flat else updated.target.with_changes(elements=[
            e.with_changes(value=t) for e, t in zip(updated.target.elements, steps)])
        return updated.with_changes(target=new_target), kept, placeholders

    def _batched_range(self, original, node):
        """``for i in range(a, b, s)`` with per-example bounds: a counter and a mask."""
        if not isinstance(node.target, cst.Name):
            raise Unsupported("unpacking the target of a loop over a per-example range",
                              original.target)
        args = [a.value for a in node.iter.args]
        start, stop, step = (cst.Integer("0"), args[0], None) if len(args) == 1 else \
            (args[0], args[1], args[2] if len(args) > 2 else None)
        step_value = self.analysis.values.get(original.iter.args[2].value) if step else None
        if step is not None and (getattr(step_value, "batched", True)
                                 or not isinstance(step_value.example, int)):
            raise Unsupported("a per-example range whose step is not a constant", node.iter,
                              "use a constant step")
        descending = step is not None and step_value.example < 0
        counter = self.ctx.namer.fresh(f"{node.target.value}_next")
        # Python evaluates the bounds once: a stop that reads a name the body (or the
        # target) changes is kept as it was before the loop (``for j in range(m): m -= 1``)
        changed = {node.target.value}.union(*(changes(s) for s in node.body.body))
        frozen = []
        if reads(stop) & changed:
            bound = self.ctx.namer.fresh(f"{node.target.value}_stop")
            frozen = [_assign(bound, stop)]
            stop = cst.Name(bound)
        active = self.names.mask(strategy_of(original, default="compact"), original)
        compare = ">" if descending else "<"
        from ..syntax.templates import expr
        test = expr("{c} " + compare + " {stop}", c=cst.Name(counter), stop=stop)
        increment = expr("{c} + {s}", c=cst.Name(counter), s=step or cst.Integer("1"))
        tail = [_assign(counter, increment), _assign(active, test)]
        body = [_assign(node.target.value, cst.Name(counter))]
        def iteration_end():
            return [s.deep_clone() for s in tail]
        body += _Loop(self.names, active, iteration_end).seq(list(node.body.body),
                                                             iteration_end)
        loop = cst.While(test=parse_expr(f"{ANY_LANE}({active})"),
                         body=cst.IndentedBlock(body=[_guarded(active, body)]))
        return cst.FlattenSentinel(self._prologue(original) + frozen
                                   + [_assign(counter, start), _assign(active, test), loop]
                                   + self._epilogue(original))


def _shares_work(test, body) -> bool:
    """Whether the loop test computes something the body computes again (``zr * zr`` in
    both): tested at the top of each pass, the two can share it."""
    kinds = (cst.BinaryOperation, cst.UnaryOperation, cst.Call)

    def keys(node):
        return {bare_code(n) for n in walk(node) if isinstance(n, kinds)}
    return bool(keys(test) & keys(body))


def _truth(test):
    """The loop test as a truth value (``while n:`` on integers masks with ``bool(n)``)."""
    if isinstance(test, (cst.Comparison, cst.BooleanOperation)) or (
            isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not)) or (
            isinstance(test, cst.Name) and test.value in ("True", "False")):
        return test
    return cst.Call(func=cst.Name("bool"), args=[cst.Arg(test)])


def transform(func: cst.FunctionDef, ctx) -> cst.FunctionDef:
    analysis = ctx.analyze(func)
    if not analysis.masked_loops and not (analysis.batched_returns
                                          and analysis.returns_in_loops):
        return func
    if analysis.batched_returns:
        check_returned_shapes(analysis)
    return rewrite(func, _MaskLoops(ctx, analysis, _Names(ctx, analysis), func))
