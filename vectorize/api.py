"""The public entry points: ``vectorize`` (a drop-in for ``numpy.vectorize``) and ``vmap``.

Both are thin boundaries around one engine (`transform.transform_function`): they turn the
call's arguments into abstract values, look up (or build) the specialization for them, run it,
and put the batch axis where the caller expects it. Inside generated code the batch axis is
always axis 0.
"""

from __future__ import annotations

import functools
import inspect
import math
import types
import warnings

import numpy as np

from . import backends, chunks, pickling, tensors
from .abstract import PythonSemantics, TupleValue, Value, representative
from .chunks import check_chunk_size
from .dask_runtime import block_stand_ins, wants_dask
from .errors import RAISES, BackendFailure, VectorizeError
from .frontend import (  # noqa: F401 -- MAX_SPECIALIZATIONS and the warning are public here
    MAX_SPECIALIZATIONS,
    MISSING,
    Announcer,
    Entry,
    FallbackSpec,
    SpecCache,
    VectorizeFallbackWarning,
    as_is_key,
    build,
    check_backend,
    check_cache_dir,
    check_fallback,
    compiled_plan,
    fallback_source,
    guard_checks,
    rule_arity,
    rule_wrapper,
    specialized_on,
)
from .gufunc import parse_input_dimensions, parse_signature, update_dim_sizes
from .introspect import python_function_of
from .spec_facts import ASSUMED

_SIZED_FALLBACKS = 4   # core sizes tried per signature pattern before a fallback serves all


