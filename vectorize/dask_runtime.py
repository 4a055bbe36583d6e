"""Running vectorized functions over Dask arrays: one call of the batched NumPy code per
chunk of the batch axis, scheduled by Dask itself.

A callable that `vectorize` or `vmap` made, called with a ``dask.array.Array`` argument,
returns Dask arrays built with ``dask.array.apply_gufunc`` (that is ``blockwise`` over the
loop dimensions) instead of NumPy arrays; nothing is computed until the user asks
(``.compute()``, ``dask.compute``, ``.persist()``). `map_vectorized` and `map_vmapped` do the
same for a plain NumPy function with numpy.vectorize's or vmap's calling convention: the
functions ``python -m vectorize`` writes into a file.

- **Chunks.** Each task calls the vectorized callable itself on NumPy blocks, so a block
  gives what an eager call on it gives. The batch (loop) dimensions keep the caller's chunks;
  the core dimensions (``signature=``'s, or the per-example axes of ``vmap``) are put into
  one chunk where they are not (``apply_gufunc(..., allow_rechunk=True)``, which makes the
  loop chunks smaller to keep blocks about as big).
- **Shared arguments** (`excluded`, ``in_axes=None``, scalars, NumPy arrays without loop
  dimensions) are not inputs of the blockwise operation: each is one node of the graph (a
  ``dask.delayed`` value, small numbers inline), which every task reads, so a worker receives
  it once, not once per task. So is the vectorized callable: a worker loads it once and its
  tasks share its specializations (`vectorize.pickling`).
- **dtype and shape without computing.** The outputs' dtypes and core shapes come from one
  call on zero-length stand-ins of the arguments (the generated code runs on empty batches;
  no user data is read); where that raises (a piece that runs per example cannot tell the
  type of an empty batch, as ``numpy.vectorize`` cannot without ``otypes``), from the
  abstract result of the specialization, and otherwise the call asks for ``otypes``. Each
  task checks that its block has the dtype declared.
- **One thread per task.** Dask runs tasks on its own threads or processes, so the chunks of a
  task run on its thread only (`vectorize.chunks` uses no threads of its own in a task).

Dask is imported only when an argument is a Dask collection (`wants_dask` looks at the type's
module name, without importing anything).
"""

from __future__ import annotations

import re

import numpy as np

from . import chunks

_SCALARS = (bool, int, float, complex, str, bytes, type(None), np.generic)


def is_dask(value) -> bool:
    """Whether ``value`` is a Dask collection (by its type's module: nothing is imported)."""
    return type(value).__module__.startswith("dask")


def wants_dask(args, kwargs=None) -> bool:
    """Whether any argument (or item of a tuple or list argument) is a Dask collection."""
    for a in args:
        if is_dask(a) or (type(a) in (tuple, list) and wants_dask(a)):
            return True
    return bool(kwargs) and wants_dask(tuple(kwargs.values()))


# --------------------------------------------------------------------------- front ends
def call_vectorize(vec, args, kwargs):
    """``vec(*args, **kwargs)`` (an `api.vectorize`) where an argument is a Dask array."""
    def abstract(stand_args, stand_kwargs):
        return _abstract_outputs(vec._entry(stand_args, stand_kwargs))
    return _map_vectorized(vec, args, kwargs, signature=vec.signature, excluded=vec.excluded,
                           otypes=vec.otypes, cast=False, abstract=abstract,
                           name=getattr(vec, "__name__", "vectorized"))


def call_vmap(vmapped, args):
    """``vmapped(*args)`` (a `vmap._VMapped`) where an argument is a Dask array."""
    def abstract(stand_args):
        return _abstract_outputs(vmapped._plan(stand_args)[0])
    return _map_vmapped(vmapped, args, vmapped.in_axes, vmapped.out_axes, abstract=abstract,
                        name=getattr(vmapped, "__name__", "vmapped"))


