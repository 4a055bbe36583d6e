"""Regressions found by the fresh-seed fuzzer sweep of the integration branch (seeds 114000+)."""

import warnings

import numpy as np
import pytest

import vectorize
from vectorize import VectorizeError


def _divmod_sum(x, n):
    q, r = divmod(x, n)
    return q + r


def _divmod_quotient(x, n):
    return divmod(x, n)[0]


@pytest.mark.parametrize("f", [_divmod_sum, _divmod_quotient])
def test_divmod_of_uint64_and_a_signed_int_is_exact_per_example(f):
    # fuzz_hunt12 seed 114095: per example numpy.vectorize hands Python ints, so
    # divmod(0, -6) is (0, 0); the batch computed uint64 with int32 in float64, where
    # divmod(0.0, -6.0) is (-0.0, -0.0): the result's zero sign differed
    x = np.array([0, 0, 4], dtype=np.uint64)
    n = np.array([-6, 3, -6], dtype=np.int32)
    expected = np.vectorize(f)(x, n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = vectorize.vectorize(f)(x, n)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(expected))
    with pytest.raises(VectorizeError, match="uint64 value meets a signed int"):
        vectorize.vectorize(f, fallback="error")(x, n)
