"""The abstract interpreter: `Analysis` runs the function's statements on abstract values.

Assumes: a ``FunctionDef`` in scalar style and the abstract values of its parameters.
Guarantees: ``values[node]`` for every expression evaluated, ``batched_tests`` for every
``if``/``while`` test, the abstract ``result``, the free names read (for cache guards), and
`Unsupported` (with the node at fault) for anything the engine cannot translate faithfully.
It never rewrites: passes recompute it after they change the tree.

This module holds the statements: blocks, assignments, ``if`` (whose paths meet in
`join_envs`), loops (run to a fixed point, masked where lanes leave them at different
times), returns and raises. Expressions and calls are `Expressions` and `Calls`; names for
one object and arrays written into are `Aliasing`.
"""

from __future__ import annotations

import sys
import warnings

import libcst as cst
import numpy as np

from ..abstract import (
    ASSIGNED_AS_IS,
    DEFERRED_JOINS,
    EXAMPLE_SEMANTICS,
    FRESH_PER_EXAMPLE,
    MIXED_KINDS,
    MIXED_PARTS,
    RETURNED_AS_IS,
    UNKNOWN,
    UNPACKED_AT_ONCE,
    TupleValue,
    Value,
    batched_like,
    exact,
    join,
    mixed_kinds,
    mixed_lane_types,
    number_kind,
    record_fact,
    same,
    unbatched,
)
from ..body_constructs.classes import is_record, record_of
from ..errors import Unsupported
from ..liveness import exposed_reads, reads, target_names, writes
from ..rules.lane_copies import copies
from ..rules.registry import Registry, Rule
from ..syntax.traversal import walk
from .aliasing import Aliasing, ArgumentWritten
from .calls import Calls
from .environments import PER_EXAMPLE_SHAPES as _PER_EXAMPLE_SHAPES
from .environments import Env, inexact_join, join_envs
from .environments import bound_values as _bound_values
from .environments import no_per_example_choice_between as _no_per_example_choice_between
from .expressions import Expressions, MayFallOff, uniform_items
from .syntax import SYNTAX as _SYNTAX
from .syntax import always_true as _always_true
from .syntax import is_none as _is_none
from .syntax import may_fall_off as _may_fall_off


