"""In code nothing replays (the file rewriter's), an ``and``/``or`` or conditional expression
on per-example values whose lazy operand may raise becomes statements.

Assumes: scalar-style code after `early_return` and `python_conditions` (an ``and``/``or``
whose left side is the same for every example is a conditional expression already); the
current analysis (which tests are batched, which calls are of helpers that may raise:
`FunctionJob.unreplayed_raising_call`); a specialization for the file rewriter
(``ctx.module.standalone``: elsewhere the pass changes nothing, since `vectorize` and `vmap`
replay the per-example loop where the batched code raises).
Reads: `records.MaskedLoopFacts` (the masks of masked loops: an ``if`` testing one is the
loop's guard, so a lowered ``and``/``or`` never tests a mask's name). Writes: no record.
Guarantees: an ``and``/``or`` or conditional expression whose test (left side) differs per
example and whose lazy operands (the right side, the branches) hold a call of a helper that
may raise, or an operand that raises where it runs (a per-example item of a list or dict, a
call of the user's) with an operation Python checks after it, is computed by an ``if``
before the statement, into a fresh name (the assigned name where it is the whole value):

    t = h(y) if x > 0 else 1.0 / x          if x > 0:
                                      ->        t = h(y)
                                            else:
                                                t = 1.0 / x

    return T[k] + (c and g(x) or 0.0)       t_item = T[k]
                                            value = c
                                      ->    if value:
                                                value = g(x)
                                            if not value:
                                                value = 0.0
                                            return t_item + value

The operands Python evaluates before it in the statement (``T[k]``) are computed first, into
fresh names, in their order (names and literals stay where they are: they cannot raise). Each
branch is then a statement of its own: `python_raises` writes its checks under the ``if``'s
condition, and `compact_ifs` runs a helper that may raise on its branch's lanes only, so each
example raises what Python raises for it, and only where Python does. A name bound on some
paths only that the statement reads keeps its check (``if not u_bound: raise
UnboundLocalError``) where Python first reads it: before the statements made for what comes
after the read, else just before the statement. (An ``and``/``or`` of a bool and a number
holds the bool on some lanes, the number on others: the name the ``if`` assigns joins them as
the expression's batched form does, ``np.where(c, v, c)``.) Not lowered (left to the passes
after, which refuse what they cannot keep in order): the test of a ``while`` statement
(masked loops evaluate theirs in assignments, which are lowered), a statement with a walrus,
several statements on one line, code inside a lambda or comprehension.
"""

from __future__ import annotations

import builtins

import libcst as cst

from ..liveness import reads
from ..syntax.traversal import walk
from .python_raises import unbound_check, user_function
from .records import MaskedLoopFacts

_LAZY = (cst.BooleanOperation, cst.IfExp)
_OPAQUE = (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp,
           cst.FormattedString)
_CHECKED_OPERATORS = (cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power, cst.LeftShift)
_INT_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply)
_CHECKED_BUILTINS = (builtins.int, builtins.float, builtins.round, builtins.pow,
                     builtins.divmod, builtins.abs, builtins.max, builtins.min)


def _in_order(node) -> list:
    """The subexpressions of ``node`` Python evaluates every time it evaluates ``node``, in
    that order (none of a lazy or opaque node's: `_Lowering.lower` handles those)."""
    t = type(node)
    if t is cst.BinaryOperation:
        return [node.left, node.right]
    if t is cst.UnaryOperation:
        return [node.expression]
    if t is cst.Comparison:
        return [node.left] + ([node.comparisons[0].comparator]
                              if len(node.comparisons) == 1 else [])
    if t is cst.Call:
        return [node.func] + [a.value for a in node.args]
    if t is cst.Subscript:
        if len(node.slice) == 1 and type(node.slice[0].slice) is cst.Index:
            return [node.value, node.slice[0].slice.value]
        return [node.value]
    if t is cst.Attribute:
        return [node.value]
    if t in (cst.Tuple, cst.List, cst.Set):
        return [e.value for e in node.elements]
    return []


