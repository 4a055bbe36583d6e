"""Local Python lists written into item by item: ``vals = [0.0, 0.0, 0.0]``, ``vals[i] += x``.

`passes.local_lists` makes such a list the array of its items (`rules.lists`), one row per
example: writes under per-example conditions are masked, per-example indexes guarded (an index
out of range on a live lane raises IndexError, as the list does), reads of items are Python
numbers for the checks (``y / vals[0]`` raises ZeroDivisionError where the item is 0). Every
function below is checked against numpy.vectorize itself (`vectorize`) and against the
per-example loop (`vmap`) on inputs with NaN, inf, signed zeros and negatives, at N = 0, 1, 5
and on a large repeated call; what stays refused is refused where it is written.
"""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest
from batch_sizes import check_sizes
from differential import assert_values_equal, outcome
from hypothesis import given, settings
from hypothesis import strategies as st

from vectorize import VectorizeError, vectorize, vmap

# --------------------------------------------------------------------------- the corpus


def literal_then_items(x, y):
    vals = [0.0, 0.0, 0.0]
    vals[0] = x
    vals[1] += y
    return vals[0] + vals[1] + vals[2]


def written_under_a_condition(x, y):
    vals = [0.0, 0.0, 0.0]
    if x > 0:
        vals[1] = y
    else:
        vals[2] += x
    return sum(vals)


def repeated_and_filled_in_a_loop(x, y):
    vals = [0.0] * 3
    for i in range(3):
        vals[i] = x * i + y
    return max(vals) - min(vals)


def bins_under_conditions_in_a_loop(x, y):
    acc = [0.0, 0.0, 0.0]
    for i in range(3):
        if x > i:
            acc[i] += y
        elif y < -i:
            acc[2 - i] -= 1.0
    return acc[0] - acc[2] * 1.0 + len(acc)


def comprehension_then_written(x, y):
    vals = [x * i for i in range(4)]
    vals[2] = y
    return sum(vals) + len(vals)


def unpacked_after_writes(x, y):
    vals = [x, y, x + y]
    vals[0] = vals[2] * 2
    a, b, c = vals
    return a * b - c


def per_example_index(x, y):
    vals = [0.0, 1.0, 2.0]
    k = int(abs(y)) % 3 if math.isfinite(y) else 0
    vals[k] = x
    return vals[0] + vals[1] * 2 + vals[2] * 3


def per_example_index_that_may_be_out_of_range(x, y):
    vals = [1.0, 2.0, 3.0]
    if y > 0:
        k = int(x) if math.isfinite(x) and abs(x) < 100 else 0
        vals[k] = y        # IndexError where k is 3 or more (or below -3), as the list raises
    return vals[0] - vals[2]


def counts_of_ints(x, y):
    cnt = [0, 0, 0]
    for i in range(3):
        if x > i:
            cnt[i] += 1
        if y < i:
            cnt[0] += 2
    return cnt[0] * 2 + sum(cnt)


def repeated_name(x, y):
    vals = [x] * 3
    vals[1] = y
    return vals[0] - vals[1] + vals[2]


def loop_with_break(x, y):
    acc = [0.0, 0.0, 0.0, 0.0]
    t = x
    for i in range(4):
        if t > 5.0:
            break
        acc[i] = t
        t = t * 2.0 + 1.0
    return acc[0] + acc[1] + acc[3]


def while_loop_writes(x, y):
    acc = [0.0, 0.0]
    n = 0
    while n < 3 and x > n:
        acc[n % 2] += y
        n += 1
    return acc[0] - acc[1]


def iterated(x, y):
    vals = [x, y, 1.0]
    if x < y:
        vals[2] = x * y
    total = 0.0
    for v in vals:
        total = total + v * v
    return total


def divided_by_an_item(x, y):
    vals = [1.0, 1.0]
    vals[0] = x
    return y / vals[0]          # ZeroDivisionError where x == 0: the item is a Python float


def max_with_nan(x, y):
    vals = [x, y, 0.0]
    vals[2] = x - y
    return max(vals) + min(vals)


def flags(x, y):
    ok = [False, False, False]
    for i in range(3):
        ok[i] = x > i
    return sum(ok) * 2 + ok[1]


def swap_items(x, y):
    vals = [x, y, 0.0]
    vals[0], vals[1] = vals[1], vals[0]
    vals[2] = vals[0] - vals[1]
    return vals[2]


def read_at_a_per_example_index(x, y):
    vals = [x, y, x * y]
    k = int(abs(y)) % 3 if math.isfinite(y) else 0
    return vals[k] + vals[k - 1]


def looped_over_without_writes(x, y):
    vals = [x, y, 0.5]
    total = 0.0
    for v in vals:
        if v > total:
            total = v
    return total


