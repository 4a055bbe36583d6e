"""A helper of the user's called as a statement, for its checks (issue 20): ``_check(p, t)``
whose body raises (or warns) under a per-example condition. Where every example reaches the
call, the batch runs the helper's vectorized checks; it must give what ``numpy.vectorize``
gives: equal values and dtype, or the same exception type and (the first failing example's)
message. Under a per-example condition of the caller it is still refused (dead lanes would
run the checks)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import vectorize
from vectorize import VectorizeError


def _check_pt(p, t):
    if not (0.0 <= p <= 100.0):
        raise ValueError(f"pressure {p} out of range")
    if t < -273.15:
        raise ValueError("temperature %.2f below absolute zero" % t)  # noqa: UP031


def region(p, t):
    _check_pt(p, t)
    if t > 300.0:
        return 2
    return 1


def _check_e(e):
    if e < 0 or e >= 1:
        raise ValueError(f"eccentricity {e} not elliptic")


def kepler(m, e):
    _check_e(e)
    ecc = m
    for _ in range(50):
        step = (ecc - e * math.sin(ecc) - m) / (1 - e * math.cos(ecc))
        ecc -= step
        if abs(step) < 1e-12:
            break
    return ecc


def _returns_but_unused(x):
    if x < 0:
        raise ArithmeticError("negative")
    return x * 2


def discarded_result(x):
    _returns_but_unused(x)      # called for its check; the value is thrown away
    return x + 1


def under_condition(p, t):
    if p > 50.0:
        _check_pt(p, t)
    return p


def _outcome(fn, *args):
    try:
        return "ok", fn(*args)
    except Exception as exc:    # noqa: BLE001 -- the exception is what is compared
        return "raised", exc


def _same(f, *args, otypes=None):
    """The reference at N = 0 needs ``otypes``: the dtype it returns for one example."""
    if otypes is None and not any(np.size(a) for a in args):
        one = np.vectorize(f)(*[np.full(1, 0.5, a.dtype) for a in args])
        otypes = [one.dtype]
    ref = _outcome(np.vectorize(f, otypes=otypes), *args)
    got = _outcome(vectorize.vectorize(f, fallback="error"), *args)
    assert ref[0] == got[0], (ref, got)
    if ref[0] == "ok":
        assert got[1].dtype == ref[1].dtype and got[1].shape == ref[1].shape
        np.testing.assert_array_equal(got[1], ref[1])
    else:
        assert type(got[1]) is type(ref[1]) and str(got[1]) == str(ref[1]), (ref, got)
    return ref[0]


def _pt(rng, n, bad):
    p = rng.uniform(0.0, 100.0, n)
    t = rng.uniform(-200.0, 600.0, n)
    if bad and n:
        lane = rng.integers(n)
        if rng.random() < 0.5:
            p[lane] = 150.0
        else:
            t[lane] = -300.0
    return p, t


@pytest.mark.parametrize("n", [0, 1, 5])
@pytest.mark.parametrize("bad", [False, True])
def test_helper_check_statement(n, bad):
    rng = np.random.default_rng(n * 2 + bad)
    outcome = _same(region, *_pt(rng, n, bad))
    assert outcome == ("raised" if bad and n else "ok")


def test_helper_check_statement_large_repeated():
    rng = np.random.default_rng(7)
    vf = vectorize.vectorize(region, fallback="error")
    for bad in (False, True, False):
        p, t = _pt(rng, 10_000, bad)
        _same(region, p, t)
        if not bad:
            np.testing.assert_array_equal(vf(p, t), np.vectorize(region)(p, t))


def test_first_failing_example_raises():
    # example 1 fails the temperature check, example 3 the pressure check: the loop raises
    # for example 1 (its message)
    p = np.array([1.0, 2.0, 3.0, 400.0])
    t = np.array([0.0, -500.0, 0.0, 0.0])
    assert _same(region, p, t) == "raised"


@pytest.mark.parametrize("n", [0, 1, 5, 2000])
def test_helper_check_before_loop(n):
    rng = np.random.default_rng(n)
    m = rng.uniform(0, 2 * math.pi, n)
    e = rng.uniform(0, 0.9, n)
    assert _same(kepler, m, e) == "ok"
    if n:
        e[n // 2] = 1.5
        assert _same(kepler, m, e) == "raised"


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=64), max_size=6))
def test_discarded_result_of_a_checking_helper(xs):
    _same(discarded_result, np.array(xs, dtype=float))


def test_generated_code_calls_the_helper():
    vf = vectorize.vectorize(region, fallback="error")
    p, t = np.array([1.0]), np.array([2.0])
    source = vf.source(p, t)
    assert "_check_pt(p, t)" in source and "raise ValueError" in source


def test_under_a_per_example_condition_still_refused():
    with pytest.raises(VectorizeError, match="thrown away"):
        vectorize.vectorize(under_condition, fallback="error")(np.array([1.0, 60.0]),
                                                               np.array([0.0, 0.0]))


# --- warnings with a per-example message -------------------------------------------------

def capped(eta):
    if eta > 1.0:
        warnings.warn(f"efficiency {eta:.2f} above 1 capped", stacklevel=2)
        eta = 1.0
    return eta


def _warn_check(p):
    if p > 90.0:
        warnings.warn("high pressure %.1f" % p, RuntimeWarning, stacklevel=2)  # noqa: UP031


def checked_twice(p, t):
    _warn_check(p)
    _check_pt(p, t)
    return p - t


def _warned(fn, action, *args):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter(action)
        out = fn(*args)
    return out, [(w.category, str(w.message)) for w in caught]


@pytest.mark.parametrize("action", ["always", "default"])
@pytest.mark.parametrize("n", [0, 1, 5, 10_000])
def test_per_example_warning_messages(n, action):
    rng = np.random.default_rng(n)
    vf = vectorize.vectorize(capped, fallback="error")
    for _ in range(2 if n > 5 else 1):       # a repeated call: the cached specialization
        eta = np.round(rng.uniform(0.5, 1.5, n), 1)
        if n:
            eta[0] = 1.3
        if n >= 5:
            eta[3] = 1.1
        ref, ref_warnings = _warned(np.vectorize(capped, otypes=[float]), action, eta)
        got, got_warnings = _warned(vf, action, eta)
        np.testing.assert_array_equal(got, ref)
        assert got.dtype == ref.dtype
        assert got_warnings == ref_warnings
        if n >= 5 and action == "default":
            assert len(ref_warnings) > 1        # distinct messages: more than one


@pytest.mark.parametrize("n", [1, 5, 300])
def test_helper_that_warns_and_checks(n):
    rng = np.random.default_rng(n)
    p, t = _pt(rng, n, False)
    vf = vectorize.vectorize(checked_twice, fallback="error")
    for action in ("always", "default"):
        ref, ref_warnings = _warned(np.vectorize(checked_twice), action, p, t)
        got, got_warnings = _warned(vf, action, p, t)
        np.testing.assert_array_equal(got, ref)
        assert got_warnings == ref_warnings


def test_per_example_warning_on_torch():
    torch = pytest.importorskip("torch")
    eta = np.array([0.5, 1.1, 1.3, 1.1])
    ref, ref_warnings = _warned(np.vectorize(capped), "always", eta)
    got, got_warnings = _warned(vectorize.vectorize(capped, fallback="error"), "always",
                                torch.tensor(eta))
    np.testing.assert_array_equal(got.numpy(), ref)
    assert got_warnings == ref_warnings
