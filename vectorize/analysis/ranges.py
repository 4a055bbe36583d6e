"""Value ranges of per-example numbers: an interval analysis of a function in scalar style.

`Ranges` runs a ``FunctionDef`` (the scalar code the passes see) on intervals: for every
number a variable or expression may hold on an example, a `Span` ``[lo, hi]`` of the values
it may take, and whether it may be NaN. `passes.python_raises` asks it whether a divisor can
be zero (``a / x`` with ``x = max(a, 1.0)``: no check to write); the front end asks it for the
signs of a helper's arguments at its call (`signs_of_call`), so that the helper's own checks
know them.

What it knows:

- literals, ``True``/``False``; a parameter's span from its caller (`signs`) or none;
- ``+``, ``-``, ``*``, ``/`` and unary ``-`` on float64 numbers and Python ints, from the
  ends of the operands' spans (IEEE rounding to nearest is monotone: the rounded result of
  any operands inside the spans lies between the rounded results at the ends, underflow to
  0 included); on other dtypes (float32, NumPy int scalars, which wrap) nothing;
- ``abs``, ``max``, ``min`` (Python's NaN rules: ``max(nan, 1.0)`` is NaN, ``max(1.0, nan)``
  1.0), ``math.sqrt`` / ``np.sqrt``, ``float``, ``int``; a call of a user function by
  analysing its body on the arguments' spans (a few levels deep);
- ``u + v / u`` with ``u > 0`` and ``v >= 0``: at least ``2 * sqrt(v)`` (the means'
  inequality; the ends of the spans alone would give ``u``'s lower end, which a Newton step
  for a square root halves on every iteration);
- comparisons of a name with a number narrow it in the branch that runs (``else`` of
  ``if a < 0:`` is ``a >= 0`` or NaN; ``else`` of ``a == 0`` excludes 0), as do a loop's test
  in its body and its negation after it; a ``return``, ``raise``, ``break`` or ``continue``
  ends the path it is on. A number of another dtype (a NumPy float16 or float32 scalar)
  compares in its own dtype, the number rounded to it (`_as_compared`);
- loops to a fixed point, widening an end that keeps moving to the next of the smallest
  positive float, 0, and infinity (a step that halves a positive number stays positive only
  while nothing underflows: ``x * 0.5`` repeated reaches 0, and the analysis says so).

Anything else (subscripts, other calls, strings, complex numbers) is unknown: every number,
NaN included. The spans are sound for the examples that reach each point (what a check
guards), never for lanes a batch computes and discards.
"""

from __future__ import annotations

import builtins
import math
import weakref
from typing import NamedTuple

import libcst as cst
import numpy as np

from ..abstract import Value
from ..liveness import writes
from ..syntax.templates import bare_code
from ..syntax.traversal import walk

TINY = 5e-324
"""The smallest positive float64: ``x > 0`` means ``x >= TINY``."""

_READ: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
"""Function -> its `source.FunctionSource` once read, kept while the function lives: the
transforms of a process read each helper once (`Sources`)."""


class Sources:
    """One transform's function -> its `source.FunctionSource` (None while it is being read
    or where it cannot be), for the value ranges of calls: the None of a read under way, or of
    one that failed, is this transform's own (another transform, in another thread too, reads
    for itself), a source read is shared (`_READ`). Functions that cannot be weakly referenced
    hold none (``in``: False; ``get``, ``[]``, setting: TypeError, as a weak table's)."""

    def __init__(self):
        self._own: dict = {}

    def __contains__(self, fn) -> bool:
        try:
            weakref.ref(fn)
        except TypeError:
            return False
        return fn in self._own or fn in _READ

    def __getitem__(self, fn):
        weakref.ref(fn)
        if fn in self._own:
            return self._own[fn]
        return _READ[fn]

    def get(self, fn, default=None):
        try:
            return self[fn]
        except KeyError:
            return default

    def __setitem__(self, fn, source) -> None:
        weakref.ref(fn)
        self._own[fn] = source
        if source is not None:
            _READ[fn] = source

DEPTH = 3
"""How many calls deep user functions are analysed (`Ranges` of their bodies)."""

