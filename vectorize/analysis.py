"""Batchedness, per-example rank and dtype of every value: an abstract interpreter.

Assumes: a ``FunctionDef`` in scalar style and the abstract values of its parameters.
Guarantees: ``values[node]`` for every expression evaluated, ``batched_tests`` for every
``if``/``while`` test, the abstract ``result``, the free names read (for cache guards), and
`Unsupported` (with the node at fault) for anything the engine cannot translate faithfully.
It never rewrites: passes recompute it after they change the tree.

A variable assigned under a batched condition becomes batched at the join (it differs per
lane); loops are analysed to a fixed point.
"""

from __future__ import annotations

import ast
import contextlib
import contextvars
import types
import weakref

import libcst as cst
import numpy as np

from . import backends
from .abstract import (
    UNKNOWN,
    TupleValue,
    Value,
    all_exact,
    batched_like,
    exact,
    join,
    same,
    unbatched,
)
from .errors import Unsupported
from .liveness import target_names, writes
from .rules.lanes import ENGINE_NAMES
from .rules.random import infer as random_infer
from .rules.random import random_name
from .rules.registry import Registry, Site, default_infer
from .syntax.edit import AUGMENTED_TO_BINARY
from .syntax.printer import code
from .syntax.traversal import children, walk

CREATION_FUNCTIONS = {np.zeros, np.ones, np.empty, np.full, np.zeros_like, np.ones_like,
                      np.empty_like, np.full_like, np.arange, np.linspace, np.eye, np.identity,
                      np.array, np.copy}

PURE_BUILTINS = {len, range, int, float, bool, abs, min, max, round, tuple, list, sum, complex,
                 str, divmod, pow, isinstance, sorted, reversed, enumerate, zip, type}
_CONSTANTS = {"True": True, "False": False, "None": None}
# the value of a number literal, as `ast.literal_eval` gives it (without parsing it again)
_NUMBERS = {cst.Integer: lambda text: int(text, 0), cst.Float: float, cst.Imaginary: complex}

import operator as _op  # noqa: E402

BINARY_FUNCS = {cst.Add: _op.add, cst.Subtract: _op.sub, cst.Multiply: _op.mul,
                cst.Divide: _op.truediv, cst.FloorDivide: _op.floordiv, cst.Modulo: _op.mod,
                cst.Power: _op.pow, cst.BitAnd: _op.and_, cst.BitOr: _op.or_,
                cst.BitXor: _op.xor, cst.LeftShift: _op.lshift, cst.RightShift: _op.rshift,
                cst.MatrixMultiply: _op.matmul}
COMPARE_FUNCS = {cst.LessThan: _op.lt, cst.LessThanEqual: _op.le, cst.GreaterThan: _op.gt,
                 cst.GreaterThanEqual: _op.ge, cst.Equal: _op.eq, cst.NotEqual: _op.ne,
                 cst.Is: _op.is_, cst.IsNot: _op.is_not}
UNARY_FUNCS = {cst.Minus: _op.neg, cst.Plus: _op.pos, cst.BitInvert: _op.invert,
               cst.Not: _op.not_}


class Env:
    """Abstract values of the local variables at one program point."""

    def __init__(self, values=None, unbound=None, unreached: bool = False):
        self.values: dict[str, object] = dict(values or {})
        self.unbound: set[str] = set(unbound or ())   # bound on some paths only
        # a path the arguments' representatives do not take (`Analysis._reached`)
        self.unreached = unreached
        # a path that ended in a `raise` some examples reach (`Analysis.lane_raises`): the
        # batch raises if any example gets there, so the code after continues on every lane
        # (it is no exit that makes lanes differ), with no values from this path
        self.raised = False

    def copy(self, unreached: bool = False) -> Env:
        return Env(self.values, self.unbound, self.unreached or unreached)

    def assign(self, name: str, value) -> None:
        self.values[name] = value
        self.unbound.discard(name)


def join_envs(a: Env | None, b: Env | None, *, batched: bool, before: Env,
              written: frozenset[str] = frozenset(), at=None) -> Env | None:
    """The values after two paths meet. Under a batched condition a changed variable becomes
    batched; so does every name the paths ``written`` assign, even to the value it had
    (``a, b = b, a`` twice): the passes merge assigned names with ``np.where``, so the two
    values must have a common type (refused at ``at`` otherwise)."""
    if a is None or a.raised and b is not None:
        return b
    if b is None or b.raised:
        return a
    out = Env()
    for name in set(a.values) | set(b.values):
        if name in a.values and name in b.values:
            va, vb = a.values[name], b.values[name]
            changed = va is not vb or name in written
            if batched and changed:
                _no_per_example_choice_between(va, vb, f"`{name}` holds", at)
            out.values[name] = join(va, vb, force_batched=batched and changed) if changed else va
        else:
            out.values[name] = a.values.get(name, b.values.get(name))
            out.unbound.add(name)
    out.unbound |= a.unbound | b.unbound
    out.unreached = a.unreached and b.unreached
    return out


#: whether a per-example choice between values of different shapes is refused: in the
#: user's code (the per-example results would not make one array; broadcasting one against
#: the other would give the number's lanes a vector), not in what passes made of it (a
#: number placeholder before a loop that returns vectors, `masked_loops`)
_PER_EXAMPLE_SHAPES: contextvars.ContextVar = contextvars.ContextVar("per_example_shapes",
                                                                     default=False)


def _shape_phrase(example) -> str:
    shape = np.shape(example)
    return "a number" if not shape else f"an array of shape {shape}"


def _no_per_example_choice_between(a, b, what: str, at) -> None:
    """Two values that differ per example end up in one array (`join` under a per-example
    condition): a tuple and a single value, tuples of different lengths, or values with no
    common dtype (a string and a number) cannot."""
    if isinstance(a, TupleValue) or isinstance(b, TupleValue):
        if isinstance(a, TupleValue) and isinstance(b, TupleValue):
            if len(a.items) == len(b.items):
                for x, y in zip(a.items, b.items):
                    _no_per_example_choice_between(x, y, what, at)
                return
            problem = "tuples of different lengths"
        else:
            problem = "a tuple on some paths and a single value on others"
    elif a.known and b.known and np.shape(a.example) != np.shape(b.example) \
            and _PER_EXAMPLE_SHAPES.get() and type(at) not in (cst.For, cst.While):
        # (a loop's carry that changes shape is refused where it is written, `batch_rules`)
        problem = (f"values of different shapes ({_shape_phrase(a.example)} and "
                   f"{_shape_phrase(b.example)})")
    elif a.known and b.known and a.example is not b.example:
        kinds = {np.asarray(a.example).dtype.kind, np.asarray(b.example).dtype.kind}
        try:
            dtype = np.result_type(np.asarray(a.example), np.asarray(b.example))
        except Exception:
            dtype = np.dtype(object)
        # a string and a number: np.array of the results makes strings of the numbers,
        # np.where refuses to
        if dtype.kind != "O" and not (kinds & set("USO") and len(kinds) > 1):
            return
        problem = (f"values of kinds that do not mix in one array ({type(a.example).__name__} "
                   f"and {type(b.example).__name__})")
    else:
        return
    raise Unsupported(f"{what} {problem}, depending on a per-example condition: the batch "
                      "cannot hold both in one array", at,
                      "return (or assign) values of one kind and shape on every path, e.g. "
                      "a number code instead of a string, np.zeros_like(v) instead of 0.0, "
                      "or tuples of the same length")


class _LoopExit(Exception):
    pass


