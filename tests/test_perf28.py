"""The warm call's argument checks (`vectorize.api._match_lines`, `_warm_call`): an array
argument of one dimension is checked by its ``ndim`` and length, not by its ``shape`` tuple.
Differential: an object that called once with arrays of one shape and then sees arrays of the
same length but another number of dimensions (or the other way round) must give what a fresh
object gives (which plans from scratch), values, dtype and shape."""

from __future__ import annotations

import numpy as np
import pytest

from vectorize import vectorize


def piece(x, y):
    if x > y:
        r = x - y
    else:
        r = y * 2
    return r


def scaled(x, y):
    return x * y + 1


def _outcome(vf, *args):
    try:
        with np.errstate(all="ignore"):
            return vf(*args)
    except Exception as exc:        # noqa: BLE001 -- compared by type
        return type(exc)


def _same(got, expected):
    if isinstance(expected, type):
        assert got is expected, (got, expected)
        return
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.shape == expected.shape and got.dtype == expected.dtype, (got, expected)
    np.testing.assert_array_equal(got, expected)


ROW = np.arange(5.0) - 2
SAME_LENGTH = [
    # a first call of one dimension, then arrays of its length (or shape) in other dimensions
    (ROW, ROW.reshape(5, 1)),
    (ROW, np.arange(15.0).reshape(5, 3)),
    (ROW, ROW.reshape(1, 5)),
    (ROW, np.arange(25.0).reshape(5, 5)),
    (ROW.reshape(5, 1), ROW),
    (np.arange(6.0).reshape(2, 3), np.arange(2.0)),
    (np.arange(6.0).reshape(2, 3), np.arange(6.0)),
    (np.arange(1.0), np.asarray(3.0)),
    (np.arange(1.0), np.arange(1.0).reshape(1, 1)),
]


@pytest.mark.parametrize("f", [piece, scaled])
@pytest.mark.parametrize("first, second", SAME_LENGTH)
def test_warm_call_tells_arrays_of_one_length_apart_by_their_dimensions(f, first, second):
    warm = vectorize(f, fallback="error")
    for x in (first, first, second, second, first):
        for y in (1.5, np.array([0.5])):
            expected = _outcome(vectorize(f, fallback="error"), x, y)
            _same(_outcome(warm, x, y), expected)
            _same(_outcome(warm, x, y), expected)       # (this one certainly warm)


def test_the_warm_call_of_one_dimension_is_taken():
    """(So that the test above compares the unrolled call with the planned path.)"""
    vf = vectorize(piece, fallback="error")
    vf(ROW, 1.5)
    assert vf._last is not None and vf._last.warm is not None
    assert vf._last.match((ROW, 1.5)) is not None
    assert vf._last.match((ROW.reshape(5, 1), 1.5)) is None
    assert vf._last.match((np.arange(15.0).reshape(5, 3), 1.5)) is None


# ----------------------------------------------- threads back off when they lose (issue 21)
# `chunks._watch`: where threads were decided, the calls are compared with what the calling
# thread alone took when the ways were timed; calls that take longer make the next call time
# the ways again, even where they are less than `chunks.DRIFT` times the decided time. On a
# clock moved only by the generated function: a whole call or chunks on the calling thread
# cost one "second" per batch, chunks of a threaded call (told apart by their length,
# `chunks.lanes_per_chunk`) ``threaded[0]`` per batch.
class _Clock:
    def __init__(self):
        self.now = 0.0

    def perf_counter(self):
        return self.now


def no_branches(x):
    return x * 2.0 + 1.0


def _threads_priced(monkeypatch, threaded):
    from vectorize import chunks
    clock = _Clock()
    monkeypatch.setattr(chunks, "time", clock)
    monkeypatch.setattr(chunks, "EXPLORE_SHARE", 0.0)
    monkeypatch.setattr(chunks, "spare_threads", lambda: 2)
    monkeypatch.setenv("VECTORIZE_NUM_THREADS", "2")
    x = np.linspace(-5.0, 5.0, 20 * chunks.AUTO_MIN_LANES)
    threaded_lanes = chunks.lanes_per_chunk("auto", x.size, [x], [True], 2)
    assert threaded_lanes != chunks.lanes_per_chunk("auto", x.size, [x], [True], 1)
    vf = vectorize(no_branches, fallback="error")
    vf(x[:10])
    (entry,) = vf._specs._entries.values()
    entry.tuning.build_compacted = None
    function = entry.spec.function

    def priced(v):
        cost = threaded[0] if v.size == threaded_lanes else 1.0
        clock.now += cost * v.size / x.size
        return function(v)
    entry.spec.function = priced
    return vf, entry.tuning, x, x.size.bit_length()


