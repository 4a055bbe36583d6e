"""A compacted loop's scalar tail, tidied: the statements of one lane's pass
(`passes.compact._ScalarBody` translates the array pass, statement for statement) with the
work that Python numbers do not need taken out, so that a lane's pass costs fewer
bytecodes (`tidy`), and the arithmetic every pass computes alike computed once per lane
(`hoist`).

The array pass computes each value under a name of its own and merges it into the carry
(``x_if = ...``, ``x = np.where(active, x_if, x)``); on a lane the tail runs, the mask is
true, so the merge is a copy (``x_lane = x_if_lane``), and a truth the array code starts
from the mask is a constant overwritten before it is read (``active_if_lane = True``).
A check of a zero divisor (``if x_lane == 0: raise ZeroDivisionError(...)``) guards a
division that Python numbers check themselves. None of these changes a value the tail
keeps: the tail keeps a lane's values only when its pass ran to the end for every pass, and
an `ArithmeticError` anywhere in a pass (whatever raises it) makes the array passes go on
from where the tail began, untouched. Each rewrite is exact for that reason:

- a dead store: ``N = v`` where ``v`` cannot raise (names, literals, comparisons, truths,
  ``+ - *``, ``abs``) and ``N`` is assigned again later in the pass before it is read (or a
  name of the pass's own that nothing reads) is dropped;
- a copy: ``S = T`` where ``T`` is a name of the pass's own (not carried from one pass to
  the next, nor kept after the loop), assigned once, before any read of it, and ``S`` is
  neither read nor written between that assignment and the copy, nor written after it: the
  assignment binds ``S`` instead, every later read of ``T`` reads ``S`` (equal from there on),
  and the copy goes;
- a zero check: ``if D == 0: raise ...`` where a later statement of the pass divides by ``D``
  (``/``, ``//``, ``%``: Python raises `ZeroDivisionError` on a zero divisor, ``-0.0`` too)
  wherever it runs (not in a branch of ``a if c else b`` nor after ``and``/``or``) and
  nothing assigns ``D`` between them: the division raises where the check did, in the same
  pass, and either stops the tail.
"""

from __future__ import annotations

import libcst as cst

from ..syntax.edit import RenameNames
from ..syntax.traversal import rewrite, walk

# the expressions a dead store may drop: they cannot raise on the tail's Python numbers
_CANNOT_RAISE = (cst.Name, cst.Integer, cst.Float, cst.Comparison, cst.BooleanOperation,
                 cst.UnaryOperation, cst.BinaryOperation, cst.IfExp, cst.Call, cst.Tuple)
_SAFE_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.BitAnd, cst.BitOr)
_DIVISIONS = (cst.Divide, cst.FloorDivide, cst.Modulo)


def tidy(stmts: list, own: set) -> list:
    """``stmts`` (one lane's pass: assignments of names, and checks ``if test: raise E``)
    without its dead stores, copies and zero checks (see the module); ``own``: the names
    the pass binds for itself (each pass assigns them before it reads them, and nothing
    reads them after the loop). Returns ``stmts`` itself where a statement is of another
    kind."""
    if not all(_assigned(s) is not None or _check(s) is not None for s in stmts):
        return stmts
    stmts = list(stmts)
    changed = True
    while changed:
        changed = _drop_dead(stmts, own) or _coalesce(stmts, own) or _drop_zero_check(stmts)
    return stmts


# ---------------------------------------------------------------- statements' parts
def _assigned(stmt):
    """``(targets, value)`` of ``name = value`` or ``a, b = x, y`` (names), else None."""
    if type(stmt) is not cst.SimpleStatementLine or len(stmt.body) != 1:
        return None
    assign = stmt.body[0]
    if type(assign) is not cst.Assign or len(assign.targets) != 1:
        return None
    target = assign.targets[0].target
    if type(target) is cst.Name:
        return [target.value], assign.value
    if type(target) is cst.Tuple and all(type(e) is cst.Element and type(e.value) is cst.Name
                                         for e in target.elements):
        return [e.value.value for e in target.elements], assign.value
    return None


