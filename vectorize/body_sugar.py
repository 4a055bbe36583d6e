"""Python statements and tests written out, when the function is read
(`source.read_function`), as the plainer code they mean, which the engine batches:

- ``match`` with literal and value patterns, ``|`` of them, a capture or ``_`` as the last
  case, guarded captures, sequence patterns of a tuple display, and guards (`match_as_if`):
  an ``if``/``elif``/``else`` chain of ``==`` tests on the subject (named once);
- a loop's ``else:`` when the loop has a ``break`` (`loop_else_as_flag`): a flag set before
  each ``break`` and an ``if not flag:`` after the loop, so a loop whose examples stop at
  different times can run the clause on the lanes that did not break;
- ``x in (a, b, c)`` / ``x not in [...]`` and ``x in TABLE`` with ``TABLE`` a global tuple,
  list, set, frozenset or dict of numbers, or ``range`` of int literals
  (`membership_as_equality`): ``x == a or x == b or
  ...`` (``!=`` and ``and`` for ``not in``), which is Python's own test for numbers;
- ``for v in range(0):`` (a ``range`` of literal ints that is empty; `empty_range_loops`): its
  ``else:`` block, or ``pass``: the body never runs, so it decides no variable's type;
- ``d[k]`` / ``d.get(k, default)`` of a dict display the body binds once, by a key that may
  differ per example (`local_dict_lookups`): the chain of ``==`` tests Python's lookup
  makes, before the statement.
- ``r = int(x); return r - 1`` (statements on one line, `one_statement_per_line`): a line
  each, so that what a pass puts before a statement (a check, a temporary) goes before that
  statement, not before the line.
- ``try: ... finally: F`` (`finally_as_statements`): ``F`` after the ``try`` (which keeps its
  handlers and ``else:``, or becomes its body where it has none) and before each ``return``,
  ``break`` and ``continue`` that leaves it, as Python runs it on every path out; an exception
  that leaves it raises for the batch, which the loop then replays.

- ``f"x={x} " f"units"`` (strings written next to each other, an f-string among them;
  `concatenated_fstrings_as_sums`): ``f"x={x} " + f"units"``, the same string, which the
  analysis formats per example as it does any ``+`` of strings.

Each rewrite means what Python computes; what it does not cover stays as written, for the
analysis to refuse with its location (`match` patterns: `unbatched_pattern` says which).
"""

from __future__ import annotations

import libcst as cst

from .introspect import guarded_contents, lookup
from .liveness import Namer, all_names, target_names, writes
from .syntax.traversal import by_type, rewrite, walk

MEMBERSHIP_LIMIT = 64
"""Items of a table a membership test is written out for (more: refused as before)."""


def _line(stmt) -> cst.SimpleStatementLine:
    return cst.SimpleStatementLine([stmt])


def _assign(name: str, value) -> cst.SimpleStatementLine:
    return _line(cst.Assign([cst.AssignTarget(cst.Name(name))], value))


def _bool_chain(tests: list, operator):
    out = tests[0]
    for t in tests[1:]:
        out = cst.BooleanOperation(out, operator, t)
    return out.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]) if len(
        tests) > 1 else out


def _paren(node):
    if type(node) in (cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString,
                      cst.Attribute, cst.Subscript, cst.Call):
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _compare(left, op, right):
    # (fresh nodes at each use: the engine keeps facts by node)
    return cst.Comparison(_paren(left.deep_clone()), [cst.ComparisonTarget(
        op, _paren(right.deep_clone()))])


# ------------------------------------------------------------------------------ match


def unbatched_pattern(stmt: cst.Match, tree=None):
    """The first pattern of ``stmt`` that `match_as_if` does not write out (None if it does
    them all): class, mapping and ``True``/``False`` patterns, star patterns,
    sequence patterns of a subject that is not a tuple display, captures inside ``|``, a
    capture or ``_`` before the last case, and (with ``tree``, the function) a guarded
    capture whose name the function uses outside the cases that capture it."""
    cases = list(stmt.cases)
    items = _subject_items(stmt.subject)
    for i, case in enumerate(cases):
        pattern = case.pattern
        if _irrefutable(pattern) and case.guard is None:
            if i != len(cases) - 1:
                return pattern
            continue
        planned = _pattern_test(pattern, cst.Name("_"), items and [
            cst.Name(f"_{k}") for k in range(len(items))])
        if planned is None:
            return pattern
        binds = planned[1]
        # (CPython binds a pattern's captures once the whole pattern matched, before the
        # guard: only a failed guard leaves them bound)
        if tree is not None and binds and case.guard is not None and _captures_escape(
                tree, stmt, case, binds):
            return pattern
    return None


def _subject_items(subject):
    """The items of a subject that is a tuple display without starred items (a sequence
    pattern tests them one by one), or None."""
    if type(subject) is cst.Tuple and all(type(e) is cst.Element for e in subject.elements):
        return [e.value for e in subject.elements]
    return None


def _captures_escape(tree, stmt, case, binds) -> bool:
    """Whether a name the case captures is used anywhere but in the case itself or in
    another case of the match that captures it too (Python binds captures while it
    matches, before the guard, so a failed case may leave one bound: the written-out chain
    binds them in the case's body only)."""
    names = {name for name, _ in binds}
    inside = {id(n) for n in walk(case)}
    for other in stmt.cases:
        captured = {n.name.value for n in walk(other.pattern)
                    if type(n) is cst.MatchAs and n.name is not None}
        if names <= captured:
            inside |= {id(n) for n in walk(other)}
    for n in walk(tree):
        # a comprehension's or lambda's own names are of its scope (`for w in range(3)`)
        own = set()
        if type(n) in (cst.ListComp, cst.GeneratorExp, cst.SetComp, cst.DictComp):
            comp = n.for_in
            while comp is not None:
                own |= {m.value for m in walk(comp.target) if type(m) is cst.Name}
                comp = comp.inner_for_in
        elif type(n) is cst.Lambda:
            own = {p.name.value for p in n.params.params}
        if own & names:
            inside |= {id(m) for m in walk(n) if type(m) is cst.Name and m.value in own}
    return any(type(n) is cst.Name and n.value in names and id(n) not in inside
               for n in walk(tree))


_TRUE = object()
_NEVER = object()


def _pattern_test(pattern, subject, items):
    """``(test, binds)`` for ``pattern`` on ``subject`` (a name; ``items``: the names of
    the subject's items where it is a tuple display, else None): the test Python's match
    makes (`_TRUE` where it always matches, `_NEVER` where it never does) and the
    ``(name, value)`` captures it binds; None where it is not written out."""
    t = type(pattern)
    if t is cst.MatchAs:
        if pattern.pattern is None:
            test, binds = _TRUE, []
        else:
            inner = _pattern_test(pattern.pattern, subject, items)
            if inner is None:
                return None
            test, binds = inner
        if pattern.name is not None:
            if binds is None:
                return None
            whole = subject if items is None else cst.Tuple(
                [cst.Element(n) for n in items] if len(items) != 1 else
                [cst.Element(items[0], comma=cst.Comma())])
            binds = binds + [(pattern.name.value, whole)]
        return test, binds
    if t is cst.MatchValue:
        value = pattern.value
        if items is not None or type(value) is cst.Name and value.value in (
                "None", "True", "False"):
            return None
        return _compare(subject, cst.Equal(), value), []
    if t is cst.MatchSingleton:
        # `case None:` compares by identity (`subject is None`), which the analysis answers
        # (a per-example number is never None); not `case True:` / `case False:`, whose
        # subject may be a Python bool per example on some calls and a NumPy bool (never
        # `True` itself) on others: refused at the pattern
        if items is not None or pattern.value.value != "None":
            return None
        return cst.Comparison(_paren(subject.deep_clone()), [cst.ComparisonTarget(
            cst.Is(), pattern.value.deep_clone())]), []
    if t is cst.MatchOr:
        tests = []
        for p in pattern.patterns:
            one = _pattern_test(p.pattern, subject, items)
            if one is None or one[1]:
                return None
            tests.append(one[0])
        if _TRUE in tests:
            return _TRUE, []
        tests = [x for x in tests if x is not _NEVER]
        return (_bool_chain(tests, cst.Or()) if tests else _NEVER), []
    if t in (cst.MatchTuple, cst.MatchList) and items is not None:
        elements = list(pattern.patterns)
        if any(type(e) is not cst.MatchSequenceElement for e in elements):
            return None
        if len(elements) != len(items):
            return _NEVER, []
        tests, binds = [], []
        for e, item in zip(elements, items):
            one = _pattern_test(e.value, item, None)
            if one is None:
                return None
            tests.append(one[0])
            binds += one[1]
        if _NEVER in tests:
            return _NEVER, binds
        tests = [x for x in tests if x is not _TRUE]
        return (_bool_chain(tests, cst.And()) if tests else _TRUE), binds
    return None


def _capture(pattern):
    """The name ``case y:`` binds (None for ``_`` and for other patterns)."""
    if type(pattern) is cst.MatchAs and pattern.pattern is None and pattern.name is not None:
        return pattern.name.value
    return None


def _irrefutable(pattern) -> bool:
    return type(pattern) is cst.MatchAs and pattern.pattern is None


def _substituted(node, binds):
    """``node`` with each captured name replaced by what it captures (names and tuples of
    names, which evaluate to the same values without side effects)."""
    from .body_constructs.comprehensions import substitute
    for name, value in binds:
        node = substitute(node, name, value)
    return node


def concatenated_fstrings_as_sums(tree: cst.FunctionDef) -> cst.FunctionDef:
    """``"a" f"{x}" "b"`` -> ``"a" + f"{x}" + "b"`` (see the module's docstring); strings
    without an f-string among them stay as written."""
    if not any(type(n) is cst.ConcatenatedString for n in walk(tree)):
        return tree

    def parts(node) -> list:
        if type(node) is cst.ConcatenatedString:
            return [*parts(node.left), *parts(node.right)]
        return [node.with_changes(lpar=(), rpar=())]

    class _Sums(cst.CSTTransformer):
        def leave_ConcatenatedString(self, original_node, updated_node):
            pieces = parts(updated_node)
            if not any(type(p) is cst.FormattedString for p in pieces):
                return updated_node
            out = pieces[0]
            for piece in pieces[1:]:
                out = cst.BinaryOperation(out, cst.Add(), piece)
            return out.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])

        def visit_ConcatenatedString(self, node):
            return False     # (the outermost one takes its parts: nested ones are halves)

    return tree.visit(_Sums())


