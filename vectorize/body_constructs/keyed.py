"""``max``/``min`` with a ``key=``, and ``sorted``, over a sequence of a length known from
the code, written out as the comparisons Python makes (`keyed_extrema`)."""

from __future__ import annotations

import sys

import libcst as cst

from ..introspect import lookup
from ..syntax.traversal import rewrite, walk
from .closures import in_conditional
from .comprehensions import CallsReplaced, substitute


def keyed_extrema(tree: cst.FunctionDef, func) -> cst.FunctionDef:
    """``m = max(items, key=k)`` (or ``min``), where the items are the arguments (``max(a,
    b, key=k)``), a list or tuple display, or a name bound once, in a statement of the body
    itself, to such a display that nothing lengthens or shortens (read by index, ``len``,
    ``max``/``min`` only), and ``k`` a one-parameter ``lambda`` or a name (a function of the
    module, a builtin, a nested helper): before the statement line that calls it, the items
    are evaluated in order, then

        max_item = a
        max_key = k(a)
        max_key_1 = k(b)
        if max_key_1 > max_key:
            max_item = b
            max_key = max_key_1

    and so on (``<`` for ``min``): Python keeps the first item whose key no later key is
    strictly greater than (smaller than), which decides ties and NaN keys; the call becomes
    ``max_item``. A ``lambda`` key is written out on each item. ``sorted(items)`` and
    ``sorted(items, key=k)`` of at most `SORTED_ITEMS` items: every key first, then the
    comparisons CPython's sort makes, as a tree of ``if`` s whose leaves bind ``sorted_0``,
    ``sorted_1``... to the items in their order (`_decisions`: equal keys keep their order,
    NaN keys land where CPython puts them); the call becomes ``[sorted_0, sorted_1, ...]``.
    Only calls outside
    conditional expressions, ``and``/``or`` and nested scopes of their statement line (a
    line anywhere in the body), with no ``default=``; anything else is left as it is."""
    if not any(type(n) is cst.Call and type(n.func) is cst.Name and (n.func.value in (
            "max", "min") and any(a.keyword is not None and a.keyword.value == "key"
                                  for a in n.args) or n.func.value == "sorted" and SORTS)
               for n in walk(tree)):
        return tree
    from ..liveness import bound_names
    assigned = bound_names(tree)
    taken = {n.value for n in walk(tree) if type(n) is cst.Name}
    tables = _fixed_lists(tree)
    lines: dict = {}
    for line in walk(tree.body):
        if type(line) is not cst.SimpleStatementLine:
            continue
        for n in walk(line):
            if type(n) is not cst.Call or type(n.func) is not cst.Name or n.func.value not in (
                    "max", "min", "sorted") or n.func.value in assigned or lookup(
                    func, n.func.value)[2] != "builtin" or in_conditional(line, n):
                continue
            found = _sorted_parts(n, tables) if n.func.value == "sorted" else _parts(n, tables)
            if found is not None:
                lines.setdefault(id(line), []).append((n, *found))
        calls = lines.get(id(line), [])
        if any(inner is not outer and any(inner is m for m in walk(outer))
               for outer, *_ in calls for inner, *_ in calls):
            del lines[id(line)]      # (one inside another's items or key: left as it is)
    if not lines:
        return tree
    return rewrite(tree, _WriteOut(lines, taken))


def sorted_of_items(tree: cst.FunctionDef, func, call: cst.Call, length: int):
    """``sorted(seq, ...)`` (``call``, ``seq`` a name) as ``sorted([seq[0], ..., seq[length -
    1]], ...)``, then written out by `keyed_extrema`: a name evaluated once per item is the
    same sequence, and iterating a tuple or a 1-d array gives its items by index."""
    seq = call.args[0].value
    items = cst.List([cst.Element(cst.Subscript(cst.Name(seq.value), [cst.SubscriptElement(
        cst.Index(cst.Integer(str(k))))])) for k in range(length)])

    class Items(cst.CSTTransformer):
        def leave_Call(self, original_node, updated_node):
            if original_node is not call:
                return updated_node
            return updated_node.with_changes(args=[
                updated_node.args[0].with_changes(value=items), *updated_node.args[1:]])

    new = rewrite(tree, Items())
    return keyed_extrema(new, func)


