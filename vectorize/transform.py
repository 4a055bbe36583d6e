"""The engine's core: one function in, batched source and a compiled function out.

``transform_source`` is shared by every way in (the decorator, ``vmap`` and the file rewriter):
read the source, run the pipeline for the abstract values of the arguments, specialize helper
functions the same way, print the module (`codegen.print_module`). ``transform_function``
also compiles it (`codegen.load`); the file rewriter writes the text into the user's file.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import inspect
import math
import sys
import threading
import time
import types
from dataclasses import dataclass

import libcst as cst
import numpy as np

from . import abstract, backends, codegen, memo, spec_facts
from .abstract import (
    DEFERRED_JOINS,
    INT_PART_SIZES,
    MIXED_KINDS,
    MIXED_PARTS,
    TupleValue,
    Value,
    exact,
)
from .analysis import Analysis, ranges
from .analysis.calls import NamedAttribute, SortedItems, SpreadItems
from .analysis.environments import ChosenBindings, MaybeNone
from .analysis.expressions import (
    ChosenItems,
    MaskedScalarWrite,
    MaybeUnbound,
    MayFallOff,
    MembershipOfNumbers,
    MethodAlias,
    PickedPerExample,
    WrittenOutComprehension,
)
from .analysis.interpreter import RetypedCarry, UnrolledLoop
from .analysis.python_numbers import PythonNumbers
from .body_constructs.bound_closures import bound_helper_of
from .body_constructs.recursion import unroll_recursion
from .codegen import Generated  # noqa: F401 -- what a transform returns
from .errors import Unsupported, VectorizeError, fallback_record, quoted_names
from .inline_helpers import InlineForKinds, inline_calls
from .introspect import ClosureView, attribute_guard, forwarded_target, name_guard
from .liveness import Namer, all_names, bound_names
from .pipeline import PIPELINE
from .source import FunctionSource, read_function
from .syntax.traversal import clear_memo, walk


def abstract_key(value) -> tuple:
    """A hashable summary of an abstract value (batchedness, dtype, shape rank; the value
    itself for an exactly known number; the lane facts the helper's checks depend on:
    `_lane_facts`)."""
    if isinstance(value, TupleValue):
        head = ("tuple",) if value.keys is None and value.kind is None else (
            "tuple", value.kind, value.keys)
        return head + tuple(abstract_key(v) for v in value.items)
    ex = value.example
    if not value.batched and value.exact and isinstance(
            ex, (int, float, complex, str, np.number, np.bool_)) or ex is None:
        # a helper analysed with an exact argument may depend on its value (`a % a` with
        # a = 0.0 must not raise on lanes that never call it; with 100.0 it cannot)
        return (False, type(ex).__name__, repr(ex))
    if isinstance(ex, (np.ndarray, np.generic)):
        # (the shape too: rules write an example's shape into the code, `np.roots`'s degree,
        # `np.polyval`'s coefficients)
        return (value.batched, ex.dtype.str, ex.shape) + _lane_facts(value)
    if isinstance(ex, (tuple, list)) and _holds_arrays(ex):
        # a table of arrays passed as it is (a module-level tuple of coefficient arrays):
        # its length and its items' shapes decide the shapes of what the helper makes of it
        return (value.batched, type(ex).__name__, _table_key(ex))
    return (value.batched, type(ex).__name__) + _lane_facts(value)


def _lane_facts(value) -> tuple:
    """What a helper's generated code depends on beyond the value's dtype: the lane types of
    a value that is a different kind of number on different lanes (`abstract.MIXED_KINDS`,
    `abstract.MIXED_PARTS`: an int on some lanes decides the signed-zero, zero-divisor and
    int-beyond-2**53 checks written in the helper, `passes.python_raises`), whether its int
    lanes may lie beyond 2**53 (`abstract.INT_PART_SIZES`, as `int_lanes` asks), and a
    deferred join (`abstract.DEFERRED_JOINS`). Empty for the common value of one type."""
    if not isinstance(value, Value):
        return ()
    try:
        parts = MIXED_PARTS.get(value)
        mixed = value in MIXED_KINDS
        deferred = DEFERRED_JOINS.get(value)
    except TypeError:
        return ()
    if not parts and not mixed and deferred is None:
        return ()
    # (the parts, where known, say what the lanes hold: whether the value is also noted
    # mixed may differ between the analysis' rounds, which would make a second
    # specialization of one helper, `newton_step_2`, for the same lanes)
    facts: tuple = ("lanes",) if parts else ("lanes", mixed)
    if parts:
        sizes = INT_PART_SIZES.get(value, {})
        lanes = set()
        for p in parts:
            key = (type(p), getattr(p, "dtype", None))
            lanes.add((type(p).__name__, str(key[1]), sizes.get(key, math.inf) > 2 ** 53))
        facts += (tuple(sorted(lanes)),)
    if deferred is not None:
        facts += (("deferred", repr(deferred[0]), str(deferred[1:])),)
    return facts


def _holds_arrays(ex, depth: int = 0) -> bool:
    if isinstance(ex, np.ndarray):
        return True
    return isinstance(ex, (tuple, list)) and depth < 3 and any(
        _holds_arrays(item, depth + 1) for item in ex[:64])


def _table_key(ex, depth: int = 0):
    if not isinstance(ex, (tuple, list)) or depth > 2:
        return np.shape(ex) if isinstance(ex, (np.ndarray, np.generic)) else type(ex).__name__
    return (len(ex),) + tuple(_table_key(item, depth + 1) for item in ex[:64])


@dataclass
class _Spec:
    name: str
    tree: cst.FunctionDef | None = None
    result: object = None
    source: FunctionSource | None = None
    # some `return` gives a value that is the same for every example while others do not
    # (the decorators broadcast it at the boundary)
    unbatched_returns: bool = False
    # every path raises (no `return` reached, no end): a call of it raises on every example
    # that makes it
    always_raises: bool = False
    # `vmap`: what its `return`s give per example, a Python number ("python") and/or a NumPy
    # value ("array") (`analysis.python_numbers`: `return 0.0 if t < 0 else -0.5`)
    number_kinds: frozenset = frozenset({"array"})


class ModuleContext:
    """Everything shared by the functions of one generated module (the main function and the
    specialized helpers it calls)."""

    def __init__(self, backend: str = "numpy", fallback: str = "error", explain: bool = False,
                 if_strategy: str | None = None, taken=(), helper_suffix: str = ""):
        """``taken``: names the functions it makes must not take (the file rewriter's: every
        name of the file); ``helper_suffix`` is added to a helper's name (``g_batched``)."""
        self.backend = backends.get(backend)
        self.registry = self.backend.registry
        # "compact": every per-example `if` that can be compacted is, unless a comment
        # says otherwise (`compact_ifs`); None: the heuristic decides
        self.if_strategy = if_strategy
        # examples are Python numbers (`vectorize`: an `abstract.PythonSemantics`, which
        # says which parameters): operations raise where Python's do
        # (`passes.python_raises`); else NumPy scalars (False: `vmap`, the file rewriter)
        self.python_semantics = False
        # the caller runs the per-example loop where the batched code raises (`vectorize`;
        # `vmap` on NumPy and PyTorch), so a helper may raise under a per-example condition
        # its callers' conditions can hide; not the file rewriter's code
        self.runtime_replays = False
        # `vectorize`: arithmetic on per-example Python bools was made int arithmetic
        # (`passes.python_raises`), whose type numpy.vectorize's first example (NumPy bools)
        # does not have: the output types are learned from it (`Generated.python_bools`)
        self.python_bools = False
        # `vectorize`: an `isinstance` of a parameter answered for the Python numbers every
        # example gets differs from its answer for numpy.vectorize's first example, NumPy
        # scalars (`Generated.first_call_differs`)
        self.first_call_differs = False
        # `vmap`: a result of lanes of different types of number gets each call's stacked
        # type (`passes.lane_kinds`); not `vectorize` (the first example's) nor files
        self.lane_kinds = False
        self.settles_kinds = False      # (the pass rewrote a `return`: `Generated`)
        self.switchable_ifs = 0
        self.explain = explain
        self.allow_fallback = fallback != "error"
        self.specs: dict[tuple, _Spec] = {}
        self.order: list[_Spec] = []
        # (never a name generated code calls a module or runtime helper by: a helper named
        # `pymath` would be the module `pymath.round` means)
        self.function_names = Namer(set(taken) | {
            self.backend.alias, *self.backend.extra_modules, "pymath", "math", "functools",
            "scipy", codegen.MERGE, "promote_carry"})
        self.helper_suffix = helper_suffix
        self.fallbacks: list[str] = []
        # objects the analysis (and `passes.try_except`) made from constants to learn their
        # attributes, each made once (`analysis.float_semantics.made_once`)
        self.constructed: dict = {}
        self.explanations: list = []
        self.free: dict[tuple, tuple] = {}   # (id(namespace), name) -> (namespace, name, value)
        self.free_scopes: dict[tuple, tuple] = {}   # the same keys -> (function, scope, name)
        self.reads: list[tuple] = []    # (function, scope, name, value): `codegen.Origin`
        # (id(namespace), root, attributes) -> (`AttributePath`, label, value), and the
        # same keys -> (function, scope, root, attributes, value): what was reached through
        # attributes of free names (`codegen.Origin.attributes`)
        self.attribute_guards: dict[tuple, tuple] = {}
        self.attribute_scopes: dict[tuple, tuple] = {}
        # name -> module or function that a backend's finishing step made the code call
        # (JAX's loops: `lax`, `promote_carry`); imported where the code mentions them
        self.runtime_imports: dict[str, object] = {}
        # code for a file (the rewriter's), which must not need this package at run time:
        # no `merge.blend` (`codegen`)
        self.standalone = False
        # function -> its source, for the value ranges of calls (`analysis.ranges`)
        self.range_sources = ranges.Sources()
        # what a backend's passes keep for this transform, by the name each gives it
        # (`backends.jax.writes.HELPER_WRITES`): never module state another transform sees
        self.backend_state: dict[str, object] = {}

    def functions(self) -> list:
        """The user functions transformed, the main one first."""
        out = []
        for fn, *_ in self.specs:
            if not any(fn is seen for seen in out):
                out.append(fn)
        return out

    def may_raise(self, name: str, seen=frozenset()) -> bool:
        """Whether the batched helper ``name`` (a specialization of this module) may raise:
        a `raise` in its code (a check, the user's own), or a call of a helper that may
        raise; a helper still being made (recursion) may."""
        specs = {spec.name: spec for spec in self.specs.values()}
        spec = specs.get(name)
        if spec is None or name in seen:
            return spec is None or spec.tree is None
        if spec.tree is None:
            return True
        for node in walk(spec.tree):
            if type(node) is cst.Raise:
                return True
            if type(node) is cst.Call and type(node.func) is cst.Name and \
                    node.func.value in specs and self.may_raise(node.func.value,
                                                               seen | {name}):
                return True
        return False

    def _cycle(self, spec: _Spec, fn) -> str | None:
        """Where ``spec``, still being made, is reached again through other functions being
        made (mutual recursion), the cycle of their names (`is_even` -> `is_odd` ->
        `is_even`); None where the function calls itself directly."""
        making = [s for s in self.specs.values() if s.tree is None]
        if spec not in making:
            return None
        names = [getattr(s.source, "name", None) or s.name
                 for s in making[making.index(spec):]] + [fn.__name__]
        if len(set(names)) < 2:
            return None
        return " -> ".join(f"`{n}`" for n in names)

    def specialize(self, func, params: dict[str, object], node=None,
                   name: str | None = None, python_params: frozenset = frozenset(),
                   signs: frozenset = frozenset(), every_lane: bool = False) -> _Spec:
        """The specialization of ``func`` for ``params``: a helper's (``node``: the call) is
        shared by every call with the same abstract arguments; a main function given a
        ``name`` gets its own. ``python_params``: the parameters a `vmap` helper is passed
        Python numbers for (`analysis.python_numbers`). ``every_lane``: the call runs where
        the caller's scalar code runs it for every example (no per-example condition, masked
        loop or speculative caller around it): the helper's code is no speculative code."""
        fn = func.__func__ if isinstance(func, types.MethodType) else func
        key = (fn, tuple((k, abstract_key(v)) for k, v in params.items()))
        if python_params:
            key += (python_params,)
        if signs:       # (what the caller proved of its arguments: `analysis.ranges`)
            key += (("signs", signs),)
        if self.python_semantics:   # (the file rewriter's `vmap` and `vectorize` functions
            key += ("python semantics",)    # share a context: a helper raises for one only)
        if name is not None:
            key += (name,)
        if every_lane and node is not None:
            key += ("every lane",)
        spec = self.specs.get(key)
        if spec is not None:
            if spec.tree is None:
                cycle = self._cycle(spec, fn)
                if cycle is not None:
                    raise Unsupported(
                        f"mutual recursion ({cycle}): only a function's calls of itself "
                        "are written out (docs/semantics.md)", node,
                        "rewrite the functions as one that calls itself, or as a loop")
                if (self.python_semantics or self.runtime_replays) and not self.standalone:
                    raise Unsupported(
                        f"`{fn.__name__}` calls itself where the recursion cannot be written "
                        "out (a call under `and`/`or`, a conditional expression or in a "
                        "test, mutual recursion, a `try` or a loop that returns in its body: "
                        "docs/semantics.md)", node,
                        f"assign `{fn.__name__}(...)` on a line of its own after an `if` "
                        "that returns the base case, or rewrite the recursion as a loop")
                raise Unsupported(f"`{fn.__name__}` calls itself; recursion is written out "
                                  "only where the batch that raises replays the per-example "
                                  "loop (`vectorize`, `vmap` on NumPy and PyTorch)", node,
                                  "rewrite the recursion as a loop", kind="raises")
            return spec
        try:        # (read already where a caller's value ranges looked at it: `_signs`)
            source = self.range_sources.get(fn)
        except TypeError:
            source = None
        if source is None:
            source = read_function(fn)
        if (self.python_semantics or self.runtime_replays) and not self.standalone:
            # its own calls written out a few levels deep; deeper examples raise in the
            # batch and the per-example loop decides (`body_constructs.recursion`)
            unrolled = unroll_recursion(source.tree, fn)
            if unrolled is not None:
                source = dataclasses.replace(source, tree=unrolled)
        if name is None:
            base = source.name
            if self.helper_suffix and fn.__name__ == "<lambda>" and type(
                    getattr(node, "func", None)) is cst.Name:
                base = node.func.value      # (a file's `g = lambda ...`: `g_batched`)
            name = self.function_names.fresh(base + (self.helper_suffix if node is not
                                                     None else ""))
        else:
            self.function_names.taken.add(name)
        spec = _Spec(name, source=source)
        self.specs[key] = spec
        # a helper it calls is never named as one of its parameters or locals (geopy's
        # `degrees(radians, arcminutes, ...)` calls `arcmin = arcminutes`: a helper named
        # `arcminutes` would be the parameter there)
        self.function_names.taken |= bound_names(source.tree)
        checked: set = set()
        not_inlined: set = set()    # (helpers whose result `lane_kinds` leaves joined)
        inlined: dict = {}          # (the names of the helpers written out -> their values)
        while True:
            job = FunctionJob(self, source, params, spec.name, helper=node is not None)
            job.every_lane = every_lane
            job.python_params = python_params
            job.param_signs = signs
            job.kinds_not_inlined = not_inlined
            job.inlined = inlined
            try:
                spec.tree, spec.result = job.run()
                spec.unbatched_returns = any(not _all_batched(value)
                                             for _, value in job.last.returns)
                spec.always_raises = not job.last.returns and \
                    getattr(job.last, "reaches_end", True) is False
                spec.number_kinds = job.returned_number_kinds()
                break
            except _REWRITTEN_WHEN_MET as problem:
                # a construct the function's source is rewritten for where the analysis
                # meets it (`_source_rewrite`), once per construct
                key, rewrite = _source_rewrite(source, problem)
                tree = None if key in checked else rewrite()
                if tree is None:
                    raise source.error(problem) from None
                checked.add(key)
                # (free names the rewritten code no longer reads but depends on, guarded as
                # if it read them: `getattr(obj, NAME)` written as `obj.<its value>`)
                source = dataclasses.replace(source, tree=tree, contents_read=(
                    source.contents_read | getattr(problem, "reads", frozenset())))
            except InlineForKinds as problem:
                # `vmap`: a helper's result of lanes of different types, which
                # `passes.lane_kinds` follows once the helper is written out; once per helper
                for fn in problem.fns:
                    imports = dict(source.local_imports)
                    tree = None if ("inline", fn) in checked else inline_calls(
                        source, fn, read_function(fn), source.origins,
                        sum(1 for c in checked if type(c) is tuple and c[0] == "inline"),
                        inlined, imports, unroll=(self.python_semantics or
                                                  self.runtime_replays) and
                        not self.standalone)
                    checked.add(("inline", fn))
                    if tree is None:
                        not_inlined.add(fn)
                    else:
                        source = dataclasses.replace(source, tree=tree, _positions=None,
                                                     local_imports=imports)
            except Unsupported as problem:
                raise source.error(problem) from None
        self.order.append(spec)
        return spec



