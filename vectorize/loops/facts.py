"""What compaction needs to know, recorded while the analysis can still see it.

`compact` works on array code, which the analysis cannot read; `batch_rules`, the last pass
over scalar-style code, calls `record_loop_facts` and `record_if_facts` before it applies the
rules, so that `compact` finds in `records.BatchedLoopFacts` and `records.CompactedIfs` what
each compacted loop carries and what each compacted ``if`` reads and assigns. `loop_mask`
recognises a masked loop (by its mask) in either form.
"""

from __future__ import annotations

import libcst as cst

from ..abstract import TupleValue
from ..liveness import liveness_of, writes
from ..passes.records import BatchedLoopFacts, CompactedIfs, MaskedLoopFacts
from ..rules.lanes import ANY_LANE
from ..syntax.traversal import walk
from .carries import padded_names


def _mask_tested(test) -> str | None:
    """``__any_lane__(active)`` (scalar form) or ``active.any()`` (array form) ->
    ``"active"``."""
    if not isinstance(test, cst.Call):
        return None
    if (not test.args and isinstance(test.func, cst.Attribute)
            and test.func.attr.value == "any" and isinstance(test.func.value, cst.Name)):
        return test.func.value.value
    if (len(test.args) == 1 and isinstance(test.func, cst.Name)
            and test.func.value == ANY_LANE and isinstance(test.args[0].value, cst.Name)):
        return test.args[0].value.value
    return None


def _stop(loop: cst.For) -> str | None:
    """The mask of a masked ``for`` loop: its body ends with ``if not any(active): break``."""
    body = loop.body.body if isinstance(loop.body, cst.IndentedBlock) else []
    last = body[-1] if body else None
    if not (isinstance(last, cst.If) and last.orelse is None
            and isinstance(last.test, cst.UnaryOperation)
            and isinstance(last.test.operator, cst.Not)
            and isinstance(last.body, cst.IndentedBlock) and len(last.body.body) == 1):
        return None
    only = last.body.body[0]
    if not (isinstance(only, cst.SimpleStatementLine) and len(only.body) == 1
            and isinstance(only.body[0], cst.Break)):
        return None
    return _mask_tested(last.test.expression)


def loop_mask(loop) -> str | None:
    """The mask of a masked loop, in scalar or array form: ``while __any_lane__(active):``,
    or a ``for`` loop whose body ends with ``if not __any_lane__(active): break``."""
    if type(loop) is cst.While:
        return _mask_tested(loop.test)
    if type(loop) is cst.For:
        return _stop(loop)
    return None


def record_loop_facts(func, ctx, analysis) -> None:
    """For each masked loop to be compacted: the variables it carries (live at its head,
    assigned in it, batched) with their dtypes, and the batched values it only reads."""
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
        BatchedLoopFacts.get(ctx).values[active] = batched


def record_if_facts(func: cst.FunctionDef, ctx, analysis) -> None:
    """For each ``if`` chosen for compaction, what the scalar-form analysis knows of its
    variables (called by `batch_rules`, whose output the analysis can no longer read)."""
    compacted = CompactedIfs.get(ctx).tests
    if not compacted:
        return
    for node in walk(func):
        if type(node) is cst.If and isinstance(node.test, cst.Name) \
                and node.test.value in compacted:
            batched = analysis.batched_tests.get(node, False)
            compacted[node.test.value] = analysis.if_envs.get(node) if batched else None
