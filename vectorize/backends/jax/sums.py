"""Sums in NumPy's order of additions: ``pairwise_sum(x, axis=k)`` for ``jnp.sum``.

A per-example ``np.sum(v)`` adds in NumPy's pairwise order (Python's ``sum(v)`` adds one
term after the other: the rules write ``np.add.accumulate``, here `accumulate_in_order`):
fewer than 8 terms one after the other from 0.0; up to 128 in 8 running partial sums,
combined as ``((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))``, then the leftover terms;
more split in two halves (the first a multiple of 8 long) summed the same way. XLA's
``reduce`` chooses its own order, and on CPU a different one for large batches (about 1,000
examples and up): where terms cancel (``1e300 - 2.5 + 1 + 1 - 1e300``) the same example gave
another sum in a large batch than alone. ``pairwise_sum`` writes NumPy's order as a chain of
``add``s over slices along the axis, which XLA keeps (it does not reassociate floating-point
additions), so every example gets NumPy's sum whatever the batch size.

Only float and complex sums over one axis of at most `PAIRWISE_MAX` terms are written so;
other sums (integers are exact) are ``jnp.sum`` itself (docs/jax.md, divergences)."""

from __future__ import annotations

PAIRWISE_MAX = 256     # longer sums are XLA's: the chain grows with the length


def pairwise_sum(x, axis, keepdims=False):
    """``jnp.sum(x, axis=axis, keepdims=keepdims)`` added in NumPy's order (module doc)."""
    import jax.numpy as jnp
    from jax import lax

    x = jnp.asarray(x)
    if not isinstance(axis, int) or not x.ndim or jnp.dtype(x.dtype).kind not in "fc" \
            or not 0 < x.shape[axis] <= PAIRWISE_MAX:
        return jnp.sum(x, axis=axis, keepdims=keepdims)
    axis = axis % x.ndim
    terms = [lax.index_in_dim(x, i, axis, keepdims=False) for i in range(x.shape[axis])]
    out = _pairwise(terms, jnp.zeros_like(terms[0]))
    return jnp.expand_dims(out, axis) if keepdims else out


def accumulate_in_order(x, axis):
    """``jnp.add.accumulate(x, axis=axis)`` with each partial sum the previous one plus the
    next term, as NumPy's ``np.add.accumulate`` (and Python's ``sum`` of an array's items)
    adds: XLA's scan may add in another order."""
    import jax.numpy as jnp
    from jax import lax

    x = jnp.asarray(x)
    if not isinstance(axis, int) or not x.ndim or jnp.dtype(x.dtype).kind not in "fc" \
            or not 0 < x.shape[axis] <= PAIRWISE_MAX:
        return jnp.add.accumulate(x, axis=axis)
    axis = axis % x.ndim
    partial = []
    for i in range(x.shape[axis]):
        term = lax.index_in_dim(x, i, axis, keepdims=False)
        partial.append(partial[-1] + term if partial else term)
    return jnp.stack(partial, axis=axis)


def _pairwise(terms: list, zero):
    n = len(terms)
    if n < 8:
        out = zero
        for term in terms:
            out = out + term
        return out
    if n <= 128:
        partial = list(terms[:8])
        for i in range(8, n - n % 8, 8):
            partial = [partial[j] + terms[i + j] for j in range(8)]
        out = ((partial[0] + partial[1]) + (partial[2] + partial[3])) + (
            (partial[4] + partial[5]) + (partial[6] + partial[7]))
        for i in range(n - n % 8, n):
            out = out + terms[i]
        return out
    half = n // 2
    half -= half % 8
    return _pairwise(terms[:half], zero) + _pairwise(terms[half:], zero)


def _divisor(b, dtype):
    """``b`` as a float divisor of ``dtype``: a bool array behind `bools_as_floats`'s barrier
    (XLA computed ``(x / x) // (y != 0)`` as a quotient by a select: -inf for a negative
    ``x``, NumPy inf)."""
    import jax.numpy as jnp
    if getattr(b, "dtype", None) == jnp.bool_:
        from .bool_products import bools_as_floats
        return bools_as_floats(b, dtype)
    return jnp.asarray(b, dtype)


