"""The live-loop workloads (issue 20: loops that pay for the slow lanes only): per-example
functions whose examples stop at different times, each beside its ``# vectorize: select``
twin (the masked form: every lane runs until the last finishes, which the compacted loop must
match bit for bit). One module for `bench_live_loops.py` and the tests that check the
compacted loops (tests/test_live*.py import it as ``benchmarks.live_workloads``); it needs
nothing from tests/.

``WORKLOADS`` (the benchmark's): for each name, the scalar function, its select twin, the
hand-written masked NumPy loop, one iteration of the body in NumPy over all examples (the
*live work* unit), the per-example iteration counts, and the inputs for a batch size.
"""

from __future__ import annotations

import math

import numpy as np

from benchmarks.workloads import newton_step, sqrt_newton, sqrt_newton_hand


# ------------------------------------------------------------------ per-example functions
def newton_tail(a, x0):
    x = x0
    while abs(x * x - a) > 1e-12 * a:
        x = 0.5 * (x + a / x)
    return x


def newton_tail_select(a, x0):
    x = x0
    while abs(x * x - a) > 1e-12 * a:  # vectorize: select
        x = 0.5 * (x + a / x)
    return x


def sqrt_newton_select(a):
    if a < 0:
        return math.nan
    if a == 0:
        return 0.0
    x = max(a, 1.0)
    while abs(x * x - a) > 1e-12 * a:  # vectorize: select
        x = newton_step(x, a)
    return x


def mandelbrot(cr, ci):
    zr = 0.0
    zi = 0.0
    n = 0
    while zr * zr + zi * zi <= 4.0 and n < 100:
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        n += 1
    return n


def mandelbrot_select(cr, ci):
    zr = 0.0
    zi = 0.0
    n = 0
    while zr * zr + zi * zi <= 4.0 and n < 100:  # vectorize: select
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        n += 1
    return n


def first_root(c):
    x = 0.0
    k = 0
    while k < 200:
        f = math.cos(x) - c * x
        if abs(f) < 1e-9:
            return x
        x = x + 0.5 * f / (math.sin(x) + c)
        k += 1
    return math.nan


def first_root_select(c):
    x = 0.0
    k = 0
    while k < 200:  # vectorize: select
        f = math.cos(x) - c * x
        if abs(f) < 1e-9:
            return x
        x = x + 0.5 * f / (math.sin(x) + c)
        k += 1
    return math.nan


# ------------------------------------ hand-written NumPy: the masked loop a careful person writes
def newton_tail_hand(a, x0):
    x = x0.copy()
    active = np.abs(x * x - a) > 1e-12 * a
    while active.any():
        x = np.where(active, 0.5 * (x + a / x), x)
        active &= np.abs(x * x - a) > 1e-12 * a
    return x


def mandelbrot_hand(cr, ci):
    zr = np.zeros_like(cr)
    zi = np.zeros_like(ci)
    n = np.zeros(cr.shape, dtype=np.int64)
    active = np.full(cr.shape, True)
    while active.any():
        zr, zi = (np.where(active, zr * zr - zi * zi + cr, zr),
                  np.where(active, 2.0 * zr * zi + ci, zi))
        n += active
        active &= (zr * zr + zi * zi <= 4.0) & (n < 100)
    return n


def first_root_hand(c):
    x = np.zeros_like(c)
    result = np.full(c.shape, np.nan)
    active = np.full(c.shape, True)
    k = 0
    while k < 200 and active.any():
        f = np.cos(x) - c * x
        done = active & (np.abs(f) < 1e-9)
        result[done] = x[done]
        active &= ~done
        x = np.where(active, x + 0.5 * f / (np.sin(x) + c), x)
        k += 1
    return result


# ----------------------------------------- one iteration of each body, and iteration counts
def newton_tail_once(a, x0):
    x = 0.5 * (x0 + a / x0)
    return np.abs(x * x - a) > 1e-12 * a, x


def newton_tail_counts(a, x0):
    x, count = x0.copy(), np.zeros(len(a), dtype=np.int64)
    active = np.abs(x * x - a) > 1e-12 * a
    while active.any():
        x = np.where(active, 0.5 * (x + a / x), x)
        count += active
        active &= np.abs(x * x - a) > 1e-12 * a
    return count


def sqrt_newton_once(a):
    return newton_tail_once(a, np.maximum(a, 1.0))


def sqrt_newton_counts(a):
    count = np.zeros(len(a), dtype=np.int64)
    count[a > 0] = newton_tail_counts(a[a > 0], np.maximum(a[a > 0], 1.0))
    return count


def mandelbrot_once(cr, ci):
    zr, zi = cr * cr - ci * ci + cr, 2.0 * cr * ci + ci
    return (zr * zr + zi * zi <= 4.0) & (ci < 100), zr, zi, cr + 1


def mandelbrot_counts(cr, ci):
    return mandelbrot_hand(cr, ci)


def first_root_once(c):
    x = 0.5 * c
    f = np.cos(x) - c * x
    return np.abs(f) < 1e-9, x + 0.5 * f / (np.sin(x) + c), c + 1


def first_root_counts(c):
    x = np.zeros_like(c)
    count = np.zeros(c.shape, dtype=np.int64)
    active = np.full(c.shape, True)
    for _ in range(200):
        count += active
        f = np.cos(x) - c * x
        active &= ~(np.abs(f) < 1e-9)
        if not active.any():
            break
        x = np.where(active, x + 0.5 * f / (np.sin(x) + c), x)
    return count