class _OneStatementPerLine(cst.CSTTransformer):
    def leave_SimpleStatementLine(self, original_node, updated_node):
        if len(updated_node.body) < 2:
            return updated_node
        lines = [updated_node.with_changes(
            body=[small.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)],
            leading_lines=updated_node.leading_lines if k == 0 else ())
            for k, small in enumerate(updated_node.body)]
        return cst.FlattenSentinel(lines)


def one_statement_per_line(tree: cst.FunctionDef) -> cst.FunctionDef:
    """Statements written on one line with ``;`` become a line each (the last keeps the
    line's comment)."""
    if not any(len(line.body) > 1 for line in by_type(tree).get(cst.SimpleStatementLine, ())):
        return tree
    return rewrite(tree, _OneStatementPerLine())


def match_as_if(tree: cst.FunctionDef) -> cst.FunctionDef:
    """Every ``match`` whose patterns `unbatched_pattern` accepts, as an ``if`` chain:
    ``match kind: case 0 | 1: A  case 2 if big: B  case _: C`` becomes ``if kind == 0 or
    kind == 1: A elif kind == 2 and big: B else: C``. Python tests the cases in order with
    ``==`` for literal and value patterns and runs the first that matches; a subject that is
    not a plain name is evaluated once, into a fresh name, as Python does (a tuple display,
    item by item, into fresh names that sequence patterns of its length test one by one:
    ``case (0, _):`` is ``subject_0 == 0``). A capture (``case w if w > 2:``, ``case (1,
    n):``) is bound at the start of its case's body, and its guard reads what it captures;
    only where the function uses the name nowhere else (Python binds it before the guard,
    even when the guard then fails)."""
    if cst.Match not in by_type(tree):
        return tree
    taken = Namer(all_names(tree))

    class Lower(cst.CSTTransformer):
        def leave_Match(self, original_node, updated_node):
            if unbatched_pattern(original_node, tree) is not None:
                return updated_node
            out = []
            subject = updated_node.subject
            items = _subject_items(subject)
            if items is not None:
                names = [taken.fresh(f"subject_{k}") for k in range(len(items))]
                out.extend(_assign(n, v) for n, v in zip(names, items))
                items = [cst.Name(n) for n in names]
                subject = cst.Name("_")        # (never read: sequence patterns read items)
            elif type(subject) is not cst.Name:
                name = taken.fresh("subject")
                out.append(_assign(name, subject))
                subject = cst.Name(name)
            chain = None
            for case in reversed(updated_node.cases):
                body = case.body
                test, binds = _pattern_test(case.pattern, subject, items)
                if test is _NEVER:
                    continue
                if binds:
                    lines = list(body.body) if type(body) is cst.IndentedBlock else [body]
                    body = cst.IndentedBlock([_line(cst.Assign(
                        [cst.AssignTarget(cst.Name(n))], v.deep_clone())) for n, v in binds]
                        + lines)
                elif type(body) is not cst.IndentedBlock:
                    body = cst.IndentedBlock([body])
                guard = None if case.guard is None else _substituted(case.guard, binds)
                if test is _TRUE and guard is None:
                    chain = cst.Else(body)
                    continue
                if test is _TRUE:
                    test = guard
                elif guard is not None:
                    test = _bool_chain([test, _paren(guard)], cst.And())
                chain = cst.If(test, body, orelse=chain)
            if chain is None:
                return cst.FlattenSentinel(out) if out else cst.RemovalSentinel.REMOVE
            if type(chain) is cst.Else:          # `match x: case _: ...`
                out.extend(chain.body.body)
            else:
                out.append(chain)
            return cst.FlattenSentinel(out)

    return rewrite(tree, Lower())


# -------------------------------------------------------------------------- loop else


def _own_breaks(body) -> bool:
    return any(True for _ in _breaks_of(body))