def map_vectorized(func, *args, signature=None, excluded=None, otypes=None, **kwargs):
    """``func(*args, **kwargs)`` over Dask arrays, for a NumPy function with numpy.vectorize's
    calling convention: it broadcasts its arguments' loop dimensions (the leading ones; with
    ``signature=`` the last ones are core dimensions) and returns arrays of the loop shape
    (a tuple of them for several outputs), as the functions ``python -m vectorize`` writes
    for ``@vectorize`` do. ``excluded`` (positions or names) and ``otypes`` as in
    ``numpy.vectorize``. Returns Dask arrays; nothing is computed."""
    if not callable(func):
        raise TypeError(f"map_vectorized expects a function, got {type(func).__name__}")
    return _map_vectorized(func, args, kwargs, signature=signature,
                           excluded=set(excluded or ()), otypes=otypes, cast=True,
                           abstract=None, name=getattr(func, "__name__", "vectorized"))


def map_vmapped(func, *args, in_axes=0, out_axes=0):
    """``func(*args)`` over Dask arrays, for a NumPy function with vmap's calling convention:
    ``func`` takes the whole batch along axis ``in_axes`` of each argument (``None``: not
    mapped; one entry per argument, nested for tuple arguments) and returns its outputs with
    the batch axis at ``out_axes``, as the functions ``python -m vectorize`` writes for
    ``@vmap`` do (pass the mark's ``in_axes`` and ``out_axes``). Returns Dask arrays;
    nothing is computed."""
    if not callable(func):
        raise TypeError(f"map_vmapped expects a function, got {type(func).__name__}")
    return _map_vmapped(func, args, in_axes, out_axes, abstract=None,
                        name=getattr(func, "__name__", "vmapped"))


def block_stand_ins(args, kwargs=None):
    """The arguments with each Dask array replaced by a NumPy array of the shape and dtype of
    its first block (a read-only view of one zero: no memory), for ``.source()``: the code
    each task runs."""
    def stand_in(a):
        if type(a) in (tuple, list):
            return type(a)(stand_in(x) for x in a)
        if not is_dask(a) or not hasattr(a, "chunks"):
            return a
        shape = tuple(c[0] if c else 0 for c in a.chunks)
        return np.broadcast_to(np.zeros((), a.dtype), shape)
    return (tuple(stand_in(a) for a in args),
            {k: stand_in(v) for k, v in (kwargs or {}).items()})


