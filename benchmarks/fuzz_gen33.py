"""Random scalar programs of the shape real code has: module-level helper functions (called
with per-example and shared arguments, calling each other, returning tuples, returning early),
``while`` loops with ``break``/``continue`` under a counter bound, ``for`` over a shared
``range(k)`` and a per-example ``range(int(x) % 5)``, nested ``if``/``elif``/``else`` on
``and``/``or``/``not`` and chained comparisons, ternaries, augmented assignments mixing int,
float and bool, ``math.*`` and builtins (``divmod``, 3-argument ``pow``, ``round``...), tuple
unpacking and swaps, local tuples indexed by a shared int, module constant tables,
``try``/``except`` and ``raise ValueError`` under per-example conditions.

    python benchmarks/fuzz_gen33.py --seeds 0-999 --api both --backend numpy

Each program runs through ``vectorize(fallback="error")`` against ``numpy.vectorize`` itself
(values and dtype, or the same exception type) and ``vmap`` against the stacked loop over
NumPy scalars (values, or the same exception type), on batches of 0, 1 and 7 examples of
float64/float32/float16/int64/int32/uint8/bool arguments, once with moderate values and once
with NaN, inf, +-0, negatives and huge ints. A refusal (VectorizeError) is counted; a
mismatch or an internal error is printed with its minimized program; exit status 1 then.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import signal
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

TABLE = (1.5, -2.0, 3.0, 0.5, 4.0)
ITABLE = (3, -1, 0, 7, 2)
"""
DTYPES = ["float64", "float64", "float32", "float16", "int64", "int32", "uint8", "bool"]
MODERATE = [0.5, 1.0, 2.0, 3.0, 1.5, 4.0, 0.25, 6.0, 2.5]
SPECIAL = [
    0.0,
    -0.0,
    -1.0,
    -2.5,
    float("nan"),
    float("inf"),
    float("-inf"),
    1e300,
    -7.0,
    2.0**62,
    255.0,
    3.0,
]
FLOATLIT = ["0.5", "2.0", "-1.5", "3.0", "0.0", "1e-3", "10.0", "-0.0", "1e308"]
INTLIT = ["0", "1", "2", "3", "-1", "5", "7", "255", "2**62"]


