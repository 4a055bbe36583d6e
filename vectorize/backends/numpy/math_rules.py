"""The ``math`` module on batched values.

``math`` functions compute in double precision and return Python floats (ints for
``floor``/``ceil``/``trunc``), so the NumPy equivalent is used on float64 operands (operands
that NumPy would compute in a narrower float are converted first). Constants (``math.pi``,
``math.inf``, ``math.nan``...) are unbatched values and stay as written. ``math.remainder``
(IEEE remainder) is written out exactly as CPython computes it, from ``np.fmod``.
``math.gamma``/``lgamma``/``erf``/``erfc`` have no NumPy equivalent: they become
``scipy.special`` ufuncs where SciPy is installed, and are refused (located, with the way
out) where it is not. Functions without any equivalent (``factorial``, ``comb``...) have no
rule: they are rejected or, when the user allows it, run per example.
"""

from __future__ import annotations

import math
import sys

import libcst as cst
import numpy as np

from ... import pymath
from ...abstract import TupleValue, Value
from ...errors import Unsupported
from ...rules.families import padded_args, real_operands
from ...rules.registry import Registry, Rule, Site
from ...syntax.templates import expr
from .arrays import display_items
from .builtins import python_int

# math name -> NumPy function computing the same lane by lane.
FLOAT_FUNCTIONS = {
    "sqrt": "sqrt", "exp": "exp", "expm1": "expm1", "log2": "log2", "log10": "log10",
    "log1p": "log1p", "sin": "sin", "cos": "cos", "tan": "tan", "asin": "arcsin",
    "acos": "arccos", "atan": "arctan", "atan2": "arctan2", "sinh": "sinh", "cosh": "cosh",
    "tanh": "tanh", "asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh", "fabs": "fabs",
    "hypot": "hypot", "copysign": "copysign", "fmod": "fmod", "degrees": "degrees",
    "radians": "radians", "exp2": "exp2", "cbrt": "cbrt", "nextafter": "nextafter",
    "ldexp": "ldexp", "frexp": "frexp", "modf": "modf",
}
PREDICATES = {"isnan": "isnan", "isinf": "isinf", "isfinite": "isfinite"}
INTEGER_FUNCTIONS = {"gcd": "gcd", "lcm": "lcm"}
ROUNDING = {"floor": "floor", "ceil": "ceil", "trunc": "trunc"}
WARNING_FREE = {"fabs", "copysign", "radians", "atan2", "tanh", "asinh", "cbrt", "atan",
                "nextafter", "frexp", "modf"}


def _needs_float64(value, ints: bool = False) -> bool:
    """Whether NumPy would not compute ``value`` in float64: narrower floats and ints, and
    with ``ints`` every int (a ufunc such as `np.fmod` keeps ints ints, `math.fmod` never)."""
    dt = value.dtype
    if dt is None:
        return False
    return not (dt == np.float64 or (dt.kind in "iu" and dt.itemsize >= 4 and not ints))


def _as_float64(site: Site, ints: bool = False):
    return [(expr("{x}.astype(float)", x=n) if v.batched or v.dtype.kind not in "iub"
             or isinstance(v.example, np.generic) and not ints
             else _float_literal(n) if v.rank == 0 else
             expr("np.asarray({x}, dtype=float)", x=n)) if _needs_float64(v, ints) else n
            for n, v in zip(padded_args(site), site.args)]


def _float_literal(node):
    """``float(n)`` of an unbatched int: ``3.0`` for the literal ``3``."""
    if isinstance(node, cst.Integer):
        return cst.Float(repr(float(int(node.value.replace("_", ""), 0))))
    return expr("float({x})", x=node)


# NumPy functions that keep int operands ints, where `math` returns a float
_INT_PRESERVING = {"fmod"}


_BINARY = {"atan2", "hypot", "copysign", "fmod", "nextafter", "ldexp"}


