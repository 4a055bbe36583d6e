"""NumPy: the default backend (its rule tables are the modules of `vectorize.rules`)."""

from __future__ import annotations

import numpy as np

from ..base import Backend


class NumpyBackend(Backend):
    """The NumPy spellings (the module imported as ``np`` in generated code)."""

    name = "numpy"
    alias = "np"
    module_name = "numpy"
    quiet = 'np.errstate(all="ignore")'

    def build_registry(self):
        from ...rules import (
            arrays,
            builtins,
            lanes,
            linalg,
            math_rules,
            numpy_rules,
            operators,
            shapes,
        )
        from ...rules.registry import Registry
        reg = Registry(self)
        for table in (operators, builtins, math_rules, numpy_rules, lanes, arrays, linalg,
                      shapes):
            table.register(reg)
        return reg

    def module(self):
        return np

    def claims(self, value) -> bool:
        return isinstance(value, (np.ndarray, np.generic))

    def lanes_of(self, mask: str) -> str:
        return f"np.flatnonzero({mask})"

    def count(self, mask: str) -> str:
        return f"np.count_nonzero({mask})"

    def size(self, x: str) -> str:
        return f"{x}.size"

    def empty(self, shape: str, dtype: str) -> str:
        return f"np.empty({shape}, dtype={dtype})"

    def full(self, shape: str, value: str, dtype: str) -> str:
        return f"np.full({shape}, {value}, dtype={dtype})"

    def shape(self, x: str) -> str:
        return f"np.shape({x})"

    def astype(self, x: str, dtype: str) -> str:
        return f"{x}.astype({dtype})"

    def result_type(self, *values: str) -> str:
        return "np.result_type(" + ", ".join(values) + ")"

    def repeat(self, x: str, n: str) -> str:
        return f"np.repeat({x}[None], {n}, axis=0)"

    def array_of(self, items: str) -> str:
        return f"np.array({items})"

    def dtype_code(self, dtype) -> str:
        """The dtype exactly: its scalar type when NumPy names it so, else ``np.dtype(...)``."""
        dtype = np.dtype(dtype)
        if dtype == np.bool_:
            return "np.bool_"
        if getattr(np, dtype.name, None) is dtype.type:
            return f"np.{dtype.name}"
        return f'np.dtype("{dtype}")'

    def dtype_named(self, dtype) -> str:
        dtype = np.dtype(dtype)
        return "np.bool_" if dtype == np.bool_ else f"np.{dtype.name}"
