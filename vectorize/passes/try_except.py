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
the per-example loop, which takes the handler (`vectorize._replay`).

Also in a ``try``: ``if`` statements (each branch followed by the rest of the ``try``),
``for`` loops over a short constant range (written out), calls whose exceptions are known
(`python_errors.raises_on_numbers`, a NumPy function's `python_errors.NUMPY_FAILURES`, a
helper's from its body: `helper_raises`; made as they are where no handler catches them, else
the batch that raises replays), and what the per-example type alone decides (an item
assignment into a number or its ``len``: TypeError on every example, the handler taken for
the whole specialization). Per-example types are read flow-sensitively from the start of the
``try`` (`_PythonValued.at`). A ``try`` that cannot be lowered is refused where an example
reaches it (`reached`). Anything else (``while``, ``with``, ``finally``, ``except E as e``
reading ``e``, calls the engine does not know) is refused where it is written.

``with warnings.catch_warnings(): warnings.simplefilter("error")`` (in a ``try`` or not) is
its statements, where each NumPy operation also has the test of its warning, which raises
RuntimeWarning there (`warned`: NaN from non-NaN operands, inf from finite ones); with the
filter "ignore" it is its statements. Values the same for every example (`shared`: a class
made of them, their attributes) raise on every example or none: the batch raises and the
per-example loop takes the handler.
"""

from __future__ import annotations

import builtins
import collections
import inspect
import math
import types
import warnings

import libcst as cst
import numpy as np

from .. import spec_facts
from ..abstract import UNKNOWN
from ..analysis.float_semantics import made_once
from ..errors import Unsupported
from ..introspect import forwarded_target
from ..liveness import reads, writes
from ..rules import python_errors
from ..source import read_function
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
        self.copies = 0                  # `if`s lowered in this `try` (each copies its rest)
        self.deferred: dict[int, Unsupported] = {}   # `try`s refused, by id: `reached`
        self.handlers: list = []         # those of the `try` being lowered
        # id(handler body) -> (name of `except E as name`, the clause's classes and their
        # nodes): the handler reads the exception only to raise (`_exception_reads`)
        self.bound: dict[int, tuple] = {}
        self.derived: dict[int, frozenset | None] = {}   # id(handler) -> `_exception_reads`
        self.function: cst.FunctionDef | None = None     # (`outside`)
        self.replayed = True             # the batch that raises replays the loop
        self.taken = 0                   # handlers written into the lowered code so far
        self.static_types = True         # per-example numbers are numbers, not 0-d tensors
        # whether `numbers` tells Python numbers from NumPy scalars for sure (not under
        # `vectorize`: numpy.vectorize's first call hands NumPy scalars)
        self.certain = True
        # ids of the statements inside `with warnings.catch_warnings(): warnings.simplefilter(
        # "error")` (`_warnings_block`), where a NumPy operation that warns raises its
        # RuntimeWarning; `erroring`: the statement being read is one of them
        self.erroring_ids: set[int] = set()
        self.erroring = False
        self.try_bodies: list[set] = []     # ids of the nodes in the bodies of `try`s around
        self.warnings_as_errors = False     # a warnings block with the filter "error" seen
        # the batched code raises as it runs and the caller then runs the per-example loop
        # (`vectorize`; `vmap` on NumPy and PyTorch): what every example raises alike
        # (`_PythonValued.shared`) may be left to it
        self.eager = False
        # warnings raised as errors come from NumPy values (`vectorize`, `vmap` on NumPy)
        self.float_warnings = True

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

    def visit_Try(self, node) -> None:
        self.try_bodies.append({id(n) for s in node.body.body for n in walk(s)})

    def leave_With(self, original_node, updated_node):
        """A warnings block outside any `try` body: with the filter "ignore" its statements;
        with "error" those statements lowered as in a `try` without handlers, where the lanes
        whose NumPy operations warn raise RuntimeWarning (`warned`)."""
        if any(id(original_node) in ids for ids in self.try_bodies):
            return updated_node     # (the `try` lowers it: `body`)
        block = _warnings_block(updated_node, self.resolve)
        if block is None:
            return updated_node
        inner, error = block
        if not error:
            if not inner:
                return cst.SimpleStatementLine([cst.Pass()])
            inner = list(inner)
            inner[0] = inner[0].with_changes(leading_lines=updated_node.leading_lines)
            return cst.FlattenSentinel(inner)
        self.warnings_as_errors = True
        saved = self.handlers, self.bound, self.copies
        self.handlers, self.bound, self.copies = [], {}, 0
        try:
            if self.numbers is not None:
                self.numbers.at(original_node)
            body = self.body([updated_node], [], [])
        except Unsupported as problem:
            self.deferred[id(updated_node)] = problem
            return updated_node
        finally:
            self.handlers, self.bound, self.copies = saved
        if not body:
            return cst.SimpleStatementLine([cst.Pass()])
        body[0] = body[0].with_changes(leading_lines=updated_node.leading_lines)
        return cst.FlattenSentinel(body)

    def leave_Try(self, original_node, updated_node):
        self.try_bodies.pop()
        try:
            return self.lowered(original_node, updated_node)
        except Unsupported as problem:
            # refused where it is reached: in the handler of a `try` around it that no
            # example takes (`except NameError:` around NumPy's names) it is never run
            self.deferred[id(updated_node)] = problem
            return updated_node

    def reached(self, stmts, params=None) -> None:
        """Raise the refusal of a `try` among ``stmts`` that could not be lowered; with the
        function's ``params``, not in a branch of an ``if`` whose test the parameters that
        are the same for every example decide against (`_static_test`: ``elif tol == 0:``
        with ``tol=None``), which this specialization never runs."""
        for stmt in stmts:
            if params is not None and type(stmt) is cst.If:
                self._reached_if(stmt, params)
                if _static_test(stmt.test, params) is True and _leaves(stmt.body.body):
                    return      # (`if weights is None: ... return m`: what follows never runs)
                continue
            if params is not None and isinstance(stmt, cst.BaseCompoundStatement):
                for part in _blocks(stmt):
                    self.reached(part, params)
                if type(stmt) in (cst.Try, cst.With) and id(stmt) in self.deferred:
                    raise self.deferred[id(stmt)]
                continue
            for n in walk(stmt):
                if type(n) in (cst.Try, cst.With) and id(n) in self.deferred:
                    raise self.deferred[id(n)]

    def _reached_if(self, stmt: cst.If, params) -> None:
        taken = _static_test(stmt.test, params)
        if taken is not False:
            self.reached(list(stmt.body.body), params)
        if taken is not True and stmt.orelse is not None:
            if type(stmt.orelse) is cst.If:
                self._reached_if(stmt.orelse, params)
            else:
                self.reached(list(stmt.orelse.body.body), params)

    def outside(self, handler) -> set | None:
        """The names the function reads or binds outside ``handler`` (None: unknown)."""
        if self.function is None:
            return None
        rest = self.function.deep_replace(handler, handler.with_changes(
            body=cst.IndentedBlock([cst.SimpleStatementLine([cst.Pass()])])))
        return reads(rest.body) | {w for stmt in rest.body.body for w in writes(stmt)} | {
            p.name.value for p in rest.params.params}

    def handler_body(self, handler, exc: type, raised: list) -> list:
        """A copy of the handler's statements for the examples that raise ``exc``; where
        it is ``except ... as e`` whose ``e`` is read (only in its `raise` statements:
        `_exception_reads`), ``e`` is that exception there: ``raise e`` raises ``exc``, its
        text (``f"{e}"``, ``str(e)``) is a stand-in and ``from e`` is dropped. Such a `raise`
        raises in the batch, and the per-example loop then gives every example's exact
        exception (`vectorize._replay`; `vmap` on NumPy and PyTorch likewise)."""
        stmts = [s.deep_clone() for s in handler]
        bound = self.bound.get(id(handler))
        if bound is None:
            return stmts
        name, classes, derived = bound
        cls = next((node for c, node in classes if c is exc), None)
        if cls is None and getattr(builtins, exc.__name__, None) is exc and \
                self.resolve(cst.Name(exc.__name__)) is exc:
            cls = cst.Name(exc.__name__)
        if cls is None:
            raise Unsupported(f"`except ... as {name}` reading the exception, where the "
                              f"examples raise `{exc.__name__}`, which the handler cannot "
                              "name", raised[0] if raised else None,
                              "name the exception class in the `except` clause", kind="raises")
        return [s.visit(_ExceptionStandIn(name, cls, exc, derived)) for s in stmts]

    def lowered(self, original_node, updated_node):
        node = original_node
        if node.finalbody is not None:
            # (`body_sugar.finally_as_statements` lowered the others)
            raise Unsupported("`try` with `finally` where `finally` itself returns, breaks or "
                              "continues, or the `try` body leaves other than by a last "
                              "`return` while handlers catch, or the `try` lies in another "
                              "`try`'s body whose handlers catch what it raises, in a "
                              "vectorized function", node,
                              "move the cleanup after the `try` statement", kind="raises")
        if self.numbers is not None:
            self.numbers.at(node)
        handlers = []
        self.bound = {}     # (keyed by the identity of lists alive only in this call)
        for h, u in zip(node.handlers, updated_node.handlers):
            handlers.append((self.handler_types(h), list(u.body.body)))
            if h.name is not None and h.name.name.value in reads(h.body):
                # (`handler_types` let it through: the exception is read to raise it)
                parts = h.type.elements if type(h.type) is cst.Tuple else [h.type]
                nodes = [p.value if isinstance(p, cst.Element) else p for p in parts]
                self.bound[id(handlers[-1][1])] = (
                    h.name.name.value, [(self.resolve(n), n) for n in nodes],
                    self.derived.get(id(h)) or frozenset())
        self.handlers = handlers
        self.copies = 0
        tail = list(updated_node.orelse.body.body) if updated_node.orelse is not None else []
        try:
            body = self.body(list(updated_node.body.body), handlers, tail)
        except Unsupported as problem:
            # a statement the engine made of the user's (an inner `try` lowered): the user's
            made = [s for s in updated_node.body.body if not any(s is o for o in node.body.body)]
            if any(any(problem.node is n for n in walk(s)) for s in made) and not any(
                    problem.node is n for n in walk(node)):
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
                derived = None
                if self.replayed and not any(n in self.globals for n in ("str", "repr")):
                    derived = _exception_reads(handler.body, name, self.outside(handler))
                self.derived[id(handler)] = derived
                if derived is None:
                    raise Unsupported("`except ... as e` that reads the exception other than "
                                      "in the handler's `raise` statements (`raise e`, "
                                      "`raise E(f\"...{e}\") from e`) and the messages they "
                                      "raise (`msg = f\"...{e}\"`), in a vectorized "
                                      "function", handler.name,
                                      "handle it without reading the exception object",
                                      kind="raises")
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
            self.reached(tail)
            return [s.deep_clone() for s in tail]
        stmt = stmts[0]
        self.erroring = id(stmt) in self.erroring_ids
        block = _warnings_block(stmt, self.resolve)
        if block is not None:
            # `with warnings.catch_warnings(): warnings.simplefilter(...)`: its statements,
            # where (filter "error") a warning raises
            inner, error = block
            if error:
                self.warnings_as_errors = True
                self.erroring_ids.update(id(n) for s in inner for n in walk(s))
            return self.body(list(inner) + list(stmts[1:]), handlers, tail)
        self.reached([stmt])
        raised = _raise_under_if(stmt)
        if raised is not None:
            # `if cond: raise E(...)`: the lanes where `cond` holds raise E
            test, exc_node = raised
            exc = self.raised_type(exc_node)
            tests = []
            self.expression(test, [], tests)
            if any(issubclass(exc, types) for types, _ in handlers):
                tests.append((exc, "{c}", {"c": test}, []))
                return self.guarded(tests, handlers, self.rest(stmt, stmts[1:], handlers, tail))
            return self.guarded(tests, handlers,
                                [stmt] + self.rest(stmt, stmts[1:], handlers, tail))
        if type(stmt) is cst.If:
            return self.branches(stmt, stmts[1:], handlers, tail)
        if type(stmt) is cst.For:
            unrolled = _unrolled(stmt)
            if unrolled is not None and self.erroring:
                self.erroring_ids.update(id(n) for s in unrolled for n in walk(s))
            if unrolled is not None:
                return self.body(unrolled + list(stmts[1:]), handlers, tail)
        if type(stmt) is not cst.SimpleStatementLine:
            raise Unsupported("a `try` around anything but simple statements (assignments, "
                              "`return`, `raise`), `if` statements and `for` loops over a "
                              f"range of at most {_UNROLLED} constant steps in a vectorized "
                              "function", stmt, "move the statement out of the `try`",
                              kind="raises")
        tests = []
        if self.written_into_number(stmt, handlers):
            # `v[i] = f(x[i])` where `v` and `x` are numbers per example: every example
            # raises TypeError (at `x[i]` on a Python number, at the write on a NumPy one)
            return self.guarded([(TypeError, None, {}, [])], handlers, [stmt])
        if len(stmt.body) == 1 and type(stmt.body[0]) is cst.Raise:
            # an unconditional `raise E(...)`: the handler that catches E, or the raise
            exc = self.raised_type(stmt.body[0].exc)
            handler = next((h for types, h in handlers if issubclass(exc, types)), None)
            if handler is not None:
                self.reached(handler)
            return [stmt] if handler is None else self.handler_body(handler, exc, [stmt])
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
                self.warned(small, cst.BinaryOperation(small.target, _binary(small.operator),
                                                       small.value),
                            [small.target, small.value], [], tests)
            elif getattr(small, "value", None) is not None:
                self.expression(small.value, [], tests)
            targets = [t.target for t in small.targets] if type(small) is cst.Assign else [
                getattr(small, "target", None)]
            for target in targets:
                if type(target) is cst.Subscript:
                    self.item_write(target, type(small) is cst.AugAssign, tests)
        if any(type(small) is cst.Return for small in stmt.body):
            return self.guarded(tests, handlers, [stmt])   # (what follows never runs)
        return self.guarded(tests, handlers, [stmt] + self.rest(stmt, stmts[1:], handlers, tail))

    def rest(self, stmt, stmts: list, handlers: list, tail: list) -> list:
        """`body` of ``stmts``, which follow ``stmt`` (whose bindings they see)."""
        if self.numbers is not None:
            self.numbers.bound(stmt)
        return self.body(stmts, handlers, tail)

    def branches(self, stmt: cst.If, rest: list, handlers: list, tail: list) -> list:
        """An ``if`` inside a ``try``: the tests of its condition, then each branch followed
        by the statements after it (a branch that raises skips them for the handler)."""
        self.copies += 1
        if self.copies > _BRANCH_COPIES:
            raise Unsupported("too many `if` statements inside one `try` (each is followed "
                              "by a copy of the rest of the `try`)", stmt,
                              "move some of them out of the `try`")
        tests = []
        self.expression(stmt.test, [], tests)
        numbers = self.numbers if self.numbers is not None else _NoFlow()
        start = numbers.snapshot()
        taken = self.taken
        alone = stmt.with_changes(body=cst.IndentedBlock(self.body(
            list(stmt.body.body), handlers, []) or [cst.SimpleStatementLine([cst.Pass()])]))
        numbers.restore(start)
        if type(stmt.orelse) is cst.Else:
            alone = alone.with_changes(orelse=cst.Else(body=cst.IndentedBlock(self.body(
                list(stmt.orelse.body.body), handlers, []) or [
                    cst.SimpleStatementLine([cst.Pass()])])))
        elif stmt.orelse is not None:
            alone = alone.with_changes(orelse=self.branches(stmt.orelse, [], handlers, [])[0])
        numbers.restore(start)
        if self.taken == taken and not any(t[0] is not _BATCH for t in tests) and \
                not _returns(stmt):
            # no handler is taken inside it: the `if` as it is, then the rest
            numbers.bound(stmt, strong=False)
            return [alone] + self.body(list(rest), handlers, tail)
        body = self.body(list(stmt.body.body) + list(rest), handlers, tail)
        numbers.restore(start)
        if stmt.orelse is None:
            orelse = self.body(list(rest), handlers, tail)
        elif type(stmt.orelse) is cst.If:
            orelse = self.branches(stmt.orelse, rest, handlers, tail)
        else:
            orelse = self.body(list(stmt.orelse.body.body) + list(rest), handlers, tail)
        numbers.restore(start)
        lowered = stmt.with_changes(
            body=cst.IndentedBlock(body or [cst.SimpleStatementLine([cst.Pass()])]),
            orelse=None if not orelse else (
                orelse[0].with_changes(leading_lines=()) if len(orelse) == 1 and
                type(orelse[0]) is cst.If else cst.Else(body=cst.IndentedBlock(orelse))))
        return self.guarded(tests, handlers, [lowered])

    def written_into_number(self, stmt, handlers) -> bool:
        """Whether ``stmt`` is ``v[i] = value`` where ``v`` is a number per example (its type
        says so) and a handler catches TypeError, and ``value`` raises on every example
        nothing that handler does not catch: on Python numbers it raises TypeError before
        anything else (an item of a number, `_python_raises`), on NumPy scalars (`vmap`'s
        examples, numpy.vectorize's first call) only what that handler catches
        (`_numpy_quiet`: items of numbers at a per-example bool are arrays of 0 or 1
        element, whose arithmetic and ufuncs raise nothing); then the write raises
        TypeError. Every example takes that handler."""
        if self.numbers is None or not self.static_types or self.erroring or \
                len(stmt.body) != 1 or type(stmt.body[0]) is not cst.Assign or \
                len(stmt.body[0].targets) != 1:
            return False    # (where warnings are errors, the arrays' arithmetic may raise)
        target = stmt.body[0].targets[0].target
        handler = next((h for types_, h in handlers if issubclass(TypeError, types_)), None)
        if type(target) is not cst.Subscript or type(target.value) is not cst.Name or \
                handler is None or id(handler) in self.bound or \
                self.numbers.number(target.value) is not True or not all(
                    type(e.slice) is cst.Index and self._quiet_index(e.slice.value)
                    for e in target.slice):
            return False
        # (the exceptions whose first handler is that one: Python takes the first that
        # catches)
        caught = [e for e in (IndexError, TypeError) if next(
            (h for types_, h in handlers if issubclass(e, types_)), None) is handler]
        value = stmt.body[0].value
        return self._python_raises(value) == "raises" and \
            self._numpy_quiet(value, caught) is not None

    def _python_raises(self, node):
        """On Python numbers: "raises" where ``node`` raises TypeError (an item of a number)
        after only operations that raise nothing, "quiet" where it raises nothing (a name, a
        literal), None where the engine cannot tell."""
        t = type(node)
        if _quiet_leaf(node) or self._constant(node) is not None:
            return "quiet"      # (`2 * pi`: constants, no zero divisor)
        if t is cst.Attribute:
            base = node
            while type(base) is cst.Attribute:
                base = base.value
            return "quiet" if type(base) is cst.Name and self.numbers._held(
                base.value) is None and self.resolve(node) is not None else None
        if t is cst.Subscript:
            if type(node.value) is not cst.Name or self.numbers.number(node.value) is not True:
                return None
            if len(node.slice) != 1 or type(node.slice[0].slice) is not cst.Index:
                return None
            index = "quiet" if self._quiet_index(node.slice[0].slice.value) else \
                self._python_raises(node.slice[0].slice.value)
            return "raises" if index in ("raises", "quiet") else None
        parts = None
        if t is cst.UnaryOperation:
            parts = [node.expression]
        elif t is cst.BinaryOperation:
            parts = [node.left, node.right]
        elif t is cst.Comparison:
            parts = [node.left] + [c.comparator for c in node.comparisons]
        elif t is cst.Call:
            if self.resolve(node.func) is None or any(a.star for a in node.args):
                return None
            parts = [a.value for a in node.args]
        if parts is None:
            return None
        for part in parts:       # (in evaluation order: the first that raises decides)
            kind = self._python_raises(part)
            if kind != "quiet":
                return kind
        return None     # (the operation itself may raise)

    def _numpy_quiet(self, node, caught):
        """On NumPy scalars: "array" where ``node`` is an array of 0 or 1 element (an item of
        a number at a per-example bool, arithmetic or a ufunc of such arrays), "value" where
        it is a number or a constant, "raises" where it raises one of ``caught`` (those the
        handler taken catches first); None where it may raise anything else."""
        t = type(node)
        if self._constant(node) is not None or (
                t is cst.Name and self.numbers.number(node) is True):
            return "value"      # (a number: with an array of 0 or 1 element it broadcasts)
        if t is cst.Subscript:
            if type(node.value) is not cst.Name or self.numbers.number(node.value) is not True \
                    or len(node.slice) != 1 or type(node.slice[0].slice) is not cst.Index:
                return None
            index = node.slice[0].slice.value
            if not self._quiet_index(index):
                return None
            if self._boolean(index) and self.numbers.number(index) is True:
                return "array"
            return "raises" if IndexError in caught else None
        if t is cst.UnaryOperation and type(node.operator) in (cst.Minus, cst.Plus):
            return self._numpy_quiet(node.expression, caught)
        if t is cst.BinaryOperation:
            kinds = [self._numpy_quiet(node.left, caught), self._numpy_quiet(node.right, caught)]
            if None in kinds:
                return None
            if "raises" in kinds:
                return "raises"
            if "array" in kinds and type(node.operator) in (cst.Add, cst.Subtract,
                                                            cst.Multiply, cst.Divide):
                return "array"      # (NumPy arrays' arithmetic warns, never raises)
            return None
        if t is cst.Call:
            fn = self.resolve(node.func)
            if _user_helper(fn):
                # a function of yours on those arrays (`departure(lon2[i], lon1[i])`): what
                # its body does with them (`_OnArrays`)
                if any(a.star for a in node.args):
                    return None
                kinds = [self._argument_kind(a.value, caught) for a in node.args]
                if None in kinds:
                    return None
                if "raises" in kinds:
                    return "raises"
                kind = _OnArrays(caught, self.numbers.constructed).call(
                    fn, [k for k, a in zip(kinds, node.args) if a.keyword is None],
                    {a.keyword.value: k for k, a in zip(kinds, node.args)
                     if a.keyword is not None}, 0)
                return None if kind is None else kind if kind in ("array", "raises") \
                    else "value" if kind == "value" or type(kind) is tuple and type(
                        kind[1]) in (int, float) else None
            if not isinstance(fn, np.ufunc) or fn.nout != 1 or len(node.args) != fn.nin or \
                    fn is np.power or any(a.star or a.keyword for a in node.args):
                return None     # (`np.power` of ints raises ValueError for a negative power)
            kinds = [self._numpy_quiet(a.value, caught) for a in node.args]
            if None in kinds:
                return None
            if "raises" in kinds:
                return "raises"
            # a ufunc of arrays of at most one element and of constants: what it raises
            # is a TypeError (UFuncTypeError: no loop for the types), which is caught
            return "array" if "array" in kinds and TypeError in caught else None
        return None

    def _quiet_index(self, node) -> bool:
        """A name, a literal, or one comparison of numbers per example and numeric
        constants (``L[L > pi]``): evaluating it raises nothing."""
        if _quiet_leaf(node):
            return True
        return type(node) is cst.Comparison and len(node.comparisons) == 1 and type(
            node.comparisons[0].operator) in (cst.LessThan, cst.LessThanEqual,
                                              cst.GreaterThan, cst.GreaterThanEqual,
                                              cst.Equal, cst.NotEqual) and all(
            self._constant(v) is not None or type(v) is cst.Name and
            self.numbers.number(v) is True
            for v in (node.left, node.comparisons[0].comparator))

    def _argument_kind(self, node, caught):
        """`_numpy_quiet` of an argument of a helper, a constant as ``("const", value)``
        (``deg=False``, ``2.0``: `_OnArrays` reads the tests of its parameters)."""
        if type(node) is cst.Name and node.value in ("True", "False", "None") and \
                self.numbers._held(node.value) is None:
            return ("const", {"True": True, "False": False, "None": None}[node.value])
        value = self._constant(node)
        if value is not None:
            return ("const", value)
        value = self.numbers.exact_value(node) if type(node) is cst.Name else _NOT_KNOWN
        if value is None or type(value) in (bool, int, float, str):
            return ("const", value)     # (a parameter passed the same constant: `ell=None`)
        return self._numpy_quiet(node, caught)

    def _constant(self, node):
        """The value of ``node`` where it is made of literal numbers and the module's numbers
        (``pi / 2 - 1e-10``) by ``+ - * /`` without a zero divisor; else None."""
        t = type(node)
        if t in (cst.Integer, cst.Float):
            value = node.evaluated_value
        elif t in (cst.Name, cst.Attribute):
            if t is cst.Name and self.numbers._held(node.value) is not None:
                return None     # (a local name)
            value = self.resolve(node)
        else:
            value = None
        if value is not None:
            # (an int beyond int64 meeting a NumPy int array raises OverflowError)
            return value if type(value) is float or (type(value) is int and
                                                     abs(value) < 2 ** 63) else None
        if t is cst.UnaryOperation and type(node.operator) is cst.Minus:
            value = self._constant(node.expression)
            return None if value is None else -value
        if t is cst.BinaryOperation and type(node.operator) in (cst.Add, cst.Subtract,
                                                                cst.Multiply, cst.Divide):
            left, right = self._constant(node.left), self._constant(node.right)
            if left is None or right is None or (type(node.operator) is cst.Divide and
                                                 right == 0):
                return None
            try:
                value = {cst.Add: left + right, cst.Subtract: left - right,
                         cst.Multiply: left * right}[type(node.operator)] if type(
                             node.operator) is not cst.Divide else left / right
            except OverflowError:
                return None
            return value if type(value) is float or abs(value) < 2 ** 63 else None
        return None

    def _boolean(self, node, seen=frozenset()) -> bool:
        """Whether ``node`` is a bool (Python's or NumPy's) on every example: a comparison,
        ``not``, ``&``/``|``/``^``/``and``/``or`` of bools, a name every binding of which
        here is one."""
        t = type(node)
        if t is cst.Comparison or (t is cst.UnaryOperation and type(node.operator) is cst.Not):
            return True
        if t is cst.Name:
            if node.value in ("True", "False"):
                return True
            if node.value in seen:
                return False
            held = self.numbers._held(node.value)
            return bool(held) and all(v is not _PARAM and v is not None and self._boolean(
                v, seen | {node.value}) for v in held)
        if t is cst.BinaryOperation and type(node.operator) in (cst.BitAnd, cst.BitOr,
                                                                cst.BitXor):
            return self._boolean(node.left, seen) and self._boolean(node.right, seen)
        if t is cst.BooleanOperation:
            return self._boolean(node.left, seen) and self._boolean(node.right, seen)
        return False

    def item_write(self, target: cst.Subscript, augmented: bool, tests: list) -> None:
        """``v[i] = x``: where ``v`` is a number per example (its type says so, the same for
        every example) the write raises TypeError on every example; a write into an array
        is the passes' after (a write into the caller's array is refused there)."""
        self.expression(target.value, [], tests)
        for element in target.slice:
            if type(element.slice) is cst.Index:
                self.expression(element.slice.value, [], tests)
        if self.numbers is None or self.numbers.number(target.value) is not True:
            return
        if augmented and not (self.certain and
                              self.numbers.python_valued(target.value) is True):
            return      # (a NumPy scalar's item read raises IndexError first)
        tests.append((TypeError, None, {}, []))

    def guarded(self, tests: list, handlers: list, rest: list) -> list:
        """``rest`` under ``else`` of each test whose exception a handler catches (the first
        test outermost), its branch that handler."""
        self.before_every(tests, handlers)
        tests = [t for t in tests if t[0] is not _BATCH]
        for exc, template, nodes, guards in reversed(tests):
            handler = next((h for types, h in handlers if issubclass(exc, types)), None)
            if handler is None and "warned" in nodes:
                # a warning raised as an error that no handler here catches: the lanes raise
                # it (the per-example loop gives the exact one)
                handler = [cst.parse_statement(
                    'raise RuntimeWarning("a NumPy operation warned where warnings are '
                    'errors")\n')]
            elif handler is None:
                continue    # not caught here: it raises (the per-example loop decides)
            else:
                self.reached(handler)
            self.taken += 1
            if template is None and not guards:
                # raised by every example that gets here (its per-example type decides)
                rest = self.handler_body(handler, exc, [])
                continue
            test = None if template is None else expr(
                template, **{n: v.deep_clone() for n, v in nodes.items()})
            for guard, negated in reversed(guards):
                g = guard.deep_clone()
                g = cst.UnaryOperation(cst.Not(), g) if negated else g
                test = g if test is None else cst.BooleanOperation(g, cst.And(), test)
            rest = [cst.If(test=test,
                           body=cst.IndentedBlock(self.handler_body(handler, exc, [])),
                           orelse=rest[0] if len(rest) == 1 and type(rest[0]) is cst.If
                           else cst.Else(body=cst.IndentedBlock(rest)))]
        return rest

    def before_every(self, tests: list, handlers: list) -> None:
        """Where an operation raises on every example that gets there (its per-example type
        decides: the item of a number, the write into one), the statement is that handler
        alone; what runs before it must then raise on no example what another handler, or
        none, catches: a test no handler catches (it raises there, `math.sqrt(x)` under
        `except TypeError:`) or a call left to the batch (`_BATCH`: a helper that may raise)
        would vanish with the statement. Refused there."""
        every = next((k for k, (exc, template, _, guards) in enumerate(tests)
                      if exc is not _BATCH and template is None and not guards and next(
                          (h for types_, h in handlers if issubclass(exc, types_)), None)
                      is not None), None)
        if every is None:
            return
        handler = next(h for types_, h in handlers if issubclass(tests[every][0], types_))
        for exc, _template, nodes, _ in tests[:every]:
            node = next(iter(nodes.values()), None)
            raised = nodes.get("raises", ()) if exc is _BATCH else (exc,)
            if exc is _BATCH and id(handler) not in self.bound and all(
                    _surely_handled_by(handlers, e, handler) for e in raised):
                continue
            if exc is not _BATCH and "warned" not in nodes and next(
                    (h for types_, h in handlers if issubclass(exc, types_)), None) is not None:
                continue    # (caught: its test is written around the handler)
            if exc is not _BATCH and "warned" in nodes:
                continue
            raise Unsupported("an operation inside a `try` that may raise what the handler "
                              "taken by every example does not catch, before the operation "
                              "that raises on every example (the statement is that handler)",
                              node, "compute it before the `try`", kind="raises")

    def raised_type(self, node) -> type:
        """The exception class ``raise <node>`` raises (``E`` or ``E(...)``)."""
        target = node.func if type(node) is cst.Call else node
        cls = self.resolve(target) if target is not None else None
        if not (isinstance(cls, type) and issubclass(cls, BaseException)):
            raise Unsupported("a `raise` inside a `try` whose exception the engine cannot "
                              "resolve", node if node is not None else None,
                              "raise a builtin exception class", kind="raises")
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
        if any(k is False for k in kinds) and (not power or _float_or_natural(operands[1]) or
                                               self._float_power(operands)):
            return False
        if self.python_examples:
            return True     # (`vectorize`: an operand not known to be NumPy's is Python's)
        raise Unsupported(
            f"{what} inside a `try` under `vmap` whose operands' types the engine cannot tell: "
            "it raises on Python numbers (and for NumPy integers to a negative power), on "
            "NumPy scalars it warns, so no handler can be chosen per example", node,
            "test the divisor with `if` before the `try`, or convert the operands with "
            "float() (Python numbers: the division raises where it is 0)", kind="raises")

    def _float_power(self, operands) -> bool:
        """A power of NumPy values that never raises: a float base (a true division's
        result) or a float exponent the same for every example (a parameter's, or its
        attribute's, `_param_attribute`)."""
        base, exponent = operands
        if type(base) is cst.BinaryOperation and type(base.operator) is cst.Divide:
            return True
        if type(base) is cst.Name and self.numbers.float_param(base.value):
            return True
        value = self.numbers._param_attribute(exponent) if type(exponent) in (
            cst.Name, cst.Attribute) else None
        return type(value) is float

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
        if t is cst.Call and type(node.func) is cst.Attribute and not isinstance(
                self.resolve(node.func.value), type(math)) and not self.global_path(node.func):
            # a method of a per-example value (`x.any()`): its owner, its arguments, then
            # what reading the attribute raises (the call of a NumPy value's method raises
            # nothing, those of `_QUIET_METHODS`)
            if self.eager and not self.erroring and self.numbers is not None and \
                    self.numbers.shared(node):
                return      # (a class method on shared values: `call`)
            self.expression(node.func.value, guards, tests)
            if tests and tests[-1][1] is None and tests[-1][3] == guards:
                return      # (the owner raises on every example)
            for arg in node.args:
                if arg.keyword is not None or arg.star:
                    raise Unsupported("a call with keywords or `*` inside a `try`", arg,
                                      "compute it before the `try`")
                self.expression(arg.value, guards, tests)
            if not self.attribute(node.func, guards, tests, method=True):
                raise Unsupported("a method call inside a `try` whose exceptions the engine "
                                  "does not know", node, "call it before the `try`")
            if self.erroring and node.func.attr.value not in _UNWARNED_METHODS:
                raise Unsupported(_WARNS_UNKNOWN, node, _WARNS_SUGGESTION)
            return
        if t is cst.Call:
            fn = self.resolve(node.func)
            keywords = _helper_keywords(fn, node, self.caught((TypeError,))) or (
                self.eager and self.numbers is not None and self.numbers.shared(node))
            for arg in node.args:
                if (arg.keyword is not None or arg.star) and not keywords:
                    raise Unsupported("a call with keywords or `*` inside a `try`", arg,
                                      "compute it before the `try`")
                self.expression(arg.value, guards, tests)
            self.call(fn, node, guards, tests)
            return
        if t is cst.Attribute:
            if isinstance(self.resolve(node.value), type(math)):
                return
            self.expression(node.value, guards, tests)
            if tests and tests[-1][1] is None and tests[-1][3] == guards:
                return      # (reading the owner raises on every example)
            if not self.attribute(node, guards, tests):
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
            if type(node.operator) is not cst.MatrixMultiply:
                self.warned(node, node, [node.left, node.right], guards, tests)

    def global_path(self, node) -> bool:
        """Whether ``node`` is ``name.a.b`` of a module-level name (not a local one) that
        resolves to a function of yours (``_wrapped.Math.AngRound``, a class's static
        method): read once, as the module holds it; its call is that function's."""
        base = node
        while type(base) is cst.Attribute:
            base = base.value
        if type(base) is not cst.Name or self.numbers is None or \
                self.numbers._held(base.value) is not None or base.value not in self.globals:
            return False
        return isinstance(self.resolve(node), types.FunctionType)

    def attribute(self, node: cst.Attribute, guards, tests, method=False) -> bool:
        """The tests of reading ``owner.name`` (and calling it, ``method``), decided by the
        owner's per-example type: a Python number lacks NumPy's attributes (AttributeError
        on every example), a NumPy value has them and its `_QUIET_METHODS` raise nothing.
        False where the engine cannot tell."""
        name = node.attr.value
        owner = node.value
        if self.numbers is None:
            return False
        known = self.numbers.exact_value(owner) if not method else _NOT_KNOWN
        if known is not _NOT_KNOWN:
            # an object the same for every example and known exactly (a default argument
            # under `vmap`): reading its attribute raises AttributeError on every example
            # or on none, whatever the examples' types
            try:
                getattr(known, name)
            except AttributeError:
                tests.append((AttributeError, None, {}, guards))
                return True
            except Exception:   # noqa: BLE001 -- (a property that fails otherwise)
                return False
            return True
        if not self.static_types:
            return False
        if self.handlers and all(types_ == (NameError,) for types_, _ in self.handlers):
            # (`except NameError:` around NumPy's names: what an attribute read raises no
            # handler catches, so it is read as outside the `try`)
            return True
        if not method and self.eager and self.numbers.shared(owner):
            # the same object for every example: what reading it raises, every example
            # raises, and where a handler catches that the per-example loop takes it
            return True
        if self.numbers.python_valued(owner) is True and self.certain and \
                self.numbers.number(owner) is True:
            if not any(hasattr(t, name) for t in (bool, int, float, complex)):
                tests.append((AttributeError, None, {}, guards))
                return True
            return name in _QUIET_NUMBER_ATTRIBUTES and all(
                hasattr(t, name) for t in (bool, int, float, complex))
        if self.numbers.python_valued(owner) is False and name in (
                _QUIET_METHODS if method else _QUIET_ATTRIBUTES):
            return True
        return False

    def raises(self, fn, args):
        """What a call of ``fn`` on ``args`` may raise per example: (exception classes,
        whether exactly those), or None where the engine does not know. A rule's own
        (`python_errors.raises_on_numbers`, its arguments numbers per example), any NumPy
        function's on arrays (`python_errors.NUMPY_FAILURES`, not exactly), or for a helper
        what its body may raise (`helper_raises`)."""
        if fn is None:
            return None
        fn = forwarded_target(fn) or fn     # (a lazy-import wrapper is its target)
        numbers = self.numbers is not None and all(
            self.numbers.number(a) is True for a in args)
        if numbers or (any(fn is c for c in _CONVERTERS) and len(args) == 1):
            known = python_errors.raises_on_numbers(fn, len(args))
            if known is not None:
                return known, True
        if isinstance(fn, np.ufunc) and self.erroring:
            # (where warnings are errors a float error is a RuntimeWarning, `warned`: what
            # else a ufunc raises is its operands' types' and shapes')
            return _UFUNC_FAILURES, False
        if python_errors.is_numpy_function(fn):
            return python_errors.NUMPY_FAILURES, False
        if isinstance(fn, types.FunctionType) and not _numpy_module(fn):
            return helper_raises(fn)
        return None

    def warned(self, node, result, operands, guards, tests, numpy=False) -> None:
        """Inside ``with warnings.catch_warnings(): warnings.simplefilter("error")``: the
        test of the NumPy operation ``result`` (of ``operands``) warning, which there raises
        RuntimeWarning. NumPy (IEEE) warns exactly where a result is NaN from operands none
        of which is NaN (invalid), or infinite from finite operands (division by zero,
        overflow); arithmetic of Python numbers never warns (it raises, tested apart).
        ``numpy``: a NumPy function's result, whatever its arguments."""
        if not self.erroring:
            return
        if not self.float_warnings and not numpy:
            return      # (arithmetic of tensors never warns, nor that of Python numbers)
        if not self.float_warnings:
            raise Unsupported("a NumPy function inside `with warnings.catch_warnings()` "
                              "(warnings as errors) under `vmap` on a backend whose values "
                              "never warn, where the per-example loop's NumPy call may", node,
                              "use the NumPy backend, or test the operands with `if`")
        if not numpy:
            kinds = [True if self.numbers is None else self.numbers.python_valued(o)
                     for o in operands]
            if all(k is True for k in kinds):
                return
            if not any(k is False for k in kinds):
                raise Unsupported(
                    "arithmetic inside `with warnings.catch_warnings()` (warnings as errors) "
                    "whose operands' types the engine cannot tell: on NumPy values it warns, "
                    "which raises there, on Python numbers it does not", node,
                    "convert the operands with float() first", kind="raises")
        if type(result) is cst.BinaryOperation and type(result.operator) is cst.Power and \
                self.numbers is not None and not all(self.numbers.number(o) is True
                                                     for o in operands):
            raise Unsupported(
                "`**` of values that may be arrays inside `with warnings.catch_warnings()` "
                "(warnings as errors): an array's power (NumPy's ufunc) warns for some "
                "infinite operands where a NumPy scalar's does not", node,
                "compute the power before the `with` block")
        if self.numbers is not None and not any(self.numbers.surely_float(o)
                                                for o in operands):
            raise Unsupported(
                "an operation inside `with warnings.catch_warnings()` (warnings as errors) "
                "whose operands may be NumPy integers, whose overflow warns with a result "
                "that tells nothing", node, "convert an operand with float() first")
        operands = [o for o in operands if type(o) not in (cst.Integer, cst.Float)]
        names = {f"a{k}": o for k, o in enumerate(operands)}
        quiet = " or ".join(f"math.isnan({{{n}}})" for n in names)
        finite = " and ".join(f"math.isfinite({{{n}}})" for n in names)
        template = "math.isnan({r})" + (f" and not ({quiet})" if quiet else "") + \
            " or math.isinf({r})" + (f" and {finite}" if finite else "")
        test = expr(template, r=result.deep_clone(),
                    **{n: o.deep_clone() for n, o in names.items()})
        if tests and "warned" in tests[-1][2] and tests[-1][3] == guards:
            # (one test for the operations of a statement in a row: one handler's copy)
            test = cst.BooleanOperation(tests[-1][2]["warned"], cst.Or(), test)
            tests.pop()
        tests.append((RuntimeWarning, "{warned}", {"warned": test}, guards))

    def warning_call(self, fn, node, args, guards, tests) -> None:
        """A call inside a warnings-as-errors block: a NumPy ufunc's warning test (`warned`);
        `math` functions and the number builtins raise rather than warn (their tests are
        `call`'s); anything else may warn in ways the engine does not know: refused."""
        if isinstance(fn, np.ufunc):
            if fn in _UNWARNED_UFUNCS or all(t.split("->")[1] == "?" for t in fn.types):
                return
            # (NumPy's power ufunc, unlike a NumPy scalar's `**`, warns for some infinite
            # operands: `np.power(0.0, -inf)`, `np.power(1e308, inf)`)
            if fn in (np.power, np.float_power) or fn.nout != 1 or len(args) != fn.nin or \
                    any(a.keyword or a.star
                                                           for a in node.args):
                raise Unsupported(_WARNS_UNKNOWN, node, _WARNS_SUGGESTION)
            self.warned(node, node, args, guards, tests, numpy=True)
            return
        if getattr(fn, "__module__", None) == "math" or fn in (
                builtins.abs, builtins.min, builtins.max, builtins.float, builtins.int,
                builtins.round, builtins.bool):
            return
        if fn is builtins.pow and len(args) == 2:
            self.warned(node, node, args, guards, tests)
            return
        raise Unsupported(_WARNS_UNKNOWN, node, _WARNS_SUGGESTION)

    def caught(self, raised) -> bool:
        """Whether a handler of the `try` being lowered may catch one of ``raised``."""
        return any(issubclass(e, h) or issubclass(h, e) for e in raised
                   for types_, _ in self.handlers for h in types_)

    def subscript(self, node, guards, tests) -> None:
        """``v[i]``: IndexError where ``i`` is out of ``range(-len(v), len(v))``."""
        if self.numbers is not None and self.static_types and self.certain and \
                self.numbers.python_valued(node.value) is True and \
                self.numbers.number(node.value) is True:
            # a Python number is not subscriptable: TypeError on every example
            self.expression(node.value, guards, tests)
            for element in node.slice:
                if type(element.slice) is cst.Index:
                    self.expression(element.slice.value, guards, tests)
            tests.append((TypeError, None, {}, guards))
            return
        self.expression(node.value, guards, tests)
        if tests and tests[-1][1] is None and tests[-1][3] == guards:
            return      # (reading the value raises on every example)
        index = node.slice[0].slice if len(node.slice) == 1 else None
        if type(index) is cst.Index and _int_literal(index.value) and self.numbers is not None \
                and self.static_types and self.numbers.number(node.value) is True:
            # a number at an integer: a NumPy scalar's "invalid index to scalar variable", a
            # Python number's TypeError (not subscriptable)
            if self.numbers.python_valued(node.value) is False:
                tests.append((IndexError, None, {}, guards))
                return
            by = [next((h for types_, h in self.handlers if issubclass(e, types_)), None)
                  for e in (IndexError, TypeError)]
            if by[0] is not by[1]:
                raise Unsupported("an item of a number inside a `try` whose handlers of "
                                  "IndexError (a NumPy scalar's) and TypeError (a Python "
                                  "number's) differ", node, "index an array, not a number",
                                  kind="raises")
            tests.append((TypeError, None, {}, guards))
            return
        if len(node.slice) == 1 and type(node.slice[0].slice) is cst.Index and type(
                node.slice[0].slice.value) is cst.Tuple and not node.slice[0].slice.value.elements \
                and self.numbers is not None and self.numbers.python_valued(node.value) is False:
            return      # `v[()]` of a NumPy value: the value itself (or its 0-d item)
        if len(node.slice) != 1 or type(node.slice[0].slice) is not cst.Index or \
                type(node.slice[0].slice.value) is cst.Tuple:
            raise Unsupported("an index other than one integer (`v[i]`) inside a `try`",
                              node, "index before the `try`")
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
        if self.erroring:
            self.warning_call(fn, node, args, guards, tests)
        if getattr(fn, "__module__", None) == "math" and getattr(
                math, getattr(fn, "__name__", ""), None) is fn:
            for exc, template in python_errors.exact_math_errors(fn.__name__, len(args)):
                tests.append((exc, template, dict(zip("xy", args)), guards))
            return
        if fn is builtins.len and len(args) == 1 and self.numbers is not None and \
                self.static_types and self.numbers.number(args[0]) is True:
            tests.append((TypeError, None, {}, guards))     # len() of a number
            return
        if fn is builtins.len and len(args) == 1 and self.numbers is not None and \
                not node.args[0].star and not node.args[0].keyword and \
                self.numbers.sized(args[0]):
            return      # len() of a row per example (or a list): it raises nothing
        if fn not in _NUMBER_BUILTINS and self.eager and self.numbers is not None and \
                not self.erroring and self.numbers.shared(node):
            # a class (or its class method) called on values the same for every example
            # (`Ellipsoid.from_name("wgs84")`): the same object for every example, or the
            # same exception on every example, which the batch raises and the per-example
            # loop then gives to the handler
            spec_facts.note("handled_raises")
            tests.append((_BATCH, "batch", {"call": node, "raises": (Exception,)}, guards))
            return
        if fn not in _NUMBER_BUILTINS:
            found = self.raises(fn, args)
            if found is None or not found[1] and self.caught(found[0]):
                raise Unsupported("a call inside a `try` whose exceptions the engine does "
                                  "not know", node, "call it before the `try`, or handle "
                                  "its failure in the function it calls")
            # none that a handler catches; or exactly those, which the batched call raises
            # too (the engine's checks in the helper): a batch that raises runs per
            # example, where the handler is taken
            if self.caught(found[0]):
                spec_facts.note("handled_raises")
            if found[0]:
                tests.append((_BATCH, "batch", {"call": node, "raises": tuple(found[0])},
                              guards))
            return
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


class _BATCH:
    """The mark of a call whose exceptions are left to the batch (in a `try`'s tests)."""


def _surely_handled_by(handlers, exc: type, handler) -> bool:
    """Whether ``exc`` (and each of its subclasses) raised in the `try` goes to ``handler``:
    the first handler that catches it, no handler before it catching a subclass."""
    for types_, h in handlers:
        if issubclass(exc, types_):
            return h is handler
        if any(issubclass(t, exc) for t in types_):
            return False
    return False


_WARNS_UNKNOWN = ("a call inside `with warnings.catch_warnings()` with warnings as errors "
                  "whose warnings the engine does not know (only NumPy's ufuncs, `math` "
                  "functions, arithmetic and the number builtins)")
_WARNS_SUGGESTION = "call it before the `with` block"
# ufuncs that warn for no float operand (their NaN comes only from a NaN)
_UNWARNED_UFUNCS = frozenset({np.arctan, np.arctan2, np.tanh, np.absolute, np.negative,
                              np.positive, np.sign, np.floor, np.ceil, np.trunc, np.rint,
                              np.fabs, np.copysign, np.maximum, np.minimum, np.fmax,
                              np.fmin, np.signbit})
_MATH_INTS = frozenset({"floor", "ceil", "trunc", "factorial", "gcd", "lcm", "comb", "perm",
                        "isqrt", "prod", "fsum"})
_UFUNC_FAILURES = frozenset({ValueError, TypeError, MemoryError})
_UNWARNED_METHODS = frozenset({"any", "all", "squeeze", "copy", "ravel", "flatten"})
_UNROLLED = 8          # the most steps of a `for` loop inside a `try` (each is written out)
_BRANCH_COPIES = 16    # the most `if`s inside one `try` (each copies the rest of the `try`)


def _warnings_block(stmt, resolve):
    """``with warnings.catch_warnings(): warnings.simplefilter(action)`` (or
    ``filterwarnings``, with ``record=True``, no ``as``), the action one of "error",
    "ignore": (the statements after that call, whether warnings raise there); else None."""
    if type(stmt) is not cst.With or stmt.asynchronous is not None or not stmt.items:
        return None
    for item in stmt.items:
        call = item.item
        if item.asname is not None or type(call) is not cst.Call or \
                resolve(call.func) is not warnings.catch_warnings or any(
                    a.star or a.keyword is None or a.keyword.value != "record"
                    for a in call.args):
            return None
    body = list(stmt.body.body) if isinstance(stmt.body, cst.IndentedBlock) else []
    if not body or type(body[0]) is not cst.SimpleStatementLine or len(body[0].body) != 1:
        return None
    first = body[0].body[0]
    call = first.value if type(first) is cst.Expr else None
    if type(call) is not cst.Call or resolve(call.func) not in (
            warnings.simplefilter, warnings.filterwarnings) or len(call.args) != 1 or \
            call.args[0].star or call.args[0].keyword not in (None,) and \
            call.args[0].keyword.value != "action" or \
            type(call.args[0].value) is not cst.SimpleString:
        return None
    action = call.args[0].value.evaluated_value
    if action not in ("error", "ignore"):
        return None
    return body[1:], action == "error"


def _unrolled(loop: cst.For):
    """``for i in range(n): body`` with a constant ``n`` of at most `_UNROLLED` and a
    body without ``break``/``continue``/``else``: ``i = 0; body; i = 1; body; ...``, or None."""
    it = loop.iter
    if loop.orelse is not None or loop.asynchronous is not None or type(loop.target) is not \
            cst.Name or type(it) is not cst.Call or type(it.func) is not cst.Name or \
            it.func.value != "range" or not 1 <= len(it.args) <= 3 or any(
                type(a.value) is not cst.Integer or a.keyword or a.star for a in it.args):
        return None
    if any(type(n) in (cst.Break, cst.Continue, cst.FunctionDef, cst.ClassDef, cst.Lambda)
           for n in walk(loop.body)):
        return None
    steps = range(*[int(a.value.value, 0) for a in it.args])
    if len(steps) > _UNROLLED:
        return None
    out = []
    for k in steps:
        out.append(cst.SimpleStatementLine([cst.Assign(
            [cst.AssignTarget(loop.target.deep_clone())], cst.Integer(str(k)))]))
        out += [s.deep_clone() for s in loop.body.body]
    return out


_CONVERTERS = frozenset({np.asarray, np.asanyarray, np.array, np.atleast_1d, np.atleast_2d,
                         np.atleast_3d, np.copy})


def _numpy_module(fn) -> bool:
    return (getattr(fn, "__module__", None) or "").split(".")[0] == "numpy"


def _helper_keywords(fn, node: cst.Call, type_error_caught: bool) -> bool:
    """Whether ``node`` calls the user's helper ``fn`` with keyword arguments that bind to
    its parameters as Python binds them, or with ``*sequence`` where no handler catches the
    TypeError a sequence of the wrong length raises (the batched call raises it too, for
    every example): what it may raise is read from its body (`helper_raises`), whichever
    parameter an argument binds to."""
    if not any(arg.keyword or arg.star for arg in node.args):
        return False
    if forwarded_target(fn) is not None or not isinstance(fn, types.FunctionType) or \
            _numpy_module(fn) or any(arg.star == "**" for arg in node.args):
        return False
    if any(arg.star for arg in node.args):
        return not type_error_caught and not any(arg.keyword for arg in node.args)
    try:
        inspect.signature(fn, follow_wrapped=False).bind(
            *[None for a in node.args if a.keyword is None],
            **{a.keyword.value: None for a in node.args if a.keyword is not None})
    except (TypeError, ValueError):
        return False
    return True


_HELPER_DEPTH = 8
_UNKNOWN = Exception     # what an operation the engine does not know may raise


def helper_raises(fn, depth: int = 0, seen: frozenset = frozenset()):
    """The exception classes a call of the helper ``fn`` may raise (a frozenset), from its
    body: its ``raise``/``assert`` statements, the operations that raise on Python numbers
    (division, powers, indexing, `math` domain errors), the calls of rules (what they
    declare) and of other helpers (recursively), less what its own ``try`` statements catch.
    None where it calls what the engine does not know, or recursion runs deeper than
    `_HELPER_DEPTH`."""
    if depth > _HELPER_DEPTH or fn in seen:
        return None
    try:
        source = read_function(fn)
    except Unsupported:
        return None
    walker = _Raises(fn.__globals__, depth, seen | {fn})
    found = walker.block(source.tree.body)
    return None if _UNKNOWN in found else (frozenset(found), walker.precise)


class _Raises:
    def __init__(self, func_globals, depth, seen):
        self.globals = func_globals
        self.depth = depth
        self.seen = seen
        self.precise = True     # False: a NumPy function's `NUMPY_FAILURES` were added

    def resolve(self, node):
        return _TryLowering.resolve(self, node)

    def block(self, node, caught=()):
        """What the statements (or expression) ``node`` may raise; ``caught``: the types of
        the handler it is in (a bare ``raise`` re-raises one of them)."""
        out = set()
        for child in _statement_parts(node):
            t = type(child)
            if t is cst.Try:
                inner = self.block(child.body)
                handled = [_handler_types(self, h) for h in child.handlers]
                # a handler is run only where the body raises what it catches: one whose
                # classes meet none of those the body may raise (a class in `inner` stands
                # for its subclasses too) is never run, whatever its code
                reached = [h is None or any(issubclass(exc, h) or any(
                    issubclass(c, exc) for c in h) for exc in inner) for h in handled]
                if any(h is None and r for h, r in zip(handled, reached)):
                    out.add(_UNKNOWN)
                handled_types = [h for h in handled if h is not None]
                for exc in inner:
                    if not any(issubclass(exc, h) for h in handled_types):
                        out.add(exc)
                for h, types_, r in zip(child.handlers, handled, reached):
                    if r and types_ is not None:
                        out |= self.block(h.body, types_)
                for part in (child.orelse, child.finalbody):
                    if part is not None:
                        out |= self.block(part.body)
                continue
            if t in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
                out.add(_UNKNOWN)
                continue
            if t is cst.Raise:
                if child.exc is None:
                    out |= set(caught) if caught else {_UNKNOWN}
                    continue
                target = child.exc.func if type(child.exc) is cst.Call else child.exc
                cls = self.resolve(target)
                out.add(cls if isinstance(cls, type) and issubclass(cls, BaseException)
                        else _UNKNOWN)
                out |= self.block(child.exc.args if type(child.exc) is cst.Call else [])
                continue
            if t is cst.Assert:
                out.add(AssertionError)
            elif t is cst.BinaryOperation:
                if type(child.operator) in _DIVISIONS:
                    out.add(ZeroDivisionError)
                elif type(child.operator) is cst.Power:
                    out |= {ZeroDivisionError, OverflowError}
            elif t is cst.Subscript:
                out |= {IndexError, KeyError, TypeError}
            elif t is cst.Call:
                out |= self.call(child)
            elif t in (cst.Await, cst.Yield, cst.GeneratorExp, cst.Import, cst.ImportFrom,
                       cst.With, cst.While):
                out.add(_UNKNOWN)
            elif t is cst.Attribute and not isinstance(self.resolve(child.value),
                                                       type(math)):
                out.add(AttributeError)
            out |= self.block(child, caught)
        return out

    def call(self, node: cst.Call) -> set:
        fn = self.resolve(node.func)
        fn = forwarded_target(fn) or fn     # (a lazy-import wrapper is its target)
        if fn is None and type(node.func) is cst.Attribute:
            return {_UNKNOWN} if node.func.attr.value not in _QUIET_METHODS else set()
        if any(a.star or a.keyword for a in node.args) and not (
                isinstance(fn, types.FunctionType) and not _numpy_module(fn)):
            return {_UNKNOWN}
        known = python_errors.raises_on_numbers(fn, len(node.args)) if fn is not None \
            else None
        if known is not None:
            return set(known)
        if python_errors.is_numpy_function(fn):
            self.precise = False
            return set(python_errors.NUMPY_FAILURES)
        if fn is builtins.range or fn in (builtins.isinstance, builtins.print):
            return set()
        if isinstance(fn, type) and issubclass(fn, BaseException):
            return set()
        if isinstance(fn, types.FunctionType) and not _numpy_module(fn):
            inner = helper_raises(fn, self.depth + 1, self.seen)
            if inner is None:
                return {_UNKNOWN}
            self.precise = self.precise and inner[1]
            return set(inner[0])
        return {_UNKNOWN}


def _user_helper(fn) -> bool:
    return isinstance(fn, types.FunctionType) and not _numpy_module(fn) and \
        forwarded_target(fn) is None


def _array_to_scalar_raises() -> bool:
    """Whether this NumPy refuses to make a Python number of an array of one element
    (``float(np.zeros(1))``, what ``math.sqrt`` and ``int`` do): TypeError, as of an empty
    one; older NumPy converts it with a DeprecationWarning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            float(np.zeros(1))
        except TypeError:
            return True
    return False


_ARRAY_TO_SCALAR_RAISES = _array_to_scalar_raises()
_ON_ARRAYS_DEPTH = 4
_SCALAR_CONVERTERS = {builtins.float, builtins.int, builtins.complex}


class _OnArrays:
    """What a helper of the user's does when called with arrays of 0 or 1 element (an item
    of a number per example at a per-example bool, `_TryLowering._numpy_quiet`), NumPy
    scalars and constants: the kind of its result, "array", "value" (a NumPy scalar), a
    constant ``("const", v)``, "raises" (it raises on every example one of ``caught``, the
    exceptions the handler taken catches first), or None where it may raise anything else.
    Read from its body: assignments to names, ``return``, ``if`` on constants (a parameter
    left at its default or passed a literal: ``if deg:``), arithmetic of arrays (which warns,
    never raises), NumPy's ufuncs, the number builtins and `math` functions of an array
    (TypeError where this NumPy makes no Python number of an array of one element), other
    helpers of the user (recursively, at most `_ON_ARRAYS_DEPTH` deep); anything else is
    None."""

    def __init__(self, caught, constructed: dict):
        self.caught = tuple(caught)
        self.constructed = constructed     # (objects made of constants: `made_once`)

    def call(self, fn, args: list, kwargs: dict, depth: int):
        if depth > _ON_ARRAYS_DEPTH or not _user_helper(fn):
            return None
        try:
            source = read_function(fn)
            bound = inspect.signature(fn, follow_wrapped=False).bind(*args, **kwargs)
        except (Unsupported, TypeError, ValueError):
            return None
        env = {}
        for param in bound.signature.parameters.values():
            if param.name in bound.arguments:
                env[param.name] = bound.arguments[param.name] if param.kind in (
                    param.POSITIONAL_ONLY, param.POSITIONAL_OR_KEYWORD,
                    param.KEYWORD_ONLY) else None
            elif param.default is not param.empty and (param.default is None or type(
                    param.default) in (bool, int, float, str)):
                env[param.name] = ("const", param.default)
            else:
                env[param.name] = None      # (`*args`, `**kwargs`, an object default)
        self.globals = fn.__globals__
        body = source.tree.body
        found = self.block(list(body.body) if isinstance(body, cst.IndentedBlock) else [],
                           env, depth)
        return ("const", None) if found == "fell" else found

    def block(self, stmts, env: dict, depth: int):
        """The kind of what ``stmts`` return, "fell" where they end without a `return`."""
        for k, stmt in enumerate(stmts):
            if type(stmt) is cst.If:
                test = self.value(stmt.test, env, depth)
                if test == "raises":
                    return test
                if type(test) is not tuple:
                    return None     # (an array's truth raises for an empty one)
                if test[1]:
                    branch = list(stmt.body.body)
                elif type(stmt.orelse) is cst.Else:
                    branch = list(stmt.orelse.body.body)
                elif stmt.orelse is not None:
                    branch = [stmt.orelse]
                else:
                    branch = []
                found = self.block(branch + list(stmts[k + 1:]), env, depth)
                return found
            if type(stmt) is not cst.SimpleStatementLine:
                return None
            for small in stmt.body:
                if type(small) is cst.Expr and type(small.value) in (
                        cst.SimpleString, cst.ConcatenatedString):
                    continue        # (a docstring)
                if type(small) is cst.Pass:
                    continue
                if type(small) is cst.Return:
                    return ("const", None) if small.value is None else \
                        self.value(small.value, env, depth)
                if type(small) is cst.Assign and all(
                        type(t.target) is cst.Name for t in small.targets):
                    kind = self.value(small.value, env, depth)
                    if kind is None or kind == "raises":
                        return kind
                    for t in small.targets:
                        env[t.target.value] = kind
                    continue
                if type(small) is cst.AugAssign and type(small.target) is cst.Name:
                    kind = self.value(cst.BinaryOperation(small.target, _binary(
                        small.operator), small.value), env, depth)
                    if kind is None or kind == "raises":
                        return kind
                    env[small.target.value] = kind
                    continue
                return None
        return "fell"

    def resolve(self, node, env):
        """A module-level object that ``node`` (a name not bound here, ``module.name``)
        names, or None."""
        if type(node) is cst.Name:
            if node.value in env:
                return None
            if node.value in self.globals:
                return self.globals[node.value]
            return getattr(builtins, node.value, None)
        if type(node) is cst.Attribute:
            owner = self.resolve(node.value, env)
            return getattr(owner, node.attr.value, None) if isinstance(
                owner, (types.ModuleType, type)) else None
        return None

    def value(self, node, env: dict, depth: int):
        t = type(node)
        if t in (cst.Integer, cst.Float, cst.SimpleString):
            return ("const", node.evaluated_value)
        if t is cst.Name and node.value in env:
            return env[node.value]
        if t is cst.Attribute and not (type(node.value) is cst.Name and
                                       node.value.value not in env):
            owner = self.value(node.value, env, depth)
            if type(owner) is not tuple or owner[1] is None or type(owner[1]) in (
                    bool, int, float, str):
                return None if owner != "raises" else owner
            try:
                # (an attribute of an object made of constants, `ell.semimajor_axis` of
                # `Ellipsoid.from_name("wgs84")`: the same on every example)
                return ("const", getattr(owner[1], node.attr.value))
            except Exception:   # noqa: BLE001 -- (it raises on every example: not known)
                return None
        if t in (cst.Name, cst.Attribute):
            obj = self.resolve(node, env)
            if obj is None and not (t is cst.Name and node.value == "None"):
                return None
            return ("const", obj) if obj is None or type(obj) in (bool, int, float) \
                else None
        if t is cst.UnaryOperation:
            kind = self.value(node.expression, env, depth)
            if type(kind) is tuple:
                try:
                    return ("const", {cst.Minus: lambda v: -v, cst.Plus: lambda v: +v,
                                      cst.Not: lambda v: not v}[type(node.operator)](
                                          kind[1]))
                except (KeyError, TypeError):
                    return None
            if type(node.operator) in (cst.Minus, cst.Plus) and kind in ("array", "value",
                                                                         "raises"):
                return kind
            return None
        if t is cst.Comparison:
            if len(node.comparisons) != 1:
                return None
            op = type(node.comparisons[0].operator)
            left = self.value(node.left, env, depth)
            right = self.value(node.comparisons[0].comparator, env, depth)
            if "raises" in (left, right):
                return "raises" if left == "raises" or left is not None else None
            if type(left) is tuple and type(right) is tuple and op in (cst.Is, cst.IsNot):
                # (`ell is None` of a parameter left at its default None)
                same = left[1] is right[1]
                return ("const", same if op is cst.Is else not same)
            return None
        if t is cst.BinaryOperation:
            return self.arithmetic(node, env, depth)
        if t is cst.Call:
            return self.call_of(node, env, depth)
        return None

    def arithmetic(self, node, env, depth):
        op = type(node.operator)
        if op not in (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.Power,
                      cst.Modulo, cst.FloorDivide):
            return None
        left = self.value(node.left, env, depth)
        if left == "raises" or left is None:
            return left
        right = self.value(node.right, env, depth)
        if right == "raises" or right is None:
            return right

        def number(kind):
            return type(kind) is tuple and type(kind[1]) in (int, float)
        if not all(k in ("array", "value") or number(k) for k in (left, right)):
            return None
        if "array" not in (left, right):
            return None     # (numbers: a Python number's division raises)
        if op is cst.Power and not (number(right) and (type(right[1]) is float or
                                                      right[1] >= 0)):
            return None     # (an int array to a negative power raises ValueError)
        if any(number(k) and type(k[1]) is int and abs(k[1]) >= 2 ** 63
               for k in (left, right)):
            return None     # (an int beyond int64 meeting an int array: OverflowError)
        return "array"      # (arrays' arithmetic warns, never raises)

    def call_of(self, node, env, depth):
        if any(a.star for a in node.args):
            return None
        fn = self.resolve(node.func, env)
        kinds = []
        for a in node.args:
            kind = self.value(a.value, env, depth)
            if kind is None or kind == "raises":
                return kind
            kinds.append(kind)
        if _user_helper(fn):
            return self.call(fn, [k for k, a in zip(kinds, node.args) if a.keyword is None],
                             {a.keyword.value: k for k, a in zip(kinds, node.args)
                              if a.keyword is not None}, depth + 1)
        if _shared_callee(fn) and all(type(k) is tuple and (k[1] is None or type(k[1]) in (
                bool, int, float, str)) for k in kinds):
            # a class (or its class method) called on constants, made once: the same
            # object on every example (`Ellipsoid.from_name("wgs84")`); where it raises,
            # it raises on every example what the engine does not know
            made = made_once(self.constructed, fn,
                             *[k[1] for k, a in zip(kinds, node.args) if a.keyword is None],
                             **{a.keyword.value: k[1] for k, a in zip(kinds, node.args)
                                if a.keyword is not None})
            return None if made is UNKNOWN else ("const", made)
        if any(a.keyword for a in node.args) or fn is None:
            return None
        if "array" in kinds and (fn in _SCALAR_CONVERTERS or getattr(
                fn, "__module__", None) == "math" and getattr(
                    math, getattr(fn, "__name__", ""), None) is fn):
            # a Python number of an array: TypeError (where this NumPy refuses to convert
            # one of one element, as it does an empty one)
            return "raises" if _ARRAY_TO_SCALAR_RAISES and TypeError in self.caught \
                else None
        if isinstance(fn, np.ufunc) and fn.nout == 1 and len(kinds) == fn.nin and \
                fn is not np.power and TypeError in self.caught and all(
                    k in ("array", "value") or type(k) is tuple and type(k[1]) in (
                        int, float) for k in kinds):
            # (its failure for the types is a TypeError, caught)
            return "array" if "array" in kinds else "value"
        if fn is builtins.abs and len(kinds) == 1 and kinds[0] in ("array", "value"):
            return kinds[0]
        return None


def _exception_reads(body, name: str, outside=None):
    """The names of the messages the handler ``body`` makes of the exception ``name``
    (``msg = f"bad x: {e}"``; a frozenset, maybe empty) where it reads ``name`` only inside
    its `raise` statements and to make such messages: as the exception raised (``raise e``),
    the cause (``from e``) or text (an argument of a call that is text of it: ``E(e)``,
    ``E("x: " + str(e))``, ``E(f"{e!r}")``), and the messages, made of text alone (which
    cannot raise), are read only so too and nowhere else in the function (``outside``: the
    names the function reads or binds outside the handler). None where it reads them
    otherwise. The batch then raises wherever such an example gets there, and what it raises
    the per-example loop gives (`_TryLowering.handler_body`)."""
    module = cst.Module(body=list(body.body))
    if any(name in writes(stmt) for stmt in body.body) or any(
            type(n) in _SCOPES for n in walk(module)):
        return None
    derived: set[str] = set()
    made: dict[int, str] = {}       # id(Assign) -> the message it makes
    changed = True
    while changed:
        changed = False
        for node in walk(module):
            if type(node) is not cst.Assign or id(node) in made:
                continue
            if not reads(node.value) & ({name} | derived):
                continue
            if len(node.targets) != 1 or type(node.targets[0].target) is not cst.Name or \
                    not _text_of(node.value, name, frozenset(derived)):
                return None
            target = node.targets[0].target.value
            if target == name or outside is None or target in outside:
                return None
            derived.add(target)
            made[id(node)] = target
            changed = True
    texts = {name} | derived
    allowed: set[int] = set()
    for node in walk(module):
        if type(node) is cst.Assign and id(node) in made:
            allowed.add(id(node.targets[0].target))
            allowed |= {id(n) for n in walk(node.value) if type(n) is cst.Name}
            continue
        if type(node) is not cst.Raise:
            continue
        if type(node.exc) is cst.Name and node.exc.value == name:
            allowed.add(id(node.exc))
        if node.cause is not None and type(node.cause.item) is cst.Name and \
                node.cause.item.value in texts:
            allowed.add(id(node.cause.item))
        if node.exc is None:
            continue
        for inner in walk(node.exc):
            if type(inner) is cst.Arg and not inner.star and inner.keyword is None and (
                    (type(inner.value) is cst.Name and inner.value.value in texts) or
                    _text_of(inner.value, name, frozenset(derived))):
                allowed |= {id(n) for n in walk(inner.value) if type(n) is cst.Name}
    if not all(id(n) in allowed for n in walk(module)
               if type(n) is cst.Name and n.value in texts):
        return None
    return frozenset(derived)


def _text_of(node, name: str, derived=frozenset()) -> bool:
    """Whether ``node`` is text that cannot raise: string literals, f-strings of names,
    ``str(v)`` / ``repr(v)`` of a name, the messages ``derived`` and their concatenations
    with ``+`` (one side literal text)."""
    t = type(node)
    if t is cst.Name:
        return node.value in derived
    if t is cst.SimpleString:
        return True
    if t is cst.ConcatenatedString:
        return _text_of(node.left, name, derived) and _text_of(node.right, name, derived)
    if t is cst.FormattedString:
        return all(type(p) is cst.FormattedStringText or (
            type(p) is cst.FormattedStringExpression and type(p.expression) is cst.Name
            and p.format_spec is None) for p in node.parts)
    if t is cst.BinaryOperation:
        return type(node.operator) is cst.Add and _text_of(node.left, name, derived) and \
            _text_of(node.right, name, derived) and (
                _literal_text(node.left) or _literal_text(node.right))
    if t is cst.Call:
        return type(node.func) is cst.Name and node.func.value in ("str", "repr") and \
            len(node.args) == 1 and type(node.args[0].value) is cst.Name and \
            node.args[0].keyword is None and not node.args[0].star
    return False


def _literal_text(node) -> bool:
    """A side of ``+`` that makes it a concatenation of strings (never a number's sum)."""
    return type(node) in (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString) or (
        type(node) is cst.Call and type(node.func) is cst.Name and
        node.func.value in ("str", "repr")) or (
        type(node) is cst.BinaryOperation and (_literal_text(node.left) or
                                               _literal_text(node.right)))


_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp,
           cst.GeneratorExp)


