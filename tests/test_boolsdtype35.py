"""Python bools and shared values: a choice by a test the same for every example between a
Python bool and a NumPy bool, used in arithmetic (`vectorize`), and a `vmap` result whose
type follows a shared value (``math.floor(k) and x``)."""

import math
import warnings

import numpy as np
import pytest

from vectorize import VectorizeError, vectorize, vmap


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


def augmented_choice(a, b):
    n = not a
    n += ((b > 1) if bool(b) else (not a))
    return n


def two_choices(a, b):
    return ((b > 1) if bool(b) else (not a)) + ((b < 1) if bool(b) else (not a))


@pytest.mark.parametrize("f", [per_example_choice, named_choice, augmented_choice,
                               two_choices])
def test_choice_of_python_and_numpy_bool_refused_where_not_followed(f):
    a = np.array([0.0, 1.0, 0.5, 0.0], dtype=np.float16)
    with pytest.raises(VectorizeError, match="a Python bool and a NumPy bool"):
        vectorize(f, fallback="error")(a, np.False_)


def floor_and(x, k):
    return (math.floor(k) and x) + 1


def floor_or(x, k):
    return (math.floor(k) or x) + 1


def floor_test(x, k):
    return (x if math.floor(k) else math.floor(k)) + 1


def abs_test(x, k):
    return (abs(k) > 1 and x) * 2


def shared_choice_of_kinds(x, k):
    return (1 if k > 1 else x) + 1


def shared_choice_of_bool(x, k):
    return x if k < 1 else (k > 1)


_SHARED = [floor_and, floor_or, floor_test, abs_test, shared_choice_of_kinds,
           shared_choice_of_bool]


@pytest.mark.parametrize("f", _SHARED)
@pytest.mark.parametrize("k", [0.5, 1.5, -2.0])
def test_vmap_result_type_follows_a_shared_value(f, k):
    # (`math.floor(0.5) and x` is the Python int 0 on every example: the loop stacks int64)
    x = np.array([1.5, 2.5, 3.0, -0.5])
    expected = np.stack([np.asarray(f(xi, k)) for xi in x])
    _same(vmap(f, in_axes=(0, None))(x, k), expected)


@pytest.mark.parametrize("f", _SHARED)
@pytest.mark.parametrize("k", [0.5, 1.5, -2.0])
def test_vectorize_result_type_follows_a_shared_value(f, k):
    # (numpy.vectorize's output type is the first example's: the arm the shared test takes)
    x = np.array([1.5, 2.5, 3.0, -0.5])
    _same(vectorize(f, fallback="error")(x, k), _reference(f, x, k))


def and_of_bools_counted(a, b):
    return (((not a) and (b > 0.5)) + (not b)), a


def test_output_types_learned_on_every_call_where_python_bools_are_counted():
    # (numpy.vectorize's first example has NumPy scalars: `not a` false gives the Python
    # `False + True`, an int; `not a` true gives `np.False_ + True`, NumPy's bool. The type
    # follows the first example's values, not only the dtypes: fuzz_bools seed 36268)
    v = vectorize(and_of_bools_counted, fallback="error")
    for a, b in [([1.0], [3.0]), ([0.0, 1.0], [-0.0, 2.0]), ([1.0, 0.0], [-0.0, 2.0]),
                 ([0.0, 1.0], [-0.0, 2.0])]:
        a, b = np.array(a), np.array(b)
        got, expected = v(a, b), _reference(and_of_bools_counted, a, b)
        _same(got[0], expected[0])
        _same(got[1], expected[1])
