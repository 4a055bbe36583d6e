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


def _h(a, b):
    return np.sum(a) + np.sum(b)


def test_size_errors_in_jax_words():
    # JAX's APITest.test_vmap_mismatched_axis_sizes_error_message_issue_705 and
    # test_vmap_explicit_axis_size_mismatch match these regexes against the message
    x, u = np.ones((10, 4), np.float32), np.ones((10, 2), np.float32)
    with pytest.raises(ValueError, match=(
            "vmap got inconsistent sizes for array axes to be mapped:\n"
            r"  \* most axes \(2 of them\) had size 2, e.g. axis 1 of argument b\[0\] "
            r"of type float32\[10,2\];" "\n"
            r"  \* one axis had size 10: axis 0 of argument a of type float32\[10,4\]")):
        vmap(_h, in_axes=(0, 1))(x, [u, u])
    with pytest.raises(ValueError, match=(
            r"vmap got inconsistent sizes for array axes to be mapped:\n"
            r"  \* the `axis_size` argument was 2;\n"
            r"  \* one axis had size 8: axis 0 of argument x of type int32\[8\]")):
        vmap(lambda x: x, in_axes=0, axis_size=2)(np.arange(8, dtype=np.int32))
    with pytest.raises(ValueError, match=(
            r"vmap was requested to map its argument along axis -4, which implies that its "
            r"rank should be at least 4, but is only 3 \(its shape is \(3, 4, 5\)\)")):
        vmap(np.sum, in_axes=-4)(np.zeros((3, 4, 5)))
    with pytest.raises(ValueError, match="axis -4 is out of bounds"):
        vmap(lambda y: y, out_axes=-4)(np.zeros((3, 4, 5)))
    with pytest.raises(ValueError, match="at vmap out_axes"):     # JAX's words for it
        vmap(_identity, out_axes=None)(np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="out_axes is None"):     # torch.func's
        vmap(_identity, out_axes=None)(np.array([1.0, 2.0]))


def _identity(x):
    return x
