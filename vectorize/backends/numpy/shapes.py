"""Reshaping and assembling per-example arrays: the batch axis stays first.

``reshape`` gets the batch length in front, axis arguments of ``transpose``/``swapaxes``/
``moveaxis``/``expand_dims``/``squeeze``/``stack``/``concatenate`` are shifted past the batch
axis, and ``np.array([a, b, c])`` of per-example values stacks them after it. Unbatched pieces
mixed with batched ones are broadcast to the batch (``np.broadcast_arrays``), never the other
way round.
"""

from __future__ import annotations

import libcst as cst
import numpy as np

from ...abstract import UNKNOWN, TupleValue, Value, batched_like
from ...errors import Unsupported
from ...rules.axes import argument as _arg
from ...rules.axes import constant as _const
from ...rules.axes import flattened, reshaped, shift_axis
from ...rules.axes import positive as _positive
from ...rules.axes import stacked_display as _stacked_display
from ...rules.families import pad, with_batch
from ...rules.registry import Registry, Rule, Site, evaluate, infer_by_calling
from ...syntax.templates import call, expr, parse_expr


def _flatten(site: Site):
    flat = flattened(site.nodes[0], site.args[0].rank)
    if site.args[0].rank <= 1 and site.func == "flatten":
        return expr("{x}.copy()", x=flat)      # flatten always copies
    return flat


def _transpose(site: Site):
    x, rank = site.nodes[0], site.args[0].rank
    _, axes_value = _arg(site, 1, "axes")
    if isinstance(site.func, str) and len(site.args) > 2:     # x.transpose(1, 0)
        axes = [_const(v, "transpose axes") for v in site.args[1:]]
    else:
        axes = _const(axes_value, "transpose axes")
    if axes is None:
        axes = list(range(rank - 1, -1, -1))
    order = ", ".join(["0"] + [str(_positive(a, rank) + 1) for a in axes])
    return expr("{x}.transpose(" + order + ")", x=x)


def _swapaxes(site: Site):
    x, rank = site.nodes[0], site.args[0].rank
    a = _positive(_const(site.args[1], "the axis"), rank) + 1
    b = _positive(_const(site.args[2], "the axis"), rank) + 1
    return expr(f"np.swapaxes({{x}}, {a}, {b})", x=x)


def _moveaxis(site: Site):
    x, rank = site.nodes[0], site.args[0].rank
    source = _const(site.args[1], "the source axis")
    dest = _const(site.args[2], "the destination axis")

    def shift(a):
        if isinstance(a, (list, tuple)):
            return tuple(_positive(v, rank) + 1 for v in a)
        return _positive(a, rank) + 1
    return expr(f"np.moveaxis({{x}}, {shift(source)!r}, {shift(dest)!r})", x=x)


def _expand_dims(site: Site):
    x = site.nodes[0]
    node, value = _arg(site, 1, "axis")
    axis = _const(value, "the axis")
    # (the axis counts in the result, one axis longer per new one)
    rank = site.args[0].rank + (len(axis) if isinstance(axis, tuple) else 1)
    return expr(f"np.expand_dims({{x}}, {shift_axis(axis, rank)!r})", x=x)


def _squeeze(site: Site):
    x = site.nodes[0]
    node, value = _arg(site, 1, "axis")
    axis = _const(value, "the axis") if value is not None else None
    if axis is None and site.args[0].rank == 0:
        return x        # (a number per example: nothing to squeeze)
    if axis is None:
        raise Unsupported("squeeze() without an axis depends on the sizes of each example",
                          suggestion="name the axis: squeeze(axis=0)")
    return expr(f"np.squeeze({{x}}, axis={shift_axis(axis, site.args[0].rank)!r})", x=x)


def _broadcast_arrays(site: Site):
    if site.kwargs or any(isinstance(v, TupleValue) or v.rank != 0 for v in site.args):
        raise Unsupported("np.broadcast_arrays of per-example arrays (only numbers per "
                          "example: their shapes would meet the batch axis)",
                          suggestion="broadcast each example's arrays with np.broadcast_to")
    return call("np.broadcast_arrays", *site.nodes)


