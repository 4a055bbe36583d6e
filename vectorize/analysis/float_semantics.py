"""How operations compute on the examples, and where Python numbers must follow NumPy.

The analysis learns dtypes and shapes by running each operation on the examples
(`evaluate`, `evaluate_inexact`; a `math` function that raises is asked of its NumPy twin,
`numpy_math`). Code that runs on every lane, also where the scalar code would skip it (both
branches of a per-example ``if``, a masked loop's body), must not raise on Python numbers where
per example it never runs: such divisions and powers compute on NumPy scalars
(`numpy_scalar_for`). `may_warn` says which code can emit floating-point warnings on lanes
that are thrown away (the passes silence those).
"""

from __future__ import annotations

import math
import operator as _op

import libcst as cst
import numpy as np

from ..abstract import UNKNOWN, Value, all_exact
from ..rules.registry import Registry
from ..syntax.edit import AUGMENTED_TO_BINARY
from ..syntax.traversal import walk

BINARY_FUNCS = {cst.Add: _op.add, cst.Subtract: _op.sub, cst.Multiply: _op.mul,
                cst.Divide: _op.truediv, cst.FloorDivide: _op.floordiv, cst.Modulo: _op.mod,
                cst.Power: _op.pow, cst.BitAnd: _op.and_, cst.BitOr: _op.or_,
                cst.BitXor: _op.xor, cst.LeftShift: _op.lshift, cst.RightShift: _op.rshift,
                cst.MatrixMultiply: _op.matmul}


COMPARE_FUNCS = {cst.LessThan: _op.lt, cst.LessThanEqual: _op.le, cst.GreaterThan: _op.gt,
                 cst.GreaterThanEqual: _op.ge, cst.Equal: _op.eq, cst.NotEqual: _op.ne,
                 cst.Is: _op.is_, cst.IsNot: _op.is_not}


UNARY_FUNCS = {cst.Minus: _op.neg, cst.Plus: _op.pos, cst.BitInvert: _op.invert,
               cst.Not: _op.not_}


def evaluate(fn, *args, **kwargs):
    """``fn`` of the examples, UNKNOWN where one is unknown or ``fn`` raises: `evaluate`
    without entering ``np.errstate`` again (the analysis runs under one, `Analysis.analyze`)."""
    if any(a is UNKNOWN for a in args) or any(v is UNKNOWN for v in kwargs.values()):
        return UNKNOWN
    try:
        return fn(*args, **kwargs)
    except Exception:
        return UNKNOWN


def made_once(memo: dict, fn, *args, **kwargs):
    """`evaluate` of a class (or a class method) on constants, an object made from them
    (`Ellipsoid.from_name("wgs84")`): made once per ``memo`` (one per generated module,
    `transform.ModuleContext.constructed`, which the passes and every analysis of it share),
    so a constructor's side effects run once when the function is specialized, not once per
    pass or analysis that wants to know the object's attributes."""
    try:
        key = (fn, tuple((type(a), a) for a in args),
               tuple((k, type(v), v) for k, v in sorted(kwargs.items())))
        hash(key)
    except TypeError:       # (an unhashable argument: made as it is)
        return evaluate(fn, *args, **kwargs)
    if key not in memo:
        memo[key] = evaluate(fn, *args, **kwargs)
    return memo[key]


HUGE_INT_BITS = 2 ** 22


def huge_int_power(base, exponent) -> bool:
    """Whether ``base ** exponent`` of Python ints has more than `HUGE_INT_BITS` bits
    (``40 ** int(1e300)``: Python would compute it for ever, the analysis with it)."""
    if type(base) not in (int, bool) or type(exponent) not in (int, bool) or exponent <= 0:
        return False
    size = abs(int(base))
    return size > 1 and exponent * math.log2(size) > HUGE_INT_BITS


_OTHER_EXAMPLES = (0.5, 2.0, 100.0, -0.5)


