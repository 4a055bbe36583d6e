"""PyTorch's own vmap tests, adapted: `test/functorch/test_vmap.py` of pytorch/pytorch
(classes TestVmapAPI, TestVmapOperators, TestVmapBatchedGradient), each case run by
`vectorize.vmap` and compared with the per-example loop ``torch.stack([f(*row) ...])`` (the
peer's own ``reference_vmap``): values, dtypes, and the gradients of the outputs' sum with
respect to every float tensor argument. Every test names the peer test it adapts.

Where PyTorch raises and we compute (``.item()``, data-dependent control flow, Python numbers
as results), the case is compared with the loop: that is the promise ("what they refuse,
plus"). Where we refuse, the refusal must be a located `VectorizeError` (asserted by
`refused`; those where PyTorch computes are listed in docs/semantics.md, "The peers' test
suites"). ``python tests/peers/test_torch_vmap.py`` prints the counts: pass / refused /
wrong / crash per test.
"""

from __future__ import annotations

import functools
import itertools
import os
import sys

import pytest
import torch
import torch.nn.functional as F
from torch import Tensor

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import torch_reference  # noqa: E402
from torch_reference import assert_same, reference  # noqa: E402

from vectorize import VectorizeError, vmap

_seeded = pytest.fixture(autouse=True)(torch_reference.seeded)


B0, B1, B2 = 7, 11, 13
REFUSED: set = set()     # tests with a refusal where PyTorch computes (the counts below)


# ------------------------------------------------------------------------- helpers


def _leaf(a, grad):
    if isinstance(a, Tensor):
        a = a.detach().clone()
        if grad and a.dtype.is_floating_point:
            a.requires_grad_()
    return a


def _outs(out):
    return list(out) if isinstance(out, tuple) else [out]


def same(f, args, in_dims=0, out_dims=0, grad=True, signed_zeros=True):
    """``vmap(f, in_dims, out_dims)(*args)`` equals the per-example loop (values, dtypes),
    and so do the gradients of the sum of its float outputs with respect to the float tensor
    arguments. ``signed_zeros``: compare the signs of zeros too (not for batched gradients,
    whose kernels PyTorch vectorizes differently)."""
    ref_args = [_leaf(a, grad) for a in args]
    our_args = [_leaf(a, grad) for a in args]
    expected = reference(f, ref_args, in_dims, out_dims)
    got = vmap(f, in_dims, out_dims)(*our_args)
    assert_same(got, expected, signed_zeros=signed_zeros)
    for ours, theirs in zip(our_args, ref_args):     # in-place methods change them alike
        if isinstance(ours, Tensor):
            assert_same(ours, theirs, signed_zeros=signed_zeros)
    floats = [i for i, a in enumerate(args) if isinstance(a, Tensor)
              and a.dtype.is_floating_point]
    if not grad or not floats:
        return got
    pairs = [(g, e) for g, e in zip(_outs(got), _outs(expected)) if e.requires_grad]
    if not pairs:
        return got
    assert all(g.requires_grad for g, _ in pairs), "the batched output carries no gradient"
    want = torch.autograd.grad(sum(e.sum() for _, e in pairs), [ref_args[i] for i in floats],
                               allow_unused=True)
    have = torch.autograd.grad(sum(g.sum() for g, _ in pairs), [our_args[i] for i in floats],
                               allow_unused=True)
    for i, w, h in zip(floats, want, have):
        w = torch.zeros_like(args[i]) if w is None else w
        h = torch.zeros_like(args[i]) if h is None else h
        torch.testing.assert_close(h, w, rtol=1e-4, atol=1e-5)
    return got


def refused(f, args, in_dims=0, match="", peer_raises=False):
    """A refusal: a `VectorizeError` at the function's own line (or at the one-line wrapper
    of a function without source). ``peer_raises``: PyTorch raises for it too (the case
    agrees with the peer; the others are counted as refusals in docs/torch.md)."""
    if not peer_raises:
        REFUSED.add(os.environ.get("PYTEST_CURRENT_TEST", "").split(" ")[0])
    with pytest.raises(VectorizeError, match=match) as info:
        vmap(f, in_dims)(*args)
    where = str(info.value).split(":")[0]
    assert where in (__file__, "<unknown>") or where.startswith("<vectorize rule wrapper"), \
        str(info.value)
    return info.value


# ====================================================================== TestVmapAPI


def test_non_tensor_output_raises():
    # torch raises for Python numbers as results; ours stacks them (docs/torch.md)
    same(lambda x: 3.14, [torch.ones(3)])

    def multiple_outputs(x):
        return x, 3
    same(multiple_outputs, [torch.ones(3)])


def test_different_map_dim_size_raises():
    x, y = torch.randn(2), torch.randn(3)
    with pytest.raises(ValueError, match="inconsistent sizes"):
        vmap(torch.mul)(x, y)
    with pytest.raises(ValueError, match="inconsistent sizes"):
        vmap(lambda z: z[0] + z[1], in_axes=((0, 0),))((x, y))


def test_different_map_dim_size_raises_dict():
    x, y = torch.randn(2), torch.randn(3)
    with pytest.raises(ValueError, match="inconsistent sizes"):
        vmap(lambda z: z['x'] + z['y'], in_axes=({'x': 0, 'y': 0},))({'x': x, 'y': y})


def test_func_with_no_inputs():
    def foo():
        return torch.randn(3)

    def bar(x):
        return torch.randn(3)
    with pytest.raises(ValueError):
        vmap(foo)()
    with pytest.raises(ValueError):
        vmap(bar)()


def test_func_with_no_tensors():
    def foo(x):
        return torch.randn(3)
    with pytest.raises(ValueError):
        vmap(foo, (None,))(1)


def test_constant_function():
    output = vmap(lambda x: torch.tensor(3.14))(torch.ones(3))
    assert torch.equal(output, torch.tensor([3.14, 3.14, 3.14]))


def test_single_input():
    def square(x):
        return x * x
    same(square, [torch.randn(2, 3)])


def test_multiple_inputs():
    same(torch.mul, [torch.randn(2, 3), torch.randn(2, 3)])


def test_multiple_outputs():
    def foo(x):
        return x * x, x * x * x
    same(foo, [torch.randn(3)])


def test_multiple_outputs2_tuple():
    def returns_tuple_of_tensors(x):
        return (x, x)
    same(returns_tuple_of_tensors, [torch.randn(3)])


def test_multiple_outputs2_lists():
    def returns_list_of_two_tensors(x):
        return [x, x]

    def returns_list_of_one_tensor(x):
        return [x]
    x = torch.randn(3)
    assert isinstance(vmap(returns_list_of_two_tensors)(x), list)
    assert isinstance(vmap(returns_list_of_one_tensor)(x), list)


def test_nested_with_same_map_dim():
    x, y = torch.randn(2, 3, 5), torch.randn(2, 3, 5)
    torch.testing.assert_close(vmap(vmap(torch.mul))(x, y), x * y)
    torch.testing.assert_close(vmap(vmap(vmap(torch.mul)))(x, y), x * y)


def test_nested_with_diag_embed():
    x = torch.randn(3, 3, 5)
    torch.testing.assert_close(vmap(vmap(torch.diag_embed))(x), torch.diag_embed(x))


def test_nested_with_different_map_dim():
    x, y = torch.randn(2, 3), torch.randn(5, 3)
    output = vmap(lambda x: vmap(lambda y: x * y)(y))(x)
    torch.testing.assert_close(output, x.view(2, 1, 3) * y)


def test_noop_in_inner_vmap():
    x, y = torch.randn(3), torch.randn(5)
    output = vmap(lambda x: vmap(lambda y: x)(y))(x)
    torch.testing.assert_close(output, x.view(3, 1).expand(3, 5))


def test_unsupported_op_err_msg():
    tensor = torch.randn(2, 3)

    def out_op(x, y):
        return torch.abs(x, out=y)
    # torch refuses out=; each example writes into its row of `y`, as the batch does
    same(out_op, [tensor, tensor.clone()], grad=False)
    # torch.equal gives a Python bool per example, which torch refuses; ours too
    refused(torch.equal, [tensor, tensor], peer_raises=True)


