"""Reordering per-example arrays: sorting, partitioning, flipping, rolling, and picking along an
axis by per-example indices.

Each of these acts along per-example axes, so the axis is shifted past the batch axis
(`rules.axes.shift_axis`); ``axis=None`` means "the flattened example" for ``sort``/``argsort``/
``roll`` and "every per-example axis" for ``flip``. A function whose default axis is ``-1``
(``np.sort``) would sort across the batch for per-example scalars, where NumPy raises per
example: refused.
"""

from __future__ import annotations

import numpy as np

from ...errors import Unsupported
from ...rules.axes import call_with, flattened, shift_axis
from ...rules.registry import Registry, Rule, Site, infer_by_calling
from ...syntax.templates import expr


def _argument(site: Site, position: int, name: str):
    """(node, value) of an argument given at ``position`` (the array is 0) or by ``name``;
    (None, None) where it is not given."""
    if name in site.kwargs:
        return site.kwargs[name]
    if len(site.args) > position:
        return site.nodes[position], site.args[position]
    return None, None


def _constant(value, what: str):
    if value.batched or not value.exact:
        raise Unsupported(f"{what} must be a constant written in the function (a literal or "
                          "a module-level name)",
                          suggestion="write the value in the code; a per-example value would "
                                     "need a different shape per example")
    return value.example


def _axis(site: Site, position: int, default):
    """The per-example axis argument (its constant value), ``default`` where not given."""
    node, value = _argument(site, position, "axis")
    if value is None:
        return default
    return _constant(value, "the axis")


def _check_axis(axis, rank: int, what: str) -> None:
    for a in axis if isinstance(axis, tuple) else (axis,):
        if a is not None and not -rank <= a < rank:
            raise Unsupported(f"`{what}` along axis {a} of a per-example value of rank {rank} "
                              "(NumPy raises per example)", suggestion="check the axis",
                              kind="raises")


def _along_axis(name: str, position: int, default):
    """``f(x, ..., axis=k)`` with ``k`` shifted past the batch axis; ``axis=None`` sorts (or
    rolls) the flattened example."""

    def rewrite(site: Site):
        site.func_is_method = isinstance(site.func, str)
        rank = site.args[0].rank
        axis = _axis(site, position, default)
        first = site.nodes[0]
        if axis is None:
            return call_with(site, flattened(first, rank), "1", position)
        _check_axis(axis, rank, name)
        return call_with(site, first, repr(shift_axis(axis, rank)), position)
    return rewrite


def _partition(name: str):
    def rewrite(site: Site):
        _, kth = _argument(site, 1, "kth")
        if kth is not None:
            _constant(kth, "kth")
        return _along_axis(name, 2, -1)(site)
    return rewrite


def _flip(site: Site):
    rank = site.args[0].rank
    axis = _axis(site, 1, None)
    x = site.nodes[0]
    if axis is None:
        if rank == 0:
            return x
        axes = tuple(range(1, rank + 1))
        return expr(f"np.flip({{x}}, axis={axes[0] if rank == 1 else axes!r})", x=x)
    _check_axis(axis, rank, "np.flip")
    return expr(f"np.flip({{x}}, axis={shift_axis(axis, rank)!r})", x=x)


def _flip_fixed(axis: int, least_rank: int, name: str):
    def rewrite(site: Site):
        if site.args[0].rank < least_rank:
            raise Unsupported(f"`np.{name}` of a per-example value of rank "
                              f"{site.args[0].rank} (NumPy raises per example)", kind="raises")
        return expr(f"np.flip({{x}}, axis={axis + 1})", x=site.nodes[0])
    return rewrite


def _roll(site: Site):
    x_value = site.args[0]
    rank = x_value.rank
    shift_node, shift = _argument(site, 1, "shift")
    axis = _axis(site, 2, None)
    x = site.nodes[0]
    if shift.batched:
        # a per-example shift: a gather along the axis (`(i - shift) % n`); a shared array
        # gets a length-1 batch axis, which the gather broadcasts
        if shift.rank > 0 or (axis is not None and not isinstance(axis, (int, np.integer))):
            raise Unsupported("`np.roll` by a per-example tuple of shifts",
                              suggestion="roll one axis at a time")
        base = x if x_value.batched else expr("{x}[None]", x=x)
        dims = np.shape(x_value.example)
        if axis is None:
            size = int(np.prod(dims))
            flat = flattened(base, rank) if x_value.batched else expr(
                "{x}.reshape(1, -1)", x=x)
            rolled = expr(f"np.take_along_axis({{x}}, (np.arange({size}) - {{s}}[:, None]) "
                          f"% {max(size, 1)}, axis=1)", x=flat, s=shift_node)
            if rank == 1:
                return rolled
            return expr("{r}.reshape(len({s}), " + ", ".join(map(str, dims)) + ")",
                        r=rolled, s=shift_node)
        _check_axis(axis, rank, "np.roll")
        axis = axis % rank
        shape = ["1"] * rank
        shape[axis] = str(dims[axis])
        index = expr(f"(np.arange({dims[axis]}).reshape({', '.join(shape)}) - {{s}}.reshape(-1"
                     + ", 1" * rank + f")) % {max(dims[axis], 1)}", s=shift_node)
        full = "(len({s}), " + "".join(f"{d}, " for d in dims) + ")"
        return expr(f"np.take_along_axis({{x}}, np.broadcast_to({{i}}, {full}), "
                    f"axis={axis + 1})", x=base, i=index, s=shift_node)
    if not x_value.batched:
        raise Unsupported("`np.roll` of an array the same for every example with a "
                          "per-example option", suggestion="roll before the per-example code")
    site.func_is_method = False     # a shift the same for every example: as written
    if axis is None:
        if rank == 0:
            return x
        if rank == 1:
            return call_with(site, x, "1", 2)
        dims = ", ".join(str(d) for d in np.shape(x_value.example))
        rolled = call_with(site, flattened(x, rank), "1", 2)
        return expr("{r}.reshape(len({x}), " + dims + ")", r=rolled, x=x)
    _check_axis(axis, rank, "np.roll")
    return call_with(site, x, repr(shift_axis(axis, rank)), 2)


