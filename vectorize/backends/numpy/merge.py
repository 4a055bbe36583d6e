"""Per-example merges of generated NumPy code (``from vectorize.backends.numpy import merge``).

``merge.blend(cond, a, b)`` is ``np.where(cond, a, b)`` (the same values, bit for bit, and the
same dtype), what the generated code writes for the merge of an ``if`` whose two sides are
per-example numbers of one dtype (the rule ``operator.conditional_expression``).

Why not ``np.where`` itself: its loop branches on every lane, and where the mask changes
from lane to lane in no order the CPU mispredicts about one branch in two (measured on the
2-core machine of docs/performance.md: ``np.where`` on a random mask took 3 to 5 ns per
float64 lane, on a sorted one 0.6 to 1). ``blend`` then computes the merge without a branch,
on the bits of the values as integers of their width, ``b + (a - b) * cond`` (wrapping
integer arithmetic: exactly ``a``'s bits where ``cond`` holds and ``b``'s elsewhere, so
NaN payloads, ``-0.0`` and infinities come through as they are): three passes that take
the same time whatever the mask (0.4x ``np.where`` on random masks of 1e5 float64 lanes,
1.3-1.6x on sorted ones). So it does so only where the mask's lanes are in no order: a
sample of them (`SAMPLE` lanes) changes value at more than `MIXED` of its steps; on small
batches (`MIN_LANES`), where the CPU also learns a mask it sees again and again, and
wherever its operands are not one-dtype contiguous arrays of the mask's shape, it is
``np.where``.

The sample is taken once per place in the generated code that merges (its code object and
bytecode offset: one ``if`` of one specialization), not on every call (a sample costs
microseconds, up to a tenth of a merge of a sorted mask of 1e5 lanes), and taken again only
where the choice may be losing: where ``np.where`` was chosen, when a call's time per lane
grows past `LOSING` times the best seen there (the masks became mixed); where the
branch-free form was chosen, whose time does not depend on the mask, every `RESAMPLE`
calls. Either way the values are the same; only the time differs.
"""

from __future__ import annotations

import operator
import sys
import time

import numpy as np

MIN_LANES = 16384
"""Batches smaller than this are merged by ``np.where`` (its fixed cost is then a good part
of the call, and a branch predictor learns a mask of 1e4 lanes it is shown on every call)."""

SAMPLE = 1024
"""Lanes of the mask whose changes `blend` counts (from its start)."""

MIXED = 0.15
"""`blend` computes without branches where more than this share of the sample's steps
change value (measured break-even: about 0.06 on 2e5 float64 lanes)."""

_INTS = {1: np.int8, 2: np.int16, 4: np.int32, 8: np.int64}
"""The integer type of each width whose wrapping arithmetic `blend` does on the bits."""


RESAMPLE = 32
"""Calls of a place that merges without branches between two samples of its masks."""

LOSING = 2.5
"""A place that merges by ``np.where`` samples its masks again when a call takes more than
this times the best time per lane seen there (``np.where`` over a mask in no order takes 3
to 5 times as long as over an ordered one)."""

MAX_PLACES = 4096
"""The places whose choice is kept (all of them are forgotten past this many)."""

_places: dict = {}
"""(code object, bytecode offset) of a place that calls `blend` -> `_Place`."""


class _Place:
    """What `blend` decided for one place that calls it: ``mixed`` (merge without branches),
    the calls before the next sample (``left``), the best seconds per lane of its
    ``np.where`` calls (``best``)."""

    __slots__ = ("mixed", "left", "best")

    def __init__(self, mixed: bool):
        self.mixed, self.left, self.best = mixed, RESAMPLE, float("inf")


