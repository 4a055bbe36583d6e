"""Comprehensions over a sequence of a length known from the code, written out as the list
of their items (`unroll_comprehensions`), and the builtins that consume them whole as
displays (`consumers_as_displays`)."""

from __future__ import annotations

import libcst as cst

from ..introspect import lookup
from ..rules.lanes import SUM_ITEM
from ..syntax.traversal import by_type, rewrite, walk

UNROLL_LIMIT = 64
"""Items of a comprehension over a fixed sequence that `unroll_comprehensions` writes out."""


def unroll_comprehensions(tree: cst.FunctionDef, func, imports: dict,
                          lazy: set | None = None) -> cst.FunctionDef:
    """``[x ** k for k in range(4)]`` (or a generator, ``sum(c * x for c in COEFFS)``) over a
    sequence the same for every example and of a length known from the code: ``range`` of
    integer literals, or a global (or body import) bound to a tuple of numbers, whose items
    never change while it is bound (a rebinding makes a new specialization) -- as the list
    of its items: ``[x ** 0, x ** 1, x ** 2, x ** 3]``, ``[COEFFS[0] * x, ...]``. The
    engine batches a list of per-example values item by item. Only one ``for`` without
    ``if``, over a plain name its element reads with no nested scope rebinding it. The
    displays written for generators are added (by id) to ``lazy``: `consumers_as_displays`
    may stop evaluating them where ``any``/``all`` decide, as a generator stops (a list
    comprehension's items are all evaluated before ``any`` reads one)."""
    if not {cst.ListComp, cst.GeneratorExp, cst.DictComp} & set(by_type(tree)):
        return tree
    from ..liveness import bound_names
    assigned = bound_names(tree)
    # a list of per-example values handed to a function (`sum(terms)`, `np.mean([...])`) is
    # left to the rules of that function: only lists the code indexes are written out
    handed = {id(a.value) for n in walk(tree) if type(n) is cst.Call for a in n.args}
    consumed = _reduced(tree, func, assigned)
    handed_names = {a.value.value for n in walk(tree) if type(n) is cst.Call
                    and not _reads_items(n, func, assigned)
                    for a in n.args if type(a.value) is cst.Name and id(a.value) not in consumed}
    skip = set(handed) - consumed
    tables, after = _local_tables(tree, func)
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
            bounds = [int_value(a.value) for a in iterable.args]
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
        if type(iterable) is cst.Name and iterable.value in tables:
            where, values = tables[iterable.value]
            if where is None:
                return [cst.Subscript(cst.Name(iterable.value), [cst.SubscriptElement(
                    cst.Index(cst.Integer(str(i))))]) for i in range(values)]
            if after.get(id(iterable), -1) > where:
                return [v.deep_clone() for v in values]
        return _more_items(iterable, items, func, assigned)

    class Unroll(cst.CSTTransformer):
        def leave_GeneratorExp(self, original_node, updated_node):
            return updated_node if id(original_node) in skip else self._unrolled(updated_node)

        def leave_ListComp(self, original_node, updated_node):
            return updated_node if id(original_node) in skip else self._unrolled(updated_node)

        def leave_DictComp(self, original_node, updated_node):
            """``{w: a * w for w in range(3)}``: the display ``{0: a * 0, 1: a * 1, 2: a *
            2}`` (each key evaluated before its value, as the comprehension does; a key
            repeated keeps the last value, as both do)."""
            as_list = Unroll._unrolled(cst.ListComp(
                cst.Tuple([cst.Element(updated_node.key, comma=cst.Comma()),
                           cst.Element(updated_node.value)]), updated_node.for_in))
            if type(as_list) is not cst.List:
                return updated_node
            return cst.Dict([cst.DictElement(e.value.elements[0].value,
                                             e.value.elements[1].value)
                             for e in as_list.elements], lpar=updated_node.lpar,
                            rpar=updated_node.rpar)

        @staticmethod
        def _unrolled(node):
            target = node.for_in
            if target.inner_for_in is not None or target.ifs or target.asynchronous or \
                    _target_names(target.target) is None:
                return node
            names = _target_names(target.target)
            # (a walrus binds in the function's scope, item after item as the display
            # evaluates them: `[(u := a * w) for w in range(3)]` leaves u == a * 2)
            if any(type(n) in (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp,
                               cst.GeneratorExp) or type(n) is cst.NamedExpr and type(
                                   n.target) is not cst.Name for n in walk(node.elt)):
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
                    elt = substitute(elt, one, part)
                elements.append(cst.Element(elt))
            out = cst.List(elements, lpar=node.lpar if type(node) is cst.ListComp else [],
                           rpar=node.rpar if type(node) is cst.ListComp else [])
            if type(node) is cst.GeneratorExp and lazy is not None:
                lazy.add(id(out))
            return out

    return rewrite(tree, Unroll())


