"""The JAX backend's warm call, cut to what ``jax.jit`` of a hand rewrite does: 64-bit types
entered without a context manager object (and left as they were, also where the call
raises), a NumPy result handed out without JAX's ``__array__`` (a copy of its own where
small, XLA's buffer where large, a bounded cache of the buffer types), ``vectorize`` on
``jax.Array``s taking its warm path without reading the object's ``__dict__``. Results
equal ``numpy.vectorize``'s / the per-example loop's (values and dtype)."""

from __future__ import annotations

import collections

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

from vectorize import vectorize, vmap
from vectorize.backends.jax import runtime


def seed_jp29(t, b):
    tmp = t * b
    if tmp > 5:
        root = t * b
    else:
        root = -t
    return root


def _loop(t, b):
    return np.array([seed_jp29(x, b) for x in t.tolist()], dtype=np.float64)


# ------------------------------------------------------------------------ 64-bit types
def test_x64_entered_and_left_as_it_was():
    runtime.jax_module()
    before = jax.enable_x64.value
    seen = []

    def inside(*args):
        seen.append(jax.enable_x64.value)
        return args

    assert runtime._in_x64(inside, (1, 2)) == (1, 2)
    assert seen == [True] and jax.enable_x64.value == before

    def raising():
        seen.append(jax.enable_x64.value)
        raise ZeroDivisionError("lane 3")

    with pytest.raises(ZeroDivisionError):
        runtime._in_x64(raising, ())
    assert seen == [True, True] and jax.enable_x64.value == before
    with jax.enable_x64(False):     # (the setting of this thread, as a user leaves it)
        runtime._in_x64(inside, ())
        assert seen[-1] is True and jax.enable_x64.value is False


def test_x64_swap_is_used_where_jax_has_it():
    runtime.jax_module()
    # this JAX's setting has no thread-local hook: the quick entry is taken
    assert runtime._X64_SWAP is not None


def test_x64_swap_refused_for_a_setting_with_a_hook():
    class Hooked:
        _update_thread_local_hook = staticmethod(lambda value: None)
        value = False

        def swap_local(self, value):
            return False

        def set_local(self, value):
            pass

    assert runtime._x64_swap(Hooked()) is None


@pytest.mark.parametrize("quick", [True, False])
@pytest.mark.parametrize("api", ["vectorize", "vmap"])
def test_warm_calls_with_x64_off_compute_in_float64(monkeypatch, api, quick):
    runtime.jax_module()
    if not quick:
        monkeypatch.setattr(runtime, "_X64_SWAP", None)     # the context manager
    t = np.random.default_rng(29).uniform(-2.0, 10.0, 5000)
    f = vectorize(seed_jp29, backend="jax") if api == "vectorize" else \
        vmap(seed_jp29, in_axes=(0, None), backend="jax")
    expected = _loop(t, 0.7)
    with jax.enable_x64(False):
        for _ in range(3):      # cold, then warm
            out = f(t, 0.7)
            assert type(out) is np.ndarray and out.dtype == np.float64
            np.testing.assert_array_equal(out, expected)
            assert jax.enable_x64.value is False
    with jax.enable_x64(True):      # (float64 on the device)
        jt = jnp.asarray(t)
    with jax.enable_x64(False):
        for _ in range(3):
            out = f(jt, 0.7)
            assert isinstance(out, jax.Array) and out.dtype == np.float64
            np.testing.assert_array_equal(np.asarray(out), expected)
            assert jax.enable_x64.value is False


# ---------------------------------------------------------------------- NumPy results
def _fresh(value):
    """`runtime._fresh_to_numpy` of a result a jitted call has just made (held by nothing
    else, as a call's own), and a copy of its values made before."""
    with jax.enable_x64(True):
        made = jax.jit(lambda v: v + 0)(value)
    seen = np.array(made)
    return runtime._fresh_to_numpy(made), seen


@pytest.mark.parametrize("value", [
    np.float64(2.5), np.arange(6.0).reshape(2, 3), np.zeros(0), np.zeros((0, 3)),
    np.array([True, False, True]), np.arange(5, dtype=np.int32),
    np.arange(4, dtype=np.complex64) * 1j, np.arange(3).astype(ml_dtypes.bfloat16),
    np.arange(3 * 4096.0).reshape(3, 4096), np.arange(9000, dtype=np.int64),
], ids=lambda v: f"{v.dtype}{v.shape}")
def test_fresh_results_are_writable_arrays_of_their_own(value):
    out, seen = _fresh(value)
    assert type(out) is np.ndarray and out.dtype == seen.dtype and out.shape == seen.shape
    np.testing.assert_array_equal(out, seen)
    assert out.flags.writeable and out.flags.c_contiguous
    if seen.nbytes < runtime.VIEW_MIN_BYTES:
        assert out.flags.owndata       # a copy of its own
    if out.size:
        out[...] = 0
        np.testing.assert_array_equal(out, np.zeros_like(seen))


