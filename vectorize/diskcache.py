"""The disk cache of generated code: a specialization made in one process is reused by the
next without running the engine (or importing libcst).

On when a directory is given (``cache_dir=`` of `vectorize.vectorize` and `vectorize.vmap`, or
the ``VECTORIZE_CACHE_DIR`` environment variable; ``cache_dir=True``: ``$XDG_CACHE_HOME/
vectorize``, else ``~/.cache/vectorize``; ``cache_dir=False``: off whatever the environment
says). Off by default.

An entry is one file, ``<slot>.vzc``: a header line (magic, format version, checksum of the
rest) and a JSON payload with the generated source and what a `codegen.Generated` needs to
run it (the abstract result, the per-example fallbacks, whether chunks may run on threads,
the per-example ``if``s that could be compacted, the backend), together with everything it
was made from:

- what was asked (the *lookup*): the package version and a stamp of its files, the Python and
  NumPy versions, the backend, the fallback policy, the heading of the generated source (which
  names the function, its file and line and the abstract arguments), the abstract arguments,
  the rules the user registered, and the function's own print (module, name, file, first
  line, a hash of its source lines, its defaults);
- what the transform read: every helper function it transformed (how to find it from the main
  function, and its print), and every free name any analysis resolved (its function, scope
  and a print of its value: modules by name, functions by their print, numbers, strings,
  arrays (up to 1 MiB), tuples, lists and dicts of those by value, functions written in C and
  NumPy's and the standard library's types by where they live). A value of any other kind
  (an object, a generator, a bound method...) makes the specialization uncacheable; and
  every value reached through attributes of a free name (``helpers.h``, ``Cls.K``: the path
  and its value's print where it has one, compared at a load and guarded after it).

The slot is a hash of what identifies the question (function, arguments, policy, Python), so
editing a function overwrites its entry instead of adding one. A load re-computes the lookup
and the prints of the live values and reuses the entry only if every one is equal; the loaded
`Generated` gets guards on the live globals, as a fresh transform would (rebinding a global
afterwards makes a new specialization). An entry that is missing, truncated, not parseable,
of another format, with a wrong checksum, not a regular file, owned by another user or
writable by others, or that does not match, is regenerated and overwritten, never executed.
The directory is created with mode 0o700 and not used at all (a warning, once) when another
user owns it or others may write to it. Writes go to a temporary file in the same directory
and are renamed into place (`os.replace`), so concurrent processes never read a partial entry
(the last writer wins).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import textwrap
import types
import warnings

import numpy as np

from .abstract import UNKNOWN, TupleValue, Value
from .introspect import (
    AttributePath,
    ClosureView,
    attribute_guard,
    dedent_margin,
    name_guard,
    source_lines,
    source_matches_code,
)
from .introspect import lookup as find_name
from .spec_facts import SpecFacts

try:        # hashlib's import loads OpenSSL (about 3 ms); blake2 is built in
    from _blake2 import blake2b
except ImportError:      # pragma: no cover -- another interpreter
    from hashlib import blake2b

FORMAT = 1
"""Version of the entry format; an entry of another version is regenerated."""
ENV = "VECTORIZE_CACHE_DIR"     # `frontend.CACHE_ENV`, which reads it without importing this
MAGIC = b"vectorize-cache"
SUFFIX = ".vzc"
MAX_ARRAY_BYTES = 1 << 20
"""Arrays read as globals are printed by a hash of their bytes up to this size; larger ones
make a specialization uncacheable."""

stats = {"hits": 0, "misses": 0, "writes": 0, "rejected": 0, "uncacheable": 0}
"""Counts for this process (diagnostics and tests): hits, misses (no entry), writes, rejected
entries (unreadable, corrupt, foreign or not matching; regenerated), uncacheable
specializations (something they read has no print)."""
last_reason = [""]
"""Why the last entry was rejected or the last specialization not stored."""

_user_rules: list = []      # (label, template, params, may_warn, namespace, func)
_warned: set = set()


class Uncacheable(Exception):
    """Something the specialization depends on has no print."""


# ----------------------------------------------------------------------------- settings
def default_directory() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "vectorize")


def directory(cache_dir) -> str | None:
    """The directory ``cache_dir`` stands for (read at every build: the environment variable
    may change), or None when the disk cache is off."""
    if cache_dir is False:
        return None
    if cache_dir is None:
        cache_dir = os.environ.get(ENV, "")
        if not cache_dir:
            return None
    if cache_dir is True:
        cache_dir = default_directory()
    return os.path.abspath(os.path.expanduser(cache_dir))


def note_rule(func, template, label, params, may_warn, namespace) -> None:
    """A rule the user registered (`vectorize.register_rule`): part of every lookup, since it
    changes what the engine makes of a call."""
    _user_rules.append((label, template, tuple(params) if params else None, may_warn,
                        namespace, func))


# ---------------------------------------------------------------------------------- prints
def _digest(data: bytes) -> str:
    return blake2b(data, digest_size=20).hexdigest()


_engine_stamp: list = []


def engine_stamp() -> list:
    """The package version and a stamp of its files (path, size, modification time of every
    ``.py`` under the package, as Python stamps bytecode): an edited engine never reuses
    the entries of another."""
    if not _engine_stamp:
        from . import __version__
        root = os.path.dirname(os.path.abspath(__file__))
        stamps = []
        for folder, subfolders, files in os.walk(root):
            subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
            for name in sorted(files):
                if name.endswith(".py"):
                    st = os.stat(os.path.join(folder, name))
                    stamps.append([os.path.relpath(os.path.join(folder, name), root),
                                   st.st_size, st.st_mtime_ns])
        _engine_stamp.append([__version__, _digest(json.dumps(stamps).encode())])
    return _engine_stamp[0]


def function_print(fn) -> list:
    """Module, qualified name, file, first line, a hash of the ``def``'s lines (decorators and
    comments included: ``# vectorize: compact`` changes the code) and the defaults."""
    try:
        lines, start = source_lines(fn)
    except (OSError, TypeError) as exc:
        raise Uncacheable(f"the source of {fn.__qualname__} cannot be read ({exc})") from None
    raw = "".join(lines)
    text = textwrap.dedent(raw)
    if not source_matches_code(fn, text, dedent_margin(raw, text)):
        # the file changed since the function was defined: its lines are not its code
        raise Uncacheable(f"the source of {fn.__qualname__} in its file is not its code")
    return ["function", fn.__module__, fn.__qualname__, fn.__code__.co_filename, start,
            _digest("".join(lines).encode("utf-8", "surrogatepass")),
            _digest(json.dumps(_code_print(fn.__code__)).encode()),
            value_print(fn.__defaults__),
            value_print(tuple(sorted((fn.__kwdefaults__ or {}).items())))]


