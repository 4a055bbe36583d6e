"""Generated programs of the math module and builtins at their edge values, through
``vectorize`` against ``numpy.vectorize`` itself (values, NaN and zero signs, dtype, shape,
exception type).

The other generators draw few of ``math``'s functions and few of the places where Python's
scalar semantics are not NumPy's. ``case(rng)`` draws a function ``f(a, b)`` whose body
calls them at their edges: ``lgamma`` / ``gamma`` at poles and negatives, ``atan2`` /
``copysign`` / ``fmod`` / ``remainder`` with signed zeros, ``hypot`` / ``dist`` with inf and
NaN, ``log1p`` / ``expm1``, ``frexp`` / ``ldexp``, ``isqrt`` / ``comb`` / ``perm`` / ``gcd`` /
``lcm`` / ``factorial`` of ints (results beyond int64), ``trunc`` / ``floor`` / ``ceil`` /
``int()`` / ``round()`` of inf and NaN (OverflowError, ValueError), ``float()`` / ``bool()``,
``pow(a, b, m)``, ``abs`` of the int64 minimum, ``<<`` / ``>>`` by large and negative counts,
ints beyond int64 in intermediate values (Python ints do not wrap), domain errors
(``sqrt``/``log``/``acos`` out of domain, ``exp`` overflowing); results that are tuples, None
on some paths, of another type on another path (numpy.vectorize takes the first example's),
complex, bool, the operand of ``and`` / ``or``.

The arguments: Python scalars, lists and nested lists, 0-d arrays, NumPy scalars of every
dtype (uint64, float16, complex64, bool included), arrays broadcasting (N,1) against (1,M),
empty (0,) and (0,3) batches, Fortran-ordered and non-contiguous views, keyword arguments
and defaults; the wrapping: ``otypes``, ``excluded`` (by position and by name),
``signature="(),()->()"``, ``cache=True``, the decorator form, and ``pyfunc`` a lambda, a
``functools.partial``, a bound method or a builtin (``math.atan2`` itself). Each wrapped
function is called several times with arguments of other dtypes and shapes (its
specializations must not leak into one another).

``run_case(case)`` gives (kind, detail): ``ok`` (every call equal, or raising the same
exception type), ``refused`` (``fallback="error"`` raised `VectorizeError`: then
``fallback="warn"`` must match exactly, else ``mismatch``), ``mismatch`` (a value, dtype,
shape or exception type differs) or ``internal`` (an exception that is not one Python's
scalar code raises). The long run is `benchmarks/fuzz_hunt14.py`, a bounded one
`tests/test_hunt14.py`.
"""

from __future__ import annotations

import functools
import importlib.util
import math
import random
import sys
import tempfile
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from vectorize import VectorizeError, vectorize

FLOATS = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, -3.0, 2.5, 10.0, 171.0, 172.0, 1e16,
          1e308, -1e308, 5e-324, math.nan, math.inf, -math.inf, 3.7, -7.25]
INTS = [0, 1, -1, 2, 3, 5, 7, 10, 20, 21, -7, 31, 63, 64, 65, 100, 171, -64]
DTYPES = ["float64", "float64", "float64", "float32", "float16", "int64", "int64", "int32",
          "int8", "uint8", "uint64", "bool", "float64", "int64", "complex128", "complex64"]

