"""Print and load generated code: trees to text (`print_module`), text to a running function
(`load`: ``compile``, ``linecache``).

Kept apart from the passes so that later stages (performance rewrites, other namespaces, the
file rewriter) can replace how code is printed and loaded without touching the engine. The
file rewriter prints without loading: it writes the text into the user's file. Importing it
does not import libcst (`print_module` does): the disk cache (`vectorize.diskcache`) runs a
stored entry with `execute` and makes a `Generated` of it without the engine.
"""

from __future__ import annotations

import importlib
import itertools
import linecache
import sys
import types
import weakref
from dataclasses import dataclass, field

import numpy as np

from . import backends
from .spec_facts import ASSUMED, SpecFacts

SPELLED_WITH: dict = {}
"""Names that rules spell generated code with and the front end that owns them provides:
name -> (the function a user binds the name to, the one generated code calls); `vmap` adds
``"vmap"`` (a warm call of the batched vmap of a vmapped function transforms nothing)."""

_counter = itertools.count(1)


@dataclass
class Generated:
    """One compiled specialization: what the transform produced, nothing about how it runs
    (how the runtime chose to run it, on which batch sizes, in which form, is
    `chunks.Tuning`'s, kept next to it by the front ends)."""

    source: str
    function: types.FunctionType
    backend: str                         # the array namespace it is written for
    result: object                       # abstract value of what the function returns
    guards: tuple = ()                   # ((namespace, name, value), ...) read at transform
    fallbacks: list = field(default_factory=list)   # reasons for per-example pieces
    explanations: list = field(default_factory=list)  # (rule name, file, line), in order
    # whether chunks may run on several threads at once (`parallel_safe`, of the code)
    parallel: bool = False
    # per-example `if`s the heuristic left in select form that could be compacted
    # (`compact_ifs`); where there are some, the front ends can make the specialization with
    # all of them compacted, which `chunks.run` may time against this one
    switchable_ifs: int = 0
    # whether a per-example join met values of different types (an int on some lanes, a
    # float on others: `abstract.MIXED_TYPES`), so that an example's result type depends on
    # its values, as numpy.vectorize's first example decides it; None: not known
    mixed_types: bool | None = None
    # whether the code computes with per-example Python bools as ints (``True + True`` is 2,
    # `ModuleContext.python_bools`), where numpy.vectorize's first example, NumPy bools, has
    # another type: `vectorize` learns the output types from that example
    python_bools: bool = False
    # `vmap`: a result is cast to the type its lanes' own types stack to on the call
    # (`passes.lane_kinds`, `merge.settle`), a question of the whole batch: never in chunks
    settles_kinds: bool = False
    # whether an `isinstance` test of a parameter answers otherwise for numpy.vectorize's
    # first example, NumPy scalars (``isinstance(np.int64(1), int)`` is False), than for the
    # Python numbers every example gets (`ModuleContext.first_call_differs`): `vectorize`
    # makes that first call, and raises where it raises
    first_call_differs: bool = False
    # what the engine met that decides how a call runs (`spec_facts.SpecFacts`: per-example
    # choices, Python ints, calls that raise on NumPy scalars), set by `transform_function`;
    # every fact for code it did not make
    facts: SpecFacts = ASSUMED
    # what the transform read (`Origin`), for the disk cache; None for a loaded entry
    origin: object = None
    # seconds it took to make (the transform, or loading it from the disk cache; imports
    # not counted): what `chunks.run` expects another form of it to cost to build
    build_seconds: float = 0.0
    # (the store, the file, its checksum) of the disk-cache entry it was saved to or loaded
    # from, where the runtime keeps what it learned about running it (`chunks.Tuning`)
    disk_entry: object = None

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
      gets, in `Generated.guards`'s order;
    - ``attributes``: (function, scope, root name, attribute names, value) of every value it
      reached through attributes of a free name (``helpers.h``), guarded too;
    - ``aliases``: position in ``free`` -> the name the module's namespace holds it by, where
      that is not its own (a global of another module with the same name,
      `_one_value_per_name`)."""

    functions: list
    emitted: list
    reads: list
    free: list
    attributes: list = field(default_factory=list)
    aliases: dict = field(default_factory=dict)


def import_line(alias: str, module: types.ModuleType) -> str:
    if not isinstance(module, types.ModuleType):     # a function: from its module
        return f"from {module.__module__} import {module.__name__}" + (
            f" as {alias}" if alias != module.__name__ else "")
    name = module.__name__
    if name == alias:
        return f"import {name}"
    if "." in name and name.rsplit(".", 1)[1] == alias:
        parent, child = name.rsplit(".", 1)
        return f"from {parent} import {child}"
    return f"import {name} as {alias}"


@dataclass
class Printed:
    """A module of generated code as text, before anything runs it: what `load` compiles for
    the decorator and what the file rewriter (`vectorize.rewrite`) writes into a user's file.
    ``functions`` holds each function's text, the main function first."""

    main: str                            # the main function's name
    functions: list                      # [(name, text)], the main function first
    imports: dict                        # alias -> module the code refers to
    import_lines: list                   # their ``import`` lines, grouped as isort would
    header: str
    namespace: dict                      # the other globals it reads: name -> value
    referenced: set                      # every name the code mentions
    defaults: dict                       # name -> (__defaults__, __kwdefaults__) to restore
    backend: str
    result: object                       # abstract value of what the main function returns
    guards: tuple = ()
    # (`introspect.AttributePath`, label, value) of values reached through attributes
    attribute_guards: tuple = ()
    fallbacks: list = field(default_factory=list)
    explanations: list = field(default_factory=list)
    switchable_ifs: int = 0
    unbatched_returns: bool = False      # see `transform._Spec`
    origin: Origin | None = None

    @property
    def text(self) -> str:
        lines = [f"# {h}" if h else "#" for h in self.header.splitlines()] if self.header \
            else []
        lines += self.import_lines
        return "\n".join(lines) + "\n\n\n" + "\n\n".join(
            text.rstrip("\n") + "\n" for _, text in self.functions)


