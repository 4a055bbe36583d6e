"""Closures and lambdas handed to the user's own helpers (`bind_closure_arguments`): a root
finder ``solve(f, x0)`` written in the same package, called with a nested ``def f`` (or a
``lambda``) that reads the function's own variables. The helper is read again with the
closure bound into its body, so the engine sees a closure it inlines where the helper calls
it, and the variables the closure reads become parameters of that helper."""

from __future__ import annotations

import inspect
import itertools
import linecache
import textwrap
import types
import weakref

import libcst as cst

from ..liveness import Namer
from ..syntax.traversal import rewrite, walk
from .helpers import helper_name

_SCOPES = (cst.Lambda, cst.FunctionDef, cst.ClassDef, cst.ListComp, cst.SetComp,
           cst.DictComp, cst.GeneratorExp)
_serial = itertools.count(1)


def bind_closure_arguments(tree: cst.FunctionDef, func, imported: dict, hoisted=None):
    """(the function with each call ``helper(..., f, ...)`` of one of the user's functions
    that is handed a closure ``f`` -- a nested ``def`` or ``name = lambda`` of the body's top
    level, or a ``lambda`` written in the call -- replaced by a call of ``helper`` bound to
    that closure, names of those bound helpers -> the functions).

    The bound helper is the helper's own source with the parameter ``f`` taken out, the
    closure defined as ``f`` at the top of its body, and the function's variables the
    closure reads as its first parameters: ``solve(f, 1.0)`` becomes ``solve_f(a, 1.0)``.
    The closure reads them where the helper calls it, and the helper cannot change them, so
    it reads the values they have where the helper is called. A default that captures a
    value (``lambda t, x=x: ...``) is such a parameter too, where the helper calls the
    closure with the other parameters only and the value cannot change between the
    closure's definition and the call. Anything else (a helper that is itself a closure, a
    closure reading names the body imports or other closures, a call under a nested scope)
    stays as it is, and is refused where it is used. ``hoisted``: the nested ``def`` s and
    ``name = lambda`` statements `hoist_helpers` took out of the body (name -> statement),
    bound as the others are (their batched copies read no name the file would lack)."""
    from ..liveness import writes
    tree = _aliases_replaced(tree)
    body = list(tree.body.body)
    outer = {p.name.value for p in tree.params.params}
    for part in (tree.params.star_arg, tree.params.star_kwarg):
        if isinstance(part, cst.Param):
            outer.add(part.name.value)
    outer |= {p.name.value for p in tree.params.kwonly_params}
    outer |= set(func.__code__.co_freevars)
    for stmt in body:
        outer |= writes(stmt)
    for n in walk(tree.body):
        if type(n) is cst.CompFor:
            outer |= _target_names(n.target)
    closures = {}       # name -> (index of its statement, the def or lambda)
    for index, stmt in enumerate(body):
        name = helper_name(stmt)
        if name is not None and sum(name in writes(s) or helper_name(s) == name
                                    for s in body) == 1:
            closures[name] = (index, stmt if type(stmt) is cst.FunctionDef
                              else stmt.body[0].value)
    for name, stmt in (hoisted or {}).items():
        # (read nowhere before their definition, which `hoist_helpers` took out: before all)
        closures[name] = (-1, stmt if type(stmt) is cst.FunctionDef else stmt.body[0].value)
    context = _Context(func, imported, outer, closures, body)
    made: dict = {}
    replacements: dict = {}
    for index, stmt in enumerate(body):
        for call in _calls(stmt):
            found = context.bound_call(call, index, stmt)
            if found is not None:
                replacements[id(call)], name, fn = found
                made[name] = fn
    if not replacements:
        return tree, {}
    new_body = [rewrite(s, _Replace(replacements)) for s in body]
    # a closure no longer used is dropped (the bound helpers have their own copy)
    kept = [s for s in new_body if helper_name(s) not in closures or any(
        type(n) is cst.Name and n.value == helper_name(s)
        for t in new_body if t is not s for n in walk(t))]
    return tree.with_changes(body=tree.body.with_changes(body=kept or [
        cst.SimpleStatementLine([cst.Pass()])])), made


