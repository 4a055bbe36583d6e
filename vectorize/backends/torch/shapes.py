"""The torch table of shapes and indexing: sizes, dims, ``unsqueeze``, ``squeeze``, ``flatten``,
``transpose``, ``permute``, ``reshape``/``view`` and subscripts."""

from __future__ import annotations

import builtins

import numpy as np

from ...abstract import batched_like, unbatched
from ...errors import Unsupported
from ...rules import axes
from ...rules.registry import Registry, Rule, Site
from ...syntax.templates import expr
from .common import per_example

# ------------------------------------------------------------------- shapes, indexing


def _size_method(site: Site):
    rank = site.args[0].rank
    if len(site.args) > 1 or "dim" in site.kwargs:
        dim = site.args[1] if len(site.args) > 1 else site.kwargs["dim"][1]
        if dim.batched or not dim.exact:
            raise Unsupported("the dim of `.size(dim)` must be a constant")
        return expr(f"{{x}}.size({axes.shift_axis(int(dim.example), rank)})",
                    x=site.nodes[0])
    return expr("{x}.shape[1:]", x=site.nodes[0])


def _size_infer(site: Site):
    shape = np.shape(site.args[0].example)
    if len(site.args) > 1 or "dim" in site.kwargs:
        dim = site.args[1] if len(site.args) > 1 else site.kwargs["dim"][1]
        if not dim.exact:
            return unbatched()
        try:
            return unbatched(shape[int(dim.example)])
        except IndexError:
            raise Unsupported(f"`.size({dim.example})` of a per-example tensor of "
                              f"{len(shape)} dims") from None
    return unbatched(shape)


def _transposed(site: Site):
    rank = site.args[0].rank
    if rank < 2:
        return site.nodes[0]
    return expr("{x}.permute(" + ", ".join(["0"] + [str(i) for i in range(rank, 0, -1)])
                + ")", x=site.nodes[0])


def _len_infer(site: Site):
    value = site.args[0]
    if value.known and value.rank == 0:
        raise Unsupported("`len()` of a per-example 0-d tensor raises per example", kind="raises")
    return unbatched(len(value.example) if value.known else None)


def _dims(site: Site, what: str):
    """The constant dims given to a shape method (positionally after the tensor, or as
    ``dim=``), and the tensor's per-example rank."""
    values = list(site.args[1:]) + [v for _, v in site.kwargs.values()]
    dims = []
    for value in values:
        if value.batched or not value.exact:
            raise Unsupported(f"the dims of {what} must be constants written in the function")
        dims.append(value.example)
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = list(dims[0])
    return dims, site.args[0].rank


def _shifted(dim: int, rank: int) -> int:
    """A per-example dim of a tensor of per-example rank ``rank`` as a dim of the batch."""
    return dim + 1 if dim >= 0 else dim


def _unsqueeze(site: Site):
    (dim,), rank = _dims(site, "`unsqueeze`")
    return expr(f"{{x}}.unsqueeze({_shifted(dim, rank + 1)})", x=site.nodes[0])


def _squeeze(site: Site):
    dims, rank = _dims(site, "`squeeze`")
    if not dims:
        raise Unsupported("`squeeze()` without a dim depends on the sizes of each example "
                          "(and would squeeze a batch of one)", suggestion="name the dim: "
                                                                           "x.squeeze(0)")
    shifted = [_shifted(int(d), rank) for d in dims]
    text = str(shifted[0]) if len(shifted) == 1 else repr(tuple(shifted))
    return expr(f"{{x}}.squeeze({text})", x=site.nodes[0])


def _flatten_method(site: Site):
    dims, rank = _dims(site, "`flatten`")
    start, end = (list(dims) + [0, -1][len(dims):])[:2]
    if rank == 0:
        return expr("{x}.reshape(len({x}), 1)", x=site.nodes[0])
    return expr(f"{{x}}.flatten({_shifted(int(start), rank)}, {_shifted(int(end), rank)})",
                x=site.nodes[0])


def _transpose_method(site: Site):
    dims, rank = _dims(site, "`transpose`")
    a, b = (int(d) + rank if int(d) < 0 else int(d) for d in dims)
    return expr(f"{{x}}.transpose({a + 1}, {b + 1})", x=site.nodes[0])


def _permute(site: Site):
    dims, rank = _dims(site, "`permute`")
    order = ", ".join(["0"] + [str((int(d) + rank if int(d) < 0 else int(d)) + 1)
                               for d in dims])
    return expr(f"{{x}}.permute({order})", x=site.nodes[0])