class _ExceptionStandIn(cst.CSTTransformer):
    """The handler's reads of its exception ``name`` where the examples raise ``exc``
    (`_exception_reads` allows only these): ``raise name`` raises ``cls()``'s class with a
    stand-in text, ``from name`` is dropped, the text ``name`` elsewhere is that stand-in."""

    def __init__(self, name: str, cls, exc: type, derived=frozenset()):
        self.name = name
        self.derived = derived
        self.cls = cls
        self.text = repr(exc.__name__)

    def leave_Raise(self, original_node, updated_node):
        cause = updated_node.cause
        if cause is not None and type(original_node.cause.item) is cst.Name and \
                original_node.cause.item.value == self.name:
            updated_node = updated_node.with_changes(cause=None)
        if type(original_node.exc) is cst.Name and original_node.exc.value == self.name:
            updated_node = updated_node.with_changes(exc=cst.Call(
                func=self.cls.deep_clone(), args=[cst.Arg(cst.SimpleString(self.text))]))
        return updated_node

    def leave_Assign(self, original_node, updated_node):
        target = original_node.targets[0].target
        if type(target) is cst.Name and target.value in self.derived:
            return cst.Pass()       # (a message read only where it is replaced)
        return updated_node

    def leave_Name(self, original_node, updated_node):
        if updated_node.value == self.name or updated_node.value in self.derived:
            return cst.SimpleString(self.text)
        return updated_node