class vectorize:
    """Drop-in for ``numpy.vectorize`` that really vectorizes.

    ``vectorize(pyfunc=None, *, otypes=None, doc=None, excluded=None, cache=False,
    signature=None, fallback="warn")``, usable bare (``@vectorize``) or with arguments
    (``@vectorize(otypes=[float])``). The per-example function is translated to NumPy code
    once per argument pattern (batched or not, dtype); ``.source(*args)`` shows that code.

    ``signature="(n),(n)->()"`` is numpy.vectorize's: the per-example function gets arrays of
    the core shapes. The loop dimensions are broadcast and flattened into the one batch axis
    of the generated code and restored on the outputs; inputs and outputs are checked with
    numpy's errors. Empty loops need no ``otypes`` unless the signature has output-only
    dimensions (numpy's error then).

    ``fallback``: ``"error"`` raises `VectorizeError` for anything not truly vectorized;
    ``"warn"`` (default) runs untranslatable pieces per example and warns once; ``"loop"`` does
    the same silently.

    ``chunk_size``: lanes per call of the generated code on a large batch (`vectorize.chunks`):
    ``"auto"`` (default) picks it, ``None`` runs the whole batch in one call. Chunks of code
    without shared state run on ``VECTORIZE_NUM_THREADS`` threads (default: the CPUs, at most
    8).

    ``cache_dir``: a directory where generated code is kept for the next processes
    (`vectorize.diskcache`); ``None`` (default): the ``VECTORIZE_CACHE_DIR`` environment
    variable's, else none; ``True``: ``~/.cache/vectorize``; ``False``: none.
    """

    def __init__(self, pyfunc=np._NoValue, otypes=None, doc=None, excluded=None, cache=False,
                 signature=None, *, fallback="warn", chunk_size="auto", cache_dir=None,
                 backend=None):
        if (pyfunc is not np._NoValue and pyfunc is not None) and not callable(pyfunc):
            raise TypeError("pyfunc must be callable, got "
                            f"{type(pyfunc).__name__}; use vectorize(otypes=...) as a "
                            "decorator with keyword arguments")
        self.pyfunc = pyfunc
        self.cache = cache
        self.signature = signature
        self.fallback = check_fallback(fallback)
        self.chunk_size = check_chunk_size(chunk_size)
        self.cache_dir = check_cache_dir(cache_dir)
        check_backend(backend)
        self.backend = backend      # None: chosen from the arguments
        if isinstance(otypes, str):
            otypes = list(otypes)
        self.otypes = otypes
        self.excluded = set(excluded or ())
        self._specs = SpecCache()
        self._sized_fallbacks: dict = {}   # signature key -> fallbacks kept for their sizes
        self._explain = False   # record which rule rewrote which line (`explain`)
        if pyfunc is not np._NoValue and pyfunc is not None:
            self.__wrapped__ = pyfunc
            self.__name__ = getattr(pyfunc, "__name__", type(pyfunc).__name__)
            self.__qualname__ = getattr(pyfunc, "__qualname__", self.__name__)
            self.__module__ = getattr(pyfunc, "__module__", None)
            self.__doc__ = pyfunc.__doc__ if doc is None else doc
        elif doc is not None:
            self.__doc__ = doc
        self._announce = Announcer(
            self.fallback, f"vectorize: {getattr(self, '__name__', 'function')}")
        self._binding = None
        self._var_keyword = None    # the name of a `**` parameter (`_make_binding`)
        self._var_positional = None     # the name of a `*` parameter (`_make_binding`)
        self._lead_keywords = {}    # a functools.partial's keywords (`_make_binding`)
        self._last = None       # the last call's fast path (`_FastPath`), when it has one
        self._warm = None       # its whole warm call, where nothing else is checked
        self._core_signature = None
        if signature is not None:
            self._core_signature = parse_signature(signature)

    # ----------------------------------------------------------------------- descriptors
    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self, obj)

    def __repr__(self):
        return f"<vectorize {getattr(self, '__name__', '?')}>"

    # --------------------------------------------------------------------------- calling
    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        if name in _WARM_OPTIONS:
            # `_warm` holds only for the options it was made under (`_warm_for`)
            object.__setattr__(self, "_warm", None)

    def _warm_for(self, last):
        """`_warm`: the fast path ``last`` 's whole warm call (`_warm_call`) where a call
        needs nothing else checked before it (no backend to ask: none named, or one that
        never needs a context around a call, `_no_numpy_call`; no ``otypes``; the
        ``chunk_size`` it was made for), else None. Set again by every set of an option
        (`_WARM_OPTIONS`), so that `__call__` reads one attribute where it read six."""
        warm = None if last is None else last.warm
        if warm is not None and (self.otypes is not None or
                                 last.chunk_size is not self.chunk_size or
                                 not _no_numpy_call(self.backend)):
            warm = None
        object.__setattr__(self, "_warm", warm)

    def __call__(self, *args, **kwargs):
        warm = self._warm
        if warm is not None and not kwargs and not self.excluded:
            # the whole call unrolled (`_warm_call`, `_warm_for`): the matching arguments'
            # result, None where they do not match, (output, arguments) where the output
            # needs `_finish`
            try:
                out = warm(args)
            except Exception as exc:        # noqa: BLE001 -- as `_fast_failed` decides
                return self._fast_failed(exc, self._last, args, kwargs)
            if type(out) is _NDARRAY:
                return out
            if out is not None:
                last = self._last
                return self._finish(out[0], last.entry, args, kwargs, last.shape, last.size,
                                    out[1])
        if self.backend is not None:
            numpy_call = backends.get(self.backend).numpy_call(args, kwargs)
            if numpy_call is not None:
                with numpy_call:      # NumPy arrays in: NumPy's promotions
                    return self(*args, **kwargs)
        # (first: `_last` is only ever set on a call of a function, never on the decorator's)
        last = self._last
        if last is not None and not kwargs and not self.excluded:
            warm = last.warm
            if warm is not None and warm is not self._warm and \
                    last.chunk_size is self.chunk_size and not self.otypes:
                if self._warm is None and self.backend is None and self.otypes is None:
                    self._warm_for(last)    # (an option set back: the next calls' again)
                # the whole call unrolled (`_warm_call`): the matching arguments' result, None
                # where they do not match, (output, arguments) where the output needs
                # `_finish`
                try:
                    out = warm(args)
                except Exception as exc:        # noqa: BLE001 -- as `_fast_failed` decides
                    return self._fast_failed(exc, last, args, kwargs)
                if type(out) is _NDARRAY:
                    return out
                if out is not None:
                    return self._finish(out[0], last.entry, args, kwargs, last.shape,
                                        last.size, out[1])
            call_args = last.match(args)
            if call_args is not None:
                run = last.run
                if run is not None and last.chunk_size is self.chunk_size:
                    # one call of the generated function (`_FastPath.run`)
                    try:
                        out = run(*call_args)
                    except Exception as exc:    # noqa: BLE001 -- as `_fast_failed` decides
                        return self._fast_failed(exc, last, args, kwargs)
                    if last.simple and not self.otypes:
                        arr = out if last.to_numpy is None else last.to_numpy(out)
                        if type(arr) is _NDARRAY and arr.shape == last.flat:
                            if not last.owned:
                                arr = _own(arr, call_args)
                            return arr if last.flat is last.shape else arr.reshape(last.shape)
                    elif last.to_numpy is not None:
                        out = tuple(map(last.to_numpy, out)) if isinstance(out, tuple) else \
                            last.to_numpy(out)
                    return self._finish(out, last.entry, args, kwargs, last.shape,
                                        last.size, call_args)
                entry = last.entry
                out = self._run_or_replay(entry, call_args, last.size, last.batched)
                if out is _REPLAY:
                    return self._replay(args, kwargs, entry.spec.result, last.size,
                                        _static_types(entry))
                return self._finish(out, entry, args, kwargs, last.shape, last.size,
                                    call_args)
        # (not ``"_tensor_warm" in self.__dict__``: reading ``__dict__`` makes it a dict of its
        # own, and Python 3.11 then no longer specializes this object's attribute reads, a
        # tenth of a microsecond on every warm call; before the checks below, which a call
        # `tensors._remember` kept passed: a function's, not all arguments excluded)
        if not kwargs and not self.excluded and getattr(self, "_tensor_warm", None) is not None:
            out = tensors.call_warm(self, args)     # tensors like the last call's
            if out is not NotImplemented:
                return out
        if self.pyfunc is np._NoValue or self.pyfunc is None:
            if len(args) != 1 or kwargs or not callable(args[0]):
                raise TypeError("vectorize used as a decorator expects one function")
            return vectorize(args[0], otypes=self.otypes, doc=self.__doc__ if
                             self.__doc__ is not vectorize.__doc__ else None,
                             excluded=self.excluded, cache=self.cache,
                             signature=self.signature, fallback=self.fallback,
                             chunk_size=self.chunk_size, cache_dir=self.cache_dir,
                             backend=self.backend)
        if self._core_signature is None and _maps_nothing(args, kwargs, self.excluded):
            # numpy.vectorize calls the function as it is when no argument is mapped (none,
            # or all excluded): its result unconverted, whatever `otypes` says
            return self.pyfunc(*args, **kwargs)
        if wants_dask(args, kwargs):   # a Dask array in: Dask arrays out, nothing computed
            from .dask_runtime import call_vectorize
            return call_vectorize(self, args, kwargs)
        unusual = _unusual_arguments(args, kwargs)
        if unusual == "tensor":
            out = tensors.call(self, args, kwargs)   # tensors in, tensors out (docs/torch.md)
            if out is not NotImplemented:
                return out
        elif unusual == "matrix":
            return self._matrix_call(args, kwargs)
        elif unusual == "subclass":
            out = self._subclass_call(args, kwargs)
            if out is not NotImplemented:
                return out
        if self._core_signature is not None:
            return self._call_with_signature(args, kwargs)
        plan = self._plan(args, kwargs)
        if plan is None:
            return self._numpy_loop(args, kwargs)
        entry, call_args, shape, batched = plan
        spec = entry.spec
        if isinstance(spec, FallbackSpec):
            self._announce(spec.reason, spec)
            return self._numpy_loop(args, kwargs)
        if getattr(spec, "facts", ASSUMED).identities and any(
                not isinstance(a, (np.ndarray, np.generic)) for a in (*args, *kwargs.values())):
            # (`x is NAN` decided false: numpy.vectorize hands a list's items, or a Python
            # number itself, as they are)
            return self._numpy_loop(args, kwargs)
        if spec.fallbacks:
            self._announce("; ".join(spec.fallbacks), spec)
        elif not kwargs and not self.excluded and self._var_positional is None and \
                not self._lead_keywords:
            self._last = _FastPath.of(args, entry, shape, batched, self._binding,
                                       self.chunk_size, call_args) or self._last
            self._warm_for(self._last)
        out = self._run_or_replay(entry, call_args, math.prod(shape), batched)
        if out is _REPLAY:
            return self._replay(args, kwargs, spec.result, math.prod(shape),
                                _static_types(entry))
        return self._finish(out, entry, args, kwargs, shape, math.prod(shape), call_args)

    def _finish(self, out, entry, args, kwargs, shape, size, call_args):
        """The call's results from the generated function's outputs ``out``: each cast to
        the type numpy.vectorize gives it (the user's ``otypes``; else, where the entry
        probes, the types of the first example's results as numpy.vectorize learns them,
        `_first_example_types`; else `Entry.otypes`), or numpy.vectorize's own answer where
        its conversion of the per-example results would raise (`_casts_hold`)."""
        probe = entry.probe
        if type(probe) is tuple and not self.otypes:
            cast = probe[0]     # (learned on an earlier call: the dtypes decide it)
        elif probe and not self.otypes:
            cast = self._first_example_types(args, kwargs, out)
            if not size and cast is _REPLAY:
                cast = _static_types(entry)     # (no example raises: the code's types)
            elif probe == "dtypes" and cast is not _REPLAY:
                entry.probe = (cast,)
        else:
            cast = _static_types(entry)
        if cast is _REPLAY or not self._outputs_hold(out, entry.spec) or \
                not _casts_hold(out, cast):
            return self._replay(args, kwargs, entry.spec.result, size, _static_types(entry))
        outputs = self._outputs(out, entry.spec.result, shape, call_args, cast)
        if self.cache and not self.otypes and size and not self._cached_first_holds(
                args, kwargs, outputs):
            return self._replay(args, kwargs)
        return outputs

    def _first_call(self, args, kwargs) -> tuple | None:
        """numpy.vectorize's call that learns the output types: the function on the first
        item of every argument, NumPy scalars of the arguments' own dtypes (an empty
        argument, where numpy.vectorize needs otypes: an item of ones, the types such an
        example would give); its results as a tuple, None where it raises (numpy.vectorize
        raises it: the replay). What it warns, the batched code has warned."""
        func, vargs = self._as_numpy_calls(args, kwargs)
        inputs = [a.flat[0] if a.size else np.ones((), a.dtype)[()]
                  for a in map(np.asarray, vargs)]
        # (under the caller's errstate, as numpy.vectorize's call: a warning the function
        # itself makes an error, `warnings.simplefilter("error")`, raises there)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                first = func(*inputs)
            except Exception:   # noqa: BLE001 -- numpy.vectorize raises it: the replay
                return None
        return first if isinstance(first, tuple) else (first,)

    def _cached_first_holds(self, args, kwargs, outputs) -> bool:
        """``cache=True``: whether the first item of each of ``outputs`` is what
        numpy.vectorize keeps there, the result of the call that learns the output types
        (on NumPy scalars of the first items: ``a * 3`` of a uint8 254 wraps to 250 there,
        762 in every other example, a Python int), cast to that output's dtype. False where
        that call raises (numpy.vectorize raises it: the replay does)."""
        first = self._first_call(args, kwargs)
        if first is None:
            return False
        outs = outputs if isinstance(outputs, tuple) else (outputs,)
        if len(first) != len(outs):
            return False
        for item, mine in zip(first, outs):
            mine = np.asarray(mine)
            if not mine.size or np.ndim(item) != 0:
                return False
            try:
                with warnings.catch_warnings(), np.errstate(all="ignore"):
                    warnings.simplefilter("ignore")
                    kept = np.asarray(item).astype(mine.dtype)
            except Exception:   # noqa: BLE001 -- numpy.vectorize's conversion decides
                return False
            got = mine.flat[0]
            if not (kept == got or (kept != kept and got != got)):
                return False
        return True

    def _first_example_types(self, args, kwargs, out):
        """Per output, the dtype numpy.vectorize gives it where it differs from ``out``'s
        (else None; None for all of them: no cast), or `_REPLAY` where numpy.vectorize's
        call raises: as numpy.vectorize learns its output types (`_get_ufunc_and_otypes`),
        the function called once on the first item of every argument, NumPy scalars of the
        arguments' own dtypes (`np.int8`, `np.float32`...). That type depends on the
        dtypes (`np.sin` of an int8 is float16, a Python float times a float32 is float32:
        NEP 50) and on the first example's values (`min(n, x)` of an int and a float, `x
        and y`), which the batched code cannot tell apart; the values are still every
        example's Python ones, cast (`_cast`). An empty argument gives an item of ones."""
        first = self._first_call(args, kwargs)
        if first is None:
            return _REPLAY
        outs = out if isinstance(out, tuple) else (out,)
        if len(first) != len(outs):
            return _REPLAY
        cast = []
        for item, mine in zip(first, outs):
            dtype = np.asarray(item).dtype
            have = mine.dtype if isinstance(mine, np.ndarray) else np.asarray(mine).dtype
            # (an object output, `x if c else None`: numpy.vectorize's is the first example's
            # type where that is a number, `_converts` deciding on the Nones)
            cast.append(dtype if dtype != have and dtype.kind in "biufc" and
                        have.kind in "biufcO" and np.ndim(item) == 0 else None)
        return tuple(cast) if any(c is not None for c in cast) else None

    def __reduce__(self):
        # what another process (a Dask worker) needs: the function and the options
        return pickling.reduce(self, vectorize, dict(
            pyfunc=self.pyfunc, otypes=self.otypes, doc=self.__doc__, excluded=self.excluded,
            cache=self.cache, signature=self.signature, fallback=self.fallback,
            chunk_size=self.chunk_size, cache_dir=self.cache_dir, backend=self.backend),
            self.pyfunc)

    def _matrix_call(self, args, kwargs):
        """A call with `np.matrix` arguments, as numpy.vectorize makes it: each example is a
        number (`*` of two is a product of numbers, not of matrices) and the outputs are
        matrices of the broadcast shape. An excluded matrix, or one cut into core-shaped
        examples by a ``signature``, reaches the function as a matrix (whose `*` is a
        matrix product): numpy.vectorize's own loop runs those."""
        names = list(_signature(self._target()[0]).parameters) if self._target() else []
        as_given = [i for i, a in enumerate(args) if type(a) is np.matrix and (
            i in self.excluded or (i < len(names) and names[i] in self.excluded))]
        as_given += [k for k, a in kwargs.items() if type(a) is np.matrix and k in self.excluded]
        if as_given or self._core_signature is not None:
            reason = ("a numpy.matrix argument reaches the function as a matrix (its `*` is a "
                      "matrix product)")
            return self._numpy_loop_for(reason, "matrix", args, kwargs)
        out = self(*[np.asarray(a) if type(a) is np.matrix else a for a in args],
                   **{k: np.asarray(a) if type(a) is np.matrix else a
                      for k, a in kwargs.items()})
        return tuple(map(_as_matrix, out)) if isinstance(out, tuple) else _as_matrix(out)

    def _numpy_loop_for(self, reason: str, kind: str, args, kwargs):
        """numpy.vectorize's own loop for a call whose arguments reach the function as they
        are (``reason``), warned once per kind and reason; refused where fallback='error'."""
        if self.fallback == "error":
            code = getattr(self._target()[0] if self._target() else None, "__code__", None)
            raise VectorizeError(f"cannot vectorize `{getattr(self, '__name__', '?')}`: "
                                 f"{reason}", filename=code.co_filename if code else
                                 "<unknown>", line=code.co_firstlineno if code else 0,
                                 suggestion="pass np.asarray(...) of it, or fallback='warn'")
        self._announce(reason, FallbackSpec(reason, ""), stacklevel=5, once=(kind, reason))
        return self._numpy_loop(args, kwargs)

    def _subclass_call(self, args, kwargs):
        """A call with arguments of an ndarray subclass (a masked array, a user's subclass),
        as numpy.vectorize makes it: its examples are the numbers of the data (a masked
        example too), and its outputs are what its ufunc over the arguments gives, wrapped
        by their ``__array_wrap__`` (a masked array's mask is that of the arguments
        combined). The batched code runs on the data; the outputs are wrapped by a ufunc
        that hands the values through (one Python call per item). An excluded one, and a
        masked one cut into core-shaped examples by a signature, reach the function as they
        are: numpy.vectorize's own loop runs that call. NotImplemented: a call with a
        signature and no masked array, which `_call_with_signature` makes (its examples
        keep their subclass)."""
        names = list(_signature(self._target()[0]).parameters) if self._target() else []
        excluded = [i for i, a in enumerate(args) if _subclassed(a) and (
            i in self.excluded or (i < len(names) and names[i] in self.excluded))]
        excluded += [k for k, a in kwargs.items() if _subclassed(a) and k in self.excluded]
        masked = any(isinstance(a, np.ma.MaskedArray) for a in (*args, *kwargs.values()))
        if self._core_signature is not None and not masked:
            return NotImplemented     # (a subclass's core-shaped examples: its operations)
        if excluded or self._core_signature is not None:
            reason = ("an excluded argument of an ndarray subclass reaches the function as it "
                      "is (its operations are the subclass's)" if excluded else
                      "a masked array cut into core-shaped examples by a signature reaches the "
                      "function as masked arrays (their reductions skip the masked items)")
            return self._numpy_loop_for(reason, "subclass", args, kwargs)
        mapped = [a for i, a in enumerate(args) if i not in self.excluded and not (
            i < len(names) and names[i] in self.excluded)]
        mapped += [a for k, a in kwargs.items() if k not in self.excluded]
        out = self(*[np.asarray(a) if _subclassed(a) else a for a in args],
                   **{k: np.asarray(a) if _subclassed(a) else a for k, a in kwargs.items()})
        if isinstance(out, tuple):
            return tuple(_wrapped_like_ufunc(o, mapped) for o in out)
        return _wrapped_like_ufunc(out, mapped)

    def source(self, *args, **kwargs) -> str:
        """The generated source of the specialization these arguments select."""
        if self.backend is not None:
            numpy_call = backends.get(self.backend).numpy_call(args, kwargs)
            if numpy_call is not None:
                with numpy_call:      # NumPy arrays in: NumPy's promotions
                    return self.source(*args, **kwargs)
        if wants_dask(args, kwargs):   # what each block of a Dask array runs
            args, kwargs = block_stand_ins(args, kwargs)
        if tensors.takes_tensors(args, kwargs):
            text = tensors.source(self, args, kwargs)
            if text is not None:
                return text
        if self._core_signature is not None:
            entry = self._entry(args, kwargs)
            if entry is None:
                return fallback_source(self.pyfunc, "numpy.vectorize's own rules decide for "
                                        "these arguments", "numpy.vectorize loop")
            return entry.spec.source
        entry, _, shape, _ = self._plan(args, kwargs, announce=False)
        if shape is None:       # numpy.vectorize's own loop
            return entry.spec.source
        return chunks.source_for(entry.spec, entry.tuning, math.prod(shape), self.chunk_size)

    def _entry(self, args, kwargs):
        """The specialization (`Entry`) these arguments select, or None where numpy.vectorize's
        own loop runs them."""
        if self._core_signature is not None:
            plan = self._signature_plan(args, kwargs)
        else:
            plan = self._plan(args, kwargs, announce=False)
        return None if plan is None else plan[0]

    # --------------------------------------------------------- signature (gufunc) calls
    def _call_with_signature(self, args, kwargs):
        """numpy.vectorize's ``_vectorize_call_with_signature``, vectorized: the loop
        dimensions of the inputs are broadcast and flattened into the one batch axis of the
        generated code, whose outputs are checked against the signature and given the loop
        shape back."""
        plan = self._signature_plan(args, kwargs)
        if plan is None:
            return self._numpy_loop(args, kwargs)
        entry, call_args, loop_shape, size, dim_sizes, batched = plan
        spec = entry.spec
        out_dims = self._core_signature[1]
        if isinstance(spec, FallbackSpec):
            # once per reason: a fallback is kept per core sizes, its reason is often the same
            self._announce(spec.reason, spec, stacklevel=4, once=("reason", spec.reason))
            return self._numpy_loop(args, kwargs)
        n_results = len(spec.result.items) if isinstance(spec.result, TupleValue) else 1
        if size == 0 and (n_results != len(out_dims) or spec.fallbacks):
            # pyfunc never runs on an empty batch, and a per-example piece (a list
            # comprehension over no lanes) cannot tell the shape: numpy's rules decide
            return self._numpy_loop(args, kwargs)
        if n_results != len(out_dims):
            # numpy.vectorize's ValueError, where its first example returns (its loop
            # raises that example's exception where it raises first)
            return self._numpy_loop(args, kwargs)
        if spec.fallbacks:
            self._announce("; ".join(spec.fallbacks), spec, stacklevel=4)
        narrow = size != 0 and _narrow_int_inputs(args, kwargs, self.excluded)
        if size == 0:
            try:
                # (a backend that takes its own arrays: NumPy's converted in and out, as
                # `_run` converts them for a batch of any size)
                out = self._call(spec.function, call_args) if backends.get(
                    spec.backend).chunked_runs else self._run(entry, call_args, size, batched)
                outputs = self._signature_outputs(out, spec.result, loop_shape, size,
                                                  dim_sizes, call_args)
            except Exception:   # the generated code cannot run on an empty batch
                outputs = None
        elif narrow and getattr(spec, "facts", ASSUMED).python_ints:
            # a Python int made per example meets NumPy scalars of a narrow int dtype: NEP
            # 50's weak int computes in that dtype (wrapping, or OverflowError), where the
            # batched code's int64 arrays do not: numpy.vectorize's loop decides
            return self._replay(args, kwargs)
        else:
            out = self._run_or_replay(entry, call_args, size, batched)
            if out is _REPLAY:     # some example raises, or a check fired: the loop decides
                return self._replay(args, kwargs)
            outputs = self._signature_outputs(out, spec.result, loop_shape, size, dim_sizes,
                                              call_args)
            facts = getattr(spec, "facts", ASSUMED)
            if outputs is not None and (not self.otypes and (facts.joins or narrow) or
                                        facts.scalar_raises) and \
                    not self._first_signature_types_hold(args, kwargs, outputs):
                # numpy.vectorize's outputs take the first example's result types (an int
                # on its path, where another path gives a float): its loop decides
                return self._replay(args, kwargs)
        if outputs is None:
            return self._numpy_loop(args, kwargs)
        return outputs

    def _as_numpy_calls(self, args, kwargs):
        """The function numpy.vectorize calls per example and the arguments it loops over:
        its own wrapper (`_call_as_normal`) where arguments are excluded or passed by
        keyword (the items of the others, in order, then the keyword ones)."""
        excluded = self.excluded
        if not kwargs and not excluded:
            return self.pyfunc, list(args)
        names = [n for n in kwargs if n not in excluded]
        inds = [i for i in range(len(args)) if i not in excluded]
        pyfunc, given = self.pyfunc, list(args)

        def func(*items):
            for n, i in enumerate(inds):
                given[i] = items[n]
            return pyfunc(*given, **{**kwargs, **dict(zip(names, items[len(inds):]))})
        return func, [args[i] for i in inds] + [kwargs[n] for n in names]

    def _first_signature_types_hold(self, args, kwargs, outputs) -> bool:
        """Whether ``outputs`` (a call with a ``signature``, which chooses values per example)
        have the dtypes of the first example's results, as numpy.vectorize's
        ``_vectorize_call_with_signature`` makes its output arrays from them: the function
        called on the first core-shaped item of every input (NumPy scalars for no core
        dimensions). False where that call raises (its loop raises it)."""
        func, vargs = self._as_numpy_calls(args, kwargs)
        arrays = [np.asanyarray(a) for a in vargs]
        inputs = [a[(0,) * (a.ndim - len(dims))]
                  for a, dims in zip(arrays, self._core_signature[0])]
        # (under the caller's errstate, as numpy.vectorize's call: a warning the function
        # itself makes an error, `warnings.simplefilter("error")`, raises there)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                first = func(*inputs)
            except Exception:   # noqa: BLE001 -- numpy.vectorize raises it: the replay
                return False
        first = first if isinstance(first, tuple) else (first,)
        outs = outputs if isinstance(outputs, tuple) else (outputs,)
        return len(first) == len(outs) and all(
            np.asarray(item).dtype == np.asarray(mine).dtype for item, mine in zip(first, outs))

    def _signature_plan(self, args, kwargs):
        """(specialization (`Entry`), arguments for the generated function, loop shape, loop
        size, core dimension sizes, whether each argument is batched), or None when numpy's
        own loop must run (arguments that do not bind to pyfunc; an empty loop whose translation
        raised). Raises numpy.vectorize's errors for arguments that do not fit the signature.

        The inputs are, as in numpy.vectorize, the positional arguments that are not
        `excluded` followed by the keyword arguments that are not, in the order given. An
        input whose loop dimensions all have size 1 is passed unbatched (its core-shaped
        value; a NumPy scalar for no core dimensions) when the loop has another size; every
        other input becomes an array of shape ``(loop size, *core shape)``. The cache key
        holds each input's core rank, never its sizes (a fallback is kept for its sizes
        only, for the first few sizes that fall back)."""
        in_dims = self._core_signature[0]
        excluded = self.excluded
        sources = [i for i in range(len(args)) if i not in excluded]
        sources += [name for name in kwargs if name not in excluded]
        if len(sources) != len(in_dims):
            raise TypeError("wrong number of positional arguments: "
                            f"expected {len(in_dims)!r}, got {len(sources)!r}")
        arrays = [np.asanyarray(args[s] if type(s) is int else kwargs[s]) for s in sources]
        loop_shape, dim_sizes = parse_input_dimensions(arrays, in_dims)
        size = math.prod(loop_shape)
        if size == 0 and any(dim not in dim_sizes for dims in self._core_signature[1]
                             for dim in dims):
            # numpy.vectorize never calls pyfunc here: its error, whatever pyfunc is
            raise ValueError("cannot call `vectorize` with a signature including new output "
                             "dimensions on size 0 inputs")
        binding = self._binding if self._binding is not None else self._make_binding()
        if isinstance(binding, str):
            return self._fallback_plan(binding, args, kwargs)[0], None, loop_shape, size, \
                dim_sizes, None
        func, lead, sig, names, n_positional = binding
        star = self._var_positional
        if star is not None:
            if (kwargs or lead or self._lead_keywords or excluded
                    or names[-1] != star or len(args) < n_positional):
                return self._fallback_plan("it takes *args and has a signature", args,
                                           kwargs)[0], None, loop_shape, size, dim_sizes, None
            # each input one parameter: the named ones, then the items of `*args`
            # (`_spread_var_positional`), one specialization per number of them
            names = names[:-1] + [f"{star}[{i}]" for i in range(len(args) - n_positional)]
            bound = tuple(zip(args, range(len(args))))
        elif (not kwargs and not lead and not self._lead_keywords and not excluded
                and len(args) == len(names)
                and n_positional == len(names)):
            bound = tuple(zip(args, range(len(args))))   # (value, input) per parameter
        else:
            bound = self._bind_signature(sig, names, lead, args, kwargs, sources,
                                         self._lead_keywords)
            if bound is None:
                return None   # numpy's loop calls pyfunc, which raises Python's own error
        call_args, key = [], []
        for name, (value, k) in zip(names, bound):
            if k is None:   # passed as it is: bound, `excluded`, or a default
                call_args.append(value)
                key.append(as_is_key(value))
                continue
            arr = arrays[k]
            if arr.ndim == 0 and not in_dims[k] and _passed_as_is(arr):
                call_args.append(arr[()])       # (a string or flag for every example, as
                key.append(as_is_key(arr[()]))  # without a signature)
                continue
            if arr.dtype.kind in "OUSVmM":
                return self._fallback_plan(f"argument `{name}` has dtype {arr.dtype}", args,
                                           kwargs)[0], None, loop_shape, size, dim_sizes, None
            n_core = len(in_dims[k])
            n_loop = arr.ndim - n_core
            core = arr.shape[n_loop:]
            if size != 1 and all(n == 1 for n in arr.shape[:n_loop]):
                arg = arr.reshape(core)
                key.append(("u", arr.dtype.char, n_core))
            else:
                if arr.shape[:n_loop] != loop_shape:
                    arr = np.broadcast_to(arr, loop_shape + core, subok=True)
                arg = arr.reshape((size,) + core)
                key.append(("b", arr.dtype.char, n_core))
            if arg.ndim == 0:
                arg = arg[()]
            elif arg.flags.writeable:
                # numpy.vectorize hands out read-only views: writing into an input raises
                # there, and must never write into the caller's array here
                arg.flags.writeable = False
            call_args.append(arg)
        key = ("signature", tuple(key))
        entry = self._specs.get(key)
        if entry is None:
            # the abstract examples have this call's core sizes, and whether a function
            # translates can depend on them (`a[1]` of a 1-element example, a reduction of an
            # empty one): a translation serves every size, a fallback only these sizes
            sized = key + (tuple(None if _is_as_is(k) else np.shape(a)[k[0] == "b":]
                                 for a, k in zip(call_args, key[1])),)
            entry = self._specs.get(sized)
            if entry is None:
                try:
                    entry = self._specs.get_or_build(key, lambda: self._build(
                        func, _signature_params(names, call_args, key[1]),
                        var_positional=star))
                except VectorizeError:
                    raise
                except Exception:
                    # an example raised as pyfunc would (a reduction of an empty core): on an
                    # empty loop pyfunc never runs, so numpy's own rules decide
                    if size:
                        raise
                    return None
                if isinstance(entry.spec, FallbackSpec):
                    tried = self._sized_fallbacks.setdefault(key, set())
                    if len(tried) < _SIZED_FALLBACKS:   # then it serves every size
                        tried.add(sized[-1])
                        entry = self._specs.refile(key, sized, entry)
        batched = [type(k) is tuple and k[0] == "b" for k in key[1]]
        return entry, call_args, loop_shape, size, dim_sizes, batched

    @staticmethod
    def _bind_signature(sig, names, lead, args, kwargs, sources, lead_keywords=None):
        """(value, index of the signature input or None when passed as it is) per parameter,
        or None when the arguments do not bind. ``lead_keywords``: a partial's keywords."""
        try:
            bound = sig.bind(*lead, *args, **{**(lead_keywords or {}), **kwargs})
        except TypeError:
            return None
        input_of = {s: k for k, s in enumerate(sources)}
        n_lead, n_args = len(lead), len(args)
        out = []
        for index, name in enumerate(names):
            pos = index - n_lead
            if name not in bound.arguments:
                out.append((sig.parameters[name].default, None))
            elif pos < 0 or (name in (lead_keywords or ()) and name not in kwargs):
                out.append((bound.arguments[name], None))
            else:
                out.append((bound.arguments[name],
                            input_of.get(pos if pos < n_args else name)))
        return out

    def _signature_outputs(self, out, result, loop_shape, size, dim_sizes, call_args):
        """The outputs with the loop shape back, checked against the signature as
        numpy.vectorize checks its first result; None when numpy's own loop must decide (a
        result with more dimensions than its core dimensions that numpy cannot assign into
        its core-shaped slot: its loop raises on the first example)."""
        out_dims = self._core_signature[1]
        if isinstance(result, TupleValue):
            outs, items = tuple(out), result.items
        else:
            outs, items = (out,), (result,)
        dim_sizes = dict(dim_sizes)
        checked = []
        for value, item, dims in zip(outs, items, out_dims):
            arr = np.asanyarray(value)
            # a batched result can come back without its batch axis on a path that returned
            # an unbatched value: it is then the same for every example
            batched = (getattr(item, "batched", False) and arr.ndim > item.rank
                       and arr.shape[0] == size)
            core = arr.shape[1:] if batched else arr.shape
            update_dim_sizes(dim_sizes, core, dims)
            extra = len(core) - len(dims)
            if extra:
                # numpy assigns the result into its core-shaped slot, which drops leading
                # dimensions of size 1; anything else fails there on the first example
                if not dims or any(n != 1 for n in core[:extra]):
                    return None
                core = core[extra:]
                arr = arr.reshape(((size,) if batched else ()) + core)
            checked.append((arr, batched, core))
        otypes = self.otypes
        if otypes:
            checked = checked[:len(otypes)]   # numpy zips outputs with otypes
        results = []
        for index, (arr, batched, core) in enumerate(checked):
            if batched:
                arr = _own(arr, call_args).reshape(loop_shape + core)
            else:
                arr = np.broadcast_to(arr, loop_shape + core, subok=True).copy()
            if otypes:
                if not _cast_holds(arr, otypes[index]) or np.dtype(
                        otypes[index]).kind in "USO":
                    # numpy.vectorize's conversion raises, or (a string otype) makes arrays
                    # of one character, whatever the otype's width, or (object) keeps the
                    # NumPy scalars its examples give: its loop decides
                    return None
                arr = arr.astype(otypes[index], copy=False)
            results.append(arr)
        return results[0] if len(out_dims) == 1 else tuple(results)

    def _numpy_loop(self, args, kwargs):
        # numpy.vectorize itself, as the user would have called it: `cache=True` would keep
        # the first example's result from the call that learns the output types, which gets
        # NumPy scalars (`1 / 0` is inf there, ZeroDivisionError in every other example)
        vec = np.vectorize(self.pyfunc, otypes=self.otypes, excluded=self.excluded,
                           cache=self.cache, signature=self.signature)
        return vec(*args, **kwargs)

    def _target(self):
        """(plain function, leading arguments bound to it) or None when there is none."""
        func, lead = python_function_of(self.pyfunc), ()
        if isinstance(func, functools.partial):
            # its keywords: `_make_binding` (`_lead_keywords`)
            lead, func = func.args, func.func
        if not isinstance(func, (types.FunctionType, types.MethodType, type)):
            if type(func).__module__.split(".")[0] == __name__.split(".")[0]:
                return None     # what vectorize made (a vmap, a vectorize): no source to read
            # a callable instance: its class's `__call__`, with the instance as `self`
            call = next((vars(k)["__call__"] for k in type(func).__mro__
                         if "__call__" in vars(k)), None)
            if isinstance(call, types.FunctionType):
                func = types.MethodType(call, func)
        if isinstance(func, types.MethodType):
            lead, func = (func.__self__,) + tuple(lead), func.__func__
        if not isinstance(func, types.FunctionType):
            # a callable without source whose batching rule the registry knows
            # (`vectorize(math.cos)`, `np.outer`): the one-line function that calls it
            count = rule_arity(func)
            func = None if count is None else rule_wrapper(func, count,
                                                           self.backend or "numpy")
            if func is None:
                return None
        return func, lead

    def _plan(self, args, kwargs, announce=True):
        """(specialization (`Entry`), arguments for the generated function, broadcast shape,
        whether each argument is batched), or None when numpy's own loop must run. The cache
        key is computed from the arguments without building any abstract value; those are
        built only when a specialization is made."""
        binding = self._binding if self._binding is not None else self._make_binding()
        if isinstance(binding, str):
            return self._fallback_plan(binding, args, kwargs)
        func, lead, sig, names, n_positional = binding
        if (not kwargs and not lead and not self._lead_keywords and not self.excluded
                and len(args) == len(names) and n_positional == len(names)):
            values, as_is = args, ()
        else:
            values, as_is = self._bind(sig, names, lead, args, kwargs)
            if self._var_keyword is not None and values[names.index(self._var_keyword)]:
                return self._fallback_plan("it is called with keyword arguments that go to "
                                           "its `**` parameter", args, kwargs)
            if self._var_positional is not None:
                if self.excluded:
                    return self._fallback_plan("it takes *args and has `excluded` arguments",
                                               args, kwargs)
                names, values, as_is = _spread_var_positional(self._var_positional, names,
                                                              values, as_is)
        arrays, uniform_shapes = [], []
        for index, value in enumerate(values):
            if index in as_is:
                arrays.append(None)
                continue
            arr = value if type(value) is np.ndarray else np.asanyarray(value)
            if arr.dtype.kind in "OUSVmM":
                item = _uniform_item(arr)
                if item is not _NOT_UNIFORM:
                    # one string for every example: passed as it is, as the np.str_
                    # numpy.vectorize hands each example (None, a flag, an enum member,
                    # any object in a 0-d object array: the object itself; a member is
                    # known by its type only, its tests stay Python `if`s); an object array
                    # of one specialized value (all None) is that value for every example,
                    # and its shape still broadcasts with the others
                    values = list(values)
                    values[index] = item
                    as_is += (index,)
                    arrays.append(None)
                    if arr.ndim:
                        uniform_shapes.append(arr.shape)
                    continue
                return self._fallback_plan(f"argument `{names[index]}` has dtype {arr.dtype}",
                                           args, kwargs)
            arrays.append(arr)
        shapes = [a.shape for a in arrays if a is not None and a.ndim] + uniform_shapes
        first = shapes[0] if shapes else ()
        try:
            shape = first if all(s == first for s in shapes) else np.broadcast_shapes(
                *shapes)
        except ValueError:
            # arguments that do not broadcast: numpy.vectorize's own error, which its call
            # on the first items (learning the output types) raises first where it fails
            self._numpy_loop(args, kwargs)
            raise
        size = 1
        for n in shape:
            size *= n
        call_args, key, batched = [], [], []
        for index, arr in enumerate(arrays):
            if arr is None:
                call_args.append(values[index])
                key.append(as_is_key(values[index]))
            elif (arr.ndim == 0 or (arr.size == 1 and size != 1)) and not (
                    shape and names[index].endswith("]") and self._var_positional):
                # (the items of `*args` are all batched where any is: a Python loop over
                # them binds arrays alike, `analysis.expressions.uniform_items`)
                scalar = arr.reshape(())[()]
                if arr.dtype.kind == "c" and not isinstance(values[index], np.generic):
                    # a Python complex, as each example gets it: no order (`z > 0` raises
                    # TypeError, which the replay gives), where NumPy's orders complexes
                    scalar = complex(scalar)
                call_args.append(scalar)
                # numpy.vectorize hands a NumPy scalar argument to each example as it is,
                # the items of an array (0-d too) and Python numbers as Python numbers
                key.append("np:" + arr.dtype.char if isinstance(values[index], np.generic)
                           else arr.dtype.char)
            else:
                if arr.shape != shape:
                    arr = np.broadcast_to(arr, shape)
                call_args.append(arr.reshape(-1))
                key.append((arr.dtype.char,))
            batched.append(type(key[-1]) is tuple and not _is_as_is(key[-1]))
        widen = _widening(key)
        if widen:   # float16/32 items are Python floats per example, int8 ones Python ints
            for index, kind in enumerate(key):
                if _widened(kind) and _FAMILY[_char(kind)] in widen:
                    arg = call_args[index]
                    if not isinstance(arg, (np.ndarray, np.generic)):
                        continue    # a 0-d complex64 array's item: a Python complex already
                    wide = _WIDENED[arg.dtype.char]
                    call_args[index] = arg.astype(wide) if type(kind) is tuple else wide(arg)
        for index, kind in enumerate(key):
            if type(kind) is str and kind in _PYTHON_NUMBER_CHARS:
                # numpy.vectorize hands a Python number (or a 0-d array's item) to the
                # example as a Python number: `round(x, 3)` rounds as Python does
                call_args[index] = call_args[index].item()
        key = (tuple(key), as_is)
        entry = self._specs.get(key)
        if entry is None:
            entry = self._specs.get_or_build(
                key, lambda: self._build(func, self._empty_var_keyword(
                    sig, self._params(names, values, call_args, key[0])),
                    *_number_kinds(names, key[0]), var_positional=self._var_positional,
                    narrow=self._empty_var_keyword(sig, self._params(
                        names, values, call_args, key[0], narrow=True)) if widen else None,
                    empty=_narrow_empty(call_args, key[0]) if widen else None))
        if entry.probe is None:
            entry.probe = _probes(entry.spec, key[0])
        return entry, call_args, shape, batched

    def _run(self, entry, call_args, size, batched):
        """The generated function's outputs for the whole batch (in chunks of lanes when it
        is large, see `vectorize.chunks`); NumPy arrays out."""
        backend = backends.get(entry.spec.backend)
        if not backend.chunked_runs:    # one call: the library blocks and threads its work
            convert = not backend.takes_numpy
            out = self._call(entry.spec.function, [
                backend.from_numpy(a) if convert and isinstance(a, np.ndarray) else a
                for a in call_args])
            if isinstance(out, tuple):
                return tuple(backend.to_numpy(o) for o in out)
            return backend.to_numpy(out)
        return chunks.run(entry.spec, entry.tuning, call_args, batched, size, self.chunk_size,
                          self._call)

    def _run_or_replay(self, entry, call_args, size, batched):
        """`_run`, or `_REPLAY` where the batched code raised: some example raises in the
        per-example loop (a division by zero, a `math` domain error, an int result too large,
        a `raise` of the user's), or a check the engine could not make exact fired (an
        intermediate int beyond int64 that Python's ints hold). `_replay` then gives what
        numpy.vectorize gives (docs/semantics.md, "Exceptions")."""
        try:
            return self._run(entry, call_args, size, batched)
        except (VectorizeError, Warning):
            raise       # (a warning the caller made an error is the batched code's own)
        except BackendFailure as failure:
            self._backend_failed(failure, entry.spec)
            return _REPLAY
        except Exception:       # noqa: BLE001 -- the per-example loop decides
            return _REPLAY

    def _fast_failed(self, exc, last, args, kwargs):
        """What a warm call (`_FastPath`) whose generated function raised ``exc`` gives: our
        own errors and warnings as they are; otherwise the per-example loop's answer (after
        the backend's failure is noted)."""
        if isinstance(exc, (VectorizeError, Warning)):
            raise exc
        if isinstance(exc, BackendFailure):
            self._backend_failed(exc, last.entry.spec)
        return self._replay(args, kwargs, last.entry.spec.result, last.size,
                            _static_types(last.entry))

    def _backend_failed(self, failure, spec):
        """The backend's library could not run the generated code (`BackendFailure`, e.g.
        JAX could not trace it): a `VectorizeError` located in the function where
        ``fallback="error"``, else announced; numpy.vectorize then runs."""
        binding = self._binding if isinstance(self._binding, tuple) else self._make_binding()
        func = binding[0] if isinstance(binding, tuple) else self.pyfunc
        if self.fallback == "error":
            raise failure.located(func, f"vectorize: `{getattr(func, '__name__', 'f')}`") \
                from None
        self._announce(f"the {failure.backend} backend cannot run its generated code "
                       f"({failure})", spec, stacklevel=5)

    def _replay(self, args, kwargs, result=None, size=None, cast=None):
        """numpy.vectorize itself on these arguments: its first failing example's exception
        (raised here, outside the handler of the batched code's), or its results. An empty
        batch runs no example (a check on values the same for every example fired): the
        results' dtypes are the generated code's (numpy.vectorize would need otypes), cast as
        ``cast`` says (`Entry.otypes`)."""
        otypes = self.otypes
        if otypes is None and size == 0 and result is not None:
            items = result.items if isinstance(result, TupleValue) else (result,)
            otypes = [getattr(v, "dtype", None) or np.dtype(float) for v in items]
            if cast is not None:
                otypes = [o if c is None else c for c, o in zip(cast, otypes)]
        vec = np.vectorize(self.pyfunc, otypes=otypes, excluded=self.excluded,
                           cache=self.cache, signature=self.signature)
        return vec(*args, **kwargs)

    def _call(self, function, call_args):
        """``function`` on the arguments in parameter order (keyword-only parameters by
        name)."""
        _, _, _, names, n_positional = self._binding
        if n_positional == len(call_args):
            return function(*call_args)
        if self._var_positional is not None:
            # the `*` parameter's items follow the positional ones (`_spread_var_positional`)
            after = names[names.index(self._var_positional) + 1:]
            n = len(call_args) - len(after)
            keywords = dict(zip(after, call_args[n:]))
            if self._var_keyword is not None:
                keywords.update(keywords.pop(self._var_keyword))
            return function(*call_args[:n], **keywords)
        keywords = dict(zip(names[n_positional:], call_args[n_positional:]))
        if self._var_keyword is not None:
            keywords.update(keywords.pop(self._var_keyword))
        return function(*call_args[:n_positional], **keywords)

    def _make_binding(self):
        target = self._target()
        if target is None:
            self._binding = "it is not a Python function with source"
            return self._binding
        func, lead = target
        pyfunc = python_function_of(self.pyfunc)
        # a partial's keywords are passed as they are, as its bound positional arguments are
        # (numpy.vectorize calls the partial), unless the call gives them again
        self._lead_keywords = dict(pyfunc.keywords) if isinstance(
            pyfunc, functools.partial) else {}
        sig = _signature(func)
        names = list(sig.parameters)
        self._var_positional = next((n for n, p in sig.parameters.items()
                                     if p.kind == p.VAR_POSITIONAL), None)
        self._var_keyword = next((n for n, p in sig.parameters.items()
                                  if p.kind == p.VAR_KEYWORD), None)
        n_positional = sum(1 for p in sig.parameters.values() if p.kind <= p.POSITIONAL_OR_KEYWORD)
        self._binding = (func, lead, sig, names, n_positional)
        return self._binding

    def _bind(self, sig, names, lead, args, kwargs):
        """Values in parameter order, and the indices passed as they are (bound leading
        arguments, `excluded` ones and defaults, which numpy.vectorize does not broadcast)."""
        given = kwargs
        kwargs = {**self._lead_keywords, **kwargs} if self._lead_keywords else kwargs
        try:
            bound = sig.bind(*lead, *args, **kwargs)
        except TypeError:
            # Python's own wording ("f() missing 1 required positional argument: 'y'"):
            # binding fails before the body runs, so calling the function executes nothing.
            self._target()[0](*lead, *args, **kwargs)
            raise
        values, as_is = [], []
        n_lead = len(lead)
        for index, name in enumerate(names):
            pos = index - n_lead
            if name == self._var_positional:
                values.append(bound.arguments.get(name, ()))   # (`_spread_var_positional`)
                continue
            if name == self._var_keyword:
                # `**kwargs`: empty here (`_plan` runs numpy's loop for a call that fills
                # it), the same for every example
                values.append(bound.arguments.get(name, {}))
                as_is.append(index)
                continue
            if name not in bound.arguments:
                values.append(sig.parameters[name].default)
                as_is.append(index)
                continue
            values.append(bound.arguments[name])
            if index < n_lead or name in self.excluded or (
                    name in self._lead_keywords and name not in given) or (
                    0 <= pos < len(args) and pos in self.excluded):
                as_is.append(index)
        return values, tuple(as_is)

    @staticmethod
    def _empty_var_keyword(sig, params: dict) -> dict:
        """The ``**kwargs`` parameter is the empty dict on every call that has a
        specialization (`_plan`): the code may rely on it (``kwargs.get("scale", 1.0)``)."""
        for name in params:
            if name in sig.parameters and sig.parameters[name].kind == \
                    inspect.Parameter.VAR_KEYWORD:
                params[name] = Value(False, {}, True)
        return params

    @staticmethod
    def _params(names, values, call_args, kinds, narrow=False):
        """Abstract values of the parameters: ``kinds`` is the cache key's entry per argument
        (see `as_is_key`: passed as it is; a dtype char: a scalar; a 1-tuple: batched).
        ``narrow``: of the arguments' own dtypes, not the wider ones of ``call_args``
        (`_WIDENED`), as numpy.vectorize's call that learns the output types sees them."""
        params = {}
        for name, value, arg, kind in zip(names, values, call_args, kinds):
            if _is_as_is(kind):
                params[name] = Value(False, value, specialized_on(value))
            elif isinstance(kind, tuple):
                params[name] = Value(True, np.ones((), kind[0] if narrow else arg.dtype)[()])
            elif narrow and kind in _WIDENED:
                params[name] = Value(False, np.ones((), kind)[()])
            else:
                params[name] = Value(False, representative(arg))
        return params

    def _refusal(self, reason, suggestion):
        """The entry of a specialization the front end refuses before the engine runs: the
        user's fallback (numpy.vectorize itself), or with ``fallback="error"`` the error."""
        if self.fallback == "error":
            code = getattr(self._target()[0] if self._target() else None, "__code__", None)
            raise VectorizeError(f"cannot vectorize `{getattr(self, '__name__', '?')}`: {reason}",
                                 filename=code.co_filename if code else "<unknown>",
                                 line=code.co_firstlineno if code else 0,
                                 suggestion=suggestion + ", or pass fallback='warn'")
        return Entry(FallbackSpec(reason, fallback_source(self.pyfunc, reason,
                                                          "numpy.vectorize loop")))

    def _fallback_plan(self, reason, args, kwargs):
        return self._specs.get_or_build(("fallback", reason), lambda: self._refusal(
            reason, "vectorize a plain `def` function")), args, None, None

    def _build(self, func, params, python=(), numpy_scalars=(), var_positional=None,
               narrow=None, empty=None):
        """``python``: the parameters that are Python numbers per example; ``numpy_scalars``:
        those passed as NumPy scalars, which numpy.vectorize hands on as they are;
        ``var_positional``: the ``*`` parameter, whose items are ``name[i]`` in ``params``.
        ``narrow``: where some Python-number parameters are of a float16, float32 or
        complex64 argument, whose examples numpy.vectorize computes with as Python floats
        (complex) while it learns the output types from a call on NumPy scalars of the
        arguments' dtypes: the parameters of those dtypes. The code is made for ``params``
        (float64, complex128) and its outputs cast to the types that analysis of ``narrow``
        finds (``Entry.otypes``): the dtypes that code for ``narrow`` gives on ``empty``, the
        arguments of an empty batch of those dtypes, else the analysis's."""
        # (a float16, float32 or complex64 scalar is checked where it meets a Python number:
        # `passes.python_raises`)
        clashing = [name for name in numpy_scalars if params[name].example.dtype.kind not in "fc"
                    and _promotes_otherwise(params[name].example, [params[p] for p in python])]
        if clashing:
            # numpy.vectorize hands a NumPy scalar on as it is, and a Python number meeting it
            # takes its dtype (NEP 50: `x * np.float32(s)` is float32 for a Python float x);
            # the batched code's arrays would not
            name = clashing[0]
            dtype = params[name].example.dtype
            reason = (f"`{name}` is a NumPy {dtype} scalar: numpy.vectorize hands it to every "
                      f"example as it is, and the Python numbers it meets take its dtype "
                      f"(NEP 50), which the batched code does not reproduce")
            return self._refusal(reason, f"pass `{name}` as a Python number or a 0-d array, "
                                         f"or cast the inputs to {dtype}")
        semantics = PythonSemantics(
            tuple(params[name] for name in python),
            small_ints=() if narrow is None else tuple(
                params[name] for name in python if name in narrow
                and getattr(narrow[name].example, "dtype", np.dtype(object)).kind in "iu"
                and narrow[name].example.dtype.itemsize <= 4))
        if var_positional is not None:
            params = _fold_var_positional(var_positional, params)
        # (the title is part of the disk cache's key: the code may differ for them)
        title = "Generated by vectorize" + (
            f" (NumPy scalars per example: {', '.join(numpy_scalars)})" if numpy_scalars
            else "")
        entry = build(func, params, fallback=self.fallback, title=title,
                      kind="numpy.vectorize loop", cache_dir=self.cache_dir,
                      backend=self.backend or backends.DEFAULT,
                      explain=self._explain, python_semantics=semantics)
        if narrow is None or isinstance(entry.spec, FallbackSpec):
            return entry
        # (what every example raises a TypeError for on these NumPy scalars, as
        # numpy.vectorize's first call does, is refused there: `math.trunc` of a float32)
        types_code = functools.partial(
            build, func, narrow if var_positional is None else _fold_var_positional(
                var_positional, narrow),
            title=title + " (the types of its NumPy scalars)", kind="numpy.vectorize loop",
            cache_dir=self.cache_dir, backend=self.backend or backends.DEFAULT,
            python_semantics=PythonSemantics(tuple(narrow[n] for n in python),
                                             types_only=True))
        types = types_code(fallback="loop")
        if isinstance(types.spec, FallbackSpec):
            if _raises_per_example(types.spec):
                # (numpy.vectorize's first call raises there: refused as the policy says)
                return types_code(fallback=self.fallback)
            # no code for those NumPy scalars for another reason (a list of Python floats
            # appended float32 items, which one array cannot hold): a call with examples
            # learns its types from the first, as numpy.vectorize does
            # (`_first_example_types`: such an entry always probes, `_probes`); an empty
            # batch whose call on an example of ones raises keeps the code's own types
            return entry
        # (run for an empty batch only: a call with examples learns the types from its
        # first, `_first_example_types`)
        entry.narrow = functools.partial(self._narrow_types, entry, types, empty)
        return entry

    def _narrow_types(self, entry, types, empty):
        """Sets `Entry.otypes` from ``types``, the code made for the arguments' own dtypes
        (`_build`), run on ``empty``."""
        ran, entry.otypes = None, _output_types(entry.spec.result, types.spec.result)
        if entry.otypes is not None and empty is not None:   # (where a cast is in question)
            try:
                backend = backends.get(types.spec.backend)
                with warnings.catch_warnings(), np.errstate(all="ignore"):
                    warnings.simplefilter("ignore")
                    out = self._call(types.spec.function, [
                        backend.from_numpy(a) if isinstance(a, np.ndarray) and
                        not backend.takes_numpy else a for a in empty])
                ran = tuple(np.asarray(backend.to_numpy(o)).dtype for o in
                            (out if isinstance(out, tuple) else (out,)))
            except Exception:   # noqa: BLE001 -- the analysis's types then
                ran = None
            entry.otypes = _output_types(entry.spec.result, types.spec.result, ran)

    def _outputs_hold(self, out, spec) -> bool:
        """Whether every output converts to its ``otypes`` entry as `_output` casts it.
        Not where numpy.vectorize's conversion of the Python results raises (an int beyond
        an int otype's range, a NaN or an infinity for an int otype, a complex number for a
        real one, a float for a datetime), nor for an object otype (its items are what each
        example returned: a Python float, a NumPy scalar from a NumPy function, an array):
        the replay then gives what it gives, where ``astype`` would make something else;
        nor for a string otype where values of different types meet per example
        (`Generated.mixed_types`: ``x if x > 1 else 0.5`` of an int ``x`` is "3" in
        numpy.vectorize's conversion of the Python int, "3.0" of the batch's float).
        (An example's array result is stacked, as ``np.array`` of the results stacks it:
        numpy.vectorize raises there.)"""
        result = spec.result
        if isinstance(out, tuple) != isinstance(result, TupleValue) or isinstance(
                out, tuple) and len(out) != len(result.items):
            # (a pair on one path, a number on another, chosen by a value the same for
            # every example: numpy.vectorize's outputs are what the first example returns)
            return False
        if not self.otypes:
            return True
        outs = out if isinstance(out, tuple) else (out,)
        if len(self.otypes) != len(outs):
            # (numpy.vectorize makes as many outputs as otypes has entries: one for a
            # function returning pairs raises storing a pair, three are NaN-filled)
            return False
        mixed = getattr(spec, "mixed_types", None) is not False
        return all(_cast_holds(o, self.otypes[min(i, len(self.otypes) - 1)])
                   for i, o in enumerate(outs)) and not any(
            np.dtype(o).kind == "O" or mixed and np.dtype(o).kind in "US"
            for o in self.otypes[:len(outs)])

    def _outputs(self, out, result, shape, call_args, cast=None):
        """``cast``: `Entry.otypes`."""
        if isinstance(result, TupleValue):
            if not isinstance(out, tuple):
                out = tuple(out)
            return tuple(self._output(o, r, shape, i, call_args, cast) for i, (o, r) in
                         enumerate(zip(out, result.items)))
        return self._output(out, result, shape, 0, call_args, cast)

    def _output(self, out, result, shape, index, call_args, cast=None):
        arr = out if type(out) is np.ndarray else np.asanyarray(out)
        if getattr(result, "batched", False) and arr.ndim > result.rank:
            # numpy.vectorize returns new arrays: never a view of an argument (`lambda x: x`)
            arr = _own(arr, call_args)
            if arr.shape[:1] != shape:
                arr = arr.reshape(shape + arr.shape[1:])
        else:
            arr = np.broadcast_to(arr, shape + arr.shape).copy()
        if self.otypes:
            otype = np.dtype(self.otypes[index] if index < len(self.otypes)
                             else self.otypes[0])
            # numpy.vectorize keeps an otype's kind only (`otypes=["U2"]` is "U"): a string
            # type's width does not cut the results
            if otype.kind not in "US":
                return arr.astype(otype, copy=False)
            if arr.ndim == 0 and arr.dtype.kind not in "US":
                # numpy.vectorize converts the one result of 0-d arguments as a Python
                # number: its type's width (a float is <U32), not its text's
                return np.asanyarray(arr.item(), dtype=otype.kind)
            arr = arr.astype(otype.kind, copy=False)
        elif cast is not None and cast[index] is not None:
            arr = _cast(arr, cast[index])
        if arr.dtype.kind in "US":
            # numpy.vectorize sizes a string result by its longest item, not by the longest
            # string the code could give (`np.where(c, "positive", "neg")` is <U8)
            longest = int(np.char.str_len(arr).max()) if arr.size else 0
            if longest == 0 and arr.size:
                # (NumPy's conversion of empty strings only: <U2, not <U1)
                return arr.astype(_EMPTY_STRINGS[arr.dtype.kind])
            arr = arr.astype(f"{arr.dtype.kind}{max(1, longest)}")
        return arr


