"""A function that calls itself, written out to a bounded depth (`unroll_recursion`).

Each call of the function by its own name, made where Python always evaluates it (a
statement's value, not under ``and``/``or``, a conditional expression or a nested scope),
becomes, just before its statement, a copy of the function's body with its own names
renamed: the arguments bound to the copy's parameters, each ``return v`` of the copy
``result = v`` with the statements after an ``if`` that returns moved into its branches
that fall through (as `passes/early_return.py` does), and the call replaced by ``result``.
The copy's own calls are written out the same way, `DEPTH` levels deep; the statement making
a call deeper than that is ``raise RecursionError(...)`` (what follows it in its block is
dropped). So every example computes what Python computes down to that depth, each in its
own branches, and an example that recurses deeper raises in the batch, where `vectorize`
(and `vmap` on NumPy and PyTorch) runs the per-example loop, which recurses as deep as
Python does. The reflection idiom (``if x > 0: return g(x) + f(-x, s)``) is one level;
``n * fact(n - 1)`` computes `DEPTH` levels batched and deeper ones per example.

    def f(x):                           def f(x):
        if x > 0:                           if x > 0:
            return 1.0 + f(-x)                  x_1 = -x
        return x * x          ->                if x_1 > 0:
                                                    raise RecursionError(...)   # (DEPTH 1)
                                                else:
                                                    f_result = x_1 * x_1
                                                return 1.0 + f_result
                                            return x * x

Left as it is (the analysis then refuses the recursion where it is written): a call under
a condition of its statement, a call in a test or a loop header, a body with a `try`, a
nested scope, `global`/`nonlocal`, `yield`, `:=`, a `return` inside a loop, ``*args`` /
``**kwargs``, a call with ``*`` or ``**`` or arguments that do not match the parameters,
or more than `COPIES` copies (several calls per level multiply).
"""

from __future__ import annotations

import libcst as cst

from ..liveness import Namer, all_names, bound_names
from ..syntax.traversal import walk
from .closures import in_conditional, renamed

DEPTH = 2
"""Levels of the function's own calls written out; an example that goes deeper raises in
the batch, and the per-example loop decides."""

COPIES = 8
"""Copies of the body at most (a function calling itself twice per level doubles them)."""

_REFUSED = (cst.Try, cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.ListComp, cst.SetComp,
            cst.DictComp, cst.GeneratorExp, cst.Global, cst.Nonlocal, cst.Yield, cst.Await,
            cst.NamedExpr, cst.With, cst.Match if hasattr(cst, "Match") else cst.Try)


def self_calls(tree: cst.FunctionDef, func) -> list:
    """The calls of ``func`` by its own (global) name in its body."""
    name = tree.name.value
    glob = getattr(func, "__globals__", {})
    if glob.get(name) is not func or name in bound_names(tree):
        return []
    return [n for n in walk(tree.body) if type(n) is cst.Call and type(n.func) is cst.Name
            and n.func.value == name]


def unroll_recursion(tree: cst.FunctionDef, func) -> cst.FunctionDef | None:
    """``tree`` with its calls of itself written out (module docstring), or None where it
    makes none or they cannot be written out."""
    calls = self_calls(tree, func)
    if not calls or not _writable(tree, calls):
        return None
    for depth in range(DEPTH, 0, -1):
        # (as deep as `COPIES` allows: two calls per level double the copies with each)
        try:
            body = _Unroller(tree, depth).block(list(tree.body.body), 0)
        except _TooMany:
            continue
        return tree.with_changes(body=tree.body.with_changes(body=body))
    return None


class _TooMany(Exception):
    pass


