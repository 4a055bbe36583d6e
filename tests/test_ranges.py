"""The value ranges of `vectorize.analysis.ranges` and the division checks they remove.

Differential: every function here against numpy.vectorize (values, dtype, the exception and
its message), on inputs that reach the zero divisor where there is one (0, -0.0, NaN, inf,
the smallest float, 1.0 exactly), at N = 0, 1, 5 and 10,000; and the generated source has a
zero-division check exactly where Python can divide by zero."""

from __future__ import annotations

import math

import libcst as cst
import numpy as np
import pytest
import range_functions as rf
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from test_python_semantics import assert_like_numpy_vectorize

from vectorize import vectorize
from vectorize.analysis import ranges
from vectorize.source import lookup, read_function
from vectorize.syntax.traversal import walk

SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.0, 3.0, 0.5, math.nan, math.inf, -math.inf, 5e-324,
           -5e-324, 1e308, 1e-300, 4.0, 1e6]
# (no subnormals but the smallest: Newton's test `abs(x * x - a) > 1e-12 * a` need not end
# for them, in Python as in the batch)
FLOATS = st.one_of(st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=False),
                   st.sampled_from(SPECIAL))

NO_CHECK = [rf.sqrt_newton, rf.heron, rf.clipped_inverse, rf.after_else,
            rf.positive_after_tests]
CHECKED = [rf.both_inverses, rf.nonnegative_inverse, rf.halving_to_zero, rf.halving_loop,
           rf.step_down, rf.left_by_break, rf.shifted, rf.nan_safe]


def _source(f, *args):
    return vectorize(f, fallback="error").source(*args)


@pytest.mark.parametrize("f", NO_CHECK, ids=lambda f: f.__name__)
def test_no_check_where_the_divisor_cannot_be_zero(f):
    src = _source(f, np.array(SPECIAL))
    assert "ZeroDivisionError" not in src, src


@pytest.mark.parametrize("f", CHECKED, ids=lambda f: f.__name__)
def test_the_check_stays_where_python_divides_by_zero(f):
    src = _source(f, np.array([2.0, 7.0]))
    assert "ZeroDivisionError" in src, src


def test_one_helper_specialization_for_the_newton_step():
    src = _source(rf.sqrt_newton, np.array(SPECIAL))
    assert "def newton_step(" in src and "newton_step_2" not in src


@pytest.mark.parametrize("f", NO_CHECK + CHECKED, ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", [0, 1, 5])
def test_special_values(f, n):
    for start in range(0, len(SPECIAL), max(n, 1)):
        x = np.array(SPECIAL[start:start + n])
        assert_like_numpy_vectorize(f, x)


@pytest.mark.parametrize("f", NO_CHECK + CHECKED, ids=lambda f: f.__name__)
@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(x=arrays(np.float64, st.integers(1, 6), elements=FLOATS))
def test_against_numpy_vectorize(f, x):
    assert_like_numpy_vectorize(f, x)


@pytest.mark.parametrize("f", [rf.sqrt_newton, rf.shifted, rf.halving_to_zero])
def test_large_batch_repeated(f):
    x = np.random.default_rng(3).uniform(-10.0, 1e6, 10_000)
    x[::997] = 0.0
    x[5::1999] = 1.0
    for _ in range(3):
        assert_like_numpy_vectorize(f, x)


def test_two_arguments():
    a = np.array([2.0, 2.0, 1.0, 0.5, math.nan])
    b = np.array([-4.0, 1.0, -1.0, 0.0, 1.0])
    assert_like_numpy_vectorize(rf.means_not_applicable, a, b)        # 2 + -4/2 == 0
    assert "ZeroDivisionError" in _source(rf.means_not_applicable, a, b)


# ------------------------------------------------------------------ the analysis itself
def _spans(f, **params):
    source = read_function(f)

    def resolve(name):
        found, value, _ = lookup(f, name)
        return value if found else None
    exact = frozenset(p.name.value for p in source.tree.params.params)
    r = ranges.Ranges(source.tree, params, resolve, exact_params=exact)
    names = {}
    for node in walk(source.tree):
        if type(node) is cst.Name and node in r.at:
            names[node.value] = ranges.join(names.get(node.value), r.at[node])
    return r, names


def test_spans_of_the_newton_iteration():
    r, names = _spans(rf.sqrt_newton)
    x = names["x"]
    assert x.lo > 0 and x.hi == math.inf and x.nan       # NaN: max(nan, 1.0) is NaN
    assert names["a"].lo == -math.inf                    # (before the tests: anything)
    assert r.returned.lo == -math.inf or r.returned.nan  # (math.nan: unknown)


def test_spans_reach_zero_by_underflow():
    _, names = _spans(rf.halving_to_zero)
    assert names["x"].lo == 0.0


def test_spans_of_comparisons_and_nan():
    source = read_function(rf.positive_after_tests)
    r = ranges.Ranges(source.tree, {}, lambda name: None, exact_params=frozenset({"a"}))
    # `return 1.0 / a` after `a < 0` and `a == 0` returned: a > 0, or NaN
    last = source.tree.body.body[-1].body[0].value.right
    span = r.at[last]
    assert span.lo == ranges.TINY and span.hi == math.inf and span.nan
    first = source.tree.body.body[0].test.left          # (before any test: anything)
    assert r.at[first] == ranges.Span(-math.inf, math.inf, True, True)


def test_arithmetic_is_unknown_on_narrow_dtypes():
    a = ranges.Span(1.0, 2.0, False, False)         # float32: rounds otherwise
    assert ranges._arith("*", a, ranges.Span(0.5, 0.5, False, True)) == ranges.TOP
    b = ranges.Span(ranges.TINY, 1.0, False, True)
    assert ranges._arith("*", b, ranges.Span(0.5, 0.5, False, True)).lo == 0.0


def test_max_keeps_nan_rules():
    call = ranges.Span(1.0, 1.0, False, True)
    maybe_nan = ranges.Span(5.0, 10.0, True, True)
    # max(1.0, b) with b NaN is 1.0, below b's lower end
    tree = cst.parse_module("def f(b):\n    return max(1.0, b)\n").body[0]
    r = ranges.Ranges(tree, {"b": maybe_nan}, {"max": max}.get)
    assert r.returned == ranges.Span(1.0, 10.0, False, True)
    tree = cst.parse_module("def f(b):\n    return max(b, 1.0)\n").body[0]
    r = ranges.Ranges(tree, {"b": maybe_nan}, {"max": max}.get)
    assert r.returned == ranges.Span(5.0, 10.0, True, True)        # NaN where b is
    assert call.excludes_zero()
