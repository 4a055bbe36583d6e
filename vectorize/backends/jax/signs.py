"""Absolute values and squares of signed integers, as values XLA does not take for
non-negative.

NumPy's ``abs`` of a signed integer wraps at the type's minimum (``abs(np.int64(-2**63))``
is ``-2**63``, ``abs(np.int16(-32768))`` is ``-32768``), and so does XLA's ``abs``. But
XLA's algebraic simplifier takes the result of ``abs`` for non-negative: under ``jit`` it
folds ``abs(y) < 0`` to False and ``abs(y) >= 0`` to True, and divides ``abs(y) // 2``
as a non-negative number (``4611686018427387904`` where NumPy gives
``-4611686018427387904``). So ``math.sqrt(abs(y))`` of the minimum returned NaN where the
per-example code raises ``ValueError: math domain error`` (its check ``abs(y) < 0`` was
folded away). The JAX rules of ``abs``, ``np.abs``/``np.absolute`` (and their ``jnp``
twins) write the absolute value of a signed integer as ``wrapping_abs(y)``: the select
``where(y < 0, -y, y)``, the same values, which XLA does not fold (and fuses as it fuses
``abs``).

The same holds for a signed integer times itself (``y * y``, ``y ** 2``, ``np.square(y)``,
``y ** 4``: XLA multiplies the operand by itself, a product it takes for non-negative),
which wraps to negative values too (``np.int16(255) ** 2`` is ``-511``): such a product is
written ``wrapping_square(y)`` (``y`` times ``optimization_barrier(y)``, which XLA cannot see is
``y``) and a power of a signed integer to a constant exponent ``wrapping_power(y, c)`` (the
power below times the barrier's ``y``).

``wrapping_power`` also computes an integer to an integer array's power as NumPy does where an
exponent is 64 or more (`_binary_power`): ``jnp.power`` looks at the exponent's low 6 bits
only.
"""

from __future__ import annotations

import dataclasses

import libcst as cst
import numpy as np

from ...abstract import Value

WRAPPING_ABS = "wrapping_abs"
WRAPPING_SQUARE = "wrapping_square"
WRAPPING_POWER = "wrapping_power"
HELPERS = (WRAPPING_ABS, WRAPPING_SQUARE, WRAPPING_POWER)


def wrapping_abs(x):
    """``abs(x)``, a signed integer's as the select ``where(x < 0, -x, x)`` (module doc)."""
    import jax.numpy as jnp
    if not hasattr(x, "dtype") or jnp.dtype(x.dtype).kind != "i":
        return abs(x)
    return jnp.where(x < 0, -x, x)


def _signed(x) -> bool:
    import jax.numpy as jnp
    return hasattr(x, "dtype") and jnp.dtype(x.dtype).kind == "i"


def wrapping_square(x):
    """``x * x``, a signed integer's as a product XLA cannot take for non-negative."""
    if not _signed(x):
        return x * x
    from jax import lax
    return x * lax.optimization_barrier(x)


def wrapping_power(x, e):
    """``x ** e``: a signed integer's to a Python int ``e >= 2`` as ``x ** (e - 1)`` times
    the barrier's ``x`` (a product XLA cannot take for non-negative); an integer to an
    integer array's power by `_binary_power` where some exponent is 64 or more."""
    if type(e) is int:
        if e < 2 or not _signed(x):
            return x ** e
        from jax import lax
        return x ** (e - 1) * lax.optimization_barrier(x)
    out = x ** e
    if not _integer(out) or not _integer(e) or not (_integer(x) or type(x) is int):
        return out
    import jax.numpy as jnp
    from jax import lax
    e = jnp.asarray(e)
    return lax.cond(jnp.any(e >= 64), lambda: _binary_power(x, e, out), lambda: out)


def _integer(x) -> bool:
    import jax.numpy as jnp
    return hasattr(x, "dtype") and jnp.dtype(x.dtype).kind in "iu"