# ------------------------------------------------------------------ numpy.vectorize's way
def _map_vectorized(func, args, kwargs, *, signature, excluded, otypes, cast, abstract,
                    name):
    da = _dask_array()
    from .gufunc import parse_signature, update_dim_sizes
    in_dims = out_dims = None
    if signature is not None:
        in_dims, out_dims = parse_signature(signature)
    n_inputs = sum(1 for i in range(len(args)) if i not in excluded) + sum(
        1 for k in kwargs if k not in excluded)
    if in_dims is not None and n_inputs != len(in_dims):
        raise TypeError("wrong number of positional arguments: "
                        f"expected {len(in_dims)!r}, got {n_inputs!r}")
    inputs, dims, shared, stand_shared = [], [], [], []
    dim_sizes: dict = {}
    loop_shapes = []
    counter = iter(range(n_inputs))

    def slot(value, key):
        if key in excluded:
            return _share(value, shared, stand_shared)
        core = in_dims[next(counter)] if in_dims is not None else ()
        if is_dask(value):
            arr = _dask_input(value, da)
        else:
            arr = None if isinstance(value, _SCALARS) else np.asanyarray(value)
        shape = () if arr is None else arr.shape
        n_loop = len(shape) - len(core)
        if any(n != n for n in shape[max(n_loop, 0):]):
            raise ValueError(f"the core dimensions {core!r} of a Dask array argument of shape "
                             f"{shape} must have known sizes (call .compute_chunk_sizes())")
        update_dim_sizes(dim_sizes, shape, core)      # numpy.vectorize's errors
        if arr is None or (n_loop == 0 and not is_dask(arr)):
            return _share(value, shared, stand_shared)     # no loop dimension: whole
        loop_shapes.append(shape[:n_loop])
        inputs.append(arr)
        dims.append(core)
        return ("in", len(inputs) - 1)

    positional = tuple(slot(a, i) for i, a in enumerate(args))
    keywords = tuple((k, slot(v, k)) for k, v in kwargs.items())
    if not inputs:
        raise TypeError(f"`{name}` got Dask arrays only in excluded arguments; pass the "
                        "batched arguments as arrays")
    if all(not any(n != n for n in s) for s in loop_shapes):
        np.broadcast_shapes(*loop_shapes)     # numpy's error where they do not broadcast
    block = _Block(name, "vectorize", (positional, keywords), otypes if cast else None)

    # dtypes and core shapes of the outputs, from zero-length stand-ins (no data is read)
    # (at least one loop dimension, of size 0, so that no example runs: not even one of
    # 0-d arrays, whose values np.empty would leave unset)
    n_loop = max(a.ndim - len(d) for a, d in zip(inputs, dims))
    stand_ins = [np.empty((0,) * max(a.ndim - len(d), n_loop == 0) +
                          tuple(a.shape[a.ndim - len(d):]), a.dtype) for a, d in zip(inputs, dims)]
    try:
        outs = block.run(func, stand_ins, stand_shared)
        single = not isinstance(outs, tuple)
        metas = [(np.asarray(o).dtype, np.shape(o)[max(n_loop, 1):])
                 for o in ((outs,) if single else outs)]
    except Exception as exc:   # noqa: BLE001 -- the abstract result decides, else an error
        metas = None
        if abstract is not None:
            two = [np.broadcast_to(np.zeros((), s.dtype), (2,) * (s.ndim - len(d)) +
                                   s.shape[s.ndim - len(d):]) for s, d in zip(stand_ins, dims)]
            stand_args, stand_kwargs = block.arguments(two, stand_shared)
            try:
                metas = abstract(stand_args, stand_kwargs)
            except Exception:   # noqa: BLE001 -- the error below says what to do
                metas = None
        if metas is None:
            raise ValueError(
                f"cannot tell the dtype of what `{name}` returns for Dask arrays without "
                f"computing: it raised on an empty batch ({type(exc).__name__}: {exc}); "
                "pass otypes=[...]") from exc
        metas, is_tuple = metas
        single = len(out_dims) == 1 if out_dims is not None else not is_tuple
        if otypes:
            metas = [(np.dtype(otypes[i] if i < len(otypes) else otypes[0]), shape)
                     for i, (_, shape) in enumerate(metas)]
    if out_dims is not None:
        out_names = [tuple(d) for d in out_dims[:len(metas)]]
    else:
        out_names = [tuple(f"vz_out{i}_{k}" for k in range(len(shape)))
                     for i, (_, shape) in enumerate(metas)]
    output_sizes = {}
    for names, (_, shape) in zip(out_names, metas):
        if len(names) != len(shape):
            raise ValueError(f"`{name}` returns arrays of core shape {shape} for Dask "
                             f"arrays, which do not fit the signature {signature!r}")
        for dim, size in zip(names, shape):
            if dim not in dim_sizes:
                output_sizes[dim] = size
    block.dtypes = tuple(dtype for dtype, _ in metas)
    gufunc = ",".join(f"({','.join(d)})" for d in dims) + "->" + ",".join(
        f"({','.join(d)})" for d in out_names)
    meta = tuple(np.empty((0,) * (n_loop + len(shape)), dtype) for dtype, shape in metas)
    result = da.apply_gufunc(block, gufunc, *inputs, meta=meta[0] if single else meta,
                             output_sizes=output_sizes, allow_rechunk=True,
                             _vz_fn=_node(func, name), _vz_shared=tuple(shared))
    return result


