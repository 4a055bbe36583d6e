"""``try``/``except`` around arithmetic: the examples that would raise take the handler.

Assumes: scalar-style code, not yet analysed (the analysis knows no ``try``); a `vectorize`
specialization (``ctx.module.python_semantics``).
Reads and writes no record (`records`).
Guarantees: a ``try`` whose body is simple statements of arithmetic, comparisons, `math`
functions and the number builtins (``abs``, ``min``, ``max``, ``float``, ``int``, ``round``,
``pow``, ``divmod``) on Python numbers, with handlers for exceptions those raise
(``ZeroDivisionError``, ``ValueError``, ``OverflowError``, ``ArithmeticError``,
``Exception``, a bare ``except``) and no ``finally``, becomes the test Python makes before
each statement (`rules.python_errors`, exactly: a zero divisor, a `math` domain or range
error, ``int()`` of NaN or inf) and a per-example choice of handler: per example the same
code runs, so the meaning is unchanged, and the passes after batch it as any per-example
``if``. A handler's code is written once for each test that leads to it.

    try:                                    if x <= 0:
        y = math.log(x)                         y = -math.inf
    except ValueError:            ->        else:
        y = -math.inf                           y = math.log(x)

What it cannot model (a power's overflow, an int result beyond int64 that raises only where
numpy.vectorize converts it) is not caught here: it raises for the batch, and `vectorize` runs
the per-example loop, which takes the handler (`vectorize._replay`). Anything else in a
``try`` (calls of other functions, indexing, loops, ``finally``, ``except E as e`` reading
``e``) is refused where it is written.
"""

from __future__ import annotations

import builtins
import math

import libcst as cst
import numpy as np

from ..errors import Unsupported
from ..liveness import reads
from ..rules import python_errors
from ..syntax.templates import expr
from ..syntax.traversal import by_type, children, rewrite, walk

_NUMBER_BUILTINS = {builtins.abs, builtins.min, builtins.max, builtins.float, builtins.int,
                    builtins.round, builtins.pow, builtins.divmod, builtins.bool}
_DIVISIONS = {cst.Divide: "/", cst.FloorDivide: "//", cst.Modulo: "%"}


