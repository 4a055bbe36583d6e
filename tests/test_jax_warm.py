"""The JAX backend's warm calls and its writes of items at constant indices.

Warm calls (``docs/jax.md``): ``vmap(..., backend="jax")`` on NumPy arrays takes its warm
path first and gets NumPy arrays straight from the jitted function's runner; the arguments'
dtype, rank and batch size change between warm calls, NumPy and ``jax.Array`` calls
alternate, Python and NumPy scalars (weakly and strongly typed) are passed: every result
equals the per-example loop's, in its dtype.

Writes ``y[k] = v`` at constant indices (``writes.set_item``): selected into the array where
the indexed axes are small (XLA compiles the chain without a scatter), scattered beyond;
the values and dtypes are the per-example loop's either way.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from vectorize import vectorize, vmap

SIZES = [0, 1, 5, 10_000]


def _loop(f, *args, axes=None):
    """The per-example loop: each example's result, stacked (NumPy scalars/rows in)."""
    axes = axes or (0,) * len(args)
    n = next(a.shape[0] for a, ax in zip(args, axes) if ax == 0)
    outs = [f(*[a[i] if ax == 0 else a for a, ax in zip(args, axes)]) for i in range(n)]
    return np.array(outs) if outs else None


def _same(out, expected):
    assert type(out) is np.ndarray, type(out)
    assert out.dtype == expected.dtype, (out.dtype, expected.dtype)
    assert out.shape == expected.shape, (out.shape, expected.shape)
    np.testing.assert_allclose(out, expected, rtol=1e-13, atol=0)


# ---------------------------------------------------------------------------- warm calls
def scaled_if(t, b):
    tmp = t * b
    if tmp > 5:
        root = t * b
    else:
        root = -t
    return root


def row_norm(v, w):
    return np.sqrt(np.sum(v * v * w))


@pytest.mark.parametrize("n", SIZES)
def test_vmap_numpy_warm_calls_equal_the_loop(n):
    rng = np.random.default_rng(n)
    t = rng.uniform(-2.0, 10.0, n)
    fast = vmap(scaled_if, in_axes=(0, None), backend="jax")
    for _ in range(3):      # cold, then warm (the NumPy fast path)
        out = fast(t, 1.5)
        expected = np.array([scaled_if(x, 1.5) for x in t], dtype=np.float64)
        _same(out, expected)
        assert out.flags.writeable and not np.shares_memory(out, t)
    assert fast._fast_numpy is not None and fast._fast_numpy.numpy_out


def test_vmap_warm_calls_with_dtype_rank_and_size_changes():
    """Dtypes, sizes and scalar kinds change between warm calls, NumPy and jax.Array calls
    alternate: each result the loop's, in its dtype (the fast path matches only arguments
    like the last call's; anything else plans again)."""
    fast = vmap(scaled_if, in_axes=(0, None), backend="jax")
    rng = np.random.default_rng(0)
    calls = [
        (rng.uniform(-2, 10, 5), 1.5),
        (rng.uniform(-2, 10, 7), 2.0),                       # a new size
        (rng.uniform(-2, 10, 7).astype(np.float32), 1.5),    # float32 with a Python float
        (rng.uniform(-2, 10, 7).astype(np.float32), np.float64(1.5)),   # a strong float64
        (rng.integers(-2, 10, 6), 3),                        # ints, a static Python int
        (rng.integers(-2, 10, 6), 2.5),
        (rng.uniform(-2, 10, 5), 1.5),                       # back to the first
    ]
    for _ in range(2):
        for t, b in calls:
            expected = np.array([scaled_if(x, b) for x in t])
            _same(fast(t, b), expected)
            with jax.enable_x64(True):      # (a float64 jax.Array, as the NumPy one)
                jt = jnp.asarray(t)
            got = fast(jt, b)
            assert isinstance(got, jax.Array) and got.dtype == expected.dtype
            np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-13)


