"""Differential hunt over input patterns the program generators do not make: every function of
``benchmarks/hunt_functions.py`` (operators, builtins, ``math``, branches, loops) called through
``vectorize(f, fallback="error")`` and through ``numpy.vectorize`` on int8 ... uint64, bool,
float16/32/64 and complex arrays, Python and NumPy scalars, 0-d arrays, views with negative
strides, Fortran order, broadcast shapes, N = 0 and 1, int64 limits, subnormals and NaN
payloads. Compares values (NaN and zero signs), dtype and exception type; prints every
mismatch and internal error, and the refusals by reason.

    python benchmarks/hunt_inputs.py                 # every function (minutes)
    python benchmarks/hunt_inputs.py add mn trunc    # some of them

Also read-only arrays, ``np.matrix``, masked arrays (values, dtype and mask), an ndarray
subclass, tuples and nested lists; the result's type is compared too (a subclass, a masked
array, a 0-d array). What it still reports: the refusals with their reasons, among them a
NumPy float16 value (``np.sin`` of a bool) or a uint64 meeting a Python number where NumPy's
promotion differs from the example's (docs/semantics.md, "Output types and narrow dtypes").
"""

import collections
import inspect
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import hunt_functions as hfuncs  # noqa: E402

from vectorize import vectorize  # noqa: E402
from vectorize.errors import VectorizeError  # noqa: E402


def vals(dt, n=7, seed=0):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dt)
    if dt.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        base = [0, 1, 2, 5, -3, info.max, info.min, info.max - 1, 7, -1, 3]
        base = [b for b in base if info.min <= b <= info.max]
        return np.array([base[i % len(base)] for i in range(n)], dtype=dt)
    if dt.kind == "f":
        fi = np.finfo(dt)
        base = [
            1.5,
            -0.0,
            0.0,
            -2.25,
            float(fi.tiny) / 4,
            np.nan,
            np.inf,
            -np.inf,
            3.0,
            1e30 if dt.itemsize > 2 else 6e4,
            -7.5,
            0.5,
        ]
        return np.array([base[i % len(base)] for i in range(n)], dtype=dt)
    if dt.kind == "c":
        base = [1 + 2j, -0.0 + 0j, 3.5 - 1j, complex(np.nan, 1), 2.0 + 0j]
        return np.array([base[i % len(base)] for i in range(n)], dtype=dt)


def same(got, ref):
    got = np.asarray(got)
    ref = np.asarray(ref)
    if got.dtype != ref.dtype:
        return f"dtype {got.dtype} != {ref.dtype}"
    if got.shape != ref.shape:
        return f"shape {got.shape} != {ref.shape}"
    if ref.dtype.kind in "fc":
        g = got.astype(complex).ravel()
        r = ref.astype(complex).ravel()
        for a, b in zip(g, r):
            for pa, pb in ((a.real, b.real), (a.imag, b.imag)):
                if np.isnan(pa) and np.isnan(pb):
                    continue
                if pa == pb:
                    if pa == 0 and np.signbit(pa) != np.signbit(pb):
                        return f"signed zero {got} vs {ref}"
                    continue
                if (
                    np.isfinite(pa)
                    and np.isfinite(pb)
                    and abs(pa - pb) <= 8 * np.finfo(ref.dtype).eps * max(abs(pa), abs(pb))
                ):
                    continue
                return f"values {got!r} vs {ref!r}"
        return None
    if ref.dtype.kind == "O":
        if not all((a == b) or (a != a and b != b) for a, b in zip(got.ravel(), ref.ravel())):
            return f"values {got!r} vs {ref!r}"
        return None
    if not np.array_equal(got, ref):
        return f"values {got!r} vs {ref!r}"
    return None