_EMPTY_STRINGS = {kind: np.asanyarray(np.array([np.dtype(kind).type()], dtype=object),
                                      dtype=kind).dtype for kind in "US"}
"""The dtype numpy.vectorize gives results that are all empty strings (its conversion of an
object array of them)."""


_REPLAY = object()    # `vectorize._run_or_replay`: the batched code raised


_EXACT_SCALARS = {float: np.float64, complex: np.complex128, bool: np.bool_}
"""Python scalars whose NumPy dtype does not depend on their value (an ``int`` may become
int64, uint64 or object), and the scalar type `vectorize._plan` makes of them."""


class _FastPath:
    """What `vectorize._plan` worked out for one call, reused by the next calls whose
    arguments have the same types, dtypes and shapes (the common case of calling the same
    function on like batches in a loop), so that a warm call does not bind, build a cache key,
    broadcast or look up the cache again: on a batch of 1e5 lanes that bookkeeping cost about
    10 µs, as the previous call's arrays have flushed the CPU's caches of the interpreter's
    data. Only plain positional calls (no keywords, no `excluded`, no bound leading argument)
    of exact ``ndarray`` s and NumPy or value-typed Python scalars take it; the
    specialization's guards (the globals it read) are checked on every call.

    Where the call is one call of the generated function (``run``: a batch too small for
    chunks, `chunks.may_chunk`, or a backend that runs a batch in one call and takes NumPy
    arrays), a warm call is that call and, for one batched number per example (``simple``),
    `_own` and a reshape: no `chunks.run`, no `_outputs` (each a few function calls, which at
    a batch of 1e4 lanes were a tenth of the call)."""

    __slots__ = ("key", "entry", "ops", "shape", "flat", "size", "batched", "run", "simple",
                 "to_numpy", "chunk_size", "guards", "match", "owned", "warm")

    def __init__(self, key, entry, ops, shape, size, batched, chunk_size="auto"):
        self.key, self.entry, self.ops = key, entry, ops
        self.shape, self.size, self.batched = shape, size, batched
        self.flat = shape if len(shape) == 1 else (size,)
        self.chunk_size = chunk_size
        self.owned = False      # `run` gives NumPy arrays of their own (`_own` not needed)
        self.warm = None        # `_warm_call`, where it applies
        spec = entry.spec
        self.guards = spec.guards
        # the generated function's arguments for a call's, or None (`plan`)
        self.match = _matcher(key, ops, self.guards)
        backend = backends.get(spec.backend)
        result = spec.result
        dtype = result.dtype if type(result) is Value else None
        # one batched number per example, no cast (`Entry.otypes`): the generated function's
        # array is the result as it stands (`_own`, reshaped)
        self.simple = (dtype is not None and dtype.kind in "biufc" and result.batched
                       and result.rank == 0 and entry.otypes is None and not entry.probe)
        if backend.chunked_runs:
            # NumPy: `chunks.run` makes one call of a batch too small for two chunks; a larger
            # one is `chunks.run` itself (`vectorize._run` without the planning around it)
            self.to_numpy = None
            if chunks.may_chunk(chunk_size, size):
                tuning = entry.tuning

                def run(*call_args):
                    return chunks.run(spec, tuning, call_args, batched, size, chunk_size,
                                      _positional)
                self.run = run
            else:
                self.run = spec.function
                if size >= 2 * chunks.AUTO_MIN_LANES:
                    chunks.prime_allocator()    # (what `chunks.run` does before such a call)
                if self.simple:
                    # the whole warm call in one function (`_warm_call`)
                    self.warm = _warm_call(key, ops, self.guards, spec.function, self.flat,
                                           shape)
        else:
            # a compiled function that takes NumPy arrays (JAX's), for a numeric result
            self.run = spec.function if self.simple and backend.takes_numpy else None
            self.to_numpy = backend.to_numpy
            runner = backend.numpy_runner(spec.function) if self.run is not None else None
            if runner is not None:      # NumPy arrays of their own out (`_own` not needed)
                self.run, self.to_numpy, self.owned = runner, None, True
                # the whole warm call in one function (`_warm_call`), no `_own`
                self.warm = _warm_call(key, ops, self.guards, runner, self.flat, shape,
                                       owned=True)

    @staticmethod
    def key_of(args):
        """(type, dtype, shape) of every array argument, the type of every scalar; None where
        an argument is of another kind."""
        key = []
        for a in args:
            t = type(a)
            if t is np.ndarray:
                key.append((a.dtype, a.shape))
            elif t in _EXACT_SCALARS or isinstance(a, np.generic) and not isinstance(
                    a, np.flexible):
                key.append(t)
            else:
                return None
        return tuple(key)

    @classmethod
    def of(cls, args, entry, shape, batched, binding, chunk_size="auto", call_args=None):
        """The fast path of a call that `vectorize._plan` planned (into ``call_args``), or
        None."""
        if not isinstance(binding, tuple):
            return None
        _, lead, _, names, n_positional = binding
        if lead or len(args) != len(names) or n_positional != len(names):
            return None
        key = cls.key_of(args)
        if key is None:
            return None
        size = math.prod(shape)
        ops = []
        for index, (a, is_batched) in enumerate(zip(args, batched)):
            if type(a) is np.ndarray and a.dtype.char in _WIDENED:
                # widened (`_WIDENED`): a batch of one dimension, as `_plan` widened it
                wide = getattr(call_args[index], "dtype", None) if call_args else None
                if not is_batched or a.ndim != 1 or a.shape != shape or wide is None:
                    return None       # (left to _plan)
                ops.append(None if wide == a.dtype else _Widen(wide))
                continue
            if type(a) is complex or type(a) is np.ndarray and not is_batched and \
                    a.dtype.kind == "c":
                return None       # a Python complex per example: left to _plan
            if type(a) is not np.ndarray:
                # a NumPy scalar as it is; a Python scalar as _plan made it (a Python number
                # where numpy.vectorize hands one: `_PYTHON_NUMBER_CHARS`)
                ops.append(None if type(a) in (float, bool) else _EXACT_SCALARS.get(type(a)))
            elif not is_batched:
                ops.append("pyitem" if a.dtype.char in _PYTHON_NUMBER_CHARS else "item")
            elif a.shape != shape:
                return None       # broadcast: rarer, left to _plan
            else:
                ops.append("flat" if a.ndim != 1 else None)     # (1-d: as it is)
        return cls(key, entry, tuple(ops), shape, size, tuple(batched), chunk_size)

    def plan(self, args):
        """The generated function's arguments for ``args``, or None when they do not match
        (`key_of`, tested in the same pass) or the specialization's guards no longer
        hold (`_matcher`)."""
        return self.match(args)


