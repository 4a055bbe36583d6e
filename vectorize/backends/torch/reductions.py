"""The torch table of reductions (``sum``, ``mean``, ``amax``...): their dims shifted past the
batch axis."""

from __future__ import annotations

import libcst as cst

from ...abstract import Value
from ...errors import Unsupported
from ...rules import axes
from ...rules.registry import Registry, Rule, Site
from ...syntax.templates import commas, expr
from .common import per_example, rewrite_elementwise, shadow
from .dims import Dim, dim_rule

_WITH_DIM = dim_rule((Dim(0, "dim"),))

# ------------------------------------------------------------------------ reductions

_REDUCTIONS = ["sum", "mean", "prod", "amax", "amin", "std", "var", "any", "all",
               "logsumexp", "nansum", "nanmean", "count_nonzero", "norm"]
_SINGLE_DIM = {"prod", "any", "all", "logsumexp"}     # take one dim at a time
# the reductions whose value for a 0-d tensor is the tensor itself (in the dtype they give)
# (not `sum` and `mean`: of -0.0 they give 0.0)
_IDENTITY_OF_SCALAR = {"prod", "amax", "amin", "any", "all"}


# the parameters after the tensor that a reduction takes by position (the rest by keyword)
_POSITIONAL = {"norm": ("p", "dim", "keepdim"), "std": ("dim", "unbiased", "keepdim"),
               "var": ("dim", "unbiased", "keepdim"), "count_nonzero": ("dim",)}


def _arguments(site: Site, name: str) -> dict:
    """The reduction's arguments after the tensor by parameter name: (node, value), the
    positional ones named by `_POSITIONAL` (``dim``, ``keepdim`` for the others)."""
    names = _POSITIONAL.get(name, ("dim", "keepdim"))
    positional = list(zip(site.nodes[1:], site.args[1:]))
    if name in ("std", "var") and positional and type(positional[0][1].example) is bool:
        names = ("unbiased",)           # `torch.std(x, False)`
    if len(positional) > len(names):
        raise Unsupported(f"`{name}` with more arguments given by position than "
                          f"{', '.join(names)}", suggestion="pass the others by keyword")
    arguments = {**dict(zip(names, positional)), **site.kwargs}
    for key, (_, value) in arguments.items():
        if getattr(value, "batched", False):
            raise Unsupported(f"`{name}` with a per-example `{key}`",
                              suggestion=f"give `{key}` the same value for every example")
    return arguments


def _dim_of(arguments: dict):
    """(dim, keepdim) of a reduction call, as constants (None: every dim)."""
    dim = arguments.get("dim", (None, None))[1]
    keep = arguments.get("keepdim", (None, None))[1]
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
    arguments = _arguments(site, name)
    rank = x_value.rank
    dim, keep = _dim_of(arguments)
    if dim is None:
        dims = tuple(range(1, rank + 1))
    elif rank == 0 and all(d in (0, -1) for d in (dim if isinstance(dim, (tuple, list))
                                                 else (dim,))):
        dims = ()      # PyTorch takes dim 0 / -1 of a 0-d tensor as the tensor itself
    elif isinstance(dim, (tuple, list)):
        dims = tuple(axes.shift_axis(int(d), rank) for d in dim)
    else:
        dims = axes.shift_axis(int(dim), rank)
    x = site.nodes[0]
    if dims == ():
        if name in _IDENTITY_OF_SCALAR:
            # a reduction of a per-example scalar: the scalar itself, in the dtype it gives
            return _retyped(x, x_value, site.result)
        # (`std` of one number is NaN, `norm` its magnitude, `count_nonzero` 0 or 1, `nansum`
        # of NaN 0, `sum` of -0.0 0.0): the reduction of a dim of one element per example
        x, dims, keep = expr("{x}.unsqueeze(1)", x=x), 1, False
    if isinstance(dims, tuple) and len(dims) == 1:
        dims = dims[0]
    rest = [cst.Arg(node, keyword=cst.Name(key), equal=_EQUAL)
            for key, (node, _) in arguments.items() if key not in ("dim", "keepdim")]
    if isinstance(dims, tuple) and name in _SINGLE_DIM:
        every = sorted(d % (rank + 1) for d in dims)
        if not keep and every == list(range(1, rank + 1)):
            x, dims = axes.flattened(x, rank), 1
        else:
            # one dim at a time: the last first where they go (so the others keep their
            # numbers), in any order where they stay (keepdim=True)
            for d in (every if keep else every[::-1]):
                x = _reduced(x, name, method, d, keep, rest)
            return x
    return _reduced(x, name, method, dims, keep, rest)


_EQUAL = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                        whitespace_after=cst.SimpleWhitespace(""))


def _reduced(x, name: str, method: bool, dims, keep: bool, rest) -> cst.BaseExpression:
    args = [f"dim={dims!r}"] + (["keepdim=True"] if keep else [])
    call = (f"{{x}}.{name}(" + ", ".join(args) + ")") if method else \
        f"torch.{name}({{x}}, " + ", ".join(args) + ")"
    out = expr(call, x=x)
    if rest:
        out = out.with_changes(args=commas(list(out.args) + rest))
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
            second = site.kwargs["other"][1] if "other" in site.kwargs else \
                site.args[1] if len(site.args) > 1 and "dim" not in site.kwargs else None
            if second is not None and type(second.example) is not int:
                # `torch.max(x, y)` of two tensors: `torch.maximum`, lane by lane
                return rewrite_elementwise(site)
            if site.kwargs or len(site.args) > 1:
                # `torch.max(x, dim)`: (values, indices) of each example along the dim
                return _WITH_DIM(site)
            rank = site.args[0].rank
            if rank == 0:
                return site.nodes[0]
            dims = tuple(range(1, rank + 1)) if rank > 1 else 1
            return expr(f"torch.a{name}({{x}}, dim={dims!r})", x=site.nodes[0])
        for key, add in ((getattr(torch, name), reg.add_call), (name, reg.add_method)):
            add(key, Rule(f"torch.{name}", "torch",
                          f"`torch.{name}(x)` / `x.{name}()` without a dim is the {name}imum of "
                          f"each example: `torch.a{name}` over its per-example dims; with a "
                          f"dim (values and indices) the dim is shifted past the batch dim; "
                          f"`torch.{name}(x, y)` of two tensors acts lane by lane.",
                          f"m = v.{name}()", f"m = torch.a{name}(v, dim=1)", rewrite,
                          infer=per_example(key), shadow=shadow(key)))
