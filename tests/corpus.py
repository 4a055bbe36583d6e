"""A corpus of realistic scalar-style functions, each written for ONE example as a user would.

Every function is a plain module-level ``def``; `CORPUS` maps it to the *kinds* of its
arguments, which tell the tests its arity and what to feed each argument:

- ``"f"``: float64, the whole range (NaN, +-inf, +-0.0, huge, subnormal, ordinary values);
- ``"fm"``: float64 of moderate magnitude (plus NaN and +-inf), for code that converts floats
  to Python ints (``int``, ``round``, ``math.floor``), where a huge float has no int64 value;
- ``"f32"``: float32, the whole range;
- ``"i"``: int64 of moderate magnitude, negatives included;
- ``"b"``: bool;
- ``"n"``: a small non-negative Python int (a loop trip count), never batched.
"""

from __future__ import annotations

import math

import numpy as np

# --------------------------------------------------------------------------- helpers


def clip01(v):
    if v < 0.0:
        return 0.0
    if v > 1.0:
        return 1.0
    return v


def safe_ratio(a, b):
    if b == 0:
        return 0.0
    return a / b


def lerp(a, b, t):
    return a + (b - a) * t


# --------------------------------------------------------------------------- piecewise


def leaky_relu(x, alpha):
    if x > 0:
        return x
    return alpha * x


def huber_loss(r, delta):
    a = abs(r)
    if a <= delta:
        return 0.5 * r * r
    return delta * (a - 0.5 * delta)


def income_tax(income):
    if income <= 10000.0:
        tax = 0.0
    elif income <= 40000.0:
        tax = (income - 10000.0) * 0.2
    elif income <= 100000.0:
        tax = 6000.0 + (income - 40000.0) * 0.35
    else:
        tax = 27000.0 + (income - 100000.0) * 0.45
    return tax


def clamp(x, lo, hi):
    if x < lo:
        return lo
    if x > hi:
        return hi
    return x


def piecewise_linear(x):
    # a lookup table written out by hand
    if x < 0.0:
        y = 0.0
    elif x < 1.0:
        y = 2.0 * x
    elif x < 3.0:
        y = 2.0 + 0.5 * (x - 1.0)
    else:
        y = 3.0
    return y


def smoothstep(edge0, edge1, x):
    t = (x - edge0) / (edge1 - edge0)
    t = min(max(t, 0.0), 1.0)
    return t * t * (3.0 - 2.0 * t)


def triangle_wave(x, period):
    phase = x % period
    half = period / 2
    if phase < half:
        return phase / half
    return 2.0 - phase / half


# --------------------------------------------------------------------------- nested / early


def bmi_category(weight, height):
    if height <= 0:
        return -1
    bmi = weight / (height * height)
    if bmi < 18.5:
        return 0
    if bmi < 25.0:
        return 1
    if bmi < 30.0:
        return 2
    return 3


def quadrant(x, y):
    if x >= 0:
        if y >= 0:
            q = 1
        else:
            q = 4
    else:
        if y >= 0:
            q = 2
        else:
            q = 3
    return q


def shipping_cost(weight, express):
    base = 5.0
    if weight > 20.0:
        return -1.0
    if weight > 5.0:
        base = base + (weight - 5.0) * 0.8
    if express:
        base = base * 2.0
    return base


def safe_divide(a, b, default):
    if b == 0:
        return default
    return a / b


def adjust_only_when_needed(x, y):
    result = x
    if y > x:
        result = y - x
    return result * 2.0


def scale_positive(x, factor):
    scaled = x
    if x > 0:
        if factor > 1:
            scaled = x * factor
    return scaled + 1.0


# --------------------------------------------------------------------------- integer code


def sign_of(k):
    if k > 0:
        return 1
    elif k < 0:
        return -1
    else:
        return 0


def fizzbuzz_code(n):
    if n % 15 == 0:
        return 3
    elif n % 5 == 0:
        return 2
    elif n % 3 == 0:
        return 1
    return 0


def floor_div_mod(n, d):
    q = n // d
    r = n % d
    return q, r


def int_powers(k):
    cube = (-k) ** 3
    square = k ** 2
    return cube + square - (-2) ** 3


def digit_sum(n):
    n = abs(n)
    total = 0
    for _ in range(6):
        total = total + n % 10
        n = n // 10
    return total


def leap_year(year):
    return (year % 4 == 0 and year % 100 != 0) or year % 400 == 0


def to_cents(amount):
    cents = round(amount * 100)
    return cents


def truncate_and_floor(x):
    t = int(x)
    f = math.floor(x)
    return t - f


def relu6_int(k):
    return min(max(k, 0), 6)