class _Widen:
    """A `_FastPath` op: a narrow batch as the wider array `vectorize._plan` makes of it."""

    __slots__ = ("dtype",)

    def __init__(self, dtype):
        self.dtype = dtype

    def __call__(self, arr):
        return arr.astype(self.dtype)


_MATCHERS: dict = {}
"""`_matcher`'s compiled makers, per layout (the kind of each argument, what is done with it,
the number of guards): a few per program, each compiled once."""


def _matcher(key, ops, guards):
    """A function of a call's positional arguments that gives the generated function's
    arguments where they are like ``key`` (`_FastPath.key_of`: an array's dtype and shape, a
    scalar's type) and the guards hold, else None: the checks and conversions of
    `_FastPath` unrolled for this layout, so that a warm call pays a few comparisons per
    argument (a loop over the arguments, ops and guards cost about a microsecond)."""
    layout = _layout(key, ops, guards)
    make = _MATCHERS.get(layout)
    if make is None:
        body, out = _match_lines(layout)
        body.append(f"return [{', '.join(out)}]")
        make = _MATCHERS.setdefault(layout, compiled_plan(
            _maker_params("OPS, ndarray", layout), body, "<vectorize fast path>",
            layout[1]))
    return make(ops, np.ndarray, *_constants(key), guards, MISSING)