def test_buffer_types_kept_are_bounded(monkeypatch):
    monkeypatch.setattr(runtime, "_VIEW_TYPES", collections.OrderedDict())
    monkeypatch.setattr(runtime, "_VIEW_TYPES_KEPT", 4)
    size = runtime.VIEW_MIN_BYTES // 8
    for extra in range(7):
        value = np.arange(float(size + extra))
        out, seen = _fresh(value)
        if not runtime.results_are_own():
            pytest.skip("this JAX's results are copied: no buffer handed out")
        np.testing.assert_array_equal(out, value)
        assert not out.flags.owndata and out.flags.writeable
        assert len(runtime._VIEW_TYPES) <= 4
    assert sorted(runtime._VIEW_TYPES) == [8 * (size + e) for e in range(3, 7)]


# ------------------------------------------------------------- vectorize on jax.Arrays
def test_vectorize_on_jax_arrays_then_all_arguments_excluded():
    f = vectorize(seed_jp29, backend="jax")
    with jax.enable_x64(True):
        t = np.linspace(-2.0, 10.0, 11)
        jt = jnp.asarray(t)
        for _ in range(2):
            out = f(jt, 1.5)
            np.testing.assert_array_equal(np.asarray(out), _loop(t, 1.5))
        # numpy.vectorize calls the function as it is where every argument is excluded:
        # its `if` on a whole array raises
        f.excluded = {0, 1}
        with pytest.raises(Exception) as caught:
            np.vectorize(seed_jp29, excluded={0, 1})(jt, 1.5)
        with pytest.raises(type(caught.value)):
            f(jt, 1.5)


def test_vectorize_on_jax_arrays_of_another_dtype_after_warm_calls():
    f = vectorize(seed_jp29, backend="jax")
    t = np.linspace(-2.0, 10.0, 13)
    with jax.enable_x64(True):
        for dtype in (np.float64, np.float64, np.float32, np.float32, np.float64):
            out = f(jnp.asarray(t.astype(dtype)), 1.5)
            expected = np.vectorize(seed_jp29)(t.astype(dtype), 1.5)
            assert out.dtype == expected.dtype
            np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-6)


def _rows(x, w):
    return x[0] * w[0] + x[1] * w[1]


def test_vmap_jax_leaves_of_another_dtype_after_warm_calls():
    f = vmap(_rows, in_axes=(0, None), backend="jax")
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((9, 2)), rng.standard_normal(2)
    with jax.enable_x64(True):
        for xd, wd in ((np.float64, np.float64), (np.float64, np.float64),
                       (np.float64, np.float32), (np.float32, np.float32),
                       (np.float64, np.float64)):
            xs, ws = x.astype(xd), w.astype(wd)
            out = f(jnp.asarray(xs), jnp.asarray(ws))
            expected = np.stack([_rows(row, ws) for row in xs])
            assert out.dtype == expected.dtype, (xd, wd)
            np.testing.assert_allclose(np.asarray(out), expected, rtol=1e-6)


# ------------------------------------------------- vectorize on NumPy arrays, warm calls
def test_vectorize_numpy_warm_call_is_one_function_and_equals_numpy_vectorize():
    f = vectorize(seed_jp29, backend="jax")
    rng = np.random.default_rng(29)
    flat = rng.uniform(-2.0, 10.0, 6000)           # (a result large enough to be a view)
    cases = [(flat, 1.5), (flat, 1.5), (flat[:7], 1.5), (flat[:7], 2.5),
             (flat.reshape(60, 100), 0.5), (flat.reshape(60, 100), 0.5),
             (flat.astype(np.float32), 1.5), (flat, 3), (flat, 3)]
    for t, b in cases:
        out = f(t, b)
        expected = np.vectorize(seed_jp29)(t, b)
        assert type(out) is np.ndarray and out.dtype == expected.dtype and \
            out.shape == expected.shape, (t.dtype, t.shape, b)
        np.testing.assert_array_equal(out, expected)
        assert out.flags.writeable and not np.shares_memory(out, t)
        if t.dtype == np.float64 and type(b) is float:
            # one float64 per example, no probe of the first example's types: the warm
            # call unrolled into one function (`api._warm_call`)
            assert f._last is not None and f._last.warm is not None
