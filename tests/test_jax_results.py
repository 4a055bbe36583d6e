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


# --------------------------------------------------------------- large results: no copy
# From `runtime.VIEW_MIN_BYTES` a result a jitted call has just made is handed out as a
# writable NumPy array over XLA's buffer (held through the buffer protocol) instead of a
# copy; the tests below hold it to what a copy guarantees.

from vectorize.backends.jax import runtime  # noqa: E402

LARGE = 10_000      # 80 KB of float64: above VIEW_MIN_BYTES


def kinds(x):
    if x > 0.5:
        return x > 2.0, int(x * 3.0), complex(x, -x), x * 2.0
    return x < -1.0, -7, complex(0.0, x), x


def _makers(fn, axes=0):
    return {"vectorize": vectorize(fn, backend="jax"),
            "vmap": vmap(fn, in_axes=axes, backend="jax")}


def test_this_jax_gives_jit_results_buffers_of_their_own():
    assert LARGE * 8 >= runtime.VIEW_MIN_BYTES
    assert runtime.results_are_own()


@pytest.mark.parametrize("api", ["vectorize", "vmap"])
def test_large_results_are_not_copies_and_stay_their_own(api):
    f = _makers(seed_if, (0, None))[api]
    t = _data(LARGE)
    expected = np.vectorize(seed_if)(t, 1.5)
    kept = []
    for call in range(12):
        out = f(t, 1.5)
        _check_own(out, (t,), expected)
        assert call == 0 or not out.flags.owndata   # a warm call's: XLA's buffer, no copy
        kept.append(out)
    kept[0][...] = np.nan                   # written by the user: nothing else changes
    kept[1] *= 2.0
    view = kept[2][::-3]
    del kept[2]
    import gc
    gc.collect()
    held = {a.ctypes.data for a in kept}
    for arr in jax.live_arrays():           # even deleted by their jax.Arrays: still held
        if arr.unsafe_buffer_pointer() in held:
            arr.delete()
    more = [f(t + 1.0, 1.5) for _ in range(12)]     # new buffers never reuse held ones
    np.testing.assert_array_equal(t, _data(LARGE))
    assert np.isnan(kept[0]).all()
    np.testing.assert_array_equal(kept[1], 2.0 * expected)
    for arr in kept[2:]:
        np.testing.assert_array_equal(arr, expected)
    np.testing.assert_array_equal(view, expected[::-3])
    for arr in more:
        np.testing.assert_array_equal(arr, np.vectorize(seed_if)(t + 1.0, 1.5))
    assert len({a.ctypes.data for a in kept + more}) == len(kept + more)


@pytest.mark.parametrize("api", ["vectorize", "vmap"])
def test_large_results_of_every_dtype_and_tuple_results_share_nothing(api):
    x = _data(LARGE) - 3.0
    x[::7] = np.nan
    x[1] = -0.0
    expected = np.vectorize(kinds, otypes=[np.bool_, np.int64, np.complex128, np.float64])(x)
    f = _makers(kinds)[api]
    for _ in range(3):
        got = f(x)
        assert isinstance(got, tuple) and len(got) == 4
        for g, e in zip(got, expected):
            assert type(g) is np.ndarray and g.dtype == e.dtype and g.flags.writeable
            np.testing.assert_array_equal(g, e)
        for i, g in enumerate(got):
            assert not np.shares_memory(g, x)
            for h in got[i + 1:]:
                assert not np.shares_memory(g, h)
        got[3][...] = 1.0
        np.testing.assert_array_equal(got[2], expected[2])


@pytest.mark.parametrize("api", ["vectorize", "vmap"])
def test_a_large_aligned_argument_returned_as_it_is_is_not_shared(api):
    # JAX takes a 64-byte aligned NumPy array without a copy: the result must not be it
    raw = np.zeros(LARGE + 8)
    start = (-raw.ctypes.data % 64) // 8
    x = raw[start:start + LARGE]
    x[:] = _data(LARGE)
    f = _makers(identity)[api]
    for _ in range(3):
        out = f(x)
        _check_own(out, (x, raw), x.copy())
        out += 1.0
        np.testing.assert_array_equal(x, _data(LARGE))


def test_large_results_from_threads():
    import threading
    f = vectorize(seed_if, backend="jax")
    f(_data(LARGE), 1.0)
    failures = []

    def work(seed):
        t = _data(LARGE, seed)
        expected = np.vectorize(seed_if)(t, 1.5)
        outs = [f(t, 1.5) for _ in range(8)]
        for out in outs:
            if not (out.flags.writeable and np.array_equal(out, expected)):
                failures.append(seed)
        outs[0][...] = 0.0

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not failures


def test_results_are_copies_where_jax_does_not_give_buffers_of_their_own(monkeypatch):
    monkeypatch.setattr(runtime, "_OWN", [False])
    f = vmap(seed_if, in_axes=(0, None), backend="jax")
    t = _data(LARGE)
    for _ in range(3):
        out = f(t, 1.5)
        _check_own(out, (t,), np.vectorize(seed_if)(t, 1.5))
        assert out.flags.owndata


def test_only_a_fresh_result_is_handed_out_without_a_copy():
    with jax.enable_x64(True):
        mine = jnp.arange(float(LARGE))          # a user's array: never written through
        made = jax.jit(lambda v: v * 2.0)(mine)
    for value in (mine, made):                   # not marked by a call of ours: copied
        out = runtime.to_numpy(value)
        assert out.flags.owndata and out.flags.writeable
        out[...] = -1.0
    np.testing.assert_array_equal(np.asarray(mine), np.arange(float(LARGE)))
    np.testing.assert_array_equal(np.asarray(made), 2.0 * np.arange(float(LARGE)))
    runtime.mark_fresh(made)
    first = runtime.to_numpy(made)
    assert not first.flags.owndata and first.flags.writeable
    again = runtime.to_numpy(made)               # the same object a second time: a copy
    assert again.flags.owndata and not np.shares_memory(first, again)
    runtime.mark_fresh(made)
    small = runtime.to_numpy(made[:10])          # not the marked object: a copy
    assert small.flags.owndata


def scaled(x, w):
    return x * w


def test_warm_calls_on_jax_arrays_of_another_dtype_rank_or_size():
    # the warm check of jax.Array arguments (type, rank, dtype; sizes that agree) sends any
    # other call to planning, which computes it as the per-example loop does
    f = vmap(scaled)
    with jax.enable_x64(True):
        calls = [(jnp.arange(5.0), jnp.arange(5.0)), (jnp.arange(7.0), jnp.arange(7.0)),
                 (jnp.arange(5, dtype=jnp.float32), jnp.arange(5, dtype=jnp.float32)),
                 (jnp.arange(5), jnp.arange(5)),
                 (jnp.arange(6.0).reshape(3, 2), jnp.arange(6.0).reshape(3, 2)),
                 (jnp.arange(5.0), jnp.arange(5.0))]
    for x, w in calls:
        for _ in range(2):
            got = f(x, w)
            assert isinstance(got, jax.Array) and got.dtype == x.dtype and got.shape == x.shape
            np.testing.assert_array_equal(np.asarray(got), np.asarray(x) * np.asarray(w))
    with jax.enable_x64(True):
        x, w = jnp.arange(5.0), jnp.arange(4.0)
    with pytest.raises(ValueError):
        f(x, w)         # batch sizes that disagree: vmap's error, warm or not
