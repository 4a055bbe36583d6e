"""A differential test for every batching rule in the registry (`vectorize.rules.NUMPY`).

Each case is an expression template (``"math.atan2({0}, {1})"``) and the kinds of its
arguments. The cases are written out as real module-level functions in a module file in a
temporary directory (so ``inspect.getsource`` works), in two forms:

``case_N(a, b)``
    ``return <expression>``; compared with `assert_matches_loop` on arguments drawn by
    hypothesis: each argument a batched 1-D array (empty batches included), a Python scalar, a
    NumPy scalar, or a lower-rank array that broadcasts against the others (``(3, 1)`` with
    ``(4,)``); floats include NaN, +-inf, +-0.0, negatives, huge and subnormal values, ints
    negatives and zero.
``dead_N(s, a, b, a0, b0)``
    ``if s: y = <expression of a, b> else: y = <expression of a0, b0>``: the lanes where ``s``
    is false get argument values on which the expression warns or raises per example, the
    other lanes values on which it is silent. The scalar code never evaluates the expression
    on the dead lanes, so the batched code must not warn for them either (this checks each
    rule's ``may_warn`` flag and the silencing of thrown-away lanes).

A few rules are triggered by statements rather than expressions (masked loops): those cases
(`STATEMENT_CASES`) are whole function bodies and name the rules they exercise.

Which rules a case exercises is read off its expression (each call is looked up in the
registry, each operator node named by its rule), so `test_every_rule_has_a_case` fails for a
rule added later without a case, and `test_every_registered_function_has_a_case` for a function
registered later without one (or an entry in `NOT_TESTED` saying why not).

Warnings and errors: `assert_matches_loop` turns RuntimeWarnings of the batched call into
errors; that is only fair when the per-example loop is silent, so for inputs on which the
scalar code warns or raises the comparison runs with floating-point warnings ignored. When the
scalar code raises on some lane, the batched call may refuse the whole batch with the very same
error (type and message) instead of returning a result; any other exception is a failure. The
arguments must not be modified by the batched call.

NumPy does not always agree with itself: its scalar arithmetic and its array loops can give
different values (``np.float64(-inf) ** 0.5`` is nan, ``np.array([-inf]) ** 0.5`` inf) or
warnings (``np.float64(0.0) ** -inf`` is silent, the array loop warns). Each lane is therefore
also run through the scalar-style code with arrays of 1 and 32 copies of its values
(`numpy_disagrees`): inputs where the values differ are skipped (no batched code can match
both), and a warning of the array loops counts as a warning of the scalar code.

`TEST_RULES_MAX_EXAMPLES=200 pytest tests/test_rules.py` searches harder (6 by default).

Known engine bugs are strict xfails with a reason, and their minimal inputs (`repro`) run
before hypothesis, so the xfail does not depend on hypothesis finding them again.
"""

from __future__ import annotations

import ast
import builtins
import calendar
import contextlib
import dataclasses
import importlib.util
import itertools
import math
import os
import pathlib
import random
import re
import sys
import traceback
import warnings

import numpy as np
import pytest
import scipy.special
import scipy.stats
from differential import assert_matches_loop
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from vectorize import VectorizeError, vectorize, vmap
from vectorize.rules import NUMPY

MAX_EXAMPLES = int(os.environ.get("TEST_RULES_MAX_EXAMPLES", "6"))

INF, NAN = math.inf, math.nan
I64_MAX, I64_MIN = 2**63 - 1, -(2**63)

# --------------------------------------------------------------------------- argument kinds
# "f": float64, the whole range; "fm": float64 of moderate magnitude (plus NaN, +-inf), for
# conversions to int, where a huge float has no int64 value (the scalar code gives an exact
# Python int, see docs/semantics.md); "f32": float32 ("f32m": moderate, for conversions);
# "i": int64 of moderate magnitude; "I": int64, the whole range (wrapping arithmetic); "i32":
# int32; "b": bool; "sh": shift counts (negative and >= 64 included); "u": small non-negative
# exponents; kinds ending in "!" are never batched: "n!" a small int (ndigits), "b!" a bool.

SPECIAL_FLOATS = [0.0, -0.0, NAN, INF, -INF, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 1e308, -1e308,
                  5e-324, -5e-324, 2.2250738585072014e-308, 1e-300, 3.0, 20.0, 1e16, 710.0,
                  -745.0]
SPECIAL_FLOAT32 = [0.0, -0.0, NAN, INF, -INF, 1.0, -1.0, 0.5, -2.5, 3e38, -3e38, 1e-45, 1e-38,
                   3.0, 0.1, 89.0]

ELEMENTS = {
    "f": st.one_of(st.sampled_from(SPECIAL_FLOATS), st.floats(-50, 50),
                   st.floats(allow_nan=True, allow_infinity=True)),
    "fm": st.one_of(st.sampled_from([0.0, -0.0, 0.5, -0.5, 1.5, -2.5, 2.5, NAN, INF, -INF,
                                     1e9, -1e9, 5e-324]),
                    st.floats(-1e9, 1e9)),
    "f32": st.one_of(st.sampled_from(SPECIAL_FLOAT32), st.floats(-50, 50, width=32),
                     st.floats(width=32)),
    "f32m": st.one_of(st.sampled_from([0.0, -0.0, 0.5, -2.5, 1.5, NAN, INF, -INF, 1e9]),
                      st.floats(-1e9, 1e9, width=32)),
    "i": st.one_of(st.sampled_from([0, 1, -1, 2, -2, 3, 7, -7, 15, 100, -100]),
                   st.integers(-10**5, 10**5)),
    "I": st.one_of(st.sampled_from([0, 1, -1, I64_MAX, I64_MIN, I64_MAX - 1, I64_MIN + 1,
                                    2**32, -(2**32)]),
                   st.integers(I64_MIN, I64_MAX)),
    "i32": st.one_of(st.sampled_from([0, 1, -1, 2, -7]), st.integers(-10**4, 10**4)),
    "b": st.booleans(),
    "sh": st.integers(-3, 70),
    "u": st.integers(0, 62),
    "n!": st.integers(-2, 3),
    "b!": st.booleans(),
    # special functions: math.erfc is subnormal beyond 26.5 where scipy.special.erfc flushes
    # to zero (docs/semantics.md), so the range stops short of it
    # np.emath: finite values (a batch that some lane makes complex computes infinities in
    # complex arithmetic, docs/semantics.md)
    # (and no -0.0: in a complex batch it is -0.0+0j, whose log is -inf+pi j)
    "fe": st.one_of(st.sampled_from([0.0, NAN, 0.5, -0.5, 1.0, -1.0, 2.5, -3.0, 1e3]),
                    st.floats(-1e3, 1e3).filter(lambda v: not (
                        v == 0 and math.copysign(1, v) < 0))),
    # math.lgamma: away from its zeros (1, 2 and many negative ones), where the C library's
    # and scipy's results agree to about 1e-16 absolute only (docs/semantics.md)
    "fp": st.one_of(st.sampled_from([0.0, -0.0, NAN, INF, -INF, 0.5, -0.5, -1.5, -20.5, 1.0,
                                     2.0, 3.0, 170.5, 1e-300, 5e-324, 1e-25, -1e-25, 1e6]),
                    st.floats(0.1, 26).filter(lambda v: min(abs(v - 1), abs(v - 2)) > 1e-3)),
    "fs": st.one_of(st.sampled_from([0.0, -0.0, NAN, INF, -INF, 0.5, -0.5, 1.0, 2.5, -2.5,
                                     3.0, 20.0, -20.5, 170.5, 200.0, 26.0, 1e-300]),
                    st.floats(-26, 26)),
}
DTYPES = {"fp": np.float64, "fe": np.float64, "fs": np.float64, "f": np.float64,
          "fm": np.float64, "f32": np.float32, "f32m": np.float32, "i": np.int64, "I": np.int64,
          "i32": np.int32, "b": np.bool_, "sh": np.int64, "u": np.int64, "n!": np.int64,
          "b!": np.bool_}
PYTHON_TYPES = {"fp": float, "fe": float, "fs": float, "f": float, "fm": float, "f32": float,
                "f32m": float, "i": int, "I": int, "i32": int, "b": bool, "sh": int, "u": int,
                "n!": int, "b!": bool}

# Values for the dead-lane test: every combination is classified by running the scalar code.
POOLS = {
    "f": [0.5, 2.0, -1.5, 0.0, -0.0, INF, -INF, NAN, 1e308, -1e308, 5e-324, 710.0, -3.0],
    "fm": [0.5, 2.5, -1.5, 0.0, -0.0, NAN, INF, -INF, 1e9],
    "f32": [0.5, 2.0, -1.5, 0.0, -0.0, INF, NAN, 3e38, 1e-45],
    "f32m": [0.5, 2.5, -1.5, 0.0, NAN, INF, 1e9],
    "i": [3, 1, -1, 0, -7, 100, 2],
    "I": [3, 0, -1, I64_MAX, I64_MIN],
    "i32": [3, 0, -1, 100],
    "b": [True, False],
    "sh": [2, 0, 63, 64, -1],
    "u": [2, 0, 1, 5, 62],
    "n!": [2],
    "b!": [True],
    "fs": [0.5, 2.0, -1.5, 0.0, -0.0, INF, -INF, NAN, -3.0, 200.0],
    "fe": [0.5, 2.0, -1.5, 0.0, NAN, -3.0, 1.5],
    "fp": [0.5, 2.0, -1.5, 0.0, -0.0, INF, -INF, NAN, 1e-300, 5e-324],
}

# Batched arguments either share a 1-D batch of any length (0 included) or reach a 2-D batch
# (3, 4) by broadcasting from lower-rank arrays.
SHAPES_2D = [(3, 1), (4,), (3, 4), (1, 4), (1,)]


@st.composite
def call_args(draw, kinds):
    layout = draw(st.sampled_from(["1d", "1d", "2d"]))
    n = draw(st.integers(0, 6))
    args = []
    for kind in kinds:
        if kind.endswith("!"):
            mode = draw(st.sampled_from(["python", "numpy"]))
        else:
            mode = draw(st.sampled_from(["array", "array", "array", "python", "numpy"]))
        if mode == "array":
            shape = (n,) if layout == "1d" else draw(st.sampled_from(SHAPES_2D))
            args.append(draw(arrays(DTYPES[kind], shape, elements=ELEMENTS[kind])))
        else:
            value = draw(ELEMENTS[kind])
            args.append(PYTHON_TYPES[kind](value) if mode == "python" else DTYPES[kind](value))
    return args


# --------------------------------------------------------------------------------- cases
PARAM_NAMES = "abcd"