def _local_tables(tree: cst.FunctionDef, func):
    """Local names that every binding binds to a list or tuple display of number literals,
    all of one length, and that nothing changes or hands away (no attribute, no item write,
    no argument of a call but the builtins ``enumerate``/``zip``/``len``, no other way of
    binding them): ``{name: (index of the body's statement that binds it, its items)}``
    where one statement of the body itself binds it, else ``{name: (None, length)}``; and
    for each name node of the body, the index of the body's statement it is in. A
    comprehension over a table bound once reads its literals only after that statement
    (before it, Python raises UnboundLocalError); over one bound several times (``if``
    branches), ``name[0]``, ``name[1]``..., which reads it where Python does."""
    from ..liveness import target_names
    body = tree.body.body
    sites: dict[str, int] = {}
    displays: dict[str, list] = {}
    for n in walk(tree):
        t = type(n)
        if t in (cst.Global, cst.Nonlocal, cst.Del, cst.Import, cst.ImportFrom, cst.Match,
                 cst.Lambda, cst.ClassDef) or t is cst.FunctionDef and n is not tree:
            return {}, {}
        if t is cst.Assign:
            for target in n.targets:
                for name in target_names(target.target):
                    sites[name] = sites.get(name, 0) + 1
            if len(n.targets) == 1 and type(n.targets[0].target) is cst.Name:
                displays.setdefault(n.targets[0].target.value, []).append(n.value)
        elif t in (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor, cst.NamedExpr):
            for name in target_names(n.target):
                sites[name] = sites.get(name, 0) + 2      # never a table
        elif t is cst.AsName:
            for name in target_names(n.name):
                sites[name] = sites.get(name, 0) + 2
    params = {p.name.value for p in tree.params.params}
    tables = {}
    for name, values in displays.items():
        if name in params or sites.get(name) != len(values) or not all(
                _literal_display(v) for v in values) or len(
                {len(v.elements) for v in values}) != 1:
            continue
        once = [k for k, stmt in enumerate(body) if type(stmt) is cst.SimpleStatementLine
                and len(stmt.body) == 1 and type(stmt.body[0]) is cst.Assign
                and stmt.body[0].value is values[0]]
        tables[name] = (once[0], [e.value for e in values[0].elements]) if len(values) == 1 \
            and once else (None, len(values[0].elements))
    if not tables:
        return {}, {}
    for n in walk(tree):
        t = type(n)
        if t is cst.Attribute and type(n.value) is cst.Name:
            tables.pop(n.value.value, None)
        elif t is cst.Call and not (type(n.func) is cst.Name and n.func.value in (
                "enumerate", "zip", "len") and lookup(func, n.func.value)[2] == "builtin"):
            for a in n.args:
                if type(a.value) is cst.Name:
                    tables.pop(a.value.value, None)
        elif t in (cst.AssignTarget, cst.AugAssign) and type(n.target) is cst.Subscript \
                and type(n.target.value) is cst.Name:
            tables.pop(n.target.value.value, None)
    after = {id(n): k for k, stmt in enumerate(body) for n in walk(stmt)
             if type(n) is cst.Name and n.value in tables}
    return tables, after


