"""NumPy's own ``TestVectorize`` suite, run against `vectorize.vectorize`.

The test file ships with the installed numpy (``numpy/lib/tests/test_function_base.py``).
It is loaded as a fresh module object; its module-level ``vectorize`` is rebound to ours and
its ``np`` is replaced by a proxy of numpy whose ``vectorize`` is ours, so the tests that spell
``np.vectorize`` exercise our implementation too. The class is re-exposed under a new name so
pytest collects it here. Tests where our drop-in deliberately differs are marked
``xfail(strict=True)`` by name, with the reason, below.
"""

from __future__ import annotations

import importlib.util
import pathlib
import types
import warnings

import numpy
import pytest

import vectorize as _vectorize_pkg

_SOURCE = pathlib.Path(numpy.__file__).parent / "lib" / "tests" / "test_function_base.py"


class _NumpyProxy(types.ModuleType):
    """``numpy`` with ``vectorize`` replaced by ours; every other attribute forwards."""

    def __init__(self):
        super().__init__("numpy")
        self.vectorize = _vectorize_pkg.vectorize

    def __getattr__(self, name):
        return getattr(numpy, name)

    def __dir__(self):
        return sorted(set(dir(numpy)) | {"vectorize"})


def _load():
    if not _SOURCE.exists():
        pytest.skip(f"numpy's test file is not installed ({_SOURCE})", allow_module_level=True)
    spec = importlib.util.spec_from_file_location("_numpy_test_function_base", _SOURCE)
    module = importlib.util.module_from_spec(spec)
    with warnings.catch_warnings():
        # numpy's own conftest registers marks such as `thread_unsafe`; ours does not.
        warnings.simplefilter("ignore", pytest.PytestUnknownMarkWarning)
        spec.loader.exec_module(module)
    module.vectorize = _vectorize_pkg.vectorize
    module.np = _NumpyProxy()
    return module


_loaded = _load()

# Test name -> why our drop-in differs from numpy.vectorize there (a deliberate decision).
XFAIL = {
    "test_size_zero_output": (
        "design decision: vectorize.vectorize works on size-0 inputs without `otypes` (the "
        "output dtype comes from the translated code, not from calling pyfunc on a first "
        "element), so `vectorize(lambda x: x)(np.zeros((0, 5), int))` returns an empty int "
        "array where numpy.vectorize raises 'cannot call `vectorize` on size 0 inputs unless "
        "`otypes` is set' (also with signature='()->()'); the rest of the test agrees"),
}


class TestNumpyVectorize(_loaded.TestVectorize):
    """numpy's TestVectorize, with `vectorize.vectorize` in place of `numpy.vectorize`."""


def _apply_xfails(cls, reasons):
    for name, reason in reasons.items():
        original = getattr(cls, name)  # an AttributeError here means numpy's suite changed
        setattr(cls, name, pytest.mark.xfail(strict=True, reason=reason)(
            _copy_function(original)))


def _copy_function(func):
    """A copy of an inherited test function, so marking it does not touch numpy's class."""
    copy = types.FunctionType(func.__code__, func.__globals__, func.__name__,
                              func.__defaults__, func.__closure__)
    copy.__dict__.update(func.__dict__)
    copy.__qualname__ = func.__qualname__
    return copy


_apply_xfails(TestNumpyVectorize, XFAIL)


def test_suite_is_wired_to_our_vectorize():
    assert _loaded.vectorize is _vectorize_pkg.vectorize
    assert _loaded.np.vectorize is _vectorize_pkg.vectorize
    assert _loaded.np.array is numpy.array
    assert len([n for n in dir(TestNumpyVectorize) if n.startswith("test_")]) == 46
