"""Random programs of the constructs the other generators emit only as flat snippets (or not
at all), nested in per-example control flow: ``match`` on a per-example int with guards and
captures (and on a shared string key, and on tuples), the walrus in ``while`` conditions,
``for ... else`` with a per-example ``break``, ``while True`` with a per-example exit, closures
capturing per-example values (late binding, per-example defaults, ``nonlocal``), lambdas
passed to helpers and as ``key=``, comprehensions over shared ranges with per-example
conditions, string-keyed dict tables indexed by shared and per-example strings, per-example
complex arithmetic (``complex(x, y)``, ``abs(z)``, ``z.real``, ``cmath.*``), helpers called
with keyword and default arguments, int8/uint8/uint16 and float16 inputs under
overflow-prone arithmetic (``n * n * n``, ``-n``, ``n ** 3``), ``**``, ``divmod``, float
``//``/``%`` by negative divisors, unguarded division and ``round(x, n)`` -- and a module
helper ``hr`` rebound between two calls of the same wrapped function (it must give the new
answer).

    python benchmarks/fuzz_gaps35.py --seeds 0-299 --api both

The harness and the minimizer are `fuzz_gen33`'s (``f(x, y, n, k)``: x, y, n per example, k
shared): ``vectorize(fallback="error")`` against ``numpy.vectorize`` (values and dtype, or the
same exception type), ``vmap`` against the loop over NumPy scalars, N = 0, 1, 7, once with
moderate values and once with NaN, +-inf, +-0, negatives and the edges of the int dtypes.
"""

from __future__ import annotations

import random
import signal
import sys
import tempfile
import warnings
from collections import Counter
from functools import partial
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import fuzz_gen33 as gen33  # noqa: E402

from vectorize import VectorizeError, vectorize, vmap  # noqa: E402

HEAD = """import cmath
import math

TABLE = (1.5, -2.0, 3.0, 0.5, 4.0)
ITABLE = (3, -1, 0, 7, 2)
KEYS = ("lo", "mid", "hi")
STABLE = {"lo": -1.0, "mid": 0.5, "hi": 2.0}
NTABLE = {"lo": (1.0, 2.0, 3.0), "mid": (-0.5, 0.0, 0.5), "hi": (4.0, -4.0, 8.0)}


def hk(t, scale=2.0, *, shift=0.0):
    return t * scale + shift


def apply(fn, v, w=1.0):
    return fn(v) * w


def apply2(fn, a, b=0.5):
    if a > b:
        return fn(a, b)
    return fn(b, a)


def hloop(t, m=3):
    acc = 0.0
    for j in range(m):
        if acc > t:
            break
        acc += j * 0.5
    else:
        acc = -acc
    return acc


def hmatch(i, v=0.0):
    match i % 3:
        case 0:
            return v
        case 1 if v > 0:
            return -v
        case _:
            return v * 2.0


def hr(t):
    return t + 1.0


def hr_alt(t):
    return t * -2.0
"""

FLOATS = ["0.5", "2.0", "-1.5", "3.0", "0.0", "-0.0", "1e-3", "10.0", "1e300"]
NEGS = ["-2.5", "-3.0", "-0.5", "-1.0", "-7.0"]
INTS = ["0", "1", "2", "3", "-1", "5", "7", "200"]
FDTYPES = ["float64", "float64", "float32", "float16"]
IDTYPES = ["int8", "uint8", "uint16", "int64", "int32", "int16"]


