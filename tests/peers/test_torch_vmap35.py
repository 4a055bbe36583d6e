"""PyTorch's vmap tests that ``test_torch_vmap.py`` and ``test_torch_vmap34.py`` do not port
(``test/functorch/test_vmap.py`` of pytorch/pytorch): the hand-written tests of
``TestVmapOperatorsOpInfo`` (``test_isnan`` ... ``test_vmap_with_anomaly_detection``), the
rest of ``TestVmapAPI``, ``TestVmapOperators``, ``TestVmapBatchedGradient`` and
``TestRandomness``, ``TestTransformFailure`` and ``TestVmapDeviceType``, run by
`vectorize.vmap`. Every test names the peer test it adapts; results are compared with the
per-example loop (`torch_reference.reference`: values, dtypes, result types).

Where PyTorch raises and ours refuses, the refusal is a located `VectorizeError` (the peer's
``assertRaises(RuntimeError)`` cases). Where PyTorch computes and ours refuses, the test
checks the located refusal and is listed in ``REFUSED`` with the reason.

Not ported: ``test_reshape_dim_into`` / ``test_reshape_dim_outof`` (functorch's private C++
helpers), ``test_vmap_escaped_error`` (a BatchedTensor kept after the call: ours hands the
function no such object, and ``nonlocal`` is refused), ``test_conv_double_backward``
(``aten._convolution_double_backward``), ``test_inplace_on_view`` and
``test_jacfwd_with_random`` (``torch.func.vjp`` / ``jacfwd``), ``test_backward_unsupported_
interaction`` and ``test_grad_unsupported_interaction`` (skipped / expected to fail upstream),
``test_vmap_autocast_*`` (CUDA autocast), the OpInfo-driven ``test_op_has_batch_rule`` /
``test_vmap_linalg_failure_1D_input`` over ``op_db`` (``test_torch_vmap_opinfo.py`` runs
the exhaustive one; the 1-D failure is checked here for ``linalg.inv`` and ``multi_dot``).
"""

from __future__ import annotations

import collections
import itertools
import os
import sys

import pytest
import torch
import torch.nn.functional as F
from torch import Tensor

from vectorize import VectorizeError, vmap

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import torch_reference  # noqa: E402
from torch_reference import assert_same, reference  # noqa: E402

_seeded = pytest.fixture(autouse=True)(torch_reference.seeded)


def same(f, args, in_dims=0, out_dims=0):
    """``vmap(f, in_dims, out_dims)(*args)`` equals the per-example loop, and the arguments
    an in-place method changes are changed alike."""
    ref_args = [a.clone() if isinstance(a, Tensor) else a for a in args]
    our_args = [a.clone() if isinstance(a, Tensor) else a for a in args]
    expected = reference(f, ref_args, in_dims, out_dims)
    got = vmap(f, in_dims, out_dims)(*our_args)
    assert_same(got, expected)
    for ours, theirs in zip(our_args, ref_args):
        if isinstance(ours, Tensor):
            assert_same(ours, theirs)
    return got


def refused(f, args, in_dims=0, match=None, **options):
    """A located refusal: a `VectorizeError` at a line of this file."""
    with pytest.raises(VectorizeError, match=match) as info:
        vmap(f, in_dims, **options)(*args)
    assert str(info.value).split(":")[0] == __file__, str(info.value)


def exhaustive_dims(count):
    """The peer's ``generate_vmap_inputs`` dims: every argument at 0, then each at -1, 0 or
    not mapped (not all unmapped)."""
    choices = (0, -1, None)
    for dims in itertools.product(choices, repeat=count):
        if any(d is not None for d in dims):
            yield dims


def batch(t, dim, size=2):
    """``t`` as the batch of ``size`` examples (the second one changed) at ``dim``."""
    stacked = torch.stack([t, t + 1 if t.dtype.is_floating_point else t.flip(0) if t.dim()
                           else t])
    if size != 2:
        stacked = torch.cat([stacked, stacked[:1].expand(size - 2, *t.shape)])
    return stacked if dim == 0 else stacked.movedim(0, -1)


# ====================================================================== TestVmapAPI


def test_vmap_fallback_check_ok():
    # torch.var_mean of each example's 0-d tensor (the peer checks only that it runs:
    # the variance of one number with correction 1 is NaN)
    refused(torch.var_mean, (torch.rand(3),), match="0-d")


