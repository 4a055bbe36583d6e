"""Regressions of `vmap` left open by hunt8's NEP 50 fuzzing: each compares with the
per-example loop over NumPy scalars (values and dtype where it returns, the exception type
where it raises) and fails without its fix."""

import math
import warnings

import numpy as np
import pytest

from vectorize import VectorizeError, vectorize, vmap


def _loop(f, *args):
    """The per-example loop, stacked as `vmap`'s reference stacks it, or the exception type
    of the first example that raises."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return np.stack([np.asarray(f(*[a[i] for a in args])) for i in range(len(args[0]))])
        except Exception as exc:  # noqa: BLE001 -- the reference's outcome
            return type(exc)


def _agrees(got_call, expected):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        if isinstance(expected, type):
            with pytest.raises(expected):
                got_call()
            return
        got = np.asarray(got_call())
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    np.testing.assert_array_equal(got, expected)


# ---------- an operation on Python numbers that every example runs keeps Python's raise
# (once a per-example `if` is a merge, the later analyses compute such operations on NumPy
# scalars, so that lanes the scalar code keeps out cannot raise; `python_raises`, which runs
# before the merges, now writes the check for every such operation)
def _power_then_if(x):
    r = 0.0 ** -1
    if x > 0:
        r = x
    return r


def _pow_call_then_if(x):
    r = pow(0.0, -1.5)
    if x > 0:
        r = x
    return r


def _overflow_then_if(x):
    r = 10.0 ** 400
    if x > 0:
        r = x
    return r


def _power_in_branch(x):
    r = x
    if x > 0:
        r = 0.0 ** -1
    return r


def _power_in_masked_loop(x):
    t = 0.0
    n = 0
    while n < x:
        t = t + 0.0 ** -1
        n += 1
    return t


def _power_not_raising(x):
    r = 2.0 ** -1
    if x > 0:
        r = x
    return r


def _shared_power(x, a):
    r = a ** 2
    if x > 0:
        r = x
    return r


def _power_in_elif_test(x):
    r = x
    if x != x:
        r = 1.0
    elif (-0.0 ** -1) > 0 and x < 3:
        r = x - 1
    return r


@pytest.mark.parametrize("f", [_power_then_if, _pow_call_then_if, _overflow_then_if,
                               _power_in_branch, _power_in_masked_loop, _power_not_raising,
                               _power_in_elif_test])
@pytest.mark.parametrize("x", [np.array([1.0, -1.0, 3.0, -0.0, 2.5]), np.array([-1.0]),
                               np.array([-2.0, -0.5]), np.array([np.nan, np.nan])])
def test_python_number_operation_every_example_runs_raises(f, x):
    # was inf on every lane the `if` does not take (vectorize raised already)
    expected = _loop(f, x)
    for _ in range(2):
        _agrees(lambda: vmap(f)(x), expected)
    _agrees(lambda: vectorize(f, fallback="error")(x),
            expected if isinstance(expected, type) else expected.astype(float))


def test_python_number_operation_every_example_runs_decides_no_test():
    # `(-0.0 ** -1) > 0` in an `elif`: the second `python_conditions` pass (after the
    # merges) took NumPy's -inf as the test's exact value and dropped the branch, with the
    # raise Python makes on every lane that gets there
    x = np.array([1.0, np.nan, 2.0])
    _agrees(lambda: vmap(_power_in_elif_test)(x), ZeroDivisionError)
    np.testing.assert_array_equal(vmap(_power_in_elif_test)(np.array([np.nan])), [1.0])


def test_shared_python_float_power_overflow_raises():
    # `a ** 2` of a shared Python float 1e200: every example raises OverflowError (was inf)
    x = np.array([1.0, -1.0, 2.0])
    _agrees(lambda: vmap(_shared_power, in_axes=(0, None))(x, 1e200), OverflowError)
    _agrees(lambda: vmap(_shared_power, in_axes=(0, None))(x, 3.0),
            _loop(lambda v: _shared_power(v, 3.0), x))


def test_python_number_operation_every_example_runs_torch():
    torch = pytest.importorskip("torch")
    with pytest.raises(ZeroDivisionError):
        vmap(_power_then_if)(torch.tensor([1.0, -1.0]))


def test_python_number_operation_every_example_runs_empty_batch():
    # no example: the function raises on every example, so it has no result type; `vmap`
    # raises Python's exception, as it does for `1 // 0` (its per-example loop cannot run
    # on an empty batch either); where the operation runs on some lanes only, nothing
    # raises
    empty = np.array([], dtype=np.float64)
    with pytest.raises(ZeroDivisionError):
        vmap(_power_then_if)(empty)
    assert vmap(_power_in_branch)(empty).shape == (0,)
    assert vmap(_power_in_masked_loop)(empty).shape == (0,)


def test_python_number_operation_large_batch():
    x = np.linspace(-5.0, 5.0, 10_000)
    with pytest.raises(ZeroDivisionError):
        vmap(_power_then_if)(x)
    np.testing.assert_array_equal(vmap(_power_not_raising)(x), np.where(x > 0, x, 0.5))


# ---------- an operation on a value of different types on different lanes: the batch
# computes every lane in the joined type, the loop each in its own; where that type decides
# the outcome (raising, a narrower float, an int that may wrap), refused, located
def _max_power(x, y):
    r = max(2.0, x)
    return r ** -1


def _sign_of_choice(x, y):
    r = x if y > 0 else 1.5
    return np.sign(r)


def _exp_of_choice(x, y):
    r = x if y > 0 else 1.5
    return np.exp(r)


def _wrapping_sum(x, y):
    r = min(1e300, x)
    return math.floor(r) + r


def _floor_of_choice(x, y):
    r = x if y > 0 else 1.5
    return np.floor(r) * 0.5


def _float_lane_count(x, y):
    r = 0
    if y > 0:
        r = x * 0.5
    return r * 2


def _remainder_of_choice(x, y):
    r = x
    if y > 0:
        r = y * 0.5
    return r % x


@pytest.mark.parametrize("f, x", [
    (_max_power, np.array([1, 5, 3], np.uint32)),     # the uint32 lanes raise
    (_max_power, np.array([1, 5, 3], np.int64)),      # the int64 lanes raise
    (_sign_of_choice, np.array([True, False, True])),  # np.sign of a bool raises
    (_exp_of_choice, np.array([1, 2, 3], np.int16)),  # float32 on the int16 lanes
    (_wrapping_sum, np.array([2 ** 31 + 5, 4], np.uint32)),     # uint32 wraps
])
def test_operation_on_lanes_of_different_types_is_refused(f, x):
    # were the joined type's results (1/x, 1.0, exp in float64, 2**32 + 10) where the loop
    # raises, computes in float32 or wraps in uint32
    y = np.array([1.0, -1.0, 1.0])[:len(x)]
    with pytest.raises(VectorizeError) as info:
        vmap(f)(x, y)
    assert "differs between lanes" in str(info.value) and ".py:" in str(info.value)


@pytest.mark.parametrize("f, x", [
    # int64 % 0 is 0 where float64's is nan: a zero divisor on an int lane is checked,
    # the per-example loop decides that call
    (_remainder_of_choice, np.array([0, 2, 3])),
    (_floor_of_choice, np.array([1, 2, 3], np.int16)),   # floor keeps the value
    (_float_lane_count, np.array([1.0, 2.0, 3.0])),      # a Python int lane: exact
    (_exp_of_choice, np.array([1, 2, 3], np.int64)),     # float64 either way
])
@pytest.mark.parametrize("y", [np.array([1.0, -1.0, 1.0]), np.array([-1.0, -2.0, -3.0])])
def test_operation_on_lanes_of_different_types_where_the_type_does_not_decide(f, x, y):
    expected = _loop(f, x, y)
    for n in (len(x), 1):
        got = vmap(f)(x[:n], y[:n])
        np.testing.assert_array_equal(got, expected[:n])


# ---------- a loop's carry that starts as a number the joined dtype cannot hold
def _carry_from_minus_two(x, n):
    r = -2
    i = 0
    while i < n:
        r = x
        i += 1
    return r


def _carry_for_if(x, n):
    r = -2
    for i in range(n):
        if x > i:
            r = x
    return r


@pytest.mark.parametrize("f", [_carry_from_minus_two, _carry_for_if])
@pytest.mark.parametrize("size", [0, 1, 3])
def test_carry_the_joined_dtype_cannot_hold_is_joined_as_the_loop_stacks(f, size):
    # was `np.full(n, -2, dtype=np.uint64)`, which raises OverflowError (every call at
    # N > 0 ran the loop; N = 0 raised it); then refused; now the carry is held as the
    # loop's results stack where the lanes differ (a Python int -2 beside uint64s:
    # float64), in that joined type where they do not (docs/semantics.md)
    x = np.array([5, 1, 2 ** 63 + 5], np.uint64)[:size]
    n = np.array([1, 0, 2])[:size]
    out = vmap(f)(x, n)
    expected = [f(a, b) for a, b in zip(x, n)]
    # (each call has the type the loop's stack of its lanes has: uint64 where every lane
    # holds x, as at size 1; the join, float64, for the empty batch)
    assert out.dtype == (np.stack(expected).dtype if size else np.float64)
    if size == 3:
        assert np.stack(expected).dtype == np.float64
    np.testing.assert_array_equal(out, np.array(expected, dtype=out.dtype))
    # a start the dtype holds still runs
    ok = np.array([5, 1, 7], np.uint64)[:size]
    np.testing.assert_array_equal(vmap(_carry_holds)(ok, n),
                                  [_carry_holds(a, b) for a, b in zip(ok, n)])


def _carry_holds(x, n):
    r = 2
    i = 0
    while i < n:
        r = x
        i += 1
    return r
