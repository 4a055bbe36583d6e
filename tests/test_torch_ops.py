"""The torch operator families of `vectorize/backends/torch/` (shapes.py, nn.py,
creation.py): every rule against the per-example loop, values, dtypes and the gradients of
the outputs with respect to every float argument (`torch_reference.check`), at N = 0, 1, 5
and a large batch; and the regressions of issue 19, each failing before its fix."""

from __future__ import annotations

import inspect

import pytest
import torch
import torch.nn.functional as F
from torch_reference import check

from vectorize import VectorizeError, vmap


@pytest.fixture(autouse=True)
def _seeded():
    """Repeatable draws, without changing the random state other test modules see."""
    with torch.random.fork_rng():
        torch.manual_seed(0)
        yield


SIZES = (0, 1, 5, 64)


def _batch(shape, n, kind="f"):
    if kind == "i":
        return torch.randint(0, 4, (n, *shape))
    return torch.randn(n, *shape, dtype=torch.float64)


# ------------------------------------------------------------- regressions of issue 19


def test_grad_with_list_displays_has_the_per_example_shape():
    # functorch TestVmapAPI.test_batched_gradient_basic: the inputs `[x]` (a list display)
    # were analysed as one array of shape (1, N), and the (N, N) result broadcast to
    # (N, N, N) as if it were shared
    n = 3
    x = torch.randn(n, requires_grad=True)
    y = torch.randn(n)

    def vjp_mul(v):
        return torch.autograd.grad([x * y], [x], grad_outputs=[v])[0]

    got = vmap(vjp_mul)(torch.eye(n))
    assert got.shape == (n, n)
    torch.testing.assert_close(got, torch.diagflat(y))


def test_grad_of_outputs_computed_inside_each_tuple_form():
    x = torch.randn(4, requires_grad=True)
    w = torch.randn(3, 4, requires_grad=True)

    def vjp(v):
        out = torch.tanh(w @ x)
        gx, gw = torch.autograd.grad((out,), (x, w), (v,), retain_graph=True)
        return gx, gw

    vs = torch.randn(5, 3)
    got = vmap(vjp)(vs)
    for k, g in enumerate(got):
        want = torch.stack([vjp(v)[k] for v in vs])
        assert g.shape == want.shape
        torch.testing.assert_close(g, want)


def test_grad_allow_unused_is_refused_where_written():
    x = torch.randn([], requires_grad=True)
    y = torch.randn([], requires_grad=True)

    def vjp(v):
        res, = torch.autograd.grad(y, x, v, allow_unused=True)
        return torch.zeros_like(x) if res is None else res

    with pytest.raises(VectorizeError, match="allow_unused") as info:
        vmap(vjp)(torch.randn(3))
    assert f"{__file__}:" in str(info.value)


def test_to_a_shared_tensor_adds_no_dim():
    # `t.to(o)`: `o` gave its rank to `t` (t[:, None].to(o): shape (N, 1) instead of (N,))
    o = torch.randn(3, dtype=torch.float64)

    def to_other(t):
        return t.to(o)

    def type_as_other(t):
        return t.type_as(o)

    for f in (to_other, type_as_other):
        got = check(f, torch.randn(7), torch.randn(7).double(), in_axes=0) \
            if False else vmap(f)(torch.randn(7))
        assert got.shape == (7,) and got.dtype == torch.float64
    check(lambda t, o: t.to(o), torch.rand(7), torch.randn(7, dtype=torch.float64))
    check(lambda t, o: t.to(o), torch.rand(7), torch.randn(7, dtype=torch.float64),
          in_axes=(0, None))


def _view_10(t):
    return t.view(10)


def test_view_of_a_non_contiguous_example_raises_as_per_example():
    # functorch TestVmapOperators.test_view: the view ran as `reshape`, which copies
    x = torch.rand(2, 7, 5)
    with pytest.raises(RuntimeError):
        _view_10(x[:, 0])
    with pytest.raises(RuntimeError, match="view"):
        vmap(_view_10, in_axes=1)(x)
    assert "view(len(t), 10)" in vmap(_view_10).source(torch.rand(7, 2, 5))
    got = vmap(_view_10)(x.transpose(0, 1).contiguous())
    assert got._base is not None        # a view, as per example


def test_view_with_a_list_shape():
    def f(t):
        return t.view([1, 2, 1, 10])
    check(f, torch.rand(7, 4, 5))


def test_sum_over_dim_0_of_per_example_scalars():
    def f(x):
        return torch.sum(x, 0) + x.sum(-1)
    check(f, torch.randn(6))


def test_unmapped_int_is_a_dim():
    # functorch TestVmapAPI.test_integer_in_dim_but_not_tensor_input_err_msg (the case that
    # must not throw): the int was analysed as the representative 1
    x = torch.randn(2, 3, 5)
    for dim in (0, 1, -1):
        got = vmap(torch.sum, (0, None))(x, dim)
        torch.testing.assert_close(got, torch.stack([torch.sum(r, dim) for r in x]))


