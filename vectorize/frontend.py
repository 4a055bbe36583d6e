"""What every way into the engine shares: the fallback policy, the specialization cache, and
building a specialization (or the per-example fallback that stands for one).

The front ends (`api.vectorize`, `vmap.vmap`, the file rewriter `cli`) differ only in how they
read a call's arguments (numpy.vectorize's broadcasting, vmap's axes, a file's declared ranks)
and where they put the batch axis of the outputs; what they do with the abstract values they
make of the arguments is this module. Inside generated code the batch axis is always axis 0.
"""

from __future__ import annotations

import os
import threading
import time
import types
import warnings
from collections import OrderedDict

import numpy as np

from . import chunks
from .errors import VectorizeWarning

FALLBACKS = ("error", "warn", "loop")
MAX_SPECIALIZATIONS = 64
"""Specializations one vectorized callable keeps (least recently used dropped)."""


class VectorizeFallbackWarning(VectorizeWarning):
    """A piece of a function runs per example (a Python loop) instead of vectorized."""


def check_backend(backend) -> None:
    """``backend=`` of the front ends: None (chosen from the arguments) or a known name."""
    from . import backends
    if backend is not None and backend not in backends.KNOWN:
        raise ValueError("backend must be None or one of "
                         f"{', '.join(map(repr, backends.KNOWN))}, got {backend!r}")


def check_fallback(fallback: str) -> str:
    if fallback not in FALLBACKS:
        raise ValueError(f"fallback must be one of {FALLBACKS}, got {fallback!r}")
    return fallback


CACHE_ENV = "VECTORIZE_CACHE_DIR"
"""The environment variable naming the disk cache's directory (`vectorize.diskcache`)."""


def check_cache_dir(cache_dir):
    """The ``cache_dir=`` argument, checked: None (the environment decides), False (off),
    True (the default directory) or a path (`vectorize.diskcache`, imported only when a
    specialization is built, as it imports ``json``)."""
    if cache_dir is None or isinstance(cache_dir, bool):
        return cache_dir
    if isinstance(cache_dir, (str, os.PathLike)):
        return os.fspath(cache_dir)
    raise TypeError(f"cache_dir must be a path, True, False or None, got "
                    f"{type(cache_dir).__name__}")


class FallbackSpec:
    """The whole function runs per example (``reason`` says why; ``source`` is what
    ``.source()`` shows)."""

    def __init__(self, reason: str, source: str, kind: str = ""):
        self.reason = reason
        self.kind = kind        # the refusal's `errors.KINDS` (what decisions read)
        self.source = source
        self.result = None


def fallback_extent(spec) -> str:
    """What runs per example, for the warning: the whole function or some pieces."""
    if isinstance(spec, FallbackSpec):
        return "runs per example (a Python loop), the whole function"
    return "runs per example (a Python loop) for part of its work"


class Entry:
    """A specialization as the front ends keep it: ``spec``, what the transform made (a
    `codegen.Generated`, or a `FallbackSpec`), and ``tuning``, what the runtime learns about
    running it (`chunks.Tuning`: timings, the form chosen per batch-size class; None for a
    fallback). ``otypes``: per output, the dtype `vectorize` casts it to where
    numpy.vectorize's differs from the code's (float32 arguments: `vectorize._build`), or
    None. ``probe``: whether `vectorize` learns the output types of a call as numpy.vectorize
    does, from one call on the first example (`vectorize._first_example_types`): "values"
    on every call (the code chooses values per example, so the type may be the first
    example's), "dtypes" on the first call that gives them (then a 1-tuple of them), False
    never; None until the front end decides. ``narrow``: what makes ``otypes`` where it is
    made when first needed (`vectorize._narrow_types`), or None."""

    __slots__ = ("spec", "tuning", "otypes", "probe", "narrow")

    def __init__(self, spec, tuning=None):
        self.spec = spec
        self.tuning = tuning
        self.otypes = None
        self.probe = None
        self.narrow = None