WIDEN_AFTER = 3
"""Iterations of a loop before its moving ends are widened."""


class Span(NamedTuple):
    """Every value a number may take: within ``[lo, hi]`` or NaN (``nan``); ``exact``: its
    arithmetic is IEEE float64 or exact (Python ints), so results of ``+ - * /`` lie between
    those at the ends."""
    lo: float
    hi: float
    nan: bool = True
    exact: bool = False

    def excludes_zero(self) -> bool:
        return self.lo > 0 or self.hi < 0


TOP = Span(-math.inf, math.inf, True, False)


def constant(value) -> Span | None:
    if isinstance(value, bool):
        return Span(float(value), float(value), False, True)
    if isinstance(value, int):
        lo = hi = float(value) if abs(value) < 2 ** 1023 else math.copysign(math.inf, value)
        if lo > value:
            lo = math.nextafter(lo, -math.inf)
        if hi < value:
            hi = math.nextafter(hi, math.inf)
        return Span(lo, hi, False, True)
    if isinstance(value, float):
        if math.isnan(value):
            return Span(math.inf, -math.inf, True, True)     # NaN only
        return Span(value, value, False, True)
    return None


def join(a: Span | None, b: Span | None) -> Span | None:
    """Either's values (None: no path)."""
    if a is None:
        return b
    if b is None:
        return a
    return Span(min(a.lo, b.lo), max(a.hi, b.hi), a.nan or b.nan, a.exact and b.exact)


def _widen(old: Span, new: Span) -> Span:
    lo, hi = new.lo, new.hi
    if lo < old.lo:
        lo = TINY if lo >= TINY else 0.0 if lo >= 0 else -math.inf
    if hi > old.hi:
        hi = -TINY if hi <= -TINY else 0.0 if hi <= 0 else math.inf
    return Span(lo, hi, new.nan, new.exact)


def _empty(s: Span) -> bool:
    return s.lo > s.hi


def _arith(op, a: Span, b: Span) -> Span:
    """``a op b`` for ``+ - * /`` on float64 / exact operands, from the ends."""
    if not (a.exact and b.exact):
        return TOP
    if _empty(a) or _empty(b):      # an operand that is only NaN
        return Span(math.inf, -math.inf, True, True)
    nan = a.nan or b.nan
    if op == "/" and b.lo <= 0 <= b.hi:
        return Span(-math.inf, math.inf, True, True)    # (a zero divisor)
    if op == "*" and (_has_zero(a) and _has_inf(b) or _has_zero(b) and _has_inf(a)):
        nan = True          # 0 * inf
    ends = []
    for x in (a.lo, a.hi):
        for y in (b.lo, b.hi):
            with np.errstate(all="ignore"):
                r = {"+": x + y, "-": x - y, "*": x * y, "/": x / y if y else math.nan}[op]
            if math.isnan(r):
                nan = True
            else:
                ends.append(r)
    if not ends:
        return Span(-math.inf, math.inf, True, True)
    return Span(min(ends), max(ends), nan, True)


def _has_zero(s: Span) -> bool:
    return s.lo <= 0 <= s.hi


def _has_inf(s: Span) -> bool:
    return math.isinf(s.lo) or math.isinf(s.hi)


def _narrow(s: Span, op, c: Span, holds: bool) -> Span:
    """``s`` where ``x op c`` holds (``holds``) or does not, for x of span s."""
    if c is None or not c.exact or _empty(c):
        return s
    if not s.exact:
        c = _as_compared(c)
        if c is None:
            return s
    lo, hi, nan = s.lo, s.hi, s.nan
    if holds:
        nan = False          # a comparison with NaN is false (but `!=`)
        if op is cst.LessThan:
            hi = min(hi, _below(c.hi))
        elif op is cst.LessThanEqual:
            hi = min(hi, c.hi)
        elif op is cst.GreaterThan:
            lo = max(lo, _above(c.lo))
        elif op is cst.GreaterThanEqual:
            lo = max(lo, c.lo)
        elif op is cst.Equal:
            lo, hi = max(lo, c.lo), min(hi, c.hi)
        elif op is cst.NotEqual:
            nan = s.nan
            lo, hi = _skip(lo, hi, c)
        else:
            return s
    else:                    # not (x op c): the opposite comparison, or x is NaN
        if op is cst.LessThan:
            lo = max(lo, c.lo)
        elif op is cst.LessThanEqual:
            lo = max(lo, _above(c.lo))
        elif op is cst.GreaterThan:
            hi = min(hi, c.hi)
        elif op is cst.GreaterThanEqual:
            hi = min(hi, _below(c.hi))
        elif op is cst.Equal:
            lo, hi = _skip(lo, hi, c)
        elif op is cst.NotEqual:
            nan = False
            lo, hi = max(lo, c.lo), min(hi, c.hi)
        else:
            return s
    return Span(lo, hi, nan, s.exact)