def _block(x):
    return torch.cdist(x, x) * 2       # Python code of torch itself, no rule


def test_torch_python_functions_are_refused_at_the_users_line():
    # `torch.split` without a rule pointed inside torch/functional.py
    with pytest.raises(VectorizeError) as info:
        vmap(_block)(torch.randn(4, 3, 2))
    text = str(info.value)
    assert text.startswith(f"{__file__}:{inspect.getsourcelines(_block)[1] + 1}:")
    assert "cdist" in text and "torch/functional.py" not in text


# ---------------------------------------------------------------- the rule families


def d_unsqueeze(x):
    return torch.unsqueeze(x, -1) * 2


def d_squeeze(x):
    return torch.squeeze(x.unsqueeze(1), 1)


def d_transpose(x):
    return torch.transpose(x, 0, -1) + torch.swapaxes(x, 1, 0)


def d_movedim(x):
    return torch.movedim(x, 0, 1) + torch.movedim(x, [0, 1], [1, 0])


def d_narrow_select(x):
    return torch.narrow(x, 1, 1, 2).sum(-1) + x.select(-1, 0) + torch.select(x, 0, 1).sum()


def d_unfold(x):
    return x.unfold(1, 2, 1).sum(-1)


def d_flip_roll(x):
    return torch.flip(x, [0]) + torch.roll(x, 1, 1) + torch.roll(x, 2) + x.roll(-1, 0)


def d_diagonal(x):
    return torch.diagonal(x) + x.diagonal(0, -1, -2) + torch.trace(x) + x.t().trace()


def d_pieces(x):
    a, b = torch.chunk(x, 2)
    c, d = torch.split(x, [1, 3], dim=1)
    e = torch.unbind(x, 1)[2]
    f = torch.tensor_split(x, 3, 1)[1]
    return a.sum() + b.sum() + c.sum(1) + d[:, 0] + e + f.sum(1)


def d_cumulative(x):
    return torch.cumsum(x, 0) + x.cumprod(-1) + torch.logcumsumexp(x, 1) \
        + torch.cummax(x, 1)[0]


def d_softmax(x):
    return torch.softmax(x, -1) + torch.log_softmax(x, 0) + F.softmax(x, dim=1) \
        + F.log_softmax(x, dim=-2)


def d_arg(x):
    return torch.argmax(x, 1) + x.argmin(dim=0) + torch.argmax(x) + x.argmin()


def d_var_mean(x):
    v, m = torch.var_mean(x, 1)
    s, n = torch.std_mean(x)
    return v + m + s + n


def d_sorts(x):
    return torch.sort(x, 0)[0] + x.sort(descending=True)[0] \
        + torch.argsort(x, dim=1) + torch.topk(x, 2)[0].sum(-1, keepdim=True) \
        + torch.kthvalue(x, 1, 0)[0]


def d_flatten(x):
    return torch.flatten(x) + x.flatten().sum()


def d_reshape(x):
    return torch.reshape(x, (3, 4)).sum(0) + x.view(-1)[:4] + x.reshape([2, 6])[1, :4]


def d_shaped_like(x, o):
    return x.view_as(o).sum() + x.reshape_as(o).sum(0) + torch.ones(4).expand_as(o).sum(0) \
        + x[:1].expand_as(x)[2]


def d_expand_repeat(x):
    return x.expand(2, 3, 4).sum(0) + x.repeat(2, 1)[3:] + x.t().t()


def d_permute(x):
    return torch.permute(x, (1, 0)).sum(1) + torch.t(x).sum(1)


def d_join(x, w):
    return torch.cat([x, w], 1).sum(1) + torch.stack([w, x]).sum(0)[:, 0] \
        + torch.cat((x, x), dim=-1)[:, 1] + torch.stack([x[0], w[0]], 1).sum(1)[:3]


def d_creation(x):
    y = x + torch.tensor(1.6, dtype=torch.float64)
    return torch.dot(y[0], torch.ones(4, dtype=torch.float64)) + torch.eye(3, 4)[1].sum() \
        + torch.arange(4.0).sum() + y.sum()


def d_new(x):
    z = x.new_zeros(3, 4) + x.new_ones((3, 4)) + x.new_full((3, 4), 2.0)
    scale = 2.0 if x.is_floating_point() else 1.0
    return x * scale + z


def d_convert(x, o):
    return x.to(o) + x.type_as(o)


def n_conv1d(x, w, b):
    return F.conv1d(x, w, b, padding=1)


def n_conv2d(x, w):
    return F.conv2d(x, w, stride=1).relu()


