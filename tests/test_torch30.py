"""PyTorch backend: Python ints beyond int64 as results (no tensor holds one), and the
per-example choices between an int tensor and a narrower float that were refused for safety
and are computed again where the per-example loop's own stacking gives the same values.
Against the per-example loop over 0-d tensors (`tests/torch_reference.py`, torch.func
semantics)."""

from __future__ import annotations

import math
import warnings

import pytest

torch = pytest.importorskip("torch")

import torch_reference  # noqa: E402

from vectorize import VectorizeError, vmap  # noqa: E402


def _rows(f, *args):
    return [f(*row) for row in zip(*args)]


def _same_as_loop(f, *args):
    """``vmap(f)`` equal to the loop stacked as PyTorch stacks it: values and dtype."""
    expected = torch_reference.reference(f, list(args))
    got = vmap(f)(*args)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert torch.equal(got, expected), (got, expected)
    return got


# --------------------------------------------- a Python int beyond int64 as the result
def ceil_of_a_huge_constant(x, y):      # fuzz_torch27 seed 5716
    r = 7
    r = math.ceil(1e300 // -1)
    return r


def test_a_constant_result_beyond_int64_is_refused_located():
    # per example the exact Python int -10**300; no tensor holds it (the loop's stacking
    # raises); the batch raised PyTorch's ValueError from inside the engine's placing of
    # the result, a traceback through vmap's internals
    x = torch.zeros(3, dtype=torch.uint8)
    y = torch.zeros(3, dtype=torch.float64)
    assert _rows(ceil_of_a_huge_constant, x, y)[0] == math.ceil(-1e300)       # the premise
    with pytest.raises(ValueError):
        torch_reference.reference(ceil_of_a_huge_constant, [x, y])
    with pytest.raises(VectorizeError) as info:
        vmap(ceil_of_a_huge_constant)(x, y)
    message = str(info.value)
    assert "test_torch30.py:" in message.splitlines()[0] and "beyond int64" in message


def abs_of_ceil(x, y):                  # fuzz_torch27 seed 5896
    r = abs(math.ceil(x))
    r -= (3 < r < 10)
    return r


def test_a_per_example_result_beyond_int64_raises_as_the_loops_stacking():
    # abs(-2**63) is 2**63 on the first lane: the loop's stacking raises ValueError, and so
    # does the batch (its check hands the call to the loop), saying which result
    x = torch.tensor([-2 ** 63, 5, 7])
    with pytest.raises(ValueError):
        torch_reference.reference(abs_of_ceil, [x, x])
    with pytest.raises(ValueError, match="beyond int64"):
        vmap(abs_of_ceil)(x, x)
    ok = torch.tensor([-2 ** 62, 5, -4])
    _same_as_loop(abs_of_ceil, ok, ok)


# --------------------------- an int tensor on some lanes, a float32 on others, returned
def tensor_or_half(x, y):
    r = y * 0.5
    if y > 0:
        r = y                           # an int32 tensor on these lanes
    return r


def ternary_int_or_half(x, y):
    return y if y > 0 else y * 0.5


def max_int_or_half(x, y):
    return max(y, x * 0.5)


def returns_int_or_half(x, y):
    if y > 0:
        return y
    return y * 0.5


def and_or_int_or_half(x, y):
    return (y > 0) and y or x * 0.5


def pair_int_or_half(x, y):
    r = y * 0.5
    if y > 0:
        r = y
    return r, (y if y < 5 else x * 0.5)


@pytest.mark.parametrize("f", [tensor_or_half, ternary_int_or_half, max_int_or_half,
                               returns_int_or_half, and_or_int_or_half])
def test_an_int_tensor_joined_with_a_float32_and_returned_is_the_loops(f):
    """Per example the int lanes are int32 tensors, the others float32; PyTorch stacks them in
    float32 (`torch.result_type`, `torch.tensor([...])`), which rounds 2147483645 to
    2147483648 as the batch's `torch.where` does. Was refused (test_torchfix29.py)."""
    x = torch.tensor([0, 1, 3], dtype=torch.uint8)
    y = torch.tensor([2147483645, 2147483600, -7], dtype=torch.int32)
    rows = _rows(f, x, y)
    assert {r.dtype for r in rows} == {torch.int32, torch.float32}           # the premise
    got = _same_as_loop(f, x, y)
    assert got.dtype == torch.float32 and got[0].item() == 2147483648.0


def test_items_of_a_returned_tuple_are_the_loops():
    x = torch.tensor([0, 1, 3], dtype=torch.uint8)
    y = torch.tensor([2147483645, 3, -7], dtype=torch.int32)
    expected = torch_reference.reference(pair_int_or_half, [x, y])
    got = vmap(pair_int_or_half)(x, y)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype == torch.float32 and torch.equal(g, e)


def test_the_corpus_int64_or_python_float_choice_is_the_loops():
    """``k if k > 0 else 0.5`` of an int64 ``k`` (tests/torch_corpus.py): per example an
    int64 tensor or a Python float, which PyTorch stacks in its default float32; 16777217
    becomes 16777216 there as in the batch. Was refused."""
    import torch_corpus
    k = torch.tensor([16777217, -3, 2 ** 40 + 1])
    got = _same_as_loop(torch_corpus.ternary_int_float, k)
    assert got.tolist() == [16777216.0, 0.5, float(2 ** 40)]


# --------------------------------------------- what computes with such a value: refused
def used_after(x, y):
    r = y * 0.5
    if y > 0:
        r = y
    return r - 2147483600


def rejoined_then_used(x, y):
    r = y * 0.5
    if y > 0:
        r = y
    if x > 1:
        r = 2.0
    return r - 2147483600


def updated(x, y):
    r = y * 0.5
    if y > 0:
        r = y
    r += 1
    return r


def ternary_used(x, y):
    return (y if y > 0 else y * 0.5) - 2147483600


def read_in_a_loop(x, y):
    r = y * 0.5
    for i in range(2):
        if y > i:
            r = y
        else:
            r = r * 0.5
    return r


def python_int_lanes(x, y):
    r = y * 0.5
    if y > 0:
        r = math.floor(abs(y - x))      # a Python int on these lanes
    return r


@pytest.mark.parametrize("f", [used_after, rejoined_then_used, updated, ternary_used,
                               read_in_a_loop, python_int_lanes])
def test_computing_with_an_int_or_float32_choice_stays_refused(f):
    # per example `r - 2147483600` of the int32 lane is 45, not so in the batch's float32
    x = torch.tensor([0, 1, 3], dtype=torch.uint8)
    y = torch.tensor([2147483645, 2147483600, -7], dtype=torch.int32)
    with pytest.raises(VectorizeError) as info:
        vmap(f)(x, y)
    assert "test_torch30.py:" in str(info.value).splitlines()[0]


def test_used_after_differs_per_example():
    # the premise of the refusals: the lane computes in int32, the join in float32
    x = torch.tensor([0], dtype=torch.uint8)
    y = torch.tensor([2147483645], dtype=torch.int32)
    assert int(used_after(x[0], y[0])) == 45
    assert float(torch.tensor(2147483645, dtype=torch.float32) - 2147483600) != 45.0


# ------------------------------------------------ a Python bool subtracted per example
def int_minus_bool(x, y):           # fuzz_torch27 seed 5896, `r -= (3 < r < 10)`
    r = int(x)
    r -= (3 < r < 10)
    return r


def bool_minus_bool(x, y):
    r = int(x)
    return (r < 10) - (r > 3)


def bool_minus_true(x, y):
    return (float(y) < 1.5) - True


def float_minus_bool(x, y):
    r = float(y)
    return r - (r < 10)


@pytest.mark.parametrize("f", [int_minus_bool, bool_minus_bool, bool_minus_true,
                               float_minus_bool])
def test_a_python_bool_subtracted_per_example_is_an_int(f):
    # per example Python subtracts a bool as an int; the batch held the bools as bool
    # tensors, where PyTorch's `-` raises: a RuntimeError the loop then replaced (with a
    # warning that vectorize has a bug)
    x = torch.tensor([5, 50, -4, 7])
    y = torch.tensor([0.5, 12.0, 2.5, -1.0], dtype=torch.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _same_as_loop(f, x, y)


def tensor_minus_bool(x, y):
    return x - (x < 10)


def test_a_tensor_minus_a_bool_tensor_raises_as_per_example():
    x = torch.tensor([5, 50])
    with pytest.raises(RuntimeError):
        torch_reference.reference(tensor_minus_bool, [x, x])
    with pytest.raises((RuntimeError, VectorizeError)):
        vmap(tensor_minus_bool)(x, x)


# ------------------------------------- a shared int an int8 lane converts (it wraps)
def max_mod_300(x, y):                  # fuzz_torch27 seed 7362
    r = max(x, y) % math.ceil(300)
    return r


def test_a_shared_int_a_narrow_lane_wraps_is_refused():
    # per example `max(x, y)` is the int8 `y` on some lanes, where PyTorch converts 300 to
    # int8 (44): 127 % 44 is 39; the batch computed every lane in the int64 join: 127
    x = torch.tensor([100, -5, 3], dtype=torch.int64)
    y = torch.tensor([127, -7, 1], dtype=torch.int8)
    rows = _rows(max_mod_300, x, y)
    assert rows[0].dtype == torch.int8 and int(rows[0]) != 127 % 300         # the premise
    with pytest.raises(VectorizeError) as info:
        vmap(max_mod_300)(x, y)
    assert "test_torch30.py:" in str(info.value).splitlines()[0]


def max_mod_100(x, y):
    return max(x, y) % 100


def test_a_shared_int_every_lane_holds_still_computes():
    x = torch.tensor([100, -5, 3], dtype=torch.int64)
    y = torch.tensor([127, -7, 1], dtype=torch.int8)
    got = vmap(max_mod_100)(x, y)
    assert got.tolist() == [int(r) for r in _rows(max_mod_100, x, y)]


def floor_or_negative(x, y):            # fuzz_torch27 seed 7632
    r = math.floor(y)
    if (y).item() < 0:
        r = -y
    return r


def test_math_floor_of_the_largest_int64_raises_as_the_loops_stacking():
    # math.floor of a 0-d int64 tensor rounds its float(): 2**63 - 1 becomes 2**63, a Python
    # int no tensor holds; PyTorch's conversion of it raises ValueError, and so does the batch
    y = torch.tensor([2 ** 63 - 1, -3])
    assert _rows(floor_or_negative, y, y)[0] == 2 ** 63                      # the premise
    with pytest.raises(ValueError):
        torch.as_tensor(2 ** 63)
    with pytest.raises(ValueError, match="beyond int64"):
        vmap(floor_or_negative)(y, y)


# ------------------------------ a carry every example leaves a loop with as a Python int
def item_in_a_while(x, y):
    r = y
    k = 0
    while k < 3:
        r = x.item()
        if max(1, r) > r:
            break
        k += 1
    return r


def item_in_a_for(x, y):
    r = y
    for k in range(3):
        r = int(x) + k
        if r > 100:
            break
    return r - 1


def floor_in_a_while(x, y):
    r = y > 0               # a bool tensor before the loop
    k = 0
    while True:
        r = math.floor(x) * 2
        k += 1
        if k >= 2 or r > 10:
            break
    return r


@pytest.mark.parametrize("f", [item_in_a_while, item_in_a_for, floor_in_a_while])
def test_a_carry_every_example_leaves_as_a_python_int_is_the_loops(f):
    """Per example the loop runs at least once and each lane leaves it with a Python int,
    never reading what the carry held before; the batch held the join with the int32 (or
    bool) before the loop, refused where it did not hold the ints (test_torch28.py)."""
    x = torch.tensor([2 ** 40, -3, 5, -(2 ** 40) - 1, 2 ** 31 + 5], dtype=torch.int64)
    y = torch.tensor([1, 2, -3, 4, 0], dtype=torch.int32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = _same_as_loop(f, x, y)
    assert got.dtype == torch.int64


def carry_read_in_the_loop(x, y):
    r = y
    k = 0
    while k < 3:
        k += r > 2          # the int32 before the loop, read on the first pass
        r = x.item()
        k += 1
    return r


def test_a_carry_read_before_the_loop_retypes_it_stays_refused():
    x = torch.tensor([2 ** 40, -3, 5], dtype=torch.int64)
    y = torch.tensor([1, 2, -3], dtype=torch.int32)
    with pytest.raises(VectorizeError) as info:
        vmap(carry_read_in_the_loop)(x, y)
    assert "test_torch30.py:" in str(info.value).splitlines()[0]


# ------------------------------------------------ a huge constant power never ends
_HUGE_POWERS = '''
import numpy as np
from vectorize import VectorizeError, vmap

def huge_power(x, y):             # fuzz_torch27 seed 6427
    r = x * 1
    if x > 5:
        r = 2 ** 40 ** int(1e300)
    return r

def huge_pow_call(x, y):
    r = x * 1
    if x > 5:
        r = pow(40, int(1e300))
    return r

for f in (huge_power, huge_pow_call):
    try:
        vmap(f)(np.arange(3.0), np.arange(3.0))
    except VectorizeError as error:
        print(str(error).splitlines()[0])
'''


def test_a_huge_constant_power_is_refused_located_not_computed(tmp_path):
    # no example takes the branch, so the loop returns; the analysis computed
    # 40 ** int(1e300) exactly (a transform that never ended) and the batch, which runs
    # both branches on every lane, would have too. Run apart: Python's int power cannot be
    # interrupted
    import subprocess
    import sys
    script = tmp_path / "huge_powers.py"
    script.write_text(_HUGE_POWERS)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120)
    lines = done.stdout.splitlines()
    assert len(lines) == 2 and all("huge_powers.py:" in line and "2**22 bits" in line
                                   for line in lines), done.stdout + done.stderr


# ------------------------------- such a choice bound to a name, then returned or dropped
def assigned_ternary(x, y):
    r = y if y > 0 else y * 0.5
    return r


def assigned_max(x, y):
    r = max(y, x * 0.5)
    return r


def dropped_choice(x, y):               # fuzz_torch27 seed 745, reduced
    r = torch.exp(y) if torch.exp(y) < y else y
    r = x * 2
    return r


@pytest.mark.parametrize("f", [assigned_ternary, assigned_max, dropped_choice])
def test_an_assigned_int_or_float32_choice_returned_or_dropped_is_the_loops(f):
    x = torch.tensor([0, 1, 3], dtype=torch.uint8)
    y = torch.tensor([2147483645, 2147483600, -7], dtype=torch.int32)
    _same_as_loop(f, x, y)


def assigned_max_used(x, y):
    r = max(y, x * 0.5)
    return r - 2147483600


def assigned_ternary_compared(x, y):
    r = y if y > 0 else y * 0.5
    return r > 2147483600


@pytest.mark.parametrize("f", [assigned_max_used, assigned_ternary_compared])
def test_an_assigned_int_or_float32_choice_read_stays_refused(f):
    x = torch.tensor([0, 1, 3], dtype=torch.uint8)
    y = torch.tensor([2147483645, 2147483600, -7], dtype=torch.int32)
    with pytest.raises(VectorizeError) as info:
        vmap(f)(x, y)
    assert "test_torch30.py:" in str(info.value).splitlines()[0]