class _TryLowering(cst.CSTTransformer):
    def __init__(self, func_globals: dict, namer, numbers=None):
        self.globals = func_globals
        self.namer = namer
        # `vmap`: which values are Python numbers per example (`_PythonValued`); None for
        # `vectorize`, whose examples are all Python numbers
        self.numbers = numbers
        self.python_examples = False    # `vectorize`: the parameters are Python numbers
        self.dicts: set[str] = set()     # local names bound to dicts (KeyError, not IndexError)

    def resolve(self, node):
        """The object a name or ``module.name`` in the body refers to, or None."""
        if type(node) is cst.Name:
            if node.value in self.globals:
                return self.globals[node.value]
            return getattr(builtins, node.value, None)
        if type(node) is cst.Attribute:
            owner = self.resolve(node.value)
            return getattr(owner, node.attr.value, None) if owner is not None else None
        return None

    def leave_Try(self, original_node, updated_node):
        node = original_node
        if node.finalbody is not None:
            raise Unsupported("`try` with `finally` in a vectorized function", node,
                              "move the cleanup after the `try` statement")
        handlers = [(self.handler_types(h), list(u.body.body))
                    for h, u in zip(node.handlers, updated_node.handlers)]
        tail = list(updated_node.orelse.body.body) if updated_node.orelse is not None else []
        try:
            body = self.body(list(updated_node.body.body), handlers, tail)
        except Unsupported as problem:
            # a statement the engine made of the user's (an inner `try` lowered): the user's
            made = [s for s in updated_node.body.body if not any(s is o for o in node.body.body)]
            if any(problem.node is s for s in made):
                problem.node = next((o for o in node.body.body if type(o) is not
                                     cst.SimpleStatementLine and not any(
                                         o is s for s in updated_node.body.body)), node)
            raise
        body[0] = body[0].with_changes(leading_lines=updated_node.leading_lines)
        return cst.FlattenSentinel(body)

    def handler_types(self, handler: cst.ExceptHandler) -> tuple:
        if handler.name is not None:
            name = handler.name.name.value
            if name in reads(handler.body):
                raise Unsupported("`except ... as e` that reads the exception, in a vectorized "
                                  "function", handler.name,
                                  "handle it without reading the exception object")
        if handler.type is None:
            return (BaseException,)
        parts = handler.type.elements if type(handler.type) is cst.Tuple else [handler.type]
        types = []
        for part in parts:
            node = part.value if isinstance(part, cst.Element) else part
            cls = self.resolve(node)
            if not (isinstance(cls, type) and issubclass(cls, BaseException)):
                raise Unsupported("an `except` clause whose exception the engine cannot "
                                  "resolve", node, "name a builtin exception class")
            types.append(cls)
        return tuple(types)

    def body(self, stmts: list, handlers: list, tail: list) -> list:
        """``stmts``, each under ``else`` of the tests Python makes before it, whose own
        branch runs the handler that catches its exception; ``tail`` (the ``else:`` of the
        ``try``) after the last."""
        if not stmts:
            return [s.deep_clone() for s in tail]
        stmt = stmts[0]
        raised = _raise_under_if(stmt)
        if raised is not None:
            # `if cond: raise E(...)`: the lanes where `cond` holds raise E
            test, exc_node = raised
            exc = self.raised_type(exc_node)
            tests = []
            self.expression(test, [], tests)
            if any(issubclass(exc, types) for types, _ in handlers):
                tests.append((exc, "{c}", {"c": test}, []))
                return self.guarded(tests, handlers, self.body(stmts[1:], handlers, tail))
            return self.guarded(tests, handlers, [stmt] + self.body(stmts[1:], handlers, tail))
        if type(stmt) is not cst.SimpleStatementLine:
            raise Unsupported("a `try` around anything but simple statements (assignments, "
                              "`return`, `raise`, `if ...: raise`) in a vectorized function",
                              stmt, "move the loop or `if` out of the `try`")
        tests = []
        if len(stmt.body) == 1 and type(stmt.body[0]) is cst.Raise:
            # an unconditional `raise E(...)`: the handler that catches E, or the raise
            exc = self.raised_type(stmt.body[0].exc)
            handler = next((h for types, h in handlers if issubclass(exc, types)), None)
            return [stmt] if handler is None else [s.deep_clone() for s in handler]
        for small in stmt.body:
            if type(small) not in (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Return,
                                   cst.Pass):
                raise Unsupported("a statement that a `try` around it cannot model", small,
                                  "keep only assignments and `return` in the `try`")
            if type(small) is cst.AugAssign and type(small.target) is cst.Name:
                op = _DIVISIONS.get(type(_binary(small.operator)))
                self.expression(small.value, [], tests)
                if op is not None and self.arithmetic(small, [small.target, small.value],
                                                      f"`{op}=`"):
                    tests.append((ZeroDivisionError, "{b} == 0", {"b": small.value}, []))
                elif type(_binary(small.operator)) is cst.Power:
                    self.arithmetic(small, [small.target, small.value], "`**=`", power=True)
            elif getattr(small, "value", None) is not None:
                self.expression(small.value, [], tests)
        return self.guarded(tests, handlers, [stmt] + self.body(stmts[1:], handlers, tail))

    def guarded(self, tests: list, handlers: list, rest: list) -> list:
        """``rest`` under ``else`` of each test whose exception a handler catches (the first
        test outermost), its branch that handler."""
        for exc, template, nodes, guards in reversed(tests):
            handler = next((h for types, h in handlers if issubclass(exc, types)), None)
            if handler is None:
                continue    # not caught here: it raises (the per-example loop decides)
            test = expr(template, **{n: v.deep_clone() for n, v in nodes.items()})
            for guard, negated in reversed(guards):
                g = guard.deep_clone()
                test = cst.BooleanOperation(cst.UnaryOperation(cst.Not(), g) if negated else g,
                                            cst.And(), test)
            rest = [cst.If(test=test,
                           body=cst.IndentedBlock([s.deep_clone() for s in handler]),
                           orelse=rest[0] if len(rest) == 1 and type(rest[0]) is cst.If
                           else cst.Else(body=cst.IndentedBlock(rest)))]
        return rest

    def raised_type(self, node) -> type:
        """The exception class ``raise <node>`` raises (``E`` or ``E(...)``)."""
        target = node.func if type(node) is cst.Call else node
        cls = self.resolve(target) if target is not None else None
        if not (isinstance(cls, type) and issubclass(cls, BaseException)):
            raise Unsupported("a `raise` inside a `try` whose exception the engine cannot "
                              "resolve", node if node is not None else None,
                              "raise a builtin exception class")
        return cls

    def arithmetic(self, node, operands, what: str, power=False) -> bool:
        """Whether the arithmetic ``node`` may raise per example: on Python numbers only;
        NumPy scalars (and tensors) divide by zero with a warning and an inf or nan, but raise
        for an integer to a negative integer power (`vmap`). Refused where it cannot be
        decided (`vmap` examples of unknown types)."""
        if self.numbers is None:
            return True
        kinds = [self.numbers.python_valued(o) for o in operands]
        if all(k is True for k in kinds):
            return True
        if any(k is False for k in kinds) and (not power or _float_or_natural(operands[1])):
            return False
        if self.python_examples:
            return True     # (`vectorize`: an operand not known to be NumPy's is Python's)
        raise Unsupported(
            f"{what} inside a `try` under `vmap` whose operands' types the engine cannot tell: "
            "it raises on Python numbers (and for NumPy integers to a negative power), on "
            "NumPy scalars it warns, so no handler can be chosen per example", node,
            "test the divisor with `if` before the `try`, or convert the operands with "
            "float() (Python numbers: the division raises where it is 0)")

    def expression(self, node, guards, tests) -> None:
        """The tests of the operations in ``node``, in evaluation order."""
        t = type(node)
        if t is cst.BooleanOperation:
            self.expression(node.left, guards, tests)
            self.expression(node.right, guards + [(node.left, type(node.operator) is cst.Or)],
                            tests)
            return
        if t is cst.IfExp:
            self.expression(node.test, guards, tests)
            self.expression(node.body, guards + [(node.test, False)], tests)
            self.expression(node.orelse, guards + [(node.test, True)], tests)
            return
        if t is cst.Subscript:
            self.subscript(node, guards, tests)
            return
        if t in (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp,
                 cst.GeneratorExp, cst.Await, cst.Yield, cst.NamedExpr):
            raise Unsupported("an expression that a `try` around it cannot model", node,
                              "compute it before the `try`")
        if t is cst.Call:
            fn = self.resolve(node.func)
            for arg in node.args:
                if arg.keyword is not None or arg.star:
                    raise Unsupported("a call with keywords or `*` inside a `try`", arg,
                                      "compute it before the `try`")
                self.expression(arg.value, guards, tests)
            self.call(fn, node, guards, tests)
            return
        if t is cst.Attribute:
            if not isinstance(self.resolve(node.value), type(math)):
                raise Unsupported("an attribute read inside a `try`", node,
                                  "compute it before the `try`")
            return
        for child in children(node):
            if isinstance(child, cst.BaseExpression):
                self.expression(child, guards, tests)
        if t is cst.BinaryOperation:
            op = _DIVISIONS.get(type(node.operator))
            if op is not None:
                if self.arithmetic(node, [node.left, node.right], f"`{op}`"):
                    tests.append((ZeroDivisionError, "{b} == 0", {"b": node.right}, guards))
            elif type(node.operator) is cst.Power:
                if self.arithmetic(node, [node.left, node.right], "`**`", power=True):
                    tests.append((ZeroDivisionError, "{a} == 0 and -math.inf < {b} < 0",
                                  {"a": node.left, "b": node.right}, guards))

    def subscript(self, node, guards, tests) -> None:
        """``v[i]``: IndexError where ``i`` is out of ``range(-len(v), len(v))``."""
        if len(node.slice) != 1 or type(node.slice[0].slice) is not cst.Index or \
                type(node.slice[0].slice.value) is cst.Tuple:
            raise Unsupported("an index other than one integer (`v[i]`) inside a `try`",
                              node, "index before the `try`")
        self.expression(node.value, guards, tests)
        index = node.slice[0].slice.value
        self.expression(index, guards, tests)
        table = self.resolve(node.value) if type(node.value) is cst.Name else None
        if isinstance(table, dict) or (type(node.value) is cst.Name and
                                       node.value.value in self.dicts):
            raise Unsupported("a dict looked up inside a `try` (KeyError)", node,
                              "test `key in table` with `if` instead")
        tests.append((IndexError, "{i} < -len({v}) or {i} >= len({v})",
                      {"i": index, "v": node.value}, guards))

    def call(self, fn, node, guards, tests) -> None:
        args = [a.value for a in node.args]
        if getattr(fn, "__module__", None) == "math" and getattr(
                math, getattr(fn, "__name__", ""), None) is fn:
            for exc, template in python_errors.exact_math_errors(fn.__name__, len(args)):
                tests.append((exc, template, dict(zip("xy", args)), guards))
            return
        if fn not in _NUMBER_BUILTINS:
            raise Unsupported("a call inside a `try` whose exceptions the engine does not "
                              "know", node, "call it before the `try`, or handle its "
                              "failure in the function it calls")
        if fn is builtins.divmod and len(args) == 2:
            if self.arithmetic(node, args, "`divmod`"):
                tests.append((ZeroDivisionError, "{b} == 0", {"b": args[1]}, guards))
        elif fn is builtins.pow and len(args) == 2:
            if self.arithmetic(node, args, "`pow`", power=True):
                tests.append((ZeroDivisionError, "{a} == 0 and -math.inf < {b} < 0",
                              {"a": args[0], "b": args[1]}, guards))
        elif fn in (builtins.int, builtins.round) and len(args) == 1:
            for exc, template in python_errors.exact_math_errors("floor", 1):
                tests.append((exc, template, {"x": args[0]}, guards))


