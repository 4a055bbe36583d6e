"""Compaction: work only on the examples (lanes) that need it.

Assumes: array code from `batch_rules`, which recorded from the scalar-form analysis, for
each masked loop to be compacted, the variables it carries with their dtypes and the batched
values it only reads, and for each ``if cond:`` that `compact_ifs` chose, the analysis's
values of the variables entering it, after each branch and at the join.
Reads: `records.BatchedLoopFacts` (the loops, the batch length's name and parameters),
`records.CompactedIfs` (the ``if``s and their values) and `records.ArrayValues` (the values
a loop's merges take, by node) and `records.MaskedLoopFacts` (the loops whose finished lanes
must leave after every pass: a helper that may raise, where nothing replays). Writes: no
record.
Guarantees: the same values, dtypes included, as the select form.

*Loops.* A masked ``while`` loop (or a ``for`` loop left by a per-example ``break``) runs over
the gathered lanes ``lanes = np.flatnonzero(active)``: every batched value it uses is gathered
once (``n_lanes = n[lanes]``), and once the passes run for lanes that had finished have cost
what compacting costs (``idle``, counted since the last compaction, against a threshold from
the loop's operations and the arrays it moves: `_compaction_cost`), or no lane is left, their
values are scattered back (``n[lanes] = n_lanes``) and the gathered arrays shrink to the
running lanes (``keep = np.flatnonzero(active_lanes)``, ``n_lanes = n_lanes[keep]``; a ``for``
loop scatters the rest when it ends). Lanes that finish at very different times then cost
about their own iterations; lanes that finish together cost one extra gather and scatter.
Where every lane runs (``lanes.size < len(active)`` is false), the loop starts on the arrays
themselves, without gathers, and the arrays it scatters into are made at the first compaction,
copies of the carries (every lane, in order: no scatter); they are always copies nothing else
holds. While every lane in the loop's arrays runs (``idle == 0``: after each compaction, and
for lanes that finish together), a carry's merge ``x = np.where(active, x_new, x)`` is
``x_new`` itself, where that has the carry's dtype (`_plain_merges`):
``x = np.where(active, x_new, x) if idle else x_new`` (the merge spelled by
`Backend.blend_pass` where the backend has one: NumPy's ``merge.blend_pass``, the same bits
without a branch per lane on wide masks in no order); a carry nothing after the loop reads
is not merged at all, ``x = x_new``, where the body is elementwise and runs under
``np.errstate(all="ignore")`` (`_tolerates_finished_lanes`): its value on a finished lane
reaches nothing the loop keeps. Once at most `_tail_lanes` lanes run, a ``while`` loop of
float64, int64 and truth values whose operations Python numbers compute bit for bit as the
arrays do finishes them one by one in Python numbers, and ends (`_Compact._scalar_tail`).

*Ifs.* Each branch runs on its own lanes only (``lanes = np.flatnonzero(cond)``,
``lanes_else = np.flatnonzero(~cond)``): the batched values it reads from before the ``if`` are
gathered (``x_lanes = x[lanes]``, rows of per-example arrays), unbatched ones are used as they
are, and every variable it assigns that is used afterwards is scattered into an array of the
joined dtype (the dtype ``np.where`` would give): ``y = np.empty(len(cond), dtype=...)`` when
every branch assigns it, else a copy of its value before the ``if``; then
``y[lanes] = y_lanes``. No lane runs a branch it does not take, so no warning needs silencing.
Where no lane takes the ``if`` (``if lanes.size:`` is false; an early return's usual case), the
``else`` runs on the arrays themselves (copies where it could change them in place) and each
variable after the ``if`` is its value there, as a copy of the joined dtype: no gathers, no
scatters.

    cond = x > 0                    cond = x > 0
    if cond:                        lanes = np.flatnonzero(cond)
        y = f(x)           ->       x_lanes = x[lanes]
    else:                           y_lanes = f(x_lanes)
        y = -x                      lanes_else = np.flatnonzero(~cond)
                                    x_else = x[lanes_else]
                                    y_else = -x_else
                                    y = np.empty(len(cond), dtype=np.float64)
                                    y[lanes] = y_lanes
                                    y[lanes_else] = y_else

Neither JAX nor PyTorch offers this; it is why a Collatz or escape-time loop beats a masked
NumPy loop written by hand.
"""

from __future__ import annotations

import libcst as cst
import numpy as np

from ..abstract import Value
from ..errors import Unsupported
from ..liveness import Liveness, body_of, bound_names, definite_writes, exposed_reads, writes
from ..loops.facts import loop_mask
from ..loops.tail_tidy import hoist, tidy
from ..syntax.edit import RenameNames, fix_parens
from ..syntax.templates import bare_code, parse_expr, parse_stmt, render
from ..syntax.traversal import children, recalled, remember, rewrite, walk
from .records import ArrayValues, BatchedLoopFacts, CompactedIfs, MaskedLoopFacts
from .simplify import is_errstate


# ------------------------------------------------------------------------- shared helpers
def _statements(lines: list[str]) -> list:
    return [parse_stmt(line + "\n") for line in lines]


def _gathers(prims, local: dict[str, str], lanes: str, names) -> list[str]:
    """``x_lanes = x[lanes]``: the values of the lanes (rows of per-example arrays)."""
    return [f"{local[name]} = {prims.gather(name, lanes)}" for name in names]


def _scatters(prims, local: dict[str, str], lanes: str, names) -> list[str]:
    """``x[lanes] = x_lanes``: the gathered values back in place."""
    return [prims.put_back(name, lanes, local[name]) for name in names]


def _renamed(stmts: list, local: dict[str, str]) -> list:
    if not local:
        return list(stmts)
    rename, names = _RenameWhereUsed(local), local.keys()
    return [s if names.isdisjoint(_names_in(s)) else rewrite(s, rename) for s in stmts]


def _names_in(node) -> frozenset[str]:
    """Every name under ``node`` (variables, attributes, keywords), kept per node for the
    transform: regions nest, and each enclosing one renames what it gathers in the code of
    those inside it, which holds its names in its first and last statements only."""
    known = recalled("names in", node)
    if known is not None:
        return known
    # post-order without recursion (trees of nested regions are deep): each node's set is
    # made from its children's, made first
    stack = [(node, False)]
    while stack:
        n, ready = stack.pop()
        if type(n) is cst.Name:
            remember("names in", n, frozenset((n.value,)))
        elif ready:
            sets = [recalled("names in", p) for p in children(n)]
            remember("names in", n, sets[0] if len(sets) == 1 else frozenset().union(*sets))
        elif recalled("names in", n) is None:
            stack.append((n, True))
            stack += [(p, False) for p in children(n)]
    return recalled("names in", node)


class _RenameWhereUsed(RenameNames):
    """`RenameNames` that does not enter subtrees without any of the names (`_names_in`)."""

    def on_visit(self, node):
        if type(node) is cst.Attribute:
            return False            # (`RenameNames.leave_Attribute` renames its value)
        return not self.mapping.keys().isdisjoint(_names_in(node))


class _BatchLength(cst.CSTTransformer):
    """``len(x)`` of the given parameters (the batch size `batch_rules` wrote) ->
    ``lanes.size`` (``size``: the backend's spelling of the number of lanes)."""

    def __init__(self, params: set[str], size: str):
        self.params, self.size = params, size

    def on_visit(self, node):
        return "len" in _names_in(node)

    def leave_Call(self, original_node, updated_node):
        if type(updated_node.func) is cst.Name and updated_node.func.value == "len" \
                and len(updated_node.args) == 1 \
                and type(updated_node.args[0].value) is cst.Name \
                and updated_node.args[0].value.value in self.params:
            return parse_expr(self.size)
        return updated_node


def _is_batched(value) -> bool:
    return bool(getattr(value, "batched", False))


def _first_write_order(stmts):
    first: dict[str, int] = {}
    for i, stmt in enumerate(stmts):
        for name in writes(stmt):
            first.setdefault(name, i)
    return lambda name: (first.get(name, 1 << 30), name)


