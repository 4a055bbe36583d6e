"""The torch table of operators: arithmetic and comparisons with the per-example dtypes,
conditional expressions, ``and``/``or`` and Python numbers divided per example."""

from __future__ import annotations

import dataclasses
import operator

import libcst as cst
import numpy as np

from ...errors import Unsupported
from ...rules import operators
from ...rules.registry import Registry, Site
from ...syntax.templates import expr
from .common import compared_as_per_example, is_weak, matched
from .dtypes import numpy_call, torch_module

# ------------------------------------------------------------------------- operators

_BINARY_OPS = {cst.Add: operator.add, cst.Subtract: operator.sub, cst.Multiply: operator.mul,
               cst.Divide: operator.truediv, cst.FloorDivide: operator.floordiv,
               cst.Modulo: operator.mod, cst.Power: operator.pow, cst.BitAnd: operator.and_,
               cst.BitOr: operator.or_, cst.BitXor: operator.xor,
               cst.LeftShift: operator.lshift, cst.RightShift: operator.rshift}
_COMPARE_OPS = {cst.LessThan: operator.lt, cst.LessThanEqual: operator.le,
                cst.GreaterThan: operator.gt, cst.GreaterThanEqual: operator.ge,
                cst.Equal: operator.eq, cst.NotEqual: operator.ne}


def _with_nodes(site: Site, nodes) -> Site:
    return dataclasses.replace(site, nodes=list(nodes))


def _binary(site: Site):
    op = _BINARY_OPS.get(type(site.node.operator))
    if op is not None:
        written = site.nodes
        site = _with_nodes(site, matched(site, op, list(zip(site.args, site.nodes))))
        if op is operator.sub:
            site = _with_nodes(site, _python_bools_subtracted(site, written))
    out = operators.binary(site)
    result = site.result
    if type(site.node.operator) is cst.Modulo and numpy_call() and \
            isinstance(out, cst.BaseExpression) and \
            getattr(result, "dtype", None) is not None and result.dtype.kind == "f" and \
            len(site.nodes) == 2:
        # `torch.remainder` gives a zero the dividend's sign (`0.0 % -3.0` is 0.0), Python
        # and NumPy the divisor's (-0.0), which a call on NumPy arrays gives as its loop
        # does; a nonzero remainder has the divisor's sign already
        out = expr("torch.copysign({r}, {b})", r=out, b=site.nodes[1])
    return out


def _python_bools_subtracted(site: Site, written) -> list:
    """``a - b`` of Python numbers per example where one is a bool (``r - (r < 10)``,
    ``(r < 10) - True``): Python subtracts it as an int; PyTorch raises for a bool tensor
    (or a Python bool) on either side of `-`. The bools not already converted (``written``:
    the nodes before `matched`) become int64. Not where an operand is a tensor per example:
    there the per-example code raises as the batch does."""
    nodes = list(site.nodes)
    if len(nodes) != 2 or not all(is_weak(v) for v in site.args):
        return nodes
    for i, value in enumerate(site.args):
        if value.kind == "b" and nodes[i] is written[i]:
            nodes[i] = expr("{x}.long()" if value.batched else "int({x})", x=nodes[i])
    return nodes


def _compare(site: Site):
    node: cst.Comparison = site.node
    if len(node.comparisons) == 1:
        op = _COMPARE_OPS.get(type(node.comparisons[0].operator))
        if op is not None:
            site = _with_nodes(site, matched(site, op, list(zip(site.args, site.nodes))))
            site = _with_nodes(site, compared_as_per_example(site))
    return operators.compare(site)


def select(cond, a, b):
    torch = torch_module()
    return torch.where(torch.as_tensor(cond) != 0, a, b)


def _ifexp(site: Site):
    tv, bv, ov = site.args
    if tv.batched:
        test, body, orelse = site.nodes
        body, orelse = matched(site, select, [(tv, test), (bv, body), (ov, orelse)],
                                keep={0})[1:]
        site = _with_nodes(site, [test, body, orelse])
    return operators.ifexp(site)