def blend(cond, a, b):
    """``np.where(cond, a, b)``: ``a`` on the lanes where ``cond`` holds, else ``b`` (a new
    array, as ``np.where`` gives: never one of the arguments). Without branches (see the
    module) where ``cond`` is a contiguous boolean mask of at least `MIN_LANES` lanes in no
    order, and ``a`` and ``b`` contiguous arrays of its shape and of one numeric dtype of 1
    to 8 bytes, or one of them such an array and the other a number that ``np.where``
    keeps in the array's dtype exactly (a Python float beside float64, a Python int in
    range beside ints, a NumPy scalar of that dtype)."""
    if type(cond) is _NDARRAY:
        if cond.size >= MIN_LANES:
            dtype = _dtype(cond, a, b)
            if dtype is not None:
                caller = sys._getframe(1)
                key = (caller.f_code, caller.f_lasti)
                place = _places.get(key)
                if place is None or place.left <= 0:
                    if len(_places) >= MAX_PLACES:
                        _places.clear()
                    place = _places[key] = _Place(_mixed(cond))
                if place.mixed:
                    place.left -= 1
                    return _branch_free(cond, a, b, dtype)
                start = _clock()
                out = _plain_where(cond, a, b)
                per_lane = (_clock() - start) / cond.size
                if per_lane > LOSING * place.best:
                    place.left = 0          # the next call samples the mask again
                elif per_lane < place.best:
                    place.best = per_lane
                return out
        if type(a) in _PLAIN and type(b) in _PLAIN:
            return _plain_where(cond, a, b)
    return _where(cond, a, b)


def _branch_free(cond, a, b, dtype):
    """``np.where(cond, a, b)`` computed on the bits, ``b + (a - b) * cond`` in wrapping
    integers of the width of ``dtype`` (`_dtype`'s): the same bits, whatever the mask."""
    ints = _INTS[dtype.itemsize]
    low = _bits(b, dtype, ints)
    out = np.subtract(_bits(a, dtype, ints), low)
    np.multiply(out, cond, out=out)
    np.add(out, low, out=out)
    return out.view(dtype)


LOOP_MIN_LANES = 16384
"""Lanes from which `blend_pass` samples the mask (below, ``np.where``). Measured on the
2-core machine of docs/performance.md, float64, a new random mask on every call (a loop's
mask changes from pass to pass: the CPU cannot learn it, as it learns one mask shown again and
again): on 13,070 lanes 70% true ``np.where`` 33 µs, ``blend_pass`` (its checks and sample
included, branch-free) 17; 90% true, 17 against 16; 99% true (the sample keeps
``np.where``) 9 against 12; on 36,744 lanes 70% true 115 against 51. On 8,000 lanes the
check and sample (about 3.5 µs) lose on masks 90% true or more (11 µs against 12, 6 against
9) and win on 70% (20 against 12)."""


def blend_pass(cond, a, b):
    """``np.where(cond, a, b)`` (the same bits and dtype, a new array) for the merge of a
    carry in a pass of a compacted loop (``x_lanes = merge.blend_pass(active_lanes, x_new,
    x_lanes) if idle else x_new``, `passes.compact`). Its mask changes from pass to pass (every
    lane runs after a compaction; then lanes finish, in the order of the data, until the next
    one), which a choice kept per place (`blend`) cannot follow: so on `LOOP_MIN_LANES` lanes
    or more it samples the mask on every call (`_mixed`: a few microseconds, against a merge
    of tens of them) and merges without branches where its lanes are in no order; where they
    are in order and at most one in `FEW_FALSE` is false, a copy of ``a`` patched on those
    lanes (`_patched`); else, and wherever `blend` would not take the branch-free path for its
    operands, ``np.where``."""
    if type(cond) is _NDARRAY and cond.size >= LOOP_MIN_LANES:
        dtype = _dtype(cond, a, b)
        if dtype is not None:
            if _mixed(cond):
                return _branch_free(cond, a, b, dtype)
            if type(a) is _NDARRAY and \
                    (cond.size - _count_nonzero(cond)) * FEW_FALSE <= cond.size:
                return _patched(cond, a, b)
    if type(a) in _PLAIN and type(b) in _PLAIN:
        return _plain_where(cond, a, b)
    return _where(cond, a, b)


