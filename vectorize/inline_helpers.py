"""A helper's body written into its caller in place of its calls, so that the caller's
passes see the paths the helper's result takes (`passes.lane_kinds`: a `vmap` result that
is a Python int on the paths through ``max(x, -100)`` of a helper and a NumPy float on the
others has, on each call, the type the per-example loop's stack gives the paths that call's
examples took; the helper's batched function returns the join).

`passes.lane_kinds` raises `InlineForKinds` for a helper call whose result it cannot follow;
`transform.ModuleContext.specialize` then writes every call of that helper in the main
function's source out (`inline_calls`) and runs the pipeline again from the start, so that
every pass sees the helper's statements as the function's own. Nothing changes where the
helper is not such a plain function (`inline_calls` returns None: the result keeps the join,
as before):

- a plain function (no closure, no body imports, no nested function, class, lambda,
  comprehension, ``try``, ``with``, ``global``), parameters without ``*``/``**``, defaults
  that are literals (ints, floats, bools, strings, None); one that calls itself where the
  batch replays the per-example loop: its own calls written out first
  (`body_constructs.recursion.unroll_recursion`; a call deeper raises in the batch);
- every name it reads from its module is not one the caller binds (a helper of another
  module: the names it reads there are bound beside the caller's under fresh names, in
  `FunctionSource.local_imports`; the helper's own specialization guards them);
- the call is evaluated by its statement on every path through it: a statement of its own
  line (an assignment, an augmented assignment, a ``return``, an expression) or the test of
  an ``if``, not in a lambda or a comprehension, with no ``*``/``**`` argument; a call in a
  branch of a conditional expression or the right of ``and``/``or`` is first made a
  statement under an ``if`` before its statement (`_hoisted`), where the rest of the
  statement's value cannot raise nor act.

The helper's returns become assignments of a fresh name (a statement after an ``if`` whose
branch returns is written in both branches, its paths as Python runs them; a ``return``
inside a loop sets a fresh flag and breaks out of every loop it is in, the statements
after the loop running under ``if not flag``); its parameters
and locals get fresh names; ``a, b = h(x)`` of a helper returning tuple displays assigns
``a`` and ``b`` from each return's items. Errors in the written-out statements are located at
the call's statement (`FunctionSource.origins`).
"""

from __future__ import annotations

import inspect
import types

import libcst as cst

from .body_constructs.recursion import self_calls, unroll_recursion
from .introspect import forwarded_target, lookup, python_function_of
from .liveness import Namer, all_names, bound_names
from .syntax.traversal import walk

_INLINED_MOST = 12
"""The most helpers written out into one function (each writes every call of it)."""

_STATEMENTS_MOST = 400
"""The most statements a helper's body may have once its returns are assignments."""


_RECURSIVE_STATEMENTS_MOST = 60
"""The most statements a helper that calls itself may have once its calls are unrolled."""


class InlineForKinds(Exception):
    """`passes.lane_kinds` cannot follow the results of calls of the helpers ``fns``."""

    def __init__(self, fns: list, node):
        super().__init__(", ".join(getattr(fn, "__name__", "helper") for fn in fns))
        self.fns = fns
        self.node = node


_NOT_INLINED = (cst.FunctionDef, cst.ClassDef, cst.Lambda, cst.Global, cst.Nonlocal,
                cst.Yield, cst.Await, cst.Try, cst.With, cst.Import, cst.ImportFrom,
                cst.GeneratorExp, cst.ListComp, cst.SetComp, cst.DictComp, cst.Del)

_LITERALS = (bool, int, float, str, type(None))


def _literal(value):
    if type(value) not in _LITERALS:
        return None
    try:
        node = cst.parse_expression(repr(value))
    except Exception:  # noqa: BLE001 -- inf, nan: no literal
        return None
    return node


def _has_return(stmts) -> bool:
    return any(type(n) is cst.Return for s in stmts for n in walk(s))


def _block(stmts) -> list:
    """The statements of an indented block (or a one-line suite)."""
    return list(stmts.body)


def _as_block(stmts: list) -> cst.IndentedBlock:
    return cst.IndentedBlock(body=stmts or [cst.SimpleStatementLine([cst.Pass()])])


class _NotLowered(Exception):
    """The helper's returns cannot be written as assignments (a ``return`` in a loop's
    ``else``)."""


