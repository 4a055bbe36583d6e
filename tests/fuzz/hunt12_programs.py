"""Generated programs of the constructs `construct_programs` does not draw, through
``vectorize`` against ``numpy.vectorize`` itself, with the exact output dtype.

`construct_programs` keeps every local a float, both arguments of one dtype and every call of
one dtype. This generator draws ``f(x, y, n)`` whose locals are TYPED (floats, ints, bools,
strings, complex numbers) and may change type with the path (the first example decides the
output type, as numpy.vectorize's first call does): int tuple swaps and starred unpacking,
closures over names rebound after the ``def`` (late binding), lambdas with defaults, ``try``
/ ``except ... as e`` / ``OverflowError`` / a ``raise`` caught in the body, comprehensions
with conditions and two ``for``s, generator expressions, tables indexed by per-example ints
(a string table too), string results, comparisons and concatenation, complex results, int
``**`` with negative exponents, ``divmod`` / ``//`` / ``%`` of ints and floats by negative and
per-example divisors, ``round(v, n)`` of ints and floats with negative ``n``, ``for`` with a
per-example trip count and ``else``, ``while True`` over ints, the walrus in comprehensions,
``match`` with guards, or-patterns and tuples, ``in`` on ranges and tables, ``min`` / ``max``
of several values of mixed types and with ``key=``, ``sorted(reverse=True)``, keyword
arguments by name, and helpers / constants / attributes rebound between calls.

``case(seed)`` gives (source, features, calls, otypes): ``calls`` is a list of (args, kwargs,
rebind) where the dtypes change between calls (the specialization cache), and ``otypes``
is None or numpy.vectorize's ``otypes`` for a second wrapped function. ``run_case`` runs
one and classifies it: ok / rejected (a `VectorizeError`, counted) / mismatch / internal.
"""

from __future__ import annotations

import math
import random
import traceback
import warnings

import numpy as np

MODULE = '''import math

import numpy as np

TABLE = [0.5, -1.25, 3.0, 8.0]
ITABLE = (3, -1, 0, 7)
NESTED = [[1.0, 2.0, 3.0], [-1.0, 0.5, 4.0]]
DTABLE = {0: 1.5, 1: -2.0, 2: 0.25}
NAMES = ("lo", "mid", "hi")
STABLE = {"lo": -1.0, "mid": 0.5, "hi": 2.0}
PAIRS = ((1, 2.0), (-3, 0.5), (0, -1.5))
K = 2.0


def g(t, scale=2.0, *, shift=0.0):
    return t * scale + shift


def g_alt(t, scale=2.0, *, shift=0.0):
    return t - scale * 0.5 + shift


class H:
    fn = staticmethod(g)


'''

FLOATS = ["0.5", "2.0", "-1.5", "3.0", "0.0", "-0.0", "1e-3", "-2.5", "7.0", "1e300"]
INTS = ["2", "-3", "0", "1", "5", "-1", "7"]
NEG = ["-2.5", "-3.0", "-0.5", "-1.0", "-4", "-3", "-1"]


def _num(rng, names):
    return rng.choice([n for n, t in names.items() if t in "fib"])


def _int(rng, names):
    ints = [n for n, t in names.items() if t in "ib"]
    return rng.choice(ints)


