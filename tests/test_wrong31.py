"""A per-example value that is an int on some lanes and a float on others (a choice per
example: ``r = 2**60 + k if x > 0 else 0.5``), used in arithmetic after the choice: per
example the int lanes compute exactly, the batch holds every lane in float64, which rounds
ints beyond 2**53. `vectorize` against numpy.vectorize (Python numbers per example), `vmap`
against the loop over NumPy scalars (values and dtype, or a located refusal)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from vectorize import VectorizeError, vectorize, vmap


def _loop(f, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return np.stack([np.asarray(f(*row)) for row in zip(*args)])


def _same_as_numpy_vectorize(f, *args):
    want = np.vectorize(f)(*args)
    got = vectorize(f, fallback="error")(*args)
    assert got.dtype == want.dtype, (got, want)
    np.testing.assert_array_equal(got, want)


def _vmap_same_or_refused(f, *args):
    want = _loop(f, *args)
    try:
        got = vmap(f)(*args)
    except VectorizeError as exc:
        assert ":" in str(exc).splitlines()[0]
        return
    assert got.dtype == want.dtype, (got, want)
    np.testing.assert_array_equal(got, want)


def joined_then_minus(x, k):
    r = 2**60 + k if x > 0 else 0.5
    return r - 2**60


def joined_in_if_then_times(x, k):
    if x > 0:
        r = 2**60 + k
    else:
        r = x
    return r * 2 - 2**61


def joined_then_compared(x, k):
    r = 2**60 + k if x > 0 else 0.5
    return r > 2**60


def joined_then_modulo(x, k):
    r = 2**60 + k if x > 0 else 0.5
    return r % 7


def chained_below_then_beyond(x, k):
    # the join's ints lie within 2**53; `r * 3` of them does not
    r = 2**53 - 1 + k if x > 0 else 0.5
    s = r * 3
    return s - 3 * 2**53


def python_int_lane(x, k):
    r = 2**60 + int(k) if x > 0 else float(k)
    return r - 2**60


def augmented(x, k):
    r = 2**60 + k if x > 0 else 0.5
    r -= 2**60
    return r


def floor_of_joined(x, k):
    r = 2**60 + k if x > 0 else 0.5
    return math.floor(r) - 2**60


_PROGRAMS = [joined_then_minus, joined_in_if_then_times, joined_then_compared,
             joined_then_modulo, chained_below_then_beyond, python_int_lane, augmented,
             floor_of_joined]

# the first example on a float lane (numpy.vectorize's output float64) and on an int lane
_X = [np.array([-1.0, 1.0, 2.0, -3.0]), np.array([1.0, -1.0, 2.0, -3.0])]
_K = np.array([1, 2, 3, 4])


@pytest.mark.parametrize("f", _PROGRAMS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("first", [0, 1])
def test_vectorize_int_lanes_beyond_2_53(f, first):
    _same_as_numpy_vectorize(f, _X[first], _K)


@pytest.mark.parametrize("f", [joined_then_modulo, python_int_lane, floor_of_joined],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("first", [0, 1])
def test_vmap_int_lanes_beyond_2_53(f, first):
    _vmap_same_or_refused(f, _X[first], _K)


def small_ints_joined(x, k):
    r = k if x > 0 else 0.5
    return r * 3 - 1


def test_small_ints_stay_batched():
    # ints within 2**53 (the check does not fire): the batched code's answer, no replay
    x, k = np.array([-1.0, 1.0, 2.0]), np.array([1, 2, 3])
    v = vectorize(small_ints_joined, fallback="error")
    _same_as_numpy_vectorize(small_ints_joined, x, k)
    np.testing.assert_array_equal(v(x, k), [0.5, 5.0, 8.0])


def returned_as_is(x, k):
    r = 2**60 + k if x > 0 else 0.5
    return r


def test_returned_as_is_needs_no_check():
    # stored as it is: numpy.vectorize's float64 output rounds the int once, as the batch
    x, k = np.array([-1.0, 1.0, 2.0]), np.array([1, 2, 3])
    assert "2**53" not in vectorize(returned_as_is).source(x, k)
    _same_as_numpy_vectorize(returned_as_is, x, k)


class _Model:
    k = 3

    def method(self, a, b=1.5):
        return a * self.k - b


def _times_three(a):
    return a * 3 - 1.5


def _inverse(a):
    return 1 / a


@pytest.mark.parametrize("f, a", [
    (_Model().method, np.array(254, dtype=np.uint8)),           # (fuzz_options seed 70191)
    (_times_three, np.array([254, 1, 200], dtype=np.uint8)),
    (_times_three, np.array([2**62, 1], dtype=np.int64)),
    (_inverse, np.array([0.5, 2.0])),
], ids=["method_0d", "uint8", "int64", "float"])
def test_cache_true_keeps_the_first_call(f, a):
    # numpy.vectorize(cache=True) keeps the first example's result from the call that
    # learns the output types, made on NumPy scalars (a uint8 wraps there)
    with np.errstate(all="ignore"):
        want = np.vectorize(f, cache=True)(a)
        got = vectorize(f, cache=True, fallback="error")(a)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)



def test_vmap_of_cache_true_vectorize_keeps_each_examples_first_call():
    # per example (row) numpy.vectorize(cache=True) keeps the row's first result from its
    # call on NumPy scalars: 100 * 3 wraps to 44 in uint8 there (42.5), 298.5 elsewhere
    a = np.array([[254, 1, 200], [100, 254, 3]], dtype=np.uint8)
    with np.errstate(all="ignore"):
        want = np.stack([np.vectorize(_times_three, cache=True)(row) for row in a])
        got = vmap(vectorize(_times_three, cache=True), fallback="loop")(a)
    np.testing.assert_array_equal(got, want)
    with pytest.raises(VectorizeError, match="cache=True"):
        vmap(vectorize(_times_three, cache=True))(a)


_CACHED = vectorize(_times_three, cache=True)


def _calls_cached(x):
    return _CACHED(x) + 1.0


def test_cache_true_vectorize_called_inside_a_mapped_function():
    # refused where it is called (the mapped function's fallback decides), never the batch's
    a = np.array([[254, 1, 200], [100, 254, 3]], dtype=np.uint8)
    with np.errstate(all="ignore"):
        want = np.stack([np.vectorize(_times_three, cache=True)(row) + 1.0 for row in a])
        with pytest.raises(VectorizeError, match="cache=True") as info:
            vmap(_calls_cached)(a)
        assert "test_wrong31.py" in str(info.value).splitlines()[0]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = vmap(_calls_cached, fallback="loop")(a)
    np.testing.assert_array_equal(got, want)


def _vmap_raises_same_or_refused(f, *args):
    """vmap(f) raises the loop's exception (or refuses, located)."""
    with pytest.raises(Exception) as want:
        _loop(f, *args)
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = vmap(f)(*args)
    except VectorizeError as exc:
        assert ":" in str(exc).splitlines()[0]
        return
    except Exception as exc:    # noqa: BLE001 -- compared
        assert type(exc) is want.type, (exc, want.value)
        return
    raise AssertionError(f"vmap returned {got!r}; the loop raises {want.value!r}")


