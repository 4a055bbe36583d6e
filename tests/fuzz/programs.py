"""Differential program fuzzer: generated scalar-style functions, run per example and batched.

``programs()`` is a `hypothesis` strategy of `Program` objects: the SOURCE TEXT of a module with
a per-example function ``f`` (and sometimes a helper ``h0`` that ``f`` calls) written the way a
user writes code for one example: assignments, arithmetic, ``math``/NumPy calls, ``if``/``elif``/
``else``, conditional expressions, ``and``/``or``/``not``, chained comparisons, early returns,
``for _ in range(K)``, counter-bounded ``while`` loops, tuple assignment, helper calls.
``cases()`` pairs a program with float64 inputs (NaN, +-inf, +-0.0, negatives, huge and tiny
values; now and then a broadcast scalar argument) and a seed for the calling protocol.

``harness.run_case(program, args, writer, protocol=harness.FULL, seed=seed)`` runs it through
``vectorize(f, fallback="error")``: the drawn call, then N = 0, 1, 5, repeated large calls
and a changed shared argument, every call compared with the per-example reference, and
classifies the result (ok / vacuous / rejected / mismatch / internal / generator; see
`harness`). `vector_programs` is the generator of functions over per-example vectors.

Every generated program is valid Python, reads only variables assigned on every path to the
read, returns on every path, and terminates (loops are bounded by constants or by a
counter). The generator keeps a few invariants so that a difference is the engine's fault and
not a known, documented divergence:

* every value is float-typed (ints only from loop counters and conversions of clipped
  floats, used in float arithmetic), so the result dtype cannot depend on the path taken;
* a computation on constants alone (Python numbers, which raise where NumPy gives inf/nan)
  never divides by a possibly-zero value, never feeds a math function with a restricted
  domain and never converts to int: such code raises for every example, also in the
  vectorized version, even on examples whose branch does not run it;
* a variable, once it holds a per-example value, is never reassigned a constant-only value
  (so "depends on the inputs" is monotone, loops included).

``well_formed(source)`` checks the first two promises on the text (no read of a variable
that may be unbound, a return on every path); the tests run it on generated programs.

Programs are built from small composable choices (the simplest choice first, one "more?"
choice per statement), so hypothesis shrinks a failure to a short program with small
expressions; ``bounded_shrinking`` caps the time it spends on that. ``programs(avoid=...)`` /
``cases(avoid=...)`` leave out a construct (`AVOIDABLE`) to look past a known engine bug.
"""

from __future__ import annotations

import ast
import builtins
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from hypothesis import strategies as st

try:
    from fuzz.harness import HEADER, LOOP_FEATURES, NICE_VALUES, SPECIAL_VALUES, Program
except ImportError:   # run outside pytest (benchmarks/fuzz_long.py puts tests/ on the path)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from fuzz.harness import HEADER, LOOP_FEATURES, NICE_VALUES, SPECIAL_VALUES, Program

__all__ = ["HEADER", "LOOP_FEATURES", "Program", "cases", "inputs_for", "programs", "values",
           "well_formed"]

# --------------------------------------------------------------------------------- programs

def _nan_free(text: str) -> str:
    """``text`` with NaN replaced by 0.0, for the functions that read a value's sign bit
    (``np.signbit``, the second argument of ``copysign``): the sign of a NaN that arithmetic
    makes from NaN operands is not specified (IEEE 754, 6.3), and NumPy's scalar arithmetic
    and its array loops do pick different ones (``-x + (x + x)`` with x NaN: a positive NaN per
    example, a negative one in the array; docs/semantics.md). Found by the fuzzer (seed 12)."""
    return f"(0.0 if math.isnan({text}) else {text})"


@dataclass
class _Expr:
    text: str
    dep: bool          # depends on the inputs (batched whenever the inputs are)


@dataclass
class _HelperSig:
    name: str
    params: tuple[str, ...]
    n_out: int


# Constants: the first one is what shrinking goes to.
FLOAT_LITERALS = ["1.0", "2.0", "0.5", "0.0", "-1.0", "3.0", "-0.0", "10.0", "0.25", "-2.5",
                  "1e-08", "100.0", "math.pi", "math.inf", "-math.inf", "math.nan"]
