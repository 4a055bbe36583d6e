"""Torch operations that take dims, reshape, join or split tensors: one family each.

**Dim-taking operations** (`DIM_OPS`: ``torch.narrow``, ``x.select``, ``torch.movedim``,
``torch.chunk``, ``x.cumsum``, ``torch.argmax``, ``torch.log_softmax``...): the per-example
dims are the batched tensor's dims after the batch axis, so each dim argument, a constant
written in the function, becomes ``d + 1`` (a negative one is counted from the per-example
rank first, so the code says which dim it means); a dim left to its default is written out
(``torch.unbind(x)`` is ``torch.unbind(x, dim=1)``). A default that means "every dim"
(``torch.argmax(x)``, ``torch.roll(x, 1)``) works on each example flattened. What the
operation gives per example (shape, dtype, tuples of pieces) is what PyTorch gives on the
analysis' examples (`common.per_example`), so an operation the per-example code could not run
is refused where it is written.

**Reshapes** keep the batch length in front (``x.view(3, 4)`` is ``x.view(len(x), 3, 4)``):
``view`` stays ``view``, which PyTorch refuses where the strides of the batch do not allow it,
as it refuses the per-example view (the batch axis is a dim of its own on both sides).

**Joins** (``torch.cat``, ``torch.stack``) of per-example and shared tensors: the shared ones
are expanded to the batch (a view, no copy) and the dim shifted.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import libcst as cst

from ...abstract import UNKNOWN, TupleValue, Value, batched_like, exact, unbatched
from ...errors import Unsupported
from ...rules.families import pad
from ...rules.registry import Registry, Rule, Site
from ...syntax.templates import commas, expr, parse_expr, render
from .dtypes import torch_module

REQUIRED = object()      # the dim has no default
EVERY = object()         # the default means every per-example dim (op-specific)


@dataclass(frozen=True)
class Dim:
    """One dim argument: its position among the arguments after the tensor, its keyword,
    its default, and whether it counts dims of the result (one more: ``unsqueeze``)."""

    position: int
    keyword: str
    default: object = REQUIRED
    out: bool = False


def _dims(*spec):
    return tuple(Dim(*s) if isinstance(s, tuple) else Dim(0, s) for s in spec)


DIM_OPS = {
    "unsqueeze": (Dim(0, "dim", out=True),),
    "squeeze": (Dim(0, "dim"),),
    "transpose": _dims((0, "dim0"), (1, "dim1")),
    "swapaxes": _dims((0, "axis0"), (1, "axis1")),
    "swapdims": _dims((0, "dim0"), (1, "dim1")),
    "movedim": _dims((0, "source"), (1, "destination")),
    "moveaxis": _dims((0, "source"), (1, "destination")),
    "narrow": _dims("dim"),
    "select": _dims("dim"),
    "unfold": _dims("dimension"),
    "flip": _dims("dims"),
    "roll": (Dim(1, "dims", EVERY),),
    "diagonal": (Dim(1, "dim1", 0), Dim(2, "dim2", 1)),
    "diag_embed": (Dim(1, "dim1", -2, out=True), Dim(2, "dim2", -1, out=True)),
    "unbind": (Dim(0, "dim", 0),),
    "chunk": (Dim(1, "dim", 0),),
    "split": (Dim(1, "dim", 0),),
    "tensor_split": (Dim(1, "dim", 0),),
    "cumsum": _dims("dim"),
    "cumprod": _dims("dim"),
    "logcumsumexp": _dims("dim"),
    "cummax": _dims("dim"),
    "cummin": _dims("dim"),
    "softmax": _dims("dim"),
    "log_softmax": _dims("dim"),
    "argmax": (Dim(0, "dim", EVERY),),
    "argmin": (Dim(0, "dim", EVERY),),
    "var_mean": (Dim(0, "dim", EVERY),),
    "std_mean": (Dim(0, "dim", EVERY),),
    "sort": (Dim(0, "dim", -1),),
    "argsort": (Dim(0, "dim", -1),),
    "topk": (Dim(1, "dim", -1),),
    "kthvalue": (Dim(1, "dim", -1),),
    "flatten": (Dim(0, "start_dim", 0), Dim(1, "end_dim", -1)),
}
# operations that give a 0-d tensor itself for dims 0 / -1
_SCALAR_IDENTITY = {"transpose", "swapaxes", "swapdims", "movedim", "moveaxis", "flip",
                    "cumsum", "cumprod", "logcumsumexp"}
# operations of one output of the input's shape whose dim 0 / -1 of a 0-d tensor is the
# tensor as a dim of one element (`_along_one`)
_ALONG_ONE = {"softmax", "log_softmax", "softmin", "argsort"}
# torch.nn.functional forms (their own keywords: F.softmax(input, dim=None, ...))
F_DIM_OPS = {"softmax": _dims("dim"), "log_softmax": _dims("dim"),
             "softmin": _dims("dim")}


# --------------------------------------------------------------------- the arguments


def _is_method(site: Site) -> bool:
    return isinstance(site.func, str)


def _rest(site: Site) -> list[cst.Arg]:
    """The call's arguments after the tensor."""
    args = list(site.node.args)
    return args if _is_method(site) else args[1:]