def _above(v: float) -> float:
    """The least number above ``v`` that a float or an int may be: the next float, where
    that is not past ``v + 1`` (ints beyond 2**53 lie between floats)."""
    return math.nextafter(v, math.inf) if abs(v) < 2.0 ** 53 or math.isinf(v) else v


def _below(v: float) -> float:
    return -_above(-v)


def _as_compared(c: Span) -> Span | None:
    """The float64 values a number of an unknown dtype (a span not ``exact``) may be
    compared with where it meets ``c``: a NumPy float16 or float32 one takes a Python float
    into its own dtype (NEP 50: ``np.float16(710.0) <= 709.78`` holds, the literal rounded
    to 710.0), so ``c`` widened to its roundings there (inf beyond float32's range); a NumPy
    int64 meets a float in float64, which rounds the int from 2**53 on: None (no fact)."""
    if any(math.isfinite(v) and abs(v) >= 2.0 ** 53 for v in (c.lo, c.hi)):
        return None
    with np.errstate(over="ignore"):
        los = [c.lo] + [float(t(c.lo)) for t in (np.float16, np.float32)]
        his = [c.hi] + [float(t(c.hi)) for t in (np.float16, np.float32)]
    return Span(min(los), max(his), c.nan, c.exact)


def _skip(lo, hi, c: Span):
    """``[lo, hi]`` without the single value of ``c`` where it is an end."""
    if c.lo == c.hi:
        if lo == c.lo:
            lo = _above(lo)
        if hi == c.hi:
            hi = _below(hi)
    return lo, hi


_FLIP = {cst.LessThan: cst.GreaterThan, cst.GreaterThan: cst.LessThan,
         cst.LessThanEqual: cst.GreaterThanEqual, cst.GreaterThanEqual: cst.LessThanEqual,
         cst.Equal: cst.Equal, cst.NotEqual: cst.NotEqual}

_ABS = {builtins.abs, math.fabs, np.abs, np.fabs}
_SQRT = {math.sqrt, np.sqrt}
_BINARY = {cst.Add: "+", cst.Subtract: "-", cst.Multiply: "*", cst.Divide: "/"}


class _Stop(Exception):
    """A construct the analysis does not follow (`Ranges.opaque`)."""


