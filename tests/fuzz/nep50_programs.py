"""Random small functions of two NumPy scalars of every dtype, checked through ``vmap`` against
the per-example loop over NumPy scalars (NEP 50: Python literals beside narrow ints and floats,
uint64, float16, bool arithmetic, `//` and `%` by negatives and zero, `**` with negative
exponents, `math.floor` / `int()` / `round()` of wide ints, signed zeros through `min`/`max`/
`np.where`/`np.clip`), at N = 0, 1, 5, 37 and through a nested ``vmap`` (of rows).

``program(rng)`` gives the source of ``f(x, y)``; ``inputs(rng, n)`` two arrays; ``check(f,
x, y)`` the outcome: ``ok``, ``rejected`` (a `VectorizeError`: reject over miscompile),
``mismatch`` (values, NaN positions, zero signs or dtype kind differ, or the loop raises and
`vmap` returns, or the reverse), ``empty-raises`` (an empty batch raising what NumPy raises
in the generated code for a branch no example takes: no loop decides there) or ``internal``
(an exception from inside the engine).
"""

from __future__ import annotations

import traceback
import warnings

import numpy as np

from vectorize import VectorizeError, vmap

DTYPES = ["int8", "uint8", "int16", "int32", "int64", "uint32", "uint64", "float16",
          "float32", "float64", "bool"]
# Python literals: small, beyond int8/uint8, beyond int32, negative (beside unsigned)
LITERALS = ["3", "-2", "0", "1", "300", "-1", "2 ** 40", "0.5", "-0.0", "1e300", "True", "7",
            "-3.5", "255", "128"]
_UNARY = ["abs({a})", "-{a}", "math.floor({a})", "math.ceil({a})", "int({a})", "float({a})",
          "round({a})", "bool({a})", "np.sqrt({a})", "np.abs({a})", "np.negative({a})",
          "np.floor({a})", "math.sqrt(abs({a}))", "({a}).item()", "np.sign({a})",
          "np.float32({a})", "np.int64({a})", "np.exp({a})"]
_BINARY = ["{a} + {b}", "{a} - {b}", "{a} * {b}", "{a} / {b}", "{a} // {b}", "{a} % {b}",
           "{a} ** 2", "{a} ** -1", "{a} ** {b}", "min({a}, {b})", "max({a}, {b})",
           "np.minimum({a}, {b})", "np.maximum({a}, {b})", "np.where({a} > {b}, {a}, {b})",
           "np.clip({a}, -1, 5)", "divmod({a}, {b})[0]", "divmod({a}, {b})[1]",
           "np.fmod({a}, {b})", "np.hypot({a}, {b})", "{a} if {a} < {b} else {b}",
           "round({a}, 1)", "abs({a} - {b})", "{a} & {b}", "{a} << 2", "{a} == {b}",
           "{a} < {b} < 10", "np.copysign({a}, {b})", "math.fmod({a}, 3)"]
_TESTS = ["{a} > {b}", "{a} < 0", "{a} == 0", "{a} != {a}", "{a} >= {b}", "not {a}",
          "{a} > 0 and {b} < 3", "{a} < -1 or {b} > 1", "0 < {a} <= {b}"]


def _leaf(rng, names):
    return rng.choice(names) if rng.random() < 0.7 else rng.choice(LITERALS)


def _expr(rng, names, depth=0):
    if depth >= 2 or rng.random() < 0.3:
        return _leaf(rng, names)
    if rng.random() < 0.35:
        return rng.choice(_UNARY).format(a=_expr(rng, names, depth + 1))
    a = _expr(rng, names, depth + 1)
    b = _expr(rng, names, depth + 1) if rng.random() < 0.6 else _leaf(rng, names)
    return "(" + rng.choice(_BINARY).format(a=a, b=b) + ")"


def _test(rng, names):
    return rng.choice(_TESTS).format(a=_expr(rng, names, 1), b=_leaf(rng, names))