class Analysis:
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
        self.fallback_calls: dict[cst.Call, str] = {}
        self.helper_calls: dict[cst.Call, object] = {}
        self.method_calls: dict[cst.Call, object] = {}     # x.method(...) on batched x
        self.random_calls: dict[cst.Call, str] = {}        # draws, one per example
        self.owned: set[str] = set()          # arrays this function created (may be written)
        self._user_names: set[str] | None = None
        self.math_in_branches: set[cst.Call] = set()   # math.f(unbatched) under batched ifs
        self.promoted: set[str] = set(promoted or ())   # created arrays holding batched data
        self.promoted_creations: dict[cst.Call, str] = {}
        self.needs_rerun = False
        self.returns_in_loops = False
        self.masked_loops: dict[cst.CSTNode, cst.CSTNode] = {}   # loop -> node that masks it
        self.batched_returns = False   # some return depends on a batched condition
        self.lane_raises: list[cst.Raise] = []   # raise under a per-example condition
        # `y[0]` of a per-example array: a scalar (a copy) per example, a view on the batch
        self._scalar_reads: dict[cst.Subscript, str] = {}
        self._bound_scalar_reads: list = []     # (names bound, those reads, the assignment)
        self.copied_reads: set[cst.Subscript] = set()   # ... that must be copies
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

    # ------------------------------------------------------------------------- statements
    def analyze(self) -> Analysis:
        """Interpret the function; again from the start when it found arrays that must hold
        per-example data from their creation on (their creation is then batched)."""
        for _ in range(8):
            fresh = Analysis(self.source, self.tree, self.params, self.registry, self.helpers,
                             self.allow_fallback, self.promoted, self.speculative, self.helper)
            # operations on examples stand for every lane's: their floating-point errors
            # (1 / 0.0 on a representative) say nothing, and are ignored throughout
            with np.errstate(all="ignore"), self.registry.backend.analysing():
                fresh._interpret()
            if not fresh.needs_rerun:
                self.__dict__.update(fresh.__dict__)
                return self
            self.promoted |= fresh.promoted
        raise Unsupported("could not settle which arrays hold per-example data", self.tree)

    def _interpret(self) -> None:
        env = Env(self.params)
        users = self.tree is getattr(self.source, "tree", None)
        token = _PER_EXAMPLE_SHAPES.set(users)
        try:
            self._interpret_body(env)
        finally:
            _PER_EXAMPLE_SHAPES.reset(token)
        return self

    def _interpret_body(self, env) -> None:
        end = self.block(self.tree.body.body, env)
        self._copy_scalar_reads()
        if end is not None and not end.raised and self.batched_returns \
                and self.tree is getattr(self.source, "tree", None):   # the user's code
            self._no_fall_off_on_some_lanes()
        if not self.returns:
            self.result = unbatched(None)
        else:
            result = self.returns[0][1]
            for ret, value in self.returns[1:]:
                if self.batched_returns:
                    _no_per_example_choice_between(result, value, "returns", ret)
                result = join(result, value, force_batched=self.batched_returns)
            if self.batched_returns and not isinstance(result, TupleValue):
                result = join(result, result, force_batched=True)
            self.result = result
        return None

    def _bind_scalar_reads(self, small: cst.Assign) -> None:
        """Remember the names ``a = y[0]`` binds to a per-example scalar read from the
        per-example array ``y`` by basic indexing (also through a conditional expression,
        ``and``/``or`` or a tuple display)."""
        reads = [n for n in _held(small.value) if n in self._scalar_reads]
        if reads:
            names = {t for target in small.targets for t in target_names(target.target)}
            self._bound_scalar_reads.append((names, reads, small))

    def _copy_scalar_reads(self) -> None:
        """``a = y[0]`` is a NumPy scalar per example, a copy of the element; on the batch
        ``y[:, 0]`` is a view, which a later write into ``y`` (``y[0] += v``) would change.
        Such reads whose name may still be read after such a write (later in the code, or
        in a loop around both) are copied (`copied_reads`: ``y[:, 0].copy()``); ``a =
        y[1:]`` is a view per example too, and stays one."""
        if not self._bound_scalar_reads:
            return
        writes_into: dict[str, list] = {}
        for n in walk(self.tree.body):
            if type(n) is cst.Assign:
                targets = [t.target for t in n.targets]
            elif type(n) is cst.AugAssign:
                targets = [n.target]
            else:
                continue
            for t in targets:
                if type(t) is cst.Subscript and type(t.value) is cst.Name:
                    writes_into.setdefault(t.value.value, []).append(n)
        if not writes_into:
            return
        if self._aliases is None:
            self._init_aliases()
        for names, reads, small in self._bound_scalar_reads:
            index, loops, _ = self._where.get(id(small), (0, frozenset(), ()))
            for node in reads:
                for write in writes_into.get(self._scalar_reads[node], ()):
                    at, around, _ = self._where.get(id(write), (0, frozenset(), ()))
                    if (at > index or around & loops) and names & self._live.get(write,
                                                                                    set()):
                        self.copied_reads.add(node)

    def _no_fall_off_on_some_lanes(self) -> None:
        """Examples that reach the end of the function get None, those that return get their
        value: refused where some examples return a value and others may fall off the end
        (an ``if``/``elif`` without ``else`` before it)."""
        body = self.tree.body.body
        if not body or not _may_fall_off(body) or all(
                r.value is None or _is_none(r.value) for r, _ in self.returns):
            return
        name = self.tree.name.value
        raise Unsupported(f"`{name}` does not return a value on every path: examples for "
                          f"which no `return` runs get None", body[-1],
                          f"end `{name}` with a `return` for those examples (e.g. "
                          f"`return 0.0`)" + (", or give the last `if` an `else:` that "
                                              "returns" if type(body[-1]) is cst.If else ""))

    def block(self, stmts, env: Env) -> Env | None:
        for stmt in stmts:
            with self._reached(not env.unreached):
                env = self.statement(stmt, env)
            if env is None or env.raised:
                return env
        return env

    def statement(self, stmt, env: Env) -> Env | None:
        # (exact types, here and below: isinstance on libcst's classes is slow)
        if type(stmt) is cst.SimpleStatementLine:
            for small in stmt.body:
                env = self.small_statement(small, env)
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
            value = self.expr(small.value, env)
            self._bind_scalar_reads(small)
            created = self._created_array(small.value)
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
                            self.promoted_creations[small.value] = name
                    elif type(small.value) is cst.Name and small.value.value in self.owned \
                            and self._users_name(name):
                        # (the engine's own copies, `result = out` for `return out`, are
                        # merged or read once the array is no longer written)
                        raise Unsupported(f"`{name} = {small.value.value}` makes two names for "
                                          "one array that is written into", small,
                                          f"use {small.value.value}.copy()")
                    else:
                        self.owned.discard(name)
                self.bind(target.target, value, env, small)
            return env
        if type(small) is cst.AnnAssign:
            if small.value is not None:
                self.bind(small.target, self.expr(small.value, env), env, small)
            return env
        if type(small) is cst.AugAssign:
            if isinstance(small.target, cst.Subscript) and isinstance(small.target.value,
                                                                      cst.Name):
                value = self.binary(small.operator, small.target, small.value, env, small)
                self.item_write(small.target, value, env)
                return env
            if not isinstance(small.target, cst.Name):
                raise Unsupported("augmented assignment into an object changes it in place (a "
                                  "side effect the batch cannot repeat per example)", small,
                                  "compute a new local value instead")
            self._no_update_of_a_shared_array(small, env)
            self._no_aliased_update(small, env)
            value = self.binary(small.operator, small.target, small.value, env, small)
            self.bind(small.target, value, env, small)
            self.values[small.target] = value
            return env
        if type(small) is cst.Expr:
            side_effect = Unsupported("a call whose result is thrown away is a side effect on "
                                      "per-example values", small,
                                      "return the value instead of printing or storing it")
            try:
                self.expr(small.value, env)
            except Unsupported:
                if isinstance(small.value, cst.Call) and self._any_batched_input(small.value):
                    raise side_effect from None
                raise
            if isinstance(small.value, cst.Call) and self._any_batched_input(small.value):
                raise side_effect
            return env
        if type(small) is cst.Return:
            value = self.expr(small.value, env) if small.value is not None else unbatched(None)
            if self._loop_stack:
                self.returns_in_loops = True
                if self._mask_enclosing_loop(small):
                    for frame in self._loop_stack:   # the lane leaves every enclosing loop
                        frame["masked"] = True
                        self.masked_loops.setdefault(frame["node"], small)
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
                parts = [self.expr(p, env) for p in (small.exc, small.cause) if p is not None]
            finally:
                self._exception_of_one_example -= bool(self._batched_depth)
            if any(p.batched for p in parts):
                raise Unsupported("the exception raised is made from per-example values, "
                                  "though every example raises it", small.exc,
                                  "raise an exception the same for every example, e.g. "
                                  "`raise ValueError(\"negative input\")`, or raise it "
                                  "under the condition that makes it")
            if not self._batched_depth:
                return None
            if self.helper:
                # its caller may call it under a per-example condition of its own, which
                # the helper cannot see: lanes that never call it would raise
                raise Unsupported("`raise` under a per-example condition in a function "
                                  "called from another", small,
                                  "check the condition in the function that is vectorized, "
                                  "or return a sentinel value (e.g. nan)")
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

    def if_statement(self, stmt: cst.If, env: Env) -> Env | None:
        test = self.expr(stmt.test, env)
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
            self._divergent = getattr(self, "_divergent", 0) + 1
        joined = join_envs(body_env, else_env, batched=batched, before=env, at=stmt,
                           written=frozenset(writes(stmt.body)
                                             | (writes(stmt.orelse) if stmt.orelse else set())))
        self.if_envs[stmt] = tuple(None if e is None or e.raised else dict(e.values)
                                   for e in (env, body_env, else_env, joined))
        return joined

    def _loop(self, stmt, env: Env, bind_target, masked: bool = False,
              endless: bool = False, nonempty: bool = False,
              unreached: bool = False) -> Env | None:
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
        if getattr(stmt, "orelse", None) is not None:
            if frame["masked"]:
                raise Unsupported("a loop `else:` clause on a loop whose examples stop at "
                                  "different times", stmt,
                                  "set a flag before `break` and test it after the loop")
            if not endless:
                exit_env = self.block(stmt.orelse.body.body, head.copy())
        for brk in frame["breaks"]:
            exit_env = join_envs(exit_env, brk, batched=frame["masked"], before=head, at=stmt,
                                 written=frozenset(writes(stmt.body)))
        self.loop_exit[stmt] = None if exit_env is None else dict(exit_env.values)
        return exit_env

    def _no_aliased_update(self, small: cst.AugAssign, env: Env) -> None:
        """``x += v`` where the per-example ``x`` is an array (a vector, or the 0-d array
        that ``np.where`` of scalars returns) changes it in place, so per example every name
        bound to the same object (``y = x``, or ``x = y`` before it) sees the change; the
        batch rebinds ``x`` only. Rejected when the function binds another name to ``x``
        (either way, through any chain of such bindings) that may come before the update
        (earlier in the code, or in a loop around both) and whose value may still be read
        after it (live there), and ``x`` may hold such an array. (Which names share the
        object is not tracked along each path: a binding on another branch counts too, which
        may refuse a function whose aliases never meet the update.)"""
        name = small.target.value
        current = env.values.get(name)
        if not (isinstance(current, Value) and current.batched):
            return
        if self._aliases is None:
            self._init_aliases()
        if not (isinstance(current.example, np.ndarray)
                or self._may_hold_0d_array(name, small)):
            return
        others = sorted(self._group(name, small) & self._live.get(small, set()))
        if others:
            op = _code(small.operator).strip()
            raise Unsupported(f"`{name} {op}` changes the per-example array `{name}` in place, "
                              f"and `{others[0]}` is bound to it (or to a view of it) too: per "
                              f"example both change, the batch would change only `{name}`",
                              small,
                              f"write `{name} = {name} {op[:-1]} ...` (a new array), or bind "
                              f"a copy where `{name}` and `{others[0]}` are bound to each "
                              f"other (`.copy()`)")

    def _no_update_of_a_shared_array(self, small: cst.AugAssign, env: Env) -> None:
        """``w += v`` where ``w`` is the same array for every example (an argument passed as
        it is, or a global) or a view of it: per example every example changes it in place
        again (the next example sees the changes of the ones before); the batch would rebind
        ``w`` once."""
        name = small.target.value
        current = env.values.get(name)
        if not (isinstance(current, Value) and not current.batched
                and isinstance(current.example, np.ndarray)):
            return
        if self._aliases is None:
            self._init_aliases()
        if self._assigned is None:
            self._assigned = {t for n in walk(self.tree.body) if type(n) is cst.AssignTarget
                              for t in target_names(n.target)}
        group = {name} | self._group(name, small)
        shared = sorted(n for n in group if n in self.params or n not in self._assigned)
        if shared:
            op = _code(small.operator).strip()
            raise Unsupported(f"`{name} {op}` changes the array `{shared[0]}` in place, which "
                              f"is the same for every example (the caller's argument or a "
                              f"global): per example each example changes it again, the "
                              f"batch would not", small,
                              f"write `{name} = {name} {op[:-1]} ...` (a new array)")

    def _no_update_of_an_argument(self, fn, node: cst.Call, env: Env) -> None:
        """A helper that updates a parameter in place (``v *= 2``, also through a name or a
        view bound to it) changes the caller's argument when that is an array (a vector, or
        the 0-d array of ``np.where``): per example the caller sees the change where it
        reads the argument again; the batch rebinds the helper's name only. Refused when the
        caller reads that variable anywhere else."""
        updated = _parameters_updated_in_place(fn)
        if not updated:
            return
        if self._aliases is None:
            self._init_aliases()
        names = list(_signature_names(fn))
        for i, arg in enumerate(node.args):
            parameter = arg.keyword.value if arg.keyword is not None else (
                names[i] if i < len(names) and not arg.star else None)
            source = _viewed_name(arg.value)
            if parameter not in updated or source is None:
                continue
            value = env.values.get(source)
            if not (isinstance(value, Value) and value.batched and (
                    isinstance(value.example, np.ndarray)
                    or self._may_hold_0d_array(source, node))):
                continue
            readers = [n for n in {source} | self._group(source, node)
                       if self._reads_of(n) > 1]
            if readers:
                raise Unsupported(f"`{fn.__name__}` changes its argument `{parameter}` in place "
                                  f"(`{parameter} {updated[parameter]}`), which is the "
                                  f"per-example array `{source}` here, read again by this "
                                  f"function: per example it sees the change, the batch would "
                                  f"not", node,
                                  f"in `{fn.__name__}`, write `{parameter} = {parameter} ...` "
                                  f"(a new array), or pass `{source}.copy()`")

    def _reads_of(self, name: str) -> int:
        """How often ``name`` is read in the function (not counting plain assignments to
        it)."""
        if self._read_counts is None:
            counts: dict[str, int] = {}
            targets = set()
            for n in walk(self.tree):
                if type(n) is cst.AssignTarget and type(n.target) is cst.Name:
                    targets.add(id(n.target))
                elif type(n) is cst.Attribute:
                    targets.add(id(n.attr))       # `.shape` is no variable
                elif type(n) is cst.Arg and n.keyword is not None:
                    targets.add(id(n.keyword))    # nor is `b=` of a call
                elif type(n) is cst.Name and id(n) not in targets:
                    counts[n.value] = counts.get(n.value, 0) + 1
            self._read_counts = counts
        return self._read_counts.get(name, 0)

    def _init_aliases(self) -> None:
        from .liveness import liveness_of
        self._aliases, self._where = _alias_links(self.tree)
        self._live = liveness_of(self.tree).live_after

    def _links_before(self, at) -> list:
        """The bindings ``(target, source)`` that may run before ``at``: earlier in the code
        and not on the other branch of an ``if`` (outside loops) that ``at`` is on, or inside
        a loop that also holds ``at`` (its next iteration)."""
        index, loops, branches = self._where.get(id(at), (1 << 62, frozenset(), ()))
        sides = dict(branches)
        return [(t, s) for t, s, (i, around, on) in self._aliases
                if around & loops or i < index and all(sides.get(branch, side) == side
                                                       for branch, side in on)]

    def _group(self, name: str, at) -> set[str]:
        """The other names that may hold the object ``name`` holds at ``at``: linked to it by
        chains of bindings (either way) that may run before ``at``."""
        return _connected(self._links_before(at), name)

    def _may_hold_0d_array(self, name: str, at) -> bool:
        """Whether ``name`` is bound somewhere to a 0-d array (`zero_d_arrays`), or to a name
        that may hold one (``name = z``, through chains of such bindings that may run before
        ``at``)."""
        bound_from: dict[str, set] = {}
        for t, s in self._links_before(at):
            bound_from.setdefault(t, set()).add(s)
        seen, stack = {name}, [name]
        while stack:
            current = stack.pop()
            if current in self.zero_d_arrays:
                return True
            for source in bound_from.get(current, ()):
                if source not in seen:
                    seen.add(source)
                    stack.append(source)
        return False

    def _may_give_0d_array(self, node) -> bool:
        """Whether ``node`` may give a 0-d array per example: a call that does
        (`_gives_0d_array`), or a conditional expression or ``and``/``or`` one of whose
        operands may (its value is that operand itself)."""
        while type(node) in (cst.IfExp, cst.BooleanOperation):
            if type(node) is cst.IfExp:
                if self._may_give_0d_array(node.body):
                    return True
                node = node.orelse
            else:
                if self._may_give_0d_array(node.left):
                    return True
                node = node.right
        return self._gives_0d_array(node, self.values.get(node))

    def _gives_0d_array(self, node, value) -> bool:
        """Whether ``node`` is a NumPy call that gives a 0-d array (mutable, unlike a NumPy
        scalar) per example: ``np.where(c, x, y)`` of scalars."""
        if type(node) is not cst.Call or not (isinstance(value, Value) and value.batched
                                               and value.rank == 0):
            return False
        fn = getattr(self.values.get(node.func), "example", None)
        if fn is None or isinstance(fn, np.ufunc) or not (
                getattr(fn, "__module__", None) or "").startswith("numpy"):
            return False
        args = [self.values.get(a.value) for a in node.args if a.keyword is None]
        if not all(isinstance(a, Value) for a in args):
            return False
        out = _evaluate(fn, *[a.example for a in args])
        return isinstance(out, np.ndarray) and out.ndim == 0

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
        iterable = self._range_of_batched(stmt.iter, env) or self.expr(stmt.iter, env)
        if iterable.batched:
            call = stmt.iter
            is_range = (isinstance(call, cst.Call) and self.values.get(call.func) is not None
                        and self.values[call.func].example is range and not any(
                            a.keyword or a.star for a in call.args))
            if not is_range:
                raise Unsupported("a `for` loop over a per-example sequence is not supported "
                                  "yet", stmt.iter,
                                  "loop over `range(len(...))` of an unbatched length")
            element = batched_like(np.int64(0))
            return self._loop(stmt, env, lambda e: self.bind(stmt.target, element, e, stmt),
                              masked=True)
        element = unbatched(UNKNOWN)
        nonempty = empty = False
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

    def method_call(self, node: cst.Call, base, env):
        """``x.sum(axis=0)`` on a batched ``x``: a method rule from the registry."""
        name = node.func.attr.value
        rule = self.registry.methods.get(name)
        if base.known and not hasattr(base.example, name) and (rule is None
                                                                or rule.infer is None):
            raise Unsupported(f"per example this value ({base.describe()}) has no method "
                              f"`.{name}()`", node, "call the NumPy function instead")
        if rule is None or isinstance(base, TupleValue):
            raise Unsupported(f"the method `.{name}()` of a per-example value has no batching "
                              "rule", node, "use the NumPy function instead, or register a "
                                            "rule with vectorize.register_rule")
        args, kwargs = [base], {}
        for arg in node.args:
            value = self.expr(arg.value, env)
            if arg.star:
                raise Unsupported("`*`/`**` unpacking in a method call", arg,
                                  "pass the arguments one by one")
            if arg.keyword is not None:
                kwargs[arg.keyword.value] = value
            else:
                args.append(value)
        self.method_calls[node] = rule
        self.values[node.func] = Value(False, UNKNOWN)   # not an attribute read
        site = Site(args=args, nodes=[], kwargs={k: (None, v) for k, v in kwargs.items()},
                    func=name, original=node)
        if rule.infer is not None:
            return rule.infer(site)
        method = getattr(base.example, name, None) if base.known else None
        if method is None:
            return Value(True, UNKNOWN)
        return batched_like(_evaluate(method, *[a.example for a in args[1:]],
                                     **{k: v.example for k, v in kwargs.items()}))

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
        test = self.expr(stmt.test, env)
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
                          endless=_always_true(test, stmt), unreached=entered is False)

    def bind(self, target, value, env: Env, stmt) -> None:
        if isinstance(target, cst.Name):
            env.assign(target.value, value)
            self.values[target] = value
            return
        if isinstance(target, (cst.Tuple, cst.List)):
            elements = target.elements
            if any(isinstance(e, cst.StarredElement) for e in elements):
                raise Unsupported("starred assignment targets", target, "unpack explicitly")
            if isinstance(value, TupleValue):
                items = value.items
            elif not value.batched and value.known:
                try:
                    items = [unbatched(v) for v in value.example]
                except TypeError:
                    raise Unsupported("cannot unpack this value", target) from None
            elif not value.batched:
                items = [unbatched(UNKNOWN)] * len(elements)
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
            self.item_write(target, value, env)
            return
        raise Unsupported("assigning into an object (item or attribute assignment) is a side "
                          "effect the batch cannot repeat per example", target,
                          "build a new value and return it")

    def _per_example_number(self, fn, args, kwargs, node):
        """A call without a rule runs per example (a list of its results, one per lane) only
        where each result is a number: the rest of the function treats the list as one
        number per lane. Its result is learned by calling it on the examples where that has
        no side effects; a result that is not a number, or one that cannot be learned, is
        refused, so that with fallbacks allowed the whole function runs per example."""
        pure = fn in PURE_BUILTINS or isinstance(fn, np.ufunc) or _pure_numpy(fn) or \
            getattr(fn, "__module__", None) in ("math", "cmath")
        out = _evaluate(fn, *[a.example for a in args],
                        **{k: v.example for k, v in kwargs.items()}) if pure else UNKNOWN
        if _is_number(out):
            return out
        if out is UNKNOWN:
            what = ("its result cannot be learned without running it (it may have side "
                    "effects)" if not pure else "it raised on the examples")
        else:
            shape = np.shape(out)
            what = (f"it gives {type(out).__name__}" + (f" of shape {shape}" if shape else "")
                    + " per example, not a number")
        raise Unsupported(f"`{_code(node)}` has no batching rule and would run per example, "
                          f"but {what}: the rest of the function cannot take its results as "
                          "one number per example, so the whole function runs per example",
                          node, "compute it with operations that have batching rules (see "
                          "docs/rules.md), or register a rule with vectorize.register_rule")

    def _users_name(self, name: str) -> bool:
        """Whether ``name`` is in the user's source (not made by a pass)."""
        if self._user_names is None:
            from .liveness import all_names
            self._user_names = all_names(self.source.tree)
        return name in self._user_names

    def _created_array(self, node):
        """The creation function when ``node`` makes a fresh array (np.zeros(3), x.copy()...)."""
        if type(node) is not cst.Call:
            return None
        fn = getattr(self.values.get(node.func), "example", None)
        if fn in CREATION_FUNCTIONS:
            return fn
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "copy":
            return "copy"
        return None

    def item_write(self, target: cst.Subscript, value, env: Env) -> None:
        """``y[i] = v`` into an array this function created (``np.zeros``...). When per-example
        data is written into it, the array is batched from its creation on (the engine
        allocates it with the batch axis in front); writing into arguments or globals would
        change the caller's objects and is rejected."""
        name = target.value.value
        if name not in env.values or name in self.params:
            raise Unsupported(f"writing into `{name}` changes an array the function did not "
                              "create (the caller's argument or a global)", target,
                              f"copy it first: {name} = {name}.copy()")
        if name not in self.owned:
            raise Unsupported(f"writing into `{name}`, which is not an array this function "
                              "created with np.zeros/np.ones/np.full/np.empty/.copy()...",
                              target, f"create `{name}` with np.zeros(...) or copy it")
        if self._batched_depth:
            raise Unsupported("writing into an array under a condition that differs per "
                              "example", target,
                              "compute the value with a conditional expression and write it "
                              "unconditionally")
        slot = self.subscript(target, env)
        self.values[target] = slot
        current = env.values[name]
        index_batched = any(getattr(self.values.get(e.slice.value), "batched", False)
                            for e in target.slice if isinstance(e.slice, cst.Index))
        if (value.batched or index_batched) and not current.batched:
            self.promoted.add(name)
            self.needs_rerun = True
        if current.batched or value.batched or index_batched:
            env.assign(name, Value(True, current.example))

    # ------------------------------------------------------------------------ expressions
    def expr(self, node, env: Env):
        value = self._expr(node, env)
        self.values[node] = value
        return value

    def _any_batched_input(self, call: cst.Call) -> bool:
        return any(getattr(self.values.get(a.value), "batched", False) for a in call.args)

    def _expr(self, node, env: Env):
        kind = type(node)     # the common kinds first, by identity (isinstance is slow here)
        if kind is cst.Name:
            return self.name(node, env)
        number = _NUMBERS.get(kind)
        if number is not None:
            return exact(number(node.value))
        if kind is cst.BinaryOperation:
            return self.binary(node.operator, node.left, node.right, env, node)
        if kind is cst.Call:
            return self.call(node, env)
        if kind is cst.Comparison:
            return self.comparison(node, env)
        if kind is cst.UnaryOperation:
            return self.unary(node, env)
        if kind is cst.IfExp:
            return self.ifexp(node, env)
        if kind is cst.Attribute:
            return self.attribute(node, env)
        if kind is cst.BooleanOperation:
            return self.boolean(node, env)
        if kind is cst.Subscript:
            return self.subscript(node, env)
        if kind is cst.SimpleString:
            return exact(_string(node.value))
        if isinstance(node, cst.ConcatenatedString):
            # "abc" "def", "a" f"{b}": constant when both halves are
            left, right = self.expr(node.left, env), self.expr(node.right, env)
            return unbatched(_evaluate(_op.add, left.example, right.example),
                             all_exact(left, right))
        if isinstance(node, cst.Ellipsis):
            return exact(Ellipsis)
        if isinstance(node, cst.FormattedString):
            return self.formatted_string(node, env)
        if isinstance(node, cst.Tuple):
            items = [self.expr(e.value, env) for e in node.elements
                     if not isinstance(e, cst.StarredElement)]
            if len(items) != len(node.elements):
                raise Unsupported("starred tuple items", node, "write the items out")
            return TupleValue(tuple(items))
        if isinstance(node, (cst.List, cst.Set, cst.Dict)):
            items = [self.expr(e.value, env) for e in getattr(node, "elements", [])
                     if hasattr(e, "value")]
            if isinstance(node, cst.List) and any(i.batched for i in items) and not any(
                    isinstance(e, cst.StarredElement) for e in node.elements):
                return TupleValue(tuple(items))   # a list display of per-example values
            if isinstance(node, cst.Dict) or any(i.batched for i in items):
                raise Unsupported(f"a {type(node).__name__.lower()} of per-example values is "
                                  "not supported yet", node, "use separate variables or a tuple")
            try:
                return exact(ast.literal_eval(_code(node)))
            except Exception:
                pass
            if isinstance(node, cst.List) and all(i.known for i in items):
                return unbatched([i.example for i in items], all_exact(*items))
            return unbatched(UNKNOWN)
        if isinstance(node, cst.NamedExpr):
            value = self.expr(node.value, env)
            self.bind(node.target, value, env, node)
            return value
        if isinstance(node, (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp,
                             cst.GeneratorExp)):
            used = _names_in(node)
            if any(getattr(env.values.get(n), "batched", False) for n in used):
                what = _SYNTAX[type(node).__name__]
                raise Unsupported(f"a {what} over per-example values is not supported yet",
                                  node, "write the computation out")
            return unbatched(UNKNOWN)
        kind = type(node).__name__
        hints = {"Yield": "return the values as a tuple (generators cannot be vectorized)",
                 "Await": "await outside the per-example function"}
        raise Unsupported(f"`{_SYNTAX.get(kind, kind)}` expressions are not supported", node,
                          hints.get(kind, "rewrite it with plain expressions"))

    def formatted_string(self, node: cst.FormattedString, env: Env):
        """An f-string: constant when every value formatted into it is (and it does not
        show an expression's text, ``f"{x=}"``), else a string formatted from the values'
        representatives (or of unknown value)."""
        parts = list(_formatted_expressions(node.parts))
        values = [self.expr(p.expression, env) for p in parts]
        if any(v.batched for v in values) and self._exception_of_one_example:
            return unbatched("")          # the message of one example
        if any(v.batched for v in values):
            raise Unsupported("formatting per-example values into a string", node,
                              "return the numbers and format them outside")
        if not all(v.known for v in values):
            return unbatched(UNKNOWN)
        placeholders = {id(p.expression): f"_value{k}" for k, p in enumerate(parts)}

        class _Placeholders(cst.CSTTransformer):
            def leave_FormattedStringExpression(self, original, updated):
                return updated.with_changes(
                    expression=cst.Name(placeholders[id(original.expression)]))

        text = _code(node.visit(_Placeholders()))
        try:
            value = eval(text, {"__builtins__": {}},   # noqa: S307 - constants only
                         {f"_value{k}": v.example for k, v in enumerate(values)})
        except Exception:
            return unbatched(UNKNOWN)
        return unbatched(value, all_exact(*values) and all(p.equal is None for p in parts))

    def name(self, node: cst.Name, env: Env):
        ident = node.value
        if ident in env.values:
            if ident in env.unbound:
                raise Unsupported(f"`{ident}` is assigned on some paths only, so it may be "
                                  "unbound here for some examples", node,
                                  f"give `{ident}` a value before the `if` or loop that "
                                  f"assigns it")
            return env.values[ident]
        if ident in _CONSTANTS:
            return exact(_CONSTANTS[ident])
        found, value, _scope = self.source.lookup(ident)
        if not found and ident == "np":
            return exact(np)   # the array namespace of generated code (np.errstate...)
        if not found and ident in ENGINE_NAMES:
            return exact(ENGINE_NAMES[ident])
        if not found:
            raise Unsupported(f"name `{ident}` is not defined", node,
                              "define it at module level before calling the function")
        self.free_names[ident] = value
        example = backends.foreign_example(value)
        if example is not None:
            # another namespace's array (a closed-over torch tensor): the analysis works on
            # a NumPy example of it; the code keeps using the name
            return unbatched(example)
        # guarded: a rebinding makes a new specialization; what a mutable object holds
        # (a list's items, an instance's attributes) can change without one
        return unbatched(value, _immutable(value))

    def _must_not_raise(self, fn, args, node, what):
        """A batched operation whose scalar version raises a TypeError for these dtypes and
        shapes raises on every example that reaches it; rejected rather than guessed.
        Returns ``fn`` of the examples, as `_evaluate` gives it (UNKNOWN where it raised)."""
        examples = [a.example for a in args]
        if any(e is UNKNOWN for e in examples):
            return UNKNOWN
        try:
            try:
                return fn(*examples)
            except TypeError:
                # per example, int()/round()/float() give Python numbers: only reject what
                # fails for those too
                fn(*[e.item() if isinstance(e, np.generic) else e for e in examples])
        except TypeError as exc:
            kinds = ", ".join(a.describe() for a in args)
            raise Unsupported(f"{what()} raises for {kinds} in the per-example code ({exc})",
                              node, "convert the values first (e.g. float(x)) or use a "
                                    "NumPy function that accepts them") from None
        except ValueError as exc:
            if "truth value" in str(exc) or "size-1" in str(exc) or "only length-1" in str(
                    exc):
                raise Unsupported(f"{what()} needs a single number but gets a per-example "
                                  f"array ({exc})", node,
                                  "reduce the array first, e.g. with .any(), .all() or "
                                  "np.sum") from None
        except Exception:
            pass
        return UNKNOWN

    def _truth(self, value, node):
        """A value used for its truth (if/while tests, and/or/not, ternaries) must be one
        number per example, as Python requires."""
        if (not isinstance(value, TupleValue) and value.batched and value.rank > 0
                and np.size(value.example) != 1):
            raise Unsupported("the truth value of a per-example array is ambiguous (Python "
                              "raises here for every example)", node,
                              "use (...).any() or (...).all(), or np.where for elementwise "
                              "choices")

    def binary(self, operator, left_node, right_node, env, node):
        left, right = self.expr(left_node, env), self.expr(right_node, env)
        fn = self.registry.backend.on_examples(
            BINARY_FUNCS[AUGMENTED_TO_BINARY.get(type(operator), type(operator))])
        if isinstance(left, TupleValue) or isinstance(right, TupleValue):
            if left.batched or right.batched:
                raise Unsupported("arithmetic on tuples of per-example values", node)
            return unbatched(_evaluate(fn, left.example, right.example), all_exact(left, right))
        if not (left.batched or right.batched):
            if self.speculative or self._batched_depth:
                scalar = _numpy_scalar_for(operator, left, right)
                if scalar is not None:
                    # runs on every lane (both branches of a per-example `if`, a masked
                    # loop's body): lanes that skip it in the scalar code must not raise
                    self.numpy_scalar_ops[node] = scalar
                    return unbatched(_evaluate(fn, left.example, scalar(right.example)),
                                     all_exact(left, right))
            return unbatched(_evaluate_inexact(fn, left, right), all_exact(left, right))
        if type(operator) in (cst.MatrixMultiply, cst.MatrixMultiplyAssign):
            if left.rank == 0 or right.rank == 0:
                raise Unsupported("`@` of a per-example scalar (NumPy raises here)", node,
                                  "use * for scalars")
            return batched_like(_evaluate(fn, left.example, right.example))
        return batched_like(self._must_not_raise(fn, [left, right], node,
                                                 lambda: f"`{_code(operator).strip()}`"))

    def unary(self, node: cst.UnaryOperation, env):
        value = self.expr(node.expression, env)
        fn = self.registry.backend.on_examples(UNARY_FUNCS[type(node.operator)])
        if not value.batched:
            return unbatched(_evaluate(fn, value.example), all_exact(value))
        if type(node.operator) is cst.Not:
            self._truth(value, node)
            return batched_like(np.True_)
        return batched_like(self._must_not_raise(fn, [value], node,
                                                 lambda: f"`{_code(node.operator).strip()}`"))

    def boolean(self, node: cst.BooleanOperation, env):
        left = self.expr(node.left, env)
        is_and = type(node.operator) is cst.And
        decided = self._decided(node, node.left, left)
        if decided is not None:
            # `False and ...`, `True or ...`: Python never evaluates the right side; else
            # the value is the right side's
            return left if decided != is_and else self.expr(node.right, env)
        taken = self._representative_truth(left)
        with self._reached(taken is None or taken == is_and):
            right = self.expr(node.right, env)
        if taken is not None and taken != is_and:
            # for the representatives Python stops at the left side, so the whole is as true
            # as it on every lane (a loop test `j + 1 < len(v) and ...`: never entered)
            self.short_circuits[node] = taken
        if not (left.batched or right.batched):
            if left.known and right.known:
                return unbatched((left.example and right.example) if is_and
                                 else (left.example or right.example), all_exact(left, right))
            return unbatched(UNKNOWN)
        for side in (left, right):
            if isinstance(side, TupleValue):
                raise Unsupported("`and`/`or` on tuples of per-example values", node)
        self._truth(left, node.left)
        if left.batched or not left.known:
            self._truth(right, node.right)
        if left.kind == "b" and right.kind == "b":
            # the representative lane: what Python stops at, where the left side decides
            return batched_like(np.bool_(self.short_circuits.get(node, True)))
        return join(left, right, force_batched=True)

    def comparison(self, node: cst.Comparison, env):
        operands = [self.expr(node.left, env)]
        operands += [self.expr(c.comparator, env) for c in node.comparisons]
        if len(operands) == 2 and type(node.comparisons[0].operator) in (cst.Is, cst.IsNot):
            identical = _identical(*operands)
            if identical is not None:    # `w is not None` where w is known not to be None
                return exact(identical == (type(node.comparisons[0].operator) is cst.Is))
        if not any(o.batched for o in operands):
            out = True
            try:
                for a, c, b in zip(operands, node.comparisons, operands[1:]):
                    out = out and self.registry.backend.on_examples(
                        COMPARE_FUNCS[type(c.operator)])(a.example, b.example)
                return unbatched(out if all(o.known for o in operands) else UNKNOWN,
                                 all_exact(*operands))
            except (KeyError, Exception):
                return unbatched(UNKNOWN)
        for c in node.comparisons:
            if type(c.operator) not in COMPARE_FUNCS or type(c.operator) in (cst.Is,
                                                                             cst.IsNot):
                raise Unsupported(f"`{_code(c.operator).strip()}` on per-example values", node,
                                  "compare values with == / != / < ...")
        if len(node.comparisons) > 1:
            for a, b in zip(operands, operands[1:]):
                for v in (a, b):
                    self._truth(v, node)
        result = np.True_
        for a, c, b in zip(operands, node.comparisons, operands[1:]):
            out = _evaluate(self.registry.backend.on_examples(COMPARE_FUNCS[type(c.operator)]),
                            a.example, b.example)
            if out is not UNKNOWN:
                result = out if result is np.True_ else _evaluate(np.logical_and, result, out)
        return batched_like(result)

    def ifexp(self, node: cst.IfExp, env):
        test = self.expr(node.test, env)
        self._truth(test, node.test)
        decided = self._decided(node, node.test, test)
        if decided is not None:
            return self.expr(node.body if decided else node.orelse, env)
        taken = self._representative_truth(test)
        self._batched_depth += test.batched       # both sides run on every lane
        try:
            with self._reached(taken is not False):
                body = self.expr(node.body, env)
            with self._reached(taken is not True):
                orelse = self.expr(node.orelse, env)
        finally:
            self._batched_depth -= test.batched
        joined = join(body, orelse, force_batched=test.batched)
        arm = body if taken else orelse
        if taken is not None and joined.batched and isinstance(joined, Value) \
                and joined.known and isinstance(arm, Value) and arm.known:
            # the representative lane takes the arm Python takes for the representatives
            example = _evaluate(lambda a: np.asarray(a).astype(joined.dtype), arm.example)
            if example is not UNKNOWN and example.shape == np.shape(joined.example):
                return Value(True, example[()])
        return joined

    def _decided(self, node, test_node, test) -> bool | None:
        """The truth of a test known exactly (the same on every call of this
        specialization: literals, globals, the values the code is specialized on): Python
        runs only one side of it, so only that side is analysed, and `python_conditions`
        keeps only that side. None otherwise, and where a loop's passes disagree."""
        outcome = None
        if not test.batched and test.exact and not any(
                type(n) is cst.NamedExpr for n in walk(test_node)):
            try:
                outcome = bool(test.example)
            except Exception:
                outcome = None
        previous = self.decided.get(node, outcome)
        self.decided[node] = outcome if previous is outcome else None
        return outcome

    @staticmethod
    def _representative_truth(test) -> bool | None:
        """Which way a test the same for every example goes for the arguments'
        representatives (its code stays a Python condition); None where it differs per
        example or is unknown. (Code after a per-example test that is the same on every
        lane for these arguments is not skipped: its merge evaluates it on every lane.)"""
        if test.batched or not test.known or isinstance(test, TupleValue):
            return None
        try:
            return bool(test.example)
        except Exception:
            return None

    @contextlib.contextmanager
    def _reached(self, reached: bool):
        """Code that Python runs only where a condition the same for every example holds
        (not known exactly, only from the arguments' representatives), and which it would
        not run for these: ``v[j + 1]`` under ``j + 1 < len(v)``. Indexes out of the
        representatives' bounds there are no reason to refuse."""
        self._unreached += not reached
        try:
            yield
        finally:
            self._unreached -= not reached

    def attribute(self, node: cst.Attribute, env):
        base = self.expr(node.value, env)
        attr = node.attr.value
        if base.batched:
            rule = self.registry.attributes.get(attr)
            if rule is None or isinstance(base, TupleValue):
                raise Unsupported(f"attribute `.{attr}` of a per-example value is not "
                                  "supported yet", node)
            site = Site(args=[base], nodes=[], original=node)
            if rule.infer is not None:
                return rule.infer(site)
            return batched_like(_evaluate(getattr, base.example, attr))
        if not base.known:
            return unbatched(UNKNOWN)
        try:
            value = self.registry.backend.example_attribute(base.example, attr)
            return unbatched(value, base.exact and _immutable(value) and (
                not isinstance(base.example, types.ModuleType) or _library(base.example)
                or callable(value) or isinstance(value, types.ModuleType)))
        except AttributeError:
            raise Unsupported(f"`{_code(node.value)}` has no attribute `{attr}`", node) from None

    def subscript(self, node: cst.Subscript, env):
        base = self.expr(node.value, env)
        parts = []          # abstract value of each index component (None for slices)
        examples = []       # the index as it would be per example
        for element in node.slice:
            sl = element.slice
            if isinstance(sl, cst.Index):
                value = self.expr(sl.value, env)
                parts.append(value)
                examples.append(value.example if not value.batched else (
                    np.zeros(np.shape(value.example), np.asarray(value.example).dtype)[()]
                    if value.known else UNKNOWN))
            else:
                bounds = [self.expr(p, env) if p is not None else unbatched(None)
                          for p in (sl.lower, sl.upper, sl.step)]
                if any(b.batched for b in bounds):
                    raise Unsupported("a slice whose bounds differ per example has a "
                                      "different length per example", node,
                                      "use np.where with an index comparison instead")
                parts.append(None)
                examples.append(slice(*[b.example for b in bounds]))
        index_example = examples[0] if len(examples) == 1 and not (
            len(node.slice) == 1 and isinstance(node.slice[0].comma, cst.Comma)) \
            else tuple(examples)
        if isinstance(base, TupleValue):
            if len(parts) == 1 and parts[0] is not None and parts[0].exact \
                    and isinstance(parts[0].example, int):
                try:
                    return base.items[parts[0].example]
                except IndexError:
                    raise Unsupported("tuple index out of range", node) from None
            if base.batched:
                raise Unsupported("indexing a tuple of per-example values with a computed "
                                  "index", node, "use a constant index")
        batched_parts = [p for p in parts if p is not None and p.batched]
        if not base.batched and batched_parts and isinstance(
                base.example, (list, tuple, dict)):
            return self._lookup_per_example(node, base, parts)
        if not base.batched and not batched_parts:
            if base.known and all(e is not UNKNOWN for e in examples):
                return unbatched(_evaluate(lambda b, i: b[i], base.example, index_example),
                                 base.exact and all(p is None or p.exact for p in parts))
            return unbatched(UNKNOWN)
        for p in batched_parts:
            if p.kind == "b":
                raise Unsupported("indexing with a per-example boolean mask gives a different "
                                  "number of elements per example", node,
                                  "use np.where(mask, x, 0) or np.sum(x, where=mask)")
            if p.kind not in "iu?" or p.rank > 0:
                raise Unsupported("indexing with a per-example array of indices is not "
                                  "supported yet", node, "index with one integer at a time")
        if not base.known or any(e is UNKNOWN for e in examples):
            return Value(True, UNKNOWN)
        try:
            out = base.example[index_example]
        except IndexError as exc:
            if not self._unreached:
                raise Unsupported(f"this index does not fit the per-example value ({exc})",
                                  node) from None
            # not reached for these arguments: the type of an element is what matters
            return batched_like(_evaluate(lambda b, i: b[i], base.example,
                                          _in_bounds(index_example)))
        except (TypeError, ValueError) as exc:
            raise Unsupported(f"this index does not fit the per-example value ({exc})",
                              node) from None
        if isinstance(out, np.generic) and base.batched and not batched_parts \
                and type(node.value) is cst.Name:
            # per example a NumPy scalar (a copy); on the batch `y[:, 0]` is a view
            self._scalar_reads[node] = node.value.value
        return batched_like(out)

    def _lookup_per_example(self, node: cst.Subscript, base, parts):
        """``TABLE[k]`` with a per-example ``k`` into a list or tuple of numbers the same for
        every example: a gather from the array of its items (`array.index`; Python's
        negative indexes and IndexError are NumPy's too). A dict looked up by a per-example
        key runs per example where fallbacks are allowed; anything else is refused."""
        seq = base.example
        what = _code(node.value)
        if isinstance(seq, dict):
            if self.allow_fallback and all(_is_number(v) for v in seq.values()):
                self.fallback_calls[node] = f"`{what}[...]` is a dict looked up per example"
                return batched_like(np.asarray(list(seq.values()) or [0.0])[0])
            raise Unsupported(f"`{what}` is a dict looked up by a per-example key", node,
                              "use a list or array indexed by an integer (e.g. "
                              "`np.array([...])[k]`), compute the value with np.where, or "
                              "pass fallback='warn' to look it up per example")
        if len(parts) != 1 or not all(_is_number(v) for v in seq):
            raise Unsupported(f"`{what}` is indexed by a per-example integer, and only a flat "
                              "list or tuple of numbers can be gathered from", node,
                              f"make `{what}` a NumPy array (np.array(...)) of one dtype")
        (part,) = parts
        if part.kind not in "iu" or part.rank > 0:
            raise Unsupported(f"`{what}` is indexed by a per-example value that is not an "
                              "integer", node, "convert the index with int()")
        return batched_like(np.asarray(seq if seq else [0.0])[0])

    # ------------------------------------------------------------------------------ calls
    def call(self, node: cst.Call, env):
        if type(node.func) is cst.Attribute:
            base = self.expr(node.func.value, env)
            if base.batched:
                return self.method_call(node, base, env)
            if isinstance(base.example, (np.ndarray, np.generic)) and \
                    node.func.attr.value in self.registry.methods and any(
                        getattr(self.expr(a.value, env), "batched", False)
                        for a in node.args):
                return self.method_call(node, base, env)   # shared.dot(x)
        func = self.expr(node.func, env)
        args, kwargs = [], {}
        for arg in node.args:
            value = self.expr(arg.value, env)
            if arg.star:
                if value.batched:
                    raise Unsupported("`*`/`**` unpacking of per-example values", arg,
                                      "pass the arguments one by one")
                if arg.star == "*" and value.known:
                    try:
                        args.extend(unbatched(v) for v in value.example)
                        continue
                    except TypeError:
                        pass
                raise Unsupported("`*`/`**` unpacking in calls is not supported yet", arg,
                                  "pass the arguments one by one")
            if arg.keyword is not None:
                kwargs[arg.keyword.value] = value
            else:
                args.append(value)
        fn = func.example
        if func.batched:
            raise Unsupported("calling a per-example value", node)
        if self._exception_of_one_example and isinstance(fn, type) and issubclass(
                fn, BaseException):
            return unbatched(UNKNOWN)      # made from one example's values
        distribution = random_name(fn) if func.known else None
        if distribution is not None:
            if not any(v.batched for v in self.params.values()):
                return unbatched(UNKNOWN)
            self.random_calls[node] = distribution
            return random_infer(fn, args, kwargs)
        if not any(v.batched for v in [*args, *kwargs.values()]):
            if func.known and fn in (float, int, bool, complex) and not all(
                    a.known for a in args):
                return unbatched(fn(1))     # the type is known even if the value is not
            if isinstance(fn, types.FunctionType) and self.helpers is not None and not (
                    getattr(fn, "__module__", None) or "").startswith(
                        ("numpy", "math", "vectorize")) and not self.registry.knows(fn):
                # the user's own function on unbatched values: analysed (not run) to learn
                # what it returns; if it cannot be analysed it is simply called as written
                try:
                    value = self.helpers(fn, args, kwargs, node)
                except Exception:
                    return unbatched(UNKNOWN)
                self.helper_calls[node] = value
                return value
            rule = self.registry.for_call(fn) if func.known else None
            # the operation as it computes on NumPy examples (a torch function's shadow)
            evaluated = rule.shadow if rule is not None and rule.shadow is not None else fn
            if rule is not None and rule.family == "math":
                # hoisted out of a per-example condition, this call runs for every lane, also
                # where the scalar code would skip it: math functions follow NumPy (nan
                # instead of a domain error) on unbatched values too
                self.math_in_branches.add(node)
            if (fn is divmod or fn is pow) and len(args) == 2 and not kwargs and (
                    self.speculative or self._batched_depth):
                # like `a % b` / `a ** b` on Python numbers in code every lane runs
                scalar = _numpy_scalar_for(cst.Modulo() if fn is divmod else cst.Power(),
                                           *args)
                if scalar is not None:
                    self.numpy_scalar_ops[node] = scalar
                    args = [args[0], unbatched(scalar(args[1].example), args[1].exact)]
            if func.known and (fn in PURE_BUILTINS or self.registry.knows(fn)
                               or isinstance(fn, np.ufunc) or _pure_numpy(fn)):
                out = _evaluate(evaluated, *[a.example for a in args],
                                **{k: v.example for k, v in kwargs.items()})
                known = all_exact(*args, *kwargs.values())
                if out is UNKNOWN and rule is not None and rule.family == "math" \
                        and not kwargs:
                    # Python's math raised (`math.fmod(0.0, 0.0)`); the generated code calls
                    # NumPy's function (`math_in_branches`), whose value it then has
                    out, known = _numpy_math(fn, [a.example for a in args]), False
                if isinstance(out, tuple) and fn is not tuple:   # divmod, np.modf, frexp...
                    return TupleValue(tuple(unbatched(item, known) for item in out))
                return unbatched(out, known)
            return unbatched(UNKNOWN)
        if not func.known:
            raise Unsupported(f"cannot tell what `{_code(node.func)}` is, so cannot vectorize "
                              "a call of it on per-example values", node.func)
        rule = self.registry.for_call(fn)
        if rule is not None:
            if not kwargs and fn is not ENGINE_NAMES.get("__any_lane__"):
                self._must_not_raise(rule.shadow or fn, args, node,
                                     lambda: f"`{_code(node.func)}`")
            site = Site(args=args, nodes=[], kwargs={k: (None, v) for k, v in kwargs.items()},
                        func=fn, original=node)
            infer = rule.infer or default_infer
            return infer(site)
        if isinstance(fn, type) and issubclass(fn, np.generic):
            return batched_like(_evaluate(fn, args[0].example) if args else UNKNOWN)
        if isinstance(fn, types.FunctionType) and self.helpers is not None \
                and not (getattr(fn, "__module__", None) or "").startswith(("numpy", "math")):
            self._no_update_of_an_argument(fn, node, env)
            value = self.helpers(fn, args, kwargs, node)
            self.helper_calls[node] = value
            return value
        name = _code(node.func)     # as the user wrote it
        if self.allow_fallback and all(not isinstance(v, TupleValue) and v.rank == 0
                                       for v in [*args, *kwargs.values()]):
            out = self._per_example_number(fn, args, kwargs, node)
            self.fallback_calls[node] = f"`{name}` has no batching rule"
            # the array of the per-example results has the dtype NumPy gives a list of
            # such numbers (Python ints are int64, floats float64)
            return Value(True, np.asarray([out])[0])
        raise Unsupported(f"`{name}` has no batching rule, so it cannot be called on "
                          "per-example values", node,
                          "use a NumPy equivalent, register a rule with "
                          "vectorize.register_rule, or pass fallback='warn' to run this call "
                          "per example")


