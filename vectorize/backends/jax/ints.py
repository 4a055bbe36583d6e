"""Python ints meeting integer arrays, as NumPy takes them (NEP 50), where ``jax.numpy``
wraps them.

NumPy converts a Python int operand of a narrow integer array (or a uint64 one) to the
array's type, and raises ``OverflowError`` where it does not fit (``np.uint8(3) + -2``,
``int8_array * 300``); a comparison compares the exact values (``uint8_array > -2`` is True
everywhere, ``uint8_array == -1`` False). ``jax.numpy`` wraps the int into the type instead
(-2 becomes 254 for uint8: ``x > -2`` is False everywhere, ``x + -2`` subtracts nothing
like 2). So the JAX rules of arithmetic operators and comparisons write such an operand
(a Python int the same for every example, next to an integer array) through a helper that
runs when ``jit`` traces the code (the int is static there, its value known):

- arithmetic with an integer result: ``int_operand(c, "uint8")`` is ``c``, or raises
  NumPy's ``OverflowError`` where ``c`` does not fit the result's type, for the whole
  batch, as NumPy's batched code does: ``vmap`` then runs the per-example loop, which
  raises it where an example computes it (`IntOutOfBounds`);
- a comparison: ``int_compared(c, "uint8")`` is ``c`` where it fits, else minus or plus
  infinity, which every value of the type compares with as with ``c``.

An operand that is not a Python int when the code runs (a traced value) is left as it is.
"""

from __future__ import annotations

import dataclasses

import libcst as cst
import numpy as np

from ...abstract import Value
from ...syntax.templates import expr

INT_OPERAND = "int_operand"
INT_COMPARED = "int_compared"
# (`bool_products.BOOL_PRODUCT`, `signs.HELPERS`)
HELPERS = (INT_OPERAND, INT_COMPARED, "bool_product", "bools_as_floats", "wrapping_abs",
           "wrapping_square", "wrapping_power")


class IntOutOfBounds(OverflowError):
    """NumPy's OverflowError of a Python int beyond an integer array's type, raised for the
    whole batch where the per-example code raises only on the examples that compute it:
    ``vmap`` runs the per-example loop, which decides (`vmap._VMapped._replayed`), as it
    does where NumPy's batched code raises it."""

    whole_batch = True


def int_operand(value, dtype: str, clip: str = ""):
    """``value`` as an operand of arrays of ``dtype``: NumPy's OverflowError where a Python
    int does not fit it. ``clip``: the builtin ``max`` (``min``) that takes it, which picks
    the array's values over an int below (above) the type: the type's bound stands for it."""
    if type(value) is int:
        info = np.iinfo(dtype)
        if value < info.min and clip == "max":
            return int(info.min)
        if value > info.max and clip == "min":
            return int(info.max)
        if not info.min <= value <= info.max:
            raise IntOutOfBounds(f"Python integer {value} out of bounds for {dtype}")
    return value


def int_compared(value, dtype: str):
    """``value`` as a comparand of arrays of ``dtype``: a Python int beyond the type as an
    infinity on its side (every value of the type compares with it as with the int)."""
    if type(value) is int:
        info = np.iinfo(dtype)
        if value < info.min:
            return -float("inf")
        if value > info.max:
            return float("inf")
    return value


# ufuncs that compare a Python int with an integer array exactly (or convert it to float)
_EXACT = {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "divide",
          "true_divide", "hypot", "arctan2", "power", "float_power", "ldexp", "copysign",
          "logaddexp", "logaddexp2", "nextafter", "heaviside"}


_BUILTINS = (max, min, divmod, pow)


def _python_int(value) -> bool:
    return isinstance(value, Value) and not value.batched and type(value.example) is int


def _int_array_dtype(value):
    """The dtype of an integer operand that is no Python int (an array, a NumPy scalar)."""
    if not isinstance(value, Value) or type(value.example) in (int, bool) or \
            not value.known or value.dtype is None or value.dtype.kind not in "iu":
        return None
    return value.dtype


def _wrapped(node, helper: str, dtype, clip: str = "") -> cst.BaseExpression:
    extra = f", {clip!r}" if clip else ""
    return expr(f"{helper}({{c}}, {np.dtype(dtype).name!r}{extra})", c=node)


def _fits(value, dtype) -> bool:
    """Whether an exact int (a literal, a constant) fits ``dtype`` (nothing to write)."""
    if not value.exact:
        return False
    info = np.iinfo(dtype)
    return info.min <= value.example <= info.max


def _integer_result(site):
    """The integer dtype NumPy computes the site's operation in where its operands are
    integer arrays (or NumPy ints) and Python ints, some of each; None otherwise."""
    if len(site.nodes) != len(site.args) or not any(map(_python_int, site.args)):
        return None
    dtypes = [_int_array_dtype(v) for v in site.args if not _python_int(v)]
    if not dtypes or None in dtypes:
        return None
    return np.result_type(*dtypes)


def arithmetic(site):
    """The site with its Python int operands checked against the integer result's type
    (an arithmetic operator but ``/``, a ufunc, the builtin ``max``/``min``/``divmod``/
    ``pow``, whose NumPy forms convert a Python int to the arrays' type)."""
    if isinstance(site.node, cst.BinaryOperation):
        if type(site.node.operator) is cst.Divide:
            return site
    elif not (isinstance(site.func, np.ufunc) and site.func.__name__ not in _EXACT
              or any(site.func is f for f in _BUILTINS)):
        return site
    result = _integer_result(site)
    if result is None:
        return site
    clip = site.func.__name__ if site.func is max or site.func is min else ""
    nodes = list(site.nodes)
    for k, value in enumerate(site.args):
        if _python_int(value) and not _fits(value, result):
            nodes[k] = _wrapped(nodes[k], INT_OPERAND, result, clip)
    return site if nodes == list(site.nodes) else dataclasses.replace(site, nodes=nodes)