def _float_rule(np_name: str):
    def rewrite(site: Site):
        real_operands(site, "a `math` function", numpy_too=True)
        if np_name == "hypot" and len(site.nodes) != 2 and site.nodes and not site.kwargs:
            # math.hypot(a, b, c): the Euclidean norm of any number of coordinates, folded
            # pairwise (np.hypot's third argument would be `out=`); one coordinate: |a|
            args = _as_float64(site)
            out = expr("np.hypot({a}, 0.0)", a=args[0])
            if len(args) > 1:
                out = args[0]
                for arg in args[1:]:
                    out = expr("np.hypot({a}, {b})", a=out, b=arg)
            return out
        expected = 2 if np_name in {FLOAT_FUNCTIONS[n] for n in _BINARY} else 1
        if np_name == "ldexp" and not site.python_semantics and len(site.args) == 2 and \
                not site.kwargs and isinstance(getattr(site.args[1], "example", None),
                                               np.generic):
            # `vmap`'s examples are NumPy scalars, and `math.ldexp`'s exponent must be a
            # Python int (an `np.int64` is none: TypeError per example)
            raise Unsupported("`math.ldexp` with a NumPy scalar exponent (an "
                              f"`np.{type(site.args[1].example).__name__}` per example: "
                              "TypeError, it takes a Python int only)",
                              suggestion="pass int(n) as the exponent, or call np.ldexp",
                              kind="raises")
        if len(site.nodes) != expected or site.kwargs:
            raise Unsupported(f"`np.{np_name}` takes {expected} argument(s); this call has "
                              f"{len(site.nodes) + len(site.kwargs)}",
                              suggestion="call it with two arguments at a time")
        args = ", ".join(f"{{a{i}}}" for i in range(len(site.nodes)))
        call = f"np.{np_name}({args})"
        if np_name == "frexp":
            # NumPy's exponent is an int32, Python's an int: int64 (as numpy.vectorize
            # stores it, and as arithmetic on it must stay: `e * 2**40`)
            call = f"(lambda m, e: (m, e.astype(np.int64)))(*{call})"
        return expr(call, **{f"a{i}": n for i, n in enumerate(
            _as_float64(site, ints=np_name in _INT_PRESERVING))})
    return rewrite


def _integer_rule(np_name: str):
    def rewrite(site: Site):
        real_operands(site, "a `math` function", numpy_too=True)
        args = padded_args(site)
        if len(args) < 2:
            raise Unsupported(f"`math.{np_name}` with fewer than two arguments")
        out = args[0]
        for nxt in args[1:]:        # gcd and lcm are associative
            out = expr(f"np.{np_name}({{a}}, {{b}})", a=out, b=nxt)
        return out
    return rewrite


def _exact_int_beyond_int64(np_name: str, value, node) -> None:
    """``math.ceil(1e300)`` of a number the same for every example: an exact Python int
    beyond int64, which the loop stacks into an object array; refused rather than wrapped."""
    if not isinstance(value, Value) or value.batched or not value.exact or \
            not isinstance(value.example, (float, np.floating)) or \
            not math.isfinite(value.example):
        return      # (a NumPy float too: `math.ceil(np.floor(1e300))`)
    out = getattr(math, np_name)(float(value.example))
    if not -2 ** 63 <= out < 2 ** 63:
        raise Unsupported(f"`math.{np_name}` of {value.example!r} is a Python int beyond "
                          "int64 (the loop's result is an object array of it)", node,
                          "compute it in floats (np." + np_name + "(x)) or keep it in range")


def _rounding_rule(np_name: str):
    def rewrite(site: Site):
        real_operands(site, "a `math` function", numpy_too=True)
        (x,) = site.nodes
        dtype = site.args[0].dtype
        _exact_int_beyond_int64(np_name, site.args[0], site.original)
        if site.python_semantics and not site.args[0].batched and type(
                site.args[0].example) in (float, int, bool):
            # a Python number the same for every example, held as it is (an excluded
            # argument): Python's int, exact beyond int64 as the code after it computes
            # with it (`passes.python_raises` checks no value held as it is)
            return site.node
        if np_name == "trunc" and dtype is not None and dtype.kind in "biuf" and \
                dtype != np.float64:
            # NumPy's scalars other than float64 have no `__trunc__`: TypeError per example
            # under vmap, and in the call on NumPy scalars that numpy.vectorize learns its
            # output types from
            raise Unsupported(f"`math.trunc` of a NumPy {dtype} (it has no `__trunc__`: "
                              "TypeError)", suggestion="use int(x)", kind="raises")
        if site.args[0].kind in "biu":
            if not site.python_semantics and dtype is not None and dtype.itemsize == 8:
                # a NumPy int64 / uint64 has no `__floor__` / `__ceil__`: math rounds its
                # `float()`, from 2**53 on not the int itself (math.floor(np.int64(2**53 + 1))
                # is 2**53); a result beyond int64 is checked (`rules.python_errors`)
                return expr("{x}.astype(float).astype(int)", x=x)
            return python_int(x, site.args[0])
        return expr(f"np.{np_name}({{x}}).astype(int)", x=x)
    return rewrite


