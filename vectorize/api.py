"""The public entry points: ``vectorize`` (a drop-in for ``numpy.vectorize``) and ``vmap``.

Both are thin boundaries around one engine (`transform.transform_function`): they turn the
call's arguments into abstract values, look up (or build) the specialization for them, run it,
and put the batch axis where the caller expects it. Inside generated code the batch axis is
always axis 0.
"""

from __future__ import annotations

import functools
import inspect
import os
import threading
import types
import warnings
from collections import OrderedDict

import numpy as np

from .abstract import TupleValue, Value, representative
from .errors import VectorizeError

_FALLBACKS = ("error", "warn", "loop")
MAX_SPECIALIZATIONS = 64


class VectorizeFallbackWarning(UserWarning):
    """A piece of a function runs per example (a Python loop) instead of vectorized."""


def _check_fallback(fallback: str) -> str:
    if fallback not in _FALLBACKS:
        raise ValueError(f"fallback must be one of {_FALLBACKS}, got {fallback!r}")
    return fallback


class _FallbackSpec:
    """The whole function runs per example."""

    def __init__(self, reason: str, source: str):
        self.reason = reason
        self.source = source
        self.result = None


class _SpecCache:
    """Specializations keyed by the call's abstract signature; safe for concurrent first
    calls (one transform per key), bounded (least recently used dropped)."""

    def __init__(self):
        self._entries: OrderedDict = OrderedDict()
        self._lock = threading.RLock()

    def get(self, key):
        spec = self._entries.get(key)
        if spec is not None and (isinstance(spec, _FallbackSpec) or spec.guards_hold()):
            return spec
        return None

    def get_or_build(self, key, build):
        spec = self.get(key)
        if spec is not None:
            return spec
        with self._lock:
            spec = self.get(key)
            if spec is None:
                spec = build()
                self._entries[key] = spec
                self._entries.move_to_end(key)
                while len(self._entries) > MAX_SPECIALIZATIONS:
                    self._entries.popitem(last=False)
            return spec

    def __len__(self):
        return len(self._entries)


def _describe(params: dict) -> str:
    return "\n".join(f"  {name}: {value.describe()}" for name, value in params.items())


def _fallback_source(func, reason: str, kind: str) -> str:
    name = getattr(func, "__name__", "function")
    return (f"# vectorize: `{name}` runs per example ({kind}), not vectorized,\n"
            f"# because: {reason}\n")


