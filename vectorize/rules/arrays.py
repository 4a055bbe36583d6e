"""Per-example arrays: indexing, shape attributes, reductions and shape functions.

The batch axis is axis 0 of every batched value, so a per-example axis ``k >= 0`` is batched
axis ``k + 1``; negative axes count from the end and stay as they are; ``axis=None`` means
every per-example axis. The per-example shape is the array's shape without axis 0.
"""

from __future__ import annotations

import libcst as cst
import numpy as np

from ..abstract import TupleValue, unbatched
from ..errors import Unsupported
from ..syntax.templates import expr, parse_expr, render
from .families import pad
from .registry import Registry, Rule, Site

# ------------------------------------------------------------------------------ axes


def shift_axis(axis, rank: int):
    """A per-example axis argument as an axis of the batched array."""
    if axis is None:
        return tuple(range(1, rank + 1)) if rank != 1 else 1
    if isinstance(axis, tuple):
        return tuple(shift_axis(a, rank) for a in axis)
    if isinstance(axis, (int, np.integer)):
        return int(axis) + 1 if axis >= 0 else int(axis)
    raise Unsupported(f"axis {axis!r} is not a constant integer or tuple")


def _axis_arg(site: Site, position: int):
    """(node, example, present) of the ``axis`` argument (keyword or positional)."""
    if "axis" in site.kwargs:
        node, value = site.kwargs["axis"]
        return node, value, True
    if len(site.args) > position:
        return site.nodes[position], site.args[position], True
    return None, None, False


def _constant(value, what: str):
    if value is None:
        return None
    if value.batched or not value.exact:
        raise Unsupported(f"{what} must be a constant written in the function (a literal or "
                          "a module-level name)",
                          suggestion="write the value in the code; an argument's value is "
                                     "not known when the code is generated")
    return value.example


def call_with(site: Site, first, axis_code: str | None, axis_position: int):
    """Rebuild ``f(x, ...)`` / ``x.f(...)`` with ``first`` as the array and ``axis=`` set.

    Positions count the array as 0 for both spellings, so ``axis_position`` is where a
    positional axis sits (1 for ``np.sum(x, 1)`` and ``x.sum(1)``); it is dropped and passed
    by keyword instead. Every other argument is kept as written."""
    call = site.node
    method = site.func_is_method
    new_args = []
    logical = 1 if method else 0
    for arg in call.args:
        if arg.keyword is None and not arg.star:
            position, logical = logical, logical + 1
            if position == axis_position:
                continue
            if position == 0:
                arg = arg.with_changes(value=first)
        elif arg.keyword is not None and arg.keyword.value == "axis":
            continue
        new_args.append(arg)
    if axis_code is not None:
        new_args.append(parse_expr(f"f(axis={axis_code})").args[0])
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    new_args = [a.with_changes(comma=comma) for a in new_args[:-1]] + [
        a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in new_args[-1:]]
    func = call.func.with_changes(value=first) if method else call.func
    return call.with_changes(func=func, args=new_args)


def flattened(x, rank: int):
    """Each example flattened: ``x.reshape(len(x), x.shape[1] * x.shape[2])`` (the sizes
    spelled out, so that an empty batch works too, where ``-1`` would be ambiguous)."""
    if rank == 0:
        return expr("{x}.reshape(len({x}), 1)", x=x)
    if rank == 1:
        return x
    size = " * ".join(f"{{x}}.shape[{k}]" for k in range(1, rank + 1))
    return expr("{x}.reshape(len({x}), " + size + ")", x=x)


def _is_method(site: Site) -> bool:
    return isinstance(site.func, str)


# ------------------------------------------------------------------------------ reductions

REDUCTIONS = ["sum", "prod", "mean", "std", "var", "min", "max", "amin", "amax", "any", "all",
              "median", "nansum", "nanprod", "nanmean", "nanstd", "nanvar", "nanmin", "nanmax",
              "ptp", "count_nonzero"]
FLATTENING = ["argmin", "argmax", "cumsum", "cumprod", "nanargmin", "nanargmax", "nancumsum",
              "nancumprod"]


