"""JAX's ``tests/lax_numpy_vectorize_test.py`` cases that ``test_jnp_vectorize.py`` does not
port: ``test_exclude_errors`` and ``test_rank_promotion_error``. Ours is a drop-in for
``numpy.vectorize``, so each runs as a differential case against it
(`vectorize_reference.outcome`: the same results and types, or the same exception type; with
``fallback="error"`` the same, or a located refusal).

``test_exclude_errors``: jnp.vectorize refuses ``excluded={1.5}`` (TypeError) and
``excluded={-1}`` (ValueError) when it is made; numpy.vectorize takes both (an entry that
names no argument excludes nothing), and so does ours. ``test_rank_promotion_error``: JAX's
``jax.numpy_rank_promotion('raise')`` has no NumPy counterpart; the call it checks, a
``(),()->()`` signature over operands of ranks 2 and 1 (and 0), broadcasts as NumPy does.
"""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vectorize_reference import case_table, outcome  # noqa: E402

CASES, case = case_table()


def identity(x):
    return x


def add(x, y):
    return x + y


@case("test_exclude_errors[excluded={1.5}]")
def _(vec):
    return vec(identity, excluded={1.5})(np.arange(3.0))


@case("test_exclude_errors[excluded={-1}]")
def _(vec):
    return vec(identity, excluded={-1})(np.arange(3.0))


@case("test_exclude_errors[excluded={-1}, two arguments]")
def _(vec):
    return vec(add, excluded={-1})(np.arange(3.0), 2.0)


@case("test_rank_promotion_error[rank 2 and rank 1]")
def _(vec):
    return vec(add, signature="(),()->()")(np.zeros((10, 10)), np.zeros(10))


@case("test_rank_promotion_error[rank 2 and rank 0]")
def _(vec):
    return vec(add, signature="(),()->()")(np.zeros((10, 10)), np.zeros(()))


@case("test_rank_promotion_error[np.add itself]")
def _(vec):
    return vec(np.add, signature="(),()->()")(np.zeros((10, 10)), np.zeros(10))


@pytest.mark.parametrize("name", list(CASES))
def test_jnp_vectorize35_case(name):
    assert outcome(CASES[name]) == "pass"


if __name__ == "__main__":
    from vectorize_reference import report
    report(CASES)
