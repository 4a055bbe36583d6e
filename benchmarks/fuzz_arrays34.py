"""Random functions of ONE example over per-example ARRAYS, with writes into local arrays.

    python benchmarks/fuzz_arrays34.py --seeds 0-299 --api both

``f(v, w, x, k)`` takes two per-example vectors ``v``, ``w`` (one length per call), a
per-example scalar ``x`` and a shared int ``k``, and builds local arrays the ways real code
does: ``np.zeros_like(v)``, ``v.copy()``, ``np.array(v)``, ``np.full(len(v), x)``,
``np.full(3, x)``, ``np.roll(v, k)`` / ``np.roll(v, <per-example shift>)``, ``np.sort``,
``np.where``, ``np.cumsum``, int and bool ``np.zeros``; then writes into them: under a
per-example condition inside a loop (``if v[i] > x: y[i] = ...``), at a shared or a
per-example index (``argmax``), through a second name (``z = y; z[0] = ...``), in a helper that
changes its argument in place, recurrences (``y[i] = y[i - 1] * a + v[i]``), cumulative
loops, slices with per-example starts (``y[j:] = x``, ``np.sum(v[j:])``) and shared ends
(``v[:k]``), augmented writes (``y *= x``); and reads them with ``argmax``/``argmin``,
reductions with ``axis=0``, ``np.any``/``np.all``, ``len``. Arguments are float64, float32,
int64, int32 or bool (x: float64/float32/int64/bool), with NaN/inf/+-0 in a second round,
N = 5, 1, 0 examples, vectors of length 1, 3 or 4.

``vectorize(f, signature="(n),(n),(),()->...", fallback="error")`` is compared with
``numpy.vectorize(f, signature=...)`` itself (values and dtype, or the same exception type),
``vmap(f, in_axes=(0, 0, 0, None))`` with the loop over rows and NumPy scalars (the harness,
the comparison and the minimizer are those of ``benchmarks/fuzz_gen33.py``). Prints the
outcomes, every wrong result or internal error with its minimized program, the refusals by
reason and by construct; exit status 1 when there was a wrong result or an internal error.
"""

from __future__ import annotations

import argparse
import random
import re
import signal
import sys
import tempfile
import warnings
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import fuzz_gen33  # noqa: E402
from fuzz_gen33 import minimize  # noqa: E402

HEAD = """import math

import numpy as np

TABLE = (1.5, -2.0, 3.0, 0.5, 4.0)
"""
VDTYPES = ["float64", "float64", "float32", "int64", "int32", "bool"]
WDTYPES = ["float64", "int64", "float32"]
XDTYPES = ["float64", "float64", "float32", "int64", "bool"]
MODERATE = [0.5, 1.0, 2.0, 3.0, 1.5, 4.0, 0.25, 6.0, -2.5, 0.0]
SPECIAL = [0.0, -0.0, -1.0, float("nan"), float("inf"), float("-inf"), 1e300, -7.0, 3.0, 2.0]
LITS = ["0.5", "2.0", "-1.5", "3.0", "0.0", "1", "2", "-1", "True"]


