"""Apply the batching rules: every operation on batched values becomes its array form.

Assumes: all control flow on batched values is gone (earlier passes); the current analysis.
Reads: `records.MaskedLoopFacts` (masks, strategies, placeholders) and
`records.CompactedIfs`. Writes: `records.BatchedLoopFacts` (the loops to compact, the batch
length's name and parameters), the values of `CompactedIfs` (both through `loops.facts`),
and `records.ArrayValues` (the abstract value of each name assigned, for `temporaries`).
Guarantees: each operator, call, conditional expression and boolean operation with a batched
input is replaced by what its rule in the registry generates; operations on unbatched values
are untouched; calls of the user's own functions go to their batched specializations; a call
with no rule runs per example in a visible list comprehension (only when the user allowed
fallbacks); a value the same for every example on one path and per example where paths
join (a loop's carry above all) is made an array on that path (`loops.promotions`). This is
the last pass over scalar-style code: its output is array code.
"""

from __future__ import annotations

import libcst as cst
import numpy as np

from ..abstract import TupleValue, Value
from ..analysis.python_numbers import PythonNumbers
from ..analysis.syntax import formatted_expressions
from ..errors import Unsupported
from ..liveness import reads, writes
from ..loops.carries import needs_promotion
from ..loops.facts import record_if_facts, record_loop_facts
from ..loops.promotions import Promotions
from ..rules.families import pad
from ..rules.lane_copies import LANES_COPY
from ..rules.lanes import ANY_LANE, LANE, SUM_ITEM, check_sum_item
from ..rules.lists import LIST_ARRAY, typed
from ..rules.python_errors import RAISE_LANE
from ..rules.registry import Site
from ..syntax.edit import AugmentedToAssignment, as_assignment
from ..syntax.templates import expr
from ..syntax.traversal import rewrite
from .records import ArrayValues, BatchedLoopFacts
from .simplify import single_target_assign as _single_target_assign


def _numpy_function(fn) -> bool:
    """Whether ``fn`` is one of NumPy's functions (a ufunc, ``np.floor``; no scalar type)."""
    return isinstance(fn, np.ufunc) or not isinstance(fn, type) and callable(fn) and \
        (getattr(fn, "__module__", None) or "").split(".")[0] == "numpy"


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


