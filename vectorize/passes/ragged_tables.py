"""Per-branch lookup tables, of the same or of different lengths, become padded arrays.

Assumes: scalar-style code, not yet analysed; local dicts already lowered (`local_dicts`).
Reads and writes no record (`records`): the tables it lowered are names bound to
``__list_array__(...)`` (`rules.lists`), their lengths plain ints it binds beside them.
Guarantees: two rewrites, in this order, after ``t = (1, 2, 3) if c else (4, 5)`` (displays of
different lengths, `_ConditionalTables`) is written as the ``if``/``else`` binding it in two
places.

1. ``t = TABLE[k]`` (the whole value of an assignment; ``a, b = TABLE[k]`` too) where
   ``TABLE`` is a dict of the module (or closure) with at most 32 keys, all ints or floats,
   and ``k`` may differ per example, becomes the lookup Python makes, one key at a time,
   reading the table at a constant key (so the table stays read, and a rebound global is
   noticed), with Python's KeyError where no key is equal::

       if k == 1:
           t = TABLE[1]
       elif k == 2:
           t = TABLE[2]
       else:
           raise KeyError(k)

2. A name bound in two places or more (``if x < 1: c = (1.0, 2.0)`` / ``else: c = (3.0, 4.0,
   5.0)``) only to tuple or list displays of numbers or names, or to a table of the module
   (a global tuple of numbers, or a constant item of a global dict of them), and otherwise
   only read by ``len(c)``, ``c[i]`` (``i`` a name or an int literal) or ``for v in c`` --
   where its lengths differ, or it is read at an index that may differ per example or
   iterated -- is bound to ``__list_array__([...])`` instead: per example the array of
   its items, padded to the longest table's length by repeating an item (the batch cannot
   hold rows of different lengths), with its true length beside it (``c_len = 2``, or
   ``len(TABLE)`` for a table of the module, which reads it). The reads respect the length:
   ``len(c)`` is ``c_len``; ``for v in c`` is ``for c_i in range(c_len): v = c[c_i]``; ``c[i]``
   reads ``c[i]`` where ``i`` is in range for every table, else the item Python reads (a
   negative index counts from ``c_len``) and, out of range, an index past the padding, for
   which `guard_indices` raises IndexError on the lanes that read it, as Python does.
   Items must be numbers of one type (`rules.lists.check_items` refuses the rest, located),
   except where the tables mix int and float literals and each binding is read only in
   the statements after it in its own block (a coefficient table per branch, read in that
   branch): then each binding gets a name of its own (`_SplitWebs`), a table bound once,
   read as the list it is, with its own items' types.

Anything else is left as it is, for the analysis to refuse where it is used (a table of
different lengths unpacked, ``a, b = c``, raises ValueError on some examples).
"""

from __future__ import annotations

import math
import numbers

import libcst as cst

from ..introspect import lookup
from ..liveness import writes
from ..rules.lists import LIST_ARRAY, has_list_arrays
from ..syntax.templates import parse_expr
from ..syntax.traversal import by_type, children, rewrite, walk

_SCOPES = (cst.Lambda, cst.FunctionDef, cst.ClassDef, cst.ListComp, cst.SetComp, cst.DictComp,
           cst.GeneratorExp)
_MAX_KEYS = 32
_MAX_ITEMS = 256


def _number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _numbers(value) -> bool:
    """A tuple (or list) of Python numbers of one type, short enough to write out."""
    return isinstance(value, (tuple, list)) and len(value) <= _MAX_ITEMS and all(
        type(v) in (int, float) for v in value) and len({type(v) for v in value}) <= 1


def _literal(node) -> bool:
    if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus:
        node = node.expression
    return type(node) in (cst.Integer, cst.Float)


def int_literal(node):
    """The value of ``3`` or ``-3``, else None."""
    if type(node) is cst.Integer:
        return int(node.evaluated_value)
    if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus and type(
            node.expression) is cst.Integer:
        return -int(node.expression.evaluated_value)
    return None


