"""Small libcst helpers shared by the passes and the rules: templates, rendering, parentheses.

Templates are real Python expressions whose placeholders are bare names (Tangent-style):
``expr("np.where({cond}, {a}, {b})", cond=..., a=..., b=...)`` parses the template once and
substitutes the given nodes. Parentheses are never the template's worry: `fix_parens` adds
exactly the ones operator precedence needs, wherever nodes came from.
"""

from __future__ import annotations

import dataclasses
import functools
import re

import libcst as cst

_EMPTY_MODULE = cst.Module(body=[])
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def render(node: cst.CSTNode) -> str:
    """Source text of a node."""
    return _EMPTY_MODULE.code_for_node(node)


def parse_expr(code: str) -> cst.BaseExpression:
    return cst.parse_expression(code)


def parse_stmt(code: str) -> cst.BaseStatement:
    return cst.parse_statement(code)


@functools.cache
def _parsed_template(template: str) -> cst.BaseExpression:
    return cst.parse_expression(_PLACEHOLDER.sub(lambda m: f"__{m.group(1)}__", template))


class _Substitute(cst.CSTTransformer):
    def __init__(self, subs: dict[str, cst.BaseExpression]):
        self.subs = subs

    def leave_Name(self, original_node, updated_node):
        name = updated_node.value
        if name.startswith("__") and name.endswith("__") and name[2:-2] in self.subs:
            return self.subs[name[2:-2]]
        return updated_node


def expr(template: str, **subs) -> cst.BaseExpression:
    """Instantiate an expression template; values may be nodes or source strings."""
    nodes = {k: (parse_expr(v) if isinstance(v, str) else v) for k, v in subs.items()}
    # parentheses are added once, over the whole function, by `fix_parens` at emission
    return rewrite(_parsed_template(template), _Substitute(nodes))


_SKIPPED_FIELDS = {"lpar", "rpar", "comma", "semicolon", "equal", "header", "footer",
                   "leading_lines", "lines_after_decorators", "trailing_whitespace", "newline",
                   "operator", "colon", "dot", "star", "asynchronous"}
_FIELDS: dict[type, tuple[str, ...]] = {}


def child_fields(cls) -> tuple[str, ...]:
    """Names of the fields of a node class that can hold code (not whitespace or
    punctuation)."""
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = tuple(f.name for f in dataclasses.fields(cls)
                       if f.name not in _SKIPPED_FIELDS and not f.name.startswith("whitespace"))
        _FIELDS[cls] = fields
    return fields


_NODE_TYPES: dict[type, bool] = {}


def is_node_type(kind: type) -> bool:
    """``issubclass(kind, cst.CSTNode)``, cached (CSTNode is an ABC: isinstance is slow)."""
    known = _NODE_TYPES.get(kind)
    if known is None:
        known = _NODE_TYPES[kind] = issubclass(kind, cst.CSTNode)
    return known


def children(node) -> list:
    out = []
    for field in child_fields(type(node)):
        value = getattr(node, field)
        kind = type(value)
        if kind is tuple or kind is list:
            out.extend(item for item in value if is_node_type(type(item)))
        elif is_node_type(kind):
            out.append(value)
    return out


