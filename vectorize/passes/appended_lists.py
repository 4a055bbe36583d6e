"""A local list the function appends to, a bounded number of times, becomes a padded array
and its length.

Assumes: scalar-style code, not yet analysed; local dicts and tables already lowered
(`local_dicts`, `ragged_tables`).
Reads and writes no record (`records`): the lists it lowered are names bound to
``__list_array__(...)`` (`rules.lists`), their lengths ints it binds beside them.
Guarantees: a name the function binds once, in a statement of its own body, to a list display
(``out = []``, ``out = [y]``), that it appends to (``out.append(v)``, ``out.extend([a, b])``,
``out += [a, b]``) only inside ``for`` loops whose trip count is the same for every example
(``range`` of int literals, a tuple display, a tuple of the module) -- under any condition --
and otherwise only reads by ``len(out)``, ``sum(out)``, ``min(out)``, ``max(out)``,
``out[i]`` (``i`` a name or an int literal), ``for v in out`` (appending nowhere inside) or
its truth (``if out:``, ``a if out else b``, ``not out``: ``out_len > 0``),
is per example the array of its items padded to the most items any example can append
(``__list_array__([0.0] * 8)``), with the count of items beside it (``out_len``). An append
writes the item at ``out_len`` and counts it; under a per-example condition both are masked,
so each example holds its own items and length. The reads respect the length: ``len(out)``
is ``out_len``; ``out[i]`` reads the item Python reads (negative indexes count from
``out_len``), out of range an index past the padding, for which `guard_indices` raises
IndexError, as Python does; ``for v in out`` runs ``range(out_len)``; ``sum``, ``min`` and
``max`` run the loop Python runs, in its order, over the most items any example holds (each
example stops at its own length), computed before the statement that calls them
(``min``/``max`` of an empty list raise ValueError, as Python does; ``sum`` starts from the
int 0): ``sum(out)`` is

    out_sum = 0
    for out_i in range(8):
        if out_i < out_len:
            out_sum = out_sum + out[out_i]

The padding is ``0`` where every appended item is an int (a literal, ``int(...)``,
``len(...)``), ``False`` where every one is a bool, else ``0.0``; items of another type are
refused where they are written (`rules.lists.check_write`).

A list appended to that the function returns (`numpy.vectorize` would try to store a list
into one item of its result, which raises), or appended to in a ``while`` loop or a ``for``
loop whose trip count may differ per example (its length has no bound the batch can
allocate), is refused where it is appended to. Anything else is left as it is.
"""

from __future__ import annotations

import sys

import libcst as cst
import numpy as np

from ..errors import Unsupported
from ..introspect import lookup
from ..liveness import target_names, writes
from ..rules.lists import LIST_ARRAY, has_list_arrays
from ..syntax.templates import parse_expr, parse_stmt
from ..syntax.traversal import by_type, children, rewrite, walk
from .ragged_tables import Counters, bounded_index, int_literal, loop_over_items

_SCOPES = (cst.Lambda, cst.FunctionDef, cst.ClassDef, cst.ListComp, cst.SetComp, cst.DictComp,
           cst.GeneratorExp)
_MAX_ITEMS = 256
_REDUCTIONS = ("sum", "min", "max")


def _display(node) -> list | None:
    """The items of a list display (no ``*``), else None."""
    if type(node) is not cst.List or any(type(e) is not cst.Element for e in node.elements):
        return None
    return [e.value for e in node.elements]


class _List:
    def __init__(self, name: str, index: int, initial: list):
        self.name = name
        self.index = index
        self.initial = initial
        self.appended: list = []            # expressions appended
        self.count = len(initial)           # the most items any example holds
        self.ok = True
        self.unbounded = None               # the append whose loop has no shared bound
        self.returned = None                # the `return` of it


def _trips(loop: cst.For, pyfunc, local: set[str]) -> int | None:
    """How many times ``loop`` runs its body, where it is the same for every example."""
    return _length(loop.iter, pyfunc, local)


