"""10^8 examples through a Dask array on a local cluster of two worker processes.

The per-example function (the seed's data-dependent ``if``) is decorated as usual; called with
a Dask array it returns a Dask array, one call of the generated NumPy code per chunk, run by
the workers. The input is made chunk by chunk on the workers (``dask.array.random``) and only
reductions come back, so no process ever holds the 800 MB of one float64 array of 10^8
examples: each worker's peak memory is bounded by a few chunks, whatever the number of
examples. The script measures it (the peak resident memory of each worker process, from
``resource.getrusage``, after a warm-up run and during the run) and prints it in MiB and in
chunks.

    python examples/dask_large.py                        # 10^8 examples, chunks of 2**21
    python examples/dask_large.py --n 1e7 --chunk 1e6    # any size
    python examples/dask_large.py --hand                 # hand-written NumPy, to compare

docs/dask.md has the numbers measured on the project's machines.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from vectorize import vectorize


@vectorize
def func(t, b):
    tmp = t * b
    if tmp > 5:
        root = t * b
    else:
        root = -t
    return root


def hand_written(t, b):
    """``func`` written by hand with NumPy, for comparison (``--hand``)."""
    tmp = t * b
    return np.where(tmp > 5, tmp, -t)


def build(n: int, chunk: int, b: float = 1.5, seed: int = 0, hand: bool = False):
    """(t, root): ``n`` examples ``t`` uniform on [0, 10) in chunks of ``chunk``, and
    ``func(t, b)`` (``hand``: `hand_written` through ``map_blocks``), both lazy Dask
    arrays."""
    import dask.array as da
    t = da.random.default_rng(seed).random(n, chunks=chunk) * 10.0
    return t, t.map_blocks(hand_written, b, dtype=t.dtype) if hand else func(t, b)


def peak_rss_mib() -> float:
    """The peak resident memory of this process so far, in MiB (Linux: ru_maxrss in KiB)."""
    import resource
    import sys
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1 << 20) if sys.platform == "darwin" else peak / 1024


def measure(client, n: int, chunk: int, b: float = 1.5, hand: bool = False) -> dict:
    """Run ``n`` examples on ``client``'s workers after a warm-up run of tiny chunks (which
    loads vectorize and makes the specialization on each worker, in little memory): the
    results, the time, and each worker's peak resident memory before and after."""
    import dask
    _, warm = build(16 * 1024, 1024, b, hand=hand)
    warm.sum().compute()
    before = client.run(peak_rss_mib)
    _, root = build(n, chunk, b, hand=hand)
    start = time.perf_counter()
    total, positive = dask.compute(root.sum(), (root > 0).sum())
    seconds = time.perf_counter() - start
    after = client.run(peak_rss_mib)
    chunk_mib = chunk * 8 / (1 << 20)
    return {"n": n, "chunk": chunk, "chunk_mib": chunk_mib, "seconds": seconds,
            "sum": float(total), "positive": int(positive),
            "workers": {w: {"baseline_mib": before[w], "peak_mib": after[w],
                            "growth_mib": after[w] - before[w],
                            "growth_chunks": (after[w] - before[w]) / chunk_mib}
                        for w in sorted(after)}}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=float, default=1e8, help="examples (default 1e8)")
    parser.add_argument("--chunk", type=float, default=2 ** 21,
                        help="examples per chunk (default 2**21: 16 MiB of float64)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--hand", action="store_true",
                        help="run the hand-written NumPy function instead, for comparison")
    args = parser.parse_args(argv)
    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                      host="127.0.0.1", dashboard_address=None) as cluster, \
            Client(cluster) as client:
        result = measure(client, int(args.n), int(args.chunk), hand=args.hand)
    print(f"{result['n']:.3g} examples in chunks of {result['chunk']} "
          f"({result['chunk_mib']:.1f} MiB) on {args.workers} workers: "
          f"{result['seconds']:.1f} s, sum {result['sum']:.6g}, {result['positive']} positive")
    for worker, m in result["workers"].items():
        print(f"  {worker}: peak {m['peak_mib']:.0f} MiB, {m['growth_mib']:.0f} MiB over "
              f"its {m['baseline_mib']:.0f} MiB after warm-up = {m['growth_chunks']:.1f} "
              "chunks")
    return result


if __name__ == "__main__":
    np.set_printoptions(precision=4)
    main()