def _snippets(rng, names, k):
    """(feature, lines, type of v{k}) choices."""
    a, b = _num(rng, names), _num(rng, names)
    i, j = _int(rng, names), _int(rng, names)
    c = rng.choice(FLOATS)
    m = rng.choice(INTS)
    d = rng.choice(NEG)
    p = rng.choice([0, 1, 2, -1, -2])
    v = f"v{k}"
    strs = [n for n, t in names.items() if t == "s"]
    cplx = [n for n, t in names.items() if t == "c"]
    out = [
        ("swap_int", [f"{v}, t{k} = {i}, {j}", f"{v}, t{k} = t{k}, {v} + t{k}",
                      f"{v} = {v} * 2 - t{k}"], "i"),
        ("starred", [f"h{k}, *r{k} = ({a}, {b}, {c})", f"{v} = h{k} + len(r{k}) * r{k}[-1]"],
         "f"),
        ("nested_unpack", [f"(p{k}, q{k}), r{k} = ({a}, {i}), {c}", f"{v} = p{k} * q{k} - r{k}"],
         "f"),
        ("late_closure", [f"w{k} = {a}", f"def inner{k}(t):", f"    return t + w{k}",
                          f"w{k} = {b} * 1.0", f"{v} = inner{k}({c})"], "f"),
        ("def_default", [f"def inner{k}(t, s={c}):", f"    return t * s + {b}",
                         f"{v} = inner{k}({a}) + inner{k}({b}, s=2)"], "f"),
        ("lambda_default", [f"lam{k} = lambda t, w={m}: t - w",
                            f"{v} = lam{k}({a}) + lam{k}({i}, 1)"],
         "f" if names[a] == "f" else "i"),
        ("nested_closure", [f"def outer{k}(t):", "    def inner(u):", "        return u * t",
                            f"    return inner({b}) + t", f"{v} = outer{k}({a}) * 1.0"], "f"),
        ("try_as", ["try:", f"    {v} = {a} / {b}", "except ZeroDivisionError as e:",
                    f"    {v} = -1.0"], "f"),
        ("try_as_str", ["try:", f"    {v} = {a} / {b}", "except ZeroDivisionError as e:",
                        f"    {v} = float(len(str(e)))"], "f"),
        ("try_overflow", ["try:", f"    {v} = math.exp({a})", "except OverflowError:",
                          f"    {v} = {c}"], "f"),
        ("try_int", ["try:", f"    {v} = int({a}) * 1", "except (ValueError, OverflowError):",
                     f"    {v} = -2"], "i"),
        ("try_raise", ["try:", f"    if {a} > {b}:", "        raise ValueError('big')",
                       f"    {v} = 1.0", "except ValueError:", f"    {v} = 2.0"], "f"),
        ("try_helper", [f"def inner{k}(t):", "    return 1.0 / t", "try:",
                        f"    {v} = inner{k}({a})", "except ZeroDivisionError:",
                        f"    {v} = {c}"], "f"),
        ("try_finally", [f"{v} = {c}", "try:", f"    {v} = {a} % {b}", "except ZeroDivisionError:",
                         f"    {v} = 0.5", "finally:", f"    {v} = {v} + 1"], "f"),
        ("listcomp_if", [f"{v} = sum([t * {a} for t in TABLE if t > 0])"], "f"),
        ("listcomp_len", [f"{v} = len([t for t in TABLE if t < {a}])"], "i"),
        ("listcomp_max", [f"{v} = max([t - {a} for t in TABLE])"], "f"),
        ("listcomp2", [f"{v} = sum([u * w for u in range(2) for w in range(3)]) * {a}"],
         "f" if names[a] == "f" else "i"),
        ("genexp", [f"{v} = sum(t * {a} for t in TABLE)"], "f"),
        ("dictcomp", [f"dd{k} = {{w: {a} * w for w in range(3)}}", f"{v} = dd{k}[{i} % 3]"],
         "f" if names[a] == "f" else "i"),
        ("table_int", [f"{v} = TABLE[{i} % 4] * {a}"], "f"),
        ("table_neg", [f"{v} = ITABLE[-1 - {i} % 4] + {j}"], "i"),
        ("nested_table", [f"{v} = NESTED[{i} % 2][{j} % 3]"], "f"),
        ("dict_table", [f"{v} = DTABLE[{i} % 3] + {a}"], "f"),
        ("pairs", [f"pi{k}, pf{k} = PAIRS[{i} % 3]", f"{v} = pi{k} * pf{k}"], "f"),
        ("names", [f"{v} = NAMES[{i} % 3]"], "s"),
        ("str_choice", [f"{v} = 'neg' if {a} < 0 else 'pos'"], "s"),
        ("str_lookup", [f"s{k} = 'lo' if {a} < 0 else ('mid' if {a} < 5 else 'hi')",
                        f"{v} = STABLE[s{k}] * {b}"], "f"),
        ("str_get", [f"s{k} = 'lo' if {a} < 0 else 'other'", f"{v} = STABLE.get(s{k}, {c})"],
         "f"),
        ("complex", [f"{v} = complex({a}, {b})"], "c"),
        ("complex_ops", [f"z{k} = {a} + 1j * {b}", f"{v} = z{k} * z{k}.conjugate() + {c}"], "c"),
        ("complex_abs", [f"z{k} = complex({a}, {c})", f"{v} = abs(z{k} ** 2)"], "f"),
        ("pow_neg_int", [f"{v} = {i} ** -1"], "f"),
        ("pow_neg_float", [f"{v} = {a} ** -2"], "f" if names[a] == "f" else "f"),
        ("pow_frac", [f"{v} = abs({a}) ** -0.5"], "f"),
        ("pow_small", [f"{v} = 2 ** ({i} % 10) + {i} ** 2"], "i"),
        ("pow_call", [f"{v} = pow({a}, 2) - pow({i}, 3)"],
         "f" if names[a] == "f" else "i"),
        ("divmod_int", [f"q{k}, {v} = divmod({i}, {d if d.lstrip('-').isdigit() else -3})",
                        f"{v} = {v} + q{k}"], "i"),
        ("divmod_var", [f"q{k}, {v} = divmod({i}, {j})", f"{v} = {v} * 10 + q{k}"], "i"),
        ("divmod_float", [f"q{k}, {v} = divmod({a}, {d})", f"{v} = {v} - q{k}"], "f"),
        ("floordiv_int", [f"{v} = {i} // -4 + {j} % -3 - (-{i}) // 3"], "i"),
        ("floordiv_float", [f"{v} = {a} // {d} + {a} % {d}"], "f"),
        ("div_unguarded", [f"{v} = {i} / {j}"], "f"),
        ("div_diff", [f"{v} = 1 / ({a} - {b})"], "f"),
        ("round_neg", [f"{v} = round({a}, {p})"], "f" if names[a] == "f" else "i"),
        ("round_int", [f"{v} = round({i}, {p})"], "i"),
        ("round0", [f"{v} = round({a})"], "i"),
        ("for_else", [f"{v} = 0", f"for w in range({i} % 4):", f"    if w * {c} > {a}:",
                      f"        {v} = w", "        break", "else:", f"    {v} = -1"], "i"),
        ("while_int", [f"m{k} = {i} % 20 + 1", f"{v} = 0", "while True:",
                       f"    if m{k} == 1 or {v} > 30:", "        break",
                       f"    m{k} = m{k} // 2 if m{k} % 2 == 0 else 3 * m{k} + 1",
                       f"    {v} += 1"], "i"),
        ("while_float", [f"{v} = {a} * 1.0", f"c{k} = 0", "while True:", f"    c{k} += 1",
                         f"    {v} = {v} * 0.5", f"    if c{k} > 5 or abs({v}) < 1:",
                         "        break"], "f"),
        ("walrus_comp", [f"{v} = [(u{k} := {a} * w) for w in range(3)][-1] + u{k}"],
         "f" if names[a] == "f" else "i"),
        ("walrus_while", [f"c{k} = 0", f"{v} = {c}", f"while (c{k} := c{k} + 1) < 3:",
                          f"    {v} = {v} + {a}"], "f"),
        ("match_guard", [f"match {i} % 4:", "    case 0 | 1:", f"        {v} = {a} * 1.0",
                         "    case w if w > 2:", f"        {v} = w * {c}", "    case _:",
                         f"        {v} = {c}"], "f"),
        ("match_tuple", [f"match ({i} % 2, {a} > 0):", "    case (0, True):",
                         f"        {v} = 1.0", "    case (1, _):", f"        {v} = {b} * 1.0",
                         "    case _:", f"        {v} = -1.0"], "f"),
        ("in_tuple", [f"{v} = {i} in (1, 2, 3)"], "b"),
        ("in_range", [f"{v} = 5.0 if {i} in range(3) else {a} * 1.0"], "f"),
        ("not_in_table", [f"{v} = {a} not in TABLE"], "b"),
        ("max_mixed", [f"{v} = max({a}, {b}, {i})"], "m"),
        ("min_lit", [f"{v} = min({a}, {m}, {i})"], "m"),
        ("max_key", [f"{v} = max({a}, {b}, key=abs)"], "m"),
        ("sorted_rev", [f"{v} = sorted([{a}, {b}, {i}], reverse=True)[0]"], "m"),
        ("any_gen", [f"{v} = any(t > {a} for t in TABLE)"], "b"),
        ("all_tuple", [f"{v} = all(({a} > 0, {i} > 1, {b} != 0))"], "b"),
        ("kw_name", [f"{v} = g(scale={b}, t={a})"], "f"),
        ("kw_only", [f"{v} = g({a}, shift={i})"], "f"),
        ("attr_helper", [f"{v} = H.fn({a}, {c})"], "f"),
        ("const_k", [f"{v} = {a} * K"], "f"),
        ("bool_arith", [f"{v} = ({a} > 0) + ({b} > 0) + 1"], "i"),
        ("int_floordiv_var", [f"{v} = {i} // {j} + {i} % {j}"], "i"),
        ("pow_int_var", [f"{v} = {i} ** ({j} % 5 - 2)"], "m"),
        ("pow_float_int", [f"{v} = {a} ** ({i} % 4)"], "m"),
        ("divmod_mixed", [f"q{k}, {v} = divmod({a}, {i})", f"{v} = {v} + q{k}"], "m"),
        ("min_nan", [f"{v} = min({a}, {b}) + max({b}, {a})"], "m"),
        ("sorted_nan", [f"{v} = sorted([{a}, {b}, {c}])[0]"], "m"),
        ("chain", [f"{v} = 1.0 if 0 < {i} < 5 else ({a} * 1.0 if {a} <= {b} < {c} else 2.0)"],
         "f"),
        ("bitwise", [f"{v} = ({i} & 3) + ({i} >> 1) - ({j} | 1)"], "i"),
        ("invert", [f"{v} = ~{i} + 1"], "i"),
        ("truth_int", [f"{v} = {a} if {i} else {b}"], "m"),
        ("is_integer", [f"{v} = float({a}).is_integer()"], "b"),
        ("bit_length", [f"{v} = abs({i}).bit_length()"], "i"),
        ("pow3", [f"{v} = pow({i}, 2, 7)"], "i"),
        ("isclose", [f"{v} = math.isclose({a}, {b}, rel_tol=1e-3)"], "b"),
        ("hypot", [f"{v} = math.hypot({a}, {b}) + math.atan2({a}, {c})"], "f"),
        ("sum_tuple", [f"{v} = sum(({a}, {b}, {i}))"], "m"),
        ("int_finite", [f"{v} = int({a}) if math.isfinite({a}) else 0"], "i"),
        ("round_half", [f"{v} = round({a} * 0.5 + 0.25, 1) + round({a} + 0.5)"], "m"),
        ("neg_zero", [f"{v} = -0.0 * {a} + abs(-0.0 * {b})"], "f"),
        ("early_return", [f"if {a} > {c}:", f"    return {b}", f"{v} = {a} * 1.0"], "f"),
        ("early_return_int", [f"if {i} > 2:", f"    return {i}", f"{v} = {a}"], "m"),
        ("none_return", [f"if {a} != {a}:", "    return None", f"{v} = {a} + 1"], "m"),
        ("str_return", [f"if {i} < 0:", "    return 'negative'", f"{v} = {i} * 2"], "i"),
        ("big_int", [f"{v} = {i} * 10 ** 18 + 7"], "i"),
        ("bool_value", [f"{v} = {a} > {b}"], "b"),
        ("real_attr", [f"{v} = ({a}).real + ({i}).imag + ({a}).conjugate()"], "m"),
        ("abs_neg", [f"{v} = -abs({i}) + ({a} > {b})"], "i"),
    ]
    if strs:
        s = rng.choice(strs)
        out += [
            ("str_cmp", [f"{v} = 1.0 if {s} == 'lo' else {a} * 1.0"], "f"),
            ("str_concat", [f"{v} = {s} + '!'"], "s"),
            ("str_in", [f"{v} = {s} in ('lo', 'neg')"], "b"),
            ("str_len", [f"{v} = len({s}) + {i}"], "i"),
            ("str_order", [f"{v} = {s} < 'p'"], "b"),
            ("str_match", [f"match {s}:", "    case 'lo' | 'neg':", f"        {v} = {a} * 1.0",
                           "    case _:", f"        {v} = {c}"], "f"),
            ("str_upper", [f"{v} = {s}.upper()"], "s"),
        ]
    if cplx:
        z = rng.choice(cplx)
        out += [
            ("complex_real", [f"{v} = {z}.real - {z}.imag"], "f"),
            ("complex_eq", [f"{v} = {z} == 0"], "b"),
            ("complex_pow", [f"{v} = {z} ** 2 + {z} * {a}"], "c"),
        ]
    return out


