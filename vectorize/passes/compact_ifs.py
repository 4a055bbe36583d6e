"""Choose how each ``if`` on a per-example condition runs: select or compact.

Assumes: scalar-style code after `masked_loops` and `early_return` (no ``return`` under a
batched condition is left); the current analysis.
Reads: `records.MaskedLoopFacts` (the masks: a loop's guard keeps the loop's strategy).
Writes: `records.CompactedIfs` (the tests of the ``if``s it chose).
Guarantees: ``elif`` chains became ``else: if`` (each ``if`` of the chain is chosen on its
own). Every batched ``if`` chosen for compaction tests a fresh variable assigned just before
it, ``cond = <test>`` (a truth value), whose name it records (`records.CompactedIfs`). Nothing
else changes, so the code keeps its per-example meaning. `if_to_where` turns every other batched
``if`` into merges (the *select* form) and leaves these alone; `batch_rules` records what the
analysis knows about them; `compact` makes each branch work only on its own lanes.

    if x > 0:   # vectorize: compact        cond = x > 0
        y = expensive(x)              ->    if cond:
    else:                                       y = expensive(x)
        y = -x                              else:
                                                y = -x

**Heuristic.** A comment on the ``if`` line (or the line before), ``# vectorize: compact`` or
``# vectorize: select``, decides (an ``elif`` without its own comment takes its chain's).
Otherwise the ``if`` is compacted when its branches hold a loop or a per-example fallback
call, or when their *work* is at least `TRANSFER_COST` times their *transfers*: work counts
each operator, comparison or subscript on per-example values as 1, each call of a math or
NumPy function on them as `CALL_COST`, a call of the user's own function as the work of its
body; transfers count, per branch, the per-example values it reads from before the ``if``
(gathered), the variables it assigns that are used afterwards (scattered) and one for its
lane indices. Select runs every branch on every lane; compact runs each on its own lanes
but moves data: measured with NumPy on a million lanes, gathering or scattering a value on
half of them costs about two additions over all of them, so compaction pays off when the
branches do about four times as much work as they move.

**Measured alternative.** Where the heuristic leaves a compactable ``if`` in select form
(no comment), the module counts it (``switchable_ifs``); `vectorize.chunks.run` may then time
the specialization made with ``if_strategy="compact"`` (every such ``if`` compacted) against
this one on large batches and keep the faster: merges with ``np.where`` cost several times
more when the mask is in random order (branch mispredictions) than when it is sorted, which
no heuristic can see. Both give the same values; a compacted ``if`` that select would have
run under ``np.errstate(all="ignore")`` runs under it too, so warnings do not depend on the
choice either.

An ``if`` keeps the select form (whatever the comment) where compaction cannot give the
same results: a branch that draws random numbers (the draws would differ), writes into an
array that exists before the ``if`` (``v[0] = x``), holds a tuple of per-example values, or
assigns a variable used afterwards that has no value on some lanes (select reports it) or
that holds no number or truth value of a known dtype (the scatter allocates it); or a name
it uses would not be an array exactly where the analysis says it is per example
(`_Choose._arrays_when_run`).
"""

from __future__ import annotations

import types
from collections import Counter

import libcst as cst

from ..abstract import TupleValue
from ..analysis import may_warn
from ..errors import Unsupported
from ..liveness import exposed_reads, liveness_of, reads, writes
from ..loops.carries import (
    array_operands,
    flows_into,
    padded_names,
    promoted_value,
    scatter_dtype_ok,
)
from ..loops.strategy import strategy_comment
from ..syntax.edit import unparenthesized
from ..syntax.traversal import by_type, children, rewrite, statements, walk
from .if_to_where import ElifToNestedIf as _ElifToNestedIf
from .if_to_where import errstate as _errstate
from .if_to_where import warning_parts
from .records import CompactedIfs, MaskedLoopFacts
from .simplify import is_errstate as _is_quiet

OPERATION_COST = 1
CALL_COST = 4
TRANSFER_COST = 4

_LOOP = float("inf")
_OPERATIONS = (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison, cst.BooleanOperation,
               cst.IfExp, cst.Subscript)
_MUTATING_METHODS = {"sort", "fill", "put", "resize", "partition", "itemset", "setfield",
                     "append", "extend", "insert", "pop", "remove", "clear", "reverse",
                     "update", "setdefault", "add", "discard"}


def _with_comment(node: cst.If, choice: str) -> cst.If:
    line = cst.EmptyLine(comment=cst.Comment(f"# vectorize: {choice}"))
    return node.with_changes(leading_lines=[*node.leading_lines, line])


