"""Small libcst helpers shared by the passes and the rules: templates, rendering, parentheses.

Templates are real Python expressions whose placeholders are bare names (Tangent-style):
``expr("np.where({cond}, {a}, {b})", cond=..., a=..., b=...)`` parses the template once and
substitutes the given nodes. Parentheses are never the template's worry: `fix_parens` adds
exactly the ones operator precedence needs, wherever nodes came from.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import re

import libcst as cst
from libcst._nodes.internal import CodegenState

_EMPTY_MODULE = cst.Module(body=[])
_PLACEHOLDER = re.compile(r"\{(\w+)\}")

# answers about nodes already asked for during one transform (trees are immutable, so a
# node's answer never changes; the node is kept with it, so its id cannot be reused while it
# is here). `clear_memo` empties it when a transform ends.
_MEMO: dict[tuple[str, int], tuple] = {}


def clear_memo() -> None:
    _MEMO.clear()


def memoized(kind: str, node, compute):
    """``compute(node)``, computed once per node and transform (``kind`` names ``compute``)."""
    key = (kind, id(node))
    hit = _MEMO.get(key)
    if hit is not None and hit[0] is node:
        return hit[1]
    out = compute(node)
    _MEMO[key] = (node, out)
    return out


def recalled(kind: str, node):
    """What `memoized` (or `remember`) keeps for ``node`` under ``kind``, or None."""
    hit = _MEMO.get((kind, id(node)))
    return hit[1] if hit is not None and hit[0] is node else None


def remember(kind: str, node, value) -> None:
    """Keep ``value`` for ``node`` under ``kind`` for the transform (see `memoized`)."""
    _MEMO[(kind, id(node))] = (node, value)


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
    for field in _VISIT_FIELDS[type(node)]:
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
    return _rebuilt(node, changes) if changes else node


_SKIPPED_FIELDS = {"lpar", "rpar", "comma", "semicolon", "equal", "header", "footer",
                   "leading_lines", "lines_after_decorators", "trailing_whitespace", "newline",
                   "operator", "colon", "dot", "star", "asynchronous"}


class _PerClass(dict):
    """Class -> ``compute(class)``, computed on the first lookup (the engine's walks ask the
    same few questions of the same few node classes millions of times)."""

    def __init__(self, compute):
        super().__init__()
        self.compute = compute

    def __missing__(self, cls):
        answer = self[cls] = self.compute(cls)
        return answer


def _subclass_of(*bases) -> _PerClass:
    """Class -> ``issubclass(class, bases)``, cached (libcst's bases are ABCs: isinstance and
    issubclass are slow)."""
    return _PerClass(lambda cls: issubclass(cls, bases))


# node class -> names of its fields that can hold code (not whitespace, punctuation or plain
# strings such as ``Name.value``)
_CHILD_FIELDS = _PerClass(lambda cls: tuple(
    f.name for f in dataclasses.fields(cls)
    if f.name not in _SKIPPED_FIELDS and not f.name.startswith("whitespace")
    and f.type is not str))
_IS_NODE = _subclass_of(cst.CSTNode)


def children(node) -> list:
    out: list = []
    push_children(node, out)
    return out


def push_children(node, stack: list) -> None:
    """``stack += children(node)``, without the list in between (for hand-written walks)."""
    for field in _CHILD_FIELDS[type(node)]:
        value = getattr(node, field)
        kind = type(value)
        if kind is tuple or kind is list:
            stack += [item for item in value if _IS_NODE[type(item)]]
        elif _IS_NODE[kind]:
            stack.append(value)


def walk(node):
    """Every node under ``node`` (itself included), much faster than a libcst visitor for
    read-only scans."""
    return _nodes(node, _IS_NODE)


def _nodes(node, keep):
    """``node`` and the nodes under it that ``keep[type]`` admits, depth first (`children`
    inlined: walks are the engine's innermost loop)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        for field in _CHILD_FIELDS[type(current)]:
            value = getattr(current, field)
            kind = type(value)
            if kind is tuple or kind is list:
                stack += [item for item in value if keep[type(item)]]
            elif keep[kind]:
                stack.append(value)


# nodes no simple statement line can hold (its small statements hold expressions only)
_STATEMENT_LEVEL = (cst.BaseStatement, cst.BaseSuite, cst.Else, cst.Finally,
                    cst.ExceptHandler, cst.ExceptStarHandler, cst.MatchCase, cst.Module)


_IS_STATEMENT_LEVEL = _subclass_of(*_STATEMENT_LEVEL)      # a statement, block or clause
_IS_STATEMENT_PART = _subclass_of(*_STATEMENT_LEVEL, cst.BaseSmallStatement)   # or a small one


def statements(node):
    """The statements, blocks and clauses under ``node`` and the small statements in them
    (``return``, assignments...), as `walk` meets them, without the expressions (which hold
    no statements)."""
    return _nodes(node, _IS_STATEMENT_PART)


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
_BODY_SEQUENCES = (cst.IndentedBlock, cst.Module)   # libcst's visit_body_sequence fields


def _visit_fields(cls) -> tuple[str, ...]:
    """A node class's code fields in libcst's visiting order."""
    code = _CHILD_FIELDS[cls]
    order = _VISIT_ORDER.get(cls)
    return tuple(f for f in order if f in code) if order else code


class _Hooks(dict):
    """Node class -> the ``(visit, leave)`` methods one transformer class has for it; None
    where it keeps libcst's default (which does nothing, so it is not called)."""

    def __init__(self, kind: type):
        super().__init__()
        self.kind = kind
        # whether a hook can apply to something other than statements, blocks and clauses:
        # if not, only those are visited (expressions hold none: not the insides of simple
        # statement lines, nor tests, `with` items, parameters...)
        # (the names of the classes between ``kind`` and libcst's transformer: the ones
        # it inherits from there are never its own, and there are about 800 of them)
        base = set(cst.CSTTransformer.__mro__)
        names = {name for klass in kind.__mro__ if klass not in base for name in vars(klass)}
        self.in_lines = any(
            self._own(method) is not None and not _statement_level(method.split("_")[1])
            for method in names if method.startswith(("on_", "visit_", "leave_")))
        self.visited = _IS_NODE if self.in_lines else _IS_STATEMENT_LEVEL

    def _own(self, method: str):
        found = getattr(self.kind, method, None)
        return None if found is getattr(cst.CSTTransformer, method, None) else found

    def __missing__(self, cls) -> tuple:
        name = cls.__name__
        hooks = self[cls] = (self._own("on_visit") or self._own("visit_" + name),
                             self._own("on_leave") or self._own("leave_" + name))
        return hooks


def _statement_level(name: str) -> bool:
    """Whether the libcst class ``name`` is one of `_STATEMENT_LEVEL`."""
    cls = getattr(cst, name, None)
    return isinstance(cls, type) and _IS_STATEMENT_LEVEL[cls]


_VISIT_FIELDS = _PerClass(_visit_fields)
_HOOKS: dict[type, _Hooks] = {}


def rewrite(node, visitor: cst.CSTTransformer):
    """``node.visit(visitor)`` for a transformer with ``visit_<Node>``/``leave_<Node>``
    methods, several times faster: whitespace and punctuation are not visited (no transformer
    here rewrites them), nor anything but statements, blocks and clauses when the transformer
    has hooks for those only, and a node none of whose children changed is kept, not
    rebuilt. ``updated_node`` is therefore ``original_node`` itself when nothing below
    changed."""
    kind = type(visitor)
    hooks = _HOOKS.get(kind)
    if hooks is None:
        hooks = _HOOKS[kind] = _Hooks(kind)
    return _rewrite(node, visitor, hooks)


def _rewrite(node, visitor, hooks: _Hooks):
    cls = type(node)
    enter, leave = hooks[cls]
    updated = node
    visited = hooks.visited
    if enter is None or enter(visitor, node) is not False:
        changes = None
        for field in _VISIT_FIELDS[cls]:
            value = getattr(node, field)
            kind = type(value)
            if kind is tuple or kind is list:
                if not value:
                    continue
                items, changed = [], False
                body = field == "body" and cls in _BODY_SEQUENCES
                for item in value:
                    new = _rewrite(item, visitor, hooks) if visited[type(item)] else item
                    if new is item:
                        items.append(item)
                        continue
                    changed = True
                    if isinstance(new, cst.RemovalSentinel):
                        continue
                    for part in (new if type(new) is cst.FlattenSentinel else (new,)):
                        if body and part._is_removable() and not item._is_removable():
                            continue   # a statement line emptied by removals goes too
                        items.append(part)
                if changed:
                    changes = changes or {}
                    changes[field] = tuple(items)
            elif visited[kind]:
                new = _rewrite(value, visitor, hooks)
                if new is not value:
                    if isinstance(new, cst.RemovalSentinel):
                        new = _removed(node, field)
                    elif type(new) is cst.FlattenSentinel:
                        raise TypeError(f"cannot flatten into {cls.__name__}.{field}")
                    changes = changes or {}
                    changes[field] = new
        if changes:
            updated = _rebuilt(node, changes)
    if leave is None:
        return updated
    return leave(visitor, node, updated)


_INIT_FIELDS = _PerClass(lambda cls: tuple(f.name for f in dataclasses.fields(cls) if f.init))


def _rebuilt(node, changes: dict):
    """``node.with_changes(**changes)`` (a new node, validated by its class as usual) without
    `dataclasses.replace`'s generic checks, which cost as much as building the node."""
    for field in _INIT_FIELDS[type(node)]:
        if field not in changes:
            changes[field] = getattr(node, field)
    return type(node)(**changes)


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


_PRECEDENCE = {cst.Tuple: -2, cst.NamedExpr: -1, cst.Lambda: 0, cst.IfExp: 1, cst.Comparison: 5}


def precedence(node: cst.CSTNode) -> int:
    if isinstance(node, cst.BaseExpression) and node.lpar:
        return _ATOM
    kind = type(node)
    if kind is cst.BinaryOperation:
        return _BINOP_PREC[type(node.operator)]
    if kind is cst.UnaryOperation:
        return 4 if type(node.operator) is cst.Not else 12
    if kind is cst.BooleanOperation:
        return 2 if type(node.operator) is cst.Or else 3
    return _PRECEDENCE.get(kind, _ATOM)


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
        return _rebuilt(node, fields)
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


# ---------------------------------------------------------------------------------------------
# Printing: libcst's code generation, faster.
#
# libcst prints a node through `CSTNode._codegen`, which costs two context managers (a
# generator each) per expression and a few method calls per node, for a text that is just the
# node's tokens and whitespace in order. `code` prints the node kinds generated code is made
# of (simple statements, blocks, `if`/`with`/loops, names, numbers, strings, operators, calls,
# attributes, subscripts, tuples, conditional expressions) by transcribing their
# `_codegen_impl` below, and hands every other node (with what it needs: indentation, default
# commas) to libcst itself, on the same state. The text is therefore libcst's, token for
# token (`tests/test_cst_util.py` compares the two on every file of the project).


class _State(CodegenState):
    """libcst's printing state, without the syntactic positions nothing here asks for."""

    __slots__ = ()

    def record_syntactic_position(self, node, *, start_node=None, end_node=None):
        return _NO_POSITION


_NO_POSITION = contextlib.nullcontext()


def code(node: cst.CSTNode, module: cst.Module = _EMPTY_MODULE) -> str:
    """``module.code_for_node(node)``: the node's source text with the module's indentation
    and newline (the default ones unless given); ``code(m, m)`` is ``m.code``."""
    state = _State(default_indent=module.default_indent, default_newline=module.default_newline)
    _print(node, state)
    return "".join(state.tokens)


def _print(node, state) -> None:
    printer = _PRINTERS.get(type(node))
    if printer is None:
        node._codegen(state)
    else:
        printer(node, state)


def _space(ws, state) -> None:
    if type(ws) is cst.SimpleWhitespace:
        state.tokens.append(ws.value)
    else:
        ws._codegen(state)


def _open(node, state) -> None:
    for lpar in node.lpar:
        state.tokens.append("(")
        _space(lpar.whitespace_after, state)


def _close(node, state) -> None:
    for rpar in node.rpar:
        _space(rpar.whitespace_before, state)
        state.tokens.append(")")


def _atom(node, state) -> None:       # Name, Integer, Float, Imaginary, SimpleString
    if node.lpar:
        _open(node, state)
        state.tokens.append(node.value)
        _close(node, state)
    else:
        state.tokens.append(node.value)


def _one_token_op(op, state) -> None:   # binary, boolean and comparison operators, `=`, `.`
    _space(op.whitespace_before, state)
    state.tokens.append(_OP_TOKENS[type(op)])
    _space(op.whitespace_after, state)


def _unary_op(op, state) -> None:
    state.tokens.append(_OP_TOKENS[type(op)])
    _space(op.whitespace_after, state)


def _binary(node, state) -> None:      # BinaryOperation, BooleanOperation
    _open(node, state)
    _print(node.left, state)
    _print(node.operator, state)
    _print(node.right, state)
    _close(node, state)


def _unary(node, state) -> None:
    _open(node, state)
    _print(node.operator, state)
    _print(node.expression, state)
    _close(node, state)


def _comparison(node, state) -> None:
    _open(node, state)
    _print(node.left, state)
    for target in node.comparisons:
        _print(target.operator, state)
        _print(target.comparator, state)
    _close(node, state)


def _attribute(node, state) -> None:
    _open(node, state)
    _print(node.value, state)
    _print(node.dot, state)
    _print(node.attr, state)
    _close(node, state)


def _if_exp(node, state) -> None:
    tokens = state.tokens
    _open(node, state)
    _print(node.body, state)
    _space(node.whitespace_before_if, state)
    tokens.append("if")
    _space(node.whitespace_after_if, state)
    _print(node.test, state)
    _space(node.whitespace_before_else, state)
    tokens.append("else")
    _space(node.whitespace_after_else, state)
    _print(node.orelse, state)
    _close(node, state)


def _comma(node, state, default_comma: bool, default_text: str = ", ") -> None:
    comma = node.comma
    if comma is cst.MaybeSentinel.DEFAULT:
        if default_comma:
            state.tokens.append(default_text)
    elif type(comma) is cst.Comma:
        _one_token_op(comma, state)


def _call(node, state) -> None:
    tokens = state.tokens
    _open(node, state)
    _print(node.func, state)
    _space(node.whitespace_after_func, state)
    tokens.append("(")
    _space(node.whitespace_before_args, state)
    last = len(node.args) - 1
    for i, arg in enumerate(node.args):
        tokens.append(arg.star)
        _space(arg.whitespace_after_star, state)
        if arg.keyword is not None:
            _print(arg.keyword, state)
        if arg.equal is cst.MaybeSentinel.DEFAULT and arg.keyword is not None:
            tokens.append(" = ")
        elif type(arg.equal) is cst.AssignEqual:
            _one_token_op(arg.equal, state)
        _print(arg.value, state)
        _comma(arg, state, i != last)
        _space(arg.whitespace_after_arg, state)
    tokens.append(")")
    _close(node, state)


def _subscript(node, state) -> None:
    _open(node, state)
    _print(node.value, state)
    _space(node.whitespace_after_value, state)
    _print(node.lbracket, state)
    last = len(node.slice) - 1
    for i, element in enumerate(node.slice):
        if type(element.slice) is cst.Index and element.slice.star is None:
            _print(element.slice.value, state)
        else:
            _print(element.slice, state)
        _comma(element, state, i != last)
    _print(node.rbracket, state)
    _close(node, state)


def _tuple(node, state) -> None:
    _open(node, state)
    elements = node.elements
    last = len(elements) - 1
    for i, element in enumerate(elements):
        # one element: `x,`; more: `x, y`
        default_comma, text = (True, ",") if last == 0 else (i < last, ", ")
        if type(element) is cst.Element:
            _print(element.value, state)
            _comma(element, state, default_comma, text)
        else:
            element._codegen(state, default_comma=default_comma,
                             default_comma_whitespace=last != 0)
    _close(node, state)


# simple statements: the statement, then its `;` (a default one between statements)

def _semicolon(node, state, default_semicolon: bool) -> None:
    semicolon = node.semicolon
    if semicolon is cst.MaybeSentinel.DEFAULT:
        if default_semicolon:
            state.tokens.append("; ")
    elif type(semicolon) is cst.Semicolon:
        _one_token_op(semicolon, state)


def _assign(node, state, default_semicolon: bool) -> None:
    for target in node.targets:
        _print(target.target, state)
        _space(target.whitespace_before_equal, state)
        state.tokens.append("=")
        _space(target.whitespace_after_equal, state)
    _print(node.value, state)
    _semicolon(node, state, default_semicolon)


def _aug_assign(node, state, default_semicolon: bool) -> None:
    _print(node.target, state)
    _print(node.operator, state)
    _print(node.value, state)
    _semicolon(node, state, default_semicolon)


def _return(node, state, default_semicolon: bool) -> None:
    state.tokens.append("return")
    ws, value = node.whitespace_after_return, node.value
    if ws is cst.MaybeSentinel.DEFAULT:
        if value is not None:
            state.tokens.append(" ")
    else:
        _space(ws, state)
    if value is not None:
        _print(value, state)
    _semicolon(node, state, default_semicolon)


def _expr_statement(node, state, default_semicolon: bool) -> None:
    _print(node.value, state)
    _semicolon(node, state, default_semicolon)


def _keyword_statement(node, state, default_semicolon: bool) -> None:   # pass, break...
    state.tokens.append(_KEYWORDS[type(node)])
    _semicolon(node, state, default_semicolon)


def _simple_line(node, state) -> None:
    for line in node.leading_lines:
        _print(line, state)
    state.tokens.extend(state.indent_tokens)
    body = node.body
    if not body:
        state.tokens.append("pass")
    last = len(body) - 1
    for i, small in enumerate(body):
        printer = _SMALL_PRINTERS.get(type(small))
        if printer is None:
            small._codegen(state, default_semicolon=i != last)
        else:
            printer(small, state, i != last)
    _print(node.trailing_whitespace, state)


def _trailing_whitespace(node, state) -> None:
    _space(node.whitespace, state)
    if node.comment is not None:
        state.tokens.append(node.comment.value)
    newline = node.newline.value
    state.tokens.append(state.default_newline if newline is None else newline)


def _empty_line(node, state) -> None:
    if node.indent:
        state.tokens.extend(state.indent_tokens)
    _trailing_whitespace(node, state)


def _indented_block(node, state) -> None:
    _print(node.header, state)
    state.indent_tokens.append(state.default_indent if node.indent is None else node.indent)
    if node.body:
        for stmt in node.body:
            _print(stmt, state)
    else:
        state.tokens.extend(state.indent_tokens)
        state.tokens += ["pass", state.default_newline]
    for line in node.footer:
        _print(line, state)
    state.indent_tokens.pop()


def _statement_start(node, state) -> None:
    for line in node.leading_lines:
        _print(line, state)
    state.tokens.extend(state.indent_tokens)


def _clause_end(node, state) -> None:
    _space(node.whitespace_before_colon, state)
    state.tokens.append(":")
    _print(node.body, state)


def _function_def(node, state) -> None:
    tokens = state.tokens
    for line in node.leading_lines:
        _print(line, state)
    for decorator in node.decorators:
        _print(decorator, state)
    for line in node.lines_after_decorators:
        _print(line, state)
    tokens.extend(state.indent_tokens)
    if node.asynchronous is not None:
        _print(node.asynchronous, state)
    tokens.append("def")
    _space(node.whitespace_after_def, state)
    _print(node.name, state)
    _space(node.whitespace_after_name, state)
    if node.type_parameters is not None:
        _print(node.type_parameters, state)
    _space(node.whitespace_after_type_parameters, state)
    tokens.append("(")
    _space(node.whitespace_before_params, state)
    _print(node.params, state)
    tokens.append(")")
    if node.returns is not None:
        node.returns._codegen(state, default_indicator="->")
    _clause_end(node, state)


def _if(node, state, is_elif: bool = False) -> None:
    _statement_start(node, state)
    state.tokens.append("elif" if is_elif else "if")
    _space(node.whitespace_before_test, state)
    _print(node.test, state)
    _space(node.whitespace_after_test, state)
    state.tokens.append(":")
    _print(node.body, state)
    if type(node.orelse) is cst.If:
        _if(node.orelse, state, is_elif=True)
    elif node.orelse is not None:
        _print(node.orelse, state)


def _else(node, state) -> None:
    _statement_start(node, state)
    state.tokens.append("else")
    _clause_end(node, state)


def _while(node, state) -> None:
    _statement_start(node, state)
    state.tokens.append("while")
    _space(node.whitespace_after_while, state)
    _print(node.test, state)
    _clause_end(node, state)
    if node.orelse is not None:
        _print(node.orelse, state)


def _for(node, state) -> None:
    _statement_start(node, state)
    if node.asynchronous is not None:
        _print(node.asynchronous, state)
    state.tokens.append("for")
    _space(node.whitespace_after_for, state)
    _print(node.target, state)
    _space(node.whitespace_before_in, state)
    state.tokens.append("in")
    _space(node.whitespace_after_in, state)
    _print(node.iter, state)
    _clause_end(node, state)
    if node.orelse is not None:
        _print(node.orelse, state)


def _with(node, state) -> None:
    tokens = state.tokens
    _statement_start(node, state)
    # items split over lines need parentheses around them
    needs_paren = any(
        type(item.comma) is cst.Comma and type(item.comma.whitespace_after) in (
            cst.EmptyLine, cst.TrailingWhitespace, cst.ParenthesizedWhitespace)
        for item in node.items)
    if node.asynchronous is not None:
        _print(node.asynchronous, state)
    tokens.append("with")
    _space(node.whitespace_after_with, state)
    if type(node.lpar) is cst.LeftParen:
        _print(node.lpar, state)
    elif needs_paren:
        tokens.append("(")
    last = len(node.items) - 1
    for i, item in enumerate(node.items):
        _print(item.item, state)
        if item.asname is not None:
            _print(item.asname, state)
        _comma(item, state, i != last)
    if type(node.rpar) is cst.RightParen:
        _print(node.rpar, state)
    elif needs_paren:
        tokens.append(")")
    _clause_end(node, state)


def _module(node, state) -> None:
    for part in (*node.header, *node.body, *node.footer):
        _print(part, state)
    if node.has_trailing_newline:
        if not state.tokens:
            state.tokens.append(state.default_newline)
    elif state.tokens:
        state.tokens.pop()


_ONE_TOKEN_OPS = (*_BINOP_PREC, cst.And, cst.Or, cst.LessThan, cst.LessThanEqual,
                  cst.GreaterThan, cst.GreaterThanEqual, cst.Equal, cst.NotEqual, cst.In,
                  cst.Is, *AUGMENTED_TO_BINARY, cst.AssignEqual, cst.Dot, cst.Comma, cst.Colon,
                  cst.Semicolon)
_UNARY_OPS = (cst.Minus, cst.Plus, cst.BitInvert, cst.Not)
_OP_TOKENS = {kind: kind()._get_token() for kind in (*_ONE_TOKEN_OPS, *_UNARY_OPS)}
_KEYWORDS = {cst.Pass: "pass", cst.Break: "break", cst.Continue: "continue"}
_SMALL_PRINTERS = {cst.Assign: _assign, cst.AugAssign: _aug_assign, cst.Return: _return,
                   cst.Expr: _expr_statement, **dict.fromkeys(_KEYWORDS, _keyword_statement)}
_PRINTERS = {
    **dict.fromkeys((cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString), _atom),
    **dict.fromkeys(_ONE_TOKEN_OPS, _one_token_op), **dict.fromkeys(_UNARY_OPS, _unary_op),
    cst.BinaryOperation: _binary, cst.BooleanOperation: _binary, cst.UnaryOperation: _unary,
    cst.Comparison: _comparison, cst.Attribute: _attribute, cst.IfExp: _if_exp,
    cst.Call: _call, cst.Subscript: _subscript, cst.Tuple: _tuple,
    cst.SimpleStatementLine: _simple_line, cst.TrailingWhitespace: _trailing_whitespace,
    cst.EmptyLine: _empty_line, cst.IndentedBlock: _indented_block,
    cst.FunctionDef: _function_def, cst.If: _if, cst.Else: _else, cst.While: _while,
    cst.For: _for, cst.With: _with, cst.Module: _module,
}
