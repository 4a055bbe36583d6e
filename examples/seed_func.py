"""The program this project started from (the first seed program), written with NumPy.

A per-example function with a data-dependent ``if`` (``torch.vmap`` refuses it), applied to
every item of an input with a list comprehension, and the hand-written ``where`` version.
``python -m vectorize examples/seed_func.py`` turns both functions into NumPy code and the
loops over the input into one call each.
"""

import numpy as np

from vectorize import vectorize


@vectorize
def func(t, b):
    tmp = t * b
    if tmp > 5:
        root = t * b
    else:
        root = -t
    return root


@vectorize
def func_2(t, b):
    return np.where(t > 5.0, t * b, -t)


inputs = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0])
b = 1.0


def main():
    root_ls = [func(x, b) for x in inputs]
    roots = np.array([func_2(x, b) for x in inputs])
    grid = func(inputs.reshape(2, 4), 2.0)     # numpy.vectorize broadcasting: any shape
    return {"root_ls": root_ls, "roots": roots, "grid": grid, "one": func(3.0, b),
            "shared": func(inputs, np.array([0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0]))}


if __name__ == "__main__":
    print(main())
