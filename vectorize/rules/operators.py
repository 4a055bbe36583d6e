"""Python's operators on batched values, with Python's semantics where array and scalar differ.

Arithmetic and comparison operators already act lane by lane on arrays exactly as on NumPy
scalars (``//`` and ``%`` follow Python's sign rules in NumPy too), so they stay as written.
What differs is everything that asks for a single truth value: ``and``/``or``/``not``,
chained comparisons and conditional expressions.
"""

from __future__ import annotations

import math

import libcst as cst
import numpy as np

from ..abstract import TupleValue, Value, batched_like, join, narrows_exactly
from ..errors import Unsupported
from ..syntax.edit import paren
from ..syntax.templates import expr
from ..syntax.traversal import walk
from .families import pad, padded_args, real_operands
from .registry import Registry, Rule, Site, broadcast_rank


def binary(site: Site) -> cst.BaseExpression:
    if any(_python_sequence(v) for v in site.args):
        raise Unsupported("arithmetic on a Python list or tuple: Python repeats or "
                          "concatenates it (`[1.0] * 2` is `[1.0, 1.0]`, `[1.0] * True` is "
                          "`[1.0]`) or raises TypeError (`1.0 + [2.0]`), where arrays "
                          "compute item by item", site.original, "pass np.asarray(...) of it",
                          kind="raises")
    if any(v.batched for v in site.args if isinstance(v, (Value, TupleValue))):
        for v in site.args:
            if _opaque_object(v):
                raise Unsupported(
                    f"arithmetic of a `{type(v.example).__name__}` with per-example values: "
                    "NumPy applies its operator item by item into an object array, where "
                    "per example it gives the operator's own result type",
                    site.original, "convert it first, e.g. float(...) of it, outside the "
                    "function")
    narrow_weak_operands(site)
    if type(site.node.operator) in _FLOAT_LITERAL_OPERATORS:
        float_literals(site)
    left, right = padded_args(site)
    left = _bool_squared(site, left)
    function = _python_complex(site)
    if function is not None:
        return expr(function + "({a}, {b})", a=left, b=right)
    power = scalar_power(site, left, right) if type(site.node.operator) is cst.Power else None
    if power is not None:
        return power
    return site.node.with_changes(left=left, right=right)


def scalar_power(site: Site, left, right) -> cst.BaseExpression | None:
    """`vmap`: ``x ** p`` (or ``pow(x, p)``) of a batched float ``x`` and a float exponent
    the same for every example, computed as the operator on one example's scalar computes it:
    where the exponent is 0.5 (a literal, or a value only the run knows) the backend's array
    loop may take a faster path that differs at special values (NumPy: ``np.sqrt``, nan at
    -inf and -0.0 at -0.0, where ``np.float64(-np.inf) ** 0.5`` is inf and
    ``np.float64(-0.0) ** 0.5`` 0.0).
    `vectorize` checks these bases and replays the loop (`rules.python_errors`)."""
    if site.python_semantics or site.types_only:
        return None
    base, exponent = site.args[0], site.args[1]
    if not (isinstance(base, Value) and base.batched and base.known
            and np.dtype(getattr(base.example, "dtype", type(base.example))).kind == "f"
            and isinstance(exponent, Value) and not exponent.batched and exponent.rank == 0):
        return None
    number = exponent.example
    if exponent.exact:
        if isinstance(number, (bool, np.bool_)) or not isinstance(
                number, (float, np.floating)) or number != 0.5:
            return None
    elif exponent.known and np.dtype(getattr(number, "dtype", type(number))).kind not in "f":
        return None         # (an int exponent is never 0.5)
    dtype = getattr(site.result, "dtype", None) if isinstance(site.result, Value) else None
    if dtype is None or dtype.kind != "f":
        return None
    # (a base with a call is written once: the call might not be pure)
    once = any(isinstance(n, cst.Call) for n in walk(left))
    atoms = (cst.Name, cst.Attribute, cst.Subscript, cst.Call, cst.Float, cst.Integer)
    a = left if type(left) in atoms else paren(left)
    b = right if type(right) in atoms else paren(right)
    text = site.spelled.scalar_power("{a}", None if exponent.exact else "{b}", dtype, once)
    return None if text is None else expr(text, a=a, b=b)


_COMPLEX_OPERATORS = {cst.Multiply: "*", cst.Divide: "/", cst.Add: "+", cst.Subtract: "-"}


