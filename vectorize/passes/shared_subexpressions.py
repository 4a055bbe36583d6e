"""A per-example subexpression computed more than once in a row of statements gets a name.

Assumes: scalar-style code, after `simplify`. An expression first met as the whole value of an
assignment (``tmp = t * b``) is left alone: `simplify` already reused that variable.
Reads and writes no record (`records`).
Guarantees: the same per-example meaning; fewer array operations. An expression is shared
only where every lane evaluates every occurrence anyway: in statements of the same block, at
eager positions (not the arms of a conditional expression or the right operand of
``and``/``or`` that stay Python, not inside lambdas or comprehensions; the test of a check,
``if <test>: raise ...``, is one), between which nothing it reads is reassigned. Only
per-example operators and calls of functions with a batching rule count (nothing with a side
effect), and nothing that holds an `np.arange` of per-example length (its reduction must see
it to mask it). The name says what it holds (``zr_sq`` for
``zr * zr``) and the assignment goes right before the first statement that needs it.

    active = active and zr * zr + zi * zi <= 4.0        zr_sq = zr * zr
    if not __any_lane__(active):                        zi_sq = zi * zi
        break                                      ->   active = active and zr_sq + zi_sq <= 4.0
    zr = zr * zr - zi * zi + cr                         ...
                                                        zr = zr_sq - zi_sq + cr
"""

from __future__ import annotations

import dataclasses

import libcst as cst

from ..liveness import changes, reads
from ..syntax.edit import unparenthesized, with_body
from ..syntax.traversal import CHILD_FIELDS, IS_NODE, PerClass, children, rewrite, walk
from .simplify import IMPURE_TYPES

_SHAREABLE = (cst.BinaryOperation, cst.UnaryOperation, cst.Call)
_LIMIT = 16      # rounds of extraction per block (each names one expression)


class _Keys:
    """A number per expression, equal for equal code (parentheses and spacing aside), made
    bottom-up from the children's numbers: each node is looked at once, where rendering each
    subexpression would print a chain of a thousand `+` a thousand times."""

    def __init__(self):
        self._numbers: dict[tuple, int] = {}
        self._memo: dict[int, tuple] = {}      # id(node) -> (node, number)

    def __call__(self, root) -> int:
        return _bottom_up(root, self._memo, self._number)

    def _number(self, node) -> int:
        memo, kind = self._memo, type(node)
        parts: list = [kind, type(getattr(node, "operator", None)), getattr(node, "star", None)]
        parts += [getattr(node, field) for field in _TEXT_FIELDS[kind]]
        for field in CHILD_FIELDS[kind]:
            value = getattr(node, field)
            if type(value) in (tuple, list):
                parts.append(tuple(memo[id(v)][1] for v in value if IS_NODE[type(v)]))
            else:
                parts.append(memo[id(value)][1] if IS_NODE[type(value)] else None)
        return self._numbers.setdefault(tuple(parts), len(self._numbers))


def _bottom_up(root, memo: dict, value):
    """``value(root)``, where ``value(node)`` reads its children's values from ``memo`` (id(node)
    -> (node, its value), kept between calls): computed children first, each node once,
    without recursion (a chain of a thousand `+` is a thousand deep)."""
    hit = memo.get(id(root))
    if hit is not None and hit[0] is root:
        return hit[1]
    stack = [(root, False)]
    while stack:
        node, ready = stack.pop()
        hit = memo.get(id(node))
        if hit is not None and hit[0] is node:
            continue
        if not ready:
            stack.append((node, True))
            stack += [(child, False) for child in children(node)]
            continue
        memo[id(node)] = (node, value(node))
    return memo[id(root)][1]


# node class -> its fields that hold text of the code (`Name.value`, `Float.value`)
_TEXT_FIELDS = PerClass(lambda cls: tuple(f.name for f in dataclasses.fields(cls)
                                           if f.type is str))