def _raise_under_if(stmt):
    """(test, exception node) of ``if test: raise E(...)`` (no ``else``), or None."""
    if type(stmt) is not cst.If or stmt.orelse is not None or len(stmt.body.body) != 1:
        return None
    line = stmt.body.body[0]
    if type(line) is not cst.SimpleStatementLine or len(line.body) != 1 or \
            type(line.body[0]) is not cst.Raise or line.body[0].exc is None:
        return None
    return stmt.test, line.body[0].exc


def _float_or_natural(exponent) -> bool:
    """An exponent written as a float literal or a non-negative int literal: a NumPy power
    by it never raises."""
    if type(exponent) is cst.Float:
        return True
    return type(exponent) is cst.Integer


_PYTHON_NUMBERS = (bool, int, float, complex)


class _PythonValued:
    """Which expressions of a `vmap` function are Python numbers per example (True), NumPy
    scalars, arrays or tensors (False), or cannot be told before the analysis (None): from
    the syntax and the parameters' abstract values, flow-insensitively (a name is what every
    assignment to it makes)."""

    def __init__(self, func: cst.FunctionDef, params: dict, python_params, resolve):
        self.params = params
        self.python_params = python_params
        self.resolve = resolve
        self.assigned: dict[str, list] = {}
        for node in walk(func.body):
            t = type(node)
            if t is cst.Assign:
                for target in node.targets:
                    self._bind(target.target, node.value)
            elif t in (cst.AnnAssign, cst.AugAssign) and node.value is not None:
                self._bind(node.target, node.value if t is cst.AnnAssign else cst.BinaryOperation(
                    node.target, _binary(node.operator), node.value))
            elif t is cst.For:
                ranged = type(node.iter) is cst.Call and type(node.iter.func) is cst.Name \
                    and node.iter.func.value == "range"
                self._bind(node.target, cst.Integer("0") if ranged else None)
            elif t in (cst.NamedExpr, cst.WithItem, cst.CompFor, cst.ExceptHandler):
                for target in (getattr(node, "target", None), getattr(node, "asname", None),
                               getattr(node, "name", None)):
                    inner = getattr(target, "name", target)
                    if isinstance(inner, cst.BaseExpression):
                        self._bind(inner, node.value if t is cst.NamedExpr else None)

    def _bind(self, target, value) -> None:
        if type(target) is cst.Name:
            self.assigned.setdefault(target.value, []).append(value)
        elif type(target) in (cst.Tuple, cst.List):
            for element in target.elements:
                self._bind(getattr(element, "value", element), None)

    def python_valued(self, node, seen=frozenset()):
        t = type(node)
        if t in (cst.Integer, cst.Float, cst.Imaginary):
            return True
        if t is cst.Name:
            return self._name(node.value, seen)
        if t is cst.Attribute:
            obj = self.resolve(node)
            if obj is not None and type(obj) in _PYTHON_NUMBERS:
                return True
            return None
        if t is cst.UnaryOperation:
            return self.python_valued(node.expression, seen)
        if t is cst.BinaryOperation:
            return _combined([self.python_valued(node.left, seen),
                              self.python_valued(node.right, seen)])
        if t is cst.IfExp:
            kinds = {self.python_valued(node.body, seen), self.python_valued(node.orelse, seen)}
            return kinds.pop() if len(kinds) == 1 else None
        if t is cst.Call:
            return self._call(node, seen)
        if t is cst.Subscript:
            base = self.python_valued(node.value, seen)
            if base is False:
                return False            # an item of an array (or tensor): a NumPy scalar
            table = self.resolve(node.value) if type(node.value) is cst.Name else None
            if isinstance(table, (list, tuple)) and table and all(
                    type(v) in _PYTHON_NUMBERS for v in table):
                return True
            return None
        return None

    def _name(self, name: str, seen):
        if name in seen:
            return None
        if name in self.assigned:
            if name in self.params:
                return None         # a parameter rebound: both kinds
            kinds = [None if v is None else self.python_valued(v, seen | {name})
                     for v in self.assigned[name]]
            return kinds[0] if kinds and all(k == kinds[0] for k in kinds) else None
        if name in self.params:
            value = self.params[name]
            if name in self.python_params:
                return True
            example = getattr(value, "example", None)
            if getattr(value, "batched", False):
                return False        # mapped: NumPy scalars or rows (tensors) per example
            return True if type(example) in _PYTHON_NUMBERS else (
                False if isinstance(example, (np.generic, np.ndarray)) else None)
        obj = self.resolve(cst.Name(name))
        if type(obj) in _PYTHON_NUMBERS:
            return True
        if isinstance(obj, np.generic):
            return False
        return None

    def _call(self, node, seen):
        fn = self.resolve(node.func)
        args = [a.value for a in node.args]
        if fn in (builtins.float, builtins.int, builtins.complex, builtins.bool, builtins.len):
            return True
        if fn is builtins.round:
            return True if len(args) == 1 else (
                self.python_valued(args[0], seen) if args else None)
        if getattr(fn, "__module__", None) == "math":
            return True
        if fn in (builtins.abs, builtins.min, builtins.max, builtins.pow):
            return _combined([self.python_valued(a, seen) for a in args])
        if isinstance(fn, np.ufunc) or getattr(fn, "__module__", "").startswith("numpy"):
            return False
        return None


