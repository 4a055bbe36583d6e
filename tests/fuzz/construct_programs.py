"""Generated programs made of the constructs real code uses (issue 20's list), each run
through ``vectorize`` against numpy.vectorize itself and through ``vmap`` against the
per-example loop over NumPy scalars.

``program(rng)`` draws a module: a function ``f(x, y)`` whose body is a random sequence of
construct snippets (tuple unpacking and swaps, nested ``def``/lambdas/closures, ``try``,
``try`` with ``else`` or in a handler, comprehensions, dict/list/nested tables, local dicts,
appended lists (read for their truth), masked writes and ufunc ``out=``, strings, complex
numbers, ``**``, ``divmod``, float ``//``/``%`` with negative divisors, unguarded division,
``round(x, n)``, loop ``else``,
``while True``, the walrus, ``match``, ``in``/``not in``, ``any``/``all``/``sorted``, keyword
arguments and defaults, module helpers) over the float locals it has so far, and a return of
one of them (sometimes two). ``inputs(rng)`` draws the arguments: NaN, +-inf, +-0.0,
negatives, in float64, float32, float16, int64, int8 or uint8 (mostly one dtype for both).

`harness.run_construct_case` runs one (program, inputs) pair: for ``vectorize`` the reference
is ``numpy.vectorize(f)`` (Python scalars per example): equal values and dtype kind where it
returns, the same exception type where it raises, and no RuntimeWarning it does not give;
for ``vmap`` the loop over NumPy scalars (values where it returns; where it raises, nothing is
compared). A `VectorizeError` is a refusal (counted, fine); anything else is a bug. Between
two calls the module helper ``g`` is sometimes rebound, and both calls are compared.

The programs are the text of the snippets only: every name a snippet reads was assigned
before it on every path, so a program is valid Python that returns on every path. A value
chosen by a branch has one type on every path (``* 1.0``), and both arguments have one
dtype: results of different types on different lanes and weak Python floats against
float16/float32 are documented divergences (docs/semantics.md), not what this looks for.
"""

from __future__ import annotations

FLOATS = ["0.5", "2.0", "-1.5", "3.0", "0.0", "-0.0", "10.0", "1e-3", "-2.5", "7.0"]
NEG_DIVISORS = ["-2.5", "-3.0", "-0.5", "-1.0", "-7.0"]

MODULE = '''import math

import numpy as np

TABLE = [0.5, -1.25, 3.0, 8.0]
NESTED = [[1.0, 2.0, 3.0], [-1.0, 0.5, 4.0]]
DTABLE = {0: 1.5, 1: -2.0, 2: 0.25}
STABLE = {"lo": -1.0, "mid": 0.5, "hi": 2.0}
RAGGED = {0: (1.0, 2.0), 1: (0.5, -1.0, 3.0), 2: (4.0,)}


def g(t, scale=2.0, *, shift=0.0):
    return t * scale + shift


def g_alt(t, scale=2.0, *, shift=0.0):
    return t - scale * 0.5 + shift


'''


def _index(rng, v: str, n: int) -> str:
    """An int index in [0, n) from the float ``v`` (finite or not)."""
    return (f"(int(min(abs({v}), 1e6)) % {n} if math.isfinite({v}) else {rng.randrange(n)})")


