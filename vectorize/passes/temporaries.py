"""Update the arrays the generated code has just made in place, instead of allocating another.

Assumes: array code (`batch_rules`, `compact`); `records.ArrayValues` (what `batch_rules`
knew of each expression it made, since array code cannot be analysed again).
Reads: `records.ArrayValues`. Writes no record.
Guarantees: the same values, dtypes and shapes. An assignment of a chain of ``+ - * /`` to a
name, whose innermost left operand is a fresh array (an arithmetic operation or a ufunc call
on per-example values: nothing else holds it), computes the chain in that array:

    y = 2 * x + 1           ->  y = 2 * x
                                y += 1

only where each step is proved not to change the array's dtype or shape: the analysis gives
the step, its left side and its right operand as per-example scalars (the arrays are then all
one-dimensional over the same lanes, or the operand a single number) and the step's dtype as
the left side's (``x * 2 + 0.5`` on ints is left as it is), and its right operand does not
read the name (it is assigned before the operand is evaluated). Never an array the user
passed (only fresh results are written into), never on a backend without in-place updates
(`Backend.in_place_writes`, `Backend.owned_temporaries`: PyTorch's autograd keeps some
outputs for the backward pass). An expression a pass after `batch_rules` rebuilt (the
compacted regions) has no recorded value and is left as it is.

A ufunc call of one output assigned to a name (or returned: then to a fresh name), one of
whose operands is such a fresh array with the result's dtype and shape, writes into it when
its other operands are names or numbers that do not read the name (evaluated after the
fresh one, they read the same):

    return np.maximum(0.0, x @ w)   ->  result = x @ w
                                        np.maximum(0.0, result, out=result)
                                        return result

(and so the backend's helpers that are called like its ufuncs, `Backend.helper_ufuncs`:
``merge.maximum(0.0, result, out=result)``). Where that operand is itself a chain of ``+ - *
/`` on per-example arrays, the steps are computed in its first fresh array too: a step by a
number the same for every example (unbatched, rank 0: its type and rank are part of the
specialization, so it never grows the array) is the augmented assignment (``result += 1.0``);
a step by an array whose shape the specialization does not fix is the backend's
`Backend.in_place_step`, which checks the shapes when it runs (``merge.update``).

Measured (NumPy, one thread, 1e6 float64 lanes in chunks of 65,536): the piecewise
``if/elif`` of the benchmarks about 5% faster. Writing a branch of a merge into a temporary
with a mask (``np.copyto(t, a, where=m)``, ``np.negative(t, out=t, where=~m)``) was measured
slower than ``np.where`` (NumPy's masked loops) on masks in no order; merges are the rule's
(``merge.blend``: `vectorize.backends.numpy.merge`).
"""

from __future__ import annotations

import libcst as cst

from ..abstract import Value
from ..syntax.edit import unparenthesized
from ..syntax.traversal import rewrite, walk
from .records import ArrayValues

_IN_PLACE = {
    cst.Add: cst.AddAssign,
    cst.Subtract: cst.SubtractAssign,
    cst.Multiply: cst.MultiplyAssign,
    cst.Divide: cst.DivideAssign,
}
"""The operators whose in-place form computes the same values as the operator itself."""

_OPERATORS = {cst.Add: "+", cst.Subtract: "-", cst.Multiply: "*", cst.Divide: "/"}
"""The operators' text (`Backend.in_place_step`)."""

_ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo,
               cst.Power)
"""Operators whose result on an array is a new array."""


def transform(func: cst.FunctionDef, ctx) -> cst.FunctionDef:
    backend = ctx.registry.primitives
    values = ArrayValues.get(ctx).values
    if not (values and backend.in_place_writes and backend.owned_temporaries):
        return func
    return rewrite(func, _InPlace(values, backend, ctx.namer))


