"""Chunked execution (`vectorize.chunks`): running the generated code a few lanes at a time
must give exactly what one whole-batch call gives (which the other test files compare with the
per-example loop).

Every function of the three corpora (``if``s, loops, per-example arrays) runs with a tiny
``chunk_size`` (1 to 3 lanes, so the hypothesis batches of up to 9 lanes are split) and with
``chunk_size=None``; the results must be identical: same type, dtype, shape, values, NaNs and
signed zeros. The one exception is contractions of per-example arrays (`einsum` and matrix
products, which BLAS may sum in another order for another number of rows, as it may between
any two batch sizes): those match to the array corpus' tolerance. Plus the ``"auto"`` choice
at the batch sizes it starts chunking, the argument check, the safety net (chunks that
disagree on an output's dtype make one whole call), and the threads chunks run on (which
functions may, errors and floating-point settings carried across, a fork).
"""

from __future__ import annotations

import math
import os
import signal
import threading
import time
import warnings

import hypothesis.strategies as st
import loop_corpus as L
import numpy as np
import pytest
from array_corpus import CORPUS as ARRAY_CORPUS
from batch_sizes import explore_at_once
from corpus import CORPUS
from hypothesis import HealthCheck, given, settings
from test_array_corpus import assert_same, corpus_inputs
from test_corpus import call_args
from test_loops import CASES, case_inputs

from vectorize import chunks, vectorize, vmap
from vectorize.abstract import TupleValue, Value