def _snippets(rng, a: str, b: str, new: str, k: int):
    """(feature, lines) choices that assign ``new`` from floats ``a`` and ``b``."""
    c = rng.choice(FLOATS)
    d = rng.choice(NEG_DIVISORS)
    n = rng.choice([0, 1, 2, 3, -1])
    out = [
        ("swap", [f"{new}, t{k} = {b}, {a}", f"{new}, t{k} = t{k}, {new}",
                  f"{new} = {new} - t{k}"]),
        ("unpack", [f"{new}, t{k} = ({a} + {c}, {b} * {c})", f"{new} = {new} + t{k}"]),
        ("divmod", [f"q{k}, {new} = divmod({a}, {b})", f"{new} = {new} + q{k}"]),
        ("divmod_neg", [f"q{k}, {new} = divmod({a}, {d})", f"{new} = {new} - q{k}"]),
        ("floordiv_neg", [f"{new} = {a} // {d} + {b} % {d}"]),
        ("floordiv", [f"{new} = {a} // {b}"]),
        ("mod", [f"{new} = {a} % {b}"]),
        ("div", [f"{new} = {a} / {b}"]),
        ("div_guarded", [f"{new} = {a} / {b} if {b} != 0 else {c}"]),
        ("pow_int", [f"{new} = {a} ** {rng.choice([2, 3, -1, 0])}"]),
        ("pow_float", [f"{new} = {a} ** {rng.choice(['0.5', '2.0', '-0.5', '1.5'])}"]),
        # (a float exponent: an int power of ints is exact in Python, and a tower of them
        # would take the reference forever)
        ("pow_abs", [f"{new} = abs({a}) ** float({b})"]),
        ("pow_var", [f"{new} = {a} ** float({b})"]),
        ("round_n", [f"{new} = round({a}, {n})"]),
        ("nested_def", [f"def inner{k}(t):", f"    return t * {c} + {b}",
                        f"{new} = inner{k}({a})"]),
        ("lambda", [f"sq{k} = lambda t: t * t + {c}", f"{new} = sq{k}({a})"]),
        ("closure", [f"w{k} = {b} - {c}", f"def inner{k}(t):", f"    return t - w{k}",
                     f"{new} = inner{k}({a}) * 2.0"]),
        ("try", ["try:", f"    {new} = {a} / {b}", "except ZeroDivisionError:",
                 f"    {new} = {c}"]),
        ("try_math", ["try:", f"    {new} = math.sqrt({a})", "except ValueError:",
                      f"    {new} = -1.0"]),
        ("listcomp", [f"{new} = sum([{a} * j for j in range(3)])"]),
        ("listcomp_table", [f"{new} = sum([{a} * v for v in TABLE])"]),
        ("list_table", [f"{new} = TABLE[{_index(rng, a, 4)}] * {b}"]),
        ("nested_table", [f"{new} = NESTED[{_index(rng, a, 2)}][{_index(rng, b, 3)}]"]),
        ("dict_table", [f"{new} = DTABLE[{_index(rng, a, 3)}] + {b}"]),
        ("string", [f"s{k} = 'lo' if {a} < 0 else ('mid' if {a} < 5 else 'hi')",
                    f"{new} = STABLE[s{k}] * {b}"]),
        ("string_cmp", [f"s{k} = 'neg' if {a} < {b} else 'pos'",
                        f"{new} = {a} * 1.0 if s{k} == 'neg' else {b} * 1.0"]),
        ("complex", [f"z{k} = complex({a}, {b})", f"{new} = abs(z{k} * z{k})"]),
        ("complex_parts", [f"z{k} = {a} + 1j * {b}", f"{new} = (z{k} * {c}).real - z{k}.imag"]),
        ("loop_else", [f"{new} = {c}", "for j in range(3):", f"    if {a} > j:",
                       f"        {new} = {new} + j", "        break", "else:",
                       f"    {new} = {b} * -1.0"]),
        ("while_true", [f"i{k} = 0", f"{new} = {a}", "while True:", f"    i{k} += 1",
                        f"    {new} = {new} * 0.5", f"    if i{k} >= 4 or {new} < 1.0:",
                        "        break"]),
        ("walrus", [f"{new} = (t{k} := {a} * {c}) + t{k}"]),
        ("walrus_if", [f"if (t{k} := {a} - {b}) > 0:", f"    {new} = t{k}", "else:",
                       f"    {new} = -t{k}"]),
        ("match", [f"match {_index(rng, a, 3)}:", "    case 0:", f"        {new} = {b} * 1.0",
                   "    case 1:", f"        {new} = {c}", "    case _:",
                   f"        {new} = {a} * 1.0"]),
        ("in", [f"{new} = 1.0 if {a} in (0.0, 1.0, 2.0) else {b} * 1.0"]),
        ("not_in", [f"{new} = {b} * 1.0 if {a} not in (0.0, -1.0) else 2.0"]),
        ("any_all", [f"{new} = 1.0 if any([{a} > 0, {b} > 0]) else "
                     f"(2.0 if all([{a} < 0, {b} < 0]) else 3.0)"]),
        ("sorted", [f"{new} = sorted([{a} * 1.0, {b} * 1.0, {c}])[1]"]),
        ("minmax", [f"{new} = max({a}, {b}) - min({a} * 1.0, {c})"]),
        ("kwargs", [f"{new} = g({a}, scale={b})"]),
        ("kwonly", [f"{new} = g({a}, shift={c})"]),
        ("default", [f"{new} = g({a})"]),
        ("math", [f"{new} = math.fmod({a}, {d}) + math.copysign({c}, {b})"]),
        ("if_chain", [f"if {a} > {b}:", f"    {new} = ({a} - {b}) * 1.0", f"elif {a} < {c}:",
                      f"    {new} = {c}", "else:", f"    {new} = {b} * 1.0"]),
        ("sum_list", [f"{new} = sum([{a}, {b}, {c}])"]),
        ("abs_neg", [f"{new} = -abs({a}) + float({b} > 0)"]),
        ("dict_local", [f"d{k} = {{\"p\": {a} * 1.0}}", f"if {b} > 0:",
                        f"    d{k}[\"p\"] = {b} * {c}", f"d{k}[\"q\"] = {a} - {b}",
                        f"{new} = d{k}[\"p\"] + d{k}.get(\"r\", {c}) - d{k}[\"q\"]"]),
        ("append_list", [f"acc{k} = [{c}]", "for j in range(3):", f"    if {a} > j:",
                         f"        acc{k}.append({b} * j + {c})",
                         f"{new} = (sum(acc{k}) + len(acc{k}) + max(acc{k})) * 1.0 "
                         f"- acc{k}[-1]"]),
        ("ragged_table", [f"if {a} < {c}:", f"    tb{k} = (1.0, 2.0)", "else:",
                          f"    tb{k} = (0.5, -1.0, 3.0)", f"{new} = {b} * 1.0",
                          f"for cf{k} in tb{k}:", f"    {new} = {new} * 0.5 + cf{k}",
                          f"{new} = {new} + len(tb{k}) + tb{k}[-1]"]),
        ("dict_lookup_key", [f"t{k} = RAGGED[{_index(rng, a, 3)}]",
                             f"{new} = t{k}[-1] * {b} + len(t{k})"]),
        ("try_else", ["try:", f"    {new} = math.log({a})", "except (ValueError, TypeError):",
                      f"    {new} = {c}", "else:", f"    {new} = {new} + {b} * 1.0"]),
        ("try_in_handler", ["try:", f"    {new} = math.sqrt({a})", "except ValueError:",
                            "    try:", f"        {new} = 1.0 / ({a} + {b})",
                            "    except ZeroDivisionError:", f"        {new} = {c}"]),
        ("append_truth", [f"acc{k} = []", "for j in range(3):", f"    if {a} > j:",
                          f"        acc{k}.append({b} * j * 1.0)", f"    elif {b} < -j:",
                          "        continue", "    else:", "        break",
                          f"{new} = acc{k}[-1] if acc{k} else {c}",
                          f"{new} = {new} + len(acc{k})"]),
        ("masked_write", [f"w{k} = np.zeros(2)", f"w{k}[{a} > 0] = {b} * 1.0",
                          f"{new} = w{k}[0] - w{k}[1] * {c}"]),
        ("ufunc_out", [f"w{k} = np.zeros(1)", f"np.multiply({a}, {c}, out=w{k})",
                       f"{new} = w{k}[0]"]),
    ]
    return out