class Analysis(Expressions, Calls, Aliasing):
    """Run with `analyze`; read ``values``, ``batched_tests``, ``result``, ``free_names``."""

    def __init__(self, source, tree, params: dict[str, object], registry: Registry,
                 helpers=None, allow_fallback: bool = False, promoted=None,
                 speculative: bool = False, helper: bool = False):
        self.source = source
        # called from another function of the user's: its parameters are the caller's objects
        self.helper = helper
        # a helper's body may run for lanes whose scalar code never calls it (under a
        # per-example condition of the caller): all of it counts as speculative code
        self.speculative = speculative
        # unbatched Python-number operations that may raise (`a / b` with b == 0) in code
        # that runs for every lane: NumPy scalars give IEEE values there instead
        self.numpy_scalar_ops: dict[cst.CSTNode, type] = {}
        # `vmap`: operations on a value that is an int on some lanes and a float on others
        # whose float result may be -0.0 where the int lane's is 0
        # (`rules.python_errors.signed_zero_operation`): `passes.python_raises` checks
        # their results at run time (the loop decides where a lane's is -0.0)
        self.signed_zeros: dict[cst.CSTNode, None] = {}
        # `vectorize`: NumPy calls of a value that is a Python bool on some lanes, which
        # raise TypeError there (`_bool_lane_operands`): (operand nodes, message)
        self.bool_lanes: dict[cst.CSTNode, tuple] = {}
        # ... and int divisions on a lane that computes in a NumPy int whose divisor may be
        # zero (0 there, nan in the joined float): `passes.python_raises` checks the divisor
        self.zero_divisors: dict[cst.CSTNode, None] = {}
        # the target of `name op= value` -> the name's value it reads (`values` has the result)
        self.augmented_reads: dict[cst.CSTNode, object] = {}
        self.tree = tree
        self.defined_before: dict[cst.CSTNode, set[str]] = {}
        self.defined_before_loop: dict[cst.CSTNode, set[str]] = {}
        self.loop_entry: dict[cst.CSTNode, dict] = {}   # variables' values entering a loop
        self.loop_head: dict[cst.CSTNode, dict] = {}    # ... at its head (fixed point)
        # if -> variables' values (entering, after its body, after its else, at the join)
        self.if_envs: dict[cst.CSTNode, tuple] = {}
        # for the runtime promotions of `batch_rules`: the bound variables' values where a
        # path leaves a loop body (its end, each break/continue) and after the loop
        self.loop_body_end: dict[cst.CSTNode, dict | None] = {}
        self.loop_exit: dict[cst.CSTNode, dict | None] = {}
        self.jump_envs: dict[cst.CSTNode, dict] = {}
        self.loop_may_skip: dict[cst.CSTNode, bool] = {}   # can run its body zero times
        self.registry = registry
        # the bindings `y = x` (or of a view of x) of the function: (y, x, position, loops
        # around it) (`_alias_links`), and every node's position and loops
        self._aliases: list | None = None
        self._where: dict = {}
        self._live: dict = {}    # statement -> names live after it (for `_aliases`)
        self._read_counts: dict[str, int] | None = None     # `_reads_of`
        self._assigned: set[str] | None = None   # names assigned in the function
        self.zero_d_arrays: set[str] = set()   # names bound (somewhere) to a 0-d array
        self.helpers = helpers            # callback(func, args, kwargs, node) -> Value
        self.allow_fallback = allow_fallback
        self.params = params
        self.values: dict[cst.CSTNode, object] = {}
        self.batched_tests: dict[cst.CSTNode, bool] = {}
        self.returns: list[tuple[cst.Return, object]] = []
        self.free_names: dict[str, object] = {}
        # (free name, attributes) -> the value reached (`stable_attribute`): `helpers.h`
        self.free_attributes: dict[tuple, object] = {}
        self.fallback_calls: dict[cst.Call, str] = {}
        self.helper_calls: dict[cst.Call, object] = {}
        # `vmap`: a call of a helper -> what its `return`s give per example ("python": a
        # Python number, "array": a NumPy value: `analysis.python_numbers`)
        self.helper_number_kinds: dict[cst.Call, frozenset] = {}
        self.tuple_lengths: set = set()     # len(t) of a tuple tracked item by item
        # isinstance / hasattr of a per-example value -> its answer, the same for every
        # example (`calls.Calls.isinstance_of`), written as the literal (`batch_rules`)
        self.type_tests: dict[cst.Call, bool] = {}
        self.method_calls: dict[cst.Call, object] = {}     # x.method(...) on batched x
        # `x.at[index].set(v)` (the registry's `indexed_update`) of per-example values
        self.indexed_updates: dict[cst.Call, object] = {}
        self.random_calls: dict[cst.Call, Rule] = {}       # draws, one per example
        # a list or tuple display (or a name bound to one) of per-example values that a
        # rule takes as one per-example array -> whether each item is per example
        self.stacked: dict[cst.CSTNode, tuple] = {}
        # strings formatted from per-example numbers (`rules/strings.py`) -> their per-example
        # operands, which `passes/batch_rules.py` hands the rule
        self.string_pieces: dict[cst.CSTNode, tuple] = {}
        # np.arange with per-example bounds (a different length per example), and the
        # reductions that consume them -> the ragged ranges in their operand
        self.ragged: set[cst.Call] = set()
        self.masked_reductions: dict[cst.Call, list] = {}
        # `v[mask]` with a per-example boolean mask (also ragged: reduced under the mask);
        # names bound once to such a value -> its ragged nodes, and the reads of those names
        # (all / those inside a masked reduction): the others escape, refused
        self.selections: dict[cst.Subscript, list] = {}   # -> the ragged nodes it selects from
        # among them `v[lo:hi]` of a vector with a per-example bound: the mask is the slice's
        self.slice_selections: set[cst.Subscript] = set()
        self.sequence_slices: set[cst.Subscript] = set()    # those of a list or tuple
        self.int_sequence_slices: set[cst.Subscript] = set()    # ... of ints
        # `y[mask] = v` with a per-example boolean mask of `y`'s per-example shape
        # (-> the array's and the mask's per-example ranks)
        self.mask_writes: dict[cst.Subscript, tuple[int, int]] = {}
        # `y[lo:hi] = v` of a per-example vector with a per-example bound and a number per
        # example: a masked write by the slice's mask (`aliasing._slice_write`)
        self.slice_writes: set[cst.Subscript] = set()
        self.ragged_names: dict[str, list] = {}
        self.ragged_name_reads: set[cst.Name] = set()
        self.ragged_consumed_reads: set[cst.Name] = set()
        self._assignment_counts: dict[str, int] | None = None
        self.owned: set[str] = set()          # arrays this function created (may be written)
        self.list_arrays: set[str] = set()    # ... of them, lists (`passes.local_lists`)
        # ... of those, lists that start empty (`rules.lists.open_list`) -> the parameters'
        # values (`vmap`; () for `vectorize`), and the dtype their first write gave them
        # (kept from one run of the analysis to the next: `analyze`)
        self.open_lists: dict[str, list] = {}
        # ... lists of Python numbers read only by index (`rules.lists.weak_list`: their
        # items read as Python numbers) -> the parameters' values; and the other lists
        self.weak_lists: dict[str, list] = {}
        self.strong_lists: set[str] = set()
        self.list_dtypes: dict[str, np.dtype] = {}
        # objects made from constants, made once (`float_semantics.made_once`): the generated
        # module's (`transform.ModuleContext.constructed`)
        self.constructed: dict = {}
        self._items_written: set[str] | None = None   # names whose items the function writes
        self._user_names: set[str] | None = None
        self.math_in_branches: set[cst.Call] = set()   # math.f(unbatched) under batched ifs
        self.promoted: set[str] = set(promoted or ())   # created arrays holding batched data
        # creations of those arrays -> their rule (the batch axis in front)
        self.promoted_creations: dict[cst.Call, Rule] = {}
        # new arrays made by arithmetic (`y = w * 2`) that hold per-example data from then on,
        # though made the same for every example: repeated for every example
        self.promoted_copies: set[cst.BaseExpression] = set()
        self.needs_rerun = False
        self.returns_in_loops = False
        self.masked_loops: dict[cst.CSTNode, cst.CSTNode] = {}   # loop -> node that masks it
        # `for e in v` over per-example arrays (also `enumerate(v)`, `zip(v, w)`) -> how
        # `passes/sequence_loops.py` writes it as a loop over `range(len(v))`
        self.sequence_loops: dict[cst.For, SequenceLoop] = {}
        self.batched_returns = False   # some return depends on a batched condition
        self.lane_raises: list[cst.Raise] = []   # raise under a per-example condition
        # `warnings.warn(...)` / `logging` calls under a per-example condition (statements)
        self.lane_warnings: list[cst.Expr] = []
        # a raise of the batched code makes the caller run the per-example loop, which
        # decides (`vectorize._replay`): a helper's raise on lanes its caller keeps out is
        # harmless there
        self.replayed = False
        # what the front end hands per example: Python numbers (`abstract.PythonSemantics`,
        # `vectorize`) or NumPy scalars (False: `vmap`, the file rewriter)
        self.python_semantics = False
        # `y[0]` of a per-example array: a scalar (a copy) per example, a view on the batch
        self._scalar_reads: dict[cst.Subscript, str] = {}
        self._bound_scalar_reads: list = []     # (names bound, those reads, the assignment)
        self.copied_reads: set[cst.Subscript] = set()   # ... that must be copies
        # `y[i]` of a per-example array by a per-example integer: a view per example (a row,
        # or PyTorch's 0-d item), a gather (a copy) on the batch; and their bindings
        self._gathered_views: dict[cst.Subscript, str] = {}
        self._bound_gathered_views: list = []
        self._exception_of_one_example = 0   # analysing the exception of such a raise
        # if / while / conditional expression / and-or -> the truth of its test, where that
        # is exactly known (`_decided`): only that side runs
        self.decided: dict[cst.CSTNode, bool | None] = {}
        self._unreached = 0     # depth of code the representatives do not reach (`_reached`)
        # and/or -> its truth for the representatives where the left side decides it
        self.short_circuits: dict[cst.CSTNode, bool] = {}
        self._batched_depth = 0
        self._loop_stack: list[dict] = []
        self.result = None
        # shared calls that raise in Python on every example that runs them (`max(1j, 2)`):
        # left as written, the code after them dead (`raised_for_every_example`)
        self.raises_for_every_example: set[cst.Call] = set()
        # helper calls (on values the same for every example) every path of which raises
        self.raising_helper_calls: set[cst.Call] = set()
        self._statement_raises = False   # the statement analysed has such a call
        # ... found by an earlier analysis of the function, before its `if`s were merges
        # (which make every later analysis `speculative`)
        self.raised_before: frozenset = frozenset()

    def analyze(self) -> Analysis:
        """Interpret the function; again from the start when it found arrays that must hold
        per-example data from their creation on (their creation is then batched)."""
        for _ in range(8):
            fresh = Analysis(self.source, self.tree, self.params, self.registry, self.helpers,
                             self.allow_fallback, self.promoted, self.speculative, self.helper)
            fresh.replayed = self.replayed
            fresh.list_dtypes = dict(self.list_dtypes)
            fresh.constructed = self.constructed
            fresh.python_semantics = self.python_semantics
            fresh.raised_before = self.raised_before
            # what the analysis has found so far, for a helper it specializes
            # (`transform.FunctionJob._python_arguments`)
            self.interpreting = fresh
            # operations on examples stand for every lane's: their floating-point errors
            # (1 / 0.0 on a representative) say nothing, and are ignored throughout
            with np.errstate(all="ignore"), self.registry.backend.analysing():
                fresh._interpret()
            if not fresh.needs_rerun:
                del self.interpreting
                self.__dict__.update(fresh.__dict__)
                return self
            self.promoted |= fresh.promoted
            self.list_dtypes.update(fresh.list_dtypes)
        raise Unsupported("could not settle which arrays hold per-example data", self.tree)

    def _interpret(self) -> None:
        env = Env(self.params)
        if not self.helper:
            for value in self.params.values():
                # (vectorize: numpy.vectorize hands a 0-d argument's item as a new number
                # too, a Python number argument itself: the call decides, `vectorize.__call__`)
                if isinstance(value, Value) and (value.batched or self.python_semantics) \
                        and value.known and (
                        value.rank or value.dtype is not None and value.dtype.kind in "fciu"):
                    record_fact(value, FRESH_PER_EXAMPLE)
        users = self.tree is getattr(self.source, "tree", None)
        token = _PER_EXAMPLE_SHAPES.set(users)
        try:
            self._interpret_body(env)
        finally:
            _PER_EXAMPLE_SHAPES.reset(token)
        return self

    def _interpret_body(self, env) -> None:
        if self.helper:
            # a helper may write into the arrays its callers pass it (each caller checks that
            # the argument is an array of its own, `Aliasing._arguments_written_by`)
            self.owned |= {name for name in self.params if self._written_into(name)}
        end = self.block(self.tree.body.body, env)
        # (no `return` reached and no end: every path raises, for every example that runs it)
        self.reaches_end = end is not None and not end.raised
        self._copy_scalar_reads()
        if end is not None and not end.raised and self.batched_returns \
                and self.tree is getattr(self.source, "tree", None):   # the user's code
            self._no_fall_off_on_some_lanes()
        if not self.returns:
            self.result = unbatched(None)
        else:
            if self.batched_returns and (self.tree is getattr(self.source, "tree", None)
                                         or _returns_none(getattr(self.source, "tree", None))):
                # (also on a pass's tree, a loop's `return None` lowered: `for ... else:
                # return None` after a per-example `break`; `check_fall_off` rewrites the
                # source's)
                self._no_none_on_some_lanes()
            result = self.returns[0][1]
            for ret, value in self.returns[1:]:
                if self.batched_returns:
                    _no_per_example_choice_between(result, value, "returns", ret)
                joined = self._joined_returns(result, value)
                if self.batched_returns:
                    inexact_join(joined, (result, value), "returns", ret,
                                 users=self.tree is getattr(self.source, "tree", None),
                                 final=not self.helper)
                result = joined
            if self.batched_returns and not isinstance(result, TupleValue):
                result = join(result, result, force_batched=True)
            if self.python_semantics and not self.helper:   # (vectorize: numpy.vectorize's outputs)
                _numpy_vectorize_outputs(self.returns)
            if not self.helper and not self.registry.backend.big_int_results:
                _no_int_beyond_int64_returned(self.returns)
            if not self.helper:
                _no_record_returned(self.returns)
            self.result = result
        return None

    def _returned_as_is(self, ret: cst.Return) -> frozenset:
        """The expressions of the mapped function's ``return`` whose values are only stacked
        (`abstract.RETURNED_AS_IS`): the value, or the items of a returned tuple display;
        none in a helper, whose caller computes with what it returns."""
        if self.helper or ret.value is None or self.tree is not getattr(self.source, "tree",
                                                                        None):
            return frozenset()
        if type(ret.value) is cst.Tuple:
            return frozenset(e.value for e in ret.value.elements
                             if type(e) is cst.Element)
        return frozenset((ret.value,))

    def _joined_returns(self, a, b):
        """The join of two returned values. Where every example takes the same ``return``
        (no per-example test before it) in the function called, a bare ``return`` (None)
        beside a returned tuple or list keeps the container's items: the batch gets None or
        the container as a whole, and each item's batching stays known (joined into one
        unknown value, the container's items would read as unbatched and be broadcast)."""
        if not self.batched_returns and not self.helper:
            for x, y in ((a, b), (b, a)):
                if isinstance(x, TupleValue) and _none_value(y):
                    return x
        return join(a, b, force_batched=self.batched_returns)

    def _no_fall_off_on_some_lanes(self) -> None:
        """Examples that reach the end of the function get None, those that return get their
        value: refused where some examples return a value and others may fall off the end
        (an ``if``/``elif`` without ``else`` before it)."""
        body = self.tree.body.body
        if not body or not _may_fall_off(body) or all(
                r.value is None or _is_none(r.value) for r, _ in self.returns):
            return
        name = self.tree.name.value
        raise MayFallOff(f"`{name}` does not return a value on every path: examples for "
                          f"which no `return` runs get None", body[-1],
                          f"end `{name}` with a `return` for those examples (e.g. "
                          f"`return 0.0`)" + (", or give the last `if` an `else:` that "
                                              "returns" if type(body[-1]) is cst.If else ""))

    def _no_none_on_some_lanes(self) -> None:
        """Some ``return`` statements return None (``return``, ``return None``) and others
        a value: `MayFallOff`, so that `transform` makes them raise where a live example
        reaches them (the per-example loop decides, as for falling off the end)."""
        nones = [ret for ret, value in self.returns
                 if not isinstance(value, TupleValue) and value.known and value.example is None]
        if nones and len(nones) < len(self.returns):
            name = self.tree.name.value
            raise MayFallOff(f"`{name}` returns None on some paths and a value on others",
                             nones[0], "return a value of one kind on every path")

    def block(self, stmts, env: Env) -> Env | None:
        for stmt in stmts:
            with self._reached(not env.unreached):
                env = self.statement(stmt, env)
            if self._statement_raises:
                self._statement_raises = False
                return None     # (as after a `raise`: no example gets past it)
            if env is None or env.raised:
                return env
        return env

    def every_lane_runs(self) -> bool:
        """Whether the code being analysed runs on every example that reaches the statement:
        not under a per-example condition (`if`, loop, `and`/`or`, conditional expression),
        nor in a helper its caller may call on some lanes only."""
        return not (self.speculative or self._batched_depth or self.__dict__.get(
            "_partial_operands"))

    def raised_before_here(self, node) -> bool:
        """Whether an earlier analysis found ``node`` raising on every example that runs
        it, in code every lane runs (`raised_for_every_example`)."""
        return node in self.raised_before and not (self._batched_depth or self.__dict__.get(
            "_partial_operands"))

    def raised_for_every_example(self, node) -> Value:
        """A call Python raises for on the values the same for every example, in code every
        example runs: it stays as written, so the batch raises Python's exception as every
        example does, and the statement it is in ends the path (`block`). Its value is a
        placeholder for the rest of the statement, which no example computes."""
        self.raises_for_every_example.add(node)
        self._statement_raises = True
        return unbatched(0.0)

    def statement(self, stmt, env: Env) -> Env | None:
        # (exact types, here and below: isinstance on libcst's classes is slow)
        if type(stmt) is cst.SimpleStatementLine:
            for small in stmt.body:
                env = self.small_statement(small, env)
                if self._statement_raises:
                    return None
                if env is None or env.raised:
                    return env
            return env
        if type(stmt) is cst.If:
            return self.if_statement(stmt, env)
        if type(stmt) is cst.For:
            return self.for_statement(stmt, env)
        if type(stmt) is cst.While:
            return self.while_statement(stmt, env)
        if type(stmt) is cst.With:
            for item in stmt.items:
                if self.expr(item.item, env).batched:
                    raise Unsupported("a `with` block on a per-example value", item.item,
                                      "enter the context outside the per-example function")
                if item.asname is not None:
                    self.bind(item.asname.name, unbatched(UNKNOWN), env, stmt)
            return self.block(stmt.body.body, env)
        kind = type(stmt).__name__
        if type(stmt) is cst.Match:
            from ..body_sugar import unbatched_pattern
            pattern = unbatched_pattern(stmt, self.tree)
            if type(pattern) is cst.MatchSingleton:
                raise Unsupported(f"`case {pattern.value.value}:` matches only the object "
                                  f"{pattern.value.value} itself: per example a truth value "
                                  "is a Python bool on some calls and a NumPy bool (never "
                                  "it) on others, which the batch cannot tell apart", pattern,
                                  "test the value itself in an if/elif chain (`if c:`)")
            raise Unsupported("this `case` pattern is not batched: only literal and value "
                              "patterns (and `|` of them), `None`, guards, a capture or `_` "
                              "as the last case, guarded captures the function uses nowhere "
                              "else, and sequence patterns of a tuple display are",
                              pattern if pattern is not None else stmt,
                              "compare the value with == in an if/elif chain")
        if type(stmt) is cst.FunctionDef:
            from ..body_constructs.closures import why_kept
            raise Unsupported(f"the nested function `{stmt.name.value}` "
                              f"{why_kept(stmt, self.tree)}: only closures that are called "
                              "are inlined", stmt,
                              "define it at module level and pass what it reads as "
                              "parameters")
        hints = {
            "Try": "move the try/except out of the per-example function, or check the "
                   "condition explicitly with `if`",
            "FunctionDef": "define the helper at module level",
            "ClassDef": "define the class at module level",
        }
        raise Unsupported(f"`{_SYNTAX.get(kind, kind.lower())}` statements are not supported "
                          "in a vectorized function", stmt,
                          hints.get(kind, "rewrite it without this statement"))

    def small_statement(self, small, env: Env) -> Env | None:
        if type(small) is cst.Assign:
            token = ASSIGNED_AS_IS.set(frozenset((small.value,)) if all(
                type(t.target) is cst.Name for t in small.targets) else frozenset())
            whole = small.targets[0].target if len(small.targets) == 1 else None
            at_once = UNPACKED_AT_ONCE.set((small.value, len(whole.elements)) if type(
                whole) in (cst.Tuple, cst.List) and type(small.value) is cst.Call and all(
                    type(e) is cst.Element for e in whole.elements) else None)
            try:
                value = self.expr(small.value, env)
            finally:
                UNPACKED_AT_ONCE.reset(at_once)
                ASSIGNED_AS_IS.reset(token)
            self._bind_scalar_reads(small)
            self._no_stale_view(small, value)
            if self.ragged and len(small.targets) == 1 and type(
                    small.targets[0].target) is cst.Name:
                self._ragged_binding(small.targets[0].target.value, small.value)
            created = self._creation(small.value)
            if created is not None:
                retyped = self._list_array(small, env)
                if retyped is not None and isinstance(value, Value) and isinstance(
                        value.example, np.ndarray):
                    value = Value(value.batched, value.example.astype(retyped))
                    self.values[small.value] = value
            if self._may_give_0d_array(small.value):
                self.zero_d_arrays.update(n for t in small.targets
                                          for n in target_names(t.target))
            for target in small.targets:
                if isinstance(target.target, cst.Name):
                    name = target.target.value
                    if created is not None:
                        self.owned.add(name)
                        if name in self.promoted and not value.batched:
                            value = Value(True, value.example)
                            self.promoted_creations[small.value] = created
                    elif self._fresh_array(small.value, value):
                        # a new array per example (arithmetic on arrays, `np.roll`...): the
                        # function's own, as a created one is
                        self.owned.add(name)
                        if name in self.promoted and not value.batched:
                            value = Value(True, value.example)
                            self.promoted_copies.add(small.value)
                    elif type(small.value) is cst.Name and small.value.value in self.owned \
                            and self._users_name(name) and self._written_into(
                                name, small.value.value):
                        # (the engine's own copies, `result = out` for `return out`, are
                        # merged or read once the array is no longer written)
                        raise Unsupported(f"`{name} = {small.value.value}` makes two names for "
                                          "one array that is written into", small,
                                          f"use {small.value.value}.copy()")
                    else:
                        self.owned.discard(name)
                self.bind(target.target, value, env, small)
                bound = env.values.get(target.target.value) if type(
                    target.target) is cst.Name else None
                if value in DEFERRED_JOINS and isinstance(bound, Value):
                    DEFERRED_JOINS[bound] = DEFERRED_JOINS[value]   # (refused where read)
            return env
        if type(small) is cst.AnnAssign:
            if small.value is not None:
                self.bind(small.target, self.expr(small.value, env), env, small)
            return env
        if type(small) is cst.AugAssign:
            if isinstance(small.target, cst.Subscript) and isinstance(small.target.value,
                                                                      cst.Name):
                value = self.binary(small.operator, small.target, small.value, env, small)
                self.item_write(small.target, value, env, augmented=True)
                return env
            if not isinstance(small.target, cst.Name):
                raise Unsupported("augmented assignment into an object changes it in place (a "
                                  "side effect the batch cannot repeat per example)", small,
                                  "compute a new local value instead")
            self._no_update_of_a_shared_array(small, env)
            self._no_aliased_update(small, env)
            value = self.binary(small.operator, small.target, small.value, env, small)
            self._in_place_update_keeps_dtype(small, env.values.get(small.target.value), value)
            self._no_update_of_the_callers_array(small, env)
            # (the name's value before: the operand `passes.python_raises` checks)
            self.augmented_reads[small.target] = self.expr(small.target, env)
            self.bind(small.target, value, env, small)
            self.values[small.target] = value
            return env
        if type(small) is cst.Expr and self._batched_depth and self._is_warning(small.value,
                                                                                env):
            # `warnings.warn(...)` / `logging.warning(...)` that some examples reach: the
            # batch warns once if any does, with the first such example's message
            # (`guard_indices`, as for `raise`)
            self._exception_of_one_example += 1
            try:
                for arg in small.value.args:
                    self.expr(arg.value, env)
            finally:
                self._exception_of_one_example -= 1
            self.values[small.value] = unbatched(None)
            self.lane_warnings.append(small)
            return env
        if type(small) is cst.Expr:
            side_effect = Unsupported("a call whose result is thrown away is a side effect on "
                                      "per-example values", small,
                                      "return the value instead of printing or storing it")
            call = small.value
            if isinstance(call, cst.Call) and type(call.func) is cst.Attribute and \
                    call.func.attr.value.endswith("_") and \
                    not call.func.attr.value.endswith("__") and \
                    call.func.attr.value in self.registry.methods:
                self.expr(call, env)     # an in-place method with a rule (`y.add_(v)`)
                return env
            try:
                self.expr(small.value, env)
            except Unsupported as problem:
                if isinstance(small.value, cst.Call) and self._any_batched_input(
                        small.value) and not isinstance(problem, ArgumentWritten):
                    raise side_effect from None
                raise
            if small.value in self.helper_calls and not self._batched_depth:
                # the user's helper called for its checks (`_check(p, t)`, whose body raises
                # or warns): its own analysis allowed its body, and every lane is live here
                return env
            if small.value in self.helper_calls and any(
                    type(a.value) is cst.Name and a.value.value in copies(self.tree)
                    for a in small.value.args):
                # the user's helper writing into a copy for the lanes that make the call
                # (`passes.helper_writes`): the others throw their rows of it away
                return env
            if isinstance(small.value, cst.Call) and self._any_batched_input(small.value):
                raise side_effect
            if self._batched_depth and type(call) is cst.Call and type(
                    call.func) is cst.Attribute and type(call.func.value) is cst.Name \
                    and call.func.value.value in env.values and call not in self.helper_calls:
                # `hits.append(1)` under a per-example condition: per example the object
                # changes on the examples that take the branch only, on the batch for all
                raise Unsupported(f"calling `.{call.func.attr.value}()` on "
                                  f"`{call.func.value.value}` under a per-example condition "
                                  "changes it for the examples that take the branch only; the "
                                  "batch would change it for every example", small,
                                  "compute the value without changing an object (a running "
                                  "count or sum), or see the constructs in docs/semantics.md")
            return env
        if type(small) is cst.Return:
            token = RETURNED_AS_IS.set(self._returned_as_is(small))
            try:
                value = self.expr(small.value, env) if small.value is not None else \
                    unbatched(None)
            finally:
                RETURNED_AS_IS.reset(token)
            if self._loop_stack:
                self.returns_in_loops = True
                if self._mask_enclosing_loop(small):
                    for frame in self._loop_stack:   # the lane leaves every enclosing loop
                        frame["masked"] = True
                        self.masked_loops.setdefault(frame["node"], small)
            if self._statement_raises:
                return None     # (no example returns the value: computing it raises)
            if self._batched_depth:
                self.batched_returns = True
            self.returns.append((small, value))
            return None
        if type(small) is cst.Pass:
            return env
        if type(small) in (cst.Break, cst.Continue):
            if not self._loop_stack:
                raise Unsupported("`break`/`continue` outside a loop", small)
            self._mask_enclosing_loop(small)
            key = "breaks" if type(small) is cst.Break else "continues"
            self._loop_stack[-1][key].append(env.copy())
            self.jump_envs[small] = _bound_values(env)
            return None
        if type(small) is cst.Raise:
            # where some examples raise, an exception made from per-example values is made
            # from the first such example's (`guard_indices`, `rules/lanes.py`)
            self._exception_of_one_example += bool(self._batched_depth)
            try:
                # (`raise E(...) from cause`: the cause is an expression too; it changes
                # the exception's `__cause__`, not its type or message)
                cause = small.cause.item if small.cause is not None else None
                parts = [self.expr(p, env) for p in (small.exc, cause) if p is not None]
            finally:
                self._exception_of_one_example -= bool(self._batched_depth)
            if any(p.batched for p in parts):
                raise Unsupported("the exception raised is made from per-example values, "
                                  "though every example raises it", small.exc,
                                  "raise an exception the same for every example, e.g. "
                                  "`raise ValueError(\"negative input\")`, or raise it "
                                  "under the condition that makes it", kind="raises")
            if not self._batched_depth:
                return None
            if self.helper and not self.replayed:
                # its caller may call it under a per-example condition of its own, which
                # the helper cannot see: lanes that never call it would raise (`vectorize`
                # then replays the per-example loop, which decides: `replayed`)
                raise Unsupported("`raise` under a per-example condition in a function "
                                  "called from another", small,
                                  "check the condition in the function that is vectorized, "
                                  "or return a sentinel value (e.g. nan)", kind="raises")
            # some examples raise: the batch raises if any does (`guard_indices` writes
            # `if np.any(<the conditions here>): raise ...`), so the code after runs on
            # every lane only when none does
            self.lane_raises.append(small)
            raised = env.copy()
            raised.raised = True
            return raised
        if type(small) is cst.Assert:
            test = self.expr(small.test, env)
            if test.batched:
                raise Unsupported("`assert` on a per-example value", small,
                                  "check the whole batch outside the function")
            return env
        kind = type(small).__name__
        hints = {"Global": "pass the value as an argument and return the new value",
                 "Nonlocal": "pass the value as an argument and return the new value",
                 "Import": "import at module level", "ImportFrom": "import at module level",
                 "Del": "let the variable go out of scope instead"}
        raise Unsupported(f"`{_SYNTAX.get(kind, kind.lower())}` statements are not supported "
                          "in a vectorized function", small, hints.get(kind, "rewrite without it"))

    def _is_warning(self, node, env) -> bool:
        """Whether ``node`` calls `warnings.warn` or a `logging` function or logger method."""
        if type(node) is not cst.Call:
            return False
        try:
            fn = self.expr(node.func, env).example
        except Unsupported:
            return False
        owner = getattr(fn, "__self__", None)
        # (a logger exists only where `logging` was imported: not importing it here spares
        # every first transform the import)
        logging = sys.modules.get("logging")
        return fn is warnings.warn or getattr(fn, "__module__", None) == "logging" or (
            logging is not None and isinstance(owner, (logging.Logger, logging.LoggerAdapter)))

    def if_statement(self, stmt: cst.If, env: Env) -> Env | None:
        try:
            test = self.expr(stmt.test, env)
        except Unsupported:
            # `rho and fase and drho` with `fase=None`: None on some examples, but false on
            # every one: decided, and the test is not emitted (`python_conditions`)
            truth = self.chain_truth(stmt.test, env) if type(
                stmt.test) is cst.BooleanOperation else None
            if truth is None or self.decided.get(stmt, truth) is not truth:
                raise
            test = exact(truth)
        test = self.container_truth(test)
        self._truth(test, stmt.test)
        batched = test.batched
        self.batched_tests[stmt] = batched
        self.defined_before[stmt] = set(env.values) - env.unbound
        decided = self._decided(stmt, stmt.test, test)
        taken = decided if decided is not None else self._representative_truth(test)
        self._batched_depth += batched
        try:
            body_env = else_env = None
            if decided is not False:     # a branch that cannot run is not analysed
                body_env = self.block(stmt.body.body, env.copy(unreached=taken is False))
            if decided is not True:
                else_start = env.copy(unreached=taken is True)
                if stmt.orelse is None:
                    else_env = else_start
                elif type(stmt.orelse) is cst.If:
                    with self._reached(not else_start.unreached):
                        else_env = self.if_statement(stmt.orelse, else_start)
                else:
                    else_env = self.block(stmt.orelse.body.body, else_start)
        finally:
            self._batched_depth -= batched
        if batched and (body_env is None) != (else_env is None):
            self.batched_returns = True   # later returns only run on some lanes
            self._batched_depth += 1
        joined = join_envs(body_env, else_env, batched=batched, before=env, at=stmt,
                           written=frozenset(writes(stmt.body)
                                             | (writes(stmt.orelse) if stmt.orelse else set())))
        self.if_envs[stmt] = tuple(None if e is None or e.raised else dict(e.values)
                                   for e in (env, body_env, else_env, joined))
        return joined

    def _loop(self, stmt, env: Env, bind_target, masked: bool = False,
              endless: bool = False, nonempty: bool = False,
              unreached: bool = False, entered: bool = False) -> Env | None:
        """Fixed point over the loop body. A loop is *masked* when its lanes can leave it at
        different times (a batched test, or break/continue/return under a batched
        condition); then every variable it changes becomes batched. An *endless* loop
        (``while True:``) is left only by ``break`` (or ``return``), never at its head. A
        *nonempty* loop (over a constant, non-empty sequence) runs its body at least once, so
        what its body binds is bound after it. An *unreached* body is one Python does not
        enter for the arguments' representatives (`_reached`)."""
        frame = {"breaks": [], "continues": [], "depth": self._batched_depth,
                 "masked": masked, "node": stmt}
        self.defined_before_loop[stmt] = set(env.values) - env.unbound
        self.loop_entry[stmt] = dict(env.values)
        if masked:
            self.masked_loops.setdefault(stmt, stmt)
        self._loop_stack.append(frame)
        try:
            head = env
            written = frozenset(writes(stmt.body))
            for _ in range(50):
                was_masked = frame["masked"]
                frame["breaks"].clear()
                frame["continues"].clear()
                body_env = head.copy(unreached=unreached)
                with self._reached(not unreached):
                    bind_target(body_env)
                self._batched_depth += was_masked
                try:
                    out = self.block(stmt.body.body, body_env)
                finally:
                    self._batched_depth -= was_masked
                if out is not None and out.raised:
                    out = None          # every lane that gets there raises
                fell_through = out      # the end of the body, before `continue`s join it
                for cont in frame["continues"]:
                    out = join_envs(out, cont, batched=frame["masked"], before=head, at=stmt,
                                    written=written)
                new_head = (join_envs(head, out, batched=frame["masked"], before=head, at=stmt,
                                      written=written)
                            if out else head)
                if was_masked == frame["masked"] and all(
                        name in head.values and same(head.values[name], v)
                        for name, v in new_head.values.items()):
                    break
                head = new_head
            else:
                raise Unsupported("could not infer the types of the loop's variables", stmt)
        finally:
            self._loop_stack.pop()
        self.loop_head[stmt] = dict(head.values)
        self.loop_body_end[stmt] = None if fell_through is None else _bound_values(fell_through)
        self.loop_may_skip[stmt] = not (nonempty or endless)
        exit_env = None if endless else head
        if nonempty and not endless:
            if out is None:
                exit_env = None      # every pass through the body leaves it otherwise
            else:
                exit_env = head.copy()
                exit_env.unbound = (head.unbound & out.unbound) | (
                    set(head.values) - set(out.values))
        if (nonempty or entered) and exit_env is not None and out is not None:
            exit_env = _last_pass_kinds(exit_env, out)
        if getattr(stmt, "orelse", None) is not None:
            if frame["masked"]:
                raise Unsupported("a loop `else:` clause on a loop whose examples stop at "
                                  "different times", stmt,
                                  "set a flag before `break` and test it after the loop")
            if not endless:
                exit_env = self.block(stmt.orelse.body.body, head.copy())
        if (nonempty or entered or endless) and frame["masked"] and getattr(
                stmt, "orelse", None) is None and not self.python_semantics:
            # (a loop every lane runs in step rebinds its carries: `r = x * 3` is the array;
            # `vectorize` gives a result the type numpy.vectorize's first example takes)
            _last_pass_types_held(stmt, head, [] if endless or out is None else [out],
                                  frame["breaks"], self.loop_entry[stmt])
        for brk in frame["breaks"]:
            exit_env = join_envs(exit_env, brk, batched=frame["masked"], before=head, at=stmt,
                                 written=frozenset(writes(stmt.body)))
        self.loop_exit[stmt] = None if exit_env is None else dict(exit_env.values)
        return exit_env

    def _mask_enclosing_loop(self, node) -> bool:
        """A break/continue/return at this point: masks the innermost loop when the
        condition it sits under differs per example."""
        frame = self._loop_stack[-1]
        if self._batched_depth > frame["depth"]:
            frame["masked"] = True
            self.masked_loops.setdefault(frame["node"], node)
            return True
        return frame["masked"]

    def for_statement(self, stmt: cst.For, env: Env) -> Env | None:
        if _is_call_of(stmt.iter, ("enumerate",)) and len(stmt.iter.args) == 1 and not (
                stmt.iter.args[0].star or stmt.iter.args[0].keyword):
            inner = self.expr(stmt.iter.args[0].value, env)
            alike = uniform_items(inner) if isinstance(inner, TupleValue) else None
            if alike is not None and self.expr(stmt.iter.func, env).example is enumerate:
                # `for t, c in enumerate(cash_flows)` of `*cash_flows`: a Python loop
                pair = TupleValue((unbatched(0), alike))
                return self._loop(stmt, env, lambda e: self.bind(stmt.target, pair, e, stmt),
                                  nonempty=True)
        pair = self._zip_of_tuples(stmt, env)
        if pair is not None:
            # `for i, j in zip(M[0], t)` of a tuple of like per-example values `t` (and
            # numbers the same for every example): a Python loop over its pairs
            return self._loop(stmt, env, lambda e: self.bind(stmt.target, pair, e, stmt),
                              nonempty=True)
        if _is_call_of(stmt.iter, ("enumerate", "zip")):
            loop = _sequence_loop_of(stmt, lambda n: self.expr(n, env))
            if loop is not None:
                return self._sequence_loop(stmt, env, loop)
        iterable = self._range_of_batched(stmt.iter, env) or self.expr(stmt.iter, env)
        alike = uniform_items(iterable) if isinstance(iterable, TupleValue) else None
        if alike is not None:
            # a tuple of like per-example values (`for clo in layers` of `*layers`): a
            # Python loop over its items, each an array of the batch
            return self._loop(stmt, env, lambda e: self.bind(stmt.target, alike, e, stmt),
                              nonempty=True)
        if iterable.batched:
            call = stmt.iter
            is_range = (isinstance(call, cst.Call) and self.values.get(call.func) is not None
                        and self.values[call.func].example is range and not any(
                            a.keyword or a.star for a in call.args))
            if not is_range:
                return self._sequence_loop(stmt, env, _sequence_loop_of(
                    stmt, lambda n: self.expr(n, env)))
            element = batched_like(np.int64(0))
            return self._loop(stmt, env, lambda e: self.bind(stmt.target, element, e, stmt),
                              masked=True)
        element = unbatched(UNKNOWN)
        nonempty = empty = False
        if self._never_entered(stmt, iterable):
            # `for m in range(TISHRI, month)` with `month=7` (a helper specialized on it):
            # Python runs neither the body nor what it calls (the cycle of a mutual
            # recursion that stops there), so it is not analysed, and `python_conditions`
            # keeps only the `else`
            if stmt.orelse is not None:
                return self.block(stmt.orelse.body.body, env)
            return env
        if iterable.known:
            try:
                element = unbatched(next(iter(iterable.example)))
                nonempty = bool(iterable.exact)   # the same sequence on every call
            except StopIteration:
                element = unbatched(0 if isinstance(iterable.example, range) else UNKNOWN)
                empty = True
            except Exception:
                element = unbatched(UNKNOWN)
        return self._loop(stmt, env, lambda e: self.bind(stmt.target, element, e, stmt),
                          nonempty=nonempty, unreached=empty)

    def _never_entered(self, stmt: cst.For, iterable) -> bool:
        """Whether the loop runs over a sequence that is empty on every call of this
        specialization (an exact, empty ``range``, tuple or list): decided (`_decided`)."""
        entered = None      # (as a `while`'s: False where never entered)
        if not iterable.batched and iterable.exact and isinstance(
                iterable.example, (range, tuple, list)) and not any(
                type(n) is cst.NamedExpr for n in walk(stmt.iter)) and \
                len(iterable.example) == 0:
            entered = False
        previous = self.decided.get(stmt, entered)
        self.decided[stmt] = entered if previous is entered else None
        return entered is False

    def _zip_of_tuples(self, stmt: cst.For, env: Env):
        """``zip(a, b, ...)`` of tuples of like per-example values (`uniform_items`: a tuple
        display, ``*args``) and lists or tuples of numbers the same for every example, at
        least one of each kind, none empty: the abstract pair each step binds (the tuple's
        item, a number of the list's type), else None."""
        it = stmt.iter
        if not (_is_call_of(it, ("zip",)) and it.args and not any(
                a.keyword or a.star for a in it.args)) or self.expr(
                it.func, env).example is not zip:
            return None
        items = []
        for arg in it.args:
            value = self.expr(arg.value, env)
            alike = uniform_items(value) if isinstance(value, TupleValue) else None
            if alike is not None:
                items.append(alike)
            elif isinstance(value, Value) and not value.batched and value.known and \
                    _number_sequence(value.example) and value.example and len(
                        {type(v) for v in value.example}) == 1:
                items.append(unbatched(value.example[0]))
            else:
                return None
        if not any(v.batched for v in items):
            return None
        return TupleValue(tuple(items))

    def _sequence_loop(self, stmt: cst.For, env: Env, loop) -> Env | None:
        """``for e in v`` over a per-example array (``enumerate(v)``, ``zip(v, w)`` of
        arrays): every example has the same length (the batch has one shape), so it is a
        loop over ``range(len(v))`` that binds ``e = v[i]``; `passes/sequence_loops.py`
        writes it so. Here its body is analysed as that loop would be."""
        if loop is None:
            seq = self.expr(stmt.iter, env)
            if isinstance(seq, TupleValue) and seq.keys is None and seq.kind in (
                    None, tuple, list) and 0 < len(seq.items) <= UNROLLED_ITEMS:
                # (`transform` retries with the loop written out, item by item)
                raise UnrolledLoop("a `for` loop over a tuple or list of per-example values",
                                   stmt.iter, "loop over `range(len(v))` and index `v[i]`",
                                   length=len(seq.items))
            raise Unsupported("a `for` loop over a per-example sequence that is not an array "
                              "(or `enumerate`/`zip` of arrays) is not supported yet",
                              stmt.iter, "loop over `range(len(v))` and index `v[i]`")
        lengths = [np.shape(v.example)[0] for v in loop.values]
        length = min(lengths)
        self.sequence_loops[stmt] = loop

        def bind(e):
            if loop.index is not None:
                self.bind(loop.index, unbatched(np.int64(0)), e, stmt)
            for target, value in zip(loop.targets, loop.values):
                element = (value.example[0] if type(value.example) in (list, tuple)
                           else np.asarray(value.example)[0]) if length else UNKNOWN
                element = element[()] if isinstance(element, np.ndarray) and \
                    element.ndim == 0 else element
                self.bind(target, batched_like(element) if value.batched
                          else unbatched(element), e, stmt)
        return self._loop(stmt, env, bind, nonempty=length > 0, unreached=length == 0)

    def _range_of_batched(self, node, env: Env):
        """``range(...)`` with per-example bounds: a batched iterable (a masked loop)."""
        if not (isinstance(node, cst.Call) and 1 <= len(node.args) <= 3
                and not any(a.keyword or a.star for a in node.args)):
            return None
        func = self.expr(node.func, env)
        if func.batched or func.example is not range:
            return None
        args = [self.expr(a.value, env) for a in node.args]
        if not any(a.batched for a in args):
            return None
        for a in args:
            if a.kind not in "iub" or isinstance(a, TupleValue):
                raise Unsupported("`range` of a per-example value that is not an integer",
                                  node, "convert the bound with int()")
        value = Value(True, UNKNOWN)
        self.values[node] = value
        return value

    def while_statement(self, stmt: cst.While, env: Env) -> Env | None:
        test = self.container_truth(self.expr(stmt.test, env))
        self._truth(test, stmt.test)
        self.batched_tests[stmt] = test.batched
        if self._decided(stmt, stmt.test, test) is False:   # never entered
            if stmt.orelse is not None:
                return self.block(stmt.orelse.body.body, env)
            return env

        def retest(e):
            if self.expr(stmt.test, e).batched and not self._loop_stack[-1]["masked"]:
                self.batched_tests[stmt] = True
                self._loop_stack[-1]["masked"] = True
                self.masked_loops.setdefault(stmt, stmt.test)
        entered = self.short_circuits.get(stmt.test, self._representative_truth(test))
        return self._loop(stmt, env, retest, masked=test.batched,
                          endless=_always_true(test, stmt), unreached=entered is False,
                          entered=not test.batched and test.exact and entered is True)

    def bind(self, target, value, env: Env, stmt) -> None:
        if isinstance(target, cst.Name):
            env.assign(target.value, value)
            self.values[target] = value
            return
        if isinstance(target, (cst.Tuple, cst.List)):
            elements = target.elements
            if self._statement_raises and not isinstance(value, TupleValue):
                # the value is `raised_for_every_example`'s placeholder (`q, r = divmod(3.0,
                # 0.0)`): no example gets to bind it, so its targets get placeholders too
                for element in elements:   # (`Element` and `StarredElement` alike)
                    self.bind(element.value, value, env, stmt)
                return
            if any(isinstance(e, cst.StarredElement) for e in elements):
                self._bind_starred(target, value, env, stmt)
                return
            if isinstance(value, TupleValue):
                items = value.items
            elif not value.batched and value.known:
                try:
                    items = [unbatched(v) for v in value.example]
                except TypeError:
                    raise Unsupported("cannot unpack this value", target) from None
            elif not value.batched:
                items = [unbatched(UNKNOWN)] * len(elements)
            elif value.rank == 1 and value.known and isinstance(value.example, np.ndarray):
                # a per-example vector (`a, b, c = COEF[k]`): its columns (`batch_rules`)
                items = [batched_like(v) for v in value.example]
            else:
                raise Unsupported("unpacking a per-example array into variables is not "
                                  "supported yet", target, "index it explicitly")
            if len(items) != len(elements):
                raise Unsupported(f"cannot unpack {len(items)} values into {len(elements)} "
                                  "targets", target)
            for element, item in zip(elements, items):
                self.bind(element.value, item, env, stmt)
            self.values[target] = value
            return
        if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
            self.item_write(target, value, env, written=getattr(stmt, "value", None))
            return
        raise Unsupported("assigning into an object (item or attribute assignment) is a side "
                          "effect the batch cannot repeat per example", target,
                          "build a new value and return it")

    def _bind_starred(self, target, value, env: Env, stmt) -> None:
        """``h, *rest = (a, b, c)`` of a tuple whose items the analysis tracks (a display, a
        tuple returned by a helper, a constant): Python's own unpacking runs in the
        generated code on the tuple of arrays, so ``rest`` is the list of the items the
        starred name takes, each a per-example value (a list of them, as a list display
        makes). A per-example array unpacked by rows is not a tuple here: refused."""
        elements = target.elements
        star = next(k for k, e in enumerate(elements) if isinstance(e, cst.StarredElement))
        if type(stmt) is not cst.Assign:
            raise Unsupported("starred targets outside an assignment", target,
                              "unpack explicitly")
        if isinstance(value, TupleValue) and value.kind in (None, list):
            items = list(value.items)
        elif not value.batched and value.known and isinstance(value.example, (tuple, list)):
            items = [unbatched(v) for v in value.example]
        else:
            raise Unsupported("starred assignment targets of a value that is not a tuple of "
                              "a length the analysis knows", target, "unpack explicitly")
        after = len(elements) - star - 1
        if len(items) < len(elements) - 1:
            raise Unsupported(f"cannot unpack {len(items)} values into {len(elements) - 1} "
                              "targets and a starred one", target)
        rest = items[star:len(items) - after]
        for element, item in zip(elements[:star], items[:star]):
            self.bind(element.value, item, env, stmt)
        starred = elements[star].value
        if any(i.batched for i in rest):
            self.bind(starred, TupleValue(tuple(rest), kind=list), env, stmt)
        else:
            self.bind(starred, unbatched([i.example for i in rest],
                                         all(getattr(i, "exact", False) for i in rest))
                      if all(i.known for i in rest) else unbatched(UNKNOWN), env, stmt)
        for element, item in zip(elements[star + 1:], items[len(items) - after:]):
            self.bind(element.value, item, env, stmt)
        self.values[target] = value

    def _users_name(self, name: str) -> bool:
        """Whether ``name`` is in the user's source (not made by a pass)."""
        if self._user_names is None:
            from ..liveness import all_names
            self._user_names = all_names(self.source.tree)
        return name in self._user_names


