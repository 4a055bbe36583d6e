"""Dicts of numbers looked up by a per-example key on JAX (`backends.jax.lookups`), compared
with the NumPy backend and the per-example loop (values, dtypes, KeyError), both front ends;
tables of strings and arrays of strings refused, located, as NumPy's vmap refuses them."""

from __future__ import annotations

import numpy as np
import pytest

from vectorize import VectorizeError, vectorize, vmap

jax = pytest.importorskip("jax")

RATES_JP32 = {0: 1.5, 1: 2.5, 3: 3.5}
MIXED_JP32 = {0.5: 1, 2: 7, -1.0: 3}
STEPS_JP32 = {0: 1.0, 1: 2.0, 3: 4.0, 4: 8.0, 5: 16.0}
EMPTY_JP32: dict = {}
NAMES_JP32 = {0: "a", 1: "b"}


def guarded_jp32(k):
    if k in RATES_JP32:
        return RATES_JP32[k]
    return 0.0


def branch_jp32(k):
    if k < 3:
        return RATES_JP32[k]
    return -1.0


def plain_jp32(k):
    return RATES_JP32[k]


def looped_jp32(k, n):
    s = 0.0
    i = 0
    while i < n:
        s += RATES_JP32[k + i]
        i += 1
    return s


def walked_jp32(k, n):
    # a lane that has left the loop would look up a missing key next (k = 2): the masked
    # lanes of `lax.while_loop` look up a key the dict has
    s = 0.0
    i = 0
    while i < n:
        s += STEPS_JP32[k]
        k = k + 1
        i += 1
    return s


def by_bool_jp32(x):
    return RATES_JP32[x > 0] * x


def mixed_keys_jp32(x):
    return MIXED_JP32[x]


def get_jp32(k):
    return RATES_JP32.get(k, -1.0) + RATES_JP32[k % 2]


def empty_get_jp32(k):
    return EMPTY_JP32.get(k, 2.5)


def strings_jp32(k):
    return NAMES_JP32[k]


def strings_get_jp32(k):
    return NAMES_JP32.get(k, "z")


def _loop(func, args):
    """The per-example loop over NumPy scalars (vmap's reference)."""
    return [func(*example) for example in zip(*args)]


def _pyloop(func, args):
    """The per-example loop over Python scalars (numpy.vectorize's)."""
    return [func(*example) for example in zip(*(a.tolist() for a in args))]


CASES = [
    (guarded_jp32, (np.array([0, 2, 3, 1, -4]),)),
    (branch_jp32, (np.array([0, 1, 5, 7]),)),
    (plain_jp32, (np.array([3, 0, 1, 1]),)),
    (looped_jp32, (np.array([0, 0, 1, 0]), np.array([1, 2, 0, 0]))),
    (walked_jp32, (np.array([0, 3, 4]), np.array([2, 3, 0]))),
    (by_bool_jp32, (np.array([-1.0, 2.0, 0.0]),)),
    (mixed_keys_jp32, (np.array([0.5, 2.0, -1.0, 2.0]),)),
    (get_jp32, (np.array([0, 3, 5, -1]),)),
    (empty_get_jp32, (np.array([0, 3]),)),
]


@pytest.mark.parametrize("func,args", CASES, ids=[c[0].__name__ for c in CASES])
def test_dict_lookup_on_jax_is_the_loop(func, args):
    expected = np.array(_loop(func, args))
    py_expected = np.vectorize(func)(*args)
    for front, want in ((vmap, expected), (vectorize, py_expected)):
        fast = front(func, backend="jax", fallback="error")
        for _ in range(2):      # the first call traces, the second is the warm path
            out = fast(*args)
            assert type(out) is np.ndarray
            np.testing.assert_array_equal(out, want)
            assert out.dtype == want.dtype
        np.testing.assert_array_equal(front(func, backend="numpy")(*args), out)
        # the lookup is JAX's own (jitted), not NumPy's run op by op
        source = fast.source(*args)
        assert "dict_lookup(" in source and "pymath" not in source
    jargs = [jax.numpy.asarray(a) for a in args]
    with jax.enable_x64(True):
        out = vmap(func, fallback="error")(*[jax.numpy.asarray(a) for a in args])
    assert isinstance(out, jax.Array) and jargs
    np.testing.assert_array_equal(np.asarray(out), expected)
    assert out.dtype == expected.dtype


