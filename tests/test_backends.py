"""The seam between the engine and the array namespaces: what the shared rules and passes
write goes through the backend's primitives, so code for tensors never spells NumPy."""

from __future__ import annotations

import pytest
import torch
from torch_reference import check, reference

from vectorize import vmap


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
