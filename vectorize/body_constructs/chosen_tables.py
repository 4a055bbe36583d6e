"""A per-example choice between two dicts of constants with the same keys (meteocalc's
``const = CONSTANTS['positive'] if T > 0 else CONSTANTS['negative']``, then ``const['b']``):
the dict of per-key choices, ``{'b': CONSTANTS['positive']['b'] if T > 0 else
CONSTANTS['negative']['b'], ...}``, which the analysis tracks key by key (a dict of
per-example values) and each of whose items is an ordinary conditional expression.

Written only where re-evaluating the test and the arms once per key computes what Python
computes once: the arms are names or constant-key lookups of names, the test operators and
comparisons of names and constants (nothing that calls or writes), and the two dicts' keys
are the same strings or ints (`chosen_items`; None otherwise, and the analysis refuses as
before, located).
"""

from __future__ import annotations

import ast
import builtins

import libcst as cst

from ..liveness import writes
from ..syntax.traversal import children, rewrite, walk
from .named_attributes import assigned_names, target_nodes, written_roots

_OPERATIONS = (cst.Comparison, cst.BooleanOperation, cst.UnaryOperation, cst.BinaryOperation)
_LITERALS = (cst.Integer, cst.Float, cst.SimpleString)


def _lookup(node) -> bool:
    """A name, or a lookup of one at a constant key (``T['a'][0]``)."""
    while type(node) is cst.Subscript:
        if len(node.slice) != 1 or type(node.slice[0].slice) is not cst.Index or \
                type(node.slice[0].slice.value) not in _LITERALS:
            return False
        node = node.value
    return type(node) is cst.Name


def _pure_test(node) -> bool:
    """Operators and comparisons of names, constant lookups and literals."""
    t = type(node)
    if t in _LITERALS or _lookup(node):
        return True
    if t is cst.Comparison:
        return _pure_test(node.left) and all(_pure_test(c.comparator)
                                             for c in node.comparisons)
    if t is cst.BooleanOperation or t is cst.BinaryOperation:
        return _pure_test(node.left) and _pure_test(node.right)
    if t is cst.UnaryOperation:
        return _pure_test(node.expression)
    return False


def guarded_arm(arm, tree: cst.FunctionDef, params) -> bool:
    """Whether the arm ``arm`` is a free name (a global or a closure's dict, which the
    specialization guards by its items: `introspect.ContentsGuard`), so that the keys its
    value has now are the keys it has when the code runs. (Not an item of one: a dict
    inside a guarded dict may change its keys in place unseen.)"""
    return type(arm) is cst.Name and arm.value not in params and \
        arm.value not in assigned_names(tree)


def choosable(node: cst.IfExp, body, orelse) -> list | None:
    """The keys of the two dicts ``body`` and ``orelse`` (the arms' examples) where
    `chosen_items` may write ``node`` as the dict of per-key choices, else None."""
    if type(body) is not dict or type(orelse) is not dict or not body or \
            list(body) != list(orelse):
        return None
    if not all(type(k) is str or type(k) is int and k >= 0 for k in body):
        return None
    if not (_lookup(node.body) and _lookup(node.orelse) and _pure_test(node.test)):
        return None
    return list(body)


def _only_looked_up(tree: cst.FunctionDef, node: cst.IfExp) -> bool:
    """Whether the chosen dict is only read at constant keys: ``(a if t else b)["k"]``, or
    ``d = a if t else b`` of a name ``d`` read nowhere but as ``d["k"]`` (a new dict in
    place of the object chosen must not be seen: no write into it, no identity test, not
    handed to a function)."""
    parents = {}
    for n in walk(tree):
        for child in children(n):
            parents[id(child)] = n
    targets = target_nodes(tree)
    parent = parents.get(id(node))
    if type(parent) is cst.Subscript and parent.value is node:
        return id(parent) not in targets and _lookup(parent.with_changes(
            value=cst.Name("d")))
    if type(parent) is not cst.Assign or len(parent.targets) != 1 or \
            type(parent.targets[0].target) is not cst.Name:
        return False
    name = parent.targets[0].target.value
    for n in walk(tree.body):
        if type(n) is not cst.Name or n.value != name or n is parent.targets[0].target:
            continue
        if id(n) in targets:
            if type(parents.get(id(n))) in (cst.AssignTarget, cst.AnnAssign):
                continue    # (bound again: a new object)
            return False
        up = parents.get(id(n))
        if not (type(up) is cst.Subscript and up.value is n and id(up) not in targets and
                len(up.slice) == 1 and type(up.slice[0].slice) is cst.Index and
                type(up.slice[0].slice.value) in _LITERALS):
            return False
    return True


def _key(k) -> cst.BaseExpression:
    return cst.SimpleString(repr(k)) if type(k) is str else cst.Integer(str(k))


def _item(arm, k):
    return cst.Subscript(arm.deep_clone(), [cst.SubscriptElement(cst.Index(_key(k)))])


