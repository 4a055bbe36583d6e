"""Per-example functions for `--backend`: an `if`, an `if`/`elif` chain, a `while`."""

from vectorize import vectorize


@vectorize
def seed(t, b):
    tmp = t * b
    if tmp > 5:
        root = t * b
    else:
        root = -t
    return root


@vectorize
def piecewise(x):
    if x < 0:
        y = x * x
    elif x < 1:
        y = 2 * x + 1
    elif x < 3:
        y = x ** 0.5 + 2
    else:
        y = 5.0
    return y


@vectorize
def escape(cr, ci):
    zr = cr
    zi = ci
    count = 0
    while count < 50 and zr * zr + zi * zi <= 4.0:
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        count += 1
    return count
