"""Writes into arrays the function creates, as JAX's functional updates (`finish`).

JAX arrays are immutable. The passes write a write into an array the function creates
(``y = np.zeros(3); y[0] = x``, masked under a per-example ``if`` by `passes.if_to_where`, with
per-example indices by the subscript rule) as NumPy does, ``y[:, 0] = x``; here each such
statement becomes the update that rebinds the name to the new array:

    y[:, 0] = x                              y = y.at[:, 0].set(x)
    y[:, 1] = jnp.where(c, y[:, 1] + x, ...)  ->  y = y.at[:, 1].set(jnp.where(c, ...))
    acc[jnp.arange(len(acc)), k % 3] += v      acc = acc.at[...].set(acc[...] + v)
    out[:, i], out[:, j] = a, b               new, new_2 = a, b
                                              out = out.at[:, i].set(new)
                                              out = out.at[:, j].set(new_2)

An augmented write reads the items first and sets them (``.set(y[i] + v)``, not ``.add``),
as NumPy's buffered ``y[i] += v`` does where an index repeats. The updates keep the
statements' order and Python's: the right side is evaluated before any target is written,
targets are written left to right. Under ``jit`` XLA updates the buffer in place where
nothing else reads the old value. A masked loop that writes into an array carries it
(`loops`: the name is rebound in its body).

What per example would be another name for the same array stays refused by the analysis
(``z = y`` with ``y`` written into; a view of ``y`` bound to a name that is read after ``y``
is written, `Backend.views`). A helper function that writes into an array its caller passes
(``def bump(w, i): w[i] += 1``) returns the new arrays instead, and its call (a statement)
rebinds the caller's names: ``out = bump(out, i)`` (`_returning`). Refused here, located:
such a helper that also returns a value or is called inside an expression, and the in-place
methods that would change an array (``y.sort()``; JAX's returns a new one and the call's
result is thrown away).

Indexes that differ per example are checked: a JAX gather clamps an index beyond the end and
a scatter drops it, where NumPy (and the per-example code) raise IndexError. The subscript
rule writes them ``in_bounds(k, size)`` (`JaxBackend.checked_index`), which under ``jit`` is
a ``checkify`` check (`runtime`: a failed one runs the function again op by op) and op by op
raises the IndexError as the per-example code does.
"""

from __future__ import annotations

import libcst as cst

from ...errors import Unsupported
from ...liveness import Namer, all_names
from .lookups import DICT_LOOKUP, dict_lookup

IN_BOUNDS = "in_bounds"
SET_ITEM = "set_item"

# array methods that change the array they are called on (a JAX array's, where it has them,
# return a new one)
_CHANGING_METHODS = frozenset({"sort", "fill", "put", "resize", "partition", "itemset",
                               "setfield", "setflags", "byteswap"})


def in_bounds(index, size: int):
    """``index`` (an integer index into an axis of ``size`` items, per example or not),
    checked: where some item of it is out of bounds (not in ``-size .. size - 1``) the check
    fails under ``jit`` (``checkify``), and op by op IndexError is raised, with NumPy's
    message for the first such item. (Self-contained: the file rewriter writes it into a file
    that imports no NumPy.)"""
    import jax
    import numpy as np
    from jax.experimental import checkify
    jnp = jax.numpy
    if isinstance(index, jax.core.Tracer):
        ok = jnp.all((index >= -size) & (index < size))
        checkify.check(ok, "index out of bounds")
        return index
    values = np.asarray(index)
    if values.dtype.kind in "iu":
        bad = (values < -size) | (values >= size)
        if bad.any():
            first = values[bad].flat[0] if values.ndim else values
            raise IndexError(f"index {int(first)} is out of bounds for axis 0 with size "
                             f"{size}")
    return index


def set_item(array, index, value, where_max=32):
    """``array.at[:, *index].set(value)``: each example's item ``index`` (integer constants,
    one per axis after the batch's; in bounds, as the analysis checked them) set to its
    ``value`` (in the array's dtype, as NumPy casts what it writes).

    Where those axes hold at most ``where_max`` items, the item is selected into the array
    (``jnp.where`` of a constant mask), not scattered: XLA fuses a chain of selects (a row
    or table filled item by item, ``y[0] = a; y[1] = b; ...``) into one loop and compiles it
    several times faster than the chain of scatters. Beyond (a chain of selects computes
    every one of them for every item), it is scattered. (Self-contained: the file rewriter
    copies it into the files it writes.)"""
    import jax.numpy as jnp
    import numpy as np
    index = index if isinstance(index, tuple) else (index,)
    value = jnp.asarray(value, dtype=array.dtype)
    shape = array.shape
    axes, rest = shape[1:1 + len(index)], shape[1 + len(index):]
    if len(axes) != len(index) or int(np.prod(axes)) > where_max or any(
            not -size <= i < size for i, size in zip(index, axes)):
        return array.at[(slice(None), *index)].set(value)
    mask = np.zeros(axes, dtype=bool)
    mask[index] = True
    value = jnp.broadcast_to(value, shape[:1] + rest).reshape(
        shape[:1] + (1,) * len(axes) + rest)
    return jnp.where(mask.reshape(axes + (1,) * len(rest)), value, array)


