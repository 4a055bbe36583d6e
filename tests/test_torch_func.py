"""``vmap`` with ``torch.func``'s pieces: ``torch.func.grad`` / ``grad_and_value`` mapped
(per-sample gradients, PyTorch's tutorial recipe), ``torch.func.functional_call`` and
``nn.Module`` calls inside the mapped function, and ``torch.func.vmap``'s / JAX's options
(``in_dims``, ``out_dims``, ``randomness``, ``chunk_size``, ``axis_size``, ``axis_name``).
Every result is compared with the per-example loop (``torch.func.grad`` called on each
example), values and shapes, and gradients through it where it has them."""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.func import functional_call, grad, grad_and_value

from vectorize import VectorizeError, vmap


@pytest.fixture(autouse=True)
def _seeded():
    with torch.random.fork_rng():
        torch.manual_seed(0)
        yield


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(5, 8)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(torch.tanh(self.fc1(x)))


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3)
        self.norm = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4 * 4 * 4, 3)

    def forward(self, x):
        h = F.relu(self.norm(self.conv(x)))
        return self.fc(h.flatten(1))


def _loss_of(model):
    def compute_loss(params, buffers, sample, target):
        batch = sample.unsqueeze(0)
        targets = target.unsqueeze(0)
        predictions = functional_call(model, (params, buffers), (batch,))
        return F.cross_entropy(predictions, targets)
    return compute_loss


def _per_example(fn, args, in_dims):
    """The loop: ``fn`` on each example, the results stacked leaf by leaf."""
    n = next(a.shape[d] for a, d in zip(args, in_dims) if d is not None)
    rows = [fn(*[a if d is None else a.select(d, i) for a, d in zip(args, in_dims)])
            for i in range(n)]
    return rows


def _assert_stacked(got, rows, like):
    """``got`` (a pytree like ``like``) equals the loop's ``rows`` stacked."""
    if isinstance(like, dict):
        for k in like:
            _assert_stacked(got[k], [r[k] for r in rows], like[k])
    elif isinstance(like, tuple):
        for k, item in enumerate(like):
            _assert_stacked(got[k], [r[k] for r in rows], item)
    else:
        want = torch.stack(rows) if rows else torch.zeros((0,) + tuple(like.shape))
        assert got.shape == want.shape
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("n", [0, 1, 5])
@pytest.mark.parametrize("net", [MLP, ConvNet])
def test_per_sample_gradients_recipe(net, n):
    # torch docs, "Per-sample-gradients": vmap(grad(compute_loss), in_dims=(None, None, 0, 0))
    model = net().eval()
    params = {k: v.detach() for k, v in model.named_parameters()}
    buffers = {k: v.detach() for k, v in model.named_buffers()}
    shape = (5,) if net is MLP else (1, 6, 6)
    data, targets = torch.randn(n, *shape), torch.randint(0, 3, (n,))
    loss = _loss_of(model)
    got = vmap(grad(loss), in_dims=(None, None, 0, 0))(params, buffers, data, targets)
    rows = _per_example(grad(loss), (params, buffers, data, targets), (None, None, 0, 0))
    _assert_stacked(got, rows, params)
    if n:
        theirs = torch.func.vmap(grad(loss), in_dims=(None, None, 0, 0))(
            params, buffers, data, targets)
        _assert_stacked(got, [{k: v[i] for k, v in theirs.items()} for i in range(n)],
                        params)


def test_per_sample_gradients_of_a_loss_with_an_if():
    # beyond torch.func: a Huber loss written with an `if` on the per-example error
    model = MLP()
    params = {k: v.detach() for k, v in model.named_parameters()}

    def huber(params, x, target):
        error = functional_call(model, params, (x,)).sum() - target
        if abs(error) < 1.0:
            return 0.5 * error ** 2
        return abs(error) - 0.5
    xs, ts = torch.randn(9, 5), torch.randn(9) * 3
    grads, values = vmap(grad_and_value(huber), in_axes=(None, 0, 0))(params, xs, ts)
    rows = _per_example(grad_and_value(huber), (params, xs, ts), (None, 0, 0))
    _assert_stacked(grads, [r[0] for r in rows], params)
    torch.testing.assert_close(values, torch.stack([r[1] for r in rows]))


