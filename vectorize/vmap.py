"""``vmap(func, in_axes=0, out_axes=0)`` with JAX / ``torch.func`` semantics.

Arguments and results are pytrees (`vectorize.pytree`: tuples, lists, dicts, namedtuples);
``in_axes`` / ``out_axes`` are tree prefixes of them. Keyword arguments at call time are
passed as they are (not mapped, as in ``torch.func.vmap``). ``func`` may be a function, a
bound method, a ``functools.partial`` (its arguments are not mapped) or another vmapped
function: ``vmap(vmap(f))`` maps ``f`` over both axes at once, as one batched call with the
two batch axes flattened into one (`vectorize.vmap_nested`). A vmapped function called
inside a vmapped function is batched by the rule of `vectorize.rules.nested`.
"""

from __future__ import annotations

import functools
import math
import threading
import types
from collections import OrderedDict

import numpy as np

from . import backends, chunks, codegen, pickling, vmap_options, vmap_replays
from .abstract import TupleValue, Value, exact, representative
from .backends.base import Backend
from .chunks import check_chunk_size
from .dask_runtime import block_stand_ins, wants_dask
from .errors import BackendFailure, VectorizeError
from .frontend import (
    MISSING,
    Announcer,
    Entry,
    FallbackSpec,
    SpecCache,
    as_is_key,
    build,
    check_backend,
    check_cache_dir,
    check_fallback,
    compiled_plan,
    fallback_source,
    guard_checks,
    rule_wrapper,
    specialized_on,
)
from .introspect import python_function_of
from .pytree import (
    PrefixError,
    broadcast_prefix,
    describe,
    flatten,
    freeze,
    is_node,
    items_of,
    keys_of,
    leaves_of_spec,
    rebuild,
    unflatten,
)
from .vmap_axes import (
    Where,
    call_error,
    inconsistent_sizes,
    normal_axis,
    out_axes_of,
    user_location,
)
from .vmap_grad import call_grad, grad_transform
from .vmap_options import UNSET as _UNSET
from .vmap_vectorize import call_vectorized, is_vectorized


class VmapTypeError(VectorizeError, TypeError):
    """An argument of `vmap` or of a vmapped call of the wrong type (a `VectorizeError`
    that is a ``TypeError`` too, as JAX and torch.func raise it)."""


def vmap(func=None, in_axes=0, out_axes=0, *, fallback="error", chunk_size="auto",
         cache_dir=None, in_dims=_UNSET, out_dims=_UNSET, randomness="different",
         axis_size=None, axis_name=None, backend=None):
    """Map ``func`` over axis ``in_axes`` of its arguments (``None``: not mapped; a tuple gives
    one entry per positional argument, a tree prefix of the argument, as in JAX: an int or
    None for a whole tuple, list, dict or namedtuple argument, or a container of entries of
    the same type) and put the batch axis of each output at ``out_axes`` (a tree prefix of the
    result). Keyword arguments at call time are not mapped (as in ``torch.func.vmap``).
    Without ``func`` it is a decorator: ``@vmap(in_axes=(0, None))``.

    ``chunk_size``: lanes per call of the generated code on a large batch (see
    `vectorize.chunks`): ``"auto"`` picks it, ``None`` runs the whole batch in one call
    (``torch.vmap``'s default), an int is the lanes per call. Chunks of code without shared
    state run on ``VECTORIZE_NUM_THREADS`` threads (default: the CPUs, at most 8).

    ``cache_dir``: a directory where generated code is kept for the next processes
    (`vectorize.diskcache`); ``None`` (default): the ``VECTORIZE_CACHE_DIR`` environment
    variable's, else none; ``True``: ``~/.cache/vectorize``; ``False``: none.

    ``torch.func.vmap``'s and JAX's spellings and options (`vectorize.vmap_options`):
    ``in_dims`` / ``out_dims`` are ``in_axes`` / ``out_axes``; ``randomness``:
    ``"different"`` (the default: every example draws its own numbers) or ``"error"``
    (a function that draws is refused); ``axis_size``: the batch size where no argument is
    mapped (JAX), checked against the mapped ones otherwise; ``axis_name``: accepted (JAX's
    name for collectives, which NumPy has none of).

    ``backend``: the array namespace the generated code is written for, ``"numpy"``,
    ``"torch"`` or ``"jax"``; None (default): chosen from the arguments (a ``torch.Tensor``
    or a ``jax.Array`` picks its library, anything else NumPy). NumPy arrays passed to a
    function vmapped for another backend are converted, and the results converted back:
    NumPy in, NumPy out (``docs/jax.md``)."""
    check_fallback(fallback)
    check_cache_dir(cache_dir)
    check_backend(backend)
    in_axes, out_axes = vmap_options.spelled(in_axes, out_axes, in_dims, out_dims)
    options = vmap_options.Options.checked(randomness, axis_size, axis_name)
    in_axes = _checked_in_axes(in_axes)
    _check_out_axes(out_axes)
    if func is None:
        return lambda f: vmap(f, in_axes, out_axes, fallback=fallback, chunk_size=chunk_size,
                              cache_dir=cache_dir, randomness=randomness,
                              axis_size=axis_size, axis_name=axis_name, backend=backend)
    made = _VMapped(func, in_axes, out_axes, fallback, check_chunk_size(chunk_size),
                    check_cache_dir(cache_dir), backend)
    made._options = options
    made._explain = randomness == "error"     # the draws' lines (`refuse_draws`)
    return made


def cached_vmap(func, in_axes=0, out_axes=0, *, fallback="error", chunk_size="auto",
                cache_dir=None, in_dims=_UNSET, out_dims=_UNSET, **peer_options):
    """`vmap`, the same object again for the same function and options (the last few
    hundred kept): what generated code calls a vmapped function on per-example values with
    (`vectorize.rules.nested` writes ``vmap(vmap(h))(x)``, run on every call of the batched
    function), so that its specializations stay warm. A lambda that closes over nothing
    (`passes.inner_lambdas` makes them) is the same function each time its code runs."""
    in_axes, out_axes = vmap_options.spelled(in_axes, out_axes, in_dims, out_dims)
    same = func
    if isinstance(func, types.FunctionType) and func.__closure__ is None and \
            func.__name__ == "<lambda>":
        same = (func.__code__, id(func.__globals__), func.__defaults__)
    try:
        key = (same, freeze(_checked_in_axes(in_axes)), freeze(out_axes), fallback,
               chunk_size, cache_dir, tuple(sorted(peer_options.items())))
        hash(key)
    except TypeError:
        return vmap(func, in_axes, out_axes, fallback=fallback, chunk_size=chunk_size,
                    cache_dir=cache_dir, **peer_options)
    with _MEMO_LOCK:
        made = _MEMO.get(key)
        if made is not None:
            _MEMO.move_to_end(key)
            return made
    made = vmap(func, in_axes, out_axes, fallback=fallback, chunk_size=chunk_size,
                cache_dir=cache_dir, **peer_options)
    with _MEMO_LOCK:
        _MEMO[key] = made
        while len(_MEMO) > _MEMO_SIZE:
            _MEMO.popitem(last=False)
    return made


cached_vmap.__name__ = cached_vmap.__qualname__ = "vmap"


_MEMO: OrderedDict = OrderedDict()
_MEMO_SIZE = 256
_MEMO_LOCK = threading.Lock()


def _checked_in_axes(in_axes):
    """``in_axes`` as JAX takes it (a list at the top is a tuple); TypeError where it is not
    an int, None or a tuple of tree prefixes whose leaves are ints or None."""
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    if isinstance(in_axes, bool) or not (in_axes is None or isinstance(in_axes, (int, tuple))):
        raise VmapTypeError(
            "vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
            f"positional arguments passed to the function, but got {in_axes!r}.",
            **user_location(), suggestion="write in_axes=0, in_axes=None or a tuple with "
                                           "one entry per positional argument")
    _check_leaves(in_axes, "in_axes")
    return in_axes


def _check_out_axes(out_axes) -> None:
    _check_leaves(out_axes, "out_axes")


