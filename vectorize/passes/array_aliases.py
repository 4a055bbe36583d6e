"""A second name for an array that is written into is the first name.

Assumes: scalar-style code, not yet analysed (helpers run the same passes).
Reads and writes no record (`records`).
Guarantees: ``a = b`` of two plain names, where the function writes items of ``a`` or
``b`` (``a[i] = v``, ``b[i] += v``, ``a.fill(0)``...) -- per example both names hold one
array, so a write through either is seen through the other, which the analysis refuses
(the batch cannot keep two names for one array) -- is removed and every later ``a`` reads
``b``, where that is the same object on every path Python takes:

- ``a`` is bound by that statement only (not a parameter, no other assignment, ``a += v``,
  ``for a``, ``del a``, walrus, ``with ... as a``, ``except ... as a``, comprehension
  target, ``global``/``nonlocal``), and
- every other ``a`` in the function is in the statements after it in its own block (so it
  runs after the binding, on the same pass of any loop around them; an ``a`` read nowhere
  only goes), and
- none of those statements, up to the last one that names ``a``, rebinds ``b`` (``b = ...``,
  ``b += v``: for a number that is a new object, ``for b``...), and
- neither name appears in a nested function, lambda or class, nor as a comprehension's
  target in those statements.

    out = np.zeros(4)                        out = np.zeros(4)
    alias = out                   ->         (removed)
    alias[1] = 2.0                           out[1] = 2.0
    tot += out[1]                            tot += out[1]

Per example nothing changes: ``a`` and ``b`` are the same object wherever ``a`` is read or
written. Anything else (``a = b[1:]``, a view; ``b`` rebound while ``a`` is still used) is
left as it is, for the analysis to refuse where it is written.
"""

from __future__ import annotations

import libcst as cst

from ..syntax.traversal import by_type, walk

# methods that change an array in place (`analysis.aliasing._CHANGING_METHODS`)
_CHANGING = frozenset({"sort", "fill", "put", "resize", "partition", "itemset", "setfield",
                       "setflags", "byteswap"})
_SCOPES = (cst.Lambda, cst.FunctionDef, cst.ClassDef)
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


def _names(node):
    """The `cst.Name` nodes of ``node`` that name variables (not an attribute's name, a
    keyword argument's name or an import's)."""
    stack = [node]
    while stack:
        n = stack.pop()
        t = type(n)
        if t is cst.Name:
            yield n
        elif t is cst.Attribute:
            stack.append(n.value)
        elif t is cst.Arg:
            stack.append(n.value)
        elif t in (cst.Import, cst.ImportFrom):
            continue
        else:
            stack.extend(n.children)


def _bound(node) -> list[str]:
    """Every name ``node`` binds anywhere inside it (with repeats, one per binding)."""
    out: list[str] = []
    for n in walk(node):
        t = type(n)
        if t is cst.AssignTarget:
            _target_names(n.target, out)
        elif t in (cst.AugAssign, cst.AnnAssign):
            _target_names(n.target, out)
        elif t in (cst.For, cst.CompFor):
            _target_names(n.target, out)
        elif t is cst.NamedExpr:
            _target_names(n.target, out)
        elif t is cst.AsName:
            _target_names(n.name, out)
        elif t is cst.Del:
            _target_names(n.target, out)
        elif t in (cst.Global, cst.Nonlocal):
            out += [item.name.value for item in n.names]
        elif t in (cst.FunctionDef, cst.ClassDef):
            out.append(n.name.value)
        elif t is cst.Param:
            out.append(n.name.value)
    return out


def _target_names(target, out: list) -> None:
    t = type(target)
    if t is cst.Name:
        out.append(target.value)
    elif t in (cst.Tuple, cst.List):
        for element in target.elements:
            _target_names(element.value, out)
    elif t is cst.StarredElement:
        _target_names(target.value, out)


def _written_into(func) -> set[str]:
    """The names whose items the function writes (``y[i] = v``, ``y[i] += v``) or that it
    changes by a method (``y.fill(0)``)."""
    out: set[str] = set()
    for n in walk(func.body):
        t = type(n)
        if t is cst.AssignTarget or t is cst.AugAssign:
            stack = [n.target]
            while stack:
                target = stack.pop()
                if type(target) in (cst.Tuple, cst.List):
                    stack += [e.value for e in target.elements]
                elif type(target) is cst.StarredElement:
                    stack.append(target.value)
                elif type(target) is cst.Subscript and type(target.value) is cst.Name:
                    out.add(target.value.value)
        elif t is cst.Call and type(n.func) is cst.Attribute and type(
                n.func.value) is cst.Name and n.func.attr.value in _CHANGING:
            out.add(n.func.value.value)
    return out


