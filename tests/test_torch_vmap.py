"""``vmap`` on tensors: axes, dtypes as PyTorch gives them, refusals, large batches, and the
divergences docs/semantics.md lists (each asserted as it is)."""

from __future__ import annotations

import math

import pytest
import torch
from torch_reference import check, reference

from vectorize import VectorizeError, vmap


def seed_func(t, b):
    tmp = t * b
    if tmp > 5:
        root = t * b
    else:
        root = -t
    return root


def row_stats(m):
    return m.sum(dim=0), m.amax(dim=1)


def scaled_rows(m, s):
    return m * s + 1


def pair_sum(p):
    a, b = p
    return a * 2 + b


# ------------------------------------------------------------------------------ axes
@pytest.mark.parametrize("in_axes,shape", [(0, (5, 3, 4)), (1, (3, 5, 4)), (2, (3, 4, 5)),
                                           (-1, (3, 4, 5))])
@pytest.mark.parametrize("out_axes", [0, 1, -1])
def test_in_axes_out_axes(in_axes, shape, out_axes):
    m = torch.randn(shape)
    check(row_stats, m, in_axes=in_axes, out_axes=out_axes)


@pytest.mark.parametrize("out_axes", [(0, 1), (1, 0), (-1, 0)])
def test_tuple_out_axes(out_axes):
    check(row_stats, torch.randn(4, 3, 5), out_axes=out_axes)


def test_in_axes_none_and_transposed_argument():
    m = torch.randn(3, 6)      # examples along axis 1
    s = torch.tensor(2.5, dtype=torch.float64)
    check(scaled_rows, m, s, in_axes=(1, None))
    check(seed_func, torch.linspace(-8, 8, 11), torch.tensor(1.5), in_axes=(0, None))


def test_tuple_argument():
    a, b = torch.randn(5), torch.randn(5)
    got = vmap(pair_sum, in_axes=((0, 0),))((a, b))
    assert torch.equal(got, a * 2 + b)


def test_mapped_output_with_out_axes_none_raises():
    with pytest.raises(ValueError, match="out_axes is None"):
        vmap(seed_func, out_axes=None)(torch.randn(4), torch.randn(4))


def test_unbatched_result_is_broadcast_on_the_arguments_device_and_keeps_grad():
    s = torch.tensor([1.0, 2.0], requires_grad=True)

    def shared_only(x, s):
        return s * 2

    out = vmap(shared_only, in_axes=(0, None))(torch.randn(4), s)
    assert out.shape == (4, 2)
    out.sum().backward()
    assert torch.equal(s.grad, torch.tensor([8.0, 8.0]))


# ---------------------------------------------------------------------------- dtypes
def int_times_float(k):
    return k * 1.5


def int_division(k, j):
    return k / j


def per_example_times_shared_64(x, s):
    return x * s


def vector_times_per_example_64(v, s):
    return v * s


def float32_times_python_float(y, x):
    return y * float(x)


def python_floats_chosen(x):
    return 1.1 if x > 0 else 2.5


def python_float_result(x):
    return 2.5


def python_float_of_tensor(x):
    return float(x)


@pytest.mark.parametrize("f,args,in_axes,dtype", [
    (int_times_float, (torch.arange(-3, 4),), 0, torch.float32),
    (int_division, (torch.arange(1, 6), torch.tensor([2, 3, 1, 4, 7])), 0, torch.float32),
    # 0-d tensors per example: float64 wins; on the batch the float32 operand has dims
    (per_example_times_shared_64, (torch.randn(5), torch.tensor(1.1, dtype=torch.float64)),
     (0, None), torch.float64),
    # a tensor with dims per example wins over a 0-d float64 one; on the batch both have dims
    (vector_times_per_example_64, (torch.randn(5, 3), torch.randn(5, dtype=torch.float64)),
     0, torch.float32),
    # a Python float yields to the float32 tensor per example
    (float32_times_python_float, (torch.randn(5), torch.randn(5, dtype=torch.float64)), 0,
     torch.float32),
    # per-example Python numbers: float64 on the batch (the Python values exactly)
    (python_floats_chosen, (torch.randn(6),), 0, torch.float64),
    (python_float_result, (torch.randn(6),), 0, torch.float64),
    (python_float_of_tensor, (torch.randn(6),), 0, torch.float64),
])
def test_dtypes_as_pytorch_gives_them(f, args, in_axes, dtype):
    got = check(f, *args, in_axes=in_axes)
    assert got.dtype == dtype


def test_python_floats_keep_their_value():
    """1.1 is not a float32 number: `1.1 if x > 0 else 2.5` is float64 on the batch, so a
    float64 tensor times it is what the per-example code computes."""
    def scaled(x, y):
        return y * (1.1 if x > 0 else 2.5)
    x, y = torch.randn(7), torch.randn(7, dtype=torch.float64)
    got = vmap(scaled)(x, y)
    assert torch.equal(got, reference(scaled, [x, y]))


def carry_from_int(k):
    x = k * 0.5
    while x > 1:
        x = x / 2
    return x


def test_default_dtype_is_part_of_the_specialization():
    f = vmap(carry_from_int)
    k = torch.arange(9)
    assert f(k).dtype == torch.float32
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        assert f(k).dtype == torch.float64
        check(carry_from_int, k)
    finally:
        torch.set_default_dtype(old)
    assert f(k).dtype == torch.float32


# -------------------------------------------------------------------------- refusals
def rounds_tensor(x):
    return round(x)


def truncates_tensor(x):
    return math.trunc(x)


def dot_mixed(a, b):
    return torch.dot(a, b)