class SequenceLoop:
    """``for <targets> in <sequences>``: ``index`` the user's name for the position (the
    first target of ``enumerate``), or None; one target per sequence; ``sequences`` the
    iterable expressions (nodes of the user's tree), ``values`` their abstract values."""

    __slots__ = ("index", "targets", "sequences", "values")

    def __init__(self, index, targets: list, sequences: list, values: list):
        self.index, self.targets, self.sequences, self.values = index, targets, sequences, values


def _is_call_of(node, names) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and \
        node.func.value in names


def _sequence_loop_of(stmt: cst.For, evaluate) -> SequenceLoop | None:
    """The loop as a `SequenceLoop` where every sequence is an array (at least one of them
    per example) of rank >= 1, else None."""
    it, target = stmt.iter, stmt.target
    index, targets, sequences = None, [target], [it]
    if isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.args and not any(
            a.keyword or a.star for a in it.args):
        builtin = it.func.value
        func = evaluate(it.func) if builtin in ("enumerate", "zip") else None
        if builtin == "enumerate" and len(it.args) == 1 and func is not None \
                and func.example is enumerate and isinstance(target, cst.Tuple) \
                and len(target.elements) == 2 and not any(
                    isinstance(e, cst.StarredElement) for e in target.elements):
            index = target.elements[0].value
            targets, sequences = [target.elements[1].value], [it.args[0].value]
        elif builtin == "zip" and func is not None and func.example is zip and \
                isinstance(target, cst.Tuple) and len(target.elements) == len(it.args) \
                and not any(isinstance(e, cst.StarredElement) for e in target.elements):
            targets = [e.value for e in target.elements]
            sequences = [a.value for a in it.args]
    if index is not None and not isinstance(index, cst.Name):
        return None
    seq_values = [evaluate(s) for s in sequences]
    if not any(v.batched for v in seq_values) or any(
            isinstance(v, TupleValue) or not v.known or not (isinstance(
                v.example, (np.ndarray, np.generic)) and np.ndim(v.example) >= 1 or
                not v.batched and _number_sequence(v.example))
            for v in seq_values):
        return None
    return SequenceLoop(index, targets, sequences, seq_values)


