"""The per-example view of a batched array, for every backend: axes, indexing, reshapes.

The batch axis is axis 0 of every batched value, so a per-example axis ``k >= 0`` is batched
axis ``k + 1``; negative axes count from the end and stay as they are; ``axis=None`` means
every per-example axis. The per-example shape is the array's shape without axis 0.

What is here writes no namespace (methods every array type has, or `Backend` primitives
through ``site.spelled``): the backends' tables (`vectorize.backends.<name>`) register these
rules and build theirs on these helpers.
"""

from __future__ import annotations

import libcst as cst
import numpy as np

from ..abstract import unbatched
from ..errors import Unsupported
from ..syntax.templates import expr, parse_expr, render
from .families import pad
from .registry import Site

# ------------------------------------------------------------------------------ axes


def shift_axis(axis, rank: int):
    """A per-example axis argument as an axis of the batched array."""
    if axis is None:
        return tuple(range(1, rank + 1)) if rank != 1 else 1
    if isinstance(axis, tuple):
        return tuple(shift_axis(a, rank) for a in axis)
    if isinstance(axis, (int, np.integer)):
        if not -rank <= axis < rank:
            # (a negative one would name the batch axis; NumPy raises AxisError per example,
            # but for the reductions that take axis 0 or -1 of a 0-d value as a no-op)
            raise Unsupported(f"axis {axis} is out of bounds for a per-example value of "
                              f"rank {rank}",
                              suggestion="name an axis each example has" if rank else
                              "a per-example scalar has no axis: leave the call out")
        return int(axis) + 1 if axis >= 0 else int(axis)
    raise Unsupported(f"axis {axis!r} is not a constant integer or tuple")


def axis_arg(site: Site, position: int):
    """(node, example, present) of the ``axis`` argument (keyword or positional)."""
    if "axis" in site.kwargs:
        node, value = site.kwargs["axis"]
        return node, value, True
    if len(site.args) > position:
        return site.nodes[position], site.args[position], True
    return None, None, False


def constant(value, what: str):
    if value is None:
        return None
    if value.batched or not value.exact:
        raise Unsupported(f"{what} must be a constant written in the function (a literal or "
                          "a module-level name)",
                          suggestion="write the value in the code; an argument's value is "
                                     "not known when the code is generated")
    return value.example


def positive(axis: int, rank: int) -> int:
    """A per-example axis counted from 0 (refused where the examples do not have it)."""
    if not -rank <= axis < rank:
        raise Unsupported(f"axis {axis} is out of bounds for a per-example value of rank "
                          f"{rank}", suggestion="name an axis each example has")
    return axis + rank if axis < 0 else axis


def argument(site: Site, position: int, name: str):
    """(node, value) of an argument given by position (counting the array as 0) or name."""
    if name in site.kwargs:
        return site.kwargs[name]
    if len(site.args) > position:
        return site.nodes[position], site.args[position]
    return None, None


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


# ------------------------------------------------------------------------------ indexing


def _with_leading_index(node: cst.Subscript, lead: cst.BaseSlice) -> cst.Subscript:
    """``x[a, b]`` -> ``x[lead, a, b]``."""
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    elements = [e.with_changes(comma=cst.MaybeSentinel.DEFAULT) if i == len(node.slice) - 1
                else e for i, e in enumerate(node.slice)]
    return node.with_changes(slice=[cst.SubscriptElement(slice=lead, comma=comma)] + elements)