def _statement_parts(node):
    if isinstance(node, (list, tuple)):
        return list(node)
    if isinstance(node, cst.IndentedBlock):
        return list(node.body)
    return [c for c in children(node)]


def _handler_types(owner, handler):
    if handler.type is None:
        return BaseException
    parts = handler.type.elements if type(handler.type) is cst.Tuple else [handler.type]
    found = []
    for part in parts:
        cls = owner.resolve(part.value if isinstance(part, cst.Element) else part)
        if not (isinstance(cls, type) and issubclass(cls, BaseException)):
            return None
        found.append(cls)
    return tuple(found)


def _int_literal(node) -> bool:
    if type(node) is cst.UnaryOperation and type(node.operator) in (cst.Minus, cst.Plus):
        node = node.expression
    return type(node) is cst.Integer


def _leaves(block) -> bool:
    """Whether the statements ``block`` end in a ``return`` or ``raise`` of their own (what
    follows them never runs)."""
    last = block[-1] if block else None
    return type(last) is cst.SimpleStatementLine and type(last.body[-1]) in (cst.Return,
                                                                            cst.Raise)


def _quiet_leaf(node) -> bool:
    """A name or a literal: reading it raises nothing (the names are bound: the analysis
    refuses the others)."""
    return type(node) in (cst.Name, cst.Integer, cst.Float, cst.SimpleString)


