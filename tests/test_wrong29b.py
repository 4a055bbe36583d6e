"""Wrong results the NEP 50 sweeps left (fuzz_nep50 / fuzz_jax27 seeds): each program under
`vmap` against the loop over NumPy scalars (the same values and dtype), or a located refusal
where the lanes' types decide the outcome."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from vectorize import VectorizeError, vmap

BACKENDS = [None, "jax"]


def _backend(backend):
    if backend == "jax":
        pytest.importorskip("jax")
    return backend


def _loop(f, *args):
    """The per-example loop's results stacked."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return np.stack([np.asarray(f(*row)) for row in zip(*args)])


def _same(got, expected):
    got = np.asarray(got)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    np.testing.assert_array_equal(got, expected)


# --- fuzz_nep50 seed 20723: np.where of a value that is an int8 on some lanes ---------------
def where_of_mixed_min(x, y):
    r = np.where(min(-3.5, y) > 300, min(-3.5, y), 300)
    return r


def test_where_of_a_value_int8_on_some_lanes_is_refused_located():
    # min(-3.5, int8 y) is the int8 y where y < -3.5 (np.where casts 300 to int8 there: 44),
    # the Python -3.5 elsewhere; the batch's float64 join gave 300 on every lane
    x = np.zeros(6, np.uint32)
    y = np.array([-100, 5, -4, 0, -128, 127], np.int8)
    expected = _loop(where_of_mixed_min, x, y)
    assert 44 in expected and 300 in expected           # the lanes really differ
    with pytest.raises(VectorizeError) as info:
        vmap(where_of_mixed_min)(x, y)
    message = str(info.value)
    assert "test_wrong29b.py" in message and "np.where" in message and "int8" in message


# --- fuzz_nep50 seed 20350: np.floor of a value that is an int8 on some lanes ---------------
def floor_of_never_retyped(x, y):
    r = y
    if x != x:
        r = -math.sqrt(abs(r))
    r += np.floor(r)
    r %= y
    return r


def test_floor_of_a_value_int8_on_some_lanes_is_int8_there_too():
    # the branch is never taken for int x: per example r stays the int8 y, and
    # `r += np.floor(r)` wraps in int8 (125 + 125 -> -6); the batch computed in float64
    x = np.arange(6, dtype=np.int16)
    y = np.array([125, 3, -7, 100, 1, -128], np.int8)
    expected = _loop(floor_of_never_retyped, x, y)
    assert expected.dtype == np.int8
    with pytest.raises(VectorizeError) as info:
        vmap(floor_of_never_retyped)(x, y)
    message = str(info.value)
    assert "test_wrong29b.py" in message and "int8" in message


# --- divmod of a narrow NumPy int and a Python int per example ------------------------------
def divmod_by_chosen_int(x, y):
    r = 3 if x > 1 else 5
    return divmod(y, r)


def divmod_by_int_of(x, y):
    r = int(x)
    return divmod(y, r)


def divmod_of_chosen_int(x, y):
    r = 3 if x > 1 else 5
    return divmod(r, y)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f", [divmod_by_chosen_int, divmod_by_int_of, divmod_of_chosen_int])
def test_divmod_narrows_a_python_int_to_the_numpy_int_it_meets(f, backend):
    # per example divmod(np.uint32(y), 3) is a uint32 pair (NEP 50, as `y // 3`); the
    # batch gave int64
    x = np.array([1, 2, 3, 7])
    y = np.array([100, 5, 4, 4000000000], np.uint32)
    q, r = vmap(f, backend=_backend(backend))(x, y)
    expected = _loop(f, x, y)
    _same(q, expected[:, 0])
    _same(r, expected[:, 1])
    assert expected.dtype == np.uint32


# --- fuzz_jax27 nep50 seeds 2126 and 2028: NumPy's int constructors of Python numbers -----
def int64_of_huge_constant(x, y):
    r = np.int64(1e300)
    return r


@pytest.mark.parametrize("backend", BACKENDS)
def test_int64_of_a_huge_python_float_raises_overflow_error(backend):
    # np.int64(1e300) raises OverflowError per example; JAX's conversion gave -2**63
    x = np.array([1, 2, 3], np.int32)
    y = np.array([4, 5, 6], np.uint64)
    with pytest.raises(OverflowError):
        int64_of_huge_constant(x[0], y[0])
    with pytest.raises(OverflowError):
        vmap(int64_of_huge_constant, backend=_backend(backend))(x, y)