def _bool_squared(site: Site, left):
    """``x ** 2`` of a bool array is NumPy's ``np.square`` of it, an int8 array, where per
    example ``np.True_ ** 2`` is the int64 power (and ``np.minimum(x ** 2, y)`` of an int32
    ``y`` int32, not int8): the base in the per-example result's int type first."""
    base, exponent = site.args[0], site.args[1]
    dtype = getattr(site.result, "dtype", None) if isinstance(site.result, Value) else None
    if type(site.node.operator) is not cst.Power or not (
            isinstance(base, Value) and base.batched and base.dtype == np.bool_) or not (
            isinstance(exponent, Value) and not exponent.batched and exponent.exact
            and type(exponent.example) is int and exponent.example == 2) or \
            dtype is None or dtype.kind not in "iu":
        return left
    backend = site.spelled
    if type(left) not in (cst.Name, cst.Attribute, cst.Subscript, cst.Call):
        left = paren(left)
    return expr(backend.astype("{a}", backend.dtype_code(dtype)), a=left)


def _python_complex(site: Site) -> str | None:
    """`vectorize`: the backend's function for ``a * b``, ``a / b``, ``a + b`` or ``a - b`` of
    numbers per example of which one is complex (a complex128 result), computed as CPython
    computes it: NumPy's array loops fuse products (``z * z.conjugate()`` has an imaginary
    part of 1e-16 where Python's is 0.0) and divide by a reciprocal (the last bit); PyTorch's
    complex ``+`` and ``-`` multiply the second operand by a complex 1 (an infinite part
    makes a NaN one)."""
    op = _COMPLEX_OPERATORS.get(type(site.node.operator))
    if op is None or not site.python_semantics or site.standalone or site.types_only:
        return None
    values = [v for v in site.args if isinstance(v, Value)]
    if len(values) != 2 or any(v.rank != 0 for v in values) or not any(
            v.kind == "c" for v in values) or not all(
            v.kind in "biufc" for v in values):
        return None
    result = site.result
    if not isinstance(result, Value) or result.dtype != np.complex128:
        return None
    return site.spelled.python_complex(op)


_PLAIN_TYPES = (bool, int, float, complex, str, bytes, type(None), np.generic, np.ndarray)


def _opaque_object(value) -> bool:
    """Whether ``value`` is an object passed as it is (an `excluded` or 0-d object argument,
    a global) that is neither a number, a string nor an array: a `Fraction`, a `Decimal`, an
    instance of the user's class, whose operators NumPy calls item by item. A backend's own
    array (a ``jax.Array`` leaf of a dict passed as it is) is an array, not such an object."""
    if not (isinstance(value, Value) and not value.batched and value.known and not isinstance(
            value.example, _PLAIN_TYPES) and type(value.example) not in (list, tuple)):
        return False
    from .. import backends
    return backends.of_value(value.example) is None


def _literal(node) -> bool:
    if type(node) is cst.UnaryOperation:
        return _literal(node.expression)
    return type(node) in (cst.Integer, cst.Float, cst.Imaginary)


_NARROW = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.complex64))
_PYTHON_OF_KIND = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


# ufuncs whose loops keep a NumPy int's type: a Python int meeting an int8 there is made an
# int8 (NEP 50), and raises OverflowError beyond it (`np.maximum(np.int8(5), 300)`);
# comparisons, `divide`, `hypot`... convert nothing
INT_KEEPING_UFUNCS = frozenset({
    "add", "bitwise_and", "bitwise_left_shift", "bitwise_or", "bitwise_right_shift",
    "bitwise_xor", "divmod", "floor_divide", "fmax", "fmin", "fmod", "gcd", "lcm",
    "left_shift", "maximum", "minimum", "mod", "multiply", "pow", "power", "remainder",
    "right_shift", "subtract"})


def narrow_weak_operands(site: Site, ints: bool | None = None) -> None:
    """`vmap`: an operand that is a Python number per example (``math.sqrt(x)``, a `math`
    result the same for every example) is weak per example (NEP 50): meeting a NumPy
    float16, float32 or complex64 value it takes that type (``np.float32(x) * math.sqrt(2.0)``
    is float32), where the batch's float64 (int64) array of it, or the NumPy scalar the `math`
    call became, would widen the result. Such an operand is converted to the narrow type first,
    as NumPy converts the Python number per example. An operand that is a Python number on
    some examples only (``min(1e300, y)``: `site.weak` None) is refused where that decides
    the type the operation computes in."""
    if not site.weak or not site.spelled.weak_python_numbers:
        return
    if None not in site.weak:
        site.nodes = _narrowed(site, site.weak, ints)
        return
    as_python = _narrowed(site, [w is not False for w in site.weak], ints)
    as_numpy = _narrowed(site, [bool(w) for w in site.weak], ints)
    if all(a is b for a, b in zip(as_python, as_numpy)) or _mixed_narrow_exactly(site):
        # (or: each such operand's NumPy lanes are already of the narrow type it is
        # converted to, so converting the batch's array keeps them and converts the Python
        # floats as NEP 50 does per example)
        site.nodes = as_python
        return
    raise Unsupported(
        "an operand is a Python number on some examples and a NumPy value on others (a "
        "`min`/`max` of both, or a name assigned both on different paths): NEP 50 gives the "
        "Python number the narrower type of the NumPy value it meets here, the NumPy value "
        "keeps its own, so the examples compute in different types", None,
        "give the operand one type on every example (np.float64(...), or float(...), "
        "around it or where it is assigned)")