def _sorted_parts(call: cst.Call, tables: dict):
    """(items, key or None, reverse) of ``sorted(seq)`` / ``sorted(seq, key=k)`` (and
    ``reverse=True`` / ``reverse=False`` written as such) of at most `SORTED_ITEMS` items
    that `keyed_extrema` writes out, else None."""
    if not SORTS or not call.args or call.args[0].keyword is not None or any(
            a.star for a in call.args):
        return None
    keywords = {a.keyword.value: a.value for a in call.args[1:] if a.keyword is not None}
    if len(keywords) != len(call.args) - 1 or not set(keywords) <= {"key", "reverse"}:
        return None
    reverse = keywords.get("reverse")
    if reverse is not None and not (type(reverse) is cst.Name
                                    and reverse.value in ("True", "False")):
        return None
    reverse = reverse is not None and reverse.value == "True"
    if "key" not in keywords:
        items = _items(call.args[0].value, tables)
        return None if items is None or len(items) > SORTED_ITEMS else (items, None, reverse)
    keyed = call.with_changes(args=[a for a in call.args
                                    if a.keyword is None or a.keyword.value == "key"])
    found = _parts(keyed, tables, many=False)
    return None if found is None or len(found[0]) > SORTED_ITEMS else (*found, reverse)


def _items(seq, tables: dict):
    """The items of a list or tuple display, or ``name[0]``, ``name[1]``... of a fixed
    local list (`_fixed_lists`), or of a comprehension over a ``range`` of int literals
    (`_comprehension_items`); else None."""
    if type(seq) in (cst.List, cst.Tuple) and seq.elements and all(
            type(e) is cst.Element for e in seq.elements):
        return [e.value for e in seq.elements]
    if type(seq) in (cst.ListComp, cst.GeneratorExp):
        return _comprehension_items(seq)
    if type(seq) is cst.Name and seq.value in tables:
        return [cst.Subscript(cst.Name(seq.value), [cst.SubscriptElement(cst.Index(
            cst.Integer(str(i))))]) for i in range(tables[seq.value])]
    return None


def _parts(call: cst.Call, tables: dict, many: bool = True):
    """(items, key) of ``max(..., key=k)`` that `keyed_extrema` writes out, else None
    (``many``: items as several arguments too)."""
    keys = [a for a in call.args if a.keyword is not None]
    positional = [a for a in call.args if a.keyword is None]
    if len(keys) != 1 or keys[0].keyword.value != "key" or any(a.star for a in call.args) \
            or not positional or len(positional) > 1 and not many:
        return None
    key = keys[0].value
    if type(key) is cst.Lambda:
        params = key.params
        if len(params.params) != 1 or params.params[0].default is not None or params.kwonly_params \
                or params.posonly_params or params.star_kwarg or isinstance(
                    params.star_arg, cst.Param) or any(type(n) in (
                        cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp,
                        cst.NamedExpr, cst.Yield, cst.Await) for n in walk(key.body)):
            return None
    elif not _plain_callee(key):
        return None
    if len(positional) > 1:
        items = [a.value for a in positional]
    else:
        items = _items(positional[0].value, tables)
        if items is None:
            return None
    if len(items) > 64:
        return None
    return items, key