def _reduction(site: Site):
    method = _is_method(site)
    site.func_is_method = method
    x_value = site.args[0]
    if not x_value.batched:
        raise Unsupported("a reduction of an unbatched array with per-example arguments",
                          suggestion="reduce before mixing in per-example values")
    rank = x_value.rank
    node, value, present = _axis_arg(site, 1)
    axis = _constant(value, "the axis") if present else None
    first = site.nodes[0]
    name = site.func if method else getattr(site.func, "__name__", "")
    if axis is None and rank > 1 and name in FLATTENING:
        first = flattened(first, rank)
        keep = site.kwargs.get("keepdims", (None, None))[1]
        if keep is not None and keep.exact and keep.example:
            # keepdims of a flattened example: one size-1 axis per per-example axis
            ones = ", ".join(["1"] * rank)
            call = call_with(site, first, "1", 1)
            return expr("{r}.reshape(len({x}), " + ones + ")", r=call, x=site.nodes[0])
        new_axis = 1
    elif axis is None and rank == 0:
        if name in FLATTENING or name in ("median", "ptp", "count_nonzero"):
            raise Unsupported(f"`{name}` of a per-example scalar",
                              suggestion="apply it to an array")
        new_axis = ()
    else:
        new_axis = shift_axis(axis, rank)
    return call_with(site, first, repr(new_axis), 1)


def _norm(site: Site):
    """``np.linalg.norm(x, ord, axis, keepdims)`` of each example: without an axis the
    norm of the vector or matrix (``ord`` as NumPy allows it for that rank), or of the
    flattened example (no ``ord``); with one, along the shifted axes."""
    site.func_is_method = False
    x_value = site.args[0]
    rank = x_value.rank
    node, value, present = _axis_arg(site, 2)
    axis = _constant(value, "the axis") if present else None
    ord_value = site.kwargs.get("ord", (None, None))[1]
    if ord_value is None and len(site.args) > 1:
        ord_value = site.args[1]
    ord_ = _constant(ord_value, "ord") if ord_value is not None else None
    keep = site.kwargs.get("keepdims", (None, None))[1]
    keepdims = bool(_constant(keep, "keepdims")) if keep is not None else False
    first = site.nodes[0]
    if axis is not None:
        return call_with(site, first, repr(shift_axis(axis, rank)), 2)
    if ord_ is not None and rank not in (1, 2):
        raise Unsupported(f"`np.linalg.norm` with `ord` of a per-example value of rank {rank} "
                          "(NumPy raises per example: ord needs a vector or a matrix)",
                          suggestion="name the axis or axes")
    if rank == 0:
        return expr("np.abs({x})", x=first)
    if rank <= 2:
        return call_with(site, first, "1" if rank == 1 else "(1, 2)", 2)
    norm = call_with(site, flattened(first, rank), "1", 2)
    if keepdims:
        ones = ", ".join(["1"] * rank)
        return expr("{r}.reshape(len({x}), " + ones + ")", r=norm, x=first)
    return norm


# ------------------------------------------------------------------------------ indexing


def _with_leading_index(node: cst.Subscript, lead: cst.BaseSlice) -> cst.Subscript:
    """``x[a, b]`` -> ``x[lead, a, b]``."""
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    elements = [e.with_changes(comma=cst.MaybeSentinel.DEFAULT) if i == len(node.slice) - 1
                else e for i, e in enumerate(node.slice)]
    return node.with_changes(slice=[cst.SubscriptElement(slice=lead, comma=comma)] + elements)