def int64_of_float_in_tuple(x, y):
    r = abs(float(x))
    t = (np.int64(r), x)
    return t[0]


def int8_of_float(x, y):
    return np.int8(float(x))


def uint8_of_int(x, y):
    return np.uint8(int(x))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f, values, error", [
    (int64_of_float_in_tuple, [1.0, np.inf, 3.0], OverflowError),
    (int64_of_float_in_tuple, [1.0, np.nan, 3.0], ValueError),
    (int8_of_float, [1.0, 300.0, 3.0], OverflowError),
    (int8_of_float, [1.0, -129.0, 3.0], OverflowError),
    (uint8_of_int, [1.0, -1.0, 3.0], OverflowError),
])
def test_numpy_int_of_a_python_number_per_example_raises_as_the_loop(f, values, error,
                                                                      backend):
    # the scalar constructor raises for a Python number out of the type's range (or NaN);
    # the batch's conversion of the array wrapped (-2**63, 44...)
    x = np.array(values, np.float16)
    y = np.array([True, False, True])
    with pytest.raises(error):
        _loop(f, x, y)
    with pytest.raises(error):
        vmap(f, backend=_backend(backend))(x, y)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f", [int64_of_float_in_tuple, int8_of_float, uint8_of_int])
def test_numpy_int_of_a_python_number_in_range_is_the_loops(f, backend):
    x = np.array([1.5, -0.5, 127.9, 3.0], np.float16)
    y = np.array([True, False, True, False])
    if f is uint8_of_int:
        x = abs(x)
    _same(vmap(f, backend=_backend(backend))(x, y), _loop(f, x, y))


# --- divmod of a value that is a bool on some lanes (fuzz_nep50 seed 40028) ------------------
def divmod_of_bool_or_half(x, y):
    r = x if x < 0.5 else 0.5
    return divmod(r, y)[0]


def test_divmod_of_a_value_bool_on_some_lanes_is_refused_located():
    # divmod(np.False_, np.False_) is int8 (0, 0) per example; the batch's float64 gave nan
    x = np.array([False, True, False, True])
    y = np.array([False, True, True, False])
    expected = _loop(divmod_of_bool_or_half, x, y)
    assert expected[0] == 0
    with pytest.raises(VectorizeError) as info:
        vmap(divmod_of_bool_or_half)(x, y)
    message = str(info.value)
    assert "test_wrong29b.py" in message and "divmod" in message


# --- math.ceil of a constant beyond int64 (fuzz_nep50 seed 31199) ---------------------------
def ceil_of_huge_constant(x, y):
    r = math.ceil(round(1e300, 1))
    return r


@pytest.mark.parametrize("backend", BACKENDS)
def test_math_ceil_of_a_constant_beyond_int64_is_refused_located(backend):
    # per example an exact Python int (the loop stacks an object array of it); the batch's
    # np.ceil(...).astype(int) gave -2**63
    x = np.arange(3, dtype=np.int16)
    y = np.arange(3, dtype=np.uint64)
    assert _loop(ceil_of_huge_constant, x, y)[0] == math.ceil(1e300)
    try:
        got = vmap(ceil_of_huge_constant, backend=_backend(backend))(x, y)
    except VectorizeError as exc:
        message = str(exc)
    else:
        # or the loop's own answer: its exact Python ints (the per-example replay)
        assert got.dtype == object and list(got) == _loop(ceil_of_huge_constant, x, y).tolist()
        return
    # (located at the call, or, on a backend whose results hold no int beyond int64 (JAX),
    # at the return of it)
    assert "test_wrong29b.py" in message and ("math.ceil" in message or "beyond int64" in
                                               message)


def test_math_ceil_of_a_constant_in_range_is_the_loops():
    def ceil_of_constant(x, y):
        return math.ceil(round(1e15 + 0.5, 1)) + x
    x = np.arange(3, dtype=np.int64)
    y = np.arange(3, dtype=np.uint64)
    _same(vmap(ceil_of_constant)(x, y), _loop(ceil_of_constant, x, y))
