"""A per-example scalar read from an array the function later writes into (issue 13, item 4).

Per example ``a = y[0]`` is a NumPy scalar, a copy of the element: a later ``y[0] += v[0]``
does not change ``a``. On the batch ``y[:, 0]`` is a view, so the engine copies it where ``y``
may be written afterwards while ``a`` is still read; ``a = y[1:]`` is a view per example too
and stays one. Compared with the per-example loop at N = 0, 1, 5 and 12 times at a large N
(`batch_sizes.check_sizes`).
"""

from __future__ import annotations

import numpy as np
import pytest
from batch_sizes import check_sizes

from vectorize import vmap


def read_then_update(v):
    y = np.ones(len(v))
    a = y[0]
    y[0] += v[0]
    return a


def read_then_assign(v):
    y = np.zeros(len(v))
    a = y[1]
    y[1] = v[1] * 2
    return a + y[1]


def read_through_a_choice(v):
    y = np.ones(len(v))
    a = y[0] if len(v) > 1 else 0.0
    y[0] = v[0]
    return a


def read_into_a_tuple(v):
    y = np.ones(len(v))
    a, b = y[0], y[1]
    y[0] += v[0]
    y[1] -= v[1]
    return a - b


def read_in_a_loop(v):
    y = np.zeros(len(v))
    total = 0.0
    for i in range(len(v)):
        a = y[i]
        y[i] = v[i] + 1.0
        total += a * 10 + y[i]
    return total


def read_before_the_next_iteration(v):
    y = np.ones(len(v))
    first = 0.0
    for i in range(len(v)):
        y[0] += v[i]
        first = y[0]
    return first


def slice_is_a_view_per_example(v):
    y = np.ones(len(v))
    a = y[1:]
    y[1] += v[0]
    return a.sum()


def row_of_a_matrix_is_a_view_per_example(v):
    m = np.zeros((2, 2))
    r = m[0]
    m[0, 0] = v[0]
    return r[0]


CASES = [read_then_update, read_then_assign, read_through_a_choice, read_into_a_tuple,
         read_in_a_loop, read_before_the_next_iteration, slice_is_a_view_per_example,
         row_of_a_matrix_is_a_view_per_example]


def _vectors(n):
    return (np.random.default_rng(n).normal(size=(n, 3)),)


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_scalar_reads_keep_their_value(f):
    check_sizes(vmap(f), f, _vectors, large=2000)


def read_not_needed_after_the_write(v):
    y = np.ones(len(v))
    a = y[0]
    b = a * 2
    y[0] += v[0]
    return b + y[0]


def test_only_reads_still_needed_after_a_write_are_copied():
    check_sizes(vmap(read_not_needed_after_the_write), read_not_needed_after_the_write,
                _vectors, large=2000)
    source = vmap(read_then_update).source(*_vectors(3))
    assert "a = y[:, 0].copy()" in source
    for f in (slice_is_a_view_per_example, read_not_needed_after_the_write):
        assert ".copy()" not in vmap(f).source(*_vectors(3))