def test_inplace_fallback_nary_different_levels():
    op, outplace_op = Tensor.atan2_, torch.atan2
    B0, B1 = 2, 3
    # op(left, right): all of the levels in right are found in left
    x_orig = torch.rand(B0, 7)
    x = x_orig.clone()
    y = torch.rand(7)
    vmap(op, in_dims=(0, None))(x, y)
    torch.testing.assert_close(x, outplace_op(x_orig, y))

    x_orig = torch.rand(B0, B1, 7)
    x = x_orig.clone()
    y = torch.rand(B0, 7)
    vmap(vmap(op, in_dims=(0, None)))(x, y)
    torch.testing.assert_close(x, outplace_op(x_orig, y.view(B0, 1, 7)))

    # op(left, right): some of the levels in right are not found in left (PyTorch raises
    # "is not possible"; ours refuses the write into a tensor shared by every example)
    refused(op, (torch.rand(7), torch.rand(B0, 7)), in_dims=(None, 0), match="shared")
    # nested: the tensor written is not mapped at one level (ours ran the flat call on a
    # copy broadcast along that level: the caller's tensor kept, each example's result
    # computed from the original values, where the loop changes it example after example)
    for inner, outer, x, y in (((0, None), (None, 0), torch.rand(B1, 7), torch.rand(B0, 7)),
                               ((0, None), (None, 1), torch.rand(B1, 7), torch.rand(7, B0)),
                               ((None, 0), 0, torch.rand(B0, 7), torch.rand(B0, B1, 7))):
        x_orig = x.clone()
        with pytest.raises(VectorizeError, match="in place") as info:
            vmap(vmap(op, in_dims=inner), in_dims=outer)(x, y)
        assert str(info.value).startswith(f"{__file__}:"), str(info.value)
        assert torch.equal(x, x_orig)


def test_inplace_nested_written_back():
    # (beyond the peer) a tensor mapped at both levels whose flat form is a copy (the outer
    # axis after the inner one): its in-place change is the caller's, as in the loop
    op = Tensor.atan2_
    x_orig, y = torch.rand(3, 2, 7), torch.rand(2, 7)
    x = x_orig.clone()
    out = vmap(vmap(op, in_dims=(0, None)), in_dims=(1, 0))(x, y)
    xr = x_orig.clone()
    expected = torch.stack([torch.stack([op(xr[j, i], y[i]) for j in range(3)])
                            for i in range(2)])
    torch.testing.assert_close(x, xr)
    torch.testing.assert_close(out, expected)
    assert not torch.equal(x, x_orig)


def test_restore_vmap_no_vmapped_inputs():
    # the peer's restore_vmap with every in_dim None: the function's own result
    def f(x, y, z):
        return x, y * z, z
    x, y, z = torch.randn(3), torch.randn(4), 5
    out = vmap(f, in_dims=(None, None, None), out_dims=(None, None, None), axis_size=2)(
        x, y, z)
    expected = f(x, y, z)
    assert type(out) is tuple and len(out) == 3
    assert torch.equal(out[0], expected[0]) and torch.equal(out[1], expected[1])
    assert out[2] == 5


def test_restore_vmap_unexpanded_outputs():
    # outputs that do not depend on the mapped argument, returned with out_dims None
    def f(x, y):
        return 3 * y, y.sum(), None
    x, y = torch.randn(2, 3), torch.randn(4)
    out = vmap(f, in_dims=(0, None), out_dims=(None, None, None))(x, y)
    expected = f(None, y)
    assert torch.equal(out[0], expected[0]) and torch.equal(out[1], expected[1])
    assert out[2] is None


# ================================================================= TestVmapOperators


def _chunk_fns(x, y):
    """The peer's f, f1, f2, f3 of ``test_vmap_chunksize_composition`` (without draws: its
    randomness='error' variant), with their arguments."""
    def f(x):
        return x.sin()

    def f1(pair):
        x, y = pair
        return x.sin() + y.cos()

    def f2(x):
        y = x.sin()
        return {'out': y, 'out1': y + 2}

    def f3(inp_dict):
        x = inp_dict['inp']
        y = inp_dict['inp1']
        z = x.sin() + y.cos()
        return {'z': z, 'tuple': (z, z + 1)}
    return ((f, (x,)), (f1, ((x, y),)), (f2, (x,)), (f3, ({'inp': x, 'inp1': y},)))


