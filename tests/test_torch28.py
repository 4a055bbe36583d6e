"""PyTorch: per-example values that are a Python number on some lanes and a 0-d tensor on
others, Python numbers meeting narrower tensors, against the per-example loop over 0-d tensors
(torch.func semantics; programs reduced from `benchmarks/fuzz_torch27.py` and
`benchmarks/fuzz_hunt13.py --backends torch`)."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from vectorize import VectorizeError, vmap  # noqa: E402


def _rows(f, *args, **kwargs):
    return [f(*[a[i] for a in args], **kwargs) for i in range(len(args[0]))]


def _refused(f, *args, match="", **kwargs):
    with pytest.raises(VectorizeError, match=match) as err:
        vmap(f)(*args, **kwargs)
    assert ":" in str(err.value).splitlines()[0]     # located: file:line:col


# ------------------------------------------------ a Python int held in a narrower int tensor


def item_or_int32(x, y):
    r = y
    if y > 0:
        r = x.item()
    return r


def item_in_a_loop(x, y):         # fuzz_torch27 seed 1014
    r = y
    k = 0
    while k < 3:
        r = x.item()
        if max(1, r) > r:
            break
        k += 1
    return r


@pytest.mark.parametrize("f", [item_or_int32])
def test_a_python_int_merged_with_an_int32_tensor_keeps_its_value(f):
    # per example the lanes that take `x.item()` hold the Python int 2**40; the batch held
    # the merge as int32 and wrapped it to 0
    x = torch.tensor([2 ** 40, -3, 5, -(2 ** 40) - 1], dtype=torch.int64)
    y = torch.tensor([1, 2, -3, 4], dtype=torch.int32)
    rows = _rows(f, x, y)
    got = vmap(f)(x, y)
    assert [int(v) for v in got] == [int(r) for r in rows]


def test_a_loop_that_retypes_its_int32_carry_on_every_lane_holds_the_python_int():
    # every example leaves the loop holding the Python int `x.item()` and never reads the
    # int32 before it: the batch holds the carry as the Python ints (int64), never in the
    # int32 join, which wrapped 2**40 (refused before, tests/test_torch30.py)
    import torch_reference
    x = torch.tensor([2 ** 40, -3, 5, -(2 ** 40) - 1], dtype=torch.int64)
    y = torch.tensor([1, 2, -3, 4], dtype=torch.int32)
    expected = torch_reference.reference(item_in_a_loop, [x, y])
    got = vmap(item_in_a_loop)(x, y)
    assert got.dtype == expected.dtype == torch.int64 and torch.equal(got, expected)


# ------------------------------------------------ comparisons in the per-example dtype


def item_below(x, y):
    return x.item() < y


def float_equals(x, y):
    return float(x) == y


def test_a_per_example_python_int_compares_as_pytorch_converts_it():
    # per example PyTorch converts the Python int to the 0-d tensor's uint8 (-1 is 255,
    # 2**40 is 0); the batch compared the int64 tensor of them with the uint8 one exactly
    x = torch.tensor([-1, 2 ** 40, 3, 300], dtype=torch.int64)
    y = torch.tensor([200, 1, 2, 44], dtype=torch.uint8)
    want = torch.stack(_rows(item_below, x, y))
    assert torch.equal(vmap(item_below)(x, y), want)
    assert want.tolist() == [False, True, False, False]     # (exactly: True, False, ...)


def test_a_per_example_python_float_compares_in_float32_against_a_float32():
    x = torch.tensor([0.1, 0.5, 1e-46], dtype=torch.float64)
    y = torch.tensor([0.1, 0.5, 0.0], dtype=torch.float32)
    want = torch.stack(_rows(float_equals, x, y))
    assert want.tolist() == [True, True, True]
    assert torch.equal(vmap(float_equals)(x, y), want)


def min_compared_with_uint8(x, y):      # fuzz_torch27 seed 1621
    r = (min(-1, x)) if (min(-1, x)) < y else y
    return r


def min_plus_uint8(x, y):
    return min(-1, x) + y


def test_a_value_python_int_on_some_lanes_against_a_uint8_is_refused():
    # `min(-1, x)`: the Python int -1 on some lanes (compared with a uint8 it is 255 there),
    # an int32 tensor on others; the batch compared every lane in int32
    x = torch.tensor([-5, 3, 0], dtype=torch.int32)
    y = torch.tensor([200, 1, 2], dtype=torch.uint8)
    _refused(min_compared_with_uint8, x, y, match="compares in uint8")
    _refused(min_plus_uint8, x, y, match="computes in uint8, which may wrap")


# ------------------------------------------------ torch functions of Python numbers


def fmod_of_a_choice(x, y):              # fuzz_torch27 seed 1164
    if y > 2:
        r = -x
    else:
        r = 255
    r += r
    return torch.fmod(r, r)


def where_of_a_choice(x, y):             # fuzz_torch27 seed 2391
    r = max(torch.sign(x), 7)
    return torch.where(r > r, r, r)


def where_of_a_shared_choice(x, c=1.0):   # fuzz_hunt13 seed 3176
    if c > 0:
        t = x.max()
    else:
        t = c * c - 1.5
    return torch.where(t > 0, t, -t)


def abs_after_a_chain(x, y):             # fuzz_torch27 seed 2580
    r = int(y + x)
    r %= (x < r < 10)
    return torch.abs(r)


def sign_of_a_python_int(x, y):          # fuzz_torch27 seed 1367
    r = 1
    k = 0
    while k < 3:
        r = torch.sign(r)
        if r < x:
            break
        k += 1
    return r


@pytest.mark.parametrize("f, y", [(fmod_of_a_choice, [1, 5, 3]),
                                  (where_of_a_choice, [1, 5, 3]),
                                  (abs_after_a_chain, [1, 5, 3]),
                                  (sign_of_a_python_int, [1, 5, 3])])
def test_a_torch_function_of_what_is_a_python_number_on_some_lanes_is_refused(f, y):
    # per example these raise TypeError on the lanes where the value is a Python number
    # (`torch.fmod(510, 510)`); the batch computed them on tensors and returned
    x = torch.tensor([-2, 3, 9], dtype=torch.int64)
    y = torch.tensor(y, dtype=torch.int64)
    with pytest.raises(TypeError):
        _rows(f, x, y)
    _refused(f, x, y, match="raises")


def test_a_torch_function_of_a_python_number_chosen_by_a_shared_condition_is_refused():
    x = torch.tensor([1.0, -2.0], dtype=torch.float64)
    with pytest.raises(TypeError):
        _rows(where_of_a_shared_choice, x, c=-2.0)
    assert torch.equal(torch.stack(_rows(where_of_a_shared_choice, x, c=1.0)),
                       torch.tensor([1.0, 2.0], dtype=torch.float64))
    _refused(where_of_a_shared_choice, x, c=-2.0, match="differs between lanes")


# ------------------------------------------------ Python numbers through a tuple


def ceil_through_a_tuple(x, y):          # fuzz_torch27 seed 1680
    t = (math.ceil(x), x)
    r = t[0]
    return (r / r) == y


def test_a_python_int_read_from_a_tuple_divides_as_python():
    # per example `r / r` of the Python int 0 raises ZeroDivisionError; the batch gave nan
    x = torch.tensor([1.5, -0.5, 2.0], dtype=torch.float64)
    y = torch.tensor([1, 1, 1], dtype=torch.int32)
    with pytest.raises(ZeroDivisionError):
        _rows(ceil_through_a_tuple, x, y)
    with pytest.raises(ZeroDivisionError):
        vmap(ceil_through_a_tuple)(x, y)
    x = torch.tensor([1.5, 2.0], dtype=torch.float64)
    assert torch.equal(vmap(ceil_through_a_tuple)(x, y[:2]),
                       torch.stack(_rows(ceil_through_a_tuple, x, y[:2])))


# ------------------------------------------------ a Python int chosen beside a narrower tensor


def max_of_item_and_uint8(x, y):
    return max(x.item(), y)


def item_if_else_uint8(x, y):
    return x.item() if y > 2 else y


@pytest.mark.parametrize("f", [max_of_item_and_uint8, item_if_else_uint8])
def test_a_python_int_chosen_beside_a_uint8_keeps_its_value(f):
    # the lanes that choose the Python int keep it per example (-5, 2**40); the batch held
    # the choice as uint8 and wrapped them (251, 0)
    x = torch.tensor([-5, 3, 0, 2 ** 40], dtype=torch.int64)
    y = torch.tensor([200, 1, 2, 3], dtype=torch.uint8)
    rows = _rows(f, x, y)
    got = vmap(f)(x, y)
    assert [int(v) for v in got] == [int(r) for r in rows]


# ------------------------------------------------ tensors of different widths on different lanes


def narrower_lanes_wrap(x, y):           # fuzz_torch27 seed 2342
    r = (x if x < y else y) - y
    return abs(int(x) - r)


def bool_or_int8_plus(a, b):             # fuzz_torch27 seed 2731
    return (a and (a > 0)) + (b if bool(b) else a)


def int_then_float_carry(x, y):          # fuzz_torch27 seed 1585
    r = 1
    r /= torch.exp(y)
    k = 0
    while k < 3:
        r = math.ceil(x)
        if x - r > 0:
            break
        k += 1
    return r - y


def last_pass_is_narrower(x, y):         # fuzz_torch27 seed 2469
    r = x
    k = 0
    while k < 3:
        r = y
        k += 1
    r += r % x
    return r


@pytest.mark.parametrize("f, x, y, match", [
    # int16 lanes (y chosen) wrap 2147483647 - 0 into int16 per example; the batch's int32 not
    (narrower_lanes_wrap, [2 ** 31 - 1, 3], [-1, 4], "int16 on some"),
    # a bool and an int8 add in int8 (127 + True wraps to -128); the batch in int64
    (bool_or_int8_plus, [4, 0], [127, 1], "computes in int8"),
    # the Python int lanes subtract in int64, exactly; the batch in float32 (2**53 + 1)
    (int_then_float_carry, [2 ** 53 + 1, 3], [1, 2],
     "computes in int64|holds a Python int on some lanes"),
    # every lane leaves the loop with the int16 `y`: `+=` wraps in int16 per example
    (last_pass_is_narrower, [3, 3], [32767, 3], "keeps its dtype int16"),
])
def test_lanes_of_narrower_tensors_are_refused_where_they_compute_otherwise(f, x, y, match):
    dtypes = {narrower_lanes_wrap: (torch.int32, torch.int16),
              bool_or_int8_plus: (torch.int64, torch.int8),
              int_then_float_carry: (torch.int64, torch.int64),
              last_pass_is_narrower: (torch.int32, torch.int16)}[f]
    x, y = torch.tensor(x, dtype=dtypes[0]), torch.tensor(y, dtype=dtypes[1])
    _refused(f, x, y, match=match)


def max_of_int8_and_int16_plus_one(x, y):
    return max(x, y) + 1


def test_max_of_ints_of_different_widths_then_arithmetic_is_refused():
    # the lanes where the int8 wins add in int8 (127 + 1 wraps to -128); the batch in int16
    x = torch.tensor([127, 0], dtype=torch.int8)
    y = torch.tensor([3, 5], dtype=torch.int16)
    assert [int(r) for r in _rows(max_of_int8_and_int16_plus_one, x, y)] == [-128, 6]
    _refused(max_of_int8_and_int16_plus_one, x, y, match="int8 on some")
