"""Writes into arrays the function creates, under ``backend="jax"`` (functional updates).

``y = np.zeros(3); y[0] = x`` and the writes around it (under per-example conditions, with
per-example indices that raise IndexError on live lanes, slices, swaps, copies, helpers that
write into their caller's array) become ``y = y.at[...].set(...)`` under ``jax.jit``
(`vectorize/backends/jax/writes.py`). Each function is checked against the per-example loop
(`vmap`) and numpy.vectorize itself (`vectorize`) at N = 0, 1, 5 and 10 000; gradients
through written arrays against ``jax.grad`` of the per-example JAX code; what per example
shares memory (a view read after its array is written into) is refused, located.
"""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from vectorize import VectorizeError, vectorize, vmap  # noqa: E402

SIZES = [0, 1, 5, 10_000]


def masked_items(x, k):
    y = np.zeros(3)
    y[0] = x
    if x > 0:
        y[1] += x * 2
    elif x < -1:
        y[2] = -x
    else:
        y[1:] = 0.5
    if 0 <= k < 3:
        y[k] = 7.0
    for i in range(3):
        if y[i] > 1:
            y[i] -= 1
    return y * 1.0


def rows_and_loops(v, k):
    out = np.zeros(4)
    acc = np.zeros(3)
    mat = np.zeros((3, 4))
    for i in range(4):
        if v[i] > 0:
            out[i], out[3 - i] = out[3 - i], out[i]
            mat[i % 3] = v * 0.5
        else:
            continue
        acc[k % 3] += v[i]
        mat[k % 3, 1:3] = v[i]
    j = 0
    while j < 4 and v[j] < 2.0:
        out[j] *= 0.5
        out[j] += 1.0
        j += 1
    return out + acc[0], mat


def copies(v, k):
    a = np.array(v)
    b = np.full(4, v[0])
    c = np.roll(v, 1)
    a[1] = b[2] * 2.0
    if v[0] > 0:
        b[k % 4] = 3.0
    c[2:] = a[0]
    return a + b + c


def bump(w, i):
    w[i] += 1.0


def with_a_helper(v, k):
    out = v * 1.0
    bump(out, 1)
    for i in range(2):
        bump(out, i + 2)
    return out


def unguarded(v, k):
    out = np.zeros(4)
    out[k] += v[0]
    return out * 2.0


def read_unguarded(v, k):
    return v[k] * 2.0


def into_ints(x, k):
    y = np.zeros(3, dtype=np.int64)
    y[0] = k
    if k > 1:
        y[1] = k * 3
    return y + 0


