"""``vmap(func, in_axes=0, out_axes=0)`` with JAX / ``torch.func`` semantics."""

from __future__ import annotations

import functools
import os
import sys
import types

import numpy as np

from . import backends, chunks, frontend, pickling
from .abstract import TupleValue, Value, exact, representative
from .chunks import check_chunk_size
from .dask_runtime import block_stand_ins, wants_dask
from .errors import VectorizeError
from .frontend import (
    Announcer,
    Entry,
    FallbackSpec,
    SpecCache,
    as_is_key,
    build,
    check_cache_dir,
    check_fallback,
    fallback_source,
    specialized_on,
)


def vmap(func=None, in_axes=0, out_axes=0, *, fallback="error", chunk_size="auto",
         cache_dir=None):
    """Map ``func`` over axis ``in_axes`` of its arguments (``None``: not mapped; a tuple gives
    one entry per positional argument, nested for tuple arguments, as in JAX) and put the
    batch axis of each output at ``out_axes``. Without ``func`` it is a decorator:
    ``@vmap(in_axes=(0, None))``.

    ``chunk_size``: lanes per call of the generated code on a large batch (see
    `vectorize.chunks`): ``"auto"`` picks it, ``None`` runs the whole batch in one call
    (``torch.vmap``'s default), an int is the lanes per call. Chunks of code without shared
    state run on ``VECTORIZE_NUM_THREADS`` threads (default: the CPUs, at most 8).

    ``cache_dir``: a directory where generated code is kept for the next processes
    (`vectorize.diskcache`); ``None`` (default): the ``VECTORIZE_CACHE_DIR`` environment
    variable's, else none; ``True``: ``~/.cache/vectorize``; ``False``: none."""
    check_fallback(fallback)
    check_cache_dir(cache_dir)
    if func is None:
        return lambda f: vmap(f, in_axes, out_axes, fallback=fallback, chunk_size=chunk_size,
                              cache_dir=cache_dir)
    return _VMapped(func, in_axes, out_axes, fallback, check_chunk_size(chunk_size),
                    check_cache_dir(cache_dir))