def chosen_items(tree: cst.FunctionDef, node: cst.IfExp, keys: list, origins=None):
    """``a if test else b`` (``node``, two dicts with ``keys``) as ``{k: a[k] if test else
    b[k], ...}``; None where ``node`` is not in ``tree``. (``node`` may come from the tree
    of a pass that rewrote other parts of the line, `passes.local_dicts`: the expression of
    ``tree`` whose test is the same node, which those passes keep where they change nothing
    below it, stands for it.)"""
    found = [n for n in walk(tree) if type(n) is cst.IfExp and (
        n is node or n.test is node.test)]
    if len(found) != 1 or not (_lookup(found[0].body) and _lookup(found[0].orelse)):
        return None
    node = found[0]
    if not _only_looked_up(tree, node):
        return None
    def choice(k):
        made = cst.IfExp(test=node.test.deep_clone(), body=_item(node.body, k),
                         orelse=_item(node.orelse, k))
        if origins is not None:
            origins.setdefault(made, node)
        return made

    class Chosen(cst.CSTTransformer):
        def leave_IfExp(self, original_node, updated_node):
            if original_node is not node:
                return updated_node
            made = cst.Dict([cst.DictElement(_key(k), choice(k)) for k in keys])
            if origins is not None:
                origins.setdefault(made, node)
            return made

    new = rewrite(tree, Chosen())
    return None if new is tree else new


# ------------------------------------------------ the same choice made by an `if` statement
_NOT = object()


def _literal(node):
    if type(node) not in _LITERALS:
        return _NOT
    try:
        return ast.literal_eval(cst.Module([]).code_for_node(node))
    except (ValueError, SyntaxError):
        return _NOT


def _display_item(node, key):
    """The value at ``key`` of a dict display or a ``dict(k=v)`` call, or None."""
    if type(node) is cst.Dict:
        for element in node.elements:
            if type(element) is not cst.DictElement:
                return None
            if _literal(element.key) == key:
                return element.value
        return None
    if type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "dict":
        for arg in node.args:
            if arg.keyword is None or arg.star:
                return None
            if arg.keyword.value == key:
                return arg.value
    return None


def _display_keys(node) -> list | None:
    if type(node) is cst.Dict:
        keys = [_literal(e.key) if type(e) is cst.DictElement else _NOT
                for e in node.elements]
    elif type(node) is cst.Call and type(node.func) is cst.Name and \
            node.func.value == "dict":
        keys = [a.keyword.value if a.keyword is not None and not a.star else _NOT
                for a in node.args]
    else:
        return None
    return None if _NOT in keys else keys


def _parents(tree) -> dict:
    parents = {}
    for n in walk(tree):
        for child in children(n):
            parents[id(child)] = n
    return parents


def _static_keys(expr, tree, params, lookup, parents) -> list | None:
    """The keys of the dict the lookup ``expr`` gives, read without running anything: a
    free name's dict (guarded by its items; the name itself, not an item of it), or an item
    of a local bound once at the top of the body to a dict display or ``dict(...)`` call
    of literal keys, which the body reads only at literal keys and never writes into."""
    path = []
    node = expr
    while type(node) is cst.Subscript:
        path.append(_literal(node.slice[0].slice.value))
        node = node.value
    root = node.value
    path.reverse()
    if root in params or root in written_roots(tree):
        return None
    if root not in assigned_names(tree):
        if path:
            return None
        found, value, scope = lookup(root)
        return list(value) if found and scope != "builtin" and type(value) is dict else None
    binds = [stmt for stmt in tree.body.body if root in writes(stmt)]
    if len(binds) != 1 or type(binds[0]) is not cst.SimpleStatementLine or \
            len(binds[0].body) != 1 or type(binds[0].body[0]) is not cst.Assign:
        return None
    assign = binds[0].body[0]
    if len(assign.targets) != 1 or type(assign.targets[0].target) is not cst.Name or \
            lookup("dict")[1] is not builtins.dict or "dict" in assigned_names(tree):
        return None
    for n in walk(tree.body):
        if type(n) is cst.Name and n.value == root and n is not assign.targets[0].target:
            up = parents.get(id(n))
            if not (type(up) is cst.Subscript and up.value is n and _lookup(up)):
                return None     # (handed on, or read whole: its keys may change)
    value = assign.value
    for key in path:
        value = _display_item(value, key)
        if value is None:
            return None
    return _display_keys(value)


def chosen_bindings(tree: cst.FunctionDef, name: str, keys: list, lookup, origins=None):
    """Every ``name = d`` of the body (``d`` a lookup of a dict with ``keys``, `_static_keys`)
    as ``name = {k: d[k], ...}``, where ``name`` is read only at literal keys: an ``if``
    that binds one of two such dicts per example then joins dicts of the same keys, item by
    item. None where any binding of ``name`` is anything else."""
    params = {p.name.value for p in (*tree.params.params, *tree.params.kwonly_params,
                                     *tree.params.posonly_params)}
    if name in params:
        return None
    parents = _parents(tree)
    targets = target_nodes(tree)
    for node in walk(tree.body):
        if type(node) in (cst.Global, cst.Nonlocal) and any(
                n.name.value == name for n in node.names):
            return None
    bindings = []
    for n in walk(tree.body):
        if type(n) is not cst.Name or n.value != name:
            continue
        up = parents.get(id(n))
        if id(n) in targets:
            assign = parents.get(id(up))
            if type(up) is not cst.AssignTarget or type(assign) is not cst.Assign or \
                    len(assign.targets) != 1 or not _lookup(assign.value) or \
                    _static_keys(assign.value, tree, params, lookup, parents) != keys:
                return None
            bindings.append(assign)
        elif not (type(up) is cst.Subscript and up.value is n and id(up) not in targets and
                  _lookup(up)):
            return None
    if not bindings:
        return None

    class Bound(cst.CSTTransformer):
        def leave_Assign(self, original_node, updated_node):
            if not any(original_node is b for b in bindings):
                return updated_node
            made = cst.Dict([cst.DictElement(_key(k), _item(original_node.value, k))
                             for k in keys])
            if origins is not None:
                origins.setdefault(made, original_node.value)
            return updated_node.with_changes(value=made)

    new = rewrite(tree, Bound())
    return None if new is tree else new
