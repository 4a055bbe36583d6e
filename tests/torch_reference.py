"""The reference for tensors: the per-example loop ``torch.stack([f(*row) for row ...])``.

``reference(f, args, in_axes, out_axes)`` calls ``f`` once per example on the rows PyTorch
hands out (``a.select(axis, n)``: 0-d tensors for a mapped vector) and stacks the results. A
per-example result that is a Python number (``float(x)``, ``1 if x > 0 else 2.5``) is stacked
as the batched code holds it (docs/semantics.md): float64, int64, bool; results of different
dtypes on different lanes (a tensor on some, a Python number on others) are stacked in the
dtype ``torch.where`` of them gives. ``check`` compares ``vmap(f)`` with it: same shape, same
dtype, same device, equal values (NaN equal to NaN, signed zeros), and, for outputs that carry
a gradient, equal gradients of ``out.sum()`` with respect to every float argument.
"""

from __future__ import annotations

import functools
import warnings

import torch

from vectorize import vmap

_PYTHON_DTYPES = {bool: torch.bool, int: torch.int64, float: torch.float64,
                  complex: torch.complex128}


def _axes(in_axes, count):
    return in_axes if isinstance(in_axes, tuple) else (in_axes,) * count


def rows(args, in_axes, n):
    return [a if ax is None else a.select(ax, n) for a, ax in zip(args, _axes(in_axes,
                                                                              len(args)))]


def batch_size(args, in_axes):
    return next(a.shape[ax] for a, ax in zip(args, _axes(in_axes, len(args)))
                if ax is not None)


def _joined_dtype(lanes):
    """The dtype holding every lane's result: Python numbers alone by their Python type,
    else what torch.where of them gives (Python numbers weigh less than tensors)."""
    if all(type(v) in _PYTHON_DTYPES for v in lanes):
        return _PYTHON_DTYPES[max((type(v) for v in lanes),
                                  key=[bool, int, float, complex].index)]
    tensors = [v for v in lanes if isinstance(v, torch.Tensor)]
    acc = tensors[0].detach()
    for v in lanes:
        acc = torch.where(torch.tensor(True), acc, v.detach() if isinstance(
            v, torch.Tensor) else v)
    return acc.dtype


def _stack(lanes, example=None):
    if not lanes:
        shape = tuple(example.shape) if isinstance(example, torch.Tensor) else ()
        dtype = _joined_dtype([example])
        return torch.zeros((0,) + shape, dtype=dtype)
    dtype = _joined_dtype(lanes)
    return torch.stack([v.to(dtype) if isinstance(v, torch.Tensor)
                        else torch.tensor(v, dtype=dtype) for v in lanes])


