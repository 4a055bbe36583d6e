"""A minimal example of every batching rule, for ``docs/rules.md``: a scalar function, the
arguments of one batch, and how it is batched (``vectorize`` for examples that are numbers,
``vmap`` with ``in_axes`` for examples that are arrays).

``docs/rules.md`` shows each example and the function the engine generates for it today;
``tests/test_rules_doc.py`` runs every example batched and as a loop over its examples (they
must agree) and checks that the rule it illustrates is among the rules that fired.

Arguments are written with these names (six examples per batch):

=====  ====================================================================
``X``  floats of both signs           ``Y``  other floats of both signs
``P``  positive floats                ``U``  floats in (-1, 1)
``K``  integers of both signs         ``N``  positive integers
``V``  vectors of 3 floats            ``W``  other vectors of 3 floats
``M``  3 x 3 matrices                 ``C``  complex numbers
``w``  one vector of 3 (unbatched)    ``m``  one 3 x 3 matrix (unbatched)
``X0`` one number (unbatched)
=====  ====================================================================

Examples of the rules only one backend has live in its folder (`Backend.rule_examples`)
and run on its arrays of these (the torch backend's: tensors of float64, int64).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import backends


@dataclass(frozen=True)
class Example:
    source: str               # one function, the first line its `def`
    args: str                 # the arguments of one batch, a Python expression over the names
    in_axes: tuple | None = None    # None: `vectorize`; a tuple: `vmap(f, in_axes)`
    imports: str = ""         # what the function needs besides numpy as np (e.g. "math",
    #                           "scipy.special", "torch.nn.functional as F"; "vmap" vectorize's)
    fallback: str = "error"   # "loop" where the rule is the per-example fallback
    backend: str = "numpy"    # "torch": the arguments are tensors (float64, int64)


def batch_values() -> dict:
    """The names examples' arguments are written with (fixed values: the page is stable)."""
    rng = np.random.default_rng(2024)
    return {
        "np": np,
        "X": np.array([-2.0, -0.5, 0.0, 0.75, 1.5, 3.0]),
        "Y": np.array([1.0, -1.5, 2.0, 0.0, -0.25, 4.0]),
        "P": np.array([0.25, 0.5, 1.0, 2.0, 4.0, 9.0]),
        "U": np.array([-0.9, -0.5, 0.0, 0.25, 0.5, 0.9]),
        "K": np.array([-7, -2, 0, 3, 8, 15]),
        "N": np.array([1, 2, 3, 6, 7, 12]),
        "V": np.round(rng.normal(size=(6, 3)), 2),
        "W": np.round(rng.normal(size=(6, 3)), 2),
        "M": np.round(rng.normal(size=(6, 3, 3)), 2),
        "C": np.array([1 + 2j, -1j, 0.5, 3 - 1j, -2 + 0.5j, 1j]),
        "w": np.array([0.5, -1.0, 2.0]),
        "m": np.array([[1.0, 0.5, 0.0], [0.0, 2.0, -1.0], [0.25, 0.0, 1.0]]),
        "X0": np.array(1.5),
    }


def _f(body: str) -> str:
    return body.strip("\n") + "\n"


VMAP1 = (0,)

