"""Constructs of a function's body that Python evaluates the same way on every call, made
ready for the engine when the function is read (`source.read_function`):

- ``import`` / ``from ... import`` at the top level of the body (`hoist_imports`): read as
  globals (`FunctionSource.lookup`, scope "import");
- nested ``def`` s and ``name = lambda ...`` that read none of the function's own names
  (`hoist_helpers`): made once, vectorized as helpers;
- comprehensions over ``range`` of literals or a global tuple of numbers
  (`unroll_comprehensions`): written out as the list of their items.

Each takes a statement out of the tree (or rewrites an expression) only where the result is
what Python computes; anything else stays for the analysis, which refuses it with its
location.
"""

from __future__ import annotations

import textwrap

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from .introspect import lookup
from .syntax.printer import code
from .syntax.traversal import rewrite, walk


def hoist_imports(tree: cst.FunctionDef, func):
    """(the function without the ``import`` / ``from ... import`` statements of its body's
    top level, the names they bind -> their values). Python runs them on every call and
    they bind the same modules and attributes each time: the code reads the names as it
    reads globals (`FunctionSource.lookup`). Only statements whose names the function binds
    nowhere else and reads nowhere before them; the others stay (and are refused)."""
    from .liveness import all_names, writes
    body = list(tree.body.body)
    if not any(type(s) is cst.SimpleStatementLine and s.body and all(
            type(x) in (cst.Import, cst.ImportFrom) for x in s.body) for s in body):
        return tree, {}
    imports: dict = {}
    kept = []
    for index, stmt in enumerate(body):
        if not (type(stmt) is cst.SimpleStatementLine and stmt.body and all(
                type(x) in (cst.Import, cst.ImportFrom) for x in stmt.body)):
            kept.append(stmt)
            continue
        try:
            bound = _imported(stmt, func)
        except Exception:   # noqa: BLE001 -- it fails as Python's own import would, later
            bound = None
        others = body[:index] + body[index + 1:]
        if bound is None or any(name in all_names(s) for s in body[:index] for name in bound) \
                or any(name in writes(s) for s in others for name in bound) \
                or set(bound) & {p.name.value for p in tree.params.params}:
            kept.append(stmt)
            continue
        imports.update(bound)
    if not imports:
        return tree, {}
    return tree.with_changes(body=tree.body.with_changes(body=kept or [
        cst.SimpleStatementLine([cst.Pass()])])), imports


def hoist_helpers(tree: cst.FunctionDef, func, module, line_offset: int, col_offset: int,
                   filename: str, imported: set):
    """(the function without the ``def`` statements and ``name = lambda ...`` assignments of
    its body's top level that read none of its own names, those names -> the functions they
    make). Such a helper is the same function on every call whatever the examples, so it is
    made once here (compiled from the file's own lines, so that its source can be read) and
    called as a module-level helper is: vectorized with the function. A helper that reads
    the function's parameters or variables (a closure), has decorators or is bound twice
    stays (and is refused where it is used on per-example values)."""
    import symtable

    from .liveness import all_names, writes
    body = list(tree.body.body)
    candidates = [i for i, stmt in enumerate(body) if _helper_name(stmt) is not None]
    if not candidates:
        return tree, {}
    outer = {p.name.value for p in tree.params.params} | set(imported)
    for part in (tree.params.star_arg, tree.params.star_kwarg):
        if isinstance(part, cst.Param):
            outer.add(part.name.value)
    for stmt in body:
        outer |= writes(stmt)
        if type(stmt) in (cst.FunctionDef, cst.ClassDef):
            outer.add(stmt.name.value)
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    made: dict = {}
    hoisted: set = set()
    for index in candidates:
        stmt = body[index]
        name = _helper_name(stmt)
        where = positions.get(stmt)
        if where is None or sum(name in writes(s) or _helper_name(s) == name
                                for s in body) != 1 or any(
                name in all_names(s) for s in body[:index]):
            continue
        text = textwrap.dedent(module.code_for_node(stmt))
        try:
            table = symtable.symtable(text, filename, "exec")
        except SyntaxError:
            continue
        if _reads_of(table) - {name} & outer:
            continue      # a closure over the function's own names
        namespace: dict = {}
        try:
            # on its own lines of the file: `inspect` finds its source there
            padded = "\n" * (where.start.line + line_offset - 1) + text
            exec(compile(padded, filename, "exec"), func.__globals__, namespace)  # noqa: S102
        except Exception:   # noqa: BLE001 -- its defaults fail: as Python would, at run time
            continue
        made[name] = namespace[name]
        hoisted.add(index)
    if not made:
        return tree, {}
    kept = [stmt for i, stmt in enumerate(body) if i not in hoisted]
    return tree.with_changes(body=tree.body.with_changes(body=kept or [
        cst.SimpleStatementLine([cst.Pass()])])), made