class _ApplyRules(Promotions, cst.CSTTransformer):
    def __init__(self, ctx, analysis):
        self.ctx = ctx
        self.analysis = analysis
        self.registry = ctx.registry
        self.prims = ctx.registry.primitives
        self.method_funcs = {call.func for call in analysis.method_calls} | {
            call.func for call in analysis.string_pieces
            if type(call) is cst.Call and type(call.func) is cst.Attribute} | {
            call.func.value.value for call in analysis.indexed_updates}   # `x.at`
        # the `x.at[index]` of `x.at[index].set(v)`: rewritten with the call
        self.indexed_subscripts = {call.func.value for call in analysis.indexed_updates}
        self._promotions: set[int] = set()   # ids of the lines that make carries arrays
        self._loops: list = []                # the loops around the node being visited
        self._func = None
        self._written = None
        self.size_name = None      # (name, parameter) when the batch size is kept in a name
        self._ragged_args: dict = {}   # np.arange with per-example bounds -> its arguments
        self.array_values = ArrayValues.get(ctx).values
        self._python = None         # `vmap`: which values are Python numbers (made once)

    def value(self, node):
        return self.analysis.values.get(node)

    def _python_numbers(self, operands) -> bool:
        """Whether the operands are Python numbers per example: always for `vectorize`; for
        `vmap` where each is one (`analysis.python_numbers`: ``round(float(y), 3)`` rounds as
        Python rounds)."""
        if self.ctx.module.python_semantics:
            return True
        if not operands or self._func is None:
            return False
        if self._python is None:
            self._python = PythonNumbers(self.analysis, self._func,
                                         getattr(self.ctx, "python_params", frozenset()))
        return all(self._python.python_valued(o) for o in operands)

    def _python_first(self, operands) -> tuple:
        """Per operand, whether it is surely a Python number in every call of the function:
        `vmap`'s loop hands it NumPy scalars, and so does numpy.vectorize's first call (its
        output types); `analysis.python_numbers` tells which values are Python numbers
        there (`int(x)`, `len(v)`). In a helper of `vectorize` nothing is (its caller's
        arguments are unknown here)."""
        if self._func is None or self.ctx.module.python_semantics and getattr(
                self.ctx, "helper", False):
            return tuple(False for _ in operands)
        params = frozenset() if self.ctx.module.python_semantics else \
            getattr(self.ctx, "python_params", frozenset())
        numbers = PythonNumbers(self.analysis, self._func, params)
        return tuple(numbers.kinds(o) == frozenset({"python"}) for o in operands)

    def _apply(self, rule, original, updated, operands_orig, operands_new, **extra):
        python = self._python_numbers(operands_orig)
        # (None: a Python number on some examples only, `PythonNumbers.mixed`)
        weak = () if python or self.ctx.module.python_semantics or not operands_orig else \
            tuple(None if self._python.mixed(o) else self._python.python_valued(o)
                  for o in operands_orig)
        if rule.python_operands and "python_first" not in extra:
            extra["python_first"] = self._python_first(operands_orig)
        site = Site(args=[self.value(o) for o in operands_orig], nodes=list(operands_new),
                    node=updated, original=original, result=self.value(original),
                    backend=self.registry.backend, python_semantics=python, weak=weak,
                    types_only=getattr(self.ctx.module.python_semantics, "types_only", False),
                    keep_literals=getattr(self.ctx.module, "standalone", False), **extra)
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

    def _unbatched_nodes(self, original, operands_orig, operands_new, func=None):
        """The registry's ``unbatched`` hook on an operation whose operands are the same for
        every example: the operand nodes to write instead, or None (as written)."""
        hook = self.registry.unbatched
        if hook is None:
            return None
        site = Site(args=[self.value(o) for o in operands_orig], nodes=list(operands_new),
                    node=original, original=original, result=self.value(original),
                    backend=self.registry.backend, func=func,
                    python_semantics=bool(self.ctx.module.python_semantics))
        return hook(site)

    def _numpy_scalar_op(self, original_node, updated_node):
        scalar = self.analysis.numpy_scalar_ops.get(original_node)
        if scalar is None:
            return updated_node
        return self._apply(self.registry.operators["python_number_division"], original_node,
                           updated_node, [], [], func=scalar)

    def _string_piece(self, original_node, updated_node, pairs):
        """A string made from per-example values (``pairs``: its operands, original and
        rewritten): the registry's ``per_example_string`` rule formats it lane by lane."""
        wanted = self.analysis.string_pieces[original_node]
        chosen = [(o, n) for o, n in pairs if any(o is w for w in wanted)]
        rule = self.registry.operators.get("per_example_string")
        if rule is None:
            raise Unsupported(f"a string per example: the {self.registry.namespace} backend "
                              "has no arrays of strings", original_node,
                              "return the numbers and format them outside")
        return self._apply(rule, original_node, updated_node, [o for o, _ in chosen],
                           [n for _, n in chosen])

    def leave_FormattedString(self, original_node, updated_node):
        if original_node not in self.analysis.string_pieces:
            return updated_node
        return self._string_piece(original_node, updated_node, [
            (o.expression, n.expression) for o, n in zip(
                formatted_expressions(original_node.parts),
                formatted_expressions(updated_node.parts))])

    def leave_BinaryOperation(self, original_node, updated_node):
        if original_node in self.analysis.string_pieces:
            pairs = [(original_node.left, updated_node.left),
                     (original_node.right, updated_node.right)]
            if type(original_node.right) is cst.Tuple:
                pairs += [(o.value, n.value) for o, n in zip(original_node.right.elements,
                                                             updated_node.right.elements)]
            return self._string_piece(original_node, updated_node, pairs)
        if not _is_batched(self.value(original_node)):
            if original_node in self.analysis.numpy_scalar_ops:
                return self._numpy_scalar_op(original_node, updated_node)
            nodes = self._unbatched_nodes(original_node, [original_node.left,
                                                          original_node.right],
                                          [updated_node.left, updated_node.right])
            if nodes is not None:
                return updated_node.with_changes(left=nodes[0], right=nodes[1])
            return updated_node
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
                if needs_promotion(arm, result):
                    arms[field] = self._full_expr(getattr(updated_node, field), result, arm,
                                                   at=getattr(original_node, field))
                elif _is_batched(result) and isinstance(arm, Value) and not arm.batched:
                    # a value of a type the engine cannot tell (`math.isclose(0.0, k)` where
                    # the backend has no rule for it): per example it is this value on every
                    # lane, the backend's array of it (a Python number is no array: a
                    # backend's `where` may not take it)
                    other = self.value(getattr(original_node,
                                               "orelse" if field == "body" else "body"))
                    if getattr(other, "rank", 0) or getattr(arm, "rank", 0):
                        continue
                    size = self._batch_size()       # (and `_like`)
                    arms[field] = expr(self.prims.full("{n}", "{v}", None, self._like),
                                       n=size, v=getattr(updated_node, field))
            return updated_node.with_changes(**arms) if arms else updated_node
        return self._apply(self.registry.operators["ifexp"], original_node, updated_node,
                           [original_node.test, original_node.body, original_node.orelse],
                           [updated_node.test, updated_node.body, updated_node.orelse],
                           in_loop=bool(self._loops),
                           standalone=getattr(self.ctx.module, "standalone", False))

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
        if original_node in self.indexed_subscripts:
            return updated_node
        if original_node in self.analysis.fallback_calls:
            return self._fallback(original_node, updated_node)
        if original_node in self.analysis.mask_writes or \
                original_node in self.analysis.slice_writes:
            # `y[mask] = v`: `y` and `mask` of one shape on the batch too; `y[lo:hi] = v`
            # the same with the slice's mask (`leave_Assign`)
            return updated_node
        if original_node in self.analysis.slice_selections:
            # `v[lo:hi]` with a per-example bound: `v`, the reductions of it under the mask
            # of the positions the slice keeps
            nodes, batched = self._slice_bounds(original_node.slice[0].slice,
                                                updated_node.slice[0].slice, updated_node.value)
            try:
                mask = expr(self.prims.slice_mask(*batched, shared=not _is_batched(
                    self.value(original_node.value))), **nodes)
            except Unsupported as problem:
                problem.node = problem.node or original_node
                raise
            self._ragged_args[original_node] = ("mask", mask)
            return self._apply(self.registry.operators["slice_selection"], original_node,
                               updated_node, [original_node.value], [updated_node.value],
                               parts=[mask], batch=self._batch_size())
        if original_node in self.analysis.selections:
            # `v[mask]`: `v` padded; the reductions of it take the mask
            mask = updated_node.slice[0].slice.value
            self._ragged_args[original_node] = ("mask", mask)
            return self._apply(self.registry.operators["masked_selection"], original_node,
                               updated_node, [original_node.value], [updated_node.value])
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

    def _slice_bounds(self, original, updated, sliced) -> tuple[dict, list]:
        """The template nodes (``v``: ``sliced``, ``lo``/``hi``: the updated bounds given) and,
        per bound of a slice with a per-example bound, what `slice_mask` takes: None where it
        is absent, True where it is per-example, "nonnegative" where it is an int known to be
        at least 0, else False."""
        nodes, batched = {"v": sliced}, []
        for key, o, n in (("lo", original.lower, updated.lower),
                          ("hi", original.upper, updated.upper)):
            if o is not None:
                nodes[key] = n
            value = self.value(o) if o is not None else None
            batched.append(None if o is None else _is_batched(value) or (
                "nonnegative" if value.exact and isinstance(value.example, (
                    int, np.integer)) and value.example >= 0 else False))
        return nodes, batched

    def _slice_write(self, original_node, updated_node):
        """``y[lo:hi] = v`` with a per-example bound (`aliasing._slice_write`): ``v`` written
        where the slice's mask holds, ``np.copyto(y, v[:, None], where=mask)``."""
        original = original_node.targets[0].target
        target = updated_node.targets[0].target
        nodes, batched = self._slice_bounds(original.slice[0].slice, target.slice[0].slice,
                                            target.value)
        mask = expr(self.prims.slice_mask(*batched), **nodes)
        value = self.value(original_node.value)
        written = pad(updated_node.value, value, 1) if _is_batched(value) else \
            updated_node.value
        return cst.Expr(expr(self.prims.masked_write("{y}", "{v}", "{m}"), y=target.value,
                             v=written, m=mask))

    def _masked_write_in_dtype(self, original_node, updated_node, slot):
        """``y[i] = v if c else y[i]`` (a write under a per-example condition, from
        `if_to_where`) into an int64 or uint64 array of a value of another dtype: the choice
        ``where(c, v, y[i])`` has their common dtype, float64, which does not hold every
        item of ``y``, so the items kept came back rounded (2**62 + 1 as 2**62, 2**63 - 7 as
        -2**63). The written value is cast to ``y``'s dtype before the choice, as Python's
        item assignment casts it (0 on the lanes not written: a NaN there does not warn;
        `python_raises` checked the lanes written fit). Anything else: as it is."""
        def bare(node):
            return node.with_changes(lpar=[], rpar=[]) if getattr(node, "lpar", None) else node
        original, new = bare(original_node.value), bare(updated_node.value)
        dtype = getattr(slot, "dtype", None)
        if type(original) is not cst.IfExp or not isinstance(slot, Value) or dtype is None \
                or dtype.kind not in "iu" or dtype.itemsize != 8 \
                or type(new) is not cst.Call or len(new.args) != 3 \
                or any(a.keyword is not None or a.star for a in new.args):
            return updated_node
        from ..syntax.templates import render
        target = render(original_node.targets[0].target)
        if render(bare(original.orelse)) == target:
            arm, written = 1, original.body
        elif render(bare(original.body)) == target:
            arm, written = 2, original.orelse
        else:
            return updated_node
        value = self.value(written)
        if not isinstance(value, Value) or np.result_type(value.dtype, dtype) == dtype:
            return updated_node
        # (the value on the lanes that write it: where the test holds for `body`, where it
        # does not for `orelse`)
        lanes = ("{c}", "{v}", "0") if arm == 1 else ("{c}", "0", "{v}")
        cast = expr(self.prims.astype(self.prims.where(*lanes),
                                      self.prims.dtype_named(dtype)),
                    c=new.args[0].value.deep_clone(), v=new.args[arm].value)
        args = list(new.args)
        args[arm] = args[arm].with_changes(value=cast)
        return updated_node.with_changes(value=updated_node.value.with_changes(args=args))

    def leave_Assign(self, original_node, updated_node):
        """``y[i] = v`` into a batched array: ``v`` gets the per-example axes it broadcasts
        over (the target itself got its ``:`` from the subscript rule). ``y = w * 2`` the
        same for every example, into which per-example data is written later: a copy for
        every example."""
        if original_node.value in self.analysis.promoted_copies:
            return updated_node.with_changes(value=expr(
                self.prims.repeat("{a}", "{n}"), a=updated_node.value,
                n=self._batch_size()))
        if len(original_node.targets) == 1 and original_node.targets[0].target in \
                self.analysis.slice_writes:
            return self._slice_write(original_node, updated_node)
        if len(original_node.targets) == 1 and original_node.targets[0].target in \
                self.analysis.mask_writes:
            value = self.value(original_node.value)
            rank, mask_rank = self.analysis.mask_writes[original_node.targets[0].target]
            if not _is_batched(value) and mask_rank == rank:
                return updated_node      # the same number into the selected elements
            target = updated_node.targets[0].target
            mask = target.slice[0].slice.value
            if mask_rank < rank:
                mask = pad(mask, Value(True, 0), rank)
            return cst.Expr(expr(self.prims.masked_write("{y}", "{v}", "{m}"),
                                 y=target.value, v=pad(updated_node.value, value, rank),
                                 m=mask))
        if len(original_node.targets) == 1 and type(original_node.targets[0].target) is \
                cst.Subscript:
            slot = self.value(original_node.targets[0].target)
            updated_node = self._masked_write_in_dtype(original_node, updated_node, slot)
            value = self.value(original_node.value)
            if _is_batched(slot) and isinstance(value, Value) and isinstance(slot, Value):
                return updated_node.with_changes(value=pad(updated_node.value, value,
                                                           slot.rank))
        if len(original_node.targets) == 1 and type(original_node.targets[0].target) in (
                cst.Tuple, cst.List):
            value = self.value(original_node.value)
            if isinstance(value, Value) and _is_batched(value) and value.rank == 1:
                # per example a vector unpacked item by item: on the batch, its columns
                columns = expr("{v}.T", v=updated_node.value)
                if type(original_node.value) is cst.Name and self.analysis._written_into(
                        original_node.value.value):
                    # per example numbers, copies; on the batch views of the array, which
                    # a later write into it would change
                    columns = expr(self.prims.copy("{c}"), c=columns)
                return updated_node.with_changes(value=columns)
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
        if any(node not in self._ragged_args for node in ragged):
            raise Unsupported("a reduction of a value with a different length per example "
                              "that is computed after it (in a loop)", original_node,
                              "compute the selection or range before the reduction")
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
        if original_node in analysis.string_pieces:
            receiver = [(original_node.func.value, updated_node.func.value)] if type(
                original_node.func) is cst.Attribute else []     # `s.upper()`
            return self._string_piece(original_node, updated_node, receiver + [
                (o.value, n.value) for o, n in zip(original_node.args, updated_node.args)])
        rule = analysis.promoted_creations.get(original_node) or analysis.random_calls.get(
            original_node)
        if rule is not None:
            # new data for every example (a random draw, an array created for per-example
            # data): the rule puts the batch length in front
            return self._apply_call(rule, original_node, updated_node,
                                    batch=self._batch_size(),
                                    func=getattr(self.value(original_node.func), "example",
                                                 None))
        if original_node in analysis.indexed_updates:
            # `x.at[index].op(...)`: `x`, the index's elements that are no slices, then the
            # method's arguments
            sub = original_node.func.value
            parts = [(e.slice.value, n.slice.value)
                     for e, n in zip(sub.slice, updated_node.func.value.slice)
                     if isinstance(e.slice, cst.Index)]
            return self._apply_call(analysis.indexed_updates[original_node], original_node,
                                    updated_node, [(sub.value.value,
                                                    updated_node.func.value.value.value),
                                                   *parts],
                                    func=original_node.func.attr.value,
                                    parts=[self.value(e.slice.value)
                                           if isinstance(e.slice, cst.Index) else None
                                           for e in sub.slice])
        if original_node in analysis.method_calls:
            return self._apply_call(analysis.method_calls[original_node], original_node,
                                    updated_node,
                                    [(original_node.func.value, updated_node.func.value)],
                                    func=original_node.func.attr.value)
        if original_node in analysis.helper_calls:
            name = self.ctx.helper_name(original_node)
            if original_node in getattr(analysis, "record_methods", ()):
                # `p.norm(k)` of a record: the method's specialization, `self` first
                # (`super().norm(k)`: the method's own `self`)
                me = getattr(analysis, "record_super", {}).get(original_node)
                return updated_node.with_changes(func=cst.Name(name), args=[
                    cst.Arg(cst.Name(me) if me is not None else updated_node.func.value),
                    *updated_node.args])
            if original_node in getattr(analysis, "record_classmethods", ()):
                # `t.convert(v)`, a classmethod: `cls` first, the record's class
                return updated_node.with_changes(func=cst.Name(name), args=[
                    cst.Arg(cst.Call(cst.Name("type"), [cst.Arg(updated_node.func.value)])),
                    *updated_node.args])
            return updated_node.with_changes(func=cst.Name(name))
        if original_node in analysis.fallback_calls:
            return self._fallback(original_node, updated_node)
        if original_node in analysis.type_tests:
            # `isinstance(x, float)` of a per-example value: its answer for one example
            return cst.Name(str(bool(analysis.type_tests[original_node])))
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
            if isinstance(original_node.func, cst.Name) and original_node.func.value == \
                    SUM_ITEM:       # an item of a sum written as a loop: the item
                check_sum_item(self.value(original_node.args[0].value),
                               self.ctx.module.python_semantics, original_node)
                return updated_node.args[0].value
            if isinstance(original_node.func, cst.Name) and original_node.func.value == \
                    LIST_ARRAY:         # a list the same for every example, as its array
                return expr(typed(self.prims, self.prims.array_of("{items}"),
                                  self.value(original_node),
                                  updated_node.args[0].value),
                            items=updated_node.args[0].value)
            if isinstance(original_node.func, cst.Name) and original_node.func.value == \
                    LANES_COPY:         # the same for every example: one copy
                return expr(self.prims.copy("{a}"), a=updated_node.args[0].value)
            if all(a.keyword is None and not a.star for a in original_node.args):
                nodes = self._unbatched_nodes(original_node, [a.value for a in inputs],
                                              [a.value for a in updated_node.args],
                                              func=getattr(self.value(original_node.func),
                                                           "example", None))
                if nodes is not None:
                    updated_node = updated_node.with_changes(args=[
                        a.with_changes(value=n) for a, n in zip(updated_node.args, nodes)])
            return self._strongly_typed(original_node, updated_node)
        fn = getattr(self.value(original_node.func), "example", None)
        rule = self.registry.for_call(fn)
        if rule is None:
            return updated_node   # NumPy scalar types: np.float32(x) converts arrays too
        return self._apply_call(rule, original_node, updated_node, func=fn)

    def _strongly_typed(self, original, updated):
        """A NumPy call on values the same for every example (``np.floor(7)``: a NumPy
        scalar per example), as the backend must hold it to promote as NumPy does
        (`Backend.strongly_typed`)."""
        fn = getattr(self.value(original.func), "example", None)
        example = getattr(self.value(original), "example", None)
        if not (isinstance(example, (np.generic, np.ndarray)) and
                example.dtype.kind in "biufc" and _numpy_function(fn)):
            return updated
        code = self.prims.strongly_typed("{x}", example.dtype)
        return updated if code is None else expr(code, x=updated)

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
                value = self.value(o.value)
                numbers = getattr(getattr(self.ctx.module, "python_semantics", None),
                                  "numbers", ())
                if value.kind == "c" and value.rank == 0 and any(
                        v is value for v in numbers):
                    # a Python complex per example (numpy.vectorize's), which `float()`
                    # and `math` refuse with TypeError, where a NumPy complex converts
                    iterables.append(cst.Call(cst.Attribute(n.value, cst.Name("tolist"))))
                else:
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
        result = self.value(original)
        if type(iterables[0]) is cst.Name and getattr(result, "rank", None) == 0 and \
                result.dtype is not None and result.dtype.kind in "biufc":
            return expr(self.prims.array_of_lanes("{comp}", iterables[0].value, result.dtype),
                        comp=comp)
        return expr(self.prims.array_of("{comp}"), comp=comp)

    def leave_AugAssign(self, original_node, updated_node):
        """``v[i] += e`` on a batched value becomes ``v[i] = v[i] + e`` (names were rebound
        before the analysis, `transform`)."""
        if not (_is_batched(self.value(original_node.target))
                or _is_batched(self.value(original_node.value))):
            return self._numpy_scalar_op(original_node, updated_node)
        return as_assignment(updated_node)

    def leave_Attribute(self, original_node, updated_node):
        if original_node in getattr(self.analysis, "record_properties", {}):
            # `p.s` of a record, `s` a property: its getter's specialization
            return cst.Call(cst.Name(self.ctx.helper_name(original_node)),
                            [cst.Arg(updated_node.value)])
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