class SpecCache:
    """Specializations (`Entry`) keyed by the call's abstract signature; safe for concurrent
    first calls (one transform per key), bounded (least recently used dropped)."""

    def __init__(self):
        self._entries: OrderedDict = OrderedDict()
        self._lock = threading.RLock()

    def get(self, key):
        entry = self._entries.get(key)
        if entry is not None and (isinstance(entry.spec, FallbackSpec)
                                  or entry.spec.guards_hold()):
            return entry
        return None

    def get_or_build(self, key, build):
        """The entry of ``key``, made by ``build()`` (an `Entry`) where there is none."""
        entry = self.get(key)
        if entry is not None:
            return entry
        with self._lock:
            entry = self.get(key)
            if entry is None:
                entry = build()
                self._entries[key] = entry
                self._entries.move_to_end(key)
                while len(self._entries) > MAX_SPECIALIZATIONS:
                    self._entries.popitem(last=False)
            return entry

    def refile(self, key, new_key, entry):
        """File ``entry``, the entry of ``key``, under ``new_key`` instead; returns the entry
        of ``new_key``."""
        with self._lock:
            if self._entries.get(key) is entry:
                del self._entries[key]
            return self.get_or_build(new_key, lambda: entry)

    def __len__(self):
        return len(self._entries)


class Announcer:
    """Warns once (per specialization, or per the token given) that a piece of a function
    runs per example, when the policy is ``"warn"``."""

    def __init__(self, fallback: str, who: str):
        self.fallback = fallback
        self.who = who          # "vectorize: f", "vectorize.vmap: f"
        self._warned: set = set()

    def __call__(self, reason: str, spec, stacklevel: int = 3, once=None) -> None:
        """``stacklevel`` counts from this call (3: the caller of the front end's method
        that announces)."""
        token = id(spec) if once is None else once
        if self.fallback == "warn" and token not in self._warned:
            self._warned.add(token)
            warnings.warn(f"{self.who} {fallback_extent(spec)}: {reason}. Pass "
                          "fallback='loop' to silence this, or fallback='error' to see where.",
                          VectorizeFallbackWarning, stacklevel=stacklevel)


def describe(params: dict) -> str:
    return "\n".join(f"  {name}: {value.describe()}" for name, value in params.items())


def where(func) -> str:
    """``file.py:line`` of a function's definition."""
    code = getattr(func, "__code__", None)
    if code is None:
        return "?"
    return f"{os.path.basename(code.co_filename)}:{code.co_firstlineno}"


def fallback_source(func, reason: str, kind: str) -> str:
    name = getattr(func, "__name__", "function")
    because = "\n".join(f"# {line}".rstrip() for line in f"because: {reason}".splitlines())
    return f"# vectorize: `{name}` runs per example ({kind}), not vectorized,\n{because}\n"


COMPACTED_NOTE = ("This form compacts the per-example `if`s that the form with `np.where` "
                  "merges does not\n(docs/design.md, \"Chunked execution\").")


