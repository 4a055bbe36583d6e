"""Constructs of issue 20 that were refused: closures and lambdas passed to the user's own
helpers (a root finder written in the same package), `sorted` on CPython 3.13; each
differential: `vectorize` against numpy.vectorize itself (values and dtype, or the same
exception type), `vmap` against the per-example loop of NumPy scalars, at N = 0, 1, 5 and
10,000."""

from __future__ import annotations

import itertools
import math
import sys

import numpy as np
import pytest
from test_constructs21 import check_every_size, same_as_numpy_vectorize

from vectorize import VectorizeError, vectorize, vmap
from vectorize.body_constructs import keyed

NAN = math.nan

# ------------------------------------------------------------------ sorted on CPython 3.13

# CPython 3.13.0's `sorted(range(n), key=keys.__getitem__)` on keys where its sort and 3.12's
# put NaN keys in different places (recorded by running 3.13; 3.12 gives other orders)
SORTED_BY_313 = [
    ((1.0, 0.0, NAN, 1.0), [1, 2, 3, 0]),
    ((NAN, 1.0, 1.0, 0.0), [3, 0, 1, 2]),
    ((NAN, 2.0, 2.0, 1.0), [3, 0, 1, 2]),
    ((NAN, 2.0, 0.0), [2, 0, 1]),
    ((2.0, 0.0, NAN, 2.0), [1, 2, 3, 0]),
    ((1.0, 0.0, NAN, 0.0), [1, 2, 3, 0]),
    ((NAN, 0.0, 2.0, 1.0), [3, 0, 1, 2]),
    ((2.0, NAN, 2.0, 1.0), [3, 0, 1, 2]),
    ((NAN, 0.0, 2.0, 0.0), [3, 0, 1, 2]),
    ((NAN, 2.0, 0.0, 2.0), [2, 0, 1, 3]),
    ((2.0, 2.0, 0.0, NAN), [2, 3, 0, 1]),
    ((2.0, 0.0, 0.0, NAN), [1, 2, 3, 0]),
]


def _leaf(tree, keys):
    while tree[0] == "cmp":
        _, i, j, less, otherwise = tree
        tree = less if keys[i] < keys[j] else otherwise
    return tree[1]


@pytest.mark.parametrize(("keys", "order"), SORTED_BY_313)
def test_the_313_decision_tree_gives_313s_order(keys, order):
    """The tree `sorted` is written out as, for 3.13's run detection, ends where CPython
    3.13 puts each item; 3.12's tree, for these keys, does not."""
    assert _leaf(keyed._decisions(len(keys), through_equal=True), keys) == order
    assert _leaf(keyed._decisions(len(keys), through_equal=False), keys) != order


def test_the_decision_tree_of_the_running_python_is_its_sort():
    """Every list of up to 5 keys of 0, -0, 1, 2 and NaN: the running interpreter's order."""
    assert keyed.SORTS == (sys.version_info[:2] <= (3, 13))
    for n in range(6):
        tree = keyed._decisions(n)
        for keys in itertools.product([0.0, -0.0, 1.0, 2.0, NAN], repeat=n):
            assert _leaf(tree, keys) == sorted(range(n), key=keys.__getitem__), keys