# ------------------------------------------------------------------------------ the pass
class _Compact(cst.CSTTransformer):
    def __init__(self, ctx, liveness):
        self.ctx = ctx
        self.liveness = liveness
        self.prims = ctx.registry.primitives
        self.made: dict[str, str] = {}      # fresh name -> the name it was made from
        self.loops = 0      # compacted loops around the node visited
        self.quiet = 0      # `with np.errstate(all="ignore")` blocks around it
        self.bound: set[str] = set()    # the names the function binds

    def fresh(self, base: str) -> str:
        name = self.ctx.namer.fresh(base)
        self.made[name] = base
        return name

    def _size(self, lanes: str) -> dict:
        """The batch size kept in a name (`batch_rules`) is the number of lanes inside a
        compacted region."""
        name = BatchedLoopFacts.get(self.ctx).batch_size_name
        return {name: parse_expr(self.prims.size(lanes))} if name else {}

    def _local(self, stmts: list, local: dict[str, str], lanes: str) -> list:
        """``stmts`` of a compacted region: the gathered names renamed to their lanes' values,
        and the batch size (a name, or ``len(x)`` of a parameter the region does not gather)
        to the number of lanes."""
        out = _renamed(stmts, {**local, **self._size(lanes)})
        sized = BatchedLoopFacts.get(self.ctx).batch_len_params - set(local)
        if sized:
            out = [rewrite(s, _BatchLength(sized, self.prims.size(lanes))) for s in out]
        return out

    # -- loops
    def _gathered_loop(self, active: str, body: list, loop=None, scalar_tail=False):
        """(statements before the loop, its new body, statements after it, lanes name).
        ``loop``: the loop as the function had it (its liveness), None where unknown;
        ``scalar_tail``: whether its last lanes may finish in Python floats
        (`_scalar_tail`: a ``while`` loop that the loop's exit leaves)."""
        carried, read_only = BatchedLoopFacts.get(self.ctx).loops[active]
        # the carries scattered back: those the code after the loop may read (the others
        # are gathered like any value the loop reads, and never written back)
        live = self.liveness.live_after.get(loop) if loop is not None else None
        kept = [(name, dtype) for name, dtype in carried if live is None or name in live]
        lanes = self.fresh("lanes")
        names = [n for n, _ in carried] + sorted(read_only) + [active]
        local = {name: self.fresh(f"{name}_lanes") for name in names}
        prims = self.prims
        lines = [f"{lanes} = {prims.lanes_of(active)}"]
        # copies: the loop scatters into them (never into the caller's array), and nothing
        # else holds them (a value in the loop may share the array of a carry's old value)
        copies = [f"{name} = {prims.astype(name, prims.dtype_code(dtype))}"
                  for name, dtype in kept]
        gathers = _gathers(prims, local, lanes, names)
        # (a parameter read for its length in an outer compacted loop is over other lanes)
        sized = BatchedLoopFacts.get(self.ctx).batch_len_params
        outer_sized = self.loops and not sized.isdisjoint(names)
        whole = not outer_sized and not _changed_in_place(self._local(body, local, lanes)) & (
            {None} | set(local.values()))
        put_back = _scatters(prims, local, lanes, [n for n, _ in kept])
        if whole:
            # the loop starts on the arrays themselves where every lane runs (cheap to ask),
            # and the copies to scatter into are made of the carries' values when the lanes
            # are first compacted (a copy, not a scatter: every lane, in order); else (some
            # lane does not run, or no lane at all) it starts on gathered lanes
            lines += [f"{local[name]} = {name}" for name in names]
            lines.append("\n".join([
                f"if {prims.size(lanes)} < len({active}) or not {prims.size(lanes)}:",
                *(f"    {line}" for line in copies + gathers)]))
            put_back = put_back and ["\n".join([
                f"if {prims.size(lanes)} == len({active}):",
                *(f"    {name} = {prims.astype(local[name], prims.dtype_code(dtype))}"
                  for name, dtype in kept),
                # (not `else:`: `explain` aligns the lines of the scalar and the batched
                # code, and a bare `else:` of the engine's would pair with the user's)
                f"elif {prims.size(lanes)}:", *(f"    {line}" for line in put_back)])]
        else:
            lines += copies + gathers
        g_active = local[active]
        keep, running, idle = self.fresh("keep"), self.fresh("running"), self.fresh("idle")
        compaction = list(put_back)
        compaction.append(f"{keep} = {prims.lanes_of(g_active)}")
        # (where every lane ran until now, ``lanes`` counts them all, and the running ones
        # are ``keep`` itself: no gather)
        shrunk = prims.gather_kept(lanes, keep)
        compaction.append(
            f"{lanes} = {keep} if {prims.size(lanes)} == len({active}) else {shrunk}"
            if whole else f"{lanes} = {shrunk}")
        # (the mask's running lanes are all true: made so, not gathered, 20 µs less from 1e5
        # lanes to 36,744, `bench_live_loops` newton tail's first compaction)
        compaction += [f"{local[n]} = {prims.gather_kept(local[n], keep)}" if n != active
                       else f"{local[n]} = {prims.full(prims.size(keep), 'True', None, g_active)}"
                       for n in names]
        compaction.append(f"{idle} = 0")
        merges = self._plain_merges(active, carried, body)
        original_body = body
        # the merges of carries nothing after the loop reads: dropped where the lanes that
        # finished may go on computing them (`_tolerates_finished_lanes`)
        dead = {name for name, _ in carried} - {name for name, _ in kept}
        unmerged = {k for k in merges if _merged_name(body[k]) in dead} if dead and \
            self.quiet and _tolerates_finished_lanes(body, self.prims) else set()
        body = self._local(body, local, lanes)
        per_lane, fixed = _compaction_cost(len(kept), len(names), body)
        tail = self._scalar_tail(active, carried, [n for n, _ in kept], names, local, body,
                                 put_back, lanes, running) if scalar_tail else None
        counts = {local[name] for name, dtype in carried if dtype.kind in "iu"}
        body = _merged_while_idle(body, merges, idle, unmerged, counts, prims.blend_pass)
        narrowed = self._plain_narrowing(active, original_body)
        if narrowed is not None:
            body = _narrowed_while_idle(body, narrowed, idle, self.fresh)
        if self.quiet and not self.loops and not _changed_in_place(body):
            # arithmetic of the values the loop only reads: once before it, gathered with
            # them (the tail, made above, computes it in Python numbers)
            body, hoisted = _hoisted(body, {local[n] for n in read_only}, self.fresh)
            lines += [f"{name} = {render(value).strip()}" for name, value in hoisted]
            # (at each compaction, after the values it reads: computed again on the kept
            # lanes where it is one or two operations, cheaper than gathering it, 7 µs
            # against 25 from 1e5 lanes to 36,744; else gathered)
            compaction[-1:-1] = [
                f"{name} = {render(value).strip()}" if _operations_in(value) <= 2
                else f"{name} = {prims.gather_kept(name, keep)}" for name, value in hoisted]
        lines.append(f"{idle} = 0")
        check = _statements([
            # (a Python int: the loop's control then computes on Python ints, not on the
            # backend's scalars, 0.45 µs a pass against 1.5 for NumPy's int64)
            f"{running} = int({prims.count(g_active)})",
            # (not `+=`: the code around reads an augmented assignment as an array's
            # change in place, `_changed_in_place`)
            f"{idle} = {idle} + {prims.size(lanes)} - {running}",
        ])
        if tail is not None:
            lines.append(f"{tail[0]} = True")
            check.append(tail[1])
        # (a helper that may raise, where nothing replays: `MaskedLoopFacts.every_pass`)
        when = f"{idle}" if active in MaskedLoopFacts.get(self.ctx).every_pass else \
            f"{idle} >= {per_lane} * {prims.size(lanes)} + {fixed}"
        check += [parse_stmt(f"if not {running} or {when}:\n" + "".join(
                             f"    {part}\n" for line in compaction
                             for part in line.split("\n")))]
        after = _statements(put_back)
        return _statements(lines), body + check, after, lanes

    def _scalar_tail(self, active, carried, kept, names, local, body, put_back, lanes,
                     running):
        """Where few lanes are left (``running`` at most `_tail_lanes`), a pass of array
        operations costs its calls, not its lanes: those lanes finish one by one in Python
        numbers, through the same operations (`_ScalarBody`), and the loop ends. Returns
        (the name of the flag that lets it run once, the statement), or None where the
        loop's values and operations are not all ones whose Python results are those of the
        arrays bit for bit (`_ScalarBody`): every value it gathers a float64, int64 or truth
        per example (NumPy's only), and arithmetic on floats only under
        ``np.errstate(all="ignore")`` (Python floats never warn; int64 arrays wrap without a
        warning, and Python raises on a zero divisor). A lane where Python raises an
        `ArithmeticError` (a zero divisor, a check of the loop's, an int out of the int64
        range) stops the tail: the arrays, untouched, go on from where it began, and
        raise or warn as before.
        ``body``: the loop's statements as `_local` renamed them, before their merges."""
        prims = self.prims
        if not self.ctx.registry.backend.scalar_tail or self.loops:
            return None
        values = BatchedLoopFacts.get(self.ctx).values.get(active, {})
        kinds = {local[active]: "b"}
        for name in names:
            value = values.get(name)
            if name == active:
                continue
            if not (type(value) is Value and value.known and value.rank == 0
                    and value.dtype in _LANE_KINDS):
                return None
            kinds[local[name]] = _LANE_KINDS[value.dtype]
        if any(dtype not in _LANE_KINDS for _, dtype in carried):
            return None
        assigned = set().union(*map(writes, body)) - set(local.values())
        scalar = {local[name]: self.fresh(f"{name}_lane") for name in names}
        scalar.update({name: self.fresh(f"{name}_lane") for name in sorted(assigned)})
        # the helpers the loop calls, as the generated module has them (specialized and
        # transformed already: the analysis of this function reached their calls)
        # (not a name the function binds itself: a call of it is not the helper's)
        helpers = {spec.name: spec.tree for spec in self.ctx.module.specs.values()
                   if spec.tree is not None and spec.name not in self.bound}
        try:
            translate = _ScalarBody(scalar, kinds, prims.alias, true={local[active]},
                                    helpers=helpers, fresh=self.fresh,
                                    reductions=prims.helper_reductions)
            stmts = [lane for s in body for lane in translate.statement(s)]
            if translate.floats and not self.quiet:
                raise _NotScalar        # (NumPy may warn where Python floats do not)
            # (the pass's own names: those it assigns, not the loop's carried ones)
            stmts = tidy(stmts, {scalar[name] for name in assigned} | set(translate.made))
            hoisted, stmts = hoist(stmts, self.fresh)
        except _NotScalar:
            for name in [*scalar.values(), *translate.made]:
                self.ctx.namer.release(name)
                self.made.pop(name, None)
            return None
        read = set().union(*map(_names_in, hoisted + stmts))
        lists = {name: self.fresh(f"{name}_tail") for name in names
                 if scalar[local[name]] in read or name in kept or name == active}
        flag, lane = self.fresh("scalar_tail"), self.fresh("lane")
        kept = [name for name in kept if name in lists]
        lines = [f"if 0 < {running} <= {_tail_lanes(body, stmts, helpers)} and {flag}:"]
        lines += [f"    {lists[name]} = {local[name]}.tolist()" for name in lists]
        g_active = local[active]
        lines += ["    try:", f"        for {lane} in range({prims.size(lanes)}):",
                  f"            if not {lists[active]}[{lane}]:", "                continue"]
        lines += [f"            {scalar[local[name]]} = {lists[name]}[{lane}]"
                  for name in lists if name != active]
        lines += [f"            {render(s).strip()}" for s in hoisted]
        lines += [f"            {scalar[g_active]} = True",
                  f"            while {scalar[g_active]}:"]
        lines += [f"                {line}" for s in stmts
                  for line in render(fix_parens(s)).rstrip("\n").split("\n")]
        lines += [f"            {lists[name]}[{lane}] = {scalar[local[name]]}" for name in kept]
        # (what follows the lanes' loops cannot raise: a list of floats or truths made an
        # array, the scatters into the loop's own copies; not a `try`'s `else:`, which
        # `explain` would pair with an `else:` of the user's)
        dtypes = dict(carried)
        lines += [f"        {local[name]} = "
                  f"{prims.astype(prims.array_of(lists[name]), prims.dtype_code(dtypes[name]))}"
                  for name in kept]
        lines += [f"        {part}" for line in put_back for part in line.split("\n")]
        lines.append("        break")
        # (a zero divisor, or a check's raise: the arrays' passes go on, and raise what the
        # loop raises, with its message)
        lines += ["    except ArithmeticError:", f"        {flag} = False"]
        return flag, parse_stmt("\n".join(lines) + "\n")

    def _plain_merges(self, active: str, carried, body: list) -> dict:
        """``{k: new}`` for the statements ``body[k]`` that merge a carry's new value into
        it, ``x = np.where(active, new, x)``, where the merge is ``new`` itself whenever
        every lane in the loop's arrays runs: the statement is at the top of the body, before
        anything assigns the mask (which then holds for each of those lanes), ``new`` is an
        array of per-example scalars of the carry's own dtype (`records.ArrayValues`, by
        node: what `batch_rules` knew of it), and nothing in the body changes an array in
        place (the carry may then share ``new``'s array)."""
        if _changed_in_place(body):
            return {}
        values = ArrayValues.get(self.ctx).values
        dtypes = dict(carried)
        plain = {}
        for k, stmt in enumerate(body):
            if active in writes(stmt):
                break
            if type(stmt) is not cst.SimpleStatementLine or len(stmt.body) != 1:
                continue
            assign = stmt.body[0]
            if type(assign) is not cst.Assign or len(assign.targets) != 1 or \
                    type(assign.targets[0].target) is not cst.Name:
                continue
            name = assign.targets[0].target.value
            call = assign.value
            if name not in dtypes or type(call) is not cst.Call or len(call.args) != 3 or \
                    any(a.keyword is not None or a.star for a in call.args):
                continue
            mask, new, old = (a.value for a in call.args)
            if not (type(mask) is cst.Name and mask.value == active and type(old) is cst.Name
                    and old.value == name) or render(call) != self.prims.where(
                        active, render(new), name):
                continue
            value = values.get(new)
            if type(value) is Value and value.known and value.batched and \
                    value.rank == 0 and value.dtype == dtypes[name]:
                plain[k] = new
        return plain

    def _plain_narrowing(self, active: str, body: list) -> int | None:
        """The index of the statement that first narrows the mask in the pass,
        ``active = active & cond``, where ``cond`` is an array of per-example truths
        (`records.ArrayValues`) and nothing in the body changes an array in place: while
        every lane in the loop's arrays runs (``idle == 0``) the mask is true on each of them
        until that statement, so it is ``cond`` itself (`_narrowed_while_idle`); else
        None."""
        if _changed_in_place(body):
            return None
        values = ArrayValues.get(self.ctx).values
        for k, stmt in enumerate(body):
            if active not in writes(stmt):
                continue
            if type(stmt) is not cst.SimpleStatementLine or len(stmt.body) != 1:
                return None
            assign = stmt.body[0]
            if type(assign) is not cst.Assign or len(assign.targets) != 1 or \
                    type(assign.targets[0].target) is not cst.Name or \
                    assign.targets[0].target.value != active:
                return None
            value = assign.value
            if type(value) is not cst.BinaryOperation or \
                    type(value.operator) is not cst.BitAnd or \
                    type(value.left) is not cst.Name or value.left.value != active:
                return None
            cond = values.get(value.right)
            if type(cond) is Value and cond.known and cond.batched and cond.rank == 0 and \
                    cond.dtype == np.dtype(bool):
                return k
            return None
        return None

    def visit_With(self, node):
        self.quiet += self.prims.quiet is not None and is_errstate(node, self.prims.quiet)

    def leave_With(self, original_node, updated_node):
        self.quiet -= self.prims.quiet is not None and is_errstate(original_node,
                                                                     self.prims.quiet)
        return self._gathers_outside(updated_node)

    def _gathers_outside(self, updated_node):
        """A compacted loop under ``with np.errstate(...)`` (hoisted there by `simplify`):
        the gathers before it and the scatters after it cannot warn, so they move out and the
        ``with`` keeps only the loop."""
        body = list(updated_node.body.body)
        loops = [k for k, s in enumerate(body) if isinstance(s, (cst.While, cst.For))]
        if len(loops) != 1 or len(body) == 1 or not all(
                k in loops or _moves_data_only(s, self.prims.data_calls)
                for k, s in enumerate(body)):
            return updated_node
        k = loops[0]
        inner = updated_node.with_changes(body=updated_node.body.with_changes(body=[body[k]]))
        return cst.FlattenSentinel(body[:k] + [inner] + body[k + 1:])

    def _compacted(self, loop) -> bool:
        active = loop_mask(loop)
        return active is not None and active in BatchedLoopFacts.get(self.ctx).loops

    def visit_While(self, node):
        self.loops += self._compacted(node)

    def visit_For(self, node):
        self.loops += self._compacted(node)

    def leave_While(self, original_node, updated_node):
        self.loops -= self._compacted(original_node)
        active = loop_mask(updated_node)
        if active is None or active not in BatchedLoopFacts.get(self.ctx).loops:
            return updated_node
        before, body, _after, lanes = self._gathered_loop(
            active, list(updated_node.body.body), original_node,
            scalar_tail=updated_node.orelse is None)
        loop = updated_node.with_changes(test=parse_expr(self.prims.size(lanes)),
                                         body=updated_node.body.with_changes(body=body))
        return cst.FlattenSentinel(before + [loop])

    def leave_For(self, original_node, updated_node):
        self.loops -= self._compacted(original_node)
        active = loop_mask(updated_node)
        if active is None or active not in BatchedLoopFacts.get(self.ctx).loops:
            return updated_node
        # the loop's own stop (`if not active.any(): break`) becomes one on the lanes left
        # (an `else:` of the loop reads what it holds after the loop's body: every carry)
        before, body, after, lanes = self._gathered_loop(
            active, list(updated_node.body.body[:-1]),
            original_node if original_node.orelse is None else None)
        body.append(parse_stmt(f"if not {self.prims.size(lanes)}:\n    break\n"))
        loop = updated_node.with_changes(body=updated_node.body.with_changes(body=body))
        return cst.FlattenSentinel(before + [loop] + after)

    # -- ifs
    def leave_If(self, original_node, updated_node):
        test = updated_node.test
        if not (isinstance(test, cst.Name) and test.value in CompactedIfs.get(self.ctx).tests):
            return updated_node
        facts = CompactedIfs.get(self.ctx).tests[test.value]
        if facts is None:
            return updated_node            # not batched after all: a plain Python `if`
        if any(env is None for env in facts):
            raise Unsupported("this `if` cannot be compacted", original_node,
                              "add `# vectorize: select` to its line")
        return cst.FlattenSentinel(self._compacted_if(original_node, updated_node,
                                                      test.value, facts))

    def _compacted_if(self, original, node: cst.If, cond: str, facts) -> list:
        entry, then_env, else_env, joined = facts
        live = self.liveness.live_after.get(original, set())
        live_in = self.liveness.live_before.get(original, set())
        branches = [(list(node.body.body), then_env, cond, "lanes", "_lanes")]
        if node.orelse is not None:
            branches.append((body_of(node.orelse), else_env, f"~{cond}", "lanes_else",
                             "_else"))
        out: list = []
        done = []      # (lanes, local names, names assigned, names always assigned, values)
        parts = []     # (the `lanes = ...` line, the gathers, the branch's code)
        for stmts, values, mask, lanes_base, suffix in branches:
            lanes = self.fresh(lanes_base)
            written = set().union(*map(writes, stmts)) if stmts else set()
            # what the branch reads from before it, where that may be read (not in code after
            # a `continue`: a region before may not have scattered what only that reads)
            exposed = exposed_reads(stmts) & live_in
            definite = definite_writes(stmts)
            # gathered: the per-example values the branch reads; renamed too: what it assigns
            # that exists outside it (the other branch and the scatter need the old value)
            renamed = {n for n in exposed if _is_batched(entry.get(n))}
            renamed |= written & (set(entry) | live)
            local = {n: self.fresh(f"{n}{suffix}") for n in sorted(renamed)}
            gathers = [(name, local[name]) for name in local
                       if name in entry and (name in exposed or (name in live
                                                                 and name not in definite))]
            parts.append((f"{lanes} = {self.prims.lanes_of(mask)}", gathers,
                          self._local(stmts, local, lanes)))
            done.append((lanes, local, written, definite, values))
        assigned = set().union(*(d[2] for d in done))
        order = _first_write_order([s for stmts, *_ in branches for s in stmts])
        scattered = sorted(assigned & live, key=order)
        fast = self._none_taken(cond, entry, joined, done, parts, scattered)
        for k, (lanes_line, gathers, body) in enumerate(parts):
            lines = [lanes_line] + [self._gather(name, g, entry, done[k][0])
                                    for name, g in gathers]
            if k == 1 and fast is not None and not gathers:
                out += body         # (its lanes are found where the scatters need them)
            elif k == 1 and fast is not None:
                # no lane takes the `if`: the `else` runs on the whole batch as it is
                lines = [f"if {self.prims.size(done[0][0])}:"] + [f"    {x}" for x in lines]
                lines += ["else:"] + [f"    {g} = {fast[0].get(name, name)}"
                                      for name, g in gathers]
                out += [parse_stmt("\n".join(lines) + "\n")] + body
            else:
                out += _statements(lines) + body
        unshared = [n for n in scattered if not _is_batched(joined[n])]
        shared = [n for n in scattered if _is_batched(joined[n])]
        for name in unshared if fast is not None else ():
            out += _statements(self._scatter(name, cond, entry, joined[name], done))
        if fast is not None and shared:
            slow = [line for name in shared
                    for line in self._scatter(name, cond, entry, joined[name], done)]
            if len(parts) == 2 and not parts[1][1]:
                slow.insert(0, parts[1][0])
            out.append(parse_stmt(
                f"if {self.prims.size(done[0][0])}:\n" + "".join(f"    {x}\n" for x in slow)
                + "else:\n" + "".join(f"    {x}\n" for x in fast[1])))
        elif fast is None:
            for name in scattered:
                out += _statements(self._scatter(name, cond, entry, joined[name], done))
        return out

    def _gather(self, name: str, local: str, entry: dict, lanes: str) -> str:
        return (f"{local} = {self.prims.gather(name, lanes)}" if _is_batched(entry[name])
                else f"{local} = {name}")

    def _none_taken(self, cond, entry, joined, done, parts, scattered):
        """Where no lane takes the ``if`` (``lanes`` empty, cheap to ask), the ``else`` needs
        no gathers (its lanes are the whole batch) and the values after the ``if`` no
        scatters: (what each gathered name is then, the assignments that replace the
        scatters), or None where that form does not apply: the ``else`` uses its lanes
        otherwise (the batch size), or a value after the ``if`` would have no array to be
        taken from."""
        prims = self.prims
        if len(done) != 2:
            return None     # (an `if` no lane takes costs its empty scatters only)
        else_lanes, else_local, else_written, else_definite, _ = done[1]
        if else_lanes in set().union(*map(_names_in, parts[1][2])):
            return None
        if self.loops and any(name in BatchedLoopFacts.get(self.ctx).batch_len_params
                              for name, _ in parts[1][1]):
            # inside a compacted loop a parameter read for its length is the whole batch's
            # (the loop's lanes' count: `_local`), over other lanes than the `if`'s
            return None
        # the `else`'s gathered values, the whole batch: the arrays themselves (maybe the
        # caller's) where the `else` cannot change them in place (a scalar per example, which
        # the user's code cannot index, no augmented assignment and no assignment into an
        # item of the name; the engine's own scatters go into fresh arrays), else a copy (as
        # a gather is)
        changed = _changed_in_place(parts[1][2])
        whole = {}
        for name, gathered in parts[1][1]:
            value = entry[name]
            if _is_batched(value) and (None in changed or gathered in changed
                                       or getattr(value, "rank", None) != 0):
                whole[name] = prims.copy(name)
        after = []
        for name in scattered:
            value = joined[name]
            if not _is_batched(value):
                continue
            if name in else_written:
                if name not in else_definite and name not in entry:
                    return None
                source, was = else_local[name], done[1][4].get(name)
            elif name in entry:
                source, was = name, entry[name]
            else:
                return None
            # a copy of the joined dtype, as the scatters' fresh array is
            dtype = prims.dtype_code(value.dtype)
            if _is_batched(was):
                after.append(f"{name} = {prims.astype(source, dtype)}")
            elif value.rank == 0 and was is not None:
                after.append(f"{name} = {prims.full(f'len({cond})', source, dtype, cond)}")
            else:
                return None
        return whole, after

    def _scatter(self, name: str, cond: str, entry: dict, value, done) -> list[str]:
        """The variable ``name`` after the ``if``: an array of the joined dtype, the value of
        each branch on its lanes."""
        prims = self.prims
        sources = [(lanes, local[name], values.get(name))
                   for lanes, local, written, _definite, values in done if name in written]
        if not _is_batched(value):
            # the same for every example after the `if`: a name only one branch binds (the
            # other path leaves it unbound), which the select form takes from that branch,
            # run on every lane; here it ran on its own lanes, to the same value
            return [f"{name} = {sources[-1][1]}"]
        complete = len(done) == 2 and all(name in d[3] for d in done)
        keep_old = not complete and name in entry
        dtype = prims.dtype_code(value.dtype)     # known: `compact_ifs` checked it
        size = f"len({cond})"
        if not keep_old:
            if value.rank == 0:
                shape = size
            else:
                row = next((f"{local}.shape[1:]" for _, local, v in sources if _is_batched(v)),
                           prims.shape(sources[0][1]))
                shape = f"({size}, *{row})"
            base = f"{name} = {prims.empty(shape, dtype, cond)}"
        elif _is_batched(entry[name]):
            base = f"{name} = {prims.astype(name, dtype)}"     # a copy: never the caller's array
        else:
            shape = size if value.rank == 0 else f"({size}, *{prims.shape(name)})"
            base = f"{name} = {prims.full(shape, name, dtype, cond)}"
        writes = []
        for lanes, local, was in sources:
            if not prims.scatter_casts and _is_batched(was) and getattr(
                    was, "dtype", value.dtype) != value.dtype:
                local = prims.astype(local, dtype)   # (an int branch of a float join)
            writes.append(prims.scatter(name, lanes, local))
        return [base] + writes