ZERO_LITERALS = {"0.0", "-0.0"}
DIVISOR_LITERALS = ["2.0", "3.0", "0.5", "-1.0", "7.0", "math.pi", "-0.25", "math.inf"]
INT_LITERALS = ["1", "2", "3", "0", "-1"]
CLIP_BOUNDS = [("-1.0", "1.0"), ("0.0", "10.0"), ("-5.0", "0.5"), ("-math.inf", "2.0")]

# Unary float functions safe on any value (never raise, even on Python floats).
SAFE_UNARY = ["math.tanh", "math.atan", "math.fabs", "np.sin", "np.cos",
              "np.exp", "np.sqrt", "np.log", "np.tanh", "abs", "np.abs", "np.floor", "np.ceil",
              "np.sign", "np.log1p", "np.arctan", "np.trunc", "np.rint", "np.square",
              "np.cbrt", "np.expm1", "float", "np.fabs", "math.degrees", "np.arcsinh"]
# Math functions that raise on part of their domain (ValueError / OverflowError): only on
# per-example values, where the scalar code raises for that example only.
DOMAIN_UNARY = ["math.sin", "math.cos", "math.sqrt", "math.exp", "math.log", "math.log1p",
                "math.expm1", "math.log10", "math.log2", "math.cosh", "math.asinh",
                "math.acosh", "math.cbrt", "math.exp2"]
SAFE_BINARY = ["math.atan2", "math.hypot", "math.copysign", "np.maximum", "np.minimum",
               "np.fmax", "np.fmin", "np.hypot", "np.arctan2", "np.copysign", "min", "max"]
PREDICATES = ["math.isnan", "math.isinf", "math.isfinite", "np.isnan", "np.isfinite",
              "np.isinf", "np.signbit"]
COMPARE_OPS = ["<", ">", "<=", ">=", "==", "!="]
CONVERSIONS = ["round", "int", "math.floor", "math.ceil", "math.trunc"]

MAX_DEPTH = 2          # statement nesting below the function body
MAX_LOOP_DEPTH = 2
MAX_LOCALS = 7
EXPR_DEPTH = 3