def subscript(site: Site):
    """``x[i, 1:3]`` -> ``x[:, i, 1:3]``; ``x[k]`` with a per-example ``k`` gathers."""
    node: cst.Subscript = site.node
    base_value = site.args[0]
    parts = site.parts or []
    batched_index = any(p is not None and p.batched for p in parts)
    if len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index) and isinstance(
            node.slice[0].slice.value, cst.Tuple) and not node.slice[0].slice.value.elements:
        return site.nodes[0]                 # x[()] is x itself
    if base_value.batched and not batched_index:
        return _with_leading_index(node, cst.Slice(lower=None, upper=None))
    if all(p is not None for p in parts):
        if any(not p.batched and p.exact and (p.example is None or p.example is Ellipsis)
               for p in parts):
            raise Unsupported("`None` or `...` in an index with per-example indices",
                              suggestion="index with integers only, one axis at a time")
        # index arrays broadcast together per example: per-example ones get the axes they
        # lack after the batch axis (a per-example k with a shared J: `x[k[:, None], J]`)
        rank = max(p.rank for p in parts)
        node = node.with_changes(slice=[
            e.with_changes(slice=e.slice.with_changes(value=pad(e.slice.value, p, rank)))
            for e, p in zip(node.slice, parts)])
        if base_value.batched:
            # x[k] per example -> x[np.arange(len(x)), k]: one element per lane
            lanes = expr(site.spelled.lanes_index("{x}"), x=site.nodes[0])
            if rank:
                lanes = expr("{l}.reshape(-1" + ", 1" * rank + ")", l=lanes)
            return _with_leading_index(node, cst.Index(lanes))
        if isinstance(base_value.example, dict):
            # a dict keyed by numbers: a binary search of its sorted keys, KeyError as Python
            if site.spelled.name != "numpy":
                raise Unsupported("a dict looked up by a per-example key",
                                  suggestion="use a tensor indexed by an integer")
            return expr("pymath.lookup({t}, {k})", t=site.nodes[0],
                        k=node.slice[0].slice.value)
        strings = isinstance(base_value.example, str) or isinstance(
            base_value.example, (list, tuple)) and base_value.example and all(
                type(v) is str for v in base_value.example)
        if strings and site.spelled.name != "numpy":
            raise Unsupported("a table of strings indexed per example",
                              suggestion="index it outside the batched function")
        if isinstance(base_value.example, str):
            # a string's characters: gathered from the array of them
            return node.with_changes(value=expr(site.spelled.constant_array(
                "list({t})", np.asarray(list(base_value.example)).dtype, None),
                t=site.nodes[0]))
        if isinstance(base_value.example, (list, tuple)):
            # a list or tuple of numbers: gathered from the array of its items
            items = np.asarray(base_value.example)
            # the device of a per-example index that is a name (where devices matter)
            like = next((e.slice.value.value for e, p in zip(node.slice, parts)
                         if p.batched and type(e.slice.value) is cst.Name), None)
            gathered = node.with_changes(value=expr(
                site.spelled.constant_array("{t}", items.dtype, like), t=site.nodes[0]))
            if items.ndim == 2 and isinstance(base_value.example[0], tuple):
                # a table of tuples: the row of each example is a tuple, of its columns
                return expr("tuple({g}.T)", g=gathered)
            return gathered
        # an unbatched array indexed by per-example integers: NumPy's fancy indexing
        return node
    raise Unsupported("mixing slices with per-example indices is not supported yet",
                      suggestion="index with integers only, one axis at a time")


# ------------------------------------------------------------------------------ attributes


def _shape(site: Site):
    return expr("{x}.shape[1:]", x=site.nodes[0])


def unbatched_attr(name):
    def infer(site: Site):
        ex = site.args[0].example
        if site.args[0].known:
            return unbatched(getattr(np.asarray(ex), name))
        return unbatched()
    return infer


def _transposed(site: Site):
    rank = site.args[0].rank
    if rank < 2:
        return site.nodes[0]
    order = ", ".join(["0"] + [str(i) for i in range(rank, 0, -1)])
    return expr("{x}.transpose(" + order + ")", x=site.nodes[0])


# ------------------------------------------------------------------------------ builtins


def _elementwise_method(site: Site):
    call = site.node
    rank = site.max_rank
    positional = iter(zip(site.nodes[1:], site.args[1:]))
    args = []
    for arg in call.args:
        if arg.keyword is None and not arg.star:
            node, value = next(positional)
            arg = arg.with_changes(value=pad(node, value, rank))
        elif arg.keyword is not None and arg.keyword.value in site.kwargs:
            node, value = site.kwargs[arg.keyword.value]
            arg = arg.with_changes(value=pad(node, value, rank))
        args.append(arg)
    return call.with_changes(func=call.func.with_changes(value=site.nodes[0]), args=args)


def _len(site: Site):
    if isinstance(site.args[0], TupleValue):
        return site.node          # a tuple (a pytree) of per-example values: its own length
    return expr("{x}.shape[1]", x=site.nodes[0])


def _builtin_sum(site: Site):
    if isinstance(site.args[0], TupleValue):
        # a tuple (vmap's *args, a pytree) of per-example values: Python's sum adds them
        # lane by lane, as per example
        return site.node
    x = site.nodes[0]
    if len(site.nodes) > 1 or "start" in site.kwargs:
        start = site.nodes[1] if len(site.nodes) > 1 else site.kwargs["start"][0]
        return expr("{s} + np.sum({x}, axis=1)", s=start, x=x)
    if site.args[0].kind in "fc":
        # Python's sum starts from the int 0: never -0.0 (sum([-0.0]) is 0.0), np.sum may be
        return expr("0 + np.sum({x}, axis=1)", x=x)
    return expr("np.sum({x}, axis=1)", x=x)


# ------------------------------------------------------------------------------ ragged ranges

MASKABLE = {"sum": "np.sum", "prod": "np.prod", "mean": "np.mean", "any": "np.any",
            "all": "np.all"}


