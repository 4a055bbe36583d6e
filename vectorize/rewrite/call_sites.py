"""Loops over examples at call sites: one batched call instead of one call per example.

A loop is rewritten when it calls a rewritten ``@vectorize`` function ``f`` once per item of a
sequence and does nothing else, so that the iterations are independent and the batched call
computes what the loop did (the same values, of the same types; docs/cli.md):

====================================================  =========================================
``[f(x, b) for x in xs]``, ``list(map(f, xs))``       ``list(f(np.asarray(xs), b))``
``np.array([f(x, b) for x in xs])`` (``asarray``,     ``f(np.asarray(xs), b)``, or
``stack``)                                            ``np.array(f(...))`` (`returns_new_array`)
``for x in xs:`` / ``out.append(f(x, b))``            ``out.extend(f(np.asarray(xs), b))``
``[g(u, v) for u, v in zip(U, V)]``                   ``list(g(U, V))``
``total = 0.0`` / ``for x in xs:`` / ``total += f(x)``
                                                      ``total = sum(f(np.asarray(xs)), total)``
``best = -np.inf`` / ``for x in xs:`` /               ``best = max([best, *f(np.asarray(xs))])``
``best = max(best, f(x))``
====================================================  =========================================

(``np.asarray(xs)`` is ``xs`` where ``xs`` is known to be an array; ``range(n)`` becomes
``np.arange(n)``; ``*=`` becomes ``math.prod(..., start=total)``; the additions and
comparisons stay the loop's, in its order.) The conditions, each a reason ``--explain`` gives
when one fails:

- the sequence is provably an array or a list or tuple of numbers (`SequenceFacts._numbers`):
  a module constant, a name set once from ``np.linspace``, ``np.arange``..., arithmetic,
  ``.reshape`` or slices of one, a display of numeric literals (a local list only where
  nothing changes it in place), ``range(...)``; never a parameter, generator, set or dict
  (one array of those is not the loop's items), nor an enclosing function's name;
- its items have the dtype the parameter is rewritten for (`SequenceFacts._item_dtype`; else
  a warning, or an error where they are visibly strings or None: `_Finder._check_items`);
  the items of an array are NumPy scalars, which the decorator hands on as they are: the
  call (in the loop, or batched) goes to the function's version for them where its code
  differs (``f_numpy``, `module._Functions.numpy_version`);
- the call binds the function's parameters (for no items the loop makes no call at all);
- the comprehension has one ``for`` over a plain name (or names over ``zip(...)`` of
  sequences provably of one length: zip stops at the shortest, the batched call would
  broadcast) and no ``if``; the ``for`` statement's body is that one ``append`` onto a list
  made empty just before it, or one accumulation onto a name set to a number just before
  it, with no ``else``, not inside a ``try`` or a ``with`` that may swallow an exception, and
  the loop variables are not read after the loop (nor by a function of its scope);
- each argument is a loop variable itself, or does not mention one and has no call in it
  (it is evaluated once instead of once per example): names, constants, attributes,
  subscripts and arithmetic of those; a loop variable is passed at least once;
- ``f`` is a ``@vectorize`` function (broadcasting as numpy.vectorize does, its rewritten form
  takes the whole sequence where it took one item). A ``@vmap`` function is not: called on one
  example, it maps over that example's own axis.

Each call in the loop receives one item, each batched call all of them: the results are the
same numbers of the same dtype; the items of ``list(...)`` are NumPy scalars where the
decorator gave 0-d arrays.
"""

from __future__ import annotations

import ast
import inspect
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
    # what the file would do wrong whatever becomes of the loop: the rewritten function
    # gets items it is not specialized for (numbers of another dtype: a warning; strings,
    # None: an error, the file is not rewritten), with the column of the call
    warning: str = ""
    error: str = ""
    at: tuple = (0, 0)                 # (line, column) of the call
    # the version of the function it calls for the NumPy scalars it passes (the items of an
    # array), where that is not the function itself (`module._Functions.numpy_version`)
    numpy_name: str = ""

    @property
    def rewritten(self) -> bool:
        return not self.reason