class _Gen:
    """Generates one function body; ``draw`` is hypothesis' draw of the enclosing composite."""

    def __init__(self, draw, params, *, helper: _HelperSig | None, is_helper: bool,
                 out_kinds: tuple[str, ...], avoid: frozenset = frozenset()):
        self.draw = draw
        self.avoid = avoid
        self.params = tuple(params)
        self.scope: dict[str, bool] = {p: True for p in params}   # float var -> dep
        self.ints: list[str] = []                                # int vars (counters)
        self.helper = helper
        self.is_helper = is_helper
        self.out_kinds = out_kinds
        self.n_locals = 0
        self.n_counters = 0
        self.loops: list[int] = []          # len(cond_stack) at each enclosing loop's entry
        self.cond_stack: list[bool] = []    # dep of each enclosing `if` test
        self.features: set[str] = set()
        # after an `if` on a per-example test where some branch returned, the rest of the
        # function runs for some examples only: a per-example condition in all but name
        self.divergent = False

    # ------------------------------------------------------------------------ choices
    def pick(self, options: Iterable[tuple[int, object]]):
        """Weighted choice; shrinks toward the first option with a positive weight."""
        options = [(w, v) for w, v in options if w > 0]
        total = sum(w for w, _ in options)
        k = self.draw(st.integers(0, total - 1))
        for w, v in options:
            if k < w:
                return v
            k -= w
        raise AssertionError("unreachable")

    def choice(self, seq):
        return self.draw(st.sampled_from(list(seq)))

    def chance(self, one_in: int) -> bool:
        return self.draw(st.integers(0, one_in - 1)) == one_in - 1

    # ------------------------------------------------------------------- expressions
    def dep_var(self) -> str:
        """A parameter: parameters always hold per-example values."""
        return self.choice(self.params)

    def fleaf(self) -> _Expr:
        if self.pick([(5, "var"), (2, "const")]) == "var":
            name = self.choice(self.scope)
            return _Expr(name, self.scope[name])
        return _Expr(self.choice(FLOAT_LITERALS), False)

    def fexpr(self, depth: int) -> _Expr:
        """A float-typed expression."""
        if depth <= 0:
            return self.fleaf()
        kind = self.pick([(8, "leaf"), (6, "arith"), (4, "call"), (1, "neg"), (2, "ifexp"),
                          (1, "andor"), (1, "intmix"), (1, "pow"), (1, "fbool"),
                          (2 if self.helper and self.helper.n_out == 1 else 0, "helper")])
        d = depth - 1
        if kind == "leaf":
            return self.fleaf()
        if kind == "arith":
            op = self.pick([(3, "+"), (3, "-"), (3, "*"), (2, "/"), (1, "//"), (1, "%")])
            left, right = self.fexpr(d), self.fexpr(d)
            if op in "/%" or op == "//":
                right = self.divisor(left, right)
            return _Expr(f"({left.text} {op} {right.text})", left.dep or right.dep)
        if kind == "neg":
            e = self.fexpr(d)
            return _Expr(f"(-{e.text})", e.dep)
        if kind == "pow":
            base = self.fexpr(d)
            if not base.dep:
                return base
            exp = self.choice(["2", "3", "2.0", "-1.0", "0.5", "-2"])
            if exp == "0.5":    # a Python float to a fractional power of a negative is complex
                return _Expr(f"(abs({base.text}) ** 0.5)", True)
            return _Expr(f"({base.text} ** {exp})", True)
        if kind == "ifexp":
            test, a, b = self.bexpr(d), self.fexpr(d), self.fexpr(d)
            return _Expr(f"({a.text} if {test.text} else {b.text})",
                         test.dep or (a.dep and b.dep))
        if kind == "andor":
            a, b = self.fexpr(d), self.fexpr(d)
            op = self.choice(["and", "or"])
            return _Expr(f"({a.text} {op} {b.text})", a.dep)
        if kind == "intmix":
            a, k = self.fexpr(d), self.iexpr(d)
            op = self.choice(["+", "*", "-"])
            if self.draw(st.booleans()):
                return _Expr(f"({a.text} {op} {k.text})", a.dep or k.dep)
            return _Expr(f"({k.text} {op} {a.text})", a.dep or k.dep)
        if kind == "fbool":
            c = self.bexpr(d)
            return _Expr(f"float({c.text})", c.dep)
        if kind == "helper":
            return self.helper_call(d)
        return self.call(d)

    def divisor(self, numerator: _Expr, right: _Expr) -> _Expr:
        """The right operand of / // % : never a zero literal, and never a constant-only value
        under a constant-only numerator (Python numbers raise ZeroDivisionError)."""
        if right.text in ZERO_LITERALS or not (numerator.dep or right.dep):
            return _Expr(self.choice(DIVISOR_LITERALS), False)
        return right

    def call(self, d: int) -> _Expr:
        kind = self.pick([(5, "unary"), (3, "domain"), (3, "binary"), (1, "minmax3"),
                          (1, "clip"), (1, "where"), (1, "fmod"), (1, "mathpow"), (1, "log2"),
                          (1, "round2")])
        if kind in ("unary", "domain"):
            a = self.fexpr(d)
            pool = DOMAIN_UNARY if kind == "domain" and a.dep else SAFE_UNARY
            return _Expr(f"{self.choice(pool)}({a.text})", a.dep)
        if kind == "binary":
            a, b = self.fexpr(d), self.fexpr(d)
            op = self.choice(SAFE_BINARY)
            second = _nan_free(b.text) if op.endswith("copysign") else b.text
            return _Expr(f"{op}({a.text}, {second})", a.dep or b.dep)
        if kind == "minmax3":
            a, b, c = self.fexpr(d), self.fexpr(d), self.fexpr(d)
            return _Expr(f"{self.choice(['min', 'max'])}({a.text}, {b.text}, {c.text})",
                         a.dep or b.dep or c.dep)
        if kind == "clip":
            a = self.fexpr(d)
            lo, hi = self.choice(CLIP_BOUNDS)
            return _Expr(f"np.clip({a.text}, {lo}, {hi})", a.dep)
        if kind == "where":
            c, a, b = self.bexpr(d), self.fexpr(d), self.fexpr(d)
            return _Expr(f"np.where({c.text}, {a.text}, {b.text})", c.dep or a.dep or b.dep)
        a = self.fexpr(d)
        if not a.dep:                 # these raise on part of their domain
            return _Expr(f"math.atan({a.text})", False)
        if kind == "fmod":
            b = self.fexpr(d)
            if b.text in ZERO_LITERALS:
                b = _Expr("2.0", False)
            return _Expr(f"math.fmod({a.text}, {b.text})", True)
        if kind == "mathpow":
            return _Expr(f"math.pow({a.text}, {self.choice(['2.0', '3.0', '0.5', '-1.0'])})",
                         True)
        if kind == "log2":
            return _Expr(f"math.log({a.text}, {self.choice(['2.0', '10.0', 'math.e'])})", True)
        return _Expr(f"round({a.text}, {self.choice(['2', '0', '1'])})", True)

    def helper_call(self, d: int) -> _Expr:
        args = [self.fexpr(d) for _ in self.helper.params]
        texts = [a.text for a in args]
        if len(texts) == 2 and self.chance(3):
            texts[1] = f"{self.helper.params[1]}={texts[1]}"
        # the helper's result depends on (at least one of) its parameters
        return _Expr(f"{self.helper.name}({', '.join(texts)})", all(a.dep for a in args))

    def iexpr(self, depth: int) -> _Expr:
        """An int-typed expression: a loop counter, a literal, or a conversion of a clipped
        float (clipped: Python ints are unbounded, int64 is not)."""
        kind = self.pick([(3 if self.ints else 0, "counter"), (1, "literal"),
                          (3 if depth > 0 else 0, "convert")])
        if kind == "counter":
            return _Expr(self.choice(self.ints), False)
        if kind == "literal":
            return _Expr(self.choice(INT_LITERALS), False)
        a = self.fexpr(depth - 1)
        if not a.dep:               # int(nan) raises: only on per-example values
            return _Expr(self.choice(self.ints or INT_LITERALS), False)
        return _Expr(f"{self.choice(CONVERSIONS)}(np.clip({a.text}, -1e6, 1e6))", True)

    def bexpr(self, depth: int) -> _Expr:
        """A bool-typed expression."""
        kind = self.pick([(6, "cmp"), (1 if depth > 0 else 0, "chain"), (1, "pred"),
                          (1 if depth > 0 else 0, "not"), (2 if depth > 0 else 0, "andor"),
                          (1, "bool"), (1 if self.ints else 0, "icmp")])
        d = max(depth - 1, 0)
        if kind == "cmp":
            a, b = self.fexpr(d), self.fexpr(d)
            return _Expr(f"({a.text} {self.choice(COMPARE_OPS)} {b.text})", a.dep or b.dep)
        if kind == "chain":
            a, b, c = self.fexpr(d), self.fexpr(d), self.fexpr(d)
            op1, op2 = self.choice(COMPARE_OPS), self.choice(COMPARE_OPS)
            return _Expr(f"({a.text} {op1} {b.text} {op2} {c.text})", a.dep or b.dep or c.dep)
        if kind == "pred":
            a = self.fexpr(d)
            op = self.choice(PREDICATES)
            arg = _nan_free(a.text) if op == "np.signbit" else a.text
            return _Expr(f"{op}({arg})", a.dep)
        if kind == "not":
            c = self.bexpr(d)
            return _Expr(f"(not {c.text})", c.dep)
        if kind == "andor":
            a, b = self.bexpr(d), self.bexpr(d)
            return _Expr(f"({a.text} {self.choice(['and', 'or'])} {b.text})", a.dep or b.dep)
        if kind == "bool":
            a = self.fexpr(d)
            return _Expr(f"bool({a.text})", a.dep)
        return self.counter_test()

    def counter_test(self) -> _Expr:
        """A test on loop counters only: the same for every example."""
        if not self.ints:
            return _Expr("(1 < 2)", False)
        return _Expr(f"({self.choice(self.ints)} {self.choice(COMPARE_OPS)} "
                     f"{self.choice(INT_LITERALS)})", False)

    def condition(self, depth: int) -> _Expr:
        """An `if` test: mostly bool-typed, sometimes a float's truth value (NaN is true)."""
        if self.pick([(8, "bool"), (1, "truth")]) == "truth":
            return self.fexpr(depth)
        return self.bexpr(depth)

    def out_expr(self, kind: str) -> _Expr:
        e = self.bexpr(EXPR_DEPTH - 1) if kind == "b" else self.fexpr(EXPR_DEPTH)
        return e

    def return_stmt(self) -> str:
        parts = []
        for kind in self.out_kinds:
            e = self.out_expr(kind)
            if self.is_helper and not e.dep:
                e = _Expr(f"({e.text} + {self.choice(self.params)})", True)
            parts.append(e.text)
        if self.loops:
            self.features.add("return_in_loop")
        return "return " + ", ".join(parts)

    # -------------------------------------------------------------------- statements
    def new_name(self) -> str | None:
        if self.n_locals >= MAX_LOCALS:
            return None
        name = f"v{self.n_locals}"
        self.n_locals += 1
        return name

    def assign_value(self, target: str, e: _Expr) -> _Expr:
        """Keep "depends on the inputs" monotone: a per-example variable never gets a
        constant-only value."""
        if self.scope.get(target, False) and not e.dep:
            e = _Expr(f"({e.text} + {self.dep_var()})", True)
        self.scope[target] = e.dep if target not in self.scope else (self.scope[target] or e.dep)
        return e

    def target(self) -> str:
        if self.pick([(3, "new"), (2, "old")]) == "new":
            name = self.new_name()
            if name is not None:
                return name
        return self.choice(self.scope)

    def block(self, depth: int, lo: int, hi: int) -> tuple[list[str], bool]:
        """Statements; True when the block always leaves (return / break / continue)."""
        lines: list[str] = []
        count = 0
        # one "more?" choice per statement (as hypothesis' own lists do): the shrinker
        # deletes a statement by deleting its choices, and stops a block by a 0
        while count < hi and (count < lo or self.draw(st.integers(0, self.MORE)) != 0):
            count += 1
            stmt, leaves = self.statement(depth)
            lines += stmt
            if leaves:
                return lines, True
        return lines, False

    def statement(self, depth: int) -> tuple[list[str], bool]:
        nested = depth < MAX_DEPTH
        in_loop = bool(self.loops)
        kind = self.pick([
            (6, "assign"), (0 if "aug" in self.avoid else 2, "aug"), (1, "tuple"), (1, "swap"),
            (4 if nested else 0, "if"),
            (2 if nested and len(self.loops) < MAX_LOOP_DEPTH else 0, "for"),
            (1 if nested and len(self.loops) < MAX_LOOP_DEPTH else 0, "while"),
            (1 if self.helper and self.helper.n_out == 2 else 0, "helper2"),
            (1, "pair"),
            (2 if in_loop else 0, "exit"),
        ])
        return getattr(self, f"stmt_{kind}")(depth)

    def stmt_assign(self, depth):
        name = self.target()
        e = self.assign_value(name, self.fexpr(EXPR_DEPTH))
        return [f"{name} = {e.text}"], False

    def stmt_aug(self, depth):
        name = self.choice(self.scope)
        op = self.pick([(3, "+="), (2, "-="), (2, "*="), (1, "/=")])
        e = self.fexpr(EXPR_DEPTH - 1)
        if op == "/=":
            e = self.divisor(_Expr(name, self.scope[name]), e)
        self.scope[name] = self.scope[name] or e.dep
        return [f"{name} {op} {e.text}"], False

    def stmt_tuple(self, depth):
        names = [self.target(), self.target()]
        if names[0] == names[1]:
            return self.stmt_assign(depth)
        values = [self.fexpr(EXPR_DEPTH - 1) for _ in names]   # read before assigning
        values = [self.assign_value(n, v) for n, v in zip(names, values)]
        return [f"{names[0]}, {names[1]} = {values[0].text}, {values[1].text}"], False

    def stmt_swap(self, depth):
        deps = [v for v, dep in self.scope.items() if dep]
        if len(deps) < 2:
            return self.stmt_assign(depth)
        a = self.choice(deps)
        b = self.choice([v for v in deps if v != a])
        return [f"{a}, {b} = {b}, {a}"], False

    def stmt_pair(self, depth):
        """Tuple assignment from a call returning two values: divmod / math.modf."""
        names = [self.new_name(), self.new_name()]
        if None in names:
            return self.stmt_assign(depth)
        a = self.fexpr(EXPR_DEPTH - 1)
        if self.draw(st.booleans()) and a.dep:
            text = f"math.modf({a.text})"
            dep = True
        else:
            b = self.divisor(a, self.fexpr(EXPR_DEPTH - 1))
            text, dep = f"divmod({a.text}, {b.text})", a.dep or b.dep
        for n in names:
            self.scope[n] = dep
        return [f"{names[0]}, {names[1]} = {text}"], False

    def stmt_helper2(self, depth):
        names = [self.new_name(), self.new_name()]
        if None in names:
            return self.stmt_assign(depth)
        call = self.helper_call(EXPR_DEPTH - 1)
        for n in names:
            self.scope[n] = call.dep
        return [f"{names[0]}, {names[1]} = {call.text}"], False

    # ------------------------------------------------------------- variables by path
    #: The attributes holding the variables in scope (a dict each: name -> what is known of
    #: it); a subclass with more kinds of variables adds its dicts.
    ENV = ("scope",)
    #: A block goes on after each statement with probability MORE / (MORE + 1).
    MORE = 3

    def snapshot(self) -> dict:
        return {attr: dict(getattr(self, attr)) for attr in self.ENV}

    def restore(self, env: dict) -> None:
        for attr, value in env.items():
            setattr(self, attr, value)

    def merge(self, envs: list[dict]) -> None:
        """After an `if`: the variables bound on every path that goes on, with what holds of
        them on all (`join`)."""
        for attr in self.ENV:
            dicts = [e[attr] for e in envs]
            setattr(self, attr, {n: self.join(attr, [d[n] for d in dicts]) for n in dicts[0]
                                 if all(n in d for d in dicts)})

    def join(self, attr: str, values: list):
        return all(values)         # "depends on the inputs" on every path

    def _branch(self, depth: int, test_dep: bool, may_return: bool):
        saved, saved_ints = self.snapshot(), list(self.ints)
        self.cond_stack.append(test_dep)
        try:
            body, leaves = self.block(depth + 1, 1, 3)
            if not leaves and may_return and self.chance(4):
                if not self.loops or self.chance(3):
                    body.append(self.return_stmt())
                    leaves = True
        finally:
            self.cond_stack.pop()
            self.ints = saved_ints
        after = self.snapshot()
        self.restore(saved)
        return body, (None if leaves else after)

    def stmt_if(self, depth):
        test = self.condition(EXPR_DEPTH - 1)
        lines = [f"if {test.text}:"]
        body, env = self._branch(depth, test.dep, True)
        lines += _indent(body)
        envs = [env]
        for _ in range(self.pick([(6, 0), (2, 1), (1, 2)])):
            t = self.condition(EXPR_DEPTH - 1)
            body, env = self._branch(depth, test.dep or t.dep, True)
            lines += [f"elif {t.text}:"] + _indent(body)
            envs.append(env)
            test = _Expr("", test.dep or t.dep)
        if self.draw(st.booleans()):
            body, env = self._branch(depth, test.dep, True)
            lines += ["else:"] + _indent(body)
            envs.append(env)
        else:
            envs.append(self.snapshot())
        live = [e for e in envs if e is not None]
        if not live:
            return lines, True
        if len(live) < len(envs) and (test.dep or any(self.cond_stack)):
            self.divergent = True
        self.merge(live)
        return lines, False

    def _loop_body(self, depth, counter):
        saved, saved_ints = self.snapshot(), list(self.ints)
        self.loops.append(len(self.cond_stack))
        self.ints.append(counter)
        try:
            body, _ = self.block(depth + 1, 1, 3)
        finally:
            self.loops.pop()
            self.ints = saved_ints
        # new variables of the body may be unbound after the loop; "dep" is monotone, so the
        # flags at entry still hold after any number of iterations.
        self.restore(saved)
        return body

    def counter_name(self) -> str:
        """A `for` loop's variable: named by the loop's depth (later loops reuse it), or a
        fresh name when ``counter_reuse`` is avoided."""
        if "counter_reuse" in self.avoid:
            self.n_fors = getattr(self, "n_fors", 0) + 1
            return f"i{self.n_fors - 1}"
        return f"i{len(self.loops)}"

    def stmt_for(self, depth):
        counter = self.counter_name()
        k = self.choice([2, 1, 3, 0, 4])
        body = self._loop_body(depth, counter)
        return [f"for {counter} in range({k}):"] + _indent(body), False

    def stmt_while(self, depth):
        counter = f"n{self.n_counters}"
        self.n_counters += 1
        k = self.choice([2, 1, 3, 4])
        test = f"{counter} < {k}"
        if self.chance(4):                     # a data-dependent condition (masked loop)
            extra = self.bexpr(1)
            test += f" and {extra.text}"
            if extra.dep:
                self.features.add("while_batched")
        elif self.chance(4):
            test += f" and {counter} != {self.choice(INT_LITERALS)}"
        step = f"{counter} = {counter} + 1" if "aug" in self.avoid else f"{counter} += 1"
        lines = [f"{counter} = 0", f"while {test}:", f"    {step}"]
        body = self._loop_body(depth, counter)
        self.ints.append(counter)
        return lines + _indent(body), False

    def stmt_exit(self, depth):
        """`if <test>: break` / `continue` inside a loop."""
        word = self.choice(["break", "continue"])
        batched_context = self.divergent or any(self.cond_stack[self.loops[-1]:])
        rare = self.chance(5)                  # a per-example test (masked loop)
        if batched_context and not rare:
            return self.stmt_assign(depth)
        test = self.bexpr(1) if rare else self.counter_test()
        if test.dep or batched_context:
            self.features.add("exit_batched")
        return [f"if {test.text}:", f"    {word}"], False