def test_nonzero_out_dims():
    tensor = torch.randn(2, 3)
    same(lambda x: x, [tensor], out_dims=1)
    assert vmap(lambda x: x, out_axes=1)(tensor).data_ptr() == tensor.data_ptr()
    same(lambda x: x, [torch.randn(2, 3, 5, 7)], out_dims=2)
    same(lambda x: x, [torch.randn(2, 3, 5, 7)], out_dims=-1)

    def pair(x, y):
        return x, y
    same(pair, [torch.randn(2, 3, 5, 7), torch.randn(2, 3, 5, 7)], out_dims=2)
    shape = [2] + [1] * 63
    result = vmap(lambda x: x, out_axes=2)(torch.randn(shape))
    assert list(result.shape) == [1, 1, 2] + [1] * 61

    def foo(x, y):
        return x, x * y, x * y * y
    same(foo, [torch.randn(2, 3, 5), torch.randn(2, 3, 5)], out_dims=1)


def test_multiple_out_dims():
    def foo(x):
        return x, x

    def bar(x, y):
        return x, x, x, x * y
    x, y = torch.randn(2, 3, 5), torch.randn(2, 3, 5)
    same(foo, [x], out_dims=(0, 1))
    same(bar, [x, y], out_dims=(-1, 0, 1, 2))


def test_nested_out_dims():
    y = torch.randn(2, 3, 5, 7)
    result = vmap(lambda y: vmap(lambda x: x, out_dims=1)(y))(y)
    torch.testing.assert_close(result, y.permute(0, 2, 1, 3))


def test_out_dims_edge_case():
    def foo(x):
        return x
    tensor = torch.randn(2, 3)
    torch.testing.assert_close(vmap(foo, out_axes=(1,))(tensor), vmap(foo, out_axes=1)(tensor))


def test_out_dims_none_tuple():
    def foo(x):
        return x, 'hello world'
    tensor = torch.randn(2, 3)
    result = vmap(foo, out_axes=(0, None))(tensor)
    assert result[1] == 'hello world'
    torch.testing.assert_close(result[0], tensor)


def test_out_dims_none():
    def foo(x):
        return x
    with pytest.raises(ValueError):
        vmap(foo, out_axes=None)(torch.randn(2, 3))


def test_out_dims_normal_tensor():
    def foo(x):
        return torch.arange(3)
    tensor = torch.randn(2, 3)
    assert vmap(foo)(tensor).shape == (2, 3)
    assert torch.equal(vmap(foo, out_axes=None)(tensor), torch.arange(3))


def test_pytree_returns():
    def f(x):
        y = x.sin()
        return y, (y, y), [y, (y, y)]
    y0, (y1, y2), (y3, (y4, y5)) = vmap(f)(torch.randn(2, 3))
    torch.testing.assert_close(y5, y0)


def test_pytree_odict_returns():
    from collections import OrderedDict

    def f(t):
        return OrderedDict([("sin", t.sin()), ("cos", t.cos())])
    x = torch.randn(2, 3)
    out = vmap(f)(x)
    assert isinstance(out, OrderedDict) and list(out) == ["sin", "cos"]
    torch.testing.assert_close(out["sin"], x.sin())
    torch.testing.assert_close(out["cos"], x.cos())


def test_pytree_returns_outdims():
    def f(x):
        y = x.sin()
        return y, (y, y)
    y0, (y1, y2) = vmap(f, out_axes=(0, (0, 1)))(torch.randn(2, 3))
    torch.testing.assert_close(y2, y0.t())


def test_pytree_returns_broadcast_simple():
    def f(x):
        y = x.sin()
        return y, (y, y)
    y0, (y1, y2) = vmap(f, out_axes=1)(torch.randn(2, 3))
    torch.testing.assert_close(y1, y0)


def test_out_dims_must_be_int_or_collection_of_int_err_msg():
    with pytest.raises(ValueError):
        vmap(lambda x: x, out_axes='lol')(torch.randn(2, 3))


def test_out_dims_and_num_outputs_mismatch_err_msg():
    x = torch.randn(2, 3, 5)
    with pytest.raises(ValueError):
        vmap(lambda x: x, out_axes=(0, 0))(x)
    with pytest.raises(ValueError):
        vmap(lambda x: (x, x), out_axes=(0,))(x)


def test_out_dim_out_of_bounds_err_msg():
    x = torch.randn(2, 3, 5)
    with pytest.raises(IndexError):
        vmap(lambda x: x, out_axes=3)(x)
    with pytest.raises(IndexError):
        vmap(lambda x: x, out_axes=-4)(x)


def test_non_zero_in_dims():
    tensor = torch.randn(2, 3, 5)
    same(lambda x: x, [tensor], in_dims=(1,))
    assert vmap(lambda x: x, (1,))(tensor).data_ptr() == tensor.data_ptr()
    same(torch.mul, [torch.randn(2, 3), torch.randn(3, 2)], in_dims=(0, 1))
    same(torch.mul, [torch.randn(2, 3), torch.randn(3, 2)], in_dims=(1, 0))


def test_none_in_dims():
    x, y = torch.randn(2, 3), torch.randn(2, 3)
    output = same(torch.mul, [x, y], in_dims=(0, None))
    assert output.shape == (2, 2, 3)
    same(torch.mul, [x, 2], in_dims=(0, None))


def test_nested_non_default_in_dims():
    x, y = torch.rand(5, 2, 3), torch.rand(3, 5, 2)
    result = vmap(vmap(vmap(torch.mul), (1, 0)), (1, 2))(x, y)
    torch.testing.assert_close(result, x.permute(1, 2, 0) * y.permute(2, 0, 1))


def test_nested_negative_in_dims():
    output = same(torch.mul, [torch.randn(2, 3), torch.randn(2, 3)], in_dims=(-1, -1))
    assert output.shape == (3, 2)


def test_non_default_in_dims_out_dims():
    x = torch.randn(2, 3, 5)
    same(lambda x: x, [x], in_dims=1, out_dims=1)
    assert vmap(lambda x: x, 1, 1)(x).data_ptr() == x.data_ptr()
    same(lambda x: x, [x], in_dims=2, out_dims=1)

    def foo(x):
        return x * 2
    same(foo, [x], in_dims=1, out_dims=1)
    same(foo, [x], in_dims=2, out_dims=1)


def test_non_default_in_dims_out_dims_nested():
    x = torch.randn(2, 3, 5)
    torch.testing.assert_close(vmap(vmap(lambda x: x * 2, 1, 1), 1, 1)(x), x * 2)


def test_item_throws():
    # torch raises; ours gives the Python number of each example (docs/torch.md)
    def f(x):
        return x.item()
    same(f, [torch.randn(3)])


def test_data_dependent_control_flow_throws():
    # torch raises "data-dependent control flow"; ours runs it
    def f(x):
        if x:
            return x
        return 0
    same(f, [torch.tensor([0.0, 1.5, -2.0])])


def test_accepts_nested_inputs():
    x, y = torch.randn(2, 3), torch.randn(2, 3)
    out = vmap(lambda z: z[0] + z[1], in_axes=((0, 0),))((x, y))
    torch.testing.assert_close(out, x + y)
    out = vmap(lambda z: z[0] + z[1])((x, y))
    torch.testing.assert_close(out, x + y)
    out = vmap(lambda z: z[0] + z[1], in_axes=(0,))((x, y))
    torch.testing.assert_close(out, x + y)


def test_accepts_nested_inputs_lists_dicts():
    x, y = torch.randn(2, 3), torch.randn(2, 3)
    torch.testing.assert_close(vmap(lambda z: z[0] + z[1], in_axes=([0, 0],))([x, y]), x + y)
    torch.testing.assert_close(vmap(lambda z: z['x'] + z['y'])({'x': x, 'y': y}), x + y)
    out_fn = vmap(lambda z: z['x'][0] + z['x'][1][0] + z['y'][0] + z['y'][1])
    torch.testing.assert_close(out_fn({'x': [x, (x,)], 'y': [y, y]}), x + x + y + y)


def test_in_dims_wrong_type_err_msg():
    x, y = torch.randn(3), torch.randn(3)
    for bad in ({0}, 'lol'):
        with pytest.raises(ValueError):
            vmap(torch.mul, bad)(x, y)
    # torch.func refuses a list; JAX takes a list at the top as a tuple, and so do we
    # (docs/semantics.md)
    torch.testing.assert_close(vmap(torch.mul, [0, 0])(x, y), x * y)


