"""PyTorch: values whose type differs between lanes (a 0-d tensor on some, a Python number on
others), checked against the per-example loop over 0-d tensors (torch.func semantics), and a
fixed set of programs of `benchmarks/fuzz_torch27.py` (`tests/fuzz/torch27_programs.py`)."""

from __future__ import annotations

import math
import random

import pytest

torch = pytest.importorskip("torch")

from fuzz import torch27_programs  # noqa: E402

from vectorize import VectorizeError, vmap  # noqa: E402


def _loop(f, *args):
    return [f(*[a[i] for a in args]) for i in range(len(args[0]))]


def max_float_pow(x):
    return max(2.0, x) ** -1


def max_float_times(x):
    return max(x, 0.5) * 2


def sqrt_of_max(x):
    return torch.sqrt(max(x, 0.5))


def abs_of_choice(x):
    r = x if x > 0 else 1
    return torch.abs(r)


def test_max_of_float_and_int_tensor_to_negative_power_is_refused():
    # per example: 2.0 ** -1 = 0.5 where the float wins, an int tensor ** -1 raises where
    # the tensor does; the batch computed every lane in floats (0.5, 0.5, 0.333)
    x = torch.tensor([0, 2, 3], dtype=torch.int32)
    with pytest.raises(RuntimeError):
        _loop(max_float_pow, x)
    # (refused at `max` already: its int32 lanes in the float32 join, test_torchfix29.py)
    with pytest.raises(VectorizeError, match=r"differs between lanes|an int32 tensor on "
                                             r"some lanes and a float32") as err:
        vmap(max_float_pow)(x)
    assert "max(2.0, x) ** -1" in str(err.value) and ":" in str(err.value).splitlines()[0]


def test_max_of_float_and_int_tensor_times_int_is_refused():
    # the lanes where the int32 tensor wins compute in int32 (which wraps), the batch in floats
    x = torch.tensor([0, 2, 2 ** 30], dtype=torch.int32)
    assert _loop(max_float_times, x)[2].dtype == torch.int32
    with pytest.raises(VectorizeError, match="may wrap|float32 rounds integers beyond"):
        vmap(max_float_times)(x)


def sqrt_method_of_max(x):
    return max(x, 0.5).sqrt()


def clamp_of_max(x):
    return torch.clamp(max(x, 0.5), min=0.0)


@pytest.mark.parametrize("f,x", [
    (sqrt_of_max, torch.tensor([0.1, 2.0, 3.0])),
    (abs_of_choice, torch.tensor([0, 2, 3], dtype=torch.int32)),
    (sqrt_method_of_max, torch.tensor([0.1, 2.0, 3.0])),
    (clamp_of_max, torch.tensor([0.1, 2.0, 3.0])),
])
def test_torch_function_of_a_python_number_on_some_lanes_is_refused(f, x):
    # per example the lanes holding the Python number raise TypeError (torch functions take
    # tensors) or AttributeError (a float has no `.sqrt()`); the batch returned a tensor
    # for every lane
    with pytest.raises((TypeError, AttributeError)):
        _loop(f, x)
    with pytest.raises(VectorizeError, match="differs between lanes"):
        vmap(f)(x)


def _max_plus_min(a, b):
    return max(a, b) + min(a, 0.5)


def test_min_max_of_one_kind_still_maps():
    x = torch.tensor([0.25, 2.0, -3.0], dtype=torch.float64)
    y = torch.tensor([1.0, -2.0, 3.0], dtype=torch.float64)
    got = vmap(_max_plus_min)(x, y)
    assert torch.equal(got, torch.stack([torch.as_tensor(r, dtype=got.dtype)
                                         for r in _loop(_max_plus_min, x, y)]))


def test_min_max_of_float32_and_float64_lanes_then_computed_is_refused():
    # per example a lane whose max is the float32 `a` adds in float32; the batch in float64
    x = torch.tensor([0.25, 2.0, -3.0], dtype=torch.float32)
    y = torch.tensor([1.0, -2.0, 3.0], dtype=torch.float64)
    with pytest.raises(VectorizeError, match="differs between lanes"):
        vmap(_max_plus_min)(x, y)


# seeds of `benchmarks/fuzz_torch27.py` whose programs were wrong, and a few that are right
_SEEDS = [0, 1, 2, 91, 150, 200, 217, 226, 591, 1068, 1441, 1756, 3008]


@pytest.mark.parametrize("seed", _SEEDS)
def test_fuzz_seed(seed):
    source, dtypes, _ = torch27_programs.case(random.Random(seed))
    kind, detail, n, how = torch27_programs.run(source, dtypes, seed)
    assert kind in ("ok", "rejected"), f"{kind} at N={n} ({how}):\n{source}{detail}"


def add_in_place(a, b):
    a += b
    return a


def divide_in_place(a):
    r = a * 2
    r /= 3
    return r


def alias_then_add(a, b):
    flag = a
    flag += a
    return flag if a else (a == 0.5)


def test_augmented_assignment_keeps_the_tensors_dtype_or_is_refused():
    # per example `a += b` of an int8 and an int32 tensor adds in place in int8 (100 + 100
    # wraps to -56); the batch computed `a = a + b` in int32 (200)
    x = torch.tensor([100, 2, 3], dtype=torch.int8)
    y = torch.tensor([100, 100, 100], dtype=torch.int32)
    assert _loop(add_in_place, x.clone(), y)[0].item() == -56
    with pytest.raises(VectorizeError, match="in place, which keeps its dtype int8"):
        vmap(add_in_place)(x.clone(), y)