def _safe(node) -> bool:
    """Cannot raise nor change anything where it is evaluated: may stay after statements
    made before it."""
    t = type(node)
    if t in (cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString):
        return True
    if t is cst.UnaryOperation and type(node.operator) in (cst.Minus, cst.Plus):
        return type(node.expression) in (cst.Integer, cst.Float, cst.Imaginary)
    return t is cst.Attribute and type(node.value) is cst.Name


def _plain_target(stmt) -> str | None:
    if type(stmt) is cst.Assign and len(stmt.targets) == 1 and \
            type(stmt.targets[0].target) is cst.Name:
        return stmt.targets[0].target.value
    if type(stmt) is cst.AnnAssign and type(stmt.target) is cst.Name:
        return stmt.target.value
    return None


class _Replace(cst.CSTTransformer):
    def __init__(self, done: dict):
        self.done = done

    def on_leave(self, original_node, updated_node):
        name = self.done.get(id(original_node))
        if name is not None:
            return cst.Name(name)
        return updated_node


class _Lowering:
    def __init__(self, ctx, analysis):
        self.ctx = ctx
        self.analysis = analysis
        self.unreplayed = getattr(ctx, "unreplayed_raising_call", lambda node: False)
        self.done: dict[int, str] = {}      # ids of lowered or hoisted nodes -> their names
        self.changed = False
        self.masks = MaskedLoopFacts.get(ctx).masks
        # (a name bound on some paths, and the check before the statement being lowered
        # that it is bound: `block`)
        self.unbound = None
        # the statement's value where it is an `and`/`or`/conditional expression, and the
        # name it assigns that to (the lowered `if` assigns it itself)
        self.whole = None
        self.target: str | None = None

    # ------------------------------------------------------------------ what to lower
    def _value(self, node):
        return self.analysis.values.get(node)

    def _batched(self, node) -> bool:
        return getattr(self._value(node), "batched", True)

    def _kind(self, node) -> str:
        return getattr(self._value(node), "kind", "?")

    def _example(self, node):
        return getattr(self._value(node), "example", None)

    def _walk(self, node):
        """``node`` and what it holds, outside lambdas and comprehensions, operands before
        the operation (post-order: Python's evaluation order, lazy parts included)."""
        if isinstance(node, _OPAQUE):
            return
        for child in _children(node):
            yield from self._walk(child)
        yield node

    def _raiser(self, node) -> bool:
        """Raises where it runs (no check before the statement stands for it): an item at a
        per-example index or key, a call of a function of the user's."""
        t = type(node)
        if t is cst.Subscript:
            if len(node.slice) != 1 or type(node.slice[0].slice) is not cst.Index:
                return False
            return self._batched(node.slice[0].slice.value) and isinstance(
                self._example(node.value), (dict, list, tuple))
        if t is cst.Call:
            return user_function(self._example(node.func))
        return False

    def _checked(self, node) -> bool:
        """May get a check of Python's errors before the statement (`python_raises`)."""
        t = type(node)
        if t is cst.BinaryOperation:
            op = type(node.operator)
            return op in _CHECKED_OPERATORS or op in _INT_OPERATORS and self._kind(node) in "iu?"
        if t is cst.UnaryOperation:
            return type(node.operator) in (cst.Minus, cst.BitInvert) and \
                self._kind(node) in "iu?"
        if t is cst.Call:
            fn = self._example(node.func)
            return getattr(fn, "__module__", None) == "math" or \
                any(fn is b for b in _CHECKED_BUILTINS)
        return False

    def needs(self, node) -> bool:
        """Whether the ``and``/``or``/conditional expression ``node`` must become
        statements: its test differs per example and its lazy operands hold a call of a
        helper that may raise, or an operand that raises where it runs with a checked
        operation after it."""
        test = node.test if type(node) is cst.IfExp else node.left
        if not self._batched(test):
            return False
        lazy = [node.body, node.orelse] if type(node) is cst.IfExp else [node.right]
        inside = [n for part in lazy for n in self._walk(part)]
        if any(type(n) is cst.Call and self.unreplayed(n) for n in inside):
            return True
        lazy_ids = set(map(id, inside))
        raisers = []
        for n in self._walk(node):     # (post-order: a raiser's operands come before it)
            if raisers and self._checked(n) and (
                    id(n) in lazy_ids or any(id(r) in lazy_ids for r in raisers)):
                return True
            if self._raiser(n):
                raisers.append(n)
        return False

    # ------------------------------------------------------------------ lowering
    def fresh(self, base: str) -> str:
        name = self.ctx.namer.fresh(base)
        # (not one `simplify` may substitute back into a later statement: it would be
        # computed after what Python computes after it)
        self.ctx.namer.generated.discard(name)
        return name

    def apply(self, node):
        return node.visit(_Replace(self.done)) if self.done else node

    def lower(self, node) -> list:
        """The statements to run before ``node`` (lowered ``and``/``or``/conditional
        expressions inside it, and the operands Python evaluates before them); ``done``
        then says which parts of ``node`` are read from names."""
        t = type(node)
        if isinstance(node, _OPAQUE):
            return []
        if t in _LAZY and self.needs(node):
            return self.lazy(node)
        if t is cst.IfExp:
            return self.seq([node.test])
        if t is cst.BooleanOperation:
            return self.seq([node.left])
        return self.seq(_in_order(node))

    def seq(self, operands: list) -> list:
        """Operands evaluated in this order: each one before the last that makes statements
        is computed first, into a fresh name (unless it cannot raise)."""
        parts = [self.lower(op) for op in operands]
        last = max((i for i, p in enumerate(parts) if p), default=-1)
        out: list = []
        for i, op in enumerate(operands):
            out += parts[i]
            if i < last and self.unbound is not None and type(op) is cst.Name and \
                    op.value == self.unbound[0]:
                # (Python reads the name here, before what the statements after compute)
                out.append(self.unbound[1])
                self.unbound = None
            if i < last and id(op) not in self.done and not _safe(op):
                name = self.fresh(_name_for(op))
                out.append(_assign(name, _bare(self.apply(op))))
                self.done[id(op)] = name
        return out

    def lazy(self, node) -> list:
        self.changed = True
        target = self.target if node is self.whole else None
        name = target if target is not None and target not in reads(node) and \
            target not in self.masks else self.fresh("value")
        if type(node) is cst.IfExp:
            out = self.lower(node.test)
            test = _bare(self.apply(node.test))
            body = self.branch(node.body, name)
            orelse = self.branch(node.orelse, name)
            out.append(cst.If(test=test, body=cst.IndentedBlock(body), orelse=orelse[0] if len(
                orelse) == 1 and type(orelse[0]) is cst.If else cst.Else(
                    cst.IndentedBlock(orelse))))
        else:
            out = self.lower(node.left)
            out.append(_assign(name, _bare(self.apply(node.left))))
            test = cst.Name(name)
            if type(node.operator) is cst.Or:
                test = cst.UnaryOperation(cst.Not(), test)
            body = self.branch(node.right, name)
            out.append(cst.If(test=test, body=cst.IndentedBlock(body)))
        self.done[id(node)] = name
        return out

    def branch(self, node, name: str) -> list:
        """The statements assigning ``node`` to ``name`` (a lowered ``and``/``or``/conditional
        expression that is all of it assigns ``name`` itself)."""
        outer = self.whole, self.target
        self.whole, self.target = node, name
        try:
            out = self.lower(node)
        finally:
            self.whole, self.target = outer
        if self.done.get(id(node)) == name:
            return out
        return out + [_assign(name, _bare(self.apply(node)))]

    # ------------------------------------------------------------------ statements
    def block(self, stmts) -> list:
        out, at = [], 0
        while at < len(stmts):
            stmt = stmts[at]
            name = unbound_check(stmt)
            if name is not None and at + 1 < len(stmts) and name in reads(stmts[at + 1]):
                # the check that the next statement reads a name bound on some paths only
                # (`body_sugar.check_unbound`) goes where that statement first reads it
                self.unbound = (name, stmt)
                out += self.placed(self.statement(stmts[at + 1]), stmts[at + 1])
                at += 2
                continue
            out += self.statement(stmt)
            at += 1
        return out

    def placed(self, new: list, stmt) -> list:
        """``new`` (what ``stmt`` became) with the pending check of an unbound name before
        the first statement that reads the name (before ``stmt`` where that is the last)."""
        if self.unbound is None:
            return new
        name, check = self.unbound
        self.unbound = None
        at = next((i for i, s in enumerate(new) if name in reads(s)), len(new) - 1)
        if at == 0:
            return [check] + new
        return new[:at] + [check] + new[at:]

    def statement(self, stmt) -> list:
        t = type(stmt)
        if t is cst.If:
            pre = self.head(stmt, stmt.test)
            new = stmt.with_changes(
                test=self.apply(stmt.test) if pre else stmt.test,
                body=stmt.body.with_changes(body=self.block(stmt.body.body)),
                orelse=self.orelse(stmt.orelse))
            return pre + [new] if pre else [new]
        if t in (cst.For, cst.While):
            return [stmt.with_changes(
                body=stmt.body.with_changes(body=self.block(stmt.body.body)),
                orelse=self.orelse(stmt.orelse))]
        if t is not cst.SimpleStatementLine or len(stmt.body) != 1:
            return [stmt]
        small = stmt.body[0]
        value = getattr(small, "value", None)
        if type(small) not in (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Return,
                               cst.Expr) or value is None:
            return [stmt]
        target = _plain_target(small)
        whole = type(value) in _LAZY
        self.whole, self.target = (value, target) if whole else (None, None)
        pre = self.head(stmt, value)
        self.whole = self.target = None
        if not pre:
            return [stmt]
        if whole and target is not None and self.done.get(id(value)) == target:
            # (the lowered `if` assigns the name itself)
            pre[0] = pre[0].with_changes(leading_lines=stmt.leading_lines)
            return pre
        pre[0] = pre[0].with_changes(leading_lines=stmt.leading_lines)
        new = small.with_changes(value=self.apply(value))
        return pre + [stmt.with_changes(body=[new], leading_lines=())]

    def head(self, stmt, expr) -> list:
        if any(type(n) is cst.NamedExpr for n in walk(expr)):
            return []
        return self.lower(expr)

    def orelse(self, orelse):
        if orelse is None:
            return None
        if type(orelse) is cst.If:
            new = self.statement(orelse)
            if len(new) == 1:
                return new[0]
            return cst.Else(cst.IndentedBlock(new))
        return orelse.with_changes(body=orelse.body.with_changes(
            body=self.block(orelse.body.body)))