def test_not_enough_in_dims_err_msg():
    x, y = torch.randn(3), torch.randn(3)
    with pytest.raises(ValueError):
        vmap(torch.mul, (0,))(x, y)
    with pytest.raises(ValueError):
        vmap(torch.mul, (0, 0, 0))(x, y)


def test_integer_in_dim_but_not_tensor_input_err_msg():
    x = torch.randn(2, 3)
    with pytest.raises(ValueError):
        vmap(torch.sum)(x, 0)
    with pytest.raises(ValueError):
        vmap(torch.sum, (0, 0))(x, 0)


def test_integer_in_dim_but_not_tensor_input_does_not_throw():
    same(torch.sum, [torch.randn(2, 3), 0], in_dims=(0, None))


def test_in_dim_not_in_tensor_err_msg():
    def foo(x):
        return x * x
    x = torch.randn(2, 3)
    for args, dims in (([torch.randn([])], 0), ([torch.randn([])], (0,)), ([x], (-3,)),
                       ([x], (2,))):
        with pytest.raises(ValueError):
            vmap(foo, dims)(*args)
    same(foo, [torch.randn(2, 3)], in_dims=(0,))
    same(foo, [torch.randn(2, 3)], in_dims=(1,))


def test_fallback_atan2():
    op = torch.copysign
    same(op, [torch.randn(5, 7, 11), torch.randn(5, 7, 11)])
    same(op, [torch.randn(7, 11, 5), torch.randn(5, 7, 11)], in_dims=(2, 0))


def test_fallback_atan2_nested():
    x, y = torch.randn(100, 10, 10, 5), torch.randn(100, 10, 10)
    torch.testing.assert_close(vmap(vmap(vmap(torch.copysign)))(x, y),
                               torch.copysign(x, y.view(100, 10, 10, 1)))


def test_fallback_multiple_returns():
    same(torch.var_mean, [torch.randn(2, 10)])
    same(torch.var_mean, [torch.randn(1237, 10)])


def test_inplace_fallback_unary():
    # the caller's tensor changes, as with the loop
    same(Tensor.acos_, [torch.rand(2, 5)], grad=False)
    same(Tensor.acos_, [torch.rand(2, 5)], out_dims=1, grad=False)


def test_inplace_fallback_nary_same_levels():
    same(Tensor.atan2_, [torch.randn(7, 11, 5), torch.randn(5, 7, 11)], in_dims=(2, 0),
         grad=False)


def test_batched_gradient_basic():
    n = 3
    x = torch.randn(n, requires_grad=True)
    y = torch.randn(n)

    def vjp_mul(v):
        return torch.autograd.grad([x * y], [x], grad_outputs=[v])[0]
    jacobian = vmap(vjp_mul)(torch.eye(n))
    torch.testing.assert_close(jacobian, torch.diagflat(y))
    same(vjp_mul, [torch.eye(n)], grad=False)


def test_functools_partial():
    x, y = torch.randn(3), torch.randn(2, 3)
    torch.testing.assert_close(vmap(functools.partial(torch.mul, x))(y), x * y)


def test_nn_module():
    # an nn.Module (and a call of one inside the function) runs under torch.func.vmap
    model = torch.nn.Linear(3, 3, bias=False)
    same(model, [torch.randn(2, 3)])

    def forward(x):
        return model(x)
    same(forward, [torch.randn(2, 3)])

    def functional(x):
        return F.linear(x, model.weight)
    same(functional, [torch.randn(2, 3)])


def test_fallback_with_undefined_grad():
    x = torch.randn(2, 3, 4, 5, requires_grad=True)
    weight = torch.randn(3, 3, 1, 1)

    def get_vjp(v):
        result = torch.nn.functional.conv2d(x, weight)
        grad_x, = torch.autograd.grad(result, x, v)
        return grad_x
    same(get_vjp, [torch.randn(7, 2, 3, 4, 5)], grad=False)


def test_batch_rule_does_not_need_to_handle_no_batched_input():
    def f(x, y):
        res = torch.dot(y, torch.ones(2))
        return x + res
    same(f, [torch.randn(7, 5), torch.randn(3, 2)], in_dims=(None, 0))
    same(f, [torch.randn(7, 5), torch.randn(2)], in_dims=(0, None))


def test_batch_rule_does_not_need_to_handle_no_batched_input_nested():
    def f(x, y):
        res = torch.dot(y, torch.ones(2))
        return x + res
    x, y = torch.randn(7, 5), torch.randn(3, 2)
    out = vmap(vmap(f, in_axes=(0, None)), in_axes=(None, 0))(x, y)
    torch.testing.assert_close(out, torch.mv(y, torch.ones(2)).view(3, 1, 1) + x)


# ================================================================ TestVmapOperators


def rand(*shape):
    return torch.rand(*shape)


def randn(*shape):
    return torch.randn(*shape)


def randp1(*shape):
    return torch.rand(*shape) + 1


def unary(op, getter, grad=True):
    """The peer's `_test_unary` without its nested cases."""
    same(op, [getter(B0, 3)], grad=grad)
    same(op, [getter(2, 5, B0, 3)], in_dims=2, grad=grad)
    same(op, [getter(2, 5, B0, 3)], in_dims=2, out_dims=2, grad=grad)


UNARY = [(torch.abs, randn), (torch.acos, rand), (torch.asin, rand), (torch.atan, rand),
         (torch.ceil, randn), (torch.cos, rand), (torch.cosh, rand), (torch.digamma, rand),
         (torch.exp, randn), (torch.expm1, randn), (torch.floor, randn), (torch.frac, randn),
         (torch.lgamma, rand), (torch.log, randp1), (torch.log10, randp1),
         (torch.log1p, randp1), (torch.log2, randp1), (torch.neg, randn),
         (torch.reciprocal, randp1), (torch.relu, randn), (torch.round, randn),
         (torch.rsqrt, randp1), (torch.sigmoid, randn), (torch.sign, randn),
         (torch.sin, rand), (torch.sinh, rand), (torch.sqrt, rand), (torch.tan, rand),
         (torch.tanh, rand), (torch.trunc, randn)]


@pytest.mark.parametrize("op,getter", UNARY, ids=[op.__name__ for op, _ in UNARY])
def test_unary_pointwise(op, getter):
    unary(op, getter)
    method = getattr(Tensor, op.__name__)
    unary(method, getter)


@pytest.mark.parametrize("op,getter", UNARY, ids=[op.__name__ for op, _ in UNARY])
def test_unary_pointwise_inplace(op, getter):
    unary(getattr(Tensor, op.__name__ + "_"), getter, grad=False)


def test_clone():
    unary(lambda x: x.clone(), randn)
    unary(lambda x: x.clone(memory_format=torch.preserve_format), randn)
    unary(lambda x: x.clone(memory_format=torch.contiguous_format), randn)


def test_weird_matmul_case():
    vmap(vmap(torch.matmul, in_axes=(None, 0)))(torch.randn(5, 2, 2, 2), torch.randn(5, 7, 2))


@pytest.mark.parametrize("op", [torch.clamp_min_, torch.clamp_max_],
                         ids=["clamp_min_", "clamp_max_"])
def test_clamp_inplace_variant(op):
    # the function forms torch.clamp_min_(x, v) are the methods x.clamp_min_(v)
    same(op, (randn(B0, 3), randn(B0, 3)), grad=False)
    same(op, (randn(2, B0, 3), randn(2, B0, 3)), in_dims=(1, 1), grad=False)
    same(op, (randn(B0, 2, 3), randn(1, 1)), in_dims=(0, None), grad=False)
    method = getattr(Tensor, op.__name__)
    same(method, (randn(B0, 3), randn(B0, 3)), grad=False)
    same(method, (randn(2, B0, 3), randn(2, B0, 3)), in_dims=(1, 1), grad=False)
    same(method, (randn(B0, 2, 3), randn(1, 1)), in_dims=(0, None), grad=False)


@pytest.mark.parametrize("op", [torch.clamp_min, torch.clamp_max],
                         ids=["clamp_min", "clamp_max"])