def _code_print(code) -> list:
    """What tells apart two functions whose print is otherwise the same: lambdas on one line
    (``[lambda v: v * 0.5, lambda v: v * 4.0]`` have the same name, file, first line and
    lines) differ in their bytecode, names and constants."""
    return [code.co_code.hex(), list(code.co_names), list(code.co_varnames),
            [_code_print(c) if isinstance(c, types.CodeType) else repr(c)
             for c in code.co_consts]]


_SCALARS = {bool, int, float, complex, str, type(None), type(Ellipsis)}
_STDLIB = getattr(sys, "stdlib_module_names", frozenset({"builtins", "math", "cmath",
                                                         "operator", "functools"}))


def value_print(value) -> list:
    """A JSON-able print of a value the transform read, equal for values the engine treats
    alike, or `Uncacheable`."""
    kind = type(value)
    if kind in _SCALARS:
        return [kind.__name__, repr(value)]
    if kind is bytes:
        return ["bytes", value.hex()]
    if kind is tuple or kind is list:
        # (a list by its items now: the engine read them; a later change in this process
        # is the in-memory cache's affair, as for any global)
        return [kind.__name__, [value_print(v) for v in value]]
    if kind is dict:
        return ["dict", sorted([json.dumps(value_print(k)), value_print(v)]
                               for k, v in value.items())]
    if kind is frozenset:
        return ["frozenset", sorted(json.dumps(value_print(v)) for v in value)]
    if kind is slice:
        return ["slice", value_print((value.start, value.stop, value.step))]
    if kind is range:
        return ["range", [value.start, value.stop, value.step]]
    if isinstance(value, types.ModuleType):
        if sys.modules.get(value.__name__) is not value:
            # made by the program (`types.ModuleType("m")`): its name says nothing
            raise Uncacheable(f"module `{value.__name__}` is not importable by its name")
        return ["module", value.__name__]
    if kind is types.FunctionType:
        return function_print(value)
    if isinstance(value, np.generic):
        if value.dtype.hasobject:
            raise Uncacheable("a NumPy object scalar")
        return ["generic", value.dtype.str, value.tobytes().hex()]
    if kind is np.ndarray:
        if value.dtype.hasobject or value.nbytes > MAX_ARRAY_BYTES:
            raise Uncacheable("an array of objects or of more than 1 MiB")
        return ["ndarray", value.dtype.str, list(value.shape),
                _digest(np.ascontiguousarray(value).tobytes())]
    if isinstance(value, np.dtype):
        return ["dtype", str(value)]
    if isinstance(value, (types.BuiltinFunctionType, np.ufunc, type)) or \
            kind.__name__ == "_ArrayFunctionDispatcher":
        return _named_print(value)
    raise Uncacheable(f"a value of type {kind.__qualname__}")


