"""Emit and load generated code: source text, ``compile``, ``linecache``.

Kept apart from the passes so that later stages (performance rewrites, other namespaces, the
file rewriter) can replace how code is printed and loaded without touching the engine.
"""

from __future__ import annotations

import itertools
import linecache
import sys
import types
import weakref

import libcst as cst

from .cst_util import fix_parens

_counter = itertools.count(1)


def _import_line(alias: str, module: types.ModuleType) -> str:
    name = module.__name__
    if name == alias:
        return f"import {name}"
    if "." in name and name.rsplit(".", 1)[1] == alias:
        parent, child = name.rsplit(".", 1)
        return f"from {parent} import {child}"
    return f"import {name} as {alias}"


def emit(specs, module, main, header: str = ""):
    import numpy as np

    from .liveness import all_names
    from .transform import Generated
    namespace: dict = {"__name__": f"vectorize.generated.{main.name}"}
    imports = {"np": np}
    referenced = set().union(*(all_names(spec.tree) for spec in specs))
    if "functools" in referenced:         # rules may use functools.reduce
        import functools
        imports.setdefault("functools", functools)
    for _, name, value in module.free.values():
        if isinstance(value, types.ModuleType):
            if name not in referenced:
                continue
            imports.setdefault(name, value)
        elif name not in {s.name for s in specs}:
            namespace[name] = value
    if imports["np"] is not np:
        raise ValueError("the name `np` is used for something other than numpy")
    lines = []
    if header:
        lines += [f"# {h}" if h else "#" for h in header.splitlines()]
    # stdlib imports, then third-party ones, as isort would group them
    groups = [sorted(_import_line(alias, mod) for alias, mod in imports.items()
                     if (mod.__name__.split(".")[0] in sys.stdlib_module_names) == stdlib)
              for stdlib in (True, False)]
    lines += "\n\n".join("\n".join(g) for g in groups if g).split("\n")
    body = [cst.Module(body=[fix_parens(spec.tree)]).code for spec in specs]
    text = "\n".join(lines) + "\n\n\n" + "\n\n".join(b.rstrip("\n") + "\n" for b in body)
    filename = f"<vectorize:{main.name}:{next(_counter)}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    code = compile(text, filename, "exec")
    exec(code, namespace)
    for spec in specs:
        generated = namespace[spec.name]
        # defaults are values the original already evaluated (the source shows none)
        generated.__defaults__ = spec.source.func.__defaults__
        generated.__kwdefaults__ = spec.source.func.__kwdefaults__
    function = namespace[main.name]
    # the source stays readable for tracebacks exactly as long as the function lives
    weakref.finalize(function, linecache.cache.pop, filename, None)
    guards = tuple(module.free.values())
    return Generated(source=text, function=function, result=main.result, guards=guards,
                     fallbacks=list(module.fallbacks), explanations=list(module.explanations))