def print_module(specs, module, main, header: str = "") -> Printed:
    """The text of the main function and its specialized helpers (``specs``, the main one
    first), and what running it needs: the imports, the other globals it reads."""
    import libcst as cst  # here: loading printed code does not need libcst

    from .liveness import all_names
    from .syntax.edit import fix_parens
    from .syntax.printer import code
    from .syntax.traversal import walk
    backend = module.backend
    imports = {backend.alias: backend.module()}
    namespace: dict = {}
    trees = [_merges_named(spec.tree, module) for spec in specs]
    referenced = set().union(*(all_names(tree) for tree in trees))
    for alias, name in backend.extra_modules.items():    # `lax` of JAX's code
        if alias in referenced and alias not in {n for _, n, _ in module.free.values()}:
            imports.setdefault(alias, importlib.import_module(name))
    if "functools" in referenced:         # rules may use functools.reduce
        import functools
        imports.setdefault("functools", functools)
    if "math" in referenced and "math" not in {n for _, n, _ in module.free.values()}:
        import math  # the checks of `passes.python_raises` may spell math.isinf...
        imports.setdefault("math", math)
    if "scipy" in referenced and "scipy" not in {n for _, n, _ in module.free.values()}:
        # rules may write scipy.special (math.gamma, math.erf...)
        imports.setdefault("scipy", importlib.import_module("scipy.special") and
                           sys.modules["scipy"])
    # the user's globals the code reads by name (a helper's function is called by its
    # batched version's name instead)
    batched = {id(getattr(spec.source, "func", None)) for spec in module.specs.values()}
    user_free = {n for _, n, v in module.free.values() if id(v) not in batched}
    if "pymath" in referenced:   # Python's round(x, n), exact int functions
        from . import pymath
        if "pymath" in user_free and any(
                n.value.value == "pymath" for tree in trees for n in walk(tree)
                if type(n) is cst.Attribute and type(n.value) is cst.Name):
            from .errors import VectorizeError
            raise VectorizeError("the name `pymath` is bound to something else where the "
                                 "generated code calls vectorize.pymath by it (Python's "
                                 "round(x, n), exact int functions)",
                                 suggestion="give your `pymath` another name")
        if "pymath" not in user_free:
            imports.setdefault("pymath", pymath)
    if MERGE in referenced and MERGE not in user_free and \
            backend.blend("c", "a", "b") is not None:    # its rule (else: `np.where`)
        from .backends.numpy import merge
        imports.setdefault(MERGE, merge)
    trees, renamed = _one_value_per_name(specs, trees, module, referenced)
    if renamed:
        referenced = set().union(*(all_names(tree) for tree in trees))
    for key, (_, name, value) in module.free.items():
        name = renamed.get(key, name)
        if isinstance(value, types.ModuleType) and sys.modules.get(value.__name__) is value:
            if name not in referenced:
                continue
            imports.setdefault(name, value)
        elif name not in {s.name for s in specs}:
            namespace[name] = value
    for name, value in module.runtime_imports.items():
        if name in referenced:
            if name in user_free:
                from .errors import VectorizeError
                raise VectorizeError(f"the name `{name}` is bound to something else where "
                                     "the generated code calls a helper of its own by it",
                                     suggestion=f"give your `{name}` another name")
            imports.setdefault(name, value)
    if "vmap" in referenced and "vmap" in SPELLED_WITH:
        # the batched call of a vmapped function (`rules.nested`) is spelled with ours
        vmap, cached_vmap = SPELLED_WITH["vmap"]
        if namespace.get("vmap", vmap) is vmap:
            namespace["vmap"] = cached_vmap
        if namespace["vmap"] is not cached_vmap:
            from .errors import VectorizeError
            raise VectorizeError("the name `vmap` is bound to something other than "
                                 "vectorize.vmap where a vmapped function is called on "
                                 "per-example values", suggestion="import vmap from "
                                 "vectorize, or give the other one another name")
    if imports[backend.alias] is not backend.module():
        raise ValueError(f"the name `{backend.alias}` is used for something other than "
                         f"{backend.module_name}")
    # stdlib imports, then third-party ones, then this package's runtime (`pymath`), as
    # isort would group them
    def section(mod) -> int:
        top = getattr(mod, "__module__", None) or mod.__name__
        top = top.split(".")[0] if isinstance(mod, types.FunctionType) else \
            mod.__name__.split(".")[0]
        return 0 if top in sys.stdlib_module_names else 2 if top == __package__ else 1

    # (the backend's module is not imported by code that names none of it: a merge that is
    # all `merge.blend`)
    groups = [sorted((import_line(alias, mod) for alias, mod in imports.items()
                      if section(mod) == k and (alias in referenced or alias != backend.alias)),
                     key=lambda line: (line.startswith("from "), line)) for k in range(3)]
    import_lines = "\n\n".join("\n".join(g) for g in groups if g).split("\n")
    functions = [(spec.name, code(m, m)) for spec, tree in zip(specs, trees)
                 for m in [cst.Module(body=[fix_parens(tree)])]]
    # defaults are values the original already evaluated (the source shows none)
    defaults = {spec.name: (spec.source.func.__defaults__, spec.source.func.__kwdefaults__)
                for spec in specs}
    return Printed(main=main.name, functions=functions, imports=imports,
                   import_lines=import_lines, header=header, namespace=namespace,
                   referenced=referenced, defaults=defaults, backend=backend.name,
                   result=main.result, guards=tuple(module.free.values()),
                   attribute_guards=tuple(module.attribute_guards.values()),
                   fallbacks=list(module.fallbacks), explanations=list(module.explanations),
                   switchable_ifs=module.switchable_ifs,
                   unbatched_returns=main.unbatched_returns,
                   origin=Origin(functions=module.functions(),
                                 emitted=[(spec.name, spec.source.func) for spec in specs],
                                 reads=list(module.reads),
                                 free=[module.free_scopes[key] for key in module.free],
                                 attributes=list(module.attribute_scopes.values()),
                                 aliases={k: renamed[key] for k, key in enumerate(module.free)
                                          if key in renamed}))


