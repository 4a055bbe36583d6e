"""The torch rules that PyTorch's exhaustive OpInfo vmap test (`tests/peers/
test_torch_vmap_opinfo.py`) found wrong or refused, each against the per-example loop
(`torch_reference.check`: values with NaN, dtypes, shapes, and the gradients of float
outputs) at N = 0, 1, 5 and a larger batch; the ones that were silently wrong fail before
their fix."""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn.functional as F
from torch_reference import check, reference

from vectorize import VectorizeError, vmap


@pytest.fixture(autouse=True)
def _seeded():
    with torch.random.fork_rng():
        torch.manual_seed(0)
        yield


SIZES = (0, 1, 5, 64)


def _special(x):
    """NaN, infinities, signed zeros and zeros among the values."""
    flat = x.view(-1)
    for i, v in enumerate((float("nan"), float("inf"), -0.0, 0.0, float("-inf"))):
        if i < flat.numel():
            flat[(i * 7) % flat.numel()] = v
    return x


# -------------------------------------------- silently wrong before (regression tests)


def all_of_two_dims(x):
    return torch.all(x, dim=(0, 2))


def any_of_two_dims(x):
    return x.any(dim=(2, 0))


def any_of_two_dims_kept(x):
    return torch.any(x, dim=(-1, 0), keepdim=True)


@pytest.mark.parametrize("f", [all_of_two_dims, any_of_two_dims, any_of_two_dims_kept])
@pytest.mark.parametrize("n", SIZES)
def test_any_all_over_some_dims(f, n):
    # `all`/`any` over two of three per-example dims reduced every dim (the example was
    # flattened): shape (n, 2) for (n, 2, 1) ... ; keepdim=True was refused
    x = torch.randint(0, 2, (n, 3, 2, 4)).bool()
    check(f, x)
    check(f, torch.randn(n, 3, 2, 4) > 0.0)


def count_of_scalar(x):
    return torch.count_nonzero(x)


def norm_of_scalar(x):
    return torch.norm(x)


def std_of_scalar(x):
    return x.std()


def var_of_scalar(x):
    return torch.var(x, correction=0)


def nansum_of_scalar(x):
    return torch.nansum(x)


def sum_of_scalar(x):
    return x.sum() + torch.mean(x)


def nanmean_of_scalar(x):
    return x.nanmean()


@pytest.mark.parametrize("f", [count_of_scalar, norm_of_scalar, std_of_scalar, var_of_scalar,
                               sum_of_scalar, nansum_of_scalar, nanmean_of_scalar])
