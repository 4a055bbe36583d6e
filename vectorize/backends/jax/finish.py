"""Generated code made valid for ``jax.jit`` (`JaxBackend.finish_function`), after every pass.

- **NumPy's spelling → JAX's** (`spelled_with_jnp`): the rules of NumPy's tables write ``np.``
  (and a call the user wrote with ``np.``/``numpy.`` stays as written); each such reference
  becomes ``jnp.`` with the same attribute path, or is refused, located, where ``jax.numpy``
  has no such function (``np.random``: JAX draws need explicit keys).
- **Sums, divisions, conversions as NumPy's** (`sums_in_order`, `casts.converted`): sums in
  NumPy's order, ``//``, ``%`` and ``divmod`` with NumPy's quotients and zero signs, floats
  converted to signed integers as NumPy converts them.
- **Writes into arrays** (`writes.functional`): ``y[:, i] = v`` → ``y = y.at[:, i].set(v)``
  (JAX arrays are immutable); the rebound name is then carried by the loops around it.
- **Per-example loops** (`lower_loops`): a ``while`` that runs until no lane is active (a
  masked loop, `passes.masked_loops`) tests a traced value, which ``jit`` cannot do. They are
  lowered to ``lax.while_loop`` by `loops.lower` where that module exists; a masked loop left
  after it is refused, located at the loop the user wrote.

  The contract of ``loops.lower(func_def, ctx) -> func_def``: called once per generated
  function (the main one and each helper) that has masked loops, after the respelling above
  (the code is ``jnp``'s); the masks are ``records.MaskedLoopFacts.get(ctx).masks`` and each
  one's loop as the user wrote it ``.loops[mask]`` (for a located refusal:
  ``errors.Unsupported(message, node, suggestion)``). The code may call ``lax.`` (the
  generated module imports it where its code names it: ``JaxBackend.extra_modules``). Any
  ``while``/``for`` still reading a mask afterwards is refused here. The ``raise`` checks
  (``if jnp.any(c): raise ...``) stay as they are, except inside a ``lax`` loop body (traced
  even without ``jit``): there the loop carries the number of the check that failed and the
  values of its exception, and the ``raise`` follows the loop (``if error == 1: raise ...``);
  `runtime` makes both kinds ``checkify`` checks in the jitted form.

What the front ends run is `runtime.Compiled`; the ``raise`` checks (``if jnp.any(c): raise
...``) stay in the source and become functionalized checks only in the jitted twin
(`runtime.jit_twin`).
"""

from __future__ import annotations

import inspect

import libcst as cst
import numpy as np

from ...errors import Unsupported
from ...passes.records import MaskedLoopFacts
from ...syntax.traversal import attribute_path
from . import casts, ints, writes
from .loops import lower as lower_masked
from .writes import located

NUMPY_ALIAS = "np"      # how NumPy's rules spell the module (its backend's alias)


def finish(func_def: cst.FunctionDef, ctx) -> cst.FunctionDef:
    func_def = spelled_with_jnp(func_def, ctx)
    func_def = writes.functional(func_def, ctx)
    func_def = sums_in_order(func_def, ctx)
    func_def = casts.converted(func_def, ctx)
    func_def = ints.imported(func_def, ctx)
    return lower_loops(func_def, ctx)