def _one_value_per_name(specs, trees, module, referenced):
    """The generated code is one module: a name its functions read as a global is one value
    there. Where helpers from two modules read a name each binds to something else
    (aerocalc3's ``P0``: 29.9213 in HG in ``std_atm``, 101325.0 Pa in ``airspeed``), the
    later one's reads are renamed (``P0_airspeed``): ``(trees, {free key: new name})``.
    Refused where such a helper binds the name itself somewhere (a lambda's parameter)."""
    import libcst as cst

    from .errors import Unsupported
    from .liveness import all_names
    from .syntax.traversal import walk
    emitted = {s.name for s in specs}
    seen: dict = {}
    renamed: dict = {}
    taken = set(referenced) | {n for _, n, _ in module.free.values()}
    for key, (_, name, value) in module.free.items():
        if name not in referenced or name in emitted and not isinstance(
                value, types.ModuleType):
            continue
        if name not in seen:
            seen[name] = value
            continue
        if _same_value(seen[name], value):
            continue
        func, scope, _ = module.free_scopes[key]
        if scope == "global":
            readers = [k for k, s in enumerate(specs)
                       if getattr(getattr(s.source, "func", None), "__globals__", None)
                       is func.__globals__]
        else:
            readers = [k for k, s in enumerate(specs) if getattr(s.source, "func", None)
                       is func]
        for k in readers:
            if any(type(n) is cst.Param and n.name.value == name for n in walk(trees[k])):
                source = specs[k].source
                node = next((n for n in walk(source.tree)
                             if type(n) is cst.Name and n.value == name), None)
                raise source.error(Unsupported(
                    f"`{name}` is a global of `{func.__module__}` in one place and a "
                    "parameter in another, and a function of another module that this code "
                    f"calls reads a global `{name}` that is something else", node,
                    "give one of the two globals another name, or pass fallback='warn'"))
        module_name = getattr(func, "__module__", "") or ""
        base = f"{name}_{module_name.rsplit('.', 1)[-1]}"
        alias = base if base.isidentifier() else f"{name}_2"
        count = 2
        while alias in taken:
            alias = f"{base}_{count}"
            count += 1
        taken.add(alias)
        renamed[key] = alias
        for k in readers:
            if name in all_names(trees[k]):
                trees[k] = trees[k].visit(_RenameGlobal(name, alias))
    return trees, renamed


