"""``import`` / ``from ... import`` at the top level of a function's body, read as globals
(`hoist_imports`): Python runs them on every call and they bind the same modules and
attributes each time."""

from __future__ import annotations

import libcst as cst

from ..syntax.printer import code


def hoist_imports(tree: cst.FunctionDef, func):
    """(the function without the ``import`` / ``from ... import`` statements of its body's
    top level, the names they bind -> their values). Python runs them on every call and
    they bind the same modules and attributes each time: the code reads the names as it
    reads globals (`FunctionSource.lookup`). Only statements whose names the function binds
    nowhere else and reads nowhere before them; the others stay (and are refused)."""
    from ..liveness import all_names, writes
    body = list(tree.body.body)
    if not any(type(s) is cst.SimpleStatementLine and s.body and all(
            type(x) in (cst.Import, cst.ImportFrom) for x in s.body) for s in body):
        return tree, {}
    imports: dict = {}
    kept = []
    for index, stmt in enumerate(body):
        if not (type(stmt) is cst.SimpleStatementLine and stmt.body and all(
                type(x) in (cst.Import, cst.ImportFrom) for x in stmt.body)):
            kept.append(stmt)
            continue
        try:
            bound = _imported(stmt, func)
        except Exception:   # noqa: BLE001 -- it fails as Python's own import would, later
            bound = None
        others = body[:index] + body[index + 1:]
        if bound is None or any(name in all_names(s) for s in body[:index] for name in bound) \
                or any(name in writes(s) for s in others for name in bound) \
                or set(bound) & {p.name.value for p in tree.params.params}:
            kept.append(stmt)
            continue
        imports.update(bound)
    if not imports:
        return tree, {}
    return tree.with_changes(body=tree.body.with_changes(body=kept or [
        cst.SimpleStatementLine([cst.Pass()])])), imports


def _imported(stmt, func) -> dict | None:
    """The names one line of imports binds and their values (importing what it names), or
    None for what is not read that way (``from m import *``)."""
    import importlib
    package = func.__globals__.get("__package__")
    out: dict = {}
    for small in stmt.body:
        if type(small) is cst.Import:
            for alias in small.names:
                dotted = code(alias.name)
                module = importlib.import_module(dotted)
                if alias.asname is not None:
                    out[alias.asname.name.value] = module
                else:
                    out[dotted.split(".")[0]] = importlib.import_module(dotted.split(".")[0])
            continue
        if isinstance(small.names, cst.ImportStar):
            return None
        dots = "." * len(small.relative)
        name = dots + (code(small.module) if small.module is not None else "")
        module = importlib.import_module(name, package if dots else None)
        for alias in small.names:
            attr = alias.name.value
            try:
                value = getattr(module, attr)
            except AttributeError:
                value = importlib.import_module(f"{module.__name__}.{attr}")
            out[alias.asname.name.value if alias.asname is not None else attr] = value
    return out
