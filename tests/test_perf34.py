"""`merge.rows_dot` measures which of its two forms (BLAS's ``x @ w``, or the einsum) runs:
samples of a call's own rows, timed, per kind of batch. Tested with a fake clock (each form
advances it by a cost per row that the test sets), never the real one: the choice follows the
faster form, changes when the costs change, and every result is the simple form's
(``x @ w``) and the per-example loop's.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from vectorize import chunks, vectorize, vmap
from vectorize.backends.numpy import merge


class FakeClock:
    """Seconds that advance only by what the forms of `rows_dot` cost (per row)."""

    def __init__(self, einsum: float, matmul: float):
        self.now = 0.0
        self.cost = {"einsum": einsum, "matmul": matmul}
        self.rows = {"einsum": 0, "matmul": 0}
        self.calls = {"einsum": 0, "matmul": 0}

    def __call__(self) -> float:
        return self.now

    def charge(self, form: str, rows: int) -> None:
        self.now += self.cost[form] * rows
        self.rows[form] += rows
        self.calls[form] += 1


@pytest.fixture
def clock(monkeypatch):
    """A fake clock, the size threshold lowered so that small batches are measured, one
    thread for the einsum (so that its rows are counted once per call), a fresh memory of
    the choices."""
    fake = FakeClock(einsum=1.0, matmul=1.0)
    monkeypatch.setattr(merge, "ROWS_DOT_MIN_BYTES", 0)
    monkeypatch.setattr(merge, "ROWS_DOT_SAMPLE_BYTES", 0)
    monkeypatch.setattr(merge, "_rows_choices", {})
    monkeypatch.setattr(merge, "_clock", fake)
    monkeypatch.setattr(merge, "_einsum_workers", lambda n: 1)
    real_einsum, real_matmul = np.einsum, np.matmul

    def einsum(subscripts, x, w, **kwargs):
        fake.charge("einsum", len(x))
        return real_einsum(subscripts, x, w, **kwargs)

    def matmul(x, w, **kwargs):
        fake.charge("matmul", len(x))
        return real_matmul(x, w, **kwargs)
    monkeypatch.setattr(merge, "_EINSUM", einsum)
    monkeypatch.setattr(merge, "_MATMUL", matmul)
    return fake


def _rows(n=64, k=32, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, k)), rng.standard_normal(k)


def _close(got, x, w):
    simple = x @ w
    assert got.dtype == simple.dtype and got.shape == simple.shape
    np.testing.assert_allclose(got, simple, rtol=1e-12, atol=1e-12 * math.sqrt(x.shape[1]))


@pytest.mark.parametrize("einsum_cost, einsum_runs", [(0.5, True), (2.0, False)])
def test_the_faster_form_is_chosen(clock, einsum_cost, einsum_runs):
    clock.cost["einsum"] = einsum_cost
    x, w = _rows()
    for _ in range(merge.ROWS_DOT_TRIALS):
        _close(merge.rows_dot(x, w), x, w)
    # each timed call computed a sixteenth of its rows by each form, the rest by the
    # faster one
    assert clock.calls["einsum"] >= merge.ROWS_DOT_TRIALS
    before = dict(clock.rows)
    for _ in range(5):
        got = merge.rows_dot(x, w)
        _close(got, x, w)
    assert (clock.rows["einsum"] - before["einsum"] == 5 * len(x)) == einsum_runs
    if not einsum_runs:     # (@ itself: the simple form's bits)
        assert clock.rows["einsum"] == before["einsum"]
        assert np.array_equal(merge.rows_dot(x, w), x @ w)


def test_a_timed_call_computes_a_sample_by_each_form(clock):
    clock.cost["einsum"] = 2.0
    x, w = _rows(n=160)
    _close(merge.rows_dot(x, w), x, w)
    step = len(x) // merge.ROWS_DOT_SAMPLE
    # the einsum: its sample alone (it lost); @: its sample and the rest
    assert clock.rows == {"einsum": step, "matmul": len(x) - step}
    choice = merge._rows_choices[merge._rows_key(x, 1)]
    assert choice.einsum == [2.0] and choice.matmul == [1.0] and choice.left == 0


@pytest.mark.parametrize("sample_bytes, rows", [(0, 10), (1 << 20, 40), (64 * 8 * 20, 20)])
def test_samples_have_bytes_enough_and_at_most_a_quarter(clock, monkeypatch, sample_bytes,
                                                          rows):
    # (a sample of a few microseconds is timed as long as the calls around it)
    monkeypatch.setattr(merge, "ROWS_DOT_SAMPLE_BYTES", sample_bytes)
    x, w = _rows(n=160, k=64)
    _close(merge.rows_dot(x, w), x, w)
    assert clock.rows["einsum"] == rows and clock.calls["einsum"] == 1


@pytest.mark.parametrize("cost, timed_again", [(0.9, False), (0.5, True)])
def test_a_noisy_timing_within_the_margin_is_not_timed_again(clock, cost, timed_again):
    # a timing that finds the einsum faster than the chosen @ by less than the margin (0.9
    # against 1.0) leaves the choice for `ROWS_DOT_RESAMPLE` calls; by more (0.5), the next
    # call times the forms again
    clock.cost["einsum"] = 2.0
    x, w = _rows()
    for _ in range(merge.ROWS_DOT_TRIALS):
        merge.rows_dot(x, w)
    choice = merge._rows_choices[merge._rows_key(x, 1)]
    choice.left = 0
    clock.cost["einsum"] = cost
    _close(merge.rows_dot(x, w), x, w)
    assert not choice.wins
    assert choice.left == (0 if timed_again else merge.ROWS_DOT_RESAMPLE)


@pytest.mark.parametrize("einsum_cost, einsum_rows", [(4.0, 10 // 4), (100.0, 1)])
def test_the_slower_form_is_timed_on_fewer_rows(clock, einsum_cost, einsum_rows):
    # its sample costs about what a sample of the faster form does (at most an eighth)
    clock.cost["einsum"] = einsum_cost
    x, w = _rows(n=160)
    for _ in range(merge.ROWS_DOT_TRIALS):
        merge.rows_dot(x, w)
    choice = merge._rows_choices[merge._rows_key(x, 1)]
    choice.left = 0                     # (the next call times the forms again)
    before = dict(clock.rows)
    _close(merge.rows_dot(x, w), x, w)
    assert clock.rows["einsum"] - before["einsum"] == einsum_rows
    assert clock.rows["matmul"] - before["matmul"] == len(x) - einsum_rows
    assert choice.left == merge.ROWS_DOT_RESAMPLE


def test_the_choice_follows_a_change_of_costs(clock):
    # the load changes (BLAS's threads wait for the cores): the einsum becomes faster, and
    # is chosen within a resample and its trials
    clock.cost["einsum"] = 2.0
    x, w = _rows()
    for _ in range(merge.ROWS_DOT_TRIALS + 3):
        merge.rows_dot(x, w)
    choice = merge._rows_choices[merge._rows_key(x, 1)]
    assert not choice.einsum_wins()
    clock.cost["einsum"] = 0.25
    for _ in range(merge.ROWS_DOT_RESAMPLE + merge.ROWS_DOT_TRIALS + 2):
        _close(merge.rows_dot(x, w), x, w)
    assert choice.einsum_wins()
    before = clock.rows["einsum"]
    merge.rows_dot(x, w)
    assert clock.rows["einsum"] - before in (len(x), len(x) // merge.ROWS_DOT_SAMPLE)


def test_kinds_of_batches_are_measured_apart(clock):
    clock.cost["einsum"] = 0.5
    x, w = _rows(k=32)
    for _ in range(merge.ROWS_DOT_TRIALS):
        merge.rows_dot(x, w)
    y, v = _rows(n=2000, k=32)          # another size class: timed afresh
    assert merge._rows_key(y, 1) != merge._rows_key(x, 1)
    before = clock.calls["matmul"]
    merge.rows_dot(y, v)
    assert clock.calls["matmul"] == before + 1     # (its sample)
    z, u = _rows(k=48)                  # another row length
    assert merge._rows_key(z, 1) not in merge._rows_choices
    _close(merge.rows_dot(z, u), z, u)
    assert merge._rows_key(z, 1) in merge._rows_choices


@pytest.mark.parametrize("n", [1, 2, 15, 16, 17, 33])
def test_timed_calls_of_few_rows(clock, n):
    clock.cost["einsum"] = 0.5
    x, w = _rows(n=n, seed=n)
    for _ in range(merge.ROWS_DOT_TRIALS + 1):
        _close(merge.rows_dot(x, w), x, w)


def test_overflow_in_a_timed_call_raises_as_the_loop_does(clock):
    # the timed @ runs with errors ignored; a value not finite makes the result `x @ w`,
    # which raises (warns) as `x.dot(w)` per example does
    x = np.full((40, 40), 1e300)
    w = np.full(40, 1e10)
    with np.errstate(over="raise"):
        with pytest.raises(FloatingPointError):
            [r.dot(w) for r in x]
        with pytest.raises(FloatingPointError):
            merge.rows_dot(x, w)
    with pytest.warns(RuntimeWarning, match="overflow"):
        got = merge.rows_dot(x, w)
    assert np.isposinf(got).all()


def test_nan_rows_in_a_timed_call(clock):
    x, w = _rows(n=48)
    x[1, 3] = math.nan
    x[20, 0] = math.inf
    w[5] = 0.0
    with np.errstate(all="ignore"):
        simple = x @ w
        for _ in range(merge.ROWS_DOT_TRIALS + 1):
            np.testing.assert_array_equal(merge.rows_dot(x, w), simple)


def relu_dot(x, w):
    return max(x.dot(w), 0.0)


@pytest.mark.parametrize("einsum_cost", [0.5, 2.0])
@pytest.mark.parametrize("n", [0, 1, 50])
def test_vmap_same_as_loop(clock, einsum_cost, n):
    clock.cost["einsum"] = einsum_cost
    rng = np.random.default_rng(n)
    x, w = rng.standard_normal((n, 64)), rng.standard_normal(64)
    f = vmap(relu_dot, in_axes=(0, None), fallback="error")
    expected = np.array([relu_dot(r, w) for r in x]).reshape(n)
    for _ in range(merge.ROWS_DOT_TRIALS + 2):
        got = f(x, w)
        assert got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    assert "merge.rows_dot(x, w)" in f.source(x, w)


def test_the_threads_of_the_einsum_are_part_of_the_kind(clock, monkeypatch):
    # under load the einsum runs on fewer threads (`chunks.spare_threads`): its time per row
    # is another, measured apart
    clock.cost["einsum"] = 0.5
    x, w = _rows()
    for _ in range(merge.ROWS_DOT_TRIALS):
        merge.rows_dot(x, w)
    assert merge._rows_choices[merge._rows_key(x, 1)].einsum_wins()
    monkeypatch.setattr(chunks, "AUTO_MIN_LANES", 4)        # (rows for two pieces)
    monkeypatch.setattr(merge, "_einsum_workers", lambda n: 2)
    before = clock.calls["matmul"]
    _close(merge.rows_dot(x, w), x, w)
    assert clock.calls["matmul"] == before + 1     # (timed afresh: its sample)
    assert merge._rows_key(x, 2) in merge._rows_choices


# ------------------------------------------ `chunks.run`: what timing the ways again costs
class ChunksClock:
    """`chunks`' clock (its ``time`` module), moved only by the generated function: one
    whole call costs ``whole``, a chunk its share of ``chunked``, times ``load``."""

    def __init__(self, whole: float, chunked: float):
        self.now, self.whole, self.chunked, self.load = 0.0, whole, chunked, 1.0
        self.sizes = []

    def perf_counter(self) -> float:
        return self.now


def double_plus_one(x):
    return 2.0 * x + 1.0


@pytest.fixture
def ways(monkeypatch):
    """A batch of several chunks, its specialization's calls on a fake clock, on one thread
    (`spare_threads`, which the test changes), every way timed from the first call."""
    fake = ChunksClock(whole=1.0, chunked=1.0)
    monkeypatch.setattr(chunks, "time", fake)
    monkeypatch.setattr(chunks, "EXPLORE_SHARE", 0.0)
    monkeypatch.setattr(chunks, "PRUNE", 2.0)
    spare = [1]
    monkeypatch.setattr(chunks, "spare_threads", lambda: spare[0])
    monkeypatch.setattr(chunks, "num_threads", lambda: spare[0])
    x = np.linspace(-5, 5, 20 * chunks.AUTO_MIN_LANES)
    vf = vectorize(double_plus_one, fallback="error")
    vf(x[:10])
    (entry,) = vf._specs._entries.values()
    spec, tuning = entry.spec, entry.tuning
    tuning.build_compacted = None
    function = spec.function

    def timed(v):
        fake.sizes.append(v.size)
        share = v.size / x.size
        fake.now += fake.load * (fake.whole if v.size == x.size else fake.chunked * share)
        return function(v)
    spec.function = timed
    expected = 2.0 * x + 1.0

    def call():
        got = vf(x)
        assert got.dtype == expected.dtype and np.array_equal(got, expected)
    return fake, call, tuning, x.size.bit_length(), x.size, spare


def test_a_whole_call_much_slower_than_chunks_is_timed_no_more(ways):
    # (one whole call was kept as the reference, timed TRIALS times however slow: on the
    # piecewise at 1e6 on a loaded machine, three to nine times a call in chunks)
    fake, call, tuning, bucket, size, _ = ways
    fake.whole = 5.0
    for _ in range(2 * 3):
        call()
    assert tuning.chunking[bucket] == 1
    assert fake.sizes.count(size) == 1


def test_faster_calls_time_the_ways_again_only_for_spare_threads(ways):
    fake, call, tuning, bucket, size, spare = ways
    fake.whole = 3.0
    for _ in range(4 * chunks.TRIALS):
        call()
    assert tuning.chunking[bucket] == 1
    # the load that slowed every way leaves: faster calls, no thread more spare, nothing
    # timed again; the faster time is the decided one from now on
    fake.load = 0.25
    whole_calls = fake.sizes.count(size)
    for _ in range(2 * chunks.RECENT):
        call()
        assert tuning.chunking[bucket] == 1
    assert fake.sizes.count(size) == whole_calls
    assert tuning.steady[bucket][0] == pytest.approx(0.25)
    # ... and a slowdown from there is a drift
    fake.load = 1.0
    for _ in range(2 * chunks.RECENT):
        call()
        if bucket not in tuning.chunking:
            break
    assert bucket not in tuning.chunking
    for _ in range(4 * chunks.TRIALS):
        call()
    assert tuning.chunking[bucket] == 1
    # faster calls with a thread more spare: the ways are timed again (threads among them)
    spare[0] = 2
    fake.load = 0.25
    for _ in range(2 * chunks.RECENT):
        call()
        if type(tuning.chunking.get(bucket)) is not int:
            break
    assert type(tuning.chunking.get(bucket)) is not int