def _breaks_of(node):
    """The ``break`` statements that leave the loop whose body is ``node`` (not those of
    nested loops or functions)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if type(n) is cst.Break:
            yield n
            continue
        if type(n) in (cst.For, cst.While):
            stack.append(n.orelse) if n.orelse is not None else None
            continue
        if type(n) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            continue
        stack.extend(n.children)


def loop_else_as_flag(tree: cst.FunctionDef) -> cst.FunctionDef:
    """``for ...: ... break ... else: E`` (or ``while``) as ``broke = False``, the loop with
    ``broke = True`` before each of its own ``break`` statements and without ``else``, then
    ``if not broke: E``: Python runs ``else`` exactly when the loop ends without ``break``.
    A loop without a ``break`` keeps its ``else`` (it always runs; the analysis reads it)."""
    loops = [*by_type(tree).get(cst.For, ()), *by_type(tree).get(cst.While, ())]
    if not any(n.orelse is not None and _own_breaks(n.body) for n in loops) or any(
            n.orelse is not None and _own_breaks(n.orelse) for n in loops):
        return tree      # (a `break` in an `else:` leaves the loop around: kept as written)
    taken = Namer(all_names(tree))

    class Lower(cst.CSTTransformer):
        def __init__(self):
            self.flags: list = []

        def _enter(self, node):
            flag = taken.fresh("broke") if node.orelse is not None and _own_breaks(
                node.body) else None
            self.flags.append(flag)

        def visit_For(self, node):
            self._enter(node)

        def visit_While(self, node):
            self._enter(node)

        def visit_FunctionDef(self, node):
            self.flags.append(None)

        def leave_FunctionDef(self, original_node, updated_node):
            self.flags.pop()
            return updated_node

        def leave_SimpleStatementLine(self, original_node, updated_node):
            flag = self.flags[-1] if self.flags else None
            if flag is None or not any(type(s) is cst.Break for s in updated_node.body):
                return updated_node
            out, small = [], []
            for s in updated_node.body:
                if type(s) is cst.Break:
                    small.append(cst.Assign([cst.AssignTarget(cst.Name(flag))],
                                            cst.Name("True")))
                small.append(s)
            out.append(updated_node.with_changes(body=small))
            return cst.FlattenSentinel(out)

        def _leave(self, updated_node):
            flag = self.flags.pop()
            if flag is None:
                return updated_node
            orelse = updated_node.orelse
            return cst.FlattenSentinel([
                _assign(flag, cst.Name("False")),
                updated_node.with_changes(orelse=None),
                cst.If(cst.UnaryOperation(cst.Not(), cst.Name(flag)), orelse.body)])

        def leave_For(self, original_node, updated_node):
            return self._leave(updated_node)

        def leave_While(self, original_node, updated_node):
            return self._leave(updated_node)

    return rewrite(tree, Lower())


def truth_tests(tree) -> set:
    """ids of the expressions of ``tree`` whose value only decides a test: the tests of
    ``if``, ``while``, ``assert`` and conditional expressions, the operand of ``not``, and
    the operands of ``and``/``or`` that are themselves such a test."""
    out: set = set()

    def mark(node):
        out.add(id(node))
        if type(node) is cst.BooleanOperation:
            mark(node.left)
            mark(node.right)
    for n in walk(tree):
        if type(n) in (cst.If, cst.While, cst.IfExp, cst.Assert):
            mark(n.test)
        elif type(n) is cst.UnaryOperation and type(n.operator) is cst.Not:
            mark(n.expression)
    return out


def _literal_int(node):
    if type(node) is cst.Integer:
        return int(node.value, 0)
    if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus and \
            type(node.expression) is cst.Integer:
        return -int(node.expression.value, 0)
    return None


def empty_range_loops(tree: cst.FunctionDef, func) -> cst.FunctionDef:
    """``for v in range(0):`` (``range`` of literal ints that is empty) never runs its body:
    the loop is its ``else:`` block, or ``pass``. Its body then decides no variable's type
    (``t = 0.0`` stays a Python float, not the float32 the body would make it), and ``v``
    stays unbound, as in Python."""
    import builtins
    if getattr(func, "__globals__", {}).get("range", builtins.range) is not builtins.range:
        return tree
    if "range" in all_names(tree.params) or any(
            type(n.target) is cst.Name and n.target.value == "range"
            for n in by_type(tree).get(cst.AssignTarget, ())):
        return tree

    def empty(node) -> bool:
        it = node.iter
        if type(node) is not cst.For or node.asynchronous is not None or type(
                it) is not cst.Call or type(it.func) is not cst.Name or \
                it.func.value != "range" or not 1 <= len(it.args) <= 3 or any(
                a.keyword is not None or a.star for a in it.args):
            return False
        bounds = [_literal_int(a.value) for a in it.args]
        return None not in bounds and (len(bounds) < 3 or bounds[2] != 0) and \
            len(range(*bounds)) == 0

    if not any(empty(n) for n in by_type(tree).get(cst.For, ())):
        return tree

    class Drop(cst.CSTTransformer):
        def leave_For(self, original_node, updated_node):
            if not empty(updated_node):
                return updated_node
            if updated_node.orelse is not None:
                return cst.FlattenSentinel(list(updated_node.orelse.body.body))
            return cst.SimpleStatementLine([cst.Pass()])

    return rewrite(tree, Drop())


# ------------------------------------------------------------------------- membership


def membership_as_equality(tree: cst.FunctionDef, func, imports: dict,
                           contents_read: set | None = None) -> cst.FunctionDef:
    """``x in (a, b, c)`` (a tuple, list or set display) as ``x == a or x == b or x == c``
    and ``x not in ...`` as ``x != a and ...``; ``x in TABLE`` for a global (or body import)
    ``TABLE`` bound to a tuple or list of numbers (no NaN) as ``x == TABLE[0] or ...``, to
    a set, frozenset or dict of numbers as the same tests of its (finite) values; the names of
    a list, set or dict, which may change in place between calls, are added to
    ``contents_read`` (the code is guarded by their items: `introspect.ContentsGuard`).
    Python's ``in`` is ``any(e is x or e == x ...)``, and for numbers other than a NaN object
    ``is`` adds nothing to ``==`` (display items: number literals and names of such
    numbers). Only a
    single comparison whose left side calls nothing (it is written once per item). ``x in
    range(a, b, c)`` of int literals (at most `MEMBERSHIP_LIMIT` items): the chain of its
    items' tests, which is what Python's ``range`` tests (arithmetically for an int)."""
    if not any(type(n.operator) in (cst.In, cst.NotIn)
               for n in by_type(tree).get(cst.ComparisonTarget, ())):
        return tree
    from .liveness import bound_names
    assigned = bound_names(tree)

    def constant(node) -> bool:
        """A number literal, or a name bound (globally, by a closure or an import) to a
        number that is not NaN: ``x is c`` then adds nothing to ``x == c``."""
        if type(node) is cst.UnaryOperation and type(node.operator) in (cst.Minus, cst.Plus):
            node = node.expression
        if type(node) in (cst.Integer, cst.Float, cst.Imaginary):
            return True
        if type(node) is not cst.Name or node.value in assigned:
            return False
        found, value, scope = (True, imports[node.value], "import") \
            if node.value in imports else lookup(func, node.value)
        return found and scope in ("global", "closure", "import", "builtin") and type(
            value) in (int, bool, float, complex) and value == value

    def items(node):
        if type(node) in (cst.Tuple, cst.List, cst.Set):
            # (items that may be per-example values, or a NaN object, which `x` may be
            # itself: `in` is ``x is e or x == e``, decided by the analysis, which knows
            # the values: `analysis.expressions.MembershipOfNumbers`)
            if any(type(e) is not cst.Element or not constant(e.value) for e in node.elements):
                return None
            return [e.value for e in node.elements]
        if type(node) is cst.Call and type(node.func) is cst.Name and \
                node.func.value == "range" and "range" not in assigned and lookup(
                    func, "range")[2] == "builtin" and 1 <= len(node.args) <= 3 and all(
                    a.keyword is None and not a.star for a in node.args):
            # `k in range(3)`: Python's test of an int is arithmetic, of any other number
            # the `==` of each item in turn; both are the chain of `==` tests
            from .body_constructs.comprehensions import int_value
            bounds = [int_value(a.value) for a in node.args]
            if None in bounds or len(bounds) == 3 and bounds[2] == 0 or len(
                    range(*bounds)) > MEMBERSHIP_LIMIT:
                return None
            return [cst.Integer(str(v)) if v >= 0 else cst.UnaryOperation(
                cst.Minus(), cst.Integer(str(-v))) for v in range(*bounds)]
        if type(node) is not cst.Name or node.value in assigned:
            return None
        found, value, scope = (True, imports[node.value], "import") \
            if node.value in imports else lookup(func, node.value)
        if not found or scope not in ("global", "closure", "import") or len(
                value if hasattr(value, "__len__") else ()) > MEMBERSHIP_LIMIT:
            return None
        found = None
        if type(value) in (tuple, list) and all(type(v) in (int, float, bool) and v == v
                                                for v in value):
            found = [cst.Subscript(cst.Name(node.value), [cst.SubscriptElement(
                cst.Index(cst.Integer(str(i))))]) for i in range(len(value))]
        elif type(value) in (set, frozenset, dict) and all(
                type(v) in (int, bool) or type(v) is float and v == v and abs(v) != float(
                    "inf") for v in value):
            found = [cst.parse_expression(repr(v)) for v in sorted(value)]
        if found is not None and type(value) in (list, set, dict):
            # (it may change in place between calls, which the code made for the first
            # would not see: the code is guarded by its items)
            if contents_read is None or not guarded_contents(value):
                return None
            contents_read.add(node.value)
        return found

    tested = truth_tests(tree)
    as_bool = "bool" not in assigned and lookup(func, "bool")[2] == "builtin"

    class Lower(cst.CSTTransformer):
        def leave_Comparison(self, original_node, updated_node):
            if len(updated_node.comparisons) != 1:
                return updated_node
            target = updated_node.comparisons[0]
            negated = type(target.operator) is cst.NotIn
            if type(target.operator) is not cst.In and not negated:
                return updated_node
            left = updated_node.left
            if any(type(n) in (cst.Call, cst.NamedExpr, cst.Yield, cst.Await, cst.Lambda)
                   for n in walk(left)):
                return updated_node
            values = items(target.comparator)
            if values is None:
                return updated_node
            if not values:
                return cst.Name("True" if negated else "False")
            tests = [_compare(left.with_changes(lpar=[], rpar=[]) if type(left) is cst.Name
                              else left, cst.NotEqual() if negated else cst.Equal(),
                              v.with_changes(lpar=[], rpar=[]) if hasattr(v, "lpar") else v)
                     for v in values]
            out = _bool_chain(tests, cst.And() if negated else cst.Or())
            if id(original_node) not in tested and as_bool:
                # `in` gives a Python bool; `==` of NumPy scalars (`vmap`) a NumPy bool,
                # which adds as a bool (`(k in (1, 2)) + (j in (3,))` is the int 2 in Python)
                return cst.Call(cst.Name("bool"), [cst.Arg(out.with_changes(lpar=[],
                                                                            rpar=[]))],
                                lpar=updated_node.lpar, rpar=updated_node.rpar)
            if updated_node.lpar and len(tests) == 1:
                out = out.with_changes(lpar=updated_node.lpar, rpar=updated_node.rpar)
            return out

    return rewrite(tree, Lower())



# ----------------------------------------------------------------- walrus in a test


def _unconditional_walruses(test) -> list:
    """The ``name := value`` expressions of ``test`` that Python always evaluates when it
    evaluates ``test``, in evaluation order: not those in the right operand of ``and``/``or``,
    a branch of a conditional expression, a comparison chain's later operands, a lambda or a
    comprehension (evaluated on some paths only, or in another scope)."""
    out = []

    def visit(node):
        kind = type(node)
        if kind is cst.NamedExpr:
            visit(node.value)
            if type(node.target) is cst.Name:
                out.append(node)
            return
        if kind is cst.BooleanOperation:
            visit(node.left)
            return
        if kind is cst.IfExp:
            visit(node.test)
            return
        if kind is cst.Comparison:
            visit(node.left)
            visit(node.comparisons[0].comparator)
            return
        if kind in (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp):
            return
        for child in node.children:
            if isinstance(child, cst.BaseExpression) or type(child) in (
                    cst.Arg, cst.Element, cst.StarredElement, cst.SubscriptElement, cst.Index,
                    cst.ComparisonTarget):
                visit(child)

    visit(test)
    return out


def _without(test, walruses):
    """``test`` with each of ``walruses`` read as its name (its value assigned before)."""
    chosen = {id(w) for w in walruses}

    class Read(cst.CSTTransformer):
        def leave_NamedExpr(self, original_node, updated_node):
            if id(original_node) not in chosen:
                return updated_node
            return updated_node.target.with_changes(lpar=[], rpar=[])

    return test.visit(Read())


def _in_order(node, out: list) -> list:
    """``node`` and the nodes under it in source order."""
    out.append(node)
    for child in node.children:
        _in_order(child, out)
    return out


def _movable(test, walruses) -> bool:
    """Whether moving ``walruses`` before ``test`` keeps what every name reads: no name one
    of them assigns is read in the test before it (outside its own value), and no value
    moved reads a name a walrus left in place assigns."""
    moved = {id(w) for w in walruses}
    staying = {n.target.value for n in walk(test) if type(n) is cst.NamedExpr
               and id(n) not in moved and type(n.target) is cst.Name}
    if any(staying & all_names(w.value) for w in walruses):
        return False
    order = _in_order(test, [])
    for w in walruses:
        start = next(k for k, n in enumerate(order) if n is w)
        inside = {id(n) for n in _in_order(w, [])}
        if any(type(n) is cst.Name and n.value == w.target.value and id(n) not in inside
               for n in order[:start]):
            return False
    return True


def _hoisted(test):
    """The assignments of ``test``'s unconditional walruses, and ``test`` reading them."""
    walruses = _unconditional_walruses(test)
    if walruses and not _movable(test, walruses):
        return [], test
    lines = [_line(cst.Assign([cst.AssignTarget(w.target.with_changes(lpar=[], rpar=[]))],
                              w.value)) for w in walruses]
    return lines, (_without(test, walruses) if walruses else test)


def _conjuncts(test) -> list:
    if type(test) is cst.BooleanOperation and type(test.operator) is cst.And and \
            not test.lpar:
        return _conjuncts(test.left) + _conjuncts(test.right)
    return [test]


def _lowered_if(node: cst.If, taken: Namer) -> list:
    """The statements ``node`` (an ``if`` that is not an ``elif``) becomes: its test's
    unconditional walruses assigned before it, and a test ``a and (t := e) > 2`` split
    where the first walrus on the right of ``and`` is: ``if a:`` holding ``t = e`` and the
    rest (without ``else``: ``if a: t = e; if t > 2: body``; with one: a flag,
    ``matched = False; if a: t = e; matched = t > 2`` then ``if matched: ... else: ...``),
    as ``and`` evaluates it."""
    lines, test = _hoisted(node.test)
    node = node.with_changes(test=test)
    parts = _conjuncts(test)
    split = next((k for k, part in enumerate(parts) if k and any(
        type(n) is cst.NamedExpr and type(n.target) is cst.Name for n in walk(part))), None)
    if split is None or any(type(n) is cst.NamedExpr for p in parts[:split] for n in walk(p)):
        return [*lines, node]
    head = _bool_chain([p.with_changes(lpar=[], rpar=[]) if hasattr(p, "lpar") else p
                        for p in parts[:split]], cst.And())
    rest = _bool_chain(parts[split:], cst.And())
    if node.orelse is None:
        inner = _lowered_if(cst.If(rest, node.body), taken)
        return [*lines, node.with_changes(test=head, body=cst.IndentedBlock(inner))]
    flag = taken.fresh("matched")
    moved, rest = _hoisted(rest)
    return [*lines, _assign(flag, cst.Name("False")),
            cst.If(head, cst.IndentedBlock([*moved, _assign(flag, rest)])),
            node.with_changes(test=cst.Name(flag))]


