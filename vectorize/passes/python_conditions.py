"""Conditions the same for every example stay Python's, and are evaluated only where Python
evaluates them.

Assumes: scalar-style code; the current analysis (``decided``: the tests known exactly for
this specialization).
Reads and writes no record (`records`).
Guarantees: an ``if``, ``elif``, ``while``, conditional expression or ``and``/``or`` whose test
is known exactly (a literal, a global, an argument the code is specialized on: ``w is not
None`` with ``w=None``, ``method == "d8"``) keeps only the code that runs for it (a branch that
cannot run is neither analysed nor emitted). An ``and``/``or`` whose left side is the same for
every example but not known exactly, and whose right side differs per example, becomes a
conditional expression, so that the right side is evaluated only where Python evaluates it
(``j + 1 < len(v) and v[j + 1] <= x`` must not index past the end when the guard is false):

    if w is not None:                          return x
        return x / w          (w=None)  ->
    return x

    ok = j + 1 < len(v) and v[j + 1] <= x  ->  ok = v[j + 1] <= x if j + 1 < len(v) else False

A bool left side gives ``False`` (``and``) or ``True`` (``or``) where Python stops; another one
is repeated when it is a name (``b if a else a``), and left alone otherwise.

An ``if`` whose test is the same for every example but not known exactly (``c > 0`` of a
float argument), after which a variable its branches bind holds a number of a different
dtype on each path (a float32 or a float64, an int or a float) and is read, takes the
statements that follow it into each branch that falls through (outside loops: a loop's head
would join the two again). Each branch's copy is then analysed with the one dtype it has
when it runs, where the join's dtype would be wrong on one side (a masked loop's carry made
a float64 array where the examples compute in float32):

    if c > 0:                        if c > 0:
        t = np.linalg.norm(b)            t = np.linalg.norm(b)
    else:                  ->            <rest>
        t = -a                       else:
    <rest>                               t = -a
                                         <rest>
"""

from __future__ import annotations

import libcst as cst
import numpy as np

from ..abstract import Value, number_kind
from ..analysis.purity import PURE_BUILTINS
from ..errors import Unsupported
from ..syntax.edit import unparenthesized
from ..syntax.traversal import by_type, rewrite, walk
from .simplify import IMPURE_TYPES

_PASS = cst.SimpleStatementLine([cst.Pass()])


def _parenthesized_like(node, outer):
    """``node`` in place of ``outer``, keeping ``outer``'s parentheses (a line break inside
    them stays legal)."""
    if outer.lpar and not node.lpar:
        return node.with_changes(lpar=outer.lpar, rpar=outer.rpar)
    return node