def program(rng, n_stmts=None):
    """(module text, features) of one program ``f(x, y, n)``."""
    n_stmts = n_stmts if n_stmts is not None else rng.randint(1, 4)
    names = {"x": "f", "y": "f", "n": "i"}
    body, features = [], []
    for k in range(n_stmts):
        feature, lines, typ = rng.choice(_snippets(rng, names, k))
        features.append(feature)
        body += lines
        names[f"v{k}"] = "f" if typ == "m" else typ
    last = f"v{n_stmts - 1}"
    other = rng.choice(list(names))
    rets = [f"return {last}", f"return {last}, {other}"]
    if names[last] in "fib" and names[other] in "fib":
        rets.append(f"return {last} + {other}")
    ret = rng.choice(rets)
    sig = rng.choice(["x, y, n", "x, y, n=3"])
    text = MODULE + f"def f({sig}):\n" + "".join(f"    {line}\n" for line in body + [ret])
    return text, features


FLOAT_DTYPES = ["float64", "float64", "float64", "float32", "float16", "int64", "int8",
                "uint8", "uint64", "bool", "complex128"]
INT_DTYPES = ["int64", "int64", "int8", "uint8", "uint64", "bool", "int32"]
SPECIAL = [math.nan, math.inf, -math.inf, 0.0, -0.0, 1e300, -1.0, 2.0, 0.5, 5e-324, 710.0]


