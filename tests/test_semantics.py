"""Each row of the divergence table in docs/semantics.md, shown exactly."""

import math
import warnings

import numpy as np
import pytest
import semantics_functions as sf
from differential import assert_matches_loop

from vectorize import VectorizeError, vectorize


def vec(f):
    return vectorize(f, fallback="error")


def test_untaken_branch_raises_when_numpy_raises_for_it():
    # Both branches run on every lane: NumPy refuses negative integer powers on arrays,
    # so a dead lane of `2 ** n` raises although the scalar code never evaluates it. The
    # batched code raises; `vectorize` then runs numpy.vectorize's loop, which gives the
    # per-example results (the old contract had the ValueError reach the user); `vmap`
    # replays its own loop (NumPy scalars) the same way (it used to raise).
    from vectorize import vmap
    n = np.array([3, -1])
    assert [sf.guarded_int_power(v) for v in n] == [8, 0]
    np.testing.assert_array_equal(vec(sf.guarded_int_power)(n), [8, 0])
    np.testing.assert_array_equal(vmap(sf.guarded_int_power, fallback="error")(n),
                                  [sf.guarded_int_power(v) for v in n])
    np.testing.assert_array_equal(vec(sf.guarded_int_power)(np.array([3, 0])), [8, 1])


def test_dead_lanes_do_not_warn():
    x = np.array([-1.0, 0.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = vec(sf.log_or_zero)(x)
    np.testing.assert_array_equal(got, [0.0, 0.0, np.log(2.0)])


def test_live_lane_warnings_inside_a_batched_branch_are_silenced():
    x = np.array([3.0, 7.0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scalar = sf.log_minus_five(np.float64(3.0))
    assert any(issubclass(w.category, RuntimeWarning) for w in caught)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = vec(sf.log_minus_five)(x)
    assert np.isnan(got[0]) and np.isnan(scalar)
    assert got[1] == np.log(2.0)


def test_python_int_division_by_zero_raises_zerodivisionerror():
    # (the old contract gave NumPy's 0 with a warning; numpy.vectorize raises)
    with pytest.raises(ZeroDivisionError, match="integer division or modulo by zero"):
        np.vectorize(sf.int_floor_div)(np.array([3.0, 4.0]))
    with pytest.raises(ZeroDivisionError, match="integer division or modulo by zero"):
        vec(sf.int_floor_div)(np.array([3.0, 4.0]))


def test_math_domain_errors_raise_valueerror():
    # (the old contract gave NaN; numpy.vectorize raises, so does vectorize; so does vmap:
    # `math.sqrt` of a NumPy scalar raises in the per-example loop too)
    from vectorize import vmap
    with pytest.raises(ValueError, match="math domain error"):
        vec(sf.checked_sqrt)(np.array([-1.0, 4.0]))
    np.testing.assert_array_equal(vec(sf.checked_sqrt)(np.array([1.0, 4.0])), [1.0, 2.0])
    with pytest.raises(ValueError, match="math domain error"):
        vmap(sf.checked_sqrt, fallback="error")(np.array([-1.0, 4.0]))
    np.testing.assert_array_equal(vmap(sf.checked_sqrt)(np.array([1.0, 4.0])), [1.0, 2.0])


def test_side_effects_of_unbatched_calls_happen_once_per_call():
    sf.calls.clear()
    vec(sf.note_and_double)(np.arange(5.0))
    assert sf.calls == ["called"]


def test_int_of_nan_raises_as_in_the_loop():
    # (the old contract gave an arbitrary int with a warning)
    with pytest.raises(ValueError, match="cannot convert float NaN to integer"):
        vec(sf.to_int)(np.array([2.5, np.nan]))
    with pytest.raises(OverflowError, match="cannot convert float infinity to integer"):
        vec(sf.to_int)(np.array([2.5, np.inf]))
    with pytest.raises(OverflowError):       # beyond numpy.vectorize's int64 output
        vec(sf.to_int)(np.array([2.5, 1e19]))
    got = vec(sf.to_int)(np.array([-2.5, 2.5]))
    assert got.dtype.kind == "i" and got.tolist() == [-2, 2]


def test_mixed_int_and_float_returns_take_the_first_examples_type():
    # numpy.vectorize learns the output type from its first example (an int where x > 0)
    # and converts the others to it, truncating floats; the batch's np.where made float64
    for x in (np.array([1.0, -1.0]), np.array([-1.0, 1.0]), np.array([2.0, np.nan])):
        expected = np.vectorize(sf.mixed_return)(x)
        got = vec(sf.mixed_return)(x)
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
    assert vec(sf.mixed_return)(np.array([1.0, -1.0])).dtype.kind == "i"


def test_math_results_meet_float32_as_weak_python_floats():
    # per example `math.sqrt(2.0)` and `math.floor(x)` are Python numbers, weak against the
    # float32 (NEP 50): numpy.vectorize learns float32 from its call on np.float32, and
    # stores every example's Python float in it; the batch's float64 arrays made float64
    x = np.array([1.5, 2.5, -3e38, 0.1], dtype=np.float32)
    expected = np.vectorize(sf.float32_math)(x)
    got = vec(sf.float32_math)(x)
    assert got.dtype == expected.dtype == np.float32
    np.testing.assert_array_equal(got, expected)


def test_integer_overflow_raises_overflowerror():
    # (the old contract wrapped silently; numpy.vectorize's Python ints do not fit int64)
    big = np.array([3, 2**62], dtype=np.int64)
    with pytest.raises(OverflowError):
        np.vectorize(sf.square_int)(big)
    with pytest.raises(OverflowError):
        vec(sf.square_int)(big)
    np.testing.assert_array_equal(vec(sf.square_int)(np.array([3, 2**31])), [9, 2**62])


def test_empty_batches_need_no_otypes():
    got = vec(sf.log_or_zero)(np.array([], dtype=np.float64))
    assert got.shape == (0,) and got.dtype == np.float64
    with pytest.raises(ValueError, match="otypes"):
        np.vectorize(sf.log_or_zero)(np.array([], dtype=np.float64))


def test_fmin_of_opposite_zeros_may_pick_the_other_zero():
    """NumPy itself picks either zero for np.fmin/np.fmax/np.minimum/np.maximum of +0.0 and
    -0.0: its SIMD array loop and its scalar loop differ (even lane by lane in one array).
    The values agree; the sign of such a zero may not."""
    x = np.full(6, -0.0)
    y = np.zeros(6)
    per_example = np.array([sf.smaller(a, b) for a, b in zip(x, y)])
    got = vec(sf.smaller)(x, y)
    assert np.array_equal(got, per_example)                 # equal as numbers
    # the zeros are NumPy's array loop's (on x86-64 with AVX, numpy 2.4: +0.0 in the lanes
    # its SIMD loop handles, -0.0 in the tail and in the scalar loop)
    assert np.array_equal(np.signbit(got), np.signbit(np.fmin(x, y)))


def test_a_nan_made_from_nans_is_nan_whatever_its_sign():
    """`-x + (x + x)` with x NaN: both operands of the last `+` are NaN, and which one's sign
    the result carries is not specified (IEEE 754, 6.3). NumPy's scalar arithmetic and its
    array loop differ (on x86-64, numpy 2.4: positive per example, negative in the array);
    the vectorized code gives the array loop's, the same NaN the plain NumPy expression
    gives."""
    x = np.array([math.nan, -math.nan, 1.0])
    per_example = np.array([sf.nan_mix(a) for a in x])
    got = vec(sf.nan_mix)(x)
    assert np.array_equal(got, per_example, equal_nan=True)     # NaN where the loop has NaN
    assert np.array_equal(np.signbit(got), np.signbit(-x + (x + x)))


def test_in_place_update_of_an_aliased_per_example_array_is_rejected():
    """Per example `np.where` of scalars is a 0-d array: `x += 1` changes it in place and
    `y` (bound to it) sees the change; the batch would rebind `x` only. Refused, located."""
    from vectorize import VectorizeError
    assert sf.copy_then_add_in_place(np.float64(2.0)) == 3.0     # y changed with x
    with pytest.raises(VectorizeError, match=r"semantics_functions\.py:\d+:\d+: `x \+=` "):
        vec(sf.copy_then_add_in_place)(np.array([2.0, -1.0]))


@pytest.mark.parametrize("name", ["add_in_place_to_a_copy_binding",
                                  "add_in_place_through_a_conditional",
                                  "add_in_place_seen_through_a_chain"])
def test_in_place_update_of_a_name_bound_from_another_is_rejected(name):
    """The same in the other direction (`y = z; y *= 2` changes `z`), through a chain of
    bindings, and for a 0-d array from one arm of a conditional expression (found by the
    fuzzer, seed 14: the batch returned the unchanged `z`)."""
    from vectorize import VectorizeError
    f = getattr(sf, name)
    x = np.float64(2.0)
    assert f(x) != np.where(x > 0, x, -x)                        # z changed per example
    with pytest.raises(VectorizeError, match=r"semantics_functions\.py:\d+:\d+: `[yz] "):
        vec(f)(np.array([2.0, -1.0, 7.0]))


@pytest.mark.parametrize("name", ["update_a_slice_in_place",
                                  "update_a_reshaped_view_in_place"])
def test_in_place_update_of_a_view_is_rejected(name):
    """`y = x[:2]` (or `x.reshape(...)`, `np.asarray(x)`, `.T`...) shares x's memory: per
    example `y += 1` changes x; the batch would rebind y only (it returned x unchanged
    before this was refused)."""
    from vectorize import VectorizeError, vmap
    f = getattr(sf, name)
    rows = np.arange(6.0).reshape(2, 3)
    row = rows[1].copy()
    f(row)
    assert not np.array_equal(row, rows[1])         # per example, x itself changed
    with pytest.raises(VectorizeError, match=r"semantics_functions\.py:\d+:\d+: `y "):
        vmap(f, fallback="error")(rows)


def test_a_helper_updating_its_argument_in_place_is_rejected_where_the_caller_reads_it():
    """Per example a helper's `v *= 2` changes the caller's 0-d array (or vector, or a view
    of it); the batch would rebind the helper's name only (both gave silently wrong results
    before this was refused)."""
    from vectorize import VectorizeError, vmap
    x = np.array([3.0, -1.0, 2.0])
    assert sf.pass_to_a_helper_that_updates_it(np.float64(3.0)) == 12.0     # y doubled too
    with pytest.raises(VectorizeError, match=r"`double_in_place` changes its argument `v`"):
        vec(sf.pass_to_a_helper_that_updates_it)(x)
    with pytest.raises(VectorizeError, match=r"`add_one_in_place` changes its argument `v`"):
        vmap(sf.pass_a_vector_to_a_helper_that_updates_it, fallback="error")(
            np.arange(6.0).reshape(2, 3))
    assert_matches_loop(sf.pass_to_a_helper_and_forget_it, x)     # y not read again


def test_in_place_update_of_a_shared_array_is_rejected():
    """`w += x` with `w` the same array for every example (`in_axes=None`, `excluded`, a
    global): per example each example adds to it again (the loop's results depend on the
    order); the batch would rebind `w` once."""
    from vectorize import VectorizeError, vmap
    x, w = np.array([1.0, 2.0, 3.0]), np.array([10.0, 20.0])
    shared = w.copy()
    assert [sf.accumulate_into_a_shared_array(v, shared) for v in x] == [32.0, 36.0, 42.0]
    with pytest.raises(VectorizeError, match=r"`w \+=` changes the array `w` in place"):
        vmap(sf.accumulate_into_a_shared_array, in_axes=(0, None), fallback="error")(x, w)
    with pytest.raises(VectorizeError, match=r"`w \+=` changes the array `w` in place"):
        vectorize(sf.accumulate_into_a_shared_array, excluded={1}, fallback="error")(x, w)


def test_augmented_assignment_aligns_ranks_like_the_operator():
    """`x += w` with a per-example scalar `x` and a shared vector `w` is `x[:, None] + w`,
    as `x + w` is (it raised a broadcast error before)."""
    from vectorize import vmap
    x, w = np.array([1.0, -2.0, 3.5]), np.array([10.0, 20.0])
    got = vmap(sf.add_a_shared_vector, in_axes=(0, None), fallback="error")(x, w)
    assert np.array_equal(got, np.stack([sf.add_a_shared_vector(v, w.copy()) for v in x]))
    # y = x, then y *= 2 changes x too per example, but nothing reads x again
    got = vmap(sf.add_a_shared_vector_in_place, in_axes=(0, None), fallback="error")(x, w)
    assert np.array_equal(got, [sf.add_a_shared_vector_in_place(v, w.copy()) for v in x])


def test_only_bindings_that_may_come_before_an_update_count():
    """A name bound to the array after the update (`x, y = y, x`) cannot see it; one bound
    later in a loop around the update can, from the next iteration on."""
    x, y = np.array([1.0, -1.0, 2.5]), np.array([0.5, 3.0, -2.0])
    assert_matches_loop(sf.update_then_swap, x, y)
    assert sf.update_seen_by_the_next_iteration(np.float64(1.0)) == 3.0    # not 2.0
    with pytest.raises(VectorizeError, match=r"`x \+=` .* `y` is bound to it"):
        vec(sf.update_seen_by_the_next_iteration)(x)
    # nor does one on the other branch of an `if`, unless a loop takes both branches
    assert_matches_loop(sf.bind_on_one_branch_update_on_the_other, x)
    assert sf.bind_then_update_on_later_iterations(np.float64(1.0)) == 4.0   # not 3.0
    with pytest.raises(VectorizeError, match=r"`x \+=` .* `y` is bound to it"):
        vec(sf.bind_then_update_on_later_iterations)(x)


def test_in_place_update_of_a_new_array_is_vectorized():
    from vectorize import vmap
    rows = np.array([[0.0, 1.0, 2.0], [-1.0, np.nan, 4.0]])
    got = vmap(sf.update_a_new_array_in_place, fallback="error")(rows)
    expected = np.stack([sf.update_a_new_array_in_place(r.copy()) for r in rows])
    assert np.array_equal(got, expected, equal_nan=True)


def test_in_place_update_before_another_name_is_bound_is_vectorized():
    """Only names whose value may be read after the update count: `y = z` after `z += 1`
    cannot see the change (so the function is not refused)."""
    x = np.array([2.0, -1.0, 0.0, np.nan])
    assert_matches_loop(sf.add_in_place_before_the_copy_is_bound, x)


def test_math_functions_are_numpys_to_the_last_bit():
    """`math.tanh(x)` becomes `np.tanh(x)`: the vectorized value is NumPy's, which can be an
    ulp from the C library's; `1 + tanh(x)` near -1 magnifies that."""
    x = np.array([-7.25, 0.5, -20.0])
    got = vec(sf.one_plus_tanh)(x)
    assert np.array_equal(got, 1.0 + np.tanh(x))
    per_example = np.array([sf.one_plus_tanh(v) for v in x])
    assert np.all(np.abs(np.tanh(x) - np.array([math.tanh(v) for v in x]))
                  <= np.spacing(np.abs(np.tanh(x))))          # at most one ulp apart
    np.testing.assert_allclose(got, per_example, rtol=1e-9, atol=1e-15)