class _Conditions(cst.CSTTransformer):
    def __init__(self, analysis, registry, elifs: set, choosing: set):
        self.analysis, self.registry = analysis, registry
        self.decided = analysis.decided
        self.elifs = elifs
        self.choosing = choosing       # `if`s whose continuation each branch takes
        self.made: set[int] = set()    # conditional expressions made from `and`/`or`
        self.specialized: set[int] = set()   # (the ids of what they became)

    def _chain(self, original: cst.If, updated: cst.If) -> list:
        """The statements an ``if``/``elif`` chain leaves once its decided tests are gone."""
        outcome = self.decided.get(original)
        if outcome is True:
            return list(updated.body.body)
        orelse = updated.orelse
        if outcome is False:
            if orelse is None:
                return []
            if type(orelse) is cst.If:
                return self._chain(original.orelse, orelse)
            return list(orelse.body.body)
        if type(orelse) is cst.If:
            rest = self._chain(original.orelse, orelse)
            if not rest:
                updated = updated.with_changes(orelse=None)
            elif len(rest) == 1 and type(rest[0]) is cst.If:
                updated = updated.with_changes(orelse=rest[0])
            else:
                updated = updated.with_changes(orelse=cst.Else(cst.IndentedBlock(rest)))
        return [updated]

    def leave_If(self, original_node, updated_node):
        if original_node in self.elifs:
            return self._strip_made(updated_node, "test")   # its `if` resolves the chain
        statements = self._chain(original_node, updated_node)
        if self.decided.get(original_node) is None:
            kept = self._strip_made(statements[0], "test")
            if original_node in self.choosing:
                self.specialized.add(id(kept))
            return kept
        if not statements:
            return cst.RemoveFromParent()
        return cst.FlattenSentinel(statements)

    def leave_While(self, original_node, updated_node):
        if self.decided.get(original_node) is not False:
            return self._strip_made(updated_node, "test")
        if updated_node.orelse is None:
            return cst.RemoveFromParent()
        return cst.FlattenSentinel(list(updated_node.orelse.body.body))

    def leave_For(self, original_node, updated_node):
        # (over a sequence empty on every call: never entered, `Analysis._never_entered`)
        if self.decided.get(original_node) is not False:
            return updated_node
        if updated_node.orelse is None:
            return cst.RemoveFromParent()
        return cst.FlattenSentinel(list(updated_node.orelse.body.body))

    def leave_IndentedBlock(self, original_node, updated_node):
        if not updated_node.body:
            return updated_node.with_changes(body=[_PASS])
        return updated_node

    def leave_IfExp(self, original_node, updated_node):
        outcome = self.decided.get(original_node)
        if outcome is None:
            return updated_node
        return _parenthesized_like(updated_node.body if outcome else updated_node.orelse,
                                   updated_node)

    def leave_BooleanOperation(self, original_node, updated_node):
        is_and = type(original_node.operator) is cst.And
        outcome = self.decided.get(original_node)
        if outcome is not None:
            kept = updated_node.left if outcome != is_and else updated_node.right
            return _parenthesized_like(kept, updated_node)
        values = self.analysis.values
        left, right = values.get(original_node.left), values.get(original_node.right)
        if not (getattr(right, "batched", False) and isinstance(left, Value)
                and not left.batched):
            return updated_node
        a, b = updated_node.left, updated_node.right
        if left.known and left.kind == "b":
            stop = cst.Name("False" if is_and else "True")
        elif type(a) is cst.Name:
            stop = a
        elif self._repeatable(original_node.left):
            # (evaluated again where Python stops at it: the same value, no side effect)
            stop = a.deep_clone()
        else:
            return updated_node
        choice = cst.IfExp(test=a, body=b if is_and else stop, orelse=stop if is_and else b,
                           lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        self.made.add(id(choice))
        return choice

    def _repeatable(self, node) -> bool:
        """Whether evaluating ``node`` (the same for every example) twice gives its value
        with no side effect: operators, names, constants, items, attributes and calls of
        functions with a batching rule or of Python's pure builtins and ``math``."""
        values, registry = self.analysis.values, self.registry
        for n in walk(node):
            if type(n) is cst.Call:
                fn = getattr(values.get(n.func), "example", None)
                if fn is None or not (fn in PURE_BUILTINS or registry.for_call(fn) is not None
                                      or getattr(fn, "__module__", None) in ("math", "cmath")):
                    return False
            elif type(n) in IMPURE_TYPES:
                return False
        return True

    # a conditional expression made here needs its parentheses only inside an expression
    def _strip_made(self, node, field: str):
        value = getattr(node, field)
        if id(value) in self.made:
            return node.with_changes(**{field: unparenthesized(value)})
        return node

    def leave_Assign(self, original_node, updated_node):
        return self._strip_made(updated_node, "value")

    def leave_Return(self, original_node, updated_node):
        return self._strip_made(updated_node, "value") if updated_node.value else updated_node


# Each `if` that chooses a dtype copies the statements after it into its branches: the code
# doubles with each one on a path, so past this many the function is refused instead.
MAX_CHOOSING = 3


def _dtype_of(value):
    """The dtype a number stands for per example (None: not a number of a known type)."""
    if not isinstance(value, Value) or number_kind(value.example) is None:
        return None
    return getattr(value.example, "dtype", None) or np.asarray(value.example).dtype


def _chooses_dtype(analysis, stmt: cst.If, rest: list) -> bool:
    """Whether a variable ``stmt``'s branches bind holds numbers of different dtypes on its
    paths (`Analysis.if_envs`) and ``rest`` reads it."""
    envs = analysis.if_envs.get(stmt)
    if envs is None or analysis.batched_tests.get(stmt, True) \
            or analysis.decided.get(stmt) is not None:
        return False
    paths = _paths(analysis, stmt)
    if paths is None or len(paths) < 2:
        return False
    read = {n.value for s in rest for n in by_type(s).get(cst.Name, ())}
    return any(_differ(a.get(name), b.get(name)) for name in read
               for a in paths for b in paths if a is not b)


def _paths(analysis, stmt: cst.If):
    """The environments at the end of each branch of an ``if``/``elif`` chain that falls
    through (None where one is unknown)."""
    envs = analysis.if_envs.get(stmt)
    if envs is None:
        return None
    _before, body, orelse, _joined = envs
    out = [body] if body is not None else []
    if type(stmt.orelse) is cst.If:
        more = _paths(analysis, stmt.orelse)
        if more is None:
            return None
        out += more
    elif orelse is not None:
        out.append(orelse)
    return out


def _exits(stmts: list) -> bool:
    """Whether the statements end in an exit (no path falls off a last simple statement)."""
    last = stmts[-1] if stmts else None
    return type(last) is cst.SimpleStatementLine and any(
        type(s) in (cst.Return, cst.Raise, cst.Break, cst.Continue) for s in last.body)


def _with_continuation(stmt: cst.If, rest: list, first: list) -> cst.If:
    """``stmt`` with ``rest`` after each branch that does not end in an exit (the first
    one takes the statements themselves, ``first`` counts it; the others copies)."""
    def taken(body: list) -> list:
        if _exits(body):
            return body
        tail = rest if not first else [s.deep_clone() for s in rest]
        first.append(True)
        return body + tail
    body = stmt.body.with_changes(body=taken(list(stmt.body.body)))
    if stmt.orelse is None:
        orelse = cst.Else(cst.IndentedBlock(taken([])))
    elif type(stmt.orelse) is cst.If:
        orelse = _with_continuation(stmt.orelse, rest, first)
    else:
        orelse = stmt.orelse.with_changes(
            body=stmt.orelse.body.with_changes(body=taken(list(stmt.orelse.body.body))))
    return stmt.with_changes(body=body, orelse=orelse)


def _specialize_block(stmts: list, specialized: set) -> list:
    out = []
    for i, stmt in enumerate(stmts):
        if type(stmt) is cst.If and id(stmt) in specialized and stmts[i + 1:]:
            stmt = _with_continuation(stmt, list(stmts[i + 1:]), [])
            out.append(_specialize_if(stmt, specialized))
            return out
        out.append(_specialize_if(stmt, specialized) if type(stmt) is cst.If else stmt)
    return out


def _specialize_if(stmt: cst.If, specialized: set) -> cst.If:
    body = stmt.body.with_changes(body=_specialize_block(list(stmt.body.body), specialized))
    orelse = stmt.orelse
    if type(orelse) is cst.If:
        orelse = _specialize_if(orelse, specialized)
    elif orelse is not None:
        orelse = orelse.with_changes(body=orelse.body.with_changes(
            body=_specialize_block(list(orelse.body.body), specialized)))
    return stmt.with_changes(body=body, orelse=orelse)


def _choosing(analysis, stmts: list, out: set) -> None:
    """The ``if``s outside loops whose branches choose a dtype that the statements after
    them read (`_chooses_dtype`)."""
    for i, stmt in enumerate(stmts):
        if type(stmt) is not cst.If:
            continue
        if _chooses_dtype(analysis, stmt, stmts[i + 1:]):
            out.add(stmt)
        branch = stmt
        while branch is not None:
            _choosing(analysis, list(branch.body.body), out)
            branch = branch.orelse
            if type(branch) is cst.Else:
                _choosing(analysis, list(branch.body.body), out)
                break


def _differ(a, b) -> bool:
    """Whether two values are numbers of different dtypes (kinds, or float widths)."""
    dtypes = {_dtype_of(a), _dtype_of(b)}
    if None in dtypes or len(dtypes) < 2:
        return False
    return len({d.kind if d.kind != "u" else "i" for d in dtypes}) > 1 or (
        len({d.itemsize for d in dtypes if d.kind in "fc"}) > 1)


def _choice_statements(analysis, stmts: list) -> list:
    """``t = a if c else b`` (outside loops) whose test is the same for every example, not
    known exactly, and whose sides are numbers of different dtypes, as the ``if`` statement
    it means: `_choosing` then takes the statements after it into its branches."""
    out = []
    for stmt in stmts:
        if type(stmt) is cst.If:
            stmt = _choices_in_if(analysis, stmt)
        elif type(stmt) is cst.SimpleStatementLine and len(stmt.body) == 1 \
                and type(stmt.body[0]) is cst.Assign and type(stmt.body[0].value) is cst.IfExp:
            assign, choice = stmt.body[0], stmt.body[0].value
            test = analysis.values.get(choice.test)
            if test is not None and not getattr(test, "batched", True) \
                    and analysis.decided.get(choice) is None and _differ(
                        analysis.values.get(choice.body), analysis.values.get(choice.orelse)):
                def line(value, assign=assign, stmt=stmt):
                    return cst.IndentedBlock([stmt.with_changes(
                        body=[assign.with_changes(value=unparenthesized(value))],
                        leading_lines=[])])
                stmt = cst.If(test=unparenthesized(choice.test), body=line(choice.body),
                              orelse=cst.Else(line(choice.orelse)),
                              leading_lines=stmt.leading_lines)
        out.append(stmt)
    return out


def _choices_in_if(analysis, stmt: cst.If) -> cst.If:
    body = stmt.body.with_changes(body=_choice_statements(analysis, list(stmt.body.body)))
    orelse = stmt.orelse
    if type(orelse) is cst.If:
        orelse = _choices_in_if(analysis, orelse)
    elif orelse is not None:
        orelse = orelse.with_changes(body=orelse.body.with_changes(
            body=_choice_statements(analysis, list(orelse.body.body))))
    return stmt.with_changes(body=body, orelse=orelse)


def transform(func: cst.FunctionDef, ctx) -> cst.FunctionDef:
    kinds = (cst.If, cst.While, cst.IfExp, cst.BooleanOperation)
    if not any(kind in by_type(func.body) for kind in kinds):
        return func
    analysis = ctx.analyze(func)
    if cst.IfExp in by_type(func.body):
        statements = _choice_statements(analysis, list(func.body.body))
        if any(a is not b for a, b in zip(statements, func.body.body)):
            func = func.with_changes(body=func.body.with_changes(body=statements))
            analysis = ctx.analyze(func)
    elifs = {n.orelse for n in by_type(func).get(cst.If, ()) if type(n.orelse) is cst.If}
    choosing: set = set()
    _choosing(analysis, list(func.body.body), choosing)
    if len(choosing) > MAX_CHOOSING:
        node = next(n for n in by_type(func).get(cst.If, ()) if n in choosing)
        raise Unsupported(
            f"more than {MAX_CHOOSING} `if`s whose test is the same for every example choose "
            "between numbers of different dtypes that later statements read: each would copy "
            "the statements after it into its branches", node,
            suggestion="convert the choices to one dtype (e.g. float(...)) before they meet")
    conditions = _Conditions(analysis, ctx.registry, elifs, choosing)
    func = rewrite(func, conditions)
    if conditions.specialized:
        func = func.with_changes(body=func.body.with_changes(
            body=_specialize_block(list(func.body.body), conditions.specialized)))
    return func
