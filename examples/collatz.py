"""Integers: the number of Collatz steps to reach 1, per starting number."""

import numpy as np

from vectorize import vectorize

LIMIT = 1000


def next_value(n):
    if n % 2 == 0:
        return n // 2
    return 3 * n + 1


@vectorize
def collatz_steps(n: int):
    steps = 0
    while n != 1 and steps < LIMIT:
        n = next_value(n)
        steps += 1
    return steps


def main():
    counts = [collatz_steps(n) for n in range(1, 40)]
    table = np.array([collatz_steps(n) for n in np.arange(100, 140)])
    return {"counts": counts, "table": table, "big": collatz_steps(np.array([27, 97, 871]))}


if __name__ == "__main__":
    print(main())