def _lowered(stmts: list, result, flag=None) -> list:
    """``stmts`` with each ``return e`` the statements ``result(e)`` (a statement after an
    ``if`` a branch of which returns written into both branches); falling off the end
    gives None. A loop that returns in its body: each such ``return`` the statements
    ``result(e)``, then ``flag() = True`` and ``break`` (out of every loop it is in), the
    statements after the loop under ``if not flag():`` (``flag``: the fresh name of it)."""
    out: list = []
    for k, stmt in enumerate(stmts):
        rest = stmts[k + 1:]
        if type(stmt) is cst.SimpleStatementLine and any(
                type(small) is cst.Return for small in stmt.body):
            return out + _before_return(stmt) + result(_returned(stmt))
        if type(stmt) is cst.If and _has_return([stmt]):
            return out + [_lowered_if(stmt, rest, result, flag)]
        if type(stmt) in (cst.For, cst.While) and _has_return([stmt]):
            if flag is None:
                raise _NotLowered
            name = flag()
            out.append(_assign(name, cst.Name("False")))
            out.append(_loop_lowered(stmt, result, name))
            if _endless(stmt):
                return out      # (left by its returns only: what follows never runs)
            return out + [cst.If(test=cst.UnaryOperation(cst.Not(), cst.Name(name)),
                                 body=_as_block(_lowered(list(rest), result, flag)))]
        out.append(stmt)
    return out + result(cst.Name("None"))


def _endless(loop) -> bool:
    """Whether ``loop`` is ``while True:`` without a ``break`` of its own."""
    if type(loop) is not cst.While or not (type(loop.test) is cst.Name and
                                           loop.test.value == "True"):
        return False

    def breaks(node) -> bool:
        for child in node.children:
            if type(child) is cst.Break:
                return True
            if type(child) in (cst.For, cst.While):
                # (a nested loop's `break` is its own; one in its `else` is this loop's)
                if child.orelse is not None and breaks(child.orelse):
                    return True
            elif breaks(child):
                return True
        return False
    return not breaks(loop.body)


def _assign(name: str, value) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], value)])


def _returned(stmt) -> cst.BaseExpression:
    """The value the ``return`` of the statement line ``stmt`` returns."""
    value = next(small for small in stmt.body if type(small) is cst.Return).value
    return value if value is not None else cst.Name("None")


def _before_return(stmt) -> list:
    """The small statements of the line ``stmt`` before its ``return``, as a line."""
    before = []
    for small in stmt.body:
        if type(small) is cst.Return:
            break
        before.append(small.with_changes(semicolon=cst.MaybeSentinel.DEFAULT))
    return [cst.SimpleStatementLine(before)] if before else []


def _loop_lowered(loop, result, flag: str):
    """The loop ``loop`` (which returns in its body) with each ``return e`` in it
    ``result(e)``, ``flag = True`` and ``break``."""
    if loop.orelse is not None and _has_return([loop.orelse]):
        raise _NotLowered
    return loop.with_changes(body=_as_block(_in_loop(_block(loop.body), result, flag)))


def _in_loop(stmts: list, result, flag: str) -> list:
    out: list = []
    for stmt in stmts:
        if type(stmt) is cst.SimpleStatementLine and any(
                type(small) is cst.Return for small in stmt.body):
            # (what follows a `return` in its block never runs)
            return out + _before_return(stmt) + result(_returned(stmt)) + [
                _assign(flag, cst.Name("True")), cst.SimpleStatementLine([cst.Break()])]
        if type(stmt) is cst.If and _has_return([stmt]):
            out.append(_if_in_loop(stmt, result, flag))
        elif type(stmt) in (cst.For, cst.While) and _has_return([stmt]):
            # (an inner loop's `break` leaves it only: the outer one breaks where it returned)
            out.append(_loop_lowered(stmt, result, flag))
            out.append(cst.If(test=cst.Name(flag), body=_as_block(
                [cst.SimpleStatementLine([cst.Break()])])))
        else:
            out.append(stmt)
    return out


def _if_in_loop(stmt: cst.If, result, flag: str) -> cst.If:
    body = _in_loop(_block(stmt.body), result, flag)
    orelse = stmt.orelse
    if type(orelse) is cst.If:
        orelse = _if_in_loop(orelse, result, flag)
    elif orelse is not None:
        orelse = orelse.with_changes(body=_as_block(_in_loop(_block(orelse.body), result,
                                                             flag)))
    return stmt.with_changes(body=_as_block(body), orelse=orelse)


