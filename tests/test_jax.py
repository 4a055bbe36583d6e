"""The JAX backend: generated ``jax.numpy`` code under ``jax.jit`` (``docs/jax.md``).

Each function is compared with its per-example loop: NumPy in, NumPy out with
``backend="jax"``; ``jax.Array`` in, ``jax.Array`` out; dtypes kept (float32, float64, int);
batches of 0, 1, 5 and 10 000 examples; gradients through the generated code equal the
per-example gradients; what the backend cannot compile is refused, located.
"""

from __future__ import annotations

import logging
import math
import os
import pathlib
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from vectorize import VectorizeError, backends, vectorize, vmap
from vectorize.backends.jax.runtime import Compiled

SIZES = [0, 1, 5, 10_000]


# ------------------------------------------------------------------------ the functions
def seed_if(t, b):
    tmp = t * b
    if tmp > 5:
        root = t * b
    else:
        root = -t
    return root


def piecewise(x):
    if x < -1.0:
        y = -x - 0.5
    elif x < 1.0:
        y = 0.5 * x * x
    else:
        y = x - 0.5
    return y


def smooth(x, w):
    z = math.tanh(x * w) + math.exp(-x * x)
    if z > 0.5 and x < 2.0:
        return z * z
    return math.sqrt(abs(z)) + 1.0


def smooth_jnp(x, w):
    z = jnp.tanh(x * w) + jnp.exp(-x * x)
    if z > 0.5 and x < 2.0:
        return z * z
    return jnp.sqrt(abs(z)) + 1.0


def mixed(k, x):
    if k % 2 == 0:
        return x * k
    return x - k


def rowwise(v, w):
    s = v.dot(w)
    n = np.linalg.norm(v)
    if s > 0:
        return s / (n + 1.0)
    return np.max(v) - np.sum(w)


def with_jnp(x):
    return jnp.sin(x) * jnp.exp(-x) + jnp.where(x > 0, x, 0.0)


def repeated(x, n):
    acc = x
    for _ in range(n):
        acc = acc * 0.5 + 1.0
    return acc


def shared_test(x, w):
    if w.sum() > 0:         # a Python `if` on a value the same for every example
        return x * w[0]
    return x - w[1]


def divide(x, y):
    return x / y + 1.0


def checked(x):
    if x < 0:
        raise ValueError(f"negative: {x}")
    return x * 2.0


def collatz(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def noisy(x):
    return x + np.random.normal(0.0, 1.0)


def fills(x):
    out = np.zeros(3)
    out[0] = x
    return out


def loop_reference(f, *columns):
    return np.array([f(*row) for row in zip(*columns)])


def _data(n, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(-4, 4, n).astype(dtype), rng.uniform(-2, 3, n).astype(dtype)


# ---------------------------------------------------------------- NumPy in, NumPy out
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("f", [seed_if, piecewise, smooth])
def test_numpy_in_numpy_out_equals_the_loop(f, n):
    x, w = _data(n)
    args = (x, w)[:f.__code__.co_argcount]
    got = vmap(f, backend="jax")(*args)
    assert isinstance(got, np.ndarray) and got.dtype == np.float64
    if n:
        np.testing.assert_allclose(got, loop_reference(f, *args), rtol=1e-13, atol=0)
    else:
        assert got.shape == (0,)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dtypes_are_kept(dtype):
    x, w = _data(50, dtype)
    got = vmap(seed_if, backend="jax")(x, w)
    assert got.dtype == dtype
    expected = loop_reference(seed_if, x, w)
    assert expected.dtype == dtype
    np.testing.assert_allclose(got, expected, rtol=1e-6 if dtype == np.float32 else 1e-14)


def test_integers_and_mixed_dtypes():
    k = np.arange(-5, 6)
    x = np.linspace(-1, 1, 11)
    got = vmap(mixed, backend="jax")(k, x)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, loop_reference(mixed, k, x))
    ints = vmap(mixed, backend="jax")(k, k)
    assert ints.dtype == np.int64
    np.testing.assert_array_equal(ints, loop_reference(mixed, k, k))


def test_x64_holds_at_trace_time_without_changing_the_process_default():
    assert not jax.config.jax_enable_x64
    x = np.full(4, 1.0 + 1e-12)
    got = vmap(lambda_free, backend="jax")(x)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, (x - 1.0) * 1e12)     # float32 would give 0
    assert not jax.config.jax_enable_x64