def _literal_display(node) -> bool:
    return type(node) in (cst.List, cst.Tuple) and 0 < len(node.elements) <= UNROLL_LIMIT \
        and all(type(e) is cst.Element and (type(e.value) in (cst.Integer, cst.Float) or type(
            e.value) is cst.UnaryOperation and type(e.value.operator) is cst.Minus and type(
                e.value.expression) in (cst.Integer, cst.Float)) for e in node.elements)


def int_value(node):
    if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus:
        inner = int_value(node.expression)
        return None if inner is None else -inner
    if type(node) is cst.Integer:
        return int(node.value.replace("_", ""), 0)
    return None


def substitute(expr, name: str, value):
    """``expr`` with every ``name`` replaced by ``value`` (parenthesized)."""
    class Replace(cst.CSTTransformer):
        def leave_Name(self, original_node, updated_node):
            if updated_node.value != name:
                return updated_node
            # (a fresh node at each use: the engine keeps facts by node)
            return value.deep_clone().with_changes(lpar=[cst.LeftParen()],
                                                   rpar=[cst.RightParen()]) \
                if type(value) in (cst.UnaryOperation, cst.BinaryOperation) else \
                value.deep_clone()
    return expr.visit(Replace())


# builtins that consume a comprehension handed to them whole, in order: unrolled into a
# display (`any`/`all` into `or`/`and` chains, which stop where Python's would)
_CONSUMERS = ("sum", "max", "min", "any", "all", "tuple", "list", "sorted")


def _reads_items(call: cst.Call, func, assigned) -> bool:
    """``len(vals)``, ``sum(vals)``... of a name: a builtin that reads the list's items (or
    its length) as Python would read the written-out display's."""
    return type(call.func) is cst.Name and call.func.value in _CONSUMERS + ("len",) \
        and call.func.value not in ("tuple", "list", "sorted") and len(call.args) == 1 \
        and call.args[0].keyword is None and not call.args[0].star \
        and call.func.value not in assigned and lookup(func, call.func.value)[2] == "builtin"


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


def map_as_display(tree: cst.FunctionDef, func) -> cst.FunctionDef:
    """``map(f, [a, b, c])`` over a list or tuple display, consumed whole where it is written
    (unpacked by an assignment, ``a, b, c = map(np.asarray, [a, b, c])``, or handed to a
    builtin of `_CONSUMERS`) and ``f`` a name or an attribute of one: the tuple
    ``(f(a), f(b), f(c))``, which calls ``f`` on the items in the order the iteration
    does (an unpacking of the wrong length raises the same ValueError)."""
    if "map" not in {n.value for n in walk(tree) if type(n) is cst.Name}:
        return tree
    from ..liveness import bound_names
    assigned = bound_names(tree)
    if "map" in assigned or lookup(func, "map")[2] != "builtin":
        return tree
    consumed = set()
    for n in walk(tree):
        if type(n) is cst.Assign and all(type(t.target) in (cst.Tuple, cst.List)
                                         for t in n.targets):
            consumed.add(id(n.value))
        elif type(n) is cst.Call and type(n.func) is cst.Name and n.func.value in _CONSUMERS \
                and n.func.value not in assigned and lookup(func, n.func.value)[2] == \
                "builtin" and len(n.args) == 1 and n.args[0].keyword is None \
                and not n.args[0].star:
            consumed.add(id(n.args[0].value))

    def plain(node) -> bool:
        while type(node) is cst.Attribute:
            node = node.value
        return type(node) is cst.Name

    class Maps(cst.CSTTransformer):
        def leave_Call(self, original_node, node):
            if id(original_node) not in consumed or not (
                    type(node.func) is cst.Name and node.func.value == "map"
                    and len(node.args) == 2 and all(a.keyword is None and not a.star
                                                    for a in node.args)
                    and plain(node.args[0].value)
                    and type(node.args[1].value) in (cst.List, cst.Tuple)
                    and all(type(e) is cst.Element for e in node.args[1].value.elements)):
                return node
            f = node.args[0].value
            calls = [cst.Element(cst.Call(f.deep_clone(), [cst.Arg(e.value)]))
                     for e in node.args[1].value.elements]
            if len(calls) == 1:
                calls = [calls[0].with_changes(comma=cst.Comma())]
            return cst.Tuple(calls, lpar=[cst.LeftParen()], rpar=[cst.RightParen()])

    return rewrite(tree, Maps())


