"""A loop bounded by a value the same for every example that the loop rebinds per example
(issue 20): Python computes the trip count once, from the shared value, before the first
pass; the batched code must too, not from the array the carry becomes before the loop (whose
first axis is the batch: it looped over the batch, giving wrong values when N < len(v) and an
IndexError when N > len(v))."""

from __future__ import annotations

import numpy as np
import pytest
from differential import assert_values_equal

from vectorize import vectorize, vmap


def loop_over_len(x, v):
    acc = 0.0
    for i in range(len(v)):
        acc += v[i]
        v = v * x
    return acc


def loop_over_shape_with_break(x, v):
    acc = 0.0
    for i in range(v.shape[0]):
        acc += v[i]
        if acc > 3:
            break
        v = v * x
    return acc


def loop_over_elements(x, v):
    acc = 0.0
    for e in v:
        acc += e
        v = v * x
    return acc


def loop_with_start_and_size(x, v):
    acc = 0.0
    for i in range(1, len(v), 1):
        acc += v[i] * v.size
        v = np.concatenate((v[1:], np.array([x])))
    return acc


def nested_loops_over_len(x, v):
    acc = 0.0
    for i in range(len(v)):
        for j in range(len(v)):
            acc += v[j] * i
        v = v * x
    return acc


def while_over_len(x, v):
    acc = 0.0
    i = 0
    while i < len(v):
        acc += v[i]
        v = v * x
        i += 1
    return acc


CASES = [loop_over_len, loop_over_shape_with_break, loop_over_elements,
         loop_with_start_and_size, nested_loops_over_len, while_over_len]


@pytest.mark.parametrize("func", CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 1000])
def test_vectorize_matches_numpy_vectorize(func, n):
    v = np.array([1.0, 2.0, 3.0])
    x = np.linspace(0.5, 2.0, n)
    g = vectorize(func, excluded={1}, fallback="error")
    got = g(x, v)
    got = g(x, v)       # a warm call too
    want = np.vectorize(func, excluded={1}, otypes=[float])(x, v)
    assert got.shape == want.shape
    assert_values_equal(got, want)


@pytest.mark.parametrize("func", CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", [1, 3, 4])
def test_vmap_matches_the_loop(func, n):
    v = np.array([1.0, 2.0, 3.0, 4.0])
    x = np.linspace(0.5, 2.0, n)
    got = vmap(func, in_axes=(0, None), fallback="error")(x, v)
    want = np.array([func(xi, v) for xi in x])
    assert_values_equal(got, want)


def test_the_trip_count_is_computed_before_the_carry_becomes_an_array():
    v, x = np.array([1.0, 2.0, 3.0]), np.array([0.5, 2.0])
    source = vectorize(loop_over_len, excluded={1}, fallback="error").source(x, v)
    lines = [line.strip() for line in source.splitlines()]
    assert lines.index("v_len = len(v)") < lines.index(
        "v = np.full((len(x), *np.shape(v)), v, dtype=np.float64)")
    assert "for i in range(v_len):" in lines


def test_torch_backend():
    torch = pytest.importorskip("torch")
    v = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    x = torch.linspace(0.5, 2.0, 2, dtype=torch.float64)
    got = vmap(loop_over_len, in_axes=(0, None), fallback="error")(x, v)
    want = torch.stack([loop_over_len(xi, v) for xi in x])
    assert torch.allclose(got, want)
