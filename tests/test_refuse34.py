"""Calls of the user's helpers inside a ``try`` whose exceptions the engine reads from their
bodies (`passes.try_except.helper_raises`), the real-package shapes that were refused:
a helper whose own ``try`` has a handler its body never reaches on numbers (pygeodesy's
``isfinite``: ``except Exception as x:`` around ``math.isfinite``, whose handler calls
methods of the object) raises only what its body raises, so a caller's ``try`` around it
is lowered. `vectorize` is compared with numpy.vectorize itself (values, dtype, exception
type), `vmap` with the per-example loop, on inputs that take the handler on some lanes, all
and none; N = 0, 1, 5. What the engine cannot tell stays refused, located."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from vectorize import VectorizeError, vectorize, vmap


def _outcome(call):
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return call(), None
    except Exception as e:      # noqa: BLE001 (the exception's type is compared)
        return None, e


def _check(f, *args):
    options = {} if np.size(args[0]) else {"otypes": [np.float64]}
    expected, exc = _outcome(lambda: np.vectorize(f, **options)(*args))
    got, got_exc = _outcome(lambda: vectorize(f, fallback="error", **options)(*args))
    assert not isinstance(got_exc, VectorizeError), got_exc
    assert type(got_exc) is type(exc), (got_exc, exc)
    if exc is None:
        assert got.dtype == expected.dtype and got.shape == expected.shape, (got, expected)
        np.testing.assert_array_equal(got, expected)


def _check_vmap(f, *args):
    def loop():
        rows = [np.asarray(f(*a)) for a in zip(*args)]
        return np.stack(rows) if rows else None
    expected, exc = _outcome(loop)
    got, got_exc = _outcome(lambda: vmap(f)(*args))
    assert not isinstance(got_exc, VectorizeError), got_exc
    assert type(got_exc) is type(exc), (got_exc, exc)
    if exc is None and expected is not None:
        np.testing.assert_array_equal(got, expected)


def _cases(n):
    # (second argument 0.0 on some lanes: the helper raises ZeroDivisionError there)
    x = np.array([0.5, -1.25, 3.0, 0.0, 2.0])[:n]
    y = np.array([2.0, 0.0, -4.0, 0.0, 1e-310])[:n]
    return [(x, y), (x, np.zeros(n)), (x, np.ones(n) + 1.0)]


# ---------------------------------------------- a helper's handler its body never reaches
def _isfin(obj):
    try:
        return math.isfinite(obj)
    except Exception as x:      # (numbers never get here: it reads methods of the object)
        if obj.is_finite():
            return True
        raise TypeError(repr(x)) from x


def _over(p, q):
    try:
        return p / q
    except ZeroDivisionError:
        return (math.copysign(math.inf, p) if _isfin(p) else math.nan) if p else p


def _tanu(s, c):
    if abs(c) < 1e-300:
        raise ZeroDivisionError("near zero")
    return _over(s, c)


def tan_or_flag(s, c):
    try:
        return _tanu(s, c)
    except ZeroDivisionError:
        return -7.0


@pytest.mark.parametrize("n", [0, 1, 5])
def test_helper_with_unreached_handler_vectorize(n):
    for x, y in _cases(n):
        _check(tan_or_flag, x, y)


@pytest.mark.parametrize("n", [0, 1, 5])
def test_helper_with_unreached_handler_vmap(n):
    for x, y in _cases(n):
        _check_vmap(tan_or_flag, x, y)


def _reached(obj):
    try:
        return obj[0]           # (an item: IndexError, KeyError, TypeError)
    except TypeError:
        return obj.half()       # (reached: an object's method, unknown)


def uses_reached(s, c):
    try:
        return _reached(s) / c
    except ZeroDivisionError:
        return 0.0


def test_reached_handler_stays_refused():
    x = np.array([1.0, 2.0])
    with pytest.raises(VectorizeError, match="exceptions the engine does not know"):
        vectorize(uses_reached, fallback="error")(x, x)


# ----------------- `v[i] = value` into a number: what the value raises before the write
# The write raises TypeError on every example (an item of a number), so the statement is the
# handler of TypeError alone; what its value raises first, on some examples, that this
# handler does not catch must still raise: computed where the engine can tell it raises
# nothing else (a helper of ufuncs and arithmetic on the arrays of 0 or 1 element a NumPy
# scalar's item at a bool is), refused, located, where it cannot (these returned the
# handler's value on every example, where numpy.vectorize and the loop raise).
def _checked(v):
    if v > 10.0:                # (an array of 0 or 1 element here: ValueError if empty)
        raise ValueError("too big")
    return v * 2.0


def into_number_checked(x):
    i = x > 1.0
    y = x + 1.0
    try:
        y[i] = _checked(x[i])
    except TypeError:
        if i:
            y = 0.0
    return y


def _limited(v):
    if v > 1.0:
        raise ValueError("big")
    return v


def into_number_limited(x):
    v = 1.0
    try:
        v[0] = _limited(x)      # (ValueError where x > 1, before the write's TypeError)
    except TypeError:
        v = -1.0
    return v


def into_number_root(x):
    v = 1.0
    try:
        v[0] = math.sqrt(x)     # (ValueError where x < 0, not caught)
    except TypeError:
        v = -1.0
    return v


@pytest.mark.parametrize("f", [into_number_checked, into_number_limited, into_number_root])
def test_a_value_that_may_raise_before_the_write_is_refused(f):
    x = np.array([0.5, 2.0, 30.0, -1.0])
    assert _outcome(lambda: np.vectorize(f)(x))[1] is not None     # (the reference raises)
    for make in (lambda: vectorize(f, fallback="error"), lambda: vmap(f)):
        with pytest.raises(VectorizeError) as info:
            make()(x)
        assert "test_refuse34.py:" in str(info.value)


def _scaled(v, k=2.0, deg=False):
    if deg:
        v = v * 0.017453292519943295
    return np.sin(v) * k + abs(v) ** 2 - 1.5


def into_number_scaled(x):
    i = x > 1.0
    y = x + 1.0
    try:
        y[i] = _scaled(x[i], deg=False) * 3.0   # (arrays' arithmetic and ufuncs: nothing)
    except TypeError:
        if i:
            y = _scaled(x)
    return y


@pytest.mark.parametrize("n", [0, 1, 5])
def test_a_helper_of_ufuncs_on_the_items_takes_the_handler(n):
    for x in (np.array([0.5, 2.0, 30.0, -1.0, 1.5])[:n], np.full(n, 3.0), np.zeros(n)):
        _check(into_number_scaled, x)
        if n:
            _check_vmap(into_number_scaled, x)


# ------------- pymap3d's loxodrome shape: a helper on those items, an object of constants
class _Spheroid:
    models = {"unit": (2.0, 1.5)}

    def __init__(self, a, b):
        self.a = a
        self.b = b

    @classmethod
    def named(cls, name):
        a, b = cls.models[name]
        return cls(a, b)


def _radius(lat, ell=None, deg=True):
    if ell is None:
        ell = _Spheroid.named("unit")       # (made once, of literals: the same object)
    if deg:
        lat = np.radians(lat)
    return ell.a / np.sqrt(1.0 - (ell.b * np.sin(lat) / 4.0) ** 2)


def _departure(lon1, lon2, lat, ell=None, deg=True):
    if deg:
        lon1, lon2, lat = np.radians(lon1), np.radians(lon2), np.radians(lat)
    return _radius(lat, ell=ell, deg=False) * (abs(lon2 - lon1) % np.pi)


def loxodrome_like(lat, lon1, lon2, ell=None):
    i = abs(np.cos(lat)) < 0.5
    dist = lat * 2.0 + 1.0
    try:
        dist[i] = _departure(lon2[i], lon1[i], lat[i], ell, deg=False)
    except (AttributeError, TypeError):
        if i:
            dist = _departure(lon2, lon1, lat, ell, deg=False)
    return dist


@pytest.mark.parametrize("n", [0, 1, 5])
def test_a_helper_with_an_object_of_constants_on_the_items(n):
    lat = np.array([0.2, 1.4, -1.3, 0.0, 1.2])[:n]
    lon = np.array([0.5, -2.0, 3.0, 1.0, -0.7])[:n]
    for la in (lat, np.full(n, 1.5), np.zeros(n)):
        _check(loxodrome_like, la, lon, lon[::-1].copy())
        if n:
            _check_vmap(loxodrome_like, la, lon, lon[::-1].copy())


# ----------- pymap3d's ecef2geodetic shape: 0-d arrays (`np.asarray` of a number per
# example, `np.empty_like` of one) written by a per-example mask, inside `try: ... except
# NameError:` whose handler binds the same name for code without NumPy (never taken), and
# the sign fix-up `alt[inside] = -alt[inside]` of a NumPy scalar made of 0-d arrays (every
# example raises TypeError at the write and takes the handler)
def geodetic_like(x, z):
    try:
        x = np.asarray(x)
        z = np.asarray(z)
    except NameError:
        pass
    u = np.hypot(x, 1.5)
    try:
        beta = np.empty_like(u)
        ibad = np.isclose(x, 0) | np.isclose(z, 0)
        beta[~ibad] = np.arctan(z[~ibad] / x[~ibad] * u[~ibad])
        beta[~ibad] += np.sin(beta[~ibad]) / 8.0
        beta[ibad] = 0.5
    except NameError:
        beta = math.atan(z / x * u) if x and z else 0.5
    cos_beta = np.cos(beta)
    try:
        lim = math.pi / 2 - np.finfo(beta.dtype).eps
        cos_beta = np.where(beta >= lim, 0, cos_beta)
    except NameError:
        pass
    alt = np.hypot(z - np.sin(beta), x - cos_beta)
    inside = x ** 2 / 4.0 + z ** 2 < 1
    try:
        if inside.any():
            alt[inside] = -alt[inside]
    except (TypeError, AttributeError):
        if inside:
            alt = -alt
    return alt


def folded(lon1, lon2):
    big = abs(lon2 - lon1) % (2 * math.pi)
    try:
        big[big > math.pi] = 2 * math.pi - big[big > math.pi]
    except TypeError:
        if big > math.pi:
            big = 2 * math.pi - big
    return big


@pytest.mark.parametrize("n", [0, 1, 5])
def test_masked_writes_of_0d_arrays_and_a_sign_fix_up(n):
    x = np.array([0.5, 0.0, -3.0, 1.2, 2.5])[:n]
    z = np.array([0.2, 1.0, 0.0, -0.4, 3.0])[:n]
    for a, b in ((x, z), (z, x), (np.zeros(n), z), (x + 5.0, z)):
        _check(geodetic_like, a, b)
        _check(folded, a, 3.0 * b)
        if n:
            _check_vmap(geodetic_like, a, b)
            _check_vmap(folded, a, 3.0 * b)
