"""Compact masked loops: work only on the examples that are still running.

Assumes: array code from `batch_rules`; ``ctx.loop_facts[active]`` for each masked ``while``
loop that should be compacted (the variables it carries with their dtypes, and the batched
values it only reads), gathered from the scalar-form analysis by `batch_rules`.
Guarantees: the same values as the select form of the loop. The loop runs over the gathered
lanes ``lanes = np.flatnonzero(active)``: every batched value it uses is gathered once
(``n_lanes = n[lanes]``), and whenever at least half of the gathered lanes have finished their
values are scattered back (``n[lanes] = n_lanes``) and the gathered arrays shrink to the
running lanes. Lanes that finish at very different times then cost only their own
iterations; lanes that finish together cost one extra gather and scatter.

Neither JAX nor PyTorch offers this; it is why a Collatz or escape-time loop beats a masked
NumPy loop written by hand.
"""

from __future__ import annotations

import libcst as cst
import numpy as np

from ..cst_util import RenameNames, parse_expr, parse_stmt


def _mask_of(loop) -> str | None:
    """``while active.any():`` -> ``"active"``."""
    test = loop.test
    if (isinstance(test, cst.Call) and not test.args and isinstance(test.func, cst.Attribute)
            and test.func.attr.value == "any" and isinstance(test.func.value, cst.Name)):
        return test.func.value.value
    return None


def _dtype_name(dtype) -> str:
    dtype = np.dtype(dtype)
    return "np.bool_" if dtype == np.bool_ else f"np.{dtype.name}"


class _Compact(cst.CSTTransformer):
    def __init__(self, ctx):
        self.ctx = ctx

    def leave_While(self, original_node, updated_node):
        active = _mask_of(updated_node)
        facts = self.ctx.loop_facts.get(active) if active else None
        if facts is None:
            return updated_node
        carried, read_only = facts
        namer = self.ctx.namer
        lanes = namer.fresh("lanes")
        gathered = {name: namer.fresh(f"{name}_lanes")
                    for name in [n for n, _ in carried] + sorted(read_only) + [active]}
        lines = [f"{lanes} = np.flatnonzero({active})"]
        for name, dtype in carried:
            # a copy: the loop scatters into it (never into the caller's array)
            lines.append(f"{name} = {name}.astype({_dtype_name(dtype)})")
        for name, local in gathered.items():
            lines.append(f"{local} = {name}[{lanes}]")
        before = [parse_stmt(line + "\n") for line in lines]
        body = [s.visit(RenameNames(gathered)) for s in updated_node.body.body]
        g_active = gathered[active]
        compaction = [f"{name}[{lanes}] = {gathered[name]}" for name, _ in carried]
        compaction.append(f"{lanes} = {lanes}[{g_active}]")
        compaction += [f"{local} = {local}[{g_active}]" for name, local in gathered.items()
                       if name != active]
        compaction.append(f"{g_active} = {g_active}[{g_active}]")
        check = parse_stmt(f"if 2 * np.count_nonzero({g_active}) <= {lanes}.size:\n"
                           + "".join(f"    {line}\n" for line in compaction))
        loop = updated_node.with_changes(test=parse_expr(f"{lanes}.size"),
                                         body=updated_node.body.with_changes(
                                             body=body + [check]))
        return cst.FlattenSentinel(before + [loop])


def transform(func: cst.FunctionDef, ctx) -> cst.FunctionDef:
    if not ctx.loop_facts:
        return func
    return func.visit(_Compact(ctx))