EXAMPLES: dict[str, Example] = {
    # --- operators ----------------------------------------------------------------------
    "operator.arithmetic": Example(_f('''
def f(t, b, n):
    return t * b - n // 3
'''), "X, Y, K"),
    "operator.python_number_division": Example(_f('''
def f(x, a, b):
    if x > 0:
        x = x + a / b
    return x
'''), "X, 1.0, 4.0"),
    "operator.unary": Example(_f('''
def f(x):
    return -x
'''), "X"),
    "operator.compare": Example(_f('''
def f(x):
    return 0 < x <= 1
'''), "X"),
    "operator.and": Example(_f('''
def f(x, y):
    return x > 0 and y > 0
'''), "X, Y"),
    "operator.or": Example(_f('''
def f(x, default):
    return x or default
'''), "X, 7.0"),
    "operator.not": Example(_f('''
def f(x):
    return not (x > 0)
'''), "X"),
    "operator.conditional_expression": Example(_f('''
def f(t, b):
    return t * b if t > 1 else -t
'''), "X, 2.0"),
    # --- builtins -----------------------------------------------------------------------
    "builtin.abs": Example(_f('''
def f(x, y):
    return abs(x - y)
'''), "X, Y"),
    "builtin.min": Example(_f('''
def f(x, y):
    return min(x, 0.0) + min(x, y)
'''), "X, Y"),
    "builtin.max": Example(_f('''
def f(x, y):
    return max(x, 0.0) + max(x, y)
'''), "X, Y"),
    "builtin.round": Example(_f('''
def f(x):
    return round(x)
'''), "X"),
    "builtin.int": Example(_f('''
def f(x):
    return int(x)
'''), "X"),
    "builtin.float": Example(_f('''
def f(k):
    return float(k) / 2
'''), "K"),
    "array.item": Example(_f('''
def f(k):
    return k.item() * 0.5
'''), "K", VMAP1),
    "builtin.bool": Example(_f('''
def f(x):
    return bool(x)
'''), "X"),
    "float.is_integer": Example(_f('''
def f(x):
    return (x * 2.0).is_integer()
'''), "X"),
    "builtin.pow": Example(_f('''
def f(x):
    return pow(x, 3)
'''), "X"),
    "builtin.divmod": Example(_f('''
def f(n):
    q, r = divmod(n, 7)
    return q + r
'''), "K"),
    "builtin.len": Example(_f('''
def f(v):
    return v.sum() / len(v)
'''), "V", VMAP1),
    "builtin.sum": Example(_f('''
def f(v):
    return sum(v)
'''), "V", VMAP1),
    "builtin.dict_get": Example(_f('''
def f(n):
    return POINTS.get(n, 0.0)
'''), "N", imports="POINTS"),
    "builtin.complex": Example(_f('''
def f(x):
    return complex(x)
'''), "X"),
    # --- math ---------------------------------------------------------------------------
    **{f"math.{name}": Example(_f(f'''
def f(x):
    return math.{name}(x)
'''), arg, imports="math") for name, arg in [
        ("sqrt", "P"), ("exp", "X"), ("expm1", "X"), ("log2", "P"), ("log10", "P"),
        ("log1p", "P"), ("sin", "X"), ("cos", "X"), ("tan", "X"), ("asin", "U"),
        ("acos", "U"), ("atan", "X"), ("sinh", "X"), ("cosh", "X"), ("tanh", "X"),
        ("asinh", "X"), ("acosh", "P + 1"), ("atanh", "U"), ("fabs", "X"), ("degrees", "X"),
        ("radians", "X"), ("exp2", "X"), ("cbrt", "X"), ("isnan", "X"), ("isinf", "X"),
        ("isfinite", "X"), ("floor", "X"), ("ceil", "X"), ("trunc", "X"), ("gamma", "P"),
        ("lgamma", "P"), ("erf", "X"), ("erfc", "X")]},
    **{f"math.{name}": Example(_f(f'''
def f(x, y):
    return math.{name}(x, y)
'''), args, imports="math") for name, args in [
        ("atan2", "X, Y"), ("hypot", "X, Y"), ("copysign", "X, Y"), ("fmod", "X, P"),
        ("nextafter", "X, Y"), ("gcd", "K, N"), ("lcm", "K, N"),
        ("pow", "P, Y"), ("isclose", "X, Y"), ("remainder", "X, P")]},
    # (`math.ldexp` takes a Python int only: a NumPy int, as numpy.vectorize's first call
    # hands it, raises TypeError; `int(n)` is what such code writes)
    "math.ldexp": Example(_f('''
def f(x, n):
    return math.ldexp(x, int(n))
'''), "X, N", imports="math"),
    **{f"math.{name}": Example(_f(f'''
def f(n, k):
    return math.{name}(n, k)
'''), "N, N", imports="math") for name in ("comb", "perm")},
    **{f"math.{name}": Example(_f(f'''
def f(n):
    return math.{name}(n)
'''), "N", imports="math") for name in ("factorial", "isqrt")},
    "math.fsum": Example(_f('''
def f(x, y):
    return math.fsum([x, 1e16, y, -1e16])
'''), "X, Y", imports="math"),
    "int.bit_length": Example(_f('''
def f(n):
    return int(n).bit_length()
'''), "K"),
    "int.bit_count": Example(_f('''
def f(n):
    return n.bit_count()
'''), "K"),
    "math.dist": Example(_f('''
def f(x, y):
    return math.dist((x, y), (1.0, 0.5))
'''), "X, Y", imports="math"),
    "math.prod": Example(_f('''
def f(n, x):
    return math.prod([n, n + 1, x])
'''), "N, X", imports="math"),
    "math.frexp": Example(_f('''
def f(x):
    mantissa, exponent = math.frexp(x)
    return mantissa * exponent
'''), "X", imports="math"),
    "math.modf": Example(_f('''
def f(x):
    fraction, whole = math.modf(x)
    return fraction - whole
'''), "X", imports="math"),
    "math.log": Example(_f('''
def f(x):
    return math.log(x, 2)
'''), "P", imports="math"),
    # --- numpy --------------------------------------------------------------------------
    "numpy.ufunc": Example(_f('''
def f(x):
    return np.tanh(x) + np.maximum(x, 0)
'''), "X"),
    "numpy.ufunc_may_warn": Example(_f('''
def f(x):
    if x > 0:
        return np.log(x)
    return 0.0
'''), "X"),
    "numpy.elementwise": Example(_f('''
def f(x, lo):
    return np.clip(x, lo, 1.0)
'''), "X, Y"),
    # --- control flow -------------------------------------------------------------------
    "loop.any_lane": Example(_f('''
def f(x):
    steps = 0
    while x > 1.0:
        x = x / 2
        steps += 1
    return steps
'''), "P"),
    "vmap.lane_kinds": Example(_f('''
def f(x):
    r = 0
    if x > 0.5:
        r = x
    return r
'''), "X", in_axes=(0,)),
    "sum.item": Example(_f('''
def f(n):
    if n > 0:
        steps = [1, 2, 3]
    else:
        steps = [4, 5]
    return sum(s * n for s in steps)
'''), "N"),
    "raise.any_lane": Example(_f('''
def f(x):
    if x < -10:
        raise ValueError("too small")
    return 1.0 / (x + 10)
'''), "X"),
    "raise.first_lane": Example(_f('''
def f(x):
    if x < -10:
        raise ValueError(f"too small: {x}")
    return x
'''), "X"),
    "raise.lane": Example(_f('''
def f(x):
    if x < -10:
        raise ValueError(f"too small: {x}")
    return x
'''), "X"),
    "warn.lanes": Example(_f('''
def f(x):
    if x < -10:
        warnings.warn(f"clipped: {x}")
        x = -10.0
    return x
'''), "X", imports="warnings"),
    # --- arrays -------------------------------------------------------------------------
    "array.index": Example(_f('''
def f(v, k):
    return v[0] + v[-1] + v[k]
'''), "V, N % 3", (0, 0)),
    "array.shape": Example(_f('''
def f(m):
    rows, cols = m.shape
    return m.sum() / (rows * cols)
'''), "M", VMAP1),
    "array.ndim": Example(_f('''
def f(v):
    return v.ndim + v[0]
'''), "V", VMAP1),
    "array.size": Example(_f('''
def f(m):
    return m.sum() / m.size
'''), "M", VMAP1),
    "array.np_ndim": Example(_f('''
def f(v):
    return np.ndim(v) + v[0]
'''), "V", VMAP1),
    "array.np_shape": Example(_f('''
def f(m):
    rows, cols = np.shape(m)
    return m[rows - 1, cols - 1]
'''), "M", VMAP1),
    "array.np_size": Example(_f('''
def f(m):
    return m.sum() / np.size(m)
'''), "M", VMAP1),
    "array.dtype": Example(_f('''
def f(v):
    return v.astype(v.dtype) * 2
'''), "V", VMAP1),
    "array.T": Example(_f('''
def f(m):
    return m.T[0]
'''), "M", VMAP1),
    "array.real": Example(_f('''
def f(z):
    return z.real
'''), "C", VMAP1),
    "array.imag": Example(_f('''
def f(z):
    return z.imag
'''), "C", VMAP1),
    "array.reduction": Example(_f('''
def f(m):
    return np.sum(m) + m.mean(axis=0)
'''), "M", VMAP1),
    "linalg.norm": Example(_f('''
def f(v):
    return np.linalg.norm(v)
'''), "V", VMAP1),
    "array.elementwise_method": Example(_f('''
def f(v, lo):
    return v.clip(lo, 1.0)
'''), "V, X", (0, 0)),
    "array.like": Example(_f('''
def f(v):
    z = np.zeros_like(v)
    return z + v
'''), "V", VMAP1),
    # --- linear algebra -----------------------------------------------------------------
    "linalg.dot": Example(_f('''
def f(v, w):
    return np.dot(v, w)
'''), "V, w", (0, None)),
    "linalg.dot_method": Example(_f('''
def f(v, w):
    return v.dot(w)
'''), "V, w", (0, None)),
    "linalg.matmul": Example(_f('''
def f(x, m):
    return m @ x
'''), "V, m", (0, None)),
    "linalg.inner": Example(_f('''
def f(a, b):
    return np.inner(a, b)
'''), "V, W", (0, 0)),
    "linalg.outer": Example(_f('''
def f(a, b):
    return np.outer(a, b)
'''), "V, W", (0, 0)),
    "linalg.vdot": Example(_f('''
def f(a, b):
    return np.vdot(a, b)
'''), "V, W", (0, 0)),
    "linalg.tensordot": Example(_f('''
def f(a, m):
    return np.tensordot(a, m, axes=1)
'''), "M, m", (0, None)),
    "linalg.trace": Example(_f('''
def f(m):
    return np.trace(m)
'''), "M", VMAP1),
    "linalg.einsum": Example(_f('''
def f(v, m):
    return np.einsum("i,ij->j", v, m)
'''), "V, m", (0, None)),
    # --- shapes -------------------------------------------------------------------------
    "shape.reshape": Example(_f('''
def f(m):
    return np.reshape(m, (9,))
'''), "M", VMAP1),
    "shape.reshape_method": Example(_f('''
def f(m):
    return m.reshape(9)
'''), "M", VMAP1),
    "shape.flatten": Example(_f('''
def f(m):
    return np.ravel(m)
'''), "M", VMAP1),
    "shape.flatten_method": Example(_f('''
def f(m):
    return m.ravel()
'''), "M", VMAP1),
    "shape.transpose": Example(_f('''
def f(m):
    return np.transpose(m)
'''), "M", VMAP1),
    "shape.transpose_method": Example(_f('''
def f(m):
    return m.transpose()
'''), "M", VMAP1),
    "shape.swapaxes": Example(_f('''
def f(m):
    return np.swapaxes(m, 0, 1)
'''), "M", VMAP1),
    "shape.swapaxes_method": Example(_f('''
def f(m):
    return m.swapaxes(0, 1)
'''), "M", VMAP1),
    "shape.moveaxis": Example(_f('''
def f(m):
    return np.moveaxis(m, 0, -1)
'''), "M", VMAP1),
    "shape.expand_dims": Example(_f('''
def f(v):
    return np.expand_dims(v, 0)
'''), "V", VMAP1),
    "shape.squeeze": Example(_f('''
def f(v):
    c = v[None]
    return np.squeeze(c, axis=0)
'''), "V", VMAP1),
    "shape.broadcast_arrays": Example(_f('''
def f(x):
    a, b = np.broadcast_arrays(x, 1.0)
    return a + b
'''), "X"),
    "shape.squeeze_method": Example(_f('''
def f(v):
    c = v[None]
    return c.squeeze(axis=0)
'''), "V", VMAP1),
    "shape.stack": Example(_f('''
def f(x, y):
    return np.stack([x, y])
'''), "X, Y"),
    "shape.array": Example(_f('''
def f(x, y):
    p = np.array([x, y, 1.0])
    return p.sum()
'''), "X, Y"),
    "shape.full": Example(_f('''
def f(x):
    r = np.full(3, x)
    return r.sum()
'''), "X"),
    "shape.hstack": Example(_f('''
def f(v, w):
    return np.hstack([v, w])
'''), "V, W", (0, 0)),
    "shape.vstack": Example(_f('''
def f(v, w):
    return np.vstack([v, w])
'''), "V, W", (0, 0)),
    "shape.concatenate": Example(_f('''
def f(v, w):
    return np.concatenate([v, w])
'''), "V, w", (0, None)),
    # --- creation -----------------------------------------------------------------------
    "creation.batched_shape": Example(_f('''
def f(x):
    y = np.zeros(3)
    y[0] = x
    return y
'''), "X"),
    "creation.repeated": Example(_f('''
def f(x, w):
    y = w.copy()
    y[0] = x
    return y
'''), "X, w", (0, None)),
    "list.as_array": Example(_f('''
def f(x, y):
    vals = [x, y, 0.0]
    k = 1 if x > y else 2
    vals[k] = x * 2
    return vals[0] + vals[1] - vals[2]
'''), "X, Y"),
    "helper.lanes_copy": Example(_f('''
def f(x, k):
    out = np.zeros(3)
    out[0] = x
    if x > 0:
        bump(out, k)
    return out


def bump(w, i):
    w[i] += 1.0
'''), "X, N % 3"),
    "list.as_array_repeated": Example(_f('''
def f(x, y):
    vals = [0.0, 0.0, 0.0]
    for i in range(3):
        if x > i:
            vals[i] += y
    return sum(vals)
'''), "X, Y"),
    # --- numpy (more) -------------------------------------------------------------------
    "numpy.emath": Example(_f('''
def f(x):
    return np.emath.sqrt(x)
'''), "X"),
    "array.ragged_range": Example(_f('''
def f(x, n):
    return np.sum(x ** np.arange(n))
'''), "P, N"),
    "array.masked_selection": Example(_f('''
def f(v):
    pos = v[v > 0]
    return np.sum(pos) + len(pos)
'''), "V", VMAP1),
    "array.slice_selection": Example(_f('''
def f(v, k):
    return v[:k].sum() + np.mean(v[k:])
'''), "V, N", (0, 0)),
    # --- linear algebra (more) ----------------------------------------------------------
    "linalg.stacked": Example(_f('''
def f(m):
    return np.linalg.det(m)
'''), "M", VMAP1),
    "linalg.solve": Example(_f('''
def f(m, v):
    return np.linalg.solve(m, v)
'''), "M, V", (0, 0)),
    "linalg.roots": Example(_f('''
def f(p):
    return np.roots(p)
'''), "V", VMAP1),
    "linalg.last_axis": Example(_f('''
def f(v, w):
    return np.cross(v, w)
'''), "V, W", (0, 0)),
    # --- shapes (more) ------------------------------------------------------------------
    "shape.pad": Example(_f('''
def f(v):
    return np.pad(v, (1, 2), mode="edge")
'''), "V", VMAP1),
    "shape.list_operand": Example(_f('''
def f(x, y):
    return np.mean([x, y, 1.0])
'''), "X, Y"),
    # --- sorting ------------------------------------------------------------------------
    "sort.sort": Example(_f('''
def f(v):
    return np.sort(v)
'''), "V", VMAP1),
    "sort.argsort_method": Example(_f('''
def f(v):
    return v.argsort()
'''), "V", VMAP1),
    "sort.partition": Example(_f('''
def f(v):
    return np.partition(v, 1)[1]
'''), "V", VMAP1),
    "sort.flip": Example(_f('''
def f(v):
    return np.flip(v)
'''), "V", VMAP1),
    "sort.fliplr": Example(_f('''
def f(m):
    return np.fliplr(m)
'''), "M", VMAP1),
    "sort.flipud": Example(_f('''
def f(m):
    return np.flipud(m)
'''), "M", VMAP1),
    "sort.roll": Example(_f('''
def f(v, k):
    return np.roll(v, k)
'''), "V, K", (0, 0)),
    "sort.take_along_axis": Example(_f('''
def f(v, w):
    return np.take_along_axis(w, np.argsort(v), axis=0)
'''), "V, W", (0, 0)),
    # --- picking, repeating, differencing, shared tables ---------------------------------
    "pick.take": Example(_f('''
def f(v, k):
    return np.take(v, k % 3) + np.take(v, [2, 0]).sum()
'''), "V, K", (0, 0)),
    "pick.take_method": Example(_f('''
def f(m, k):
    return m.take(k % 9)
'''), "M, K", (0, 0)),
    "pick.diagonal": Example(_f('''
def f(m):
    return np.diagonal(m, 1)
'''), "M", VMAP1),
    "pick.diagonal_method": Example(_f('''
def f(m):
    return m.diagonal()
'''), "M", VMAP1),
    "pick.trace_method": Example(_f('''
def f(m):
    return m.trace(-1)
'''), "M", VMAP1),
    "pick.tile": Example(_f('''
def f(v):
    return np.tile(v, (2, 1))
'''), "V", VMAP1),
    "pick.repeat": Example(_f('''
def f(v):
    return np.repeat(v, [1, 0, 2])
'''), "V", VMAP1),
    "pick.repeat_method": Example(_f('''
def f(m):
    return m.repeat(2, axis=1)
'''), "M", VMAP1),
    "pick.diff": Example(_f('''
def f(v, x):
    return np.diff(v, prepend=x)
'''), "V, X", (0, 0)),
    "pick.interp": Example(_f('''
def f(x):
    return np.interp(x, np.array([-1.0, 0.0, 2.0]), np.array([0.0, 1.0, 4.0]))
'''), "X"),
    "calendar.weekday": Example(_f('''
def f(n):
    return calendar.weekday(1900 + 10 * n, n, 2 * n)
'''), "N", imports="calendar"),
    "pick.polyval": Example(_f('''
def f(a, b, x):
    return np.polyval(np.array([a, b, 1.0]), x) + np.polyval(np.array([0.5, -2.0]), x)
'''), "X, Y, P"),
    "pick.searchsorted": Example(_f('''
def f(x):
    return np.searchsorted(np.array([-1.0, 0.0, 2.0]), x, side="right")
'''), "X"),
    # --- scipy --------------------------------------------------------------------------
    "scipy.special_ufunc": Example(_f('''
def f(x):
    return scipy.special.expit(x) * scipy.special.erf(x)
'''), "X", imports="scipy.special"),
    "scipy.stats_method": Example(_f('''
def f(x, mu, s):
    return scipy.stats.norm.cdf(x, loc=mu, scale=s)
'''), "X, Y, P", imports="scipy.stats"),
    "scipy.stats_freeze": Example(_f('''
def f(x, mu, s):
    d = scipy.stats.norm(mu, s)
    return d.cdf(x)
'''), "X, Y, P", imports="scipy.stats"),
    "scipy.stats_frozen_method": Example(_f('''
def f(x, a):
    d = scipy.stats.gamma(a)
    return d.pdf(x)
'''), "P, N", imports="scipy.stats"),
    # --- vmap ---------------------------------------------------------------------------
    "vmap.nested": Example(_f('''
def total(v):
    return v.sum()


def f(m):
    return vmap(total)(m) * 2.0
'''), "M", VMAP1, imports="vmap"),
}

