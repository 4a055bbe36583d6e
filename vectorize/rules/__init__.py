"""Rule tables, one registry per array namespace (NumPy today)."""

from __future__ import annotations

from . import builtins, math_rules, numpy_rules, operators
from .registry import Registry, Rule, Site

__all__ = ["NUMPY", "Registry", "Rule", "Site", "registry_for"]


def _build_numpy() -> Registry:
    reg = Registry("numpy")
    for table in (operators, builtins, math_rules, numpy_rules):
        table.register(reg)
    return reg


NUMPY = _build_numpy()


def registry_for(namespace: str) -> Registry:
    if namespace == "numpy":
        return NUMPY
    raise ValueError(f"no rule tables for array namespace {namespace!r}")