def _length(it, pyfunc, local: set[str]) -> int | None:
    """The number of items of the iterable ``it`` where it is the same for every example:
    ``range`` of int literals, a display, a tuple or list of the module, and ``enumerate``,
    ``reversed`` or ``zip`` of those."""
    if type(it) is cst.Call and type(it.func) is cst.Name and it.func.value in (
            "enumerate", "reversed", "zip") and it.func.value not in local and it.args and all(
                a.keyword is None and not a.star for a in it.args) and (
                    it.func.value == "zip" or len(it.args) == 1):
        lengths = [_length(a.value, pyfunc, local) for a in it.args]
        return None if None in lengths else min(lengths)
    if type(it) is cst.Call and type(it.func) is cst.Name and it.func.value == "range" \
            and "range" not in local and 1 <= len(it.args) <= 3 and all(
                a.keyword is None and not a.star for a in it.args):
        values = [int_literal(a.value) for a in it.args]
        if None in values or values[2:] == [0]:
            return None
        return len(range(*values))
    if type(it) in (cst.Tuple, cst.List) and all(type(e) is cst.Element for e in it.elements):
        return len(it.elements)
    if type(it) is cst.Name and it.value not in local:
        found, value, scope = lookup(pyfunc, it.value)
        if found and scope in ("global", "closure") and type(value) in (tuple, list):
            return len(value)
    return None


def _appends(stmt, name: str):
    """The items ``stmt`` appends to ``name``, where it is an append statement, else None."""
    if type(stmt) is not cst.SimpleStatementLine or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if type(small) is cst.Expr and type(small.value) is cst.Call:
        call = small.value
        f = call.func
        if type(f) is cst.Attribute and type(f.value) is cst.Name and f.value.value == name \
                and len(call.args) == 1 and call.args[0].keyword is None \
                and not call.args[0].star:
            if f.attr.value == "append":
                return [call.args[0].value]
            if f.attr.value == "extend":
                return _display(call.args[0].value)
    if type(small) is cst.AugAssign and type(small.operator) is cst.AddAssign and type(
            small.target) is cst.Name and small.target.value == name:
        return _display(small.value)
    return None


