"""Loops over examples at call sites: one batched call instead of one call per example.

A loop is rewritten when it calls a rewritten ``@vectorize`` function ``f`` once per item of a
sequence and does nothing else, so that the iterations are independent and the batched call
computes what the loop did:

====================================================  =========================================
``[f(x, b) for x in xs]``                             ``list(f(np.asarray(xs), b))``
``np.array([f(x, b) for x in xs])`` (``asarray``,     ``f(np.asarray(xs), b)``
``stack``)
``for x in xs:`` / ``out.append(f(x, b))``            ``out.extend(f(np.asarray(xs), b))``
``[g(u, v) for u, v in zip(U, V)]``                   ``list(g(U, V))``
``total = 0.0`` / ``for x in xs:`` / ``total += f(x)``
                                                      ``total = sum(f(np.asarray(xs)), total)``
====================================================  =========================================

(``np.asarray(xs)`` is ``xs`` where ``xs`` is known to be an array; ``range(n)`` becomes
``np.arange(n)``; ``*=`` becomes ``math.prod(..., start=total)``.) The conditions, each a
reason ``--explain`` gives when one fails:

- the sequence is provably an array or a list or tuple of numbers (`_Finder._numbers`): a
  module constant, a name set once from ``np.linspace``, ``np.arange``..., arithmetic,
  ``.reshape`` or slices of one, a display of numeric literals, ``range(...)``; never a
  parameter, generator, set or dict (one array of those is not the loop's items);
- the comprehension has one ``for`` over a plain name (or names over ``zip(...)`` of
  sequences provably of one length: zip stops at the shortest, the batched call would
  broadcast) and no ``if``; the ``for`` statement's body is that one ``append`` onto a list
  made empty just before it, or one ``total += f(...)`` onto a name set to a number just
  before it, with no ``else``, and the loop variables are not read after the loop;
- each argument is a loop variable itself, or does not mention one and has no call in it
  (it is evaluated once instead of once per example): names, constants, attributes,
  subscripts and arithmetic of those; a loop variable is passed at least once;
- ``f`` is a ``@vectorize`` function (broadcasting as numpy.vectorize does, its rewritten form
  takes the whole sequence where it took one item). A ``@vmap`` function is not: called on one
  example, it maps over that example's own axis.

Each call in the loop receives one item, each batched call all of them: the results are the
same numbers; the items of ``list(...)`` are NumPy scalars where the decorator gave 0-d
arrays. An empty sequence gives an empty result where ``np.stack`` raised.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst
import numpy as np
from libcst.metadata import MetadataWrapper, PositionProvider

from ..abstract import TupleValue
from ..liveness import all_names, target_names
from ..syntax.templates import bare_code
from ..syntax.traversal import walk
from .sequences import Scope, SequenceFacts

_ARRAY_CALLS = ("array", "asarray", "stack")


@dataclass
class Loop:
    """One loop over examples that calls a rewritten function per example."""

    line: int
    function: str
    before: str
    after: str = ""
    reason: str = ""                   # why it stays ("" when rewritten)
    imports: dict = field(default_factory=dict)

    @property
    def rewritten(self) -> bool:
        return not self.reason


def rewrite(module: cst.Module, functions: dict, namespace: dict, skip: set,
            alias: str = "np", array_module=np) -> tuple[cst.Module, list[Loop]]:
    """Rewrite the loops of ``module`` that call the functions ``functions`` (name -> `Plan`)
    per example. Top-level ``def`` s named in ``skip`` (the rewritten ones) are not looked
    into and stay the same objects."""
    if not functions:
        return module, []
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    finder = _Finder(functions, namespace, positions, module, alias, array_module)
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value in skip:
            continue
        finder.block_statement(stmt, [], Scope(None, set(), {}))
    if not finder.replacements:
        return module, finder.loops
    replacer = _Replace(finder.replacements)
    body = [stmt if isinstance(stmt, cst.FunctionDef) and stmt.name.value in skip
            else stmt.visit(replacer) for stmt in module.body]
    return module.with_changes(body=body), finder.loops


def _scope_of(function: cst.FunctionDef) -> Scope:
    counts: dict[str, list] = {}

    class Collect(cst.CSTVisitor):
        def visit_FunctionDef(self, node):
            return node is function

        def visit_ClassDef(self, node):
            return False

        def visit_Lambda(self, node):
            return False

        def visit_Param(self, node):
            counts.setdefault(node.name.value, []).append(None)

        def visit_Assign(self, node):
            for target in node.targets:
                for name in target_names(target.target):
                    counts.setdefault(name, []).append(
                        node.value if isinstance(target.target, cst.Name) else None)

        def visit_AugAssign(self, node):
            for name in target_names(node.target):
                counts.setdefault(name, []).append(None)

        def visit_AnnAssign(self, node):
            for name in target_names(node.target):
                counts.setdefault(name, []).append(node.value)

        def visit_For(self, node):
            for name in target_names(node.target):
                counts.setdefault(name, []).append(None)

        def visit_AsName(self, node):
            for name in target_names(node.name):
                counts.setdefault(name, []).append(None)

        def visit_NamedExpr(self, node):
            for name in target_names(node.target):
                counts.setdefault(name, []).append(None)

    function.visit(Collect())
    # names bound by `import`, `def`, `class`, `global` inside count as local too
    for node in walk(function.body):
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            counts.setdefault(node.name.value, []).append(None)
        elif isinstance(node, cst.ImportAlias):
            name = node.asname.name if node.asname else node.name
            while isinstance(name, cst.Attribute):
                name = name.value
            if isinstance(name, cst.Name):
                counts.setdefault(name.value, []).append(None)
    single = {name: values[0] for name, values in counts.items()
              if len(values) == 1 and values[0] is not None}
    return Scope(function, set(counts), single)


class _Finder(SequenceFacts):
    def __init__(self, functions, namespace, positions, module, alias, array_module=np):
        self.functions = functions
        self.namespace = namespace
        self.positions = positions
        self.module = module
        self.alias = alias
        self.array_module = array_module      # the module `alias` stands for
        self.replacements: dict[int, cst.CSTNode] = {}   # id(original node) -> new node
        self.loops: list[Loop] = []
        # module-level names bound once, by an assignment the skeleton did not run
        # (`ROWS = np.arange(12.0).reshape(4, 3)`), and what they are bound to
        bound: dict[str, int] = {}
        for stmt in module.body:
            for name in _bound_by(stmt):
                bound[name] = bound.get(name, 0) + 1
        rebound = {name for n in walk(module) if isinstance(n, cst.Global)
                   for name in (item.name.value for item in n.names)}
        self.module_single = {
            stmt.body[0].targets[0].target.value: stmt.body[0].value
            for stmt in module.body if isinstance(stmt, cst.SimpleStatementLine)
            and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign)
            and len(stmt.body[0].targets) == 1
            and isinstance(stmt.body[0].targets[0].target, cst.Name)
            and bound.get(stmt.body[0].targets[0].target.value) == 1
            and stmt.body[0].targets[0].target.value not in rebound}
        self.module_scope = Scope(None, set(), {})

    # -------------------------------------------------------------------- statements
    def block_statement(self, stmt, rest: list, scope: Scope) -> None:
        """Look at ``stmt`` (followed, in its scope, by ``rest``) and what it holds."""
        if isinstance(stmt, cst.FunctionDef):
            inner = _scope_of(stmt)
            self.expressions(stmt.params, scope)
            self.block(list(stmt.body.body) if isinstance(stmt.body, cst.IndentedBlock)
                       else [stmt.body], [], inner)
            return
        if isinstance(stmt, cst.ClassDef):
            self.block(list(stmt.body.body), [], Scope(stmt, set(), {}))
            return
        if isinstance(stmt, cst.SimpleStatementLine):
            self.expressions(stmt, scope)
            return
        if isinstance(stmt, cst.For):
            self.for_loop(stmt, rest, scope)
            self.expressions(stmt.iter, scope)
            self.block(_body(stmt.body), _body(stmt.body) + rest, scope)
            if stmt.orelse is not None:
                self.block(_body(stmt.orelse.body), rest, scope)
            return
        if isinstance(stmt, cst.While):
            self.expressions(stmt.test, scope)
            self.block(_body(stmt.body), _body(stmt.body) + [stmt] + rest, scope)
            if stmt.orelse is not None:
                self.block(_body(stmt.orelse.body), rest, scope)
            return
        if isinstance(stmt, cst.If):
            self.expressions(stmt.test, scope)
            self.block(_body(stmt.body), rest, scope)
            if stmt.orelse is not None:
                self.block_statement(stmt.orelse, rest, scope)
            return
        if isinstance(stmt, cst.Else):
            self.block(_body(stmt.body), rest, scope)
            return
        if isinstance(stmt, cst.With):
            for item in stmt.items:
                self.expressions(item, scope)
            self.block(_body(stmt.body), rest, scope)
            return
        if isinstance(stmt, (cst.Try, cst.TryStar)):
            self.block(_body(stmt.body), rest, scope)
            for handler in stmt.handlers:
                self.block(_body(handler.body), rest, scope)
            for part in (stmt.orelse, stmt.finalbody):
                if part is not None:
                    self.block(_body(part.body), rest, scope)
            return
        self.expressions(stmt, scope)

    def block(self, stmts: list, rest: list, scope: Scope) -> None:
        for i, stmt in enumerate(stmts):
            self.block_statement(stmt, stmts[i + 1:] + rest, scope)

    # ---------------------------------------------------------------- comprehensions
    def expressions(self, node, scope: Scope) -> None:
        """The comprehensions in ``node`` (not in nested blocks, which `block` visits)."""
        wrapped: dict[int, cst.Call] = {}
        for part in _walk_expressions(node):
            if isinstance(part, cst.Call) and self._array_call(part, scope):
                wrapped[id(part.args[0].value)] = part
        for part in _walk_expressions(node):
            if isinstance(part, cst.ListComp):
                self.comprehension(part, wrapped.get(id(part)), scope)

    def _array_call(self, call: cst.Call, scope: Scope) -> bool:
        """``np.array(<one comprehension>)`` (or ``asarray``, ``stack``) without options."""
        if len(call.args) != 1 or call.args[0].keyword is not None or call.args[0].star:
            return False
        if not isinstance(call.args[0].value, cst.ListComp):
            return False
        return any(self._is_numpy(call.func, name, scope) for name in _ARRAY_CALLS)

    def _is_numpy(self, node, name: str, scope: Scope) -> bool:
        return (isinstance(node, cst.Attribute) and node.attr.value == name
                and isinstance(node.value, cst.Name) and node.value.value not in scope.local
                and self.namespace.get(node.value.value) is np)

    def comprehension(self, comp: cst.ListComp, array_call, scope: Scope) -> None:
        call = comp.elt
        name = self._called(call, scope)
        if name is None:
            return
        outer = array_call if array_call is not None else comp
        loop = Loop(self._line(outer), name, bare_code(outer))
        target = comp.for_in
        items = self._items(target.target, target.iter, scope)
        if not set(items) & all_names(call):
            return      # not a loop over examples of this call
        self.loops.append(loop)
        reason = items.get(None)
        if target.inner_for_in is not None or target.ifs or target.asynchronous:
            reason = "the comprehension has more than one `for`, an `if` or `async`"
        batched = reason is None and self._batched_call(call, items, scope, loop)
        if batched is None or batched is False:
            loop.reason = loop.reason or reason
            return
        new = batched if array_call is not None else cst.Call(
            cst.Name("list"), [cst.Arg(batched)])
        self._replace(outer, new, loop)

    def _items(self, target, iterable, scope: Scope) -> dict:
        """Loop variable -> the sequence of its items: ``x`` of ``for x in xs``, and ``a``,
        ``b`` of ``for a, b in zip(A, B)`` (under the key None, why such a loop cannot be one
        call: zip stops at the shortest sequence, where the batched call would broadcast
        them)."""
        if isinstance(target, cst.Name):
            return {target.value: iterable}
        if not (isinstance(target, (cst.Tuple, cst.List)) and isinstance(iterable, cst.Call)
                and isinstance(iterable.func, cst.Name) and iterable.func.value == "zip"
                and "zip" not in scope.local and "zip" not in self.namespace):
            return {}
        names = [e.value.value for e in target.elements if isinstance(e.value, cst.Name)]
        args = [a for a in iterable.args if a.keyword is None]
        if len(names) != len(target.elements) or len(args) != len(names) or any(
                a.star for a in iterable.args) or any(
                a.keyword is not None and a.keyword.value != "strict" for a in iterable.args):
            return {}
        items = {name: arg.value for name, arg in zip(names, args)}
        lengths = {self._length(arg.value, scope) for arg in args}
        if len({bare_code(arg.value) for arg in args}) > 1 and (
                len(lengths) != 1 or None in lengths):
            items[None] = (f"`{bare_code(iterable)}` stops at the shortest of its sequences, "
                           "and the rewriter cannot prove they have one length (the batched "
                           "call would broadcast them instead)")
        return items

    def for_loop(self, loop_node: cst.For, rest: list, scope: Scope) -> None:
        body = _body(loop_node.body)
        calls = [n for n in walk(loop_node.body) if isinstance(n, cst.Call)
                 and self._called(n, scope) is not None]
        items = self._items(loop_node.target, loop_node.iter, scope)
        calls = [c for c in calls if set(items) & all_names(c)]
        if not calls:
            return
        name = self._called(calls[0], scope)
        header = bare_code(loop_node.target) + " in " + bare_code(loop_node.iter)
        loop = Loop(self._line(loop_node), name, f"for {header}: ...")
        self.loops.append(loop)
        append = _single_append(body)
        total = _single_accumulation(body) if append is None else None
        if append is None and total is None and _indexed_store(body):
            target = bare_code(body[0].body[0].targets[0].target)
            loop.reason = (f"it stores into `{target}`: indexed loops are left as they are "
                           "(the rewriter cannot see that the arrays it reads and writes have "
                           "the loop's length)")
            return
        if loop_node.orelse is not None or loop_node.asynchronous or (
                append is None and total is None):
            loop.reason = ("the loop's body does more than `out.append(f(...))` or "
                           "`total += f(...)` (or it has an `else`): its iterations may "
                           "depend on each other")
            return
        out, call = append or total[::2]
        if items.get(None):
            loop.reason = items[None]
            return
        if out in all_names(call) or out in all_names(loop_node.iter):
            loop.reason = f"the loop reads `{out}`, the {'list' if append else 'total'} " \
                          f"it {'appends to' if append else 'accumulates'}"
            return
        if append is not None and not self._fresh_list_before(out, loop_node, scope):
            loop.reason = (f"`{out}` is not a list made empty (`{out} = []`) just before the "
                           "loop")
            return
        if total is not None:
            reason = self._fresh_total_before(out, loop_node, scope, total[1])
            if reason:
                loop.reason = reason
                return
        for variable in filter(None, items):
            if _read_after(variable, rest):
                loop.reason = f"`{variable}` is read after the loop, where it holds the last item"
                return
        batched = self._batched_call(call, items, scope, loop)
        if batched is None:
            return
        if append is not None:
            value = cst.Call(cst.Attribute(cst.Name(out), cst.Name("extend")),
                             [cst.Arg(batched)])
            small = cst.Expr(value)
        else:
            # in the loop's order (`sum(items, start)` adds one by one from the start, as
            # the loop does), so that the total is the same to the last bit
            small = cst.Assign([cst.AssignTarget(cst.Name(out))], cst.Call(
                cst.Name("sum"), [cst.Arg(batched), cst.Arg(cst.Name(out))])
                if total[1] == "+" else cst.Call(
                    cst.Attribute(cst.Name("math"), cst.Name("prod")),
                    [cst.Arg(batched), cst.Arg(cst.Name(out), keyword=cst.Name("start"),
                                               equal=cst.AssignEqual(
                                                   cst.SimpleWhitespace(""),
                                                   cst.SimpleWhitespace("")))]))
            if total[1] == "*":
                import math
                loop.imports["math"] = math
        new = cst.SimpleStatementLine([small], leading_lines=loop_node.leading_lines)
        self._replace(loop_node, new, loop)

    def _fresh_total_before(self, out: str, loop_node, scope: Scope, operator: str):
        """Why ``out`` cannot be the total of one call ("" where it can): the statement before
        ``loop_node`` in its block that mentions it must set it to a number (a literal, so
        that it is no array the loop changes in place), and ``sum`` (``math`` for ``*=``)
        must be the builtin (the module)."""
        helper = "sum" if operator == "+" else "math"
        if helper in scope.local or self.namespace.get(helper, _BUILTIN_OR_MATH[helper]) \
                is not _BUILTIN_OR_MATH[helper] or helper not in self.namespace and any(
                    helper in _bound_by(stmt) for stmt in self.module.body):
            return f"`{helper}` is not {'the builtin' if helper == 'sum' else 'the module'} here"
        block = self._enclosing_block(loop_node, scope)
        index = next((i for i, s in enumerate(block or ()) if s is loop_node), None)
        for stmt in reversed(block[:index] if index is not None else []):
            if out not in all_names(stmt):
                continue
            if (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
                    and isinstance(stmt.body[0], cst.Assign) and len(stmt.body[0].targets) == 1
                    and isinstance(stmt.body[0].targets[0].target, cst.Name)
                    and stmt.body[0].targets[0].target.value == out
                    and self._is_number(stmt.body[0].value, Scope(None, set(), {}))):
                return ""
            break
        return (f"`{out}` is not set to a number (`{out} = 0.0`) just before the loop: it may "
                "be an array the loop changes in place")

    def _fresh_list_before(self, out: str, loop_node, scope: Scope) -> bool:
        """Whether the statement before ``loop_node`` in its block that mentions ``out`` is
        ``out = []`` (or ``list()``)."""
        block = self._enclosing_block(loop_node, scope)
        if block is None:
            return False
        index = next(i for i, s in enumerate(block) if s is loop_node)
        for stmt in reversed(block[:index]):
            if out not in all_names(stmt):
                continue
            if (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
                    and isinstance(stmt.body[0], cst.Assign) and len(stmt.body[0].targets) == 1
                    and isinstance(stmt.body[0].targets[0].target, cst.Name)
                    and stmt.body[0].targets[0].target.value == out):
                value = stmt.body[0].value
                return (isinstance(value, cst.List) and not value.elements
                        or isinstance(value, cst.Call) and isinstance(value.func, cst.Name)
                        and value.func.value == "list" and not value.args
                        and "list" not in scope.local)
            return False
        return False

    def _enclosing_block(self, node, scope: Scope):
        root = scope.node if scope.node is not None else self.module
        for candidate in walk(root):
            body = getattr(candidate, "body", None)
            if isinstance(body, (list, tuple)) and any(s is node for s in body):
                return list(body)
        return None

    # ----------------------------------------------------------------------- shared
    def _called(self, call, scope: Scope) -> str | None:
        """The rewritten function ``call`` calls, if it is a call of one."""
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Name):
            return None
        name = call.func.value
        if name not in self.functions or name in scope.local:
            return None
        return name

    def _batched_call(self, call: cst.Call, items: dict, scope: Scope, loop: Loop):
        """The batched call for a loop's call, or None (with ``loop.reason``); ``items``:
        loop variable -> the sequence of its items (`_items`)."""
        plan = self.functions[call.func.value]
        if plan.kind != "vectorize":
            loop.reason = (f"`{plan.name}` is a @vmap function: called on one example, it maps "
                           "over that example's own axis, so the loop is not a loop over "
                           "examples of it")
            return None
        if isinstance(plan.result, TupleValue):
            loop.reason = (f"`{plan.name}` returns a tuple: the loop collects one tuple per "
                           "example, the batched call one array per item of the tuple")
            return None
        positional = [p for p in plan.params if p not in plan.keyword_only]
        args = []
        passed = False
        for index, arg in enumerate(call.args):
            if arg.star:
                loop.reason = "the call unpacks arguments (`*`, `**`)"
                return None
            param = arg.keyword.value if arg.keyword is not None else (
                positional[index] if index < len(positional) else None)
            mentions = bool(set(items) & all_names(arg.value))
            if isinstance(arg.value, cst.Name) and arg.value.value in items:
                if param not in plan.batched:
                    loop.reason = (f"the loop variable goes to `{param}`, which "
                                   f"`{plan.name}` does not batch")
                    return None
                passed = True
                args.append(arg.with_changes(value=self._sequence(items[arg.value.value],
                                                                  scope, loop)))
                if loop.reason:
                    return None
            elif mentions:
                loop.reason = (f"the argument `{bare_code(arg.value)}` computes something from "
                               "the loop variable; pass the variable itself (and move the "
                               f"computation into `{plan.name}`)")
                return None
            elif any(isinstance(n, (cst.Call, cst.Await, cst.Yield, cst.NamedExpr, cst.Lambda,
                                    cst.ListComp, cst.GeneratorExp, cst.DictComp, cst.SetComp))
                     for n in walk(arg.value)):
                loop.reason = (f"the argument `{bare_code(arg.value)}` is evaluated once per "
                               "example in the loop (it holds a call); compute it before the "
                               "loop")
                return None
            elif param in plan.batched and not self._is_number(arg.value, scope):
                loop.reason = (f"`{bare_code(arg.value)}` goes to `{param}`, which "
                               f"`{plan.name}` batches, and may not be one number: each call "
                               "in the loop broadcasts it against one item, the batched call "
                               f"against all of them; exclude `{param}` "
                               f"(`@vectorize(excluded={{'{param}'}})`) or pass a number")
                return None
            else:
                args.append(arg)
        if not passed:
            loop.reason = "no argument is the loop variable"
            return None
        loop.imports = {self.alias: self.array_module}
        return call.with_changes(args=args)

    def _sequence(self, iterable, scope: Scope, loop: Loop):
        """The array of the loop's items."""
        if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name) and \
                iterable.func.value == "range" and "range" not in scope.local \
                and "range" not in self.namespace:
            return iterable.with_changes(func=cst.Attribute(cst.Name(self.alias),
                                                            cst.Name("arange")))
        kind = self._numbers(iterable, scope)
        if kind is None:
            loop.reason = (f"the loop goes over `{bare_code(iterable)}`, which the rewriter "
                           "cannot prove is an array or a list or tuple of numbers (a "
                           "generator, set, dict or strings would give another answer or fail "
                           "as one array); make it one before the loop "
                           f"(`{self.alias}.asarray(...)`, `{self.alias}.linspace(...)`)")
            return iterable
        if kind == "array":
            return iterable
        return cst.Call(cst.Attribute(cst.Name(self.alias), cst.Name("asarray")),
                        [cst.Arg(iterable)])

    def _replace(self, node, new, loop: Loop) -> None:
        self.replacements[id(node)] = new
        loop.after = bare_code(new) if not isinstance(new, cst.SimpleStatementLine) else \
            self.module.code_for_node(new).strip()

    def _line(self, node) -> int:
        position = self.positions.get(node)
        return position.start.line if position is not None else 0


