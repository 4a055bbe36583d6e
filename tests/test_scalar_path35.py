"""`vmap` against the loop over NumPy scalars at special values, rule by rule.

The per-example loop computes with NumPy's scalar math (``np.float64(x) ** 0.5`` is the C
library's pow) or `math`, the batch with NumPy's array loops, which take faster paths of their
own (an exponent of 0.5 the same for every item is ``np.sqrt``: nan at -inf, -0.0 at -0.0).
Each elementwise rule reachable from scalar code runs here on arrays of special values (±0,
±inf, nan, subnormals, the extremes of each type) and must give the loop's values, signs of
zero and dtype; lanes where the loop raises must make the batch raise the same exception.
Finite results may differ by a few ulps (the array loops' SIMD pow, exp...), the rest not.
"""

from __future__ import annotations

import importlib.util
import sys
import warnings

import numpy as np
import pytest

from vectorize import VectorizeError, vectorize, vmap

DTYPES = ["float64", "float32", "float16", "int64", "int32", "uint8", "bool"]
FLOATS = ["float64", "float32", "float16"]
EXPONENTS = ["-1", "0", "0.5", "1", "2", "3", "-0.5", "1 / 3"]
OPERATORS = ["+", "-", "*", "/", "//", "%", "**"]


def specials(dtype) -> np.ndarray:
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        info = np.finfo(dtype)
        values = [0.0, -0.0, np.inf, -np.inf, np.nan, info.smallest_subnormal,
                  -info.smallest_subnormal, info.tiny, info.max, -info.max, 1.0, -1.0, 0.5,
                  -2.5, 3.0]
    elif dtype.kind == "b":
        values = [False, True]
    else:
        info = np.iinfo(dtype)
        values = sorted({0, 1, 2, 7, int(info.max), int(info.max) - 1, int(info.min),
                         int(info.min) + 1, *((-1, -7) if dtype.kind == "i" else (250,))})
    return np.array(values, dtype=dtype)


def _cases():
    """(name, parameters, body expression, in_axes, shared argument, dtypes)."""
    cases = []
    for i, op in enumerate(OPERATORS):
        for j, k in enumerate(EXPONENTS):
            literal = f"({k})" if " " in k else k
            cases.append((f"lit_{i}_{j}", "x", f"x {op} {literal}", 0, (), DTYPES))
            cases.append((f"arg_{i}_{j}", "x, k", f"x {op} k", (0, None), (eval(k),), DTYPES))
        cases.append((f"left_{i}", "x", f"2.5 {op} x", 0, (), DTYPES))
    cases.append(("shared_half", "x", "x ** P", 0, (), FLOATS))
    cases.append(("shifted_half", "x", "(x - 1.0) ** 0.5", 0, (), FLOATS))
    cases.append(("pow_half", "x", "pow(x, 0.5)", 0, (), FLOATS))
    cases.append(("pow_arg", "x, k", "pow(x, k)", (0, None), (0.5,), FLOATS))
    # (a base with a call, written once)
    cases.append(("call_half", "x", "np.negative(x) ** 0.5", 0, (), FLOATS))
    cases.append(("call_arg", "x, k", "np.negative(x) ** k", (0, None), (0.5,), FLOATS))
    cases.append(("float_half", "x", "float(x) ** 0.5", 0, (), DTYPES))
    for i, op in enumerate(["<", "<=", "==", "!=", ">", ">="]):
        cases.append((f"cmp_{i}", "x", f"x {op} 0.0", 0, (), DTYPES))
    for i, call in enumerate(["abs(x)", "round(x)", "round(x, 2)", "-x", "+x", "max(x, 0.0)",
                              "min(x, -0.0)", "float(x)", "int(x)"]):
        cases.append((f"builtin_{i}", "x", call, 0, (), DTYPES))
    for name in ["sqrt", "exp", "log", "log2", "log10", "log1p", "expm1", "sin", "cos", "tan",
                 "atan", "sinh", "cosh", "tanh", "asinh", "floor", "ceil", "trunc", "fabs",
                 "isnan", "isinf", "isfinite", "degrees", "radians", "erf", "cbrt"]:
        cases.append((f"math_{name}", "x", f"math.{name}(x)", 0, (), FLOATS + ["int64"]))
    for i, call in enumerate(["math.pow(x, 0.5)", "math.pow(x, 2.0)", "math.copysign(1.0, x)",
                              "math.hypot(x, 3.0)", "math.atan2(x, -0.0)",
                              "math.fmod(x, 2.0)"]):
        cases.append((f"math2_{i}", "x", call, 0, (), FLOATS + ["int64"]))
    for name in ["sqrt", "abs", "sign", "floor", "ceil", "rint", "exp", "log", "square",
                 "reciprocal", "cbrt", "negative", "signbit", "isnan"]:
        cases.append((f"np_{name}", "x", f"np.{name}(x)", 0, (), DTYPES))
    for i, call in enumerate(["np.power(x, 0.5)", "np.maximum(x, -0.0)", "np.minimum(x, 0.0)",
                              "np.fmax(x, 0.0)", "np.float_power(x, 0.5)",
                              "np.hypot(x, 3.0)", "np.arctan2(x, -0.0)",
                              "np.copysign(1.0, x)", "np.fmod(x, 2.0)", "np.remainder(x, 2.0)",
                              "np.floor_divide(x, 2.0)"]):
        cases.append((f"np2_{i}", "x", call, 0, (), DTYPES))
    return cases


