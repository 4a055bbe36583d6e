"""Regressions found by running JAX's batching tests as JAX writes them
(tests/peers/test_jax_batching29.py): a closure's function called inside a library call, an
array of the backend as a leaf of an unmapped dict, and the options of the inner level of a
nested vmap."""

from __future__ import annotations

import numpy as np
import pytest
from vmap_reference import assert_same_tree, loop_vmap

from vectorize import VectorizeError, vmap


def _with_helper():
    def helper(v):
        return v * 2.0

    def f(x):
        return np.sum(helper(x))
    return f


def test_closure_function_called_inside_a_library_call():
    # CPython 3.11 compiles `np.sum(helper(x))` (helper a closure's) with the NULL of the
    # inner call right after the attribute load: it was refused as "the file changed"
    f = _with_helper()
    x = np.arange(12.0).reshape(3, 4)
    assert_same_tree(vmap(f)(x), loop_vmap(f)(x))


def _dict_sum(d, x):
    return d["a"] + d["b"] + x


def test_backend_array_leaf_of_an_unmapped_dict():
    # JAX's APITest.test_vmap_in_axes_list: the dict's NumPy leaf becomes a jax.Array for
    # backend="jax"; its arithmetic with per-example values was refused as an opaque object
    jax = pytest.importorskip("jax")
    d = {"a": 5.0, "b": np.ones(2, np.float32)}
    x = np.arange(3.0, dtype=np.float32)[:, None]
    got = vmap(_dict_sum, (None, 0), backend="jax")(d, x)
    want = jax.vmap(_dict_sum, (None, 0))(d, x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


def _tanh_times(a, b):
    import jax.numpy as jnp
    return jnp.tanh(a) * b


def test_nested_vmap_keeps_the_inner_backend():
    # vmap(vmap(f, backend="jax")): the flat call ran on the NumPy backend, which refused jnp
    jax = pytest.importorskip("jax")
    x, y = np.linspace(-1, 1, 12).reshape(4, 3), np.arange(3.0)
    got = vmap(vmap(_tanh_times, backend="jax"), (0, None))(x, y)
    want = jax.vmap(jax.vmap(_tanh_times), (0, None))(x, y)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)


def _noisy(x):
    return x + np.random.normal()


def test_nested_vmap_keeps_the_inner_randomness():
    # the inner level's randomness="error" was dropped by the nested call: draws ran
    with pytest.raises(VectorizeError, match="randomness='error'"):
        vmap(vmap(_noisy, randomness="error"))(np.zeros((3, 4)))