class _InheritComments(cst.CSTTransformer):
    """Every ``elif`` without a strategy comment takes the one of the ``if`` it continues."""

    def leave_If(self, original_node, updated_node):
        choice = strategy_comment(updated_node)
        return _inherit(updated_node, choice) if choice else updated_node


def _inherit(node: cst.If, choice: str) -> cst.If:
    orelse = node.orelse
    if not isinstance(orelse, cst.If):
        return node
    own = strategy_comment(orelse)
    if own is None:
        orelse = _with_comment(orelse, choice)
    return node.with_changes(orelse=_inherit(orelse, own or choice))


def _batched(analysis, node) -> bool:
    return bool(getattr(analysis.values.get(node), "batched", False))


class _Cost:
    """The work of a piece of code on per-example values (see the module's heuristic)."""

    def __init__(self, analysis):
        self.analysis = analysis
        self._helpers: dict = {}

    def of(self, nodes) -> float:
        analysis = self.analysis
        total = 0.0
        for node in nodes:
            for n in walk(node):
                t = type(n)
                if t in (cst.For, cst.While):
                    if any(_batched(analysis, m) for m in walk(n)):
                        return _LOOP
                elif t is cst.Call:
                    if n in analysis.fallback_calls:
                        return _LOOP
                    if n in analysis.helper_calls:
                        total += self.helper(getattr(analysis.values.get(n.func), "example",
                                                     None))
                    elif _batched(analysis, n):
                        total += CALL_COST
                elif t in _OPERATIONS and _batched(analysis, n):
                    total += OPERATION_COST
        return total

    def helper(self, fn, depth: int = 0) -> float:
        """The work of a helper's body, counted from its source: every operator as 1, every
        call as `CALL_COST` (or its own body's work, for the user's functions), a loop as
        unbounded."""
        if not isinstance(fn, types.FunctionType) or depth > 4:
            return CALL_COST
        if fn not in self._helpers:
            from ..source import read_function
            self._helpers[fn] = CALL_COST       # while it is counted (recursion)
            try:
                tree = read_function(fn).tree
            except Exception:
                return CALL_COST
            total = 0.0
            for n in walk(tree.body):
                t = type(n)
                if t in (cst.For, cst.While):
                    total = _LOOP
                    break
                if t is cst.Call:
                    callee = fn.__globals__.get(n.func.value) if isinstance(
                        n.func, cst.Name) else None
                    total += self.helper(callee, depth + 1) if isinstance(
                        callee, types.FunctionType) else CALL_COST
                elif t in _OPERATIONS:
                    total += OPERATION_COST
            self._helpers[fn] = total
        return self._helpers[fn]


class _Unquiet(cst.CSTTransformer):
    """``with <quiet>: body`` -> ``body``, for blocks inside one that is quiet already (a
    user's own ``np.errstate`` with other settings stays)."""

    def __init__(self, quiet: str):
        self.quiet = quiet

    def leave_With(self, original_node, updated_node):
        if _is_quiet(updated_node, self.quiet):
            return cst.FlattenSentinel(list(updated_node.body.body))
        return updated_node


class _Facts:
    """What the statements of a function hold, found in one walk (each ``if`` asks about its
    branches, and ``if``s nest): a ``return``, or a ``break``/``continue`` of a loop outside
    the statement (`exits`); a random draw or a per-example tuple (`unsafe`); changes of an
    existing object in place, ``v[i] = ...``, ``v.a = ...``, ``v[i] += ...`` or a mutating
    method, by the name of the object (`writes_into`)."""

    def __init__(self, func, analysis):
        self._exits: set[int] = set()
        self._unsafe: set[int] = set()
        self._into: dict[int, set[str]] = {}
        path: list = []                       # the nodes from `func` down to the current one
        stack = [(func, 0)]
        while stack:
            node, depth = stack.pop()
            del path[depth:]
            path.append(node)
            kind = type(node)
            if kind is cst.Return:
                self._exits.update(map(id, path))
            elif kind is cst.Break or kind is cst.Continue:
                loops = [k for k, p in enumerate(path) if type(p) in (cst.For, cst.While)]
                self._exits.update(map(id, path[loops[-1] + 1 if loops else 0:]))
            if node in analysis.random_calls or (
                    isinstance(analysis.values.get(node), TupleValue)
                    and _batched(analysis, node) and not _item_taken(node, path)):
                self._unsafe.update(map(id, path))
            for name in _changed_in_place(node):
                for p in path:
                    self._into.setdefault(id(p), set()).add(name)
            stack += [(c, depth + 1) for c in reversed(children(node))]

    def exits(self, stmts) -> bool:
        return any(id(s) in self._exits for s in stmts)

    def unsafe(self, stmts) -> bool:
        return any(id(s) in self._unsafe for s in stmts)

    def writes_into(self, stmts, names) -> bool:
        return any(not self._into.get(id(s), set()).isdisjoint(names) for s in stmts)