class Gen:
    """One program ``f(v, w, x, k)``; ``features`` names the constructs it uses."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.counter = 0
        self.features: set[str] = set()
        self.helpers: list[list[str]] = []
        self.arrays: list[str] = []  # local arrays of length len(v), written into
        self.short: list[str] = []  # local arrays of length 3

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}{self.counter}"

    # ------------------------------------------------------------------ expressions
    def scalar(self, depth: int, elems: list[str]) -> str:
        rng = self.rng
        pool = ["x", "s", "t", "x", "s"] + elems * 2
        if depth <= 0 or rng.random() < 0.3:
            r = rng.random()
            if r < 0.7:
                return rng.choice(pool)
            if r < 0.85:
                return rng.choice(LITS)
            return rng.choice(["k", "TABLE[k % 5]", "len(v)"])
        a, b = self.scalar(depth - 1, elems), self.scalar(depth - 1, elems)
        return rng.choice([
            f"({a} + {b})", f"({a} - {b})", f"({a} * {b})", f"({a} * 0.5 + {b})",
            f"(-{a})", f"abs({a})", f"max({a}, {b})", f"min({a}, {b})",
            f"({a} if {self.cond(elems)} else {b})", f"({a} / (1.0 + abs({b})))",
        ])

    def cond(self, elems: list[str]) -> str:
        rng = self.rng
        a = rng.choice(elems + ["x", "s"]) if elems else rng.choice(["x", "s", "t"])
        b = rng.choice(["x", "t", "0.0", "1.5", "s", "-1"])
        c = rng.choice([f"{a} > {b}", f"{a} <= {b}", f"{a} == {b}", f"{a} != 0",
                        f"not {a} < {b}", f"math.isnan({a})" if rng.random() < 0.3 else f"{a} > 0"])
        if rng.random() < 0.2:
            c = f"{c} and {rng.choice(['x', 't', 's'])} > 0"
        return c

    def reduction(self) -> str:
        rng = self.rng
        a = rng.choice(["v", "w"] + self.arrays * 2)
        self.features.add("reduce")
        forms = [
            f"np.sum({a})", f"{a}.max()", f"np.min({a})", f"np.mean({a})",
            f"np.sum({a}, axis=0)", f"np.max({a}, axis=-1)", f"np.prod({a}[:2])",
            f"float(np.any({a} > x))", f"np.all({a} >= 0)", f"len({a})",
            f"np.dot({a}, w)", f"{a}[-1]", f"{a}[0]",
        ]
        r = rng.random()
        if r < 0.2:
            self.features.add("argmax")
            return rng.choice([f"np.argmax({a})", f"np.argmin({a})", f"{a}.argmax()",
                               f"int(np.argmin({a}))"])
        if r < 0.35:
            self.features.add("slice")
            return rng.choice([f"np.sum({a}[:k])", f"np.sum({a}[j:])", f"np.max({a}[j:])",
                               f"np.sum({a}[1:])", f"np.min({a}[:j + 1])", f"np.mean({a}[k:])"])
        if r < 0.45 and self.short:
            self.features.add("full_K")
            s = rng.choice(self.short)
            return rng.choice([f"np.sum({s})", f"{s}[k % 3]", f"{s}.max()"])
        if r < 0.52:
            self.features.add("sort")
            return rng.choice([f"np.sort({a})[0]", f"np.sort({a})[-1]", f"np.median({a})"])
        return rng.choice(forms)

    # ------------------------------------------------------------------ arrays
    def make(self) -> list[str]:
        rng = self.rng
        name = self.fresh("y")
        forms = [
            ("zeros_like", "np.zeros_like(v)"),
            ("zeros_like", "np.zeros_like(w, dtype=float)"),
            ("copy", "v.copy()"),
            ("copy", "w.copy()"),
            ("array_copy", "np.array(v)"),
            ("array_copy", "np.array(w, dtype=float)"),
            ("full", "np.full(len(v), x)"),
            ("full", f"np.full(len(v), {rng.choice(LITS[:5])})"),
            ("full", "np.ones(len(v))"),
            ("roll", "np.roll(v, k)"),
            ("roll", "np.roll(w, j)"),
            ("roll", "np.roll(v, -1)"),
            ("sort", "np.sort(v)"),
            ("where", "np.where(v > x, v, w)"),
            ("where", "np.where(w > 0, w, 0.0)"),
            ("cumsum", "np.cumsum(v)"),
            ("elementwise", "v * x + w"),
            ("dtype_int", "np.zeros(len(v), dtype=np.int64)"),
            ("dtype_bool", "np.zeros(len(v), dtype=bool)"),
            ("dtype_f32", "np.zeros(len(v), dtype=np.float32)"),
        ]
        if self.arrays:
            a = rng.choice(self.arrays)
            forms += [("copy", f"{a}.copy()"), ("array_copy", f"np.array({a})"),
                      ("roll", f"np.roll({a}, 1)")]
        if rng.random() < 0.15:
            short = self.fresh("q")
            self.features.add("full_K")
            self.short.append(short)
            val = rng.choice(["x", "t", "s", "0.5"])
            return [f"{short} = np.full(3, {val})", f"{short}[k % 3] = {self.scalar(1, [])}"]
        feat, expr = rng.choice(forms)
        self.features.add(feat)
        self.arrays.append(name)
        return [f"{name} = {expr}"]

    def write(self, depth: int) -> list[str]:
        rng = self.rng
        if not self.arrays:
            return self.make()
        y = rng.choice(self.arrays)
        kind = rng.choice(["cond_loop", "cond_loop", "cond_loop", "index", "pe_index",
                           "alias", "helper", "recurrence", "cumulative", "slice_write",
                           "aug", "loop_write"])
        self.features.add(kind)
        if kind == "cond_loop":
            i = self.fresh("i")
            src = rng.choice(["v", "w", y])
            elems = [f"{src}[{i}]", f"{y}[{i}]"]
            lines = [f"for {i} in range(len({y})):",
                     f"    if {self.cond(elems)}:",
                     f"        {y}[{i}] = {self.scalar(2, elems)}"]
            if rng.random() < 0.4:
                lines += ["    else:", f"        {y}[{i}] = {self.scalar(1, elems)}"]
            if rng.random() < 0.3:
                lines.insert(2, f"        t = t + {elems[0]}")
            return lines
        if kind == "loop_write":
            i = self.fresh("i")
            elems = [f"v[{i}]", f"w[{i}]"]
            return [f"for {i} in range(len(v)):", f"    {y}[{i}] = {self.scalar(2, elems)}"]
        if kind == "index":
            idx = rng.choice(["0", "-1", "k % len(v)", "len(v) - 1"])
            return [f"{y}[{idx}] = {self.scalar(2, [])}"]
        if kind == "pe_index":
            idx = rng.choice(["j", "np.argmax(v)", "int(np.argmin(w))", "len(v) - 1 - j"])
            return [f"{y}[{idx}] = {self.scalar(2, [])}"]
        if kind == "alias":
            z = self.fresh("z")
            idx = rng.choice(["0", "j", "-1"])
            return [f"{z} = {y}", f"{z}[{idx}] = {self.scalar(1, [])}",
                    f"t = t + {z}[{rng.choice(['0', '-1'])}]"]
        if kind == "helper":
            h = f"h{len(self.helpers)}"
            body = rng.choice([
                ["a[0] = c"],
                ["a[len(a) - 1] += c"],
                ["for m in range(len(a)):", "    if a[m] < c:", "        a[m] = c"],
                ["a *= 2", "a[0] = c"],
                ["a[:] = a[::-1]"],
                ["a[1:] = a[:-1] + c"],
            ])
            tail = rng.choice(["", "return c + 1.0", "return a[0]"])
            lines = [f"def {h}(a, c):"] + ["    " + s for s in body]
            if tail:
                lines.append("    " + tail)
            self.helpers.append(lines)
            arg = rng.choice(["x", "t", "s", "1.0"])
            if tail:
                return [f"s = {h}({y}, {arg})"]
            return [f"{h}({y}, {arg})"]
        if kind == "recurrence":
            i = self.fresh("i")
            a = rng.choice(["x", "0.5", "t", "-1.0"])
            src = rng.choice(["v", "w"])
            return [f"for {i} in range(1, len({y})):",
                    f"    {y}[{i}] = {y}[{i} - 1] * {a} + {src}[{i}]"]
        if kind == "cumulative":
            i = self.fresh("i")
            acc = self.fresh("acc")
            src = rng.choice(["v", "w"])
            op = rng.choice(["+=", "*=", "-="])
            lines = [f"{acc} = {rng.choice(['0.0', '1.0', 'x'])}",
                     f"for {i} in range(len({src})):",
                     f"    {acc} {op} {src}[{i}]",
                     f"    {y}[{i}] = {acc}"]
            if rng.random() < 0.4:
                lines.insert(2, f"    if {src}[{i}] < {rng.choice(['x', '0.0'])}:")
                lines.insert(3, "        continue")
            return lines
        if kind == "slice_write":
            return [rng.choice([f"{y}[j:] = {self.scalar(1, [])}",
                                f"{y}[:k] = {self.scalar(1, [])}",
                                f"{y}[1:] = {y}[:-1] * {rng.choice(['x', '0.5'])}",
                                f"{y}[:j] = v[:j]"])]
        # aug
        return [rng.choice([f"{y} *= {rng.choice(['x', '2', 't'])}", f"{y} += v",
                            f"{y}[j] += {self.scalar(1, [])}", f"{y} -= w"])]

    # ------------------------------------------------------------------ statements
    def stmt(self, depth: int, nested: bool = False) -> list[str]:
        rng = self.rng
        r = rng.random()
        if nested and (r < 0.25 or not self.arrays):
            # (no array made under a condition: a name bound on some paths only)
            return [f"s = {self.scalar(2, [])}"]
        if r < 0.25 or not self.arrays:
            return self.make()
        if r < 0.65:
            return self.write(depth)
        if r < 0.85:
            target = rng.choice(["s", "t"])
            return [f"{target} = {rng.choice([self.reduction(), self.scalar(2, [])])}"]
        if depth > 0:
            self.features.add("if_scalar")
            lines = [f"if {self.cond([])}:"]
            lines += ["    " + s for s in self.stmt(depth - 1, True)]
            if rng.random() < 0.5:
                lines += ["else:"] + ["    " + s for s in self.stmt(depth - 1, True)]
            return lines
        return [f"s = {self.reduction()}"]

    def program(self) -> str:
        rng = self.rng
        body = ["s = " + rng.choice(["0.0", "x", "v[0]", "np.sum(w)"]),
                "t = " + rng.choice(["0.0", "1.0", "x * 2.0"]),
                "j = " + rng.choice(["int(np.argmax(v))", "int(np.argmin(w))", "len(v) // 2"])]
        for _ in range(rng.randint(2, 6)):
            body += self.stmt(2)
        if not self.arrays:
            body += self.make()
        y = rng.choice(self.arrays)
        ret = rng.choice(["vector", "vector", "scalar", "pair"])
        if ret == "vector":
            body.append(f"return {y}")
        elif ret == "scalar":
            body.append(f"return {rng.choice(['s', 's + t', self.reduction()])}")
        else:
            body.append(f"return s, {y}")
        self.out = {"vector": "(n)", "scalar": "()", "pair": "(),(n)"}[ret]
        lines = HEAD.splitlines() + [""]
        for h in self.helpers:
            lines += ["", ""] + h
        lines += ["", "", "def f(v, w, x, k):"] + ["    " + s for s in body]
        return "\n".join(lines) + "\n"


def program(seed: int) -> tuple[str, set[str]]:
    gen = Gen(random.Random(seed))
    return gen.program(), gen.features


def signature(text: str) -> str:
    """The output signature from the program's return (the last line)."""
    last = text.rstrip().splitlines()[-1].strip()
    if re.fullmatch(r"return s, y\d+", last):
        out = "(),(n)"
    elif re.fullmatch(r"return y\d+", last):
        out = "(n)"
    else:
        out = "()"
    return f"(n),(n),(),()->{out}"


