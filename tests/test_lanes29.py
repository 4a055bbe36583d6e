"""Values of different types on different lanes under `vmap` (NumPy and JAX backends):
each case against the loop over NumPy scalars (the same values and dtype), or a located
refusal where the lanes' types decide the outcome (fuzz_jax27 nep50 seeds 275 and 1515).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from vectorize import VectorizeError, vectorize, vmap

BACKENDS = [None, "jax"]


def _loop(f, *args):
    """The per-example loop's results stacked."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return np.stack([np.asarray(f(*row)) for row in zip(*args)])


def _backend(backend):
    if backend == "jax":
        pytest.importorskip("jax")
    return backend


def _same(got, expected):
    got = np.asarray(got)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    np.testing.assert_array_equal(got, expected)


# --- a name that is a Python number at one use and a NumPy value at a later one ---------
def rebound_weak(x, y):
    r = 0.1
    a = x * r
    r = y
    b = x * r
    return a, b


def rebound_weak_in_branch(x, y):
    r = 0.1
    a = x * r
    r = y if y > 0.2 else y * 2
    return a, np.float32(x) > r


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f", [rebound_weak, rebound_weak_in_branch])
def test_a_rebound_name_is_weak_only_where_it_holds_a_python_number(f, backend):
    # `r = y` after `r = 0.1`: per example the second `x * r` is float32 * float64, float64
    # (the batch converted `r` to float32 there, as if it still held the Python 0.1)
    x = np.array([0.1, 0.3, 1.7, -2.2], np.float32)
    y = np.array([0.1, 0.3, 1.7000000001, -2.2])
    got = vmap(f, backend=_backend(backend))(x, y)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        rows = [f(a, b) for a, b in zip(x, y)]
    for k, part in enumerate(got):
        _same(part, np.stack([np.asarray(row[k]) for row in rows]))


# --- a `min` of a Python float and a NumPy float meeting a float32 (seed 1515) -------------
def min_meets_float32(x, y):
    r = min(1e300 + True, y)
    return np.float32(x) > r


def min_then_branches(x, y):
    r = min((1e300 + True), y)
    if np.sign(r) < -1 or 0 > 1:
        r = ((128 * y) % (x - y))
    if np.float32(y) > r:
        r = ((r * x) % (np.copysign(x, -2)))
    else:
        r = (np.copysign(np.negative(y), y))
    return r


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f, x, y", [
    (min_meets_float32, np.array([0.1, 3e38, 1.0], np.float32), np.array([0.1, 2e300, 1.0])),
    (min_then_branches, np.array([-9, 3, 32767], np.int16), np.array([0.1, 2e300, 0.1])),
])
def test_a_python_number_on_some_lanes_meeting_a_narrow_float_is_refused(f, x, y, backend):
    # per example `np.float32(y) > r` compares in float32 where `r` is the Python float
    # (NEP 50) and in float64 where it is y's float64: the batch compared every lane in
    # float32 (0.1 lanes: float32(0.1) > 0.1 is True per example, False in the batch)
    with pytest.raises(VectorizeError, match="Python number on some examples") as info:
        vmap(f, backend=_backend(backend))(x, y)
    assert "np.float32" in str(info.value) and "^" in str(info.value)


def _compared_in_helper(x, r):
    return np.float32(x) > r


def min_passed_to_helper(x, y):
    return _compared_in_helper(x, min(1e300, y))


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_python_number_on_some_lanes_passed_to_a_helper_is_refused(backend):
    x = np.array([0.1, 3.0], np.float32)
    y = np.array([0.1, 2e300])
    with pytest.raises(VectorizeError, match="Python number on some examples"):
        vmap(min_passed_to_helper, backend=_backend(backend))(x, y)


def min_meets_float64(x, y):
    r = min(1e300 + True, y)
    return np.float64(x) > r, r * x


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_python_number_on_some_lanes_meeting_a_wide_value_is_not_refused(backend):
    # nothing narrower meets it: every lane computes in float64 as the batch does
    x = np.array([0.1, 3.0, 1.0])
    y = np.array([0.1, 2e300, 1.0])
    got = vmap(min_meets_float64, backend=_backend(backend))(x, y)
    expected = _loop(lambda a, b: np.stack(min_meets_float64(a, b)), x, y)
    _same(np.stack([np.asarray(g, dtype=np.float64) for g in got], axis=1), expected)


# --- a carry that every example gives a new type in a loop it enters (seed 275) ------------
def carry_changes_type(x, y):
    r = np.float32(y)
    k = 0
    while k < 3:
        r = np.negative(x)
        if y > r:
            break
        k += 1
    return r


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_carry_every_lane_retypes_beyond_its_join_is_refused(backend):
    # per example `r` leaves the loop a uint64 (the loop always runs a pass); the batch
    # held it in the join with the float32 before the loop (float64; float32 under JAX),
    # rounding 2**64 - 1 - ...
    x = np.array([1, 2**62 + 3, 5, 2**63 + 1], np.uint64)
    y = np.array([0.5, 4.0, -1.0, 2.0], np.float16)
    with pytest.raises(VectorizeError, match="changes type in a loop") as info:
        vmap(carry_changes_type, backend=_backend(backend))(x, y)
    assert "while k < 3" in str(info.value)


