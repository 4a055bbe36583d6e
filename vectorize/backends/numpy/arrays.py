"""Per-example arrays: indexing, shape attributes, reductions and shape functions.

The batch axis is axis 0 of every batched value, so a per-example axis ``k >= 0`` is batched
axis ``k + 1``; negative axes count from the end and stay as they are; ``axis=None`` means
every per-example axis. The per-example shape is the array's shape without axis 0.
"""

from __future__ import annotations

import sys

import libcst as cst
import numpy as np

from ...abstract import TupleValue, unbatched
from ...errors import Unsupported
from ...rules.axes import axis_arg as _axis_arg
from ...rules.axes import call_with, flattened, shift_axis, subscript, unbatched_attr
from ...rules.axes import constant as _constant
from ...rules.families import pad, padded_method_call
from ...rules.registry import Registry, Rule, Site
from ...syntax.templates import expr, render

# ------------------------------------------------------------------------------ reductions


def _is_method(site: Site) -> bool:
    return isinstance(site.func, str)


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
    if name == "median" and isinstance(new_axis, tuple) and len(new_axis) > 1:
        gathered = _median_axes_last(site, first, new_axis, rank)
        if gathered is not None:
            return gathered
    return call_with(site, first, repr(new_axis), 1)


def _median_axes_last(site: Site, x, axes: tuple, rank: int):
    """``np.median`` over several axes with those axes moved last and merged into one, the
    sizes spelled out: NumPy's own merge reshapes with ``-1``, which an empty batch (or any
    other empty kept axis) cannot take, where the loop returns an empty result. None where
    NumPy raises anyway (an axis named twice)."""
    dims = rank + 1
    reduced = [a % dims for a in axes]
    if len(set(reduced)) != len(reduced):
        return None
    kept = [i for i in range(dims) if i not in reduced]
    order = kept + sorted(reduced)
    size = (lambda i: "len({x})" if i == 0 else f"{{x}}.shape[{i}]")
    moved = "{x}" if order == list(range(dims)) else \
        "{x}.transpose(" + ", ".join(map(str, order)) + ")"
    merged = expr(moved + ".reshape(" + ", ".join(size(i) for i in kept) + ", "
                  + " * ".join(size(i) for i in sorted(reduced)) + ")", x=x)
    keep = site.kwargs.get("keepdims", (None, None))[1]
    keepdims = keep is not None and bool(_constant(keep, "keepdims"))
    call = call_with(site, merged, "-1", 1)
    if not keepdims:
        return call
    shape = ", ".join("1" if i in reduced else size(i) for i in range(dims))
    return expr("{r}.reshape(" + shape + ")", r=call, x=x)


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
                          suggestion="name the axis or axes", kind="raises")
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


# ------------------------------------------------------------------------------ attributes


def _shape(site: Site):
    return expr("{x}.shape[1:]", x=site.nodes[0])


def _transposed(site: Site):
    rank = site.args[0].rank
    if rank < 2:
        return site.nodes[0]
    order = ", ".join(["0"] + [str(i) for i in range(rank, 0, -1)])
    return expr("{x}.transpose(" + order + ")", x=site.nodes[0])


# ------------------------------------------------------------------------------ builtins


def _elementwise_method(site: Site):
    return padded_method_call(site, site.max_rank)


def _len(site: Site):
    if isinstance(site.args[0], TupleValue):
        return site.node          # a tuple (a pytree) of per-example values: its own length
    return expr("{x}.shape[1]", x=site.nodes[0])


def _array_query(name: str):
    """``np.ndim(x)`` / ``np.shape(x)`` / ``np.size(x)`` of a per-example value: the
    per-example rank (a constant of the specialization), shape (``np.shape(x)[1:]``) and
    size."""
    def rewrite(site: Site):
        value = site.args[0]
        if len(site.nodes) != 1 or site.kwargs or isinstance(value, TupleValue) or \
                not value.known:
            raise Unsupported(f"`np.{name}` of a per-example value with an axis (or of a tuple "
                              "or a value of unknown shape)",
                              suggestion=f"use `np.{name}` of one per-example array")
        if name == "ndim":
            return cst.Integer(str(value.rank))
        if name == "shape":
            return expr("np.shape({x})[1:]", x=site.nodes[0])
        return expr("int(np.prod(np.shape({x})[1:]))", x=site.nodes[0])

    def infer(site: Site):
        if site.args[0].known and not isinstance(site.args[0], TupleValue):
            found = getattr(np, name)(site.args[0].example)
            if name == "shape":     # (a tuple of its items, as a tuple display is tracked)
                return TupleValue(tuple(unbatched(int(d)) for d in found))
            return unbatched(found)
        return unbatched()
    return rewrite, infer