FEW_FALSE = 128
"""`blend_pass` copies ``a`` and writes ``b`` into the lanes where ``cond`` is false
(`_patched`) where at most one lane in this many is false and ``a`` is an array (the passes
of a loop just after its first lanes finished). Measured on the 2-core machine of
docs/performance.md, float64, a new mask on every call: on 1e5 lanes with 1 false lane,
``np.where`` 58 µs, the patch 32; 625 false, 105 against 45; 2,000 false, 78 against 76;
5,000 false, 95 against 117; on 16,384 lanes with 102 false, 10.6 against 7.4."""


COUNTED_BELOW = 2048
"""`all_lanes` counts the nonzero lanes (``np.count_nonzero``, a C call) of an array with
fewer lanes than this, and asks ``x.all()`` (a reduction, about 0.8 µs more to call, faster
per lane on floats) of larger ones. Measured on the 2-core machine of docs/performance.md:
234 float64 lanes, 1.14 µs against 0.34; 2,048: 1.59 against 1.25; 4,096: 1.95 against
2.22 (ints and truths count faster still)."""


def all_lanes(x) -> bool:
    """``x.all()``: no lane of the array (or NumPy number) ``x`` is 0 (nor -0.0; NaN is not
    0): the zero-divisor check of generated code (``not merge.all_lanes(d) and ...``,
    `Backend.zero_lane`), asked of every lane in one pass, false on most calls. On small
    arrays, the passes of a compacted loop after its compactions, it is
    ``np.count_nonzero(x) == x.size`` (`COUNTED_BELOW`), the same truth."""
    size = x.size
    if size < COUNTED_BELOW:
        return _count_nonzero(x) == size
    return x.all()


def _patched(cond, a, b):
    """``np.where(cond, a, b)`` for a mask with few false lanes: a copy of the array ``a``
    (its bits) with ``b``'s bits (an array of its dtype, or a number `_dtype` took) written
    into the false lanes."""
    out = a.copy()
    lanes = _flatnonzero(~cond)
    out[lanes] = b[lanes] if type(b) is _NDARRAY else b
    return out


_count_nonzero = np.count_nonzero
_flatnonzero = np.flatnonzero
_clock = time.perf_counter


_where = np.where       # (globals: the small batches' path is a few lookups shorter)
_NDARRAY = np.ndarray

_plain_where = getattr(np.where, "_implementation", np.where)
"""``np.where`` without its ``__array_function__`` dispatch (NEP 18), for operands that
define no override (`_PLAIN`), where it is the same function: the dispatch calls a Python
function to list the arguments on every call, 0.2 µs (a fortieth of a merge of 1e4 lanes
whose mask the CPU has learned, a tenth of one of 1e3)."""

_PLAIN = frozenset({np.ndarray, bool, int, float, complex, *np.sctypeDict.values()})
"""The types of operands `blend` hands to `_plain_where`: NumPy's arrays and scalars and
Python's numbers, none of which overrides ``__array_function__``."""


def _dtype(cond, a, b):
    """The dtype of the merge where `blend` computes it on the bits (the checks only, no
    array made: most calls that get here merge by ``np.where`` after all), else None."""
    if cond.dtype != np.bool_ or not cond.flags.c_contiguous:
        return None
    dtype = a.dtype if type(a) is np.ndarray else b.dtype if type(b) is np.ndarray else None
    if dtype is None or dtype.kind not in "biuf" or not dtype.isnative or \
            dtype.itemsize not in _INTS:
        return None
    for x in (a, b):
        kind = type(x)
        if kind is np.ndarray:
            if x.dtype != dtype or x.shape != cond.shape or not x.flags.c_contiguous:
                return None
        elif not (kind is float and dtype == np.float64 or isinstance(x, np.generic) and
                  x.dtype == dtype or kind is int and dtype.kind in "iu" and
                  np.iinfo(dtype).min <= x <= np.iinfo(dtype).max):
            return None
    return dtype


def _bits(x, dtype, ints):
    """``x`` (an array of ``dtype``, or a number `_dtype` took) as integers of its width: a
    view, or a 0-d array."""
    if type(x) is not np.ndarray:
        x = np.asarray(x, dtype)
    return x.view(ints)