CASES = _cases()


@pytest.fixture(scope="module")
def functions(tmp_path_factory):
    lines = ["import math", "", "import numpy as np", "", "P = 0.5", ""]
    for name, params, body, *_ in CASES:
        lines += ["", f"def {name}({params}):", f"    return {body}", ""]
    path = tmp_path_factory.mktemp("scalar_path35") / "scalar_path35_programs.py"
    path.write_text("\n".join(lines))
    spec = importlib.util.spec_from_file_location("scalar_path35_programs", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _outcome(call):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return call()
        except Exception as e:      # noqa: BLE001 (the exception is the outcome compared)
            return e


# NumPy's fmax / fmin of -0.0 and 0.0 is either zero, by type and by the array's length (its
# SIMD loop or its scalar one: `np.fmax(np.float64(-0.0), 0.0)` is -0.0, of an array of 18
# such items 0.0, of a float32 scalar 0.0): their zeros are compared without their sign
UNSIGNED_ZEROS = {"np.fmax(x, 0.0)"}


def _disagreement(got, want, signed_zeros=True) -> str | None:
    """Where ``got`` (the batch) differs from ``want`` (the loop's stack): None if nowhere."""
    if got.dtype != want.dtype:
        return f"dtype {got.dtype} != {want.dtype}"
    if got.shape != want.shape:
        return f"shape {got.shape} != {want.shape}"
    if got.dtype.kind not in "fc":
        bad = got != want
    else:
        g, w = got.astype(np.complex128 if got.dtype.kind == "c" else np.float64), \
            want.astype(np.complex128 if got.dtype.kind == "c" else np.float64)
        ulp = float(np.finfo(got.dtype).eps)
        special = ~np.isfinite(w) | (w == 0) | ~np.isfinite(g) | (g == 0)
        close = np.isclose(g, w, rtol=8 * ulp, atol=0)
        same = (g == w) | (np.isnan(g) & np.isnan(w))
        sign = np.signbit(g.real) != np.signbit(w.real)
        if not signed_zeros:
            sign &= w != 0
        bad = np.where(special, ~same | sign, ~close)
    if bad.any():
        return f"lanes {np.flatnonzero(bad).tolist()}: batch {got[bad]!r}, loop {want[bad]!r}"
    return None


def check(functions, name, in_axes, shared, dtype, signed_zeros=True):
    f = getattr(functions, name)
    x = specials(dtype)
    lanes = [_outcome(lambda e=e: f(e, *shared)) for e in x]
    raised = [i for i, v in enumerate(lanes) if isinstance(v, Exception)]
    kept = np.array([i for i in range(len(x)) if i not in raised], dtype=np.intp)
    v = vmap(f, in_axes=in_axes)
    problems = []
    if len(kept):
        got = _outcome(lambda: v(x[kept], *shared))
        want = np.stack([np.asarray(lanes[i]) for i in kept])
        if isinstance(got, Exception):
            problems.append(f"raised {type(got).__name__}: {got}"[:300])
        else:
            d = _disagreement(np.asarray(got), want, signed_zeros)
            if d:
                problems.append(d)
    if raised:
        got = _outcome(lambda: v(x, *shared))
        kinds = {type(lanes[i]) for i in raised}
        # (a refusal, with its location, is the contract's other answer)
        if not isinstance(got, (VectorizeError, *kinds)):
            problems.append(f"lanes {raised} raise {kinds} per example, the batch "
                            f"{type(got).__name__ if isinstance(got, Exception) else 'not'}")
    return problems


@pytest.mark.parametrize("name,in_axes,shared,dtypes",
                         [(c[0], c[3], c[4], c[5]) for c in CASES if c[5]],
                         ids=[c[2] for c in CASES if c[5]])
def test_vmap_matches_the_scalar_loop(functions, name, in_axes, shared, dtypes, request):
    signed = request.node.callspec.id not in UNSIGNED_ZEROS
    problems = {dtype: p for dtype in dtypes
                if (p := check(functions, name, in_axes, shared, dtype, signed))}
    assert not problems, problems


def check_vectorize(functions, name, shared, dtype):
    f = getattr(functions, name)
    x = specials(dtype)
    want = _outcome(lambda: np.vectorize(f)(x, *shared))
    got = _outcome(lambda: vectorize(f, fallback="error")(x, *shared))
    if isinstance(want, Exception):
        if not isinstance(got, (VectorizeError, type(want))):
            return [f"numpy.vectorize raises {type(want).__name__}, we "
                    f"{type(got).__name__ if isinstance(got, Exception) else 'do not'}"]
        return []
    if isinstance(got, Exception):
        return [f"raised {type(got).__name__}: {got}"[:300]]
    d = _disagreement(np.asarray(got), np.asarray(want))
    return [d] if d else []


PYTHON_DTYPES = ["float64", "int64", "bool"]


@pytest.mark.parametrize("name,shared,dtypes",
                         [(c[0], c[4], [d for d in PYTHON_DTYPES if d in c[5]])
                          for c in CASES if c[0].startswith(("lit", "arg", "left", "shared",
                                                             "shifted", "pow", "float", "cmp",
                                                             "builtin", "math"))],
                         ids=[c[2] for c in CASES if c[0].startswith(
                             ("lit", "arg", "left", "shared", "shifted", "pow", "float", "cmp",
                              "builtin", "math"))])
def test_vectorize_matches_numpy_vectorize(functions, name, shared, dtypes):
    problems = {dtype: p for dtype in dtypes if (p := check_vectorize(functions, name, shared,
                                                                       dtype))}
    assert not problems, problems


def _half(x):
    return x ** 0.5


def _power(x, k):
    return x ** k


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
def test_torch_square_root_power_matches_its_loop(dtype):
    # (PyTorch's power is a square root for a tensor and for a 0-d one alike: nan at -inf)
    torch = pytest.importorskip("torch")
    x = torch.tensor([-np.inf, -0.0, 0.0, 4.0, np.nan], dtype=getattr(torch, dtype))
    for got, want in [(vmap(_half)(x), torch.stack([_half(e) for e in x])),
                      (vmap(_power, in_axes=(0, None))(x, 0.5),
                       torch.stack([_power(e, 0.5) for e in x]))]:
        assert _disagreement(got.numpy(), want.numpy()) is None


def test_jax_square_root_power_matches_its_loop():
    jnp = pytest.importorskip("jax.numpy")
    x = jnp.array([-np.inf, -0.0, 0.0, 4.0, np.nan], dtype=jnp.float32)
    want = np.stack([np.asarray(_half(e)) for e in x])
    assert _disagreement(np.asarray(vmap(_half)(x)), want) is None
    assert _disagreement(np.asarray(vmap(_power, in_axes=(0, None))(x, 0.5)), want) is None