class Ranges:
    """The spans of ``func``'s expressions (``at``: node -> `Span`, joined over every time it
    runs) and of what it returns (``returned``), its parameters starting at ``params`` (name
    -> `Span`; unknown where absent). ``resolve(name)``: the object a free name refers to,
    or None; ``depth``: how many calls deep this analysis is."""

    def __init__(self, func: cst.FunctionDef, params: dict, resolve, depth: int = 0,
                 exact_params=frozenset(), sources=None):
        self.at: dict = {}
        self.resolve = resolve
        self.depth = depth
        self.returned: Span | None = None
        self._loops: list = []      # per enclosing loop: [continue states, break states]
        env = {}
        for param in func.params.params:
            name = param.name.value
            env[name] = params.get(name, Span(-math.inf, math.inf, True,
                                              name in exact_params))
        for name, span in params.items():
            env.setdefault(name, span)
        kinds = {type(n) for n in walk(func)}
        if cst.Global in kinds or cst.Nonlocal in kinds:
            # (a nested function may rebind its names: nothing is known)
            raise _Stop
        self._walrus = cst.NamedExpr in kinds
        self._locals = writes(func.body) | set(env)
        self._sources = {} if sources is None else sources
        if self.block(func.body.body, env) is not None:
            self.returned = join(self.returned, TOP)     # (falls off the end: None)

    # ------------------------------------------------------------------ statements
    def block(self, stmts, env):
        for stmt in stmts:
            if env is None:
                return None
            env = self.statement(stmt, env)
        return env

    def statement(self, stmt, env):
        t = type(stmt)
        if self._walrus and any(type(n) is cst.NamedExpr for n in walk(stmt)):
            return self.opaque(stmt, env)       # (`:=` binds inside an expression)
        try:
            if t is cst.SimpleStatementLine:
                for small in stmt.body:
                    if env is None:
                        return None
                    env = self.small(small, env)
                return env
            if t is cst.If:
                self.expr(stmt.test, env)
                then = self.block(stmt.body.body, self.narrow(stmt.test, env, True))
                orelse = self.narrow(stmt.test, env, False)
                if isinstance(stmt.orelse, cst.If):
                    orelse = self.statement(stmt.orelse, orelse) if orelse is not None \
                        else None
                elif stmt.orelse is not None:
                    orelse = self.block(stmt.orelse.body.body, orelse)
                return _join_envs(then, orelse)
            if t is cst.While:
                return self.loop(stmt, env, stmt.test, None)
            if t is cst.For:
                return self.loop(stmt, env, None, stmt)
            if t is cst.With:
                for item in stmt.items:
                    self.expr(item.item, env)
                    if item.asname is not None:
                        env = _forget(env, _target_names(item.asname.name))
                return self.block(stmt.body.body, env)
        except _Stop:
            pass
        return self.opaque(stmt, env)

    def opaque(self, stmt, env):
        """A statement not followed (``try``, ``match``, a nested ``def``...): what it writes
        is unknown after it, and so is what it returns or leaves a loop with."""
        env = _forget(env, writes(stmt) | {
            name for n in walk(stmt) if type(n) is cst.NamedExpr
            for name in _target_names(n.target)})
        kinds = {type(n) for n in walk(stmt)}
        if cst.Return in kinds:
            self.returned = join(self.returned, TOP)
        if self._loops and (cst.Break in kinds or cst.Continue in kinds):
            self._loops[-1][0].append(env)
            self._loops[-1][1].append(env)
        return env

    def small(self, small, env):
        t = type(small)
        if t is cst.Assign:
            span = self.expr(small.value, env)
            env = dict(env)
            for target in small.targets:
                self.bind(target.target, small.value, span, env)
            return env
        if t is cst.AnnAssign:
            if small.value is None:
                return env
            span = self.expr(small.value, env)
            env = dict(env)
            self.bind(small.target, small.value, span, env)
            return env
        if t is cst.AugAssign:
            span = self.expr(small.value, env)
            env = dict(env)
            op = {cst.AddAssign: "+", cst.SubtractAssign: "-", cst.MultiplyAssign: "*",
                  cst.DivideAssign: "/"}.get(type(small.operator))
            if type(small.target) is cst.Name:
                old = env.get(small.target.value, TOP)
                env[small.target.value] = _arith(op, old, span) if op else TOP
            else:
                return _forget(env, writes(small))
            return env
        if t in (cst.Expr,):
            self.expr(small.value, env)
            return env
        if t is cst.Return:
            if small.value is not None:
                self.returned = join(self.returned, self.expr(small.value, env))
            else:
                self.returned = join(self.returned, TOP)
            return None
        if t is cst.Raise:
            return None
        if t is cst.Assert:
            self.expr(small.test, env)
            return self.narrow(small.test, env, True)
        if t is cst.Break:
            if self._loops:
                self._loops[-1][1].append(env)
            return None
        if t is cst.Continue:
            if self._loops:
                self._loops[-1][0].append(env)
            return None
        if t is cst.Pass:
            return env
        return self.opaque(small, env)

    def bind(self, target, value, span, env) -> None:
        if type(target) is cst.Name:
            env[target.value] = span
            return
        if type(target) in (cst.Tuple, cst.List) and type(value) in (cst.Tuple, cst.List) \
                and len(target.elements) == len(value.elements) and not any(
                    type(e) is cst.StarredElement for e in target.elements):
            for t, v in zip(target.elements, value.elements):
                self.bind(t.value, v.value, self.at.get(v.value, TOP), env)
            return
        for name in _target_names(target):
            env[name] = TOP

    def loop(self, stmt, env, test, for_stmt):
        """A ``while`` (``test``) or ``for`` loop to a fixed point; the state after it."""
        head = env
        if for_stmt is not None:
            self.expr(for_stmt.iter, env)
        for count in range(64):
            frame = [[], []]
            self._loops.append(frame)
            try:
                inside = head
                if test is not None:
                    self.expr(test, head)
                    inside = self.narrow(test, head, True)
                else:
                    inside = dict(head)
                    span = self.range_of(for_stmt.iter, head)
                    for name in _target_names(for_stmt.target):
                        inside[name] = TOP
                    if span is not None and type(for_stmt.target) is cst.Name:
                        inside[for_stmt.target.value] = span
                end = self.block(stmt.body.body, inside) if inside is not None else None
            finally:
                self._loops.pop()
            back = _join_envs(end, *frame[0])
            new = _join_envs(head, back)
            if count >= WIDEN_AFTER and new is not None and head is not None:
                new = {k: _widen(head[k], v) if k in head else v for k, v in new.items()}
            if _same(new, head):
                break
            head = new
        else:       # (never expected: the widening ends it) nothing known in or after it
            for n in walk(stmt):
                if n in self.at:
                    self.at[n] = TOP
            return self.opaque(stmt, env)
        after = self.narrow(test, head, False) if test is not None else head
        if stmt.orelse is not None and after is not None:
            after = self.block(stmt.orelse.body.body, after)
        return _join_envs(after, *frame[1])

    def range_of(self, node, env):
        """The loop variable's span of ``for i in range(...)`` (ints, exact)."""
        if type(node) is not cst.Call or type(node.func) is not cst.Name or \
                self.resolve(node.func.value) is not builtins.range or any(
                    a.keyword is not None or a.star for a in node.args):
            return None
        spans = [self.at.get(a.value) or self.expr(a.value, env) for a in node.args]
        if len(spans) == 1:
            return Span(0.0, spans[0].hi - 1, False, True)
        if len(spans) == 2:
            return Span(spans[0].lo, spans[1].hi - 1, False, True)
        return None

    # ------------------------------------------------------------------ conditions
    def narrow(self, test, env, holds: bool):
        """``env`` where ``test`` is true (``holds``) or false; None: no example gets there."""
        if env is None:
            return None
        t = type(test)
        if t is cst.UnaryOperation and type(test.operator) is cst.Not:
            return self.narrow(test.expression, env, not holds)
        if t is cst.BooleanOperation:
            both = isinstance(test.operator, cst.And) == holds
            if both:     # `a and b` true, `a or b` false: both sides hold (or fail)
                return self.narrow(test.right, self.narrow(test.left, env, holds), holds)
            return env
        if t is cst.Comparison and len(test.comparisons) == 1:
            link = test.comparisons[0]
            op = type(link.operator)
            if op not in _FLIP:
                return env
            out = dict(env)
            for name_node, other, o in ((test.left, link.comparator, op),
                                        (link.comparator, test.left, _FLIP[op])):
                if type(name_node) is cst.Name and name_node.value in out:
                    c = self.at.get(other) or self.expr(other, env)
                    span = _narrow(out[name_node.value], o, c, holds)
                    if _empty(span) and not span.nan:
                        return None
                    out[name_node.value] = span
            return out
        return env

    # ------------------------------------------------------------------ expressions
    def expr(self, node, env) -> Span:
        span = self._expr(node, env)
        old = self.at.get(node)
        self.at[node] = span if old is None else join(old, span)
        return span

    def _expr(self, node, env) -> Span:
        t = type(node)
        if t is cst.Integer or t is cst.Float:
            return constant(node.evaluated_value) or TOP
        if t is cst.Name:
            if node.value in env:
                return env[node.value]
            if node.value in self._locals:
                return TOP
            if node.value in ("True", "False") and self.resolve(node.value) in (True, False):
                return constant(self.resolve(node.value))
            return TOP
        if t is cst.UnaryOperation:
            inner = self.expr(node.expression, env)
            if type(node.operator) is cst.Minus:
                return Span(-inner.hi, -inner.lo, inner.nan, inner.exact)
            if type(node.operator) is cst.Plus:
                return inner
            if type(node.operator) is cst.Not:
                return Span(0.0, 1.0, False, True)
            return TOP
        if t is cst.BinaryOperation:
            a = self.expr(node.left, env)
            b = self.expr(node.right, env)
            op = _BINARY.get(type(node.operator))
            if op is None:
                return TOP
            span = _arith(op, a, b)
            if op == "+":
                span = self._means(node.left, node.right, a, span, env) or \
                    self._means(node.right, node.left, b, span, env) or span
            return span
        if t is cst.Comparison:
            self.expr(node.left, env)
            for link in node.comparisons:
                self.expr(link.comparator, env)
            return Span(0.0, 1.0, False, True)
        if t is cst.BooleanOperation:
            a = self.expr(node.left, env)
            b = self.expr(node.right, self.narrow(node.left, env, isinstance(
                node.operator, cst.And)) or env)
            return join(a, b)
        if t is cst.IfExp:
            self.expr(node.test, env)
            then = self.narrow(node.test, env, True)
            other = self.narrow(node.test, env, False)
            a = self.expr(node.body, then) if then is not None else None
            b = self.expr(node.orelse, other) if other is not None else None
            return join(a, b) or TOP
        if t is cst.Call:
            return self.call(node, env)
        for child in _subexpressions(node):
            self.expr(child, env)
        return TOP

    def _means(self, u_node, frac, u: Span, span: Span, env):
        """``u + v / u`` with u > 0, v >= 0: at least ``2 * sqrt(v)`` (by a margin far above
        the rounding of the three operations; v >= TINY keeps it out of the subnormals)."""
        if type(frac) is not cst.BinaryOperation or type(frac.operator) is not cst.Divide or \
                type(u_node) is not cst.Name or bare_code(frac.right) != u_node.value:
            return None
        v = self.at.get(frac.left)
        if v is None or not (span.exact and u.lo > 0 and v.lo >= TINY):
            return None
        bound = 2.0 * math.sqrt(v.lo) * 0.999
        if bound <= span.lo:
            return None
        return Span(bound, max(span.hi, bound), span.nan, True)

    def call(self, node: cst.Call, env) -> Span:
        args = [self.expr(a.value, env) for a in node.args]
        fn = self.callee(node.func)
        if fn is None or any(a.keyword is not None or a.star for a in node.args):
            return TOP
        if fn in _ABS and len(args) == 1:
            a = args[0]
            if _empty(a):
                return a
            lo = 0.0 if a.lo <= 0 <= a.hi else min(abs(a.lo), abs(a.hi))
            return Span(lo, max(abs(a.lo), abs(a.hi)), a.nan, a.exact or fn is math.fabs)
        if fn in _SQRT and len(args) == 1:
            a = args[0]
            if _empty(a) or a.hi < 0:
                return Span(math.inf, -math.inf, True, True)
            return Span(math.sqrt(max(a.lo, 0.0)), math.sqrt(a.hi), a.nan or a.lo < 0,
                        a.exact or fn is math.sqrt)
        if fn in (builtins.max, builtins.min) and len(args) >= 2 or fn in (
                np.maximum, np.minimum, np.fmax, np.fmin) and len(args) == 2:
            return _extreme(fn, args)
        if fn is builtins.float and len(args) == 1:
            a = args[0]
            return Span(a.lo, a.hi, a.nan, True) if a.exact else TOP
        if fn is builtins.int and len(args) == 1:
            a = args[0]
            if _empty(a):
                return TOP
            return Span(float(math.trunc(a.lo)) if math.isfinite(a.lo) else a.lo,
                        float(math.trunc(a.hi)) if math.isfinite(a.hi) else a.hi,
                        False, True)
        if callable(fn) and getattr(fn, "__code__", None) is not None and \
                self.depth < DEPTH:
            return self.helper(fn, node, args)
        return TOP

    def callee(self, func):
        if type(func) is cst.Name:
            if func.value in self._locals:
                return None
            return self.resolve(func.value)
        if type(func) is cst.Attribute and type(func.value) is cst.Name and \
                func.value.value not in self._locals:
            owner = self.resolve(func.value.value)
            if owner in (math, np):
                return getattr(owner, func.attr.value, None)
        return None

    def helper(self, fn, node, args) -> Span:
        """A user function's result: its body analysed on the arguments' spans."""
        import inspect

        from ..source import lookup, read_function
        try:
            if fn not in self._sources:
                self._sources[fn] = None
                self._sources[fn] = read_function(fn)
            source = self._sources[fn]
            bound = inspect.signature(fn, follow_wrapped=False).bind(*args)
        except Exception:       # noqa: BLE001 -- a function we cannot read: unknown
            return TOP
        if source is None:      # (its own analysis is under way: recursion)
            return TOP
        params = dict(bound.arguments)
        if any(not isinstance(v, Span) for v in params.values()):
            return TOP

        def resolve(name):
            if name in source.local_imports:
                return source.local_imports[name]
            found, value, _ = lookup(fn, name)
            return value if found else None
        try:
            inner = Ranges(source.tree, params, resolve, self.depth + 1,
                           sources=self._sources)
        except Exception:       # noqa: BLE001 -- an analysis that fails knows nothing
            return TOP
        return inner.returned or TOP


