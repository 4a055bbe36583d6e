"""The seam between the engine and the array namespaces: what the shared rules and passes
write goes through the backend's primitives, so code for tensors never spells NumPy."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch_reference import check, reference

from vectorize import VectorizeError, backends, vmap
from vectorize.abstract import Value
from vectorize.backends.numpy import NumpyBackend
from vectorize.transform import transform_function


def checked_root(x):
    if x < 0:
        raise ValueError(f"negative: {x}")
    return x * 2


def looked_up(x, k):
    return (1.0, 2.0, 3.0)[k] * x


def lookup_only(k):
    return (1.5, -2.0, 3.25)[k]


# regression: the shared rules wrote `np.argmax`, `np.any` and `np.asarray` into code for
# tensors (NameError: name 'np' is not defined)
@pytest.mark.parametrize("n", [0, 1, 5, 1000])
def test_raise_some_examples_reach_on_tensors(n):
    x = torch.linspace(0.5, 3.0, n, dtype=torch.float64)
    check(checked_root, x)
    if n:
        bad = x.clone()
        bad[n // 2] = -1.0
        with pytest.raises(ValueError) as loop_error:
            reference(checked_root, [bad])
        with pytest.raises(ValueError) as batch_error:
            vmap(checked_root)(bad)
        assert str(batch_error.value) == str(loop_error.value)


@pytest.mark.parametrize("n", [0, 1, 5, 1000])
def test_tuple_indexed_per_example_on_tensors(n):
    k = torch.arange(n) % 3
    x = torch.linspace(-2.0, 2.0, n, dtype=torch.float64)
    check(looked_up, x, k)
    check(lookup_only, k, grad=False)
    check(lookup_only, -1 - k, grad=False)


def test_raise_message_is_the_first_failing_example():
    x = torch.tensor([1.0, -2.0, -3.0, 4.0])
    with pytest.raises(ValueError) as loop_error:
        reference(checked_root, [x])
    with pytest.raises(ValueError, match="^negative: -2.0$") as batch_error:
        vmap(checked_root)(x)
    assert str(batch_error.value) == str(loop_error.value)


# ---------------------------------------------------------------- chosen by capability
def collatz(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def spread(x):
    out = np.zeros(3)
    out[0] = x
    return out


def test_arguments_are_claimed_by_their_backend():
    assert backends.of_value(torch.ones(2)) == "torch"
    for value in (np.ones(2), np.float32(1.0), 1.5, [1.0], None):
        assert backends.of_value(value) is None
    assert backends.DEFAULT == next(iter(backends.KNOWN)) == "numpy"


class _Limited(NumpyBackend):
    """NumPy's spellings without compaction, in-place writes or chunked runs."""
    name = "limited"
    compaction = False
    in_place_writes = False
    chunked_runs = False


@pytest.fixture
def limited(monkeypatch):
    monkeypatch.setitem(backends.KNOWN, "limited", "tests:unused")
    monkeypatch.setitem(backends._made, "limited", _Limited())
    return "limited"


def test_engine_asks_the_compaction_flag(limited):
    params = {"n": Value(True, np.int64(1))}
    compacted = transform_function(collatz, params).source
    selected = transform_function(collatz, params, backend=limited).source
    assert "np.flatnonzero" in compacted and "np.flatnonzero" not in selected
    assert "np.flatnonzero" not in transform_function(
        collatz, params, backend=limited, if_strategy="compact").source
    n = np.arange(1, 40)
    steps = transform_function(collatz, params, backend=limited).function(n)
    assert steps.tolist() == [collatz(int(k)) for k in n]


def test_engine_asks_the_in_place_writes_flag(limited):
    params = {"x": Value(True, np.float64(1.0))}
    assert transform_function(spread, params).function(np.ones(4)).shape == (4, 3)
    with pytest.raises(VectorizeError, match="cannot be written in place"):
        transform_function(spread, params, backend=limited)


# --------------------------------------------- what the engine asks a backend, not its name
class _Fake(backends.Backend):
    """A backend of a library named ``fakelib`` (never imported)."""
    name = "fake"
    alias = "fk"
    module_name = "fakelib"
    arrays = "fake arrays"

    def claims(self, value) -> bool:
        return False

    def lanes_of(self, mask: str) -> str:         # the primitives the base class reads
        return f"fk.nonzero({mask})"

    def full(self, shape, value, dtype, like=None) -> str:
        return f"fk.full({shape}, {value})"

    def empty(self, shape, dtype, like=None) -> str:
        return f"fk.empty({shape})"


def _fakelib_function():
    pass


_fakelib_function.__module__ = "fakelib.linalg"


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setitem(backends.KNOWN, "fake", "tests:unused")
    monkeypatch.setitem(backends._made, "fake", _Fake())
    monkeypatch.setattr(backends, "_claimants", [])       # made again with the fake one
    return backends.get("fake")


def test_a_library_function_is_its_backends_own(fake):
    """The analysis and vmap ask every other backend whether a function is its library's
    (read as a rule's, never as the user's code); NumPy's are the analysis' own."""
    assert backends.owns_function(torch.split) and backends.owns_function(_fakelib_function)
    assert not backends.owns_function(checked_root)
    assert not backends.owns_function(np.linalg.norm)     # NumPy's: not "another backend's"
    assert fake.owns_function(_fakelib_function) and not fake.owns_function(torch.split)


def test_a_dtype_is_named_by_its_backend(fake):
    assert backends.names_dtype("torch.float64") and backends.names_dtype("fakelib.f32")
    assert not backends.names_dtype("float64") and not backends.names_dtype(None)
    assert not backends.get("numpy").names_dtype("numpy.float64")


def test_results_on_examples_become_numpy_examples_through_the_backend(fake):
    torch_backend = backends.get("torch")
    out = torch_backend.from_examples(torch.ones(2, 3, dtype=torch.float32))
    assert isinstance(out, np.ndarray) and out.dtype == np.float32 and out.shape == (2, 3)
    assert torch_backend.from_examples(torch.Size([2, 3])) == (2, 3)
    assert fake.from_examples(1.5) == 1.5 and fake.arrays == "fake arrays"
    assert torch_backend.arrays == "tensors" and backends.get("numpy").arrays == "arrays"
