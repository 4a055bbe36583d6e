"""A local list the function writes into becomes an array of its items.

Assumes: scalar-style code, not yet analysed; comprehensions over fixed ranges already written
out as displays (`body_constructs.comprehensions`).
Reads and writes no record (`records`): the lists it lowered are the names bound to
``__list_array__(...)`` (`rules.lists.stored_values` finds them).
Guarantees: a name that the function binds only to list displays (``[0.0, 0.0, 0.0]``,
``[x, y, x + y]``) or repeated displays (``[0.0] * 3``), writes items of (``vals[i] = e``,
``vals[i] += e``, with one index, under any condition, in any loop) -- or, for a display of
values not all literals, reads at an index other than a literal or a ``range`` counter
(``vals[k]``, which may differ per example) or loops over -- and otherwise only reads
an item of (``vals[k]``), passes to ``len``/``sum``/``min``/``max``, unpacks
(``a, b, c = vals``) or loops over (``for v in vals``) is bound to ``__list_array__(<the
display>)`` instead, which per example is ``np.array(<the display>)``: an array of the same
items, for which each of those uses means what it means for the list (the analysis refuses,
where they are written, items that are not numbers of one type and writes of another type:
`rules.lists`); an unpacking ``a, b = vals`` reads the items one by one, ``a, b = vals[0],
vals[1]`` (the batch copies reads that a later write would change). The arrays' rules then
batch it (a row per example; writes into it under
per-example conditions are masked by `if_to_where`, per-example indexes guarded by
`guard_indices`, raising IndexError where Python does).

    vals = [0.0, 0.0, 0.0]                     vals = __list_array__([0.0, 0.0, 0.0])
    for i in range(3):              ->         for i in range(3):
        if x > i:                                  if x > i:
            vals[i] += y                               vals[i] += y
    return sum(vals)                           return sum(vals)

A parameter's vector made a list, ``a = list(v)``, is the display of its items first
(`_lists_of_arguments`).

A list used any other way (returned, passed to a helper, bound to a second name, sliced,
appended to, concatenated, compared, read in a nested function) is left as it is: the
analysis refuses a write into it, naming the write. A list bound to a sum of displays of
names and numbers (``[0.0, 0.5] + [0.0] * 2``) is bound to the display of their items
(``[0.0, 0.5, 0.0, 0.0]``, the same list) first.
"""

from __future__ import annotations

import libcst as cst

from ..introspect import lookup
from ..liveness import writes
from ..rules.lists import LIST_ARRAY, has_list_arrays
from ..syntax.traversal import by_type, children, rewrite, walk

# builtins that read every item of a list the same way as every item of an array
_READERS = frozenset({"len", "sum", "min", "max"})
_SCOPES = (cst.Lambda, cst.FunctionDef, cst.ClassDef, cst.ListComp, cst.SetComp, cst.DictComp,
           cst.GeneratorExp)


def _list_display(node) -> bool:
    """``[a, b, c]`` (no ``*``), or ``[a] * n`` / ``n * [a]`` with an integer literal ``n``."""
    if type(node) is cst.List:
        return bool(node.elements) and all(type(e) is cst.Element for e in node.elements)
    if type(node) is cst.BinaryOperation and type(node.operator) is cst.Multiply:
        for display, times in ((node.left, node.right), (node.right, node.left)):
            if type(display) is cst.List and type(times) is cst.Integer and _list_display(
                    display) and 0 < int(times.evaluated_value) <= 64:
                return True
    return False