def floor_divide(a, b):
    """``a // b`` as Python and NumPy compute it for floats (``floatobject.c``'s
    ``float_divmod``, NumPy's ``npy_divmod``): the quotient ``(a - fmod(a, b)) / b``,
    corrected by one toward minus infinity where the remainder's sign is not the divisor's,
    then *floored* (and one added where it lies more than a half above its floor). JAX's
    ``jnp.floor_divide`` *rounds* that quotient instead, which gives the integer above where
    it lies exactly half way (``1e16 // 3.0``: 3333333333333334.0, Python 3333333333333333.0).
    float16 is divided in float32, the quotient rounded once to float16, as NumPy's loop does.
    Integers are divided as they were, but by zero: 0, as NumPy gives (XLA gives -1, or -2
    for a positive dividend); Python numbers (a static ``len(v) // 2``) as they were."""
    import jax.numpy as jnp

    if not (hasattr(a, "dtype") or hasattr(b, "dtype")):
        return a // b
    dtype = jnp.result_type(a, b)
    if jnp.dtype(dtype).kind != "f":
        quotient = jnp.floor_divide(a, b)
        if jnp.dtype(dtype).kind in "iu":
            quotient = jnp.where(jnp.asarray(b) == 0, jnp.zeros_like(quotient), quotient)
        return quotient
    if dtype == jnp.float16:
        # NumPy's float16 loop divides in float32 and rounds the quotient once
        # (`npy_half_divmod`); in float16 `a - mod` and the quotient are rounded each
        return floor_divide(jnp.asarray(a, jnp.float32), _divisor(b, jnp.float32)).astype(
            jnp.float16)
    a, b = jnp.asarray(a, dtype), _divisor(b, dtype)
    mod = jnp.fmod(a, b)
    div = (a - mod) / b
    div = jnp.where((mod != 0) & ((b < 0) != (mod < 0)), div - 1, div)
    floor = jnp.floor(div)
    floor = jnp.where(div - floor > 0.5, floor + 1, floor)
    floor = jnp.where(div != 0, floor, jnp.copysign(jnp.zeros_like(div), a / b))
    return jnp.where(b == 0, a / b, floor)


def floor_mod(a, b):
    """``a % b`` as Python and NumPy compute it for floats (``npy_divmod``'s remainder):
    ``fmod(a, b)``, plus ``b`` where its sign is not the divisor's, and a zero result has
    the divisor's sign. ``jnp.remainder`` keeps the dividend's sign on a zero result
    (``-0.0 % 1.0`` is -0.0 there, 0.0 in Python and NumPy: a later ``1 / r`` is -inf
    instead of inf). Integers (and Python numbers, strings) are divided as they were."""
    import jax.numpy as jnp

    if not (hasattr(a, "dtype") or hasattr(b, "dtype")) or isinstance(a, (str, bytes)):
        return a % b
    dtype = jnp.result_type(a, b)
    if jnp.dtype(dtype).kind != "f":
        return jnp.remainder(a, b)
    a, b = jnp.asarray(a, dtype), _divisor(b, dtype)
    mod = jnp.fmod(a, b)
    mod = jnp.where((mod != 0) & ((b < 0) != (mod < 0)), mod + b, mod)
    return jnp.where(mod == 0, jnp.copysign(jnp.zeros_like(mod), b), mod)


def floor_divmod(a, b):
    """``divmod(a, b)`` (``jnp.divmod``) as `floor_divide` and `floor_mod`, as NumPy's:
    ``jnp.divmod`` gives XLA's quotient of an integer by zero (-1, or the type's maximum
    for unsigned types, where NumPy gives 0) and ``jnp.remainder``'s zero signs."""
    if not (hasattr(a, "dtype") or hasattr(b, "dtype")):
        return divmod(a, b)
    return floor_divide(a, b), floor_mod(a, b)


def sign_as_numpy(x):
    """``np.sign(x)`` (``jnp.sign``) with NumPy's zero: ``jnp.sign(-0.0)`` is -0.0 (XLA's
    sign keeps the zero's sign), NumPy's is 0.0, so a later ``1 / np.sign(x)`` or
    ``np.sign(x) ** -1`` was -inf where NumPy gives inf. Other values (and integers,
    complex numbers) as ``jnp.sign``."""
    import jax.numpy as jnp

    out = jnp.sign(x)
    if jnp.dtype(out.dtype).kind != "f":
        return out
    return jnp.where(out == 0, jnp.zeros_like(out), out)


def _keeping_nan(reduce, x, axis, keepdims):
    import jax.numpy as jnp

    x = jnp.asarray(x)
    out = reduce(x, axis=axis, keepdims=keepdims)
    if jnp.dtype(x.dtype).kind != "f":
        return out
    return jnp.where(jnp.isnan(x).any(axis=axis, keepdims=keepdims), jnp.nan, out)


def max_keeping_nan(x, axis, keepdims=False):
    """``jnp.max(x, axis=axis)`` that is NaN wherever NumPy's ``np.max`` is: XLA's reduce on
    CPU drops NaNs on large batches (from about 1,000 examples: the max of ``[0.5, nan,
    -inf]`` came back 0.5)."""
    import jax.numpy as jnp
    return _keeping_nan(jnp.max, x, axis, keepdims)


def min_keeping_nan(x, axis, keepdims=False):
    """``jnp.min(x, axis=axis)`` that is NaN wherever NumPy's ``np.min`` is (as
    `max_keeping_nan`)."""
    import jax.numpy as jnp
    return _keeping_nan(jnp.min, x, axis, keepdims)