def _mixed(cond) -> bool:
    """Whether the first `SAMPLE` lanes of ``cond`` change value at more than `MIXED` of
    their steps."""
    sample = cond.reshape(-1)[:SAMPLE]
    return np.count_nonzero(sample[1:] != sample[:-1]) > MIXED * (len(sample) - 1)


# ------------------------------------------- a step of arithmetic in the array it updates
_STEPS = {"+": (np.add, operator.add), "-": (np.subtract, operator.sub),
          "*": (np.multiply, operator.mul), "/": (np.true_divide, operator.truediv)}
"""``update`` 's operators: the ufunc that computes it in place, the operator itself."""


def update(a, op, b):
    """``a <op> b`` (``op``: ``+ - * /``) where ``a`` is a new array the generated code
    has just made and nothing else holds (`passes.temporaries`): computed in ``a``
    (``np.add(a, b, out=a)``: the same values) where the result has ``a``'s shape and dtype
    (a float or complex ``a``; ``b`` an array of its dtype whose shape broadcasts into
    ``a``'s, or a Python float or int, which NumPy computes with in ``a``'s dtype), else
    the operator itself (a new array, as the code without this step gives). Per-example
    arrays' shapes are not part of a specialization, so this is checked on each call
    (a microsecond, against a pass over the array)."""
    ufunc, plain = _STEPS[op]
    if type(a) is _NDARRAY and a.dtype.kind in "fc" and _fits(a, b):
        return ufunc(a, b, out=a)
    return plain(a, b)


def _fits(a, b) -> bool:
    """``a <op> b`` has ``a``'s shape and dtype (`update`)."""
    kind = type(b)
    if kind is float or kind is int:
        return True
    if kind is not _NDARRAY or b.dtype != a.dtype or b.ndim > a.ndim:
        return False
    return all(n == m or n == 1 for m, n in zip(a.shape[a.ndim - b.ndim:], b.shape))


# ------------------------------------------------------------ max / min against a number
ROW = 65536
"""Lanes of the row of a number that `maximum` and `minimum` compare a batch with, a
stretch at a time: 512 KiB of float64, which stay in the second-level cache however long
the batch."""

MAX_ROWS = 32
"""The rows kept (all of them are forgotten past this many: 16 MiB of float64 rows at most;
the generated code compares with number literals of the source only)."""

_rows: dict = {}
"""(type, repr, dtype) of a number -> a read-only `ROW`-lane array of it in that dtype
(``repr``: ``0.0`` and ``-0.0`` are equal keys otherwise)."""


def maximum(c, a, out=None):
    """``np.maximum(c, a)`` (with ``out``: ``np.maximum(c, a, out=out)``) of a number ``c``
    and an array ``a``: the same values, bit for bit, and dtype. ``max(a, 0.0)`` of
    per-example floats is ``np.maximum(0.0, a)`` (it keeps ``a`` on ties, so ``max(-0.0,
    0.0)`` is ``-0.0``; `builtins`), and NumPy runs a number as the first operand through a
    loop about three times slower than two contiguous arrays (``np.maximum(a, 0.0)``, which
    keeps ``0.0`` on ties, is faster than the number first, still twice as slow). So where
    ``a`` is a contiguous float64 or float32 array of at least `MIN_ROW_LANES` lanes and
    ``c`` a number that dtype holds exactly, it compares ``a`` with a row of ``c`` (`ROW`
    lanes, made once), a row's length at a time. Measured on the 2-core machine of
    docs/performance.md (shared, loaded), ``maximum(0.0, a, out=a)`` against
    ``np.maximum(0.0, a, out=a)`` on float64 with NaNs: 3.2 µs against 7.0 on 1e4 lanes,
    27 against 64 on 1e5, 296 against 657 on 1e6."""
    return _against_rows(np.maximum, c, a, out)


def minimum(c, a, out=None):
    """``np.minimum(c, a)`` (with ``out``: ``np.minimum(c, a, out=out)``), as `maximum`."""
    return _against_rows(np.minimum, c, a, out)


MIN_ROW_LANES = 2048
"""Batches smaller than this are computed by the ufunc itself (the row's few extra steps are
then a good part of the call: measured break-even about 2,048 float64 lanes, 1.9 µs either
way; 1,024: 1.3 µs against 1.7)."""

