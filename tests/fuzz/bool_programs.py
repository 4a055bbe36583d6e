"""Random small functions where Python's and NumPy's scalar semantics part: per-example bools
used as numbers (`(a > 0) + (b > 0)`, `abs(x) + y` of bools, `flag += c`), the first example
deciding the output type (an int on one path, a float or a bool on another; a tuple of mixed
types), and ints, floats and bools of every width meeting. Each case is compared with
numpy.vectorize itself (values, NaN and zero signs, dtype, exception type) at N = 0 (with
otypes), 1, 5 and 37, with and without ``otypes``; ``fallback="error"``, so a refusal is a
refusal (counted), a mismatch or an internal error a bug.

``case(rng)`` draws one; ``run_case`` runs it. The long run is `benchmarks/fuzz_bools.py`,
a bounded one `tests/test_fuzz_bools.py`."""

from __future__ import annotations

import importlib.util
import math
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np

from vectorize import VectorizeError, vectorize

DTYPES = ["float64", "float32", "float16", "int64", "int8", "uint8", "int16", "uint32",
          "bool"]
_VALUES = [0.0, 1.0, -1.0, 2.0, 0.5, -0.0, 3.0, -2.5, 7.0, math.nan, math.inf, -math.inf]

_DIR = Path(tempfile.mkdtemp(prefix="vectorize_bool_programs_"))
_COUNT = [0]


def _atom(rng, params, depth) -> str:
    """A per-example bool (a comparison, `not`, `bool(...)`), a parameter or a literal."""
    p = rng.choice(params)
    roll = rng.random()
    if roll < 0.35:
        op = rng.choice([">", "<", ">=", "==", "!="])
        return f"({p} {op} {rng.choice(['0', '1', '0.5', rng.choice(params)])})"
    if roll < 0.45:
        return f"(not {p})"
    if roll < 0.5:
        return f"bool({p})"
    if roll < 0.6:
        return rng.choice(["1", "2", "0.5", "True", "-3"])
    if roll < 0.7 and depth > 0:
        return f"abs({_expr(rng, params, depth - 1)})"
    if roll < 0.75 and depth > 0:
        return f"{rng.choice(['min', 'max'])}({_expr(rng, params, depth - 1)}, {p})"
    return p


def _expr(rng, params, depth) -> str:
    if depth <= 0 or rng.random() < 0.3:
        return _atom(rng, params, depth)
    a, b = _expr(rng, params, depth - 1), _expr(rng, params, depth - 1)
    roll = rng.random()
    if roll < 0.75:
        op = rng.choice(["+", "+", "-", "*", "&", "|", "^", "//", "%", "**"])
        if op == "**":
            b = rng.choice(["2", "(a > 0)", "True"]) if "a" in params else "2"
        return f"({a} {op} {b})"
    if roll < 0.85:
        return f"({a} {rng.choice(['and', 'or'])} {b})"
    return f"({a} if {_atom(rng, params, 0)} else {b})"


def _source(rng, params) -> str:
    body = []
    roll = rng.random()
    names = list(params)
    if roll < 0.3:
        body.append(f"    flag = {_atom(rng, params, 0)}")
        body.append(f"    flag += {_atom(rng, params, 0)}")
        names.append("flag")
    elif roll < 0.45:
        body.append("    n = 0")
        body.append("    for i in range(3):")
        body.append(f"        n += {_expr(rng, params + ['i'], 1)}")
        names.append("n")
    if rng.random() < 0.3:
        body.append(f"    if {_atom(rng, params, 0)}:")
        body.append(f"        return {_expr(rng, names, 1)}")
    out = _expr(rng, names, 2)
    if rng.random() < 0.2:
        out = f"{out}, {_expr(rng, names, 1)}"
    body.append(f"    return {out}")
    return f"import math\n\nimport numpy as np\n\n\ndef f({', '.join(params)}):\n" + \
        "\n".join(body) + "\n"


def _load(source: str):
    _COUNT[0] += 1
    name = f"bool_program_{_COUNT[0]}"
    path = _DIR / f"{name}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module.f


