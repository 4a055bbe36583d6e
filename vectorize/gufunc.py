"""numpy.vectorize's generalized-ufunc signatures (``signature="(n),(n)->()"``): parsing
them and checking the core dimensions of values against them, with NumPy's own messages
(numpy/lib/_function_base_impl.py). Shared by `vectorize` (`api.py`), the file rewriter's marks
and the Dask runtime."""

from __future__ import annotations

import re

import numpy as np

# numpy.vectorize's gufunc signatures, with numpy's own messages
# (numpy/lib/_function_base_impl.py); see the generalized ufunc C-API documentation
_DIMENSION_NAME = r"\w+"
_CORE_DIMENSION_LIST = f"(?:{_DIMENSION_NAME}(?:,{_DIMENSION_NAME})*)?"
_ARGUMENT = rf"\({_CORE_DIMENSION_LIST}\)"
_ARGUMENT_LIST = f"{_ARGUMENT}(?:,{_ARGUMENT})*"
_SIGNATURE = f"^{_ARGUMENT_LIST}->{_ARGUMENT_LIST}$"


def parse_signature(signature):
    """([core dimensions of each input], [core dimensions of each output])."""
    signature = re.sub(r"\s+", "", signature)
    if not re.match(_SIGNATURE, signature):
        raise ValueError(f"not a valid gufunc signature: {signature}")
    return tuple([tuple(re.findall(_DIMENSION_NAME, arg))
                  for arg in re.findall(_ARGUMENT, arg_list)]
                 for arg_list in signature.split("->"))


def update_dim_sizes(dim_sizes, shape, core_dims):
    """Check the core dimensions of one value of shape ``shape`` (its trailing dimensions)
    and record new ones in ``dim_sizes``."""
    if not core_dims:
        return
    n_core = len(core_dims)
    if len(shape) < n_core:
        raise ValueError(f"{len(shape)}-dimensional argument does not have enough dimensions "
                         f"for all core dimensions {core_dims!r}")
    for dim, size in zip(core_dims, shape[len(shape) - n_core:]):
        known = dim_sizes.setdefault(dim, size)
        if known != size:
            raise ValueError(f"inconsistent size for core dimension {dim!r}: {size!r} vs "
                             f"{known!r}")


def parse_input_dimensions(arrays, input_core_dims):
    """(broadcast shape of the loop dimensions, sizes of the named core dimensions)."""
    dim_sizes: dict = {}
    loops = []
    for arr, core_dims in zip(arrays, input_core_dims):
        update_dim_sizes(dim_sizes, arr.shape, core_dims)
        loops.append(arr.shape[:arr.ndim - len(core_dims)])
    if all(loop == loops[0] for loop in loops):
        return loops[0], dim_sizes
    return np.broadcast_shapes(*loops), dim_sizes