def program(rng) -> str:
    """The source of ``f(x, y)``: a few statements over x, y and a local r, returning r."""
    names = ["x", "y"]
    lines = ["def f(x, y):", f"    r = {_expr(rng, names)}"]
    names.append("r")
    for _ in range(rng.randint(0, 3)):
        kind = rng.random()
        if kind < 0.3:
            lines += [f"    if {_test(rng, names)}:", f"        r = {_expr(rng, names)}"]
            if rng.random() < 0.5:
                lines += [f"    elif {_test(rng, names)}:", f"        r = {_expr(rng, names)}"]
            if rng.random() < 0.6:
                lines += ["    else:", f"        r = {_expr(rng, names)}"]
        elif kind < 0.45:
            op = rng.choice(["+=", "-=", "*=", "//=", "%=", "/="])
            lines.append(f"    r {op} {_expr(rng, names, 1)}")
        elif kind < 0.55:
            lines += ["    k = 0", "    while k < 3:", f"        r = {_expr(rng, names, 1)}",
                      f"        if {_test(rng, names)}:", "            break",
                      "        k += 1"]
        elif kind < 0.65:
            lines += [f"    t = ({_expr(rng, names, 1)}, {_expr(rng, names, 1)})",
                      f"    r = t[{rng.randint(0, 1)}]"]
        elif kind < 0.72:
            lines += [f"    s = f\"{{{rng.choice(names)}}}\" if {_test(rng, names)} else "
                      f"\"{rng.choice(['pos', 'n', ''])}\"", "    return s"]
            break
        else:
            lines.append(f"    r = {_expr(rng, names)}")
    if not lines[-1].lstrip().startswith("return"):
        lines.append("    return r")
    return "import math\n\nimport numpy as np\n\n\n" + "\n".join(lines) + "\n"


_SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.5, -2.5, np.nan, np.inf, -np.inf, 127.0, -128.0, 255.0,
            65504.0, 1e10, 2.0 ** 53 + 1, 0.1, 3.0, 7.0, -7.0]
_WIDE_INTS = [2 ** 53 + 1, -2 ** 53 - 1, 2 ** 62, 2 ** 63 - 1, -2 ** 63, 2 ** 63 - 300]


def inputs(rng, n: int, dtypes=None):
    """Two arrays of ``n`` examples (``dtypes``: theirs, else drawn)."""
    out = []
    for k in range(2):
        dtype = np.dtype(dtypes[k] if dtypes else rng.choice(DTYPES))
        vals = []
        for _ in range(n):
            if dtype.kind in "iu" and dtype.itemsize == 8 and rng.random() < 0.2:
                v = rng.choice(_WIDE_INTS)
                vals.append(abs(v) if dtype.kind == "u" else v)
                continue
            v = rng.choice(_SPECIAL) if rng.random() < 0.4 else rng.choice(
                [rng.uniform(-10, 10), float(rng.randint(-5, 5))])
            if dtype.kind in "iub":
                v = 0 if v != v else int(max(-2.0 ** 62, min(2.0 ** 62, v)))
                info = np.iinfo(dtype) if dtype.kind != "b" else None
                v = bool(v) if info is None else max(info.min, min(info.max, v))
            vals.append(v)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            arr = np.array(vals, dtype=object if dtype.kind in "iu" else float)
            out.append(arr.astype(dtype) if n else np.zeros(0, dtype))
    return out