CORPUS = [read_at_a_per_example_index, looped_over_without_writes, literal_then_items,
          written_under_a_condition, repeated_and_filled_in_a_loop,
          bins_under_conditions_in_a_loop, comprehension_then_written, unpacked_after_writes,
          per_example_index, per_example_index_that_may_be_out_of_range, counts_of_ints,
          repeated_name, loop_with_break, while_loop_writes, iterated, divided_by_an_item,
          max_with_nan, flags, swap_items]

SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.5, 3.0, -7.0, 0.5, math.nan, math.inf, -math.inf, 4.0]
floats = st.one_of(st.sampled_from(SPECIAL), st.floats(-10, 10, allow_nan=False))


def _same_as_numpy_vectorize(f, x, y):
    expected, raised = outcome(lambda: np.vectorize(f)(x, y))
    got, got_raised = outcome(lambda: vectorize(f, fallback="error")(x, y))
    if raised is not None:
        assert got_raised is not None and type(got_raised) is type(raised), (
            f"numpy.vectorize raised {raised!r}, vectorize gave {got!r} {got_raised!r}")
        return
    assert got_raised is None, got_raised
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert_values_equal(got, expected)


@pytest.mark.parametrize("f", CORPUS, ids=lambda f: f.__name__)
@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_vectorize_matches_numpy_vectorize(f, data):
    for n in (1, 5):
        x = np.array(data.draw(st.lists(floats, min_size=n, max_size=n)))
        y = np.array(data.draw(st.lists(floats, min_size=n, max_size=n)))
        _same_as_numpy_vectorize(f, x, y)


def _inputs(n, seed=0):
    rng = np.random.default_rng(seed + n)
    x = np.round(rng.uniform(-6, 6, n), 1)
    y = np.round(rng.uniform(-6, 6, n), 1)
    special = rng.random(n) < 0.05
    x[special] = rng.choice([0.0, -0.0, math.inf, -math.inf, math.nan], special.sum())
    return x, y


@pytest.mark.parametrize("f", CORPUS, ids=lambda f: f.__name__)
def test_vectorize_at_every_batch_size(f):
    """N = 0, 1, 5 and twice at N = 10,000, against the per-example loop of Python floats
    (numpy.vectorize's examples): values, or the same exception type."""
    g = vectorize(f, fallback="error")
    assert g(np.zeros(0), np.zeros(0)).shape == (0,)
    for n in (1, 5, 10_000, 10_000):
        x, y = _inputs(n)
        _same_as_numpy_vectorize(f, x, y)
    _same_as_numpy_vectorize(f, *_inputs(10_000, seed=1))


@pytest.mark.parametrize("f", CORPUS, ids=lambda f: f.__name__)
def test_vmap_matches_the_loop(f):
    """`vmap`: the loop over NumPy scalars at N = 0, 1, 5 and a large repeated call."""
    check_sizes(vmap(f, fallback="error"), f, _inputs, sizes=(0, 1, 5), large=10_000,
                repeats=2)


def test_an_index_out_of_range_on_a_live_lane_raises_index_error():
    x, y = np.array([1.0, 5.0, 2.0]), np.array([1.0, 1.0, 1.0])
    with pytest.raises(IndexError):
        per_example_index_that_may_be_out_of_range(5.0, 1.0)
    with pytest.raises(IndexError):
        vectorize(per_example_index_that_may_be_out_of_range, fallback="error")(x, y)
    # the lane with the bad index does not write (y <= 0): no error
    y = np.array([1.0, -1.0, 1.0])
    got = vectorize(per_example_index_that_may_be_out_of_range, fallback="error")(x, y)
    np.testing.assert_array_equal(
        got, [per_example_index_that_may_be_out_of_range(a, b) for a, b in zip(x, y)])


def test_an_item_that_is_zero_raises_zero_division_error():
    with pytest.raises(ZeroDivisionError):
        vectorize(divided_by_an_item, fallback="error")(np.array([1.0, 0.0]), np.ones(2))


# ------------------------------------------------------------------ the generated code


def test_the_list_is_an_array_written_by_columns():
    src = vectorize(bins_under_conditions_in_a_loop).source(np.zeros(3), np.zeros(3))
    assert "acc = np.repeat(np.array([0.0, 0.0, 0.0])[None], len(x), axis=0)" in src, src
    assert "acc[:, i] = np.where(cond, acc[:, i] + y, acc[:, i])" in src, src
    assert "__list_array__" not in src
    src = vectorize(unpacked_after_writes).source(np.zeros(3), np.zeros(3))
    assert "vals = np.stack([x, y, x + y], axis=1)" in src, src