class _VMapped:
    def __init__(self, func, in_axes, out_axes, fallback, chunk_size="auto", cache_dir=None):
        if not callable(func):
            raise TypeError(f"vmap expects a function, got {type(func).__name__}")
        self.func = func
        self.in_axes = in_axes
        self.out_axes = out_axes
        self.fallback = fallback
        self.chunk_size = chunk_size
        self.cache_dir = cache_dir
        self._specs = SpecCache()
        self._explain = False   # record which rule rewrote which line (`vectorize.explain`)
        self._name = getattr(func, "__qualname__", None) or type(func).__name__
        self._announce = Announcer(fallback, f"vectorize.vmap: {self._name}")
        # a bound method maps over the arguments after `self`, which stays as it is
        self._lead = ()
        self._names = None      # the target's parameter names, read on the first call
        self._defaults: dict = {}   # ... and the defaults of those that have one
        self._target = func
        call = next((vars(k)["__call__"] for k in type(func).__mro__
                     if "__call__" in vars(k)), None)
        if not isinstance(func, (types.FunctionType, types.MethodType, type)) and isinstance(
                call, types.FunctionType):
            func = types.MethodType(call, func)   # a callable instance: `self` stays as it is
        if isinstance(func, types.MethodType):
            self._lead, self._target = (func.__self__,), func.__func__
        try:
            functools.update_wrapper(self, func)
        except AttributeError:
            pass

    def __reduce__(self):
        # what another process (a Dask worker) needs: the function and the options
        return pickling.reduce(self, _VMapped, dict(
            func=self.func, in_axes=self.in_axes, out_axes=self.out_axes,
            fallback=self.fallback, chunk_size=self.chunk_size, cache_dir=self.cache_dir),
            self.func)

    def source(self, *args) -> str:
        if wants_dask(args):   # what each block of a Dask array runs
            args = block_stand_ins(args)[0]
        entry, _, size, _ = self._plan(args)
        return chunks.source_for(entry.spec, entry.tuning, size, self.chunk_size)

    def __call__(self, *args, **kwargs):
        if kwargs:
            raise TypeError("vmap'd functions take positional arguments only in this version")
        if wants_dask(args):   # a Dask array in: Dask arrays out, nothing computed
            from .dask_runtime import call_vmap
            return call_vmap(self, args)
        entry, call_args, size, batched = self._plan(args)
        spec = entry.spec
        if isinstance(spec, FallbackSpec) or spec.fallbacks:
            self._announce(spec.reason if isinstance(spec, FallbackSpec)
                           else "; ".join(spec.fallbacks), spec)
        if isinstance(spec, FallbackSpec):
            return self._loop(args, size)
        if backends.get(spec.backend).chunked_runs:
            out = chunks.run(spec, entry.tuning, call_args, batched, size, self.chunk_size,
                             _call)
        else:       # one call: the backend's library blocks and threads its own work
            out = spec.function(*call_args)
        return _place_outputs(out, spec.result, self.out_axes, size,
                              backends.get(spec.backend), call_args)

    def _plan(self, args):
        axes = self.in_axes
        if not isinstance(axes, (tuple, list)):
            axes = (axes,) * len(args)
        if len(axes) != len(args):
            raise ValueError(f"vmap in_axes must be an int, None, or a tuple of entries "
                             f"corresponding to the positional arguments passed to the "
                             f"function, but got len(in_axes)={len(axes)}, len(args)={len(args)}")
        sizes = []
        leaves = [_leaves(a, ax, f"args[{i}]", sizes) for i, (a, ax) in enumerate(zip(args,
                                                                                    axes))]
        if not sizes:
            raise ValueError("vmap must have at least one non-None value in in_axes")
        size = sizes[0][0]
        if any(s != size for s, _ in sizes):
            details = "\n".join(f"  {where} has shape {shape} and axis {ax} is to be mapped"
                                for _, (where, shape, ax) in sizes)
            raise ValueError("vmap got inconsistent sizes for array axes to be mapped:\n"
                             + details)
        backend = _backend_of(leaves)
        if not isinstance(self._target, types.FunctionType) or _library_function(
                self._target):
            wrapper = frontend.rule_wrapper(self._target, len(args), backend)
            if wrapper is None:
                return self._fallback(f"{self._name} is not a Python function with source"), \
                    None, size, None
            self._target, self._names = wrapper, None
        for dtype in _mapped_dtypes(leaves):
            if dtype.kind in "OUSVmM":
                if self.fallback == "error":
                    raise VectorizeError(f"cannot vmap `{self._name}` over an array of dtype "
                                         f"{dtype}", suggestion="pass numeric arrays, or "
                                                                "fallback='warn'")
                return self._fallback(f"an argument has dtype {dtype}"), None, size, None
        # the abstract values are made only when a specialization is built (`_leaves`)
        params, call_args, key = {}, [], []
        if self._names is None:
            import inspect
            parameters = inspect.signature(self._target).parameters
            self._names = list(parameters)
            self._defaults = {name: p.default for name, p in parameters.items()
                              if p.default is not p.empty}
        names = self._names
        for name, value in zip(names, self._lead):
            params[name] = functools.partial(Value, False, value)
            call_args.append(value)
            key.append(("lead", type(value)))
        passed = names[len(self._lead):len(self._lead) + len(args)]
        for name, (value, arg, k) in zip(passed, leaves):
            params[name] = value
            key.append(k)
            call_args.append(arg)
        for name in names[len(self._lead) + len(args):]:
            # not passed: its default, the same for every example (the generated function
            # has the original's defaults)
            if name in self._defaults:
                params[name] = functools.partial(exact, self._defaults[name])
        entry = self._specs.get_or_build(tuple(key), lambda: self._build(params, backend))
        return entry, call_args, size, [_batched(k) for k in key]

    def _fallback(self, reason: str):
        if self.fallback == "error":
            raise VectorizeError(f"cannot vmap `{self._name}`: {reason}",
                                 suggestion="vmap a plain `def` function, or pass "
                                            "fallback='warn'")
        return self._specs.get_or_build(("fallback", reason), lambda: Entry(FallbackSpec(
            reason, fallback_source(self.func, reason, "loop"))))

    def _build(self, params, backend):
        try:
            params = {name: make() for name, make in params.items()}
            return build(self._target, params, fallback=self.fallback,
                         title="Generated by vectorize.vmap", kind="loop", backend=backend,
                         cache_dir=self.cache_dir, explain=self._explain)
        except TypeError as exc:     # an argument the backend cannot represent (bfloat16)
            if self.fallback == "error":
                raise VectorizeError(f"cannot vmap `{self._name}`: {exc}",
                                     suggestion="pass a supported dtype, or fallback='warn'"
                                     ) from None
            return Entry(FallbackSpec(str(exc), fallback_source(self.func, str(exc), "loop")))

    def _loop(self, args, size):
        axes = self.in_axes if isinstance(self.in_axes, (tuple, list)) else (self.in_axes,) * len(
            args)
        be = backends.get(_backend_of_args(args))
        rows = []
        for n in range(size):
            rows.append(self.func(*[_take(a, ax, n, be) for a, ax in zip(args, axes)]))
        if rows and isinstance(rows[0], tuple):
            outs = tuple(be.stack([r[i] for r in rows]) for i in range(len(rows[0])))
            return tuple(be.moveaxis(o, 0, _axis(self.out_axes, i)) for i, o in enumerate(outs))
        return be.moveaxis(be.stack(rows), 0, _axis(self.out_axes, 0))