def walrus_as_assignment(tree: cst.FunctionDef) -> cst.FunctionDef:
    """``if (t := e) > 1:`` as ``t = e`` then ``if t > 1:`` (an ``elif`` becomes ``else:``
    with the assignment and an ``if``), and ``while (t := e) > 1: B`` (without ``else``) as
    ``while True: t = e; if not t > 1: break; B``: Python evaluates those assignments every
    time it evaluates the test, before what the test decides. Only the walruses the test
    always evaluates move (`_unconditional_walruses`); the rest stay for the analysis."""
    if cst.NamedExpr not in by_type(tree):
        return tree

    taken = Namer(all_names(tree))

    class Lower(cst.CSTTransformer):
        def leave_If(self, original_node, updated_node):
            if id(original_node) in self.elifs:
                return updated_node       # an `elif`: `_ElifWalruses` writes it out
            out = _lowered_if(updated_node, taken)
            return out[0] if len(out) == 1 else cst.FlattenSentinel(out)

        def visit_If(self, node):
            if type(node.orelse) is cst.If:
                self.elifs.add(id(node.orelse))

        def leave_While(self, original_node, updated_node):
            if updated_node.orelse is not None or not any(
                    type(n) is cst.NamedExpr for n in walk(updated_node.test)):
                return updated_node
            lines, test = _hoisted(updated_node.test)
            if any(type(n) is cst.NamedExpr for n in walk(test)):
                # a walrus on the right of `and`: the test as an `if` split where `and`
                # evaluates it, setting a flag
                flag = taken.fresh("matched")
                decided = _lowered_if(cst.If(test, cst.IndentedBlock(
                    [_assign(flag, cst.Name("True"))])), taken)
                lines += [_assign(flag, cst.Name("False")), *decided]
                test = cst.Name(flag)
            elif not lines:
                return updated_node
            stop = cst.If(cst.UnaryOperation(cst.Not(), _paren(test)),
                          cst.IndentedBlock([_line(cst.Break())]))
            body = updated_node.body.with_changes(body=[*lines, stop,
                                                        *updated_node.body.body])
            return updated_node.with_changes(test=cst.Name("True"), body=body)

    lower = Lower()
    lower.elifs = set()       # ids of the `If` nodes that are an `elif` of another
    tree = rewrite(tree, lower)
    return rewrite(tree, _ElifWalruses(taken))


class _ElifWalruses(cst.CSTTransformer):
    """An ``elif`` whose test assigns with ``:=`` (`walrus_as_assignment` left it): ``else:``
    holding what `_lowered_if` makes of it (the assignments, then the ``if``)."""

    def __init__(self, taken: Namer):
        super().__init__()
        self.taken = taken

    def leave_If(self, original_node, updated_node):
        branch = updated_node.orelse
        if type(branch) is not cst.If or not any(type(n) is cst.NamedExpr
                                                 for n in walk(branch.test)):
            return updated_node
        lowered = _lowered_if(branch, self.taken)
        if len(lowered) == 1 and lowered[0] is branch:
            return updated_node
        return updated_node.with_changes(orelse=cst.Else(cst.IndentedBlock(lowered)))


# ------------------------------------------------------------------ names bound on some paths


def check_unbound(tree: cst.FunctionDef, name: str, placeholder: str, flag: str = ""):
    """The function with ``name`` (a local that some paths read without assigning) bound to
    ``placeholder`` (a literal of the type the other paths give it) on entry, a flag
    ``<name>_bound`` set after each assignment, and before each statement that reads it
    ``if not <name>_bound: raise UnboundLocalError(...)``: where Python raises, the batch
    raises (a check a little early, before a statement that reads it only on some of its
    branches, makes `vectorize` run the per-example loop, which decides). None where the
    name is bound in a way this does not follow (``del``, ``global``, walrus, ``with``,
    ``except ... as``, ``import``, a nested function's)."""
    from .liveness import reads, writes
    if any(type(n) in (cst.Del, cst.Global, cst.Nonlocal, cst.NamedExpr, cst.With,
                       cst.Import, cst.ImportFrom, cst.FunctionDef,
                       cst.ClassDef, cst.Lambda, cst.ListComp, cst.GeneratorExp, cst.SetComp,
                       cst.DictComp) and n is not tree for n in walk(tree.body)) or any(
            p.name.value == name for p in tree.params.params) or any(
            type(n) is cst.ExceptHandler and n.name is not None and type(n.name.name) is
            cst.Name and n.name.name.value == name for n in walk(tree.body)):
        # (a handler's `except E as name` binds it; a `try` otherwise is blocks as others)
        return None
    flag = flag or Namer(all_names(tree)).fresh(f"{name}_bound")
    message = (f"cannot access local variable '{name}' where it is not associated with a "
               "value")
    check = cst.parse_statement(f"if not {flag}:\n    raise UnboundLocalError({message!r})\n")
    bound = _assign(flag, cst.Name("True"))

    def header_reads(stmt) -> bool:
        parts = {cst.If: lambda s: [s.test], cst.While: lambda s: [s.test],
                 cst.For: lambda s: [s.iter], cst.Match: lambda s: [s.subject]}
        return any(name in reads(p) for p in parts.get(type(stmt), lambda s: [])(stmt))

    def block(stmts) -> list:
        out = []
        for stmt in stmts:
            if type(stmt) is cst.SimpleStatementLine:
                if name in reads(stmt):
                    out.append(check.deep_clone())
                out.append(stmt)
                if name in writes(stmt):
                    out.append(bound.deep_clone())
                continue
            if header_reads(stmt):
                out.append(check.deep_clone())
            out.append(compound(stmt))
        return out

    def compound(stmt):
        changes = {}
        if hasattr(stmt, "body") and type(stmt.body) is cst.IndentedBlock:
            lines = block(list(stmt.body.body))
            if type(stmt) is cst.For and name in writes(cst.SimpleStatementLine([cst.Assign(
                    [cst.AssignTarget(stmt.target)], cst.Name("None"))])):
                lines.insert(0, bound.deep_clone())
            changes["body"] = stmt.body.with_changes(body=lines)
        orelse = getattr(stmt, "orelse", None)
        if orelse is not None:
            changes["orelse"] = compound(orelse) if type(orelse) is cst.If else \
                orelse.with_changes(body=orelse.body.with_changes(
                    body=block(list(orelse.body.body))))
        if type(stmt) is cst.Try:
            changes["handlers"] = [h.with_changes(body=h.body.with_changes(
                body=block(list(h.body.body)))) for h in stmt.handlers]
            if stmt.finalbody is not None:
                changes["finalbody"] = stmt.finalbody.with_changes(body=stmt.finalbody.body
                                                                   .with_changes(body=block(
                                                                       list(stmt.finalbody
                                                                            .body.body))))
        if type(stmt) is cst.Match:
            changes["cases"] = [c.with_changes(body=c.body.with_changes(
                body=block(list(c.body.body)))) for c in stmt.cases]
        return stmt.with_changes(**changes) if changes else stmt

    start = [_assign(name, cst.parse_expression(placeholder)),
             _assign(flag, cst.Name("False"))]
    return tree.with_changes(body=tree.body.with_changes(
        body=start + block(list(tree.body.body))))


def check_fall_off(tree: cst.FunctionDef) -> cst.FunctionDef:
    """The function with ``raise TypeError(...)`` at the end of its body and in place of
    each ``return`` / ``return None``, which only the examples that get None in the loop
    reach: where a live example
    does, the batch raises and the per-example loop decides (`numpy.vectorize` then gives
    an object array where the first example's result is None, else its TypeError converting
    None to the output's dtype; `vmap`'s loop stacks what it stacks), so the batch never
    holds an invented value for None; where none does, nothing changes."""
    message = (f"{tree.name.value}() reaches the end of its body without `return` for some "
               "example (Python returns None there)")
    end = cst.parse_statement(f"raise TypeError({message!r})\n")
    from .analysis.syntax import may_fall_off

    class Returns(cst.CSTTransformer):
        """``return`` / ``return None`` -> the same ``raise``."""

        def visit_FunctionDef(self, node):
            return node is tree       # (a nested function's returns are its own)

        def visit_Lambda(self, node):
            return False

        def leave_Return(self, original_node, updated_node):
            if updated_node.value is None or type(updated_node.value) is cst.Name and \
                    updated_node.value.value == "None":
                return end.body[0].deep_clone()
            return updated_node

    tree = tree.visit(Returns())
    if not may_fall_off(list(tree.body.body)):
        return tree
    return tree.with_changes(body=tree.body.with_changes(body=[*tree.body.body, end]))


def check_none(tree: cst.FunctionDef, name: str, placeholder: str):
    """The function with ``name = None`` (its first binding, a statement of the body itself,
    the only one that binds it to None) taken for no binding, ``name is None`` /
    ``name is not None`` for ``not <name>_bound`` / ``<name>_bound``, and `check_unbound`'s
    checks before its other reads: a live example that reads the None (returns it,
    computes with it) makes the batch raise, and the per-example loop decides (numpy.vectorize
    gives an object array, or the TypeError of converting None, or of the arithmetic).
    None where the name is bound to None otherwise (a parameter, in a branch, twice)."""
    from .liveness import writes
    if any(p.name.value == name for p in tree.params.params):
        return None
    body = list(tree.body.body)
    first = next((k for k, stmt in enumerate(body) if name in writes(stmt)), None)

    def is_none_assignment(stmt):
        return type(stmt) is cst.SimpleStatementLine and len(stmt.body) == 1 and type(
            stmt.body[0]) is cst.Assign and len(stmt.body[0].targets) == 1 and type(
            stmt.body[0].targets[0].target) is cst.Name and stmt.body[0].targets[0].target \
            .value == name and type(stmt.body[0].value) is cst.Name and stmt.body[0] \
            .value.value == "None"

    if first is None or not is_none_assignment(body[first]) or sum(
            1 for n in walk(tree) if type(n) is cst.Assign and any(
                type(t.target) is cst.Name and t.target.value == name for t in n.targets)
            and type(n.value) is cst.Name and n.value.value == "None") != 1:
        return None
    flag = Namer(all_names(tree)).fresh(f"{name}_bound")

    class Tests(cst.CSTTransformer):
        def leave_Comparison(self, original_node, node):
            if len(node.comparisons) != 1 or type(node.left) is not cst.Name or \
                    node.left.value != name or type(node.comparisons[0].comparator) \
                    is not cst.Name or node.comparisons[0].comparator.value != "None":
                return node
            op = type(node.comparisons[0].operator)
            if op is cst.IsNot:
                return cst.Name(flag, lpar=node.lpar, rpar=node.rpar)
            if op is cst.Is:
                return cst.UnaryOperation(cst.Not(), cst.Name(flag), lpar=node.lpar,
                                          rpar=node.rpar)
            return node

    del body[first]
    tree = tree.with_changes(body=tree.body.with_changes(body=body)).visit(Tests())
    return check_unbound(tree, name, placeholder, flag)


# ------------------------------------------------------------------------- ufunc out=