def _is_number(out) -> bool:
    return isinstance(out, (int, float, complex, np.generic, np.ndarray)) \
        and np.ndim(out) == 0 and np.asarray(out).dtype.kind in "biufc"


# how the user writes the constructs libcst names by class (for messages)
_SYNTAX = {"ListComp": "list comprehension", "SetComp": "set comprehension",
           "DictComp": "dict comprehension", "GeneratorExp": "generator expression",
           "Lambda": "lambda", "Yield": "yield", "Await": "await", "FunctionDef": "def",
           "ClassDef": "class", "Try": "try", "TryStar": "try", "ImportFrom": "from ... import",
           "Match": "match", "AsyncFunctionDef": "async def", "AsyncFor": "async for",
           "AsyncWith": "async with"}

_IMPURE_NUMPY = {"copyto", "put", "place", "putmask", "fill_diagonal", "save", "savez",
                 "savez_compressed", "savetxt", "load", "loadtxt", "genfromtxt", "fromfile",
                 "seterr", "set_printoptions", "fill", "itemset", "setflags", "tofile", "dump",
                 "dumps", "setfield"}
# methods that change their array in place; the functions of these names (`np.sort(w)`)
# return a new array
_IMPURE_METHODS = {"sort", "resize", "partition"}


def _pure_numpy(fn) -> bool:
    """NumPy functions and array methods that compute without side effects (evaluated on
    examples to learn shapes and dtypes)."""
    name = getattr(fn, "__name__", "")
    if name in _IMPURE_NUMPY:
        return False
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, (np.ndarray, np.generic)):
        return name not in _IMPURE_METHODS
    module = getattr(fn, "__module__", None) or ""
    return module.startswith("numpy") and not module.startswith("numpy.random")