def mixed_int_float(k, x):
    return float(k) * x + k // 3


def count_positive(a, b, c):
    return int(a > 0) + int(b > 0) + int(c > 0)


# --------------------------------------------------------------------------- boolean logic


def or_default(x, default):
    value = x or default
    return value * 2


def and_value(x, y):
    return x and y


def in_band(x, lo, hi):
    return lo <= x < hi


def both_positive_or_flag(a, b, flag):
    if (a > 0 and b > 0) or not flag:
        return 1.0
    return -1.0


def flag_logic(flag, x):
    if flag and x > 0:
        return x
    elif not flag:
        return -x
    return 0.0


def not_greater_or_nan(x, y):
    return not (x > y) or x != x


# --------------------------------------------------------------------------- ternaries


def ternary_abs(x):
    return x if x >= 0 else -x


def ternary_sign(x):
    return -1 if x < 0 else (0 if x == 0 else 1)


def capped_growth(x, rate):
    grown = x * (1.0 + rate) if rate > 0 else x
    return grown if grown < 1000.0 else 1000.0


# --------------------------------------------------------------------------- tuples


def sort_pair(a, b):
    if a > b:
        a, b = b, a
    return a, b


def quadratic_roots(a, b, c):
    disc = b * b - 4.0 * a * c
    if disc < 0:
        return math.nan, math.nan
    root = math.sqrt(disc)
    lo = (-b - root) / (2.0 * a)
    hi = (-b + root) / (2.0 * a)
    return lo, hi


def interval_around(center, width):
    half = width * 0.5
    if half < 0:
        lo = center
    elif half > 1e6:
        return -math.inf, math.inf
    else:
        lo = center - half
    return lo, max(center + half, lo)


def min_max_of_three(a, b, c):
    lo = min(a, b, c)
    hi = max(a, b, c)
    return lo, hi


def polar(x, y):
    r = math.hypot(x, y)
    theta = math.atan2(y, x)
    return r, theta


# --------------------------------------------------------------------------- math / numpy


def log_or_floor(x):
    if x <= 0:
        return -math.inf
    return math.log(x)


def softplus(x):
    if x > 20.0:
        return x
    return math.log1p(math.exp(x))


def snap_to_target(x, target):
    if math.isclose(x, target, rel_tol=1e-6):
        return target
    return x


def signed_floor(x, y):
    return math.copysign(math.floor(abs(x)), y)


def wrap_angle(theta):
    t = theta % (2.0 * math.pi)
    if t > math.pi:
        t = t - 2.0 * math.pi
    return t


def gated_activation(x, y):
    return np.tanh(x) + np.maximum(x, y) * np.exp(-np.abs(y))


def nan_guard(x, fallback):
    if math.isnan(x) or math.isinf(x):
        return fallback
    return math.sqrt(abs(x)) * math.exp(-abs(x) / 10.0)


def clip_min_zero(x):
    return max(x, 0.0), min(x, 0.0)


# --------------------------------------------------------------------------- float32


def float32_poly(x):
    y = 1.5 * x * x - 0.25 * x + 3.0
    if y > 10.0:
        y = 10.0
    return y


def float32_threshold(x):
    if x > 0.5:
        return x * 0.1
    return x


def float32_mixed(x, y):
    z = x * y
    if z < 0:
        z = -z
    return math.sqrt(z)


# --------------------------------------------------------------------------- helper calls


def blend(x, scale):
    w = clip01(scale)
    return clip01(x) * w + clip01(0.25)


def ratio_difference(a, b, c):
    return safe_ratio(a, b) - safe_ratio(c, 2.0)


def lerp_clamped(a, b, t):
    if t < 0:
        t = 0.0
    return lerp(a, b, t)


# --------------------------------------------------------------------------- loops


def fixed_point_sqrt(x):
    guess = x if x > 1.0 else 1.0
    for _ in range(6):
        guess = 0.5 * (guess + x / guess)
    return guess


def collatz_walk(n):
    for _ in range(5):
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
    return n


def fibonacci_like(a, b, steps):
    for _ in range(steps):
        a, b = b, a + b
    return a


def weighted_sum(x, n):
    acc = 0.0
    for i in range(n):
        acc = acc + x * i
    return acc


def damped_iterations(x, rate):
    value = x
    for i in range(4):
        if value > 1.0:
            value = value * rate
        else:
            value = value + 0.5 * i
    return value



# --------------------------------------------------------------------------- more realistic code


def median_of_three(a, b, c):
    """The middle value, by three compare-and-swap steps."""
    if a > b:
        a, b = b, a
    if b > c:
        b, c = c, b
    if a > b:
        a, b = b, a
    return b