def _check_leaves(spec, what: str) -> None:
    for leaf in leaves_of_spec(spec):
        if leaf is not None and (isinstance(leaf, bool) or not isinstance(leaf, int)):
            raise VmapTypeError(
                f"vmap {what} must be an int, None, or (nested) container with those types "
                f"as leaves, but got {spec!r}.", **user_location(),
                suggestion=f"give {what} as ints (axes) and None (not mapped) only")


class _VMapped:
    def __init__(self, func, in_axes, out_axes, fallback, chunk_size="auto", cache_dir=None,
                 backend=None):
        if not callable(func):
            raise TypeError(f"vmap expects a function, got {type(func).__name__}")
        self.func = func
        self.in_axes = _checked_in_axes(in_axes)
        _check_out_axes(out_axes)
        self.out_axes = out_axes
        self.fallback = fallback
        self.chunk_size = chunk_size
        self.cache_dir = cache_dir
        self.backend = backend      # None: chosen from the arguments
        self._specs = SpecCache()
        self._explain = False   # record which rule rewrote which line (`vectorize.explain`)
        self._name = _name_of(func)
        self._announce = Announcer(fallback, f"vectorize.vmap: {self._name}")
        # a bound method maps over the arguments after `self`, a partial over those after its
        # own: both stay as they are (`_lead`, `_bound`: not mapped)
        self._lead = ()
        self._bound: dict = {}
        self._names = None      # the target's parameter names, read on the first call
        self._defaults: dict = {}   # ... and the defaults of those that have one
        self._varargs = None    # the name of its *args parameter, if any
        self._varkw = None      # ... and of its **kwargs one (empty: `_params` refuses others)
        self._n_positional = 0  # how many parameters it takes positionally (not *args)
        self._target = func = python_function_of(func)     # numba's: the Python source
        call = next((vars(k)["__call__"] for k in type(func).__mro__
                     if "__call__" in vars(k)), None)
        if not isinstance(func, (types.FunctionType, types.MethodType, type, functools.partial,
                                 _VMapped)) and isinstance(call, types.FunctionType) \
                and not backends.owns_instance(func) and not is_vectorized(func):
            # a callable instance: `self` stays as it is
            self._target = types.MethodType(call, func)
        while True:
            if isinstance(self._target, types.MethodType):
                self._lead += (self._target.__self__,)
                self._target = self._target.__func__
            elif isinstance(self._target, functools.partial):
                part = self._target
                self._lead = tuple(part.args) + self._lead
                self._bound = {**part.keywords, **self._bound}
                self._target = part.func
            else:
                break
        self._nested: dict = {}     # vmap of a vmapped function: in_axes tree -> its flat vmap
        self._grad = grad_transform(self._target)   # torch.func.grad(f): `vmap_grad`
        self._options = vmap_options.DEFAULT
        self._fast = None       # the last call's fast path (`_FastPath`), when it has one
        self._fast_numpy = None     # ... of NumPy arrays into `backend` (NumPy out)
        # calls that ran the per-example loop because the batched code raised, and the last
        # such exception (`vmap_replays`)
        self.replays = 0
        self.last_replay = None
        self._replay_warned: set = set()
        try:
            # never `__dict__`: a vmapped function's state is its own (`vmap(vmap(f))`)
            functools.update_wrapper(self, func, updated=())
        except AttributeError:
            pass

    def __reduce__(self):
        # what another process (a Dask worker) needs: the function and the options
        return pickling.reduce(self, _VMapped, dict(
            func=self.func, in_axes=self.in_axes, out_axes=self.out_axes,
            fallback=self.fallback, chunk_size=self.chunk_size, cache_dir=self.cache_dir,
            backend=self.backend), self.func)

    def __repr__(self):
        return f"<vmap of {self._name}>"

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self, obj)

    def source(self, *args, **kwargs) -> str:
        if self.backend is not None:
            numpy_call = backends.get(self.backend).numpy_call(args, kwargs)
            if numpy_call is not None:
                with numpy_call:      # NumPy arrays in: NumPy's promotions
                    return self.source(*args, **kwargs)
        if isinstance(self._target, _VMapped):
            from .vmap_nested import target_flat
            flat, flat_args, _ = target_flat(self, args, kwargs)
            return flat.source(*flat_args, **kwargs)
        if wants_dask(args, kwargs):   # what each block of a Dask array runs
            args, kwargs = block_stand_ins(args, kwargs)
        if self.backend is not None:
            try:
                args, kwargs, _ = _into_backend(self.backend, args, kwargs, self.in_axes)
            except _MixedUnmapped:
                return self._fallback(backends.get(self.backend).unmapped_numpy).spec.source
        entry, _, _, size, _, _ = self._plan(args, kwargs)
        return chunks.source_for(entry.spec, entry.tuning, size, self.chunk_size)

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        if name in _WARM_OPTIONS:
            # `_warm` holds only for the fast path and options it was made for
            # (`getattr`, never ``__dict__``: reading it makes the object's dict one of its
            # own, whose attributes Python 3.11 then reads slower)
            fast = getattr(self, "_fast", None)
            object.__setattr__(self, "_warm", None if fast is None or not fast.plain or
                               fast.chunk_size is not getattr(self, "chunk_size", None)
                               else fast.warm)

    def __call__(self, *args, **kwargs):
        warm = self._warm
        if warm is not None and not kwargs:
            # `_fast` 's whole warm call, where it is `plain` and made for this
            # ``chunk_size`` (`__setattr__`: one attribute read where there were six)
            try:
                out = warm(args)
            except Exception as exc:        # noqa: BLE001 -- as `_fast_call` decides
                return self._warm_failed(self._fast, exc, args, kwargs)
            if type(out) is _NDARRAY:
                return out
            if out is not None:
                return self._warm_placed(self._fast, out)
        fast = self._fast
        if fast is not None and fast.plain and not kwargs:
            # (a fast path is only made past the special calls below; `plain`: none of them
            # looks at the arguments)
            if fast.warm is not None and fast.warm is not warm and \
                    fast.chunk_size is self.chunk_size:
                try:
                    out = fast.warm(args)
                except Exception as exc:        # noqa: BLE001 -- as `_fast_call` decides
                    return self._warm_failed(fast, exc, args, kwargs)
                if type(out) is _NDARRAY:
                    return out
                if out is not None:
                    return self._warm_placed(fast, out)
            planned = fast.match(args)
            if planned is not None:
                return self._fast_call(fast, planned, args, kwargs)
        fast = self._fast_numpy
        if fast is not None and fast.plain and not kwargs:
            planned = fast.match(args)      # NumPy arrays for the backend (NumPy out)
            if planned is not None:
                return self._fast_call(fast, planned, args, kwargs)
        if self.backend is not None:
            numpy_call = backends.get(self.backend).numpy_call(args, kwargs)
            if numpy_call is not None:
                with numpy_call:      # NumPy arrays in: NumPy's promotions
                    return self(*args, **kwargs)
        if self._options.axis_size is not None:
            size = vmap_options.mapped_size(self, args)
            if size is None:        # nothing mapped: f's result, the same for each example
                return _broadcast_call(self, args, kwargs)
        if self._grad is not None:      # vmap(torch.func.grad(f)): `vmap_grad`
            return call_grad(self, args, kwargs)
        if isinstance(self._target, _VMapped):     # vmap(vmap(f)): `vmap_nested`
            from .vmap_nested import call_nested
            return call_nested(self, args, kwargs)
        if is_vectorized(self._target):     # vmap(vectorize(f)): `vmap_vectorize`
            return call_vectorized(self, args, kwargs)
        if not kwargs:
            fast = self._fast
            planned = fast.match(args) if fast is not None else None
            if planned is None and self._fast_numpy is not None:
                fast = self._fast_numpy
                planned = fast.match(args)
            if planned is not None:
                return self._fast_call(fast, planned, args, kwargs)
        if not kwargs and wants_dask(args):   # a Dask array in: Dask arrays out, nothing computed
            from .dask_runtime import call_vmap
            return call_vmap(self, args)
        given = None        # NumPy arguments converted for `backend` (NumPy out)
        loop_args = (args, kwargs)     # the per-example loop's: the NumPy ones as given
        mixed = False
        if self.backend is not None:
            given = args
            try:
                args, kwargs, converted = _into_backend(self.backend, args, kwargs,
                                                          self.in_axes)
            except _MixedUnmapped:
                # (refused, or run per example: the size from the arguments converted)
                self._fallback(backends.get(self.backend).unmapped_numpy)
                mixed = True
                args, kwargs, _ = _into_backend(self.backend, args, kwargs, self.in_axes,
                                                keep_unmapped=False)
                converted = False       # (the loop's results: the tensors it stacks)
            if not converted:
                given = None
        entry, call_args, call_kwargs, size, batched, tree = self._plan(args, kwargs)
        if mixed:
            entry = self._fallback(backends.get(self.backend).unmapped_numpy)
        spec = entry.spec
        if isinstance(spec, FallbackSpec) or spec.fallbacks:
            self._announce(spec.reason if isinstance(spec, FallbackSpec)
                           else "; ".join(spec.fallbacks), spec)
        if isinstance(spec, FallbackSpec):
            out = self._loop(*loop_args, size)
        else:
            if not kwargs and not call_kwargs and not spec.fallbacks:
                if given is None:
                    self._fast = _FastPath.of(self, args, entry, batched) or self._fast
                elif backends.get(self.backend).takes_numpy:
                    # the next calls like this one give the NumPy arrays to the generated
                    # function as they are (its library takes them: no conversion per
                    # argument and call)
                    self._fast_numpy = _FastPath.of(self, given, entry, batched,
                                                    numpy_out=True) or self._fast_numpy
            out = self._run_or_loop(*loop_args, entry, call_args, call_kwargs, size, batched,
                                    tree)
        return out if given is None else _to_numpy(out, self.backend)

    def _fast_call(self, fast, planned, args, kwargs):
        """A call the fast path ``fast`` matched (``planned``: its arguments and batch
        size)."""
        call_args, size = planned
        if fast.direct is None or fast.chunked and chunks.may_chunk(self.chunk_size,
                                                                     size):
            out = self._run_or_loop(args, kwargs, fast.entry, call_args, None, size,
                                    fast.batched, True)
        else:
            try:
                out = fast.direct(*call_args)
            except BackendFailure as failure:
                out = self._backend_failed(failure, fast.entry.spec, args, kwargs, size)
                return out if fast is self._fast else _to_numpy(out, self.backend)
            except (VectorizeError, Warning):
                raise
            except Exception as exc:       # noqa: BLE001 -- the per-example loop decides
                out = self._replayed(exc, args, kwargs, fast.entry, size)
                return out if fast is self._fast else _to_numpy(out, self.backend)
            if fast.numpy_out:
                # the backend's NumPy runner: a writable NumPy array of its own already
                if type(out) is np.ndarray and out.ndim > fast.rank:
                    return out
                spec = fast.entry.spec
                return _to_numpy(_place_outputs(out, spec.result, 0, size,
                                                backends.get(spec.backend), call_args,
                                                self._name), self.backend)
            if type(out) is not fast.out_type or out.ndim <= fast.rank:
                spec = fast.entry.spec
                placed = _place_outputs(out, spec.result, 0, size,
                                        backends.get(spec.backend), call_args,
                                        self._name)
                if placed is out and getattr(out, "ndim", 0) > fast.rank:
                    fast.out_type = type(out)
                out = placed
        return out if fast is self._fast else _to_numpy(out, self.backend)

    def _warm_failed(self, fast, exc, args, kwargs):
        """What `_fast_call` gives where the generated function raised ``exc`` on a call
        `_FastPath.warm` ran."""
        if isinstance(exc, BackendFailure):
            size = fast.match(args)[1]
            return self._backend_failed(exc, fast.entry.spec, args, kwargs, size)
        if isinstance(exc, (VectorizeError, Warning)):
            raise exc
        return self._replayed(exc, args, kwargs, fast.entry, fast.match(args)[1])

    def _warm_placed(self, fast, unplaced):
        """The output of a call `_FastPath.warm` ran that needs placing (`_Unplaced`), as
        `_fast_call` places it."""
        out, spec = unplaced.out, fast.entry.spec
        placed = _place_outputs(out, spec.result, 0, unplaced.size, backends.get(spec.backend),
                                unplaced.call_args, self._name)
        if placed is out and getattr(out, "ndim", 0) > fast.rank:
            fast.out_type = type(out)
        return placed

    def _run_or_loop(self, args, kwargs, *run):
        """`_run`, or where the batched code raised, the per-example loop, which decides: a
        helper's `raise` under a per-example condition fires for every lane that meets it,
        also lanes its caller's own conditions keep out of it (the loop then returns), else
        the loop raises the first failing example's exception, as the reference does."""
        try:
            return self._run(*run)
        except BackendFailure as failure:
            return self._backend_failed(failure, run[0].spec, args, kwargs, run[3])
        except (VectorizeError, Warning):
            raise       # (a warning the caller made an error is the batched code's own)
        except Exception as exc:       # noqa: BLE001 -- the per-example loop decides
            return self._replayed(exc, args, kwargs, run[0], run[3])

    def _replayed(self, exc, args, kwargs, entry, size):
        """The per-example loop's result where the batched code raised ``exc`` (counted in
        ``replays``; `vmap_replays` warns where the loop returns and ``exc`` is one the
        user's code could not raise), or ``exc`` itself where no loop can decide."""
        if not (backends.get(entry.spec.backend).eager_raises or
                getattr(exc, "whole_batch", False) or vmap_replays.raised_by_statement(exc)):
            raise exc       # (JAX: what its traced code raises is not a per-example raise,
            #                 but for its `raise` statements: the engine's checks, the user's)
        if not size and vmap_replays.raised_by_statement(exc):
            if vmap_replays.reached_by_every_example(exc) and \
                    not entry.spec.facts.handled_raises and \
                    not vmap_replays.suspicious(exc, self._target):
                raise exc   # (a `raise` the function reaches on no condition: raised too)
            # (a `raise` after a per-example check, which raises nothing over no example,
            # or one a handler catches on every example (the loop takes the handler), or
            # the library's own exception, of a type the per-example code over NumPy
            # scalars does not raise (PyTorch's RuntimeError for a float minus a bool): the
            # loop over no example returns, so the empty result of the analysis's types)
            result = entry.spec.result
            empty = _empty_outputs(result)
            if empty is not None:
                return _place_outputs(empty, result, self.out_axes, 0,
                                      backends.get(entry.spec.backend), args, self._name)
        if not size:
            # (no example raises in an empty batch: what the batched code raised is its own,
            # e.g. `np.sum(w)` of an unmapped NumPy argument made a tensor; the loop that
            # would decide has no example to run, as where the function runs per example)
            raise VectorizeError(
                f"cannot vmap `{self._name}` over an empty batch: its batched code raised "
                f"{type(exc).__name__} ({exc}), and the per-example loop that decides has no "
                "example to run", **user_location(), kind="raises") from exc
        self.replays += 1
        self.last_replay = f"{type(exc).__name__}: {exc}"
        out = self._loop(args, kwargs, size)
        vmap_replays.returned(self, exc, entry.spec)
        return out

    def _backend_failed(self, failure, spec, args, kwargs, size):
        """The backend's library could not run the generated code (`BackendFailure`, e.g.
        JAX could not trace it): a `VectorizeError` located in the function where
        ``fallback="error"`` (the default), else announced, and the per-example loop runs."""
        if self.fallback == "error":
            raise failure.located(self.func, f"vmap: `{self._name}`") from None
        self._fast = None
        self._announce(f"the {failure.backend} backend cannot run its generated code "
                       f"({failure})", spec)
        return self._loop(args, kwargs, size)

    def _run(self, entry, call_args, call_kwargs, size, batched, tree):
        """The outputs of the specialization ``entry`` on the planned arguments, in chunks
        where `chunks.run` says so, with the batch axes where ``out_axes`` puts them."""
        spec = entry.spec
        if call_kwargs:
            def call(function, positional):
                return function(*positional, **call_kwargs)
        else:
            call = _call
        if self._options.randomness == "error":
            vmap_options.refuse_draws(self, spec)
        if backends.get(spec.backend).chunked_runs:
            out = chunks.run(spec, entry.tuning, call_args, batched, size,
                             self.chunk_size if tree else None, call)
        elif type(self.chunk_size) is int and size > self.chunk_size and tree:
            # torch.func.vmap's chunk_size: the batch in calls of that many examples
            out = vmap_options.run_in_chunks(spec, call_args, batched, size,
                                             self.chunk_size, call,
                                             backends.get(spec.backend))
        else:       # one call: the backend's library blocks and threads its own work
            out = call(spec.function, call_args)
        return _place_outputs(out, spec.result, self.out_axes, size,
                              backends.get(spec.backend), call_args, self._name)

    # ------------------------------------------------------------------------- planning
    def _plan(self, args, kwargs=None):
        """(entry, positional arguments of the generated function, its keyword arguments,
        batch size, which positional arguments are batched, whether they are plain arrays
        and tuples (which `chunks` may slice))."""
        kwargs = kwargs or {}
        axes = self.in_axes
        if not isinstance(axes, tuple):
            axes = (axes,) * len(args)
        elif len(axes) != len(args):
            note = (f" Note that the function was called with keyword arguments "
                    f"{list(kwargs)}, which the entries of a tuple in_axes never correspond "
                    "to: keyword arguments are never mapped" if kwargs else "")
            raise call_error(
                "vmap in_axes must be an int, None, or a tuple of entries corresponding to "
                "the positional arguments passed to the function, but got "
                f"len(in_axes)={len(axes)}, len(args)={len(args)}." + note,
                "give in_axes one entry per positional argument")
        names = self._names
        if names is None and isinstance(self._target, types.FunctionType):
            names = self._read_signature()
        sizes = []
        leaves = []
        for i, (a, ax) in enumerate(zip(args, axes)):
            leaves.append(_leaves(a, ax, Where(self, i), sizes))
        if not sizes:
            if not any(flatten(a) for a in args) or all(
                    not is_node(a) and a is None for a in args):
                raise call_error(
                    "vmap wrapped function must be passed at least one argument containing "
                    f"an array, got empty *args={args!r} and **kwargs={kwargs!r}",
                    "pass an array to map over")
            raise call_error("vmap must have at least one non-None value in in_axes",
                              "map at least one argument (in_axes=0 for it)")
        size = sizes[0][0]
        if any(s != size for s, _ in sizes):
            raise call_error(inconsistent_sizes(sizes),
                              "give every mapped argument the same length along its mapped "
                              "axis")
        plain = all(type(k) is not tuple or k[0] != "node" or k[1] is tuple
                    for _, _, k in leaves)
        backend = self.backend or _backend_of_args(args)
        if not isinstance(self._target, types.FunctionType) or _library_function(
                self._target):
            wrapper = rule_wrapper(self._target, len(self._lead) + len(args), backend)
            if wrapper is None:
                return self._fallback(f"{self._name} is not a Python function with source"), \
                    None, None, size, None, plain
            self._target, self._names = wrapper, None
            names = self._read_signature()
        call_args = list(self._lead)
        key = [("lead", type(value)) for value in self._lead]
        first = len(self._lead)
        if len(args) > self._n_positional - first and self._varargs is None:
            raise call_error(f"`{self._name}` takes {self._n_positional - first} positional "
                              f"arguments (after those bound to it) but the vmapped call gave "
                              f"{len(args)}", "pass as many arguments as the function takes",
                              VmapTypeError)
        for _, arg, k in leaves:
            key.append(k)
            call_args.append(arg)
        call_kwargs = {**self._bound, **kwargs} if self._bound else kwargs
        made = {}
        for name, value in call_kwargs.items():
            make, _, k = _leaves(value, None, f"kwargs[{name!r}]", sizes)
            made[name] = make
            key.append((name, k))
        key = tuple(key)
        entry = self._specs.get(key)
        if entry is None:
            for dtype in _mapped_dtypes(leaves):
                if dtype.kind in _UNMAPPED_KINDS:
                    # (the key's dtype char: `str`, not `<U0`, for any length of strings)
                    dtype = dtype.name if dtype.kind in "USV" else dtype
                    if self.fallback == "error":
                        raise VectorizeError(f"cannot vmap `{self._name}` over an array of "
                                             f"dtype {dtype}", suggestion="pass numeric "
                                             "arrays, or fallback='warn'", **user_location())
                    return self._fallback(f"an argument has dtype {dtype}"), None, None, \
                        size, None, plain
            # the abstract values are made only when a specialization is built (`_leaves`)
            params = self._params(names, leaves, made)
            entry = self._specs.get_or_build(key, lambda: self._build(params, backend))
        batched = [_batched(k) for k in key[:len(call_args)]]
        return entry, call_args, call_kwargs, size, batched, plain

    def _params(self, names, leaves, made) -> dict:
        """What makes the abstract value of each parameter, for a call with the argument
        ``leaves`` (`_leaves`) and the keyword arguments ``made`` (name -> what makes its
        value); TypeError (located) where they do not bind to the parameters."""
        params = {}
        for name, value in zip(names, self._lead):
            params[name] = functools.partial(Value, False, value)
        first = len(self._lead)
        passed = names[first:self._n_positional][:len(leaves)]
        for name, (value, _, _) in zip(passed, leaves):
            params[name] = value
        if self._varargs is not None:
            extra = leaves[len(passed):]
            params[self._varargs] = functools.partial(
                lambda parts: TupleValue(tuple(p[0]() for p in parts)), extra)
        for name, make in made.items():
            if name not in names or name in passed or name == self._varargs:
                raise call_error(f"`{self._name}` got an unexpected or repeated keyword "
                                  f"argument `{name}`", "pass each parameter once",
                                  VmapTypeError)
            params[name] = make
        if self._varkw is not None:     # (every keyword the call passes names a parameter)
            params[self._varkw] = functools.partial(exact, {})
        for name in names[first:]:
            if name in params:
                continue
            # not passed: its default, the same for every example (the generated function
            # has the original's defaults)
            if name in self._defaults:
                params[name] = functools.partial(exact, self._defaults[name])
            else:
                raise call_error(f"`{self._name}` is missing the argument `{name}`",
                                  "pass every parameter that has no default", VmapTypeError)
        return params

    def _read_signature(self) -> list:
        import inspect
        parameters = inspect.signature(self._target, follow_wrapped=False).parameters
        names = []
        self._n_positional = sum(1 for p in parameters.values()
                                 if p.kind <= p.POSITIONAL_OR_KEYWORD)
        for name, p in parameters.items():
            if p.kind is p.VAR_KEYWORD:
                self._varkw = name
                continue
            if p.kind is p.VAR_POSITIONAL:
                self._varargs = name
            names.append(name)
        self._names = names
        self._defaults = {name: p.default for name, p in parameters.items()
                          if p.default is not p.empty}
        return names

    def _fallback(self, reason: str):
        if self.fallback == "error":
            raise VectorizeError(f"cannot vmap `{self._name}`: {reason}",
                                 suggestion="vmap a plain `def` function, or pass "
                                            "fallback='warn'", **user_location())
        return self._specs.get_or_build(("fallback", reason), lambda: Entry(FallbackSpec(
            reason, fallback_source(self.func, reason, "loop"))))

    def _build(self, params, backend):
        try:
            params = {name: make() for name, make in params.items()}
            return build(self._target, params, fallback=self.fallback,
                         title="Generated by vectorize.vmap", kind="loop", backend=backend,
                         cache_dir=self.cache_dir, explain=self._explain)
        except VectorizeError as exc:
            if not exc.filename.startswith("<vectorize rule wrapper"):
                raise
            # a library function's one-line wrapper is no source of the user's: the refusal
            # points at the user's call
            top = (getattr(self.func, "__module__", None) or "").partition(".")[0]
            name = f"{top}.{self._name}" if top and not self._name.startswith(top) else \
                self._name
            raise VectorizeError(f"cannot vmap `{name}` for these arguments: "
                                 f"{exc.reason}", suggestion=exc.suggestion,
                                 kind=exc.kind, subject=exc.subject,
                                 **user_location()) from None
        except TypeError as exc:     # an argument the backend cannot represent (bfloat16)
            if self.fallback == "error":
                raise VectorizeError(f"cannot vmap `{self._name}`: {exc}",
                                     suggestion="pass a supported dtype, or fallback='warn'"
                                     ) from None
            return Entry(FallbackSpec(str(exc), fallback_source(self.func, str(exc), "loop")))

    def _loop(self, args, kwargs, size):
        """The per-example loop (a fallback): ``func`` on each example, the results stacked
        leaf by leaf."""
        axes = self.in_axes if isinstance(self.in_axes, tuple) else (self.in_axes,) * len(args)
        be = backends.get(_backend_of_args(list(args)))
        rows = [self.func(*[_take(a, ax, n, be) for a, ax in zip(args, axes)], **kwargs)
                for n in range(size)]
        if not rows:
            raise VectorizeError(f"cannot vmap `{self._name}` over an empty batch when it "
                                 "runs per example (nothing tells the results' shapes)",
                                 **user_location())
        template = rows[0]
        columns = list(zip(*[[leaf for _, leaf in flatten(r)] for r in rows]))
        out_axes = out_axes_of(self.out_axes, template, self._name)
        placed = []
        for column, axis in zip(columns, out_axes):
            if axis is None:
                placed.append(column[0])
                continue
            stacked = be.stack(list(column))
            placed.append(be.moveaxis(stacked, 0, axis) if axis else stacked)
        return unflatten(template, placed)

    # -------------------------------------------------------------------- nested vmap