def _always_true(test, loop: cst.While) -> bool:
    """``while True:``: a test known exactly, truthy, and reading no name the loop assigns."""
    if test.batched or not test.exact:
        return False
    try:
        truthy = bool(test.example)
    except Exception:
        return False
    from .liveness import reads, writes
    return truthy and not reads(loop.test) & writes(loop.body)


_RAISING_OPS = (cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power, cst.DivideAssign,
                cst.FloorDivideAssign, cst.ModuloAssign, cst.PowerAssign)


def _numpy_scalar_for(operator, left: Value, right: Value):
    """The NumPy scalar type that makes an operation on Python numbers follow NumPy (an
    IEEE value and a warning instead of ZeroDivisionError / OverflowError), or None when the
    operation cannot raise: not a division or power, NumPy operands already, or exact
    operands that do not raise."""
    if type(operator) not in _RAISING_OPS:
        return None
    examples = (getattr(left, "example", None), getattr(right, "example", None))
    if not all(type(e) in (int, float, bool, complex)
               or isinstance(e, (np.number, np.bool_)) for e in examples):
        return None
    if all_exact(left, right):
        if not all(type(e) in (int, float, bool, complex) for e in examples):
            return None     # NumPy scalars known exactly: NumPy semantics already
        try:
            BINARY_FUNCS[AUGMENTED_TO_BINARY.get(type(operator), type(operator))](*examples)
            return None
        except (ArithmeticError, ValueError):
            pass
    integers = all(isinstance(e, (int, np.integer, np.bool_)) for e in examples)
    if integers and isinstance(operator, (cst.Power, cst.PowerAssign)):
        return None     # int ** negative int: NumPy raises where Python gives a float
    # a value the same for every example whose example is a NumPy scalar may still be a
    # Python number at run time (`y if c else -0.0` joins both): it is wrapped too, in its
    # own type
    if isinstance(examples[1], np.number):
        return type(examples[1])
    if any(type(e) is complex or isinstance(e, np.complexfloating) for e in examples):
        return np.complex128
    if not integers:
        return np.float64
    return np.int64


