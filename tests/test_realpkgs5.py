"""Regressions found on real scalar functions of public packages (tests/real_pkgs: psypy,
convertdate, sunposition, vincenty), each against the reference (the per-example loop for
vmap, numpy.vectorize for vectorize)."""

from __future__ import annotations

import numpy as np
import pytest

from vectorize import vectorize, vmap

PROPS = ["DBT", "WBT", "RH"]


def _state(prop1, val1, prop2, val2, p):
    # psypy.psySI.state's shape: a bare `return` on a test of the (unbatched) property
    # names against a list, then a list of per-example values
    if prop1 not in PROPS or prop2 not in PROPS:
        return
    if PROPS.index(prop1) < PROPS.index(prop2):
        a, b = val1, val2
    else:
        a, b = val2, val1
    return [a, b * p, a + b]


def _loop(f, names, *cols):
    outs = [f(names[0], a, names[1], b, c) for a, b, c in zip(*cols)]
    return [np.asarray([o[k] for o in outs]) for k in range(len(outs[0]))]


@pytest.mark.parametrize("names", [("DBT", "RH"), ("RH", "WBT")])
@pytest.mark.parametrize("n", [1, 5])
def test_vmap_list_beside_bare_return_keeps_its_batched_items(names, n):
    # was: each item of the list broadcast to (n, n) (read as unbatched)
    rng = np.random.default_rng(n)
    cols = rng.uniform(1.0, 2.0, (3, n))
    got = vmap(_state, in_axes=(None, 0, None, 0, 0))(names[0], cols[0], names[1], cols[1],
                                                      cols[2])
    ref = _loop(_state, names, *cols)
    assert isinstance(got, list) and len(got) == 3
    for g, r in zip(got, ref):
        assert g.shape == r.shape == (n,)
        np.testing.assert_array_equal(g, r)


def test_vmap_bare_return_gives_none():
    cols = np.ones((3, 4))
    assert vmap(_state, in_axes=(None, 0, None, 0, 0))("X", cols[0], "RH", cols[1],
                                                       cols[2]) is None


def _pair(name, x, y):
    if name not in PROPS:
        return
    return (x, y * 2)


@pytest.mark.parametrize("name", ["RH", "other"])
def test_vectorize_tuple_beside_bare_return(name):
    x, y = np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.5])
    ref = np.vectorize(_pair, excluded={0})(name, x, y)
    got = vectorize(_pair, excluded={0}, fallback="error")(name, x, y)
    if isinstance(ref, tuple):
        assert isinstance(got, tuple) and len(got) == len(ref)
        for g, r in zip(got, ref):
            assert g.dtype == r.dtype
            np.testing.assert_array_equal(g, r)
    else:
        assert got.dtype == ref.dtype and list(got) == list(ref)


# sunposition's shape: one helper builds a per-example vector from module-level tables of
# different lengths (`_cos_sum(jme, _EHL)`, `_cos_sum(jme, _EHB)`), and `np.polyval` takes it
T3 = (np.array([1.0, 0.5]), np.array([2.0, -1.0]), np.array([0.25, 3.0]))
T2 = (np.array([1.5, 2.0]), np.array([-0.5, 1.0]))


def _terms(x, table):
    y = np.zeros(len(table))
    for i, row in enumerate(table):
        for c in row:
            y[i] += c * np.cos(c * x)
    return y


def _two_tables(x):
    return np.polyval(_terms(x, T3), x) / 7.0, np.polyval(_terms(x, T2), x)


@pytest.mark.parametrize("n", [0, 1, 5])
def test_helper_called_with_tables_of_two_lengths(n):
    # was: one specialization for both tables (a tuple's key had no length): the second
    # call's vector read as 3 long, an IndexError at N = 0 and a replay of the loop otherwise
    x = np.linspace(-1.5, 2.0, n)
    v = vmap(_two_tables)
    got = v(x)
    outs = [_two_tables(np.float64(t)) for t in x]
    for k in range(2):
        ref = np.asarray([o[k] for o in outs], dtype=np.float64)
        assert got[k].shape == ref.shape and got[k].dtype == ref.dtype
        np.testing.assert_array_equal(got[k], ref)
    assert v.replays == 0
    ref = np.vectorize(_two_tables, otypes="dd")(x)
    got = vectorize(_two_tables, fallback="error")(x)
    for g, r in zip(got, ref):
        np.testing.assert_array_equal(g, r)


# pymeeus' shape: `isinstance(year, (int, float))` guards with a ValueError; numpy.vectorize's
# first call (learning the output types) hands NumPy scalars, and `np.int64` is no `int`
def _checked_year(year):
    if not isinstance(year, (int, float)):
        raise ValueError("Invalid value for the input year")
    return year % 4 == 0


def _typed(n):
    return 1.5 if isinstance(n, int) else 2


def _numpy_int(n):
    if isinstance(n, np.integer):
        raise TypeError("a NumPy int")
    return n + 1


def _outcome(f, *args):
    try:
        out = f(*args)
    except Exception as exc:  # noqa: BLE001 - compared by type and message
        return type(exc), str(exc)
    return out.dtype, out.tolist()


@pytest.mark.parametrize("f", [_checked_year, _typed, _numpy_int])
@pytest.mark.parametrize("dtype", [np.int64, np.float64])
def test_isinstance_answered_as_numpy_vectorize_first_call(f, dtype):
    # was: vectorize answered for Python numbers only: it returned where numpy.vectorize
    # raises (pymeeus.Epoch.is_leap, .easter, .jewish_pesach on int64 years), and gave 1.5
    # where numpy.vectorize's int output type truncates it to 1
    x = np.array([2000, 1999, 1500], dtype=dtype)
    assert _outcome(vectorize(f, fallback="error"), x) == _outcome(np.vectorize(f), x)


