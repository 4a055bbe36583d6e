"""`vectorize` called on another namespace's arrays (torch tensors): numpy.vectorize's
broadcasting, run by the `vmap` engine on that namespace's backend.

numpy.vectorize would turn the tensors into NumPy arrays (a copy off the device, and an error
for a tensor that requires grad) and give back a NumPy array. Here tensors in give tensors
out, on the arguments' device, with autograd flowing through (docs/torch.md, "vectorize on
tensors"): the arguments that are not `excluded` are broadcast as numpy.vectorize broadcasts
them (loop dimensions only, with a ``signature``), flattened into one batch axis, mapped by a
`vmap` of the function (kept per pattern of mapped arguments), and the outputs get the loop
shape back.
"""

from __future__ import annotations

import math

import numpy as np

from . import backends


def takes_tensors(args, kwargs) -> bool:
    """Whether a call's arguments hold another namespace's array (a torch tensor)."""
    return any(backends.of_value(a) is not None for a in args) or any(
        backends.of_value(a) is not None for a in kwargs.values())


def plan(vec, args, kwargs):
    """(the `vmap` of ``vec``'s function, its positional arguments, the loop shape, the
    number of lanes) for a call of ``vec`` (a `vectorize`) on tensors, or None where
    numpy.vectorize's own loop must run (a function that is not a plain Python function with
    parameters it can take by position, or arguments that do not bind to it)."""
    binding = vec._binding if vec._binding is not None else vec._make_binding()
    if isinstance(binding, str):
        return _refuse(vec, binding)
    func, lead, sig, names, n_positional = binding
    if vec._var_positional is not None:
        return _refuse(vec, "it takes *args, which a call on tensors cannot map")
    if n_positional != len(names):
        # vmap passes arguments by position
        return _refuse(vec, "it has keyword-only parameters, which a call on tensors cannot "
                            "map")
    try:
        sig.bind(*lead, *args, **kwargs)
    except TypeError:
        return None     # numpy's loop calls the function, which raises Python's own error
    like = next(a for a in [*args, *kwargs.values()] if backends.of_value(a) is not None)
    backend = backends.get(backends.of_value(like))
    if vec._core_signature is not None:
        in_dims = vec._core_signature[0]
        excluded = vec.excluded
        sources = [i for i in range(len(args)) if i not in excluded]
        sources += [name for name in kwargs if name not in excluded]
        if len(sources) != len(in_dims):
            raise TypeError("wrong number of positional arguments: "
                            f"expected {len(in_dims)!r}, got {len(sources)!r}")
        bound = vec._bind_signature(sig, names, lead, args, kwargs, sources)
        cores = [None if k is None else len(in_dims[k]) for _, k in bound]
        values = [value for value, _ in bound]
    else:
        values, as_is = vec._bind(sig, names, lead, args, kwargs)
        cores = [None if index in as_is else 0 for index in range(len(values))]
        in_dims = None
    inputs = {}
    for index, (value, core) in enumerate(zip(values, cores)):
        if core is None:
            continue
        if backends.of_value(value) is None:
            if core == 0 and np.ndim(value) == 0:
                continue    # a number: the same for every example, as torch takes it
            value = backend.from_numpy(np.asarray(value), like)
        inputs[index] = value
    if in_dims is not None:
        from .gufunc import parse_input_dimensions
        loop_shape, _ = parse_input_dimensions(
            [inputs[i] for i in sorted(inputs)], [in_dims[k] for _, k in bound if k is not None])
    else:
        loop_shape = tuple(np.broadcast_shapes(*[tuple(t.shape) for t in inputs.values()])) \
            if inputs else ()
    loop_shape = tuple(loop_shape)
    size = math.prod(loop_shape)
    call_args, axes = list(values), [None] * len(values)
    for index, tensor in inputs.items():
        core = tuple(tensor.shape[tensor.ndim - cores[index]:]) if cores[index] else ()
        n_loop = tensor.ndim - len(core)
        if size != 1 and all(n == 1 for n in tensor.shape[:n_loop]):
            call_args[index] = tensor.reshape(core)     # the same for every example
            continue
        if tuple(tensor.shape[:n_loop]) != loop_shape:
            tensor = backend.broadcast_to(tensor, loop_shape + core)
        if tuple(tensor.shape) != (size,) + core:
            tensor = tensor.reshape((size,) + core)
        call_args[index] = tensor
        axes[index] = 0
    if not any(a == 0 for a in axes):
        return None     # nothing to map: numpy's loop (which needs no tensor) decides
    axes = tuple(axes)
    maps = getattr(vec, "_tensor_maps", None)
    if maps is None:
        maps = vec._tensor_maps = {}
    mapped = maps.get(axes)
    if mapped is None:
        from .vmap import vmap
        mapped = maps[axes] = vmap(func, in_axes=axes, fallback=vec.fallback,
                                   chunk_size=vec.chunk_size, cache_dir=vec.cache_dir)
    return mapped, call_args, loop_shape, size


def _refuse(vec, reason):
    """None (numpy.vectorize's loop runs the call), announced as `vectorize` announces a
    fallback; a `VectorizeError` with ``fallback="error"``."""
    if vec.fallback == "error":
        from .errors import VectorizeError
        raise VectorizeError(f"cannot vectorize `{getattr(vec, '__name__', '?')}` on tensors: "
                             f"{reason}", suggestion="give it positional parameters only, or "
                                                     "pass fallback='warn'")
    from .frontend import FallbackSpec
    vec._announce(reason, FallbackSpec(reason, ""), stacklevel=5, once=("tensors", reason))
    return None