def consumers_as_displays(tree: cst.FunctionDef, func,
                          lazy: frozenset | set = frozenset()) -> cst.FunctionDef:
    """After `unroll_comprehensions`: ``tuple([a, b])`` as ``(a, b)``, ``list([...])`` as
    the list, ``any([a, b])`` as ``bool(a or b)`` and ``all([...])`` as ``bool(a and b)``
    (of a tuple display the same: ``any((a, b))``)
    (a comparison or ``not`` needs no ``bool``): the values Python computes, with its
    short-circuit (items after the deciding one are not evaluated, as the generator's
    are not): only for a display `unroll_comprehensions` wrote for a generator (in
    ``lazy``), or items that raise nothing (names and literals, ``+``, ``-``, ``*``,
    ``abs``, comparisons and ``not`` of them); Python evaluates every item of a list or
    tuple before ``any`` reads one, so ``any([1 / (w - a) < 0, ...])`` is ``(bool(1 / (0 - a)
    < 0) | bool(...) | ...)``, every item evaluated in order."""
    from ..liveness import bound_names
    assigned = bound_names(tree)

    class Displays(cst.CSTTransformer):
        def leave_Call(self, original_node, node):
            if not (type(node.func) is cst.Name and node.func.value in (
                    "tuple", "list", "any", "all") and len(node.args) == 1 and type(
                    node.args[0].value) in (cst.List, cst.Tuple) and node.args[0].keyword is None
                    and not node.args[0].star and node.func.value not in assigned
                    and lookup(func, node.func.value)[2] == "builtin"):
                return node
            elements = node.args[0].value.elements
            if any(type(e) is not cst.Element for e in elements):
                return node
            values = [e.value for e in elements]
            kind = node.func.value
            if kind in ("any", "all") and values and id(node.args[0].value) not in lazy \
                    and not all(_safe_truth_item(v, func, assigned) for v in values) \
                    and "bool" not in assigned and lookup(func, "bool")[2] == "builtin":
                # every item evaluated, in order (`|`/`&` of Python bools evaluate both)
                out = None
                for v in values:
                    one = cst.Call(cst.Name("bool"), [cst.Arg(v.with_changes(lpar=[],
                                                                               rpar=[]))])
                    out = one if out is None else cst.BinaryOperation(
                        out, cst.BitOr() if kind == "any" else cst.BitAnd(), one)
                return _parened(out)
            if kind in ("any", "all") and id(node.args[0].value) not in lazy and not all(
                    _safe_truth_item(v, func, assigned) for v in values):
                return node
            if kind == "list":
                return node.args[0].value if type(node.args[0].value) is cst.List else \
                    cst.List([cst.Element(v) for v in values])
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

    if not any(type(n.func) is cst.Name and n.func.value in ("tuple", "list", "any", "all")
               for n in by_type(tree).get(cst.Call, ())):
        return tree
    return rewrite(tree, Displays())


def _parened_any(node):
    return node if type(node) in (cst.Name, cst.Call, cst.Subscript, cst.Attribute) else \
        node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


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