# ------------------------------------------------------------------ sums
class _PairwiseSums(cst.CSTTransformer):
    """``jnp.sum(x, axis=k)`` (``keepdims=`` too) → ``pairwise_sum(x, axis=k)``;
    ``jnp.add.accumulate(x, axis=k)`` → ``accumulate_in_order(x, axis=k)``; ``a // b``
    and ``jnp.floor_divide(a, b)`` → ``floor_divide(a, b)``; ``jnp.divmod(a, b)`` →
    ``floor_divmod(a, b)``; ``a % b``, ``jnp.remainder(a, b)``, ``jnp.mod(a, b)`` →
    ``floor_mod(a, b)``."""

    def __init__(self):
        self.count = 0
        self.floor_divides = 0
        self.accumulates = 0
        self.reductions: set = set()

    def leave_BinaryOperation(self, original_node, updated_node):
        if isinstance(updated_node.operator, cst.Modulo):
            self.reductions.add(FLOOR_MOD)
            return cst.Call(func=cst.Name(FLOOR_MOD), args=[
                cst.Arg(updated_node.left), cst.Arg(updated_node.right)])
        if not isinstance(updated_node.operator, cst.FloorDivide):
            return updated_node
        self.floor_divides += 1
        return cst.Call(func=cst.Name(FLOOR_DIVIDE), args=[
            cst.Arg(updated_node.left), cst.Arg(updated_node.right)])

    def leave_AugAssign(self, original_node, updated_node):
        if isinstance(updated_node.operator, cst.ModuloAssign):
            self.reductions.add(FLOOR_MOD)
            name = FLOOR_MOD
        elif isinstance(updated_node.operator, cst.FloorDivideAssign):
            self.floor_divides += 1
            name = FLOOR_DIVIDE
        else:
            return updated_node
        return cst.Assign(targets=[cst.AssignTarget(updated_node.target)], value=cst.Call(
            func=cst.Name(name), args=[cst.Arg(updated_node.target),
                                       cst.Arg(updated_node.value)]))

    def leave_Call(self, original_node, updated_node):
        if attribute_path(updated_node.func) in (["jnp", "floor_divide"], ["jnp", "divmod"],
                                        ["jnp", "remainder"], ["jnp", "mod"]) and \
                len(updated_node.args) == 2 and \
                all(a.keyword is None and not a.star for a in updated_node.args):
            helper = HELPERS.get(updated_node.func.attr.value)
            if helper is not None:
                self.reductions.add(helper)     # (a helper of `sums`, as those)
                return updated_node.with_changes(func=cst.Name(helper))
            self.floor_divides += 1
            return updated_node.with_changes(func=cst.Name(FLOOR_DIVIDE))
        path = attribute_path(updated_node.func)
        if path == ["jnp", "sign"] and len(updated_node.args) == 1 and \
                updated_node.args[0].keyword is None and not updated_node.args[0].star:
            self.reductions.add(SIGN)
            return updated_node.with_changes(func=cst.Name(SIGN))
        if path == ["jnp", "add", "accumulate"] and len(updated_node.args) == 2 and \
                updated_node.args[1].keyword is not None and \
                updated_node.args[1].keyword.value == "axis":
            self.accumulates += 1
            return updated_node.with_changes(func=cst.Name(ACCUMULATE))
        if path is None or (path != ["jnp", "sum"] and tuple(path) not in REDUCTIONS) or \
                not updated_node.args:
            return updated_node
        first, *rest = updated_node.args
        if first.keyword is not None or first.star or any(
                a.star or a.keyword is None or a.keyword.value not in ("axis", "keepdims")
                for a in rest) or not any(a.keyword.value == "axis" for a in rest):
            return updated_node
        if path != ["jnp", "sum"]:
            name = REDUCTIONS[tuple(path)]
            self.reductions.add(name)
            return updated_node.with_changes(func=cst.Name(name))
        self.count += 1
        return updated_node.with_changes(func=cst.Name(PAIRWISE_SUM))


PAIRWISE_SUM = "pairwise_sum"
ACCUMULATE = "accumulate_in_order"
FLOOR_DIVIDE = "floor_divide"
FLOOR_DIVMOD = "floor_divmod"
FLOOR_MOD = "floor_mod"
HYPOT = "hypot_as_numpy"
# `jnp.sign(-0.0)` is -0.0, NumPy's `np.sign(-0.0)` 0.0 (a later `1 / s` is -inf, not inf)
SIGN = "sign_as_numpy"
HELPERS = {"divmod": FLOOR_DIVMOD, "remainder": FLOOR_MOD, "mod": FLOOR_MOD}
# XLA's max/min reductions drop NaNs on large batches: NumPy's keep them
REDUCTIONS = {("jnp", "max"): "max_keeping_nan", ("jnp", "amax"): "max_keeping_nan",
              ("jnp", "min"): "min_keeping_nan", ("jnp", "amin"): "min_keeping_nan"}


