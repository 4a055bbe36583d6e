"""String literals of every form, and module-level tables indexed per example (issue 13,
items 7 and 8), checked against the per-example loop at N = 0, 1, 5 and 12 times at a large
N (`batch_sizes.check_sizes`)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from batch_sizes import check_sizes
from test_errors import assert_located, assert_suggests

from vectorize import VectorizeError, VectorizeFallbackWarning, vectorize, vmap

# --------------------------------------------------------------------------------------------
# item 8: implicitly concatenated strings and f-strings are evaluated like Python does


def concatenated_argument(x):
    return x + len("abc"
                   "def")


def concatenated_with_fstring(x):
    print("a" f"{1}", end="")
    return x


def fstring_of_a_default(x, width=3):
    label = f"{width:>{width}}" "z"
    return x + len(label)


def fstring_constant_chooses(x, method="d8"):
    if method == f"d{8}" "":
        return x * 2
    return x


def bytes_concatenated(x):
    return x + len(b"ab" b"c")


STRING_CASES = [concatenated_argument, concatenated_with_fstring, fstring_of_a_default,
                fstring_constant_chooses, bytes_concatenated]


def _floats(n):
    return (np.random.default_rng(n).normal(size=n),)


@pytest.mark.parametrize("f", STRING_CASES, ids=lambda f: f.__name__)
def test_string_literals_of_every_form(f, capsys):
    check_sizes(vectorize(f, fallback="error"), f, _floats)
    check_sizes(vmap(f), f, _floats)


def test_a_constant_fstring_decides_an_if_exactly():
    source = vectorize(fstring_constant_chooses, fallback="error").source(np.ones(3))
    assert "return x * 2" in source


# --------------------------------------------------------------------------------------------
# item 7: lists and tuples of numbers indexed per example gather from the array of their
# items; dicts looked up per example run per example (with fallbacks) or are refused

TABLE = [1.0, 2.0, 4.0, 8.0]
TUP = (3, 5, 7)
WEIGHTS = {0: 1.0, 1: 2.0}
NAMES = ["a", "b"]
NESTED = [[1.0, 2.0], [3.0, 4.0]]


def table_times_two(k):
    return TABLE[k] * 2


def tuple_modulo(k):
    return TUP[k % 3]


def table_under_a_condition(k, x):
    if x > 0:
        return TABLE[k]
    return 0.0


def local_tuple(k, a):
    t = (a, 2.0, 3.0)
    return t[k]


def table_in_a_loop(k):
    total = 0.0
    for i in range(3):
        total += TABLE[(k + i) % 4]
    return total


def dict_lookup(k):
    return WEIGHTS[k % 2]


def strings_table(k):
    return NAMES[k]


def nested_table(k):
    return NESTED[k]


MIXED_WEIGHTS = {0: 1.0, 1: 2}
MIXED = [1.0, "b"]


def mixed_dict_lookup(k):
    return MIXED_WEIGHTS[k % 2] * 1.0


def mixed_dict_error(k):
    return MIXED_WEIGHTS[k]


def mixed_table(k):
    return MIXED[k]


def _indices(n, low=-4, high=4):
    return (np.random.default_rng(n).integers(low, high, size=n),)


TABLE_CASES = [
    (table_times_two, _indices),
    (tuple_modulo, lambda n: _indices(n, -50, 50)),
    (table_under_a_condition,
     lambda n: (np.random.default_rng(n).integers(0, 9, size=n),
                np.random.default_rng(n + 1).normal(size=n))),
    (local_tuple, lambda n: (*_indices(n, -3, 3), 0.5)),
    (table_in_a_loop, lambda n: _indices(n, 0, 9)),
]


@pytest.mark.parametrize(("f", "make"), TABLE_CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_tables_indexed_per_example(f, make):
    check_sizes(vectorize(f, fallback="error"), f, make)
    check_sizes(vmap(f, in_axes=(0,) + (None,) * (len(make(1)) - 1)
                     if f is local_tuple else 0), f, make)


def test_out_of_range_index_raises_index_error_like_the_loop():
    with pytest.raises(IndexError):
        vectorize(table_times_two, fallback="error")(np.array([0, 1, 4]))
    with pytest.raises(IndexError):
        vectorize(table_times_two, fallback="error")(np.array([0, -5]))


def test_the_table_is_gathered_from_its_array():
    source = vectorize(table_times_two, fallback="error").source(np.arange(3))
    assert "np.asarray(TABLE)[k] * 2" in source


@pytest.mark.parametrize("mode", ["error", "warn"])
def test_dict_looked_up_per_example_is_a_search_of_its_keys(mode):
    wrapped = vectorize(dict_lookup, fallback=mode)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_sizes(wrapped, dict_lookup, _indices)
    assert not [w for w in caught if issubclass(w.category, VectorizeFallbackWarning)]
    assert "pymath.lookup(WEIGHTS, k % 2)" in wrapped.source(np.arange(3))


@pytest.mark.parametrize("mode", ["warn", "loop"])
def test_dict_of_mixed_values_looked_up_per_example_runs_per_example(mode):
    wrapped = vectorize(mixed_dict_lookup, fallback=mode)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_sizes(wrapped, mixed_dict_lookup, _indices)
    fallbacks = [w for w in caught if issubclass(w.category, VectorizeFallbackWarning)]
    assert len(fallbacks) == (1 if mode == "warn" else 0)
    assert "for key_i in k % 2" in wrapped.source(np.arange(3))


def test_tables_of_strings_are_gathered():
    check_sizes(vectorize(strings_table, fallback="error"), strings_table,
                lambda n: _indices(n, -2, 1))


@pytest.mark.parametrize(("f", "name"), [(mixed_dict_error, "MIXED_WEIGHTS"),
                                         (mixed_table, "MIXED"),
                                         (nested_table, "NESTED")])
def test_tables_that_cannot_be_gathered_are_refused(f, name):
    with pytest.raises(VectorizeError) as info:
        vectorize(f, fallback="error")(np.array([0, 1]))
    message = str(info.value)
    assert_located(message, f, f"return {name}[", name)
    assert_suggests(message)
    assert f"`{name}`" in message