def _check(stmt):
    """The test of ``if test: raise E(...)``, else None."""
    if type(stmt) is not cst.If or stmt.orelse is not None or len(stmt.body.body) != 1:
        return None
    line = stmt.body.body[0]
    if type(line) is not cst.SimpleStatementLine or len(line.body) != 1 or \
            type(line.body[0]) is not cst.Raise:
        return None
    return stmt.test


def _reads(stmt) -> set:
    """The names ``stmt`` reads (an assignment's value, a check's test and its raise)."""
    parts = _assigned(stmt)
    node = parts[1] if parts is not None else stmt
    return {n.value for n in walk(node) if type(n) is cst.Name}


def _writes(stmt) -> list:
    parts = _assigned(stmt)
    return parts[0] if parts is not None else []


def _cannot_raise(node) -> bool:
    for n in walk(node):
        if not isinstance(n, cst.BaseExpression):
            continue
        if type(n) not in _CANNOT_RAISE:
            return False
        if type(n) is cst.BinaryOperation and not isinstance(n.operator, _SAFE_OPERATORS):
            return False
        if type(n) is cst.Call and not (type(n.func) is cst.Name and n.func.value == "abs"):
            return False
    return True


# ---------------------------------------------------------------- the rewrites
def _drop_dead(stmts: list, own: set) -> bool:
    for i, stmt in enumerate(stmts):
        parts = _assigned(stmt)
        if parts is None or len(parts[0]) != 1 or not _cannot_raise(parts[1]):
            continue
        name = parts[0][0]
        dead = name in own
        for later in stmts[i + 1:]:
            if name in _reads(later):
                dead = False
                break
            if name in _writes(later):
                dead = True
                break
        if dead and name in own and any(name in _reads(s) for s in stmts[:i + 1]):
            dead = False            # (read at its pass's start: not the pass's own)
        if dead:
            del stmts[i]
            return True
    return False


def _coalesce(stmts: list, own: set) -> bool:
    for j, stmt in enumerate(stmts):
        parts = _assigned(stmt)
        if parts is None or len(parts[0]) != 1 or type(parts[1]) is not cst.Name or \
                parts[1].lpar or parts[1].value not in own:
            continue
        copy, temp = parts[0][0], parts[1].value
        if copy == temp:
            continue
        defs = [i for i, s in enumerate(stmts) if temp in _writes(s)]
        if len(defs) != 1 or defs[0] >= j:
            continue
        i = defs[0]
        if any(temp in _reads(s) for s in stmts[:i + 1]) or copy in _writes(stmts[i]) or \
                any(copy in _reads(s) or copy in _writes(s) for s in stmts[i + 1:j]) or \
                any(copy in _writes(s) for s in stmts[j + 1:]):
            continue
        rename = RenameNames({temp: copy})
        stmts[i:] = [rewrite(s, rename) for s in stmts[i:j]] + \
            [rewrite(s, rename) for s in stmts[j + 1:]]
        return True
    return False


def _drop_zero_check(stmts: list) -> bool:
    for i, stmt in enumerate(stmts):
        test = _check(stmt)
        if test is None or type(test) is not cst.Comparison or len(test.comparisons) != 1 or \
                type(test.comparisons[0].operator) is not cst.Equal or \
                type(test.left) is not cst.Name or test.left.lpar or \
                not _is_zero(test.comparisons[0].comparator):
            continue
        name = test.left.value
        for later in stmts[i + 1:]:
            parts = _assigned(later)
            if parts is not None and _divides_by(parts[1], name):
                del stmts[i]
                return True
            if name in _writes(later):
                break
    return False


def _is_zero(node) -> bool:
    return type(node) in (cst.Integer, cst.Float) and not node.lpar and \
        node.evaluated_value == 0