class Gen:
    """One program ``f(x, y, n, k)``: x, y floats per example, n an int per example, k shared."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.counter = 0
        self.in_try = False  # no dict lookups in a try (refused: KeyError)
        self.callables: list[tuple[str, int]] = []  # local closures / lambdas (name, arity)

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}{self.counter}"

    def pick(self, weighted):
        """``weighted``: list of (weight, thunk); calls the chosen thunk."""
        total = sum(w for w, _ in weighted)
        r = self.rng.random() * total
        for w, thunk in weighted:
            r -= w
            if r <= 0:
                return thunk()
        return weighted[-1][1]()

    # ------------------------------------------------------------------ expressions
    def fatom(self, env) -> str:
        rng = self.rng
        return self.pick(
            [
                (6, lambda: rng.choice(env["f"])),
                (2, lambda: rng.choice(FLOATS)),
                (1, lambda: "TABLE[k % 5]"),
                (0 if self.in_try else 1, lambda: "STABLE[KEYS[k % 3]]"),
                (1, lambda: f"float({rng.choice(env['i'])})"),
                (0 if self.in_try else 1, lambda: f"STABLE[{rng.choice(env['s'])}]"),
                (1, lambda: f"NTABLE[KEYS[k % 3]][{rng.choice(env['i'])} % 3]"),
            ]
        )

    def iatom(self, env) -> str:
        rng = self.rng
        return self.pick(
            [
                (6, lambda: rng.choice(env["i"])),
                (2, lambda: rng.choice(INTS)),
                (1, lambda: "k"),
                (1, lambda: f"ITABLE[{rng.choice(env['i'])} % 5]"),
                (0.1, lambda: f"len({rng.choice(env['s'])})"),
            ]
        )

    def fexpr(self, env, depth: int) -> str:
        rng = self.rng
        if depth <= 0 or rng.random() < 0.2:
            return self.fatom(env)
        a = lambda: self.fexpr(env, depth - 1)  # noqa: E731
        i = lambda: self.iexpr(env, depth - 1)  # noqa: E731
        c = lambda: self.cond(env, depth - 1)  # noqa: E731
        lit = lambda: rng.choice(FLOATS)  # noqa: E731
        neg = lambda: rng.choice(NEGS)  # noqa: E731
        call = lambda: self.call(env, depth - 1)  # noqa: E731
        forms = [
            (3, lambda: f"({a()} {rng.choice(['+', '-', '*'])} {a()})"),
            (1, lambda: f"({a()} / {rng.choice([a(), lit()])})"),
            (1, lambda: f"({a()} // {neg()})"),
            (1, lambda: f"({a()} % {neg()})"),
            (1, lambda: f"({a()} // {rng.choice([a(), neg()])})"),
            (1, lambda: f"({a()} % {rng.choice([a(), neg()])})"),
            (1, lambda: f"({a()} + {i()})"),
            (1, lambda: f"({i()} / {i()})"),
            (1, lambda: f"({a()}) ** 2"),
            (1, lambda: f"abs({a()}) ** {rng.choice(['0.5', '1.5', '-0.5', '-1'])}"),
            (1, lambda: f"({a()}) ** -1"),
            (1, lambda: f"2.0 ** ({i()} % 40)"),
            (1, lambda: f"divmod({a()}, {rng.choice([neg(), a()])})[{rng.randint(0, 1)}]"),
            (1, lambda: f"round({a()}, {rng.choice(['2', '1', '0', '-1', 'k % 3'])})"),
            (1, lambda: f"({a()} if {c()} else {a()})"),
            (1, lambda: f"min({a()}, {a()})"),
            (1, lambda: f"max({a()}, {a()}, key=lambda t: abs(t - {a()}))"),
            (1, lambda: f"math.sqrt(abs({a()}))"),
            (1, lambda: f"math.log(1.0 + abs({a()}))"),
            (1, lambda: f"math.fmod({a()}, {neg()})"),
            (1, lambda: f"math.copysign({a()}, {a()})"),
            # complex per example
            (1, lambda: f"abs(complex({a()}, {a()}))"),
            (1, lambda: f"(complex({a()}, {a()}) * {rng.choice(['1j', '(2 - 1j)', '0.5'])}).real"),
            (1, lambda: f"(complex({a()}, {a()}) ** 2).imag"),
            (1, lambda: f"({a()} + 1j * {a()}).conjugate().imag"),
            (0.2, lambda: f"cmath.sqrt(complex({a()}, {a()})).{rng.choice(['real', 'imag'])}"),
            (0.1, lambda: f"abs(cmath.exp(complex({lit()}, {a()})))"),
            (0.1, lambda: f"cmath.phase(complex({a()}, {a()}))"),
            (0.1, lambda: f"cmath.polar(complex({a()}, {a()}))[{rng.randint(0, 1)}]"),
            (1, lambda: f"abs(complex({a()}, {a()}) / complex({a()}, {a()}))"),
            # comprehensions over shared ranges with per-example conditions
            (1, lambda: f"sum([{a()} * j for j in range(k) if j < {i()}])"),
            (1, lambda: f"sum(t * {a()} for t in TABLE if t > {a()})"),
            (0.3, lambda: f"max([t - {a()} for t in TABLE if t != {a()}] + [0.0])"),
            (1, lambda: f"sorted([{a()}, {a()}, {lit()}])[k % 3]"),
            (
                1,
                lambda: (
                    f"sorted([{a()}, {a()}, {lit()}], key=lambda t: -abs(t))[{rng.randint(0, 2)}]"
                ),
            ),
            # string-keyed tables
            (1, lambda: f"STABLE.get({rng.choice(env['s'])}, {lit()})"),
            (0.2, lambda: f"NTABLE[{rng.choice(env['s'])}][{i()} % 3]"),
            (3, call),
        ]
        return self.pick(forms)

    def iexpr(self, env, depth: int) -> str:
        rng = self.rng
        if depth <= 0 or rng.random() < 0.25:
            return self.iatom(env)
        i = lambda: self.iexpr(env, depth - 1)  # noqa: E731
        a = lambda: self.fexpr(env, depth - 1)  # noqa: E731
        c = lambda: self.cond(env, depth - 1)  # noqa: E731
        return self.pick(
            [
                (3, lambda: f"({i()} {rng.choice(['+', '-', '*'])} {i()})"),
                (1, lambda: f"({i()} * {i()} * {i()})"),
                (1, lambda: f"(-{i()})"),
                (1, lambda: f"({i()}) ** {rng.choice(['2', '3'])}"),
                (1, lambda: f"({i()} // {rng.choice(['-3', '7', '-1', i()])})"),
                (1, lambda: f"({i()} % {rng.choice(['-4', '5', i()])})"),
                (1, lambda: f"divmod({i()}, {rng.choice(['-3', '7', i()])})[{rng.randint(0, 1)}]"),
                (1, lambda: f"abs({i()} - 128)"),
                (1, lambda: f"round({i()}, {rng.choice(['-1', '-2', '0'])})"),
                (1, lambda: f"round({a()})"),
                (1, lambda: f"({i()} if {c()} else {i()})"),
                (1, lambda: f"max({i()}, {i()})"),
                (1, lambda: f"len([j for j in range(k) if j * {a()} > {lit_or(rng)}])"),
                (1, lambda: f"sum(1 for j in range(k) if j < {i()})"),
                (1, lambda: f"(({c()}) + {i()})"),
                (1, lambda: f"(({i()} & 7) + ({i()} >> 1))"),
                (1, lambda: f"int(hmatch({i()}, {a()}) > 0)"),
            ]
        )

    def cond(self, env, depth: int) -> str:
        rng = self.rng
        a = lambda: self.fexpr(env, max(depth - 1, 0))  # noqa: E731
        i = lambda: self.iexpr(env, max(depth - 1, 0))  # noqa: E731
        s = lambda: rng.choice(env["s"])  # noqa: E731
        c = self.pick(
            [
                (3, lambda: f"{a()} {rng.choice(['<', '>=', '==', '!='])} {a()}"),
                (2, lambda: f"{i()} {rng.choice(['<', '>', '==', '!='])} {i()}"),
                (1, lambda: f"0 < {i()} <= {i()}"),
                (1, lambda: f"{i()} in (1, 2, 3)"),
                (0.2, lambda: f"{i()} % 5 in range(k)"),
                (0.5, lambda: f"{a()} in TABLE"),
                (1, lambda: f"{s()} == {rng.choice(['KEYS[k % 3]', repr('lo'), repr('hi')])}"),
                (0.2, lambda: f"{s()} in STABLE"),
                (1, lambda: f"any({a()} > t for t in TABLE)"),
                (0.3, lambda: f"all([{a()} < t for t in TABLE if t > {a()}])"),
                (0.7, lambda: f"all({a()} < t for t in TABLE if t > {a()})"),
                (1, lambda: f"math.isnan({a()})"),
                (1, lambda: f"math.isfinite({a()})"),
                (1, lambda: f"abs(complex({a()}, {a()})) > {rng.choice(FLOATS)}"),
            ]
        )
        if depth > 0 and rng.random() < 0.3:
            c = f"({c}) {rng.choice(['and', 'or'])} ({self.cond(env, depth - 1)})"
        if rng.random() < 0.1:
            c = f"not ({c})"
        return c

    def call(self, env, depth: int) -> str:
        rng = self.rng
        a = lambda: self.fexpr(env, max(depth, 0))  # noqa: E731
        i = lambda: self.iexpr(env, max(depth, 0))  # noqa: E731
        x = lambda: rng.choice(env["f"])  # noqa: E731
        forms = [
            (1, lambda: f"hk({a()})"),
            (1, lambda: f"hk({a()}, {a()})"),
            (1, lambda: f"hk({a()}, shift={a()})"),
            (1, lambda: f"hk(scale={a()}, t={a()})"),
            (1, lambda: f"apply(lambda t: t * {x()} - {x()}, {a()})"),
            (1, lambda: f"apply(lambda t: {x()} if t > 0 else -t, {a()}, w={a()})"),
            (1, lambda: f"apply2(lambda p, q: p - q * {x()}, {a()})"),
            (1, lambda: f"apply2(lambda p, q: max(p, q) + {x()}, {a()}, b={a()})"),
            (1, lambda: f"hloop({a()})"),
            (1, lambda: f"hloop({a()}, {i()} % 5)"),
            (1, lambda: f"hloop({a()}, m=k)"),
            (1, lambda: f"hmatch({i()}, {a()})"),
            (1, lambda: f"hmatch({i()})"),
            (2, lambda: f"hr({a()})"),
        ]
        for name, arity in self.callables:
            # (an argument other than a name or a literal, to a parameter read twice, is
            # not inlined: refused, so mostly atoms)
            arg = lambda: a() if rng.random() < 0.2 else self.fatom(env)  # noqa: E731
            args = ", ".join(arg() for _ in range(arity))
            forms.append((2, lambda name=name, args=args: f"{name}({args})"))
            if arity == 1:
                forms.append((1, lambda name=name: f"apply({name}, {a()})"))
        return self.pick(forms)

    # ------------------------------------------------------------------ statements
    def block(self, env, depth, n, in_loop=False) -> list[str]:
        out = []
        for _ in range(n):
            out += self.stmt(env, depth, in_loop)
        return out or ["pass"]

    def body(self, env, depth, in_loop, lo=1, hi=2) -> list[str]:
        return ["    " + s for s in self.block(env, depth - 1, self.rng.randint(lo, hi), in_loop)]

    def stmt(self, env, depth, in_loop) -> list[str]:
        rng = self.rng
        fl = rng.choice(env["fl"])
        il = rng.choice(env["il"])
        a = lambda d=2: self.fexpr(env, d)  # noqa: E731
        i = lambda d=2: self.iexpr(env, d)  # noqa: E731
        c = lambda d=1: self.cond(env, d)  # noqa: E731

        def assign():
            return [f"{fl} = {a()}"]

        def iassign():
            return [f"{il} = {i()}"]

        def aug():
            if rng.random() < 0.6:
                return [f"{fl} {rng.choice(['+=', '-=', '*=', '/=', '//=', '%='])} {a(1)}"]
            return [f"{il} {rng.choice(['+=', '-=', '*='])} {i(1)}"]

        def swap():
            if len(env["fl"]) > 1 and rng.random() < 0.7:
                p, q = rng.sample(env["fl"], 2)
                return [f"{p}, {q} = {q}, {p}"]
            return [f"{fl}, {il} = {a(1)}, {i(1)}"]

        def unpack():
            if rng.random() < 0.5:
                p, q = rng.sample(env["fl"], 2) if len(env["fl"]) > 1 else (fl, fl)
                return [f"{p}, {q} = divmod({a(1)}, {rng.choice(NEGS + [a(1)])})"]
            return [
                f"{il}, {rng.choice(env['il'])} = divmod({i(1)}, {rng.choice(['7', '-3', i(1)])})"
            ]

        def if_():
            lines = [f"if {c(2)}:"] + self.body(env, depth, in_loop)
            for _ in range(rng.randint(0, 1)):
                lines += [f"elif {c()}:"] + self.body(env, depth, in_loop, 1, 1)
            if rng.random() < 0.6:
                lines += ["else:"] + self.body(env, depth, in_loop, 1, 1)
            return lines

        def match_int():
            subject = rng.choice([f"{i(1)} % 4", f"{rng.choice(env['i'])} % 3", "n % 5"])
            w = self.fresh("w")
            inner = dict(env, i=env["i"] + [w])
            lines = [f"match {subject}:", "    case 0 | 1:"]
            lines += ["    " + s for s in self.body(env, depth, in_loop, 1, 1)]
            lines += [f"    case {w} if {w} > {rng.choice(['1', 'k'])} and {c(0)}:"]
            lines += ["    " + s for s in self.body(inner, depth, in_loop, 1, 2)]
            if rng.random() < 0.5:
                lines += ["    case 2:"] + [
                    "    " + s for s in self.body(env, depth, in_loop, 1, 1)
                ]
            lines += ["    case _:"] + ["    " + s for s in self.body(env, depth, in_loop, 1, 1)]
            return lines

        def match_str():
            lines = [f"match {rng.choice(env['s'] + ['KEYS[k % 3]'])}:", "    case 'lo':"]
            lines += ["    " + s for s in self.body(env, depth, in_loop, 1, 1)]
            lines += [f"    case 'mid' | 'hi' if {c(0)}:"]
            lines += ["    " + s for s in self.body(env, depth, in_loop, 1, 1)]
            lines += ["    case _:"] + ["    " + s for s in self.body(env, depth, in_loop, 1, 1)]
            return lines

        def match_tuple():
            lines = [f"match ({rng.choice(env['i'])} % 2, {c(0)}):", "    case (0, True):"]
            lines += ["    " + s for s in self.body(env, depth, in_loop, 1, 1)]
            lines += ["    case (1, _):"] + [
                "    " + s for s in self.body(env, depth, in_loop, 1, 1)
            ]
            lines += ["    case _:"] + ["    " + s for s in self.body(env, depth, in_loop, 1, 1)]
            return lines

        def for_else():
            j = self.fresh("j")
            bound = rng.choice(["k", "3", f"{rng.choice(env['i'])} % 4", "k + 1"])
            inner = dict(env, i=env["i"] + [j])
            lines = [f"for {j} in range({bound}):"]
            lines += self.body(inner, depth, True, 1, 2)
            lines += [f"    if {self.cond(inner, 1)}:", "        break"]
            if rng.random() < 0.7:
                lines += ["else:"] + self.body(env, depth, in_loop, 1, 1)
            return lines

        def for_table():
            t = self.fresh("t")
            inner = dict(env, f=env["f"] + [t])
            src = rng.choice(
                [
                    "TABLE",
                    "NTABLE[KEYS[k % 3]]",
                    "TABLE",
                    "NTABLE[KEYS[k % 3]]",
                    f"NTABLE[{rng.choice(env['s'])}]",
                ]
            )
            lines = [f"for {t} in {src}:"] + self.body(inner, depth, True, 1, 2)
            if rng.random() < 0.5:
                lines += ["else:"] + self.body(env, depth, in_loop, 1, 1)
            return lines

        def while_walrus():
            cnt, w = self.fresh("c"), self.fresh("w")
            inner = dict(env, f=env["f"] + [w])
            lines = [
                f"{cnt} = 0",
                f"while ({cnt} := {cnt} + 1) <= {rng.randint(1, 5)} and ({w} := {a(1)}) > "
                f"{rng.choice(FLOATS[:5])}:",
            ]
            lines += self.body(inner, depth, True, 1, 2)
            return lines

        def while_true():
            cnt = self.fresh("c")
            inner = dict(env, i=env["i"] + [cnt])
            lines = [f"{cnt} = 0", "while True:", f"    {cnt} += 1"]
            lines += [f"    if {cnt} > {rng.randint(1, 6)}:", "        break"]
            lines += self.body(inner, depth, True, 1, 2)
            lines += [f"    if {self.cond(inner, 1)}:", "        break"]
            return lines

        def try_():
            self.in_try = True
            risky = rng.choice(
                [
                    f"{a(1)} / {a(1)}",
                    f"math.log({a(1)})",
                    f"math.sqrt({a(1)})",
                    f"math.log(abs(complex({a(1)}, {a(1)})))",
                    f"abs(complex({a(1)}, {a(1)}) / complex({a(1)}, 0.0))",
                    f"float(int({a(1)}))",
                    f"{a(1)} ** -1",
                    f"TABLE[{i(1)}]",
                    f"math.exp({a(1)})",
                ]
            )
            self.in_try = False
            exc = rng.choice(
                [
                    "ZeroDivisionError",
                    "ValueError",
                    "(ZeroDivisionError, ValueError)",
                    "ArithmeticError",
                    "IndexError",
                    "(ValueError, OverflowError)",
                    "Exception",
                ]
            )
            lines = ["try:", f"    {fl} = {risky}", f"except {exc}:"]
            lines += self.body(env, depth, in_loop, 1, 1)
            if rng.random() < 0.3:
                lines += ["else:"] + self.body(env, depth, in_loop, 1, 1)
            return lines

        def skey():
            sv = rng.choice(env["sl"])
            return [
                f"{sv} = {rng.choice(['KEYS[k % 3]', repr('lo'), repr('mid')])} if {c()} else "
                f"{rng.choice(['KEYS[(k + 1) % 3]', repr('hi'), repr('other')])}"
            ]

        def local_dict():
            d = self.fresh("d")
            sv = rng.choice(env["s"])
            return [
                f"{d} = {{'lo': {a(1)}, 'hi': {a(1)}}}",
                f"if {c()}:",
                f"    {d}[{sv}] = {a(1)}",
                f"{fl} = {d}.get({sv}, {rng.choice(FLOATS)}) + {d}['lo']",
            ]

        def append_list():
            acc, j = self.fresh("acc"), self.fresh("j")
            inner = dict(env, i=env["i"] + [j])
            return [
                f"{acc} = []",
                f"for {j} in range({rng.choice(['k', '4'])}):",
                f"    if {self.cond(inner, 1)}:",
                f"        {acc}.append({self.fexpr(inner, 1)})",
                f"{fl} = sum({acc}) + len({acc})",
            ]

        def raise_():
            return [f"if {c()}:", "    raise ValueError('bad example')"]

        def ret():
            return [f"if {c()}:", f"    return {self.ret_expr(env)}"]

        def brk():
            return [f"if {c()}:", f"    {rng.choice(['break', 'continue'])}"]

        kinds = [
            (4, assign),
            (2, iassign),
            (2, aug),
            (1, swap),
            (1, unpack),
            (1, skey),
            (1, raise_),
            (1, ret),
        ]
        if depth > 0:
            kinds += [
                (3, if_),
                (2, match_int),
                (1, match_str),
                (0.3, match_tuple),
                (2, for_else),
                (1, for_table),
                (2, while_walrus),
                (1, while_true),
                (2, try_),
                (1, local_dict),
                (1, append_list),
            ]
        if in_loop:
            kinds += [(1, brk)]
        return self.pick(kinds)

    def ret_expr(self, env) -> str:
        if self.ret_kind == "f":
            return self.fexpr(env, 1)
        if self.ret_kind == "i":
            return self.iexpr(env, 1)
        return f"{self.fexpr(env, 1)}, {self.iexpr(env, 1)}"

    def defs(self, env) -> list[str]:
        """Top-level closures / lambdas of ``f`` (capturing per-example values)."""
        rng = self.rng
        out = []
        for _ in range(rng.choice([0, 0, 1, 1, 2])):
            name = self.fresh("g")
            cap = rng.choice(env["fl"] + ["x", "y"])
            kind = rng.choice(
                ["closure"] * 4
                + ["lambda"] * 3
                + ["lambda2"] * 2
                + ["closure_if", "lambda_default", "default", "nonlocal"]
            )
            if kind == "closure":
                out += [
                    f"def {name}(t):",
                    f"    u = t * {rng.choice(FLOATS[:4])} + {cap}",
                    f"    return t - {cap} if t > {cap} else u",
                ]
                self.callables.append((name, 1))
            elif kind == "closure_if":
                out += [
                    f"def {name}(t):",
                    f"    if t > {cap}:",
                    f"        return t - {cap}",
                    f"    return t * {rng.choice(FLOATS[:4])} + {cap}",
                ]
                self.callables.append((name, 1))
            elif kind == "default":
                out += [
                    f"def {name}(t, u={rng.choice(['x', 'y', 'n'])}, *, "
                    f"v={rng.choice(FLOATS[:4])}):",
                    f"    return t * u - v + {cap}",
                ]
                self.callables.append((name, 1))
            elif kind == "lambda":
                out += [
                    f"{name} = lambda t: t * {cap} if t > 0 else t - {rng.choice(['n', 'k', cap])}"
                ]
                self.callables.append((name, 1))
            elif kind == "lambda2":
                out += [f"{name} = lambda p, q: p * q + {cap}"]
                self.callables.append((name, 2))
            elif kind == "lambda_default":
                out += [f"{name} = lambda p, q=1.0: p * q + {cap}"]
                self.callables.append((name, 2))
            else:
                fl = rng.choice(env["fl"])
                out += [
                    f"def {name}(t):",
                    f"    nonlocal {fl}",
                    f"    {fl} = {fl} + t",
                    f"    return {fl}",
                ]
                self.callables.append((name, 1))
        return out

    def program(self) -> str:
        rng = self.rng
        self.ret_kind = rng.choice(["f", "f", "f", "i", "fi"])
        env = {
            "f": ["x", "y", "s", "r"],
            "fl": ["s", "r"],
            "i": ["n", "m"],
            "il": ["m"],
            "s": ["key"],
            "sl": ["key"],
        }
        body = [
            "s = " + rng.choice(["0.0", "x", "y * 1.0", "x - y"]),
            "r = " + rng.choice(["1.0", "y", "float(k)", "abs(x)"]),
            "m = " + rng.choice(["0", "n", "k", "n * 2"]),
            "key = " + rng.choice(["KEYS[k % 3]", "'lo' if x < 0 else 'hi'", "'mid'"]),
        ]
        body += self.defs(env)
        for name, arity in self.callables:  # each one called at least once
            args = ", ".join(self.fatom(env) for _ in range(arity))
            body.append(f"{rng.choice(env['fl'])} = {name}({args})")
        body += self.block(env, 2, rng.randint(1, 3))
        body.append(f"return {self.ret_expr(env)}")
        main = ["def f(x, y, n, k):"] + ["    " + s for s in body]
        return HEAD + "\n\n" + "\n".join(main) + "\n"


def lit_or(rng) -> str:
    return rng.choice(FLOATS[:5])


def source(seed: int) -> str:
    return Gen(random.Random(seed)).program()


FSPECIAL = [
    0.0,
    -0.0,
    -1.0,
    -2.5,
    float("nan"),
    float("inf"),
    float("-inf"),
    1e300,
    300.0,
    65504.0,
    7.0,
    0.5,
]
ISPECIAL = [0, 1, -1, 127, -128, 255, 300, 65535, 3, -7, 2**31 - 1]
MODERATE = [0.5, 1.0, 2.0, 3.0, 1.5, 4.0, 0.25, 6.0, 2.5, -1.5]


def inputs(seed: int, n: int, special: bool):
    """``([x, y, n], k)``: float16/32/64 x and y, int8/uint8/uint16/int16/32/64 n."""
    rng = np.random.default_rng(seed * 37 + n + (11 if special else 0))
    pyrng = random.Random(seed + 1)
    dx, dy = pyrng.choice(FDTYPES), pyrng.choice(FDTYPES)
    dn = pyrng.choice(IDTYPES)
    k = pyrng.choice([0, 1, 2, 3, 4])
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fpool = FSPECIAL + MODERATE[:3] if special else MODERATE
        x = np.array(rng.choice(fpool, n), dtype=np.float64).astype(dx)
        y = np.array(rng.choice(fpool, n), dtype=np.float64).astype(dy)
        ipool = ISPECIAL if special else [0, 1, 2, 3, 4, 5]
        nn = np.array(rng.choice(ipool, n), dtype=np.int64).astype(dn)
    return [x, y, nn], k


def check(text, seed, directory, api, backend, stem):
    """`fuzz_gen33.check` on this generator's inputs, then (where ``f`` calls ``hr``) the
    helper rebound between two calls of one wrapped function."""
    status, detail = gen33.check(text, seed, directory, api, backend, stem, inputs=inputs)
    if status != "ok" or "hr(" not in text.split("def f(", 1)[1]:
        return status, detail
    return rebound(text, seed, directory, api, backend, stem + "_rb")


def _keeps_head(text, seed, directory, api, backend, stem):
    """`check` for the minimizer: a candidate without the module's tables and helpers (a
    NameError of its own) is not the same failure."""
    if not text.startswith(HEAD):
        return "generator", ""
    return check(text, seed, directory, api, backend, stem)


def rebound(text, seed, directory, api, backend, stem):
    """Call the wrapped ``f``, rebind the module's ``hr`` to ``hr_alt``, call it again: the
    second call must equal the reference computed after the rebinding."""
    f = gen33._load(text, directory, stem)
    args, k = inputs(seed, 7, False)
    try:
        if api == "vectorize":
            wrapped = vectorize(f, fallback="error", backend=backend)
        else:
            wrapped = vmap(f, in_axes=(0, 0, 0, None), backend=backend)
        gen33._outcome(lambda: wrapped(*args, k))
        f.__globals__["hr"] = f.__globals__["hr_alt"]
        got, got_err = gen33._outcome(lambda: gen33._to_numpy(wrapped(*args, k)))
    except VectorizeError as exc:
        return "rejected", str(exc).splitlines()[0].split(": ", 1)[-1][:100]
    if api == "vectorize":
        exp, exp_err = gen33._outcome(lambda: np.vectorize(f)(*args, k))
    else:

        def loop():
            lanes = [f(args[0][i], args[1][i], args[2][i], k) for i in range(7)]
            if isinstance(lanes[0], tuple):
                return tuple(np.stack([r[j] for r in lanes]) for j in range(len(lanes[0])))
            return np.stack(lanes)

        exp, exp_err = gen33._outcome(loop)
    if exp_err is not None or got_err is not None:
        if exp_err is not None and got_err is not None and type(exp_err) is type(got_err):
            return "ok", ""
        return f"{api} rebound", f"after rebinding hr: {got_err or got!r} vs {exp_err or exp!r}"
    diff = gen33._same(got, exp, dtype=(api == "vectorize"))
    if diff:
        return f"{api} rebound", f"after rebinding hr: {got!r} vs reference {exp!r}"
    return "ok", ""


def run(seeds, apis, backend="numpy", minimize=True, out=print):
    """Run the seeds; returns (outcome counts, refusal reasons, bugs {status: [seed]})."""
    counts, reasons, bugs = Counter(), Counter(), {}

    old = signal.signal(signal.SIGALRM, gen33.raise_timeout)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            directory = Path(tmp)
            sys.path.insert(0, tmp)
            for seed in seeds:
                text = source(seed)
                for api in apis:
                    status, detail = gen33.timed_check(
                        check, text, seed, directory, api, backend, f"gaps35_{seed}_{api}"
                    )
                    counts[(api, status.split()[-1] if " " in status else status)] += 1
                    if status == "rejected":
                        reasons[detail] += 1
                    elif status not in ("ok", "vacuous", "timeout"):
                        bugs.setdefault(status, []).append(seed)
                        small = text
                        if minimize:
                            small = gen33.minimize(
                                text, seed, directory, api, backend, status, checker=_keeps_head
                            )
                            _, detail = check(
                                small, seed, directory, api, backend, f"gaps35_small_{seed}_{api}"
                            )
                        out(f"--- seed {seed}: {status}: {detail[:600]}\n{small}")
    finally:
        signal.signal(signal.SIGALRM, old)
    return counts, reasons, bugs


def main(argv=None) -> int:
    opts, seeds, apis = gen33.parse_args(argv)
    counts, reasons, bugs = run(
        seeds, apis, opts.backend, not opts.no_minimize, out=partial(print, flush=True)
    )
    print("outcomes:", dict(sorted(counts.items())))
    print("bugs by class:", {k: len(v) for k, v in bugs.items()}, bugs)
    print("refusal reasons:")
    for reason, count in reasons.most_common(20):
        print(f"  {count:5d}  {reason}")
    return 1 if bugs else 0


if __name__ == "__main__":
    sys.exit(main())
