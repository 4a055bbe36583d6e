"""Scalar functions whose Python semantics differ from NumPy's (`tests/test_python_semantics.py`):
numpy.vectorize hands them Python numbers, so they raise where NumPy computes on."""

import logging
import math
import warnings

log = logging.getLogger("vectorize.tests.python_semantics")


def reciprocal(x):
    return 1.0 / x


def guarded_reciprocal(x):
    if x != 0:
        return 1.0 / x
    return 0.0


def early_exit_reciprocal(x):
    if x == 0:
        return math.inf
    y = 2.0 / x
    return y


def reciprocal_of_square_plus_one(x):
    return 1.0 / (x * x + 1)


def halves(x):
    return x / 2 + x // 4 + x % 3


def int_floor_division(a, b):
    return a // b


def int_modulo(a, b):
    return a % b


def float_floor_and_mod(x, y):
    return x // y + x % y


def divmod_sum(a, b):
    q, r = divmod(a, b)
    return q * 10 + r


def fourth_power(n):
    return n ** 4


def cube_by_products(n):
    return n * n * n


def int_sum(a, b):
    return a + b - 1


def negate_int(n):
    return -n + abs(n)


def shift(n, k):
    return n << k


def intermediate_overflow_that_fits(n):
    return (n * n) // (n + 1)


def round3(x):
    return round(x, 3)


def round_digits(x):
    return round(x, 2) + round(x, -1) + round(x, 5)


def round_to_int(x):
    return round(x)


def tle_epoch(seconds):
    """A TLE epoch's seconds split into minutes and rounded seconds."""
    minutes, rest = divmod(seconds, 60.0)
    return minutes * 100 + round(rest, 3)


def square_root(x):
    return math.sqrt(x)


def logarithm(x):
    return math.log(x)


def log_base_two(x):
    return math.log(x, 2)


def arc_cosine(x):
    return math.acos(x)


def exponential(x):
    return math.exp(x)


def sine(x):
    return math.sin(x)


def power(x, y):
    return math.pow(x, y)


def float_power(x, y):
    return x ** y


def square_half(x):
    return x ** 0.5


def squared(x):
    return x ** 2


def inverse_square(x):
    return x ** -2


def remainder(x, y):
    return math.fmod(x, y)


def floor_int(x):
    return math.floor(x)


def to_int(x):
    return int(x)


def branch_sqrt(x):
    if x > 0:
        return math.sqrt(x)
    return -math.sqrt(-x)


def check_eccentricity(e):
    if e < 0 or e >= 1:
        raise ValueError(f"eccentricity {e} outside [0, 1)")
    return e


def kepler(mean_anomaly, e):
    """Kepler's equation by Newton's method, with the guard in a helper."""
    e = check_eccentricity(e)
    big_e = mean_anomaly
    for _ in range(30):
        big_e = big_e - (big_e - e * math.sin(big_e) - mean_anomaly) / (1 - e * math.cos(big_e))
    return big_e


def positive_or_raise(x):
    if x < 0:
        raise ValueError("negative input {:.3f} (limit {})".format(x, 0))  # noqa: UP032
    if x > 1e6:
        raise OverflowError("too large: %s" % (x,))  # noqa: UP031
    return math.sqrt(x)


def asserted(x):
    assert x >= -10, f"x = {x} is below -10"
    return x * 2


def warned(x):
    if x > 100:
        warnings.warn(f"large input {x}", stacklevel=2)
        return 100.0
    return x


def logged(x):
    if x < -100:
        log.warning("small input %s", x)
    return x + 1


def safe_log(x):
    try:
        return math.log(x)
    except ValueError:
        return -math.inf


def safe_ratio(x, y):
    try:
        r = math.sqrt(x) / y
        s = r + 1.0
    except ZeroDivisionError:
        s = 0.0
    except ValueError:
        s = -1.0
    return s


def shared_divisor(x, d):
    if x > 0:
        return x + d ** 2 / 4
    return x


def newton_reciprocal(a):
    """1 / a by Newton's iteration, dividing by the live lanes' derivative only."""
    y = 1.0
    n = 0
    while abs(a * y - 1.0) > 1e-12 and n < 60:
        y = y + y * (1.0 - a * y) / (1.0 + 0.0 * y)
        n += 1
    return y / a