def _extreme(fn, args) -> Span:
    """``max``/``min`` and NumPy's: Python's keep the first argument where it is NaN and
    skip a later NaN (``max(nan, 1.0)`` is NaN, ``max(1.0, nan)`` 1.0); ``np.maximum``
    gives NaN for any NaN, ``np.fmax`` only for two."""
    upper = fn in (builtins.max, np.maximum, np.fmax)
    exact = all(a.exact for a in args)
    if fn in (builtins.max, builtins.min):
        nan = args[0].nan
        # where the first is not NaN, it takes part, and so does every later one not NaN
        sure = [args[0]] + [a for a in args[1:] if not a.nan]
    elif fn in (np.maximum, np.minimum):
        nan = any(a.nan for a in args)
        sure = list(args)
    else:
        nan = all(a.nan for a in args)
        sure = [a for a in args if not a.nan]
    live = [a for a in args if not _empty(a)]
    sure = [a for a in sure if not _empty(a)]
    if not live:
        return Span(math.inf, -math.inf, True, exact)
    if upper:       # at least the largest lower end of those that surely take part
        lo = max(a.lo for a in sure) if sure else min(a.lo for a in live)
        return Span(lo, max(a.hi for a in live), nan, exact)
    hi = min(a.hi for a in sure) if sure else max(a.hi for a in live)
    return Span(min(a.lo for a in live), hi, nan, exact)


