"""The JAX backend's warm call with NumPy in and out, and its compiled code against a hand rewrite.

- ``vectorize(f, backend="jax")`` keeps its one-attribute warm call (``vectorize._warm``)
  where the backend named never needs a context around a call (`api._no_numpy_call`: JAX,
  NumPy; not PyTorch, whose NumPy-in calls run under NumPy's promotions): the warm calls on
  NumPy arrays, and on ``jax.Array``s alternating with them, give what ``numpy.vectorize``
  gives (values and dtype; ``jax.Array`` in, ``jax.Array`` out).
- The jitted code of the seed ``if`` and of Mandelbrot's ``while`` compiles (XLA, after its
  optimizations) to no more HLO instructions than ``jax.jit`` of the hand rewrite a JAX user
  writes (``jnp.where``, a masked ``lax.while_loop``): the benchmark's gap to it is not in the
  code.
"""

from __future__ import annotations

import re

import jax
import jax.numpy as jnp
import numpy as np

from vectorize import vectorize
from vectorize.api import _no_numpy_call

MAX_ITER = 20


def seed(t, b):
    tmp = t * b
    if tmp > 5:
        return tmp
    return -t


def mandelbrot(cr, ci):
    zr = cr
    zi = ci
    count = 1
    while count < MAX_ITER and zr * zr + zi * zi <= 4.0:
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        count += 1
    return count


def seed_hand(t, b):
    tmp = t * b
    return jnp.where(tmp > 5, tmp, -t)


def mandelbrot_hand(cr, ci):
    def cond(s):
        return jnp.any(s[3])

    def body(s):
        zr, zi, count, active = s
        zr, zi = (jnp.where(active, zr * zr - zi * zi + cr, zr),
                  jnp.where(active, 2.0 * zr * zi + ci, zi))
        count = count + active
        active = active & (count < MAX_ITER) & (zr * zr + zi * zi <= 4.0)
        return zr, zi, count, active
    count = jnp.ones(cr.shape, dtype=jnp.int64)
    active = (count < MAX_ITER) & (cr * cr + ci * ci <= 4.0)
    return jax.lax.while_loop(cond, body, (cr, ci, count, active))[2]


def _same(out, expected):
    assert type(out) is np.ndarray, type(out)
    assert out.dtype == expected.dtype, (out.dtype, expected.dtype)
    np.testing.assert_allclose(out, expected, rtol=1e-12)


def test_jax_backend_keeps_the_one_attribute_warm_call():
    assert _no_numpy_call(None) and _no_numpy_call("jax") and _no_numpy_call("numpy")
    assert not _no_numpy_call("torch")      # (its NumPy-in calls need NumPy's promotions)
    rng = np.random.default_rng(34)
    ours = vectorize(seed, backend="jax")
    reference = np.vectorize(seed)
    t, b = rng.normal(size=50) * 4, rng.normal(size=50) * 4
    for _ in range(3):
        _same(ours(t, b), reference(t, b))
    assert ours._warm is not None
    for n in (7, 50, 3):     # another batch size, another dtype, jax.Array in: still right
        t, b = rng.normal(size=n) * 4, rng.normal(size=n) * 4
        _same(ours(t, b), reference(t, b))
        ti = rng.integers(-5, 6, size=n)
        _same(ours(ti, b), reference(ti, b))
        with jax.enable_x64(True):
            got = ours(jnp.asarray(t), jnp.asarray(b))
        assert isinstance(got, jax.Array)
        _same(np.asarray(got), reference(t, b))


def _hlo_ops(jitted, args) -> int:
    text = jitted.lower(*args).compile().as_text()
    return len(re.findall(r"= \S+ [a-z][\w-]*\(", text))


def _jitted_of(ours, args):
    """The ``jax.jit`` function a warm call of ``ours`` runs on these arguments."""
    compiled = ours._last.run.__wrapped__       # (`runtime.Compiled.runner`)
    return compiled._by_types[0][tuple(map(type, args))]


def test_generated_code_compiles_to_no_more_than_the_hand_rewrite():
    rng = np.random.default_rng(3)
    with jax.enable_x64(True):
        for scalar, hand, args in (
                (seed, seed_hand, (rng.normal(size=256) * 4, rng.normal(size=256) * 4)),
                (mandelbrot, mandelbrot_hand, (rng.uniform(-2, 1, 256),
                                               rng.uniform(-1.5, 1.5, 256)))):
            ours = vectorize(scalar, backend="jax")
            for _ in range(2):
                _same(ours(*args), np.vectorize(scalar)(*args))
            mine, theirs = _hlo_ops(_jitted_of(ours, args), args), _hlo_ops(jax.jit(hand), args)
            assert 0 < mine <= theirs, (scalar.__name__, mine, theirs)
