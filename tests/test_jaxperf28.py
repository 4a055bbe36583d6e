"""The JAX backend's first call: one XLA compile per new shape, no work a hand ``jax.jit``
does not do, beside the one check per process of what ``jit``'s results are (the probe of
`runtime.results_are_own`, run only where a result is large enough to be handed out
without a copy). Results equal ``numpy.vectorize``'s (values and dtype)."""

from __future__ import annotations

import logging

import jax
import numpy as np
import pytest

from vectorize import vectorize, vmap
from vectorize.backends.jax import runtime


class _Compiles(logging.Handler):
    """The names of the functions XLA compiles (JAX's ``log_compiles`` records)."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.names = []

    def emit(self, record):
        message = record.getMessage()
        if message.startswith("Compiling "):
            self.names.append(message.split()[1])


@pytest.fixture
def compiles():
    handler = _Compiles()
    logger = logging.getLogger("jax")
    logger.addHandler(handler)
    try:
        with jax.log_compiles(True):
            yield handler.names
    finally:
        logger.removeHandler(handler)


@pytest.fixture
def unprobed(monkeypatch):
    """A process that has not yet checked `results_are_own` (restored after)."""
    monkeypatch.setattr(runtime, "_OWN", [])


def seed_jp28(t, b):
    tmp = t * b
    if tmp > 5:
        root = t * b
    else:
        root = -t
    return root


def test_probe_compiles_one_function(compiles, unprobed):
    assert runtime.results_are_own()
    assert compiles == ["jit(probe)"]


@pytest.mark.parametrize("api", ["vectorize", "vmap"])
def test_first_call_one_compile_per_shape(api, compiles, unprobed):
    f = vectorize(seed_jp28, backend="jax") if api == "vectorize" else \
        vmap(seed_jp28, in_axes=(0, None), backend="jax")
    expected_of = np.vectorize(seed_jp28)
    rng = np.random.default_rng(28)
    small = rng.uniform(-4.0, 4.0, 100)
    got = f(small, 1.5)
    expected = expected_of(small, 1.5)
    assert got.dtype == expected.dtype and np.array_equal(got, expected)
    # a small result is copied: no probe, one compile
    assert compiles == ["jit(seed_jp28)"]
    assert runtime._OWN == []
    large = rng.uniform(-4.0, 4.0, 1 + runtime.VIEW_MIN_BYTES // 8)
    got = f(large, 1.5)
    expected = expected_of(large, 1.5)
    assert got.dtype == expected.dtype and np.array_equal(got, expected)
    assert sorted(compiles) == ["jit(probe)", "jit(seed_jp28)", "jit(seed_jp28)"]
    del compiles[:]
    got = f(large[::-1].copy(), 1.5)      # same shape: nothing compiled
    assert np.array_equal(got, expected_of(large[::-1], 1.5))
    assert compiles == []


@pytest.mark.parametrize("dtype", [np.bool_, np.int8, np.uint16, np.int64, np.float32,
                                   np.float64, np.complex128])
def test_as_array_is_a_copy_of_its_own(dtype, compiles):
    value = np.ones(16, dtype)
    got = runtime.as_array(value)
    value[...] = 0
    assert isinstance(got, jax.Array) and got.dtype == np.dtype(dtype)
    assert np.array_equal(np.asarray(got), np.ones(16, dtype))
    assert compiles == []


def test_as_array_of_an_aligned_array_is_not_a_view():
    raw = np.zeros(64 + 8)
    start = (-raw.ctypes.data % 64) // 8
    value = raw[start:start + 8]
    value[:] = 2.0
    got = runtime.as_array(value)
    value[:] = -1.0
    assert np.array_equal(np.asarray(got), np.full(8, 2.0))