def _find(func: cst.FunctionDef, pyfunc) -> dict[str, _List]:
    params = {p.name.value for p in (*func.params.params, *func.params.kwonly_params,
                                     *func.params.posonly_params)}
    local = set(params)
    for n in walk(func.body):
        if isinstance(n, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
            local |= writes(n)
    lists: dict[str, _List] = {}
    bound: dict[str, int] = {}
    for i, stmt in enumerate(func.body.body):
        if type(stmt) is cst.SimpleStatementLine and len(stmt.body) == 1 and type(
                stmt.body[0]) is cst.Assign and len(stmt.body[0].targets) == 1 and type(
                stmt.body[0].targets[0].target) is cst.Name:
            name = stmt.body[0].targets[0].target.value
            items = _display(stmt.body[0].value)
            if items is not None:
                bound[name] = bound.get(name, 0) + 1
                lists[name] = _List(name, i, items)
    for name, count in bound.items():
        if count > 1:
            del lists[name]
    lists = {n: lst for n, lst in lists.items() if n not in params}
    if not lists:
        return lists
    builtin = {f for f in ("len", *_REDUCTIONS) if f not in local
               and lookup(pyfunc, f)[2] == "builtin"}

    def visit_block(body, trips: int | None, iterating: set[str], top: bool) -> None:
        for stmt in body:
            visit_stmt(stmt, trips, iterating, top)

    def visit_stmt(stmt, trips, iterating, top) -> None:
        for name, lst in lists.items():
            items = _appends(stmt, name)
            if items is None:
                continue
            if top and stmt is func.body.body[lst.index]:
                continue
            if name in iterating or not lst.ok:
                lst.ok = False
            elif trips is None:
                lst.unbounded = lst.unbounded or stmt
            else:
                lst.appended += items
                lst.count += trips * len(items)
            small = stmt.body[0]
            inner = small.value.args[0].value if type(small) is cst.Expr else small.value
            visit_expr(inner, None)
            return
        if type(stmt) is cst.SimpleStatementLine:
            for small in stmt.body:
                if type(small) is cst.Assign and len(small.targets) == 1 and type(
                        small.targets[0].target) is cst.Name and small.targets[0].target.value \
                        in lists and stmt is func.body.body[
                            lists[small.targets[0].target.value].index]:
                    visit_expr(small.value, None)
                    continue
                if type(small) is cst.Return and type(small.value) is cst.Name \
                        and small.value.value in lists:
                    lists[small.value.value].returned = small.value
                visit_expr(small, None)
            return
        if type(stmt) is cst.For:
            loop_trips = _trips(stmt, pyfunc, local)
            visit_expr(stmt.target, stmt)
            visit_expr(stmt.iter, stmt)
            inner_iterating = iterating
            if type(stmt.iter) is cst.Name and stmt.iter.value in lists:
                inner_iterating = iterating | {stmt.iter.value}
                if type(stmt.target) is not cst.Name:
                    lists[stmt.iter.value].ok = False
            inner = None if trips is None or loop_trips is None else trips * loop_trips
            visit_block(stmt.body.body, inner, inner_iterating, False)
            if stmt.orelse is not None:
                visit_block(stmt.orelse.body.body, trips, iterating, False)
            return
        if type(stmt) is cst.While:
            visit_expr(stmt.test, stmt)
            visit_block(stmt.body.body, None, iterating, False)
            if stmt.orelse is not None:
                visit_block(stmt.orelse.body.body, trips, iterating, False)
            return
        if type(stmt) is cst.If:
            visit_expr(stmt.test, stmt)
            visit_block(stmt.body.body, trips, iterating, False)
            if stmt.orelse is not None:
                if type(stmt.orelse) is cst.If:
                    visit_stmt(stmt.orelse, trips, iterating, False)
                else:
                    visit_block(stmt.orelse.body.body, trips, iterating, False)
            return
        visit_expr(stmt, None)      # (try, with, match...: any use there is not one we keep)
        for n in walk(stmt):
            if type(n) is cst.Name and n.value in lists:
                lists[n.value].ok = False

    def visit_expr(node, parent) -> None:
        if type(node) is cst.Name:
            lst = lists.get(node.value)
            if lst is not None and not use(node, parent):
                lst.ok = False
            return
        if isinstance(node, _SCOPES) or type(node) in (cst.Del, cst.Global, cst.Nonlocal):
            for n in walk(node):
                if type(n) is cst.Name and n.value in lists:
                    lists[n.value].ok = False
            return
        for child in children(node):
            visit_expr(child, node)

    def use(name, parent) -> bool:
        t = type(parent)
        if t is cst.Subscript and parent.value is name:
            index = parent.slice[0].slice.value if len(parent.slice) == 1 and type(
                parent.slice[0].slice) is cst.Index and parent.slice[0].slice.star is None \
                else None
            return type(index) is cst.Name or int_literal(index) is not None
        if t is cst.Arg:
            return True             # checked at the call, below
        if t is cst.For and parent.iter is name:
            return True
        if t is cst.Return and parent.value is name:
            return True             # (refused: `returned`)
        if t in (cst.If, cst.While, cst.IfExp) and parent.test is name or \
                t is cst.UnaryOperation and type(parent.operator) is cst.Not:
            return True             # its truth: whether it holds items (`_Lower`)
        return False

    visit_block(func.body.body, 1, set(), True)
    # every read of a list by a call is a `len`/`sum`/`min`/`max` of it alone; its reads
    # (item reads, length) come after its creation
    for call in by_type(func.body).get(cst.Call, ()):
        for arg in call.args:
            if type(arg.value) is cst.Name and arg.value.value in lists:
                if not (type(call.func) is cst.Name and call.func.value in builtin
                        and len(call.args) == 1 and arg.keyword is None and not arg.star):
                    lists[arg.value.value].ok = False
    for stmt in walk(func.body):
        if isinstance(stmt, cst.BaseCompoundStatement):
            headers = [getattr(stmt, f, None) for f in ("test", "iter", "items", "subject")]
            for header in headers:
                for n in walk(header) if isinstance(header, cst.CSTNode) else ():
                    _no_reduction(n, lists, builtin)
        if type(stmt) in (cst.BooleanOperation, cst.IfExp):
            for n in walk(stmt):
                _no_reduction(n, lists, builtin)
    for lst in lists.values():
        if lst.count > _MAX_ITEMS:
            lst.unbounded = lst.unbounded or True
    return lists


def _counters(func: cst.FunctionDef) -> set[str]:
    """Names bound only as counters of ``for ... in range(...)`` or targets of ``for`` over
    a tuple or list display of int literals (ints per example)."""
    counters, other = set(), set()
    for n in walk(func.body):
        if type(n) is cst.For and type(n.target) is cst.Name and (
                type(n.iter) is cst.Call and type(n.iter.func) is cst.Name
                and n.iter.func.value == "range" or type(n.iter) in (cst.Tuple, cst.List)
                and n.iter.elements and all(type(e) is cst.Element and type(
                    e.value) is cst.Integer for e in n.iter.elements)):
            counters.add(n.target.value)
        elif type(n) is cst.For:
            other |= {t.value for t in walk(n.target) if type(t) is cst.Name}
        elif isinstance(n, (cst.BaseSmallStatement, cst.BaseCompoundStatement)) \
                and type(n) is not cst.For:
            other |= writes(n) if type(n) is not cst.If else set()
    return counters - other


def _empty(reduction: str) -> str:
    """The message of this Python's ``max([])``."""
    try:
        (max if reduction == "max" else min)([])
    except ValueError as exc:
        return str(exc)
    return f"{reduction}() arg is an empty sequence"


def _no_reduction(node, lists, builtin) -> None:
    """A ``sum``/``min``/``max`` of a list in a statement's header (``if``, ``while``...) or
    evaluated on some paths only (``and``/``or``, a ternary): not computed before the
    statement; the list is left as it is."""
    if type(node) is cst.Call and type(node.func) is cst.Name and node.func.value in (
            builtin - {"len"}) and len(node.args) == 1 and type(node.args[0].value) is \
            cst.Name and node.args[0].value.value in lists:
        lists[node.args[0].value.value].ok = False


_INT = np.asarray(0).dtype

# operators whose result is an int where both operands are ints
_INT_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)