# When a compacted `while` loop's lanes finish in Python numbers (`_tail_lanes`): a NumPy call
# on a few lanes costs about what 18 Python operations on numbers do (measured: a product of
# 32 float64 lanes against ``x * y + x`` on Python floats), and the lanes left finish at
# different times, each in the tail after its own passes where the array passes run as long
# as the slowest: about half as long on the heavy-tailed loops of
# benchmarks/bench_live_loops.py and Collatz; hence 36 operations per call. On those loops the
# time is flat from 32 to 128 lanes (64: 3% faster than 32 on the Newton tail and Collatz at
# 1e3 and 1e4 examples) and 16 is slower: the threshold stays within `_TAIL_LANES`.
_CALL_IN_PYTHON_OPERATIONS = 36
_TAIL_LANES = (16, 128)


def _tail_lanes(body: list, lane: list, helpers=None) -> int:
    """The number of lanes at most which a pass of the array ``body`` (its operations, those
    of the ``helpers`` it calls, and the count of its running lanes) costs more than the
    ``lane`` statements of the tail run for each of them (their operations and
    assignments)."""
    helpers = helpers or {}
    calls = 1 + sum(1 + _operations_in(helpers[n.func.value].body)
                    if type(n) is cst.Call and type(n.func) is cst.Name and
                    n.func.value in helpers else 1
                    for n in walk(cst.Module(body=body)) if type(n) in _OPERATIONS)
    operations = max(1, sum(1 for n in walk(cst.Module(body=lane))
                            if type(n) in _OPERATIONS + (cst.IfExp, cst.AssignTarget)))
    lo, hi = _TAIL_LANES
    return min(hi, max(lo, int(round(_CALL_IN_PYTHON_OPERATIONS * calls / operations, -1))))


