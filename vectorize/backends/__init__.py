"""The array namespaces generated code can be written for, one folder each.

A specialization is written for one backend, chosen from the call's arguments (`backend_of`):
PyTorch where an argument is a ``torch.Tensor``, NumPy otherwise. ``get(name)`` gives the
backend object (`base.Backend`), made once; a backend's own dependencies (``torch``) are
imported only when it is used.
"""

from __future__ import annotations

import importlib
import threading

from .base import Backend

# name -> "module:class", imported on first use
KNOWN = {
    "numpy": "vectorize.backends.numpy:NumpyBackend",
}
_made: dict[str, Backend] = {}
_lock = threading.Lock()


def get(name: str) -> Backend:
    backend = _made.get(name)
    if backend is not None:
        return backend
    if name not in KNOWN:
        raise ValueError(f"no backend named {name!r} (known: {', '.join(sorted(KNOWN))})")
    with _lock:
        if name not in _made:
            module, _, cls = KNOWN[name].partition(":")
            _made[name] = getattr(importlib.import_module(module), cls)()
    return _made[name]


__all__ = ["KNOWN", "Backend", "get"]
