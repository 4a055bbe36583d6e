"""The warm-call fast path of `vectorize` (`vectorize.api._FastPath`): a call whose arguments
have the types, dtypes and shapes of the previous planned call skips binding and the cache
lookup. It must give exactly what a fresh `vectorize` object (which plans from scratch) gives,
whatever sequence of argument patterns one object sees, and must notice a changed global.

The reference for each call is a NEW vectorize object of the same function (no fast path, no
earlier state); that object is itself checked against the per-example loop elsewhere
(tests/test_corpus.py), and here against it for the first call of each pattern.
"""

from __future__ import annotations

import math

import hypothesis.strategies as st
import numpy as np
from differential import assert_matches_loop
from hypothesis import HealthCheck, given, settings

from vectorize import vectorize


def piece(x, y):
    if x > y:
        r = x - y
    else:
        r = y * 2
    return r


def identity(x, y):
    return x


def ratio(x, y):
    return math.copysign(x, y) / 4


def truncate(x, y):
    return int(x) + y            # int(x) is `x` for integer x, a cast for float x


FUNCTIONS = [piece, identity, ratio, truncate]

SHAPES = [(), (1,), (3,), (2, 3), (0,), (4,)]
DTYPES = [np.float64, np.float32, np.int64, np.int32, np.bool_]


@st.composite
def argument(draw):
    kind = draw(st.sampled_from(["array", "array", "float", "int", "bool", "np scalar"]))
    if kind == "float":
        return draw(st.sampled_from([1.5, -0.0, math.nan, math.inf, -2.0]))
    if kind == "int":
        return draw(st.sampled_from([0, 3, -7, 2**62]))
    if kind == "bool":
        return draw(st.booleans())
    dtype = draw(st.sampled_from(DTYPES))
    if kind == "np scalar":
        return dtype(draw(st.sampled_from([0, 1, 2])))
    shape = draw(st.sampled_from(SHAPES))
    values = np.arange(math.prod(shape), dtype=np.float64).reshape(shape) - 1.5
    return values.astype(dtype)


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype, (a.dtype, a.shape, b.dtype, b.shape)
    assert np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")


def _outcome(vf, *args):
    """The result of ``vf(*args)``, or the type of the exception it raised."""
    try:
        return vf(*args)
    except Exception as exc:       # the same error must come from both objects
        return type(exc)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(FUNCTIONS),
       st.lists(st.tuples(argument(), argument()), min_size=2, max_size=6))
def test_any_sequence_of_calls_matches_fresh_objects(f, calls):
    _check_sequence(f, calls)


def _check_sequence(f, calls):
    warm = vectorize(f, fallback="error")
    for x, y in calls:
        expected = _outcome(vectorize(f, fallback="error"), x, y)
        for _ in range(2):              # the second call is certainly on the fast path
            got = _outcome(warm, x, y)
            if isinstance(expected, type):
                assert got is expected
            else:
                _same(got, expected)


def test_every_dtype_after_every_other_on_one_shape():
    """The patterns most likely to be confused: same shapes, only a dtype differs (int(x) is
    `x` for an int64 x and a cast for a float one), and scalars of different types."""
    x = np.array([-2.5, 0.5, 3.0])
    for f in FUNCTIONS:
        for first in DTYPES:                # every ordered pair, on a fresh object each
            _check_sequence(f, [(x.astype(first), 1.0)] + [(x.astype(d), 1.0)
                                                            for d in DTYPES if d != first])
        _check_sequence(f, [(x, s) for s in (1.5, np.float32(1.5), True, np.int64(2), 2.0,
                                             np.bool_(False), 1.5 + 0j)])
        _check_sequence(f, [(x, 1.0), (x.reshape(3, 1), 1.0), (x[:1], 1.0), (x[0], 1.0),
                            (x[::2], 1.0), (np.asfortranarray(np.ones((2, 3))), 1.0)])
        _check_sequence(f, [(x, np.ones((2, 3))), (x, np.ones((2, 3))), (x, x[:, None]),
                            (x[:, None], x), (x[:1], x), (x, x[:1])])


