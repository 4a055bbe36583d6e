"""Writes into tensors the function creates, safe for autograd (`TorchBackend.finish_function`).

The passes write ``y = torch.zeros(3); y[0] = x`` as the batch's in-place write
``y[:, 0] = x`` (masked, ``y[:, 1] = torch.where(c, ..., y[:, 1])``, under a per-example
condition). PyTorch's autograd may have saved ``y`` or a view of it for a backward pass
(``y[:, 1] * x`` saves ``y[:, 1]`` to differentiate by ``x``); an in-place write into it
then fails at ``backward()`` ("modified by an inplace operation"), where the per-example
code differentiated by ``torch.func.grad`` (functional) computes. So while autograd records
(grad mode on and some argument requires grad), each write goes into a fresh copy of the
tensor:

    y[:, 0] = x                          ->  if recording:
                                                 y = y.clone()
                                             y[:, 0] = x
    y[:, 1] = torch.where(c, y[:, 1] * x, ...)   new = torch.where(c, y[:, 1] * x, ...)
                                             if recording:
                                                 y = y.clone()
                                             y[:, 1] = new

(a value that reads the tensor is computed before the copy: what autograd saved of it must
not be written into).

``recording`` is computed once, at the top of the function (`RECORDING`). Without autograd
(the usual call, NumPy in and out) the writes stay in place: no copy. A helper writing into
an array its caller passes keeps writing in place (a copy would not reach the caller).
"""

from __future__ import annotations

import libcst as cst

from ...liveness import Namer, all_names
from ...syntax.templates import expr, parse_stmt

RECORDING = "recording"


def _subscript_bases(small) -> list[str]:
    targets = []
    if type(small) is cst.Assign:
        targets = [t.target for t in small.targets]
    elif type(small) is cst.AugAssign:
        targets = [small.target]
    out, stack = [], list(targets)
    while stack:
        t = stack.pop()
        if type(t) in (cst.Tuple, cst.List):
            stack += [e.value for e in t.elements]
        elif type(t) is cst.Subscript and type(t.value) is cst.Name:
            out.append(t.value.value)
    return out


def autograd_safe(func_def: cst.FunctionDef, ctx) -> cst.FunctionDef:
    """Writes into created tensors copied first while autograd records (module docstring)."""
    params = [p.name.value for p in (*func_def.params.posonly_params, *func_def.params.params,
                                     *func_def.params.kwonly_params)]
    namer = Namer(all_names(func_def))
    flag = None
    value_name = None

    class _Copy(cst.CSTTransformer):
        def leave_SimpleStatementLine(self, original_node, updated_node):
            nonlocal flag
            bases = [b for small in updated_node.body for b in _subscript_bases(small)
                     if b not in params]
            if not bases:
                return updated_node
            if flag is None:
                flag = namer.fresh(RECORDING)
            copies = "; ".join(f"{b} = {b}.clone()" for b in dict.fromkeys(bases))
            copy = parse_stmt(f"if {flag}:\n    {copies}\n")
            small = updated_node.body[0]
            if len(updated_node.body) == 1 and type(small) is cst.Assign and \
                    set(bases) & all_names(small.value):
                # the value reads the tensor (`y[:, 1] * x` saves a view of it): computed
                # before the copy, so that the copy, not what autograd saved, is written
                nonlocal value_name
                if value_name is None:
                    value_name = namer.fresh("new")
                first = cst.SimpleStatementLine([cst.Assign(
                    targets=[cst.AssignTarget(cst.Name(value_name))], value=small.value)])
                return cst.FlattenSentinel([first, copy, updated_node.with_changes(
                    body=[small.with_changes(value=cst.Name(value_name))])])
            return cst.FlattenSentinel([copy, updated_node])

    out = func_def.visit(_Cast())
    out = out.visit(_Copy())
    if flag is None:
        return func_def
    tensors = ", ".join(params)
    test = (f"{flag} = torch.is_grad_enabled() and any(isinstance(a, torch.Tensor) and "
            f"a.requires_grad for a in ({tensors}{',' if len(params) == 1 else ''}))"
            if params else f"{flag} = False")
    body = list(out.body.body)
    first = 1 if body and _is_docstring(body[0]) else 0
    body.insert(first, parse_stmt(test + "\n"))
    return out.with_changes(body=out.body.with_changes(body=body))


def _per_example_index(target) -> bool:
    """``y[torch.arange(len(y), ...), k]``: a write with per-example indices (`index_put`)."""
    first = target.slice[0].slice if target.slice else None
    value = getattr(first, "value", None)
    return isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and \
        value.func.attr.value == "arange" and isinstance(value.func.value, cst.Name) and \
        value.func.value.value == "torch"


def _literal(value) -> bool:
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, cst.Minus):
        value = value.expression
    return isinstance(value, (cst.Integer, cst.Float))


class _Cast(cst.CSTTransformer):
    """A write with per-example indices is PyTorch's ``index_put_``, which takes only values
    of the tensor's dtype (per example the item assignment converts them, as ``copy_``
    does): the value converted to it, ``y[...] = torch.as_tensor(v, dtype=y.dtype, ...)``."""

    def leave_Assign(self, original_node, updated_node):
        if len(updated_node.targets) != 1:
            return updated_node
        target = updated_node.targets[0].target
        if not (isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name)
                and _per_example_index(target)) or _literal(updated_node.value):
            return updated_node
        name = target.value.value
        value = expr(f"torch.as_tensor({{v}}, dtype={name}.dtype, device={name}.device)",
                     v=updated_node.value)
        return updated_node.with_changes(value=value)


def _is_docstring(stmt) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(
        stmt.body[0], cst.Expr) and isinstance(stmt.body[0].value, cst.SimpleString)