# convertdate's shape: `calendar.monthrange` (whose `weekday` is `datetime.date(y, m,
# d).weekday()`) of per-example years, and Python's ValueError for a day the month lacks
def _last_weekday_of(year, month, weekday):
    import calendar
    first, days = calendar.monthrange(year, month)
    first_of_kind = 1 + (weekday - first) % 7
    n = 5 if first_of_kind + 28 <= days else 4
    return year, month, first_of_kind + (n - 1) * 7


def _weekday_of(year, month, day):
    import calendar
    return calendar.weekday(year, month, day)


@pytest.mark.parametrize("n", [0, 1, 7])
def test_calendar_weekday_of_per_example_dates(n):
    # was: refused (`datetime.date` has no batching rule)
    rng = np.random.default_rng(n)
    y, m, w = rng.integers(-500, 12000, n), rng.integers(1, 13, n), rng.integers(0, 7, n)
    ref = np.vectorize(_last_weekday_of, otypes="lll")(y, m, w)
    got = vectorize(_last_weekday_of, fallback="error")(y, m, w)
    for g, r in zip(got, ref):
        assert g.dtype == r.dtype
        np.testing.assert_array_equal(g, r)
    loop = [_last_weekday_of(*t) for t in zip(y, m, w)]
    for k, g in enumerate(vmap(_last_weekday_of)(y, m, w)):
        np.testing.assert_array_equal(g, np.asarray([o[k] for o in loop], dtype=np.int64))


@pytest.mark.parametrize("day, message", [(30, "day is out of range for month"),
                                          (0, "day is out of range for month")])
def test_calendar_weekday_raises_as_python(day, message):
    y, m, d = np.array([2000, 2001, 1900]), np.array([1, 2, 3]), np.array([5, day, 7])
    with pytest.raises(ValueError, match=message):
        vectorize(_weekday_of, fallback="error")(y, m, d)
    with pytest.raises(ValueError, match="month must be in 1..12"):
        vectorize(_weekday_of, fallback="error")(y, np.array([1, 13, 2]), np.array([1, 1, 1]))


# pymeeus.Angle.reduce_dms' shape: a value that is an int on some lanes and a float on
# others (`minutes += frac * 60.0` under a per-example test), then `minutes % 1`
def _reduce(degrees, minutes):
    if degrees % 1 > 0.0:
        minutes += (degrees % 1) * 60.0
    if minutes % 1 > 0.0:
        return minutes % 1, minutes // 2
    return -1.0, minutes // 2


def _mixed_zero_divisor(degrees, minutes, k):
    if degrees % 1 > 0.0:
        minutes += (degrees % 1) * 60.0
    return minutes % k


def test_vmap_mod_by_a_nonzero_constant_of_lanes_of_two_types():
    # was: refused (an int lane's `%` "where a zero divisor gives 0"), with a divisor of 1
    d = np.array([1.5, 2.0, -3.25, 7.0, 0.5])
    m = np.array([3, 4, 5, 6, 7])
    got = vmap(_reduce)(d, m)
    outs = [_reduce(a, b) for a, b in zip(d, m)]
    for k in range(2):
        np.testing.assert_array_equal(got[k], np.asarray([o[k] for o in outs]))


def test_vmap_mod_by_a_per_example_divisor_of_lanes_of_two_types():
    # (was refused: an int lane's `%` by 0 is 0, the batch's float nan; now a check of the
    # divisor lets the loop decide where it is 0)
    d, m = np.array([1.5, 2.0]), np.array([3, 4])
    for k in (np.array([0, 0]), np.array([2, 3])):
        with np.errstate(all="ignore"):
            want = np.stack([np.asarray(_mixed_zero_divisor(*r)) for r in zip(d, m, k)])
            got = vmap(_mixed_zero_divisor)(d, m, k)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


# vincenty's shape: an iteration that `break`s per example on convergence and returns in its
# body, a `try`/`except ZeroDivisionError` in it, a `for`/`else` that returns None where it
# does not converge, an early `return 0.0`
def _solve(a, b):
    if a == b:
        return 0.0
    x = a
    for _ in range(30):
        prev = x
        if x == 0:
            return 0.0
        try:
            y = b / x
        except ZeroDivisionError:
            y = 0
        x = 0.5 * (x + y)
        if abs(x - prev) < 1e-12:
            break
    else:
        return None
    return round(x * a, 6)


@pytest.mark.parametrize("b", [np.array([2.0, 9.0, 3.0, 0.25]),       # every one converges
                               np.array([2.0, 1e300, 3.0, 0.25]),     # one does not: None
                               np.array([1e300, 2.0, 3.0, 0.25])])    # the first: None
def test_for_else_return_none_after_a_per_example_break(b):
    # was: refused ("returns values of kinds that do not mix", the loop's returns lowered)
    a = np.array([1.5, 2.5, 3.0, 0.5])
    ref = np.vectorize(_solve)(a, b)
    got = vectorize(_solve, fallback="error")(a, b)
    assert got.dtype == ref.dtype
    if ref.dtype == object:
        assert [None if r is None else float(r) for r in ref] == \
            [None if g is None else float(g) for g in got]
    else:
        np.testing.assert_array_equal(got, ref)
    loop = [_solve(x, y) for x, y in zip(a, b)]
    if all(o is not None for o in loop):
        np.testing.assert_array_equal(vmap(_solve)(a, b), np.asarray(loop))