"""Other values tried for a number known only by its type when an operation on the one that
represents it raises (``1.0 / math.fmod(y, y)`` with y represented by 1.0): the type and shape
of the result are what the analysis needs, not its value."""


def evaluate_inexact(fn, *values):
    """``fn`` of the values' examples; where it raises and some value is not exactly known,
    of other representatives of those (`_OTHER_EXAMPLES`, same type), else UNKNOWN."""
    examples = [v.example for v in values]
    out = evaluate(fn, *examples)
    if out is not UNKNOWN or all_exact(*values):
        return out
    # a bool too (`n % (not a)` with a represented by 1: `not a` is False, the modulo of
    # every other example is an int): bool(0.5) is True
    movable = [i for i, v in enumerate(values) if not v.exact
               and type(v.example) in (float, int, bool, np.float64, np.float32, np.int64,
                                       np.bool_)]
    for other in _OTHER_EXAMPLES:
        tried = [type(e)(other) if i in movable else e for i, e in enumerate(examples)]
        out = evaluate(fn, *tried)
        if out is not UNKNOWN:
            return out
    return UNKNOWN


def numpy_math(fn, examples: list):
    """What the NumPy function that a float-valued `math` function becomes gives for
    ``examples`` (a NumPy float), or UNKNOWN."""
    from ..backends.numpy.math_rules import FLOAT_FUNCTIONS
    name = getattr(fn, "__name__", "")
    if name in FLOAT_FUNCTIONS and name not in ("frexp", "modf"):
        out = evaluate(getattr(np, FLOAT_FUNCTIONS[name]), *examples)
    elif name == "log" and len(examples) in (1, 2):
        out = evaluate(lambda a, b=np.e: np.log(a) / np.log(b), *examples)
    elif name == "pow" and len(examples) == 2:
        out = evaluate(lambda a, b: np.power(np.float64(a), b), *examples)
    else:
        return UNKNOWN
    return np.float64(out) if isinstance(out, (float, np.floating)) else UNKNOWN


_RAISING_OPS = (cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power, cst.DivideAssign,
                cst.FloorDivideAssign, cst.ModuloAssign, cst.PowerAssign)


def numpy_scalar_for(operator, left: Value, right: Value):
    """The NumPy scalar type that makes an operation on Python numbers follow NumPy (an
    IEEE value and a warning instead of ZeroDivisionError / OverflowError), or None when the
    operation cannot raise: not a division or power, NumPy operands already, or exact
    operands that do not raise."""
    if type(operator) not in _RAISING_OPS:
        return None
    examples = (getattr(left, "example", None), getattr(right, "example", None))
    if not all(type(e) in (int, float, bool, complex)
               or isinstance(e, (np.number, np.bool_)) for e in examples):
        return None
    if all_exact(left, right):
        if not all(type(e) in (int, float, bool, complex) for e in examples):
            return None     # NumPy scalars known exactly: NumPy semantics already
        try:
            BINARY_FUNCS[AUGMENTED_TO_BINARY.get(type(operator), type(operator))](*examples)
            return None
        except (ArithmeticError, ValueError):
            pass
    divisor = examples[1] if getattr(right, "exact", False) else None
    if type(operator) not in (cst.Power, cst.PowerAssign) and isinstance(
            divisor, (int, float, np.integer, np.floating)) and divisor != 0:
        return None         # a literal divisor that is not zero: nothing raises (`d / 4`)
    integers = all(isinstance(e, (int, np.integer, np.bool_)) for e in examples)
    if integers and isinstance(operator, (cst.Power, cst.PowerAssign)):
        return None     # int ** negative int: NumPy raises where Python gives a float
    # a value the same for every example whose example is a NumPy scalar may still be a
    # Python number at run time (`y if c else -0.0` joins both): it is wrapped too, in its
    # own type
    if isinstance(examples[1], np.number):
        return type(examples[1])
    if isinstance(examples[0], np.inexact):
        # `d ** 2` of a shared float32: the exponent in d's own type keeps the result float32
        return type(examples[0])
    if any(type(e) is complex or isinstance(e, np.complexfloating) for e in examples):
        return np.complex128
    if not integers:
        return np.float64
    return np.int64