def _take_along_axis(site: Site):
    (arr, indices), (a, i) = site.nodes[:2], site.args[:2]
    if a.rank != i.rank and _axis(site, 2, -1) is not None:
        raise Unsupported("`np.take_along_axis` of arrays of different ranks (NumPy raises "
                          "per example)", kind="raises")
    axis = _axis(site, 2, -1)
    if axis is None:
        if i.rank != 1:
            raise Unsupported("`np.take_along_axis(..., axis=None)` needs a vector of "
                              "indices (NumPy raises per example)", kind="raises")
        arr = flattened(arr, a.rank) if a.batched else expr("{a}.ravel()", a=arr)
        new_axis = 1
    else:
        _check_axis(axis, a.rank, "np.take_along_axis")
        new_axis = shift_axis(axis, a.rank)
    # a shared operand gets a length-1 batch axis (the function broadcasts the others)
    if not a.batched:
        arr = expr("{a}[None]", a=arr)
    if not i.batched:
        indices = expr("{i}[None]", i=indices)
    return expr(f"np.take_along_axis({{a}}, {{i}}, axis={new_axis})", a=arr, i=indices)


def register(reg: Registry) -> None:
    def rule(name, explanation, before, after, rewrite, fn=None):
        return Rule(name, "sorting", explanation, before, after, rewrite,
                    infer=infer_by_calling(fn) if fn is not None else None)

    sort = rule("sort.sort", "`np.sort`/`np.argsort` sort each example along its axis "
                "(shifted past the batch axis); `axis=None` sorts the flattened example. "
                "Sorting is stable per row, so ties keep the order the example has.",
                "s = np.sort(v)\no = np.argsort(m, axis=0)",
                "s = np.sort(v, axis=-1)\no = np.argsort(m, axis=1)",
                _along_axis("np.sort", 1, -1))
    reg.add_call(np.sort, sort)
    reg.add_call(np.argsort, sort)
    reg.add_method("argsort", rule("sort.argsort_method", sort.explanation,
                                   "o = v.argsort()", "o = v.argsort(axis=-1)",
                                   _along_axis("argsort", 1, -1)))
    partition = rule("sort.partition", "`np.partition`/`np.argpartition` with a constant "
                     "`kth`, along the per-example axis.",
                     "p = np.partition(v, 1)", "p = np.partition(v, 1, axis=-1)",
                     _partition("np.partition"))
    reg.add_call(np.partition, partition)
    reg.add_call(np.argpartition, partition)
    reg.add_call(np.flip, rule("sort.flip", "`np.flip(m)` reverses every per-example axis "
                               "(not the batch axis); `axis=k` reverses axis k + 1.",
                               "r = np.flip(v)", "r = np.flip(v, axis=1)", _flip, np.flip))
    reg.add_call(np.fliplr, rule("sort.fliplr", "`np.fliplr` reverses each example's axis 1.",
                                 "r = np.fliplr(m)", "r = np.flip(m, axis=2)",
                                 _flip_fixed(1, 2, "fliplr"), np.fliplr))
    reg.add_call(np.flipud, rule("sort.flipud", "`np.flipud` reverses each example's axis 0.",
                                 "r = np.flipud(v)", "r = np.flip(v, axis=1)",
                                 _flip_fixed(0, 1, "flipud"), np.flipud))
    reg.add_call(np.roll, rule(
        "sort.roll", "`np.roll(v, k)` rolls each example (flattened without an axis); a "
        "per-example shift `k` is a gather along the axis: `(i - k) % n`.",
        "r = np.roll(v, 1)\nq = np.roll(v, k)",
        "r = np.roll(v, 1, axis=1)\n"
        "q = np.take_along_axis(v, (np.arange(3) - k[:, None]) % 3, axis=1)", _roll, np.roll))
    reg.add_call(np.take_along_axis, rule(
        "sort.take_along_axis", "`np.take_along_axis(a, idx, axis)` picks along the "
        "per-example axis; a shared operand gets a length-1 batch axis and broadcasts.",
        "s = np.take_along_axis(v, np.argsort(v), axis=0)",
        "s = np.take_along_axis(v, np.argsort(v, axis=-1), axis=1)", _take_along_axis,
        np.take_along_axis))