@dataclasses.dataclass(frozen=True)
class Case:
    template: str          # an expression over {0}, {1}, ... (the arguments in order)
    kinds: tuple
    nout: int = 1          # how many results (2 for divmod, frexp, ... and tuple displays)
    bug: str | None = None         # the hypothesis test is a strict xfail for this reason
    repro: tuple = ()              # argument tuples that show the bug, run first
    dead_bug: str | None = None    # the dead-lane test is a strict xfail for this reason
    body: str | None = None        # a whole function body instead (template is then its id)
    rules: frozenset = frozenset()  # rules a body exercises that its text does not name
    refuses: bool = False          # no per-example input is valid: the batch must refuse too

    @property
    def id(self) -> str:
        if self.body is not None:
            return self.template
        return self.template.format(*self.kinds).replace(" ", "")

    def expression(self, suffix: str = "") -> str:
        return self.template.format(*[PARAM_NAMES[k] + suffix for k in range(len(self.kinds))])

    def source(self, name: str) -> list[str]:
        params = ", ".join(PARAM_NAMES[k] for k in range(len(self.kinds)))
        if self.body is not None:
            return [f"def {name}({params}):", *["    " + line for line in
                                                 self.body.strip("\n").splitlines()]]
        return [f"def {name}({params}):", f"    return {self.expression()}"]

    def syntax(self) -> ast.AST:
        if self.body is not None:
            return ast.parse(self.body.strip("\n"))
        return ast.parse(self.expression(), mode="eval")


LIST_OPERAND = frozenset({"shape.list_operand"})
MASKED = frozenset({"array.ragged_range"})


def C(template, *kinds, **options):
    return Case(template, tuple(kinds), **options)


def B(name, body, *kinds, **options):
    """A case written as a whole function body (for rules that statements trigger)."""
    return Case(name, tuple(kinds), body=body, **options)


def _unary_cases(funcs, prefix, kinds=("f",)):
    return [C(f"{prefix}.{name}({{0}})", kind) for name in funcs for kind in kinds]


def _binary_cases(funcs, prefix, kinds=("f", "f")):
    return [C(f"{prefix}.{name}({{0}}, {{1}})", *kinds) for name in funcs]


OPERATOR_CASES = [
    # arithmetic on floats, ints (moderate and wrapping), mixed, float32 and bools
    *[C("{0} " + op + " {1}", "f", "f") for op in ["+", "-", "*", "/", "//", "%", "**"]],
    *[C("{0} " + op + " {1}", "i", "i") for op in ["+", "-", "*", "/", "//", "%", "&", "|",
                                                    "^"]],
    *[C("{0} " + op + " {1}", "I", "I") for op in ["+", "-", "*", "//", "%", "&", "^"]],
    C("{0} ** {1}", "i", "u"),
    C("{0} ** {1}", "i", "i"),
    C("{0} << {1}", "i", "sh"),
    C("{0} >> {1}", "i", "sh"),
    C("{0} >> {1}", "I", "sh"),
    *[C("{0} " + op + " {1}", "i", "f") for op in ["+", "-", "*", "/", "//", "%", "**"]],
    *[C("{0} " + op + " {1}", "f", "i") for op in ["*", "/", "**"]],
    *[C("{0} " + op + " {1}", "f32", "f32") for op in ["+", "*", "/", "%"]],
    C("{0} + {1}", "f32", "f"),
    C("{0} * {1}", "i32", "i"),
    *[C("{0} " + op + " {1}", "b", "b") for op in ["&", "|", "^", "+", "*"]],
    C("{0} * {1}", "b", "f"),
    C("{0} + {1}", "b", "i"),
    C("{0} * 2 - 1.5", "f"),
    C("2 ** {0}", "u"),
    C("-7 // {0} + {0} % 3", "i"),
    C("1.0 / {0}", "f", rules=frozenset({"raise.any_lane"})),
    C("({0} - {1}) * ({0} + {1})", "f", "f"),
    # unary
    C("-{0}", "f"), C("-{0}", "i"), C("-{0}", "I"), C("+{0}", "f"), C("+{0}", "i"),
    C("~{0}", "i"), C("~{0}", "b"), C("-{0}", "f32"),
    # not
    C("not {0}", "b"), C("not {0}", "f"), C("not {0}", "i"), C("not {0} < {1}", "f", "f"),
    # and / or on bools and on other values (Python's value semantics)
    *[C("{0} " + op + " {1}", *kinds) for op in ["and", "or"]
      for kinds in [("b", "b"), ("f", "f"), ("i", "i"), ("f32", "f32")]],
    # with operands of different types the result type depends on the lanes (np.array of
    # ints and floats is float, of ints alone int): `+ 0.0` makes it float on every path
    *[C("({0} " + op + " {1}) + 0.0", *kinds) for op in ["and", "or"]
      for kinds in [("i", "f"), ("f", "i"), ("b", "f"), ("f", "b")]],
    C("{0} > 0 and {1} > 0", "f", "f"),
    C("{0} < 0 or {1} < 0", "f", "f"),
    C("{0} and {1} and {2}", "f", "f", "f"),
    C("({0} or {1} or {2}) + 0.0", "i", "f", "i"),
    C("{0} or {1} and {2}", "f", "f", "f"),
    C("{0} and {1} or {2}", "b", "b", "b"),
    C("{0} != 0 and 1.0 / {0} > 2.0", "f"),
    C("{0} <= 0 or np.log({0}) > 1.0", "f"),
    # comparisons, chained with 2 and 3 links
    *[C("{0} " + op + " {1}", "f", "f") for op in ["<", "<=", ">", ">=", "==", "!="]],
    C("{0} < {1}", "i", "f"),
    C("{0} == {1}", "i", "i"),
    C("{0} == {1}", "b", "b"),
    C("{0} >= {1}", "f32", "f"),
    C("{0} < {1} < {2}", "f", "f", "f"),
    C("{0} <= {1} > {2}", "i", "f", "i"),
    C("{0} == {1} != {2}", "i", "i", "i"),
    C("0.0 < {0} <= 1.0", "f"),
    C("{0} < {1} <= {2} != {3}", "f", "f", "f", "f"),
    C("-1 <= {0} < {1} < 10", "i", "i"),
    C("{0} != 0.0 < 1.0 / {0}", "f"),
    # conditional expressions
    C("{1} if {0} else {2}", "b", "f", "f"),
    C("{1} if {0} else {2}", "b", "i", "i"),
    C("({1} if {0} else {2}) + 0.0", "b", "i", "f"),
    C("{1} if {0} else {2}", "f", "f", "f"),
    C("{1} if {0} else {2}", "i", "b", "b"),
    C("{1} if {0} else {2}", "b!", "f", "f"),
    C("{0} if {0} > {1} else {1}", "f", "f"),
    C("{0} if {0} < 0 else ({1} if {1} < 0 else 0.0)", "f", "f"),
    C("{0} * 2.0 if {0} > 0 else 0.0", "f"),
    C("({0}, {1}) if {2} else ({1}, {0})", "f", "f", "b", nout=2),
    C("1.0 / {0} if {0} != 0 else 0.0", "f"),
    C("math.sqrt({0}) if {0} >= 0 else -1.0", "f"),
    C("{0} // {1} if {1} != 0 else 0", "i", "i"),
]

BUILTIN_CASES = [
    C("abs({0})", "f"), C("abs({0})", "i"), C("abs({0})", "I"), C("abs({0})", "b"),
    C("abs({0})", "f32"), C("abs({0} - {1})", "f", "f"),
    *[C(fn + "(" + args + ")", *kinds) for fn in ["min", "max"]
      for args, kinds in [("{0}, {1}", ("f", "f")), ("{0}, {1}", ("i", "i")),
                          ("{0}, {1}", ("b", "b")), ("{0}, {1}, {2}", ("i", "i", "i")),
                          ("{0}, {1}, {2}", ("f", "f", "f")), ("{0}, 0.0", ("f",)),
                          ("0.0, {0}", ("f",)), ("{0}, {1}", ("f32", "f"))]],
    C("min({0}, {1}) + 0.0", "i", "f"), C("max({0}, {1}) + 0.0", "i", "f"),
    C("round({0})", "fm"), C("round({0})", "i"), C("round({0}, 2)", "f"),
    C("round({0}, {1})", "f", "n!"), C("round({0}, ndigits=1)", "f"),
    C("round({0}, {1})", "i", "n!"), C("round({0}, -1)", "i"), C("round({0}, 1)", "f32"),
    C("round({0})", "f32m"),
    C("int({0})", "fm"), C("int({0})", "i"), C("int({0})", "b"), C("int({0})", "i32"),
    C("int({0} * 10.0)", "fm"), C("int({0})", "f32m"),
    C("float({0})", "f"), C("float({0})", "i"), C("float({0})", "b"), C("float({0})", "f32"),
    C("bool({0})", "f"), C("bool({0})", "i"), C("bool({0})", "b"),
    C("pow({0}, {1})", "f", "f"), C("pow({0}, {1})", "i", "u"), C("pow({0}, {1})", "f", "i"),
    C("pow({0}, 2)", "i"),
    C("divmod({0}, {1})", "f", "f", nout=2), C("divmod({0}, {1})", "i", "i", nout=2),
    C("complex({0})", "f"), C("complex({0}, {1})", "f", "f"), C("complex({0}, {1})", "i", "f"),
    C("complex({0})", "i"), C("abs(complex({0}, {1}))", "f32", "f"),
    # a list or tuple display of per-example values passed where an array is expected
    C("sum([{0}, {1}, {2}])", "f", "f", "f", rules=LIST_OPERAND),
    C("sum(({0}, {1}))", "i", "i", rules=LIST_OPERAND),
    C("max([{0}, {1}, 0.5])", "f", "f", rules=LIST_OPERAND),
    C("min(({0}, {1}))", "i", "i", rules=LIST_OPERAND),
    C("divmod({0}, {1})", "i", "f", nout=2), C("divmod({0}, 7)", "I", nout=2),
]

MATH_UNARY = ["sqrt", "exp", "expm1", "log2", "log10", "log1p", "sin", "cos", "tan", "asin",
              "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "fabs",
              "degrees", "radians", "exp2", "cbrt", "isnan", "isinf", "isfinite", "log"]
MATH_BINARY = ["atan2", "hypot", "copysign", "fmod", "nextafter", "pow", "log", "isclose"]

