"""Random programs of three constructs: ``try``/``finally`` (with or without handlers,
``else:``, a ``return`` in the body, inside a loop with ``break``/``continue``), reductions of
slices with per-example bounds (of a shared array or list, or of a per-example row), and
lookup tables chosen by a conditional expression between displays of different lengths.

    python benchmarks/fuzz_flow31.py --n 300 --seed 0

Each program runs through ``vectorize`` (against numpy.vectorize: values and dtype, or the
exception type) and ``vmap`` (against the loop over NumPy scalars / rows) on batches of 0, 1,
5 and 17 examples with NaN, inf, ±0 and negatives. Prints every mismatch and internal error
with its program and the refusal reasons; exit status 1 on a mismatch or internal error.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
import tempfile
import warnings
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from vectorize import VectorizeError, vectorize, vmap  # noqa: E402

HEAD = """import math

import numpy as np

V = np.array([1.5, -2.0, 3.0, 0.25, -0.0, 6.0])
L = [1.0, 2.5, -3.0, 0.5]
"""
FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, -2.0, 2.0, 3.0, 7.5, float("nan"), float("inf"),
          float("-inf")]


def _finally(rng: random.Random) -> tuple[str, str]:
    risky = rng.choice(["1.0 / x", "math.log(x)", "math.sqrt(x)", "x * 2.0",
                        "1.0 / (x - 2.0)"])
    handler = rng.choice([None, "ZeroDivisionError", "ValueError",
                          "(ValueError, ZeroDivisionError)"])
    lines = ["    c = 1.0", "    try:"]
    if rng.random() < 0.3:
        lines.append("        if x > 3.0:")
        lines.append("            return x + c" if handler is None else "            c = 5.0")
    if handler is not None and rng.random() < 0.3:
        lines.append(f"        return {risky} + c")
        lines.append(f"    except {handler}:")
        lines.append("        return -c" if rng.random() < 0.5 else "        y = -c")
        tail_y = False
    else:
        lines.append(f"        y = {risky}")
        tail_y = True
        if handler is not None:
            lines.append(f"    except {handler}:")
            lines.append("        y = -c" if rng.random() < 0.7 else "        return c")
            if rng.random() < 0.4:
                lines.append("    else:")
                lines.append("        y = y + 1.0")
    lines.append("    finally:")
    lines.append(rng.choice(["        c = c + 1.0", "        c = 2.0 * x",
                             "        z = 1.0 / (x + 2.0)", "        y = 0.5"]))
    lines.append("    return y + c" if tail_y else "    return c")
    return "x", "\n".join(lines)


def _loop_finally(rng: random.Random) -> tuple[str, str]:
    cut = rng.choice(["break", "continue"])
    return "x", "\n".join([
        "    s = 0.0",
        f"    for i in range({rng.randint(1, 4)}):",
        "        try:",
        f"            if i > x:\n                {cut}",
        "            s += i * 0.5",
        "        finally:",
        f"            s += {rng.choice(['1.0', 'x', '0.25 * i'])}",
        "    return s"])


def _bound(rng):
    return rng.choice(["k", "-k", "k + 1", "k - 2", "2"])


def _slice(rng: random.Random) -> tuple[str, str]:
    base = rng.choice(["V", "L", "v"])
    lo, hi = rng.choice([(None, _bound(rng)), (_bound(rng), None), (_bound(rng), _bound(rng))])
    if "k" not in f"{lo}{hi}":
        hi = "k"
    part = f"{base}[{lo or ''}:{hi or ''}]"
    red = rng.choice(["{p}.sum()", "np.sum({p})", "sum({p})", "np.mean({p})", "np.max({p})",
                      "{p}.min()", "np.any({p} > 1)", "np.prod({p})", "len({p})",
                      "np.sum({p} * x)"])
    return ("v, k, x" if base == "v" else "k, x"), "    return " + red.format(p=part)


def _table(rng: random.Random) -> tuple[str, str]:
    def display():
        n = rng.randint(1, 4)
        items = ", ".join(str(round(rng.uniform(-5, 5), 1)) for _ in range(n))
        return f"({items},)" if rng.random() < 0.5 else f"[{items}]"
    choice = f"{display()} if x > 0 else {display()}"
    if rng.random() < 0.3:
        choice = f"{display()} if x > 1 else {display()} if x < -1 else {display()}"
    use = rng.choice(["    return t[k]", "    return t[k] + len(t)",
                      "    s = 0.0\n    for a in t:\n        s += a * x\n    return s"])
    return "x, k", f"    t = {choice}\n{use}"


KINDS = {"finally": _finally, "loop_finally": _loop_finally, "slice": _slice, "table": _table}


def program(seed: int) -> tuple[str, str, str]:
    rng = random.Random(seed)
    kind = rng.choice(sorted(KINDS))
    params, body = KINDS[kind](rng)
    return kind, params, f"{HEAD}\n\ndef f({params}):\n{body}\n"


def inputs(params: str, n: int, rng: np.random.Generator):
    out = []
    for p in params.split(", "):
        if p == "x":
            out.append(rng.choice(FLOATS, n))
        elif p == "k":
            out.append(rng.integers(-7, 8, n))
        else:
            out.append(rng.choice(FLOATS[:9], (n, 4)))
    return out


def _outcome(function, args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return function(*args), None
        except VectorizeError:
            raise
        except Exception as exc:  # noqa: BLE001 -- compared by type
            return None, type(exc)


def _same(a, b, dtype=True) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or dtype and a.dtype != b.dtype:
        return False
    if a.dtype.kind in "fc" and b.dtype.kind in "fc":
        return bool(np.allclose(a, b, rtol=1e-12, atol=0, equal_nan=True))
    return bool(np.array_equal(a, b))


def run(seed: int, directory: Path) -> tuple[str, str]:
    kind, params, text = program(seed)
    path = directory / f"flow31_{seed}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    f = module.f
    signature = "(n),(),()->()" if params.startswith("v") else None
    rng = np.random.default_rng(seed)
    try:
        for n in (17, 0, 1, 5):
            args = inputs(params, n, rng)
            if n:
                exp, exp_err = _outcome(np.vectorize(f, signature=signature), args)
                got, got_err = _outcome(
                    vectorize(f, fallback="error", signature=signature), args)
                if exp_err is not None or got_err is not None:
                    if exp_err is not got_err:
                        return "mismatch", f"vectorize n={n}: {got_err} vs {exp_err}\n{text}"
                elif not _same(got, exp):
                    return "mismatch", f"vectorize n={n}: {got!r} vs {exp!r}\n{text}"
            lanes, loop_err = [], None
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                for i in range(n):
                    try:
                        lanes.append(f(*[a[i] for a in args]))
                    except Exception as exc:  # noqa: BLE001
                        loop_err = type(exc)
                        break
            got, got_err = _outcome(vmap(f), args)
            if loop_err is not None or got_err is not None:
                if loop_err is not got_err:
                    return "mismatch", f"vmap n={n}: {got_err} vs {loop_err}\n{text}"
            elif n and not _same(got, np.stack(lanes).astype(np.asarray(got).dtype)
                                 if all(type(r) is int for r in lanes) else np.stack(lanes),
                                 dtype=False):
                return "mismatch", f"vmap n={n}: {got!r} vs {lanes!r}\n{text}"
    except VectorizeError as exc:
        return "rejected", str(exc).splitlines()[0].split(": ", 1)[-1][:110]
    except Exception as exc:  # noqa: BLE001 -- an internal error
        return "internal", f"{type(exc).__name__}: {exc}\n{text}"
    return "ok", kind


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    opts = parser.parse_args(argv)
    counts, reasons, kinds = Counter(), Counter(), Counter()
    bad = False
    with tempfile.TemporaryDirectory() as tmp:
        sys.path.insert(0, tmp)
        for seed in range(opts.seed, opts.seed + opts.n):
            status, detail = run(seed, Path(tmp))
            counts[status] += 1
            kinds[(program(seed)[0], status)] += 1
            if status == "rejected":
                reasons[detail] += 1
            elif status != "ok":
                bad = True
                print(f"--- seed {seed}: {status}\n{detail}")
    print("by construct:", dict(sorted(kinds.items())))
    print("refusal reasons:")
    for reason, count in reasons.most_common():
        print(f"  {count:5d}  {reason}")
    print(f"programs: {opts.n}, {dict(counts)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
