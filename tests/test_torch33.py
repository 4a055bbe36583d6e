"""PyTorch backend: dicts of numbers looked up by per-example keys (``TABLE[k]``,
``TABLE.get(k, default)``: `backends.torch.lookups`), and items of tables of Python numbers
(``TUP[k]``, ``TABLE[k]``) that are Python numbers per example, weak in what they meet.

The reference is the per-example loop over 0-d tensors (`torch_reference`). The key is a
Python number per example (``int(k)``, ``k.item()``, ``float(x)``): a 0-d tensor hashes by
identity, so per example a dict looked up by the tensor itself finds no key
(``KeyError: tensor(0)``, ``.get`` gives the default): refused, located."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from torch_reference import assert_same, reference  # noqa: E402

from vectorize import VectorizeError, vmap  # noqa: E402

TABLE = {0: 1.5, 1: 2.5, 7: -1.0}
ITAB = {0: 3, 2: -4, 5: 9}
BTAB = {0: True, 1: False, 3: True}
FTAB = {0.5: 2.0, 2: 4.0, -1.0: 8.0}
EMPTY: dict = {}
TUP = (1.5, 2.5, -1.0)


def table_times_two_t33(k):
    return TABLE[int(k)] * 2


def table_get_t33(k):
    return TABLE.get(k.item(), 0.5)


def table_times_f32_t33(k, x):
    return TABLE[int(k)] * x


def int_table_plus_i32_t33(k, x):
    return ITAB[k.item()] + x


def int_get_plus_i32_t33(k, x):
    return ITAB.get(int(k), 0) + x


def bool_get_t33(k):
    return BTAB.get(int(k), False)


def bool_choice_t33(k, x):
    return x if BTAB[int(k)] else -x


def float_keys_t33(k):
    return FTAB[k.item()]


def under_a_condition_t33(k, x):
    if x > 0:
        return TABLE[int(k)]     # lanes with x <= 0 hold keys the dict lacks
    return 0.0


def in_a_loop_t33(k):
    total = 0.0
    for i in range(3):
        total += TABLE.get(int(k) + i, 0.25)
    return total


def empty_get_t33(k):
    return EMPTY.get(int(k), 2.0)


def tuple_times_f32_t33(k, x):
    return TUP[k] * x


X32 = torch.tensor([1.0, -2.0, 3.0, 0.5, -0.25], dtype=torch.float32)
I32 = torch.tensor([1, -2, 3, 4, -5], dtype=torch.int32)
CASES = [
    (table_times_two_t33, (torch.tensor([0, 7, 1, 1, 0]),)),
    (table_get_t33, (torch.tensor([0, 3, 7, -1, 1]),)),
    (table_times_f32_t33, (torch.tensor([0, 7, 1, 1, 0]), X32)),
    (int_table_plus_i32_t33, (torch.tensor([5, 0, 2, 2, 0]), I32)),
    (int_get_plus_i32_t33, (torch.tensor([5, 1, 2, 9, 0]), I32)),
    (bool_get_t33, (torch.tensor([0, 1, 2, 3, 4]),)),
    (bool_choice_t33, (torch.tensor([0, 1, 3, 1, 0]), X32)),
    (float_keys_t33, (torch.tensor([0.5, 2.0, -1.0, 2.0, 0.5], dtype=torch.float64),)),
    (float_keys_t33, (torch.tensor([2, -1, 2, 2, -1]),)),
    (under_a_condition_t33, (torch.tensor([0, 9, 1, 7, 4]), X32)),
    (in_a_loop_t33, (torch.tensor([0, 5, -1, 6, 1]),)),
    (empty_get_t33, (torch.tensor([0, 5, -1, 6, 1]),)),
    (tuple_times_f32_t33, (torch.tensor([0, 2, 1, 1, 0]), X32)),
]


@pytest.mark.parametrize("n", [1, 5])
@pytest.mark.parametrize("func,args", CASES, ids=[f"{c[0].__name__}{i}" for i, c in
                                                   enumerate(CASES)])
def test_lookup_is_the_loop(func, args, n):
    args = tuple(a[:n] for a in args)
    got = vmap(func, fallback="error")(*args)
    assert_same(got, reference(func, args), f"{func.__name__}: ")
    assert got.device == args[0].device


@pytest.mark.parametrize("func,args", CASES[:3], ids=[c[0].__name__ for c in CASES[:3]])
def test_lookup_is_torch_in_the_generated_code(func, args):
    source = vmap(func).source(*args)
    assert "dict_lookup(" in source and "pymath" not in source


def test_an_empty_batch_has_the_values_dtype():
    for func, dtype in ((table_times_two_t33, torch.float64), (table_get_t33, torch.float64),
                        (bool_get_t33, torch.bool)):
        out = vmap(func)(torch.zeros(0, dtype=torch.int64))
        assert out.shape == (0,) and out.dtype == dtype, func.__name__


def test_values_meet_a_float32_tensor_as_python_floats():
    # per example `1.5 * tensor(2., float32)` is float32; held as float64 on the batch
    out = vmap(table_times_f32_t33)(torch.tensor([0, 7]), X32[:2])
    assert out.dtype == torch.float32
    out = vmap(tuple_times_f32_t33)(torch.tensor([0, 2]), X32[:2])
    assert out.dtype == torch.float32


def test_gradient_flows_through_the_other_operand():
    x = X32.clone().requires_grad_(True)
    k = torch.tensor([0, 7, 1, 1, 0])
    vmap(table_times_f32_t33)(k, x).sum().backward()
    expected = torch.tensor([TABLE[v] for v in k.tolist()], dtype=torch.float32)
    torch.testing.assert_close(x.grad, expected)


@pytest.mark.parametrize("func,args", [
    (table_times_two_t33, (torch.tensor([0, 3, 1]),)),
    (int_table_plus_i32_t33, (torch.tensor([0, 2, 1]), I32[:3])),
    (float_keys_t33, (torch.tensor([0.5, float("nan")], dtype=torch.float64),)),
    (under_a_condition_t33, (torch.tensor([0, 4, 9]), torch.tensor([1.0, -1.0, 1.0]))),
], ids=["missing", "missing_int", "nan", "reached"])
def test_missing_key_raises_keyerror_as_the_loop(func, args):
    with pytest.raises(KeyError):
        reference(func, args)
    with pytest.raises(KeyError):
        vmap(func, fallback="error")(*args)


def test_missing_key_of_the_batch_is_the_first_examples():
    from vectorize.backends.torch.lookups import dict_lookup
    with pytest.raises(KeyError) as info:
        dict_lookup(TABLE, torch.tensor([0, 4, 3, 9]))
    assert info.value.args == (4,)


def per_example_default_t33(k, x):
    return TABLE.get(int(k), x)


def test_per_example_default_refused_located():
    with pytest.raises(VectorizeError) as info:
        vmap(per_example_default_t33)(torch.tensor([0, 3]), X32[:2])
    first = str(info.value).splitlines()[0]
    assert "test_torch33.py:" in first and "per-example default" in first


@settings(max_examples=10, deadline=None)
@given(st.lists(st.sampled_from([0, 1, 7, -3, 2]), min_size=0, max_size=5),
       st.sampled_from([torch.float32, torch.float64]))
def test_lookup_hypothesis(keys, dtype):
    k = torch.tensor(keys, dtype=torch.int64)
    x = torch.arange(len(keys), dtype=dtype) - 1.5
    mapped = vmap(lambda k, x: TABLE.get(int(k), -0.5) * x + TABLE.get(int(k) + 1, 1.0))
    got = mapped(k, x)
    expected = [TABLE.get(a, -0.5) * b + TABLE.get(a + 1, 1.0) for a, b in
                zip(k.tolist(), x)]
    assert got.dtype == dtype and got.shape == (len(keys),)
    if keys:
        assert_same(got, torch.stack(expected))


def tensor_key_t33(k):
    return TABLE[k] * 2


def tensor_key_get_t33(k):
    return TABLE.get(k, 0.5)


@pytest.mark.parametrize("func", [tensor_key_t33, tensor_key_get_t33])
def test_a_tensor_key_is_refused_located_as_the_loop_finds_no_key(func):
    k = torch.tensor([0, 7, 1])
    lanes = []
    for row in k:                   # per example: no key (a tensor hashes by identity)
        try:
            lanes.append(func(row))
        except KeyError:
            lanes.append("KeyError")
    assert lanes in (["KeyError"] * 3, [0.5] * 3)
    with pytest.raises(VectorizeError) as info:
        vmap(func, fallback="error")(k)
    first = str(info.value).splitlines()[0]
    assert "test_torch33.py:" in first and "hashes by identity" in first
