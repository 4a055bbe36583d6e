"""Scalar-style functions with ``if`` statements on per-example values, for the two strategies
of a batched ``if``: *select* (every branch on every lane, merged with ``np.where``) and
*compact* (each branch only on its own lanes, gathered and scattered back).

Every function is written twice: ``name_select`` carries ``# vectorize: select`` and
``name_compact`` carries ``# vectorize: compact`` on its ``if`` lines (the bodies are
identical), so the tests can check that both forms give identical results. A few functions
without comments exercise the default heuristic.
"""

import math

import numpy as np


# --------------------------------------------------------------------------- elif chains
def elif_chain_select(x):
    """Four branches, each with its own work; each `elif` takes its chain's comment."""
    if x < -1.0:  # vectorize: select
        y = -x * x
    elif x < 0.0:
        y = math.expm1(x)
    elif x < 1.0:
        y = x
    else:
        y = math.log(x) + 1.0
    return y


def elif_chain_compact(x):
    """Four branches, each with its own work; each `elif` takes its chain's comment."""
    if x < -1.0:  # vectorize: compact
        y = -x * x
    elif x < 0.0:
        y = math.expm1(x)
    elif x < 1.0:
        y = x
    else:
        y = math.log(x) + 1.0
    return y


# ---------------------------------------------------------------------------- nested ifs
def nested_select(x, y):
    r = 0.0
    if x > 0.0:  # vectorize: select
        if y > 0.0:  # vectorize: select
            r = math.sqrt(x * y)
        else:
            r = x - y
    else:
        r = y * 2.0
    return r


def nested_compact(x, y):
    r = 0.0
    if x > 0.0:  # vectorize: compact
        if y > 0.0:  # vectorize: compact
            r = math.sqrt(x * y)
        else:
            r = x - y
    else:
        r = y * 2.0
    return r


# ------------------------------------------------------------------ a loop in the branch
def halvings_select(x):
    """A `while` loop in the branch; two values live after the `if` (a tuple result)."""
    steps = 0
    if x > 1.0:  # vectorize: select
        while x > 1.0:
            x = x / 2.0
            steps += 1
    return steps, x


def halvings_compact(x):
    """A `while` loop in the branch; two values live after the `if` (a tuple result)."""
    steps = 0
    if x > 1.0:  # vectorize: compact
        while x > 1.0:
            x = x / 2.0
            steps += 1
    return steps, x


# ------------------------------------------------------------------ a helper in the branch
def _poly(t):
    return ((t * 0.5 + 1.0) * t - 2.0) * t + 3.0


def helper_branch_select(x, a):
    """A helper on both branches; `a` is the same for every example (never gathered)."""
    if x > a:  # vectorize: select
        y = _poly(x - a)
    else:
        y = -_poly(a - x)
    return y


def helper_branch_compact(x, a):
    """A helper on both branches; `a` is the same for every example (never gathered)."""
    if x > a:  # vectorize: compact
        y = _poly(x - a)
    else:
        y = -_poly(a - x)
    return y


# ------------------------------------------------------------- per-example vectors (vmap)
def vector_branch_select(v):
    """A per-example vector assigned in both branches (rows are gathered and scattered)."""
    s = v.sum()
    if s > 0.0:  # vectorize: select
        w = v * 2.0 + 1.0
    else:
        w = -v
    return (w * v).sum() + w[0]


def vector_branch_compact(v):
    """A per-example vector assigned in both branches (rows are gathered and scattered)."""
    s = v.sum()
    if s > 0.0:  # vectorize: compact
        w = v * 2.0 + 1.0
    else:
        w = -v
    return (w * v).sum() + w[0]


def vector_kept_select(v):
    """A vector assigned on some lanes only: the others keep the vector they had."""
    w = v * 0.5
    if v[0] > v[-1]:  # vectorize: select
        w = v[::-1] * 3.0
    return w.max() - w[0]


def vector_kept_compact(v):
    """A vector assigned on some lanes only: the others keep the vector they had."""
    w = v * 0.5
    if v[0] > v[-1]:  # vectorize: compact
        w = v[::-1] * 3.0
    return w.max() - w[0]


# ------------------------------------------------------------------------ dtype joins
def int_or_float_select(n):
    """An integer on some lanes, a float on others: the result is float64 on all."""
    if n % 3 == 0:  # vectorize: select
        r = n // 3
    else:
        r = n / 2.0
    return r


def int_or_float_compact(n):
    """An integer on some lanes, a float on others: the result is float64 on all."""
    if n % 3 == 0:  # vectorize: compact
        r = n // 3
    else:
        r = n / 2.0
    return r


def weak_int_select(n):
    """A Python int before the `if`, the argument's integer type in the branch (int32 in,
    int32 out, as np.where gives)."""
    k = 1
    if n > 10:  # vectorize: select
        k = n * 2
    return k


