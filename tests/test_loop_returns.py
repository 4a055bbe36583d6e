"""Early returns from loops, nested loops with helpers, and per-example fallback pieces
(issue 13, items 2 to 5), each against the per-example loop.

Every function runs under `vmap` (and, where it applies, ``vectorize(signature=...)``) at
N = 0, 1 and 5, and twelve times in a row at a large N, where `chunk_size="auto"` times the
compacted form against the select form: each call must give the per-example results.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from test_array_corpus import assert_same, per_example

from vectorize import VectorizeError, vectorize, vmap
from vectorize.api import VectorizeFallbackWarning

LARGE = 20_000
REPEATS = 12


# ----------------------------------------------------------------------------- the checks
def check(f, make, in_axes, call=None):
    """``call(f)`` (default ``vmap(f, in_axes)``) on ``make(rng, n)`` at n = 0, 1, 5 and
    `REPEATS` times at `LARGE`, against the per-example results."""
    rng = np.random.default_rng(7)
    mapped = call(f) if call else vmap(f, in_axes=in_axes)
    for n in (0, 1, 5):
        args = make(rng, n)
        assert_same(mapped(*args), per_example(f, args, in_axes), f"{f.__name__} at N={n}: ")
    args = make(rng, LARGE)
    expected = per_example(f, args, in_axes)
    for k in range(REPEATS):
        assert_same(mapped(*args), expected, f"{f.__name__} at N={LARGE}, call {k + 1}: ")


def vectors(width=4, scale=1.0):
    """(v, x): per-example vectors of ``width`` and per-example numbers."""
    def make(rng, n):
        return rng.random((n, width)), rng.random(n) * scale
    return make


def vector_and_shared(rng, n):
    return rng.random((n, 4)), np.random.default_rng(3).random(4)


# ------------------------------------------------------------- item 2: vectors returned from loops
def first_above(v, x):
    for p in range(len(v)):
        if v[p] >= x:
            return v
    return v


def scaled_first_above(v, x):
    for p in range(len(v)):  # vectorize: compact
        if v[p] >= x:
            return v * p
    return -v


def scaled_first_above_select(v, x):
    for p in range(len(v)):  # vectorize: select
        if v[p] >= x:
            return v * p
    return -v


def running_sum_while(v, x):
    s = 0.0
    i = 0
    while s < x:
        s += v[i % 4]
        i += 1
        if s > 1.5 * x:
            return v * s
    return -v


def running_sum_while_select(v, x):
    s = 0.0
    i = 0
    while s < x:  # vectorize: select
        s += v[i % 4]
        i += 1
        if s > 1.5 * x:
            return v * s
    return -v


def pair_above(v, x):
    for i in range(len(v)):
        for j in range(len(v)):
            if v[i] + v[j] > 2 * x:
                return v[::-1] + x
        if v[i] < x / 4:
            return v * 0.5
    return v - x


def nested_whiles(v, x):
    i = 0
    while i < 4:
        j = 0
        t = 0.0
        while t < x:
            t += v[j % 4] + 0.1
            j += 1
            if j > 5:
                return v * j
        if t > 2 * x:
            return v + t
        i += 1
    return v


def vector_and_count(v, x):
    for i in range(len(v)):
        if v[i] > x:
            return v * i, i
    return v, -1


def vector_and_count_while(v, x):
    s = 0.0
    k = 0
    while s < x:
        s += v[k % 4]
        k += 1
        if k > 6:
            return v * s, k
    return -v, k


def created_array(v, x):
    out = np.zeros(len(v))
    for i in range(len(v)):
        if v[i] > x:
            return out + i
    return out


def int_vector(v, x):
    k = np.arange(len(v))
    for i in range(len(v)):
        if v[i] > x:
            return k * i
    return k


def per_example_range(v, x):
    for i in range(int(x * 5)):
        if v[i % 4] > 0.7:
            return v + i
    return v


def both_branches(v, x):
    if x > 0.5:
        for i in range(len(v)):
            if v[i] > x:
                return v * i
        return v
    else:
        for i in range(len(v)):
            if v[i] < x:
                return -v
        return v * 0.0


def number_then_vector(v, x):
    for i in range(len(v)):
        if v[i] > x:
            return v[i] + np.zeros(3)
    return np.ones(3)


def _scaled_until(u, t):
    for i in range(len(u)):
        if u[i] > t:
            return u * i
    return u


def through_a_helper(v, x):
    w = _scaled_until(v, x)
    for i in range(len(v)):
        if w[i] > 1.0:
            return w + v
    return w - 1.0


def rows_of_a_matrix(m, x):
    for i in range(len(m)):
        if m[i, 0] > x:
            return m * i
    return m


VECTOR_RETURNS = [first_above, scaled_first_above, scaled_first_above_select,
                  running_sum_while, running_sum_while_select, pair_above, nested_whiles,
                  vector_and_count, vector_and_count_while, created_array, int_vector,
                  per_example_range, both_branches, number_then_vector, through_a_helper]


@pytest.mark.parametrize("f", VECTOR_RETURNS, ids=lambda f: f.__name__)
def test_vectors_returned_from_loops(f):
    check(f, vectors(), (0, 0))


def test_matrices_returned_from_a_loop():
    def make(rng, n):
        return rng.random((n, 3, 4)), rng.random(n)
    check(rows_of_a_matrix, make, (0, 0))


@pytest.mark.parametrize("f", [first_above, scaled_first_above, running_sum_while,
                               pair_above], ids=lambda f: f.__name__)
def test_vectors_returned_from_loops_with_a_signature(f):
    check(f, vectors(), (0, 0), call=lambda f: vectorize(f, signature="(n),()->(n)",
                                                         fallback="error"))


def shared_or_sorted(v, w):
    for i in range(len(v)):
        if v[i] > 0.5:
            return w
    return np.sort(w)


def sorted_or_shared(v, w):
    for i in range(len(v)):
        if v[i] > 0.5:
            return np.sort(w)
    return w


def shared_or_per_example(v, w):
    for i in range(len(v)):
        if v[i] > 0.5:
            return v
    return w


def sorted_shared_in_a_while(v, w):
    k = 0
    while k < 3:
        if v[k] > 0.5:
            return w
        k += 1
    return np.sort(w)[::-1]


def cumsum_sorted_or_shared(v, w):
    if v[0] > 0.5:
        return np.cumsum(w)
    for i in range(len(v)):
        if v[i] > 0.9:
            return w
    return np.sort(w)


@pytest.mark.parametrize("f", [shared_or_sorted, sorted_or_shared, shared_or_per_example,
                               sorted_shared_in_a_while, cumsum_sorted_or_shared],
                         ids=lambda f: f.__name__)
def test_shared_vectors_returned_on_some_paths(f):
    """A vector the same for every example on one path (`np.sort(w)` runs once, on the
    shared `w`) and per example on another is broadcast to every lane that returns it."""
    check(f, vector_and_shared, (0, None))


def _sorted_copy(w):
    try:
        return np.sort(w)
    except TypeError:
        return w


def unknown_shape_returned(v, w):
    for i in range(len(v)):
        if v[i] > 0.5:
            return _sorted_copy(w)
    return w


def accumulates_from_a_number(v, x):
    s = 0.0
    i = 0
    while i < x:
        s = s + v
        i += 1
    return s


def test_values_of_unknown_or_changing_shape_are_refused_where_they_are_written():
    v, w = np.ones((3, 4)), np.ones(4)
    with pytest.raises(VectorizeError) as err:
        vmap(unknown_shape_returned, in_axes=(0, None))(v, w)
    message = str(err.value)
    assert "cannot tell the shape" in message and "return _sorted_copy(w)" in message
    with pytest.raises(VectorizeError) as err:
        vmap(accumulates_from_a_number)(v, np.ones(3))
    message = str(err.value)
    assert "`s` is a number" in message and "s = s + v" in message
    for engine_name in ("result", "returned", "active"):
        assert f"`{engine_name}" not in message


def _returns_from_an_endless_loop(u, t):
    k = 0
    while True:
        if u[k % 4] > t or k > 6:
            return u * k
        k += 1


def calls_a_helper_that_returns_from_an_endless_loop(v, x):
    if x > 0.3:
        return _returns_from_an_endless_loop(v, x)
    return v


def breaks_from_an_endless_loop(v, x):
    r = np.zeros_like(v)
    k = 0
    while True:
        if v[k % 4] > x or k > 6:
            r = v * k
            break
        k += 1
    return r


def test_a_vector_returned_only_from_a_loop_is_refused_and_the_suggestion_works():
    """Where every path returns from the loop, an empty batch (or a helper called on none
    of its lanes) never runs it, and nothing tells the result's shape: refused, at the
    user's `return`; what the suggestion says to write instead works."""
    with pytest.raises(VectorizeError) as err:
        vmap(calls_a_helper_that_returns_from_an_endless_loop)(np.ones((3, 4)), np.ones(3))
    message = str(err.value)
    assert "every example leaves by `return`" in message and "return u * k" in message
    check(breaks_from_an_endless_loop, vectors(), (0, 0))