def _constant_items(target: cst.Subscript):
    """The integer constants of a write ``y[:, 1, -2]`` (each example's ``y[1, -2]``), or
    None for any other subscript."""
    elements = target.slice
    if len(elements) < 2:
        return None
    first = elements[0].slice
    if not (isinstance(first, cst.Slice) and first.lower is None and first.upper is None
            and first.step is None):
        return None
    items = []
    for element in elements[1:]:
        node = element.slice
        if not isinstance(node, cst.Index) or node.star is not None:
            return None
        value, sign = node.value, 1
        if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
            value, sign = value.expression, -1
        if not isinstance(value, cst.Integer) or value.lpar or value.rpar:
            return None
        items.append(sign * int(value.evaluated_value))
    return items


def checked(func_def: cst.FunctionDef, name: str = IN_BOUNDS) -> bool:
    """Whether the function checks indexes (calls `in_bounds`, or the helper ``name``)."""
    class _Find(cst.CSTVisitor):
        found = False

        def visit_Call(self, node):
            if isinstance(node.func, cst.Name) and node.func.value == name:
                _Find.found = True
    func_def.visit(_Find())
    return _Find.found


def functional(func_def: cst.FunctionDef, ctx) -> cst.FunctionDef:
    """Writes into arrays as functional updates (module docstring); `in_bounds` made
    available where the code calls it."""
    if checked(func_def):
        ctx.module.runtime_imports.setdefault(IN_BOUNDS, in_bounds)
    if checked(func_def, DICT_LOOKUP):     # (a dict looked up by per-example keys)
        ctx.module.runtime_imports.setdefault(DICT_LOOKUP, dict_lookup)
    ctx.module.runtime_imports.setdefault(SET_ITEM, set_item)     # (imported where used)
    positional = [p.name.value for p in (*func_def.params.posonly_params,
                                         *func_def.params.params)]
    params = set(positional) | {p.name.value for p in func_def.params.kwonly_params}
    helpers = ctx.module.backend_state.setdefault(HELPER_WRITES, {})
    rewrite = _Writes(ctx, params, Namer(all_names(func_def)), helpers)
    out = func_def.visit(rewrite)
    if rewrite.written:
        out = _returning(out, ctx, rewrite, positional)
        helpers[ctx.name] = [positional.index(n) for n in sorted(
            rewrite.written, key=positional.index)]
    return out


HELPER_WRITES = "jax_helper_writes"
"""The transform's (`transform` module's ``backend_state``) generated helper functions that
write into arrays their callers pass: helper name -> the positions of those parameters (the
helper returns the new arrays, its caller rebinds them)."""


def _returning(func_def, ctx, rewrite, positional):
    """A helper that writes into its parameters (``def bump(w, i): w[:, i] += 1``) returning
    their new arrays (``return w``) at its ``return`` and its end: JAX arrays cannot be
    changed in place, so its caller rebinds its names to them (`_Writes._call`)."""
    names = sorted(rewrite.written, key=positional.index)
    first = rewrite.written[names[0]]
    if any(n not in positional for n in names):
        raise Unsupported("under backend='jax', a function called from another writes into "
                          "an array passed to it by keyword only", located(first, ctx),
                          "return the new array and assign it in the caller")
    returned = cst.Name(names[0]) if len(names) == 1 else cst.Tuple(
        [cst.Element(cst.Name(n)) for n in names])

    class _Returns(cst.CSTTransformer):
        def visit_FunctionDef(self, node):
            return node is func_def

        def visit_Lambda(self, node):
            return False

        def leave_Return(self, original_node, updated_node):
            if updated_node.value is not None:
                raise Unsupported(
                    "under backend='jax', a function called from another both returns a "
                    f"value and writes into `{names[0]}`, an array its caller passes: JAX "
                    "arrays cannot be changed in place", located(first, ctx),
                    f"return `{names[0]}` with the value and assign both in the caller, or "
                    "use backend='numpy'")
            return updated_node.with_changes(value=returned)
    out = func_def.visit(_Returns())
    body = list(out.body.body)
    last = body[-1] if body else None
    if not (isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1],
                                                                     cst.Return)):
        body.append(cst.SimpleStatementLine([cst.Return(returned)]))
    return out.with_changes(body=out.body.with_changes(body=body))


