"""Running a generated function over a large batch a chunk of lanes at a time.

The lanes of generated code are independent by construction (each is one example), so calling
it on consecutive slices of the batch axis and writing each slice of the outputs into place
gives the values of one whole-batch call. It is much faster for large batches: every temporary
array is then a few hundred kilobytes, which stays in cache and which the allocator hands back
on the next chunk, instead of megabytes of fresh pages per temporary (on the machines we
measure on, a fresh page costs more than the arithmetic done on it; see docs/performance.md).
Only `np.random` draws (other numbers, the same distributions) and contractions of per-example
arrays (BLAS may sum in another order for another number of rows) can tell; docs/design.md.

``chunk_size`` (the keyword of `vectorize` and `vmap`, as in ``torch.vmap``): ``"auto"`` chunks
large batches of scalar examples (`AUTO_BYTES` of the widest batched argument per chunk) where
that is measured to be faster (`run`), ``None`` makes one call for the whole batch, a positive
int is the number of lanes per call.
"""

from __future__ import annotations

import time

import numpy as np

from .abstract import TupleValue, Value

AUTO_BYTES = 1 << 17
"""With ``chunk_size="auto"``: bytes of the widest batched argument per chunk ..."""
AUTO_MIN_LANES = 8192
"""... but never fewer lanes than this (each chunk pays every NumPy call's fixed cost)."""


def check_chunk_size(chunk_size):
    if chunk_size is None or chunk_size == "auto":
        return chunk_size
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer)) or \
            chunk_size < 1:
        raise ValueError(f"chunk_size must be 'auto', None or a positive int, got "
                         f"{chunk_size!r}")
    return int(chunk_size)


def lanes_per_chunk(chunk_size, size: int, args, batched) -> int | None:
    """Lanes per call for a batch of ``size`` lanes, or None for one call of the whole batch.

    ``args`` are the generated function's arguments and ``batched`` says, per argument, whether
    it carries the batch axis (axis 0); both may nest tuples alike (vmap's tuple arguments)."""
    if chunk_size is None or size < 2 * (AUTO_MIN_LANES if chunk_size == "auto" else
                                         chunk_size):
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
    return max(AUTO_MIN_LANES, AUTO_BYTES // max(a.itemsize for a in arrays))


TRIALS = 3
"""With ``chunk_size="auto"``: calls timed each way (chunked, whole) per specialization and
batch-size class before the faster way is kept."""


def run(spec, args, batched, size: int, chunk_size, call):
    """``call(spec.function, args)``: the outputs for the whole batch, computed in chunks where
    `lanes_per_chunk` says so.

    With ``chunk_size="auto"`` chunks are not always faster: a whole-batch call whose
    temporaries the allocator happens to keep (no fresh pages) beats chunks of a function of
    many NumPy calls, as each chunk pays every call's fixed cost again. So the first calls of
    each batch-size class (a power of two) of a specialization alternate between the two ways
    and are timed, and the faster is kept (``spec.chunking``); the results are the same
    either way. An explicit chunk size is always used."""
    lanes = lanes_per_chunk(chunk_size, size, args, batched)
    if lanes is None:
        return call(spec.function, args)
    bucket = size.bit_length()
    # True / False once decided (an explicit chunk size: always True), else the timings
    choice = spec.chunking.setdefault(bucket, ([], [])) if chunk_size == "auto" else True
    chunked = choice if isinstance(choice, bool) else len(choice[1]) <= len(choice[0])
    start = time.perf_counter()
    out = run_chunked(spec.function, args, batched, size, lanes, spec.result, call) \
        if chunked else call(spec.function, args)
    if out is None:   # the chunks disagree: one call, and from now on only that
        if chunk_size == "auto":
            spec.chunking[bucket] = False
        return call(spec.function, args)
    if not isinstance(choice, bool):
        choice[chunked].append(time.perf_counter() - start)
        if min(len(choice[0]), len(choice[1])) >= TRIALS:
            spec.chunking[bucket] = min(choice[1]) < min(choice[0])
    return out


def run_chunked(function, args, batched, size: int, lanes: int, result, call):
    """``call(function, args)`` computed ``lanes`` lanes at a time, or None when the chunks
    do not agree on the dtype or shape of an output (the caller then makes one call).

    ``result`` is the abstract value of what the function returns: a batched output piece is
    written into its slice of an output allocated after the first chunk (a piece without the
    batch axis, a path that returned an unbatched value, is broadcast over the slice); an
    unbatched output is the first chunk's."""
    items = result.items if isinstance(result, TupleValue) else (result,)
    if not all(isinstance(item, Value) for item in items):
        return None
    outs = None
    for start in range(0, size, lanes):
        stop = min(start + lanes, size)
        pieces = call(function, _sliced(args, batched, start, stop))
        if isinstance(result, TupleValue):
            pieces = tuple(pieces)
            if len(pieces) != len(items):
                return None
        else:
            pieces = (pieces,)
        if outs is None:
            outs = [_allocate(piece, item, size) for piece, item in zip(pieces, items)]
        for out, piece, item in zip(outs, pieces, items):
            if not item.batched:
                continue
            arr = np.asarray(piece)
            core = out.shape[1:]
            if arr.dtype != out.dtype or arr.shape not in (core, (stop - start,) + core):
                return None
            out[start:stop] = arr
    if isinstance(result, TupleValue):
        return tuple(outs)
    return outs[0]


def _allocate(piece, item, size: int):
    """The whole-batch output of a batched item (its first chunk's piece as it stands for an
    unbatched one)."""
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