def test_clamp_variant(op):
    same(op, (randn(B0, 3), randn(B0, 3)))
    same(op, (randn(B0), randn(B0, 2, 3)))
    same(op, (randn(B0), randn(2, B0, 3)), in_dims=(0, 1))
    same(op, (randn(B0), randn(2, B0, 3)), in_dims=(0, 1), out_dims=1)
    same(op, (randn(B0), randn(2, 3)), in_dims=(0, None))
    same(op, (randn(2, 3), randn(B0, 3)), in_dims=(None, 0))
    number = randn(1).item()
    unary(lambda t: op(t, number), randn)


def test_copy_():
    same(Tensor.copy_, [torch.randn(3), torch.randn(3)], grad=False)
    same(Tensor.copy_, [torch.randn(3, 2), torch.randn(3)], in_dims=(1, None), grad=False)
    # the shared tensor would be changed by every example: refused (torch raises too)
    refused(Tensor.copy_, [torch.randn(3), torch.randn(2, 3)], in_dims=(None, 0),
            peer_raises=True)


def test_silu_backward():
    op = torch.ops.aten.silu_backward
    # (PyTorch has no derivative of silu_backward: no gradients compared)
    same(op, (randp1(B0, 3), randp1(B0, 3)), grad=False)
    same(op, (randp1(3), randp1(B0, 3)), in_dims=(None, 0), grad=False)


def add_dunder(x, y):
    return x + y


def sub_dunder(x, y):
    return x - y


def mul_dunder(x, y):
    return x * y


def div_dunder(x, y):
    return x / y


def pow_dunder(x, y):
    return x ** y


def eq_dunder(x, y):
    return x == y


def gt_dunder(x, y):
    return x > y


def ge_dunder(x, y):
    return x >= y


def le_dunder(x, y):
    return x <= y


def lt_dunder(x, y):
    return x < y


def ne_dunder(x, y):
    return x != y


ARITHMETIC = [("add", torch.add, randn), ("add_dunder", add_dunder, randn),
              ("sub", torch.sub, randn), ("sub_dunder", sub_dunder, randn),
              ("mul", torch.mul, randn), ("mul_dunder", mul_dunder, randn),
              ("div", torch.div, randp1), ("div_dunder", div_dunder, randp1),
              ("pow", torch.pow, randp1), ("pow_dunder", pow_dunder, randp1)]


@pytest.mark.parametrize("name,op,getter", ARITHMETIC, ids=[a[0] for a in ARITHMETIC])
def test_arithmetic(name, op, getter):
    same(op, (getter(B0, 3), getter(B0, 3)))
    same(op, (getter(B0), getter(B0, 2, 3)))
    same(op, (getter(B0), getter(2, B0, 3)), in_dims=(0, 1))
    same(op, (getter(B0), getter(2, B0, 3)), in_dims=(0, 1), out_dims=1)
    same(op, (getter(B0), getter(2, 3)), in_dims=(0, None))
    same(op, (getter(2, 3), getter(B0, 3)), in_dims=(0, None))
    number = getter(1).item()
    unary(lambda t: op(t, number), getter)
    unary(lambda t: op(number, t), getter)
    same(op, (getter(B0), getter(B0).double()))
    same(op, (getter(B0).double(), getter(B0)))
    same(op, (getter(B0), getter(B0)))
    same(op, (getter(B0, 2), getter(B0).double()))
    same(op, (getter(B0).double(), getter(B0, 2)))


def test_as_strided():
    refused(lambda t: t.as_strided([3, 2], [1, 3], 0), [torch.randn(5, 2, 3)])


def nll(y, t):
    return F.nll_loss(y, t)


def nll_sum(y, t):
    return F.nll_loss(y, t, reduction='sum')


def nll_none(y, t):
    return F.nll_loss(y, t, reduction='none')


def test_nll_loss():
    for op in (nll, nll_sum, nll_none):
        same(op, (torch.randn(3, 2, 5), torch.randint(0, 5, (3, 2))))
        same(op, (torch.randn(3, 2, 5), torch.randint(0, 5, (2,))), in_dims=(0, None))


def test_adaptive_avg_pool2d():
    def op(x):
        return F.adaptive_avg_pool2d(x, output_size=(3, 3))
    x = torch.randn(3, 5, 7, 9, 11)
    same(op, (x,))
    same(op, (x,), in_dims=(1,))
    same(op, (x,), in_dims=(4,))


def test_bmm():
    op = torch.bmm
    refused(op, (torch.randn(B0, 2, 2, 2), torch.randn(B0, 2)), peer_raises=True)
    same(op, (torch.rand(B0, 2, 3, 5), torch.rand(2, 5, 3)), in_dims=(0, None))
    same(op, (torch.rand(2, 5, 3), torch.rand(B0, 2, 3, 5)), in_dims=(None, 0))
    same(op, (torch.rand(B0, 2, 3, 5), torch.rand(B0, 2, 5, 3)))


def cat0(a, b):
    return torch.cat((a, b), dim=0)


def cat1(a, b):
    return torch.cat([a, b], dim=1)


def cat_1(a, b):
    return torch.cat((a, b), dim=-1)


def cat1_three(a, b, c):
    return torch.cat((a, b, c), dim=1)


def test_cat():
    # the peer's `op(*tensors)` written out (``*args``: front end)
    same(cat0, (torch.rand(B0, 2), torch.rand(B0, 3)))
    same(cat0, (torch.rand(B0, 0), torch.rand(B0, 0)))
    same(cat0, (torch.rand(2), torch.rand(B0, 0)), in_dims=(None, 0))
    same(cat1, (torch.rand(B0, 2, 3), torch.rand(B0, 2, 3)))
    same(cat0, (torch.rand(2), torch.rand(B0, 3)), in_dims=(None, 0))
    same(cat0, (torch.rand(2, 17), torch.rand(3, 17, B0)), in_dims=(None, 2))
    same(cat_1, (torch.rand(17, 2), torch.rand(17, 3, B0)), in_dims=(None, 2))


def test_cat_legacy_empty():
    # cat of a (0,) tensor with tensors of other ranks (PyTorch's legacy rule): refused
    refused(cat1_three, (torch.rand(2, 5), torch.rand(B0, 0), torch.rand(2, 3)),
            in_dims=(None, 0, None))


def test_cat_star_args():
    def op(*tensors):
        return torch.cat(tensors, dim=0)
    a, b = torch.rand(B0, 2), torch.rand(B0, 3)
    torch.testing.assert_close(vmap(op)(a, b), torch.cat((a, b), 1))


def test_unsafe_view():
    # vmap of torch.func.grad: per-example gradients (vectorize.vmap_grad)
    def baz(x, y):
        return (x @ y).sum()
    same(torch.func.grad(baz), (torch.randn(2, 2, 3, 3), torch.randn(2, 3, 3)))


def test_conj():
    for dtype in (torch.float, torch.cfloat):
        unary(torch.conj, functools.partial(torch.randn, dtype=dtype), grad=False)
    real_tensor = torch.randn(3)
    assert vmap(torch.conj)(real_tensor).data_ptr() == real_tensor.data_ptr()


def test_contiguous():
    unary(Tensor.contiguous, randn)
    x = torch.randn(3, 2, 5, 7).movedim(0, 2)
    result = vmap(Tensor.contiguous, in_axes=2, out_axes=2)(x)
    torch.testing.assert_close(result, x)


def test_stride():
    def foo(x):
        assert x.stride() == (7 * 5, 7, 1)
        return x
    refused(foo, [torch.randn(3, 2, 5, 7)])


def test_chunk():
    op = torch.chunk
    same(op, (torch.rand(B0, 2, 1024), 15, -1), in_dims=(0, None, None))
    same(op, (torch.rand(2, B0, 1024), 9, 1), in_dims=(1, None, None))


def test_clamp():
    unary(lambda t: t.clamp(min=-0.5), randn)
    unary(lambda t: t.clamp(max=0.5), randn)
    unary(lambda t: t.clamp(min=-0.5, max=0.5), randn)
    unary(lambda t: t.clamp_min(min=-0.5), randn)
    unary(lambda t: t.clamp_max(max=0.5), randn)


COMPARISONS = [torch.eq, eq_dunder, torch.gt, gt_dunder, torch.ge, ge_dunder, torch.le,
               le_dunder, torch.lt, lt_dunder, torch.ne, ne_dunder]