def _indent(lines: list[str]) -> list[str]:
    return ["    " + line for line in lines] or ["    pass"]


def _function(name: str, params, body: list[str]) -> str:
    return f"def {name}({', '.join(params)}):\n" + "\n".join(_indent(body)) + "\n"


#: Constructs that `programs(avoid=...)` can leave out, to look past a known engine bug.
AVOIDABLE = {"aug": "augmented assignment (`v += e`, also `n += 1` in while loops)",
             "counter_reuse": "a `for` loop variable named like an earlier loop's (which may "
                              "not have run)",
             "scalar": "broadcast scalar arguments (every argument is a batch)"}


@st.composite
def programs(draw, avoid: frozenset = frozenset()) -> Program:
    """A module defining ``f`` (and sometimes a helper ``h0`` it may call); ``avoid`` names
    constructs (keys of `AVOIDABLE`) to leave out."""
    avoid = frozenset(avoid)
    features: set[str] = set()
    helper = None
    chunks = [HEADER]
    if draw(st.integers(0, 3)) == 3:
        hparams = ("a", "b")[:draw(st.integers(1, 2))]
        hn_out = 1 if draw(st.integers(0, 3)) else 2
        gen = _Gen(draw, hparams, helper=None, is_helper=True, out_kinds=("f",) * hn_out,
                   avoid=avoid)
        body, leaves = gen.block(1, 0, 3)
        if not leaves:
            body.append(gen.return_stmt())
        helper = _HelperSig("h0", hparams, hn_out)
        features |= gen.features | {"helper"}
        chunks.append("\n" + _function("h0", hparams, body))
    params = ("x", "y", "z")[:draw(st.integers(1, 3))]
    n_out = 1 if draw(st.integers(0, 3)) else 2
    out_kinds = tuple("b" if draw(st.integers(0, 9)) == 9 else "f" for _ in range(n_out))
    gen = _Gen(draw, params, helper=helper, is_helper=False, out_kinds=out_kinds, avoid=avoid)
    body, leaves = gen.block(0, 0, 5)
    if not leaves:
        body.append(gen.return_stmt())
    features |= gen.features
    if n_out == 2:
        features.add("tuple_return")
    chunks.append("\n" + _function("f", params, body))
    return Program("\n".join(chunks), params, n_out, frozenset(features))