def _name_of(func) -> str:
    if isinstance(func, functools.partial):
        return f"functools.partial({_name_of(func.func)}, ...)"
    if isinstance(func, _VMapped):
        return f"vmap({func._name})"
    return getattr(func, "__qualname__", None) or type(func).__name__


def _library_function(fn) -> bool:
    """A function of a backend's library (``torch.split`` is Python): mapped by its rule,
    never read as the user's code."""
    return backends.owns_function(fn)


def _broadcast_call(vm, args, kwargs):
    """``vmap(f, in_axes=None, axis_size=n)(*args)``: ``f(*args)`` (every example's result)
    with a batch axis of ``n`` at ``out_axes`` (`vmap_options`)."""
    out = vm.func(*args, **kwargs)
    be = backends.get(_backend_of_args(list(args) + [leaf for _, leaf in flatten(out)]))
    result = unflatten(out, [Value(False)] * len(flatten(out))) if is_node(out) else \
        Value(False)
    placed = _place_outputs(out, result, vm.out_axes, vm._options.axis_size, be, list(args),
                            vm._name)
    return unflatten(placed, [vmap_options.copied(leaf) for _, leaf in flatten(placed)])


def _call(function, args):
    return function(*args)


_NDARRAY = np.ndarray

_WARM_OPTIONS = frozenset({"_fast", "chunk_size", "backend", "_options", "in_axes",
                           "out_axes"})