def _alias(stmt):
    """``(a, b)`` where ``stmt`` is the line ``a = b`` of two different plain names."""
    if type(stmt) is not cst.SimpleStatementLine or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if type(small) is not cst.Assign or len(small.targets) != 1:
        return None
    target, value = small.targets[0].target, small.value
    if type(target) is not cst.Name or type(value) is not cst.Name or \
            target.value == value.value:
        return None
    return target.value, value.value


class _Rename(cst.CSTTransformer):
    """Every variable ``old`` read or written is ``new`` (attribute and keyword names kept)."""

    def __init__(self, old: str, new: str):
        self.old, self.new = old, new

    def leave_Name(self, original_node, updated_node):
        if updated_node.value == self.old:
            return updated_node.with_changes(value=self.new)
        return updated_node

    def leave_Attribute(self, original_node, updated_node):
        return updated_node.with_changes(attr=original_node.attr)

    def leave_Arg(self, original_node, updated_node):
        return updated_node.with_changes(keyword=original_node.keyword)


class _Aliases(cst.CSTTransformer):
    def __init__(self, func, written: set[str]):
        self.written = written
        self.bindings: dict[str, int] = {}
        for name in _bound(func.params):
            self.bindings[name] = self.bindings.get(name, 0) + 1
        for name in _bound(func.body):
            self.bindings[name] = self.bindings.get(name, 0) + 1
        self.uses: dict[str, int] = {}
        for n in _names(func.body):
            self.uses[n.value] = self.uses.get(n.value, 0) + 1
        self.nested: set[str] = set()
        for n in walk(func.body):
            if isinstance(n, _SCOPES):
                self.nested.update(m.value for m in _names(n))

    def _renamable(self, body: list, k: int, a: str, b: str) -> int | None:
        """The index of the last statement after ``body[k]`` that names ``a``, where every
        condition of the module's docstring holds; else None."""
        if a not in self.written and b not in self.written:
            return None
        if self.bindings.get(a, 0) != 1 or a in self.nested or b in self.nested:
            return None
        rest, last, seen = body[k + 1:], None, 0
        for i, stmt in enumerate(rest):
            count = sum(1 for n in _names(stmt) if n.value == a)
            if count:
                last, seen = i, seen + count
        # `a` once as the target, once per other use; all of them after the binding
        if seen + 1 != self.uses.get(a, 0):
            return None
        if last is None:
            return k        # (never read: the binding does nothing, and goes)
        for stmt in rest[:last + 1]:
            if b in _bound(stmt) or a in _bound(stmt):
                return None
            for n in walk(stmt):
                if isinstance(n, _COMPREHENSIONS):
                    inner: list = []
                    for m in walk(n):
                        if type(m) is cst.CompFor:
                            _target_names(m.target, inner)
                    if a in inner or b in inner:
                        return None
        return k + 1 + last

    def leave_IndentedBlock(self, original_node, updated_node):
        body, changed, k = list(updated_node.body), False, 0
        while k < len(body):
            pair = _alias(body[k])
            end = self._renamable(body, k, *pair) if pair is not None else None
            if end is None:
                k += 1
                continue
            a, b = pair
            rename = _Rename(a, b)
            body[k + 1:end + 1] = [stmt.visit(rename) for stmt in body[k + 1:end + 1]]
            del body[k]
            self.bindings[a] = 0
            self.uses[b] = self.uses.get(b, 0) + self.uses.pop(a, 0) - 1
            changed = True
        if not changed:
            return updated_node
        if not body:
            body = [cst.SimpleStatementLine([cst.Pass()])]
        return updated_node.with_changes(body=body)


def transform(func: cst.FunctionDef, ctx) -> cst.FunctionDef:
    kinds = by_type(func.body)
    if cst.Assign not in kinds or cst.FunctionDef in kinds or cst.ClassDef in kinds:
        return func
    written = _written_into(func)
    if not written:
        return func
    if not any(pair is not None and (pair[0] in written or pair[1] in written)
               for n in kinds.get(cst.SimpleStatementLine, ()) for pair in [_alias(n)]):
        return func
    return func.visit(_Aliases(func, written))