def _returns(stmt) -> bool:
    return any(type(n) is cst.Return for n in walk(stmt))


# what a NumPy value's attributes and methods raise: nothing, for these
_QUIET_ATTRIBUTES = frozenset({"shape", "ndim", "size", "dtype", "real", "imag", "T"})
_QUIET_METHODS = frozenset({"any", "all", "squeeze", "copy", "ravel", "flatten", "sum",
                            "prod", "mean", "conjugate", "conj", "tolist"})
_QUIET_NUMBER_ATTRIBUTES = frozenset({"real", "imag", "conjugate"})


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
_PARAM = object()       # (what a parameter holds as it is passed)
_NOT_KNOWN = object()   # (`_PythonValued.exact_value`: not known exactly)
_CYCLE = object()       # (`python_valued` of a name read inside its own binding)


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
        self.static_types = True    # (False: per-example numbers are 0-d tensors)
        self.depth = 0              # helpers' bodies read for what they return
        self.func = func
        # objects made from constants, each made once for the generated module
        # (`analysis.float_semantics.made_once`: the analysis reuses them)
        self.constructed: dict = {}
        # in a `try` (`at`): what each name may hold there (its bindings, `_PARAM` for the
        # parameter's own value), or None: flow-insensitively (`assigned`)
        self.flow: dict[str, list] | None = None
        self._assumed: set[str] = set()     # (`scalar_like`: names read in a cycle)
        self._collect(walk(func.body), self.assigned)

    def at(self, try_node) -> None:
        """Read names as bound where ``try_node`` starts: each binding before it in the
        source (the last reaching it or not, and a parameter's own value), then the `try`'s
        own statements in order (`bound`); flow-insensitively where it is in a loop (a later
        binding reaches it on the next step)."""
        flow: dict[str, list] = {name: [_PARAM] for name in self.params}
        self.flow = flow if _bindings_before(self.func.body.body, try_node, flow,
                                             self) else None

    def bound(self, stmt, strong=True) -> None:
        """``stmt`` (inside the `try`) has run: the names it binds hold what it binds
        (``strong``, a simple statement) or that too."""
        if self.flow is None:
            return
        found: dict[str, list] = {}
        self._collect(walk(stmt), found)
        for name, values in found.items():
            if strong and type(stmt) is cst.SimpleStatementLine:
                self.flow[name] = values
            else:
                self.flow[name] = self.flow.get(name, []) + values

    def snapshot(self):
        return None if self.flow is None else {k: list(v) for k, v in self.flow.items()}

    def restore(self, flow) -> None:
        if flow is not None:
            self.flow = {k: list(v) for k, v in flow.items()}

    def _held(self, name: str):
        """What ``name`` may hold (bindings, `_PARAM`), or None: it is not a local name."""
        if self.flow is not None:
            return self.flow.get(name)
        held = list(self.assigned.get(name, []))
        if name in self.params:
            held.append(_PARAM)
        return held or None

    def _collect(self, nodes, into: dict) -> None:
        saved, self.assigned = self.assigned, into
        try:
            self._collect_into(nodes)
        finally:
            self.assigned = saved

    def _collect_into(self, nodes) -> None:
        for node in nodes:
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
            items = value.elements if type(value) in (cst.Tuple, cst.List) and len(
                value.elements) == len(target.elements) and not any(
                    type(e) is cst.StarredElement for e in value.elements) else None
            for i, element in enumerate(target.elements):
                self._bind(getattr(element, "value", element),
                           None if items is None else items[i].value)

    def python_valued(self, node, seen=frozenset()):
        t = type(node)
        if t in (cst.Integer, cst.Float, cst.Imaginary):
            return True
        if t is cst.Name:
            return self._name(node.value, seen)
        if t is cst.Attribute:
            obj = self.resolve(node)
            if obj is None:
                obj = self._param_attribute(node)
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
        if t is cst.Call and type(node.func) is cst.Attribute and \
                node.func.attr.value in _QUIET_METHODS and \
                self.python_valued(node.func.value, seen) is False:
            return False        # a NumPy value's method: a NumPy value
        if t is cst.Call:
            return self._call(node, seen)
        if t is cst.Comparison:
            return _combined([self.python_valued(node.left, seen)] + [
                self.python_valued(c.comparator, seen) for c in node.comparisons])
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

    def number(self, node, seen=frozenset()):
        """True where ``node`` is a number per example (a Python number or a NumPy scalar:
        no item assignment, no ``len``), from its type alone; None where it may be an array
        (or a tensor: `static_types`) or the engine cannot tell."""
        t = type(node)
        if not self.static_types:
            return True if self.python_valued(node) is True else None
        if t in (cst.Integer, cst.Float, cst.Imaginary):
            return True
        if t is cst.Name:
            return self._number_name(node.value, seen)
        if t is cst.UnaryOperation:
            return True if self.number(node.expression, seen) is True or type(
                node.operator) is not cst.Not and self.scalar_like(
                    node.expression, seen) else None
        if t is cst.BinaryOperation:
            # (of 0-d arrays too, `np.asarray(x) + 1.0`: NumPy makes a NumPy scalar)
            return True if type(node.operator) is not cst.MatrixMultiply and all(
                self.scalar_like(v, seen) for v in (node.left, node.right)) else None
        if t is cst.Comparison:
            return True if all(self.scalar_like(v, seen) for v in [node.left] + [
                c.comparator for c in node.comparisons]) else None
        if t is cst.BooleanOperation:
            return _all_true([self.number(node.left, seen), self.number(node.right, seen)])
        if t is cst.IfExp:
            return _all_true([self.number(node.body, seen), self.number(node.orelse, seen)])
        if t is cst.Call:
            fn = self.resolve(node.func)
            args = [a.value for a in node.args]
            if any(a.star or a.keyword for a in node.args):
                return None
            if any(fn is f for f in (builtins.float, builtins.int, builtins.complex,
                                     builtins.bool, builtins.len)) or (
                    getattr(fn, "__module__", None) == "math"):
                return True
            if (fn is builtins.abs or fn is builtins.pow or isinstance(fn, np.ufunc) and
                    fn.nout == 1) and args:
                # (of 0-d arrays too: NumPy makes a NumPy scalar)
                return True if all(self.scalar_like(a, seen) for a in args) else None
            if any(fn is f for f in (builtins.min, builtins.max, builtins.round)):
                return _all_true([self.number(a, seen) for a in args]) if args else None
            return None
        if t is cst.Attribute or t is cst.Subscript:
            return True if self.python_valued(node, seen) is True else None
        return None

    def scalar_like(self, node, seen=frozenset()) -> bool:
        """Whether ``node`` is a number per example (`number`) or a 0-d array of one
        (``np.asarray(x)`` of a number, a name every binding of which is one of those): the
        operands of which NumPy's arithmetic and ufuncs make a NumPy scalar."""
        if self.number(node, seen) is True:
            return True
        t = type(node)
        if t is cst.Call and not any(a.star for a in node.args):
            fn = self.resolve(node.func)
            positional = [a.value for a in node.args if a.keyword is None]
            keywords = {a.keyword.value for a in node.args if a.keyword is not None}
            if any(fn is f for f in (np.asarray, np.asanyarray, np.array, np.empty_like,
                                     np.zeros_like, np.ones_like)) and len(
                    positional) == 1 and keywords <= {"dtype"}:
                return self.scalar_like(positional[0], seen)
            if fn is np.full_like and len(positional) == 2 and keywords <= {"dtype"}:
                return self.scalar_like(positional[0], seen) and self.scalar_like(
                    positional[1], seen)
            if fn is np.where and len(positional) == 3 and not keywords:
                return all(self.scalar_like(a, seen) for a in positional)
            return False
        if t is cst.Attribute and type(node.value) is cst.Call and self.resolve(
                node.value.func) is np.finfo and node.attr.value in _FINFO_NUMBERS:
            return True     # (`np.finfo(x.dtype).eps`: a NumPy float)
        if t is cst.Name:
            name = node.value
            if name in seen:
                # (`c = np.where(m, 0, c)`: so if what it held was; every binding of the
                # name is then checked, wherever it is: `_scalar_bindings`)
                self._assumed.add(name)
                return True
            held = self._held(name)
            if not held or not self._scalar_bindings(name, held, seen):
                return False
            if name in self._assumed:
                return self._scalar_bindings(name, self.assigned.get(name, []) + (
                    [_PARAM] if name in self.params else []), seen)
            return True
        return False

    def _scalar_bindings(self, name: str, values, seen) -> bool:
        example = getattr(self.params.get(name), "example", None)
        return all(v is not None and (
            type(example) in _PYTHON_NUMBERS or isinstance(example, np.generic)
            if v is _PARAM else self.scalar_like(v, seen | {name})) for v in values)

    def shared(self, node, seen=frozenset()) -> bool:
        """Whether ``node`` is the same object for every example and not a number: made of
        literals, module-level names, parameters the same for every example that are not
        numbers, their attributes, and calls of classes and of their class methods on such
        values (`_shared_callee`), in every binding that reaches here."""
        t = type(node)
        if t in (cst.Integer, cst.Float, cst.SimpleString):
            return True
        if t is cst.Name:
            if node.value in ("None", "True", "False"):
                return True
            if node.value in seen:
                return False
            held = self._held(node.value)
            if held is None:
                return self.resolve(node) is not None     # (a module-level name)
            for v in held:
                if v is _PARAM:
                    value = self.params.get(node.value)
                    example = getattr(value, "example", None)
                    if value is None or getattr(value, "batched", True) or isinstance(
                            example, (*_PYTHON_NUMBERS, np.generic, np.ndarray)):
                        return False
                elif v is None or not self.shared(v, seen | {node.value}):
                    return False
            return True
        if t is cst.Attribute:
            return self.shared(node.value, seen)
        if t is cst.Call:
            return _shared_callee(self.resolve(node.func)) and all(
                not a.star and self.shared(a.value, seen) for a in node.args)
        return False

    def exact_value(self, node):
        """The value of ``node`` where it is a parameter never rebound that is the same for
        every example and known exactly, or an attribute of one (read as the parameter
        holds it); else `_NOT_KNOWN`."""
        if type(node) is cst.Attribute:
            owner = self.exact_value(node.value)
            if owner is _NOT_KNOWN:
                return owner
            try:
                return getattr(owner, node.attr.value)
            except Exception:   # noqa: BLE001 -- (not known: what it raises is read apart)
                return _NOT_KNOWN
        if type(node) is not cst.Name or node.value not in self.params or \
                self._held(node.value) != [_PARAM]:
            return _NOT_KNOWN
        value = self.params[node.value]
        if getattr(value, "batched", True) or not getattr(value, "exact", False):
            return _NOT_KNOWN
        return value.example

    def sized(self, node) -> bool:
        """Whether ``node`` is a parameter, never rebound, whose every example has a length:
        a row (an array or tensor of at least one dimension per example: a `signature=`
        function's core axis, `vmap` over a matrix), or a list or tuple the same for every
        example."""
        if type(node) is not cst.Name or node.value not in self.params:
            return False
        held = self._held(node.value)
        if held != [_PARAM]:
            return False
        example = getattr(self.params[node.value], "example", None)
        if isinstance(example, (list, tuple)):
            return not getattr(self.params[node.value], "batched", True)
        ndim = getattr(example, "ndim", 0)
        return isinstance(ndim, int) and ndim >= 1 and not isinstance(example, np.generic)

    def surely_float(self, node, seen=frozenset()) -> bool:
        """Whether ``node`` is a float (Python's or NumPy's) on every example: a float
        literal, a true division, arithmetic with a float operand, `float()`, a ufunc whose
        result is a float (`np.sqrt`), a `math` function's float, a float parameter."""
        t = type(node)
        if t is cst.Float:
            return True
        if t is cst.UnaryOperation:
            return self.surely_float(node.expression, seen)
        if t is cst.BinaryOperation:
            return type(node.operator) is cst.Divide or self.surely_float(
                node.left, seen) or self.surely_float(node.right, seen)
        if t is cst.Name:
            if node.value in seen:
                return True     # (`x = f(x)`: its other bindings decide)
            held = self._held(node.value)
            if held is None:
                return isinstance(self.resolve(node), (float, np.floating))
            for v in held:
                if v is _PARAM:
                    value = self.params.get(node.value)
                    example = getattr(value, "example", None)
                    if not isinstance(example, (float, np.floating)):
                        return False
                elif v is None or not self.surely_float(v, seen | {node.value}):
                    return False
            return True
        if t is cst.Attribute:
            return isinstance(self._param_attribute(node), (float, np.floating))
        if t is cst.Call:
            fn = self.resolve(node.func)
            args = [a.value for a in node.args]
            if fn is builtins.float:
                return True
            if getattr(fn, "__module__", None) == "math":
                return getattr(fn, "__name__", "") not in _MATH_INTS
            if isinstance(fn, np.ufunc) and fn.nout == 1:
                ints = "l" * fn.nin + "->"
                out = next((ty[len(ints):] for ty in fn.types if ty.startswith(ints)), None)
                return out in ("d", "e", "f", "g") or any(
                    self.surely_float(a, seen) for a in args)
        return False

    def _param_attribute(self, node):
        """``p.a.b`` of a parameter that holds the same object for every example (never
        rebound), its value; else None."""
        if type(node) is cst.Name:
            value = self.params.get(node.value)
            held = self._held(node.value)
            if held is not None and len(held) == 1 and type(held[0]) is cst.Call:
                return self._made(held[0])
            if value is None or getattr(value, "batched", True) or not getattr(
                    value, "exact", False) or held != [_PARAM]:
                return None
            return value.example
        if type(node) is cst.Attribute:
            owner = self._param_attribute(node.value)
            if owner is None or isinstance(owner, (np.ndarray, np.generic)):
                return None
            try:
                return getattr(owner, node.attr.value, None)
            except Exception:       # noqa: BLE001 -- (a property that raises)
                return None
        return None

    def _made(self, node: cst.Call):
        """The object a class (or its class method) makes of literals (`_shared_callee`:
        `Ellipsoid.from_name("wgs84")`), made once; None where it raises or is other."""
        fn = self.resolve(node.func)
        if not _shared_callee(fn) or any(
                a.star or type(a.value) not in (cst.Integer, cst.Float, cst.SimpleString)
                for a in node.args):
            return None
        args = [a.value.evaluated_value if type(a.value) is cst.SimpleString else
                (int if type(a.value) is cst.Integer else float)(a.value.value)
                for a in node.args]
        made = made_once(self.constructed, fn,
                         *[v for a, v in zip(node.args, args) if a.keyword is None],
                         **{a.keyword.value: v for a, v in zip(node.args, args)
                            if a.keyword is not None})
        return None if made is UNKNOWN else made    # (raised: every example raises)

    def _number_name(self, name: str, seen):
        if name in seen:
            # (`x = radians(x)`: a number if what it held was; what it held first is
            # another of its bindings or the parameter's value, checked there)
            return True
        held = self._held(name)
        if held is None:
            obj = self.resolve(cst.Name(name))
            return True if type(obj) in _PYTHON_NUMBERS or isinstance(obj, np.generic) \
                else None
        kinds = []
        for v in held:
            if v is _PARAM:
                example = getattr(self.params[name], "example", None)
                kinds.append(True if type(example) in _PYTHON_NUMBERS or isinstance(
                    example, np.generic) else None)
            else:
                kinds.append(None if v is None else self.number(v, seen | {name}))
        return _all_true(kinds)

    def _name(self, name: str, seen):
        if name in seen:
            return _CYCLE
        held = self._held(name)
        if held is None:
            obj = self.resolve(cst.Name(name))
            if type(obj) in _PYTHON_NUMBERS:
                return True
            if isinstance(obj, np.generic):
                return False
            return None
        if self.flow is None and _PARAM in held and len(held) > 1:
            return None         # a parameter rebound: both kinds
        kinds = [self._param_kind(name) if v is _PARAM else
                 None if v is None else self.python_valued(v, seen | {name}) for v in held]
        # (a binding that reads the name itself, ``power = power - 1``, makes what the other
        # bindings make: the kind that holds for all of them at once, where they agree)
        kinds = [k for k in kinds if k is not _CYCLE]
        return kinds[0] if kinds and all(k is kinds[0] for k in kinds) else None

    def float_param(self, name: str) -> bool:
        """Whether ``name`` holds only its parameter's value (never rebound before or in the
        `try`), a mapped NumPy float or complex per example: a power of it never raises."""
        if self._held(name) != [_PARAM] or name in self.python_params:
            return False
        value = self.params.get(name)
        example = getattr(value, "example", None)
        return bool(getattr(value, "batched", False)) and isinstance(
            example, (np.floating, np.complexfloating, np.ndarray)) and np.asarray(
                example).dtype.kind in "fc"

    def _param_kind(self, name: str):
        value = self.params[name]
        if name in self.python_params:
            return True
        example = getattr(value, "example", None)
        if getattr(value, "batched", False):
            return False        # mapped: NumPy scalars or rows (tensors) per example
        return True if type(example) in _PYTHON_NUMBERS else (
            False if isinstance(example, (np.generic, np.ndarray)) else None)

    def _call(self, node, seen):
        fn = self.resolve(node.func)
        fn = forwarded_target(fn) or fn     # (a lazy-import wrapper is its target)
        args = [a.value for a in node.args]
        if python_errors.quiet_scipy_special(fn, len(args)):
            return False        # (NumPy values: what its ufunc returns)
        if fn in (builtins.float, builtins.int, builtins.complex, builtins.bool, builtins.len):
            return True
        if fn is builtins.round:
            return True if len(args) == 1 else (
                self.python_valued(args[0], seen) if args else None)
        if getattr(fn, "__module__", None) == "math":
            return True
        if fn in (builtins.abs, builtins.min, builtins.max, builtins.pow):
            return _combined([self.python_valued(a, seen) for a in args])
        if isinstance(fn, np.ufunc) or (getattr(fn, "__module__", None) or "").startswith(
                "numpy"):
            return False
        if isinstance(fn, types.FunctionType) and self.depth < _HELPER_DEPTH and not any(
                a.star for a in node.args):
            return self._helper_kind(fn, node, seen)
        return None

    def _helper_kind(self, fn, node, seen):
        """What a helper of yours returns: the kind all its ``return`` values have, its
        parameters of the kinds of the call's arguments."""
        try:
            source = read_function(fn)
            bound = inspect.signature(fn, follow_wrapped=False).bind(
                *[a.value for a in node.args if a.keyword is None],
                **{a.keyword.value: a.value for a in node.args if a.keyword is not None})
        except (Unsupported, TypeError, ValueError):
            return None
        kinds = {name: self.python_valued(arg, seen) for name, arg in bound.arguments.items()}
        kinds = {name: None if kind is _CYCLE else kind for name, kind in kinds.items()}
        for name, param in inspect.signature(fn, follow_wrapped=False).parameters.items():
            if name not in kinds:
                kinds[name] = True if type(param.default) in _PYTHON_NUMBERS else None
        inner = _HelperValued(source.tree, kinds, fn.__globals__, self.depth + 1)
        inner.constructed = self.constructed
        returns = [n.value for n in walk(source.tree.body) if type(n) is cst.Return]
        if not returns or any(r is None for r in returns):
            return None
        found = [inner.python_valued(r) for r in returns]
        return found[0] if found[0] is not _CYCLE and all(k is found[0] for k in found) \
            else None