def _alias_links(tree) -> tuple[list, dict]:
    """The bindings of a name to another name's object (``y = x``, ``y, z = x, w``, or a view:
    `_viewed_name`) in the function, each as (y, x, where), and for every node its where:
    (position, ids of the loops around it, the branches it is on); positions count nodes in
    the order of the code; a branch is (id of an ``if`` outside every loop, 0 for its body
    or 1 for its ``else``)."""
    links: list = []
    where: dict = {}
    stack = [(tree, frozenset(), ())]
    index = 0
    while stack:
        node, loops, branches = stack.pop()
        where[id(node)] = (index, loops, branches)
        index += 1
        if type(node) is cst.Assign:
            for target in node.targets:
                _pairs(target.target, node.value, links, (index, loops, branches))
        kind = type(node)
        inner = loops | {id(node)} if kind in (cst.For, cst.While) else loops
        for child in reversed(children(node)):
            on = branches
            if kind is cst.If and not loops and (child is node.body or child is node.orelse):
                on = branches + ((id(node), 0 if child is node.body else 1),)
            stack.append((child, inner, on))
    return links, where


def _pairs(target, value, out: list, where: tuple) -> None:
    source = _viewed_name(value)
    if type(target) is cst.Name and source is not None and target.value != source:
        out.append((target.value, source, where))
    elif type(target) in (cst.Tuple, cst.List) and type(value) in (cst.Tuple, cst.List) \
            and len(target.elements) == len(value.elements):
        for t, v in zip(target.elements, value.elements):
            _pairs(t.value, v.value, out, where)