def ufunc_out_as_write(tree: cst.FunctionDef, func, imports: dict) -> cst.FunctionDef:
    """A statement ``np.f(a, b, out=x)`` (a NumPy ufunc writing its result into the array
    ``x``, by keyword or as the extra positional argument) as ``x[...] = np.f(a, b)``: the
    write the analysis checks (into an array this function created, `analysis.aliasing`) and
    batches as any other. Python computes the same values: the ufunc's result written into
    all of ``x`` (``x[...] = v`` casts where ``out=`` refuses a cast to another kind, float
    into int: the analysis refuses such a write of the engine's, `analysis.aliasing`). Only
    a call whose value is thrown away, with ``out`` a plain name and no ``where=`` (a masked
    write) or other option."""
    calls = [n.value for n in by_type(tree).get(cst.Expr, ()) if type(n.value) is cst.Call]
    if not calls:
        return tree
    from .liveness import bound_names
    assigned = bound_names(tree)

    def ufunc_of(node):
        import numpy as np
        value = _dotted_value(node, func, imports, assigned)
        return value if isinstance(value, np.ufunc) else None

    def written(call):
        """(the call without its ``out``, the name written into) or None."""
        fn = ufunc_of(call.func)
        if fn is None or fn.nout != 1 or any(a.star for a in call.args):
            return None
        positional = [a for a in call.args if a.keyword is None]
        keywords = [a for a in call.args if a.keyword is not None]
        if len(positional) == fn.nin + 1 and not keywords:
            out, args = positional[-1].value, positional[:-1]
        elif len(positional) == fn.nin and [a.keyword.value for a in keywords] == ["out"]:
            out, args = keywords[0].value, positional
        else:
            return None
        if type(out) is cst.Tuple and len(out.elements) == 1:
            out = out.elements[0].value
        if type(out) is not cst.Name:
            return None
        args = list(args)
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return call.with_changes(args=args), out

    if not any(written(c) for c in calls):
        return tree

    class Lower(cst.CSTTransformer):
        def leave_Expr(self, original_node, updated_node):
            if type(updated_node.value) is not cst.Call:
                return updated_node
            found = written(updated_node.value)
            if found is None:
                return updated_node
            value, out = found
            target = cst.Subscript(out, [cst.SubscriptElement(cst.Index(cst.Ellipsis()))])
            return cst.Assign([cst.AssignTarget(target)], value)

    return rewrite(tree, Lower())


# ------------------------------------------------------------- in-place function forms


def _dotted_value(node, func, imports: dict, assigned) -> object | None:
    """The object a dotted name (``np.add``, ``torch.clamp_min_``) of ``func``'s body stands
    for: its root an import of the body or a global ``func`` reads, never a name the body
    binds; None where it is not one or is not found."""
    names = []
    while type(node) is cst.Attribute:
        names.append(node.attr.value)
        node = node.value
    if type(node) is not cst.Name or node.value in assigned:
        return None
    found, value, _ = (True, imports[node.value], "import") \
        if node.value in imports else lookup(func, node.value)
    if not found:
        return None
    for name in reversed(names):
        value = getattr(value, name, None)
    return value



def in_place_functions_as_methods(tree: cst.FunctionDef, func, imports: dict) -> cst.FunctionDef:
    """``torch.clamp_min_(x, v)`` (a ``torch`` function that changes its first argument in
    place: its name ends in ``_`` and tensors have the method of that name) as the method
    call ``x.clamp_min_(v)``, which PyTorch defines as the same operation: the analysis
    checks and batches the in-place method (`analysis.aliasing`)."""
    calls = [n for n in by_type(tree).get(cst.Call, ())
             if type(n.func) is cst.Attribute and n.func.attr.value.endswith("_")
             and not n.func.attr.value.endswith("__")]
    if not calls:
        return tree
    from .backends import in_place_method
    from .liveness import bound_names
    assigned = bound_names(tree)

    def in_place(node) -> bool:
        value = _dotted_value(node, func, imports, assigned)
        return value is not None and in_place_method(value) == node.attr.value

    def method_call(call):
        if not call.args or call.args[0].keyword is not None or call.args[0].star or \
                not in_place(call.func):
            return None
        rest = list(call.args[1:])
        if rest:
            rest[-1] = rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        base = call.args[0].value
        if type(base) not in (cst.Name, cst.Attribute, cst.Subscript, cst.Call):
            base = base.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]) \
                if not base.lpar else base
        return call.with_changes(func=cst.Attribute(base, call.func.attr), args=rest)

    if not any(method_call(c) for c in calls):
        return tree

    class Lower(cst.CSTTransformer):
        def leave_Call(self, original_node, updated_node):
            return method_call(updated_node) or updated_node

    return rewrite(tree, Lower())


# ------------------------------------------------------------- local dicts, per-example keys

LOOKUP_KEYS = 32
"""Keys of a local dict whose lookups by a per-example key `local_dict_lookups` writes out."""


def local_dict_lookups(tree: cst.FunctionDef, func) -> cst.FunctionDef:
    """``d[k]`` with a key that may differ per example, of a dict the function builds
    itself: ``d = {0: a, 1: a * 2, 2: -a}`` (or a comprehension written out as that
    display), bound once by a statement of the function's own body, its keys int or string
    literals (at most `LOOKUP_KEYS`), never written into, rebound, deleted or handed to
    anything (only its items read, ``d[...]`` or ``d.get(k, default)``). Each such read, in
    a statement after the binding one and outside conditional expressions, ``and``/``or``
    and nested scopes, is
    the lookup Python makes, one key at a time, written before its statement line (or the
    ``if`` whose test it is; ``d.get(k, default)`` too, its ``else`` the default):

        key = i % 3                 # (evaluated once)
        if key == 0:
            found = d[0]
        elif key == 1:
            found = d[1]
        ...
        else:
            raise KeyError(key)

    and the read becomes ``found``. Python finds a key equal to the one looked up (``1.0``
    finds ``1``, NaN nothing; a string only a string), which is the chain of ``==`` tests;
    the constant-key reads are then the local dict's (`passes.local_dicts`). The lookup
    comes first within its statement (as `sums_as_loops` computes its sums)."""
    if cst.Dict not in by_type(tree):
        return tree
    from .body_constructs.closures import in_conditional
    body = tree.body.body
    tables: dict = {}
    for index, stmt in enumerate(body):
        if type(stmt) is cst.SimpleStatementLine and len(stmt.body) == 1 and type(
                stmt.body[0]) is cst.Assign and len(stmt.body[0].targets) == 1 and type(
                stmt.body[0].targets[0].target) is cst.Name and type(
                stmt.body[0].value) is cst.Dict:
            keys = _literal_keys(stmt.body[0].value)
            name = stmt.body[0].targets[0].target.value
            tables[name] = None if name in tables or keys is None else (index, keys,
                                                                          stmt.body[0])
    tables = {k: v for k, v in tables.items() if v is not None}
    if not tables:
        return tree
    params = all_names(tree.params)
    reads: dict = {name: [] for name in tables}
    binding = {id(v[2].targets[0].target) for v in tables.values()}
    subscripted = {}
    for n in walk(tree):
        if type(n) is cst.Subscript and type(n.value) is cst.Name and n.value.value in tables:
            subscripted[id(n.value)] = n
        elif type(n) is cst.Call and type(n.func) is cst.Attribute and type(
                n.func.value) is cst.Name and n.func.value.value in tables and \
                n.func.attr.value == "get" and len(n.args) == 2 and all(
                    a.keyword is None and not a.star for a in n.args):
            subscripted[id(n.func.value)] = n       # `d.get(key, default)`
    written = set()
    for n in walk(tree):
        if type(n) in (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.Del) or type(
                n) in (cst.For, cst.CompFor, cst.NamedExpr, cst.AsName):
            target = getattr(n, "target", None) or getattr(n, "name", None)
            for m in walk(target) if target is not None else ():
                if type(m) is cst.Name and m.value in tables and id(m) not in binding:
                    written.add(m.value)
    for n in walk(tree):
        if type(n) is cst.Name and n.value in tables and id(n) not in binding:
            if id(n) not in subscripted:
                written.add(n.value)        # handed, iterated, a method: left as it is
            else:
                reads[n.value].append(subscripted[id(n)])
    for name in list(tables):
        if name in written or name in params or type(tables[name][2].targets[0]) is not \
                cst.AssignTarget:
            del tables[name]
    if not tables:
        return tree
    # the reads by a key that is not a literal, by statement: (statement, its index in the
    # body, the reads in it)
    candidates = {id(n): n for name in tables for n in reads[name]
                  if type(n) is cst.Call and _key_of(n.args[0].value) is _NO_KEY
                  or type(n) is cst.Subscript and _literal_key(n) is _NO_KEY
                  and len(n.slice) == 1 and type(n.slice[0].slice) is cst.Index
                  and n.slice[0].slice.star is None}
    if not candidates:
        return tree
    elifs = {id(n.orelse) for n in walk(tree) if type(n) is cst.If and type(n.orelse) is cst.If}
    lines: dict = {}
    for index, top in enumerate(body):
        for line in walk(top):
            if type(line) is cst.SimpleStatementLine:
                part = line
            elif type(line) is cst.If and id(line) not in elifs:
                part = line.test
            else:
                continue
            found = [n for n in walk(part) if id(n) in candidates
                     and index > tables[_table_of(n)][0] and not in_conditional(part, n)]
            # (one lookup inside another's key: the outer one is left as it is)
            found = [n for n in found if not any(m is not n and any(n is x for x in walk(m))
                                                 for m in found)]
            if found:
                lines[id(line)] = found
    if not lines:
        return tree
    taken = Namer(all_names(tree))
    return rewrite(tree, _Lookups(lines, {k: v[1] for k, v in tables.items()}, taken))


_NO_KEY = object()


def _table_of(read) -> str:
    """The dict's name of ``d[k]`` or ``d.get(k, default)``."""
    return read.func.value.value if type(read) is cst.Call else read.value.value


def _literal_key(node):
    """The key of ``d[<int or string literal>]`` (a `cst.Subscript`), else `_NO_KEY`."""
    if len(node.slice) != 1 or type(node.slice[0].slice) is not cst.Index:
        return _NO_KEY
    return _key_of(node.slice[0].slice.value)