def _aliases_replaced(tree: cst.FunctionDef) -> cst.FunctionDef:
    """``g = f`` at the top level of the body, where ``f`` is a nested ``def`` (or ``f =
    lambda ...``) of the body's top level before it and each name is bound once: ``g``
    is ``f`` (the same function object) in the statements after, and the assignment goes."""
    from ..liveness import writes
    body = list(tree.body.body)

    def bound_once(name):
        return sum(name in writes(s) or helper_name(s) == name for s in body) == 1
    for index, stmt in enumerate(body):
        if not (type(stmt) is cst.SimpleStatementLine and len(stmt.body) == 1 and type(
                stmt.body[0]) is cst.Assign and len(stmt.body[0].targets) == 1):
            continue
        target, value = stmt.body[0].targets[0].target, stmt.body[0].value
        if type(target) is not cst.Name or type(value) is not cst.Name or not bound_once(
                target.value) or not bound_once(value.value) or not any(
                helper_name(s) == value.value for s in body[:index]):
            continue
        alias, name = target.value, value.value

        if any(type(n) in (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.Global,
                           cst.Nonlocal) and any(type(m) is cst.Name and m.value == alias
                                                 for m in walk(n))
               for s in body[index + 1:] for n in walk(s)):
            continue        # (a nested scope's own `g`: left as it is)
        from .closures import renamed
        rest = [renamed(s, {alias: name}) for s in body[index + 1:]]
        body = body[:index] + rest
        tree = tree.with_changes(body=tree.body.with_changes(body=body or [
            cst.SimpleStatementLine([cst.Pass()])]))
        return _aliases_replaced(tree)
    return tree


def _target_names(node) -> set:
    return {n.value for n in walk(node) if type(n) is cst.Name}


def _calls(stmt):
    """The calls in ``stmt`` outside nested scopes other than comprehensions (a call in a
    lambda or a nested ``def`` runs with that scope's names)."""
    out = []

    def search(node, inside_def):
        if type(node) is cst.Call and not inside_def:
            out.append(node)
        if type(node) in (cst.FunctionDef, cst.ClassDef) or type(node) is cst.Lambda:
            inside_def = True
        for child in node.children:
            search(child, inside_def)
    if type(stmt) is cst.FunctionDef:
        return out
    search(stmt, False)
    return out


class _Replace(cst.CSTTransformer):
    def __init__(self, replacements: dict):
        self.replacements = replacements

    def leave_Call(self, original_node, updated_node):
        new = self.replacements.get(id(original_node))
        return updated_node if new is None else new