def inline_closures(tree: cst.FunctionDef) -> cst.FunctionDef:
    """A nested ``def name(a, b): return <expression>`` (or ``name = lambda a, b: ...``) at
    the top level of the body that reads the function's own variables (a closure, which
    `hoist_helpers` leaves), used only in calls ``name(x, y)`` after it: each call becomes
    the expression with its arguments in place of the parameters, which reads the closed-over
    variables where the call is, as the closure does when it runs. Only parameters without
    defaults, calls with as many positional arguments, and arguments that are names or
    literals (or parameters used once): nothing is evaluated twice or in another order."""
    from .liveness import writes
    body = list(tree.body.body)
    for index, stmt in enumerate(body):
        found = _single_expression(stmt)
        if found is None:
            continue
        name, params, expression = found
        rest = body[index + 1:]
        if sum(name in writes(s) or _helper_name(s) == name for s in body) != 1:
            continue
        calls, other_uses = _uses(rest, name)
        if not calls or other_uses or any(
                len(c.args) != len(params) or any(a.star or a.keyword is not None
                                                  for a in c.args) for c in calls):
            continue
        counts = {p: sum(1 for n in walk(expression) if type(n) is cst.Name
                         and n.value == p) for p in params}
        if any(counts[p] > 1 and type(a.value) not in _SIMPLE for c in calls
               for p, a in zip(params, c.args)):
            continue
        replacements = {id(c): _substitute_all(expression, dict(zip(
            params, [a.value for a in c.args]))) for c in calls}

        new_rest = [rewrite(s, _Inline(replacements)) for s in rest]
        body = body[:index] + [cst.SimpleStatementLine([cst.Pass()])] + new_rest
        tree = tree.with_changes(body=tree.body.with_changes(body=body))
        return inline_closures(tree)    # the next one, in the new body
    body = [s for s in body if not (type(s) is cst.SimpleStatementLine and len(s.body) == 1
                                    and type(s.body[0]) is cst.Pass)] or body
    return tree.with_changes(body=tree.body.with_changes(body=body))


class _Inline(cst.CSTTransformer):
    def __init__(self, replacements: dict):
        self.replacements = replacements      # id(call) -> its expression

    def leave_Call(self, original_node, updated_node):
        new = self.replacements.get(id(original_node))
        return updated_node if new is None else new


_SIMPLE = (cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)


def _single_expression(stmt):
    """(name, parameters, the expression returned) of ``def name(...): return e`` (a
    docstring allowed) or ``name = lambda ...: e`` with plain parameters; None otherwise."""
    name = _helper_name(stmt)
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
                       cst.NamedExpr, cst.Yield, cst.Await) for n in walk(expression)):
        return None
    return name, [p.name.value for p in params.params], expression


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


UNROLL_LIMIT = 64
"""Items of a comprehension over a fixed sequence that `unroll_comprehensions` writes out."""