class Gen:
    """One program: helpers h0.. and ``f(x, y, n, k)`` (x, y, n per example, k shared)."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.helpers: list[tuple[str, int, bool]] = []  # (name, arity, returns a tuple)
        self.counter = 0

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}{self.counter}"

    # ------------------------------------------------------------------ expressions
    def atom(self, env: list[str], shared: list[str]) -> str:
        r = self.rng.random()
        if r < 0.55 and env:
            return self.rng.choice(env)
        if r < 0.7:
            return self.rng.choice(FLOATLIT[:7])
        if r < 0.8:
            return self.rng.choice(INTLIT[:7])
        if r < 0.9 and shared:
            s = self.rng.choice(shared)
            return self.rng.choice([f"TABLE[{s} % 5]", f"ITABLE[{s} % 5]", s])
        return self.rng.choice(["True", "False", "len(TABLE)"])

    def num(self, env, shared, depth: int) -> str:
        rng = self.rng
        if depth <= 0 or rng.random() < 0.25:
            return self.atom(env, shared)
        a = self.num(env, shared, depth - 1)
        b = self.num(env, shared, depth - 1)
        forms = [
            f"({a} + {b})",
            f"({a} - {b})",
            f"({a} * {b})",
            f"({a} / {b})",
            f"({a} // {b})",
            f"({a} % {b})",
            f"(-{a})",
            f"abs({a})",
            f"min({a}, {b})",
            f"max({a}, {b})",
            f"round({a})",
            f"round({a}, 2)",
            f"int({a})",
            f"float({a})",
            f"math.sqrt(abs({a}))",
            f"math.sqrt({a})",
            f"math.log({a})",
            f"math.log(1.0 + abs({a}))",
            f"math.exp({a})",
            f"math.exp(-abs({a}))",
            f"math.floor({a})",
            f"math.copysign({a}, {b})",
            f"math.hypot({a}, {b})",
            f"math.fmod({a}, {b})",
            f"divmod({a}, {b})[0]",
            f"divmod({a}, {b})[1]",
            f"pow(int({a}) % 97, 3, 7)",
            f"pow(int({a}), 2, 1 + abs(int({b})))",
            f"({a}) ** 2",
            f"({a} if {self.cond(env, shared, depth - 1)} else {b})",
            f"TABLE[int({a}) % 5]",
            f"ITABLE[{rng.choice(shared or ['0'])} % 5]",
        ]
        if self.helpers and rng.random() < 0.25:
            name, arity, tup = rng.choice(self.helpers)
            args = ", ".join(self.num(env, shared, depth - 1) for _ in range(arity))
            return f"{name}({args})[{rng.randint(0, 1)}]" if tup else f"{name}({args})"
        return rng.choice(forms)

    def cond(self, env, shared, depth: int) -> str:
        rng = self.rng
        a, b = self.num(env, shared, max(depth - 1, 0)), self.num(env, shared, max(depth - 1, 0))
        forms = [
            f"{a} < {b}",
            f"{a} >= {b}",
            f"{a} == {b}",
            f"{a} != {b}",
            f"0 < {a} <= {b}",
            f"-1.0 <= {a} < 2.5",
            f"math.isnan({a})",
            f"math.isclose({a}, {b})",
            f"bool({a})",
            f"not {a} > {b}",
            f"{a}",
        ]
        c = rng.choice(forms)
        if depth > 0 and rng.random() < 0.35:
            d = self.cond(env, shared, depth - 1)
            c = f"({c}) {rng.choice(['and', 'or'])} ({d})"
        if rng.random() < 0.1:
            c = f"not ({c})"
        return c

    # ------------------------------------------------------------------ statements
    def block(
        self, env, shared, locals_, depth: int, n: int, in_loop=False, in_helper=False
    ) -> list[str]:
        out = []
        for _ in range(n):
            out += self.stmt(env, shared, locals_, depth, in_loop, in_helper)
        return out or ["pass"]

    def stmt(self, env, shared, locals_, depth, in_loop, in_helper) -> list[str]:
        rng = self.rng
        kinds = [
            "assign",
            "assign",
            "aug",
            "aug",
            "if",
            "for",
            "forx",
            "while",
            "swap",
            "tuple",
            "try",
            "raise",
            "ret",
            "call",
        ]
        if depth <= 0:
            kinds = ["assign", "aug", "swap", "tuple", "raise", "ret"]
        if in_loop:
            kinds += ["break", "continue"]
        kind = rng.choice(kinds)
        ind = lambda lines: ["    " + s for s in lines]  # noqa: E731
        target = rng.choice(locals_)
        if kind == "assign":
            return [f"{target} = {self.num(env, shared, 2)}"]
        if kind == "aug":
            op = rng.choice(["+=", "-=", "*=", "+=", "//=", "%=", "/="])
            value = rng.choice(
                [self.num(env, shared, 1), "True", "1", "0.5", f"({env[0]} > {env[1]})"]
            )
            return [f"{target} {op} {value}"]
        if kind == "if":
            lines = [f"if {self.cond(env, shared, 2)}:"]
            lines += ind(
                self.block(env, shared, locals_, depth - 1, rng.randint(1, 2), in_loop, in_helper)
            )
            for _ in range(rng.randint(0, 2)):
                lines.append(f"elif {self.cond(env, shared, 1)}:")
                lines += ind(self.block(env, shared, locals_, depth - 1, 1, in_loop, in_helper))
            if rng.random() < 0.6:
                lines.append("else:")
                lines += ind(self.block(env, shared, locals_, depth - 1, 1, in_loop, in_helper))
            return lines
        if kind in ("for", "forx"):
            i = self.fresh("i")
            bound = (
                rng.choice(shared)
                if kind == "for" and shared
                else rng.choice(
                    [
                        f"int({rng.choice(env)}) % 5",
                        f"{rng.choice(env)} % 4" if "n" in env else "3",
                        "3",
                    ]
                )
            )
            lines = [f"for {i} in range({bound}):"]
            lines += ind(
                self.block(
                    env + [i], shared, locals_, depth - 1, rng.randint(1, 3), True, in_helper
                )
            )
            return lines
        if kind == "while":
            c = self.fresh("c")
            lines = [
                f"{c} = 0",
                f"while ({self.cond(env, shared, 1)}) and {c} < {rng.randint(2, 6)}:",
                f"    {c} += 1",
            ]
            lines += ind(
                self.block(
                    env + [c], shared, locals_, depth - 1, rng.randint(1, 3), True, in_helper
                )
            )
            return lines
        if kind == "break" or kind == "continue":
            return [f"if {self.cond(env, shared, 1)}:", f"    {kind}"]
        if kind == "swap":
            a, b = rng.sample(locals_, 2) if len(locals_) > 1 else (target, target)
            return [f"{a}, {b} = {b}, {a}"]
        if kind == "tuple":
            t = self.fresh("t")
            items = [self.num(env, shared, 1) for _ in range(3)]
            idx = rng.choice(shared) if shared else "1"
            return [f"{t} = ({', '.join(items)})", f"{target} = {t}[{idx} % 3]"]
        if kind == "try":
            exc = rng.choice(
                [
                    "ZeroDivisionError",
                    "ValueError",
                    "OverflowError",
                    "(ZeroDivisionError, ValueError)",
                    "ArithmeticError",
                ]
            )
            risky = rng.choice(
                [
                    f"1.0 / {rng.choice(env)}",
                    f"math.log({rng.choice(env)})",
                    f"math.sqrt({rng.choice(env)})",
                    f"math.exp({rng.choice(env)})",
                    f"{rng.choice(env)} % {rng.choice(env)}",
                    f"int({rng.choice(env)})",
                    self.num(env, shared, 2),
                ]
            )
            lines = [
                "try:",
                f"    {target} = {risky}",
                f"except {exc}:",
                f"    {target} = {rng.choice(FLOATLIT[:5] + INTLIT[:3])}",
            ]
            return lines
        if kind == "raise":
            return [f"if {self.cond(env, shared, 1)}:", "    raise ValueError('bad example')"]
        if kind == "ret":
            return [
                f"if {self.cond(env, shared, 1)}:",
                f"    return {self.ret(env, shared, in_helper)}",
            ]
        if kind == "call" and self.helpers:
            name, arity, tup = rng.choice(self.helpers)
            args = ", ".join(self.num(env, shared, 1) for _ in range(arity))
            if tup:
                a, b = rng.sample(locals_, 2) if len(locals_) > 1 else (target, target)
                return [f"{a}, {b} = {name}({args})"]
            return [f"{target} = {name}({args})"]
        return [f"{target} = {self.num(env, shared, 1)}"]

    def ret(self, env, shared, in_helper) -> str:
        if in_helper and self.ret_tuple:
            return f"{self.num(env, shared, 1)}, {self.num(env, shared, 1)}"
        return self.num(env, shared, 2)

    def helper(self, index: int) -> list[str]:
        rng = self.rng
        arity = rng.choice([1, 2, 2, 3])
        params = ["a", "b", "c"][:arity]
        self.ret_tuple = rng.random() < 0.3
        locals_ = ["u", "w"]
        body = ["u = " + rng.choice(["0.0", "0", "a", "1.0"]), "w = " + rng.choice(params)]
        body += self.block(params + locals_, [], locals_, 2, rng.randint(1, 3), False, True)
        body.append(f"return {self.ret(params + locals_, [], True)}")
        name = f"h{index}"
        lines = [f"def {name}({', '.join(params)}):"] + ["    " + s for s in body]
        self.helpers.append((name, arity, self.ret_tuple))
        return lines

    def program(self) -> tuple[str, list[str]]:
        rng = self.rng
        helpers = []
        for i in range(rng.randint(0, 3)):
            helpers.append(self.helper(i))
        self.ret_tuple = False
        env, shared = ["x", "y", "n", "k"], ["k"]
        locals_ = ["s", "t", "r"]
        body = [
            "s = " + rng.choice(["0.0", "0", "x", "y * 1.0"]),
            "t = " + rng.choice(["1", "y", "n", "False"]),
            "r = " + rng.choice(["0.0", "x", "k"]),
        ]
        body += self.block(env + locals_, shared, locals_, 3, rng.randint(2, 5))
        final = rng.choice(
            ["s", "s + t", "r", self.num(env + locals_, shared, 2), "s if t else r", "(s, r)"]
        )
        body.append(f"return {final}")
        main = ["def f(x, y, n, k):"] + ["    " + s for s in body]
        lines = HEAD.splitlines() + [""]
        for h in helpers:
            lines += ["", ""] + h
        lines += ["", ""] + main
        return "\n".join(lines) + "\n"


def source(seed: int) -> str:
    return Gen(random.Random(seed)).program()


def inputs(seed: int, n: int, special: bool):
    rng = np.random.default_rng(seed * 31 + n + (7 if special else 0))
    pyrng = random.Random(seed)
    dx, dy = pyrng.choice(DTYPES), pyrng.choice(DTYPES)
    dn = pyrng.choice(["int64", "int32", "uint8", "int64"])
    k = pyrng.choice([0, 1, 2, 3, 4, 7])
    pool = SPECIAL + MODERATE[:3] if special else MODERATE
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = np.array(rng.choice(pool, n), dtype=np.float64).astype(dx)
        y = np.array(rng.choice(pool, n), dtype=np.float64).astype(dy)
        nn = rng.choice([0, 1, 2, 3, 5, 9, -3, 200] if special else [0, 1, 2, 3, 4], n)
        if dn == "uint8":
            nn = np.abs(nn)
        nn = nn.astype(dn)
    return [x, y, nn], k


# ------------------------------------------------------------------ running and comparing
def _outcome(call):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return call(), None
        except VectorizeError:
            raise
        except Exception as exc:  # noqa: BLE001 -- compared by type
            return None, exc


def _to_numpy(value):
    if isinstance(value, tuple):
        return tuple(_to_numpy(v) for v in value)
    if hasattr(value, "detach"):
        return value.detach().cpu().numpy()
    return np.asarray(value)


def _same(a, b, dtype: bool) -> str | None:
    """None where equal, else the class of the difference: 'value' or 'dtype'."""
    if isinstance(a, tuple) or isinstance(b, tuple):
        if not (isinstance(a, tuple) and isinstance(b, tuple)) or len(a) != len(b):
            return "value"
        for p, q in zip(a, b):
            d = _same(p, q, dtype)
            if d:
                return d
        return None
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return "value"
    if a.dtype.kind in "fc" and b.dtype.kind in "fc":
        with np.errstate(all="ignore"):
            rtol = 1e-12 if min(a.dtype.itemsize, b.dtype.itemsize) >= 8 else 1e-5
            ok = np.allclose(
                a.astype(np.complex128), b.astype(np.complex128), rtol=rtol, atol=0, equal_nan=True
            )
    elif a.dtype.kind == "O" or b.dtype.kind == "O":
        ok = list(map(repr, a.flat)) == list(map(repr, b.flat))
    else:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ok = bool(np.array_equal(a, b))
    if not ok:
        return "value"
    if dtype and a.dtype != b.dtype:
        return "dtype"
    return None


def _load(text: str, directory: Path, stem: str):
    path = directory / f"{stem}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules.pop(stem, None)
    spec.loader.exec_module(module)
    return module.f


def check(text: str, seed: int, directory: Path, api: str, backend: str, stem: str, *,
          inputs=inputs, sizes=(7, 1, 0), signature: str | None = None,
          copy_rows: bool = False):
    """(status, detail): status 'ok', 'rejected' (detail: the refusal's first line),
    'vacuous' or '<api> <class>' for a bug.

    ``inputs(seed, n, special)`` gives the per-example arguments and the shared one, on
    batches of ``sizes`` examples; ``signature`` is the gufunc signature both
    ``vectorize`` and ``numpy.vectorize`` get (`fuzz_arrays34`); ``copy_rows``: the
    references get copies of the argument arrays and of their rows, so that a program
    writing into its arguments cannot change what the next call reads."""
    f = _load(text, directory, stem)
    names = f.__code__.co_varnames[:3]
    compared, raised = False, set()
    for special in (False, True):
        for n in sizes:
            args, k = inputs(seed, n, special)
            try:
                if api == "vectorize":
                    wrapped = vectorize(f, signature=signature, fallback="error",
                                        backend=backend)
                    got, got_err = _outcome(lambda: _to_numpy(wrapped(*args, k)))  # noqa: B023
                    if n == 0:
                        # with a signature, numpy.vectorize's own error at size 0 is matched
                        # (without one it refuses every size-0 call: nothing to match)
                        ref_err = None if signature is None else _outcome(
                            lambda: np.vectorize(f, signature=signature)(*args, k))[1]  # noqa: B023
                        if got_err is not None and type(got_err) is not type(ref_err):
                            return "vectorize internal", f"N=0: {got_err!r}"
                        continue
                    copies = [a.copy() for a in args] if copy_rows else args
                    exp, exp_err = _outcome(
                        lambda: np.vectorize(f, signature=signature)(*copies, k)  # noqa: B023
                    )
                else:
                    wrapped = vmap(f, in_axes=(0, 0, 0, None), backend=backend)
                    got, got_err = _outcome(lambda: _to_numpy(wrapped(*args, k)))  # noqa: B023
                    lanes, exp_err = [], None
                    with warnings.catch_warnings(), np.errstate(all="ignore"):
                        warnings.simplefilter("ignore")
                        for i in range(n):
                            rows = [a[i].copy() if copy_rows and a.ndim > 1 else a[i]
                                    for a in args]
                            try:
                                lanes.append(f(*rows, k))
                            except Exception as exc:  # noqa: BLE001
                                exp_err = exc
                                raised.add(type(exc))
                                break
                    if n == 0:
                        # as jax.vmap traces: an exception every example raises (the
                        # first example's type) may come at N=0
                        if got_err is not None and type(got_err) not in raised:
                            return "vmap internal", f"N=0: {got_err!r}"
                        continue
                    exp = None
                    if exp_err is None:
                        if isinstance(lanes[0], tuple):
                            exp = tuple(
                                np.stack([r[j] for r in lanes]) for j in range(len(lanes[0]))
                            )
                        else:
                            exp = np.stack(lanes)
            except VectorizeError as exc:
                return "rejected", str(exc).splitlines()[0].split(": ", 1)[-1]
            where = f"N={n} special={special} " + " ".join(
                f"{name}={a!r}" for name, a in zip(names, args)) + f" k={k}"
            if got_err is not None and exp_err is None:
                return f"{api} internal" if api == "vectorize" or not isinstance(
                    got_err, ArithmeticError | ValueError
                ) else f"{api} exception", f"{where}: raised {got_err!r}, reference {exp!r}"
            if exp_err is not None:
                if got_err is None:
                    return f"{api} exception", f"{where}: {got!r}, reference raised {exp_err!r}"
                if type(got_err) is not type(exp_err):
                    return f"{api} exception", f"{where}: {got_err!r} vs reference {exp_err!r}"
                continue
            compared = True
            diff = _same(got, exp, dtype=(api == "vectorize"))
            if diff:
                return f"{api} {diff}", f"{where}: {got!r} vs reference {exp!r}"
    return ("ok" if compared else "vacuous"), ""


def minimize(
    text: str, seed: int, directory: Path, api: str, backend: str, status: str, checker=None
) -> str:
    """Delete lines (a compound statement with its body) while the failure class stays;
    ``checker`` (default `check`, the same parameters) decides the class of a candidate."""
    checker = checker or check
    lines = text.splitlines()
    count = 0

    def still(candidate: list[str]) -> bool:
        nonlocal count
        count += 1
        src = "\n".join(candidate) + "\n"
        try:
            compile(src, "m", "exec")
        except SyntaxError:
            return False
        signal.alarm(20)
        try:
            got, _ = checker(src, seed, directory, api, backend, f"gen33_min_{seed}_{count}")
        except Exception:  # noqa: BLE001 -- TimeoutError included
            return False
        finally:
            signal.alarm(0)
        return got == status

    changed = True
    while changed:
        changed = False
        i = len(lines) - 1
        while i >= 0:
            line = lines[i]
            if (
                not line.strip()
                or line.startswith(("import", "def f("))
                or i == len(lines) - 1
                or (line.strip().startswith("c") and line.strip().endswith("+= 1"))
            ):
                i -= 1
                continue
            indent = len(line) - len(line.lstrip())
            j = i + 1
            while (
                j < len(lines)
                and lines[j].strip()
                and len(lines[j]) - len(lines[j].lstrip()) > indent
            ):
                j += 1
            for cand in (
                lines[:i] + lines[j:],
                lines[:i] + [lines[k][4:] for k in range(i + 1, j)] + lines[j:]
                if j > i + 1 and line.rstrip().endswith(":")
                else None,
            ):
                if cand is not None and still(cand):
                    lines = cand
                    changed = True
                    break
            i = min(i, len(lines)) - 1
    return "\n".join(lines) + "\n"


def parse_args(argv=None):
    """(options, seeds, apis) of the command line ``--seeds A-B --api ... --backend ...
    --no-minimize`` (this generator's and `fuzz_gaps35`'s)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", default="0-199", help="A-B, inclusive")
    parser.add_argument("--api", choices=["vectorize", "vmap", "both"], default="both")
    parser.add_argument("--backend", choices=["numpy", "torch", "jax"], default="numpy")
    parser.add_argument("--no-minimize", action="store_true")
    opts = parser.parse_args(argv)
    lo, _, hi = opts.seeds.partition("-")
    seeds = range(int(lo), int(hi or lo) + 1)
    apis = ["vectorize", "vmap"] if opts.api == "both" else [opts.api]
    return opts, seeds, apis


def raise_timeout(*_):
    """The SIGALRM handler of the fuzzers' runs: `timed_check`'s limit reached."""
    raise TimeoutError


def timed_check(check, text, seed, directory, api, backend, stem, limit: int = 120):
    """(status, detail) of ``check(text, seed, directory, api, backend, stem)`` under a
    ``limit``-second alarm (`raise_timeout` installed): "timeout" when it runs out,
    "<api> internal" for an exception of the harness's call itself (a bug to see)."""
    signal.alarm(limit)
    try:
        return check(text, seed, directory, api, backend, stem)
    except TimeoutError:
        return "timeout", ""
    except Exception as exc:  # noqa: BLE001 -- in the harness: a bug to see
        return f"{api} internal", f"{type(exc).__name__}: {exc}"
    finally:
        signal.alarm(0)


def main(argv=None) -> int:
    opts, seeds, apis = parse_args(argv)
    counts, reasons, bugs = Counter(), Counter(), Counter()

    signal.signal(signal.SIGALRM, raise_timeout)
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        sys.path.insert(0, tmp)
        for seed in seeds:
            text = source(seed)
            for api in apis:
                status, detail = timed_check(
                    check, text, seed, directory, api, opts.backend, f"gen33_{seed}_{api}"
                )
                counts[(api, status.split()[-1] if " " in status else status)] += 1
                if status == "rejected":
                    reasons[detail[:100]] += 1
                elif status not in ("ok", "vacuous", "timeout"):
                    bugs[status] += 1
                    small = (
                        text
                        if opts.no_minimize
                        else minimize(text, seed, directory, api, opts.backend, status)
                    )
                    _, small_detail = check(
                        small, seed, directory, api, opts.backend, f"gen33_small_{seed}_{api}"
                    )
                    print(f"--- seed {seed}: {status}: {small_detail[:600]}\n{small}", flush=True)
    print("outcomes:", dict(sorted(counts.items())))
    print("bugs by class:", dict(bugs))
    print("refusal reasons:")
    for reason, count in reasons.most_common(15):
        print(f"  {count:5d}  {reason}")
    return 1 if bugs else 0


if __name__ == "__main__":
    sys.exit(main())