def _item_taken(node, path: list) -> bool:
    """``[a, b][0]``: a tuple or list display whose item is taken at once at a literal
    index is no tuple value of the branch (only the item is gathered and scattered)."""
    parent = path[-2] if len(path) > 1 else None
    return type(node) in (cst.List, cst.Tuple) and type(parent) is cst.Subscript and \
        parent.value is node and len(parent.slice) == 1 and \
        type(parent.slice[0].slice) is cst.Index and \
        type(parent.slice[0].slice.value) is cst.Integer


def _changed_in_place(node) -> list[str]:
    """``v`` of ``v[i] = ...``, ``v.a = ...``, ``v[i] += ...``, ``v.sort()``..."""
    kind = type(node)
    if kind is cst.Assign:
        targets = [t.target for t in node.targets]
    elif kind is cst.AugAssign or kind is cst.AnnAssign:
        targets = [node.target]
    elif kind is cst.Call and type(node.func) is cst.Attribute \
            and node.func.attr.value in _MUTATING_METHODS:
        targets = [node.func]
    else:
        return []
    names = []
    for target in targets:
        if isinstance(target, (cst.Subscript, cst.Attribute)):
            while isinstance(target, (cst.Subscript, cst.Attribute)):
                target = target.value
            if type(target) is cst.Name:
                names.append(target.value)
    return names