# Expressions of the per-example values ``{a}``, ``{b}`` (float-ish: any dtype) and ``{n}``,
# ``{m}`` (ints: ``int(...)`` of a parameter may raise on inf/nan, which is part of the test).
FLOAT_EXPRS = [
    "math.lgamma({a})", "math.gamma({a})", "math.atan2({a}, {b})", "math.copysign({a}, {b})",
    "math.fmod({a}, {b})", "math.remainder({a}, {b})", "math.hypot({a}, {b})",
    "math.dist(({a},), ({b},))", "math.dist(({a}, {b}), (0.0, 1.0))", "math.log1p({a})",
    "math.expm1({a})", "math.frexp({a})[0]", "math.ldexp({a}, {n})", "math.sqrt({a})",
    "math.log({a})", "math.log({a}, {b})", "math.log2({a})", "math.log10({a})", "math.exp({a})",
    "math.acos({a})", "math.asin({a})", "math.atanh({a})", "math.acosh({a})",
    "math.sinh({a})", "math.cosh({a})", "math.tanh({a})", "math.erf({a})", "math.erfc({a})",
    "math.pow({a}, {b})", "math.fabs({a})", "math.modf({a})[0]", "math.modf({a})[1]",
    "math.degrees({a})", "math.radians({a})", "math.cbrt({a})", "math.exp2({a})",
    "math.nextafter({a}, {b})", "math.ulp({a})", "math.fsum(({a}, {b}, -{a}))",
    "math.prod(({a}, {b}))", "math.sin({a})", "math.tan({a})", "float({a})",
    "float({a}) ** {b}", "{a} ** 0.5", "{a} ** -2", "{a} / {b}", "{a} // {b}", "{a} % {b}",
    "abs({a})", "-{a}", "+{a}",
    "round({a}, 2)", "round({a}, -1)", "max({a}, {b})", "min({a}, {b})", "divmod({a}, {b})[0]",
    "divmod({a}, {b})[1]", "{a} * 1e308", "{a} + {b} * 0.5",
]
INT_EXPRS = [
    "math.trunc({a})", "math.floor({a})", "math.ceil({a})", "int({a})", "round({a})",
    "math.frexp({a})[1]", "math.isqrt({n})", "math.comb({n} % 300, {m})",
    "math.perm({n} % 300, {m})", "math.perm({n} % 40)", "math.gcd({n}, {m})",
    "math.lcm({n}, {m})",
    "math.factorial({n} % 200)",
    "pow({n}, {m}, 7)", "pow({n}, 3, {m})", "pow({n}, -1, 7)", "abs({n})", "-{n}",
    "{n} << ({m} % 130 - 3)", "{n} >> {m}", "{n} << 70", "{n} >> 70", "1 << ({m} % 200)",
    "{n} * 2 ** 64", "({n} * 2 ** 64) // 2 ** 64", "{n} ** ({m} % 90)", "{n} ** ({m} % 5 - 2)",
    "{n} ** 2", "{n} // {m}", "{n} % {m}",
    "{n} ^ {m}", "{n} & -{m}", "~{n}", "len(str({n}))", "int({n} * 1e20) % 1000",
    "({n} + 2 ** 63) - 2 ** 63", "divmod({n}, {m})[0]", "{n}.bit_length()",
    "sum(range({m} % 7))", "math.gcd({n}, 0)", "math.factorial(abs({n}) % 30)",
    "math.comb(abs({n}) % 70, abs({m}) % 70)",
]
BOOL_EXPRS = [
    "math.isnan({a})", "math.isinf({a})", "math.isfinite({a})", "bool({a})", "not {a}",
    "math.isclose({a}, {b})", "{a} < {b}", "{a} == {b}", "math.copysign(1.0, {a}) < 0",
    "{n} > {m}", "bool({n} & 1)",
]
OPERAND_EXPRS = ["{a} and {b}", "{a} or {b}", "{n} or {b}", "{a} and {n}", "({a} > 0) or {n}",
                 "not {a} or {b}"]
COMPLEX_EXPRS = ["complex({a}, {b})", "{a} * 1j + {b}", "({a} + 0j) ** 0.5", "abs({a} + 1j)",
                 "complex({a}).conjugate()", "({a} * 1j).imag"]
CONDS = ["{a} > {b}", "{a} < 0", "math.isnan({a})", "{n} % 2 == 0", "{a} == {a}",
         "{b} != 0", "math.isfinite({b})", "{a}"]
INT_OF = ["int({p})", "math.trunc({p})", "round({p})", "math.floor({p})", "{p}"]


@dataclass
class Case:
    source: str
    wrap: str                       # how pyfunc is made: plain, decorator, lambda, partial...
    options: dict                   # otypes, excluded, signature, cache
    calls: list                     # [(args tuple, kwargs dict)]
    description: str = ""
    extra: dict = field(default_factory=dict)


def _fill(rng, template, ints, floats=("a", "b", "x", "y")) -> str:
    return template.format(a=rng.choice(floats), b=rng.choice(floats),
                           n=rng.choice(ints), m=rng.choice(ints))


