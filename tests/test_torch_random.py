"""PyTorch's random draws inside per-example functions draw independently for every example
(like ``torch.vmap(randomness="different")``); Python's ``random`` is refused in both backends.

The reference is the distribution per example: each example's draw must be its own (no two
examples share a number where the distribution is continuous), have the per-example shape
and dtype, and follow the distribution the per-example code draws from.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
import torch

from vectorize import VectorizeError, vmap

N = 20000


def noise_number(x):
    return x + float(torch.randn(()))        # was one draw shared by every example


def noise_vector(x):
    return x * 0.0 + torch.randn(3)


def noise_dims(x):
    return x + torch.rand(2, 3)


def noise_size_keyword(x):
    return x + torch.normal(0.0, 1.0, size=())


def noise_like_own(x):
    return x + torch.randn_like(x)


def noise_like_shared(x, w):
    return x + torch.randn_like(w)


def coin_shared(x, p):
    return x + torch.bernoulli(p)


def dice(x):
    return torch.randint(1, 7, (2,)) + x * 0


def per_example_mean(mu):
    return torch.normal(mu, 0.5)


def per_example_draw_in_branch(x):
    if x > 0:
        return x + torch.randn(())
    return x


def _assert_all_distinct(out):
    # float32 draws collide now and then (uniform ones about 430 times in 120,000); one draw
    # shared by the batch, or by a row, would leave a third of them or fewer
    flat = out.reshape(-1)
    assert len(torch.unique(flat)) > 0.99 * flat.numel()


def _standard_normal(values):
    assert abs(float(values.mean())) < 0.05 and abs(float(values.std()) - 1.0) < 0.05


def test_a_draw_per_example_not_one_for_the_batch():
    out = vmap(noise_number)(torch.zeros(N))
    assert out.shape == (N,) and out.dtype == torch.float32
    _assert_all_distinct(out)
    _standard_normal(out)


@pytest.mark.parametrize("f, shape", [
    (noise_vector, (3,)), (noise_dims, (2, 3)), (noise_size_keyword, ()),
    (noise_like_own, ()),
])
def test_sized_draws_get_the_batch_in_front(f, shape):
    vf = vmap(f)
    out = vf(torch.zeros(N))
    assert out.shape == (N, *shape) and out.dtype == torch.float32
    _assert_all_distinct(out)
    if f is not noise_dims:
        _standard_normal(out)
    else:
        assert float(out.min()) >= 0.0 and float(out.max()) < 1.0


def test_a_shared_tensor_parameter_is_expanded_to_the_batch():
    w = torch.zeros(3, dtype=torch.float64)
    vf = vmap(noise_like_shared, in_axes=(0, None))
    assert "w.expand(len(x), *w.shape)" in vf.source(torch.zeros(5), w)
    out = vf(torch.zeros(N), w)
    assert out.shape == (N, 3) and out.dtype == torch.float64     # randn_like keeps w's dtype
    _assert_all_distinct(out)
    p = torch.tensor([0.0, 0.5, 1.0])
    coins = vmap(coin_shared, in_axes=(0, None))(torch.zeros(N), p)
    assert coins.shape == (N, 3)
    assert torch.all(coins[:, 0] == 0) and torch.all(coins[:, 2] == 1)
    assert abs(float(coins[:, 1].mean()) - 0.5) < 0.03     # not one coin for every example


def test_randint_keeps_its_bounds_and_dtype():
    out = vmap(dice)(torch.zeros(N, dtype=torch.int64))
    assert out.shape == (N, 2) and out.dtype == torch.int64
    assert int(out.min()) == 1 and int(out.max()) == 6
    assert len(torch.unique(out[:, 0] * 10 + out[:, 1])) == 36    # rows differ


def test_per_example_parameters_draw_per_element():
    mu = torch.cat([torch.zeros(N // 2), torch.full((N // 2,), 10.0)])
    out = vmap(per_example_mean)(mu)
    assert abs(float(out[: N // 2].mean())) < 0.05
    assert abs(float(out[N // 2:].mean()) - 10.0) < 0.05
    assert abs(float(out[N // 2:].std()) - 0.5) < 0.05


@pytest.mark.parametrize("n", [0, 1, 5])
def test_small_batches(n):
    x = torch.arange(n, dtype=torch.float32) - 2.0
    out = vmap(per_example_draw_in_branch)(x)
    assert out.shape == (n,)
    kept = x <= 0
    assert torch.equal(out[kept], x[kept])
    assert torch.all(out[~kept] != x[~kept])


def test_looking_at_a_function_does_not_consume_the_users_random_numbers():
    x = torch.zeros(4)
    torch.manual_seed(1)
    expected = torch.rand(3)
    torch.manual_seed(1)
    vmap(noise_vector).source(x)       # analysis and code generation only
    assert torch.equal(torch.rand(3), expected)


def test_draws_follow_the_users_seed():
    vf = vmap(noise_vector)
    torch.manual_seed(3)
    first = vf(torch.zeros(7))
    torch.manual_seed(3)
    assert torch.equal(vf(torch.zeros(7)), first)


def test_gradients_flow_through_the_noisy_function():
    x = torch.ones(6, requires_grad=True)

    vf = vmap(noise_vector)
    torch.manual_seed(5)
    out = vf(x)
    out.sum().backward()
    assert torch.equal(x.grad, torch.zeros(6))      # x * 0.0 + noise


def permutation(x):
    return x + torch.randperm(3)


def python_gauss(x):
    return x + random.gauss(0.0, 1.0)


def python_float_gauss(x):
    return x + float(random.random())


def test_refused_draws_are_located():
    with pytest.raises(VectorizeError, match="argsort") as info:
        vmap(permutation)(torch.zeros(3))
    assert "test_torch_random.py:" in str(info.value)
    for arg in (torch.zeros(3), np.zeros(3)):
        for f in (python_gauss, python_float_gauss):
            with pytest.raises(VectorizeError, match="Python's generator") as info:
                vmap(f)(arg)
            assert "test_torch_random.py:" in str(info.value) and "^" in str(info.value)
