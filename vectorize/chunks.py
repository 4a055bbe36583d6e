"""Running a generated function over a large batch a chunk of lanes at a time.

The lanes of generated code are independent by construction (each is one example), so calling
it on consecutive slices of the batch axis and writing each slice of the outputs into place
gives the values of one whole-batch call. It is much faster for large batches: every temporary
array is then a few hundred kilobytes, which the allocator hands back on the next chunk,
instead of megabytes of fresh pages per temporary (on the machines we measure on, a fresh page
costs more than the arithmetic done on it; see docs/performance.md), and chunks of code
without shared state run on several threads at once (NumPy releases the GIL in its loops).
Only `np.random` draws (other numbers, the same distributions) and contractions of per-example
arrays (BLAS may sum in another order for another number of rows) can tell; docs/design.md.

``chunk_size`` (the keyword of `vectorize` and `vmap`, as in ``torch.vmap``): ``"auto"`` chunks
large batches of scalar examples (`AUTO_BYTES` of the widest batched argument per chunk) where
that is measured to be faster (`run`), ``None`` makes one call for the whole batch, a positive
int is the number of lanes per call.
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
import time

import numpy as np

from .abstract import TupleValue, Value

AUTO_BYTES = 1 << 19
"""With ``chunk_size="auto"``: bytes of the widest batched argument per chunk at most (65,536
float64 lanes) ..."""
AUTO_MIN_LANES = 8192
"""... and never fewer lanes than this (each chunk pays every NumPy call's fixed cost)."""
MAX_THREADS = 8
"""Threads the chunks of one call may run on when ``VECTORIZE_NUM_THREADS`` is not set (at
most the CPUs this process may use)."""


def check_chunk_size(chunk_size):
    if chunk_size is None or chunk_size == "auto":
        return chunk_size
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer)) or \
            chunk_size < 1:
        raise ValueError(f"chunk_size must be 'auto', None or a positive int, got "
                         f"{chunk_size!r}")
    return int(chunk_size)


def num_threads() -> int:
    """Threads that the chunks of one call may run on: ``VECTORIZE_NUM_THREADS`` (as
    ``OMP_NUM_THREADS`` / ``NUMEXPR_NUM_THREADS``; 1 turns threads off), else the CPUs this
    process may use, at most `MAX_THREADS`. Inside a chunk that is already running on a
    thread of ours: 1."""
    if getattr(_local, "busy", False):
        return 1
    return threads_setting() or min(_cpus(), MAX_THREADS)


def threads_setting() -> int | None:
    """``VECTORIZE_NUM_THREADS`` as a number (None where it is unset or empty); a
    `ValueError` that says so for anything but a positive int (``0`` or ``-3`` do not quietly
    mean 1). The front ends check it when they build a specialization, so that a bad value
    fails on the first call, not only on the first batch large enough for threads."""
    value = os.environ.get("VECTORIZE_NUM_THREADS")
    if not value:
        return None
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise ValueError(f"VECTORIZE_NUM_THREADS must be a positive int (1 turns threads "
                         f"off), got {value!r}")
    return number


def spare_threads() -> int:
    """Threads worth timing a parallel call on now: `num_threads`, but no more than the CPUs
    that other processes leave idle (the 1-minute load average, which counts this process
    too), plus this one's: on a machine whose cores are all taken, threads only wait for them
    (measured on a loaded 2-core machine: one call on 2 threads took 10-80 times the
    single-threaded call)."""
    workers = num_threads()
    if workers > 1:
        try:
            spare = _cpus() - os.getloadavg()[0]
        except (AttributeError, OSError):    # no load average on this system
            return workers
        workers = max(1, min(workers, 1 + int(spare)))
    return workers


