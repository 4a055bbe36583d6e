"""Per-example functions the engine refuses (with ``fallback="error"``), each with the line
its error must point at: `test_errors.test_refusals_speak_the_users_language` checks that
the message names only the user's own variables (never one the engine made up while
lowering the code: ``result``, ``active``, ``cond``, ``lanes``...) and points at that line.

``LINE`` gives, for each function, the line the error must point at (stripped).
"""

from __future__ import annotations

import numpy as np


def no_else_before_the_end(x):
    if x > 0:
        return 1.0
    elif x < 0:
        return -1.0


def chained_no_else_before_the_end(x):
    if x > 0:
        r = 1.0
    elif x < 0:
        r = -1.0
    else:
        r = 0.0
    if r > 0:
        return r
    elif r < 0:
        return -r


def nested_returns_no_else(x, y):
    if x > 0:
        if y > 0:
            return 1.0
    else:
        return -1.0


def loop_without_a_final_return(v, x):
    for i in range(len(v)):
        if v[i] > x:
            return i


def tuple_assigned_in_one_branch(x):
    if x > 0:
        r = (x, 1.0)
    return r


def tuple_or_number(x):
    if x > 0:
        return x, x
    return x


def string_or_number(x):
    if x > 0:
        return "positive"
    return 1.0


def tuple_in_a_masked_loop(x):
    a, b = 0.0, 1.0
    while x > 1:
        x = x / 2
        a, b = b, (a, b)
    return a


def _bump(w):
    w[0] += 1.0


def helper_writes_under_a_condition(x):
    # (`y[0] = x` there is a masked write: tests/test_conditional_writes.py)
    y = np.zeros(3)
    if x > 0:
        _bump(y)
    return y


def aliased_update(v):
    w = v * 1.0
    u = w
    w += 1.0
    return u


def boolean_mask(v, x):
    # (a sum of the selection is a masked reduction; a running sum is not)
    return v[v > x].cumsum()


# Once refused, now vectorized (`VECTORIZED`, checked against the loop): a function that
# falls off its end on some examples (a check on the live lanes that reach the end; the
# per-example loop decides there), a helper writing into its argument under a condition.
VECTORIZED = [no_else_before_the_end, chained_no_else_before_the_end, nested_returns_no_else,
              loop_without_a_final_return, helper_writes_under_a_condition]

LINE = {
    tuple_assigned_in_one_branch: "return r",
    tuple_or_number: "return x",
    string_or_number: "return 1.0",
    tuple_in_a_masked_loop: "while x > 1:",
    aliased_update: "w += 1.0",
    boolean_mask: "return v[v > x].cumsum()",
}