def test_grad_options_argnums_has_aux_and_out_dims():
    def f(w, x, t):
        y = (w @ x - t) ** 2
        return y.sum(), y
    w, xs, ts = torch.randn(3, 4), torch.randn(6, 4), torch.randn(6, 3)
    got = vmap(grad(f, argnums=(0, 1), has_aux=True), in_dims=(None, 0, 0))(w, xs, ts)
    rows = _per_example(grad(f, argnums=(0, 1), has_aux=True), (w, xs, ts), (None, 0, 0))
    _assert_stacked(got, rows, ((w, xs[0]), ts[0]))
    moved = vmap(grad(f, has_aux=True), in_dims=(None, 0, 0), out_dims=1)(w, xs, ts)
    torch.testing.assert_close(moved[0], got[0][0].movedim(0, 1))
    (dw, dx), value_aux = vmap(grad_and_value(f, argnums=(0, 1), has_aux=True),
                               in_dims=(None, 0, 0))(w, xs, ts)
    torch.testing.assert_close(dw, got[0][0])
    torch.testing.assert_close(value_aux[1], torch.stack([f(w, x, t)[1] for x, t in
                                                         zip(xs, ts)]))


def test_gradients_flow_through_per_sample_gradients():
    # the gradients can be differentiated again (create_graph), as torch.func's can
    def f(w, x):
        return torch.sin(w * x).sum()
    w = torch.randn(4, requires_grad=True)
    w_ref = w.detach().clone().requires_grad_()
    xs = torch.randn(5, 4)
    vmap(grad(f), in_dims=(None, 0))(w, xs).pow(2).sum().backward()
    torch.stack([grad(f)(w_ref, x) for x in xs]).pow(2).sum().backward()
    torch.testing.assert_close(w.grad, w_ref.grad)
    assert not vmap(grad(f), in_dims=(None, 0))(w.detach(), xs).requires_grad


def test_grad_refusals_are_located():
    def vector_loss(x):
        return x * 2
    with pytest.raises(VectorizeError, match="scalar tensor per example") as info:
        vmap(grad(vector_loss))(torch.randn(3, 2))
    assert str(info.value).startswith(__file__)
    with pytest.raises(VectorizeError, match="argnums"):
        vmap(grad(vector_loss, argnums=2))(torch.randn(3, 2))


def test_module_called_inside_the_function():
    model = MLP()

    def forward(x):
        h = model(x)
        if h.sum() > 0:          # data-dependent control flow around the module
            return h * 2
        return -h
    xs = torch.randn(7, 5)
    ours = vmap(forward)(xs)
    ours.sum().backward()
    mine = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    loop = torch.stack([forward(x) for x in xs])
    torch.testing.assert_close(ours, loop)
    loop.sum().backward()
    for g, p in zip(mine, model.parameters()):
        torch.testing.assert_close(g, p.grad)
    assert "torch.func.vmap(model, in_dims=(0,))(x)" in vmap(forward).source(xs)


class Itemizing(nn.Module):
    def forward(self, x):
        return x * x.sum().item()


def test_module_torch_func_vmap_cannot_batch_is_refused_located():
    model = Itemizing()

    def forward(x):
        return model(x)
    with pytest.raises(VectorizeError, match="torch.func.vmap") as info:
        vmap(forward)(torch.randn(3, 4))
    assert str(info.value).startswith(f"{__file__}:")


def test_functional_call_with_per_example_and_shared_parameters():
    model = nn.Linear(4, 2)
    w = torch.randn(6, 2, 4)         # one weight per example, the bias shared

    def f(w, b, x):
        return functional_call(model, {"weight": w, "bias": b}, (x,))
    b, xs = torch.randn(2), torch.randn(6, 4)
    got = vmap(f, in_axes=(0, None, 0))(w, b, xs)
    torch.testing.assert_close(got, torch.stack([f(w[i], b, xs[i]) for i in range(6)]))


def _huber(w, x):
    e = w.dot(x)
    if e > 0:
        return e ** 2
    return -e


GRAD_HUBER = grad(_huber)


def test_grad_functions_called_inside_the_mapped_function():
    def named(w, x):
        return GRAD_HUBER(w, x) * 2

    def inline(w, x):
        g, v = grad_and_value(_huber)(w, x)
        return g + v
    w, xs = torch.randn(3), torch.randn(5, 3)
    for f in (named, inline):
        got = vmap(f, in_axes=(None, 0))(w, xs)
        torch.testing.assert_close(got, torch.stack([f(w, x) for x in xs]))
    assert "vmap(grad_and_value(_huber), in_axes=(None, 0))(w, x)" in \
        vmap(inline, in_axes=(None, 0)).source(w, xs)


# ----------------------------------------------------------------- the peers' options


def test_in_dims_out_dims_spellings():
    x = torch.randn(3, 4)
    torch.testing.assert_close(vmap(torch.sin, in_dims=1, out_dims=1)(x), x.sin())
    with pytest.raises(TypeError):
        vmap(torch.sin, in_axes=1, in_dims=1)