def _key_of(node):
    value = _literal_int(node)
    if value is not None:
        return value
    if type(node) is cst.SimpleString:
        return node.evaluated_value
    return _NO_KEY


def _literal_keys(display: cst.Dict):
    keys = []
    for e in display.elements:
        if type(e) is not cst.DictElement:
            return None
        key = _key_of(e.key)
        if key is _NO_KEY or type(key) is bytes:
            return None
        keys.append((key, e.key))
    unique = list({k: node for k, node in keys}.items())
    if not unique or len(unique) > LOOKUP_KEYS:
        return None
    return unique


class _Lookups(cst.CSTTransformer):
    def __init__(self, lines, keys, taken):
        self.lines = lines
        self.keys = keys
        self.taken = taken
        self.replacements: dict = {}

    def _chain(self, read) -> list:
        name = _table_of(read)
        got = type(read) is cst.Call
        key = read.args[0].value if got else read.slice[0].slice.value
        out = []
        if type(key) is not cst.Name or got:
            fresh = self.taken.fresh("key")
            out.append(_assign(fresh, key))
            key = cst.Name(fresh)
        found = self.taken.fresh("found")
        # (a fresh node at each use: the engine keeps facts by node)
        if got:
            # `.get`: the default evaluated after the key, as the call's arguments are
            default = self.taken.fresh("default")
            out.append(_assign(default, read.args[1].value))
            chain = cst.Else(cst.IndentedBlock([_assign(found, cst.Name(default))]))
        else:
            chain = cst.Else(cst.IndentedBlock([_line(cst.Raise(cst.Call(
                cst.Name("KeyError"), [cst.Arg(key.deep_clone())])))]))
        for _key, node in reversed(self.keys[name]):
            chain = cst.If(_compare(key.deep_clone(), cst.Equal(), node.deep_clone()),
                           cst.IndentedBlock([
                _assign(found, cst.Subscript(cst.Name(name), [cst.SubscriptElement(
                    cst.Index(node.deep_clone()))]))]), orelse=chain)
        out.append(chain)
        self.replacements[id(read)] = cst.Name(found)
        return out

    def _replaced(self, node):
        replacements = self.replacements

        class Replace(cst.CSTTransformer):
            def leave_Subscript(self, original_node, updated_node):
                return replacements.get(id(original_node), updated_node)

            def leave_Call(self, original_node, updated_node):
                return replacements.get(id(original_node), updated_node)
        return node.visit(Replace())

    def leave_SimpleStatementLine(self, original_node, updated_node):
        mine = self.lines.get(id(original_node))
        if not mine:
            return updated_node
        prologue = [s for read in mine for s in self._chain(read)]
        return cst.FlattenSentinel([*prologue, self._replaced(original_node)])

    def leave_If(self, original_node, updated_node):
        mine = self.lines.get(id(original_node))
        if not mine:
            return updated_node
        prologue = [s for read in mine for s in self._chain(read)]
        return cst.FlattenSentinel([*prologue, updated_node.with_changes(
            test=self._replaced(original_node.test))])


def int_before_loop(tree: cst.FunctionDef, name: str, loop) -> cst.FunctionDef | None:
    """The function with ``name = 0`` just before ``loop`` (a node of ``tree``): a carry
    every example leaves the loop with as a Python int, never reading its value from before
    the loop (`analysis.interpreter.RetypedCarry`), is one from the start, as the batch
    must hold it (int64, not the join with an int32 it held before: no example sees that
    value). None where ``loop`` is not a statement of ``tree``."""
    line = cst.parse_statement(f"{name} = 0\n")
    found = []

    class Insert(cst.CSTTransformer):
        def leave_IndentedBlock(self, original_node, updated_node):
            if not any(stmt is loop for stmt in original_node.body):
                return updated_node
            found.append(loop)
            body = []
            for old, new in zip(original_node.body, updated_node.body):
                if old is loop:
                    body.append(line)
                body.append(new)
            return updated_node.with_changes(body=body)

    out = tree.visit(Insert())
    return out if found else None


def _exits(stmts) -> list:
    """The ``return`` statements in ``stmts`` (not those of nested functions) and the
    ``break``/``continue`` statements that leave a loop around them (not a nested one)."""
    out, stack = [], [(n, True) for n in stmts]
    while stack:
        n, loops = stack.pop()
        t = type(n)
        if t is cst.Return or (loops and t in (cst.Break, cst.Continue)):
            out.append(n)
            continue
        if t in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
            continue
        inner = loops and t not in (cst.For, cst.While)
        stack.extend((c, inner) for c in n.children)
    return out


def _finally_exits_own(final) -> bool:
    """Whether ``finally:`` itself leaves (``return``/``break``/``continue``: it would
    swallow an exception; kept as written for the analysis to refuse)."""
    return bool(_exits(final))


class _FinallyBeforeExits(cst.CSTTransformer):
    """A copy of the ``finally:`` statements before each exit (`_exits`) of a block; a
    ``return`` whose value the copy could change (it writes a name the value reads, or the
    value calls) is computed into a fresh name first."""

    def __init__(self, exits: list, final: list, taken):
        self.exits = exits
        self.final = final
        self.taken = taken

    def leave_SimpleStatementLine(self, original_node, updated_node):
        exit = next((small for small in original_node.body
                     if any(small is e for e in self.exits)), None)
        if exit is None:
            return updated_node
        copies = [s.deep_clone() for s in self.final]
        value = getattr(exit, "value", None)
        written = set()
        for stmt in self.final:
            written |= writes(stmt)
        if value is None or type(value) in (cst.Integer, cst.Float, cst.Name) and (
                type(value) is not cst.Name or value.value not in written):
            return cst.FlattenSentinel([*copies, updated_node])
        name = self.taken.fresh("result")
        line = updated_node.with_changes(body=[updated_node.body[0].with_changes(
            value=cst.Name(name))])
        return cst.FlattenSentinel([
            _assign(name, updated_node.body[0].value).with_changes(
                leading_lines=updated_node.leading_lines), *copies,
            line.with_changes(leading_lines=())])


def _return_in_else(node: cst.Try, taken):
    """``try: B; return e`` with handlers and no ``else:`` as ``try: B; r = e`` and ``else:
    return r`` (the same paths: ``else:`` runs when the body completes; an exception in ``e``
    still reaches the handlers), so that the ``finally:`` copy before the ``return`` is outside
    the handlers' reach. None where the body leaves elsewhere."""
    body = list(node.body.body)
    last = body[-1]
    exits = _exits(body)
    if node.orelse is not None or type(last) is not cst.SimpleStatementLine or len(
            last.body) != 1 or type(last.body[0]) is not cst.Return or len(exits) != 1 or \
            last.body[0].value is None:
        return None
    name = taken.fresh("result")
    body[-1] = _assign(name, last.body[0].value).with_changes(leading_lines=last.leading_lines)
    back = last.with_changes(body=[last.body[0].with_changes(value=cst.Name(name))],
                             leading_lines=())
    return node.with_changes(body=node.body.with_changes(body=body),
                             orelse=cst.Else(body=cst.IndentedBlock([back])))


def finally_as_statements(tree: cst.FunctionDef, origins: dict | None = None) -> cst.FunctionDef:
    """``try: B except ...: H else: E finally: F`` as the ``try`` without ``finally``, then
    ``F``; a copy of ``F`` before each ``return``/``break``/``continue`` leaving ``B``, ``H``
    or ``E``. Python runs ``F`` on every path out of the ``try``; an exception leaving it
    raises for the batch (which the per-example loop then replays: ``F`` runs there as
    written). Kept as written (refused) where ``F`` itself leaves, or where ``B`` leaves
    other than by its last ``return e`` and has handlers (a copy of ``F`` there would be
    inside the handlers' reach; the last one moves to ``else:``, `_return_in_else`).
    ``origins``: each new ``try`` -> the user's, where refusals of it are located."""
    tries = [t for t in by_type(tree).get(cst.Try, ()) if t.finalbody is not None]
    if not tries:
        return tree
    taken = Namer(all_names(tree))
    # a `try ... finally` in the body of a `try` with handlers: what its body raises is
    # caught there, after `F` ran; written as `B; F`, `F` would be skipped
    caught = {id(inner) for outer in by_type(tree).get(cst.Try, ()) if outer.handlers
              for inner in walk(outer.body) if type(inner) is cst.Try and
              inner.finalbody is not None}

    def kept(made, original):
        if origins is not None and made is not original:
            origins[made] = original
        return made

    class Lower(cst.CSTTransformer):
        def leave_Try(self, original_node, updated_node):
            final = updated_node.finalbody
            if final is None or _finally_exits_own(final.body.body) or \
                    id(original_node) in caught:
                return kept(updated_node, original_node)
            stmts = list(final.body.body)
            if updated_node.handlers and _exits(updated_node.body.body):
                moved = _return_in_else(updated_node, taken)
                if moved is None:
                    return kept(updated_node, original_node)
                updated_node = moved
            if any(len(line.body) > 1 for line in walk(updated_node)
                   if type(line) is cst.SimpleStatementLine):
                return kept(updated_node, original_node)
            parts = [updated_node.body, *(h.body for h in updated_node.handlers)]
            if updated_node.orelse is not None:
                parts.append(updated_node.orelse.body)
            exits = [e for part in parts for e in _exits(part.body)]
            lower = _FinallyBeforeExits(exits, stmts, taken)
            if updated_node.handlers:
                lowered = updated_node.with_changes(finalbody=None)
                head = [kept(rewrite(lowered, lower) if exits else lowered, original_node)]
            else:
                block = rewrite(updated_node.body, lower) if exits else updated_node.body
                head = list(block.body)
                if head:
                    head[0] = head[0].with_changes(leading_lines=updated_node.leading_lines)
            last = head[-1] if head else None
            if type(last) is cst.SimpleStatementLine and type(last.body[-1]) in (
                    cst.Return, cst.Raise, cst.Break, cst.Continue):
                return cst.FlattenSentinel(head)       # (F already ran before it, or raised)
            return cst.FlattenSentinel(head + stmts)

    return rewrite(tree, Lower())


# ------------------------------------------------------------ items picked per example

_DEFERRED_PARTS = (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp,
                   cst.IfExp, cst.BooleanOperation, cst.NamedExpr, cst.FunctionDef,
                   cst.ClassDef)