def ordered_bounds(a, b):
    lo, hi = (a, b) if a <= b else (b, a)
    return hi - lo


def nonzero_or(x, y):
    if x:
        return x
    return y


def odd_or_halved(k):
    if k % 2:
        return 3 * k + 1
    return k // 2


def all_equal(a, b, c):
    return a == b == c


def accumulate_positive(x, y):
    total = 0.0
    if x > 0:
        total += x
    if y > 0:
        total += y
    else:
        total -= 1.0
    return total


def float32_default(x):
    if x < 0:
        return 0.1
    return x


def count_or_scale(k, x):
    value = k
    if x > 0:
        value = x * 1.5
    return value


def int_ratio_rounded(k, d):
    return round(k / 2) + d // 4


def describe_sign(x, flag):
    label = 0
    if x > 0 and flag:
        label = 1
    elif x < 0 or not flag:
        label = -1
    return label, x * flag


def first_crossing(x, step):
    for i in range(10):
        x = x + step
        if x > 5.0:
            return i
    return -1


def collatz_steps(n):
    steps = 0
    while n != 1 and steps < 30:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def partial_sum_until(x):
    acc = 0.0
    for i in range(8):
        if x * i > 10.0:
            break
        acc = acc + i
    return acc


def sorted_spread(a, b):
    lo, hi = sort_pair(a, b)
    return hi - lo


def reflect(x):
    if x > 0:
        y = clip01(x)
    else:
        y = clip01(-x)
    return y


def scaled(v, factor=2.0):
    return v * factor


def scaled_twice(x):
    return scaled(x) + scaled(x, 0.5)


def logistic(x, steepness):
    z = -steepness * x
    if z > 700.0:
        return 0.0
    return 1.0 / (1.0 + math.exp(z))


def rounding_family(x):
    return math.ceil(x) - math.trunc(x) + math.floor(x / 2)


def log_base_two(x):
    if x > 0:
        return math.log(x, 2)
    return math.nan


def power_and_fmod(x, y):
    p = math.pow(abs(x), 0.5)
    return p + math.fmod(x, 3.0) + math.degrees(y) / 360.0


def divmod_digits(n):
    q, r = divmod(n, 7)
    return q * 10 + r


def gcd_clipped(a, b):
    g = math.gcd(a, b)
    if g > 100:
        g = 100
    return g


def numpy_mix(x, lo):
    y = np.clip(x, lo, 10.0)
    return np.where(y > 0, np.sqrt(np.abs(y)), np.sign(y))


def bool_to_numbers(x):
    flag = bool(x)
    return int(flag) + float(x > 1.0)


def annotated_steps(x):
    y: float = x * 2.0
    a = b = y - 1.0
    if a > 0:
        b = a / 2.0
    return a + b


def nested_early_returns(x, y):
    if x > 0:
        if y > 0:
            return x + y
        if y < -10:
            return x - y
        z = x * y
    else:
        if math.isnan(y):
            return 0.0
        z = -x
    return z + 1.0


def helper_chain(x, y):
    return lerp(clip01(x), clip01(y), 0.5)


def bounce(x, v):
    """A particle bouncing between walls at 0 and 1, a fixed number of steps."""
    for _ in range(5):
        x = x + v
        if x > 1.0:
            x = 2.0 - x
            v = -v
        elif x < 0.0:
            x = -x
            v = -v
    return x, v


def sum_skipping(x):
    total = 0.0
    for i in range(6):
        if (x + i) % 2 < 1:
            continue
        total += x + i
    return total


def best_below(x, y, limit):
    best = float("inf")
    if x < limit:
        best = x
    if y < limit and y < best:
        best = y
    return best


def sign_round_not(x):
    return math.copysign(1.0, x), round(x, 1), not x


def ordered_pair(a, b):
    return sort_pair(a, b)


def pair_or_repeat(x, y):
    if x > 0:
        return sort_pair(x, y)
    return y, y


def doublings_to_exceed(x, limit):
    for i in range(6):
        x = x * 2.0
        if x > limit:
            return x, i
    return x, -1


def smallest_divisor_offset(k):
    i = 0
    while i < 10:
        if k % (i + 2) == 0:
            return i
        i += 1
    return -1


def first_index_above(x):
    for i in range(5):
        if x < i:
            break
    return i


def scaled_until_below(x):
    for i in range(3):
        y = x * i
        if x > y:
            break
    return y + i


def bisect_sqrt(x):
    lo = 0.0
    hi = max(x, 1.0)
    for _ in range(30):
        mid = (lo + hi) / 2
        if mid * mid > x:
            hi = mid
        else:
            lo = mid
    return lo