def _int_params(func: cst.FunctionDef, params: dict, dtype=_INT) -> set[str]:
    """The parameters this specialization passes ints (0-d, of the dtype of the list's
    padding ``0``: another int dtype would not fit its array) that the body never binds
    again; with ``dtype`` bool, those it passes bools."""
    bound = {name for n in walk(func.body) for name in _bound(n)}
    if "*" in bound:
        return set()
    return {name for name, value in params.items() if name not in bound
            and getattr(value, "rank", None) == 0 and getattr(value, "dtype", None) == dtype}


def _bound(node) -> list[str]:
    t = type(node)
    if t in (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr):
        return list(target_names(node.target))
    if t in (cst.Global, cst.Nonlocal, cst.Import, cst.ImportFrom, cst.FunctionDef,
             cst.ClassDef, cst.WithItem, cst.ExceptHandler):
        return ["*"]        # (too rare to track: no parameter counts as an int then)
    return []


def _pad(items: list, ints: set[str], bools: frozenset = frozenset()) -> str:
    """The padding of a list of ``items`` (see the module's docstring); ``ints``: the
    counters of ``for ... in range(...)`` loops, bound nowhere else, and the parameters
    the specialization passes ints, never bound again (`_int_params`); arithmetic (``+``,
    ``-``, ``*``, ``//``, ``%``, ``**`` an int literal), ``abs``, ``min`` and ``max`` of
    ints are ints."""
    def kind(node):
        if type(node) is cst.Name and node.value in ints:
            return "int"
        if type(node) is cst.Name and node.value in bools:
            return "bool"       # (a parameter passed bools, never bound again)
        if type(node) is cst.UnaryOperation and type(node.operator) in (cst.Minus, cst.Plus):
            return kind(node.expression)
        if type(node) is cst.Integer:
            return "int"
        if type(node) is cst.BinaryOperation and type(node.operator) in _INT_OPERATORS:
            if kind(node.left) == "int" and kind(node.right) == "int":
                return "int"
        if type(node) is cst.BinaryOperation and type(node.operator) is cst.Power:
            # `n ** 3` is an int, `n ** -1` a float
            if kind(node.left) == "int" and type(node.right) is cst.Integer:
                return "int"
        if type(node) is cst.Call and type(node.func) is cst.Name and node.func.value in (
                "abs", "min", "max") and node.args and all(
                    a.keyword is None and not a.star and kind(a.value) == "int"
                    for a in node.args):
            return "int"
        if type(node) is cst.Name and node.value in ("True", "False"):
            return "bool"
        if type(node) is cst.Comparison:
            return "bool"
        if type(node) is cst.Call and type(node.func) is cst.Name and node.func.value in (
                "int", "len") and len(node.args) == 1:
            return "int"
        return "float"
    kinds = {kind(i) for i in items}
    if kinds == {"int"}:
        return "0"
    if kinds == {"bool"}:
        return "False"
    return "0.0"


