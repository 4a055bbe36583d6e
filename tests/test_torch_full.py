"""``torch.full(size, x)`` of a per-example number under ``vmap`` (`backends/torch/creation`).

Per example ``x`` is a 0-d tensor that PyTorch reads as a number: the result has its
dtype's Python-number dtype (a float64 ``x`` gives the default float32, an int32 one
int64) unless ``dtype=`` says otherwise; a value that overflows a narrower float raises
RuntimeError, and an ``x`` that records gradients TypeError. The batched code equals the
per-example loop in values and dtype, and raises the loop's exception where it raises; a
conversion that may not fit and is not checked (a float into ``dtype=torch.int32``) is
refused, located.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from vectorize import VectorizeError, vmap  # noqa: E402


def filled(x):
    return torch.full((3,), x)


def table(x):
    return torch.full((2, 3), x * 2.0) + 1


def typed(x):
    return torch.full([2], x, dtype=torch.float64)


def written(x):
    y = torch.full((3,), x)
    y[0] = 0
    return y


def into_ints(x):
    return torch.full((2,), x, dtype=torch.int32)


DTYPES = [torch.float64, torch.float16, torch.int32, torch.bool]


def _data(n, dtype):
    g = torch.Generator().manual_seed(n)
    values = torch.randn(n, generator=g, dtype=torch.float64) * 100
    return values.to(dtype)


def _loop(f, x):
    return torch.stack([f(x[i]) for i in range(len(x))])


@pytest.mark.parametrize("f", [filled, table, typed, written], ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_full_of_per_example_values_equals_the_loop(f, dtype):
    fast = vmap(f)
    for n in (1, 5, 10_000) if dtype in (torch.float64, torch.int32) else (1, 5):
        x = _data(n, dtype)
        out, expected = fast(x), _loop(f, x)
        assert out.dtype == expected.dtype and out.shape == expected.shape
        assert torch.equal(out, expected)
    empty = fast(_data(0, dtype))
    one = f(_data(1, dtype)[0])
    assert empty.shape == (0, *one.shape) and empty.dtype == one.dtype


def test_results_are_tensors_of_their_own():
    x = torch.tensor([1.0, 2.0, 3.0])
    out = vmap(filled)(x)
    out[0, 0] = 99.0
    assert torch.equal(x, torch.tensor([1.0, 2.0, 3.0]))
    assert torch.equal(out[0], torch.tensor([99.0, 1.0, 1.0]))


@pytest.mark.parametrize("f", [filled, table, written], ids=lambda f: f.__name__)
def test_a_float64_value_that_overflows_float32_raises_as_the_loop(f):
    x = torch.tensor([1.0, 1e300, -2.0], dtype=torch.float64)
    with pytest.raises(RuntimeError) as loop:
        _loop(f, x)
    with pytest.raises(RuntimeError) as ours:
        vmap(f)(x)
    assert str(ours.value) == str(loop.value)
    inf = torch.tensor([1.0, float("inf"), float("nan")], dtype=torch.float64)
    out, expected = vmap(f)(inf), _loop(f, inf)     # inf and nan fit: no error
    assert torch.equal(torch.nan_to_num(out), torch.nan_to_num(expected))


def test_a_value_recording_gradients_raises_type_error_as_the_loop():
    x = torch.arange(4.0, requires_grad=True)
    with pytest.raises(TypeError):
        _loop(filled, x)
    with pytest.raises(TypeError):
        vmap(filled)(x)


def test_a_conversion_that_may_not_fit_is_refused_located():
    with pytest.raises(VectorizeError) as info:
        vmap(into_ints)(torch.arange(5.0))
    text = str(info.value)
    assert "torch.full" in text and "int32" in text and "return torch.full((2,), x" in text
    # int32 into int32: nothing to convert
    x = torch.arange(-3, 3, dtype=torch.int32)
    assert torch.equal(vmap(into_ints)(x), _loop(into_ints, x))


def test_a_size_per_example_stays_refused():
    def sized(n):
        return torch.full((n,), 1.0)
    with pytest.raises(VectorizeError, match="torch.full"):
        vmap(sized)(torch.arange(3))