def inputs(seed: int, n: int, special: bool):
    rng = np.random.default_rng(seed * 31 + n + (7 if special else 0))
    pyrng = random.Random(seed)
    dv, dw, dx = pyrng.choice(VDTYPES), pyrng.choice(WDTYPES), pyrng.choice(XDTYPES)
    length = pyrng.choice([1, 3, 4, 4])
    k = pyrng.choice([0, 1, 2, 3, -1])
    pool = SPECIAL + MODERATE[:4] if special else MODERATE
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        v = np.array(rng.choice(pool, (n, length)), dtype=np.float64).astype(dv)
        w = np.array(rng.choice(pool, (n, length)), dtype=np.float64).astype(dw)
        x = np.array(rng.choice(pool, n), dtype=np.float64).astype(dx)
    return [v, w, x], k


def check(text: str, seed: int, directory: Path, api: str, backend: str, stem: str):
    """(status, detail): 'ok', 'rejected', 'vacuous' or '<api> <class>' for a bug
    (`fuzz_gen33.check` on this file's inputs, with the program's signature; the references
    get copies of the arrays, which the programs may write into)."""
    return fuzz_gen33.check(text, seed, directory, api, backend, stem, inputs=inputs,
                            sizes=(5, 1, 0), signature=signature(text), copy_rows=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", default="0-299", help="A-B, inclusive")
    parser.add_argument("--api", choices=["vectorize", "vmap", "both"], default="both")
    parser.add_argument("--backend", choices=["numpy", "torch", "jax"], default="numpy")
    parser.add_argument("--no-minimize", action="store_true")
    opts = parser.parse_args(argv)
    lo, _, hi = opts.seeds.partition("-")
    seeds = range(int(lo), int(hi or lo) + 1)
    apis = ["vectorize", "vmap"] if opts.api == "both" else [opts.api]
    counts, reasons, bugs = Counter(), Counter(), Counter()
    tried_by, refused_by = Counter(), Counter()

    signal.signal(signal.SIGALRM, fuzz_gen33.raise_timeout)
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        sys.path.insert(0, tmp)
        for seed in seeds:
            text, features = program(seed)
            for api in apis:
                status, detail = fuzz_gen33.timed_check(
                    check, text, seed, directory, api, opts.backend, f"arr34_{seed}_{api}"
                )
                counts[(api, status.split()[-1] if " " in status else status)] += 1
                for feat in features:
                    tried_by[feat] += 1
                    refused_by[feat] += status == "rejected"
                if status == "rejected":
                    reasons[detail[:120]] += 1
                elif status not in ("ok", "vacuous", "timeout"):
                    bugs[status] += 1
                    small = text if opts.no_minimize else minimize(
                        text, seed, directory, api, opts.backend, status, checker=check)
                    _, small_detail = check(
                        small, seed, directory, api, opts.backend, f"arr34_small_{seed}_{api}"
                    )
                    print(f"--- seed {seed}: {status}: {small_detail[:600]}\n{small}", flush=True)
    total = sum(counts.values())
    rejected = sum(c for (_, s), c in counts.items() if s == "rejected")
    print("outcomes:", dict(sorted(counts.items())))
    print(f"refused: {rejected}/{total} = {100 * rejected / max(total, 1):.1f} %")
    print("bugs by class:", dict(bugs))
    print("refused by construct (refused/tried):")
    for feat in sorted(tried_by):
        print(f"  {feat:14} {refused_by[feat]}/{tried_by[feat]}")
    print("refusal reasons:")
    for reason, count in reasons.most_common(20):
        print(f"  {count:5d}  {reason}")
    return 1 if bugs else 0


if __name__ == "__main__":
    sys.exit(main())