def lambda_free(x):
    return (x - 1.0) * 1e12


def test_per_example_arrays_and_products():
    rng = np.random.default_rng(1)
    v, w = rng.normal(size=(7, 4)), rng.normal(size=(7, 4))
    got = vmap(rowwise, backend="jax")(v, w)
    np.testing.assert_allclose(got, loop_reference(rowwise, v, w), rtol=1e-12)
    assert "jnp.einsum" in vmap(rowwise, backend="jax").source(v, w)


def test_user_code_written_with_jnp():
    x = np.linspace(-2, 2, 9)
    got = vmap(with_jnp, backend="jax")(x)
    expected = np.sin(x) * np.exp(-x) + np.where(x > 0, x, 0.0)
    np.testing.assert_allclose(got, expected, rtol=1e-13)


def test_static_and_shared_arguments():
    x = np.linspace(-1, 1, 6)
    got = vmap(repeated, in_axes=(0, None), backend="jax")(x, 3)
    np.testing.assert_allclose(got, [repeated(v, 3) for v in x], rtol=1e-15)
    w = np.array([2.0, -0.5])
    for shared in (w, -w):
        got = vmap(shared_test, in_axes=(0, None), backend="jax")(x, shared)
        np.testing.assert_allclose(got, [shared_test(v, shared) for v in x], rtol=1e-15)


@settings(max_examples=15, deadline=None)
@given(arrays(np.float64, st.integers(0, 6),
              elements=st.floats(allow_nan=True, allow_infinity=True, width=64)))
def test_piecewise_on_any_floats(x):
    got = vmap(piecewise, backend="jax")(x)
    expected = np.array([piecewise(v) for v in x], dtype=np.float64)
    tiny = np.finfo(np.float64).tiny
    expected = np.where((np.abs(expected) < tiny) & (got == 0), 0.0, expected)  # XLA's FTZ
    np.testing.assert_allclose(got, expected, rtol=1e-13, atol=0, equal_nan=True)


# ------------------------------------------------------------- jax.Array in, jax.Array out
@pytest.mark.parametrize("dtype", [jnp.float32, jnp.int32])
def test_jax_arrays_in_jax_arrays_out(dtype):
    x = jnp.arange(-4, 5, dtype=dtype)
    w = jnp.full(9, 2, dtype=dtype)
    got = vmap(seed_if)(x, w)
    assert isinstance(got, jax.Array) and got.dtype == dtype
    expected = [seed_if(a, b) for a, b in zip(np.asarray(x), np.asarray(w))]
    np.testing.assert_allclose(np.asarray(got), expected)
    out = vectorize(seed_if)(x, w)
    assert isinstance(out, jax.Array) and out.dtype == dtype
    np.testing.assert_allclose(np.asarray(out), expected)


def test_float64_jax_arrays_keep_float64():
    with jax.enable_x64(True):
        x = jnp.linspace(-3.0, 3.0, 7)
    assert x.dtype == jnp.float64
    got = vmap(piecewise)(x)
    assert got.dtype == jnp.float64
    np.testing.assert_allclose(np.asarray(got), [piecewise(v) for v in np.asarray(x)],
                               rtol=1e-15)


# --------------------------------------------------------------------- jit, specializations
def test_compiled_once_per_shape_and_source_shows_jnp(caplog):
    mapped = vmap(seed_if, backend="jax")
    x, w = _data(8)
    source = mapped.source(x, w)
    assert "jnp.where" in source and "np." not in source.replace("jnp.", "")

    def compiles():         # XLA compilations of the generated function (jax.log_compiles)
        return sum("XLA compilation of jit(seed_if)" in r.getMessage() for r in caplog.records)
    with jax.log_compiles(True), caplog.at_level(logging.WARNING):
        mapped(x, w)
        entry = mapped._plan(tuple(backends.get("jax").from_numpy(a) for a in (x, w)))[0]
        compiled = entry.spec.function
        assert isinstance(compiled, Compiled)
        assert compiles() == 1
        # same shapes and dtypes, as NumPy arrays (the warm path passes them to jit as
        # they are) and as jax.Arrays: no new compile
        mapped(x + 1.0, w)
        mapped(x - 1.0, w)
        mapped(*(backends.get("jax").from_numpy(a) for a in (x + 2.0, w)))
        assert compiles() == 1
        mapped(*_data(9))
        assert compiles() == 2          # a new shape: one more, as jit caches