# -------------------------------------------------------------------------------- vmap's way
def _map_vmapped(func, args, in_axes, out_axes, *, abstract, name):
    da = _dask_array()
    axes = in_axes if isinstance(in_axes, (tuple, list)) else (in_axes,) * len(args)
    if len(axes) != len(args):
        raise ValueError(f"vmap in_axes must be an int, None, or a tuple of entries "
                         f"corresponding to the positional arguments passed to the "
                         f"function, but got len(in_axes)={len(axes)}, len(args)={len(args)}")
    inputs, shared, stand_shared, sizes = [], [], [], []
    template = tuple(_vmap_leaf(a, ax, f"args[{i}]", inputs, shared, stand_shared, sizes, da)
                     for i, (a, ax) in enumerate(zip(args, axes)))
    if not sizes:
        raise ValueError("vmap must have at least one non-None value in in_axes")
    known = [s for s, _ in sizes if s == s]     # (an unknown size, NaN: Dask checks it)
    if any(s != known[0] for s in known):
        details = "\n".join(f"  {where} has shape {shape} and axis {ax} is to be mapped"
                            for _, (where, shape, ax) in sizes)
        raise ValueError("vmap got inconsistent sizes for array axes to be mapped:\n" + details)
    if out_axes is None or isinstance(out_axes, (tuple, list)) and None in out_axes:
        raise ValueError("vmap's out_axes=None (an output the same for every example) is not "
                         "supported for Dask arrays: pass an int")
    block = _Block(name, "vmap", template, None)     # (out_axes None: outputs as placed)
    stand_ins = [np.empty((0,) + a.shape[1:], a.dtype) for a in inputs]
    try:
        outs = block.run(func, stand_ins, stand_shared)
        single = not isinstance(outs, tuple)
        outs = (outs,) if single else outs
        metas = []
        for i, o in enumerate(outs):
            o = np.asarray(o)
            axis = _out_axis(out_axes, i)
            metas.append((o.dtype, np.moveaxis(o, axis, 0).shape[1:]))
    except Exception as exc:  # noqa: BLE001 -- the abstract result decides, else an error
        metas = None
        if abstract is not None:
            two = [np.broadcast_to(np.zeros((), s.dtype), (2,) + s.shape[1:]) for s in stand_ins]
            try:
                metas = abstract(block.arguments(two, stand_shared)[0])
            except Exception:   # noqa: BLE001 -- the error below says what to do
                metas = None
        if metas is None:
            raise ValueError(
                f"cannot tell the dtype of what `{name}` returns for Dask arrays without "
                f"computing: it raised on an empty batch ({type(exc).__name__}: {exc})"
                ) from exc
        metas, is_tuple = metas
        single = not is_tuple
    block.out_axes = tuple(_out_axis(out_axes, i) for i in range(len(metas)))
    block.dtypes = tuple(dtype for dtype, _ in metas)
    in_names = [tuple(f"vz_in{k}_{d}" for d in range(a.ndim - 1)) for k, a in enumerate(inputs)]
    out_names = [tuple(f"vz_out{i}_{d}" for d in range(len(shape)))
                 for i, (_, shape) in enumerate(metas)]
    output_sizes = {dim: n for names, (_, shape) in zip(out_names, metas)
                    for dim, n in zip(names, shape)}
    gufunc = ",".join(f"({','.join(d)})" for d in in_names) + "->" + ",".join(
        f"({','.join(d)})" for d in out_names)
    meta = tuple(np.empty((0,) * (1 + len(shape)), dtype) for dtype, shape in metas)
    result = da.apply_gufunc(block, gufunc, *inputs, meta=meta[0] if single else meta,
                             output_sizes=output_sizes, allow_rechunk=True,
                             _vz_fn=_node(func, name), _vz_shared=tuple(shared))
    outs = (result,) if single else result
    outs = tuple(da.moveaxis(o, 0, axis) if axis else o
                 for o, axis in zip(outs, block.out_axes))
    return outs[0] if single else outs