def _plain_item(node, func, assigned) -> bool:
    """An item of a display that may be written where the comprehension reads it: names and
    number literals combined by ``+``, ``-``, ``*`` and ``abs`` (``-1e16``, ``x - y``),
    which raise nothing on numbers, so evaluating it later (once per read, or not at all
    after ``any``'s deciding item) gives what evaluating it first gives."""
    t = type(node)
    if t is cst.UnaryOperation and type(node.operator) in (cst.Minus, cst.Plus):
        return _plain_item(node.expression, func, assigned)
    if t is cst.BinaryOperation and type(node.operator) in (cst.Add, cst.Subtract,
                                                            cst.Multiply):
        return _plain_item(node.left, func, assigned) and _plain_item(node.right, func,
                                                                      assigned)
    if t is cst.Call and type(node.func) is cst.Name and node.func.value == "abs" and len(
            node.args) == 1 and node.args[0].keyword is None and not node.args[0].star \
            and "abs" not in assigned and lookup(func, "abs")[2] == "builtin":
        return _plain_item(node.args[0].value, func, assigned)
    return t in (cst.Name, cst.Integer, cst.Float, cst.Imaginary)


def _safe_truth_item(node, func, assigned) -> bool:
    """An item ``any``/``all`` may leave unevaluated: `_plain_item` s, comparisons of them
    and ``not`` of those (they raise nothing on numbers: an ordering of complex numbers is
    refused by the analysis)."""
    if type(node) is cst.UnaryOperation and type(node.operator) is cst.Not:
        return _safe_truth_item(node.expression, func, assigned)
    if type(node) is cst.Comparison:
        return _plain_item(node.left, func, assigned) and all(
            type(c.operator) not in (cst.In, cst.NotIn, cst.Is, cst.IsNot)
            and _plain_item(c.comparator, func, assigned) for c in node.comparisons)
    return _plain_item(node, func, assigned)


def _more_items(iterable, items, func, assigned):
    """Items of the sequences `unroll_comprehensions` also writes out: a tuple or list
    display of names and literals (each item as written), ``enumerate``/``zip`` of
    sequences it writes out (tuples of nodes), and a global tuple of rows of numbers, all of
    one length (``TABLE[i]``, unpacked by the target)."""
    if type(iterable) in (cst.Tuple, cst.List):
        if all(type(e) is cst.Element and _plain_item(e.value, func, assigned)
               for e in iterable.elements) \
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


LOOPED_CONSUMERS = ("sum", "len", "any", "all", "max", "min")
"""Builtins whose comprehension argument `sums_as_loops` writes as the loop they run."""


def sums_as_loops(tree: cst.FunctionDef, func) -> cst.FunctionDef:
    """After `unroll_comprehensions`: ``sum(<generator or list comprehension>)`` (or with a
    start) that it could not write out -- over a sequence whose length the code does not
    fix, such as ``zip(ai, bi)`` of local lists bound on several paths, or a global list --
    is the loop Python's ``sum`` runs, before the statement line that calls it:

        total = 0
        for a, b in zip(ai, bi):
            total = total + a * tau ** b

    (the comprehension's ``if`` s as nested ``if`` s, its ``for`` s as nested loops, its
    names renamed where the function uses them elsewhere), and the call becomes ``total``.
    The same for ``len`` of a list comprehension (a count; each item still evaluated, as the
    list is built), ``any``/``all`` (a flag; a generator's items are evaluated only until
    the deciding one, as Python's ``any`` stops there) and ``max``/``min`` without ``key``
    or ``default`` (the running extreme, replaced where ``item > best`` -- Python's own
    comparison, so NaN items land where Python puts them -- and Python's ValueError where
    no item is left). Python runs the consumer as the loop does; the loop is computed before
    the rest of its statement, so within that statement it comes first (as
    `passes.appended_lists` computes its reductions). No nested scopes, and calls outside
    conditional expressions, ``and``/``or`` and nested scopes of their statement line (a
    simple statement line, or the test of an ``if`` that is not an ``elif``)."""
    if not any(_loopable(n) for n in walk(tree)):
        return tree
    from ..liveness import bound_names
    from .closures import in_conditional
    assigned = bound_names(tree)
    usable = {name for name in LOOPED_CONSUMERS
              if name not in assigned and lookup(func, name)[2] == "builtin"}
    elifs = {id(n.orelse) for n in walk(tree) if type(n) is cst.If
             and type(n.orelse) is cst.If}
    lines: dict = {}
    for line in walk(tree.body):
        if type(line) is cst.SimpleStatementLine:
            part = line
        elif type(line) is cst.If and id(line) not in elifs:
            part = line.test
        else:
            continue
        found = [n for n in walk(part) if _loopable(n) and n.func.value in usable
                 and not in_conditional(part, n)]
        if found and not any(inner is not outer and any(inner is m for m in walk(outer))
                             for outer in found for inner in found):
            lines[id(line)] = found
    if not lines:
        return tree
    return rewrite(tree, _SumLoops(lines, tree))


