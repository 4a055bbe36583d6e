"""NumPy's own elementwise functions: every ufunc, and the elementwise non-ufuncs."""

from __future__ import annotations

import numpy as np

from ...rules.families import elementwise
from ...rules.operators import INT_KEEPING_UFUNCS, narrow_weak_operands
from ...rules.registry import Registry, Site

# Ufuncs that cannot warn on any input; the others may (division, logs, roots, overflow).
_QUIET = {"negative", "positive", "absolute", "fabs", "sign", "equal", "not_equal", "less",
          "less_equal", "greater", "greater_equal", "logical_and", "logical_or", "logical_xor",
          "logical_not", "isnan", "isinf", "isfinite", "signbit", "copysign", "maximum",
          "minimum", "fmax", "fmin", "bitwise_and", "bitwise_or", "bitwise_xor", "invert",
          "tanh", "arctan", "arctan2", "floor", "ceil", "trunc", "rint", "conjugate",
          "deg2rad", "radians", "nextafter"}

ELEMENTWISE_FUNCTIONS = ["where", "clip", "round", "around", "sinc", "nan_to_num", "real",
                         "imag", "angle", "iscomplex", "isreal", "isclose", "fix", "i0"]


# np.emath (numpy.lib.scimath): complex results where the real function is undefined
EMATH = ["sqrt", "log", "log2", "log10", "logn", "power", "arccos", "arcsin", "arctanh"]


def ufuncs() -> list[np.ufunc]:
    """NumPy's elementwise ufuncs, in the order of their names. Read from the module's
    namespace, not with ``getattr`` over ``dir(np)``: that imports the submodules NumPy loads
    lazily (``numpy.f2py``, ``numpy.testing``, ``numpy.ma``...; about 80 ms), none of which
    holds a ufunc."""
    seen, out = set(), []
    for _, obj in sorted(vars(np).items()):
        # gufuncs (matmul, vecdot...) contract core dimensions: not elementwise
        if isinstance(obj, np.ufunc) and obj.signature is None and id(obj) not in seen:
            seen.add(id(obj))
            out.append(obj)
    return out


def _weak_operands(site: Site) -> None:
    """`vmap`: a Python number per example meeting a narrow NumPy value in a two-input ufunc
    takes its type, as NumPy makes it per example (NEP 50): `np.maximum(np.float32(x),
    math.sqrt(y))` is a float32, `np.add(np.int8(x), int(y))` an int8."""
    if isinstance(site.func, np.ufunc) and site.func.nin == 2 and site.weak:
        narrow_weak_operands(site, ints=site.func.__name__ in INT_KEEPING_UFUNCS)


def _weak_where_operands(site: Site) -> None:
    """`vmap`: ``np.where(c, int(x), y)`` of an int16 ``y`` is an int16 per example (NEP 50:
    the Python int takes the NumPy int's type, wrapping as ``np.where`` casts it), where the
    batch's int64 array of the Python ints would make it int64: converted first."""
    if site.func is np.where and len(site.args) == 3 and site.weak:
        narrow_weak_operands(site, ints=True)


def register(reg: Registry) -> None:
    all_ufuncs = ufuncs()
    elementwise(reg, [u for u in all_ufuncs if u.__name__ in _QUIET], family="numpy",
                name="numpy.ufunc",
                explanation="A NumPy ufunc already works lane by lane: the call stays as "
                            "written; operands of lower per-example rank get new axes after "
                            "the batch axis.",
                before="y = np.tanh(x) + np.maximum(x, 0)",
                after="y = np.tanh(x) + np.maximum(x, 0)", prepare=_weak_operands)
    elementwise(reg, [u for u in all_ufuncs if u.__name__ not in _QUIET], family="numpy",
                name="numpy.ufunc_may_warn",
                explanation="A ufunc that can warn on some inputs (log, sqrt, divide, power...) "
                            "stays as written; under a batched `if` its lanes that are thrown "
                            "away run with warnings silenced.",
                before="y = np.log(x)", after="y = np.log(x)", may_warn=True,
                prepare=_weak_operands)
    elementwise(reg, [getattr(np, n) for n in ELEMENTWISE_FUNCTIONS if hasattr(np, n)],
                family="numpy", name="numpy.elementwise",
                explanation="Elementwise NumPy functions (`np.where`, `np.clip`, `np.round`...) "
                            "stay as written, operands aligned by per-example rank.",
                before="y = np.clip(x, lo, 1.0)", after="y = np.clip(x, lo, 1.0)",
                may_warn=True, prepare=_weak_where_operands)
    elementwise(reg, [getattr(np.emath, n) for n in EMATH], family="numpy",
                name="numpy.emath",
                explanation="`np.emath` functions (`sqrt`, `log`, `log2`, `log10`, `logn`, "
                            "`power`, `arccos`, `arcsin`, `arctanh`) work lane by lane and stay "
                            "as written: where some example's value is outside the real domain "
                            "the whole batch is complex, as the examples stacked together are.",
                before="r = np.emath.sqrt(x)", after="r = np.emath.sqrt(x)", may_warn=True)