_REWRITTEN_WHEN_MET = (MaybeUnbound, MaybeNone, RetypedCarry, UnrolledLoop, MaskedScalarWrite,
                       WrittenOutComprehension, PickedPerExample, MayFallOff, SortedItems,
                       MembershipOfNumbers, SpreadItems, NamedAttribute, MethodAlias,
                       ChosenItems, ChosenBindings)
"""What the analysis raises where the function's source can be rewritten so that it goes on
(`ModuleContext.specialize` retries with the rewritten tree, once per construct)."""


def _source_rewrite(source: FunctionSource, problem):
    """``(key, rewrite)`` for ``problem`` (one of `_REWRITTEN_WHEN_MET`): ``key`` names the
    construct (each is rewritten once), ``rewrite()`` the function's new tree (None: it
    cannot be, and ``problem`` is refused)."""
    from . import body_sugar
    from .body_constructs import named_attributes

    tree = source.tree
    if isinstance(problem, MaybeUnbound):
        # a name some paths read unbound: a placeholder and a check
        return problem.name, lambda: _checked_unbound(source, problem)
    if isinstance(problem, MaybeNone):
        # a name None on some paths: None read as unbound, checked
        return ("None", problem.name), lambda: _checked_unbound(source, problem, none=True)
    if isinstance(problem, RetypedCarry):
        # a Python int on every example leaving the loop: one before it
        return ("int", problem.name), lambda: body_sugar.int_before_loop(
            tree, problem.name, problem.loop)
    if isinstance(problem, UnrolledLoop):
        # `for d in seq` of per-example items: written out
        return id(problem.node), lambda: body_sugar.unroll_items(
            tree, problem.node, problem.length, source.origins)
    if isinstance(problem, MaskedScalarWrite):
        # `a[m] = e(x[m])` of 0-d values: `if m: a[()] = e(x)`
        return id(problem.node), lambda: body_sugar.masked_scalar_write(
            tree, problem.node, source.lookup, source.origins)
    if isinstance(problem, WrittenOutComprehension):
        # `[e for t in seq]` of per-example items: written out
        return id(problem.node), lambda: body_sugar.comprehension_items(
            tree, problem.node, problem.length, source.origins)
    if isinstance(problem, MembershipOfNumbers):
        # `x in (1.0, 2.0)` of a per-example number: the comparisons Python makes
        from .introspect import lookup
        as_bool = "bool" not in bound_names(tree) and lookup(source.func, "bool")[2] == \
            "builtin"
        return id(problem.node), lambda: body_sugar.membership_as_comparisons(
            tree, problem.node, problem.literals, as_bool, source.origins)
    if isinstance(problem, SpreadItems):
        # `f(*t)` of a tuple of per-example values into a function with a batching rule
        return id(problem.node), lambda: body_sugar.spread_items(
            tree, problem.node, problem.length, source.origins)
    if isinstance(problem, SortedItems):
        # `sorted(seq)` of a per-example row or tuple: the comparisons CPython's sort makes
        from .body_constructs.keyed import sorted_of_items
        return id(problem.node), lambda: sorted_of_items(
            tree, source.func, problem.node, problem.length)
    if isinstance(problem, NamedAttribute):
        # `getattr(obj, "name")` of a per-example record: `obj.name`
        return id(problem.node), lambda: named_attributes.getattr_written(
            tree, problem.node, problem.name, source.origins)
    if isinstance(problem, MethodAlias):
        # `f = obj.method` of a per-example record, then `f(...)`: `obj.method(...)`
        return id(problem.node), lambda: named_attributes.method_alias_inlined(
            tree, problem.node, source.origins)
    if isinstance(problem, ChosenItems):
        # `A if x > 0 else B` of two dicts of constants: `{k: A[k] if x > 0 else B[k]}`
        from .body_constructs.chosen_tables import chosen_items
        return id(problem.node), lambda: chosen_items(tree, problem.node, problem.keys,
                                                      source.origins)
    if isinstance(problem, ChosenBindings):
        # `if x > 0: d = A` / `else: d = B` of dicts of the same keys: `d = {k: A[k]...}`
        from .body_constructs.chosen_tables import chosen_bindings
        return ("bindings", problem.name), lambda: chosen_bindings(
            tree, problem.name, problem.keys, source.lookup, source.origins)
    if isinstance(problem, PickedPerExample):
        # `seq[k]` of per-example items: an `if` per position
        return id(problem.node), lambda: body_sugar.pick_item(
            tree, problem.node, problem.length, source.origins)
    # `MayFallOff`: examples that fall off the end get None: a check there
    return MayFallOff, lambda: body_sugar.check_fall_off(tree)


