"""Turn ``if`` statements with batched tests into straight-line code and conditional merges.

Assumes: returns under batched conditions were lowered (`early_return`); the current
analysis and liveness of the function.
Reads: `records.MaskedLoopFacts` (masks, placeholders) and `records.CompactedIfs` (the
``if``s it leaves to `compact`). Writes: `MaskedLoopFacts.alias` (a branch's copy of a
placeholder).
Guarantees: no ``if`` whose test is batched remains. Both branches run on every lane, one
after the other; each variable a branch assigns that is read later (or by the other branch)
gets a branch-local name (``root_if``, ``root_else``), and each live variable is merged with
a conditional expression ``root = root_if if cond else root_else``, which the batching rules
turn into ``np.where``. A branch that is a single assignment is inlined into its merge. When a
branch can warn on lanes whose result is thrown away (``log``, ``/``, ``sqrt``...), the block
runs under ``np.errstate(all="ignore")``. ``if`` statements with unbatched tests stay Python
``if`` statements. The output is still scalar-style code with the same per-example meaning.

    if tmp > 5:                     root = t * b if tmp > 5 else -t
        root = t * b       ->
    else:
        root = -t
"""

from __future__ import annotations

import functools

import libcst as cst

from ..analysis import may_warn
from ..errors import Unsupported
from ..liveness import body_of, exposed_reads, liveness_of, reads, target_names, writes
from ..syntax.edit import (
    AUGMENTED_TO_BINARY,
    AugmentedToAssignment,
    RenameNames,
    as_assignment,
    fix_parens,
    with_changes,
)
from ..syntax.templates import expr, render
from ..syntax.traversal import rewrite, statements, walk
from .records import CompactedIfs, MaskedLoopFacts


def _line(node) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([node])


def _assign(name: str, value) -> cst.SimpleStatementLine:
    return _line(cst.Assign([cst.AssignTarget(cst.Name(name))], value))


def _rename_branch(stmts: list, renamed: dict[str, str], defined=frozenset()) -> list:
    """Give the branch's own assignments of ``renamed`` names their branch-local names.

    Reads see the outer value until the branch first assigns the name, the branch-local
    value after that, exactly as the scalar code would."""
    if not renamed:
        return stmts
    active: dict[str, str] = {}
    prefix, out = [], []
    for stmt in stmts:
        if isinstance(stmt, cst.SimpleStatementLine):
            smalls = [_rename_small(small, renamed, active) for small in stmt.body]
            out.append(with_changes(stmt, body=smalls))
            continue
        # A nested block: names it reads before this branch assigned them start from a copy
        # of the outer value, so every occurrence inside can use the branch-local name.
        exposed = exposed_reads([stmt])
        for name in sorted((reads(stmt) | writes(stmt)) & set(renamed)):
            if name not in active:
                # also when the block only may assign it (a loop that may not run, an `if`
                # without `else`): the branch-local name starts from the outer value
                if name in exposed or (name in writes(stmt) and name in defined):
                    prefix.append(_assign(renamed[name], cst.Name(name)))
                active[name] = renamed[name]
        # a branch-local name starts as the outer value (`v_if = v`): an in-place update
        # under it would change the outer variable too
        out.append(_renamed(rewrite(stmt, AugmentedToAssignment(set(renamed))), active))
    return prefix + out


def _renamed(node, active: dict[str, str]):
    """``node`` with the ``active`` names renamed (itself while there are none)."""
    return rewrite(node, RenameNames(active)) if active else node


def _rename_small(small, renamed, active):
    if type(small) is cst.AugAssign and type(small.target) is cst.Name \
            and small.target.value in renamed:
        name = small.target.value
        value = cst.BinaryOperation(left=cst.Name(active.get(name, name)),
                                    operator=AUGMENTED_TO_BINARY[type(small.operator)](),
                                    right=_renamed(small.value, active))
        active[name] = renamed[name]
        return cst.Assign([cst.AssignTarget(cst.Name(renamed[name]))], value)
    if isinstance(small, cst.Assign):
        value = _renamed(small.value, active)
        written = {n for t in small.targets for n in target_names(t.target)} & set(renamed)
        for name in written:
            active[name] = renamed[name]
        targets = [with_changes(t, target=_renamed(t.target, active)) for t in small.targets]
        return with_changes(small, targets=targets, value=value)
    return _renamed(small, active)


