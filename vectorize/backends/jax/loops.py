"""Per-example loops of generated code as `jax.lax` loops, so that they run under `jax.jit`.

The passes write a loop whose examples stop at different times as a Python loop over an
unbatched condition (`passes/masked_loops.py`): ``while jnp.any(active):``, the rotated
``while True: ... if not jnp.any(active): break ...``, or ``for k in range(n): ...
if not jnp.any(active): break``. Under `jax.jit` such a test is a tracer, which Python's
``while``/``if`` cannot read, so this module rewrites each of them into `lax.while_loop` over
the loop-carried names, without a host round trip per iteration:

    active = ...                                   active = ...
    while jnp.any(active):                         def cond(carry):
        n = jnp.where(active, n // 2, n)    ->         n, active = carry
        active = active & (n > 1)                      return jnp.any(active)

                                                   def body(carry):
                                                       n, active = carry
                                                       n = jnp.where(active, n // 2, n)
                                                       active = active & (n > 1)
                                                       return n, active

                                                   n, active = lax.while_loop(
                                                       cond, body, promote_carry(body, (n, active)))

The carry is the names the loop assigns that it reads before assigning them (in its body or
its test) or that are live after it (`liveness.Liveness`); the rest of the loop's temporaries
stay local to ``body``. Names it only reads are closed over. `promote_carry` gives the initial
values the dtype and shape the body produces (``s = 0`` before a loop that makes ``s`` a
float array), as `lax.while_loop` requires.

``for`` loops:
- ``for k in range(a, b, s)`` left by a per-example ``break`` (the ``if not jnp.any(active):
  break`` the passes put at the end of its body): a `lax.while_loop` over a counter and a
  ``going`` flag, so that it stops when no lane is active (the first pass always runs, as in
  Python).
- ``for k in range(n)`` with no per-example exit (the trip count is the same for every
  example): a Python loop, which `jax.jit` unrolls while tracing, when ``n`` is a constant of at
  most `UNROLL_MAX`; otherwise `lax.fori_loop`, unless the body uses ``k`` where only a Python
  int will do (an index into a Python list or tuple: a global, a parameter that is not an
  array, a name the function binds to one; ``range(k)``; a call that is not a ``jnp.``/``lax.``
  function) or the loop has a Python-level ``break``: those stay Python loops (compile time
  grows with the trip count, the result is the same).
- Loops over anything else (a list, ``zip(...)``) stay Python loops (unrolled); one left by a
  per-example ``break`` runs all its passes without the early stop (its body is under the
  loop's mask: a pass where no lane is active changes nothing).

Checks (``if jnp.any(failed): raise E``, and indices checked ``in_bounds``) inside a body
cannot be Python ``if`` s on a traced value: the loop carries the number of the first check
that failed (``error``, 0: none) and the values ``E`` is made of from the pass where it
failed, its ``cond`` stops once one has, and ``if error == 1: raise E`` follows the outermost
loop (`_Lowering._carry_checks`; ``docs/jax.md``, "Checks inside loops").

A loop that cannot be lowered (a per-example exit that is not the loop's last statement or
more than one, a range step that is not a constant, a carried
name with no value before the loop) is refused with `Unsupported`, located at the user's loop
when ``locate`` finds it (docs/jax.md lists these).
"""

from __future__ import annotations

import libcst as cst

from ...errors import Unsupported
from ...liveness import (
    Liveness,
    all_names,
    exposed_reads,
    flows_from,
    reads,
    target_names,
    writes,
)
from ...syntax.templates import expr, parse_expr, parse_stmt
from ...syntax.traversal import walk

# `for k in range(n)` with a constant n at most this is left to `jax.jit`'s unrolling: a few
# copies of the body fuse better than a loop and compile as fast.
UNROLL_MAX = 16

CARRY_HELPER = "promote_carry"


# ---------------------------------------------------------------------- runtime helper
def promote_carry(body, carry, *index):
    """``carry`` with each value given the dtype and shape that ``body`` (called as
    ``body(*index, carry)``) makes of it: `lax.while_loop`/`fori_loop` need the carry's
    types fixed, while Python lets ``s = 0`` become a float array in the loop. Runs at trace
    time only (`jax.eval_shape`); a value already of the right type is returned as it is.

    Op by op (``jax.disable_jit``: the run that raises a failed check as written, or a
    function that cannot be traced) the ``lax`` loops run as Python loops on concrete values;
    where the body cannot be traced (a ``raise`` check, a Python ``if`` on a carried value),
    the types are those one concrete pass makes, and where that pass raises the carry is left
    as it is (the loop itself then raises, or never runs the body)."""
    import jax
    import jax.numpy as jnp

    def fit(value, made):
        array = jnp.asarray(value)
        dtype = jnp.result_type(array, made)
        shape = jnp.broadcast_shapes(array.shape, made.shape)
        if array.dtype != dtype or array.shape != shape:
            return jnp.broadcast_to(array.astype(dtype), shape)
        return value

    carry = tuple(carry)
    for _ in range(len(jax.tree.leaves(carry)) + 2):
        try:
            out = jax.eval_shape(lambda c: body(*index, c), carry)
        except jax.errors.ConcretizationTypeError:
            if not jax.config.jax_disable_jit:
                raise
            try:
                out = jax.tree.map(lambda v: jax.ShapeDtypeStruct(jnp.shape(v),
                                                                  jnp.result_type(v)),
                                   body(*index, carry))
            except Exception:       # noqa: BLE001 -- the loop's own pass raises it again
                return carry
        new = jax.tree.map(fit, carry, out)
        if all(a is b for a, b in zip(jax.tree.leaves(new), jax.tree.leaves(carry))):
            return carry
        carry = new
    return carry


