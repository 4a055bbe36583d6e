"""Random programs on a value that is an int on some lanes and a float (or bool) on others
(``r = int(a) if c > 0 else a * 1.0``), then an operation whose float result may be -0.0
where the int lane's is 0, or an int division by a per-example divisor that may be 0 (``-r``,
``r * k``, ``r // -3``, ``r % k``, ``divmod``, ``np.mod``, ``np.fmod``, ``r *= -1``...), then
something that tells the sign of a zero apart (``math.copysign``, ``1 / s``).

    python benchmarks/fuzz_zero32.py --n 120 --seed 0 --backend numpy

Each program runs through ``vectorize(fallback="error")`` (against numpy.vectorize: values,
dtype and the sign of zeros, or the exception type) and ``vmap`` (against the loop over NumPy
scalars, where every example returns a float) on batches of 6 examples with ±0, negatives and
halves. Prints every mismatch and the counts; exit status 1 on a mismatch.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vectorize import VectorizeError, vectorize, vmap  # noqa: E402

OPS = ["-r", "r * -1", "r * k", "k * r", "r // -3", "r % -1", "r // k", "r % k",
       "divmod(r, k)[0]", "divmod(r, k)[1]", "divmod(r, -2)[1]", "np.mod(r, k)",
       "np.fmod(r, k)", "np.negative(r)", "np.multiply(r, k)", "np.floor_divide(r, -2)",
       "np.remainder(r, -1)", "np.fmod(r, 2)", "r * 3", "r % 7", "-(r * 2)", "-(-r)",
       "r * 0", "0 * r", "-abs(r)"]
AUGMENTED = {"r * -1": "r *= -1", "r // -3": "r //= -3", "r % -1": "r %= -1",
             "r * k": "r *= k", "r // k": "r //= k"}
DEFS = ["r = int(a) if c > 0 else a * 1.0", "r = int(a) if c > 0 else a",
        "r = (a > 1) if c > 0 else a * 0.5", "r = round(a) if c > 0 else a",
        "r = 0 if c > 0 else a", "r = int(a) if c > 0 else float(k)"]
TAILS = ["return s", "return math.copysign(1.0, s)",
         "return 1.0 / s if s != 0 else math.copysign(7.0, s)", "return s + 0.5 * s"]
VALUES = np.array([0.0, -0.0, 1.0, -1.0, 2.0, -3.0, 0.5, -0.5, 7.0, 1.5, 4.0])


def program(i: int, rnd: random.Random) -> str:
    op = rnd.choice(OPS)
    body = [f"    {rnd.choice(DEFS)}"]
    if op in AUGMENTED and rnd.random() < 0.3:
        step = [AUGMENTED[op], "s = r"]
    else:
        step = [f"s = {op}"]
    if rnd.random() < 0.3:
        body += ["    if a > 1:"] + [f"        {s}" for s in step] + ["    else:", "        s = a"]
    else:
        body += [f"    {s}" for s in step]
    return "\n".join([f"def f{i}(a, c, k):"] + body + [f"    {rnd.choice(TAILS)}", "", ""])


def _outcome(thunk):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return thunk(), None
        except Exception as exc:     # noqa: BLE001 -- compared by type
            return None, type(exc)


def _same(got, want) -> bool:
    got, want = np.asarray(got), np.asarray(want)
    if got.dtype != want.dtype or got.shape != want.shape:
        return False
    if want.dtype.kind == "O":
        return list(map(repr, got.flat)) == list(map(repr, want.flat))
    return bool(np.array_equal(got, want, equal_nan=True) and np.array_equal(
        np.signbit(got), np.signbit(want)))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=120)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--draws", type=int, default=4)
    parser.add_argument("--backend", default="numpy")
    opts = parser.parse_args(argv)
    rnd = random.Random(opts.seed)
    source = "import math\n\nimport numpy as np\n\n\n" + "".join(
        program(i, rnd) for i in range(opts.n))
    folder = Path(tempfile.mkdtemp(prefix="fuzz_zero32_"))
    path = folder / "zero32_programs.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("zero32_programs", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rng = np.random.default_rng(opts.seed)
    counts = dict.fromkeys(["vectorize equal", "vectorize wrong", "vectorize refused",
                            "vmap equal", "vmap wrong", "vmap refused"], 0)
    for i in range(opts.n):
        f = getattr(module, f"f{i}")
        vectorized = vectorize(f, fallback="error", backend=opts.backend)
        vmapped = vmap(f, backend=opts.backend)
        for _ in range(opts.draws):
            a, c = rng.choice(VALUES, 6), rng.choice([-1.0, 1.0], 6)
            k = rng.choice([-3, -1, 0, 1, 2], 6)
            want, want_exc = _outcome(lambda f=f, a=a, c=c, k=k: np.vectorize(f)(a, c, k))
            got, got_exc = _outcome(lambda v=vectorized, a=a, c=c, k=k: v(a, c, k))
            if got_exc is VectorizeError:
                counts["vectorize refused"] += 1
            elif got_exc is want_exc and (want_exc is not None or _same(got, want)):
                counts["vectorize equal"] += 1
            else:
                counts["vectorize wrong"] += 1
                print(f"vectorize f{i}: a={a} c={c} k={k}: {got} ({got_exc}), numpy.vectorize "
                      f"{want} ({want_exc})")
            rows = [_outcome(lambda f=f, r=r: np.asarray(f(*r))) for r in zip(a, c, k)]
            if any(e is not None for _, e in rows):
                continue
            want = np.stack([x for x, _ in rows])
            if want.dtype.kind != "f":
                continue        # (every example an int: the loop's int64, the batch's join)
            got, got_exc = _outcome(lambda v=vmapped, a=a, c=c, k=k: v(a, c, k))
            if got_exc is VectorizeError:
                counts["vmap refused"] += 1
            elif got_exc is None and _same(got, want):
                counts["vmap equal"] += 1
            else:
                counts["vmap wrong"] += 1
                print(f"vmap f{i}: a={a} c={c} k={k}: {got} ({got_exc}), the loop {want}")
    print(opts.backend, counts)
    return 1 if counts["vectorize wrong"] or counts["vmap wrong"] else 0


if __name__ == "__main__":
    sys.exit(main())