def _number_sequence(example) -> bool:
    """A list or tuple of numbers the same for every example (a row of a module-level
    matrix, ``zip(M[0], v)`` beside a per-example array ``v``): indexed by the loop's
    position as it is (`passes.sequence_loops`), its items Python's numbers."""
    return type(example) in (list, tuple) and all(
        type(item) in (int, float, bool) for item in example)


def _no_int_beyond_int64_returned(returns) -> None:
    """A returned Python int the same for every example and beyond int64 (``return
    math.ceil(1e300 // -1)``), where no array holds one (`Backend.big_int_results`, PyTorch):
    the per-example loop's stacking would raise; refused, located."""
    def leaves(value):
        if isinstance(value, TupleValue):
            for item in value.items:
                yield from leaves(item)
        elif isinstance(value, Value):
            yield value
    for ret, value in returns:
        for leaf in leaves(value):
            if not leaf.batched and leaf.exact and type(leaf.example) is int and not (
                    -2 ** 63 <= leaf.example < 2 ** 63):
                raise Unsupported("the function returns a Python int beyond int64 (the same "
                                  f"for every example, {len(str(abs(leaf.example)))} digits)"
                                  ": no tensor or jax.Array holds it, so stacking the "
                                  "per-example results raises", ret.value or ret,
                                  "return it as a float (float(...)), or keep it in range",
                                  kind="raises")