def _method_named(func, name: str) -> bool:
    """Whether ``func`` is an attribute ``<anything>.name`` (libcst.matchers would say the
    same, but importing it costs a cold first call about 200 ms)."""
    return type(func) is cst.Attribute and type(func.attr) is cst.Name \
        and func.attr.value == name


def display_items(node) -> list | None:
    """The items of a list or tuple display of per-example numbers as the analysis stacked
    it (``np.stack(np.broadcast_arrays(a, b, 7.0), axis=1)``, ``np.stack([a, b], axis=1)``),
    or None."""
    while type(node) is cst.Call and _method_named(node.func, "stack") and len(node.args) == 2:
        inner = node.args[0].value
        if type(inner) in (cst.List, cst.Tuple) and all(
                type(e) is cst.Element for e in inner.elements):
            return [e.value for e in inner.elements]
        if type(inner) is cst.Call and _method_named(inner.func, "broadcast_arrays") and all(
                    a.keyword is None and not a.star for a in inner.args):
            return [a.value for a in inner.args]
        return None
    return None


def _python_float_sum(site: Site, items: list) -> cst.BaseExpression:
    """`sum([a, b, 7.0])` of Python numbers (`vectorize`) from Python 3.12 on, which adds
    Python floats with Neumaier's compensation, NumPy scalars left to right:
    `pymath.python_sum`, which replays the loop where the engine cannot tell which it is."""
    if site.args[0].kind == "c" and sys.version_info >= (3, 14):
        raise Unsupported("`sum` of a list of complex numbers on Python 3.14 and later "
                          "(compensated summation of complex numbers is not modelled)",
                          suggestion="add the items with `+`")
    args = [cst.Arg(item) for item in items]
    if len(site.nodes) > 1:
        args.append(cst.Arg(site.nodes[1], keyword=cst.Name("start")))
    return cst.Call(cst.Attribute(cst.Name("pymath"), cst.Name("python_sum")), args)


def _builtin_sum(site: Site):
    if isinstance(site.args[0], TupleValue):
        # a tuple (vmap's *args, a pytree) of per-example values: Python's sum adds them
        # lane by lane, as per example
        return site.node
    x = site.nodes[0]
    items = display_items(x) if (not site.python_semantics or site.args[0].kind in "fc") \
        and site.args[0].rank == 1 and not site.kwargs else None
    if items:
        # `sum([a, b, 7.0])` of NumPy scalars is ((0 + a) + b) + 7.0, each `+` in the
        # operands' own dtypes (uint8 wraps, a float32 stays float32 against 7.0): the
        # same additions lane by lane, not one sum of the items promoted together; of
        # Python floats too, whose sum is left to right where np.sum adds in pairs (ints
        # add exactly in any order: `python_errors.sum_checks` checks their total)
        if site.python_semantics and not site.standalone and sys.version_info >= (3, 12):
            return _python_float_sum(site, items)
        out = site.nodes[1] if len(site.nodes) > 1 else cst.Integer("0")
        for item in items:
            out = expr("{a} + {b}", a=out, b=item)
        return out
    value = site.args[0]
    start = None
    if len(site.nodes) > 1 or "start" in site.kwargs:
        start = site.nodes[1] if len(site.nodes) > 1 else site.kwargs["start"][0]
        start_value = site.args[1] if len(site.args) > 1 else site.kwargs["start"][1]
    if getattr(value, "kind", "?") in "fc":
        # Python's sum of an array iterates its items (NumPy scalars, or rows) and adds them
        # left to right in their own dtype, where np.sum adds in pairs (another result in
        # the last bits): `np.add.accumulate` adds in Python's order, its last column is
        # the sum
        if start is None and site.python_semantics:
            # from the int 0: never -0.0 (sum([-0.0]) is 0.0); an empty row raises
            # IndexError, and `vectorize` replays the loop, which gives Python's int 0
            return expr("0 + np.add.accumulate({x}, axis=1)[:, -1]", x=x)
        # the start (0: Python's int, in the items' dtype as NumPy adds it) inserted before
        # the items: an empty row's sum is the start
        if start is None:
            start = cst.Integer("0")
        elif start_value.batched and not site.python_semantics and value.dtype is not None \
                and start_value.dtype is not None \
                and np.result_type(start_value.dtype, value.dtype) != value.dtype:
            x = expr(f"{{x}}.astype(np.{np.result_type(start_value.dtype, value.dtype)})",
                     x=x)
        return expr("np.add.accumulate(np.insert({x}, 0, {s}, axis=1), axis=1)[:, -1]",
                    x=x, s=start)
    dtype = getattr(value, "dtype", None)
    if dtype is not None and dtype.kind in "iu" and dtype.itemsize < 8:
        # Python adds int8 items in int8 (wrapping, in any order the same): np.sum would
        # add them in int64
        x = expr(f"np.sum({{x}}, axis=1, dtype=np.{dtype.name})", x=x)
    else:
        x = expr("np.sum({x}, axis=1)", x=x)
    if start is not None:
        return expr("{s} + {x}", s=start, x=x)
    return x


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


