"""Attributes named by a string the same for every example, and methods of a per-example
record taken before they are called (blackscholes' ``_calc_attr``: ``put_attr =
getattr(self.put1, attribute_name)`` ... ``put_attr() + call_attr()``).

- ``getattr(obj, name)`` where ``name`` is a string the same on every run of that line (a
  literal, a parameter of the specialization the body never rebinds, a free name, which
  the specialization guards) is, in Python, the attribute ``obj.<name>``: `getattr_written`
  writes it so (not a name Python would mangle, ``__x``, nor one that is no identifier).
- ``f = obj.method`` (a method of a per-example record, `analysis.calls.record_member`) bound
  once at the top of the body and only called afterwards: `method_alias_inlined` writes each
  ``f(...)`` as ``obj.method(...)``, where ``obj`` is a chain of attributes of a name the
  body never rebinds, and none of whose attributes it assigns (a record's fields are its
  values when it was made: the bound method's object is the one the call reads).

Each gives None where its conditions do not hold (the analysis then refuses, located).
"""

from __future__ import annotations

import keyword

import libcst as cst

from ..liveness import writes
from ..syntax.traversal import rewrite, walk


def assigned_names(tree: cst.FunctionDef) -> set:
    """The names the body of ``tree`` may bind (not its parameters)."""
    out: set = set()
    for stmt in tree.body.body:
        out |= writes(stmt)
    return out


def fixed_string(tree: cst.FunctionDef, expr, params) -> bool:
    """Whether ``expr`` gives the same string on every run of its line in this
    specialization: a string literal (no f-string), or a name the body never binds (a
    parameter: a helper's specialization is one per exact string argument; a free name:
    guarded)."""
    if type(expr) is cst.SimpleString:
        return True
    if type(expr) is cst.ConcatenatedString:
        return all(type(p) is cst.SimpleString for p in (expr.left, expr.right)) or \
            fixed_string(tree, expr.left, params) and fixed_string(tree, expr.right, params)
    return type(expr) is cst.Name and expr.value not in assigned_names(tree)


def attribute_name(name) -> bool:
    """Whether ``obj.<name>`` reads what ``getattr(obj, name)`` reads."""
    return type(name) is str and name.isidentifier() and not keyword.iskeyword(name) and \
        not (name.startswith("__") and not name.endswith("__"))


def getattr_written(tree: cst.FunctionDef, call: cst.Call, name: str, origins=None):
    """``getattr(obj, "name")`` (``call``) as ``obj.name``."""
    if not attribute_name(name) or len(call.args) != 2:
        return None

    class Written(cst.CSTTransformer):
        def leave_Call(self, original_node, updated_node):
            if original_node is not call:
                return updated_node
            new = cst.Attribute(updated_node.args[0].value, cst.Name(name))
            if origins is not None:
                origins.setdefault(new, original_node)
            return new

    new = rewrite(tree, Written())
    return None if new is tree else new


def _root(expr):
    """The name at the root of a chain of attributes ``a.b.c`` (``a``), or None."""
    while type(expr) is cst.Attribute:
        expr = expr.value
    return expr.value if type(expr) is cst.Name else None


def target_nodes(tree) -> dict:
    """The nodes the body of ``tree`` assigns to, deletes or binds in a loop or ``with``
    (and every node below them), by id."""
    out: dict = {}
    for node in walk(tree.body):
        t = type(node)
        if t in (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.Del, cst.For, cst.CompFor):
            target = node.target
        elif t is cst.WithItem and node.asname is not None:
            target = node.asname.name
        else:
            continue
        out.update((id(n), n) for n in walk(target))
    return out


def written_roots(tree) -> set:
    """The root names of the attributes and items the body assigns or deletes (``self`` of
    ``self.a = v``, ``del self.a.b``, ``self.a[0] += 1``)."""
    out: set = set()
    for node in target_nodes(tree).values():
        if type(node) in (cst.Attribute, cst.Subscript):
            while type(node) in (cst.Attribute, cst.Subscript):
                node = node.value
            if type(node) is cst.Name:
                out.add(node.value)
    return out


def method_alias_inlined(tree: cst.FunctionDef, attribute: cst.Attribute, origins=None):
    """``f = obj.method`` (``attribute`` its value), a statement of the body's top level,
    with each later ``f(...)`` written as ``obj.method(...)`` and the binding dropped."""
    root = _root(attribute.value)
    if root is None:
        return None
    body = list(tree.body.body)
    at = None
    for k, stmt in enumerate(body):
        if type(stmt) is cst.SimpleStatementLine and len(stmt.body) == 1 and \
                type(stmt.body[0]) is cst.Assign and stmt.body[0].value is attribute:
            at = k
            break
    if at is None:
        return None
    assign = body[at].body[0]
    if len(assign.targets) != 1 or type(assign.targets[0].target) is not cst.Name:
        return None
    alias = assign.targets[0].target.value
    if alias == root or root in assigned_names(tree) or root in written_roots(tree):
        return None
    if any(alias in writes(stmt) for k, stmt in enumerate(body) if k != at):
        return None
    for node in walk(tree.body):
        if type(node) in (cst.Global, cst.Nonlocal) and any(
                n.name.value in (alias, root) for n in node.names):
            return None
    # every read of the alias is the function of a call, after the binding
    callees: set = set()
    for k, stmt in enumerate(body):
        names = [n for n in walk(stmt) if type(n) is cst.Name and n.value == alias]
        if k == at:
            if len(names) != 1:
                return None
            continue
        if names and k < at:
            return None
        calls = {id(n.func) for n in walk(stmt) if type(n) is cst.Call and
                 type(n.func) is cst.Name and n.func.value == alias}
        if any(id(n) not in calls for n in names):
            return None
        callees |= calls
    if not callees:
        return None

    class Inlined(cst.CSTTransformer):
        def leave_Name(self, original_node, updated_node):
            if id(original_node) not in callees:
                return updated_node
            clone = attribute.deep_clone()
            if origins is not None:
                origins.setdefault(clone, attribute)
            return clone

        def leave_Call(self, original_node, updated_node):
            if id(original_node.func) in callees and origins is not None:
                origins.setdefault(updated_node, original_node)
            return updated_node

    new = rewrite(tree, Inlined())
    if new is None:
        return None
    kept = list(new.body.body)
    del kept[at]
    if not kept:
        return None
    return new.with_changes(body=new.body.with_changes(body=kept))