# the rules of the engine's passes (control flow, calls, writes into arrays)
ENGINE_EXAMPLES: dict[str, Example] = {
    "if.select": Example(_f('''
def f(t, b):
    tmp = t * b
    if tmp > 1:
        root = t * b
    else:
        root = -t
    return root
'''), "X, 2.0"),
    "if.compact": Example(_f('''
def f(x):
    if x > 0:  # vectorize: compact
        y = math.log(x) * x
    else:
        y = 0.0
    return y
'''), "X", imports="math"),
    "if.unbatched": Example(_f('''
def f(x, n):
    y = -x
    if n > 2:
        y = x
    return y
'''), "X, 3"),
    "return.single_exit": Example(_f('''
def f(x):
    if x < 0:
        return 0.0
    return x
'''), "X"),
    "loop.unbatched": Example(_f('''
def f(x):
    s = 0.0
    for k in range(3):
        s = s + x ** k
    return s
'''), "X"),
    "call.user_function": Example(_f('''
def clamp(x, lo):
    if x < lo:
        return lo
    return x


def f(x):
    return 2.0 * clamp(x, 0.0)
'''), "X"),
    "array.scatter": Example(_f('''
def f(x, k):
    y = np.zeros(3)
    y[0] = x
    y[k] = 1.0
    return y
'''), "X, N % 3"),
    "array.masked_write": Example(_f('''
def f(x, k):
    y = np.zeros(3)
    if x > 0:
        y[k] = x
    return y
'''), "X, N % 3"),
    "string.per_example": Example(_f('''
def f(x, n):
    if x > 0:
        return f"{x:.2f} in {n}"
    return "none, %d" % n
'''), "X, N"),
    "call.per_example_fallback": Example(_f('''
def f(n):
    return math.factorial(n) + 1
'''), "N", imports="math", fallback="loop"),
}