@pytest.mark.parametrize("n", [0, 1, 5])
def test_vmap_numpy_warm_calls_of_rows_and_ranks(n):
    fast = vmap(row_norm, in_axes=(0, None), backend="jax")
    rng = np.random.default_rng(n)
    for shape in [(n, 3), (n, 3), (n, 4), (n, 4)]:
        v, w = rng.standard_normal(shape), rng.uniform(0, 1, shape[1])
        expected = _loop(row_norm, v, w, axes=(0, None))
        if expected is None:
            expected = np.zeros(0)
        _same(fast(v, w), expected)
    # a rank of its own: a batch of matrices, each row_norm summing all of it
    v, w = rng.standard_normal((n, 2, 3)), rng.uniform(0, 1, (2, 3))
    expected = _loop(row_norm, v, w, axes=(0, None))
    _same(fast(v, w), np.zeros(0) if expected is None else expected)


@pytest.mark.parametrize("api", ["vectorize", "vmap"])
def test_warm_calls_with_x64_off_still_compute_in_float64(api):
    t = np.random.default_rng(1).uniform(-2, 10, 10_000)
    fast = vectorize(scaled_if, backend="jax") if api == "vectorize" else \
        vmap(scaled_if, in_axes=(0, None), backend="jax")
    expected = np.where(t * 0.1 > 5, t * 0.1, -t)
    before = jax.config.jax_enable_x64
    try:
        for x64 in (True, False, True, False):
            jax.config.update("jax_enable_x64", x64)
            _same(fast(t, 0.1), expected)
    finally:
        jax.config.update("jax_enable_x64", before)


@settings(max_examples=25, deadline=None)
@given(arrays(np.float64, st.integers(0, 6),
              elements=st.floats(allow_nan=True, allow_infinity=True, width=64)),
       st.floats(-3, 3))
def test_vmap_numpy_warm_path_on_any_floats(t, b):
    fast = _WARM.setdefault("scaled_if", vmap(scaled_if, in_axes=(0, None), backend="jax"))
    with np.errstate(all="ignore"):
        expected = np.array([scaled_if(x, b) for x in t], dtype=np.float64)
    _same(fast(t, b), expected)


_WARM: dict = {}


# ------------------------------------------------------------- writes at constant indices
def twelve_columns(x):
    y = np.zeros(12)
    y[0] = x
    y[1] = x * 2.0
    y[2] = x - 1
    y[3] = -x
    y[4] = x * x
    y[5] = 1.5
    y[6] = x + 3
    y[7] = x / 4
    y[8] = x * 5.0
    y[9] = x - 7
    y[10] = 2 * x
    y[-1] = x + y[0]
    return y


def table(x):
    y = np.zeros((2, 3))
    y[1] = x
    y[0, -1] = x * 2
    y[-1, 0] += 5
    if x > 0:
        y[0, 0] = x - 1
    return y


def into_ints(x):
    y = np.zeros(4, dtype=np.int64)
    y[0] = x
    y[-1] = x * 2.5
    y[2] = True
    return y


def wide(x):
    y = np.zeros(40)
    y[0] = x
    y[39] = x * 2
    y[-2] = y[0] + 1
    return y


def rows_of_a_wide_table(x):
    y = np.zeros((3, 20))
    y[1] = x
    y[2, 19] = x * 3
    return y


def flags(x):
    y = np.zeros(3, dtype=bool)
    y[1] = x > 0
    return y


WRITERS = [twelve_columns, table, into_ints, wide, rows_of_a_wide_table, flags]


@pytest.mark.parametrize("f", WRITERS, ids=lambda f: f.__name__)
def test_writes_at_constant_indices_equal_the_loop(f):
    fast = vmap(f, backend="jax")
    for n in (0, 1, 10_000):
        rng = np.random.default_rng(n)
        x = rng.choice([0.0, -0.5, 2.0, -3.0, 1.5, 7.25, -0.0], n)
        assert "set_item(" in fast.source(x) and ".at[" not in fast.source(x)
        expected = _loop(f, x)
        out, again = fast(x), fast(x)       # cold, warm
        if expected is None:
            assert out.shape == (0, *f(0.0).shape) and out.dtype == f(0.0).dtype
            continue
        _same(out, expected)
        _same(again, expected)


@pytest.mark.parametrize("f", WRITERS, ids=lambda f: f.__name__)
def test_writes_at_constant_indices_on_jax_arrays_and_under_vectorize(f):
    x = np.array([0.0, -0.5, 2.0, -3.0, 1.5])
    expected = _loop(f, x)
    with jax.enable_x64(True):
        jx = jnp.asarray(x)
    out = vmap(f, backend="jax")(jx)
    assert isinstance(out, jax.Array) and out.dtype == expected.dtype
    np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-13)
    signature = "()->(" + ",".join(f"n{i}" for i in range(expected.ndim - 1)) + ")"
    reference = np.vectorize(f, signature=signature)(x)
    got = vectorize(f, signature=signature, backend="jax", fallback="error")(x)
    assert got.dtype == reference.dtype
    np.testing.assert_allclose(got, reference, rtol=1e-13)


