"""Closures over the function's own variables that `hoist_helpers` leaves, inlined where
they are called: a ``def`` (or ``lambda``) returning one expression (`inline_closures`), and a
``def`` of several statements called in top-level statements (`inline_statement_closures`)."""

from __future__ import annotations

import functools

import libcst as cst

from ..syntax.traversal import by_type, rewrite, walk
from .helpers import helper_name


def inline_closures(tree: cst.FunctionDef) -> cst.FunctionDef:
    """A nested ``def name(a, b): return <expression>`` (or ``name = lambda a, b: ...``) at
    the top level of the body that reads the function's own variables (a closure, which
    `hoist_helpers` leaves), used only in calls ``name(x, y)`` after it: each call becomes
    the expression with its arguments in place of the parameters, which reads the closed-over
    variables where the call is, as the closure does when it runs. Only parameters without
    defaults, calls with as many positional arguments, and arguments that are names or
    literals (or parameters used once): nothing is evaluated twice or in another order."""
    body = list(tree.body.body)
    for index, stmt in enumerate(body):
        found = _single_expression(stmt)
        if found is None:
            continue
        name, params, expression = found
        rest = body[index + 1:]
        calls = _plain_calls(body, rest, name, params)
        if calls is None:
            continue
        counts = {p: sum(1 for n in walk(expression) if type(n) is cst.Name
                         and n.value == p) for p in params}
        if any(counts[p] > 1 and type(a.value) not in _SIMPLE for c in calls
               for p, a in zip(params, c.args)):
            continue
        # (with the arguments as rewritten: in `f(f(x))` the inner call is inlined first)
        inlined = functools.partial(_expression_of_call, expression, params)
        replacements = dict.fromkeys((id(c) for c in calls), inlined)

        new_rest = [rewrite(s, _Inline(replacements)) for s in rest]
        body = body[:index] + [cst.SimpleStatementLine([cst.Pass()])] + new_rest
        tree = tree.with_changes(body=tree.body.with_changes(body=body))
        return inline_closures(tree)    # the next one, in the new body
    body = [s for s in body if not (type(s) is cst.SimpleStatementLine and len(s.body) == 1
                                    and type(s.body[0]) is cst.Pass)] or body
    return tree.with_changes(body=tree.body.with_changes(body=body))


def _expression_of_call(expression, params: list, call: cst.Call):
    """The closure's ``expression`` with the arguments of ``call`` in place of
    ``params``."""
    return _substitute_all(expression, dict(zip(params, [a.value for a in call.args])))


class _Inline(cst.CSTTransformer):
    def __init__(self, replacements: dict):
        # id(call) -> its expression, or a function of the call (with its arguments
        # rewritten) giving it
        self.replacements = replacements

    def leave_Call(self, original_node, updated_node):
        new = self.replacements.get(id(original_node))
        if callable(new):
            return new(updated_node)
        return updated_node if new is None else new


_SIMPLE = (cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)


def _single_expression(stmt):
    """(name, parameters, the expression returned) of ``def name(...): return e`` (a
    docstring allowed) or ``name = lambda ...: e`` with plain parameters; None otherwise."""
    name = helper_name(stmt)
    if name is None:
        return None
    if type(stmt) is cst.FunctionDef:
        params, lines = stmt.params, list(stmt.body.body) if type(
            stmt.body) is cst.IndentedBlock else [stmt.body]
        if lines and type(lines[0]) is cst.SimpleStatementLine and type(
                lines[0].body[0]) is cst.Expr and type(lines[0].body[0].value) in (
                cst.SimpleString, cst.ConcatenatedString):
            lines = lines[1:]
        if len(lines) != 1 or type(lines[0]) is not cst.SimpleStatementLine or len(
                lines[0].body) != 1 or type(lines[0].body[0]) is not cst.Return or \
                lines[0].body[0].value is None:
            return None
        expression = lines[0].body[0].value
    else:
        lam = stmt.body[0].value
        params, expression = lam.params, lam.body
    if params.star_arg is not cst.MaybeSentinel.DEFAULT and params.star_arg is not None or \
            params.kwonly_params or params.star_kwarg or params.posonly_params or any(
                p.default is not None for p in params.params):
        return None
    if any(type(n) in (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp,
                       cst.NamedExpr, cst.Yield, cst.Await) or type(n) is cst.Name
           and n.value == name for n in walk(expression)):
        return None     # (a recursive one: its inlined body would call another `name`)
    return name, [p.name.value for p in params.params], expression


