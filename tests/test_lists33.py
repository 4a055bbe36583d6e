"""Per-example lists of a length the code fixes (issue 20, hsluv's refusals): a list a helper
appends to in loops of a fixed trip count and returns (Haxe's ``while _g < 3`` loops), list
comprehensions over such a list or a local list display, and the checks of operations inside
dict displays. Each is checked against ``numpy.vectorize`` itself (Python numbers per example:
equal values and dtype, or the same exception type) at N = 0, 1, 5 and on NaN / inf / -0.0,
and ``vmap`` against the per-example loop over NumPy scalars."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from differential import assert_values_equal, check_like_numpy_vectorize, outcome
from vmap_reference import assert_same_tree, loop_vmap

from vectorize import VectorizeError, vectorize, vmap

SPECIAL = np.array([0.0, -0.0, 1.5, -2.25, np.nan, np.inf, -np.inf, 7.0, 20.0, 99.0])
M = [[3.2, -1.5, -0.5], [-0.97, 1.9, 0.04], [0.06, -0.2, 1.06]]


def check(func, *args, with_vmap=True):
    """``vectorize(func)`` against ``numpy.vectorize(func)`` on ``args`` and on their first
    0, 1 and 5 items (values and dtype, or the exception's type); ``vmap(func)`` against the
    per-example loop on the examples where the loop returns."""
    check_like_numpy_vectorize(func, *args, sizes=(None, 0, 1, 5))
    if with_vmap:
        want, error = outcome(lambda: loop_vmap(func)(*args))
        got, our_error = outcome(lambda: vmap(func)(*args))
        if isinstance(our_error, VectorizeError):
            raise our_error
        if error is None:
            assert our_error is None, our_error
            assert_same_tree(got, want)


# ------------------------------------------------- 1. a helper's appended list, returned


def bounds_while(lum):
    """hsluv's `_get_bounds`, as Haxe writes `for c in 0...3`."""
    result = []
    sub = lum / 3.0 if lum > 8 else lum * 2.0
    _g = 0
    while _g < 3:
        c = _g
        _g += 1
        m1 = M[c][0]
        m2 = M[c][1]
        _g1 = 0
        while _g1 < 2:
            t = _g1
            _g1 += 1
            bottom = m2 * sub + t
            result.append({'slope': m1 * sub / bottom, 'intercept': lum - t})
    return result


def min_distance(lum):
    return min(abs(b['intercept']) / math.sqrt(b['slope'] ** 2 + 1)
               for b in bounds_while(lum))


def min_positive_length(lum, h):
    lengths = [b['intercept'] / (math.sin(h) - b['slope'] * math.cos(h))
               for b in bounds_while(lum)]
    return min(length for length in lengths if length >= 0)


def bounds_for(x):
    out = [x]
    for k in range(1, 4):
        for j in range(2):
            out.append(x * k - j)
    return out


def picks(x, k):
    items = bounds_for(x)
    first, *rest = items
    return items[k] + first - len(rest)


def sums_in_order(x):
    return sum(bounds_for(x)) + sum([v * v for v in bounds_for(x)])


def test_helper_list_appended_in_while_loops_is_its_items():
    lum = np.array([0.5, 1.0, 8.0, 20.0, 50.0, 99.0, np.nan, np.inf, 7.0, 33.0])
    check(min_distance, lum)
    check(min_positive_length, lum, np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, -1.0,
                                             np.nan, 0.3]))


