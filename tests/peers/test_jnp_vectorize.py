"""JAX's tests of ``jnp.vectorize`` (``tests/lax_numpy_vectorize_test.py``, VectorizeTest),
ported as differential tests against ``numpy.vectorize`` (`vectorize_reference.outcome`):
``jnp`` is written ``np``, and where JAX vectorizes a library function (``jnp.dot``,
``jnp.mean``) the case runs it as it is (ours has no source to read: the function the
registry has a rule for is vectorized as the call of that rule) and as a ``def`` that calls
it (both must really vectorize). The reference is numpy.vectorize
where JAX's behaviour differs, but for one documented divergence: without a signature an
array per example is stacked, as jnp.vectorize stacks it, where numpy.vectorize raises
(`test_non_scalar_outputs_and_default_signature`). ``REFUSED`` lists the cases refused
with ``fallback="error"``; every other case must pass.

Not ported: JAX's rank-promotion warnings and ``jax.jit`` (no such machinery here), and the
error messages particular to jnp.vectorize (``excluded`` checks are numpy.vectorize's).
"""

from __future__ import annotations

import functools
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vectorize_reference import case_table, outcome, report  # noqa: E402

from vectorize import vectorize  # noqa: E402

CASES, case = case_table()


def dot(a, b):
    return np.dot(a, b)


def mean(a):
    return np.mean(a)


MATMAT = [((2, 3), (3, 4)), ((2, 3), (1, 3, 4)), ((1, 2, 3), (1, 3, 4)), ((5, 2, 3), (1, 3, 4)),
          ((6, 5, 2, 3), (3, 4))]
MATVEC = [((2, 3), (3,)), ((2, 3), (1, 3)), ((4, 2, 3), (1, 3)), ((5, 4, 2, 3), (1, 3))]
VECVEC = [((3,), (3,)), ((2, 3), (3,)), ((4, 2, 3), (3,))]


def normal(*shapes):
    """Operands drawn afresh for each run of a case (the same for the reference and ours)."""
    r = np.random.default_rng(7)
    return [r.normal(size=shape) for shape in shapes]


for _name, _sig, _shapes in (("test_matmat", "(n,m),(m,k)->(n,k)", MATMAT),
                             ("test_matvec", "(n,m),(m)->(n)", MATVEC),
                             ("test_vecmat", "(m),(m)->()", VECVEC)):
    for _a, _b in _shapes:
        @case(f"{_name}[{_a},{_b}]")
        def _(vec, sig=_sig, a=_a, b=_b):
            # (the zeros of JAX's test give every product 0: random operands say more)
            return vec(dot, signature=sig)(*normal(a, b))

    @case(f"{_name}[np.dot]")
    def _(vec, sig=_sig, shapes=_shapes):
        f = vec(np.dot, signature=sig)
        return [f(np.zeros(a), np.zeros(b)) for a, b in shapes]


for _shape in [(3,), (2, 3), (1, 2, 3)]:
    @case(f"test_magnitude[{_shape}]")
    def _(vec, shape=_shape):
        inputs = np.arange(int(np.prod(shape))).reshape(shape)

        @functools.partial(vec, signature='(n)->()')
        def magnitude(x):
            return np.dot(x, x)
        return magnitude(inputs)


for _shape in [(3,), (2, 3), (1, 2, 3, 4)]:
    @case(f"test_mean[{_shape}]")
    def _(vec, shape=_shape):
        return vec(mean, signature='(n)->()')(*normal(shape))

    @case(f"test_mean[np.mean, {_shape}]")
    def _(vec, shape=_shape):
        return vec(np.mean, signature='(n)->()')(np.zeros(shape))


for _shape in [(), (3,)]:
    @case(f"test_stack_plus_minus[{_shape}]")
    def _(vec, shape=_shape):
        @functools.partial(vec, signature='()->(n)')
        def stack_plus_minus(x):
            return np.stack([x, -x])
        return stack_plus_minus(*normal(shape))


@case("test_center")
def _(vec):
    @functools.partial(vec, signature='(n)->(),(n)')
    def center(array):
        bias = np.mean(array)
        debiased = array - bias
        return bias, debiased
    return center(np.arange(3.0)), center(np.arange(6.0).reshape(2, 3))


@case("test_center[ints]")
def _(vec):
    @functools.partial(vec, signature='(n)->(),(n)')
    def center(array):
        bias = np.mean(array)
        debiased = array - bias
        return bias, debiased
    return center(np.arange(3)), center(np.arange(6).reshape(2, 3))


