"""`vectorize`: a NumPy attribute (`x.sum()`, `x.ndim`) of a value that is a Python number per
example raises AttributeError there (numpy.vectorize's loop does); of a value that only *may*
be one (a helper's result unpacked from a tuple: per example a NumPy scalar where the helper
multiplies by a 0-d array), it is refused: a check that always fires would hand every call to
the per-example loop, silently."""

import math

import numpy as np
import pytest
from numpy import array

from vectorize import vectorize
from vectorize.errors import VectorizeError


def _spherical(az, el, r):
    rc = r * math.cos(el)
    return rc * math.cos(az), rc


def sum_of_a_helper_result(a, b):
    x, y = _spherical(a, b, array(1.0))     # per example: NumPy float64 (0-d array * float)
    return x.sum(), y


def ndim_of_a_parameter(a):
    return a.ndim                           # per example a Python float: AttributeError


A = np.array([0.0, 1.0, -2.5])


def test_an_attribute_of_a_value_of_unsure_origin_is_refused_not_replayed():
    with pytest.raises(VectorizeError, match="may be a Python float"):
        vectorize(sum_of_a_helper_result, fallback="error")(A, A)


def test_with_the_default_fallback_it_equals_numpy_vectorize():
    with pytest.warns(Warning):
        got = vectorize(sum_of_a_helper_result)(A, A)
    want = np.vectorize(sum_of_a_helper_result)(A, A)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_an_attribute_of_a_parameter_raises_as_numpy_vectorize():
    with pytest.raises(AttributeError):
        np.vectorize(ndim_of_a_parameter)(A)
    with pytest.raises(AttributeError):
        vectorize(ndim_of_a_parameter, fallback="error")(A)
