"""Loops with early returns and a helper function: square roots by Newton's method, and the
first point where a curve crosses a line."""

import math

import numpy as np

from vectorize import vectorize

TOLERANCE = 1e-12


def newton_step(x, a):
    return 0.5 * (x + a / x)


@vectorize
def sqrt_newton(a):
    if a < 0:
        return math.nan
    if a == 0:
        return 0.0
    x = max(a, 1.0)
    while abs(x * x - a) > TOLERANCE * a:
        x = newton_step(x, a)
    return x


@vectorize
def first_crossing(c, step=0.25):
    x = 0.0
    for _ in range(100):
        if math.cos(x) * c < 0.1 * x:
            return x          # an early return inside the loop
        x += step
    return -1.0


def main():
    a = np.linspace(-1.0, 50.0, 41)
    roots = np.array([sqrt_newton(v) for v in a])
    out = []
    for v in a:
        out.append(sqrt_newton(v))
    return {"roots": roots, "out": out, "direct": sqrt_newton(a),
            "crossing": first_crossing(np.linspace(0.1, 30.0, 17)),
            "coarse": first_crossing(np.linspace(0.1, 30.0, 17), 1.0),
            "step": newton_step(2.0, 3.0)}


if __name__ == "__main__":
    print(main())