def _expr(rng, ints, floats=("a", "b", "x", "y")) -> str:
    roll = rng.random()
    pool = (FLOAT_EXPRS if roll < 0.45 else INT_EXPRS if roll < 0.75 else
            BOOL_EXPRS if roll < 0.83 else OPERAND_EXPRS if roll < 0.93 else COMPLEX_EXPRS)
    return _fill(rng, rng.choice(pool), ints, floats)


def _body(rng) -> tuple[list[str], str]:
    """The lines of ``f(a, b)``'s body and its description."""
    lines = []
    ints = ["n", "m"]
    lines.append(f"    n = {rng.choice(INT_OF).format(p='a')}")
    lines.append(f"    m = {rng.choice(INT_OF).format(p='b')}")
    lines.append(f"    x = {_fill(rng, rng.choice(FLOAT_EXPRS), ints, ('a', 'b'))}")
    lines.append(f"    y = {_expr(rng, ints, ('a', 'b', 'x'))}")
    shape = rng.random()
    if shape < 0.3:
        lines.append(f"    if {_fill(rng, rng.choice(CONDS), ints)}:")
        ret = "None" if rng.random() < 0.2 else _expr(rng, ints)
        lines.append(f"        return {ret}")
        lines.append(f"    return {_expr(rng, ints)}")
        kind = "branch"
    elif shape < 0.45:
        lines.append(f"    return {_expr(rng, ints)}, {_expr(rng, ints)}")
        kind = "tuple"
    elif shape < 0.55:
        lines.append(f"    z = {_expr(rng, ints)} if {_fill(rng, rng.choice(CONDS), ints)} "
                     f"else {_expr(rng, ints)}")
        lines.append("    return z")
        kind = "ternary"
    elif shape < 0.6:
        # ints growing beyond int64 in a loop (Python's do not wrap), brought back or not
        lines.append(f"    acc = {rng.choice(['n', 'm', '1', '0', 'n * m'])}")
        lines.append(f"    for i in range({rng.choice(['3', '4', '6'])}):")
        step = rng.choice(["acc * n + i", "acc * 1000003 + m", "acc ** 2 + i", "acc * acc - n",
                           "(acc << 13) ^ m"])
        lines.append(f"        acc = {step}")
        tail = rng.choice(["acc % 1000", "acc % 1000", "acc // 2 ** 70", "acc", "acc > 0",
                           "float(acc)", "acc & 255", "-acc % 7", "acc % (m or 1)"])
        lines.append(f"    return {tail}")
        kind = "bigint loop"
    elif shape < 0.65:
        # augmented assignments of ints and floats
        for _ in range(rng.choice([2, 3])):
            target = rng.choice(["n", "m", "x"])
            op = rng.choice(["+=", "-=", "*=", "//=", "%=", "**=", "<<=", ">>=", "|=", "/="])
            value = rng.choice(["2", "m", "n", "3", "-1", "0", "x", "63", "64"])
            if op in ("**=", "<<=") and value in ("m", "n", "x"):
                value = "3"     # (an int to the power of an int64: no end)
            lines.append(f"    {target} {op} {value}")
        out = rng.choice(["n", "m", "x", "n + m", "(n, x)", "n if m else None"])
        lines.append(f"    return {out}")
        kind = "augmented"
    elif shape < 0.7:
        lines.append("    try:")
        lines.append(f"        z = {_expr(rng, ints)}")
        lines.append("    except (ValueError, OverflowError, ZeroDivisionError):")
        lines.append("        z = -1")
        lines.append("    return z")
        kind = "try"
    else:
        lines.append(f"    return {_expr(rng, ints)}")
        kind = "plain"
    return lines, kind


_DIR = Path(tempfile.mkdtemp(prefix="vectorize_hunt14_"))
_COUNT = [0]


def load(source: str):
    """The module of ``source``, written to a real file (``inspect.getsource`` works)."""
    _COUNT[0] += 1
    name = f"hunt14_program_{_COUNT[0]}"
    path = _DIR / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