def _connected(pairs, name: str) -> set[str]:
    """The other names that chains of the ``(target, source)`` bindings connect to ``name``,
    either way."""
    links: dict[str, set] = {}
    for t, s in pairs:
        links.setdefault(t, set()).add(s)
        links.setdefault(s, set()).add(t)
    group, stack = {name}, [name]
    while stack:
        for other in links.get(stack.pop(), set()) - group:
            group.add(other)
            stack.append(other)
    return group - {name}


def _bound_values(env: Env) -> dict:
    return {k: v for k, v in env.values.items() if k not in env.unbound}


_OTHER_EXAMPLES = (0.5, 2.0, 100.0, -0.5)
"""Other values tried for a number known only by its type when an operation on the one that
represents it raises (``1.0 / math.fmod(y, y)`` with y represented by 1.0): the type and shape
of the result are what the analysis needs, not its value."""


def _evaluate_inexact(fn, *values):
    """``fn`` of the values' examples; where it raises and some value is not exactly known,
    of other representatives of those (`_OTHER_EXAMPLES`, same type), else UNKNOWN."""
    examples = [v.example for v in values]
    out = _evaluate(fn, *examples)
    if out is not UNKNOWN or all_exact(*values):
        return out
    movable = [i for i, v in enumerate(values) if not v.exact
               and type(v.example) in (float, int, np.float64, np.float32, np.int64)]
    for other in _OTHER_EXAMPLES:
        tried = [type(e)(other) if i in movable else e for i, e in enumerate(examples)]
        out = _evaluate(fn, *tried)
        if out is not UNKNOWN:
            return out
    return UNKNOWN