def located(node, ctx):
    """``node`` if it is the user's, else its first part that is (for a refusal's caret)."""
    positions = getattr(ctx.source, "positions", {})
    stack = [node]
    while stack:
        part = stack.pop()
        if part in positions:
            return part
        stack.extend(reversed(list(part.children)))
    return None


def _subscripts_in(target) -> list:
    if isinstance(target, cst.Subscript):
        return [target]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [s for e in target.elements for s in _subscripts_in(e.value)]
    return []


def _literal(value) -> bool:
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
        value = value.expression
    return isinstance(value, (cst.Integer, cst.Float))


def _update(target: cst.Subscript, value: cst.BaseExpression) -> cst.Assign:
    """``name = name.at[index].set(value)``, the value in the array's dtype (as NumPy casts
    what it writes: JAX's scatter wants one dtype, and its derivative fails without); an
    item at constant indices ``name = set_item(name, 1, value)`` (`set_item`)."""
    base = target.value
    items = _constant_items(target)
    if items is not None:
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        spelled = [cst.UnaryOperation(cst.Minus(), cst.Integer(str(-i))) if i < 0
                   else cst.Integer(str(i)) for i in items]
        index = spelled[0] if len(items) == 1 else cst.Tuple(
            [cst.Element(i) for i in spelled])
        call = cst.Call(func=cst.Name(SET_ITEM), args=[
            cst.Arg(cst.Name(base.value), comma=comma), cst.Arg(index, comma=comma),
            cst.Arg(value)])
        return cst.Assign(targets=[cst.AssignTarget(cst.Name(base.value))], value=call)
    if not _literal(value):
        value = cst.Call(func=cst.Attribute(cst.Name("jnp"), cst.Name("asarray")), args=[
            cst.Arg(value, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
            cst.Arg(cst.Attribute(cst.Name(base.value), cst.Name("dtype")),
                    keyword=cst.Name("dtype"),
                    equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                          whitespace_after=cst.SimpleWhitespace("")))])
    at = cst.Subscript(value=cst.Attribute(value=base, attr=cst.Name("at")),
                       slice=target.slice)
    call = cst.Call(func=cst.Attribute(value=at, attr=cst.Name("set")),
                    args=[cst.Arg(value)])
    return cst.Assign(targets=[cst.AssignTarget(cst.Name(base.value))], value=call)


def _read(target: cst.Subscript) -> cst.Subscript:
    return target.with_changes(lpar=[], rpar=[])


_OPERATORS = {
    cst.AddAssign: cst.Add, cst.SubtractAssign: cst.Subtract,
    cst.MultiplyAssign: cst.Multiply, cst.DivideAssign: cst.Divide,
    cst.FloorDivideAssign: cst.FloorDivide, cst.ModuloAssign: cst.Modulo,
    cst.PowerAssign: cst.Power, cst.MatrixMultiplyAssign: cst.MatrixMultiply,
    cst.BitAndAssign: cst.BitAnd, cst.BitOrAssign: cst.BitOr, cst.BitXorAssign: cst.BitXor,
    cst.LeftShiftAssign: cst.LeftShift, cst.RightShiftAssign: cst.RightShift,
}