@pytest.mark.parametrize("op", COMPARISONS, ids=["eq", "eq_dunder", "gt", "gt_dunder", "ge",
                                                 "ge_dunder", "le", "le_dunder", "lt",
                                                 "lt_dunder", "ne", "ne_dunder"])
def test_comparison_ops(op):
    same(op, (randn(B0, 3), randn(B0, 3)), grad=False)
    same(op, (randn(B0), randn(B0, 2, 3)), grad=False)
    same(op, (randn(B0), randn(2, B0, 3)), in_dims=(0, 1), grad=False)
    same(op, (randn(B0), randn(2, B0, 3)), in_dims=(0, 1), out_dims=1, grad=False)
    same(op, (randn(B0), randn(2, 3)), in_dims=(0, None), grad=False)
    same(op, (randn(2, 3), randn(B0, 3)), in_dims=(0, None), grad=False)
    number = randn(1).item()
    unary(lambda t: op(t, number), randn, grad=False)


def test_cross_batch_size_three():
    # torch.cross without a dim takes the first dim of size 3 of each example (never the
    # batch dim, here of size 3 too), read from the shapes of each call
    same(torch.cross, (torch.rand(3, 2, 3), torch.rand(3, 2, 3)), grad=False)
    same(vmap(torch.cross, in_dims=(0, None)),
         (torch.rand(3, 3, 2, 3), torch.rand(3, 3, 2, 3)), in_dims=(None, 1), grad=False)


def test_diagonal():
    tensor = torch.randn(3, 5, 7, 11, 13)
    op = torch.diagonal
    same(op, (tensor, 1, 0, 1), in_dims=(0, None, None, None))
    same(op, (tensor, 0, 2, -1), in_dims=(0, None, None, None))
    same(op, (tensor, 2, 1, 2), in_dims=(1, None, None, None))
    same(op, (tensor, 0, -2, -1), in_dims=(1, None, None, None), out_dims=1)


def test_dot():
    op = torch.dot
    refused(op, (torch.randn(B0, 2, 2, 2), torch.randn(B0, 2)), peer_raises=True)
    same(op, (torch.rand(B0, 5), torch.rand(5)), in_dims=(0, None))
    same(op, (torch.rand(5), torch.rand(B0, 5)), in_dims=(None, 0))
    same(op, (torch.rand(B0, 5), torch.rand(B0, 5)))


def test_expand_as():
    op = Tensor.expand_as
    same(op, (torch.rand(B0, 1, 5), torch.rand(B0, 2, 3, 5)))
    same(op, (torch.rand(B0, 1, 5), torch.rand(2, 3, 5)), in_dims=(0, None))
    same(op, (torch.rand(1, 5), torch.rand(B0, 2, 3, 5)), in_dims=(None, 0))


def fill_point_one(t):
    return t.fill_(0.1)


def fill_tensor(t):
    return t.fill_(torch.tensor(0.2))


def zero(t):
    return t.zero_()


def test_fill_and_zero_inplace():
    for op in (fill_point_one, fill_tensor, zero):
        unary(op, randn, grad=False)
    same(Tensor.fill_, [randn(B0, 5), randn(B0)], grad=False)
    refused(Tensor.fill_, [randn(B0, 5), randn(B0)], in_dims=(None, 0), peer_raises=True)


@pytest.mark.parametrize("op,dtypes", [(torch.real, (torch.cfloat, torch.cdouble)),
                                       (torch.imag, (torch.cfloat, torch.cdouble))],
                         ids=["real", "imag"])
def test_complex_views(op, dtypes):
    for dtype in dtypes:
        same(op, [torch.randn(B0, 3, dtype=dtype)], grad=False)
        same(op, [torch.randn(3, B0, dtype=dtype)], in_dims=1, grad=False)
        same(op, [torch.randn(2, 5, B0, 3, dtype=dtype)], in_dims=2, out_dims=2, grad=False)


def test_view_as_real():
    for dtype in (torch.cfloat, torch.cdouble):
        same(torch.view_as_real, [torch.randn(B0, 3, dtype=dtype)], grad=False)
        same(torch.view_as_real, [torch.randn(3, B0, dtype=dtype)], in_dims=1, grad=False)
        same(torch.view_as_real, [torch.randn(2, 5, B0, 3, dtype=dtype)], in_dims=2,
             out_dims=2, grad=False)


def test_view_as_complex():
    op = torch.view_as_complex
    for dtype in (torch.float, torch.double):
        same(op, [torch.randn(B0, 3, 2, dtype=dtype)], grad=False)
        same(op, [torch.randn(2, 5, B0, 3, 2, dtype=dtype)], in_dims=2, grad=False)
        same(op, [torch.randn(3, B0, 2, dtype=dtype)], in_dims=1, grad=False)
        same(op, [torch.randn(B0, 2, dtype=dtype).transpose(0, 1)], in_dims=1, grad=False)
        # a last dim of stride other than 1 raises, as per example
        with pytest.raises(RuntimeError):
            vmap(op, in_axes=1)(torch.randn(2, B0, dtype=dtype))


def test_is_complex():
    def foo(x):
        if x.is_complex():
            return torch.tensor(1)
        else:
            return torch.tensor(0)
    assert torch.equal(vmap(foo)(torch.randn(3, dtype=torch.cfloat)), torch.tensor([1, 1, 1]))
    assert torch.equal(vmap(foo)(torch.randn(3)), torch.tensor([0, 0, 0]))


def test_is_floating_point():
    def foo(x):
        if x.is_floating_point():
            return torch.tensor(1)
        else:
            return torch.tensor(0)
    assert torch.equal(vmap(foo)(torch.tensor([1., 2., 3.])), torch.tensor([1, 1, 1]))
    assert torch.equal(vmap(foo)(torch.tensor([1, 2, 3])), torch.tensor([0, 0, 0]))


def test_is_contiguous():
    def foo(x):
        if x.is_contiguous():
            return torch.tensor(1.)
        else:
            return torch.tensor(0.)
    # contiguity of each example is not known before the call: refused
    refused(foo, [torch.randn(3, 2, 7)])


def unsqueeze_0(x):
    return torch.unsqueeze(x, 0)


def unsqueeze_last(x):
    return torch.unsqueeze(x, -1)


def test_unsqueeze():
    op = torch.unsqueeze
    for dim in (0, 2, -1):
        same(op, (torch.rand(B0, 2, 5), dim), in_dims=(0, None))
        same(op, (torch.rand(2, B0, 5), dim), in_dims=(1, None))
    same(unsqueeze_0, (torch.rand(B0, 2),))
    same(unsqueeze_last, (torch.rand(B0, 2),), in_dims=1)


def test_movedim():
    op = torch.movedim
    same(op, (torch.rand(B0, 2, 5), 0, 1), in_dims=(0, None, None))
    same(op, (torch.rand(2, B0, 5), 0, 1), in_dims=(1, None, None))


def test_movedim_lists():
    op = torch.movedim
    same(op, (torch.rand(B0, 2, 3, 5), [1, 0], [0, 2]), in_dims=(0, None, None))


def test_mm():
    op = torch.mm
    refused(op, (torch.randn(B0, 2, 2, 2), torch.randn(B0, 2)), peer_raises=True)
    same(op, (torch.rand(B0, 2, 5), torch.rand(5, 2)), in_dims=(0, None))
    same(op, (torch.rand(2, 5), torch.rand(B0, 5, 2)), in_dims=(None, 0))
    same(op, (torch.rand(B0, 2, 5), torch.rand(B0, 5, 2)))


def test_mv():
    op = torch.mv
    refused(op, (torch.randn(B0, 2, 2, 2), torch.randn(B0, 2)), peer_raises=True)
    same(op, (torch.rand(B0, 2, 5), torch.rand(5)), in_dims=(0, None))
    same(op, (torch.rand(2, 5), torch.rand(B0, 5)), in_dims=(None, 0))
    same(op, (torch.rand(B0, 2, 5), torch.rand(B0, 5)))


def test_narrow():
    op = torch.narrow
    same(op, (torch.rand(B0, 2, 5), -1, 1, 3), in_dims=(0, None, None, None))
    same(op, (torch.rand(2, B0, 5), 1, 1, 3), in_dims=(1, None, None, None))


