"""Emit and load generated code: source text, ``compile``, ``linecache``.

Kept apart from the passes so that later stages (performance rewrites, other namespaces, the
file rewriter) can replace how code is printed and loaded without touching the engine.
Importing it does not import libcst (`emit` does): the disk cache (`vectorize.diskcache`)
loads generated source with `load` and makes a `Generated` of it without the engine.
"""

from __future__ import annotations

import itertools
import linecache
import sys
import types
import weakref
from dataclasses import dataclass, field

import numpy as np

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
    # what the transform read (`Origin`), for the disk cache; None for a loaded entry
    origin: object = None

    def guards_hold(self) -> bool:
        for namespace, name, value in self.guards:
            if namespace.get(name, _MISSING) is not value:
                return False
        return True



_MISSING = object()


@dataclass
class Origin:
    """What a transform read besides its arguments' abstract values, which the disk cache
    (`vectorize.diskcache`) checks before it reuses generated code in another process:

    - ``functions``: the user functions transformed (the main one first, then its helpers);
    - ``emitted``: (name in the generated module, function) of each one the code holds;
    - ``reads``: (function, scope, name, value) of every free name any analysis of a function
      resolved ("global", "closure" or "builtin"), in the order read;
    - ``free``: (function, scope, name) of what the guards hold and the module's namespace
      gets, in `Generated.guards`'s order."""

    functions: list
    emitted: list
    reads: list
    free: list


def _import_line(alias: str, module: types.ModuleType) -> str:
    name = module.__name__
    if name == alias:
        return f"import {name}"
    if "." in name and name.rsplit(".", 1)[1] == alias:
        parent, child = name.rsplit(".", 1)
        return f"from {parent} import {child}"
    return f"import {name} as {alias}"


def emit(specs, module, main, header: str = ""):
    import libcst as cst

    from .cst_util import code, fix_parens
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
    parallel = parallel_safe(module.fallbacks, referenced, imports, namespace)
    emitted = [(spec.name, spec.source.func) for spec in specs]
    function = load(text, main.name, namespace, emitted)
    guards = tuple(module.free.values())
    origin = Origin(functions=module.functions(), emitted=emitted, reads=list(module.reads),
                    free=[module.free_scopes[key] for key in module.free])
    return Generated(source=text, function=function, backend=backend.name,
                     result=main.result, guards=guards,
                     fallbacks=list(module.fallbacks), explanations=list(module.explanations),
                     parallel=parallel, switchable_ifs=module.switchable_ifs, origin=origin)


def load(text: str, main: str, namespace: dict, emitted) -> types.FunctionType:
    """Compile and run the generated module ``text`` in ``namespace`` (the values of the free
    names its code reads, besides its imports) and return its function ``main``. Its source
    is registered in `linecache` (tracebacks and `inspect.getsource` show generated lines) for
    as long as the function lives; ``emitted`` gives, for each function of the module, the
    original whose defaults it takes."""
    filename = f"<vectorize:{main}:{next(_counter)}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    compiled = compile(text, filename, "exec")
    exec(compiled, namespace)
    for name, original in emitted:
        generated = namespace[name]
        # defaults are values the original already evaluated (the source shows none)
        generated.__defaults__ = original.__defaults__
        generated.__kwdefaults__ = original.__kwdefaults__
    function = namespace[main]
    # the source stays readable for tracebacks exactly as long as the function lives
    weakref.finalize(function, linecache.cache.pop, filename, None)
    return function


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