def _broadcast_infer(site: Site):
    out = evaluate(np.broadcast_arrays, *[a.example for a in site.args])
    if out is UNKNOWN:
        return Value(True, UNKNOWN)
    return TupleValue(tuple(batched_like(item) for item in out))


def _pieces(site: Site):
    """The per-example pieces of a list/tuple display argument, batched ones first-class."""
    node, value = site.nodes[0], site.args[0]
    if isinstance(value, TupleValue) and value.keys is None and not isinstance(
            node, (cst.List, cst.Tuple)) and not any(isinstance(v, TupleValue)
                                                     for v in value.items):
        # a tuple or list held by a name (vmap's *args, a pytree argument): its items
        return [expr(f"{{t}}[{i}]", t=node) for i in range(len(value.items))], \
            list(value.items)
    if not isinstance(value, TupleValue) or not isinstance(node, (cst.List, cst.Tuple)):
        raise Unsupported("stacking needs the pieces written out as a list or tuple",
                          suggestion="write np.stack([a, b, c])")
    return [e.value for e in node.elements], list(value.items)


def _joined(nodes, values, rank_needed: bool):
    """``[a, b]`` when every piece is batched, else ``np.broadcast_arrays(a, b)``."""
    listing = cst.List([cst.Element(n) for n in nodes])
    if all(v.batched for v in values):
        return listing
    if len({v.rank for v in values}) != 1 and rank_needed:
        raise Unsupported("stacking pieces of different shapes")
    return call("np.broadcast_arrays", *nodes)


def _stack(site: Site):
    nodes, values = _pieces(site)
    _, axis_value = _arg(site, 1, "axis")
    axis = _const(axis_value, "the axis") if axis_value is not None else 0
    new_axis = axis + 1 if axis >= 0 else axis
    return expr(f"np.stack({{xs}}, axis={new_axis})", xs=_joined(nodes, values, True))


def _array(site: Site):
    if not isinstance(site.args[0], TupleValue) and not isinstance(site.nodes[0], (
            cst.List, cst.Tuple)):
        # `np.array(v)` of one per-example array (or number): per example a copy of it, on
        # the batch a copy of the batch (`np.asarray(v)`: `v` itself, on both); `dtype=`
        # converts each element as it converts the batch's
        if len(site.args) > 1 or set(site.kwargs) - {"dtype", "copy", "ndmin"} or not \
                _copies(site.kwargs.get("copy")):
            raise Unsupported("np.array of a per-example array with options other than "
                              "dtype, copy=True and ndmin", suggestion="copy it with .copy() "
                              "or .astype(...)")
        return _with_ndmin(site)
    if site.kwargs or len(site.args) > 1:
        raise Unsupported("np.array of per-example values with a dtype or other options",
                          suggestion="convert with .astype(...) afterwards")
    nodes, values = _pieces(site)
    if any(isinstance(v, TupleValue) for v in values):
        raise Unsupported("nested lists of per-example values",
                          suggestion="build rows with np.stack")
    return expr("np.stack({xs}, axis=1)", xs=_joined(nodes, values, True))


def _copies(copy) -> bool:
    """Whether ``np.array``'s ``copy=`` option (node, value; None: not given) copies as the
    batch's copies: ``copy=True`` or ``None`` (``copy=False`` raises on a per-example Python
    number, which it would not on the batch)."""
    if copy is None:
        return True
    value = copy[1]
    return getattr(value, "exact", False) and value.example in (True, None)


def _with_ndmin(site: Site):
    """``np.array(v, ndmin=k)`` of a per-example array of rank r < k: per example the
    array with k - r axes of length 1 in front, on the batch those axes right after the
    batch axis (``np.array(v)[:, None]``)."""
    ndmin = site.kwargs.get("ndmin")
    if ndmin is None:
        return site.node
    node, value = ndmin
    if not (getattr(value, "exact", False) and isinstance(value.example, int)):
        raise Unsupported("np.array with an ndmin that is not a constant integer",
                          suggestion="write ndmin as a number")
    missing = value.example - site.args[0].rank
    args = [a for a in site.node.args if getattr(a.keyword, "value", None) != "ndmin"]
    args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    call = site.node.with_changes(args=args)
    if missing <= 0:
        return call
    return expr("{a}[:, " + ", ".join(["None"] * missing) + "]", a=call)