_UPDATED_PARAMETERS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _parameters_updated_in_place(fn) -> dict[str, str]:
    """The parameters of the user's function ``fn`` that its body updates in place (``v *=
    e``, or a name or view bound to ``v``), each with the operator; read once per function."""
    if fn in _UPDATED_PARAMETERS:
        return _UPDATED_PARAMETERS[fn]
    out: dict[str, str] = {}
    try:
        from .source import read_function
        tree = read_function(fn).tree
    except Exception:
        tree = None
    if tree is not None:
        parameters = set(_signature_names(fn))
        pairs = [(t, s) for t, s, _ in _alias_links(tree)[0]]     # anywhere in the body
        for n in walk(tree.body):
            if type(n) is cst.AugAssign and type(n.target) is cst.Name:
                name = n.target.value
                for parameter in sorted(({name} | _connected(pairs, name)) & parameters):
                    out.setdefault(parameter, _code(n.operator).strip())
    _UPDATED_PARAMETERS[fn] = out
    return out


def _signature_names(fn) -> tuple[str, ...]:
    code = fn.__code__
    return code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]


_VIEW_ATTRIBUTES = frozenset({"T", "mT", "real", "imag"})
_VIEW_METHODS = frozenset({"reshape", "ravel", "view", "transpose", "swapaxes", "squeeze",
                           "diagonal"})
_VIEW_FUNCTIONS = frozenset({"reshape", "ravel", "transpose", "swapaxes", "squeeze",
                             "expand_dims", "asarray", "asanyarray", "ascontiguousarray",
                             "asfortranarray", "atleast_1d", "atleast_2d", "atleast_3d",
                             "broadcast_to", "diagonal", "moveaxis", "rollaxis", "real",
                             "imag", "require"})