def carry_retyped_on_some_lanes(x, y):
    r = np.float32(y)
    k = 0
    while y > k:
        r = x
        k += 1
    return r


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_carry_retyped_on_some_lanes_joins_as_the_loop_stacks(backend):
    # lanes that never enter keep the float32, the others take the uint64: the loop's
    # results stack to float64, which holds these; JAX joined the carry in float32
    x = np.array([2**30 + 1, 2**31 + 3, 5, 7], np.uint64)
    y = np.array([0.5, 4.0, -1.0, 2.0], np.float32)
    got = vmap(carry_retyped_on_some_lanes, backend=_backend(backend))(x, y)
    _same(got, _loop(carry_retyped_on_some_lanes, x, y))


def carry_retyped_held(x, y):
    r = np.float32(y)
    k = 0
    while k < 3:
        r = x
        if y > k:
            break
        k += 1
    return r


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_carry_every_lane_retypes_within_its_join_is_not_refused(backend):
    # an int16 in the float32/float64 join is exact: the values are the loop's
    x = np.array([-3, 300, 5, 32767], np.int16)
    y = np.array([0.5, 4.0, -1.0, 2.0], np.float32)
    got = vmap(carry_retyped_held, backend=_backend(backend))(x, y)
    expected = _loop(carry_retyped_held, x, y)
    np.testing.assert_array_equal(np.asarray(got), expected)


def carry_retyped_to_a_constant(x, y):
    r = np.float16(y)
    k = 0
    while k < 3:
        r = 128
        if np.ceil(y) >= x:
            break
        k += 1
    return r


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_carry_every_lane_sets_to_a_constant_its_join_holds_is_not_refused(backend):
    # per example the Python int 128, which the float16 join holds exactly
    x = np.array([1, 5, 127], np.int8)
    y = np.array([0.5, 2, 3], np.float16)
    got = vmap(carry_retyped_to_a_constant, backend=_backend(backend))(x, y)
    np.testing.assert_array_equal(np.asarray(got),
                                  _loop(carry_retyped_to_a_constant, x, y))


# --- an int power to an exponent of 2 ** 40 (fuzz_nep50 seed 1600) ------------------------
def and_of_a_huge_power(x, y):
    return (1 ** 2 ** 40) & x, y


def huge_power(x):
    return x ** (2 ** 40)


def test_the_overflow_check_of_a_huge_int_exponent_is_made_without_the_power():
    # the check's bound (the largest m with m ** k in int64) computed 2 ** (2 ** 40) to
    # learn it is 1: the call hung and took all memory
    x, y = np.array([True, False]), np.array([1, 2])
    got = vmap(and_of_a_huge_power)(x, y)
    rows = [and_of_a_huge_power(a, b) for a, b in zip(x, y)]
    for k in range(2):
        _same(got[k], np.stack([np.asarray(row[k]) for row in rows]))
    ints = np.array([1, 0, -1])
    expected = np.vectorize(huge_power)(ints)
    _same(vectorize(huge_power)(ints), expected)


# --- `.item()` of a uint64 from 2**63 on (fuzz_nep50 seed 1765) ----------------------------
def float_of_item(y):
    return float(y.item())


def test_item_of_a_uint64_beyond_int64_is_the_python_int():
    # the batch held the Python int in an int64: 2**63 wrapped to -2**63
    y = np.array([2**63, 5, 2**64 - 1], np.uint64)
    _same(vmap(float_of_item)(y), _loop(float_of_item, y))


# --- `max` of an int32 and an int64 (fuzz_jax27 nep50 seed 1720) ---------------------------
def max_of_widths(x, y):
    return max(x, y) / y


@pytest.mark.parametrize("backend", BACKENDS)
def test_max_of_ints_of_two_widths_is_the_wider(backend):
    # the analysis typed `max(x, y)` as the first argument's int32, which JAX converted
    # both operands to: 2**62 wrapped to 0
    x = np.array([1, -3, 2**31 - 1], np.int32)
    y = np.array([2**62, 2**40 + 1, -5], np.int64)
    _same(vmap(max_of_widths, backend=_backend(backend))(x, y), _loop(max_of_widths, x, y))


# --- `max` of a Python float and a float16 (fuzz_jax27 nep50 seed 1708) -------------------
def max_of_big_and_half(x, y):
    r = math.fmod(round(y), 3)
    return max(1e300, np.maximum(y, r))


def max_of_int8_and_big(x, y):
    return max(x, 300)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f", [max_of_big_and_half, max_of_int8_and_big])
def test_max_of_a_python_number_and_a_narrow_value_keeps_the_python_number(f, backend):
    # per example the result is the Python 1e300 (300): NEP 50 made the batch's number a
    # float16 (int8), inf
    x = np.array([1, 5], np.int8)
    y = np.array([2.0, 3.0], np.float16)
    _same(vmap(f, backend=_backend(backend))(x, y), _loop(f, x, y))