class _Uses:
    """For each name, whether each of its uses is one a lowered list keeps (`_classify`)."""

    def __init__(self, func: cst.FunctionDef):
        self.params = {p.name.value for p in (*func.params.params, *func.params.kwonly_params,
                                              *func.params.posonly_params)}
        self.bad: set[str] = set(self.params)
        self.created: set[str] = set()
        self.written: set[str] = set()
        # lists of values not all literals, read at an index that may differ per example or
        # looped over: as the list, refused; as the array of its items, a gather or columns
        self.computed: set[str] = set()
        self.per_example_items: set[str] = set()
        self.counters = {n.target.value for n in walk(func.body) if type(n) is cst.For
                         and type(n.target) is cst.Name and type(n.iter) is cst.Call
                         and type(n.iter.func) is cst.Name and n.iter.func.value == "range"}
        self._visit(func.body, None, False)

    def _visit(self, node, parent, nested: bool) -> None:
        if type(node) is cst.Name:
            if nested or not self._classify(node, parent):
                self.bad.add(node.value)
            return
        inner = nested or isinstance(node, _SCOPES)
        if type(node) is cst.Del:
            self.bad |= {n.value for n in walk(node) if type(n) is cst.Name}
            return
        if type(node) is cst.Assign and len(node.targets) == 1 and type(
                node.targets[0].target) is cst.Name:
            name = node.targets[0].target.value
            if _list_display(node.value) and not nested:
                self.created.add(name)
                if not all(_literal(e.value) for e in _display_items(node.value)):
                    self.per_example_items.add(name)
            else:
                self.bad.add(name)
            self._visit(node.value, node, inner)
            return
        if type(node) in (cst.Assign, cst.AugAssign) and not nested:
            targets = [t.target for t in node.targets] if type(node) is cst.Assign else [
                node.target]
            for target in targets:
                for t in ([e.value for e in target.elements]
                          if type(target) in (cst.Tuple, cst.List) else [target]):
                    if type(t) is cst.Subscript and type(t.value) is cst.Name \
                            and _one_index(t):
                        self.written.add(t.value.value)      # (`vals[0], vals[1] = ...`)
        for child in children(node):
            self._visit(child, node, inner)

    def _classify(self, name: cst.Name, parent) -> bool:
        """Whether this use of ``name`` is one an array of the list's items keeps."""
        t = type(parent)
        if t is cst.Subscript:
            if parent.value is name and _one_index(parent) and not self._shared_index(
                    parent.slice[0].slice.value):
                self.computed.add(name.value)
            return parent.value is name and _one_index(parent)
        if t is cst.Arg:
            return True                     # checked at the call (`readers`)
        if t is cst.Call:
            return False                    # `vals(...)`, `vals.append(...)`: not a list use
        if t is cst.Assign:
            # `a, b, c = vals` (the value, unpacked into names)
            return parent.value is name and all(type(target.target) in (cst.Tuple, cst.List)
                                                for target in parent.targets)
        if t is cst.For:
            if parent.iter is name:
                self.computed.add(name.value)
            return parent.iter is name
        return False

    def _shared_index(self, index) -> bool:
        """An integer literal, or a counter of ``for ... in range(...)`` (bound nowhere
        else), which the list display of arrays indexes as it is."""
        if _literal(index):
            return True
        return type(index) is cst.Name and index.value in self.counters

    def readers(self, func, pyfunc) -> None:
        """``len(vals)``, ``sum(vals)``...: the only argument of a builtin that reads every
        item; any other argument use of a name makes it not a list to lower."""
        assigned = set(self.params)
        for stmt in func.body.body:
            assigned |= writes(stmt)
        builtin = {name for name in _READERS if name not in assigned
                   and lookup(pyfunc, name)[2] == "builtin"}
        for call in by_type(func.body).get(cst.Call, ()):
            for arg in call.args:
                if type(arg.value) is not cst.Name:
                    continue
                name = arg.value.value
                if not (type(call.func) is cst.Name and call.func.value in builtin
                        and len(call.args) == 1
                        and arg.keyword is None and not arg.star):
                    self.bad.add(name)


def _literal(node) -> bool:
    if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus:
        node = node.expression
    return type(node) in (cst.Integer, cst.Float, cst.Imaginary)


def _display_items(node) -> list:
    if type(node) is cst.BinaryOperation:
        node = node.left if type(node.left) is cst.List else node.right
    return list(node.elements)


def _one_index(subscript: cst.Subscript) -> bool:
    return len(subscript.slice) == 1 and type(subscript.slice[0].slice) is cst.Index \
        and subscript.slice[0].slice.star is None


def lists_to_lower(func: cst.FunctionDef, pyfunc) -> set[str]:
    """The names of the lists this pass lowers (see the module's docstring); ``pyfunc``:
    the user's function, whose globals say whether ``sum`` is the builtin."""
    uses = _Uses(func)
    uses.readers(func, pyfunc)
    read = uses.computed & uses.per_example_items
    return (uses.created & (uses.written | read)) - uses.bad