def _binary_power(x, e, like):
    """``x ** e`` (integers, ``e >= 0``) by squaring over every bit of ``e``'s type, as
    NumPy computes it (wrapping in ``like``'s dtype). ``jnp.power`` of an integer exponent
    array looks at its low 6 bits only ("anything more would overflow"): but a wrapped power
    is exact modulo the type's size, so ``300 ** e`` of an even base is 0 from ``e = 64``
    on (NumPy: 0; ``jnp.power``: ``300 ** (e % 64)``), and an odd base's powers cycle."""
    import jax.numpy as jnp
    from jax import lax
    base = jnp.broadcast_to(jnp.asarray(x, like.dtype), like.shape)
    k = jnp.broadcast_to(e, like.shape)
    acc = jnp.ones_like(like)
    for _ in range(8 * k.dtype.itemsize):
        acc = jnp.where((k & 1) != 0, acc * base, acc)
        base = base * base
        k = lax.shift_right_logical(k, jnp.ones_like(k))
    return acc


def _signed_int(value) -> bool:
    return isinstance(value, Value) and value.known and value.dtype is not None and \
        value.dtype.kind == "i" and type(value.example) is not bool


def _rewritten(site, out):
    """The rule's output ``out`` (``abs(y)``, ``np.abs(y)``...) as ``wrapping_abs(y)`` where its
    operand is a signed integer."""
    if len(site.args) != 1 or site.kwargs or not _signed_int(site.args[0]) or \
            not isinstance(out, cst.Call) or len(out.args) != 1 or \
            out.args[0].keyword is not None or out.args[0].star:
        return out
    return out.with_changes(func=cst.Name(WRAPPING_ABS))


def _positional(call: cst.Call, n: int) -> bool:
    return len(call.args) == n and all(a.keyword is None and not a.star for a in call.args)


def _integer_result(value) -> bool:
    return isinstance(value, Value) and value.known and value.dtype is not None and \
        value.dtype.kind in "iu" and type(value.example) is not bool


def _squared(site, out):
    """The rule's output ``out`` of a product or power whose result is an integer:
    ``wrapping_square(y)`` for ``y * y`` and ``np.square(y)`` of a signed ``y``, ``wrapping_power(y,
    c)`` for ``y ** c``, ``pow(y, c)`` and ``np.power(y, c)`` (``c`` anything: `wrapping_power`
    decides when ``jit`` traces it); ``out`` itself otherwise."""
    if not _integer_result(site.result):
        return out
    signed = _signed_int(site.result)
    if isinstance(out, cst.BinaryOperation):
        if type(out.operator) is cst.Multiply and signed and out.left.deep_equals(out.right):
            return cst.Call(func=cst.Name(WRAPPING_SQUARE), args=[cst.Arg(out.left)])
        if type(out.operator) is cst.Power:
            return cst.Call(func=cst.Name(WRAPPING_POWER), args=[cst.Arg(out.left),
                                                            cst.Arg(out.right)])
        return out
    if not isinstance(out, cst.Call) or site.func is None:
        return out
    name = getattr(site.func, "__name__", "")
    if name == "square" and signed and _positional(out, 1):
        return out.with_changes(func=cst.Name(WRAPPING_SQUARE))
    if name in ("power", "pow") and _positional(out, 2):
        return out.with_changes(func=cst.Name(WRAPPING_POWER))
    return out


def _after(rule, then):
    original = rule.rewrite
    return dataclasses.replace(rule, rewrite=lambda site: then(site, original(site)))


def wrap(reg) -> None:
    """The call rules of ``abs``, ``np.absolute`` and JAX's ``abs``/``absolute`` with
    `_rewritten` after them, the ``binary`` operator rule and the rules of ``pow``,
    ``np.square``, ``np.power`` (and JAX's) with `_squared` after them (the rules listed in
    ``all_rules`` replaced in place)."""
    import jax.numpy as jnp
    then = {id(f): _rewritten for f in (abs, np.absolute, jnp.abs, jnp.absolute)}
    then.update({id(f): _squared for f in (pow, np.square, np.power, jnp.square, jnp.power)})
    replaced = {}
    for func, rule in reg.call_rules():
        after = then.get(id(func))
        if after is None:
            continue
        new = replaced.get((id(rule), after))
        if new is None:
            new = replaced[(id(rule), after)] = _after(rule, after)
        reg.replace_call(func, new)
    binary = reg.operators.get("binary")
    if binary is not None:
        reg.operators["binary"] = replaced[(id(binary), _squared)] = _after(binary, _squared)
    swaps = {rule_id: new for (rule_id, _), new in replaced.items()}
    reg.relist(swaps)