def _subexpressions(node):
    from ..syntax.traversal import children
    for child in children(node):
        if isinstance(child, cst.BaseExpression):
            yield child
        elif isinstance(child, (cst.Arg, cst.Element, cst.SubscriptElement, cst.Index)):
            yield from _subexpressions(child)


def _target_names(target) -> list:
    if type(target) is cst.Name:
        return [target.value]
    if type(target) in (cst.Tuple, cst.List):
        out = []
        for e in target.elements:
            out += _target_names(e.value)
        return out
    if type(target) is cst.StarredElement:
        return _target_names(target.value)
    return []


def _forget(env, names):
    if env is None:
        return None
    out = dict(env)
    for name in names:
        out[name] = TOP
    return out


def _join_envs(*envs):
    live = [e for e in envs if e is not None]
    if not live:
        return None
    out = {}
    for name in set().union(*live):
        span = None
        for e in live:
            span = join(span, e.get(name, TOP))
        out[name] = span
    return out


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is b
    return a.keys() == b.keys() and all(a[k] == b[k] for k in a)


def excludes_zero(ranges: Ranges | None, node) -> bool:
    """Whether ``node`` is never 0 on the examples that evaluate it (NaN is not 0)."""
    if ranges is None:
        return False
    span = ranges.at.get(node)
    return span is not None and span.excludes_zero()


