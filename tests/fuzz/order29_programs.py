"""Programs whose examples raise different exceptions inside one statement (order29): which
exception Python's left-to-right evaluation reaches first, per example, against what the
batched code raises.

Each program is a module text with one function ``f(x: float, y: float, k: int)`` mixing
operations that raise different exceptions (a zero divisor: ZeroDivisionError; a dict of the
module at a missing key: KeyError; a list at an index past its end: IndexError; ``math``
domain and range errors: ValueError, OverflowError; ``assert`` and ``raise`` in helpers:
AssertionError, ValueError) across ``and``/``or``, ternaries, comprehension elements, call
arguments, subscripts, augmented assignments and nested helper calls. The inputs make
several examples raise different things.

``compare(text, rng_inputs)`` -> a list of mismatch strings (empty: all agree):

- ``vectorize``: the exception type and message of numpy.vectorize itself (the first failing
  example's), or equal results;
- the file rewriter (``python -m vectorize``, numpy backend), which has no replay: per
  example (a batch of one), the exception type Python raises for that example (numbers), or
  none where it returns; on the whole batch, the examples' results where none raises, else
  an exception some example raises; refusals are counted, not mismatches;
- ``vmap``: where the per-example loop over NumPy scalars raises, vmap raises the same type.
"""

from __future__ import annotations

import random
import warnings

import numpy as np

HEADER = '''import math
from vectorize import vectorize

T = {0: 1.5, 1: -2.0, 2: 0.25}
L = [3.0, -1.0, 0.5]


def h_assert(n):
    assert n < 2, "n too large"
    return n + 1


def h_raise(v):
    if v > 50.0:
        raise ValueError("v too large")
    return v * 0.5


def h_div(a, b):
    return a / b


def h_two(a, b):
    return a - 2.0 * b

'''

# leaves that raise on some examples (x in {0, 1, 2, -1}, y in {-1, 0, 4, 800}, k in 0..3)
_RAISING = [
    "1.0 / x",              # ZeroDivisionError at x == 0
    "2.0 / y",              # ZeroDivisionError at y == 0
    "T[k]",                 # KeyError at k == 3
    "L[k]",                 # IndexError at k == 3
    "math.sqrt(y)",         # ValueError at y < 0
    "math.log(x)",          # ValueError at x <= 0
    "math.exp(y)",          # OverflowError at y == 800
    "h_assert(k)",          # AssertionError at k >= 2
    "h_raise(y)",           # ValueError at y > 50
    "h_div(y, x)",          # ZeroDivisionError at x == 0 (inside a helper)
]
_SAFE = ["x", "y", "k", "1.5", "(x + 3.0)", "(y * 0.5)"]
_TESTS = ["x > 0.5", "y < 1.0", "k == 1", "x != 2.0"]

XS = [0.0, 1.0, 2.0, -1.0]
YS = [-1.0, 0.0, 4.0, 800.0]


def _leaf(rng: random.Random) -> str:
    return rng.choice(_RAISING) if rng.random() < 0.7 else rng.choice(_SAFE)


def expression(rng: random.Random, depth: int = 0) -> str:
    if depth >= 2 or rng.random() < 0.25:
        return _leaf(rng)
    a, b = expression(rng, depth + 1), expression(rng, depth + 1)
    form = rng.randrange(9)
    if form == 0:
        return f"({a} - {b})"
    if form == 1:
        return f"({a} * {b})"
    if form == 2:
        return f"({a} if {rng.choice(_TESTS)} else {b})"
    if form == 3:
        return f"(({rng.choice(_TESTS)}) and {a} or {b})"
    if form == 4:
        return f"h_two({a}, {b})"
    if form == 5:
        return f"sum([{a} + i for i in range(2)])"
    if form == 6:
        return f"({a} + [{b}, 1.0][0])"
    if form == 7:
        return f"max({a}, {b})"
    return f"({a} + {b})"


def make_program(rng: random.Random) -> str:
    """A module text defining ``f``."""
    kind = rng.randrange(4)
    e1, e2 = expression(rng), expression(rng)
    if kind == 0:
        body = f"    return {e1} + {e2}\n"
    elif kind == 1:
        body = f"    s = {e1}\n    s += {e2}\n    return s\n"
    elif kind == 2:
        # UnboundLocalError where the test fails, read first or after `e2` (chosen without
        # a draw: the inputs stay those of the seed)
        read = f"u + {e2}" if len(e1) % 2 else f"{e2} + u"
        body = f"    if {rng.choice(_TESTS)}:\n        u = {e1}\n    return {read}\n"
    else:
        body = f"    t = {e1}\n    return t * {e2}\n"
    return HEADER + "\ndef f(x: float, y: float, k: int):\n" + body