# ---------------------------------------------------------------------- recognising loops
def _is_any_lane(node) -> bool:
    """``jnp.any(m)`` / ``m.any()``: the test of lanes the passes write (`Backend.any_lane`;
    ``np.`` where a NumPy rule wrote it before `finish` respelled it)."""
    if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
        return False
    if node.func.attr.value != "any":
        return False
    return not node.args or (isinstance(node.func.value, cst.Name)
                             and node.func.value.value in ("jnp", "np"))


def _mentions_any_lane(node) -> bool:
    stack = [node]
    while stack:
        n = stack.pop()
        if _is_any_lane(n):
            return True
        stack.extend(n.children)
    return False


def _own_exits(stmts, kinds=(cst.Break, cst.Continue)) -> list:
    """The break/continue statements (small statements) that belong to the loop whose body is
    ``stmts`` (not to loops nested in it), and returns anywhere."""
    out = []
    stack = list(stmts)
    while stack:
        n = stack.pop()
        if isinstance(n, (cst.For, cst.While)):
            stack.extend(_returns_in(n))
            continue
        if isinstance(n, cst.FunctionDef):
            continue
        if isinstance(n, kinds) or isinstance(n, cst.Return):
            out.append(n)
            continue
        stack.extend(n.children)
    return out


def _returns_in(node) -> list:
    return [n for n in walk(node) if isinstance(n, cst.Return)]



def _break_if(stmt):
    """``if T: break`` (no else): T, else None."""
    if isinstance(stmt, cst.If) and stmt.orelse is None:
        body = stmt.body.body
        if len(body) == 1 and isinstance(body[0], cst.SimpleStatementLine) and \
                len(body[0].body) == 1 and isinstance(body[0].body[0], cst.Break):
            return stmt.test
    return None


def _idempotent(stmts) -> bool:
    """Whether running ``stmts`` twice in a row gives what running them once does: plain
    assignments (and ``if ...: raise`` checks) where every name they read before assigning
    it is either left alone or narrowed as a mask (``m = m & e``, ``e`` not reading ``m``)."""
    if not stmts:
        return False
    state = exposed_reads(stmts)
    for stmt in stmts:
        if isinstance(stmt, cst.If) and stmt.orelse is None and all(
                isinstance(line, cst.SimpleStatementLine)
                and all(isinstance(small, cst.Raise) for small in line.body)
                for line in stmt.body.body):
            continue
        if not isinstance(stmt, cst.SimpleStatementLine):
            return False
        for small in stmt.body:
            if not isinstance(small, cst.Assign):
                return False
            names = {n for t in small.targets for n in target_names(t.target)}
            for name in names & state:
                value = small.value
                if not (len(small.targets) == 1 and isinstance(small.targets[0].target,
                                                               cst.Name)
                        and isinstance(value, cst.BinaryOperation)
                        and isinstance(value.operator, cst.BitAnd)
                        and isinstance(value.left, cst.Name) and value.left.value == name
                        and name not in reads(value.right)):
                    return False
    return True


def _temporaries(stmts) -> list:
    """The statements of an `_idempotent` head that make its temporaries: what the head
    narrows (the mask) and checks was done at the end of the last pass, on the same
    values."""
    state = exposed_reads(stmts)
    return [stmt.deep_clone() for stmt in stmts if isinstance(stmt, cst.SimpleStatementLine)
            and not (writes(stmt) & state)]