_BUILTIN_OR_MATH = {"sum": sum, "math": __import__("math")}


def _bound_by(stmt) -> set:
    """Names a module-level statement binds (assignments, ``def``, ``class``, imports)."""
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
        return {stmt.name.value}
    names: set = set()
    for node in walk(stmt):
        if isinstance(node, cst.AssignTarget):
            names |= set(target_names(node.target))
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
            names |= set(target_names(node.target))
        elif isinstance(node, cst.ImportAlias):
            name = node.asname.name if node.asname else node.name
            while isinstance(name, cst.Attribute):
                name = name.value
            if isinstance(name, cst.Name):
                names.add(name.value)
    return names


def _single_accumulation(body: list):
    """(total, operator, call) if the body is exactly ``total += call``, ``total *= call``,
    ``total = total + call`` or ``total = total * call``."""
    if len(body) != 1 or not isinstance(body[0], cst.SimpleStatementLine) or len(
            body[0].body) != 1:
        return None
    small = body[0].body[0]
    if isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name) and \
            isinstance(small.operator, (cst.AddAssign, cst.MultiplyAssign)):
        operator = "+" if isinstance(small.operator, cst.AddAssign) else "*"
        total, call = small.target.value, small.value
    elif isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(
            small.targets[0].target, cst.Name) and isinstance(small.value, cst.BinaryOperation) \
            and isinstance(small.value.operator, (cst.Add, cst.Multiply)) and isinstance(
                small.value.left, cst.Name) \
            and small.value.left.value == small.targets[0].target.value:
        operator = "+" if isinstance(small.value.operator, cst.Add) else "*"
        total, call = small.targets[0].target.value, small.value.right
    else:
        return None
    return (total, operator, call) if isinstance(call, cst.Call) else None


