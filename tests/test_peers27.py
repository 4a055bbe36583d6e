"""Gaps the peers' own tests showed (tests/peers/), differential against ``numpy.vectorize``.

Arguments that are not numbers: a 0-d object or string array handed to every example as it
is (an instance, a long string), an object array of one value (all None), and an object
that is neither number, string nor array (a `Fraction`, the user's class) meeting
per-example values in an operator; a ``*args`` function with a signature."""

from __future__ import annotations

import fractions
import warnings

import numpy as np
import pytest

from vectorize import VectorizeError, vectorize


def _same(got, expected):
    assert type(got) is type(expected)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if expected.dtype == object:
        assert all(g is e or g == e for g, e in zip(got.flat, expected.flat))
    else:
        np.testing.assert_array_equal(got, expected)


class Scaled:
    b = 2

    def bar(self, a):
        return a ** self.b

    def __add__(self, other):
        return other + 1.5

    __radd__ = __add__


def add(x, y):
    return x + y


def radd(x, y):
    return y + x


def times(x, y):
    return x * y


@pytest.mark.parametrize("f", [add, radd, times])
@pytest.mark.parametrize("obj", [fractions.Fraction(1, 2), Scaled()])
@pytest.mark.parametrize("excluded", [None, {0}])
def test_object_operand_with_per_example_values_is_refused(f, obj, excluded):
    # numpy.vectorize: Fraction(1, 2) + 1.0 per example is a Python float (float64 results);
    # `obj + array` would be an object array
    if f is times and isinstance(obj, Scaled):
        return
    x = np.arange(3.0)
    expected = np.vectorize(f, excluded=excluded)(obj, x)
    assert expected.dtype == np.float64
    with pytest.raises(VectorizeError, match="per-example values"):
        vectorize(f, excluded=excluded, fallback="error")(obj, x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(vectorize(f, excluded=excluded, fallback="warn")(obj, x), expected)


def attribute_power(o, a):
    return a ** o.b


def long_string(s, y):
    return y if s == "0123456789" * 10 else len(s) + y


def none_or(x, y):
    return y if x is None else -y


@pytest.mark.parametrize("f, args", [
    (Scaled.bar, (Scaled(), np.arange(9))),
    (attribute_power, (Scaled(), np.arange(4.0))),
    (long_string, ("0123456789" * 10, np.arange(3))),
    (long_string, ("ab" * 50, np.arange(3))),
    (none_or, ([None, None], np.arange(3)[:, None])),
    (none_or, (np.array([None] * 4).reshape(2, 2), np.arange(2))),
    (lambda x: x, ("0123456789" * 10,)),
    (lambda x: 1.5, ([[None, None]],)),
])
def test_as_is_arguments_vectorize(f, args):
    expected = np.vectorize(f)(*args)
    _same(vectorize(f, fallback="error")(*args), expected)


def test_object_array_of_one_value_with_object_otypes():
    y = np.arange(3)
    f = vectorize(lambda x: y, otypes=[object], fallback="error")
    got = f([None, None])
    assert got.shape == (2,) and got.dtype == object and all(item is y for item in got)


def test_object_array_of_mixed_items_is_not_one_value():
    # [None, 1]: each example gets its own item (a Python loop), as numpy.vectorize
    args = (np.array([None, 1], dtype=object), np.arange(2))
    expected = np.vectorize(none_or)(*args)
    with pytest.raises(VectorizeError):
        vectorize(none_or, fallback="error")(*args)
    _same(vectorize(none_or, fallback="loop")(*args), expected)


def test_size_zero_new_output_dimensions_raises_before_pyfunc():
    x = np.zeros([0, 5], dtype=int)
    for f in (lambda x: [x], lambda x: (x, x), lambda x: x):
        with pytest.raises(ValueError, match="new output dimensions"):
            np.vectorize(f, signature='()->(n)', otypes='i')(x)
        with pytest.raises(ValueError, match="new output dimensions"):
            vectorize(f, signature='()->(n)', otypes='i', fallback="error")(x)


def star_sum(a, *rest):
    return a + sum(rest)


def star_first_mean(*xs):
    return xs[0].mean() + xs[1]


@pytest.mark.parametrize("f, signature, args", [
    (lambda *args: args, "(),()->(),(),()", (1, 2)),          # jnp's test_wrong_num_outputs
    (lambda *args: args, "(),()->()", ([1, 2], 3)),
    (lambda *args: args, "(),()->(),()", ([1, 2], 3)),
    (star_sum, "(),(),()->()", ([1.0, 2.0], 3, [[4], [5]])),
    (star_sum, "()->()", ([1.0, 2.0],)),
    (star_sum, "()->()", ()),
    (star_first_mean, "(n),()->()", (np.arange(6.0).reshape(2, 3), [1, 2])),
    (star_first_mean, "(n),()->(n)", (np.arange(6.0).reshape(2, 3),)),
])
def test_var_positional_with_signature(f, signature, args):
    try:
        expected = ("value", np.vectorize(f, signature=signature)(*args))
    except Exception as exc:    # noqa: BLE001 -- the reference's exception type
        expected = ("raises", type(exc))
    try:
        got = ("value", vectorize(f, signature=signature, fallback="error")(*args))
    except VectorizeError:
        raise
    except Exception as exc:    # noqa: BLE001
        got = ("raises", type(exc))
    assert got[0] == expected[0]
    if got[0] == "raises":
        assert got[1] is expected[1]
    elif isinstance(expected[1], tuple):
        assert type(got[1]) is tuple and len(got[1]) == len(expected[1])
        for g, e in zip(got[1], expected[1]):
            _same(g, e)
    else:
        _same(got[1], expected[1])


def rank_where_large(y):
    return y.ndim if y > 1 else y


def sum_where_large(y):
    return y if y < 5 else y.real + y.sum()


def excluded_first(x, y):     # jnp.vectorize's test_exclude_first
    assert x == "foo"
    assert y.ndim == 0
    return y


@pytest.mark.parametrize("f, args, options", [
    (rank_where_large, (np.arange(2),), {}),            # no example gets to `.ndim`
    (rank_where_large, (np.arange(3),), {}),            # one does: AttributeError
    (rank_where_large, (np.arange(0),), {"otypes": [int]}),
    (sum_where_large, (np.arange(3),), {}),
    (sum_where_large, (np.arange(7.0),), {}),
    (excluded_first, ("foo", np.arange(3)), {"excluded": {0}}),
])
def test_numpy_attribute_of_python_number_raises_where_an_example_gets_there(f, args, options):
    # numpy.vectorize hands Python numbers, which have no `.ndim` / `.sum()`: the batch
    # raises AttributeError where any example reaches the attribute, else computes
    try:
        expected = ("value", np.vectorize(f, **options)(*args))
    except AttributeError as exc:
        expected = ("raises", str(exc))
    try:
        got = ("value", vectorize(f, fallback="error", **options)(*args))
    except AttributeError as exc:
        got = ("raises", str(exc))
    assert got[0] == expected[0]
    if got[0] == "value":
        _same(got[1], expected[1])
    else:
        assert got[1] == expected[1]
    assert "raise AttributeError" in vectorize(f, fallback="error", **options).source(*args)


def _linear(x, w, b):
    import torch.nn.functional as F
    return F.linear(x, w, b)


def _linear_no_bias(x, w):
    import torch.nn.functional as F
    return F.linear(x, w)


@pytest.mark.parametrize("f, shapes, in_axes", [
    (_linear_no_bias, [(3, 5), (3, 4, 5)], (0, 0)),
    (_linear_no_bias, [(2, 6, 5), (3, 4, 5)], (None, 0)),
    (_linear, [(3, 2, 7, 5), (3, 4, 5), (3, 4)], (0, 0, 0)),
    (_linear, [(3, 2, 5), (3, 4, 5), (4,)], (0, 0, None)),
    (_linear, [(3, 5), (4, 5), (3, 4)], (0, None, 0)),
    (_linear, [(3, 5), (4, 5, 3), (3, 4)], (0, 2, 0)),
])
def test_linear_with_per_example_weights(f, shapes, in_axes):
    # (was refused: "`F.linear` with per-example weights or options"); against the loop
    torch = pytest.importorskip("torch")
    from vectorize import vmap
    gen = torch.Generator().manual_seed(0)
    args = [torch.randn(*s, generator=gen, dtype=torch.float64) for s in shapes]
    size = next(a.shape[d] for a, d in zip(args, in_axes) if d is not None)
    expected = torch.stack([f(*[a if d is None else a.select(d, i)
                                for a, d in zip(args, in_axes)]) for i in range(size)])
    got = vmap(f, in_axes, fallback="error")(*args)
    torch.testing.assert_close(got, expected, rtol=1e-12, atol=1e-12)


def _layer_norm(x, w, b):
    import torch.nn.functional as F
    return F.layer_norm(x, (4, 5), w, b)


def _layer_norm_weight(x, w):
    import torch.nn.functional as F
    return F.layer_norm(x, (5,), weight=w, eps=1e-3)


@pytest.mark.parametrize("f, shapes, in_axes", [
    (_layer_norm, [(3, 4, 5), (3, 4, 5), (3, 4, 5)], (0, 0, 0)),
    (_layer_norm, [(3, 2, 4, 5), (3, 4, 5), (4, 5)], (0, 0, None)),
    (_layer_norm, [(2, 4, 5), (3, 4, 5), (3, 4, 5)], (None, 0, 0)),
    (_layer_norm_weight, [(3, 2, 5), (3, 5)], (0, 0)),
])
def test_layer_norm_with_per_example_weights(f, shapes, in_axes):
    # (was refused: "`F.layer_norm` with per-example weights or options"); against the loop
    torch = pytest.importorskip("torch")
    from vectorize import vmap
    gen = torch.Generator().manual_seed(0)
    args = [torch.randn(*s, generator=gen, dtype=torch.float64) for s in shapes]
    size = next(a.shape[d] for a, d in zip(args, in_axes) if d is not None)
    expected = torch.stack([f(*[a if d is None else a.select(d, i)
                                for a, d in zip(args, in_axes)]) for i in range(size)])
    got = vmap(f, in_axes, fallback="error")(*args)
    torch.testing.assert_close(got, expected, rtol=1e-12, atol=1e-12)


def _conv1d(x, w, b):
    import torch.nn.functional as F
    return F.conv1d(x, w, b, stride=2)


def _conv2d_groups(x, w, b):
    import torch.nn.functional as F
    return F.conv2d(x, w, bias=b, padding=1, groups=2)


@pytest.mark.parametrize("f, shapes, in_axes", [
    (_conv1d, [(4, 15), (8, 4, 3), (3, 8)], (None, None, 0)),          # a bias only
    (_conv2d_groups, [(2, 4, 7, 6), (8, 2, 3, 3), (8, 3)], (None, None, 1)),
    (_conv2d_groups, [(3, 4, 7, 6), (3, 8, 2, 3, 3), (8,)], (0, 0, None)),
    (_conv1d, [(3, 2, 4, 15), (8, 4, 3), (3, 8)], (0, None, 0)),
])
def test_conv_with_per_example_weights_or_bias(f, shapes, in_axes):
    # (were refused: "with per-example weights or options"); against the loop
    torch = pytest.importorskip("torch")
    from vectorize import vmap
    gen = torch.Generator().manual_seed(0)
    args = [torch.randn(*s, generator=gen, dtype=torch.float64) for s in shapes]
    size = next(a.shape[d] for a, d in zip(args, in_axes) if d is not None)
    expected = torch.stack([f(*[a if d is None else a.select(d, i)
                                for a, d in zip(args, in_axes)]) for i in range(size)])
    got = vmap(f, in_axes, fallback="error")(*args)
    torch.testing.assert_close(got, expected, rtol=1e-12, atol=1e-12)
