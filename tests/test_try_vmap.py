"""``try``/``except`` under `vmap` (`passes.try_except` with `_PythonValued`), and the
statements a ``try`` may now hold under both front ends (``raise``, ``if ...: raise``, ``v[i]``).

`vmap`'s reference is the per-example loop over NumPy scalars and rows (tensors on PyTorch):
there arithmetic does not raise (``x / 0.0`` is inf, with a RuntimeWarning), but ``math``
domain errors, ``int()`` of NaN or inf, an index out of range and an explicit ``raise`` do, and
Python numbers per example (``math.*`` results, ``float(x)``, literals) divide as Python does.
Lanes that would raise take the handler; the rest compute what the loop computes. Compared at
N = 0, 1, 5 and 1e4 (called repeatedly), and on hypothesis' values (NaN, infinities, signed
zeros); `vectorize` against numpy.vectorize itself; what cannot be decided refused, located.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from vectorize import VectorizeError, vectorize, vmap

TABLE = [1.5, -2.0, 4.0, 0.25]


def root_or_flag(x):
    try:
        return math.sqrt(x)
    except ValueError:
        return -1.0


def reciprocal_numpy(x):
    # a NumPy scalar divided by zero: inf per example, the handler never taken
    try:
        y = 1.0 / x
    except ZeroDivisionError:
        y = 0.0
    return y


def reciprocal_root(x):
    # `math.sqrt` is a Python float: 1.0 / 0.0 raises ZeroDivisionError per example
    try:
        y = 1.0 / math.sqrt(x)
    except ZeroDivisionError:
        y = -2.0
    except ValueError:
        y = -1.0
    return y


def truncated(x):
    try:
        n = int(x) + round(x * 2)
    except (ValueError, OverflowError):
        n = -1
    return n


def to_int(x):
    try:
        n = int(x) * 2
    except (ValueError, OverflowError):
        n = -1
    return n


def capped(x):
    try:
        if x > 2.0:
            raise ValueError("too large")
        y = x * 2.0
        if y < -3.0:
            raise OverflowError
        y = y + math.log(x + 10.0)
    except ValueError:
        y = 0.0
    except ArithmeticError:
        y = -3.0
    return y


def looked_up(k):
    try:
        return TABLE[k] * 2
    except IndexError:
        return 0.0


def row_item(v, k):
    try:
        s = v[k] + math.log(v[0])
    except IndexError:
        s = -1.0
    except ValueError:
        s = -2.0
    return s


def floats_divided(x, d):
    try:
        q = float(x) / d
        r = float(x) % d
    except ZeroDivisionError:
        q, r = 0.0, -1.0
    return q + r


def python_power(x):
    try:
        p = float(x) ** -1 + math.floor(x) ** 2
    except ZeroDivisionError:
        p = 7.0
    except (ValueError, OverflowError):
        p = -7.0
    return p


def numpy_power(x):
    # a float power of NumPy values never raises
    try:
        p = abs(x) ** 1.5 + x ** 2
    except ValueError:
        p = -1.0
    return p


SCALAR_CASES = [root_or_flag, reciprocal_numpy, reciprocal_root, truncated, capped,
                python_power, numpy_power]


def loop(func, *args, in_axes=None):
    """The per-example loop over NumPy scalars (rows) of the mapped arguments."""
    in_axes = in_axes or (0,) * len(args)
    n = next(len(a) for a, ax in zip(args, in_axes) if ax == 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with np.errstate(all="ignore"):
            lanes = [func(*[a[k] if ax == 0 else a for a, ax in zip(args, in_axes)])
                     for k in range(n)]
    return lanes


def assert_same(got, lanes, n):
    got = np.asarray(got)
    if n == 0:
        assert got.shape[:1] == (0,)
        return
    expected = np.array(lanes)
    assert got.shape == expected.shape
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    # (NumPy's scalar and array powers may differ by an ulp)
    np.testing.assert_allclose(got, expected, rtol=1e-14, atol=0)
    if got.dtype.kind == "f":
        # (zeros' signs; a NaN's sign is not compared)
        real = ~np.isnan(expected)
        np.testing.assert_array_equal(np.signbit(got[real]), np.signbit(expected[real]))


VALUES = np.array([4.0, -1.0, 0.0, -0.0, 9.0, np.nan, np.inf, -np.inf, 2.5, 1e18, -3.5, 0.5])


@pytest.mark.parametrize("func", SCALAR_CASES)
def test_vmap_matches_the_loop_at_every_size(func):
    wrapped = vmap(func)
    for n in (0, 1, 5, 10_000):
        x = np.resize(VALUES, n)
        lanes = loop(func, x)
        for _ in range(3 if n == 10_000 else 1):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                assert_same(wrapped(x), lanes, n)


@pytest.mark.parametrize("func", [root_or_flag, reciprocal_root, capped, numpy_power])
@settings(max_examples=30, deadline=None)
@given(x=hnp.arrays(np.float64, st.integers(0, 6), elements=st.floats(allow_subnormal=False)))
def test_vmap_matches_the_loop_on_any_floats(func, x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert_same(vmap(func)(x), loop(func, x), len(x))


def test_float32_examples_keep_their_type():
    x = VALUES.astype(np.float32)
    for func in (root_or_flag, reciprocal_numpy, numpy_power):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            assert_same(vmap(func)(x), loop(func, x), len(x))


def test_indexes_out_of_range_take_the_handler():
    k = np.array([0, 3, 4, -4, -5, 2, 100, -1])
    assert_same(vmap(looked_up)(k), loop(looked_up, k), len(k))
    v = np.array([[1.0, 2.0, 3.0], [0.0, 5.0, 6.0], [-1.0, 0.5, 2.0], [2.0, 2.0, 2.0]])
    k = np.array([2, -3, 3, -4])
    assert_same(vmap(row_item)(v, k), loop(row_item, v, k), len(k))


def test_an_unmapped_python_number_divides_as_python():
    x = np.array([3.0, -4.5, 0.0, 7.0])
    for d in (0.0, 2.0, -0.0):
        assert_same(vmap(floats_divided, in_axes=(0, None))(x, d),
                    loop(floats_divided, x, d, in_axes=(0, None)), len(x))


def test_a_numpy_division_by_zero_warns_as_the_loop_and_takes_no_handler():
    x = np.array([2.0, 0.0])
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        got = vmap(reciprocal_numpy)(x)
    np.testing.assert_array_equal(got, [0.5, np.inf])


def test_on_torch_tensors():
    pytest.importorskip("torch")
    import torch
    from torch_reference import check
    x = torch.tensor(VALUES)
    for func in (reciprocal_root, to_int, capped):
        for n in (0, 1, len(x)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                check(func, x[:n].clone(), grad=False, joins=True)
    del torch


@pytest.mark.parametrize("func", [capped, looked_up, python_power])
def test_vectorize_matches_numpy_vectorize(func):
    values = np.array([0, 3, 4, -4, -5, 2, 1]) if func is looked_up else VALUES
    for n in (0, 1, 5, 10_000):
        x = np.resize(values, n)
        got = vectorize(func, fallback="error")(x)
        if n == 0:
            assert got.shape == (0,)
            continue
        expected = np.vectorize(func)(x)
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


# --------------------------------------------------------------------------- refused


def helper(x):
    # a Python number or a NumPy scalar, by the example's value
    return float(x) if x > 0 else x * 2


def undecided_division(x):
    y = helper(x)
    try:
        return 1.0 / y
    except ZeroDivisionError:
        return 0.0


def integer_power(k):
    try:
        return k ** (k - 3)
    except ValueError:
        return 0


DICT = {1: 2.0, 3: 4.0}


def dict_lookup(k):
    try:
        return DICT[k]
    except KeyError:
        return 0.0


def opaque_helper(x):
    return np.interp(x, [0.0, 1.0], [1.0, 2.0])     # (what np.interp raises: not declared)


def helper_call(x):
    try:
        return opaque_helper(x) + 1.0
    except ValueError:
        return 0.0


@pytest.mark.parametrize(("func", "line", "match"), [
    (undecided_division, 3, "cannot tell"),
    (integer_power, 2, "negative power"),
    (dict_lookup, 2, "dict"),
    (helper_call, 2, "does not know"),
])
def test_what_cannot_be_decided_per_lane_is_refused_where_written(func, line, match):
    x = np.array([1, 2, 3, 4])
    with pytest.raises(VectorizeError, match=match) as info:
        vmap(func)(x)
    assert info.value.line == func.__code__.co_firstlineno + line


def test_jax_takes_the_handler_where_the_loop_raises():
    pytest.importorskip("jax")
    x = np.array([1.0, -1.0, 4.0])
    got = vmap(root_or_flag, backend="jax")(x)
    np.testing.assert_array_equal(got, [root_or_flag(v) for v in x])