def _rename_global_class():
    import libcst as cst

    class RenameGlobal(cst.CSTTransformer):
        """Every read of the name ``old`` as a variable -> ``new`` (an attribute's name, a
        keyword argument's, are left as they are)."""

        def __init__(self, old, new):
            super().__init__()
            self.old, self.new = old, new

        def leave_Name(self, original, updated):
            return updated.with_changes(value=self.new) if updated.value == self.old \
                else updated

        def leave_Attribute(self, original, updated):
            return updated.with_changes(attr=original.attr)

        def leave_Arg(self, original, updated):
            return updated.with_changes(keyword=original.keyword)

    return RenameGlobal


def _RenameGlobal(old, new):
    return _rename_global_class()(old, new)


def _same_value(a, b) -> bool:
    if a is b:
        return True
    if type(a) is type(b) and type(a) in (int, float, complex, str, bytes, bool):
        return a == b or a != a and b != b
    return False


MERGE = "merge"
"""The name generated NumPy code calls `vectorize.backends.numpy.merge` by (``merge.blend``)."""

_MERGE_SPELLED = {"blend": "where", "blend_pass": "where", "maximum": "maximum",
                  "minimum": "minimum", "rows_dot": "matmul", "settle": None,
                  "all_lanes": "all"}
"""`merge`'s functions that generated code calls -> the NumPy function each computes (None:
none does)."""