def test_numpy_arguments_reach_jit_unconverted(monkeypatch):
    # jax.jit puts NumPy arguments on the device itself: the front end converts none of
    # them (a `jnp.asarray` per argument costs as much as the computation at 1e6)
    f = vectorize(seed_if, backend="jax")
    x, w = _data(10_000)
    expected = np.vectorize(seed_if)(x, w)
    f(x, w)

    converted = []
    jax_backend = type(backends.get("jax"))
    original = jax_backend.from_numpy

    def counted(self, array, like=None):
        converted.append(array.shape)
        return original(self, array, like)
    monkeypatch.setattr(jax_backend, "from_numpy", counted)
    for n in (0, 1, 5, 10_000):
        got = f(x[:n], w[:n])
        assert isinstance(got, np.ndarray) and got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected[:n])
    got = f(x.astype(np.float32), 2.0)      # another dtype, a Python float: still exact
    np.testing.assert_array_equal(got, np.vectorize(seed_if)(x.astype(np.float32), 2.0))
    assert converted == []


def test_warm_vmap_calls_on_jax_arrays_equal_fresh_ones():
    # a warm call like the last one (type, dtype, rank) skips planning (`_FastPath`); any
    # other call plans again: results and errors as a fresh vmap's
    mapped = vmap(shared_test, in_axes=(0, None))
    with jax.enable_x64(True):
        cases = [(jnp.asarray(x), jnp.asarray(w)) for x, w in [
            (np.linspace(-3, 3, 5), np.array([2.0, -1.0])),
            (np.linspace(-3, 3, 7), np.array([-2.0, 0.5])),
            (np.zeros(0), np.array([1.0, 1.0])),
            (np.linspace(-3, 3, 10_000), np.array([0.5, 0.25])),
            (np.linspace(-3, 3, 3).astype(np.float32), np.array([1.0, 3.0], np.float32)),
            (np.arange(-3, 4), np.array([1, 2])),
            (np.linspace(-3, 3, 1), np.array([1.0, 2.0]))]]
    for x, w in cases * 2:
        got = mapped(x, w)
        fresh = vmap(shared_test, in_axes=(0, None))(x, w)
        expected = [shared_test(v, np.asarray(w)) for v in np.asarray(x)]
        assert isinstance(got, jax.Array) and got.dtype == fresh.dtype
        np.testing.assert_array_equal(np.asarray(got), np.asarray(fresh))
        np.testing.assert_allclose(np.asarray(got), np.asarray(expected, dtype=got.dtype))
    assert mapped._fast is not None
    both = vmap(seed_if)
    x, w = jnp.arange(5.0), jnp.ones(5)
    both(x, w)
    with pytest.raises(ValueError, match="inconsistent sizes"):
        both(x, jnp.ones(4))
    with pytest.raises(ValueError, match="inconsistent sizes"):
        vmap(seed_if)(x, jnp.ones(4))
    np.testing.assert_array_equal(np.asarray(both(x, w)), [seed_if(v, 1.0) for v in range(5)])