def test_helper_list_raises_where_python_raises():
    # bottom = M[0][1] * (lum * 2) + 1 is 0 at lum = 1/3
    lum = np.array([2.0, 1.0 / 3.0, 5.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ZeroDivisionError):
            np.vectorize(min_distance)(lum)
        with pytest.raises(ZeroDivisionError):
            vectorize(min_distance, fallback="error")(lum)
    check(min_distance, lum)


def test_helper_list_appended_in_range_loops_is_indexed_unpacked_and_summed():
    check(picks, SPECIAL, np.array([0, 1, 6, -1, -7, 3, 2, 5, 4, 0]))
    check(picks, SPECIAL, np.array([0, 1, 7, -1, -7, 3, 2, 5, 4, 0]))     # IndexError
    check(sums_in_order, SPECIAL)


def test_written_out_helper_matches_the_loop_under_vmap_with_float32():
    x = SPECIAL.astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got, want = vmap(sums_in_order)(x), loop_vmap(sums_in_order)(x)
    assert_same_tree(got, want)
    assert got.dtype == want.dtype


# ------------------------------------------------------- 2. the lists still refused


def appended_under_a_condition(x):
    out = []
    for k in range(3):
        if x > k:
            out.append(x * k)
    return out


def length_of_conditional(x):
    return len(appended_under_a_condition(x)) + x


def while_of_per_example_bound(x):
    out = []
    n = 0
    while n < x:
        n += 1
        out.append(n)
    return out


def uses_while_list(x):
    return sum(while_of_per_example_bound(x))


def comprehension_with_a_condition(x):
    v = [x, -x, 2.0 * x]
    return [t for t in v if t > 0]


def test_lists_of_lengths_that_differ_per_example_stay_refused():
    for f in (length_of_conditional, uses_while_list):
        for made in (vectorize(f, fallback="error"), vmap(f)):
            with pytest.raises(VectorizeError, match=r"test_lists33.py:\d+:\d+: ") as info:
                made(np.array([0.5, 2.5, 7.0]))
            assert "appends to" in str(info.value) or "list" in str(info.value)


def test_returned_lists_match_numpy_vectorize_or_are_refused():
    # numpy.vectorize raises ValueError storing a list into its float output: `vectorize`
    # refuses (located); vmap returns the loop's pytree, a list of arrays
    with pytest.raises(ValueError):
        np.vectorize(bounds_for)(SPECIAL)
    with pytest.raises(VectorizeError, match=r"test_lists33.py:\d+:\d+: returning a list"
                       ) as info:
        vectorize(bounds_for, fallback="error")(SPECIAL)
    assert str(info.value).splitlines()[1].strip() == "return out"     # (where it returns)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same_tree(vmap(bounds_for)(SPECIAL), loop_vmap(bounds_for)(SPECIAL))
    with pytest.raises(VectorizeError, match=r"test_lists33.py:\d+:\d+: "):
        vectorize(comprehension_with_a_condition, fallback="error")(SPECIAL)


# ---------------------------------------------- 3. comprehensions over per-example lists


def comprehension_of_a_display(x, y):
    v = [x, y, x * y]
    w = [math.exp(t) if t < 50 else t.real for t in v]
    return w[0] - w[2] + len(w)


def comprehension_calls_a_helper(x):
    parts = [bounded(t) for t in (x, x - 1.0, 2.0 / x)]
    a, b, c = parts
    return a * b + c


def bounded(t):
    return 1.0 / t if abs(t) > 1 else t


def test_comprehension_over_a_list_of_per_example_values_is_written_out():
    check(comprehension_of_a_display, SPECIAL, SPECIAL[::-1].copy())
    check(comprehension_calls_a_helper, SPECIAL)
    check(comprehension_calls_a_helper, SPECIAL[2:])


# ------------------------------------------- 4. checks of operations in dict displays


def corners(L, x):
    return [{"a": L / x, "b": 2.0}, {"a": -L, "b": math.sqrt(L)}]


def first_corner(L, x):
    m = corners(L, x)
    return m[0]["a"] + m[1]["b"]


def tuple_of_dicts(L, x):
    m = ({"a": L / x}, {"a": L})
    return m[0]["a"]


def test_operations_in_dict_displays_raise_as_python_raises():
    L = np.array([1.0, 2.0, 4.0, 0.0, np.inf])
    for x in (np.array([1.0, 0.0, 2.0, 3.0, 1.0]), np.array([1.0, 0.5, 2.0, 3.0, -1.0])):
        check(first_corner, L, x)
        check(tuple_of_dicts, L, x)
    check(first_corner, np.array([1.0, -2.0]), np.array([1.0, 1.0]))    # sqrt's ValueError
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ZeroDivisionError):
            vectorize(first_corner, fallback="error")(L, np.array([1.0, 0.0, 2.0, 3.0, 1.0]))


POWERS = 4
EDGES = ((1.0, 2.0), (3.0, -4.0), (0.5, 6.0))


def powers_of_a_module_count(x):
    v = [x ** j for j in range(POWERS)]
    return v[1] + v[-1]


def rows_unpacked(x, y):
    v = [a * x + b * y for a, b in EDGES]
    lo, mid, hi = v
    return lo - hi + mid


def pairs_of_per_example_values(x, y):
    v = [a / b for a, b in ((x, y), (y, 2.0), (1.0, x))]
    return v[0] + v[2]


