"""PyTorch benchmark: `vectorize.vmap` on tensors against hand-written torch and `torch.vmap`.

This is a script, not a test::

    python benchmarks/bench_torch.py                 # full run, prints a Markdown report
    python benchmarks/bench_torch.py --quick         # fewer rounds
    python benchmarks/bench_torch.py --out report.md

The functions (issue 14), float32, N = 1e5 examples:

- the seed ``func(t, b)`` with its ``if tmp > 5`` (``b`` per example, as the blog expands it);
  ``torch.vmap`` refuses it, so its peer is ``torch.vmap`` of it rewritten by hand with
  ``torch.where`` (``func_where``: the blog's ``func_2`` tests ``t > 5``, which is the same
  only for its ``b = 1``); hand-written on the batch: the same ``torch.where``;
- ``mlp(x, w1, b1, w2) = w2 @ torch.tanh(w1 @ x + b1)``, 32 -> 64 -> 10, weights shared
  (``torch.vmap`` takes it as it is); hand-written: ``torch.tanh(X @ W1.T + b1) @ W2.T``.

Each forward, and forward + backward (``torch.autograd.grad`` of the output's sum with respect
to every input that requires grad). PyTorch runs on ``--threads`` threads (default 1: on the
2 shared cores this was written on, two OpenMP threads of PyTorch spin against the other
processes and a 1e5-element ``torch.where`` took 4 to 80 ms instead of 1). Timing as in the
other scripts (``_timing.py``): one
process, peers interleaved round by round, each peer's figure the median over rounds; ours
is warm (called once before timing).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for path in (str(ROOT), str(HERE)):
    if path not in sys.path:
        sys.path.insert(0, path)

from _timing import fmt_time, interleaved, machine_facts  # noqa: E402

import vectorize as vz  # noqa: E402

N = 100_000


# ----------------------------------------------------------------------------- the functions
def func(t, b):
    tmp = t * b
    if tmp > 5:
        root = t * b
    else:
        root = -t
    return root


def func_where(t, b):
    tmp = t * b
    return torch.where(tmp > 5, t * b, -t)


def func_hand(t, b):
    tmp = t * b
    return torch.where(tmp > 5, tmp, -t)


def mlp(x, w1, b1, w2):
    return w2 @ torch.tanh(w1 @ x + b1)


def mlp_hand(X, W1, b1, W2):
    return torch.tanh(X @ W1.T + b1) @ W2.T


# ----------------------------------------------------------------------------------- peers
def _backward(fn, inputs):
    def run():
        out = fn()
        return torch.autograd.grad(out.sum(), inputs)
    return run


def peers_for(name: str, grad: bool):
    """(peers, source of ours) for one function, forward or forward + backward."""
    gen = torch.Generator().manual_seed(0)
    if name == "func":
        t = (torch.rand(N, generator=gen) * 10).requires_grad_(grad)
        b = (torch.rand(N, generator=gen) + 0.5).requires_grad_(grad)
        args, inputs = (t, b), [t, b]
        ours = vz.vmap(func)
        theirs = torch.vmap(func_where)
        hand = func_hand
    else:
        X = torch.randn(N, 32, generator=gen).requires_grad_(grad)
        W1 = (torch.randn(64, 32, generator=gen) / 6).requires_grad_(grad)
        b1 = torch.randn(64, generator=gen).requires_grad_(grad)
        W2 = (torch.randn(10, 64, generator=gen) / 8).requires_grad_(grad)
        args, inputs = (X, W1, b1, W2), [X, W1, b1, W2]
        ours = vz.vmap(mlp, in_axes=(0, None, None, None))
        theirs = torch.vmap(mlp, in_dims=(0, None, None, None))
        hand = mlp_hand
    ours(*args)                               # warm: the transform happens here
    calls = {"hand": lambda: hand(*args), "ours": lambda: ours(*args),
             "torch.vmap": lambda: theirs(*args)}
    if grad:
        calls = {k: _backward(c, inputs) for k, c in calls.items()}
    return calls, ours.source(*args), args


def agreement(peers: dict) -> str:
    results = {name: call() for name, call in peers.items()}
    ref = results["hand"]
    ref = ref if isinstance(ref, tuple) else (ref,)
    worst = 0.0
    for res in results.values():
        res = res if isinstance(res, tuple) else (res,)
        for r, e in zip(res, ref):
            if r.shape != e.shape or r.dtype != e.dtype:
                return "MISMATCH"
            worst = max(worst, float(((r - e).abs() / e.abs().clamp(min=1)).max()))
    return "exact" if worst == 0.0 else f"max diff {worst:.0e}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    parser.add_argument("--out", type=Path, help="also write the Markdown report here")
    parser.add_argument("--threads", type=int, default=1, help="torch.set_num_threads")
    opts = parser.parse_args(argv)
    torch.set_num_threads(opts.threads)

    rounds = 5 if opts.quick else 15
    md = ["# bench_torch results", "",
          f"Command: `python benchmarks/bench_torch.py{' --quick' if opts.quick else ''}"
          f"{f' --threads {opts.threads}' if opts.threads != 1 else ''}`", ""]
    md += machine_facts()
    md += [f"- torch {torch.__version__}, {torch.get_num_threads()} threads", "",
           f"Median of {rounds} interleaved rounds per peer; times are per call; N = {N:.0e}.",
           "", "| function | pass | hand-written | ours | torch.vmap | ours / hand | "
           "torch.vmap / hand | peers agree |", "|" + "---|" * 8]
    sources = {}
    for name in ("func", "mlp"):
        for grad in (False, True):
            with torch.set_grad_enabled(True):
                peers, sources[name], _ = peers_for(name, grad)
                agree = agreement(peers)
                res = interleaved(peers, rounds)
            hand, ours, theirs = (res[k][0] for k in ("hand", "ours", "torch.vmap"))
            md.append(f"| {name} | {'forward + backward' if grad else 'forward'} | "
                      f"{fmt_time(hand)} | {fmt_time(ours)} | {fmt_time(theirs)} | "
                      f"{ours / hand:.2f}x | {theirs / hand:.2f}x | {agree} |")
            print(md[-1], flush=True)
    md += ["", "The generated code that was timed:", ""]
    for source in sources.values():
        md += ["```python", source.rstrip(), "```", ""]
    report = "\n".join(md) + "\n"
    print(report)
    if opts.out:
        opts.out.write_text(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