def _children(node) -> list:
    t = type(node)
    if t is cst.IfExp:
        return [node.test, node.body, node.orelse]
    if t is cst.BooleanOperation:
        return [node.left, node.right]
    if t is cst.Comparison:
        return [node.left] + [c.comparator for c in node.comparisons]
    return _in_order(node)


def _bare(node):
    """Without the parentheses it had as an operand."""
    if getattr(node, "lpar", None) and type(node) is not cst.Tuple:
        return node.with_changes(lpar=[], rpar=[])
    return node


def _assign(name: str, value) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], value)])


def _name_for(node) -> str:
    if type(node) is cst.Call:
        func = node.func
        base = func.value if type(func) is cst.Name else func.attr.value if type(
            func) is cst.Attribute else "call"
        return f"{base}_value"
    if type(node) is cst.Subscript:
        value = node.value
        base = value.value if type(value) is cst.Name else "item"
        return f"{base.lower()}_item"
    return "value"


def transform(func: cst.FunctionDef, ctx) -> cst.FunctionDef:
    if not getattr(ctx.module, "standalone", False):
        return func
    if not any(type(n) in _LAZY for n in walk(func.body)):
        return func
    lowering = _Lowering(ctx, ctx.analyze(func))
    body = lowering.block(func.body.body)
    if not lowering.changed:
        return func
    return func.with_changes(body=func.body.with_changes(body=body))