def modulo_of_itself_then_kept(x, y):
    # (NEP 50 fuzz seed 70651) `r` is a Python float per example: `0.0 % 0.0` raises
    r = math.fmod(np.sign(x), 3)
    r %= r
    if y >= x:
        r = r
    else:
        r = r
    return r


def shared_power_after_a_check(x, y):
    # (NEP 50 fuzz seeds 70567, 70650) `math.floor(y)` gets a check (an `if ... raise`):
    # `0.0 ** -1` still raises for every example, as Python computes it
    r = math.floor(y)
    return y + r * 0.0 + 0.0 ** -1


def shared_overflow_after_a_check(x, y):
    r = math.floor(y)
    t = 1e300 ** 2
    return y + r + t


@pytest.mark.parametrize("f", [modulo_of_itself_then_kept, shared_power_after_a_check,
                               shared_overflow_after_a_check], ids=lambda f: f.__name__)
def test_vmap_raises_where_the_loop_raises(f):
    x = np.array([1, 0, 2], dtype=np.uint8)
    y = np.array([7, 0, 1], dtype=np.uint64) if f is modulo_of_itself_then_kept else \
        np.array([1.5, -2.0, 3.0])
    _vmap_raises_same_or_refused(f, x, y)


def carry_made_a_python_float(x, y):
    # (NEP 50 fuzz seed 70509) a float32 carry the loop makes the Python float 1e300 on
    # every lane: per example 1e300, not the float32 array's inf
    r = np.exp(np.float32(y))
    k = 0
    while k < 3:
        r = 1e300
        if x > 5:
            break
        k += 1
    return r


def carry_made_a_python_float_with_a_tuple(x, y):
    # (a tuple carry keeps the loop's select form)
    r = np.exp(np.float32(y))
    t = (1, 2)
    k = 0
    while k < 3:
        r = 1e300
        t = (k, 1)
        if x > 5:
            break
        k += 1
    return r + t[0]


@pytest.mark.parametrize("f", [carry_made_a_python_float,
                               carry_made_a_python_float_with_a_tuple],
                         ids=lambda f: f.__name__)
def test_a_float32_carry_made_a_python_float(f):
    x = np.array([2, 7, 1], dtype=np.int8)
    y = np.array([2, 1, 0], dtype=np.int16)
    _vmap_same_or_refused(f, x, y)
    _same_as_numpy_vectorize(f, x, y)