def _divides_by(node, name: str) -> bool:
    """Whether evaluating ``node`` always divides by the name ``name`` (not in a branch of
    a conditional expression nor to the right of ``and``/``or``)."""
    if type(node) is cst.BinaryOperation:
        if isinstance(node.operator, _DIVISIONS) and type(node.right) is cst.Name and \
                node.right.value == name:
            return True
        return _divides_by(node.left, name) or _divides_by(node.right, name)
    if type(node) is cst.UnaryOperation:
        return _divides_by(node.expression, name)
    if type(node) is cst.Comparison:
        return _divides_by(node.left, name) or _divides_by(node.comparisons[0].comparator,
                                                           name)
    if type(node) is cst.BooleanOperation:
        return _divides_by(node.left, name)
    if type(node) is cst.IfExp:
        return _divides_by(node.test, name)
    if type(node) is cst.Tuple:
        return any(_divides_by(e.value, name) for e in node.elements)
    if type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "abs":
        return any(_divides_by(a.value, name) for a in node.args)
    return False


# ---------------------------------------------------------------- what every pass computes alike
def hoist(stmts: list, fresh) -> tuple[list, list]:
    """``(before, stmts)``: arithmetic of names no statement of the pass assigns (the lane's
    values the loop only reads) and numbers, computed once before the lane's first pass
    (``before``, each under a name from ``fresh``) and read under that name by every pass
    (``1e-12 * a_lane``, the tolerance of a Newton loop). Only what each pass computes
    wherever it runs (not in a branch of ``a if c else b`` nor after ``and``/``or``): Python
    numbers give the same value once as on every pass, and where computing it raises, the
    first pass raised it too, which stops the tail as it did. ``stmts`` as they are where a
    statement is not an assignment or a check."""
    if not all(_assigned(s) is not None or _check(s) is not None for s in stmts):
        return [], stmts
    assigned = set().union(*map(_writes, stmts))
    found: dict[str, str] = {}       # the code of an expression -> its name
    before: list = []

    def invariant(node) -> bool:
        names = {n.value for n in walk(node) if type(n) is cst.Name} - {"True", "False",
                                                                        "abs"}
        return bool(names) and not names & assigned and all(
            type(n) in _HOISTED for n in walk(node) if isinstance(n, cst.BaseExpression))

    def visit(node):
        if type(node) is cst.BinaryOperation and invariant(node):
            code = cst.Module(body=[]).code_for_node(node.with_changes(lpar=[], rpar=[]))
            if code not in found:
                found[code] = fresh("invariant_lane")
                before.append(cst.SimpleStatementLine(body=[cst.Assign(
                    targets=[cst.AssignTarget(cst.Name(found[code]))],
                    value=node.with_changes(lpar=[], rpar=[]))]))
            return cst.Name(found[code])     # (a name needs no parentheses)
        if type(node) is cst.BinaryOperation:
            return node.with_changes(left=visit(node.left), right=visit(node.right))
        if type(node) is cst.UnaryOperation:
            return node.with_changes(expression=visit(node.expression))
        if type(node) is cst.Comparison:
            first = node.comparisons[0]
            return node.with_changes(left=visit(node.left), comparisons=[
                first.with_changes(comparator=visit(first.comparator)),
                *node.comparisons[1:]])
        if type(node) is cst.BooleanOperation:
            return node.with_changes(left=visit(node.left))
        if type(node) is cst.IfExp:
            return node.with_changes(test=visit(node.test))
        if type(node) is cst.Tuple:
            return node.with_changes(elements=[e.with_changes(value=visit(e.value))
                                               for e in node.elements])
        if type(node) is cst.Call and type(node.func) is cst.Name and node.func.value == "abs":
            return node.with_changes(args=[a.with_changes(value=visit(a.value))
                                           for a in node.args])
        return node

    out = []
    for stmt in stmts:
        parts = _assigned(stmt)
        if parts is not None:
            assign = stmt.body[0]
            out.append(stmt.with_changes(body=[assign.with_changes(value=visit(parts[1]))]))
        else:
            out.append(stmt.with_changes(test=visit(stmt.test)))
    return before, out


# the expressions a hoisted one is made of (arithmetic of names and numbers)
_HOISTED = (cst.Name, cst.Integer, cst.Float, cst.BinaryOperation, cst.UnaryOperation)