def _log(site: Site):
    real_operands(site, "a `math` function", numpy_too=True)
    args = _as_float64(site)
    if len(args) == 1:
        return expr("np.log({x})", x=args[0])
    return expr("np.log({x}) / np.log({base})", x=args[0], base=args[1])


def _pow(site: Site):
    real_operands(site, "a `math` function", numpy_too=True)
    a, b = padded_args(site)
    return expr("np.float_power({a}, {b})", a=a, b=b)


def _isclose(site: Site):
    real_operands(site, "a `math` function", numpy_too=True)
    # as doubles, as math.isclose takes them (`a - b` of bools raises in NumPy, of int64
    # wraps where Python's ints do not)
    a, b = [_float64(n, v) for n, v in zip(padded_args(site), site.args)]
    rel = site.kwargs.get("rel_tol", (expr("1e-09"), None))[0]
    abs_tol = site.kwargs.get("abs_tol", (expr("0.0"), None))[0]
    # math.isclose: equal values (infinities too); otherwise never close to an infinity, else
    # |a-b| <= max(rel*max(|a|,|b|), abs_tol)
    return expr("({a} == {b}) | (np.isfinite({a}) & np.isfinite({b}) & (np.abs({a} - {b}) <= "
                "np.maximum({rel} * np.maximum(np.abs({a}), np.abs({b})), {abs_tol})))",
                a=a, b=b, rel=rel, abs_tol=abs_tol)


def _float64(node, value):
    """An operand as float64, as ``math`` takes it (ints and narrower floats converted)."""
    if value.dtype == np.float64:
        return node
    if value.batched:
        return expr("{x}.astype(float)", x=node)
    return expr("float({x})", x=node)


def _remainder(site: Site):
    """CPython's ``math.remainder``: the remainder of x / y whose quotient is rounded to
    the nearest integer, ties to even, computed exactly from ``fmod`` as CPython does. The
    operands are the lambda's parameters, so the formula never reads the user's names."""
    real_operands(site, "a `math` function", numpy_too=True)
    if len(site.nodes) != 2 or site.kwargs:
        raise Unsupported("`math.remainder` takes two arguments")
    x, y = [_float64(n, v) for n, v in zip(padded_args(site), site.args)]
    return expr("(lambda x, y: (lambda m, ay: np.copysign(1.0, x) * np.where(m < ay - m, m, "
                "np.where(m > ay - m, m - ay, m - 2.0 * np.fmod(0.5 * (np.abs(x) - m), ay))))"
                "(np.fmod(np.abs(x), np.abs(y)), np.abs(y)))({a}, {b})", a=x, b=y)


# math name -> the scipy.special ufunc that computes it lane by lane
SPECIAL = {"gamma": "gamma", "lgamma": "gammaln", "erf": "erf", "erfc": "erfc"}


def _special(math_name: str):
    scipy_name = SPECIAL[math_name]

    def rewrite(site: Site):
        real_operands(site, "a `math` function", numpy_too=True)
        import importlib.util
        if importlib.util.find_spec("scipy") is None:
            raise Unsupported(f"`math.{math_name}` has no NumPy equivalent; on per-example "
                              f"values it needs SciPy (scipy.special.{scipy_name}), which is "
                              "not installed",
                              suggestion="pip install 'vectorize[scipy]', or pass "
                                         "fallback='warn' to run the function per example")
        if len(site.nodes) != 1 or site.kwargs:
            raise Unsupported(f"`math.{math_name}` takes one argument")
        x = _float64(site.nodes[0], site.args[0])
        if math_name == "lgamma":
            # as CPython: -log|x| below 1e-20 (gammaln overflows to inf for subnormal x), and
            # inf at -inf (gammaln gives -inf there)
            return expr("(lambda x: np.where(np.abs(x) < 1e-20, -np.log(np.abs(x)), np.where("
                        "x == -np.inf, np.inf, scipy.special.gammaln(x))))({x})", x=x)
        return expr(f"scipy.special.{scipy_name}({{x}})", x=x)
    return rewrite