# ------------------------------------------- item 3: nested loops, early returns, helpers
def _first_step(a, t):
    for k in range(3):
        if a > t * k:
            return a - k
    return a


def _halvings(a, t):
    n = 0
    while a > t and n < 5:
        a = a / 2
        n += 1
        if n > 3:
            return -a
    return a


def inner_while_then_helper(v, x):
    for i in range(len(v)):
        j = 0
        while j < i:
            if v[j] + v[i] > 2 * x:
                return _first_step(v[i], x)
            j += 1
        if v[i] < x / 3:
            return v[i]
    y = _first_step(x, 0.5)
    return y * 2


def inner_for_then_helper(v, x):
    for i in range(len(v)):
        for j in range(2):
            if v[j] + v[i] > 2 * x:
                return v[i]
    return _first_step(x, 0.5)


def sums_then_helpers(v, x):
    s = 0.0
    for i in range(len(v)):
        for j in range(len(v)):
            if v[i] * v[j] > x:
                return s + _first_step(v[j], x)
            s += v[j]
        if s > 3 * x:
            return s
    t = _halvings(s, x)
    if t > 1:
        return t
    return -t


def helper_before_and_after(v, x):
    r = _first_step(x, 0.3)
    for i in range(len(v)):
        if v[i] > r:
            for j in range(i):
                if v[j] > x:
                    return r + j
            return r
    r = r + _halvings(x, 0.2)
    if r > 0.5:
        return r * 3
    return r