class FunctionJob:
    """The pipeline run over one function; passes get this object as ``ctx``."""

    def __init__(self, module: ModuleContext, source: FunctionSource, params: dict, name: str,
                 helper: bool = False):
        self.module = module
        self.helper = helper      # called from another function (maybe under its conditions)
        self.every_lane = False   # ... where its scalar code calls it for every example
        self.branches_per_example = False   # an analysis saw a per-example `if` or loop
        # shared calls an analysis found raising on every example in code every lane runs
        # (`Analysis.raises_for_every_example`), still so once `if`s are merges
        self.raising_calls: set = set()
        self.name = name
        self.source = source
        self.params = params
        self.registry = module.registry
        self.namer = Namer(all_names(source.tree) | set(params))
        self.helper_nodes: dict[cst.CSTNode, str] = {}
        self.kinds_not_inlined: set = set()   # (`inline_helpers`: helpers left called)
        self.inlined: dict = {}     # (and the names of those written out -> their values)
        self.promoted: set[str] = set()       # created arrays that hold per-example data
        # lists that start empty -> the dtype their first item gave them (`Analysis.item_write`:
        # a later analysis sees that write merged with the padding)
        self.list_dtypes: dict = {}
        # what each pass leaves for later ones, by the type of its record, read through it
        # (`passes.records`: ``MaskedLoopFacts.get(ctx)``)
        self.records: dict[type, object] = {}
        self.last: Analysis | None = None
        self.first: Analysis | None = None      # (`returned_number_kinds`)
        self.read: dict[str, object] = {}     # free names any analysis resolved -> value
        self.read_attributes: dict[tuple, object] = {}   # (root, attributes) -> value
        # `vmap`: the parameters its caller passes Python numbers (`analysis.python_numbers`)
        self.python_params: frozenset = frozenset()
        # the signs its caller proved of its arguments (`analysis.ranges.signs_of_call`)
        self.param_signs: frozenset = frozenset()
        self._ranges = None         # `analysis.ranges.Ranges` of its source
        self._sign_cache: dict = {}     # helper -> `_signs`
        self._analysing: Analysis | None = None     # the analysis that calls `_helper`

    def analyze(self, tree: cst.FunctionDef) -> Analysis:
        """The analysis of ``tree``; recomputed whenever a pass produced a new tree."""
        if self.last is not None and self.last.tree is tree:
            return self.last
        analysis = Analysis(self.source, tree, self.params, self.registry,
                            helpers=self._helper, allow_fallback=self.module.allow_fallback,
                            promoted=self.promoted,
                            speculative=(self.helper and not self.every_lane)
                            or self.branches_per_example,
                            helper=self.helper)
        # a check that fires on a lane its caller keeps out makes `vectorize` (and `vmap` on
        # NumPy or PyTorch: `runtime_replays`) replay the loop
        analysis.replayed = bool(self.module.python_semantics) or self.module.runtime_replays
        analysis.python_semantics = self.module.python_semantics
        analysis.list_dtypes = dict(self.list_dtypes)
        analysis.constructed = self.module.constructed
        analysis.raised_before = frozenset(self.raising_calls)
        self._analysing = analysis
        try:
            analysis.analyze()
        finally:
            self._analysing = None
        if getattr(analysis, "first_call_differs", False):
            self.module.first_call_differs = True
        self.read.update(analysis.free_names)
        self.read_attributes.update(analysis.free_attributes)
        if any(batched and not _raises_only(stmt) for stmt, batched in
               analysis.batched_tests.items()) or analysis.masked_loops:
            # once `if`s become merges, no later analysis can tell which code ran on some
            # lanes only: from now on all of it counts as running on every lane
            self.branches_per_example = True
        self.promoted |= analysis.promoted
        self.list_dtypes.update(analysis.list_dtypes)
        self.raising_calls |= analysis.raises_for_every_example
        self.last = analysis
        if self.first is None:
            self.first = analysis
        return analysis

    def returned_number_kinds(self) -> frozenset:
        """`vmap`: what the function's `return`s give per example (`_Spec.number_kinds`),
        read from its first analysis (before the passes make its literals arrays)."""
        analysis = self.first
        if analysis is None or self.module.python_semantics or not analysis.returns:
            return frozenset({"array"})
        numbers = PythonNumbers(analysis, analysis.tree, self.python_params)
        out = frozenset()
        for ret, _ in analysis.returns:
            out |= numbers.kinds(ret.value) if ret.value is not None else frozenset({"array"})
        return out or frozenset({"array"})

    def _helper(self, fn, args, kwargs, node):
        # a lazy-import wrapper (`def f(*args, **kwargs): from m import f; return f(...)`)
        # is its target: the call becomes a call of the target's batched function
        fn = forwarded_target(fn) or fn
        try:
            bound = inspect.signature(fn, follow_wrapped=False).bind(*args, **kwargs)
        except TypeError as exc:
            raise Unsupported(f"call of `{fn.__name__}` does not match its signature: {exc}",
                              node) from None
        params = {}
        for name, param in inspect.signature(fn, follow_wrapped=False).parameters.items():
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                params[name] = _star_parameter(fn, param, bound.arguments.get(name), node)
            elif name in bound.arguments:
                params[name] = bound.arguments[name]
            else:
                params[name] = exact(param.default)
        if isinstance(fn, types.MethodType):
            raise Unsupported("calling a method on per-example values", node,
                              "call a plain module-level function")
        try:
            spec = self.module.specialize(fn, params, node,
                                          python_params=self._python_arguments(fn, node),
                                          signs=self._signs(fn, node),
                                          every_lane=self._every_lane(params))
        except VectorizeError:
            raise
        self.helper_nodes[node] = spec.name
        if self._analysing is not None and spec.tree is not None:
            # (`analysis.python_numbers`: `hz(x) ** -1` of a helper returning a literal)
            caller = getattr(self._analysing, "interpreting", self._analysing)
            caller.helper_number_kinds[node] = spec.number_kinds
        interpreting = getattr(self._analysing, "interpreting", None)
        if spec.always_raises and interpreting is not None:
            interpreting.raising_helper_calls.add(node)
        return spec.result

    def _every_lane(self, params) -> bool:
        """Whether the helper call the analysis is at runs, in the scalar code, for every
        example: no per-example condition or masked loop around it, in a caller that is no
        speculative code itself, on arguments the same for every example (its specialization
        for per-example ones stays the one every call of that kind shares)."""
        caller = self._analysing
        return caller is not None and not (caller.speculative or caller._batched_depth) \
            and not any(getattr(v, "batched", True) for v in params.values())

    def _module_alias_bound(self):
        """A parameter or local named as the backend's module (``np``, ``jnp``, ``torch``):
        the refusal of `_module_names_free`, or None."""
        alias = self.registry.backend.alias
        for name, node in _bound_names(self.source.tree).items():
            if name == alias:
                return Unsupported(
                    f"the variable `{name}` has the name the generated code calls "
                    f"{self.registry.backend.module_name} by: in the generated function it "
                    "would be the variable", node, f"give the variable another name "
                    f"(`{name}_`, say)")
        return None

    def _module_names_free(self, tree) -> None:
        """The names the generated code calls modules and runtime helpers by (``np.where``,
        ``jnp``, ``lax``, ``torch``, ``pymath``, ``math``, ``promote_carry``...) must not be
        variables of the function (a parameter or a local named ``np``): there they would
        be the variable, and the code would fail (or run the per-example loop). Refused,
        located at the variable, where the code uses such a name for the module."""
        backend = self.registry.backend
        reserved = {backend.alias, *backend.extra_modules, "pymath", "math", "functools",
                    "scipy", *self.module.runtime_imports}
        user = self.source.tree
        clashes = {name: node for name, node in _bound_names(user).items()
                   if name in reserved}
        if not clashes:
            return

        def used(t) -> dict:
            out: dict = {}
            for n in walk(t):
                if type(n) is cst.Attribute and type(n.value) is cst.Name:
                    out.setdefault(n.value.value, set()).add(n.attr.value)
                elif type(n) is cst.Call and type(n.func) is cst.Name:
                    out.setdefault(n.func.value, set()).add("()")
            return out
        mine, made = used(user), used(tree)
        for name, node in clashes.items():
            new = sorted(made.get(name, set()) - mine.get(name, set()))
            if new:
                what = f"`{name}(...)`" if new == ["()"] else \
                    f"`{name}.{next(a for a in new if a != '()')}`"
                raise Unsupported(
                    f"the variable `{name}` has the name the generated code calls a module "
                    f"or helper by ({what}): in the generated function it would be the "
                    "variable", node, f"give the variable another name (`{name}_`, say)")

    def unreplayed_raising_call(self, node) -> bool:
        """Whether ``node`` calls a batched helper that may raise (`ModuleContext.may_raise`)
        in code nothing replays where it raises (the file rewriter's, `standalone`): its
        checks run on every lane it is called with, so it must be called with the lanes
        Python calls it for only."""
        if not getattr(self.module, "standalone", False):
            return False
        name = self.helper_nodes.get(node)
        return name is not None and self.module.may_raise(name)

    def _signs(self, fn, node) -> frozenset:
        """The signs of the helper ``fn``'s arguments that the function's value ranges prove
        at every call of it in its source (`analysis.ranges`), where its checks may use
        them: from the source, not from the tree of the pass that asks, so that every pass
        gets the same specialization."""
        if type(node) is not cst.Call:
            return frozenset()
        if fn in self._sign_cache:
            return self._sign_cache[fn]
        self._sign_cache[fn] = frozenset()
        sources = self.module.range_sources
        try:
            if fn not in sources:
                sources[fn] = None
                sources[fn] = read_function(fn)
        except Exception:       # noqa: BLE001 -- (the specialization says why, if it must)
            return frozenset()
        if sources[fn] is None or not ranges.uses_signs(sources[fn].tree):
            return frozenset()
        if self._ranges is None:
            self._ranges = ranges.of_function(
                self.source, self.source.tree, self.params, self.param_signs,
                bool(self.module.python_semantics), sources)
        found = ranges.signs_at_calls(self._ranges, fn, self.source.tree)
        self._sign_cache[fn] = found
        return found

    def _python_arguments(self, fn, node) -> frozenset:
        """`vmap`: the parameters of the helper ``fn`` that the call ``node`` passes Python
        numbers per example (``h(float(y))``), so that its operations on them are checked
        as the caller's are (`passes.python_raises`)."""
        analysis = getattr(self._analysing, "interpreting", None)
        if self.module.python_semantics or analysis is None or type(node) is not cst.Call:
            return frozenset()
        numbers = PythonNumbers(analysis, analysis.tree, self.python_params)
        try:
            bound = inspect.signature(fn, follow_wrapped=False).bind(
                *[a.value for a in node.args if a.keyword is None],
                **{a.keyword.value: a.value for a in node.args if a.keyword is not None})
        except TypeError:
            return frozenset()
        python = {name for name, arg in bound.arguments.items()
                  if isinstance(arg, cst.BaseExpression) and numbers.python_valued(arg)}
        # ("?name": a Python number on some examples only, `PythonNumbers.mixed`)
        return frozenset(python | {f"?{name}" for name in python
                                   if numbers.mixed(bound.arguments[name])})

    def _in_users_terms(self, problem: Unsupported) -> Unsupported:
        """A refusal that names a variable the engine made up (``result``, ``active``...)
        means nothing to the user: it is said without it (the analysis of the user's own
        code refuses in their terms; this is what a later pass found)."""
        named = quoted_names(problem.message)
        if not named & self.namer.generated:
            return problem
        return Unsupported(f"this combination of per-example control flow in "
                           f"`{self.source.name}` is not supported yet", problem.node,
                           "please report it with the function's source; meanwhile pass "
                           "fallback='warn' to run it per example")

    def helper_name(self, node) -> str:
        return self.helper_nodes[node]

    def fallback_used(self, node, reason: str) -> None:
        line, _ = self.source.location(node)
        self.module.fallbacks.append(fallback_record(self.source.filename, line, reason))

    def explain(self, rule, node) -> None:
        """Remember which rule rewrote which line (only when explanations were asked for:
        locating nodes needs the parse tree, which a cached specialization should not keep
        alive)."""
        if self.module.explain:
            line, _ = self.source.nearest_location(node)
            self.module.explanations.append((rule.name, self.source.filename, line))

    def run(self):
        tree = self.source.tree
        try:
            for step in PIPELINE:
                tree = step.transform(tree, self)
            tree = self.registry.backend.finish_function(tree, self)
            self._module_names_free(tree)
        except Unsupported as problem:
            clash = self._module_alias_bound()
            if clash is not None and clash is not problem:
                # (the passes' own code names the module too: `np.errstate` of the variable)
                raise self._in_users_terms(clash) from None
            raise self._in_users_terms(problem) from None
        tree = tree.with_changes(name=cst.Name(self.name))
        func = self.source.func
        # (a helper written out into the function: its name is read as any free name,
        # guarded, and finds the helper for the disk cache)
        free_names = {**self.inlined, **self.last.free_names}
        for name in self.source.contents_read:
            # (a list, dict or set whose items the source's sugar wrote into the code, `x in
            # TABLE` as comparisons: read as a free name, guarded by its items)
            found, value, scope = self.source.lookup(name)
            if found and scope != "builtin":
                free_names.setdefault(name, value)
                self.read.setdefault(name, value)
        self.read.update({k: v for k, v in self.inlined.items() if k not in self.read})
        for name, value in self.last.free_names.items():
            # a helper bound to a closure (`body_constructs.bound_closures`) stands for the
            # helper the function names: rebinding that name makes a new specialization (the
            # code calls the bound helper's batched version, never the name it is bound to)
            binds = bound_helper_of(value)
            if binds is not None:
                del free_names[name]
                if self.source.lookup(binds[0])[:2] == (True, binds[1]):
                    free_names.setdefault(binds[0], binds[1])
        for name, value in free_names.items():
            found, _, scope = self.source.lookup(name)
            if scope == "global":
                key = (id(self.source.globals), name)
                self.module.free[key] = name_guard(self.source.globals, name, value)
            elif scope == "builtin":
                continue
            elif scope == "import":     # imported by the body: the same on every call
                key = (id(self.source.local_imports), name)
                self.module.free[key] = name_guard(self.source.local_imports, name, value)
            else:
                key = (id(func), name)
                self.module.free[key] = name_guard(ClosureView(func), name, value)
            self.module.free_scopes[key] = (func, scope, name)
        for name, value in self.read.items():
            self.module.reads.append((func, self.source.lookup(name)[2], name, value))
        for (root, attrs), value in self.read_attributes.items():
            found, _, scope = self.source.lookup(root)
            if not found or scope in ("builtin", "import"):
                continue
            namespace = self.source.globals if scope == "global" else ClosureView(func)
            key = (id(self.source.globals) if scope == "global" else id(func), root, attrs)
            self.module.attribute_guards[key] = attribute_guard(namespace, root, attrs, value)
            self.module.attribute_scopes[key] = (func, scope, root, attrs, value)
        return tree, self.last.result


