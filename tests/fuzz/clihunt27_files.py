"""Random whole files for the file rewriter (benchmarks/fuzz_clihunt27.py): module-level
constants and tables, helpers (defaults, rebinding), ``@vectorize`` functions with per-example
``if`` / ``while`` / early ``return`` / ``raise``, and loops over examples that call them in
many shapes (comprehensions over lists, tuples, ranges, arrays, generators, sets, dicts, zip,
enumerate; appends, accumulations, ``break``, the loop variable read after the loop, mixed
per-example and constant arguments, results used as ints, empty inputs, inputs that raise).

Each site is a function ``site_<k>`` whose result (or exception type) the file prints through
``_show``, which prints a 0-d array and a NumPy scalar of the same dtype and bits alike (the
one difference docs/cli.md allows). ``make_file(rng, backend)`` returns the file's text.
"""

from __future__ import annotations

import random

SHOW = '''

def _num(v):
    if isinstance(v, float):
        return "nan" if v != v else v.hex()
    return repr(v)


def _show(v):
    mod = type(v).__module__.split(".")[0]
    if mod in ("torch", "jax", "jaxlib"):
        v = np.asarray(v)
        if TOLERANT:
            return _show(v)
    if isinstance(v, (list, tuple)):
        inner = ", ".join(_show(i) for i in v)
        return ("" if TOLERANT else type(v).__name__) + "[" + inner + "]"
    if isinstance(v, np.ndarray) and v.ndim:
        if TOLERANT:
            return "[" + ", ".join(_show(i) for i in v) + "]"
        return f"array<{v.dtype}{v.shape}>" + _show(v.tolist())
    if isinstance(v, (np.ndarray, np.generic)):
        v = np.asarray(v)[()]
        if TOLERANT:
            return _show(v.item())
        return f"{type(v).__name__}({_num(v.item())})"
    if TOLERANT and isinstance(v, (float, int)) and not isinstance(v, bool):
        return f"{float(v):.9g}"
    return f"{type(v).__name__}({_num(v)})"


def _run(site):
    try:
        print(site.__name__, _show(site()))
    except Exception as exc:
        print(site.__name__, "raises", type(exc).__name__)
'''


def _float(rng, lo=-4.0, hi=4.0):
    return rng.choice([0.0, 1.0, -1.0, 0.5, 2.5, -3.0, 1e-3, round(rng.uniform(lo, hi), 3)])