def _loopable(node) -> bool:
    if not (type(node) is cst.Call and type(node.func) is cst.Name and node.func.value in
            LOOPED_CONSUMERS and 1 <= len(node.args) <= 2 and not any(a.star for a in node.args)
            and node.args[0].keyword is None and type(node.args[0].value) in (
                cst.GeneratorExp, cst.ListComp)):
        return False
    name = node.func.value
    if len(node.args) == 2 and not (name == "sum" and (
            node.args[1].keyword is None or node.args[1].keyword.value == "start")):
        return False
    comp = node.args[0].value
    if name == "len" and type(comp) is not cst.ListComp:
        return False            # (len of a generator: Python's TypeError, left as it is)
    parts = [comp.elt]
    target = comp.for_in
    while target is not None:
        if target.asynchronous or _target_names(target.target) is None:
            return False
        parts += [i.test for i in target.ifs]
        if target is not comp.for_in:
            parts.append(target.iter)
        target = target.inner_for_in
    return not any(type(n) in (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp,
                               cst.GeneratorExp, cst.NamedExpr, cst.Yield, cst.Await)
                   for part in parts for n in walk(part))


def _empty_message(name: str) -> str:
    """The message of Python's ValueError for ``max``/``min`` of nothing (this Python's)."""
    try:
        (max if name == "max" else min)([])
    except ValueError as exc:
        return str(exc)
    raise AssertionError("unreachable")


class CallsReplaced(cst.CSTTransformer):
    """The calls of ``replacements`` (by the id of the original node) replaced."""

    def __init__(self, replacements: dict):
        self.replacements = replacements

    def leave_Call(self, original_node, updated_node):
        return self.replacements.get(id(original_node), updated_node)