@pytest.mark.parametrize("in_dim", [0, 1])
@pytest.mark.parametrize("out_dim", [0, 1])
def test_vmap_chunksize_composition(in_dim, out_dim):
    x = torch.randn(4, 5, 6)
    y = torch.randn_like(x)
    for fn, args in _chunk_fns(x, y):
        expected = vmap(vmap(fn, in_dims=in_dim, out_dims=out_dim), in_dims=in_dim,
                        out_dims=out_dim)(*args)
        for chunk_size in (1, 2, 3, 4, 7, 10, 16, 100):
            actual = vmap(vmap(fn, in_dims=in_dim, out_dims=out_dim, chunk_size=chunk_size),
                          in_dims=in_dim, out_dims=out_dim, chunk_size=chunk_size)(*args)
            torch.testing.assert_close(actual, expected)


@pytest.mark.parametrize("in_dim", [0, 1, 2])
@pytest.mark.parametrize("out_dim", [0, 1, 2])
def test_chunk_vmap(in_dim, out_dim):
    # functorch.experimental.chunk_vmap(chunks=n) is vmap with chunk_size ceil(size / n)
    x = torch.randn(4, 5, 6)

    def f(x):
        return x.sin()
    expected = vmap(f, in_dims=in_dim, out_dims=out_dim)(x)
    torch.testing.assert_close(expected, x.movedim(in_dim, 0).sin().movedim(0, out_dim))
    size = x.shape[in_dim]
    for chunks in (1, 2, 3, 4, 7, 10, 16):
        chunk_size = -(-size // chunks)
        output = vmap(f, in_dims=in_dim, out_dims=out_dim, chunk_size=chunk_size)(x)
        torch.testing.assert_close(output, expected)


# ========================================================== TestVmapBatchedGradient


def test_inplace_manyview():
    leaf = torch.randn(4, 4, 5, requires_grad=True)

    def func(leaf):
        base = leaf * leaf
        view = base.transpose(0, 2)
        view = view[1]
        view = view.diagonal()
        view = view[::2]
        view.cos_()
        return view
    out = func(leaf)
    for contig in (True, False):
        v = torch.randn(3, *out.shape) if contig else torch.randn(*out.shape, 3).movedim(-1, 0)

        def vector_jacobian_product(v):
            return torch.autograd.grad(out, leaf, v, retain_graph=True)
        same(vector_jacobian_product, (v,))


def test_unrelated_output_multiple_grad():
    x = torch.randn([], requires_grad=True)
    y = torch.randn([], requires_grad=True)
    gy = torch.randn(3, requires_grad=True)

    def vjp(v):
        res, = torch.autograd.grad(y, x, v, allow_unused=True)
        return torch.zeros_like(x) if res is None else res
    _ = vjp(gy[0])
    refused(vjp, (gy,), match="allow_unused")

    def vjp_materialized(v):
        res, = torch.autograd.grad(y, x, v, materialize_grads=True)
        return res
    assert torch.equal(vmap(vjp_materialized)(gy.detach()), torch.zeros(3))


# ========================================================= TestVmapOperatorsOpInfo


def test_slogdet():
    same(torch.slogdet, (torch.randn(2, 5, 5),))


def svd_reduced(a):
    return torch.linalg.svd(a, full_matrices=False)


def svd_full(a):
    return torch.linalg.svd(a, full_matrices=True)


def test_linalg_svd():
    # the peer compares U @ diag(S) @ Vh (the factors are not unique); here the factors
    # themselves equal the loop's too (the batched call factors each matrix alike)
    def compute_A(out):
        U, S, Vh = out
        return (U * S.unsqueeze(-2)) @ Vh
    for x, svd in ((torch.randn(3, 4, 5), svd_reduced), (torch.randn(3, 5, 4), svd_full),
                   (torch.randn(2, 3, 4, 4, dtype=torch.float64), svd_full)):
        out = same(svd, (x,))
        assert type(out) is torch.return_types.linalg_svd
        if svd is svd_reduced:
            torch.testing.assert_close(compute_A(out), x)
    same(svd_reduced, (torch.randn(4, 3, 5),), in_dims=1)


def test_linalg_eigh():
    def compute_A(out):
        L, Q = out
        return Q @ torch.diag_embed(L) @ Q.mT.conj()
    a = torch.randn(3, 4, 4)
    a = a + a.mT
    out = same(torch.linalg.eigh, (a,))
    assert type(out) is torch.return_types.linalg_eigh
    torch.testing.assert_close(compute_A(out), a, rtol=1e-4, atol=1e-4)
    same(lambda m: torch.linalg.eigh(m, UPLO="U"), (a,))
    # a vector per example: linalg.eigh raises per example (ours refuses, located)
    with pytest.raises((RuntimeError, VectorizeError)):
        vmap(torch.linalg.eigh)(torch.randn(3, 4))


@pytest.mark.parametrize("case", range(1, 9))
def test_index_fill(case):
    B = 2
    args, in_dims = {
        1: ((torch.randn(B, 5, 5), -2, torch.tensor([[2, 3], [0, 4]]), 5.0),
            (None, None, 0, None)),
        2: ((torch.zeros(B, 3), 0, torch.tensor([[0], [1]]), 1), (0, None, 0, None)),
        3: ((torch.zeros(B, 3), 0, torch.tensor([0, 1]), 1), (0, None, 0, None)),
        4: ((torch.zeros([]), 0, torch.tensor([[0], [0]]), 1), (None, None, 0, None)),
        5: ((torch.zeros([]), 0, torch.tensor([0, 0]), 1), (None, None, 0, None)),
        6: ((torch.zeros(3), 0, torch.tensor([[0], [1]]), 1), (None, None, 0, None)),
        7: ((torch.zeros(3), 0, torch.tensor([0, 1]), 1), (None, None, 0, None)),
        8: ((torch.zeros(B, 3, 3), 0, torch.tensor([0, 1]), 1), (0, None, 0, None)),
    }[case]
    refused(torch.index_fill, args, in_dims, match="index_fill")


def test_fill__Tensor():
    B = 2
    same(Tensor.fill_, (torch.randn(B, 3), torch.randn(B)), in_dims=(0, 0))
    same(Tensor.fill_, (torch.randn(3, B), torch.randn(B)), in_dims=(-1, 0))
    same(Tensor.fill_, (torch.randn(3, B), torch.randn([])), in_dims=(1, None))
    # the peer's vmap_inplace_test: in-place on an unmapped self raises (ours refuses)
    refused(Tensor.fill_, (torch.randn(3), torch.randn(B)), in_dims=(None, 0),
            match="shared")


def test_isnan():
    x = torch.randn(2, 3, 24, 5, 7)
    x[x > 0] = float('nan')
    same(torch.isnan, (x,))


def test_sum_scalar():
    x = torch.tensor([10.])
    for f in (torch.sum, lambda x: x.sum(0), lambda x: x.sum(-1)):
        y = vmap(f)(x)
        assert y.dtype == x.dtype and torch.equal(y, x)


def test_isinf():
    x = torch.randn(2, 3, 24, 5, 7)
    x[x > 0] = float('inf')
    same(torch.isinf, (x,))


@pytest.mark.parametrize("op", [torch.ones_like, torch.zeros_like],
                         ids=["ones_like", "zeros_like"])
def test_foo_like(op):
    same(op, (torch.randn(2, 3, 24, 5, 7),))


def test_flatten():
    same(torch.flatten, (torch.randn(2, 3, 4, 5), 1, 2), in_dims=(0, None, None))


def test_group_norm():
    x = torch.randn(2, 3, 24, 5, 7)
    same(F.group_norm, (x, 3, torch.randn(24), torch.randn(24)),
         in_dims=(0, None, None, None))
    # per-example weight and bias
    refused(F.group_norm, (x, 4, torch.randn(2, 24), torch.randn(2, 24)),
            in_dims=(0, None, 0, 0), match="group_norm")


def _put(x, y, z):
    x[y] = z
    return x


def test_index_put():
    # the peer writes into each example's row of the caller's tensor; ours refuses writes
    # into an argument (docs/semantics.md: a copy is made explicitly, `x = x.clone()`)
    x = torch.randn(3, 4, 5)
    y = torch.zeros((3, 2)).long()
    z = torch.randn(3, 2, 5)
    refused(_put, (x, y, z), in_dims=(0, 0, 0), match="did not create")

    def put_copy(x, y, z):
        x = x.clone()
        x[y] = z
        return x
    for in_dims in ((0, 0, 0), (0, None, None), (0, None, 0), (0, 0, None)):
        args = [x, y if in_dims[1] == 0 else y[0], z if in_dims[2] == 0 else z[0]]
        same(put_copy, args, in_dims=in_dims)


def test_torch_return_types_returns():
    t = torch.randn(3, 2, 2)
    assert isinstance(vmap(torch.min, (0, None))(t, 0), torch.return_types.min)
    assert isinstance(vmap(torch.max, (0, None))(t, 0), torch.return_types.max)
    assert isinstance(vmap(torch.topk, (0, None, None))(t, 1, 0), torch.return_types.topk)
    assert isinstance(vmap(torch.linalg.eig, (0))(t), torch.return_types.linalg_eig)
    same(torch.linalg.eig, (t,))


def test_torch_return_types_values():
    # (beyond the peer) the struct sequence's fields, values and types, against the loop, at
    # out_dims 1 and over an empty batch; a tuple out_dims names its items
    t = torch.randn(3, 4, 5)
    for op, args, in_dims in ((torch.min, (t, 1), (0, None)),
                              (torch.sort, (t, -1), (0, None)),
                              (torch.topk, (t, 2, 0), (0, None, None))):
        for out_dims in (0, 1, (1, 0)):
            got = same(op, args, in_dims=in_dims, out_dims=out_dims)
            assert type(got) is type(op(*[a[0] if d == 0 else a for a, d in
                                          zip(args, in_dims)]))
            assert got.values is got[0] and got.indices is got[1]
    empty = vmap(torch.max, (0, None))(torch.randn(0, 2, 2), 0)
    assert type(empty) is torch.return_types.max and empty.values.shape == (0, 2)


def test_namedtuple_returns():
    Point = collections.namedtuple('Point', ['x', 'y'])

    def f(x, y):
        return Point(x=x, y=y)
    x, y = torch.randn(2, 5), torch.randn(2, 3)
    out = vmap(f)(x, y)
    assert isinstance(out, Point) and torch.equal(out.x, x) and torch.equal(out.y, y)


def test_batch_norm():
    x = torch.randn(10, 32, 3, 16, 16)
    mean, var = torch.randn(10, 3), torch.rand(10, 3) + 0.5

    def op(inp, running_mean, running_var):
        return F.batch_norm(inp, running_mean, running_var, None, None, False)
    refused(op, (x, mean, var), match="batch_norm")


def _adv_f(x, idx):
    return x[:, idx]


def _adv_f2(x, idx):
    return x[idx, :]


def _adv_f3(x, idx):
    return x[:, :, idx]


@pytest.mark.parametrize("f", [_adv_f, _adv_f2, _adv_f3], ids=["f", "f2", "f3"])
def test_advanced_indexing(f):
    # every choice of dims of get_fallback_and_vmap_exhaustive: an index array the same for
    # every example passes; a per-example index array with a slice is refused
    inps = (torch.randn(5, 5, 5), torch.randn(5, 5, 5, 5), torch.randn(5, 5, 5, 5, 5))
    idxes = (torch.tensor([0, 1, 2]), torch.tensor([0, 1, 2]).reshape(3, 1),
             torch.tensor([0, 1, 2]).reshape(3, 1, 1))
    counts = collections.Counter()
    for inp, idx in itertools.product(inps, idxes):
        for dims in exhaustive_dims(2):
            x = inp[0] if dims[0] is None else inp.movedim(0, dims[0])
            i = idx if dims[1] is None else batch(idx, dims[1], 5)
            if f is _adv_f3 and x.dim() - (dims[0] is not None) < 3:
                # the loop raises IndexError (too many indices): so does ours, or refuses
                with pytest.raises((IndexError, VectorizeError), match="too many indices"):
                    vmap(f, in_dims=dims)(x, i)
                counts["raises"] += 1
                continue
            try:
                same(f, (x, i), in_dims=dims)
                counts["pass"] += 1
            except VectorizeError as exc:
                assert dims[1] is not None and "index arrays" in str(exc), str(exc)
                counts["refused"] += 1
    # refused: the 4 choices where both are mapped; the 4 others pass
    assert counts["pass"] == counts["refused"] == (24 if f is _adv_f3 else 36), counts


def test_nested_advanced_indexing():
    e = torch.rand(7, 4)
    idx = torch.tensor([0, 1]).view(2, 1)

    def _fake_vmap(f, in_dims=0, out_dims=0):
        def w(input):
            r = [f(input.select(in_dims, i)) for i in range(input.size(in_dims))]
            return torch.stack(r, out_dims)
        return w

    def with_vmap(_vmap):
        def g(idx_):
            def f(e_):
                return e_[idx_]
            return _vmap(f, in_dims=1)(e)
        return _vmap(g)(idx)
    b = with_vmap(_fake_vmap)
    assert b.shape == (2, 4, 1)
    # a lambda or nested function mapped inside the function is inlined only where it is
    # called (docs/semantics.md, "A lambda mapped inside the function")
    with pytest.raises(VectorizeError, match="nested function"):
        with_vmap(vmap)


def test_vmap_linalg_failure_1D_input():
    # the peer's loop over linalg OpInfos, for linalg.inv: a 1-D example raises
    x = torch.randn(3, 3)
    with pytest.raises(RuntimeError, match="dimension"):
        torch.linalg.inv(x[0])
    with pytest.raises((RuntimeError, VectorizeError), match="dimension"):
        vmap(torch.linalg.inv)(x)


def test_vmap_multi_dot_failure_1D_input():
    inputs = (torch.randn(3, 3), torch.randn(3), torch.randn(3, 3))
    with pytest.raises(RuntimeError, match="tensor 1 must be 2D but got 1D"):
        torch.linalg.multi_dot(inputs)
    inputs = tuple(i.expand(i.shape[0], i.shape[0]) for i in inputs)
    with pytest.raises((RuntimeError, VectorizeError)):
        vmap(torch.linalg.multi_dot)(inputs)


def test_vmap_with_anomaly_detection():
    from torch.func import grad
    with torch.autograd.set_detect_anomaly(True):
        x = torch.zeros(3) - 1

        def fn(x):
            return x.sum()
        per_sample_grad = vmap(grad(fn))(x)
        assert torch.equal(per_sample_grad, torch.ones_like(x))

        def bad_fn(x):
            return x.sqrt().sum()
        with pytest.raises(RuntimeError, match="SqrtBackward0' returned nan"):
            vmap(grad(bad_fn))(x)


# ================================================================== TestRandomness


def _image(where, B0=4):
    return {"first": torch.ones(B0, 3, 3, 14, 14), "last": torch.ones(3, 3, 14, 14, B0),
            "none": torch.ones(3, 3, 14, 14)}[where]


def _in_dims(*where):
    return tuple({"first": 0, "last": -1, "none": None}[w] for w in where) + (0,)


@pytest.mark.parametrize("batched_input", ["first", "last", "none"])
@pytest.mark.parametrize("op", [
    lambda t, ignored: F.alpha_dropout(torch.ones_like(t), training=True),
    lambda t, ignored: F.dropout2d(torch.ones_like(t), training=True),
    lambda t, ignored: F.dropout3d(torch.ones_like(t).unsqueeze(-1), training=True),
    lambda t, ignored: F.feature_alpha_dropout(torch.ones_like(t).unsqueeze(-1),
                                               training=True),
], ids=["test_alpha_dropout", "test_feature_dropout[2]", "test_feature_dropout[3]",
        "test_feature_alpha_dropout"])
def test_dropout_family(op, batched_input):
    refused(op, (_image(batched_input), torch.randn(4)), in_dims=_in_dims(batched_input),
            match="draws random numbers")


@pytest.mark.parametrize("batched_input", ["first", "last"])
def test_bernoulli_in_place(batched_input):
    def op(t, p, ignored):
        return t.bernoulli_(p)
    refused(op, (_image(batched_input), _image("none") - 0.5, torch.randn(4)),
            in_dims=_in_dims(batched_input, "none"), match="bernoulli_")


@pytest.mark.parametrize("in_dim", [0, 1, 2])
@pytest.mark.parametrize("out_dim", [0, 1, 2])
def test_chunk_vmap_randomness(in_dim, out_dim):
    # TestRandomness.test_chunk_vmap: randomness="different" in chunks, every slice unique
    x = torch.randn(4, 5, 6)

    def f(x):
        return x.sin() + torch.rand_like(x)
    size = x.shape[in_dim]
    for chunks in (1, 2, 3, 4, 7, 10, 16):
        out = vmap(f, in_dims=in_dim, out_dims=out_dim, chunk_size=-(-size // chunks))(x)
        flat = out.movedim(out_dim, 0).reshape(size, -1)
        for i, j in itertools.combinations(range(size), 2):
            assert not torch.equal(flat[i], flat[j])
        lo = x.movedim(in_dim, 0).sin().movedim(0, out_dim)
        assert bool(((out >= lo) & (out <= lo + 1)).all())


# ============================================================ TestTransformFailure


def test_fails_with_autograd_function():
    class Test(torch.autograd.Function):
        @staticmethod
        def forward(_, input):
            return input

        @staticmethod
        def backward(_, grad_input):
            return grad_input

    def f(x):
        return Test.apply(x)
    # PyTorch raises RuntimeError ("autograd.Function"); ours refuses, located
    refused(f, (torch.randn(5),), match="apply")


# ============================================================== TestVmapDeviceType


def test__is_all_true():
    # aten._is_all_true has no rule (refused); its public spelling torch.all is batched
    refused(lambda x: torch.ops.aten._is_all_true(x), (torch.rand(4, 10) >= 0,))
    x = torch.rand(10)
    same(torch.all, ((x >= 0).view(2, 5),))
    same(torch.all, ((x < 0).view(2, 5),))
    x[3] *= -1
    same(torch.all, ((x >= 0).view(2, 5),))
    same(torch.all, ((x < 0).view(2, 5),))


def test__is_any_true():
    x = torch.zeros(10, dtype=torch.bool)
    same(torch.any, ((x > 0).view(2, 5),))
    x[5] = True
    same(torch.any, ((x > 0).view(2, 5),))
    same(torch.any, (x[1::2].view(1, 5),))
    same(torch.any, (x[0::2].view(1, 5),))


@pytest.mark.parametrize("size", [(1,), (10,), (1, 1), (1, 10), (10, 1), (10, 10),
                                  (1, 1, 1), (10, 1, 1), (1, 10, 1), (10, 10, 10)])
def test_check_tensor(size):
    # torch._test_check_tensor raises RuntimeError where the test fails on any element; the
    # per-example check written in Python raises per example, as the loop does
    def check_gte_0(t):
        assert bool((t >= 0).all()), "Test message for TORCH_CHECK_TENSOR_ALL"
        return t
    t_all_gte_0 = torch.rand(size)
    same(check_gte_0, (t_all_gte_0,))
    if len(size) >= 2:
        vmap(vmap(check_gte_0))(t_all_gte_0)
    with pytest.raises(AssertionError, match="TORCH_CHECK_TENSOR_ALL"):
        vmap(check_gte_0)(t_all_gte_0 - 1)
    if len(size) >= 2:
        with pytest.raises(AssertionError, match="TORCH_CHECK_TENSOR_ALL"):
            vmap(vmap(check_gte_0))(t_all_gte_0 - 1)
    if t_all_gte_0.numel() > 1:
        but_one = t_all_gte_0.clone()
        but_one[(..., *[n - 1 for n in size])] = -1
        with pytest.raises(AssertionError, match="TORCH_CHECK_TENSOR_ALL"):
            vmap(check_gte_0)(but_one)


# the peer's tests where PyTorch computes and ours refuses (some of their cases), and why
REFUSED = {
    "test_vmap_fallback_check_ok": "var_mean of each example's 0-d tensor (all its dims)",
    "test_unrelated_output_multiple_grad": "autograd.grad(allow_unused=True): whether a "
                                           "gradient is None is not known before it runs",
    "test_index_fill": "torch.index_fill has no batching rule",
    "test_group_norm": "F.group_norm with per-example weights",
    "test_index_put": "a write into the caller's argument (a copy made first passes)",
    "test_batch_norm": "F.batch_norm has no batching rule",
    "test_advanced_indexing": "a per-example index array mixed with slices",
    "test_nested_advanced_indexing": "a nested function mapped (not called) inside",
    "test_dropout_family": "the dropout family in training mode has no per-example rule",
    "test_bernoulli_in_place": "in-place random methods",
    "test__is_all_true": "aten._is_all_true has no rule (torch.all passes)",
}