def loop_over_items(loop: cst.For, n: str, namer) -> cst.For:
    """``for v in c`` over a padded array ``c`` of ``n`` items per example as ``for c_i in
    range(n): v = c[c_i]`` (the items past an example's length are never read)."""
    name = loop.iter.value
    counter = namer.fresh(f"{name}_i")
    read = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(loop.target)],
                                               parse_expr(f"{name}[{counter}]"))])
    body = loop.body.with_changes(body=[read, *loop.body.body])
    return loop.with_changes(target=cst.Name(counter), iter=parse_expr(f"range({n})"),
                             body=body)


def bounded_index(node: cst.Subscript, n: str, size: int, minimum: int,
                  facts=None) -> cst.Subscript:
    """``node`` (``c[i]``, ``i`` a name or an int literal), a read of an array padded to
    ``size`` items of which the first ``n`` (a name) are the sequence's and at least
    ``minimum``: the item Python reads (a negative index counts from ``n``), out of range
    the index ``size``, past the padding, for which `guard_indices` raises IndexError.
    ``facts`` (`Counters`): what the loops around it say of a name ``i``."""
    index = _one_index(node)
    literal = int_literal(index)
    if literal is not None and 0 <= literal < minimum:
        return node
    if facts is not None and type(index) is cst.Name and facts.in_range(
            index.value, node.value.value):
        return node
    if facts is not None and type(index) is cst.Name and index.value in facts.natural:
        i = index.value
        return node.with_changes(slice=[cst.SubscriptElement(cst.Index(parse_expr(
            f"{i} if {i} < {n} else {size}")))])
    if literal is not None and -minimum <= literal < 0:
        spelled = f"{n} - {-literal}"
    elif literal is not None and literal >= 0:
        spelled = f"{literal} if {literal} < {n} else {size}"
    elif literal is not None:
        spelled = f"{n} - {-literal} if {-literal} <= {n} else {size}"
    else:
        i = index.value
        spelled = f"({i} + {n} if {i} < 0 else {i}) if -{n} <= {i} < {n} else {size}"
    return node.with_changes(slice=[cst.SubscriptElement(cst.Index(parse_expr(spelled)))])


def _never_negative(args) -> bool:
    """Whether ``range(*args)`` holds no negative number: one argument, or a start that is an
    int literal >= 0 and no step or a positive literal one."""
    if any(a.keyword is not None or a.star for a in args):
        return False
    if len(args) == 1:
        return True
    start = int_literal(args[0].value)
    step = int_literal(args[2].value) if len(args) == 3 else 1
    return start is not None and start >= 0 and step is not None and step > 0