def _bound_names(func: cst.FunctionDef) -> dict:
    """The parameters and the names ``func``'s body assigns -> where each is first bound."""
    bound: dict = {}
    for param in walk(func.params):
        if type(param) is cst.Param:
            bound.setdefault(param.name.value, param.name)
    for node in walk(func.body):
        if type(node) is cst.AssignTarget:
            targets = [node.target]
        elif type(node) in (cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr):
            targets = [node.target]
        else:
            continue
        for target in targets:
            for n in _target_names(target):
                bound.setdefault(n.value, n)
    return bound


def _target_names(target) -> list:
    """The names an assignment target binds: a name, the items of a tuple or list (starred
    too); an item or attribute (``y[np.argmax(v)] = 0.0``, ``o.a = 1``) binds none (the
    names in it are read)."""
    if type(target) is cst.Name:
        return [target]
    if type(target) in (cst.Tuple, cst.List):
        return [n for e in target.elements for n in _target_names(e.value)]
    if type(target) is cst.StarredElement:
        return _target_names(target.value)
    return []


def _star_parameter(fn, param, bound, node):
    """The abstract value of a helper's ``*args`` (a tuple of the extra positional arguments
    the call passes, tracked item by item: their number is the call's; a constant where all
    are) or ``**kwargs`` (the
    extra keyword arguments, where the call passes none or only exactly known ones: a dict
    whose keys and values the body reads as constants)."""
    if param.kind is param.VAR_POSITIONAL:
        items = tuple(bound or ())
        if all(isinstance(v, Value) and v.exact for v in items):
            return exact(tuple(v.example for v in items))     # (a constant the loops read)
        return TupleValue(items)
    kwargs = dict(bound or {})
    for key, value in kwargs.items():
        if not (isinstance(value, Value) and value.exact) and not (
                isinstance(value, TupleValue) and value.exact and value.kind in (None, tuple)):
            raise Unsupported(f"`{fn.__name__}` takes **{param.name}, and the call passes "
                              f"`{key}` a value not known exactly (one per example, or a "
                              "call's)", node, "pass it as an explicit parameter of the helper")
    return exact({k: v.example for k, v in kwargs.items()})