def pick_item(tree: cst.FunctionDef, node: cst.Subscript, length: int, origins=None):
    """``seq[k]`` (``node``) of a tuple or list of ``length`` per-example values with a
    per-example integer ``k`` as statements before the line that holds it: the sequence and
    the index evaluated once, in Python's order, then ``if k == 0 or k == -length: item =
    seq[0]`` / ``elif``... / ``else: raise IndexError``, and the line with ``item`` in its
    place (a choice per example between the items, merged as any ``if``; Python's negative
    indexes and IndexError). None where the subscript is not in a simple statement of its
    own line or the test of an ``if`` (not an ``elif``), or is under an operand Python
    evaluates on some examples only (a lambda, a comprehension, a conditional expression,
    ``and``/``or``), or ``length`` is 0. ``origins`` (the source's) gets the statements made,
    located at the user's."""
    if not length:
        return None
    path = _path_to(tree, node)
    if path is None:
        return None
    line = next((p for p in reversed(path) if isinstance(p, cst.BaseStatement)), None)
    if type(line) is cst.If:
        # (its test only, and not an `elif`, whose test Python evaluates after the others)
        k = path.index(line)
        if path[k + 1] is not line.test or type(path[k - 1]) in (cst.If, cst.Else):
            return None
    elif type(line) is not cst.SimpleStatementLine or len(line.body) != 1 or type(
            line.body[0]) not in (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Return,
                                  cst.Expr):
        return None
    below = path[path.index(line) + 1:]
    for part, child in zip(below, below[1:]):
        # (the left of `and`/`or` and the test of a conditional expression run on every
        # example; their other operands on some only)
        if type(part) is cst.BooleanOperation and child is part.left or \
                type(part) is cst.IfExp and child is part.test:
            continue
        if type(part) in _DEFERRED_PARTS:
            return None
    namer = Namer(all_names(tree))
    seq, index, item = (namer.fresh(n) for n in ("picked_from", "picked_at", "picked"))
    stmts = [_assign(seq, node.value), _assign(index, node.slice[0].slice.value)]
    branch = cst.Else(cst.IndentedBlock([_line(cst.Raise(cst.Call(
        cst.Name("IndexError"), [cst.Arg(cst.SimpleString("'tuple index out of range'"))])))]))
    for k in reversed(range(length)):
        test = _bool_chain([_compare(cst.Name(index), cst.Equal(), cst.Integer(str(k))),
                            _compare(cst.Name(index), cst.Equal(),
                                     cst.UnaryOperation(cst.Minus(),
                                                        cst.Integer(str(length - k))))],
                           cst.Or())
        body = cst.IndentedBlock([_assign(item, cst.Subscript(cst.Name(seq), [
            cst.SubscriptElement(cst.Index(cst.Integer(str(k))))]))])
        branch = cst.If(test, body, orelse=branch)
    stmts.append(branch)

    class Replace(cst.CSTTransformer):
        def leave_Subscript(self, original_node, updated_node):
            return cst.Name(item) if original_node is node else updated_node

    stmts.append(rewrite(line, Replace()))
    if origins is not None:
        # (located where the user's statement is; the rest of the tree keeps its nodes)
        for stmt in stmts:
            origins[stmt] = line

    class Splice(cst.CSTTransformer):
        def leave_SimpleStatementLine(self, original_node, updated_node):
            return cst.FlattenSentinel(stmts) if original_node is line else updated_node

        def leave_If(self, original_node, updated_node):
            return cst.FlattenSentinel(stmts) if original_node is line else updated_node

    return rewrite(tree, Splice())


def comprehension_items(tree: cst.FunctionDef, node: cst.ListComp, length: int, origins=None):
    """``[e for t in seq]`` (``node``: one ``for`` of a name or a tuple of names, no ``if``)
    over a sequence of ``length`` items the analysis found the same on every example (per
    example values; ``range(N)``, a module's tuple; items that unpack into the names), written
    out: ``seq`` evaluated once before the line
    that holds it, then the display ``[e(t=seq_items[0]), e(t=seq_items[1]), ...]``, whose
    items Python evaluates in the comprehension's order. None where the line is not one
    `pick_item` rewrites, the comprehension sits under an operand Python evaluates on some
    examples only, or ``e`` holds a scope of its own (a lambda, a comprehension) or binds
    a name (a walrus: the comprehension's own scope would not leak it)."""
    target = node.for_in.target
    if not length or type(node) is not cst.ListComp or not (
            type(target) is cst.Name or type(target) is cst.Tuple and all(
                type(e) is cst.Element and type(e.value) is cst.Name
                for e in target.elements)) or node.for_in.ifs or \
            node.for_in.inner_for_in is not None:
        return None
    if any(type(n) in (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp,
                       cst.NamedExpr) for n in walk(node.elt)):
        return None
    path = _path_to(tree, node)
    if path is None:
        return None
    line = next((p for p in reversed(path) if isinstance(p, cst.BaseStatement)), None)
    if type(line) is not cst.SimpleStatementLine or len(line.body) != 1 or type(
            line.body[0]) not in (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Return,
                                  cst.Expr):
        return None
    below = path[path.index(line) + 1:-1]
    for part, child in zip(below, below[1:] + [node]):
        if type(part) is cst.BooleanOperation and child is part.left or \
                type(part) is cst.IfExp and child is part.test:
            continue
        if type(part) in _DEFERRED_PARTS:
            return None
    # each name of the target -> its position in the item (None: the item itself)
    names = {target.value: None} if type(target) is cst.Name else {
        e.value.value: j for j, e in enumerate(target.elements)}
    if len(names) != (1 if type(target) is cst.Name else len(target.elements)):
        return None
    seq = Namer(all_names(tree)).fresh("comprehended")

    class Substitute(cst.CSTTransformer):
        def __init__(self, k):
            self.k = k

        def visit_Attribute(self, n):       # (`x.t`: not the name `t`)
            return False

        def leave_Attribute(self, original_node, updated_node):
            return updated_node.with_changes(value=original_node.value.visit(self))

        def visit_Arg(self, n):             # (`f(t=1)`: a keyword, not the name)
            return False

        def leave_Arg(self, original_node, updated_node):
            return updated_node.with_changes(value=original_node.value.visit(self))

        def leave_Name(self, original_node, updated_node):
            if updated_node.value not in names:
                return updated_node
            item = cst.Subscript(cst.Name(seq), [cst.SubscriptElement(
                cst.Index(cst.Integer(str(self.k))))])
            j = names[updated_node.value]
            return item if j is None else cst.Subscript(item, [cst.SubscriptElement(
                cst.Index(cst.Integer(str(j))))])

    items = [cst.Element(node.elt.deep_clone().visit(Substitute(k))) for k in range(length)]
    display = cst.List(items)

    class Replace(cst.CSTTransformer):
        def leave_ListComp(self, original_node, updated_node):
            return display if original_node is node else updated_node

    stmts = [_assign(seq, node.for_in.iter), rewrite(line, Replace())]
    if origins is not None:
        for stmt in stmts:
            origins[stmt] = line
        origins[display] = node

    class Splice(cst.CSTTransformer):
        def leave_SimpleStatementLine(self, original_node, updated_node):
            return cst.FlattenSentinel(stmts) if original_node is line else updated_node

    return rewrite(tree, Splice())


_MASK_PARTS = (cst.Name, cst.UnaryOperation, cst.BinaryOperation, cst.Comparison, cst.Integer,
               cst.Float)
_ELEMENTWISE_PARTS = (cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.BinaryOperation,
                      cst.UnaryOperation, cst.Call, cst.Attribute, cst.Subscript)


def masked_scalar_write(tree: cst.FunctionDef, node: cst.Subscript, resolve, origins=None):
    """``a[m] = e`` (or ``a[m] += e``...) where ``node`` is ``a[m]`` or a read ``x[m]`` in
    ``e``, of per-example 0-d values and a per-example truth value ``m`` (the analysis
    checked those of ``node``): ``if m: a[()] = e'``, ``e'`` with every ``x[m]`` (the same
    text ``m``) read as ``x[()]``. Per example ``x[m]`` holds no item or ``x``'s one, and the
    write stores into ``a`` only where ``m`` holds; so where every operation on such a read
    is arithmetic (no ``@``) or a NumPy ufunc (``resolve`` finds the function: a value of
    the module) of positional arguments (``x[()]`` of a Python number raises TypeError, as
    ``x[m]`` does: `passes.python_raises`), ``e`` on the one item
    is ``e'``'s value; ``e'`` is computed on every example before the ``if`` (Python
    computes the right side before the write; on the reads by the mask, NumPy values, it
    raises nothing) (pymap3d's ``Beta[~ibad] = atan(huE[~ibad] / u[~ibad] * z[~ibad] /
    hxy[~ibad])``). ``a`` must be bound only to NumPy's array makers (`_always_an_array`)
    and ``m`` read names only
    (``~``, ``&``, ``|``, comparisons: evaluating it once is evaluating it each time).
    None for anything else."""
    import numpy as np

    from .liveness import bound_names
    path = _path_to(tree, node)
    if path is None:
        return None
    line = next((p for p in reversed(path) if isinstance(p, cst.BaseStatement)), None)
    if type(line) is not cst.SimpleStatementLine or len(line.body) != 1:
        return None
    small = line.body[0]
    if type(small) is cst.Assign and len(small.targets) == 1:
        target = small.targets[0].target
    elif type(small) is cst.AugAssign and type(small.operator) is not cst.MatrixMultiplyAssign:
        target = small.target
    else:
        return None
    code = cst.Module([]).code_for_node

    def mask_of(sub):
        if type(sub) is not cst.Subscript or len(sub.slice) != 1 or type(
                sub.slice[0].slice) is not cst.Index or type(sub.value) is not cst.Name:
            return None
        return sub.slice[0].slice.value

    mask = mask_of(target)
    if mask is None or mask_of(node) is None or code(mask_of(node)) != code(mask) or any(
            isinstance(n, cst.BaseExpression) and type(n) not in _MASK_PARTS
            for n in walk(mask)) or any(type(n) is cst.MatrixMultiply for n in walk(mask)):
        return None
    text = code(mask)
    local = bound_names(tree)
    if not _always_an_array(tree, target.value.value, resolve, path):
        return None

    def ufunc(func) -> bool:
        names = []
        while type(func) is cst.Attribute:
            names.append(func.attr.value)
            func = func.value
        if type(func) is not cst.Name or func.value in local:
            return False
        found, value, _scope = resolve(func.value)
        for attr in reversed(names):
            if not found:
                return False
            try:
                value = getattr(value, attr)
            except AttributeError:
                return False
        return found and isinstance(value, np.ufunc)

    value = small.value
    funcs = {id(n.func) for n in walk(value) if type(n) is cst.Call}
    # (the masks themselves: checked as text equal to `m`)
    masks = {id(x) for n in walk(value) if type(n) is cst.Subscript
             for x in walk(n.slice[0].slice)}
    for n in walk(value):
        if not isinstance(n, cst.BaseExpression) or id(n) in funcs or id(n) in masks:
            continue
        if type(n) not in _ELEMENTWISE_PARTS:
            return None
        if type(n) is cst.Subscript:
            m = mask_of(n)
            if m is None or code(m) != text:
                return None
        elif type(n) is cst.Call:
            if not ufunc(n.func) or any(a.keyword is not None or a.star for a in n.args):
                return None
        elif type(n) is cst.BinaryOperation and type(n.operator) is cst.MatrixMultiply:
            return None
        elif type(n) is cst.Attribute and any(
                type(x) is cst.Subscript for x in walk(n.value)):
            return None         # (`x[m].shape`: the selection's, not the item's)
    if any(id(n.func) in funcs and any(type(x) is cst.Subscript for x in walk(n.func))
           for n in walk(value) if type(n) is cst.Call):
        return None

    class Reads(cst.CSTTransformer):
        # (`x[()]`: `x` itself where it is a NumPy value; a Python number's TypeError)
        def leave_Subscript(self, original_node, updated_node):
            made = updated_node.with_changes(slice=[cst.SubscriptElement(cst.Index(
                cst.Tuple([])))])
            if origins is not None:
                origins[made] = origins.get(original_node, original_node)
            return made

    # (the value on every example, as Python computes the whole right side before the
    # write: only its reads by the mask, NumPy values, are computed where it selects none)
    computed = Namer(all_names(tree)).fresh("masked_value")
    first = _assign(computed, value.visit(Reads()))
    item = cst.Subscript(target.value, [cst.SubscriptElement(cst.Index(cst.Tuple([])))])
    if type(small) is cst.Assign:
        made = small.with_changes(targets=[small.targets[0].with_changes(target=item)],
                                  value=cst.Name(computed))
    else:
        made = small.with_changes(target=item, value=cst.Name(computed))
    stmt = cst.SimpleStatementLine([made])
    branch = cst.If(mask.deep_clone(), cst.IndentedBlock([stmt]))
    if origins is not None:
        origins[first] = line
        origins[stmt] = line
        origins[branch] = line

    class Splice(cst.CSTTransformer):
        def leave_SimpleStatementLine(self, original_node, updated_node):
            return cst.FlattenSentinel([first, branch]) if original_node is line \
                else updated_node

    return rewrite(tree, Splice())