@functools.cache
def _cpus() -> int:
    """The CPUs this process may use (asked once: a system call costs microseconds)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:           # not on Linux
        return os.cpu_count() or 1


def may_chunk(chunk_size, size: int) -> bool:
    """Whether a batch of ``size`` lanes is large enough for two chunks."""
    return chunk_size is not None and size >= 2 * (
        AUTO_MIN_LANES if chunk_size == "auto" else chunk_size)


def lanes_per_chunk(chunk_size, size: int, args, batched, workers: int = 1) -> int | None:
    """Lanes per call for a batch of ``size`` lanes, or None for one call of the whole batch.

    ``args`` are the generated function's arguments and ``batched`` says, per argument, whether
    it carries the batch axis (axis 0); both may nest tuples alike (vmap's tuple arguments).
    ``workers``: the threads the chunks will run on (``"auto"`` then makes at least one chunk
    per thread, and a multiple of them, so that they finish together)."""
    if not may_chunk(chunk_size, size):
        return None
    arrays = list(_batched_leaves(args, batched))
    # a subclass (masked arrays, matrices) may not survive slicing and reassembly
    if not arrays or any(type(a) is not np.ndarray for a in arrays):
        return None
    if chunk_size != "auto":
        return chunk_size
    # Per-example arrays are left whole: their work is mostly contractions (einsum, matrix
    # products), which BLAS already does in cache-sized blocks and does better on more rows
    # (an MLP over 1e5 rows took 1.5x as long in chunks of 8,192).
    if any(a.ndim != 1 for a in arrays):
        return None
    most = max(AUTO_MIN_LANES, AUTO_BYTES // max(a.itemsize for a in arrays))
    count = max(-(-size // most), min(workers, size // AUTO_MIN_LANES))
    if count >= workers > 1:
        count = -(-count // workers) * workers
    return None if count == 1 else -(-size // count)


PRIME_BYTES = 1 << 23
"""Size of the block `prime_allocator` allocates and frees (8 MiB: see there)."""

_primed = False


def prime_allocator() -> None:
    """Make the C allocator keep the memory of freed chunk-sized temporaries, once per process.

    glibc's malloc serves blocks of 128 KiB and more with fresh ``mmap`` pages and trims the
    top of its heap once 256 KiB there are free; both thresholds rise to a freed ``mmap``
    block's size (and twice that) when one is freed (``man mallopt``, "dynamic mmap
    threshold"). Until a process has freed a large array, every chunk's temporaries are
    therefore fresh pages again (measured: 160 page faults per call of a piecewise function on
    16,384 lanes, 4x its time). Allocating and freeing one 8 MiB block (no page of it is
    touched) raises the thresholds to what any program that has freed an 8 MiB array already
    has. Other allocators see one allocation and nothing else."""
    global _primed
    if not _primed:
        _primed = True
        np.empty(PRIME_BYTES, np.uint8)


PRIME_MIN_BYTES = 1 << 17
"""`run` primes the allocator (`prime_allocator`) for a batch of ``2 * AUTO_MIN_LANES``
lanes or more, and for a smaller one where a batched argument has this many bytes (glibc's
first mmap threshold): per-example arrays make temporaries as large at fewer lanes (the
benchmarks' ``mlp`` on 1e4 rows: 5 MB per temporary, fresh pages on every call until an array
that large has been freed; measured with one BLAS thread, hand-written NumPy 7.5 ms of CPU
and 900 page faults a call, 4.2 ms and none once primed)."""


def _large(args, batched) -> bool:
    """Whether a batched argument of a generated function's call has `PRIME_MIN_BYTES`."""
    return any(getattr(a, "nbytes", 0) >= PRIME_MIN_BYTES
               for a in _batched_leaves(args, batched))


class Tuning:
    """What `run` learns about running one specialization, kept next to it by the front ends
    (`frontend.Entry`; the compiled code, `codegen.Generated`, is only what the transform
    made):

    - ``chunking``: batch-size class -> the fastest way (0: one whole call, else the threads
      chunks run on) once decided, else the timings of each (variant, way) so far;
    - ``build_compacted``: where the specialization has per-example ``if``s the heuristic left
      in select form that could be compacted (``switchable_ifs``), what makes the
      specialization with all of them compacted (`frontend.specialize`); None where there
      is none, and once it has been called;
    - ``compacted``: that specialization once built (False: none, or it cannot be built, or
      it was dropped);
    - ``variants``: batch-size class -> the specialization that runs for it where it is the
      compacted one;
    - ``build_cost``: the seconds building the compacted form is expected to take (what the
      specialization itself took);
    - ``spent``: batch-size class -> seconds its calls have taken so far;
    - ``steady``: batch-size class -> (the median time of the way decided, the times of
      the calls since, `RECENT` at most, where the way decided is threads the median
      time of the fastest way on the calling thread alone, else None, and the threads
      spare when the ways were timed, None where they were not) (`_watch`);
    - ``compared``: the batch-size classes whose calls have timed the compacted form;
    - ``timed``: the batch-size classes whose calls have timed the ways (chunks, threads);
    - ``untimed``: batch-size class -> the ways other than one whole call that it has not
      timed yet, which `_watch` times once the calls have paid for it (`EXPLORE_SHARE`);
    - ``persist``: where to keep what was decided (`learned`) for a later process (the disk
      cache, beside the specialization's entry: `frontend.tuning`), or None."""

    __slots__ = ("chunking", "build_compacted", "compacted", "variants", "build_cost",
                 "spent", "steady", "compared", "timed", "untimed", "persist")

    def __init__(self, build_compacted=None, build_cost: float = 0.0):
        self.chunking: dict = {}
        self.build_compacted = build_compacted
        self.compacted = None
        self.variants: dict = {}
        self.build_cost = build_cost
        self.spent: dict = {}
        self.steady: dict = {}
        self.compared: set = set()
        self.timed: set = set()
        self.untimed: dict = {}
        self.persist = None


def learned(tuning: Tuning) -> dict:
    """What `run` decided, as JSON data: per batch-size class the way (0: one call, else the
    threads chunks run on), the classes that run the compacted form, those that timed it."""
    return {"chunking": {str(b): c for b, c in tuning.chunking.items() if type(c) is int
                         and (b in tuning.timed or b in tuning.compared)},
            "compacted": sorted(tuning.variants), "compared": sorted(tuning.compared),
            "timed": sorted(tuning.timed)}


def restore(tuning: Tuning, data) -> None:
    """Start ``tuning`` with what `learned` kept (from an earlier process); anything
    malformed is ignored. The calls are still watched (`_watch`): a way that has become
    slower here (another load, another machine) is timed again."""
    if not isinstance(data, dict):
        return
    ways = data.get("chunking")
    timed = data.get("timed")
    if isinstance(ways, dict):
        for bucket, way in ways.items():
            if type(way) is int and 0 <= way <= MAX_THREADS and bucket.isdigit():
                tuning.chunking[int(bucket)] = way
                # (what an earlier version kept was decided by timing every way)
                if not isinstance(timed, list) or int(bucket) in timed:
                    tuning.timed.add(int(bucket))
                else:       # (decided between the forms only: the ways are still to time)
                    tuning.untimed[int(bucket)] = 2
    for field in ("compared", "compacted"):
        if not isinstance(data.get(field), list):
            return
    tuning.compared.update(b for b in data["compared"] if type(b) is int)
    if _has_compacted(tuning):
        for bucket in data["compacted"]:
            if type(bucket) is int and bucket in tuning.chunking:
                tuning.variants[bucket] = RESTORED     # built on its first call (`_variant`)


RESTORED = True
"""In ``Tuning.variants``: the compacted form, restored from an earlier process, not yet
built (a front end that never calls that size never builds it)."""


def _variant(tuning: Tuning, bucket: int, spec):
    """The specialization that runs for a decided batch-size class."""
    chosen = tuning.variants.get(bucket, spec)
    if chosen is RESTORED:
        chosen = compacted(tuning) or spec
        if chosen is spec:
            tuning.variants.pop(bucket, None)
        else:
            tuning.variants[bucket] = chosen
    return chosen


TRIALS = 3
"""With ``chunk_size="auto"``: calls timed each way (one whole call, chunks on one thread,
chunks on `num_threads`) per specialization and batch-size class before the fastest (by the
median: threads have lucky calls, when no other process wants the cores) is kept."""

EXPLORE_SHARE = 0.1
"""Trying the compacted form costs building it (a transform: milliseconds, more than many
calls take): it is built and timed only once the calls of a batch-size class have taken
``build_cost / EXPLORE_SHARE``, so that what the exploration costs stays a tenth of what was
spent on the calls it may speed up (0: from the first call). Timing the other ways (chunks,
threads: `TRIALS` calls each, any of which may take longer than one whole call) is budgeted
alike: the first calls of a batch-size class are whole calls, and the ways are timed once
the calls have taken ``ways * TRIALS * (one call) / EXPLORE_SHARE``."""

WHOLE_CALL_BYTES = 1 << 22
"""Before the ways are timed (`EXPLORE_SHARE`), a batch whose widest batched argument has
fewer bytes than this runs as one whole call, a larger one in chunks on the calling thread:
the whole call's temporaries then no longer fit the CPU's caches (measured on 2 cores: the
seed `if` at 1e5 float64 lanes, 0.8 MB per array, 1.7 ns per lane in one call and 2.2 in
chunks; `piecewise` at 1e6, 8 MB, 24.7 and 11.3)."""

DRIFT = 1.5
"""Once a way is decided, the calls are still timed (a clock read costs well under a
microsecond; these calls take tens at least): where their median drifts this factor
away from the decided median (another process took the cores, or left them), the ways are
timed again, so that threads back off under load and come back after it (calls that became
faster are timed again only where more threads are spare than when the ways were timed)."""


def run(spec, tuning: Tuning, args, batched, size: int, chunk_size, call):
    """``call(spec.function, args)``: the outputs for the whole batch, computed in chunks where
    `lanes_per_chunk` says so, on `num_threads` threads where the specialization may run on
    several (``spec.parallel``); what it learns is kept in ``tuning``.

    With ``chunk_size="auto"`` neither chunks nor threads are always faster: a whole-batch
    call whose temporaries the allocator keeps (no fresh pages) beats chunks of a function of
    many NumPy calls, as each chunk pays every call's fixed cost again, and threads gain only
    where each NumPy call has enough work to cover handing the GIL over, and only while no
    other process wants the cores. So the calls of each batch-size class (a power of two) of a
    specialization take turns between the ways (0: one whole call first, the cheapest to
    try, then chunks on one thread, then on `num_threads`) and are timed, and the fastest
    (median) is kept (``tuning.chunking``); the results are the same either way. The first
    calls of a class are whole calls: the other ways are timed once the calls have taken
    long enough for their trials to cost a tenth of it (`EXPLORE_SHARE`), so that a first
    `%timeit` never pays for threads tried on a loaded machine.
    Later calls are timed too, and the ways timed again where they drift (`DRIFT`). Where
    the specialization has per-example ``if``s the heuristic left in select form that could
    be compacted (``spec.switchable_ifs``), the specialization with them compacted is built
    and timed against it once the class has run long enough for that to be cheap
    (`EXPLORE_SHARE`), and the faster of the two kept for that class
    (``tuning.variants``): which one is faster depends on the data (`np.where` over a mask in
    random order is several times slower than over a sorted one), which only a measurement
    sees. An explicit chunk size is always used, on all the threads there are."""
    if not _primed and (size >= 2 * AUTO_MIN_LANES or _large(args, batched)):
        prime_allocator()       # one whole call's temporaries gain as much
    if not may_chunk(chunk_size, size) or getattr(spec, "settles_kinds", False):
        # (the common case, decided without a syscall; a result's type that the whole
        # batch's lanes decide, `Generated.settles_kinds`, is never computed in chunks)
        return call(spec.function, args)
    if chunk_size != "auto":
        workers = num_threads() if spec.parallel else 1
        return _run_way(spec, args, batched, size, chunk_size, call, workers)
    bucket = size.bit_length()
    # the way once decided, else the timings of each (variant, way) so far
    choice = tuning.chunking.get(bucket)
    if type(choice) is int:
        chosen = _variant(tuning, bucket, spec) if tuning.variants else spec
        # (one whole call asks no thread setting: `num_threads` reads the environment)
        way = min(choice, num_threads() if chosen.parallel else 1) if choice else 0
        start = time.perf_counter()
        if chosen is spec:
            out = _run_way(spec, args, batched, size, chunk_size, call, way)
        else:
            try:
                out = _run_way(chosen, args, batched, size, chunk_size, call, way)
            except Exception:       # noqa: BLE001 -- the select form decides (`_raised`)
                return _raised(spec, tuning, args, call)
        _watch(tuning, bucket, time.perf_counter() - start)
        return out
    if choice is None:
        choice = tuning.chunking[bucket] = _candidates(spec, tuning, args, batched, size,
                                                       chunk_size)
        if type(choice) is int:     # one way (`_candidates`: until the others are timed)
            start = time.perf_counter()
            out = _run_way(spec, args, batched, size, chunk_size, call, choice)
            _watch(tuning, bucket, time.perf_counter() - start)
            return out
    key = min(choice, key=lambda c: len(choice[c]))
    variant, way = key
    chosen = compacted(tuning) if variant else spec      # built on its first turn
    out = None
    if chosen:
        if way > 1 and not chosen.parallel:
            way = 1
        start = time.perf_counter()
        try:
            out = _run_way(chosen, args, batched, size, chunk_size, call, way,
                           fall_back=False)
        except Exception:           # noqa: BLE001 -- the select form decides (`_raised`)
            if not variant:
                raise
            return _raised(spec, tuning, args, call)
        elapsed = time.perf_counter() - start
    first = variant and not any(choice[c] for c in choice if c[0])
    if variant and (out is None or first and not _same_outputs(out, call(spec.function, args))):
        # it cannot be built, or (never expected: both forms give the same values) differs:
        # the select form from now on
        _drop_compacted(tuning)
        return call(spec.function, args)
    if out is None:   # the chunks disagree: one call, and from now on only that
        tuning.chunking[bucket] = 0
        return call(spec.function, args)
    choice[key].append(elapsed)
    tuning.spent[bucket] = tuning.spent.get(bucket, 0.0) + elapsed
    medians = {c: _median(times) for c, times in choice.items() if times}
    fastest = min(medians.values())
    if any(m > PRUNE * fastest for m in medians.values()):
        # a way this much slower than another cannot win: timing it again would only cost
        # (threads on a loaded machine: ten times one call; one whole call of the piecewise
        # at 1e6 on a loaded machine, three to nine times chunks); a new dict, as above
        choice = tuning.chunking[bucket] = {c: times for c, times in choice.items()
                                            if medians.get(c, 0.0) <= PRUNE * fastest}
    if all(len(times) >= TRIALS for times in choice.values()):
        best_variant, best_way = min(choice, key=lambda c: _median(choice[c]))
        if best_variant and compacted(tuning):    # (another thread may have dropped it)
            tuning.variants[bucket] = compacted(tuning)
        else:
            tuning.variants.pop(bucket, None)
        alone = [_median(times) for (_, way), times in choice.items() if way <= 1 and times]
        tuning.steady[bucket] = (_median(choice[best_variant, best_way]), [],
                                 min(alone) if best_way > 1 and alone else None,
                                 spare_threads() if spec.parallel else MAX_THREADS)
        tuning.chunking[bucket] = best_way
        if tuning.persist is not None:
            try:
                tuning.persist(learned(tuning))
            except Exception:   # noqa: BLE001, S110 -- keeping it is optional
                pass
    return out


def _watch(tuning: Tuning, bucket: int, elapsed: float) -> None:
    """After a call of a decided batch-size class: time the compacted form once the class has
    run long enough (`EXPLORE_SHARE`), and the ways again where the calls drift away from
    the decided time (`DRIFT`: the median of the last `RECENT` calls, so that one slow call
    is not a drift) or, where threads were decided, take `LOSE` times what the calling
    thread alone took then (threads that won by a little lose under a load that slows them
    less than `DRIFT`: they back off)."""
    tuning.spent[bucket] = tuning.spent.get(bucket, 0.0) + elapsed
    steady = tuning.steady.get(bucket)
    if steady is None:
        steady = tuning.steady[bucket] = (elapsed, [], None, None)
    recent = steady[1]
    recent.append(elapsed)
    drift = False
    if len(recent) >= RECENT:
        now = _median(recent)
        # (or threads now lose: their calls take `LOSE` times what the calling thread alone
        # took when they were timed, though less than `DRIFT` times their own time then)
        drift = not steady[0] / DRIFT <= now <= steady[0] * DRIFT or \
            steady[2] is not None and now > steady[2] * LOSE
        if drift and now < steady[0] and steady[3] is not None and \
                spare_threads() <= steady[3]:
            # faster calls, and no more threads spare than when the ways were timed (the
            # load that slowed every way left, or came and went): no way is new to time,
            # and timing them again would cost the trials of the slower ones; the calls'
            # time is the decided one from now on (a later slowdown drifts from it)
            drift = False
            tuning.steady[bucket] = (now, recent, steady[2], steady[3])
        recent.clear()
    ways = bucket in tuning.untimed and _ways_affordable(tuning, bucket,
                                                         tuning.untimed[bucket])
    if ways:        # the next call times the other ways too (`_candidates`)
        tuning.timed.add(bucket)
        tuning.untimed.pop(bucket, None)
    explore = ways or (bucket not in tuning.compared and _has_compacted(tuning)
                       and _affordable(tuning, bucket))
    if explore or drift:
        # the next call makes the candidates again (`_candidates`: the compacted form among
        # them once affordable, threads as the load allows) and times them
        tuning.steady.pop(bucket, None)
        tuning.chunking.pop(bucket, None)


LOSE = 1.1
"""Where threads were decided for a batch-size class, the ways are timed again once the median
of `RECENT` calls is this factor above the time of the fastest way on the calling thread
alone when they were timed (`_watch`): they lose to it (the margin: threads that won by a
little and vary from call to call are not timed again on every few calls)."""


PRUNE = 2.0
"""While the ways are timed, one whose median is this factor above another's is not timed
again (one whole call too)."""


def settled(tuning: Tuning, size: int) -> bool:
    """Whether the calls on ``size`` lanes have decided how to run (no way, no form is being
    timed) and will time nothing more unless they drift (`DRIFT`): nothing is left to time
    once the calls pay for it (the other ways, `Tuning.untimed`; the compacted form)."""
    if not may_chunk("auto", size):
        return True             # (one call: nothing to time)
    bucket = size.bit_length()
    return type(tuning.chunking.get(bucket)) is int and bucket not in tuning.untimed and (
        bucket in tuning.compared or not _has_compacted(tuning))


def _ways_affordable(tuning: Tuning, bucket: int, count: int) -> bool:
    """Whether the calls of a batch-size class have taken long enough for timing ``count``
    other ways (`TRIALS` calls each, about one call's time each: the decided median) to be
    cheap next to them (`EXPLORE_SHARE`)."""
    if not EXPLORE_SHARE:
        return True
    steady = tuning.steady.get(bucket)
    return steady is not None and tuning.spent.get(bucket, 0.0) * EXPLORE_SHARE >= \
        count * TRIALS * steady[0]


def _affordable(tuning: Tuning, bucket: int) -> bool:
    """Whether the calls of a batch-size class have taken long enough for building the
    compacted form to be cheap next to them (`EXPLORE_SHARE`)."""
    return not EXPLORE_SHARE or tuning.spent.get(bucket, 0.0) * EXPLORE_SHARE >= \
        tuning.build_cost


RECENT = 8
"""Calls of a decided batch-size class whose median `_watch` compares with the decided time."""


def _raised(spec, tuning, args, call):
    """The compacted form raised: the select form's outcome is the call's. Where the select
    form raises too, so does the call (the compacted form stays: it raised what the select
    form raises); where it does not, the compacted form is dropped for good (never expected:
    the compacted form is built only where it is valid, `compact_ifs`)."""
    out = call(spec.function, args)
    _drop_compacted(tuning)
    return out


def _drop_compacted(tuning) -> None:
    """The select form from now on, for every batch size (new dicts: other threads may be
    reading the old ones)."""
    tuning.compacted = False
    tuning.variants = {}
    for bucket, choice in list(tuning.chunking.items()):
        if type(choice) is dict:
            tuning.chunking[bucket] = {c: times for c, times in choice.items() if not c[0]}


def _candidates(spec, tuning, args, batched, size: int, chunk_size):
    """``{(variant, way): []}`` to time (variant 0: ``spec``, 1: `compacted`; way 0: one
    call, else chunks on that many threads), in the order they are tried: one whole call
    first (no thread pool, no chunk machinery: the cheapest to try), most threads last; the
    way itself where there is only one. The compacted form is a candidate only once building it is
    cheap next to the calls (`EXPLORE_SHARE`; `_watch` adds it later)."""
    workers = spare_threads() if spec.parallel else 1
    bucket = size.bit_length()
    others = [way for way in sorted({1, workers})
              if lanes_per_chunk(chunk_size, size, args, batched, way) is not None]
    ways = [0]
    if others and bucket not in tuning.timed:
        # never on the first calls of a class (a trial of threads on a loaded machine can
        # take many times one call): they run one way until timing the others is cheap
        # next to what they took (`_ways_affordable`; `_watch` asks again)
        if _ways_affordable(tuning, bucket, len(others)):
            tuning.timed.add(bucket)
            tuning.untimed.pop(bucket, None)
        else:
            tuning.untimed[bucket] = len(others)
            # until then, the way the arrays' size says (`WHOLE_CALL_BYTES`)
            widest = max(a.nbytes for a in _batched_leaves(args, batched))
            ways = [1 if 1 in others and widest >= WHOLE_CALL_BYTES else 0]
            others = []
    ways += others
    # the compacted form is built when its turn comes (a single large call never pays for
    # it), and runs the same ways (its code reads the same globals: `codegen.parallel_safe`)
    variants = (0, 1) if _has_compacted(tuning) and _affordable(tuning, size.bit_length()) \
        else (0,)
    if len(variants) > 1:
        tuning.compared.add(size.bit_length())
    candidates = [(variant, way) for variant in variants for way in ways]
    return {c: [] for c in candidates} if len(candidates) > 1 else ways[0]


def compacted(tuning):
    """The specialization with every compactable per-example ``if`` compacted, built on first
    use (``tuning.build_compacted``), or False where there is none or it cannot be built."""
    if tuning.compacted is None:
        if tuning.build_compacted is None:
            tuning.compacted = False
        else:
            try:
                tuning.compacted = tuning.build_compacted()
            except Exception:       # the select form stays: it is the reference
                tuning.compacted = False
            tuning.build_compacted = None     # (it holds the abstract arguments)
    return tuning.compacted


def _has_compacted(tuning) -> bool:
    """Whether there is a compacted form, built or still to build."""
    if tuning.compacted is not None:
        return bool(tuning.compacted)
    return tuning.build_compacted is not None


def source_for(spec, tuning, size: int, chunk_size) -> str:
    """The source of what the next call on ``size`` lanes runs: ``spec``'s, or its compacted
    form's where `run` chose that one or times it next; a line under the header says so
    (and, for the select form, that it is being timed against the compacted one).
    ``tuning``: `run`'s (None for a per-example fallback)."""
    chosen, note = spec, ""
    if chunk_size == "auto" and may_chunk(chunk_size, size) and tuning is not None and \
            not getattr(spec, "settles_kinds", False):
        bucket = size.bit_length()
        choice = tuning.chunking.get(bucket)
        if type(choice) is int:
            chosen = _variant(tuning, bucket, spec)
            note = CHOSEN_NOTE if chosen is not spec else ""
        else:
            if choice is None:      # the first call makes the candidates; it times select
                timed = _has_compacted(tuning)
                variant = 0
            else:
                timed = any(c[0] for c in choice)
                variant = min(choice, key=lambda c: len(choice[c]))[0]
            if variant:             # (where it cannot be built, the call runs select)
                chosen = compacted(tuning) or spec
                timed = chosen is not spec
            note = TIMED_NOTE if timed else ""
    if not note:
        return chosen.source
    lines = chosen.source.split("\n")
    at = next((k for k, line in enumerate(lines) if not line.startswith("#")), 0)
    return "\n".join(lines[:at] + [f"# {line}" for line in note.split("\n")] + lines[at:])


CHOSEN_NOTE = ("It runs for batches of this size: it was timed faster than the form that "
               "merges both branches.")
TIMED_NOTE = ("Batches of this size are being timed: their calls alternate between the form "
              "that\nmerges both branches and the one that compacts the per-example `if`s, "
              "and the faster is kept;\nthe next call runs this one.")


def _same_outputs(a, b) -> bool:
    """Whether two results are the same: dtypes, shapes and values (NaN equal to NaN)."""
    if isinstance(a, tuple) or isinstance(b, tuple):
        return isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b) and all(
            _same_outputs(x, y) for x, y in zip(a, b))
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(
        a, b, equal_nan=a.dtype.kind in "fc")