class _Occurrences:
    """The shareable subexpressions of one statement, at eager positions."""

    def __init__(self, analysis, registry):
        self.analysis, self.registry = analysis, registry
        self.origin: dict = {}    # a node rebuilt by an extraction -> the analysed one
        self._pure: dict[int, tuple] = {}    # id(node) -> (node, `simplify._pure` of it)

    def pure(self, root) -> bool:
        """`simplify._pure`, bottom-up and remembered: `_collect` asks it of every
        subexpression, and walking each one's whole tree would take the square of its size."""
        memo = self._pure
        ragged = getattr(self.analysis, "ragged", ())

        def pure(node) -> bool:
            kind = type(node)
            if kind is cst.Call:
                fn = getattr(self.analysis.values.get(node.func), "example", None)
                # an `np.arange` with per-example bounds stays where it is: only a reduction
                # written around it (through lane-by-lane operations) can be masked, and a
                # name for it would hide it from that reduction
                own = (fn is not None and self.registry.for_call(fn) is not None
                       and self.origin.get(node, node) not in ragged)
            else:
                own = kind not in IMPURE_TYPES
            return own and all(memo[id(c)][1] for c in children(node))
        return _bottom_up(root, memo, pure)

    def batched(self, node) -> bool:
        node = self.origin.get(node, node)
        return bool(getattr(self.analysis.values.get(node), "batched", False))

    def of(self, stmt) -> list:
        """[(node, whether it is the whole value of an assignment)]"""
        found: list = []
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
                    if small.value is not None:
                        self._collect(small.value, found, top=type(small) is cst.Assign)
                elif isinstance(small, (cst.Expr, cst.Return)) and small.value is not None:
                    self._collect(small.value, found, top=False)
        elif _is_check(stmt):
            self._collect(stmt.test, found, top=False)
        return found

    def _collect(self, node, found: list, top: bool) -> None:
        kind = type(node)
        if kind in (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp,
                    cst.NamedExpr):
            return
        if kind is cst.IfExp and not self.batched(node.test):
            self._collect(node.test, found, False)       # the arms stay lazy
            return
        if kind is cst.BooleanOperation and not self.batched(node):
            self._collect(node.left, found, False)
            return
        if (kind in _SHAREABLE and self.batched(node)
                and not _literal(node) and not _conversion_of_name(node)
                and self.pure(node)):
            found.append((node, top))
        for child in children(node):
            self._collect(child, found, False)


def _is_check(stmt) -> bool:
    """``if <test>: raise ...`` (a check `python_raises` wrote, or the user's): its test is
    evaluated whenever the statement is reached, and its body assigns nothing, so an
    expression it shares with the statements after (a divisor: ``(math.sin(x) + c) == 0``,
    then ``f / (math.sin(x) + c)``) can be computed once before it."""
    if type(stmt) is not cst.If or stmt.orelse is not None:
        return False
    body = stmt.body.body
    return len(body) == 1 and type(body[0]) is cst.SimpleStatementLine and \
        len(body[0].body) == 1 and type(body[0].body[0]) is cst.Raise


def _conversion_of_name(node) -> bool:
    """``float(x)``, ``int(n)``: of a float64 (an int64) it is the name itself once batched,
    otherwise one ``astype``: a name for it would only rename ``x`` (``shared = x``)."""
    return (type(node) is cst.Call and type(node.func) is cst.Name
            and node.func.value in ("float", "int", "complex", "bool")
            and len(node.args) == 1 and type(node.args[0].value) is cst.Name)


def _literal(node) -> bool:
    return type(node) is cst.UnaryOperation and type(node.expression) in (cst.Integer,
                                                                          cst.Float)


def _name_for(node) -> str:
    """``zr * zr`` and ``zr ** 2``: ``zr_sq``; ``a * b``: ``a_b``; otherwise ``shared``."""
    if type(node) is cst.BinaryOperation and type(node.left) is cst.Name:
        left, right = node.left.value, node.right
        if (type(node.operator) is cst.Multiply and type(right) is cst.Name
                and right.value == left) or (type(node.operator) is cst.Power
                                             and type(right) is cst.Integer
                                             and right.value == "2"):
            return f"{left}_sq"
        if type(node.operator) is cst.Multiply and type(right) is cst.Name:
            return f"{left}_{right.value}"
    return "shared"