def _array(rng, dtype, n):
    if dtype in ("int64", "int8", "uint8", "uint64", "int32"):
        vals = [rng.choice([rng.randint(-9, 9), rng.choice([0, 1, -1, 127, -128, 255, 300])])
                for _ in range(n)]
        arr = np.array(vals, dtype=np.int64)
        if dtype in ("uint8", "uint64"):
            arr = np.abs(arr)
        with np.errstate(all="ignore"):
            return arr.astype(dtype)
    if dtype == "bool":
        return np.array([rng.random() < 0.5 for _ in range(n)], dtype=bool)
    vals = [rng.choice(SPECIAL) if rng.random() < 0.25 else
            rng.choice([rng.uniform(-10, 10), float(rng.randint(-5, 5))]) for _ in range(n)]
    arr = np.array(vals, dtype=np.float64)
    if dtype == "complex128":
        arr = arr + 1j * np.array([rng.uniform(-2, 2) for _ in range(n)])
    with np.errstate(all="ignore"):
        return arr.astype(dtype)


def _dtypes(rng):
    first = rng.choice(FLOAT_DTYPES)
    second = first if rng.random() < 0.6 else rng.choice(FLOAT_DTYPES)
    return [first, second, rng.choice(INT_DTYPES)]


def case(seed: int):
    """(source, features, calls, otypes) of one seed."""
    rng = random.Random(seed)
    text, features = program(rng)
    dtypes = _dtypes(rng)
    sizes = [rng.randint(8, 40), 1, 5, 64, 64]
    calls = []
    for idx, size in enumerate(sizes):
        if idx == 4 and rng.random() < 0.5:
            dtypes = _dtypes(rng)       # a call with other dtypes: the specialization cache
        args = tuple(_array(rng, dt, size) for dt in dtypes)
        if rng.random() < 0.2:
            args = (args[0], args[1], args[2][:1].reshape(()) if size else args[2])
        kw = rng.random() < 0.2
        rebind = idx >= 3 and rng.random() < 0.25
        calls.append((args, kw, rebind))
    otypes = None
    if rng.random() < 0.4:
        many = "return v" in text and ", " in text.rsplit("return", 1)[1]
        choice = rng.choice(["d", "l", "f", "O", "?", "D", "e", "b"])
        otypes = [choice, rng.choice(["d", "l", "O"])] if many else [choice]
    return text, features, calls, otypes