def rewrite(module: cst.Module, functions: dict, namespace: dict, skip: set,
            alias: str = "np", array_module=np,
            numpy_version=None) -> tuple[cst.Module, list[Loop]]:
    """Rewrite the loops of ``module`` that call the functions ``functions`` (name -> `Plan`)
    per example. Top-level ``def`` s named in ``skip`` (the rewritten ones) are not looked
    into and stay the same objects. ``numpy_version(name, params)``: (name, Plan) of the
    version of ``name`` for calls that pass ``params`` NumPy scalars, or None."""
    if not functions:
        return module, []
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    finder = _Finder(functions, namespace, positions, module, alias, array_module)
    finder.numpy_version = numpy_version
    for i, stmt in enumerate(module.body):
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value in skip:
            continue
        # what follows at module level may read a loop's variable after it
        finder.block_statement(stmt, list(module.body[i + 1:]), Scope(None, set(), {}))
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
    # a name a nested function rebinds (`nonlocal`), or a list the function may change in
    # place (`xs.append(...)`, `xs[0] = ...`, passing it to a call) is not what it was set to
    for node in walk(function.body):
        if isinstance(node, cst.Nonlocal):
            for item in node.names:
                single.pop(item.name.value, None)
    mutable = {name for name, value in single.items() if isinstance(value, cst.List)}
    for name in _changed_lists(mutable, function.body, 1):
        del single[name]
    return Scope(function, set(counts), single)


def _changed_lists(names: set, root, assignments: int) -> set:
    """Those of the lists ``names`` that the code under ``root`` may change in place: it does
    more with them than loop over them and take their ``len`` (``xs.append(3)``, ``xs[0] =
    ...``, passing them to a call, another name for them); ``assignments``: the uses of each
    that are its own assignment. For a module (``root``), a function's own local of the name
    is not the module's list."""
    if not names:
        return set()
    uses, reads = _list_uses(names, root)
    inner: set = set()
    for node in walk(root):
        if isinstance(node, cst.FunctionDef) and node is not root and id(node) not in inner \
                and isinstance(root, cst.Module):
            local = names & _scope_of(node).local
            if local and not any(isinstance(n, cst.Global) for n in walk(node)):
                inner.update(id(n) for n in walk(node))
                own_uses, own_reads = _list_uses(local, node)
                for name in local:
                    uses[name] -= own_uses[name]
                    reads[name] -= own_reads[name]
    return {name for name in names if uses[name] > reads[name] + assignments}


def _list_uses(names: set, root) -> tuple[dict, dict]:
    uses = {name: 0 for name in names}
    reads = {name: 0 for name in names}
    for node in walk(root):
        if isinstance(node, cst.Name) and node.value in uses:
            uses[node.value] += 1
        elif isinstance(node, (cst.For, cst.CompFor)) and isinstance(
                node.iter, cst.Name) and node.iter.value in reads:
            reads[node.iter.value] += 1
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and \
                node.func.value == "len" and len(node.args) == 1 and isinstance(
                    node.args[0].value, cst.Name) and node.args[0].value.value in reads:
            reads[node.args[0].value.value] += 1
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and \
                node.func.value in ("map", "zip", "enumerate"):
            # (they only iterate over it; where the name is not the builtin, no loop over
            # it is rewritten: `_map_as_comprehension`, `_items`, `_check_only`)
            for arg in node.args[1 if node.func.value == "map" else 0:]:
                if arg.keyword is None and not arg.star and isinstance(arg.value, cst.Name) \
                        and arg.value.value in reads:
                    reads[arg.value.value] += 1
    return uses, reads