MATH_CASES = [
    *_unary_cases(MATH_UNARY, "math"),
    *_unary_cases(["sqrt", "exp", "sin", "log", "isnan", "fabs", "atanh"], "math", ["i"]),
    *_unary_cases(["sqrt", "exp", "sin", "log10", "atan", "isinf", "fabs"], "math", ["f32"]),
    *_unary_cases(["sqrt", "cos", "degrees", "cbrt"], "math", ["b", "i32"]),
    *_binary_cases(MATH_BINARY, "math"),
    *_binary_cases(["atan2", "pow", "copysign", "hypot"], "math", ("i", "i")),
    C("math.atan2({0}, {1})", "f32", "f"),
    C("math.fmod({0}, {1})", "i", "f"),
    C("math.ldexp({0}, int({1}))", "f", "i"), C("math.ldexp({0}, round({1}))", "f", "fm"),
    C("math.gcd(int({0}), 12)", "fm"),
    C("math.ldexp({0}, 3)", "f"),
    C("math.hypot({0}, {1}, {2})", "f", "f", "f"), C("math.hypot({0})", "f"),
    C("math.hypot({0}, {1}, {2}, {1})", "f", "f", "i"),
    C("math.gcd({0}, {1})", "i", "i"), C("math.lcm({0}, {1})", "i", "i"),
    C("math.gcd({0}, {1}, {2})", "i", "i", "i"), C("math.lcm({0}, {1}, {2})", "i", "i", "i"),
    C("math.gcd({0}, 12)", "i"), C("math.gcd({0}, {1})", "i32", "i"),
    # (NumPy's ints and float32 have no __trunc__: math.trunc of them raises per example)
    *[C(f"math.{name}({{0}})", kind) for name in ["floor", "ceil"]
      for kind in ["fm", "i", "b", "f32m"]],
    C("math.trunc({0})", "fm"), C("math.trunc(float({0}))", "f32m"),
    C("math.frexp({0})", "f", nout=2), C("math.modf({0})", "f", nout=2),
    C("math.frexp({0})", "i", nout=2), C("math.modf({0})", "f32", nout=2),
    C("math.log({0}, 2)", "f"), C("math.log({0}, {1})", "i", "i"),
    C("math.isclose({0}, {1}, rel_tol=1e-3, abs_tol=1e-9)", "f", "f"),
    C("math.isclose({0}, {1}, abs_tol=0.5)", "i", "f"),
    C("math.pow({0}, 0.5)", "f"),
    *_binary_cases(["remainder"], "math"), C("math.remainder({0}, {1})", "i", "i"),
    C("math.remainder({0}, 2.0)", "f"), C("math.remainder({0}, {1})", "f32", "f"),
    C("math.comb({0}, {1})", "sh", "sh"), C("math.perm({0}, {1})", "sh", "sh"),
    C("math.factorial({0})", "sh"), C("math.isqrt({0})", "I"), C("math.isqrt({0})", "i32"),
    C("calendar.weekday({0} * 37, 1 + {1} % 12, 1 + {2} % 28)", "i", "i", "i"),
    C("calendar.weekday(2000 + {0}, {1}, {2})", "i", "i", "i"),
    C("math.fsum([{0}, {1}, {2}])", "f", "f", "f"), C("math.fsum(({0}, {1}, 0.1))", "i", "fm"),
    C("math.prod([{0}, {1}, {2}])", "sh", "sh", "sh"),
    C("math.prod([{0}, {1}, 0.5], start={2})", "i", "fm", "sh"),
    C("math.dist(({0}, {1}), ({2}, 0.5))", "f", "i", "fm"), C("math.dist([{0}], [{1}])", "f", "f"),
    C("int({0}).bit_length()", "i"), C("{0}.bit_count()", "i"), C("{0}.bit_count()", "i32"),
    C("pow(int({0}), int({1}), 7)", "i", "sh"), C("pow(int({0}), 2, int({1}))", "i", "sh"),
    *_unary_cases(["gamma", "erf", "erfc"], "math", ["fs", "i"]),
    *_unary_cases(["lgamma"], "math", ["fp", "i"]),
]

# NumPy ufuncs, by the argument kinds that make sense for them.
UFUNCS_UNARY_FLOAT = [
    "absolute", "arctan", "ceil", "conjugate", "cos", "deg2rad", "degrees", "fabs", "floor",
    "isfinite", "isinf", "isnan", "negative", "positive", "rad2deg", "radians", "rint", "sign",
    "signbit", "sin", "spacing", "tan", "tanh", "trunc", "logical_not", "arccos", "arccosh",
    "arcsin", "arcsinh", "arctanh", "cbrt", "cosh", "exp", "exp2", "expm1", "log", "log10",
    "log1p", "log2", "reciprocal", "sinh", "sqrt", "square"]
UFUNCS_BINARY_FLOAT = [
    "arctan2", "copysign", "fmax", "fmin", "maximum", "minimum", "nextafter", "equal",
    "not_equal", "greater", "greater_equal", "less", "less_equal", "logical_and", "logical_or",
    "logical_xor", "add", "subtract", "multiply", "divide", "floor_divide", "remainder", "fmod",
    "power", "float_power", "hypot", "heaviside", "logaddexp", "logaddexp2"]
UFUNCS_UNARY_INT = ["absolute", "negative", "sign", "invert", "bitwise_count", "square",
                    "positive"]
UFUNCS_BINARY_INT = ["bitwise_and", "bitwise_or", "bitwise_xor", "gcd", "lcm", "add",
                     "subtract", "multiply", "floor_divide", "remainder", "maximum", "minimum",
                     "fmod", "true_divide", "equal", "less"]
UFUNCS_BINARY_BOOL = ["logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or",
                      "bitwise_xor", "equal", "not_equal", "maximum"]

NUMPY_CASES = [
    *_unary_cases(UFUNCS_UNARY_FLOAT, "np"),
    *_unary_cases(["sqrt", "exp", "sin", "log", "absolute", "rint", "reciprocal"], "np",
                  ["f32"]),
    *_binary_cases(UFUNCS_BINARY_FLOAT, "np"),
    *_binary_cases(["add", "multiply", "arctan2", "maximum", "divide"], "np", ("f32", "f")),
    *_unary_cases(UFUNCS_UNARY_INT, "np", ["i"]),
    *_unary_cases(["invert", "logical_not", "absolute"], "np", ["b"]),
    *_binary_cases(UFUNCS_BINARY_INT, "np", ("i", "i")),
    *_binary_cases(UFUNCS_BINARY_BOOL, "np", ("b", "b")),
    *_binary_cases(["left_shift", "right_shift"], "np", ("i", "sh")),
    C("np.power({0}, {1})", "i", "u"),
    C("np.ldexp({0}, {1})", "f", "i"),
    C("np.add({0}, {1})", "i", "f"),
    C("np.frexp({0})", "f", nout=2), C("np.modf({0})", "f", nout=2),
    C("np.divmod({0}, {1})", "f", "f", nout=2), C("np.divmod({0}, {1})", "i", "i", nout=2),
    C("np.broadcast_arrays({0}, {1})", "f", "f", nout=2),
    C("np.broadcast_arrays({0}, 2.0)", "i", nout=2),
    C("np.maximum({0}, 0.0)", "f"), C("np.hypot(3.0, {0})", "f"),
    # gufuncs (core dimensions): no per-example scalar is valid for them, so the batch must
    # refuse too (matmul has its own rule in the linear algebra family)
    *[C(f"np.{name}({{0}}, {{1}})", "f", "f", refuses=True)
      for name in ["matmul", "vecdot", "matvec", "vecmat"]],
    # elementwise functions that are not ufuncs
    C("np.where({0}, {1}, {2})", "b", "f", "f"), C("np.where({0}, {1}, {2})", "f", "i", "f"),
    C("np.where({0} > {1}, {0}, {1})", "f", "f"), C("np.where({0}, {1}, 0.0)", "b", "f"),
    C("np.clip({0}, {1}, {2})", "f", "f", "f"), C("np.clip({0}, {1}, {2})", "i", "i", "i"),
    C("np.clip({0}, 0.0, 1.0)", "f"), C("np.clip({0}, -5, 5)", "i"),
    C("np.clip({0}, {1}, None)", "f", "f"),
    C("np.round({0})", "f"), C("np.round({0}, 2)", "f"), C("np.round({0}, {1})", "f", "n!"),
    C("np.round({0}, -1)", "i"), C("np.round({0})", "f32"), C("np.round({0}, decimals=1)", "f"),
    C("np.around({0}, 1)", "f"), C("{0}.is_integer()", "f"), C("({0} * 0.5).is_integer()", "i"),
    C("np.sinc({0})", "f"), C("np.fix({0})", "f"), C("np.i0({0})", "f"),
    C("np.nan_to_num({0})", "f"), C("np.nan_to_num({0}, nan=-1.0, posinf=2.0, neginf=-2.0)", "f"),
    C("np.real({0})", "f"), C("np.imag({0})", "f"), C("np.angle({0})", "f"),
    C("np.iscomplex({0})", "f"), C("np.isreal({0})", "f"),
    C("np.isclose({0}, {1})", "f", "f"),
    C("np.isclose({0}, {1}, rtol=0.0, atol=0.5, equal_nan=True)", "f", "f"),
    *_unary_cases(["sqrt", "log", "log2", "log10", "arccos", "arcsin", "arctanh"], "np.emath",
                  ["fe"]),
    C("np.emath.logn({0}, {1})", "fe", "fe"), C("np.emath.power({0}, {1})", "fe", "u"),
    C("np.emath.sqrt({0})", "i"),
    # a list display of per-example values as an array operand
    C("np.mean([{0}, {1}, 1.0])", "f", "f", rules=LIST_OPERAND),
    C("np.max(({0}, {1}))", "i", "i", rules=LIST_OPERAND),
    C("np.linalg.norm([{0}, {1}])", "f", "f", rules=LIST_OPERAND),
    C("np.dot([{0}, {1}], [2.0, -1.0])", "f", "f", rules=LIST_OPERAND),
    # np.arange with per-example bounds, reduced (padded and masked)
    C("np.sum({0} ** np.arange({1}))", "f", "u", rules=MASKED),
    C("np.prod(np.arange(1, {0} + 1))", "u", rules=MASKED),
    # (never empty: the mean of an empty range warns 'Mean of empty slice', a warning
    # errstate does not silence)
    C("np.mean(np.arange({0}, {0} + {1} % 7 + 1) * 0.5)", "i32", "i32", rules=MASKED),
    C("sum(np.arange({0}, {1}, 3))", "i32", "i32", rules=MASKED),
    C("np.sum(np.arange(0, 20, {0}))", "sh", rules=MASKED),
    C("np.any(np.arange({0}) > {1})", "u", "f", rules=MASKED),
    C("np.all(np.sin(np.arange({0}, 10)) < {1})", "i32", "f", rules=MASKED),
    C("np.arange({0}).sum() * 1.5", "u", rules=MASKED),
]

