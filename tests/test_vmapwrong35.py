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


# --- a carry that enters a loop narrower than the loop makes it (fuzz_gaps35 seed 1041) ---
ITABLE = (3, -1, 0, 7, 2)


def divmod_then_table(n):
    m = n * 2
    for _t in (1.0, 2.0):
        m = divmod(m, -3)[0]    # the first pass: a uint16 and -3, OverflowError
        m = ITABLE[n % 5]
    return m


def subtract_then_int(n):
    m = n * 2
    i = 0
    while i < 2:
        i += 1
        m = m - 70000           # beyond uint16: OverflowError on the first pass
        m = int(n)
    return m


def float32_then_float(y, x):
    r = np.float32(y)
    out = 0.0
    for _t in range(2):
        out = out + r * 0.3     # float32 on the first pass (weak 0.3), float64 after
        r = float(x)
    return out


@pytest.mark.parametrize("fn", [divmod_then_table, subtract_then_int])
def test_narrow_int_first_pass_is_not_widened(fn):
    n = np.array([1, 3], dtype=np.uint16)
    _, raised = _loop(fn, n)
    assert raised is OverflowError
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises((OverflowError, VectorizeError)):
            vmap(fn)(n)


def test_narrow_float_first_pass_is_not_widened():
    y = np.array([0.1, 0.7], dtype=np.float32)
    x = np.array([0.1, 0.3])
    ref = np.stack([float32_then_float(a, b) for a, b in zip(y, x)])
    try:
        out = vmap(float32_then_float)(y, x)
    except VectorizeError as exc:
        assert "float32" in str(exc) and "^" in str(exc)
        return
    assert out.dtype == ref.dtype
    np.testing.assert_array_equal(out, ref)


def accumulate_wide(y, v):
    acc = np.float32(y)
    for _t in range(3):
        acc = acc + v           # float32 + float64 array: float64 on every pass
    return acc


def int_then_wide(n, v):
    s = n * 2
    for _t in range(2):
        s = s + v               # uint16 + int64: int64 on every pass
        s = int(n)
    return s


def test_a_carry_whose_first_pass_promotes_alike_is_still_batched():
    y = np.array([0.1, 0.2], dtype=np.float32)
    v = np.array([0.3, 0.7])
    np.testing.assert_array_equal(vmap(accumulate_wide)(y, v),
                                  np.stack([accumulate_wide(a, b) for a, b in zip(y, v)]))
    n = np.array([1, 3000], dtype=np.uint16)
    w = np.array([5, 7])
    out = vmap(int_then_wide)(n, w)
    ref = np.stack([int_then_wide(a, b) for a, b in zip(n, w)])
    assert out.dtype == ref.dtype
    np.testing.assert_array_equal(out, ref)
