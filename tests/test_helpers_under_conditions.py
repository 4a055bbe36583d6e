"""Helpers called under a per-example condition of their caller: their checks, raises and
warnings count only on the lanes that take the branch, as in numpy.vectorize's loop; and
checking helpers that return early (``if x < 0: raise ...``, ``if x > 100: return ...``).
A helper cannot tell which lanes its caller keeps: where its raise or warning condition
holds on some lane, `vectorize` replays the loop (before, a helper's `warnings.warn` fired
for lanes its caller keeps out)."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vectorize import vectorize


def check_positive(x):
    if x < 0:
        raise ValueError(f"negative {x}")
    return math.sqrt(x)


def clamped_log(x):
    if x < 0:
        raise ValueError("negative")
    if x > 100:
        return 100.0
    if x == 0:
        return 0.0
    return math.log(x)


def warn_with_value(x):
    if x > 50:
        warnings.warn(f"big {x}", RuntimeWarning, stacklevel=2)
    return x * 2


def warn_constant(x):
    if x > 50:
        warnings.warn("big value", RuntimeWarning, stacklevel=2)
    return x * 2


def nested(x):
    if x > 10:
        return clamped_log(x - 10)
    return check_positive(x)


def under_if(x):
    if x > 1:
        return check_positive(x - 2)
    return x


def under_ternary(x):
    return clamped_log(x) + 1 if x > -5 else -1.0


def in_a_loop(x):
    y = 0.0
    for k in range(3):
        if x - k > 0:
            y += clamped_log(x - k)
    return y


def warns_under_if(x):
    if x < 60:
        return warn_with_value(x) + warn_constant(x)
    return 0.0


def two_levels(x):
    if x >= 0:
        return nested(x)
    return -1.0


def in_a_while(x):
    while x > 1:
        x = clamped_log(x) - 0.5
    return x


def both_sides(x):
    return check_positive(x) if x > 0 else clamped_log(-x)


FUNCS = [under_if, under_ternary, in_a_loop, warns_under_if, two_levels, in_a_while,
         both_sides]


def _run(f, x):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = f(x)
        except Exception as exc:     # noqa: BLE001 -- compared by type
            out = exc
    return out, [str(w.message) for w in caught if "big" in str(w.message)]


_VECTORIZED = {}      # one `vectorize` per function: its specializations are reused


def _same_as_numpy(f, x):
    want, want_warnings = _run(np.vectorize(f), x)
    if f not in _VECTORIZED:
        _VECTORIZED[f] = vectorize(f, fallback="error")
    got, got_warnings = _run(_VECTORIZED[f], x)
    assert got_warnings == want_warnings
    if isinstance(want, Exception) or isinstance(got, Exception):
        assert type(got) is type(want), (got, want)
        return
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


POINTS = np.array([0.0, -0.0, 100.0, 2.0, 10.0, 12.0, 59.9, 60.0, 55.0, 1.5, -3.0])


@pytest.mark.parametrize("n", [1, 5, 10_000])
@pytest.mark.parametrize("f", FUNCS, ids=lambda f: f.__name__)
def test_helpers_under_conditions_equal_numpy_vectorize(f, n):
    rng = np.random.default_rng(n)
    x = np.concatenate([POINTS, rng.uniform(-20, 200, n)])[-n:]
    if f is warns_under_if:
        x = x[(x < 50) | (x >= 60)] if n > 5 else x     # large: no lane warns, no replay
    for _ in range(2):
        _same_as_numpy(f, x)


def test_an_empty_batch():
    assert vectorize(under_if)(np.array([])).shape == (0,)


def test_a_helpers_warning_counts_only_lanes_that_call_it():
    # 70 and 80 make the helper's condition true, but the caller keeps them out
    _same_as_numpy(warns_under_if, np.array([10.0, 70.0, 80.0]))
    _same_as_numpy(warns_under_if, np.array([10.0, 55.0, 70.0]))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-50, 250) | st.sampled_from([0.0, -0.0, 50.0, 60.0, 100.0]),
                min_size=1, max_size=6))
def test_helpers_hypothesis(values):
    x = np.array(values)
    for f in (under_if, in_a_loop, warns_under_if, both_sides):
        _same_as_numpy(f, x)