_FINFO_NUMBERS = frozenset({"eps", "epsneg", "max", "min", "tiny", "smallest_normal",
                            "resolution"})


class _NoFlow:
    def snapshot(self):
        return None

    def restore(self, flow) -> None:
        pass

    def bound(self, stmt, strong=True) -> None:
        pass


def _bindings_before(stmts, target, into: dict, numbers) -> bool:
    """Add to ``into`` what the statements before ``target`` bind (in source order,
    descending into the compound statement that holds it); False where ``target`` is in a
    loop (a later statement's binding reaches it on the next step) or not found."""
    for stmt in stmts:
        if stmt is target:
            return True
        if any(n is target for n in walk(stmt)):
            if type(stmt) in (cst.For, cst.While):
                return False
            blocks = [getattr(stmt, "body", None), getattr(stmt, "orelse", None),
                      getattr(stmt, "finalbody", None)] + list(getattr(stmt, "handlers", ()))
            for block in blocks:
                while block is not None and not isinstance(block, cst.IndentedBlock):
                    block = getattr(block, "body", None)
                if block is not None and any(n is target for n in walk(block)):
                    return _bindings_before(block.body, target, into, numbers)
            return False
        if type(stmt) is cst.If and not any(n is target for n in walk(stmt)):
            taken = _static_test(stmt.test, numbers.params)
            branch = stmt.body if taken is True else stmt.orelse.body if type(
                stmt.orelse) is cst.Else else None
            if taken is True or taken is False and type(stmt.orelse) is not cst.If:
                # (a test of parameters the same for every example, `if ell is None:`: the
                # branch every example takes, in order)
                if isinstance(branch, cst.IndentedBlock):
                    _bindings_before(list(branch.body), target, into, numbers)
                elif branch is not None:
                    taken = None
                if taken is not None:
                    continue
        dead = _untaken_handlers(stmt, numbers, into) if type(stmt) is cst.Try else set()
        if dead and stmt.orelse is None and stmt.finalbody is None and all(
                id(h) in dead for h in stmt.handlers):
            # (no example takes a handler: the body runs to its end, in order)
            _bindings_before(list(stmt.body.body), target, into, numbers)
            continue
        found: dict[str, list] = {}
        numbers._collect([n for n in walk(stmt) if id(n) not in dead], found)
        for name, values in found.items():
            if type(stmt) is cst.SimpleStatementLine:
                into[name] = values
            else:
                into[name] = into.get(name, []) + values
    return False


