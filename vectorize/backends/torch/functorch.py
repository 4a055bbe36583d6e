"""Calls the engine cannot read into, batched by ``torch.func.vmap`` itself: an
``nn.Module`` called on per-example values (``model(x)``) and
``torch.func.functional_call(model, params, (x,))`` (the per-sample-gradient recipe, with the
parameters shared or, under ``vmap(torch.func.grad(loss))``, one view of them per example).

Whether a module treats a leading dim as a batch dim is not known from outside (``nn.Linear``
does, ``nn.BatchNorm1d`` mixes the samples of one), so the batch never goes through the
module's own code as a batch: ``torch.func.vmap`` runs it per example, with ``in_dims`` 0 for
the per-example arguments (a dict of parameters may mix both) and None for the others.
The analysis runs the call on the examples, and ``torch.func.vmap`` of it on a batch of two,
so a module that ``torch.func.vmap`` cannot batch (``.item()``, data-dependent control
flow, in-place changes of its buffers) is refused where the function calls it.
"""

from __future__ import annotations

import numpy as np

from ...abstract import UNKNOWN, TupleValue, Value, batched_like
from ...errors import Unsupported
from ...rules.registry import Registry, Rule, Site
from ...syntax.templates import expr
from . import examples
from .common import first_line
from .dtypes import grad_transform, torch_module


def _dims(value):
    """The ``in_dims`` entry of one argument: 0 per example, None shared, a container of
    entries for a container that holds both."""
    if isinstance(value, TupleValue):
        entries = [_dims(v) for v in value.items]
        if all(e == 0 for e in entries):
            return 0
        if all(e is None for e in entries):
            return None
        if value.keys is not None and (value.kind is None or issubclass(value.kind, dict)):
            return dict(zip(value.keys, entries))
        if value.kind is list:
            return entries
        if value.kind is not None:      # a namedtuple: torch.func takes a plain tuple
            raise Unsupported("a namedtuple argument holding both per-example and shared "
                              "values, of a call batched by torch.func.vmap",
                              suggestion="pass its parts as separate arguments")
        return tuple(entries)
    return 0 if getattr(value, "batched", False) else None


def _tree(value, batch: int | None):
    """The argument the examples stand for (tensors), or, with ``batch``, a batch of
    ``batch`` copies of each per-example leaf."""
    if isinstance(value, TupleValue):
        items = [_tree(v, batch) for v in value.items]
        if value.keys is not None and (value.kind is None or issubclass(value.kind, dict)):
            return (value.kind or dict)(zip(value.keys, items))
        if value.kind is list:
            return items
        if value.kind is not None:
            return value.kind(*items)
        return tuple(items)
    example = value.example
    if isinstance(example, (np.ndarray, np.generic)):
        example = examples.to_tensor(example)
    if batch is not None and getattr(value, "batched", False):
        example = example.expand(batch, *example.shape).clone()
    return example


def _as_value(out):
    from ...pytree import is_node, items_of, keys_of
    if is_node(out):
        kind = None if type(out) is tuple else type(out)
        return TupleValue(tuple(_as_value(o) for o in items_of(out)), keys_of(out), kind)
    return batched_like(examples.to_example(out))


def _infer(label):
    def infer(site: Site):
        torch = torch_module()
        values = list(site.args) + [v for _, v in site.kwargs.values()]
        if any(getattr(v, "batched", False) for _, v in site.kwargs.values()):
            raise Unsupported(f"per-example values passed by keyword to {label} (batched by "
                              "torch.func.vmap, which never maps keyword arguments)",
                              suggestion="pass them by position")
        if any(not v.known for v in values if isinstance(v, (Value, TupleValue))):
            raise Unsupported(f"{label} of values whose type the engine cannot tell")
        dims = tuple(_dims(v) for v in site.args)
        kwargs = {k: _tree(v, None) for k, (_, v) in site.kwargs.items()}
        fn = site.func
        try:
            with torch.no_grad():
                out = fn(*[_tree(v, None) for v in site.args], **kwargs)
                torch.func.vmap(fn, in_dims=dims)(*[_tree(v, 2) for v in site.args],
                                                  **kwargs)
        except Exception as exc:    # noqa: BLE001 -- whatever it raises refuses the call
            raise Unsupported(f"{label} on per-example values is batched by torch.func.vmap, "
                              f"which cannot batch this call: {type(exc).__name__}: "
                              f"{first_line(exc)}") from None
        return _as_value(out)
    return infer


