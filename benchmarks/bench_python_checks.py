"""What `vectorize`'s Python-semantics checks cost: the generated code with the checks
(zero divisors, `math` domains, int64 overflow: docs/semantics.md, "Exceptions") against the
same code without them (NumPy's semantics, as `vmap` generates it), at N = 1e5 and 1e6.

    python benchmarks/bench_python_checks.py
"""

from __future__ import annotations

import math
import time

import numpy as np

from vectorize.abstract import Value
from vectorize.transform import transform_function


def reciprocal(x):
    return 1.0 / x


def damped_energy(m, v):
    return 0.5 * m * v ** 2 / (1 + v * v)


def int_poly(n):
    return n ** 4 + 3 * n - 7


def log_sqrt(x):
    return math.sqrt(x) + math.log(x + 1.0)


def guarded_log(x):
    if x > 0:
        y = math.log(x)
    else:
        y = 0.0
    return y


def ratio(a, b):
    return (a - b) / (a + b)


def rounded(x):
    return round(x, 3)


CASES = [
    (reciprocal, lambda r, n: (r.uniform(0.5, 2.0, n),)),
    (damped_energy, lambda r, n: (r.uniform(1, 2, n), r.standard_normal(n))),
    (int_poly, lambda r, n: (r.integers(-1000, 1000, n),)),
    (log_sqrt, lambda r, n: (r.uniform(0, 10, n),)),
    (guarded_log, lambda r, n: (r.standard_normal(n),)),
    (ratio, lambda r, n: (r.uniform(1, 2, n), r.uniform(1, 2, n))),
    (rounded, lambda r, n: (r.standard_normal(n),)),
]


def _compiled(func, args, python_semantics):
    params = {name: Value(True, a[0]) for name, a in
              zip(func.__code__.co_varnames[:func.__code__.co_argcount], args)}
    spec = transform_function(func, params, python_semantics=python_semantics)
    return spec.function, spec.source


def _best(f, args, repeats):
    best = math.inf
    for _ in range(repeats):
        t = time.perf_counter()
        f(*args)
        best = min(best, time.perf_counter() - t)
    return best


def main():
    rng = np.random.default_rng(0)
    print(f"{'function':16} {'N':>9} {'unchecked ms':>13} {'checked ms':>11} {'ratio':>6}")
    for func, make in CASES:
        for n in (100_000, 1_000_000):
            args = make(rng, n)
            checked, source = _compiled(func, args, True)
            unchecked, _ = _compiled(func, args, False)
            np.testing.assert_array_equal(checked(*args), unchecked(*args)) \
                if func is not rounded else None
            repeats = 30 if n == 100_000 else 10
            t0 = _best(unchecked, args, repeats)
            t1 = _best(checked, args, repeats)
            print(f"{func.__name__:16} {n:>9} {t0 * 1e3:13.3f} {t1 * 1e3:11.3f} "
                  f"{t1 / t0:6.2f}")
        if "--source" in __import__("sys").argv:
            print(source)


if __name__ == "__main__":
    main()