def _single_assignment(stmts: list):
    if len(stmts) == 1 and isinstance(stmts[0], cst.SimpleStatementLine) \
            and len(stmts[0].body) == 1 and isinstance(stmts[0].body[0], cst.Assign):
        assign = stmts[0].body[0]
        if len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name):
            return assign.targets[0].target.value, assign.value
    return None


class _IfToWhere(cst.CSTTransformer):
    def __init__(self, ctx, analysis, liveness):
        self.ctx = ctx
        self.analysis = analysis
        self.liveness = liveness

    @functools.cached_property
    def masks(self) -> set[str]:
        """The masks of loops whose lanes stop at different times (a uniform loop needs
        none)."""
        if not MaskedLoopFacts.get(self.ctx).masks:
            return set()
        return {n.value for n, v in self.analysis.values.items()
                if type(n) is cst.Name and n.value in MaskedLoopFacts.get(self.ctx).masks
                and getattr(v, "batched", False)}

    def _batched_masks(self, block) -> set[str]:
        """The masks among `masks` that are per-example somewhere in ``block``."""
        if block is None or not self.masks:
            return set()
        values = self.analysis.values
        return {n.value for n in walk(block) if type(n) is cst.Name and n.value in self.masks
                and getattr(values.get(n), "batched", False)}

    def leave_If(self, original_node, updated_node):
        if not self.analysis.batched_tests.get(original_node, False):
            return updated_node
        if isinstance(updated_node.test, cst.Name) and updated_node.test.value in \
                CompactedIfs.get(self.ctx).tests:
            return updated_node     # chosen by `compact_ifs`: `compact` gathers its lanes
        live_out = self.liveness.live_after.get(original_node, set())
        defined = self.analysis.defined_before.get(original_node, set())
        return cst.FlattenSentinel(self.convert(original_node, updated_node, live_out, defined))

    def convert(self, original, node: cst.If, live_out: set[str], defined: set[str]) -> list:
        then_stmts = list(node.body.body)
        else_stmts = body_of(node.orelse)
        if isinstance(node.orelse, cst.If):
            # an `elif` that was itself batched has been converted to statements already
            else_stmts = [node.orelse]
        then_w = set().union(*map(writes, then_stmts)) if then_stmts else set()
        else_w = set().union(*map(writes, else_stmts)) if else_stmts else set()
        else_r = exposed_reads(else_stmts)
        test_r = reads(node.test)
        merged = sorted((then_w | else_w) & live_out, key=_order(then_stmts + else_stmts))
        for name in merged:
            if name not in defined and not (name in then_w and name in else_w):
                raise Unsupported(f"`{name}` is assigned only when the condition is "
                                  f"{'true' if name in then_w else 'false'} but is used "
                                  "afterwards", original.test,
                                  f"give `{name}` a value before the `if`")

        def renames(writes_, other_reads, suffix):
            out = {}
            for name in sorted(writes_):
                if name in live_out or name in other_reads or name in test_r:
                    out[name] = self.ctx.namer.fresh(f"{name}_{suffix}")
                    loops = MaskedLoopFacts.get(self.ctx)
                    if name in loops.placeholders:     # its copy in the branch too
                        loops.alias(out[name], name)
            return out

        then_map = renames(then_w, else_r, "if")
        else_map = renames(else_w, set(), "else")
        then_stmts = _rename_branch(then_stmts, then_map, defined)
        else_stmts = _rename_branch(else_stmts, else_map, defined)

        test = node.test
        out: list = []
        # a merged variable the test reads: the test must not see its merged value
        if isinstance(test, cst.Name) and test.value in merged:
            merged.remove(test.value)
            merged.append(test.value)          # merge the mask itself last
        elif test_r & set(merged) and not isinstance(test, cst.Name):
            cond = self.ctx.namer.fresh("cond")
            out.append(_assign(cond, test))
            test = cst.Name(cond)
        # per branch: the code after an early return is copied into several branches, and a
        # loop's mask may be per-example in one copy and the same for every lane in another
        then_masks = self._batched_masks(original.body)
        else_masks = self._batched_masks(original.orelse)
        masks = then_masks | else_masks
        has_loops = bool(masks) and (_has_mask_init(then_stmts, then_masks)
                                     or _has_mask_init(else_stmts, else_masks))
        written = _item_writes(then_stmts) + _item_writes(else_stmts)
        if (len(merged) > 1 or has_loops or written and (
                len(merged) + len(written) > 1 or any(in_loop for _, in_loop in written)
                or test_r & {base for base, _ in written})) \
                and not isinstance(test, cst.Name):
            cond = self.ctx.namer.fresh("cond")
            out.append(_assign(cond, test))
            test = cst.Name(cond)
        if written:
            # a write into an array happens on the lanes that take its branch only
            namer = self.ctx.namer
            # (in a block: a line may become two, its index kept in a name first)
            then_stmts = list(rewrite(cst.IndentedBlock(then_stmts),
                                      _MaskWrites(test, False, namer, self.analysis)).body)
            else_stmts = list(rewrite(cst.IndentedBlock(else_stmts),
                                      _MaskWrites(test, True, namer, self.analysis)).body)
        if has_loops:
            # a masked loop inside a branch runs only for the lanes that take the branch:
            # other lanes must not keep it going (they might never finish it)
            then_stmts = _restrict_masks(then_stmts, test, then_masks)
            else_stmts = _restrict_masks(else_stmts, cst.UnaryOperation(cst.Not(), test),
                                         else_masks)

        inline_then = _single_assignment(then_stmts)
        inline_else = _single_assignment(else_stmts)
        then_values: dict[str, cst.BaseExpression] = {}
        else_values: dict[str, cst.BaseExpression] = {}
        if inline_then and len(merged) == 1 and inline_then[0] == then_map.get(merged[0]) \
                and not reads(inline_then[1]) & (else_w - set(else_map)):
            # (the merge comes after the else branch: an inlined value must not read what
            # that branch overwrites)
            then_values[merged[0]] = inline_then[1]
            then_stmts = []
            self.ctx.namer.release(inline_then[0])
        if inline_else and len(merged) == 1 and inline_else[0] == else_map.get(merged[0]):
            else_values[merged[0]] = inline_else[1]
            else_stmts = []
            self.ctx.namer.release(inline_else[0])
        if not merged and not written and not has_loops and test is node.test and \
                type(test) is not cst.Name:
            # nothing reads the test (the names the branches assign are dead): it is still
            # evaluated, as Python evaluates it, so that what raises for every example there
            # (an ordering comparison of complex numbers) is refused by its rule (into a
            # name nothing reads: a bare comparison is a pointless statement to linters)
            out.append(_assign(self.ctx.namer.fresh("_unread"), test))
        out += then_stmts + else_stmts
        for name in merged:
            a = then_values.get(name, cst.Name(then_map.get(name, name)))
            b = else_values.get(name, cst.Name(else_map.get(name, name)))
            out.append(_assign(name, _merge(test, a, b)))
        out = _flatten_errstate(out, self.ctx.registry.primitives)
        if self._may_warn(original):
            return [errstate(out, self.ctx.registry.primitives)]
        return out or [_line(cst.Pass())]

    def leave_SimpleStatementLine(self, original_node, updated_node):
        """A conditional expression or `and`/`or` on batched values evaluates its lazy part on
        every lane too: when that part can warn, the statement runs with warnings silenced."""
        lazy = []
        for n in walk(original_node):
            if type(n) is cst.IfExp and _batched(self.analysis, n.test):
                lazy += [n.body, n.orelse]
            elif type(n) is cst.BooleanOperation and _batched(self.analysis, n.left):
                lazy.append(n.right)
            elif type(n) is cst.Comparison and len(n.comparisons) > 1 and _batched(
                    self.analysis, n):
                lazy += [c.comparator for c in n.comparisons[1:]]
        if lazy and self._may_warn_in(lazy):
            return errstate([updated_node], self.ctx.registry.primitives)
        return updated_node

    def _may_warn(self, node) -> bool:
        return self._may_warn_in(warning_parts(node))

    def _may_warn_in(self, parts) -> bool:
        return may_warn(parts, self.analysis, self.ctx.registry)


