"""Programs refused before that the engine now vectorizes exactly: a value that is a Python
float on some examples and a NumPy float32 on others (``min(y * 1.0, 0.0)`` of a float32
``y``) meeting a float32 value, and a list that starts empty (``acc = []``) appended
float32 items, under ``vmap`` (against the loop over NumPy scalars: values and dtype) and
``vectorize`` (against numpy.vectorize itself: values, dtype, exception type); and what
must stay refused (lanes that compute in different types)."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from vectorize import VectorizeError, vectorize, vmap

# ----------------------------------------------------------------- a Python float on some lanes


def min_then_sub(x, y):
    return max(y, x) - min(y * 1.0, 0.0)


def mixed_times(x, y):
    m = min(y, 0.5)
    return x * m


def mixed_divided(x, y):
    m = y if y > 1.0 else 2.0
    return x / m


def mixed_plus_in_branch(x, y):
    m = max(y, -1.25)
    if x > 0:
        return m + x
    return x - m


def mixed_equal(x, y):
    m = min(y * 1.0, 0.1)
    return x == m


def mixed_less(x, y):
    m = max(y, 0.3)
    return (x < m) + 0


def mixed_augmented(x, y):
    t = 0.75
    if y > 0:
        t = y
    t += x
    return t


# the lanes compute in different types: stay refused
def mixed_meets_float16(x, y):
    m = min(y * 1.0, 0.0)
    return np.float16(x) - m


def mixed_meets_literal(x, y):
    m = min(y, 0.0)
    return m + 1.5


# ------------------------------------------------------------------- lists that start empty


def appended_then_last(x, y):
    acc = []
    for j in range(3):
        if x > j:
            acc.append(y * j * 1.0)
    return acc[-1] * 3.3 if acc else -1.5 * y


def appended_with_exits(x, y):
    acc1 = []
    for j in range(3):
        if x > j:
            acc1.append(y * j * 1.0)
        elif y < -j:
            continue
        else:
            break
    v1 = acc1[-1] if acc1 else 2.0
    return v1 + len(acc1)


def appended_summed(x, y):
    acc = []
    for j in range(4):
        if y > j - 2:
            acc.append(x * (j + 1))
    total = x * 0.0
    for v in acc:
        total = total + v
    return total


def appended_python_floats(x, y):
    acc = []
    for j in range(3):
        if x > j:
            acc.append(j * 0.5)
    return acc[-1] * y if acc else y


# ------------------------------------------- lists of Python numbers read only by index


def python_list_indexed(x, y):
    vals = [0.5, -1.25, 3.0, 0.1]
    k = int(abs(x)) % 4 if abs(x) < 1e6 else 0
    vals[1] += 0.25
    return vals[k] * y + vals[0]


def python_list_written(x, y):
    vals = [0.5, 1.5, -2.0]
    vals[0] = 2.5
    k = 1 if y > 1 else 2
    return vals[0] * y - vals[k] + len(vals)


def python_list_numpy_write(x, y):
    vals = [0.5, -1.25, 3.0, 0.1]
    for i in range(4):
        if x > i:
            vals[i] = vals[i] * 2.0
    return vals[2] * y


WEAK = [python_list_indexed, python_list_written]

MIXED = [min_then_sub, mixed_times, mixed_divided, mixed_plus_in_branch, mixed_equal,
         mixed_less, mixed_augmented]
LISTS = [appended_then_last, appended_with_exits, appended_summed]
# results that are a float32 on some examples and a Python float on others
JOINS = {appended_with_exits}
ALL = MIXED + LISTS + WEAK

_F32 = hnp.arrays(np.float32, st.integers(0, 6),
                  elements=st.floats(width=32, allow_nan=True, allow_infinity=True)
                  | st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.1, 2.5, -3.0]))


def _loop(f, x, y):
    """The per-example loop over NumPy scalars, stacked as vmap stacks it."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return np.array([f(a, b) for a, b in zip(x, y)])