def _operations_in(node) -> int:
    return sum(1 for n in walk(node) if type(n) in _OPERATIONS)


# the dtypes of the values a scalar tail runs on, and their kinds there (`_ScalarBody`)
_LANE_KINDS = {np.dtype(np.float64): "f", np.dtype(np.bool_): "b", np.dtype(np.int64): "n"}

# the range of an int64: a lane's Python int outside it is one the arrays wrapped
_INT64 = (-2 ** 63, 2 ** 63 - 1)


class _NotScalar(Exception):
    """A statement or expression `_ScalarBody` does not translate."""


class _ScalarBody:
    """The statements of a compacted loop's pass for one lane of Python floats, ints and
    bools, each operation one whose result is bit for bit the array operation's, by the
    kinds of its operands ('f': a float64, 'b': a truth, 'i': an integer literal below
    2**53, or arithmetic of those, a Python int in the array code too; 'n': an int64 of the
    loop's, in its range; 'w': ``+ - *``, unary ``-`` or ``abs`` of int64s, whose Python int
    may leave the range where the array's wraps, but is the same modulo 2**64): ``+ - * /``
    of floats (IEEE, correctly rounded both; a zero divisor raises in Python, which stops
    the tail), ``+ - *`` of ints (an int64 with a literal or a truth: an int64 both), an
    int64 in range with a float (converted to the nearest float both), ``abs`` and unary
    ``-`` of a number, comparisons (of an int64 in range with ints or truths, exact both),
    ``& |`` of truths, ``not`` and ``~`` of a truth (as ``not``), ``np.where(c, a, b)`` as
    ``a if c else b`` (the other value has no effect: the operations cannot warn or change
    anything), ``np.logical_not``, ``np.any``/``np.all``/``x.all()``/``x.any()`` of one
    value; assignments of names, and ``if test: raise E(...)`` (checks, ``E`` an
    `ArithmeticError` that reads no value of the loop). A name assigned a 'w' value is
    checked in the int64 range right after (``OverflowError`` outside it, which stops the
    tail: the arrays go on and wrap), so every int64 name holds the array's value.
    Names: the loop's (``mapping``, to the lane's, ``kinds`` their kinds) and ``abs``,
    ``True``, ``False``; anything else, a name given values of two kinds included, raises
    `_NotScalar`. ``true``: names known to be true where the pass begins (the loop's mask,
    true on a lane the tail runs), read as ``True`` until assigned, which folds their
    merges (``x if True else x_old`` is ``x``, ``True & c`` is ``c``). ``helpers``: the
    generated functions the loop may call, by name: a call of one whose body is ``return
    expr`` with names or truths as its arguments is ``expr`` for those arguments, translated
    the same way (the array pass calls that code; `_inlined`)."""

    _ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)
    _COMPARISONS = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual,
                    cst.Equal, cst.NotEqual)

    def __init__(self, mapping: dict[str, str], kinds: dict[str, str], alias: str,
                 true=frozenset(), helpers=None, fresh=None, depth: int = 0,
                 reductions=None):
        self.mapping, self.kinds, self.alias = mapping, dict(kinds), alias
        # the backend's helpers called like its `any`/`all` (`Backend.helper_reductions`)
        self.reductions = reductions or {}
        self.true = set(true)
        self.helpers, self.fresh, self.depth = helpers or {}, fresh, depth
        self.made: list[str] = []   # the names ``fresh`` gave it (a helper's locals)
        self.before: list = []      # a helper's statements, before the statement calling it
        self.floats = False     # whether it computes with floats (which may warn in NumPy)

    def statement(self, stmt) -> list:
        """The lane's statements for ``stmt`` (with range checks after int64 assignments),
        after the statements of the helpers it calls (`_inlined`)."""
        self.before = []
        out = self._statement(stmt)
        return self.before + out

    def _statement(self, stmt) -> list:
        if type(stmt) is cst.SimpleStatementLine and len(stmt.body) == 1 and \
                type(stmt.body[0]) is cst.Assign and len(stmt.body[0].targets) == 1:
            assign = stmt.body[0]
            target = assign.targets[0].target
            if type(target) is cst.Tuple and type(assign.value) is cst.Tuple and \
                    len(target.elements) == len(assign.value.elements):
                pairs = list(zip(target.elements, assign.value.elements))
                if any(type(t) is not cst.Element or type(v) is not cst.Element
                       for t, v in pairs):
                    raise _NotScalar
                values = [self.expr(v.value) for _, v in pairs]
                elements = [t.with_changes(value=self._target(t.value, kind))
                            for (t, _), (_, kind) in zip(pairs, values)]
                value = assign.value.with_changes(elements=[
                    v.with_changes(value=node) for (_, v), (node, _) in zip(pairs, values)])
                return [stmt.with_changes(body=[assign.with_changes(
                    targets=[assign.targets[0].with_changes(
                        target=target.with_changes(elements=elements))], value=value)])] + [
                    _in_range(e.value.value, self._bound(node))
                    for e, (node, kind) in zip(elements, values) if kind == "w"]
            value, kind = self.expr(assign.value)
            lane = self._target(target, kind)
            if value.deep_equals(cst.Name("True")):
                self.true.add(target.value)     # (a copy of the mask: true there too)
            return [stmt.with_changes(body=[assign.with_changes(
                targets=[assign.targets[0].with_changes(target=lane)], value=value)])] + (
                [_in_range(lane.value, self._bound(value))] if kind == "w" else [])
        if type(stmt) is cst.If and stmt.orelse is None and len(stmt.body.body) == 1 and \
                type(stmt.body.body[0]) is cst.SimpleStatementLine and \
                len(stmt.body.body[0].body) == 1 and \
                _raises_arithmetic(stmt.body.body[0].body[0]) and \
                not set(self.mapping).intersection(_names_in(stmt.body)):
            return [stmt.with_changes(test=self._truth(*self.expr(stmt.test)))]
        raise _NotScalar

    def _bound(self, value) -> str:
        """Which bound of the int64 range the lane's int ``value`` may pass: "hi" for an
        int64 of the loop's (in range: `_in_range` checked it) plus an int literal, "lo"
        for one minus a literal, else "" (either)."""
        if type(value) is not cst.BinaryOperation or type(value.right) is not cst.Integer \
                or value.right.lpar or type(value.left) is not cst.Name:
            return ""
        lanes = {self.mapping[k]: kind for k, kind in self.kinds.items() if k in self.mapping}
        if lanes.get(value.left.value) != "n":
            return ""
        return {cst.Add: "hi", cst.Subtract: "lo"}.get(type(value.operator), "")

    def _target(self, target, kind: str):
        kind = "n" if kind == "w" else kind         # (checked in range right after)
        if type(target) is not cst.Name or target.value not in self.mapping or \
                self.kinds.setdefault(target.value, kind) != kind:
            raise _NotScalar
        self.true.discard(target.value)
        return target.with_changes(value=self.mapping[target.value])

    @staticmethod
    def _truth(node, kind: str):
        if kind == "w":                 # (2**64 is true, its wrapped int64 is not)
            raise _NotScalar
        return _truth(node, kind)

    def expr(self, node) -> tuple:
        """(the lane's expression, its kind)."""
        kind = type(node)
        if kind is cst.Name:
            if node.value in self.true:
                return cst.Name("True"), "b"
            if node.value in self.mapping and node.value in self.kinds:
                return node.with_changes(value=self.mapping[node.value]), \
                    self.kinds[node.value]
            if node.value in ("True", "False"):
                return node, "b"
        elif kind is cst.Float:
            return node, "f"
        elif kind is cst.Integer:
            value = int(node.evaluated_value)
            if abs(value) < 2 ** 53:
                return node, "i"
            if value <= _INT64[1]:      # (an int64 beside one, never beside a float)
                return node, "L"
        elif kind is cst.BinaryOperation:
            return self._binary(node)
        elif kind is cst.UnaryOperation:
            operand, k = self.expr(node.expression)
            if type(node.operator) is cst.Minus and k in "finwL":
                self.floats |= k == "f"
                return node.with_changes(expression=operand), "w" if k == "n" else k
            if type(node.operator) in (cst.Not, cst.BitInvert) and k == "b":
                return _negated(operand), "b"
        elif kind is cst.Comparison and len(node.comparisons) == 1 and \
                type(node.comparisons[0].operator) in self._COMPARISONS:
            (left, a), (right, b) = self.expr(node.left), \
                self.expr(node.comparisons[0].comparator)
            # (an int64 against a float: NumPy compares the nearest float, Python exactly;
            # a 'w' int may be one the arrays wrapped)
            if not {a, b} & set("nwL") or ({a, b} <= set("nibL") and "n" in (a, b)):
                return node.with_changes(left=left, comparisons=[
                    node.comparisons[0].with_changes(comparator=right)]), "b"
        elif kind is cst.BooleanOperation:
            (left, a), (right, b) = self.expr(node.left), self.expr(node.right)
            if a == b == "b":
                if _bare(left).deep_equals(_bare(right)):
                    return left, "b"        # (``c and c``: a check's test, its mask folded)
                return node.with_changes(left=left, right=right), "b"
        elif kind is cst.Call:
            return self._call(node)
        raise _NotScalar

    def _binary(self, node) -> tuple:
        (left, a), (right, b) = self.expr(node.left), self.expr(node.right)
        op = type(node.operator)
        if op in self._ARITHMETIC and {a, b} & set("nw"):
            # (a count of the mask, ``k + active``, where the mask is true: ``k + 1``)
            (left, a), (right, b) = (
                (cst.Integer("1"), "i") if part.deep_equals(cst.Name("True")) else (part, k)
                for part, k in ((left, a), (right, b)))
        changed = node.with_changes(left=left, right=right)
        if op in self._ARITHMETIC and a in "fi" and b in "fi":
            if a == b == "i" and op is not cst.Divide:
                return changed, "i"
            self.floats = True
            return changed, "f"
        if op in self._ARITHMETIC and {a, b} & set("nw"):
            if op is not cst.Divide and {a, b} <= set("nwibL") and a + b != "bb":
                return changed, "w"         # (checked where it is assigned)
            if {a, b} <= set("nf"):         # (an int64 in range: converted to the nearest)
                self.floats = True
                return changed, "f"
        # (floor division and remainder of int64s in range by a nonzero divisor: the same
        # both, but -2**63 // -1, which the arrays wrap; Python raises on a zero divisor)
        if op in (cst.FloorDivide, cst.Modulo) and "n" in (a, b) and {a, b} <= set("niL"):
            return changed, "w" if op is cst.FloorDivide else "n"
        if op in (cst.BitAnd, cst.BitOr) and a == b == "b":
            true = cst.Name("True")
            if op is cst.BitAnd and left.deep_equals(true):
                return right, "b"
            if op is cst.BitAnd and right.deep_equals(true):
                return left, "b"
            return changed, "b"
        raise _NotScalar

    def _call(self, node) -> tuple:
        func, args = node.func, node.args
        if any(a.keyword is not None or a.star for a in args):
            raise _NotScalar
        values = [self.expr(a.value) for a in args]
        if type(func) is cst.Name and func.value == "abs" and len(args) == 1 and \
                values[0][1] in "fnw":
            self.floats |= values[0][1] == "f"
            return node.with_changes(args=[args[0].with_changes(value=values[0][0])]), \
                "f" if values[0][1] == "f" else "w"
        if type(func) is cst.Name and func.value in self.helpers:
            return self._inlined(self.helpers[func.value], values)
        if type(func) is not cst.Attribute:
            raise _NotScalar
        attr = func.attr.value
        if type(func.value) is cst.Name and func.value.value == self.alias:
            if attr == "where" and len(values) == 3 and values[0][1] == "b":
                (test, _), (a, ka), (b, kb) = values
                # (an int and a float: the array's float, Python's int; an int64 and a
                # literal: an int64 both)
                joined = ka if ka == kb else ("w" if "w" in (ka, kb) else "n") \
                    if {ka, kb} <= set("nwiL") else None
                if joined is not None:
                    return (a if test.deep_equals(cst.Name("True")) else
                            cst.IfExp(test=test, body=a, orelse=b)), joined
            if attr == "logical_not" and len(values) == 1 and values[0][1] == "b":
                return _negated(values[0][0]), "b"
            if attr in ("any", "all") and len(values) == 1:
                return self._truth(*values[0]), "b"
        elif type(func.value) is cst.Name and len(values) == 1 and \
                self.reductions.get((func.value.value, attr)) in ("any", "all"):
            return self._truth(*values[0]), "b"
        elif attr in ("any", "all") and not args:
            return self._truth(*self.expr(func.value)), "b"
        raise _NotScalar

    def _inlined(self, helper: cst.FunctionDef, values: list) -> tuple:
        """A call of the generated ``helper`` with the lane's ``values`` (expression, kind):
        its ``return`` expression, translated where its parameters are those values (names
        of the lane's, or truths), after its statements (assignments of its own names, under
        fresh ones, and checks), which go before the statement that calls it (`before`:
        what they compute the array pass computes as it calls the helper, whatever the
        calling expression takes; a check that raises only stops the tail); else
        `_NotScalar` (defaults, a parameter assigned, a helper nested deeper than a few
        calls). An argument other than a name is computed first, under a name of its own."""
        params = helper.params
        if self.depth >= 4 or params.star_arg is not cst.MaybeSentinel.DEFAULT and \
                params.star_arg is not None or params.kwonly_params or params.star_kwarg or \
                params.posonly_params or len(params.params) != len(values):
            raise _NotScalar
        *stmts, last = [s for s in helper.body.body if not (
            type(s) is cst.SimpleStatementLine and len(s.body) == 1 and
            type(s.body[0]) is cst.Expr and type(s.body[0].value) is cst.SimpleString)] or [None]
        if type(last) is not cst.SimpleStatementLine or len(last.body) != 1 or \
                type(last.body[0]) is not cst.Return or last.body[0].value is None:
            raise _NotScalar
        names = {p.name.value for p in params.params}
        assigned = set().union(set(), *map(writes, stmts))
        if assigned & names or (assigned and self.fresh is None):
            raise _NotScalar
        mapping, kinds, true = {}, {}, set()
        for param, (node, kind) in zip(params.params, values):
            name = param.name.value
            if node.deep_equals(cst.Name("True")):
                true.add(name)
            elif type(node) is cst.Name and node.value not in ("True", "False"):
                mapping[name], kinds[name] = node.value, kind
            elif self.fresh is not None and kind != "L":
                # (an expression: computed once, under a name of its own, as the array
                # code passes its value)
                mapping[name] = self.fresh(f"{name}_lane")
                self.made.append(mapping[name])
                kinds[name] = "n" if kind == "w" else kind
                self.before.append(cst.SimpleStatementLine(body=[cst.Assign(
                    targets=[cst.AssignTarget(cst.Name(mapping[name]))], value=node)]))
                if kind == "w":
                    self.before.append(_in_range(mapping[name]))
            else:
                raise _NotScalar
        for name in sorted(assigned):
            mapping[name] = self.fresh(f"{name}_lane")
            self.made.append(mapping[name])
        inner = _ScalarBody(mapping, kinds, self.alias, true=true, helpers=self.helpers,
                            fresh=self.fresh, depth=self.depth + 1,
                            reductions=self.reductions)
        inner.made = self.made
        for stmt in stmts:
            self.before += inner.statement(stmt)
        inner.before = []
        value, kind = inner.expr(last.body[0].value)
        self.before += inner.before
        self.floats |= inner.floats
        return value, kind      # (parenthesized where it needs: ``fix_parens``)