def _lowered_if(stmt: cst.If, rest: list, result, flag=None) -> cst.If:
    body = _lowered(_block(stmt.body) + rest, result, flag)
    if stmt.orelse is None:
        orelse = cst.Else(body=_as_block(_lowered(list(rest), result, flag)))
    elif type(stmt.orelse) is cst.If:
        orelse = cst.Else(body=_as_block([_lowered_if(stmt.orelse, rest, result, flag)]))
    else:
        orelse = cst.Else(body=_as_block(_lowered(_block(stmt.orelse.body) + rest, result,
                                                  flag)))
    return stmt.with_changes(body=_as_block(body), orelse=orelse)


def _count(stmts) -> int:
    return sum(1 for s in stmts for n in walk(s) if isinstance(n, cst.BaseSmallStatement))


def _renamed(node, names: dict):
    return node.visit(_RenameAll(names))


class _RenameAll(cst.CSTTransformer):
    def __init__(self, names):
        self.names = names

    def leave_Attribute(self, original, updated):
        return updated.with_changes(attr=original.attr)

    def leave_Arg(self, original, updated):
        return updated.with_changes(keyword=original.keyword)

    def leave_Name(self, original, updated):
        new = self.names.get(original.value)
        return updated.with_changes(value=new) if new else updated


def _assigned(tree) -> set:
    """The names ``tree`` binds by assignments, ``for`` targets and walruses."""
    out: set = set()
    for n in walk(tree):
        targets = []
        if type(n) is cst.Assign:
            targets = [t.target for t in n.targets]
        elif type(n) in (cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr):
            targets = [n.target]
        for t in targets:
            out |= {m.value for m in walk(t) if type(m) is cst.Name}
    return out


def _plain_helper(fn, helper_source, caller, tree=None) -> bool:
    if not isinstance(fn, types.FunctionType) or fn.__closure__ or \
            helper_source.local_imports:
        return False
    if fn.__code__.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE |
                               inspect.CO_ASYNC_GENERATOR):
        return False
    tree = tree or helper_source.tree
    if any(type(n) in _NOT_INLINED for n in walk(tree.body)):
        return False
    for param in inspect.signature(fn).parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            return False
        if param.default is not param.empty and _literal(param.default) is None:
            return False
    # (no call of itself)
    return not any(type(n) is cst.Name and n.value == fn.__name__ for n in walk(tree.body))


def _docstring(stmt) -> bool:
    return type(stmt) is cst.SimpleStatementLine and type(stmt.body[0]) is cst.Expr and \
        type(stmt.body[0].value) in (cst.SimpleString, cst.ConcatenatedString)


class _Sites(cst.CSTVisitor):
    """The calls of the helper where the statement evaluates them on every path."""

    def __init__(self, is_call):
        self.is_call = is_call
        self.found: list = []       # (statement, call)
        self.stmt = None
        self.lazy = 0

    def visit_SimpleStatementLine(self, node):
        if len(node.body) == 1 and type(node.body[0]) in (cst.Assign, cst.AugAssign,
                                                          cst.AnnAssign, cst.Return, cst.Expr):
            self.stmt = node
        return True

    def leave_SimpleStatementLine(self, original):
        self.stmt = None

    def visit_If(self, node):
        # (the test of an `if`: evaluated on every path to it; not an `elif`'s)
        self.stmt = node
        node.test.visit(self)
        self.stmt = None
        node.body.visit(self)
        self._orelse(node.orelse)
        return False

    def _orelse(self, orelse):
        if orelse is None:
            return
        if type(orelse) is cst.If:
            # (an `elif`'s test runs on some paths only)
            self.stmt = None
            self.lazy += 1
            orelse.test.visit(self)
            self.lazy -= 1
            orelse.body.visit(self)
            self._orelse(orelse.orelse)
        else:
            orelse.visit(self)

    def visit_While(self, node):
        self.lazy += 1
        node.test.visit(self)
        self.lazy -= 1
        node.body.visit(self)
        if node.orelse is not None:
            node.orelse.visit(self)
        return False

    def visit_For(self, node):
        self.lazy += 1
        node.target.visit(self)
        node.iter.visit(self)
        self.lazy -= 1
        node.body.visit(self)
        if node.orelse is not None:
            node.orelse.visit(self)
        return False

    def visit_IfExp(self, node):
        node.test.visit(self)
        self.lazy += 1
        node.body.visit(self)
        node.orelse.visit(self)
        self.lazy -= 1
        return False

    def visit_BooleanOperation(self, node):
        node.left.visit(self)
        self.lazy += 1
        node.right.visit(self)
        self.lazy -= 1
        return False

    def _lazy_all(self, node):
        self.lazy += 1
        return True

    def _lazy_end(self, original):
        self.lazy -= 1

    visit_Lambda = visit_GeneratorExp = visit_ListComp = visit_SetComp = visit_DictComp = \
        _lazy_all
    leave_Lambda = leave_GeneratorExp = leave_ListComp = leave_SetComp = leave_DictComp = \
        _lazy_end

    def visit_Call(self, node):
        if self.is_call(node) and not self.lazy and self.stmt is not None and not any(
                a.star for a in node.args):
            self.found.append((self.stmt, node))
        return True


