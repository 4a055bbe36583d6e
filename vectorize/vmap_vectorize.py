"""`vmap` of a `vectorize` object: ``vmap(vectorize(f), in_axes)(x, w)``, also at any depth
(`vmap_nested` flattens the levels into one vmap of the object) and as the rule
`vmap.nested` writes it for a `vectorize` object called on per-example values inside a
mapped or vectorized function (``g(x) = vf(x, 2.0)``).

Per example the object maps ``f`` over the elements (with a ``signature``, the core-shaped
pieces) of the example's arguments, broadcast together. On the batch that is one call of the
same object: each mapped argument with its mapped axis moved to the front and ones inserted
after it up to the largest number of loop dimensions among the call's arguments (so that
the arguments the same for every example, which broadcast from the right, line up with the
per-example axes, never with the batch axis), and each output's front axis moved to its
``out_axes`` entry. Where the call raises, the per-example loop runs and decides (a
mapped vector's items reach the object as NumPy scalars, whose arithmetic wraps or gives
inf where the batch's Python numbers raise). Calls this does not cover run as the
per-example loop (announced, or
with ``fallback="error"`` a located `VectorizeError`): containers among the arguments, an
``excluded`` argument that is mapped, keyword arguments with a ``signature``, an
``out_axes`` of None, arguments that are not NumPy arrays or numbers, an object made with
``cache=True`` (without ``otypes`` or a ``signature``: per example numpy.vectorize keeps the
first result from its call on NumPy scalars).
"""

from __future__ import annotations

import numpy as np

from .errors import VectorizeError
from .gufunc import parse_signature
from .vmap_axes import call_error, inconsistent_sizes, normal_axis, out_axes_of, user_location


def is_vectorized(fn) -> bool:
    """Whether ``fn`` is a `vectorize` object (``vectorize(f)``, ``@vectorize``); by its
    class's place, as `api` imports this module's importers."""
    kind = type(fn)
    return kind.__qualname__ == "vectorize" and kind.__module__ == f"{__package__}.api" \
        and fn.pyfunc is not np._NoValue


