"""Writes into arrays under per-example conditions: ``if x[i] > 0: y[i] = ...``.

Under a condition that differs per example (a batched ``if``, the body of a masked loop, the
code after a per-example ``break``/``continue``/``return``) a write into an array happens on
some lanes only. The batch writes ``y[:, i] = np.where(cond, new, y[:, i])`` (a masked
write); at a per-example index ``k`` the index is kept in bounds on the other lanes
(``k_safe = np.where(cond, k, 0)``), so lanes that skip the write never raise, while a live
lane's out-of-range index raises IndexError as the loop does. Each function below is checked
against the per-example loop (`vmap`) or numpy.vectorize itself (`vectorize`) at N = 0, 1, 5
and on a large repeated call; the constructs that stay refused are refused with a location.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from vectorize import VectorizeError, vectorize, vmap

ARR = np.array([0.5, -1.5, 2.0, 3.0])

# ------------------------------------------------------------------ vmap: x (4,), k an int


def relu_double(x, k):
    y = np.zeros(4)
    for i in range(4):
        if x[i] > 0:
            y[i] = x[i] * 2
    return y


def add_or_subtract(x, k):
    y = x.copy()
    for i in range(4):
        if x[i] > 0.5:
            y[i] += x[i]
        else:
            y[i] -= 1.0
    return y


def guarded_index(x, k):
    y = np.zeros(4)
    if 0 <= k < 4:
        y[k] = x[0]
    return y


def wrapped_index_in_loop(x, k):
    acc = np.zeros(3)
    for i in range(4):
        if x[i] > 0:
            acc[k % 3] += x[i]
        elif x[i] < -1:
            acc[i % 3] -= 1.0
            if k > 0:
                acc[0] *= 2.0
    return acc


def slice_write(x, k):
    y = np.ones(4)
    for i in range(3):
        if x[i] > x[i + 1]:
            y[i:i + 2] = x[i]
    return y


def while_writes(x, k):
    y = np.zeros(4)
    j = 0
    while j < 4 and x[j] < 1.0:
        y[j] = x[j] + j
        j += 1
    return y


def while_writes_at_per_example_index(x, k):
    acc = np.zeros(3)
    n = 0
    t = x[0]
    while t < 2.0 and n < 6:     # vectorize: compact
        acc[n % 3] += t
        t = t + 0.75
        n += 1
    return acc


def break_writes(x, k):
    y = np.zeros(4)
    for i in range(4):
        if x[i] > 1.0:
            break
        y[i] = x[i]
    return y


def continue_writes(x, k):
    y = np.zeros(4)
    for i in range(4):
        if x[i] < 0:
            continue
        y[i] = 1.0
        y[(i + 1) % 4] += 0.5
    return y


def return_in_loop_writes(x, k):
    y = np.zeros(4)
    for i in range(4):
        if x[i] > 1.0:
            return y
        y[i] = x[i]
    return y


def swap_under_condition(x, k):
    y = x.copy()
    for i in range(2):
        if y[i] > y[3 - i]:
            y[i], y[3 - i] = y[3 - i], y[i]
    return y


def test_reads_the_array_written(x, k):
    y = x.copy()
    for i in range(3):
        if y[i] > 0:
            y[i + 1] = y[i + 1] + y[i]
            y[i] = 0.0
    return y


test_reads_the_array_written.__test__ = False


def matrix_rows(x, k):
    m = np.zeros((3, 4))
    for i in range(3):
        if x[i] > 0:
            m[i] = x * 0.5
        else:
            m[i, i] += 1.0
    if x[3] > -1:
        m[k % 3, 1:3] = x[0]
    return m


def scaled(w, i):
    if w[i] > 0:
        return w[i] * 3.0
    return -w[i]


def helper_value_written(x, k):
    out = np.zeros(4)
    tot = 0.0
    j = 0
    while j < 4 and x[j] < 2.0:
        if k > 0:
            tot += out[j]
            out[j] = scaled(x, j)
        j += 1
    return out + tot


def fresh_arrays_written(x, k):
    w = x * 2
    if x[0] > 0:
        w[1] = 0.0
    r = np.roll(ARR, 1)
    if k > 0:
        r[k % 4] += x[2]
    c = np.array(x)
    if x[3] < 0:
        c[3] = -1.0
    f = np.full(4, x[1])
    if x[1] > 0:
        f[0] = 0.0
    return w + r + c + f


def int_array_float_values(x, k):
    y = np.zeros(4, dtype=np.int64)
    for i in range(4):
        if x[i] > 0:
            y[i] = x[i] * 10
    return y


VMAP_CORPUS = [relu_double, add_or_subtract, guarded_index, wrapped_index_in_loop, slice_write,
               while_writes, while_writes_at_per_example_index, break_writes, continue_writes,
               return_in_loop_writes, swap_under_condition, test_reads_the_array_written,
               matrix_rows, helper_value_written, fresh_arrays_written,
               int_array_float_values]

FLOATS = st.one_of(st.sampled_from([0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -3.0, np.inf, -np.inf,
                                    np.nan]),
                   st.floats(-4, 4, allow_nan=False))


def _loop(f, x, k):
    """(stacked results, exception raised, whether some example warned)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            return np.stack([f(x[n], k[n]) for n in range(len(x))]), None, bool(caught)
        except Exception as exc:  # noqa: BLE001 -- the type is compared
            return None, exc, bool(caught)


