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
from dataclasses import dataclass, field

import libcst as cst
import numpy as np

from .cst_util import code, fix_parens

_counter = itertools.count(1)


@dataclass
class Generated:
    """One compiled specialization."""

    source: str
    function: types.FunctionType
    backend: str                         # the array namespace it is written for
    result: object                       # abstract value of what the function returns
    guards: tuple = ()                   # ((namespace, name, value), ...) read at transform
    fallbacks: list = field(default_factory=list)   # reasons for per-example pieces
    explanations: list = field(default_factory=list)  # (rule name, file, line), in order
    # batch-size class -> the fastest way (0: one call, else threads) or the timings so far:
    # `chunks.run`
    chunking: dict = field(default_factory=dict)
    # whether chunks may run on several threads at once (`codegen.parallel_safe`)
    parallel: bool = False
    # per-example `if`s the heuristic left in select form that could be compacted
    # (`compact_ifs`); where there are some, `build_compacted` (set by the caller) makes the
    # specialization with all of them compacted, which `chunks.run` may time against this one
    switchable_ifs: int = 0
    build_compacted: object = None
    compacted: object = None        # that specialization once built (False: it failed)
    variants: dict = field(default_factory=dict)   # batch-size class -> the one that runs

    def guards_hold(self) -> bool:
        for namespace, name, value in self.guards:
            if namespace.get(name, _MISSING) is not value:
                return False
        return True



_MISSING = object()


def _import_line(alias: str, module: types.ModuleType) -> str:
    name = module.__name__
    if name == alias:
        return f"import {name}"
    if "." in name and name.rsplit(".", 1)[1] == alias:
        parent, child = name.rsplit(".", 1)
        return f"from {parent} import {child}"
    return f"import {name} as {alias}"


def emit(specs, module, main, header: str = ""):
    from .liveness import all_names
    backend = module.backend
    namespace: dict = {"__name__": f"vectorize.generated.{main.name}"}
    imports = {backend.alias: backend.module()}
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
    if imports[backend.alias] is not backend.module():
        raise ValueError(f"the name `{backend.alias}` is used for something other than "
                         f"{backend.module_name}")
    lines = []
    if header:
        lines += [f"# {h}" if h else "#" for h in header.splitlines()]
    # stdlib imports, then third-party ones, as isort would group them
    groups = [sorted(_import_line(alias, mod) for alias, mod in imports.items()
                     if (mod.__name__.split(".")[0] in sys.stdlib_module_names) == stdlib)
              for stdlib in (True, False)]
    lines += "\n\n".join("\n".join(g) for g in groups if g).split("\n")
    modules = [cst.Module(body=[fix_parens(spec.tree)]) for spec in specs]
    body = [code(module, module) for module in modules]
    text = "\n".join(lines) + "\n\n\n" + "\n\n".join(b.rstrip("\n") + "\n" for b in body)
    filename = f"<vectorize:{main.name}:{next(_counter)}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    compiled = compile(text, filename, "exec")
    parallel = parallel_safe(module.fallbacks, referenced, imports, namespace)
    exec(compiled, namespace)
    for spec in specs:
        generated = namespace[spec.name]
        # defaults are values the original already evaluated (the source shows none)
        generated.__defaults__ = spec.source.func.__defaults__
        generated.__kwdefaults__ = spec.source.func.__kwdefaults__
    function = namespace[main.name]
    # the source stays readable for tracebacks exactly as long as the function lives
    weakref.finalize(function, linecache.cache.pop, filename, None)
    guards = tuple(module.free.values())
    return Generated(source=text, function=function, backend=backend.name,
                     result=main.result, guards=guards,
                     fallbacks=list(module.fallbacks), explanations=list(module.explanations),
                     parallel=parallel, switchable_ifs=module.switchable_ifs)


PARALLEL_MODULES = frozenset({"numpy", "math", "cmath", "functools", "operator"})
"""Modules whose functions generated code may call from several threads at once (``np.random``
is refused by name: its global state would hand out draws in whatever order threads ask)."""
SIDE_EFFECT_BUILTINS = frozenset({
    "print", "input", "open", "exec", "eval", "compile", "setattr", "delattr", "globals",
    "locals", "vars", "__import__", "breakpoint", "exit", "quit", "help"})
_PLAIN = (int, float, complex, str, bytes, bool, type(None), np.generic, np.ndarray,
          np.dtype, type(Ellipsis), slice)


def parallel_safe(fallbacks, referenced, imports, namespace) -> bool:
    """Whether chunks of the generated code may run on several threads at once: it runs no
    per-example fallback (the user's own code), draws no random numbers, calls no builtin with
    side effects, and every global it reads is a module of `PARALLEL_MODULES` or plain data
    (numbers, strings, arrays, tuples of those), never a function, object or generator of the
    user's, whose state could be shared between threads."""
    def plain(value) -> bool:
        if isinstance(value, (tuple, frozenset)):
            return all(plain(v) for v in value)
        return isinstance(value, _PLAIN)

    return (not fallbacks and "random" not in referenced
            and not referenced & SIDE_EFFECT_BUILTINS
            and all(module.__name__ in PARALLEL_MODULES for module in imports.values())
            and all(plain(value) for name, value in namespace.items() if name != "__name__"))