"""The attributes of a `_VMapped` whose set makes its ``_warm`` again (`__setattr__`)."""


class _FastPath:
    """What a warm call needs from its arguments when they are like the last call's: NumPy
    arrays of the same dtypes and ranks mapped along the same axes, and unmapped arrays and
    Python numbers of the same types (`_leaves`' cache keys, tested without building them),
    for the same specialization while its guards hold. Anything else takes `_VMapped._plan`
    (which builds the key, checks the arguments, and may make another fast path)."""

    __slots__ = ("entry", "lead", "leaves", "batched", "direct", "rank", "out_type", "chunked",
                 "match", "plain", "warm", "chunk_size", "numpy_out")

    def __init__(self, entry, lead, leaves, batched, direct=None, chunked=False):
        self.entry = entry
        # `chunked`: the backend's calls go through `chunks.run`, so `direct` is the call
        # only for a batch too small for chunks (`chunks.may_chunk`)
        self.chunked = chunked
        self.lead = lead
        self.leaves = leaves        # per argument: (kind, dtype char, ndim, axis)
        self.batched = batched
        # `direct`: the generated function, where a warm call is that function on the
        # arguments and its one batched result placed along axis 0 (`_VMapped._run` would
        # run no chunks, check no draws); `out_type`: the type of the results `_place` gave
        # back as they are (learned on the first such result), which later ones of that type
        # and of their rank need no `_place` for
        self.direct = direct
        self.rank = entry.spec.result.rank if direct is not None else None
        self.out_type = None
        # the warm check of a call's arguments, unrolled for these leaves (`_matcher`)
        self.match = _matcher(lead, leaves, entry.spec.guards)
        self.plain = False
        # the whole warm call in one function (`_warm_call`) where it applies, for calls
        # whose vmap's ``chunk_size`` is still ``chunk_size``
        self.warm = self.chunk_size = None
        self.numpy_out = False      # `direct` gives NumPy arrays (the backend's NumPy runner)

    @classmethod
    def of(cls, vm, args, entry, batched, numpy_out=False):
        """The fast path of calls like ``args``, or None; ``numpy_out``: ``args`` are NumPy
        arrays that ``vm``'s backend takes as they are, and the calls give NumPy arrays."""
        if vm._bound or isinstance(vm._target, _VMapped):
            return None
        axes = vm.in_axes if isinstance(vm.in_axes, tuple) else (vm.in_axes,) * len(args)
        leaves = []
        for arg, axis in zip(args, axes):
            kind = type(arg)
            if kind is np.ndarray and type(axis) is int and arg.ndim and \
                    -arg.ndim <= axis < arg.ndim and arg.dtype.kind in "biufc":
                leaves.append(("b", arg.dtype.char, arg.ndim, axis % arg.ndim))
            elif kind is np.ndarray and axis is None:
                leaves.append(("u", arg.dtype.char, arg.ndim, None))
            elif kind in (float, complex) and axis is None:
                leaves.append((kind, None, None, None))
            elif (axis is None or axis == 0) and (name := backends.of_value(arg)) is not None \
                    and backends.get(name).warm_by_dtype and (axis is None or arg.ndim):
                # another namespace's array (a jax.Array), mapped along its first axis or not
                backend = backends.get(name)
                leaves.append(("fb" if axis == 0 else "fu", (kind, backend.dtype_key(arg),
                                                               backend, arg.dtype),
                               arg.ndim, axis))
            else:
                return None
        if not any(leaf[0] in ("b", "fb") for leaf in leaves):
            return None
        spec = entry.spec
        chunked = backends.get(spec.backend).chunked_runs
        direct = spec.function if (
            type(spec.result) is Value and spec.result.batched and type(vm.out_axes) is int
            and vm.out_axes == 0 and type(vm.chunk_size) is not int
            and vm._options.randomness != "error") else None
        if direct is not None and chunked and vm.chunk_size is None:
            chunks.prime_allocator()        # (what `chunks.run` does before a large call)
        if direct is not None:
            # a writable NumPy array of its own straight from the generated function's call
            # (`Backend.numpy_runner`), where the backend has such a call; the backend's
            # quicker call for arguments of these types (`Backend.warm_runner`) otherwise
            backend = backends.get(spec.backend)
            direct = backend.numpy_runner(direct) if numpy_out else \
                backend.warm_runner(direct)
            if spec.result.kind not in "biufc":     # (strings among them: sized as `_place`)
                direct = _sizing_strings(direct)
        fast = cls(entry, vm._lead, tuple(leaves), batched, direct, chunked)
        fast.numpy_out = direct is not None and numpy_out
        # no backend named (or one that needs no context around a call on NumPy arrays:
        # `Backend.numpy_call`), no axis_size: a call like this one needs none of the checks
        # `_VMapped.__call__` makes before it tries the fast path
        fast.plain = vm._options.axis_size is None and (
            vm.backend is None or type(backends.get(vm.backend)).numpy_call is
            Backend.numpy_call)
        if vm.backend is None and fast.plain and direct is not None and chunked and \
                all(leaf[0] in ("b", "u", float, complex) for leaf in leaves):
            fast.chunk_size = vm.chunk_size
            limit = math.inf if vm.chunk_size is None else 2 * chunks.AUTO_MIN_LANES
            fast.warm = _warm_call(vm._lead, tuple(leaves), spec.guards, direct,
                                   fast.rank, limit)
        return fast


