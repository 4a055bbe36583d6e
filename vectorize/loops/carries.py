"""Loop carries: names that enter a loop the same for every example and are per example at
its head (assigned under a per-example condition in it, or from per-example values).

The analysis sees such a carry batched from the loop's head on, but before the first pass it
is still a Python number (or a shared array). Where code inside or after the loop needs it
to be an array (a compacted ``if``'s gathers, indexing, a call that is not a ufunc on
scalars) `batch_rules` makes it one before the loop (`promoted_value`: ``np.full``); where it
cannot (a tuple, a value of unknown type) `compact_ifs` keeps the select form. A loop that
may run no pass makes a name it leaves per example an array before it too
(`needs_promotion`). `padded_names` are the names such a promotion may give length-1 axes,
which compaction cannot scatter into.
"""

from __future__ import annotations

import libcst as cst
import numpy as np

from ..abstract import TupleValue, Value
from ..liveness import body_of, exposed_reads, flows_from, liveness_of, reads, writes
from ..passes.records import CompactedIfs, MaskedLoopFacts
from ..syntax.traversal import walk


def _is_batched(value) -> bool:
    return bool(getattr(value, "batched", False))


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


def needs_promotion(path_value, joined_value) -> bool:
    """A value the same for every example on this path, per example where paths join."""
    return (isinstance(path_value, Value) and isinstance(joined_value, Value)
            and not path_value.batched and joined_value.batched
            and joined_value.dtype is not None)


def array_operands(node: cst.If, entry: dict, live: set) -> set[str]:
    """The names a compacted ``if`` needs to hold arrays when it runs: those its test reads
    (its lanes are those of an array: ``np.flatnonzero(cond)``, ``~cond``, ``len(cond)``),
    the per-example values (at ``entry``) its branches read before assigning them (gathered,
    ``x[lanes]``) and those they assign that are used afterwards (``live``: gathered, or
    copied before the scatter, ``x.astype(...)``). Anything per example is an array where it
    is computed; only a loop's carry that starts the same for every example is not, on the
    first iteration, unless `batch_rules` makes it one before the loop."""
    names = set(reads(node.test))
    for stmts in (body_of(node.body), body_of(node.orelse)):
        touched = exposed_reads(stmts) | (set().union(*map(writes, stmts)) & live)
        names |= {n for n in touched if _is_batched(entry.get(n))}
    return names


def scatter_dtype_ok(value) -> bool:
    """Whether the scatter of a compacted ``if`` can allocate an array for the joined value
    (``np.empty(n, dtype=...)``): a number or truth value of a known dtype. Strings, objects
    and values of unknown type keep the select form (``np.where`` takes them as they are)."""
    dtype = getattr(value, "dtype", None)
    return dtype is not None and dtype.kind in "biufc"


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


def array_only_reads(loop, analysis) -> set[str]:
    """Names read by the operations of a loop that need their per-example operands to be
    arrays: a call of anything but a ufunc on per-example scalars (a helper's batched
    specialization calls ``len``, ``int(x)`` is ``x.astype(int)``), indexing, attributes
    and methods of per-example values, and per-example arrays (operands get new axes,
    axes are shifted). A Python number there, the first value of a carry that starts
    unbatched, fails or means something else."""
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


def compacted_if_operands(loop, func, ctx, analysis) -> set[str]:
    """Names the ``if``s chosen for compaction inside a loop need to be arrays
    (`compact.array_operands`)."""
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


def carries_needed(loop, func, ctx, analysis) -> set[str] | None:
    """The names whose carries `batch_rules` makes arrays before ``loop`` (those that flow
    into them, `flows_into`): None (every carry) for a masked loop; for a plain loop, the
    names read by an operation that needs arrays (`array_only_reads`,
    `compacted_if_operands`) and those per example after the loop."""
    masked = any(type(n) is cst.Name and n.value in MaskedLoopFacts.get(ctx).masks
                 for n in walk(loop))
    if masked:
        return None
    head = analysis.loop_head.get(loop, {})
    needed = array_only_reads(loop, analysis) | compacted_if_operands(loop, func, ctx, analysis)
    # what the loop leaves for the code after it must be what the analysis says there (an
    # array), whatever it started as: code after it may need arrays (gathers of compaction,
    # indexing); so must what flows into those values
    after = liveness_of(func).live_after.get(loop, set())
    return needed | {name for name in after & writes(loop)
                     if getattr(head.get(name), "batched", False)}