def _range_count(nodes, values):
    """How many elements ``np.arange`` of these (integer) arguments has per example (a
    count <= 0 means none)."""
    if len(nodes) == 1:
        return nodes[0]
    if len(nodes) == 2:
        return expr("{b} - {a}", a=nodes[0], b=nodes[1])
    return expr("-(({a} - {b}) // {s})", a=nodes[0], b=nodes[1], s=nodes[2])


def _check_range(site: Site) -> None:
    if site.kwargs or not 1 <= len(site.args) <= 3:
        raise Unsupported("`np.arange` with per-example bounds and keyword arguments",
                          suggestion="write np.arange(start, stop, step) with integers")
    if any(v.kind not in "iu" for v in site.args):
        raise Unsupported("`np.arange` with per-example bounds that are not integers",
                          suggestion="convert the bounds with int()")


def _ragged_range(site: Site):
    """``np.arange(n)`` with a per-example ``n``: every example's range padded to the
    longest, each padding element a copy of the example's last one (so that operations on
    it compute what they compute for that element), for a masked reduction."""
    _check_range(site)
    nodes = [pad(n, v, 1) for n, v in zip(site.nodes, site.args)]
    count = _range_count(site.nodes, site.args)
    steps = expr("np.minimum(np.arange(np.max({c}, initial=0)), np.maximum({c} - 1, 0)"
                 "[:, None])", c=count)
    if len(nodes) == 1:
        return steps
    if len(nodes) == 2:
        return expr("{a} + {k}", a=nodes[0], k=steps)
    return expr("{a} + {s} * {k}", a=nodes[0], s=nodes[2], k=steps)


def _masked_reduction(site: Site):
    """``np.sum(f(np.arange(n)))``: the reduction over the padded ranges, each example's
    elements only (``where=`` a mask of its length)."""
    name = site.func if isinstance(site.func, str) else getattr(site.func, "__name__", "")
    if name not in MASKABLE or len(site.args) > 1 or set(site.kwargs) - {"dtype"}:
        raise Unsupported(f"`{name}` of `np.arange` with per-example bounds (only sum, prod, "
                          "mean, any and all of it, over every element, can be vectorized: "
                          "its length differs per example)",
                          suggestion="use np.sum/np.prod/np.mean/np.any/np.all of the range")
    mask, seen = None, set()
    for nodes, values in site.parts:
        count = _range_count(nodes, values)
        if render(count) in seen:
            continue          # the same length as another range: the same mask
        seen.add(render(count))
        one = expr("np.arange(np.max({c}, initial=0)) < {c}[:, None]", c=count)
        mask = one if mask is None else expr("{a} & {b}", a=mask, b=one)
    reduced = expr(MASKABLE[name] + "({x}, axis=1, where={m})", x=site.nodes[0], m=mask)
    if site.func is sum and site.args[0].kind in "fc":
        return expr("0 + {r}", r=reduced)
    return reduced