def rule_wrapper(fn, count: int, backend: str):
    """``vmap(torch.dot)``: a function without Python source whose batching rule the backend
    knows, as a one-line Python function calling it (``def dot(x0, x1): return
    torch.dot(x0, x1)``), which the engine can read; None for anything else."""
    import linecache

    from . import backends
    registry = backends.get(backend).registry
    name = getattr(fn, "__name__", None)
    owner_type = getattr(fn, "__objclass__", None)
    in_place = bool(count and name and name.endswith("_") and not name.endswith("__")
                    and name in registry.methods
                    and getattr(backends.get(backend).module(), name, None) is fn)
    if count and (owner_type is not None or in_place) and name in registry.methods and (
            in_place or getattr(owner_type, "__module__", "").split(".")[0] ==
            backends.get(backend).module_name):
        # an unbound method of the backend's arrays (`vmap(torch.Tensor.view)`), or the
        # function form of an in-place method (`torch.clamp_min_(x, v)`): the method called
        # on the first argument
        params = [f"x{i}" for i in range(count)]
        text = f"def {name}({', '.join(params)}):\n    return x0.{name}({', '.join(params[1:])})\n"
        owner = owner_type.__name__ if owner_type is not None else \
            backends.get(backend).module_name
        filename = f"<vectorize rule wrapper of {owner}.{name}>"
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
        namespace: dict = {}
        exec(compile(text, filename, "exec"), namespace)
        return namespace[name]
    if not registry.knows(fn):
        return None
    if not isinstance(fn, (types.FunctionType, types.BuiltinFunctionType, type)) and \
            not hasattr(fn, "__name__"):
        # a callable object the backend has a rule for (an `nn.Module`): called by name
        params = ", ".join(f"x{i}" for i in range(count))
        text = f"def forward({params}):\n    return module({params})\n"
        filename = f"<vectorize rule wrapper of {type(fn).__name__}>"
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
        namespace = {"module": fn}
        exec(compile(text, filename, "exec"), namespace)
        return namespace["forward"]
    module = getattr(fn, "__module__", None) or ""
    owner = backends.get(backend).alias if module.split(".")[0] in \
        backends.get(backend).function_modules else None
    if name and name.isidentifier() and not owner:
        return _module_wrapper(fn, name, module, count)
    if not (name and name.isidentifier() and owner):
        return None
    path = f"{owner}.{name}"
    root = backends.get(backend).module()
    if getattr(root, name, None) is not fn:
        # a function of a submodule (`torch.linalg.slogdet` is named `linalg_slogdet`)
        found = [f"{owner}.{sub}.{attr}" for sub in ("linalg", "nn.functional", "special",
                                                        "fft", "ops.aten")
                 for attr, value in vars(_submodule(root, sub) or object).items()
                 if value is fn]
        if not found:
            return None
        path = found[0]
    params = ", ".join(f"x{i}" for i in range(count))
    text = f"def {name}({params}):\n    return {path}({params})\n"
    filename = f"<vectorize rule wrapper of {owner}.{name}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {owner: backends.get(backend).module()}
    exec(compile(text, filename, "exec"), namespace)
    return namespace[name]


def _module_wrapper(fn, name: str, module: str, count: int):
    """`rule_wrapper` of a function of another module (``math.cos``, ``builtins.abs``): the
    one-line function calling it by the name its module gives it, or None where the module
    does not give it that name."""
    import linecache
    import sys
    owner = sys.modules.get(module)
    if owner is None or getattr(owner, name, None) is not fn or not all(
            part.isidentifier() for part in module.split(".")):
        return None
    path = f"{module}.{name}"      # (`builtins.abs`: the wrapper is named `abs` too)
    params = ", ".join(f"x{i}" for i in range(count))
    text = f"def {name}({params}):\n    return {path}({params})\n"
    filename = f"<vectorize rule wrapper of {module}.{name}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    root = module.split(".")[0]
    namespace = {root: sys.modules[root]}
    exec(compile(text, filename, "exec"), namespace)
    return namespace[name]