def _mixed_narrow_exactly(site: Site) -> bool:
    """Whether every operand that is a Python number on some examples only (`site.weak`
    None) is a Python float there and of the narrow float type the other operands have on
    its NumPy lanes (`abstract.narrows_exactly`: ``np.float32(x) - min(y * 1.0, 0.0)`` of
    float32 ``x`` and ``y`` is a float32 on every example)."""
    narrow = {np.dtype(v.dtype) for v, w in zip(site.args, site.weak)
              if w is False and isinstance(v, Value) and v.known and v.kind in "fc"
              and np.dtype(v.dtype) in _NARROW}
    if len(narrow) != 1:
        return False
    (dtype,) = narrow
    return all(narrows_exactly(v, dtype) for v, w in zip(site.args, site.weak) if w is None)


def _narrowed(site: Site, weak, ints: bool | None) -> list:
    """The operand nodes, the Python numbers among them (``weak``) converted to the narrow
    NumPy type they meet (`narrow_weak_operands`)."""
    nodes = list(site.nodes)
    narrow = [np.dtype(v.dtype) for v, w in zip(site.args, weak)
              if not w and isinstance(v, Value) and v.known and v.kind in "fc"
              and np.dtype(v.dtype) in _NARROW]
    if ints is None:
        ints = type(site.node) is cst.BinaryOperation and type(
            site.node.operator) is not cst.Divide
    if not narrow and ints:
        # a Python int meeting a narrow NumPy int (or a uint64) in arithmetic takes its type
        # too (`np.int8(x) + int(y)` is an int8, wrapping as NumPy wraps; a Python int
        # beyond the type raises OverflowError per example, checked before:
        # `passes.python_raises`); comparisons compare the exact values, and `/` of ints
        # converts nothing
        narrow = [np.dtype(v.dtype) for v, w in zip(site.args, weak)
                  if not w and isinstance(v, Value) and v.known and v.kind in "iu"
                  and (np.dtype(v.dtype).itemsize < 8 or v.kind == "u")]
        narrow = narrow[:1] if len({d for d in narrow}) == 1 else []
    if not narrow and not ints:
        return _to_float_loop(site, weak, nodes)
    if not narrow:
        return nodes
    for k, (value, w) in enumerate(zip(site.args, weak)):
        if not w or not isinstance(value, Value) or not value.known or \
                value.kind not in _PYTHON_OF_KIND or value.rank != 0:
            continue
        target = np.result_type(*narrow, _PYTHON_OF_KIND[value.kind](1))
        if target == np.result_type(*narrow, value.dtype) or target.kind not in "fc" and (
                value.kind != "i" or target.kind not in "iu"):
            continue
        if value.batched:
            nodes[k] = expr(site.spelled.astype("{x}", site.spelled.dtype_code(target)),
                            x=nodes[k])
        elif not _literal(nodes[k]):        # (a literal stays a Python number: weak as is)
            nodes[k] = expr(site.spelled.scalar("{x}", target), x=nodes[k])
    return nodes


def _to_float_loop(site: Site, weak, nodes: list) -> list:
    """A Python int (or bool) per example meeting an int8 / uint8 / int16 / uint16 in a
    two-input ufunc whose loop for that type is a float one (``np.hypot``, ``np.arctan2``,
    ``np.logaddexp``...): per example NEP 50 gives the int the NumPy int's type, so the
    ufunc runs its float16 / float32 loop, the int converted straight to that float
    (``np.hypot(int(x), np.uint8(y))`` is a float16; 2**31 becomes inf), where the batch's
    int64 array would make it a float64 one: converted to that float first."""
    func = site.func
    if not isinstance(func, np.ufunc) or func.nin != 2 or func.nout != 1 or \
            func.__name__ == "ldexp":
        return nodes
    narrow = {np.dtype(v.dtype) for v, w in zip(site.args, weak)
              if not w and isinstance(v, Value) and v.known and v.kind in "iu"
              and np.dtype(v.dtype).itemsize < 4}
    if len(narrow) != 1:
        return nodes
    (dtype,) = narrow
    try:
        loop = func.resolve_dtypes((dtype, dtype, None))
    except (TypeError, ValueError, np.exceptions.DTypePromotionError):
        return nodes
    target = loop[0]
    if target.kind not in "fc" or loop[1] != target or target.itemsize >= 8:
        return nodes
    for k, (value, w) in enumerate(zip(site.args, weak)):
        if not w or not isinstance(value, Value) or not value.known or \
                value.kind not in "ib" or value.rank != 0:
            continue
        if value.batched:
            nodes[k] = expr(site.spelled.astype("{x}", site.spelled.dtype_code(target)),
                            x=nodes[k])
        elif not _literal(nodes[k]):
            nodes[k] = expr(site.spelled.scalar("{x}", target), x=nodes[k])
    return nodes


