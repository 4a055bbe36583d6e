"""Wrong results found by the fuzzers (benchmarks/fuzz_*.py), each fixed in general:
`vmap` against the loop over NumPy scalars (values and dtype, or the same exception type),
`vectorize` against numpy.vectorize."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from vectorize import vectorize, vmap


def _loop(f, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return np.stack([np.asarray(f(*row)) for row in zip(*args)])


def _vmap_same(f, *args):
    want = _loop(f, *args)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        got = vmap(f)(*args)
    assert got.dtype == want.dtype, (got, want)
    np.testing.assert_array_equal(got, want)


# `x.item()` of a per-example NumPy scalar is a Python number, weak in what it meets
# (NEP 50): `x ** x.item()` of a uint64 `x` is a uint64 (fuzz_nep50 seed 90888 typed it
# float64 and wrote `r - 255.0`), `y * x.item()` of a float32 `y` a float32


def item_power_minus(x, y):
    r = x ** x.item()
    return r - 255


def item_times(x, y):
    return y * x.item()


def item_plus_then_minus(x, y):
    r = y + x.item()
    return r - 3


_ITEM_DTYPES = [np.bool_, np.int8, np.uint8, np.int32, np.uint32, np.int64, np.uint64,
                np.float16, np.float32, np.float64]


@pytest.mark.parametrize("dtype", [np.uint8, np.uint16, np.uint32, np.uint64, np.int64,
                                   np.float32, np.float64])
def test_item_power_keeps_the_base_type(dtype):
    x = np.array([2, 3, 1, 0, 5], dtype=dtype)
    _vmap_same(item_power_minus, x, x)


@pytest.mark.parametrize("f", [item_times, item_plus_then_minus])
@pytest.mark.parametrize("xt", _ITEM_DTYPES)
def test_item_is_weak_python_number(f, xt):
    x = np.array([1, 0, 3, 2], dtype=xt)
    for yt in (np.bool_, np.int8, np.uint32, np.uint64, np.float32):
        if xt is not np.bool_ or yt is not np.bool_:
            _vmap_same(f, x, np.array([2, 5, 1, 0], dtype=yt))


# `vmap(..., backend="torch")` leaves a NumPy array it does not map as it is (as
# torch.func.vmap leaves arguments that are not tensors): `np.sum(w)` of it computes in NumPy
# (it was made a tensor, so `np.sum(tensor)` raised: a fallback warning, and at N = 0 a
# refusal)


def times_sum_of_unmapped(x, w):
    return x * np.sum(w) + np.max(w)


@pytest.mark.parametrize("n", [5, 0])
def test_torch_unmapped_numpy_argument_stays_numpy(n):
    pytest.importorskip("torch")
    x = np.linspace(0.0, 2.0, 5)[:n]
    w = np.array([1.0, 2.0, 4.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = vmap(times_sum_of_unmapped, in_axes=(0, None), backend="torch")(x, w)
    want = np.array([times_sum_of_unmapped(a, w) for a in x], dtype=np.float64)
    assert type(got) is np.ndarray and got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def times_item_of_unmapped(x, w):
    return x * w[0]


def test_torch_unmapped_numpy_beside_tensors_is_refused_or_looped():
    # per example `w[0]` is a NumPy float64, which PyTorch meets as a Python float (the
    # float32 tensor stays float32): not modelled, so refused, or run per example
    torch = pytest.importorskip("torch")
    from vectorize import VectorizeError
    x = torch.arange(4.0)
    w = np.array([1.5, 2.0])
    with pytest.raises(VectorizeError, match="in_axes=None beside mapped tensors"):
        vmap(times_item_of_unmapped, in_axes=(0, None), backend="torch")(x, w)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = vmap(times_item_of_unmapped, in_axes=(0, None), backend="torch",
                   fallback="loop")(x, w)
    want = torch.stack([times_item_of_unmapped(a, w) for a in x])
    assert torch.is_tensor(got) and got.dtype == want.dtype == torch.float32
    assert torch.equal(got, want)


# An arm of a conditional expression (or the right side of `and`/`or`) whose test is the
# same for every example and which Python raises for on every example that takes it: the
# statement no longer counts as raising on every path (fuzz_bools seed 100169: `(0.5 & b)
# if b else b ** (a > 0)` with `b = 0.0` returned a (3, 3) array for 3 examples)


def raising_arm_or_power(a, b):
    return (0.5 & b) if b else (b ** (a > 0))


def plus_raising_arm(a, b):
    return a + ((0.5 & b) if b else 1.0)


def or_raising_right(a, b):
    return (b or (0.5 & b)) + a


def complex_order_in_else(a, b):
    r = a if b else (1j < b)
    return r * 2


@pytest.mark.parametrize("f", [raising_arm_or_power, plus_raising_arm, or_raising_right,
                               complex_order_in_else])
@pytest.mark.parametrize("b", [0.0, 2.0])
def test_arm_raising_for_every_example_under_a_shared_test(f, b):
    a = np.array([-1.0, 2.0, 3.0])
    try:
        want = np.vectorize(f)(a, b)
    except TypeError:
        with pytest.raises(TypeError):
            vectorize(f, fallback="error")(a, b)
        with pytest.raises(TypeError):
            vmap(f, in_axes=(0, None))(a, b)
        return
    got = vectorize(f, fallback="error")(a, b)
    assert got.shape == want.shape and got.dtype == want.dtype, (got, want)
    np.testing.assert_array_equal(got, want)
    _vmap_same(lambda x: f(x, b), a)


# An augmented assignment to a name that holds a per-example Python int (`r = y.item() -
# 1`) of a NumPy narrow int or uint64 (`r -= np.sign(x)`): NEP 50 makes the Python int that
# type, raising OverflowError per example where it is beyond it, as `r = r - ...` already
# did (fuzz_nep50 seed 100921: vmap returned where the loop raises)


def item_minus_then_augmented(x, y):
    r = y.item() - True
    r -= np.sign(x)
    return r


def item_times_then_augmented(x, y):
    r = y.item() * 100
    r += x
    return r


@pytest.mark.parametrize("f", [item_minus_then_augmented, item_times_then_augmented])
@pytest.mark.parametrize("xt", [np.int8, np.uint8, np.uint32, np.uint64])
def test_augmented_python_int_meets_narrow_int(f, xt):
    x = np.array([1, 2, 3], dtype=xt)
    y = np.array([0, 5, 1], dtype=np.uint32)
    try:
        _loop(f, x, y)
    except OverflowError:
        with pytest.raises(OverflowError):
            vmap(f)(x, y)
        return
    _vmap_same(f, x, y)


# `vectorize`: a choice the same for every example between a per-example Python bool and
# a number (`(not a) if (not b) else a`): the bool arm computes as the int it is per
# example (`True + True` is 2), where the batch's bool array added as a logical or
# (fuzz_bools seed 100476: [1, 1, 1, 1, 1] for numpy.vectorize's [2, 2, 1, 1, 1])


def bool_or_int_arm_plus_bool(a, b):
    return (not b) + ((not a) if (not b) else a)


def bool_or_float_arm_plus_true(a, x, b):
    r = (a > 0) if b else x
    return r + True


def not_plus_not(a, b):
    return (not b) + (not a)


def bool_arm_returned(a, b):
    return (a >= b) if a else a


@pytest.mark.parametrize("b", [np.float32(-0.0), 0.0, 2.0])
def test_bool_arm_of_a_shared_choice_adds_as_int(b):
    a = np.array([0, 0, -128, 2, -128], dtype=np.int8)
    # (`not b` of a NumPy scalar argument is a Python bool: `True + True` is 2)
    for f, args in ((not_plus_not, (a, b)), (bool_arm_returned, (np.array(5), a * 0.5))):
        want = np.vectorize(f)(*args)
        got = vectorize(f, fallback="error")(*args)
        assert got.dtype == want.dtype, (got, want)
        np.testing.assert_array_equal(got, want)
    for otypes in ("d", None):
        want = np.vectorize(bool_or_int_arm_plus_bool, otypes=otypes)(a, b)
        got = vectorize(bool_or_int_arm_plus_bool, otypes=otypes, fallback="error")(a, b)
        assert got.dtype == want.dtype, (got, want)
        np.testing.assert_array_equal(got, want)
    x = np.array([0.5, -1.0, 2.0, 3.0, 0.0])
    want = np.vectorize(bool_or_float_arm_plus_true)(a, x, b)
    got = vectorize(bool_or_float_arm_plus_true, fallback="error")(a, x, b)
    assert got.dtype == want.dtype, (got, want)
    np.testing.assert_array_equal(got, want)


# A name the same for every example that is a number of another kind on each path (`False
# if b else 0.5`): the path the call takes decides the type of what is computed from it,
# which numpy.vectorize's outputs take from the first example (fuzz_bools seed 100994: a
# bool output where the first example returns `not b`, float64 here)


def shared_choice_of_bool_or_float(a, b):
    if a:
        return (not b) if b else 0.5
    return b * a


@pytest.mark.parametrize("b", [2, 0])
def test_shared_join_of_number_kinds_learns_the_first_example_type(b):
    a = np.array([np.nan, 0.0, 1.5])
    want = np.vectorize(shared_choice_of_bool_or_float)(a, b)
    got = vectorize(shared_choice_of_bool_or_float, fallback="error")(a, b)
    assert got.dtype == want.dtype, (got, want)
    np.testing.assert_array_equal(got, want)


# `vectorize` with a NumPy scalar argument, which numpy.vectorize hands to every example as
# it is: its division by a zero is NumPy's (inf, nan or 0 with a warning), no
# ZeroDivisionError for a handler to catch nor a check to raise (fuzz_hunt14 seed 100103:
# `divmod(b, a)[1]` of `b = np.int64(5)` in a `try` gave the handler's -1 where a == 0)


def modulo_in_try(a, b):
    try:
        z = divmod(b, a)[1]
    except (ValueError, OverflowError, ZeroDivisionError):
        z = -1
    return z


def divide_in_try(a, b):
    try:
        z = a / b
    except ZeroDivisionError:
        z = -1.0
    return z


@pytest.mark.parametrize("f", [modulo_in_try, divide_in_try])
@pytest.mark.parametrize("b", [np.int64(5), np.float64(5.0), np.int64(0), np.float64(0.0),
                               np.uint8(0), 5, 0.0])
def test_numpy_scalar_argument_divides_as_numpy(f, b):
    a = np.array([2, 10, 0, 2], dtype=np.uint8)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            want = np.vectorize(f)(a, b)
        except ZeroDivisionError:
            with pytest.raises(ZeroDivisionError):
                vectorize(f, fallback="error")(a, b)
            return
        got = vectorize(f, fallback="error")(a, b)
    assert got.dtype == want.dtype, (got, want)
    np.testing.assert_array_equal(got, want)


# `vmap`: a Python int on some lanes (a float32 on others) raised to a NumPy int's power
# computes in that int per example (NEP 50), wrapping (`300 ** 40` is 0 in int64), where the
# batch's float64 gives inf: refused, located (fuzz_nep50 seed 100915)


def python_int_or_float_to_int_power(x, y):
    r = x & x
    if x < -1 or x > 1:
        r = (300 if 300 < y else y) ** np.maximum(r, -2)
    else:
        r = -1 + r
    return r


def test_python_int_lane_to_numpy_int_power_same_or_refused():
    from vectorize import VectorizeError
    x = np.array([40, 3, -5, 1, 2], dtype=np.int64)
    y = np.array([500.0, 2.0, 0.5, 3.0, 700.0], dtype=np.float32)
    try:
        got = vmap(python_int_or_float_to_int_power)(x, y)
    except VectorizeError as exc:
        assert "differs between lanes" in str(exc) and ":" in str(exc).splitlines()[0]
        return
    want = _loop(python_int_or_float_to_int_power, x, y)
    assert got.dtype == want.dtype, (got, want)
    np.testing.assert_array_equal(got, want)


# `vmap`: `min(x, 7)` of an int64 `x` is a Python int on the lanes that keep 7, weak where
# it meets a uint8 next (NEP 50: `np.uint8(255) * 7` wraps to 249), where the batch's int64
# array of it did not wrap (fuzz_nep50 seed 100870): its lane types are tracked, so such a
# meeting is refused, located


def min_of_uint8_times_min_of_int(x, y):
    r = min(x, y)
    r *= min(x, 7)
    return r


def test_min_with_python_int_keeps_its_lane_type():
    from vectorize import VectorizeError
    x = np.array([2**62, 3], np.int64)
    y = np.array([255, 2], np.uint8)
    try:
        got = vmap(min_of_uint8_times_min_of_int)(x, y)
    except VectorizeError as exc:
        assert "differs between lanes" in str(exc) and ":" in str(exc).splitlines()[0]
        return
    want = _loop(min_of_uint8_times_min_of_int, x, y)
    assert got.dtype == want.dtype, (got, want)
    np.testing.assert_array_equal(got, want)


# ... and `vmap`: `not a` of a NumPy scalar is a Python bool too, so `True + ((not a) if
# (not b) else a)` is 2 on the examples that take the bool arm (the batch gave True)


@pytest.mark.parametrize("b", [0.0, 1.0])
@pytest.mark.parametrize("dtype", [np.int8, np.int64])
def test_vmap_python_bool_arm_of_a_shared_choice_adds_as_int(b, dtype):
    a = np.array([0, 0, -128, 2], dtype=dtype)
    want = _loop(lambda x: bool_or_int_arm_plus_bool(x, b), a)
    # (a Python int on some calls, an int8 on others: the choice is the same for every
    # example of a call, so no lane is joined with another; each call has its own type)
    got = vmap(bool_or_int_arm_plus_bool, in_axes=(0, None))(a, b)
    assert got.dtype == want.dtype, (got, want)
    np.testing.assert_array_equal(got, want)