# ------------------------------------------------- helpers writing into their arguments


def bump(w, i):
    w[i] += 1.0


def put(w, i, v):
    w[i] = v


def helpers_on_some_lanes(x, k):
    """vmap: ``x`` a vector of 4 per example, ``k`` an int."""
    y = np.zeros(4)
    if x[0] > 0:
        bump(y, 1)
    if 0 <= k < 4:
        put(y, k, x[1])           # k out of range on lanes that skip the call: no error
    else:
        put(y, 3, -1.0)
    return y


def helper_in_a_while(x, k):
    y = np.zeros(4)
    j = 0
    while j < 4 and x[j] < 0.5:
        bump(y, j)
        j += 1
    return y


def helper_after_an_early_return(x, k):
    y = x.copy()
    if x[3] > 1.0:
        return y * 2.0
    for i in range(4):
        put(y, i, y[i] + k)
    return y


def helper_with_an_index_out_of_range(x, k):
    y = np.zeros(4)
    if x[0] > 0:
        put(y, k, 1.0)            # IndexError where k > 3 on a lane that makes the call
    return y


def helper_under_a_condition_scalar(x, k):
    """vectorize: both numbers per example."""
    acc = np.zeros(3)
    if x > 0:
        put(acc, k % 3, x)
    elif x < -1:
        bump(acc, 0)
    return acc[0] - acc[1] + 2 * acc[2]


def _vector_inputs(n, seed=0):
    rng = np.random.default_rng(seed + n)
    x = np.round(rng.normal(size=(n, 4)), 1)
    x[rng.random((n, 4)) < 0.05] = np.nan
    return x, rng.integers(-2, 6, n)