@case("test_exclude_first")
def _(vec):
    # numpy.vectorize hands the function Python ints, which have no `.ndim`: AttributeError
    @functools.partial(vec, excluded={0})
    def f(x, y):
        assert x == 'foo'
        assert y.ndim == 0
        return y
    return f('foo', np.arange(3))


@case("test_exclude_first[np.ndim]")
def _(vec):
    @functools.partial(vec, excluded={0})
    def f(x, y):
        assert x == 'foo'
        assert np.ndim(y) == 0
        return y
    return f('foo', np.arange(3))


@case("test_exclude_second")
def _(vec):
    @functools.partial(vec, excluded={1})
    def f(x, y):
        assert np.ndim(x) == 0
        assert y == 'foo'
        return x
    return f(np.arange(3), 'foo')


@case("test_exclude_kwargs")
def _(vec):
    @functools.partial(vec, excluded=(2, 'func'))
    def f(x, y, func=np.add):
        assert np.ndim(x) == np.ndim(y) == 0
        return func(x, y)
    x = np.arange(4, dtype='int32')
    y = np.int32(2)
    return f(x, y), f(x, y, np.power), f(x, y, func=np.power)


@case("test_bad_inputs[few positional]")
def _(vec):
    return vec(dot, signature='(n,m),(m,k)->(n,k)')(np.zeros((3, 2)))


@case("test_bad_inputs[not enough dimensions]")
def _(vec):
    return vec(dot, signature='(n,m),(m,k)->(n,k)')(np.zeros((2,)), np.zeros((2, 2)))


@case("test_bad_inputs[inconsistent core size]")
def _(vec):
    return vec(dot, signature='(n,m),(m,k)->(n,k)')(np.zeros((2, 3)), np.zeros((4, 5)))


@case("test_wrong_output_type")
def _(vec):
    return vec(dot, signature='(n,m),(m,k)->(n,k),()')(np.zeros((2, 2)), np.zeros((2, 2)))


@case("test_wrong_num_outputs")
def _(vec):
    return vec(lambda *args: args, signature='(),()->(),(),()')(1, 2)


@case("test_wrong_output_shape")
def _(vec):
    return vec(dot, signature='(n,m),(m,k)->(n)')(np.zeros((2, 2)), np.zeros((2, 2)))


@case("test_inconsistent_output_size")
def _(vec):
    return vec(dot, signature='(n,m),(m,k)->(n,n)')(np.zeros((2, 3)), np.zeros((3, 4)))


@case("test_expand_dims_multiple_outputs_no_signature")
def _(vec):
    f = vec(lambda x: (x, x))
    return f(np.arange(1)), f(np.arange(4.0)), f(2.5)


@case("test_none_arg")
def _(vec):
    f = vec(lambda x, y: x if y is None else x + y)
    x = np.arange(10)
    return f(x, None), f(x, np.arange(10, 20))


@case("test_none_arg_bad_signature")
def _(vec):
    f = vec(lambda x, y: x if y is None else x + y, signature='(k),(k)->(k)')
    return f(np.arange(10), None)


@case("test_rank_promotion[broadcast]")
def _(vec):
    # JAX's rank-promotion check aside, the broadcast results
    def add(x, y):
        return x + y
    f = vec(add, signature="(),()->()")
    rank2, rank1, rank0 = normal((10, 10), 10, ())
    f2 = vec(add, signature="(n),()->(n)")
    return f(rank2, rank1), f(rank2, rank0), f(rank1, rank0), f2(rank2, rank1)


REFUSED = {
}


@pytest.mark.parametrize("name", list(CASES))
def test_jnp_vectorize_case(name):
    assert outcome(CASES[name]) == ("refused" if name in REFUSED else "pass")


def plus_linspace(x):
    return x + np.linspace(-1, 1, 5)


@pytest.mark.parametrize("x", [np.ones(3), 0.5, np.arange(6.0).reshape(2, 3)])
def test_non_scalar_outputs_and_default_signature(x):
    # JAX's test: without a signature an array per example is stacked after the loop
    # dimensions. numpy.vectorize raises ValueError storing a sequence; ours stacks the
    # arrays as jnp.vectorize does (the documented divergence: docs/semantics.md, "otypes=,
    # excluded= and functools.partial")
    with pytest.raises(ValueError, match="sequence"):
        np.vectorize(plus_linspace)(x)
    got = vectorize(plus_linspace, fallback="error")(x)
    expected = np.array([plus_linspace(v) for v in np.ravel(x)]).reshape(np.shape(x) + (5,))
    assert got.shape == np.shape(x) + (5,) and got.dtype == expected.dtype
    np.testing.assert_allclose(got, expected, rtol=1e-12)


if __name__ == "__main__":
    report(CASES, width=300)
