"""Loops over examples at call sites: those the file rewriter turns into one batched call,
and those it must leave (each with the reason --explain gives; tests/test_cli.py)."""

import numpy as np

from vectorize import vectorize, vmap


@vectorize
def clip(x, lo=0.0):
    if x < lo:
        return lo
    return x


@vectorize
def split(x):
    return x, -x


@vmap(in_axes=(0, None))
def shifted(v: "float[:]", s: float):
    return v + s


values = np.linspace(-2.0, 2.0, 9)
ROWS = np.arange(12.0).reshape(4, 3)
offset = np.array([0.5, -0.5])


def main():
    r = {}
    r["comprehension"] = [clip(x) for x in values]
    r["array"] = np.asarray([clip(x, -1.0) for x in values])
    r["range"] = [clip(i, 2.0) for i in range(6)]
    r["tuple"] = [clip(x) for x in (1.0, -1.0, 3.0)]
    r["rows"] = np.array([clip(row, 5.0) for row in ROWS])
    appended = []
    for x in values:
        appended.append(clip(x, 0.5))
    r["appended"] = appended
    busy = []
    for x in values:
        busy.append(clip(x))
        busy.append(0.0)
    r["busy"] = busy
    r["computed"] = [clip(x * 2) for x in values]
    r["array_argument"] = [clip(x, offset) for x in values]
    r["tuples"] = [split(x) for x in values]
    r["vmap"] = [shifted(row, 1.0) for row in ROWS]
    r["generator"] = [clip(x) for x in (v for v in values)]
    last = []
    for x in values:
        last.append(clip(x))
    r["last"] = (last, x)
    indexed = np.zeros(len(values))
    for i in range(len(values)):
        indexed[i] = clip(values[i])
    r["indexed"] = indexed
    return r


if __name__ == "__main__":
    print(main())