def n_pools(x):
    return F.adaptive_avg_pool2d(x, (2, 2)).sum() + F.max_pool2d(x, 2).sum() \
        + F.avg_pool2d(x, 2).mean()


def n_group_norm(x, w, b):
    return F.group_norm(x, 2, w, b)


def n_layer_norm(x, w, b):
    return F.layer_norm(x, (4,), w, b) + F.linear(x, w.expand(3, 4), b[:3]).sum()


def n_one_hot(k, x):
    return F.one_hot(k, 4) * x


def n_nll(logits, target):
    logp = F.log_softmax(logits, dim=-1)
    return F.nll_loss(logp, target) + F.nll_loss(logp, target, reduction="sum") \
        + F.nll_loss(logp, target, reduction="none").sum()


def n_cross_entropy(logits, target):
    return F.cross_entropy(logits, target) + F.cross_entropy(logits, target, ignore_index=1)


def n_bmm(a, b):
    return torch.bmm(a, b) + a.bmm(b)


def n_linalg(m):
    return torch.linalg.det(m) + torch.linalg.inv(m).sum() + torch.linalg.slogdet(m)[1] \
        + torch.logdet(m @ m.mT + torch.eye(3, dtype=torch.float64))


def d_result_type(x, k):
    return x.to(torch.result_type(x, k)) * k


def d_in_place(x, v):
    y = x * 2
    y.add_(v)
    z = (x + 1).sin_()
    z.mul_(v[0])
    w = y.clone()
    w.fill_(v[1])
    return y + z + w


M = (3, 4)
CASES = [
    (d_unsqueeze, [M]), (d_squeeze, [M]), (d_transpose, [(3, 3)]), (d_movedim, [(3, 3)]),
    (d_narrow_select, [M]), (d_unfold, [M]), (d_flip_roll, [M]), (d_diagonal, [(3, 3)]),
    (d_pieces, [M]), (d_cumulative, [M]), (d_softmax, [M]), (d_arg, [(3, 3)]),
    (d_var_mean, [M]), (d_sorts, [(3, 3)]), (d_flatten, [M]), (d_reshape, [M]),
    (d_shaped_like, [M, (3, 4)]), (d_expand_repeat, [M]), (d_permute, [M]),
    (d_join, [M, M]), (d_join, [M, ("shared", M)]), (d_creation, [M]), (d_new, [M]),
    (d_convert, [M, ("shared", (4,), torch.float32)]),
    (n_conv1d, [(2, 6), ("shared", (4, 2, 3)), ("shared", (4,))]),
    (n_conv1d, [(3, 2, 6), ("shared", (4, 2, 3)), ("shared", (4,))]),
    (n_conv1d, [(3, 2, 6), (4, 2, 3), ("shared", (4,))]),     # per-example weights
    (n_conv2d, [(2, 5, 5), ("shared", (3, 2, 2, 2))]),
    (n_conv2d, [(2, 2, 5, 5), ("shared", (3, 2, 2, 2))]),
    (n_pools, [(2, 4, 4)]), (n_pools, [(3, 2, 4, 4)]),
    (n_group_norm, [(2, 4, 3), ("shared", (4,)), ("shared", (4,))]),
    (n_layer_norm, [M, ("shared", (4,)), ("shared", (4,))]),
    (n_one_hot, [("int", (3,)), (3, 4)]),
    (n_nll, [(5,), ("int", ())]), (n_nll, [(3, 5), ("int", (3,))]),
    (n_cross_entropy, [(3, 5), ("int", (3,))]), (n_cross_entropy, [(5,), ("int", ())]),
    (n_cross_entropy, [(3, 5), ("shared-int", (3,))]),
    (n_bmm, [(2, 3, 4), ("shared", (2, 4, 3))]), (n_bmm, [(2, 3, 4), (2, 4, 3)]),
    (n_linalg, [(3, 3)]), (d_result_type, [M, ("int", (4,))]),
    (d_in_place, [M, (4,)]), (d_in_place, [M, ("shared", (4,))]),
]


def _args(spec, n):
    args, axes = [], []
    for item in spec:
        if isinstance(item, tuple) and item and isinstance(item[0], str):
            kind, shape, *dtype = item
            if kind == "int":
                args.append(torch.randint(0, 4, (n, *shape)))
                axes.append(0)
            elif kind == "shared-int":
                args.append(torch.randint(0, 4, shape))
                axes.append(None)
            else:
                args.append(torch.randn(*shape, dtype=dtype[0] if dtype else torch.float64))
                axes.append(None)
        else:
            args.append(_batch(item, n))
            axes.append(0)
    return args, tuple(axes)


@pytest.mark.parametrize("f,spec", [pytest.param(f, s, id=f"{f.__name__}-{i}")
                                    for i, (f, s) in enumerate(CASES)])