def _median(times: list[float]) -> float:
    """The median (the upper one of an even count; `statistics` would cost milliseconds of
    import)."""
    return sorted(times)[len(times) // 2]


def _run_way(spec, args, batched, size, chunk_size, call, way: int, fall_back=True):
    """One whole call (``way`` 0) or chunks on ``way`` threads; where the chunks disagree,
    one whole call (``fall_back``) or None."""
    lanes = lanes_per_chunk(chunk_size, size, args, batched, way) if way else None
    if lanes is None:
        return call(spec.function, args)
    out = run_chunked(spec.function, args, batched, size, lanes, spec.result, call, way)
    if out is None and fall_back:
        return call(spec.function, args)
    return out


def run_chunked(function, args, batched, size: int, lanes: int, result, call,
                workers: int = 1):
    """``call(function, args)`` computed ``lanes`` lanes at a time (on ``workers`` threads),
    or None when the chunks do not agree on the dtype or shape of an output (the caller then
    makes one call).

    ``result`` is the abstract value of what the function returns: a batched output piece is
    written into its slice of an output allocated by the first chunk to finish (a piece
    without the batch axis, a path that returned an unbatched value, is broadcast over the
    slice); an unbatched output is that chunk's."""
    items = result.items if isinstance(result, TupleValue) else (result,)
    if not all(isinstance(item, Value) for item in items):
        return None
    outs = []
    allocating = threading.Lock()

    def chunk(start: int) -> bool:
        stop = min(start + lanes, size)
        pieces = call(function, _sliced(args, batched, start, stop))
        if isinstance(result, TupleValue):
            pieces = tuple(pieces)
            if len(pieces) != len(items):
                return False
        else:
            pieces = (pieces,)
        with allocating:        # the first chunk to finish allocates the outputs, all of
            if not outs:        # them before another chunk can see any
                outs.extend([_allocate(piece, item, size)
                             for piece, item in zip(pieces, items)])
        for out, piece, item in zip(outs, pieces, items):
            if not item.batched:
                continue
            arr = np.asarray(piece)
            core = out.shape[1:]
            if arr.dtype != out.dtype or arr.shape not in (core, (stop - start,) + core):
                return False
            out[start:stop] = arr
        return True

    if not each_item(chunk, range(0, size, lanes), workers):
        return None
    return tuple(outs) if isinstance(result, TupleValue) else outs[0]


_local = threading.local()      # .busy: this thread is running chunks of a parallel call


@contextlib.contextmanager
def single_threaded():
    """Calls made inside run their chunks on the calling thread only (`num_threads` is 1), as
    inside a chunk of ours: for callers that already run one task per thread (Dask)."""
    previous = getattr(_local, "busy", False)
    _local.busy = True
    try:
        yield
    finally:
        _local.busy = previous
_pool_lock = threading.Lock()
_pool = None                    # (pid, threads, executor)


def _executor(threads: int):
    """The process' pool of at least ``threads`` threads (a new one in a forked child, whose
    copy of the parent's pool has no threads)."""
    global _pool
    with _pool_lock:
        if _pool is None or _pool[0] != os.getpid() or _pool[1] < threads:
            from concurrent.futures import ThreadPoolExecutor
            if _pool is not None and _pool[0] == os.getpid():
                _pool[2].shutdown(wait=False)
            _pool = (os.getpid(), threads, ThreadPoolExecutor(
                threads, thread_name_prefix="vectorize-chunks"))
        return _pool[2]


def each_item(task, items, workers: int) -> bool:
    """``task(item)`` for every item, on the calling thread and up to ``workers - 1`` threads
    of the pool, until one returns False (then False). An exception in any of them is raised
    here once every thread has stopped (the items before it, taken earlier, have all run:
    of several, the one of the first item, as when they run one by one: a `raise` some
    examples reach gives the first such example's message); the caller's floating-point
    error settings (``np.errstate``) and context variables hold on the pool's threads too."""
    if workers <= 1 or len(items) < 2:
        return all(task(item) for item in items)
    todo = iter(items)
    lock = threading.Lock()
    stop = []               # why to stop: False (a task said so) or an exception
    done = []

    def work():
        while not stop and not done:
            with lock:
                item = next(todo, todo)
            if item is todo:
                return
            try:
                if not task(item):
                    stop.append(False)
            except BaseException as exc:   # noqa: BLE001 -- raised again on the caller
                stop.append((item, exc))

    errors, handler = np.geterr(), np.geterrcall()

    def on_pool():
        _local.busy = True
        try:
            with np.errstate(call=handler, **errors):
                work()
        finally:
            _local.busy = False

    import contextvars
    from concurrent.futures import wait

    pool = _executor(workers - 1)
    helpers = [pool.submit(contextvars.copy_context().run, on_pool)
               for _ in range(min(workers, len(items)) - 1)]
    _local.busy = True      # a call nested in a chunk on this thread runs on it alone
    try:
        work()
    finally:
        _local.busy = False
        done.append(True)
        for helper in helpers:      # not started yet (the pool busy with other calls): never
            helper.cancel()
        wait(helpers)
    raised = [reason for reason in stop if reason is not False]
    if raised:
        raise min(raised, key=lambda reason: reason[0])[1]
    return not stop


def _allocate(piece, item, size: int):
    """The whole-batch output of a batched item (the piece as it stands for an unbatched
    one)."""
    if not item.batched:
        return piece
    arr = np.asarray(piece)
    core = arr.shape[1:] if arr.ndim > item.rank else arr.shape
    return np.empty((size,) + core, arr.dtype)


def _batched_leaves(args, batched):
    for arg, flag in zip(args, batched):
        if isinstance(flag, tuple):
            yield from _batched_leaves(arg, flag)
        elif flag:
            yield arg


def _sliced(args, batched, start: int, stop: int):
    out = []
    for arg, flag in zip(args, batched):
        if isinstance(flag, tuple):
            out.append(tuple(_sliced(arg, flag, start, stop)))
        else:
            out.append(arg[start:stop] if flag else arg)
    return out