class _Writes(cst.CSTTransformer):
    def __init__(self, ctx, params: set, namer: Namer, helpers: dict):
        self.ctx = ctx
        self.params = params
        self.namer = namer
        self.helpers = helpers          # helper name -> positions of the arrays it writes
        self.written: dict = {}         # parameter written into -> the first statement
        self.calls_rebound: set = set()

    def leave_Call(self, original_node, updated_node):
        # a helper that writes into its caller's arrays returns them: called as a statement
        # only (`_call`), where the caller rebinds its names
        if isinstance(updated_node.func, cst.Name) and updated_node.func.value in \
                self.helpers and id(original_node) not in self.calls_rebound:
            raise Unsupported(
                f"under backend='jax', `{updated_node.func.value}` writes into an array it is "
                "passed, and its call is part of an expression: JAX arrays cannot be changed "
                "in place", located(original_node, self.ctx),
                "call it as a statement of its own, or use backend='numpy'")
        return updated_node

    def visit_Expr(self, node):
        call = node.value
        if isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and \
                call.func.value in self.helpers:
            self.calls_rebound.add(id(call))

    def _base(self, target: cst.Subscript, statement) -> str:
        base = target.value
        if not isinstance(base, cst.Name):
            raise Unsupported("under backend='jax', a write into an item of something other "
                              "than a name cannot be written as an update",
                              located(statement, self.ctx),
                              "write into a local array, or use backend='numpy'")
        if base.value in self.params:
            # a helper writing into an array its caller passes: it returns the new array
            # (`_returning`)
            self.written.setdefault(base.value, statement)
        return base.value

    def leave_SimpleStatementLine(self, original_node, updated_node):
        out: list = []
        changed = False
        for small in updated_node.body:
            lines = self._small(small)
            if lines is None:
                out.append(small)
            else:
                out.extend(lines)
                changed = True
        if not changed:
            return updated_node
        return cst.FlattenSentinel([cst.SimpleStatementLine([s]) for s in out])

    def _small(self, small):
        t = type(small)
        if t is cst.Expr:
            self._no_changing_method(small)
            return self._call(small)
        if t is cst.AugAssign and isinstance(small.target, cst.Subscript):
            self._base(small.target, small)
            operator = _OPERATORS[type(small.operator)]()
            value = cst.BinaryOperation(left=_read(small.target), operator=operator,
                                        right=small.value)
            return [_update(small.target, value)]
        if t is not cst.Assign or not any(_subscripts_in(a.target) for a in small.targets):
            return None
        for target in small.targets:
            for sub in _subscripts_in(target.target):
                self._base(sub, small)
        if len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Subscript):
            return [_update(small.targets[0].target, small.value)]
        if len(small.targets) > 1:
            # `a = y[0] = v`: the value once, then each target in turn (Python's order)
            temp = self.namer.fresh("new")
            lines = [cst.Assign(targets=[cst.AssignTarget(cst.Name(temp))], value=small.value)]
            for target in small.targets:
                lines.extend(self._small(cst.Assign(targets=[target], value=cst.Name(temp)))
                             or [cst.Assign(targets=[target], value=cst.Name(temp))])
            return lines
        # a tuple of targets (a swap): the values into fresh names, then the items in order
        target = small.targets[0].target
        pending: list = []
        bound: set = set()

        def replaced(node):
            if isinstance(node, cst.Subscript):
                temp = self.namer.fresh("new")
                pending.append((node, temp))
                return cst.Name(temp)
            if isinstance(node, (cst.Tuple, cst.List)):
                return node.with_changes(elements=[e.with_changes(value=replaced(e.value))
                                                   for e in node.elements])
            if isinstance(node, cst.Name):
                bound.add(node.value)
            return node
        unpacked = replaced(target)
        if any(bound & {n for e in sub.slice for n in all_names(e)} for sub, _ in pending):
            raise Unsupported("under backend='jax', a tuple assignment that binds a name and "
                              "writes into an item indexed by it", located(small, self.ctx),
                              "split it into two assignments")
        lines = [cst.Assign(targets=[cst.AssignTarget(unpacked)], value=small.value)]
        lines += [_update(sub, cst.Name(temp)) for sub, temp in pending]
        return lines

    def _call(self, small: cst.Expr):
        """``bump(out, i)``, a helper that writes into ``out``: ``out = bump(out, i)``."""
        call = small.value
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Name)
                and call.func.value in self.helpers):
            return None
        names = []
        for position in self.helpers[call.func.value]:
            arg = call.args[position] if position < len(call.args) else None
            if arg is None or arg.keyword is not None or arg.star or not isinstance(
                    arg.value, cst.Name):
                raise Unsupported(
                    f"under backend='jax', `{call.func.value}` writes into an array it is "
                    "passed, which is not a name here: JAX arrays cannot be changed in place",
                    located(small, self.ctx),
                    "pass the array by a name of its own, or use backend='numpy'")
            names.append(arg.value.value)
        if len(set(names)) != len(names):
            raise Unsupported(f"under backend='jax', `{call.func.value}` writes into one array "
                              "passed twice", located(small, self.ctx),
                              "pass copies, or use backend='numpy'")
        target = cst.Name(names[0]) if len(names) == 1 else cst.Tuple(
            [cst.Element(cst.Name(n)) for n in names])
        return [cst.Assign(targets=[cst.AssignTarget(target)], value=call)]

    def _no_changing_method(self, small: cst.Expr) -> None:
        call = small.value
        if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and \
                isinstance(call.func.value, cst.Name) and \
                call.func.attr.value in _CHANGING_METHODS:
            name = call.func.value.value
            raise Unsupported(
                f"under backend='jax', `{name}.{call.func.attr.value}(...)` would change "
                f"`{name}` in place: JAX arrays cannot be changed, their method returns a new "
                "array", located(small, self.ctx),
                f"assign the new array: `{name} = np.sort({name})`, or use backend='numpy'")
