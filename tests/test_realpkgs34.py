"""Classes of the real-package corpus (blackscholes 0.2.2's shape): an ``abc.ABC`` base with an
empty ``__slots__``, a subclass whose ``__init__`` calls ``super().__init__(...)`` by keyword,
a base ``__init__`` that checks with ``assert`` and binds its fields with one tuple
assignment, and methods that call ``super().name()``; against ``numpy.vectorize`` and the
per-example loop."""

import abc
import warnings
from math import erf, exp, log, sqrt

import numpy as np
import pytest

from vectorize import vectorize, vmap
from vectorize.errors import VectorizeError


class _Base(abc.ABC):
    def __init__(self, S, K, T, sigma):
        assert S > 0.0, f"S needs to be larger than 0. Got '{S}'"
        assert T > 0.0, f"T needs to be larger than 0. Got '{T}'"
        self.S, self.K, self.T, self.sigma = S, K, T, sigma

    @abc.abstractmethod
    def price(self):
        ...

    @staticmethod
    def _cdf(x):
        return (1.0 + erf(x / sqrt(2.0))) / 2.0

    @property
    def _d1(self):
        return (log(self.S / self.K) + 0.5 * self.sigma ** 2 * self.T) / (
            self.sigma * sqrt(self.T))

    def gamma(self):
        return exp(-self._d1 ** 2 / 2.0) / (self.S * self.sigma * sqrt(self.T))


class _Call(_Base):
    def __init__(self, S, K, T, sigma):
        super().__init__(S=S, K=K, T=T, sigma=sigma)

    def price(self):
        return self.S * self._cdf(self._d1) - self.K * self._cdf(
            self._d1 - self.sigma * sqrt(self.T))


class _Put(_Call):
    def gamma(self):
        return -super().gamma()


def call_price(S, K, T, sigma):
    return _Call(S, K, T, sigma).price()


def put_gamma(S, K, T, sigma):
    return _Put(S, K, T, sigma).gamma()


def _args(n, bad=False):
    rng = np.random.default_rng(3)
    s = rng.uniform(-5.0 if bad else 1.0, 200.0, n)
    return s, rng.uniform(50.0, 150.0, n), rng.uniform(0.1, 3.0, n), rng.uniform(0.05, 1.0, n)


@pytest.mark.parametrize("func", [call_price, put_gamma])
def test_super_init_and_tuple_fields_under_vectorize(func):
    args = _args(50)
    got = vectorize(func, fallback="error")(*args)
    want = np.vectorize(func)(*args)
    np.testing.assert_allclose(got, want, rtol=1e-13)
    assert got.dtype == want.dtype


def test_super_init_assert_raises_as_python():
    args = _args(50, bad=True)
    with pytest.raises(AssertionError) as want:
        np.vectorize(call_price)(*args)
    with pytest.raises(AssertionError) as got:
        vectorize(call_price, fallback="error")(*args)
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("n", [0, 7])
def test_super_method_under_vmap(n):
    # `super().gamma()` in a method of a record's class: the batched code ran `super()`
    # outside its class (RuntimeError: a bare crash on an empty batch, the loop with a
    # "may be a bug" warning otherwise)
    args = _args(n)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = vmap(put_gamma)(*args)
    want = np.array([put_gamma(*row) for row in zip(*args)], dtype=float)
    np.testing.assert_allclose(got, want, rtol=1e-13)
    assert got.shape == (n,)


class _Defaulted(_Base):
    def __init__(self, S, K, T):
        super().__init__(S, K, T)       # (a TypeError in Python: `sigma` missing)

    def price(self):
        return self.S


def test_super_init_that_does_not_bind_is_refused():
    def f(S, K, T):
        return _Defaulted(S, K, T).price()
    args = _args(5)[:3]
    with pytest.raises(TypeError):
        np.vectorize(f)(*args)
    with pytest.raises((VectorizeError, TypeError)):
        vectorize(f, fallback="error")(*args)


def test_zero_argument_super_elsewhere_is_refused_with_its_location():
    class Scaled(_Call):
        def price(self):
            parent = super()
            return parent.price() * 2.0

    def f(S, K, T, sigma):
        return Scaled(S, K, T, sigma).price()
    with pytest.raises(VectorizeError, match=r"test_realpkgs34\.py:\d+:\d+: .*super"):
        vectorize(f, fallback="error")(*_args(5))


class _Plain:
    def __init__(self, x):
        self.x = x

    def g(self, k):
        return self.x * k


class _Negated(_Plain):
    def g(self, k):
        return -super().g(k)


def negated(x):
    return _Negated(x).g(2.0)


@pytest.mark.parametrize("n", [0, 6])
def test_super_method_of_a_plain_record_under_vmap(n):
    # the batched code called `super()` outside a class: RuntimeError (bare on an empty
    # batch; elsewhere the loop ran instead, with a "may be a bug" warning)
    x = np.linspace(-3.0, 3.0, n)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = vmap(negated)(x)
    want = np.array([negated(v) for v in x], dtype=float)
    np.testing.assert_array_equal(got, want)
    assert got.shape == (n,)