def test_warm_vectorize_calls_on_jax_arrays_equal_numpy_vectorize():
    # vectorize on jax.Arrays: a call like the last (1-d arrays of one length, Python
    # numbers, by position) reuses its plan (`tensors._warm`); any other plans again
    f = vectorize(seed_if)
    rng = np.random.default_rng(3)
    with jax.enable_x64(True):
        calls = []
        for n in (5, 0, 1, 10_000, 7):
            calls.append((jnp.asarray(rng.uniform(-4, 4, n)), 1.5))
            calls.append((jnp.asarray(rng.uniform(-4, 4, n)), 2))
            calls.append((jnp.asarray(rng.uniform(-4, 4, n)),
                          jnp.asarray(rng.uniform(0, 3, n))))
        calls.append((jnp.asarray(rng.uniform(-4, 4, 6)), jnp.asarray([2.0])))    # broadcast
        calls.append((jnp.asarray(rng.uniform(-4, 4, (2, 3))), 1.5))              # 2-d
        calls.append((jnp.asarray(rng.uniform(-4, 4, 4).astype(np.float32)), 1.5))
        calls.append((jnp.asarray(rng.uniform(-4, 4, 4)), np.float64(1.5)))
    for t, b in calls * 2:
        got = f(t, b)
        expected = np.vectorize(seed_if, otypes="d")(np.asarray(t), np.asarray(b) if
                                         isinstance(b, jax.Array) else b)
        assert isinstance(got, jax.Array) and got.shape == expected.shape
        np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-6 if
                                   got.dtype == jnp.float32 else 1e-15)
    with pytest.raises(ValueError):
        f(jnp.ones(3), jnp.ones(4))     # shapes that do not broadcast: numpy's error


def scaled_by_sign(x, s):
    if s > 0:           # a Python `if` on a number the same for every example
        return x * s
    return x - s


def maybe_constant(x, s):
    if s > 0:
        return x * 2.0
    return 1.0          # the same for every example where s <= 0


def _counting_conversions(monkeypatch) -> list:
    converted = []
    jax_backend = type(backends.get("jax"))
    original = jax_backend.from_numpy

    def counted(self, array, like=None):
        converted.append(array.shape)
        return original(self, array, like)
    monkeypatch.setattr(jax_backend, "from_numpy", counted)
    return converted


def test_warm_vmap_calls_on_numpy_arrays_pass_them_as_they_are(monkeypatch):
    # vmap(backend="jax") on NumPy arrays: the first call of a pattern converts them and
    # plans; the calls like it hand the NumPy arrays to the jitted function as they are
    # (`_VMapped._fast_numpy`): NumPy out, equal to the per-example loop, at any batch size,
    # also after calls on jax.Arrays in between
    converted = _counting_conversions(monkeypatch)
    w = np.array([0.5, -1.0, 2.0])
    cases = [
        (vmap(seed_if, backend="jax"), lambda n: _data(n), seed_if),
        (vmap(seed_if, backend="jax"), lambda n: _data(n, np.float32), seed_if),
        # mapped along axis 1, with an unmapped array
        (vmap(rowwise, in_axes=(1, None), backend="jax"),
         lambda n: (np.random.default_rng(n).uniform(-2, 2, (3, n)), w),
         lambda v, shared: rowwise(v, shared)),
        # a Python `if` on an unmapped array: runs op by op (the jit's fallback)
        (vmap(shared_test, in_axes=(0, None), backend="jax"),
         lambda n: (_data(n)[0], w[:2]), shared_test),
    ]
    for mapped, make, one in cases:
        mapped(*make(3))
        for n in SIZES + [2]:
            converted.clear()
            args = make(n)
            got = mapped(*args)
            assert converted == []
            axis = 1 if one is not seed_if and args[0].ndim == 2 else 0
            rows = [one(*(np.take(a, i, axis=axis) if j == 0 or one is seed_if else a
                          for j, a in enumerate(args))) for i in range(n)]
            expected = np.array(rows, dtype=args[0].dtype if one is seed_if else np.float64)
            assert isinstance(got, np.ndarray) and got.dtype == expected.dtype
            assert got.shape == (n,)
            np.testing.assert_allclose(got, expected, rtol=1e-6 if got.dtype == np.float32
                                       else 1e-14)
            jax_args = [backends.get("jax").from_numpy(a) for a in args]
            on_jax = mapped(*jax_args)
            assert isinstance(on_jax, jax.Array) and on_jax.dtype == expected.dtype
            np.testing.assert_array_equal(np.asarray(on_jax), got)