def test_new_empty():
    result = vmap(lambda x: x.new_empty([2, 3]))(torch.randn(B0))
    assert result.shape == (B0, 2, 3)
    result = vmap(lambda x: x.new_empty([]))(torch.randn(B0))
    assert result.shape == (B0,)


def test_new_empty_strided():
    refused(lambda x: x.new_empty_strided([2, 3], [3, 1]), [torch.randn(B0)])


def test_new_zeros():
    same(lambda x: x.new_zeros(2, 3), (torch.rand(B0),), grad=False)
    same(lambda x: x.new_zeros([]), (torch.rand(B0),), grad=False)


def test_select():
    op = torch.select
    same(op, (torch.rand(B0, 2, 5), 0, 0), in_dims=(0, None, None))
    same(op, (torch.rand(2, B0, 5), 1, 1), in_dims=(1, None, None))
    same(lambda t: op(t, 1, 1), (torch.rand(B1, 2, B0, 5),), in_dims=2)


def test_roll_no_dims():
    op = torch.roll
    same(op, (torch.rand(B0, 2, 5), 2), in_dims=(0, None))
    same(op, (torch.rand(2, B0, 5), 3), in_dims=(1, None))
    same(lambda t: op(t, 3), (torch.rand(B1, 2, B0, 5),), in_dims=2)


def stack0(a, b):
    return torch.stack((a, b), dim=0)


def stack_1(a, b):
    return torch.stack([a, b], dim=-1)


def test_stack():
    same(stack0, (torch.rand(B0, 3), torch.rand(B0, 3)))
    same(stack0, (torch.rand(3), torch.rand(B0, 3)), in_dims=(None, 0))
    same(stack0, (torch.rand(2, 17), torch.rand(2, 17, B0)), in_dims=(None, 2))
    same(stack_1, (torch.rand(2, 17), torch.rand(2, 17, B0)), in_dims=(None, 2))


def test_slice():
    same(lambda t: t[0:1], (torch.rand(B0, 3, 5),))
    same(lambda t: t[:, 1:3], (torch.rand(3, 5, B0),), in_dims=2)


def squeeze_first(x):
    return torch.squeeze(x, dim=0)


def squeeze_last(x):
    return torch.squeeze(x, dim=-1)


def test_squeeze():
    # squeeze() without a dim depends on each example's sizes: refused (docs/torch.md)
    refused(torch.squeeze, (torch.rand(B0, 3, 5),))
    for op in (squeeze_first, squeeze_last):
        same(op, (torch.rand(B0, 1, 5, 1),))
        same(op, (torch.rand(1, B0, 1),), in_dims=1)
    same(lambda x: torch.squeeze(x, dim=1), (torch.rand(B0, 3, 1, 5),))
    refused(lambda x: torch.squeeze(x, dim=1), (torch.rand(10),), peer_raises=True)


@pytest.mark.parametrize("op", [torch.sum, torch.mean], ids=["sum", "mean"])
def test_sum_mean_dim(op):
    same(lambda x: op(x, 0), [torch.randn([B0])])
    same(lambda x: op(x, -1), [torch.randn([B0])])
    same(lambda x: op(x, 0), [torch.randn([B0, 3])])
    same(lambda x: op(x, -1), [torch.randn([2, 5, B0, 3])], in_dims=2)
    same(lambda x: op(x, 2), [torch.randn([2, 5, B0, 3])], in_dims=2, out_dims=2)


def test_argmax_dim():
    same(lambda x: torch.argmax(x), [torch.randn(B0, 2, 3)])
    same(lambda x: torch.argmax(x, 0), [torch.randn(B0, 2, 3)])
    same(lambda x: torch.argmax(x, -1), [torch.randn(B0, 2, 3)])
    same(lambda x: torch.argmax(x, 2 - 1), [torch.randn(B0, 2, 3)])


def test_argmax_of_scalars():
    same(lambda x: torch.argmax(x), [torch.randn(B0)])


@pytest.mark.parametrize("op", [torch.sum, torch.mean], ids=["sum", "mean"])
def test_sum_mean(op):
    same(op, [torch.randn([B0])])
    same(op, [torch.randn([B0, 3])])
    same(op, [torch.randn([2, 5, B0, 3])], in_dims=2)


def test_repeat():
    op = Tensor.repeat
    same(lambda x: op(x, (2, 3)), (torch.rand(B0, 1, 1),))
    same(lambda x: op(x, (2, 3)), (torch.rand(1, B0, 1),), in_dims=1)


def test_slogdet():
    op = torch.linalg.slogdet
    same(op, (torch.rand(B0, 1, 1),), grad=False)
    same(op, (torch.rand(B0, 2, 2),), grad=False)
    same(op, (torch.rand(B0, 3, 2, 2),), grad=False)
    same(op, (torch.rand(3, 2, 2, B0),), in_dims=3, grad=False)


def test_reshape():
    op = torch.reshape
    same(lambda t: op(t, (2, 5)), (torch.rand(B0, 2 * 5),))
    same(lambda t: op(t, (1, 1, 10)), (torch.rand(2, B0, 5),), in_dims=1)
    same(lambda t: t.reshape([-1]), (torch.rand(B0, 2, 5),))


def test_reshape_list_argument():
    same(torch.reshape, (torch.rand(B0, 2 * 5), [2, 5]), in_dims=(0, None))


def test_reshape_as():
    op = Tensor.reshape_as
    same(op, (torch.rand(B0, 2 * 5), torch.rand(B0, 2, 5)))
    same(op, (torch.rand(2 * 5), torch.rand(B0, 2, 5)), in_dims=(None, 0))
    same(op, (torch.rand(B0, 2 * 5), torch.rand(2, 5)), in_dims=(0, None))
    same(op, (torch.rand(2, B0, 5), torch.rand(1, 1, 10)), in_dims=(1, None))


def scalar_tensor_with_dtype(x, y):
    return torch.ones([], dtype=torch.result_type(x, y))


def with_int(x):
    return torch.ones([], dtype=torch.result_type(x, 1))


def with_float(x):
    return torch.ones([], dtype=torch.result_type(x, 1.6))


def with_long_tensor(x):
    return torch.ones([], dtype=torch.result_type(x, torch.tensor(1)))


def with_double_tensor(x):
    return torch.ones([], dtype=torch.result_type(x, torch.tensor(1.6, dtype=torch.double)))


def test_result_type():
    op = scalar_tensor_with_dtype
    for shape in ((2,), (2, 2)):
        same(op, (torch.randn(*shape), torch.randn(*shape, dtype=torch.float64)), grad=False)
        same(op, (torch.randn(*shape), torch.randint(10, shape, dtype=torch.int64)),
             grad=False)
        for f in (with_int, with_float, with_long_tensor, with_double_tensor):
            same(f, (torch.randn(*shape),), grad=False)
    same(op, (torch.randn(2, 2), torch.randn(2, dtype=torch.float64)), grad=False)
    same(op, (torch.randn(2, 2), torch.randint(10, [2], dtype=torch.int64)), grad=False)


def test_tensor_split():
    op = torch.tensor_split
    same(op, (torch.rand(B0, 2, 1024), 5, -1), in_dims=(0, None, None))
    same(op, (torch.rand(2, B0, 1024), 150, 1), in_dims=(1, None, None))
    same(lambda t: op(t, [50, 100, 378, 890], -1), (torch.rand(B0, 2, 1024),))


def test_split():
    op = torch.split
    same(op, (torch.rand(B0, 2, 1024), 101, -1), in_dims=(0, None, None))
    same(op, (torch.rand(2, B0, 1024), 130, 1), in_dims=(1, None, None))
    same(lambda t: op(t, [1, 1020, 3], -1), (torch.rand(B0, 2, 1024),))
    same(lambda t: op(t, [100] * 10 + [24], 1), (torch.rand(2, B0, 1024),), in_dims=1)


def test_trace():
    same(torch.trace, (torch.rand(B0, 2, 5),))
    same(torch.trace, (torch.rand(2, B0, 5),), in_dims=1)


