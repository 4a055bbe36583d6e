"""Functions whose divisions the value ranges (`vectorize.analysis.ranges`) decide about:
some never divide by zero (no check is written), the others do on some examples (the check
must stay and fire as Python raises). Module-level for `inspect.getsource`."""

import math


def newton_step(x, a):
    return 0.5 * (x + a / x)


def sqrt_newton(a):
    if a < 0:
        return math.nan
    if a == 0:
        return 0.0
    x = max(a, 1.0)
    while abs(x * x - a) > 1e-12 * a:
        x = newton_step(x, a)
    return x


def heron(a):
    """The same iteration written inline: ``(x + a / x) / 2``."""
    if a <= 0:
        return 0.0
    x = max(a, 1.0)
    for _ in range(60):
        x = (x + a / x) / 2
    return x


def inverse(x):
    return 1.0 / x


def clipped_inverse(a):
    return inverse(max(a, 1.0))


def both_inverses(a):
    """One call proves its argument positive, the other does not: the check stays."""
    return inverse(max(a, 1.0)) + inverse(a)


def nonnegative_inverse(a):
    if a >= 0:
        return inverse(a)       # a == 0 gets here
    return -1.0


def halving_to_zero(a):
    """Positive, halved past the smallest float: 0.0, and 1 / 0.0 raises."""
    x = max(a, 1.0)
    for _ in range(1100):
        x = x * 0.5
    return 1.0 / x


def halving_loop(a):
    """Never 0 (it stops above 1e-300), which the intervals cannot tell: the check stays."""
    x = min(max(a, 1.0), 1e300)
    while x > 1e-300:
        x = x * 0.5
    return 1.0 / x


def step_down(a):
    """``x - 0.5`` while ``x >= 0.5``: stops at 0.0."""
    x = min(max(a, 1.0), 8.0)
    while x >= 0.5:
        x = x - 0.5
    return 1.0 / x


def means_not_applicable(a, b):
    """``x + b / x`` with a negative ``b`` can be 0 (a=2, b=-4)."""
    x = max(a, 1.0)
    y = x + b / x
    return 1.0 / y


def left_by_break(a):
    x = 2.0
    while True:
        if a > 0:
            x = a - a
            break
        x = 3.0
        break
    return 1.0 / x


def shifted(a):
    """``max(a, 1.0) - 1.0`` is 0 at a <= 1."""
    return 1.0 / (max(a, 1.0) - 1.0)


def nan_safe(a):
    """``max(1.0, a)`` is NaN for NaN (Python's max keeps its first argument), never 0."""
    return 1.0 / max(1.0, a) + 1.0 / abs(max(a, -2.0) - 3.0)


def after_else(a):
    if a == 0:
        return 0.0
    if a < 0:
        return -1.0 / a
    return 1.0 / a


def positive_after_tests(a):
    if a < 0:
        return -1.0
    if a == 0:
        return 0.0
    return 1.0 / a
