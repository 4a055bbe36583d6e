"""Products of a float with a bool array, as NumPy computes them.

``jax.numpy`` multiplies by a bool array as a select (``where(b, x, 0)``), and under
``jit`` XLA turns a product by bools converted to floats into that select too, so
``x * (x > 1)`` is 0 where ``x`` is NaN or infinite and +0 where ``x`` is negative; NumPy
(and Python, per example: ``math.nan * False``) multiplies by 0.0: NaN, and -0.0. So the
JAX rule of ``*`` writes a float product with a bool array operand as
``bool_product(a, b, dtype)``: ``where(b, x, x * 0)`` in the product's dtype, which XLA
keeps. A Python bool (``x * False``) is a weak number that ``jax.numpy`` multiplies as
NumPy does: nothing to change.

A division with a bool array meets the same select: XLA computes ``(a / b) / c`` as
``a / (b * c)``, and the product by ``c``'s bools converted to floats as a select, +0
where ``b`` is negative, so ``(x / x) / (y != 0)`` was ``-inf`` where ``x`` is negative and
``y`` zero (NumPy: ``1.0 / 0.0``, ``inf``); it computes ``c / np.sqrt(y)`` as ``c *
rsqrt(y)``, a select again: ``False / np.sqrt(0)`` was 0.0 (NumPy: nan). So a float
quotient with a bool array operand is written ``bools_as_floats(c, dtype) / a``: the bools
converted behind ``lax.optimization_barrier``, which XLA does not see through
(`sums.floor_divide` and `sums.floor_mod` convert a bool divisor the same). A float sum or
difference with a bool array operand too: XLA folds ``b + 0.0`` into ``convert(b)``, and
``x * (b + 0.0)`` into the select. The conversions written out (``float(b)``,
``b.astype(float)``) are `casts.as_float`'s.
"""

from __future__ import annotations

import libcst as cst
import numpy as np

from ...abstract import Value

BOOL_PRODUCT = "bool_product"
BOOLS_AS_FLOATS = "bools_as_floats"


def bool_product(a, b, dtype: str):
    """``a * b`` where one of them is a bool array, as NumPy multiplies (see the module)."""
    import jax.numpy as jnp
    if getattr(a, "dtype", None) == np.bool_ and not isinstance(a, bool):
        mask, x = a, b
    elif getattr(b, "dtype", None) == np.bool_ and not isinstance(b, bool):
        mask, x = b, a
    else:
        return jnp.asarray(a * b, dtype=dtype)
    return jnp.where(mask, x, x * 0).astype(dtype)


def bools_as_floats(b, dtype: str):
    """A bool array as floats of ``dtype`` that XLA cannot see are bools (see the module)."""
    import jax.numpy as jnp
    from jax import lax
    return lax.optimization_barrier(jnp.asarray(b, dtype=dtype))


def _bool_array(value) -> bool:
    return isinstance(value, Value) and value.known and type(value.example) is not bool \
        and value.dtype is not None and value.dtype.kind == "b"


def _product_dtype(site):
    dtypes = []
    for value in site.args:
        if not isinstance(value, Value) or not value.known or value.dtype is None:
            return None
        dtypes.append(value.example if type(value.example) in (int, float, complex)
                      else value.dtype)
    try:
        out = np.result_type(*dtypes)
    except TypeError:
        return None
    # (complex products not: NumPy multiplies by 1+0j too, ``(inf+0j) * True`` is inf+nanj,
    # which no select gives)
    return out if out.kind == "f" else None


# the operators whose float result of a bool array operand has the bools converted behind
# the barrier: a quotient (module doc), and a sum or difference, which XLA folds
# (``b + 0.0`` is ``convert(b)``) into the product by converted bools it turns into a select
# (``x * (b + 0.0)`` was 0.0 where ``x`` is infinite or NaN)
_BARRED = (cst.Divide, cst.Add, cst.Subtract)