def _python_sequence(value) -> bool:
    """Whether ``value`` is a Python list or tuple as it is (an excluded or shared argument,
    a global), not an array: Python's operators concatenate and repeat those."""
    return type(getattr(value, "example", None)) in (list, tuple) and not getattr(
        value, "batched", False)


def _numpy_scalar_divisor(site: Site) -> cst.BaseExpression:
    """``a / b`` on Python numbers that runs on every lane: ``a / np.float64(b)``."""
    node = site.node
    scalar_of = site.spelled.scalar("{b}", np.dtype(site.func))
    if isinstance(node, cst.Call):          # divmod(a, b), pow(a, b)
        args = list(node.args)
        args[1] = args[1].with_changes(value=expr(scalar_of, b=args[1].value))
        return node.with_changes(args=args)
    scalar = expr(scalar_of, b=node.right if isinstance(
        node, cst.BinaryOperation) else node.value)
    if isinstance(node, cst.BinaryOperation):
        out = node.with_changes(right=scalar)
        result = site.result
        if isinstance(result, Value) and result.kind == "c" and result.rank == 0 and \
                not result.batched:
            # back to a Python complex, as the scalar code has it: a NumPy complex is
            # ordered (`max(z, 1)`, `z < 1` compare), where Python's raises TypeError
            return expr("complex({x})", x=out)
        return out
    return node.with_changes(value=scalar)


def _unary(site: Site) -> cst.BaseExpression:
    return site.node


_ORDERING = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)


def compare(site: Site) -> cst.BaseExpression:
    narrow_weak_operands(site)
    _exact_int_comparands(site)
    float_literals(site)
    operands = padded_args(site)
    node: cst.Comparison = site.node
    if any(isinstance(c.operator, _ORDERING) for c in node.comparisons):
        real_operands(site, "an ordering comparison (`<`, `<=`, `>`, `>=`)")
    if len(node.comparisons) == 1:
        return node.with_changes(left=operands[0],
                                 comparisons=[node.comparisons[0].with_changes(
                                     comparator=operands[1])])
    # a < b < c  ->  (a < b) & (b < c): every link is evaluated on every lane.
    links = [cst.Comparison(left=operands[i], comparisons=[
        node.comparisons[i].with_changes(comparator=operands[i + 1])])
        for i in range(len(node.comparisons))]
    out = links[0]
    for link in links[1:]:
        out = expr("{a} & {b}", a=out, b=link)
    return out


def _exact_int_comparands(site: Site) -> None:
    """`vectorize`: a float the same for every example (a literal, a constant) of 2**53 or
    more in size compared with per-example Python ints held in an int64 (uint64) array
    becomes the int it equals (every such float is an integer): Python compares an int with
    a float exactly (``2**53 + 1 <= 2.0**53`` is false), NumPy would convert the array to
    float64, rounding its ints from 2**53 on. Smaller floats need nothing (the rounding is
    monotone and cannot cross them)."""
    if not site.python_semantics or not any(
            isinstance(v, Value) and v.batched and v.rank == 0 and v.dtype is not None
            and v.kind in "iu" and np.dtype(v.dtype).itemsize >= 8 for v in site.args):
        return
    nodes = list(site.nodes)
    for k, value in enumerate(site.args):
        if not isinstance(value, Value) or value.batched or not value.exact or \
                value.kind != "f" or value.rank != 0:
            continue
        c = value.example
        if not isinstance(c, (float, np.floating)) or not math.isfinite(c) or \
                abs(c) < 2.0 ** 53:
            continue
        n = int(c)
        nodes[k] = cst.Integer(str(n)) if n >= 0 else cst.UnaryOperation(
            cst.Minus(), cst.Integer(str(-n)))
    site.nodes = nodes


_FLOAT_LITERAL_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide)
"""The arithmetic operators whose int literals `float_literals` writes as floats (not ``**``,
``//``, ``%``: NumPy and Python special-case some of their operands)."""