def clipped(site):
    """``np.clip(a, lo, hi)`` of an integer array ``a`` with Python int bounds beyond its
    type: NumPy takes a lower bound below the type (an upper one above it) as no bound and
    raises ``OverflowError`` for a lower bound above it (an upper one below); ``jnp.clip``
    wraps them (``np.clip(x, -1, 5)`` of a uint64 ``x`` was 5 everywhere)."""
    if len(site.nodes) != 3 or len(site.args) != 3 or site.kwargs:
        return site
    dtype = _int_array_dtype(site.args[0])
    if dtype is None:
        return site
    nodes = list(site.nodes)
    for k, clip in ((1, "max"), (2, "min")):
        if _python_int(site.args[k]) and not _fits(site.args[k], dtype):
            nodes[k] = _wrapped(nodes[k], INT_OPERAND, dtype, clip)
    return site if nodes == list(site.nodes) else dataclasses.replace(site, nodes=nodes)


def comparison(site):
    """The site with each Python int operand whose neighbours in the chain are integer
    arrays of one dtype compared exactly (`int_compared`)."""
    if not isinstance(site.node, cst.Comparison) or len(site.nodes) != len(site.args):
        return site
    nodes = list(site.nodes)
    for k, value in enumerate(site.args):
        if not _python_int(value):
            continue
        around = [site.args[j] for j in (k - 1, k + 1) if 0 <= j < len(site.args)]
        neighbours = {_int_array_dtype(v) for v in around if not _python_int(v)}
        if len(neighbours) != 1 or None in neighbours:
            continue
        (dtype,) = neighbours
        if _fits(value, dtype):
            continue
        # a Python int on its other side (`y < -2 ** 40 < 10`) compares with the infinity
        # `int_compared` gives as with the int itself where it lies beyond it
        below = value.exact and value.example < np.iinfo(dtype).min
        if not all(not _python_int(v) or v.exact and value.exact and (
                v.example > value.example if below else v.example < value.example)
                   for v in around):
            from ...errors import Unsupported
            raise Unsupported(
                "a Python int beyond the integer array's type between the array and another "
                "Python int in a comparison chain (`y > -2 ** 40 > -2 ** 50` of an int32 "
                "`y`): the JAX backend compares it with the array as an infinity, which "
                "the other int compares with otherwise", site.original,
                "split the chain: (y > -2 ** 40) and (-2 ** 40 > -2 ** 50)")
        nodes[k] = _wrapped(nodes[k], INT_COMPARED, dtype)
    return site if nodes == list(site.nodes) else dataclasses.replace(site, nodes=nodes)


def _wrapped_rule(rule, before):
    original = rule.rewrite

    def rewrite(site):
        return original(before(site))
    return dataclasses.replace(rule, rewrite=rewrite)


def wrap_operators(reg) -> None:
    """The registry's ``binary`` and ``compare`` operator rules and the call rules of its
    ufuncs and of ``max``/``min``/``divmod``/``pow``, with `arithmetic` and `comparison` in
    front, and ``np.clip``'s with `clipped` (the rules listed in ``all_rules`` replaced in
    place)."""
    replaced = {}
    for key, before in (("binary", arithmetic), ("compare", comparison)):
        rule = reg.operators.get(key)
        if rule is not None:
            new = replaced[id(rule)] = _wrapped_rule(rule, before)
            reg.operators[key] = new
    import jax.numpy as jnp
    for func, rule in reg.call_rules():
        if func is np.clip or func is jnp.clip:
            new = replaced.get(("clip", id(rule)))
            if new is None:
                new = replaced[("clip", id(rule))] = _wrapped_rule(rule, clipped)
            reg.replace_call(func, new)
        elif isinstance(func, np.ufunc) or any(func is f for f in _BUILTINS):
            new = replaced.get(id(rule))
            if new is None:
                new = replaced[id(rule)] = _wrapped_rule(rule, arithmetic)
            reg.replace_call(func, new)
    swaps = {(key[1] if isinstance(key, tuple) else key): new for key, new in replaced.items()}
    reg.relist(swaps)


class _Named(cst.CSTVisitor):
    def __init__(self):
        self.names = set()

    def visit_Name(self, node):
        if node.value in HELPERS:
            self.names.add(node.value)


def imported(func_def: cst.FunctionDef, ctx) -> cst.FunctionDef:
    """The helpers the function's code calls, imported by the generated module."""
    seen = _Named()
    func_def.visit(seen)
    from .bool_products import bool_product, bools_as_floats
    from .signs import wrapping_abs, wrapping_power, wrapping_square
    helpers = {INT_OPERAND: int_operand, INT_COMPARED: int_compared,
               "bool_product": bool_product, "bools_as_floats": bools_as_floats,
               "wrapping_abs": wrapping_abs,
               "wrapping_square": wrapping_square, "wrapping_power": wrapping_power}
    for name in sorted(seen.names):
        ctx.module.runtime_imports.setdefault(name, helpers[name])
    return func_def