def program(rng, n_stmts: int | None = None) -> tuple[str, list[str]]:
    """(module text, features used) of one program ``f(x, y)``."""
    n_stmts = n_stmts if n_stmts is not None else rng.randint(1, 4)
    names = ["x", "y"]
    body, features = [], []
    for k in range(n_stmts):
        a, b = rng.choice(names), rng.choice(names)
        new = f"v{k}"
        feature, lines = rng.choice(_snippets(rng, a, b, new, k))
        features.append(feature)
        body += lines
        names.append(new)
    last = names[-1]
    other = rng.choice(names)
    ret = rng.choice([f"return {last}", f"return {last} + {other}",
                      f"return {last}, {other}", f"return float({last})"])
    text = MODULE + "def f(x, y):\n" + "".join(f"    {line}\n" for line in body + [ret])
    return text, features


# (bool is left out: NumPy's boolean `+` is `or`, a documented divergence, docs/semantics.md)
DTYPES = ["float64", "float64", "float64", "float32", "float16", "int64", "int8", "uint8"]
SPECIAL = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1e300, -1.0, 2.0, 0.5, 5e-324]


MIXED = 1.0   # how often both arguments have the same dtype


def inputs(rng, n: int):
    """Two argument arrays of ``n`` examples of one random dtype each (y sometimes a scalar)."""
    import numpy as np
    out = []
    first = rng.choice(DTYPES)
    for _ in range(2):
        dtype = first if rng.random() < MIXED else rng.choice(DTYPES)
        vals = [rng.choice(SPECIAL) if rng.random() < 0.3 else
                rng.choice([rng.uniform(-10, 10), float(rng.randint(-5, 5))])
                for _ in range(n)]
        arr = np.array(vals, dtype=np.float64)
        if dtype in ("int64", "int8", "uint8"):
            arr = np.nan_to_num(arr, nan=0.0, posinf=7.0, neginf=-7.0)
            arr = np.clip(np.round(arr), -100, 100)
            if dtype == "uint8":
                arr = np.abs(arr)
        with np.errstate(all="ignore"):
            out.append(arr.astype(dtype))
    return out