def register(reg: Registry) -> None:
    reg.add_call(math.remainder, Rule(
        "math.remainder", "math",
        "`math.remainder(x, y)` (IEEE: the quotient rounded to nearest, ties to even) written "
        "out from `np.fmod` exactly as CPython computes it.",
        "r = math.remainder(x, y)",
        "r = (lambda x, y: (lambda m, ay: np.copysign(1.0, x) * np.where(m < ay - m, m, "
        "np.where(m > ay - m, m - ay, m - 2.0 * np.fmod(0.5 * (np.abs(x) - m), ay))))"
        "(np.fmod(np.abs(x), np.abs(y)), np.abs(y)))(x, y)", _remainder, may_warn=True))
    for name, scipy_name in SPECIAL.items():
        reg.add_call(getattr(math, name), Rule(
            f"math.{name}", "math",
            f"`math.{name}` is `scipy.special.{scipy_name}` in double precision (needs SciPy; "
            "refused without it). Results agree with `math` to a few units in the last "
            "place (docs/semantics.md); invalid lanes give inf or NaN instead of an error.",
            f"y = math.{name}(x)", f"y = scipy.special.{scipy_name}(x)", _special(name),
            may_warn=True))
    for name, np_name in FLOAT_FUNCTIONS.items():
        if not hasattr(math, name):
            continue
        reg.add_call(getattr(math, name), Rule(
            f"math.{name}", "math",
            f"`math.{name}` is `np.{np_name}` in double precision (NaN instead of a domain "
            "error on invalid lanes).",
            f"y = math.{name}(x)" if name not in ("atan2", "hypot", "copysign", "fmod",
                                                   "nextafter", "ldexp") else
            f"y = math.{name}(x, z)",
            f"y = np.{np_name}(x)" if name not in ("atan2", "hypot", "copysign", "fmod",
                                                    "nextafter", "ldexp") else
            f"y = np.{np_name}(x, z)",
            _float_rule(np_name), may_warn=name not in WARNING_FREE))
    for name, np_name in PREDICATES.items():
        reg.add_call(getattr(math, name), Rule(
            f"math.{name}", "math", f"`math.{name}` is `np.{np_name}`, lane by lane.",
            f"ok = math.{name}(x)", f"ok = np.{np_name}(x)", _float_rule(np_name)))
    for name, np_name in INTEGER_FUNCTIONS.items():
        reg.add_call(getattr(math, name), Rule(
            f"math.{name}", "math", f"`math.{name}(a, b)` is `np.{np_name}(a, b)`, lane by lane.",
            f"g = math.{name}(a, b)", f"g = np.{np_name}(a, b)", _integer_rule(np_name)))
    for name, np_name in ROUNDING.items():
        reg.add_call(getattr(math, name), Rule(
            f"math.{name}", "math",
            f"`math.{name}(x)` returns an int: `np.{np_name}(x).astype(int)`.",
            f"k = math.{name}(x)", f"k = np.{np_name}(x).astype(int)", _rounding_rule(np_name),
            may_warn=True))
    reg.add_call(math.log, Rule(
        "math.log", "math", "`math.log(x)` is `np.log(x)`; `math.log(x, base)` divides by "
        "`np.log(base)`.", "y = math.log(x, 2)", "y = np.log(x) / np.log(2)", _log,
        may_warn=True))
    reg.add_call(math.pow, Rule(
        "math.pow", "math", "`math.pow(a, b)` always computes in floats: `np.float_power(a, b)`.",
        "y = math.pow(x, 3)", "y = np.float_power(x, 3)", _pow, may_warn=True))
    reg.add_call(math.isclose, Rule(
        "math.isclose", "math",
        "`math.isclose` is symmetric (unlike `np.isclose`), so its formula is written out.",
        "ok = math.isclose(a, b)",
        "ok = (a == b) | (np.abs(a - b) <= np.maximum(1e-09 * np.maximum(np.abs(a), "
        "np.abs(b)), 0.0))", _isclose, may_warn=True))
    register_exact_ints(reg)
    register_calendar(reg)
    register_sums(reg)


# --------------------------------------------------------------------- exact int functions
# math name -> the number of arguments `pymath`'s function takes (all of them ints)
EXACT_INTS = {"comb": (2,), "perm": (1, 2), "factorial": (1,), "isqrt": (1,)}


