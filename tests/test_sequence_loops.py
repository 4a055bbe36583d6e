"""``for e in v`` over a per-example array (and ``enumerate(v)``, ``zip(v, w)``): a loop over
``range(len(v))`` reading ``v[i]`` (`passes/sequence_loops.py`). Every case is compared with
the per-example loop at N = 0, 1, 5 and 12 times at a large N (`batch_sizes.check_sizes`),
with ``chunk_size="auto"`` so that every form the runtime may choose is compared too."""

from __future__ import annotations

import numpy as np
import pytest
from batch_sizes import check_sizes

from vectorize import VectorizeError, vmap


def total_of_positives(v):
    t = 0.0
    for e in v:
        if e > 0:
            t += e
    return t


def first_above(v, x):
    for k, e in enumerate(v):
        if e > x:
            return k
    return -1


def dot_by_hand(v, w):
    s = 0.0
    for a, b in zip(v, w):
        s += a * b
    return s


def best_row(m):
    best = -np.inf
    for row in m:
        best = max(best, row.sum())
    return best


def reversed_scan(v):
    out = 0.0
    for e in v[::-1]:
        out = out * 0.5 + e
    return out


def count_before(v, x):
    c = 0
    for e in v:
        if e > x:
            break
        c += 1
    return c


def pairs_above(v, w):
    s = 0.0
    for a in v:
        for b in w:
            if a > b:
                s += a - b
    return s


def rebinds_its_sequence(v):
    t = 0.0
    for e in v:
        v = v * 2.0          # Python iterates the original array
        t += e
    return t + v[0]


def while_over_elements(v):
    steps = 0
    for e in v:
        while e > 1.0 and steps < 50:
            e = e / 2.0
            steps += 1
    return steps


def _vectors(length=4, scale=1.0):
    def make(n):
        rng = np.random.default_rng(n)
        values = rng.normal(size=(n, length)) * scale
        values[rng.random((n, length)) < 0.05] = np.nan
        return (values,)
    return make


def _with(*extra):
    def make(n):
        rng = np.random.default_rng(n + 1)
        return (rng.normal(size=(n, 4)), *extra)
    return make


@pytest.mark.parametrize("f, make, batched", [
    (total_of_positives, _vectors(), None),
    (first_above, _with(0.5), None),
    (dot_by_hand, _with(np.array([1.0, -2.0, 0.5])), [True, False]),
    (best_row, lambda n: (np.random.default_rng(n).normal(size=(n, 3, 2)),), None),
    (reversed_scan, _vectors(), None),
    (count_before, _with(0.5), None),
    (pairs_above, lambda n: (np.random.default_rng(n).normal(size=(n, 4)),
                             np.random.default_rng(n + 7).normal(size=(n, 3))), None),
    (rebinds_its_sequence, _vectors(), None),
    (while_over_elements, _vectors(scale=20.0), None),
], ids=lambda p: getattr(p, "__name__", None))
def test_loops_over_per_example_arrays(f, make, batched):
    flags = batched or [isinstance(a, np.ndarray) for a in make(2)]
    wrapped = vmap(f, in_axes=tuple(0 if b else None for b in flags), fallback="error",
                   chunk_size="auto")
    check_sizes(wrapped, f, make, batched=batched)


def test_the_loop_reads_like_a_loop_over_positions():
    source = vmap(dot_by_hand).source(np.zeros((3, 4)), np.zeros((3, 4)))
    assert "for i in range(min(v.shape[1], w.shape[1])):" in source, source
    assert "a = v[:, i]" in source and "b = w[:, i]" in source, source
    source = vmap(first_above, in_axes=(0, None)).source(np.zeros((3, 4)), 0.5)
    # (compacted: its examples return at different times, so it reads the running lanes)
    assert "for k in range(v.shape[1]):" in source and "e = v_lanes[:, k]" in source, source
    source = vmap(reversed_scan).source(np.zeros((3, 4)))
    assert "seq = v[:, ::-1]" in source, source


def unpacks_rows(p):
    t = 0.0
    for a, b in p:
        t += a * b
    return t


def enumerate_from_one(v):
    t = 0
    for k, _ in enumerate(v, 1):
        t += k
    return t


def test_rows_unpacked_in_the_loop_header():
    # (a per-example vector unpacked into names: its columns)
    p = np.random.default_rng(0).normal(size=(3, 4, 2))
    np.testing.assert_allclose(vmap(unpacks_rows, fallback="error")(p),
                               np.array([unpacks_rows(r) for r in p]), rtol=1e-12)


@pytest.mark.parametrize("f, arg", [(enumerate_from_one, np.zeros((3, 4)))])
def test_what_is_not_supported_yet_is_refused_where_it_is_written(f, arg):
    with pytest.raises(VectorizeError) as info:
        vmap(f)(arg)
    assert "test_sequence_loops.py:" in str(info.value) and "^" in str(info.value)


def after_a_loop_that_always_returns(v):
    for e in v:
        if e > 0:
            return e
        else:
            return -e
    t = 0.0
    for e1 in v:
        if e1 > 0:
            continue
        t += e1
    return t


def test_a_loop_over_an_array_in_code_reached_only_after_lowering_is_refused():
    # the second loop is not reached for vectors of length >= 1 (the first returns on every
    # path), so the first pass did not see it; lowering the returns made it reachable, and
    # masked_loops took it for a per-example range: "internal error ... 'Name' object has no
    # attribute 'args'" (long fuzz run, seed 14000). Refused where it is written now; for
    # vectors of length 0 it is reached, rewritten and runs.
    with pytest.raises(VectorizeError, match="per-example array after a loop") as info:
        vmap(after_a_loop_that_always_returns)(np.array([[1.0, 2.0], [-1.0, 3.0]]))
    assert "test_sequence_loops.py:" in str(info.value) and "^" in str(info.value)
    empty = np.zeros((3, 0))
    np.testing.assert_array_equal(vmap(after_a_loop_that_always_returns)(empty), [0.0] * 3)