@pytest.mark.parametrize("chunk", [1, 3, 10, 64])
def test_chunk_size_on_tensors(chunk):
    def f(x, w):
        s = (x * w).sum()
        return (x * 2 if s > 0 else x - 1), s
    x = torch.randn(10, 3, requires_grad=True)
    w = torch.randn(3)
    whole = vmap(f, in_axes=(0, None), chunk_size=None)(x, w)
    chunked = vmap(f, in_axes=(0, None), chunk_size=chunk)(x, w)
    for a, b in zip(whole, chunked):
        torch.testing.assert_close(a, b)
    (g_whole,) = torch.autograd.grad(whole[0].sum() + whole[1].sum(), x)
    (g_chunk,) = torch.autograd.grad(chunked[0].sum() + chunked[1].sum(), x)
    torch.testing.assert_close(g_whole, g_chunk)


def test_randomness():
    def noisy(x):
        return x + torch.randn(())
    with pytest.raises(VectorizeError, match="randomness='error'") as info:
        vmap(noisy, randomness="error")(torch.zeros(4))
    assert "x + torch.randn(())" in str(info.value)
    draws = vmap(noisy, randomness="different")(torch.zeros(400))
    assert draws.std() > 0.5
    with pytest.raises(VectorizeError, match="randomness='same'"):
        vmap(noisy, randomness="same")
    with pytest.raises(ValueError):
        vmap(noisy, randomness="sometimes")
    torch.testing.assert_close(vmap(torch.sin, randomness="error")(torch.ones(3)),
                               torch.ones(3).sin())


@pytest.mark.parametrize("n", [0, 1, 4])
def test_axis_size(n):
    # JAX: vmap(f, in_axes=None, axis_size=n): every example's result, n times
    def f(x):
        return x * 2, x.sum()
    x = np.arange(3.0)
    a, s = vmap(f, in_axes=None, axis_size=n)(x)
    np.testing.assert_array_equal(a, np.stack([x * 2] * n) if n else np.zeros((0, 3)))
    np.testing.assert_array_equal(s, np.full(n, x.sum()))
    a[...] = 1.0                       # an array of its own
    t = vmap(lambda v: v + 1, in_axes=None, axis_size=n, out_axes=1)(torch.ones(2))
    assert t.shape == (2, n)
    np.testing.assert_array_equal(vmap(np.sin, axis_size=3)(x), np.sin(x))
    none = vmap(lambda: np.arange(2.0), in_axes=None, axis_size=n)()     # no argument at all
    np.testing.assert_array_equal(none, np.zeros((n, 2)) + np.arange(2.0))
    stuff = {"x": 1.5, "yz": (np.full(3, 2.0), np.ones(3))}
    got = vmap(lambda d: d["x"] * d["yz"][0], in_axes=({"x": None, "yz": 0},),
               axis_size=3)(stuff)
    np.testing.assert_array_equal(got, np.full(3, 3.0))
    with pytest.raises(ValueError, match="axis_size"):
        vmap(np.sin, axis_size=n + 5)(x)


def test_axis_name_is_accepted():
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(vmap(lambda r: r.sum(), axis_name="batch")(x), x.sum(1))


# ------------------------------------------------- messages that point at the user's line


def test_refusal_of_a_library_function_points_at_the_users_call():
    # was located in a one-line wrapper ("<vectorize rule wrapper of torch.split>")
    with pytest.raises(VectorizeError) as info:
        vmap(torch.split)(torch.randn(3, 4), torch.tensor([1, 2, 3]))
    message = str(info.value)
    assert message.startswith(f"{__file__}:"), message
    assert "cannot vmap `torch.split`" in message
    assert "a per-example value as an argument other than the tensor" in message


def test_dict_argument_and_star_args_messages():
    def add(d):
        return d["a"] + d["b"]
    with pytest.raises(VectorizeError,
                       match=r"along axis 0.*\(its shape is \(\)\): args\[0\]\['a'\]") as info:
        vmap(add)({"a": 1.0, "b": np.ones(3)})
    assert str(info.value).startswith(f"{__file__}:")
    got = vmap(add, in_axes=({"a": None, "b": 0},))({"a": 1.0, "b": np.arange(3.0)})
    np.testing.assert_array_equal(got, np.arange(3.0) + 1.0)

    def total(*args):
        return sum(args)
    x, y = np.arange(3.0), np.ones(3)
    np.testing.assert_array_equal(vmap(total)(x, y), x + y)


def test_chunk_size_with_dict_results():
    def f(x):
        return {"s": x.sum(), "d": x * 2}
    x = torch.randn(10, 3)
    got = vmap(f, chunk_size=3)(x)
    torch.testing.assert_close(got["d"], x * 2)
    torch.testing.assert_close(got["s"], x.sum(1))
