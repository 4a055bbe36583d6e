"""np.random inside per-example functions draws independently for every example."""

import numpy as np
import pytest

from vectorize import VectorizeError, vmap

RNG = np.random.default_rng(7)


def noisy(x):
    return x + np.random.normal(0.0, 1.0)


def jitter(x):
    return x + RNG.uniform(-1.0, 1.0, size=2).sum()


def per_example_mean(mu):
    return np.random.normal(mu, 0.5)


def test_draws_differ_per_example_and_follow_the_distribution():
    out = vmap(noisy, fallback="error")(np.zeros(20000))
    assert out.shape == (20000,)
    assert len(np.unique(out)) == 20000          # not one draw shared by all examples
    assert abs(out.mean()) < 0.05 and abs(out.std() - 1.0) < 0.05


def test_generator_methods_with_a_per_example_size():
    vf = vmap(jitter, fallback="error")
    assert "size=(len(x), 2)" in vf.source(np.zeros(3))
    out = vf(np.zeros(20000))
    assert len(np.unique(out)) == 20000
    assert abs(out.std() - np.sqrt(2 / 3)) < 0.03     # sum of two U(-1, 1)


def test_per_example_parameters_broadcast():
    mu = np.repeat([0.0, 10.0], 10000)
    out = vmap(per_example_mean, fallback="error")(mu)
    assert abs(out[:10000].mean()) < 0.05 and abs(out[10000:].mean() - 10.0) < 0.05
    assert abs(out[10000:].std() - 0.5) < 0.05


def shared_draw(x):
    noise = np.random.normal()
    return noise


def test_a_numpy_draw_in_code_for_tensors_is_refused():
    # PyTorch has no random family: NumPy would draw one array, not a tensor of draws per
    # example (before the registry's families it returned one row of draws for every lane)
    torch = pytest.importorskip("torch")
    with pytest.raises(VectorizeError, match="NumPy random draw") as info:
        vmap(shared_draw)(torch.zeros(5))
    assert "test_random.py:" in str(info.value)
