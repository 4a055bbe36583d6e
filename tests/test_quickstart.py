"""The seed program from the issue: exact per-example results and a real `np.where` (the
runtime's `merge.blend`: `np.where` computed without a branch per lane on large batches)."""

import numpy as np
from differential import assert_matches_loop

from vectorize import vectorize


def func(t, b):
    tmp = t * b
    if tmp > 5:
        root = t * b
    else:
        root = -t
    return root


def test_seed_program_matches_loop_and_uses_where():
    t = np.array([1.0, 2, 3, 4, 5, 6, 7, 8])
    assert_matches_loop(func, t, 1.0)
    assert_matches_loop(func, np.linspace(-10, 10, 101).astype(np.float32), 0.5)
    source = vectorize(func, fallback="error").source(np.zeros(3), 1.0)
    assert "root = merge.blend(tmp > 5.0, tmp, -t)" in source
    assert "if tmp" not in source
    np.testing.assert_array_equal(vectorize(func)(t, 1.0), [-1, -2, -3, -4, -5, 6, 7, 8])