def test_first_and_fast_calls_match_the_loop():
    x = np.array([-1.0, 0.0, 2.5, math.nan, -0.0])
    warm = vectorize(piece, fallback="error")
    for _ in range(3):
        assert_matches_loop(piece, x, 0.5)
        _same(warm(x, 0.5), vectorize(piece, fallback="error")(x, 0.5))
    assert warm._last is not None


def test_identity_result_is_never_the_argument():
    x = np.arange(4.0)
    f = vectorize(identity)
    for _ in range(3):
        out = f(x, 1.0)
        assert out is not x and not np.shares_memory(out, x)
        np.testing.assert_array_equal(out, x)


SCALE = 2.0


def scaled(x):
    return x * SCALE


def test_a_changed_global_is_seen_on_the_fast_path():
    global SCALE
    f = vectorize(scaled)
    x = np.arange(3.0)
    try:
        f(x)
        np.testing.assert_array_equal(f(x), x * 2.0)
        SCALE = 5.0
        np.testing.assert_array_equal(f(x), x * 5.0)
    finally:
        SCALE = 2.0


def test_keywords_excluded_and_subclasses_take_the_planned_path():
    x = np.arange(3.0)
    f = vectorize(piece)
    f(x, 1.0)
    _same(f(x, y=1.0), vectorize(piece)(x, y=1.0))
    _same(f(np.ma.masked_array(x), 1.0), vectorize(piece)(np.ma.masked_array(x), 1.0))
    g = vectorize(piece, excluded={1})
    _same(g(x, 1.0), vectorize(piece, excluded={1})(x, 1.0))
    _same(g(x, 1.0), vectorize(piece, excluded={1})(x, 1.0))


def test_python_ints_of_any_size_are_planned_each_time():
    f = vectorize(piece)
    x = np.arange(3)
    small = f(x, 1)
    huge = f(x, 2**70)           # an object-dtype scalar: numpy's own loop
    _same(small, vectorize(piece)(x, 1))
    _same(huge, vectorize(piece)(x, 2**70))


# ------------------------------------------------------------------------- vmap's fast path
def affine_row(x, w, c):
    return x * w + c


VMAP_PATTERNS = [
    # (x, w, c, in_axes): float64 rows, other dtypes and ranks, another axis, shared
    # arrays of another shape, a complex shared number
    lambda n: (np.linspace(-1, 1, 3 * n).reshape(n, 3), np.arange(3.0), 0.5, (0, None, None)),
    lambda n: (np.arange(3 * n, dtype=np.int32).reshape(n, 3), np.arange(3.0), 2.0,
               (0, None, None)),
    lambda n: (np.linspace(-1, 1, 3 * n).reshape(3, n), np.arange(3.0), 0.5, (1, None, None)),
    lambda n: (np.linspace(-1, 1, n), np.arange(3.0)[:, None] * np.ones(n), 1.5,
               (0, 1, None)),
    lambda n: (np.linspace(-1, 1, 3 * n).reshape(n, 3), np.arange(3.0), 1 + 2j,
               (0, None, None)),
    lambda n: (np.linspace(-1, 1, n), np.float32(2.0), 0.5, (0, None, None)),
]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, len(VMAP_PATTERNS) - 1), st.integers(0, 6)),
                min_size=1, max_size=8))
def test_vmap_fast_path_matches_fresh_object(calls):
    """One vmap object called with a sequence of argument patterns gives what a fresh object
    gives for each (the loop reference for each fresh object is tests/test_vmap.py's)."""
    from vectorize import vmap
    warm = {}
    for pattern, n in calls:
        x, w, c, axes = VMAP_PATTERNS[pattern](n)
        vm = warm.setdefault(axes, vmap(affine_row, in_axes=axes))
        got = vm(x, w, c)
        expected = vmap(affine_row, in_axes=axes)(x, w, c)
        assert got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_array_equal(got, expected)


