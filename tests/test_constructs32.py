"""Constructs of real scientific code the engine used to refuse or get wrong (issue 20, "the
other refusals"): identity tests (``x is NAN``, ``y is None``) on per-example values,
tuples indexed per example, small classes of the user's, ``math.prod`` under ``vmap``.
Each is checked against ``numpy.vectorize`` itself (Python numbers per example: equal values
and dtype, or the same exception type) at N = 0, 1, 8 and with NaN / inf / -0.0, and where
it applies ``vmap`` against the per-example loop over NumPy scalars."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pytest
from differential import assert_values_equal, check_like_numpy_vectorize, outcome
from vmap_reference import assert_same_tree, loop_vmap

from vectorize import VectorizeError, vectorize, vmap

SPECIAL = np.array([0.0, -0.0, 1.5, -2.25, np.nan, np.inf, -np.inf, 7.0])


def check(func, *args, with_vmap=True):
    """``vectorize(func)`` against ``numpy.vectorize(func)`` on ``args`` and on their first
    0 and 1 items (values and dtype, or the exception's type), and ``vmap(func)`` against
    the per-example loop on the same arrays."""
    check_like_numpy_vectorize(func, *args, sizes=(None, 0, 1))
    for n in (None,) if with_vmap else ():
        part = args if n is None else tuple(a[:n] for a in args)
        want, error = outcome(lambda part=part: loop_vmap(func)(*part))
        got, our_error = outcome(lambda part=part: vmap(func)(*part))
        if isinstance(our_error, VectorizeError):
            raise our_error
        if error is not None:
            assert our_error is not None and type(our_error) is type(error), (
                n, error, our_error, got)
            continue
        assert our_error is None, (n, our_error)
        assert_same_tree(got, want)


def refused(func, *args, match):
    for make in (lambda: vectorize(func, fallback="error"), lambda: vmap(func)):
        with pytest.raises(VectorizeError, match=match) as info:
            make()(*args)
        assert ":" in str(info.value).splitlines()[0]


# ------------------------------------------------------------------ 1. identity tests

NAN = float("nan")
BIG = 1000


def skip_nan_sentinel(x):
    if x is NAN:        # a sentinel object: never an example of an array
        return 0.0
    return x + 1.0


def not_math_nan(x, y):
    if x is not math.nan and y is not NAN:
        return x * y
    return -1.0


def computed_is_nan(x, y):
    r = x * 2.0 + y
    return (r is NAN) or math.isnan(r)


def int_is_nan(n):
    return 2 * n if n is not NAN else 0


def test_identity_with_a_global_float_is_false_per_example():
    check(skip_nan_sentinel, SPECIAL)
    check(not_math_nan, SPECIAL, SPECIAL[::-1].copy())
    check(int_is_nan, np.array([0, 1, -7, 1000, 5, 2]))
    check(computed_is_nan, SPECIAL, SPECIAL[::-1].copy())


def test_identity_with_a_list_argument_runs_numpy_vectorize():
    # numpy.vectorize hands a list's items as they are: the sentinel itself on that example
    f = vectorize(skip_nan_sentinel, fallback="error")
    args = [1.0, NAN, 2.0]
    want = np.vectorize(skip_nan_sentinel)(args)
    assert want[1] == 0.0
    for _ in range(2):
        got = f(args)
        assert got.dtype == want.dtype
        assert_values_equal(got, want)
    assert_values_equal(f(np.array(args)), np.vectorize(skip_nan_sentinel)(np.array(args)))


def test_identity_with_a_python_number_argument_runs_numpy_vectorize():
    # numpy.vectorize hands a Python number argument itself too (the sentinel: 0.0), where
    # the batch's array holds a new float (the engine's `is` false: nan)
    f = vectorize(skip_nan_sentinel, fallback="error")
    for arg in (NAN, 2.0):
        want = np.vectorize(skip_nan_sentinel)(arg)
        got = f(arg)
        assert got.dtype == want.dtype
        assert_values_equal(got, want)
    assert_values_equal(f(np.float64(NAN)), np.vectorize(skip_nan_sentinel)(np.float64(NAN)))


def none_on_some_examples(x):
    y = None if x > 0 else x
    if y is None:
        return 1.0
    return y


def small_int_identity(n):
    return n is BIG


def max_may_return_the_sentinel(x):
    return max(x, NAN) is NAN


def test_identity_that_differs_per_example_is_refused():
    # (was a wrong result: `y is None` taken as false on every example, vmap gave
    # [None, -2.0] where the loop gives [1.0, -2.0])
    refused(none_on_some_examples, np.array([1.0, -2.0]), match="None on some examples")
    refused(small_int_identity, np.array([1000, 2]), match="`is` on per-example")
    refused(max_may_return_the_sentinel, np.array([1.0, 2.0]), match="`is` on per-example")


def none_default(x, w=None, scale=None):
    if w is not None:
        x = x * w
    if scale is None:
        return x
    return x * scale


def test_none_defaults_decided_per_call():
    check(none_default, SPECIAL)
    check(none_default, SPECIAL, SPECIAL[::-1].copy())


# ------------------------------------------------- 2. sequences indexed per example

def pick_of_three(x, k):
    return (x, x * 2.0, -x)[k]


def pick_mixed_types(x, k):
    n = int(k)
    return [n, x, 2 * n][k]        # an int on some examples, a float on others


def pick_nested(x, i, j):
    t = ((x, 1.0, x + 1.0), (2.0, x * x, -x))
    return t[i][j] + t[i][0]


def pick_under_condition(x, k):
    if x > 0:
        return (x, math.sqrt(x))[k]
    return -1.0


def pick_in_a_test(x, k):
    if (x, -x, 1.0)[k] > 0:
        return 1.0
    if (x, 2.0)[k % 2] < 1:
        return -1.0
    return 0.0


def pick_in_an_elif(x, k):
    if x > 1:
        return 1.0
    elif (x, 2.0)[k] < 1:        # (evaluated after the `if`'s test: refused)
        return -1.0
    return 0.0


def pick_or_default(x, k):
    s = (x, -x, 0.0)[k] or math.copysign(0.0, x)     # the left of `or`: every example
    return s if (1, 0, 1)[k] else -s


def items_evaluated_first(x, k):
    return (math.log(x), 0.0)[k]     # log raises on x <= 0 whatever k picks


def corners(L):
    return [{"a": L, "b": 2.0 * L}, {"a": -L, "b": L + 1.0}, {"a": 0.5, "b": L * L}]


def pick_dict_from_helper(L, k):
    m = corners(L)
    return m[k]["b"] - m[k]["a"]


def test_tuple_indexed_per_example():
    k = np.array([0, 1, 2, -1, -3, 2, 1, 0])
    check(pick_of_three, SPECIAL, k)
    check(pick_of_three, SPECIAL, np.array([0, 1, 3, 0, 1, 2, 0, 1]))    # IndexError
    # (vmap: a batch of one type, as after an `if` choosing an int or a float per example)
    check(pick_mixed_types, SPECIAL[2:4], np.array([0, 1]), with_vmap=False)
    check(pick_mixed_types, SPECIAL[2:4], np.array([1, 0]), with_vmap=False)
    check(pick_nested, SPECIAL, np.array([0, 1, 1, 0, -1, -2, 1, 0]),
          np.array([0, 1, 2, -1, 2, 0, -3, 1]))
    check(pick_under_condition, SPECIAL, np.array([0, 1, 5, 1, 1, 0, 7, 1]))
    check(pick_in_a_test, SPECIAL, k)
    check(pick_or_default, SPECIAL, np.array([0, 1, 2, 2, 0, 1, 2, 0]))
    check(items_evaluated_first, np.abs(SPECIAL) + 0.5, np.array([0, 1, 1, 0, 1, 0, 1, 1]))
    check(items_evaluated_first, SPECIAL, np.array([1, 1, 1, 1, 1, 1, 1, 1]))


def test_list_of_dicts_from_a_helper_indexed_per_example():
    check(pick_dict_from_helper, SPECIAL, np.array([0, 1, 2, -1, -2, -3, 2, 0]))
    check(pick_dict_from_helper, SPECIAL, np.array([0, 1, 2, 3, -2, -3, 2, 0]))


def test_float_index_and_elif_still_refused():
    refused(pick_of_three, SPECIAL, SPECIAL, match="computed index|not integers")
    with pytest.raises(VectorizeError, match=r"constructs32.py:\d+:\d+: indexing a tuple"):
        vectorize(pick_in_an_elif, fallback="error")(SPECIAL, np.arange(8) % 2)


# ------------------------------------------------------------- 3. small classes

class Vec2(NamedTuple):
    x: float
    y: float

    def norm(self):
        return math.hypot(self.x, self.y)

    def scaled(self, k):
        return Vec2(self.x * k, self.y * k)

    @property
    def slope(self):
        if self.x == 0:
            raise ZeroDivisionError("vertical")
        return self.y / self.x


@dataclass
class Reading:
    value: float
    scale: float = 2.0
    offset: float = 0.0

    def calibrated(self, gain=1.0):
        return (self.value * self.scale + self.offset) * gain

    @property
    def kelvin(self):
        return self.calibrated() + 273.15


def namedtuple_methods(x, y):
    v = Vec2(x, y)
    return v.norm() + v.scaled(2.0).norm() - v.slope


def dataclass_methods(x, y):
    r = Reading(x, offset=y)
    return r.kelvin - Reading(y).calibrated(gain=x) + r.scale


def dataclass_under_condition(x, y):
    if x > 0:
        return Reading(x, y).kelvin
    return Reading(y).value


def test_namedtuple_methods_and_properties():
    check(namedtuple_methods, SPECIAL, SPECIAL[::-1].copy())
    check(namedtuple_methods, np.array([1.0, 2.0, -3.0]), np.array([0.5, 0.0, 2.0]))


def test_dataclass_fields_methods_and_properties():
    check(dataclass_methods, SPECIAL, SPECIAL[::-1].copy())
    check(dataclass_under_condition, SPECIAL, SPECIAL[::-1].copy())


def dataclass_unpacked(x, y):
    a, b, c = Reading(x, y)          # TypeError: not iterable, on every example
    return a


def dataclass_mutated(x, y):
    r = Reading(x)
    r.value = y
    return r.value


def test_dataclass_misuse_raises_or_is_refused():
    check(dataclass_unpacked, SPECIAL, SPECIAL)
    refused(dataclass_mutated, SPECIAL, SPECIAL, match="assigning into an object")


class Temperature:
    """A value and its unit, converted through a class table (the shape of meteocalc's
    ``Temp``)."""

    UNITS = ("c", "f", "k")
    OFFSET = 273.15

    def __init__(self, value, unit="c"):
        self.unit = unit.lower()
        self.value = float(value)
        if self.unit not in self.UNITS:
            raise ValueError(f"unknown unit {unit!r}")

    @classmethod
    def convert(cls, value, src, dst):
        if src == dst:
            return value
        c = value if src == "c" else (value - 32.0) * 5.0 / 9.0 if src == "f" \
            else value - cls.OFFSET
        return c if dst == "c" else c * 9.0 / 5.0 + 32.0 if dst == "f" else c + cls.OFFSET

    def to(self, unit):
        return self.convert(self.value, self.unit, unit)

    @property
    def f(self):
        return self.to("f")

    @property
    def k(self):
        return self.to("k")

    def __float__(self):
        return self.value


def dew_like(t, rh):
    if rh < 1 or rh > 100:
        raise ValueError("humidity out of range")
    a = 17.368 if t > 0 else 17.966
    b = 238.88 if t > 0 else 247.15
    g = math.log(rh / 100.0) + a * t / (b + t)
    return Temperature(b * g / (a - g), "c")


def dew_like_f(t, rh):
    return dew_like(t, rh).f


def dew_like_float(t, rh):
    return float(dew_like(t, rh)) + Temperature(t, "C").k


def kelvin_of(t, unit):
    return Temperature(t, unit).k


def test_small_class_constructed_per_example():
    t, rh = SPECIAL * 10.0, np.array([50.0, 1.0, 100.0, 37.5, 80.0, 20.0, 60.0, 99.0])
    check(dew_like_f, t, rh)
    check(dew_like_float, t, rh)
    check(dew_like_float, t, np.array([50.0, 0.5, 100.0, 37.5, 80.0, 20.0, 60.0, 99.0]))
    f = vectorize(kelvin_of, fallback="error", excluded={1})
    for unit in ("F", "c", "x"):        # (a unit the same for every example)
        got, error = outcome(lambda unit=unit: f(t, unit))
        want, want_error = outcome(lambda unit=unit: np.vectorize(kelvin_of, excluded={1})(
            t, unit))
        if want_error is not None:
            assert type(error) is type(want_error)
        else:
            assert got.dtype == want.dtype
            assert_values_equal(got, want)


def returns_the_instance(t):
    return Temperature(t)


def compares_instances(t):
    return Temperature(t) == Temperature(t)


REGISTRY = []


class Registered:
    def __init__(self, value):
        self.value = value
        REGISTRY.append(self)      # identity shared across examples


def registers(t):
    return Registered(t).value


def test_small_class_refusals():
    refused(returns_the_instance, SPECIAL, match="returning")
    refused(registers, SPECIAL, match="`Registered` is a class whose instances the engine "
                                      "cannot make from per-example values")
    refused(compares_instances, SPECIAL, match="comparing an instance of `Temperature`")


# ------------------------------------------------------------ 4. math.prod under vmap

def prod_display(x, n):
    return math.prod([n, x, 2.0]) + math.prod((n, n, 3), start=2)


def prod_python_int_first(x, n):
    return math.prod([int(x), n])       # a Python int per example times an int64


def test_math_prod_under_vmap_matches_the_loop():
    x = np.array([1.5, -0.0, np.inf, np.nan, 2.0 ** 30, 3.0])
    n = np.array([2, 3, 2 ** 40, -5, 2 ** 40, 7])
    finite = np.array([1.5, -0.0, 2.0 ** 40, -7.0, 2.0 ** 30, 3.0])
    for f, args in ((prod_display, (x, n)), (prod_python_int_first, (finite, n)),
                    (prod_display, (x.astype(np.float32), n.astype(np.int8)))):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got, want = vmap(f)(*args), loop_vmap(f)(*args)
        assert_same_tree(got, want)
        assert got.dtype == want.dtype


def bounds_in_a_loop(L, h):
    best = math.inf
    for bound in corners(L):      # a helper's list of dicts of per-example values
        length = bound["b"] * h - bound["a"]
        if length >= 0:
            best = min(best, length)
    return best


def pairs_in_a_loop(x):
    total = 0.0
    for a, b in ((x, 1.0), (2.0, x * x), (-x, 0.5)):
        total += a * b
    return total


def breaks_out(x):
    for v in (x, -x):
        if v > 0:
            break
    return v


def test_loop_over_a_list_of_per_example_values_written_out():
    check(bounds_in_a_loop, SPECIAL, SPECIAL[::-1].copy())
    check(pairs_in_a_loop, SPECIAL)
    check(breaks_out, SPECIAL)