def call(vec, args, kwargs):
    """``vec(*args, **kwargs)`` on tensors (`plan`); NotImplemented where numpy.vectorize's
    loop must run."""
    planned = _warm(vec, args) if not kwargs else None
    if planned is None:
        planned = plan(vec, args, kwargs)
        if planned is None:
            return NotImplemented
        if not kwargs:
            _remember(vec, args, planned)
    return _run(vec, planned)


def call_warm(vec, args):
    """``vec(*args)`` where the arguments are like those of a call `_remember` kept (a warm
    call: nothing else to check); NotImplemented for any other call.

    Where the vmap's own fast path (`vmap._FastPath`) was made for arguments like the kept
    ones (`_same_layout`: 1-d arrays where they are arrays, numbers of their types), its
    check of the arguments is `_warm`'s and more (ranks, dtypes, one batch size, the
    specialization's guards), and the call is that path's alone."""
    # (attributes, not ``vec.__dict__``: reading that makes the object's dict one of its
    # own, and Python 3.11 then no longer specializes its attribute reads)
    mapped = vec._tensor_warm[1]
    fast = mapped._fast
    if fast is not None and fast is getattr(vec, "_tensor_fast", None):
        planned = fast.match(args)
        if planned is not None:
            out = mapped._fast_call(fast, planned, args, _NO_KEYWORDS)
            if not vec.otypes and not isinstance(out, tuple):
                return out      # (`_outputs`' common case: one batch axis, nothing to cast)
            return _outputs(vec, out, args, (planned[1],))
    planned = _warm(vec, args)
    if planned is None:
        return NotImplemented
    out = _run(vec, planned)
    fast = mapped._fast
    if fast is not None and fast is not getattr(vec, "_tensor_fast", None) and \
            _same_layout(fast, vec._tensor_warm[0]):
        vec._tensor_fast = fast
    return out


_NO_KEYWORDS: dict = {}     # (never written: `_VMapped._fast_call` only reads its keywords)


def _same_layout(fast, kinds) -> bool:
    """Whether the vmap fast path ``fast`` takes exactly calls `_warm` takes with argument
    types ``kinds``: no argument beyond them, a plain vmap (`_FastPath.plain`), each array
    mapped along its first axis with one dimension, each number of its type."""
    if not fast.plain or len(fast.leaves) != len(kinds):
        return False
    for (leaf_kind, info, ndim, axis), kind in zip(fast.leaves, kinds):
        if kind in _SCALARS:
            if leaf_kind is not kind:
                return False
        elif leaf_kind != "fb" or ndim != 1 or axis != 0 or info[0] is not kind:
            return False
    return True


def _run(vec, planned):
    mapped, call_args, loop_shape, _ = planned
    return _outputs(vec, mapped(*call_args), call_args, loop_shape)


def _outputs(vec, out, call_args, loop_shape):
    """The call's results from the mapped function's ``out``: reshaped to the loop shape,
    cast to ``otypes``."""
    otypes = vec.otypes
    if len(loop_shape) == 1 and not otypes and (type(out) is tuple or
                                                not isinstance(out, tuple)):
        return out      # the common case: nothing to reshape, cast or make a plain tuple
    outs = out if isinstance(out, tuple) else (out,)
    backend = next(backends.get(name) for name in map(backends.of_value, call_args)
                   if name is not None)
    results = []
    for index, item in enumerate(outs):
        if len(loop_shape) != 1:
            item = item.reshape(loop_shape + tuple(item.shape[1:]))
        if otypes:
            item = backend.cast(item, np.dtype(otypes[index] if index < len(otypes)
                                               else otypes[0]))
        results.append(item)
    return tuple(results) if isinstance(out, tuple) else results[0]


_SCALARS = (float, int, complex)


def _remember(vec, args, planned):
    """Keep the plan of a call whose arguments `plan` passed on as they are (1-d arrays of
    one length, and Python numbers, by position) for `_warm`."""
    mapped, call_args, loop_shape, _ = planned
    binding = vec._binding
    if vec._core_signature is not None or vec.excluded or isinstance(binding, str) or \
            binding[1] or binding[4] != len(args) or len(loop_shape) != 1 or \
            len(call_args) != len(args) or any(c is not a for c, a in zip(call_args, args)):
        return
    kinds = tuple(type(a) for a in args)
    if all(kind in _SCALARS or getattr(a, "ndim", None) == 1 for kind, a in zip(kinds, args)):
        vec._tensor_warm = (kinds, mapped)
        vec._tensor_fast = None     # (`call_warm` learns it again)


def _warm(vec, args):
    """`plan` of a call like the one `_remember` kept (the same types, by position: 1-d
    arrays of one length, Python numbers), without binding or broadcasting again; None
    for any other call."""
    warm = getattr(vec, "_tensor_warm", None)
    if warm is None:
        return None
    kinds, mapped = warm
    if len(args) != len(kinds):
        return None
    size = -1
    for kind, arg in zip(kinds, args):
        if type(arg) is not kind:
            return None
        if kind not in _SCALARS:
            shape = arg.shape       # (one attribute: a jax.Array's are Python properties)
            if len(shape) != 1:
                return None
            n = shape[0]
            if n != size:
                if size >= 0:
                    return None
                size = n
    return mapped, args, (size,), size


def source(vec, args, kwargs) -> str | None:
    """The generated source of the call's specialization (None: numpy's loop runs it)."""
    planned = plan(vec, args, kwargs)
    if planned is None:
        return None
    mapped, call_args, _, _ = planned
    return mapped.source(*call_args)