def weak_int_compact(n):
    """A Python int before the `if`, the argument's integer type in the branch (int32 in,
    int32 out, as np.where gives)."""
    k = 1
    if n > 10:  # vectorize: compact
        k = n * 2
    return k


def counter_select(x):
    """An unbatched counter incremented in the branch, a bool flag set in the other."""
    count = 0
    big = False
    if x > 2.0:  # vectorize: select
        count += 1
        count = count * 3
    else:
        big = x < -2.0
    return count + big


def counter_compact(x):
    """An unbatched counter incremented in the branch, a bool flag set in the other."""
    count = 0
    big = False
    if x > 2.0:  # vectorize: compact
        count += 1
        count = count * 3
    else:
        big = x < -2.0
    return count + big


# ------------------------------------------------------------ some lanes, warnings, returns
def some_lanes_select(x, y):
    """Assigned on some lanes only (no `else`); a temporary that does not live after."""
    z = x + y
    if x > y:  # vectorize: select
        t = math.hypot(x, y)
        z = t * 2.0 - y
    return z


def some_lanes_compact(x, y):
    """Assigned on some lanes only (no `else`); a temporary that does not live after."""
    z = x + y
    if x > y:  # vectorize: compact
        t = math.hypot(x, y)
        z = t * 2.0 - y
    return z


def safe_log_select(x):
    """`log` only where x > 0: the compact form never evaluates it elsewhere."""
    if x > 0.0:  # vectorize: select
        r = math.log(x) + math.log1p(x)
    else:
        r = -math.inf
    return r


def safe_log_compact(x):
    """`log` only where x > 0: the compact form never evaluates it elsewhere."""
    if x > 0.0:  # vectorize: compact
        r = math.log(x) + math.log1p(x)
    else:
        r = -math.inf
    return r


def early_return_select(x, n):
    """Returns inside the branch (lowered to assignments of the result first)."""
    if x > 0.0:  # vectorize: select
        t = math.sqrt(x)
        if t > n:
            return t - n
        return t * n
    return -x


def early_return_compact(x, n):
    """Returns inside the branch (lowered to assignments of the result first)."""
    if x > 0.0:  # vectorize: compact
        t = math.sqrt(x)
        if t > n:
            return t - n
        return t * n
    return -x


def truthy_select(n, x):
    """An integer test (`if n:`): the lanes where n != 0."""
    if n:  # vectorize: select
        y = x / n
    else:
        y = x
    return y


def truthy_compact(n, x):
    """An integer test (`if n:`): the lanes where n != 0."""
    if n:  # vectorize: compact
        y = x / n
    else:
        y = x
    return y


# ------------------------------------------------------------------- ifs inside loops
def collatz_if_select(n):
    """The `if` of a compacted `while` loop's body."""
    steps = 0
    while n > 1:
        if n % 2 == 0:  # vectorize: select
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def collatz_if_compact(n):
    """The `if` of a compacted `while` loop's body."""
    steps = 0
    while n > 1:
        if n % 2 == 0:  # vectorize: compact
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def bounce_select(x, k):
    """An `if` in a masked loop kept in the select form, over a per-example range."""
    s = 0.0
    for i in range(k):  # vectorize: select
        if x > i:  # vectorize: select
            s = s + math.sqrt(x - i)
        else:
            s = s - 1.0
    return s


def bounce_compact(x, k):
    """An `if` in a masked loop kept in the select form, over a per-example range."""
    s = 0.0
    for i in range(k):  # vectorize: select
        if x > i:  # vectorize: compact
            s = s + math.sqrt(x - i)
        else:
            s = s - 1.0
    return s


# ------------------------------------------------------------------- default heuristic
def default_loop_branch(x):
    """No comment: a branch with a loop is compacted."""
    y = 0.0
    if x > 0.0:
        for k in range(1, 8):
            y = y + math.sin(x * k) / k
    return y


def default_cheap_branch(x):
    """No comment: two cheap branches are selected."""
    if x > 0.0:
        y = x * 2.0
    else:
        y = -x
    return y


def default_heavy_branch(x):
    """No comment: many math calls on one side, little data to move: compacted."""
    if x > 0.5:
        y = math.exp(math.sin(x)) + math.log(x) * math.cos(x) + math.sqrt(x) * math.tanh(x)
    else:
        y = 0.0
    return y


def only_then_defined_compact(x):
    """`y` has no value where x <= 0 but is used after: rejected as by the select form."""
    if x > 0.0:  # vectorize: compact
        y = math.sqrt(x)
    return y


def only_then_defined_select(x):
    """`y` has no value where x <= 0 but is used after: rejected as by the select form."""
    if x > 0.0:  # vectorize: select
        y = math.sqrt(x)
    return y


def random_branch_compact(x):
    """A draw in the branch: compaction would draw different numbers, so select is kept."""
    if x > 0.0:  # vectorize: compact
        y = x + np.random.normal()
    else:
        y = x
    return y