def test_vmap_fast_path_keeps_errors():
    """Arguments unlike the last call's leave the fast path: sizes that disagree raise as on
    the first call."""
    import pytest

    from vectorize import vmap
    vm = vmap(affine_row, in_axes=(0, 0, None))
    vm(np.ones(4), np.ones(4), 1.0)
    assert vm._fast is not None
    with pytest.raises(ValueError, match="inconsistent sizes|size"):
        vm(np.ones(4), np.ones(5), 1.0)
    np.testing.assert_array_equal(vm(np.ones(2), np.full(2, 3.0), 1.0), [4.0, 4.0])


# ----------------------------------------- the warm path against numpy.vectorize (issue 21)
# A warm call of a batch too small for chunks is one call of the generated function, its
# arguments checked by a matcher compiled per layout (`api._matcher`), the guards unrolled;
# a larger one goes through `chunks.run`. Each must give what numpy.vectorize gives, whatever
# the sequence of calls one object sees.
def inverse(x, y):
    return y / x                 # ZeroDivisionError in numpy.vectorize's examples where x == 0


def clipped(x, y):
    if x > 2:
        return 2.0 * y
    return abs(x) * 1.0 + y     # (float on both paths: numpy.vectorize's dtype is the first
                                # example's)


WARM_FUNCTIONS = [piece, identity, ratio, inverse, clipped]
SIZES = [0, 1, 5, 10_000]


@st.composite
def batch(draw):
    """A batched argument of any size, dtype and layout numpy.vectorize takes."""
    n = draw(st.sampled_from(SIZES))
    dtype = draw(st.sampled_from([np.float64, np.int64, np.float32, np.bool_]))
    values = (np.arange(2 * n) % 7 - 2.5).astype(dtype)
    layout = draw(st.sampled_from(["contiguous", "strided", "2-d", "0-d", "list"]))
    if layout == "strided":
        return values[::2]              # non-contiguous
    if layout == "2-d" and n % 5 == 0 and n:
        return values[:n].reshape(5, -1)
    if layout == "0-d":
        return np.asarray(-1.5, dtype)
    if layout == "list":
        return values[:min(n, 5)].tolist()
    return values[:n]


OTHERS = st.sampled_from([1.5, -0.0, 3, True, np.float64(2.0), np.int64(-1), math.nan])


def _numpy_vectorize(f, x, y):
    """numpy.vectorize's outcome (its result, or its exception's type); None for an empty
    batch, which it refuses without otypes."""
    if np.size(x) == 0:
        return None
    try:
        with np.errstate(all="ignore"):
            return np.vectorize(f)(x, y)
    except Exception as exc:        # noqa: BLE001 -- the reference's outcome
        return type(exc)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(WARM_FUNCTIONS),
       st.lists(st.tuples(batch(), OTHERS, st.booleans()), min_size=1, max_size=5))
def test_warm_calls_match_numpy_vectorize(f, calls):
    """Every call of one object, cold or warm, against numpy.vectorize (values; its
    exception) and a fresh object (dtype too: numpy.vectorize's is the first example's
    result type where the branches' types differ, `piece`'s int ``y * 2``)."""
    warm = vectorize(f, fallback="error")
    for x, y, keyword in calls:
        theirs = _numpy_vectorize(f, x, y)
        with np.errstate(all="ignore"):
            fresh = _outcome(vectorize(f, fallback="error"), x, y)
        if isinstance(theirs, type):
            assert fresh is theirs, (fresh, theirs)
        elif theirs is not None:
            assert np.array_equal(np.asarray(fresh, dtype=np.result_type(theirs)), theirs,
                                  equal_nan=True)
        call = (lambda a, b: warm(a, y=b)) if keyword else warm
        for _ in range(2):              # the second call is certainly warm where it can be
            with np.errstate(all="ignore"):
                got = _outcome(call, x, y)
            if isinstance(fresh, type):
                assert got is fresh, (got, fresh)
            else:
                _same(got, fresh)
                if isinstance(x, np.ndarray) and np.size(got):
                    assert not np.shares_memory(got, x)


