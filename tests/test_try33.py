"""Calls and item writes inside a ``try`` that real packages write (`passes.try_except`):
``len()`` of a row per example (never raises: a ``TypeError`` handler for iterators is never
taken), a ``try`` after ``if <parameter test>: ... return`` that the specialization never
reaches, and ``v[i] = f(x[i])`` into a number per example with ``except TypeError`` (the
idiom of code that serves arrays and scalars with one body: every example raises TypeError,
at the item of a Python number or at the write into a NumPy scalar, and takes the handler).
`vectorize` is compared with numpy.vectorize itself (values, dtype, exception type), `vmap`
with the per-example loop, with inputs that take the handler on some lanes, all and none;
N = 0, 1, 5. What the engine cannot tell stays refused, located."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from differential import check_exactly, check_vmap_exactly
from numpy import cos, inf, pi, sign

from vectorize import VectorizeError, vectorize, vmap


def _check(f, *args, signature=None):
    check_exactly(f, *args, signature=signature, refusal_fails=True)


def _check_vmap(f, *args):
    check_vmap_exactly(f, *args, refusal_fails=True)


# ------------------------------------------------------------------- the functions
def mean_of(data, weights=None):
    # (the shape of a mean that also takes iterators: `len` of a row never raises)
    try:
        n = len(data)
    except TypeError:
        n = 0

        def count(iterable):
            nonlocal n
            for n, x in enumerate(iterable, start=1):  # noqa: B007
                yield x
        data = count(data)
    if weights is None:
        total = np.sum(data)
        if not n:
            raise ValueError("no data")
        return total / n
    try:
        k = len(weights)        # (never reached: `weights` is None)
    except TypeError:
        weights = list(weights)
        k = len(weights)
    return np.sum(data * weights) / k


def sized_or_minus_one(data):
    try:
        n = len(data)
    except TypeError:
        n = -1
    return data[0] * n


def isometric(lat):
    # (the pole fix-up of an isometric latitude: an array is written where the cosine
    # vanishes; a number raises TypeError and the handler fixes it)
    c = cos(lat)
    i = abs(c) <= 1e-9
    out = lat * 2.0
    try:
        out[i] = sign(lat[i]) * inf
    except TypeError:
        if i:
            out = sign(lat) * inf
    return out


def poles(lat1, lat2):
    try:
        i = abs(pi / 2 - abs(lat1)) < 1e-10
        lat1[i] = sign(lat1[i]) * (pi / 2 - 1e-10)
        i = abs(pi / 2 - abs(lat2)) < 1e-10
        lat2[i] = sign(lat2[i]) * (pi / 2 - 1e-10)
    except TypeError:
        if abs(pi / 2 - abs(lat1)) < 1e-10:
            lat1 = sign(lat1) * (pi / 2 - 1e-10)
        if abs(pi / 2 - abs(lat2)) < 1e-10:
            lat2 = sign(lat2) * (pi / 2 - 1e-10)
    return lat1 + 10.0 * lat2


def flipped(x, y):
    # (`lamb[i] = -lamb[i]` of a sign test; both handlers' exceptions in a tuple)
    lamb = abs(x)
    i = sign(np.sin(y)) * sign(np.sin(lamb)) < 0
    try:
        lamb[i] = -lamb[i] + y[i] * 0.5
    except (AttributeError, TypeError):
        if i:
            lamb = -lamb + y * 0.5
    return lamb * 3.0


def _opaque(v):
    return math.sqrt(v)


def into_number_opaque(x):
    i = x > 1.0
    y = x + 1.0
    try:
        y[i] = _opaque(x[i])     # (a function of yours: the batch raises, the loop decides)
    except TypeError:
        if i:
            y = 0.0
    return y


def into_number_int_index(x):
    y = x + 1.0
    try:
        y[0] = sign(x[0])       # (a NumPy scalar's `x[0]`: IndexError, not caught)
    except TypeError:
        y = 0.0
    return y


def into_number_int_power(n):
    i = n > 1
    y = n * 2
    try:
        y[i] = np.power(n[i], -1)    # (NumPy ints to a negative power: ValueError)
    except TypeError:
        y = 0
    return y


def into_number_two_handlers(x):
    y = x + 1.0
    try:
        y[0] = sign(x[0])       # (NumPy scalar: IndexError, first handler; Python: TypeError)
    except IndexError:
        y = -5.0
    except (TypeError, IndexError):  # noqa: B025 -- (the order decides for IndexError)
        y = 0.0
    return y


def into_number_warnings_as_errors(lat):
    i = abs(cos(lat)) <= 0.5
    out = lat * 2.0
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            out[i] = sign(lat[i]) / 0.0     # (an array of one element warns: it raises)
    except TypeError:
        out = -1.0
    except RuntimeWarning:
        out = -2.0
    return out


class _Lib:
    # (a module-level object whose class attribute holds static methods: a wrapper of an
    # optional library)
    class Math:
        @staticmethod
        def rounded(x):
            z = 1 / 16.0
            y = abs(x)
            y = z - (z - y) if y < z else y
            return 0.0 if x == 0 else math.copysign(y, x)

        @staticmethod
        def picky(x):
            if x > 1.0:
                raise AttributeError("no such thing")
            return x * 2.0


_LIB = _Lib()


def coarsened(x):
    try:
        return _LIB.Math.rounded(x)
    except AttributeError:
        return x


def picked(x):
    try:
        y = _LIB.Math.picky(x)
    except AttributeError:
        y = -x
    return y + 1.0


class _Radius(float):
    pass


class _Datum:
    class ellipsoid:  # noqa: N801 -- (the shape of a datum's ellipsoid attribute)
        R1 = 6371.0088


R_PLAIN = _Radius(6371.0)
DATUM = _Datum()


def scaled(x, radius=R_PLAIN):
    # (a radius or a datum: an attribute of an object the same for every example)
    try:
        radius = radius.ellipsoid.R1
    except AttributeError:
        pass
    return x * radius


def scaled_datum(x, radius=DATUM):
    try:
        radius = radius.ellipsoid.R1
    except AttributeError:
        radius = 1.0
    return x * radius


def _checked_root(x):
    if x < 0:
        raise ValueError("negative")
    return math.sqrt(x)


def _shifted_root(x):
    return _checked_root(x - 1.0) * 2.0     # (two levels of helpers)


def _reciprocal(x):
    return 1.0 / x


def root_or_minus_one(x):
    try:
        y = _shifted_root(x)
    except ValueError:
        y = -1.0
    return y


def root_not_caught(x):
    try:
        y = _shifted_root(x)
    except (TypeError, ArithmeticError):   # (not ValueError: it propagates)
        y = -1.0
    return y


def reciprocal_arithmetic(x):
    try:
        y = _reciprocal(x)
    except ArithmeticError:                 # (catches ZeroDivisionError)
        y = 0.0
    return y


def reciprocal_exception(x):
    try:
        y = _reciprocal(x) + _shifted_root(x + 1.0)
    except Exception:                       # noqa: BLE001 -- (both helpers' exceptions)
        y = 0.0
    return y


EDGE = np.array([pi / 2, 0.3, -pi / 2, 1.0, 2.0])
NONE = np.array([0.1, 0.3, -0.4, 1.0, 2.0])
ALL = np.array([pi / 2, -pi / 2, pi / 2, pi / 2, -pi / 2])


# ------------------------------------------------------------------- the tests
@pytest.mark.parametrize("n", [0, 1, 5])
def test_len_of_a_row_never_takes_the_type_error_handler(n):
    rows = np.arange(3.0 * n).reshape(n, 3) - 4.0
    _check(mean_of, rows, signature="(k)->()")
    _check(sized_or_minus_one, rows, signature="(k)->()")
    if n:
        _check_vmap(mean_of, rows)
        _check_vmap(sized_or_minus_one, rows)


@pytest.mark.parametrize("x", [EDGE, NONE, ALL, EDGE[:1], ALL[:1], EDGE[:0]],
                         ids=["some", "none", "all", "one", "one-taken", "empty"])
def test_an_item_write_into_a_number_takes_the_type_error_handler(x):
    _check(isometric, x)
    _check(poles, x, x[::-1].copy())
    _check(flipped, x, np.cos(3.0 * x) - 0.2)
    _check(into_number_opaque, x)
    if x.size:
        _check_vmap(into_number_opaque, x)
        _check_vmap(isometric, x)
        _check_vmap(poles, x, x[::-1].copy())
        _check_vmap(flipped, x, np.cos(3.0 * x) - 0.2)


@pytest.mark.parametrize("f, x", [(into_number_int_index, NONE),
                                  (into_number_int_power, np.array([3, 1, 2])),
                                  (into_number_two_handlers, NONE),
                                  (into_number_warnings_as_errors, np.array([0.1, 1.5, 2.0]))])
def test_an_item_write_whose_value_may_raise_otherwise_stays_refused(f, x):
    with pytest.raises(VectorizeError) as info:
        vectorize(f, fallback="error")(x)
    assert "test_try33.py:" in str(info.value)
    with pytest.raises(VectorizeError):
        vmap(f)(x)


@pytest.mark.parametrize("x", [EDGE, NONE, EDGE[:1], EDGE[:0]],
                         ids=["some", "none", "one", "empty"])
def test_a_static_method_of_a_module_object_is_its_function(x):
    _check(coarsened, x)
    _check(picked, x)
    if x.size:
        _check_vmap(coarsened, x)
        _check_vmap(picked, x)


@pytest.mark.parametrize("x", [EDGE, EDGE[:1]], ids=["some", "one"])
def test_an_attribute_of_a_default_argument_raises_on_every_example_or_none(x):
    _check_vmap(scaled, x)
    _check_vmap(scaled_datum, x)
    _check(scaled_datum, x)


def test_torch_reads_a_default_arguments_attribute_once():
    # (its per-example numbers are 0-d tensors: the attribute of the default decides alone)
    pytest.importorskip("torch")
    for f in (scaled, scaled_datum):
        expected = np.array([f(v) for v in EDGE])
        got = np.asarray(vmap(f, backend="torch")(EDGE))
        np.testing.assert_allclose(got, expected, rtol=1e-6)


HELPER_INPUTS = [np.array([-1.0, 0.0, 1.5, 4.0, 2.0]), np.array([1.5, 4.0, 2.0, 9.0, 1.0]),
                 np.array([-1.0, 0.0, -3.0, 0.5, 0.0]), np.array([0.0]), np.array([3.0]),
                 np.array([], dtype=float)]


@pytest.mark.parametrize("x", HELPER_INPUTS, ids=["some", "none", "all", "one-taken", "one",
                                                  "empty"])
@pytest.mark.parametrize("f", [root_or_minus_one, root_not_caught, reciprocal_arithmetic,
                               reciprocal_exception])
def test_helpers_raising_through_levels_take_the_handler_that_catches(f, x):
    _check(f, x)
    if x.size:
        _check_vmap(f, x)
