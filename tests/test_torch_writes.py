"""Writes into tensors the function creates, under the PyTorch backend.

``y = torch.zeros(3); y[0] = x`` (the creation family: `backends/torch/creation.py`) and the
writes around it (under per-example conditions, per-example indices, slices, swaps, rows,
copies by ``.clone()``, helpers writing into their caller's tensor) are written into the
batch's tensor as NumPy's are; while autograd records, each write goes into a fresh copy
(`backends/torch/writes.py`), so gradients equal the per-example ones of ``torch.func.grad``.
Checked against the per-example loop at N = 0, 1, 5 and 2 000, dtype kept.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from vectorize import VectorizeError, vectorize, vmap  # noqa: E402

SIZES = [0, 1, 5, 2_000]
F64 = torch.float64


def masked_items(x, k):
    y = torch.zeros(3, dtype=F64)
    y[0] = x
    if x > 0:
        y[1] += x * 2
    elif x < -1:
        y[2] = -x
    else:
        y[1:] = 0.5
    if 0 <= k < 3:
        y[k] = 7.0
    for i in range(3):
        if y[i] > 1:
            y[i] -= 1
    return y * 1.0


def rows_and_loops(v, k):
    out = torch.zeros(4, dtype=F64)
    acc = torch.zeros_like(v[:3])
    mat = torch.zeros(3, 4, dtype=F64)
    for i in range(4):
        if v[i] > 0:
            out[i] = out[3 - i] * 2.0 + v[i]
            mat[i % 3] = v * 0.5
        else:
            continue
        acc[k % 3] += v[i]
        mat[k % 3, 1:3] = v[i]
    j = 0
    while j < 4 and v[j] < 2.0:
        out[j] *= 0.5
        out[j] += 1.0
        j += 1
    c = v.clone()
    c[2:] = out[0]
    return out + acc[0] + c, mat


def bump(w, i):
    w[i] += 1.0


def with_a_helper(v, k):
    out = v * 1.0
    bump(out, 1)
    for i in range(2):
        bump(out, i + 2)
    return out


def unguarded(v, k):
    out = torch.zeros(4, dtype=F64)
    out[k] += v[0]
    return out * 2.0


def _vectors(n, seed=0, dtype=F64):
    rng = np.random.default_rng(seed)
    v = rng.choice([0.0, -0.0, 1.0, -1.0, 2.5, -3.0, np.nan, np.inf, 0.5], (n, 4))
    v = np.where(rng.random((n, 4)) < 0.5, rng.uniform(-3, 3, (n, 4)), v)
    k = rng.integers(-1, 6, n)
    return torch.as_tensor(v, dtype=dtype), torch.as_tensor(k)


def _loop(f, *columns):
    rows = [f(*row) for row in zip(*columns)]
    if isinstance(rows[0], tuple):
        return tuple(torch.stack(r) for r in zip(*rows))
    return torch.stack(rows)


def _same(got, expected):
    if isinstance(expected, tuple):
        for g, e in zip(got, expected):
            _same(g, e)
        return
    assert isinstance(got, torch.Tensor) and got.dtype == expected.dtype
    torch.testing.assert_close(got, expected, rtol=0, atol=0, equal_nan=True)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("f", [rows_and_loops, with_a_helper])
def test_vmap_writes_equal_the_loop(f, n):
    v, k = _vectors(n, seed=n)
    got = vmap(f)(v, k)
    if n:
        _same(got, _loop(f, v, k))
    else:
        assert (got[0] if isinstance(got, tuple) else got).shape[0] == 0


def int_items(x, k):
    out = torch.zeros(4, dtype=torch.int64)
    if 0 <= k < 4:
        out[k] = x * 2.0
    out[1] = x * 3.0
    return out


@pytest.mark.parametrize("n", SIZES)
def test_masked_writes_and_dead_lanes_equal_the_loop(n):
    rng = np.random.default_rng(n)
    x = torch.as_tensor(rng.choice([0.0, -0.5, 2.0, -3.0, np.nan, np.inf, 1.5], n))
    k = torch.as_tensor(rng.integers(-2, 6, n))
    fast = vmap(masked_items)
    got = fast(x, k)
    assert got.shape == (n, 3) and got.dtype == F64
    if n:
        _same(got, _loop(masked_items, x, k))
        _same(vectorize(masked_items, signature="(),()->(3)")(x, k), _loop(masked_items, x, k))
        # NumPy in, NumPy out, computed by PyTorch
        np.testing.assert_array_equal(
            vmap(masked_items, backend="torch")(x.numpy(), k.numpy()),
            _loop(masked_items, x, k).numpy())
    assert "y[:, 0] = x" in fast.source(x, k)
    # (the condwrites fuzz: index_put refused a float value for an int64 tensor, which per
    # example the item assignment converts)
    finite = torch.nan_to_num(x, nan=0.5, posinf=2.0, neginf=-2.0)
    got = vmap(int_items)(finite, k)
    assert got.dtype == torch.int64 and got.shape == (n, 4)
    if n:
        _same(got, _loop(int_items, finite, k))


@pytest.mark.parametrize("n", [1, 5])
def test_a_per_example_index_out_of_bounds_raises_index_error(n):
    v, k = _vectors(n, seed=1)
    k = k % 4 - (torch.arange(n) % 2) * 4
    _same(vmap(unguarded)(v, k), _loop(unguarded, v, k))
    bad = k.clone()
    bad[n // 2] = 4
    with pytest.raises(IndexError):
        vmap(unguarded)(v, bad)


def smooth_writes(x, k):
    y = torch.zeros(3, dtype=F64)
    y[0] = x * x
    y[1] = x
    if x > 0:
        y[1] *= torch.sin(x)
    y[0] *= x
    if 0 <= k < 3:
        y[k] = y[k] * x
    return torch.sum(y * y)


def smooth_reference(x, k):
    """`smooth_writes` without in-place writes (items in a Python list): per example,
    ``torch.func.grad`` of the in-place code fails itself ("modified by an inplace
    operation"; functionalized: "derivative for aten::copy is not implemented")."""
    y = [x * x, x, torch.zeros((), dtype=F64)]
    if x > 0:
        y[1] = y[1] * torch.sin(x)
    y[0] = y[0] * x
    if 0 <= k < 3:
        y[k] = y[k] * x
    return sum(t * t for t in y)


@pytest.mark.parametrize("n", [1, 5, 2_000])
def test_gradients_through_written_tensors_equal_per_example_gradients(n):
    """(PyTorch's "modified by an inplace operation" at backward: `y[:, 1] * x` saved a view
    of `y`, then written into) while autograd records the writes go into copies; the
    gradients are those of torch.func.grad per example."""
    rng = np.random.default_rng(n)
    x = torch.as_tensor(rng.uniform(-2, 2, n), dtype=F64).requires_grad_()
    k = torch.as_tensor(rng.integers(-1, 4, n))
    out = vmap(smooth_writes)(x, k)
    grad, = torch.autograd.grad(out.sum(), x)
    expected = torch.stack([torch.func.grad(smooth_reference)(a, b)
                            for a, b in zip(x.detach()[:50], k[:50])])
    torch.testing.assert_close(grad[:50], expected, rtol=1e-13, atol=0)
    with torch.no_grad():
        _same(vmap(smooth_writes)(x, k), _loop(smooth_writes, x.detach(), k))
    # the grad mode off: the writes stay in place (no copies)
    assert "if recording:" in vmap(smooth_writes).source(x, k)


def stale_view(v, k):
    out = torch.zeros(4, dtype=F64)
    tail = out[1:]
    out[2] = v[0]
    return tail * 1.0


def dtype_of_argument(v, k):
    out = torch.zeros(4, dtype=v.dtype)
    out[1] = v[0]
    return out + out[1]


def test_a_tensor_made_with_an_arguments_dtype_is_written_into_as_the_loop():
    # (once refused: the analysis had no example of `torch.zeros(4, dtype=v.dtype)`, and
    # before that refusal the batch's tensor was padded as a scalar, `out + out[:, 1]`
    # broadcast wrongly; `v.dtype` now has the example tensor's dtype as its example)
    for n in (1, 5):
        for dtype in (F64, torch.float32):
            v, k = _vectors(n, dtype=dtype)
            _same(vmap(dtype_of_argument)(v, k), _loop(dtype_of_argument, v, k))


def test_a_view_read_after_its_tensor_is_written_is_refused_located():
    v, k = _vectors(3)
    with pytest.raises(VectorizeError, match="is a view of `out`") as info:
        vmap(stale_view)(v, k)
    assert "test_torch_writes.py:" in str(info.value) and "^" in str(info.value)


def swap_items(v, k):
    out = torch.ones(4, dtype=F64) * 0.5
    out[0] = v[1]
    if v[0] > 0:
        out[0], out[3] = out[3], out[0]
    return out


def test_a_swap_of_tensor_items_is_refused_located():
    """(silently wrong before, the condwrites fuzz in PyTorch's spelling: `out` made by
    arithmetic could be written into) per example `out[3]` is a 0-d view of `out`, so the
    swap leaves both items equal; the batch's masked swap exchanged them."""
    v, k = _vectors(5)
    v[:, 0] = torch.tensor([1.0, -1.0, 2.0, 0.5, -3.0], dtype=F64)
    with pytest.raises(VectorizeError, match="0-d view of `out`") as info:
        vmap(swap_items)(v, k)
    assert "test_torch_writes.py:" in str(info.value) and "^" in str(info.value)
