"""Floats converted to signed integers as NumPy converts them.

NumPy converts a float that is NaN, infinite or beyond the target's range to a signed
64-bit or 32-bit integer as the most negative one (the CPU's conversion: ``np.int64(nan)``,
``np.float16(inf).astype(np.int64)`` and ``np.int64(1e19)`` are all -2**63, with a
warning); to int16 and int8 through int32, so that those give 0, and a value in int32's
range wraps (``np.float64(70000.0).astype(np.int16)`` is 4464). XLA saturates instead
(inf is 2**63 - 1, 70000.0 is 32767) and gives 0 for NaN. So `finish` writes a conversion
to a signed integer type (``jnp.int64(x)``, ``x.astype(int)``, ``x.astype(jnp.int32)``)
as ``as_numpy_int(x, jnp.int64)``, which computes NumPy's result where ``x`` is a float
(decided when ``jit`` traces it) and is the conversion itself otherwise. (Unsigned targets
are the conversion as XLA computes it: NumPy's results there depend on the CPU.)

Bools converted to floats (``float(b)``, ``np.float64(b)``, ``b.astype(float)``) are written
``as_float(b, jnp.float64)``: a bool array goes behind `bool_products.bools_as_floats`'s
barrier. Under ``jit`` XLA computes ``x * convert(b)`` as the select ``where(b, x, 0)``, so
``x * float(x == 0.25)`` was 0.0 where ``x`` is infinite or NaN (Python: ``-inf * 0.0`` is
nan) and +0.0 where it is negative (Python: -0.0).
"""

from __future__ import annotations

import libcst as cst

from ...syntax.traversal import attribute_path

AS_NUMPY_INT = "as_numpy_int"
AS_FLOAT = "as_float"
_SIGNED = ("int64", "int32", "int16", "int8")
_FLOATS = ("float64", "float32", "float16")


def as_float(x, dtype):
    """``x`` converted to the float type ``dtype``; a bool array behind the barrier of
    `bool_products.bools_as_floats` (module doc; written out here: a file the rewriter
    writes holds this function's source)."""
    import jax.numpy as jnp
    from jax import lax
    x = jnp.asarray(x)
    target = jnp.dtype(dtype)
    if x.dtype == jnp.bool_ and x.ndim and target.kind == "f":
        return lax.optimization_barrier(x.astype(target))
    return x.astype(target)


def as_numpy_int(x, dtype):
    """``x`` converted to ``dtype`` (module doc)."""
    import jax.numpy as jnp
    target = jnp.dtype(dtype)
    if type(x) in (bool, int, float) and target.kind in "iu":
        # a Python number (the same for every example): NumPy's scalar constructor
        # raises beyond the type's range (``np.int64(1e300)``: OverflowError; NaN:
        # ValueError) where the conversion of an array wraps
        x = target.type(x)
    x = jnp.asarray(x)
    if jnp.dtype(x.dtype).kind != "f" or target.kind != "i":
        return as_float(x, target) if target.kind == "f" else x.astype(target)
    wide = jnp.dtype(jnp.int64 if target.itemsize == 8 else jnp.int32)
    bound = float(2 ** (8 * wide.itemsize - 1))
    inside = (x >= -bound) & (x < bound)       # (False for NaN)
    out = jnp.where(inside, jnp.where(inside, x, 0).astype(wide), jnp.iinfo(wide).min)
    return out if wide == target else out.astype(target)


def _maybe_signed(node) -> bool:
    """Whether ``node`` may be a signed integer type: ``int``, ``jnp.int64``, ``"int32"``,
    or a dtype known only when the code runs (``v.dtype``, a name)."""
    if isinstance(node, cst.Name):
        return node.value not in ("float", "complex", "bool", "str", "object")
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value in _SIGNED
    path = attribute_path(node)
    if path is not None and len(path) == 2 and path[0] == "jnp":
        return path[1] in _SIGNED
    return True


def _float_type(node) -> bool:
    """Whether ``node`` is a float type written out: ``float``, ``jnp.float32``,
    ``"float64"``."""
    if isinstance(node, cst.Name):
        return node.value == "float"
    if isinstance(node, cst.SimpleString):
        return node.evaluated_value in _FLOATS
    path = attribute_path(node)
    return path is not None and len(path) == 2 and path[0] == "jnp" and path[1] in _FLOATS


class Conversions(cst.CSTTransformer):
    """``jnp.int64(x)`` → ``as_numpy_int(x, jnp.int64)``; ``x.astype(T)`` of a type ``T``
    that may be a signed integer type → ``as_numpy_int(x, T)``; ``jnp.float64(x)`` and
    ``x.astype(float)`` → ``as_float(x, jnp.float64)``."""

    def __init__(self):
        self.count = 0
        self.floats = 0

    def leave_Call(self, original_node, updated_node):
        args = updated_node.args
        if len(args) != 1 or args[0].keyword is not None or args[0].star:
            return updated_node
        func = updated_node.func
        path = attribute_path(func)
        if path is not None and len(path) == 2 and path[0] == "jnp" and path[1] in _SIGNED:
            self.count += 1
            return cst.Call(func=cst.Name(AS_NUMPY_INT), args=[
                cst.Arg(args[0].value), cst.Arg(func)])
        if isinstance(func, cst.Attribute) and func.attr.value == "astype" and \
                _maybe_signed(args[0].value):
            self.count += 1
            return cst.Call(func=cst.Name(AS_NUMPY_INT), args=[
                cst.Arg(func.value), cst.Arg(args[0].value)])
        if path is not None and len(path) == 2 and path[0] == "jnp" and path[1] in _FLOATS:
            self.floats += 1
            return cst.Call(func=cst.Name(AS_FLOAT), args=[cst.Arg(args[0].value), cst.Arg(func)])
        if isinstance(func, cst.Attribute) and func.attr.value == "astype" and \
                _float_type(args[0].value):
            self.floats += 1
            return cst.Call(func=cst.Name(AS_FLOAT), args=[
                cst.Arg(func.value), cst.Arg(args[0].value)])
        return updated_node


def converted(func_def: cst.FunctionDef, ctx) -> cst.FunctionDef:
    """The function with its conversions to signed integers written as NumPy's."""
    rewrite = Conversions()
    out = func_def.visit(rewrite)
    if rewrite.count:
        ctx.module.runtime_imports.setdefault(AS_NUMPY_INT, as_numpy_int)
    if rewrite.floats:
        ctx.module.runtime_imports.setdefault(AS_FLOAT, as_float)
    return out