SIGNS = {"+": Span(TINY, math.inf, True, False), "-": Span(-math.inf, -TINY, True, False)}
"""A parameter's span from the sign its caller proved (`signs_of_call`)."""


def sign(span: Span | None) -> str | None:
    if span is None:
        return None
    return "+" if span.lo > 0 else "-" if span.hi < 0 else None


def exact_value(value, python_semantics: bool) -> bool:
    """Whether a parameter's per-example numbers compute as IEEE float64 or exactly: float64
    and bools, and ints where they are Python's (`vectorize`; NumPy's wrap)."""
    if type(value) is not Value or not value.known or value.rank != 0 or value.dtype is None:
        return False
    dtype = value.dtype
    return dtype == np.float64 or dtype.kind == "b" or (
        python_semantics and dtype.kind in "iu")


def of_function(source, tree: cst.FunctionDef, params: dict, signs=frozenset(),
                python_semantics: bool = True, sources=None) -> Ranges | None:
    """`Ranges` of a specialization's ``tree``: ``params`` its abstract arguments (name ->
    `Value`), ``signs`` what its caller proved of their signs (`signs_of_call`); None where
    the analysis fails (nothing is then known). ``sources``: a dict that keeps the helpers'
    sources read (`read_function`) between analyses."""
    exact = {name for name, v in params.items() if exact_value(v, python_semantics)}
    spans = {}
    for name, v in params.items():
        if type(v) is Value and v.known and v.exact and name in exact:
            span = constant(v.example.item() if isinstance(v.example, np.generic)
                            else v.example)
            if span is not None:
                spans[name] = span
    for name, mark in signs:
        spans.setdefault(name, SIGNS[mark]._replace(exact=name in exact))

    def resolve(name):
        found, value, _ = source.lookup(name)
        return value if found else None
    try:
        return Ranges(tree, spans, resolve, exact_params=frozenset(exact), sources=sources)
    except Exception:       # noqa: BLE001 -- an analysis that fails only elides nothing
        return None


