"""NumPy idioms of library code written for "a scalar or an array" (refet, pvlib, pymap3d),
found by the real-package corpus (``tests/real_pkgs``), under ``vectorize`` (against
numpy.vectorize) and ``vmap`` (against the per-example loop):

- a ufunc writing into an array the function made, by ``out=`` (``np.reciprocal(e, out=e)``,
  ``np.power(p, 5.26, out=p)``, ``np.add(a, b, y)``): refused before as "a call whose result is
  thrown away", now the write ``e[...] = np.reciprocal(e)`` (`body_sugar.ufunc_out_as_write`);
- ``w.astype(np.float64)`` is a new array the function owns (writes into it were refused as
  "not an array this function created");
- ``np.array(x, copy=True, ndmin=1)`` of a per-example value (refused as "np.array with
  options other than dtype"): per example at least 1-d, on the batch the axes after the
  batch axis;
- ``y[mask] = v`` with a per-example boolean mask of ``y``'s shape, or a per-example boolean
  (``fcd[beta < 0.3] = 1``): refused as a selection with a different number of elements per
  example, now a masked write (``np.copyto(y, v, where=mask)``).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vectorize import vectorize, vmap
from vectorize.errors import VectorizeError

SIZES = (0, 1, 5, 10_000)


# ---------------------------------------------------------------- functions under test
def saturation(t):
    e = np.array(t, copy=True, ndmin=1).astype(np.float64)
    e += 237.3
    np.reciprocal(e, out=e)
    e *= t
    e *= 17.27
    np.exp(e, out=e)
    e *= 0.6108
    return e[0]


def pressure(elev):
    p = np.array(elev, copy=True, ndmin=1).astype(np.float64)
    p *= -0.0065
    p += 293
    p /= 293
    np.power(p, 5.26, out=p)
    p *= 101.3
    return p[0]


def positional_out(x, y):
    acc = np.zeros(3)
    np.add(np.array([x, y, x * y]), 1.0, acc)
    np.multiply(acc, acc, out=(acc,))
    return acc.sum()


def cloudiness(rs, beta):
    f = np.array(rs, copy=True, ndmin=1).astype(np.float64)
    f[beta < 0.3] = 1
    return f[0]


def clipped(x, y):
    v = np.array([x, 2 * x, -x])
    v[v > y] = y
    return v.sum()


def clipped_shared(x):
    v = np.array([x, 2 * x, -x])
    v[v > 1.0] = 1.0
    return v[0] + 10 * v[1] + 100 * v[2]


def copy_written(x):
    w = np.array([x, x + 1.0]).astype(np.float64)
    w[0] = 5.0
    return w[0] * w[1]


def into_argument(x, out):
    np.negative(x, out=out)
    return x


def into_alias(x):
    e = np.array([x, x])
    f = e
    np.negative(e, out=e)
    return f[0]


def raw_array(x):
    return np.array(x, copy=True, ndmin=2)


def _floats(n, lo=-50.0, hi=50.0):
    return st.lists(st.floats(lo, hi, allow_nan=False) | st.sampled_from(
        [0.0, -0.0, float("nan"), float("inf"), -float("inf")]), min_size=n, max_size=n)


def _against_numpy_vectorize(func, *arrays):
    ref_f = np.vectorize(func, otypes="d")     # (N = 0 needs the type)
    with np.errstate(all="ignore"):
        try:
            ref = ref_f(*arrays)
        except Exception as exc:  # noqa: BLE001 - compared by type
            with pytest.raises(type(exc)):
                vectorize(func, fallback="error")(*arrays)
            return
        got = vectorize(func, fallback="error")(*arrays)
    assert got.dtype == ref.dtype and got.shape == ref.shape
    # (last-bit differences of NumPy's sin/cos from math's: docs/semantics.md)
    np.testing.assert_allclose(got, ref, rtol=1e-14, atol=0, equal_nan=True)


def _against_loop(func, *arrays):
    n = len(arrays[0])
    with np.errstate(all="ignore"):
        got = vmap(func)(*arrays)
        ref = np.array([func(*(a[i] for a in arrays)) for i in range(n)])
    if n:
        np.testing.assert_allclose(got, ref, rtol=1e-14, atol=0, equal_nan=True)
    assert got.shape == (n,) + ref.shape[1:]


CASES = [(saturation, 1), (pressure, 1), (positional_out, 2), (cloudiness, 2), (clipped, 2),
         (clipped_shared, 1), (copy_written, 1)]


@pytest.mark.parametrize("func,arity", CASES, ids=[f.__name__ for f, _ in CASES])
@pytest.mark.parametrize("n", SIZES)
def test_idioms_at_batch_sizes(func, arity, n):
    rng = np.random.default_rng(n)
    arrays = [rng.uniform(-2.0, 2.0, n) for _ in range(arity)]
    for _ in range(2):      # warm: the second call runs the cached specialization
        _against_numpy_vectorize(func, *arrays)
    _against_loop(func, *arrays)


@pytest.mark.parametrize("func,arity", CASES, ids=[f.__name__ for f, _ in CASES])
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_idioms_on_drawn_inputs(func, arity, data):
    n = data.draw(st.integers(0, 6))
    arrays = [np.asarray(data.draw(_floats(n)), dtype=float) for _ in range(arity)]
    _against_numpy_vectorize(func, *arrays)
    _against_loop(func, *arrays)


def test_a_shared_value_into_a_masked_write_keeps_the_plain_write():
    # the same number for every example: `v[mask] = y` as written; a per-example one: copyto
    x = np.linspace(-2.0, 2.0, 7)
    assert "v[v > y] = y" in vectorize(clipped).source(x, 0.5)
    source = vectorize(clipped).source(x, x)
    assert "np.copyto(v, y[:, None], where=v > y[:, None]" in source
    assert "np.copyto(f, 1, where=(beta < 0.3)[:, None]" in vectorize(cloudiness).source(x, x)


def test_the_out_write_is_a_write_into_the_array():
    source = vectorize(saturation).source(np.ones(3))
    assert "np.reciprocal(e, out=e)" not in source and "= np.reciprocal(e)" in source


def test_ndmin_gives_the_per_example_axes_after_the_batch_axis():
    x = np.linspace(-1.0, 1.0, 4)
    got = vmap(raw_array)(x)
    assert got.shape == (4, 1, 1)
    np.testing.assert_array_equal(got, np.stack([raw_array(v) for v in x]))
    m = np.arange(8.0).reshape(4, 2)
    np.testing.assert_array_equal(vmap(raw_array)(m), np.stack([raw_array(r) for r in m]))


def test_out_into_an_array_the_function_did_not_make_alone_is_refused():
    x = np.linspace(-1.0, 1.0, 4)
    with pytest.raises(VectorizeError):
        vectorize(into_argument, fallback="error")(x, np.zeros(4))


def test_out_into_an_array_a_second_name_shares_writes_through_both():
    # (`f = e` is `e` on every path: `passes.array_aliases`)
    x = np.array([-1.0, -0.0, 0.5, np.inf, np.nan])
    got = vectorize(into_alias, fallback="error")(x)
    want = np.vectorize(into_alias)(x)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype


def horner(n, p, s, x):
    y = float(0 if n < 0 else p[s])
    while n > 0:
        n -= 1
        s += 1
        y = y * x + p[s]
    return y


def added(x, y):
    return x + y


@pytest.mark.parametrize("func,args", [
    (horner, (3, [1.0, 2.0, 3.0, 4.0], 0, np.ones(5))),   # its first call raises IndexError
    (added, (np.ones(3), np.ones(4))),
    (added, (np.ones((2, 3)), np.ones(2))),
], ids=["first-call", "vectors", "matrix"])
def test_arguments_that_do_not_broadcast_raise_numpy_vectorizes_error(func, args):
    # was NumPy's broadcast_shapes message (ValueError "shape mismatch: ...") where
    # numpy.vectorize raises what its first call on the first items raises (IndexError
    # here: a list broadcast as an array), else its ufunc's ValueError
    with pytest.raises(Exception) as ref:
        np.vectorize(func)(*args)
    with pytest.raises(type(ref.value)) as got:
        vectorize(func)(*args)
    assert str(got.value) == str(ref.value)


# ---------------------------------------------------------------- objects made from constants
@dataclasses.dataclass
class Spheroid:
    a: float
    b: float

    @classmethod
    def named(cls, name):
        return cls(*{"wgs84": (6378137.0, 6356752.314245), "unit": (1.0, 1.0)}[name])

    @property
    def flattening(self):
        return (self.a - self.b) / self.a


class Weights:
    def __init__(self, k):
        self.w = np.arange(1.0, k + 1.0)
        self.scale = 2


def prime_vertical(lat, ell=None):
    if ell is None:
        ell = Spheroid.named("wgs84")
    return ell.a ** 2 / math.hypot(ell.a * math.cos(lat), ell.b * math.sin(lat))


def flattened(lat):
    s = Spheroid(6378137.0, 6356752.314245)
    return s.flattening * math.sin(lat) ** 2


def weighted(x):
    c = Weights(3)
    return np.sum(c.w * x) * c.scale


def weighted_rows(x):
    return Weights(3).w * x


class Broken:
    def __init__(self, k):
        raise RuntimeError("no")


def broken(x):
    return Broken(1).w * x


@pytest.mark.parametrize("func", [prime_vertical, flattened, weighted])
@pytest.mark.parametrize("n", [0, 1, 5, 10_000])
def test_objects_made_from_constants_are_read(func, n):
    # were refused: "cannot tell the shape of an unbatched operand combined with
    # per-example values (its value comes from a call the engine cannot look into)"
    x = np.random.default_rng(n).uniform(-1.5, 1.5, n)
    _against_numpy_vectorize(func, x)
    _against_loop(func, x)


def test_an_array_attribute_of_an_object_keeps_its_axes():
    x = np.linspace(-1.0, 1.0, 3)     # N == len(w): broadcasting against the batch would pass
    got = vmap(weighted_rows)(x)
    np.testing.assert_array_equal(got, np.stack([weighted_rows(v) for v in x]))
    assert got.shape == (3, 3)


def test_an_object_whose_construction_fails_is_still_refused():
    with pytest.raises(VectorizeError, match="cannot tell the shape"):
        vectorize(broken, fallback="error")(np.ones(3))


# ---------------------------------------------------------------- helpers run on constants
_WHEN = {"end": 0, "begin": 1, 0: 0, 1: 1}


def convert_when(when):
    if isinstance(when, np.ndarray):
        return when
    try:
        return _WHEN[when]
    except (KeyError, TypeError):
        return [_WHEN[x] for x in when]


def future_value(rate, nper, when="end"):
    when = convert_when(when)
    (rate, nper, when) = map(np.asarray, [rate, nper, when])
    temp = (1 + rate) ** nper
    return np.where(rate == 0, nper, (1 + rate * when) * (temp - 1) / rate)


@pytest.mark.parametrize("n", [0, 1, 5, 10_000])
def test_a_helper_on_constants_the_analysis_cannot_read_is_run_to_learn_its_type(n):
    # numpy_financial's `_convert_when`: its try/except could not be analysed and its module
    # name ("numpy_financial") was taken for NumPy's, so `rate * when` was refused ("cannot
    # tell the shape of an unbatched operand")
    rng = np.random.default_rng(n)
    rate, nper = rng.uniform(0.0, 0.02, n), rng.uniform(1.0, 360.0, n)
    rate[: n // 3] = 0.0
    _against_numpy_vectorize(future_value, rate, nper)
    _against_loop(future_value, rate, nper)


# ---------------------------------------------------------------- str methods per example
ZONES = "CDEFGHJKLMNPQRSTUVWXX"


def zone_letter(lat):
    return ZONES[int(lat + 80) >> 3]


def northern(lat):
    letter = ZONES[int(lat + 80) >> 3].lower()
    return letter.upper() >= "N"


def decorated(lat):
    letter = ZONES[int(lat + 80) >> 3]
    return letter.lower().center(5, "*") + f"{lat:.1f}".strip()


@pytest.mark.parametrize("func", [zone_letter, northern, decorated])
@pytest.mark.parametrize("n", [1, 5, 2_000])
def test_str_methods_of_per_example_strings(func, n):
    # `.upper()` of a letter looked up per example (utm's from_latlon) was refused: "the
    # method `.upper()` of a per-example value has no batching rule"; Python's own method
    # runs lane by lane now
    lat = np.random.default_rng(n).uniform(-80.0, 84.0, n)
    got, ref = vectorize(func, fallback="error")(lat), np.vectorize(func)(lat)
    assert got.dtype == ref.dtype and got.shape == ref.shape
    np.testing.assert_array_equal(got, ref)
    np.testing.assert_array_equal(vmap(func)(lat), np.array([func(v) for v in lat]))


def test_str_methods_with_per_example_arguments_are_refused():
    def centered(lat, k):
        return ZONES[int(lat + 80) >> 3].center(k)
    with pytest.raises(VectorizeError):
        vectorize(centered, fallback="error")(np.ones(3), np.arange(3) + 2)