def test_the_direct_call_replays_a_raising_batch():
    """A warm call whose generated code raises (an example divides by zero) is numpy's
    loop, which raises the first failing example's exception: the direct call catches it as
    the planned path does."""
    f = vectorize(inverse)
    x = np.array([1.0, 2.0, 4.0])
    f(x, 1.0)
    assert f._last is not None and f._last.run is not None
    _same(f(x, 2.0), [2.0, 1.0, 0.5])
    x[1] = 0.0                          # the same array, mutated: still warm, now raising
    with np.errstate(all="ignore"):
        try:
            f(x, 2.0)
        except ZeroDivisionError:
            pass
        else:
            raise AssertionError("numpy.vectorize raises ZeroDivisionError here")
    x[1] = 8.0
    _same(f(x, 2.0), [2.0, 0.25, 0.5])


def test_shared_arrays_mutated_between_calls_are_read_again():
    f = vectorize(clipped)
    x, y = np.linspace(-3, 3, 7), np.zeros(7)
    for k in range(4):
        x += 0.5
        y[k] = k
        _same(f(x, y), np.vectorize(clipped)(x, y))


def call_helper(x):
    return helper(x) + OFFSET


def helper(x):
    return 2.0 * x


OFFSET = 0.0


def test_rebound_helpers_and_globals_are_noticed_on_the_warm_path():
    """The guards (what the transform read: the helper, the globals) are checked on every
    warm call, small batches (the direct call) and large ones (`chunks.run`) alike."""
    global helper, OFFSET
    before = helper
    try:
        for n in (5, 40_000):
            f = vectorize(call_helper)
            x = np.linspace(-1, 1, n)
            for _ in range(2):
                _same(f(x), 2.0 * x)
            helper = lambda x: x - 1.0          # noqa: E731 -- rebound between calls
            _same(f(x), x - 1.0)
            OFFSET = 3.0
            _same(f(x), x + 2.0)
            helper, OFFSET = before, 0.0
            _same(f(x), 2.0 * x)
    finally:
        helper, OFFSET = before, 0.0


def test_batches_either_side_of_the_chunk_threshold_on_one_object():
    """One object sees batches too small for chunks (the direct call) and large ones
    (`chunks.run`, timing its ways) in turn; a changed ``chunk_size`` is seen too."""
    from vectorize import chunks
    f = vectorize(piece)
    large = 4 * chunks.AUTO_MIN_LANES
    for n in (100, large, 100, large, 2 * chunks.AUTO_MIN_LANES - 1):
        x = np.linspace(-5, 5, n)
        for _ in range(3):
            _same(f(x, 0.5), vectorize(piece, chunk_size=None)(x, 0.5))
    f.chunk_size = 10
    x = np.linspace(-5, 5, 100)
    _same(f(x, 0.5), vectorize(piece, chunk_size=None)(x, 0.5))


def checked_row(x, c):
    if x[0] * c < 0:
        raise ValueError("a negative product")
    return x[0] * c + x[1]


def test_vmap_direct_call_keeps_the_loop_for_raising_examples():
    """vmap's warm direct call (a batch too small for chunks): where the batched code raises,
    the per-example loop decides, as on the planned path (`_run_or_loop`)."""
    import pytest

    from vectorize import vmap
    vm = vmap(checked_row, in_axes=(0, None))
    rows = np.abs(np.linspace(-2, 2, 10).reshape(5, 2))
    for _ in range(2):
        np.testing.assert_array_equal(vm(rows, 2.0), [checked_row(r, 2.0) for r in rows])
    assert vm._fast is not None and vm._fast.direct is not None
    with pytest.raises(ValueError, match="a negative product"):
        vm(rows[1:], -1.0)
    bad = rows.copy()
    bad[3, 0] = -1.0
    with pytest.raises(ValueError, match="a negative product"):
        vm(bad, 2.0)
    for n in (0, 1, 10_000):
        big = np.abs(np.linspace(-2, 2, 2 * n).reshape(n, 2))
        for _ in range(2):
            got = vm(big, 2.0)
            np.testing.assert_array_equal(got, np.array([checked_row(r, 2.0) for r in big]))