def _comprehension_items(comp):
    """``[e for k in range(a, b)]`` (one ``for``, no ``if``, int literal bounds, at most
    `SORTED_ITEMS` items; ``e`` with no nested scope, walrus or attribute named ``k``): the
    items ``e`` with each ``k`` in place, which Python evaluates in that order; else None."""
    for_in = comp.for_in
    if for_in.inner_for_in is not None or for_in.ifs or for_in.asynchronous is not None \
            or type(for_in.target) is not cst.Name:
        return None
    it = for_in.iter
    if type(it) is not cst.Call or type(it.func) is not cst.Name or it.func.value != "range" \
            or not 1 <= len(it.args) <= 2 or any(a.keyword is not None or a.star
                                                 for a in it.args):
        return None
    bounds = []
    for a in it.args:
        value = a.value
        sign = 1
        if type(value) is cst.UnaryOperation and type(value.operator) is cst.Minus:
            sign, value = -1, value.expression
        if type(value) is not cst.Integer:
            return None
        bounds.append(sign * int(value.evaluated_value))
    start, stop = (0, bounds[0]) if len(bounds) == 1 else bounds
    name = for_in.target.value
    if not 0 < stop - start <= SORTED_ITEMS or any(
            type(n) in (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp,
                        cst.NamedExpr, cst.Yield, cst.Await) or type(n) is cst.Attribute
            and n.attr.value == name for n in walk(comp.elt)):
        return None
    return [substitute(comp.elt, name, cst.Integer(str(k)) if k >= 0 else cst.UnaryOperation(
        cst.Minus(), cst.Integer(str(-k)))) for k in range(start, stop)]


def _plain_callee(node) -> bool:
    while type(node) is cst.Attribute:
        node = node.value
    return type(node) is cst.Name


def _fixed_lists(tree: cst.FunctionDef) -> dict[str, int]:
    """Names bound once, by an assignment of its own in the body's top level, to a list or
    tuple display without ``*``, and used otherwise only by index (read or written), in
    ``len``/``max``/``min``/``sum`` or in a ``for`` loop's ``iter``: name -> its length,
    which nothing changes."""
    from ..liveness import target_names
    counts: dict[str, int] = {}
    for n in walk(tree.body):
        t = type(n)
        if t is cst.AssignTarget or t in (cst.AugAssign, cst.AnnAssign, cst.For,
                                          cst.NamedExpr, cst.CompFor):
            for name in target_names(n.target):
                counts[name] = counts.get(name, 0) + (1 if t is cst.AssignTarget else 2)
        elif t is cst.AsName:
            for name in target_names(n.name):
                counts[name] = counts.get(name, 0) + 2
        elif t in (cst.Global, cst.Nonlocal, cst.Del, cst.FunctionDef, cst.ClassDef,
                   cst.Lambda):
            if t is not cst.Lambda:
                return {}
    out: dict[str, int] = {}
    for stmt in tree.body.body:
        if type(stmt) is cst.SimpleStatementLine and len(stmt.body) == 1 and type(
                stmt.body[0]) is cst.Assign and len(stmt.body[0].targets) == 1 and type(
                stmt.body[0].targets[0].target) is cst.Name:
            name, value = stmt.body[0].targets[0].target.value, stmt.body[0].value
            if counts.get(name) == 1 and type(value) in (cst.List, cst.Tuple) and \
                    value.elements and all(type(e) is cst.Element for e in value.elements):
                out[name] = len(value.elements)
    if not out:
        return out
    allowed: set = set()
    for n in walk(tree.body):
        if type(n) is cst.Subscript and type(n.value) is cst.Name:
            allowed.add(id(n.value))
        elif type(n) is cst.Call and type(n.func) is cst.Name and n.func.value in (
                "len", "max", "min", "sum", "sorted"):
            allowed |= {id(a.value) for a in n.args if a.keyword is None and not a.star}
        elif type(n) is cst.For:
            allowed.add(id(n.iter))
        elif type(n) is cst.AssignTarget:
            allowed.add(id(n.target))
    for n in walk(tree.body):
        if type(n) is cst.Name and n.value in out and id(n) not in allowed:
            del out[n.value]
    return out