_VMAPPED: dict = {}


def _check_vmap(f, x, k):
    g = _VMAPPED.setdefault(f, vmap(f, fallback="error"))
    expected, raised, warned = _loop(f, x, k) if len(x) else (None, None, False)
    with warnings.catch_warnings():
        # no warning from lanes the loop does not run (NumPy's own, where an example warns)
        warnings.simplefilter("ignore" if warned else "error")
        if len(x) == 0:
            got = g(x, k)
            assert got.shape[0] == 0
            return
        if raised is not None:
            with pytest.raises(type(raised)):
                g(x, k)
            return
        got = g(x, k)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("f", VMAP_CORPUS, ids=lambda f: f.__name__)
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_vmap_matches_the_loop(f, data):
    # (nan / inf written into an int array: a divergence, `test_nan_into_an_int_array`)
    elements = st.floats(-4, 4) if f is int_array_float_values else FLOATS
    for n in (0, 1, 5):
        x = data.draw(arrays(np.float64, (n, 4), elements=elements))
        k = data.draw(arrays(np.int64, (n,), elements=st.integers(-6, 6)))
        _check_vmap(f, x, k)


@pytest.mark.parametrize("f", [relu_double, guarded_index, while_writes_at_per_example_index,
                               matrix_rows, fresh_arrays_written],
                         ids=lambda f: f.__name__)
def test_vmap_large_repeated_call(f):
    rng = np.random.default_rng(7)
    for _ in range(2):
        x = rng.normal(size=(10_000, 4)) * 2
        k = rng.integers(-6, 6, size=10_000)
        _check_vmap(f, x, k)


def test_the_source_is_a_masked_write():
    src = vmap(relu_double, fallback="error").source(np.ones((3, 4)), np.ones(3, int))
    assert "y[:, i] = np.where(x[:, i] > 0.0, x[:, i] * 2.0, y[:, i])" in src, src
    src = vmap(guarded_index, fallback="error").source(np.ones((3, 4)), np.ones(3, int))
    assert "k_safe = merge.blend(cond, k, 0)" in src, src
    assert "y[np.arange(len(y)), k_safe] = merge.blend(cond, x[:, 0], " \
           "y[np.arange(len(y)), k_safe])" in src, src
    assert "__" not in src.split("def ", 1)[1]


def int64_item(x):
    y = np.zeros(3, dtype=np.int64)
    y[1] = x[0]
    return y


@pytest.mark.parametrize("api", ["vmap", "vectorize"])
def test_floats_that_do_not_fit_an_int_array_raise_as_the_example_does(api):
    """The batch's cast of arrays makes garbage of NaN, infinities and values beyond the
    dtype (with only NumPy's warning); the example raises (regression: wrong ints)."""
    rows = {"fits": ([[1.0, 2.0, 3.0, 4.0], [-2.0, 1.5, np.nan, 12.7]], None),  # nan: not > 0
            "inf": ([[1.0, 2.0, 3.0, 4.0], [np.inf, 1.0, 1.0, 1.0]], OverflowError),
            "beyond int64": ([[1.0, 2.0, 3.0, 4.0], [1e19, 1.0, 1.0, 1.0]], OverflowError)}
    for x, error in rows.values():
        x = np.array(x)
        k = np.zeros(len(x), dtype=np.int64)
        f = vmap(int_array_float_values) if api == "vmap" else \
            vectorize(int_array_float_values, signature="(n),()->(n)")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if error is None:
                expected = np.stack([int_array_float_values(r, 0) for r in x])
                np.testing.assert_array_equal(f(x, k), expected)
                continue
            with pytest.raises(error):
                int_array_float_values(x[1], 0)
            with pytest.raises(error):
                f(x, k)
    x = np.array([[2.5, 0.0], [np.nan, 1.0]])
    with pytest.raises(ValueError):
        int64_item(x[1])
    f = vmap(int64_item) if api == "vmap" else vectorize(int64_item, signature="(n)->(m)")
    with pytest.raises(ValueError), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f(x)
    np.testing.assert_array_equal(f(x[:1]), [[0, 2, 0]])