def _loop(f, x, k):
    """(the loop's stacked results, or the first exception it raises)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.stack([f(a, b) for a, b in zip(x, k)]), None
    except Exception as exc:  # noqa: BLE001 -- the type is compared
        return None, exc


@pytest.mark.parametrize("f", [helpers_on_some_lanes, helper_in_a_while,
                               helper_after_an_early_return], ids=lambda f: f.__name__)
def test_vmap_helper_writes_on_some_lanes_match_the_loop(f):
    g = vmap(f, fallback="error")
    assert g(*_vector_inputs(0)).shape == (0, 4)
    for n in (1, 5, 10_000, 10_000):
        x, k = _vector_inputs(n)
        expected, raised = _loop(f, x, k)
        if raised is not None:
            with pytest.raises(type(raised)):
                g(x, k)
            continue
        got = g(x, k)
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


def test_a_helper_index_out_of_range_on_a_live_lane_raises_index_error():
    g = vmap(helper_with_an_index_out_of_range, fallback="error")
    x = np.array([[1.0, 0, 0, 0], [-1.0, 0, 0, 0]])
    with pytest.raises(IndexError):
        g(x, np.array([5, 1]))
    np.testing.assert_array_equal(g(x, np.array([2, 7])), [[0, 0, 1.0, 0], [0, 0, 0, 0]])


@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_vectorize_helper_writes_on_some_lanes_match_numpy_vectorize(data):
    for n in (1, 5):
        x = np.array(data.draw(st.lists(floats, min_size=n, max_size=n)))
        k = np.array(data.draw(st.lists(st.integers(-5, 5), min_size=n, max_size=n)))
        _same_as_numpy_vectorize(helper_under_a_condition_scalar, x, k)


def test_the_helper_writes_into_a_copy_written_back_under_the_mask():
    src = vmap(helpers_on_some_lanes).source(*_vector_inputs(3))
    assert "y_call = y.copy()" in src and re.search(r"bump(_\d+)?\(y_call, 1\)", src), src
    assert "y[:, :] = np.where((x[:, 0] > 0.0)[:, None], y_call, y[:, :])" in src, src


# ---------------------------------------------------------------------- still refused


def mixed_items(x, y):
    vals = [0, 0.5]
    vals[0] = x
    return vals[1]


def int_written_into_floats(x, y):
    vals = [0.0, 0.5]
    if x > 0:
        vals[0] = 1
    return vals[0]


def returned_list(x, y):
    vals = [x, y]
    vals[0] = 1.0
    return vals


def passed_to_a_helper(x, y):
    vals = [x, y]
    vals[1] = 2.0
    return _first(vals)


def _first(v):
    return v[0]


def two_names(x, y):
    vals = [x, y]
    other = vals
    vals[0] = 1.0
    vals = [y, x]               # `other` still names the first list
    return other[0] + vals[0]


def sliced(x, y):
    vals = [x, y, 1.0]
    vals[0] = 2.0
    return sum(vals[1:])


def bool_index(x, y):
    vals = [x, y]
    vals[x > 0] = 2.0           # the list takes True as 1, an array a bool as a mask
    return vals[0] + vals[1]


@pytest.mark.parametrize("f, why", [
    (mixed_items, "holds an int and a float"),
    (bool_index, "an index of the list `vals` that is a bool, not an int"),
    (int_written_into_floats, "writing an int into the list `vals` of float items"),
    (returned_list, "writing into the list `vals`, which the function also uses"),
    (passed_to_a_helper, "writing into the list `vals`, which the function also uses"),
    (two_names, "writing into the list `vals`, which the function also uses"),
    (sliced, "writing into the list `vals`, which the function also uses"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_refused_with_a_location_and_the_reason(f, why):
    with pytest.raises(VectorizeError) as info:
        vectorize(f, fallback="error")(np.ones(3), np.ones(3))
    assert re.search(r"test_local_lists\.py:\d+:\d+:", str(info.value)), info.value
    assert why in str(info.value), info.value


def rows_of_vectors(x, y):
    rows = [x, y]
    rows[0] = y * 2
    return rows[0] + rows[1]


def float_literals_with_float32(x, y):
    acc = [0.0, 0.0]
    acc[0] = x
    return acc[0] + acc[1]


def test_vmap_refuses_lists_it_cannot_hold_exactly():
    """A list of per-example vectors (the list shares them with other names, which writes
    would change) and Python floats mixed with float32 values (weakly typed per example)."""
    with pytest.raises(VectorizeError, match=r"test_local_lists\.py:\d+:\d+: the list `rows` "
                                             "holds a per-example array"):
        vmap(rows_of_vectors, fallback="error")(np.ones((3, 2)), np.ones((3, 2)))
    x = np.ones(3, dtype=np.float32)
    with pytest.raises(VectorizeError, match=r"holds Python numbers.*float32"):
        vmap(float_literals_with_float32, fallback="error")(x, x)
    # float64 examples: the same as the loop
    x = np.array([1.0, -0.0, np.nan])
    np.testing.assert_array_equal(vmap(float_literals_with_float32, fallback="error")(x, x),
                                  [float_literals_with_float32(a, a) for a in x])


def test_the_warn_fallback_still_matches_numpy_vectorize():
    with pytest.warns(UserWarning):
        got = vectorize(mixed_items, fallback="warn")(np.array([1.0, 2.0]), np.zeros(2))
    np.testing.assert_array_equal(got, np.vectorize(mixed_items)(np.array([1.0, 2.0]),
                                                                 np.zeros(2)))


def test_torch_refuses_with_a_location():
    torch = pytest.importorskip("torch")
    x = torch.ones(3, dtype=torch.float64)
    with pytest.raises(VectorizeError, match=r"test_local_lists\.py:\d+:\d+: writing into the "
                                             "list `acc`: this backend"):
        vmap(bins_under_conditions_in_a_loop, fallback="error")(x, x)


def test_jax_computes_what_numpy_does():
    """(JAX writes into created arrays as functional updates: the list's array too)"""
    pytest.importorskip("jax")
    x = np.array([0.5, -1.0, 3.0, 0.0, 7.5])
    got = vmap(bins_under_conditions_in_a_loop, backend="jax", fallback="error")(x, x[::-1])
    want = vmap(bins_under_conditions_in_a_loop, fallback="error")(x, x[::-1])
    np.testing.assert_array_equal(np.asarray(got), want)


# ------------------------------------------------------------------ bugs found on the way


def unpacked_then_written(x, y):
    vals = [x, y]
    a, b = vals
    vals[0] = 5.0
    vals[1] += 1.0
    return a * 10 + b + vals[0]


def array_unpacked_then_written(x, y):
    vals = np.zeros(2)
    vals[0] = x
    vals[1] = y
    a, b = vals
    vals[0] = 5.0
    return a * 10 + b + vals[0]


@pytest.mark.parametrize("f", [unpacked_then_written, array_unpacked_then_written],
                         ids=lambda f: f.__name__)
def test_names_unpacked_from_an_array_keep_their_values_after_a_write(f):
    """Was silently wrong (for arrays the function writes into, before lists were arrays):
    ``a, b = vals`` became ``a, b = vals.T``, views of the columns, which the later write
    into ``vals`` changed; per example ``a`` and ``b`` are numbers."""
    x, y = np.array([1.0, -2.0, 3.0]), np.array([0.5, 4.0, -1.0])
    _same_as_numpy_vectorize(f, x, y)
    expected = np.array([f(a, b) for a, b in zip(x, y)])
    np.testing.assert_array_equal(vmap(f, fallback="error")(x, y), expected)
