"""What travels to another process: pickling the callables `vectorize` and `vmap` make.

A vectorized callable holds compiled code, locks and timings that belong to the process that
made them; what another process needs is only what it was made from: the user's function and
the options. So a callable pickles as those (``__reduce__`` of `api.vectorize` and
`vmap._VMapped`), and the process that loads it makes its specializations again (or takes them
from the disk cache, ``cache_dir=``). Used by Dask workers (`vectorize.dask_runtime`),
``multiprocessing`` and ``concurrent.futures.ProcessPoolExecutor`` alike.

- A callable that its module holds under its own name (``@vectorize`` on a module-level
  ``def`` of an importable module) pickles by reference, as a function does: the other
  process imports the module.
- Any other (made in ``__main__``, in a notebook, in a function, from a lambda) pickles by
  value; its function then has to be picklable by value too, which takes ``cloudpickle``
  (Dask's and ``loky``'s pickler; the standard ``pickle`` pickles functions by reference
  only). The engine reads a function's source, which the loading process may not have (a
  worker on another machine has no such file, a notebook cell has none at all, and
  cloudpickle names the file of every function it pickles by value ``<dynamic-code>``): so
  the lines of the files of the functions it reaches go with it, and the loading process
  gives those functions their file names back and the lines to `linecache` where its own
  copy of a file is missing or different.
- Every copy a process loads of one callable is the same object there (they share one
  token), so the tasks of a Dask graph that a worker runs share its specializations instead
  of making them again for each task.
"""

from __future__ import annotations

import sys
import threading
import weakref
from collections import OrderedDict

MAX_SOURCE_BYTES = 1 << 20
"""The files of a function and its helpers are sent along up to this many bytes in all (the
other process must have those that do not fit)."""
KEPT = 32
"""Callables a process keeps alive after loading them, most recent first, so that the next
graph that ships the same one finds its specializations made."""

_loaded: OrderedDict = OrderedDict()     # token -> callable loaded in this process
_tokens: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()    # callable -> token
_lock = threading.Lock()


def token(obj) -> str:
    """The token that names one vectorized callable in every process (made on first use;
    kept beside the object, not in its ``__dict__``, which ``functools.update_wrapper``
    copies into a wrapper)."""
    value = _tokens.get(obj)
    if value is None:
        import uuid
        value = _tokens.setdefault(obj, uuid.uuid4().hex)
    return value


def reduce(obj, make, options: dict, func):
    """``obj.__reduce__()``: a global reference where ``obj`` is its module's attribute of its
    own name, else (`restore`, (token, `make`, options, source)). ``func`` is the user's
    function: where the files of the functions it reaches are readable here, their lines go
    with it (`_sources`)."""
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None)
    if _by_reference(obj, module, qualname):
        return qualname
    key = token(obj)
    with _lock:     # a copy loaded in this process is this very object
        _loaded[key] = obj
        _loaded.move_to_end(key)
        while len(_loaded) > KEPT:
            _loaded.popitem(last=False)
    return restore, (key, make, options, _sources(func))


def restore(token_, make, options, source):
    """The callable of ``token_`` in this process: the one loaded before, else
    ``make(**options)``, its function's source made readable first (`_sources`)."""
    with _lock:
        obj = _loaded.get(token_)
        if obj is not None:
            _loaded.move_to_end(token_)
            return obj
    func = options.get("pyfunc", options.get("func"))
    if source is not None:
        _install(func, *source)
    obj = make(**options)
    _tokens[obj] = token_
    with _lock:
        obj = _loaded.setdefault(token_, obj)
        _loaded.move_to_end(token_)
        while len(_loaded) > KEPT:
            _loaded.popitem(last=False)
    return obj


DYNAMIC = "<dynamic-code>"
"""The file name cloudpickle (3.1 and later) gives the code of a function pickled by value."""
MAX_FUNCTIONS = 256


def _functions(func):
    """The Python functions ``func`` reaches (itself, the functions its code reads as
    globals or from its closure, and theirs), each once; the engine reads their source."""
    import functools
    import types
    seen, order, todo = set(), [], [func]
    while todo and len(order) < MAX_FUNCTIONS:
        fn = todo.pop()
        while isinstance(fn, functools.partial):
            fn = fn.func
        if isinstance(fn, types.MethodType):
            fn = fn.__func__
        fn = getattr(fn, "__wrapped__", fn) if not isinstance(fn, types.FunctionType) else fn
        if not isinstance(fn, types.FunctionType) or id(fn) in seen:
            continue
        seen.add(id(fn))
        order.append(fn)
        names = set()
        stack = [fn.__code__]
        while stack:
            code = stack.pop()
            names.update(code.co_names)
            stack.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
        todo.extend(fn.__globals__[n] for n in names if n in fn.__globals__)
        for cell in fn.__closure__ or ():
            try:
                todo.append(cell.cell_contents)
            except ValueError:      # an empty cell
                pass
    return order


def _sources(func):
    """({(qualname, first line): file name} of the functions ``func`` reaches, {file name:
    lines}) as this process reads them (the files, ``func``'s first, up to `MAX_SOURCE_BYTES`
    in all), or None when there are none."""
    import linecache
    files, origins, size = {}, {}, 0
    for fn in _functions(func):
        code = fn.__code__
        filename = code.co_filename
        if filename == DYNAMIC:
            continue
        if filename not in files:
            lines = linecache.getlines(filename, fn.__globals__)
            if not lines or size + sum(map(len, lines)) > MAX_SOURCE_BYTES:
                continue
            size += sum(map(len, lines))
            files[filename] = tuple(lines)
        origins[(fn.__qualname__, code.co_firstlineno)] = filename
    return (origins, files) if origins else None


def _install(func, origins, files) -> None:
    """Give the functions ``func`` reaches that came without their file name (cloudpickle's
    ``<dynamic-code>``) the name they had, and make the lines sent what `linecache` (and so
    `inspect`) gives for each file where this process reads something else (no such file
    here, or another version of it). The entries have no modification time, so
    `linecache.checkcache` keeps them."""
    import linecache
    for fn in _functions(func):
        code = fn.__code__
        filename = origins.get((fn.__qualname__, code.co_firstlineno))
        if filename is not None and code.co_filename == DYNAMIC:
            fn.__code__ = _renamed(code, filename)
    for filename, lines in files.items():
        lines = list(lines)
        if linecache.getlines(filename) != lines:
            linecache.cache[filename] = (sum(map(len, lines)), None, lines, filename)


def _renamed(code, filename):
    import types
    consts = tuple(_renamed(c, filename) if isinstance(c, types.CodeType) else c
                   for c in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)


def _by_reference(obj, module, qualname) -> bool:
    if not module or not qualname or module == "__main__" or "<" in qualname:
        return False
    mod = sys.modules.get(module)
    if mod is None:
        return False
    cloudpickle = sys.modules.get("cloudpickle")
    if cloudpickle is not None:
        registered = getattr(getattr(cloudpickle, "cloudpickle", None),
                             "_is_registered_pickle_by_value", None)
        if registered is not None and registered(mod):
            return False
    target = mod
    for part in qualname.split("."):
        target = getattr(target, part, None)
    return target is obj
