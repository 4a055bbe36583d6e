"""The array namespaces generated code can be written for, one folder each.

A specialization is written for one backend, chosen from the call's arguments (`backend_of`):
PyTorch where an argument is a ``torch.Tensor``, NumPy otherwise. ``get(name)`` gives the
backend object (`base.Backend`), made once; a backend's own dependencies (``torch``) are
imported only when it is used.
"""

from __future__ import annotations

import importlib
import sys
import threading

from .base import Backend

# name -> "module:class", imported on first use
KNOWN = {
    "numpy": "vectorize.backends.numpy:NumpyBackend",
    "torch": "vectorize.backends.torch:TorchBackend",
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


def of_value(value) -> str | None:
    """The name of the backend whose array ``value`` is, None for anything else (NumPy
    arrays and scalars included: they need no backend of their own)."""
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(value, torch.Tensor):
        return "torch"
    return None


def foreign_example(value):
    """A NumPy example of another namespace's array (a torch tensor), else None."""
    name = of_value(value)
    if name is None:
        return None
    return get(name).example_of(value, batched=False)


__all__ = ["KNOWN", "Backend", "foreign_example", "get", "of_value"]