MISSING = [
    (plain_jp32, (np.array([0, 2, 3]),), vectorize),
    (looped_jp32, (np.array([0, 0, 1]), np.array([1, 3, 1])), vmap),
    (mixed_keys_jp32, (np.array([0.5, np.nan]),), vmap),
]


@pytest.mark.parametrize("func,args,front", MISSING, ids=[c[0].__name__ for c in MISSING])
def test_missing_key_raises_keyerror_as_the_loop(func, args, front):
    with pytest.raises(KeyError):
        _loop(func, args)
    good = tuple(a[:1] for a in args)
    fast = front(func, backend="jax", fallback="error")
    fast(*good)     # warm (jitted) first: the failing call is checked under `jit`
    fast(*good)
    with pytest.raises(KeyError):
        fast(*args)
    np.testing.assert_array_equal(fast(*good), np.array(_loop(func, good)))


@pytest.mark.parametrize("func", [strings_jp32, strings_get_jp32])
def test_table_of_strings_refused_on_jax_located(func):
    k = np.array([0, 1]) if func is strings_jp32 else np.array([0, 5])
    with pytest.raises(VectorizeError, match="table of strings indexed per example") as info:
        vmap(func, backend="jax", fallback="error")(k)
    assert "test_jaxperf32.py" in str(info.value) and "NAMES_JP32" in str(info.value)
    # NumPy computes them; vectorize on JAX gives numpy.vectorize's results (per example)
    want = np.vectorize(func)(k)
    np.testing.assert_array_equal(vmap(func, backend="numpy")(k), want)
    np.testing.assert_array_equal(vectorize(func, backend="jax", fallback="loop")(k), want)


@pytest.mark.parametrize("backend", ["jax", "torch"])
def test_vmap_on_string_arrays_refused_as_numpy(backend):
    pytest.importorskip(backend)
    keys = np.array(["a", "b"])
    with pytest.raises(VectorizeError, match=r"over an array of dtype str\n") as numpy_error:
        vmap(plain_jp32)(keys)
    # before: JAX's (torch's) own TypeError converting the array, not located
    with pytest.raises(VectorizeError, match="over an array of dtype") as info:
        vmap(plain_jp32, backend=backend)(keys)
    assert "test_jaxperf32.py" in str(info.value)
    first_line = str(info.value).splitlines()[0].split(":", 3)[3]
    assert first_line == str(numpy_error.value).splitlines()[0].split(":", 3)[3]
    out = vmap(mixed_keys_jp32, backend=backend, fallback="loop")(np.array([0.5, 2.0]))
    np.testing.assert_array_equal(np.asarray(out), [1, 7])


@pytest.mark.parametrize("backend", ["numpy", "jax"])
def test_dict_looked_up_by_a_per_example_array_refused(backend):
    # per example `RATES_JP32[row]` raises TypeError (an array is unhashable); before, vmap
    # looked up every item of the row and gave an array
    rows = np.array([[0, 1], [3, 1]])
    with pytest.raises(TypeError, match="unhashable"):
        _loop(plain_jp32, (rows,))
    with pytest.raises(VectorizeError, match="dict looked up by a per-example array") as info:
        vmap(plain_jp32, backend=backend, fallback="error")(rows)
    assert "test_jaxperf32.py" in str(info.value)
    with pytest.raises(TypeError, match="unhashable"):
        vmap(plain_jp32, backend=backend, fallback="loop")(rows)