_ROW_DTYPES = (np.dtype(np.float64), np.dtype(np.float32))


_seen: dict = {}
"""id of a number -> (the number, the dtype, the lanes, the first lanes of its row) of a call
of `_against_rows` on a batch of at most `ROW` lanes: a later call with the same number object
(a literal of the generated code is one object), dtype and length takes the row from here
without the checks and the key of `_rows` (``repr`` of a float alone costs a quarter of a
microsecond, a tenth of a comparison of 1e4 lanes); the number is kept so that its id is not
another object's. Emptied with `_rows`."""


def _against_rows(ufunc, c, a, out):
    if type(a) is not np.ndarray or out is not None and out is not a or \
            a.size < MIN_ROW_LANES:
        return ufunc(c, a) if out is None else ufunc(c, a, out=out)
    seen = _seen.get(id(c))
    if seen is not None and seen[0] is c and seen[1] is a.dtype and seen[2] == a.size and \
            a.flags.c_contiguous:
        # (the number, dtype and length of an earlier call: its row as then)
        flat = a if a.ndim == 1 else a.reshape(-1)
        if out is not None:
            ufunc(seen[3], flat, out=flat)
            return a
        target = np.empty_like(flat)
        ufunc(seen[3], flat, out=target)
        return target if target.shape == a.shape else target.reshape(a.shape)
    if a.dtype in _ROW_DTYPES and a.flags.c_contiguous and (type(c) is float or type(c)
                                                            is int):
        key = (type(c), repr(c), a.dtype)
        row = _rows.get(key)
        if row is None:
            if len(_rows) >= MAX_ROWS:
                _rows.clear()
                _seen.clear()
            row = _rows[key] = _row(c, a.dtype)
        if row is not False:
            flat = a.reshape(-1)
            target = flat if out is not None else np.empty_like(flat)
            n = flat.size
            if n <= ROW:
                if len(_seen) >= MAX_ROWS:
                    _seen.clear()
                _seen[id(c)] = (c, a.dtype, n, row[:n])
                ufunc(row[:n], flat, out=target)
            else:
                for start in range(0, n, ROW):
                    stop = start + ROW
                    ufunc(row[:n - start] if stop > n else row, flat[start:stop],
                          out=target[start:stop])
            return a if out is not None else target.reshape(a.shape)
    return ufunc(c, a) if out is None else ufunc(c, a, out=out)


def _row(c, dtype):
    """`ROW` lanes of ``c`` in ``dtype`` (read-only), or False where ``dtype`` does not hold
    ``c`` exactly (NumPy would round it: the rows are then not made)."""
    if type(c) is int and abs(c) > 2 ** 53:
        return False
    with np.errstate(all="ignore"):
        value = dtype.type(c)
    if not (value == c):        # (NaN is never a row: it is not equal to itself)
        return False
    row = np.full(ROW, value, dtype)
    row.flags.writeable = False
    return row


# -------------------------------------------------- a batch of rows times a shared vector
ROWS_DOT_MIN_BYTES = 1 << 24
"""`rows_dot` times the einsum against ``@`` on batches of rows of at least this many bytes
(16 MiB); smaller ones are ``@``: keeping the choice costs a microsecond or two a call (the
checks of the kind of batch, in an interpreter whose data the rows flushed from the caches;
measured: 2 µs on 5 MB of rows, 2% of ``@`` on one thread)."""

ROWS_DOT_WIDTHS = (16, 4096)
"""The row lengths (least, most) whose batches `rows_dot` times. Which form is faster is
the machine's BLAS's, its caches', the load's: on the 2-core machine of docs/performance.md
(OpenBLAS 0.3.31, Haswell kernels), 128 MB of float64 rows streamed from memory, the
einsum's time over ``@``'s, one BLAS thread: rows of 16 1.1x, 32 0.94x, 64 0.36x, 128 0.52x,
512 0.98x, 2048 1.6x; two BLAS threads under load 2.0, 0.86, 0.47, 0.38, 0.64, 1.1; 5 MB of
rows the cache holds, ``@`` twice as fast as the einsum on an idle machine, 2.4 times slower
on a loaded one (its threads wait for the cores). So it is measured (`_RowsChoice`), not
fixed; shorter rows (the einsum 1.3x ``@`` on rows of 8, 2.4x on 4) are always ``@``."""