class _Lower(cst.CSTTransformer):
    def __init__(self, lists: dict[str, _List], namer):
        self.lists = lists
        self.namer = namer
        self.lengths = {name: namer.fresh(f"{name}_len") for name in lists}
        self.hoisted: list = []
        self.located: dict = {}         # new node -> the user's node it stands for

    def leave_SimpleStatementLine(self, original_node, updated_node):
        for name, lst in self.lists.items():
            if original_node is self.root.body.body[lst.index]:
                pad = _pad([*lst.initial, *lst.appended], self.counters, self.bools)
                items = [cst.Element(i) for i in lst.initial] + [
                    cst.Element(parse_expr(pad)) for _ in range(lst.count - len(lst.initial))]
                # (the count of the items before the padding, where there is padding: no
                # example reads it, so it takes the type of the items appended,
                # `rules.lists.padding`)
                known = [cst.Arg(cst.Integer(str(len(lst.initial))))] if lst.count > len(
                    lst.initial) else []
                made = updated_node.with_changes(body=[updated_node.body[0].with_changes(
                    value=cst.Call(cst.Name(LIST_ARRAY), [cst.Arg(cst.List(items)), *known]))])
                length = parse_stmt(f"{self.lengths[name]} = {len(lst.initial)}")
                return cst.FlattenSentinel([*self._flushed(), made, length])
            items = _appends(updated_node, name)
            if items is not None:
                small = original_node.body[0]
                where = small.value.func.value if type(small) is cst.Expr else small.target
                out = []
                n = self.lengths[name]
                for item in items:
                    target = cst.Subscript(where, [cst.SubscriptElement(cst.Index(cst.Name(n)))])
                    # a refusal of the write (an item of another type) points at the append
                    self.located[target] = small
                    out.append(cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(
                        target)], item)]))
                    out.append(parse_stmt(f"{n} += 1"))
                return cst.FlattenSentinel([*self._flushed(), *out])
        return self._with_hoisted(updated_node)

    def _with_hoisted(self, node):
        """``node`` after the loops computing the reductions it reads (`leave_Call`)."""
        if not self.hoisted:
            return node
        return cst.FlattenSentinel([*self._flushed(), node])

    def _flushed(self) -> list:
        out, self.hoisted = self.hoisted, []
        return out

    def leave_Call(self, original_node, updated_node):
        f = updated_node.func
        if type(f) is not cst.Name or len(updated_node.args) != 1 or type(
                updated_node.args[0].value) is not cst.Name \
                or updated_node.args[0].value.value not in self.lists:
            return updated_node
        name = updated_node.args[0].value.value
        n = self.lengths[name]
        if f.value == "len":
            return cst.Name(n)
        counter = self.namer.fresh(f"{name}_i")
        result = self.namer.fresh(f"{name}_{f.value}")
        # loops over the most items any example holds, each example stopping at its own
        # length: the order of Python's loop, with no per-example trip count to mask
        size = self.lists[name].count
        if f.value == "sum" and self.python_floats and sys.version_info >= (3, 12) and \
                _pad([*self.lists[name].initial, *self.lists[name].appended],
                     self.counters, self.bools) == "0.0":
            # Python 3.12 adds Python floats with Neumaier's compensation, NumPy scalars left
            # to right, and which an item is per example is not known here
            raise Unsupported(f"`sum` of the list `{name}` of floats on Python 3.12 and later "
                              "(Python floats are added with compensation, NumPy scalars "
                              "left to right: the items' types per example are not known)",
                              original_node, "add the items to a running total with `+` "
                              "where they are appended, or sum a list display")
        if f.value == "sum":
            code = [f"{result} = 0", f"for {counter} in range({size}):\n"
                    f"    if {counter} < {n}:\n"
                    f"        {result} = {result} + {name}[{counter}]"]
        else:
            test = ">" if f.value == "max" else "<"
            code = [f"if {n} == 0:\n    raise ValueError({_empty(f.value)!r})",
                    f"{result} = {name}[0]",
                    f"for {counter} in range(1, {size}):\n"
                    f"    if {counter} < {n} and {name}[{counter}] {test} {result}:\n"
                    f"        {result} = {name}[{counter}]"]
        self.hoisted += [parse_stmt(c + "\n") for c in code]
        return cst.Name(result)

    def leave_Subscript(self, original_node, updated_node):
        if type(updated_node.value) is not cst.Name or updated_node.value.value not in \
                self.lists:
            return updated_node
        name = updated_node.value.value
        index = updated_node.slice[0].slice.value
        if type(index) is cst.Name and index.value == self.lengths[name]:
            return updated_node        # (an append's write)
        return bounded_index(updated_node, self.lengths[name], self.lists[name].count, 0,
                             self.facts)

    def _truth(self, node):
        """A lowered list used for its truth (``if out:``): whether it holds items."""
        if type(node) is cst.Name and node.value in self.lists:
            return parse_expr(f"{self.lengths[node.value]} > 0")
        return node

    def leave_If(self, original_node, updated_node):
        return updated_node.with_changes(test=self._truth(updated_node.test))

    def leave_While(self, original_node, updated_node):
        return updated_node.with_changes(test=self._truth(updated_node.test))

    def leave_IfExp(self, original_node, updated_node):
        return updated_node.with_changes(test=self._truth(updated_node.test))

    def leave_UnaryOperation(self, original_node, updated_node):
        if type(updated_node.operator) is cst.Not and type(
                updated_node.expression) is cst.Name and updated_node.expression.value in \
                self.lists:
            return parse_expr(f"{self.lengths[updated_node.expression.value]} == 0")
        return updated_node

    def visit_For(self, node):
        self.facts.enter(node)

    def leave_For(self, original_node, updated_node):
        self.facts.leave()
        if type(updated_node.iter) is not cst.Name or updated_node.iter.value not in \
                self.lists:
            return updated_node
        return loop_over_items(updated_node, self.lengths[updated_node.iter.value],
                               self.namer)