def warning_parts(node: cst.If) -> list:
    """The parts of an ``if`` whose floating-point warnings the select form silences: its
    branches, and the parts of its test Python would skip on some lanes
    (``d != 0 and x / d > 1``)."""
    parts = [node.body] + ([node.orelse] if node.orelse else [])
    for n in walk(node.test):
        if type(n) is cst.BooleanOperation:
            parts.append(n.right)
        elif type(n) is cst.IfExp:
            parts += [n.body, n.orelse]
        elif type(n) is cst.Comparison and len(n.comparisons) > 1:
            parts += [c.comparator for c in n.comparisons[1:]]
    return parts


def _batched(analysis, node) -> bool:
    return bool(getattr(analysis.values.get(node), "batched", False))


def errstate(body: list, prims) -> cst.With:
    return cst.With(items=[cst.WithItem(expr(prims.quiet))],
                    body=cst.IndentedBlock(body=body))


def _mask_init(stmt, masks):
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(
            stmt.body[0], cst.Assign) and len(stmt.body[0].targets) == 1:
        target = stmt.body[0].targets[0].target
        return isinstance(target, cst.Name) and target.value in masks
    return False


def _has_mask_init(stmts, masks) -> bool:
    return any(_mask_init(n, masks) for s in stmts for n in statements(s)
               if type(n) is cst.SimpleStatementLine)


