"""``vmap`` of ``torch.func.grad(f)`` / ``torch.func.grad_and_value(f)``: per-example
gradients (the per-sample-gradient recipe of PyTorch's tutorial,
``vmap(grad(loss), in_dims=(None, 0, 0))(params, x, t)``).

PyTorch's ``grad`` is a transform of its own interpreter, which only its own ``vmap`` sees
through; here it is computed from ``f``'s batched code. Each differentiated argument becomes
one tensor per example: a mapped one is its examples, a shared one (a model's parameters) is
expanded to one view of it per example (``w.expand(n, *w.shape)``: no copy). ``vmap(f)`` of
them gives every example's loss, and one backward pass of their sum gives, for each
example's view, that example's gradient (the lanes of the batched code do not mix). The
gradients keep their graph where an argument requires grad (``create_graph``), so they can
be differentiated again, as PyTorch's are.
"""

from __future__ import annotations

from . import backends
from .pytree import PrefixError, broadcast_prefix, flatten, freeze, unflatten
from .vmap_axes import call_error, inconsistent_sizes, normal_axis, out_axes_of


def grad_transform(fn):
    """``(f, argnums, has_aux, with_value)`` where ``fn`` is a backend library's gradient
    transform of ``f`` (``torch.func.grad(f, argnums, has_aux)``: ``with_value`` False;
    ``grad_and_value``: True), else None (`backends.base.Backend.grad_transform`)."""
    return backends.grad_transform(fn)


def call_grad(vm, args, kwargs):
    """``vm(*args, **kwargs)`` where ``vm`` is a `vectorize.vmap` of a ``torch.func.grad`` /
    ``grad_and_value`` function (``vm._grad``, `grad_transform`)."""
    import torch
    func, argnums, has_aux, with_value = vm._grad
    axes = vm.in_axes if isinstance(vm.in_axes, tuple) else (vm.in_axes,) * len(args)
    if len(axes) != len(args):
        raise call_error(
            "vmap in_axes must be an int, None, or a tuple of entries corresponding to "
            "the positional arguments passed to the function, but got "
            f"len(in_axes)={len(axes)}, len(args)={len(args)}.",
            "give in_axes one entry per positional argument")
    args = tuple(vm._lead) + tuple(args)
    axes = (None,) * len(vm._lead) + tuple(axes)
    kwargs = {**vm._bound, **kwargs}
    leaf_axes = []
    sizes = []
    for i, (a, ax) in enumerate(zip(args, axes)):
        try:
            flat_axes = broadcast_prefix(ax, a)
        except PrefixError as exc:
            raise call_error(f"vmap in_axes specification must be a tree prefix of the "
                             f"corresponding value; for args[{i}]: {exc}",
                             "give in_axes the structure of the arguments") from None
        leaf_axes.append(flat_axes)
        for (path, leaf), lax in zip(flatten(a, f"args[{i}]"), flat_axes):
            if lax is None:
                continue
            if not isinstance(leaf, torch.Tensor) or leaf.ndim == 0 or not \
                    -leaf.ndim <= lax < leaf.ndim:
                raise call_error(f"vmap cannot map {path} along axis {lax}: only tensors "
                                 "with that dim can be mapped",
                                 "map a tensor along a dim it has, or give it in_axes None")
            sizes.append((leaf.shape[lax], (path, tuple(leaf.shape), lax % leaf.ndim)))
    if not sizes:
        raise call_error("vmap must have at least one non-None value in in_axes",
                         "map at least one argument (in_axes=0 for it)")
    n = sizes[0][0]
    if any(s != n for s, _ in sizes):
        raise call_error(inconsistent_sizes(sizes), "give every mapped argument the same "
                                                    "length along its mapped axis")
    if n == 0:
        # an empty batch: one made-up example gives the outputs' shapes (torch.func.vmap,
        # which a module call inside may run on, fails on some layers for no examples)
        args = tuple(unflatten(a, [leaf if lax is None else _one_example(leaf, lax)
                                   for (_, leaf), lax in zip(flatten(a), flat)])
                     for a, flat in zip(args, leaf_axes))
        return unflatten(*_emptied(call_grad_sized(vm, args, kwargs, axes, leaf_axes, 1)))
    return call_grad_sized(vm, args, kwargs, axes, leaf_axes, n)


def _one_example(leaf, axis):
    shape = list(leaf.shape)
    shape[axis] = 1
    return leaf.new_ones(shape).requires_grad_(leaf.requires_grad)