class _WriteOut(cst.CSTTransformer):
    def __init__(self, lines: dict, taken: set):
        from ..liveness import Namer
        self.lines = lines
        self._fresh = Namer(taken).fresh
        self.replacements: dict = {}

    def _evaluated(self, kind: str, items) -> tuple[list, list]:
        """(statements binding the items that are not `_simple`, in order; the names or
        simple items to read them by)."""
        out, names = [], []
        for item in items:
            if _simple(item):
                names.append(item)
            else:       # (every item is evaluated before the first key, as Python does)
                name = self._fresh(f"{kind}_arg")
                out.append(_line(cst.Assign([cst.AssignTarget(cst.Name(name))], item)))
                names.append(cst.Name(name))
        return out, names

    def _sorted(self, call, items, key, reverse=False) -> list:
        """CPython's sort of a few items, written out: every key first, then the decision
        tree of its comparisons (`_decisions`), each leaf binding ``sorted_0``,
        ``sorted_1``... to the items in their order; the call becomes their list. With
        ``reverse`` CPython reverses the items (and their keys, computed in the items'
        order), sorts them and reverses the result: equal keys keep their order, NaN keys
        land where that puts them."""
        out, names = self._evaluated("sorted", items)
        keys = names
        if key is not None:
            keys = []
            for item in names:
                k = self._fresh("sorted_key")
                out.append(_line(cst.Assign([cst.AssignTarget(cst.Name(k))],
                                            _key_of(key, item))))
                keys.append(cst.Name(k))
        if reverse:
            names, keys = names[::-1], keys[::-1]
        results = [self._fresh(f"sorted_{i}") for i in range(len(names))]

        def emit(tree) -> list:
            if tree[0] == "leaf":
                return [_line(cst.Assign([cst.AssignTarget(cst.Name(r))], names[i].deep_clone()))
                        for r, i in zip(results, tree[1])]
            _, i, j, yes, no = tree
            return [cst.If(cst.Comparison(keys[i].deep_clone(), [cst.ComparisonTarget(
                cst.LessThan(), keys[j].deep_clone())]), cst.IndentedBlock(emit(yes)),
                orelse=cst.Else(cst.IndentedBlock(emit(no))))]

        out += emit(_decisions(len(names)))
        self.replacements[id(call)] = cst.List([cst.Element(cst.Name(r)) for r in (
            results[::-1] if reverse else results)])
        return out

    def _prologue(self, call, items, key, reverse=False) -> list:
        kind = call.func.value
        if kind == "sorted":
            return self._sorted(call, items, key, reverse)
        test = ">" if kind == "max" else "<"
        out, names = self._evaluated(kind, items)
        best, best_key = self._fresh(f"{kind}_item"), self._fresh(f"{kind}_key")

        def key_of(item):
            return _key_of(key, item)

        out.append(_line(cst.Assign([cst.AssignTarget(cst.Name(best))], names[0])))
        out.append(_line(cst.Assign([cst.AssignTarget(cst.Name(best_key))],
                                    key_of(names[0]))))
        for i, item in enumerate(names[1:], 2):
            k = self._fresh(f"{kind}_key")
            out.append(_line(cst.Assign([cst.AssignTarget(cst.Name(k))], key_of(item))))
            kept = [_line(cst.Assign([cst.AssignTarget(cst.Name(best))], item))]
            if i < len(names):      # (after the last item the key is not read)
                kept.append(_line(cst.Assign([cst.AssignTarget(cst.Name(best_key))],
                                             cst.Name(k))))
            out.append(cst.If(
                cst.Comparison(cst.Name(k), [cst.ComparisonTarget(
                    cst.GreaterThan() if test == ">" else cst.LessThan(), cst.Name(best_key))]),
                cst.IndentedBlock(kept)))
        self.replacements[id(call)] = cst.Name(best)
        return out

    def leave_SimpleStatementLine(self, original_node, updated_node):
        mine = self.lines.get(id(original_node))
        if not mine:
            return updated_node
        prologue = []
        for call, items, key, *reverse in mine:
            prologue += self._prologue(call, items, key, *reverse)
        replaced = rewrite(original_node, CallsReplaced(self.replacements))
        return cst.FlattenSentinel([*prologue, replaced])


def _key_of(key, item):
    """``key(item)``: a lambda's body with the item in place of its parameter."""
    if type(key) is cst.Lambda:
        return substitute(key.body.with_changes(lpar=[], rpar=[]),
                           key.params.params[0].name.value, item)
    return cst.Call(key.deep_clone(), [cst.Arg(item)])