def _named_print(value) -> list:
    """A function or type written in C, or a type of NumPy or the standard library, by where
    it lives (where its module's attribute of that name is that very object)."""
    module = getattr(value, "__module__", None)
    qualname = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
    if not isinstance(module, str) or not isinstance(qualname, str) or \
            _resolve(module, qualname) is not value:
        raise Uncacheable(f"{value!r} cannot be found by its name")
    if isinstance(value, type) and module.split(".")[0] not in _STDLIB and \
            module.split(".")[0] != "numpy":
        raise Uncacheable(f"the class {qualname} of {module}")
    return ["named", type(value).__name__, module, qualname]


def _resolve(module: str, qualname: str):
    """The object at ``module.qualname`` (modules already imported only), or None."""
    obj = sys.modules.get(module)
    for part in qualname.split("."):
        if obj is None or part.startswith("<"):
            return None
        obj = getattr(obj, part, None)
    return obj


def abstract_print(value) -> list:
    """A print of an abstract argument: batched or not, exact or not, and its example (by
    value where exact; else its dtype and per-example shape, or its type: a specialization
    does not depend on the value of an example that is not exact)."""
    if isinstance(value, TupleValue):
        if value.keys is not None or value.kind is not None:
            raise Uncacheable("a dict, list or namedtuple argument")
        return ["tuple", [abstract_print(v) for v in value.items]]
    ex = value.example
    if ex is UNKNOWN:
        example = ["unknown"]
    elif value.exact:
        example = value_print(ex)
    elif isinstance(ex, (np.ndarray, np.generic)):
        example = [type(ex).__name__, ex.dtype.str, list(np.shape(ex))]
    else:
        example = ["type", type(ex).__module__, type(ex).__qualname__]
    return ["value", bool(value.batched), bool(value.exact), example]


def _rules_print() -> list:
    return [[label, template, list(params) if params else None, may_warn, namespace,
             value_print(func)]
            for label, template, params, may_warn, namespace, func in _user_rules]


# ------------------------------------------------------------------- abstract result
def _encode_example(ex):
    if ex is UNKNOWN:
        return ["unknown"]
    if isinstance(ex, np.ndarray) and type(ex) is np.ndarray or isinstance(ex, np.generic):
        if ex.dtype.hasobject or ex.nbytes > MAX_ARRAY_BYTES:
            raise Uncacheable("a result example of objects")
        return ["ndarray" if isinstance(ex, np.ndarray) else "generic", ex.dtype.str,
                list(np.shape(ex)), np.ascontiguousarray(ex).tobytes().hex()]
    kind = type(ex)
    if kind in (bool, int, float, complex):
        return [kind.__name__, repr(ex)]
    if kind is str:
        return ["str", ex]
    if ex is None:
        return ["NoneType"]
    raise Uncacheable(f"a result of type {kind.__qualname__}")


_PARSE = {"bool": lambda s: s == "True", "int": int, "float": float,
          "complex": lambda s: complex(s.strip("()"))}