ROWS_DOT_SAMPLE = 16
"""A call that times the two forms computes one ``1 / ROWS_DOT_SAMPLE`` of its rows by each
(a sample of the call's own rows, in its result), the one found slower before on fewer
(`_sample_rows`): the exploration costs at most about that share of a call more."""

ROWS_DOT_SAMPLE_BYTES = 1 << 20
"""... and at least this many bytes of rows (a sample of fewer is timed in a few
microseconds, as long as the calls around it: its time per row would be theirs)."""

ROWS_DOT_MARGIN = 1.25
"""A timing that finds the form not chosen faster by more than this factor has the next call
timed again (`ROWS_DOT_TRIALS`)."""

ROWS_DOT_TRIALS = 3
"""The first calls of each kind of batch (`_rows_key`) that time both forms (the choice is
the smaller median of the last this many timings of each); then one in `ROWS_DOT_RESAMPLE`,
as the load (BLAS's threads against the einsum's) changes, and each next one while the
last timing disagrees with the choice."""

ROWS_DOT_RESAMPLE = 32

_EINSUM = np.einsum
_MATMUL = np.matmul

_rows_choices: dict = {}
"""`_rows_key` -> `_RowsChoice`: what `rows_dot` measured, per process."""


class _RowsChoice:
    """The times per row of the two forms of `rows_dot` on one kind of batch (the last
    `ROWS_DOT_TRIALS` of each), whether the einsum's median is the smaller (``wins``), and
    the calls left before it times them again."""

    __slots__ = ("matmul", "einsum", "left", "timed", "wins")

    def __init__(self):
        self.matmul, self.einsum, self.left, self.timed, self.wins = [], [], 0, 0, False

    def einsum_wins(self) -> bool:
        """Whether the einsum's median time per row is below ``@``'s (False until both
        were timed)."""
        return self.wins

    def add(self, times: list, seconds: float, rows: int) -> None:
        times.append(seconds / rows)
        del times[:-ROWS_DOT_TRIALS]
        self.wins = bool(self.matmul and self.einsum and
                         _middle(self.einsum) < _middle(self.matmul))


