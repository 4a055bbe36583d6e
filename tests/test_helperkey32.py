"""A helper's specialization is shared by the calls with the same abstract arguments: the key
(`transform.abstract_key`) must hold every fact the helper's generated code depends on. A
value that is a Python int on some lanes and a float on others (``int(a) if c > 0 else
a * 1.0``) gets checks inside the helper (the sign of a zero result, a zero divisor of
``np.mod``) that a float argument of the same dtype does not: a call site with float lanes
only must not lend its specialization, without those checks, to a call site with int lanes.
`vectorize` against numpy.vectorize (values, dtype, the sign of zeros)."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest

from vectorize import VectorizeError, vectorize, vmap
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


def _loop(f, *args):
    return np.stack([np.asarray(f(*row)) for row in zip(*args)])


def _fmod(r):
    return np.fmod(r, 2)


def _fmod_site(a, c):
    r = int(a) if c > 0 else a * 1.0
    return math.copysign(1.0, _fmod(r))


def _negated_if(r, a):
    if a > 1:
        return -r
    return r


def _helper_under_condition(a, c):
    r = int(a) if c > 0 else a * 1.0
    if c > 0:
        return math.copysign(1.0, _negated_if(r, a))
    return 2.0


@pytest.mark.parametrize("backend", ["numpy", "torch"])
@pytest.mark.parametrize("f", [_float_site_first, _nested_float_site_first,
                               _mixed_site_first, _helper_under_condition],
                         ids=lambda f: f.__name__)
def test_vmap_helper_signed_zero_as_the_loop(backend, f):
    # the helper's signed-zero operation is checked there (the loop decides where an int
    # lane's result is 0): computed, where it was refused
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        want = _loop(f, A, C)
        if backend == "numpy":
            got = vmap(f)(A, C)
        else:
            torch = pytest.importorskip("torch")
            got = vmap(f, backend="torch")(torch.tensor(A), torch.tensor(C)).numpy()
    _same_bits(got, want)


def test_vmap_numpy_helper_fmod():
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        _same_bits(vmap(_fmod_site)(A, C), _loop(_fmod_site, A, C))


def test_vmap_jax_helper_still_refused_located():
    pytest.importorskip("jax")
    with pytest.raises(VectorizeError, match=r"test_helperkey32\.py:\d+:\d+"):
        vmap(_float_site_first, backend="jax")(A, C)


def _int64_lanes_float_site_first(x, y, c):
    z = _neg(y * 1.0)
    r = x if c > 0 else y           # an int64 on some lanes: -0 is 0 there
    return math.copysign(1.0, _neg(r)) + z


def test_vmap_int64_lanes_not_lent_the_float_specialization():
    # (the float call site's `_neg` has no check; the int64 lanes' must not reuse it:
    # computed as the loop, or refused located as in the function itself)
    x, y = np.array([0, 3, 0, 2]), np.array([1.5, 0.0, -0.0, 2.0])
    c = np.array([1.0, 1.0, -1.0, -1.0])
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        want = _loop(_int64_lanes_float_site_first, x, y, c)
        try:
            got = vmap(_int64_lanes_float_site_first)(x, y, c)
        except VectorizeError as exc:
            assert re.search(r"test_helperkey32\.py:\d+:\d+", str(exc)), exc
            return
    _same_bits(got, want)