def float_literals(site: Site) -> None:
    """An int literal (``5``, ``-3``) beside a per-example float array is written as the
    float it equals (``x > 5.0``) where the backend asks (`Backend.float_literals`): NumPy
    converts the Python int to the array's float type (NEP 50) as it converts the float, so
    the values and the dtype are the same, and converts a float faster (measured: ``x > 5``
    0.14 µs slower than ``x > 5.0`` on 1e4 float64 lanes, 0.3 on 10; ``2 * x``, ``x + 1``
    alike). Only ints that every float type of the operands holds exactly: no rounding on
    either way (Python compares an int and a float exactly, ``x > 2**53 + 1``). Not in code
    for a file (`Site.keep_literals`): its reader keeps the literals as written."""
    if not site.spelled.float_literals or site.keep_literals:
        return
    floats = [np.dtype(v.dtype) for v in site.args if isinstance(v, Value) and v.batched
              and v.known and v.kind == "f"]
    if not floats or len(floats) != sum(isinstance(v, Value) and v.batched
                                        for v in site.args):
        return
    nodes = list(site.nodes)
    for k, (node, value) in enumerate(zip(nodes, site.args)):
        n = _int_literal(node)
        if n is None or not isinstance(value, Value) or value.batched or \
                type(value.example) is not int or value.example != n or abs(n) > 2 ** 53 or \
                not _held(n, floats):
            continue
        literal = cst.Float(repr(float(abs(n))))
        nodes[k] = literal if n >= 0 else node.with_changes(expression=literal)
    site.nodes = nodes


def _held(n: int, dtypes) -> bool:
    """Whether every float type of ``dtypes`` holds the int ``n`` exactly."""
    with np.errstate(all="ignore"):
        return all(float(dtype.type(n)) == n for dtype in dtypes)


def _int_literal(node) -> int | None:
    """The value of an int literal node (``5``, ``-5``, ``0x10``), else None."""
    negative = type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus
    if negative:
        node = node.expression
    if type(node) is not cst.Integer or node.lpar or node.rpar:
        return None
    value = int(node.evaluated_value)
    return -value if negative else value


def all_bool(site: Site) -> bool:
    return all(isinstance(v, Value) and v.kind == "b" for v in site.args)


def and_(site: Site) -> cst.BaseExpression:
    a, b = padded_args(site)
    if all_bool(site):
        return expr("{a} & {b}", a=a, b=b)
    _refuse_wrapping(site, *site.args)
    # Python: `a and b` is a when a is falsy, else b.
    return expr(site.spelled.where(_truth(site, "{a}"), "{b}", "{a}"), a=a, b=b)


def or_(site: Site) -> cst.BaseExpression:
    a, b = padded_args(site)
    if all_bool(site):
        return expr("{a} | {b}", a=a, b=b)
    _refuse_wrapping(site, *site.args)
    return expr(site.spelled.where(_truth(site, "{a}"), "{a}", "{b}"), a=a, b=b)


def _truth(site: Site, a: str) -> str:
    return site.spelled.truth(a, site.args[0].kind)


def _not(site: Site) -> cst.BaseExpression:
    (a,) = site.nodes
    # `~` only where the operand is surely a boolean array (computed here from batched
    # values): a variable may still hold a Python bool (a loop carry's first value), and
    # ~False is -1
    if all_bool(site) and not isinstance(a, cst.Name):
        return expr("~{a}", a=a)
    return expr(site.spelled.logical_not("{a}"), a=a)


def ifexp(site: Site) -> cst.BaseExpression:
    test, body, orelse = site.nodes
    tv, bv, ov = site.args
    if not tv.batched:
        return site.node
    counted = _counter_step(test, tv, body, bv, orelse, ov)
    if counted is not None:
        return counted
    chosen = _truth_choice(test, tv, body, bv, orelse, ov)
    if chosen is not None:
        return chosen
    _refuse_wrapping(site, bv, ov)
    return where(test, tv, body, bv, orelse, ov, site.spelled,
                 blend=not (site.in_loop or site.standalone))


def _counter_step(test, tv, body, bv, orelse, ov):
    """``n + 1 if active else n`` on integers: ``n + active`` (a bool counts as 0 or 1; one
    operation instead of two). Not on floats: ``-0.0 + False`` is ``0.0``."""
    if not (type(body) is cst.BinaryOperation and type(body.operator) in (cst.Add, cst.Subtract)
            and type(body.right) is cst.Integer and body.right.value == "1"
            and isinstance(orelse, cst.Name) and isinstance(body.left, cst.Name)
            and body.left.value == orelse.value):
        return None
    values = (tv, bv, ov)
    if not all(isinstance(v, Value) and v.rank == 0 for v in values) or tv.kind != "b" \
            or not (bv.kind in "iu" and ov.kind in "iu" and bv.dtype == ov.dtype):
        return None
    return body.with_changes(right=test if isinstance(test, cst.Name) else paren(test),
                             lpar=[], rpar=[])