def _untaken_handlers(stmt: cst.Try, numbers, before: dict) -> set:
    """The ids of the nodes of ``stmt``'s handlers that only catch NameError where every
    name its body reads is bound (a parameter, a local name bound before it or in its body,
    a module-level or builtin name): no example takes them (`except NameError:` around
    NumPy's names)."""
    local = set(before) | set(numbers.params)
    for line in stmt.body.body:
        for name in reads(line):
            if name not in local and (name in numbers.assigned or numbers.resolve(
                    cst.Name(name)) is None):
                return set()    # (a local not bound yet: UnboundLocalError, a NameError)
        local |= set(writes(line))
    dead = set()
    for handler in stmt.handlers:
        if handler.type is not None and numbers.resolve(handler.type) is NameError:
            dead.update(id(n) for n in walk(handler))
    return dead


class _HelperValued(_PythonValued):
    """`_PythonValued` of a helper's body, its parameters of the given kinds."""

    def __init__(self, func, kinds: dict, func_globals: dict, depth: int):
        self.kinds = kinds
        self.helper_globals = func_globals
        super().__init__(func, dict.fromkeys(kinds), frozenset(), self._resolve)
        self.depth = depth

    def _resolve(self, node):
        if type(node) is cst.Name:
            if node.value in self.helper_globals:
                return self.helper_globals[node.value]
            return getattr(builtins, node.value, None)
        if type(node) is cst.Attribute:
            owner = self._resolve(node.value)
            return getattr(owner, node.attr.value, None) if owner is not None else None
        return None

    def _param_kind(self, name: str):
        return self.kinds.get(name)


