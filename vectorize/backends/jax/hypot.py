"""``np.hypot`` as NumPy computes it: ``hypot_as_numpy(a, b)`` for ``jnp.hypot``.

``jnp.hypot`` computes ``big * sqrt(1 + (small / big) ** 2)``, two roundings that put it an
ulp from the correctly rounded hypotenuse on about a third of the float64 and float32 pairs
(``jnp.hypot(3.0, 2.0)`` is 3.6055512754639896, NumPy's and Python's 3.605551275463989),
where NumPy's (the C library's) is correctly rounded on all but a few in a thousand. An ulp
that a later ``%`` or a subtraction cancels becomes a relative error of 1e-15 and more
(``(x - np.hypot(y, x)) % 1.0``). ``hypot_as_numpy`` scales the legs by a power of two (exact)
into [0.5, 1), takes ``sqrt(a*a + b*b)`` and corrects it by one Newton step whose residual
``a*a + b*b - h*h`` is computed exactly (Dekker's products: each square as a pair of floats);
a float32 or float16 pair is computed in float64 and rounded once to float32 (NumPy's
float16 loop computes in float32 too). Infinite legs give inf (even beside a NaN), as C's
``hypot``; subnormal results are XLA's (flushed to zero on CPU, docs/jax.md).
"""

from __future__ import annotations

_SPLIT = 134217729.0        # 2 ** 27 + 1: Veltkamp's split of a float64 into two halves


def _square(a):
    """``a * a`` as the pair (rounded product, its rounding error), exactly."""
    p = a * a
    c = a * _SPLIT
    hi = c - (c - a)
    lo = a - hi
    return p, ((hi * hi - p) + 2.0 * hi * lo) + lo * lo


def hypot_as_numpy(a, b):
    """``jnp.hypot(a, b)`` rounded as NumPy's ``np.hypot`` (module doc)."""
    import jax.numpy as jnp

    dtype = jnp.result_type(a, b, float)
    if jnp.dtype(dtype).kind != "f":
        return jnp.hypot(a, b)
    if jnp.dtype(dtype).itemsize < 8:
        out = hypot_as_numpy(jnp.asarray(a, jnp.float64), jnp.asarray(b, jnp.float64))
        return jnp.asarray(jnp.asarray(out, jnp.float32), dtype)
    a, b = jnp.abs(jnp.asarray(a, dtype)), jnp.abs(jnp.asarray(b, dtype))
    big, small = jnp.maximum(a, b), jnp.minimum(a, b)
    _, exponent = jnp.frexp(big)
    big_s, small_s = jnp.ldexp(big, -exponent), jnp.ldexp(small, -exponent)
    bb, bb_err = _square(big_s)
    ss, ss_err = _square(small_s)
    h = jnp.sqrt(jnp.where(big == 0, 1.0, bb + ss))    # (no 0 / 0 for gradients)
    hh, hh_err = _square(h)
    h = h + (((bb - hh) + ss) + (bb_err + ss_err - hh_err)) / (2.0 * h)
    out = jnp.where(big == 0, big, jnp.ldexp(h, exponent))
    out = jnp.where(jnp.isnan(a) | jnp.isnan(b), jnp.nan, out)
    return jnp.where(jnp.isinf(a) | jnp.isinf(b), jnp.inf, out)