def _negated(test) -> cst.BaseExpression:
    """``not T`` as an expression a tracer can be (``not jnp.any(m)`` -> ``jnp.any(m)``)."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = test.expression
        return inner.with_changes(lpar=[], rpar=[]) if getattr(inner, "lpar", None) else inner
    return cst.Call(func=parse_expr("jnp.logical_not"), args=[cst.Arg(test)])


def _range_args(loop: cst.For):
    """(start, stop, step) expressions of ``for t in range(...)``, else None."""
    it = loop.iter
    if not (isinstance(it, cst.Call) and isinstance(it.func, cst.Name)
            and it.func.value == "range") or not 1 <= len(it.args) <= 3 or \
            any(a.keyword is not None or a.star for a in it.args):
        return None
    args = [a.value for a in it.args]
    if len(args) == 1:
        return cst.Integer("0"), args[0], None
    return args[0], args[1], args[2] if len(args) == 3 else None


def _int_literal(node):
    if isinstance(node, cst.Integer):
        return int(node.value, 0)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) and \
            isinstance(node.expression, cst.Integer):
        return -int(node.expression.value, 0)
    return None


_SEQUENCES = (cst.List, cst.Tuple, cst.ListComp, cst.Dict, cst.Set, cst.DictComp,
              cst.SetComp, cst.GeneratorExp)


def _python_sequence(value) -> bool:
    """Whether an assigned value may be a Python list, tuple, dict or set: a display or
    comprehension in it that no call turns into something else (``[0.0] * 3`` is,
    ``jnp.asarray([...])`` is not)."""
    stack = [value]
    while stack:
        n = stack.pop()
        if isinstance(n, _SEQUENCES):
            return True
        if isinstance(n, cst.Call):
            continue
        stack.extend(n.children)
    return False


_TRACE_SAFE_CALLS = ("jnp", "lax", "jax")


def _needs_python_int(loop: cst.For, name: str, local_names: set) -> bool:
    """Whether the body uses the loop variable where a traced integer will not do: an index
    into something that is not one of the function's own values (a module-level list or
    tuple), ``range(k)``, or a call of something that is not a jnp/lax function or ``abs``."""
    for node in walk(loop.body):
        if isinstance(node, cst.Subscript):
            if name in reads(node.slice[0]) if len(node.slice) == 1 else \
                    any(name in reads(s) for s in node.slice):
                base = node.value
                if not (isinstance(base, cst.Name) and base.value in local_names):
                    return True
        elif isinstance(node, cst.Call):
            if any(name in reads(a.value) for a in node.args):
                func = node.func
                root = func
                while isinstance(root, cst.Attribute):
                    root = root.value
                if isinstance(func, cst.Attribute) and isinstance(root, cst.Name) and \
                        root.value in _TRACE_SAFE_CALLS:
                    continue
                if isinstance(func, cst.Name) and func.value == "abs":
                    continue
                return True
    return False


def _tests_in_python(loop: cst.For, name: str) -> bool:
    """Whether the body makes a Python decision on the loop variable (``if k != 1:``, ``a if
    k else b``, ``k and x``, a ``while`` on it): a traced counter cannot be one."""
    for node in walk(loop.body):
        if isinstance(node, (cst.If, cst.While, cst.IfExp)) and name in reads(node.test):
            return True
        if isinstance(node, cst.BooleanOperation) and name in reads(node):
            return True
        if isinstance(node, cst.Assert) and name in reads(node.test):
            return True
    return False


_CONCRETE_CALLS = frozenset({"int", "float", "bool", "complex", "range", "len", "round",
                             "divmod", "hex", "oct", "bin", "chr", "ord", "str", "format",
                             "repr"})


def _raise_check(node: cst.If) -> bool:
    """``if jnp.any(<lanes that fail>): ... raise ...``: the engine's check, which the jitted
    form computes on the device (`runtime.jit_twin`), not a Python decision."""
    body = list(node.body.body)
    return node.orelse is None and bool(body) and isinstance(
        body[-1], cst.SimpleStatementLine) and any(
        isinstance(small, cst.Raise) for small in body[-1].body) and \
        _mentions_any_lane(node.test)


def _decides_in_python(stmts: list, names: set) -> bool:
    """Whether ``stmts`` need a concrete value of one of ``names``: a Python ``if``/
    ``while``/conditional expression/``assert``/``and``/``or``/chained comparison on it, or a
    Python builtin that converts it (``int(y)``, ``float(y > 0)``, ``range(y)``)."""
    block = cst.IndentedBlock(body=list(stmts))
    for node in walk(block):
        if isinstance(node, cst.If) and _raise_check(node):
            continue        # (a check of lanes: `checkify` in the jitted form)
        if isinstance(node, (cst.If, cst.While, cst.IfExp, cst.Assert)) and \
                reads(node.test) & names:
            return True
        if isinstance(node, cst.BooleanOperation) and reads(node) & names:
            return True
        if isinstance(node, cst.Comparison) and len(node.comparisons) > 1 and \
                reads(node) & names:
            return True
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and \
                node.func.value in _CONCRETE_CALLS and \
                any(reads(a.value) & names for a in node.args):
            return True
    return False


def _check_parts(stmt):
    """``if jnp.any(T): <assignments>; raise E`` (a check the passes wrote): (test, the
    assignment lines, the ``Raise``), else None."""
    if not isinstance(stmt, cst.If) or stmt.orelse is not None or \
            not _mentions_any_lane(stmt.test):
        return None
    lines = list(stmt.body.body)
    if not lines or not all(isinstance(line, cst.SimpleStatementLine) for line in lines):
        return None
    smalls = [small for line in lines for small in line.body]
    last = smalls[-1]
    if not isinstance(last, cst.Raise) or last.exc is None or \
            not all(isinstance(small, cst.Assign) for small in smalls[:-1]):
        return None
    assigns = [cst.SimpleStatementLine([small]) for small in smalls[:-1]]
    return stmt.test, assigns, last


def _any_argument(test):
    """``m`` of the first ``jnp.any(m)`` in ``test``, else None."""
    for node in walk(test):
        if _is_any_lane(node) and len(node.args) == 1:
            return node.args[0].value
    return None


def _assign(name: str, value) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], value)])


def _has_checks(stmts) -> bool:
    """Whether ``stmts`` hold a check (`_check_parts`, or an index checked in bounds:
    `_index_checks`), in nested blocks and loops too."""
    return any(isinstance(node, cst.If) and _check_parts(node) is not None
               or _is_in_bounds(node) for stmt in stmts for node in walk(stmt))


IN_BOUNDS = "in_bounds"     # (`writes.IN_BOUNDS`)


def _is_in_bounds(node) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and \
        node.func.value == IN_BOUNDS and len(node.args) == 2


class _IndexChecks(cst.CSTTransformer):
    """The ``in_bounds(index, size)`` calls of a statement (`writes.in_bounds`: a check of
    its own, which in a `lax` body would be an unfunctionalized ``checkify`` check), each
    replaced by a new name for its index (``(name, index, size)`` in ``found``), except where
    the index is computed only on a condition (in a conditional expression, ``and``/``or``,
    a ``lambda``, a comprehension)."""

    def __init__(self, fresh):
        self.fresh = fresh
        self.found: list = []
        self.depth = 0

    def visit_IfExp(self, node):
        self.depth += 1

    def leave_IfExp(self, original_node, updated_node):
        self.depth -= 1
        return updated_node

    visit_Lambda = visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = \
        visit_BooleanOperation = visit_IfExp
    leave_Lambda = leave_ListComp = leave_SetComp = leave_DictComp = leave_GeneratorExp = \
        leave_BooleanOperation = leave_IfExp

    def leave_Call(self, original_node, updated_node):
        if self.depth or not _is_in_bounds(updated_node):
            return updated_node
        name = self.fresh("index")
        self.found.append((name, updated_node.args[0].value, updated_node.args[1].value))
        return cst.Name(name)


def _string_like(node) -> bool:
    return isinstance(node, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString))


def _message_values(node, local: set, values: list, fresh):
    """``node`` (an exception or a part of one) with each value in it that reads a name of
    ``local`` (one the loops compute) replaced by a new name, appended to ``values`` as
    (name, value): the exception's call, a string's pieces, ``str(x)``, tuples are kept,
    the values they are made of are carried."""
    if not reads(node) & local:
        return node

    def inner(part):
        return _message_values(part, local, values, fresh)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
        return node.with_changes(args=[a.with_changes(value=inner(a.value))
                                       for a in node.args])
    if isinstance(node, cst.FormattedString):
        return node.with_changes(parts=[
            p.with_changes(expression=inner(p.expression))
            if isinstance(p, cst.FormattedStringExpression) else p for p in node.parts])
    if isinstance(node, cst.ConcatenatedString):
        return node.with_changes(left=inner(node.left), right=inner(node.right))
    if isinstance(node, cst.BinaryOperation) and (_string_like(node.left)
                                                  or _string_like(node.right)):
        return node.with_changes(left=inner(node.left), right=inner(node.right))
    if isinstance(node, (cst.Tuple, cst.List)):
        return node.with_changes(elements=[e.with_changes(value=inner(e.value))
                                           for e in node.elements])
    name = fresh("error_value")
    values.append((name, _indexed_as_jax(node, local)))
    return cst.Name(name)


def _indexed_as_jax(node, local: set):
    """``node`` with each array it indexes that the loops do not compute (a parameter, which
    may be a NumPy array: NumPy cannot index with a traced lane) read as ``jnp.asarray(a)``."""

    class Indexed(cst.CSTTransformer):
        def leave_Subscript(self, original_node, updated_node):
            base = updated_node.value
            if isinstance(base, cst.Name) and base.value not in local:
                return updated_node.with_changes(value=expr("jnp.asarray({a})", a=base))
            return updated_node
    return node.visit(Indexed())


# ---------------------------------------------------------------------- the rewrite
class _Lowering:
    def __init__(self, func: cst.FunctionDef, taken: set, locate, alias: str,
                 not_arrays=frozenset()):
        self.func = func
        self.taken = taken
        self.locate = locate or (lambda loop: None)
        self.alias = alias
        self.liveness = Liveness(func)
        params = func.params
        self.params = {p.name.value for p in (*params.posonly_params, *params.params,
                                              *params.kwonly_params)}
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                self.params.add(star.name.value)
        # the function's own values an index may be traced into: its parameters (arrays at
        # the boundary) and names it assigns, except those ever bound to a Python list,
        # tuple, dict or set (indexing one needs a Python int)
        sequences = {t.target.value for n in walk(func.body) if isinstance(n, cst.Assign)
                     and _python_sequence(n.value)
                     for t in n.targets if isinstance(t.target, cst.Name)}
        self.local_names = (self.params | writes(func.body)) - sequences - set(not_arrays)
        self.carry_param = self.fresh("carry")
        # the checks inside `lax` loop bodies (`_carry_checks`): the number of the first one
        # that failed is carried (`self.error`, 0: none), the values its exception is made of
        # too (`self.slots`), and it raises after the outermost loop (`self.pending`)
        self.depth = 0          # how many `lax` loop bodies enclose the code being lowered
        self.guarded = False    # whether a check in an enclosing loop body may have failed
        self.error = None
        self.numbered = 0
        self.slots: list = []
        self.pending: list = []
        self.enclosing: list = []   # the names each enclosing loop body assigns

    def fresh(self, base: str) -> str:
        candidate, n = base, 1
        while candidate in self.taken:
            n += 1
            candidate = f"{base}_{n}"
        self.taken.add(candidate)
        return candidate

    def refuse(self, loop, reason: str, suggestion: str = ""):
        node = self.locate(loop)
        raise Unsupported(f"under backend='jax', {reason}", node,
                          suggestion or "use backend='numpy' for this function")

    # --- statement lists
    def block(self, stmts: list, defined: set) -> list:
        out = []
        for stmt in stmts:
            out.extend(self.stmt(stmt, defined))
            defined |= writes(stmt) if not isinstance(stmt, cst.FunctionDef) else \
                {stmt.name.value}
        return out

    def stmt(self, stmt, defined: set) -> list:
        if isinstance(stmt, cst.While):
            return self.while_loop(stmt, set(defined))
        if isinstance(stmt, cst.For):
            return self.for_loop(stmt, set(defined))
        if isinstance(stmt, cst.If):
            body = self.block(list(stmt.body.body), set(defined))
            orelse = stmt.orelse
            if isinstance(orelse, cst.Else):
                orelse = orelse.with_changes(body=orelse.body.with_changes(
                    body=self.block(list(orelse.body.body), set(defined))))
            elif isinstance(orelse, cst.If):
                orelse = self.stmt(orelse, set(defined))[0]
            return [stmt.with_changes(body=stmt.body.with_changes(body=body), orelse=orelse)]
        if isinstance(stmt, cst.With):
            body = self.block(list(stmt.body.body), set(defined))
            return [stmt.with_changes(body=stmt.body.with_changes(body=body))]
        return [stmt]

    # --- carries
    def carry(self, loop, body: list, test=None, extra=()) -> list:
        """The loop-carried names, in a stable order: assigned in the loop and read in it
        before being assigned (or by its test), or live after it."""
        assigned = set()
        for s in body:
            assigned |= writes(s)
        if isinstance(loop, cst.For):
            assigned |= set(target_names(loop.target))
        needed = exposed_reads(body) | self.liveness.live_after.get(loop, set())
        needed |= set(extra)
        if test is not None:
            needed |= reads(test)
        names = assigned & needed
        # what the loop's test reads first (its `cond` unpacks those only)
        tested = reads(test) if test is not None else set()
        return sorted(names, key=lambda n: (n not in tested, n))

    def check_defined(self, loop, names, defined):
        missing = [n for n in names if n not in defined]
        if missing:
            self.refuse(loop, f"`{missing[0]}` is carried by a loop whose examples stop at "
                        "different times and has no value before it",
                        f"give `{missing[0]}` a value before the loop")

    # --- pieces of generated text
    @staticmethod
    def _names(names) -> str:
        if not names:
            return "()"
        return ", ".join(names) + ("," if len(names) == 1 else "")

    def _unpack(self, names, used=None) -> list:
        """``a, b, c = carry``; with ``used`` (the carry's names in order, those a ``cond``
        reads first), only those: ``a, *_ = carry``."""
        if not names:
            return []
        if used is not None:
            kept = [n for n in names if n in used]
            if len(kept) < len(names):
                targets = ", ".join(kept + ["*_"]) if kept else "_"
                return [parse_stmt(f"{targets} = {self.carry_param}\n")]
        return [parse_stmt(f"{self._names(names)} = {self.carry_param}\n")]

    def _def(self, name: str, params: str, body: list) -> cst.FunctionDef:
        return cst.FunctionDef(
            name=cst.Name(name), params=parse_stmt(f"def f({params}):\n    pass\n").params,
            body=cst.IndentedBlock(body=body),
            leading_lines=[cst.EmptyLine(indent=False)])

    def _call(self, names, func: str, args: list, live=None) -> cst.BaseStatement:
        """``names = func(args)`` after a blank line, its arguments on a line of their own
        when the statement would be long; a name not in ``live`` (not read after the loop)
        is ``_``."""
        kept = {self.error, *self.slots}
        targets = [n if live is None or n in live or n in kept else "_" for n in names]
        lhs = f"{self._names(targets)} = " if names else ""
        text = f"{lhs}{func}({', '.join(args)})"
        if len(text) > 80:
            text = f"{lhs}{func}(\n    {', '.join(args)})"
        return parse_stmt(text + "\n").with_changes(
            leading_lines=[cst.EmptyLine(indent=False)])

    def _loop_call(self, loop, names, func: str, args: list, body_name: str, index=()):
        extra = "".join(", " + i for i in index)
        carry = f"{CARRY_HELPER}({body_name}, ({self._names(names)}){extra})"
        return self._call(names, func, args + [carry], self.liveness.live_after.get(loop))

    def _body_def(self, name: str, params: str, carry_names, stmts, defined) -> cst.FunctionDef:
        """The loop's body as a function of its carry. Its checks (``if jnp.any(...): raise``)
        become carried values (`_carry_checks`): the names these add (the values the
        exceptions are made of) are appended to ``carry_names``."""
        inner = defined | set(carry_names)
        first_slot = len(self.slots)
        guarded = self.guarded
        self.depth += 1
        self.guarded = guarded or _has_checks(stmts)
        self.enclosing.append(set(carry_names) | writes(cst.IndentedBlock(body=list(stmts))))
        try:
            lowered = self._carry_checks(self.block(list(stmts), inner))
        finally:
            self.depth -= 1
            self.guarded = guarded
            self.enclosing.pop()
        carry_names.extend(n for n in self.slots[first_slot:] if n not in carry_names)
        unpack = self._unpack(carry_names)
        ret = parse_stmt(f"return {self._names(carry_names)}\n")
        return self._def(name, params, unpack + lowered + [ret])

    # --- checks in loop bodies
    def _checked(self, names: list, test, body: list):
        """Where the loop (``test``: its ``cond``'s, None for `lax.fori_loop`) runs after a
        check that may fail (one in ``body``, or in a loop body around it): ``names`` with
        the check's number carried, and the test that stops once a check failed."""
        if not (self.guarded or _has_checks(body)):
            return test
        if self.error is None:
            self.error = self.fresh("error")
        if self.error not in names:
            tested = reads(test) if test is not None else set()
            names.insert(sum(1 for n in names if n in tested), self.error)
        if test is None:
            return None
        return expr(f"{{test}} & ({self.error} == 0)", test=test)

    def _around(self, names: list, stmts: list) -> list:
        """``stmts`` (an outermost `lax` loop) with what its checks need: their number (and
        the values their exceptions are made of) set before, and after it the ``raise`` of
        the check that failed, as written: the first example to fail, in the loop's order,
        raises, as in the code for NumPy (where the batch raises in the pass that fails)."""
        if self.depth or self.error is None or self.error not in names:
            return stmts
        inits = [parse_stmt(f"{self.error} = 0\n")] + [
            parse_stmt(f"{slot} = False\n") for slot in names if slot in self.slots]
        raises = [self._numbered_raise(number, raise_) for number, raise_ in self.pending]
        self.pending = []
        return inits + stmts + raises

    def _numbered_raise(self, number: int, raise_: cst.Raise) -> cst.If:
        return cst.If(test=parse_expr(f"{self.error} == {number}"),
                      body=cst.IndentedBlock(body=[cst.SimpleStatementLine([raise_])]))

    def _carry_checks(self, stmts: list) -> list:
        """The checks in a loop body's statements (not in the loops nested in it, whose
        bodies had theirs carried already) as carried values: ``if jnp.any(T): raise E``
        becomes ``error = jnp.where((error == 0) & jnp.any(T), <its number>, error)``, and
        each value ``E`` reads that the loops compute (``x[jnp.argmax(failed)]``) is carried
        from the pass where the check first failed. A `lax` body is traced, where a Python
        ``if`` on a traced value cannot run (eagerly too)."""
        out = []
        for stmt in stmts:
            parts = _check_parts(stmt)
            if parts is not None:
                out.extend(self._carried_check(*parts))
            elif isinstance(stmt, cst.SimpleStatementLine) and _has_checks([stmt]):
                out.extend(self._index_checks(stmt))
            elif isinstance(stmt, cst.If):
                orelse = stmt.orelse
                if isinstance(orelse, cst.Else):
                    orelse = orelse.with_changes(body=orelse.body.with_changes(
                        body=self._carry_checks(list(orelse.body.body))))
                elif isinstance(orelse, cst.If):
                    orelse = self._carry_checks([orelse])[0]
                out.append(stmt.with_changes(body=stmt.body.with_changes(
                    body=self._carry_checks(list(stmt.body.body))), orelse=orelse))
            elif isinstance(stmt, (cst.For, cst.While, cst.With)):
                out.append(stmt.with_changes(body=stmt.body.with_changes(
                    body=self._carry_checks(list(stmt.body.body)))))
            else:
                out.append(stmt)
        return out

    def _index_checks(self, stmt) -> list:
        """``y = v[in_bounds(k, n)]`` in a loop body: the index given a name, its check
        carried as the others (`_carried_check`), raising what `writes.in_bounds` raises op by
        op (NumPy's IndexError, for the first index out of bounds)::

            index = k
            failed_index = (index < -n) | (index >= n)
            error = ...   # (`_carried_check` of `if jnp.any(failed_index): raise ...`)
            y = v[index]
        """
        checks = _IndexChecks(self.fresh)
        stmt = stmt.visit(checks)
        out = []
        for name, index, size in checks.found:
            failed = self.fresh("failed_index")
            n = cst.Module([]).code_for_node(size)
            if not isinstance(size, (cst.Integer, cst.Name, cst.Call, cst.Attribute,
                                     cst.Subscript)):
                n = f"({n})"
            jnp = self.alias
            out.append(_assign(name, index))
            out.append(parse_stmt(f"{failed} = ({name} < -{n}) | ({name} >= {n})\n"))
            first = f"{jnp}.ravel({name})[{jnp}.argmax({jnp}.ravel({failed}))]"
            message = parse_expr(f'IndexError(f"index {{{first}}} is out of bounds for axis 0 '
                                 f'with size {{{n}}}")')
            out.extend(self._carried_check(parse_expr(f"{jnp}.any({failed})"), [],
                                           cst.Raise(exc=message), {name, failed}))
        return out + [stmt]

    def _carried_check(self, test, assigns: list, raise_: cst.Raise, made=()) -> list:
        self.numbered += 1
        number = self.numbered
        local = set().union(*self.enclosing) | set(made)
        for line in assigns:
            local |= writes(line)
        values: list = []
        exc = _message_values(raise_.exc, local, values, self.fresh)
        cause = raise_.cause
        if cause is not None:
            cause = cause.with_changes(item=_message_values(cause.item, local, values,
                                                            self.fresh))
        self.pending.append((number, raise_.with_changes(exc=exc, cause=cause)))
        self.slots.extend(slot for slot, _ in values)
        error = self.error
        where = f"{self.alias}.where"
        if not assigns and not values:
            return [_assign(error, expr(f"{where}(({error} == 0) & {{test}}, {number}, {error})",
                                        test=test))]
        fails = self.fresh("fails")
        out = [_assign(fails, expr(f"({error} == 0) & {{test}}", test=test)),
               parse_stmt(f"{error} = {where}({fails}, {number}, {error})\n")]
        made = [line.deep_clone() for line in assigns]
        for slot, value in values:
            made.append(_assign(slot, expr(f"{where}({fails}, {{value}}, {slot})",
                                           value=value)))
        lanes = _any_argument(test)
        if lanes is None:
            return out + made
        # the exception's values are those of the first failing example: an empty batch
        # has none (its lanes cannot be indexed, even where no lane fails)
        return out + [cst.If(test=expr(f"{self.alias}.size({{m}})", m=lanes),
                             body=cst.IndentedBlock(body=made))]

    # --- while
    def while_loop(self, loop: cst.While, defined: set) -> list:
        body = list(loop.body.body)
        if loop.orelse is not None:
            if _mentions_any_lane(loop.test):
                self.refuse(loop, "`while ... else` over a per-example condition is not "
                            "supported")
            return [self._python_loop(loop, defined)]
        exits = _own_exits(body)
        if not exits and _mentions_any_lane(loop.test):
            return self._lower_while(loop, [], loop.test, body, defined)
        breaks = [i for i, s in enumerate(body) if _break_if(s) is not None]
        if isinstance(loop.test, cst.Name) and loop.test.value == "True" and \
                len(exits) == 1 and len(breaks) == 1 and \
                _mentions_any_lane(_break_if(body[breaks[0]])):
            k = breaks[0]
            head, tail = body[:k], body[k + 1:]
            # the head again at the start of each pass when running it twice gives what
            # running it once does: its temporaries (`zr * zr`) are then made in the pass,
            # not carried from the last one (less memory traffic per pass)
            again = _temporaries(head) if _idempotent(head) else []
            return self._lower_while(loop, head, _negated(_break_if(body[k])),
                                     again + tail + head, defined)
        if _mentions_any_lane(loop.test) or any(
                _mentions_any_lane(s) for s in body if _break_if(s) is not None):
            self.refuse(loop, "this loop whose examples stop at different times cannot "
                        "become `lax.while_loop` (it has more than one exit)")
        return [self._python_loop(loop, defined)]

    def _python_loop(self, loop, defined):
        inner = defined | writes(loop)
        new_body = self.block(list(loop.body.body), inner)
        return loop.with_changes(body=loop.body.with_changes(body=new_body))

    def _lower_while(self, loop, head: list, test, body: list, defined: set) -> list:
        """``head; while test: body`` (``body`` ends by recomputing ``head``)."""
        head = self.block(list(head), defined) if head else []
        for s in head:
            defined |= writes(s)
        names = self.carry(loop, body, test)
        self.check_defined(loop, names, defined)
        test = self._checked(names, test, body)
        cond_name, body_name = self.fresh("cond"), self.fresh("body")
        body_def = self._body_def(body_name, self.carry_param, names, body,
                                  defined | {self.error})
        cond = self._def(cond_name, self.carry_param, self._unpack(names, reads(test)) + [
            cst.SimpleStatementLine([cst.Return(test)])])
        call = self._loop_call(loop, names, "lax.while_loop", [cond_name, body_name],
                               body_name)
        return self._around(names, head + [cond, body_def, call])

    # --- for
    def for_loop(self, loop: cst.For, defined: set) -> list:
        body = list(loop.body.body)
        exits = _own_exits(body)
        masked = [s for s in body if _break_if(s) is not None and
                  _mentions_any_lane(_break_if(s))]
        rng = _range_args(loop)
        if not masked:
            if exits or loop.orelse is not None or rng is None or \
                    not isinstance(loop.target, cst.Name):
                return [self._python_loop(loop, defined)]
            return self._plain_range(loop, rng, body, defined)
        if len(exits) != 1 or _break_if(body[-1]) is None or loop.orelse is not None:
            self.refuse(loop, "this `for` loop whose examples leave it at different times "
                        "cannot become `lax.while_loop` (its exit is not its last statement)")
        if rng is None or not isinstance(loop.target, cst.Name) or _tests_in_python(
                loop, loop.target.value) or _needs_python_int(loop, loop.target.value,
                                                             self.local_names):
            # over a Python sequence (its length is known when tracing), or a range whose
            # variable the body needs as a Python int (a Python `if` on it): every pass runs,
            # the early stop dropped; the passes put the whole body under the loop's mask, so
            # a pass where no lane is active changes nothing
            return [self._python_loop(loop.with_changes(body=loop.body.with_changes(
                body=body[:-1])), defined)]
        start, stop, step = rng
        step_value = 1 if step is None else _int_literal(step)
        if not step_value:
            self.refuse(loop, "a `for` loop over a range whose step is not a constant, left at "
                        "different times by its examples", "use a constant step")
        target = loop.target.value
        live_after = self.liveness.live_after.get(loop, set())
        if target == "_" or target in live_after or target in writes(cst.IndentedBlock(
                body=body)):
            counter = self.fresh("trip" if target == "_" else f"{target}_next")
            first = [] if target == "_" else [parse_stmt(f"{target} = {counter}\n")]
        else:
            counter, first = target, []
        going = self.fresh("going")
        stop_text = cst.Module([]).code_for_node(stop)
        compare = "<" if step_value > 0 else ">"
        test = parse_expr(f"{going} & ({counter} {compare} {stop_text})")
        go = cst.SimpleStatementLine([cst.Assign(
            [cst.AssignTarget(cst.Name(going))], _negated(_break_if(body[-1])))])
        bump = parse_stmt(f"{counter} = {counter} + {step_value}\n")
        new_body = first + body[:-1] + [go, bump]
        defined = defined | {counter, going}
        names = self.carry(loop, new_body, test, extra=(counter, going))
        if target in names and target not in defined:
            self.refuse(loop, f"the loop variable `{target}` is read after a loop whose "
                        "examples stop at different times and has no value before it",
                        f"give `{target}` a value before the loop")
        self.check_defined(loop, names, defined)
        test = self._checked(names, test, new_body)
        init = [parse_stmt(f"{counter} = {cst.Module([]).code_for_node(start)}\n"),
                parse_stmt(f"{going} = True\n")]
        cond_name, body_name = self.fresh("cond"), self.fresh("body")
        body_def = self._body_def(body_name, self.carry_param, names, new_body,
                                  defined | {self.error})
        cond = self._def(cond_name, self.carry_param, self._unpack(names, reads(test)) + [
            cst.SimpleStatementLine([cst.Return(test)])])
        call = self._loop_call(loop, names, "lax.while_loop", [cond_name, body_name],
                               body_name)
        return self._around(names, init + [cond, body_def, call])

    def _plain_range(self, loop, rng, body, defined) -> list:
        """A loop with the same trip count for every example."""
        start, stop, step = rng
        count = _int_literal(stop) if _int_literal(start) == 0 else None
        if (count is not None and count <= UNROLL_MAX) or step is not None or \
                _needs_python_int(loop, loop.target.value, self.local_names):
            return [self._python_loop(loop, defined)]
        target = loop.target.value
        names = [n for n in self.carry(loop, body) if n != target]
        if any(n not in defined for n in names) or \
                target in self.liveness.live_after.get(loop, set()) or \
                _decides_in_python(body, flows_from(cst.IndentedBlock(body=body),
                                                    {*names, target})) or \
                _decides_in_python(self.func.body.body, flows_from(self.func.body,
                                                                   set(names))):
            # a Python decision on the index or a carried value, in the body or after the
            # loop: in (and out of) `lax.fori_loop` they are traced, in a Python loop the
            # index is an int and the carry as it comes (a static value stays one)
            return [self._python_loop(loop, defined)]
        self._checked(names, None, body)
        body_name = self.fresh("body")
        index = target if target != "_" else self.fresh("trip")
        body_def = self._body_def(body_name, f"{index}, {self.carry_param}", names, body,
                                  defined | {target, self.error})
        lo = cst.Module([]).code_for_node(start)
        hi = cst.Module([]).code_for_node(stop)
        call = self._loop_call(loop, names, "lax.fori_loop", [lo, hi, body_name], body_name,
                               (lo,))
        return self._around(names, [body_def, call])


def lower_loops(func: cst.FunctionDef, *, locate=None, alias: str = "jnp",
                not_arrays=frozenset()) -> cst.FunctionDef:
    """``func`` (generated code for the JAX namespace) with its per-example loops as `lax`
    loops (module docstring). ``locate(loop)`` maps a generated loop to the user's node an
    error should point at (or None); ``not_arrays``: parameters that are Python values (a
    list indexed by a loop variable keeps that loop a Python loop). Raises `Unsupported` for
    a loop it cannot lower."""
    if not any(isinstance(n, (cst.For, cst.While)) for n in walk(func.body)):
        return func
    lowering = _Lowering(func, all_names(func), locate, alias, not_arrays)
    defined = set(lowering.params)
    body = lowering.block(list(func.body.body), defined)
    return func.with_changes(body=func.body.with_changes(body=body))


def uses_carry_helper(func: cst.FunctionDef) -> bool:
    return CARRY_HELPER in all_names(func)


def lower(func_def: cst.FunctionDef, ctx) -> cst.FunctionDef:
    """`lower_loops` as the JAX backend's ``finish_function`` calls it: a refusal points at
    the loop the user wrote (the masked-loop pass records each mask's loop), or at the
    function's ``def`` where the loop has no mask (a loop with a per-example trip count
    that the passes did not mask)."""
    from ...passes.records import MaskedLoopFacts

    facts = MaskedLoopFacts.get(ctx)
    fallback = getattr(ctx.source, "tree", None)
    loops = getattr(facts, "loops", {})

    def locate(loop):
        for mask in sorted(all_names(loop) & set(facts.masks)):
            if loops.get(mask) is not None:
                return loops[mask]
        return fallback
    import numpy as np

    from ...abstract import Value
    not_arrays = {name for name, value in getattr(ctx, "params", {}).items()
                  if not (isinstance(value, Value) and (value.batched or isinstance(
                      value.example, (np.ndarray, np.generic))))}
    out = lower_loops(func_def, locate=locate, not_arrays=not_arrays)
    if out is not func_def:     # (`lax` is imported as `JaxBackend.extra_modules` says)
        if CARRY_HELPER in all_names(ctx.source.tree):
            from ...errors import Unsupported
            raise Unsupported(
                f"the function uses the name `{CARRY_HELPER}`, which the generated JAX code "
                "calls its loops' helper by", locate(func_def),
                f"give your `{CARRY_HELPER}` another name")
        ctx.module.runtime_imports.setdefault(CARRY_HELPER, promote_carry)
        out = _drop_dead_inits(out)
    return out


_PURE_CALLS = {"full", "full_like", "zeros", "ones", "zeros_like", "ones_like", "asarray"}
"""The array constructors a dead initial value may call: they compute nothing else."""


def _drop_dead_inits(func: cst.FunctionDef) -> cst.FunctionDef:
    """Initial values a loop's carry no longer reads: ``step = jnp.full(len(x), 1.0, ...)``
    before a ``while`` whose test the lowering made ``jnp.any(active)`` and whose body
    assigns ``step`` before reading it (``step`` is then local to ``body``). Only an
    assignment to a name nothing in the function reads, of constants, names and array
    constructors (`_PURE_CALLS`), at the function's top level."""
    counts: dict[str, int] = {}

    def count(tree, local=frozenset()):
        for node in _names_outside_defs(tree):
            if type(node) is cst.FunctionDef:
                # a name the nested `def` (`body`) assigns is its own
                inner = _bound_in(node)
                count(node.body, inner)
            elif node.value not in local:
                counts[node.value] = counts.get(node.value, 0) + 1
    count(func.body)
    body = []
    for stmt in func.body.body:
        small = stmt.body[0] if isinstance(stmt, cst.SimpleStatementLine) and \
            len(stmt.body) == 1 else None
        if type(small) is cst.Assign and len(small.targets) == 1 and \
                type(small.targets[0].target) is cst.Name and \
                counts.get(small.targets[0].target.value) == 1 and _pure_init(small.value):
            continue
        body.append(stmt)
    if len(body) == len(func.body.body):
        return func
    return func.with_changes(body=func.body.with_changes(body=body))


def _names_outside_defs(tree):
    """The names in ``tree``, and its nested ``def``s (not their names)."""
    stack = list(tree.children)
    while stack:
        node = stack.pop()
        if type(node) is cst.FunctionDef:
            yield node
            continue
        if type(node) is cst.Name:
            yield node
        stack.extend(node.children)


def _bound_in(func: cst.FunctionDef) -> frozenset:
    """The names local to ``func``: its parameters and what it assigns (none where it
    declares one ``nonlocal`` or ``global``)."""
    if any(type(n) in (cst.Nonlocal, cst.Global) for n in walk(func.body)):
        return frozenset()
    params = {p.name.value for p in walk(func.params) if type(p) is cst.Param}
    return frozenset(params | set(writes(func.body)))


def _pure_init(node) -> bool:
    if type(node) in (cst.Name, cst.Integer, cst.Float, cst.SimpleString):
        return True
    if type(node) is cst.Attribute:
        return _pure_init(node.value)
    if type(node) is cst.UnaryOperation:
        return _pure_init(node.expression)
    if type(node) is cst.Call:
        func = node.func
        name = func.attr.value if type(func) is cst.Attribute else \
            func.value if type(func) is cst.Name else None
        if name not in _PURE_CALLS and name != "len":
            return False
        if type(func) is cst.Attribute and not _pure_init(func.value):
            return False
        return all(_pure_init(arg.value) for arg in node.args)
    return False
