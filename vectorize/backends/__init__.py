"""The array namespaces generated code can be written for, one folder each.

A specialization is written for one backend, chosen from the call's arguments: the backend
that claims one of them (`of_value`, `Backend.claims`: PyTorch for a ``torch.Tensor``), the
default one (NumPy) otherwise. ``get(name)`` gives the backend object (`base.Backend`), made
once; a backend's own dependencies (``torch``) are imported only when it is used.

A new backend is registered with one line in `KNOWN` (``docs/design.md``, "Adding a backend").
"""

from __future__ import annotations

import importlib
import threading

from .base import Backend

# name -> "module:class", imported on first use; the first is the default, the namespace of
# values no other backend claims (Python numbers, lists, NumPy arrays)
KNOWN = {
    "numpy": "vectorize.backends.numpy:NumpyBackend",
    "torch": "vectorize.backends.torch:TorchBackend",
    "jax": "vectorize.backends.jax:JaxBackend",
}
DEFAULT = next(iter(KNOWN))
EVERY_NAMESPACE: list = []
"""Families of rules that hold for every namespace (functions of a `rules.registry.Registry`
that register them), added by the module that owns what they are about (`vmap` adds the
rules of a vmapped function called on per-example values), so that the registry imports none
of the front ends."""
_made: dict[str, Backend] = {}
_claimants: list[Backend] = []      # the other backends, made on the first `of_value`
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
    """The name of the backend whose array ``value`` is, None for anything else (the default
    backend's arrays and scalars included: they need no backend of their own)."""
    for backend in _others():
        if backend.claims(value):
            return backend.name
    return None


def owns_function(fn) -> bool:
    """Whether ``fn`` is a function of another backend's library (``torch.split``; NumPy's are
    the analysis' own): mapped by its rules, never read as the user's code."""
    return any(backend.owns_function(fn) for backend in _others())


def owns_instance(value) -> bool:
    """Whether ``value`` is a callable object of another backend's library (a
    ``torch.nn.Module``): mapped by its rule, never read as the user's code."""
    return any(backend.owns_instance(value) for backend in _others())


def in_place_method(fn) -> str | None:
    """The method of another backend's arrays that does in place what its library's function
    ``fn`` does to its first argument (`Backend.in_place_method`), else None."""
    for backend in _others():
        found = backend.in_place_method(fn)
        if found is not None:
            return found
    return None


def grad_transform(fn):
    """``(f, argnums, has_aux, with_value)`` where ``fn`` is another backend's gradient
    transform of ``f`` (`Backend.grad_transform`: ``torch.func.grad(f)``), else None."""
    for backend in _others():
        found = backend.grad_transform(fn)
        if found is not None:
            return found
    return None


def names_dtype(text) -> bool:
    """Whether ``text`` spells a dtype of another backend's arrays (``"torch.float64"``)."""
    return any(backend.names_dtype(text) for backend in _others())


def refuse_others(reg, name: str) -> None:
    """Add to ``reg``, the registry of the backend ``name``, every other backend's located
    refusals of its library's functions (`Backend.refuse_in`)."""
    for other in KNOWN:
        if other != name:
            get(other).refuse_in(reg)


def _others() -> list[Backend]:
    if len(_claimants) != len(KNOWN) - 1:     # (again where one was registered since)
        _claimants[:] = [get(name) for name in KNOWN if name != DEFAULT]   # one assignment
    return _claimants


def foreign_example(value):
    """A NumPy example of another namespace's array (a torch tensor), else None."""
    name = of_value(value)
    if name is None:
        return None
    return get(name).example_of(value, batched=False)


__all__ = ["DEFAULT", "KNOWN", "Backend", "foreign_example", "get", "grad_transform",
           "names_dtype", "of_value", "owns_function", "owns_instance", "refuse_others"]