# scipy.special ufuncs and scipy.stats distributions (the scipy family)
SCIPY_CASES = [
    *_unary_cases(["erf", "erfc", "gamma", "gammaln", "expit", "logit", "ndtr", "ndtri", "j0",
                   "i0e", "erfinv", "log1p", "psi", "cbrt"],
                  "scipy.special", ["f"]),
    C("scipy.special.jv({0}, {1})", "i", "f"), C("scipy.special.gammainc({0}, {1})", "f", "f"),
    C("scipy.special.xlogy({0}, {1})", "f", "f"), C("scipy.special.erf({0})", "i"),
    C("scipy.special.expit({0})", "f32"),
    C("scipy.stats.norm.cdf({0})", "f"), C("scipy.stats.norm.pdf({0}, {1}, 2.0)", "f", "f"),
    C("scipy.stats.norm.logpdf({0}, loc={1}, scale={2})", "f", "f", "f"),
    C("scipy.stats.gamma.sf({0}, {1})", "f", "f"), C("scipy.stats.t.ppf({0}, 3.0)", "f"),
    C("scipy.stats.poisson.pmf({0}, {1})", "i", "f"),
    C("scipy.stats.norm(0.5, 2.0).isf({0})", "f", rules=frozenset({"scipy.stats_method"})),
    C("scipy.stats.expon(scale=2.0).logcdf({0})", "f",
      rules=frozenset({"scipy.stats_method"})),
    # frozen with per-example parameters: every pointwise method
    *[C(f"scipy.stats.norm({{0}}, 2.0).{m}({{1}})", "f", "f")
      for m in ["pdf", "logpdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]],
    *[C(f"scipy.stats.poisson({{0}}).{m}({{1}})", "f", "i") for m in ["pmf", "logpmf"]],
]

# Rules that statements trigger: loops whose examples stop at different times.
STATEMENT_CASES = [
    # arrays created for per-example data (the creation family)
    B("created_with_a_shape", """
y = np.zeros(3)
y[1] = a
y[2] = a * b
return y[1] + y[2] - y[0]
""", "f", "f", rules=frozenset({"creation.batched_shape"})),
    B("created_as_copies", """
y = np.arange(3.0)
z = np.zeros(shape=2)
y[0] = a
z[1] = y[2] + a
return y[0] + y[1] * z[1] - z[0]
""", "f", rules=frozenset({"creation.repeated"})),
    # Python numbers divided in a branch: the lanes that take it raise per example
    # (excluded); the others must not make the whole batch raise
    B("python_float_division_in_a_branch", """
q = 0.0
if a > 1.0:
    q = 2.0 / q
return a + q
""", "f", rules=frozenset({"operator.python_number_division"})),
    B("python_divmod_in_a_branch", """
q = 0.0
r = 0.0
if a > 1.0:
    q, r = divmod(3.0, q)
return a + q + r
""", "f", rules=frozenset({"operator.python_number_division"})),
    B("python_int_floor_division_in_a_branch", """
k = 0
if a > 1.0:
    k = 7 // k + 7 % k
return a + k
""", "f", rules=frozenset({"operator.python_number_division"})),
    B("while_batched_test", """
k = 0
while a > b and k < 60:
    a = a / 2.0
    k = k + 1
return a, k
""", "f", "f", nout=2, rules=frozenset({"loop.any_lane"})),
    B("while_newton_sqrt", """
y = a if a > 1.0 else 1.0
k = 0
while abs(y * y - a) > 1e-9 * a and k < 100:
    y = (y + a / y) / 2.0
    k += 1
return y
""", "f", rules=frozenset({"loop.any_lane"})),
    B("while_int_collatz", """
n = abs(a) % 1000 + 1
steps = 0
while n != 1 and steps < 200:
    n = n // 2 if n % 2 == 0 else 3 * n + 1
    steps += 1
return steps
""", "i", rules=frozenset({"loop.any_lane"})),
    B("for_range_batched_bound", """
s = 0.0
for i in range(b):
    s = s + a * i
return s
""", "f", "sh", rules=frozenset({"loop.any_lane"})),
    B("for_break_batched", """
y = a
for k in range(10):
    if y > 100.0:
        break
    y = y * 2.0 + 1.0
return y
""", "f", rules=frozenset({"loop.any_lane"})),
    B("for_return_batched", """
for k in range(8):
    if a * k > b:
        return k
return -1
""", "f", "f", rules=frozenset({"loop.any_lane"})),
    B("for_continue_batched", """
s = 0.0
for k in range(6):
    if (a + k) % 2.0 == 0.0:
        continue
    s = s + 1.0 / (a + k)
return s
""", "f", rules=frozenset({"loop.any_lane"})),
    B("raise_batched", """
if a < b:
    raise ValueError(f"{a} is below {b}")
return a - b
""", "f", "f", rules=frozenset({"loop.any_lane", "raise.first_lane", "raise.lane"})),
]

# Per-example arrays (the arrays / linear algebra / shapes families). These compare
# `vmap(f)` with the per-example loop over ``np.take(arg, n, axis=0)`` (the vmap contract of
# README.md); `assert_matches_loop` hands every element out separately, so it cannot pass a
# per-example array. Array elements are small multiples of 0.5 (exact in any summation order,
# so a reduction or an einsum may add in another order than the per-example code) plus NaN,
# +-inf and -0.0 (complex elements are finite: NumPy's complex products with infinities differ
# between its routines). A method called on a shared array with per-example arguments is
# rejected (`VectorizeError`, no rule), so the receiver of a method case is always mapped.
ARRAY_KINDS = {"v3": ((3,), "e"), "v4": ((4,), "e"), "v6": ((6,), "e"), "m23": ((2, 3), "e"),
               "m32": ((3, 2), "e"), "m33": ((3, 3), "e"), "m13": ((1, 3), "e"),
               "t223": ((2, 2, 3), "e"), "v3i": ((3,), "i"), "v3b": ((3,), "b"),
               "v3c": ((3,), "c"), "m23i": ((2, 3), "i"), "v3k": ((3,), "k"),
               "m23k": ((2, 3), "k"), "m33k": ((3, 3), "k"), "v3p": ((3,), "p"),
               "v4p": ((4,), "p"), "m34": ((3, 4), "e")}
FINITE = st.integers(-40, 40).map(lambda k: k / 2)
EXACT = st.one_of(st.sampled_from([0.0, -0.0, NAN, INF, -INF, 0.5, -2.5]), FINITE)
ARRAY_ELEMENTS = {"e": (np.float64, EXACT), "i": (np.int64, st.integers(-50, 50)),
                  # indices that fit an axis of length 3 (negative ones too)
                  "k": (np.int64, st.integers(-3, 2)),
                  # polynomial coefficients: np.roots strips zeros per example
                  "p": (np.float64, FINITE.filter(lambda v: v != 0)),
                  "b": (np.bool_, st.booleans()),
                  "c": (np.complex128, st.builds(complex, FINITE, FINITE))}
SCALAR_KINDS_IN_ARRAY_CASES = {"x": (np.float64, EXACT), "k3": (np.int64, st.integers(-3, 2)),
                               # a clip bound: np.clip breaks the tie of 0.0 and -0.0 one way
                               # for a scalar bound, the other for an array bound (NumPy)
                               "xb": (np.float64, EXACT.filter(lambda v: not (
                                   v == 0 and math.copysign(1, v) < 0))),
                               "i": (np.int64, st.integers(-50, 50)),
                               "b": (np.bool_, st.booleans())}


def is_array_case(case: Case) -> bool:
    """Whether the case belongs to the per-example array section (compared through vmap)."""
    return any(kind in ARRAY_KINDS or kind in ("x", "xb", "k3") for kind in case.kinds)


def A(template, *kinds, **options):
    case = C(template, *kinds, **options)
    assert is_array_case(case), template
    return case


ARRAY_REDUCTIONS = ["sum", "prod", "mean", "std", "var", "min", "max", "amin", "amax", "median",
                    "nansum", "nanprod", "nanmean", "nanstd", "nanvar", "nanmin", "nanmax",
                    "ptp", "count_nonzero", "argmin", "argmax", "cumsum", "cumprod",
                    "nanargmin", "nanargmax", "nancumsum", "nancumprod"]
ARRAY_METHODS = ["sum", "prod", "mean", "std", "var", "min", "max", "argmin", "argmax", "cumsum",
                 "cumprod"]

ARRAY_CASES = [
    # indexing (constant indices, slices, ..., None, a per-example index)
    A("{0}[0]", "v3"), A("{0}[-1] * {1}", "v3", "x"), A("{0}[1:]", "v3"), A("{0}[::-1]", "v3"),
    A("{0}[0, 1]", "m23"), A("{0}[:, 0]", "m23"), A("{0}[..., -1]", "m23"),
    A("{0}[None, 1:]", "v3"), A("{0}[{1}]", "v3", "k3"), A("{0}[{1}]", "m32", "k3"),
    A("{0}[{1}] + {0}[0]", "v3i", "k3"),
    # shape attributes and elementwise attributes
    A("{0}.shape[0] * {1}", "m23", "x"), A("{0}.ndim + {1}", "m23", "x"),
    A("{0}.size * {1}", "t223", "x"), A("{1}.astype({0}.dtype)", "v3i", "v3"),
    A("{0}.T", "m23"), A("{0}.T", "t223"), A("{0}.T", "v3"),
    A("np.ndim({0}) + {1}", "m23", "x"), A("np.shape({0})[1] * {1}", "m23", "x"),
    A("np.size({0}) * {1}", "t223", "x"),
    # `.item()`: a Python number per example (complex for a negative base)
    A("{0}.item() ** 0.5", "x"), A("{0}.item() * 3 + {1}[0]", "k3", "v3i"),
    A("{0}.real", "v3c"), A("{0}.imag", "v3c"), A("{0}.real + {0}.imag", "v3"),
    # reductions: functions, methods, axes, booleans, ints
    *[A(f"np.{name}({{0}})", "v3") for name in ARRAY_REDUCTIONS],
    *[A(f"{{0}}.{name}()", "v3") for name in ARRAY_METHODS],
    A("np.any({0})", "v3b"), A("np.all({0})", "v3b"), A("{0}.any()", "v3"), A("{0}.all()", "v3i"),
    A("np.sum({0}, axis=0)", "m23"), A("np.sum({0}, axis=-1)", "m23"),
    A("np.max({0}, axis=1)", "m23"), A("{0}.mean(axis=0)", "m23"), A("{0}.sum(0)", "m23"),
    A("np.sum({0}, axis=(0, 1))", "t223"), A("np.sum({0}, axis=0, keepdims=True)", "m23"),
    A("np.argmax({0})", "m23"), A("np.cumsum({0})", "m23"), A("np.cumsum({0}, axis=1)", "m23"),
    A("np.sum({0})", "m23i"), A("np.prod({0})", "v3i"), A("np.mean({0})", "v3b"),
    A("np.count_nonzero({0})", "v3b"), A("np.median({0}, axis=1)", "m23"),
    A("np.std({0}, ddof=1)", "v4"),
    A("np.linalg.norm({0})", "v3"), A("np.linalg.norm({0})", "m23"),
    A("np.linalg.norm({0}, axis=1)", "m23"), A("np.linalg.norm({0}, ord=1)", "v3"),
    A("len({0}) * {1}", "v3", "x"), A("len({0})", "m23"), A("sum({0})", "v3"),
    A("sum({0}, 1.5)", "v3"), A("sum({0})", "m23"), A("sum({0})", "v3i"),
    # elementwise methods
    A("{0}.astype(np.float32)", "v3"), A("{0}.astype(float)", "v3i"), A("{0}.astype(int)", "v3b"),
    # hstack / vstack of per-example pieces
    A("np.hstack([{0}, {1}])", "v3", "v4"), A("np.hstack([{0}, {0}])", "m23"),
    A("np.vstack([{0}, {0}])", "v3"), A("np.vstack([{0}, {0}])", "m23"),
    # arrays like a per-example array
    A("np.zeros_like({0}) + {0}", "v3"), A("np.ones_like({0})", "m23"),
    A("np.full_like({0}, 2.0) * {0}", "v3"), A("np.empty_like({0}).shape[0] * {1}", "v3", "x"),
    A("np.copy({0})", "m23"), A("{0}.copy()", "v3"),
    A("{0}.clip(-1.0, 1.0)", "v3"), A("{0}.clip({1}, 2.0)", "v3", "xb"), A("{0}.round(1)", "v3"),
    A("{0}.round()", "v3"), A("{0}.conj()", "v3c"), A("{0}.conjugate()", "v3c"),
    # products
    A("np.dot({0}, {1})", "v3", "v3"), A("np.dot({0}, {1})", "m23", "v3"),
    A("np.dot({0}, {1})", "m23", "m32"), A("np.dot({0}, {1})", "v3", "x"),
    A("np.dot({0}, {1})", "v3i", "v3i"), A("{0}.dot({1})", "v3", "v3"),
    A("{0}.dot({1})", "m23", "v3"), A("np.matmul({0}, {1})", "m23", "v3"),
    A("np.matmul({0}, {1})", "v3", "m32"), A("{0} @ {1}", "m23", "m32"),
    A("{0} @ {1}", "v3", "v3"), A("{0} @ {1}", "m33", "m33"),
    A("np.inner({0}, {1})", "v3", "v3"), A("np.inner({0}, {1})", "m23", "v3"),
    A("np.outer({0}, {1})", "v3", "v4"), A("np.vdot({0}, {1})", "v3c", "v3c"),
    A("np.vdot({0}, {1})", "v3", "v3"), A("np.tensordot({0}, {1}, axes=1)", "m23", "m32"),
    A("np.tensordot({0}, {1}, axes=2)", "m23", "m23"), A("np.trace({0})", "m33"),
    A("np.trace({0})", "m23"), A('np.einsum("i,i->", {0}, {1})', "v3", "v3"),
    A('np.einsum("ij,j->i", {0}, {1})', "m23", "v3"), A('np.einsum("ii", {0})', "m33"),
    A('np.einsum("ij->ji", {0})', "m23"), A('np.einsum("i,j", {0}, {1})', "v3", "v4"),
    # shapes
    A("np.reshape({0}, (2, 3))", "v6"), A("{0}.reshape(3, 2)", "m23"), A("{0}.reshape(-1)", "m23"),
    A("{0}.reshape((2, 3))", "v6"), A("np.ravel({0})", "m23"), A("{0}.ravel()", "t223"),
    A("{0}.flatten()", "m23"), A("np.transpose({0})", "m23"), A("{0}.transpose()", "t223"),
    A("{0}.transpose(1, 0, 2)", "t223"), A("np.transpose({0}, (2, 0, 1))", "t223"),
    A("np.swapaxes({0}, 0, 1)", "m23"), A("{0}.swapaxes(0, -1)", "t223"),
    A("np.moveaxis({0}, 0, -1)", "t223"), A("np.expand_dims({0}, 0)", "v3"),
    A("np.expand_dims({0}, -1)", "m23"), A("np.squeeze({0}, axis=0)", "m13"),
    A("{0}.squeeze(axis=0)", "m13"), A("np.stack([{0}, {1}])", "v3", "v3"),
    A("np.stack([{0}, {1}], axis=1)", "v3", "v3"), A("np.stack([{0}, {1}, {0}])", "m23", "m23"),
    A("np.stack([{0}, {1}])", "x", "x"), A("np.stack([{0}, 2.0 * {1}], axis=-1)", "x", "x"),
    A("np.concatenate([{0}, {1}])", "v3", "v4"), A("np.concatenate([{0}, {1}], axis=1)", "m23",
                                                   "m23"),
    A("np.concatenate([{0}, {1}])", "m23", "m33"),
    # per-example scalars gathered into per-example vectors
    A("np.array([{0}, {1}, 1.0])", "x", "x", "v3"),
    A("np.sum(np.array([{0}, {1}])) + {2}[0]", "x", "x", "v3"),
    A("np.asarray([{0}, {1}]) * {2}[:2]", "x", "x", "v3"),
    A("np.asanyarray([{0}, {1}]) * {2}[:2]", "x", "x", "v3"), A("np.asanyarray({0}) ** 1.5", "v3"),
    # operators, comparisons and elementwise functions across per-example ranks (padding)
    A("{0} * {1}", "v3", "x"), A("{0} + {1}", "m23", "v3"), A("{0} - {1}", "x", "m23"),
    A("{0} > {1}", "v3", "x"), A("np.where({0} > 0, {0}, {1})", "v3", "x"),
    A("np.maximum({0}, {1})", "m23", "v3"), A("-{0}", "v3"), A("~{0}", "v3b"),
    A("{0} if {1} > 0 else -{0}", "v3", "x"), A("np.clip({0}, {1}, 1.0)", "v3", "xb"),
    # lists and tuples of per-example values as array operands (the per-example view)
    A("sum([{0}, {1}, {2}])", "x", "x", "x", rules=LIST_OPERAND),
    A("np.mean([{0}, {1}, 1.0])", "x", "x", rules=LIST_OPERAND),
    A("np.max(({0}, {1}))", "x", "x", rules=LIST_OPERAND),
    A("np.linalg.norm([{0}, {1}, {2}])", "x", "x", "x", rules=LIST_OPERAND),
    A("np.dot([{0}, {1}, 2.0], {2})", "x", "x", "v3", rules=LIST_OPERAND),
    A("np.sum([{0}, {1}], axis=0)", "v3", "v3", rules=LIST_OPERAND),
    A("np.array([[{0}, {1}], [{1}, 1.0]]) @ {2}[:2]", "x", "x", "v3", rules=LIST_OPERAND),
    A("max([{0}, {1}, {2}])", "x", "x", "x", rules=LIST_OPERAND),
    # (a zero last coefficient makes the batch raise: docs/semantics.md)
    A("np.roots([1.0, {0}, {1} * {1} + 0.5])", "x", "x", rules=LIST_OPERAND),
    # sorting, flipping, rolling, picking along an axis
    A("np.sort({0})", "v3"), A("np.sort({0}, axis=0)", "m23"), A("np.sort({0}, axis=None)", "m23"),
    A("np.argsort({0})", "v3"), A("np.argsort({0}, axis=0, kind='stable')", "m23"),
    A("{0}.argsort()", "v3"), A("{0}.argsort(axis=0)", "m23"),
    A("np.partition({0}, 1)", "v3"), A("np.argpartition({0}, 2, axis=None)", "m23"),
    A("np.flip({0})", "m23"), A("np.flip({0}, axis=1)", "m23"), A("np.flip({0}, 0)", "v3"),
    A("np.fliplr({0})", "m23"), A("np.flipud({0})", "m23"), A("np.roll({0}, 1)", "v3"),
    A("np.roll({0}, -1)", "m23"), A("np.roll({0}, 2, axis=1)", "m23"),
    A("np.roll({0}, {1})", "v3", "k3"), A("np.roll({0}, {1}, axis=0)", "m23", "k3"),
    A("np.roll({0}, {1})", "m23", "k3"),
    A("np.take_along_axis({0}, np.argsort({0}), axis=0)", "v3"),
    A("np.take_along_axis({0}, {1}, axis=1)", "m23", "m23k"),
    A("np.take_along_axis({0}, {1}, axis=-1)", "v3", "v3k"),
    A("np.take_along_axis({0}, {1}, axis=None)", "m23", "v3k"),
    # picking, repeating, differencing; lookups in shared tables
    A("np.take({0}, [2, -1])", "m23"), A("np.take({0}, {1})", "v3", "k3"),
    A("np.take({0}, {1}, axis=1)", "m33", "k3"), A("np.take({0}, {1}, axis=0)", "m33", "v3k"),
    A("np.take({0}, {1}, axis=1)", "m33", "m23k"), A("np.take({0}, {1}, axis=-1)", "m23", "k3"),
    A("np.take(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), {0}, axis=1)", "v3k"),
    A("np.take(np.array([1.5, -2.0, 0.5]), {0})", "k3"),
    A("np.take({0}, {1} + 5, mode='wrap')", "v3", "k3"), A("{0}.take({1})", "m23", "v3k"),
    A("np.take({0}, 1, axis=0)", "m33"),
    A("np.tile({0}, 2)", "v3"), A("np.tile({0}, (2, 1, 2))", "m23"), A("np.tile({0}, 3)", "x"),
    A("np.repeat({0}, 2)", "m23"), A("np.repeat({0}, [1, 0, 2], axis=1)", "m23"),
    A("{0}.repeat(2, axis=0)", "v3"), A("np.repeat({0}, 3)", "x"),
    A("np.diagonal({0})", "m33"), A("np.diagonal({0}, 1)", "m23"),
    A("np.diagonal({0}, -1, 2, 0)", "t223"), A("{0}.diagonal()", "m23"),
    A("np.trace({0}, 1)", "m33"), A("np.trace({0}, 0, 1, 2)", "t223"), A("{0}.trace()", "m33"),
    A("np.diff({0})", "v4"), A("np.diff({0}, 2, axis=0)", "m33"), A("np.diff({0}, n=0)", "v3"),
    A("np.diff({0}, prepend={1})", "v3", "x"), A("np.diff({0}, append=0.5)", "m23"),
    A("np.cumsum({0}, axis=0)", "m23"), A("np.cumprod({0})", "v3i"),
    A("np.interp({0}, np.array([-1.0, 0.0, 2.5]), np.array([3.0, -1.0, 0.5]))", "v3"),
    A("np.interp({0}, np.array([-1.0, 0.0, 2.5]), np.array([3.0, -1.0, 0.5]), left=9.0, "
      "right=-9.0)", "x"),
    A("np.interp({0}, np.array([0.0, 1.0]), np.array([1j, 2.0]))", "x"),
    A("np.polyval(np.array([1.5, -2.0, 0.25]), {0})", "x"),
    A("np.polyval([2.0, 0.5, -1.0, 3.0], {0})", "v3"), A("np.polyval({0}, {1})", "v3", "x"),
    A("np.polyval({0}, {1})", "v4", "xb"),
    A("np.searchsorted(np.array([-1.0, 0.0, 0.0, 2.5]), {0})", "v3"),
    A("np.searchsorted(np.array([-1.0, 0.0, 0.0, 2.5]), {0}, side='right')", "x"),
    # padding
    A("np.pad({0}, 1)", "v3"), A("np.pad({0}, ((1, 0), (0, 2)), mode='edge')", "m23"),
    A("np.pad({0}, (1, 2), 'reflect')", "v4"), A("np.pad({0}, 2, 'wrap')", "m23"),
    A("np.pad({0}, 1, constant_values=((1.0, -1.0), (2.0, 0.5)))", "m23"),
    A("np.pad({0}, 2, mode='linear_ramp', end_values=(5.0, -1.0))", "v3"),
    A("np.pad({0}, 1, 'maximum')", "m23"), A("np.pad({0}, (0, 2), 'symmetric')", "v3i"),
    # per-example index arrays: gathers and the index arrays' broadcasting
    A("{0}[{1}]", "v3", "v3k"), A("{0}[{1}, 0]", "m33", "v3k"), A("{0}[{1}, {2}]", "m33", "v3k",
                                                                  "k3"),
    A("{0}[{1}, np.array([0, 2])]", "m33", "k3"), A("{0}[{1}]", "m33", "m23k"),
    # per-example integers mixed with slices; copies and fills of per-example values
    A("{0}[{1}, 1:]", "m33", "k3"), A("{0}[{1}, ::-1]", "m33", "k3"),
    A("np.array({0})", "v3"), A("np.array({0}, dtype=np.float32)", "m23"),
    A("np.full(3, {0})", "x"), A("np.full((2, 3), {0})", "v3"),
    # linear algebra on stacks of matrices
    A("np.linalg.det({0})", "m33"), A("np.linalg.inv({0})", "m33"),
    A("np.linalg.slogdet({0})", "m33", nout=2),
    A("np.linalg.cholesky({0} @ {0}.T + 9.0 * np.eye(3))", "m33"),
    A("np.linalg.eigvalsh({0} + {0}.T)", "m33"), A("np.linalg.eigvals({0})", "m33"),
    A("np.linalg.eigh({0} + {0}.T)[0]", "m33"), A("np.linalg.svd({0}, compute_uv=False)", "m23"),
    A("np.linalg.qr({0})[1]", "m33"), A("np.linalg.pinv({0})", "m23"),
    A("np.linalg.matrix_rank({0})", "m33"), A("np.linalg.matrix_power({0}, 3)", "m33"),
    A("np.linalg.cond({0})", "m33"), A("np.linalg.svdvals({0})", "m33"),
    A("np.linalg.matrix_norm({0})", "m23"), A("np.linalg.trace({0})", "m33"),
    A("np.linalg.diagonal({0})", "m23"), A("np.linalg.matrix_transpose({0})", "m23"),
    A("np.linalg.eig({0})[0]", "m33"),
    A("np.linalg.solve({0}, {1})", "m33", "v3"), A("np.linalg.solve({0}, {1})", "m33", "m34"),
    A("np.linalg.solve({0} + 4.0 * np.eye(3), {1})", "m33k", "v3"),
    A("np.cross({0}, {1})", "v3", "v3"), A("np.linalg.cross({0}, {1})", "v3", "v3"),
    A("np.linalg.vecdot({0}, {1})", "m23", "v3"),
    A("np.linalg.norm({0}, 'fro')", "m23"), A("np.linalg.norm({0}, 2)", "m33"),
    A("np.linalg.norm({0}, 'nuc')", "m23"), A("np.linalg.norm({0}, np.inf)", "v3"),
    A("np.linalg.norm({0}, -1)", "m33"), A("np.linalg.norm({0}, ord=1, axis=0)", "m23"),
    A("np.linalg.norm({0}, keepdims=True)", "t223"),
    A("np.linalg.norm({0}, axis=(0, 1))", "t223"), A("np.linalg.norm({0}, 0)", "v3"),
    A("np.roots({0})", "v3p"), A("np.roots({0})", "v4p"), A("np.roots({0} + 10)", "v3k"),
    A("np.sum({0} * np.arange({1} + 3))", "x", "k3", rules=MASKED),
]


# Registered functions without a case, and why.
NOT_TESTED = {
    "lane_kinds": "engine-internal (`__lane_kinds__`), `vmap` only (the case table runs "
                  "`vectorize`): tests/test_kinds32.py compares it with the per-example loop",
    "isnat": "defined only for datetime64/timedelta64, and arguments of those dtypes are not "
             "batched (vectorize falls back to numpy.vectorize for them)",
    "any_lane": "engine-internal (`__any_lane__`), never written by users: the loop cases in "
                "STATEMENT_CASES exercise its rule",
    "first_lane": "engine-internal (`__first_lane__`): raise_batched exercises its rule",
    "lane": "engine-internal (`__lane__`): raise_batched exercises its rule",
    "warn_lanes": "engine-internal (`__warn_lanes__`): tests/test_helper_statements.py "
                  "exercises its rule (warnings compared with numpy.vectorize's)",
    "raise_lane": "engine-internal (`__raise_lane__`): every case with a check where Python "
                  "raises (`1.0 / x`) exercises its rule",
    "list_array": "engine-internal (`__list_array__`, a local list written into): "
                  "tests/test_local_lists.py exercises its rules",
    "lanes_copy": "engine-internal (`__lanes_copy__`, a helper's write on some lanes): "
                  "tests/test_local_lists.py exercises its rules",
    "sum_item": "engine-internal (`__sum_item__`, an item of a sum written as a loop): "
                "tests/test_python_sum.py exercises its rule",
}
# rules no template here can name: tested where their own construct is
TESTED_ELSEWHERE = {
    "vmap.lane_kinds": "`vmap` only (the per-example loop's stacked type of each call): "
                       "tests/test_kinds32.py",
    "warn.lanes": "a warning per example that takes the branch, compared with "
                  "numpy.vectorize's warnings: tests/test_helper_statements.py",
    "builtin.dict_get": "a method of a shared dict (`TABLE.get(k, 0.0)`): "
                        "tests/test_real_constructs.py",
    "string.per_example": "string results, compared with numpy.vectorize's `<U` arrays: "
                          "tests/test_string_results.py",
    "array.masked_selection": "per-example vectors (`signature=`) against numpy.vectorize: "
                              "tests/test_masked_selections.py",
    "array.slice_selection": "reductions of slices with per-example bounds against "
                             "numpy.vectorize and the loop: tests/test_flow31.py",
    "list.as_array": "a local list written into item by item: tests/test_local_lists.py",
    "list.as_array_repeated": "a local list written into item by item: "
                              "tests/test_local_lists.py",
    "helper.lanes_copy": "a helper writing into its argument on some lanes: "
                         "tests/test_local_lists.py",
    "sum.item": "an item of `sum` of a generator written as a loop: "
                "tests/test_constructs21.py, tests/test_python_sum.py",
    "refused.jax_function": "a `jax.lax` call of per-example values, refused by the NumPy "
                            "and PyTorch backends: tests/test_jaxrules30.py",
}

# ------------------------------------------------------------------------ known engine bugs
ROUND_INT_NDIGITS = ("`round(n, ndigits)` of an int returns n unchanged, but Python (and NumPy) "
                     "round ints to negative ndigits: round(15, -1) == 20")
GCD_3 = ("`math.gcd`/`math.lcm` with 3 arguments: internal error 'too many values to unpack "
         "(expected 2)'")
ISCLOSE_WARNS = ("`math.isclose` warns where Python is silent: 'invalid value encountered in "
                 "subtract' for isclose(inf, inf), where Python returns at a == b (the formula "
                 "computes |a - b| on every lane; the values are right)")
CHAIN_SHORT_CIRCUIT = ("a chained comparison `a != 0 < 1.0 / a` evaluates every link on every "
                       "lane without silencing: 'divide by zero' for lanes where Python stops "
                       "after the first link (`and`/`or` and ternaries are silenced)")
GUFUNC = ("the gufunc vecdot is registered as an elementwise ufunc: for per-example scalars "
          "(where every example raises) `np.vecdot(x, y)` of the two batches is a dot product "
          "ACROSS the batch, broadcast to every lane, instead of an error")
LDEXP_INT = ("false rejection: `math.ldexp(x, int(n))` (or `round(y)`) is refused with "
             "\"`math.ldexp` raises for batched float64, batched int64 in the per-example "
             "code\"; the per-example type check models `int(n)` as numpy.int64, but per "
             "example int()/round() give the Python int that ldexp requires")
MINMAX_NAN = ("`min(x, b)` / `max(x, b)` with b an unbatched scalar ARGUMENT becomes "
              "`np.minimum(b, x)`: the rule takes b for a constant that is not NaN (from the "
              "specialization's example value), but b is NaN at run time, and np.minimum "
              "propagates it where Python keeps x (min(0.0, nan) is 0.0)")
METHOD_NO_PAD = ("elementwise methods do not align per-example ranks: `v.clip(lo, 2.0)` with a "
                 "per-example vector v and a per-example scalar lo runs as written, so lo "
                 "(shape (N,)) broadcasts against the LAST axis of v (N, 3): lanes are mixed "
                 "(wrong values when N == 3, a broadcast error otherwise); `lo[:, None]` needed")
DOT_SCALAR_ZERO = ("documented divergence (docs/semantics.md): `np.dot(v, s)` with a "
                   "per-example scalar s becomes `v * s[:, None]`; per example np.dot scales "
                   "through BLAS, whose scal gives 0.0 for nan * 0.0 and inf * 0.0 (and +0.0 "
                   "for 0.0 * -0.0), where the product is IEEE")
TRACE_NONSQUARE = ("`np.trace(m)` of a non-square per-example matrix becomes "
                   "`np.einsum('bii->b', m)`, which raises 'dimensions in operand 0 for "
                   "collapsing index 'i' don't match (2 != 3)'; per example np.trace works")
# (`math.degrees(1e308)`, `math.hypot` beyond the largest float and `math.log(inf, inf)` warn
# under numpy.vectorize too: its loop reports the floating-point flags Python's math sets)
KNOWN_BUGS: dict[str, tuple[str, list]] = {
    "np.dot(v3,x)": (DOT_SCALAR_ZERO, [(np.array([[0.0, 0.0, math.nan]]), np.array([0.0]),
                                        (0, 0))]),
    # (isclose(1e308, -1e308) overflows in Python's own subtraction too, which
    # numpy.vectorize reports as a warning: only inf == inf, where Python stops first, differs)
    "math.isclose(f,f)": (ISCLOSE_WARNS, [(np.array([math.inf]), np.array([math.inf]))]),
    "math.isclose(f,f,rel_tol=1e-3,abs_tol=1e-9)": (ISCLOSE_WARNS, [(np.array([math.inf]),
                                                                     math.inf)]),
}
EMATH_COMPLEX_BATCH = ("documented divergence (docs/semantics.md): np.emath makes the whole "
                       "batch complex where some lane is outside the real domain; lanes with "
                       "infinities then give other complex values (inf+nanj) than the "
                       "example's real result")
KNOWN_BUGS["np.emath.logn(fe,fe)"] = (EMATH_COMPLEX_BATCH, [(
    np.array([[1.0], [0.0], [0.0]]), np.array([[0.0], [-math.inf], [0.0]]))])
KNOWN_BUGS["np.emath.power(fe,u)"] = (EMATH_COMPLEX_BATCH, [(np.array([0.0, -math.inf]),
                                                             np.array([-7, -7]))])
# (lanes a batched `if` throws away make np.emath's batch complex, but numpy.vectorize
# keeps the first example's real type: its conversion decides, `vectorize` replays it)
DEAD_LANE_BUGS: dict[str, str] = {}


def _with_known_bugs(case: Case) -> Case:
    bug, repro = KNOWN_BUGS.get(case.id, (None, []))
    return dataclasses.replace(case, bug=bug, repro=tuple(repro),
                               dead_bug=DEAD_LANE_BUGS.get(case.id))


CASES: list[Case] = [_with_known_bugs(case) for case in OPERATOR_CASES + BUILTIN_CASES
                     + MATH_CASES + NUMPY_CASES + SCIPY_CASES + STATEMENT_CASES
                     + ARRAY_CASES]


# --------------------------------------------------------------- which rules a case uses
_OPERATOR_RULES = {ast.BinOp: "operator.arithmetic", ast.Compare: "operator.compare",
                   ast.IfExp: "operator.conditional_expression"}
_MODULES = {"math": math, "np": np, "scipy": scipy, "calendar": calendar}


def _resolve(func: ast.expr):
    """The function a call names (``abs``, ``math.sqrt``, ``np.linalg.norm``), or None for a
    method call on a value."""
    if isinstance(func, ast.Name):
        return getattr(builtins, func.id)
    if isinstance(func, ast.Attribute):
        owner = func.value
        path = []
        while isinstance(owner, ast.Attribute):
            path.insert(0, owner.attr)
            owner = owner.value
        if isinstance(owner, ast.Name) and owner.id in _MODULES:
            obj = _MODULES[owner.id]
            for name in path + [func.attr]:
                obj = getattr(obj, name)
            return obj
        return None
    raise ValueError(f"cannot resolve {ast.unparse(func)}")


def _uses_arguments(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Name) and n.id in set(PARAM_NAMES) for n in ast.walk(node))


def case_rules(case: Case) -> tuple[set[str], list]:
    """(names of the rules the case exercises, functions it calls with per-example values)."""
    names, funcs = set(case.rules), []
    tree = case.syntax()
    callees = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    for node in ast.walk(tree):
        if not _uses_arguments(node):
            continue
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name) and node.func.id == "range":
                continue   # a loop header, handled by the loop passes
            func = _resolve(node.func)
            if isinstance(func, type) and issubclass(func, BaseException):
                continue   # the exception of a `raise`: made from one example's values
            if func is None:   # a method of a per-example value
                rule = NUMPY.methods.get(node.func.attr)
            else:
                rule = NUMPY.for_call(func)
                funcs.append(func)
            if rule is None:
                if case.refuses:
                    continue   # no rule is exactly right: every example raises
                raise LookupError(f"{case.id}: no rule for {ast.unparse(node.func)}")
            names.add(rule.name)
        elif isinstance(node, ast.Attribute) and id(node) not in callees:
            if node.attr in NUMPY.attributes:
                names.add(NUMPY.attributes[node.attr].name)
        elif isinstance(node, ast.Subscript):
            names.add(NUMPY.operators["subscript"].name)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            names.add(NUMPY.operators["matmul"].name)
        elif isinstance(node, ast.BoolOp):
            names.add("operator.and" if isinstance(node.op, ast.And) else "operator.or")
        elif isinstance(node, ast.UnaryOp):
            names.add("operator.not" if isinstance(node.op, ast.Not) else "operator.unary")
        elif type(node) in _OPERATOR_RULES:
            names.add(_OPERATOR_RULES[type(node)])
    return names, funcs