# CPython's list.sort (count_run, then binarysort), which `_decisions` follows: up to 3.12,
# and 3.13's count_run, which takes a descending run through blocks of equal keys (where
# NaN keys end up depends on it); a later version's sort is not followed until checked
SORTS = sys.version_info[:2] <= (3, 13)
RUNS_THROUGH_EQUAL_KEYS = sys.version_info[:2] >= (3, 13)
SORTED_ITEMS = 4
"""The most items of a ``sorted`` that `keyed_extrema` writes out (4: at most 24 orders)."""


def _decisions(n: int, through_equal: bool | None = None):
    """The decision tree of CPython's sort of ``n`` keys: ``("leaf", order)`` (the indexes
    of the items in their sorted order) or ``("cmp", i, j, if_less, otherwise)`` for the
    comparison ``key_i < key_j`` it makes next. Each comparison is Python's ``<`` on two
    numbers, so one already made is not made again, and one whose reverse held is false
    (with NaN both may be false: both outcomes are kept). ``through_equal``: 3.13's
    count_run (`RUNS_THROUGH_EQUAL_KEYS` by default)."""
    if through_equal is None:
        through_equal = RUNS_THROUGH_EQUAL_KEYS

    class Ask(Exception):
        pass

    def run(answers):
        def lt(i, j):
            if (i, j) in answers:
                return answers[i, j]
            if answers.get((j, i)):
                return False
            raise Ask(i, j)
        order = list(range(n))
        if n < 2:
            return order
        k = (_run_through_equal if through_equal else _run)(order, lt)
        for start in range(k, n):           # binary insertion of the rest
            lo, hi, pivot = 0, start, order[start]
            while lo < hi:
                p = lo + ((hi - lo) >> 1)
                if lt(pivot, order[p]):
                    hi = p
                else:
                    lo = p + 1
            order[lo + 1:start + 1] = order[lo:start]
            order[lo] = pivot
        return order

    def tree(answers):
        try:
            return ("leaf", run(answers))
        except Ask as ask:
            i, j = ask.args
            return ("cmp", i, j, tree({**answers, (i, j): True}),
                    tree({**answers, (i, j): False}))
    return tree({})


def _run(order: list, lt) -> int:
    """count_run up to 3.12: the length of the run ``order`` starts with (a strictly
    descending one reversed in place)."""
    n, k = len(order), 2
    if lt(order[1], order[0]):          # a strictly descending run, reversed
        while k < n and lt(order[k], order[k - 1]):
            k += 1
        order[:k] = order[:k][::-1]
    else:                               # a non-descending run
        while k < n and not lt(order[k], order[k - 1]):
            k += 1
    return k


def _run_through_equal(order: list, lt) -> int:
    """3.13's count_run: a non-descending run; or a descending one through blocks of keys
    neither less nor greater than their neighbour (each block reversed first, so that it
    keeps its order once the run is reversed), extended by a non-descending tail."""
    n, k = len(order), 1
    while k < n and not lt(order[k], order[k - 1]):
        k += 1
    if k == n:
        return k
    if k > 1:
        if lt(order[0], order[k - 1]):
            return k
        order[:k] = order[:k][::-1]     # all "equal", then a strictly smaller key
    k += 1
    equal = 0
    while k < n:
        if lt(order[k], order[k - 1]):
            if equal:
                order[k - equal - 1:k] = order[k - equal - 1:k][::-1]
                equal = 0
        elif lt(order[k - 1], order[k]):
            break
        else:
            equal += 1
        k += 1
    if equal:
        order[k - equal - 1:k] = order[k - equal - 1:k][::-1]
    order[:k] = order[:k][::-1]
    while k < n and not lt(order[k], order[k - 1]):
        k += 1
    return k


def _simple(item) -> bool:
    """An item read where the comparisons need it rather than bound first: a name, a number
    (negated too) or an item of a name at a literal index, which evaluate to the same
    value there."""
    if type(item) is cst.UnaryOperation and type(item.operator) is cst.Minus:
        item = item.expression
    return type(item) in (cst.Name, cst.Integer, cst.Float) or type(
        item) is cst.Subscript and type(item.value) is cst.Name and len(item.slice) == 1 and \
        isinstance(item.slice[0].slice, cst.Index) and type(
            item.slice[0].slice.value) is cst.Integer


def _line(small) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([small])
