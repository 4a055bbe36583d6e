"""PyTorch itself, as every module of this backend reads it: the module (imported on first
use), which values are tensors, and the dtypes with a NumPy twin. The package's `TorchBackend`
and its tables import these from here, so that no table imports the package."""

from __future__ import annotations

import contextlib
import os
import sys
import types

import numpy as np

# NumPy dtypes with a PyTorch twin of the same name (bfloat16 has no NumPy twin: refused)
DTYPE_NAMES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64",
          "complex64", "complex128")


def torch_module():
    import torch
    return torch


def is_tensor(value) -> bool:
    """Whether ``value`` is a ``torch.Tensor`` (without importing torch)."""
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(value, torch.Tensor)


def is_module(value) -> bool:
    """Whether ``value`` is a ``torch.nn.Module`` (without importing torch)."""
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(value, torch.nn.Module)


def grad_transform(fn):
    """``(f, argnums, has_aux, with_value)`` where ``fn`` is ``torch.func.grad(f, argnums,
    has_aux)`` (``with_value`` False) or ``torch.func.grad_and_value(...)`` (True); else
    None (without importing torch)."""
    torch = sys.modules.get("torch")
    if torch is None or not isinstance(fn, types.FunctionType) or fn.__closure__ is None:
        return None
    code = fn.__code__
    if not code.co_filename.endswith(os.path.join("_functorch", "apis.py")):
        return None
    kind = code.co_qualname.partition(".")[0] if hasattr(code, "co_qualname") else ""
    if kind not in ("grad", "grad_and_value"):
        return None
    cells = dict(zip(code.co_freevars, (c.cell_contents for c in fn.__closure__)))
    if not {"func", "argnums", "has_aux"} <= set(cells):
        return None
    return cells["func"], cells["argnums"], bool(cells["has_aux"]), kind == "grad_and_value"


def numpy_dtype(dtype) -> np.dtype:
    """The NumPy twin of a ``torch.dtype``; TypeError where there is none."""
    name = str(dtype).rpartition(".")[2]
    if name not in DTYPE_NAMES:
        raise TypeError(f"tensors of dtype {dtype} are not supported (no NumPy dtype to "
                        "represent them in the analysis)")
    return np.dtype(name)


_PYTHON_DTYPES = {bool: "bool", int: "int64", float: "float64", complex: "complex128"}


def as_tensor(value, device=None):
    """A result as a tensor: a Python number in the dtype that holds it exactly (float64 for a
    float, as the batched code holds per-example Python numbers; docs/torch.md)."""
    torch = torch_module()
    if type(value) is int and not -2 ** 63 <= value < 2 ** 63:
        # (PyTorch's own "Overflow when unpacking long long", said of the result)
        digits = str(value)
        shown = digits if len(digits) <= 24 else f"{digits[:10]}...{digits[-6:]}"
        raise ValueError(f"a result is the Python int {shown} ({len(digits.lstrip('-'))} "
                         "digits), beyond int64: no tensor holds it (stacking the "
                         "per-example results raises the same)")
    name = _PYTHON_DTYPES.get(type(value))
    dtype = getattr(torch, name) if name else None
    return torch.as_tensor(value, dtype=dtype, device=device)


_NUMPY_CALL = [False]


def numpy_call() -> bool:
    """Whether a call on NumPy arrays runs (`numpy_defaults`): its reference is NumPy's loop,
    where a rule may need NumPy's result instead of PyTorch's (`x % y`'s sign of a zero)."""
    return _NUMPY_CALL[0]


@contextlib.contextmanager
def numpy_defaults():
    """PyTorch promoting as NumPy does while it runs a call on NumPy arrays
    (``backend="torch"`` with NumPy arguments, whose reference is NumPy's loop): an int
    tensor with a Python float gives float64 (NumPy's default float), not float32. The
    default dtype is PyTorch's process-wide setting: set for the call, then restored.
    `numpy_call` is true meanwhile (part of every specialization's key)."""
    torch = torch_module()
    old = torch.get_default_dtype()
    was = _NUMPY_CALL[0]
    _NUMPY_CALL[0] = True
    try:
        if old == torch.float64:
            yield
            return
        torch.set_default_dtype(torch.float64)
        try:
            yield
        finally:
            torch.set_default_dtype(old)
    finally:
        _NUMPY_CALL[0] = was


def needs_numpy_defaults(args, kwargs) -> bool:
    """Whether a call with this backend on these arguments runs NumPy's semantics on
    PyTorch (NumPy arrays in, none of them a tensor)."""
    from ...pytree import flatten
    if any(is_tensor(leaf) for group in (args, tuple(kwargs.values()))
           for _, leaf in flatten(group)):
        return False
    return not _NUMPY_CALL[0]     # (once per call: it calls itself within)