def _emptied(result):
    return result, [leaf[:0] if hasattr(leaf, "shape") and leaf.ndim else leaf
                     for _, leaf in flatten(result)]


def call_grad_sized(vm, args, kwargs, axes, leaf_axes, n):
    """`call_grad` for a batch of ``n`` examples (``n`` > 0), the arguments checked."""
    import torch
    func, argnums, has_aux, with_value = vm._grad
    numbers = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    count = len(args)
    if not numbers or any(not -count <= k < count for k in numbers):
        raise call_error(f"`{vm._name}`: argnums {argnums!r} is out of range for a function "
                         f"called with {count} positional arguments",
                         "give argnums the positions of the arguments to differentiate")
    numbers = tuple(k % count for k in numbers)
    needs_graph = torch.is_grad_enabled() and any(
        isinstance(leaf, torch.Tensor) and leaf.requires_grad
        for tree in (args, kwargs) for _, leaf in flatten(tree))
    new_args, new_axes, wrt = list(args), list(axes), []
    for k in numbers:
        made = []
        for (path, leaf), lax in zip(flatten(args[k], f"args[{k}]"), leaf_axes[k]):
            if not isinstance(leaf, torch.Tensor) or not (
                    leaf.is_floating_point() or leaf.is_complex()):
                raise call_error(f"`{vm._name}` differentiates {path}, which is not a "
                                 "floating-point tensor (torch.func.grad only "
                                 "differentiates those)", "differentiate float tensors only")
            base = leaf if leaf.requires_grad and needs_graph else \
                leaf.detach().requires_grad_()
            if lax is None:      # shared: one view of it per example
                made.append(base.expand(n, *base.shape))
            else:
                made.append(base.movedim(lax, 0))
        new_args[k] = unflatten(args[k], made)
        new_axes[k] = 0
        wrt.extend(made)
    inner = vm._nested.get(("grad", freeze(tuple(new_axes))))
    if inner is None:
        inner = vm._nested["grad", freeze(tuple(new_axes))] = type(vm)(
            func, tuple(new_axes), 0, vm.fallback, vm.chunk_size, vm.cache_dir)
    with torch.enable_grad():
        out = inner(*new_args, **kwargs)
        if has_aux:
            if not (isinstance(out, tuple) and len(out) == 2):
                raise call_error(f"`{vm._name}` has has_aux=True but the function does not "
                                 "return a pair (output, aux)",
                                 "return (loss, aux), or drop has_aux")
            value, aux = out
        else:
            value, aux = out, None
        if not isinstance(value, torch.Tensor) or tuple(value.shape) != (n,):
            got = tuple(value.shape[1:]) if isinstance(value, torch.Tensor) else \
                type(value).__name__
            raise call_error(f"`{vm._name}`: torch.func.grad expects the function to return "
                             f"a scalar tensor per example, got {got}",
                             "return a 0-d tensor (a loss) per example")
        if value.requires_grad:
            grads = torch.autograd.grad(value.sum(), wrt, create_graph=needs_graph,
                                        allow_unused=True)
        else:
            grads = (None,) * len(wrt)
    grads = [torch.zeros_like(w) if g is None else g for g, w in zip(grads, wrt)]
    if not needs_graph:
        grads = [g.detach() for g in grads]
        value = value.detach()
        aux = unflatten(aux, [leaf.detach() if isinstance(leaf, torch.Tensor) else leaf
                              for _, leaf in flatten(aux)])
    it = iter(grads)
    per_arg = [unflatten(args[k], [next(it) for _ in flatten(args[k])]) for k in numbers]
    result = per_arg[0] if isinstance(argnums, int) else tuple(per_arg)
    if with_value:
        result = (result, (value, aux) if has_aux else value)
    elif has_aux:
        result = (result, aux)
    return _placed(result, vm.out_axes, vm._name)


def _placed(result, out_axes, name):
    """The outputs (batched along their dim 0) moved to ``out_axes``."""
    import torch
    placed = []
    for (_, leaf), axis in zip(flatten(result), out_axes_of(out_axes, result, name)):
        if not isinstance(leaf, torch.Tensor) or axis == 0:
            placed.append(leaf)
        elif axis is None:
            raise call_error("vmap has mapped output but out_axes is None",
                             "give out_axes an int for that output")
        else:
            placed.append(leaf.movedim(0, normal_axis(axis, leaf.ndim, name)))
    return unflatten(result, placed)