_MATCHERS: dict = {}
"""`_matcher`'s compiled makers, per layout (each leaf's kind and axis, the number of bound
leading arguments and of guards): a few per program, each compiled once."""


def _matcher(lead, leaves, guards):
    """``match(args)``: (arguments of the generated function, batch size), or None when
    ``args`` are not like the last call's (per leaf: a NumPy array of its dtype and rank, the
    batch size along its axis; another namespace's array of its type, rank and dtype key
    (`Backend.dtype_key`), the batch size along axis 0; a Python number of its type) or the
    specialization's guards no longer hold. The tests of these leaves and guards are unrolled
    into one function per layout (the vmap of a function of a few arguments then pays a few
    comparisons per argument)."""
    layout = _layout(lead, leaves, guards)
    make = _MATCHERS.get(layout)
    if make is None:
        body, out = _match_lines(layout)
        body.append(f"return [{'*LEAD, ' if lead else ''}{', '.join(out)}], size")
        make = _MATCHERS.setdefault(layout, compiled_plan(
            _maker_params("L, LEAD, ndarray, moveaxis", layout), body,
            "<vectorize.vmap fast path>", layout[2]))
    return make(leaves, tuple(lead), np.ndarray, np.moveaxis, *_constants(leaves), guards,
                MISSING)