class _Use(cst.CSTTransformer):
    def __init__(self, key: int, name: str, origin: dict, keys: _Keys):
        self.key, self.name, self.origin, self.keys = key, name, origin, keys

    def on_leave(self, original_node, updated_node):
        if type(original_node) in _SHAREABLE and self.keys(original_node) == self.key:
            return cst.Name(self.name)      # (a name needs no parentheses)
        if updated_node is not original_node:
            self.origin[updated_node] = self.origin.get(original_node, original_node)
        return updated_node


class _Share:
    def __init__(self, ctx, analysis):
        self.ctx = ctx
        self.occurrences = _Occurrences(analysis, ctx.registry)
        self.keys = _Keys()
        self._written: dict = {}     # statement -> the names it assigns (statements that an
        self._read: dict = {}        # extraction rebuilt are new objects: never stale)

    def block(self, stmts: list) -> list:
        stmts = [self._nested(s) for s in stmts]
        for _ in range(_LIMIT):
            found = self._best(stmts)
            if found is None:
                break
            key, node, first, last = found
            name = self.ctx.namer.fresh(_name_for(node))
            use = _Use(key, name, self.occurrences.origin, self.keys)
            assign = cst.SimpleStatementLine([cst.Assign(
                [cst.AssignTarget(cst.Name(name))], unparenthesized(node))])
            stmts = (stmts[:first] + [assign]
                     + [rewrite(s, use) for s in stmts[first:last + 1]] + stmts[last + 1:])
        return stmts

    def _best(self, stmts: list):
        """The largest expression met twice or more before what it reads changes:
        (key, node, index of its first statement, index of its last)."""
        # key -> [node, first, last, count, order met, first met as a whole value]
        runs: dict[int, list] = {}
        best = None
        for index, stmt in enumerate(stmts):
            for node, top in self.occurrences.of(stmt):
                key = self.keys(node)
                run = runs.get(key)
                if run is None:
                    runs[key] = [node, index, index, 1, len(runs) + index * 10_000, top]
                else:
                    run[2], run[3] = index, run[3] + 1
            written = self._writes(stmt)
            if written:
                for key, run in list(runs.items()):
                    if self._reads(run[0]) & written:
                        if run[3] > 1 and not run[5]:
                            best = _larger(best, key, run)
                        del runs[key]
        for key, run in runs.items():
            if run[3] > 1 and not run[5]:
                best = _larger(best, key, run)
        return None if best is None else best[:4]

    def _writes(self, stmt) -> set:
        found = self._written.get(stmt)
        if found is None:
            found = self._written[stmt] = changes(stmt)
        return found

    def _reads(self, node) -> set:
        found = self._read.get(node)
        if found is None:
            found = self._read[node] = reads(node)
        return found

    def _nested(self, stmt):
        if type(stmt) not in (cst.If, cst.While, cst.For, cst.With):
            return stmt
        stmt = with_body(stmt, self.block(list(stmt.body.body)))
        orelse = getattr(stmt, "orelse", None)
        if isinstance(orelse, cst.Else):
            new = with_body(orelse, self.block(list(orelse.body.body)))
        elif isinstance(orelse, cst.If):
            new = self._nested(orelse)
        else:
            return stmt
        return stmt if new is orelse else stmt.with_changes(orelse=new)


def _larger(best, key, run):
    """The larger expression; of two the same size, the one met first (each is assigned
    right before its first use, so they come out in reading order)."""
    rank = (sum(1 for _ in walk(run[0])), -run[4])
    if best is None or rank > best[4]:
        return (key, run[0], run[1], run[2], rank)
    return best


def transform(func: cst.FunctionDef, ctx) -> cst.FunctionDef:
    analysis = ctx.analyze(func)
    share = _Share(ctx, analysis)
    return with_body(func, share.block(list(func.body.body)))
