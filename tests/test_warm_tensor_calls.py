"""Warm calls of `vectorize` on a library's arrays (``jax.Array``, ``torch.Tensor``): after a
first call, a call like it goes straight to the mapped function's fast path
(`tensors.call_warm`), whose check of the arguments must send every other call (another
dtype, rank, size, scalar type, sizes that broadcast, a rebound global) to planning. Each call
is compared with ``numpy.vectorize`` of the function on the same values (the reference of
`vectorize`), whatever calls came before it.
"""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
torch = pytest.importorskip("torch")
jnp = jax.numpy

from vectorize import vectorize  # noqa: E402

SCALE = 2.0


def seed_if(t, b):
    tmp = t * b * SCALE
    if tmp > 5:
        root = t * b
    else:
        root = -t
    return root


def _jax(values, dtype):
    with jax.enable_x64(True):
        return jnp.asarray(np.asarray(values, dtype=dtype))


def _torch(values, dtype):
    return torch.as_tensor(np.array(values, dtype=dtype))


def _calls(make):
    rng = np.random.default_rng(0)
    a5, a7 = rng.uniform(-3, 6, 5), rng.uniform(-3, 6, 7)
    return [
        (make(a5, np.float64), 1.5), (make(a5, np.float64), 1.5),     # warm
        (make(a7, np.float64), 0.5),                                    # another size
        (make(a5, np.float32), 1.5), (make(a5, np.float32), 1.5),     # another dtype
        (make(a5, np.float64), 2),                                      # an int scalar
        (make(a5, np.float64), make(a5[::-1], np.float64)),            # two arrays
        (make(a5, np.float64), make(a5[:1], np.float64)),              # broadcast
        (make(np.zeros(0), np.float64), 1.5),                           # empty
        (make(a5.reshape(5, 1), np.float64), 1.5),                     # another rank
        (make(a5, np.float64), 1.5),
    ]


@pytest.mark.parametrize("lib", ["jax", "torch"])
def test_warm_calls_equal_numpy_vectorize_whatever_came_before(lib):
    global SCALE
    make = _jax if lib == "jax" else _torch
    f = vectorize(seed_if)
    calls = _calls(make)
    try:
        for step in range(2):
            if step:
                SCALE = -1.0        # a rebound global: the guards send calls to planning
            for index, (t, b) in enumerate(calls):
                got = f(t, b)
                if index == 1 and not step and lib == "jax":
                    # the second call like the first: warm, by vmap's fast path (PyTorch's
                    # tensors have none: `warm_by_dtype`)
                    assert f.__dict__.get("_tensor_fast") is not None
                assert type(got) is type(t)
                t_np = np.asarray(t)
                # (numpy.vectorize needs otypes for an empty batch)
                expected = np.vectorize(seed_if, otypes=[t_np.dtype] if not t_np.size
                                        else None)(t_np, np.asarray(b) if not isinstance(
                                            b, (int, float)) else b)
                got_np = np.asarray(got)
                assert got_np.shape == expected.shape
                np.testing.assert_allclose(got_np, expected, rtol=1e-6 if got_np.dtype ==
                                           np.float32 else 1e-13)
    finally:
        SCALE = 2.0


def test_a_mismatched_size_is_no_warm_call():
    f = vectorize(seed_if)
    with jax.enable_x64(True):
        t = jnp.arange(5.0)
        f(t, jnp.arange(5.0))
        f(t, jnp.arange(5.0))
        with pytest.raises(ValueError):
            f(t, jnp.arange(4.0))      # numpy.vectorize's broadcasting error


def picked(v, k):
    return v[k] * 2.0


def halved(x):
    if x < 0:
        raise ValueError(f"negative: {x}")
    return x / 2


def test_a_warm_call_whose_checks_fire_raises_as_the_loop():
    """Code with checks (a per-example index, a ``raise``) runs warm as the jitted function
    too; its checks are read after every call, and one that fires raises as the per-example
    code does, warm or not, NumPy or ``jax.Array`` arguments."""
    from vectorize import vmap
    rng = np.random.default_rng(3)
    v = rng.standard_normal((50, 4))
    k = rng.integers(-4, 4, 50)
    bad = k.copy()
    bad[17] = 4
    x = np.abs(rng.standard_normal(50))
    negative = x.copy()
    negative[9] = -1.0
    on_numpy = vmap(picked, backend="jax")
    on_jax = vmap(picked)
    with jax.enable_x64(True):
        jv, jk, jbad = jnp.asarray(v), jnp.asarray(k), jnp.asarray(bad)
    expected = np.array([picked(a, b) for a, b in zip(v, k)])
    for _ in range(2):
        for _ in range(2):      # warm
            np.testing.assert_array_equal(on_numpy(v, k), expected)
            np.testing.assert_array_equal(np.asarray(on_jax(jv, jk)), expected)
        with pytest.raises(IndexError):
            on_numpy(v, bad)
        with pytest.raises(IndexError):
            on_jax(jv, jbad)
    raising = vmap(halved, backend="jax")
    for _ in range(2):
        np.testing.assert_array_equal(raising(x), x / 2)
        with pytest.raises(ValueError, match=f"^negative: {negative[9]}$"):
            raising(negative)
