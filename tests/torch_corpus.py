"""Per-example PyTorch functions, one or more per rule family of the torch tables.

Each `Case` names a function and its arguments: for each, the kind of values (``"f"``: a
float dtype, ``"i"``: int64, ``"b"``: bool, ``"k"``: int64 indices into the last argument's
per-example vector), the per-example shape, and whether it is mapped (``in_axes`` 0) or the
same for every example (``None``). ``special``: the values may be NaN, inf and signed zeros
(else finite, of moderate size: loops must end, ``exp`` must not overflow). ``grad``: the
gradients are compared too (False where a branch the lane does not take makes NaN or inf on
finite inputs: the select form's gradient differs there, docs/semantics.md).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F


@dataclass
class Arg:
    kind: str                   # "f", "i", "b", "k"
    shape: tuple = ()
    mapped: bool = True


@dataclass
class Case:
    f: object
    args: list
    special: bool = True
    grad: bool = True
    floats: tuple = (torch.float32, torch.float64)
    joins: bool = False     # branches of different dtypes (`torch_reference.assert_same`)
    signed_zeros: bool = True   # False: PyTorch's own kernels differ (clamp, maximum...)
    mixed: bool = True      # also float32 with float64 (False: the per-example code raises,
    #                         or rounds float32 lanes of a join on their own: refused,
    #                         tests/test_torch29.py)
    extra: dict = field(default_factory=dict)     # vmap keywords

    @property
    def id(self):
        return self.f.__name__


A = Arg


def S(kind, shape=()):
    return Arg(kind, shape, mapped=False)


SHARED_64 = torch.tensor(1.25, dtype=torch.float64)
WEIGHTS = torch.linspace(-1.0, 1.0, 4)


# ------------------------------------------------------------------ operators, boolean
def arithmetic(x, y):
    return x * y + x / (y * y + 1) - x ** 2 + 3.0 * y - 1


def floor_mod(x, y):
    return x // 3 + x % 2.5 + y % -1.5


def int_ops(k, j):
    return k * 3 - j // 2 + k % 3 + (k ** 2) * j


def int_true_division(k, j):
    return k / (j * j + 1) + k * 0.5


def comparisons(x, y):
    return (x < y) | (x >= 2 * y) & ~(x == y) ^ (x != 0)


def chained(x, y):
    return 0 < x <= y < 5


def boolean_ops(x, y):
    return (x > 0 and y > 0) or not (x < -1)


def and_or_values(x, y):
    return (x and y) + (x or y)


def int_and_or(k, j):
    return (k and j) - (k or 7)


def not_value(x):
    return not x


def ternary(x, y):
    return x * 2 if x > y else y - 1


def ternary_python_numbers(x):
    return 1.5 if x > 0 else -2


def ternary_int_float(k):
    return k if k > 0 else 0.5


def bool_arithmetic(a, b):
    return (a > 0) + (b > 0) * 2


# ----------------------------------------------------------- if / elif / early return
def if_elif_return(x, y):
    if x > 1:
        z = x * y
    elif x < -1:
        z = -x
    else:
        return y * 3
    return z + 1


def seed_func(t, b):
    tmp = t * b
    if tmp > 5:
        root = t * b
    else:
        root = -t
    return root


def seed_func_2(t, b):
    return torch.where((t > 5.), t * b, -t)


def if_promotes(x):
    y = 0
    if x > 1:
        y = x
    return y


def if_compact(x, y):
    z = x
    # vectorize: compact
    if x > 0:
        z = x * y + 1
    elif x < -2:
        z = y - x
    return z * 2


def nested_return(x):
    if x > 0:
        if x > 3:
            return x - 3
        return x * x
    return -x


def if_int_carry(k):
    y = k * 0.5
    if k > 2:
        y = y * 3
    return y


# ---------------------------------------------------------------------------- loops
def while_halving(x):
    n = 0
    while x > 1:
        x = x / 2
        n += 1
    return x, n


def while_compact(x):
    n = 0
    # vectorize: compact
    while x > 1:
        x = x / 2
        n = n + 1
    return x + n


def while_select(x):
    # vectorize: select
    while x > 1:
        x = x * 0.75
    return x


def for_break_continue(x):
    s = x * 0
    for _ in range(8):
        if s > 3:
            break
        if x < 0:
            continue
        s = s + x
    return s


def for_return(x):
    for _ in range(5):
        x = x * 1.5
        if x > 4:
            return x
    return -x


def for_per_example_range(k, x):
    s = x * 0
    for i in range(k):
        s = s + x * i
    return s


def int_carry_promoted(k):
    x = k * 0.5
    while x > 1:
        x = x / 2
    return x


def for_compact_break(x):
    s = x
    # vectorize: compact
    for _ in range(20):
        if s > 50:
            break
        s = s * 2 + 1
    return s


# ------------------------------------------------------------------------- indexing
def index_constant(v):
    return v[0] + v[-1] * 2 + v[1:3].sum()


def index_gather(v, k):
    return v[k] * 2 + v[0]


def index_matrix(m, k):
    return m[k, 1] + m[0][k]


def index_shared(k, table):
    return table[k] + 1


# -------------------------------------------------------------- torch elementwise
def elementwise_functions(x):
    return torch.sin(x) + x.exp() * 0.1 + torch.tanh(x).abs() + x.sigmoid() + torch.atan(x)


def elementwise_binary(x, y):
    return torch.maximum(x, y) + torch.atan2(x, y) + torch.hypot(x, y) - torch.minimum(x, y * 0.5)


def elementwise_methods(x, y):
    return x.clamp(min=-1.0, max=2.0) + y.abs().sqrt() + x.mul(y).add(1)


def clamp_per_example(x, lo):
    return torch.clamp(x, min=lo)


def where_scalars(x):
    return torch.where(x > 0, 1.0, 0) + torch.where(x < 1, x, 2.5)


def nan_functions(x):
    return torch.nan_to_num(x, nan=0.0, posinf=9.0, neginf=-9.0) + torch.isnan(x).float()


def like_functions(v):
    return torch.zeros_like(v) + torch.ones_like(v) * v + torch.full_like(v, 2.0)


# --------------------------------------------------------------------- activations
def activations(x):
    return F.relu(x) + F.softplus(x) + F.silu(x) + F.elu(x) + F.leaky_relu(x, 0.1) + x.relu()


def activations_smooth(x):
    return F.gelu(x) + F.sigmoid(x) + F.tanh(x) + F.softsign(x) + F.hardtanh(x)


# ----------------------------------------------------------------------- reductions
def reductions(v):
    return v.sum() + torch.mean(v) + v.amax() - torch.amin(v) + v.prod() + v.max()


def reductions_dim(m):
    return m.sum(dim=0).sum() + m.mean(1, keepdim=True).squeeze(1) + torch.amax(m, dim=-1)


def reductions_keepdim(m):
    return m - m.mean(dim=1, keepdim=True) + torch.logsumexp(m, dim=0).sum()


def reductions_int(kv):
    return kv.sum() + (kv > 0).sum() + kv.amax(dim=0) + torch.count_nonzero(kv)


def reductions_bool(v):
    return (v > 0).any() | (v < -1).all()


def norm_std(v):
    return v.norm() + v.std() + torch.var(v, dim=0)


# ------------------------------------------------------------------- math, builtins
def math_functions(x):
    return math.sin(x) + math.exp(x) * 0.1 + math.atan2(x, 2.0) + math.hypot(x, 1.0)


def math_times_tensor(x, y):
    return y * math.cos(x) + math.floor(x) + math.ceil(y)


def math_log(x):
    return math.log(x * x + 1) + math.log(x * x + 2, 2) + math.sqrt(abs(x))


def builtins_minmax(x, y):
    return max(x, y) + min(x, 0.5) + abs(x - y) + max(x, y, 1.0)


def builtins_conversions(x):
    return float(x) * 2 + int(x) + bool(x)


def item_numbers(x, k):
    return x.item() * k + k.item()


def round_python_number(x):
    return round(float(x)) + round(float(x) * 3.7) * 2


def pow_builtin(x, k):
    return pow(x, 2) + pow(k, 2)


# ------------------------------------------------------------------------ products
def dot_products(a, b):
    return torch.dot(a, b) + a @ b + a.dot(b) + torch.inner(a, b)


def matrix_vector(m, v):
    return torch.mv(m, v) + m @ v + torch.matmul(m, v)


def matrix_matrix(m, w):
    return torch.mm(m, w) + m @ w.T


def outer_einsum(a, b):
    return torch.outer(a, b) + torch.einsum("i,j->ij", a, b)


def cross_products(u, w):
    return torch.cross(u, w) + torch.linalg.cross(u, w, dim=0) + u.cross(w, dim=-1)


def einsum_contract(m, v):
    return torch.einsum("ij,j->i", m, v)


def model_closure(feature_vec):
    return feature_vec.dot(WEIGHTS).relu()


# ------------------------------------------------------------------ dtype conversions
def conversions(x):
    return x.long() + x.int() + x.double() + x.float() + x.to(torch.float64) + x.bool().long()


def conversions_type_as(x, y):
    return x.type_as(y) * y


def shared_64(x):
    return x * SHARED_64 + x


def mixed_per_example_scalar(v, s):
    return v * s


def mixed_shared_scalar(x, s):
    return x * s + (x > s)


# ----------------------------------------------------------------------- shapes
def shapes(v):
    return v * len(v) + v.shape[0] + v.size(0) + v.numel() + v.dim() + v.ndim


def shape_methods(m):
    v = m.reshape(12)
    return (v.view(3, 4) + m.transpose(0, 1).permute(1, 0) + m.unsqueeze(0).squeeze(0)
            + m.flatten().reshape(3, 4) + m.unsqueeze(-1).sum(dim=-1))


def shapes_matrix(m):
    n, k = m.shape
    return m.sum() * n + m.size(1) * k + m.size()[0] + m.T.sum()


# ---------------------------------------------------------------- helper function
def _helper(x, y):
    if x > y:
        return x - y
    return y * 0.5


def calls_helper(x, y):
    return _helper(x, y) + _helper(y, x)


# ------------------------------------------ the torch tables' dim, shape, nn and func rules
def dim_ops(m):
    parts = torch.chunk(m, 2, 1)
    first = torch.narrow(m, 1, 0, 2) + parts[0]
    return first.movedim(0, 1).cumsum(0) + torch.log_softmax(m, dim=-1)[:, :2].T


def shaped_like(m, v):
    return v.reshape_as(m) * m + v.view_as(m)


def expand_repeat_t(m, v):
    return v.expand(3, 4) + m.repeat(1, 2)[:, :4] + m.t().t()


def trace_of(m):
    return torch.trace(m) + torch.trace(m.T * 2)


def take_items(m, k):
    return torch.take(m, k) + torch.take(m, torch.tensor([0, -1], device=m.device)).sum() \
        + m.take(k * 0)


def take_shared(k, table):
    return torch.take(table, k + 1)


def tile_repeat(v):
    return torch.tile(v, (2, 1)).sum(0) + v.tile(2)[1:4] + torch.repeat_interleave(v, 2)[::2] \
        + v.repeat_interleave(torch.tensor([1, 0, 2], device=v.device))[:1]


def differences(v, w):
    return torch.diff(v, prepend=w) + torch.diff(v, n=2, append=w[:2]).sum() + v.diff()[0]


def sorted_lookup(x, edges):
    return torch.searchsorted(edges, x) + torch.bucketize(x, edges, right=True) \
        + torch.searchsorted(edges, x.reshape(1), side="right")[0]


def join(x, w):
    return torch.cat([x, w]).sum() + torch.stack([x, x * 2])[1]


def transposed_attribute(m):
    return m.mT @ m


def new_tensors(x):
    return x * x.new_ones(3) + x.new_zeros(3) + x.new_full((3,), 0.5)


def dtype_query(x):
    if x.is_floating_point():           # a Python bool: the `if` stays an `if`
        return x * x.is_floating_point() + x.is_complex()
    return x


def pooled_conv(x, w):
    return F.conv1d(x, w) + F.avg_pool1d(x, 3, stride=1)


def trailing_layers(x, w):
    return F.layer_norm(x, (4,)) + F.linear(x, w).sum(-1, keepdim=True) + F.normalize(
        x, dim=-1)


def activation_gradient(x, g):
    return torch.ops.aten.silu_backward(g, x) + torch.ops.aten.tanh_backward(g, x.tanh())


def one_hot_of(k, x):
    return F.one_hot(k.abs(), 4) * x


def class_loss(logits, k):
    return F.cross_entropy(logits, k.abs()) + F.nll_loss(logits.log_softmax(-1), k.abs(),
                                                        reduction="sum")


def determinant(m):
    return torch.linalg.det(m) + torch.linalg.slogdet(m)[1]


def result_type_of(x, k):
    return (k * 2).to(torch.result_type(x, k)) + x


def in_place(x, b):
    y = x * 2
    y.add_(b)
    y.mul_(0.5)
    return y


def row_norm(r):
    return (r * r).sum()


ROW_NORMS = None     # vmap(row_norm), made when vectorize is imported (`_made`)


def nested_vmap(m):
    return ROW_NORMS(m) + m[:, 0]


LINEAR = torch.nn.Linear(4, 2)
F64 = (torch.float64,)     # the cases below run in one float dtype (a quick suite)


def module_call(x):
    h = LINEAR(x)
    if h.sum() > 0:
        return h * 2
    return h - 1


def functional_call_of(x, w):
    return torch.func.functional_call(LINEAR, {"weight": w, "bias": LINEAR.bias}, (x,))


def huber(w, x):
    e = w.dot(x)
    if abs(e) < 1.0:
        return 0.5 * e ** 2
    return abs(e) - 0.5


def grad_inside(x, w):
    g, v = torch.func.grad_and_value(huber)(w, x)
    return g * v


def _made():
    global ROW_NORMS
    from vectorize import vmap
    ROW_NORMS = vmap(row_norm)


_made()


def written_zeros(x):
    """(creation.batched_shape) a tensor made with sizes, written into per example"""
    y = torch.zeros(3)
    y[0] = x
    y[2] = x * 2
    return y


def written_clone(x, w):
    """(creation.repeated) a copy of a shared tensor, written into per example"""
    y = w.clone()
    y[0] = x
    return y * 2


def written_like_argument(x):
    """(array.dtype, array.device) a tensor made with a per-example tensor's dtype and
    device, written into per example"""
    y = torch.zeros(3, dtype=x.dtype, device=x.device)
    y[0] = x
    y[2] = x * 2
    return y


def filled(x):
    # a per-example fill value (its number in PyTorch's default dtype, as per example)
    return torch.full((3,), float(x), dtype=x.dtype, device=x.device) * 2


def made_like_argument(x):
    """(array.dtype, array.device) a tensor the same for every example, made with a
    per-example tensor's dtype and device (no writes)"""
    ones = torch.ones(3, dtype=x.dtype, device=x.device)
    return ones.sum() * x + torch.zeros((), dtype=x.dtype, device=x.device)


