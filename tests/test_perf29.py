"""When `chunks.run` primes the C allocator (`chunks.prime_allocator`): for a batch of many
lanes, and for a batch of few lanes whose per-example arrays are large (`PRIME_MIN_BYTES`),
whose temporaries are as large as a long batch's; never for a small batch of small arrays.
Priming changes no value: the results are checked against the per-example loop."""

from __future__ import annotations

import numpy as np
import pytest

import vectorize as vz
from vectorize import chunks


def layer(x, w1, b1, w2):
    return w2 @ np.tanh(w1 @ x + b1)


def _args(rows: int, width: int):
    rng = np.random.default_rng(rows)
    return (rng.standard_normal((rows, width)), rng.standard_normal((16, width)) / 6,
            rng.standard_normal(16), rng.standard_normal((4, 16)) / 4)


def _loop(args):
    x, w1, b1, w2 = args
    return np.stack([layer(row, w1, b1, w2) for row in x])


@pytest.mark.parametrize("chunk_size", ["auto", None])
def test_few_lanes_of_large_examples_prime_the_allocator(monkeypatch, chunk_size):
    args = _args(600, 32)          # 600 lanes (< 2 * AUTO_MIN_LANES), 150 KB of rows
    assert 600 < 2 * chunks.AUTO_MIN_LANES and args[0].nbytes >= 1 << 17   # glibc's mmap size
    monkeypatch.setattr(chunks, "_primed", False)
    f = vz.vmap(layer, in_axes=(0, None, None, None), chunk_size=chunk_size)
    got = f(*args)
    assert chunks._primed
    np.testing.assert_allclose(got, _loop(args), rtol=1e-12, atol=1e-12)
    assert got.dtype == np.float64 and got.shape == (600, 4)


def test_a_small_batch_of_small_examples_does_not_prime(monkeypatch):
    args = _args(50, 8)            # 3.2 KB of rows
    monkeypatch.setattr(chunks, "_primed", False)
    f = vz.vmap(layer, in_axes=(0, None, None, None))
    got = f(*args)
    assert not chunks._primed
    np.testing.assert_allclose(got, _loop(args), rtol=1e-12, atol=1e-12)


def test_vectorize_of_a_long_batch_still_primes(monkeypatch):
    x = np.linspace(-2.0, 10.0, 2 * chunks.AUTO_MIN_LANES)
    monkeypatch.setattr(chunks, "_primed", False)
    f = vz.vectorize(lambda t: t * 2.0 if t > 5 else -t, fallback="error")
    got = f(x)
    assert chunks._primed
    np.testing.assert_array_equal(got, np.vectorize(lambda t: t * 2.0 if t > 5 else -t)(x))
