"""A local dict with constant keys becomes one variable per key.

Assumes: scalar-style code, not yet analysed (helpers run the same passes: a helper's own
dicts are lowered in it).
Reads and writes no record (`records`).
Guarantees: a name the function binds exactly once, in a statement of its own body (not inside
an ``if``, a loop, a ``try`` or a ``with``), to a dict display whose keys are string or int
literals (``d = {}``, ``d = {"a": x, "b": y}``), and that it otherwise only
- reads an item of at a literal key (``d["a"]``),
- writes an item of at a literal key (``d["a"] = v``, ``d["a"] += v``), anywhere,
- asks ``d.get("a")`` / ``d.get("a", default)`` or ``"a" in d`` / ``"a" not in d`` of, or
- returns (``return d``)
has its items as variables named after it and the key (``d_a``). Per example the values are
those the dict holds: the display's values are evaluated in their order and bound in it, a
write rebinds the key's variable. Each read must find the key in the dict on every path
Python takes to it, where the rewrite knows it without analysis: the key is in the display,
or written by a statement of the function's own body before the read's statement; a key
never written is absent (``d.get("c", 0.0)`` is ``0.0``, ``"c" in d`` is ``False``). A
``return d`` returns a dict display of the keys in the order Python's dict has them (the
order of their first definite writes); it needs every key written to be known there.
A dict used any other way (a key computed per example or not written on every path before a
read, ``d.keys()``, ``len(d)``, passed to a call, bound to a second name, read in a nested
function, ``del d[k]``) is left as it is, for the analysis to refuse where it is used.

    d = {}                                   (removed)
    d["a"] = x * 2               ->          d_a = x * 2
    if x > 0:                                if x > 0:
        d["a"] += 1                              d_a += 1
    return d["a"] + d.get("b", 0.0)          return d_a + 0.0
"""

from __future__ import annotations

import libcst as cst

from ..syntax.templates import parse_expr
from ..syntax.traversal import by_type, children, rewrite, walk
from .ragged_tables import int_literal

_SCOPES = (cst.Lambda, cst.FunctionDef, cst.ClassDef, cst.ListComp, cst.SetComp, cst.DictComp,
           cst.GeneratorExp)
_MISSING = object()


def _key(node):
    """The value of a literal key (a plain string or an int), else `_MISSING`."""
    if type(node) is cst.SimpleString and node.prefix.lower() in ("", "u"):
        return node.evaluated_value
    value = int_literal(node)
    return _MISSING if value is None else value


def _display_keys(node) -> list | None:
    """The keys of a dict display of literal keys, in order (``None``: not one)."""
    if type(node) is not cst.Dict:
        return None
    keys = []
    for element in node.elements:
        if type(element) is not cst.DictElement:
            return None                         # `**other`
        key = _key(element.key)
        if key is _MISSING:
            return None
        keys.append(key)
    return keys


def _subscript_key(node: cst.Subscript):
    if len(node.slice) != 1 or type(node.slice[0].slice) is not cst.Index \
            or node.slice[0].slice.star is not None:
        return _MISSING
    return _key(node.slice[0].slice.value)


class _Dict:
    """What the function does with one candidate dict."""

    def __init__(self, name: str, index: int, keys: list):
        self.name = name
        self.index = index                      # its creating statement in the body
        # key -> the index of the first top-level statement that binds it on every path
        self.definite = {key: index for key in keys}
        self.order = list(dict.fromkeys(keys))
        self.reads: list = []                   # (key, statement index, strict?)
        self.maybe: set = set()                 # keys written on some paths only
        self.returned = False
        self.ok = True


def _candidates(func: cst.FunctionDef) -> dict[str, _Dict]:
    found: dict[str, _Dict] = {}
    bound_twice: set[str] = set()
    for i, stmt in enumerate(func.body.body):
        if type(stmt) is not cst.SimpleStatementLine:
            continue
        for small in stmt.body:
            if len(stmt.body) != 1:
                # (`d = {}; d["a"] = x` on one line: the creation is rewritten on its own)
                names = {t.target.value for t in getattr(small, "targets", ())
                         if type(t.target) is cst.Name}
                bound_twice |= names
                continue
            if type(small) is cst.Assign and len(small.targets) == 1 and type(
                    small.targets[0].target) is cst.Name:
                keys = _display_keys(small.value)
                name = small.targets[0].target.value
                if keys is not None:
                    if name in found:
                        bound_twice.add(name)
                    found[name] = _Dict(name, i, keys)
    for name in bound_twice:
        found.pop(name, None)
    return found


