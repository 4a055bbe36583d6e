"""Generator functions of the user's called on per-example values (pygeodesy's ``sincos2_``:
``s1, c1, s2, c2 = sincos2_(a, b)``): where the caller unpacks every item at once, the
generator is read as a function returning its items as a tuple
(`vectorize.body_constructs.generators`); any other use is refused, located.
``vectorize`` is checked against ``numpy.vectorize`` itself (Python numbers per example:
equal values and dtype, or the same exception type, at N = 0, 1, 5 and on special values),
``vmap`` against the per-example loop over NumPy scalars."""

from __future__ import annotations

import math

import numpy as np
import pytest
from differential import assert_values_equal, check_like_numpy_vectorize, outcome
from vmap_reference import assert_same_tree, loop_vmap

from vectorize import VectorizeError, vectorize, vmap

SPECIAL = np.array([0.0, -0.0, 1.5, -2.25, np.nan, np.inf, -np.inf, 7.0])
PLAIN = np.array([0.5, 1.25, -2.0, 3.0, 0.75, -0.5, 4.0, 2.5])


def check(func, *args):
    """``vectorize(func)`` against ``numpy.vectorize(func)`` on ``args`` and their first 0,
    1 and 5 items; ``vmap(func)`` against the loop where the loop returns."""
    check_like_numpy_vectorize(func, *args, sizes=(None, 0, 1, 5))
    for n in (None, 1, 5):
        part = args if n is None else tuple(a[:n] for a in args)
        want, error = outcome(lambda part=part: loop_vmap(func)(*part))
        if error is not None:
            continue        # (what vmap does where the loop raises is documented apart)
        got, our_error = outcome(lambda part=part: vmap(func)(*part))
        if isinstance(our_error, VectorizeError):
            raise our_error
        assert our_error is None, (n, our_error)
        assert_same_tree(got, want)


def refused(func, *args, match):
    for mapped in (vectorize(func, fallback="error"), vmap(func)):
        with pytest.raises(VectorizeError, match=match) as info:
            mapped(*args)
        assert "test_classes34.py:" in str(info.value)


def sincos_(*rads):
    """The sine and cosine of each angle, one after the other (pygeodesy's shape)."""
    for r in rads:
        s, c = math.sin(r), math.cos(r)
        yield s
        yield c


def scaled_(k, *xs):
    base = k * 2.0
    for x in xs:
        yield x / base          # raises ZeroDivisionError where k == 0
    yield base


def two(x):
    yield x + 1.0
    yield math.sqrt(x)          # raises ValueError where x < 0


def uses_sincos(a, b):
    s1, c1, s2, c2 = sincos_(a, b)
    return s1 * c2 - c1 * s2


def uses_scaled(k, x, y):
    p, q, base = scaled_(k, x, y)
    return p + q * base


def uses_two(x):
    [p, q] = two(x)
    return p * q


def uses_sincos_three(a, b, c):
    s1, c1, s2, c2, s3, c3 = sincos_(a, b, c)
    return s1 + c2 * s3 - c3 * c1 + s2


@pytest.mark.parametrize("values", [PLAIN, SPECIAL], ids=["plain", "special"])
def test_star_loop_unpacked(values):
    check(uses_sincos, values, values[::-1].copy())
    check(uses_sincos_three, values, values[::-1].copy(), values * 0.5)


@pytest.mark.parametrize("values", [PLAIN, SPECIAL], ids=["plain", "special"])
def test_items_raise_where_python_raises(values):
    check(uses_scaled, values, values[::-1].copy(), values * 2.0)   # k == 0 lanes raise
    check(uses_two, values)                                          # x < 0 lanes raise


def test_no_zero_lane_raises_nothing():
    k = np.array([1.0, 2.0, -3.0, 0.5, 4.0])
    check(uses_scaled, k, k + 1.0, k * 3.0)
    check(uses_two, np.abs(k))


def returned(x):
    return two(x)


def kept(x):
    g = two(x)
    p, q = g
    return p + q


def too_few(a, b):
    s1, c1 = sincos_(a, b)      # Python pulls 3 items, then raises ValueError
    return s1 + c1


def conditional(x):
    if x > 0:
        yield x
    yield -x


def uses_conditional(x):
    p, q = conditional(x)
    return p + q


def test_other_uses_refused_located():
    refused(returned, PLAIN, match="used otherwise than unpacked into names at once")
    refused(kept, PLAIN, match="used otherwise than unpacked into names at once")
    refused(too_few, PLAIN, PLAIN, match="yields 4 items here and is unpacked into 2")
    refused(uses_conditional, PLAIN, match="cannot read as a tuple of its items")