_LAZY = (cst.IfExp, cst.BooleanOperation)
_SCOPES = (cst.Lambda, cst.GeneratorExp, cst.ListComp, cst.SetComp, cst.DictComp)
_MAY_ACT = (cst.Call, cst.Subscript, cst.NamedExpr, cst.Await, cst.Yield, cst.Divide,
            cst.FloorDivide, cst.Modulo, cst.Power, cst.LeftShift, cst.RightShift)
"""What may raise or act where evaluated (a statement's part evaluated before a conditional
expression moved before it)."""


def _has_call(node, is_call) -> bool:
    if type(node) in _SCOPES:
        return False
    if type(node) is cst.Call and is_call(node):
        return True
    return any(_has_call(child, is_call) for child in node.children)


def _lazy_call(node, is_call) -> bool:
    """Whether ``node`` holds a call of the helper that Python may not evaluate (a branch
    of a conditional expression, the right of ``and``/``or``)."""
    if type(node) in _SCOPES:
        return False
    if type(node) is cst.IfExp:
        return _has_call(node.body, is_call) or _has_call(node.orelse, is_call) or \
            _lazy_call(node.test, is_call)
    if type(node) is cst.BooleanOperation:
        return _has_call(node.right, is_call) or _lazy_call(node.left, is_call)
    return any(_lazy_call(child, is_call) for child in node.children)


def _holder(node, is_call):
    """The outermost conditional expression or ``and``/``or`` of ``node`` with such a call."""
    if type(node) in _SCOPES:
        return None
    if type(node) in _LAZY and _lazy_call(node, is_call):
        return node
    for child in node.children:
        found = _holder(child, is_call)
        if found is not None:
            return found
    return None


class _Holders(cst.CSTVisitor):
    """The first statement line whose value holds a call of the helper under a conditional
    expression or ``and``/``or`` that may be computed before it (every part of the value
    besides it cannot raise nor act: names, constants, arithmetic), and that holder."""

    def __init__(self, is_call):
        self.is_call = is_call
        self.found = None

    def visit_SimpleStatementLine(self, node):
        if self.found is not None or len(node.body) != 1:
            return False
        small = node.body[0]
        if type(small) in (cst.Assign, cst.Return, cst.Expr, cst.AnnAssign) or (
                type(small) is cst.AugAssign and type(small.target) is cst.Name):
            value = small.value
            holder = _holder(value, self.is_call) if value is not None else None
            if holder is not None and not any(
                    type(n) in _MAY_ACT for n in _outside(value, holder)):
                self.found = (node, holder)
        return False

    def visit_FunctionDef(self, node):
        return self.found is None

    def visit_ClassDef(self, node):
        return False


def _outside(node, inner):
    """The nodes of ``node`` not in ``inner``."""
    if node is inner:
        return
    yield node
    for child in node.children:
        yield from _outside(child, inner)


def _hoisted(tree, is_call, namer, origins: dict, name: str):
    """``tree`` with each helper call under a conditional expression or ``and``/``or`` of a
    statement's value made a statement of its own under an ``if`` (``v = a if c else b``:
    ``if c: t = a else: t = b`` then ``v = t``; ``a and b``: ``t = a`` then ``if t: t = b``),
    where the parts of the value evaluated before it cannot raise nor act."""
    for _ in range(_STATEMENTS_MOST):
        holders = _Holders(is_call)
        tree.visit(holders)
        if holders.found is None:
            return tree
        line, holder = holders.found
        t = namer.fresh(f"{name}_value")
        if type(holder) is cst.IfExp:
            made = [cst.If(test=holder.test, body=_as_block([_assign(t, holder.body)]),
                           orelse=cst.Else(body=_as_block([_assign(t, holder.orelse)])))]
        else:
            test = cst.Name(t) if type(holder.operator) is cst.And else \
                cst.UnaryOperation(cst.Not(), cst.Name(t))
            made = [_assign(t, holder.left),
                    cst.If(test=test, body=_as_block([_assign(t, holder.right)]))]
        origin = origins.get(line, line)
        for new in made:
            for n in walk(new):
                if isinstance(n, cst.BaseStatement):
                    origins.setdefault(n, origin)
        tree = tree.visit(_Hoist(line, holder, made, cst.Name(t)))
    return tree


