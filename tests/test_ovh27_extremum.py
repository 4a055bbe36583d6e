"""``max(x, 0.0)`` / ``min(x, c)`` of per-example floats against a number literal: the
generated code calls `merge.maximum` / `merge.minimum` (NumPy's ufunc against a row of the
number, faster than the number as an operand), which must give exactly what Python gives per
example: ``a`` kept on ties (``max(-0.0, 0.0)`` is ``-0.0``), NaN kept, the dtype NumPy
gives. Batches below, at and past the row's length (`merge.ROW`, not a multiple of it)."""

from __future__ import annotations

import types

import numpy as np
import pytest
from differential import assert_like_numpy_vectorize, numpy_vectorize_outcome
from vmap_reference import assert_same_tree, loop_vmap

import vectorize as vz
from vectorize.backends.numpy import merge

SIZES = (7, merge.MIN_ROW_LANES + 3, merge.ROW, merge.ROW + 1001)


def _awkward(n, dtype=np.float64):
    """Normal values with -0.0, 0.0, NaN (both signs), infinities and ties with 1 and -2.5."""
    x = np.random.default_rng(n).standard_normal(n).astype(dtype)
    specials = np.array([-0.0, 0.0, np.nan, -np.nan, np.inf, -np.inf, 1.0, -2.5, 2.5, -1.0],
                        dtype)
    x[::3] = np.resize(specials, x[::3].size)
    return x


def _same_bits(got, expected):
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert got.tobytes() == expected.tobytes()


def relu(x):
    return max(x, 0.0)


def relu_int_zero(x):
    return max(x, 0)


def floor_at(x):
    return min(x, -0.0)


def clamp(x):
    return min(max(x, -2.5), 1)


def shift_relu(x):
    return max(x * 2.0, 0.0)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("f", [relu, relu_int_zero, floor_at, clamp, shift_relu])
def test_vectorize_like_numpy_vectorize(f, n):
    x = _awkward(n)
    got = vz.vectorize(f, fallback="error")(x)
    expected, raised = numpy_vectorize_outcome(f, x)
    assert raised is None
    assert_like_numpy_vectorize(got, expected, signed_zeros=True)
    _same_bits(got, expected)         # NaN payloads and signs too


def test_vectorize_uses_the_rows():
    x = _awkward(merge.ROW + 5)
    text = vz.vectorize(shift_relu, fallback="error").source(x)
    assert "merge.maximum(0.0, result, out=result)" in text, text


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("n", (SIZES[1], SIZES[3]))
def test_vmap_like_the_loop(dtype, n):
    x = _awkward(n, dtype)
    got = vz.vmap(relu)(x)
    expected = loop_vmap(relu)(x)
    # (float32: the loop stacks np.float32 lanes with Python 0.0 lanes into float64, and so
    # does the batch: a Python float beside a narrower float is held as float64)
    assert_same_tree(got, expected, exact_dtype=True)
    _same_bits(got, expected)


def relu_linear(x, w):
    return max(x.dot(w), 0.0)


def test_vmap_relu_linear_like_the_loop():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((merge.ROW + 77, 8))
    x[::5] = 0.0
    x[1::7, 0] = np.nan
    w = rng.standard_normal(8)
    f = vz.vmap(relu_linear, in_axes=(0, None))
    assert "merge.maximum(0.0" in f.source(x, w)
    assert_same_tree(f(x, w), loop_vmap(relu_linear, in_axes=(0, None))(x, w), rtol=1e-12)


@pytest.mark.parametrize("ufunc", [np.maximum, np.minimum])
@pytest.mark.parametrize("c", [0.0, -0.0, 0, 1, 2.5, -3, 0.1, 2 ** 60, 16777217, 1e300])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_helper_is_the_ufunc(ufunc, c, dtype):
    helper = merge.maximum if ufunc is np.maximum else merge.minimum
    for n in (5, merge.MIN_ROW_LANES, 2 * merge.ROW + 17):
        a = _awkward(n, dtype)
        with np.errstate(all="ignore"):
            expected = ufunc(c, a)
            _same_bits(helper(c, a), expected)
            b = a.copy()
            assert helper(c, b, out=b) is b
            _same_bits(b, expected)
            square = _awkward(n * 4, dtype).reshape(2 * n, 2)
            _same_bits(helper(c, square), ufunc(c, square))
            _same_bits(helper(c, square[::2]), ufunc(c, square[::2]))    # not contiguous


def test_helper_other_dtypes_and_operands():
    ints = np.arange(-3000, 3000)
    _same_bits(merge.maximum(0, ints), np.maximum(0, ints))
    _same_bits(merge.minimum(0.5, ints), np.minimum(0.5, ints))
    x = _awkward(5000)
    _same_bits(merge.maximum(np.float32(0.0), x), np.maximum(np.float32(0.0), x))
    _same_bits(merge.maximum(np.nan, x), np.maximum(np.nan, x))
    _same_bits(merge.maximum(True, x), np.maximum(True, x))


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")   # (numpy.vectorize's)
def test_a_name_merge_of_the_users():
    """A function that reads a ``merge`` of its own (here a closure's) gets ``np.maximum``
    spelled out, not the runtime's helper by that name."""
    merge = types.SimpleNamespace(shift=0.5)

    def uses_merge(x):
        return max(x, 0.0) + merge.shift

    x = _awkward(70_000)
    f = vz.vectorize(uses_merge, fallback="error")
    text = f.source(x)
    assert "np.maximum(0.0, x)" in text and "merge.maximum" not in text, text
    expected, _ = numpy_vectorize_outcome(uses_merge, x)
    _same_bits(f(x), expected)


def test_rows_are_bounded():
    a = _awkward(merge.MIN_ROW_LANES)
    for c in range(3 * merge.MAX_ROWS):
        _same_bits(merge.maximum(c, a), np.maximum(c, a))
    assert len(merge._rows) <= merge.MAX_ROWS


def relu_of(x, n):
    return max(x, n)


def test_a_parameter_is_not_a_row():
    """Only number literals (one per place in the code) get rows, not a parameter's values."""
    x = np.linspace(3.0, -3.0, merge.ROW + 3)     # (the first example's result a float)
    f = vz.vectorize(relu_of, fallback="error", excluded={1})
    assert "merge." not in f.source(x, 2)
    expected, _ = numpy_vectorize_outcome(relu_of, x, 2, excluded=(1,))
    _same_bits(f(x, 2), expected)