class _Context:
    def __init__(self, func, imported, outer, closures, body):
        self.func = func
        self.imported = imported
        self.outer = outer
        self.closures = closures
        self.body = body
        self.names = Namer({n.value for s in body for n in walk(s) if type(n) is cst.Name}
                           | outer)
        self.made: dict = {}     # (helper, parameter, closure) -> (name, function)
        # the helpers whose bound copies led to this one (a bound helper's own read)
        self.chain = getattr(func, "__vectorize_chain__", frozenset())

    def resolve(self, name: str):
        from ..introspect import lookup
        if name in self.imported:
            return self.imported[name]
        if name in self.outer:
            return None
        found, value, _ = lookup(self.func, name)
        return value if found else None

    def bound_call(self, call: cst.Call, index: int, stmt):
        """(the call of the bound helper that replaces ``call``, its name, the bound
        helper), or None."""
        if type(call.func) is not cst.Name or any(a.star for a in call.args):
            return None
        helper = self.resolve(call.func.value)
        if helper in self.chain:
            return None     # (a helper handing the closure on to itself: recursion)
        if type(helper) is not types.FunctionType or helper.__code__.co_freevars or \
                helper.__module__ and helper.__module__.split(".")[0] in (
                    "numpy", "math", "vectorize", "torch", "jax", "scipy"):
            return None
        handed = []     # (argument, the closure's name or None, the def or lambda)
        for arg in call.args:
            value = arg.value
            if type(value) is cst.Lambda:
                handed.append((arg, None, value))
            elif type(value) is cst.Name and value.value in self.closures:
                where, closure = self.closures[value.value]
                if where >= index or any(type(n) in _SCOPES and any(
                        m is call for m in walk(n)) for n in walk(stmt)):
                    return None
                handed.append((arg, value.value, closure))
        if not handed:
            return None
        try:
            signature = inspect.signature(helper, follow_wrapped=False)
            placeholders = [object() for _ in call.args]
            bound = signature.bind(*[p for p, a in zip(placeholders, call.args)
                                     if a.keyword is None],
                                   **{a.keyword.value: p for p, a in zip(placeholders,
                                                                         call.args)
                                      if a.keyword is not None})
        except (TypeError, ValueError):
            return None
        items = []      # (parameter, closure, its variables, its captured defaults)
        for arg, closure_name, closure in handed:
            mine = placeholders[call.args.index(arg)]
            param = next((k for k, v in bound.arguments.items() if v is mine), None)
            if param is None or signature.parameters[param].kind is not \
                    inspect.Parameter.POSITIONAL_OR_KEYWORD:
                return None
            captured = self._captured(closure, closure_name, index)
            if captured is None:
                return None
            items.append((param, closure, *captured))
        key = (helper, tuple((param, id(self.closures[name][1]) if name else id(closure))
                             for (param, *_), (_, name, closure) in zip(items, handed)))
        if key in self.made:
            name, fn, order = self.made[key]
        else:
            found = _bind(helper, items, self.func)
            if found is None:
                return None
            fn, order = found
            # (the name the function calls it by: rebinding it makes a new specialization)
            fn.__vectorize_binds__ = (call.func.value, helper)
            fn.__vectorize_chain__ = self.chain | {helper}
            names = [closure_name or "lambda" for _, closure_name, _ in handed]
            name = self.names.fresh("_".join([call.func.value, *names]))
            self.made[key] = (name, fn, order)
        leading = []
        for which, v in order:
            if which is None:
                leading.append(cst.Arg(cst.Name(v)))
            else:
                leading.append(cst.Arg(dict(items[which][3])[v].deep_clone()))
        arguments = {id(arg) for arg, *_ in handed}
        rest = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in call.args
                if id(a) not in arguments]
        return call.with_changes(func=cst.Name(name), args=leading + rest), name, fn

    def _captured(self, closure, closure_name, index):
        """(the function's variables ``closure`` reads, [(parameter with a default, its
        default expression)]), or None where it cannot be bound."""
        from ..liveness import writes
        params = closure.params
        if params.star_arg not in (None, cst.MaybeSentinel.DEFAULT) or \
                params.kwonly_params or params.star_kwarg or params.posonly_params:
            return None
        own = {p.name.value for p in params.params}
        if type(closure) is cst.FunctionDef:
            lines = list(closure.body.body)
            for line in lines:
                own |= writes(line)
            if any(type(n) in (cst.Global, cst.Nonlocal, cst.Yield, cst.Await)
                   for n in walk(closure.body)):
                return None
            inner = closure.body
        else:
            inner = closure.body
        names = _read_names(inner)
        if closure_name is not None and closure_name in names:
            return None         # calls itself
        free = sorted((names - own) & self.outer)
        if any(v in self.closures or v in self.imported for v in free):
            return None
        # what else it reads is the module's (or a builtin): the same object where the
        # helper's module has that name, or the bound helper would read another
        for name in names - own - self.outer:
            if name in self.imported:
                return None
        defaults = []
        for p in params.params:
            if p.default is None:
                continue
            if not _pure(p.default):
                return None
            if closure_name is not None:
                later = set()
                for s in self.body[self.closures[closure_name][0] + 1:]:
                    later |= writes(s)
                if _read_names(p.default) & later:
                    return None     # rebound between the definition and a call
            defaults.append((p.name.value, p.default))
        return free, defaults


def _read_names(node) -> set:
    """The names ``node`` mentions, but attributes' names and keywords of calls."""
    skip = set()
    for n in walk(node):
        if type(n) is cst.Attribute:
            skip.add(id(n.attr))
        elif type(n) is cst.Arg and n.keyword is not None:
            skip.add(id(n.keyword))
        elif type(n) is cst.Param:
            skip.add(id(n.name))
    return {n.value for n in walk(node) if type(n) is cst.Name and id(n) not in skip}


def _pure(node) -> bool:
    """A default that reads without running anything: a name, a number, an attribute of
    a name, a negated number."""
    if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus:
        node = node.expression
    while type(node) is cst.Attribute:
        node = node.value
    return type(node) in (cst.Name, cst.Integer, cst.Float, cst.Imaginary)