def _analyse(func: cst.FunctionDef, dicts: dict[str, _Dict]) -> None:
    params = {p.name.value for p in (*func.params.params, *func.params.kwonly_params,
                                     *func.params.posonly_params)}
    for name in params & set(dicts):
        dicts[name].ok = False
    for i, stmt in enumerate(func.body.body):
        top = type(stmt) is cst.SimpleStatementLine
        _visit(stmt, None, i, top, False, dicts)


def _visit(node, parent, index: int, top: bool, nested: bool, dicts) -> None:
    """Classify every use of a candidate's name below ``node`` (see the module's docstring).
    ``top``: ``node`` runs on every path through its statement of the function's body."""
    t = type(node)
    if t is cst.Name:
        d = dicts.get(node.value)
        if d is not None and not _use(node, parent, index, top, d):
            d.ok = False
        return
    if t in (cst.If, cst.For, cst.While, cst.Try, cst.With, cst.Match) or (
            hasattr(cst, "TryStar") and t is cst.TryStar):
        top = False
    if t in (cst.BooleanOperation, cst.IfExp):
        top = False             # (the right side, a branch: evaluated on some paths only)
    nested = nested or isinstance(node, _SCOPES) or t is cst.Del
    if nested:
        for n in walk(node):
            if type(n) is cst.Name and n.value in dicts:
                dicts[n.value].ok = False
        return
    if t is cst.Assign and len(node.targets) == 1 and type(node.targets[0].target) is cst.Name \
            and node.targets[0].target.value in dicts and top \
            and dicts[node.targets[0].target.value].index == index \
            and _display_keys(node.value) is not None:
        _visit(node.value, node, index, top, nested, dicts)    # the creation itself
        return
    if t in (cst.Assign, cst.AugAssign):
        targets = [x.target for x in node.targets] if t is cst.Assign else [node.target]
        for target in targets:
            if type(target) is cst.Subscript and type(target.value) is cst.Name \
                    and target.value.value in dicts:
                d = dicts[target.value.value]
                key = _subscript_key(target)
                if key is _MISSING:
                    d.ok = False
                    continue
                if t is cst.AugAssign:
                    d.reads.append((key, index, True))
                if key not in d.definite:
                    if top and t is cst.Assign and len(node.targets) == 1:
                        d.definite[key] = index
                        d.order.append(key)
                    else:
                        d.maybe.add(key)
                elif d.definite[key] > index or (d.definite[key] == index and t is cst.AugAssign):
                    d.maybe.add(key)
            else:
                _visit(target, node, index, top, nested, dicts)
        _visit(node.value, node, index, top, nested, dicts)
        return
    for child in children(node):
        _visit(child, node, index, top, nested, dicts)


def _use(name: cst.Name, parent, index: int, top: bool, d: _Dict) -> bool:
    """Whether this use of a candidate's name is one of its allowed uses; records reads."""
    t = type(parent)
    if t is cst.Subscript and parent.value is name:
        key = _subscript_key(parent)
        if key is _MISSING:
            return False
        d.reads.append((key, index, True))
        return True
    if t is cst.Attribute and parent.value is name:
        return parent.attr.value == "get"   # (checked at the call: `_gets`)
    if t is cst.ComparisonTarget:
        return True             # (`"a" in d`: recognized at the comparison, `_tests`)
    if t is cst.Return:
        d.returned = True
        return True
    return False


def _gets(func, dicts) -> None:
    """``d.get(k[, default])`` and ``k in d``: reads that tolerate an absent key, but must
    know whether it is there."""
    for i, stmt in enumerate(func.body.body):
        for n in walk(stmt):
            if type(n) is cst.Call and type(n.func) is cst.Attribute and type(
                    n.func.value) is cst.Name and n.func.value.value in dicts:
                d = dicts[n.func.value.value]
                args = n.args
                if n.func.attr.value != "get" or not 1 <= len(args) <= 2 or any(
                        a.keyword is not None or a.star for a in args) \
                        or _key(args[0].value) is _MISSING:
                    d.ok = False
                    continue
                d.reads.append((_key(args[0].value), i, False))
            elif type(n) is cst.Comparison:
                for j, comp in enumerate(n.comparisons):
                    if type(comp.comparator) is cst.Name and comp.comparator.value in dicts:
                        d = dicts[comp.comparator.value]
                        left = n.left if j == 0 else n.comparisons[j - 1].comparator
                        if type(comp.operator) not in (cst.In, cst.NotIn) or len(
                                n.comparisons) != 1 or _key(left) is _MISSING:
                            d.ok = False
                            continue
                        d.reads.append((_key(left), i, False))
            elif type(n) is cst.Attribute and type(n.value) is cst.Name \
                    and n.value.value in dicts:
                d = dicts[n.value.value]
                # only `d.get` as the called function
                if n.attr.value != "get":
                    d.ok = False
    called = {id(n.func) for n in walk(func.body) if type(n) is cst.Call}
    for n in walk(func.body):
        if type(n) is cst.Attribute and type(n.value) is cst.Name and n.value.value in dicts \
                and id(n) not in called:
            dicts[n.value.value].ok = False      # `f = d.get` (a bound method, not called)