def _bare(node):
    """``node`` without the parentheses around it."""
    return node.with_changes(lpar=[], rpar=[]) if hasattr(node, "lpar") else node


def _in_range(name: str, bound: str = ""):
    """``if not lo <= name <= hi: raise OverflowError``: a Python int the int64 arrays would
    have wrapped stops the tail; ``bound`` "hi" or "lo" where only that one can be passed
    (``n_lane + 1``: ``if n_lane > hi:``)."""
    lo, hi = _INT64
    test = {"hi": f"{name} > {hi}", "lo": f"{name} < {lo}"}.get(
        bound, f"not {lo} <= {name} <= {hi}")
    return parse_stmt(f"if {test}:\n    raise OverflowError\n")


_ARITHMETIC_ERRORS = frozenset(("ArithmeticError", "ZeroDivisionError", "OverflowError",
                                "FloatingPointError"))


def _raises_arithmetic(node) -> bool:
    """``raise ZeroDivisionError(...)`` (an `ArithmeticError`, which the tail catches)."""
    exc = node.exc.func if type(node.exc) is cst.Call else node.exc
    return type(node) is cst.Raise and type(exc) is cst.Name and \
        exc.value in _ARITHMETIC_ERRORS


def _truth(node, kind: str):
    """The truth of one value (of `_ScalarBody`'s ``kind``), as ``np.any`` of it: a truth
    itself, else ``x != 0`` (NaN is true; ``x != 0.0`` of a float, as the arrays' code
    writes its zero tests, `rules.operators.float_literals`, so that ``c and c`` of both
    folds)."""
    if kind == "b":
        return node
    return cst.Comparison(left=node, comparisons=[cst.ComparisonTarget(
        cst.NotEqual(), cst.Float("0.0") if kind == "f" else cst.Integer("0"))])