def test_warm_calls_where_the_jit_falls_back_to_static_numpy_scalars():
    # a Python `if` on a NumPy scalar: traced, it cannot run under jit; the jit with NumPy
    # scalars static runs it (`Compiled.level` 1), and warm calls find that jitted function,
    # never the first level's, whatever the scalar's value and type
    f = vectorize(scaled_by_sign, backend="jax")
    x = np.linspace(-2.0, 2.0, 7)
    for s in (np.float64(2.0), -1.0, np.int64(-3), 3.0, np.float64(-0.5), 2.0, -1.0, np.int64(2)):
        expected = np.vectorize(scaled_by_sign)(x, s)
        got = f(x, s)
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
    assert f._last.entry.spec.function.level == 1
    mapped = vmap(scaled_by_sign, in_axes=(0, None), backend="jax")
    for s in (np.float64(2.0), -1.0, 3.0, np.float64(-0.5)):
        np.testing.assert_array_equal(mapped(x, s), [scaled_by_sign(v, s) for v in x])


@pytest.mark.parametrize("n", [1, 5, 10_000])
def test_warm_calls_of_a_result_the_same_for_every_example(n):
    # the same specialization gives a batch for s > 0 and one number for s <= 0 (a static
    # Python float): warm calls place the number on every example, whatever came before
    x = np.linspace(-1.0, 1.0, n)
    with jax.enable_x64(True):
        jx = jnp.asarray(x)
    on_numpy = vmap(maybe_constant, in_axes=(0, None), backend="jax")
    on_jax = vmap(maybe_constant, in_axes=(0, None))
    vf = vectorize(maybe_constant, backend="jax")
    for s in (1.0, -1.0, 2.0, -3.0, -3.0, 0.5):
        expected = np.array([maybe_constant(v, s) for v in x])
        for got in (on_numpy(x, s), on_jax(jx, s), vf(x, s), vf(jx, s)):
            assert got.shape == (n,) and got.dtype == np.float64
            np.testing.assert_array_equal(np.asarray(got), expected)