def mean_of_int(v):
    return v.mean()


def sin_of_vector(v):
    return math.sin(v)


def squeezes_all(v):
    return v.squeeze()


def rounds_digits(x):
    return round(float(x), 2)


def int_division_in_branch(x, n):
    if x > 0:
        return x + 7 // n
    return x


def grad_of_per_example_output(x):
    y = x * x
    return torch.autograd.grad(y, x)[0]


@pytest.mark.parametrize("f,args,in_axes,message", [
    (rounds_tensor, (torch.randn(4),), 0, "round"),
    (truncates_tensor, (torch.randn(4),), 0, "math.trunc"),
    (dot_mixed, (torch.randn(4, 3), torch.randn(4, 3, dtype=torch.float64)), 0,
     "same dtype"),
    (mean_of_int, (torch.ones(4, 3, dtype=torch.long),), 0, "mean"),
    (sin_of_vector, (torch.randn(4, 3),), 0, "math.sin"),
    (squeezes_all, (torch.randn(4, 3),), 0, "squeeze"),
    (rounds_digits, (torch.randn(4),), 0, "ndigits"),
    (int_division_in_branch, (torch.randn(4), 0), (0, None), "integer divisor"),
    (grad_of_per_example_output, (torch.randn(4),), 0, "per-example outputs"),
])
def test_refused_where_the_per_example_code_raises_or_differs(f, args, in_axes, message):
    with pytest.raises(VectorizeError, match=message) as info:
        vmap(f, in_axes=in_axes)(*args)
    assert f"{f.__code__.co_filename}:" in str(info.value)


# --------------------------------------------------------------- large, repeatedly
def halve_compact(x):
    n = 0
    # vectorize: compact
    while x > 1:
        x = x / 2
        n = n + 1
    return x + n


def halve_select(x):
    n = 0
    # vectorize: select
    while x > 1:
        x = x / 2
        n = n + 1
    return x + n


def branch_compact(x, y):
    # vectorize: compact
    if x > 0:
        z = torch.sqrt(x) * y
    else:
        z = -x
    return z


def branch_select(x, y):
    # vectorize: select
    if x > 0:
        z = torch.sqrt(x) * y
    else:
        z = -x
    return z


@pytest.mark.parametrize("size", [0, 1, 5, 20_000])
def test_compacted_forms_equal_select_forms_on_every_call(size):
    compact_loop, select_loop = vmap(halve_compact), vmap(halve_select)
    compact_if, select_if = vmap(branch_compact), vmap(branch_select)
    generator = torch.Generator().manual_seed(size)
    for _ in range(12 if size >= 20_000 else 3):
        x = torch.randn(size, generator=generator) * 50
        y = torch.randn(size, generator=generator)
        assert torch.equal(compact_loop(x), select_loop(x))
        assert torch.equal(compact_if(x, y), select_if(x, y))
    check(halve_compact, x[:40])
    check(branch_compact, x[:40].abs() + 0.5, y[:40])


# --------------------------------------------------------- documented divergences
def sqrt_where_positive(x):
    if x > 0:
        y = torch.sqrt(x)
    else:
        y = x * 0
    return y


def sqrt_where_positive_compact(x):
    # vectorize: compact
    if x > 0:
        y = torch.sqrt(x)
    else:
        y = x * 0
    return y


def test_gradient_through_a_branch_not_taken_that_makes_nan():
    """docs/semantics.md: the select form computes `torch.sqrt(x)` on every lane; on a lane
    where x <= 0 its gradient is the zero `torch.where` gives the branch not taken divided by
    `2 * sqrt(x)` (NaN or 0), so NaN. The compacted form runs the branch on its lanes only:
    exact."""
    x = torch.tensor([4.0, -1.0, 0.0, 9.0])
    per_example = torch.tensor([0.25, 0.0, 0.0, 1 / 6])
    xs = x.clone().requires_grad_()
    vmap(sqrt_where_positive)(xs).sum().backward()
    assert torch.isnan(xs.grad[1:3]).all()
    assert torch.allclose(xs.grad[[0, 3]], per_example[[0, 3]])
    xc = x.clone().requires_grad_()
    vmap(sqrt_where_positive_compact)(xc).sum().backward()
    assert torch.allclose(xc.grad, per_example)


def float_detached(x):
    return float(x) * x


def test_python_numbers_carry_no_gradient_as_per_example():
    """`float(x)` is a Python number per example: the gradient flows through the other
    factor only, on the batch too."""
    x = torch.tensor([1.0, 2.0, -3.0], requires_grad=True)
    vmap(float_detached)(x).sum().backward()
    assert torch.equal(x.grad, torch.tensor([1.0, 2.0, -3.0]))


def test_pytorch_kernels_differ_between_0d_and_vectorized_paths():
    """docs/semantics.md: PyTorch's own kernels, not the engine: the vectorized loop of
    `torch.maximum` / `clamp` (and so `relu`) picks the other zero of `-0.0` and `0.0` than
    the 0-d path, and `F.gelu(inf)` is NaN in the vectorized loop, inf on a 0-d tensor."""
    neg, pos = torch.full((20,), -0.0), torch.zeros(20)
    batched = torch.signbit(torch.maximum(neg, pos))
    per_example = torch.stack([torch.signbit(torch.maximum(a, b)) for a, b in zip(neg, pos)])
    assert not torch.equal(batched, per_example)
    inf = torch.full((20,), float("inf"))
    assert torch.isnan(torch.nn.functional.gelu(inf)[:16]).all()
    assert torch.nn.functional.gelu(inf[0]) == float("inf")
