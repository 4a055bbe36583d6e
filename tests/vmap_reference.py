"""The per-example loop that `vmap` must equal, for pytrees and at every nesting level.

``loop_vmap(f, in_axes, out_axes)`` is vmap by its definition: for each example ``n`` take
index ``n`` of every mapped leaf along its ``in_axes`` entry, call ``f`` (keyword arguments
as they are), and stack each leaf of the results along its ``out_axes`` entry (None: every
example must give the same value, which is returned once). It works for NumPy arrays and
torch tensors alike, and nests: ``loop_vmap(loop_vmap(f))`` is the loop of loops that
``vmap(vmap(f))`` must equal. Written independently of `vectorize.pytree`.
"""

from __future__ import annotations

import numpy as np


def _is_tensor(x) -> bool:
    return type(x).__module__.startswith("torch") and hasattr(x, "dim")


def _node(x) -> bool:
    return type(x) in (tuple, list) or isinstance(x, dict) or (
        isinstance(x, tuple) and hasattr(type(x), "_fields"))


def _children(x) -> list:
    return list(x.values()) if isinstance(x, dict) else list(x)


def _remake(x, items):
    if isinstance(x, dict):
        return type(x)(zip(x.keys(), items))
    if isinstance(x, tuple) and hasattr(type(x), "_fields"):
        return type(x)(*items)
    return type(x)(items)


def _axes_for(spec, tree):
    """The spec entry of every leaf of ``tree`` (spec a prefix of it)."""
    if not _node(spec):
        return [spec] * len(_leaves(tree))
    assert type(spec) is type(tree), (spec, tree)
    if isinstance(tree, dict):
        assert set(spec) == set(tree)
        parts = [spec[k] for k in tree]
    else:
        parts = list(spec)
        assert len(parts) == len(tree)
    return [a for p, t in zip(parts, _children(tree)) for a in _axes_for(p, t)]


def _leaves(tree) -> list:
    if _node(tree):
        return [leaf for c in _children(tree) for leaf in _leaves(c)]
    return [tree]


def _rebuild(tree, it):
    if _node(tree):
        return _remake(tree, [_rebuild(c, it) for c in _children(tree)])
    return next(it)


def _take(leaf, axis, n):
    if axis is None or leaf is None:
        return leaf
    if _is_tensor(leaf):
        return leaf.select(axis, n)
    return np.take(np.asarray(leaf), n, axis=axis)


def _stack(items, axis):
    if _is_tensor(items[0]):
        import torch
        return torch.movedim(torch.stack(list(items)), 0, axis)
    return np.moveaxis(np.stack([np.asarray(i) for i in items]), 0, axis)


def _equal(a, b) -> bool:
    if _is_tensor(a):
        import torch
        return bool(torch.equal(a, b))
    return bool(np.array_equal(a, b, equal_nan=np.asarray(a).dtype.kind in "fc"))


def loop_vmap(f, in_axes=0, out_axes=0):
    def mapped(*args, **kwargs):
        spec = tuple(in_axes) if isinstance(in_axes, (tuple, list)) else (in_axes,) * len(args)
        axes = _axes_for(spec, tuple(args))
        leaves = _leaves(tuple(args))
        sizes = {np.shape(leaf)[ax] if not _is_tensor(leaf) else leaf.shape[ax]
                 for leaf, ax in zip(leaves, axes) if ax is not None and leaf is not None}
        assert len(sizes) == 1, sizes
        (size,) = sizes
        rows = []
        for n in range(size):
            example = _rebuild(tuple(args), iter([_take(leaf, ax, n)
                                                  for leaf, ax in zip(leaves, axes)]))
            rows.append(f(*example, **kwargs))
        assert rows, "the reference needs at least one example"
        template = rows[0]
        columns = list(zip(*[_leaves(r) for r in rows]))
        outs = []
        if _node(out_axes) and not _node(template) and len(out_axes) == 1:
            out_spec = [out_axes[0]]              # torch.func's one-output edge case
        else:
            out_spec = _axes_for(out_axes, template)
        for column, axis in zip(columns, out_spec):
            if axis is None:
                assert all(_equal(column[0], c) for c in column), "mapped output, out_axes None"
                outs.append(column[0])
            else:
                outs.append(_stack(column, axis))
        return _rebuild(template, iter(outs))
    return mapped


def assert_same_tree(got, expected, rtol=1e-12, exact_dtype=True):
    """Same structure (container types and keys), shapes, dtypes and values."""
    if _node(expected):
        assert type(got) is type(expected), (type(got), type(expected))
        if isinstance(expected, dict):
            assert list(got) == list(expected), (list(got), list(expected))
        assert len(_children(got)) == len(_children(expected))
        for g, e in zip(_children(got), _children(expected)):
            assert_same_tree(g, e, rtol, exact_dtype)
        return
    if expected is None:
        assert got is None
        return
    if _is_tensor(expected):
        import torch
        assert _is_tensor(got), type(got)
        assert got.shape == expected.shape, (got.shape, expected.shape)
        assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
        torch.testing.assert_close(got, expected, rtol=max(rtol, 1e-6), atol=1e-6,
                                   equal_nan=True)
        return
    got_a, exp_a = np.asarray(got), np.asarray(expected)
    assert got_a.shape == exp_a.shape, (got_a.shape, exp_a.shape)
    if exact_dtype:
        assert got_a.dtype == exp_a.dtype, (got_a.dtype, exp_a.dtype)
    else:
        assert got_a.dtype.kind == exp_a.dtype.kind, (got_a.dtype, exp_a.dtype)
    if exp_a.dtype.kind in "fc":
        np.testing.assert_allclose(got_a, exp_a, rtol=rtol, atol=1e-12, equal_nan=True)
    else:
        np.testing.assert_array_equal(got_a, exp_a)