def test_generator_function_itself_refused_located():
    # numpy.vectorize returns an array of generator objects, one per example
    assert isinstance(np.vectorize(two)(PLAIN[:2])[0], type(two(1.0)))
    refused(two, PLAIN, match="numpy.vectorize returns an array of them")


# ------------------------------------------------ sorted of a per-example row or tuple


def sorted_plain(row):
    s = sorted(row)
    return s[0], s[1], s[2]


def sorted_backwards(row):
    s = sorted(row, reverse=True)
    return s[0], s[1], s[2]


def sorted_by_size(row):
    s = sorted(row, key=abs)
    return s[0], s[1], s[2]


def _sorted_tuple_item(k):
    def item(a, b, c):
        t = (a, b, c)
        s = sorted(t, reverse=True)
        return s[k] * 1.0
    return item


def median3(data):
    """statistics.median's shape, of a row of three."""
    data = sorted(data)
    n = len(data)
    if n % 2 == 1:
        return data[n // 2]
    i = n // 2
    return (data[i - 1] + data[i]) / 2


def check_rows(func, rows, sig):
    ours = vectorize(func, signature=sig, fallback="error")
    for n in (None, 1, 5):
        part = rows if n is None else rows[:n]
        want = np.vectorize(func, signature=sig)(part)
        got = ours(part)
        for g, w in zip(got, want) if isinstance(want, tuple) else [(got, want)]:
            assert g.dtype == w.dtype
            assert_values_equal(g, w)
        assert_same_tree(vmap(func)(part), loop_vmap(func)(part))


ROWS3 = np.array([[1.0, np.nan, 0.5], [np.nan, 2.0, -1.0], [3.0, 1.0, np.nan],
                  [0.0, -0.0, 0.0], [-0.0, 0.0, -1.0], [2.0, 2.0, 1.0], [np.inf, -np.inf, 0.0],
                  [5.0, 4.0, 3.0], [1.0, 2.0, 3.0], [np.nan, np.nan, 1.0]])


@pytest.mark.parametrize("func", [sorted_plain, sorted_backwards, sorted_by_size])
def test_sorted_row_items_where_cpython_puts_them(func):
    # NaN makes `<` false both ways: each item lands where CPython's sort leaves it
    # (np.sort would move every NaN to the end)
    check_rows(func, ROWS3, "(3)->(),(),()")


def test_sorted_median_of_a_row():
    check_rows(median3, np.concatenate([ROWS3, np.random.default_rng(3).normal(size=(30, 3))]),
               "(3)->()")


def test_sorted_tuple_of_per_example_values():
    cols = [ROWS3[:, j].copy() for j in range(3)]
    for k in range(3):
        check(_sorted_tuple_item(k), *cols)


# ------------------------------------- `in` / `not in` of constant numbers


NAN = float("nan")
CODES = (1, 2, 5, -7)
SPECIAL_SET = frozenset({math.inf, NAN, -math.inf})
MUTABLE_SET = {math.inf, -math.inf}


def in_codes(k):
    return k in CODES


def not_special(x):
    if x not in SPECIAL_SET:     # a NaN item is only itself: never a fresh example
        return x * 2.0
    return -1.0


def in_display(x):
    hit = x in (0.0, 1.5, -2.25, True, 1e300)
    miss = x not in [7.0, -0.0]
    return hit, miss


def nan_object_maybe(x):
    y = NAN if x > 0 else x
    return y in (NAN, 1.0)      # True where y is NAN itself


def max_in_pair(a, b):
    m = max(a, b)
    return m in (a, b)          # True on every example: m is a or b itself, NaN too


def alias_in(x):
    y = x
    return y in (x, 2.0)        # True on every example, NaN too


def params_in(a, b):
    return a in (b, 2.0, NAN)   # parameters are new objects per example: == decides


def ints_in(a, k, j):
    d = a * 2.0
    return (k in (j, 3)) + (d in (a, 1.0))     # `in` gives bools, which add as ints


def in_mutable_set(x):
    return x in MUTABLE_SET     # may change in place: not baked into the code


FINITE_SET = {1.0, 2.0}
FINITE_LIST = [1.0, 2.0]


def in_finite_set(x):
    return x in FINITE_SET


def in_finite_list(x):
    return x in FINITE_LIST


def test_membership_of_constant_numbers():
    check(in_codes, np.array([0, 1, 2, 3, 5, -5, -7, 2**40]))
    check(in_codes, np.array([0.0, 1.0, 2.5, 5.0, -7.0, np.nan]))
    check(not_special, SPECIAL)
    check(not_special, PLAIN)
    for part in (SPECIAL, SPECIAL[:0], SPECIAL[:1], SPECIAL[:5]):
        want = np.vectorize(in_display)(part) if len(part) else None
        got = vectorize(in_display, fallback="error")(part) if len(part) else None
        for g, w in zip(got or (), want or ()):
            assert g.dtype == w.dtype
            assert_values_equal(g, w)
    assert_same_tree(vmap(in_display)(SPECIAL), loop_vmap(in_display)(SPECIAL))


def test_membership_of_per_example_values():
    check(params_in, SPECIAL, SPECIAL[::-1].copy())
    check(params_in, SPECIAL, SPECIAL.copy())
    check(ints_in, SPECIAL, np.arange(8) % 4, np.arange(8)[::-1] % 3)


def test_membership_refused_where_identity_or_change_matters():
    # these were wrong: `m in (a, b)` written as `m == a or m == b` is False where m is NaN
    for func in (nan_object_maybe, max_in_pair, alias_in):
        args = (SPECIAL,) * (2 if func is max_in_pair else 1)
        refused(func, *args, match="may be the very object")
    refused(in_mutable_set, PLAIN, match="may change in place")


FINITE_DICT = {1.0: "a", 2: "b"}


def in_finite_dict(x):
    return x in FINITE_DICT


@pytest.mark.parametrize("func, table, item", [
    (in_finite_set, FINITE_SET, None), (in_finite_list, FINITE_LIST, None),
    (in_finite_dict, FINITE_DICT, "c")])
def test_membership_of_a_global_that_changes_in_place_between_calls(func, table, item):
    # the items were written into the code: a vectorized function called again after
    # `FINITE_SET.add(3.0)` kept answering False for 3.0 (numpy.vectorize: True); the code
    # is guarded by the table's items now (`introspect.ContentsGuard`)
    x = np.array([1.0, 2.0, 3.0, 4.0, 0.5])
    saved = table.copy()
    ours, mapped = vectorize(func, fallback="error"), vmap(func)
    try:
        for change in (None, 3.0, 2.0, 4):
            if change == 3.0:
                table.add(3.0) if type(table) is set else table.append(3.0) if type(
                    table) is list else table.__setitem__(3.0, item)
            elif change == 2.0:
                table.remove(2.0) if type(table) is not dict else table.pop(2)
            elif change == 4:     # an item equal to another's but of another type
                table.add(4) if type(table) is set else table.append(4) if type(
                    table) is list else table.__setitem__(4, item)
            want = np.vectorize(func)(x)
            got = ours(x)
            assert got.dtype == want.dtype and (got == want).all(), (change, got, want)
            assert (mapped(x) == np.stack([func(v) for v in x])).all(), change
    finally:
        table.clear()
        table.update(saved) if type(table) is not list else table.extend(saved)


def weighted(s1, c1, s2, c2):
    return s1 * c2 - c1 * s2


def star_into_helper(a, b):
    return weighted(*sincos_(a, b))     # every item pulled before `weighted` runs


def star_into_rule(x):
    return math.hypot(*two(x))


def star_name_into_rule(x, y):
    t = (x, y * 2.0)
    return math.hypot(*t) + max(*t, 0.5)


def test_items_unpacked_into_a_call():
    check(star_into_helper, PLAIN, PLAIN[::-1].copy())
    check(star_into_helper, SPECIAL, SPECIAL[::-1].copy())
    # (this was an internal error: AttributeError 'TupleValue' object has no attribute
    # 'dtype')
    check(star_name_into_rule, SPECIAL, SPECIAL[::-1].copy())
    check(star_name_into_rule, PLAIN, PLAIN[::-1].copy())
    refused(star_into_rule, SPECIAL, match="only a tuple bound to a name")


def test_a_contents_guard_of_array_items_neither_raises_nor_misses_a_change():
    # (a deep copy made new array objects, whose `==` has no truth value: the warm call's
    # guard raised ValueError for a global list of arrays)
    from vectorize.introspect import ContentsGuard, name_guard
    rows = [np.array([1.0, 2.0]), np.array([3.0, 4.0])]
    namespace = {"ROWS": rows}
    guard, name, value = name_guard(namespace, "ROWS", rows)
    assert isinstance(guard, ContentsGuard) and value is rows
    assert guard.get(name, None) is rows
    rows[1] = np.array([3.0, 4.0])      # another array object: a change
    assert guard.get(name, None) is None
    table = {1: 2.0}
    guard, name, _ = name_guard({"T": table}, "T", table)
    table[1] = 2                         # equal, of another type: a change
    assert guard.get(name, None) is None