def _given(site: Site, dim: Dim):
    """The abstract value of a dim argument, or None where it is not given."""
    if dim.keyword in site.kwargs:
        return site.kwargs[dim.keyword][1]
    if len(site.args) > dim.position + 1:
        return site.args[dim.position + 1]
    return None


def _constant(value, what: str):
    if isinstance(value, TupleValue):         # a tuple display: (1, 0)
        return tuple(_constant(item, what) for item in value.items)
    if not isinstance(value, Value) or value.batched or not value.exact:
        raise Unsupported(f"the {what} must be a constant written in the function (or an "
                          "argument that is not mapped)",
                          suggestion="write the dim as a number")
    return value.example


def shifted(dim, rank: int, what: str = "dim"):
    """A per-example dim (an int, or a tuple/list of them) of a tensor of per-example rank
    ``rank`` as the dim of the batch; a dim out of range is refused (PyTorch raises per
    example)."""
    if isinstance(dim, (tuple, list)):
        return type(dim)(shifted(d, rank, what) for d in dim)
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise Unsupported(f"the {what} {dim!r} is not an integer")
    if not -rank <= dim < rank:
        raise Unsupported(f"{what} {dim} is out of range for a per-example tensor of "
                          f"{rank} dims")
    return (dim + rank if dim < 0 else dim) + 1


def _tensor(site: Site) -> Value:
    if not site.args:
        raise Unsupported("the tensor passed by keyword", suggestion="pass it by position")
    x = site.args[0]
    others = [v for v in list(site.args[1:]) + [v for _, v in site.kwargs.values()]
              if getattr(v, "batched", False)]
    if others or not x.batched:
        raise Unsupported("a per-example value as an argument other than the tensor",
                          suggestion="index or slice with values the same for every example")
    return x


def with_args(site: Site, rest: list[cst.Arg], base=None) -> cst.Call:
    """The call with ``rest`` as its arguments after the tensor (``base`` in its place)."""
    call = site.node
    x = base if base is not None else site.nodes[0]
    rest = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in rest]
    if _is_method(site):
        return call.with_changes(func=call.func.with_changes(value=x), args=commas(rest))
    return call.with_changes(args=commas([cst.Arg(x)] + rest))


def kwarg(keyword: str, value) -> cst.Arg:
    return cst.Arg(parse_expr(repr(value)), keyword=cst.Name(keyword),
                   equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                         whitespace_after=cst.SimpleWhitespace("")))


def _flat(site: Site, x: cst.BaseExpression, rank: int) -> cst.BaseExpression:
    return expr("{x}.flatten(1)", x=x) if rank else expr("{x}.reshape(len({x}), 1)", x=x)


# ------------------------------------------------------------------- dim-taking ops