def _full(site: Site):
    """``np.full(shape, x)`` with a per-example fill value and a shape the same for every
    example: the batch length in front of the shape, the fill value given the axes it
    broadcasts over (``x[:, None]``)."""
    shape_node, shape = _arg(site, 0, "shape")
    fill_node, fill = _arg(site, 1, "fill_value")
    if shape.batched:
        raise Unsupported("np.full with a per-example shape (a different size per example)",
                          suggestion="use a shape the same for every example")
    rank = len(shape.example) if isinstance(shape.example, (tuple, list)) else 1
    new_shape = with_batch(shape_node, shape, expr("len({f})", f=fill_node), site.spelled)
    args = []
    for position, arg in enumerate(site.node.args):
        if arg.keyword is None and position == 0 or getattr(arg.keyword, "value", "") == \
                "shape":
            arg = arg.with_changes(value=new_shape)
        elif arg.keyword is None and position == 1 or getattr(arg.keyword, "value", "") == \
                "fill_value":
            arg = arg.with_changes(value=pad(fill_node, fill, rank))
        args.append(arg)
    return site.node.with_changes(args=args)


def _concatenate(site: Site):
    nodes, values = _pieces(site)
    _, axis_value = _arg(site, 1, "axis")
    axis = _const(axis_value, "the axis") if axis_value is not None else 0
    if axis is None:
        raise Unsupported("concatenate with axis=None flattens each example",
                          suggestion="ravel the pieces first")
    ref = next(n for n, v in zip(nodes, values) if v.batched)
    pieces = [n if v.batched else expr("np.broadcast_to({u}, (len({r}),) + np.shape({u}))",
                                       u=n, r=ref)
              for n, v in zip(nodes, values)]
    listing = cst.List([cst.Element(p) for p in pieces])
    new_axis = axis + 1 if axis >= 0 else axis
    return expr(f"np.concatenate({{xs}}, axis={new_axis})", xs=listing)


def _hstack(site: Site):
    """Per example, ``hstack`` joins vectors end to end and matrices side by side."""
    _, values = _pieces(site)
    rank = max(v.rank for v in values)
    return _joined_along(site, 0 if rank <= 1 else 1)


def _vstack(site: Site):
    """Per example, ``vstack`` stacks vectors as rows and joins matrices top to bottom."""
    nodes, values = _pieces(site)
    rank = max(v.rank for v in values)
    if rank <= 1:
        return expr("np.stack({xs}, axis=1)", xs=_joined(nodes, values, True))
    return _joined_along(site, 0)


def _joined_along(site: Site, axis: int):
    nodes, values = _pieces(site)
    ref = next(n for n, v in zip(nodes, values) if v.batched)
    pieces = [n if v.batched else expr("np.broadcast_to({u}, (len({r}),) + np.shape({u}))",
                                       u=n, r=ref)
              for n, v in zip(nodes, values)]
    listing = cst.List([cst.Element(p) for p in pieces])
    return expr(f"np.concatenate({{xs}}, axis={axis + 1})", xs=listing)


def _per_axis_pairs(value, rank: int, what: str):
    """A constant per-axis argument of ``np.pad`` (an int, a pair, or a pair per axis) as
    one pair per per-example axis."""
    example = _const(value, what)
    try:
        pairs = np.broadcast_to(np.asarray(example), (rank, 2))
    except ValueError:
        raise Unsupported(f"{what} {example!r} does not fit a per-example value of rank "
                          f"{rank} (NumPy raises per example)", kind="raises") from None
    return [tuple(p.item() for p in pair) for pair in pairs]


