"""The seed programs (a blog post and the torch.vmap tutorial) run as
written with our ``vmap``, and per-sample gradients by the documented recipe
(examples/torch_seeds.py, examples/torch_per_sample_grads.py, docs/torch.md)."""

from __future__ import annotations

import importlib.util
import pathlib

import pytest
import torch
from torch_reference import check

from vectorize import vmap

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples"


def _load(name):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def seeds():
    return _load("torch_seeds")


def test_blog_func_with_if_and_its_gradient(seeds, capsys):
    ans, b_grad, ans_shared, b0_grad, ans_2 = seeds.blog()
    expected = torch.tensor([-1., -2., -3., -4., -5., 6., 7., 8.])
    assert torch.equal(ans, expected)
    assert torch.equal(b_grad, torch.tensor([0., 0., 0., 0., 0., 6., 7., 8.]))
    assert torch.equal(ans_shared, expected)
    assert b0_grad == 21.0
    assert torch.equal(ans_2, expected)
    source = capsys.readouterr().out
    assert "torch.where(tmp > 5" in source and "if tmp" not in source


def test_blog_func_against_the_loop(seeds):
    t = torch.linspace(-10, 10, 41)
    check(seeds.func, t, torch.full((41,), 1.5))
    check(seeds.func, t, torch.tensor(0.75), in_axes=(0, None))
    check(seeds.func_2, t, torch.full((41,), 1.5))
    check(seeds.func_2, t, torch.tensor(0.75), in_axes=(0, None))


def test_tutorial(seeds):
    (a, b, dots), (examples, result, expected), (jacobian_vmap, jacobian) = seeds.tutorial()
    assert torch.allclose(dots, torch.stack([torch.dot(p, q) for p, q in zip(a, b)]))
    assert torch.allclose(result, expected)
    assert torch.allclose(jacobian_vmap, jacobian)
    assert torch.allclose(jacobian, torch.diag(2 * seeds.x.detach()))


def test_vmap_of_torch_dot_without_source():
    batched_dot = vmap(torch.dot)
    x, y = torch.randn(6, 5, requires_grad=True), torch.randn(6, 5)
    check(torch.dot, x, y)
    check(torch.dot, x, y[0], in_axes=(0, None))
    assert "torch.einsum" in batched_dot.source(x, y)


def test_model_closes_over_weights_and_its_gradient(seeds):
    examples = torch.randn(7, seeds.feature_size)
    result = vmap(seeds.model)(examples)
    result.sum().backward()
    batched = seeds.weights.grad.clone()
    seeds.weights.grad = None
    expected = torch.stack([seeds.model(e) for e in examples.unbind()])
    expected.sum().backward()
    assert torch.allclose(result, expected)
    assert torch.allclose(batched, seeds.weights.grad, atol=1e-6)
    seeds.weights.grad = None


def test_jacobian_rows_as_sequential(seeds):
    def fresh_vjp(v):
        return torch.autograd.grad(yy, xx, v, retain_graph=True)[0]
    global xx, yy
    xx = torch.randn(4, requires_grad=True)
    yy = torch.sin(xx) * xx
    basis = torch.eye(4)
    rows = torch.stack([torch.autograd.grad(yy, xx, v, retain_graph=True)[0]
                        for v in basis.unbind()])
    assert torch.allclose(vmap(fresh_vjp)(basis), rows)
    source = vmap(fresh_vjp).source(basis)
    assert "is_grads_batched=True" in source


def test_per_sample_gradients_recipe():
    example = _load("torch_per_sample_grads")
    example.main()      # asserts every example's gradient against the loop
    samples, weight = torch.randn(9, 5), torch.randn(5, requires_grad=True)
    (grads,) = example.per_sample_grads(example.model, (samples,), [weight])
    assert torch.allclose(grads, samples)      # d(sample . w)/dw = sample