def _checked(site: Site, node: cst.Subscript, parts: list, base_value) -> cst.Subscript:
    """Each per-example integer index of ``node`` as the backend checks it against the size
    of its axis (`Backend.checked_index`: JAX clamps where NumPy raises IndexError)."""
    shape = np.shape(base_value.example) if isinstance(
        base_value.example, (np.ndarray, np.generic, list, tuple)) else None
    if shape is None or len(parts) != len(node.slice) or any(
            p is not None and not p.batched and p.exact and (
                p.example is None or p.example is Ellipsis) for p in parts):
        return node
    # the size read from the array (a specialization is made for the arguments' dtypes and
    # ranks, not their shapes: a size the example had would be baked into the code a call
    # of another shape runs), counted from the end past the batch axes; a base that is not
    # a name is written again there (the backends that check, JAX, trace pure code)
    base = node.value
    array = base_value.batched or isinstance(base_value.example, np.ndarray)
    elements = []
    for axis, (element, part) in enumerate(zip(node.slice, parts)):
        if part is not None and part.batched and part.kind in "iu" and axis < len(shape) \
                and isinstance(element.slice, cst.Index):
            size = f"{{b}}.shape[{axis - len(shape)}]" if array else int(shape[axis])
            text = site.spelled.checked_index("{k}", size)
            if text != "{k}":
                element = element.with_changes(slice=element.slice.with_changes(
                    value=expr(text, k=element.slice.value, b=base)))
        elements.append(element)
    return node.with_changes(slice=elements)


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
    if batched_index:
        node = _checked(site, node, parts, base_value)
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
            if not site.spelled.string_arrays and any(
                    type(v) is str for v in base_value.example.values()):
                raise Unsupported("a table of strings indexed per example (a dict of "
                                  "strings looked up by a per-example key)",
                                  suggestion="look up a number per example and map it to "
                                             "its string outside the batched function")
            return expr(site.spelled.lookup("{t}", "{k}"), t=site.nodes[0],
                        k=node.slice[0].slice.value)
        strings = isinstance(base_value.example, str) or isinstance(
            base_value.example, (list, tuple)) and base_value.example and all(
                type(v) is str for v in base_value.example)
        if strings and not site.spelled.string_arrays:
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
    if base_value.batched and all(p is None or (p.rank == 0 and p.kind in "iu")
                                  for p in parts):
        # `m[k, 1:3]` with a per-example integer `k` (and other integers, slices): per example
        # the slices' axes; on the batch `m[np.arange(len(m)), k, 1:3]`, whose integer
        # indices select one row per lane, the slices' axes following it
        lanes = expr(site.spelled.lanes_index("{x}"), x=site.nodes[0])
        return _with_leading_index(node, cst.Index(lanes))
    first_slice = next(i for i, p in enumerate(parts) if p is None)
    if not base_value.batched and isinstance(base_value.example, np.ndarray) and all(
            p is not None and p.rank == 0 and p.kind in "iu" for p in parts[:first_slice]) \
            and all(p is None for p in parts[first_slice:]):
        # `w[k, 1:]` of an array the same for every example: NumPy's own indexing puts the
        # lanes of `k` first, the slices' axes after them
        return node
    at = [i for i, p in enumerate(parts) if p is not None]
    if not base_value.batched and isinstance(base_value.example, np.ndarray) and \
            len(at) == 1 and parts[at[0]].batched and parts[at[0]].kind in "iu":
        # `w[:, k]` of an array the same for every example, `k` the one per-example index
        # (of any rank) after slices: NumPy's indexing puts the axes of `k` (the batch axis
        # first) where `k` is, moved to the front
        return expr(f"{site.spelled.alias}.moveaxis({{x}}, {at[0]}, 0)", x=node)
    raise Unsupported("mixing slices with per-example index arrays is not supported yet",
                      suggestion="index with integers only, one axis at a time")


# ------------------------------------------------------------------------------ attributes


def unbatched_attr(name):
    def infer(site: Site):
        ex = site.args[0].example
        if site.args[0].known:
            return unbatched(getattr(np.asarray(ex), name))
        return unbatched()
    return infer


# ------------------------------------------------------------------------------ shapes


def reshaped(site: Site):
    x = site.nodes[0]
    if isinstance(site.func, str):          # x.reshape(a, b) / x.reshape((a, b))
        shape_nodes, shape_values = site.nodes[1:], site.args[1:]
    else:                                   # np.reshape(x, shape)
        node, value = argument(site, 1, "newshape" if "newshape" in site.kwargs else "shape")
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
    rank = site.args[0].rank
    if dims == ["-1"]:
        return flattened(x, rank)
    dims = _inferred_dim(dims, shape_values, rank)
    return expr("{x}.reshape(len({x}), " + ", ".join(dims) + ")", x=x)


def _inferred_dim(dims: list, shape_values: list, rank: int) -> list:
    """The ``-1`` of a per-example shape spelled out as the example's size over the other
    sizes (constants), so that an empty batch works too (``len(x), 2, -1`` is ambiguous there
    where each example's ``2, -1`` is not). Kept as written where a size is not a known
    positive constant (NumPy raises per example for a 0 next to a -1)."""
    if "-1" not in dims or rank == 0:
        return dims
    sizes = shape_values[0].example if len(shape_values) == 1 and isinstance(
        shape_values[0].example, tuple) else [v.example for v in shape_values]
    size = " * ".join(f"{{x}}.shape[{k}]" for k in range(1, rank + 1))
    size = f"({size})" if rank > 1 else size
    others = [d for d in dims if d != "-1"]
    if len(others) != len(dims) - 1:
        return dims
    if len(sizes) == len(dims) and all(v.exact for v in shape_values) and all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in sizes):
        if any(int(v) <= 0 for v in sizes if v != -1):
            return dims
        product = 1
        for v in sizes:
            product *= int(v) if v != -1 else 1
        whole = f"{size} // {product}"
    elif all("(" not in d for d in others):
        # sizes read at run time (``x.shape[0]``, a name): written twice, so only plain
        # reads; a 0 among them keeps the -1 (NumPy raises per example there)
        product = " * ".join(others)
        whole = f"{size} // ({product}) if {product} else -1" if len(others) > 1 else \
            f"{size} // {product} if {product} else -1"
    else:
        return dims
    return [whole if d == "-1" else d for d in dims]


def stacked_display(site: Site):
    """``[a, b, 1.0]`` (or a name bound to such a list) where an array is expected: per
    example ``np.asarray([a, b, 1.0])``, so the pieces are stacked after the batch axis
    (``site.parts``: which of them are per example)."""
    node = site.node
    if type(node) is cst.Name:
        pieces, nodes = ["*{v}"], {"v": node}
    else:
        pieces = [f"{{p{k}}}" for k in range(len(node.elements))]
        nodes = {f"p{k}": e.value for k, e in enumerate(node.elements)}
    return expr(site.spelled.stack_pieces(pieces, tuple(site.parts)), **nodes)