def _array(rng, dtype, n):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return np.array([rng.random() < 0.5 for _ in range(n)], dtype=bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        vals = [rng.choice([0, 1, 2, -1, -3, 5, info.max, info.min]) for _ in range(n)]
        return np.array([min(max(v, info.min), info.max) for v in vals], dtype=dtype)
    with np.errstate(over="ignore"):
        return np.array([rng.choice(_VALUES) for _ in range(n)], dtype=dtype)


def case(rng):
    """(description, source, dtypes, scalar kinds): a function of one or two parameters."""
    params = ["a", "b"][:rng.choice([1, 2, 2])]
    source = _source(rng, params)
    dtypes = [rng.choice(DTYPES) for _ in params]
    # a parameter may be passed as a Python number, a NumPy scalar or a 0-d array
    shapes = [rng.choice(["array", "array", "array", "python", "numpy", "0d"]) for _ in params]
    return source, dtypes, shapes


def _arguments(rng, dtypes, shapes, n):
    args = []
    for dtype, shape in zip(dtypes, shapes):
        arr = _array(rng, dtype, max(n, 1))
        if shape == "array":
            args.append(arr[:n])
        elif shape == "python":
            args.append(arr[0].item())
        elif shape == "numpy":
            args.append(arr[0])
        else:
            args.append(np.array(arr[0]))
    return args


def _outcome(fn, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return fn(*args), None
        except Exception as exc:  # noqa: BLE001 -- the reference's outcome
            return None, exc


def _same(got, expected) -> str | None:
    if isinstance(expected, tuple):
        if not isinstance(got, tuple) or len(got) != len(expected):
            return f"structure {type(got).__name__} vs {type(expected).__name__}"
        for g, e in zip(got, expected):
            problem = _same(g, e)
            if problem:
                return problem
        return None
    if type(got) is not type(expected):
        return f"type {type(got).__name__} vs {type(expected).__name__}"
    got, expected = np.asarray(got), np.asarray(expected)
    if got.dtype != expected.dtype or got.shape != expected.shape:
        return f"{got.dtype}{got.shape} vs {expected.dtype}{expected.shape}"
    if expected.dtype.kind == "O":
        ok = all((x == y) or (x != x and y != y) for x, y in zip(got.ravel(), expected.ravel()))
    elif expected.dtype.kind in "fc":
        ok = np.array_equal(got, expected, equal_nan=True) and np.array_equal(
            np.signbit(got.real), np.signbit(expected.real))
    else:
        ok = np.array_equal(got, expected)
    return None if ok else f"{got!r} vs {expected!r}"


def run_case(source, dtypes, shapes, seed: int, backend: str | None = None) -> tuple[str, str]:
    """("ok" | "rejected" | "mismatch" | "internal", detail); ``backend``: ``vectorize(f,
    backend=...)`` (NumPy in, NumPy out: numpy.vectorize's contract)."""
    import random
    rng = random.Random(seed)
    f = _load(source)
    kinds = []
    for otypes in (None, "d"):
        kw = {"otypes": otypes} if otypes else {}
        vectorized = vectorize(f, fallback="error", backend=backend, **kw)
        for n in (0, 1, 5, 37):
            if n == 0 and not otypes:
                continue        # (numpy.vectorize needs otypes for an empty batch)
            args = _arguments(rng, dtypes, shapes, n)
            expected, exc = _outcome(np.vectorize(f, **kw), *args)
            got, got_exc = _outcome(vectorized, *args)
            where = f"otypes={otypes} n={n} args={args!r}"
            if isinstance(got_exc, VectorizeError):
                return "rejected", str(got_exc).splitlines()[0]
            if exc is not None or got_exc is not None:
                if exc is not None and got_exc is not None and type(exc) is type(got_exc):
                    kinds.append("raised")
                    continue
                if got_exc is not None and not isinstance(
                        got_exc, (TypeError, ValueError, ArithmeticError)):
                    return "internal", f"{where}: {type(got_exc).__name__}: {got_exc}"
                return "mismatch", (f"{where}: got {got!r} / {got_exc!r}, numpy.vectorize "
                                    f"{expected!r} / {exc!r}")
            problem = _same(got, expected)
            if problem:
                return "mismatch", f"{where}: {problem}"
            kinds.append("ok")
    return ("ok" if "ok" in kinds else "raised"), ""
