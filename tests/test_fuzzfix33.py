"""Wrong results `benchmarks/fuzz_gen33.py` found, each as its minimized program against the
per-example loop (vmap) or numpy.vectorize."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from vectorize import vmap


def _loop(func, *args, in_axes):
    size = next(len(a) for a, axis in zip(args, in_axes) if axis == 0)
    rows = [func(*(a[i] if axis == 0 else a for a, axis in zip(args, in_axes)))
            for i in range(size)]
    return np.stack([np.asarray(r) for r in rows])


def _carry_rounded(y, k):
    t = y
    for _ in range(3):
        t = math.log(3.0)
    return t


def _carry_rounded_shared_count(y, k):
    t = y
    for _ in range(k):
        t = math.log(3.0)
    return t + 1


@pytest.mark.parametrize("func", [_carry_rounded, _carry_rounded_shared_count])
@pytest.mark.parametrize("k", [0, 2])
def test_shared_loop_carry_of_a_float_float16_rounds(func, k):
    """fuzz_gen33 seed 88: ``t = y`` (float16), then a loop of a shared trip count sets
    ``t = math.log(3.0)``; the carry's array took float16 (3.098) where each example holds
    the Python float 3.0986... (stacked float64)."""
    y = np.array([6.0, 1.5, 0.25], dtype=np.float16)
    want = _loop(func, y, k, in_axes=(0, None))
    got = vmap(func, in_axes=(0, None))(y, k)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def _swap_then_modulo(a, b):
    u = a
    w = b
    for _ in range(3):
        w, u = u, w
    return (True % u), int(True)


def _helper_item_plus(y, k):
    return _swap_then_modulo(0.0, False)[0] + y


def _helper_item_in_test(y, k):
    if _swap_then_modulo(0.0, False)[1] >= 5:
        return y + 1
    return y


@pytest.mark.parametrize("func", [_helper_item_plus, _helper_item_in_test])
def test_helper_of_shared_numbers_raises_as_python(func):
    """fuzz_gen33 seed 299: a helper called with constants swaps ``u``/``w`` in a loop, then
    computes ``True % u`` (u is False): every example raises ZeroDivisionError. The helper's
    body counted as speculative code (``True % np.float64(u)``: nan), and a test reading
    another item of its result was decided and the call dropped (y returned)."""
    y = np.array([6.0, 1.5], dtype=np.float16)
    with pytest.raises(ZeroDivisionError):
        func(y[0], 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ZeroDivisionError):
            vmap(func, in_axes=(0, None))(y, 1)


def _pick_shared(x, y, k):
    t = (x, y, 1.5)
    return t[k % 3]


def _pick_shared_in_loop(x, y, k):
    s = 0.0
    for j in range(3):
        t = (x * 2.0, y, 1.5)
        s = s + t[(k + j) % 3]
    return s


@pytest.mark.parametrize("func", [_pick_shared, _pick_shared_in_loop])
def test_tuple_item_at_a_shared_computed_index(func):
    """fuzz_gen33: ``t = (x, y, 1.5); t[k % 3]`` with ``k`` the same for every example was
    refused ("indexing a tuple of per-example values with a computed index"); the index
    picks one item for every example (Python ``if``s per position)."""
    from vectorize import vectorize
    x = np.array([1.0, 2.0, -3.0])
    y = np.array([0.5, 2.5, 4.0])
    for k in (0, 1, 2, 5, -1):
        want = np.vectorize(func)(x, y, k)
        got = vectorize(func, fallback="error")(x, y, k)
        assert got.dtype == want.dtype, k
        np.testing.assert_array_equal(got, want)