def test_comprehension_over_range_of_a_module_int_and_a_module_tuple_of_rows():
    global POWERS
    check(powers_of_a_module_count, SPECIAL[:8])
    check(rows_unpacked, SPECIAL, SPECIAL[::-1].copy())
    check(pairs_of_per_example_values, SPECIAL, SPECIAL[::-1].copy())   # ZeroDivisionError
    check(pairs_of_per_example_values, SPECIAL[2:4], SPECIAL[5:7])
    ours = vectorize(powers_of_a_module_count, fallback="error")
    ours(SPECIAL)
    POWERS = 2          # a new specialization: `v[-1]` is `v[1]`
    try:
        assert_values_equal(ours(SPECIAL[2:4]),
                            np.vectorize(powers_of_a_module_count)(SPECIAL[2:4]))
    finally:
        POWERS = 4


# ------------------------------- 5. writes by a per-example truth value into 0-d arrays


def beta_like_pymap3d(x, y, z):
    """pymap3d's `ecef2geodetic` writes its 0-d `Beta` by masks of 0 or 1 items."""
    x = np.asarray(x)
    y = np.asarray(y)
    z = np.asarray(z)
    r = np.sqrt(x ** 2 + y ** 2)
    u = np.hypot(r, z)
    beta = np.empty_like(r)
    ibad = np.isclose(u, 0) | np.isclose(r, 0)
    beta[~ibad] = np.arctan(u[~ibad] / r[~ibad] * z[~ibad])
    beta[~ibad] += (2.0 * u[~ibad] - 1.0) * np.sin(beta[~ibad]) / np.cos(beta[~ibad])
    iz = ibad & np.isclose(z, 0)
    i1 = ibad & ~iz & (z > 0)
    i2 = ibad & ~iz & ~i1
    beta[iz] = 0
    beta[i1] = np.pi / 2
    beta[i2] = -np.pi / 2
    return beta * 2.0


def sum_of_a_selection_written(x):
    x = np.asarray(x)
    a = np.empty_like(x)
    a[x > 0] = np.sum(x[x > 0])      # (not a ufunc: refused)
    return a


def into_a_numpy_scalar(x):
    a = np.float64(x).copy()
    a[x > 0] = 1.0                   # (Python: TypeError, whatever the mask)
    return a


def test_masked_writes_into_zero_dim_arrays():
    x = np.array([1.0, 0.0, 0.0, 3.0, np.nan, -1.0, 0.0, np.inf, 2.0, -0.0])
    y = np.array([0.0, 0.0, 0.0, 1.0, 1.0, 2.0, 0.0, 1.0, -1.0, 0.0])
    z = np.array([1.0, 0.0, 2.0, -1.0, 1.0, 0.5, -3.0, 1.0, np.nan, -0.0])
    check(beta_like_pymap3d, x, y, z)
    for f in (sum_of_a_selection_written, into_a_numpy_scalar):
        for made in (vectorize(f, fallback="error"), vmap(f)):
            with pytest.raises(VectorizeError, match=r"test_lists33.py:\d+:\d+: "):
                made(x)


def masked_read_of_a_parameter(x):
    a = np.zeros_like(np.asarray(x))
    m = np.asarray(x) > 0
    a[m] = np.sin(x[m]) + 1.0        # (a Python float has no items: numpy.vectorize's TypeError)
    return a


def test_masked_read_of_a_python_number_is_not_written_out():
    x = np.array([1.0, -2.0, 0.0, np.nan, 3.0])
    with pytest.raises(TypeError):
        np.vectorize(masked_read_of_a_parameter)(x)
    with pytest.raises((TypeError, VectorizeError)):
        vectorize(masked_read_of_a_parameter, fallback="error")(x)
    with warnings.catch_warnings():      # (vmap's examples are NumPy scalars: they have)
        warnings.simplefilter("ignore")
        assert_same_tree(vmap(masked_read_of_a_parameter)(x),
                         loop_vmap(masked_read_of_a_parameter)(x))


def item_of_a_python_float(x):
    return np.sin(x[()])


def item_of_its_array(x):
    x = np.asarray(x)
    return np.sin(x[()])


def test_item_of_a_python_number_raises_type_error():
    x = np.array([1.0, 2.0, np.nan])
    check(item_of_a_python_float, x)         # TypeError: 'float' object is not subscriptable
    check(item_of_its_array, x)