# --------------------------------------------------------------------------------------------
# Which code can emit floating-point warnings on some lane (for silencing dead lanes).

# `@` sums products: inf * 0 and inf - inf warn as `*` and `-` do (`np.matmul` and BLAS)
_FLOAT_RISKY_OPS = (cst.Add, cst.Subtract, cst.Multiply, cst.MatrixMultiply)


_RISKY_OPS = (cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power) + _FLOAT_RISKY_OPS


_RISKY_OP_TYPES = frozenset(_RISKY_OPS)


def may_warn(parts, analysis, registry: Registry) -> bool:
    """Whether evaluating ``parts`` on every lane can emit a floating-point warning."""
    if registry.backend.quiet is None:
        return False        # a namespace that never warns (PyTorch)
    for part in parts:
        for n in walk(part):
            if type(n) is cst.AugAssign:
                if n in analysis.numpy_scalar_ops:
                    return True
                operator = AUGMENTED_TO_BINARY.get(type(n.operator))
                if operator is not None and issubclass(operator, _RISKY_OPS) and \
                        _risky_division(cst.BinaryOperation(n.target, operator(), n.value),
                                        analysis):
                    return True
            if type(n) is cst.BinaryOperation:
                if type(n.operator) in _RISKY_OP_TYPES and _risky_division(n, analysis):
                    return True
            elif type(n) is cst.Call:
                if n in analysis.helper_calls or n in analysis.fallback_calls \
                        or n in analysis.numpy_scalar_ops:
                    return True
                method = analysis.method_calls.get(n)
                if method is not None and method.may_warn:
                    return True
                if n in analysis.math_in_branches:
                    fn = getattr(analysis.values.get(n.func), "example", None)
                    rule = registry.for_call(fn) if fn is not None else None
                    if rule is not None and rule.may_warn:
                        return True
                fn = getattr(analysis.values.get(n.func), "example", None)
                rule = registry.for_call(fn) if fn is not None else None
                if rule is not None and rule.may_warn and any(
                        getattr(analysis.values.get(a.value), "batched", False)
                        for a in n.args):
                    return True
    return False


def _risky_division(node: cst.BinaryOperation, analysis) -> bool:
    """Whether an operator can warn on some lane. Float (and complex) arithmetic can
    (overflow, inf - inf, a negative base to a fractional power); ``/``, ``//`` and ``%`` on
    integers can with a batched divisor or a zero constant. Integer arrays never warn on
    overflow."""
    left = analysis.values.get(node.left)
    right = analysis.values.get(node.right)
    if not (getattr(left, "batched", False) or getattr(right, "batched", False)):
        # the same for every example: NumPy scalars (also those made for Python numbers by
        # `numpy_scalar_ops`) warn where the value is not known
        if node in analysis.numpy_scalar_ops:
            return True
        if all_exact(left, right) or not all(isinstance(v, Value) for v in (left, right)):
            return False
        kinds = [v.kind for v in (left, right) if isinstance(v.example, np.generic)]
        if not kinds:
            return False
        if any(k in "fc?" for k in kinds) or isinstance(node.operator, cst.Power):
            return True
        example = right.example if right.exact else None
        return not isinstance(node.operator, _FLOAT_RISKY_OPS) and (
            not isinstance(example, (int, float, np.number)) or example == 0)
    if any(getattr(v, "kind", "?") in "fc?" for v in (left, right)
           if getattr(v, "batched", False)):
        return True
    if isinstance(node.operator, _FLOAT_RISKY_OPS):
        return False
    if getattr(right, "batched", False):
        return True
    example = getattr(right, "example", None) if getattr(right, "exact", False) else None
    if isinstance(node.operator, cst.Power):
        return not isinstance(example, (int, float)) or example < 0 or (
            isinstance(example, float))
    return not isinstance(example, (int, float)) or example == 0
