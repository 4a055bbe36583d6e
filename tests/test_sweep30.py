"""Regressions found by the fresh-seed fuzzer sweep (seeds 60000+)."""

import math
import warnings

import numpy as np
import pytest

import vectorize
from vectorize import VectorizeError

try:
    import torch
except ImportError:     # (the torch case is skipped)
    torch = None


def _sqrt_of_abs_after_a_return(x, y):
    if y > 1:
        return 0.0
    return math.sqrt(abs(x))


def _sqrt_of_abs_in_an_elif(x, y):
    r = 0.0
    if y > 0:
        r = 1.0
    elif math.sqrt(abs(x)) < -1 or y > 1:
        r = 2.0
    return r


@pytest.mark.parametrize("f", [_sqrt_of_abs_after_a_return, _sqrt_of_abs_in_an_elif])
def test_sqrt_of_the_wrapped_abs_of_a_numpy_int_raises_as_per_example(f):
    # fuzz_nep50 seed 60456: abs(np.int16(-32768)) is -32768, so math.sqrt raises
    # ValueError per example; under a per-example condition the check `abs(x) < 0` was
    # elided as never true and vmap returned nan (or took the other branch: 0.0)
    x = np.array([-32768, 4], dtype=np.int16)
    y = np.array([0, 0], dtype=np.int8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError):
            [f(a, b) for a, b in zip(x, y)]
        with pytest.raises(ValueError):
            vectorize.vmap(f)(x, y)
        ok = np.array([-32767, 4], dtype=np.int16)
        expected = np.array([f(a, b) for a, b in zip(ok, y)])
        np.testing.assert_array_equal(vectorize.vmap(f)(ok, y), expected)


def _arm_of_unknown_shape(x0, k, c=1.0):
    if k > 0:
        t2 = torch.tanh(c) * 2      # raises per example (a Python float); never run here
    else:
        t2 = x0.max()
    if t2 > 1:
        u4 = x0 * 3.0
    else:
        u4 = x0 * t2
    return u4


def test_choice_with_an_arm_of_unknown_shape_is_refused_not_given_an_extra_axis():
    if torch is None:
        pytest.skip("torch is not installed")
    # fuzz_hunt13 seed 60057 (torch): the else arm `x0 * t2`, whose per-example shape the
    # engine could not tell, was padded as a scalar: (2, 2, 4) where the loop gives (2, 4)
    x0 = torch.tensor([[3, 2, 1, -4], [-2, 0, 4, -3]], dtype=torch.int32)
    k = torch.tensor(0)
    expected = torch.stack([_arm_of_unknown_shape(r, k) for r in x0])
    assert expected.shape == (2, 4)
    f = vectorize.vmap(_arm_of_unknown_shape, in_axes=(0, None), backend="torch")
    try:
        got = f(x0, k)
    except VectorizeError as exc:
        assert "cannot tell the per-example shape" in str(exc)
        assert "test_sweep30.py" in str(exc)
    else:
        assert got.shape == expected.shape
        assert torch.equal(got, expected)