# rules whose results are random: the example runs, but is not compared with a loop
RANDOM = {"random.per_example"}
EXAMPLES["random.per_example"] = Example(_f('''
def f(x):
    noise = np.random.normal(0.0, 1.0)
    return x + noise
'''), "X")
# rules that refuse: the example is the refusal
REFUSED = {"random.python_refused"}
EXAMPLES["random.python_refused"] = Example(_f('''
def f(x):
    return x + random.gauss(0.0, 1.0)
'''), "X", imports="random")
# `vmap(h)` of a function of the module is never rewritten (`vmap.nested` batches the call of
# what it makes): the rule shows only as the refusal of a per-example function
REFUSED.add("refused.jax_function")     # (the JAX backend's rules: its folder's examples)
EXAMPLES["refused.jax_function"] = Example(_f('''
def f(v):
    return lax.rev(v, (0,))
'''), "V", in_axes=(0,), imports="jax.lax as lax")

REFUSED.add("vmap.function")
EXAMPLES["vmap.function"] = Example(_f('''
def total(v):
    return v.sum()


def scaled(v):
    return v.sum() * 2.0


def f(m, x):
    h = total if x > 0 else scaled
    return vmap(h)(m)
'''), "M, X", (0, 0), imports="vmap")


# the rules only one backend has: their examples, from the backend's own folder
# (`Backend.rule_examples`), run on its arrays
BACKEND_EXAMPLES: dict[str, Example] = {}
for _name in backends.KNOWN:
    _own, _random, _refused = backends.get(_name).rule_examples()
    BACKEND_EXAMPLES.update({name: Example(**fields) for name, fields in _own.items()})
    RANDOM |= _random
    REFUSED |= _refused