def _library_function(fn) -> bool:
    """A function of PyTorch itself (``torch.split`` is Python): mapped by its rule, never
    read as the user's code."""
    module = getattr(fn, "__module__", None) or ""
    if module == "torch" or module.startswith("torch."):
        return True
    torch = sys.modules.get("torch")     # a wrapper of torch's (`torch.func.grad(f)`)
    code = getattr(fn, "__code__", None)
    return torch is not None and code is not None and code.co_filename.startswith(
        os.path.dirname(torch.__file__) + os.sep)


def _call(function, args):
    return function(*args)


def _batched(key):
    """Whether the argument a leaf's cache key describes is mapped (a tuple of those for a
    tuple argument)."""
    if not key or isinstance(key[0], tuple):
        return tuple(_batched(k) for k in key)
    return key[0] == "b"


def _mapped_dtypes(leaves):
    """The dtypes of the mapped arrays, from the leaves' cache keys."""
    def walk(key):
        if isinstance(key, tuple) and key and key[0] == "b":
            try:
                yield np.dtype(key[1])
            except TypeError:       # another namespace's key: `example_of` checks dtypes
                pass
        elif isinstance(key, tuple):
            for part in key:
                if isinstance(part, tuple):
                    yield from walk(part)
    for _, _, key in leaves:
        yield from walk(key)


def _take(arg, axis, n, backend):
    if isinstance(arg, tuple):
        axes = axis if isinstance(axis, (tuple, list)) else (axis,) * len(arg)
        return tuple(_take(a, ax, n, backend) for a, ax in zip(arg, axes))
    if axis is None:
        return arg
    return backend.take(arg, n, axis)


def _backend_of_args(args) -> str:
    """The backend of a call: the first argument (or tuple item) that another backend
    claims decides; the default one (NumPy) otherwise."""
    for arg in args:
        name = _backend_of_args(arg) if isinstance(arg, (tuple, list)) else \
            backends.of_value(arg)
        if name is not None and name != backends.DEFAULT:
            return name
    return backends.DEFAULT


def _backend_of(leaves) -> str:
    return _backend_of_args([arg for _, arg, _ in leaves])