def _layout(lead, leaves, guards) -> tuple:
    """What the unrolled checks of `_matcher` and `_warm_call` depend on."""
    return (tuple((kind if type(kind) is str else "type", axis)
                  for kind, _, _, axis in leaves), len(lead), len(guards))


def _constants(leaves) -> list:
    """What the unrolled checks compare a NumPy leaf or a number with (`_match_lines`), as
    their own parameters (a name is read faster than ``L[0][2]``): per NumPy array its rank,
    dtype char and the dtype of that char (an array of that dtype object has that char: the
    char is read only where the object differs), per number its type."""
    return [c for kind, char, ndim, _ in leaves
            for c in ((ndim, char, np.dtype(char)) if kind in ("b", "u") else
                      (kind,) if type(kind) is not str else ())]


def _maker_params(head: str, layout) -> str:
    """The parameters of a compiled maker (`compiled_plan`): ``head``, then the names of
    `_constants` for this layout."""
    names = [n for i, (kind, _) in enumerate(layout[0])
             for n in ((f"N{i}", f"C{i}", f"D{i}") if kind in ("b", "u") else
                       (f"T{i}",) if kind == "type" else ())]
    return ", ".join([head, *names])


def _match_lines(layout) -> tuple[list, list]:
    """The lines that return None where a call's ``args`` are not like ``L`` (or a guard no
    longer holds) and set ``size``, and the expressions of the generated function's
    arguments (after ``LEAD``'s) after them."""
    names = [f"a{i}" for i in range(len(layout[0]))]
    body = [f"if len(args) != {len(names)}:", "    return None",
            f"{', '.join(names)}, = args"]
    out, sized = [], False
    for i, (kind, axis) in enumerate(layout[0]):
        a = names[i]
        if kind == "type":
            body += [f"if type({a}) is not T{i}:", "    return None"]
            out.append(a)
            continue
        if kind in ("fb", "fu"):
            # another namespace's array (a jax.Array): its type, rank and dtype key
            # (its shape read once: a jax.Array's shape and ndim are Python properties;
            # the key made only where the dtype is not the very object the first call's
            # array had, a method call fewer per argument)
            body += [f"if type({a}) is not L[{i}][1][0]:", "    return None",
                     f"s{i} = {a}.shape",
                     f"if len(s{i}) != L[{i}][2] or {a}.dtype is not L[{i}][1][3] and "
                     f"L[{i}][1][2].dtype_key({a}) != L[{i}][1][1]:", "    return None"]
            if kind == "fb":
                if sized:
                    body += [f"if s{i}[0] != size:", "    return None"]
                else:
                    body.append(f"size = s{i}[0]")
                    sized = True
            out.append(a)
            continue
        body += [f"if type({a}) is not ndarray or {a}.ndim != N{i} or "
                 f"{a}.dtype is not D{i} and {a}.dtype.char != C{i}:", "    return None"]
        if kind == "b":
            # (`len`: the length of the first axis, without making the shape's tuple)
            along = f"len({a})" if axis == 0 else f"{a}.shape[{axis}]"
            if sized:
                body += [f"if {along} != size:", "    return None"]
            else:
                body.append(f"size = {along}")
                sized = True
            out.append(f"moveaxis({a}, {axis}, 0)" if axis else a)
        else:
            out.append(a)
    body += guard_checks(layout[2])
    return body, out


_WARM_CALLS: dict = {}
"""`_warm_call`'s compiled makers, per layout."""


class _Unplaced:
    """What `_warm_call` gives where the generated function's output is not one NumPy array
    with the batch axis: the output, the function's arguments and the batch size, for
    `_place_outputs`."""

    __slots__ = ("out", "call_args", "size")

    def __init__(self, out, call_args, size):
        self.out, self.call_args, self.size = out, call_args, size


def _warm_call(lead, leaves, guards, function, rank, limit):
    """``warm(args)``, the whole of a warm call of `_FastPath` whose generated function
    ``function`` (NumPy) runs the batch in one call and returns one batched array of
    per-example rank ``rank`` (``direct``): `_matcher`'s checks, the call where the batch has
    fewer than ``limit`` lanes (larger ones may run in chunks: `chunks.may_chunk`), and its
    output where it is a NumPy array with the batch axis (what `_place_outputs` gives back as
    it is), unrolled into one function. It gives None where the arguments do not match or
    the batch is that large (nothing run), an `_Unplaced` where the output needs placing;
    what ``function`` raises propagates."""
    layout = _layout(lead, leaves, guards)
    make = _WARM_CALLS.get(layout)
    if make is None:
        body, out = _match_lines(layout)
        args = [expr if expr == f"a{i}" else f"c{i}" for i, expr in enumerate(out)]
        body += [f"{c} = {expr}" for c, expr in zip(args, out) if c != expr]
        listed = ", ".join((["*LEAD"] if lead else []) + args)
        body += ["if size >= LIMIT:", "    return None",
                 f"out = RUN({listed})",
                 "if type(out) is ndarray and out.ndim > RANK:", "    return out",
                 f"return UNPLACED(out, [{listed}], size)"]
        make = _WARM_CALLS.setdefault(layout, compiled_plan(
            _maker_params("L, LEAD, ndarray, moveaxis, RUN, RANK, LIMIT, UNPLACED", layout),
            body, "<vectorize.vmap warm call>", layout[2]))
    return make(leaves, tuple(lead), np.ndarray, np.moveaxis, function, rank, limit,
                _Unplaced, *_constants(leaves), guards, MISSING)


def _batched(key):
    """Whether the argument a leaf's cache key describes is mapped (a tuple of those for a
    container argument)."""
    if key and key[0] == "node":
        return tuple(_batched(k) for k in key[3])
    return key[0] == "b"


def _mapped_dtypes(leaves):
    """The dtypes of the mapped arrays, from the leaves' cache keys."""
    def walk(key):
        if key[0] == "node":
            for part in key[3]:
                yield from walk(part)
        elif key[0] == "b":
            try:
                yield np.dtype(key[1])
            except TypeError:       # another namespace's key: `example_of` checks dtypes
                pass
    for _, _, key in leaves:
        yield from walk(key)


def _take(arg, axis, n, backend):
    if is_node(arg):
        try:
            axes = broadcast_prefix(axis, arg)
        except PrefixError:
            axes = [axis] * len(flatten(arg))
        return unflatten(arg, [leaf if ax is None or leaf is None else backend.take(leaf, n, ax)
                               for (_, leaf), ax in zip(flatten(arg), axes)])
    if axis is None or arg is None:
        return arg
    return backend.take(arg, n, axis)


