"""`vectorize` on torch tensors (issue 20): tensors in, tensors out, through the torch
backend as `vmap` does (numpy.vectorize would copy them into NumPy arrays, and fail on a
tensor that requires grad). Values are checked against numpy.vectorize on the tensors' NumPy
copies, gradients against the per-example loop's."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from vectorize import vectorize  # noqa: E402


def piecewise(t, b):
    tmp = t * b
    if tmp > 5:
        return tmp
    return -t


def newton_sqrt(a, tol):
    x = a if a > 1 else 1.0
    while abs(x * x - a) > tol:
        x = 0.5 * (x + a / x)
    return x


def two_results(a, b):
    return a + b, a * b


def dot(v, w):
    return v.dot(w)


def scaled(x, scale=2.0):
    return x * scale


def keyword_only(x, *, scale=2.0):
    return x * scale


def check(got, want, dtype=None):
    assert isinstance(got, torch.Tensor)
    assert tuple(got.shape) == np.shape(want)
    np.testing.assert_allclose(got.detach().numpy(), want, rtol=1e-6)
    if dtype is not None:
        assert got.dtype == dtype


@pytest.mark.parametrize("n", [0, 1, 5, 10_000])
def test_values_and_types(n):
    t = torch.linspace(-3, 9, n)
    b = torch.tensor(1.0)
    g = vectorize(piecewise, fallback="error")
    for _ in range(2):
        check(g(t, b), np.vectorize(piecewise, otypes=[np.float32])(t.numpy(), b.numpy()),
              torch.float32)


def test_gradients_flow_as_through_the_loop():
    t = torch.linspace(-3, 9, 13, dtype=torch.float64)
    b = torch.tensor(1.5, dtype=torch.float64, requires_grad=True)
    out = vectorize(piecewise, fallback="error")(t, b)
    out.sum().backward()
    got = b.grad.clone()
    b.grad = None
    torch.stack([piecewise(ti, b) for ti in t]).sum().backward()
    assert torch.allclose(got, b.grad)


def test_broadcasting_and_loops():
    a = torch.tensor([[0.5, 2.0, 9.0], [16.0, 0.25, 1e4]], dtype=torch.float64)
    tol = 1e-9
    g = vectorize(newton_sqrt, fallback="error")
    check(g(a, tol), np.vectorize(newton_sqrt)(a.numpy(), tol), torch.float64)
    x = torch.tensor([[1.0], [2.0]])
    y = torch.tensor([3.0, 4.0, 5.0])
    check(vectorize(piecewise, fallback="error")(x, y),
          np.vectorize(piecewise)(x.numpy(), y.numpy()))


def test_a_tensor_and_a_numpy_array():
    t = torch.linspace(-3, 9, 7, dtype=torch.float64)
    b = np.full(7, 1.5)
    check(vectorize(piecewise, fallback="error")(t, b), np.vectorize(piecewise)(t.numpy(), b))


def test_zero_dimensional():
    check(vectorize(piecewise, fallback="error")(torch.tensor(3.0), 2.0),
          np.vectorize(piecewise)(3.0, 2.0), torch.float32)


def test_tuples_otypes_excluded_keywords():
    a, b = torch.arange(6.0).reshape(2, 3), torch.tensor(2.0)
    s, p = vectorize(two_results, fallback="error")(a, b)
    check(s, a.numpy() + 2.0)
    check(p, a.numpy() * 2.0)
    out = vectorize(two_results, otypes=[np.float64, np.float64], fallback="error")(a, b)
    assert all(o.dtype == torch.float64 for o in out)
    g = vectorize(scaled, excluded={"scale"}, fallback="error")
    check(g(a, scale=3.0), a.numpy() * 3.0)
    check(vectorize(scaled, fallback="error")(x=a), a.numpy() * 2.0)


def test_keyword_only_parameters_are_refused_or_run_by_numpys_loop():
    from vectorize.errors import VectorizeError
    from vectorize.frontend import VectorizeFallbackWarning
    a = torch.arange(3.0)
    with pytest.raises(VectorizeError, match="keyword-only"):
        vectorize(keyword_only, fallback="error")(a)
    with pytest.warns(VectorizeFallbackWarning, match="keyword-only"):
        got = vectorize(keyword_only)(a)
    np.testing.assert_array_equal(got, np.vectorize(keyword_only)(a.numpy()))


def test_signature():
    v = torch.arange(24.0).reshape(2, 3, 4)
    w = torch.arange(4.0)
    got = vectorize(dot, signature="(n),(n)->()", fallback="error")(v, w)
    check(got, np.vectorize(dot, signature="(n),(n)->()")(v.numpy(), w.numpy()))


def test_source_is_torch_code():
    t, b = torch.arange(3.0), torch.tensor(1.0)
    assert "torch.where" in vectorize(piecewise, fallback="error").source(t, b)