def _middle(times: list) -> float:
    ordered = sorted(times)
    return ordered[len(ordered) // 2]


def _rows_key(x, workers: int):
    """The kind of batch whose choice `rows_dot` keeps: dtype, row length, size class (the
    power of two of its bytes: whether the rows stream from memory or stay in the caches),
    and the threads the einsum would run on (`_einsum_workers`: fewer under load)."""
    return x.dtype.char, x.shape[1], x.nbytes.bit_length(), workers


def rows_dot(x, w):
    """``x @ w`` of a batch of rows ``x`` (a per-example vector each) and a shared vector
    ``w``: what ``x.dot(w)`` per example is over the batch. Where ``x`` is a C-contiguous
    float64 or float32 matrix of at least `ROWS_DOT_MIN_BYTES` whose rows have a length in
    `ROWS_DOT_WIDTHS` and ``w`` a contiguous vector of its dtype, it may compute by
    ``np.einsum("ij,j->i", x, w)`` (the rows in pieces on the threads the load leaves, each
    piece's rows summed as in one call: `chunks.spare_threads`), which streams such rows
    from memory up to twice as fast on some machines and is twice as slow on others: which
    form runs is measured on samples of the calls' own rows (`_RowsChoice`, `_timed_rows`),
    per kind of batch (`_rows_key`). Every row is one sum in either case, in another order
    (as ``x.dot(w)`` per example sums in its own). ``np.einsum`` reports no floating-point
    error: where a value of the result is not finite (an overflow, ``inf * 0``, a NaN row),
    or where underflows are not ignored (``np.errstate``), the result is ``x @ w``, which
    warns or raises as NumPy's products do."""
    if type(x) is _NDARRAY and x.nbytes >= ROWS_DOT_MIN_BYTES and x.ndim == 2:
        pieces = len(x) // (_CHUNKS[0] if _CHUNKS else _chunks()).AUTO_MIN_LANES
        workers = 1 if pieces < 2 else _einsum_workers(len(x))
        # (`_rows_key`, inline)
        key = (x.dtype.char, x.shape[1], x.nbytes.bit_length(), workers)
        choice = _rows_choices.get(key)
        if choice is not None and choice.left > 0 and not choice.wins:
            choice.left -= 1        # (``@`` decided: nothing more to check)
            return x @ w
        if _einsum_fits(x, w):
            if choice is None:
                if len(_rows_choices) >= MAX_PLACES:
                    _rows_choices.clear()
                choice = _rows_choices[key] = _RowsChoice()
            if choice.left <= 0:
                out = _timed_rows(x, w, choice, workers)
            else:
                choice.left -= 1
                out = _rows_einsum(x, w, None, workers)
            if np.isfinite(out).all():
                return out
    return x @ w


def _timed_rows(x, w, choice, workers: int):
    """``x @ w`` in three parts: a sample of rows by each form, timed (`_RowsChoice`), the
    rest by the form that was faster so far. The timed ``@`` reports no floating-point
    error (`rows_dot` computes ``x @ w`` again where a value is not finite)."""
    n = len(x)
    # (at least `ROWS_DOT_SAMPLE_BYTES` of rows, at most a quarter of them, each)
    step = max(1, min(n // 4, max(n // ROWS_DOT_SAMPLE,
                                  ROWS_DOT_SAMPLE_BYTES // max(1, x.strides[0]))))
    out = np.empty(n, x.dtype)
    # (which form goes first alternates: the first may find the memory bus idler)
    first_einsum = choice.timed % 2 == 1
    choice.timed += 1
    stop = 0
    with np.errstate(all="ignore"):     # (outside the timings: microseconds to set)
        for einsum in (first_einsum, not first_einsum):
            start, stop = stop, stop + _sample_rows(choice, einsum, step)
            rows = x[start:stop]
            if not len(rows):       # (a batch of one row, or none)
                continue
            begin = _clock()
            if einsum:
                _rows_einsum(rows, w, out[start:stop], workers)
            else:
                _MATMUL(rows, w, out=out[start:stop])
            choice.add(choice.einsum if einsum else choice.matmul, _clock() - begin,
                       len(rows))
        if stop < n:
            if choice.wins:
                _rows_einsum(x[stop:], w, out[stop:], workers)
            else:
                _MATMUL(x[stop:], w, out=out[stop:])
    # timed again on the next call during the trials, and while the last timing says
    # otherwise than the medians by more than `ROWS_DOT_MARGIN` (the costs changed: the
    # medians follow within two calls)
    if not choice.einsum or not choice.matmul:
        return out
    last_einsum, last_matmul = choice.einsum[-1], choice.matmul[-1]
    disagrees = last_matmul * ROWS_DOT_MARGIN < last_einsum if choice.wins else \
        last_einsum * ROWS_DOT_MARGIN < last_matmul
    settled = choice.timed >= ROWS_DOT_TRIALS and not disagrees
    choice.left = ROWS_DOT_RESAMPLE if settled else 0
    return out


def _sample_rows(choice, einsum: bool, step: int) -> int:
    """The rows of a timed call of `rows_dot` that the einsum (``einsum``) or ``@``
    computes: ``step`` (`ROWS_DOT_SAMPLE`), less for the form the last timings found slower,
    by as much as it was slower (down to an eighth): its sample then costs at most about
    what ``step`` rows of the other form take (``@`` on a loaded machine took ten times as
    long as the einsum)."""
    mine, other = (choice.einsum, choice.matmul) if einsum else (choice.matmul, choice.einsum)
    if mine and other:
        slower = _middle(mine) / max(_middle(other), 1e-300)
        if slower > 1.0:
            return max(1, int(step / min(slower, 8.0)))
    return step


def _einsum_fits(x, w) -> bool:
    """`rows_dot` may compute ``x @ w`` by the einsum (after its size check)."""
    return type(w) is _NDARRAY and x.ndim == 2 and w.ndim == 1 and \
        ROWS_DOT_WIDTHS[0] <= x.shape[1] <= ROWS_DOT_WIDTHS[1] and \
        x.shape[1] == w.shape[0] and x.dtype in _ROW_DTYPES and w.dtype == x.dtype and \
        x.flags.c_contiguous and w.flags.c_contiguous and np.geterr()["under"] == "ignore"


def _einsum_workers(n: int) -> int:
    """The threads that `_rows_einsum` computes ``n`` rows on: one piece of rows per thread
    that `chunks.spare_threads` leaves, each of at least `chunks.AUTO_MIN_LANES` rows (asked
    of the load only where there are rows for two: it costs a system call, on every call of
    `rows_dot`)."""
    chunks = _chunks()
    pieces = n // chunks.AUTO_MIN_LANES
    return 1 if pieces < 2 else min(chunks.spare_threads(), pieces)


_CHUNKS: list = []


def _chunks():
    """`vectorize.chunks` (imported on first use: an import statement in a function costs
    a microsecond on every call)."""
    if not _CHUNKS:
        from ... import chunks
        _CHUNKS.append(chunks)
    return _CHUNKS[0]


def _rows_einsum(x, w, out=None, workers=None):
    """``np.einsum("ij,j->i", x, w)`` (into ``out`` where given), in one piece of rows per
    thread (``workers``, else `_einsum_workers`: the einsum releases the GIL; each row is
    summed as in one call)."""
    chunks = _chunks()
    n = len(x)
    if workers is None:
        workers = _einsum_workers(n)
    if workers <= 1 or n < workers:
        return _EINSUM("ij,j->i", x, w) if out is None else \
            _EINSUM("ij,j->i", x, w, out=out)
    if out is None:
        out = np.empty(n, x.dtype)
    step = -(-n // workers)

    def piece(start: int) -> bool:
        stop = min(start + step, n)
        _EINSUM("ij,j->i", x[start:stop], w, out=out[start:stop])
        return True

    chunks.each_item(piece, range(0, n, step), workers)
    return out


def settle(value, kinds, table):
    """A `vmap` result joined from lanes of different types of number (``x if x > 0 else
    0``: an int on some lanes, a float on others), as the per-example loop's ``np.stack``
    gives it on this call: cast to ``np.result_type`` of the dtypes ``table`` names at the
    codes ``kinds`` holds (a code per lane, or one for every lane), each lane's own dtype
    (a Python int stacks as int64). An empty batch keeps the join (the loop has no example
    to tell a type). The join holds every lane type's values exactly
    (`passes.lane_kinds`), so the cast gives each lane's own value; but ints in a float
    join, which hold them up to 2**53 (float64): beyond, OverflowError, and the per-example
    loop decides (`vmap_replays`)."""
    if type(value) is not _NDARRAY or not value.size:
        return value
    if type(kinds) is _NDARRAY and kinds.ndim:
        if kinds.dtype == bool:         # (two codes, 0 and 1: no count of ints)
            present = [k for k, there in ((0, not kinds.all()), (1, kinds.any())) if there]
        else:
            present = np.flatnonzero(np.bincount(kinds.ravel(), minlength=len(table)))
        dtype = np.result_type(*[table[k] for k in present])
    else:
        dtype = np.dtype(table[int(kinds)])
    if dtype == value.dtype:
        return value
    if value.dtype.kind == "c" and dtype.kind != "c":
        value = value.real
    if dtype.kind in "iu" and value.dtype.kind == "f" and value.size and np.abs(
            value).max() > 2.0 ** (np.finfo(value.dtype).nmant + 1):
        # (an int lane beyond the float join's exact ints: its own value is not known
        # here; the per-example loop decides, `vmap_replays`)
        raise OverflowError("an int result beyond the exact ints of the float join of "
                            "its lanes")
    return value.astype(dtype)
