"""The constructs real scientific code uses that the engine now batches (issue 20, "The
constructs real code uses", "Names bound on some paths"): ``*args``, closures of several
statements, ``match``, comprehensions consumed by ``sum``/``any``/``all``/``max``/``min``/
``tuple``, ``in`` against literal and shared tables, loop ``else`` with ``break``, tables of
strings and rows, names bound on some paths, ``math.comb``/``perm``/``factorial``/``isqrt``
and ``dict.get``. Each is checked against ``numpy.vectorize`` itself (Python numbers per
example: equal values and dtype, or the same exception type) at N = 0, 1, 5 and a large
batch called twice, and where it applies ``vmap`` against the per-example loop over NumPy
scalars."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from differential import assert_values_equal
from vmap_reference import assert_same_tree, loop_vmap

from vectorize import VectorizeError, explain, vectorize, vmap

SIZES = (1, 5, 10_000)


def outcome(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return call(), None
        except Exception as exc:    # noqa: BLE001 -- compared by type
            return None, exc


def check(func, make, sizes=SIZES, seed=0):
    """``vectorize(func)`` against ``numpy.vectorize(func)`` on ``make(rng, n)`` (a tuple of
    arguments) for each size (the largest twice, fresh data), and at N = 0 the dtype of the
    N = 5 result."""
    rng = np.random.default_rng(seed)
    ours = vectorize(func, fallback="error")
    dtypes = None
    for n in sizes + sizes[-1:]:
        args = make(rng, n)
        want, error = outcome(lambda args=args: np.vectorize(func)(*args))
        got, our_error = outcome(lambda args=args: ours(*args))
        if error is not None:
            assert our_error is not None and type(our_error) is type(error), (
                f"N={n}: numpy.vectorize raised {error!r}, vectorize gave "
                f"{our_error!r} / {got!r}")
            continue
        assert our_error is None, f"N={n}: vectorize raised {our_error!r}"
        for g, w in zip(got if isinstance(got, tuple) else (got,),
                        want if isinstance(want, tuple) else (want,)):
            assert g.dtype == w.dtype, (n, g.dtype, w.dtype)
            assert_values_equal(g, w)
        if n == 5:
            dtypes = [w.dtype for w in (want if isinstance(want, tuple) else (want,))]
    empty = make(rng, 0)
    got, our_error = outcome(lambda: ours(*empty))
    if our_error is None and dtypes is not None:
        for g, dt in zip(got if isinstance(got, tuple) else (got,), dtypes):
            # (a string's size at N = 0 is its minimum, 1: numpy.vectorize has no example)
            assert g.shape == (0,) and (g.dtype == dt or g.dtype.kind == dt.kind == "U"), (
                g.shape, g.dtype, dt)
    return ours


def check_vmap(func, *args):
    assert_same_tree(vmap(func)(*args), loop_vmap(func)(*args))


def floats(lo, hi, k=1):
    return lambda rng, n: tuple(rng.uniform(lo, hi, n) for _ in range(k))


def ints(lo, hi, k=1):
    return lambda rng, n: tuple(rng.integers(lo, hi + 1, n) for _ in range(k))


# ---------------------------------------------------------------------------------- *args


def clothing_insulation(*layers):
    total = 0.0
    for clo in layers:
        total += clo
    return 0.835 * total + 0.161


def weighted_mean(scale, *values, shift=0.0):
    if not values:
        return shift
    return scale * sum(values) / len(values) + shift + values[0] * 0.0


def first_over(limit, *values):
    for k in range(len(values)):
        if values[k] > limit:
            return k
    return -1


@pytest.mark.parametrize("count", [1, 2, 4])
def test_star_args_of_per_example_values(count):
    check(clothing_insulation, floats(0.0, 0.5, count))


def test_star_args_mixed_with_shared_values_and_keywords():
    ours = vectorize(weighted_mean, fallback="error")
    x = np.linspace(-1.0, 1.0, 7)
    for args, kwargs in [((2.0, x, x * 2), {"shift": 1.0}), ((x,), {}), ((x, 3.0, x), {}),
                         ((0.5, 2.0, x), {"shift": x})]:
        want = np.vectorize(weighted_mean)(*args, **kwargs)
        got = ours(*args, **kwargs)
        assert got.dtype == want.dtype
        assert_values_equal(got, want)
    check(first_over, lambda rng, n: (0.5, *(rng.uniform(0, 1, n) for _ in range(3))))


# ------------------------------------------------------------------------------- closures


def pipe_head_loss(v, d, rough):
    re = v * d / 1e-6

    def friction(r):
        a = rough / (3.7 * d)
        b = 5.74 / r ** 0.9
        return 0.25 / math.log10(a + b) ** 2

    f = friction(re)
    return f * v * v / (2 * d) + friction(2 * re)


def clipped_gain(x, gain):
    def amplify(y):
        z = y * gain
        if z > 1.0:
            z = 1.0
        return z - x

    return amplify(x) + amplify(-x)


def test_closure_of_several_statements_over_per_example_values():
    check(pipe_head_loss, lambda rng, n: (rng.uniform(0.1, 3, n), 0.1, rng.uniform(0, 1e-4, n)))
    check(clipped_gain, floats(-2, 2, 2))
    check_vmap(clipped_gain, np.linspace(-2, 2, 7), np.linspace(0, 3, 7))


# ---------------------------------------------------------------------------------- match


class Shape:
    SQUARE = 0
    CIRCLE = 1


def shape_area(kind, size):
    match kind:
        case Shape.SQUARE:
            return size * size
        case Shape.CIRCLE:
            return math.pi * size * size / 4
        case 2 | 3 if size > 1:
            return math.sqrt(3) / 4 * size * size
        case 2 | 3:
            return -1.0
        case _:
            return 0.0


def tariff(code, amount):
    rate = 0.0
    match code + 1:
        case 1:
            rate = 0.1
        case 2 | 4:
            rate = 0.2
    return amount * rate


def leftover(kind, x):
    match kind:
        case 0:
            return x
        case other:
            return x * other


def test_match_with_literal_value_or_patterns_and_guards():
    check(shape_area, lambda rng, n: (rng.integers(0, 5, n), rng.uniform(0, 3, n)))
    check(tariff, lambda rng, n: (rng.integers(-1, 5, n), rng.uniform(0, 100, n)))
    check(leftover, lambda rng, n: (rng.integers(0, 3, n), rng.uniform(0, 1, n)))
    check_vmap(shape_area, np.arange(5), np.linspace(0.5, 2.5, 5))


def by_type(x):
    match x:
        case int():
            return 1.0
    return 0.0


def test_match_patterns_it_does_not_batch_are_refused_with_their_place():
    with pytest.raises(VectorizeError, match="`case` pattern is not batched") as info:
        vectorize(by_type, fallback="error")(np.arange(3.0))
    assert "test_real_constructs.py" in str(info.value)


# ------------------------------------------------------------------- comprehensions consumed

COEFFS = (1.0, -0.5, 0.25, 2.0)
LIMITS = (0.1, 0.4, 0.7)
ROWS = ((0.0, 1.0), (0.5, 2.0), (1.0, 3.0))


def all_positive(a, b, c):
    return all(v > 0 for v in (a, b, c))


def any_above(x):
    return any(x > t for t in LIMITS)


def poly(x):
    return sum(c * x ** k for k, c in enumerate(COEFFS))


def spread(x, y):
    return max(abs(a - b) for a, b in zip((x, y, 1.0), (y, 0.5, x))) - min(
        v * k for k, v in enumerate((x, y)))


def moments(x):
    return tuple(x ** k for k in range(1, 4))


def weighted(x):
    return sum(w * (x - lo) for lo, w in ROWS)


def geometric_sum(q):
    terms = [q ** k for k in range(6)]
    return sum(terms)


@pytest.mark.parametrize("func,make", [
    (all_positive, floats(-1, 1, 3)), (any_above, floats(0, 1)), (poly, floats(-2, 2)),
    (spread, floats(-1, 1, 2)), (moments, floats(-2, 2)), (weighted, floats(0, 2)),
    (geometric_sum, floats(0, 1))])
def test_comprehensions_consumed_by_builtins(func, make):
    check(func, make)


def test_comprehensions_under_vmap():
    x = np.linspace(-1, 1, 6)
    for func in (any_above, poly, moments):
        check_vmap(func, x)
    check_vmap(all_positive, x, x[::-1], x + 0.5)


# --------------------------------------------------------------------------------- in

POINTS = (4, 5, 6, 8, 9, 10)
CODES = frozenset({2, 3, 12})


def elo_update(ra, score):
    if score not in (0.0, 0.5, 1.0):
        raise ValueError(f"score must be 0, 0.5 or 1, got {score}")
    return ra + 20 * score


def craps(roll):
    if roll in CODES:
        return -1
    if roll in POINTS:
        return 0
    return 1 if roll in [7, 11] else 2


def test_membership_against_literal_and_shared_tables():
    check(elo_update, lambda rng, n: (rng.uniform(800, 2800, n),
                                      rng.choice([0.0, 0.5, 1.0, 0.25], n, p=[.3, .3, .39, .01])))
    check(craps, ints(1, 13))
    check_vmap(craps, np.arange(1, 14))


# ------------------------------------------------------------------------------ loop else

CP_AIR = ((300.0, 1.005, 0.0), (600.0, 0.95, 0.00019), (3000.0, 1.15, 0.0))


def is_prime(n):
    if n < 2:
        return False
    for d in range(2, math.isqrt(n) + 1):
        if n % d == 0:
            break
    else:
        return True
    return False


def cp_air(t):
    for t_max, a, b in CP_AIR:  # noqa: B007 - read after the loop
        if t <= t_max:
            break
    else:
        raise ValueError("temperature above the table")
    return a + b * t


def halvings(x):
    steps = 0
    while x > 1.0:
        x = x / 2
        steps += 1
        if steps > 5:
            break
    else:
        steps = -steps
    return steps


def test_loop_else_with_per_example_break():
    check(is_prime, ints(0, 400))
    check(cp_air, floats(200, 3100))
    check(halvings, floats(0, 200))
    check_vmap(halvings, np.linspace(0, 200, 9))


def last_row(t):
    a = 0.0
    b = 0.0
    for t_max, a, b in CP_AIR:  # noqa: B007 - read after the loop
        if t <= t_max:
            break
    return a + b * t


def test_unpacked_loop_targets_keep_each_lanes_row():
    # a masked loop gave every lane the last row's a, b (1.15 everywhere)
    check(last_row, floats(200, 2900))


# -------------------------------------------------------------------------------- recursion


def factorial_recursive(n):
    if n <= 1:
        return 1
    return n * factorial_recursive(n - 1)


def factorial_in_a_conditional_expression(n):
    return 1 if n <= 1 else n * factorial_in_a_conditional_expression(n - 1)


def test_recursion_is_written_out_as_numpy_vectorize_computes_it():
    # a few levels batched; an example that recurses deeper runs per example
    n = np.arange(-2, 15)
    got = vectorize(factorial_recursive, fallback="error")(n)
    want = np.vectorize(factorial_recursive)(n)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


def test_recursion_it_cannot_write_out_is_refused_naming_the_function():
    with pytest.raises(VectorizeError, match="factorial_in_a_conditional_expression. calls "
                       "itself") as info:
        vectorize(factorial_in_a_conditional_expression, fallback="error")(np.arange(5))
    assert "test_real_constructs.py" in str(info.value)


# ----------------------------------------------------------------------------- strings

RANK_NAMES = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
              "jack", "queen", "king", "ace")
SVP = ((6.1115, 22.452, 272.55), (6.1121, 17.502, 240.97))


def card(rank):
    if not 2 <= rank <= 14:
        raise ValueError("rank out of range")
    return RANK_NAMES[rank - 2]


def sign_word(x):
    if x > 0:
        return "positive"
    return "neg"


def letter(k):
    return "ABCD"[k]


def saturation(t):
    a, b, c = SVP[0 if t < 0 else 1]
    return a * math.exp(b * t / (c + t))


def test_string_tables_and_string_results_have_numpy_vectorizes_dtype():
    check(card, ints(1, 15))
    check(sign_word, floats(-2, 1))
    check(letter, ints(0, 3))
    check(saturation, floats(-40, 40))
    got = vectorize(sign_word)(np.array([-1.0, -2.0]))
    assert got.dtype == np.dtype("<U3")      # not <U8: no example gave "positive"


# ------------------------------------------------------------------ names bound on some paths


def breeze_class(speed):
    if speed < 0.3:
        code = 0
    elif speed < 1.6:
        code = 1
    elif speed >= 1.6:
        code = 2
    return code


def test_names_bound_on_some_paths_are_checked_at_run_time():
    check(breeze_class, floats(0, 3))
    x = np.array([0.1, np.nan, 2.0])
    with pytest.raises(UnboundLocalError):
        np.vectorize(breeze_class)(x)
    with pytest.raises(UnboundLocalError):
        vectorize(breeze_class, fallback="error")(x)
    check_vmap(breeze_class, np.linspace(0, 3, 7))


# ------------------------------------------------------------------ exact int functions

CRAPS_WIN = {4: 1 / 3, 5: 2 / 5, 6: 5 / 11, 8: 5 / 11, 9: 2 / 5, 10: 1 / 3}


def binomial_pmf(k, n, p):
    return math.comb(n, k) * p ** k * (1 - p) ** (n - k)


def int_functions(n, k):
    return math.comb(n, k) + math.perm(n, k) + math.factorial(k) + math.isqrt(n)


def win(point):
    return CRAPS_WIN.get(point, 0.0)


def test_exact_int_functions_and_their_errors():
    check(binomial_pmf, lambda rng, n: (rng.integers(-1, 30, n), rng.integers(30, 60, n),
                                        rng.uniform(0, 1, n)))
    check(int_functions, lambda rng, n: (rng.integers(0, 20, n), rng.integers(0, 12, n)))
    n = np.array([0, 1, 2, 3, 4, 15, 16, 17, 2 ** 52 + 1, 2 ** 62, 2 ** 63 - 1])
    assert vectorize(isqrt_of, fallback="error")(n).tolist() == [math.isqrt(int(v)) for v in n]


def isqrt_of(n):
    return math.isqrt(n)


def comb_only(n, k):
    return math.comb(n, k)


def test_results_beyond_int64_are_numpy_vectorizes():
    # the first lane too large: numpy.vectorize's result is an object array
    for n in (np.array([100, 10]), np.array([10, 100]), np.array([66, 67])):
        want, error = outcome(lambda n=n: np.vectorize(comb_only)(n, n // 2))
        got, our_error = outcome(lambda n=n: vectorize(comb_only)(n, n // 2))
        if error is not None:
            assert type(our_error) is type(error)
        else:
            assert got.dtype == want.dtype and got.tolist() == want.tolist()


def test_dict_get_with_per_example_keys():
    check(win, lambda rng, n: (rng.integers(2, 13, n),))
    check(win, lambda rng, n: (rng.integers(2, 13, n).astype(float),))
    check_vmap(win, np.arange(2, 13))


def test_a_check_where_python_raises_has_its_own_rule_in_explain():
    def inverse(x):
        return 1.0 / x
    text = str(explain(inverse, np.ones(3)))
    assert "raise.any_lane" in text and "loop.any_lane" not in text


PHASE_NAMES = {0: "new", 1: "first quarter", 2: "full", 3: "last quarter"}
POINTS_OF = {1: 4.0, 2: 3.0, 3: 2.0}


def phase_name(k):
    return PHASE_NAMES[k % 4]


def grade(k):
    return POINTS_OF[k] * 2


def test_dict_indexed_per_example_keys_raises_keyerror_where_python_does():
    check(phase_name, ints(0, 40))
    check(grade, ints(1, 3))
    check(grade, ints(1, 4))        # a missing key: KeyError
    check_vmap(grade, np.array([1, 2, 3, 1]))


def rewritten_then_refused(x, k):
    match k:
        case 1:
            y = 2.0
        case _:
            y = 1.0
    for i in range(3):
        if x > i:
            break
    else:
        y = -y
    return y + x.real_part_of_nothing + (k in (1, 2))


def test_refusals_keep_their_place_in_rewritten_functions():
    with pytest.raises(VectorizeError) as info:
        vectorize(rewritten_then_refused, fallback="error")(np.arange(3.0), np.arange(3))
    line = rewritten_then_refused.__code__.co_firstlineno + 11
    assert f"test_real_constructs.py:{line}:" in str(info.value)


# ------------------------------------------------------------- the runtime, on random ints
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from vectorize import pymath  # noqa: E402

SMALL = st.integers(-3, 70)


def python_or_error(fn, *args):
    try:
        out = fn(*args)
    except ValueError:
        return "ValueError"
    # (from 9.2e18 on the runtime raises OverflowError: the loop then decides, exactly)
    return out if out < 9.2e18 else "big"


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(SMALL, SMALL), min_size=1, max_size=8))
def test_pymath_int_functions_are_pythons(pairs):
    n = np.array([p[0] for p in pairs])
    k = np.array([p[1] for p in pairs])
    for name in ("comb", "perm"):
        want = [python_or_error(getattr(math, name), int(a), int(b)) for a, b in pairs]
        got, error = outcome(lambda name=name: getattr(pymath, name)(n, k))
        if "ValueError" in want:
            assert type(error) is ValueError
        elif "big" in want:
            assert type(error) is OverflowError
        else:
            assert error is None and got.tolist() == want
    want = [python_or_error(math.factorial, int(a)) for a in n]
    got, error = outcome(lambda: pymath.factorial(n))
    if "ValueError" in want:
        assert type(error) is ValueError
    elif "big" in want:
        assert type(error) is OverflowError
    else:
        assert got.tolist() == want


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 2 ** 63 - 1), min_size=1, max_size=8))
def test_pymath_isqrt_is_exact(values):
    assert pymath.isqrt(np.array(values)).tolist() == [math.isqrt(v) for v in values]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(st.integers(-5, 15), st.sampled_from([2.0, 4.5, math.nan])),
                min_size=1, max_size=8))
def test_pymath_lookup_is_dict_get(keys):
    table = {1: 0.5, 2: 1.5, 4.5: 2.0, -3: 9.0}
    arr = np.array(keys, dtype=float)
    want = [table.get(k, -1.0) for k in arr.tolist()]
    assert_values_equal(pymath.lookup(table, arr, -1.0), np.array(want))