class _RestrictMasks(cst.CSTTransformer):
    """``active = X`` (the start of a masked loop) -> ``active = path and X``."""

    def __init__(self, path, masks):
        self.path, self.masks = path, masks

    def leave_SimpleStatementLine(self, original_node, updated_node):
        if not _mask_init(updated_node, self.masks):
            return updated_node
        assign = updated_node.body[0]
        path = self.path if isinstance(self.path, (cst.Comparison, cst.UnaryOperation)) \
            else cst.Call(func=cst.Name("bool"), args=[cst.Arg(self.path)])   # a truth value
        value = cst.BooleanOperation(left=path, operator=cst.And(), right=assign.value)
        return updated_node.with_changes(body=[assign.with_changes(value=value)])


def _restrict_masks(stmts, path, masks) -> list:
    return [rewrite(s, _RestrictMasks(path, masks)) for s in stmts]


def _merge(test, a, b) -> cst.BaseExpression:
    """``a if test else b``, said more simply where the test is one of the values:
    ``t = t and a`` for ``a if t else t`` (the mask of a loop), ``t or b`` for
    ``t if t else b``; both keep the exact per-example meaning for any type."""
    if isinstance(test, cst.Name):
        if isinstance(b, cst.Name) and b.value == test.value:
            return cst.BooleanOperation(left=test, operator=cst.And(), right=a)
        if isinstance(a, cst.Name) and a.value == test.value:
            return cst.BooleanOperation(left=test, operator=cst.Or(), right=b)
    return cst.IfExp(test=test, body=a, orelse=b)


def _item_writes(stmts) -> list[tuple[str, bool]]:
    """The writes into items of arrays (``y[i] = v``, ``y[i] += v``) in ``stmts``: the array's
    name and whether the write is in a loop of ``stmts``."""
    out = []
    stack = [(s, False) for s in stmts]
    while stack:
        node, in_loop = stack.pop()
        t = type(node)
        if t is cst.Assign:
            out += [(base, in_loop) for target in node.targets
                    for base in _subscript_bases(target.target)]
        elif t is cst.AugAssign:
            out += [(base, in_loop) for base in _subscript_bases(node.target)]
        inner = in_loop or t in (cst.For, cst.While)
        stack += [(c, inner) for c in node.children
                  if not isinstance(c, cst.BaseExpression)]
    return out


def _subscript_bases(target) -> list[str]:
    if type(target) is cst.Subscript and type(target.value) is cst.Name:
        return [target.value.value]
    if type(target) in (cst.Tuple, cst.List):
        return [b for e in target.elements for b in _subscript_bases(e.value)]
    return []