class Counters:
    """What ``for i in range(...)`` loops say of their counters ``i``, for `bounded_index`:
    ``natural``, counters bound nowhere else whose ranges start at an int literal >= 0 (never
    negative); and, while a transformer is inside such a loop over ``range(len(c))`` (or
    ``range(c_len)``, a length the passes bound) whose body binds neither ``i`` nor ``c``,
    that ``c[i]`` is in range (`enter`/`leave`, called from the transformer's hooks)."""

    def __init__(self, func: cst.FunctionDef, lengths: dict[str, str]):
        counters, other = {}, set()
        for n in walk(func.body):
            if type(n) is cst.For and type(n.target) is cst.Name and type(n.iter) is cst.Call \
                    and type(n.iter.func) is cst.Name and n.iter.func.value == "range":
                counters.setdefault(n.target.value, []).append(n)
            elif type(n) is cst.For:
                other |= {t.value for t in walk(n.target) if type(t) is cst.Name}
            elif isinstance(n, (cst.BaseSmallStatement, cst.BaseCompoundStatement)) \
                    and type(n) not in (cst.For, cst.If, cst.While):
                other |= writes(n)
        self.natural = {name for name, loops in counters.items() if name not in other and all(
            _never_negative(loop.iter.args) for loop in loops)}
        self.by_length = {v: k for k, v in lengths.items()}
        self.active: list = []

    def enter(self, loop) -> None:
        it = loop.iter
        pair = None
        if type(loop.target) is cst.Name and loop.target.value in self.natural and type(
                it) is cst.Call and type(it.func) is cst.Name and it.func.value == "range" \
                and len(it.args) == 1:
            bound = it.args[0].value
            table = None
            if type(bound) is cst.Call and type(bound.func) is cst.Name and \
                    bound.func.value == "len" and len(bound.args) == 1 and type(
                    bound.args[0].value) is cst.Name:
                table = bound.args[0].value.value
            elif type(bound) is cst.Name and bound.value in self.by_length:
                table = self.by_length[bound.value]
            if table is not None:
                bound_inside = set()
                for n in walk(loop.body):
                    if isinstance(n, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
                        bound_inside |= writes(n)
                if table not in bound_inside:
                    pair = (loop.target.value, table)
        self.active.append(pair)

    def leave(self) -> None:
        self.active.pop()

    def in_range(self, index: str, table: str) -> bool:
        return (index, table) in self.active


def _one_index(subscript: cst.Subscript):
    if len(subscript.slice) != 1 or type(subscript.slice[0].slice) is not cst.Index \
            or subscript.slice[0].slice.star is not None:
        return None
    return subscript.slice[0].slice.value


# ------------------------------------------------------------------ 1. module dict lookups

class _DictLookups(cst.CSTTransformer):
    def __init__(self, pyfunc, local: set[str], namer):
        self.pyfunc = pyfunc
        self.local = local
        self.namer = namer
        self.changed = False

    def _table(self, node):
        """The dict a ``TABLE[k]`` reads where it is one of the module's (see the docstring)."""
        if type(node) is not cst.Subscript or type(node.value) is not cst.Name \
                or node.value.value in self.local:
            return None
        index = _one_index(node)
        if index is None or int_literal(index) is not None or _literal(index) or type(
                index) in (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString):
            return None       # a constant key: the analysis reads it
        found, table, scope = lookup(self.pyfunc, node.value.value)
        if not found or scope not in ("global", "closure") or type(table) is not dict \
                or not 0 < len(table) <= _MAX_KEYS:
            return None
        if not all(_number(k) and math.isfinite(k) for k in table):
            return None
        if not all(_number(v) or _numbers(v) for v in table.values()):
            return None
        return table

    def leave_SimpleStatementLine(self, original_node, updated_node):
        if len(updated_node.body) != 1 or type(updated_node.body[0]) is not cst.Assign:
            return updated_node
        assign = updated_node.body[0]
        table = self._table(assign.value)
        if table is None or len(assign.targets) != 1:
            return updated_node
        name = assign.value.value.value
        key = _one_index(assign.value)
        before = []
        if type(key) is not cst.Name:
            temp = self.namer.fresh(f"{name.lower()}_key")
            before.append(cst.SimpleStatementLine([cst.Assign(
                [cst.AssignTarget(cst.Name(temp))], key)]))
            key = cst.Name(temp)
        # (fresh nodes everywhere: the analysis keeps its values by node)
        chain = cst.Else(cst.IndentedBlock([cst.SimpleStatementLine([cst.Raise(
            cst.Call(cst.Name("KeyError"), [cst.Arg(cst.Name(key.value))]))])]))
        for k in reversed(list(table)):
            body = cst.IndentedBlock([updated_node.with_changes(body=[assign.with_changes(
                value=assign.value.with_changes(slice=[cst.SubscriptElement(
                    cst.Index(parse_expr(repr(k))))]))])])
            test = cst.Comparison(cst.Name(key.value), [cst.ComparisonTarget(
                cst.Equal(), parse_expr(repr(k)))])
            chain = cst.If(test, body, orelse=chain)
        self.changed = True
        return cst.FlattenSentinel([*before, chain])


# ------------------------------------------------------------------ 2. ragged tables

class _SplitTables(cst.CSTTransformer):
    """``I, J, n = I1, J1, n1`` of tables of the module (the steam-table shape) as one
    assignment each: the same per example (the tables are the module's, read before any is
    bound), and each name a table `_find_tables` can see."""

    def __init__(self, pyfunc, local: set[str]):
        self.pyfunc = pyfunc
        self.local = local

    def leave_SimpleStatementLine(self, original_node, updated_node):
        if len(updated_node.body) != 1 or type(updated_node.body[0]) is not cst.Assign:
            return updated_node
        assign = updated_node.body[0]
        if len(assign.targets) != 1 or type(assign.targets[0].target) not in (
                cst.Tuple, cst.List) or type(assign.value) is not cst.Tuple:
            return updated_node
        targets = assign.targets[0].target.elements
        values = assign.value.elements
        if len(targets) != len(values) or len(targets) < 2 or any(
                type(t) is not cst.Element or type(t.value) is not cst.Name for t in targets):
            return updated_node
        names = {t.value.value for t in targets}
        if len(names) != len(targets):
            return updated_node
        for v in values:
            if type(v) is not cst.Element or type(v.value) is not cst.Name \
                    or v.value.value in self.local or v.value.value in names:
                return updated_node
            found, table, scope = lookup(self.pyfunc, v.value.value)
            if not found or scope not in ("global", "closure") or not _numbers(table):
                return updated_node
        return cst.FlattenSentinel([updated_node.with_changes(body=[cst.Assign(
            [cst.AssignTarget(t.value)], v.value)]) for t, v in zip(targets, values)])


def _display_lengths(node) -> list | None:
    """(kind, length) of the tuple/list displays a conditional expression chooses between
    (``(1, 2) if c else [3]``, nested ones too), or None where it chooses anything else."""
    if type(node) in (cst.Tuple, cst.List):
        if any(type(e) is not cst.Element for e in node.elements):
            return None            # (`*rest` in a display)
        return [(type(node), len(node.elements))]
    if type(node) is cst.IfExp:
        body, orelse = _display_lengths(node.body), _display_lengths(node.orelse)
        return None if body is None or orelse is None else body + orelse
    return None


class _ConditionalTables(cst.CSTTransformer):
    """``t = (1, 2, 3) if c else (4, 5)`` (tuple or list displays of different lengths, or
    a tuple and a list) as
    ``if c: t = (1, 2, 3)`` / ``else: t = (4, 5)``: the same per example (the condition, then
    the display it chooses), and a name bound in two places, which step 2 pads."""

    def leave_SimpleStatementLine(self, original_node, updated_node):
        if len(updated_node.body) != 1 or type(updated_node.body[0]) is not cst.Assign:
            return updated_node
        assign = updated_node.body[0]
        if len(assign.targets) != 1 or type(assign.targets[0].target) is not cst.Name or \
                type(assign.value) is not cst.IfExp:
            return updated_node
        shapes = _display_lengths(assign.value)
        if shapes is None or len(set(shapes)) < 2:
            return updated_node     # (displays of one kind and length: an array per example)
        return _as_if(updated_node, assign.targets[0].target, assign.value).with_changes(
            leading_lines=updated_node.leading_lines)


def _as_if(line: cst.SimpleStatementLine, target: cst.Name, value):
    def bind(v):
        return cst.IndentedBlock([line.with_changes(
            body=[cst.Assign([cst.AssignTarget(target)], v)], leading_lines=())])
    orelse = value.orelse
    if type(orelse) is cst.IfExp:
        rest = _as_if(line, target, orelse)
        tail = cst.If(rest.test, rest.body, rest.orelse)
    else:
        tail = cst.Else(bind(orelse))
    return cst.If(value.test.with_changes(lpar=[], rpar=[]) if len(
        value.test.lpar) == 1 else value.test, bind(value.body), tail)


class _Table:
    def __init__(self, name: str):
        self.name = name
        self.bindings: list = []        # (items: list of nodes, global source or None)
        self.ok = True
        self.computed = False           # read at a per-example index, or iterated


def _items_of(value, pyfunc, local: set[str]):
    """(item nodes, the module's table expression or None) of a binding, or None."""
    if type(value) in (cst.Tuple, cst.List):
        items = []
        for e in value.elements:
            if type(e) is not cst.Element:
                return None
            if not (_literal(e.value) or type(e.value) is cst.Name):
                return None
            items.append(e.value)
        return items, None
    source = None
    if type(value) is cst.Name and value.value not in local:
        found, table, scope = lookup(pyfunc, value.value)
        source = table if found and scope in ("global", "closure") else None
    elif type(value) is cst.Subscript and type(value.value) is cst.Name \
            and value.value.value not in local:
        index = _one_index(value)
        found, table, scope = lookup(pyfunc, value.value.value)
        if found and scope in ("global", "closure") and type(table) is dict and index \
                is not None and (_literal(index) or type(index) is cst.SimpleString):
            try:
                source = table.get(index.evaluated_value if type(index) is not cst.UnaryOperation
                                   else -index.expression.evaluated_value)
            except TypeError:
                source = None
    if source is None or not _numbers(source):
        return None
    return [parse_expr(repr(v)) for v in source], value


def _find_tables(func: cst.FunctionDef, pyfunc) -> dict[str, _Table]:
    params = {p.name.value for p in (*func.params.params, *func.params.kwonly_params,
                                     *func.params.posonly_params)}
    local = set(params)
    for stmt in walk(func.body):
        if isinstance(stmt, cst.BaseSmallStatement) or isinstance(stmt, cst.BaseCompoundStatement):
            local |= writes(stmt)
    tables: dict[str, _Table] = {}
    bad: set[str] = set(params)
    builtin_len = "len" not in local and lookup(pyfunc, "len")[2] == "builtin"

    def visit(node, parent, nested):
        t = type(node)
        if t is cst.Name:
            if nested or not use(node, parent):
                bad.add(node.value)
            return
        inner = nested or isinstance(node, _SCOPES)
        if t is cst.Assign and len(node.targets) == 1 and type(node.targets[0].target) \
                is cst.Name and not inner:
            name = node.targets[0].target.value
            found = _items_of(node.value, pyfunc, local)
            if found is None or type(parent) is not cst.SimpleStatementLine or len(
                    parent.body) != 1:
                bad.add(name)
            else:
                tables.setdefault(name, _Table(name)).bindings.append(found)
            visit(node.value, node, inner)
            return
        if t is cst.Assign:
            for target in node.targets:
                for n in walk(target.target):
                    if type(n) is cst.Subscript and type(n.value) is cst.Name:
                        bad.add(n.value.value)      # a write into an item
        if t is cst.AugAssign:
            bad.update(n.value for n in walk(node.target) if type(n) is cst.Name)
        if t in (cst.Del, cst.Global, cst.Nonlocal, cst.NamedExpr):
            bad.update(n.value for n in walk(node) if type(n) is cst.Name)
        for child in children(node):
            visit(child, node, inner)

    def use(name: cst.Name, parent) -> bool:
        t = type(parent)
        if t is cst.Subscript and parent.value is name:
            index = _one_index(parent)
            if index is None or not (type(index) is cst.Name or int_literal(index)
                                     is not None):
                return False
            if type(index) is cst.Name:
                uses.setdefault(name.value, set()).add("computed")
            return True
        if t is cst.Arg:
            uses.setdefault(name.value, set()).add("arg")
            return True
        if t is cst.For and parent.iter is name:
            uses.setdefault(name.value, set()).add("computed")
            return type(parent.target) is cst.Name
        if t is cst.AssignTarget or (t is cst.Assign and parent.value is not name):
            return True         # (a binding: classified at the assignment)
        return False

    uses: dict[str, set] = {}
    visit(func.body, None, False)
    # `len(c)`: the only call a table is passed to
    for call in by_type(func.body).get(cst.Call, ()):
        for arg in call.args:
            if type(arg.value) is cst.Name and arg.value.value in tables and not (
                    builtin_len and type(call.func) is cst.Name and call.func.value == "len"
                    and len(call.args) == 1 and arg.keyword is None and not arg.star):
                bad.add(arg.value.value)
    out = {}
    for name, table in tables.items():
        if name in bad or len(table.bindings) < 2 or not any(
                items for items, _ in table.bindings):
            continue
        lengths = {len(items) for items, _ in table.bindings}
        table.computed = "computed" in uses.get(name, ())
        if len(lengths) > 1 or table.computed:
            out[name] = table
    return out


def _mixed(table: _Table) -> bool:
    """Whether ``table``'s items are literals of more than one type (``[1, 2.5]``, or ``[1,
    2]`` in one branch and ``[0.5]`` in another): one array of them would hold them all as
    floats (`rules.lists.check_items` refuses it)."""
    kinds = {type(item) for items, _ in table.bindings for item in items
             for item in [item.expression if type(item) is cst.UnaryOperation else item]}
    return len(kinds & {cst.Integer, cst.Float}) > 1


def _blocks(node):
    """Every list of statements under ``node`` (a function's body, a branch, a loop's
    body), nested scopes left out."""
    for n in walk(node):
        if type(n) is cst.IndentedBlock:
            yield n.body
        elif type(n) is cst.SimpleStatementSuite:
            yield n.body


class _SplitWebs(cst.CSTTransformer):
    """A name bound to tables in several places, where each binding's reads all follow it in
    its own block (``if c: t = [1, 2.5]; ... t[i] ...`` / ``else: t = [3, 4.5, -1]; ...
    t[i] ...``, no read after the ``if``, none reached by two bindings), is one name per
    binding: each a table bound once, read as the list it is (its own items, of their own
    types), which no merge of the branches needs to pad into one array."""

    def __init__(self, func: cst.FunctionDef, names: list[str], namer):
        self.renames: dict = {}         # a Name node (its binding and reads) -> its new name
        for name in names:
            webs = self._webs(func, name)
            if webs is None:
                continue
            for web in webs[1:]:
                fresh = namer.fresh(name)
                self.renames.update((id(n), fresh) for n in web)

    @staticmethod
    def _webs(func: cst.FunctionDef, name: str):
        """The Name nodes of each binding of ``name`` (its target, then its reads), or None
        where a read is not in the statements after its binding in the binding's block
        (before the block's next binding of it), or one of those statements binds it."""
        total = sum(1 for n in walk(func.body) if type(n) is cst.Name and n.value == name)
        webs, counted = [], 0
        for body in _blocks(func):
            starts = [j for j, stmt in enumerate(body) if type(stmt) is cst.SimpleStatementLine
                      and len(stmt.body) == 1 and type(stmt.body[0]) is cst.Assign
                      and len(stmt.body[0].targets) == 1
                      and type(stmt.body[0].targets[0].target) is cst.Name
                      and stmt.body[0].targets[0].target.value == name]
            for k, j in enumerate(starts):
                assign = body[j].body[0]
                if any(type(n) is cst.Name and n.value == name for n in walk(assign.value)):
                    return None
                end = starts[k + 1] if k + 1 < len(starts) else len(body)
                web = [assign.targets[0].target]
                for stmt in body[j + 1:end]:
                    if name in writes(stmt):
                        return None
                    web += [n for n in walk(stmt) if type(n) is cst.Name and n.value == name]
                webs.append(web)
                counted += len(web)
        return webs if len(webs) > 1 and counted == total else None

    def leave_Name(self, original_node, updated_node):
        fresh = self.renames.get(id(original_node))
        return updated_node if fresh is None else updated_node.with_changes(value=fresh)


class _Lower(cst.CSTTransformer):
    def __init__(self, tables: dict[str, _Table], namer):
        self.tables = tables
        self.size: dict[str, int] = {}
        self.min: dict[str, int] = {}
        self.lengths: dict[str, str] = {}        # name -> its length's name
        self.pads: dict[str, cst.BaseExpression] = {}
        for name, table in tables.items():
            sizes = [len(items) for items, _ in table.bindings]
            self.size[name], self.min[name] = max(sizes), min(sizes)
            if len(set(sizes)) > 1 or any(source is not None for _, source in table.bindings):
                self.lengths[name] = namer.fresh(f"{name}_len")
        self.namer = namer
        self.counters: dict[str, str] = {}

    def _pad(self, name: str):
        """An item to pad ``name``'s tables with: a literal of its tables (of their type)."""
        for items, _ in self.tables[name].bindings:
            for item in reversed(items):
                if _literal(item):
                    return item
        for items, _ in self.tables[name].bindings:
            if items:
                return items[-1]
        return None

    def leave_SimpleStatementLine(self, original_node, updated_node):
        if len(updated_node.body) != 1 or type(updated_node.body[0]) is not cst.Assign:
            return updated_node
        assign = updated_node.body[0]
        target = assign.targets[0].target if len(assign.targets) == 1 else None
        if type(target) is not cst.Name or target.value not in self.tables:
            return updated_node
        name = target.value
        found = _items_of(original_node.body[0].value, None, set()) if type(
            original_node.body[0].value) in (cst.Tuple, cst.List) else None
        if found is None:
            found = next((b for b in self.tables[name].bindings
                          if b[1] is original_node.body[0].value), None)
        items, source = found
        pad = items[-1] if items else self._pad(name)
        padded = list(items) + [pad.deep_clone() for _ in range(self.size[name] - len(items))]
        lines = [updated_node.with_changes(body=[assign.with_changes(value=cst.Call(
            cst.Name(LIST_ARRAY), [cst.Arg(cst.List([cst.Element(i) for i in padded]))]))])]
        if name in self.lengths:
            length = cst.Call(cst.Name("len"), [cst.Arg(source)]) if source is not None \
                else cst.Integer(str(len(items)))
            lines.append(cst.SimpleStatementLine([cst.Assign(
                [cst.AssignTarget(cst.Name(self.lengths[name]))], length)]))
        return cst.FlattenSentinel(lines)

    def leave_Call(self, original_node, updated_node):
        if type(updated_node.func) is cst.Name and updated_node.func.value == "len" and len(
                updated_node.args) == 1 and type(updated_node.args[0].value) is cst.Name:
            name = updated_node.args[0].value.value
            if name in self.lengths:
                return cst.Name(self.lengths[name])
        return updated_node

    def leave_Subscript(self, original_node, updated_node):
        if type(updated_node.value) is not cst.Name or updated_node.value.value not in \
                self.lengths:
            return updated_node
        name = updated_node.value.value
        return bounded_index(updated_node, self.lengths[name], self.size[name], self.min[name],
                             self.facts)

    def visit_For(self, node):
        self.facts.enter(node)

    def leave_For(self, original_node, updated_node):
        self.facts.leave()
        if type(updated_node.iter) is not cst.Name or updated_node.iter.value not in \
                self.lengths:
            return updated_node
        return loop_over_items(updated_node, self.lengths[updated_node.iter.value],
                               self.namer)


def transform(func: cst.FunctionDef, ctx) -> cst.FunctionDef:
    kinds = by_type(func.body)
    if cst.Assign not in kinds:
        return func
    pyfunc = ctx.source.func
    local = set()
    for stmt in walk(func.body):
        if isinstance(stmt, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
            local |= writes(stmt)
    local |= {p.name.value for p in (*func.params.params, *func.params.kwonly_params,
                                     *func.params.posonly_params)}
    if cst.IfExp in kinds and (cst.Tuple in kinds or cst.List in kinds) and \
            has_list_arrays(ctx.registry):
        func = rewrite(func, _ConditionalTables())
    if cst.Tuple in kinds:
        func = rewrite(func, _SplitTables(pyfunc, local))
    if cst.Subscript in kinds:
        lookups = _DictLookups(pyfunc, local, ctx.namer)
        new = rewrite(func, lookups)
        if lookups.changed:
            func = new
    tables = _find_tables(func, pyfunc) if has_list_arrays(ctx.registry) else {}
    mixed = [name for name, table in tables.items() if _mixed(table)]
    if mixed:
        split = _SplitWebs(func, mixed, ctx.namer)
        if split.renames:
            func = rewrite(func, split)
            tables = _find_tables(func, pyfunc)
    if not tables:
        return func
    lower = _Lower(tables, ctx.namer)
    lower.facts = Counters(func, lower.lengths)
    return rewrite(func, lower)