def _on_tensors(fn):
    """``fn`` computed on NumPy examples (leaves of pytrees made tensors): what the
    analysis runs to check a call and to evaluate it where nothing is per example."""
    from ...pytree import flatten, unflatten

    def computed(*args, **kwargs):
        def tensors(tree):
            return unflatten(tree, [examples.to_tensor(leaf) if isinstance(
                leaf, (np.ndarray, np.generic)) else leaf for _, leaf in flatten(tree)])
        try:
            out = fn(*tensors(args), **tensors(kwargs))
        except RuntimeError as exc:
            raise TypeError(str(exc)) from None
        return unflatten(out, [examples.to_example(leaf) for _, leaf in flatten(out)])
    return computed


def _unknown(*args, **kwargs):
    return UNKNOWN       # a module's call on examples: learnt by the rule's `infer`


def _rewrite(site: Site):
    dims = tuple(_dims(v) for v in site.args)
    call = site.node
    return call.with_changes(func=expr("torch.func.vmap({f}, in_dims=" + repr(dims) + ")",
                                       f=call.func))


def _grad_infer(site: Site):
    """``g(w, x)`` with ``g = torch.func.grad(loss)``: each example's gradient, computed on
    the examples (tensors)."""
    from ...pytree import flatten, unflatten
    torch = torch_module()
    if any(getattr(v, "batched", False) for _, v in site.kwargs.values()):
        raise Unsupported("per-example values passed by keyword to a torch.func.grad "
                          "function", suggestion="pass them by position")
    args = [_tree(v, None) for v in site.args]
    args = [unflatten(a, [leaf.detach().clone() if isinstance(leaf, torch.Tensor) else leaf
                          for _, leaf in flatten(a)]) for a in args]
    kwargs = {k: _tree(v, None) for k, (_, v) in site.kwargs.items()}
    try:
        out = site.func(*args, **kwargs)
    except Exception as exc:    # noqa: BLE001 -- what it raises per example refuses it
        raise Unsupported(f"the torch.func.grad function raises per example: "
                          f"{type(exc).__name__}: {first_line(exc)}", kind="raises") from None
    return _as_value(out)


def _grad_rewrite(site: Site):
    """``g(w, x)`` -> ``vmap(g, in_axes=(None, 0))(w, x)``: `vectorize.vmap_grad`."""
    axes = tuple(_dims(v) for v in site.args)      # a tree prefix, as vmap's in_axes
    call = site.node
    return call.with_changes(func=expr("vmap({f}, in_axes=" + repr(axes) + ")",
                                       f=call.func))


def _refuse_per_example_function(site: Site):
    raise Unsupported("`torch.func.grad` of a per-example value: the function to "
                      "differentiate must be the same for every example")


def register(reg: Registry) -> None:
    torch = torch_module()
    explanation = ("An `nn.Module` called on per-example values, and "
                   "`torch.func.functional_call(model, params, args)`, run per example "
                   "under `torch.func.vmap` (whether a module treats a leading dim as a "
                   "batch dim is not known from outside): `in_dims` 0 for the per-example "
                   "arguments, None for the others.")
    reg.add_call(torch.func.functional_call, Rule(
        "torch.func.functional_call", "torch.func", explanation,
        "y = torch.func.functional_call(model, params, (x,))",
        "y = torch.func.vmap(torch.func.functional_call, in_dims=(None, None, (0,)))"
        "(model, params, (x,))", _rewrite, infer=_infer("`torch.func.functional_call`"),
        shadow=_on_tensors(torch.func.functional_call)))
    reg.add_family(lambda fn: isinstance(fn, torch.nn.Module), Rule(
        "torch.nn.module_call", "torch.func", explanation,
        "y = model(x)", "y = torch.func.vmap(model, in_dims=(0,))(x)", _rewrite,
        infer=_infer("an `nn.Module`"), shadow=_unknown))
    reg.add_family(lambda fn: grad_transform(fn) is not None, Rule(
        "torch.func.grad", "torch.func",
        "A `torch.func.grad(loss)` (or `grad_and_value`) function called on per-example "
        "values gives each example's gradient: on the batch it is the `vmap` of it "
        "(per-example gradients from the loss's batched code, `vectorize.vmap_grad`).",
        "g = grad_loss(w, x)", "g = vmap(grad_loss, in_axes=(None, 0))(w, x)", _grad_rewrite,
        infer=_grad_infer, shadow=_unknown))
    for transform in (torch.func.grad, torch.func.grad_and_value):
        reg.add_call(transform, Rule(
            "torch.func.transform", "torch.func",
            "`torch.func.grad(loss)` itself is the same for every example (a function of "
            "the module): only the function it makes is called on per-example values "
            "(`torch.func.grad`).", "g = torch.func.grad(loss)(w, x)",
            "g = vmap(torch.func.grad(loss), in_axes=(None, 0))(w, x)",
            _refuse_per_example_function, infer=_refuse_per_example_function,
            shadow=transform))