# ------------------------------------------------- vectorize: Python's exceptions, replayed
@pytest.mark.parametrize("n", [1, 5, 10_000])
def test_vectorize_raises_where_numpy_vectorize_raises(n):
    x, y = _data(n)
    y = np.abs(y) + 0.5
    vf = vectorize(divide, backend="jax")
    np.testing.assert_allclose(vf(x, y), np.vectorize(divide)(x, y), rtol=1e-15)
    y[n // 2] = 0.0
    with pytest.raises(ZeroDivisionError, match="float division by zero"):
        np.vectorize(divide)(x, y)
    with pytest.raises(ZeroDivisionError, match="float division by zero"):
        vf(x, y)


def to_ints(x):
    return int(x) + round(x * 0.5) + math.floor(x)


def _raised(call):
    with pytest.raises(Exception) as info:
        call()
    return info.type, str(info.value)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
@pytest.mark.parametrize("n", [1, 5])
def test_int_and_round_of_nan_and_inf_raise_what_python_raises(bad, n):
    # int(nan) is a ValueError, int(inf) an OverflowError: JAX's vmap, which cannot replay
    # the per-example loop, raised OverflowError("cannot convert float NaN ...") for both
    x = np.linspace(-3.0, 3.0, n)
    vf, vm = vectorize(to_ints, backend="jax"), vmap(to_ints, backend="jax")
    np.testing.assert_array_equal(vf(x), np.vectorize(to_ints)(x))
    np.testing.assert_array_equal(vm(x), loop_reference(to_ints, x))
    assert vm(np.zeros(0)).shape == (0,)
    x[n // 2] = bad
    expected = _raised(lambda: loop_reference(to_ints, x))
    assert expected == _raised(lambda: np.vectorize(to_ints)(x))
    assert expected[0] is (ValueError if math.isnan(bad) else OverflowError)
    assert _raised(lambda: vm(x)) == expected
    assert _raised(lambda: vf(x)) == expected


def test_int_beyond_int64_raises_what_numpy_vectorize_raises():
    x = np.array([1.5, -2.5, 1e19, 3.0, -1e19])
    expected = _raised(lambda: np.vectorize(to_ints)(x))
    assert expected[0] is OverflowError
    assert _raised(lambda: vectorize(to_ints, backend="jax")(x)) == expected


def test_vectorize_math_domain_error_and_empty_batch():
    vf = vectorize(smooth, backend="jax")
    x, w = _data(20)
    np.testing.assert_allclose(vf(x, w), np.vectorize(smooth)(x, w), rtol=1e-13)
    assert vf(np.zeros(0), np.zeros(0)).shape == (0,)


def test_vmap_raise_of_the_user_with_the_first_failing_example():
    x = np.array([1.0, -2.0, -3.0, 4.0])
    with pytest.raises(ValueError, match="^negative: -2.0$"):
        vmap(checked, backend="jax")(x)
    np.testing.assert_array_equal(vmap(checked, backend="jax")(np.abs(x)), np.abs(x) * 2)


# -------------------------------------------------------------------------- gradients
def test_grad_through_the_generated_code_equals_per_example_grads():
    for x64 in (False, True):       # float32 (JAX's default), then float64
        with jax.enable_x64(x64):
            x = jnp.linspace(-2.5, 2.5, 4)     # both branches
            w = jnp.full(4, 1.5)
            batched = jax.grad(lambda x, w=w: vmap(smooth_jnp)(x, w).sum())(x)
            per_example = jnp.stack([jax.grad(smooth_jnp)(a, b) for a, b in zip(x, w)])
        assert batched.dtype == x.dtype
        # float32: XLA's fused tanh/exp differ from the op-by-op ones in the last bits
        rtol, atol = (1e-12, 0) if x64 else (1e-5, 1e-7)
        np.testing.assert_allclose(np.asarray(batched), np.asarray(per_example), rtol=rtol,
                                   atol=atol)


def test_jacrev_through_the_generated_code():
    with jax.enable_x64(True):
        x = jnp.linspace(-3.0, 3.0, 5)
        jac = jax.jacrev(vmap(piecewise))(x)
        per_example = jnp.array([jax.grad(piecewise)(a) for a in x])
    np.testing.assert_allclose(np.asarray(jac), np.diag(np.asarray(per_example)), rtol=1e-12)


# ------------------------------------------------------------------------ refusals, located
def _refusal(f, *args, **options):
    with pytest.raises(VectorizeError) as refusal:
        vmap(f, backend="jax", **options)(*args)
    text = str(refusal.value)
    assert "test_jax.py:" in text and "^" in text
    return text


def test_per_example_loop_becomes_lax_while_loop():
    # (was refused before backends/jax/loops.py; tests/test_jax_loops.py tests the loops)
    n = np.arange(1, 30)
    fast = vmap(collatz, backend="jax")
    assert "lax.while_loop(" in fast.source(n)
    np.testing.assert_array_equal(fast(n), [collatz(int(k)) for k in n])


def test_numpy_random_draw_is_refused_located():
    text = _refusal(noisy, np.zeros(3))
    assert "random" in text and "jax.random" in text


def test_a_write_into_a_created_array_is_a_functional_update():
    # (was refused: JAX arrays are immutable; tests/test_jax_writes.py tests the writes)
    x = np.array([0.0, 1.5, -2.0])
    fast = vmap(fills, backend="jax")
    assert "out = set_item(out, 0, " in fast.source(x)
    np.testing.assert_array_equal(fast(x), [fills(t) for t in x])


def test_unknown_backend_name():
    with pytest.raises(ValueError, match="backend must be"):
        vmap(seed_if, backend="cupy")
    with pytest.raises(ValueError, match="backend must be"):
        vectorize(seed_if, backend="cupy")


def test_numpy_calls_do_not_import_jax(tmp_path):
    module = tmp_path / "numpy_only.py"
    module.write_text("def f(x):\n    return x * 2 if x > 0 else -x\n")
    program = (f"import sys; sys.path.insert(0, {str(tmp_path)!r})\n"
               "import numpy as np\n"
               "from vectorize import vmap, vectorize\n"
               "from numpy_only import f\n"
               "vmap(f)(np.arange(-3.0, 3.0)); vectorize(f)(np.arange(-3.0, 3.0))\n"
               "assert 'jax' not in sys.modules, 'jax imported by a NumPy call'\n")
    env = {**os.environ, "PYTHONPATH": str(pathlib.Path(__file__).resolve().parent.parent)}
    subprocess.run([sys.executable, "-c", program], check=True, env=env)