UNROLLED_ITEMS = 16
"""Items of a tuple or list of per-example values a `for` loop over it is written out for."""


class UnrolledLoop(Unsupported):
    """``for d in seq`` over a tuple or list of ``length`` per-example values (a helper's
    list of dicts): `transform` retries with the loop written out (`body_sugar.unroll_items`);
    ``node`` is the loop's iterable."""

    def __init__(self, message, node=None, suggestion="", *, length: int):
        super().__init__(message, node, suggestion)
        self.length = length


def _no_record_returned(returns) -> None:
    """An instance of a small class of the user's made from per-example values
    (`body_constructs.classes`) returned by the mapped function: the batch has one instance
    of fields that are arrays, where the loop has one instance per example."""
    def records(value):
        if isinstance(value, TupleValue):
            if is_record(value.kind):
                yield value
            for item in value.items:
                yield from records(item)
    for ret, value in returns:
        for record in records(value):
            cls = record_of(record.kind)
            raise Unsupported(f"returning an instance of `{cls.__name__}` made from "
                              "per-example values: the loop makes one per example",
                              ret, "return its fields (or a float of it)")


def _numpy_vectorize_outputs(returns) -> None:
    """Under numpy.vectorize's contract a returned tuple (a namedtuple too) is one output
    per item, and anything else is one value per example: a dict or list display (an object
    array of them in numpy.vectorize, or its ValueError storing a sequence), or a tuple
    inside the tuple, is refused rather than returned as several outputs."""
    for ret, value in returns:
        if not isinstance(value, TupleValue):
            if isinstance(value, Value) and isinstance(value.example, tuple):
                # (a tuple made by `+`, `*` or a call: its length and items not tracked)
                raise Unsupported("returning a tuple whose items the engine does not track: "
                                  "numpy.vectorize returns one output per item of a returned "
                                  "tuple", ret, "return a tuple display, `return a, b`")
            continue
        if len(value.items) == 1 and (value.kind is None or value.kind is tuple):
            raise Unsupported("returning a tuple of one item: numpy.vectorize makes it one "
                              "output and raises storing the tuple as a number (ValueError)",
                              ret, "return the item itself", kind="raises")
        container = value.kind is not None and not issubclass(value.kind, tuple)
        if container or any(isinstance(i, TupleValue) for i in value.items):
            what = f"a {value.kind.__name__}" if container else "a tuple inside a tuple"
            raise Unsupported(f"returning {what}: numpy.vectorize returns one output per "
                              "item of a returned tuple, and an object array of anything "
                              "else (or its ValueError storing a sequence)",
                              ret, "return a flat tuple of numbers (one output each), or use "
                                   "vmap, which returns containers as they are")