class _Lower(cst.CSTTransformer):
    def __init__(self, names: set[str], lengths: dict[str, int]):
        self.names = names
        self.lengths = lengths

    def leave_Assign(self, original_node, updated_node):
        target = updated_node.targets[0].target if len(updated_node.targets) == 1 else None
        if type(target) is cst.Name and target.value in self.names and _list_display(
                updated_node.value):
            return updated_node.with_changes(value=cst.Call(
                cst.Name(LIST_ARRAY), [cst.Arg(_written_out(updated_node.value))]))
        value = updated_node.value
        if type(value) is cst.Name and value.value in self.lengths and type(target) in (
                cst.Tuple, cst.List) and len(target.elements) == self.lengths[value.value] \
                and all(type(e) is cst.Element for e in target.elements):
            # `a, b = vals` as `a, b = vals[0], vals[1]`: per example the same numbers; on
            # the batch reads that a later write into `vals` does not change (the analysis
            # copies such reads, `copied_reads`), where the rows of `vals.T` would be views
            return updated_node.with_changes(value=cst.Tuple([
                cst.Element(cst.Subscript(cst.Name(value.value), [cst.SubscriptElement(
                    cst.Index(cst.Integer(str(i))))])) for i in range(len(target.elements))]))
        return updated_node


def _lengths(func: cst.FunctionDef, names: set[str]) -> dict[str, int]:
    """name -> the length of the list, where every display it is bound to has the same."""
    found: dict[str, set] = {}
    for n in walk(func.body):
        if type(n) is cst.Assign and len(n.targets) == 1 and type(
                n.targets[0].target) is cst.Name and n.targets[0].target.value in names:
            value = n.value
            count = int(_times(value).evaluated_value) if type(value) is cst.BinaryOperation \
                else 1
            found.setdefault(n.targets[0].target.value, set()).add(
                len(_display_items(value)) * count)
    return {name: next(iter(sizes)) for name, sizes in found.items() if len(sizes) == 1}


def _times(node: cst.BinaryOperation):
    return node.right if type(node.left) is cst.List else node.left


def _plain(node) -> bool:
    """A name or a number, which reads the same written twice."""
    if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus:
        node = node.expression
    return type(node) in (cst.Name, cst.Integer, cst.Float, cst.Imaginary)


def _written_out(display):
    """``[x] * 3`` of names as ``[x, x, x]`` (the analysis knows displays of per-example
    values, not their repetition); a repetition of anything else stays (of numbers, it is
    the same for every example)."""
    if type(display) is not cst.BinaryOperation:
        return display
    inner, times = (display.left, display.right) if type(display.left) is cst.List else (
        display.right, display.left)
    if not all(_plain(e.value) for e in inner.elements) or all(
            type(e.value) is not cst.Name for e in inner.elements):
        return display
    items = [e.value for e in inner.elements] * int(times.evaluated_value)
    return cst.List([cst.Element(item) for item in items])