# ------------------------------------------------------------------------------ arguments
def _values(rng, dtype, n) -> list:
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return [rng.random() < 0.5 for _ in range(n)]
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        pool = [v for v in INTS if info.min <= v <= info.max] + [int(info.min), int(info.max)]
        return [rng.choice(pool) for _ in range(n)]
    if dtype.kind == "c":
        return [complex(rng.choice(FLOATS), rng.choice([0.0, 0.0, 1.0, -0.0, math.nan]))
                for _ in range(n)]
    return [rng.choice(FLOATS) for _ in range(n)]


def _array(rng, dtype, shape) -> np.ndarray:
    size = int(np.prod(shape))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.array(_values(rng, dtype, size), dtype=dtype).reshape(shape)


def _argument(rng, dtype, form, shape):
    """One argument: ``form`` says what it is; ``shape`` the batch shape of arrays."""
    if form == "python":
        v = _values(rng, dtype, 1)[0]
        return v
    if form == "numpy":
        return _array(rng, dtype, (1,))[0]
    if form == "0d":
        return _array(rng, dtype, ())
    if form == "list":
        return _array(rng, dtype, shape).tolist()
    if form == "fortran":
        return np.asfortranarray(_array(rng, dtype, shape))
    if form == "strided":
        big = _array(rng, dtype, tuple(2 * s for s in shape))
        return big[(slice(None, None, 2),) * len(shape)]
    if form == "transposed":
        return _array(rng, dtype, shape[::-1]).T
    return _array(rng, dtype, shape)


SHAPES = [(5,), (5,), (1,), (3, 4), (2, 3, 2), (0,), (0, 3)]


def _call_args(rng, nparams):
    """(args, description) for one call of ``nparams`` arguments."""
    roll = rng.random()
    if roll < 0.15:
        shapes = [(4, 1), (1, 3)][:nparams]
    else:
        shape = rng.choice(SHAPES)
        shapes = [shape] * nparams
    dtypes = [rng.choice(DTYPES) for _ in range(nparams)]
    forms = []
    for s in shapes:
        f = rng.choice(["array", "array", "array", "python", "numpy", "0d", "list", "fortran",
                        "strided", "transposed"])
        if f in ("fortran", "transposed") and len(s) < 2:
            f = "array"
        forms.append(f)
    if all(f in ("python", "numpy", "0d") for f in forms) and rng.random() < 0.7:
        forms[0] = "array"
    args = tuple(_argument(rng, d, f, s) for d, f, s in zip(dtypes, forms, shapes))
    return args, f"{list(zip(dtypes, forms, shapes))}"


WRAPS = ["plain", "plain", "plain", "decorator", "lambda", "partial", "method", "kwargs",
         "default", "excluded_pos", "excluded_name", "signature", "cache", "builtin"]
BUILTINS = ["math.atan2", "math.copysign", "math.fmod", "math.remainder", "math.hypot",
            "math.pow", "math.lgamma", "math.gamma", "math.gcd", "math.comb", "math.ldexp",
            "math.trunc", "math.floor", "abs", "round", "pow", "min", "max", "divmod",
            "math.isqrt", "math.factorial", "int", "float", "bool", "math.sin", "math.erf",
            "math.log1p", "math.frexp", "math.modf", "complex", "math.isnan"]
_ONE_ARG = {"math.lgamma", "math.gamma", "math.trunc", "math.floor", "abs", "round",
            "math.isqrt", "math.factorial", "int", "float", "bool", "math.sin", "math.erf",
            "math.log1p", "math.frexp", "math.modf", "math.isnan"}
OTYPES = [None, None, None, "d", "l", "?", "D", "O", "f", "dd", "ld"]