def _last_pass_kinds(exit_env: Env, out: Env) -> Env:
    """``exit_env`` of a loop every example runs at least once: a carry that the loop's
    head joins from different kinds of number (`abstract.MIXED_KINDS`: `s = 0`, then
    `s += x`) is, per example, the kind of the body's last pass (float), not mixed."""
    fixed = None
    for name, value in exit_env.values.items():
        last = out.values.get(name)
        if value in MIXED_KINDS and isinstance(last, Value) and last not in MIXED_KINDS \
                and last not in MIXED_PARTS \
                and not mixed_kinds(value.example, last.example) and not (
                    EXAMPLE_SEMANTICS.get() is not None and mixed_lane_types(
                        value.example, last.example)):
            # (PyTorch: an int32 joined with the last pass's int16 is no int16 per example)
            fixed = fixed or exit_env.copy()
            fixed.values[name] = Value(value.batched, value.example, value.exact)
    return fixed or exit_env


class RetypedCarry(Unsupported):
    """A carry every example leaves a loop with as a Python int, never reading the int tensor
    it held before the loop (`_last_pass_types_held`, PyTorch): `transform` retries with
    ``name = 0`` before ``loop`` (`body_sugar.int_before_loop`), so that the batch holds it
    as the loop's examples do (int64), not in the join with the tensor's dtype."""

    def __init__(self, message, node=None, suggestion="", *, name: str, loop):
        super().__init__(message, node, suggestion)
        self.name = name
        self.loop = loop