def swap_items(v, i, j):
    """(array.scatter) two items of a per-example vector swapped by per-example indices,
    read as copies (per example `v[j]` is a 0-d view: without `.clone()` the first write
    would change what the second one writes, which is refused)"""
    y = v.clone()
    y[i], y[j] = y[j].clone(), y[i].clone()
    return y


CASES = [
    Case(written_zeros, [A("f")]),
    Case(written_like_argument, [A("f")]),
    Case(made_like_argument, [A("f")]),
    Case(filled, [A("f")]),
    Case(swap_items, [A("f", (4,)), A("k"), A("k")]),
    Case(written_clone, [A("f"), S("f", (3,))]),
    Case(arithmetic, [A("f"), A("f")]),
    Case(arithmetic, [A("f"), S("f")]),
    Case(floor_mod, [A("f"), A("f")], grad=False),
    Case(int_ops, [A("i"), A("i")]),
    Case(int_true_division, [A("i"), A("i")]),
    Case(comparisons, [A("f"), A("f")]),
    Case(chained, [A("f"), A("f")]),
    Case(boolean_ops, [A("f"), A("f")]),
    Case(and_or_values, [A("f"), A("f")], joins=True, mixed=False),
    Case(int_and_or, [A("i"), A("i")]),
    Case(not_value, [A("f")]),
    Case(ternary, [A("f"), A("f")], joins=True),
    Case(ternary, [A("f"), S("f")], joins=True),
    Case(ternary_python_numbers, [A("f")], joins=True),
    Case(ternary_int_float, [A("i")], joins=True),
    Case(bool_arithmetic, [A("f"), A("f")]),
    Case(if_elif_return, [A("f"), A("f")], joins=True, mixed=False),
    Case(seed_func, [A("f"), A("f")], joins=True),
    Case(seed_func, [A("f"), S("f")], joins=True),
    Case(seed_func_2, [A("f"), A("f")]),
    Case(if_promotes, [A("f")], joins=True),
    Case(if_promotes, [A("i")], joins=True),
    Case(if_compact, [A("f"), A("f")], joins=True, mixed=False),
    Case(nested_return, [A("f")], joins=True),
    Case(if_int_carry, [A("i")]),
    Case(while_halving, [A("f")], special=False),
    Case(while_compact, [A("f")], special=False),
    Case(while_select, [A("f")], special=False),
    Case(for_break_continue, [A("f")], special=False),
    Case(for_return, [A("f")], special=False),
    Case(for_per_example_range, [A("i"), A("f")], special=False),
    Case(int_carry_promoted, [A("i")], special=False),
    Case(for_compact_break, [A("f")], special=False),
    Case(index_constant, [A("f", (4,))]),
    Case(index_gather, [A("f", (4,)), A("k")]),
    Case(index_matrix, [A("f", (3, 4)), A("k")]),
    Case(index_shared, [A("k"), S("f", (4,))]),
    Case(elementwise_functions, [A("f")], special=False),
    Case(elementwise_binary, [A("f"), A("f")], grad=False, signed_zeros=False),
    Case(elementwise_binary, [A("f"), S("f")], grad=False, signed_zeros=False),
    Case(elementwise_methods, [A("f"), A("f")], grad=False, signed_zeros=False),
    Case(clamp_per_example, [A("f"), A("f")], signed_zeros=False),
    Case(where_scalars, [A("f")], joins=True),
    Case(nan_functions, [A("f")]),
    Case(like_functions, [A("f", (3,))]),
    Case(activations, [A("f")], signed_zeros=False),
    Case(activations_smooth, [A("f")], special=False),
    Case(reductions, [A("f", (3,))], grad=False),
    Case(reductions, [A("f", (3,))], special=False),
    Case(reductions_dim, [A("f", (3, 4))]),
    Case(reductions_keepdim, [A("f", (3, 4))], special=False),
    Case(reductions_int, [A("i", (4,))]),
    Case(reductions_bool, [A("f", (3,))]),
    Case(norm_std, [A("f", (5,))], special=False),
    Case(math_functions, [A("f")], special=False),
    Case(math_times_tensor, [A("f"), A("f")], special=False),
    Case(math_log, [A("f")], special=False),
    Case(builtins_minmax, [A("f"), A("f")], joins=True, mixed=False),
    Case(builtins_conversions, [A("f")], special=False),
    Case(item_numbers, [A("f"), A("i")], special=False),
    Case(round_python_number, [A("f")], special=False),
    Case(pow_builtin, [A("f"), A("i")]),
    Case(dot_products, [A("f", (4,)), A("f", (4,))], mixed=False),
    Case(dot_products, [A("f", (4,)), S("f", (4,))], mixed=False),
    Case(matrix_vector, [A("f", (3, 4)), A("f", (4,))], mixed=False),
    Case(matrix_vector, [S("f", (3, 4)), A("f", (4,))], mixed=False),
    Case(matrix_vector, [A("f", (3, 4)), S("f", (4,))], mixed=False),
    Case(matrix_matrix, [A("f", (3, 4)), A("f", (4, 4))], mixed=False),
    Case(matrix_matrix, [A("f", (3, 4)), S("f", (4, 4))], mixed=False),
    Case(outer_einsum, [A("f", (3,)), A("f", (4,))], mixed=False),
    Case(cross_products, [A("f", (3,)), S("f", (3,))], mixed=False),
    Case(einsum_contract, [A("f", (3, 4)), S("f", (4,))], mixed=False),
    Case(model_closure, [A("f", (4,))], floats=(torch.float32,)),
    Case(conversions, [A("f")], special=False),
    Case(conversions_type_as, [A("i"), A("f")]),
    Case(shared_64, [A("f")]),
    Case(mixed_per_example_scalar, [A("f", (3,)), A("f")]),
    Case(mixed_shared_scalar, [A("f"), S("f")]),
    Case(shapes, [A("f", (4,))]),
    Case(shapes_matrix, [A("f", (3, 4))]),
    Case(shape_methods, [A("f", (3, 4))]),
    Case(calls_helper, [A("f"), A("f")], joins=True),
    Case(dim_ops, [A("f", (3, 4))], floats=F64),
    Case(shaped_like, [A("f", (3, 4)), A("f", (12,))], floats=F64),
    Case(shaped_like, [A("f", (3, 4)), S("f", (12,))], floats=F64),
    Case(expand_repeat_t, [A("f", (3, 4)), A("f", (4,))], floats=F64),
    Case(trace_of, [A("f", (3, 3))], floats=F64),
    Case(take_items, [A("f", (3, 4)), A("k")], floats=F64),
    Case(take_shared, [A("k"), S("f", (2, 2))], floats=F64),
    Case(tile_repeat, [A("f", (3,))], floats=F64),
    Case(differences, [A("f", (4,)), S("f", (3,))], floats=F64),
    Case(differences, [A("f", (4,)), A("f", (3,))], floats=F64),
    Case(sorted_lookup, [A("f"), S("f", (4,))], floats=F64, grad=False),
    Case(join, [A("f", (3,)), S("f", (3,))], floats=F64),
    Case(transposed_attribute, [A("f", (3, 2))], floats=F64),
    Case(new_tensors, [A("f", (3,))], floats=F64),
    Case(dtype_query, [A("f")], floats=F64),
    Case(dtype_query, [A("i")], floats=F64),
    Case(pooled_conv, [A("f", (1, 5)), S("f", (1, 1, 3))], special=False, floats=F64),
    Case(trailing_layers, [A("f", (2, 4)), S("f", (3, 4))], special=False, floats=F64),
    Case(activation_gradient, [A("f", (3,)), A("f", (3,))], special=False, floats=F64,
         grad=False),
    Case(one_hot_of, [A("k", (2,)), A("f")], floats=F64),
    Case(class_loss, [A("f", (3, 4)), A("k", (3,))], special=False, floats=F64),
    Case(determinant, [A("f", (3, 3))], special=False, floats=F64),
    Case(result_type_of, [A("f"), A("i")], floats=F64),
    Case(in_place, [A("f", (3,)), A("f", (3,))], floats=F64),
    Case(in_place, [A("f", (3,)), S("f", (3,))], floats=F64),
    Case(nested_vmap, [A("f", (2, 3))], floats=F64),
    Case(module_call, [A("f", (4,))], special=False, floats=(torch.float32,)),
    Case(grad_inside, [A("f", (3,)), S("f", (3,))], special=False, floats=F64,
         signed_zeros=False),     # a batched product's backward sums zeros as +0.0
    Case(functional_call_of, [A("f", (4,)), A("f", (2, 4))], special=False,
         floats=(torch.float32,)),
]