class _Choose(cst.CSTTransformer):
    def __init__(self, ctx, analysis, liveness, func):
        self.ctx = ctx
        self.analysis = analysis
        self.liveness = liveness
        self.cost = _Cost(analysis)
        self.chosen: dict[cst.If, str | None] = {}     # if -> its fresh test name (or None)
        self.boolean: dict[cst.If, bool] = {}
        self.quiet: set[cst.If] = set()   # compacted instead of selected, and may warn
        self.func = func
        self.padded = None      # `carries.padded_names`, once needed
        self.loops: list = []             # the loops around the node being visited
        self.facts = _Facts(func, analysis)
        # how many `if`s test each name (`compact` finds an `if` by its test's name)
        self.tests = Counter(n.test.value for n in by_type(func).get(cst.If, ())
                             if type(n.test) is cst.Name)

    def visit_For(self, node):
        self.loops.append(node)

    def visit_While(self, node):
        self.loops.append(node)

    def leave_For(self, original_node, updated_node):
        self.loops.pop()
        return updated_node

    def leave_While(self, original_node, updated_node):
        self.loops.pop()
        return updated_node

    def visit_If(self, node):
        """Chosen top-down, so that an outer `if` gets the first fresh name."""
        analysis = self.analysis
        if not analysis.batched_tests.get(node, False):
            return True
        test = node.test
        raising = self._raising_call(node)
        facts = MaskedLoopFacts.get(self.ctx)
        if isinstance(test, cst.Name) and test.value in facts.masks:
            if raising is not None and facts.strategy.get(test.value) == "compact":
                # its finished lanes leave the loop at the end of every pass (`compact`)
                facts.every_pass.add(test.value)
            elif raising is not None:
                # (a masked loop's body runs on the lanes that have left it too: `np.where`)
                raise Unsupported(
                    "a call of a function that may raise, in a loop whose examples stop at "
                    "different times and that keeps every lane (`select`, or a backend that "
                    "cannot gather lanes): its batched version would run on the examples "
                    "that have left the loop too, and raise there (the rewritten file has no "
                    "per-example loop to fall back on)", raising,
                    "remove a `# vectorize: select` comment on the loop, or check the "
                    "condition inside the called function", kind="raises")
            return True      # the guard of a masked loop: the loop has its own strategy
        prims = self.ctx.registry.primitives
        if not prims.compaction and not (raising is not None and prims.unjitted_compaction):
            self._no_piece_on_every_lane(node)      # the backend cannot gather lanes
            self._no_raising_call_on_every_lane(raising)
            return True
        comment = strategy_comment(node)
        choice = comment or ("compact" if raising is not None or self._worth_it(node)
                             else "select")
        if choice == "select" and comment is not None or not self._possible(node):
            self._no_piece_on_every_lane(node)
            self._no_raising_call_on_every_lane(raising)
            return True
        if choice == "select":
            module = self.ctx.module
            if module.if_strategy != "compact":
                module.switchable_ifs += 1      # `chunks.run` may time the compacted form
                return True
            # the compacted alternative of a heuristic select: it must warn as select would
            # (silenced on the whole `if`), so that timing it changes no observable behaviour
            if may_warn(warning_parts(node), analysis, self.ctx.registry):
                self.quiet.add(node)
        boolean = getattr(analysis.values.get(test), "kind", "?") == "b"
        if (isinstance(test, cst.Name) and test.value in self.ctx.namer.generated
                and test.value not in CompactedIfs.get(self.ctx).tests and boolean
                and test.value not in writes(node) and self.tests[test.value] == 1):
            # (its name marks this `if` for `if_to_where` and `compact`: not where another
            # `if` tests the same flag, `if returned:` after an inner loop and after the
            # outer one)
            self.chosen[node] = None           # already a name of the engine's own
            CompactedIfs.get(self.ctx).tests[test.value] = None
        else:
            self.chosen[node] = cond = self.ctx.namer.fresh("cond")
            CompactedIfs.get(self.ctx).tests[cond] = None
        self.boolean[node] = boolean
        return True

    def leave_If(self, original_node, updated_node):
        if original_node not in self.chosen:
            return updated_node
        new = self._with_test(original_node, updated_node)
        if original_node in self.quiet:
            prims = self.ctx.registry.primitives
            body = list(new.nodes) if isinstance(new, cst.FlattenSentinel) else [new]
            # the `if`s inside are silenced by this block already
            new = _errstate([rewrite(stmt, _Unquiet(prims.quiet)) for stmt in body], prims)
        return new

    def _with_test(self, original_node, updated_node):
        cond = self.chosen[original_node]
        if cond is None:
            return updated_node
        value = unparenthesized(updated_node.test) if isinstance(
            updated_node.test, (cst.Comparison, cst.BooleanOperation, cst.UnaryOperation,
                                cst.Name, cst.Call)) else updated_node.test
        if not self.boolean[original_node]:
            value = cst.Call(func=cst.Name("bool"), args=[cst.Arg(value)])   # a truth value
        assign = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(cond))],
                                                     value)])
        return cst.FlattenSentinel([assign, updated_node.with_changes(test=cst.Name(cond))])

    def _branches(self, node: cst.If) -> list[list]:
        branches = [list(node.body.body)]
        if node.orelse is not None:
            branches.append(list(node.orelse.body.body))
        return branches

    def _transfers(self, node: cst.If, entry: dict) -> int:
        live = self.liveness.live_after.get(node, set())
        total = 0
        for stmts in self._branches(node):
            gathered = {n for n in exposed_reads(stmts)
                        if getattr(entry.get(n), "batched", False)}
            scattered = set().union(*map(writes, stmts)) & live if stmts else set()
            total += len(gathered) + len(scattered) + 1
        return total

    def _no_piece_on_every_lane(self, node: cst.If) -> None:
        """The select form runs both branches on every lane: a call that runs per example
        there (no batching rule) would run on examples Python keeps out of it, where it may
        raise (`math.factorial` of the negative values an ``if x > 0:`` keeps out). Refused,
        so that with fallbacks allowed the whole function runs per example."""
        for stmts in self._branches(node):
            for stmt in stmts:
                for n in walk(stmt):
                    if n in self.analysis.fallback_calls:
                        raise Unsupported(
                            f"{self.analysis.fallback_calls[n]} and would run per example "
                            "under a per-example condition, on every example (this `if` "
                            "cannot run each branch on its own examples only), also where "
                            "Python does not run it", n,
                            "compute it with operations that have batching rules, or "
                            "register a rule with vectorize.register_rule")

    def _raising_call(self, node: cst.If):
        """A call in a branch of a helper that may raise, in code nothing replays
        (`FunctionJob.unreplayed_raising_call`: the file rewriter's): compacted, so that it
        runs on its branch's lanes only; None if none."""
        check = getattr(self.ctx, "unreplayed_raising_call", None)
        if check is None:
            return None
        for stmts in self._branches(node):
            for stmt in stmts:
                for n in walk(stmt):
                    if type(n) is cst.Call and check(n):
                        return n
        return None

    def _no_raising_call_on_every_lane(self, call) -> None:
        if call is not None:
            raise Unsupported(
                "a call of a function that may raise, under a per-example `if` whose branches "
                "must run on every example here: its batched version would raise also for "
                "examples Python keeps out of it (the rewritten file has no per-example loop "
                "to fall back on)", call,
                "check the condition inside the called function, or remove a "
                "`# vectorize: select` comment on the `if`", kind="raises")

    def _worth_it(self, node: cst.If) -> bool:
        envs = self.analysis.if_envs.get(node)
        if envs is None or envs[0] is None:
            return False
        branches = self._branches(node)
        work = sum(self.cost.of(stmts) for stmts in branches)
        # each branch transfers at least its lane indices: no need to count the rest when
        # the work is below even that
        return work >= TRANSFER_COST * len(branches) and \
            work >= TRANSFER_COST * self._transfers(node, envs[0])

    def _possible(self, node: cst.If) -> bool:
        """Whether the compact form can give exactly the select form's results."""
        analysis = self.analysis
        envs = analysis.if_envs.get(node)
        if envs is None or any(e is None for e in envs):
            return False
        entry, then_env, else_env, joined = envs
        branches = self._branches(node)
        statements_ = [s for stmts in branches for s in stmts]
        facts = self.facts
        if facts.exits(statements_) or facts.unsafe(statements_) \
                or facts.writes_into(statements_, entry):
            return False
        if self.padded is None:
            self.padded = padded_names(self.func, analysis)
        if self.padded & set().union(*(reads(s) | writes(s) for stmts in branches
                                       for s in stmts)):
            return False     # a loop's vector result, maybe not its whole shape yet
        live = self.liveness.live_after.get(node, set())
        assigned = [set().union(*map(writes, stmts)) if stmts else set()
                    for stmts in branches]
        for name in set().union(*assigned) & live:
            value = joined.get(name)
            if not scatter_dtype_ok(value):
                return False     # a string, object or value of unknown type: select
            if name not in entry and not (len(assigned) == 2 and all(
                    name in a for a in assigned)):
                return False     # select reports that it may have no value
            sources = [env.get(name) for env in (then_env, else_env, entry) if name in env]
            if any(isinstance(v, TupleValue) or v.rank != value.rank for v in sources):
                return False     # a per-example scalar on some lanes, a vector on others
        return self._arrays_when_run(node, entry)

    def _arrays_when_run(self, node: cst.If, entry: dict) -> bool:
        """Whether the names the compacted ``if`` uses are arrays exactly where the analysis
        says they are per example, whenever it runs:

        - every name it needs as an array (`carries.array_operands`) is one: a carry of a
          loop around it that enters the loop the same for every example and flows into one
          of them is made an array before the loop by `batch_rules`, where its type is known;
        - none it uses as it is (the same for every example at ``entry``) is an array: a
          loop around it that may run no iteration, and that leaves a name per example that
          it entered with and keeps at its head the same for every example, makes that name
          an array before the loop (`batch_rules`, so that it is one after the loop), where
          the analysis of the loop's body still sees it shared: a compacted branch would use
          it whole on its own lanes."""
        needed = used = None
        analysis = self.analysis
        for loop in self.loops:
            loop_entry = analysis.loop_entry.get(loop, {})
            loop_exit = analysis.loop_exit.get(loop) or {}
            may_skip = analysis.loop_may_skip.get(loop, False)
            for name, at_head in analysis.loop_head.get(loop, {}).items():
                before = loop_entry.get(name)
                if before is None or before.batched:
                    continue
                if getattr(at_head, "batched", False):
                    if needed is None:
                        needed = array_operands(node, entry,
                                                self.liveness.live_after.get(node, set()))
                    if (promoted_value(before, at_head) is None or name not in
                            analysis.defined_before_loop.get(loop, ())) \
                            and flows_into(loop, name, needed):
                        return False     # (it cannot be made an array, or may be unbound)
                elif may_skip and getattr(loop_exit.get(name), "batched", False):
                    if used is None:
                        used = reads(node) | writes(node)
                    if flows_into(loop, name, used):
                        return False
        return True


def transform(func: cst.FunctionDef, ctx) -> cst.FunctionDef:
    ifs = [n for n in statements(func) if type(n) is cst.If]
    if not ifs:
        return func
    if any(isinstance(n.orelse, cst.If) for n in ifs):
        if any(map(strategy_comment, ifs)):
            func = rewrite(func, _InheritComments())
        func = rewrite(func, _ElifToNestedIf())
    analysis = ctx.analyze(func)
    if not any(batched for node, batched in analysis.batched_tests.items()
               if type(node) is cst.If):
        return func
    return rewrite(func, _Choose(ctx, analysis, liveness_of(func), func))