def _combined(kinds: list):
    """Arithmetic of operands of these kinds: a NumPy operand makes a NumPy result."""
    if any(k is False for k in kinds):
        return False
    if kinds and all(k is True for k in kinds):
        return True
    return None


def _binary(augmented):
    from ..syntax.edit import AUGMENTED_TO_BINARY
    return AUGMENTED_TO_BINARY[type(augmented)]()


def transform(func: cst.FunctionDef, ctx) -> cst.FunctionDef:
    if cst.Try not in by_type(func.body):
        return func
    lowering = _TryLowering(ctx.source.func.__globals__, ctx.namer)
    if getattr(ctx.module, "python_semantics", False):
        # `vectorize`: its examples are Python numbers, but an item of an array the function
        # made (`np.zeros(2)[0]`) or a NumPy function's result is a NumPy scalar, which
        # divides by zero with a warning and an inf or nan rather than raising
        lowering.numbers = _PythonValued(func, ctx.params, frozenset(ctx.params),
                                         lowering.resolve)
        lowering.python_examples = True
    else:
        if not getattr(ctx.module, "runtime_replays", False):
            return func     # the analysis refuses `try` where it is written (JAX)
        # `vmap` on NumPy or PyTorch: what raises on NumPy scalars (tensors) per example
        lowering.numbers = _PythonValued(func, ctx.params, getattr(ctx, "python_params",
                                                                   frozenset()),
                                         lowering.resolve)
    lowering.dicts = {name for node in walk(func.body) if type(node) is cst.Assign
                      and type(node.value) in (cst.Dict, cst.DictComp)
                      for t in node.targets if type(t.target) is cst.Name
                      for name in [t.target.value]}
    return rewrite(func, lowering)