class _Hoist(cst.CSTTransformer):
    def __init__(self, line, holder, made: list, value):
        self.line, self.holder, self.made, self.value = line, holder, made, value

    def leave_IfExp(self, original, updated):
        return self.value if original is self.holder else updated

    def leave_BooleanOperation(self, original, updated):
        return self.value if original is self.holder else updated

    def leave_SimpleStatementLine(self, original, updated):
        if original is not self.line:
            return updated
        origin = updated.with_changes(leading_lines=())
        return cst.FlattenSentinel([*self.made, origin])


class _Replace(cst.CSTTransformer):
    def __init__(self, stmt, call, before: list, value, whole_tuple=None):
        self.stmt, self.call, self.before, self.value = stmt, call, before, value
        self.whole_tuple = whole_tuple

    def leave_Call(self, original, updated):
        return self.value if original is self.call else updated

    def _emit(self, original, updated):
        if original is not self.stmt:
            return updated
        if self.whole_tuple is not None:
            return cst.FlattenSentinel(self.before)
        return cst.FlattenSentinel([*self.before, updated])

    def leave_SimpleStatementLine(self, original, updated):
        return self._emit(original, updated)

    def leave_If(self, original, updated):
        return self._emit(original, updated)


def inline_calls(source, fn, helper_source, origins: dict, count: int, read: dict,
                 imports: dict, unroll: bool = False):
    """``source``'s tree (the main function's) with its calls of the helper ``fn`` (whose
    source is ``helper_source``) written out, or None where none can be (see the module's
    docstring). ``count``: the helpers written out into it so far; ``read`` gets the names
    the calls named the helper by (the function depends on them as on any free name); a
    helper of another module: ``imports`` (the function's `FunctionSource.local_imports`)
    gets the values of the names it reads there under fresh names (guarded by the helper's
    own specialization, which the analysis that found its call made). ``unroll``: a helper
    that calls itself is written out with its own calls written out a few levels deep
    (`body_constructs.recursion`; an example going deeper raises in the batch, which then
    replays the per-example loop)."""
    helper = helper_source.tree
    recursive = unroll and bool(self_calls(helper, fn))
    if recursive:
        helper = unroll_recursion(helper, fn)
        if helper is None or _count(helper.body.body) > _RECURSIVE_STATEMENTS_MOST:
            # (a large body unrolled into the caller costs more to compile than the join:
            # lets_be_rational's normalised_black_call inside a Newton loop)
            return None
    if count >= _INLINED_MOST or not _plain_helper(fn, helper_source, source.func, helper):
        return None
    tree = source.tree
    body = [s for k, s in enumerate(helper.body.body) if not (k == 0 and _docstring(s))]
    if _count(body) > _STATEMENTS_MOST:
        return None
    params = list(inspect.signature(fn).parameters.values())
    local = {p.name for p in params} | _assigned(helper.body)
    caller_bound = bound_names(tree) | {p.name.value for p in walk(tree.params)
                                        if type(p) is cst.Param}
    free = {n.value for n in walk(helper.body) if type(n) is cst.Name} - local
    namer = Namer(all_names(tree) | all_names(helper) | set(source.local_imports))
    foreign: dict = {}      # (a name of another module the helper reads -> its fresh name)
    if fn.__globals__ is not source.func.__globals__:
        # (a helper of another module: the names it reads from its module are bound under
        # fresh names beside the function's)
        for name in sorted(free):
            found, value, scope = lookup(fn, name)
            if not found:
                return None
            if scope == "builtin" and source.lookup(name)[:2] == (True, value):
                continue
            foreign[name] = namer.fresh(name)
            imports[foreign[name]] = value
        free -= set(foreign)
    # (a name the helper reads from the module that the caller binds would be the caller's)
    if free & (caller_bound | _assigned(tree)):
        return None

    def is_call(node) -> bool:
        if type(node.func) is not cst.Name:
            return False
        found, value, _ = source.lookup(node.func.value)
        if not found or node.func.value in caller_bound:
            return False
        value = python_function_of(value)
        return value is fn or forwarded_target(value) is fn

    tree = _hoisted(tree, is_call, namer, origins, fn.__name__)
    sites = _Sites(is_call)
    tree.visit(sites)
    if not sites.found:
        return None
    if recursive and any(n is call for loop in walk(tree.body) if type(loop) in (
            cst.For, cst.While) for n in walk(loop) for _, call in sites.found):
        # (its unrolled copies in a loop cost more to compile than the join: lets_be_rational's
        # normalised_black_call in a Newton loop)
        return None
    for _ in range(len(sites.found)):
        sites = _Sites(is_call)
        tree.visit(sites)
        if not sites.found:
            break
        stmt, call = sites.found[0]
        read[call.func.value] = source.lookup(call.func.value)[1]
        try:
            bound = inspect.signature(fn).bind(*[object() for a in call.args
                                                 if a.keyword is None],
                                               **{a.keyword.value: object()
                                                  for a in call.args if a.keyword})
        except TypeError:
            return None
        positional = [a for a in call.args if a.keyword is None]
        keywords = {a.keyword.value: a for a in call.args if a.keyword is not None}
        names = {name: namer.fresh(f"{fn.__name__}_{name}") for name in sorted(local)}
        names.update(foreign)
        before: list = []
        k = 0
        for param in params:
            if k < len(positional) and param.kind in (param.POSITIONAL_ONLY,
                                                      param.POSITIONAL_OR_KEYWORD):
                value = positional[k].value
                k += 1
            elif param.name in keywords:
                value = keywords[param.name].value
            elif param.name in bound.arguments:
                return None
            else:
                value = _literal(param.default)
            before.append(cst.SimpleStatementLine([cst.Assign(
                [cst.AssignTarget(cst.Name(names[param.name]))], value.deep_clone())]))
        renamed = [_renamed(s, names) for s in body]
        whole_tuple = None
        if type(stmt) is cst.SimpleStatementLine and type(stmt.body[0]) is cst.Assign and \
                len(stmt.body[0].targets) == 1 and stmt.body[0].value is call and \
                type(stmt.body[0].targets[0].target) in (cst.Tuple, cst.List):
            targets = stmt.body[0].targets[0].target.elements
            if all(type(e) is cst.Element and type(e.value) is cst.Name for e in targets):
                returns = [n.value for s in renamed for n in walk(s) if type(n) is cst.Return]
                if all(type(r) in (cst.Tuple, cst.List) and len(r.elements) == len(targets)
                       and all(type(e) is cst.Element for e in r.elements) for r in returns):
                    whole_tuple = [e.value.value for e in targets]
        if whole_tuple is not None:
            def result(value, whole=whole_tuple):
                if type(value) not in (cst.Tuple, cst.List):
                    # (falling off the end: None, unpacked as Python raises)
                    return [cst.SimpleStatementLine([cst.Assign(
                        [cst.AssignTarget(cst.Tuple([cst.Element(cst.Name(n))
                                                     for n in whole]))], value)])]
                items = [cst.SimpleStatementLine([cst.Assign(
                    [cst.AssignTarget(cst.Name(namer.fresh(f"{fn.__name__}_item")))],
                    e.value)]) for e in value.elements]
                # (every item computed before any is assigned, as Python unpacks)
                return items + [cst.SimpleStatementLine([cst.Assign(
                    [cst.AssignTarget(cst.Name(n))], cst.Name(i.body[0].targets[0].target.value))])
                    for n, i in zip(whole, items)]
            out_name = None
        else:
            out_name = namer.fresh(f"{fn.__name__}_result")

            def result(value, out=out_name):
                return [cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(out))],
                                                            value)])]
        try:
            lowered = _lowered(renamed, result,
                               lambda: namer.fresh(f"{fn.__name__}_returned"))
        except _NotLowered:
            return None
        if _count(lowered) > _STATEMENTS_MOST:
            return None
        made = before + lowered
        origin = origins.get(stmt, stmt)
        for new in made:
            for n in walk(new):
                if isinstance(n, cst.BaseStatement):
                    origins.setdefault(n, origin)
        tree = tree.visit(_Replace(stmt, call, made, cst.Name(out_name or "None"),
                                   whole_tuple))
    return tree