def signs_of_call(ranges: Ranges | None, fn, node) -> frozenset:
    """``(parameter, "+" or "-")`` for each parameter of the helper ``fn`` whose argument at
    the call ``node`` is proved positive or negative (NaN aside)."""
    import inspect
    if ranges is None or type(node) is not cst.Call or any(a.star for a in node.args):
        return frozenset()
    try:
        bound = inspect.signature(fn, follow_wrapped=False).bind(
            *[a.value for a in node.args if a.keyword is None],
            **{a.keyword.value: a.value for a in node.args if a.keyword is not None})
    except (TypeError, ValueError):
        return frozenset()
    out = set()
    for name, arg in bound.arguments.items():
        if isinstance(arg, cst.BaseExpression):
            mark = sign(ranges.at.get(arg))
            if mark is not None:
                out.add((name, mark))
    return frozenset(out)


def uses_signs(tree: cst.FunctionDef) -> bool:
    """Whether a helper's checks may use its arguments' signs: it divides (or calls a
    function, which may)."""
    for node in walk(tree):
        t = type(node)
        if t is cst.BinaryOperation and type(node.operator) in (
                cst.Divide, cst.FloorDivide, cst.Modulo) or t is cst.AugAssign and type(
                node.operator) in (cst.DivideAssign, cst.FloorDivideAssign,
                                   cst.ModuloAssign) or t is cst.Call:
            return True
    return False


def signs_at_calls(ranges: Ranges | None, fn, tree) -> frozenset:
    """`signs_of_call` of every call of ``fn`` in ``tree`` together: the signs that hold at
    all of them (none where a call was not analysed)."""
    if ranges is None:
        return frozenset()
    from ..introspect import forwarded_target
    found = None
    for node in walk(tree):
        if type(node) is not cst.Call:
            continue
        callee = ranges.callee(node.func)
        if callee is None or not (callee is fn or forwarded_target(callee) is fn):
            continue
        if node not in ranges.at:
            return frozenset()       # (not reached by the analysis: nothing known)
        signs = signs_of_call(ranges, fn, node)
        found = signs if found is None else found & signs
    return found or frozenset()