def dim_rule(spec):
    """The rewrite of an operation whose dim arguments are ``spec`` (`Dim`s)."""
    def rewrite(site: Site):
        x = _tensor(site)
        rank = x.rank
        name = site.func if _is_method(site) else getattr(site.func, "__name__", "")
        if rank == 0 and name == "flatten":
            return expr("{x}.reshape(len({x}), 1)", x=site.nodes[0])
        if rank == 0 and name in _SCALAR_IDENTITY and all(
                _constant(_given(site, d), "dim") in (0, -1) for d in spec):
            return site.nodes[0]    # PyTorch takes dim 0 / -1 of a 0-d tensor as itself
        if rank == 0 and name in ("argmax", "argmin") and all(
                _given(site, d) is None for d in spec):
            return expr("torch.zeros_like({x}, dtype=torch.int64)", x=site.nodes[0])
        if rank == 0 and name in _ALONG_ONE and all(
                _given(site, d) is None or _constant(_given(site, d), "dim") in (0, -1)
                for d in spec):
            return _along_one(site, spec)
        if rank == 0:
            raise Unsupported(f"`{name}` with a dim of a per-example 0-d tensor",
                              suggestion="give the example a dim first: x.unsqueeze(0)")
        values = {}
        for dim in spec:
            given = _given(site, dim)
            if given is None:
                values[dim] = dim.default
                continue
            example = _constant(given, "dim")
            if example is None and dim.default is EVERY:
                values[dim] = EVERY
                continue
            values[dim] = shifted(example, rank + dim.out)
        if any(v is REQUIRED for v in values.values()):
            raise Unsupported(f"`{name}` without its dim argument",
                              suggestion="name the dim")
        if any(v is EVERY for v in values.values()):
            return _every(site, name, rank)
        rest = []
        keywords = {d.keyword: d for d in spec}
        positions = {d.position: d for d in spec}
        position = 0
        for arg in _rest(site):
            if arg.keyword is None and not arg.star:
                dim = positions.get(position)
                position += 1
                if dim is not None:
                    arg = arg.with_changes(value=parse_expr(repr(values.pop(dim))))
            elif arg.keyword is not None and arg.keyword.value in keywords:
                dim = keywords[arg.keyword.value]
                arg = arg.with_changes(value=parse_expr(repr(values.pop(dim))))
            rest.append(arg)
        for dim, value in values.items():          # defaults, written out
            if dim.position < position:
                continue
            rest.append(kwarg(dim.keyword, shifted(value, rank + dim.out)))
        return with_args(site, rest)
    return rewrite


def _along_one(site: Site, spec) -> cst.BaseExpression:
    """An operation along dim 0 / -1 of a per-example 0-d tensor (which PyTorch takes as a
    dim of one element): along dim 1 of the batch given that dim, which is then dropped
    (``torch.softmax(x.unsqueeze(1), dim=1).squeeze(1)``)."""
    keywords = {d.keyword for d in spec}
    positions = {d.position for d in spec}
    rest, position = [], 0
    for arg in _rest(site):
        if arg.keyword is None and not arg.star:
            if position in positions:
                arg = arg.with_changes(value=parse_expr("1"))
            position += 1
        elif arg.keyword is not None and arg.keyword.value in keywords:
            arg = arg.with_changes(value=parse_expr("1"))
        rest.append(arg)
    call = with_args(site, rest, base=expr("{x}.unsqueeze(1)", x=site.nodes[0]))
    return expr("{c}.squeeze(1)", c=call)


def _every(site: Site, name: str, rank: int):
    """An operation whose dim is left to "every dim": on each example flattened."""
    x = site.nodes[0]
    keep = site.kwargs.get("keepdim", (None, None))[1]
    if keep is not None and _constant(keep, "keepdim"):
        raise Unsupported(f"`{name}` over every dim with keepdim=True",
                          suggestion="name the dims")
    if name in ("argmax", "argmin"):
        rest = [a for a in _rest(site) if a.keyword is None or a.keyword.value != "dim"]
        return with_args(site, rest + [kwarg("dim", 1)], base=_flat(site, x, rank))
    if name in ("var_mean", "std_mean"):
        rest = [a for a in _rest(site) if a.keyword is None or a.keyword.value != "dim"]
        if any(a.keyword is None for a in rest):
            raise Unsupported(f"`{name}` with `unbiased` given by position",
                              suggestion="pass correction= by keyword")
        return with_args(site, rest + [kwarg("dim", tuple(range(1, rank + 1)))])
    if name == "roll":
        rest = [a for a in _rest(site) if a.keyword is None or a.keyword.value != "dims"]
        rolled = with_args(site, rest + [kwarg("dims", 1)], base=_flat(site, x, rank))
        return expr("{r}.reshape({x}.shape)", r=rolled, x=x)
    raise Unsupported(f"`{name}` without a dim")