def _leaves(arg, axis, where, sizes):
    """(a function making its abstract value, argument for the generated code, key) of one
    argument (the abstract value is needed only to build a specialization, not on every
    call)."""
    if isinstance(arg, (tuple, list)) and not isinstance(axis, int) or (
            isinstance(arg, tuple) and axis is not None):
        axes = axis if isinstance(axis, (tuple, list)) else (axis,) * len(arg)
        if len(axes) != len(arg):
            raise ValueError(f"vmap in_axes for {where} has {len(axes)} entries but the "
                             f"argument has {len(arg)}")
        parts = [_leaves(a, ax, f"{where}[{i}]", sizes) for i, (a, ax) in
                 enumerate(zip(arg, axes))]
        return (lambda: TupleValue(tuple(p[0]() for p in parts)), tuple(p[1] for p in parts),
                tuple(p[2] for p in parts))
    backend = backends.of_value(arg)
    if backend is not None:
        return _foreign_leaf(arg, axis, where, sizes, backends.get(backend))
    if axis is None:
        if isinstance(arg, np.ndarray):
            return (lambda: Value(False, representative(arg))), arg, ("u", arg.dtype.char,
                                                                    arg.ndim)
        if specialized_on(arg):       # None, a bool, a short string: known by its value
            return (lambda: Value(False, arg, True)), arg, ("u", as_is_key(arg))
        if type(arg) is int:
            # a Python int passed as it is: a dim, a size, a count (as torch.func and JAX
            # take it: by value, not traced), so the code is specialized on it
            return (lambda: Value(False, arg, True)), arg, ("u", "int", arg)
        if isinstance(arg, (int, float, complex)):
            return (lambda: Value(False, type(arg)(1))), arg, ("u", type(arg).__name__)
        return (lambda: Value(False, arg)), arg, ("u", type(arg).__name__)
    arr = np.asarray(arg)
    if not isinstance(axis, int):
        raise ValueError(f"vmap in_axes entries must be int or None, got {axis!r}")
    if arr.ndim == 0:
        raise ValueError(f"vmap was requested to map {where} along axis {axis}, which "
                         f"implies that its rank should be at least {axis + 1}, but is only 0 "
                         f"(its shape is ())")
    if not -arr.ndim <= axis < arr.ndim:
        raise ValueError(f"vmap in_axes {axis} is out of bounds for {where} of shape "
                         f"{arr.shape}")
    axis %= arr.ndim
    sizes.append((arr.shape[axis], (where, arr.shape, axis)))
    moved = np.moveaxis(arr, axis, 0) if axis else arr
    return (lambda: Value(True, np.ones(moved.shape[1:], arr.dtype)[()])), moved, \
        ("b", arr.dtype.char, arr.ndim)


def _foreign_leaf(arg, axis, where, sizes, backend):
    """`_leaves` of another namespace's array (a torch tensor): moved, never converted."""
    key = backend.dtype_key(arg)
    if axis is None:
        return (lambda: Value(False, backend.example_of(arg, batched=False))), arg, \
            ("u", key, arg.ndim)
    if not isinstance(axis, int):
        raise ValueError(f"vmap in_axes entries must be int or None, got {axis!r}")
    shape = tuple(arg.shape)
    if not shape:
        raise ValueError(f"vmap was requested to map {where} along axis {axis}, which "
                         f"implies that its rank should be at least {axis + 1}, but is only 0 "
                         f"(its shape is ())")
    if not -len(shape) <= axis < len(shape):
        raise ValueError(f"vmap in_axes {axis} is out of bounds for {where} of shape {shape}")
    axis %= len(shape)
    sizes.append((shape[axis], (where, shape, axis)))
    moved = backend.moveaxis(arg, axis, 0) if axis else arg
    return (lambda: Value(True, backend.example_of(moved, batched=True))), moved, \
        ("b", key, len(shape))


def _axis(out_axes, i):
    if isinstance(out_axes, (tuple, list)):
        return out_axes[i]
    return out_axes


def _place_outputs(out, result, out_axes, size, backend, call_args):
    if isinstance(result, TupleValue):
        return tuple(_place(o, r, _axis(out_axes, i), size, backend, call_args)
                     for i, (o, r) in enumerate(zip(out, result.items)))
    return _place(out, result, out_axes, size, backend, call_args)


def _place(out, result, axis, size, backend, call_args):
    arr = backend.as_result(out)
    # a batched result can still come back without its batch axis on a path that returned an
    # unbatched value (an `if` on an unbatched test): broadcast it like an unbatched one
    if arr is None or not getattr(result, "batched", False) or arr.ndim <= result.rank:
        if axis is None and not getattr(result, "batched", False):
            return out
        like = next((a for a in call_args if backend.claims(a)), None)
        arr = backend.broadcast_batch(out, size, like)
    elif axis is None:
        raise ValueError("vmap has mapped output but out_axes is None")
    if axis:
        arr = backend.moveaxis(arr, 0, axis)
    return arr