def walk(node):
    """Every node under ``node`` (itself included), much faster than a libcst visitor for
    read-only scans."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(children(current))


# libcst visits these fields in another order than its dataclasses declare them
_VISIT_ORDER = {
    cst.Arg: ("keyword", "value"), cst.IfExp: ("body", "test", "orelse"),
    cst.FunctionDef: ("decorators", "name", "type_parameters", "params", "returns", "body"),
    cst.ClassDef: ("decorators", "name", "type_parameters", "bases", "keywords", "body"),
    cst.ExceptHandler: ("type", "name", "body"), cst.MatchCase: ("pattern", "guard", "body"),
    cst.Parameters: ("posonly_params", "posonly_ind", "params", "star_arg", "kwonly_params",
                     "star_kwarg"),
    cst.Slice: ("lower", "upper", "step"), cst.ImportFrom: ("relative", "module", "names"),
}
_VISIT_FIELDS: dict[type, tuple[str, ...]] = {}
_BODY_SEQUENCES = (cst.IndentedBlock, cst.Module)   # libcst's visit_body_sequence fields
_HOOKS: dict[tuple[type, type], tuple] = {}


def _visit_fields(cls) -> tuple[str, ...]:
    fields = _VISIT_FIELDS.get(cls)
    if fields is None:
        code = child_fields(cls)
        order = _VISIT_ORDER.get(cls)
        fields = tuple(f for f in order if f in code) if order else code
        _VISIT_FIELDS[cls] = fields
    return fields


def _hooks(visitor, cls):
    key = (type(visitor), cls)
    hooks = _HOOKS.get(key)
    if hooks is None:
        name, kind = cls.__name__, type(visitor)
        hooks = (kind.on_visit if kind.on_visit is not cst.CSTTransformer.on_visit
                 else getattr(kind, "visit_" + name, None),
                 kind.on_leave if kind.on_leave is not cst.CSTTransformer.on_leave
                 else getattr(kind, "leave_" + name, None))
        _HOOKS[key] = hooks
    return hooks


def rewrite(node, visitor: cst.CSTTransformer):
    """``node.visit(visitor)`` for a transformer with ``visit_<Node>``/``leave_<Node>``
    methods, several times faster: whitespace and punctuation are not visited (no transformer
    here rewrites them) and a node none of whose children changed is kept, not rebuilt.
    ``updated_node`` is therefore ``original_node`` itself when nothing below changed."""
    cls = type(node)
    enter, leave = _hooks(visitor, cls)
    updated = node
    if enter is None or enter(visitor, node) is not False:
        changes = None
        for field in _visit_fields(cls):
            value = getattr(node, field)
            kind = type(value)
            if kind is not tuple and kind is not list and is_node_type(kind):
                new = rewrite(value, visitor)
                if new is not value:
                    if isinstance(new, cst.RemovalSentinel):
                        new = _removed(node, field)
                    elif isinstance(new, cst.FlattenSentinel):
                        raise TypeError(f"cannot flatten into {cls.__name__}.{field}")
                    changes = changes or {}
                    changes[field] = new
            elif (kind is tuple or kind is list) and value:
                items, changed = [], False
                body = field == "body" and isinstance(node, _BODY_SEQUENCES)
                for item in value:
                    new = rewrite(item, visitor) if is_node_type(type(item)) else item
                    if new is item:
                        items.append(item)
                        continue
                    changed = True
                    if isinstance(new, cst.RemovalSentinel):
                        continue
                    for part in (new if isinstance(new, cst.FlattenSentinel) else (new,)):
                        if body and part._is_removable() and not item._is_removable():
                            continue   # a statement line emptied by removals goes too
                        items.append(part)
                if changed:
                    changes = changes or {}
                    changes[field] = tuple(items)
        if changes:
            updated = node.with_changes(**changes)
    if leave is None:
        return updated
    return leave(visitor, node, updated)


def _removed(node, field):
    default = next(f.default for f in dataclasses.fields(node) if f.name == field)
    if default is None or default is cst.MaybeSentinel.DEFAULT:
        return default
    raise TypeError(f"{type(node).__name__}.{field} cannot be removed")


def name(identifier: str) -> cst.Name:
    return cst.Name(identifier)


def call(func: str | cst.BaseExpression, *args: cst.BaseExpression, **kwargs) -> cst.Call:
    func_node = parse_expr(func) if isinstance(func, str) else func
    arglist = [cst.Arg(a) for a in args]
    arglist += [cst.Arg(v, keyword=cst.Name(k), equal=_EQ) for k, v in kwargs.items()]
    return cst.Call(func=func_node, args=_commas(arglist))


_EQ = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                      whitespace_after=cst.SimpleWhitespace(""))


def _commas(args: list[cst.Arg]) -> list[cst.Arg]:
    out = []
    for i, a in enumerate(args):
        if i < len(args) - 1:
            a = a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        out.append(a)
    return out


# ---------------------------------------------------------------------------------------------
# Parentheses by precedence (lowest first), Python's own table.

_BINOP_PREC = {
    cst.BitOr: 6, cst.BitXor: 7, cst.BitAnd: 8, cst.LeftShift: 9, cst.RightShift: 9,
    cst.Add: 10, cst.Subtract: 10, cst.Multiply: 11, cst.Divide: 11, cst.FloorDivide: 11,
    cst.Modulo: 11, cst.MatrixMultiply: 11, cst.Power: 13,
}
_ATOM = 100


def precedence(node: cst.CSTNode) -> int:
    if isinstance(node, cst.BaseExpression) and node.lpar:
        return _ATOM
    if isinstance(node, cst.Lambda):
        return 0
    if isinstance(node, cst.IfExp):
        return 1
    if isinstance(node, cst.BooleanOperation):
        return 2 if isinstance(node.operator, cst.Or) else 3
    if isinstance(node, cst.UnaryOperation):
        return 4 if isinstance(node.operator, cst.Not) else 12
    if isinstance(node, cst.Comparison):
        return 5
    if isinstance(node, cst.BinaryOperation):
        return _BINOP_PREC[type(node.operator)]
    if isinstance(node, (cst.NamedExpr,)):
        return -1
    if isinstance(node, cst.Tuple):
        return -2
    return _ATOM


def paren(node: cst.BaseExpression) -> cst.BaseExpression:
    if node.lpar:
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _wrap_below(node, bound: int, *, strict: bool = True):
    p = precedence(node)
    return paren(node) if (p < bound if strict else p <= bound) else node


class _FixParens(cst.CSTTransformer):
    def leave_BinaryOperation(self, original_node, updated_node):
        prec = _BINOP_PREC[type(updated_node.operator)]
        right_assoc = isinstance(updated_node.operator, cst.Power)
        left = _wrap_below(updated_node.left, prec, strict=not right_assoc)
        right = _wrap_below(updated_node.right, prec, strict=right_assoc)
        if right_assoc and isinstance(left, cst.UnaryOperation) and not left.lpar:
            left = paren(left)
        return _changed(updated_node, left=left, right=right)

    def leave_UnaryOperation(self, original_node, updated_node):
        prec = 4 if isinstance(updated_node.operator, cst.Not) else 12
        return _changed(updated_node, expression=_wrap_below(updated_node.expression, prec))

    def leave_BooleanOperation(self, original_node, updated_node):
        prec = precedence(updated_node)
        return _changed(updated_node, left=_wrap_below(updated_node.left, prec),
                        right=_wrap_below(updated_node.right, prec + 1))

    def leave_Comparison(self, original_node, updated_node):
        targets = [_changed(c, comparator=_wrap_below(c.comparator, 6))
                   for c in updated_node.comparisons]
        if all(a is b for a, b in zip(targets, updated_node.comparisons)):
            targets = updated_node.comparisons
        return _changed(updated_node, left=_wrap_below(updated_node.left, 6),
                        comparisons=targets)

    def leave_IfExp(self, original_node, updated_node):
        return _changed(updated_node, body=_wrap_below(updated_node.body, 2),
                        test=_wrap_below(updated_node.test, 2),
                        orelse=_wrap_below(updated_node.orelse, 1))

    def leave_Attribute(self, original_node, updated_node):
        value = updated_node.value
        if precedence(value) < _ATOM or isinstance(value, (cst.Integer, cst.Float)):
            value = paren(value)
        return _changed(updated_node, value=value)

    def leave_Subscript(self, original_node, updated_node):
        return _changed(updated_node, value=_wrap_below(updated_node.value, _ATOM))

    def leave_Call(self, original_node, updated_node):
        return _changed(updated_node, func=_wrap_below(updated_node.func, _ATOM))

    def leave_Arg(self, original_node, updated_node):
        if isinstance(updated_node.value, (cst.Tuple, cst.NamedExpr)):
            return updated_node.with_changes(value=paren(updated_node.value))
        return updated_node

    def leave_Element(self, original_node, updated_node):
        if isinstance(updated_node.value, cst.Tuple):
            return updated_node.with_changes(value=paren(updated_node.value))
        return updated_node


def _changed(node, **fields):
    """``node.with_changes(**fields)``, or ``node`` itself when every field is unchanged."""
    if all(getattr(node, k) is v for k, v in fields.items()):
        return node
    return node.with_changes(**fields)


def fix_parens(node):
    """Add the parentheses operator precedence requires (and no others)."""
    return rewrite(node, _FixParens())


AUGMENTED_TO_BINARY = {
    cst.AddAssign: cst.Add, cst.SubtractAssign: cst.Subtract, cst.MultiplyAssign: cst.Multiply,
    cst.DivideAssign: cst.Divide, cst.FloorDivideAssign: cst.FloorDivide,
    cst.ModuloAssign: cst.Modulo, cst.PowerAssign: cst.Power, cst.BitAndAssign: cst.BitAnd,
    cst.BitOrAssign: cst.BitOr, cst.BitXorAssign: cst.BitXor,
    cst.LeftShiftAssign: cst.LeftShift, cst.RightShiftAssign: cst.RightShift,
    cst.MatrixMultiplyAssign: cst.MatrixMultiply}


def hoist_common_tail(stmt: cst.If) -> list:
    """``if c: A; T else: B; T`` -> ``if c: A else: B`` followed by ``T``: statements both
    branches end with run after the ``if`` once (same meaning, no duplicated work)."""
    if not isinstance(stmt.orelse, cst.Else):
        return [stmt]
    body, orelse = list(stmt.body.body), list(stmt.orelse.body.body)
    common = []
    while body and orelse and body[-1].deep_equals(orelse[-1]):
        common.insert(0, body.pop())
        orelse.pop()
    if not common:
        return [stmt]
    pass_line = cst.SimpleStatementLine([cst.Pass()])
    new_if = stmt.with_changes(body=stmt.body.with_changes(body=body or [pass_line]),
                               orelse=cst.Else(body=cst.IndentedBlock(body=orelse))
                               if orelse else None)
    return [new_if] + common


class RenameNames(cst.CSTTransformer):
    """Rename every occurrence of the ``mapping`` names (reads and assignment targets alike;
    attribute names and keyword-argument names are not variables and stay). A name mapped to
    an expression instead of a string is replaced by it (only for names that are read)."""

    def __init__(self, mapping):
        self.mapping = mapping

    def leave_Name(self, original_node, updated_node):
        new = self.mapping.get(updated_node.value)
        if not new:
            return updated_node
        return updated_node.with_changes(value=new) if isinstance(new, str) else new

    def visit_Attribute(self, node):
        return False

    def leave_Attribute(self, original_node, updated_node):
        value = rewrite(original_node.value, self)
        if value is original_node.value:
            return updated_node
        return updated_node.with_changes(value=value)

    def visit_Arg(self, node):
        return True

    def leave_Arg(self, original_node, updated_node):
        if original_node.keyword is not None:
            return updated_node.with_changes(keyword=original_node.keyword)
        return updated_node