def test_vmap_warm_path_notices_rebound_helpers_and_globals():
    """vmap's matcher (`vmap._matcher`) checks the guards on every warm call too."""
    global helper, OFFSET
    from vectorize import vmap
    before = helper
    try:
        vm = vmap(call_helper, in_axes=1)
        x = np.linspace(-1, 1, 12).reshape(3, 4)       # mapped along axis 1
        for _ in range(2):
            _same(vm(x), (2.0 * x).T)
        helper = lambda x: x - 1.0              # noqa: E731 -- rebound between calls
        _same(vm(x), (x - 1.0).T)
        OFFSET = 3.0
        _same(vm(x), (x + 2.0).T)
    finally:
        helper, OFFSET = before, 0.0


# ------------------------------- the unrolled warm call (`api._warm_call`, `vmap._warm_call`)
# A warm call of one batched number per example that runs as one call of the generated
# function is one compiled function: the argument checks, the call, `_own` and the reshape.
# Differential: every call below is made on an object whose warm call is on, and on one whose
# warm call is switched off before each call (the path the fast path took before it), and
# both against a fresh object (the planned path); values, dtype, exceptions and aliasing.
def _general(vf):
    """``vf`` with its unrolled warm call switched off before each call."""
    def call(*args):
        last = vf._last
        if last is not None:
            last.warm = None
        return vf(*args)
    return call


def negate_first(x, y):
    return -x if y > 0 else x           # `x` itself on the lanes of the else branch


def real_part(x, y):
    return x.real                       # of a complex batch: a view of it


LEAVING = [
    # (first call, second call): the second's arguments must leave the warm call (or be
    # like the first's), and give what the planned path gives
    ((np.arange(5.0), 1.5), (np.arange(5.0).astype(np.float32), 1.5)),     # another dtype
    ((np.arange(5.0), 1.5), (np.arange(6.0), 1.5)),                         # another shape
    ((np.arange(5.0), 1.5), (np.arange(10.0)[::2], 1.5)),                   # not contiguous
    ((np.arange(5.0), 1.5), (np.asarray(2.0), 1.5)),                        # 0-d
    ((np.arange(5.0), 1.5), (np.arange(0.0), 1.5)),                         # N = 0
    ((np.arange(5.0), 1.5), (np.ma.masked_array(np.arange(5.0), [0, 1, 0, 0, 1]), 1.5)),
    ((np.arange(5.0), 1.5), ([0.0, 1.0, 2.0, 3.0, 4.0], 1.5)),              # a list
    ((np.arange(5.0), 1.5), (np.arange(5.0), 2)),                           # an int scalar
    ((np.arange(5.0), 1.5), (np.arange(5.0), np.float32(1.5))),             # a NumPy scalar
    ((np.arange(6.0).reshape(2, 3), 1.5), (np.arange(6.0).reshape(3, 2), 1.5)),   # reshaped
    ((np.arange(6.0).reshape(2, 3), 1.5), (np.arange(6.0).reshape(2, 3), 1.5)),
    ((np.arange(5, dtype=np.int16), 1.5), (np.arange(5, dtype=np.int16), 1.5)),   # widened
    ((np.arange(5.0), 1.5), (np.arange(5.0), np.ones(5))),                  # now batched
]


def test_the_warm_call_is_taken_where_it_applies():
    """(So that the tests below compare the unrolled call, not two planned paths.)"""
    for f in (piece, identity, ratio, negate_first):
        vf = vectorize(f, fallback="error")
        vf(np.arange(5.0), 1.5)
        assert vf._last is not None and vf._last.warm is not None, f.__name__
    big = vectorize(piece)
    big(np.zeros(100_000), 1.5)          # chunks may run: `chunks.run`, not the warm call
    assert big._last.warm is None


def test_arguments_that_must_leave_the_warm_call():
    for f in (piece, identity, ratio, negate_first, truncate):
        for first, second in LEAVING:
            warm = vectorize(f, fallback="error")
            general = vectorize(f, fallback="error")
            for args in (first, first, second, second, first):
                fresh = _outcome(vectorize(f, fallback="error"), *args)
                got = _outcome(warm, *args)
                other = _outcome(_general(general), *args)
                for result in (got, other):
                    if isinstance(fresh, type):
                        assert result is fresh, (f.__name__, args, result, fresh)
                    else:
                        _same(result, fresh)
                        assert type(result) is type(fresh), (type(result), type(fresh))
                        if isinstance(args[0], np.ndarray) and np.size(result):
                            assert not np.shares_memory(result, args[0]), (f.__name__, args)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(WARM_FUNCTIONS + [negate_first]),
       st.lists(st.tuples(batch(), OTHERS), min_size=1, max_size=5))
