"""Differential checks at every batch size the runtime treats differently.

``check_sizes(wrapped, f, make_args)`` calls the batched function ``wrapped`` on the
arguments ``make_args(n)`` for N = 0, 1 and 5, and 12 times in a row at a large N (the
adaptive runtime chunks batches of 16,384 lanes and more, and times its forms on the first
calls of each size class), and compares every result with the per-example loop: ``f`` on each
lane of the batched arguments (axis 0) with the shared ones as they are. Where some lane of
the loop raises, the batched call must raise the same exception type (with the first such
lane's message, when ``message`` is asked for).
"""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
from differential import assert_lanes_equal

from vectorize import chunks

SIZES = (0, 1, 5)
LARGE = 20_000
REPEATS = 12


def per_example(f, args, batched, n):
    """(results per lane, the first exception raised, or None)."""
    results = []
    # (the warning filters and NumPy's error state are set once around the lanes: entering
    # them per lane took 20 times the calls of a small function)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for lane in range(n):
            call = [a[lane] if b else a for a, b in zip(args, batched)]
            try:
                results.append(f(*call))
            except Exception as exc:      # noqa: BLE001 - the batch must raise the same type
                return results, exc
    return results, None


def check_call(wrapped, f, args, batched, n, message=False, what="", reference=None):
    lanes, raised = reference or per_example(f, args, batched, n)
    if raised is not None:
        try:
            wrapped(*args)
        except type(raised) as exc:
            if message:
                assert str(exc) == str(raised), f"{what}message {exc!s} != {raised!s}"
            return
        raise AssertionError(f"{what}expected {type(raised).__name__}: {raised}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = wrapped(*args)
    if isinstance(got, tuple):
        for k, g in enumerate(got):
            assert_lanes_equal(g, [lane[k] for lane in lanes], (n,) + np.shape(g)[1:],
                               [], what=f"{what}output {k}: ")
    elif n:
        assert_lanes_equal(got, lanes, (n,) + np.shape(lanes[0]), [], what=what)
    else:
        assert np.shape(got)[:1] == (0,), f"{what}shape {np.shape(got)}"


@contextlib.contextmanager
def explore_at_once():
    """The adaptive runtime (`vectorize.chunks.run`) tries every form and way of running a
    large batch on its first calls, whatever they cost: the compacted form from the first call
    (`EXPLORE_SHARE` 0), no way given up for being slow (`PRUNE`), threads whatever the load
    (`spare_threads`), so that the calls of a test run each of them."""
    saved = chunks.EXPLORE_SHARE, chunks.PRUNE, chunks.spare_threads
    chunks.EXPLORE_SHARE, chunks.PRUNE, chunks.spare_threads = 0.0, float("inf"), \
        chunks.num_threads
    try:
        yield
    finally:
        chunks.EXPLORE_SHARE, chunks.PRUNE, chunks.spare_threads = saved


def check_sizes(wrapped, f, make_args, batched=None, sizes=SIZES, large=LARGE,
                repeats=REPEATS, message=False):
    """``wrapped`` against the per-example loop of ``f`` at N in ``sizes`` and ``repeats``
    times at N = ``large``. ``batched[i]`` says whether argument i is mapped (default: the
    arrays are, the rest are shared)."""
    with explore_at_once():
        for n in list(sizes) + [large]:
            args = make_args(n)
            flags = batched if batched is not None else [
                isinstance(a, np.ndarray) and a.ndim >= 1 for a in args]
            reference = per_example(f, args, flags, n)
            for k in range(repeats if n == large else 1):
                check_call(wrapped, f, args, flags, n, message,
                           what=f"N={n} (call {k + 1}): ", reference=reference)