def _truth_choice(test, tv, body, bv, orelse, ov):
    """A choice between truths one of which is a constant: ``True if c else b`` is
    ``c | b``, ``False if c else b`` is ``~c & b``, ``a if c else True`` is ``a | ~c``,
    ``a if c else False`` is ``c & a`` (a merge of an early return's flags: one or two
    operations on truths, each much cheaper than a choice)."""
    values = (tv, bv, ov)
    if not all(isinstance(v, Value) and v.rank == 0 and v.kind == "b" for v in values) \
            or not tv.batched:
        return None
    constant = [v.exact and not v.batched and isinstance(v.example, (bool, np.bool_))
                for v in (bv, ov)]
    if constant[0] == constant[1]:
        return None
    c = _operand(test)
    if constant[0]:
        other = _operand(orelse)
        if bv.example:
            return cst.BinaryOperation(c, cst.BitOr(), other)
        return cst.BinaryOperation(cst.UnaryOperation(cst.BitInvert(), c), cst.BitAnd(),
                                   other)
    other = _operand(body)
    if ov.example:
        return cst.BinaryOperation(other, cst.BitOr(),
                                   cst.UnaryOperation(cst.BitInvert(), c))
    return cst.BinaryOperation(c, cst.BitAnd(), other)


def _operand(node):
    return node if type(node) is cst.Name else paren(node)


def _strong_dtype(value):
    """The dtype of a number that is no Python number per example (a NumPy scalar, an
    array's item), else None."""
    if not isinstance(value, Value) or value.dtype is None or value.dtype.kind not in "biufc" \
            or type(value.example) in (bool, int, float, complex):
        return None
    return value.dtype


def _sequence_operands(backend, texts, values):
    """The operands of a backend's `where` where one is a constant tuple or list of numbers
    (a module's table chosen per example) and the backend's `where` takes arrays only: the
    table as the backend's array; tables of different lengths are refused (each example's
    is its own length, which one batch cannot hold)."""
    examples = [getattr(v, "example", None) if isinstance(v, Value) and not v.batched
                else None for v in values]
    if backend.sequence_operands or not any(isinstance(e, (tuple, list)) for e in examples):
        return texts
    from ..errors import Unsupported
    shapes = {np.shape(e) for e in examples if isinstance(e, (tuple, list))}
    if len(shapes) > 1:
        raise Unsupported(f"a per-example choice between tables of different lengths (the "
                          f"{backend.name} backend holds one length per batch)",
                          suggestion="pad the tables to one length, or use "
                                     "backend=\"numpy\"")
    out = []
    for text, example in zip(texts, examples):
        if isinstance(example, (tuple, list)):
            dtype = np.asarray(example).dtype
            if dtype.kind not in "biufc":
                raise Unsupported("a per-example choice between tables of other things "
                                  "than numbers", suggestion="choose a number per example")
            text = backend.constant_array(text, dtype)
        out.append(text)
    return tuple(out)


def where(test, tv, body, bv, orelse, ov, backend, blend=False) -> cst.BaseExpression:
    """``np.where`` (the backend's) of one value or, item by item, of tuples; with ``blend``,
    the backend's `blend` where it has one and the values are two per-example numbers of one
    dtype (`_blendable`)."""
    if isinstance(bv, TupleValue) and isinstance(ov, TupleValue):
        if len(bv.items) != len(ov.items):
            from ..errors import Unsupported
            raise Unsupported("a conditional choice between tuples of different lengths",
                              suggestion="return tuples of the same length on every path")
        if bv.keys != ov.keys or bv.kind is not ov.kind:
            from ..errors import Unsupported
            raise Unsupported("a conditional choice between containers of different kinds or "
                              "keys", suggestion="return the same structure on every path")
        items = [where(test, tv, _item(body, k, bv), xv, _item(orelse, k, ov), yv, backend,
                       blend)
                 for k, (xv, yv) in enumerate(zip(bv.items, ov.items))]
        return _container(bv, items, body)
    for value in (bv, ov):
        dtype = value.dtype if isinstance(value, Value) else None
        if dtype is not None and dtype.kind in "US" and not backend.supports_dtype(dtype):
            from ..errors import Unsupported
            raise Unsupported(f"a per-example choice between strings: the {backend.name} "
                              "backend has no arrays of strings",
                              suggestion="choose a number per example (a code) and map it "
                                         "to its string outside the function, or use "
                                         "backend=\"numpy\"")
    rank = broadcast_rank([tv, bv, ov])
    if rank and any(isinstance(v, Value) and v.batched and not v.known for v in (bv, ov)):
        # a per-example value whose shape the engine cannot tell (joined from a branch
        # whose call it cannot evaluate: `torch.tanh(c)` of a Python float) beside an
        # array: padding it as a scalar would add an axis to an array (a wrong shape)
        from ..errors import Unsupported
        raise Unsupported("cannot tell the per-example shape of one side of a per-example "
                          "choice (its value comes from a call the engine cannot look into)",
                          suggestion="give it a known type, e.g. float(...) or "
                                     "torch.as_tensor(...)/np.asarray(...)")
    a, b = "{a}", "{b}"
    a, b = _sequence_operands(backend, (a, b), (bv, ov))
    da, db = _strong_dtype(bv), _strong_dtype(ov)
    if da is not None and db is not None and da != db:
        a, b = backend.joined(a, b, da, db)
    spelled = backend.where(backend.truth("{c}", tv.kind), a, b)
    if blend and _blendable(tv, bv, ov):
        spelled = backend.blend(backend.truth("{c}", tv.kind), a, b) or spelled
    return expr(spelled, c=pad(test, tv, rank), a=pad(body, bv, rank),
                b=pad(orelse, ov, rank))