def _same(got, ref):
    got = np.asarray(got)
    assert got.dtype == ref.dtype, (got.dtype, ref.dtype)
    assert got.shape == ref.shape
    np.testing.assert_array_equal(got, ref)
    # zero signs too
    if ref.dtype.kind == "f":
        assert np.array_equal(np.signbit(got), np.signbit(ref))


def _check_vmap(f, x, y):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        got = vmap(f)(x, y)
    if len(x) == 0:
        assert np.shape(got) == (0,)
        return
    ref = _loop(f, x, y)
    if f in JOINS and ref.dtype != np.asarray(got).dtype:
        # a float32 on some lanes, a Python float on others: the batch holds the joined
        # float64 on every lane, which the loop stacks to where its examples take both
        # paths (docs/semantics.md, "a value of different types on different lanes")
        ref = ref.astype(np.float64)
    _same(got, ref)


def _check_vectorize(f, x, y):
    ref_exc = got_exc = None
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            ref = np.vectorize(f)(x, y)
        except Exception as exc:  # noqa: BLE001 -- compared below
            ref_exc = exc
        try:
            got = vectorize(f, fallback="error")(x, y)
        except VectorizeError:
            raise
        except Exception as exc:  # noqa: BLE001 -- compared below
            got_exc = exc
    if len(x) == 0:
        assert got_exc is None      # (numpy.vectorize needs otypes here: only no failure)
        return
    if ref_exc is not None:
        assert type(got_exc) is type(ref_exc)
        return
    assert got_exc is None, got_exc
    _same(got, np.asarray(ref))


FIXED = [
    (np.array([1.5, -2, 3, np.nan, -0.0, np.inf, 0.1], np.float32),
     np.array([-1, 2, np.inf, 0.5, -3, -0.0, 0.1], np.float32)),
    (np.array([0.25], np.float32), np.array([-0.0], np.float32)),
    (np.zeros(0, np.float32), np.zeros(0, np.float32)),
]


@pytest.mark.parametrize("f", ALL, ids=lambda f: f.__name__)
@pytest.mark.parametrize("case", range(len(FIXED)))
def test_vmap_matches_the_loop(f, case):
    _check_vmap(f, *FIXED[case])


@pytest.mark.parametrize("f", ALL, ids=lambda f: f.__name__)
@pytest.mark.parametrize("case", range(len(FIXED)))
def test_vectorize_matches_numpy_vectorize(f, case):
    _check_vectorize(f, *FIXED[case])


@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_mixed_lanes_random(data):
    x = data.draw(_F32)
    y = data.draw(hnp.arrays(np.float32, len(x),
                             elements=st.floats(width=32, allow_nan=True,
                                                allow_infinity=True)))
    f = data.draw(st.sampled_from(ALL))
    _check_vmap(f, x, y)
    _check_vectorize(f, x, y)


def test_the_narrowed_operation_keeps_float32():
    """The batch computes in float32 as each lane does (no float64 detour): the result of a
    subtraction rounds in float32 on every example."""
    x = np.array([1e-8, 3.0], np.float32)
    y = np.array([0.1, -7.0], np.float32)
    got = vmap(min_then_sub)(x, y)
    assert got.dtype == np.float32
    _same(got, _loop(min_then_sub, x, y))


def test_an_empty_list_takes_the_type_of_its_items():
    """The array of `acc = []` appended float32 items is float32 (its padding is never
    read): `acc[-1] * 3.3` rounds in float32 per example, as the loop does."""
    x = np.array([3.0, 0.5, 2.0, -1.0], np.float32)
    y = np.array([1.1, 2.2, 3.3, 4.4], np.float32)
    v = vmap(appended_then_last)
    got = v(x, y)
    assert got.dtype == np.float32
    _same(got, _loop(appended_then_last, x, y))
    assert ".astype(np.float32)" in v.source(x, y)


@pytest.mark.parametrize("f", [mixed_meets_float16, mixed_meets_literal,
                               python_list_numpy_write],
                         ids=lambda f: f.__name__)
def test_lanes_of_different_types_stay_refused(f):
    x, y = FIXED[0]
    with pytest.raises(VectorizeError):
        vmap(f)(x, y)