def halvings(x):
    steps = 0
    while x > 1.0 and steps < 20:
        x = x / 2
        steps += 1
    return x, steps


def newton_until_converged(x):
    guess = 1.0
    for _ in range(20):
        nxt = 0.5 * (guess + x / guess)
        if abs(nxt - guess) < 1e-12:
            break
        guess = nxt
    return guess


def euclid_gcd(a, b):
    a = abs(a)
    b = abs(b)
    steps = 0
    while b != 0 and steps < 40:
        a, b = b, a % b
        steps += 1
    return a

CORPUS = {
    leaky_relu: ("f", "f"),
    huber_loss: ("f", "f"),
    income_tax: ("f",),
    clamp: ("f", "f", "f"),
    piecewise_linear: ("f",),
    smoothstep: ("f", "f", "f"),
    triangle_wave: ("f", "f"),
    bmi_category: ("f", "f"),
    quadrant: ("f", "f"),
    shipping_cost: ("f", "b"),
    safe_divide: ("f", "f", "f"),
    adjust_only_when_needed: ("f", "f"),
    scale_positive: ("f", "f"),
    sign_of: ("i",),
    fizzbuzz_code: ("i",),
    floor_div_mod: ("i", "i"),
    int_powers: ("i",),
    digit_sum: ("i",),
    leap_year: ("i",),
    to_cents: ("fm",),
    truncate_and_floor: ("fm",),
    relu6_int: ("i",),
    mixed_int_float: ("i", "f"),
    count_positive: ("f", "i", "f"),
    or_default: ("f", "f"),
    and_value: ("f", "f"),
    in_band: ("f", "f", "f"),
    both_positive_or_flag: ("f", "f", "b"),
    flag_logic: ("b", "f"),
    not_greater_or_nan: ("f", "f"),
    ternary_abs: ("f",),
    ternary_sign: ("f",),
    capped_growth: ("f", "f"),
    sort_pair: ("f", "f"),
    quadratic_roots: ("f", "f", "f"),
    interval_around: ("f", "f"),
    min_max_of_three: ("f", "f", "f"),
    polar: ("f", "f"),
    log_or_floor: ("f",),
    softplus: ("f",),
    snap_to_target: ("f", "f"),
    signed_floor: ("fm", "f"),
    wrap_angle: ("f",),
    gated_activation: ("f", "f"),
    nan_guard: ("f", "f"),
    clip_min_zero: ("f",),
    float32_poly: ("f32",),
    float32_threshold: ("f32",),
    float32_mixed: ("f32", "f32"),
    blend: ("f", "f"),
    ratio_difference: ("f", "f", "f"),
    lerp_clamped: ("f", "f", "f"),
    fixed_point_sqrt: ("f",),
    collatz_walk: ("i",),
    fibonacci_like: ("f", "f", "n"),
    weighted_sum: ("f", "n"),
    damped_iterations: ("f", "f"),
    median_of_three: ("f", "f", "f"),
    ordered_bounds: ("f", "f"),
    nonzero_or: ("f", "f"),
    odd_or_halved: ("i",),
    all_equal: ("i", "i", "f"),
    accumulate_positive: ("f", "f"),
    float32_default: ("f32",),
    count_or_scale: ("i", "f"),
    int_ratio_rounded: ("i", "i"),
    describe_sign: ("f", "b"),
    first_crossing: ("f", "f"),
    collatz_steps: ("i",),
    partial_sum_until: ("f",),
    sorted_spread: ("f", "f"),
    reflect: ("f",),
    scaled_twice: ("f",),
    logistic: ("f", "f"),
    rounding_family: ("fm",),
    log_base_two: ("f",),
    power_and_fmod: ("f", "f"),
    divmod_digits: ("i",),
    gcd_clipped: ("i", "i"),
    numpy_mix: ("f", "f"),
    bool_to_numbers: ("f",),
    annotated_steps: ("f",),
    nested_early_returns: ("f", "f"),
    helper_chain: ("f", "f"),
    bounce: ("f", "f"),
    sum_skipping: ("f",),
    best_below: ("f", "f", "f"),
    sign_round_not: ("f",),
    ordered_pair: ("f", "f"),
    pair_or_repeat: ("f", "f"),
    doublings_to_exceed: ("f", "f"),
    smallest_divisor_offset: ("i",),
    first_index_above: ("f",),
    scaled_until_below: ("f",),
    bisect_sqrt: ("f",),
    halvings: ("f",),
    newton_until_converged: ("f",),
    euclid_gcd: ("i", "i"),
}
