"""Loops over examples the file rewriter must never turn into a crashing or different program
(issue 20): sequences it cannot prove are arrays or lists of numbers stay loops; zips of
sequences of one length and accumulations are rewritten (tests/test_call_sites.py)."""

from fractions import Fraction

import numpy as np

from vectorize import vectorize


@vectorize
def clip(x, lo=0.0):
    if x < lo:
        return lo
    return x


@vectorize
def twice(x):
    return x * 2


@vectorize(signature="(n)->()")
def rms(v):
    return np.sqrt(np.mean(v * v))


@vectorize(signature="(n),(n)->()")
def cosine(u, v):
    norms = np.linalg.norm(u) * np.linalg.norm(v)
    if norms == 0:
        return 0.0
    return u.dot(v) / norms


values = np.linspace(-2.0, 2.0, 9)
NUMBERS = [1.0, -2.0, 3.0, 0.5]
RAGGED = [[1.0, 2.0], [3.0]]
TABLE = {1.0: "one", -2.0: "minus two"}
SEEN = {3.0, -1.0}
ROWS = np.arange(12.0).reshape(4, 3) - 5.0
OTHER = np.ones((4, 3))
BIG = [2 ** 70, 1]


def over(xs):
    return [clip(x) for x in xs]


def summed(xs):
    total = 0.0
    for x in xs:
        total += clip(x)
    return total


def main():
    r = {}
    # proven: rewritten
    r["numbers"] = [clip(x) for x in NUMBERS]
    r["local_numbers"] = [clip(x, 0.5) for x in [0.25, 1.0, -3.0]]
    r["made"] = [clip(x) for x in np.linspace(-1.0, 1.0, 5) * 2.0]
    r["zip_rows"] = [cosine(u, v) for u, v in zip(ROWS, OTHER)]
    pairs = []
    for u, v in zip(ROWS, ROWS):
        pairs.append(cosine(u, v))
    r["zip_same"] = pairs
    total = 0.0
    for x in values:
        total += clip(x)
    r["total"] = total
    product = 1.0
    for x in values + 3.0:
        product *= clip(x)
    r["product"] = product
    again = 0
    for x in range(10):
        again = again + clip(x, 3)
    r["again"] = again
    # not proven: left as they are
    r["generator"] = over(v for v in values)
    r["list_param"] = over([1.0, -1.0])
    r["set"] = [clip(x) for x in SEEN]
    r["local_set"] = [clip(x) for x in {2.0, -2.0}]
    r["dict"] = [clip(x) for x in TABLE]
    r["fractions"] = [float(clip(x)) for x in [Fraction(1, 2), Fraction(-1, 3)]]
    r["ragged"] = [rms(row) for row in RAGGED]
    r["big"] = [float(twice(n)) for n in BIG]
    r["zip_short"] = [cosine(u, v) for u, v in zip(ROWS, ROWS[:2])]
    r["summed_generator"] = summed(v for v in values)
    start = np.zeros(3)
    for x in values:
        start += clip(x)
    r["array_total"] = start
    return r


if __name__ == "__main__":
    print(main())
