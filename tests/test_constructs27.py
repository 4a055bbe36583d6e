"""Constructs of issue 20 that made real scientific functions refuse: self-recursion with a
per-example base case, ``except E as e`` whose handler raises with ``e``, ``raise ... from
...``, dicts looked up by a per-example key, names bound on some paths only. Each function is
checked against numpy.vectorize itself (values and dtype, or the same exception type) at
N = 0, 1, 5 and 1000, inputs that raise included, and under `vmap` against the loop over
NumPy scalars."""

from __future__ import annotations

import math

import libcst as cst
import numpy as np
import pytest
from differential import assert_values_equal, outcome

from vectorize import VectorizeError, vectorize, vmap
from vectorize.body_constructs import recursion
from vectorize.source import read_function

SIZES = (0, 1, 5, 1000)


def same_as_numpy_vectorize(f, *args, otypes=None):
    """`vectorize(f)` against numpy.vectorize(f): equal values and dtype, or the same
    exception type (and the same message: the first failing example's)."""
    ref = np.vectorize(f, otypes=otypes)
    want, raised = outcome(lambda: ref(*args))
    got, got_raised = outcome(lambda: vectorize(f, fallback="error")(*args))
    if isinstance(got_raised, VectorizeError):
        raise got_raised
    if raised is not None:
        assert type(got_raised) is type(raised), (raised, got, got_raised)
        assert str(got_raised) == str(raised)
        return
    assert got_raised is None, got_raised
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert_values_equal(got, want)


def same_as_the_loop(f, *args):
    """`vmap(f)` against the loop over NumPy scalars: the same values, or the same
    exception type."""
    want, raised = outcome(lambda: np.array([f(*row) for row in zip(*args)]))
    got, got_raised = outcome(lambda: vmap(f, fallback="error")(*args))
    if isinstance(got_raised, VectorizeError):
        raise got_raised
    if raised is not None:
        assert type(got_raised) is type(raised), (raised, got, got_raised)
        return
    assert got_raised is None, got_raised
    assert_values_equal(got, want.astype(got.dtype) if want.size == 0 else want)


def every_size(f, make, otypes, vmapped=True):
    for n in SIZES:
        args = make(n)
        same_as_numpy_vectorize(f, *args, otypes=otypes if n == 0 else None)
        if vmapped and n:
            same_as_the_loop(f, *args)


def floats(n, lo=-6.0, hi=6.0, seed=0, special=(0.0, -0.0, math.inf, -math.inf, math.nan)):
    rng = np.random.default_rng(seed + n)
    x = np.round(rng.uniform(lo, hi, n), 2)
    if special:
        picked = rng.random(n) < 0.05
        x[picked] = rng.choice(special, picked.sum())
    return x


def ints(n, lo, hi, seed=0):
    return np.random.default_rng(seed + n).integers(lo, hi, n)


# ------------------------------------------------ self-recursion with a per-example base case

def reflected(x, s):
    """The reflection idiom: one level deep for every example."""
    if x > 0:
        return math.tanh(x) - reflected(-x, s)
    if s <= abs(x) * 1e-3:
        return 0.0
    if x < -2 * s:
        return math.exp(x / s)
    return 0.5 * (1.0 + math.erf(x / s))