def totals_with_a_shared_exit(v, x):
    total = 0.0
    for _ in range(2):
        if x > 0.9:
            return 0.0
        for j in range(len(v)):
            if v[j] > x:
                total += _first_step(v[j], x)
                if total > 2:
                    return total
    if total > 1:
        return _halvings(total, x)
    return total


NESTED = [inner_while_then_helper, inner_for_then_helper, sums_then_helpers,
          helper_before_and_after, totals_with_a_shared_exit]


@pytest.mark.parametrize("f", NESTED, ids=lambda f: f.__name__)
def test_nested_loops_with_early_returns_and_helpers(f):
    """The flag an inner loop's return sets is tested again after the outer loop; only the
    `if` after the outer loop may be compacted under its name (it was taken for both, and
    the inner `if` stayed a Python `if` on a per-example flag)."""
    check(f, vectors(), (0, 0))


@pytest.mark.parametrize("f", NESTED, ids=lambda f: f.__name__)
def test_nested_loops_with_early_returns_and_helpers_with_a_signature(f):
    check(f, vectors(), (0, 0), call=lambda f: vectorize(f, signature="(n),()->()",
                                                         fallback="error"))


# ------------------------------------------ carries a masked loop names only where it sets them
def returns_after_a_shared_break(v, w):
    """The loop's body guard is compacted (`guard_indices` keeps its test, `active`, which
    the `break` changes before the index, under a name of its own, and the body holds a
    loop): the early return's flag `returned` is named in the loop only where the compacted
    `if` sets it to True, so the loop's gathered lanes did not carry it (it was read and
    written at the lanes' positions in the whole batch; fuzzer, issue 13)."""
    n = 0
    t = 0.0
    while n < 2 and v[0] > 0:
        n += 1
        if w[2] > 1:
            if len(v) > 1:
                break
        a = v[int(w[0] > 0)]
        b = a * 2.0
        c = b + a
        if c > 0:
            return c
        for _ in range(2):
            t = t + w[1]
    return t


def flag_set_after_a_shared_break(v, w):
    """The same with the user's own flag, set only under a compacted `if`."""
    n = 0
    t = 0.0
    found = False
    while n < 2 and v[0] > 0:
        n += 1
        if w[2] > 1:
            if len(v) > 1:
                break
        a = v[int(w[0] > 0)]
        b = a * 2.0
        c = b + a
        if c > 0:  # vectorize: compact
            found = True
        for _ in range(2):
            t = t + w[1]
    return t + found


def _two_vectors(rng, n):
    """Examples that start the loop or not (``v[0] > 0``) and break from it or not."""
    return rng.uniform(-1.0, 2.0, (n, 5)), rng.uniform(-1.0, 2.0, (n, 5))


@pytest.mark.parametrize("f", [returns_after_a_shared_break, flag_set_after_a_shared_break],
                         ids=lambda f: f.__name__)
def test_carries_set_only_under_a_compacted_if_in_a_compacted_loop(f):
    check(f, _two_vectors, (0, 0))


