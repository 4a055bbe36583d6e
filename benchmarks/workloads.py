"""The workloads of ``python -m benchmarks``: each a scalar function as a user writes it, what a
careful person writes by hand in NumPy, and the optional peers (numba, JAX, PyTorch) of the same
computation. Not a benchmark itself (`benchmarks/__main__.py` times them).

A workload makes its arguments for a batch size (`Workload.args`), our vectorized function
afresh (`Workload.ours`: a new object, so that its first call transforms), and its peers as
zero-argument calls on those arguments (`Workload.peers`). The optional peers are made only
where their package imports (``pip install -e ".[bench]"``); each is called once (compiled)
before it is timed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

import vectorize as vz

MAX_ITER = 50


# ------------------------------------------------------------------ the scalar functions
def seed_if(t, b):
    tmp = t * b
    if tmp > 5:
        root = t * b
    else:
        root = -t
    return root


def piecewise(x):
    if x < 0:
        y = x * x
    elif x < 1:
        y = 2 * x + 1
    elif x < 3:
        y = math.sqrt(x) + 2
    else:
        y = 5.0
    return y


def relu_linear(x, w):
    return max(x.dot(w), 0.0)


def mandelbrot(cr, ci):
    zr = cr
    zi = ci
    count = 1
    while count < MAX_ITER and zr * zr + zi * zi <= 4.0:
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        count += 1
    return count


def mlp(x, w1, b1, w2):
    return w2 @ np.tanh(w1 @ x + b1)


def newton_step(x, a):
    return 0.5 * (x + a / x)


def sqrt_newton(a):
    """examples/newton.py's square root: early returns, a helper, a `while` to a tolerance."""
    if a < 0:
        return math.nan
    if a == 0:
        return 0.0
    x = max(a, 1.0)
    while abs(x * x - a) > 1e-12 * a:
        x = newton_step(x, a)
    return x


# ------------------------------------------------------ what a careful person writes by hand
def seed_if_hand(t, b):
    tmp = t * b
    return np.where(tmp > 5, tmp, -t)


def piecewise_hand(x):
    with np.errstate(invalid="ignore"):
        return np.select([x < 0, x < 1, x < 3], [x * x, 2 * x + 1, np.sqrt(x) + 2], 5.0)


def relu_linear_hand(X, w):
    return np.maximum(X @ w, 0.0)


def mandelbrot_hand(cr, ci):
    zr, zi = cr.copy(), ci.copy()
    count = np.ones(cr.shape, dtype=np.int64)
    active = (count < MAX_ITER) & (zr * zr + zi * zi <= 4.0)
    while active.any():
        zr, zi = (np.where(active, zr * zr - zi * zi + cr, zr),
                  np.where(active, 2.0 * zr * zi + ci, zi))
        count += active
        active &= (count < MAX_ITER) & (zr * zr + zi * zi <= 4.0)
    return count


def mlp_hand(X, W1, b1, W2):
    return np.tanh(X @ W1.T + b1) @ W2.T


def sqrt_newton_hand(a):
    out = np.where(a < 0, np.nan, 0.0)
    x = np.maximum(a, 1.0)
    active = a > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        active &= np.abs(x * x - a) > 1e-12 * a
        while active.any():
            x = np.where(active, 0.5 * (x + a / x), x)
            active &= np.abs(x * x - a) > 1e-12 * a
    return np.where(a > 0, x, out)


# ------------------------------------------------------------------------------ workloads
@dataclass
class Workload:
    name: str
    what: str                           # one line for the report
    scalar: object                      # the user's function
    hand: object                        # hand-written NumPy, whole batch
    make: object                        # (n, rng) -> arguments (NumPy)
    batched: tuple                      # which arguments are per example
    api: str = "vectorize"              # how ours is made: "vectorize" or "vmap"
    max_loop_n: int = 10_000            # the Python loop and numpy.vectorize up to this N
    jax_one: object = None              # the per-example function in jax.numpy, for vmap
    numba_ok: bool = True               # numba.vectorize of the scalar function
    extra: dict = field(default_factory=dict)

    def args(self, n: int):
        return self.make(n, np.random.default_rng(n))

    def ours(self):
        if self.api == "vmap":
            axes = tuple(0 if b else None for b in self.batched)
            return vz.vmap(self.scalar, in_axes=axes)
        return vz.vectorize(self.scalar, fallback="error")

    def loop(self, args):
        n = len(args[0])
        rows = [[a[i] if b else a for a, b in zip(args, self.batched)] for i in range(n)]
        if self.api == "vmap":
            return lambda: np.array([self.scalar(*r) for r in rows])
        scal = [[float(v) if isinstance(v, np.floating) else v for v in r] for r in rows]
        return lambda: np.array([self.scalar(*r) for r in scal])

    def peers(self, args, n: int) -> tuple[dict, list[str]]:
        """Zero-argument calls of the optional peers on ``args`` (each compiled here), and
        notes on those that could not be made."""
        peers, notes = {}, []
        if n <= self.max_loop_n:
            peers["Python loop"] = self.loop(args)
            if self.api == "vectorize":
                npvec = np.vectorize(self.scalar)
                peers["numpy.vectorize"] = lambda: npvec(*args)
        if self.numba_ok:
            try:
                import numba
            except ImportError as exc:
                notes.append(f"numba not measured ({type(exc).__name__}: {exc})")
            else:
                kernel = numba.njit(self.scalar)
                types = ", ".join("float64" for _ in args)
                out = "int64" if self.name == "mandelbrot" else "float64"
                wrappers = {1: lambda a: kernel(a), 2: lambda a, b: kernel(a, b)}
                nb = numba.vectorize([f"{out}({types})"])(wrappers[len(args)])
                nb(*args)
                peers["numba.vectorize"] = lambda: nb(*args)
        if self.jax_one is not None:
            try:
                import jax
                import jax.numpy as jnp
            except ImportError as exc:
                notes.append(f"jax not measured ({type(exc).__name__}: {exc})")
            else:
                jax.config.update("jax_enable_x64", True)
                axes = tuple(0 if b else None for b in self.batched)
                fn = jax.jit(jax.vmap(self.jax_one(jax, jnp), in_axes=axes))
                jargs = [jnp.asarray(a) for a in args]
                fn(*jargs).block_until_ready()
                peers["jax.jit(jax.vmap(hand))"] = lambda: fn(*jargs).block_until_ready()
        if "torch" in self.extra:
            made = self.extra["torch"](args)
            if isinstance(made, str):
                notes.append(made)
            else:
                peers.update(made)
        return peers, notes