_NUMBERS = (float, int, complex)
_UNMAPPED_KINDS = "OUSVmM"     # dtypes vmap maps no function over (`_plan`)
_PLAIN = (np.ndarray, float, int, complex, bool, type(None))


def _into_backend(name: str, args, kwargs, in_axes=0, keep_unmapped=True):
    """The arguments of a call of a function vmapped for the backend ``name``, NumPy arrays
    among their mapped leaves converted to its arrays; (args, kwargs, whether any was). A
    leaf not mapped (``in_axes`` None for it) and a keyword argument stay as they are, as
    ``torch.func.vmap`` and ``jax.vmap`` leave them: the function sees the NumPy array
    itself, on which its NumPy calls compute as in the per-example loop. An array of a
    third namespace is refused."""
    backend = backends.get(name)
    converted = False
    kept, native = [], []

    def into(value, mapped=True):
        nonlocal converted
        if name != backends.DEFAULT and backend.claims(value):
            native.append(value)
        if isinstance(value, np.ndarray) and name != backends.DEFAULT \
                and not backend.claims(value) and value.dtype.kind not in _UNMAPPED_KINDS:
            # (its arrays may be NumPy's too; strings, objects, dates stay NumPy's: the
            # plan refuses or falls back on them as on NumPy, `_plan`)
            if not mapped and backend.unmapped_numpy is not None and keep_unmapped:
                kept.append(value)
                return value
            converted = True
            return backend.from_numpy(value)
        other = backends.of_value(value)
        if other is not None and other != name:
            raise call_error(f"vmap(..., backend={name!r}) was called with a {other} array",
                             f"pass NumPy arrays or {name} arrays, or vmap with "
                             f"backend={other!r}")
        return value

    axes = in_axes if isinstance(in_axes, tuple) and len(in_axes) == len(args) \
        else (in_axes,) * len(args)
    args = tuple(unflatten(a, [into(leaf, ax is not None) for (_, leaf), ax in zip(
        flatten(a), _leaf_axes(a, axis))]) for a, axis in zip(args, axes))
    kwargs = {k: unflatten(v, [into(leaf, False) for _, leaf in flatten(v)])
              for k, v in kwargs.items()}
    if kept and native:
        raise _MixedUnmapped()
    return args, kwargs, converted


class _MixedUnmapped(Exception):
    """A NumPy array not mapped beside the backend's own arrays mapped (`_into_backend`)."""


def _leaf_axes(arg, axis) -> list:
    """The ``in_axes`` entry of each leaf of ``arg`` (``axis``: a tree prefix of it)."""
    if is_node(arg):
        try:
            return broadcast_prefix(axis, arg)
        except PrefixError:
            return [axis] * len(flatten(arg))
    return [axis] * len(flatten(arg))


def _to_numpy(out, name: str):
    """The outputs of a call on NumPy arrays for the backend ``name`` as NumPy arrays."""
    be = backends.get(name)
    if be.claims(out):
        return be.to_numpy(out)
    return unflatten(out, [be.to_numpy(leaf) if be.claims(leaf) else leaf
                           for _, leaf in flatten(out)])


def _backend_of_args(args) -> str:
    """The backend of a call: the first argument (or leaf of one) that another backend
    claims decides; the default one (NumPy) otherwise."""
    for arg in args:
        if type(arg) in _PLAIN:
            continue
        name = _backend_of_args(items_of(arg)) if is_node(arg) else backends.of_value(arg)
        if name is not None and name != backends.DEFAULT:
            return name
    return backends.DEFAULT


def _leaves(arg, axis, where, sizes):
    """(a function making its abstract value, argument for the generated code, key) of one
    argument (the abstract value is needed only to build a specialization, not on every
    call). A container (`vectorize.pytree`) gives a container of its leaves' arguments,
    `TupleValue` of their values (with the keys of a dict or namedtuple)."""
    if type(arg) is np.ndarray and type(axis) is int and arg.ndim and -arg.ndim <= axis < \
            arg.ndim and arg.dtype.kind in "biufc":
        # the common case first: a numeric array mapped along an axis it has
        axis %= arg.ndim
        sizes.append((arg.shape[axis], (where, arg.shape, axis, arg.dtype)))
        moved = np.moveaxis(arg, axis, 0) if axis else arg
        return (lambda: Value(True, np.ones(moved.shape[1:], arg.dtype)[()])), moved, \
            ("b", arg.dtype.char, arg.ndim)
    if axis is None and type(arg) is int:
        # a Python int passed as it is: a dim, a size, a count (as torch.func and JAX take
        # it: by value, not traced), so the code is specialized on it
        return (lambda: Value(False, arg, True)), arg, ("u", "int", arg)
    if axis is None and type(arg) in _NUMBERS:
        return (lambda: Value(False, type(arg)(1))), arg, ("u", type(arg).__name__)
    spec_where = where.spec if isinstance(where, Where) else str
    if is_node(arg):
        if is_node(axis):
            try:
                broadcast_prefix(axis, arg)
            except PrefixError as exc:
                raise call_error(f"vmap in_axes specification must be a tree prefix of the "
                                  f"corresponding value; {spec_where()} for {where}: {exc}",
                                  "give in_axes the structure of the arguments") from None
            keys = keys_of(arg)
            axes = [axis[k] for k in keys] if isinstance(arg, dict) else items_of(axis)
        else:
            axes = [axis] * len(arg)
        keys = keys_of(arg)
        parts = [_leaves(a, ax, _step(where, arg, i), sizes)
                 for i, (a, ax) in enumerate(zip(items_of(arg), axes))]
        kind = None if type(arg) is tuple else type(arg)
        if keys is not None and all(_unmapped_array_key(p[2]) for p in parts):
            # a dict or namedtuple the same for every example, of NumPy values: known as
            # it is (its methods, `.items()`, `.get()`, work on it as on any shared value)
            return (lambda: Value(False, arg)), arg, \
                ("node", type(arg), keys, tuple(p[2] for p in parts))
        return (lambda: TupleValue(tuple(p[0]() for p in parts), keys, kind),
                rebuild(arg, [p[1] for p in parts]),
                ("node", type(arg), keys, tuple(p[2] for p in parts)))
    if is_node(axis):
        raise call_error(f"vmap in_axes specification must be a tree prefix of the "
                          f"corresponding value; {spec_where()} for {where} is "
                          f"{describe(axis)} but the value is a leaf "
                          f"({type(arg).__name__}) (different types)",
                          "give in_axes the structure of the arguments")
    backend = backends.of_value(arg)
    if backend is not None:       # another backend's array (the default's claim none)
        return _foreign_leaf(arg, axis, where, sizes, backends.get(backend))
    if axis is None or arg is None:
        if isinstance(arg, np.ndarray):
            return (lambda: Value(False, representative(arg))), arg, ("u", arg.dtype.char,
                                                                    arg.ndim)
        if specialized_on(arg):       # None, a bool, a short string: known by its value
            return (lambda: Value(False, arg, True)), arg, ("u", as_is_key(arg))
        if isinstance(arg, (int, float, complex)):
            return (lambda: Value(False, type(arg)(1))), arg, ("u", type(arg).__name__)
        return (lambda: Value(False, arg)), arg, ("u", type(arg).__name__)
    if not isinstance(arg, (np.ndarray, np.generic, int, float, complex)):
        raise call_error(f"vmap got in_axes={axis} for {where}, which is of type "
                          f"{type(arg).__name__}: only arrays can be mapped",
                          "use None as its in_axes entry (passed as it is)")
    arr = np.asarray(arg)
    if arr.ndim == 0:
        raise call_error(f"vmap was requested to map its argument along axis {axis}, which "
                          f"implies that its rank should be at least {axis + 1}, but is only "
                          f"0 (its shape is ()): {where}",
                          "map an array, or give it in_axes None")
    if not -arr.ndim <= axis < arr.ndim:
        raise call_error(f"vmap was requested to map its argument along axis {axis}, which "
                          f"implies that its rank should be at least "
                          f"{axis + 1 if axis >= 0 else -axis}, but is only {arr.ndim} (its "
                          f"shape is {arr.shape}): {where}",
                          "give an axis the argument has")
    axis %= arr.ndim
    sizes.append((arr.shape[axis], (where, arr.shape, axis, arr.dtype)))
    moved = np.moveaxis(arr, axis, 0) if axis else arr
    return (lambda: Value(True, np.ones(moved.shape[1:], arr.dtype)[()])), moved, \
        ("b", arr.dtype.char, arr.ndim)