# ------------------------------------------------------------------------- the module
def module_source(cases) -> str:
    lines = ['"""Generated by tests/test_rules.py: one function per rule case."""', "",
             "import calendar", "import math", "", "import numpy as np", "import scipy.special",
             "import scipy.stats", ""]
    for index, case in enumerate(cases):
        lines += ["", *case.source(f"case_{index}"), ""]
        if case.body is not None:
            continue
        params = [PARAM_NAMES[k] for k in range(len(case.kinds))]
        zeros = [p + "0" for p in params]
        target = "y" if case.nout == 1 else ", ".join(f"y{k}" for k in range(case.nout))
        lines += ["", f"def dead_{index}({', '.join(['s', *params, *zeros])}):",
                  "    if s:", f"        {target} = {case.expression()}",
                  "    else:", f"        {target} = {case.expression('0')}",
                  f"    return {target}", ""]
    return "\n".join(lines)


@pytest.fixture(scope="module")
def cases_module(tmp_path_factory):
    path = tmp_path_factory.mktemp("rule_cases") / "rule_cases_generated.py"
    path.write_text(module_source(CASES))
    spec = importlib.util.spec_from_file_location("rule_cases_generated", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


# ---------------------------------------------------------------------- the comparison
def _lanes(args):
    arrays_ = np.broadcast_arrays(*[np.asarray(a) for a in args])
    shape = arrays_[0].shape if arrays_ else ()
    size = int(np.prod(shape)) if shape else 1
    flat = [a.reshape(-1) if a.ndim else a for a in arrays_]    # (once: a broadcast copies)
    for lane in range(size):
        yield [a[lane] if a.ndim else a[()] for a in flat]


def _run_lane(f, call):
    try:
        return f(*call), None
    except (ArithmeticError, ValueError, TypeError, IndexError) as exc:
        return None, (type(exc), str(exc))


def _same_value(x, y) -> bool:
    if isinstance(x, tuple) or isinstance(y, tuple):
        return (isinstance(x, tuple) and isinstance(y, tuple) and len(x) == len(y)
                and all(_same_value(a, b) for a, b in zip(x, y)))
    x, y = np.asarray(x), np.asarray(y)
    if x.shape != y.shape:
        return False
    if x.dtype.kind not in "fc" and y.dtype.kind not in "fc":
        return bool(np.array_equal(x, y))
    x, y = x.astype(float), y.astype(float)
    zero = (x == 0) & (y == 0)
    return bool(np.allclose(x, y, rtol=1e-12, atol=0, equal_nan=True)
                and np.array_equal(np.signbit(x[zero]), np.signbit(y[zero])))


def _agrees(value, result, n) -> bool:
    """Whether ``result`` (from arrays of ``n`` copies of a lane) holds ``value`` in every
    slot; True when the result has no per-slot structure to compare."""
    if isinstance(value, tuple):
        return (not isinstance(result, tuple) or len(result) != len(value)
                or all(_agrees(v, r, n) for v, r in zip(value, result)))
    result = np.asarray(result)
    if result.shape != (n,):
        return True
    return all(_same_value(value, result[k]) for k in range(n))


def numpy_disagrees(f, call, value) -> tuple[bool, bool]:
    """(whether NumPy's array loops give another value than its scalar arithmetic for this
    lane, whether they warn for it).

    NumPy does not always agree with itself: ``np.float64(-inf) ** 0.5`` is nan but
    ``np.array([-inf]) ** 0.5`` is inf, ``np.fmax(0.0, -0.0)`` keeps the other zero in the
    SIMD loop (arrays of 8 or more), and ``np.float64(0.0) ** -inf`` is silently inf while the
    array loop warns 'divide by zero'. The lane is run again with arrays of 1 and of 32 copies
    of each argument (the scalar-style code as written, so its control flow still decides per
    example; a run that raises, on ``if`` for instance, tells nothing). Where the values differ
    the batched code cannot match the scalar loop, so such inputs are skipped; where only the
    array loop warns, the batched code may warn too.
    """
    warns = False
    for n in (1, 32):
        arrays_ = [np.full(n, a, dtype=np.asarray(a).dtype) for a in call]
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                result = f(*arrays_)
        except Exception:
            continue
        warns = warns or any(issubclass(w.category, RuntimeWarning) for w in caught)
        if not _agrees(value, result, n):
            return True, warns
    return False, warns


def scalar_behaviour(f, args):
    """Run the per-example loop as the reference does: (whether it warns or NumPy's array
    loops warn for its lanes, {(type, message)} of the errors it raises, whether NumPy disagrees
    with itself on some lane)."""
    raised, disagrees, array_warns = set(), False, False
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for call in _lanes(args):
            value, error = _run_lane(f, call)
            if error is not None:
                raised.add(error)
            elif not disagrees:
                disagrees, lane_warns = numpy_disagrees(f, call, value)
                array_warns = array_warns or lane_warns
        if not raised and not disagrees:
            # numpy.vectorize stores every lane's result in the first example's type: a float
            # that does not fit float32 overflows in that cast, and warns there as ours does
            try:
                np.vectorize(f)(*args)
            except Exception:   # noqa: BLE001 - its errors are the lanes' own, counted above
                pass
        warns = any(issubclass(w.category, RuntimeWarning) for w in caught)
    return warns or array_warns, raised, disagrees


def check(f, *args):
    """`assert_matches_loop` with the policy above. Returns False (having compared nothing)
    when NumPy's scalar and array arithmetic disagree on these arguments."""
    warns, raised, disagrees = scalar_behaviour(f, args)
    if disagrees:
        return False
    before = [np.array(a, copy=True) for a in args]
    # An empty batch runs no example at all, yet the batched code still evaluates its
    # unbatched part once (`inf * 0` of two scalars): warnings are not compared there.
    empty = any(np.size(a) == 0 for a in args)
    quiet = (np.errstate(all="ignore") if warns or raised or empty
             else contextlib.nullcontext())
    try:
        with quiet:
            assert_matches_loop(f, *args)
    except (VectorizeError, AssertionError) as exc:
        # a NumPy scalar whose promotion with the examples' Python numbers differs from the
        # arrays' (np.float32 and a float64 batch): refused, numpy.vectorize runs (test_trust;
        # the refusal may come wrapped in the comparison's assertion)
        if "NEP 50" not in str(exc):
            raise
        return True
    except (ArithmeticError, ValueError, TypeError) as exc:
        # the scalar code raises this very error on some lane: refusing the batch is fair
        if (type(exc), str(exc)) not in raised:
            raise
    for k, (arg, old) in enumerate(zip(args, before)):
        assert np.asarray(arg).dtype == old.dtype, f"argument {k} changed dtype"
        np.testing.assert_array_equal(arg, old, err_msg=f"argument {k} was modified")
    return True


# --------------------------------------------------------------------------- the tests
def _stable(check_function, *args):
    """Run a check, re-raising any failure from this one place: the generated code's file name
    changes with every build, which hypothesis would otherwise take for a flaky failure (and
    then not report the falsifying example)."""
    try:
        return check_function(*args)
    except Exception as exc:
        details = "".join(traceback.format_exception(exc))
        raise AssertionError(f"{type(exc).__name__}: {exc}\n{details}") from None


def _params(marks_for, dead_lanes=False, arrays=False):
    out = []
    for index, case in enumerate(CASES):
        if is_array_case(case) != arrays:
            continue
        if dead_lanes and (case.body is not None or case.refuses):
            continue
        reason = marks_for(case)
        marks = [pytest.mark.xfail(strict=True, reason=f"bug: {reason}")] if reason else []
        out.append(pytest.param(index, case, id=case.id, marks=marks))
    return out


_MIXED_FLOAT32 = [
    # a NumPy float32 scalar meeting Python floats per example: NumPy compares in float32
    # (NEP 50: -5e-324 is -0.0 there, not below 0.0; 0.1 is float32(0.1), not above it)
    [np.float32(0.0), np.array([[0.0], [-5e-324], [-5e-324]])],
    [np.float32(-0.0), np.array([[0.0], [5e-324], [5e-324]])],
    [np.float32(0.0), np.array([-5e-324])], [np.float32(0.0), -5e-324],
    [np.float32(-0.0), np.array([5e-324, 0.0])], [np.float32(0.1), np.array([0.1, -1.0])],
    [np.array([0.0, 0.1], np.float32), -5e-324], [np.array([0.1], np.float32), 0.1]]
PINNED = {"min(f32,f)": _MIXED_FLOAT32, "max(f32,f)": _MIXED_FLOAT32}
"""Inputs each case runs on every time, besides hypothesis' draws: ones a draw finds only
now and then (the test was flaky on them)."""


@pytest.mark.parametrize("index, case", _params(lambda c: c.bug))
def test_rule_matches_loop(index, case, cases_module):
    f = getattr(cases_module, f"case_{index}")
    if case.refuses:
        # every example raises, so a result for the batch can only mix lanes
        args = [np.array([1.0, 2.0, 3.0])] * len(case.kinds)
        assert all(_run_lane(f, call)[1] is not None for call in _lanes(args))
        with pytest.raises((ValueError, TypeError)):
            vectorize(f, fallback="error")(*args)
        return
    for args in case.repro:
        assert check(f, *args), "a repro must be an input NumPy itself agrees on"
    compared = []

    @settings(max_examples=MAX_EXAMPLES, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.filter_too_much])
    @given(call_args(case.kinds))
    def run(args):
        ok = _stable(check, f, *args)
        compared.append(ok)
        assume(ok)

    for pinned in PINNED.get(case.id, ()):
        run = example(pinned)(run)
    run()
    assert any(compared), "every input was skipped: NumPy disagreed with itself on all"