def transform_function(func, params: dict[str, object], *, backend: str = "numpy",
                       fallback: str = "error", header: str = "",
                       explain: bool = False, if_strategy: str | None = None,
                       python_semantics: bool = False) -> Generated:
    """Batched source and compiled function for ``func`` given its parameters' abstract values
    (`transform_source`, loaded by `codegen.load`).

    ``if_strategy="compact"`` compacts every per-example ``if`` that can be (`compact_ifs`)
    instead of letting the heuristic choose. Raises `VectorizeError` (located in the user's
    file) for anything it cannot translate.

    A question this process asked before, about a function and everything it read as they
    were then, is answered from the in-process memo (`vectorize.memo`) without the engine
    (not with ``explain``)."""
    memo_key = None if explain else memo.key(
        func, params, backend=backend, fallback=fallback, header=header,
        if_strategy=if_strategy, python_semantics=python_semantics)
    if memo_key is not None:
        generated = memo.load(func, memo_key, backend)
        if generated is not None:
            return generated
    start = time.perf_counter()
    mixed = abstract.MIXED_TYPES.set([])
    try:
        with _collector_paused(), deep_recursion(), spec_facts.collecting() as facts:
            context = ModuleContext(backend, fallback, explain, if_strategy)
            context.python_semantics = python_semantics
            context.lane_kinds = not python_semantics
            context.runtime_replays = backends.get(backend).eager_raises
            generated = codegen.load(_transform(func, params, context, header))
        generated.facts = spec_facts.of(facts)
        generated.mixed_types = bool(abstract.MIXED_TYPES.get())
        generated.python_bools = context.python_bools
        generated.settles_kinds = context.settles_kinds
        generated.first_call_differs = context.first_call_differs
    finally:
        abstract.MIXED_TYPES.reset(mixed)
    generated.build_seconds = time.perf_counter() - start
    if memo_key is not None:
        memo.store(memo_key, generated, generated.build_seconds, backend)
    return generated


