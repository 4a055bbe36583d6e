"""The most frequent refusals of the real-package corpus, in the shape of the real functions
(written here, not copied): `vectorize` against numpy.vectorize itself (values, dtype,
exception type), `vmap` against the per-example loop over NumPy scalars, at N = 0, 1, 5,
on inputs where some, all or none of the examples take each path.

- ``getattr(obj, name)`` with a name the same on every run of its line (a literal, a
  parameter of the helper, a free name) is the attribute ``obj.<name>``; a bound method of a
  per-example record taken into a local (``f = getattr(self.leg, name)``) and only called
  afterwards is the call of the method (blackscholes' option structures: ``_calc_attr``).
- What cannot be proven stays refused, located, with a suggestion.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest
from differential import assert_values_equal, outcome

from vectorize import VectorizeError, vectorize, vmap

SIZES = (0, 1, 5)


def _both(f, *args):
    """vectorize(f) against numpy.vectorize(f) (the same exception type, or the same dtype
    and values to 1e-12: math.erf and the batch's erf differ in the last ulp), and vmap(f)
    against the loop over NumPy scalars on the examples where it returns; N = 0, 1, 5."""
    ours, mapped = vectorize(f, fallback="error"), vmap(f)
    for n in SIZES:
        part = tuple(a[:n] for a in args)
        options = {} if n else {"otypes": [np.float64]}
        want, exc = outcome(lambda part=part, options=options: np.vectorize(f, **options)(
            *part))
        got, got_exc = outcome(lambda part=part: ours(*part))
        if isinstance(got_exc, VectorizeError):
            raise got_exc
        assert type(got_exc) is type(exc), (n, got_exc, exc)
        if exc is None:
            assert got.dtype == want.dtype and got.shape == want.shape, (got, want)
            assert_values_equal(got, want)
        rows = []
        for example in zip(*part):
            row, row_exc = outcome(lambda example=example: f(*example))
            if row_exc is None:
                rows.append((example, row))
        if rows:
            kept = tuple(np.array([e[k] for e, _ in rows]) for k in range(len(part)))
            got, got_exc = outcome(lambda kept=kept: mapped(*kept))
            if isinstance(got_exc, VectorizeError):
                raise got_exc
            assert got_exc is None, got_exc
            assert_values_equal(got, np.stack([np.asarray(r) for _, r in rows]))


# ------------------------------------------------ option legs combined by attribute name
class _Normal:
    @staticmethod
    def _cdf(x):
        return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))

    @staticmethod
    def _pdf(x):
        return math.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


class _Leg(_Normal):
    def __init__(self, s, k, t, sigma):
        assert s > 0.0, f"the price must be positive, got {s}"
        assert t > 0.0, f"the time must be positive, got {t}"
        self.s = s
        self.k = k
        self.t = t
        self.sigma = sigma

    @property
    def _d1(self):
        return (math.log(self.s / self.k) + 0.5 * self.sigma ** 2 * self.t) / (
            self.sigma * math.sqrt(self.t))

    @property
    def _d2(self):
        return self._d1 - self.sigma * math.sqrt(self.t)

    def vega(self):
        return self.s * self._pdf(self._d1) * math.sqrt(self.t)


class _Call(_Leg):
    def price(self):
        return self.s * self._cdf(self._d1) - self.k * self._cdf(self._d2)

    def delta(self):
        return self._cdf(self._d1)


class _Put(_Leg):
    def price(self):
        return self.k * self._cdf(-self._d2) - self.s * self._cdf(-self._d1)

    def delta(self):
        return self._cdf(self._d1) - 1.0


class _Structure:
    def price(self):
        return self._calc_attr(attribute_name="price")

    def delta(self):
        return self._calc_attr(attribute_name="delta")

    def vega(self):
        return self._calc_attr("vega")


class _Straddle(_Structure):
    def __init__(self, s, k, t, sigma):
        self.call1 = _Call(s=s, k=k, t=t, sigma=sigma)
        self.put1 = _Put(s=s, k=k, t=t, sigma=sigma)

    def _calc_attr(self, attribute_name):
        put_attr = getattr(self.put1, attribute_name)
        call_attr = getattr(self.call1, attribute_name)
        return put_attr() + call_attr()


class _Spread(_Structure):
    def __init__(self, s, k1, k2, t, sigma):
        self.low = _Call(s, k1, t, sigma)
        self.high = _Call(s, k2, t, sigma)

    def _calc_attr(self, attribute_name):
        return getattr(self.low, attribute_name)() - getattr(self.high, attribute_name)()


def _inputs(n=5):
    s = np.array([100.0, 80.0, 120.0, 3.5, 100.0])[:n]
    k = np.array([100.0, 100.0, 90.0, 4.0, 150.0])[:n]
    t = np.array([1.0, 0.25, 2.0, 0.01, 5.0])[:n]
    sigma = np.array([0.2, 0.5, 0.1, 1.5, 0.3])[:n]
    return s, k, t, sigma


@pytest.mark.parametrize("method", ["price", "delta", "vega"])
def test_straddle_combines_legs_by_attribute_name(method):
    def greek(s, k, t, sigma):
        return getattr(_Straddle(s, k, t, sigma), method)()
    _both(greek, *_inputs())


@pytest.mark.parametrize("method", ["price", "delta"])
def test_spread_calls_getattr_result_directly(method):
    def greek(s, k, t, sigma):
        return getattr(_Spread(s, k, 1.25 * k, t, sigma), method)()
    _both(greek, *_inputs())


def test_straddle_assert_fires_on_some_examples():
    def price(s, k, t, sigma):
        return _Straddle(s, k, t, sigma).price()
    s, k, t, sigma = _inputs()
    bad_t = np.array([1.0, 0.0, 2.0, -1.0, 0.5])
    _both(price, s, k, bad_t, sigma)
    _both(price, s, k, np.zeros(5), sigma)


# --------------------------------------------------- fields and methods named by strings
@dataclass
class _Point:
    x: float
    y: float

    def norm(self):
        return math.hypot(self.x, self.y)


def test_getattr_of_a_field_by_a_literal_name():
    def f(a, b):
        p = _Point(a, 2.0 * b)
        return getattr(p, "y") - getattr(p, "x")  # noqa: B009 (the construct tested)
    _both(f, np.array([1.0, -2.0, 3.5, 0.0, 7.0]), np.array([0.5, 1.0, -1.0, 2.0, 0.0]))


def test_getattr_name_is_a_shared_argument():
    def f(a, b, which):
        p = _Point(a, b)
        return getattr(p, which)

    def g(a, b, which):
        return getattr(_Point(a, b), which)()
    a, b = np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 4.0])
    ours = vectorize(f, excluded={2}, fallback="error")
    for which in ("x", "y", "x"):   # one vectorize object, a specialization per name
        want = np.vectorize(f, excluded={2})(a, b, which)
        got = ours(a, b, which)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
        loop = np.stack([f(x, y, which) for x, y in zip(a, b)])
        np.testing.assert_array_equal(vmap(f, in_axes=(0, 0, None))(a, b, which), loop)
    want = np.vectorize(g, excluded={2})(a, b, "norm")
    np.testing.assert_array_equal(vectorize(g, excluded={2}, fallback="error")(
        a, b, "norm"), want)


_WHICH = "y"


def test_getattr_name_is_a_global():
    def f(a, b):
        return getattr(_Point(a, b), _WHICH) * 2.0
    _both(f, np.array([1.0, 2.0, 3.0]), np.array([0.5, -1.0, 4.0]))


# ------------------------------------------------------------- refused, located
def test_getattr_by_a_loop_variable_is_refused_located():
    def f(a, b):
        p = _Point(a, b)
        total = 0.0
        for name in ("x", "y"):
            total += getattr(p, name)
        return total
    a, b = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    with pytest.raises(VectorizeError, match=r"test_refusals35\.py:\d+:\d+: `getattr` .*"
                       r"not a string the same on every run") as info:
        vectorize(f, fallback="error")(a, b)
    assert "suggestion" in str(info.value)
    with pytest.warns(Warning):         # the default: warned, per example, correct
        np.testing.assert_array_equal(vectorize(f)(a, b), np.vectorize(f)(a, b))


def test_method_alias_handed_on_is_refused_located():
    def apply(fn):
        return fn()

    def f(a, b):
        p = _Point(a, b)
        m = p.norm
        return apply(m)
    a, b = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    with pytest.raises(VectorizeError, match=r"test_refusals35\.py:\d+:\d+: the method "
                       r"`\.norm` of a per-example record read without calling it"):
        vectorize(f, fallback="error")(a, b)


def test_method_alias_after_the_record_is_rebound_is_refused():
    def f(a, b):
        p = _Point(a, b)
        m = p.norm
        p = _Point(b, a + 1.0)
        return m() + p.x
    a, b = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    with pytest.raises(VectorizeError, match="read without calling it"):
        vectorize(f, fallback="error")(a, b)


# ------------------------------------- classes whose instances the engine does not model
class _Named(float):
    def __new__(cls, arg, name="value"):
        self = float.__new__(cls, arg)
        self.name = name
        return self


class _Made:
    def __new__(cls, x):
        self = object.__new__(cls)
        self.x = x
        return self


def test_float_subclass_is_refused_with_its_reason_and_a_fix():
    def f(a):
        return _Named(a) * 2.0
    with pytest.raises(VectorizeError, match=r"test_refusals35\.py:\d+:\d+: `_Named` is a "
                       r"class .*: it subclasses the built-in `float`(.|\n)*suggestion: compute "
                       r"with the number itself \(`float\(\.\.\.\)`\)"):
        vectorize(f, fallback="error")(np.array([1.0, 2.0]))
    with pytest.raises(VectorizeError, match="subclasses the built-in `float`"):
        vmap(f)(np.array([1.0, 2.0]))


def test_class_with_its_own_new_is_refused_with_its_reason():
    def f(a):
        return _Made(a).x + 1.0
    with pytest.raises(VectorizeError, match=r"`_Made` makes its instances in `__new__`"
                       r"(.|\n)*suggestion: make it a @dataclass"):
        vectorize(f, fallback="error")(np.array([1.0, 2.0]))


# ------------------------------------ a per-example choice between two dicts of constants
def _dew_point_call_form(t, rh):
    constants = dict(
        positive=dict(b=17.368, c=238.88),
        negative=dict(b=17.966, c=247.15),
    )
    if rh < 1 or rh > 100:
        raise ValueError(f"humidity out of range: {rh}")
    const = constants["positive"] if t > 0 else constants["negative"]
    pa = rh / 100.0 * math.exp(const["b"] * t / (const["c"] + t))
    return const["c"] * math.log(pa) / (const["b"] - math.log(pa))


def _dew_point_literal_form(t, rh):
    table = {"positive": {"b": 17.368, "c": 238.88}, "negative": {"b": 17.966, "c": 247.15}}
    const = table["positive"] if t > 0.0 and rh > 0.0 else table["negative"]
    return const["b"] * t / (const["c"] + t) + rh


_POSITIVE = {"scale": 2.0, "shift": 1}
_NEGATIVE = {"scale": -0.5, "shift": 3}


def _module_tables(x):
    k = _POSITIVE if x >= 0 else _NEGATIVE
    return k["scale"] * x + k["shift"]


@pytest.mark.parametrize("f", [_dew_point_call_form, _dew_point_literal_form, ])
def test_choice_between_two_dicts_of_constants(f):
    t = np.array([12.5, -3.0, 0.0, 35.0, -0.0])
    rh = np.array([40.0, 80.0, 55.0, 100.0, 1.0])
    _both(f, t, rh)                         # some lanes each way
    _both(f, np.abs(t) + 1.0, rh)           # all positive
    _both(f, -np.abs(t) - 1.0, rh)          # all negative
    _both(f, t, np.array([40.0, 0.5, 55.0, 101.0, 1.0]))    # ValueError on some lanes


def test_choice_between_two_module_dicts():
    _both(_module_tables, np.array([1.5, -2.0, 0.0, -0.0, 7.0]))


def test_choice_between_dicts_of_other_keys_is_refused_located():
    other = {"scale": 1.0}

    def f(x):
        k = _POSITIVE if x >= 0 else other
        return k["scale"] * x
    with pytest.raises(VectorizeError, match=r"test_refusals35\.py:\d+:\d+: the conditional "
                       r"expression gives values of kinds that do not mix"):
        vectorize(f, fallback="error")(np.array([1.0, -1.0]))


_UP = {"scale": 2.0, "shift": 1.0}
_DOWN = {"scale": -0.5, "shift": 3.0}


def _live_tables(x):
    k = _UP if x >= 0 else _DOWN
    return k["scale"] * x + k["shift"]


def test_choice_between_module_dicts_follows_their_items():
    x = np.array([1.5, -2.0, 0.0, 4.0])
    ours = vectorize(_live_tables, fallback="error")
    np.testing.assert_array_equal(ours(x), np.vectorize(_live_tables)(x))
    try:
        _UP["scale"] = 10.0                  # a new value: read when the code runs
        np.testing.assert_array_equal(ours(x), np.vectorize(_live_tables)(x))
        del _DOWN["shift"]      # keys that differ: a new specialization, which refuses
        with pytest.raises(VectorizeError, match="do not mix"):
            ours(x)
        want, exc = outcome(lambda: np.vectorize(_live_tables)(x))
        got, got_exc = outcome(lambda: vectorize(_live_tables)(x))     # (per example)
        assert type(got_exc) is type(exc) is KeyError, (got_exc, exc)
    finally:
        _UP["scale"] = 2.0
        _DOWN["shift"] = 3.0
    np.testing.assert_array_equal(ours(x), np.vectorize(_live_tables)(x))


def test_choice_between_dicts_written_into_is_refused_located():
    def writes(x):
        k = _UP if x >= 0 else _DOWN
        k["scale"] = 1.0            # (writes into the module's dict itself)
        return k["shift"] * x

    def identity(x):
        k = _UP if x >= 0 else _DOWN
        return k["shift"] * x if k is _UP else x

    for f in (writes, identity):
        with pytest.raises(VectorizeError, match=r"test_refusals35\.py:\d+:\d+: "):
            vectorize(f, fallback="error")(np.array([1.0, -1.0]))
    assert _UP == {"scale": 2.0, "shift": 1.0}


def test_choice_between_dicts_looked_up_at_once():
    def f(x):
        return (_UP if x > 1.0 else _DOWN)["scale"] * x
    _both(f, np.array([1.5, -2.0, 0.0, 4.0, 1.0]))


# ------------------- a free name that gives getattr its name: rebinding it is seen
_FIELD = "x"


def _field_of(a, b):
    return getattr(_Point(a, b), _FIELD)


def test_getattr_name_of_a_global_rebound():
    global _FIELD
    a, b = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    ours = vectorize(_field_of, fallback="error")
    np.testing.assert_array_equal(ours(a, b), a)
    try:
        _FIELD = "y"
        np.testing.assert_array_equal(ours(a, b), np.vectorize(_field_of)(a, b))
        np.testing.assert_array_equal(ours(a, b), b)
    finally:
        _FIELD = "x"
    np.testing.assert_array_equal(ours(a, b), a)


def test_getattr_name_of_a_closure_rebound():
    def make():
        which = "x"

        def f(a, b):
            return getattr(_Point(a, b), which)

        def switch(name):
            nonlocal which
            which = name
        return f, switch
    f, switch = make()
    a, b = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    ours = vectorize(f, fallback="error")
    np.testing.assert_array_equal(ours(a, b), a)
    switch("y")
    np.testing.assert_array_equal(ours(a, b), b)


# ------------------------------------------ the same choice made by an `if` statement
def _buck_constants(t, rh):
    constants = dict(
        positive=dict(b=17.368, c=238.88),
        cold=dict(b=17.966, c=247.15),
        frozen=dict(b=22.452, c=272.55),
    )
    if t > 0:
        const = constants["positive"]
    elif t > -20.0:
        const = constants["cold"]
    else:
        const = constants["frozen"]
    return rh / 100.0 * math.exp(const["b"] * t / (const["c"] + t))


def _default_then_if(x):
    k = _UP
    if x < 0:
        k = _DOWN
    return k["scale"] * x + k["shift"]


def test_choice_between_dicts_by_if_statements():
    t = np.array([12.5, -3.0, 0.0, -35.0, -0.0, -20.0])
    rh = np.array([40.0, 80.0, 55.0, 100.0, 1.0, 60.0])
    _both(_buck_constants, t, rh)
    _both(_buck_constants, np.full(6, -30.0), rh)
    _both(_default_then_if, np.array([1.5, -2.0, 0.0, -0.0, 7.0]))
    _both(_default_then_if, np.array([1.5, 2.0]))


def test_choice_between_dicts_by_if_statements_refused_where_seen():
    def handed_on(x):
        if x > 0:
            k = _UP
        else:
            k = _DOWN
        return len(k) * x

    def table_written(x):
        table = {"a": {"s": 1.0}, "b": {"s": 2.0}}
        table["b"]["s"] = 3.0
        if x > 0:
            k = table["a"]
        else:
            k = table["b"]
        return k["s"] * x

    def other_keys(x):
        if x > 0:
            k = _UP
        else:
            k = {"scale": 1.0}
        return k["scale"] * x

    for f in (handed_on, other_keys):
        with pytest.raises(VectorizeError, match=r"test_refusals35\.py:\d+:\d+: "):
            vectorize(f, fallback="error")(np.array([1.0, -1.0]))
    x = np.array([1.0, -1.0, 2.0])
    want = np.vectorize(table_written)(x)
    got, exc = outcome(lambda: vectorize(table_written, fallback="error")(x))
    assert isinstance(exc, VectorizeError) or np.array_equal(got, want), (got, exc)