def _classify(f, combos):
    clean, dirty = [], []
    for combo in combos:
        warns, raised, disagrees = scalar_behaviour(f, [DTYPES[k](v) for k, v in combo])
        if not disagrees:
            (dirty if warns or raised else clean).append(combo)
    return clean, dirty


@pytest.mark.parametrize("index, case", _params(lambda c: c.dead_bug, dead_lanes=True))
def test_dead_lanes_are_silent(index, case, cases_module):
    """Lanes thrown away by a batched `if` warn in no rule, whatever their values."""
    f = getattr(cases_module, f"case_{index}")
    g = getattr(cases_module, f"dead_{index}")
    pools = [[(kind, v) for v in POOLS[kind]] for kind in case.kinds]
    combos = list(itertools.product(*pools))
    if len(combos) > 200:
        combos = random.Random(index).sample(combos, 200)
    clean, dirty = _classify(f, combos)
    if not clean:
        pytest.skip("no arguments on which the scalar code is silent")
    if not dirty:
        return   # nothing this case can get wrong on a thrown-away lane
    # an operation NumPy refuses on arrays raises for a dead lane too (docs/semantics.md)
    plain = vectorize(f, fallback="error")

    def refused(combos):
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                plain(*[np.array([combo[k][1] for combo in combos], DTYPES[kind])
                        for k, kind in enumerate(case.kinds)])
        except (ArithmeticError, ValueError, TypeError):
            return True
        return False

    if dirty and refused(dirty):
        dirty = [combo for combo in dirty if not refused([combo])]
    if not dirty:
        return   # nothing this case can get wrong on a thrown-away lane
    lanes = clean + dirty
    s = np.array([True] * len(clean) + [False] * len(dirty))
    live, alive = [], []
    for k, kind in enumerate(case.kinds):
        if kind.endswith("!"):
            live.append(DTYPES[kind](POOLS[kind][0]))
        else:
            live.append(np.array([lane[k][1] for lane in lanes], DTYPES[kind]))
        alive.append(DTYPES[kind](clean[0][k][1]))
    assert check(g, s, *live, *alive)