def _negated(node):
    """``not node``, where ``x != 0`` is ``x == 0``."""
    if type(node) is cst.Comparison and len(node.comparisons) == 1 and \
            type(node.comparisons[0].operator) is cst.NotEqual and not node.lpar:
        return node.with_changes(comparisons=[node.comparisons[0].with_changes(
            operator=cst.Equal())])
    return cst.UnaryOperation(cst.Not(), node)


def _merged_while_idle(body: list, merges: dict, idle: str, unmerged=frozenset(),
                       counts=frozenset(), blend=None) -> list:
    """``body`` with each merge `_Compact._plain_merges` found (by index) taken only where
    some lane in the loop's arrays has finished, ``x = np.where(active, x_new, x) if idle
    else x_new``, and those in ``unmerged`` never, ``x = x_new`` (a carry the code after
    the loop does not read, whose value on a finished lane nothing uses). ``idle`` (the
    lanes that finished since the last compaction) is 0 exactly when every lane in the
    loop's arrays runs, which is how each compaction leaves them and how most passes of
    lanes that finish together find them (no `where` to pay then).
    (Counting what the merges cost towards compacting, so that a few finished lanes make the
    loop compact sooner, was measured slower on benchmarks/bench_live_loops.py: where lanes
    finish one by one, as Mandelbrot's late escapes do, it compacts every few passes and pays
    more in gathers than the merges cost.)
    A count, an int carry in ``counts`` whose new value is ``n_new = n + 1`` (``n`` unchanged
    until the merge), merges as ``n + active`` (the mask counts 0 or 1: the same ints,
    wrapped alike, in one addition instead of a choice). ``blend``: the backend's spelling
    of such a merge (`Backend.blend_pass`: NumPy's ``merge.blend_pass``, the same values
    without a branch per lane on wide masks in no order), None where it has none."""
    out = list(body)
    for k in merges:
        # (each statement as `_Compact._local` renamed it)
        assign = out[k].body[0]
        new = assign.value.args[1].value
        merged = _counted(body[:k], _merged_name(out[k]), new, assign.value.args[0].value) \
            if _merged_name(out[k]) in counts else None
        spelled = blend and blend(*(render(fix_parens(a.value)).strip()
                                    for a in assign.value.args))
        if merged is None and spelled:
            merged = parse_expr(spelled)
        out[k] = out[k].with_changes(body=[assign.with_changes(
            value=new if k in unmerged else cst.IfExp(
                test=cst.Name(idle), body=merged or assign.value, orelse=new))])
    return out