def _exact_int_rule(name: str):
    def rewrite(site: Site):
        if len(site.nodes) not in EXACT_INTS[name] or site.kwargs:
            raise Unsupported(f"`math.{name}` takes {' or '.join(map(str, EXACT_INTS[name]))} "
                              "positional argument(s) here")
        if any(v.kind not in "biu" for v in site.args):
            raise Unsupported(f"`math.{name}` of a per-example float (Python raises "
                              "TypeError)", suggestion="pass ints, e.g. int(x)", kind="raises")
        args = ", ".join(f"{{a{i}}}" for i in range(len(site.nodes)))
        return expr(f"pymath.{name}({args})",
                    **{f"a{i}": n for i, n in enumerate(site.nodes)})
    return rewrite


def _weekday(site: Site):
    if len(site.nodes) != 3 or site.kwargs:
        raise Unsupported("`calendar.weekday` takes three positional arguments here")
    if any(v.kind not in "biu" for v in site.args):
        raise Unsupported("`calendar.weekday` of a per-example float (`datetime.date` raises "
                          "TypeError)", suggestion="pass ints, e.g. int(x)", kind="raises")
    if site.standalone or site.spelled.name != "numpy":
        raise Unsupported("`calendar.weekday` of per-example values on this backend",
                          suggestion="use the NumPy backend")
    return expr("pymath.weekday({y}, {m}, {d})", y=site.nodes[0], m=site.nodes[1],
                d=site.nodes[2])


def register_calendar(reg: Registry) -> None:
    import calendar
    reg.add_call(calendar.weekday, Rule(
        "calendar.weekday", "math",
        "`calendar.weekday(year, month, day)` of ints is `pymath.weekday`: the weekday of "
        "`datetime.date(year, month, day)` from the day count, Python's ValueError for a "
        "month or a day out of range (the per-example loop then decides).",
        "w = calendar.weekday(y, m, d)", "w = pymath.weekday(y, m, d)", _weekday))


def register_exact_ints(reg: Registry) -> None:
    for name in EXACT_INTS:
        reg.add_call(getattr(math, name), Rule(
            f"math.{name}", "math",
            f"`math.{name}` on ints is `pymath.{name}`: Python's exact int where it fits "
            "int64 (numpy.vectorize's output dtype), Python's ValueError for negative "
            "arguments, OverflowError beyond int64 (the per-example loop then decides).",
            f"c = math.{name}(n, k)" if EXACT_INTS[name] != (1,) else f"c = math.{name}(n)",
            f"c = pymath.{name}(n, k)" if EXACT_INTS[name] != (1,) else
            f"c = pymath.{name}(n)", _exact_int_rule(name)))


# --------------------------------------------------------------------- math.fsum, math.prod
def _row_of_numbers(site: Site, name: str, keywords=()):
    """The one operand of ``math.fsum``/``math.prod``: a per-example vector (a list or
    tuple display of per-example numbers, a row), as one array of rows."""
    if len(site.nodes) != 1 or set(site.kwargs) - set(keywords):
        raise Unsupported(f"`math.{name}` takes one positional argument here")
    value = site.args[0]
    if isinstance(value, TupleValue) and not any(
            getattr(v, "batched", True) for v in value.items):
        return None     # nothing per example: the call runs once, as written
    if isinstance(value, Value) and not value.batched:
        if any(v.batched for _, v in site.kwargs.values()):
            raise Unsupported(f"`math.{name}` whose start only is per example",
                              suggestion="multiply by the start after the product")
        return None
    if not isinstance(value, Value) or not value.known or value.rank != 1 or \
            value.kind not in "biuf":
        raise Unsupported(f"`math.{name}` of something other than a list, tuple or row of "
                          "real numbers per example",
                          suggestion="pass a list display of numbers, e.g. [a, b, c]")
    if site.standalone or site.spelled.name != "numpy":
        raise Unsupported(f"`math.{name}` of per-example values on this backend",
                          suggestion="use the NumPy backend")
    return site.nodes[0]


def _fsum(site: Site):
    row = _row_of_numbers(site, "fsum")
    return site.node if row is None else expr("pymath.fsum({x})", x=row)