def _rewritten(site, out):
    """The rule's output ``out`` for a product site, as `bool_product` where it is a float
    product with a bool array operand; a quotient, sum or difference with a bool array
    operand with `bools_as_floats` around it."""
    if isinstance(site.node, cst.BinaryOperation) and type(site.node.operator) in _BARRED \
            and isinstance(out, cst.BinaryOperation) \
            and type(out.operator) is type(site.node.operator) \
            and len(site.args) == 2 and any(map(_bool_array, site.args)):
        dtype = getattr(site.result, "dtype", None) if isinstance(site.result, Value) else None
        if dtype is None or dtype.kind != "f":
            return out
        sides = [cst.Call(func=cst.Name(BOOLS_AS_FLOATS), args=[
            cst.Arg(node), cst.Arg(cst.SimpleString(repr(dtype.name)))])
            if _bool_array(value) else node
            for node, value in zip((out.left, out.right), site.args)]
        return out.with_changes(left=sides[0], right=sides[1])
    if not isinstance(site.node, cst.BinaryOperation) or \
            type(site.node.operator) is not cst.Multiply or \
            not isinstance(out, cst.BinaryOperation) or type(out.operator) is not cst.Multiply \
            or len(site.args) != 2 or not any(map(_bool_array, site.args)):
        return out
    dtype = _product_dtype(site)
    if dtype is None:
        return out
    return cst.Call(func=cst.Name(BOOL_PRODUCT), args=[
        cst.Arg(out.left), cst.Arg(out.right), cst.Arg(cst.SimpleString(repr(dtype.name)))])


def _ufunc_rewritten(site, out, product: bool):
    """The rule's output ``out`` for ``np.multiply(x, b)`` (``product``), ``np.add``,
    ``np.subtract``, ``np.divide`` of a bool array operand, as `_rewritten` writes the
    operators: ``jnp.multiply(x, b)`` and ``x * convert(b)`` are XLA's select too."""
    if len(site.args) != 2 or site.kwargs or not any(map(_bool_array, site.args)) or \
            not isinstance(out, cst.Call) or len(out.args) != 2 or \
            any(a.keyword is not None or a.star for a in out.args):
        return out
    if product:
        dtype = _product_dtype(site)
        if dtype is None:
            return out
        return cst.Call(func=cst.Name(BOOL_PRODUCT), args=[
            cst.Arg(out.args[0].value), cst.Arg(out.args[1].value),
            cst.Arg(cst.SimpleString(repr(dtype.name)))])
    dtype = getattr(site.result, "dtype", None) if isinstance(site.result, Value) else None
    if dtype is None or dtype.kind != "f":
        return out
    return out.with_changes(args=[
        arg.with_changes(value=cst.Call(func=cst.Name(BOOLS_AS_FLOATS), args=[
            cst.Arg(arg.value), cst.Arg(cst.SimpleString(repr(dtype.name)))]))
        if _bool_array(value) else arg for arg, value in zip(out.args, site.args)])


def wrap(reg) -> None:
    """The registry's ``binary`` operator rule with `_rewritten` after it, and the rules of
    ``np.multiply``, ``np.add``, ``np.subtract``, ``np.divide`` with `_ufunc_rewritten` (the
    rules listed in ``all_rules`` replaced in place)."""
    import dataclasses
    rule = reg.operators.get("binary")
    if rule is None:
        return
    original = rule.rewrite
    new = dataclasses.replace(rule, rewrite=lambda site: _rewritten(site, original(site)))
    reg.operators["binary"] = new
    reg.all_rules[:] = [new if r is rule else r for r in reg.all_rules]
    for func in (np.multiply, np.add, np.subtract, np.divide):
        rule = reg.for_call(func)
        if rule is None:
            continue
        new = dataclasses.replace(rule, rewrite=(
            lambda site, original=rule.rewrite, product=func is np.multiply:
            _ufunc_rewritten(site, original(site), product)))
        reg.replace_call(func, new)
        reg.relist({id(rule): new})