class _SumLoops(cst.CSTTransformer):
    def __init__(self, lines: dict, tree):
        from ..liveness import Namer
        self.lines = lines
        self._fresh = Namer(n.value for n in walk(tree) if type(n) is cst.Name).fresh
        self.tree = tree
        self.replacements: dict = {}

    def _loop(self, call) -> list:
        comp = call.args[0].value
        kind = call.func.value
        inside = {id(n) for n in walk(comp)}
        outside = {n.value for n in walk(self.tree) if type(n) is cst.Name
                   and id(n) not in inside}
        fors = []
        target = comp.for_in
        while target is not None:
            fors.append(target)
            target = target.inner_for_in
        renames = {}
        for one in fors:
            for name in _target_names(one.target):
                if name in outside or name in renames:
                    renames[name] = self._fresh(name)

        def renamed(node):
            for old, new in renames.items():
                node = substitute(node, old, cst.Name(new))
            return node
        elt = renamed(comp.elt)
        result = self._fresh({"sum": "total", "len": "count", "any": "found",
                              "all": "found", "max": "best", "min": "best"}[kind])

        def assign(name, value):
            return cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))],
                                                       value)])
        prologue = []
        generator = type(comp) is cst.GeneratorExp
        if kind == "sum":
            start = call.args[1].value if len(call.args) == 2 else cst.Integer("0")
            prologue.append(assign(result, start))
            # each item through `rules.lanes.sum_item` (itself: where Python 3.12 would add
            # Python floats with compensation, the rule refuses)
            item = cst.Call(cst.Name(SUM_ITEM), [cst.Arg(elt.with_changes(lpar=[], rpar=[]))])
            body: list = [assign(result, cst.BinaryOperation(cst.Name(result), cst.Add(),
                                                             item))]
        elif kind == "len":
            prologue.append(assign(result, cst.Integer("0")))
            body = [assign(result, cst.BinaryOperation(cst.Name(result), cst.Add(),
                                                       cst.Integer("1")))]
            if type(elt) not in (cst.Name, cst.Integer, cst.Float):
                # the list is built: each item evaluated (its exceptions raised) though
                # only counted
                body.insert(0, assign(self._fresh("item"), elt.with_changes(lpar=[],
                                                                                  rpar=[])))
        elif kind in ("any", "all"):
            decided = kind == "any"
            prologue.append(assign(result, cst.Name("False" if decided else "True")))
            item = elt.with_changes(lpar=[], rpar=[])
            test = item if decided else cst.UnaryOperation(cst.Not(), _parened_any(item))
            settle = [cst.If(test, cst.IndentedBlock([assign(result, cst.Name(
                "True" if decided else "False"))]))]
            if not generator:
                held = self._fresh("item")
                body = [assign(held, item), cst.If(
                    cst.Name(held) if decided else cst.UnaryOperation(cst.Not(),
                                                                      cst.Name(held)),
                    cst.IndentedBlock([assign(result, cst.Name(
                        "True" if decided else "False"))]))]
            else:
                body = settle
        else:
            seen = self._fresh("seen")
            held = self._fresh("item")
            prologue.append(assign(seen, cst.Name("False")))
            compare = cst.GreaterThan() if kind == "max" else cst.LessThan()
            body = [assign(held, elt.with_changes(lpar=[], rpar=[])),
                    cst.If(cst.Name(seen), cst.IndentedBlock([cst.If(
                        cst.Comparison(cst.Name(held), [cst.ComparisonTarget(
                            compare, cst.Name(result))]),
                        cst.IndentedBlock([assign(result, cst.Name(held))]))]),
                        orelse=cst.Else(cst.IndentedBlock([
                            assign(result, cst.Name(held)), assign(seen, cst.Name("True"))])))]
        for one in reversed(fors):
            for test in reversed([renamed(i.test) for i in one.ifs]):
                body = [cst.If(test.with_changes(lpar=[], rpar=[]), cst.IndentedBlock(body))]
            if generator and kind in ("any", "all"):
                # a generator stops at the deciding item: later ones are not evaluated
                body = [cst.If(cst.Name(result) if kind == "all" else cst.UnaryOperation(
                    cst.Not(), cst.Name(result)), cst.IndentedBlock(body))]
            iterable = one.iter if one is fors[0] else renamed(one.iter)
            body = [cst.For(renamed(one.target).with_changes(lpar=[], rpar=[]), iterable,
                            cst.IndentedBlock(body))]
        if kind in ("max", "min"):
            body.append(cst.If(cst.UnaryOperation(cst.Not(), cst.Name(seen)), cst.IndentedBlock([
                cst.SimpleStatementLine([cst.Raise(cst.Call(cst.Name("ValueError"), [cst.Arg(
                    cst.SimpleString(repr(_empty_message(kind))))]))])])))
        self.replacements[id(call)] = cst.Name(result)
        return prologue + body

    def leave_If(self, original_node, updated_node):
        mine = self.lines.get(id(original_node))
        if not mine:
            return updated_node
        prologue = [s for call in mine for s in self._loop(call)]
        return cst.FlattenSentinel([*prologue, updated_node.with_changes(
            test=rewrite(original_node.test, CallsReplaced(self.replacements)))])

    def leave_SimpleStatementLine(self, original_node, updated_node):
        mine = self.lines.get(id(original_node))
        if not mine:
            return updated_node
        prologue = [s for call in mine for s in self._loop(call)]
        return cst.FlattenSentinel([*prologue, rewrite(original_node,
                                                       CallsReplaced(self.replacements))])