ALL: dict[str, Example] = {**EXAMPLES, **ENGINE_EXAMPLES, **BACKEND_EXAMPLES}


# names of `imports` that are not modules: name -> (module, attribute)
_FROM = {"vmap": ("vectorize", "vmap"),
         "POINTS": ("vectorize.rules.examples", "POINTS")}
POINTS = {2: 0.5, 3: 0.25, 6: 0.125}     # a shared dict (`builtin.dict_get`'s example)


def namespace(example: Example) -> dict:
    """The globals the example function is defined in."""
    import importlib
    names = {"np": np}
    for module in filter(None, (m.strip() for m in example.imports.split(","))):
        if module in _FROM:      # `from vectorize import vmap`
            owner, attr = _FROM[module]
            names[module] = getattr(importlib.import_module(owner), attr)
        elif " as " in module:   # `import torch.nn.functional as F`
            module, _, name = module.partition(" as ")
            names[name.strip()] = importlib.import_module(module.strip())
        else:                    # `import scipy.special` binds `scipy`
            importlib.import_module(module)
            top = module.partition(".")[0]
            names[top] = importlib.import_module(top)
    return names


def function(example: Example, filename: str):
    """The example's function, compiled from its source as if ``filename`` held it (so that
    its source can be read back: it is registered with `linecache`)."""
    import linecache
    linecache.cache[filename] = (len(example.source), None,
                                 example.source.splitlines(True), filename)
    scope = namespace(example)
    exec(compile(example.source, filename, "exec"), scope)
    return scope["f"]


def batched(example: Example, func, explain: bool = False):
    """``func`` made batched as the example says (no disk cache)."""
    from ..api import vectorize
    from ..vmap import vmap
    if example.in_axes is None:
        wrapped = vectorize(func, fallback=example.fallback, cache_dir=False, chunk_size=None)
    else:
        wrapped = vmap(func, example.in_axes, fallback=example.fallback, cache_dir=False,
                       chunk_size=None)
    wrapped._explain = explain
    return wrapped


def specialization(example: Example, func, args):
    """The `Generated` code for ``args`` (with the rules that fired, `explanations`)."""
    wrapped = batched(example, func, explain=True)
    entry = wrapped._entry(args, {}) if example.in_axes is None else wrapped._plan(args)[0]
    return entry.spec


def arguments(example: Example) -> tuple:
    values = batch_values()
    args = eval(f"({example.args},)", {"__builtins__": {}}, values)  # noqa: S307 -- our table
    return backends.get(example.backend).rule_example_arguments(args, example.args)