class _MaskWrites(cst.CSTTransformer):
    """Writes into items of arrays on the lanes of one branch only: ``y[i] = v`` ->
    ``y[i] = v if test else y[i]`` (``y[i] if test else v`` in the ``else`` branch, where
    ``negated``), ``y[i] += v`` -> ``y[i] = y[i] + v if test else y[i]``; a write already
    masked by an inner ``if`` (``y[i] = v if t else y[i]``) is masked by both tests. Per
    example this writes what the branch writes where it runs and the item's own value
    elsewhere (the index evaluated once more, `guard_indices` kept it in bounds), so the
    meaning is unchanged, and both branches can run on every lane."""

    def __init__(self, test, negated: bool, namer, analysis=None):
        self.test, self.negated, self.namer = test, negated, namer
        self.analysis = analysis
        self.before: list = []      # indexes kept in names before the current line
        self.line = None

    def _truth_index(self, original, target) -> cst.Subscript | None:
        """``y[m] = v`` with one index ``m`` that is a truth value per example (it selects
        all of ``y`` or nothing) -> ``y[m if test else False] = v``: per example the
        branch's write where the branch runs and a write of no item elsewhere, with no merge
        (which would read the selection back). None for any other target."""
        if self.analysis is None or type(original) is not cst.Subscript or len(
                original.slice) != 1 or type(original.slice[0].slice) is not cst.Index:
            return None
        value = self.analysis.values.get(original.slice[0].slice.value)
        if getattr(value, "rank", None) != 0 or getattr(value, "kind", None) != "b":
            return None
        index = target.slice[0].slice.value
        bare = index.with_changes(lpar=[], rpar=[]) if type(index) is cst.IfExp else index
        if type(bare) is cst.IfExp and render(bare.test) == render(self.test) and (
                render(bare.orelse if not self.negated else bare.body) == "False"):
            return target       # (`guard_indices` kept it to this branch's lanes already)
        keep, skip = index.deep_clone(), cst.Name("False")
        body, orelse = (skip, keep) if self.negated else (keep, skip)
        guarded = fix_parens(cst.IfExp(test=self.test.deep_clone(), body=body, orelse=orelse))
        return target.with_changes(slice=[target.slice[0].with_changes(
            slice=target.slice[0].slice.with_changes(value=guarded))])

    def _slice_bounds(self, original, target) -> cst.Subscript | None:
        """``y[lo:hi] = v`` with a per-example bound (a slice the analysis selects by its
        mask) -> ``y[lo:(hi if test else 0)] = v`` (``y[(lo if test else len(y)):] = v``
        where ``hi`` is omitted): per example the branch's write where the branch runs and
        a write of no item elsewhere (an empty slice: its start is at least its end), which
        `aliasing._slice_write` makes a masked write, with no merge (which would read the
        slice back). None for any other target."""
        if self.analysis is None or type(original) is not cst.Subscript or \
                original not in self.analysis.slice_selections or len(target.slice) != 1 or \
                type(target.slice[0].slice) is not cst.Slice or \
                target.slice[0].slice.step is not None:
            return None
        sl = target.slice[0].slice

        def guarded(bound, skip):
            keep = bound.deep_clone()
            body, orelse = (skip, keep) if self.negated else (keep, skip)
            return fix_parens(cst.IfExp(test=self.test.deep_clone(), body=body, orelse=orelse))

        if sl.upper is not None:
            sl = sl.with_changes(upper=guarded(sl.upper, cst.Integer("0")))
        else:
            sl = sl.with_changes(lower=guarded(sl.lower or cst.Integer("0"), expr(
                "len({y})", y=target.value.deep_clone())))
        return target.with_changes(slice=[target.slice[0].with_changes(slice=sl)])

    def visit_SimpleStatementLine(self, node):
        self.line = node

    def leave_SimpleStatementLine(self, original_node, updated_node):
        before, self.before = self.before, []
        if not before:
            return updated_node
        return cst.FlattenSentinel([*before, updated_node])

    def _kept_indexes(self, line, target: cst.Subscript) -> cst.Subscript:
        """``y[k if t else 0]`` (an index `guard_indices` kept in bounds on other lanes) ->
        ``k_safe = k if t else 0`` before the line and ``y[k_safe]``: the masked write reads
        the item again, at the same index. Not where the line holds other statements or
        a ``:=`` (the index would be evaluated before them)."""
        if len(line.body) != 1 or any(type(n) is cst.NamedExpr for n in walk(line)):
            return target
        elements = []
        for element in target.slice:
            index = element.slice
            guarded = index.value if isinstance(index, cst.Index) else None
            zero = [arm for arm in (getattr(guarded, "body", None), getattr(guarded, "orelse",
                                                                           None))
                    if type(arm) is cst.Integer and arm.value == "0"]
            if type(guarded) is cst.IfExp and zero:
                kept = guarded.orelse if guarded.body is zero[0] else guarded.body
                name = self.namer.fresh(f"{kept.value if type(kept) is cst.Name else 'index'}"
                                        "_safe")
                self.before.append(_assign(name, guarded))
                element = element.with_changes(slice=index.with_changes(value=cst.Name(name)))
            elements.append(element)
        return target.with_changes(slice=elements)

    def visit_FunctionDef(self, node):
        return False

    def visit_Lambda(self, node):
        return False

    def leave_AugAssign(self, original_node, updated_node):
        target = updated_node.target
        if type(target) is not cst.Subscript or type(target.value) is not cst.Name:
            return updated_node
        if self.line is not None:
            target = self._kept_indexes(self.line, target)
        update = as_assignment(updated_node.with_changes(target=target))
        return update.with_changes(value=self.masked(target, update.value))

    def leave_Assign(self, original_node, updated_node):
        targets = [t.target for t in updated_node.targets]
        if not any(_subscript_bases(t) for t in targets):
            return updated_node
        if len(targets) != 1:
            raise Unsupported("an assignment to several targets, one an item of an array, "
                              "under a condition that differs per example", original_node,
                              "assign each target on its own line")
        target, value = targets[0], updated_node.value
        guarded = self._truth_index(original_node.targets[0].target, target)
        if guarded is None:
            guarded = self._slice_bounds(original_node.targets[0].target, target)
        if guarded is not None:
            return cst.Assign([cst.AssignTarget(guarded)], value)
        if type(target) is cst.Subscript:
            if self.line is not None:
                target = self._kept_indexes(self.line, target)
            return cst.Assign([cst.AssignTarget(target)], self.masked(target, value))
        if type(value) not in (cst.Tuple, cst.List) or len(value.elements) != len(
                target.elements) or any(type(e) is cst.StarredElement
                                        for e in (*value.elements, *target.elements)):
            raise Unsupported("unpacking into items of arrays under a condition that differs "
                              "per example", original_node,
                              "write `a, b = ...` into names first, then each item")
        # every item's old value is read before any is written (Python evaluates the whole
        # right side first), so each is masked on its own, also in a swap
        elements = [e.with_changes(value=self.masked(t.value, e.value))
                    if type(t.value) is cst.Subscript else e
                    for t, e in zip(target.elements, value.elements)]
        return with_changes(updated_node, value=value.with_changes(elements=elements))

    def masked(self, target: cst.Subscript, value) -> cst.BaseExpression:
        old = target.deep_clone()
        test = self.test.deep_clone()
        bare = value.with_changes(lpar=[], rpar=[]) if value.lpar else value
        if type(bare) is cst.IfExp and render(target) in (render(bare.body),
                                                             render(bare.orelse)):
            # already masked by an inner `if` (``y[i] = v if t else y[i]``): ``v`` where
            # both tests hold
            inner = bare.test
            if render(bare.body) == render(target):
                inner, value = cst.UnaryOperation(cst.Not(), inner), bare.orelse
            else:
                value = bare.body
            if self.negated:
                test = cst.UnaryOperation(cst.Not(), test)
            test = cst.BooleanOperation(left=test, operator=cst.And(), right=inner)
            return fix_parens(cst.IfExp(test=test, body=value, orelse=old))
        if self.negated:
            return fix_parens(cst.IfExp(test=test, body=old, orelse=value))
        return fix_parens(cst.IfExp(test=test, body=value, orelse=old))