def _writable(tree: cst.FunctionDef, calls: list) -> bool:
    params = tree.params
    if params.star_arg not in (None, cst.MaybeSentinel.DEFAULT) or \
            params.star_kwarg is not None or params.posonly_params:
        return False
    if any(type(n) in _REFUSED for n in walk(tree.body)):
        return False
    for loop in walk(tree.body):
        if type(loop) in (cst.For, cst.While) and any(
                type(n) is cst.Return for n in walk(loop)):
            return False
    if not all(_literal(p.default) for p in _params(tree) if p.default is not None):
        return False        # (Python evaluates a default once, where the `def` runs)
    for call in calls:
        if any(a.star for a in call.args) or not _bound_arguments(tree, call):
            return False
        if any(n is not call and type(n) is cst.Call and type(n.func) is cst.Name and
               n.func.value == tree.name.value for a in call.args for n in walk(a)):
            return False        # (a call in another's arguments)
    for stmt in walk(tree.body):
        if isinstance(stmt, cst.BaseCompoundStatement):
            header = [stmt.test] if type(stmt) in (cst.If, cst.While) else (
                [stmt.iter, stmt.target] if type(stmt) is cst.For else [])
            if any(n in calls for h in header for n in walk(h)):
                return False
        if type(stmt) is cst.SimpleStatementLine and any(n in calls for n in walk(stmt)):
            if len(stmt.body) != 1 or type(stmt.body[0]) not in (
                    cst.Return, cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Expr):
                return False
            if any(in_conditional(stmt.body[0], c) for c in calls
                   if any(n is c for n in walk(stmt))):
                return False
    return True


def _literal(node) -> bool:
    if type(node) is cst.UnaryOperation and type(node.operator) in (cst.Minus, cst.Plus):
        node = node.expression
    return type(node) in (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString) or (
        type(node) is cst.Name and node.value in ("None", "True", "False"))


def _params(tree):
    return list(tree.params.params) + list(tree.params.kwonly_params)


def _bound_arguments(tree, call):
    """Parameter name -> the argument's expression (or the parameter's default), or None
    where the call does not match the parameters."""
    positional = list(tree.params.params)
    out: dict = {}
    for i, arg in enumerate(a for a in call.args if a.keyword is None):
        if i >= len(positional):
            return None
        out[positional[i].name.value] = arg.value
    for arg in call.args:
        if arg.keyword is not None:
            name = arg.keyword.value
            if name in out or name not in {p.name.value for p in _params(tree)}:
                return None
            out[name] = arg.value
    for p in _params(tree):
        if p.name.value not in out:
            if p.default is None:
                return None
            out[p.name.value] = p.default
    return out


class _Unroller:
    def __init__(self, tree: cst.FunctionDef, depth: int):
        self.tree = tree
        self.depth = depth
        self.name = tree.name.value
        self.locals = bound_names(tree)
        self.namer = Namer(all_names(tree))
        self.copies = 0

    def block(self, stmts: list, depth: int) -> list:
        out = []
        for stmt in stmts:
            out.extend(self.statement(stmt, depth))
            if out and out[-1] is not stmt and _raises(out[-1]) and not _raises(stmt):
                break       # (the call too deep: what follows it in its block never runs)
        return out

    def statement(self, stmt, depth: int) -> list:
        if isinstance(stmt, cst.BaseCompoundStatement):
            return [_with_blocks(stmt, lambda body: self.block(body, depth))]
        calls = [n for n in walk(stmt) if type(n) is cst.Call and type(n.func) is cst.Name
                 and n.func.value == self.name]
        if not calls:
            return [stmt]
        if depth >= self.depth:
            return [cst.SimpleStatementLine([cst.Raise(exc=cst.parse_expression(
                f"RecursionError('`{self.name}` calls itself more than {self.depth} levels "
                "deep (written out by vectorize)')"))], leading_lines=stmt.leading_lines)]
        out: list = []
        results: dict = {}
        for call in calls:
            result, lines = self.inlined(call, depth + 1)
            out.extend(lines)
            results[call] = result
        out.append(stmt.visit(_Replace(results)))
        return out

    def inlined(self, call: cst.Call, depth: int):
        self.copies += 1
        if self.copies > COPIES:
            raise _TooMany
        renames = {n: self.namer.fresh(f"{n}_{depth}") for n in sorted(self.locals)}
        result = self.namer.fresh(f"{self.name}_result")
        lines = [cst.SimpleStatementLine([cst.Assign(
            targets=[cst.AssignTarget(cst.Name(renames[p]))], value=value.deep_clone())])
            for p, value in _bound_arguments(self.tree, call).items()]
        body = [renamed(s.deep_clone(), renames) for s in self.tree.body.body]
        self.size = 0
        body = self.block(self.assigned(body, result), depth)
        return result, lines + body

    def assigned(self, stmts: list, result: str) -> list:
        """``stmts`` with each ``return v`` made ``result = v`` and the statements after an
        ``if`` that returns on some paths moved into its branches that fall through (as
        `passes/early_return.py` does for the function itself)."""
        out = []
        for i, stmt in enumerate(stmts):
            self.size += 1
            if self.size > _STATEMENTS:
                raise _TooMany
            if type(stmt) is cst.SimpleStatementLine and any(
                    type(small) is cst.Return for small in stmt.body):
                out.append(stmt.visit(_ReturnsAsAssignments(result)))
                return out
            if type(stmt) is not cst.If or not any(type(n) is cst.Return for n in walk(stmt)):
                out.append(stmt)
                continue
            rest = list(stmts[i + 1:])
            out.append(self.branches(stmt, rest, result))
            return out
        return out

    def branches(self, stmt: cst.If, rest: list, result: str) -> cst.If:
        def then(block: list) -> list:
            more = [] if _ends(block) else [s.deep_clone() for s in rest]
            return self.assigned(block + more, result) or [_PASS()]
        body = then(list(stmt.body.body))
        if stmt.orelse is None:
            orelse = self.assigned([s.deep_clone() for s in rest], result)
            orelse = cst.Else(cst.IndentedBlock(orelse)) if orelse else None
        elif type(stmt.orelse) is cst.If:
            orelse = self.branches(stmt.orelse, rest, result)
        else:
            orelse = cst.Else(cst.IndentedBlock(then(list(stmt.orelse.body.body))))
        return stmt.with_changes(body=stmt.body.with_changes(body=body), orelse=orelse)