def reference(f, args, in_axes=0, out_axes=0):
    size = batch_size(args, in_axes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # .item() of tensors that require grad
        results = [f(*rows(args, in_axes, n)) for n in range(size)]
        example = None
        if size == 0:
            ones = [a if ax is None else torch.ones(a.shape[:ax] + a.shape[ax + 1:],
                                                    dtype=a.dtype, device=a.device)
                    for a, ax in zip(args, _axes(in_axes, len(args)))]
            example = f(*ones)
    tuple_out = isinstance(example if size == 0 else results[0], tuple)
    if tuple_out:
        count = len(example if size == 0 else results[0])
        outs = [_stack([r[k] for r in results], example[k] if size == 0 else None)
                for k in range(count)]
    else:
        outs = [_stack(results, example)]
    placed = [o.movedim(0, out_axes[k] if isinstance(out_axes, tuple) else out_axes)
              for k, o in enumerate(outs)]
    return tuple(placed) if tuple_out else placed[0]


_CATEGORY = {torch.bool: 0, torch.uint8: 1, torch.int8: 1, torch.int16: 1, torch.int32: 1,
             torch.int64: 1, torch.float16: 2, torch.bfloat16: 2, torch.float32: 2,
             torch.float64: 2, torch.complex64: 3, torch.complex128: 3}


def assert_same(got, expected, what="", joins=False, signed_zeros=True):
    """``joins``: the branches of the function give different dtypes, so the lanes' dtype
    depends on the branches they take; the batched result has the dtype of the branches'
    join whichever they take (docs/semantics.md), of a kind that holds the lanes' values.
    ``signed_zeros``: compare the signs of zeros (not where PyTorch's own vectorized kernel
    and its 0-d path disagree on them: clamp, maximum, minimum)."""
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected), what
        for g, e in zip(got, expected):
            assert_same(g, e, what, joins, signed_zeros)
        return
    assert isinstance(got, torch.Tensor), f"{what}got {type(got).__name__}, not a tensor"
    assert got.shape == expected.shape, f"{what}shape {tuple(got.shape)} != " \
                                        f"{tuple(expected.shape)}"
    if joins:
        assert _CATEGORY[got.dtype] >= _CATEGORY[expected.dtype], \
            f"{what}dtype {got.dtype} does not hold {expected.dtype}"
        expected = expected.to(got.dtype)
    assert got.dtype == expected.dtype, f"{what}dtype {got.dtype} != {expected.dtype}"
    got, expected = got.detach(), expected.detach()
    if expected.dtype.is_floating_point or expected.dtype.is_complex:
        torch.testing.assert_close(got, expected, equal_nan=True, rtol=1e-5, atol=1e-6,
                                   msg=lambda m: what + m)
        if expected.dtype.is_floating_point and signed_zeros:
            zero = (got == 0) & (expected == 0)
            assert torch.equal(torch.signbit(got[zero]), torch.signbit(expected[zero])), \
                f"{what}sign of zero differs"
    else:
        assert torch.equal(got, expected), f"{what}{got} != {expected}"


_MAPPED: dict = {}


def mapped(f, in_axes=0, out_axes=0, **kw):
    """One vmapped callable per (function, axes): hypothesis examples run the warm path."""
    key = (f, repr(in_axes), repr(out_axes), repr(sorted(kw.items())))
    if key not in _MAPPED:
        _MAPPED[key] = vmap(f, in_axes=in_axes, out_axes=out_axes, **kw)
    return _MAPPED[key]


def _leaves(args):
    return [a.detach().clone().requires_grad_(a.dtype.is_floating_point) for a in args]


def _outputs(out):
    return list(out) if isinstance(out, tuple) else [out]


def _total(outs):
    return functools.reduce(lambda s, o: s + o.sum(), outs[1:], outs[0].sum())


def check(f, *args, in_axes=0, out_axes=0, grad=True, joins=False, signed_zeros=True, **kw):
    """``vmap(f)(*args)`` against the per-example loop: values, dtypes, devices, and the
    gradients of the outputs' sum with respect to every float argument."""
    ref_leaves, leaves = _leaves(args), _leaves(args)
    expected = reference(f, ref_leaves, in_axes, out_axes)
    got = mapped(f, in_axes, out_axes, **kw)(*leaves)
    assert_same(got, expected, joins=joins, signed_zeros=signed_zeros)
    for g, a in zip(_outputs(got), args):
        assert g.device == a.device
    floats = [i for i, a in enumerate(args) if a.dtype.is_floating_point]
    ref_outs = [o for o in _outputs(expected) if o.requires_grad]
    outs = [o for o, e in zip(_outputs(got), _outputs(expected)) if e.requires_grad]
    if not grad or not floats or not ref_outs:
        return got
    assert all(o.requires_grad for o in outs), "the batched output carries no gradient"
    want = torch.autograd.grad(_total(ref_outs), [ref_leaves[i] for i in floats],
                               allow_unused=True)
    have = torch.autograd.grad(_total(outs), [leaves[i] for i in floats], allow_unused=True)
    for i, w, h in zip(floats, want, have):
        w = torch.zeros_like(args[i]) if w is None else w
        h = torch.zeros_like(args[i]) if h is None else h
        torch.testing.assert_close(h, w, equal_nan=True, rtol=1e-5, atol=1e-6,
                                   msg=lambda m, i=i: f"gradient of argument {i}: {m}")
    return got


def seeded(seed=0):
    """A pytest fixture body: repeatable draws (``torch.manual_seed(seed)``), without
    changing the random state other test modules see."""
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        yield