def test_threads_that_lose_to_the_calling_thread_back_off(monkeypatch):
    from vectorize import chunks
    threaded = [0.9]                # threads win, by a little
    vf, tuning, x, bucket = _threads_priced(monkeypatch, threaded)
    expected = x * 2.0 + 1.0
    for _ in range(3 * chunks.TRIALS + 2):
        np.testing.assert_array_equal(vf(x), expected)
    assert tuning.chunking[bucket] == 2
    for _ in range(2 * chunks.RECENT):          # as timed: they stay
        np.testing.assert_array_equal(vf(x), expected)
        assert tuning.chunking[bucket] == 2
    # a load that slows threads to 1.2 (less than DRIFT times 0.9, more than LOSE times one
    # thread): they lose to one thread
    threaded[0] = 1.2
    assert chunks.LOSE < threaded[0] < chunks.DRIFT * 0.9
    for _ in range(chunks.RECENT + 3 * chunks.TRIALS + 2):
        np.testing.assert_array_equal(vf(x), expected)
    assert tuning.chunking[bucket] in (0, 1)
    for _ in range(4 * chunks.RECENT):          # and stay off while they lose
        np.testing.assert_array_equal(vf(x), expected)
    assert tuning.chunking[bucket] in (0, 1)


def test_threads_that_win_by_more_are_not_timed_again(monkeypatch):
    """(Each call of a class decided on threads within `DRIFT` of its time and faster than one
    thread: nothing is timed again.)"""
    from vectorize import chunks
    threaded = [0.5]
    vf, tuning, x, bucket = _threads_priced(monkeypatch, threaded)
    for _ in range(3 * chunks.TRIALS + 2):
        vf(x)
    assert tuning.chunking[bucket] == 2
    threaded[0] = 0.7                           # slower, still faster than one thread
    for _ in range(4 * chunks.RECENT):
        vf(x)
        assert tuning.chunking[bucket] == 2


def test_threads_within_the_margin_of_one_thread_are_not_timed_again(monkeypatch):
    """(Calls a little slower than one thread alone, less than `chunks.LOSE` times: threads
    that vary from call to call are not timed again every few calls.)"""
    from vectorize import chunks
    threaded = [0.9]
    vf, tuning, x, bucket = _threads_priced(monkeypatch, threaded)
    for _ in range(3 * chunks.TRIALS + 2):
        vf(x)
    assert tuning.chunking[bucket] == 2
    threaded[0] = 1.05
    assert 1.0 < threaded[0] < chunks.LOSE
    for _ in range(4 * chunks.RECENT):
        vf(x)
        assert tuning.chunking[bucket] == 2


# ----------------------- `merge.maximum` / `minimum`: a number's row kept by the number object
# `merge._against_rows` keeps, per number object, the row of its last call of at most `ROW`
# lanes (`merge._seen`); a later call with the same object takes it when dtype and length
# are the same. Every call below against the ufunc itself, bit for bit, with one number
# object used across dtypes, lengths, shapes and layouts.
def _bits_equal(got, expected):
    assert type(got) is np.ndarray and got.dtype == expected.dtype, (got, expected)
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got.view(np.uint8), expected.view(np.uint8))


@pytest.mark.parametrize("name", ["maximum", "minimum"])
def test_kept_rows_give_what_the_ufunc_gives(name):
    from vectorize.backends.numpy import merge
    ufunc = getattr(np, name)
    rng = np.random.default_rng(28)
    n = merge.MIN_ROW_LANES + 5
    zero, negative_zero, two, big = 0.0, -0.0, 2, 2 ** 60
    base = rng.standard_normal(2 * n)
    base[::7] = np.nan
    base[1::11] = -0.0
    arrays = [base[:n].copy(), base[:n].astype(np.float32), base[:n].copy().reshape(1, n),
              base[:2 * n:2], base[:n].copy(), base[:n + 1].copy(), base[:n].astype(">f8"),
              base[:n].astype(np.float32), base[:n].copy()]
    for c in (zero, negative_zero, two, big, zero, negative_zero):
        for a in arrays:
            for in_place in (False, True, False):
                expected = ufunc(c, a)
                if in_place:
                    target, expected = a.copy(), a.copy()
                    ufunc(c, expected, out=expected)
                    got = getattr(merge, name)(c, target, out=target)
                    assert got is target
                else:
                    got = getattr(merge, name)(c, a)
                    assert not np.shares_memory(got, a)
                _bits_equal(got, expected)
    assert merge._seen       # (so that the calls above took the kept rows too)
