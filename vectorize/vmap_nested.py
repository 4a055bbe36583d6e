"""``vmap`` of a vmapped function (`vectorize.vmap`): ``vmap(vmap(f, in_i, out_i), in_o,
out_o)`` runs as one batched call of ``f`` whose batch axis is the outer and the inner mapped
axes flattened into one (an argument mapped at one level only is broadcast along the other),
its outputs split and placed at the inner, then the outer ``out_axes``. Deeper nesting
recurses: the flat call is itself a vmap of a vmapped function."""

from __future__ import annotations

import dataclasses

import numpy as np

from . import backends
from .pytree import PrefixError, broadcast_prefix, flatten, freeze, unflatten
from .vmap_axes import (
    call_error,
    inconsistent_sizes,
    normal_axis,
    out_axes_of,
)


def target_flat(outer, args, kwargs):
    """(the one-level vmap of the innermost function that computes this vmap of a vmapped
    function, its arguments, and how to take its outputs apart: see `call_nested`)."""
    inner = outer._target
    outer_axes = outer.in_axes if isinstance(outer.in_axes, tuple) else \
        (outer.in_axes,) * len(args)
    if len(outer_axes) != len(args):
        outer._plan(args, kwargs)     # raises the error about the lengths
    if outer._lead:      # a partial (or bound method) of a vmapped function: not mapped
        args = tuple(outer._lead) + tuple(args)
        outer_axes = (None,) * len(outer._lead) + tuple(outer_axes)
    inner_axes = inner.in_axes if isinstance(inner.in_axes, tuple) else \
        (inner.in_axes,) * len(args)
    if len(inner_axes) != len(args):
        raise call_error(
            "vmap in_axes must be an int, None, or a tuple of entries corresponding to "
            "the positional arguments passed to the function, but got "
            f"len(in_axes)={len(inner_axes)}, len(args)={len(args)} (the inner vmap's "
            "in_axes)", "give in_axes one entry per positional argument")
    sizes_o, sizes_i, plan, paths = [], [], [], []
    for i, (a, ao, ai) in enumerate(zip(args, outer_axes, inner_axes)):
        try:
            flat_o = broadcast_prefix(ao, a)
            flat_i = broadcast_prefix(ai, a)
        except PrefixError as exc:
            raise call_error(f"vmap in_axes specification must be a tree prefix of the "
                              f"corresponding value; for argument {i}: {exc}",
                              "give in_axes the structure of the arguments") from None
        for (path, leaf), lo, li in zip(flatten(a, f"args[{i}]"), flat_o, flat_i):
            plan.append(_nested_leaf(leaf, lo, li, path, sizes_o, sizes_i))
            paths.append(path)
    for sizes, level in ((sizes_o, outer), (sizes_i, inner)):
        axis_size = level._options.axis_size
        if not sizes and axis_size is not None:
            # nothing mapped at this level: `axis_size` examples, each the same (JAX's)
            sizes.append((axis_size, None))
        elif axis_size is not None and sizes[0][0] != axis_size:
            raise call_error(f"vmap got axis_size={axis_size}, but the arguments mapped at "
                             f"that level have size {sizes[0][0]}",
                             "give axis_size the mapped arguments' size, or leave it out")
        if not sizes:
            raise call_error("vmap must have at least one non-None value in in_axes",
                              "map at least one argument at every level")
        if any(s != sizes[0][0] for s, _ in sizes):
            raise call_error(inconsistent_sizes(sizes), "give every mapped argument "
                              "the same length along its mapped axis")
    n_o, n_i = sizes_o[0][0], sizes_i[0][0]
    leaves, flat_axes, copies = [], [], []
    for (leaf, lo, li, be), where in zip(plan, paths):
        if lo is None and li is None:
            leaves.append(leaf)
            flat_axes.append(None)
            continue
        if lo is not None and li is not None:        # (N_o, N_i, ...)
            both = be.moveaxis(be.moveaxis(leaf, lo, 0), li + 1, 1)
        elif lo is not None:                         # (N_o, ...) -> (N_o, N_i, ...)
            moved = be.moveaxis(leaf, lo, 0)
            both = _expand(moved[:, None], (n_o, n_i) + tuple(moved.shape[1:]), be)
        else:                                        # (N_i, ...) -> (N_o, N_i, ...)
            moved = be.moveaxis(leaf, li, 0)
            both = _expand(moved[None], (n_o, n_i) + tuple(moved.shape[1:]), be)
        leaves.append(both.reshape((n_o * n_i,) + tuple(both.shape[2:])))
        flat_axes.append(0)
        copy = _copy_of(leaves[-1], leaf)
        if copy is not None:
            copies.append((leaves[-1], both if li is not None and lo is not None else None,
                           where, "outer" if lo is None else "inner", copy))
    flat_args = unflatten(tuple(args), leaves)
    tree_axes = unflatten(tuple(args), flat_axes)
    key = freeze(tree_axes)
    flat = outer._nested.get(key)
    if flat is None:
        # a vmap of the same kind as the inner one (its options were checked when it was
        # made), for the backend named at either level (the inner one's first) and with the
        # inner one's randomness (its axis_size was checked above)
        flat = outer._nested[key] = type(inner)(inner.func, tree_axes, 0, inner.fallback,
                                                inner.chunk_size, inner.cache_dir,
                                                inner.backend or outer.backend)
        flat._options = dataclasses.replace(inner._options, axis_size=None)
        flat._explain = inner._explain
    return flat, flat_args, (n_o, n_i, copies)