def _layout(key, ops, guards) -> tuple:
    """What the unrolled checks of `_matcher` and `_warm_call` depend on: per argument,
    whether it is an array and what is done with it; the number of guards."""
    return (tuple((_array_kind(k), op if op is None or type(op) is str else "convert")
                  for k, op in zip(key, ops)), len(guards))


def _array_kind(k):
    """In a `_layout`: "1d" for an array of one dimension (checked by its ``ndim`` and
    length: a third cheaper than comparing its ``shape``, a new tuple on every read), True for
    another array, False for a scalar."""
    return ("1d" if len(k[1]) == 1 else True) if type(k) is tuple else False


def _constants(key) -> list:
    """What the unrolled checks compare a call's arguments with (`_match_lines`), as their
    own parameters (a name is read faster than ``K[0][1]``): per array its shape (its length
    where it has one dimension, `_array_kind`) and dtype, per scalar its type."""
    return [c for k in key for c in (((k[1][0] if len(k[1]) == 1 else k[1]), k[0])
                                     if type(k) is tuple else (k,))]


def _maker_params(head: str, layout) -> str:
    """The parameters of a compiled maker (`compiled_plan`): ``head``, then the names of
    `_constants` for this layout."""
    names = [n for i, (is_array, _) in enumerate(layout[0])
             for n in ((f"S{i}", f"D{i}") if is_array else (f"T{i}",))]
    return ", ".join([head, *names])