def _body(block) -> list:
    return list(block.body) if isinstance(block, cst.IndentedBlock) else [block]


def _single_append(body: list):
    """(list name, call) if the body is exactly ``name.append(call)``."""
    if len(body) != 1 or not isinstance(body[0], cst.SimpleStatementLine) or len(
            body[0].body) != 1 or not isinstance(body[0].body[0], cst.Expr):
        return None
    call = body[0].body[0].value
    if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
            and call.func.attr.value == "append" and isinstance(call.func.value, cst.Name)
            and len(call.args) == 1 and call.args[0].keyword is None and not call.args[0].star
            and isinstance(call.args[0].value, cst.Call)):
        return None
    return call.func.value.value, call.args[0].value


def _indexed_store(body: list) -> bool:
    """Whether the body is one ``out[...] = ...``."""
    return (len(body) == 1 and isinstance(body[0], cst.SimpleStatementLine)
            and len(body[0].body) == 1 and isinstance(body[0].body[0], cst.Assign)
            and isinstance(body[0].body[0].targets[0].target, cst.Subscript))


def _read_after(variable: str, rest: list) -> bool:
    """Whether ``variable`` may be read in ``rest`` before it is set again."""
    for stmt in rest:
        if variable not in all_names(stmt) or not _mentions(stmt, variable):
            continue
        if (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
                and isinstance(stmt.body[0], cst.Assign)
                and any(isinstance(t.target, cst.Name) and t.target.value == variable
                        for t in stmt.body[0].targets)
                and variable not in all_names(stmt.body[0].value)):
            return False
        if isinstance(stmt, cst.For) and isinstance(stmt.target, cst.Name) \
                and stmt.target.value == variable and variable not in all_names(stmt.iter):
            return False
        return True
    return False


_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)


def _mentions(node, variable: str) -> bool:
    """Whether ``variable`` appears in ``node`` other than as the variable of a comprehension
    that binds it (``[g(x) for x in xs]`` after a loop over ``x`` reads its own ``x``)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, cst.Name) and n.value == variable:
            return True
        if isinstance(n, _COMPREHENSIONS) and variable in target_names(n.for_in.target):
            stack.append(n.for_in.iter)     # evaluated outside the comprehension
            continue
        stack.extend(n.children)
    return False


def _walk_expressions(node):
    """The nodes of ``node`` outside nested blocks, functions and lambdas."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        for child in n.children:
            if isinstance(child, (cst.IndentedBlock, cst.FunctionDef, cst.ClassDef,
                                  cst.Lambda)):
                continue
            stack.append(child)


class _Replace(cst.CSTTransformer):
    def __init__(self, replacements):
        self.replacements = replacements

    def on_leave(self, original_node, updated_node):
        new = self.replacements.get(id(original_node))
        return updated_node if new is None else new