def _plain_calls(body, rest, name: str, params: list):
    """The calls of the closure ``name`` (bound once in ``body``) in ``rest``, the statements
    after it, where it is used only in calls with one positional argument per parameter;
    None otherwise."""
    from ..liveness import writes
    if sum(name in writes(s) or helper_name(s) == name for s in body) != 1:
        return None
    calls, other_uses = _uses(rest, name)
    if not calls or other_uses or any(
            len(c.args) != len(params) or any(a.star or a.keyword is not None
                                              for a in c.args) for c in calls):
        return None
    return calls


def _uses(stmts, name):
    """(calls ``name(...)`` in ``stmts``, whether ``name`` is used any other way)."""
    calls, other = [], False
    for stmt in stmts:
        called = set()
        for n in walk(stmt):
            if type(n) is cst.Call and type(n.func) is cst.Name and n.func.value == name:
                calls.append(n)
                called.add(id(n.func))
        for n in walk(stmt):
            if type(n) is cst.Name and n.value == name and id(n) not in called:
                other = True
            if type(n) in (cst.Lambda, cst.FunctionDef, cst.ClassDef, cst.ListComp,
                           cst.GeneratorExp, cst.SetComp, cst.DictComp) and any(
                    id(c) in {id(x) for x in walk(n)} for c in calls):
                other = True     # called inside another scope: left alone
    return calls, other


def _substitute_all(expr, values: dict):
    """``expr`` with each parameter name replaced by its argument (parenthesized)."""
    class Replace(cst.CSTTransformer):
        def leave_Name(self, original_node, updated_node):
            value = values.get(updated_node.value)
            if value is None:
                return updated_node
            return value if type(value) in _SIMPLE else value.with_changes(
                lpar=[cst.LeftParen()], rpar=[cst.RightParen()])

    out = expr.visit(Replace())
    return out.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]) \
        if hasattr(out, "lpar") and type(out) not in _SIMPLE else out


def inline_statement_closures(tree: cst.FunctionDef) -> cst.FunctionDef:
    """A nested ``def name(a, b): <statements>; return <expression>`` at the top level of
    the body that reads the function's own variables (a closure of several statements, which
    `hoist_helpers` and `inline_closures` leave), called only in statement lines after it
    (``y = name(x, 2.0)``, ``return name(x) + 1``): before each such
    statement its parameters are bound to the arguments, in order, and its statements run
    on names of their own (``z`` -> ``z_name``, one set per call); the call becomes the
    returned expression.
    The closed-over variables are read where the call is, as the closure reads them when it
    runs. Only bodies with no other ``return``, no ``yield``/``global``/``nonlocal``/nested
    scopes, and calls with as many positional arguments that sit outside conditional
    expressions, ``and``/``or`` and nested scopes of their statement line (which may be in
    the body of an ``if`` or a loop: the prologue runs where the call runs)."""
    from ..liveness import writes
    body = list(tree.body.body)
    taken = {n.value for n in by_type(tree).get(cst.Name, ())}
    for index, stmt in enumerate(body):
        if type(stmt) is not cst.FunctionDef or helper_name(stmt) is None:
            continue
        found = _statement_closure(stmt)
        if found is None:
            continue
        name, params, lines, result = found
        rest = [rewrite(s, _BranchesAsIfs(name)) for s in body[index + 1:]]
        calls = _plain_calls(body, rest, name, params)
        if calls is None:
            continue
        lines_of = _statement_lines(rest)
        if any(id(c) not in lines_of for c in calls) or any(
                in_conditional(lines_of[id(c)], c) for c in calls):
            continue
        local = set(params)
        for line in lines:
            local |= writes(line)

        closure = (name, params, lines, result, local, taken)
        inlined = functools.partial(_inlined, closure)
        by_line: dict = {}
        for c in calls:
            by_line.setdefault(id(lines_of[id(c)]), []).append(c)
        new_rest = []
        for s in rest:
            if id(s) in by_line:
                new_rest += inlined(s, by_line[id(s)])
            else:
                new_rest.append(rewrite(s, _InlineLines(by_line, inlined)))
        tree = tree.with_changes(body=tree.body.with_changes(body=body[:index] + new_rest))
        return inline_statement_closures(tree)      # the next one
    return tree