class Gen:
    def __init__(self, rng: random.Random, backend: str):
        self.rng = rng
        self.backend = backend
        self.lines: list[str] = []
        self.consts: list[str] = []
        self.float_seqs: list[str] = []     # module-level names of float sequences
        self.int_seqs: list[str] = []
        self.helpers: list[str] = []
        self.funcs: list[tuple[str, list, str]] = []   # (name, params [(name, kind, default)], result kind)  # noqa: E501
        self.sites: list[str] = []
        self.n = 0

    def fresh(self, base):
        self.n += 1
        return f"{base}{self.n}"

    # ---- module level -------------------------------------------------------------
    def constants(self):
        r = self.rng
        self.consts.append(f"SCALE = {_float(r, 0.5, 3.0) or 1.5}")
        self.consts.append(f"LIMIT = {r.choice([2.0, 5.0, 10.0, 50.0])}")
        self.consts.append(f"N = {r.randint(0, 6)}")
        self.consts.append("TABLE = (" + ", ".join(str(_float(r)) for _ in range(4)) + ")")
        k = r.randint(0, 5)
        self.consts.append("VALUES = [" + ", ".join(str(_float(r)) for _ in range(k)) + "]")
        self.float_seqs.append("VALUES")
        self.consts.append("PAIR = (" + ", ".join(str(_float(r)) for _ in range(r.randint(1, 4))) + ",)")  # noqa: E501
        self.float_seqs.append("PAIR")
        a, b = sorted([_float(r), _float(r)])
        n = r.choice([0, 1, 3, 5, 8])
        self.consts.append(f"GRID = np.linspace({a}, {b}, {n})")
        self.float_seqs.append("GRID")
        self.consts.append(f"STEPS = np.arange({r.randint(0, 6)}.0)")
        self.float_seqs.append("STEPS")
        self.consts.append("INTS = [" + ", ".join(str(r.randint(-5, 9)) for _ in range(r.randint(0, 5))) + "]")  # noqa: E501
        self.int_seqs.append("INTS")
        self.consts.append("EMPTY = []")
        self.float_seqs.append("EMPTY")
        if r.random() < 0.3:
            self.consts.append("REBOUND = [1.0, 2.0]")
            self.consts.append("REBOUND = [3.0, -1.0, 0.25]")
            self.float_seqs.append("REBOUND")
        if r.random() < 0.3:
            self.consts.append("MUTATED = [1.0, -2.0, 0.5]")
            self.float_seqs.append("MUTATED")
            self.sites.append("def _mutate():\n    MUTATED.append(9.0)\n    return len(MUTATED)\n")

    def helper(self):
        r = self.rng
        name = self.fresh("h")
        kind = r.randint(0, 3)
        if kind == 0:
            self.helpers.append(f"def {name}(v, s=SCALE):\n    return v * s + {_float(r)}\n")
        elif kind == 1:
            self.helpers.append(f"def {name}(v, lim=LIMIT):\n    if v > lim:\n        return lim\n"
                                f"    return v\n")
        elif kind == 2:
            self.helpers.append(f"def {name}(v):\n    return abs(v) + TABLE[{r.randint(0, 3)}]\n")
        else:
            self.helpers.append(f"def {name}(v, k=N):\n    t = v\n    for _ in range(k):\n"
                                f"        t = t * 0.5 + 1.0\n    return t\n")
        return name

    def expr(self, names, depth=0):
        r = self.rng
        if depth > 1 or r.random() < 0.35:
            return r.choice(names + [str(_float(r)), "SCALE"])
        a, b = self.expr(names, depth + 1), self.expr(names, depth + 1)
        choice = r.randint(0, 7)
        if choice == 0:
            return f"({a} + {b})"
        if choice == 1:
            return f"({a} - {b})"
        if choice == 2:
            return f"({a} * {b})"
        if choice == 3:
            return f"abs({a})"
        if choice == 4:
            return f"math.sqrt(abs({a}))"
        if choice == 5:
            return f"max({a}, {b})"
        if choice == 6 and self.helpers:
            h = self.helpers[-1].split("(")[0][4:]
            return f"{h}({a})"
        return f"({a} / ({b} * {b} + 1.0))"

    def ret(self, names):
        if self.rng.random() < 0.1:
            return self.expr(names)
        return f"({self.expr(names)} + x)"

    def float_function(self):
        r = self.rng
        name = self.fresh("f")
        params = [("x", "float", None)]
        if r.random() < 0.5:
            params.append(("b", "float", r.choice([None, "2.0", "SCALE"])))
            if params[-1][2] is None and r.random() < 0.3:
                params[-1] = ("b", "float", None)
        names = [p[0] for p in params]
        body = []
        y = "y"
        body.append(f"{y} = {self.expr(names)}")
        names.append(y)
        for _ in range(r.randint(1, 4)):
            c = r.randint(0, 6)
            if c == 0:
                body.append(f"if {self.expr(names)} > {_float(r)}:\n        return {self.ret(names)}")  # noqa: E501
            elif c == 1:
                body.append(f"if x < {_float(r, -6, 0)}:\n        raise ValueError('too small')")
            elif c == 2:
                body.append(f"k = 0\n    while {y} > LIMIT and k < 30:\n        {y} = {y} / 2.0\n"
                            f"        k += 1")
            elif c == 3:
                body.append(f"if {y} > {_float(r)}:\n        {y} = {self.expr(names)}\n    else:\n"
                            f"        {y} = {self.expr(names)}")
            elif c == 4:
                body.append(f"{y} = {self.expr(names)}")
            elif c == 5:
                body.append(f"if x == {_float(r)}:\n        return 1.0 / (x - x)")
            else:
                body.append(f"{y} = {y} if {y} < {_float(r)} else {self.expr(names)}")
        ret = self.ret(names)
        if r.random() < 0.15:
            ret = "x"
        body.append(f"return {ret}")
        sig = ", ".join(f"{p}" + (f"={d}" if d else "") for p, _, d in params)
        deco = "@vectorize"
        if len(params) > 1 and params[1][2] is not None and r.random() < 0.3:
            deco = '@vectorize(excluded={"b"})'
        self.lines.append(f"{deco}\ndef {name}({sig}):\n    " + "\n    ".join(body) + "\n")
        self.funcs.append((name, params, "float"))

    def int_function(self):
        r = self.rng
        name = self.fresh("g")
        body = []
        c = r.randint(0, 3)
        if c == 0:
            body.append("steps = 0\n    while n > 1 and steps < 40:\n        if n % 2 == 0:\n"
                        "            n = n // 2\n        else:\n            n = 3 * n + 1\n"
                        "        steps += 1\n    return steps")
        elif c == 1:
            body.append(f"if n < {r.randint(-3, 2)}:\n        raise IndexError('negative')\n"
                        f"    return n % {r.randint(1, 5)}")
        elif c == 2:
            body.append(f"return n * {r.randint(-3, 3)} + {r.randint(0, 4)}")
        else:
            body.append("if n > 3:\n        return n // 2\n    return abs(n)")
        self.lines.append(f"@vectorize\ndef {name}(n: int):\n    " + "\n    ".join(body) + "\n")
        self.funcs.append((name, [("n", "int", None)], "int"))

    # ---- call sites ---------------------------------------------------------------
    def seq(self, kind):
        r = self.rng
        if kind == "int":
            return r.choice(self.int_seqs + [f"range({r.randint(0, 6)})", "range(N)",
                                             "np.arange(4)", "[3, -1, 7]", "[]"])
        opts = self.float_seqs + [
            "[0.5, -1.0, 2.0]", "(1.5, -2.5)", "np.array([0.25, -3.0, 8.0])", "GRID[1:]",
            "np.linspace(-2.0, 2.0, 4)", "[]", "np.array([])", "INTS", "range(3)",
            "(v for v in VALUES)", "{0.5, 2.0}", "{1.0: 'a', -1.0: 'b'}", "sorted(VALUES)",
            "np.zeros(3)", "[1, 2.5]", "np.arange(3.0) * 2.0"]
        return r.choice(opts)

    def call(self, fname, params, var):
        r = self.rng
        args = [var]
        for p, _, d in params[1:]:
            if d is not None and r.random() < 0.4:
                continue
            c = r.choice(["1.5", "SCALE", "3", "np.pi", "GRID", var, "c"])
            if r.random() < 0.3:
                args.append(f"{p}={c}")
            else:
                args.append(c)
        return f"{fname}({', '.join(args)})"

    def site(self):
        r = self.rng
        fname, params, kind = r.choice(self.funcs)
        s = self.seq("int" if kind == "int" else "float")
        name = self.fresh("site_")
        call = self.call(fname, params, "x")
        shape = r.randint(0, 21)
        pre = "    c = 0.75\n" if "c" in call.split("(", 1)[1] else ""
        local = r.random() < 0.25
        if local:
            pre += f"    xs = {s}\n"
            s = "xs"
        if shape == 0:
            body = f"    return [{call} for x in {s}]\n"
        elif shape == 1:
            body = f"    return list(map({fname}, {s}))\n"
        elif shape == 2:
            body = f"    return np.array([{call} for x in {s}])\n"
        elif shape == 3:
            body = f"    out = []\n    for x in {s}:\n        out.append({call})\n    return out\n"
        elif shape == 4:
            body = (f"    out = []\n    for x in {s}:\n        if x > 0:\n"
                    f"            out.append({call})\n    return out\n")
        elif shape == 5:
            init = r.choice(["0.0", "0", "1.5", "-0.0"])
            body = f"    total = {init}\n    for x in {s}:\n        total += {call}\n    return total\n"  # noqa: E501
        elif shape == 6:
            body = f"    total = 0.0\n    for x in {s}:\n        total = {call} + total\n    return total\n"  # noqa: E501
        elif shape == 7:
            init = r.choice(["1.0", "1", "2.0"])
            body = f"    prod = {init}\n    for x in {s}:\n        prod *= {call}\n    return prod\n"  # noqa: E501
        elif shape == 8:
            f_ = r.choice(["max", "min"])
            init = r.choice(["-np.inf", "math.inf", "0.0", "-math.inf"])
            body = (f"    best = {init}\n    for x in {s}:\n        best = {f_}(best, {call})\n"
                    f"    return best\n")
        elif shape == 9:
            body = (f"    out = []\n    for x in {s}:\n        out.append({call})\n"
                    f"        if len(out) > 1:\n            break\n    return out\n")
        elif shape == 10:
            body = f"    out = []\n    for x in {s}:\n        out.append({call})\n    return out, x\n"  # noqa: E501
        elif shape == 11 and len(params) > 1:
            s2 = r.choice([s, "GRID", "VALUES", "[1.0, 2.0, 3.0]", "np.ones(3)"])
            call2 = f"{fname}(a, b)"
            body = f"    return [{call2} for a, b in zip({s}, {s2})]\n"
        elif shape == 12:
            body = f"    return [{call} for i, x in enumerate({s})]\n"
        elif shape == 13:
            body = f"    return [[{call} for x in {s}] for _ in range(2)]\n"
        elif shape == 14:
            idx = "int(v) % 4" if kind == "float" else "v % 4"
            body = (f"    res = [{call} for x in {s}]\n"
                    f"    return [TABLE[{idx}] for v in res]\n")
        elif shape == 15:
            body = f"    return np.asarray([{call} for x in {s}])\n"
        elif shape == 16:
            body = f"    return np.stack([{call} for x in {s}])\n"
        elif shape == 17:
            body = f"    return [{call} for x in {s} if x != 0]\n"
        elif shape == 18:
            body = f"    return sum({call} for x in {s})\n"
        elif shape == 19:
            body = f"    return list(map({fname}, {s}, {s}))\n" if len(params) > 1 else \
                f"    return tuple({call} for x in {s})\n"
        elif shape == 20:
            body = (f"    out = []\n    for x in {s}:\n        out.append({call})\n"
                    f"    first = out[0] if out else None\n    return [out, first]\n")
        else:
            body = (f"    out = []\n    for x in {s}:\n        out.append({call})\n"
                    f"    return [int(v) if v == v and abs(v) < 1e18 else 0 for v in out]\n"
                    if kind == "float" else
                    f"    out = []\n    for x in {s}:\n        out.append({call})\n"
                    f"    return [TABLE[v % 4] for v in out]\n")
        self.sites.append(f"def {name}():\n{pre}{body}")
        return name


