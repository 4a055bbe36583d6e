"""Constructs generated programs were refused for (issue 20): string-keyed dicts looked up
by a per-example choice among literal strings, starred assignment targets of a tuple of a
known length, guarded ``match`` captures and sequence patterns, filtered comprehensions and
generator expressions consumed by ``len``/``max``/``min``/``any``/``all``, calls of a
visible helper inside ``try``. Each function is checked against numpy.vectorize itself
(values and dtype, or the same exception type and message) at N = 0, 1, 5 and 50, inputs
that raise included, under `vmap` against the loop over NumPy scalars, and under the torch
and jax backends (the same results, or a located refusal where that backend has none)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from differential import assert_values_equal, outcome

from vectorize import VectorizeError, vectorize, vmap

SIZES = (0, 1, 5, 50)


def same_as_numpy_vectorize(f, *args, otypes=None, backend=None):
    ref = np.vectorize(f, otypes=otypes)
    want, raised = outcome(lambda: ref(*args))
    got, got_raised = outcome(lambda: vectorize(f, fallback="error", backend=backend)(*args))
    if isinstance(got_raised, VectorizeError):
        raise got_raised
    if raised is not None:
        assert type(got_raised) is type(raised), (raised, got, got_raised)
        assert str(got_raised) == str(raised)
        return
    assert got_raised is None, got_raised
    got = np.asarray(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert_values_equal(got, want)


def same_as_the_loop(f, *args):
    want, raised = outcome(lambda: np.array([f(*row) for row in zip(*args)]))
    got, got_raised = outcome(lambda: vmap(f, fallback="error")(*args))
    if isinstance(got_raised, VectorizeError):
        raise got_raised
    if raised is not None:
        assert type(got_raised) is type(raised), (raised, got, got_raised)
        return
    assert got_raised is None, got_raised
    assert_values_equal(got, want.astype(got.dtype) if want.size == 0 else want)


def every_size(f, make, otypes):
    for n in SIZES:
        args = make(n)
        same_as_numpy_vectorize(f, *args, otypes=otypes if n == 0 else None)
        if n:
            same_as_the_loop(f, *args)


def on_backend(f, make, backend, refused=None):
    """Under ``backend``: numpy.vectorize's results, or (``refused``: a phrase of the
    reason) a located refusal."""
    pytest.importorskip(backend)
    args = make(5)
    if refused is None:
        same_as_numpy_vectorize(f, *args, backend=backend)
        return
    with pytest.raises(VectorizeError, match=refused) as info:
        vectorize(f, fallback="error", backend=backend)(*args)
    assert "test_refusals28.py:" in str(info.value)


def floats(n, lo=-6.0, hi=6.0, seed=0, special=(0.0, -0.0, math.inf, -math.inf, math.nan)):
    rng = np.random.default_rng(seed + n)
    x = np.round(rng.uniform(lo, hi, n), 2)
    if special:
        picked = rng.random(n) < 0.1
        x[picked] = rng.choice(special, picked.sum())
    return x


def ints(n, lo, hi, seed=0):
    return np.random.default_rng(seed + n).integers(lo, hi, n)


# ------------------------------------ a dict keyed by strings, a per-example string key

STABLE = {"lo": -1.0, "mid": 0.5, "hi": 2.0}


def str_lookup(a, b):
    s = "lo" if a < 0 else ("mid" if a < 5 else "hi")
    return STABLE[s] * b


def str_get(a, b):
    s = "lo" if a < 0 else "other"
    return STABLE.get(s, 2.5) * b


def str_missing(a, b):
    s = "lo" if a < 0 else "other"      # KeyError('other') for the first such example
    return STABLE[s] * b


STRING_KEYS = [str_lookup, str_get, str_missing]


@pytest.mark.parametrize("f", STRING_KEYS, ids=lambda f: f.__name__)
def test_string_keyed_dicts(f):
    every_size(f, lambda n: (floats(n), floats(n, seed=3)), [float])


@pytest.mark.parametrize("backend", ["torch", "jax"])
def test_string_keyed_dicts_refused_on_backends_without_strings(backend):
    on_backend(str_lookup, lambda n: (floats(n), floats(n, seed=3)), backend,
               refused="no arrays of strings")


# ------------------------------------ starred targets of a tuple of a known length

def star_head(a, b):
    h, *r = (a, b, 3.0)
    return h + len(r) * r[-1]


def star_first(a, b):
    first, *_ = (a, b, 3.0)
    return first * 2


def star_last(a, b):
    *init, last = (a, b, a * b)
    return last + init[0]


def star_middle(a, b):
    x, *mid, y = (a, b, 1.5, a - b)
    return x + mid[1] * y + mid[0]


def star_empty(a, b):
    x, *mid, y = (a, b)
    return x + y + len(mid)


def star_constants(a, b):
    x, *mid = (1, 2, 3)
    return x + a * sum(mid) - b


def _pair(a):
    return a, a * 2.0, a - 1.0


def star_of_helper(a, b):
    h, *r = _pair(a)
    return h * b + r[0] / r[1]      # ZeroDivisionError where a == 1


STARRED = [star_head, star_first, star_last, star_middle, star_empty, star_constants,
           star_of_helper]


@pytest.mark.parametrize("f", STARRED, ids=lambda f: f.__name__)
def test_starred_targets(f):
    every_size(f, lambda n: (floats(n), floats(n, seed=3)), [float])


@pytest.mark.parametrize("backend", ["torch", "jax"])
@pytest.mark.parametrize("f", [star_head, star_middle], ids=lambda f: f.__name__)
def test_starred_targets_on_backends(f, backend):
    on_backend(f, lambda n: (floats(n), floats(n, seed=3)), backend)


def star_of_row(v):
    first, *rest = v
    return first + rest[0]


def test_starred_target_of_a_per_example_row_is_a_located_refusal():
    with pytest.raises(VectorizeError, match="starred assignment targets") as info:
        vmap(star_of_row, fallback="error")(np.ones((4, 3)))
    assert "test_refusals28.py:" in str(info.value)


# ------------------------------------ match: guarded captures, sequence patterns

def match_guard(i, a):
    match i % 4:
        case 0 | 1:
            v = a * 1.0
        case w if w > 2:
            v = w * 2.5
        case _:
            v = 0.5
    return v


def match_sequence(i, a):
    match (i % 3, a):
        case (0, x) if 1.0 / x > 0:        # ZeroDivisionError where i % 3 == 0 and a == 0
            v = x * 2
        case (1, x):
            v = x - 1
        case (2, _, _):
            v = 7.0                         # never: the subject has two items
        case t:
            v = t[1] + t[0]
    return v


def match_as_alternatives(i, a):
    match i % 5:
        case (0 | 1) as k:
            v = k * a
        case k if k > a:
            v = a
        case _:
            v = -a
    return v


def match_captures_read_after(i, a):
    match (i % 3, a):
        case (0, y):                     # no guard: bound exactly where the case is taken
            v = y
        case z:
            v = z[1] * 2
    return v + y if i % 3 == 0 else v


MATCHES = [match_guard, match_sequence, match_as_alternatives, match_captures_read_after]


@pytest.mark.parametrize("f", MATCHES, ids=lambda f: f.__name__)
def test_match_captures_and_sequences(f):
    every_size(f, lambda n: (ints(n, -4, 9), floats(n, -3, 3, special=(0.0, -0.0, math.nan))),
               [float])


@pytest.mark.parametrize("backend", ["torch", "jax"])
def test_match_sequences_on_backends(backend):
    on_backend(match_sequence, lambda n: (ints(n, -4, 9), floats(n, -3, 3)), backend)


def match_capture_read_after(i, a):
    k = 0
    match i % 5:
        case k if k > 2:         # a failed guard leaves k bound: read after the match
            v = a
        case _:
            v = -a
    return v + k


def match_true(i, a):
    match (i % 2, a > 0):
        case (0, True):          # `is True`: a NumPy bool per example is not True
            v = 1.0
        case _:
            v = -1.0
    return v


@pytest.mark.parametrize("f", [match_capture_read_after, match_true], ids=lambda f: f.__name__)
def test_match_patterns_left_refused(f):
    with pytest.raises(VectorizeError, match="`case` pattern is not batched") as info:
        vectorize(f, fallback="error")(ints(5, 0, 9), floats(5))
    assert "test_refusals28.py:" in str(info.value)


def test_match_guard_raising_on_one_example():
    same_as_numpy_vectorize(match_sequence, np.array([3, 1, 0]), np.array([2.0, 0.0, 0.0]))
    same_as_the_loop(match_sequence, np.array([3, 1, 0]), np.array([2.0, 0.0, 0.0]))


# ------------------------------------ comprehensions and generators consumed by a builtin,
# over a shared list (its length is not fixed by the code), with per-example conditions

TABLE = [0.5, -1.25, 3.0, 8.0]


def len_filtered(a):
    return len([t for t in TABLE if t < a])


def len_items_raise(a):
    return len([1.0 / (t - a) for t in TABLE if t > 0])     # ZeroDivisionError at a == t


def max_listcomp(a):
    return max([t - a for t in TABLE])


def min_filtered(a):
    return min([t * a for t in TABLE if t > a])      # ValueError where no t > a


def max_generator(a, b):
    return max(t - a for t in TABLE if t != b) + b


def any_generator(a):
    return any(t > a for t in TABLE)


def all_generator(a):
    return all(1.0 / (t - a) > 0 for t in TABLE if t != 3.0)   # stops before a raise


def any_listcomp(a):
    return any([1.0 / (t - a) > 0 for t in TABLE])   # every item evaluated: may raise


def any_in_if(a):
    if any(t > a for t in TABLE):
        return a * 2
    return -a


def nested_fors(a):
    return sum([u * w for u in range(2) for w in range(3)]) * a + sum(
        u * w * a for u in range(3) for w in range(u, 3) if w != u)


CONSUMED = [len_filtered, len_items_raise, max_listcomp, min_filtered, max_generator,
            any_generator, all_generator, any_listcomp, any_in_if, nested_fors]


def _table_floats(n):
    x = floats(n, -2, 10)
    x[:3] = [3.0, 8.0, 9.5][:n]      # equal to an item; above every item
    return x


@pytest.mark.parametrize("f", CONSUMED, ids=lambda f: f.__name__)
def test_consumed_comprehensions(f):
    otypes = {len_filtered: [int], len_items_raise: [int], any_generator: [bool],
              all_generator: [bool], any_listcomp: [bool]}.get(f, [float])
    every_size(f, lambda n: (_table_floats(n), floats(n, seed=4))[:f.__code__.co_argcount],
               otypes)


@pytest.mark.parametrize("backend", ["torch", "jax"])
@pytest.mark.parametrize("f", [min_filtered, any_generator, nested_fors],
                         ids=lambda f: f.__name__)
def test_consumed_comprehensions_on_backends(f, backend):
    on_backend(f, lambda n: (_table_floats(n) + 0.25,), backend)


# ------------------------------------ try around a call of a helper whose body the engine reads

def try_nested_helper(a):
    def inner(t):
        return 1.0 / t
    try:
        v = inner(a)
    except ZeroDivisionError:
        v = -2.5
    return v


def try_nested_helper_raising(a):
    def inner(t):
        if t > 5:
            raise ValueError("big")
        return math.sqrt(t)              # ValueError below 0 too
    try:
        v = inner(a) * 2
    except ValueError:
        v = 0.5
    return v


def try_body_import(a):
    from math import log
    try:
        v = log(a)
    except ValueError:
        v = -1.0
    return v


TRIES = [try_nested_helper, try_nested_helper_raising, try_body_import]


@pytest.mark.parametrize("f", TRIES, ids=lambda f: f.__name__)
def test_try_around_visible_helpers(f):
    every_size(f, lambda n: (floats(n, -3, 8),), [float])


@pytest.mark.parametrize("backend", ["torch", "jax"])
def test_try_around_visible_helpers_on_backends(backend):
    on_backend(try_nested_helper, lambda n: (np.array([0.5, 0.0, -2.0, 4.0, 0.0][:n]),),
               backend)


def try_unknown_call(a):
    def inner(t):
        return _UNKNOWN_CALLABLE(t)
    try:
        v = inner(a)
    except ValueError:
        v = 0.0
    return v


class _Opaque:
    def __call__(self, t):
        return t * 2.0


_UNKNOWN_CALLABLE = _Opaque()


def test_try_around_a_helper_calling_what_the_engine_does_not_know_stays_refused():
    with pytest.raises(VectorizeError, match="exceptions the engine does not know") as info:
        vectorize(try_unknown_call, fallback="error")(floats(5))
    assert "test_refusals28.py:" in str(info.value)


# ------------------------------------ `in range(...)` of int literals

def in_range(i, a):
    return 5.0 if i in range(3) else a * 1.0


def in_stepped_range(i, a):
    return (a in range(-2, 6, 2)) + (i not in range(9, 0, -3))


@pytest.mark.parametrize("f", [in_range, in_stepped_range], ids=lambda f: f.__name__)
def test_membership_in_a_literal_range(f):
    def make(n):
        a = np.round(floats(n, -3, 7, special=(math.nan, 2.0, 4.0)))
        return ints(n, -3, 10), a
    every_size(f, make, [float] if f is in_range else [int])


@pytest.mark.parametrize("backend", ["torch", "jax"])
def test_membership_in_a_literal_range_on_backends(backend):
    on_backend(in_stepped_range, lambda n: (ints(n, -3, 10), np.round(floats(n, -3, 7))),
               backend)


def in_tuples_added(i, a):
    # `in` is a Python bool: True + True is the int 2 (vmap gave the NumPy bool True)
    return (a in (-2, 0, 2)) + (i not in (9, 6, 3))


def test_membership_added_as_ints_under_vmap():
    i, a = np.array([0, 1, 3, 9, 2]), np.array([0.0, -2.0, 1.0, 5.0, 2.0])
    same_as_the_loop(in_tuples_added, i, a)
    same_as_numpy_vectorize(in_tuples_added, i, a)


def get_then_try(x, n):
    # `STABLE.get` (a builtin method: its __module__ is None) read by the `try` lowering
    s = "lo" if n < 0 else "other"
    v = STABLE.get(s, 1e300)
    try:
        w = x / v
    except ZeroDivisionError:
        w = -1.0
    return w


def test_builtin_method_before_a_try():
    every_size(get_then_try, lambda n: (floats(n), ints(n, -3, 3)), [float])


def match_guard_beside_a_comprehension(i, a):
    scaled = sum([w * a for w in range(3)])     # this `w` is the comprehension's own
    match i % 4:
        case w if w > 2:
            v = w * 2.5
        case _:
            v = 0.5
    return v + scaled


def test_match_capture_named_as_a_comprehension_variable():
    every_size(match_guard_beside_a_comprehension,
               lambda n: (ints(n, -4, 9), floats(n, -3, 3)), [float])


# ------------------------------------ any/all of a list: Python builds the whole list first

def any_of_listcomp_raising_late(a):
    # a == 2: the first item decides True, the third divides by zero -- Python raises
    # (the list is built before `any` reads it); the batch returned True
    return any([1.0 / (w - a) < 0 for w in range(3)])


def any_of_generator_raising_late(a):
    return any(1.0 / (w - a) < 0 for w in range(3))     # stops at the first: True


def all_of_tuple_raising_late(a):
    return all((a > 5, 1.0 / (a - 2.0) > 0))


@pytest.mark.parametrize("f", [any_of_listcomp_raising_late, any_of_generator_raising_late,
                               all_of_tuple_raising_late], ids=lambda f: f.__name__)
def test_any_all_of_lists_evaluate_every_item(f):
    for a in ([2.0, 0.5], [0.5, 2.0], [0.5, -1.0, 7.0]):
        same_as_numpy_vectorize(f, np.array(a))
        same_as_the_loop(f, np.array(a))
    every_size(f, lambda n: (np.round(floats(n, -3, 8, special=(2.0, 1.0, 0.0))),), [bool])


# ------------------------------------ a walrus in a comprehension written out

def walrus_in_listcomp(a):
    return [(u := a * w) for w in range(3)][-1] + u


def walrus_in_sum(a):
    total = sum((last := w - a) for w in range(1, 4))
    return total * last


@pytest.mark.parametrize("f", [walrus_in_listcomp, walrus_in_sum], ids=lambda f: f.__name__)
def test_walrus_in_comprehensions(f):
    every_size(f, lambda n: (floats(n),), [float])


def walrus_in_deciding_generator(a):
    found = any((u := a * w) > 1 for w in range(4))     # u: where any stopped, per example
    return u + found


def test_walrus_in_a_generator_any_stops_is_a_located_refusal():
    with pytest.raises(VectorizeError, match="runs on some examples only") as info:
        vectorize(walrus_in_deciding_generator, fallback="error")(floats(5))
    assert "test_refusals28.py:" in str(info.value)


# ------------------------------------ dicts built in the body, looked up by a per-example key

def dict_comprehension(a, i):
    dd = {w: a * w for w in range(3)}
    return dd[i % 3]


def dict_display(a, i):
    dd = {0: a, 1: a * 2, 2: -a}
    return dd[i % 3] + dd[1]


def dict_missing_key(a, i):
    d = {0: a, 1: -a, 3: 2.5}
    return d[i]                          # KeyError for the first i not 0, 1 or 3


def dict_of_tuples_unpacked(a, i):
    d = {0: (a, 1.0), 1: (2.0, a)}
    p, q = d[i % 2]
    return p - q


def dict_by_float_key(a, i):
    d = {0: 1.5, 1: a, -2: a * a}
    return d[i * 1.0]                    # 1.0 finds 1, as Python's lookup does


def dict_string_keys(a, i):
    d = {"lo": a, "hi": a * 2}
    s = "lo" if i < 3 else "hi"
    return d[s] * 2 + d["lo"]


DICTS = [dict_comprehension, dict_display, dict_missing_key, dict_of_tuples_unpacked,
         dict_by_float_key, dict_string_keys]


@pytest.mark.parametrize("f", DICTS, ids=lambda f: f.__name__)
def test_local_dicts_by_per_example_keys(f):
    every_size(f, lambda n: (floats(n), ints(n, -2, 4) if f is dict_missing_key else
                             ints(n, -2, 2) if f is dict_by_float_key else ints(n, 0, 9)),
               [float])


@pytest.mark.parametrize("backend", ["torch", "jax"])
def test_local_dicts_by_per_example_keys_on_backends(backend):
    on_backend(dict_comprehension, lambda n: (floats(n), ints(n, 0, 9)), backend)


def dict_written_then_looked_up(a, i):
    d = {0: a, 1: -a}
    d[0] = 2.0                           # written into: left as it is
    return d[i % 2]


def test_local_dict_written_into_stays_refused():
    with pytest.raises(VectorizeError) as info:
        vectorize(dict_written_then_looked_up, fallback="error")(floats(5), ints(5, 0, 9))
    assert "test_refusals28.py:" in str(info.value)


# ------------------------------------ a nested list indexed per example, then indexed again

NESTED = [[1.0, 2.0, 3.0], [-1.0, 0.5, 4.0]]


def nested_table(a, i):
    return NESTED[i % 2][i % 3] * a


def nested_table_negative(a, i):
    return NESTED[i % 2 - 2][-1 - i % 3] + a


def nested_table_out_of_range(a, i):
    return NESTED[i % 3][1] + a          # IndexError for the first i % 3 == 2


@pytest.mark.parametrize("f", [nested_table, nested_table_negative, nested_table_out_of_range],
                         ids=lambda f: f.__name__)
def test_nested_tables(f):
    every_size(f, lambda n: (floats(n), ints(n, -5, 9)), [float])


@pytest.mark.parametrize("backend", ["torch", "jax"])
def test_nested_tables_on_backends(backend):
    on_backend(nested_table_negative, lambda n: (floats(n), ints(n, -5, 9)), backend)


def nested_row_kept(a, i):
    row = NESTED[i % 2]                  # a list per example (`row * 2` would repeat it)
    return row[0] * a


def test_nested_table_row_read_otherwise_stays_refused():
    with pytest.raises(VectorizeError, match="only a flat list") as info:
        vectorize(nested_row_kept, fallback="error")(floats(5), ints(5, 0, 9))
    assert "test_refusals28.py:" in str(info.value)


def dict_get_by_key(a, i):
    d = {0: a, 1: -a}
    return d.get(i, 2.5) + d[0]


def dict_get_by_string(a, i):
    d = {"x": a, "y": -a}
    s = "x" if i < 2 else ("y" if i < 5 else "z")
    return d.get(s, a * 3)


@pytest.mark.parametrize("f", [dict_get_by_key, dict_get_by_string], ids=lambda f: f.__name__)
def test_local_dict_get_by_per_example_keys(f):
    every_size(f, lambda n: (floats(n), ints(n, -2, 7)), [float])


# ------------------------------------ an internal error the wide fuzzer's `lists` family found

def swapped_list_items(x, y):
    a = x * 1.0
    b = y * 1.0
    vals = [0.0, 0.0, 0.0]
    tot = 0.0
    vals[int(abs(a)) % 3 if math.isfinite(a) else 0] -= a - b
    if a > b:
        if vals[0] > 1.0:
            tot = b / vals[-2]
    elif b <= -1.0:
        for v in vals:
            tot = tot + v * 0.25
        for _ in range(1):
            if vals[0] > 1.0:
                continue
            vals[int(a) if math.isfinite(a) and abs(a) < 100.0 else 0] += b * 0.5
        if tot > 3.0:
            a = a * 0.5 - 1.0
    else:
        vals[1] += a - b
        for _k2 in range(4):
            if a < 0.5:
                break
            vals[0], vals[-1] = vals[-1], vals[0]
            vals[-1] += a
            tot = tot + min(vals) * len(vals)
    return sum(vals) + tot


def test_swapped_list_items_no_internal_error():
    every_size(swapped_list_items, lambda n: (floats(n), floats(n, seed=9)), [float])
