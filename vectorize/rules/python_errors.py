"""Where Python raises and NumPy computes on: the one table of the checks `vectorize` makes.

``numpy.vectorize`` hands the function Python numbers, so ``1.0 / x`` at ``x == 0`` raises
``ZeroDivisionError``, ``math.sqrt(-1.0)`` ``ValueError``, ``n ** 4`` an int that does not fit
the output ``OverflowError`` (when numpy.vectorize converts it); NumPy gives ``inf``, ``nan``
or a wrapped int instead. For each such operation on Python numbers this module says under
which condition Python raises, as a scalar-style expression (``"{b} == 0"``) with the
exception and Python's message: `passes.python_raises` writes ``if <condition>: raise ...``
before the statement, and `passes.guard_indices` checks it on the lanes that get there.

A condition may hold on a few more examples than Python raises for (near the int64 limit,
where floats cannot tell; ``(-inf) ** 0.5``): the batch then raises, and `vectorize` runs the
per-example loop, which decides (`vectorize._replay`). It never holds on fewer.
"""

from __future__ import annotations

import math
import sys
from typing import NamedTuple

import libcst as cst
import numpy as np

from ..abstract import Value


class Check(NamedTuple):
    """``if <template with nodes>: raise <exception>(message)``; ``divisor``: a node the
    check is about (it cannot fire where the pass proves the node nonzero)."""

    exception: str
    message: str
    template: str
    nodes: dict
    divisor: cst.BaseExpression | None = None
    # what the check is about, for `passes.python_raises` to prove it cannot fire from the
    # operands' value ranges: ("within", key, lo, hi): it fires where ``nodes[key]`` is
    # outside [lo, hi] (and where it does not, the operand is inside: a range later checks
    # may use); ("result", op, lo, hi): where ``a <op> b`` is outside [lo, hi]
    proof: tuple | None = None


def _message(thunk) -> str:
    try:
        thunk()
    except Exception as exc:    # noqa: BLE001 -- Python's own message, whatever it is
        return str(exc)
    return ""