class _Finder(SequenceFacts):
    def __init__(self, functions, namespace, positions, module, alias, array_module=np):
        self.functions = functions
        self.namespace = namespace
        self.positions = positions
        self.module = module
        self.alias = alias
        self.array_module = array_module      # the module `alias` stands for
        self.numpy_version = None
        self.numpy_plans: dict = {}           # name of a version for NumPy scalars -> Plan
        self.scalar_params: dict = {}         # id(call) -> its parameters NumPy scalars go to
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
        # module-level lists the file's code may change in place (a function's
        # `VALUES.append("a")`: the skeleton, which runs no function, holds the list as set)
        self.changed_lists = _changed_lists(
            {name for name, value in namespace.items() if type(value) is list}, module, 1)

    # -------------------------------------------------------------------- statements
    def block_statement(self, stmt, rest: list, scope: Scope) -> None:
        """Look at ``stmt`` (followed, in its scope, by ``rest``) and what it holds."""
        if isinstance(stmt, cst.FunctionDef):
            inner = _scope_of(stmt)
            if scope.node is not None and not isinstance(scope.node, cst.ClassDef):
                # the enclosing function's names are not the module's: unknown here
                inner = Scope(inner.node, inner.local | scope.local, inner.single)
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
            elif isinstance(part, cst.Call):
                comp = self._map_as_comprehension(part, scope)
                if comp is not None:
                    self.comprehension(comp, None, scope, outer=part)
            elif isinstance(part, cst.GeneratorExp):
                self._generator(part, scope)

    def _generator(self, gen: cst.GeneratorExp, scope: Scope) -> None:
        """A generator expression stays as it is (its items are made as they are asked
        for); its items are checked as a loop's are (`_check_items`), for the warning or
        error the rewritten function's specialization calls for."""
        name = self._called(gen.elt, scope)
        if name is None or gen.for_in.inner_for_in is not None:
            return
        loop = Loop(self._line(gen), name, bare_code(gen))
        self._check_only(gen.elt, gen.for_in.target, gen.for_in.iter, scope, loop,
                         "a generator expression stays as it is")

    def _check_only(self, call, target, iterable, scope: Scope, loop: Loop,
                    reason: str = "") -> None:
        """`_check_items` of a loop that stays as it is (a generator expression; ``i, x``
        over ``enumerate(xs)``: ``x`` takes the items of ``xs``), recorded where it warns."""
        items = self._items(target, iterable, scope)
        if (not items and isinstance(target, cst.Tuple) and len(target.elements) == 2
                and isinstance(target.elements[1].value, cst.Name)
                and isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name)
                and iterable.func.value == "enumerate" and len(iterable.args) == 1
                and iterable.args[0].keyword is None and not iterable.args[0].star
                and "enumerate" not in scope.local and "enumerate" not in self.namespace):
            items = {target.elements[1].value.value: iterable.args[0].value}
            reason = reason or f"the loop goes over `{bare_code(iterable)}`"
        if not set(items) & all_names(call):
            return
        self._check_items(call, items, scope, loop)
        if loop.warning or loop.error or loop.numpy_name:
            loop.reason = loop.reason or reason
            self.loops.append(loop)

    def _map_as_comprehension(self, call: cst.Call, scope: Scope):
        """``list(map(f, xs))`` (``map(f, A, B)``) as the comprehension it computes,
        ``[f(x) for x in xs]`` (over ``zip(A, B)``), where ``f`` is a rewritten function and
        ``list`` and ``map`` the builtins; else None."""
        if not (isinstance(call.func, cst.Name) and call.func.value == "list"
                and len(call.args) == 1 and call.args[0].keyword is None
                and not call.args[0].star and isinstance(call.args[0].value, cst.Call)):
            return None
        inner = call.args[0].value
        if not (isinstance(inner.func, cst.Name) and inner.func.value == "map"
                and len(inner.args) >= 2 and all(a.keyword is None and not a.star
                                                 for a in inner.args)
                and self._called(cst.Call(inner.args[0].value), scope) is not None
                and not self._shadowed("list", scope) and not self._shadowed("map", scope)):
            return None
        taken = all_names(call)
        names = [n for n in (f"item{i}" for i in range(len(inner.args) + len(taken)))
                 if n not in taken][:len(inner.args) - 1]
        sequences = [a.value for a in inner.args[1:]]
        if len(names) == 1:
            target, iterable = cst.Name(names[0]), sequences[0]
        else:
            target = cst.Tuple([cst.Element(cst.Name(n)) for n in names])
            iterable = cst.Call(cst.Name("zip"), [cst.Arg(s) for s in sequences])
        return cst.ListComp(cst.Call(inner.args[0].value, [cst.Arg(cst.Name(n))
                                                           for n in names]),
                            cst.CompFor(target=target, iter=iterable))

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

    def comprehension(self, comp: cst.ListComp, array_call, scope: Scope,
                      outer=None) -> None:
        call = comp.elt
        name = self._called(call, scope)
        if name is None:
            return
        outer = outer if outer is not None else array_call if array_call is not None else comp
        loop = Loop(self._line(outer), name, bare_code(outer))
        target = comp.for_in
        items = self._items(target.target, target.iter, scope)
        inner, bound = target.inner_for_in, set()
        while inner is not None:
            bound |= set(target_names(inner.target))
            inner = inner.inner_for_in
        if not (set(items) | bound) & all_names(call):
            self._check_only(call, target.target, target.iter, scope, loop)
            return      # not a loop over examples of this call
        self.loops.append(loop)
        self._check_items(call, items, scope, loop)
        reason = items.get(None)
        if target.inner_for_in is not None or target.ifs or target.asynchronous:
            reason = "the comprehension has more than one `for`, an `if` or `async`"
        batched = reason is None and not loop.reason and self._batched_call(
            call, items, scope, loop)
        if batched is None or batched is False:
            loop.reason = loop.reason or reason
            return
        if array_call is None:
            new = self._builtin_call("list", [cst.Arg(batched)], scope, loop)
        else:
            new = self._array_of(array_call, batched, comp, scope, loop)
        if new is not None:
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
        elif len({bare_code(arg.value) for arg in args}) > 1 and not self._one_rank(args, scope):
            # rows of a (3, 3) array zipped with the numbers of a (3,) one: the loop adds
            # V[i] to row i, the batched call would broadcast V along each row
            items[None] = (f"the rewriter cannot prove the sequences of `{bare_code(iterable)}` "
                           "have one number of dimensions: where one has rows and another "
                           "numbers, the batched call would broadcast the numbers along the "
                           "rows instead of pairing item with item")
        return items

    def _one_rank(self, args: list, scope: Scope) -> bool:
        ndims = {self._ndim(arg.value, scope) for arg in args}
        return len(ndims) == 1 and None not in ndims

    def for_loop(self, loop_node: cst.For, rest: list, scope: Scope) -> None:
        body = _body(loop_node.body)
        calls = [n for n in walk(loop_node.body) if isinstance(n, cst.Call)
                 and self._called(n, scope) is not None]
        items = self._items(loop_node.target, loop_node.iter, scope)
        header = bare_code(loop_node.target) + " in " + bare_code(loop_node.iter)
        if not any(set(items) & all_names(c) for c in calls):
            # (`for i, x in enumerate(xs):` stays a loop; its calls get the items of `xs`)
            for c in calls:
                self._check_only(c, loop_node.target, loop_node.iter, scope, Loop(
                    self._line(loop_node), self._called(c, scope), f"for {header}: ..."))
            return
        calls = [c for c in calls if set(items) & all_names(c)]
        name = self._called(calls[0], scope)
        loop = Loop(self._line(loop_node), name, f"for {header}: ...")
        self.loops.append(loop)
        self._check_items(calls[0], items, scope, loop)
        for other in calls[1:]:
            # each call the loop makes gets the items (the loop stays: see below)
            self._check_only(other, loop_node.target, loop_node.iter, scope, Loop(
                self._line(loop_node), self._called(other, scope), f"for {header}: ..."),
                "the loop's body does more than one call")
        if loop.reason:
            return
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
            loop.reason = ("the loop's body does more than `out.append(f(...))`, "
                           "`total += f(...)` or `best = max(best, f(...))` (or it has an "
                           "`else`): its iterations may depend on each other")
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
        catcher = self._catcher(loop_node, scope)
        if catcher:
            loop.reason = (f"the loop is inside {catcher}: where a call raises, the loop "
                           f"leaves `{out}` with the items before it, the batched call with "
                           "none of them")
            return
        for variable in filter(None, items):
            if _read_after(variable, rest):
                loop.reason = f"`{variable}` is read after the loop, where it holds the last item"
                return
            reader = self._read_by_function(variable, loop_node, scope)
            if reader:
                loop.reason = (f"`{variable}` is read by {reader}, which may run after the loop "
                               "and see the last item")
                return
        batched = self._batched_call(call, items, scope, loop)
        if batched is None:
            return
        if append is not None:
            value = cst.Call(cst.Attribute(cst.Name(out), cst.Name("extend")),
                             [cst.Arg(batched)])
            small = cst.Expr(value)
        elif total[1] in ("max", "min"):
            # `max([best, *items])` compares as the loop does: item by item from `best`,
            # keeping the first of equal ones (and `best` itself for no items)
            value = self._builtin_call(total[1], [cst.Arg(cst.List([
                cst.Element(cst.Name(out)), cst.StarredElement(batched)]))], scope, loop)
            if value is None:
                return
            small = cst.Assign([cst.AssignTarget(cst.Name(out))], value)
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

    def _read_by_function(self, variable: str, loop_node, scope: Scope) -> str:
        """A function or lambda in the loop's scope (the module, for a loop at module level)
        that reads ``variable`` as a name of that scope, in words; "" where none."""
        root = scope.node if scope.node is not None else self.module
        for node in walk(root):
            if node is root or node is loop_node:
                continue
            if isinstance(node, cst.FunctionDef) and variable not in _scope_of(node).local \
                    and _mentions(node.body, variable):
                return f"`{node.name.value}`"
            if isinstance(node, cst.Lambda) and variable not in {
                    p.name.value for p in node.params.params} and _mentions(node.body, variable):
                return "a lambda"
        return ""

    def _catcher(self, loop_node, scope: Scope) -> str:
        """The ``try`` or ``with`` (other than ones that never swallow an exception:
        ``np.errstate``, ``open``...) around ``loop_node`` in its function, as words; ""
        where none: then nothing reads the list or total a raising call leaves half made."""
        root = scope.node if scope.node is not None else self.module
        path = _path_to(root, loop_node)
        for node in path or ():
            if isinstance(node, (cst.Try, cst.TryStar)):
                return "a `try`"
            if isinstance(node, cst.With) and not all(
                    self._plain_context(item.item, scope) for item in node.items):
                return f"`with {bare_code(node.items[0].item)}`, which may swallow exceptions"
        return "" if path is not None else "code the rewriter cannot place"

    def _plain_context(self, expr, scope: Scope) -> bool:
        """A context manager that never swallows an exception: ``np.errstate(...)``,
        ``open(...)``, ``warnings.catch_warnings(...)``."""
        if not isinstance(expr, cst.Call):
            return False
        func = expr.func
        if isinstance(func, cst.Name):
            return func.value == "open" and "open" not in scope.local \
                and "open" not in self.namespace
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            module = self.namespace.get(func.value.value)
            return (module is np and func.attr.value == "errstate"
                    or getattr(module, "__name__", None) == "warnings"
                    and func.attr.value == "catch_warnings") \
                and func.value.value not in scope.local
        return False

    def _fresh_total_before(self, out: str, loop_node, scope: Scope, operator: str):
        """Why ``out`` cannot be the total of one call ("" where it can): the statement before
        ``loop_node`` in its block that mentions it must set it to a number (a literal, so
        that it is no array the loop changes in place), and ``sum`` (``math`` for ``*=``)
        must be the builtin (the module)."""
        helper = {"+": "sum", "*": "math"}.get(operator, operator)
        if self._shadowed(helper, scope):
            return f"`{helper}` is not {'the module' if helper == 'math' else 'the builtin'} here"
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

    def _shadowed(self, name: str, scope: Scope) -> bool:
        """Whether ``name`` may not be the builtin (the module, for ``math``) here."""
        return (name in scope.local or self.namespace.get(name, _BUILTIN_OR_MATH[name])
                is not _BUILTIN_OR_MATH[name] or name not in self.namespace and any(
                    name in _bound_by(stmt) for stmt in self.module.body))

    def _builtin_call(self, name: str, args: list, scope: Scope, loop: Loop):
        """``name(*args)`` where ``name`` is the builtin here, else None (with the reason)."""
        if self._shadowed(name, scope):
            loop.reason = (f"the batched call needs the builtin `{name}`, which this code "
                           "binds to something else")
            return None
        return cst.Call(cst.Name(name), args)

    def _array_of(self, array_call: cst.Call, batched, comp, scope: Scope, loop: Loop):
        """What replaces ``np.array([f(x) for x in xs])`` (``np.asarray``, ``np.stack``):
        the batched call where it gives a new array (`returns_new_array`), else a copy of it
        (``np.array(f(xs))``: ``f`` may return its argument itself, the loop's array was a new
        one); ``np.stack(f(xs))`` where ``xs`` may be empty (it raises as before). None
        where an empty sequence would give another array (``np.array([])`` is float64 of
        shape (0,), the batched call's of its own dtype and shape)."""
        function = array_call.func.attr.value
        plan = self.numpy_plans.get(loop.numpy_name) or self.functions[comp.elt.func.value]
        lengths = {self._length(arg, scope) for arg in self._sequences(comp)}
        not_empty = bool(lengths) and all(isinstance(n, int) and n > 0 for n in lengths)
        if function == "stack" and not not_empty:
            return array_call.with_changes(args=[cst.Arg(batched)])
        result = plan.result
        if not not_empty and not (getattr(result, "dtype", None) == np.float64
                                  and result.rank == 0 and all(
                                      self._one_dimensional(arg, scope)
                                      for arg in self._sequences(comp))):
            loop.reason = (f"`{bare_code(array_call.func)}([])` of no items is a float64 "
                           "array of shape (0,), the batched call's of none is of its own "
                           "dtype and shape (of the rows, where the items are rows), and the "
                           "rewriter cannot prove "
                           f"`{bare_code(comp.for_in.iter)}` is not empty")
            return None
        if plan.new_result:
            return batched
        return array_call.with_changes(
            func=array_call.func.with_changes(attr=cst.Name("array")), args=[cst.Arg(batched)])

    def _sequences(self, comp) -> list:
        iterable = comp.for_in.iter
        if isinstance(comp.for_in.target, cst.Name):
            return [iterable]
        return [a.value for a in iterable.args if a.keyword is None]

    def _check_items(self, call: cst.Call, items: dict, scope: Scope, loop: Loop) -> None:
        """Where the loop's items are numbers of another dtype than the parameter they go to
        is rewritten for (``range(3)`` to an unannotated ``x``), a warning; where they are
        visibly not numbers (strings, None), an error: the rewritten function, specialized for
        its annotations, computes something else for them (the decorator specialized it for
        each call's arguments), whether the loop stays or not."""
        plan = self.functions[call.func.value]
        if plan.kind != "vectorize":
            return
        scalars = set()
        position = self.positions.get(call)
        loop.at = (position.start.line, position.start.column) if position else (loop.line, 0)
        for param, arg in self._arguments(call, plan):
            value = plan.params.get(param)
            if param not in plan.batched or value is None or value.dtype is None:
                continue
            if isinstance(arg.value, cst.Name) and arg.value.value in items:
                sequence = items[arg.value.value]
                others = _not_numbers(self._visible_items(sequence, scope))
                if others and value.rank == 0:
                    loop.error = (
                        f"`{plan.name}` is called here with {others} (the items of "
                        f"`{bare_code(sequence)}`), but is rewritten for {value.dtype} `{param}`"
                        ": the rewritten code would fail or compute something else for them "
                        "(the decorator ran the function on each item as it is)")
                    return
                dtype = self._item_dtype(sequence, scope)
                what = f"the items of `{bare_code(sequence)}`"
                mixed = {np.asarray(v).dtype for v in self._visible_items(sequence, scope)
                         if isinstance(v, (int, float, complex)) and not isinstance(v, bool)
                         and -(1 << 63) <= (v.real if isinstance(v, complex) else v) < 1 << 63}
                if dtype is None and len(mixed) > 1:
                    dtype = " and ".join(sorted(str(d) for d in mixed))
                elif dtype is None and self._numbers(sequence, scope) is not None:
                    loop.reason = loop.reason or (
                        f"the rewriter cannot tell the dtype of {what} (`{plan.name}` is "
                        f"rewritten for {value.dtype} `{param}`, the decorator ran it on each "
                        f"item's own type); build them so that their dtype shows "
                        f"(`{self.alias}.linspace(...)`, literals), or annotate `{param}`")
                    # (the loop stays; its items are still NumPy scalars: below)
            elif not set(items) & all_names(arg.value) and self._is_number(arg.value, scope):
                dtype = self._number_dtype(arg.value, scope)
                what = f"`{bare_code(arg.value)}`"
            else:
                continue
            if dtype is not None and (isinstance(dtype, str) or dtype != value.dtype):
                loop.warning = (
                    f"`{plan.name}` gets {dtype} numbers here ({what}), but is rewritten for "
                    f"{value.dtype} `{param}`: the decorator specialized it for each call's "
                    f"numbers, the rewritten code runs its {value.dtype} code on them "
                    "(results may differ in dtype or value)")
                loop.reason = loop.reason or (
                    f"{what} are {dtype} numbers and `{plan.name}` is rewritten for "
                    f"{value.dtype} `{param}`: annotate `{param}` with their type, or pass "
                    f"{value.dtype} numbers")
                return
            if (isinstance(arg.value, cst.Name) and arg.value.value in items
                    and value.rank == 0 and self._numpy_items(items[arg.value.value], scope)):
                scalars.add((param, arg.value.value))
        if scalars:
            # the items of an array are NumPy scalars, which the decorator hands to the
            # function as they are: `1.0 / np.float64(0.0)` is inf there, where the
            # rewritten code checks as Python does and raises (docs/cli.md): the call (in
            # the loop, or batched) goes to the version for NumPy scalars
            # (a call in nested loops over arrays gets NumPy scalars from each of them)
            known = self.scalar_params.setdefault(id(call), set())
            known |= {p for p, _ in scalars}
            version = self.numpy_version(plan.name, frozenset(known)) \
                if self.numpy_version is not None else None
            if version is not None and version[0] != plan.name:
                loop.numpy_name = version[0]
                self.numpy_plans[version[0]] = version[1]
                self.replacements[id(call.func)] = cst.Name(version[0])
            scalar_checks = sorted(plan.raises & _PYTHON_NUMBER_CHECKS)
            if version is None and scalar_checks:
                kinds = ", ".join(f"`{k}`" for k in scalar_checks)
                sequence = items[sorted(scalars)[0][1]]
                loop.warning = (
                    f"`{plan.name}` gets NumPy scalars here (the items of "
                    f"`{bare_code(sequence)}`), on which the decorator computed as "
                    f"NumPy does (inf, nan, wrapping), where the rewritten `{plan.name}` checks "
                    f"as Python does and raises ({kinds}), whether the loop stays or not")

    def _numpy_items(self, sequence, scope: Scope) -> bool:
        """Whether the items of ``sequence`` are certainly NumPy scalars: those of a 1-D
        array (rows reach numpy.vectorize as arrays, whose examples are Python numbers), or
        of ``list``, ``tuple``, ``sorted`` or ``reversed`` of one."""
        if isinstance(sequence, cst.Call) and isinstance(sequence.func, cst.Name) and \
                sequence.func.value in ("list", "tuple", "sorted", "reversed") and \
                len(sequence.args) == 1 and sequence.args[0].keyword is None and \
                not sequence.args[0].star and sequence.func.value not in scope.local and \
                sequence.func.value not in self.namespace and not any(
                    sequence.func.value in _bound_by(stmt) for stmt in self.module.body):
            return self._numpy_items(sequence.args[0].value, scope)
        return (self._numbers(sequence, scope) == "array"
                and self._ndim(sequence, scope) == 1 and self._length(sequence, scope) != 0)

    def _arguments(self, call: cst.Call, plan):
        """(parameter, argument) of each argument of a call of ``plan``'s function."""
        positional = [p for p in plan.params if p not in plan.keyword_only]
        for index, arg in enumerate(call.args):
            if arg.star:
                return
            yield (arg.keyword.value if arg.keyword is not None else
                   positional[index] if index < len(positional) else None), arg

    def _visible_items(self, node, scope: Scope, depth: int = 0) -> list:
        """The items of a sequence the code shows (a display of literals, a name set once
        to one, a module-level container), as far as they are literals; [] where unknown."""
        if depth > 8:
            return []
        if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
            return [_literal(e.value) for e in node.elements if isinstance(e, cst.Element)]
        if isinstance(node, cst.Dict):
            return [_literal(e.key) for e in node.elements if isinstance(e, cst.DictElement)]
        if isinstance(node, cst.Name):
            if node.value in scope.local:
                value = scope.single.get(node.value)
                return [] if value is None else self._visible_items(value, scope, depth + 1)
            if node.value not in self.namespace and node.value in self.module_single:
                return self._visible_items(self.module_single[node.value],
                                           self.module_scope, depth + 1)
            value = self.namespace.get(node.value)
            if type(value) in (list, tuple, set, frozenset, dict):
                return list(value)
        return []

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
        # (what the call computes: the version for NumPy scalars, where it goes to one)
        raises = (self.numpy_plans.get(loop.numpy_name) or plan).raises
        if plan.kind != "vectorize":
            loop.reason = (f"`{plan.name}` is a @vmap function: called on one example, it maps "
                           "over that example's own axis, so the loop is not a loop over "
                           "examples of it")
            return None
        if isinstance(plan.result, TupleValue):
            loop.reason = (f"`{plan.name}` returns a tuple: the loop collects one tuple per "
                           "example, the batched call one array per item of the tuple")
            return None
        if len(raises) > 1 or "?" in raises:
            kinds = ", ".join(f"`{name}`" for name in sorted(raises))
            loop.reason = (f"`{plan.name}` may raise different exceptions ({kinds}) on different "
                           "items: the loop raises the first failing item's, the batched call "
                           "the one its code checks first")
            return None
        if self.alias in scope.local:
            loop.reason = (f"the batched call needs `{self.alias}` (the array module), which is "
                           "a local name here")
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
        function = self.namespace.get(call.func.value)
        if callable(function):
            try:
                inspect.signature(function, follow_wrapped=False).bind(
                    *[None for a in call.args if a.keyword is None],
                    **{a.keyword.value: None for a in call.args if a.keyword is not None})
            except TypeError as exc:
                # every call raises TypeError; for no items the loop makes none
                loop.reason = (f"the call does not bind `{plan.name}`'s parameters ({exc}): "
                               "the loop raises TypeError for its first item, and for no items "
                               "none, where the batched call would always raise")
                return None
            except ValueError:
                pass
        loop.imports = {self.alias: self.array_module}
        return call.with_changes(args=args, func=cst.Name(loop.numpy_name)
                                 if loop.numpy_name else call.func)

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
        args = [cst.Arg(iterable)]
        dtype = self._item_dtype(iterable, scope)
        if getattr(self.array_module, "__name__", "") == "torch" and dtype is not None and \
                dtype.kind in "fc":
            # torch.asarray makes Python floats (complexes) its default dtype, float32
            # (complex64): the items' own dtype, as the loop computed with them
            args = [cst.Arg(iterable, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(
                " "))), cst.Arg(cst.Attribute(cst.Name(self.alias), cst.Name(dtype.name)),
                                keyword=cst.Name("dtype"), equal=cst.AssignEqual(
                                    whitespace_before=cst.SimpleWhitespace(""),
                                    whitespace_after=cst.SimpleWhitespace("")))]
        return cst.Call(cst.Attribute(cst.Name(self.alias), cst.Name("asarray")), args)

    def _replace(self, node, new, loop: Loop) -> None:
        self.replacements[id(node)] = new
        loop.after = bare_code(new) if not isinstance(new, cst.SimpleStatementLine) else \
            self.module.code_for_node(new).strip()

    def _line(self, node) -> int:
        position = self.positions.get(node)
        return position.start.line if position is not None else 0


