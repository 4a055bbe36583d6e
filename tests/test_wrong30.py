"""`vmap` against the loop over NumPy scalars where a value has different types on different
lanes: a Python number per example (``round(x)``, ``int(z)``) or a constant beside a narrow
NumPy value, ints of different widths, a Python bool beside a NumPy bool, a loop carry that
becomes mixed on a later pass, ``round`` of the 0-d array ``np.where`` gives per example, and
``x ** 2`` of a bool (NEP 50 fuzz seeds 31178, 31135, 1926, 1907, 40230, 41020, 41224)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from vectorize import VectorizeError, vmap


def _loop(f, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return np.stack([np.asarray(f(*row)) for row in zip(*args)])


def _same(f, *args):
    """vmap(f) gives the loop's values and dtype."""
    want = _loop(f, *args)
    got = vmap(f)(*args)
    assert got.dtype == want.dtype, (got, want)
    np.testing.assert_array_equal(got, want)


def _refused_or_same(f, *args):
    """vmap(f) gives the loop's values, raises the loop's exception, or refuses (located)."""
    try:
        want = ("ok", _loop(f, *args))
    except Exception as exc:    # noqa: BLE001 -- compared
        want = ("raised", type(exc))
    try:
        with np.errstate(all="ignore"):
            got = ("ok", vmap(f)(*args))
    except VectorizeError as exc:
        assert ":" in str(exc).splitlines()[0]
        return
    except Exception as exc:    # noqa: BLE001 -- compared
        got = ("raised", type(exc))
    assert got[0] == want[0], (got, want)
    if want[0] == "raised":
        assert got[1] is want[1]
    else:
        np.testing.assert_array_equal(got[1], want[1])


def round_on_some_lanes(x, y):
    r = y ** 2
    if r > 7:
        r = round(x)
    return r


def int_on_some_lanes(x, y):
    r = y
    if x > 0:
        r = int(x)
    return r


def test_a_python_int_per_example_beside_int16_lanes_is_not_wrapped():
    # seed 31178: the lanes that take round(x) hold a Python int, which the loop stacks
    # as int64 beside the int16 lanes; the batch held int16 (9007199254740992 -> 0)
    x = np.array([1.2, 9.007199254740992e15, -1, 1, 0], np.float32)
    y = np.array([1, 5, 1, 1, 9], np.int16)
    _same(round_on_some_lanes, x, y)


@pytest.mark.parametrize("dx, dy", [("float32", "int16"), ("float64", "uint8"),
                                    ("float64", "float32")])
def test_int_per_example_beside_narrow_lanes(dx, dy):
    # 16777217 in float32 would round, 1e9 wraps in int16 / uint8
    x = np.array([1e9, -1, 16777217, 3e4], dx)
    y = np.array([1, 5, 1, 7], dy)
    _same(int_on_some_lanes, x, y)


def minus_one_or_minimum(x, y):
    r = -1
    if not (r * y):
        r = np.minimum(math.ceil(y), min(x, x))
    return r


def test_a_constant_the_narrow_lanes_cannot_hold_joins_wide():
    # seed 1907: -1 on some lanes, uint8 on others: the batch's uint8 cannot hold -1 (the
    # empty batch raised OverflowError from np.full)
    x = np.array([1, 2, 3], np.uint8)
    y = np.array([True, False, True])
    _same(minus_one_or_minimum, x, y)
    out = vmap(minus_one_or_minimum)(x[:0], y[:0])
    assert out.shape == (0,) and np.can_cast(np.int8, out.dtype)


def round_of_where(x, y):
    return round(np.where(x > y, x, y))


def trunc_of_where_name(x, y):
    r = np.where(x > y, x, y)
    return math.trunc(r)


@pytest.mark.parametrize("f", [round_of_where, trunc_of_where_name])
def test_round_of_a_0d_array_is_refused(f):
    # seed 31135: per example np.where of scalars is a 0-d ndarray, which has no __round__
    # (TypeError); the batch rounded
    x = np.array([1.5, 2.5], np.float32)
    y = np.array([1, 3], np.uint8)
    with pytest.raises(TypeError):
        _loop(f, x, y)
    with pytest.raises(VectorizeError, match="0-d array"):
        vmap(f)(x, y)


def round_of_where_item(x, y):
    return round(np.where(x > y, x, y)[()])


def test_round_of_a_0d_arrays_item_still_runs():
    x = np.array([1.5, 2.5], np.float64)
    y = np.array([1, 3], np.uint8)
    _same(round_of_where_item, x, y)


def carry_min_then_divmod(x, y):
    r = x / 2
    for _k in range(3):
        r = min(y, r)
    return divmod(-1, r)[1]