def test_augmented_division_of_an_int_tensor_is_refused():
    # per example `r /= 3` of an int tensor raises RuntimeError (a float cannot be cast to
    # int64 in place); the batch returned floats
    x = torch.tensor([1, 2, 3])
    with pytest.raises(RuntimeError):
        _loop(divide_in_place, x)
    with pytest.raises(VectorizeError, match="in place"):
        vmap(divide_in_place)(x)


def test_augmented_assignment_of_an_aliased_tensor_is_refused():
    # per example `flag += a` doubles the 0-d tensor `a` too (flag is a); the batch changed
    # `flag` only
    x = torch.tensor([0.0, 2.0, 3.0])
    assert [float(v) for v in _loop(alias_then_add, x.clone(), x.clone())] == [0.0, 4.0, 6.0]
    with pytest.raises(VectorizeError, match="`a` is bound to it"):
        vmap(alias_then_add)(x.clone(), x.clone())


def test_augmented_assignment_of_one_dtype_still_maps():
    x = torch.tensor([1.0, 2.0, 3.0])

    def f(a):
        r = a * 2
        r += 1.5
        return r
    assert torch.equal(vmap(f)(x), torch.stack(_loop(f, x)))


def max_of_two(a, b):
    return max(a, b)


def test_max_of_int8_and_int32_tensors_keeps_the_int32_values():
    # per example max returns the int8 or the int32 tensor; the batch held every lane in int8
    # (300 became 44)
    x = torch.tensor([5, 127, -3], dtype=torch.int8)
    y = torch.tensor([1, 2, 300], dtype=torch.int32)
    got = vmap(max_of_two)(x, y)
    assert got.tolist() == [int(v) for v in _loop(max_of_two, x, y)] == [5, 127, 300]


def fmod_of_chain(r, y):
    return torch.fmod(r < 1 < 10, y)


def fmod_of_and(r, y):
    return torch.fmod(r < 1 and True, y)


@pytest.mark.parametrize("f", [fmod_of_chain, fmod_of_and])
def test_python_bool_on_some_lanes_is_refused(f):
    # `r < 1 < 10` is `r < 1 and 1 < 10`: a bool tensor where r >= 1, the Python bool True
    # where r < 1, which torch.fmod does not take (TypeError per example); the batch
    # returned [1, 0, 0]
    r = torch.tensor([0, 2, 3], dtype=torch.int32)
    y = torch.tensor([3, 2, 5], dtype=torch.int8)
    with pytest.raises(TypeError):
        _loop(f, r, y)
    with pytest.raises(VectorizeError, match="a Python bool"):
        vmap(f)(r, y)


def test_chained_comparison_used_as_a_number_still_maps():
    r = torch.tensor([0, 2, 3], dtype=torch.int32)
    y = torch.tensor([3, 2, 5], dtype=torch.int8)

    def f(a, b):
        return (a < 1 < 10) + b
    assert vmap(f)(r, y).tolist() == [int(v) for v in _loop(f, r, y)]


def item_of_a_python_float(x, y):
    return math.fmod(y, 3).item()


def divide_in_place_on_some_lanes(x, y):
    r = x
    if y > 0:
        r = -0.5
    r /= (y < 10)
    return r


@pytest.mark.parametrize("f,error", [(item_of_a_python_float, AttributeError),
                                     (divide_in_place_on_some_lanes, RuntimeError)])
def test_lanes_that_raise_are_refused(f, error):
    # `math.fmod` gives a Python float per example, which has no `.item()`; `r /= ...` of
    # the lanes where r is the int64 tensor raises (in place, a float cannot be cast to
    # int64): the batch returned [1, -2, 0] and [-0.5, 2, -0.5]
    x, y = torch.tensor([1, 2, 3]), torch.tensor([1.0, -2.0, 3.0])
    with pytest.raises(error):
        _loop(f, x, y)
    with pytest.raises(VectorizeError):
        vmap(f)(x, y)


def not_plus_true(a):
    return (not a) + True


def test_not_of_a_tensor_is_a_python_bool():
    # per example `not a` is a Python bool, and True + True is 2; the batch added bool
    # tensors (a logical or: [True, True, True])
    a = torch.tensor([0, 5, 0])
    got = vmap(not_plus_true)(a)
    assert got.tolist() == _loop(not_plus_true, a) == [2, 1, 2]


def bool_or_int_plus_bool(a, b):
    return ((not b) or -3) + (a > 0.5)


def test_python_bool_lanes_adding_a_bool_tensor_are_refused():
    # per example the lanes where `not b` is True add two bools (a logical or: True); the
    # batch added in int64 (2)
    a = torch.tensor([1.0, 0.0, 1.0])
    b = torch.tensor([0, 3, 1], dtype=torch.uint8)
    assert _loop(bool_or_int_plus_bool, a, b)[0].dtype == torch.bool
    with pytest.raises(VectorizeError, match="computes in bool"):
        vmap(bool_or_int_plus_bool)(a, b)