def make_file(rng: random.Random, backend: str = "numpy") -> str:
    g = Gen(rng, backend)
    g.constants()
    for _ in range(rng.randint(0, 2)):
        g.helper()
    nf = rng.randint(1, 3)
    for _ in range(nf):
        if backend == "numpy" and rng.random() < 0.3:
            g.int_function()
        else:
            g.float_function()
    names = [g.site() for _ in range(rng.randint(3, 8))]
    module_site = ""
    if rng.random() < 0.4:       # a loop at module level, its variable maybe read after it
        fname, params, kind = rng.choice(g.funcs)
        s = g.seq("int" if kind == "int" else "float")
        call = g.call(fname, params, "x").replace(", c", ", 0.75").replace("=c", "=0.75")
        module_site = (f"\nMOD_OUT = []\nfor x in {s}:\n    MOD_OUT.append({call})\n"
                       f"print('module', _show(MOD_OUT))\n")
        if rng.random() < 0.3:
            module_site += "print('after', _show(x))\n"
    text = ["import math", "import os", "", "import numpy as np", "",
            "from vectorize import vectorize", "",
            "TOLERANT = bool(os.environ.get('CLIHUNT27_TOLERANT'))"]
    text += g.consts
    text.append("")
    for h in g.helpers:
        text += ["", h]
    for f in g.lines:
        text += ["", f]
    text.append(SHOW)
    for s in g.sites:
        text += ["", s]
    text.append(module_site)
    text.append("")
    for n in names:
        text.append(f"_run({n})")
    return "\n".join(text) + "\n"