def _decode_example(data):
    kind = data[0]
    if kind == "unknown":
        return UNKNOWN
    if kind in ("ndarray", "generic"):
        arr = np.frombuffer(bytes.fromhex(data[3]), dtype=np.dtype(data[1])).reshape(data[2])
        return arr[()] if kind == "generic" else arr.copy()
    if kind in _PARSE:
        return _PARSE[kind](data[1])
    if kind == "str":
        return data[1]
    if kind == "NoneType":
        return None
    raise ValueError(f"unknown example kind {kind!r}")


def encode_result(result):
    if isinstance(result, TupleValue):
        if result.keys is not None or result.kind is not None:
            raise Uncacheable("a dict, list or namedtuple result")
        return ["tuple", [encode_result(item) for item in result.items]]
    if not isinstance(result, Value):
        raise Uncacheable(f"a result of kind {type(result).__name__}")
    return ["value", bool(result.batched), bool(result.exact), _encode_example(result.example)]


def decode_result(data):
    if data[0] == "tuple":
        return TupleValue(tuple(decode_result(item) for item in data[1]))
    if data[0] != "value":
        raise ValueError(f"unknown result kind {data[0]!r}")
    return Value(bool(data[1]), _decode_example(data[3]), bool(data[2]))


# ---------------------------------------------------------------------------- the store
class Store:
    """The entries of one directory."""

    def __init__(self, path: str):
        self.path = path

    def usable(self, create: bool) -> bool:
        """Whether the directory exists (made with mode 0o700 when ``create``), belongs to
        this user and no one else may write to it (else a warning, once per directory)."""
        if create:
            try:
                os.makedirs(self.path, mode=0o700, exist_ok=True)
            except OSError:
                pass            # (a file of that name: said below)
        try:
            st = os.stat(self.path)
        except OSError:
            return False
        problem = None
        if not os.path.isdir(self.path):
            problem = "is not a directory"
        elif hasattr(os, "getuid") and st.st_uid != os.getuid():
            problem = "belongs to another user"
        elif st.st_mode & 0o022:
            problem = "may be written by other users"
        if problem is None:
            return True
        if self.path not in _warned:
            _warned.add(self.path)
            warnings.warn(f"vectorize: the cache directory {self.path} {problem}; it is not "
                          "used (pass cache_dir= a directory only you can write)",
                          RuntimeWarning, stacklevel=5)
        return False

    @staticmethod
    def lookup(func, params, *, fallback, header, if_strategy, backend,
               python_semantics=False, engine=True) -> dict:
        """What an entry must have been made for (`Uncacheable` where it has no print).
        ``python_semantics``: made for `vectorize` (Python numbers per example: the checks
        `passes.python_raises` writes) or `vmap` (NumPy scalars): the code differs.
        ``engine=False``: without the stamp of the engine's files (the in-process memo,
        `vectorize.memo`: the engine is the code this process loaded)."""
        return {
            # (and which parameters are ints of a narrow argument: fewer checks)
            "python_semantics": bool(python_semantics) and (
                [name for name, v in params.items() if any(
                    v is s for s in getattr(python_semantics, "small_ints", ()))] or True),
            "python": [sys.version, sys.platform, sys.maxsize],
            "numpy": np.__version__,
            "engine": engine_stamp() if engine else None,
            "backend": backend,
            "backend_state": _backends().get(backend).state_print(),
            "fallback": fallback,
            "if_strategy": if_strategy,
            "header": header,
            "function": function_print(func),
            "params": [[name, abstract_print(value)] for name, value in params.items()],
            "rules": _rules_print(),
        }

    def file(self, lookup: dict) -> str:
        """The entry's path: a hash of what identifies the question (not of the function's
        source, the engine or NumPy: a new version of those overwrites the old entry)."""
        fn = lookup["function"]
        key = [FORMAT, lookup["python"], lookup["backend"], lookup["fallback"],
               lookup["if_strategy"], lookup["python_semantics"], fn[1], fn[2], fn[3],
               lookup["params"]]
        return os.path.join(self.path, _digest(json.dumps(key).encode()) + SUFFIX)

    # ------------------------------------------------------------------------- reading
    def load(self, func, lookup: dict):
        """The `Generated` of a matching entry, or None (a miss, or an entry rejected)."""
        if not self.usable(create=False):
            stats["misses"] += 1
            return None
        path = self.file(lookup)
        try:
            payload, digest = self._read_entry(path)
        except FileNotFoundError:
            stats["misses"] += 1
            return None
        except (OSError, ValueError) as exc:
            return self._reject(f"{os.path.basename(path)}: {exc}")
        if payload.get("lookup") != lookup:
            return self._reject("made for something else (the source, a helper, the "
                                "engine or a version changed)")
        try:
            loaded = materialize(func, payload)
        except Mismatch as exc:
            return self._reject(str(exc))
        except Exception as exc:    # noqa: BLE001 -- any malformed entry is a miss
            return self._reject(f"malformed entry ({type(exc).__name__}: {exc})")
        stats["hits"] += 1
        loaded.disk_entry = (self, path, digest)
        return loaded

    @staticmethod
    def _read(path: str) -> dict:
        return Store._read_entry(path)[0]

    @staticmethod
    def _read_entry(path: str, magic: bytes = MAGIC) -> tuple[dict, str]:
        """(payload, checksum of the payload) of a file written by `_write`."""
        # O_NONBLOCK: opening a FIFO put in an entry's place must not wait for a writer
        # (the fstat below then refuses it); on a regular file it changes nothing
        flags = (os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
                 | getattr(os, "O_NONBLOCK", 0))
        fd = os.open(path, flags)
        try:
            st = os.fstat(fd)
            if not (st.st_mode & 0o170000 == 0o100000):
                raise ValueError("not a regular file")
            if hasattr(os, "getuid") and st.st_uid != os.getuid():
                raise ValueError("written by another user")
            if st.st_mode & 0o022:
                raise ValueError("writable by other users")
            with os.fdopen(fd, "rb", closefd=False) as f:
                data = f.read()
        finally:
            os.close(fd)
        head, sep, body = data.partition(b"\n")
        parts = head.split(b" ")
        if not sep or len(parts) != 3 or parts[0] != magic:
            raise ValueError("not an entry")
        if parts[1] != str(FORMAT).encode():
            raise ValueError(f"format {parts[1].decode(errors='replace')}, not {FORMAT}")
        if parts[2] != _digest(body).encode():
            raise ValueError("wrong checksum (truncated or corrupt)")
        payload = json.loads(body)
        if not isinstance(payload, dict):
            raise ValueError("not an entry")
        return payload, parts[2].decode()

    @staticmethod
    def _functions(main, addresses) -> list | None:
        """The live functions an entry names (the main one first), each found as the entry
        says (the value of a free name of one found before it, or by its module and name)
        and with the print it had, or None."""
        functions = []
        for address, printed in addresses:
            if address[0] == "main":
                fn = main
            elif address[0] == "read":
                found, fn, scope = find_name(functions[address[1]], address[3])
                if not found or scope != address[2]:
                    return None
            elif address[0] == "module":
                fn = _resolve(address[1], address[2])
            else:
                return None
            if type(fn) is not types.FunctionType or _printed(fn) != printed:
                return None
            functions.append(fn)
        return functions

    @staticmethod
    def _reject(reason: str):
        stats["rejected"] += 1
        last_reason[0] = reason
        return None

    # ------------------------------------------------------------------------- writing
    def save(self, spec, lookup: dict) -> bool:
        """Store ``spec`` (a fresh `Generated`) for ``lookup``; False where it cannot be
        (uncacheable, or the directory is not usable or not writable)."""
        try:
            payload = self.payload(spec, lookup)
        except Exception as exc:    # noqa: BLE001 -- the cache never fails a call
            stats["uncacheable"] += 1
            last_reason[0] = str(exc) if isinstance(exc, Uncacheable) else \
                f"{type(exc).__name__}: {exc}"
            return False
        if not self.usable(create=True):
            return False
        body = json.dumps(payload, separators=(",", ":")).encode()
        path = self.file(lookup)
        if not self._write(path, MAGIC, body):
            return False
        spec.disk_entry = (self, path, _digest(body))
        stats["writes"] += 1
        return True

    def _write(self, path: str, magic: bytes, body: bytes) -> bool:
        """Write ``body`` under a header line (``magic``, `FORMAT`, its checksum) to ``path``
        atomically (a temporary file renamed into place)."""
        data = b"%s %d %s\n" % (magic, FORMAT, _digest(body).encode()) + body
        try:
            fd, temporary = tempfile.mkstemp(dir=self.path, prefix=".tmp-", suffix=SUFFIX)
        except OSError:
            return False
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(temporary, path)
        except OSError:
            try:
                os.unlink(temporary)
            except OSError:
                pass
            return False
        return True

    # --------------------------------------------------------------- what the runtime learned
    # `chunks.Tuning`'s decisions for a specialization (per batch-size class: one call or
    # chunks on how many threads, the select or the compacted form), kept beside its entry in
    # ``<slot>.vzt`` with the entry's checksum: a later process starts tuned, and an entry
    # rewritten for something else (the function edited) leaves them unused.
    def save_tuning(self, entry: tuple, learned: dict) -> bool:
        path, digest = entry
        body = json.dumps({"entry": digest, **learned}, separators=(",", ":")).encode()
        return self.usable(create=True) and self._write(_tuning_path(path), TUNING_MAGIC,
                                                        body)

    def load_tuning(self, entry: tuple) -> dict | None:
        path, digest = entry
        try:
            payload, _ = self._read_entry(_tuning_path(path), TUNING_MAGIC)
        except (OSError, ValueError):
            return None
        return payload if payload.get("entry") == digest else None

    @staticmethod
    def payload(spec, lookup: dict) -> dict:
        """What an entry stores of ``spec`` (a fresh `Generated`) made for ``lookup``, or
        `Uncacheable`."""
        origin = spec.origin
        if origin is None:
            raise Uncacheable("the specialization was not made by the engine")
        if "vmap(" in spec.source and not any(name == "vmap" for *_, name in origin.free):
            raise Uncacheable("it calls a vmapped function on per-example values")
        functions = origin.functions
        index = {id(functions[0]): 0}
        addresses = [[["main"], lookup["function"]]]
        pending = list(functions[1:])
        while pending:
            for fn in pending:
                address = _address(fn, origin.reads, index)
                if address is not None:
                    break
            else:
                raise Uncacheable(f"the helper {pending[0].__qualname__} cannot be found "
                                  "from the function")
            pending.remove(fn)
            index[id(fn)] = len(addresses)
            addresses.append([address, function_print(fn)])
        reads = []
        for fn, scope, name, value in origin.reads:
            if scope not in ("global", "closure", "builtin"):
                raise Uncacheable(f"`{name}` was not found")
            reads.append([index[id(fn)], scope, name, value_print(value)])
        return {
            "lookup": lookup,
            "main": origin.emitted[0][0],
            "source": spec.source,
            "backend": spec.backend,
            "result": encode_result(spec.result),
            "functions": addresses,
            "emitted": [[name, index[id(fn)]] for name, fn in origin.emitted],
            "reads": reads,
            "free": [[index[id(fn)], scope, name, *([origin.aliases[k]] if k in origin.aliases
                                                    else [])]
                     for k, (fn, scope, name) in enumerate(origin.free)],
            "attributes": [[index[id(fn)], scope, root, list(attrs), _printed(value)]
                           for fn, scope, root, attrs, value in origin.attributes],
            "fallbacks": list(spec.fallbacks),
            "explanations": [list(e) for e in spec.explanations],
            "parallel": bool(spec.parallel),
            "switchable_ifs": int(spec.switchable_ifs),
            "mixed_types": spec.mixed_types,
            "python_bools": bool(spec.python_bools),
            "settles_kinds": bool(getattr(spec, "settles_kinds", False)),
            "first_call_differs": bool(spec.first_call_differs),
            "facts": spec.facts.payload(),
        }


