"""`vmap` semantics (JAX / torch.func), against the per-example loop
``np.stack([f(*per_example_args(n)) for n in range(N)])`` with the batch axis moved to
``out_axes``.

Per-example values are taken with ``np.take(arg, n, axis)`` (so a mapped 1-D array gives NumPy
scalars, a mapped 2-D array gives per-example vectors), unmapped arguments are passed as they
are, tuple arguments are mapped leaf by leaf following nested ``in_axes``. Only elementwise
per-example code is in scope: per-example vectors work with elementwise operations and
broadcasting; reductions and indexing of per-example arrays must raise `VectorizeError` until
the array issue lands (or then compute exactly the loop's result), and scalar-only constructs
(``if`` on a vector, ``math.sin(vector)``, ``min``...) must not silently compute something the
per-example function does not.
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from vectorize import VectorizeError, vmap

# --------------------------------------------------------------------------------------------
# reference


def _leaf_axes(arg, axis):
    """JAX pytree rule: an int / None entry for a tuple argument applies to every leaf."""
    return axis if isinstance(axis, tuple) else (axis,) * len(arg)


def _take(arg, axis, n):
    if isinstance(arg, tuple):
        return tuple(_take(a, ax, n) for a, ax in zip(arg, _leaf_axes(arg, axis)))
    if axis is None:
        return arg
    return np.take(np.asarray(arg), n, axis=axis)


def _sizes(arg, axis):
    if isinstance(arg, tuple):
        return [s for a, ax in zip(arg, _leaf_axes(arg, axis)) for s in _sizes(a, ax)]
    if axis is None:
        return []
    return [np.shape(arg)[axis]]


def _as_axes(in_axes, n_args):
    return in_axes if isinstance(in_axes, tuple) else (in_axes,) * n_args


def _zeros_like_example(arg, axis):
    """A per-example example of ones (for the result shape when the batch is empty)."""
    if isinstance(arg, tuple):
        return tuple(_zeros_like_example(a, ax) for a, ax in zip(arg, _leaf_axes(arg, axis)))
    if axis is None:
        return arg
    arr = np.asarray(arg)
    return np.zeros(np.delete(arr.shape, axis % arr.ndim), arr.dtype)[()] + 1


def vmap_reference(f, in_axes, out_axes, *args):
    axes = _as_axes(in_axes, len(args))
    sizes = [s for a, ax in zip(args, axes) for s in _sizes(a, ax)]
    size = sizes[0]
    rows = [f(*[_take(a, ax, n) for a, ax in zip(args, axes)]) for n in range(size)]
    if size == 0:
        example = f(*[_zeros_like_example(a, ax) for a, ax in zip(args, axes)])
        outs = example if isinstance(example, tuple) else (example,)
        stacked = [np.zeros((0,) + np.shape(o), np.asarray(o).dtype) for o in outs]
    elif isinstance(rows[0], tuple):
        stacked = [np.stack([np.asarray(r[k]) for r in rows]) for k in range(len(rows[0]))]
    else:
        stacked = [np.stack([np.asarray(r) for r in rows])]
    placed = []
    for k, out in enumerate(stacked):
        axis = out_axes[k] if isinstance(out_axes, tuple) else out_axes
        placed.append(np.moveaxis(out, 0, axis))
    return tuple(placed) if len(placed) > 1 or (rows and isinstance(rows[0], tuple)) \
        else placed[0]


def assert_same(got, expected, exact_dtype=True):
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for g, e in zip(got, expected):
            assert_same(g, e, exact_dtype)
        return
    got = np.asarray(got)
    assert got.shape == expected.shape, f"shape {got.shape} != {expected.shape}"
    assert got.dtype.kind == expected.dtype.kind, f"dtype {got.dtype} != {expected.dtype}"
    if exact_dtype:
        assert got.dtype == expected.dtype, f"dtype {got.dtype} != {expected.dtype}"
    if expected.dtype.kind in "fc":
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=0, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected)


_MAPPED: dict = {}


def mapped(f, in_axes, out_axes):
    """One vmapped callable per (function, axes), shared by the calls of a test module (so
    hypothesis examples exercise the warm path, not one transform each)."""
    key = (f, repr(in_axes), repr(out_axes))
    if key not in _MAPPED:
        _MAPPED[key] = vmap(f, in_axes=in_axes, out_axes=out_axes)
    return _MAPPED[key]


def check(f, in_axes, out_axes, *args, exact_dtype=True):
    expected = vmap_reference(f, in_axes, out_axes, *args)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        got = mapped(f, in_axes, out_axes)(*args)
    assert_same(got, expected, exact_dtype)
    return got


# --------------------------------------------------------------------------------------------
# per-example functions


def piecewise(x, y):
    if x > y:
        return x - y
    return x * y


def clipped_scale(v, s):
    return np.minimum(v * s, 10.0) + 1.0


def affine(v, w):
    return v * 2.0 + w


def pair(x, y):
    return x + y, x - y


def constant_of(x, c):
    return c * 2.0


def batched_and_constant(x, c):
    return x + 1.0, c + 1.0


def from_tuple(p, s):
    a, b = p
    return a * s + b


def nested_tuple(p, s):
    (a, b), c = p
    if a > 0:
        return a * b + c * s
    return c - s


def int_code(n, m):
    if n > m:
        return n // 2
    return m % 3


def bool_code(x):
    return x > 0.5 or x < -0.5


def f32_code(x):
    if x > 0:
        return x * 0.5
    return np.sin(x)


def per_example_branch_on_scalar(v, t):
    # `t` is per-example scalar, `v` a per-example vector: elementwise under a scalar `if`
    if t > 0:
        return v * t
    return -v


def documented(x):
    """Doc of the per-example function."""
    return x + 1


# --------------------------------------------------------------------------------------------
# in_axes: int, None, tuples, nested tuples, negative, 1 on 2-D inputs

FLOATS = st.floats(-100, 100)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 7).flatmap(lambda n: st.tuples(
    arrays(np.float64, n, elements=FLOATS), arrays(np.float64, n, elements=FLOATS))))
def test_in_axes_zero_hypothesis(xy):
    x, y = xy
    check(piecewise, 0, 0, x, y)


@settings(max_examples=15, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(0, 4), st.integers(1, 4)), elements=FLOATS),
       st.sampled_from([0, 1, -1, -2]))
def test_in_axes_any_axis_of_2d_hypothesis(x, axis):
    y = np.flip(x).copy()
    check(affine, (axis, axis), 0, x, y)
    check(clipped_scale, (axis, None), 0, x, 1.5)
    check(piecewise, (-1 if axis < 0 else 0, None), 0, x[:, 0], 0.5)


def test_in_axes_none_scalar():
    x = np.linspace(-2, 2, 7)
    check(piecewise, (0, None), 0, x, 0.5)
    check(piecewise, (None, 0), 0, 0.5, x)


def test_in_axes_none_array_broadcasts_per_example():
    v = np.arange(12.0).reshape(4, 3)
    w = np.array([1.0, -2.0, 3.0])
    check(affine, (0, None), 0, v, w)
    check(clipped_scale, (0, None), 0, v, 2.0)


def test_in_axes_one_on_2d_gives_per_example_vectors():
    v = np.arange(12.0).reshape(3, 4)
    got = check(affine, (1, None), 0, v, np.array([0.5, 1.5, 2.5]))
    assert got.shape == (4, 3)
    check(clipped_scale, (1, None), 0, v, 3.0)
    check(affine, (1, 0), 0, v, np.ones((4, 3)))


def test_per_example_vector_under_a_per_example_scalar_if():
    v = np.arange(12.0).reshape(4, 3) - 5
    t = np.array([1.0, -1.0, 2.0, 0.0])
    check(per_example_branch_on_scalar, (0, 0), 0, v, t)


def test_negative_in_axes():
    x = np.arange(24.0).reshape(2, 3, 4) - 10
    check(affine, (-1, -1), 0, x, np.ones_like(x))
    check(affine, (-3, None), 0, x, 1.5)
    check(piecewise, -1, 0, np.arange(5.0), np.ones(5))


def test_in_axes_tuple_per_argument_mixed():
    x = np.arange(12.0).reshape(3, 4) - 6
    y = np.linspace(-1, 1, 4)
    check(affine, (1, 0), 0, x, y[:, None] * np.ones((4, 3)))
    check(piecewise, (1, None), 0, x[0:1].reshape(1, 4), 0.0)


def test_in_axes_nested_tuple_for_tuple_argument():
    a = np.linspace(-1, 1, 5)
    b = np.linspace(2, 3, 5)
    s = np.arange(5.0)
    check(from_tuple, ((0, None), 0), 0, (a, 1.5), s)
    check(from_tuple, ((0, 0), None), 0, (a, b), 2.0)
    check(from_tuple, (0, 0), 0, (a, b), s)
    m = np.stack([a, b])            # (2, 5): mapped along axis 1
    check(from_tuple, ((1, None), 0), 0, (m, 0.5), s)
    check(nested_tuple, (((0, 0), None), 0), 0, ((a, b), 3.0), s)


def test_in_axes_list_is_not_required_but_tuple_is_accepted():
    x = np.arange(4.0)
    check(piecewise, (0, 0), 0, x, x[::-1])


# --------------------------------------------------------------------------------------------
# out_axes, unbatched outputs, tuple outputs


def test_out_axes_for_per_example_vectors():
    v = np.arange(12.0).reshape(4, 3)
    for out_axes in (0, 1, -1):
        got = check(affine, (0, None), out_axes, v, 1.0)
        assert got.shape == ((4, 3) if out_axes == 0 else (3, 4))


def test_out_axes_tuple_for_tuple_outputs():
    x = np.arange(12.0).reshape(4, 3)
    y = x[::-1].copy()
    got = check(pair, 0, (0, 1), x, y)
    assert got[0].shape == (4, 3) and got[1].shape == (3, 4)
    check(pair, 1, 1, x, y)


def test_tuple_outputs():
    x = np.linspace(-3, 3, 6)
    got = check(pair, 0, 0, x, x ** 2)
    assert isinstance(got, tuple) and len(got) == 2


def test_unbatched_output_is_broadcast():
    x = np.arange(5.0)
    got = check(constant_of, (0, None), 0, x, 3.0)
    assert got.shape == (5,)
    got = check(constant_of, (0, None), 0, x, np.array([1.0, 2.0]))
    assert got.shape == (5, 2)
    got = check(constant_of, (0, None), 1, x, np.array([1.0, 2.0]))
    assert got.shape == (2, 5)


def test_out_axes_none_for_unbatched_output():
    x = np.arange(5.0)
    got = vmap(constant_of, in_axes=(0, None), out_axes=None)(x, 3.0)
    np.testing.assert_array_equal(np.asarray(got), constant_of(x[0], 3.0))
    assert np.shape(got) == ()
    got = vmap(batched_and_constant, in_axes=(0, None), out_axes=(0, None))(x, 3.0)
    np.testing.assert_array_equal(got[0], x + 1.0)
    assert np.shape(got[1]) == () and float(got[1]) == 4.0


def test_out_axes_none_for_batched_output_raises():
    x = np.arange(5.0)
    with pytest.raises(ValueError):
        vmap(piecewise, out_axes=None)(x, x)
    with pytest.raises(ValueError):
        vmap(batched_and_constant, in_axes=(0, None), out_axes=(None, None))(x, 3.0)


# --------------------------------------------------------------------------------------------
# empty batches and dtypes


def test_empty_batch():
    got = check(piecewise, 0, 0, np.zeros(0), np.zeros(0))
    assert got.shape == (0,)
    got = check(affine, (0, None), 0, np.zeros((0, 3)), 1.0)
    assert got.shape == (0, 3)
    got = check(affine, (1, None), 0, np.zeros((3, 0)), 1.0)
    assert got.shape == (0, 3)
    got = check(pair, 0, 0, np.zeros(0), np.zeros(0))
    assert [g.shape for g in got] == [(0,), (0,)]
    got = check(constant_of, (0, None), 0, np.zeros(0), 2.0)
    assert got.shape == (0,)


def test_empty_batch_keeps_dtype():
    got = vmap(int_code)(np.zeros(0, np.int64), np.zeros(0, np.int64))
    assert got.shape == (0,)
    assert got.dtype == vmap(int_code)(np.ones(1, np.int64), np.ones(1, np.int64)).dtype


@settings(max_examples=15, deadline=None)
@given(st.integers(1, 6).flatmap(lambda n: st.tuples(
    arrays(np.int64, n, elements=st.integers(-50, 50)),
    arrays(np.int64, n, elements=st.integers(-50, 50)))))
def test_integer_per_example_code_stays_integer(nm):
    n, m = nm
    got = check(int_code, 0, 0, n, m, exact_dtype=False)
    assert got.dtype.kind == "i"


def test_dtypes():
    x = np.linspace(-1, 1, 9)
    check(bool_code, 0, 0, x)
    got = check(f32_code, 0, 0, x.astype(np.float32))
    assert got.dtype == np.float32
    check(int_code, 0, 0, np.arange(-4, 4, dtype=np.int8), np.arange(4, -4, -1, dtype=np.int8),
          exact_dtype=False)


# --------------------------------------------------------------------------------------------
# argument errors (JAX's ValueErrors)


def test_mismatched_batch_sizes():
    with pytest.raises(ValueError) as info:
        vmap(piecewise)(np.zeros(3), np.zeros(4))
    message = str(info.value)
    # located at the user's call (a VectorizeError is a ValueError, as JAX raises it)
    assert isinstance(info.value, VectorizeError) and info.value.filename == __file__
    assert "vmap(piecewise)(np.zeros(3), np.zeros(4))" in info.value.source_line
    assert "float64[3]" in message and "float64[4]" in message     # as JAX spells them
    for index, name in ((0, "x"), (1, "y")):
        assert re.search(rf"arg\w*\W{{0,2}}{index}\b", message) or f"`{name}`" in message \
            or f"argument {name} " in message, message


def test_mismatched_batch_sizes_in_tuple_argument():
    with pytest.raises(ValueError) as info:
        vmap(from_tuple, in_axes=((0, 0), 0))((np.zeros(3), np.zeros(2)), np.zeros(3))
    assert "float64[3]" in str(info.value) and "[1] of type float64[2]" in str(info.value)


def test_in_axes_length_mismatch():
    with pytest.raises(ValueError, match="in_axes"):
        vmap(piecewise, in_axes=(0,))(np.zeros(3), np.zeros(3))
    with pytest.raises(ValueError, match="in_axes"):
        vmap(piecewise, in_axes=(0, 0, 0))(np.zeros(3), np.zeros(3))


def test_nested_in_axes_length_mismatch():
    with pytest.raises(ValueError):
        vmap(from_tuple, in_axes=((0, 0, 0), 0))((np.zeros(3), np.zeros(3)), np.zeros(3))


@pytest.mark.parametrize("in_axes", [None, (None, None)])
def test_no_mapped_argument(in_axes):
    with pytest.raises(ValueError, match="non-None|at least one"):
        vmap(piecewise, in_axes=in_axes)(np.zeros(3), np.zeros(3))


@pytest.mark.parametrize("zero_d", [np.array(1.0), np.float64(1.0), 1.0, 2])
def test_mapping_a_0d_value(zero_d):
    with pytest.raises(ValueError, match="rank|0-d|shape"):
        vmap(piecewise)(zero_d, np.zeros(3))


@pytest.mark.parametrize("axis", [2, -3])
def test_in_axes_out_of_bounds(axis):
    with pytest.raises(ValueError):
        vmap(piecewise, in_axes=axis)(np.zeros((2, 3)), np.zeros((2, 3)))


def test_not_callable():
    with pytest.raises(TypeError):
        vmap(3)


def test_wrapper_keeps_identity_and_shows_source():
    vm = vmap(documented)
    assert vm.__name__ == "documented"
    assert vm.__doc__ == documented.__doc__
    assert vm.__wrapped__ is documented
    src = vmap(piecewise).source(np.zeros(3), np.zeros(3))
    assert "merge.blend(x > y" in src and "if x > y" not in src


# --------------------------------------------------------------------------------------------
# per-example arrays beyond elementwise code


def reduce_sum(v):
    return np.sum(v)


def reduce_method(v):
    return v.sum()


def first_item(v):
    return v[0]


def length(v):
    return len(v)


def inner(v, w):
    return v @ w


def shape_of(v):
    return v.shape[0]


@pytest.mark.parametrize("func", [reduce_sum, reduce_method, first_item, length, inner,
                                  shape_of])
def test_reductions_and_indexing_raise_or_are_exact(func):
    v = np.arange(12.0).reshape(4, 3) - 5
    args = (v, v[::-1].copy()) if func is inner else (v,)
    try:
        got = vmap(func)(*args)
    except VectorizeError as exc:
        assert type(exc) is VectorizeError
        assert re.search(r":\d+:\d+:", str(exc)), str(exc)
        return
    # the array issue has landed for this construct: then it must be exact
    assert_same(got, vmap_reference(func, 0, 0, *args), exact_dtype=False)


def branch_on_vector(v, w):
    if v > w:
        return v - w
    return v * w


def math_on_vector(v):
    return math.sin(v)


def min_of_vectors(v, w):
    return min(v, w)


def float_of_vector(v):
    return float(v)


def and_of_vectors(v, w):
    return v > 0 and w > 0


def ternary_on_vector(v):
    return v if v > 0 else -v


def chained_on_vector(v):
    return 0 < v < 1


def round_vector(v):
    return round(v)


SCALAR_ONLY = [branch_on_vector, math_on_vector, min_of_vectors, float_of_vector,
               and_of_vectors, ternary_on_vector, chained_on_vector, round_vector]


@pytest.mark.parametrize("func", SCALAR_ONLY, ids=[f.__name__ for f in SCALAR_ONLY])
def test_scalar_only_constructs_on_per_example_vectors_do_not_miscompile(func):
    v = np.arange(12.0).reshape(4, 3) / 7 - 0.5
    args = (v, v[::-1].copy()) if func.__code__.co_argcount == 2 else (v,)
    with pytest.raises(Exception) as per_example:  # noqa: B017 - whatever the function raises
        func(*[a[0] for a in args])
    expected = type(per_example.value)
    with pytest.raises((VectorizeError, expected)):
        vmap(func)(*args)


# --------------------------------------------------------------------------------------------
# decorator form


@vmap(in_axes=(0, None))
def _scaled_or_negated(t, b):
    if t * b > 5:
        return t * b
    return -t


def test_vmap_without_a_function_is_a_decorator():
    t = np.arange(1.0, 9.0)
    expected = np.array([_scaled_or_negated.__wrapped__(x, 1.5) for x in t])
    np.testing.assert_array_equal(_scaled_or_negated(t, 1.5), expected)


def affine_with_default(v, shift=1.0, scale=2.0):
    return v * scale + shift


def test_parameters_not_passed_take_their_defaults():
    x = np.array([[1.0, 2.0], [3.0, -4.0]])
    for args in [(x,), (x, 0.5)]:
        out = vmap(affine_with_default, in_axes=(0,) + (None,) * (len(args) - 1))(*args)
        np.testing.assert_array_equal(out, np.stack([affine_with_default(r, *args[1:])
                                                     for r in x]))