def _lowerable(d: _Dict) -> bool:
    if not d.ok:
        return False
    for key, index, strict in d.reads:
        if key in d.maybe:
            return False
        here = d.definite.get(key)
        if here is None:
            if strict:
                return False        # KeyError on every path: left for the analysis
        elif here >= index:
            return False
    return not (d.returned and d.maybe)


def dicts_to_lower(func: cst.FunctionDef) -> dict[str, _Dict]:
    dicts = _candidates(func)
    if not dicts:
        return {}
    _analyse(func, dicts)
    _gets(func, dicts)
    return {name: d for name, d in dicts.items() if _lowerable(d)}


def _variable(name: str, key) -> str:
    text = str(key) if not isinstance(key, int) or key >= 0 else f"m{-key}"
    safe = "".join(c if c.isalnum() or c == "_" else "_" for c in text)
    return f"{name}_{safe}" if safe.isidentifier() or safe.isdigit() else f"{name}_item"


class _Lower(cst.CSTTransformer):
    def __init__(self, dicts: dict[str, _Dict], namer):
        self.dicts = dicts
        self.names: dict[tuple, str] = {}
        self.namer = namer
        self.located: dict = {}      # a rewritten `return d` -> the user's

    def var(self, d: str, key) -> str:
        if (d, key) not in self.names:
            self.names[(d, key)] = self.namer.fresh(_variable(d, key))
        return self.names[(d, key)]

    def leave_SimpleStatementLine(self, original_node, updated_node):
        if len(updated_node.body) != 1:
            return updated_node
        small = updated_node.body[0]
        if type(small) is cst.Assign and len(small.targets) == 1 and type(
                small.targets[0].target) is cst.Name and small.targets[0].target.value \
                in self.dicts and type(small.value) is cst.Dict:
            d = small.targets[0].target.value
            lines = [updated_node.with_changes(body=[cst.Assign(
                [cst.AssignTarget(cst.Name(self.var(d, _key(e.key))))], e.value)])
                for e in small.value.elements]
            return cst.FlattenSentinel(lines) if lines else cst.RemoveFromParent()
        return updated_node

    def leave_Subscript(self, original_node, updated_node):
        if type(updated_node.value) is cst.Name and updated_node.value.value in self.dicts:
            return cst.Name(self.var(updated_node.value.value, _subscript_key(updated_node)))
        return updated_node

    def leave_Call(self, original_node, updated_node):
        f = updated_node.func
        if type(f) is cst.Attribute and type(f.value) is cst.Name and f.value.value \
                in self.dicts:
            d = self.dicts[f.value.value]
            key = _key(updated_node.args[0].value)
            if key in d.definite:
                return cst.Name(self.var(d.name, key))
            return updated_node.args[1].value if len(updated_node.args) == 2 else cst.Name(
                "None")
        return updated_node

    def leave_Comparison(self, original_node, updated_node):
        comp = updated_node.comparisons[0] if len(updated_node.comparisons) == 1 else None
        if comp is not None and type(comp.comparator) is cst.Name \
                and comp.comparator.value in self.dicts:
            there = _key(updated_node.left) in self.dicts[comp.comparator.value].definite
            return cst.Name(str(there if type(comp.operator) is cst.In else not there))
        return updated_node

    def leave_Return(self, original_node, updated_node):
        value = updated_node.value
        if type(value) is cst.Name and value.value in self.dicts:
            d = self.dicts[value.value]
            new = updated_node.with_changes(value=cst.Dict([cst.DictElement(
                parse_expr(_spelled(key)),
                cst.Name(self.var(d.name, key))) for key in d.order]))
            # a refusal of the returned dict (`vectorize`) points at the user's `return`
            self.located[new] = original_node
            return new
        return updated_node


def _spelled(key) -> str:
    """A literal key as the source writes it (double quotes, as the user's code does)."""
    text = repr(key)
    if isinstance(key, str) and text.startswith("'") and '"' not in key:
        text = '"' + text[1:-1] + '"'
    return text


def transform(func: cst.FunctionDef, ctx) -> cst.FunctionDef:
    if cst.Dict not in by_type(func.body):
        return func
    dicts = dicts_to_lower(func)
    if not dicts:
        return func
    lower = _Lower(dicts, ctx.namer)
    out = rewrite(func, lower)
    if lower.located:
        positions = ctx.source.positions
        for new, original in lower.located.items():
            if original in positions:
                positions[new] = positions[original]
                positions[new.value] = positions[original.value]
    return out