def _inlined(closure, s, mine) -> list:
    """The statement line ``s`` with the calls ``mine`` of the closure inlined: a prologue
    per call (its parameters bound to the arguments, its statements on names of their own),
    then ``s`` with each call replaced by the returned expression."""
    name, params, lines, result, local, taken = closure
    prologue, replacements = [], {}
    for call in mine:
        renames = {}
        for old in sorted(local):
            new, k = f"{old}_{name}", 1
            while new in taken:
                k += 1
                new = f"{old}_{name}_{k}"
            taken.add(new)
            renames[old] = new
        prologue += [cst.SimpleStatementLine([cst.Assign(
            [cst.AssignTarget(cst.Name(renames[p]))], a.value)])
            for p, a in zip(params, call.args)]
        prologue += [renamed(line, renames) for line in lines]
        replacements[id(call)] = renamed(result, renames).with_changes(
            lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return prologue + [rewrite(s, _Inline(replacements))]


class _BranchesAsIfs(cst.CSTTransformer):
    """``t = a if c else b`` and ``return a if c else b`` where ``a`` or ``b`` calls the
    closure ``name``: ``if c: t = a`` / ``else: t = b`` (the same statement, in a form where
    each branch's calls run only where Python runs them)."""

    def __init__(self, name: str):
        self.name = name

    def leave_SimpleStatementLine(self, original_node, updated_node):
        if len(updated_node.body) != 1:
            return updated_node
        small = updated_node.body[0]
        if not (type(small) is cst.Return or type(small) is cst.Assign and len(
                small.targets) == 1 and type(small.targets[0].target) is cst.Name) or type(
                small.value) is not cst.IfExp:
            return updated_node
        value = small.value
        if not any(type(n) is cst.Call and type(n.func) is cst.Name and n.func.value ==
                   self.name for part in (value.body, value.orelse) for n in walk(part)):
            return updated_node

        def branch(part):       # (itself such a statement again: `a if c else b if d else e`)
            line = cst.SimpleStatementLine([small.with_changes(value=part)])
            return cst.IndentedBlock([self.leave_SimpleStatementLine(line, line)])
        return cst.If(value.test.with_changes(lpar=[], rpar=[]), branch(value.body),
                      orelse=cst.Else(branch(value.orelse)),
                      leading_lines=updated_node.leading_lines)


def _statement_lines(stmts) -> dict:
    """id of each call in ``stmts`` -> the statement line (at any depth: in the bodies of
    ``if``/``for``/``while``...) it is in; a call in a compound statement's header (an
    ``if`` test, a loop's ``iter``) has none."""
    out: dict = {}
    for stmt in stmts:
        for line in walk(stmt):
            if type(line) is cst.SimpleStatementLine:
                for n in walk(line):
                    if type(n) is cst.Call:
                        out[id(n)] = line
    return out


class _InlineLines(cst.CSTTransformer):
    """Each statement line holding calls of the closure: its prologue, then the line with
    the calls replaced (`inline_statement_closures`)."""

    def __init__(self, by_line: dict, inlined):
        self.by_line = by_line
        self.inlined = inlined

    def leave_SimpleStatementLine(self, original_node, updated_node):
        mine = self.by_line.get(id(original_node))
        if not mine:
            return updated_node
        return cst.FlattenSentinel(self.inlined(original_node, mine))


def _statement_closure(stmt: cst.FunctionDef):
    """(name, parameters, statements, returned expression) of a ``def`` whose body is
    statements without ``return`` and a last ``return <expression>``; None otherwise."""
    params = stmt.params
    if params.star_arg is not cst.MaybeSentinel.DEFAULT and params.star_arg is not None or \
            params.kwonly_params or params.star_kwarg or params.posonly_params or any(
                p.default is not None for p in params.params):
        return None
    lines = list(stmt.body.body) if type(stmt.body) is cst.IndentedBlock else [stmt.body]
    if lines and type(lines[0]) is cst.SimpleStatementLine and type(
            lines[0].body[0]) is cst.Expr and type(lines[0].body[0].value) in (
            cst.SimpleString, cst.ConcatenatedString):
        lines = lines[1:]
    if len(lines) < 2 or type(lines[-1]) is not cst.SimpleStatementLine or len(
            lines[-1].body) != 1 or type(lines[-1].body[0]) is not cst.Return or \
            lines[-1].body[0].value is None:
        return None
    if any(type(n) in (cst.Return, cst.Yield, cst.Global, cst.Nonlocal, cst.FunctionDef,
                       cst.ClassDef, cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp,
                       cst.GeneratorExp, cst.Await, cst.NamedExpr, cst.Break, cst.Continue,
                       cst.Del, cst.Try, cst.With, cst.Import, cst.ImportFrom)
           for line in lines[:-1] for n in walk(line)) or any(
            type(n) is cst.Name and n.value == stmt.name.value for line in lines
            for n in walk(line)):
        return None     # (a recursive one: its inlined body would call another `name`)
    return stmt.name.value, [p.name.value for p in params.params], lines[:-1], \
        lines[-1].body[0].value


def in_conditional(stmt, call) -> bool:
    """Whether ``call`` sits, in ``stmt``, under a conditional expression, ``and``/``or``
    or a nested scope (where Python may not evaluate it)."""
    def search(node, guarded):
        if node is call:
            return guarded
        inner = guarded or type(node) in (cst.IfExp, cst.BooleanOperation, cst.Lambda,
                                          cst.ListComp, cst.GeneratorExp, cst.SetComp,
                                          cst.DictComp)
        return any(search(child, inner) for child in node.children)
    return search(stmt, False)


def renamed(node, renames: dict):
    """``node`` with the names of ``renames`` replaced (attributes' names and keywords
    kept)."""
    class Rename(cst.CSTTransformer):
        def visit_Attribute(self, node):
            return False          # (its base is renamed on the way out)

        def leave_Attribute(self, original_node, updated_node):
            return updated_node.with_changes(value=updated_node.value.visit(self))

        def visit_Arg(self, node):
            return True

        def leave_Arg(self, original_node, updated_node):
            return updated_node.with_changes(keyword=original_node.keyword)

        def leave_Name(self, original_node, updated_node):
            new = renames.get(updated_node.value)
            return updated_node if new is None else updated_node.with_changes(value=new)
    return node.visit(Rename())


def why_kept(stmt: cst.FunctionDef, tree: cst.FunctionDef) -> str:
    """Why the nested ``def`` ``stmt`` is still in ``tree`` (neither hoisted nor inlined),
    in words, for the refusal that names it."""
    name = stmt.name.value
    inner = {id(n) for n in walk(stmt)}
    if any(type(n) in (cst.Nonlocal, cst.Global) for n in walk(stmt.body)):
        return "changes the function's variables (`nonlocal`/`global`)"
    if stmt not in tree.body.body:
        return "is defined under a condition or in a loop"
    uses = [n for n in walk(tree.body) if type(n) is cst.Name and n.value == name
            and id(n) not in inner]
    called = {id(n.func) for n in walk(tree.body) if type(n) is cst.Call}
    returned = [n.value for n in walk(tree.body) if type(n) is cst.Return and n.value
                is not None]
    returned += [e.value for r in returned if type(r) in (cst.Tuple, cst.List)
                 for e in r.elements]
    if any(r is u for r in returned for u in uses):
        return "is returned"
    takers = [n.func for n in walk(tree.body) if type(n) is cst.Call and id(n) not in inner
              and any(a.value is u for a in n.args for u in uses)]
    if takers and all(id(u) in called or any(a.value is u for t in walk(tree.body)
                                             if type(t) is cst.Call for a in t.args)
                      for u in uses):
        # (one of your own Python helpers gets it bound into its body where it can:
        # `bound_closures`; a library's compiled or unreadable function cannot)
        return (f"is passed to `{cst.Module([]).code_for_node(takers[0])}` and cannot be "
                "bound into a copy of it (a library's compiled or unreadable function, a "
                "default of the closure rebound after it, a name the helper's own hide)")
    if any(id(u) not in called for u in uses):
        return "is stored or passed to another function"
    if any(type(n) is cst.Call and type(n.func) is cst.Name and n.func.value == name
           for n in walk(stmt.body)):
        return "calls itself"
    return ("is a closure whose calls sit where they cannot be inlined (under `and`/`or`, "
            "in a loop's or an `if`'s header, or in another nested function)")