# ------------------------------------------------------------------------- reshapes


def _shape_of(site: Site, start: int):
    """The shape arguments from ``site.args[start:]``: nodes of each dim (a single tuple,
    list or size written out), or None with the node of a shape given as one value."""
    nodes, values = site.nodes[start:], site.args[start:]
    if "shape" in site.kwargs or "size" in site.kwargs:
        node, value = site.kwargs.get("shape") or site.kwargs["size"]
        nodes, values = [node], [value]
    if any(v.batched for v in values):
        raise Unsupported("a shape that differs per example",
                          suggestion="compute the shape from constants and `x.shape`")
    if len(nodes) == 1 and not isinstance(values[0].example, int):
        node = nodes[0]
        if isinstance(node, (cst.Tuple, cst.List)):
            return [e.value for e in node.elements], None
        return None, node
    return list(nodes), None


def _reshape(site: Site):
    """``x.reshape(3, 4)``, ``x.view([3, 4])``, ``torch.reshape(x, (3, 4))``: the batch
    length in front; ``view`` stays a view."""
    _tensor(site)
    method = site.func if _is_method(site) else getattr(site.func, "__name__", "reshape")
    if method == "view" and len(site.args) == 2 and not isinstance(
            site.args[1].example, (int, tuple, list)):
        raise Unsupported("`x.view(dtype)`", suggestion="use x.to(dtype) or x.view(shape)")
    dims, whole = _shape_of(site, 1)
    x = site.nodes[0]
    if whole is not None:
        return expr(f"{{x}}.{method}((len({{x}}),) + tuple({{s}}))", x=x, s=whole)
    dims = _inferred_size(dims, x)
    holders = {f"d{i}": d for i, d in enumerate(dims)}
    return expr(f"{{x}}.{method}(len({{x}}), " + ", ".join(f"{{d{i}}}" for i in range(len(dims)))
                + ")", x=x, **holders)


def _inferred_size(dims, x):
    """The dims of a reshape with its ``-1`` computed from the example's size where the
    other dims are numbers: PyTorch cannot infer it for an empty batch (``view(0, -1)``
    is ambiguous) where each example's reshape can."""
    texts = [render(d).replace(" ", "") for d in dims]
    if texts.count("-1") != 1 or not all(t.lstrip("-").isdigit() for t in texts):
        return dims
    rest = 1
    for t in texts:
        rest *= int(t) if t != "-1" else 1
    size = "{x}.shape[1:].numel()" + (f" // {rest}" if rest != 1 else "")
    return [expr(size, x=x) if t == "-1" else d for d, t in zip(dims, texts)]


def _shaped_like(method: str):
    """``x.view_as(o)`` / ``x.reshape_as(o)`` / ``x.expand_as(o)``: the shape of one
    example of ``o``."""
    def rewrite(site: Site):
        (x, o), (xv, ov) = site.nodes[:2], site.args[:2]
        shape = "{o}.shape[1:]" if ov.batched else "{o}.shape"
        if not xv.batched:
            # the same tensor for every example, shaped like each example of `o`
            return expr(f"{{x}}.{method}({shape}).expand({{o}}.shape)", x=x, o=o)
        if method == "expand":
            x = pad(x, xv, ov.rank)
        return expr(f"{{x}}.{method}(len({{x}}), *{shape})", x=x, o=o)
    return rewrite


def _expand(site: Site):
    x = _tensor(site)
    dims, whole = _shape_of(site, 1)
    if whole is not None:
        return expr("{x}.expand(len({x}), *{s})", x=pad(site.nodes[0], x, len(
            site.result.example.shape)), s=whole)
    node = pad(site.nodes[0], x, len(dims))
    holders = {f"d{i}": d for i, d in enumerate(dims)}
    return expr("{x}.expand(len({x}), " + ", ".join(f"{{d{i}}}" for i in range(len(dims)))
                + ")", x=node, **holders)


