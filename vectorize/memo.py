"""The in-process memo of transforms: a specialization the engine made once in this process
is made again from its generated source, without running the engine, for every later front-end
object that asks the same question (``vectorize(f)`` made anew in a loop or per call, a test
suite's fresh objects, the compacted form asked for again).

It is the disk cache (`vectorize.diskcache`) kept in memory, with the disk cache's questions
and checks: the key is the disk cache's *lookup* (the versions, the backend and policy, the
heading, the abstract arguments, the user's rules, and the function's print: module, name,
file, line, a hash of its source lines, its defaults), and an entry is reused only where every
helper it transformed and every value it read (free names, values reached through attributes)
has the print it had (`diskcache.materialize`), and where the engine is the same objects (the
backend's registry, every pass of `pipeline.PIPELINE`: a pass replaced at run time, by a test
or a debugging session, makes other code). What the disk cache cannot print (a value of a
user's class, an unreadable source) is not memoized: it runs the engine every time, as before.
The generated function is compiled and run afresh on every hit, with guards on the live
values, so a hit is the object a fresh transform gives.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

MAX_ENTRIES = 512
"""Entries kept (least recently used dropped): a payload is the generated source and the
prints of what it read, a few kilobytes."""

stats = {"hits": 0, "misses": 0, "stored": 0, "uncacheable": 0}
"""Counts for this process (diagnostics and tests)."""

_entries: OrderedDict = OrderedDict()     # key -> (engine objects, payload, build seconds)
_lock = threading.Lock()


def clear() -> None:
    """Forget every entry (the next transform of anything runs the engine)."""
    with _lock:
        _entries.clear()


def _engine(backend: str) -> tuple:
    """The objects the engine runs with now (identity matters: the entry keeps them alive)."""
    from . import backends
    from .pipeline import PIPELINE
    return (backends.get(backend).registry, *(step.transform for step in PIPELINE))


def key(func, params: dict, *, backend: str, fallback: str, header: str,
        if_strategy: str | None, python_semantics) -> str | None:
    """The memo's key for a transform (`transform.transform_function`'s question), or None
    where the disk cache could not store it (the function has no print)."""
    import json

    from .diskcache import Store
    if not all(_plain(value) for value in params.values()):
        stats["uncacheable"] += 1
        return None
    try:
        lookup = Store.lookup(func, params, fallback=fallback, header=header,
                              if_strategy=if_strategy, backend=backend,
                              python_semantics=python_semantics, engine=False)
        lookup["python_numbers"] = _python_numbers(params, python_semantics)
        return json.dumps(lookup, sort_keys=True)
    except Exception:   # noqa: BLE001 -- Uncacheable (or anything odd): not memoized
        stats["uncacheable"] += 1
        return None


def _plain(value) -> bool:
    """Whether an abstract argument is told apart from another by its print alone: an
    example that is a NumPy array or scalar, a Python number, string, bytes or None, or
    exactly known (printed by value); not an object whose attributes the analysis may read
    (its print is its type)."""
    import numpy as np

    from .abstract import UNKNOWN
    items = getattr(value, "items", None)
    if isinstance(items, tuple):
        return all(_plain(item) for item in items)
    example = getattr(value, "example", UNKNOWN)
    return getattr(value, "exact", False) or example is UNKNOWN or isinstance(
        example, (np.ndarray, np.generic, bool, int, float, complex, str, bytes, type(None)))


def _python_numbers(params: dict, python_semantics):
    """Which parameters (items of tuples too) are Python numbers per example
    (`abstract.PythonSemantics.numbers`, which holds the parameters' values by identity): the
    checks `passes.python_raises` writes and ``isinstance`` depend on it."""
    numbers = getattr(python_semantics, "numbers", None)
    if not numbers:
        return bool(python_semantics)

    def mark(value):
        items = getattr(value, "items", None)
        if isinstance(items, tuple):
            return [mark(item) for item in items]
        return any(value is number for number in numbers)
    return [[name, mark(value)] for name, value in params.items()]


def load(func, memo_key: str, backend: str):
    """The `codegen.Generated` of the entry of ``memo_key`` (made afresh, with the live
    values and an `Origin`, and the seconds the original transform took as its
    ``build_seconds``), or None."""
    from .diskcache import materialize
    with _lock:
        entry = _entries.get(memo_key)
        if entry is not None:
            _entries.move_to_end(memo_key)
    if entry is None or any(a is not b for a, b in zip(entry[0], _engine(backend))):
        stats["misses"] += 1
        return None
    try:
        generated = materialize(func, entry[1], origin=True)
    except Exception:   # noqa: BLE001 -- Mismatch: something it read changed
        stats["misses"] += 1
        return None
    generated.build_seconds = entry[2]
    stats["hits"] += 1
    return generated


def store(memo_key: str, generated, seconds: float, backend: str) -> None:
    """Keep what a fresh transform made (``generated``, in ``seconds``) under ``memo_key``."""
    import json

    from .diskcache import Store
    try:
        payload = Store.payload(generated, json.loads(memo_key))
    except Exception:   # noqa: BLE001 -- Uncacheable: it read something without a print
        stats["uncacheable"] += 1
        return
    with _lock:
        _entries[memo_key] = (_engine(backend), payload, seconds)
        _entries.move_to_end(memo_key)
        while len(_entries) > MAX_ENTRIES:
            _entries.popitem(last=False)
    stats["stored"] += 1
