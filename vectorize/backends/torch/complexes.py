"""``a + b``, ``a - b`` and ``a / b`` of per-example Python numbers of which one is
complex, on PyTorch, as CPython computes them (`TorchBackend.python_complex`).

CPython adds and subtracts complex numbers part by part (``2 - complex(inf, 0.0)`` is
``-inf+0j``). PyTorch's complex ``add``/``sub`` computes ``a + alpha * b`` with the complex
``alpha`` 1 (or -1), a complex product that makes an infinite part of ``b`` a NaN imaginary
part (``torch.tensor(2+0j) - torch.tensor(complex(inf, 0))`` is ``-inf+nanj``). These compute
the real and imaginary parts apart, in float64, and join them into a complex128 tensor;
quotients the same way, with CPython's steps (PyTorch's kernel differs in the last bit on
about half of them). Products are left to PyTorch: its kernel computes CPython's steps.
"""

from __future__ import annotations

COMPLEX_ADD = "complex_add"
COMPLEX_SUB = "complex_sub"
COMPLEX_DIV = "complex_div"
# the operator each computes (`TorchBackend.python_complex`)
FUNCTIONS = {"+": COMPLEX_ADD, "-": COMPLEX_SUB, "/": COMPLEX_DIV}


def complex_parts(value):
    """The real and imaginary parts of a number or tensor, as float64 tensors (an imaginary
    part of zeros where it is not complex)."""
    import torch
    value = torch.as_tensor(value)
    if value.is_complex():
        value = value.to(torch.complex128)
        return value.real, value.imag
    real = value.to(torch.float64)
    return real, torch.zeros_like(real)


def complex_add(a, b):
    """``a + b`` as CPython adds complex numbers: part by part (module docstring).
    (The file rewriter copies it, and `complex_parts`, into the files it writes.)"""
    import torch
    (ar, ai), (br, bi) = complex_parts(a), complex_parts(b)
    return torch.complex(ar + br, ai + bi)


def complex_sub(a, b):
    """``a - b`` as CPython subtracts complex numbers: part by part (module docstring).
    (The file rewriter copies it, and `complex_parts`, into the files it writes.)"""
    import torch
    (ar, ai), (br, bi) = complex_parts(a), complex_parts(b)
    return torch.complex(ar - br, ai - bi)


def complex_div(a, b):
    """``a / b`` as CPython's ``_Py_c_quot`` divides complex numbers (Smith's method, dividing
    by the scaled denominator: PyTorch's kernel differs in the last bit); ``b == 0`` is the
    caller's check (ZeroDivisionError). (The file rewriter copies it, and `complex_parts`, into
    the files it writes.)"""
    import torch
    (ar, ai), (br, bi) = complex_parts(a), complex_parts(b)
    real_big = br.abs() >= bi.abs()
    # (a NaN part: neither branch, NaN + NaN j)
    ratio = torch.where(real_big, bi / br, br / bi)
    denom = torch.where(real_big, br + bi * ratio, br * ratio + bi)
    re = torch.where(real_big, (ar + ai * ratio) / denom, (ar * ratio + ai) / denom)
    im = torch.where(real_big, (ai - ar * ratio) / denom, (ai * ratio - ar) / denom)
    nan = br.isnan() | bi.isnan()
    re = torch.where(nan, torch.nan, re)
    im = torch.where(nan, torch.nan, im)
    return torch.complex(re, im)
