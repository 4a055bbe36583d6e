"""Nested ``def`` s and ``name = lambda ...`` that read none of the function's own names
(`hoist_helpers`): the same function on every call, made once and vectorized as helpers."""

from __future__ import annotations

import textwrap

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider


def hoist_helpers(tree: cst.FunctionDef, func, module, line_offset: int, col_offset: int,
                   filename: str, imported: set):
    """(the function without the ``def`` statements and ``name = lambda ...`` assignments of
    its body's top level that read none of its own names, those names -> the functions they
    make). Such a helper is the same function on every call whatever the examples, so it is
    made once here (compiled from the file's own lines, so that its source can be read) and
    called as a module-level helper is: vectorized with the function. A helper that reads
    the function's parameters or variables (a closure), has decorators or is bound twice
    stays (and is refused where it is used on per-example values)."""
    import symtable

    from ..liveness import all_names, writes
    body = list(tree.body.body)
    candidates = [i for i, stmt in enumerate(body) if helper_name(stmt) is not None]
    if not candidates:
        return tree, {}
    outer = {p.name.value for p in tree.params.params} | set(imported)
    for part in (tree.params.star_arg, tree.params.star_kwarg):
        if isinstance(part, cst.Param):
            outer.add(part.name.value)
    for stmt in body:
        outer |= writes(stmt)
        if type(stmt) in (cst.FunctionDef, cst.ClassDef):
            outer.add(stmt.name.value)
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    made: dict = {}
    hoisted: set = set()
    for index in candidates:
        stmt = body[index]
        name = helper_name(stmt)
        where = positions.get(stmt)
        if where is None or sum(name in writes(s) or helper_name(s) == name
                                for s in body) != 1 or any(
                name in all_names(s) for s in body[:index]):
            continue
        text = textwrap.dedent(module.code_for_node(stmt))
        try:
            table = symtable.symtable(text, filename, "exec")
        except SyntaxError:
            continue
        reads = _reads_of(table)
        if reads - {name} & outer:
            continue      # a closure over the function's own names
        if name in reads and _calls_itself(stmt, name):
            # (made here, its own name would be looked up among the module's globals:
            # another function, or none) refused where it is defined, saying so
            continue
        namespace: dict = {}
        try:
            # on its own lines of the file: `inspect` finds its source there
            padded = "\n" * (where.start.line + line_offset - 1) + text
            exec(compile(padded, filename, "exec"), func.__globals__, namespace)  # noqa: S102
        except Exception:   # noqa: BLE001 -- its defaults fail: as Python would, at run time
            continue
        made[name] = namespace[name]
        hoisted.add(index)
    if not made:
        return tree, {}
    kept = [stmt for i, stmt in enumerate(body) if i not in hoisted]
    return tree.with_changes(body=tree.body.with_changes(body=kept or [
        cst.SimpleStatementLine([cst.Pass()])])), made


def helper_name(stmt) -> str | None:
    """The name a plain ``def`` (no decorators) or ``name = lambda ...`` binds, else None."""
    if type(stmt) is cst.FunctionDef:
        return None if stmt.decorators or stmt.asynchronous else stmt.name.value
    if type(stmt) is cst.SimpleStatementLine and len(stmt.body) == 1 and type(
            stmt.body[0]) is cst.Assign and len(stmt.body[0].targets) == 1 and type(
            stmt.body[0].targets[0].target) is cst.Name and type(
            stmt.body[0].value) is cst.Lambda:
        return stmt.body[0].targets[0].target.value
    return None


def _reads_of(table) -> set:
    """Names the functions of a module's symbol table read from outside themselves."""
    out: set = set()
    stack = list(table.get_children())
    while stack:
        child = stack.pop()
        out |= {s.get_name() for s in child.get_symbols()
                if s.is_referenced() and (s.is_global() or s.is_free())}
        stack += child.get_children()
    for symbol in table.get_symbols():      # the defaults and the lambda's own statement
        if symbol.is_referenced():
            out.add(symbol.get_name())
    return out


def _calls_itself(stmt, name: str) -> bool:
    """Whether the body of the ``def`` (or lambda) ``stmt`` reads its own name."""
    from ..syntax.traversal import walk
    body = stmt.body if type(stmt) is cst.FunctionDef else stmt.body[0].value.body
    return any(type(n) is cst.Name and n.value == name for n in walk(body))