# --------------------------------------------------------- item 5: per-example fallback pieces
def last_of_a_range(lo, hi):
    # (`np.sum` of it is a masked reduction, through the name too; its last item is not)
    j = np.arange(lo, hi + 1)
    return np.exp(-j)[-1]


def factorial_piece(n, x):
    # (math.factorial has a rule now: math.ulp has none, so it stays a per-example piece)
    return math.ulp(n) * x + 1.0


def _reference_lanes(f, *args):
    return np.array([f(*lane) for lane in zip(*args)])


@pytest.mark.parametrize("lengths", ["ragged", "equal"])
@pytest.mark.parametrize("mode", ["warn", "loop"])
def test_a_fallback_piece_that_is_not_a_number_runs_the_whole_function_per_example(
        lengths, mode):
    lo = np.array([1, 2, 3, 0, 5])
    hi = lo + (np.array([2, 3, 1, 4, 0]) if lengths == "ragged" else 2)
    for f in (vectorize(last_of_a_range, fallback=mode),
              vmap(last_of_a_range, fallback=mode)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with pytest.raises(ValueError):
                # the per-example loop of nothing: numpy.vectorize without `otypes` and
                # `np.stack` of no results cannot tell the output's type either
                f(lo[:0], hi[:0])
            for n in (1, 5):
                got = f(lo[:n], hi[:n])
                expected = _reference_lanes(last_of_a_range, lo[:n], hi[:n])
                assert np.shape(got) == (n,)
                np.testing.assert_allclose(got, expected.astype(float), rtol=1e-12)
            big_lo = np.arange(LARGE) % 7
            big_hi = big_lo + (np.arange(LARGE) % 5 if lengths == "ragged" else 3)
            expected = _reference_lanes(last_of_a_range, big_lo, big_hi)
            for _ in range(3):
                np.testing.assert_allclose(f(big_lo, big_hi), expected, rtol=1e-12)
        messages = [str(w.message) for w in caught
                    if issubclass(w.category, VectorizeFallbackWarning)]
        if mode == "loop":
            assert messages == []
        else:
            assert len(messages) == 1, messages
            assert "the whole function" in messages[0]
            assert "np.arange(lo, hi + 1)" in messages[0]
            assert "different length per example" in messages[0]


def test_a_fallback_piece_is_located_with_fallback_error():
    with pytest.raises(VectorizeError) as err:
        vectorize(last_of_a_range, fallback="error")(np.array([1, 2]), np.array([3, 3]))
    assert "j = np.arange(lo, hi + 1)" in str(err.value)


def test_a_fallback_piece_that_gives_numbers_stays_a_piece():
    n, x = np.array([0, 1, 3, 5]), np.array([0.5, 1.0, 2.0, -1.0])
    f = vectorize(factorial_piece, fallback="warn")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = f(n, x)
    np.testing.assert_allclose(got, _reference_lanes(factorial_piece, n, x), rtol=1e-12)
    (message,) = [str(w.message) for w in caught]
    assert "for part of its work" in message
    assert "for n_i" in f.source(n, x) or "zip(n, " in f.source(n, x)


def factorial_where_positive(x):
    if x > 0:
        return float(math.ulp(x))
    return x


def factorial_where_positive_selected(x):
    # vectorize: select
    if x > 0:
        y = float(math.ulp(x))
    else:
        y = x
    return y


def test_a_fallback_piece_under_a_per_example_if_runs_only_where_python_runs_it():
    """A call without a rule (`math.ulp`; `math.factorial` was one, which raises for the
    negative examples the `if` keeps out) runs on the branch's own examples (the compacted
    `if`), at every batch size and call."""
    f = vectorize(factorial_where_positive, fallback="warn")
    for n in (0, 1, 5, LARGE, LARGE, LARGE):
        x = np.linspace(-4.0, 6.0, n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", VectorizeFallbackWarning)
            got = f(x)
        expected = _reference_lanes(factorial_where_positive, x)
        np.testing.assert_array_equal(got, expected.astype(float))
    assert "lanes" in f.source(np.linspace(-4.0, 6.0, 5))


def test_a_fallback_piece_in_a_selected_if_makes_the_whole_function_run_per_example():
    x = np.array([-1.0, 0.0, 2.0, 4.0])
    f = vectorize(factorial_where_positive_selected, fallback="warn")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = f(x)
    np.testing.assert_array_equal(got, _reference_lanes(factorial_where_positive_selected, x))
    (message,) = [str(w.message) for w in caught]
    assert "the whole function" in message and "math.ulp" in message
    with pytest.raises(VectorizeError, match="math.ulp. has no batching rule"):
        vectorize(factorial_where_positive_selected, fallback="error")(x)


# ------------------------------------- a number on one per-example path, a vector on another
def number_or_vector_assigned(v, x):
    if x > 0:
        r = v * 2.0
    else:
        r = x
    return np.sum(r)


def zero_or_vector_returned(v, x):
    if x > 0:
        return v * 2.0
    return 0.0


def prefix_or_vector(v, x):
    if x > 0:
        r = v[:2]
    else:
        r = v
    return r


def vector_either_way(v, x):
    if x > 0:
        r = v * 2.0
    else:
        r = -v
    return np.sum(r)


@pytest.mark.parametrize("f, line", [(number_or_vector_assigned, "if x > 0:"),
                                     (zero_or_vector_returned, "return 0.0"),
                                     (prefix_or_vector, "if x > 0:")],
                         ids=lambda p: getattr(p, "__name__", ""))
def test_values_of_different_shapes_on_per_example_paths_are_refused(f, line):
    """Per example the results have different shapes (a number where the others have
    vectors): no batch holds them, and broadcasting the number to a vector would give
    `np.sum(r)` of that lane a sum of copies (the per-example loop gives the number)."""
    v, x = np.ones((3, 4)), np.array([1.0, -1.0, 2.0])
    with pytest.raises(VectorizeError) as err:
        vmap(f)(v, x)
    message = str(err.value)
    assert "different shapes" in message and line in message
    for engine_name in ("result", "returned", "cond"):
        assert f"`{engine_name}" not in message


def test_vectors_of_one_shape_on_per_example_paths_are_chosen_per_example():
    v, x = np.arange(12.0).reshape(3, 4), np.array([1.0, -1.0, 2.0])
    np.testing.assert_array_equal(vmap(vector_either_way)(v, x),
                                  [vector_either_way(a, b) for a, b in zip(v, x)])


def flag_and_word_returned_in_a_loop(v):
    n0 = 0
    while n0 < 2 and np.sum(v) < float(len(v)):
        n0 += 1
        if 1.0 < v[min(n0, len(v) - 1)]:
            return v[0] + v[0] < v[0], "hi"
        else:
            return v[0] < v[0], "lo"
    return v[0] < v[0], "done"


def test_a_tuple_with_a_string_returned_from_a_loop():
    """The placeholder of the loop's result had 0.0 for the string (fuzzer, seed 6000:
    DTypePromotionError in np.where); it is an empty string now."""
    f = vectorize(flag_and_word_returned_in_a_loop, signature="(n)->(),()", fallback="error")
    rng = np.random.default_rng(0)
    for n in (0, 1, 5, 2000):
        v = rng.normal(size=(n, 3)) * 2
        flags, words = f(v)
        expected = [flag_and_word_returned_in_a_loop(row) for row in v]
        assert flags.tolist() == [bool(e[0]) for e in expected]
        if n:   # numpy.vectorize's words: of the first example's string dtype ('done' of
            # a later example cut to 'do' where the first is 'lo'), as it makes them
            expected = list(zip(*np.vectorize(flag_and_word_returned_in_a_loop,
                                              signature="(n)->(),()")(v)))
        assert words.tolist() == [e[1] for e in expected]


def label_of_collatz(n):
    label = "-"
    steps = 0
    while n > 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
        if steps > 5:
            label = "long-collatz"
    return label


def label_of_halvings(x):
    label = "-"
    k = 0
    while x > 1.0:
        x = x / 2.0
        k += 1
        if k > 3:
            label = "big-number"
    return label


@pytest.mark.parametrize("f, make", [
    (label_of_collatz, lambda rng, n: rng.integers(1, 200, size=n)),
    (label_of_halvings, lambda rng, n: rng.uniform(-1.0, 100.0, size=n)),
])
def test_string_carries_of_masked_loops(f, make):
    # a string carried by a masked loop was made an array with `dtype=np.str32` (no such
    # name: AttributeError on every call); its width is the value's own now, and np.where
    # widens it to the longer strings the loop assigns
    rng = np.random.default_rng(11)
    vf = vmap(f, chunk_size="auto")
    sizes = [0, 1, 5] + [int(rng.integers(20000, 30000)) for _ in range(12)]
    labels = {}       # the loop per distinct value (f is pure: collatz draws 199 values)
    for size in sizes:
        x = make(rng, size)
        got = vf(x)
        assert list(got) == [labels[v] if v in labels else labels.setdefault(v, f(v))
                             for v in x]
