"""Python bools and shared values: a choice by a test the same for every example between a
Python bool and a NumPy bool, used in arithmetic (`vectorize`), and a `vmap` result whose
type follows a shared value (``math.floor(k) and x``)."""

import warnings

import numpy as np
import pytest

from vectorize import VectorizeError, vectorize


def _reference(f, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return np.vectorize(f)(*args)


def _same(got, expected):
    assert got.dtype == expected.dtype, (got, expected)
    np.testing.assert_array_equal(got, expected)


def fuzz_35662(a, b):
    flag = (not a)
    flag += (b < 1)
    if (b != 0):
        return (b > 0)
    return (((b > 1) if bool(b) else (not a)) + bool(flag))


def shared_choice_add(a, b):
    return ((b > 1) if bool(b) else (not a)) + (not a)


def shared_choice_right(a, b):
    return bool(a < 5) * ((not a) if not b else (b < 1))


@pytest.mark.parametrize("f", [fuzz_35662, shared_choice_add, shared_choice_right])
@pytest.mark.parametrize("b", [np.False_, np.True_])
def test_shared_choice_of_python_and_numpy_bool_counts(f, b):
    # (b = np.False_: the Python bool arm runs, `True + True` is 2; np.True_: NumPy's)
    a = np.array([0.0, 1.0, 0.5, 0.0, 7.0, -0.0], dtype=np.float16)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = vectorize(f, fallback="error")(a, b)
    _same(got, _reference(f, a, b))


def per_example_choice(a, b):
    return ((b > 1) if a > 0 else (not a)) + (not a)


def named_choice(a, b):
    c = (b > 1) if bool(b) else (not a)
    return c + (not a)


@pytest.mark.parametrize("f", [per_example_choice, named_choice])
def test_choice_of_python_and_numpy_bool_refused_where_not_followed(f):
    a = np.array([0.0, 1.0, 0.5, 0.0], dtype=np.float16)
    with pytest.raises(VectorizeError, match="a Python bool and a NumPy bool"):
        vectorize(f, fallback="error")(a, np.False_)
