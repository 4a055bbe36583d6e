"""Regressions found by the fresh-seed fuzzer sweep (seeds 60000+)."""

import pytest

torch = pytest.importorskip("torch")

import vectorize  # noqa: E402
from vectorize import VectorizeError  # noqa: E402


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