def test_warm_call_against_the_general_path(f, calls):
    warm, general = vectorize(f, fallback="error"), vectorize(f, fallback="error")
    for x, y in calls:
        for _ in range(2):
            with np.errstate(all="ignore"):
                got = _outcome(warm, x, y)
                expected = _outcome(_general(general), x, y)
            if isinstance(expected, type):
                assert got is expected, (got, expected)
            else:
                _same(got, expected)


def test_the_warm_call_never_hands_back_an_argument_or_a_view_of_one():
    """Write aliasing: the result is the caller's to write into; writing into it must not
    change the arguments, nor the next call's result."""
    for f in (identity, negate_first, real_part):
        vf = vectorize(f, fallback="error")
        for x in (np.arange(5.0), np.arange(6.0).reshape(2, 3),
                  np.arange(5, dtype=np.int16), np.arange(5.0) - 1j, np.arange(5.0)):
            kept = x.copy()
            for _ in range(3):
                out = vf(x, -1.0)
                assert out is not x and not np.shares_memory(out, x)
                out[...] = 99
                np.testing.assert_array_equal(x, kept)
            _same(vf(x, -1.0), vectorize(f)(x, -1.0))


def test_the_warm_call_raises_and_replays_as_the_general_path():
    """What the generated function raises on the warm call: numpy.vectorize's loop decides
    (ZeroDivisionError of the first failing example), then the next call is warm again."""
    for vf in (vectorize(inverse), _general(vectorize(inverse))):
        x = np.array([1.0, 2.0, 4.0])
        _same(vf(x, 2.0), [2.0, 1.0, 0.5])
        _same(vf(x, 2.0), [2.0, 1.0, 0.5])
        with np.errstate(all="ignore"):
            try:
                vf(np.array([1.0, 0.0, 4.0]), 2.0)
            except ZeroDivisionError:
                pass
            else:
                raise AssertionError("numpy.vectorize raises ZeroDivisionError here")
        _same(vf(x, 4.0), [4.0, 2.0, 1.0])


def test_a_changed_otypes_or_chunk_size_leaves_the_warm_call():
    vf = vectorize(piece)
    x = np.linspace(-3, 3, 50)
    vf(x, 0.5)
    vf.otypes = "f"
    _same(vf(x, 0.5), vectorize(piece, otypes="f")(x, 0.5))
    vf.otypes = None
    vf(x, 0.5)
    vf.chunk_size = 10
    _same(vf(x, 0.5), vectorize(piece, chunk_size=None)(x, 0.5))


def relu_row(x, w):
    return max(x.dot(w), 0.0)


def first_of(x, w):
    return x                            # the mapped argument itself, per example


def gated(x, w):
    if w[0] > 0:                        # not per example: an unbatched value on one path
        return x * 2.0
    return 1.0


def _vmap_general(vm):
    def call(*args):
        if vm._fast is not None:
            vm._fast.warm = None
        return vm(*args)
    return call