def test_python_floats_appended_meet_float32_exactly_or_refuse():
    """A Python float appended stays weakly typed per example (`acc[-1] * y` is float32
    there), which an array's float64 item would not be: refused where it is written."""
    x = np.array([3.0, 0.5, 2.0, -1.0], np.float32)
    y = np.array([1.1, 2.2, 3.3, 4.4], np.float32)
    with pytest.raises(VectorizeError, match="keep the type of the float32"):
        vmap(appended_python_floats)(x, y)


def test_float64_inputs_unchanged():
    """With float64 examples nothing narrows: the same values and dtype as before."""
    x = np.array([1.5, -2, 3, np.nan, -0.0], np.float64)
    y = np.array([-1, 2, np.inf, 0.5, -3], np.float64)
    for f in ALL:
        _check_vmap(f, x, y)
        _check_vectorize(f, x, y)



@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_python_list_items_stay_weak(dtype):
    """`vals[k] * y` of a list of Python floats and a float16/float32 `y`: per example the
    Python float takes y's type (NEP 50), so the batch computes in it too."""
    x = np.array([1.5, 2.5, 0.5, 3.5, -7.0], dtype)
    y = np.array([1.1, 2.2, 3.3, -0.0, np.inf], dtype)
    for f in WEAK:
        got = vmap(f)(x, y)
        assert got.dtype == dtype
        _same(got, _loop(f, x, y))


# ---------------------------------- Python numbers per example meeting narrow types (vmap)

INT_TABLE = [1, 2, 3]
FLOAT_TABLE = [0.5, 1.25, -2.0]


def table_items_in_a_chain(x, y):
    i = int(abs(x)) % 3
    return y * INT_TABLE[i] + INT_TABLE[i] * 2 - FLOAT_TABLE[i]


def local_table_items(x, y):
    ints = [1, 2, 3]
    i = int(abs(x)) % 3
    return y * ints[i] + ints[i] * 2


def math_results_in_a_chain(x, y):
    return x + math.sqrt(abs(y)) * 2 - math.floor(y)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int8, np.int16, np.float64])
@pytest.mark.parametrize("f", [table_items_in_a_chain, local_table_items,
                               math_results_in_a_chain], ids=lambda f: f.__name__)
def test_python_numbers_in_a_chain_keep_the_narrow_type(f, dtype):
    """fix: vmap of `y * TABLE[i] + TABLE[i] * 2 - FT[i]`, `y * ints[i] + ints[i] * 2` and
    `x + math.sqrt(abs(y)) * 2 - math.floor(y)` on float32 (float16) examples gave float64
    (the analysis took the Python numbers' arithmetic for NumPy float64 values): per example
    they are weak Python numbers, the result float32 as in the loop."""
    x = np.array([1, 2, 3, 4, 5, 60, 7], dtype)
    y = np.array([100, -2, 3, 4, 120, 6, -7], dtype)
    if f is math_results_in_a_chain and dtype().dtype.kind == "i":
        y = abs(y)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        got = vmap(f)(x, y)
    _same(got, _loop(f, x, y))


# ------------------------------------------------------------------- mutual recursion


def _even_steps(n, x):
    if n <= 0:
        return x
    return _odd_steps(n - 1, x * 2)


def _odd_steps(n, x):
    if n <= 0:
        return -x
    return _even_steps(n - 1, x + 1)


def mutual(n, x):
    return _even_steps(n, x)


@pytest.mark.parametrize("api", [vectorize, vmap], ids=["vectorize", "vmap"])
def test_mutual_recursion_refusal_names_the_cycle(api):
    n, x = np.array([1, 2, 3, 0]), np.array([1.0, 2.0, 3.0, -0.0])
    with pytest.raises(VectorizeError) as info:
        api(mutual, fallback="error")(n, x)
    text = str(info.value)
    assert "`_even_steps` -> `_odd_steps` -> `_even_steps`" in text
    assert "test_refuse30.py:" in text and "^" in text and "suggestion" in text
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = vectorize(mutual, fallback="warn")(n, x)
    _same(got, np.vectorize(mutual)(n, x))