def _prod(site: Site):
    row = _row_of_numbers(site, "prod", keywords=("start",))
    if row is None:
        return site.node
    start = site.kwargs.get("start")
    if start is not None and (not isinstance(start[1], Value) or start[1].kind not in "biuf"
                              or start[1].rank != 0):
        raise Unsupported("`math.prod` with a start that is not a real number",
                          suggestion="multiply by the start after the product")
    items = display_items(row)
    # (a display's items keep their own types: ints multiply exactly until the first float)
    call, items = ("pymath.prod", [row]) if items is None else ("pymath.prod_items", items)
    if not site.python_semantics:
        # `vmap`: NumPy scalars per example, whose products agree with Python's while ints
        # stay within int64 and every item is an int64, a bool or a float64: the same code,
        # told to raise for items of other dtypes (a float32 stays float32, an int8 wraps)
        # and where an int product leaves int64 (np.int64 wraps), for the loop to decide
        call += "_numpy"
    parts = {f"a{i}": item for i, item in enumerate(items)}
    text = ", ".join(f"{{a{i}}}" for i in range(len(items)))
    if start is not None:
        parts["s"] = start[0]
        text += ", start={s}"
    return expr(f"{call}({text})", **parts)


def _dist(site: Site):
    if len(site.nodes) != 2 or site.kwargs:
        raise Unsupported("`math.dist` takes two positional arguments")
    if not any(getattr(v, "batched", True) or isinstance(v, TupleValue) and any(
            getattr(i, "batched", True) for i in v.items) for v in site.args):
        return site.node        # nothing per example: the call runs once, as written
    for value in site.args:
        if isinstance(value, TupleValue) and all(
                isinstance(v, Value) and not v.batched and v.known and v.rank == 0
                and np.asarray(v.example).dtype.kind in "biuf" for v in value.items):
            continue    # the same point for every example (`(0.0, 0.0)`, a global's)
        if not isinstance(value, Value) or not value.known or value.rank != 1 or \
                value.kind not in "biuf":
            raise Unsupported("`math.dist` of something other than two lists, tuples or rows "
                              "of real numbers per example",
                              suggestion="pass tuple displays of numbers, e.g. (x1, y1)")
    if site.standalone or site.spelled.name != "numpy":
        raise Unsupported("`math.dist` of per-example values on this backend",
                          suggestion="use the NumPy backend")
    if not pymath.dist_is_cpythons():
        raise Unsupported(f"`math.dist` on Python {sys.version.split()[0]}, whose rounding "
                          "`pymath.dist` does not model (it is CPython 3.11's)",
                          suggestion="write math.hypot of the differences")
    return expr("pymath.dist({p}, {q})", p=site.nodes[0], q=site.nodes[1])


def register_sums(reg: Registry) -> None:
    reg.add_call(math.dist, Rule(
        "math.dist", "math",
        "`math.dist` of two lists, tuples or rows of per-example numbers is `pymath.dist`: "
        "CPython's Euclidean norm of the differences (scaled, squared and summed without "
        "loss, one correction after the square root), the same bits on every row; "
        "differences below 2**-1021 and points of different lengths: the per-example loop "
        "decides. NumPy backend only.",
        "d = math.dist((x1, y1), (x2, y2))",
        "d = pymath.dist(np.stack([x1, y1], axis=1), np.stack([x2, y2], axis=1))", _dist))
    reg.add_call(math.fsum, Rule(
        "math.fsum", "math",
        "`math.fsum` of a list, tuple or row of per-example numbers is `pymath.fsum`: "
        "CPython's exactly rounded sum (Shewchuk's partials) computed on every row at once, "
        "the same bits; infinities and NaN as CPython, its ValueError and OverflowError "
        "where a row raises (the per-example loop then decides). NumPy backend only.",
        "s = math.fsum([a, b, c])", "s = pymath.fsum(np.stack([a, b, c], axis=1))", _fsum))
    reg.add_call(math.prod, Rule(
        "math.prod", "math",
        "`math.prod` of a list, tuple or row of per-example numbers is `pymath.prod`: the "
        "product from `start` left to right, as Python multiplies (floats in float64; ints "
        "exactly where the product fits int64, else the per-example loop decides). Under "
        "`vmap` (NumPy scalars per example) `pymath.prod_numpy`: the same where every item "
        "is an int64, a bool or a float64 and no int product leaves int64; elsewhere it "
        "raises and the per-example loop decides (float32 products, wrapping ints). NumPy "
        "backend only.",
        "p = math.prod([a, b, c])", "p = pymath.prod(np.stack([a, b, c], axis=1))", _prod))
