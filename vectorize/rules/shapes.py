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

from ..abstract import TupleValue, batched_like
from ..errors import Unsupported
from ..syntax.templates import call, expr, render
from .arrays import flattened, shift_axis
from .registry import Registry, Rule, Site, evaluate


def _const(value, what):
    if value is None:
        return None
    if value.batched or not value.exact:
        raise Unsupported(f"{what} must be a constant written in the function (a literal or "
                          "a module-level name)",
                          suggestion="write the value in the code; an argument's value is "
                                     "not known when the code is generated")
    return value.example


def _positive(axis: int, rank: int) -> int:
    return axis + rank if axis < 0 else axis


def _arg(site: Site, position: int, name: str):
    """(node, value) of an argument given by position (counting the array as 0) or name."""
    if name in site.kwargs:
        return site.kwargs[name]
    if len(site.args) > position:
        return site.nodes[position], site.args[position]
    return None, None


def reshaped(site: Site):
    x = site.nodes[0]
    if isinstance(site.func, str):          # x.reshape(a, b) / x.reshape((a, b))
        shape_nodes, shape_values = site.nodes[1:], site.args[1:]
    else:                                   # np.reshape(x, shape)
        node, value = _arg(site, 1, "newshape" if "newshape" in site.kwargs else "shape")
        shape_nodes, shape_values = [node], [value]
    if any(v is None or v.batched for v in shape_values):
        raise Unsupported("a reshape whose shape differs per example")
    if len(shape_nodes) == 1 and isinstance(shape_values[0].example, tuple):
        node = shape_nodes[0]
        if isinstance(node, cst.Tuple):
            dims = [render(e.value) for e in node.elements]
        else:
            return expr("{x}.reshape((len({x}),) + tuple({s}))", x=x, s=node)
    else:
        dims = [render(n) for n in shape_nodes]
    if dims == ["-1"]:
        return flattened(x, site.args[0].rank)
    return expr("{x}.reshape(len({x}), " + ", ".join(dims) + ")", x=x)


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
    return expr(f"np.expand_dims({{x}}, {shift_axis(_const(value, 'the axis'), 0)!r})", x=x)


def _squeeze(site: Site):
    x = site.nodes[0]
    node, value = _arg(site, 1, "axis")
    axis = _const(value, "the axis") if value is not None else None
    if axis is None:
        raise Unsupported("squeeze() without an axis depends on the sizes of each example",
                          suggestion="name the axis: squeeze(axis=0)")
    return expr(f"np.squeeze({{x}}, axis={shift_axis(axis, site.args[0].rank)!r})", x=x)


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
    if site.kwargs or len(site.args) > 1:
        raise Unsupported("np.array of per-example values with a dtype or other options",
                          suggestion="convert with .astype(...) afterwards")
    nodes, values = _pieces(site)
    if any(isinstance(v, TupleValue) for v in values):
        raise Unsupported("nested lists of per-example values",
                          suggestion="build rows with np.stack")
    return expr("np.stack({xs}, axis=1)", xs=_joined(nodes, values, True))


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


def _infer(fn):
    def infer(site: Site):
        args = [a.example for a in site.args]
        out = evaluate(fn, *args, **{k: v.example for k, (_, v) in site.kwargs.items()})
        return batched_like(out)
    return infer


def register(reg: Registry) -> None:
    def rule(name, explanation, before, after, rewrite, fn=None):
        return Rule(name, "shapes", explanation, before, after, rewrite,
                    infer=_infer(fn) if fn is not None else None)

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
    reg.add_call(np.stack, rule("shape.stack", "`np.stack(pieces, axis=k)` stacks each "
                                "example's pieces at axis k + 1; unbatched pieces are "
                                "broadcast to the batch.",
                                "p = np.stack([x, y])", "p = np.stack([x, y], axis=1)", _stack,
                                np.stack))
    array = rule("shape.array", "`np.array([a, b, c])` of per-example values is "
                 "`np.stack(..., axis=1)`.", "p = np.array([x, y, 1.0])",
                 "p = np.stack(np.broadcast_arrays(x, y, 1.0), axis=1)", _array, np.array)
    reg.add_call(np.array, array)
    reg.add_call(np.asarray, array)
    reg.add_call(np.hstack, rule("shape.hstack", "`np.hstack` of per-example pieces: vectors "
                                 "end to end, matrices side by side (after the batch axis).",
                                 "z = np.hstack([x, y])", "z = np.concatenate([x, y], axis=1)",
                                 _hstack, np.hstack))
    reg.add_call(np.vstack, rule("shape.vstack", "`np.vstack` of per-example pieces: vectors "
                                 "become rows, matrices are joined top to bottom.",
                                 "m = np.vstack([x, y])", "m = np.stack([x, y], axis=1)",
                                 _vstack, np.vstack))
    reg.add_call(np.concatenate, rule("shape.concatenate", "`np.concatenate(pieces, axis=k)`"
                                      " joins each example's pieces at axis k + 1.",
                                      "z = np.concatenate([x, w])",
                                      "z = np.concatenate([x, np.broadcast_to(w, (len(x),) + "
                                      "np.shape(w))], axis=1)", _concatenate, np.concatenate))