def _order(stmts):
    first: dict[str, int] = {}
    for i, s in enumerate(stmts):
        for name in writes(s):
            first.setdefault(name, i)
    return lambda name: (first.get(name, 1 << 30), name)


def _flatten_errstate(stmts: list, prims) -> list:
    out = []
    for s in stmts:
        if type(s) is cst.With and _is_errstate(s, prims):
            out.extend(s.body.body)
        else:
            out.append(s)
    return out


def _is_errstate(node: cst.With, prims) -> bool:
    from ..syntax.templates import render
    return len(node.items) == 1 and render(node.items[0].item).startswith(prims.quiet_prefix)


class ElifToNestedIf(cst.CSTTransformer):
    """``elif`` becomes ``else: if``, so that every ``if`` can be replaced by statements."""

    def leave_If(self, original_node, updated_node):
        if isinstance(updated_node.orelse, cst.If):
            return updated_node.with_changes(orelse=cst.Else(
                body=cst.IndentedBlock(body=[updated_node.orelse])))
        return updated_node


def transform(func: cst.FunctionDef, ctx) -> cst.FunctionDef:
    if any(type(n) is cst.If and isinstance(n.orelse, cst.If) for n in statements(func)):
        func = rewrite(func, ElifToNestedIf())
    analysis = ctx.analyze(func)
    if not any(analysis.batched_tests.values()) and not any(
            type(n) in (cst.IfExp, cst.BooleanOperation, cst.Comparison)
            and _batched(analysis, n) for n in walk(func)):
        return func
    return rewrite(func, _IfToWhere(ctx, analysis, liveness_of(func)))

