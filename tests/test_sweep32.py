"""Wrong results and refusals found at fresh fuzzer seeds and in the rule cases (sweep32).

``vectorize(f, fallback="error")`` against ``numpy.vectorize`` itself (`differential`).
"""

from __future__ import annotations

import numpy as np
import pytest
from differential import assert_matches_loop


# -------------- a tuple unpacking of a call that raises for every example that takes its branch
def divmod_in_a_branch(a):
    # `divmod(3.0, 0.0)` raises ZeroDivisionError on every example that runs it: with Python
    # numbers the branch is shared, and unpacking the call's placeholder refused the function
    q = 0.0
    r = 0.0
    if a > 1.0:
        q, r = divmod(3.0, q)
    return a + q + r


def divmod_starred_in_a_branch(a):
    q = 0.0
    if a > 1.0:
        q, *r = divmod(3.0, q)
    return a + q


def divmod_nested_in_a_branch(a):
    q = 0.0
    if a > 1.0:
        (q, r), s = divmod(3.0, q), 1.0
        q = q + r + s
    return a + q


@pytest.mark.parametrize("f", [divmod_in_a_branch, divmod_starred_in_a_branch,
                               divmod_nested_in_a_branch])
@pytest.mark.parametrize("a", [0.0, 2.0, np.float64(2.0), np.float64(0.5),
                               np.array([0.0, 2.0]), np.array([0.0, 0.5])])
def test_unpacking_a_call_that_raises_for_every_example(f, a):
    assert_matches_loop(f, a)


# ------------------- a shared operation that raises for every example, hoisted (fuzz_bools 110056)
def float_or_bool(a, b):
    # `0.5 | bool(b)` raises TypeError for every example: naming the hoisted operation was an
    # internal error ('BinaryOperation' object has no attribute 'value')
    flag = a
    flag += (not b)
    return ((0.5 | bool(b)) % (0.5 // 1))


@pytest.mark.parametrize("b", [3, 0, True])
def test_a_hoisted_operation_that_raises_for_every_example(b):
    assert_matches_loop(float_or_bool, np.array([1.0, 2.0], np.float32), b)