def test_a_chain_of_column_writes_compiles_without_a_scatter():
    """Twelve ``y[k] = ...``: one fused select per column, no scatter (a chain of scatters
    compiled several times slower on CPU); a table wider than `set_item`'s limit scatters."""
    from vectorize.backends.jax import writes
    x = jnp.arange(6.0)
    y = jnp.zeros((6, 12))
    small = jax.jit(lambda y, x: writes.set_item(writes.set_item(y, 0, x), -1, x * 2))
    assert "scatter" not in small.lower(y, x).as_text()
    wide_y = jnp.zeros((6, 40))
    assert "scatter" in jax.jit(lambda y, x: writes.set_item(y, 39, x)).lower(
        wide_y, x).as_text()
    np.testing.assert_array_equal(small(y, x), y.at[:, 0].set(x).at[:, -1].set(x * 2))


def test_set_item_gradients_equal_the_scatters():
    from vectorize.backends.jax import writes

    def selected(x):
        y = jnp.zeros((x.shape[0], 3, 2))
        y = writes.set_item(y, 1, x[:, None] * 3.0)
        y = writes.set_item(y, (0, -1), jnp.sin(x))
        return jnp.sum(y * jnp.arange(1.0, 7.0).reshape(3, 2))

    def scattered(x):
        y = jnp.zeros((x.shape[0], 3, 2))
        y = y.at[:, 1].set(x[:, None] * 3.0)
        y = y.at[:, 0, -1].set(jnp.sin(x))
        return jnp.sum(y * jnp.arange(1.0, 7.0).reshape(3, 2))
    x = jnp.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(jax.jit(jax.grad(selected))(x),
                               jax.jit(jax.grad(scattered))(x), rtol=1e-14)


# ------------------------------------------- the warm runner across checks and levels
def python_test(t, b):
    if b > 0:           # a Python `if` on the unbatched float: b must be a number
        return t * b
    return t - b


def picked(v, k):
    return v[k] * 2.0


@pytest.mark.parametrize("numpy_in", [True, False])
def test_warm_runner_after_the_floats_turn_static_and_new_shapes(numpy_in):
    """The first calls trace ``b`` (a Python float); the first one that needs it as a number
    makes floats static: later warm calls of the same fast path, on new sizes too, still
    give the loop's results."""
    fast = vmap(python_test, in_axes=(0, None), backend="jax")
    rng = np.random.default_rng(3)
    for n in (4, 4, 9, 4, 9, 1):
        t = rng.uniform(-3, 3, n)
        with jax.enable_x64(True):
            arg = t if numpy_in else jnp.asarray(t)
        for b in (2.0, -1.5, 0.0):
            expected = np.array([python_test(x, b) for x in t])
            got = fast(arg, b)
            assert isinstance(got, np.ndarray if numpy_in else jax.Array)
            assert got.dtype == expected.dtype
            np.testing.assert_array_equal(np.asarray(got), expected)


@pytest.mark.parametrize("numpy_in", [True, False])
def test_warm_runner_raises_where_a_check_fires_and_runs_on_after(numpy_in):
    """An index out of bounds in a warm call (a `checkify` check of the jitted function)
    raises the per-example IndexError; the calls after it are warm again."""
    fast = vmap(picked, in_axes=(0, 0), backend="jax")
    v = np.arange(12.0).reshape(4, 3)
    good, bad = np.array([0, 2, -1, 1]), np.array([0, 3, 1, 1])

    def call(k):
        if numpy_in:
            return fast(v, k)
        with jax.enable_x64(True):
            return fast(jnp.asarray(v), jnp.asarray(k))
    expected = np.array([picked(v[i], good[i]) for i in range(4)])
    for _ in range(2):
        np.testing.assert_array_equal(np.asarray(call(good)), expected)
    with pytest.raises(IndexError):
        [picked(v[i], bad[i]) for i in range(4)]
    with pytest.raises(IndexError):
        call(bad)
    np.testing.assert_array_equal(np.asarray(call(good)), expected)
