"""Per-example arrays written into under a per-example condition (benchmarks/fuzz_arrays34.py):
each against numpy.vectorize itself (values and dtype) and vmap against the loop over rows."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from differential import outcome

from vectorize import VectorizeError, vectorize, vmap


def _masked_int_write_float(v, x):
    y = v.copy()
    for i in range(len(v)):
        if x > 0:
            y[i] = x
    return y


def _masked_int_write_at_argmax(v, x):
    y = v.copy()
    j = int(np.argmax(v))
    if x > 0:
        y[j] = x
    return y


def _masked_write_after_wrapping_sum(v, w):
    # (fuzz_arrays34 seed 12, minimized) the kept items of an int64 array near 2**63
    s = np.sum(w)
    y = np.roll(v, -1)
    for i in range(len(v)):
        y[i] = max(s - w[i], 4)
    for i in range(len(w)):
        if w[i] >= 0.0:
            y[i] = 0.0
    return y


BIG = 2**62 + 1


def _reference(f, sig, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return np.vectorize(f, signature=sig)(*args)


@pytest.mark.parametrize("f", [_masked_int_write_float, _masked_int_write_at_argmax])
def test_a_masked_write_of_a_float_keeps_the_int64_items_it_does_not_write(f):
    # where(c, float, int64) is float64: 2**62 + 1 came back as 2**62
    v = np.array([[BIG, 3], [5, BIG + 2], [7, 9]])
    x = np.array([np.nan, 1.5, -1.0])
    sig = "(n),()->(n)"
    got = vectorize(f, signature=sig, fallback="error")(v, x)
    want = _reference(f, sig, v, x)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    rows = np.stack([f(v[i].copy(), x[i]) for i in range(len(x))])
    np.testing.assert_array_equal(vmap(f)(v, x), rows)


def test_a_masked_write_keeps_int64_items_near_the_top_of_the_range():
    v = np.array([[-2**63, -7, 3, -2**63]])
    w = np.array([[-7, -2**63, -2**63, 0]])
    sig = "(n),(n)->(n)"
    f = _masked_write_after_wrapping_sum
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        got = vectorize(f, signature=sig, fallback="error")(v, w)
        rows = np.stack([f(v[0].copy(), w[0])])
        mapped = vmap(f)(v, w)
    want = _reference(f, sig, v, w)
    np.testing.assert_array_equal(got, want)      # 2**63 - 7 kept, not -2**63
    np.testing.assert_array_equal(mapped, rows)


def _write_at_argmax(v, w):
    y = np.array(w, dtype=float)
    y[np.argmax(v)] = 0.0
    return y


def test_a_module_name_read_in_a_written_item_s_index_is_no_variable():
    # (fuzz_arrays34 seed 13) `np` in `y[np.argmax(v)] = ...` is read: refused as a
    # variable named like the module
    v = np.array([[2.0, 3.0, 1.0], [5.0, 4.0, np.nan]])
    w = np.array([[1, 2, 3], [4, 5, 6]])
    sig = "(n),(n)->(n)"
    got = vectorize(_write_at_argmax, signature=sig, fallback="error")(v, w)
    want = _reference(_write_at_argmax, sig, v, w)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(vmap(_write_at_argmax)(v, w),
                                  np.stack([_write_at_argmax(v[i], w[i]) for i in range(2)]))


def _masked_int_write_past_continue(v, w, x):
    # (fuzz_arrays34 seed 163) written where the test does NOT hold: the `orelse` arm
    y = np.full(len(v), x)
    acc = 1.0
    for i in range(len(w)):
        if w[i] < 0.0:
            continue
        y[i] = acc
    return y


def test_a_masked_write_past_a_continue_writes_the_lanes_the_test_does_not_hold_on():
    v = np.zeros((3, 3), dtype=np.int32)
    w = np.array([[4.0, 4.0, 1.5], [0.25, -1.0, 1.0], [-1.0, -2.0, -3.0]], dtype=np.float32)
    x = np.array([6, BIG, -2])
    sig = "(n),(n),()->(n)"
    f = _masked_int_write_past_continue
    got = vectorize(f, signature=sig, fallback="error")(v, w, x)
    want = _reference(f, sig, v, w, x)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    rows = np.stack([f(v[i], w[i], x[i]) for i in range(3)])
    np.testing.assert_array_equal(vmap(f)(v, w, x), rows)


def _shift_in_place(a, c):
    a[1:] = a[:-1] + c
    return c + 1.0


def _helper_writes_then_a_conditional_write(v, w, x):
    # (fuzz_arrays34 seed 2) the call runs for every example; the `if` after it made every
    # later analysis count it as running on some lanes only: refused
    y = np.full(len(v), x)
    s = _shift_in_place(y, 0.5)
    for i in range(len(w)):
        if w[i] < 0.0:
            y[i] = s
    return y


def _helper_assigned_under_a_condition(v, w, x):
    y = v.copy()
    s = 0.0
    if x > 0:
        s = _shift_in_place(y, x)
    return y * s


def test_a_helper_writing_its_argument_assigned_under_a_condition_is_refused():
    # (the call would be evaluated in the merge of `s`, after the write back of its copy:
    # y * 3 where the loop gives [3, 9, 12])
    v = np.array([[1.0, 2.0, 3.0]])
    with pytest.raises(VectorizeError, match="writes into `y`"):
        vectorize(_helper_assigned_under_a_condition, signature="(n),(n),()->(n)",
                  fallback="error")(v, v, np.array([2.0]))


def test_a_helper_writing_its_argument_runs_before_a_per_example_if():
    f = _helper_writes_then_a_conditional_write
    v = np.array([[1.0, 2.0, 3.0], [4.0, -1.0, 0.5], [0.0, 0.0, 7.0]])
    w = np.array([[1.0, -2.0, 3.0], [-4.0, 1.0, -0.5], [0.0, 2.0, 1.0]])
    x = np.array([2.0, -1.0, 0.25])
    sig = "(n),(n),()->(n)"
    got = vectorize(f, signature=sig, fallback="error")(v, w, x)
    want = _reference(f, sig, v, w, x)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    rows = np.stack([f(v[i].copy(), w[i], x[i]) for i in range(3)])
    np.testing.assert_array_equal(vmap(f)(v, w, x), rows)
    np.testing.assert_array_equal(v[1], [4.0, -1.0, 0.5])     # the caller's rows unchanged


def _fill_from_argmax(v, x):
    y = v.copy()
    j = int(np.argmax(v))
    y[j:] = x
    return y


def _fill_before_shifted_argmin(v, x):
    y = np.zeros_like(v)
    j = int(np.argmin(v)) - 2          # negative: counted from the end
    y[:j] = 1.5
    return y


def _fill_between(v, x):
    y = v.copy()
    j = int(np.argmax(v))
    y[j - 1:len(v) - 1] = x * 2
    return y


def _fill_int_past_the_end(v, x):
    y = np.zeros(len(v), dtype=np.int64)
    j = int(np.argmax(v))
    y[j + 10:] = x                     # empty, yet NaN / inf still raise
    return y


def _fill_int_from_end(v, x):
    y = np.zeros(len(v), dtype=np.int64)
    j = int(np.argmax(v))
    y[-j:] = x
    return y


SLICE_WRITES = [_fill_from_argmax, _fill_before_shifted_argmin, _fill_between,
                _fill_int_past_the_end, _fill_int_from_end]


@pytest.mark.parametrize("f", SLICE_WRITES)
@pytest.mark.parametrize("x", [[0.5, -2.0, 7.25], [np.nan, 1.0, 2.0], [2.5, np.inf, -3.5],
                               [1e300, 0.0, 1.0]])
def test_a_slice_with_a_per_example_bound_written_with_a_number(f, x):
    v = np.array([[1.0, 5.0, 3.0, 0.0], [9.0, 2.0, -1.0, 4.0], [0.0, 0.0, 0.0, 7.0]])
    x = np.array(x)
    sig = "(n),()->(n)"
    got, got_err = outcome(lambda: vectorize(f, signature=sig, fallback="error")(v, x))
    want, want_err = outcome(lambda: np.vectorize(f, signature=sig)(v, x))
    assert type(got_err) is type(want_err), (got_err, want_err)
    if want_err is None:
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    rows, rows_err = outcome(lambda: np.stack([f(v[i], x[i]) for i in range(3)]))
    mapped, mapped_err = outcome(lambda: vmap(f)(v, x))
    assert type(mapped_err) is type(rows_err), (mapped_err, rows_err)
    if rows_err is None:
        np.testing.assert_array_equal(mapped, rows)


def test_a_slice_write_with_a_per_example_bound_is_vectorized():
    v = np.zeros((2, 3))
    source = vectorize(_fill_from_argmax, signature="(n),()->(n)").source(v, np.zeros(2))
    assert "runs per example" not in source and "copyto" in source, source


def _recurrence_with_a_python_int(v, x):
    # (fuzz_arrays34 seed 23) per example `y[i - 1] * t` is float32 * int: a float32 (NEP 50)
    y = np.array(v)
    t = int(np.argmin(y))
    for i in range(1, len(y)):
        y[i] = y[i - 1] * t + v[i]
    return y


def _float32_accumulated_with_a_python_float(v, x):
    s = 0.0
    for e in v:
        s = e * 0.5 + s * float(x)
    return s


def _float32_times_a_python_int_result(v, x):
    t = int(x) % 3
    return v[0] / (t + 1) - v[-1] ** 2


@pytest.mark.parametrize("f, out", [(_recurrence_with_a_python_int, "(n)"),
                                    (_float32_accumulated_with_a_python_float, "()"),
                                    (_float32_times_a_python_int_result, "()")])
def test_a_float32_meeting_a_per_example_python_number_computes_in_float32(f, out):
    v = np.array([[1.5, 2.25, 0.1], [3e38, 1.0, -2.0], [0.3, 0.7, 0.1]], dtype=np.float32)
    x = np.array([1.0, 5.0, 2.0])
    sig = f"(n),()->{out}"
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        got = vectorize(f, signature=sig, fallback="error")(v, x)
    want = _reference(f, sig, v, x)
    assert got.dtype == want.dtype == np.float32
    np.testing.assert_array_equal(got, want)


def _bool_array_minus_ints(v, w):
    # (fuzz_arrays34 seed 130) per example NumPy refuses to cast the int64 difference into
    # the bool array (UFuncTypeError); vmap rebound `y` to the int64 difference: -1s
    y = np.zeros(len(v), dtype=bool)
    y -= w
    return y


def test_an_in_place_update_of_a_bool_array_by_ints_is_no_new_array():
    v = np.ones((2, 3), dtype=np.int32)
    w = np.ones((2, 3), dtype=np.int64)
    with pytest.raises(TypeError):
        _bool_array_minus_ints(v[0], w[0])
    got, err = outcome(lambda: vmap(_bool_array_minus_ints)(v, w))
    assert isinstance(err, (TypeError, VectorizeError)), got
    got, err = outcome(lambda: vectorize(_bool_array_minus_ints, signature="(n),(n)->(n)",
                                         fallback="error")(v, w))
    assert isinstance(err, (TypeError, VectorizeError)), got


def _mask_edited(v, w, x):
    y = v > x                   # a new bool array per example, written into below
    for i in range(len(w)):
        if w[i] > 1.0:
            y[i] = False
    return y


def test_a_comparison_s_array_is_the_function_s_own_to_write_into():
    v = np.array([[1.0, 5.0, 3.0], [9.0, 2.0, -1.0], [0.0, np.nan, 4.0]])
    w = np.array([[0.0, 2.0, 3.0], [1.0, 1.5, 0.0], [5.0, 0.0, 0.0]])
    x = np.array([0.5, 1.0, -1.0])
    sig = "(n),(n),()->(n)"
    got = vectorize(_mask_edited, signature=sig, fallback="error")(v, w, x)
    want = _reference(_mask_edited, sig, v, w, x)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    rows = np.stack([_mask_edited(v[i], w[i], x[i]) for i in range(3)])
    np.testing.assert_array_equal(vmap(_mask_edited)(v, w, x), rows)
    np.testing.assert_array_equal(v[2, 0], 0.0)


def _head_copied(v, w, x):
    y = np.zeros_like(v)
    j = int(np.argmax(v))
    y[:j] = w[:j]
    return y


def _tail_copied_from_end(v, w, x):
    y = np.full(len(v), x)
    j = int(np.argmin(w)) - 1          # -1 where w's minimum is first: the last item only
    y[j:] = v[j:]
    return y


def _head_copied_into_ints(v, w, x):
    y = np.zeros(len(v), dtype=np.int64)
    j = int(np.argmax(v))
    y[:j] = w[:j]
    return y


def _head_copied_shifted(v, w, x):
    y = np.zeros_like(v)
    j = int(np.argmax(v))
    y[:j] = w[1:j + 1]                 # other bounds: the items move, refused
    return y


@pytest.mark.parametrize("f", [_head_copied, _tail_copied_from_end, _head_copied_into_ints])
def test_a_slice_with_a_per_example_bound_written_with_the_same_slice_of_a_vector(f):
    # (fuzz_arrays34: `y1[:j] = v[:j]`, refused as a slice of different length per example)
    v = np.array([[1.0, 5.0, 3.0, 0.0], [9.0, 2.0, -1.0, 4.0], [0.0, 0.0, 0.0, 7.0]])
    w = np.array([[1.5, np.nan, 3.0, 2.0], [0.5, 2.5, -1.0, 4.0], [0.25, 0.0, 8.0, 7.0]])
    x = np.array([0.5, -2.0, 7.25])
    sig = "(n),(n),()->(n)"
    got = vectorize(f, signature=sig, fallback="error")(v, w, x)
    want = _reference(f, sig, v, w, x)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    rows = np.stack([f(v[i], w[i], x[i]) for i in range(3)])
    np.testing.assert_array_equal(vmap(f)(v, w, x), rows)


def test_a_slice_written_with_a_slice_of_other_bounds_is_refused():
    v = np.zeros((2, 3))
    with pytest.raises(VectorizeError, match="different length per example"):
        vectorize(_head_copied_shifted, signature="(n),(n),()->(n)", fallback="error")(
            v, v, np.zeros(2))


def _head_filled_under_a_condition(v, x, k):
    y = np.zeros(len(v), dtype=np.float32)
    j = int(np.argmin(v)) + 1
    if x > 1.0:
        y[:j] = max(0.0, x)
    return y


def _both_sides_filled(v, x, k):
    y = v.copy()
    j = int(np.argmax(v))
    if x > 0:
        y[j:] = x
    else:
        y[:j] = -1.0
    return y


def _int_tail_filled_in_a_loop(v, x, k):
    y = np.zeros(len(v), dtype=np.int64)
    j = int(np.argmax(v)) - 3
    for i in range(len(v)):
        if v[i] > x:
            y[j:] = x                  # NaN / inf raise only where a lane writes
    return y


@pytest.mark.parametrize("f", [_head_filled_under_a_condition, _both_sides_filled,
                               _int_tail_filled_in_a_loop])
@pytest.mark.parametrize("x", [[0.5, -2.0, 7.25], [np.nan, 3.0, 1.5], [np.inf, -np.inf, 1.5]])
def test_a_slice_with_a_per_example_bound_written_under_a_per_example_condition(f, x):
    # (fuzz_arrays34 seed 300s: `if ...: y1[:k] = ...`, refused as a slice of different
    # length per example) the bound makes the slice empty where the branch does not run
    v = np.array([[1.0, 5.0, 3.0, 0.0], [9.0, 2.0, -1.0, 4.0], [0.0, 0.0, 0.0, 7.0]])
    x = np.array(x)
    sig = "(n),(),()->(n)"
    got, got_err = outcome(lambda: vectorize(f, signature=sig, fallback="error")(v, x, 2))
    want, want_err = outcome(lambda: np.vectorize(f, signature=sig)(v, x, 2))
    assert type(got_err) is type(want_err), (got_err, want_err)
    if want_err is None:
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    rows, rows_err = outcome(lambda: np.stack([f(v[i], x[i], 2) for i in range(3)]))
    mapped, mapped_err = outcome(lambda: vmap(f, in_axes=(0, 0, None))(v, x, 2))
    assert type(mapped_err) is type(rows_err), (mapped_err, rows_err)
    if rows_err is None:
        np.testing.assert_array_equal(mapped, rows)