def test_transpose():
    op = torch.transpose
    same(lambda x: op(x, 0, 1), (torch.rand(B0, 2, 5),))
    same(lambda x: op(x, -1, -2), (torch.rand(B0, 2, 5),))
    same(lambda x: op(x, 3, 1), (torch.rand(B0, 2, 5, 4, 6),))
    same(lambda x: op(x, 1, 0), (torch.rand(2, B0, 5),), in_dims=1)


def test_transpose_of_scalars():
    # transpose of per-example 0-d tensors: the tensor itself
    for dim1, dim2 in itertools.product([0, -1], [0, -1]):
        x = torch.rand(B0)
        assert vmap(torch.transpose, (0, None, None))(x, dim1, dim2) is x
        same(torch.transpose, (x, dim1, dim2), in_dims=(0, None, None))


def test_t():
    same(torch.t, (torch.rand(B0, 2, 5),))
    same(torch.t, (torch.rand(2, B0, 5),), in_dims=1)


def test_T_numpy():
    def op(t):
        return t.T
    same(op, (torch.rand(B0, 2, 3, 5),))
    same(op, (torch.rand(2, B0, 3, 5),), in_dims=1)


def test_to():
    same(lambda t: t.to('cpu'), (torch.rand(B0),))
    same(lambda t: t.to(torch.double), (torch.rand(B0),))
    same(lambda t, o: t.to(o), (torch.rand(B0), torch.randn(B0, dtype=torch.float64)))
    same(lambda t, o: t.to(o), (torch.rand(B0), torch.randn(B0, dtype=torch.float64)),
         in_dims=(0, None))
    same(lambda t: t.double(), (torch.rand(B0),))
    same(lambda t: t.float(), (torch.rand(B0),))
    same(lambda t: t.int(), (torch.rand(B0),), grad=False)
    same(lambda t: t.long(), (torch.rand(B0),), grad=False)


def test_unfold():
    op = Tensor.unfold
    same(op, (torch.rand(3, 7, 11), 0, 2, 1), in_dims=(0, None, None, None))
    same(op, (torch.rand(7, 3, 11), 1, 4, 2), in_dims=(1, None, None, None))


def test_unbind():
    op = torch.unbind
    same(op, (torch.rand(B0, 2, 1024), -1), in_dims=(0, None))
    same(op, (torch.rand(2, B0, 7), 0), in_dims=(1, None))


def test_unbind_empty():
    same(torch.unbind, (torch.rand(B0, 2, 0),))


def test_view():
    op = Tensor.view
    with pytest.raises(RuntimeError):
        vmap(lambda t: op(t, 10), in_axes=1)(torch.rand(2, B0, 5))
    same(lambda t: op(t, [2, 5]), (torch.rand(B0, 2 * 5),))
    same(lambda t: op(t, [1, 2, 1, 10]), (torch.rand(B0, 4, 5),))
    same(lambda t: t.view([-1]), (torch.rand(B0, 2, 5, 3),))


def test_view_as():
    op = Tensor.view_as
    with pytest.raises(RuntimeError):
        vmap(op, in_axes=(1, 0))(torch.rand(2, B0, 5), torch.rand(B0, 10))
    same(op, (torch.rand(B0, 2 * 5), torch.rand(B0, 2, 5)))
    same(op, (torch.rand(2 * 5), torch.rand(B0, 2, 5)), in_dims=(None, 0))
    same(op, (torch.rand(B0, 2 * 5), torch.rand(2, 5)), in_dims=(0, None))
    same(op, (torch.rand(B0, 4, 5), torch.rand(2, 1, 1, 10)), in_dims=(0, None))


def conv(fn):
    def op(x, w, b):
        return fn(x, w, b)
    return op


def conv_options(fn):
    def op(x, w, b):
        return fn(x, w, b, groups=2, stride=3, padding=1, dilation=2)
    return op


def conv_no_bias(fn):
    def op(x, w):
        return fn(x, w)
    return op


def test_conv2d():
    # the peer's exhaustive in_dims over (input, weight, bias): the input mapped here;
    # per-example weights: test_conv_per_example_weights
    for mod_t, fn, shape in ((torch.nn.Conv1d, torch.conv1d, [2, 4, 15]),
                             (torch.nn.Conv2d, torch.conv2d, [2, 4, 15, 20])):
        mod = mod_t(4, 8, kernel_size=3)
        x = torch.randn(3, *shape)
        same(conv(fn), (x, mod.weight.detach(), mod.bias.detach()), in_dims=(0, None, None))
        same(conv(fn), (x[:, 0], mod.weight.detach(), mod.bias.detach()),
             in_dims=(0, None, None))
        same(conv_no_bias(fn), (x, mod.weight.detach()), in_dims=(0, None))
        mod2 = mod_t(4, 8, kernel_size=3, groups=2, stride=3, padding=1, dilation=2)
        same(conv_options(fn),
             (x, mod2.weight.detach(), mod2.bias.detach()), in_dims=(0, None, None))


def test_conv_per_example_weights():
    # the peer's exhaustive in_dims over (input, weight, bias) with the weight mapped: one
    # grouped convolution (`groups=len(w)`), one sample or a batch of them per example (in
    # float64: in float32 its sums round differently from the per-example ones, ~1e-6)
    same(conv_no_bias(torch.conv1d), (torch.randn(3, 2, 4, 15), torch.randn(3, 8, 4, 3)))
    for fn, shape, lead, dims in ((torch.conv1d, [4, 15], [2], (0, 0, 0)),
                                  (torch.conv2d, [4, 9, 8], [], (None, 0, None)),
                                  (torch.conv1d, [4, 15], [], (0, None, 0))):
        k = [3] * (len(shape) - 1)
        x = torch.randn(*([3] if dims[0] == 0 else []), *lead, *shape).double()
        w = torch.randn(*([3] if dims[1] == 0 else []), 8, 4, *k).double()
        b = torch.randn(*([3] if dims[2] == 0 else []), 8).double()
        same(conv(fn), (x, w, b), in_dims=dims)
    w2 = torch.randn(3, 8, 2, 3).double()
    same(conv_options(torch.conv1d), (torch.randn(3, 4, 15).double(), w2,
                                      torch.randn(3, 8).double()), in_dims=(0, 0, 0))


def test_one_hot():
    same(lambda k: F.one_hot(k, 3), (torch.randint(0, 3, [5]),))
    same(lambda k: F.one_hot(k, 4), (torch.randint(0, 3, [5, 2, 3, 4]),))
    refused(lambda k: F.one_hot(k), (torch.randint(0, 3, [5]),), peer_raises=True)


def test_conj_bit():
    x = torch.tensor([1 + 1j, 2 + 1j])

    def foo(x):
        return x.conj()
    same(foo, (x,), grad=False)


def test_mode_key():
    # per-example random draws: torch's randomness='different' (tests/test_torch_random.py)
    out = vmap(lambda x: x + torch.randn(()))(torch.ones(5))
    assert out.shape == (5,) and len(set(out.tolist())) == 5


@pytest.mark.parametrize("in_dim", [0, 1, 2])
@pytest.mark.parametrize("out_dim", [0, 1, 2])
def test_vmap_chunksize(in_dim, out_dim):
    x = torch.randn(4, 5, 6)

    def f(x):
        return x.sin()
    expected = vmap(f, in_axes=in_dim, out_axes=out_dim)(x)
    for chunk_size in (1, 2, 3, 4, 7, 10, 16, 100):
        got = vmap(f, in_axes=in_dim, out_axes=out_dim, chunk_size=chunk_size)(x)
        torch.testing.assert_close(got, expected)
    same(f, (x,), in_dims=in_dim, out_dims=out_dim)


def test_vmap_chunksize_error():
    for chunk_size in (-1, 0):
        with pytest.raises(ValueError):
            vmap(torch.sin, chunk_size=chunk_size)(torch.randn(4, 5, 6))


# ========================================================== TestVmapBatchedGradient


def construct_v(output, batch_size, contig=False):
    if contig:
        return torch.randn(batch_size, *output.shape, dtype=output.dtype)
    return torch.randn(*output.shape, batch_size, dtype=output.dtype).movedim(-1, 0)


def differentiable(args):
    args = args if isinstance(args, (tuple, list)) else (args,)
    return tuple(a for a in args if isinstance(a, Tensor) and a.requires_grad)