# ---------------------------------------------------------------------------------- inputs
def newton_tail_args(n, rng):
    a = rng.uniform(1.0, 2.0, n)
    return a, a * 2.0 ** np.minimum(rng.pareto(1.5, n), 88.0)


def sqrt_newton_args(n, rng):
    return (np.exp(rng.uniform(-40.0, 60.0, n)) * rng.choice([-1.0, 1.0, 1.0, 1.0], n),)


def mandelbrot_args(n, rng):
    return rng.uniform(-2.0, 0.5, n), rng.uniform(-1.25, 1.25, n)


def first_root_args(n, rng):
    return (np.exp(rng.uniform(-4.0, 3.0, n)),)


WORKLOADS = {
    "newton tail": (newton_tail, newton_tail_select, newton_tail_hand, newton_tail_once,
                    newton_tail_counts, newton_tail_args),
    "newton sqrt": (sqrt_newton, sqrt_newton_select, sqrt_newton_hand, sqrt_newton_once,
                    sqrt_newton_counts, sqrt_newton_args),
    "mandelbrot": (mandelbrot, mandelbrot_select, mandelbrot_hand, mandelbrot_once,
                   mandelbrot_counts, mandelbrot_args),
    "first root": (first_root, first_root_select, first_root_hand, first_root_once,
                   first_root_counts, first_root_args),
}


# ------------------------------------------------------- more loops the tests check (twins)
def collatz(n):
    steps = 0
    while n > 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def collatz_select(n):
    steps = 0
    while n > 1:  # vectorize: select
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def halve32(x, k):
    # float32 carry: no scalar tail (Python floats are float64), compactions only
    n = 0
    while x > k and n < 60:
        x = x * np.float32(0.5)
        n += 1
    return x


def halve32_select(x, k):
    n = 0
    while x > k and n < 60:  # vectorize: select
        x = x * np.float32(0.5)
        n += 1
    return x


def halve32_cast(x):
    # a float32 carry (a Python float beside it stays float32, NEP 50)
    x = np.float32(x)
    n = 0
    while x > 0.75 and n < 60:
        x = x * 0.5
        n += 1
    return x


def halve32_cast_select(x):
    x = np.float32(x)
    n = 0
    while x > 0.75 and n < 60:  # vectorize: select
        x = x * 0.5
        n += 1
    return x


def gcd(a, b):
    while b != 0:
        a, b = b, a % b
    return a


def gcd_select(a, b):
    while b != 0:  # vectorize: select
        a, b = b, a % b
    return a


def escape_for(cr, ci):
    zr = 0.0
    zi = 0.0
    count = 0
    for _ in range(60):
        if zr * zr + zi * zi > 4.0:
            break
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        count += 1
    return count


def escape_for_select(cr, ci):
    zr = 0.0
    zi = 0.0
    count = 0
    for _ in range(60):  # vectorize: select
        if zr * zr + zi * zi > 4.0:
            break
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        count += 1
    return count


def walk_rows(v, x):
    # a per-example row read in the loop: gathered, then shrunk with take on axis 0
    n = 0
    while x > v[0] and n < 200:
        x = x * v[1] - v[2]
        n += 1
    return x + n


def walk_rows_select(v, x):
    n = 0
    while x > v[0] and n < 200:  # vectorize: select
        x = x * v[1] - v[2]
        n += 1
    return x + n


def halve_flag(x):
    # the mask narrows by a carried truth (``going``), which the code after the loop reads
    going = x > 1.0
    n = 0
    while going:
        x = x / 2.0
        n += 1
        going = x > 1.0
    return n * 10 + going


def halve_flag_select(x):
    going = x > 1.0
    n = 0
    while going:  # vectorize: select
        x = x / 2.0
        n += 1
        going = x > 1.0
    return n * 10 + going


def countdown_div(x, n):
    k = 0
    s = 0.0
    while k < n:
        s = s + 1.0 / x
        x = x - 1.0
        k += 1
    return s


def countdown_div_select(x, n):
    k = 0
    s = 0.0
    while k < n:  # vectorize: select
        s = s + 1.0 / x
        x = x - 1.0
        k += 1
    return s


def tol2(a, b, x0):
    x = x0
    k = 0
    while abs(x * x - a) > a * 1e-12 + b and k < 100:
        x = 0.5 * (x + a / x)
        k += 1
    return x


def tol2_select(a, b, x0):
    x = x0
    k = 0
    while abs(x * x - a) > a * 1e-12 + b and k < 100:  # vectorize: select
        x = 0.5 * (x + a / x)
        k += 1
    return x


def tol3(a, b, x0):
    x = x0
    k = 0
    while abs(x * x - a) > (a * 1e-12 + b) * 0.5 and k < 100:
        x = 0.5 * (x + a / x)
        k += 1
    return x


def tol3_select(a, b, x0):
    x = x0
    k = 0
    while abs(x * x - a) > (a * 1e-12 + b) * 0.5 and k < 100:  # vectorize: select
        x = 0.5 * (x + a / x)
        k += 1
    return x


def newton_tail_inputs(n, seed, cap=60.0):
    """``newton_tail``'s (a, x0) for the tests: heavy-tailed starts, ``2**pareto`` capped."""
    rng = np.random.default_rng(seed)
    a = rng.uniform(1.0, 2.0, n)
    return a, a * 2.0 ** np.minimum(rng.pareto(1.5, n), cap)