def _register_shape_methods(reg: Registry) -> None:
    from ...rules.axes import reshaped
    for names, rewrite, before, after, explanation in (
            (("reshape", "view"), reshaped, "m = v.reshape(3, 4)", "m = v.reshape(len(v), 3, 4)",
             "`x.reshape(...)` / `x.view(...)` keep the batch length in front."),
            (("unsqueeze",), _unsqueeze, "c = v.unsqueeze(1)", "c = v.unsqueeze(2)",
             "`x.unsqueeze(d)`: the per-example dim `d` is `d + 1` (negative dims stay)."),
            (("squeeze",), _squeeze, "v = c.squeeze(1)", "v = c.squeeze(2)",
             "`x.squeeze(d)`: the per-example dim `d` is `d + 1`; without a dim it is "
             "refused (it depends on each example's sizes)."),
            (("flatten",), _flatten_method, "f = m.flatten()", "f = m.flatten(1, -1)",
             "`x.flatten()` flattens each example: from dim 1."),
            (("transpose", "swapaxes", "swapdims"), _transpose_method, "t = m.transpose(0, 1)",
             "t = m.transpose(1, 2)", "`x.transpose(a, b)` swaps per-example dims."),
            (("permute",), _permute, "t = m.permute(1, 0)", "t = m.permute(0, 2, 1)",
             "`x.permute(...)` keeps the batch dim first.")):
        for name in names:
            reg.add_method(name, Rule(f"torch.{names[0]}", "shapes", explanation, before,
                                      after, rewrite,
                                      infer=per_example(name, f"`.{name}()`")))


def _same_attribute(attr: str):
    """``x.dtype`` / ``x.device`` of a per-example tensor: the same for every example, its
    example the example tensor's own (the dtype exactly; the device the examples' CPU,
    whatever device the batch is on: what the analysis computes on), so that what is made
    with it (``torch.zeros(3, dtype=x.dtype, device=x.device)``) has an example too. Not
    exact: code testing it stays a Python test (the device of the batch decides)."""
    def infer(site: Site):
        from . import examples
        try:
            return unbatched(examples.example_attribute(site.args[0].example, attr))
        except Exception:       # noqa: BLE001 -- an example PyTorch has no tensor for
            return unbatched()
    return infer


def register_shapes(reg: Registry, torch) -> None:
    _register_shape_methods(reg)
    reg.add_operator("subscript", Rule(
        "array.index", "arrays",
        "Indexing a per-example tensor gets `:` for the batch axis in front; a per-example "
        "integer index gathers one element per example.",
        "first = x[0]\npick = x[k]",
        "first = x[:, 0]\npick = x[torch.arange(len(x), device=x.device), k]",
        axes.subscript))
    reg.add_attribute("shape", Rule(
        "array.shape", "arrays", "`x.shape` is the per-example shape: `x.shape[1:]`.",
        "n, m = x.shape", "n, m = x.shape[1:]", lambda s: expr("{x}.shape[1:]", x=s.nodes[0]),
        infer=axes.unbatched_attr("shape")))
    reg.add_attribute("ndim", Rule(
        "array.ndim", "arrays", "`x.ndim` is the per-example rank: `x.ndim - 1`.",
        "r = x.ndim", "r = x.ndim - 1", lambda s: expr("{x}.ndim - 1", x=s.nodes[0]),
        infer=axes.unbatched_attr("ndim")))
    for attr in ("dtype", "device"):
        reg.add_attribute(attr, Rule(
            f"array.{attr}", "arrays", f"`x.{attr}` is the same for every example.",
            f"t = x.{attr}", f"t = x.{attr}", lambda s: s.node, infer=_same_attribute(attr)))
    reg.add_attribute("T", Rule(
        "array.T", "arrays", "`x.T` reverses the per-example dims only.",
        "y = m.T", "y = m.permute(0, 2, 1)", _transposed,
        infer=lambda s: batched_like(np.transpose(s.args[0].example))))
    reg.add_method("size", Rule(
        "torch.size", "arrays", "`x.size()` is the per-example shape, `x.size(k)` is "
        "`x.size(k + 1)`.", "n = x.size(0)", "n = x.size(1)", _size_method,
        infer=_size_infer))
    for method in ("numel", "nelement"):
        reg.add_method(method, Rule(
            "torch.numel", "arrays", "`x.numel()` is the number of elements of one example: "
            "`x.shape[1:].numel()`.", "n = x.numel()", "n = x.shape[1:].numel()",
            lambda s: expr("{x}.shape[1:].numel()", x=s.nodes[0]),
            infer=lambda s: unbatched(int(np.size(s.args[0].example)))))
    reg.add_method("dim", Rule(
        "torch.dim", "arrays", "`x.dim()` is the per-example rank.", "r = x.dim()",
        "r = x.dim() - 1", lambda s: expr("{x}.dim() - 1", x=s.nodes[0]),
        infer=lambda s: unbatched(s.args[0].rank)))
    reg.add_call(builtins.len, Rule(
        "builtin.len", "builtins", "`len(x)` of a per-example tensor is `x.shape[1]`.",
        "n = len(v)", "n = v.shape[1]", lambda s: expr("{x}.shape[1]", x=s.nodes[0]),
        infer=_len_infer))