def call_nested(outer, args, kwargs):
    """``vmap(vmap(f, in_i, out_i), in_o, out_o)``: ``f`` on every pair of an outer and an
    inner example, as one batched call of ``f`` whose batch axis is the two axes
    flattened (an argument mapped at one level only is broadcast along the other), its
    outputs taken apart and placed at the inner and then the outer ``out_axes``."""
    inner = outer._target
    if outer._bound:
        kwargs = {**outer._bound, **kwargs}
    flat, flat_args, (n_o, n_i, copies) = target_flat(outer, args, kwargs)
    out = flat(*flat_args, **kwargs)
    _written_back(copies)
    outer_out = out_axes_of(outer.out_axes, out, outer._name)
    inner_out = out_axes_of(inner.out_axes, out, inner._name)
    placed = []
    for (_, leaf), oo, oi in zip(flatten(out), outer_out, inner_out):
        if leaf is None or not hasattr(leaf, "shape"):
            placed.append(leaf)
            continue
        be = backends.get(backends.of_value(leaf) or backends.DEFAULT)
        grid = leaf.reshape((n_o, n_i) + tuple(leaf.shape[1:]))
        if oi is None:
            grid = _same_along(grid, 1, n_i, inner._name)
        else:
            grid = be.moveaxis(grid, 1, 1 + normal_axis(oi, grid.ndim - 1, inner._name))
        if oo is None:
            grid = _same_along(grid, 0, n_o, outer._name)
        else:
            grid = be.moveaxis(grid, 0, normal_axis(oo, grid.ndim, outer._name))
        placed.append(grid)
    return unflatten(out, placed)


def _nested_leaf(leaf, lo, li, where, sizes_o, sizes_i):
    """(leaf, outer axis, inner axis (of the leaf once the outer axis is taken out), backend)
    of one argument leaf of a nested vmap, the sizes of its mapped axes recorded."""
    if leaf is None or (lo is None and li is None):
        return leaf, None, None, None
    name = backends.of_value(leaf)
    if name is None:
        if not isinstance(leaf, (np.ndarray, int, float, complex, np.generic)):
            raise call_error(f"vmap got an in_axes entry that is not None for {where}, which "
                              f"is of type {type(leaf).__name__}: only arrays can be mapped",
                              "use None as its in_axes entry (passed as it is)")
        leaf, name = np.asarray(leaf), backends.DEFAULT
    be = backends.get(name)
    shape = tuple(leaf.shape)
    for axis, ndim, level in ((lo, len(shape), "outer"),
                              (li, len(shape) - (lo is not None), "inner")):
        if axis is None:
            continue
        if not -ndim <= axis < ndim:
            raise call_error(f"vmap was requested to map {where} along axis {axis} at the "
                              f"{level} level, which implies that its rank there should be at "
                              f"least {axis + 1 if axis >= 0 else -axis}, but is only {ndim}",
                              "give an axis the argument has")
    if lo is not None:
        lo %= len(shape)
        sizes_o.append((shape[lo], (where, shape, lo, leaf.dtype)))
        rest = shape[:lo] + shape[lo + 1:]
    else:
        rest = shape
    if li is not None:
        li %= len(rest)
        sizes_i.append((rest[li], (f"{where} (per outer example)", rest, li, leaf.dtype)))
    return leaf, lo, li, be


def _expand(x, shape, be):
    return be.broadcast_to(x, shape)


def _copy_of(flat, leaf):
    """The version of ``flat``, a tensor argument of the flat call made from the caller's
    tensor ``leaf``, where it is a copy (not a view of the caller's memory); None else."""
    version = getattr(flat, "_version", None)
    if version is None or not hasattr(flat, "untyped_storage") or \
            flat.untyped_storage().data_ptr() == leaf.untyped_storage().data_ptr():
        return None
    return version


def _written_back(copies):
    """The flat call's in-place changes of the copies it was given (``x.add_(1)``), made in
    the caller's tensors as the per-example loop makes them: a tensor mapped at both levels
    gets its copy's values (every pair of examples wrote its own part); one mapped at one
    level only was the same for every example of the other, and each would change it again
    (torch.func raises there): refused."""
    for flat, both, where, level, version in copies:
        if flat._version == version:
            continue
        if both is None:
            raise call_error(f"the function changes {where} in place, which the {level} vmap "
                             "does not map: each of its examples would change it again",
                             "write it out of place, or map it at both levels")
        both.copy_(flat.reshape(both.shape))


def _same_along(grid, axis, n, name):
    """``grid`` without its axis ``axis``, whose ``n`` entries must be equal (an output of a
    nested vmap with out_axes None at that level)."""
    if n == 0:
        # (JAX traces the function: it knows the output does not depend on that level's
        # arguments without any example of it; the flat call computes outputs from examples)
        raise call_error(f"vmap cannot give an output of `{name}` with out_axes None where "
                          "its level of this nested vmap has no examples (a mapped axis "
                          "of size 0): the nested vmap computes every output from the "
                          "examples", "give out_axes an int for that output, or call it "
                          "with at least one example at that level")
    first = grid[(slice(None),) * axis + (0,)]
    if any(not _equal(first, grid[(slice(None),) * axis + (k,)])
                     for k in range(1, n)):
        raise call_error(f"vmap has mapped output but out_axes is None (`{name}`: its "
                          "output differs along that level's axis)",
                          "give out_axes an int for that output")
    return first


def _equal(a, b) -> bool:
    if hasattr(a, "equal") and not isinstance(a, np.ndarray):     # tensors
        import torch
        return bool(torch.equal(a, b)) or bool(((a == b) | (a != a) & (b != b)).all())
    return bool(np.array_equal(a, b, equal_nan=np.asarray(a).dtype.kind in "fc"))
