"""The array operations the passes write themselves, spelled for one array namespace.

Rules say how the user's operations batch; the passes also write a few operations of their
own: the lane indices of a mask and the gathers and scatters of compaction, new arrays for
values that become per-example, the list of a per-example fallback, and the context that
silences floating-point warnings on thrown-away lanes. Their spellings live here, in one table
per namespace, which the namespace's `Registry` exposes as ``registry.primitives``; the passes
write no namespace name themselves (``tests/test_primitives.py`` checks it).

Each method returns source text; its arguments are source text too (placeholders such as
``"{v}"`` stay placeholders, so a result can be a template for ``cst_util.expr``). A second
namespace (PyTorch) supplies a table with the same methods and attributes:

- ``lanes_of(mask)``: the indices of the true lanes of a 1-d boolean mask, ascending;
- ``count(mask)``: how many lanes of a mask are true;
- ``empty(shape, dtype)`` / ``full(shape, value, dtype)``: a new array;
- ``shape(x)``: the shape of an array or scalar, as a tuple;
- ``repeat(x, n)``: ``n`` copies of the array ``x`` along a new first axis;
- ``array_of(items)``: an array of a list of per-example results;
- ``dtype_code(dtype)``: a NumPy dtype in the namespace's spelling; ``dtype_named(dtype)``:
  the namespace's scalar type of that name (``np.int64`` for a ``longlong`` too);
- ``quiet``: a context manager expression under which nothing warns.
"""

from __future__ import annotations

import numpy as np


class NumpyPrimitives:
    """The NumPy spellings (names imported as ``np`` in generated code)."""

    namespace = "numpy"
    quiet = 'np.errstate(all="ignore")'

    def __init__(self):
        # how the passes recognise what they wrote: a `with` on any call of `quiet`'s
        # function, and the calls that only move data (they cannot warn)
        self.quiet_prefix = self.quiet.partition("(")[0] + "("
        self.data_calls = frozenset(call.partition("(")[0] for call in (
            self.lanes_of("m"), self.full("s", "v", "d"), self.empty("s", "d")))

    def lanes_of(self, mask: str) -> str:
        return f"np.flatnonzero({mask})"

    def count(self, mask: str) -> str:
        return f"np.count_nonzero({mask})"

    def empty(self, shape: str, dtype: str) -> str:
        return f"np.empty({shape}, dtype={dtype})"

    def full(self, shape: str, value: str, dtype: str) -> str:
        return f"np.full({shape}, {value}, dtype={dtype})"

    def shape(self, x: str) -> str:
        return f"np.shape({x})"

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
        """The scalar type named after the dtype."""
        dtype = np.dtype(dtype)
        return "np.bool_" if dtype == np.bool_ else f"np.{dtype.name}"


NUMPY_PRIMITIVES = NumpyPrimitives()