_ARRAY_MAKERS = ("empty_like", "zeros_like", "ones_like", "full_like", "asarray", "array",
                 "empty", "zeros", "ones", "full")


def _always_an_array(tree: cst.FunctionDef, name: str, resolve, path=()) -> bool:
    """Whether every binding of ``name`` in ``tree`` is ``name = f(...)`` with ``f`` one of
    NumPy's functions that return an array (a 0-d one too, never a NumPy scalar, which
    has no items to write: ``np.float64(x).copy()[m] = v`` raises TypeError). Where
    ``path`` (from ``tree`` down to the write) is in the body of a `try` and in no loop,
    the handlers of that `try` run only after the write, and their bindings are not read
    there (pymap3d's ``except NameError:`` that binds ``Beta`` for the code without
    NumPy)."""
    import numpy as np
    if name in {p.name.value for p in tree.params.params}:
        return False
    makers = {id(getattr(np, f)) for f in _ARRAY_MAKERS}
    after = set()
    if not any(type(p) in (cst.For, cst.While) for p in path):
        for k, p in enumerate(path[:-1]):
            if type(p) is cst.Try and path[k + 1] is p.body:
                after |= {id(x) for h in p.handlers for x in walk(h)}
    found = False
    for n in walk(tree.body):
        if id(n) in after:
            continue
        if type(n) is cst.Assign:
            for t in n.targets:
                if type(t.target) is cst.Name and t.target.value == name:
                    call = n.value
                    if len(n.targets) != 1 or type(call) is not cst.Call:
                        return False
                    func, attrs = call.func, []
                    while type(func) is cst.Attribute:
                        attrs.append(func.attr.value)
                        func = func.value
                    if type(func) is not cst.Name:
                        return False
                    ok, value, _scope = resolve(func.value)
                    for attr in reversed(attrs):
                        value = getattr(value, attr, None)
                    if not ok or id(value) not in makers:
                        return False
                    found = True
                elif name in target_names(t.target):
                    return False
        elif type(n) in (cst.AugAssign, cst.AnnAssign) and type(n.target) is cst.Name and \
                n.target.value == name:
            return False
        elif type(n) is cst.For and name in target_names(n.target):
            return False
        elif type(n) is cst.NamedExpr and type(n.target) is cst.Name and \
                n.target.value == name:
            return False
        elif type(n) in (cst.WithItem, cst.ExceptHandler, cst.Global, cst.Nonlocal, cst.Del,
                         cst.Import, cst.ImportFrom, cst.FunctionDef, cst.ClassDef) and any(
                type(x) is cst.Name and x.value == name for x in walk(n)):
            return False
    return found


def _path_to(tree, target) -> list | None:
    """The nodes from ``tree`` down to ``target`` (by identity), or None."""
    found: list = []

    class Find(cst.CSTVisitor):
        def __init__(self):
            self.stack: list = []

        def on_visit(self, n):
            if found:
                return False
            self.stack.append(n)
            if n is target:
                found.extend(self.stack)
                return False
            return True

        def on_leave(self, original_node):
            if self.stack and self.stack[-1] is original_node:
                self.stack.pop()

    tree.visit(Find())
    return found or None


def unroll_items(tree: cst.FunctionDef, iterable, length: int, origins=None):
    """``for target in seq: body`` (``iterable`` is ``seq``'s node) over a tuple or list of
    ``length`` per-example values, written out: ``seq`` evaluated once, then ``target =
    seq[0]``, the body, ``target = seq[1]``, the body... as Python runs it. None where the
    loop has an ``else``, a ``break`` or ``continue`` of its own, or its body defines a
    function or class (made once per pass in Python)."""
    path = _path_to(tree, iterable)
    if path is None or len(path) < 2 or type(path[-2]) is not cst.For:
        return None
    loop = path[-2]
    if loop.iter is not iterable or loop.orelse is not None or loop.asynchronous or \
            _own_breaks(loop.body) or any(
                type(n) in (cst.Continue, cst.FunctionDef, cst.ClassDef, cst.Lambda)
                for n in _jumps_of(loop.body)):
        return None
    seq = Namer(all_names(tree)).fresh("items")
    stmts = [_assign(seq, iterable)]
    for k in range(length):
        stmts.append(_line(cst.Assign([cst.AssignTarget(loop.target.deep_clone())],
                                      cst.Subscript(cst.Name(seq), [cst.SubscriptElement(
                                          cst.Index(cst.Integer(str(k))))]))))
        stmts.extend(stmt.deep_clone() for stmt in loop.body.body)
    if origins is not None:
        for stmt in stmts:
            origins.setdefault(stmt, loop)

    class Splice(cst.CSTTransformer):
        def leave_For(self, original_node, updated_node):
            return cst.FlattenSentinel(stmts) if original_node is loop else updated_node

    return rewrite(tree, Splice())


def _jumps_of(node):
    """The nodes of ``node`` outside the loops nested in it (whose ``continue`` is theirs),
    and the functions and classes anywhere in it."""
    stack = list(node.children)
    while stack:
        n = stack.pop()
        yield n
        if type(n) not in (cst.For, cst.While):
            stack.extend(n.children)
        else:
            stack.extend(x for x in walk(n) if type(x) in (cst.FunctionDef, cst.ClassDef,
                                                           cst.Lambda))


def membership_as_comparisons(tree: cst.FunctionDef, node: cst.Comparison, literals,
                              as_bool: bool, origins=None):
    """``x in C`` (``node``) as ``(x == c0 or x == c1 ...)`` and ``x not in C`` as ``(x !=
    c0 and x != c1 ...)``, ``literals`` the source texts of ``C``'s items that can equal
    ``x`` (`analysis.expressions.MembershipOfNumbers`): the comparisons Python makes, in
    ``bool(...)`` outside a test where ``as_bool`` (``bool`` is the builtin)."""
    inside = type(node.comparisons[0].operator) is cst.In
    compare = cst.Equal() if inside else cst.NotEqual()
    parts = [_compare(node.left, compare, cst.parse_expression(text)) for text in literals]
    chain = _bool_chain(parts, cst.Or() if inside else cst.And())
    if id(node) not in truth_tests(tree) and as_bool:
        # `in` gives a Python bool; `==` of NumPy scalars (`vmap`) a NumPy bool, which adds
        # as a bool (`membership_as_equality`)
        chain = cst.Call(cst.Name("bool"), [cst.Arg(chain.with_changes(lpar=[], rpar=[]))])
    chain = chain.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    if origins is not None:
        origins.setdefault(chain, node)

    class Replace(cst.CSTTransformer):
        def leave_Comparison(self, original_node, updated_node):
            return chain if original_node is node else updated_node

    return rewrite(tree, Replace())


def spread_items(tree: cst.FunctionDef, starred: cst.Arg, length: int, origins=None):
    """``f(*t)`` (``starred`` is ``*t``, ``t`` a name) as ``f(t[0], t[1], ...)``: a name
    read once per item is the same tuple, and ``*`` passes its items in order
    (`analysis.calls.SpreadItems`)."""
    items = [cst.Arg(cst.Subscript(cst.Name(starred.value.value), [cst.SubscriptElement(
        cst.Index(cst.Integer(str(k))))])) for k in range(length)]

    class Spread(cst.CSTTransformer):
        def leave_Call(self, original_node, updated_node):
            if not any(a is starred for a in original_node.args):
                return updated_node
            args = []
            for old, new in zip(original_node.args, updated_node.args):
                args.extend(items if old is starred else [new])
            if origins is not None:
                origins.setdefault(updated_node, original_node)
            return updated_node.with_changes(args=[
                a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in args])

    return rewrite(tree, Spread())