def unroll_comprehensions(tree: cst.FunctionDef, func, imports: dict) -> cst.FunctionDef:
    """``[x ** k for k in range(4)]`` (or a generator, ``sum(c * x for c in COEFFS)``) over a
    sequence the same for every example and of a length known from the code: ``range`` of
    integer literals, or a global (or body import) bound to a tuple of numbers, whose items
    never change while it is bound (a rebinding makes a new specialization) -- as the list
    of its items: ``[x ** 0, x ** 1, x ** 2, x ** 3]``, ``[COEFFS[0] * x, ...]``. The
    engine batches a list of per-example values item by item. Only one ``for`` without
    ``if``, over a plain name its element reads with no nested scope rebinding it."""
    if not any(type(n) in (cst.ListComp, cst.GeneratorExp) for n in walk(tree)):
        return tree
    assigned = {p.name.value for p in tree.params.params}
    from .liveness import writes
    for stmt in tree.body.body:
        assigned |= writes(stmt)
    # a list of per-example values handed to a function (`sum(terms)`, `np.mean([...])`) is
    # left to the rules of that function: only lists the code indexes are written out
    handed = {id(a.value) for n in walk(tree) if type(n) is cst.Call for a in n.args}
    consumed = _reduced(tree, func, assigned)
    handed_names = {a.value.value for n in walk(tree) if type(n) is cst.Call
                    for a in n.args if type(a.value) is cst.Name and id(a.value) not in consumed}
    skip = set(handed) - consumed
    for n in walk(tree):
        if type(n) is cst.Assign and type(n.value) in (cst.ListComp, cst.GeneratorExp) and any(
                type(t.target) is cst.Name and t.target.value in handed_names
                for t in n.targets):
            skip.add(id(n.value))

    def items(iterable):
        if type(iterable) is cst.Call and type(iterable.func) is cst.Name and \
                iterable.func.value == "range" and "range" not in assigned and \
                lookup(func, "range")[2] == "builtin" and iterable.args and all(
                    a.keyword is None and not a.star for a in iterable.args):
            bounds = [_int_value(a.value) for a in iterable.args]
            if None in bounds or len(bounds) > 3 or bounds[-1:] == [0] and len(bounds) == 3:
                return None
            values = range(*bounds)
            if len(values) > UNROLL_LIMIT:
                return None
            return [cst.Integer(str(v)) if v >= 0 else cst.UnaryOperation(
                cst.Minus(), cst.Integer(str(-v))) for v in values]
        if type(iterable) is cst.Name and iterable.value not in assigned:
            found, value, scope = (True, imports[iterable.value], "import") \
                if iterable.value in imports else lookup(func, iterable.value)
            if found and scope in ("global", "closure", "import") and type(value) is tuple \
                    and len(value) <= UNROLL_LIMIT and all(
                        type(v) in (int, float, complex, bool) for v in value):
                return [cst.Subscript(cst.Name(iterable.value), [cst.SubscriptElement(
                    cst.Index(cst.Integer(str(i))))]) for i in range(len(value))]
        return _more_items(iterable, items, func, assigned)

    class Unroll(cst.CSTTransformer):
        def leave_GeneratorExp(self, original_node, updated_node):
            return updated_node if id(original_node) in skip else self._unrolled(updated_node)

        def leave_ListComp(self, original_node, updated_node):
            return updated_node if id(original_node) in skip else self._unrolled(updated_node)

        @staticmethod
        def _unrolled(node):
            target = node.for_in
            if target.inner_for_in is not None or target.ifs or target.asynchronous or \
                    _target_names(target.target) is None:
                return node
            names = _target_names(target.target)
            if any(type(n) in (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp,
                               cst.GeneratorExp, cst.NamedExpr) for n in walk(node.elt)):
                return node
            values = items(target.iter)
            if values is None:
                return node
            elements = []
            for value in values:
                parts = _unpacked(value, names)
                if parts is None:
                    return node
                elt = node.elt
                for one, part in zip(names, parts):
                    elt = _substitute(elt, one, part)
                elements.append(cst.Element(elt))
            return cst.List(elements, lpar=node.lpar if type(node) is cst.ListComp else [],
                            rpar=node.rpar if type(node) is cst.ListComp else [])

    return rewrite(tree, Unroll())