def case(rng) -> Case:
    """One case: the module source, the wrap, the options and the calls."""
    wrap = rng.choice(WRAPS)
    options = {}
    if rng.random() < 0.3:
        options["otypes"] = rng.choice(OTYPES[3:])
    if wrap == "builtin":
        name = rng.choice(BUILTINS)
        nparams = 1 if name in _ONE_ARG else 2
        source = f"import math\n\nf = {name}\n"
        kind = "builtin"
    else:
        lines, kind = _body(rng)
        nparams = 2
        head = "def f(a, b=2.5):" if wrap == "default" else "def f(a, b):"
        deco = ""
        if wrap == "decorator":
            opts = ", ".join(f"{k}={v!r}" for k, v in options.items())
            deco = f"@vectorize({opts})\n" if opts else "@vectorize\n"
        source = "import math\n\nimport numpy as np\n\nfrom vectorize import vectorize\n\n\n" \
            + deco + head + "\n" + "\n".join(lines) + "\n"
        if wrap == "lambda":
            expr = _expr(rng, ["int(a)", "int(b)"], ("a", "b"))
            source += f"\n\ng = lambda a, b: {expr}\n"
        if wrap == "method":
            source += "\n\nclass K:\n    def __init__(self, k):\n        self.k = k\n\n" \
                "    def method(self, a, b):\n        return f(a, b) if self.k else f(b, a)\n"
    if wrap == "default" and rng.random() < 0.5:
        nparams = 1
    if wrap == "partial":
        nparams = 1
        options["partial"] = _values(rng, rng.choice(["float64", "int64"]), 1)[0]
    if wrap in ("excluded_pos", "excluded_name"):
        options["excluded_value"] = _values(rng, rng.choice(["float64", "int64", "bool"]), 1)[0]
        nparams = 1
    calls = []
    for _ in range(rng.choice([1, 2, 3])):
        args, desc = _call_args(rng, nparams)
        calls.append((args, desc))
    return Case(source, wrap, options, calls, description=kind)


# ----------------------------------------------------------------------------- the runner
def _pyfunc(case: Case, module):
    """(per-example function, how it is passed: args -> (args, kwargs))."""
    w = case.wrap
    f = module.f
    if w == "decorator":
        f = f.pyfunc
    if w == "lambda":
        return module.g, None
    if w == "partial":
        return functools.partial(f, b=case.options["partial"]), None
    if w == "method":
        return module.K(1).method, None
    return f, None


def _np_options(case: Case) -> dict:
    o = {}
    if case.options.get("otypes"):
        o["otypes"] = case.options["otypes"]
    if case.wrap == "excluded_pos":
        o["excluded"] = {1}
    if case.wrap == "excluded_name":
        o["excluded"] = {"b"}
    if case.wrap == "signature":
        o["signature"] = "(),()->()"
    if case.wrap == "cache":
        o["cache"] = True
    return o


def _split(case: Case, args):
    """(args, kwargs) of one call."""
    if case.wrap == "kwargs":
        return (), dict(zip(("a", "b"), args))
    if case.wrap == "excluded_pos":
        return args + (case.options["excluded_value"],), {}
    if case.wrap == "excluded_name":
        return args, {"b": case.options["excluded_value"]}
    return args, {}


def outcome(fn, args, kwargs):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return fn(*args, **kwargs), None
        except Exception as exc:  # noqa: BLE001 -- the reference's outcome
            return None, exc


def same(got, expected, ulps: bool = False) -> str | None:
    """None where ``got`` is ``expected`` (type, dtype, shape, values, NaN, zero signs)."""
    if isinstance(expected, tuple):
        if not isinstance(got, tuple) or len(got) != len(expected):
            return f"structure {type(got).__name__} vs {type(expected).__name__}"
        problems = [same(g, e, ulps) for g, e in zip(got, expected)]
        return next((p for p in problems if p and p != "ulps"),
                    "ulps" if "ulps" in problems else None)
    if type(got) is not type(expected):
        return f"type {type(got).__name__} vs {type(expected).__name__}: {got!r} vs {expected!r}"
    got, expected = np.asarray(got), np.asarray(expected)
    if got.dtype != expected.dtype or got.shape != expected.shape:
        return f"{got.dtype}{got.shape} vs {expected.dtype}{expected.shape}: {got!r} vs " \
            f"{expected!r}"
    if expected.dtype.kind == "O":
        def eq(x, y):
            if type(x) is not type(y):
                return False
            if isinstance(x, float) and x != x:
                return y != y
            if isinstance(x, complex):
                return np.array_equal(np.asarray(x), np.asarray(y), equal_nan=True)
            return bool(x == y) and (not isinstance(x, float) or
                                     math.copysign(1, x) == math.copysign(1, y))
        ok = all(eq(x, y) for x, y in zip(got.ravel(), expected.ravel()))
    elif expected.dtype.kind in "fc":
        ok = np.array_equal(got, expected, equal_nan=True) and np.array_equal(
            np.signbit(got.real), np.signbit(expected.real))
        if ok and expected.dtype.kind == "c":
            ok = np.array_equal(np.signbit(got.imag), np.signbit(expected.imag))
        if not ok and ulps and np.array_equal(np.isfinite(got), np.isfinite(expected)):
            # NumPy's / SciPy's transcendental functions against the C library's: equal to a
            # few ulps (docs/semantics.md: `math.gamma` / `lgamma` / `erf` ...; lgamma near
            # its zeros absolutely)
            with np.errstate(all="ignore"):
                close = np.isclose(got, expected, rtol=4e-15, atol=2e-16, equal_nan=True)
            if close.all():
                return "ulps"
    else:
        ok = np.array_equal(got, expected)
    return None if ok else f"{got!r} vs {expected!r}"


