"""Control flow and containers that were refused: ``try``/``finally`` (with or without
handlers and ``else:``), reductions of slices with per-example bounds (of a vector the same
for every example or per example), and a lookup table chosen per example by a conditional
expression between displays of different lengths.

Differential: `vectorize` against numpy.vectorize itself (Python numbers per example: equal
values and dtype where it returns, the same exception type where it raises); `vmap` against
the loop over NumPy scalars / rows. Values include NaN, inf, -inf, ±0 and negatives; batches
of 0, 1 and 5 examples.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from differential import assert_like_numpy_vectorize, assert_values_equal
from hypothesis import given, settings
from hypothesis import strategies as st

from vectorize import VectorizeError, vectorize, vmap

SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -2.0, -2.5, 3.0, 7.0, math.nan, math.inf, -math.inf]


def reference(f, args, signature=None):
    """(result, exception) of numpy.vectorize; (None, None) for an empty batch."""
    if any(np.shape(a)[:1] == (0,) for a in args):
        return None, None
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return np.vectorize(f, signature=signature)(*args), None
        except Exception as exc:  # noqa: BLE001 -- the reference's outcome
            return None, exc


def check_vectorize(f, args, signature=None):
    expected, error = reference(f, args, signature)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        vf = vectorize(f, fallback="error", signature=signature)
        if error is not None:
            with pytest.raises(type(error)):
                vf(*args)
            return
        got = vf(*args)
    if expected is None:
        assert np.shape(got)[:1] == (0,)
        return
    assert_like_numpy_vectorize(got, expected, f"{f.__name__}{args}: ")


def check_vmap(f, args):
    """vmap(f) against the loop over the NumPy examples (rows / scalars)."""
    n = len(args[0])
    lanes, error = [], None
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for i in range(n):
            try:
                lanes.append(f(*[a[i] for a in args]))
            except Exception as exc:  # noqa: BLE001 -- the first failing example's
                error = exc
                break
        if error is not None:
            with pytest.raises(type(error)):
                vmap(f)(*args)
            return
        got = vmap(f)(*args)
    assert np.shape(got)[:1] == (n,)
    if n:
        expected = np.stack(lanes)
        if all(type(r) is int for r in lanes):
            # `sum()` of nothing on every example: Python's int 0, where the batch's sum
            # is of the items' dtype (the known limitation test_arrays'
            # test_builtin_sum_of_an_empty_vector pins): the values are compared
            expected = expected.astype(np.asarray(got).dtype)
        assert_values_equal(got, expected, f"{f.__name__}{args}: ")


def floats(n):
    return st.lists(st.sampled_from(SPECIAL), min_size=n, max_size=n).map(np.array)


def ints(n, lo=-8, hi=8):
    return st.lists(st.integers(lo, hi), min_size=n, max_size=n).map(
        lambda v: np.array(v, dtype=np.int64))


SIZES = st.sampled_from([0, 1, 5])

# ------------------------------------------------------------------------------ try / finally


def fin_plain(x):
    try:
        y = x * 2
    finally:
        z = 1.0
    return y + z


def fin_return_in_body(x):
    n = 0.0
    try:
        if x > 1:
            return x + n
        n = 5.0
    finally:
        n = n + 1
        x = -x
    return n + x


def fin_handler_returns(x):
    try:
        r = math.log(x)
    except ValueError:
        return -1.0
    finally:
        x = 2 * x
    return r + x


def fin_in_loop(x):
    s = 0.0
    for i in range(4):
        try:
            if i > x:
                break
            if i == 1:
                continue
            s += i
        finally:
            s += 0.5
    return s


def fin_uncaught(x):
    try:
        y = 1 / x
    finally:
        y = 3.0
    return y


def fin_return_under_handlers(x):
    c = 1.0
    try:
        return 1.0 / x + c
    except ZeroDivisionError:
        return -c
    finally:
        c = 7.0


def fin_except_else(x):
    try:
        y = 1.0 / x
    except ZeroDivisionError:
        y = 0.0
    else:
        y = y + 1
    finally:
        y = y * 2
    return y


def fin_return_reads_final(x):
    y = x
    try:
        return y * 3
    finally:
        y = 0.0


def fin_both_raise(x):
    # x = -2.0: math.sqrt raises ValueError, then `finally` raises ZeroDivisionError, which
    # Python propagates (numpy.vectorize's first example, a NumPy scalar: only ValueError)
    try:
        y = math.sqrt(x)
    finally:
        z = 1 / (x + 2)
    return y + z


FINALLY = [fin_both_raise, fin_plain, fin_return_in_body, fin_handler_returns, fin_in_loop,
           fin_uncaught, fin_return_under_handlers, fin_except_else, fin_return_reads_final]


@pytest.mark.parametrize("f", FINALLY)
def test_finally_fixed(f):
    x = np.array(SPECIAL)
    check_vectorize(f, (x,))
    check_vmap(f, (x,))


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(FINALLY), SIZES.flatmap(floats))
def test_finally_random(f, x):
    check_vectorize(f, (x,))
    check_vmap(f, (x,))


@pytest.mark.parametrize("x", [[-2.0, 1.0], [1.0, -2.0], [1.0, -3.0], [4.0, 0.0]])
def test_exception_from_finally_replaces_the_bodys(x):
    check_vectorize(fin_both_raise, (np.array(x),))
    check_vmap(fin_both_raise, (np.array(x),))


def test_uncaught_exception_is_the_first_failing_examples():
    # numpy.vectorize raises ZeroDivisionError (Python numbers); the loop over NumPy scalars
    # divides to inf and returns 3.0 everywhere
    x = np.array([1.0, 0.0, 2.0])
    with pytest.raises(ZeroDivisionError):
        vectorize(fin_uncaught, fallback="error")(x)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        np.testing.assert_array_equal(vmap(fin_uncaught)(x), [3.0, 3.0, 3.0])


def fin_returns_itself(x):
    try:
        x = x + 1
    finally:
        return 1.0  # noqa: B012 -- the construct refused


def fin_body_leaves_under_handlers(x):
    try:
        if x > 0:
            return 1.0
        y = 1 / x
    except ZeroDivisionError:
        try:
            y = 3.0
        finally:
            x = 2.0
    finally:
        x = 0.0
    return y


def test_finally_around_a_body_that_leaves_under_handlers_is_refused_where_written():
    # (the inner `try`, in a handler, is lowered; the outer one, whose body returns before
    # its end under handlers that a copy of `finally` there would be inside, is refused at
    # its `try`)
    with pytest.raises(VectorizeError, match="leaves other than by a last") as info:
        vectorize(fin_body_leaves_under_handlers, fallback="error")(np.ones(3))
    assert info.value.line == fin_body_leaves_under_handlers.__code__.co_firstlineno + 1


def test_finally_that_returns_is_refused_where_written():
    with pytest.raises(VectorizeError, match="`finally` itself returns") as info:
        vectorize(fin_returns_itself, fallback="error")(np.ones(3))
    assert info.value.line == fin_returns_itself.__code__.co_firstlineno + 1


# ------------------------------------------------------------------- slices, then reduced
V = np.array([1.5, -2.0, 3.0, 0.25, -0.0, 6.0])


def sl_sum_prefix(k):
    return V[:k].sum()


def sl_sum_builtin(k):
    return sum(V[k:])


def sl_mean(k):
    return np.mean(V[:k])


def sl_any_between(k):
    return np.any(V[k:-1] > 2)


def sl_max_between(i, j):
    return V[i:j].max()


def sl_len_and_sum(k):
    w = V[-k:]
    return np.sum(w * 2) + len(w)


def row_sum(v, k):
    w = v[k:]
    return np.sum(w * 2) + len(w)


def row_mean_of_tail(v, k):
    return v[-k:].mean()


def row_min_plus_prod(v, k):
    return np.min(v[k:k + 3]) + np.prod(v[:k])


FLOATS = [1.0, 2.5, -3.0, 0.25]
INTS = (4, -1, 7)


def sl_list_sum(k):
    return sum(FLOATS[:k])


def sl_tuple_sum_and_mean(k):
    return sum(INTS[k:]) + np.mean(FLOATS[-k:])


SHARED = [sl_sum_prefix, sl_sum_builtin, sl_mean, sl_any_between, sl_len_and_sum,
          sl_list_sum, sl_tuple_sum_and_mean]


@pytest.mark.parametrize("f", SHARED)
def test_slice_of_a_shared_vector(f):
    k = np.arange(-9, 10)
    check_vectorize(f, (k,))
    check_vmap(f, (k,))


def test_max_of_a_slice_with_two_per_example_bounds():
    i, j = np.array([0, 1, -3, 2]), np.array([3, -1, 6, 9])
    check_vectorize(sl_max_between, (i, j))
    # an empty slice: NumPy's ValueError, as the example's own `.max()` raises
    check_vectorize(sl_max_between, (np.array([0, 3]), np.array([2, 3])))
    with pytest.raises(ValueError):
        vectorize(sl_max_between, fallback="error")(np.array([0, 3]), np.array([2, 3]))


def test_max_of_a_slice_under_vmap_is_refused_where_written():
    with pytest.raises(VectorizeError, match="different length per example") as info:
        vmap(sl_max_between)(np.array([0, 1]), np.array([2, 3]))
    assert info.value.line == sl_max_between.__code__.co_firstlineno + 1


def test_mean_of_an_empty_slice_warns_as_numpy():
    with pytest.warns(RuntimeWarning):
        got = vectorize(sl_mean, fallback="error")(np.array([0, 2]))
    assert np.isnan(got[0]) and got[1] == -0.25


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(SHARED), SIZES.flatmap(ints))
def test_slice_of_a_shared_vector_random(f, k):
    check_vectorize(f, (k,))
    check_vmap(f, (k,))


@settings(max_examples=20, deadline=None)
@given(st.sampled_from([row_sum, row_mean_of_tail, row_min_plus_prod]), SIZES, st.data())
def test_slice_of_a_per_example_vector_random(f, n, data):
    v = data.draw(st.lists(floats(4), min_size=n, max_size=n)).copy()
    v = np.array(v, dtype=float).reshape(n, 4)
    k = data.draw(ints(n, -6, 6))
    check_vectorize(f, (v, k), signature="(n),()->()")
    if f is not row_min_plus_prod:         # (min of a ragged value: vectorize only)
        check_vmap(f, (v, k))


def test_slice_of_a_per_example_vector_on_jax():
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp
    v = np.arange(15.0).reshape(3, 5) - 4
    k = np.array([-1, 2, 9])
    with jax.enable_x64(True):
        got = vmap(row_sum)(jnp.asarray(v), jnp.asarray(k))
        np.testing.assert_array_equal(np.asarray(got), [row_sum(v[i], k[i]) for i in range(3)])
        # (`try` with handlers and `finally` on JAX: lowered as on NumPy, the handler's lanes
        # replayed through the loop where a check fires)
        for xs in (k * 1.0, np.array([2.0, 0.0, -4.0])):
            got = vmap(fin_except_else)(jnp.asarray(xs))
            np.testing.assert_array_equal(np.asarray(got), [fin_except_else(x) for x in xs])


def test_slice_with_a_per_example_bound_is_refused_on_torch():
    torch = pytest.importorskip("torch")
    with pytest.raises(VectorizeError, match="different length per example") as info:
        vmap(row_sum)(torch.ones(2, 3), torch.tensor([0, 1]))
    assert info.value.line == row_sum.__code__.co_firstlineno + 1


def sum_of_positives(v):
    return sum(v[v > 0])


def test_builtin_sum_of_an_empty_first_selection_is_an_int_as_numpy_vectorize():
    # the first example sums no element: Python's int 0, so numpy.vectorize's output is
    # int64 and the others' float sums are truncated into it (was float64 [0.0, 3.5])
    v = np.array([[-1.0, -2.0], [1.0, 2.5]])
    check_vectorize(sum_of_positives, (v,), signature="(n)->()")
    check_vectorize(sl_sum_builtin, (np.array([6, 2]),))
    check_vectorize(sl_sum_builtin, (np.array([2, 6]),))


def list_slice_method(k):
    return FLOATS[k:].sum()


def list_slice_times(k, x):
    return np.sum(FLOATS[:k] * x)


@pytest.mark.parametrize("f", [list_slice_method, list_slice_times])
def test_list_slice_is_reduced_only_as_the_reductions_argument(f):
    # (Python: a list has no `.sum()` (AttributeError), `list * float` raises TypeError;
    # was computed as on an array)
    with pytest.raises(VectorizeError, match="slice of a list or tuple") as info:
        vectorize(f, fallback="error")(*[np.array([1, 2])] * (f.__code__.co_argcount))
    assert info.value.line == f.__code__.co_firstlineno + 1


def slice_escapes(k):
    return V[:k] * 2


def test_slice_that_is_not_reduced_is_refused_where_written():
    with pytest.raises(VectorizeError, match="slice with per-example bounds") as info:
        vectorize(slice_escapes, fallback="error")(np.array([1, 2]))
    assert info.value.line == slice_escapes.__code__.co_firstlineno + 1


# ------------------------------------------- tables chosen by a conditional expression


def table_by_ifexp(x, k):
    t = (1, 2, 3) if x > 0 else (4, 5)
    return t[k]


def table_nested_ifexp(x, k):
    t = [1.5, 2.0] if x > 0 else [4.0] if x < -1 else [7.0, 8.0, 9.0]
    return t[k] + len(t)


def table_iterated(x):
    t = (1.0, 2.0, 3.0) if x > 0 else (4.0, 5.0)
    s = 0.0
    for v in t:
        s += v * x
    return s


def table_tuple_or_list(x, k):
    t = [2.5, 0.5] if x > 0 else (-4.5, 2.5)
    return t[k] + len(t)


TABLES = [table_by_ifexp, table_nested_ifexp, table_tuple_or_list]


@pytest.mark.parametrize("f", TABLES)
def test_table_by_conditional_expression(f):
    x = np.array([1.0, -0.5, -3.0, 2.0, math.nan, -0.0, math.inf, -math.inf])
    k = np.array([0, 1, 0, -1, 1, -2, 2, 0])
    check_vectorize(f, (x, k))
    check_vmap(f, (x, k))
    # Python's IndexError where an example's index is out of its table
    check_vectorize(f, (np.array([1.0, -0.5]), np.array([0, 2])))


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(TABLES), SIZES, st.data())
def test_table_by_conditional_expression_random(f, n, data):
    x, k = data.draw(floats(n)), data.draw(ints(n, -3, 2))
    check_vectorize(f, (x, k))
    check_vmap(f, (x, k))


@settings(max_examples=10, deadline=None)
@given(SIZES.flatmap(floats))
def test_iterated_table_by_conditional_expression(x):
    check_vectorize(table_iterated, (x,))
    check_vmap(table_iterated, (x,))