def test_vmap_warm_call_against_the_general_path():
    from vectorize import vmap
    rng = np.random.default_rng(3)
    x = rng.standard_normal((7, 4))
    x[2] = 0.0
    x[3] = -0.0
    w = rng.standard_normal(4)
    cases = [(relu_row, (0, None), [(x, w), (x, w), (x[:0], w), (x[:1], w), (x.T.copy(), w),
                                    (x.astype(np.float32), w), (x[::2], w), (x, w[:3] * 0),
                                    (x[:, :3], w[:3])]),
             (gated, (0, None), [(x[:, 0], w), (x[:, 0], w), (x[:, 0], -w), (x[:, 0], -w),
                                 (x[:3, 0], w)]),
             (first_of, (0, None), [(x, w), (x, w), (x[1:], w)])]
    for f, axes, calls in cases:
        warm, general = vmap(f, in_axes=axes), vmap(f, in_axes=axes)
        for args in calls:
            fresh = _outcome(vmap(f, in_axes=axes), *args)
            got = _outcome(warm, *args)
            other = _outcome(_vmap_general(general), *args)
            for result in (got, other):
                if isinstance(fresh, type):
                    assert result is fresh, (f.__name__, result, fresh)
                    continue
                _same(result, fresh)
                assert np.array_equal(np.signbit(result), np.signbit(fresh))
                assert (result is args[0]) == (fresh is args[0])
                assert np.shares_memory(result, args[0]) == np.shares_memory(fresh, args[0])
        assert f is first_of or warm._fast.warm is not None, f.__name__


def test_vmap_warm_call_leaves_for_large_batches_and_a_changed_chunk_size():
    from vectorize import chunks, vmap
    vm = vmap(relu_row, in_axes=(0, None))
    w = np.ones(3)
    for n in (10, 2 * chunks.AUTO_MIN_LANES, 10, 2 * chunks.AUTO_MIN_LANES - 1):
        x = np.linspace(-1, 1, 3 * n).reshape(n, 3)
        for _ in range(2):
            _same(vm(x, w), np.maximum(0.0, x @ w))
    vm.chunk_size = None
    _same(vm(x, w), np.maximum(0.0, x @ w))
    assert vm._fast.warm is not None


def test_vmap_warm_call_raises_and_replays():
    """A raising batch on the warm call: the per-example loop decides, then warm again."""
    import pytest

    from vectorize import vmap
    vm = vmap(checked_row, in_axes=(0, None))
    rows = np.abs(np.linspace(-2, 2, 10).reshape(5, 2))
    vm(rows, 2.0)
    vm(rows, 2.0)
    assert vm._fast.warm is not None
    with pytest.raises(ValueError, match="a negative product"):
        vm(rows, -1.0)
    np.testing.assert_array_equal(vm(rows, 3.0), [checked_row(r, 3.0) for r in rows])


def two_rows(x, y, w):
    return max(x.dot(w) - y.dot(w), 0.0)


def test_warm_checks_of_dtype_objects_and_batch_lengths():
    """The warm checks compare an array's dtype object first and read the batch length with
    ``len`` (`vmap._match_lines`, `api._match_lines`): an array of the same char in another
    byte order, a mapped argument of another length along axis 0 or 1, and a scalar of
    another type give what a fresh object gives, on objects warmed on the native case."""
    from vectorize import vmap
    rng = np.random.default_rng(5)
    x, y, w = rng.standard_normal((6, 3)), rng.standard_normal((6, 3)), rng.standard_normal(3)
    calls = [(x, y, w), (x, y, w), (x.astype(">f8"), y, w), (x, y.astype(">f8"), w.astype(">f8")),
             (x[:5], y, w), (x, y[:4], w), (x[:0], y[:0], w), (x.astype(np.float32), y, w)]
    for axes, swap in (((0, 0, None), False), ((1, 0, None), True)):
        warm = vmap(two_rows, in_axes=axes)
        for args in calls:
            if swap:
                args = (args[0].T, *args[1:])
            fresh = _outcome(vmap(two_rows, in_axes=axes), *args)
            got = _outcome(warm, *args)
            if isinstance(fresh, type):
                assert got is fresh
            else:
                _same(got, fresh)
        warm(*calls[0] if not swap else (x.T, y, w))
        assert warm._fast.warm is not None      # (the checks above were the warm call's)
    f = vectorize(lambda t, b: t * b if t > 0 else -t)
    t = rng.standard_normal(9)
    for args in [(t, 2.0), (t, 2.0), (t.astype(">f8"), 2.0), (t, np.float32(2.0)), (t, 2),
                 (t[:4], 2.0), (t.astype(">f8")[:4], 2.0), (t, 2.0)]:
        _same(f(*args), vectorize(f.pyfunc)(*args))
    assert f._last.warm is not None
