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

from ..errors import Unsupported
from ..liveness import reads
from ..rules import python_errors
from ..syntax.templates import expr
from ..syntax.traversal import by_type, children, rewrite, walk

_NUMBER_BUILTINS = {builtins.abs, builtins.min, builtins.max, builtins.float, builtins.int,
                    builtins.round, builtins.pow, builtins.divmod, builtins.bool}
_DIVISIONS = {cst.Divide: "/", cst.FloorDivide: "//", cst.Modulo: "%"}


class _TryLowering(cst.CSTTransformer):
    def __init__(self, func_globals: dict, namer):
        self.globals = func_globals
        self.namer = namer

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
        body = self.body(list(updated_node.body.body), handlers, tail)
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
        if type(stmt) is not cst.SimpleStatementLine:
            raise Unsupported("a `try` around anything but simple statements (assignments, "
                              "`return`) in a vectorized function", stmt,
                              "move the loop or `if` out of the `try`")
        tests = []
        for small in stmt.body:
            if type(small) not in (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Return,
                                   cst.Pass):
                raise Unsupported("a statement that a `try` around it cannot model", small,
                                  "keep only assignments and `return` in the `try`")
            if type(small) is cst.AugAssign and type(small.target) is cst.Name:
                op = _DIVISIONS.get(type(_binary(small.operator)))
                self.expression(small.value, [], tests)
                if op is not None:
                    tests.append((ZeroDivisionError, "{b} == 0", {"b": small.value}, []))
            elif getattr(small, "value", None) is not None:
                self.expression(small.value, [], tests)
        rest = [stmt] + self.body(stmts[1:], handlers, tail)
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
        if t in (cst.Subscript, cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp,
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
                tests.append((ZeroDivisionError, "{b} == 0", {"b": node.right}, guards))
            elif type(node.operator) is cst.Power:
                tests.append((ZeroDivisionError, "{a} == 0 and {b} < 0",
                              {"a": node.left, "b": node.right}, guards))

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
            tests.append((ZeroDivisionError, "{b} == 0", {"b": args[1]}, guards))
        elif fn is builtins.pow and len(args) == 2:
            tests.append((ZeroDivisionError, "{a} == 0 and {b} < 0",
                          {"a": args[0], "b": args[1]}, guards))
        elif fn in (builtins.int, builtins.round) and len(args) == 1:
            for exc, template in python_errors.exact_math_errors("floor", 1):
                tests.append((exc, template, {"x": args[0]}, guards))


def _binary(augmented):
    from ..syntax.edit import AUGMENTED_TO_BINARY
    return AUGMENTED_TO_BINARY[type(augmented)]()


def transform(func: cst.FunctionDef, ctx) -> cst.FunctionDef:
    if cst.Try not in by_type(func.body):
        return func
    if not getattr(ctx.module, "python_semantics", False):
        if getattr(ctx.module, "runtime_replays", False):      # `vmap` on NumPy, PyTorch
            raise Unsupported(
                "`try` is not supported by `vmap`: its examples are NumPy scalars, whose "
                "arithmetic does not raise where Python's does (`x / 0.0` is inf), so no "
                "handler can be chosen per example",
                next(n for n in walk(func.body) if type(n) is cst.Try),
                "use vectorize(f) (Python numbers per example: a `try` around arithmetic "
                "takes its handler where Python raises), or test the condition with `if`")
        return func     # the analysis refuses `try` where it is written
    return rewrite(func, _TryLowering(ctx.source.func.__globals__, ctx.namer))