def _and_or(shared):
    def rewrite(site: Site):
        if not site.args[0].batched and not operators.all_bool(site):
            # a left side the same for every example (``s and v.sum()`` of a Python float
            # ``s``): Python's own `and`/`or` picks one side for every lane, as a conditional
            # expression with such a test is kept (`torch.where` takes no Python bool)
            a, b = site.nodes
            spelled = "{a} and {b}" if shared is operators.and_ else "{a} or {b}"
            # where Python stops at the left side, the value is that Python number: a tensor
            # of it (of the joined dtype where the engine knows it), which `torch.where` and
            # the reductions take (`passes.python_conditions` writes the left side twice, as
            # a conditional expression, where evaluating it again is harmless)
            dtype = getattr(site.result, "dtype", None)
            known = dtype is not None and site.spelled.supports_dtype(dtype)
            spelled = (f"torch.as_tensor({spelled}"
                       + (f", dtype={site.spelled.dtype_code(dtype)})" if known else ")"))
            return expr(spelled, a=a, b=b)
        if not operators.all_bool(site):
            a, b = site.args
            if shared is operators.and_:
                op = lambda x, y: select(x, y, x)        # noqa: E731
            else:
                op = lambda x, y: select(x, x, y)        # noqa: E731
            site = _with_nodes(site, matched(site, op, list(zip(site.args, site.nodes))))
        return shared(site)
    return rewrite


def _python_number_division(site: Site):
    """``a / b`` of Python numbers in code every lane runs: computed by a 0-d float64 tensor
    and made a Python number again, so that a divisor of zero gives inf/nan (as on tensors)
    on lanes whose per-example code never gets there, instead of ZeroDivisionError."""
    node = site.node
    dtype = np.dtype(site.func)
    if dtype.kind in "iu":
        raise Unsupported("`//`, `%` or `divmod` of Python integers the same for every example, "
                          "in code that runs on every lane: PyTorch raises for an integer "
                          "divisor of zero where the per-example code would not get there",
                          suggestion="compute it before the `if` or loop, or use floats",
                          kind="raises")
    if isinstance(node, cst.Call):
        raise Unsupported("`divmod`/`pow` of Python numbers in code that runs on every lane",
                          suggestion="compute it before the `if` or loop")
    if not isinstance(node, cst.BinaryOperation):
        raise Unsupported("this operation of Python numbers in code that runs on every lane",
                          suggestion="compute it before the `if` or loop")
    left = expr("torch.tensor({a}, dtype=torch.float64)", a=node.left)
    return expr("({x}).item()", x=node.with_changes(left=left, lpar=[], rpar=[]))


_PYTHON_DIVISION = (
    "`/` or `**` of Python numbers the same for every example, in code that runs on every "
    "lane (a branch of a per-example `if`, a masked loop): computed on a float64 tensor and "
    "made a Python number again, so a lane whose scalar code never gets there cannot raise "
    "ZeroDivisionError.",
    "y = torch.where(x > 0, x + (torch.tensor(a, dtype=torch.float64) / b).item(), x)")


def register_operators(reg: Registry) -> None:
    """The shared operator rules, with the dtype check of `matched` in front of those that
    combine operands."""
    operators.register(reg)
    replaced = {}
    for key, rewrite in (("binary", _binary), ("compare", _compare), ("ifexp", _ifexp),
                         ("and", _and_or(operators.and_)), ("or", _and_or(operators.or_)),
                         ("python_number_division", _python_number_division)):
        old = reg.operators[key]
        changes = {"rewrite": rewrite}
        if key == "python_number_division":
            changes["explanation"], changes["after"] = _PYTHON_DIVISION
        replaced[id(old)] = dataclasses.replace(old, **changes)
        reg.add_operator(key, replaced[id(old)])
    reg.all_rules[:] = [r for r in reg.all_rules if id(r) not in replaced]