def _repeat(site: Site):
    x = _tensor(site)
    dims, whole = _shape_of(site, 1)
    if whole is not None:
        raise Unsupported("`x.repeat(sizes)` with the sizes in a variable",
                          suggestion="write the sizes out: x.repeat(2, 3)")
    node = pad(site.nodes[0], x, len(dims))
    holders = {f"d{i}": d for i, d in enumerate(dims)}
    return expr("{x}.repeat(1, " + ", ".join(f"{{d{i}}}" for i in range(len(dims))) + ")",
                x=node, **holders)


def _t(site: Site):
    x = _tensor(site)
    if x.rank < 2:
        return site.nodes[0]
    return expr("{x}.transpose(1, 2)", x=site.nodes[0])


def _trace(site: Site):
    _tensor(site)
    return expr("torch.diagonal({x}, 0, 1, 2).sum(-1)", x=site.nodes[0])


def _permute(site: Site):
    x = _tensor(site)
    values = list(site.args[1:]) + [v for _, v in site.kwargs.values()]
    dims = [_constant(v, "dims of `permute`") for v in values]
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = list(dims[0])
    order = [0] + [shifted(d, x.rank) for d in dims]
    return expr("{x}.permute(" + ", ".join(map(str, order)) + ")", x=site.nodes[0])


# ---------------------------------------------------------------------------- joins


def _join(stack: bool):
    def rewrite(site: Site):
        if not site.args:
            raise Unsupported("the tensors passed by keyword", suggestion="pass them by "
                                                                          "position")
        items, node = site.args[0], site.nodes[0]
        if isinstance(items, TupleValue):
            values = list(items.items)
        else:
            raise Unsupported("a join of a sequence whose items are not known",
                              suggestion="write the tensors out: torch.cat([a, b])")
        batched = [v for v in values if v.batched]
        if any(not v.known for v in values) or len({v.rank for v in values}) > 1:
            raise Unsupported("a join of tensors of different per-example ranks",
                              suggestion="give them the same number of dims")
        rank = batched[0].rank
        dim_value = _given(site, Dim(0, "dim", 0))
        dim = 0 if dim_value is None else _constant(dim_value, "dim")
        dim = shifted(dim, rank + stack) if (rank or stack) else None
        if dim is None:
            raise Unsupported("`torch.cat` of per-example 0-d tensors (PyTorch raises per "
                              "example)", kind="raises")
        if not all(v.batched for v in values):
            if not isinstance(node, (cst.List, cst.Tuple)):
                raise Unsupported("a join of shared and per-example tensors held in one "
                                  "variable", suggestion="write the tensors out: "
                                                         "torch.cat([a, b])")
            lead = next(e.value for e, v in zip(node.elements, values) if v.batched)
            elements = [e if v.batched else e.with_changes(value=expr(
                "{s}.expand(len({x}), *{s}.shape)", s=e.value, x=lead))
                for e, v in zip(node.elements, values)]
            node = node.with_changes(elements=elements)
        # the dim (by position or keyword) is written anew; other keywords stay
        rest = [a for a in site.node.args[1:] if a.keyword is not None
                and a.keyword.value != "dim"]
        return with_args(site, rest + [kwarg("dim", dim)], base=node)
    return rewrite


def _join_infer(per_example):
    def infer(site: Site):
        items = site.args[0] if site.args else None
        if isinstance(items, Value) and items.batched:
            raise Unsupported("a join of the rows of one per-example tensor",
                              suggestion="use the tensor itself, or write the pieces out")
        return per_example(site)
    return infer


# ------------------------------------------------------------------- the registration


def _attribute_infer(site: Site):
    """``x.is_floating_point()``, ``x.is_complex()``: the same for every example."""
    x = site.args[0]
    return exact(bool(getattr(torch_module(), site.func)(examples_tensor(x))))


