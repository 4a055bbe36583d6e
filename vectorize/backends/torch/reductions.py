"""The torch table of reductions (``sum``, ``mean``, ``amax``...): their dims shifted past the
batch axis."""

from __future__ import annotations

import libcst as cst

from ...abstract import Value
from ...errors import Unsupported
from ...rules import axes
from ...rules.registry import Registry, Rule, Site
from ...syntax.templates import expr
from .common import per_example, shadow

# ------------------------------------------------------------------------ reductions

_REDUCTIONS = ["sum", "mean", "prod", "amax", "amin", "std", "var", "any", "all",
               "logsumexp", "nansum", "nanmean", "count_nonzero", "norm"]
_SINGLE_DIM = {"prod", "any", "all", "logsumexp"}     # take one dim at a time


def _dim_of(site: Site):
    """(dim, keepdim) of a reduction call, as constants (None: every dim)."""
    dim = None
    if "dim" in site.kwargs:
        dim = site.kwargs["dim"][1]
    elif len(site.args) > 1:
        dim = site.args[1]
    keep = site.kwargs.get("keepdim", (None, None))[1]
    for value, what in ((dim, "dim"), (keep, "keepdim")):
        if value is not None and (value.batched or not value.exact):
            raise Unsupported(f"the reduction's `{what}` must be a constant written in the "
                              "function")
    return (None if dim is None else dim.example), bool(keep.example if keep else False)


def _reduction(site: Site):
    method = isinstance(site.func, str)
    name = site.func if method else site.func.__name__
    x_value = site.args[0]
    if not x_value.batched:
        raise Unsupported("a reduction of a shared tensor with per-example arguments",
                          suggestion="reduce before mixing in per-example values")
    if len(site.args) > 2:
        raise Unsupported(f"`{name}` with more than a dim given by position",
                          suggestion="pass the other arguments by keyword")
    rank = x_value.rank
    dim, keep = _dim_of(site)
    if dim is None:
        dims = tuple(range(1, rank + 1))
    elif rank == 0 and all(d in (0, -1) for d in (dim if isinstance(dim, (tuple, list))
                                                 else (dim,))):
        dims = ()      # PyTorch takes dim 0 / -1 of a 0-d tensor as the tensor itself
    elif isinstance(dim, (tuple, list)):
        dims = tuple(axes.shift_axis(int(d), rank) for d in dim)
    else:
        dims = axes.shift_axis(int(dim), rank)
    if dims == ():
        # a reduction of a per-example scalar: the scalar itself, in the dtype it gives
        return _retyped(site.nodes[0], x_value, site.result)
    x = site.nodes[0]
    if isinstance(dims, tuple) and len(dims) == 1:
        dims = dims[0]
    if isinstance(dims, tuple) and name in _SINGLE_DIM:
        if keep:
            raise Unsupported(f"`{name}` over several dims with keepdim=True",
                              suggestion="reduce one dim at a time")
        x = axes.flattened(x, rank)
        dims = 1
    args = [f"dim={dims!r}"] + (["keepdim=True"] if keep else [])
    rest = [a for a in site.node.args
            if a.keyword is not None and a.keyword.value not in ("dim", "keepdim")]
    call = (f"{{x}}.{name}(" + ", ".join(args) + ")") if method else \
        f"torch.{name}({{x}}, " + ", ".join(args) + ")"
    out = expr(call, x=x)
    if rest:
        out = out.with_changes(args=list(out.args) + rest)
    return out


def _retyped(node, value: Value, result) -> cst.BaseExpression:
    """``node`` in the dtype of ``result`` (a reduction of a scalar: `sum` of a bool is an
    int64, `mean` of a 0-d float32 is itself)."""
    if isinstance(result, Value) and result.known and value.known \
            and result.dtype != value.dtype:
        return expr(f"{{x}}.to(torch.{result.dtype.name})", x=node)
    return node


def register_reductions(reg: Registry, torch) -> None:
    explanation = ("Reductions (`torch.sum`, `x.mean(dim=0)`, `torch.amax`...) reduce the "
                   "per-example dims: `dim=k` becomes `dim=k + 1` (negative dims stay), no "
                   "`dim` every per-example dim.")
    for name in _REDUCTIONS:
        for owner, key in ((torch, getattr(torch, name, None)),
                           (torch.Tensor, name if hasattr(torch.Tensor, name) else None)):
            if key is None:
                continue
            rule = Rule("torch.reduction", "torch", explanation,
                        "s = torch.sum(v)\nm = x.mean(dim=0)",
                        "s = torch.sum(v, dim=1)\nm = x.mean(dim=1)", _reduction,
                        infer=per_example(key), shadow=shadow(key))
            if owner is torch:
                reg.add_call(key, rule)
            else:
                reg.add_method(key, rule)
    for name in ("max", "min"):
        def rewrite(site, name=name):
            if site.kwargs or len(site.args) > 1:
                raise Unsupported(f"`{name}` with a dim gives values and indices per example; "
                                  f"use `torch.a{name}` for the values",
                                  suggestion=f"use torch.a{name}(x, dim=...)")
            rank = site.args[0].rank
            if rank == 0:
                return site.nodes[0]
            dims = tuple(range(1, rank + 1)) if rank > 1 else 1
            return expr(f"torch.a{name}({{x}}, dim={dims!r})", x=site.nodes[0])
        for key, add in ((getattr(torch, name), reg.add_call), (name, reg.add_method)):
            add(key, Rule(f"torch.{name}", "torch",
                          f"`torch.{name}(x)` / `x.{name}()` without a dim is the {name}imum of "
                          f"each example: `torch.a{name}` over its per-example dims.",
                          f"m = v.{name}()", f"m = torch.a{name}(v, dim=1)", rewrite,
                          infer=per_example(key), shadow=shadow(key)))