def _narrowed_while_idle(body: list, k: int, idle: str, fresh) -> list:
    """``body`` with its statement ``k``, the mask's first narrowing in the pass
    (`_Compact._plain_narrowing`: ``active = active & cond``), taken only where some lane in
    the loop's arrays has finished, ``active = active & cond if idle else cond``: while
    ``idle`` is 0 every lane there runs, and the mask, true on each, is ``cond`` (one
    array operation less a pass: after each compaction, and while lanes finish together).
    A ``cond`` that is not a name is computed first under a fresh one (``narrowing``), so
    the text does not hold it twice."""
    out = list(body)
    assign = out[k].body[0]
    value = assign.value
    cond = value.right
    before = []
    if type(cond) is not cst.Name:
        cond = cst.Name(fresh("narrowing"))
        before = [cst.SimpleStatementLine(body=[cst.Assign(
            targets=[cst.AssignTarget(target=cond)], value=value.right)])]
        value = value.with_changes(right=cond)
    out[k:k + 1] = before + [out[k].with_changes(body=[assign.with_changes(value=cst.IfExp(
        test=cst.Name(idle), body=value, orelse=cond))])]
    return out


def _hoisted(body: list, names: set, fresh) -> tuple[list, list]:
    """``body`` with each largest expression of ``+ - *`` and unary ``-`` of the ``names``
    (a loop's gathered values it only reads) and numbers, reading one of the names at
    least, as a fresh name, and the (name, expression) pairs: the same values, computed
    once before the loop (the operations cannot raise; under ``np.errstate`` they do not
    warn)."""
    if not names:
        return body, []
    hoist = _Invariants(names, fresh)
    out = [stmt.visit(hoist) for stmt in body]
    return out, list(hoist.found.values())


class _Invariants(cst.CSTTransformer):
    _OPERATORS = (cst.Add, cst.Subtract, cst.Multiply)

    def __init__(self, names: set, fresh):
        self.names, self.fresh = names, fresh
        self.found: dict[str, tuple] = {}      # code -> (name, expression)

    def invariant(self, node) -> bool:
        t = type(node)
        if t is cst.Name:
            return node.value in self.names
        if t in (cst.Float, cst.Integer):
            return True
        if t is cst.BinaryOperation:
            return type(node.operator) in self._OPERATORS and self.invariant(node.left) and \
                self.invariant(node.right)
        if t is cst.UnaryOperation:
            return type(node.operator) is cst.Minus and self.invariant(node.expression)
        return False

    def hoisted(self, node) -> bool:
        return type(node) in (cst.BinaryOperation, cst.UnaryOperation) and \
            self.invariant(node) and not self.names.isdisjoint(_names_in(node))

    def on_visit(self, node) -> bool:
        return not self.hoisted(node)

    def on_leave(self, original_node, updated_node):
        if not self.hoisted(original_node):
            return updated_node
        value = original_node.with_changes(lpar=[], rpar=[])
        code = bare_code(value)
        if code not in self.found:
            self.found[code] = (self.fresh("invariant"), value)
        return cst.Name(self.found[code][0])


def _counted(before: list, name: str, new, active):
    """``name + active`` where ``new`` is a name the last assignment of which in ``before``
    is ``new = name + 1``, with nothing after it assigning ``name``; else None."""
    if type(new) is not cst.Name:
        return None
    for stmt in reversed(before):
        if name in writes(stmt):
            return None
        if new.value not in writes(stmt):
            continue
        assign = stmt.body[0] if type(stmt) is cst.SimpleStatementLine and \
            len(stmt.body) == 1 else None
        value = getattr(assign, "value", None)
        if type(assign) is cst.Assign and len(assign.targets) == 1 and \
                type(assign.targets[0].target) is cst.Name and \
                type(value) is cst.BinaryOperation and type(value.operator) is cst.Add and \
                type(value.left) is cst.Name and value.left.value == name and \
                type(value.right) is cst.Integer and value.right.value == "1":
            return cst.BinaryOperation(cst.Name(name), cst.Add(), active)
        return None
    return None


def _merged_name(stmt) -> str:
    """The carry a merge ``x = np.where(active, x_new, x)`` assigns."""
    return stmt.body[0].targets[0].target.value


def _tolerates_finished_lanes(body: list, prims) -> bool:
    """Whether ``body`` may run on lanes that have finished with any values in their dead
    carries (no longer merged, they go on changing: Mandelbrot's ``zr`` grows to inf, then
    nan) without changing anything else: it is elementwise (operators, the namespace's
    ufuncs, ``np.where``, ``abs``; the tests of its raises are masked by the loop's mask),
    so a lane's values reach no other lane and no other value of its own that the loop
    keeps (those stay merged, and the mask only loses lanes), and nothing in it raises on a
    value (no indexing, no integer power, no calls of helpers, no inner loops). Run under
    ``np.errstate(all="ignore")`` (the caller's condition), what those lanes compute does
    not warn either."""
    module = prims.module()
    raised = {id(n) for r in walk(cst.Module(body=body)) if type(r) is cst.Raise
              for n in walk(r)}      # (the exception a raise makes: `ValueError("...")`)
    for n in walk(cst.Module(body=body)):
        kind = type(n)
        if id(n) in raised:
            continue
        if kind in (cst.While, cst.For, cst.Subscript, cst.Lambda, cst.With, cst.Yield,
                    cst.Await, cst.ListComp, cst.GeneratorExp, cst.SetComp, cst.DictComp):
            return False
        if kind is cst.BinaryOperation and type(n.operator) is cst.Power and \
                type(n.right) not in (cst.Integer, cst.Float):
            return False        # (an integer to a negative integer power raises)
        if kind is cst.Call and not _elementwise(n, prims.alias, module,
                                                 prims.helper_reductions):
            return False
    return True