def run_case(c: Case) -> tuple[str, str]:
    """("ok" | "refused" | "mismatch" | "internal", detail)."""
    module = load(c.source)
    pyfunc, _ = _pyfunc(c, module)
    opts = _np_options(c)
    reference = np.vectorize(pyfunc, **opts)
    kinds = []
    refused = None
    for fallback in ("error", "warn"):
        if fallback == "warn" and refused is None and c.wrap != "decorator":
            break
        try:
            if fallback == "warn" and c.wrap == "decorator":
                ours = module.f             # the decorated function (fallback="warn")
            else:
                ours = vectorize(pyfunc, fallback=fallback, **opts)
        except Exception as exc:  # noqa: BLE001
            ref = outcome(lambda: np.vectorize(pyfunc, **opts), (), {})
            if ref[1] is not None and type(ref[1]) is type(exc):
                return "ok", "both raise at construction"
            return "internal", f"construction: {type(exc).__name__}: {exc}"
        for args, desc in c.calls:
            args, kwargs = _split(c, args)
            expected, exc = outcome(reference, args, kwargs)
            got, got_exc = outcome(ours, args, kwargs)
            where = f"fallback={fallback} {desc} args={args!r} kwargs={kwargs!r}"
            if isinstance(got_exc, VectorizeError) and not isinstance(exc, VectorizeError):
                if fallback == "warn":
                    return "mismatch", f"{where}: fallback='warn' raised {got_exc}"
                refused = str(got_exc).splitlines()[0]
                if exc is not None:
                    refused = "(numpy.vectorize raises " + type(exc).__name__ + ") " + refused
                break
            if (exc is not None and "size 0 inputs" in str(exc) and got_exc is None
                    and np.size(got[0] if isinstance(got, tuple) else got) == 0):
                kinds.append("empty")     # (docs/semantics.md: no otypes needed)
                continue
            if exc is not None or got_exc is not None:
                if exc is not None and got_exc is not None and type(exc) is type(got_exc):
                    kinds.append("raised")
                    continue
                if got_exc is not None and not isinstance(
                        got_exc, (TypeError, ValueError, ArithmeticError)):
                    return "internal", (f"{where}: {type(got_exc).__name__}: {got_exc}\n"
                                        + "".join(traceback.format_exception(got_exc))[-1500:])
                return "mismatch", (f"{where}: got {got!r} / {got_exc!r}, numpy.vectorize "
                                    f"{expected!r} / {exc!r}")
            problem = same(got, expected, ulps=True)
            if problem == "ulps":
                kinds.append("ulps")
                continue
            if problem:
                return "mismatch", f"{where}: {problem}"
            kinds.append("ok")
    if refused is not None:
        return "refused", refused
    if "ulps" in kinds:
        return "ulps", ""
    return ("ok" if "ok" in kinds else "raised"), ""


def describe(c: Case) -> str:
    return (f"wrap={c.wrap} options={c.options} kind={c.description}\n{c.source}"
            + "".join(f"  call: {d}\n" for _, d in c.calls))


def run_seed(seed: int) -> tuple[str, str, Case]:
    c = case(random.Random(seed))
    try:
        kind, detail = run_case(c)
    except Exception:  # noqa: BLE001 -- the harness's own failure: report it
        kind, detail = "internal", traceback.format_exc()
    return kind, detail, c
