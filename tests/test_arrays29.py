"""Per-example arrays the generated programs of issue 20 write into, checked against the
per-example loop (`vmap`) and numpy.vectorize itself (`vectorize`).

A second name for an array that is written into (``alias = out``, then ``alias[i] = v``) is
the first name where both are the same object on every path (`passes.array_aliases`); where
they may not be (the first name rebound while the second is still used, a view), the
analysis refuses, located.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from differential import assert_like_numpy_vectorize, numpy_vectorize_outcome, outcome
from vmap_reference import loop_vmap

from vectorize import VectorizeError, vectorize, vmap
from vectorize.passes import array_aliases

# ------------------------------------------------------------------ vmap: v (4,), y a float


def alias_under_a_condition(v, y):
    out = np.zeros(4)
    tot = 0.0
    for i1 in range(4):
        if v[i1] > 0:
            alias = out
            alias[i1] = 2.0
            tot += out[i1]
    return out * 1.0, tot


def alias_then_read_through_both(v, y):
    out = v.copy()
    alias = out
    if y > 0:
        alias[1] = y
    alias[0] += out[1]
    return out + alias


def alias_in_a_masked_loop(v, y):
    out = np.ones(4) * 0.5
    j = 0
    while j < 4 and v[j] < 2.0:
        alias = out
        alias[j] = v[j] * 2.0
        j += 1
    return out[0] + out[3] * 1.0


def alias_then_first_name_rebound(v, y):
    out = np.zeros(4)
    alias = out
    alias[2] = y
    t = out[2] + 1.0
    out = np.ones(4)                   # after the last use of `alias`: still one object there
    out[0] = t
    return out * 1.0


def alias_of_a_list(v, y):
    vals = [0.0, 0.0, 0.0]
    w = vals
    if y > 0:
        w[1] = y
    return vals[0] + vals[1] * 2.0


def alias_written_by_a_slice(v, y):
    out = v.copy()
    alias = out
    if v[0] < y:
        alias[1:3] = y
    return out * 1.0


VMAP_CORPUS = [alias_under_a_condition, alias_then_read_through_both, alias_in_a_masked_loop,
               alias_then_first_name_rebound, alias_of_a_list, alias_written_by_a_slice]

_SPECIALS = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 3.0, -2.5, 0.25, 1.5, -1.0])


def _inputs(n: int, seed: int):
    rng = np.random.default_rng(seed)
    v = rng.choice(_SPECIALS, size=(n, 4))
    y = rng.choice(_SPECIALS, size=n)
    return v, y


def _same(got, expected) -> None:
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for g, e in zip(got, expected):
            _same(g, e)
        return
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == expected.dtype
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)
    assert np.array_equal(np.signbit(got), np.signbit(expected))


@pytest.mark.parametrize("f", VMAP_CORPUS, ids=lambda f: f.__name__)
def test_vmap_matches_the_loop(f):
    g = vmap(f, fallback="error")
    for n, seed in ((1, 0), (5, 1), (7, 2), (40, 3)):
        v, y = _inputs(n, seed)
        expected, raised = outcome(lambda v=v, y=y: loop_vmap(f)(v, y))
        got, got_raised = outcome(lambda v=v, y=y: g(v, y))
        if raised is not None:
            assert type(got_raised) is type(raised)
            continue
        assert got_raised is None, got_raised
        _same(got, expected)


@pytest.mark.parametrize("f", VMAP_CORPUS, ids=lambda f: f.__name__)
def test_vmap_empty_batch(f):
    v, y = np.zeros((0, 4)), np.zeros(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = vmap(f, fallback="error")(v, y)
    for leaf in got if isinstance(got, tuple) else (got,):
        assert np.asarray(leaf).shape[0] == 0


# ------------------------------------------------------------ vectorize: scalars x, k


def scalar_alias_under_a_condition(x, k):
    out = np.zeros(3)
    acc = 0.0
    for i in range(3):
        if x * i > k:
            alias = out
            alias[i] = x - i
            acc += out[i]
    return np.sum(out) * 1.0 + acc


def scalar_alias_of_a_list(x, k):
    vals = [1.0, 2.0]
    other = vals
    if x > k:
        other[0] = x
    return vals[0] * vals[1]


@pytest.mark.parametrize("f", [scalar_alias_under_a_condition, scalar_alias_of_a_list],
                         ids=lambda f: f.__name__)
def test_vectorize_matches_numpy_vectorize(f):
    rng = np.random.default_rng(5)
    for n in (0, 1, 6, 50):
        x = rng.choice(_SPECIALS, size=n)
        k = rng.choice(_SPECIALS, size=n)
        expected, raised = numpy_vectorize_outcome(f, x, k)
        got, got_raised = outcome(lambda x=x, k=k: vectorize(f, fallback="error")(x, k))
        if n == 0:
            assert got_raised is None and np.asarray(got).shape == (0,)
            continue
        if raised is not None:
            assert type(got_raised) is type(raised)
            continue
        assert got_raised is None, got_raised
        assert_like_numpy_vectorize(got, expected)


# --------------------------------------------------------- what stays refused, located


def first_name_rebound_while_the_alias_is_used(v, y):
    out = np.zeros(4)
    alias = out
    out = np.ones(4)                   # `alias` keeps the zeros
    alias[0] = y
    return out + alias


def alias_bound_on_some_paths_only(v, y):
    out = np.zeros(4)
    alias = v.copy()
    if y > 0:
        alias = out
    alias[1] = 3.0
    return out * 1.0


def alias_used_after_its_block(v, y):
    out = np.zeros(4)
    if y > 0:
        alias = out
        alias[0] = 1.0
    else:
        alias = v.copy()
    alias[2] = 5.0
    return out + alias


@pytest.mark.parametrize("f", [first_name_rebound_while_the_alias_is_used,
                               alias_bound_on_some_paths_only, alias_used_after_its_block],
                         ids=lambda f: f.__name__)
def test_refused_with_a_location(f):
    v, y = _inputs(5, 7)
    with pytest.raises(VectorizeError, match=r"test_arrays29\.py:\d+:\d+"):
        vmap(f, fallback="error")(v, y)


def test_the_alias_is_gone_from_the_source():
    v, y = _inputs(3, 0)
    text = vmap(alias_then_read_through_both).source(v, y)
    assert "alias =" not in text and "return out + out" in text


def test_the_pass_keeps_names_that_are_not_written_into():
    import libcst as cst

    func = cst.parse_module("def f(x):\n    y = x\n    return y + 1\n").body[0]
    assert array_aliases.transform(func, None) is func


# ------------------------------------------- `is True` / `is False` of a per-example truth


def is_true_of_a_comparison(x):
    c = x > 0
    if c is True:
        return 1.0
    return 2.0


def is_not_false_of_a_comparison(x):
    c = x < 1.5
    return 3.0 if c is not False else -1.0


@pytest.mark.parametrize("f", [is_true_of_a_comparison, is_not_false_of_a_comparison],
                         ids=lambda f: f.__name__)
def test_is_true_of_a_truth_value_is_never_a_wrong_answer(f):
    # per example `x > 0` of numpy.vectorize's Python floats is a Python bool, which `is
    # True` where it holds (the batch once answered False on every lane)
    x = np.array([1.0, -1.0, 0.0, 2.0, np.nan])
    expected, raised = numpy_vectorize_outcome(f, x)
    assert raised is None
    got, got_raised = outcome(lambda: vectorize(f, fallback="error")(x))
    if got_raised is not None:
        assert type(got_raised) is VectorizeError
        assert "test_arrays29.py:" in str(got_raised) and "True/False" in str(got_raised)
        return
    assert_like_numpy_vectorize(got, expected)


def test_is_none_of_a_per_example_value_still_answers():
    def f(x):
        c = x > 0
        return 1.0 if c is None else 2.0

    x = np.array([1.0, -1.0])
    np.testing.assert_array_equal(vectorize(f, fallback="error")(x), [2.0, 2.0])


# --------------------------------------------- sorted(reverse=True), sorted of a comprehension


def sorted_reversed_first(a, b, c):
    return sorted([a, b, c], reverse=True)[0]


def sorted_reversed_items(a, b, c):
    s = sorted((a, b, c), reverse=True)
    return s[0] - s[1] * 2.0 + s[2] * 4.0


def sorted_reversed_by_key(a, b, c):
    s = sorted([a, b, c], key=abs, reverse=True)
    return s[0] + s[2] * 0.5


def sorted_not_reversed(a, b, c):
    return sorted([a, b, c], reverse=False)[1]


def sorted_of_a_comprehension(a, b, c):
    s = sorted([a * k - b for k in range(3)])
    return s[0] + s[2] * 2.0


def sorted_of_a_generator_reversed(a, b, c):
    s = sorted((c - k * a for k in range(1, 4)), reverse=True)
    return s[1]


SORTED = [sorted_reversed_first, sorted_reversed_items, sorted_reversed_by_key,
          sorted_not_reversed, sorted_of_a_comprehension, sorted_of_a_generator_reversed]


@pytest.mark.parametrize("f", SORTED, ids=lambda f: f.__name__)
def test_sorted_matches_numpy_vectorize(f):
    # every triple of the specials: ties, signed zeros (stability shows), NaN, inf
    grid = np.array(np.meshgrid(_SPECIALS, _SPECIALS, _SPECIALS)).reshape(3, -1)
    for args in (tuple(grid), tuple(g[:1] for g in grid)):
        expected, raised = numpy_vectorize_outcome(f, *args)
        assert raised is None
        got, got_raised = outcome(lambda args=args: vectorize(f, fallback="error")(*args))
        assert got_raised is None, got_raised
        assert_like_numpy_vectorize(got, expected)


def test_sorted_with_ints_among_floats():
    def f(a, b, k):
        return sorted([a, k, b], reverse=True)[2]

    a, b = _SPECIALS, _SPECIALS[::-1]
    k = np.array([0, 1, -1, 3, 0, 2, -2, 0, 1, 5])
    expected, raised = numpy_vectorize_outcome(f, a, b, k)
    got = vectorize(f, fallback="error")(a, b, k)
    assert_like_numpy_vectorize(got, expected)


# ------------------------------------- an item of a nested table is a Python number per example

NESTED = [[1.0, 2.0, 3.0], [-1.0, 0.5, 4.0]]


def nested_item_divided(x, y):
    v0 = NESTED[int(abs(y)) % 2 if math.isfinite(y) else 0][int(abs(x)) % 3 if math.isfinite(
        x) else 1]
    return v0 / y


def nested_item_modulo(x, y):
    return NESTED[int(abs(x)) % 2 if math.isfinite(x) else 0][2] % y


@pytest.mark.parametrize("f", [nested_item_divided, nested_item_modulo],
                         ids=lambda f: f.__name__)
def test_a_nested_table_item_raises_where_python_does(f):
    # (the batch once divided by zero as NumPy does, inf, where Python raises)
    for x, y in ((_SPECIALS, _SPECIALS[::-1]), (_SPECIALS[:1], np.array([0.0])),
                 (_SPECIALS, np.where(_SPECIALS == 0, 2.0, _SPECIALS))):
        expected, raised = numpy_vectorize_outcome(f, x, y)
        got, got_raised = outcome(lambda x=x, y=y: vectorize(f, fallback="error")(x, y))
        if raised is not None:
            assert type(got_raised) is type(raised), (got, got_raised)
            continue
        assert got_raised is None, got_raised
        assert_like_numpy_vectorize(got, expected)


# ------------------------------------------- sum of Python ints before a float: exact ints


def sum_of_ints_then_a_float(x, k):
    return sum([k, x, 3.0])


def sum_with_a_start_then_a_float(x, k):
    return sum((x, k, 0.5), 7)


@pytest.mark.parametrize("f", [sum_of_ints_then_a_float, sum_with_a_start_then_a_float],
                         ids=lambda f: f.__name__)
def test_a_sum_adds_its_leading_ints_exactly(f):
    # (fuzz_constructs seed 390: -5 + -2**63 wrapped in int64, +9.2e18 instead of -9.2e18)
    low, high = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    x = np.array([-5, low, 5, 2, -1, high, high - 3, low + 2])
    k = np.array([-1, -5, -1, -2, 2, 9, 2, -10])
    for args in ((x, k), (x[1:2], k[1:2]), (x[5:6], k[5:6]), (x[2:5], k[2:5])):
        expected, raised = numpy_vectorize_outcome(f, *args)
        got, got_raised = outcome(lambda args=args: vectorize(f, fallback="error")(*args))
        assert raised is None and got_raised is None, (raised, got_raised)
        assert_like_numpy_vectorize(got, expected)


# -------------------------------------------------------------------- float.is_integer()


def half_steps(x):
    if (x * 2.0).is_integer():
        return x * 3.0
    return -x


def is_whole(x):
    return x.is_integer()


_FLOATS = np.array([1.0, 1.5, np.nan, np.inf, -np.inf, -0.0, 0.0, 0.25, 1e300, 5e-324,
                    -7.0, 2.0 ** 53 + 2.0, 4.5e15 + 0.5])


@pytest.mark.parametrize("f", [half_steps, is_whole], ids=lambda f: f.__name__)
def test_is_integer_matches_numpy_vectorize_and_the_loop(f):
    for x in (_FLOATS, _FLOATS[2:3]):
        expected, raised = numpy_vectorize_outcome(f, x)
        assert raised is None
        assert_like_numpy_vectorize(vectorize(f, fallback="error")(x), expected)
    for dtype in (np.float64, np.float32):
        x = _FLOATS.astype(dtype)
        _same(vmap(f, fallback="error")(x), loop_vmap(f)(x))


# ------------------------------------------------------------------- `case None:` in match


def case_none_of_a_number(x, k):
    match k:
        case None:
            return 0.0
        case 1:
            return x
    return -x


def case_none_of_an_optional(x, w=None):
    match w:
        case None:
            return x * 2.0
        case _:
            return x + w


def case_true_of_a_comparison(x, k):
    match x > 0:
        case True:
            return 1.0
    return 2.0


def test_case_none_matches_numpy_vectorize_and_the_loop():
    x, k = np.array([1.0, -2.0, 0.5, 3.0, -0.0]), np.array([1, 2, 1, 0, 1])
    expected, raised = numpy_vectorize_outcome(case_none_of_a_number, x, k)
    assert_like_numpy_vectorize(vectorize(case_none_of_a_number, fallback="error")(x, k),
                                expected)
    _same(vmap(case_none_of_a_number, fallback="error")(x, k),
          loop_vmap(case_none_of_a_number)(x, k))
    expected, raised = numpy_vectorize_outcome(case_none_of_an_optional, x)
    assert_like_numpy_vectorize(vectorize(case_none_of_an_optional, fallback="error")(x),
                                expected)


def test_case_true_is_refused_at_the_pattern():
    x, k = np.array([1.0, -2.0]), np.array([1, 2])
    for api in (vectorize, vmap):
        with pytest.raises(VectorizeError, match=r"test_arrays29\.py:\d+:\d+: `case True:`"):
            api(case_true_of_a_comparison, fallback="error")(x, k)


# ---------------------------------------------- a list made of displays added together


def list_of_added_displays(x, y):
    vals = [0.0, 0.5] + [0.0] * 2
    if x > y:
        vals[2] = x
    vals[0] -= y
    return sum(vals) + vals[3]


def list_of_added_names(x, y):
    vals = [x] + [y, 1.0] + 2 * [0.25]
    vals[1] += x
    return vals[0] * vals[1] - vals[4]


@pytest.mark.parametrize("f", [list_of_added_displays, list_of_added_names],
                         ids=lambda f: f.__name__)
def test_a_list_of_added_displays_is_written_into(f):
    x, y = _SPECIALS, np.roll(_SPECIALS, 3)
    for args in ((x, y), (x[:1], y[:1])):
        expected, raised = numpy_vectorize_outcome(f, *args)
        assert raised is None
        assert_like_numpy_vectorize(vectorize(f, fallback="error")(*args), expected)
        _same(vmap(f, fallback="error")(*args), loop_vmap(f)(*args))


# ------------------- y[m] = v of a per-example truth value m under a per-example condition


def truth_write_in_a_branch(x, y):
    w = np.zeros(2)
    if y > 0:
        w[x > 0] = y * 1.0
    return w[0] - w[1] * 0.5


def truth_writes_in_both_branches(x, y):
    w = np.ones(3)
    if y > 0:
        w[x > 0] = y * 1.0
    else:
        w[x < 1] = -2.0
    return w[0] - w[2] * 0.5


def truth_write_in_a_masked_loop(x, y):
    w = np.zeros(2)
    j = 0
    while j < 4 and x > j:
        w[y > j] = x * 1.0
        j += 1
    return w[0] - w[1] * 0.5


def truth_write_of_a_row(v, y):
    w = v.copy()
    if y > 0:
        w[y > 1] = 0.0
    return w


TRUTH_WRITES = [truth_write_in_a_branch, truth_writes_in_both_branches,
                truth_write_in_a_masked_loop]


@pytest.mark.parametrize("f", TRUTH_WRITES, ids=lambda f: f.__name__)
def test_a_truth_indexed_write_under_a_condition(f):
    # (was refused: the masked merge read `w[x > 0]` back, a selection)
    x, y = _SPECIALS, np.roll(_SPECIALS, 4)
    for args in ((x, y), (x[:1], y[:1]), (x[3:8], y[3:8])):
        expected, raised = numpy_vectorize_outcome(f, *args)
        assert raised is None
        assert_like_numpy_vectorize(vectorize(f, fallback="error")(*args), expected)
        _same(vmap(f, fallback="error")(*args), loop_vmap(f)(*args))
    k = np.array([3, -1, 0, 2, 5, -4])
    expected, raised = numpy_vectorize_outcome(f, k, k[::-1])
    assert_like_numpy_vectorize(vectorize(f, fallback="error")(k, k[::-1]), expected)


def test_a_truth_indexed_write_of_a_row_under_a_condition():
    v, y = np.arange(15.0).reshape(5, 3), np.array([2.0, 0.5, -1.0, 3.0, np.nan])
    _same(vmap(truth_write_of_a_row, fallback="error")(v, y),
          loop_vmap(truth_write_of_a_row)(v, y))


def alias_never_read(v, y):
    out = v.copy()
    if y > 0:
        out[0] = y
    other = out  # noqa: F841 -- (a second name nothing reads)
    return out * 1.0


def test_an_alias_never_read_goes():
    v, y = _inputs(6, 11)
    _same(vmap(alias_never_read, fallback="error")(v, y), loop_vmap(alias_never_read)(v, y))