def _vectors(n, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    v = rng.choice([0.0, -0.0, 1.0, -1.0, 2.5, -3.0, np.nan, np.inf, 0.5], (n, 4))
    v = np.where(rng.random((n, 4)) < 0.5, rng.uniform(-3, 3, (n, 4)), v).astype(dtype)
    k = rng.integers(-1, 6, n)
    return v, k


def _loop(f, *columns):
    with np.errstate(all="ignore"):
        rows = [f(*row) for row in zip(*columns)]
    if isinstance(rows[0], tuple):
        return tuple(np.stack(r) for r in zip(*rows))
    return np.stack(rows)


def _same(got, expected):
    if isinstance(expected, tuple):
        for g, e in zip(got, expected):
            _same(g, e)
        return
    assert isinstance(got, np.ndarray) and got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("f, n", [(f, n) for f in (copies, with_a_helper) for n in SIZES]
                         + [(rows_and_loops, 5)])
def test_vmap_writes_equal_the_loop(f, n):
    v, k = _vectors(n, seed=n)
    got = vmap(f, backend="jax")(v, k)
    if n:
        _same(got, _loop(f, v, k))
    else:
        assert np.shape(got[0] if isinstance(got, tuple) else got)[0] == 0


@pytest.mark.parametrize("n", SIZES)
def test_masked_writes_and_dead_lanes_equal_numpy_vectorize(n):
    """``y[k] = 7.0`` under ``if 0 <= k < 3``: the lanes with k out of range never write and
    never raise."""
    rng = np.random.default_rng(n)
    x = rng.choice([0.0, -0.5, 2.0, -3.0, np.nan, np.inf, 1.5], n)
    k = rng.integers(-2, 6, n)
    fast = vectorize(masked_items, signature="(),()->(3)", backend="jax", fallback="error")
    if n:
        np.testing.assert_array_equal(
            fast(x, k), np.vectorize(masked_items, signature="(),()->(3)")(x, k))
        _same(vmap(masked_items, backend="jax")(x, k), _loop(masked_items, x, k))
        # a repeated call (the jitted function, warm)
        np.testing.assert_array_equal(fast(x, k), _loop(masked_items, x, k))
    assert ".at[" in vmap(masked_items, backend="jax").source(x, k)
    _same(vmap(into_ints, backend="jax")(x, k),
          _loop(into_ints, x, k) if n else np.zeros((0, 3), np.int64))


@pytest.mark.parametrize("f, n", [(unguarded, 1), (unguarded, 10_000), (read_unguarded, 5)])
def test_a_per_example_index_out_of_bounds_raises_index_error(f, n):
    """(a gather clamped and a scatter dropped an index beyond the end: `v[k]` with k = 7
    gave v[3] silently) the lanes whose index is out of bounds raise IndexError, as the
    per-example code does; in bounds (negative ones too) they compute."""
    v, k = _vectors(n, seed=1)
    k = k % 4 - (np.arange(n) % 2) * 4          # in -4 .. 3
    _same(vmap(f, backend="jax")(v, k), _loop(f, v, k))
    np.testing.assert_array_equal(
        vectorize(f, signature="(4),()->" + ("(4)" if f is unguarded else "()"),
                  backend="jax", fallback="error")(v, k), _loop(f, v, k))
    bad = k.copy()
    bad[n // 2] = 4 if n % 2 else -5
    with pytest.raises(IndexError, match="out of bounds"):
        vmap(f, backend="jax")(v, bad)
    with pytest.raises(IndexError):
        vectorize(f, signature="(4),()->" + ("(4)" if f is unguarded else "()"),
                  backend="jax", fallback="error")(v, bad)


def smooth_writes(x, k):
    y = np.zeros(3)
    y[0] = x * x
    if x > 0:
        y[1] += np.sin(x) * 2
    else:
        y[2] = -x
    if 0 <= k < 3:
        y[k] *= x
    return np.sum(y * y)


def smooth_writes_jnp(x, k):
    """`smooth_writes` per example in JAX's own spelling (the reference of its gradient)."""
    y = jnp.zeros(3)
    y = y.at[0].set(x * x)
    if x > 0:
        y = y.at[1].set(y[1] + jnp.sin(x) * 2)
    else:
        y = y.at[2].set(-x)
    if 0 <= k < 3:
        y = y.at[k].set(y[k] * x)
    return jnp.sum(y * y)


def test_gradients_through_written_arrays_equal_per_example_gradients():
    with jax.enable_x64(True):
        x = jnp.array([1.5, -2.0, 0.3])
        k = jnp.array([0, 5, 2])
        batched = jax.grad(lambda x: vmap(smooth_writes)(x, k).sum())(x)
        per_example = jnp.stack([jax.grad(smooth_writes_jnp)(a, b) for a, b in zip(x, k)])
        np.testing.assert_allclose(batched, per_example, rtol=1e-13)
        assert batched.dtype == jnp.float64


def stale_view(v, k):
    out = np.zeros(4)
    tail = out[1:]
    out[2] = v[0]
    return tail * 1.0


def sorts_in_place(v, k):
    out = np.zeros(4)
    out[0] = v[1]
    out.sort()
    return out


def bump_and_return(w, i):
    w[i] += 1.0
    return w[0] * 2.0


def helper_with_a_value(v, k):
    out = v * 1.0
    s = bump_and_return(out, 1)
    return out + s


def test_what_would_share_memory_is_refused_located():
    v, k = _vectors(3)
    # per example `tail` is a view of `out` and sees the write; the NumPy backend keeps
    # views, JAX's arrays are values
    _same(vmap(stale_view)(v, k), _loop(stale_view, v, k))
    for f, words, out in ((stale_view, "is a view of `out`", "(3)"),
                          (helper_with_a_value, "both returns a value and writes into",
                           "(4)")):
        with pytest.raises(VectorizeError, match=words) as info:
            vmap(f, backend="jax")(v, k)
        assert "test_jax_writes.py:" in str(info.value) and "^" in str(info.value)
        with pytest.warns(UserWarning):
            np.testing.assert_array_equal(vectorize(f, signature="(4),()->" + out,
                                                    backend="jax")(v, k), _loop(f, v, k))
    _same(vmap(helper_with_a_value)(v, k), _loop(helper_with_a_value, v, k))