def _loop_reads(stmt) -> set[str]:
    """The names a loop reads before it assigns them: its body's exposed reads, its test (a
    ``while``, read before every pass) and what a ``for`` iterates over."""
    out = set(exposed_reads(stmt.body.body))
    if type(stmt) is cst.While:
        out |= reads(stmt.test)
    elif type(stmt) is cst.For:
        out |= reads(stmt.iter)
    return out


def _last_pass_types_held(stmt, head: Env, passes: list, breaks: list,
                          entry_values: dict) -> None:
    """A masked loop every example runs at least once: where every way out of it (the end
    of a pass, each `break`) leaves a carry of one type, that is its type per example; the
    batch holds the join with its value before the loop (`r = np.float32(y)`, then `r = -x` of a
    uint64 in the loop: float64), refused where that cannot hold the values exactly
    (a uint64 in a float64)."""
    ways = [e for e in passes + breaks if e is not None and not e.raised]
    if not ways:
        return
    for name, joined in head.values.items():
        if not isinstance(joined, Value) or not joined.batched or not joined.known or \
                number_kind(joined.example) is None:
            continue
        lasts = [e.values.get(name) for e in ways]
        if not all(isinstance(v, Value) and v.known and v not in MIXED_KINDS and
                   number_kind(v.example) is not None and np.ndim(v.example) == np.ndim(
                       joined.example) for v in lasts):
            continue
        dtypes = {getattr(v.example, "dtype", None) or np.asarray(v.example).dtype
                  for v in lasts}
        held = getattr(joined.example, "dtype", None) or np.asarray(joined.example).dtype
        if len(dtypes) != 1:
            continue
        (last,) = dtypes
        if last == held or _holds_exactly(held, last) or all(
                not v.batched and v.exact and _fits_exactly(v.example, held) for v in lasts):
            continue        # (`r = 128` of a float16 `r`: the joined type holds it)
        entry = entry_values.get(name)
        if getattr(EXAMPLE_SEMANTICS.get(), "weak", False) and all(
                type(v.example) is int for v in lasts) and isinstance(entry, Value) and \
                entry.batched and entry.kind in "biu" and np.ndim(entry.example) == 0 and \
                name not in _loop_reads(stmt):
            # (PyTorch: every example leaves with a Python int and never reads what the
            # carry held before: `transform` makes it one before the loop, `r = 0`)
            raise RetypedCarry(
                f"`{name}` changes type in a loop every example runs at least once: each "
                f"example leaves the loop with the Python int its last pass gives, the batch "
                f"holds the join with its {held} before the loop", stmt,
                f"give `{name}` a Python int before the loop (`{name} = 0`)",
                name=name, loop=stmt)
        raise Unsupported(
            f"`{name}` changes type in a loop every example runs at least once: each example "
            f"leaves the loop with the {last} its last pass gives, while the batch holds the "
            f"join with its value before the loop ({held}), which does not hold every {last} "
            "exactly", stmt,
            f"give `{name}` the loop's type before the loop (e.g. `{name} = np.{last}(...)`), "
            "or convert what the loop assigns to the type it has before")