def _refuse_wrapping(site: Site, a, b) -> None:
    """`refuse_wrapping_constant` both ways, item by item of tuples (not for the code
    `vectorize` makes only to learn numpy.vectorize's output types: `Site.types_only`)."""
    if site.types_only:
        return
    if isinstance(a, TupleValue) and isinstance(b, TupleValue):
        for x, y in zip(a.items, b.items):
            _refuse_wrapping(site, x, y)
        return
    refuse_wrapping_constant(a, b)
    refuse_wrapping_constant(b, a)


def refuse_wrapping_constant(constant, other) -> None:
    """Refuse a merge of a number the same for every example (a Python int or float) with
    per-example numbers of a fixed-width dtype that cannot hold it: the array library
    takes the number as of that dtype (NEP 50's weak scalars) and ``np.where`` wraps it
    without a word (``x if x > y else 300`` on int8: 44; ``2**63`` beside int64), where
    per example the branch gives the number itself."""
    if not (isinstance(constant, Value) and isinstance(other, Value)) or constant.batched \
            or not other.batched or other.dtype is None:
        return
    number, dtype = constant.example, other.dtype
    if type(number) is int and dtype.kind in "iu":
        info = np.iinfo(dtype)
        wraps = not info.min <= number <= info.max
    elif type(number) in (int, float) and dtype.kind in "fc":
        info = np.finfo(dtype)
        wraps = np.isfinite(number) and abs(number) > info.max
        if not wraps and type(number) is float and number != 0 and np.isfinite(number) \
                and abs(number) < info.smallest_normal:
            # (below the dtype's normal numbers: `1e-300` is float16's 0.0, a subnormal
            # keeps a few bits: more than the dtype's rounding away from the number)
            with np.errstate(all="ignore"):
                held = float(np.asarray(number, dtype=dtype).real)
            wraps = abs(held - number) > float(info.eps) * abs(number)
    else:
        return
    if wraps:
        raise Unsupported(
            f"a per-example choice between {dtype} values and the number {number!r}, "
            f"which {dtype} cannot hold: the merge would make it a {dtype} (wrapped, "
            "infinite or flushed to zero), where per example that branch gives the number "
            "itself",
            suggestion=f"convert the {dtype} side to a type that holds {number!r} first "
                       "(int(...), float(...), or an array of a wider dtype)")


def _blendable(tv, bv, ov) -> bool:
    """Whether a merge chooses between two per-example numbers of one fixed-width dtype
    under a per-example test: the backend's `blend` may compute it (NumPy's
    `merge.blend`: without a branch per lane, where the mask is in no order)."""
    values = (tv, bv, ov)
    if not all(type(v) is Value and v.rank == 0 and v.dtype is not None for v in values):
        return False
    # (one side may be a number: `blend` takes it where `np.where` keeps the other's dtype)
    return tv.batched and tv.dtype == np.bool_ and (bv.batched or ov.batched) and \
        all(v.dtype.kind in "biuf" and v.dtype.itemsize <= 8 for v in (bv, ov)) and \
        (bv.dtype == ov.dtype or not (bv.batched and ov.batched))


def _item(node, k: int, value=None) -> cst.BaseExpression:
    """Item ``k`` of a tuple (or list, dict, namedtuple: a pytree): the element of a
    display, else ``node[k]`` (``node[key]`` of a dict)."""
    kind = getattr(value, "kind", None)
    if kind is not None and issubclass(kind, dict):
        if isinstance(node, cst.Dict):       # a display: the value written for the key
            import ast
            for element in node.elements:
                try:
                    key = ast.literal_eval(cst.Module([]).code_for_node(element.key))
                except (AttributeError, ValueError, SyntaxError):
                    break
                if type(key) is type(value.keys[k]) and key == value.keys[k]:
                    return element.value
        return expr("{t}[" + repr(value.keys[k]) + "]", t=node)
    if _constructed(node, value):
        return node.args[k].value
    if isinstance(node, (cst.Tuple, cst.List)) and not any(
            isinstance(e, cst.StarredElement) for e in node.elements):
        return node.elements[k].value
    return expr("{t}[" + str(k) + "]", t=node)