def carry_min_while_break(x, y):
    r = x / 2
    k = 0
    while k < 3:
        r = min(y, r)
        if -2 >= r:
            break
        k += 1
    t = divmod(-1, r)[1]
    return t * 0 + y


@pytest.mark.parametrize("f", [carry_min_then_divmod, carry_min_while_break])
def test_a_carry_that_becomes_mixed_on_a_later_pass(f):
    # seed 1926: `min(y, r)` is a uint8 on some lanes, where divmod(-1, r) raises
    # OverflowError per example; the loop's fixed point stopped before the carry was mixed
    x = np.array([1, 2, 200], np.uint8)
    y = np.array([1, 2, 3], np.uint8)
    _refused_or_same(f, x, y)


def int16_or_int32_times(x, y, z):
    r = y
    if x > 0:
        r = z
    return r * 1000


def int16_or_python_int_negated(x, y, z):
    r = y
    if x > 0:
        r = round(z)
    return -r


@pytest.mark.parametrize("f", [int16_or_int32_times, int16_or_python_int_negated])
def test_narrow_int_lanes_that_wrap_where_the_batch_does_not(f):
    x = np.array([1, -1, -1])
    y = np.array([1, 30000, -32768], np.int16)
    z = np.array([100000, 4, 1], np.int32 if f is int16_or_int32_times else np.float32)
    _refused_or_same(f, x, y, z)


def int16_or_int32_formatted(x, y, z):
    r = y
    if x > 0:
        r = z
    return f"{r}"


def test_ints_of_different_widths_still_format():
    x = np.array([1, -1, -1])
    y = np.array([1, 30000, -32768], np.int16)
    z = np.array([100000, 4, 1], np.int32)
    got = vmap(int16_or_int32_formatted)(x, y, z)
    assert list(got) == [int16_or_int32_formatted(*r) for r in zip(x, y, z)]


def minimum_of_a_big_constant_lane(x, y):
    r = np.minimum(max(y, 2 ** 40), x)
    return r + 0.5


def test_a_constant_python_int_lane_that_overflows_a_narrow_int():
    # seed 40230: max(y, 2 ** 40) of a float16 y is the Python int 2 ** 40 on its lanes,
    # which np.minimum with an int32 x raises OverflowError for; the batch (float64)
    # computed it
    x = np.array([1, 2, 3], np.int32)
    y = np.array([1, 2, 3], np.float16)
    _refused_or_same(minimum_of_a_big_constant_lane, x, y)


def carry_int64_then_uint32(x, y):
    r = np.int64(y)
    k = 0
    while k < 3:
        r = x << 2
        if x > 5:
            break
        k += 1
    r *= r
    return r


def test_a_carry_of_a_narrower_int_after_a_loop_every_example_enters():
    # per example `r` leaves the loop a uint32 (every example runs it at least once), which
    # `r *= r` wraps; the batch held the int64 join and did not wrap
    x = np.array([40000, 3, 70000], np.uint32)
    y = np.array([1, 2, 3], np.float16)
    _refused_or_same(carry_int64_then_uint32, x, y)


def minimum_of_bool_squared(x, y):
    return np.minimum(x ** 2, y)


def bool_squared_times(x, y):
    return (x > y) ** 2 * 1000 + y


@pytest.mark.parametrize("f", [minimum_of_bool_squared, bool_squared_times])
def test_a_bool_squared_is_the_int64_power(f):
    # NEP 50 seed 41224: `x ** 2` of a bool array is np.square's int8, per example
    # np.True_ ** 2 is int64 (np.minimum with an int32 then wrote into the int8 array)
    x = np.array([True, False, True])
    y = np.array([-2 ** 31, 5, 300], np.int32)
    _same(f, x, y)


def negated_chain(x, y):
    return -(x < 128 < 10)


def python_or_numpy_bool_doubled(x, y):
    r = True
    if x > 3:
        r = x > y
    return r + r


def python_or_numpy_bool_counted(x, y):
    r = True
    if x > 3:
        r = x > y
    return r * 2 + 1


@pytest.mark.parametrize("f", [negated_chain, python_or_numpy_bool_doubled,
                               python_or_numpy_bool_counted])
def test_a_python_bool_on_some_lanes_and_a_numpy_bool_on_others(f):
    # NEP 50 seed 41020: `x < 128 < 10` is Python's `128 < 10` (False) where x < 128 and
    # NumPy's False elsewhere, where `-` raises TypeError; `r + r` is 2 for a Python True,
    # True for NumPy's
    x = np.array([1, 200, 5], np.uint64)
    y = np.array([1, 2, 3], np.uint8)
    _refused_or_same(f, x, y)