def _out_axis(out_axes, i):
    return out_axes[i] if isinstance(out_axes, (tuple, list)) else out_axes


def _vmap_leaf(arg, axis, where, inputs, shared, stand_shared, sizes, da):
    """The template of one argument of a vmap call (``("in", k, axis)``: the k-th input,
    whose block comes batch first and goes back to ``axis``; ``("shared", j)``; or a tuple
    or list of those), as vmap's own `vmap._leaves` reads it."""
    if isinstance(arg, (tuple, list)) and not isinstance(axis, int) or (
            isinstance(arg, tuple) and axis is not None):
        axes = axis if isinstance(axis, (tuple, list)) else (axis,) * len(arg)
        if len(axes) != len(arg):
            raise ValueError(f"vmap in_axes for {where} has {len(axes)} entries but the "
                             f"argument has {len(arg)}")
        return (type(arg).__name__, tuple(
            _vmap_leaf(a, ax, f"{where}[{i}]", inputs, shared, stand_shared, sizes, da)
            for i, (a, ax) in enumerate(zip(arg, axes))))
    if axis is None:
        return _share(arg, shared, stand_shared)
    if not isinstance(axis, int):
        raise ValueError(f"vmap in_axes entries must be int or None, got {axis!r}")
    arr = _dask_input(arg, da) if is_dask(arg) else np.asarray(arg)
    if arr.ndim == 0:
        raise ValueError(f"vmap was requested to map {where} along axis {axis}, which "
                         f"implies that its rank should be at least {axis + 1}, but is only 0 "
                         f"(its shape is ())")
    if not -arr.ndim <= axis < arr.ndim:
        raise ValueError(f"vmap in_axes {axis} is out of bounds for {where} of shape "
                         f"{arr.shape}")
    axis %= arr.ndim
    if any(n != n for i, n in enumerate(arr.shape) if i != axis):
        raise ValueError(f"the per-example axes of {where} (shape {arr.shape}) must have known "
                         "sizes (call .compute_chunk_sizes())")
    sizes.append((arr.shape[axis], (where, arr.shape, axis)))
    moved = (da.moveaxis(arr, axis, 0) if is_dask(arr) else np.moveaxis(arr, axis, 0)) \
        if axis else arr
    inputs.append(moved)
    return ("in", len(inputs) - 1, axis)


# ------------------------------------------------------------------------------ the tasks
class _Block:
    """What each task calls: the vectorized function (``_vz_fn``, one node of the graph) on
    its blocks and the shared values (``_vz_shared``), in the layout of the original call;
    checks that each output has the dtype declared for the Dask array."""

    def __init__(self, name, mode, layout, otypes):
        self.__name__ = re.sub(r"\W", "_", name) or "vectorized"   # the tasks' key prefix
        self.mode = mode
        self.layout = layout
        self.otypes = otypes
        self.dtypes = None
        self.out_axes = None

    def __dask_tokenize__(self):
        return ("vectorize-block", self.__name__, self.mode, repr(self.layout),
                repr(self.otypes), repr(self.dtypes), repr(self.out_axes))

    def __call__(self, *blocks, _vz_fn, _vz_shared):
        out = self.run(_vz_fn, blocks, _vz_shared)
        single = not isinstance(out, tuple)
        outs = (out,) if single else out
        for i, (o, dtype) in enumerate(zip(outs, self.dtypes)):
            if np.asarray(o).dtype != dtype:
                raise TypeError(
                    f"`{self.__name__}` returned a block of dtype {np.asarray(o).dtype} for "
                    f"output {i}, not {dtype} as it did for an empty batch, which the Dask "
                    "array declares; pass otypes=[...] to fix the dtype")
        return out

    def arguments(self, blocks, shared):
        """(positional arguments, keyword arguments) of the call for these blocks."""
        if self.mode == "vectorize":
            positional, keywords = self.layout
            return ([_fill(s, blocks, shared) for s in positional],
                    {k: _fill(s, blocks, shared) for k, s in keywords})
        return [_fill(s, blocks, shared) for s in self.layout], {}

    def run(self, fn, blocks, shared):
        args, kwargs = self.arguments(blocks, shared)
        with chunks.single_threaded():
            out = fn(*args, **kwargs)
        if self.mode == "vectorize":
            if self.otypes:
                if isinstance(out, tuple):
                    out = tuple(np.asarray(o).astype(self.otypes[i if i < len(self.otypes)
                                                                 else 0], copy=False)
                                for i, o in enumerate(out))
                else:
                    out = np.asarray(out).astype(self.otypes[0], copy=False)
            return out
        if self.out_axes is None:
            return out
        if isinstance(out, tuple):       # the batch axis first, as apply_gufunc wants it
            return tuple(np.moveaxis(np.asarray(o), axis, 0) if axis else np.asarray(o)
                         for o, axis in zip(out, self.out_axes))
        axis = self.out_axes[0]
        return np.moveaxis(np.asarray(out), axis, 0) if axis else np.asarray(out)