def sums_in_order(func_def: cst.FunctionDef, ctx) -> cst.FunctionDef:
    """Sums over an axis in NumPy's order of additions (`sums.pairwise_sum`): XLA's own
    order changes with the batch size, and where terms cancel so does the sum. Float floor
    divisions as Python's and NumPy's (`sums.floor_divide`): ``jnp.floor_divide`` rounds the
    quotient where they floor it."""
    from .sums import floor_divide, pairwise_sum
    rewrite = _PairwiseSums()
    out = func_def.visit(rewrite)
    if rewrite.count:
        ctx.module.runtime_imports.setdefault(PAIRWISE_SUM, pairwise_sum)
    if rewrite.floor_divides:
        ctx.module.runtime_imports.setdefault(FLOOR_DIVIDE, floor_divide)
    if rewrite.accumulates:
        from .sums import accumulate_in_order
        ctx.module.runtime_imports.setdefault(ACCUMULATE, accumulate_in_order)
    from . import sums
    for name in sorted(rewrite.reductions):
        ctx.module.runtime_imports.setdefault(name, getattr(sums, name))
    return out


# ------------------------------------------------------------------ NumPy's spelling
def _numpy_names(ctx) -> set[str]:
    """Names that stand for the NumPy module in the generated function: the NumPy rules'
    ``np`` (unless the user's module binds it to something else), and any global name the
    user bound to NumPy (``import numpy as onp``)."""
    names = set()
    glob = getattr(ctx.source, "globals", {}) or {}
    for name, value in glob.items():
        if value is np:
            names.add(name)
    if NUMPY_ALIAS not in glob or glob[NUMPY_ALIAS] is np:
        names.add(NUMPY_ALIAS)
    return names


class _Respell(cst.CSTTransformer):
    def __init__(self, ctx, names):
        self.ctx = ctx
        self.names = names
        import jax.numpy as jnp
        self.jnp = jnp
        self.refusal = None

    def leave_Attribute(self, original_node, updated_node):
        path = attribute_path(updated_node)
        if path is None or path[0] not in self.names or len(path) < 2:
            return updated_node
        target = self.jnp
        for part in path[1:]:
            target = getattr(target, part, None)
            if target is None:
                break
        if target is None:
            if self.refusal is None:
                self.refusal = (path, original_node, None)
            return updated_node
        node = cst.Name("jnp")
        for part in path[1:]:
            node = cst.Attribute(value=node, attr=cst.Name(part))
        return node

    def leave_Call(self, original_node, updated_node):
        """A keyword NumPy's function takes and JAX's does not (``kind=`` of ``argsort``):
        refused here rather than a TypeError when ``jit`` traces the call."""
        path = attribute_path(updated_node.func)
        if path is None or path[0] != "jnp" or self.refusal is not None:
            return updated_node
        target = self.jnp
        for part in path[1:]:
            target = getattr(target, part, None)
        try:
            parameters = inspect.signature(target).parameters
        except (TypeError, ValueError):
            return updated_node
        if path[-1] in ("sort", "argsort"):
            updated_node = self._sort_kind(original_node, updated_node, path)
        if path[1:] in (["broadcast_arrays"], ["einsum"]):
            # NumPy converts a list or tuple operand (a row of a nested list display, the
            # constant vector of `np.dot([a, b], [2.0, -1.0])`) to an array; jnp takes arrays
            # only
            updated_node = updated_node.with_changes(args=[
                arg.with_changes(value=cst.Call(
                    func=cst.Attribute(cst.Name("jnp"), cst.Name("asarray")),
                    args=[cst.Arg(arg.value)]))
                if isinstance(arg.value, (cst.List, cst.Tuple)) and not arg.keyword else arg
                for arg in updated_node.args])
        if path[1:] == ["hypot"] and attribute_path(original_node.func)[0] in self.names \
                and len(updated_node.args) == 2 and \
                all(a.keyword is None and not a.star for a in updated_node.args):
            # NumPy's `np.hypot` is correctly rounded, `jnp.hypot` an ulp off on a third of
            # the pairs (`hypot.hypot_as_numpy`); a `jnp.hypot` the user wrote stays JAX's
            from .hypot import hypot_as_numpy
            self.ctx.module.runtime_imports.setdefault(HYPOT, hypot_as_numpy)
            return updated_node.with_changes(func=cst.Name(HYPOT))
        if any(p.kind is p.VAR_KEYWORD for p in parameters.values()):
            return updated_node
        for arg in updated_node.args:
            if arg.keyword is not None and arg.keyword.value not in parameters:
                self.refusal = (["np", *path[1:]], original_node,
                                f"`{'.'.join(['jnp', *path[1:]])}` takes no keyword "
                                f"`{arg.keyword.value}`")
        return updated_node

    def _sort_kind(self, original_node, node, path):
        """``kind="stable"`` (or ``"mergesort"``) of NumPy's sorts is JAX's ``stable=True``;
        another kind (an unstable sort, whose order of ties is NumPy's own) is refused."""
        args = []
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value == "kind":
                value = arg.value
                if isinstance(value, cst.SimpleString) and value.evaluated_value in (
                        "stable", "mergesort"):
                    args.append(arg.with_changes(keyword=cst.Name("stable"),
                                                 value=cst.Name("True")))
                    continue
                if self.refusal is None:
                    self.refusal = (["np", *path[1:]], original_node,
                                    f"`{'.'.join(['jnp', *path[1:]])}` sorts stably or "
                                    "not (`stable=`), with no `kind` but a stable one")
            args.append(arg)
        return node.with_changes(args=args)

    def visit_Attribute(self, node):
        # the whole chain is rewritten at its outermost attribute
        path = attribute_path(node)
        return not (path is not None and path[0] in self.names)