def _lists_of_arguments(func: cst.FunctionDef, ctx) -> cst.FunctionDef:
    """``a = list(v)`` (a statement of the body's top level, ``list`` the builtin) of a
    parameter ``v`` that no statement before it rebinds, where the call passes it a vector
    (per example, or the same for every example and ``a`` written into: ``a[i] = e``) of at
    most 64 items: ``a = [v[0], v[1], ...]``, the same items, a list display the passes after
    know; ``v = list(v)`` binds a name of its own (``v_list``), which the statements after
    it read in place of ``v`` (none of them reads the parameter again)."""
    if not has_list_arrays(ctx.registry) or lookup(ctx.source.func, "list")[2] != "builtin":
        return func
    written = {t.value.value for n in walk(func.body)
               for t in ([x.target for x in n.targets] if type(n) is cst.Assign else
                         [n.target] if type(n) is cst.AugAssign else [])
               if type(t) is cst.Subscript and type(t.value) is cst.Name}
    body = list(func.body.body)
    rebound: set = set()
    changed = False
    for k, stmt in enumerate(body):
        small = stmt.body[0] if type(stmt) is cst.SimpleStatementLine and len(
            stmt.body) == 1 else None
        call = getattr(small, "value", None) if type(small) is cst.Assign else None
        if type(call) is cst.Call and type(call.func) is cst.Name and \
                call.func.value == "list" and len(call.args) == 1 and \
                call.args[0].keyword is None and not call.args[0].star and type(
                    call.args[0].value) is cst.Name and len(small.targets) == 1 and type(
                    small.targets[0].target) is cst.Name and "list" not in rebound:
            name = call.args[0].value.value
            value = ctx.params.get(name)
            example = getattr(value, "example", None)
            rank = getattr(value, "rank", None)
            if name not in rebound and rank == 1 and 0 < len(example) <= 64 and (
                    value.batched or small.targets[0].target.value in written):
                items = [cst.Element(cst.Subscript(cst.Name(name), [cst.SubscriptElement(
                    cst.Index(cst.Integer(str(i))))])) for i in range(len(example))]
                target = small.targets[0].target.value
                if target == name:
                    # `v = list(v)`: from here on `v` is the list, a local of its own
                    later = body[k + 1:]
                    if any(type(n) in _SCOPES or type(n) in (cst.Global, cst.Nonlocal)
                           for s in later for n in walk(s)):
                        rebound |= writes(stmt)
                        continue
                    new = ctx.namer.fresh(f"{name}_list")
                    body[k + 1:] = [rewrite(s, _Renamed(name, new)) for s in later]
                    small = small.with_changes(targets=[small.targets[0].with_changes(
                        target=cst.Name(new))])
                body[k] = stmt.with_changes(body=[small.with_changes(value=cst.List(items))])
                changed = True
        rebound |= writes(stmt)
    return func.with_changes(body=func.body.with_changes(body=body)) if changed else func


class _Renamed(cst.CSTTransformer):
    def __init__(self, old: str, new: str):
        self.old, self.new = old, new

    def visit_Attribute(self, node):
        return False        # (its base is renamed on the way out, its attribute never)

    def leave_Attribute(self, original_node, updated_node):
        return updated_node.with_changes(value=updated_node.value.visit(self))

    def leave_Arg(self, original_node, updated_node):
        return updated_node.with_changes(keyword=original_node.keyword)

    def leave_Name(self, original_node, updated_node):
        return updated_node.with_changes(value=self.new) if updated_node.value == self.old \
            else updated_node


def _concatenated(node) -> list | None:
    """The items of ``[a, b] + [c] * 2 + ...``, a sum of list displays (``*`` of one by an
    int literal too) whose items are names or numbers (`_plain`: the same read twice), at
    most 64 of them: ``[a, b, c, c]``, the same list; else None."""
    if type(node) is cst.BinaryOperation and type(node.operator) is cst.Add:
        left, right = _concatenated(node.left), _concatenated(node.right)
        if left is None or right is None or len(left) + len(right) > 64:
            return None
        return left + right
    if not _list_display(node):
        return None
    items = [e.value for e in _display_items(node)]
    if type(node) is cst.BinaryOperation:
        items = items * int(_times(node).evaluated_value)
    return items if all(_plain(item) for item in items) else None


class _Concatenations(cst.CSTTransformer):
    """``vals = [0.0, 0.5] + [0.0] * 2`` as the display ``vals = [0.0, 0.5, 0.0, 0.0]``."""

    def leave_Assign(self, original_node, updated_node):
        value = updated_node.value
        if len(updated_node.targets) != 1 or type(updated_node.targets[0].target) \
                is not cst.Name or type(value) is not cst.BinaryOperation or type(
                    value.operator) is not cst.Add:
            return updated_node
        items = _concatenated(value)
        if items is None:
            return updated_node
        return updated_node.with_changes(value=cst.List(
            [cst.Element(item.deep_clone()) for item in items]))


def transform(func: cst.FunctionDef, ctx) -> cst.FunctionDef:
    func = _lists_of_arguments(func, ctx)
    if cst.List not in by_type(func.body) or not has_list_arrays(ctx.registry):
        return func
    if any(type(n.operator) is cst.Add and type(n.left) in (cst.List, cst.BinaryOperation)
           for n in by_type(func.body).get(cst.BinaryOperation, ())):
        # (a list made of displays added together is the display of their items)
        func = rewrite(func, _Concatenations())
    names = lists_to_lower(func, ctx.source.func)
    if not names:
        return func
    return rewrite(func, _Lower(names, _lengths(func, names)))