def transform_source(func, params: dict[str, object], *, context: ModuleContext,
                     name: str | None = None, header: str = "") -> codegen.Printed:
    """The batched source of ``func`` given its parameters' abstract values, printed but not
    compiled: the main function (named ``name``, by default as ``func``) and the specialized
    helpers it calls. Functions transformed in one ``context`` share their helpers'
    specializations and never reuse a name (the file rewriter makes one context per file,
    seeded with the names the file uses). Raises `VectorizeError` like `transform_function`."""
    with _collector_paused(), deep_recursion():
        return _transform(func, params, context, header, name)


@contextlib.contextmanager
def _collector_paused():
    """The cyclic garbage collector off while a transform runs (when it was on; it is on again
    after): a transform allocates tens of thousands of short-lived objects (trees, analyses)
    that reference counting frees, and the collections their churn sets off (which scan the
    trees being built) cost about a twentieth of the transform. Concurrent transforms leave it
    on once the first to start ends; anything cyclic they drop is collected afterwards."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


RECURSION_LIMIT = 20_000
"""Python's recursion limit while a transform runs (when it was lower): the parser's and the
passes' walks recurse once per level of an expression, and a sum of a thousand terms is a
thousand levels (with the default of 1000 such a function could not be read)."""
_deep = [0, None]            # transforms running, the limit before the first of them
_deep_lock = threading.Lock()


@contextlib.contextmanager
def deep_recursion():
    """`RECURSION_LIMIT` while any transform runs (concurrent ones share the raise; the
    last to end puts the limit back)."""
    with _deep_lock:
        if _deep[0] == 0:
            _deep[1] = sys.getrecursionlimit()
            if _deep[1] < RECURSION_LIMIT:
                sys.setrecursionlimit(RECURSION_LIMIT)
        _deep[0] += 1
    try:
        yield
    finally:
        with _deep_lock:
            _deep[0] -= 1
            if _deep[0] == 0 and sys.getrecursionlimit() == RECURSION_LIMIT:
                sys.setrecursionlimit(_deep[1])


def _transform(func, params, module: ModuleContext, header: str,
               name: str | None = None) -> codegen.Printed:
    try:
        main = module.specialize(func, params, name=name)
    except Unsupported as problem:   # failures before a source was read
        raise VectorizeError(problem.message, suggestion=problem.suggestion,
                             kind=problem.kind, subject=problem.subject) from None
    except VectorizeError:
        raise
    except RecursionError:
        code = getattr(func, "__code__", None)
        raise VectorizeError(f"`{getattr(func, '__qualname__', func)}` (or a helper it calls) "
                             "is too deeply nested to vectorize (an expression of thousands of "
                             "terms, or blocks nested hundreds deep)",
                             filename=code.co_filename if code else "<unknown>",
                             line=code.co_firstlineno if code else 0,
                             suggestion="split it into smaller expressions or helper "
                                        "functions") from None
    except Exception as exc:   # an engine bug: never a bare traceback from inside the engine
        qualname = getattr(func, "__qualname__", repr(func))
        raise VectorizeError(
            f"internal error while vectorizing `{qualname}`: {type(exc).__name__}: {exc}",
            filename=getattr(getattr(func, "__code__", None), "co_filename", "<unknown>"),
            line=getattr(getattr(func, "__code__", None), "co_firstlineno", 0),
            suggestion="please report this with the function's source; meanwhile pass "
                       "fallback='warn' to run it per example") from exc
    finally:
        clear_memo()
    ordered = _called([main] + [s for s in module.order if s is not main])
    return codegen.print_module(ordered, module, main, header)


def _all_batched(value) -> bool:
    if isinstance(value, TupleValue):
        return all(_all_batched(item) for item in value.items)
    return value.batched


def _called(specs: list[_Spec]) -> list[_Spec]:
    """The main function and the helper specializations it calls, directly or not: a helper
    specialized while a loop's types settled (for an argument that is batched only from the
    second analysis round on) is not called by the final code."""
    if len(specs) == 1:
        return specs
    by_name = {spec.name: spec for spec in specs}
    kept, stack = {specs[0].name}, [specs[0]]
    while stack:
        for name in all_names(stack.pop().tree) & by_name.keys() - kept:
            kept.add(name)
            stack.append(by_name[name])
    return [spec for spec in specs if spec.name in kept]



def _checked_unbound(source, problem, none: bool = False):
    """`body_sugar.check_unbound` of the function's tree for ``problem`` (a `MaybeUnbound`),
    with a placeholder of the type the paths that bind the name give it (a number, or a
    small per-example array of numbers: a nested list literal of its shape, as a row of a
    module table); None where there is none (a tuple, an object, a large or empty array) or
    the rewrite does not apply. ``none``: the name is None on some paths, not unbound
    (`body_sugar.check_none`)."""
    from .body_sugar import check_none, check_unbound
    value = problem.value
    if isinstance(value, Value) and not value.known:
        # (strings of different lengths merged: no example) the literals bound to it
        value = _literals_bound(source.tree, problem.name) or value
    if isinstance(value, TupleValue) or not isinstance(value, Value) or not value.known:
        return None
    example = np.asarray(value.example)
    kind = example.dtype.kind
    literal = {"b": "False", "i": "0", "u": "0", "f": "0.0", "c": "0j", "U": '""'}.get(kind)
    if literal is None or example.ndim and (kind not in "biufc"
                                            or not 0 < example.size <= _PLACEHOLDER_ITEMS):
        return None
    placeholder = literal
    for n in reversed(example.shape):
        placeholder = "[" + ", ".join([placeholder] * n) + "]"
    return (check_none if none else check_unbound)(source.tree, problem.name, placeholder)


def _literals_bound(tree, name: str) -> Value | None:
    """The value of an example of the literals every assignment to ``name`` binds, where
    they are all strings (or all ints, floats or bools); else None."""
    import libcst as cst

    from .liveness import target_names
    from .syntax.traversal import walk
    examples = []
    for n in walk(tree.body):
        if type(n) in (cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr) and name in \
                target_names(n.target):
            return None
        if type(n) is cst.Assign and any(name in target_names(t.target) for t in n.targets):
            if len(n.targets) != 1 or type(n.targets[0].target) is not cst.Name or type(
                    n.value) not in (cst.SimpleString, cst.Integer, cst.Float):
                return None
            examples.append(n.value.evaluated_value)
    if not examples or len({type(e) for e in examples}) != 1:
        return None
    return Value(True, examples[0])


_PLACEHOLDER_ITEMS = 64     # the most items of a per-example array given a literal placeholder


def _raises_only(stmt) -> bool:
    """Whether ``stmt`` is an ``if`` whose only branch raises (``if cond: raise E(...)``, as
    `passes.python_raises` writes its checks): it becomes no merge, and the code after it
    runs on every lane as in the scalar code (a lane that raises ends the call)."""
    return type(stmt) is cst.If and stmt.orelse is None and isinstance(
        stmt.body, cst.IndentedBlock) and bool(stmt.body.body) and all(
            type(s) is cst.SimpleStatementLine and all(
                type(small) is cst.Raise for small in s.body) for s in stmt.body.body)