# ------------------------------------------------------------------------- well-formedness

class _Unbound(Exception):
    pass


def well_formed(source: str) -> bool:
    """Whether every function of the module reads only variables assigned on every path to
    the read and returns on every path: what the generator promises, checked on the text (also
    used to keep a reduced program valid)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    module = set(dir(builtins))
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef):
            module.add(stmt.name)
        elif isinstance(stmt, ast.Assign):
            module |= {t.id for t in stmt.targets if isinstance(t, ast.Name)}
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            module |= {(a.asname or a.name).split(".")[0] for a in stmt.names}
    for fn in tree.body:
        if not isinstance(fn, ast.FunctionDef):
            continue
        local = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)
                 and (isinstance(n.ctx, ast.Store) or n.id not in module)}
        local |= {a.arg for a in fn.args.args}
        try:
            if _wf_block(fn.body, {a.arg for a in fn.args.args}, local) is not None:
                return False      # some path falls off the end: returns None
        except _Unbound:
            return False
    return True


def _wf_reads(node, defined: set, local: set) -> None:
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in local \
                and n.id not in defined:
            raise _Unbound(n.id)


def _wf_block(stmts, defined: set, local: set) -> set | None:
    """Variables assigned after ``stmts``; None when they always leave (return/break/...)."""
    defined = set(defined)
    for stmt in stmts:
        if isinstance(stmt, ast.Assign):
            _wf_reads(stmt.value, defined, local)
            defined |= {n.id for t in stmt.targets for n in ast.walk(t)
                        if isinstance(n, ast.Name)}
        elif isinstance(stmt, ast.AugAssign):
            _wf_reads(stmt.value, defined, local)
            _wf_reads(ast.Name(stmt.target.id, ast.Load()), defined, local)
        elif isinstance(stmt, ast.Expr):
            _wf_reads(stmt.value, defined, local)
        elif isinstance(stmt, ast.Return):
            if stmt.value is not None:
                _wf_reads(stmt.value, defined, local)
            return None
        elif isinstance(stmt, (ast.Break, ast.Continue)):
            return None
        elif isinstance(stmt, ast.If):
            _wf_reads(stmt.test, defined, local)
            live = [e for e in (_wf_block(stmt.body, defined, local),
                                _wf_block(stmt.orelse, defined, local)) if e is not None]
            if not live:
                return None
            defined = set.intersection(*live)
        elif isinstance(stmt, ast.For):
            _wf_reads(stmt.iter, defined, local)
            _wf_block(stmt.body, defined | {stmt.target.id}, local)
        elif isinstance(stmt, ast.While):
            _wf_reads(stmt.test, defined, local)
            _wf_block(stmt.body, defined, local)
        elif not isinstance(stmt, ast.Pass):
            raise _Unbound(type(stmt).__name__)
    return defined


# ---------------------------------------------------------------------------------- inputs


values = st.one_of(st.sampled_from(NICE_VALUES),
                   st.floats(-100.0, 100.0, allow_nan=False, allow_infinity=False),
                   st.sampled_from(SPECIAL_VALUES))


@st.composite
def inputs_for(draw, program: Program, avoid: frozenset = frozenset()) -> tuple:
    """One argument per parameter: mostly float64 arrays of one length N, now and then a
    scalar (broadcast: the same value for every example)."""
    n = draw(st.integers(1, 8))
    args = []
    for _ in program.params:
        if "scalar" not in avoid and draw(st.integers(0, 9)) == 9:
            args.append(draw(values))
        else:
            args.append(np.array(draw(st.lists(values, min_size=n, max_size=n)),
                                 dtype=np.float64))
    return tuple(args)


#: The seed of a case's calling protocol (`harness.Protocol`: its random rows, batch sizes
#: and shared values); it shrinks to 0.
seeds = st.integers(0, 2**32 - 1)


@st.composite
def cases(draw, avoid: frozenset = frozenset()) -> tuple[Program, tuple, int]:
    """(program, the drawn call's arguments, the protocol's seed)."""
    program = draw(programs(avoid))
    return program, draw(inputs_for(program, frozenset(avoid))), draw(seeds)