def _bind(helper, items: list, outer):
    """(the helper bound to the closures of ``items`` -- (its parameter, the def or lambda,
    the function's variables it reads, its captured defaults) -- as a function, the order of
    its leading parameters: (None, a variable) or (the item's index, a default's name)), or
    None."""
    from ..introspect import lookup, source_lines, source_matches_code
    from ..liveness import all_names, writes
    from .closures import renamed as with_names
    try:
        lines, _ = source_lines(helper)
    except (OSError, TypeError):
        return None
    text = textwrap.dedent("".join(lines))
    if not source_matches_code(helper, text):
        return None
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError:
        return None
    defs = [s for s in module.body if type(s) is cst.FunctionDef]
    if not defs or defs[0].asynchronous or defs[0].params.posonly_params:
        return None
    tree = defs[0].with_changes(decorators=[])
    body = list(tree.body.body) if type(tree.body) is cst.IndentedBlock else [tree.body]
    params = {param for param, *_ in items}
    if any(params & writes(s) for s in body) or any(
            type(n) in (cst.Global, cst.Nonlocal) for n in walk(tree.body)):
        return None
    if body and type(body[0]) is cst.SimpleStatementLine and type(
            body[0].body[0]) is cst.Expr and type(body[0].body[0].value) in (
            cst.SimpleString, cst.ConcatenatedString):
        body = body[1:]         # (its docstring)
    taken = all_names(tree) | params
    order, leading_names, statements = [], {}, []
    for which, (param, closure, free, defaults) in enumerate(items):
        if defaults and not _only_called(body, param,
                                         len(closure.params.params) - len(defaults)):
            return None
        own = {p.name.value for p in closure.params.params}
        if type(closure) is cst.FunctionDef:
            for line in closure.body.body:
                own |= writes(line)
        # the module's names (and builtins) the closure reads: no name of the helper's may
        # hide them once it is defined in the helper's body
        if (_read_names(closure.body) - own - set(free)) & all_names(tree):
            return None
        if helper.__globals__ is not outer.__globals__:
            # the module names the closure reads must be the same objects for the helper
            for name in _read_names(closure.body) - own - set(free):
                a, b = lookup(outer, name), lookup(helper, name)
                if not a[0] or not b[0] or a[1] is not b[1]:
                    return None
        renames = {}
        for key in [(None, v) for v in free] + [(which, d) for d, _ in defaults]:
            if key not in leading_names:
                base = key[1]
                new, k = base, 1
                while new in taken:
                    k += 1
                    new = f"{base}_{param}" if k == 2 else f"{base}_{param}_{k - 1}"
                taken.add(new)
                leading_names[key] = new
                order.append(key)
            renames[key[1]] = leading_names[key]
        kept = [p for p in closure.params.params if p.default is None]
        if type(closure) is cst.FunctionDef:
            statements.append(closure.with_changes(
                name=cst.Name(param), decorators=[], leading_lines=[],
                params=closure.params.with_changes(params=kept),
                body=with_names(closure.body, renames)))
        else:
            lam = closure.with_changes(params=closure.params.with_changes(
                params=[p.with_changes(comma=cst.MaybeSentinel.DEFAULT) for p in kept]),
                body=with_names(closure.body, renames), lpar=[], rpar=[])
            statements.append(cst.SimpleStatementLine([cst.Assign(
                [cst.AssignTarget(cst.Name(param))], lam)]))
    leading = [cst.Param(cst.Name(leading_names[key])) for key in order]
    new_params = tree.params.with_changes(params=leading + [
        p.with_changes(comma=cst.MaybeSentinel.DEFAULT) for p in tree.params.params
        if p.name.value not in params])
    bound = tree.with_changes(params=new_params, leading_lines=[],
                              body=cst.IndentedBlock([*statements, *body]))
    source = cst.Module([bound]).code
    filename = (f"<vectorize: {helper.__qualname__} with {', '.join(sorted(params))} bound "
                f"to closures of {outer.__qualname__} #{next(_serial)}>")
    try:
        code = compile(source, filename, "exec")
    except SyntaxError:
        return None
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace: dict = {}
    try:
        exec(code, helper.__globals__, namespace)  # noqa: S102
    except Exception:   # noqa: BLE001 -- its defaults fail: left to the call as written
        linecache.cache.pop(filename, None)
        return None
    fn = namespace[tree.name.value]
    # the helper's defaults as it made them (made again here, a global rebound since would
    # give another value)
    kept = [q for q in inspect.signature(helper, follow_wrapped=False).parameters.values()
            if q.name not in params and q.kind in (q.POSITIONAL_ONLY, q.POSITIONAL_OR_KEYWORD)]
    defaults = tuple(q.default for q in kept if q.default is not q.empty)
    fn.__defaults__ = defaults or None
    fn.__kwdefaults__ = dict(helper.__kwdefaults__) if helper.__kwdefaults__ else None
    weakref.finalize(fn, linecache.cache.pop, filename, None)
    fn.__module__ = helper.__module__
    fn.__qualname__ = helper.__qualname__
    return fn, order


def _only_called(body, name: str, count: int) -> bool:
    """Whether ``body`` uses ``name`` only in calls with ``count`` positional arguments."""
    called = set()
    for stmt in body:
        for n in walk(stmt):
            if type(n) is cst.Call and type(n.func) is cst.Name and n.func.value == name:
                if len(n.args) != count or any(a.keyword is not None or a.star
                                                for a in n.args):
                    return False
                called.add(id(n.func))
    return all(id(n) in called for stmt in body for n in walk(stmt)
               if type(n) is cst.Name and n.value == name)


def bound_helper_of(value):
    """(the name the function calls the helper by, the helper) that a bound helper
    (`bind_closure_arguments`) stands for, or None."""
    return getattr(value, "__vectorize_binds__", None)