_BUILTIN_OR_MATH = {"sum": sum, "math": __import__("math"), "max": max, "min": min,
                    "list": list, "map": map}


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


_NOT_A_NUMBER = object()


def _literal(node):
    """The value of a literal element (a string, None, a number...), else `_NOT_A_NUMBER`
    marking something else (not visibly a string or None)."""
    try:
        return ast.literal_eval(bare_code(node))
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return _NOT_A_NUMBER


def _not_numbers(values: list) -> str:
    """A few words naming the strings, bytes or None among ``values`` ("" where none)."""
    kinds = [name for name, types in (("strings", (str,)), ("bytes", (bytes,)),
                                      ("None", (type(None),)))
             if any(isinstance(v, types) for v in values)]
    return " and ".join(kinds)


def _path_to(root, target):
    """The nodes from ``root`` down to ``target`` (not included), or None where it is not
    under ``root``."""
    stack = [(root, [])]
    while stack:
        node, path = stack.pop()
        if node is target:
            return path
        for child in node.children:
            stack.append((child, path + [node]))
    return None


# NumPy functions whose result may be (a view of) an argument
_VIEWS = {"asarray", "asanyarray", "ascontiguousarray", "reshape", "ravel", "squeeze",
          "transpose", "broadcast_to", "broadcast_arrays", "moveaxis", "swapaxes", "rollaxis",
          "atleast_1d", "atleast_2d", "atleast_3d", "expand_dims", "real", "imag", "diagonal",
          "flip", "fliplr", "flipud", "matrix_transpose", "permute_dims", "require", "asmatrix",
          "astype", "split", "array_split"}