# ------------------------------------------------------------- per-example arrays (vmap)
@st.composite
def vmap_args(draw, kinds, receiver_mapped=False):
    """(arguments, in_axes): each argument mapped (a batch of per-example values along axis 0,
    the batch possibly empty) or shared (in_axes None: one per-example value for all)."""
    n = draw(st.integers(0, 4))
    mapped = [draw(st.sampled_from([True, True, True, False])) for _ in kinds]
    if not any(mapped) or receiver_mapped:
        mapped[0] = True
    args = []
    for kind, batched in zip(kinds, mapped):
        if kind in ARRAY_KINDS:
            shape, element = ARRAY_KINDS[kind]
            dtype, elements = ARRAY_ELEMENTS[element]
            args.append(draw(arrays(dtype, ((n,) if batched else ()) + shape,
                                    elements=elements)))
        else:
            dtype, elements = SCALAR_KINDS_IN_ARRAY_CASES[kind]
            if batched:
                args.append(draw(arrays(dtype, (n,), elements=elements)))
            else:
                args.append(dtype(draw(elements)))
    return args, tuple(0 if m else None for m in mapped)


def _example(arg, axis):
    return arg if axis is None else np.take(arg, 0, axis=0)


def vmap_loop(f, args, in_axes):
    """(results per example, indices of examples that raised, whether the loop warned, the
    errors raised) of the per-example loop vmap is defined by."""
    size = next(np.shape(a)[0] for a, ax in zip(args, in_axes) if ax == 0)
    results, raised, errors = [], [], set()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in range(size):
            call = [a if ax is None else np.take(a, n, axis=0) for a, ax in zip(args, in_axes)]
            value, error = _run_lane(f, call)
            results.append(value)
            if error is not None:
                raised.append(n)
                errors.add(error)
    warns = any(issubclass(w.category, RuntimeWarning) for w in caught)
    return results, raised, warns, errors