_ZERO = {
    ("/", "f"): _message(lambda: 1.0 / 0.0), ("/", "i"): _message(lambda: 1 / 0),
    ("//", "f"): _message(lambda: 1.0 // 0.0), ("//", "i"): _message(lambda: 1 // 0),
    ("%", "f"): _message(lambda: 1.0 % 0.0), ("%", "i"): _message(lambda: 1 % 0),
    ("divmod", "f"): _message(lambda: divmod(1.0, 0.0)),
    ("divmod", "i"): _message(lambda: divmod(1, 0)),
    ("/", "c"): _message(lambda: 1j / 0j),
}
_NEGATIVE_POWER = _message(lambda: 0.0 ** -1)
NUMPY_NEGATIVE_POWER = _message(lambda: np.int64(2) ** np.int64(-1))
_FLOAT_RANGE = _message(lambda: 1e200 ** 2)
_INT_TOO_LARGE = _message(lambda: np.asarray(np.array([2 ** 64], dtype=object), dtype=np.int64))
_FRACTIONAL = "negative number cannot be raised to a fractional power"
_DOMAIN = _message(lambda: math.sqrt(-1.0))
_RANGE = _message(lambda: math.exp(1000.0))
_NAN_TO_INT = _message(lambda: int(math.nan))
_INF_TO_INT = _message(lambda: int(math.inf))
_SHIFT = _message(lambda: 1 << -1)

_MAX = sys.float_info.max

VMAP_MESSAGES = {
    _FRACTIONAL: "a negative Python float to a fractional power is a complex number",
    _INT_TOO_LARGE: "a Python int beyond int64",
    "integers to negative integer powers give floats":
        "a Python int to a negative power is a float",
}
"""`vmap`'s message for the checks where Python's numbers give a value NumPy's do not (the
per-example loop then runs and returns it; the JAX backend, which cannot run it, raises)."""


def _last_finite(fn, start: float) -> float:
    """The largest double at which ``fn`` (a `math` function that overflows above some
    point) does not raise, searched from ``start``."""
    x = start
    while True:
        try:
            fn(float(np.nextafter(x, math.inf)))
        except OverflowError:
            break
        x = float(np.nextafter(x, math.inf))
    while True:
        try:
            fn(x)
            return x
        except OverflowError:
            x = float(np.nextafter(x, -math.inf))


_EXP_LIMIT = _last_finite(math.exp, math.log(_MAX))
_EXPM1_LIMIT = _last_finite(math.expm1, math.log(_MAX))
_COSH_LIMIT = _last_finite(math.cosh, math.log(_MAX) + math.log(2.0))
_SINH_LIMIT = _last_finite(math.sinh, math.log(_MAX) + math.log(2.0))


# `v` has a fractional part / is a whole number (an infinity counts as whole; NaN as
# neither), in operations every backend batches (no `math.modf`, which PyTorch lacks); `%` is
# reached only for finite values where the check runs on scalars (`and`/`or` short-circuit):
# `inf % 1` warns (invalid value) on NumPy scalars, where the example does not
_FRACTION = "math.isfinite({v}) and {v} % 1 != 0"
_WHOLE = "(math.isinf({v}) or {v} % 1 == 0)"


def _float(x: float) -> str:
    return repr(float(x))


# --------------------------------------------------------------------------- operators
def _kind(value: Value) -> str:
    """'i' for ints and bools (Python's int arithmetic), 'f', 'c', or '' for anything else
    (arrays, strings: no check)."""
    if not isinstance(value, Value) or value.rank != 0:
        return ""
    kind = value.kind
    return "i" if kind in "biu" else kind if kind in "fc" else ""


def int_limits(result: Value):
    """(lowest, highest) value the result's int dtype holds, or None where the result is not
    an int array the generated code computes in."""
    dtype = result.dtype if isinstance(result, Value) else None
    if dtype is None or dtype.kind not in "iu":
        return None
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def _float_bounds(limits) -> tuple[str, str]:
    """Float bounds safe for a float computation of an int result: inside them the result
    fits; for 64-bit ints they are 4096 inside the limits (a float product or sum of int64
    operands is off by at most a few thousand there)."""
    lo, hi = limits
    margin = 4096 if hi > 2 ** 53 else 0
    return _float(lo + margin if lo < 0 else lo), _float(hi - margin)


def _exact_number(value: Value):
    if isinstance(value, Value) and value.exact and isinstance(
            value.example, (int, float, np.integer, np.floating)) and not isinstance(
            value.example, (bool, np.bool_)):
        return value.example
    return None


def _iroot(limit: int, k: int) -> int:
    """The largest m with m ** k <= limit."""
    if limit >= 1 and k >= limit.bit_length():
        return 1        # (2 ** k > limit: no power of 2 ** 40 computed to learn it)
    m = int(round(limit ** (1.0 / k)))
    while m ** k > limit:
        m -= 1
    while (m + 1) ** k <= limit:
        m += 1
    return m


_BINARY_SYMBOLS = {cst.Divide: "/", cst.FloorDivide: "//", cst.Modulo: "%", cst.Power: "**",
                   cst.Add: "+", cst.Subtract: "-", cst.Multiply: "*", cst.LeftShift: "<<",
                   cst.RightShift: ">>"}
BINARY_SYMBOL = _BINARY_SYMBOLS


def binary_checks(operator: type, a_node, b_node, a: Value, b: Value, result: Value) -> list:
    """The checks of ``a <op> b`` on Python numbers."""
    op = _BINARY_SYMBOLS.get(operator)
    ka, kb = _kind(a), _kind(b)
    if op is None or not ka or not kb:
        return []
    kind = "c" if "c" in (ka, kb) else "f" if "f" in (ka, kb) else "i"
    nodes = {"a": a_node, "b": b_node}
    if op in ("/", "//", "%"):
        return _division(op, kind, nodes, b, result)
    if op == "**":
        return _power(kind, nodes, a, b, result)
    if kind != "i":
        return []
    if op == ">>":
        return [Check("ValueError", _SHIFT, "{b} < 0", nodes)]
    limits = int_limits(result)
    if limits is None:
        # (a result the analysis cannot bound, `int(a) << -2` whose examples NumPy shifts
        # to 0: Python still raises for a negative count)
        return [Check("ValueError", _SHIFT, "{b} < 0", nodes)] if op == "<<" else []
    if op == "<<":
        lo, hi = _float_bounds(limits)
        return [Check("ValueError", _SHIFT, "{b} < 0", nodes),
                Check("OverflowError", _INT_TOO_LARGE,
                      f"not {lo} <= math.ldexp(float({{a}}), {{b}}) <= {hi}", nodes)]
    return _int_arithmetic(op, nodes, a, b, limits)


def _division(op, kind, nodes, b, result) -> list:
    divisor = _exact_number(b)
    checks = []
    if divisor is None or divisor == 0:
        checks.append(Check("ZeroDivisionError", _ZERO.get((op, kind), _ZERO[("/", "f")]),
                            "{b} == 0", nodes, divisor=nodes["b"]))
    limits = int_limits(result) if kind == "i" and op == "//" else None
    if limits is not None and limits[0] < 0 and (divisor is None or divisor == -1):
        checks.append(Check("OverflowError", _INT_TOO_LARGE,
                            f"{{a}} == {limits[0]} and {{b}} == -1", nodes))
    return checks


def divmod_checks(a_node, b_node, a: Value, b: Value, result) -> list:
    ka, kb = _kind(a), _kind(b)
    if not ka or not kb or "c" in (ka, kb):
        return []
    kind = "f" if "f" in (ka, kb) else "i"
    divisor = _exact_number(b)
    if divisor is not None and divisor != 0:
        return []
    return [Check("ZeroDivisionError", _ZERO[("divmod", kind)], "{b} == 0",
                  {"a": a_node, "b": b_node}, divisor=b_node)]


def _pow_overflows(a: str, b: str) -> str:
    """The condition under which ``abs(a) ** b`` of finite Python floats overflows, written
    so that it computes no power (``math.isinf(abs(a) ** b)`` overflows, and NumPy warns,
    exactly on the lanes it catches): ``b * log2|a|`` beyond 1024, as the sum of the
    logarithms of the two magnitudes when their signs agree (lowered by 1e-6, so that the
    logarithms' rounding can only catch more: a false alarm replays numpy.vectorize). The
    guards keep every logarithm's argument positive (no warning on any lane)."""
    return (f"math.isfinite({a}) and math.isfinite({b}) and ({b} > 0) == (abs({a}) > 1) and "
            f"{b} != 0 and abs({a}) != 1 and {a} != 0 and "
            f"math.log2(abs({b}) + ({b} == 0)) + math.log2(abs(math.log2("
            f"abs({a}) + 2 * ({a} == 0))) + (abs({a}) == 1)) > 9.999999")


_NUMPY_NEGATIVE_POWER = "Integers to negative integer powers are not allowed."
_COMPLEX_RANGE = _message(lambda: complex(1e200, 1) ** 2)


def _complex_pow_range(k) -> str:
    """The condition under which a complex power ``{a} ** {b}`` (``k``: the exponent when it
    is a literal) may have an infinite part, or underflow on the way (CPython: ``|a| **
    b.real / exp(arg(a) * b.imag)``, and products of parts each at most the product of
    the magnitudes): its binary logarithm beyond 1020 in magnitude, where ``|arg(a)| <=
    pi``, so ``4.54 * |b.imag|`` bounds that term; a base that is not finite (or NaN) too.
    It holds on more lanes than CPython raises for (a false alarm replays numpy.vectorize:
    the exact answer); it computes no power (no lane warns)."""
    if k is not None and complex(k).imag == 0:
        e = abs(complex(k).real)
        span = 1020.0 / e
        if span > 1020.0:
            return "{a} != 0 and not math.isfinite(abs({a}))"
        lo, hi = 2.0 ** -span, 2.0 ** span
        return f"{{a}} != 0 and not ({_float(lo)} <= abs({{a}}) <= {_float(hi)})"
    return ("{a} != 0 and (not math.isfinite(abs({a})) or not math.isfinite(abs({b})) or "
            "abs(math.log2(min(abs({a}), 1e308) + ({a} == 0)) * "
            "max(min(({b}).real, 1e300), -1e300)) + 4.54 * min(abs(({b}).imag), 1e300) > "
            "1020)")


def _power(kind, nodes, a: Value, b: Value, result) -> list:
    k = _exact_number(b)
    if kind == "c":
        # CPython: 0 to a power that is negative or has an imaginary part; and
        # `OverflowError: complex exponentiation` where a part of the power is infinite
        # (from a finite base too: `complex(1e200, 1) ** 2`; a tiny base to a negative power
        # underflows to 0 first: ZeroDivisionError), which NumPy computes as inf or nan
        if k is not None and complex(k) == 0:
            return []       # (1 for every base)
        overflow = Check("OverflowError", _COMPLEX_RANGE, _complex_pow_range(k), nodes)
        if k is not None and complex(k).imag == 0 and complex(k).real >= 0:
            return [overflow]
        return [Check("ZeroDivisionError", _NEGATIVE_POWER,
                      "{a} == 0 and ({b}.imag != 0 or {b}.real < 0)", nodes), overflow]
    if kind == "i":
        if k is not None and int(k) < 0 and not a.batched and not a.exact:
            # a Python int (or bool) to a negative power is a float, a NumPy int's raises
            # ValueError: numpy.vectorize's first call, on NumPy scalars of the arguments,
            # raises where it gets here (a batched base: NumPy's array power raises
            # itself); the replay decides
            return [Check("ValueError", _NUMPY_NEGATIVE_POWER, "{a} == {a}", nodes)]
        limits = int_limits(result)
        if limits is None:
            return []
        if k is not None:
            k = int(k)
            if k < 2:
                return []   # a negative literal exponent gives a float (NumPy raises)
            m = _iroot(limits[1], k)
            return [Check("OverflowError", _INT_TOO_LARGE, f"not -{m} <= {{a}} <= {m}", nodes,
                          proof=("within", "a", -m, m))]
        lo, hi = _float_bounds(limits)
        return [Check("ValueError", "integers to negative integer powers give floats",
                      "{b} < 0", nodes),
                # |a| beyond the b-th root of the bound, not |a| ** b beyond the bound: that
                # float power overflows (and warns) for the lanes it is meant to catch; the
                # bound is lowered by 1e-6 so that the root's rounding can only catch more
                # (a false alarm replays numpy.vectorize: the exact result)
                Check("OverflowError", _INT_TOO_LARGE,
                      f"abs(float({{a}})) > {_float(float(hi) * (1 - 1e-6))} ** "
                      f"(1.0 / max({{b}}, 1))", nodes)]
    checks = []
    if k is not None:
        k = float(k)
        if math.isinf(k):
            return checks       # a float to an infinite power never raises (0.0 ** -inf: inf)
        if k < 0:
            checks.append(Check("ZeroDivisionError", _NEGATIVE_POWER, "{a} == 0", nodes))
        if k == 0.5:
            # NumPy computes `** 0.5` as a square root, which keeps -0.0 (Python's pow
            # gives 0.0): a sign bit set is checked, so -0.0 replays the loop too
            checks.append(Check("ValueError", _FRACTIONAL, "math.copysign(1.0, {a}) < 0",
                                nodes))
        elif not k.is_integer():
            checks.append(Check("ValueError", _FRACTIONAL, "{a} < 0", nodes))
        narrow = a.dtype if a.kind == "f" and a.dtype.itemsize < 8 else None
        if narrow is not None:
            # a float32 / float16 base is a double of that range per example: only a power
            # that overflows a double from there needs the check
            info = np.finfo(narrow)
            if float(info.max) ** k < _MAX and float(info.smallest_subnormal) ** k < _MAX:
                return checks
        if k > 1:
            bound = _MAX ** (1.0 / k) * (1 - 1e-9)
            checks.append(Check("OverflowError", _FLOAT_RANGE,
                                f"{_float(bound)} < abs({{a}}) < math.inf", nodes))
        elif k < 0:
            bound = _MAX ** (1.0 / k) * (1 + 1e-9)
            checks.append(Check("OverflowError", _FLOAT_RANGE,
                                f"0 < abs({{a}}) < {_float(bound)}", nodes))
        return checks
    # (0.0 ** -inf is inf: an int exponent is never infinite)
    negative = "{b} < 0" if _kind(b) == "i" else "-math.inf < {b} < 0"
    return [Check("ZeroDivisionError", _NEGATIVE_POWER, "{a} == 0 and " + negative, nodes),
            Check("ValueError", _FRACTIONAL, "{a} < 0 and " + _FRACTION.format(v="{b}"), nodes),
            Check("OverflowError", _FLOAT_RANGE, _pow_overflows("{a}", "{b}"), nodes)]


def _int_arithmetic(op, nodes, a: Value, b: Value, limits) -> list:
    lo, hi = limits
    ca, cb = _exact_number(a), _exact_number(b)
    if ca is not None and cb is not None:
        return []
    if cb is not None or (ca is not None and op in ("+", "*")):
        # one operand is a literal: a bound on the other
        other, c = ("a", int(cb)) if cb is not None else ("b", int(ca))
        if op == "+":
            bounds = (lo - c, hi - c)
        elif op == "-":
            bounds = (lo + c, hi + c)
        else:
            if c in (0, 1):
                return []
            # c * x within [lo, hi]: x within [ceil(lo / c), floor(hi / c)] (swapped for c < 0)
            bounds = (-(-lo // c), hi // c) if c > 0 else (-(-hi // c), lo // c)
        return _outside(other, bounds, limits, nodes)
    if ca is not None:                       # c - b
        c = int(ca)
        return _outside("b", (c - hi, c - lo), limits, nodes)
    if op == "-" and lo == 0:
        return [Check("OverflowError", _INT_TOO_LARGE, "{a} < {b}", nodes)]
    flo, fhi = _float_bounds(limits)
    # one comparison of the magnitude where the bounds are symmetric (int64: the float
    # bounds lie 4096 inside both limits)
    template = (f"abs(float({{a}}) {op} float({{b}})) > {fhi}" if float(flo) == -float(fhi)
                else f"not {flo} <= float({{a}}) {op} float({{b}}) <= {fhi}")
    return [Check("OverflowError", _INT_TOO_LARGE, template, nodes,
                  proof=("result", op, lo, hi))]


def _outside(name, bounds, limits, nodes) -> list:
    """``{name}`` outside ``bounds`` (the limits of its own dtype make a side needless)."""
    lo, hi = bounds
    parts = []
    if lo > limits[0]:
        parts.append(f"{{{name}}} < {lo}")
    if hi < limits[1]:
        parts.append(f"{{{name}}} > {hi}")
    if not parts:
        return []
    return [Check("OverflowError", _INT_TOO_LARGE, " or ".join(parts), nodes,
                  proof=("within", name, lo, hi))]


def sum_checks(arg_nodes: list, args: list, result) -> list:
    """``sum([a, b, c])`` (a list or tuple display, a start) of Python ints: Python adds
    them exactly, ((0 + a) + b) + c, and numpy.vectorize cannot store a sum beyond its
    output's int dtype (OverflowError); the batch's int64 additions wrap. Intermediate sums
    may wrap where the total fits (modular addition gives the total), so the check is on the
    total, estimated in floats with a margin of the estimate's error."""
    display = arg_nodes[0]
    if type(display) not in (cst.List, cst.Tuple) or not isinstance(args[0], Value) or \
            args[0].kind not in "biu" or any(type(e) is not cst.Element for e in
                                                display.elements):
        return []
    if len(args) == 2 and _kind(args[1]) != "i":
        return []
    limits = int_limits(result)
    items = [e.value for e in display.elements] + list(arg_nodes[1:])
    if limits is None or not items or all(type(n) is cst.Integer for n in items):
        return []
    lo, hi = limits
    margin = 4096 * (len(items) + 1) if hi > 2 ** 53 else 0
    nodes = {f"a{k}": n for k, n in enumerate(items)}
    total = " + ".join(f"float({{a{k}}})" for k in range(len(items)))
    template = (f"abs({total}) > {_float(hi - margin)}" if lo < 0 and -lo - 1 == hi else
                f"not {_float(lo + margin if lo < 0 else lo)} <= {total} <= "
                f"{_float(hi - margin)}")
    return [Check("OverflowError", _INT_TOO_LARGE, template, nodes)]


def int_prefix_sum_checks(arg_nodes: list, args: list, value_of) -> list:
    """``sum([a, b, 0.5])`` of Python ints before a float: Python adds the ints exactly,
    ((0 + a) + b), and only then the float (the exact int converted); the batch's int64
    additions of the ints wrap where their exact sum leaves int64 (``-5 + -2 ** 63``),
    which the float then carries. The check (that sends the call to the per-example code)
    is on the ints' total, estimated in floats with a margin of the estimate's error.
    ``value_of``: the analysis's value of a node."""
    display = arg_nodes[0]
    if type(display) not in (cst.List, cst.Tuple) or not isinstance(args[0], Value) or \
            args[0].kind in "biu" or any(type(e) is not cst.Element for e in
                                         display.elements):
        return []
    if len(args) == 2 and _kind(args[1]) != "i":
        return []
    prefix = list(arg_nodes[1:])           # (the start comes first: start + a + b...)
    for element in display.elements:
        item = value_of(element.value)
        if not isinstance(item, Value) or _kind(item) != "i" or item.kind not in "iu":
            break
        prefix.append(element.value)
    limits = int_limits(next((value_of(n) for n in prefix), None)) if len(prefix) >= 2 \
        else None
    if limits is None or all(type(n) is cst.Integer for n in prefix):
        return []
    lo, hi = limits
    margin = 4096 * (len(prefix) + 1) if hi > 2 ** 53 else 0
    nodes = {f"a{k}": n for k, n in enumerate(prefix)}
    total = " + ".join(f"float({{a{k}}})" for k in range(len(prefix)))
    template = (f"abs({total}) > {_float(hi - margin)}" if lo < 0 and -lo - 1 == hi else
                f"not {_float(lo + margin if lo < 0 else lo)} <= {total} <= "
                f"{_float(hi - margin)}")
    return [Check("OverflowError", _INT_TOO_LARGE, template, nodes)]


def negation_checks(node, a: Value, result: Value) -> list:
    """``-a`` of a Python int: the lowest int64 has no negation in int64."""
    if _kind(a) != "i" or a.kind == "b" or _exact_number(a) is not None:
        return []       # (`-1`: a literal's negation is known)
    limits = int_limits(result)
    if limits is None:
        return []
    if limits[0] == 0:
        return [Check("OverflowError", _INT_TOO_LARGE, "{a} != 0", {"a": node})]
    return [Check("OverflowError", _INT_TOO_LARGE, f"{{a}} == {limits[0]}", {"a": node})]


# ------------------------------------------------------------------- signed zeros
# the operations (`operator` and NumPy ufunc names) whose float result may be -0.0 where
# the int computation of the same operands gives 0: ``-0``, ``0 * -3``, ``0 // -3``,
# ``3 % -1``, ``divmod(0, -1)``, ``np.fmod(-3, 1)``
_SIGNED_ZERO_OPERATIONS = frozenset({
    "neg", "negative", "mul", "multiply", "floordiv", "floor_divide", "mod", "remainder",
    "fmod", "divmod"})

SIGNED_ZERO_MESSAGE = ("a -0.0 on a lane that is an int per example, where the int gives 0 "
                       "(computed per example)")


def signed_zero_operation(name, operands) -> bool:
    """THE predicate (`vectorize`'s `passes.python_raises` and `vmap`'s analysis,
    `analysis.expressions`, both decide by it): whether the operation ``name`` (an
    `operator` or NumPy ufunc name, ``"divmod"``), computed in float on a lane where each
    example computes it in ints, may give -0.0 where the example's int result is 0 (a
    later ``1 / r`` or ``math.copysign`` tells them apart once the int 0 is stacked as
    0.0). ``operands``: one kind per operand, ``"int"`` (an int on that lane),
    ``"positive"`` (a constant int above zero) or ``"float"`` (a float there: the example
    computes in float too, giving the same -0.0). Not where a factor or the divisor of
    ``//``, ``%``, ``divmod`` is a constant above zero (``r * 3``, ``r // 2``, ``r % 7``:
    +0.0); always for a negation and ``np.fmod`` (the dividend's sign)."""
    if name not in _SIGNED_ZERO_OPERATIONS or "float" in operands:
        return False
    if name in ("neg", "negative", "fmod") or len(operands) != 2:
        return True
    if name in ("mul", "multiply"):
        return "positive" not in operands
    return operands[1] != "positive"


def signed_zero_checks(node) -> list:
    """The run-time check of an operation `signed_zero_operation` says may give -0.0 on an
    int lane: the batch is wrong only on a lane whose result is -0.0, so where some lane's
    is, the per-example code decides (a float lane's own -0.0 replays it too, which gives
    it back). ``node``: the operation (its result a number). The test of zero last: as a
    division's check, it is asked first of every lane in one pass where the result is a
    name (``not merge.all_lanes(r) and ...``: `rules.lanes`), which is false on most calls."""
    return [Check("OverflowError", SIGNED_ZERO_MESSAGE,
                  "math.copysign(1.0, {r}) < 0 and {r} == 0", {"r": node})]


def bool_lane_checks(node, message: str) -> list:
    """THE predicate of a NumPy function that raises TypeError for a Python bool
    (``np.negative``, ``np.sign``) called on a value that is a bool on some lanes and a
    number on others (``r = (a > 1) if c > 0 else a * 0.5``): the batch holds every lane in
    the joined type, where a bool lane is 0 or 1, so where some lane is, the per-example
    code decides (a number lane's own 0 or 1 replays it too, which gives it back). Python's
    operators (``-r``) take a bool for its int and need none."""
    return [Check("TypeError", message, "{r} == 0 or {r} == 1", {"r": node})]


def inversion_checks(node, a: Value) -> list:
    """``~a`` of a Python int or bool is ``-(a + 1)``, negative for every unsigned int and
    -1 / -2 for a bool; NumPy's ``~`` of an unsigned dtype is the complement in that dtype,
    of a bool the logical not: different on every example, so the check holds wherever it
    runs and numpy.vectorize is replayed (Python's values, or its OverflowError storing a
    negative int as unsigned)."""
    if _kind(a) != "i" or a.kind not in "bu" or a.exact:
        return []       # (`~True`: a literal's inversion is known)
    return [Check("OverflowError", _INT_TOO_LARGE, "{a} == {a}", {"a": node})]


# ------------------------------------------------------------------------ calls
_TO_INT = [Check("ValueError", _NAN_TO_INT, "math.isnan({x})", {}),
           Check("OverflowError", _INF_TO_INT, "math.isinf({x})", {}),
           Check("OverflowError", _INT_TOO_LARGE,
                 "not -9.223372036854776e+18 <= {x} < 9.223372036854776e+18", {})]
"""int(x), round(x), math.floor/ceil/trunc(x) of a float: NaN raises ValueError and inf
OverflowError, as Python's; an int beyond int64 does not fit numpy.vectorize's int64 output
(OverflowError). A batch with both NaN and inf raises the NaN's ValueError wherever its examples
are (a backend that cannot replay the loop: JAX's; NumPy's replays it and gives the first
example's)."""


MATH_ERRORS: dict[str, list] = {
    # name -> checks on its arguments {x} (and {y}): `math`'s domain and range errors
    "sqrt": [Check("ValueError", _DOMAIN, "{x} < 0", {})],
    "log": [Check("ValueError", _DOMAIN, "{x} <= 0", {})],
    "log2": [Check("ValueError", _DOMAIN, "{x} <= 0", {})],
    "log10": [Check("ValueError", _DOMAIN, "{x} <= 0", {})],
    "log1p": [Check("ValueError", _DOMAIN, "{x} <= -1", {})],
    "exp": [Check("OverflowError", _RANGE, f"{_float(_EXP_LIMIT)} < float({{x}}) < math.inf",
                   {})],
    "expm1": [Check("OverflowError", _RANGE,
                    f"{_float(_EXPM1_LIMIT)} < float({{x}}) < math.inf", {})],
    "exp2": [Check("OverflowError", _RANGE, "1024.0 <= {x} < math.inf", {})],
    "cosh": [Check("OverflowError", _RANGE,
                   f"{_float(_COSH_LIMIT)} < abs(float({{x}})) < math.inf", {})],
    "sinh": [Check("OverflowError", _RANGE,
                   f"{_float(_SINH_LIMIT)} < abs(float({{x}})) < math.inf", {})],
    "sin": [Check("ValueError", _DOMAIN, "math.isinf({x})", {})],
    "cos": [Check("ValueError", _DOMAIN, "math.isinf({x})", {})],
    "tan": [Check("ValueError", _DOMAIN, "math.isinf({x})", {})],
    "asin": [Check("ValueError", _DOMAIN, "abs(float({x})) > 1", {})],
    "acos": [Check("ValueError", _DOMAIN, "abs(float({x})) > 1", {})],
    "acosh": [Check("ValueError", _DOMAIN, "{x} < 1", {})],
    "atanh": [Check("ValueError", _DOMAIN, "abs(float({x})) >= 1", {})],
    "fmod": [Check("ValueError", _DOMAIN, "({y} == 0 or math.isinf({x})) and not "
                   "math.isnan({x}) and not math.isnan({y})", {})],
    # IEEE remainder: CPython raises exactly where it raises for fmod
    "remainder": [Check("ValueError", _DOMAIN, "({y} == 0 or math.isinf({x})) and not "
                        "math.isnan({x}) and not math.isnan({y})", {})],
    "pow": [Check("ValueError", _DOMAIN, "{x} == 0 and -math.inf < {y} < 0", {}),
            Check("ValueError", _DOMAIN, "{x} < 0 and " + _FRACTION.format(v="{y}"), {}),
            # in floats: of int arguments `abs(x) ** y` is an int power (it wraps, never inf)
            Check("OverflowError", _RANGE, _pow_overflows("float({x})", "float({y})"), {})],
    "ldexp": [Check("OverflowError", _RANGE,
                    "math.isinf(math.ldexp({x}, {y})) and math.isfinite({x})", {})],
    "floor": _TO_INT, "ceil": _TO_INT, "trunc": _TO_INT,
    "gamma": [Check("ValueError", _DOMAIN, "{x} <= 0 and " + _WHOLE.format(v="{x}"), {}),
              Check("OverflowError", _RANGE, "171.62437695630272 < float({x}) < math.inf", {}),
              # CPython: 1 / x for |x| < 1e-20, which overflows below 1 / DBL_MAX
              Check("OverflowError", _RANGE, "0 < abs(float({x})) <= 5.562684646268003e-309",
                    {})],
    "lgamma": [Check("ValueError", _DOMAIN, "{x} <= 0 and " + _WHOLE.format(v="{x}"), {})],
    # results beyond int64 (NumPy's wrap): `gcd` only of the int64 minimum (2**63), `lcm`
    # where |x| * |y| / gcd is (in floats, with a margin: a few more lanes replay); the replay
    # gives numpy.vectorize's answer (an OverflowError storing it, or a uint64 / object
    # array where the first example's result is that large)
    "gcd": [Check("OverflowError", _INT_TOO_LARGE,
                  "{x} == -9223372036854775808 or {y} == -9223372036854775808", {})],
    "lcm": [Check("OverflowError", _INT_TOO_LARGE, "abs(float({x})) * abs(float({y})) > "
                  "9.2e18 * float(math.gcd({x}, {y}))", {})],
}
"""Only float-valued `math` functions whose argument is a Python number (an int is converted
exactly for |x| < 2**53) are checked; `log(x, base)` also checks its base."""


with np.errstate(all="ignore"):
    ARANGE_ZERO_STEP = _message(lambda: np.arange(np.int64(0), np.int64(1), np.int64(0)))
"""NumPy's message for ``np.arange`` of NumPy scalars with a step of 0 (`vmap`'s examples)."""


def arange_checks(arg_nodes: list, args: list) -> list:
    """``np.arange(start, stop, step)`` with a step of 0 raises per example (Python numbers:
    ZeroDivisionError; NumPy scalars: ValueError, which the replay then gives); the batched
    range of a reduction would compute an empty range instead."""
    step = _exact_number(args[2])
    if step is not None and step != 0 or _kind(args[2]) not in ("i", "f"):
        return []
    return [Check("ZeroDivisionError", "division by zero", "{s} == 0",
                  {"s": arg_nodes[2]}, divisor=arg_nodes[2])]


def math_checks(name: str, arg_nodes: list, args: list, numpy_scalar: bool = False) -> list:
    """``numpy_scalar``: the operands are NumPy scalars per example (`vmap`), whose ints
    `math.floor` / `math.ceil` round through their `float()`."""
    checks = MATH_ERRORS.get(name)
    if not checks or any(_kind(v) not in ("i", "f") for v in args):
        return []
    if name in ("floor", "ceil", "trunc") and all(v.kind in "biu" for v in args):
        if len(args) != 1:
            return []
        dtype = args[0].dtype if isinstance(args[0], Value) else None
        if numpy_scalar and dtype is not None and dtype.kind in "iu" and dtype.itemsize == 8:
            # the int as a double: from 2**63 - 512 on that is 2**63, a Python int beyond
            # int64 (the loop's stacking decides: uint64 or object)
            return [Check("OverflowError", _INT_TOO_LARGE, "{x} > 9223372036854775295",
                          {"x": arg_nodes[0]})]
        return uint64_to_int(args[0], arg_nodes[0])
    nodes = dict(zip("xy", arg_nodes))
    if any("{" + p + "}" in c.template and p not in nodes for c in checks for p in "xy"):
        return []
    out = [c._replace(nodes=nodes) for c in checks]
    if name == "log" and len(arg_nodes) == 2:
        out += [Check("ValueError", _DOMAIN, "{y} <= 0", nodes),
                Check("ZeroDivisionError", _ZERO[("/", "f")], "{y} == 1", nodes)]
    return out


def uint64_to_int(value, node) -> list:
    """``int(n)``, ``round(n)``, ``math.floor(n)`` of a uint64 per example: a Python int that
    numpy.vectorize's int64 output cannot hold from 2**63 on (it raises OverflowError, or
    makes an object array where the first example is that large: the replay's answer)."""
    dtype = value.dtype if isinstance(value, Value) else None
    if dtype is None or dtype.kind != "u" or dtype.itemsize < 8:
        return []
    return [Check("OverflowError", _INT_TOO_LARGE, "{x} > 9223372036854775807", {"x": node})]


def numpy_int_checks(dtype, node, value) -> list:
    """``np.int64(x)`` (any NumPy int type) of a Python number per example: NumPy's scalar
    constructor raises as ``int(x)`` does for NaN (ValueError) and beyond the type's range
    (OverflowError: inf, ``np.int64(1e300)``, ``np.int8(300)``), where the batch's
    conversion of an array wraps."""
    kind = _kind(value)
    if kind not in ("f", "i") or not isinstance(value, Value) or not value.batched:
        return []
    info = np.iinfo(dtype)
    lo, hi = int(info.min), int(info.max)
    if kind == "f":
        # int(x) truncates toward zero: in range from lo - 1 (excluded) to hi + 1 (excluded);
        # lo - 1 is no float for 64 bits, where lo itself is the first one in range
        lower = f"{float(lo - 1)!r} < {{x}}" if float(lo - 1) == lo - 1 else \
            f"{float(lo)!r} <= {{x}}"
        return [Check("ValueError", _NAN_TO_INT, "math.isnan({x})", {"x": node}),
                Check("OverflowError", _INT_TOO_LARGE,
                      f"not {lower} < {float(hi + 1)!r}", {"x": node})]
    have = int_limits(value)
    if have is not None and lo <= have[0] and have[1] <= hi:
        return []
    return [Check("OverflowError", _INT_TOO_LARGE, f"not {lo} <= {{x}} <= {hi}",
                  {"x": node})]


def builtin_checks(fn, arg_nodes: list, args: list, result) -> list:
    """``int(x)`` / ``round(x)`` of floats, ``abs`` of ints, ``divmod``, ``pow``."""
    import builtins
    if fn in (builtins.int, builtins.round) and len(args) == 1:
        if _kind(args[0]) == "f":
            return [c._replace(nodes={"x": arg_nodes[0]}) for c in _TO_INT]
        return uint64_to_int(args[0], arg_nodes[0])
    if fn is builtins.round and len(args) == 2 and _kind(args[0]) == "i" and \
            args[0].kind in "iu":
        # `round(n, -k)` of an int rounds to a multiple of 10 ** k, up to half of it away
        # from n: beyond the output's int dtype near its ends (`round(255, -1)` is 260,
        # which numpy.vectorize cannot store in uint8: OverflowError)
        digits, limits = _exact_number(args[1]), int_limits(result)
        if limits is None or digits is not None and digits >= 0 or _kind(args[1]) != "i" \
                or args[1].batched:
            return []
        lo, hi = limits
        if digits is None:
            # (the same for every example, but not known here: ``round(a, n)`` of a shared
            # ``n``, Python's int or a NumPy one. Beyond ``most`` digits every value of the
            # dtype rounds to 0; the half of the power stays within the dtype, as the
            # backends' comparisons need, JAX's too)
            most = max(k for k in range(40) if 10 ** k // 2 <= hi)
            half = f"10 ** min(max(-int({{n}}), 0), {most}) // 2"
            test = f"0 < -int({{n}}) <= {most} and ({{x}} > {hi} - {half}" + (
                f" or {{x}} < {lo} + {half})" if lo < 0 else ")")
            return [Check("OverflowError", _INT_TOO_LARGE, test,
                          {"x": arg_nodes[0], "n": arg_nodes[1]})]
        half = 10 ** int(-digits) // 2
        test = f"{{x}} > {hi - half}" + (f" or {{x}} < {lo + half}" if lo < 0 else "")
        return [Check("OverflowError", _INT_TOO_LARGE, test, {"x": arg_nodes[0]})]
    if fn is builtins.abs and len(args) == 1:
        if _kind(args[0]) == "i" and args[0].kind == "i":
            limits = int_limits(result)
            if limits is not None and limits[0] < 0:
                return [Check("OverflowError", _INT_TOO_LARGE, f"{{a}} == {limits[0]}",
                              {"a": arg_nodes[0]})]
        return []
    if fn is builtins.sum and 1 <= len(args) <= 2:
        return sum_checks(arg_nodes, args, result)
    if fn is builtins.divmod and len(args) == 2:
        return divmod_checks(arg_nodes[0], arg_nodes[1], args[0], args[1], result)
    if fn is builtins.pow and len(args) == 2:
        return binary_checks(cst.Power, arg_nodes[0], arg_nodes[1], args[0], args[1], result)
    return []


_EXACT_MATH: dict[str, list] = {
    # name -> (exception, condition) exactly where `math` raises: what a `try` around the
    # call catches (`passes.try_except`); the checks above may hold a little more often
    "sqrt": [(ValueError, "{x} < 0")],
    "log": [(ValueError, "{x} <= 0")], "log2": [(ValueError, "{x} <= 0")],
    "log10": [(ValueError, "{x} <= 0")], "log1p": [(ValueError, "{x} <= -1")],
    "exp": [(OverflowError, f"{_float(_EXP_LIMIT)} < float({{x}}) < math.inf")],
    "expm1": [(OverflowError, f"{_float(_EXPM1_LIMIT)} < float({{x}}) < math.inf")],
    "exp2": [(OverflowError, "1024.0 <= {x} < math.inf")],
    "cosh": [(OverflowError, f"{_float(_COSH_LIMIT)} < abs(float({{x}})) < math.inf")],
    "sinh": [(OverflowError, f"{_float(_SINH_LIMIT)} < abs(float({{x}})) < math.inf")],
    "sin": [(ValueError, "math.isinf({x})")], "cos": [(ValueError, "math.isinf({x})")],
    "tan": [(ValueError, "math.isinf({x})")],
    "asin": [(ValueError, "abs(float({x})) > 1")],
    "acos": [(ValueError, "abs(float({x})) > 1")],
    "acosh": [(ValueError, "{x} < 1")], "atanh": [(ValueError, "abs(float({x})) >= 1")],
    "fmod": [(ValueError, "({y} == 0 or math.isinf({x})) and not math.isnan({x}) "
                          "and not math.isnan({y})")],
    "remainder": [(ValueError, "({y} == 0 or math.isinf({x})) and not math.isnan({x}) "
                               "and not math.isnan({y})")],
    "pow": [(ValueError, "{x} == 0 and -math.inf < {y} < 0"),
            (ValueError, "{x} < 0 and math.isfinite({x}) and math.isfinite({y}) "
                         "and math.modf({y})[0] != 0"),
            (OverflowError, _pow_overflows("float({x})", "float({y})"))],
    "floor": [(ValueError, "math.isnan({x})"), (OverflowError, "math.isinf({x})")],
    "ceil": [(ValueError, "math.isnan({x})"), (OverflowError, "math.isinf({x})")],
    "trunc": [(ValueError, "math.isnan({x})"), (OverflowError, "math.isinf({x})")],
}


def exact_math_errors(name: str, n_args: int) -> list:
    """(exception class, condition on {x} / {y}) exactly where ``math.<name>`` raises."""
    out = list(_EXACT_MATH.get(name, []))
    if name == "log" and n_args == 2:
        out += [(ValueError, "{y} <= 0"), (ZeroDivisionError, "{y} == 1")]
    return out


def exact_int(value):
    """The int a value is known to be (a literal), or None."""
    number = _exact_number(value)
    if isinstance(number, (int, np.integer)):
        return int(number)
    return None


def affine_check(node, coef: int, const: int, limits) -> Check | None:
    """``coef * {node} + const`` outside the int dtype's ``limits``, as bounds on the node
    (exact: Python's ints computed from numpy.vectorize's operands)."""
    lo, hi = limits
    # coef * v + const within [lo, hi]  <=>  v within [ceil((lo - const) / coef), ...]
    a, b = (lo - const, hi - const) if coef > 0 else (hi - const, lo - const)
    bounds = (-(-a // coef), b // coef)
    checks = _outside("a", bounds, limits, {"a": node})
    return checks[0] if checks else None


# ------------------------------------------------------------------ the check's own rule
RAISE_LANE = "__raise_lane__"
"""The engine's test of a ``raise`` some examples reach, a check of this module's included
(``if __raise_lane__(y == 0): raise ZeroDivisionError(...)``): per example ``bool(failed)``,
on a batch whether any example raises. It batches as ``loop.any_lane`` does; its own name
says in `explain` that the code is a check where Python raises, not a loop's mask."""


def raise_lane(failed) -> bool:
    """Per example: whether this example raises."""
    return bool(failed)


def register(reg, rewrite, infer) -> None:
    """The check's rule, batched by ``rewrite``/``infer`` (``loop.any_lane``'s, which
    `lanes.register` hands in: whether any lane holds)."""
    from .registry import Rule
    reg.add_call(raise_lane, Rule(
        "raise.any_lane", "control flow",
        "A `raise` that some examples reach, the user's own or a check where Python raises "
        "and NumPy computes on (a zero divisor, a `math` domain error, an int that does not "
        "fit), raises for the batch if any live example reaches it.",
        "if x < 0:\n    raise ValueError(\"negative\")\ny = 1.0 / x",
        "if np.any(x < 0):\n    raise ValueError(\"negative\")\nif not merge.all_lanes(x):\n"
        "    raise ZeroDivisionError(\"float division by zero\")\ny = 1.0 / x",
        rewrite, infer=infer))


# ------------------------------------------------- what a call raises on per-example numbers
# The exceptions a function raises when every argument is a number per example (a Python
# number or a NumPy scalar, never an array): `passes.try_except` asks it for a call inside a
# `try`, and for the calls in a helper's body (what the helper may raise). Empty: nothing.
_RAISE_NOTHING_ON_NUMBERS = frozenset({
    # NumPy's converters: a number becomes a 0-d (or 1-element) array; no failure
    "asarray", "asanyarray", "array", "ascontiguousarray", "atleast_1d", "atleast_2d",
    "atleast_3d", "broadcast_arrays", "copy", "squeeze", "ravel", "ndim", "shape", "size",
    "isscalar", "result_type", "empty_like", "zeros_like", "ones_like",
    # reductions and tests of numbers (warnings at most)
    "any", "all", "sum", "prod", "mean", "nansum", "amin", "amax", "min", "max",
    "isnan", "isinf", "isfinite", "isclose", "allclose", "array_equal", "sign", "signbit",
    "copysign", "where", "clip", "round", "around", "hypot", "arctan2", "radians",
    "degrees", "deg2rad", "rad2deg",
})


# what a NumPy function may raise on numeric arrays of any shapes (mismatched shapes, bad
# axes or indices, a singular matrix, errstate's FloatingPointError): never NameError,
# AttributeError, KeyError or LookupError's other kinds
NUMPY_FAILURES = frozenset({ValueError, TypeError, IndexError, ArithmeticError, MemoryError})


_ARGUMENTS_TAKEN = {"where": (3,), "clip": (1, 3), "isclose": (2, 3, 4, 5),
                    "allclose": (2, 3, 4, 5), "array_equal": (2, 3)}
"""The numbers of positional arguments with which those of `_RAISE_NOTHING_ON_NUMBERS` raise
nothing on numbers (any other than these raises: ``np.where(x)`` of a number is NumPy's
ValueError "Calling nonzero on 0d arrays", ``np.where(c, x)`` and ``np.clip(x, lo)`` raise
too); one or more for the rest."""


def is_numpy_function(fn) -> bool:
    module = getattr(fn, "__module__", None) or ""
    return isinstance(fn, np.ufunc) or (module.split(".")[0] == "numpy" and callable(fn))


_SCIPY_QUIET_ON_NUMBERS = {"lambertw": (1, 2)}
"""The functions of ``scipy.special`` written in Python (around a ufunc) that raise nothing
on numbers, by the numbers of arguments they are known for: ``lambertw(z)`` and
``lambertw(z, k)`` cast ``k`` to an int array and return the ufunc ``_lambertw``'s value (NaN
where it has none, as SciPy's ufuncs do under its default ``errstate``)."""


def quiet_scipy_special(fn, n_args: int) -> bool:
    """Whether ``fn`` is one of `_SCIPY_QUIET_ON_NUMBERS`, called with ``n_args``
    arguments: it returns NumPy values and raises nothing on numbers."""
    module = getattr(fn, "__module__", None) or ""
    name = getattr(fn, "__name__", "")
    return module.split(".")[:2] == ["scipy", "special"] and n_args in \
        _SCIPY_QUIET_ON_NUMBERS.get(name, ()) and getattr(
            sys.modules.get("scipy.special"), name, None) is fn


def raises_on_numbers(fn, n_args: int):
    """The exception classes ``fn(...)`` may raise where its ``n_args`` arguments are all
    numbers per example (a frozenset; empty: nothing), or None where the engine does not know.
    A NumPy ufunc warns rather than raises; the number builtins raise what Python's do."""
    if fn is np.power:
        return frozenset({ValueError})     # (integers to a negative integer power)
    if isinstance(fn, np.ufunc):
        return frozenset() if fn.nin <= n_args <= fn.nin + fn.nout else None
    module = getattr(fn, "__module__", None) or ""
    name = getattr(fn, "__name__", "")
    if module.split(".")[0] == "numpy" and getattr(np, name, None) is fn \
            and name in _RAISE_NOTHING_ON_NUMBERS and n_args in _ARGUMENTS_TAKEN.get(
                name, range(1, 1 << 16)):
        return frozenset()
    if module == "math" and getattr(math, name, None) is fn:
        return frozenset(exc for exc, _ in exact_math_errors(name, n_args))
    if quiet_scipy_special(fn, n_args):
        return frozenset()
    import builtins

    def one_of(*fns):
        return any(fn is f for f in fns)
    if one_of(builtins.abs, builtins.bool, builtins.complex):
        return frozenset()
    if one_of(builtins.min, builtins.max):
        return frozenset() if n_args >= 2 else None
    if fn is builtins.float:
        return frozenset({OverflowError})       # (an int beyond a double)
    if one_of(builtins.int, builtins.round):
        return frozenset({ValueError, OverflowError})   # (NaN, inf)
    if one_of(builtins.divmod, builtins.pow):
        return frozenset({ZeroDivisionError, OverflowError})
    if fn is builtins.len:
        return frozenset({TypeError})
    return None