def _pad(site: Site):
    x_value = site.args[0]
    rank = x_value.rank
    if not x_value.batched:
        raise Unsupported("`np.pad` of an array the same for every example with per-example "
                          "arguments", suggestion="pad widths and values must be constants")
    call = site.node
    args = []
    position = 0
    for arg in call.args:
        if arg.star:
            raise Unsupported("`*`/`**` arguments of np.pad")
        if arg.keyword is None:
            name = ("array", "pad_width", "mode")[min(position, 2)]
            node, value = site.nodes[position], site.args[position]
            position += 1
        else:
            name = arg.keyword.value
            node, value = site.kwargs[name]
        if name == "array":
            new = node
        elif name == "mode":
            if not isinstance(_const(value, "the mode"), str):
                raise Unsupported("`np.pad` with a function as its mode",
                                  suggestion="use one of NumPy's named modes")
            new = node
        elif name == "reflect_type":
            _const(value, "reflect_type")
            new = node
        elif name in ("pad_width", "stat_length") or value.batched or isinstance(
                value, TupleValue) or value.rank > 0:
            # one pair per axis, the batch axis first: never padded (stat_length there
            # is never used, as nothing is padded)
            pairs = [(0, 0) if name != "stat_length" else (1, 1)]
            pairs += _per_axis_pairs(value, rank, name)
            new = parse_expr(repr(tuple(pairs)))
        else:
            new = node            # a constant (constant_values=0.0) holds for every axis
        args.append(arg.with_changes(value=new))
    return call.with_changes(args=args)