def _raises(stmt) -> bool:
    return type(stmt) is cst.SimpleStatementLine and type(stmt.body[-1]) is cst.Raise


def _with_blocks(stmt, change):
    """The compound statement ``stmt`` with each of its blocks' statements changed."""
    class Blocks(cst.CSTTransformer):
        def __init__(self):
            self.depth = 0

        def visit_IndentedBlock(self, node):
            self.depth += 1
            return self.depth == 1

        def leave_IndentedBlock(self, original_node, updated_node):
            self.depth -= 1
            if self.depth:
                return updated_node
            return updated_node.with_changes(body=change(list(updated_node.body)))

        def visit_SimpleStatementSuite(self, node):
            return False
    return stmt.visit(Blocks())


_STATEMENTS = 400
"""Statements of one written-out copy at most (a continuation copied into both branches of
a series of ``if``s doubles it with each)."""


def _PASS():
    return cst.SimpleStatementLine([cst.Pass()])


def _ends(block: list) -> bool:
    """Whether every path through ``block`` ends in ``return`` or ``raise``."""
    if not block:
        return False
    last = block[-1]
    if type(last) is cst.SimpleStatementLine:
        return type(last.body[-1]) in (cst.Return, cst.Raise)
    if type(last) is cst.If:
        if last.orelse is None or not _ends(list(last.body.body)):
            return False
        if type(last.orelse) is cst.If:
            return _ends([last.orelse])
        return _ends(list(last.orelse.body.body))
    return False


class _ReturnsAsAssignments(cst.CSTTransformer):
    """``return v`` -> ``result = v`` (``return`` -> ``result = None``)."""

    def __init__(self, result: str):
        self.result = result

    def leave_SimpleStatementLine(self, original_node, updated_node):
        if not any(type(s) is cst.Return for s in updated_node.body):
            return updated_node
        body = []
        for small in updated_node.body:
            if type(small) is cst.Return:
                value = small.value if small.value is not None else cst.Name("None")
                body.append(cst.Assign(targets=[cst.AssignTarget(cst.Name(self.result))],
                                       value=value))
                break
            body.append(small)
        return updated_node.with_changes(body=body)


class _Replace(cst.CSTTransformer):
    def __init__(self, results: dict):
        self.results = results

    def leave_Call(self, original_node, updated_node):
        result = self.results.get(original_node)
        return updated_node if result is None else cst.Name(result)