class Mismatch(Exception):
    """Something a stored specialization read is bound to something else now."""


def materialize(func, payload: dict, origin: bool = False):
    """The `Generated` of ``payload`` (what `Store.payload` made of a specialization of a
    function printed as ``func`` is now), after checking that every helper it transformed and
    every value it read (free names, attributes) has the print it had then, or `Mismatch`.
    Its guards hold the live values, as a fresh transform's would; with ``origin``, it also
    gets the `codegen.Origin` a fresh transform gives (what the in-process memo,
    `vectorize.memo`, hands out, so that the disk cache can store it)."""
    from .codegen import SPELLED_WITH, Generated, Origin, execute
    functions = Store._functions(func, payload["functions"])
    if functions is None:
        raise Mismatch("a helper function changed or cannot be found")
    reads = []
    for index, scope, name, printed in payload["reads"]:
        found, value, live_scope = find_name(functions[index], name)
        if not found or live_scope != scope or _printed(value) != printed:
            raise Mismatch(f"`{name}` is bound to something else now")
        reads.append((functions[index], scope, name, value))
    emitted = [(name, functions[index]) for name, index in payload["emitted"]]
    names = {name for name, _ in emitted}
    guards, namespace, free, aliases = [], {}, [], {}
    for k, (index, scope, name, *alias) in enumerate(payload["free"]):
        fn = functions[index]
        if alias:
            aliases[k] = alias[0]
        found, value, _ = find_name(fn, name)
        if not found:
            raise Mismatch(f"`{name}` is not defined now")
        guards.append(name_guard(fn.__globals__ if scope == "global" else ClosureView(fn),
                                 name, value))
        free.append((fn, scope, name))
        if alias or not isinstance(value, types.ModuleType) and name not in names:
            namespace[alias[0] if alias else name] = value
    attributes = []
    for index, scope, root, attrs, printed in payload.get("attributes", ()):
        fn = functions[index]
        path = AttributePath(fn.__globals__ if scope == "global" else ClosureView(fn),
                             root, tuple(attrs))
        label = ".".join((root, *attrs))
        value = path.get(label, _ABSENT)
        if value is _ABSENT or printed is not None and _printed(value) != printed:
            raise Mismatch(f"`{label}` is bound to something else now")
        guards.append(attribute_guard(path.namespace, root, tuple(attrs), value))
        attributes.append((fn, scope, root, tuple(attrs), value))
    if origin and "vmap" in SPELLED_WITH and namespace.get("vmap") is SPELLED_WITH["vmap"][0]:
        namespace["vmap"] = SPELLED_WITH["vmap"][1]     # as `codegen.print_module` does
    result = decode_result(payload["result"])
    function = execute(payload["source"], payload["main"], namespace, {
        name: (fn.__defaults__, fn.__kwdefaults__) for name, fn in emitted})
    from . import backends
    function = backends.get(payload["backend"]).runnable(function, payload["source"])
    return Generated(source=payload["source"], function=function, backend=payload["backend"],
                     result=result, guards=tuple(guards), fallbacks=list(payload["fallbacks"]),
                     explanations=[tuple(e) for e in payload["explanations"]],
                     parallel=bool(payload["parallel"]),
                     switchable_ifs=int(payload["switchable_ifs"]),
                     mixed_types=payload.get("mixed_types"),
                     python_bools=bool(payload.get("python_bools")),
                     settles_kinds=bool(payload.get("settles_kinds")),
                     first_call_differs=bool(payload.get("first_call_differs")),
                     facts=SpecFacts.from_payload(payload.get("facts")),
                     origin=Origin(functions, emitted, reads, free, attributes, aliases)
                     if origin else None)


_ABSENT = object()
TUNING_MAGIC = b"vectorize-tuning"


def _tuning_path(entry_path: str) -> str:
    return entry_path[:-len(SUFFIX)] + ".vzt"


def _printed(value):
    try:
        return value_print(value)
    except Uncacheable:
        return None


def _address(fn, reads, index) -> list | None:
    """How to find helper ``fn`` from the functions already found: the value of one of their
    free names, or its module's attribute."""
    for owner, scope, name, value in reads:
        if value is fn and id(owner) in index and scope in ("global", "closure"):
            return ["read", index[id(owner)], scope, name]
    if _resolve(fn.__module__, fn.__qualname__) is fn:
        return ["module", fn.__module__, fn.__qualname__]
    return None


_stores: dict[str, Store] = {}


def store(cache_dir) -> Store | None:
    """The store for ``cache_dir`` (see `directory`), or None when the disk cache is off or
    a registered rule has no print."""
    path = directory(cache_dir)
    if path is None:
        return None
    found = _stores.get(path)
    if found is None:
        found = _stores[path] = Store(path)
    return found


def _backends():
    # (lazily: the backends import the analysis, which imports this module)
    from . import backends
    return backends