def register(reg: Registry) -> None:
    # the reduction's side of the same rule (one name: one entry in docs/rules.md)
    masked = Rule(
        "array.ragged_range", "arrays",
        "`np.arange` with per-example integer bounds has a different length per example, so "
        "only a reduction of it (`np.sum`, `np.prod`, `np.mean`, `np.any`, `np.all`, "
        "`sum`, or the methods) through lane-by-lane operations is vectorized: every "
        "example's range is padded to the longest (the padding repeats its last element) "
        "and the reduction takes `where=` a mask of each example's length.",
        "s = np.sum(x ** np.arange(n))",
        "s = np.sum(x[:, None] ** np.minimum(np.arange(np.max(n, initial=0)), "
        "np.maximum(n - 1, 0)[:, None]), axis=1, where=np.arange(np.max(n, initial=0)) < "
        "n[:, None])", _masked_reduction, may_warn=True)
    reg.add_call(np.arange, Rule(
        "array.ragged_range", "arrays", masked.explanation, masked.before, masked.after,
        _ragged_range, ragged=True))
    reg.add_operator("subscript", Rule(
        "array.index", "arrays",
        "Indexing a per-example array gets `:` for the batch axis in front (`x[i, 1:3]` -> "
        "`x[:, i, 1:3]`; `...` and `None` work as written); a per-example integer index "
        "gathers one element per example (`x[np.arange(len(x)), k]`), and from a list or "
        "tuple of numbers the same for every example through the array of its items "
        "(`np.asarray(TABLE)[k]`). A per-example boolean mask is rejected: the result would "
        "have a different length per example.",
        "first = x[0]\nlast = x[..., -1]\npick = x[k]\nw = WEIGHTS[k]",
        "first = x[:, 0]\nlast = x[:, ..., -1]\npick = x[np.arange(len(x)), k]\n"
        "w = np.asarray(WEIGHTS)[k]",
        subscript))
    reg.add_attribute("shape", Rule(
        "array.shape", "arrays", "`x.shape` is the per-example shape: `x.shape[1:]`.",
        "n, m = x.shape", "n, m = x.shape[1:]", _shape, infer=unbatched_attr("shape")))
    reg.add_attribute("ndim", Rule(
        "array.ndim", "arrays", "`x.ndim` is the per-example rank: `x.ndim - 1`.",
        "r = x.ndim", "r = x.ndim - 1", lambda s: expr("{x}.ndim - 1", x=s.nodes[0]),
        infer=unbatched_attr("ndim")))
    reg.add_attribute("size", Rule(
        "array.size", "arrays", "`x.size` is the per-example size.",
        "n = x.size", "n = int(np.prod(x.shape[1:]))",
        lambda s: expr("int(np.prod({x}.shape[1:]))", x=s.nodes[0]),
        infer=unbatched_attr("size")))
    reg.add_attribute("dtype", Rule(
        "array.dtype", "arrays", "`x.dtype` is the same for every example.",
        "t = x.dtype", "t = x.dtype", lambda s: s.node, infer=unbatched_attr("dtype")))
    reg.add_attribute("T", Rule(
        "array.T", "arrays", "`x.T` reverses the per-example axes only.",
        "y = m.T", "y = m.transpose(0, 2, 1)", _transposed))
    for name in ("real", "imag"):
        reg.add_attribute(name, Rule(
            f"array.{name}", "arrays", f"`x.{name}` works lane by lane.",
            f"y = z.{name}", f"y = z.{name}", lambda s: s.node))
    reduction = Rule(
        "array.reduction", "arrays",
        "Reductions (`sum`, `mean`, `max`, `any`, `std`...; as functions or methods) reduce the "
        "per-example axes: `axis=k` becomes `axis=k + 1` (negative axes stay), `axis=None` "
        "all per-example axes; `argmax`/`cumsum` without an axis flatten each example first.",
        "s = np.sum(x)\nm = x.mean(axis=0)", "s = np.sum(x, axis=1)\nm = x.mean(axis=1)",
        _reduction, may_warn=True, masked=masked)
    for name in REDUCTIONS + FLATTENING:
        fn = getattr(np, name, None)
        if fn is not None:
            reg.add_call(fn, reduction)
        if hasattr(np.ndarray, name):
            reg.add_method(name, reduction)
    reg.add_call(np.linalg.norm, Rule(
        "linalg.norm", "arrays",
        "`np.linalg.norm(x)` is the norm of each example: `axis=1` for vectors, `axis=(1, 2)` "
        "for matrices.", "r = np.linalg.norm(v)", "r = np.linalg.norm(v, axis=1)", _norm,
        may_warn=True))
    reg.add_call(len, Rule(
        "builtin.len", "builtins", "`len(x)` of a per-example array is `x.shape[1]`.",
        "n = len(v)", "n = v.shape[1]", _len, infer=lambda s: unbatched(
            len(s.args[0].example) if s.args[0].known else None)))
    reg.add_call(sum, Rule(
        "builtin.sum", "builtins", "`sum(v)` over a per-example array is `np.sum(v, axis=1)` "
        "(the summation order may differ in the last bits); for floats `0 + ...`, as Python "
        "starts from the int 0 (`sum([-0.0])` is 0.0).",
        "total = sum(v)", "total = 0 + np.sum(v, axis=1)", _builtin_sum, may_warn=True,
        masked=masked))
    elementwise_method = Rule(
        "array.elementwise_method", "arrays",
        "Elementwise methods (`astype`, `clip`, `round`...) work lane by lane as written; "
        "per-example arguments of lower rank get new axes after the batch axis.",
        "y = v.clip(lo, 1.0)", "y = v.clip(lo[:, None], 1.0)", _elementwise_method)
    for name in ("astype", "clip", "round", "conj", "conjugate", "copy"):
        reg.add_method(name, elementwise_method)
    from .families import elementwise
    elementwise(reg, [np.zeros_like, np.ones_like, np.empty_like, np.full_like, np.copy],
                family="arrays", name="array.like",
                explanation="`np.zeros_like(x)`, `np.full_like`, `np.copy` of a per-example "
                            "array are batched arrays of the same shape: as written.",
                before="z = np.zeros_like(v)", after="z = np.zeros_like(v)")
