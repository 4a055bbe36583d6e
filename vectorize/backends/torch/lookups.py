"""Dicts of numbers looked up by per-example keys on PyTorch (`TorchBackend.lookup`).

``TABLE[k]`` and ``TABLE.get(k, default)``, with ``TABLE`` a dict of numbers keyed by
numbers (ints, floats, bools), the same for every example, and ``k`` a per-example number:
the NumPy backend's binary search of the sorted keys (`pymath.lookup`), in ``torch``
(``torch.searchsorted`` of the keys, then a gather of the values), on the key tensor's
device. The values are the Python numbers per example: float64, int64 or bool tensors. A key
is found where it equals one of the dict's as Python compares the numbers (``4.0`` finds
``4``, NaN finds nothing). A key missing without a default is Python's ``KeyError`` of the
first missing key (as a Python number), as the per-example code raises it for the numbers.
Lanes a per-example ``if`` or loop does not reach hold a key the dict has (the passes mask
them, as for NumPy).
"""

from __future__ import annotations

DICT_LOOKUP = "dict_lookup"


def dict_lookup(table, key, *default):
    """``table[key]`` lane by lane (``table.get(key, default)`` with a ``default``), for a
    dict of numbers keyed by numbers (module docstring). (Self-contained: the file
    rewriter copies it into the files it writes.)"""
    import torch

    def python_dtype(kinds):
        return torch.float64 if float in kinds else torch.int64 if int in kinds else \
            torch.bool
    key = torch.as_tensor(key)
    device = key.device
    keys = sorted(table)
    floats = key.is_floating_point() or any(type(k) is float for k in keys)
    compare = torch.float64 if floats else torch.int64
    probe = key.detach().to(compare)
    if keys:
        sorted_keys = torch.tensor(keys, dtype=compare, device=device)
        at = torch.searchsorted(sorted_keys, probe.contiguous()).clamp(max=len(keys) - 1)
        found = sorted_keys[at] == probe
        values = torch.tensor([table[k] for k in keys], device=device,
                              dtype=python_dtype({type(table[k]) for k in keys}))
    else:
        at = torch.zeros(key.shape, dtype=torch.int64, device=device)
        found = torch.zeros(key.shape, dtype=torch.bool, device=device)
        values = None
    if default:
        if values is None:
            fill = default[0]
            dtype = fill.dtype if isinstance(fill, torch.Tensor) else python_dtype({type(fill)})
            return torch.as_tensor(fill, dtype=dtype, device=device).expand(key.shape).clone()
        return torch.where(found, values[at], default[0])
    if not bool(found.all()):
        missing = key.detach().reshape(-1)[torch.argmin(found.reshape(-1).to(torch.uint8))]
        raise KeyError(missing.item())
    return values[at]