def power_by_halving(x, n):
    """Depth log2(n): batched up to the written-out depth, deeper examples per example."""
    if n < 0:
        raise ValueError(f"negative exponent {n}")
    if n == 0:
        return 1.0
    half = power_by_halving(x, n // 2)
    if n % 2:
        return half * half * x
    return half * half


def countdown_sum(n, step=1):
    """Depth n (an int result, a keyword argument with its default)."""
    if n <= 0:
        return 0
    return n + countdown_sum(n - step, step=step)


def two_calls(n):
    """Two calls per level (the copies double: fewer levels written out)."""
    if n < 2:
        return float(n)
    return two_calls(n - 1) + 0.5 * two_calls(n - 2)


def halved_until_small(x):
    """A float recursion whose depth grows with |x|; inf recurses forever in Python
    (RecursionError), NaN stops at once."""
    if x > 1.0 or x < -1.0:
        y = halved_until_small(x / 4.0)
        return 2.0 * y + math.copysign(0.25, x)
    return x


RECURSIVE = [
    (reflected, lambda n: (floats(n), np.abs(floats(n, 0.0, 3.0, seed=5))), [float]),
    (power_by_halving, lambda n: (floats(n, -2, 2, special=()), ints(n, -1, 200)), [float]),
    (countdown_sum, lambda n: (ints(n, -3, 12),), [int]),
    (two_calls, lambda n: (ints(n, -2, 9),), [float]),
    (halved_until_small, lambda n: (floats(n, -2000.0, 2000.0, special=(0.0, math.nan)),),
     [float]),
]


@pytest.mark.parametrize(("f", "make", "otypes"), RECURSIVE,
                         ids=[f.__name__ for f, *_ in RECURSIVE])
def test_recursion_matches_numpy_vectorize(f, make, otypes):
    every_size(f, make, otypes)


def test_recursion_that_never_ends_raises_recursion_error_as_python():
    x = np.array([0.5, math.inf, 3.0])
    same_as_numpy_vectorize(halved_until_small, x)
    with pytest.raises(RecursionError):
        vectorize(halved_until_small, fallback="error")(x)


def test_recursion_is_written_out_and_batched():
    """The written-out code (not the per-example loop) gives the reflection's results."""
    batched = vectorize(reflected, fallback="error")
    x, s = floats(50), np.abs(floats(50, 0.0, 3.0, seed=5))
    code = batched.source(x, s)
    assert "reflected(" not in code.split("def reflected(", 1)[1]
    assert "RecursionError" in code


def test_written_out_copies_are_bounded():
    """Two calls per level: as many levels as `COPIES` copies of the body allow."""
    tree = read_function(two_calls).tree
    text = cst.Module([recursion.unroll_recursion(tree, two_calls)]).code
    assert "two_calls(" not in text.split("def two_calls(", 1)[1]
    copies = text.count("two_calls_result")
    assert 0 < copies and text.count(" = n_") <= recursion.COPIES * 2


def recursion_in_a_conditional_expression(n):
    return 1.0 if n <= 0 else n * recursion_in_a_conditional_expression(n - 1)


def recursion_in_a_test(n):
    if n > 0 and recursion_in_a_test(n - 1) > 3:
        return 1.0
    return 0.0


@pytest.mark.parametrize("f", [recursion_in_a_conditional_expression, recursion_in_a_test])
def test_recursion_it_cannot_write_out_is_a_located_refusal(f):
    with pytest.raises(VectorizeError) as info:
        vectorize(f, fallback="error")(np.arange(4))
    text = str(info.value)
    assert f"`{f.__name__}` calls itself" in text
    assert "test_constructs27.py:" in text and "^" in text


# --------------------------------------------- `except E as e` whose handler raises with `e`

def log_explained(x):
    try:
        y = math.log(x)
    except ValueError as e:
        raise ValueError(f"log of {x}: {e}") from e
    return 2.0 * y


def ratio_explained(a, b):
    try:
        r = a / b
    except ZeroDivisionError as err:
        raise ArithmeticError("ratio: " + str(err)) from None
    return r


def reraised(x):
    try:
        y = math.sqrt(x) + 1.0 / (x - 4.0)
    except (ValueError, ZeroDivisionError) as exc:
        raise exc
    return y


def raised_on_some_only(x):
    try:
        y = math.sqrt(x)
    except ValueError as e:
        if x < -3:
            raise OverflowError(repr(e))  # noqa: B904 -- (the shape tested)
        y = -1.0
    return y


def nested_handlers(x):
    """The inner handler raises with its exception; the outer one catches that."""
    try:
        try:
            y = math.acos(x)
        except ValueError as e:
            raise KeyError(str(e)) from e
    except LookupError:
        y = -2.0
    return y


def two_tries(x):
    """A later handler's own variable `e` is not the earlier handler's exception."""
    e = 2.5
    try:
        y = math.log(x)
    except ValueError as e2:
        raise ValueError(f"log: {e2}") from e2
    try:
        z = 1.0 / (x - 3.0)
    except ZeroDivisionError:
        z = e
    return y + z


def message_made_first(x):
    try:
        y = 1.0 / x
    except ZeroDivisionError as e:
        message = f"1 / {x}: {e}"
        longer = "reciprocal: " + message
        if x == 0:
            raise ArithmeticError(longer) from e
        y = 0.0
    return y


def raise_from_none(x):
    if x < -5:
        raise ValueError(f"below range: {x}") from None
    return x * 3.0


HANDLERS = [
    (log_explained, lambda n: (floats(n, -1.0, 9.0),)),
    (ratio_explained, lambda n: (floats(n), np.round(floats(n, -2.0, 2.0, seed=3), 0))),
    (reraised, lambda n: (np.round(floats(n, -1.0, 9.0), 0),)),
    (raised_on_some_only, lambda n: (floats(n, -3.5, 9.0),)),
    (nested_handlers, lambda n: (floats(n, -2.0, 2.0),)),
    (raise_from_none, lambda n: (floats(n, -5.5, 9.0),)),
    (two_tries, lambda n: (np.round(floats(n, -0.5, 9.0), 0),)),
    (message_made_first, lambda n: (np.round(floats(n, -2.0, 2.0), 0),)),
]


@pytest.mark.parametrize(("f", "make"), HANDLERS, ids=[f.__name__ for f, _ in HANDLERS])
def test_handlers_reading_the_exception_match_numpy_vectorize(f, make):
    every_size(f, make, [float])
    # inputs where no example raises, and where one does
    for n in (5, 1000):
        args = make(n)
        same_as_numpy_vectorize(f, *[np.nan_to_num(a, nan=0.5, posinf=1.5, neginf=0.5)
                                     for a in args])


def test_a_raising_handler_gives_the_first_failing_examples_exception():
    x = np.array([1.0, 2.0, -3.0, -4.0])
    with pytest.raises(ValueError, match=r"^log of -3\.0: math domain error$") as info:
        vectorize(log_explained, fallback="error")(x)
    assert type(info.value.__cause__) is ValueError


def exception_read_otherwise(x):
    try:
        y = math.log(x)
    except ValueError as e:
        message = str(e)
        y = float(len(message))
    return y


def exception_attributes(x):
    try:
        y = math.log(x)
    except ValueError as e:
        raise ValueError(e.args[0]) from None
    return y


def message_read_after_the_handler(x):
    try:
        y = math.log(x)
    except ValueError as e:
        message = "log: " + str(e)
        y = -1.0
    return y + len(message) if x < 0 else y


@pytest.mark.parametrize("f", [exception_read_otherwise, exception_attributes,
                               message_read_after_the_handler])
def test_an_exception_read_other_than_to_raise_it_is_refused(f):
    with pytest.raises(VectorizeError) as info:
        vectorize(f, fallback="error")(np.array([1.0, -1.0]))
    assert "`except ... as e` that reads the exception" in str(info.value)
    assert "^" in str(info.value)


# ------------------------------------------------- dicts looked up by a per-example key

RATES = {1: 0.5, 2: 1.25, 3: 4.0, 7: -2.0}
PAIRS = {0: (1.0, 2.0), 1: (3.0, -1.0), 2: (0.5, 0.25)}


def rate_lookup(k, x):
    return RATES[k] * x


def pair_lookup(k, x):
    a, b = PAIRS[k]
    return a * x + b


def guarded_lookup(k, x):
    if k in RATES:
        return RATES[k] + x
    return RATES.get(k + 1, -1.0) * x


DICTS = [
    (rate_lookup, lambda n: (ints(n, 1, 4), floats(n))),
    (rate_lookup, lambda n: (ints(n, 0, 9), floats(n))),        # missing keys: KeyError
    (pair_lookup, lambda n: (ints(n, 0, 3), floats(n))),
    (pair_lookup, lambda n: (ints(n, -1, 3), floats(n))),
    (guarded_lookup, lambda n: (ints(n, -1, 9), floats(n))),
]


@pytest.mark.parametrize(("f", "make"), DICTS, ids=[f"{f.__name__}-{i}"
                                                    for i, (f, _) in enumerate(DICTS)])
def test_dict_lookups_by_a_per_example_key_match_numpy_vectorize(f, make):
    every_size(f, make, [float])


def test_a_missing_key_raises_key_error():
    with pytest.raises(KeyError):
        vectorize(rate_lookup, fallback="error")(np.array([1, 5]), np.array([1.0, 2.0]))


# ----------------------------------------------------- names bound on some paths only

def bound_on_some_paths(x, k):
    if k == 0:
        y = x * 2.0
    elif k == 1:
        y = -x
    if k >= 2:
        return 0.0
    return y + 1.0          # every path that gets here bound `y`


def unbound_on_some(x):
    if x > 1.0:
        z = math.sqrt(x)
    elif x < -1.0:
        z = -x
    return z * 2.0          # |x| <= 1 reads `z` unbound: UnboundLocalError


UNBOUND = [
    (bound_on_some_paths, lambda n: (floats(n), ints(n, 0, 4))),
    (unbound_on_some, lambda n: (floats(n, -4.0, 4.0, special=()) * 0 + np.where(
        np.arange(n) % 2 == 0, 2.5, -3.0),)),
    (unbound_on_some, lambda n: (floats(n, -4.0, 4.0),)),
]


@pytest.mark.parametrize(("f", "make"), UNBOUND, ids=["bound", "never-unbound", "unbound"])
def test_names_bound_on_some_paths_match_numpy_vectorize(f, make):
    every_size(f, make, [float])


def test_a_read_of_an_unbound_name_raises_unbound_local_error():
    with pytest.raises(UnboundLocalError):
        vectorize(unbound_on_some, fallback="error")(np.array([2.0, 0.5]))
