"""A read ``y[i]`` of a per-example array by a per-example integer is a view per example (a
row; under PyTorch an item too, a 0-d tensor) and a gather on the batch (a copy): where ``y``
is written into while the read may still be used, per example the write changes it and the
batch would not. Refused (docs/torch.md), never run with other results; copies (`.copy()`,
`.clone()`) and reads that are NumPy scalars per example run, and equal the per-example loop.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from vectorize import VectorizeError, vmap


# ---------------------------------------------------------------- NumPy: rows are views
def row_then_write(a, i):
    b = a.copy()
    r = b[i]
    b[i, 0] = 100.0
    return r.sum()


def row_copy_then_write(a, i):
    b = a.copy()
    r = b[i].copy()
    b[i, 0] = 100.0
    return r.sum()


def rows_swapped(a, i, j):
    b = a.copy()
    b[i], b[j] = b[j], b[i]
    return b


def rows_swapped_copies(a, i, j):
    b = a.copy()
    b[i], b[j] = b[j].copy(), b[i].copy()
    return b


def item_then_write(a, i):
    b = a.copy()
    t = b[i]            # a NumPy scalar per example: a copy, as the gather is
    b[i] = 7.0
    return t + b[i]


def row_read_after_write(a, i):
    b = a.copy()
    b[i, 0] = 100.0
    r = b[i]            # read after the write: nothing to change it later
    return r.sum()


def _numpy_loop(f, args):
    return np.array([f(*row) for row in zip(*args)])


@pytest.mark.parametrize("n", [0, 1, 5])
@pytest.mark.parametrize("f", [row_then_write, rows_swapped])
def test_numpy_row_views_written_after_are_refused(f, n):
    rng = np.random.default_rng(n)
    a = rng.standard_normal((n, 3, 2))
    idx = [rng.integers(0, 3, n) for _ in range(f.__code__.co_argcount - 1)]
    with pytest.raises(VectorizeError, match="is a view of `b` per example") as info:
        vmap(f)(a, *idx)
    assert ".copy()" in str(info.value)


@pytest.mark.parametrize("n", [1, 5, 300])
@pytest.mark.parametrize("f", [row_copy_then_write, rows_swapped_copies, item_then_write,
                               row_read_after_write])
def test_numpy_copies_and_scalars_equal_the_loop(f, n):
    rng = np.random.default_rng(n)
    a = rng.standard_normal((n, 3, 2)) if f is not item_then_write else \
        rng.standard_normal((n, 3))
    idx = [rng.integers(-3, 3, n) for _ in range(f.__code__.co_argcount - 1)]
    expected = _numpy_loop(f, [a, *idx])
    got = vmap(f)(a, *idx)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


# ------------------------------------------------------- PyTorch: items are views too
def items_swapped(v, i, j):
    y = v.clone()
    y[i], y[j] = y[j], y[i]
    return y


def items_swapped_through_a_name(v, i, j):
    y = v.clone()
    t = y[i]
    y[i] = y[j]
    y[j] = t
    return y


def items_swapped_clones(v, i, j):
    y = v.clone()
    y[i], y[j] = y[j].clone(), y[i].clone()
    return y


def items_swapped_clone_through_a_name(v, i, j):
    y = v.clone()
    t = y[i].clone()
    y[i] = y[j]
    y[j] = t
    return y


def _torch_args(n, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(n, 4, generator=g, dtype=torch.float64),
            torch.randint(-4, 4, (n,), generator=g), torch.randint(-4, 4, (n,), generator=g))


def test_the_per_example_swap_of_torch_items_is_no_swap():
    """What the refusal protects: per example `y[j]` is a 0-d view, so `y[i], y[j] = y[j],
    y[i]` leaves `y[j]` as it was (the batch's gathers would swap)."""
    v = torch.tensor([1.0, 2.0, 3.0])
    out = items_swapped(v, torch.tensor(0), torch.tensor(2))
    assert out.tolist() == [3.0, 2.0, 3.0]


@pytest.mark.parametrize("n", [0, 1, 5])
@pytest.mark.parametrize("f", [items_swapped, items_swapped_through_a_name])
def test_torch_item_views_written_after_are_refused(f, n):
    with pytest.raises(VectorizeError, match="is a view of `y` per example") as info:
        vmap(f)(*_torch_args(n))
    assert ".clone()" in str(info.value)


@pytest.mark.parametrize("n", [0, 1, 5, 300])
@pytest.mark.parametrize("f", [items_swapped_clones, items_swapped_clone_through_a_name])
def test_torch_item_clones_equal_the_loop(f, n):
    args = _torch_args(n, seed=n)
    got = vmap(f)(*args)
    expected = torch.stack([f(*row) for row in zip(*args)]) if n else \
        torch.empty((0, 4), dtype=torch.float64)
    assert got.dtype == expected.dtype
    assert torch.equal(got, expected)