def _match_lines(layout) -> tuple[list, list]:
    """The lines that return None where a call's ``args`` are not like the key (its
    `_constants`: ``S0``, ``D0``... for an array, ``T1``... for a scalar) or a guard no
    longer holds, and the expressions of the generated function's arguments after them."""
    names = [f"a{i}" for i in range(len(layout[0]))]
    body = [f"if len(args) != {len(names)}:", "    return None"]
    if names:
        body.append(f"{', '.join(names)}, = args")
    out = []
    for i, (is_array, op) in enumerate(layout[0]):
        a = names[i]
        if is_array:
            shape = f"{a}.ndim != 1 or len({a}) != S{i}" if is_array == "1d" else \
                f"{a}.shape != S{i}"
            body += [f"if type({a}) is not ndarray or {shape}:",
                     "    return None",
                     f"if {a}.dtype is not D{i} and {a}.dtype != D{i}:",
                     "    return None"]
        else:
            body += [f"if type({a}) is not T{i}:", "    return None"]
        out.append(a if op is None else f"{a}.reshape(-1)" if op == "flat" else
                   f"{a}.reshape(())[()]" if op == "item" else f"{a}.item()"
                   if op == "pyitem" else f"OPS[{i}]({a})")
    body += guard_checks(layout[1])
    return body, out


