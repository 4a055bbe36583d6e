"""Walking and rewriting libcst trees fast: the per-transform memo of answers about nodes
(`memoized`), the code-holding children of a node (`children`, `walk`, `statements`), and
`rewrite`, which runs a transformer's ``visit_``/``leave_`` hooks without visiting whitespace
or rebuilding what did not change.
"""

from __future__ import annotations

import dataclasses

import libcst as cst

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



_SKIPPED_FIELDS = {"lpar", "rpar", "comma", "semicolon", "equal", "header", "footer",
                   "leading_lines", "lines_after_decorators", "trailing_whitespace", "newline",
                   "operator", "colon", "dot", "star", "asynchronous"}


class PerClass(dict):
    """Class -> ``compute(class)``, computed on the first lookup (the engine's walks ask the
    same few questions of the same few node classes millions of times)."""

    def __init__(self, compute):
        super().__init__()
        self.compute = compute

    def __missing__(self, cls):
        answer = self[cls] = self.compute(cls)
        return answer


def _subclass_of(*bases) -> PerClass:
    """Class -> ``issubclass(class, bases)``, cached (libcst's bases are ABCs: isinstance and
    issubclass are slow)."""
    return PerClass(lambda cls: issubclass(cls, bases))


# node class -> names of its fields that can hold code (not whitespace, punctuation or plain
# strings such as ``Name.value``)
CHILD_FIELDS = PerClass(lambda cls: tuple(
    f.name for f in dataclasses.fields(cls)
    if f.name not in _SKIPPED_FIELDS and not f.name.startswith("whitespace")
    and f.type is not str))
IS_NODE = _subclass_of(cst.CSTNode)


def children(node) -> list:
    out: list = []
    push_children(node, out)
    return out


def push_children(node, stack: list) -> None:
    """``stack += children(node)``, without the list in between (for hand-written walks)."""
    for field in CHILD_FIELDS[type(node)]:
        value = getattr(node, field)
        kind = type(value)
        if kind is tuple or kind is list:
            stack += [item for item in value if IS_NODE[type(item)]]
        elif IS_NODE[kind]:
            stack.append(value)


def walk(node):
    """Every node under ``node`` (itself included), much faster than a libcst visitor for
    read-only scans."""
    return _nodes(node, IS_NODE)


def by_type(node) -> dict:
    """Every node under ``node`` (itself included) grouped by class (class -> list, in
    `walk`'s order; not to be changed), computed once per node and transform (`memoized`):
    reading a function and running the passes ask one tree after another whether it holds a
    ``match``, a walrus, an ``assert``, a ``try``..., mostly of a tree the step before
    returned unchanged, which one walk then answers for all of them."""
    return memoized("by type", node, _grouped)


def _grouped(node) -> dict:
    out: dict = {}
    for n in _nodes(node, IS_NODE):
        kind = type(n)
        found = out.get(kind)
        if found is None:
            out[kind] = [n]
        else:
            found.append(n)
    return out


def _nodes(node, keep):
    """``node`` and the nodes under it that ``keep[type]`` admits, depth first (`children`
    inlined: walks are the engine's innermost loop)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        for field in CHILD_FIELDS[type(current)]:
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
    code = CHILD_FIELDS[cls]
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
        self.visited = IS_NODE if self.in_lines else _IS_STATEMENT_LEVEL

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


VISIT_FIELDS = PerClass(_visit_fields)
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
        for field in VISIT_FIELDS[cls]:
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
            updated = rebuilt(node, changes)
    if leave is None:
        return updated
    return leave(visitor, node, updated)


_INIT_FIELDS = PerClass(lambda cls: tuple(f.name for f in dataclasses.fields(cls) if f.init))


def rebuilt(node, changes: dict):
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


def attribute_path(node) -> list[str] | None:
    """``["np", "linalg", "norm"]`` of an attribute chain on a name, else None."""
    parts = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    parts.append(node.value)
    return parts[::-1]
