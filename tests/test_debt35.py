"""A file rewritten for PyTorch whose per-example code adds, subtracts and divides complex
numbers gets the runtime helpers (`backends/torch/complexes.py`) written into it with the one
they share (`complex_parts`), runs without the package, and computes what the original
computes under ``numpy.vectorize``, infinite parts included (``2 - complex(inf, 0)``)."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from test_cli import cli

KERNEL = '''\
from vectorize import vectorize


@vectorize
def f(x, y):
    z = x * 1j + 0.5
    return (z - y) / (y + 2j) + z
'''


def _scalar(x, y):
    z = x * 1j + 0.5
    return (z - y) / (y + 2j) + z


def _load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_torch_file_with_complex_arithmetic_carries_its_helpers(tmp_path):
    pytest.importorskip("torch")
    path = tmp_path / "complex35.py"
    path.write_text(KERNEL)
    result = cli("--backend", "torch", "-w", path)
    assert result.returncode == 0, result.stderr.decode()
    text = path.read_text()
    assert "import vectorize" not in text and "from vectorize" not in text
    for helper in ("complex_add", "complex_sub", "complex_div", "complex_parts"):
        assert f"def {helper}(" in text
    x = np.array([1.0, -2.0, np.inf, 0.5, -0.0])
    y = np.array([3.0, np.inf, 1.0, -4.0, 2.0])
    with np.errstate(all="ignore"):
        expected = np.vectorize(_scalar)(x, y)
    got = np.asarray(_load(path, "complex35").f(x, y))
    assert got.dtype == expected.dtype == np.complex128
    np.testing.assert_array_equal(got.real, expected.real)
    np.testing.assert_array_equal(got.imag, expected.imag)