# array methods that make a new array (unless told `copy=False`)
_COPIES = {"astype", "copy"}
# the checks the rewritten code makes where Python numbers raise and NumPy scalars do not
_PYTHON_NUMBER_CHECKS = frozenset({"ZeroDivisionError", "OverflowError"})


def raised_types(texts) -> frozenset:
    """The exceptions the generated functions ``texts`` raise (``raise ValueError(...)``,
    ``raise ZeroDivisionError``), by name; "?" for a ``raise`` of anything else."""
    names = set()
    for text in texts:
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Raise) and node.exc is not None:
                exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
                names.add(exc.id if isinstance(exc, ast.Name) else "?")
            elif isinstance(node, ast.Raise):
                names.add("?")
    return frozenset(names)


def returns_new_array(text: str, alias: str) -> bool:
    """Whether every ``return`` of the generated function ``text`` gives an array it made:
    arithmetic, a comparison, a constant, a NumPy call other than the ones that may give a
    view of an argument (`_VIEWS`), ``.astype(...)`` or ``.copy()``, or a name only ever set
    to one of those. Where it does not
    (``return x``), ``np.array([f(x) for x in xs])`` becomes ``np.array(f(xs))``, a copy,
    since the loop's array was a new one."""
    function = ast.parse(text).body[0]
    nodes = [n for n in ast.walk(function) if not isinstance(
        n, (ast.FunctionDef, ast.Lambda)) or n is function]
    assigned: dict[str, list] = {}
    for node in nodes:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store):
                        assigned.setdefault(name.id, []).append(
                            node.value if target is name else None)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.withitem,
                               ast.NamedExpr, ast.comprehension)):
            for name in ast.walk(getattr(node, "target", None) or node.optional_vars
                                 or ast.Pass()):
                if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Store):
                    assigned.setdefault(name.id, []).append(None)
    params = {a.arg for a in ast.walk(function.args) if isinstance(a, ast.arg)}

    def new(node, depth=0) -> bool:
        if depth > 20:
            return False
        if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.Constant)):
            return True
        if isinstance(node, ast.Call):
            func = node.func
            if not isinstance(func, ast.Attribute):
                return False
            if func.attr in _COPIES and not any(k.arg == "copy" for k in node.keywords):
                return True
            return (isinstance(func.value, ast.Name) and func.value.id == alias
                    and func.attr not in _VIEWS)
        if isinstance(node, ast.Name) and node.id not in params:
            values = assigned.get(node.id, [None])
            return all(v is not None and new(v, depth + 1) for v in values)
        return False

    returns = [n for n in nodes if isinstance(n, ast.Return)]
    return bool(returns) and all(r.value is not None and new(r.value) for r in returns)


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
            and isinstance(small.value.operator, (cst.Add, cst.Multiply)):
        # `total + f(x)`, or `f(x) + total` (the same number: IEEE addition and
        # multiplication are commutative, and the result's dtype does not depend on the order)
        operator = "+" if isinstance(small.value.operator, cst.Add) else "*"
        total = small.targets[0].target.value
        sides = [small.value.left, small.value.right]
        named = [isinstance(side, cst.Name) and side.value == total for side in sides]
        if named == [True, False]:
            call = sides[1]
        elif named == [False, True]:
            call = sides[0]
        else:
            return None
    elif isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(
            small.targets[0].target, cst.Name) and isinstance(small.value, cst.Call) \
            and isinstance(small.value.func, cst.Name) \
            and small.value.func.value in ("max", "min") and len(small.value.args) == 2 \
            and all(a.keyword is None and not a.star for a in small.value.args) \
            and isinstance(small.value.args[0].value, cst.Name) \
            and small.value.args[0].value.value == small.targets[0].target.value:
        # `best = max(best, f(x))` (in this order: `max` keeps the first of equal ones)
        operator = small.value.func.value
        total, call = small.targets[0].target.value, small.value.args[1].value
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
