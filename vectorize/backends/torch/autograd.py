"""The torch table of autograd: ``torch.autograd.grad`` of per-example vector-Jacobian products."""

from __future__ import annotations

import libcst as cst

from ...abstract import TupleValue, batched_like
from ...errors import Unsupported
from ...rules.registry import Site
from ...syntax.templates import parse_expr

# ---------------------------------------------------------------------------- autograd


def _grad_args(site: Site):
    """(outputs, inputs, grad_outputs) values of ``torch.autograd.grad``."""
    names = ("outputs", "inputs", "grad_outputs")
    values = list(site.args[:3])
    for name in names[len(values):]:
        values.append(site.kwargs[name][1] if name in site.kwargs else None)
    return values


def grad(site: Site):
    outputs, inputs, grad_outputs = _grad_args(site)
    if outputs.batched or inputs.batched:
        raise Unsupported("`torch.autograd.grad` of per-example outputs or inputs",
                          suggestion="compute the outputs outside the function and map "
                                     "over the vectors of the product (grad_outputs)")
    if grad_outputs is None or not grad_outputs.batched:
        return site.node
    if "is_grads_batched" in site.kwargs:
        raise Unsupported("`is_grads_batched` given already")
    call = site.node
    return call.with_changes(args=list(call.args[:-1]) + [
        call.args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(
            " ")))] + [parse_expr("f(is_grads_batched=True)").args[0]])


def grad_shadow(outputs, inputs, grad_outputs=None, **kwargs):
    """What ``torch.autograd.grad`` gives on examples: one gradient per input, shaped like
    it (the analysis never differentiates anything)."""
    return tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)


def grad_infer(site: Site):
    _, inputs, _ = _grad_args(site)
    items = inputs.items if isinstance(inputs, TupleValue) else (inputs,)
    return TupleValue(tuple(batched_like(item.example) for item in items))