def _fits_exactly(number, dtype) -> bool:
    """Whether the number ``number`` converts to ``dtype`` and back unchanged."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = np.asarray(number)
            return a.dtype.kind in "biufc" and bool(np.array_equal(
                a.astype(dtype).astype(a.dtype), a, equal_nan=a.dtype.kind in "fc"))
    except (TypeError, ValueError, OverflowError):
        return False


def _holds_exactly(wide, narrow) -> bool:
    """Whether every value of dtype ``narrow`` is a value of dtype ``wide``."""
    wide, narrow = np.dtype(wide), np.dtype(narrow)
    if narrow.kind == "b":
        return True
    if narrow.kind in "iu":
        if wide.kind in "iu":
            return bool(np.can_cast(narrow, wide, "safe"))
        if wide.kind in "fc":
            bits = narrow.itemsize * 8 - (narrow.kind == "i")
            return bits <= np.finfo(wide).nmant + 1
        return False
    if narrow.kind in "fc" and wide.kind in "fc":
        return bool(np.can_cast(narrow, wide, "safe"))
    return False


def _none_value(value) -> bool:
    return not isinstance(value, TupleValue) and not value.batched and value.known \
        and value.example is None


def _returns_none(tree) -> bool:
    """Whether the function ``tree`` has a ``return`` / ``return None`` of its own."""
    if tree is None:
        return False
    found = []

    class Find(cst.CSTVisitor):
        def visit_FunctionDef(self, node):
            return node is tree

        def visit_Lambda(self, node):
            return False

        def visit_Return(self, node):
            if node.value is None or type(node.value) is cst.Name and node.value.value == "None":
                found.append(node)

    tree.visit(Find())
    return bool(found)