def _attribute(attr: str):
    def infer(site: Site):
        from . import examples
        x = site.args[0]
        if isinstance(x, Value) and not x.known:
            # an example the analysis could not make (an item of a per-example choice
            # between tables of different lengths): the pass that cannot batch it refuses
            return Value(x.batched, UNKNOWN)
        try:
            out = examples.example_attribute(site.args[0].example, attr)
        except (AttributeError, RuntimeError, TypeError) as exc:
            raise Unsupported(f"`.{attr}` raises per example ({exc})", kind="raises") from None
        return batched_like(out)
    return infer


def examples_tensor(value):
    from . import examples
    return examples.to_tensor(value.example)


def _unbatched_result(site: Site):
    """``x.new_zeros(2, 3)``: a new tensor of ``x``'s dtype and device, the same for every
    example (only ``x``'s dtype is read)."""
    from .common import per_example
    out = per_example(site.func)(site)
    if any(getattr(v, "batched", False) for v in list(site.args[1:]) + [
            v for _, v in site.kwargs.values()]):
        raise Unsupported(f"`.{site.func}()` with a per-example size or value",
                          suggestion="fill it with a per-example value afterwards")
    return unbatched(out.example, False)


def register(reg: Registry) -> None:
    from .common import per_example, shadow
    torch = torch_module()
    F = torch.nn.functional

    def add(owner, name, rule_name, explanation, before, after, rewrite, infer=None,
            methods=True, functions=True):
        fn = getattr(owner, name, None)
        if functions and fn is not None and reg.for_call(fn) is None:
            label = f"`{'F' if owner is F else 'torch'}.{name}`"
            reg.add_call(fn, Rule(rule_name, "shapes", explanation, before, after, rewrite,
                                  infer=infer or per_example(fn, label),
                                  shadow=shadow(fn)))
        if methods and owner is torch and hasattr(torch.Tensor, name) \
                and name not in reg.methods:
            reg.add_method(name, Rule(rule_name, "shapes", explanation, before, after,
                                      rewrite, infer=infer or per_example(name, f"`.{name}()`"),
                                      shadow=shadow(name)))

    dims = ("Operations that take dims (`torch.narrow`, `x.select`, `torch.movedim`, "
            "`torch.chunk`, `x.cumsum`, `torch.argmax`, `torch.log_softmax`...): each "
            "per-example dim `d` is `d + 1` on the batch (a negative one counted from the "
            "per-example rank first), a dim left to its default is written out, and a default "
            "meaning every dim works on each example flattened.",
            "parts = torch.chunk(v, 2)\nk = torch.argmax(m)",
            "parts = torch.chunk(v, 2, dim=1)\nk = torch.argmax(m.flatten(1), dim=1)")
    for name, spec in DIM_OPS.items():
        add(torch, name, "torch.dims", *dims, dim_rule(spec))
    for name, spec in F_DIM_OPS.items():
        add(F, name, "torch.dims", *dims, dim_rule(spec))

    reshape = ("`x.reshape(3, 4)`, `x.view([3, 4])`, `torch.reshape(x, (3, 4))` keep the "
               "batch length in front; `view` stays `view` (PyTorch refuses it where the "
               "batch's strides do not allow it, as it refuses it per example).",
               "m = v.view(3, 4)", "m = v.view(len(v), 3, 4)")
    for name in ("reshape", "view"):
        reg.add_method(name, Rule("torch.reshape", "shapes", *reshape, _reshape,
                                  infer=per_example(name, f"`.{name}()`")))
    reg.add_call(torch.reshape, Rule("torch.reshape", "shapes", *reshape, _reshape,
                                     infer=per_example(torch.reshape, "`torch.reshape`"),
                                     shadow=shadow(torch.reshape)))
    for method, template in (("view_as", "view"), ("reshape_as", "reshape"),
                             ("expand_as", "expand")):
        reg.add_method(method, Rule(
            "torch.shaped_like", "shapes",
            "`x.view_as(o)`, `x.reshape_as(o)`, `x.expand_as(o)` take the shape of one "
            "example of `o`: `x.view(len(x), *o.shape[1:])`.", "y = x.view_as(o)",
            "y = x.view(len(x), *o.shape[1:])", _shaped_like(template),
            infer=per_example(method, f"`.{method}()`")))
    reg.add_method("expand", Rule(
        "torch.expand", "shapes", "`x.expand(5, 2, 3)`: the batch length in front, the "
        "example given its missing leading dims after the batch axis.",
        "y = v.expand(5, 3)", "y = v.expand(len(v), 5, 3)", _expand,
        infer=per_example("expand", "`.expand()`")))
    reg.add_method("repeat", Rule(
        "torch.repeat", "shapes", "`x.repeat(2, 3)` repeats each example: the batch axis "
        "repeated once.", "y = m.repeat(2, 3)", "y = m.repeat(1, 2, 3)", _repeat,
        infer=per_example("repeat", "`.repeat()`")))
    for key, add_to in ((torch.t, reg.add_call), ("t", reg.add_method)):
        add_to(key, Rule("torch.t", "shapes", "`torch.t(m)` / `m.t()` swaps the two "
                         "per-example dims.", "y = m.t()", "y = m.transpose(1, 2)", _t,
                         infer=per_example(key), shadow=shadow(key)))
    for key, add_to in ((torch.trace, reg.add_call), ("trace", reg.add_method)):
        add_to(key, Rule("torch.trace", "shapes", "`torch.trace(m)` of per-example matrices: "
                         "the sum of each one's diagonal.", "s = torch.trace(m)",
                         "s = torch.diagonal(m, 0, 1, 2).sum(-1)", _trace,
                         infer=per_example(key), shadow=shadow(key)))
    reg.add_call(torch.permute, Rule(
        "torch.permute", "shapes", "`torch.permute(x, dims)` keeps the batch dim first.",
        "t = torch.permute(m, (1, 0))", "t = m.permute(0, 2, 1)", _permute,
        infer=per_example(torch.permute), shadow=shadow(torch.permute)))
    for fn, stack in ((torch.cat, False), (torch.concat, False), (torch.concatenate, False),
                      (torch.stack, True)):
        reg.add_call(fn, Rule(
            "torch.join", "shapes", "`torch.cat` / `torch.stack` of per-example and shared "
            "tensors: the shared ones expanded to the batch (a view), the dim shifted.",
            "y = torch.cat([x, w])", "y = torch.cat([x, w.expand(len(x), *w.shape)], dim=1)",
            _join(stack), infer=_join_infer(per_example(fn)), shadow=shadow(fn)))
    # `Tensor.view(t, 10)`, `op = Tensor.unfold; op(t, 0, 2, 1)`: the unbound method called
    # as a function is the method
    for name in [*DIM_OPS, "reshape", "view", "view_as", "reshape_as", "expand_as",
                 "expand", "repeat", "t", "trace"]:
        descriptor = getattr(torch.Tensor, name, None)
        if descriptor is not None and reg.for_call(descriptor) is None \
                and name in reg.methods:
            reg.add_call(descriptor, dataclasses.replace(reg.methods[name],
                                                         shadow=shadow(name)))
    for attr in ("mT", "mH", "real", "imag"):
        if attr not in reg.attributes:
            reg.add_attribute(attr, Rule(
                "torch.last_dims_attribute", "shapes", "`m.mT`, `m.mH` (the last two dims "
                "swapped), `z.real`, `z.imag` act on each example's last dims: as written.",
                "y = m.mT", "y = m.mT", lambda site: site.node, infer=_attribute(attr)))
    for method in ("new_zeros", "new_ones", "new_empty", "new_full", "new_tensor"):
        reg.add_method(method, Rule(
            "torch.new_tensor", "creation", "`x.new_zeros(2, 3)` makes a tensor of `x`'s dtype "
            "and device, the same for every example: as written.", "z = x.new_zeros(2, 3)",
            "z = x.new_zeros(2, 3)", lambda site: site.node, infer=_unbatched_result))
    for method in ("is_floating_point", "is_complex"):
        reg.add_method(method, Rule(
            "torch.dtype_query", "creation", "`x.is_floating_point()`, `x.is_complex()` are "
            "the same for every example: as written (a Python bool).",
            "f = x.is_floating_point()", "f = x.is_floating_point()", lambda site: site.node,
            infer=_attribute_infer))