def _merges_named(tree, module):
    """``tree`` where the name `MERGE` is free for the runtime's module, else (the user's
    code names something else so: a global, a local; or the code is for a file, which must
    not need this package: ``module.standalone``) with ``merge.blend(c, a, b)`` written
    ``np.where(c, a, b)``, which computes the same (``merge.maximum(c, a)``:
    ``np.maximum(c, a)``; ``merge.rows_dot(x, w)``: ``x @ w``)."""
    import libcst as cst

    from .liveness import all_names

    if MERGE not in all_names(tree):
        return tree
    others = getattr(module, "standalone", False) or \
        MERGE in {n for _, n, _ in module.free.values()}
    stack = [tree]
    while stack and not others:
        node = stack.pop()
        if type(node) is cst.Attribute and type(node.value) is cst.Name and \
                node.value.value == MERGE and node.attr.value in _MERGE_SPELLED:
            continue
        others = type(node) is cst.Name and node.value == MERGE
        stack.extend(node.children)
    if not others:
        return tree
    alias = module.backend.alias

    class _Where(cst.CSTTransformer):
        def leave_Call(self, original, updated):
            # `merge.rows_dot(x, w)` is `x @ w` (as `np.matmul`, written as people write it)
            func = original.func
            if type(func) is cst.Attribute and type(func.value) is cst.Name and \
                    func.value.value == MERGE and func.attr.value == "rows_dot" and \
                    len(updated.args) == 2:
                return cst.BinaryOperation(left=updated.args[0].value,
                                           operator=cst.MatrixMultiply(),
                                           right=updated.args[1].value,
                                           lpar=updated.lpar, rpar=updated.rpar)
            return updated

        def leave_Attribute(self, original, updated):
            if type(updated.value) is cst.Name and updated.value.value == MERGE and \
                    updated.attr.value in _MERGE_SPELLED:
                if _MERGE_SPELLED[updated.attr.value] is None:
                    from .errors import VectorizeError
                    raise VectorizeError(
                        f"the name `{MERGE}` is bound to something else where the generated "
                        "code calls vectorize.backends.numpy.merge by it (the type of a result "
                        "of lanes of different types: `merge.settle`)",
                        suggestion=f"give your `{MERGE}` another name")
                return updated.with_changes(value=cst.Name(alias), attr=cst.Name(
                    _MERGE_SPELLED[updated.attr.value]))
            return updated
    return tree.visit(_Where())


def load(printed: Printed) -> Generated:
    """Compile and run the printed module; its text is registered in `linecache` (tracebacks
    and ``inspect.getsource`` show generated lines) for as long as the function lives."""
    text = printed.text
    parallel = backends.get(printed.backend).threads and parallel_safe(
        printed.fallbacks, printed.referenced, printed.imports, printed.namespace)
    function = execute(text, printed.main, printed.namespace, printed.defaults)
    function = backends.get(printed.backend).runnable(function, text)
    return Generated(source=text, function=function, backend=printed.backend,
                     result=printed.result,
                     guards=printed.guards + printed.attribute_guards,
                     fallbacks=list(printed.fallbacks),
                     explanations=list(printed.explanations), parallel=parallel,
                     switchable_ifs=printed.switchable_ifs, origin=printed.origin)


def execute(text: str, main: str, values: dict, defaults: dict) -> types.FunctionType:
    """Compile and run the module ``text`` with the globals ``values`` (the free names its
    code reads besides its imports) and return its function ``main``; ``defaults``: name ->
    (``__defaults__``, ``__kwdefaults__``) of each of its functions. Also what the disk cache
    (`vectorize.diskcache`) loads an entry with."""
    namespace = {"__name__": f"vectorize.generated.{main}", **values}
    filename = f"<vectorize:{main}:{next(_counter)}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    compiled = compile(text, filename, "exec")
    exec(compiled, namespace)
    for name, (positional, keywords) in defaults.items():
        namespace[name].__defaults__ = positional
        namespace[name].__kwdefaults__ = keywords
    function = namespace[main]
    # the source stays readable for tracebacks exactly as long as the function lives
    weakref.finalize(function, linecache.cache.pop, filename, None)
    return function


PARALLEL_MODULES = frozenset({"numpy", "math", "cmath", "functools", "operator",
                              "vectorize.pymath", "vectorize.backends.numpy.merge"})
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