def _fill(slot, blocks, shared):
    kind = slot[0]
    if kind == "in":
        block = blocks[slot[1]]
        axis = slot[2] if len(slot) > 2 else 0
        return np.moveaxis(block, 0, axis) if axis else block
    if kind == "shared":
        return shared[slot[1]]
    items = [_fill(s, blocks, shared) for s in slot[1]]
    return tuple(items) if kind == "tuple" else list(items)


# -------------------------------------------------------------------------------- helpers
def _dask_array():
    import dask.array as da
    return da


def _dask_input(value, da):
    if not isinstance(value, da.Array):
        raise TypeError(f"vectorized functions take Dask arrays, not "
                        f"{type(value).__module__}.{type(value).__name__}; convert it with "
                        "dask.array.from_delayed, .to_dask_array() or .values")
    return value


def _share(value, shared, stand_shared):
    """The slot of a value passed whole to every task: small numbers and strings inline,
    anything else one node of the graph (a Dask array: its whole value, computed once)."""
    if is_dask(value):
        _dask_input(value, _dask_array())      # an array (its stand-in needs a shape)
    shared.append(_node(value) if not isinstance(value, _SCALARS) and not is_dask(value)
                  else value)
    if is_dask(value):
        # the stand-in of its value for the empty call: zeros of its shape and dtype
        stand_shared.append(np.broadcast_to(np.zeros((), value.dtype), value.shape))
    else:
        stand_shared.append(value)
    return ("shared", len(shared) - 1)


def _node(value, name=None):
    """``value`` as one node of the graph (tasks read it; a worker gets it once)."""
    import dask
    if name is not None and type(value).__module__.startswith("vectorize."):
        # a callable of ours: named by its token (tokenizing would pickle it)
        from .pickling import token
        key = f"{re.sub(r'[^A-Za-z0-9_]', '_', name)}_vectorized-{token(value)}"
        return dask.delayed(value, name=key, pure=True)
    return dask.delayed(value, pure=True)


def _abstract_outputs(entry):
    """([(dtype, per-example shape)] of the outputs, whether they are a tuple) of a
    specialization (`frontend.Entry`), from its abstract result; None where it has none (a
    function that runs per example)."""
    from .abstract import TupleValue
    spec = getattr(entry, "spec", None)
    result = getattr(spec, "result", None)
    if result is None:
        return None
    items = result.items if isinstance(result, TupleValue) else (result,)
    metas = []
    for item in items:
        dtype = getattr(item, "dtype", None)
        if dtype is None or dtype.kind == "O":
            return None
        metas.append((dtype, np.shape(item.example)))
    return metas, isinstance(result, TupleValue)
