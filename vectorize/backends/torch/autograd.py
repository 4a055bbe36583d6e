"""The torch table of autograd: ``torch.autograd.grad`` of per-example vector-Jacobian products."""

from __future__ import annotations

import libcst as cst

from ...abstract import TupleValue, batched_like
from ...errors import Unsupported
from ...rules.registry import Site
from ...syntax.templates import parse_expr
from . import examples

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
    allow_unused = site.kwargs.get("allow_unused", (None, None))[1]
    if allow_unused is not None and (not allow_unused.exact or allow_unused.example):
        raise Unsupported("`torch.autograd.grad(..., allow_unused=True)`: whether a gradient "
                          "is None is not known before it runs",
                          suggestion="pass materialize_grads=True (zeros for unused inputs)")
    # one per input: one tensor, a tuple, a list display (an example that is a list)
    if isinstance(inputs, TupleValue):
        examples_ = [item.example for item in inputs.items]
    elif isinstance(inputs.example, (list, tuple)):
        examples_ = list(inputs.example)
    else:
        examples_ = [inputs.example]
    return TupleValue(tuple(batched_like(examples.of_tensor(e)) for e in examples_))