# ------------------------------------------------------------ per-example indices' bounds


def write_where_in_range(x, k):
    y = np.zeros(4)
    if x[0] > -100:             # every lane takes it: an index out of range raises
        y[k] = 1.0
    return y


def test_index_out_of_range_on_lanes_that_skip_the_write_does_not_raise():
    x = np.ones((5, 4))
    k = np.array([0, 9, -7, 3, 100])
    got = vmap(guarded_index, fallback="error")(x, k)
    np.testing.assert_array_equal(got, np.stack([guarded_index(a, b) for a, b in zip(x, k)]))


@pytest.mark.parametrize("n", [1, 5])
def test_index_out_of_range_on_a_live_lane_raises_index_error(n):
    x = np.ones((n, 4))
    k = np.zeros(n, dtype=np.int64)
    k[-1] = 4
    with pytest.raises(IndexError):
        write_where_in_range(x[-1], k[-1])
    with pytest.raises(IndexError):
        vmap(write_where_in_range, fallback="error")(x, k)
    k[-1] = -4                  # in range, as NumPy counts from the end
    np.testing.assert_array_equal(vmap(write_where_in_range, fallback="error")(x, k),
                                  np.stack([write_where_in_range(a, b) for a, b in zip(x, k)]))


# ------------------------------------------------------------ vectorize: Python scalars


def histogram_of_digits(n, d):
    counts = np.zeros(4, dtype=np.int64)
    while n > 0:
        if n % 4 != d:
            counts[n % 4] += 1
        n //= 4
    return int(counts[0] * 1000 + counts[1] * 100 + counts[2] * 10 + counts[3])


def scaled_bins(x, k):
    y = np.zeros(4)
    for i in range(4):
        if x * i > 1:
            y[i] = x * 2
        else:
            y[i] -= i
    if 0 <= k < 3:
        y[k] = 1 / x            # ZeroDivisionError where x == 0 and the lane writes
    return y.sum()


def partial_sums(x, k):
    acc = np.full(3, x)
    i = 0
    while i < 3 and acc[i] < 10:
        acc[i] *= 3
        if acc[i] > 5:
            acc[(i + k) % 3] -= 1.0
        i += 1
    return acc[0] + acc[1] - acc[2]


@pytest.mark.parametrize("f", [histogram_of_digits, scaled_bins, partial_sums],
                         ids=lambda f: f.__name__)
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_vectorize_matches_numpy_vectorize(f, data):
    ints = f is histogram_of_digits
    for n in (1, 5):
        first = data.draw(st.lists(st.integers(0, 300) if ints else st.floats(
            -4, 4, allow_nan=False).map(lambda v: round(v, 1)), min_size=n, max_size=n))
        second = data.draw(st.lists(st.integers(-2, 4), min_size=n, max_size=n))
        x, k = np.array(first), np.array(second)
        try:
            expected, raised = np.vectorize(f)(x, k), None
        except Exception as exc:  # noqa: BLE001 -- the type is compared
            raised = exc
        g = vectorize(f, fallback="error")
        if raised is not None:
            with pytest.raises(type(raised)):
                g(x, k)
            continue
        got = g(x, k)
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


def test_vectorize_empty_and_large():
    g = vectorize(partial_sums, fallback="error")
    assert g(np.zeros(0), np.zeros(0, dtype=np.int64)).shape == (0,)
    rng = np.random.default_rng(3)
    for _ in range(2):
        x = np.round(rng.uniform(-4, 4, 10_000), 1)
        k = rng.integers(-2, 4, 10_000)
        np.testing.assert_array_equal(g(x, k), np.vectorize(partial_sums)(x, k))


# ------------------------------------------------------------------ bugs found on the way


def swap_items(x):
    out = x.copy()
    out[0], out[3] = out[3], out[0]
    return out