EXTREMES = {"max": "np.max", "amax": "np.max", "min": "np.min", "amin": "np.min"}


def _masked_reduction(site: Site):
    """``np.sum(f(np.arange(n)))``, ``np.max(v[v > 0])``, ``len(v[mask])``: the reduction
    over the padded ranges or vectors, each example's elements only (``where=`` a mask of
    its length, or the selection's mask)."""
    name = site.func if isinstance(site.func, str) else getattr(site.func, "__name__", "")
    if name not in MASKABLE and name not in EXTREMES and name != "len" or len(
            site.args) > 1 or set(site.kwargs) - {"dtype"}:
        raise Unsupported(f"`{name}` of a value with a different length per example (a "
                          "range with per-example bounds, or a selection by a per-example "
                          "mask): only sum, prod, mean, min, max, any, all and len of it, "
                          "over every element, can be vectorized",
                          suggestion="use np.sum/np.prod/np.mean/np.min/np.max/np.any/np.all "
                                     "or len of it")
    mask, seen = None, set()
    for part in site.parts:
        if part[0] == "mask":
            one = part[1]     # `v[mask]`: the selection's own mask
        else:
            count = _range_count(*part)
            one = expr("np.arange(np.max({c}, initial=0)) < {c}[:, None]", c=count)
        if render(one) in seen:
            continue          # the same length as another range: the same mask
        seen.add(render(one))
        mask = one if mask is None else expr("{a} & {b}", a=mask, b=one)
    if name == "len":
        return expr("np.count_nonzero(np.broadcast_to({m}, np.shape({x})), axis=1)",
                    m=mask, x=site.nodes[0])
    if name in EXTREMES:
        return _masked_extreme(site, EXTREMES[name], mask)
    if site.func is sum and site.args[0].kind in "fc":
        # Python's order, left to right (`_builtin_sum`); adding 0 in place of the
        # elements left out changes no partial sum but -0.0, which the `0 +` makes 0.0
        return expr("0 + np.add.accumulate(np.where({m}, {x}, 0), axis=1)[:, -1]",
                    x=site.nodes[0], m=mask)
    reduced = expr(MASKABLE[name] + "({x}, axis=1, where={m})", x=site.nodes[0], m=mask)
    return reduced


def _slice_selection(site: Site):
    """``v[lo:hi]`` with a per-example bound: ``v`` itself where it is per example, else
    broadcast to the batch (`Backend.slice_mask` makes the mask)."""
    if site.args[0].batched:
        return site.nodes[0]
    if isinstance(site.args[0].example, (list, tuple)):
        return expr("np.broadcast_to(np.asarray({v}), ({n}, len({v})))", v=site.nodes[0],
                    n=site.batch)
    return expr("np.broadcast_to({v}, ({n}, len({v})))", v=site.nodes[0], n=site.batch)


