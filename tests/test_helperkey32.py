"""A helper's specialization is shared by the calls with the same abstract arguments: the key
(`transform.abstract_key`) must hold every fact the helper's generated code depends on. A
value that is a Python int on some lanes and a float on others (``int(a) if c > 0 else
a * 1.0``) gets checks inside the helper (the sign of a zero result, a zero divisor of
``np.mod``) that a float argument of the same dtype does not: a call site with float lanes
only must not lend its specialization, without those checks, to a call site with int lanes.
`vectorize` against numpy.vectorize (values, dtype, the sign of zeros)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from vectorize import vectorize
from vectorize.transform import abstract_key


def _neg(r):
    return -r


def _float_site_first(a, c):
    x = _neg(a * 1.0)                   # float lanes only: no check in `_neg`
    r = int(a) if c > 0 else a * 1.0
    y = _neg(r)                         # int lanes: -0 is 0 there, the batch's -0.0
    return math.copysign(1.0, y) + x


def _inner(r):
    return -r


def _outer(r):
    return _inner(r) * 1.0


def _nested_float_site_first(a, c):
    x = _outer(a * 0.5)
    r = int(a) if c > 0 else a * 1.0
    return math.copysign(1.0, _outer(r)) + x


def _mod(r, k):
    return np.mod(r, k)


def _mod_float_site_first(a, c, k):
    x = _mod(a * 1.0, k)
    r = int(a) if c > 0 else a * 1.0
    return _mod(r, k) + x * 0


def _mixed_site_first(a, c):
    r = int(a) if c > 0 else a * 1.0
    y = _neg(r)
    x = _neg(a * 1.0)
    return math.copysign(1.0, y) + x


A = np.array([0.0, -0.0, 1.0, 0.5, -0.5, 2.0, -3.0])
C = np.array([1.0, 1.0, -1.0, 1.0, 1.0, -1.0, 1.0])
K = np.array([0, 2, 0, 1, -1, 0, 3])


def _same_bits(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got, want)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("f, args", [
    (_float_site_first, (A, C)),
    (_nested_float_site_first, (A, C)),
    (_mod_float_site_first, (A, C, K)),
    (_mixed_site_first, (A, C)),
], ids=lambda x: getattr(x, "__name__", ""))
def test_vectorize_as_numpy_vectorize(f, args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        want = np.vectorize(f)(*args)
        got = vectorize(f, fallback="error")(*args)
    _same_bits(got, want)


def test_key_tells_lane_types_apart():
    # (the int lanes' key differs from the float one's; two floats share one)
    from vectorize.abstract import MIXED_KINDS, MIXED_PARTS, batched_like
    plain = batched_like(np.float64(1.0))
    mixed = batched_like(np.float64(1.0))
    MIXED_KINDS.add(mixed)
    MIXED_PARTS[mixed] = (1, np.float64(1.0))
    assert abstract_key(plain) != abstract_key(mixed)
    assert abstract_key(plain) == abstract_key(batched_like(np.float64(2.0)))