def call_vectorized(vm, args, kwargs):
    """``vm(*args, **kwargs)`` where ``vm`` is a vmap of a `vectorize` object."""
    vec = vm._target
    axes = vm.in_axes if isinstance(vm.in_axes, tuple) else (vm.in_axes,) * len(args)
    if vm._lead or vm._bound:
        return _per_example(vm, args, kwargs, "a bound or partial vectorize object")
    if len(axes) != len(args):
        raise call_error(
            "vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
            f"positional arguments passed to the function, but got len(in_axes)="
            f"{len(axes)}, len(args)={len(args)}", "give in_axes one entry per positional "
                                                  "argument")
    if any(not _leaf(a) for a in args) or any(not _leaf(v) for v in kwargs.values()):
        return _per_example(vm, args, kwargs, "an argument that is not a NumPy array or number")
    if vec.cache and not vec.otypes and vec.signature is None:
        # per example numpy.vectorize keeps its first result from the call that learns the
        # output types, on NumPy scalars of the example's first items: one per example
        return _per_example(vm, args, kwargs, "cache=True (each example's first result is "
                                              "numpy.vectorize's call on NumPy scalars)")
    excluded = vec.excluded
    names = _parameter_names(vec)
    for i, ax in enumerate(axes):
        if ax is not None and (i in excluded or (i < len(names) and names[i] in excluded)):
            return _per_example(vm, args, kwargs, "a mapped argument the vectorize object "
                                                  "excludes")
    core = [()] * len(args)
    if vec.signature is not None:
        if kwargs or excluded:
            return _per_example(vm, args, kwargs, "keyword or excluded arguments with a "
                                                  "signature")
        ins = parse_signature(vec.signature)[0]
        if len(ins) != len(args):
            return _per_example(vm, args, kwargs, "arguments that do not match the signature")
        core = ins
    sizes, moved = [], []
    for i, (a, ax) in enumerate(zip(args, axes)):
        if ax is None:
            moved.append(a)
            continue
        arr = np.asanyarray(a)
        if arr.ndim == 0:
            raise call_error(f"vmap was requested to map args[{i}] along axis {ax}, which "
                             "implies that its rank should be at least 1, but is only 0 "
                             "(its shape is ())", "map an argument that has that axis")
        if not -arr.ndim <= ax < arr.ndim:
            raise call_error(f"vmap was requested to map args[{i}] along axis {ax}, which "
                             f"implies that its rank should be at least "
                             f"{ax + 1 if ax >= 0 else -ax}, but is only {arr.ndim} (its "
                             f"shape is {arr.shape})", "give an axis the argument has")
        axis = ax % arr.ndim
        sizes.append((arr.shape[axis], (f"args[{i}]", arr.shape, axis)))
        moved.append(np.moveaxis(arr, axis, 0))
    if not sizes:
        raise call_error("vmap must have at least one non-None value in in_axes",
                         "map at least one argument")
    if any(s != sizes[0][0] for s, _ in sizes):
        raise call_error(inconsistent_sizes(sizes), "give every mapped argument the same "
                                                    "length along its mapped axis")
    size = sizes[0][0]
    if vm._options.axis_size is not None and vm._options.axis_size != size:
        return _per_example(vm, args, kwargs, "an axis_size that differs from the batch")
    # the loop dimensions each argument has per example; the mapped ones get ones after
    # their batch axis up to the most, so that the others broadcast against the example
    loops = [np.ndim(m) - (ax is not None) - len(c) for m, ax, c in zip(moved, axes, core)]
    loops += [np.ndim(v) for k, v in kwargs.items() if k not in excluded]
    if any(n < 0 for n in loops):
        return _per_example(vm, args, kwargs, "an argument with fewer dimensions than its "
                                              "core dimensions")
    most = max(loops, default=0)
    call_args = []
    for m, ax, n in zip(moved, axes, loops):
        if ax is not None and n < most:
            m = m.reshape(m.shape[:1] + (1,) * (most - n) + m.shape[1:])
        call_args.append(m)
    try:
        out = vec(*call_args, **kwargs)
    except (VectorizeError, Warning):
        raise
    except Exception:   # noqa: BLE001 -- the per-example loop decides
        # per example a mapped vector's items are NumPy scalars, which the object hands
        # on as they are (NumPy's arithmetic: an int wraps, `1 / 0.0` is inf) where the
        # batch's are Python numbers, which raise: the loop gives the reference's answer
        if not size:
            raise
        vm.replays += 1
        return vm._loop(args, kwargs, size)
    out_axes = out_axes_of(vm.out_axes, out, vm._name)
    if any(a is None for a in out_axes):
        return _per_example(vm, args, kwargs, "an out_axes of None")
    outs = out if isinstance(out, tuple) else (out,)
    placed = []
    for o, a in zip(outs, out_axes):
        o = np.asanyarray(o)
        if o.ndim < 1 or o.shape[0] != size:
            o = np.broadcast_to(o, (size,) + o.shape).copy()
        placed.append(np.moveaxis(o, 0, normal_axis(a, o.ndim, vm._name)) if a else o)
    return tuple(placed) if isinstance(out, tuple) else placed[0]


def _leaf(a) -> bool:
    return isinstance(a, (np.ndarray, np.generic, int, float, complex, bool))


def _parameter_names(vec) -> list:
    import inspect
    try:
        return list(inspect.signature(vec.pyfunc, follow_wrapped=False).parameters)
    except (TypeError, ValueError):
        return []


def _per_example(vm, args, kwargs, why):
    """The per-example loop, for a call `call_vectorized` does not batch."""
    reason = f"vmap of a vectorize object with {why} runs per example"
    if vm.fallback == "error":
        raise VectorizeError(f"cannot vmap `{vm._name}`: {why}", **user_location(),
                             suggestion="vmap the function itself, or pass fallback='warn'")
    vm._announce(reason, None, stacklevel=4, once=("vectorize object", why))
    axes = vm.in_axes if isinstance(vm.in_axes, tuple) else (vm.in_axes,) * len(args)
    size = next((np.shape(a)[ax] for a, ax in zip(args, axes) if ax is not None), 0)
    return vm._loop(args, kwargs, size)
