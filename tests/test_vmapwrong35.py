"""`vmap` against its per-example loop over NumPy scalars, where a helper hands back Python
numbers (a literal, Python arithmetic on them) and where a loop's first pass runs on a
narrower type than the later ones."""

import warnings

import numpy as np
import pytest

from vectorize import VectorizeError, vmap


def _loop(fn, x):
    try:
        return np.stack([fn(v) for v in x]), None
    except Exception as exc:  # noqa: BLE001
        return None, type(exc)


def _agree(fn, x):
    """`vmap(fn)(x)` equals the loop (values and dtype), raises what it raises, or refuses."""
    ref, raised = _loop(fn, x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if raised is not None:
            with pytest.raises((raised, VectorizeError)):
                vmap(fn)(x)
            return
        out = vmap(fn)(x)
    assert out.dtype == ref.dtype
    np.testing.assert_array_equal(out, ref)


def hz(t):
    return 0.0 if t < 0 else -0.5


def ki(t):
    return 3 if t < 0 else 0


def hz_stmt(t):
    if t < 0:
        return 0.0
    return -0.5


def scaled(t):
    return t * 2.0          # a Python float where `t` is one


def pow_of_helper(x):
    return hz(x) ** -1


def div_by_helper(x):
    return 1.0 / hz(x)


def floordiv_by_int_helper(x):
    return 7 // ki(x)


def div_by_statement_helper(x):
    return 1.0 / hz_stmt(x)


def div_by_helper_of_python_arg(x):
    return 1.0 / scaled(float(x))


def pow_of_assigned_helper(x):
    r = hz(x)
    return r ** -1


def pow_of_nested_helper(x):
    return hz(hz(x)) ** -1


@pytest.mark.parametrize("fn", [pow_of_helper, div_by_helper, floordiv_by_int_helper,
                                div_by_statement_helper, div_by_helper_of_python_arg,
                                pow_of_assigned_helper, pow_of_nested_helper])
@pytest.mark.parametrize("x", [np.array([1.0, -2.0]), np.array([0.0, 3.0]),
                               np.array([-1.0, -3.0]),
                               np.array([1.0, -2.0], dtype=np.float32)])
def test_helper_returning_python_numbers(fn, x):
    _agree(fn, x)


def test_helper_literal_raises_like_the_loop():
    # the loop calls `hz` on an np.float64 and gets the Python float 0.0: `0.0 ** -1` raises
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ZeroDivisionError):
            vmap(pow_of_helper)(np.array([1.0, -2.0]))
        with pytest.raises(ZeroDivisionError):
            vmap(div_by_helper)(np.array([1.0, -2.0]))
    np.testing.assert_array_equal(vmap(pow_of_helper)(np.array([1.0, 3.0])), [-2.0, -2.0])


def helper_times_float32(x):
    return hz(x) * x        # a Python float times an np.float32 stays float32


def test_helper_python_float_is_weak():
    _agree(helper_times_float32, np.array([1.0, -2.0], dtype=np.float32))