def _jax_seed(jax, jnp):
    def one(t, b):
        tmp = t * b
        return jnp.where(tmp > 5, tmp, -t)
    return one


def _jax_piecewise(jax, jnp):
    def one(x):
        return jnp.select([x < 0, x < 1, x < 3], [x * x, 2 * x + 1, jnp.sqrt(x) + 2], 5.0)
    return one


def _jax_relu(jax, jnp):
    return lambda x, w: jnp.maximum(x @ w, 0.0)


def _jax_mandel(jax, jnp):
    def one(cr, ci):
        def cond(s):
            zr, zi, k = s
            return (k < MAX_ITER) & (zr * zr + zi * zi <= 4.0)

        def body(s):
            zr, zi, k = s
            return zr * zr - zi * zi + cr, 2.0 * zr * zi + ci, k + 1
        return jax.lax.while_loop(cond, body, (cr, ci, jnp.int64(1)))[2]
    return one


def _jax_mlp(jax, jnp):
    return lambda x, w1, b1, w2: w2 @ jnp.tanh(w1 @ x + b1)


def _torch_seed(args):
    try:
        import torch
    except ImportError as exc:
        return f"torch not measured ({type(exc).__name__}: {exc})"
    t = torch.from_numpy(args[0])
    ours = vz.vmap(seed_if, in_axes=(0, None))
    ours(t, 1.0)

    def hand(t, b):
        tmp = t * b
        return torch.where(tmp > 5, tmp, -t)
    mapped = torch.vmap(hand, in_dims=(0, None))
    return {"ours on torch tensors (vmap)": lambda: ours(t, 1.0),
            "torch hand-written": lambda: hand(t, 1.0),
            "torch.vmap(hand)": lambda: mapped(t, 1.0)}


def _uniform(lo, hi):
    return lambda n, rng: (rng.uniform(lo, hi, n),)


WORKLOADS = [
    Workload("seed if", "the seed: `if t * b > 5` on every example", seed_if, seed_if_hand,
             lambda n, rng: (rng.uniform(-2.0, 10.0, n), 1.0), (True, False),
             jax_one=_jax_seed, extra={"torch": _torch_seed}),
    Workload("piecewise", "`if`/`elif`/`else`, four pieces, `math.sqrt`", piecewise,
             piecewise_hand, _uniform(-2.0, 5.0), (True,), jax_one=_jax_piecewise),
    Workload("relu linear", "`max(x.dot(w), 0)` over rows of 64", relu_linear,
             relu_linear_hand,
             lambda n, rng: (rng.standard_normal((n, 64)), rng.standard_normal(64)),
             (True, False), api="vmap", jax_one=_jax_relu, numba_ok=False,
             max_loop_n=10_000),
    Workload("mandelbrot", "escape-time `while`, at most 50 steps", mandelbrot,
             mandelbrot_hand,
             lambda n, rng: (rng.uniform(-2.0, 0.6, n), rng.uniform(-1.2, 1.2, n)),
             (True, True), jax_one=_jax_mandel),
    Workload("mlp", "`w2 @ tanh(w1 @ x + b1)`, 32 -> 64 -> 10", mlp, mlp_hand,
             lambda n, rng: (rng.standard_normal((n, 32)), rng.standard_normal((64, 32)) / 6,
                             rng.standard_normal(64), rng.standard_normal((10, 64)) / 8),
             (True, False, False, False), api="vmap", jax_one=_jax_mlp, numba_ok=False),
    Workload("newton sqrt", "examples/newton.py: early returns, helper, `while` to 1e-12",
             sqrt_newton, sqrt_newton_hand, _uniform(-1.0, 1e6), (True,), numba_ok=False),
]