def _shared_callee(fn) -> bool:
    """A class (not a number's) or a class method: its call on values the same for every
    example makes the same object for every example, or raises on every example."""
    if isinstance(fn, type):
        return not issubclass(fn, (*_PYTHON_NUMBERS, np.generic, np.ndarray))
    return inspect.ismethod(fn) and isinstance(fn.__self__, type) and not issubclass(
        fn.__self__, (*_PYTHON_NUMBERS, np.generic, np.ndarray))


def _all_true(kinds: list):
    return True if kinds and all(k is True for k in kinds) else None


def _combined(kinds: list):
    """Arithmetic of operands of these kinds: a NumPy operand makes a NumPy result. A name
    read inside its own binding (`_CYCLE`, ``power -= 1``) adds nothing: it holds what its
    other bindings make."""
    kinds = [k for k in kinds if k is not _CYCLE]
    if not kinds:
        return _CYCLE
    if any(k is False for k in kinds):
        return False
    if all(k is True for k in kinds):
        return True
    return None


def _binary(augmented):
    from ..syntax.edit import AUGMENTED_TO_BINARY
    return AUGMENTED_TO_BINARY[type(augmented)]()


def transform(func: cst.FunctionDef, ctx) -> cst.FunctionDef:
    if cst.Try not in by_type(func.body) and cst.With not in by_type(func.body):
        return func
    # (the helpers the body defines, hoisted when it was read, and its imports are names
    # of the body: what they raise is read from their own bodies, `helper_raises`)
    lowering = _TryLowering(collections.ChainMap(ctx.source.local_imports,
                                                 ctx.source.func.__globals__), ctx.namer)
    if getattr(ctx.module, "python_semantics", False):
        # `vectorize`: its examples are Python numbers, but an item of an array the function
        # made (`np.zeros(2)[0]`) or a NumPy function's result is a NumPy scalar, which
        # divides by zero with a warning and an inf or nan rather than raising
        lowering.numbers = _PythonValued(func, ctx.params, _python_params(ctx),
                                         lowering.resolve)
        lowering.numbers.constructed = ctx.module.constructed
        lowering.python_examples = True
        # (numpy.vectorize learns its output types from a first call on NumPy scalars,
        # which have the attributes and items that Python numbers lack: what a Python
        # number's type decides there is not decided here)
        lowering.certain = False
    else:
        if not getattr(ctx.module, "runtime_replays", False) and (
                getattr(ctx.module, "standalone", False) or
                not getattr(ctx.registry.backend, "statement_replays", True)):
            return func     # the analysis refuses `try` where it is written (a file's)
        # (`vmap` on JAX: its traced code raises nothing per lane, but the tests of what
        # raises are `raise` statements, whose checks replay the loop, as NumPy's raises)
        # `vmap` on NumPy or PyTorch: what raises on NumPy scalars (tensors) per example
        lowering.numbers = _PythonValued(func, ctx.params, getattr(ctx, "python_params",
                                                                   frozenset()),
                                         lowering.resolve)
        lowering.numbers.constructed = ctx.module.constructed
    # (a rewritten file runs no per-example loop where its code raises: there a handler's
    # `raise` made from the exception it caught keeps its refusal)
    lowering.replayed = not getattr(ctx.module, "standalone", False)
    lowering.float_warnings = bool(getattr(ctx.module, "python_semantics", False)) or \
        bool(getattr(ctx.registry.backend, "float_warnings", False))
    lowering.eager = lowering.replayed and (
        bool(getattr(ctx.module, "python_semantics", False)) or
        bool(getattr(ctx.module, "runtime_replays", False)))
    lowering.static_types = lowering.numbers.static_types = not getattr(
        ctx.registry.backend, "item_views", False)
    lowering.function = func
    lowering.dicts = {name for node in walk(func.body) if type(node) is cst.Assign
                      and type(node.value) in (cst.Dict, cst.DictComp)
                      for t in node.targets if type(t.target) is cst.Name
                      for name in [t.target.value]}
    out = rewrite(func, lowering)
    if lowering.warnings_as_errors and getattr(ctx.module, "python_semantics", False):
        # numpy.vectorize's first call, on NumPy scalars, warns (and so raises) where
        # arithmetic of the Python numbers every example gets does not: the output types
        # are learned from that call, and where it raises the loop gives the answer
        ctx.module.first_call_differs = True
    if lowering.deferred:
        lowering.reached(list(out.body.body), ctx.params)
    return out