def _loop(f, args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        rows = [f(*[a[i] for a in args]) for i in range(len(args[0]))]
    return np.stack([np.asarray(r) for r in rows])


def _run(call):
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return "ok", call()
    except Exception as exc:  # noqa: BLE001 -- the outcome is compared
        return "raised", exc


def _differs(got, expected) -> str:
    got, expected = np.asarray(got), np.asarray(expected)
    if got.shape != expected.shape:
        return f"shape {got.shape} != {expected.shape}"
    kg, ke = got.dtype.kind, expected.dtype.kind
    if not (kg == ke or {kg, ke} <= {"i", "u"} or ke == "O" or
            {kg, ke} <= {"U", "S"}):
        return f"dtype {got.dtype} != {expected.dtype}"
    if got.size == 0:
        return ""
    if ke in "fc" or kg in "fc":
        g, e = got.astype(complex if "c" in (kg, ke) else float), \
            expected.astype(complex if "c" in (kg, ke) else float)
        nan_g, nan_e = np.isnan(g), np.isnan(e)
        if not np.array_equal(nan_g, nan_e):
            return "NaN positions differ"
        finite = ~nan_e
        narrow = [d for d in (got.dtype, expected.dtype) if d.kind in "fc"]
        eps = max(np.finfo(d).eps for d in narrow)
        with np.errstate(all="ignore"):
            close = np.isclose(g[finite], e[finite], rtol=8 * eps, atol=0) | \
                (g[finite] == e[finite])
        if not close.all():
            return "values differ"
        if ke == "f" and kg == "f":
            zero = finite & (e == 0)
            if not np.array_equal(np.signbit(g[zero]), np.signbit(e[zero])):
                return "sign of zero differs"
        return ""
    if ke == "O":
        if not all(a == b for a, b in zip(got.ravel().tolist(), expected.ravel().tolist())):
            return "values differ"
        return ""
    if not np.array_equal(got, expected):
        return "values differ"
    return ""


def check(f, x, y, nested: bool = False, backend: str | None = None, reference=None):
    """(kind, detail) of ``vmap(f)(x, y)`` against the loop (``nested``: ``vmap(vmap(f))`` of
    x and y as one row); ``backend``: ``vmap(f, backend=...)`` (NumPy in, NumPy out);
    ``reference``: the function the loop runs instead of ``f`` (``f`` with XLA's rewrites,
    `harness.xla_division_variant`)."""
    args = [x[None], y[None]] if nested else [x, y]
    ref = _run(lambda: _loop(reference or f, [x, y]))
    wrapped = vmap(vmap(f, backend=backend), backend=backend) if nested else \
        vmap(f, backend=backend)
    got = _run(lambda: wrapped(*args))
    if got[0] == "raised" and isinstance(got[1], VectorizeError):
        return "rejected", str(got[1]).splitlines()[0]
    if len(x) == 0:
        # the loop has no result to stack: the call must only not fail, unless every example
        # raises (`np.int16(x) + 2 ** 40`, `3 // 0`): then that exception is accepted
        if got[0] == "raised":
            ones = _run(lambda: _loop(f, [np.ones(1, x.dtype), np.ones(1, y.dtype)]))
            if ones[0] == "raised" and type(ones[1]) is type(got[1]):
                return "ok", ""
            frames = traceback.extract_tb(got[1].__traceback__)
            if frames and frames[-1].filename.startswith("<vectorize:") or \
                    getattr(got[1], "whole_batch", False):
                # NumPy raising in the generated code for a branch no example takes
                # (`x & 16384` of an int8): no loop can decide an empty batch; JAX's vmap
                # raises there too (the JAX backend's NumPy OverflowError for the whole
                # batch: `backends.jax.ints`)
                return "empty-raises", f"{type(got[1]).__name__}: {got[1]}"
            return "internal", f"{type(got[1]).__name__}: {got[1]}"
        return "ok", ""
    if ref[0] == "raised":
        if got[0] == "raised" and type(got[1]) is type(ref[1]):
            return "ok", ""
        if got[0] == "raised":
            return "mismatch", (f"loop raises {type(ref[1]).__name__}: {ref[1]}; vmap "
                                f"{type(got[1]).__name__}: {got[1]}")
        return "mismatch", f"loop raises {type(ref[1]).__name__}: {ref[1]}; vmap returns"
    if got[0] == "raised":
        tb = "".join(traceback.format_exception(got[1]))[-2000:]
        return "internal", f"{type(got[1]).__name__}: {got[1]}\n{tb}"
    value = got[1][0] if nested else got[1]
    problem = _differs(value, ref[1])
    if problem.startswith("dtype") and {np.asarray(value).dtype.kind,
                                        ref[1].dtype.kind} <= set("biuf"):
        # lanes of different types (a float on some, a Python int or bool on others): `vmap`
        # gives every lane the join of the branches' types (docs/semantics.md)
        joined = np.result_type(np.asarray(value).dtype, ref[1].dtype)
        if not _differs(np.asarray(value).astype(joined), ref[1].astype(joined)):
            return "ok", ""
    if problem:
        return "mismatch", f"{problem}\n got {value!r}\n expected {ref[1]!r}"
    return "ok", ""