def _int_value(node):
    if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus:
        inner = _int_value(node.expression)
        return None if inner is None else -inner
    if type(node) is cst.Integer:
        return int(node.value.replace("_", ""), 0)
    return None


def _substitute(expr, name: str, value):
    """``expr`` with every ``name`` replaced by ``value`` (parenthesized)."""
    class Replace(cst.CSTTransformer):
        def leave_Name(self, original_node, updated_node):
            if updated_node.value != name:
                return updated_node
            return value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]) \
                if type(value) is cst.UnaryOperation else value
    return expr.visit(Replace())


def _helper_name(stmt) -> str | None:
    """The name a plain ``def`` (no decorators) or ``name = lambda ...`` binds, else None."""
    if type(stmt) is cst.FunctionDef:
        return None if stmt.decorators or stmt.asynchronous else stmt.name.value
    if type(stmt) is cst.SimpleStatementLine and len(stmt.body) == 1 and type(
            stmt.body[0]) is cst.Assign and len(stmt.body[0].targets) == 1 and type(
            stmt.body[0].targets[0].target) is cst.Name and type(
            stmt.body[0].value) is cst.Lambda:
        return stmt.body[0].targets[0].target.value
    return None


def _reads_of(table) -> set:
    """Names the functions of a module's symbol table read from outside themselves."""
    out: set = set()
    stack = list(table.get_children())
    while stack:
        child = stack.pop()
        out |= {s.get_name() for s in child.get_symbols()
                if s.is_referenced() and (s.is_global() or s.is_free())}
        stack += child.get_children()
    for symbol in table.get_symbols():      # the defaults and the lambda's own statement
        if symbol.is_referenced():
            out.add(symbol.get_name())
    return out


def _imported(stmt, func) -> dict | None:
    """The names one line of imports binds and their values (importing what it names), or
    None for what is not read that way (``from m import *``)."""
    import importlib
    package = func.__globals__.get("__package__")
    out: dict = {}
    for small in stmt.body:
        if type(small) is cst.Import:
            for alias in small.names:
                dotted = code(alias.name)
                module = importlib.import_module(dotted)
                if alias.asname is not None:
                    out[alias.asname.name.value] = module
                else:
                    out[dotted.split(".")[0]] = importlib.import_module(dotted.split(".")[0])
            continue
        if isinstance(small.names, cst.ImportStar):
            return None
        dots = "." * len(small.relative)
        name = dots + (code(small.module) if small.module is not None else "")
        module = importlib.import_module(name, package if dots else None)
        for alias in small.names:
            attr = alias.name.value
            try:
                value = getattr(module, attr)
            except AttributeError:
                value = importlib.import_module(f"{module.__name__}.{attr}")
            out[alias.asname.name.value if alias.asname is not None else attr] = value
    return out


# builtins that consume a comprehension handed to them whole, in order: unrolled into a
# display (`any`/`all` into `or`/`and` chains, which stop where Python's would)
_CONSUMERS = ("sum", "max", "min", "any", "all", "tuple", "list", "sorted")


def _reduced(tree, func, assigned) -> set:
    """ids of the comprehensions handed as the only positional argument to a builtin of
    `_CONSUMERS` (not rebound): the builtin consumes every item, so they are unrolled."""
    out = set()
    for n in walk(tree):
        if type(n) is cst.Call and type(n.func) is cst.Name and n.func.value in _CONSUMERS \
                and n.func.value not in assigned and lookup(func, n.func.value)[2] == \
                "builtin" and n.args and n.args[0].keyword is None and not n.args[0].star \
                and all(a.keyword is not None or i == 0 or n.func.value == "sum"
                        for i, a in enumerate(n.args)):
            out.add(id(n.args[0].value))
    return out


