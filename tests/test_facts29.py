"""The call-time decisions that make `vectorize` give numpy.vectorize's answer where the batched
code alone would not (replay the examples, or learn the output types from the first example),
on every backend: a per-example choice between values (the output type is the first
example's), a per-example Python int beside a narrow NumPy int under a ``signature`` (NEP 50:
weak, so it computes in the narrow dtype), and ``math.ldexp`` (it refuses the NumPy int
numpy.vectorize's first example gets). Each program is run by ``vectorize(f, backend=...)``
and by numpy.vectorize: equal values and dtypes, or the same exception type."""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest
from differential import assert_like_numpy_vectorize, outcome

from vectorize import vectorize
from vectorize.spec_facts import SpecFacts
from vectorize.transform import transform_function

BACKENDS = ["numpy"] + [pytest.param(name, marks=pytest.mark.skipif(
    importlib.util.find_spec(name) is None, reason=f"{name} is not installed"))
    for name in ("torch", "jax")]

I8 = np.array([100, 100, 1, -3], dtype=np.int8)
I64 = np.array([3, 2, 1, 5])
F64 = np.array([2.5, 1.5, 0.5, 3.5])


# ----------------------------------------------------------- per-example Python ints
def times_int(a, b):
    return float(a * int(b))


def times_floor_above(a, b):
    return a * math.floor(b) > 100


def times_round(a, b):
    return float(a * round(b))


def xor_ceil(a, b):
    return a ^ math.ceil(b)


def times_int_or_half(a, b):
    return float(a * int(b)) if b > 1 else 0.5


# ----------------------------------------------------------- per-example choices
def int_or_half(x):
    return x if x > 1 else 0.5


def at_least_half(x):
    return max(x, 0.5)


def and_or(x):
    return x > 0 and x or 0.5


def zero_below(x):
    return x if x > 0 else 0


def halves(x):
    y = 0
    while x > 1:
        x = x / 2
        y = y + 1
    return y if y > 1 else 0.5


def dict_pick(k):
    return {0: 1, 1: 2.5}[k]


def tuple_pick(k):
    return (1, 2.5)[k]


def list_pick(k):
    return [1, 2.5][k]


# ----------------------------------------------------------- math.ldexp
def ldexp(x, n):
    return math.ldexp(x, n)


CASES = [
    # (function, arguments, options)
    (times_int, (I8, I64), {"signature": "(),()->()"}),
    (times_floor_above, (I8, F64), {"signature": "(),()->()"}),
    (times_round, (I8, F64), {"signature": "(),()->()"}),
    (xor_ceil, (I8, F64), {"signature": "(),()->()"}),
    (times_int_or_half, (I8, I64), {"signature": "(),()->()"}),
    (times_int, (I8, I64), {}),
    (int_or_half, (np.array([2, 3, 0]),), {}),
    (int_or_half, (np.array([2, 3, 0]),), {"signature": "()->()"}),
    (int_or_half, (np.array([2, 3, 0], dtype=np.int16),), {"signature": "()->()"}),
    (int_or_half, (np.array([2.5, 3, 0], dtype=np.float32),), {}),
    (at_least_half, (np.array([2, 3, 0]),), {}),
    (at_least_half, (np.array([0, 3, 2]),), {"signature": "()->()"}),
    (and_or, (np.array([2, 3, 0], dtype=np.int16),), {}),
    (zero_below, (np.array([-1, 5, 100], dtype=np.int8),), {}),
    (zero_below, (np.array([5, -1, 100], dtype=np.int8),), {"signature": "()->()"}),
    (halves, (np.array([40, 1, 3]),), {}),
    (halves, (np.array([1, 40, 3], dtype=np.int8),), {"signature": "()->()"}),
    (dict_pick, (np.array([0, 1, 1]),), {}),
    (tuple_pick, (np.array([0, 1, 1]),), {}),
    (list_pick, (np.array([0, 1, 1]),), {"signature": "()->()"}),
    (ldexp, (np.array([1.5, 2.5]), np.array([1, 2])), {}),
    (ldexp, (np.array([1.5, 2.5]), np.array([1, 2])), {"signature": "(),()->()"}),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("f, args, options", CASES,
                         ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CASES)])
def test_like_numpy_vectorize(backend, f, args, options):
    got, got_exc = outcome(lambda: vectorize(f, backend=backend, **options)(*args))
    want, want_exc = outcome(lambda: np.vectorize(f, **options)(*args))
    if want_exc is not None:
        assert type(got_exc) is type(want_exc), (got_exc, want_exc)
        return
    assert got_exc is None, got_exc
    assert_like_numpy_vectorize(got, want)


def test_a_warm_call_decides_again():
    """The second call of a specialization (its facts read, not learned again) replays too."""
    v = vectorize(times_int, signature="(),()->()")
    for _ in range(2):
        assert_like_numpy_vectorize(v(I8, I64), np.vectorize(times_int,
                                                             signature="(),()->()")(I8, I64))


def _facts(f, *examples, backend="numpy"):
    from vectorize.abstract import PythonSemantics, Value
    params = {name: Value(True, example) for name, example in
              zip(f.__code__.co_varnames, examples)}
    return transform_function(f, params, backend=backend,
                              python_semantics=PythonSemantics(tuple(params.values()))).facts


@pytest.mark.parametrize("backend", BACKENDS)
def test_facts_are_recorded_whatever_the_spelling(backend):
    """The facts are the engine's, set where it meets the construct: the same on every
    backend (PyTorch spells a Python int `.long()`, JAX `as_numpy_int(...)`)."""
    i8, f8 = np.int8(1), np.float64(1.5)
    assert _facts(times_int, i8, np.int64(2), backend=backend).python_ints
    assert _facts(xor_ceil, i8, f8, backend=backend).python_ints
    assert not _facts(int_or_half, np.float64(2.0), backend=backend).python_ints
    assert _facts(int_or_half, np.float64(2.0), backend=backend).joins
    assert _facts(at_least_half, np.float64(2.0), backend=backend).joins
    assert _facts(halves, np.float64(2.0), backend=backend).joins
    assert _facts(tuple_pick, np.int64(1), backend=backend).joins
    assert not _facts(times_int, i8, np.int64(2), backend=backend).joins
    assert not _facts(times_int, i8, np.int64(2), backend=backend).scalar_raises
    if backend != "torch":      # (PyTorch runs math.ldexp per example)
        assert _facts(ldexp, f8, np.int64(2), backend=backend).scalar_raises
    # (asked again: the in-process memo's copy keeps them)
    assert _facts(times_int, i8, np.int64(2), backend=backend) == SpecFacts(python_ints=True)


def test_facts_of_an_old_disk_entry_are_assumed():
    """An entry written before the facts were stored has every one (replays, never a
    missed one)."""
    assert SpecFacts.from_payload(None) == SpecFacts(True, True, True)
    facts = SpecFacts(joins=True)
    assert SpecFacts.from_payload(facts.payload()) == facts