def _viewed_name(value) -> str | None:
    """The variable whose object (or memory) ``value`` may be: ``x`` itself, or a view of it
    (``x[1:]``, ``x.T``, ``x.reshape(3)``, ``np.asarray(x)``...), an in-place update of which
    changes ``x``; None for anything else (arithmetic makes new arrays)."""
    while True:
        t = type(value)
        if t is cst.Name:
            return value.value
        if t is cst.Subscript:
            value = value.value
        elif t is cst.Attribute and value.attr.value in _VIEW_ATTRIBUTES:
            value = value.value
        elif t is cst.Call and type(value.func) is cst.Attribute:
            func = value.func
            if type(func.value) is cst.Name and func.value.value in ("np", "numpy") \
                    and func.attr.value in _VIEW_FUNCTIONS and value.args:
                value = value.args[0].value
            elif func.attr.value in _VIEW_METHODS:
                value = func.value
            else:
                return None
        else:
            return None


def _numpy_math(fn, examples: list):
    """What the NumPy function that a float-valued `math` function becomes gives for
    ``examples`` (a NumPy float), or UNKNOWN."""
    from .rules.math_rules import FLOAT_FUNCTIONS
    name = getattr(fn, "__name__", "")
    if name in FLOAT_FUNCTIONS and name not in ("frexp", "modf"):
        out = _evaluate(getattr(np, FLOAT_FUNCTIONS[name]), *examples)
    elif name == "log" and len(examples) in (1, 2):
        out = _evaluate(lambda a, b=np.e: np.log(a) / np.log(b), *examples)
    elif name == "pow" and len(examples) == 2:
        out = _evaluate(lambda a, b: np.power(np.float64(a), b), *examples)
    else:
        return UNKNOWN
    return np.float64(out) if isinstance(out, (float, np.floating)) else UNKNOWN


def _evaluate(fn, *args, **kwargs):
    """``fn`` of the examples, UNKNOWN where one is unknown or ``fn`` raises: `evaluate`
    without entering ``np.errstate`` again (the analysis runs under one, `Analysis.analyze`)."""
    if any(a is UNKNOWN for a in args) or any(v is UNKNOWN for v in kwargs.values()):
        return UNKNOWN
    try:
        return fn(*args, **kwargs)
    except Exception:
        return UNKNOWN


def _code(node) -> str:
    return code(node)


def _string(text: str):
    """The value of a string literal, as `ast.literal_eval` gives it: without a prefix or a
    backslash, the text between the quotes."""
    quote = text[:3] if text[:3] in ('"""', "'''") else text[:1]
    if quote in ('"', "'", '"""', "'''") and "\\" not in text:
        return text[len(quote):-len(quote)]
    return ast.literal_eval(text)


def _held(node):
    """The subexpressions of ``node`` whose object its value may be (``a if c else b``,
    ``a or b``, the items of a tuple display, ``(n := a)``)."""
    t = type(node)
    if t is cst.IfExp:
        yield from _held(node.body)
        yield from _held(node.orelse)
    elif t is cst.BooleanOperation:
        yield from _held(node.left)
        yield from _held(node.right)
    elif t in (cst.Tuple, cst.List):
        for element in node.elements:
            yield from _held(element.value)
    elif t is cst.NamedExpr:
        yield from _held(node.value)
    else:
        yield node


def _is_none(node) -> bool:
    return type(node) is cst.Name and node.value == "None"


def _may_fall_off(stmts) -> bool:
    """Whether running ``stmts`` can reach their end (read from the code: a ``return`` or
    ``raise`` ends a path, an ``if`` reaches its end where a branch does; loops, and
    everything else, may)."""
    last = stmts[-1] if stmts else None
    if type(last) is cst.SimpleStatementLine:
        return not any(type(s) in (cst.Return, cst.Raise) for s in last.body)
    if type(last) is cst.If:
        if last.orelse is None or _may_fall_off(last.body.body):
            return True
        if type(last.orelse) is cst.If:
            return _may_fall_off([last.orelse])
        return _may_fall_off(last.orelse.body.body)
    if type(last) is cst.With:
        return _may_fall_off(last.body.body)
    if type(last) is cst.While and _is_true(last.test):
        return any(type(n) is cst.Break for n in walk(last.body))
    return True


def _is_true(node) -> bool:
    return type(node) is cst.Name and node.value == "True"


_SINGLETONS = (None, True, False, Ellipsis, NotImplemented)


def _identical(a, b) -> bool | None:
    """``a is b`` where it is the same on every call of this specialization though the
    values are not known exactly: a per-example value (a NumPy scalar or array per example)
    is never a singleton such as None, and a value of a known type other than NoneType is
    never None. None where it is not known."""
    for x, y in ((a, b), (b, a)):
        if not (isinstance(y, Value) and y.exact and any(y.example is o for o in _SINGLETONS)):
            continue
        if isinstance(x, Value) and x.batched:
            return False
        if y.example is None and isinstance(x, Value) and x.known:
            return x.example is None
    return None


def _in_bounds(index):
    """An index with every integer replaced by 0 (slices and the rest as they are)."""
    def zero(i):
        return 0 if isinstance(i, (int, np.integer)) and not isinstance(i, bool) else i
    return tuple(zero(i) for i in index) if isinstance(index, tuple) else zero(index)


_IMMUTABLE = (int, float, complex, bool, str, bytes, type(None), type(Ellipsis), np.generic,
              np.dtype, range, slice, type, types.ModuleType, types.FunctionType,
              types.BuiltinFunctionType, np.ufunc, types.MethodType)


def _immutable(value) -> bool:
    """Whether a value the code reads from a global (or closure) is the same for as long as
    the name is bound to it (numbers, strings, tuples of those, functions, classes,
    modules), so that a specialization may rely on it (exact); a list, dict, array or other
    object may change in place, which no guard sees."""
    if isinstance(value, (tuple, frozenset)):
        return all(_immutable(item) for item in value)
    return isinstance(value, _IMMUTABLE) or callable(value) and not isinstance(
        value, (list, dict, set, np.ndarray))


def _library(module) -> bool:
    """A module of the libraries generated code uses, whose attributes are constants."""
    return (getattr(module, "__name__", "") or "").split(".")[0] in (
        "numpy", "math", "cmath", "operator", "functools", "builtins")


def _is_number(value) -> bool:
    return type(value) in (int, float, complex, bool) or isinstance(value, (np.number,
                                                                            np.bool_))


def _formatted_expressions(parts):
    """The ``{...}`` parts of an f-string, those nested in format specs too, in order."""
    for part in parts:
        if type(part) is cst.FormattedStringExpression:
            yield part
            if part.format_spec:
                yield from _formatted_expressions(part.format_spec)


def _names_in(node) -> set[str]:
    from .liveness import all_names
    return all_names(node)



# --------------------------------------------------------------------------------------------
# Which code can emit floating-point warnings on some lane (for silencing dead lanes).

_FLOAT_RISKY_OPS = (cst.Add, cst.Subtract, cst.Multiply)
_RISKY_OPS = (cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power) + _FLOAT_RISKY_OPS
_RISKY_OP_TYPES = frozenset(_RISKY_OPS)


def may_warn(parts, analysis: Analysis, registry: Registry) -> bool:
    """Whether evaluating ``parts`` on every lane can emit a floating-point warning."""
    if registry.backend.quiet is None:
        return False        # a namespace that never warns (PyTorch)
    for part in parts:
        for n in walk(part):
            if type(n) is cst.AugAssign:
                if n in analysis.numpy_scalar_ops:
                    return True
                operator = AUGMENTED_TO_BINARY.get(type(n.operator))
                if operator is not None and issubclass(operator, _RISKY_OPS) and \
                        _risky_division(cst.BinaryOperation(n.target, operator(), n.value),
                                        analysis):
                    return True
            if type(n) is cst.BinaryOperation:
                if type(n.operator) in _RISKY_OP_TYPES and _risky_division(n, analysis):
                    return True
            elif type(n) is cst.Call:
                if n in analysis.helper_calls or n in analysis.fallback_calls \
                        or n in analysis.numpy_scalar_ops:
                    return True
                if n in analysis.math_in_branches:
                    fn = getattr(analysis.values.get(n.func), "example", None)
                    rule = registry.for_call(fn) if fn is not None else None
                    if rule is not None and rule.may_warn:
                        return True
                fn = getattr(analysis.values.get(n.func), "example", None)
                rule = registry.for_call(fn) if fn is not None else None
                if rule is not None and rule.may_warn and any(
                        getattr(analysis.values.get(a.value), "batched", False)
                        for a in n.args):
                    return True
    return False


def _risky_division(node: cst.BinaryOperation, analysis) -> bool:
    """Whether an operator can warn on some lane. Float (and complex) arithmetic can
    (overflow, inf - inf, a negative base to a fractional power); ``/``, ``//`` and ``%`` on
    integers can with a batched divisor or a zero constant. Integer arrays never warn on
    overflow."""
    left = analysis.values.get(node.left)
    right = analysis.values.get(node.right)
    if not (getattr(left, "batched", False) or getattr(right, "batched", False)):
        # the same for every example: NumPy scalars (also those made for Python numbers by
        # `numpy_scalar_ops`) warn where the value is not known
        if node in analysis.numpy_scalar_ops:
            return True
        if all_exact(left, right) or not all(isinstance(v, Value) for v in (left, right)):
            return False
        kinds = [v.kind for v in (left, right) if isinstance(v.example, np.generic)]
        if not kinds:
            return False
        if any(k in "fc?" for k in kinds) or isinstance(node.operator, cst.Power):
            return True
        example = right.example if right.exact else None
        return not isinstance(node.operator, _FLOAT_RISKY_OPS) and (
            not isinstance(example, (int, float, np.number)) or example == 0)
    if any(getattr(v, "kind", "?") in "fc?" for v in (left, right)
           if getattr(v, "batched", False)):
        return True
    if isinstance(node.operator, _FLOAT_RISKY_OPS):
        return False
    if getattr(right, "batched", False):
        return True
    example = getattr(right, "example", None) if getattr(right, "exact", False) else None
    if isinstance(node.operator, cst.Power):
        return not isinstance(example, (int, float)) or example < 0 or (
            isinstance(example, float))
    return not isinstance(example, (int, float)) or example == 0
