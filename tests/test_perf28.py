"""The warm call's argument checks (`vectorize.api._match_lines`, `_warm_call`): an array
argument of one dimension is checked by its ``ndim`` and length, not by its ``shape`` tuple.
Differential: an object that called once with arrays of one shape and then sees arrays of the
same length but another number of dimensions (or the other way round) must give what a fresh
object gives (which plans from scratch), values, dtype and shape."""

from __future__ import annotations

import numpy as np
import pytest

from vectorize import vectorize


def piece(x, y):
    if x > y:
        r = x - y
    else:
        r = y * 2
    return r


def scaled(x, y):
    return x * y + 1


def _outcome(vf, *args):
    try:
        with np.errstate(all="ignore"):
            return vf(*args)
    except Exception as exc:        # noqa: BLE001 -- compared by type
        return type(exc)


def _same(got, expected):
    if isinstance(expected, type):
        assert got is expected, (got, expected)
        return
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.shape == expected.shape and got.dtype == expected.dtype, (got, expected)
    np.testing.assert_array_equal(got, expected)


ROW = np.arange(5.0) - 2
SAME_LENGTH = [
    # a first call of one dimension, then arrays of its length (or shape) in other dimensions
    (ROW, ROW.reshape(5, 1)),
    (ROW, np.arange(15.0).reshape(5, 3)),
    (ROW, ROW.reshape(1, 5)),
    (ROW, np.arange(25.0).reshape(5, 5)),
    (ROW.reshape(5, 1), ROW),
    (np.arange(6.0).reshape(2, 3), np.arange(2.0)),
    (np.arange(6.0).reshape(2, 3), np.arange(6.0)),
    (np.arange(1.0), np.asarray(3.0)),
    (np.arange(1.0), np.arange(1.0).reshape(1, 1)),
]


@pytest.mark.parametrize("f", [piece, scaled])
@pytest.mark.parametrize("first, second", SAME_LENGTH)
def test_warm_call_tells_arrays_of_one_length_apart_by_their_dimensions(f, first, second):
    warm = vectorize(f, fallback="error")
    for x in (first, first, second, second, first):
        for y in (1.5, np.array([0.5])):
            expected = _outcome(vectorize(f, fallback="error"), x, y)
            _same(_outcome(warm, x, y), expected)
            _same(_outcome(warm, x, y), expected)       # (this one certainly warm)


def test_the_warm_call_of_one_dimension_is_taken():
    """(So that the test above compares the unrolled call with the planned path.)"""
    vf = vectorize(piece, fallback="error")
    vf(ROW, 1.5)
    assert vf._last is not None and vf._last.warm is not None
    assert vf._last.match((ROW, 1.5)) is not None
    assert vf._last.match((ROW.reshape(5, 1), 1.5)) is None
    assert vf._last.match((np.arange(15.0).reshape(5, 3), 1.5)) is None