def _container(value, items, like) -> cst.BaseExpression:
    """The container ``value`` describes (a tuple, list, dict or namedtuple) of ``items``;
    a namedtuple made by the type of ``like``, an expression of one."""
    kind = value.kind
    elements = [cst.Element(i) for i in items]
    if kind is None:
        return cst.Tuple(elements)
    if kind is list:
        return cst.List(elements)
    if issubclass(kind, dict):
        if not all(type(key) in (str, int) for key in value.keys):
            from ..errors import Unsupported
            raise Unsupported("a conditional choice between dicts with keys that are not "
                              "strings or ints", suggestion="use string keys")
        pairs = [cst.DictElement(expr(repr(key)), item)
                 for key, item in zip(value.keys, items)]
        made = cst.Dict(pairs)
        return made if kind is dict else expr("type({t})({d})", t=like, d=made)
    maker = like.func if _constructed(like, value) else expr("type({t})", t=like)
    return cst.Call(maker, args=[cst.Arg(i) for i in items])


def _constructed(node, value) -> bool:
    """Whether ``node`` is a call of a namedtuple class with one positional argument per
    field (``Point(x, y)``), as ``value`` describes it."""
    kind = getattr(value, "kind", None)
    return (isinstance(node, cst.Call) and kind is not None and hasattr(kind, "_fields")
            and len(node.args) == len(value.items)
            and all(a.keyword is None and not a.star for a in node.args))


def _ifexp_infer(site: Site):
    tv, bv, ov = site.args
    return join(bv, ov, force_batched=tv.batched)


def _not_infer(site: Site):
    return batched_like(True)


def register(reg: Registry) -> None:
    reg.add_operator("binary", Rule(
        "operator.arithmetic", "operators",
        "Arithmetic, bitwise and comparison operators act lane by lane on arrays exactly as on "
        "NumPy scalars (`//` and `%` keep Python's sign rules), so they stay as written; "
        "operands of lower per-example rank get new axes after the batch axis.",
        "y = t * b - x // 3", "y = t * b - x // 3", binary, may_warn=True))
    reg.add_operator("python_number_division", Rule(
        "operator.python_number_division", "operators",
        "`/`, `//`, `%`, `**`, `divmod` or `pow` of Python numbers the same for every example, "
        "in code that runs "
        "on every lane (a branch of a per-example `if`, a masked loop, a helper): the divisor "
        "becomes a NumPy scalar, so a lane whose scalar code never gets there cannot raise "
        "ZeroDivisionError (NumPy's inf/nan instead, as for per-example values).",
        "if x > 0:\n    y = x + a / b", "y = merge.blend(x > 0, x + a / np.float64(b), x)",
        _numpy_scalar_divisor, may_warn=True))
    reg.add_operator("unary", Rule(
        "operator.unary", "operators", "`-x`, `+x` and `~x` act lane by lane.",
        "y = -x", "y = -x", _unary))
    reg.add_operator("compare", Rule(
        "operator.compare", "operators",
        "A comparison acts lane by lane; a chained comparison `a < b < c` becomes "
        "`(a < b) & (b < c)`.",
        "ok = 0 < x <= 1", "ok = (0 < x) & (x <= 1)", compare))
    reg.add_operator("and", Rule(
        "operator.and", "boolean",
        "`a and b` on booleans is `a & b`; on other values it keeps Python's value semantics "
        "(a when a is falsy, else b).",
        "ok = x > 0 and y > 0", "ok = (x > 0) & (y > 0)", and_))
    reg.add_operator("or", Rule(
        "operator.or", "boolean",
        "`a or b` on booleans is `a | b`; on other values it is a when a is truthy, else b.",
        "v = x or default", "v = np.where(x, x, default)", or_))
    reg.add_operator("not", Rule(
        "operator.not", "boolean",
        "`not a` is `~a` on booleans and `np.logical_not(a)` on other values.",
        "ok = not (x > 0)", "ok = ~(x > 0)", _not, infer=_not_infer))
    reg.add_operator("ifexp", Rule(
        "operator.conditional_expression", "control flow",
        "`a if cond else b` with a batched condition chooses lane by lane: `np.where(cond, a, b)`"
        " (tuples item by item).",
        "y = t * b if t > 5 else -t", "y = merge.blend(t > 5, t * b, -t)", ifexp,
        infer=_ifexp_infer))