class vectorize:
    """Drop-in for ``numpy.vectorize`` that really vectorizes.

    ``vectorize(pyfunc=None, *, otypes=None, doc=None, excluded=None, cache=False,
    signature=None, fallback="warn")``, usable bare (``@vectorize``) or with arguments
    (``@vectorize(otypes=[float])``). The per-example function is translated to NumPy code
    once per argument pattern (batched or not, dtype); ``.source(*args)`` shows that code.

    ``fallback``: ``"error"`` raises `VectorizeError` for anything not truly vectorized;
    ``"warn"`` (default) runs untranslatable pieces per example and warns once; ``"loop"`` does
    the same silently.
    """

    def __init__(self, pyfunc=np._NoValue, otypes=None, doc=None, excluded=None, cache=False,
                 signature=None, *, fallback="warn"):
        if (pyfunc is not np._NoValue and pyfunc is not None) and not callable(pyfunc):
            raise TypeError("pyfunc must be callable, got "
                            f"{type(pyfunc).__name__}; use vectorize(otypes=...) as a "
                            "decorator with keyword arguments")
        self.pyfunc = pyfunc
        self.cache = cache
        self.signature = signature
        self.fallback = _check_fallback(fallback)
        if isinstance(otypes, str):
            otypes = list(otypes)
        self.otypes = otypes
        self.excluded = set(excluded or ())
        self._specs = _SpecCache()
        self._warned: set = set()
        if pyfunc is not np._NoValue and pyfunc is not None:
            self.__wrapped__ = pyfunc
            self.__name__ = getattr(pyfunc, "__name__", type(pyfunc).__name__)
            self.__qualname__ = getattr(pyfunc, "__qualname__", self.__name__)
            self.__module__ = getattr(pyfunc, "__module__", None)
            self.__doc__ = pyfunc.__doc__ if doc is None else doc
        elif doc is not None:
            self.__doc__ = doc
        self._binding = None
        self._core_signature = None
        self._core_dims = False
        if signature is not None:
            self._core_signature = np.lib._function_base_impl._parse_gufunc_signature(
                signature.replace(" ", ""))
            self._core_dims = any(dims for dims in self._core_signature[0]
                                  + self._core_signature[1])

    # ----------------------------------------------------------------------- descriptors
    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self, obj)

    def __repr__(self):
        return f"<vectorize {getattr(self, '__name__', '?')}>"

    # --------------------------------------------------------------------------- calling
    def __call__(self, *args, **kwargs):
        if self.pyfunc is np._NoValue or self.pyfunc is None:
            if len(args) != 1 or kwargs or not callable(args[0]):
                raise TypeError("vectorize used as a decorator expects one function")
            return vectorize(args[0], otypes=self.otypes, doc=self.__doc__ if
                             self.__doc__ is not vectorize.__doc__ else None,
                             excluded=self.excluded, cache=self.cache,
                             signature=self.signature, fallback=self.fallback)
        if self._core_signature is not None:
            self._check_signature_inputs(args, kwargs)
        plan = self._plan(args, kwargs)
        if plan is None:
            return self._numpy_loop(args, kwargs)
        spec, call_args, shape = plan
        if isinstance(spec, _FallbackSpec):
            self._announce(spec.reason, spec)
            return self._numpy_loop(args, kwargs)
        if self._core_signature is not None:
            self._check_signature_outputs(spec.result)
        if spec.fallbacks:
            self._announce("; ".join(spec.fallbacks), spec)
        out = spec.function(*call_args)
        return self._outputs(out, spec.result, shape)

    def source(self, *args, **kwargs) -> str:
        """The generated source of the specialization these arguments select."""
        plan = self._plan(args, kwargs, announce=False)
        if plan is None:
            return _fallback_source(self.pyfunc, "signature with core dimensions is not "
                                    "vectorized yet", "numpy.vectorize loop")
        return plan[0].source

    def _check_signature_inputs(self, args, kwargs) -> None:
        """numpy.vectorize's check: with a signature, the arguments that are not `excluded`
        (positional and keyword alike) must match its inputs one for one."""
        n_args = (sum(1 for i in range(len(args)) if i not in self.excluded)
                  + sum(1 for name in kwargs if name not in self.excluded))
        expected = len(self._core_signature[0])
        if n_args != expected:
            raise TypeError("wrong number of positional arguments: "
                            f"expected {expected!r}, got {n_args!r}")

    def _check_signature_outputs(self, result) -> None:
        """numpy.vectorize's check: with a signature, pyfunc must return as many outputs as it
        declares (a tuple counts its items, anything else counts one)."""
        expected = len(self._core_signature[1])
        got = len(result.items) if isinstance(result, TupleValue) else 1
        if got != expected:
            raise ValueError("wrong number of outputs from pyfunc: "
                             f"expected {expected!r}, got {got!r}")

    def _announce(self, reason: str, spec) -> None:
        if self.fallback == "warn" and id(spec) not in self._warned:
            self._warned.add(id(spec))
            warnings.warn(f"vectorize: {getattr(self, '__name__', 'function')} runs per example "
                          f"(a Python loop) for part of its work: {reason}. Pass "
                          "fallback='loop' to silence this, or fallback='error' to see where.",
                          VectorizeFallbackWarning, stacklevel=3)

    def _numpy_loop(self, args, kwargs):
        vec = np.vectorize(self.pyfunc, otypes=self.otypes, excluded=self.excluded,
                           cache=self.cache, signature=self.signature)
        return vec(*args, **kwargs)

    def _target(self):
        """(plain function, leading arguments bound to it) or None when there is none."""
        func, lead = self.pyfunc, ()
        if isinstance(func, functools.partial):
            if func.keywords:
                return None
            lead, func = func.args, func.func
        if isinstance(func, types.MethodType):
            lead, func = (func.__self__,) + tuple(lead), func.__func__
        if not isinstance(func, types.FunctionType):
            return None
        return func, lead

    def _plan(self, args, kwargs, announce=True):
        """(specialization, arguments for the generated function, broadcast shape), or None
        when numpy's own loop must run. The cache key is computed from the arguments without
        building any abstract value; those are built only when a specialization is made."""
        if self._core_dims:
            return None
        binding = self._binding if self._binding is not None else self._make_binding()
        if isinstance(binding, str):
            return self._fallback_plan(binding, args, kwargs)
        func, lead, sig, names = binding
        if not kwargs and not lead and not self.excluded and len(args) == len(names):
            values, as_is = args, ()
        else:
            values, as_is = self._bind(sig, names, lead, args, kwargs)
        arrays = []
        for index, value in enumerate(values):
            if index in as_is:
                arrays.append(None)
                continue
            arr = value if type(value) is np.ndarray else np.asanyarray(value)
            if arr.dtype.kind in "OUSVmM":
                return self._fallback_plan(f"argument `{names[index]}` has dtype {arr.dtype}",
                                           args, kwargs)
            arrays.append(arr)
        shapes = [a.shape for a in arrays if a is not None and a.ndim]
        first = shapes[0] if shapes else ()
        shape = first if all(s == first for s in shapes) else np.broadcast_shapes(*shapes)
        size = 1
        for n in shape:
            size *= n
        call_args, key = [], []
        for index, arr in enumerate(arrays):
            if arr is None:
                call_args.append(values[index])
                key.append(type(values[index]))
            elif arr.ndim == 0 or (arr.size == 1 and size != 1):
                call_args.append(arr.reshape(())[()])
                key.append(arr.dtype.char)
            else:
                if arr.shape != shape:
                    arr = np.broadcast_to(arr, shape)
                call_args.append(arr.reshape(-1))
                key.append((arr.dtype.char,))
        key = (tuple(key), as_is)
        spec = self._specs.get(key)
        if spec is None:
            spec = self._specs.get_or_build(
                key, lambda: self._build(func, self._params(names, values, call_args, key[0])))
        return spec, call_args, shape

    def _make_binding(self):
        target = self._target()
        if target is None:
            self._binding = "it is not a Python function with source"
            return self._binding
        func, lead = target
        sig = _signature(func)
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in sig.parameters.values()):
            self._binding = "it takes *args or **kwargs"
            return self._binding
        self._binding = (func, lead, sig, list(sig.parameters))
        return self._binding

    def _bind(self, sig, names, lead, args, kwargs):
        """Values in parameter order, and the indices passed as they are (bound leading
        arguments, `excluded` ones and defaults, which numpy.vectorize does not broadcast)."""
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
            if name not in bound.arguments:
                values.append(sig.parameters[name].default)
                as_is.append(index)
                continue
            values.append(bound.arguments[name])
            if index < n_lead or name in self.excluded or (
                    0 <= pos < len(args) and pos in self.excluded):
                as_is.append(index)
        return values, tuple(as_is)

    @staticmethod
    def _params(names, values, call_args, kinds):
        """Abstract values of the parameters: ``kinds`` is the cache key's entry per argument
        (a type: passed as it is; a dtype char: a scalar; a 1-tuple: batched)."""
        params = {}
        for name, value, arg, kind in zip(names, values, call_args, kinds):
            if isinstance(kind, type):
                params[name] = Value(False, value)
            elif isinstance(kind, tuple):
                params[name] = Value(True, np.ones((), arg.dtype)[()])
            else:
                params[name] = Value(False, representative(arg))
        return params

    def _fallback_plan(self, reason, args, kwargs):
        if self.fallback == "error":
            code = getattr(self._target()[0] if self._target() else None, "__code__", None)
            raise VectorizeError(f"cannot vectorize `{getattr(self, '__name__', '?')}`: {reason}",
                                 filename=code.co_filename if code else "<unknown>",
                                 line=code.co_firstlineno if code else 0,
                                 suggestion="vectorize a plain `def` function, or pass "
                                            "fallback='warn'")
        return self._specs.get_or_build(("fallback", reason), lambda: _FallbackSpec(
            reason, _fallback_source(self.pyfunc, reason, "numpy.vectorize loop"))), args, None

    def _build(self, func, params):
        header = (f"Generated by vectorize from {func.__qualname__} "
                  f"({_where(func)}) for:\n{_describe(params)}")
        from .transform import transform_function  # libcst is imported on first use only
        try:
            return transform_function(func, params, fallback=self.fallback, header=header)
        except VectorizeError as exc:
            if self.fallback == "error":
                raise
            return _FallbackSpec(str(exc), _fallback_source(func, str(exc),
                                                            "numpy.vectorize loop"))

    def _outputs(self, out, result, shape):
        if isinstance(result, TupleValue):
            if not isinstance(out, tuple):
                out = tuple(out)
            return tuple(self._output(o, r, shape, i) for i, (o, r) in
                         enumerate(zip(out, result.items)))
        return self._output(out, result, shape, 0)

    def _output(self, out, result, shape, index):
        arr = np.asanyarray(out)
        if getattr(result, "batched", False) and arr.ndim > result.rank:
            arr = arr.reshape(shape + arr.shape[1:])
        else:
            arr = np.broadcast_to(arr, shape + arr.shape).copy()
        if self.otypes:
            arr = arr.astype(self.otypes[index] if index < len(self.otypes) else self.otypes[0],
                             copy=False)
        return arr


@functools.lru_cache(maxsize=256)
def _signature(func):
    return inspect.signature(func)


def _where(func) -> str:
    code = getattr(func, "__code__", None)
    if code is None:
        return "?"
    return f"{os.path.basename(code.co_filename)}:{code.co_firstlineno}"
