"""Regressions on the PyTorch backend: a per-example choice between an integer and a float
narrower than float64 (each lane keeps its int, the batch's float32 rounds it), and a torch
call whose result on one lane type has a dtype the batch's result does not hold. Against the
per-example loop over 0-d tensors (torch.func semantics)."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from vectorize import VectorizeError, vmap  # noqa: E402


def _loop(f, *args):
    return [f(*row) for row in zip(*args)]


# ------------------------------------------------ an int joined into a float32 per example
def floor_or_half(x, y):
    r = y * 0.5
    if y > 0:
        r = math.floor(abs(y - x))      # a Python int on these lanes
    return r


@pytest.mark.parametrize("f", [floor_or_half])
def test_an_int_joined_into_a_float32_is_refused(f):
    """Per example the lanes that take the int keep it exactly (2147483645); the batch held
    every lane in the float32 join: 2147483648 (fuzz_torch27 seed 5261). Refused, located,
    for a Python int on some lanes (the int tensors of the other functions here are cast
    to the float32 by the loop's stacking as by the batch: tests/test_torch30.py)."""
    x = torch.tensor([0, 1], dtype=torch.uint8)
    y = torch.tensor([2147483645, 2147483600], dtype=torch.int32)
    rows = _loop(f, x, y)
    assert all(not isinstance(r, torch.Tensor) or not r.dtype.is_floating_point
               for r in rows) and int(rows[0]) == 2147483645                  # the premise
    assert float(torch.tensor(int(rows[0]), dtype=torch.float32)) != int(rows[0])  # premise
    with pytest.raises(VectorizeError, match=r"test_torchfix29\.py:\d+"):
        vmap(f)(x, y)


def small_int_or_half(x, y):
    r = y * 0.5
    if y > 0:
        r = x                           # a uint8 tensor: float32 holds every uint8
    return r


def zero_or_half(x, y):
    r = 0                               # the same int for every example
    if y > 0:
        r = y * 0.5
    return r


def shared_int_carried(x, y):
    r = 128                             # fuzz_torch27 seed 5703
    k = 0
    while k < 3:
        r = 7 / x
        if not y:
            break
        k += 1
    return r


@pytest.mark.parametrize("f", [small_int_or_half, zero_or_half, shared_int_carried])
def test_an_int_float32_holds_still_joins(f):
    x = torch.tensor([200, 1, 7], dtype=torch.uint8)
    y = torch.tensor([3, 0, 5], dtype=torch.int32)
    got = vmap(f)(x, y)
    assert got.dtype == torch.float32
    assert got.tolist() == [float(r) for r in _loop(f, x, y)]


# ------------------------------------ a torch call whose lane type gives a wider dtype
def clamp_of_choice(x, y):
    return torch.clamp(x if x < y else y, -1, 5)


def test_a_call_giving_a_lane_a_dtype_the_batch_does_not_hold_is_refused():
    """``x if x < y else y`` of a bool ``x`` and an int16 ``y``: the batch joins them in
    int16, where `torch.clamp` gives int16; per example the bool lanes give int64
    (fuzz_torch27 seed 5457: int16 where every lane is int64). Refused, located."""
    x = torch.tensor([False, True, False])
    y = torch.tensor([3, 4, 2], dtype=torch.int16)
    rows = _loop(clamp_of_choice, x, y)
    assert {r.dtype for r in rows} == {torch.int64}                      # the premise
    with pytest.raises(VectorizeError, match=r"test_torchfix29\.py:\d+"):
        vmap(clamp_of_choice)(x, y)


def clamp_of_int_choice(x, y):
    return torch.clamp(x if x < y else y, -1, 5)


def test_a_call_whose_lanes_fit_the_batch_still_computes():
    x = torch.tensor([1, 9, -3], dtype=torch.int8)
    y = torch.tensor([3, 4, 2], dtype=torch.int16)
    got = vmap(clamp_of_int_choice)(x, y)
    assert got.dtype == torch.int16
    assert got.tolist() == [int(r) for r in _loop(clamp_of_int_choice, x, y)]


def test_the_corpus_int_or_python_float_choice():
    """``k if k > 0 else 0.5`` of an int64 ``k``: per example an int64 tensor or a Python
    float, the batch's `torch.where` a float32 (tests/torch_corpus.py), as PyTorch stacks
    the lanes (16777217 becomes 16777216 in both: tests/test_torch30.py); an int16 ``k``
    float32 holds."""
    import torch_corpus
    f = torch_corpus.ternary_int_float
    k16 = torch.tensor([300, -3, 7], dtype=torch.int16)
    got = vmap(f)(k16)
    assert got.dtype == torch.float32 and got.tolist() == [float(f(v)) for v in k16]