SETTINGS = settings(max_examples=int(os.environ.get("VECTORIZE_CHUNK_EXAMPLES", "8")),
                    deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
CHUNKS = st.integers(1, 3)


@pytest.fixture(autouse=True, scope="module")
def threads():
    """Chunks run on 3 threads here whatever the machine has and whatever its load, so that
    every comparison below also checks the threaded runs (each chunk of a parallel-safe
    function on some thread), and `auto` tries every way at once (`explore_at_once`; the
    tests of the budget itself are below it)."""
    before = os.environ.get("VECTORIZE_NUM_THREADS")
    os.environ["VECTORIZE_NUM_THREADS"] = "3"
    with explore_at_once():
        yield
    if before is None:
        del os.environ["VECTORIZE_NUM_THREADS"]
    else:
        os.environ["VECTORIZE_NUM_THREADS"] = before


def outcome(f, args):
    """What a call gives: ("ok", result) or ("raised", exception type)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            try:
                return "ok", f(*args)
            except Exception as exc:  # noqa: BLE001 - compared, not swallowed
                return "raised", type(exc)


def assert_identical(got, expected):
    assert type(got) is type(expected), (type(got), type(expected))
    if isinstance(expected, tuple):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert_identical(g, e)
        return
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == expected.dtype and got.shape == expected.shape, (
        got.dtype, got.shape, expected.dtype, expected.shape)
    assert np.array_equal(got, expected, equal_nan=got.dtype.kind in "fc")
    if got.dtype.kind == "f":   # signed zeros (a NaN's sign bit means nothing)
        numbers = ~np.isnan(expected)
        assert np.array_equal(np.signbit(got[numbers]), np.signbit(expected[numbers]))


def assert_chunking_changes_nothing(vf, args, chunk_size, compare=assert_identical):
    """``vf`` (a vectorized callable) on ``args`` in chunks of ``chunk_size`` lanes gives what
    it gives in one call. Both calls use the same specialization: whether one can be made may
    depend on the shapes of the first call's arguments (see docs/semantics.md)."""
    vf.chunk_size = None
    whole = outcome(vf, args)
    vf.chunk_size = chunk_size
    chunked = outcome(vf, args)
    assert chunked[0] == whole[0], (chunked, whole)
    if whole[0] == "ok":
        compare(chunked[1], whole[1])
    else:
        assert chunked[1] is whole[1]


# ---------------------------------------------------------------- the three corpora
_MADE: dict = {}


def made(key, build):
    if key not in _MADE:
        _MADE[key] = build()
    return _MADE[key]


@pytest.mark.parametrize("func", list(CORPUS), ids=lambda f: f.__name__)
def test_if_corpus(func):
    @SETTINGS
    @given(call_args(CORPUS[func]), CHUNKS)
    def run(args, chunk_size):
        assert_chunking_changes_nothing(
            made(func, lambda: vectorize(func, fallback="error")), args, chunk_size)

    run()


def _loop_params():
    return [pytest.param(case, variant, id=f"{case.name}-{variant or 'one'}")
            for case in CASES if not case.open_bugs for variant in case.variants]


@pytest.mark.parametrize("case, variant", _loop_params())
def test_loop_corpus(case, variant):
    f = case.func(variant)

    def make():
        if case.mode == "vmap":
            return vmap(f, in_axes=(0,) * len(case.elements))
        n = len(case.elements)
        excluded = set(range(n, n + len(case.unbatched))) or None
        return vectorize(f, fallback="error", excluded=excluded)

    @SETTINGS
    @given(case_inputs(case), CHUNKS)
    def run(inputs, chunk_size):
        batched, unbatched = inputs
        assert_chunking_changes_nothing(made(f, make), (*batched, *unbatched), chunk_size)

    run()


def _array_params():
    return [pytest.param(f, in_axes, id=f"{f.__name__}-{in_axes}")
            for f, spec in ARRAY_CORPUS.items() for in_axes in spec.in_axes
            if in_axes not in spec.bug]


@pytest.mark.parametrize("f, in_axes", _array_params())
def test_array_corpus_vmap(f, in_axes):
    @SETTINGS
    @given(st.data(), CHUNKS, st.sampled_from([0, -1]))
    def run(data, chunk_size, out_axes):
        axes, args = data.draw(corpus_inputs(ARRAY_CORPUS[f], in_axes))
        vf = made((f, axes, out_axes), lambda: vmap(f, in_axes=axes, out_axes=out_axes,
                                                     fallback="error"))
        assert_chunking_changes_nothing(vf, args, chunk_size, compare=assert_same)

    run()


def _signature_params():
    return [pytest.param(f, id=f.__name__) for f, spec in ARRAY_CORPUS.items()
            if spec.signature and "signature" not in spec.bug]


@pytest.mark.parametrize("f", _signature_params())
def test_array_corpus_signature(f):
    spec = ARRAY_CORPUS[f]

    @SETTINGS
    @given(st.data(), CHUNKS)
    def run(data, chunk_size):
        shape = data.draw(st.sampled_from([(4,), (2, 3), (5, 1)]))
        _, args = data.draw(corpus_inputs(spec, [0] * len(spec.args), batch_shape=shape))
        vf = made((f, "signature"), lambda: vectorize(f, signature=spec.signature,
                                                       fallback="error"))
        assert_chunking_changes_nothing(vf, args, chunk_size, compare=assert_same)

    run()


# ------------------------------------------------------------ what each output becomes
def returns_constant_and_value(x):
    if x > 0:
        y = math.sqrt(x)
    else:
        y = -x
    return 7, y


def test_unbatched_outputs_and_broadcast_arguments():
    x = np.linspace(-3, 3, 24).reshape(4, 6)
    col = np.arange(4.0).reshape(4, 1)
    f = vectorize(lambda a, b: a * b + 1 if a > b else a - b, chunk_size=5)
    assert_identical(f(x, col), vectorize(lambda a, b: a * b + 1 if a > b else a - b,
                                          chunk_size=None)(x, col))
    pair = vectorize(returns_constant_and_value, chunk_size=4)(x)
    assert_identical(pair, vectorize(returns_constant_and_value, chunk_size=None)(x))
    got = vmap(returns_constant_and_value, out_axes=(None, 0), chunk_size=4)(x[0])
    assert got[0] == 7 and np.array_equal(got[1], np.where(x[0] > 0, np.sqrt(abs(x[0])),
                                                           -x[0]))


def test_nested_tuple_arguments_are_sliced():
    xs, ys = np.arange(10.0), np.arange(10.0) * 2

    def dot_pair(p, scale):
        return (p[0] * p[1] + scale[0]) * scale[1]

    got = vmap(dot_pair, in_axes=((0, 0), (None, 0)), chunk_size=3)((xs, ys), (0.5, ys))
    assert np.array_equal(got, (xs * ys + 0.5) * ys)


def test_returned_argument_is_a_new_array():
    x = np.arange(20.0)
    out = vectorize(lambda v: v, chunk_size=3)(x)
    assert not np.may_share_memory(out, x) and np.array_equal(out, x)


# --------------------------------------------------------------------- choosing chunks
def test_auto_chunks_large_batches_only():
    small = np.zeros(2 * chunks.AUTO_MIN_LANES - 1)
    large = np.zeros(10 * chunks.AUTO_MIN_LANES)
    assert chunks.lanes_per_chunk("auto", small.size, [small], [True], 4) is None
    # at most AUTO_BYTES of the widest argument per chunk, in chunks of equal size
    lanes = chunks.lanes_per_chunk("auto", large.size, [large, 2.0], [True, False])
    assert lanes == large.size // 2 and lanes * 8 <= chunks.AUTO_BYTES
    narrow = large.astype(np.float32)            # fits in one chunk: one call ...
    assert chunks.lanes_per_chunk("auto", large.size, [narrow], [True]) is None
    # ... unless there are threads to share it (a chunk each, never under AUTO_MIN_LANES)
    assert chunks.lanes_per_chunk("auto", large.size, [narrow], [True], 2) == large.size // 2
    assert chunks.lanes_per_chunk("auto", small.size + 1, [narrow], [True], 8) == \
        chunks.AUTO_MIN_LANES
    # with threads: a multiple of them, so that they finish together
    assert chunks.lanes_per_chunk("auto", 10**6, [np.zeros(10**6)], [True], 1) == 62500
    assert chunks.lanes_per_chunk("auto", 10**6, [np.zeros(10**6)], [True], 3) == 55556
    # per-example arrays (mostly contractions, which BLAS blocks itself) are left whole,
    # unless a chunk size is asked for
    rows = np.zeros((large.size, 64), np.float32)
    assert chunks.lanes_per_chunk("auto", large.size, [large, rows], [True, True], 2) is None
    assert chunks.lanes_per_chunk(500, large.size, [large, rows], [True, True]) == 500
    assert chunks.lanes_per_chunk(None, large.size, [large], [True]) is None
    assert chunks.lanes_per_chunk(7, 14, [np.zeros(14)], [True]) == 7
    assert chunks.lanes_per_chunk(7, 13, [np.zeros(13)], [True]) is None
    # only unbatched arguments, or a subclass that slicing may not keep: one call
    assert chunks.lanes_per_chunk(7, 100, [np.zeros(100)], [False]) is None
    masked = np.ma.masked_less(np.arange(100.0), 3)
    assert chunks.lanes_per_chunk(7, 100, [masked], [True]) is None


@pytest.mark.parametrize("bad", [0, -3, 1.5, True, "big", [4]])
def test_chunk_size_is_checked(bad):
    with pytest.raises(ValueError, match="chunk_size"):
        vectorize(abs, chunk_size=bad)
    with pytest.raises(ValueError, match="chunk_size"):
        vmap(abs, chunk_size=bad)


def test_auto_chunked_large_batch_matches_one_call():
    n = 5 * chunks.AUTO_MIN_LANES + 17
    x = np.linspace(-12, 12, n)
    cr, ci = np.linspace(-2.2, 0.8, n), np.cos(np.arange(n)) * 1.3
    for f in (L.escape_while_select, L.escape_while_compact, L.escape_for):
        assert_identical(vectorize(f, fallback="error")(cr, ci),
                         vectorize(f, fallback="error", chunk_size=None)(cr, ci))
    pair = vectorize(returns_constant_and_value)(x)
    assert_identical(pair, vectorize(returns_constant_and_value, chunk_size=None)(x))


def test_chunks_that_disagree_make_one_call():
    calls = []

    def function(x):
        calls.append(x.size)
        # a dtype that depends on the lanes: int for the first chunk, float after it
        return x.astype(np.int64) if len(calls) == 1 else x * 1.5

    x = np.arange(10.0)
    result = Value(True, np.float64(1.0))
    assert chunks.run_chunked(function, [x], [True], 10, 4, result,
                              lambda f, a: f(*a)) is None
    assert calls == [4, 4]
    pair = TupleValue((Value(True, np.float64(1.0)), Value(False, 3)))
    got = chunks.run_chunked(lambda v: (v * 2, 3), [x], [True], 10, 4, pair,
                             lambda f, a: f(*a))
    assert np.array_equal(got[0], x * 2) and got[1] == 3


def test_auto_times_each_way_then_keeps_the_fastest():
    n = 20 * chunks.AUTO_MIN_LANES
    bucket = n.bit_length()
    x = np.linspace(-5, 5, n)
    vf = vectorize(returns_constant_and_value)
    first = vf(x)
    (entry,) = vf._specs._entries.values()
    tuning = entry.tuning
    timings = tuning.chunking[bucket]
    # (variant, way): variant 0 is the select form, 1 the form with the `if` compacted;
    # way 0: one whole call, 1: chunks on this thread, 3: chunks on 3 threads (this module's)
    assert set(timings) == {(v, w) for v in (0, 1) for w in (0, 1, 3)}
    for _ in range(6 * chunks.TRIALS - 1):   # the first call was the first trial
        assert tuning.chunking[bucket] is timings
        assert_identical(vf(x), first)
    assert all(len(times) == chunks.TRIALS for times in timings.values())
    variant, way = min(timings, key=lambda w: chunks._median(timings[w]))
    assert tuning.chunking == {bucket: way}
    assert tuning.variants == ({bucket: tuning.compacted} if variant else {})
    assert_identical(vf(x), first)
    # a batch that makes no chunk on one thread is timed whole and on threads only
    small = np.linspace(-5, 5, 3 * chunks.AUTO_MIN_LANES)
    assert_identical(vf(small), vectorize(returns_constant_and_value, chunk_size=None)(small))
    assert set(tuning.chunking[small.size.bit_length()]) == {(v, w) for v in (0, 1)
                                                           for w in (0, 3)}
    # an explicit chunk size is always used; small batches are never timed
    vf.chunk_size = 1000
    assert_identical(vf(x), first)
    vf(x[:100])
    assert tuning.chunking.keys() == {bucket, small.size.bit_length()}


def test_auto_without_threads_or_chunks_decides_at_once(monkeypatch):
    monkeypatch.setenv("VECTORIZE_NUM_THREADS", "1")
    x = np.linspace(-5, 5, 3 * chunks.AUTO_MIN_LANES)   # one chunk on one thread
    vf = vectorize(no_branches)
    assert_identical(vf(x), vectorize(no_branches, chunk_size=None)(x))
    (entry,) = vf._specs._entries.values()
    assert entry.tuning.chunking == {x.size.bit_length(): 0}
    # with an `if` to compact, the two forms are still timed (in one call each)
    vf = vectorize(returns_constant_and_value)
    assert_identical(vf(x), vectorize(returns_constant_and_value, chunk_size=None)(x))
    (entry,) = vf._specs._entries.values()
    assert set(entry.tuning.chunking[x.size.bit_length()]) == {(0, 0), (1, 0)}


def no_branches(x):
    return 2.0 * x + 1.0


# --------------------------------------------------------------------------- threads
def test_chunks_run_on_several_threads_and_fill_every_slice():
    seen = set()

    def function(x):
        seen.add(threading.current_thread().name)
        time.sleep(0.002)                  # let the other threads take chunks too
        return x * 2.0, x.astype(np.int32)

    x = np.arange(200.0)
    pair = TupleValue((Value(True, np.float64(1.0)), Value(True, np.int32(1))))
    got = chunks.run_chunked(function, [x], [True], 200, 7, pair, lambda f, a: f(*a), 4)
    assert_identical(got, (x * 2.0, x.astype(np.int32)))
    assert len(seen) > 1 and any(name.startswith("vectorize-chunks") for name in seen)


def test_an_error_on_a_thread_is_raised_once_every_thread_has_stopped():
    running = []

    def function(x):
        running.append(1)
        time.sleep(0.001)
        running.pop()
        if x[0] >= 50:
            raise KeyError(int(x[0]))
        return x

    x = np.arange(100.0)
    with pytest.raises(KeyError):
        chunks.run_chunked(function, [x], [True], 100, 5, Value(True, np.float64(1.0)),
                           lambda f, a: f(*a), 4)
    assert not running                     # nothing left writing into the outputs


def test_floating_point_settings_hold_on_every_thread():
    x = np.linspace(1.0, -1.0, 64)         # negatives only in the last chunks
    result = Value(True, np.float64(1.0))
    with np.errstate(invalid="raise"):
        with pytest.raises(FloatingPointError):
            chunks.run_chunked(np.log, [x], [True], 64, 4, result, lambda f, a: f(*a), 4)
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("error")
        got = chunks.run_chunked(np.log, [x], [True], 64, 4, result, lambda f, a: f(*a), 4)
    with np.errstate(invalid="ignore"):
        assert_identical(got, np.log(x))


def test_a_call_nested_in_a_chunk_runs_on_its_thread_alone():
    inner = []

    def function(x):
        inner.append(chunks.num_threads())
        return x

    x = np.arange(40.0)
    chunks.run_chunked(function, [x], [True], 40, 4, Value(True, np.float64(1.0)),
                       lambda f, a: f(*a), 3)
    assert set(inner) == {1}
    assert chunks.num_threads() == 3       # and the caller's thread is itself again


def test_thread_count_setting(monkeypatch):
    monkeypatch.setenv("VECTORIZE_NUM_THREADS", "1")
    assert chunks.num_threads() == 1
    monkeypatch.setenv("VECTORIZE_NUM_THREADS", "many")
    with pytest.raises(ValueError, match="VECTORIZE_NUM_THREADS"):
        chunks.num_threads()
    monkeypatch.delenv("VECTORIZE_NUM_THREADS")
    assert 1 <= chunks.num_threads() <= chunks.MAX_THREADS


RNG = np.random.default_rng(3)
SCALE = 2.5


def _plain(x):
    return math.sqrt(abs(x)) * SCALE if x > 1 else -x


def _draws(x):
    return x + np.random.normal()


def _generator(x):
    return x + RNG.normal()


def _prints(x):
    print("called")
    return x


def _calls_helper(x):                   # the helper is generated code too
    return x * _scale()


def _scale():
    return 2.0


class _Scaler:
    def __call__(self):
        return 2.0


SCALER = _Scaler()


def _calls_object(x):
    return x * SCALER()


def _falls_back(x):
    try:       # (a `finally` that returns is refused: the function runs per example)
        x = x + 1
    finally:
        return x  # noqa: B012


@pytest.mark.parametrize("f, parallel", [
    (_plain, True), (_draws, False), (_generator, False), (_prints, False),
    (_calls_helper, True), (_calls_object, False), (_falls_back, False)],
    ids=lambda v: getattr(v, "__name__", ""))
def test_only_functions_without_shared_state_run_on_threads(f, parallel):
    vf = vectorize(f, fallback="loop")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        vf(np.arange(3.0))
    (entry,) = vf._specs._entries.values()
    assert getattr(entry.spec, "parallel", False) is parallel    # a whole-function fallback: no


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_forked_child_gets_a_pool_of_its_own():
    x = np.linspace(-3, 3, 90)
    vf = vectorize(_plain, chunk_size=7)
    expected = vectorize(_plain, chunk_size=None)(x)
    assert_identical(vf(x), expected)       # the parent's pool exists now
    pid = os.fork()
    if pid == 0:                            # the child: any failure, including a hang, is 1
        signal.alarm(30)
        try:
            ok = np.array_equal(vf(x), expected)
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_calls_from_several_threads_at_once_share_the_pool():
    from concurrent.futures import ThreadPoolExecutor

    vf = vectorize(_plain, chunk_size=5)
    whole = vectorize(_plain, chunk_size=None)
    inputs = [np.linspace(-3, 3, 50 + k) for k in range(8)]
    with ThreadPoolExecutor(4) as users:
        got = list(users.map(vf, inputs))
    for x, out in zip(inputs, got):
        assert_identical(out, whole(x))


# ------------------------------------------------------ select or compacted, by timing
def piecewise4(x):
    if x < -1.0:
        y = -x - 0.5
    elif x < 1.0:
        y = 0.5 * x * x
    elif x < 4.0:
        y = math.sqrt(x) - 0.5
    else:
        y = 0.25 * x * x - 1.5 * x + 3.5
    return y


def log_branch(x):
    if x > -1.0:
        y = np.log(x)      # warns on the lanes in (-1, 0] that take the branch
    else:
        y = x
    return y


class _Clock:
    """`chunks`' clock, moved only by the timed functions (`_slowed`)."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self):
        return self.now


def _slowed(generated, seconds, clock):
    function = generated.function

    def timed(*args):
        clock.now += seconds
        return function(*args)
    generated.function = timed
    return generated


def _large_spec(f, x):
    vf = vectorize(f, fallback="error")
    vf(x[:10])              # the specialization, before any large batch
    (entry,) = vf._specs._entries.values()
    return vf, entry.spec, entry.tuning


@pytest.mark.parametrize("faster", ["select", "compacted"])
def test_auto_keeps_the_faster_of_select_and_compacted(monkeypatch, faster):
    clock = _Clock()
    monkeypatch.setattr(chunks, "time", clock)
    monkeypatch.setenv("VECTORIZE_NUM_THREADS", "1")
    x = np.random.default_rng(1).permutation(np.linspace(-10, 10, 3 * chunks.AUTO_MIN_LANES))
    bucket = x.size.bit_length()
    expected = vectorize(piecewise4, chunk_size=None)(x)
    vf, spec, tuning = _large_spec(piecewise4, x)
    assert spec.switchable_ifs == 3 and "flatnonzero" not in spec.source
    select_time, compacted_time = (1.0, 2.0) if faster == "select" else (2.0, 1.0)
    _slowed(spec, select_time, clock)
    build = tuning.build_compacted
    tuning.build_compacted = lambda: _slowed(build(), compacted_time, clock)
    for _ in range(2 * chunks.TRIALS - 1):   # one chunk on one thread: way 0 of each form
        # the source of what the next call runs, with a line that says it is being timed
        source = vf.source(x)
        assert "being timed" in source and "# the next call runs this one." in source
        timings = tuning.chunking.get(bucket, {(0, 0): []})    # (the first call: select)
        turn = min(timings, key=lambda c: len(timings[c]))
        assert ("flatnonzero" in source) == (turn[0] == 1)
        assert_identical(vf(x), expected)
        assert set(tuning.chunking[bucket]) == {(0, 0), (1, 0)}
    assert_identical(vf(x), expected)
    assert tuning.chunking[bucket] == 0
    assert (bucket in tuning.variants) == (faster == "compacted")
    assert ("flatnonzero" in vf.source(x)) == (faster == "compacted")
    assert ("timed faster" in vf.source(x)) == (faster == "compacted")
    assert "being timed" not in vf.source(x)
    assert "flatnonzero" not in vf.source(x[:10])        # other batch sizes: their own
    assert_identical(vf(x), expected)


def test_the_compacted_form_warns_as_the_select_form():
    """Select runs the whole `if` under np.errstate(all="ignore") (the branch may warn on
    lanes whose value is thrown away); the compacted alternative silences it too, so the
    choice changes no warning."""
    x = np.linspace(-3, 3, 3 * chunks.AUTO_MIN_LANES)
    vf, spec, tuning = _large_spec(log_branch, x)
    alternative = chunks.compacted(tuning)
    assert "flatnonzero" in alternative.source and "errstate" in alternative.source
    tuning.chunking[x.size.bit_length()] = 0
    tuning.variants[x.size.bit_length()] = alternative
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = vf(x)
    assert_identical(got, vectorize(log_branch, chunk_size=None)(x))


def test_a_compacted_form_that_disagrees_is_dropped(monkeypatch):
    monkeypatch.setenv("VECTORIZE_NUM_THREADS", "1")
    x = np.linspace(-10, 10, 3 * chunks.AUTO_MIN_LANES)
    expected = vectorize(piecewise4, chunk_size=None)(x)
    vf, spec, tuning = _large_spec(piecewise4, x)
    build = tuning.build_compacted

    def wrong():
        generated = build()
        function = generated.function
        generated.function = lambda v: function(v) + 1.0
        return generated
    tuning.build_compacted = wrong
    for _ in range(2 * chunks.TRIALS):
        assert_identical(vf(x), expected)
    assert tuning.compacted is False and tuning.chunking[x.size.bit_length()] == 0
    assert tuning.variants == {}


@pytest.mark.parametrize("decided", [False, True])
def test_a_compacted_form_that_raises_is_dropped(monkeypatch, decided):
    """An exception from the compacted form (never expected: it is built only where it is
    valid) changes no outcome: the call returns the select form's result, and the select
    form runs from then on, while timing or once the compacted form was kept."""
    monkeypatch.setenv("VECTORIZE_NUM_THREADS", "1")
    x = np.linspace(-10, 10, 3 * chunks.AUTO_MIN_LANES)
    bucket = x.size.bit_length()
    expected = vectorize(piecewise4, chunk_size=None)(x)
    vf, spec, tuning = _large_spec(piecewise4, x)
    alternative = chunks.compacted(tuning)
    function = alternative.function
    calls = []

    def raises(v):
        calls.append(v.size)
        if len(calls) > 1 or not decided:
            raise TypeError("'int' object is not subscriptable")
        return function(v)
    alternative.function = raises
    if decided:
        tuning.chunking[bucket] = 0
        tuning.variants[bucket] = alternative
    for _ in range(2 * chunks.TRIALS + 1):
        assert_identical(vf(x), expected)
    assert calls == [x.size] * (1 + decided)
    assert tuning.compacted is False and tuning.variants == {}
    assert all(not c[0] for c in tuning.chunking[bucket]) if type(
        tuning.chunking[bucket]) is dict else tuning.chunking[bucket] == 0
    assert "flatnonzero" not in vf.source(x)


def test_an_exception_of_both_forms_is_the_callers():
    """Where the select form raises too, the call raises what it raises (for `vectorize`:
    numpy.vectorize's loop then decides, here it returns), and the compacted form (which
    raised the same) stays."""
    x = np.linspace(-10, 10, 3 * chunks.AUTO_MIN_LANES)
    bucket = x.size.bit_length()
    vf, spec, tuning = _large_spec(piecewise4, x)
    alternative = chunks.compacted(tuning)

    def raises(v):
        raise ValueError("math domain error")
    alternative.function = spec.function = raises
    tuning.chunking[bucket] = 0
    tuning.variants[bucket] = alternative
    np.testing.assert_array_equal(vf(x), np.vectorize(piecewise4)(x))
    assert tuning.compacted is alternative and tuning.variants == {bucket: alternative}


def test_a_compacted_form_that_cannot_be_built_is_not_timed(monkeypatch):
    monkeypatch.setenv("VECTORIZE_NUM_THREADS", "1")
    x = np.linspace(-10, 10, 3 * chunks.AUTO_MIN_LANES)
    vf, spec, tuning = _large_spec(piecewise4, x)

    def fails():
        raise RuntimeError("no")
    tuning.build_compacted = fails
    expected = vectorize(piecewise4, chunk_size=None)(x)
    assert_identical(vf(x), expected)       # the select form's first timing: nothing built
    assert tuning.compacted is None
    for _ in range(chunks.TRIALS):          # its turn: the build fails, select from then on
        assert_identical(vf(x), expected)
    assert tuning.compacted is False and tuning.chunking[x.size.bit_length()] == 0


def test_vmap_and_functions_without_a_select_have_their_alternatives_or_none():
    x = np.linspace(-10, 10, 3 * chunks.AUTO_MIN_LANES)
    vm = vmap(piecewise4)
    assert_identical(vm(x), vectorize(piecewise4, chunk_size=None)(x))
    (entry,) = vm._specs._entries.values()
    spec, tuning = entry.spec, entry.tuning
    assert spec.switchable_ifs == 3 and chunks.compacted(tuning)
    vf, spec, tuning = _large_spec(no_branches, x)
    assert spec.switchable_ifs == 0 and tuning.build_compacted is None
    assert chunks.compacted(tuning) is False


# ------------------------------------------------------ what exploring may cost (issue 21)
@pytest.fixture
def budgeted(monkeypatch):
    """The runtime's own exploration rules (this module's fixture lifts them), on a clock
    moved only by the timed functions."""
    monkeypatch.setattr(chunks, "EXPLORE_SHARE", 0.1)
    monkeypatch.setattr(chunks, "PRUNE", 2.0)
    clock = _Clock()
    monkeypatch.setattr(chunks, "time", clock)
    return clock


def test_the_compacted_form_is_built_only_once_the_calls_paid_for_it(monkeypatch, budgeted):
    monkeypatch.setenv("VECTORIZE_NUM_THREADS", "1")
    x = np.random.default_rng(2).permutation(np.linspace(-10, 10, 3 * chunks.AUTO_MIN_LANES))
    bucket = x.size.bit_length()
    expected = vectorize(piecewise4, chunk_size=None)(x)
    vf, spec, tuning = _large_spec(piecewise4, x)
    _slowed(spec, 1.0, budgeted)             # every call of the select form: one "second"
    tuning.build_cost = 25.0                 # building the other form: 25 calls' worth
    built = []
    build = tuning.build_compacted

    def counted():
        built.append(True)
        return _slowed(build(), 0.5, budgeted)     # and it is twice as fast
    tuning.build_compacted = counted
    calls = 0
    while not built:
        assert_identical(vf(x), expected)
        calls += 1
        assert calls <= 260, "never built"
    # built once the calls took 25 / EXPLORE_SHARE = 250 "seconds": the next call makes
    # the candidates again and times the select form first, the one after builds
    assert calls == 252
    for _ in range(2 * chunks.TRIALS):
        assert_identical(vf(x), expected)
    assert tuning.variants == {bucket: tuning.compacted}
    assert "flatnonzero" in vf.source(x)


def test_a_way_much_slower_than_another_is_timed_no_more(monkeypatch, budgeted):
    x = np.linspace(-5, 5, 20 * chunks.AUTO_MIN_LANES)
    bucket = x.size.bit_length()
    vf, spec, tuning = _large_spec(no_branches, x)
    tuning.build_compacted = None
    timed = spec.function

    sizes = []

    def function(v):                 # one whole call: 1; a chunk: 1 / chunks, on 3 threads
        sizes.append(v.size)
        budgeted.now += 1.0 if v.size == x.size else 20.0 / (x.size / v.size)
        return timed(v)
    spec.function = function
    expected = vectorize(no_branches, chunk_size=None)(x)
    # the first calls are whole calls, until timing the 2 other ways (TRIALS calls each, one
    # "second" each) is a tenth of what the calls took
    calls = round(2 * chunks.TRIALS / chunks.EXPLORE_SHARE)
    for k in range(calls):
        assert_identical(vf(x), expected)
        assert tuning.chunking.get(bucket) == (0 if k < calls - 1 else None)
        assert not chunks.settled(tuning, x.size)      # (the other ways are still to time)
    assert set(sizes) == {x.size} and len(sizes) == calls
    assert_identical(vf(x), expected)
    assert set(tuning.chunking[bucket]) == {(0, 0), (0, 1), (0, 3)}
    for _ in range(2):
        assert_identical(vf(x), expected)
    # chunks took 20 times one call: neither way is timed again
    assert set(tuning.chunking[bucket]) == {(0, 0)}
    for _ in range(chunks.TRIALS):
        assert_identical(vf(x), expected)
    assert tuning.chunking[bucket] == 0 and chunks.settled(tuning, x.size)
    assert chunks.learned(tuning)["timed"] == [bucket]


@pytest.mark.parametrize("whole_call_bytes", [1 << 20, 1 << 22])
def test_until_the_ways_are_timed_the_arrays_size_says_the_way(monkeypatch, budgeted,
                                                                whole_call_bytes):
    """Before the calls have paid for timing the ways, a batch of arrays larger than
    `chunks.WHOLE_CALL_BYTES` (1.3 MB here) runs in chunks on the calling thread, a smaller
    one as whole calls: no call of either is a trial of another way."""
    monkeypatch.setattr(chunks, "WHOLE_CALL_BYTES", whole_call_bytes)
    x = np.linspace(-5, 5, 20 * chunks.AUTO_MIN_LANES)
    bucket = x.size.bit_length()
    vf, spec, tuning = _large_spec(no_branches, x)
    tuning.build_compacted = None
    sizes = []
    timed = spec.function

    def function(v):
        sizes.append(v.size)
        budgeted.now += v.size / x.size
        return timed(v)
    spec.function = function
    expected = vectorize(no_branches, chunk_size=None)(x)
    chunked = x.nbytes >= whole_call_bytes
    for _ in range(10):
        assert_identical(vf(x), expected)
        assert tuning.chunking[bucket] == int(chunked) and bucket in tuning.untimed
    lanes = chunks.lanes_per_chunk("auto", x.size, [x], [True], 1)
    assert set(sizes) == ({lanes, x.size - lanes * (x.size // lanes)} - {0} if chunked
                          else {x.size})


def test_the_ways_are_timed_again_when_the_calls_drift(monkeypatch, budgeted):
    monkeypatch.setenv("VECTORIZE_NUM_THREADS", "1")
    x = np.linspace(-5, 5, 3 * chunks.AUTO_MIN_LANES)
    bucket = x.size.bit_length()
    vf, spec, tuning = _large_spec(no_branches, x)
    tuning.build_compacted = None
    cost = [1.0]
    timed = spec.function

    def function(v):
        budgeted.now += cost[0] * v.size / x.size
        return timed(v)
    spec.function = function
    expected = vectorize(no_branches, chunk_size=None)(x)
    for _ in range(2 * chunks.TRIALS):
        assert_identical(vf(x), expected)
    assert type(tuning.chunking[bucket]) is int
    # a slow call now and then is no drift ...
    for k in range(4 * chunks.RECENT):
        cost[0] = 9.0 if k % 4 == 0 else 1.0
        assert_identical(vf(x), expected)
        assert type(tuning.chunking[bucket]) is int
    # ... but calls that stay slower are: the ways are timed again
    cost[0] = 3.0
    for _ in range(2 * chunks.RECENT):
        assert_identical(vf(x), expected)
        if bucket not in tuning.chunking:
            break
    assert bucket not in tuning.chunking


def test_threads_are_not_timed_where_the_cores_are_taken(monkeypatch):
    monkeypatch.setattr(chunks, "spare_threads", TRUE_SPARE_THREADS)
    monkeypatch.setattr(chunks, "_cpus", lambda: 4)
    monkeypatch.setenv("VECTORIZE_NUM_THREADS", "4")
    monkeypatch.setattr(os, "getloadavg", lambda: (4.2, 4.0, 4.0))
    assert chunks.spare_threads() == 1
    monkeypatch.setattr(os, "getloadavg", lambda: (2.1, 4.0, 4.0))
    assert chunks.spare_threads() == 2
    monkeypatch.setattr(os, "getloadavg", lambda: (0.3, 0.0, 0.0))
    assert chunks.spare_threads() == 4
    monkeypatch.setenv("VECTORIZE_NUM_THREADS", "1")
    assert chunks.spare_threads() == 1


TRUE_SPARE_THREADS = chunks.spare_threads
