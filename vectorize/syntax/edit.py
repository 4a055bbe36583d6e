"""Editing trees: parentheses by operator precedence (`fix_parens`), changing fields without
rebuilding what holds its values already (`with_changes`, `with_body`), and the small
rewrites several passes share (augmented assignments as plain ones, renaming names, hoisting
the statements both branches of an ``if`` end with).
"""

from __future__ import annotations

import libcst as cst

from .traversal import rebuilt, rewrite

# Parentheses by precedence (lowest first), Python's own table.

BINARY_PRECEDENCE = {
    cst.BitOr: 6, cst.BitXor: 7, cst.BitAnd: 8, cst.LeftShift: 9, cst.RightShift: 9,
    cst.Add: 10, cst.Subtract: 10, cst.Multiply: 11, cst.Divide: 11, cst.FloorDivide: 11,
    cst.Modulo: 11, cst.MatrixMultiply: 11, cst.Power: 13,
}
_ATOM = 100


_PRECEDENCE = {cst.Tuple: -2, cst.NamedExpr: -1, cst.Lambda: 0, cst.IfExp: 1, cst.Comparison: 5}


def precedence(node: cst.CSTNode) -> int:
    if isinstance(node, cst.BaseExpression) and node.lpar:
        return _ATOM
    kind = type(node)
    if kind is cst.BinaryOperation:
        return BINARY_PRECEDENCE[type(node.operator)]
    if kind is cst.UnaryOperation:
        return 4 if type(node.operator) is cst.Not else 12
    if kind is cst.BooleanOperation:
        return 2 if type(node.operator) is cst.Or else 3
    return _PRECEDENCE.get(kind, _ATOM)


def paren(node: cst.BaseExpression) -> cst.BaseExpression:
    if node.lpar:
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def unparenthesized(node: cst.BaseExpression) -> cst.BaseExpression:
    """``node`` as a whole statement's value (``x = <node>``, ``return <node>``), without the
    parentheses it had as an operand, except where its text spans lines: a line break inside
    an expression (``(a\n + b)`` as users write long formulas) is valid only within brackets,
    so such a node keeps (or gets) one pair."""
    import ast
    bare = node.with_changes(lpar=[], rpar=[]) if node.lpar else node
    text = _EMPTY.code_for_node(bare)
    if "\n" in text:
        try:
            ast.parse(text, mode="eval")       # line breaks inside its own brackets only
        except SyntaxError:
            return paren(bare)
    return bare


_EMPTY = cst.Module([])


def _wrap_below(node, bound: int, *, strict: bool = True):
    p = precedence(node)
    return paren(node) if (p < bound if strict else p <= bound) else node


class _FixParens(cst.CSTTransformer):
    def leave_BinaryOperation(self, original_node, updated_node):
        prec = BINARY_PRECEDENCE[type(updated_node.operator)]
        right_assoc = type(updated_node.operator) is cst.Power
        left = _wrap_below(updated_node.left, prec, strict=not right_assoc)
        right = _wrap_below(updated_node.right, prec, strict=right_assoc)
        if right_assoc and isinstance(left, cst.UnaryOperation) and not left.lpar:
            left = paren(left)
        return with_changes(updated_node, left=left, right=right)

    def leave_UnaryOperation(self, original_node, updated_node):
        prec = 4 if isinstance(updated_node.operator, cst.Not) else 12
        return with_changes(updated_node, expression=_wrap_below(updated_node.expression, prec))

    def leave_BooleanOperation(self, original_node, updated_node):
        prec = precedence(updated_node)
        return with_changes(updated_node, left=_wrap_below(updated_node.left, prec),
                            right=_wrap_below(updated_node.right, prec + 1))

    def leave_Comparison(self, original_node, updated_node):
        targets = [with_changes(c, comparator=_wrap_below(c.comparator, 6))
                   for c in updated_node.comparisons]
        return with_changes(updated_node, left=_wrap_below(updated_node.left, 6),
                            comparisons=targets)

    def leave_IfExp(self, original_node, updated_node):
        return with_changes(updated_node, body=_wrap_below(updated_node.body, 2),
                            test=_wrap_below(updated_node.test, 2),
                            orelse=_wrap_below(updated_node.orelse, 1))

    def leave_Attribute(self, original_node, updated_node):
        value = updated_node.value
        if precedence(value) < _ATOM or type(value) in (cst.Integer, cst.Float):
            value = paren(value)
        return with_changes(updated_node, value=value)

    def leave_Subscript(self, original_node, updated_node):
        return with_changes(updated_node, value=_wrap_below(updated_node.value, _ATOM))

    def leave_Call(self, original_node, updated_node):
        return with_changes(updated_node, func=_wrap_below(updated_node.func, _ATOM))

    def leave_Arg(self, original_node, updated_node):
        if type(updated_node.value) in (cst.Tuple, cst.NamedExpr):
            return updated_node.with_changes(value=paren(updated_node.value))
        return updated_node

    def leave_Element(self, original_node, updated_node):
        if type(updated_node.value) is cst.Tuple:
            return updated_node.with_changes(value=paren(updated_node.value))
        return updated_node


def with_changes(node, **fields):
    """``node.with_changes(**fields)``, or ``node`` itself when every field already holds its
    value (the same object; for a sequence, the same objects in order): nothing is rebuilt,
    and an analysis of the tree ``node`` belongs to stays valid."""
    for name, value in fields.items():
        old = getattr(node, name)
        if old is value or (type(value) in (list, tuple) and type(old) in (list, tuple)
                            and len(old) == len(value)
                            and all(a is b for a, b in zip(old, value))):
            continue
        return rebuilt(node, fields)
    return node


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


def with_body(node, stmts: list):
    """``node`` (a function, compound statement or ``else``) with ``stmts`` as the statements
    of its block (`with_changes`: ``node`` itself when they are the ones it has)."""
    return with_changes(node, body=with_changes(node.body, body=stmts))


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


def as_assignment(node: cst.AugAssign) -> cst.Assign:
    """``t op= v`` -> ``t = t op v``, with a copy of ``t`` on the right (analyses key values
    by node: the read must not be the node that is assigned)."""
    target = node.target
    value = cst.BinaryOperation(left=target.deep_clone(), right=node.value,
                                operator=AUGMENTED_TO_BINARY[type(node.operator)]())
    return cst.Assign([cst.AssignTarget(target)], value)


class AugmentedToAssignment(cst.CSTTransformer):
    """``x op= v`` -> ``x = x op v`` for names (only those in ``names`` when given):
    rebinding instead of an in-place update, which is what the scalar code's update does
    wherever no other name can see the object (the analysis refuses the updates another
    name could see)."""

    def __init__(self, names=None):
        self.names = names

    def leave_AugAssign(self, original_node, updated_node):
        target = updated_node.target
        if type(target) is not cst.Name or (self.names is not None
                                            and target.value not in self.names):
            return updated_node
        return as_assignment(updated_node)


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