def _blocks(stmt) -> list:
    """The statement lists of a compound statement (its body, handlers, ``else``,
    ``finally``, a ``match``'s cases)."""
    def lines(block):
        return list(block.body) if isinstance(block, cst.IndentedBlock) else [block]
    out = [lines(stmt.body)] if isinstance(getattr(stmt, "body", None), cst.BaseSuite) \
        else []
    for part in (getattr(stmt, "orelse", None), getattr(stmt, "finalbody", None)):
        if isinstance(part, (cst.Else, cst.Finally)):
            out.append(lines(part.body))
    for inner in [*(getattr(stmt, "handlers", None) or ()),
                  *(getattr(stmt, "cases", None) or ())]:
        out.append(lines(inner.body))
    return out


def _static_test(test, params: dict):
    """The truth of an ``if`` test made only of parameters that are the same for every
    example and known exactly (``tol`` passed None), literals, comparisons and ``and``/
    ``or``/``not``; None where it is anything else (or evaluating it fails)."""
    allowed = (cst.Name, cst.Integer, cst.Float, cst.SimpleString, cst.Comparison,
               cst.BooleanOperation, cst.UnaryOperation)
    values = {}
    for n in walk(test):
        if isinstance(n, cst.BaseExpression) and not isinstance(n, allowed):
            return None
        if type(n) is cst.Name:
            if n.value in ("None", "True", "False"):
                continue
            value = params.get(n.value)
            if value is None or getattr(value, "batched", True) or not getattr(
                    value, "exact", False) or type(value.example) not in (
                    type(None), bool, int, float, str):
                return None
            values[n.value] = value.example
    try:
        return bool(eval(cst.Module([]).code_for_node(test), {"__builtins__": {}},  # noqa: S307
                         values))
    except Exception:   # noqa: BLE001 -- (the test decides nothing statically)
        return None


def _python_params(ctx) -> frozenset:
    """`vectorize`: the parameters that are Python numbers per example: all but a NumPy
    scalar argument, which numpy.vectorize hands to every example as it is (`np.int64(5) %
    0` is 0 with NumPy's warning: no ZeroDivisionError for a handler)."""
    numbers = {id(v) for v in getattr(ctx.module.python_semantics, "numbers", ())}
    return frozenset(name for name, value in ctx.params.items() if id(value) in numbers or not (
        not getattr(value, "batched", True) and isinstance(getattr(value, "example", None),
                                                            np.generic)))
