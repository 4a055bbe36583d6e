"""Sweep: a Python number literal that a narrow NumPy operand cannot hold (NEP 50 weak
scalars) in ``max``/``min``/``abs(a - b)``/a conditional expression, over a grid of literal x
dtype x operand values (inf, nan, +-0 included): ``vmap`` against the loop over NumPy
scalars, ``vectorize`` against ``numpy.vectorize``.

    PYTHONPATH=$PWD nice python3 benchmarks/sweep_wrong33_literals.py [-v] [--jax]

(``--jax``: ``vmap(f, backend="jax")`` only, NumPy in and out.)
"""

import sys
import warnings
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from differential import assert_like_numpy_vectorize, numpy_vectorize_outcome  # noqa: E402
from fuzz import nep50_programs  # noqa: E402
from fuzz.harness import ModuleWriter, Program  # noqa: E402

from vectorize import VectorizeError, vectorize  # noqa: E402

LITERALS = ["1e300", "-1e300", "1e-300", "-1e-300", "70000.0", "1e20", "0.0", "-0.0",
            "2 ** 40", "300", "-200", "100", "float('inf')", "float('nan')"]
DTYPES = ["float16", "float32", "float64", "int8", "uint8", "int16", "int64"]
SHAPES = ["max({c}, x)", "max(x, {c})", "min({c}, x)", "min(x, {c})", "abs(x - {c})",
          "abs({c} - x)", "x if x > {c} else {c}", "{c} if x > {c} else x",
          "x if x < {c} else {c}", "max({c}, x) + y", "min(x, {c}) * 2", "x > {c}",
          "{c} <= x", "x == {c}", "(x != {c}) * 1.5", "max({c}, x, y)", "min(x, {c}, y)",
          "max(x, y, {c})"]


def values(dtype):
    d = np.dtype(dtype)
    if d.kind == "f":
        big = float(np.finfo(d).max)
        raw = [np.inf, -np.inf, np.nan, 0.0, -0.0, 1.0, -2.5, 100.0, big, -big, 6e4]
    else:
        info = np.iinfo(d)
        raw = [0, 1, -1, 100, 127, info.max, info.min, 5]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = np.array(raw, dtype=object if d.kind in "iu" else float)
        if d.kind in "iu":
            out = np.array([max(info.min, min(info.max, v)) for v in raw], dtype=d)
        return out.astype(d)


def main(verbose=False, backend=None):
    writer = ModuleWriter()
    counts = Counter()
    for shape in SHAPES:
        for c in LITERALS:
            body = shape.format(c=c)
            f = writer.load(Program(f"def f(x, y):\n    return {body}\n", ("x", "y"), 1))
            for dtype in DTYPES:
                x = values(dtype)
                y = np.linspace(-3.0, 3.0, len(x)).astype(dtype)
                kind, detail = nep50_programs.check(f, x, y, backend=backend)
                counts["vmap " + kind] += 1
                if kind not in ("ok", "rejected") or verbose and kind == "rejected":
                    print(f"vmap {kind}: {body} [{dtype}] {detail}")
                if backend is not None:
                    continue
                try:
                    ref, raised = numpy_vectorize_outcome(f, x, y)
                    with warnings.catch_warnings(), np.errstate(all="ignore"):
                        warnings.simplefilter("ignore")
                        try:
                            got = vectorize(f, fallback="error")(x, y)
                        except VectorizeError:
                            raise
                        except Exception as exc:  # noqa: BLE001
                            if raised is None or type(exc) is not type(raised):
                                raise
                            got = None
                    if raised is None:
                        assert_like_numpy_vectorize(got, ref)
                    elif got is not None:
                        raise AssertionError(f"numpy.vectorize raised {raised!r}")
                    counts["vectorize ok"] += 1
                except VectorizeError as exc:
                    counts["vectorize rejected"] += 1
                    if verbose:
                        print(f"vectorize rejected: {body} [{dtype}] {str(exc).splitlines()[0]}")
                except AssertionError as exc:
                    counts["vectorize mismatch"] += 1
                    print(f"vectorize mismatch: {body} [{dtype}] {str(exc)[:300]}")
                except Exception as exc:  # noqa: BLE001
                    counts["vectorize internal"] += 1
                    print(f"vectorize internal: {body} [{dtype}] {type(exc).__name__}: {exc}")
    print(dict(counts))


if __name__ == "__main__":
    main("-v" in sys.argv, "jax" if "--jax" in sys.argv else None)