# ----------------------------------------------------------------------------- running
def _outcome(call, args, kwargs):
    with warnings.catch_warnings(record=True) as caught, np.errstate(all="ignore"):
        warnings.simplefilter("always")
        try:
            value = call(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 -- compared
            return "raised", exc, caught
    return "ok", value, caught


def _same(got, exp) -> str:
    gots = got if isinstance(got, tuple) else (got,)
    exps = exp if isinstance(exp, tuple) else (exp,)
    if len(gots) != len(exps):
        return f"{len(gots)} outputs, expected {len(exps)}"
    for g_, e_ in zip(gots, exps):
        g_, e_ = np.asarray(g_), np.asarray(e_)
        if g_.dtype != e_.dtype:
            return f"dtype {g_.dtype}, expected {e_.dtype}"
        if g_.shape != e_.shape:
            return f"shape {g_.shape}, expected {e_.shape}"
        if e_.dtype == object:
            for u, w in zip(g_.ravel(), e_.ravel()):
                if type(u) is not type(w) or not (u == w or (u != u and w != w)):
                    return f"object item {u!r}, expected {w!r}"
            continue
        if e_.dtype.kind in "fc":
            both = np.isnan(g_) == np.isnan(e_)
            if not both.all():
                return "NaN positions differ"
            ok = np.isnan(e_) | (g_ == e_)
            if not ok.all():
                near = np.isclose(g_, e_, rtol=8 * np.finfo(e_.dtype).eps, atol=0)
                if (ok | near).all():
                    # NumPy's array functions (exp, complex division and powers) against
                    # CPython's and libm's: the last bits (docs/semantics.md)
                    return f"ulp: values differ in the last bits at {np.flatnonzero(~ok)[:5]}"
                return f"values differ at {np.flatnonzero(~ok)[:5]}"
            if e_.dtype.kind == "f":
                zero = (e_ == 0) & (g_ == 0)
                if (np.signbit(g_[zero]) != np.signbit(e_[zero])).any():
                    return "zero signs differ"
        elif not np.array_equal(g_, e_):
            return "values differ"
    return ""


class Result:
    def __init__(self, kind, detail="", call=""):
        self.kind, self.detail, self.call = kind, detail, call


def run_case(f, calls, otypes=None) -> Result:
    """``vectorize(f)`` (and with ``otypes``) against numpy.vectorize on every call."""
    from vectorize import VectorizeError, vectorize
    ns = f.__globals__
    saved = {name: ns[name] for name in ("g", "K")}
    saved_fn = ns["H"].fn
    wrapped = [(vectorize(f, fallback="error"), np.vectorize(f), None)]
    if otypes:
        wrapped.append((vectorize(f, fallback="error", otypes=otypes),
                        np.vectorize(f, otypes=otypes), otypes))
    try:
        for idx, (args, kw, rebind) in enumerate(calls):
            if rebind:
                ns["g"] = ns["g_alt"]
                ns["K"] = 3.0
                ns["H"].fn = staticmethod(ns["g_alt"])
            pos, kwargs = (args[:2], {"n": args[2]}) if kw else (args, {})
            for ours, ref, ot in wrapped:
                where = f"call {idx + 1} (N={np.shape(args[0])}, otypes={ot}, kw={kw}, " \
                        f"dtypes={[a.dtype.name for a in args]})"
                if np.size(args[0]) == 0 and ot is None:
                    got = _outcome(ours, pos, kwargs)
                    if got[0] == "raised" and not isinstance(got[1], (VectorizeError,
                                                                        ValueError)):
                        return Result("internal", repr(got[1]), where)
                    continue
                exp = _outcome(ref, pos, kwargs)
                got = _outcome(ours, pos, kwargs)
                if got[0] == "raised" and isinstance(got[1], VectorizeError):
                    return Result("rejected", str(got[1]).split("\n")[0], where)
                if exp[0] == "raised":
                    if got[0] == "raised" and type(got[1]) is type(exp[1]):
                        continue
                    detail = f"numpy.vectorize raises {type(exp[1]).__name__}: {exp[1]}; got " + (
                        f"{type(got[1]).__name__}: {got[1]}" if got[0] == "raised"
                        else f"{got[1]!r}")
                    kind = "internal" if got[0] == "raised" else "mismatch"
                    if got[0] == "raised":
                        detail += "\n" + "".join(traceback.format_exception(got[1]))[-2500:]
                    return Result(kind, detail, where)
                if got[0] == "raised":
                    tb = "".join(traceback.format_exception(got[1]))[-2500:]
                    return Result("internal" if not isinstance(got[1], (ArithmeticError,
                                                                         ValueError,
                                                                         TypeError))
                                  else "mismatch",
                                  f"numpy.vectorize returns {exp[1]!r}; got "
                                  f"{type(got[1]).__name__}: {got[1]}\n{tb}", where)
                problem = _same(got[1], exp[1])
                if problem.startswith("ulp:"):
                    return Result("ulp", problem, where)
                if problem:
                    return Result("mismatch", f"{problem}\n got {got[1]!r}\n expected "
                                  f"{exp[1]!r}", where)
    finally:
        ns.update(saved)
        ns["H"].fn = saved_fn
    return Result("ok")