def register(reg: Registry) -> None:
    def rule(name, explanation, before, after, rewrite, fn=None, takes_pieces=False):
        return Rule(name, "shapes", explanation, before, after, rewrite,
                    infer=infer_by_calling(fn) if fn is not None else None,
                    takes_pieces=takes_pieces)

    reg.add_call(np.pad, rule(
        "shape.pad", "`np.pad(x, widths, mode)` pads each example's axes (the widths "
        "normalised to one pair per axis, `(0, 0)` for the batch axis); every mode NumPy "
        "names works, with constant widths and values.",
        "p = np.pad(v, (1, 2), mode=\"edge\")", "p = np.pad(v, ((0, 0), (1, 2)), mode=\"edge\")",
        _pad, np.pad))
    reg.add_operator("stacked_display", rule(
        "shape.list_operand", "A list or tuple of per-example values passed where an array is "
        "expected (`np.mean([a, b, c])`, `sum([a, b])`, `np.dot([x, y], w)`, a name bound to "
        "such a list) is per example the array `np.asarray([a, b, c])`: the pieces are "
        "stacked after the batch axis (those the same for every example broadcast), and the "
        "function sees the per-example view.",
        "m = np.mean([a, b, 1.0])\ns = sum([a, b])",
        "m = np.mean(np.stack(np.broadcast_arrays(a, b, 1.0), axis=1), axis=1)\n"
        "s = 0 + np.sum(np.stack([a, b], axis=1), axis=1)", _stacked_display))

    reshape = rule("shape.reshape", "`reshape` keeps the batch length in front.",
                   "m = v.reshape(3, 4)", "m = v.reshape(len(v), 3, 4)", reshaped, np.reshape)
    reg.add_call(np.reshape, reshape)
    reg.add_method("reshape", rule("shape.reshape_method", reshape.explanation, reshape.before,
                                   reshape.after, reshaped))
    flatten = rule("shape.flatten", "`ravel`/`flatten` flatten each example.",
                   "f = m.ravel()", "f = m.reshape(len(m), -1)", _flatten, np.ravel)
    reg.add_call(np.ravel, flatten)
    for name in ("ravel", "flatten"):
        reg.add_method(name, rule("shape.flatten_method", flatten.explanation, flatten.before,
                                  flatten.after, _flatten))
    transpose = rule("shape.transpose", "`transpose` permutes the per-example axes only.",
                     "t = np.transpose(m)", "t = m.transpose(0, 2, 1)", _transpose,
                     np.transpose)
    reg.add_call(np.transpose, transpose)
    reg.add_method("transpose", rule("shape.transpose_method", transpose.explanation,
                                     "t = m.transpose()", transpose.after, _transpose))
    swap = rule("shape.swapaxes", "`swapaxes` of per-example axes (shifted past the batch).",
                "t = np.swapaxes(m, 0, 1)", "t = np.swapaxes(m, 1, 2)", _swapaxes,
                np.swapaxes)
    reg.add_call(np.swapaxes, swap)
    reg.add_method("swapaxes", rule("shape.swapaxes_method", swap.explanation,
                                    "t = m.swapaxes(0, 1)", swap.after, _swapaxes))
    reg.add_call(np.moveaxis, rule("shape.moveaxis", "`moveaxis` of per-example axes.",
                                   "t = np.moveaxis(m, 0, -1)", "t = np.moveaxis(m, 1, 2)",
                                   _moveaxis, np.moveaxis))
    reg.add_call(np.expand_dims, rule("shape.expand_dims", "`expand_dims` after the batch axis.",
                                      "c = np.expand_dims(v, 0)", "c = np.expand_dims(v, 1)",
                                      _expand_dims, np.expand_dims))
    squeeze = rule("shape.squeeze", "`squeeze(axis=k)` of a per-example axis (an axis is "
                   "required: without it the result would depend on each example's sizes).",
                   "v = np.squeeze(c, axis=0)", "v = np.squeeze(c, axis=1)", _squeeze,
                   np.squeeze)
    reg.add_call(np.squeeze, squeeze)
    reg.add_method("squeeze", rule("shape.squeeze_method", squeeze.explanation,
                                   "v = c.squeeze(axis=0)", squeeze.after, _squeeze))
    reg.add_call(np.broadcast_arrays, Rule(
        "shape.broadcast_arrays", "shapes", "`np.broadcast_arrays(a, b)` of numbers per "
        "example (0-d arrays, each example's) is the batch's broadcast: every one the "
        "batch's length.", "a, b = np.broadcast_arrays(x, 1.0)",
        "a, b = np.broadcast_arrays(x, 1.0)", _broadcast_arrays, infer=_broadcast_infer))
    reg.add_call(np.stack, rule("shape.stack", "`np.stack(pieces, axis=k)` stacks each "
                                "example's pieces at axis k + 1; unbatched pieces are "
                                "broadcast to the batch.",
                                "p = np.stack([x, y])", "p = np.stack([x, y], axis=1)", _stack,
                                np.stack, takes_pieces=True))
    array = rule("shape.array", "`np.array([a, b, c])` of per-example values is "
                 "`np.stack(..., axis=1)`; `np.array(v)` of one per-example array is a "
                 "copy of the batch, as it is of each example.", "p = np.array([x, y, 1.0])",
                 "p = np.stack(np.broadcast_arrays(x, y, 1.0), axis=1)", _array, np.array,
                 takes_pieces=True)
    reg.add_call(np.array, array)
    reg.add_call(np.full, rule("shape.full", "`np.full(shape, x)` with a per-example `x` (the "
                               "shape the same for every example): the batch length in front "
                               "of the shape, `x` broadcast over the example's axes.",
                               "r = np.full(3, x)", "r = np.full((len(x), 3), x[:, None])",
                               _full, np.full))
    reg.add_call(np.asarray, array)
    reg.add_call(np.asanyarray, array)     # (a subclass is no per-example value: as asarray)
    reg.add_call(np.hstack, rule("shape.hstack", "`np.hstack` of per-example pieces: vectors "
                                 "end to end, matrices side by side (after the batch axis).",
                                 "z = np.hstack([x, y])", "z = np.concatenate([x, y], axis=1)",
                                 _hstack, np.hstack, takes_pieces=True))
    reg.add_call(np.vstack, rule("shape.vstack", "`np.vstack` of per-example pieces: vectors "
                                 "become rows, matrices are joined top to bottom.",
                                 "m = np.vstack([x, y])", "m = np.stack([x, y], axis=1)",
                                 _vstack, np.vstack, takes_pieces=True))
    reg.add_call(np.concatenate, rule("shape.concatenate", "`np.concatenate(pieces, axis=k)`"
                                      " joins each example's pieces at axis k + 1.",
                                      "z = np.concatenate([x, w])",
                                      "z = np.concatenate([x, np.broadcast_to(w, (len(x),) + "
                                      "np.shape(w))], axis=1)", _concatenate, np.concatenate,
                                      takes_pieces=True))
