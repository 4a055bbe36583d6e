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

Examples of the rules only the torch backend has run on tensors of these (float64, int64).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Example:
    source: str               # one function, the first line its `def`
    args: str                 # the arguments of one batch, a Python expression over the names
    in_axes: tuple | None = None    # None: `vectorize`; a tuple: `vmap(f, in_axes)`
    imports: str = ""         # what the function needs besides numpy as np (e.g. "math",
    #                           "scipy.special"; "F" is torch.nn.functional, "vmap" vectorize's)
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
    "builtin.bool": Example(_f('''
def f(x):
    return bool(x)
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
        ("nextafter", "X, Y"), ("ldexp", "X, N"), ("gcd", "K, N"), ("lcm", "K, N"),
        ("pow", "P, Y"), ("isclose", "X, Y"), ("remainder", "X, P")]},
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
    # --- numpy (more) -------------------------------------------------------------------
    "numpy.emath": Example(_f('''
def f(x):
    return np.emath.sqrt(x)
'''), "X"),
    "array.ragged_range": Example(_f('''
def f(x, n):
    return np.sum(x ** np.arange(n))
'''), "P, N"),
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


def _torch(body: str, args: str, in_axes=VMAP1, imports: str = "torch") -> Example:
    return Example(_f(body), args, in_axes, imports=imports, backend="torch")


# the rules only the torch backend has: their examples run on tensors
TORCH_EXAMPLES: dict[str, Example] = {
    "array.device": _torch('''
def f(x):
    return x * 2 if x.device.type == "cpu" else x
''', "X"),
    "torch.activation": _torch('''
def f(x):
    return F.gelu(x)
''', "X", imports="torch, F"),
    "torch.clamp": _torch('''
def f(x, lo):
    return x.clamp(min=lo)
''', "X, Y", (0, 0)),
    "torch.conversion": _torch('''
def f(x):
    return x.long()
''', "X"),
    "torch.dim": _torch('''
def f(v):
    return v.dim() + v[0]
''', "V"),
    "torch.elementwise": _torch('''
def f(x):
    return torch.sin(x) + x.relu()
''', "X"),
    "torch.flatten": _torch('''
def f(m):
    return m.flatten()
''', "M"),
    "torch.identity_method": _torch('''
def f(x):
    return x.clone() * 2
''', "X"),
    "torch.item": _torch('''
def f(x):
    return x.item() + 1.0
''', "X"),
    "torch.like": _torch('''
def f(v):
    return torch.zeros_like(v) + v
''', "V"),
    "torch.max": _torch('''
def f(v):
    return v.max()
''', "V"),
    "torch.min": _torch('''
def f(v):
    return v.min()
''', "V"),
    "torch.numel": _torch('''
def f(m):
    return m.sum() / m.numel()
''', "M"),
    "torch.permute": _torch('''
def f(m):
    return m.permute(1, 0)
''', "M"),
    "torch.reduction": _torch('''
def f(m):
    return torch.sum(m) + m.mean(dim=0)
''', "M"),
    "torch.reshape": _torch('''
def f(m):
    return m.reshape(9)
''', "M"),
    "torch.size": _torch('''
def f(m):
    return m.sum() / m.size(0)
''', "M"),
    "torch.squeeze": _torch('''
def f(v):
    c = v.unsqueeze(1)
    return c.squeeze(1)
''', "V"),
    "torch.transpose": _torch('''
def f(m):
    return m.transpose(0, 1)
''', "M"),
    "torch.unsqueeze": _torch('''
def f(v):
    return v.unsqueeze(1)
''', "V"),
    "torch.where": _torch('''
def f(t, b):
    return torch.where(t > 1.0, t * b, -t)
''', "X, Y", (0, 0)),
    "torch.autograd.grad": _torch('''
def f(v, x):
    y = x ** 3
    return torch.autograd.grad(y, x, v)[0]
''', "X, X0", (0, None)),
    "torch.dims": _torch('''
def f(m):
    return torch.argmax(m)
''', "M"),
    "torch.shaped_like": _torch('''
def f(m, v):
    return v.expand_as(m) * m
''', "M, V", (0, 0)),
    "torch.expand": _torch('''
def f(v):
    return v.expand(2, 3)
''', "V"),
    "torch.repeat": _torch('''
def f(m):
    return m.repeat(2, 1)
''', "M"),
    "torch.t": _torch('''
def f(m):
    return m.t()
''', "M"),
    "torch.trace": _torch('''
def f(m):
    return torch.trace(m)
''', "M"),
    "torch.join": _torch('''
def f(v, w):
    return torch.cat([v, w])
''', "V, w", (0, None)),
    "torch.last_dims_attribute": _torch('''
def f(m):
    return m.mT
''', "M"),
    "torch.new_tensor": _torch('''
def f(v):
    return v + v.new_ones(3)
''', "V"),
    "torch.dtype_query": _torch('''
def f(x):
    return x * x.is_floating_point()
''', "X"),
    "torch.nn.samples": _torch('''
def f(m):
    return F.avg_pool1d(m, 2)
''', "M", imports="torch, F"),
    "torch.nn.trailing": _torch('''
def f(v):
    return F.layer_norm(v, (3,))
''', "V", imports="torch, F"),
    "torch.nn.one_hot": _torch('''
def f(k):
    return F.one_hot(k, 4)
''', "N % 4", imports="torch, F"),
    "torch.nn.loss": _torch('''
def f(m, v):
    return F.cross_entropy(m, (v > 0).long())
''', "M, V", (0, 0), imports="torch, F"),
    "torch.trailing_dims": _torch('''
def f(m):
    return torch.linalg.det(m)
''', "M"),
    "torch.result_type": _torch('''
def f(k, x):
    return k.to(torch.result_type(k, x)) / 2
''', "K, X", (0, 0)),
    "torch.convert_like": _torch('''
def f(k, x):
    return k.to(x) / 2
''', "K, X", (0, 0)),
    "torch.in_place": _torch('''
def f(x, b):
    y = x * 2
    y.add_(b)
    return y
''', "X, Y", (0, 0)),
    "torch.nn.module_call": _torch('''
def f(v, layer=torch.nn.Softmax(dim=-1)):
    return layer(v)
''', "V"),
    "torch.func.functional_call": _torch('''
def f(v, params, layer=torch.nn.Softmax(dim=-1)):
    return torch.func.functional_call(layer, params, (v,))
''', "V, {}", (0, None)),
}
TORCH_EXAMPLES["torch.func.grad"] = _torch('''
def dot_loss(v, w):
    return torch.dot(v, w) ** 2


def f(v, w):
    return torch.func.grad(dot_loss)(v, w)
''', "V, w", (0, None))
REFUSED.add("torch.func.transform")
TORCH_EXAMPLES["torch.func.transform"] = _torch('''
def f(v, x):
    loss = torch.sum if x > 0 else torch.prod
    return torch.func.grad(loss)(v)
''', "V, X", (0, 0))
RANDOM.add("torch.random.per_example")
TORCH_EXAMPLES["torch.random.per_example"] = _torch('''
def f(x):
    return x + torch.randn(())
''', "X")
REFUSED.add("torch.numpy_random")
TORCH_EXAMPLES["torch.numpy_random"] = _torch('''
def f(x):
    return x + np.random.normal(0.0, 1.0)
''', "X")
# of constants (`x + torch.tensor(1.5)`) it is never rewritten: it shows only as a refusal
REFUSED.add("torch.constant_tensor")
TORCH_EXAMPLES["torch.constant_tensor"] = _torch('''
def f(x):
    return torch.tensor([x, 1.0]).sum()
''', "X")


ALL: dict[str, Example] = {**EXAMPLES, **ENGINE_EXAMPLES, **TORCH_EXAMPLES}


# names of `imports` that are not modules: name -> (module, attribute)
_FROM = {"F": ("torch.nn", "functional"), "vmap": ("vectorize", "vmap")}


def namespace(example: Example) -> dict:
    """The globals the example function is defined in."""
    import importlib
    names = {"np": np}
    for module in filter(None, (m.strip() for m in example.imports.split(","))):
        if module in _FROM:      # `import torch.nn.functional as F`, `from ... import vmap`
            owner, attr = _FROM[module]
            names[module] = getattr(importlib.import_module(owner), attr)
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
    if example.backend == "torch":
        import torch
        args = tuple(torch.as_tensor(a) if isinstance(a, np.ndarray) else a for a in args)
        if "X0" in example.args:    # a leaf that requires grad, for autograd examples
            args = tuple(a.requires_grad_() if isinstance(a, torch.Tensor) and a.ndim == 0
                         else a for a in args)
    return args