_WARM_CALLS: dict = {}
"""`_warm_call`'s compiled makers, per layout and result shape kind."""


def _warm_call(key, ops, guards, function, flat, shape, owned=False):
    """``warm(args)``, the whole of a warm call of `_FastPath` of one batched number per
    example computed by one call of the generated function ``function`` (``simple``, no
    chunks): the checks of `_matcher`, the call, and the result as `vectorize.__call__`
    gives it (`_own`, reshaped to ``shape``), unrolled into one function. It gives None where
    the arguments do not match (nothing run), and ``(out, call_args)`` where the generated
    function's output is not a NumPy array of ``flat`` 's shape (the caller finishes it as
    `vectorize._finish` does); what ``function`` raises propagates. ``owned``: ``function``
    gives NumPy arrays of their own (a backend's NumPy runner), no `_own`."""
    layout = (_layout(key, ops, guards), flat is shape, owned)
    make = _WARM_CALLS.get(layout)
    if make is None:
        body, out = _match_lines(layout[0])
        # the generated function's arguments: the call's own, or what `_matcher` makes
        args = [expr if expr == f"a{i}" else f"c{i}" for i, expr in enumerate(out)]
        body += [f"{c} = {expr}" for c, expr in zip(args, out) if c != expr]
        listed = f"[{', '.join(args)}]"
        # (`_own` where the output may share memory with an argument: a view, or one of the
        # arrays; a scalar argument is never the output array)
        aliased = " or ".join(["arr.base is not None"] + [
            f"arr is {c}" for c, (is_array, _) in zip(args, layout[0][0]) if is_array])
        body += [f"arr = RUN({', '.join(args)})",
                 # (FLAT: the length of the one dimension it has; `_array_kind`)
                 "if type(arr) is not ndarray or arr.ndim != 1 or len(arr) != FLAT:",
                 f"    return arr, {listed}"]
        if not owned:
            body += [f"if {aliased}:", f"    arr = OWN(arr, {listed})"]
        body.append("return arr" if layout[1] else "return arr.reshape(SHAPE)")
        make = _WARM_CALLS.setdefault(layout, compiled_plan(
            _maker_params("OPS, ndarray, RUN, FLAT, SHAPE, OWN", layout[0]), body,
            "<vectorize warm call>", layout[0][1]))
    return make(ops, np.ndarray, function, flat[0], shape, _own, *_constants(key), guards,
                MISSING)


_NDARRAY = np.ndarray

_WARM_OPTIONS = frozenset({"chunk_size", "otypes", "excluded", "backend", "_last"})


def _no_numpy_call(name) -> bool:
    """Whether a call with backend ``name`` (None: none named) never needs a context around it
    (`Backend.numpy_call` not overridden, as JAX's): `vectorize._warm` may then hold."""
    if name is None:
        return True
    return type(backends.get(name)).numpy_call is backends.Backend.numpy_call
"""The attributes of a `vectorize` whose set clears its `_warm` (`vectorize._warm_for`)."""


def _positional(function, args):
    """`vectorize._call` of a call whose arguments are all positional (`_FastPath`)."""
    return function(*args)


_PLAIN_ARGUMENTS = frozenset({np.ndarray, float, int, bool, complex, np.float64, np.float32,
                              np.int64, str, type(None)})


def _maps_nothing(args, kwargs, excluded) -> bool:
    """Whether a call maps no argument: every positional index and keyword name excluded."""
    if not excluded:        # (the common case, on every call: no generator to make)
        return not args and not kwargs
    return all(i in excluded for i in range(len(args))) and \
        all(name in excluded for name in kwargs)


def _unusual_arguments(args, kwargs) -> str | None:
    """"tensor" where an argument is another namespace's array (`tensors`), "matrix" where
    one is an `np.matrix`, "subclass" where one is of another ndarray subclass (a masked
    array), else None (one pass over the arguments: it runs on every call that does not take
    the fast path)."""
    for group in (args, kwargs.values()):
        for a in group:
            kind = type(a)
            if kind in _PLAIN_ARGUMENTS:
                continue
            if kind is np.matrix:
                return "matrix"
            if isinstance(a, np.ndarray):
                return "subclass"
            if backends.of_value(a) is not None:
                return "tensor"
    return None


def _spread_var_positional(star: str, names, values, as_is):
    """The ``*`` parameter ``star``'s items as parameters of their own, ``star[0]``,
    ``star[1]``, ..., each an argument batched or not (one specialization per number of
    them): names, values and the indices passed as they are, shifted."""
    at = names.index(star)
    items = tuple(values[at])
    names = [*names[:at], *(f"{star}[{i}]" for i in range(len(items))), *names[at + 1:]]
    values = [*values[:at], *items, *values[at + 1:]]
    as_is = tuple(i if i < at else i + len(items) - 1 for i in as_is if i != at)
    return names, values, as_is


def _fold_var_positional(star: str, params: dict) -> dict:
    """``params`` with ``star[0]``, ``star[1]``, ... as one tuple ``star``, in the
    signature's place (the body reads ``star`` as the tuple Python makes)."""
    out: dict = {}
    items = []
    for name, value in params.items():
        if name.startswith(star + "[") and name.endswith("]"):
            if not items:
                out[star] = None
            items.append(value)
            continue
        out[name] = value
    out[star] = TupleValue(tuple(items))
    return out


_PYTHON_OF_KIND = {"b": True, "i": 1, "u": 1, "f": 1.0, "c": 1j}


def _promotes_otherwise(scalar, numbers) -> bool:
    """Whether the NumPy scalar ``scalar``, which numpy.vectorize hands to the examples as it
    is, meets the Python numbers of the parameters ``numbers`` with another dtype than the
    batched code's arrays of them would: a Python number is weak (NEP 50: a Python float times
    ``np.float32`` is float32), an array of float64 is not."""
    for value in numbers:
        dtype = getattr(value.example, "dtype", None)
        if dtype is None or dtype.kind not in _PYTHON_OF_KIND:
            continue
        if np.result_type(dtype, scalar.dtype) != np.result_type(
                _PYTHON_OF_KIND[dtype.kind], scalar.dtype):
            return True
    return False


_PYTHON_NUMBER_CHARS = frozenset("?bhilqBHILQefd")


def _number_kinds(names, kinds) -> tuple[list, list]:
    """(parameters that are Python numbers per example, those that are NumPy scalars), from
    the cache key's entries (`vectorize._plan`)."""
    numpy_scalars = [name for name, kind in zip(names, kinds)
                     if isinstance(kind, str) and kind[:3] == "np:"]
    python = [name for name, kind in zip(names, kinds)
              if not _is_as_is(kind) and name not in numpy_scalars]
    return python, numpy_scalars


def _subclassed(a) -> bool:
    return isinstance(a, np.ndarray) and type(a) is not np.ndarray


def _last(*items):
    return items[-1]


def _wrapped_like_ufunc(out, inputs):
    """``out`` as numpy.vectorize's ufunc over ``inputs`` would give it: the type (and a
    masked array's mask) the inputs' ``__array_wrap__`` makes, the values and dtype
    ``out``'s."""
    out = np.asarray(out)
    # (``out`` last: a masked array's mask is the inputs' combined in their order, as
    # numpy.vectorize's ufunc combines them, and then with ``out``'s, which has none)
    through = np.frompyfunc(_last, len(inputs) + 1, 1)
    wrapped = through(*[np.asanyarray(a, dtype=object) for a in inputs], out.astype(object))
    return np.asanyarray(wrapped, dtype=out.dtype)


def _as_matrix(arr):
    """An output as numpy.vectorize gives it for `np.matrix` inputs."""
    if np.ndim(arr) > 2:
        raise ValueError("shape too large to be a matrix.")
    return np.asmatrix(arr)


_WIDENED = {"e": np.float64, "f": np.float64, "F": np.complex128,
            "b": np.int64, "h": np.int64, "i": np.int64, "B": np.int64, "H": np.int64,
            "I": np.int64}
"""The dtypes whose items numpy.vectorize hands each example as Python floats, complex
numbers and ints (float64, complex128, int64: an int8 item is a Python int, and `np.sin` of
it is a float64, `x + 1` of 127 is 128), and those wider types: the generated code computes
with them (`vectorize._plan`), and the outputs are cast to the types numpy.vectorize learns
(`_first_example_types`). (uint64 items beyond int64 are Python ints no int64 holds: kept.)"""

_FAMILY = {char: "f" if char in "efF" else "i" for char in _WIDENED}
"""Which NumPy scalar arguments keep a widened argument narrow (`_widening`): a float16,
float32 or complex64 scalar the narrow floats, a narrow int scalar the narrow ints."""


def _widened(kind) -> bool:
    """Whether a cache key's entry (`vectorize._plan`) is a Python-number argument of a dtype
    in `_WIDENED`."""
    return isinstance(kind, str) and kind in _WIDENED or (
        isinstance(kind, tuple) and isinstance(kind[0], str) and kind[0] in _WIDENED)


def _widening(kinds) -> frozenset:
    """The families (`_FAMILY`) of the `_WIDENED` types that `vectorize._plan` computes with
    for the Python-number arguments of narrow arrays, given the cache key's entries: not the
    narrow ints where a narrow NumPy int scalar is an argument too (handed on as it is, it
    makes the Python ints it meets int8 per example: those calls keep the arrays' own
    dtypes, as before, `_promotes_otherwise`). A float16, float32 or complex64 scalar makes
    the Python numbers it meets its type: `passes.python_raises` refuses those operations
    (`weak_meeting`)."""
    kept = {_FAMILY[kind[3:]] for kind in kinds
            if isinstance(kind, str) and kind[:3] == "np:" and kind[3:] in _WIDENED} - {"f"}
    return frozenset(_FAMILY[_char(kind)] for kind in kinds
                     if _widened(kind) and _FAMILY[_char(kind)] not in kept)


def _char(kind) -> str:
    """The dtype character of a cache key's entry for a scalar or batched argument."""
    return kind[0] if isinstance(kind, tuple) else kind[3:] if kind[:3] == "np:" else kind


def _narrow_empty(call_args, kinds) -> list:
    """The arguments of an empty batch of the arguments' own dtypes (not `_WIDENED`)."""
    out = []
    for arg, kind in zip(call_args, kinds):
        if isinstance(kind, tuple) and _widened(kind):
            out.append(np.empty(0, kind[0]))
        elif isinstance(kind, tuple) and not _is_as_is(kind):
            out.append(arg[:0])
        elif _widened(kind):
            out.append(np.dtype(kind).type(arg))
        else:
            out.append(arg)
    return out


def _raises_per_example(spec) -> bool:
    """Whether a refusal of the code for numpy.vectorize's NumPy scalars (`_build`, a
    `FallbackSpec`) says that those scalars raise where the Python numbers do not
    (``math.trunc`` of an ``np.float32``: TypeError), which numpy.vectorize's first call
    then raises (its kind, `errors.RAISES`, never its wording)."""
    return spec.kind == RAISES


def _static_types(entry):
    """`Entry.otypes`, made where it is still to be made (`vectorize._narrow_types`)."""
    narrow = entry.narrow
    if narrow is not None:
        entry.narrow = None
        narrow()
    return entry.otypes


def _casts_hold(out, cast) -> bool:
    """Whether every output converts to its ``cast`` entry (`Entry.otypes`, or the first
    example's types) as numpy.vectorize converts the per-example results: the Python
    numbers, ``asanyarray(objects, dtype=otype)``, which raises where ``astype`` of the
    batch would make something of them (`_converts`)."""
    if cast is None:
        return True
    outs = out if isinstance(out, tuple) else (out,)
    return all(c is None or _converts(o, c) for o, c in zip(outs, cast))


