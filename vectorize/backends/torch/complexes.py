"""``a + b`` and ``a - b`` of per-example Python numbers of which one is complex, on PyTorch
(`TorchBackend.python_complex`).

CPython adds and subtracts complex numbers part by part (``2 - complex(inf, 0.0)`` is
``-inf+0j``). PyTorch's complex ``add``/``sub`` computes ``a + alpha * b`` with the complex
``alpha`` 1 (or -1), a complex product that makes an infinite part of ``b`` a NaN imaginary
part (``torch.tensor(2+0j) - torch.tensor(complex(inf, 0))`` is ``-inf+nanj``). These compute
the real and imaginary parts apart, in float64, and join them into a complex128 tensor.
"""

from __future__ import annotations

COMPLEX_ADD = "complex_add"
COMPLEX_SUB = "complex_sub"


def complex_add(a, b):
    """``a + b`` as CPython adds complex numbers: part by part (module docstring).
    (Self-contained: the file rewriter copies it into the files it writes.)"""
    import torch

    def parts(value):
        value = torch.as_tensor(value)
        if value.is_complex():
            value = value.to(torch.complex128)
            return value.real, value.imag
        real = value.to(torch.float64)
        return real, torch.zeros_like(real)
    (ar, ai), (br, bi) = parts(a), parts(b)
    return torch.complex(ar + br, ai + bi)


def complex_sub(a, b):
    """``a - b`` as CPython subtracts complex numbers: part by part (module docstring).
    (Self-contained: the file rewriter copies it into the files it writes.)"""
    import torch

    def parts(value):
        value = torch.as_tensor(value)
        if value.is_complex():
            value = value.to(torch.complex128)
            return value.real, value.imag
        real = value.to(torch.float64)
        return real, torch.zeros_like(real)
    (ar, ai), (br, bi) = parts(a), parts(b)
    return torch.complex(ar - br, ai - bi)