def transform(func: cst.FunctionDef, ctx) -> cst.FunctionDef:
    # `x += v` as `x = x + v`, analysed as a plain operation: it gets the operator rule's
    # rank alignment (`x += w` with a per-example scalar `x` and a shared vector `w` becomes
    # `x[:, None] + w`)
    func = rewrite(func, AugmentedToAssignment())
    analysis = ctx.analyze(func)
    consumed = {node for found in analysis.masked_reductions.values() for node in found}
    escaped = analysis.ragged_name_reads - analysis.ragged_consumed_reads
    for node in sorted(analysis.ragged - consumed, key=lambda n: n in analysis.selections) + \
            list(escaped):
        from ..syntax.templates import render
        what = "a slice with per-example bounds" if node in analysis.slice_selections else \
            "a selection by a per-example mask" if node in analysis.selections else (
            "the name of a value with a different length per example"
            if node in escaped else "a range with per-example bounds")
        raise Unsupported(f"`{render(node)}` has a different length per example ({what}): "
                          "only a reduction of it (sum, prod, mean, min, max, any, all, "
                          "len), written around it through lane-by-lane operations or names "
                          "assigned once, can be vectorized", node,
                          "reduce it (a sum, max or len of it) in the expression or "
                          "the statement after the one that makes it")
    record_loop_facts(func, ctx, analysis)
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
        posonly_params=[p.with_changes(default=None, equal=cst.MaybeSentinel.DEFAULT,
                                       annotation=None) for p in out.params.posonly_params],
        params=[p.with_changes(default=None, equal=cst.MaybeSentinel.DEFAULT, annotation=None)
                for p in out.params.params],
        kwonly_params=[p.with_changes(default=None, equal=cst.MaybeSentinel.DEFAULT,
                                      annotation=None)
                       for p in out.params.kwonly_params])
    return out.with_changes(params=params, returns=None)