def _converts(arr, otype) -> bool:
    """Whether numpy.vectorize's conversion of the per-example results in ``arr`` to
    ``otype`` returns what `_cast` gives: what `_cast_holds` says (no complex number to a
    real type: a lane that is real per example but complex in the batch is left to the
    loop too; ints and floats within an int type), and a float to an int only below 2**53
    (a lane that is a Python int per example, made a float by a per-example choice of an
    int or a float, has lost its low bits)."""
    arr = np.asarray(arr)
    otype = np.dtype(otype)
    if arr.size == 0 or otype.kind not in "biufc":
        return True
    if arr.dtype.kind == "O":
        # (numbers and None of a per-example choice: None converts to no number but a
        # bool, where numpy.vectorize's conversion raises TypeError: the loop decides)
        return otype.kind == "b" or not any(v is None for v in arr.flat)
    if otype.kind in "iu" and arr.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            if not bool(np.all(np.abs(arr) < 2.0 ** 53)):
                return False
    return _cast_holds(arr, otype)


def _cast(arr, otype):
    """``arr`` as numpy.vectorize converts its per-example Python numbers to ``otype``:
    ``astype``, except that an int goes to a narrow float through a Python float (a
    double: twice rounded, as NumPy converts a Python int)."""
    otype = np.dtype(otype)
    if arr.dtype.kind in "iu" and otype.kind in "fc" and otype.itemsize < (
            8 if otype.kind == "f" else 16):
        arr = arr.astype(np.float64)
    return arr.astype(otype, copy=False)


_PLAIN_CHARS = frozenset(np.dtype(t).char for t in (np.float64, np.int64, np.longlong,
                                                     np.complex128))


def _narrow_int_inputs(args, kwargs, excluded) -> bool:
    """Whether an input of a call with a ``signature`` is of a NumPy int dtype other than
    int64: numpy.vectorize hands its examples on as NumPy scalars (`np.int8`), and a Python
    int the code makes of them (`math.floor`, `int`, `len`) is weak beside one (NEP 50:
    `np.int8(1) ^ math.floor(2.5)` is an int8), where the batched code's int64 arrays are
    not: the first example's result types decide (`_first_signature_types_hold`)."""
    values = [a for i, a in enumerate(args) if i not in excluded]
    values += [v for n, v in kwargs.items() if n not in excluded]
    for value in values:
        dtype = getattr(value, "dtype", None)
        if isinstance(dtype, np.dtype) and dtype.kind in "iu" and dtype != np.int64:
            return True
    return False


def _probes(spec, kinds) -> str | bool:
    """`Entry.probe`: whether the output types of a call of ``spec`` (for the cache key's
    entries ``kinds``) are learned from its first example, as numpy.vectorize learns them:
    where an argument is of another dtype than float64, int64 and complex128 (its first
    item is an `np.int8`, `np.float32`, `np.bool_`..., whose types NumPy's scalar
    arithmetic gives, with weak Python numbers: NEP 50), or where the code chooses values
    per example (`np.where` and its kin, `merge.blend`, `np.maximum` of `max`: the type may
    be the first example's branch's)."""
    if isinstance(spec, FallbackSpec):
        return False
    facts = getattr(spec, "facts", ASSUMED)
    if getattr(spec, "first_call_differs", False) or facts.scalar_raises:
        # (an `isinstance` of a parameter answers otherwise for the first example's NumPy
        # scalars: numpy.vectorize's call on them may take another path, or raise; so does
        # `math.ldexp`, `SpecFacts.scalar_raises`)
        return "values"
    if kinds and not any(type(kind) is tuple and not _is_as_is(kind) for kind in kinds):
        # no argument is batched: the code computes with the Python numbers themselves
        # (`(x > 0) + (x > 1)` is 2), numpy.vectorize's first call with NumPy scalars
        # (`np.True_ + np.True_` is True, `np.True_ - np.True_` raises TypeError)
        return "values"
    narrow = any(not _is_as_is(kind) and _char(kind) not in _PLAIN_CHARS and
                 np.dtype(_char(kind)).kind in "biufc" for kind in kinds) or getattr(
        spec, "python_bools", False)     # (ints per example, NumPy bools in the first)
    # (with plain dtypes the first example's NumPy scalars have the types of the Python
    # numbers the code computes with, so only joins of different kinds of number make the
    # type depend on values: the transform says where it saw none, `Generated.mixed_types`;
    # a narrow one meets Python numbers of other dtypes at every join)
    if (narrow or getattr(spec, "mixed_types", None) is not False) and facts.joins:
        return "values"     # (learned on every call)
    if narrow:
        if any(type(kind) is not tuple for kind in kinds) or getattr(
                spec, "python_bools", False):
            # (a number the same for every example may choose the path, and with it the
            # type: `x if b else (x > 0)`; Python bools counted as ints, NumPy bools in the
            # first example, chosen by its values: `((not a) and (b > 0.5)) + (not b)` is
            # an int where a is nonzero, NumPy's bool where it is zero: learned on every
            # call)
            return "values"
        return "dtypes"     # (learned once: `Entry.probe`)
    return False


def _cast_holds(arr, otype) -> bool:
    """Whether ``arr.astype(otype)`` gives what numpy.vectorize's conversion of the per-example
    Python numbers to ``otype`` gives: for an int ``otype`` every value within the type's
    range (a float truncated toward zero into it; NaN and infinities are not); no complex
    number for a real ``otype`` (``float(z)`` raises where ``astype`` drops the imaginary
    part); for a datetime or timedelta ``otype`` ints and bools only, and a datetime's unit
    (its conversion of a float raises, ``astype`` truncates)."""
    try:
        otype = np.dtype(otype)
    except TypeError:
        return True
    if not isinstance(arr, np.ndarray) and not np.isscalar(arr):
        return True
    arr = np.asarray(arr)
    if arr.size == 0:
        return True
    if otype.kind in "mM":
        return arr.dtype.kind in "biu" and (
            otype.kind == "m" or np.datetime_data(otype)[0] != "generic")
    if arr.dtype.kind == "c" and otype.kind in "iuf":
        return False
    if otype.kind not in "iu" or arr.dtype.kind not in "iuf":
        return True
    info = np.iinfo(otype)
    if arr.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            return bool(np.all((arr > float(info.min) - 1) & (arr < float(info.max) + 1)))
    return int(arr.min()) >= info.min and int(arr.max()) <= info.max


def _output_types(result, narrow, ran=None) -> tuple | None:
    """`Entry.otypes`: per output of the code made for ``result`` (float64 examples), the
    dtype of the output of the code made for ``narrow`` (the arguments' own dtypes: the types
    numpy.vectorize learns from its first call), ``ran`` (those of the outputs it gave on
    an empty batch) or else the analysis's, where it differs, else None."""
    items = result.items if isinstance(result, TupleValue) else (result,)
    theirs = narrow.items if isinstance(narrow, TupleValue) else (narrow,)
    if len(items) != len(theirs):
        return None
    theirs = [getattr(t, "dtype", None) for t in theirs] if ran is None or len(ran) != len(
        items) else ran
    cast = tuple(t if isinstance(v, Value) and v.dtype is not None and t is not None and
                 t != v.dtype else None for v, t in zip(items, theirs))
    return cast if any(c is not None for c in cast) else None


def _passed_as_is(arr) -> bool:
    """Whether a 0-d string or object array broadcast to every example is passed as it is
    (its item: what numpy.vectorize hands each example, whatever it is: a string of any
    length, None, an instance of the user's class, whose attributes the code reads)."""
    return arr.dtype.kind in "USO"


_NOT_UNIFORM = object()


def _uniform_item(arr):
    """The value an object or string array hands every example where it is the same value
    for all (a 0-d one's item; an object array whose items are all one specialized value,
    `[None, None]`), else `_NOT_UNIFORM`."""
    if arr.ndim == 0:
        return arr[()] if _passed_as_is(arr) else _NOT_UNIFORM
    if arr.dtype.kind != "O" or not arr.size:
        return _NOT_UNIFORM
    first = arr.flat[0]
    if not specialized_on(first) or any(item is not first for item in arr.flat):
        return _NOT_UNIFORM
    return first


def _is_as_is(kind) -> bool:
    return isinstance(kind, type) or (isinstance(kind, tuple) and isinstance(kind[0], type))


def _own(arr, call_args):
    """``arr``, copied where it may share memory with an argument of the call."""
    if arr.base is None:
        for a in call_args:
            if a is arr:
                break
        else:
            return arr
    for a in call_args:
        if isinstance(a, np.ndarray) and np.may_share_memory(arr, a):
            return arr.copy()
    return arr


def _signature_params(names, call_args, kinds):
    """Abstract values of the parameters of a signature call: ``kinds`` is the cache key's
    entry per parameter (`as_is_key`: passed as it is; ("b", ...): batched, its per-example
    example is ones of the core shape, as vmap makes it; ("u", ...): unbatched, of the core
    shape)."""
    params = {}
    for name, arg, kind in zip(names, call_args, kinds):
        if _is_as_is(kind):
            params[name] = Value(False, arg, specialized_on(arg))
        elif kind[0] == "b":
            params[name] = Value(True, np.ones(arg.shape[1:], arg.dtype)[()])
        else:
            params[name] = Value(False, representative(arg))
    return params


@functools.lru_cache(maxsize=256)
def _signature(func):
    return inspect.signature(func, follow_wrapped=False)


_UNMAPPED = object()


def explain(func, *args, in_axes=_UNMAPPED, **kwargs):
    """Which batching rule turned which line of ``func`` into which batched line, for the
    call ``vectorize(func)(*args, **kwargs)`` (with ``in_axes``: ``vmap(func, in_axes)(*args)``):
    per statement, the scalar lines (with their line numbers in ``func``'s file), each rule
    that fired on them with its one-sentence reason, and the batched lines; then the helpers
    batched with it. The text of the command line's ``--explain`` (docs/cli.md), for a
    function of a running program; ``func`` may be a function or what `vectorize` or `vmap`
    made of one. Nothing runs: the arguments only say what the examples are (batched or not,
    dtypes, shapes). Raises `VectorizeError` where ``func`` cannot be vectorized for them.

    Returns an `Explanation`: a ``str`` (one line per rule; ``.verbose`` gives each rule's
    whole explanation) that a notebook shows as the two functions side by side
    (``_repr_html_``; ``.html()`` for a page of its own)."""
    from .rewrite.explain import Explanation, collect_specialization
    from .vmap import is_vmapped, vmap
    if wants_dask(args, kwargs):   # what each block of a Dask array runs
        args, kwargs = block_stand_ins(args, kwargs)
    if isinstance(func, vectorize):
        wrapped = vectorize(func.pyfunc, excluded=func.excluded, signature=func.signature,
                            fallback="error", chunk_size=None, cache_dir=False)
    elif is_vmapped(func) or in_axes is not _UNMAPPED:
        if is_vmapped(func):
            func, in_axes = func.func, func.in_axes if in_axes is _UNMAPPED else in_axes
        wrapped = vmap(func, in_axes, fallback="error", chunk_size=None, cache_dir=False)
    else:
        wrapped = vectorize(func, fallback="error", chunk_size=None, cache_dir=False)
    wrapped._explain = True
    if isinstance(wrapped, vectorize):
        entry = wrapped._entry(args, kwargs)
    else:
        from .vmap_nested import target_flat
        while is_vmapped(wrapped._target):     # vmap(vmap(f)): f's batched call
            wrapped, args, _ = target_flat(wrapped, args, kwargs)
            wrapped._explain = True
        entry = wrapped._plan(args, kwargs)[0]
    if entry is None or isinstance(entry.spec, FallbackSpec):
        reason = "numpy.vectorize's own rules decide for these arguments" if entry is None \
            else entry.spec.reason
        raise VectorizeError(f"cannot explain `{getattr(func, '__name__', func)}`: {reason}")
    return Explanation(collect_specialization(entry.spec))
