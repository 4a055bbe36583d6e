"""vmap of a value that is an int64 on some lanes and a float on others (``min(x, r)`` of an
int64 ``x`` and a float64 ``r``), in arithmetic: each example computes its int64 lanes
exactly (wrapping beyond int64), the batch computes every lane in float64 (rounding beyond
2**53). Refused, located (fuzz_nep50 seed 60023), where the loop and the batch differ."""

import math

import numpy as np
import pytest

import vectorize as vz
from vectorize import VectorizeError


def below(x, r):
    return min(x, r) - np.int64(7)


def beyond(x, r):
    return min(x, r) * 3


def as_is(x, r):
    return min(x, r)


def loop(f, *args):
    with np.errstate(all="ignore"):
        return np.stack([f(*row) for row in zip(*args)])


@pytest.mark.parametrize("f, x", [
    (below, [np.iinfo(np.int64).min + 3, 5]),      # the int64 lane wraps to 2**63 - 4
    (below, [2 ** 53 + 1, 5]),                      # exact there, rounded in float64
    (beyond, [2 ** 62, 5]),                         # wraps there
])
def test_int64_lanes_joined_with_floats_in_arithmetic_are_refused(f, x):
    x = np.array(x, dtype=np.int64)
    r = np.array([1e300, 0.25])
    joined = np.where([True, False], x, r)          # the batch's float64 lanes
    with np.errstate(all="ignore"):
        assert (loop(f, x, r) != loop(f, joined, r)).any()  # (where the two differ)
    with pytest.raises(VectorizeError, match="differs between lanes"):
        vz.vmap(f)(x, r)


def test_the_join_returned_as_it_is_still_computes():
    x = np.array([2 ** 53 + 1, 5], dtype=np.int64)
    r = np.array([1e300, 0.25])
    out = vz.vmap(as_is)(x, r)
    expected = loop(as_is, x, r)
    assert out.dtype == expected.dtype
    np.testing.assert_array_equal(out, expected)


def _guarded(a, n):
    k = 0
    while k < n:
        t = math.floor(a)
        try:
            c = 2.0 / (t - 1.0)      # Python floats per example: the probe's ones divide by 0
        except ZeroDivisionError:
            c = 0
        k += 1
    return c * 3


def test_a_division_of_python_floats_the_probe_makes_raise_keeps_its_type():
    # the analysis's examples (ones) made `2.0 / (t - 1.0)` raise: the value was unknown and
    # the loop's placeholder for `c` refused (vincenty.vincenty_inverse, tests/test_real_pkgs)
    a = np.array([1.5, 2.5, 0.5])
    n = np.array([1, 3, 2])
    out = vz.vmap(_guarded)(a, n)
    expected = np.stack([_guarded(x, m) for x, m in zip(a, n)])
    assert out.dtype == expected.dtype
    np.testing.assert_array_equal(out, expected)


def _one_line(x):
    r = int(x); return r - 1  # noqa: E702 -- statements on one line, as written


def _one_line_refused(x):
    r = int(x); y = {x: 1}; return r - y[x]  # noqa: E702


def test_statements_on_one_line_are_batched_each_on_its_own():
    # the check `int(x)` needs went before the line, before `r` was bound: refused with
    # "name `r` is not defined"
    x = np.array([1.5, 2.5, -0.5])
    out = vz.vectorize(_one_line)(x)
    expected = np.vectorize(_one_line)(x)
    assert out.dtype == expected.dtype
    np.testing.assert_array_equal(out, expected)
    np.testing.assert_array_equal(vz.vmap(_one_line)(x), [_one_line(v) for v in x])
    with pytest.raises(VectorizeError, match=r"test_lead30.py:\d+:21: a dict"):
        vz.vectorize(_one_line_refused, fallback="error")(x)