@pytest.mark.parametrize("n", SIZES)
def test_reductions_of_a_per_example_scalar(f, n):
    # these reductions of a 0-d tensor are not the tensor itself (count_nonzero is 0 or 1,
    # norm the magnitude, std NaN, nansum of NaN 0): the rule returned the tensor
    x = _special(torch.randn(n, dtype=torch.float64) * 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # std of one number: degrees of freedom <= 0
        check(f, x, grad=False)


def norm_p(x):
    return torch.norm(x, 2)


def norm_p_dim(x):
    return x.norm(1, 0, True)


def std_positional(x):
    return torch.std(x, 1, False, True)


def sum_keepdim_positional(x):
    return torch.sum(x, 0, True)


def logsumexp_keepdim_positional(x):
    return torch.logsumexp(x, -1, True)


@pytest.mark.parametrize("f", [norm_p, norm_p_dim, std_positional, sum_keepdim_positional,
                               logsumexp_keepdim_positional])
@pytest.mark.parametrize("n", SIZES)
def test_reduction_arguments_by_position(f, n):
    # `torch.norm(x, 2)`: the 2 is `p`, which was taken as the dim (norm along the last of
    # three dims); keepdim / unbiased by position were refused
    check(f, torch.randn(n, 3, 2, 5, dtype=torch.float64))


def std_unbiased_flag(x):
    return torch.std(x, False) + x.var(True)


@pytest.mark.parametrize("n", SIZES)
def test_std_with_the_flag_by_position(n):
    check(std_unbiased_flag, torch.randn(n, 3, 2, dtype=torch.float64))


def normalize_default(x):
    return F.normalize(x)


def normalize_dim_0(v):
    return F.normalize(v, dim=0)


def normalize_positional(x):
    return F.normalize(x, 1.0, 2) + F.normalize(x, 1.0, -1)


@pytest.mark.parametrize("n", SIZES)
def test_normalize_dims_past_the_batch_dim(n):
    # `F.normalize` was written as it is: its dim (1 by default) counted from the front is a
    # different dim of the batch (`F.normalize(v, dim=0)` normalized across the batch)
    check(normalize_default, torch.randn(n, 3, 5, 2, dtype=torch.float64))
    check(normalize_dim_0, torch.randn(n, 3, dtype=torch.float64))
    check(normalize_positional, torch.randn(n, 3, 5, 2, dtype=torch.float64))


def matrix_norm_front(x):
    return torch.linalg.matrix_norm(x, "fro", (-1, 0), True)


def matrix_norm_nuc(x):
    return torch.linalg.matrix_norm(x, ord="nuc", dim=(1, 0))


@pytest.mark.parametrize("f", [matrix_norm_front, matrix_norm_nuc])
@pytest.mark.parametrize("n", SIZES)
def test_matrix_norm_dims_from_the_front(f, n):
    # `linalg.matrix_norm` with a dim counted from the front was written as it is: dim 0 of
    # the batch is the batch dim (shape (1, n, 1) for (n, 1, 1))
    check(f, torch.randn(n, 3, 4, 2, dtype=torch.float64))


# --------------------------------------------------------------- refused before


def max_with_dim(x):
    values, indices = torch.max(x, 1)
    return values, indices


def min_with_dim_kept(x):
    return x.min(dim=-1, keepdim=True)[0]


def max_of_two(x, y):
    return torch.max(x, y)


def min_of_shared(x):
    return x.min(torch.zeros(3))


@pytest.mark.parametrize("n", SIZES)
def test_max_min_with_a_dim_or_two_tensors(n):
    x, y = _special(torch.randn(n, 2, 3)), torch.randn(n, 2, 3)
    check(max_with_dim, x)
    check(min_with_dim_kept, x)
    check(max_of_two, x, y)
    check(min_of_shared, x)


def cross(a, b):
    return torch.cross(a, b)


def cross_dim(a, b):
    return torch.cross(a, b, dim=0)


def linalg_cross(a, b):
    return torch.linalg.cross(a, b)


@pytest.mark.parametrize("n", SIZES)
def test_cross(n):
    check(cross, torch.randn(n, 2, 3), torch.randn(n, 2, 3))
    check(cross, torch.randn(n, 3, 2), torch.randn(n, 3, 2))
    check(cross_dim, torch.randn(n, 3, 4), torch.randn(n, 3, 4))
    check(linalg_cross, torch.randn(n, 3), torch.randn(n, 3))
    check(cross, torch.randn(3, 3, n), torch.randn(3, 3), in_axes=(2, None))


def test_cross_without_a_dim_follows_the_sizes_of_each_call():
    # the generated code is shared by calls of the same ranks: the first dim of size 3 is
    # read from each call's shape, not from the first call's
    mapped = vmap(cross)
    for shape in ((4, 3, 2), (4, 2, 3), (5, 3, 3)):
        a, b = torch.randn(*shape), torch.randn(*shape)
        got = mapped(a, b)
        expected = reference(cross, [a, b])
        assert got.shape == expected.shape
        torch.testing.assert_close(got, expected)


def clamp_min_in_place(x, v):
    y = x * 2
    torch.clamp_min_(y, v)
    return y


def relu_in_place(x):
    return torch.relu_(x.clone())


@pytest.mark.parametrize("n", SIZES)
def test_in_place_function_forms(n):
    check(clamp_min_in_place, torch.randn(n, 3), torch.randn(n, 3), grad=False)
    check(relu_in_place, torch.randn(n, 3), grad=False)
    x, v = torch.randn(n, 3), torch.randn(n, 3)
    expected = x.clone().clamp_max_(v)
    got = vmap(torch.clamp_max_)(x, v)
    assert torch.equal(got, expected) and torch.equal(x, expected)


def clamp_min_of_a_view(x, v):
    y = x[0]
    torch.clamp_min_(y, v)
    return x


def test_in_place_function_form_of_a_view_is_refused_at_the_call():
    with pytest.raises(VectorizeError) as info:
        vmap(clamp_min_of_a_view)(torch.randn(4, 3), torch.randn(4))
    assert "torch.clamp_min_(y, v)" in str(info.value)


def diff_none_prepend(x):
    return torch.diff(x, 1, -1, None, None)


def diff_append(x):
    return torch.diff(x, append=x[:1] * 2)


@pytest.mark.parametrize("n", SIZES)
def test_diff_with_prepend_none(n):
    # `torch.diff(x, 1, -1, None, None)` (prepend and append given as None) was refused as
    # "a prepend of 0 dims"
    check(diff_none_prepend, torch.randn(n, 5))
    check(diff_append, torch.randn(n, 5))


def pool_with_indices(x):
    return torch.nn.functional.adaptive_max_pool1d(x, 3, True)


def test_pool_with_indices_by_position_is_refused():
    # `return_indices=True` given by position: the batched code called `.unflatten` on the
    # tuple of values and indices (AttributeError, replayed per example with a warning)
    with pytest.raises(VectorizeError, match="return_indices"):
        vmap(pool_with_indices)(torch.randn(2, 4, 3, 8))


def softmaxes_of_a_scalar(x):
    return torch.softmax(x, 0) + F.log_softmax(x, dim=-1) + F.softmin(x, 0, dtype=torch.float64)


def argsort_of_a_scalar(x):
    return x.argsort(dim=0, descending=True)


@pytest.mark.parametrize("n", SIZES)
def test_softmax_and_argsort_along_the_dim_of_a_scalar(n):
    # dim 0 / -1 of a per-example 0-d tensor (PyTorch takes it as a dim of one element) was
    # refused for these
    x = _special(torch.randn(n, dtype=torch.float64))
    check(softmaxes_of_a_scalar, x)
    check(argsort_of_a_scalar, x)
