"""`vmap` against the loop over NumPy scalars where NumPy itself raises per example, and
where it does not: ``np.arange(a, b, s)`` with a per-example step of 0 raises NumPy's
``ValueError`` in the loop (the padded range of a reduction was an empty range: a silent 0
before), unless the step is kept out by a per-example condition; ``abs`` of a per-example
complex number is its modulus, NaN and inf parts included."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vectorize import vmap


def range_sum(a, b, s):
    return np.sum(np.arange(a, b, s))


def guarded_range(n, s):
    if s != 0:
        return np.sum(np.arange(0, n, s) * 2.0)
    return -1.0


def modulus(z):
    return abs(z) + 1.0


def modulus_of_made(x):
    z = x * 1j + 2.0
    return abs(z)


def _loop(f, *args):
    if not len(args[0]):
        return None
    return np.stack([np.asarray(f(*a)) for a in zip(*args)])


def _same_as_loop(f, *args):
    try:
        with np.errstate(all="ignore"):
            want = _loop(f, *args)
    except Exception as exc:       # noqa: BLE001 -- the loop's exception is the reference
        with pytest.raises(type(exc)):     # (NumPy words it by the range: either message)
            vmap(f)(*args)
        return
    got = vmap(f)(*args)
    if want is None:
        assert got.shape == (0,)
        return
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("n", [0, 1, 5, 10_000])
def test_a_zero_step_raises_as_the_loop(n):
    rng = np.random.default_rng(n)
    a, b = rng.integers(-10, 10, n), rng.integers(-10, 30, n)
    s = rng.choice([-3, -1, 1, 2, 5], n)
    _same_as_loop(range_sum, a, b, s)          # no zero step: the sums
    if n:
        s[n // 2] = 0
        _same_as_loop(range_sum, a, b, s)      # one: ValueError, as the loop
        _same_as_loop(guarded_range, b, s)     # kept out by `if s != 0`: no error


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(-20, 20), st.integers(-20, 20), st.integers(-3, 3)),
                min_size=1, max_size=6))
def test_ranges_hypothesis(rows):
    a, b, s = (np.array(c, dtype=np.int64) for c in zip(*rows))
    _same_as_loop(range_sum, a, b, s)


COMPLEX = [3 + 4j, 1j, -2.0 + 0j, complex(np.nan, 1), complex(np.inf, np.nan), -0.0 - 0.0j]


@pytest.mark.parametrize("n", [0, 1, 5, 10_000])
def test_abs_of_a_per_example_complex(n):
    z = np.resize(np.array(COMPLEX), n)
    _same_as_loop(modulus, z)
    _same_as_loop(modulus_of_made, np.resize(np.array([1.0, -2.0, 0.0, np.inf, np.nan]), n))