def transform(func: cst.FunctionDef, ctx) -> cst.FunctionDef:
    if cst.List not in by_type(func.body):
        return func
    if not has_list_arrays(ctx.registry):
        return func             # (the append stays, refused where it is written)
    lists = _find(func, ctx.source.func)
    lowered = {}
    for name, lst in lists.items():
        if not (lst.appended or lst.unbounded):
            continue
        if lst.returned is not None and lst.ok:
            raise Unsupported(f"the list `{name}` that the function appends to is its result: "
                              "numpy.vectorize stores one object per example into its result "
                              "(and raises for a list), and the batch has no array of lists",
                              lst.returned, "return a number computed from it (len, sum, an "
                              "item), or a tuple of a fixed length", kind="raises")
        if lst.unbounded is not None and lst.ok:
            node = lst.unbounded if lst.unbounded is not True else func.body.body[lst.index]
            raise Unsupported(f"the list `{name}` is appended to in a loop whose number of "
                              "iterations may differ per example (or more than "
                              f"{_MAX_ITEMS} times): its length has no bound the batch can "
                              "allocate", node,
                              "append in a `for` loop over range(<int literal>), or collect "
                              "a running sum/min/max instead of the list")
        if lst.ok:
            lowered[name] = lst
    if not lowered:
        return func
    lower = _Lower(lowered, ctx.namer)
    lower.python_floats = bool(getattr(ctx.module, "python_semantics", False))
    lower.root = func
    lower.counters = _counters(func) | _int_params(func, ctx.params)
    lower.bools = frozenset(_int_params(func, ctx.params, np.dtype(bool)))
    lower.facts = Counters(func, {})
    out = rewrite(func, lower)
    positions = ctx.source.positions
    for node, original in lower.located.items():
        if original in positions:
            positions[node] = positions[original]
    return out