def consumers_as_displays(tree: cst.FunctionDef, func) -> cst.FunctionDef:
    """After `unroll_comprehensions`: ``tuple([a, b])`` as ``(a, b)``, ``list([...])`` as
    the list, ``any([a, b])`` as ``bool(a or b)`` and ``all([...])`` as ``bool(a and b)``
    (a comparison or ``not`` needs no ``bool``): the values Python computes, with its
    short-circuit (items after the deciding one are not evaluated, as the generator's
    are not)."""
    from .liveness import writes
    assigned = {p.name.value for p in tree.params.params}
    for stmt in tree.body.body:
        assigned |= writes(stmt)

    class Displays(cst.CSTTransformer):
        def leave_Call(self, original_node, node):
            if not (type(node.func) is cst.Name and node.func.value in (
                    "tuple", "list", "any", "all") and len(node.args) == 1 and type(
                    node.args[0].value) is cst.List and node.args[0].keyword is None
                    and not node.args[0].star and node.func.value not in assigned
                    and lookup(func, node.func.value)[2] == "builtin"):
                return node
            elements = node.args[0].value.elements
            if any(type(e) is not cst.Element for e in elements):
                return node
            values = [e.value for e in elements]
            kind = node.func.value
            if kind == "list":
                return node.args[0].value
            if kind == "tuple":
                return cst.Tuple([cst.Element(v) for v in values] if len(values) != 1 else [
                    cst.Element(values[0], comma=cst.Comma())],
                    lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            if not values:
                return cst.Name("True" if kind == "all" else "False")
            parts = [v if type(v) in (cst.Comparison, cst.Name) or type(
                v) is cst.UnaryOperation and type(v.operator) is cst.Not else cst.Call(
                cst.Name("bool"), [cst.Arg(v)]) for v in values]
            operator = cst.And() if kind == "all" else cst.Or()
            out = parts[0]
            for p in parts[1:]:
                out = cst.BooleanOperation(_parened(out), operator, _parened(p))
            if all(type(p) is not cst.Name for p in parts):
                return _parened(out)
            return cst.Call(cst.Name("bool"), [cst.Arg(out)])

    if not any(type(n) is cst.Call and type(n.func) is cst.Name and n.func.value in (
            "tuple", "list", "any", "all") for n in walk(tree)):
        return tree
    return rewrite(tree, Displays())


def _parened(node):
    if type(node) in (cst.Name, cst.Call, cst.Subscript, cst.Attribute, cst.Integer):
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _target_names(target):
    """The names a comprehension's target binds, in order (a name or a flat tuple of
    names), or None."""
    if type(target) is cst.Name:
        return [target.value]
    if type(target) in (cst.Tuple, cst.List) and all(
            type(e) is cst.Element and type(e.value) is cst.Name for e in target.elements):
        return [e.value.value for e in target.elements]
    return None


def _unpacked(value, names):
    """The values ``names`` (a comprehension's target) take for one item ``value``: the
    item itself for one name; for a tuple target, the parts of a tuple of nodes, or
    ``value[0]``, ``value[1]``, ... of a subscript of a shared table."""
    if len(names) == 1 and not isinstance(value, tuple):
        return [value]
    if isinstance(value, tuple):
        return list(value) if len(value) == len(names) else None
    return [cst.Subscript(value, [cst.SubscriptElement(cst.Index(cst.Integer(str(j))))])
            for j in range(len(names))]


def _more_items(iterable, items, func, assigned):
    """Items of the sequences `unroll_comprehensions` also writes out: a tuple or list
    display of names and literals (each item as written), ``enumerate``/``zip`` of
    sequences it writes out (tuples of nodes), and a global tuple of rows of numbers, all of
    one length (``TABLE[i]``, unpacked by the target)."""
    if type(iterable) in (cst.Tuple, cst.List):
        if all(type(e) is cst.Element and type(e.value) in (
                cst.Name, cst.Integer, cst.Float, cst.Imaginary) for e in iterable.elements) \
                and len(iterable.elements) <= UNROLL_LIMIT:
            return [e.value for e in iterable.elements]
        return None
    if type(iterable) is cst.Call and type(iterable.func) is cst.Name and iterable.func.value \
            in ("enumerate", "zip") and iterable.func.value not in assigned and lookup(
                func, iterable.func.value)[2] == "builtin" and iterable.args and all(
                a.keyword is None and not a.star for a in iterable.args):
        if iterable.func.value == "enumerate":
            if len(iterable.args) != 1:
                return None
            inner = items(iterable.args[0].value)
            return None if inner is None else [(cst.Integer(str(i)), v)
                                               for i, v in enumerate(inner)]
        parts = [items(a.value) for a in iterable.args]
        if any(p is None for p in parts):
            return None
        return [tuple(p[i] for p in parts) for i in range(min(len(p) for p in parts))]
    if type(iterable) is cst.Name and iterable.value not in assigned:
        found, value, scope = lookup(func, iterable.value)
        if found and scope in ("global", "closure") and type(value) is tuple and len(
                value) <= UNROLL_LIMIT and value and all(
                type(row) is tuple and len(row) == len(value[0]) and all(
                    type(v) in (int, float, bool) for v in row) for row in value):
            return [cst.Subscript(cst.Name(iterable.value), [cst.SubscriptElement(
                cst.Index(cst.Integer(str(i))))]) for i in range(len(value))]
    return None


def inline_statement_closures(tree: cst.FunctionDef) -> cst.FunctionDef:
    """A nested ``def name(a, b): <statements>; return <expression>`` at the top level of
    the body that reads the function's own variables (a closure of several statements, which
    `hoist_helpers` and `inline_closures` leave), called only in statements of the body's
    top level after it (``y = name(x, 2.0)``, ``return name(x) + 1``): before each such
    statement its parameters are bound to the arguments, in order, and its statements run
    on names of their own (``z`` -> ``z_name``); the call becomes the returned expression.
    The closed-over variables are read where the call is, as the closure reads them when it
    runs. Only bodies with no other ``return``, no ``yield``/``global``/``nonlocal``/nested
    scopes, and calls with as many positional arguments that sit outside conditional
    expressions, ``and``/``or`` and nested scopes of their statement."""
    from .liveness import writes
    body = list(tree.body.body)
    taken = {n.value for n in walk(tree) if type(n) is cst.Name}
    for index, stmt in enumerate(body):
        if type(stmt) is not cst.FunctionDef or _helper_name(stmt) is None:
            continue
        found = _statement_closure(stmt)
        if found is None:
            continue
        name, params, lines, result = found
        rest = body[index + 1:]
        if sum(name in writes(s) or _helper_name(s) == name for s in body) != 1:
            continue
        calls, other_uses = _uses(rest, name)
        if not calls or other_uses or any(
                len(c.args) != len(params) or any(a.star or a.keyword is not None
                                                  for a in c.args) for c in calls):
            continue
        if not all(type(s) is cst.SimpleStatementLine for s in rest
                   if any(id(c) in {id(n) for n in walk(s)} for c in calls)) or any(
                _in_conditional(s, c) for s in rest for c in calls):
            continue
        local = set(params)
        for line in lines:
            local |= writes(line)
        new_rest = []
        for s in rest:
            mine = [c for c in calls if any(c is n for n in walk(s))]
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
                prologue += [_renamed(line, renames) for line in lines]
                replacements[id(call)] = _renamed(result, renames).with_changes(
                    lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            new_rest += prologue + [rewrite(s, _Inline(replacements)) if mine else s]
        tree = tree.with_changes(body=tree.body.with_changes(body=body[:index] + new_rest))
        return inline_statement_closures(tree)      # the next one
    return tree


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
           for line in lines[:-1] for n in walk(line)):
        return None
    return stmt.name.value, [p.name.value for p in params.params], lines[:-1], \
        lines[-1].body[0].value


def _in_conditional(stmt, call) -> bool:
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


def _renamed(node, renames: dict):
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