def batched_grad(op, args, kwargs=None, output_process_fn=lambda x: x, batch_size=3):
    """The peer's `_batched_grad_test`, its ``vector_jacobian_product(*vectors)`` written
    for one output (``*args``: front end)."""
    outputs = differentiable(output_process_fn(op(*args, **(kwargs or {}))))
    inputs = differentiable(args)
    assert len(outputs) == 1
    out, = outputs
    for contig in (True, False):
        v = construct_v(out, batch_size, contig)

        def vector_jacobian_product(v):
            return torch.autograd.grad(out, inputs, v, retain_graph=True)
        same(vector_jacobian_product, [v], grad=False, signed_zeros=False)


def batched_grad_grad(op, args, kwargs=None, output_process_fn=lambda x: x, batch_size=3):
    """The peer's `_batched_grad_grad_test`: batched vector-Hessian products."""
    outputs = differentiable(output_process_fn(op(*args, **(kwargs or {}))))
    inputs = differentiable(args)
    ones = tuple(torch.ones_like(out) for out in outputs)
    first_grads = differentiable(torch.autograd.grad(outputs, inputs, ones, create_graph=True))
    for g in first_grads:
        for contig in (True, False):
            v = construct_v(g, batch_size, contig)
            same(_hessian_product(g, inputs), [v], grad=False, signed_zeros=False)


def _hessian_product(first_grad, inputs):
    def vector_hessian_product(v):
        # the peer's allow_unused=True, then dropping the Nones: zeros instead
        return torch.autograd.grad(first_grad, inputs, v, retain_graph=True,
                                   materialize_grads=True)
    return vector_hessian_product


def rand_no_zeros(*shape, requires_grad=False):
    return torch.rand(*shape).clamp_min_(0.1).requires_grad_(requires_grad)


def arithmetic(op, grad_grad=True):
    x = torch.randn(2, 3, requires_grad=True)
    y = rand_no_zeros(2, 3, requires_grad=True)
    batched_grad(op, (x, y))
    batched_grad(op, (3.14, y))
    batched_grad(op, (x, 3.14))
    if grad_grad:
        batched_grad_grad(op, (x, y))


@pytest.mark.parametrize("name,op,grad_grad", [
    ("add", torch.add, False), ("sub", torch.sub, False), ("mul", torch.mul, True),
    ("div", torch.div, True)])
def test_batched_arithmetic(name, op, grad_grad):
    arithmetic(op, grad_grad)


def test_binary_cross_entropy():
    x = F.sigmoid(torch.randn(3, 2, requires_grad=True))
    target = torch.rand(3, 2)
    op = functools.partial(F.binary_cross_entropy, target=target)
    batched_grad(op, (x,))
    batched_grad_grad(op, (x,))


def test_log_softmax():
    op = functools.partial(torch.log_softmax, dim=-1)
    x = torch.randn(3, 2, requires_grad=True)
    batched_grad(op, (x,))
    batched_grad_grad(op, (x,))


def test_expand():
    x = torch.randn(2, 3, requires_grad=True)
    batched_grad(lambda x: x.expand(5, 5, 2, 3), (x,))


def test_index():
    x = torch.randn(2, 3, requires_grad=True)
    index = torch.tensor([[0, 0], [1, 1]])

    def op(x):
        y = x * x
        return y[index]
    batched_grad(op, (x,))
    batched_grad_grad(op, (x,))


@pytest.mark.parametrize("name,op,getter", [
    ("lgamma", Tensor.lgamma, torch.randn), ("log", torch.log, rand_no_zeros),
    ("logsumexp", lambda x: torch.logsumexp(x, -1), rand_no_zeros),
    ("log1p", torch.log1p, rand_no_zeros), ("sigmoid", Tensor.sigmoid, torch.randn)])
def test_batched_unary_grad_grad(name, op, getter):
    x = getter(2, 3, requires_grad=True)
    batched_grad(op, (x,))
    batched_grad_grad(op, (x,))


@pytest.mark.parametrize("op", [torch.max, torch.median, torch.min],
                         ids=["max", "median", "min"])
def test_max_median_min(op):
    batched_grad(op, (torch.randn(2, 3, requires_grad=True),))


def test_permute():
    batched_grad(lambda x: x.permute(2, 0, 1), (torch.randn(2, 3, 5, requires_grad=True),))


def test_reshape_grad():
    batched_grad(lambda x: x.reshape([2 * 3, 5]), (torch.randn(2, 3, 5, requires_grad=True),))


def test_stack_grad():
    x = torch.randn(2, 3, requires_grad=True)
    y = torch.randn(2, 3, requires_grad=True)
    batched_grad(lambda x, y: torch.stack([x, y]), (x, y))


def test_select_grad():
    x = torch.randn(2, 3, requires_grad=True)
    batched_grad(lambda x: x[1], (x,))
    batched_grad(lambda x: x.select(1, 2), (x,))
    batched_grad(lambda x: x.select(-1, 0), (x,))


def test_slice_grad():
    x = torch.randn(2, 3, 5, requires_grad=True)
    batched_grad(lambda x: x[0:1], (x,))
    batched_grad(lambda x: x[:, 1:3], (x,))
    batched_grad(lambda x: x[..., 1:3], (x,))


def test_trace_grad():
    batched_grad(Tensor.trace, (torch.randn(2, 3, requires_grad=True),))


def test_where():
    def f(x, y):
        return torch.where(x > 0, x, y)
    same(f, (torch.randn(3, 2), torch.ones(3, 2)))
    # torch.where(c) gives the indices of each example, of a different length on each
    refused(lambda t: torch.where(t), (torch.randint(0, 2, size=(4, 3), dtype=torch.float),),
            peer_raises=True)


def test_threshold():
    batched_grad(lambda x: F.threshold(x, 0.5, 0.0), (torch.randn(2, 3, requires_grad=True),))


def test_inplace_view():
    leaf = torch.randn(4, 5, requires_grad=True)

    def func(leaf):
        base = leaf * leaf
        view = base[0]
        view.cos_()
        return view
    batched_grad(func, (leaf,))
    batched_grad_grad(func, (leaf,))


def test_diagonal_grad():
    batched_grad(lambda x: x.diagonal(1, 0, 1), (torch.randn(4, 5, requires_grad=True),))
    batched_grad(lambda x: x.diagonal(0, -1, -2), (torch.randn(3, 4, 5, requires_grad=True),))


def test_unrelated_output():
    x = torch.randn([], requires_grad=True)
    y = torch.randn([], requires_grad=True)

    def vjp(v):
        res, = torch.autograd.grad(y, x, v, allow_unused=True)
        return torch.zeros_like(x) if res is None else res
    refused(vjp, [torch.randn(3, requires_grad=True)], match="allow_unused")

    def vjp_materialized(v):
        res, = torch.autograd.grad(y, x, v, materialize_grads=True)
        return res
    same(vjp_materialized, [torch.randn(3)], grad=False)


if __name__ == "__main__":
    # ``python tests/peers/test_torch_vmap.py``: pass / refused / wrong / crash per test
    # (refused: a located refusal where PyTorch computes, or an xfail "front end: ...")
    import collections

    class _Count:
        def __init__(self):
            self.outcomes = {}

        def pytest_runtest_logreport(self, report):
            if report.when == "call" or report.outcome != "passed":
                test = report.nodeid
                if hasattr(report, "wasxfail"):
                    self.outcomes[test] = "refused"
                elif report.failed:
                    crash = report.longrepr and "AssertionError" not in str(report.longrepr)
                    self.outcomes.setdefault(test, "crash" if crash else "wrong")
                elif report.when == "call":
                    self.outcomes.setdefault(test, "pass")

    count = _Count()
    pytest.main(["-q", "-p", "no:cacheprovider", __file__], plugins=[count])
    outcomes = dict(count.outcomes)
    refused_tests = set().union(*(getattr(m, "REFUSED", set()) for name, m in
                                  list(sys.modules.items()) if name.endswith("test_torch_vmap")))
    for test in refused_tests:
        if outcomes.get(test) == "pass":
            outcomes[test] = "refused"
    for test, outcome in sorted(outcomes.items()):
        if outcome != "pass":
            print(f"{outcome:8} {test}")
    print(dict(collections.Counter(outcomes.values())), "of", len(outcomes))
    sys.exit(0)
