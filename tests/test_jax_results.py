"""What the JAX backend hands back on NumPy calls, and its warm calls (``docs/jax.md``).

NumPy in, NumPy out: the results are NumPy arrays of their own, writable, as NumPy's own
(``numpy.vectorize``'s) and the other backends' results are, never a view of XLA's buffers
(read-only) nor of an argument; writing into one changes neither the arguments nor a later
call's results. A warm call (the arguments' types seen before) runs the jitted function
itself: with 64-bit types on or off around it, results as the per-example loop's in float64.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from vectorize import vectorize, vmap

SIZES = [0, 1, 5, 10_000]


def seed_if(t, b):
    tmp = t * b
    if tmp > 5:
        root = t * b
    else:
        root = -t
    return root


def identity(x):
    return x


def pair(x):
    if x > 0:
        return x, x * 2.0
    return -x, math.sqrt(abs(x))


def row_sum(v):
    return v.sum()


def _check_own(out, args, expected):
    """``out`` equals ``expected`` and is an array of its own: writable, sharing no memory
    with an argument."""
    assert type(out) is np.ndarray
    assert out.dtype == expected.dtype and out.shape == expected.shape
    np.testing.assert_allclose(out, expected, rtol=1e-13, atol=0)
    assert out.flags.writeable
    for a in args:
        if isinstance(a, np.ndarray):
            assert not np.shares_memory(out, a)


def _data(n, seed=0):
    return np.random.default_rng(seed).uniform(-2.0, 10.0, n)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("api", ["vectorize", "vmap"])
def test_numpy_results_are_writable_arrays_of_their_own(api, n):
    t = _data(n)
    f = vectorize(seed_if, backend="jax") if api == "vectorize" else \
        vmap(seed_if, in_axes=(0, None), backend="jax")
    expected = np.vectorize(seed_if)(t, 1.5) if n else np.zeros(0)
    for _ in range(3):      # the first call plans, later ones take the warm path
        out = f(t, 1.5)
        _check_own(out, (t,), expected)
    out[...] = -7.0         # a NumPy user writes into the result: nothing else changes
    np.testing.assert_array_equal(t, _data(n))
    _check_own(f(t, 1.5), (t,), expected)


@pytest.mark.parametrize("api", ["vectorize", "vmap"])
def test_identity_result_is_a_copy_not_the_argument(api):
    x = _data(9)
    f = vectorize(identity, backend="jax") if api == "vectorize" else \
        vmap(identity, backend="jax")
    for _ in range(3):
        out = f(x)
        _check_own(out, (x,), x.copy())
        out += 1.0
        np.testing.assert_array_equal(x, _data(9))


@pytest.mark.parametrize("n", [0, 1, 5])
def test_tuple_results_and_nd_batches_are_writable(n):
    x = _data(2 * n).reshape(2, n) - 4.0
    expected = np.vectorize(pair, otypes=[np.float64, np.float64])(x)
    f = vectorize(pair, backend="jax")
    for _ in range(2):
        got = f(x)
        assert isinstance(got, tuple) and len(got) == 2
        for g, e in zip(got, expected):
            _check_own(g, (x,), e)
    mapped = vmap(pair, backend="jax")
    flat = x.reshape(-1)
    for _ in range(2):
        got = mapped(flat)
        for g, e in zip(got, expected):
            _check_own(g, (flat,), e.reshape(-1))


def test_signature_and_row_results_are_writable():
    v = np.arange(12.0).reshape(4, 3)
    got = vectorize(row_sum, signature="(n)->()", backend="jax")(v)
    _check_own(got, (v,), v.sum(axis=1))
    got = vmap(row_sum, backend="jax")(v)
    _check_own(got, (v,), v.sum(axis=1))


@settings(max_examples=25, deadline=None)
@given(arrays(np.float64, st.integers(0, 6),
              elements=st.one_of(st.floats(-1e6, 1e6, allow_subnormal=False),   # (XLA: FTZ)
                                 st.sampled_from([math.nan, math.inf, -math.inf, -0.0]))))
def test_writable_results_equal_numpy_vectorize_on_any_floats(x):
    f = vectorize(seed_if, backend="jax")
    expected = np.vectorize(seed_if, otypes=[np.float64])(x, 2.0)
    got = f(x, 2.0)
    assert type(got) is np.ndarray and got.flags.writeable and got.dtype == np.float64
    np.testing.assert_array_equal(got, expected)


def test_jax_arrays_in_stay_jax_arrays_out():
    with jax.enable_x64(True):
        x = jnp.asarray(_data(5))
    for f in (vectorize(seed_if), vmap(seed_if, in_axes=(0, None))):
        for _ in range(3):
            got = f(x, 1.5)
            assert isinstance(got, jax.Array) and got.dtype == jnp.float64
            np.testing.assert_allclose(np.asarray(got),
                                       np.vectorize(seed_if)(np.asarray(x), 1.5), rtol=1e-15)


@pytest.mark.parametrize("api", ["vectorize", "vmap"])
def test_warm_calls_with_x64_on_or_off_around_them(api):
    # a warm call enters x64 only where it is off: results are float64 either way, and the
    # setting around the call is what it was
    f = vectorize(seed_if, backend="jax") if api == "vectorize" else \
        vmap(seed_if, in_axes=(0, None), backend="jax")
    x = np.full(6, 4.0 + 1e-12)     # float32 would lose the 1e-12
    expected = np.vectorize(seed_if)(x, 1.5)
    for around in (None, True, False, None, True):
        for _ in range(2):
            if around is None:
                got = f(x, 1.5)
            else:
                with jax.enable_x64(around):
                    got = f(x, 1.5)
                    assert jax.config.jax_enable_x64 == around
            assert got.dtype == np.float64
            np.testing.assert_array_equal(got, expected)
    assert not jax.config.jax_enable_x64


def test_warm_calls_after_a_new_shape_and_dtype():
    f = vectorize(seed_if, backend="jax")
    for n, dtype in [(5, np.float64), (5, np.float64), (7, np.float64), (7, np.float32),
                     (5, np.float64), (0, np.float32), (7, np.float32)]:
        t = _data(n).astype(dtype)
        got = f(t, 1.5)
        if not n:
            assert got.shape == (0,)
            continue
        # numpy.vectorize hands the examples to the function as Python floats: float64
        expected = np.vectorize(seed_if)(t, 1.5)
        assert got.dtype == expected.dtype == np.float64
        np.testing.assert_array_equal(got, expected)


def python_test(t, b):
    if b > 0:           # a Python `if` on the unbatched float: b must be a number
        return t * b
    return t - b


def _compiles(caplog, name):
    return sum(f"XLA compilation of jit({name})" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("api", ["vectorize", "vmap"])
def test_a_new_python_float_is_no_new_compile(api, caplog):
    # Python floats are traced as jit traces them (weakly typed): a sweep over a parameter
    # compiles once, and float32 arrays stay float32
    f = vectorize(seed_if) if api == "vectorize" else vmap(seed_if, in_axes=(0, None))
    with jax.enable_x64(True):
        x = jnp.asarray(_data(7))
    x32 = x.astype(jnp.float32)
    with jax.log_compiles(True), caplog.at_level("WARNING"):
        for b in (1.0, 1.5, -2.0, 0.25, 3.0):
            got = f(x, b)
            assert got.dtype == jnp.float64
            np.testing.assert_array_equal(np.asarray(got),
                                          np.vectorize(seed_if)(np.asarray(x), b))
        assert _compiles(caplog, "seed_if") == 1
        for b in (1.5, -2.0):
            got = f(x32, b)
            assert got.dtype == jnp.float32
            np.testing.assert_allclose(np.asarray(got),
                                       [seed_if(v, np.float32(b)) for v in np.asarray(x32)],
                                       rtol=1e-6)
        assert _compiles(caplog, "seed_if") == 2


@pytest.mark.parametrize("api", ["vectorize", "vmap"])
def test_a_python_float_the_code_tests_in_python_is_static(api):
    f = vectorize(python_test) if api == "vectorize" else vmap(python_test, in_axes=(0, None))
    with jax.enable_x64(True):
        x = jnp.asarray(_data(6))
    for _ in range(2):
        for b in (2.0, -1.5, 0.0, 0.5):
            got = f(x, b)
            assert isinstance(got, jax.Array) and got.dtype == jnp.float64
            np.testing.assert_array_equal(np.asarray(got),
                                          [python_test(v, b) for v in np.asarray(x)])
    numpy_in = vmap(python_test, in_axes=(0, None), backend="jax")
    for b in (2.0, -1.5):
        got = numpy_in(_data(6), b)
        assert type(got) is np.ndarray and got.flags.writeable
        np.testing.assert_array_equal(got, [python_test(v, b) for v in _data(6)])