def _unmapped_array_key(key) -> bool:
    """Whether a leaf's (or container's) cache key is of values passed as they are, none of
    them another namespace's arrays."""
    if key[0] == "node":
        return all(_unmapped_array_key(k) for k in key[3])
    return key[0] == "u" and not backends.names_dtype(key[1])


def _step(where, node, i):
    keys = keys_of(node)
    if keys is None:
        step = f"[{i}]"
    else:
        step = f"[{keys[i]!r}]" if isinstance(node, dict) else f".{keys[i]}"
    if isinstance(where, Where):
        return Where(where.owner, where.index, where.path + step)
    return f"{where}{step}"


def _foreign_leaf(arg, axis, where, sizes, backend):
    """`_leaves` of another namespace's array (a torch tensor): moved, never converted."""
    key = backend.dtype_key(arg)
    if axis is None:
        return (lambda: Value(False, backend.example_of(arg, batched=False))), arg, \
            ("u", key, arg.ndim)
    shape = tuple(arg.shape)
    if not shape:
        raise call_error(f"vmap was requested to map its argument along axis {axis}, which "
                          f"implies that its rank should be at least {axis + 1}, but is only "
                          f"0 (its shape is ()): {where}",
                          "map a tensor with dims, or give it in_axes None")
    if not -len(shape) <= axis < len(shape):
        raise call_error(f"vmap was requested to map its argument along axis {axis}, which "
                          f"implies that its rank should be at least "
                          f"{axis + 1 if axis >= 0 else -axis}, but is only {len(shape)} (its "
                          f"shape is {shape}): {where}",
                          "give an axis the argument has")
    axis %= len(shape)
    sizes.append((shape[axis], (where, shape, axis, arg.dtype)))
    moved = backend.moveaxis(arg, axis, 0) if axis else arg
    return (lambda: Value(True, backend.example_of(moved, batched=True))), moved, \
        ("b", key, len(shape))


def _result_leaves(out, result) -> list:
    """(runtime value, abstract value) of each leaf of an output, in `flatten`'s order."""
    if is_node(out):
        items = items_of(out)
        if isinstance(result, TupleValue) and len(result.items) == len(items):
            parts = result.items
        else:
            parts = [Value(False)] * len(items)
        return [pair for o, r in zip(items, parts) for pair in _result_leaves(o, r)]
    return [(out, result)]


def _in_result_order(out, result):
    """``out`` with each dict's keys in the order the function made them (the analysis'
    ``result``): JAX's ``jit`` hands dicts back with their keys sorted."""
    if not isinstance(result, TupleValue) or not is_node(out):
        return out
    if type(out) is dict and result.keys is not None and len(result.keys) == len(out) \
            and list(out) != list(result.keys) and set(out) == set(result.keys):
        out = {k: out[k] for k in result.keys}
    items = items_of(out)
    if len(items) != len(result.items):
        return out
    new = [_in_result_order(o, r) for o, r in zip(items, result.items)]
    if all(n is o for n, o in zip(new, items)):
        return out
    return rebuild(out, new)


def _empty_outputs(result):
    """An output of one example's types for ``result`` (the analysis's), each leaf the
    value its example is, placed over an empty batch by `_place_outputs`; None where a
    leaf's type is unknown."""
    if isinstance(result, TupleValue):
        items = [_empty_outputs(item) for item in result.items]
        if any(item is None for item in items):
            return None
        if result.kind is dict and result.keys is not None:
            return dict(zip(result.keys, items))
        if result.kind is list:
            return items
        if result.kind is not None and result.kind is not tuple:
            try:
                return result.kind(*items)
            except Exception:       # noqa: BLE001 -- (a container it cannot remake)
                return None
        return tuple(items)
    if not isinstance(result, Value) or not result.known or result.dtype is None or \
            result.dtype.kind not in "biufc":
        return None
    return np.zeros(np.shape(result.example), result.dtype)


def _place_outputs(out, result, out_axes, size, backend, call_args, name="function"):
    if out is None:
        return None     # (a bare `return` every example took, beside a returned container)
    out = _in_result_order(out, result)
    if type(out_axes) is int and isinstance(result, Value) and not is_node(out):
        return _place(out, result, out_axes, size, backend, call_args)
    pairs = _result_leaves(out, result)
    if not is_node(out) and isinstance(result, TupleValue):
        out = tuple(out)        # a tuple the generated code made as another sequence
        pairs = _result_leaves(out, result)
    axes = out_axes_of(out_axes, out, name)
    if len(pairs) == 1 and not is_node(out):
        return _place(pairs[0][0], pairs[0][1], axes[0], size, backend, call_args)
    return unflatten(out, [_place(o, r, ax, size, backend, call_args)
                           for (o, r), ax in zip(pairs, axes)])


def _place(out, result, axis, size, backend, call_args):
    if out is None:
        return None
    if axis is None and not getattr(result, "batched", False):
        return out      # not mapped (out_axes None): any value, as torch.func returns it
    if isinstance(out, (str, bytes)) or not (backend.claims(out) or isinstance(
            out, (int, float, complex, np.generic, np.ndarray))):
        raise call_error(f"the output {out!r} of the vmapped function is not an array or a "
                         "number", "return arrays (or pytrees of them)", VmapTypeError)
    arr = backend.as_result(out)
    # a batched result can still come back without its batch axis on a path that returned an
    # unbatched value (an `if` on an unbatched test): broadcast it like an unbatched one
    if arr is None or not getattr(result, "batched", False) or arr.ndim <= result.rank:
        if axis is None:
            # (the path taken, on an `if` on an unbatched test, returned a value the same
            # for every example: returned as it is, as the loop returns its one value)
            return out
        like = next((a for a in _flat_args(call_args) if backend.claims(a)), None)
        arr = backend.broadcast_batch(out, size, like)
    elif axis is None:
        raise call_error("vmap has mapped output but out_axes is None (at vmap out_axes, "
                          "got axis spec None but output was batched on axis 0)",
                          "give out_axes an int for that output, or return a value the same "
                          "for every example")
    arr = _sized_strings(arr)
    if axis:
        arr = backend.moveaxis(arr, 0, normal_axis(axis, arr.ndim, "the function"))
    return arr


def _sized_strings(arr):
    """A string result as wide as its longest item, as the loop's stacking of the examples'
    strings makes it: ``np.where(n > 0, "pos", "n")`` is <U3 where some lane is "pos", <U1
    where none is (and a lane thrown away does not widen it)."""
    if type(arr) is not np.ndarray or arr.dtype.kind not in "US" or not arr.size:
        return arr
    longest = max(1, int(np.char.str_len(arr).max()))
    if longest == arr.dtype.itemsize // (4 if arr.dtype.kind == "U" else 1):
        return arr
    return arr.astype(f"{arr.dtype.kind}{longest}")


def _sizing_strings(function):
    """``function`` with its result as `_sized_strings` gives it."""
    def sized(*args):
        return _sized_strings(function(*args))
    return sized


def _flat_args(args):
    for a in args:
        if is_node(a):
            yield from _flat_args(items_of(a))
        else:
            yield a


def is_vmapped(fn) -> bool:
    """Whether ``fn`` is what `vmap` made."""
    return isinstance(fn, _VMapped)


def _register_rules(reg) -> None:
    """The rules of `vmap` and of the functions it makes, in every namespace's registry
    (`backends.EVERY_NAMESPACE`; the rules and libcst are imported when a registry is
    built, not with vectorize)."""
    from .rules import nested
    nested.register(reg, vmap, lambda fn: is_vmapped(fn) or is_vectorized(fn))


backends.EVERY_NAMESPACE.append(_register_rules)
codegen.SPELLED_WITH["vmap"] = (vmap, cached_vmap)
