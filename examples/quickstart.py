"""The motivating program: a scalar function with a data-dependent `if`.

torch.vmap / jax.vmap refuse it ("data-dependent control flow"); numpy.vectorize runs it as a
Python loop. vectorize turns it into real NumPy code and shows you that code.
"""

import time

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


def main():
    t = np.linspace(0, 10, 1_000_000)
    print("generated code for func(t: float64 array, b: float):\n")
    print(func.source(t, 1.0))

    start = time.perf_counter()
    fast = func(t, 1.0)
    ours = time.perf_counter() - start

    slow_f = np.vectorize(func.__wrapped__)
    start = time.perf_counter()
    slow = slow_f(t, 1.0)
    loop = time.perf_counter() - start

    assert np.array_equal(fast, slow)
    print(f"1,000,000 examples: vectorize {ours * 1e3:.1f} ms (first call, includes the "
          f"transform), numpy.vectorize {loop * 1e3:.1f} ms; results identical.")
    print("seed inputs:", func(np.arange(1.0, 9.0), 1.0))


if __name__ == "__main__":
    main()