_ELEMENTWISE = frozenset(("where", "any", "all", "count_nonzero"))


def _elementwise(call: cst.Call, alias: str, module, reductions=None) -> bool:
    """``abs(x)``, ``np.cos(x)`` (a ufunc but ``power``), ``np.where``, ``np.any``,
    ``x.all()``/``x.any()``/``x.astype(...)``, and the backend's helpers called like
    ``np.all``/``np.any`` (``reductions``: `Backend.helper_reductions`)."""
    func = call.func
    if type(func) is cst.Name:
        return func.value == "abs"
    if type(func) is not cst.Attribute:
        return False
    attr = func.attr.value
    if type(func.value) is cst.Name and (func.value.value, attr) in (reductions or {}):
        return True
    if type(func.value) is cst.Name and func.value.value == alias:
        fn = getattr(module, attr, None)
        ufunc = getattr(module, "ufunc", None)
        return attr in _ELEMENTWISE or (ufunc is not None and isinstance(fn, ufunc)
                                        and attr not in ("power", "ldexp"))
    return attr in ("all", "any", "astype")


# What compaction costs against the lanes it stops running, in units of one elementwise array
# operation on one lane: a gather by lane indices or a scatter costs a few such operations per
# lane, but a finished lane also slows the running ones (the `where` merges of a mixed mask
# cost several times those of a uniform one), so a move is counted as one operation, the
# value that did best on benchmarks/bench_live_loops.py (0.5 and 2 did no better); calling
# any array operation costs about 500 (NumPy, half a microsecond)
_MOVE_PER_LANE = 1
_CALL = 500


def _compaction_cost(carried: int, gathered: int, body) -> tuple[float, int]:
    """When a compacted loop shrinks its gathered arrays to the running lanes: once the
    lane-passes run for lanes that had finished (``idle``, counted since the last
    compaction) have cost what compacting costs, a rent-or-buy rule that keeps the total
    within about twice what the better choice would have cost. A pass of one finished lane
    costs the body's array operations (``ops``); compacting ``lanes.size`` lanes scatters
    the ``carried`` arrays back and gathers ``gathered`` arrays (the lanes' indices
    included), each a call plus a move per lane. Returns ``(per_lane, fixed)``: compact
    when ``idle >= per_lane * lanes.size + fixed``."""
    ops = max(1, sum(1 for n in walk(cst.Module(body=body)) if type(n) in _OPERATIONS))
    moved = carried + gathered + 1
    per_lane = min(4.0, max(0.05, round(_MOVE_PER_LANE * moved / ops, 2)))
    return per_lane, int(round(_CALL * moved / ops, -1))


_OPERATIONS = (cst.Call, cst.BinaryOperation, cst.Comparison, cst.UnaryOperation,
               cst.BooleanOperation, cst.AugAssign)


def _changed_in_place(stmts) -> set:
    """The names of the arrays ``stmts`` assign into (an item or attribute of), and None
    where they hold an augmented assignment (which may change any array in place)."""
    changed: set = set()
    for stmt in stmts:
        for target in _assigned_targets(stmt):
            if type(target) is cst.AugAssign:
                changed.add(None)
            while type(target) in (cst.Subscript, cst.Attribute):
                target = target.value
                if type(target) is cst.Name:
                    changed.add(target.value)
    return changed


def _assigned_targets(node):
    """The targets of every assignment under ``node`` (``for`` and ``with`` ones included;
    an augmented assignment: itself, which may change its target in place)."""
    for n in walk(node):
        t = type(n)
        if t is cst.AssignTarget:
            yield from _unpacked(n.target)
        elif t is cst.AugAssign:
            yield n                 # `x += y` changes an array in place
        elif t is cst.AnnAssign:
            yield from _unpacked(n.target)
        elif t is cst.For:
            yield from _unpacked(n.target)
        elif t is cst.Del:
            yield from _unpacked(n.target)
        elif t is cst.AsName:
            yield from _unpacked(n.name)
        elif t is cst.NamedExpr:
            yield n.target


def _unpacked(target):
    if type(target) in (cst.Tuple, cst.List):
        for element in target.elements:
            yield from _unpacked(element.value)
    elif type(target) is cst.StarredElement:
        yield from _unpacked(target.value)
    else:
        yield target


def _numbered_in_order(func: cst.FunctionDef, made: dict[str, str]) -> cst.FunctionDef:
    """Inner loops and ``if``s are rewritten first, so they took the first fresh names
    (``lanes``, then ``lanes_2``): the names made from one base are handed out again in
    the order they appear in the code."""
    by_base: dict[str, list[str]] = {}
    for name, base in made.items():
        by_base.setdefault(base, []).append(name)
    by_base = {base: names for base, names in by_base.items() if len(names) > 1}
    if not by_base:
        return func
    first = _first_uses(func, {name for names in by_base.values() for name in names})
    mapping = {}
    for base, names in by_base.items():
        def number(name, base=base):
            return 1 if name == base else int(name[len(base) + 1:])
        in_code = sorted((n for n in names if n in first), key=first.__getitem__)
        mapping.update({old: new for old, new in zip(in_code, sorted(in_code, key=number))
                        if old != new})
    return rewrite(func, RenameNames(mapping)) if mapping else func


def _first_uses(node, names: set[str]) -> dict[str, int]:
    """The rank of the first occurrence in the code of each of ``names`` as a variable (one
    walk in code order: attribute and keyword names are not variables)."""
    first: dict[str, int] = {}
    stack = [node]
    while stack:
        n = stack.pop()
        kind = type(n)
        if kind is cst.Name:
            if n.value in names and n.value not in first:
                first[n.value] = len(first)
            continue
        if kind is cst.Attribute:
            stack.append(n.value)
            continue
        if kind is cst.IfExp:               # `body if test else orelse`
            stack += [n.orelse, n.test, n.body]
            continue
        parts = children(n)
        if kind is cst.Arg and n.keyword is not None:
            parts = [p for p in parts if p is not n.keyword]
        stack += reversed(parts)
    return first


def _moves_data_only(stmt, data_calls) -> bool:
    """Assignments of names and integers, gathers (``x[lanes]``), scatters and new arrays
    (calls named in ``data_calls``, the namespace's): nothing that computes, so nothing that
    can warn; an ``if`` of such statements that asks how many lanes there are
    (``lanes.size < len(x)``)."""
    if type(stmt) is cst.If:
        return _counts_lanes(stmt.test) and all(
            _moves_data_only(s, data_calls) for s in stmt.body.body) and (
            stmt.orelse is None or (type(stmt.orelse) is cst.Else and all(
                _moves_data_only(s, data_calls) for s in stmt.orelse.body.body))
            or (type(stmt.orelse) is cst.If and _moves_data_only(stmt.orelse, data_calls)))
    if not isinstance(stmt, cst.SimpleStatementLine):
        return False
    for small in stmt.body:
        if not isinstance(small, cst.Assign):
            return False
        value = small.value
        if isinstance(value, cst.Call):
            func = value.func
            name = render(func)
            if not (name in data_calls or (isinstance(func, cst.Attribute)
                                             and func.attr.value == "astype")):
                return False
        elif not isinstance(value, (cst.Name, cst.Subscript, cst.Integer)):
            return False
    return True


def _counts_lanes(test) -> bool:
    """``lanes.size``, ``lanes.size < len(active) or not lanes.size``: sizes of arrays,
    which cannot warn."""
    if type(test) is cst.BooleanOperation:
        return _counts_lanes(test.left) and _counts_lanes(test.right)
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        return _counts_lanes(test.expression)
    if type(test) is cst.Comparison:
        return _counts_lanes(test.left) and all(
            type(c.operator) in (cst.LessThan, cst.Equal) and _counts_lanes(c.comparator)
            for c in test.comparisons)
    if type(test) is cst.Call:
        return render(test.func) == "len" and len(test.args) == 1 \
            and type(test.args[0].value) is cst.Name
    return type(test) is cst.Attribute and test.attr.value == "size" \
        and type(test.value) is cst.Name


def transform(func: cst.FunctionDef, ctx) -> cst.FunctionDef:
    ifs = any(facts is not None for facts in CompactedIfs.get(ctx).tests.values())
    if not BatchedLoopFacts.get(ctx).loops and not ifs:
        return func
    compact = _Compact(ctx, Liveness(func))
    compact.bound = bound_names(func)
    return _numbered_in_order(rewrite(func, compact), compact.made)