def assert_stacked_equal(got, lanes, raised, what=""):
    """The batched result equals the per-example results stacked along axis 0 (the lanes that
    raised left out): shape, dtype kind, values (NaN equal to NaN, floats to 1e-12 relative,
    signed zeros)."""
    got = np.asarray(got)
    assert got.shape[:1] == (len(lanes),), f"{what}batch length {got.shape} != {len(lanes)}"
    ok = [n for n in range(len(lanes)) if n not in set(raised)]
    if not ok:
        return
    expected = np.array([lanes[n] for n in ok])
    actual = got[ok]
    assert actual.shape == expected.shape, f"{what}shape {got.shape[1:]} != " \
                                           f"{expected.shape[1:]} per example"
    kinds = {expected.dtype.kind, actual.dtype.kind}
    assert len(kinds) == 1 or kinds <= {"i", "u"}, f"{what}dtype {actual.dtype} != " \
                                                   f"{expected.dtype}"
    if expected.dtype.kind in "fc":
        # no check of the sign of zeros here: per-example arrays are reduced and contracted
        # (sums, dot, einsum, BLAS) in another order than one example at a time, and the sign
        # of a zero sum depends on that order (docs/semantics.md); elementwise rules, where
        # the order is the same, check it in tests/differential.py
        np.testing.assert_allclose(actual, expected, rtol=1e-12, atol=0, equal_nan=True,
                                   err_msg=what)
    else:
        np.testing.assert_array_equal(actual, expected, err_msg=what)


_VMAPPED: dict = {}
_PRODUCT_WARNINGS = re.compile(r"\b(dot|inner|outer|vdot|matmul|tensordot|einsum)\(|@")


def _vmapped(f, in_axes):
    """One vmapped callable per (function, in_axes), so hypothesis examples of a case reuse
    its specializations (the warm path) instead of transforming the function every time."""
    key = (f, in_axes)
    if key not in _VMAPPED:
        _VMAPPED[key] = vmap(f, in_axes=in_axes, fallback="error")
    return _VMAPPED[key]


def check_vmap(f, args, in_axes, products=False):
    """`vmap(f, in_axes)` against the per-example loop, with the policy of `check`."""
    lanes, raised, warns, errors = vmap_loop(f, args, in_axes)
    before = [np.array(a, copy=True) for a in args]
    noisy = warns or raised or not lanes   # (see `check` for empty batches)
    quiet = np.errstate(all="ignore") if noisy else contextlib.nullcontext()
    try:
        with quiet, warnings.catch_warnings():
            if not noisy:
                warnings.simplefilter("error", RuntimeWarning)
                if products and not all(
                        np.isfinite(np.asarray(a, dtype=complex)).all() for a in args):
                    # documented divergence (docs/semantics.md): a product planned through
                    # BLAS may warn on inf/nan entries where the per-example one is silent
                    warnings.filterwarnings("ignore", "invalid value encountered in "
                                            "(matmul|dot|multiply)", RuntimeWarning)
            got = _vmapped(f, in_axes)(*args)
    except (ArithmeticError, ValueError, TypeError) as exc:
        if (type(exc), str(exc)) not in errors:
            raise
        return
    if lanes and all(isinstance(r, tuple) for k, r in enumerate(lanes) if k not in raised):
        assert isinstance(got, tuple), "a tuple per example, but not a tuple of batches"
        for k, part in enumerate(got):
            assert_stacked_equal(part, [None if r is None else r[k] for r in lanes], raised,
                                 what=f"output {k}: ")
    elif not lanes:
        outs = got if isinstance(got, tuple) else (got,)
        assert all(np.shape(o)[:1] == (0,) for o in outs), "an empty batch gives empty results"
    else:
        assert_stacked_equal(got, lanes, raised)
    for k, (arg, old) in enumerate(zip(args, before)):
        np.testing.assert_array_equal(arg, old, err_msg=f"argument {k} was modified")


@pytest.mark.parametrize("index, case", _params(lambda c: c.bug, arrays=True))
def test_array_rule_matches_loop(index, case, cases_module):
    f = getattr(cases_module, f"case_{index}")
    products = bool(_PRODUCT_WARNINGS.search(case.template))
    for args in case.repro:
        check_vmap(f, args[:-1], args[-1], products)

    @settings(max_examples=MAX_EXAMPLES, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(vmap_args(case.kinds, receiver_mapped=case.template.startswith("{0}.")))
    def run(drawn):
        _stable(check_vmap, f, *drawn, products)

    run()


def test_every_case_calls_only_functions_with_rules():
    for case in CASES:
        case_rules(case)   # raises for a call without a rule
        assert len(case.kinds) <= len(PARAM_NAMES), case.id


def test_case_ids_are_unique():
    ids = [case.id for case in CASES]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    assert set(KNOWN_BUGS) | set(DEAD_LANE_BUGS) <= set(ids)


def test_every_rule_has_a_case():
    covered = set().union(*(case_rules(case)[0] for case in CASES))
    # random draws differ from a loop's: tests/test_random.py checks their distributions
    # vmap's rules are the vmap of a vmapped function: tests/test_vmap_pytrees.py checks them
    shipped = {rule.name for rule in NUMPY.all_rules
               if rule.family not in ("user", "random", "vmap")} - set(TESTED_ELSEWHERE)
    assert shipped - covered == set(), f"rules without a case in tests/test_rules.py: " \
                                       f"{sorted(shipped - covered)}"


def test_every_backend_runs_the_case_table():
    """One table of cases for every backend (`backends.KNOWN`): this file runs it on the
    default backend, ``tests/test_rules_<name>.py`` on each other's arrays, with the cases it
    refuses or gets wrong listed there."""
    from vectorize import backends
    for name in backends.KNOWN:
        if name == backends.DEFAULT:
            continue
        path = pathlib.Path(__file__).with_name(f"test_rules_{name}.py")
        assert path.exists(), f"the {name} backend runs no case table: add {path.name}"
        assert "table.CASES" in path.read_text(), f"{path.name} runs no case of the table"


def test_every_registered_function_has_a_case():
    called = {id(func) for case in CASES for func in case_rules(case)[1]}
    missing = [getattr(func, "__name__", repr(func)) for func, rule in NUMPY.call_rules()
               if rule.family not in ("user", "vmap") and id(func) not in called
               and getattr(func, "__name__", None) not in NOT_TESTED]
    assert missing == [], f"registered functions without a case: {sorted(missing)}"


def test_enough_numpy_functions_are_covered():
    ufuncs = {id(func) for case in CASES for func in case_rules(case)[1]
              if isinstance(func, np.ufunc)}
    binary = {id(func) for case in CASES for func in case_rules(case)[1]
              if isinstance(func, np.ufunc) and func.nin == 2}
    assert len(ufuncs) >= 40 and len(binary) >= 15
    called = {id(func) for case in CASES for func in case_rules(case)[1]}
    assert {id(np.where), id(np.clip), id(np.round)} <= called


def test_every_registered_method_and_attribute_has_a_case():
    used = set()
    for case in CASES:
        tree = case.syntax()
        callees = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and _resolve_owner_is_value(node):
                used.add(("method" if id(node) in callees else "attribute", node.attr))
    registered = ({("method", name) for name in NUMPY.methods}
                  | {("attribute", name) for name in NUMPY.attributes})
    missing = sorted(registered - used)
    assert missing == [], f"registered methods/attributes without a case: {missing}"


def _resolve_owner_is_value(node: ast.Attribute) -> bool:
    """Whether ``node`` is an attribute of a value (``v.sum``), not of a module (``np.sum``)."""
    owner = node.value
    while isinstance(owner, ast.Attribute):
        owner = owner.value
    return not (isinstance(owner, ast.Name) and owner.id in _MODULES)