def inputs(rng: random.Random, n: int = 6):
    x = np.array([rng.choice(XS) for _ in range(n)])
    y = np.array([rng.choice(YS) for _ in range(n)])
    k = np.array([rng.randrange(4) for _ in range(n)], dtype=np.int64)
    return x, y, k


def _outcome(fn, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return "ok", fn(*args)
        except Exception as exc:  # noqa: BLE001 -- compared
            return type(exc).__name__, str(exc)


def _same(a, b) -> bool:
    if a[0] != b[0]:
        return False
    if a[0] != "ok":
        return a[1] == b[1]
    x, y = np.asarray(a[1]), np.asarray(b[1])
    return x.shape == y.shape and x.dtype == y.dtype and bool(
        np.allclose(x, y, rtol=1e-12, atol=0.0, equal_nan=True))


def load(text: str, name: str = "<order29>") -> dict:
    ns: dict = {"__name__": "order29_case"}
    exec(compile(text, name, "exec"), ns)
    return ns


def compare(text: str, args, path: str = "/tmp/order29_case.py", vmap_too: bool = True,
            rewrite_too: bool = True) -> tuple[list, bool]:
    """(mismatches, the rewriter's refusal: its message's start, or False)."""
    from vectorize import vectorize, vmap
    # (a file of its own: the engine reads a function's source)
    with open(path, "w") as handle:
        handle.write(text)
    ns = load(text, path)
    f = ns["f"]
    bad = []
    ref = _outcome(np.vectorize(f), *args)
    got = _outcome(vectorize(f), *args)
    if not _same(ref, got):
        bad.append(f"vectorize: {got[0]} {str(got[1])[:60]!r} vs numpy.vectorize "
                   f"{ref[0]} {str(ref[1])[:60]!r}")
    refused = False
    if rewrite_too:
        from vectorize.rewrite import rewrite_text
        marked = text.replace("\ndef f(", "\n@vectorize\ndef f(")
        out = rewrite_text(marked, path)
        if out.errors:
            refused = str(out.errors[0]).splitlines()[0].split(": ", 2)[-1][:70]
            if "internal error" in str(out.errors[0]):
                bad.append(f"rewriter: {str(out.errors[0]).splitlines()[0]}")
        else:
            g = load(out.text, "<order29 rewritten>")["f"]
            wants = [_outcome(f, *[np.asarray(a)[i].item() for a in args])
                     for i in range(len(args[0]))]
            raised = {w[0] for w in wants if w[0] != "ok"}
            whole = _outcome(g, *args)
            if not raised and whole[0] != "ok":
                bad.append(f"rewritten, batch: {whole[0]} where every example returns")
            elif not raised and not np.allclose(np.asarray(whole[1], dtype=float), np.asarray(
                    [w[1] for w in wants], dtype=float), rtol=1e-12, atol=0.0, equal_nan=True):
                bad.append("rewritten, batch: other values than the examples'")
            elif raised and whole[0] not in raised:
                bad.append(f"rewritten, batch: {whole[0]}, which no example raises "
                           f"({sorted(raised)})")
            for i in range(len(args[0])):
                one = [np.asarray(a)[i:i + 1] for a in args]
                want = _outcome(f, *[a.item() for a in one])[0]
                have = _outcome(g, *one)[0]
                if want != have:
                    bad.append(f"rewritten, example {i} "
                               f"{tuple(a.item() for a in one)}: {have} vs Python's {want}")
                    break
    if vmap_too:
        loop = []
        for i in range(len(args[0])):
            r = _outcome(f, *[np.asarray(a)[i] for a in args])
            loop.append(r)
            if r[0] != "ok":
                break
        failing = [r for r in loop if r[0] != "ok"]
        if failing:
            have = _outcome(vmap(f), *args)
            if have[0] not in (failing[0][0], "VectorizeError"):
                bad.append(f"vmap: {have[0]} vs the loop's {failing[0][0]}")
    return bad, refused