def spelled_with_jnp(func_def: cst.FunctionDef, ctx) -> cst.FunctionDef:
    names = _numpy_names(ctx)
    respell = _Respell(ctx, names)
    out = func_def.visit(respell)
    if respell.refusal is not None:
        path, node, reason = respell.refusal
        name = ".".join(path)
        if reason is not None:
            raise Unsupported(f"{reason}, so the JAX backend cannot write `{name}` as called",
                              located(node, ctx), "call it without that argument, or use "
                              "backend=\"numpy\"")
        if path[1] == "random":
            raise Unsupported(
                f"`{name}`: a NumPy random draw cannot run under jax.jit (JAX draws need "
                "explicit keys)", located(node, ctx),
                "draw the noise with jax.random for the whole batch outside the function "
                "and pass it in as an argument")
        raise Unsupported(f"`{name}` has no jax.numpy counterpart, so the JAX backend "
                          "cannot write it", located(node, ctx),
                          "compute it outside the function, or use backend=\"numpy\"")
    return out


# ---------------------------------------------------------------- per-example loops
def lower_loops(func_def: cst.FunctionDef, ctx) -> cst.FunctionDef:
    """Masked loops lowered to ``lax.while_loop`` (`loops.lower`); a masked loop still in the
    code is refused."""
    facts = MaskedLoopFacts.get(ctx)
    func_def = lower_masked(func_def, ctx)     # also shared trip counts (`fori_loop`)
    if not facts.masks:
        return func_def
    left = _masks_in(func_def, facts.masks)
    if left:
        mask = min(left, key=lambda m: ctx.source.location(facts.loops.get(m))
                   if facts.loops.get(m) is not None else (0, 0))
        loop = facts.loops.get(mask)
        raise Unsupported(
            "a loop whose number of passes differs between examples (a per-example "
            "`while` condition, `break` or `return`) is not supported by the JAX backend "
            "yet: under jax.jit the loop cannot test a traced value", loop,
            "use backend=\"numpy\" (or \"torch\") for this function, or write the loop "
            "with jax.lax.while_loop")
    return func_def


def _masks_in(func_def, masks) -> set[str]:
    """The masks that a ``while`` or ``for`` loop of the function still tests in Python (its
    ``while`` test, or an ``if`` that leaves it): what ``jit`` cannot run. A loop with the same trip
    count for every example may compute masks (an inner loop's, lowered) without testing
    them."""
    found = set()

    class _Names(cst.CSTVisitor):
        def visit_Name(self, node):
            if node.value in masks:
                found.add(node.value)

    class _Find(cst.CSTVisitor):
        def visit_While(self, node):
            node.test.visit(_Names())

        def visit_If(self, node):
            # a test that leaves the loop (a `raise` check is checkify's, in the jitted twin)
            if any(isinstance(line, cst.SimpleStatementLine) and
                   any(isinstance(small, (cst.Break, cst.Continue)) for small in line.body)
                   for line in node.body.body):
                node.test.visit(_Names())

        def visit_FunctionDef(self, node):     # a lowered loop's `cond`/`body`
            return False

    for node in _loops(func_def):
        node.visit(_Find())
    return found


def _loops(func_def):
    out = []

    class _Collect(cst.CSTVisitor):
        def visit_While(self, node):
            out.append(node)

        def visit_For(self, node):
            out.append(node)

    func_def.visit(_Collect())
    return out
