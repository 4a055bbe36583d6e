"""Builtin max/min over a per-example vector keep Python's exact choice (NaN, signed zeros)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from vectorize import VectorizeError, vmap


def largest(v):
    return max(v)


def smallest(v):
    return min(v)


def spread(v):
    return max(v) - min(v)


EDGE = st.sampled_from([0.0, -0.0, 1.0, -1.0, np.nan, np.inf, -np.inf, 2.5])


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(0, 5), st.integers(1, 4)),
              elements=st.one_of(EDGE, st.floats(-1e6, 1e6))))
def test_float_vectors_match_python_exactly(batch):
    for f in (largest, smallest, spread):
        got = vmap(f, fallback="error")(batch)
        with np.errstate(all="ignore"):
            expected = np.array([f(row) for row in batch], dtype=float).reshape(len(batch))
        np.testing.assert_array_equal(got, expected)
        same = (got == 0) & (expected == 0)
        assert np.array_equal(np.signbit(got[same]), np.signbit(expected[same]))


@settings(max_examples=30, deadline=None)
@given(arrays(np.int64, st.tuples(st.integers(0, 5), st.integers(1, 4)),
              elements=st.integers(-10, 10)))
def test_integer_vectors(batch):
    for f in (largest, smallest):
        got = vmap(f, fallback="error")(batch)
        expected = np.array([f(row) for row in batch], dtype=np.int64).reshape(len(batch))
        np.testing.assert_array_equal(got, expected)
        assert got.dtype.kind == "i"


def test_matrices_are_rejected_like_python_raises():
    m = np.ones((2, 2, 3))
    try:
        largest(m[0])
    except ValueError:
        pass
    import pytest
    with pytest.raises(VectorizeError):
        vmap(largest, fallback="error")(m)