def outcome(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            try:
                return fn(*a, **k), None
            except Exception as e:
                return None, e


_VF = {}


def compare(name, f, args, kw=None, vkw=None, desc=""):
    kw = kw or {}
    vkw = vkw or {}
    ref, rexc = outcome(np.vectorize(f, **vkw), *args, **kw)
    key = (name, repr(vkw))
    if key not in _VF:
        _VF[key] = vectorize(f, fallback="error", **vkw)
    got, gexc = outcome(_VF[key], *args, **kw)
    if isinstance(gexc, VectorizeError):
        return "refused", str(gexc).splitlines()[0][:150]
    if gexc is not None and not isinstance(
        gexc, (TypeError, ValueError, ArithmeticError, AttributeError)
    ):
        return "internal", f"{type(gexc).__name__}: {gexc}"[:300] + (
            f" (ref {type(rexc).__name__})" if rexc else ""
        )
    if rexc is not None or gexc is not None:
        if rexc is not None and "size 0 inputs" in str(rexc) and gexc is None:
            return "ok", None
        if rexc is None:
            return (
                "mismatch",
                f"raised {type(gexc).__name__}: {str(gexc)[:150]}; ref returned {ref!r}"[:400],
            )
        if gexc is None:
            return "mismatch", f"returned {got!r}; ref raised {type(rexc).__name__}: {rexc}"[:400]
        if type(gexc) is not type(rexc):
            return (
                "mismatch",
                f"raised {type(gexc).__name__}: {gexc}; ref {type(rexc).__name__}: {rexc}"[:400],
            )
        return "ok", None
    if isinstance(ref, tuple):
        if not isinstance(got, tuple) or len(got) != len(ref):
            return "mismatch", "tuple structure"
    pairs = zip(got, ref) if isinstance(ref, tuple) else [(got, ref)]
    for g, r in pairs:
        # (the type too: an ndarray subclass, a masked array and its mask, a 0-d array)
        if type(g) is not type(r):
            return "mismatch", f"type {type(g).__name__} != {type(r).__name__}"
        if isinstance(r, np.ma.MaskedArray) and not np.array_equal(np.ma.getmaskarray(g),
                                                                    np.ma.getmaskarray(r)):
            return "mismatch", f"mask {np.ma.getmaskarray(g)} != {np.ma.getmaskarray(r)}"
        m = same(g, r)
        if m:
            return "mismatch", m[:400]
    return "ok", None


DT = [
    "int8",
    "uint8",
    "int16",
    "int32",
    "int64",
    "uint64",
    "bool",
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]


class Subclass(np.ndarray):
    """An ndarray subclass of the user's: numpy.vectorize's outputs are of it too."""


def patterns():
    for dx in DT:
        yield f"{dx},f64", (vals(dx), vals("float64", seed=1))
        yield f"{dx},same", (vals(dx), vals(dx, seed=2)[::-1].copy())
        yield f"{dx},pyint", (vals(dx), 3)
    yield "i64,i64", (vals("int64"), vals("int64", seed=3))
    yield "0d f64", (np.array(2.5), np.array(-0.0))
    yield "0d i64 + arr", (np.array(4), vals("float64"))
    yield "py scalars", (2.5, 3)
    yield "np scalars", (np.float32(2.5), np.int8(3))
    x2 = np.arange(24, dtype=float).reshape(4, 6) - 10
    yield "noncontig", (x2[:, ::2], x2[::-1, 1::2])
    yield "fortran", (np.asfortranarray(x2), 1.5)
    yield "broadcast", (np.arange(3.0)[:, None] - 1, np.arange(4.0) - 2)
    yield "N=0", (np.zeros(0), np.zeros(0))
    yield "N=0 int", (np.zeros(0, int), np.zeros(0, int))
    yield "N=1", (np.array([2.0]), np.array([-1.0]))
    yield "N=1 int", (np.array([7]), np.array([2]))
    yield "bigint", (np.array([2**62, -(2**63), 2**63 - 1, 3]), np.array([2, 1, 1, 0]))
    yield (
        "subnormal",
        (np.array([5e-324, -5e-324, 1e-310, 2.2e-308]), np.array([1e-300, 2.0, -0.0, 0.5])),
    )
    nanp = np.array([0x7FF8000000000123, 0xFFF8000000000001], dtype=np.uint64).view(np.float64)
    yield "nanpayload", (nanp, np.array([1.0, 2.0]))
    yield "2d int8", (vals("int8", 12).reshape(3, 4), vals("int8", 4, seed=5))
    yield (
        "uint64 big",
        (np.array([2**64 - 1, 2**63, 5], dtype=np.uint64), np.array([1, 2, 3], dtype=np.uint64)),
    )
    yield "objects", (np.array([1, 2.5, 3], dtype=object), 2)
    yield "list", ([1.0, 2.0, -3.0], [1, 2, 3])
    yield "tuple", ((1.5, -2.0, 3.0), (1, 2, 3))
    yield "nested list", ([[1.0, 2.0], [3.0, -1.0]], [1.0, 2.0])
    yield "python bool", (True, 2.0)
    readonly = vals("float64")
    readonly.flags.writeable = False
    yield "read-only", (readonly, 1.5)
    yield "matrix", (np.matrix([[1.5, -2.0], [0.0, 3.0]]), 2.0)
    yield "masked", (np.ma.array(vals("float64", 4), mask=[0, 1, 0, 0]), vals("float64", 4, 1))
    yield "masked int", (np.ma.array([1, 2, -3], mask=[1, 0, 0]), np.ma.array([[1], [2]],
                                                                             mask=[[0], [1]]))
    yield "subclass", (vals("float64").view(Subclass), 2.0)


def main():
    only = sys.argv[1:] or None
    start = None
    if only and only[0].startswith("from="):
        start = only.pop(0)[5:]
        only = only or None
    funcs = [
        (n, f)
        for n, f in inspect.getmembers(hfuncs, inspect.isfunction)
        if f.__module__ == hfuncs.__name__
    ]
    counts = collections.Counter()
    details = collections.defaultdict(list)
    for name, f in funcs:
        if only and name not in only:
            continue
        if start and name < start:
            continue
        for pname, args in patterns():
            if name == "powxy" and any(np.asarray(a).dtype.kind in "iuO" for a in args):
                continue
            status, msg = compare(name, f, args)
            counts[status] += 1
            if status in ("mismatch", "internal"):
                print(status, name, pname, msg, flush=True)
                details[status].append(f"{name} [{pname}]: {msg}")
            elif status == "refused":
                details["refused"].append(f"{name} [{pname}]: {msg}")
    print(counts)
    for k in ("internal", "mismatch"):
        print("=====", k, len(details[k]))
        for d in details[k]:
            print(d)
    rc = collections.Counter(d.split(": ", 1)[1][:90] for d in details["refused"])
    print("===== refusals", len(details["refused"]))
    for r, c in rc.most_common(40):
        print(c, r)


if __name__ == "__main__":
    main()
