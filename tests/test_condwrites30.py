"""A write into an array the function created (``out = np.zeros(4)``, the same on every
example) before a test that reads it: the test is decided on the array as written, not
on the array as created (silently wrong before: the `if` was decided on the zeros and its
early return taken on every example; fuzz_wide condwrites seed 50082)."""

import numpy as np

import vectorize


def _written_then_tested(x, y):
    out = np.zeros(4)
    out[0] = 1.0
    if out[0] < 0.5:
        return 0.0
    out[y % 4] = x
    return np.sum(out)


def _written_in_loop_then_tested(x, y):
    out = np.zeros(4, dtype=np.int64)
    for i in range(4):
        out[i] = 1.0
    if out[0] < 0.5:
        return np.sum(out) * 1.0
    j = 0
    while j < 4 and x * j < 2.0:
        if 0 <= y < 4:
            out[y] = x - 1.0
        j += 1
    return np.sum(out) * 1.0


def _check(f):
    xs = np.array([0.0, 1.0, 2.5, -1.0, -2.0, 3.0, 0.5])
    ys = np.array([0, 1, 2, 3, -1, 5, -4], dtype=np.int64)
    expected = np.vectorize(f)(xs, ys)
    got = vectorize.vectorize(f)(xs, ys)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def test_item_write_then_if_on_it():
    _check(_written_then_tested)


def test_loop_writes_then_if_on_it():
    _check(_written_in_loop_then_tested)