def _masked_extreme(site: Site, function: str, mask) -> cst.BaseExpression:
    """``np.max`` / ``np.min`` of the elements under ``mask``: ``initial=`` the other end of
    the dtype's range, and an example with no element raises NumPy's ``ValueError`` (a
    reduction without identity of an empty array), as its loop does
    (`pymath.nonempty_rows`: on any lane, so `vectorize` replays the loop, which decides;
    `vmap`, which has no replay, is refused)."""
    value = site.args[0]
    kind = getattr(value, "kind", "?")
    if not site.python_semantics or kind not in "iuf":
        raise Unsupported(f"`{function}` of a value with a different length per example "
                          + ("on NumPy scalars (an example with no element raises, and "
                             "`vmap` cannot tell which examples reach it)"
                             if kind in "iuf" else f"of dtype {value.dtype}"),
                          suggestion="use np.where(mask, x, -np.inf).max() with a value "
                                     "for the empty case", kind="raises")
    if kind == "f":
        start = "-np.inf" if function == "np.max" else "np.inf"
    else:
        info = np.iinfo(value.dtype)
        start = str(info.min if function == "np.max" else info.max)
    ufunc = "maximum" if function == "np.max" else "minimum"
    return expr(function + "({x}, axis=1, where=pymath.nonempty_rows({m}, np.shape({x}), "
                           f"\"{ufunc}\"), initial={start})", x=site.nodes[0], m=mask)


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
    for name, before, after in (("ndim", "r = np.ndim(x)", "r = 1"),
                                ("shape", "n, m = np.shape(x)", "n, m = np.shape(x)[1:]"),
                                ("size", "k = np.size(x)",
                                 "k = int(np.prod(np.shape(x)[1:]))")):
        rewrite, infer = _array_query(name)
        reg.add_call(getattr(np, name), Rule(
            f"array.np_{name}", "arrays",
            f"`np.{name}(x)` is the per-example {name}"
            + (" (a constant of the specialization)." if name == "ndim" else "."),
            before, after, rewrite, infer=infer))
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
            len(s.args[0].example) if s.args[0].known else None), masked=masked))
    reg.add_operator("masked_selection", Rule(
        "array.masked_selection", "arrays",
        "`v[mask]` with a per-example boolean mask has a different length per example, so "
        "only a reduction of it is vectorized: `v` itself, reduced with `where=mask`. The "
        "reductions are `np.sum`, `np.prod`, `np.mean`, `np.min`, `np.max`, `np.any`, "
        "`np.all`, `sum`, `len` and the methods, through lane-by-lane operations and names "
        "assigned once (the mask of the vector's shape). `min`/`max` "
        "start from the other end of the dtype's range, and an example with nothing "
        "selected raises NumPy's `ValueError` as its loop does (`vectorize` only).",
        "pos = v[v > 0]\ns = np.sum(pos)\nk = len(pos)\nhi = pos.max()",
        "pos = v\ns = np.sum(pos, axis=1, where=v > 0)\n"
        "k = np.count_nonzero(np.broadcast_to(v > 0, np.shape(pos)), axis=1)\n"
        "hi = np.max(pos, axis=1, where=pymath.nonempty_rows(v > 0, np.shape(pos), "
        "\"maximum\"), initial=-np.inf)",
        lambda site: site.nodes[0]))
    reg.add_operator("slice_selection", Rule(
        "array.slice_selection", "arrays",
        "`v[lo:hi]` of a vector with a per-example integer bound has a different length per "
        "example, so only a reduction of it is vectorized, as of a selection by a mask: the "
        "vector (broadcast where it is the same for every example), reduced under the mask of "
        "the positions the slice keeps (negative bounds count from the end, as in Python).",
        "s = v[:k].sum()",
        "s = v.sum(axis=1, where=(np.arange(v.shape[-1]) < np.where(k < 0, k + "
        "v.shape[-1], k)[:, None]))",
        _slice_selection))
    reg.add_call(sum, Rule(
        "builtin.sum", "builtins", "`sum(v)` over a per-example array of floats adds its "
        "items left to right, as Python does (`np.sum` adds in pairs: other last bits): the "
        "last column of `np.add.accumulate`, from the int 0 (`sum([-0.0])` is 0.0; `vmap`: "
        "0 inserted before the items, or the `start`). Integers (exact in any order) are "
        "`np.sum(v, axis=1)`, in the items' dtype.",
        "total = sum(v)", "total = 0 + np.add.accumulate(v, axis=1)[:, -1]", _builtin_sum,
        may_warn=True,
        masked=masked))
    elementwise_method = Rule(
        "array.elementwise_method", "arrays",
        "Elementwise methods (`astype`, `clip`, `round`...) work lane by lane as written; "
        "per-example arguments of lower rank get new axes after the batch axis.",
        "y = v.clip(lo, 1.0)", "y = v.clip(lo[:, None], 1.0)", _elementwise_method)
    for name in ("astype", "clip", "round", "conj", "conjugate", "copy"):
        reg.add_method(name, elementwise_method)
    from ...rules.families import elementwise
    elementwise(reg, [np.zeros_like, np.ones_like, np.empty_like, np.full_like, np.copy],
                family="arrays", name="array.like",
                explanation="`np.zeros_like(x)`, `np.full_like`, `np.copy` of a per-example "
                            "array are batched arrays of the same shape: as written.",
                before="z = np.zeros_like(v)", after="z = np.zeros_like(v)")