def rule_arity(fn) -> int | None:
    """How many arguments a callable without source takes by position where none has a
    default (a ufunc: its inputs), for `rule_wrapper`; None where that is not known."""
    import inspect
    nin = getattr(fn, "nin", None)
    if isinstance(nin, int) and hasattr(fn, "nout"):
        return nin
    schema = getattr(getattr(fn, "default", None), "_schema", None)
    if schema is not None:      # an operator of `torch.ops` (its default overload's schema)
        required = [a for a in schema.arguments
                    if not a.has_default_value() and not a.kwarg_only]
        return len(required) or None
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    required = [p for p in parameters if p.default is p.empty
                and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(required) or None


def _submodule(root, path: str):
    for part in path.split("."):
        root = getattr(root, part, None)
    return root


def build(func, params: dict, *, fallback: str, title: str, kind: str,
          backend: str = "numpy", cache_dir=None, explain: bool = False,
          python_semantics: bool = False) -> Entry:
    """The specialization of ``func`` for the abstract values ``params`` (`Generated`) and the
    runtime's state for it (`tuning`), or, where it cannot be translated and the policy
    allows it, a `FallbackSpec` that runs it per example (``kind`` says how, for
    ``.source()``). ``title`` heads the generated source; ``cache_dir``: the disk cache
    (`vectorize.diskcache.directory`); ``explain``: record which rule rewrote which line
    (``Generated.explanations``, for `vectorize.explain`); ``python_semantics``: examples
    are Python numbers (`vectorize`, not `vmap`: an `abstract.PythonSemantics`, which says
    of which parameters; `passes.python_raises`)."""
    chunks.threads_setting()     # a bad VECTORIZE_NUM_THREADS fails now, whatever the size
    header = f"{title} from {func.__qualname__} ({where(func)}) for:\n{describe(params)}"
    try:
        spec = specialize(func, params, fallback=fallback, header=header, backend=backend,
                          cache_dir=cache_dir, explain=explain,
                          python_semantics=python_semantics)
    except Exception as exc:
        from .errors import VectorizeError
        if not isinstance(exc, VectorizeError) or fallback == "error":
            raise
        return Entry(FallbackSpec(str(exc), fallback_source(func, str(exc), kind), exc.kind))
    return Entry(spec, tuning(spec, func, params, header=header, backend=backend,
                              cache_dir=cache_dir, python_semantics=python_semantics))


def as_is_key(value):
    """The cache key's entry for an argument passed as it is: its type, and for an array its
    dtype and rank too (the generated code depends on them: `a.dot(w)` of a matrix `w` is
    another einsum than of a vector), and the value itself for the values the code is
    specialized on (`specialized_on`)."""
    if isinstance(value, np.ndarray):
        return (type(value), value.dtype.char, value.ndim)
    if specialized_on(value):
        return (type(value), value)
    return type(value)


_SPECIALIZED_TYPES = (type(None), bool, np.bool_, str, bytes)   # np.str_, np.bytes_ too
MAX_SPECIALIZED_LENGTH = 64


def specialized_on(value) -> bool:
    """Whether an argument passed as it is (a default, `excluded`, in_axes=None) is known to
    the generated code by its value, not only its type: None, a bool, a short string (flags
    and method names: ``if w is not None:`` / ``if method == "d8":`` then keep only the code
    that runs for it). The cache key holds the value (`as_is_key`)."""
    return isinstance(value, _SPECIALIZED_TYPES) and (
        not isinstance(value, (str, bytes)) or len(value) <= MAX_SPECIALIZED_LENGTH)


def specialize(func, params: dict, *, fallback: str = "error", header: str = "",
               backend: str = "numpy", cache_dir=False, if_strategy: str | None = None,
               explain: bool = False, python_semantics: bool = False):
    """`transform.transform_function`, through the disk cache where ``cache_dir`` turns it on
    (a hit runs no transform and imports no libcst; not with ``explain``, whose explanations
    a stored entry may not have)."""
    disk = spec = lookup = None
    if not explain and cache_dir is not False and (cache_dir is not None
                                                   or os.environ.get(CACHE_ENV)):
        from . import diskcache  # (json and the rest only when a cache may be on)
        disk = diskcache.store(cache_dir)
    if disk is not None:
        try:
            lookup = disk.lookup(func, params, fallback=fallback, header=header,
                                 if_strategy=if_strategy, backend=backend,
                                 python_semantics=python_semantics)
        except Exception as exc:    # noqa: BLE001 -- Uncacheable; the cache never fails a call
            diskcache.stats["uncacheable"] += 1
            diskcache.last_reason[0] = str(exc) if isinstance(exc, diskcache.Uncacheable) \
                else f"{type(exc).__name__}: {exc}"
            disk = None
        else:
            start = time.perf_counter()
            spec = disk.load(func, lookup)
    if spec is None:
        from .transform import transform_function  # libcst is imported on first use only
        start = time.perf_counter()
        spec = transform_function(func, params, fallback=fallback, header=header,
                                  backend=backend, if_strategy=if_strategy, explain=explain,
                                  python_semantics=python_semantics)
        # (the transform's own seconds where it says: a hit of the in-process memo,
        # `vectorize.memo`, says what the transform it reuses took)
        spec.build_seconds = spec.build_seconds or time.perf_counter() - start
        if disk is not None:
            disk.save(spec, lookup)
    else:
        spec.build_seconds = time.perf_counter() - start
    return spec


def tuning(spec, func, params: dict, *, header: str, backend: str, cache_dir,
           python_semantics: bool = False) -> chunks.Tuning:
    """The runtime's state for ``spec``, the specialization `specialize` made of ``func``
    for ``params`` (`chunks.Tuning`). Where the heuristic left compactable ``if``s in select
    form (``switchable_ifs``), it holds the way to make the specialization with them
    compacted (``build_compacted``, through the disk cache too), which `chunks.run` may time
    against ``spec`` on large batches. Not where a piece runs per example (it warns, and
    would then warn twice), and only where the runtime chooses forms (the backend's
    ``chunked_runs``)."""
    from . import backends
    build_compacted = None
    if spec.switchable_ifs and not spec.fallbacks and backends.get(backend).chunked_runs:
        def build_compacted():      # made later, by the runtime
            return specialize(func, params, fallback="error",
                              header=f"{header}\n{COMPACTED_NOTE}", backend=backend,
                              cache_dir=cache_dir, if_strategy="compact",
                              python_semantics=python_semantics)
    learned = chunks.Tuning(build_compacted, spec.build_seconds)
    if spec.disk_entry is not None and backends.get(backend).chunked_runs:
        # what an earlier process learned about running it (kept beside its disk entry)
        store, *entry = spec.disk_entry
        try:
            chunks.restore(learned, store.load_tuning(entry))
        except Exception:   # noqa: BLE001 -- the cache never fails a call: learn afresh
            pass
        learned.persist = lambda decided: store.save_tuning(entry, decided)
    return learned


# ------------------------------------------------------- the warm paths' compiled checks
MISSING = object()
"""(What a guard reads where a guarded namespace no longer holds the name.)"""


def guard_checks(count: int) -> list[str]:
    """The lines of a compiled warm-path check (`compiled_plan`) that give None where one of
    the ``count`` guards ``G`` (namespace, name, the value the code read) no longer holds:
    each guard's namespace's ``get``, name and value are the maker's own names (``GG0``,
    ``GN0``, ``GV0``...: read faster than ``G[0][0].get(G[0][1], ...)``, three subscripts
    fewer per guard and call)."""
    return [line for j in range(count)
            for line in (f"if GG{j}(GN{j}, MISSING) is not GV{j}:", "    return None")]


def compiled_plan(params: str, body: list[str], filename: str, guards: int = 0):
    """``make(params..., G, MISSING)``, which returns ``plan(args)``, whose body is ``body``
    (lines at the function's own indentation): `api._matcher` and `vmap._matcher` unroll
    their checks of a call's arguments for one layout into it, once per layout. ``guards``:
    the number of guards in ``G`` whose names `guard_checks` reads (bound by ``make``)."""
    bound = "".join(f"    GG{j}, GN{j}, GV{j} = G[{j}][0].get, G[{j}][1], G[{j}][2]\n"
                    for j in range(guards))
    text = (f"def make({params}, G, MISSING):\n{bound}    def plan(args):\n" +
            "\n".join("        " + line for line in body) + "\n    return plan\n")
    namespace: dict = {}
    exec(compile(text, filename, "exec"), namespace)     # noqa: S102
    return namespace["make"]