@pytest.mark.parametrize("n", SIZES)
def test_family_against_the_loop_with_gradients(f, spec, n):
    args, axes = _args(spec, n)
    if n == 0 and f in (d_arg, n_nll, n_cross_entropy, n_one_hot, d_var_mean, n_linalg):
        # the loop cannot learn the result's dtype from no example (reference limit)
        args, axes = _args(spec, 1)
    check(f, *args, in_axes=axes)


def test_large_batch_repeated():
    x, w = _batch(M, 2000), torch.randn(M, dtype=torch.float64)
    mapped = vmap(d_join, in_axes=(0, None))
    first = mapped(x, w)
    for _ in range(3):
        assert torch.equal(mapped(x, w), first)
    check(d_join, x, w, in_axes=(0, None))


def r_squeeze_all(x):
    return torch.squeeze(x)


def r_zero_d_dim(x):
    # (softmax along dim 0 of a 0-d tensor is vectorized: tests/test_torch_opinfo_fixes.py)
    return torch.sort(x, 0)[0]


def r_one_hot_no_classes(k):
    return F.one_hot(k)


def r_cat_of_scalars(x):
    return torch.cat([x, x])


def r_tensor_of_example(x):
    return torch.tensor([x, 2.0])


def r_batched_weight(x, w):
    return F.group_norm(x, 2, w)


def r_per_example_dim(x, d):
    return torch.narrow(x, 0, d, 1)


def r_in_place_on_alias(x):
    y = x
    y.add_(1)
    return x


def r_in_place_on_view(x):
    y = x[0]
    y.mul_(2)
    return x


def r_in_place_in_branch(x):
    y = x * 2
    if x.sum() > 0:
        y.add_(1)
    return y


def r_in_place_on_shared(x, w):
    w.add_(x)
    return x


@pytest.mark.parametrize("f,args,in_axes,message", [
    (r_in_place_on_alias, (torch.randn(4, 3),), 0, "another name"),
    (r_in_place_on_view, (torch.randn(4, 3),), 0, "another name"),
    (r_in_place_in_branch, (torch.randn(4, 3),), 0, "per-example condition"),
    (r_in_place_on_shared, (torch.randn(4, 3), torch.randn(3)), (0, None), "shared"),
    (r_squeeze_all, (torch.randn(4, 1, 3),), 0, "without its dim"),
    (r_zero_d_dim, (torch.randn(4),), 0, "0-d"),
    (r_one_hot_no_classes, (torch.randint(0, 3, (4, 2)),), 0, "num_classes"),
    (r_cat_of_scalars, (torch.randn(4),), 0, "zero-dimensional"),
    (r_tensor_of_example, (torch.randn(4),), 0, ""),
    (r_batched_weight, (torch.randn(4, 2, 4, 6), torch.randn(4, 4)), 0, "weights"),
    (r_per_example_dim, (torch.randn(4, 3), torch.tensor([0, 1, 0, 1])), 0, "per-example"),
])
def test_refusals_are_located(f, args, in_axes, message):
    with pytest.raises(VectorizeError, match=message) as info:
        vmap(f, in_axes=in_axes)(*args)
    source, first = inspect.getsourcelines(f)
    where, line = str(info.value).split(":")[:2]
    assert where == __file__ and first < int(line) < first + len(source)


def clamp_bound_and_number(v, lo):
    return torch.clip(v, lo, 2.0) + v.clamp(-1, lo).sum() + torch.clamp(v, min=0.5, max=lo)


def test_clamp_of_a_per_example_bound_and_a_number_runs_batched():
    """Per example `torch.clip(v, lo, 2.0)` gets a 0-d tensor and a number, which PyTorch
    takes as two numbers; the batch gave it a tensor and a number, which no overload takes:
    it raised TypeError and replayed the per-example loop (regression: now one call with
    both bounds tensors of the result's dtype). A bound that records gradients is no number
    per example: PyTorch raises TypeError there, and so does vmap."""
    import warnings
    v = torch.linspace(-3.0, 3.0, 15, dtype=torch.float64).reshape(5, 3)
    lo = torch.tensor([-1.0, 0.0, 0.5, 2.5, float("nan")], dtype=torch.float64)
    for x in (v, v.float(), (v * 2).long(), v[:1], v[:0]):
        b = lo[:len(x)]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = vmap(clamp_bound_and_number)(x, b)
        if len(x):
            expected = torch.stack([clamp_bound_and_number(r, k) for r, k in zip(x, b)])
            assert got.dtype == expected.dtype
            torch.testing.assert_close(got, expected, equal_nan=True, rtol=0, atol=0)
        else:
            assert got.shape == (0, 3)
    with pytest.raises(TypeError):
        clamp_bound_and_number(v[0], lo[0].clone().requires_grad_())
    with pytest.raises(TypeError):
        vmap(clamp_bound_and_number)(v, lo.clone().requires_grad_())