def test_an_item_swap_swaps():
    """Was silently wrong: the batch read ``out[:, 0]`` as a view after writing it, so both
    items got the old ``out[3]``."""
    x = np.arange(8.0).reshape(2, 4)
    np.testing.assert_array_equal(vmap(swap_items, fallback="error")(x),
                                  np.stack([swap_items(r) for r in x]))


def test_a_read_is_not_moved_past_a_write_into_its_array():
    """Was silently wrong: `simplify` inlined ``tot_if = tot + out[j]`` into its merge after
    the masked write into ``out[j]``, which then read the new value."""
    x = np.array([[1.0, -2.0, 0.3, 0.1], [-2.0, 1.0, 0.5, 3.0], [0.3, 0.3, 0.3, 0.3]])
    k = np.array([1, 1, 0])
    _check_vmap(helper_value_written, x, k)


# ------------------------------------------------- helpers writing into their arguments


def bump_if_positive(w, i, v):
    if v > 0:
        w[i] += v


def add_row(m, r, v):
    m[r] = m[r] + v


def helpers_write_into_the_callers_arrays(x, k):
    y = np.zeros(4)
    for i in range(4):
        bump_if_positive(y, i, x[i])
    m = np.zeros((2, 4))
    add_row(m, k % 2, x)
    return y + m[1] - m[0]


def test_a_helper_writes_into_the_callers_array():
    """The helper changes the caller's array in place, its own per-example condition
    masked; the caller's array holds per-example data from its creation on."""
    rng = np.random.default_rng(5)
    for n in (0, 1, 5):
        x, k = rng.normal(size=(n, 4)), rng.integers(-3, 3, size=n)
        _check_vmap(helpers_write_into_the_callers_arrays, x, k)
    src = vmap(helpers_write_into_the_callers_arrays).source(x, k)
    assert "w[:, i] = merge.blend(v > 0.0, w[:, i] + v, w[:, i])" in src, src


def helper_writes_into_the_callers_argument(x, k):
    bump_if_positive(x, 0, 1.0)
    return x


# ---------------------------------------------------------------------- still refused


def alias_then_write(x, k):
    y = np.zeros(4)
    z = y
    y = np.ones(4)          # `z` still names the zeros (a plain alias is one name:
    if x[0] > 0:            # tests/test_arrays29.py)
        z[0] = 1.0
    return z + y


def bump(w, i):
    w[i] += 1.0


def helper_writes_its_argument(x, k):
    y = np.zeros(4)
    if x[0] > 0:
        bump(y, 1)
    return y


def slice_update_cast_refused_by_numpy(x, k):
    y = np.zeros(4, dtype=np.int64)
    if x[0] > 0:
        y[1:3] += x[0]
    return y


def test_a_helper_writes_into_its_argument_under_a_per_example_condition():
    """Was refused: the helper writes into a copy on every lane, the caller keeps the
    copy's rows where the example makes the call (`passes.helper_writes`)."""
    x = np.array([[1.0, 0, 0, 0], [-1.0, 0, 0, 0], [2.0, 1, 1, 1]])
    _check_vmap(helper_writes_its_argument, x, np.ones(3, dtype=np.int64))


@pytest.mark.parametrize("f", [alias_then_write,
                               helper_writes_into_the_callers_argument,
                               slice_update_cast_refused_by_numpy], ids=lambda f: f.__name__)
def test_refused_with_a_location(f):
    with pytest.raises(VectorizeError) as info:
        vmap(f, fallback="error")(np.ones((3, 4)), np.ones(3, dtype=np.int64))
    assert re.search(r"test_conditional_writes\.py:\d+:\d+:", str(info.value)), info.value


def test_torch_refuses_with_a_location():
    torch = pytest.importorskip("torch")
    x, k = torch.ones((3, 4), dtype=torch.float64), torch.ones(3, dtype=torch.int64)
    with pytest.raises(VectorizeError) as info:
        vmap(relu_double, fallback="error")(x, k)
    assert re.search(r"test_conditional_writes\.py:\d+:\d+:", str(info.value)), info.value


def test_jax_writes_as_functional_updates():
    # (was refused: JAX arrays are immutable; tests/test_jax_writes.py tests the writes)
    pytest.importorskip("jax")
    x = np.array([[1.0, -2.0, 0.5, np.nan], [-1.0, 3.0, -0.0, 2.0], [0.0, 0.0, 1.0, -5.0]])
    got = vmap(relu_double, backend="jax", fallback="error")(x, np.ones(3, dtype=np.int64))
    np.testing.assert_array_equal(got, np.stack([relu_double(r, 1) for r in x]))
