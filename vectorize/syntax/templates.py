"""Code from text: expression templates, new names and calls, and the text of a node.

Templates are real Python expressions whose placeholders are bare names (Tangent-style):
``expr("np.where({cond}, {a}, {b})", cond=..., a=..., b=...)`` parses the template once and
substitutes the given nodes. Parentheses are never the template's worry: `edit.fix_parens`
adds exactly the ones operator precedence needs, wherever nodes came from. `render` and
`bare_code` are a node's text (`printer.code`), kept for the transform (`traversal.memoized`).
"""

from __future__ import annotations

import functools
import re

import libcst as cst

from .printer import code
from .traversal import VISIT_FIELDS, children, memoized, rebuilt

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def render(node: cst.CSTNode) -> str:
    """Source text of a node."""
    return memoized("code", node, code)


def bare_code(node: cst.BaseExpression) -> str:
    """Source text of an expression without its outer parentheses (the key under which the
    passes find equal computations)."""
    if not (node.lpar or node.rpar):
        return render(node)
    return memoized("bare code", node, lambda n: code(n.with_changes(lpar=[], rpar=[])))


def parse_expr(code: str) -> cst.BaseExpression:
    return cst.parse_expression(code)


def parse_stmt(code: str) -> cst.BaseStatement:
    return cst.parse_statement(code)


@functools.cache
def _parsed_template(template: str) -> tuple[cst.BaseExpression, frozenset[int]]:
    """The template's tree and the ids of its nodes that hold a placeholder (``__name__``),
    themselves included: the only ones an instance rebuilds."""
    tree = cst.parse_expression(_PLACEHOLDER.sub(lambda m: f"__{m.group(1)}__", template))
    holders: set[int] = set()

    def find(node) -> bool:
        found = type(node) is cst.Name and _is_placeholder(node.value)
        for child in children(node):
            found = find(child) or found
        if found:
            holders.add(id(node))
        return found
    find(tree)
    return tree, frozenset(holders)


def _is_placeholder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def expr(template: str, **subs) -> cst.BaseExpression:
    """Instantiate an expression template; values may be nodes or source strings."""
    tree, holders = _parsed_template(template)
    if not subs:
        return tree
    nodes = {k: (parse_expr(v) if isinstance(v, str) else v) for k, v in subs.items()}
    # parentheses are added once, over the whole function, by `fix_parens` at emission
    return _substitute(tree, holders, nodes)


def _substitute(node, holders: frozenset[int], subs: dict):
    """``node`` with its placeholders ``__name__`` replaced by ``subs[name]`` (those in
    ``subs``): the nodes that hold none are kept as they are, those that hold one are rebuilt
    when something below them changed (what `rewrite` with a ``leave_Name`` would give)."""
    if type(node) is cst.Name:
        sub = subs.get(node.value[2:-2]) if _is_placeholder(node.value) else None
        return node if sub is None else sub
    changes = {}
    for field in VISIT_FIELDS[type(node)]:
        value = getattr(node, field)
        if type(value) is tuple or type(value) is list:
            items = tuple(_substitute(item, holders, subs) if id(item) in holders else item
                          for item in value)
            if any(new is not old for new, old in zip(items, value)):
                changes[field] = items
        elif id(value) in holders:
            new = _substitute(value, holders, subs)
            if new is not value:
                changes[field] = new
    return rebuilt(node, changes) if changes else node



def unshared(node):
    """``node`` where no node object stands in two places (a template that names one
    placeholder twice, ``__v__ < lo or __v__ > hi``, puts the same node in both): the passes
    key their facts by node, so each place gets its own copy after the first."""
    seen: set[int] = set()

    def fresh(n):
        if id(n) in seen:
            return n.deep_clone()
        seen.add(id(n))
        changes = {}
        for field in VISIT_FIELDS[type(n)]:
            value = getattr(n, field)
            if type(value) is tuple or type(value) is list:
                items = tuple(fresh(item) for item in value)
                if any(new is not old for new, old in zip(items, value)):
                    changes[field] = items
            elif isinstance(value, cst.CSTNode):
                new = fresh(value)
                if new is not value:
                    changes[field] = new
        return rebuilt(n, changes) if changes else n
    return fresh(node)


def name(identifier: str) -> cst.Name:
    return cst.Name(identifier)


def call(func: str | cst.BaseExpression, *args: cst.BaseExpression, **kwargs) -> cst.Call:
    func_node = parse_expr(func) if isinstance(func, str) else func
    arglist = [cst.Arg(a) for a in args]
    arglist += [cst.Arg(v, keyword=cst.Name(k), equal=_EQ) for k, v in kwargs.items()]
    return cst.Call(func=func_node, args=commas(arglist))


_EQ = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                      whitespace_after=cst.SimpleWhitespace(""))


def commas(args: list[cst.Arg]) -> list[cst.Arg]:
    out = []
    for i, a in enumerate(args):
        if i < len(args) - 1:
            a = a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        out.append(a)
    return out