class _InPlace(cst.CSTTransformer):
    def __init__(self, values: dict, backend, namer=None):
        self.values = values
        self.backend = backend
        self.namer = namer

    def leave_SimpleStatementLine(self, original_node, updated_node):
        if len(updated_node.body) != 1:
            return updated_node
        stmt = updated_node.body[0]
        if type(stmt) is cst.Return and stmt.value is not None:
            line = self._into_operand(updated_node, stmt, None, stmt.value)
            return self._hoisted(updated_node, stmt) if line is updated_node else line
        if type(stmt) is not cst.Assign or len(stmt.targets) != 1 or \
                type(stmt.targets[0].target) is not cst.Name:
            return updated_node
        name = stmt.targets[0].target.value
        found = self._chain(stmt.value, name)
        if found is None:
            line = self._into_operand(updated_node, stmt, name, stmt.value)
            return self._hoisted(updated_node, stmt) if line is updated_node else line
        first, steps = found
        lines = [updated_node.with_changes(body=[stmt.with_changes(value=_bare(first))])]
        lines += [cst.SimpleStatementLine([cst.AugAssign(
            target=cst.Name(name), operator=_IN_PLACE[type(op)](), value=_bare(operand))])
            for op, operand in steps]
        return cst.FlattenSentinel(lines)

    def _into_operand(self, line, stmt, name, call):
        """``name = np.f(a, fresh)`` (or ``return np.f(a, fresh)``) of a ufunc whose result
        is a per-example number of ``fresh``'s dtype, ``fresh`` a new array (`_fresh`) and
        the other operands names or numbers that do not read ``name``: the ufunc writes into
        ``fresh`` (``out=``) instead of a new array, ``fresh`` bound to ``name`` first (a
        fresh name for a ``return``: ``y = x @ w``, ``np.maximum(0.0, y, out=y)``,
        ``return y``)."""
        if type(call) is not cst.Call or not self._ufunc(call) or any(
                arg.keyword is not None or arg.star for arg in call.args):
            return line
        fresh = [k for k, arg in enumerate(call.args) if self._fresh(arg.value)
                 and self._keeps(call, arg.value)]
        others = [arg.value for k, arg in enumerate(call.args) if not fresh or k != fresh[0]]
        if not fresh or not all(_plain(value) and (name is None or not _reads(value, name))
                                for value in others):
            return line
        k = fresh[0]
        if name is None:
            if self.namer is None:
                return line
            name = self.namer.fresh("result")
        target = cst.Name(name)
        args = [arg.with_changes(value=target) if j == k else arg
                for j, arg in enumerate(call.args)]
        last = args[-1]
        args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(
            " ")))
        args.append(cst.Arg(value=target, keyword=cst.Name("out"),
                            equal=cst.AssignEqual(cst.SimpleWhitespace(""),
                                                  cst.SimpleWhitespace(""))))
        lines = [line.with_changes(body=[cst.Assign(
                     targets=[cst.AssignTarget(target)], value=_bare(call.args[k].value))]),
                 cst.SimpleStatementLine([cst.Expr(call.with_changes(args=args))])]
        if type(stmt) is cst.Return:
            lines.append(cst.SimpleStatementLine([stmt.with_changes(value=target)]))
        return cst.FlattenSentinel(lines)

    def _hoisted(self, line, stmt):
        """A ufunc of one operand whose per-example values are arrays (``np.tanh(x @ w +
        b)``, of the dtype and per-example rank of its operand, a fresh array: the same
        shape) evaluated first in the statement's expression (the statement's value, or the
        left operand of its operators, down to it) computed in its operand before the
        statement, which then reads that array (``result = x @ w + b``, ``np.tanh(result,
        out=result)``, ``return result @ v``): the same steps in the same order, one array
        fewer. (Evaluated first: reached through the left operands of operators and the
        first arguments of calls of a name or the backend's functions; the statement's whole
        value assigned to a name is computed in that name's array.) Only arrays per example
        (a per-example number's chain and call are `_chain`'s and `_into_operand`'s): where
        nothing else is rewritten, the line as it is."""
        node = stmt.value
        while not (type(node) is cst.Call and self._array_unary(node)):
            if type(node) is cst.BinaryOperation:
                node = node.left
            elif type(node) is cst.Call and self._plain_callee(node.func) and node.args and \
                    node.args[0].keyword is None and not node.args[0].star:
                node = node.args[0].value   # (after the callee's name, evaluated first)
            else:
                return line
        whole = node is stmt.value and type(stmt) is cst.Assign
        if whole:
            target = cst.Name(stmt.targets[0].target.value)
        elif self.namer is None:
            return line
        else:
            target = cst.Name(self.namer.fresh("result"))
        operand = node.args[0].value
        steps = []
        found = self._array_chain(operand, target.value if whole else None)
        if found is not None:
            # (the operand's steps of arithmetic in its first array too: `merge.update`)
            first, chain = found
            steps = [cst.AugAssign(target=target, operator=_IN_PLACE[type(op)](),
                                   value=_bare(right)) if self._never_grows(right) else
                     self.backend.in_place_step(target.value, _OPERATORS[type(op)],
                                                _code(_bare(right))) for op, right in chain]
            if None not in steps:
                operand = first
            else:
                steps = []
        call = node.with_changes(args=[
            node.args[0].with_changes(value=target, comma=cst.Comma(
                whitespace_after=cst.SimpleWhitespace(" "))),
            cst.Arg(value=target, keyword=cst.Name("out"), equal=cst.AssignEqual(
                cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))])
        return cst.FlattenSentinel([
            line.with_changes(body=[cst.Assign(targets=[cst.AssignTarget(target)],
                                               value=_bare(operand))]),
            *[line.with_changes(body=[step if type(step) is cst.AugAssign else cst.Assign(
                targets=[cst.AssignTarget(target)], value=cst.parse_expression(step))])
              for step in steps],
            cst.SimpleStatementLine([cst.Expr(call)]),
            *([] if whole else [line.with_changes(body=[stmt.deep_replace(node, target)])])])

    def _array_chain(self, node, name):
        """``(first, [(operator, operand), ...])`` where ``node`` is ``first`` (a fresh
        array, `_fresh`) followed by steps of ``+ - * /`` that each keep the per-example
        arrays' rank and a float or complex dtype (their shapes: `Backend.in_place_step`
        checks them when it runs), none of whose operands reads ``name``; else None."""
        steps, found = [], None
        while type(node) is cst.BinaryOperation and type(node.operator) in _IN_PLACE and \
                self._keeps_array(node, node.left) and \
                self._value(node.right) is not None and \
                (name is None or not _reads(node.right, name)):
            steps.append((node.operator, node.right))
            node = node.left
            if self._fresh(node):
                found = node, steps[::-1]
        return found

    def _never_grows(self, operand) -> bool:
        """``operand`` of a step of `_array_chain` is the same single number for every
        example (unbatched, rank 0: a Python number, a NumPy scalar or a 0-d array, whose
        type and rank are part of the specialization), which broadcasts into any array
        without growing it: with the step's dtype the target's (`_keeps_array`), the
        augmented assignment computes the operator's values in the target, with nothing to
        check when it runs (a per-example array's shape is not part of a specialization:
        the backend's `in_place_step` checks those)."""
        value = self._value(operand)
        return value is not None and not value.batched and value.rank == 0 and \
            value.dtype is not None and value.dtype.kind in "biufc"

    def _keeps_array(self, node, left) -> bool:
        """``node`` and ``left`` are per-example arrays of one rank and one float or
        complex dtype."""
        value, before = self._value(node), self._value(left)
        return value is not None and before is not None and value.batched and \
            before.batched and value.rank >= 1 and value.rank == before.rank and \
            value.dtype is not None and value.dtype == before.dtype and \
            value.dtype.kind in "fc"

    def _plain_callee(self, node) -> bool:
        """``f`` or the backend's ``np.f``: reading it runs nothing of the user's."""
        return type(node) is cst.Name or type(node) is cst.Attribute and \
            type(node.value) is cst.Name and node.value.value == self.backend.alias

    def _array_unary(self, call) -> bool:
        """``np.f(fresh)``: a ufunc of one positional operand, a fresh array (`_fresh`)
        whose per-example values are arrays of the call's dtype and rank."""
        if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star or \
                not self._ufunc(call) or not self._fresh(call.args[0].value):
            return False
        value, before = self._value(call), self._value(call.args[0].value)
        return value is not None and before is not None and value.batched and \
            before.batched and value.rank >= 1 and value.rank == before.rank and \
            value.dtype is not None and value.dtype == before.dtype

    def _ufunc(self, call) -> bool:
        """``np.f(...)`` of a ufunc of one output (the backend's module)."""
        func = call.func
        return type(func) is cst.Attribute and type(func.value) is cst.Name and (
            func.value.value == self.backend.alias and func.attr.value != "where" and
            self.backend.makes_new_array(func.attr.value) or
            (func.value.value, func.attr.value) in self.backend.helper_ufuncs)

    def _chain(self, node, name: str):
        """``(first, [(operator, operand), ...])`` where ``node`` is ``first`` followed by
        the steps, each provably done in place; None where there is nothing to do."""
        steps, found = [], None
        while type(node) is cst.BinaryOperation and type(node.operator) in _IN_PLACE and \
                self._keeps(node, node.left) and self._scalar(node.right) and \
                not _reads(node.right, name):
            steps.append((node.operator, node.right))
            node = node.left
            if self._fresh(node):       # the innermost fresh array (`x * x / 2.0`: `x * x`)
                found = node, steps[::-1]
        return found

    def _value(self, node):
        value = self.values.get(node)
        return value if type(value) is Value and value.known else None

    def _scalar(self, node) -> bool:
        """A per-example scalar (an array over the lanes) or a single number."""
        value = self._value(node)
        return value is not None and value.rank == 0 and value.dtype is not None

    def _keeps(self, node, left) -> bool:
        """``node`` has ``left``'s dtype and shape: both per-example scalars of one dtype."""
        value, before = self._value(node), self._value(left)
        return value is not None and before is not None and value.batched and \
            before.batched and value.rank == 0 and before.rank == 0 and \
            value.dtype is not None and value.dtype == before.dtype

    def _fresh(self, node) -> bool:
        """Evaluating ``node`` makes a new array that nothing else holds."""
        kind = type(node)
        if kind is cst.BinaryOperation:
            return isinstance(node.operator, _ARITHMETIC + (cst.MatrixMultiply,))
        if kind is cst.UnaryOperation:
            return isinstance(node.operator, cst.Minus)
        if kind is cst.Call:
            func = node.func
            if type(func) is cst.Attribute and type(func.value) is cst.Name and not any(
                    arg.keyword is not None and arg.keyword.value == "out"
                    for arg in node.args):
                if (func.value.value, func.attr.value) in self.backend.helper_ufuncs or \
                        (func.value.value, func.attr.value) in self.backend.fresh_helpers:
                    return True
                return func.value.value == self.backend.alias and \
                    self.backend.makes_new_array(func.attr.value)
        return False


def _plain(node) -> bool:
    """A name or a number: evaluating it first or last reads the same and raises nothing."""
    if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus:
        node = node.expression
    return type(node) in (cst.Name, cst.Integer, cst.Float)


def _code(node) -> str:
    return cst.Module([]).code_for_node(node)


def _reads(node, name: str) -> bool:
    return any(type(n) is cst.Name and n.value == name for n in walk(node))


def _bare(node):
    """``node`` without the parentheses it needed as an operand (an assignment's whole right
    side needs none), unless it spans lines (`unparenthesized`)."""
    if type(node) in (cst.BinaryOperation, cst.UnaryOperation, cst.Call, cst.Name,
                      cst.Attribute, cst.Subscript, cst.Integer, cst.Float):
        return unparenthesized(node)
    return node
