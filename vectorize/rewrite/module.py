"""Rewrite one file's text: its marked functions become batched functions, loops over examples
that call them become batched calls, and nothing else changes.

The rest of the file is kept byte for byte (libcst keeps formatting and comments): a marked
function's ``def`` is replaced by the generated one (the user's decorators other than the
mark, parameters with their defaults and annotations, and the comments above it stay), the
batched helpers it calls follow it, the imports the new code needs are added after the
file's imports, and an import of this package that nothing uses any more is removed.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import sys
import types
from dataclasses import dataclass, field

import libcst as cst
import numpy as np

from ..abstract import PythonSemantics
from ..errors import UNDEFINED_NAME, VectorizeError, fallback_parts
from ..introspect import ContentsGuard
from ..liveness import all_names
from ..transform import ModuleContext, transform_source
from . import boundary, call_sites, skeleton
from .defaults import with_defaults
from .marks import Located, is_mark, mark_of, plan
from .report import Rewritten

HELPER_SUFFIX = "_batched"


@dataclass
class Outcome:
    text: str                                   # the new text (the old one if nothing changed)
    errors: list = field(default_factory=list)      # VectorizeError
    warnings: list = field(default_factory=list)    # VectorizeError (per-example pieces)
    notes: list = field(default_factory=list)       # (line, message): what stays and why
    rewritten: list = field(default_factory=list)   # Rewritten
    loops: list = field(default_factory=list)       # call_sites.Loop, rewritten or not


def rewrite_text(text: str, filename: str, *, only: str | None = None,
                 explain: bool = False, backend: str = "numpy") -> Outcome:
    """Rewrite ``text`` (the contents of ``filename``); ``only``: just the marked function of
    that name; ``backend``: the array library the new code is written for ("numpy",
    "torch", "jax"). With errors, ``Outcome.text`` is the input unchanged."""
    outcome = Outcome(text)
    where = Located(filename, text.splitlines())
    try:
        tree = compile(text, filename, "exec", ast.PyCF_ONLY_AST | ast.PyCF_TYPE_COMMENTS,
                       dont_inherit=True)
        compile(tree, filename, "exec", dont_inherit=True)   # the errors only compiling finds
    except SyntaxError as exc:
        outcome.errors.append(_syntax_error(exc, where))
        return outcome
    except ValueError as exc:     # null bytes
        outcome.errors.append(VectorizeError(f"cannot parse the file: {exc}",
                                             filename=filename, line=1))
        return outcome
    if "vectorize" not in text and "vmap" not in text:
        return outcome       # nothing can be marked: the skeleton need not run
    skel = skeleton.build(tree, filename, text, is_mark)
    marked = _marked(tree, skel.namespace, only, where, outcome)
    if not marked:
        return outcome
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as exc:
        outcome.errors.append(VectorizeError(
            f"libcst cannot parse the file: {exc.message}", filename=filename,
            line=exc.raw_line, col=exc.raw_column, source_line=_line(where.lines, exc.raw_line)))
        return outcome
    original_module = module
    rewriter = _Functions(module, tree, skel, where, explain, outcome, backend)
    # the functions are rewritten as the file runs them: with NumPy's promotions, which the
    # file's setup gives the namespace (`Backend.file_setup`: PyTorch's default dtype)
    with rewriter.context.backend.numpy_call((), {}) or contextlib.nullcontext():
        for stmt, mark in marked:
            rewriter.rewrite(stmt, mark)
    if not outcome.errors:
        _check_aliases(rewriter.needed, skel, marked[0][0], where, outcome)
    if not outcome.errors:
        _check_excluded_calls(tree, rewriter.plans, skel.namespace, where, outcome)
    if outcome.errors:
        return outcome
    backend = rewriter.context.backend
    with backend.numpy_call((), {}) or contextlib.nullcontext():
        module, outcome.loops = call_sites.rewrite(module, rewriter.plans, skel.namespace,
                                                   skip=set(rewriter.plans),
                                                   alias=backend.alias,
                                                   array_module=backend.module(),
                                                   numpy_version=rewriter.numpy_version)
    for loop in outcome.loops:
        if loop.rewritten:
            rewriter.needed.update(loop.imports)
        if loop.error or loop.warning:
            (outcome.errors if loop.error else outcome.warnings).append(VectorizeError(
                loop.error or loop.warning, filename=filename, line=loop.at[0],
                col=loop.at[1], source_line=_line(where.lines, loop.at[0]), suggestion=(
                    f"annotate `{loop.function}`'s parameters with what the file passes, or "
                    f"keep the decorator on `{loop.function}` (docs/cli.md, \"What a marked "
                    "function is rewritten for\")")))
    if outcome.errors:
        return outcome
    body = []
    for stmt in module.body:
        body += rewriter.replacements.get(id(stmt), [stmt])
    module = _drop_unused_marks(module.with_changes(body=body), skel.namespace)
    # what the written code names: an import or a helper the new code ended up not using (a
    # rule's name a later pass rewrote away) is not added
    used = _names_used(module)
    needed = {a: v for a, v in rewriter.needed.items() if a not in skel.namespace and a in used}
    # functions of this package the new code calls (JAX's `promote_carry`) are written into
    # the file: it must not need vectorize
    inlined = [v for v in needed.values() if not isinstance(v, types.ModuleType)]
    needed = {a: v for a, v in needed.items() if isinstance(v, types.ModuleType)}
    setup_imports, setup = backend.file_setup() if rewriter.replacements else ({}, [])
    for alias, value in setup_imports.items():
        if skel.namespace.get(alias, value) is value and alias not in skel.namespace:
            needed.setdefault(alias, value)
    inlined, constants = _with_dependencies(inlined, set(skel.namespace) | set(needed),
                                            where, marked[0][0], outcome)
    if outcome.errors:
        return outcome
    module = _add_imports(module, needed)
    module = _add_setup(module, setup + constants, inlined)
    # the file's own imports that only the rewritten code read (``import math`` for a
    # ``math.sqrt`` now ``np.sqrt``; NumPy's where the code is now JAX's) go with it
    # (modules only, never one `__all__` names: another file may import a function from
    # this one, and a package's `__init__` re-exports what it imports)
    made_unused = {name for name in _names_used(original_module) - _names_used(module)
                   if isinstance(skel.namespace.get(name), types.ModuleType)
                   and name not in _exported(tree)} \
        if not filename.endswith("__init__.py") else set()
    if made_unused:
        module = _drop_unused_marks(module, skel.namespace, made_unused)
    new_text = module.code
    try:
        compile(new_text, filename, "exec", dont_inherit=True)
    except SyntaxError as exc:   # an engine bug: the file stays as it was
        outcome.errors.append(VectorizeError(
            f"internal error: the rewritten file does not compile ({exc.msg}, line "
            f"{exc.lineno}); the file is left as it is", filename=filename, line=1,
            suggestion="please report this with the file"))
        return outcome
    outcome.text = new_text
    return outcome


def _marked(tree: ast.Module, namespace: dict, only, where: Located, outcome) -> list:
    """(the ``def``, its mark) of each module-level marked function to rewrite; notes for
    the marked functions elsewhere, warnings for those whose decorator object the file uses."""
    marked = []
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            mark = next((m for d in stmt.decorator_list
                         for m in [mark_of(d, namespace)] if m is not None), None)
            if mark is not None and (only is None or stmt.name == only):
                marked.append((stmt, mark))
    top = {id(stmt) for stmt in tree.body}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and id(node) not in top \
                and any(is_mark(d, namespace) for d in node.decorator_list):
            outcome.notes.append((node.lineno, f"`{node.name}` is marked but not defined at "
                                               "module level: only module-level functions are "
                                               "rewritten, it is left as it is"))
    return [(stmt, mark) for stmt, mark in marked
            if not _uses_decorator_object(stmt.name, tree, where, outcome)]


class _Functions:
    """Rewrites the marked functions of one file, in one `ModuleContext` (helpers shared)."""

    def __init__(self, module: cst.Module, tree: ast.Module, skel, where: Located,
                 explain: bool, outcome: Outcome, backend: str = "numpy"):
        self.backend = backend
        self.module = module
        self.skel = skel
        self.tree = tree
        self.where = where
        self.explain = explain
        self.outcome = outcome
        self.taken = all_names(module) | set(skel.namespace)
        self.context = _context(self.taken, explain, backend)
        defs = [s for s in module.body if isinstance(s, cst.FunctionDef)]
        ast_defs = [s for s in tree.body if isinstance(s, (ast.FunctionDef,
                                                           ast.AsyncFunctionDef))]
        self.cst_of = {id(a): c for a, c in zip(ast_defs, defs)}
        self.replacements: dict[int, list] = {}   # id(cst def) -> what replaces it
        self.emitted: set[str] = set()            # helpers already placed
        self.needed: dict[str, object] = {}       # alias -> module the new code imports
        self.plans: dict[str, object] = {}        # rewritten name -> Plan
        self.stmts: dict[str, ast.FunctionDef] = {}   # rewritten name -> its def
        # (rewritten name, its parameters that are NumPy scalars) -> (name, Plan) of the
        # version for NumPy scalars (`numpy_version`), or None where there is none
        self.numpy_versions: dict[tuple, tuple | None] = {}

    def rewrite(self, stmt, mark) -> None:
        context, where, skel = self.context, self.where, self.skel
        start, fallbacks = len(context.explanations), len(context.fallbacks)
        try:
            function = skel.marked.get(stmt.name)
            if function is None:
                raise where.error(stmt, f"`{stmt.name}` cannot be read: "
                                        f"{skel.why_unknown(stmt.name) or 'its def failed'}")
            the_plan = plan(stmt, function, mark, skel.namespace, where)
            context.allow_fallback = the_plan.fallback != "error"
            context.python_semantics = _python_numbers(the_plan)
            context.python_bools = False
            try:
                printed = transform_source(function, the_plan.params, context=context,
                                           name=stmt.name)
            finally:
                context.python_semantics = False
            if context.python_bools:
                raise where.error(stmt, f"`{stmt.name}` computes with per-example bools as "
                                        "numbers (`(x > 0) + (y > 0)`): the decorator follows "
                                        "numpy.vectorize, whose output type is its first "
                                        "example's (NumPy bools there, whose sum of two "
                                        "trues is True), which the rewritten code cannot "
                                        "cast to",
                                  "write the conversion, e.g. `int(x > 0) + (y > 0)`, or "
                                  "keep the decorator")
            _check(the_plan, printed, stmt, where)
            _check_foreign_names(printed, skel.namespace, stmt, where)
            the_plan.result = printed.result
            the_plan.new_result = call_sites.returns_new_array(printed.functions[0][1],
                                                               context.backend.alias)
            the_plan.raises = call_sites.raised_types(text for _, text in printed.functions)
            statements, wrapped = _replacement(the_plan, printed, self.cst_of[id(stmt)], stmt,
                                               context, self.emitted, self.module,
                                               skel.namespace, (self.tree, where))
        except VectorizeError as exc:
            self.outcome.errors.append(_explain_unknown(exc, skel))
            # its helpers may be half built: the next function starts afresh
            self.context = _context(self.taken | context.function_names.taken, self.explain,
                                    self.backend)
            return
        for alias, value in printed.imports.items():
            self.needed.setdefault(alias, value)
        if the_plan.fallback == "warn":
            self.outcome.warnings += [_fallback_warning(reason, where) for reason
                                      in dict.fromkeys(context.fallbacks[fallbacks:])]
        self.replacements[id(self.cst_of[id(stmt)])] = statements
        self.plans[stmt.name] = the_plan
        self.stmts[stmt.name] = stmt
        the_plan.texts = dict(printed.functions)
        texts = dict(printed.functions)
        originals = {spec.name: spec.source.func for spec in context.order}
        originals[stmt.name] = function
        self.outcome.rewritten.append(Rewritten(
            stmt.name, min([stmt.lineno] + [d.lineno for d in stmt.decorator_list]),
            stmt.lineno, stmt.end_lineno,
            "".join(self.module.code_for_node(s) for s in statements),
            context.explanations[start:], context.registry,
            [(originals[name], texts[name]) for name, _ in printed.functions], wrapped))

    def numpy_version(self, name: str, scalars: frozenset):
        """The version of the rewritten ``@vectorize`` function ``name`` for calls that pass
        the parameters ``scalars`` NumPy scalars (the items of an array, `call_sites`):
        numpy.vectorize hands a NumPy scalar to the function as it is, which then computes
        as NumPy does (`1.0 / np.float64(0.0)` is inf, int64 wraps, `round` rounds half to
        even) where the rewritten code, made for Python numbers, checks as Python does.
        (its name, its Plan): ``name``'s own where its code is the same for those, a new
        function placed after it (``<name>_numpy``) where it is not; None where the engine
        cannot make one (the loop keeps the warning)."""
        key = (name, scalars)
        if key in self.numpy_versions:
            return self.numpy_versions[key]
        self.numpy_versions[key] = None
        the_plan, stmt = self.plans[name], self.stmts[name]
        context, skel = self.context, self.skel
        semantics = _python_numbers(the_plan)
        if not semantics:
            self.numpy_versions[key] = (name, the_plan)
            return self.numpy_versions[key]
        python = tuple(v for v in semantics.numbers
                       if not any(v is the_plan.params[n] for n in scalars))
        new_name = context.function_names.fresh(name + "_numpy")
        new_plan = dataclasses.replace(the_plan, name=new_name)
        # NumPy scalars per example are `vmap`'s examples (its semantics, False: the Python
        # numbers the function makes itself, `1.0 / 0.0`, still raise as Python's do); where
        # other batched arguments are Python numbers, the code for those only
        # (`PythonSemantics` of them: the decorator hands a NumPy scalar argument on as it
        # is, as `vectorize` is made for one)
        printed = self._version(the_plan, stmt, new_plan,
                                PythonSemantics(python) if python else False)
        if printed is None:
            return None
        texts = dict(printed.functions)
        if texts[new_name] == the_plan.texts[name].replace(f"def {name}(", f"def {new_name}(",
                                                           1) and \
                all(texts[n] == the_plan.texts.get(n) for n in texts if n != new_name):
            self.numpy_versions[key] = (name, the_plan)     # the very same code
            return self.numpy_versions[key]
        new_plan.result = printed.result
        new_plan.new_result = call_sites.returns_new_array(texts[new_name],
                                                           context.backend.alias)
        new_plan.raises = call_sites.raised_types(text for _, text in printed.functions)
        new_plan.texts = texts
        statements, _ = _replacement(new_plan, printed, self.cst_of[id(stmt)], stmt, context,
                                     self.emitted, self.module, skel.namespace,
                                     (self.tree, self.where))
        statements[0] = statements[0].with_changes(leading_lines=_blank_lines(
            self.module.config_for_parsing))
        for alias, value in printed.imports.items():
            self.needed.setdefault(alias, value)
        self.replacements[id(self.cst_of[id(stmt)])] += statements
        self.numpy_versions[key] = (new_name, new_plan)
        return self.numpy_versions[key]

    def _version(self, the_plan, stmt, new_plan, semantics, same_as=None):
        """``the_plan``'s function made as ``new_plan.name`` for ``semantics`` (the printed
        code), or None where the engine refuses it or (``same_as``) its code differs."""
        context, skel = self.context, self.skel
        context.allow_fallback = the_plan.fallback != "error"
        context.python_semantics = semantics
        context.python_bools = False
        try:
            printed = transform_source(skel.marked[the_plan.name], the_plan.params,
                                       context=context, name=new_plan.name)
            _check(new_plan, printed, stmt, self.where)
            _check_foreign_names(printed, skel.namespace, stmt, self.where)
        except VectorizeError:
            return None
        finally:
            context.python_semantics = False
        if context.python_bools:
            return None
        if same_as is not None and dict(printed.functions) != dict(same_as.functions):
            return None
        return printed


def _check_aliases(needed: dict, skel, stmt, where: Located, outcome: Outcome) -> None:
    """The names the new code calls modules by (``np``) are free or are those modules."""
    for alias, value in needed.items():
        if alias in skel.namespace and skel.namespace[alias] is not value:
            outcome.errors.append(where.error(
                stmt, f"the rewritten code calls {value.__name__} `{alias}`, but this file "
                      f"binds `{alias}` to something else",
                f"import {value.__name__} as {alias}, or rename your `{alias}`"))
        elif alias not in skel.namespace and skel.why_unknown(alias) is not None:
            outcome.errors.append(where.error(
                stmt, f"the rewritten code calls {value.__name__} `{alias}`, but this file "
                      f"binds `{alias}` in a way the file rewriter does not follow: "
                      f"{skel.why_unknown(alias)}", f"import {value.__name__} as {alias}"))


def _check_excluded_calls(tree: ast.Module, plans: dict, namespace: dict, where: Located,
                          outcome) -> None:
    """numpy.vectorize leaves out of the broadcast a name in ``excluded`` only where it is
    passed by keyword, and a position only where it is passed by position: a call of the
    file that passes such a parameter the other way broadcasts it as a batched argument,
    which the rewritten function (passing it as it is) would not. Such a call is an error
    (one with ``*args`` or ``**kwargs`` may be one, and is one too), unless the argument is
    one number, string or None (a literal, a module constant: the same in every example)."""
    def scalar(arg) -> bool:
        if isinstance(arg, ast.UnaryOp):
            arg = arg.operand
        if isinstance(arg, ast.Constant):
            return True
        return isinstance(arg, ast.Name) and isinstance(
            namespace.get(arg.id, ()), (int, float, complex, str, type(None)))

    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        plan = plans.get(node.func.id)
        if plan is None or plan.kind != "vectorize":
            continue
        starred = any(isinstance(a, ast.Starred) for a in node.args) or any(
            k.arg is None for k in node.keywords)
        keywords = {k.arg for k in node.keywords}
        for name, position in plan.excluded_by_name.items():
            if starred or position < len(node.args) and not scalar(node.args[position]):
                outcome.errors.append(where.error(
                    node, f"`{name}` is excluded by name, which numpy.vectorize honours for a "
                          "keyword argument only: passed by position it is broadcast as a "
                          f"batched argument, which the rewritten `{plan.name}` would not do",
                    f"pass it as `{name}=...`, or exclude its position too "
                    f"(excluded={{{name!r}, {position}}})"))
                return
        for name, position in plan.excluded_by_position.items():
            if starred or name in keywords and not scalar(
                    next(k.value for k in node.keywords if k.arg == name)):
                outcome.errors.append(where.error(
                    node, f"`{name}` is excluded by position ({position}), which "
                          "numpy.vectorize honours for a positional argument only: passed by "
                          "keyword it is broadcast as a batched argument, which the rewritten "
                          f"`{plan.name}` would not do",
                    f"pass it by position, or exclude its name too "
                    f"(excluded={{{position}, {name!r}}})"))
                return
        if _array_to_a_number(node, plan, namespace, where, outcome):
            return


def _array_to_a_number(call: ast.Call, plan, namespace: dict, where: Located,
                       outcome) -> bool:
    """A parameter passed as it is that the rewritten function computes with as a number
    (its default's or annotation's type) given a module-level array, list or tuple by a call
    of the file: an error (the decorator hands the function that object, the rewritten code
    computes with it as the number it was made for: a tensor compared with a NumPy array, a
    truth value of an array...)."""
    positional = [n for n in plan.params if n not in plan.keyword_only]
    given = dict(zip(positional, call.args))
    given.update((k.arg, k.value) for k in call.keywords if k.arg is not None)
    for name, arg in given.items():
        value = plan.params.get(name)
        if name in plan.batched or not isinstance(arg, ast.Name) or not isinstance(
                getattr(value, "example", None), (int, float, complex, np.number)):
            continue
        passed = namespace.get(arg.id)
        if isinstance(passed, (np.ndarray, list, tuple)):
            outcome.errors.append(where.error(
                arg, f"`{arg.id}` is not a number, but `{plan.name}` is rewritten for `{name}` "
                     f"a {type(value.example).__name__} (passed as it is to every example)",
                f"annotate `{name}` with what the file passes, or pass one number"))
            return True
    return False


def _uses_decorator_object(name: str, tree: ast.Module, where: Located, outcome) -> bool:
    """Whether the file uses an attribute of the decorator's object (``f.source``), which a
    plain function does not have: then ``f`` is left as it is, with a warning."""
    plain = set(dir(_plain_function))
    uses = sorted((node for node in ast.walk(tree) if isinstance(node, ast.Attribute)
                   and isinstance(node.value, ast.Name) and node.value.id == name
                   and node.attr not in plain), key=lambda n: (n.lineno, n.col_offset))
    if not uses:
        return False
    node = uses[0]
    outcome.warnings.append(where.error(
        node, f"`{name}.{node.attr}` uses the object @vectorize/@vmap makes, which the "
              f"rewritten `{name}` (a plain function) does not have; `{name}` is left as it is",
        f"drop this use of `{name}.{node.attr}` to rewrite `{name}`"))
    return True


def _plain_function():
    """A plain function, for its attributes."""


def _python_numbers(the_plan):
    """What `vectorize`'s decorator hands a `@vectorize` function per example: Python numbers
    (numpy.vectorize's), so its code raises where Python raises (`1.0 / 0.0`, an int too
    large for int64) and rounds as Python does; the rewritten function is that code
    (`abstract.PythonSemantics`). `@vmap` functions and `signature=` arrays get NumPy's."""
    if the_plan.kind != "vectorize" or the_plan.signature is not None:
        return False
    numbers = tuple(the_plan.params[name] for name in the_plan.batched
                    if getattr(the_plan.params[name].example, "dtype", None) in _PYTHON_DTYPES)
    return PythonSemantics(numbers) if numbers else False


_PYTHON_DTYPES = {np.dtype(t) for t in (np.bool_, np.int64, np.float64, np.complex128)}


def _context(taken: set, explain: bool, backend: str = "numpy") -> ModuleContext:
    context = ModuleContext(backend, "warn", explain=explain, taken=taken,
                            helper_suffix=HELPER_SUFFIX)
    context.standalone = True       # a file must not need vectorize: np.where merges
    return context


def _line(lines: list[str], number: int) -> str:
    return lines[number - 1] if 0 < number <= len(lines) else ""


def _syntax_error(exc: SyntaxError, where: Located) -> VectorizeError:
    line = exc.lineno or 1
    source = _line(where.lines, line)
    col = max((exc.offset or 1) - 1, 0)
    return VectorizeError(f"syntax error: {exc.msg}", filename=where.filename, line=line,
                          col=min(col, len(source)), source_line=source)


def _explain_unknown(exc: VectorizeError, skel) -> VectorizeError:
    """The engine says `name` is not defined where the skeleton left it out: say why."""
    if exc.kind == UNDEFINED_NAME:
        name = exc.subject
        why = skel.why_unknown(name)
        if why is not None:
            return VectorizeError(
                f"the file rewriter does not know the value of `{name}`: {why}",
                filename=exc.filename, line=exc.line, col=exc.col,
                source_line=exc.source_line,
                suggestion=f"pass `{name}` as a parameter, or set it at module level to a "
                           "constant (docs/cli.md, \"What runs\")")
    return exc


def _fallback_warning(reason: str, where: Located) -> VectorizeError:
    path, number, message = fallback_parts(reason)
    source = _line(where.lines, number) if path == where.filename else ""
    return VectorizeError(f"runs per example (a Python loop in the rewritten code): {message}",
                          filename=path or where.filename, line=number,
                          col=len(source) - len(source.lstrip()), source_line=source)


def _check(the_plan, printed, stmt, where: Located) -> None:
    """What the decorator does at run time that the rewritten code would not."""
    result = printed.result
    items = getattr(result, "items", None) or (result,)
    if printed.unbatched_returns or not all(getattr(i, "batched", False) for i in items):
        raise where.error(stmt, f"`{stmt.name}` returns, on some path, a value that is the "
                                "same for every example; the decorator broadcasts it to the "
                                "batch, the rewritten code would return it as it is",
                          "compute the result from the batched parameters (e.g. "
                          "`0.0 * x` instead of `0.0`), or keep the decorator")
    if the_plan.signature is not None:
        outputs = the_plan.signature[1]
        ranks = [getattr(i, "rank", 0) for i in items]
        if len(outputs) != len(items) or any(len(d) != r for d, r in zip(outputs, ranks)):
            raise where.error(the_plan.decorator, f"`{stmt.name}` returns "
                                                  f"{len(items)} value(s) of per-example rank "
                                                  f"{ranks}, the signature says "
                                                  f"{[len(d) for d in outputs]}")
    if the_plan.otypes is not None:
        dtypes = [getattr(i, "dtype", None) for i in items]
        if any(d != o for d, o in zip(dtypes, the_plan.otypes)):
            raise where.error(the_plan.decorator, f"otypes={[str(o) for o in the_plan.otypes]} "
                                                  f"would cast the results "
                                                  f"({[str(d) for d in dtypes]}); the file "
                                                  "rewriter does not cast",
                              "convert in the function (e.g. `float(...)`) and drop otypes")


def _check_foreign_names(printed, namespace: dict, stmt, where: Located) -> None:
    """A helper from another module reads that module's globals; its batched version, written
    into this file, would read this file's."""
    free = None
    for scope, name, value in printed.guards:
        if isinstance(scope, ContentsGuard):
            scope = scope.namespace     # (guarded by its items too: whose name it is)
        if scope is namespace or isinstance(value, types.ModuleType):
            continue
        if isinstance(value, types.FunctionType):
            # a function the code no longer names (its calls are of its batched version,
            # written into this file: a closure bound into a helper, a nested `def`)
            free = _globals_read(printed) if free is None else free
            if name not in free:
                continue
            code = getattr(value, "__code__", None)
            if code is not None and code.co_filename == where.filename:
                # (a nested `def` or a lambda of the marked function, made once as a helper)
                raise where.error(stmt, f"the rewritten `{stmt.name}` would pass on `{name}`, "
                                        "a function defined in the body of a function of "
                                        "this file, which the written file does not bind",
                                  f"define `{name}` at module level")
        raise where.error(stmt, f"`{stmt.name}` calls a function of another module that "
                                f"reads `{name}`, a name of its own module; its batched "
                                "version, written into this file, could not see it",
                          f"pass `{name}` as a parameter, or copy the function into this "
                          "file")


def _globals_read(printed) -> set:
    """The names the generated functions read as globals (or builtins)."""
    import symtable
    out: set = set()
    for _, text in printed.functions:
        stack = list(symtable.symtable(text, "<generated>", "exec").get_children())
        while stack:
            table = stack.pop()
            out |= {s.get_name() for s in table.get_symbols()
                    if s.is_referenced() and s.is_global()}
            stack += table.get_children()
    return out


def _replacement(the_plan, printed, original: cst.FunctionDef, stmt, context, emitted: set,
                 module: cst.Module, namespace: dict, file=None) -> list:
    """The statements that replace a marked ``def``: the rewritten function (or its wrapper
    and the generated code as ``<name>_batched``), then the helpers not placed yet."""
    functions = dict(printed.functions)
    alias = context.backend.alias
    config = module.config_for_parsing
    main = cst.parse_statement(functions[the_plan.name], config)
    decorators = [d for d, a in zip(original.decorators, stmt.decorator_list)
                  if mark_of(a, namespace) is None]
    if boundary.needs_wrapper(the_plan, functions, alias):
        body_name = context.function_names.fresh(the_plan.name + HELPER_SUFFIX)
        docstring = main.get_docstring(clean=False)
        body = main.with_changes(name=cst.Name(body_name))
        if docstring is not None:
            body = body.with_changes(body=body.body.with_changes(body=body.body.body[1:]))
        lines = boundary.wrapper(the_plan, body_name, printed.result, alias,
                                 broadcast=context.backend.broadcast_arrays,
                                 converts=context.backend.converts_arguments)
        if docstring is not None:
            lines.insert(0, main.body.body[0])
        head = cst.parse_statement(f"def {the_plan.name}():\n    pass\n", config)
        wrapper_body = [line if isinstance(line, cst.CSTNode) else cst.parse_statement(
            line + "\n", config) for line in lines]
        main = head.with_changes(body=head.body.with_changes(body=wrapper_body))
        body = body.with_changes(leading_lines=_blank_lines(config))
        functions_after = [body]
    else:
        functions_after, body_name = [], None
        prologue = boundary.prologue(the_plan, alias)
        if prologue:
            statements = list(main.body.body)
            at = 1 if main.get_docstring(clean=False) is not None else 0
            statements.insert(at, cst.parse_statement(prologue + "\n", config))
            main = main.with_changes(body=main.body.with_changes(body=statements))
    main = main.with_changes(params=original.params, returns=original.returns,
                             decorators=decorators, leading_lines=original.leading_lines)
    out = [main] + functions_after
    for name, text in printed.functions[1:]:
        if name in emitted:
            continue
        emitted.add(name)
        helper = cst.parse_statement(text, config)
        if file is not None:     # the defaults the decorator gives it at run time
            helper = with_defaults(helper, dict(printed.origin.emitted)[name], file[0],
                                   namespace, stmt, file[1])
        out.append(helper.with_changes(leading_lines=_blank_lines(config)))
    return out, body_name


def _blank_lines(config) -> list:
    return [cst.EmptyLine(), cst.EmptyLine()]


def _add_imports(module: cst.Module, needed: dict) -> cst.Module:
    """``import numpy as np`` (and the like) among the file's first imports, where isort
    would put it (``__future__``, the standard library, then the others, by module name)."""
    if not needed:
        return module
    from ..codegen import import_line
    body = list(module.body)
    block = []                   # indices of the imports at the top of the file
    for i, stmt in enumerate(body):
        if _is_import(stmt):
            block.append(i)
        elif not (i == 0 and _is_docstring(stmt)):
            break
    for alias, value in sorted(needed.items(), key=lambda item: item[1].__name__,
                               reverse=True):
        line = import_line(alias, value)
        new = cst.parse_statement(line + "\n", module.config_for_parsing)
        # isort's order: by section, `import x` before `from x import y`, then by name
        key = _section(value.__name__, line.startswith("from "))
        after = [i for i in block if _section(_imported(body[i]), isinstance(
            body[i].body[0], cst.ImportFrom)) > key]
        if after:
            at = after[0]
            lines = list(body[at].leading_lines)
            blank = 0
            while blank < len(lines) and lines[blank].comment is None:
                blank += 1
            new = new.with_changes(leading_lines=lines[:blank])
            body[at] = body[at].with_changes(leading_lines=lines[blank:])
        else:
            at = block[-1] + 1 if block else int(bool(body) and _is_docstring(body[0]))
        body.insert(at, new)
        block = [i + (i >= at) for i in block] + [at]
        block.sort()
    return module.with_changes(body=body)


def _add_setup(module: cst.Module, statements: list[str], functions: list) -> cst.Module:
    """The backend's module-level set-up statements, then the definitions of the runtime
    functions the new code calls, after the file's first imports."""
    if not statements and not functions:
        return module
    import inspect
    import textwrap
    body = list(module.body)
    at = 0
    while at < len(body) and (_is_import(body[at]) or (at == 0 and _is_docstring(body[at]))):
        at += 1
    config = module.config_for_parsing
    new = [cst.parse_statement(line + "\n", config) for line in statements]
    if new:
        new[0] = new[0].with_changes(leading_lines=[cst.EmptyLine()])
    for function in functions:
        definition = cst.parse_statement(textwrap.dedent(inspect.getsource(function)), config)
        new.append(definition.with_changes(leading_lines=_blank_lines(config)))
    if at < len(body):
        first = body[at]
        body[at] = first.with_changes(leading_lines=_blank_lines(config) if functions else
                                      first.leading_lines)
    return module.with_changes(body=body[:at] + new + body[at:])


def _section(name: str, from_import: bool = False) -> tuple:
    top = name.split(".")[0]
    return (0 if top == "__future__" else 1 if top in sys.stdlib_module_names else 2,
            from_import, name)


def _imported(stmt) -> str:
    part = stmt.body[0]
    if isinstance(part, cst.ImportFrom):
        if part.relative:
            return "~"          # relative imports come last
        name = part.module
    else:
        name = part.names[0].name
    return cst.Module(body=[]).code_for_node(name)


def _is_import(stmt) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body)


def _is_docstring(stmt) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(
        stmt.body[0], cst.Expr) and isinstance(stmt.body[0].value, (cst.SimpleString,
                                                                    cst.ConcatenatedString))


def _names_used(module: cst.Module) -> set[str]:
    """The names the module's statements other than its top-level imports read or bind."""
    used: set[str] = set()
    for stmt in module.body:
        if not _is_import(stmt):
            used |= all_names(stmt)
    return used


def _exported(tree: ast.Module) -> set:
    """The strings of the module's ``__all__`` list or tuple."""
    out = set()
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) and \
                    isinstance(node.value, (ast.List, ast.Tuple)):
                out |= {e.value for e in node.value.elts if isinstance(e, ast.Constant)}
    return out


def _with_dependencies(functions: list, taken: set, where, stmt, outcome) -> tuple:
    """``functions`` (this package's, written into the file) and the functions of their own
    modules they call (`sums.pairwise_sum`'s ``_pairwise``), in the order found; and the
    assignments of the module-level numbers they read (``PAIRWISE_MAX = 256``). A name the
    file already binds to something else is an error: the written helper would read it."""
    import builtins
    out, constants, seen = [], [], set()
    queue = list(functions)
    while queue:
        function = queue.pop(0)
        if function in out:
            continue
        out.append(function)
        codes = [function.__code__]
        names = set()
        while codes:
            code = codes.pop()
            names |= set(code.co_names)
            codes += [c for c in code.co_consts if isinstance(c, types.CodeType)]
        for name in sorted(names - seen):
            if name not in function.__globals__:
                continue            # a builtin, or an attribute's name
            value = function.__globals__[name]
            if isinstance(value, types.ModuleType) or name == "annotations" or (
                    getattr(builtins, name, None) is value):
                continue
            seen.add(name)
            if name in taken:
                outcome.errors.append(where.error(
                    stmt, f"the rewritten code needs a helper's `{name}`, which this file "
                          "binds to something else", f"rename your `{name}`"))
            elif isinstance(value, types.FunctionType) and \
                    value.__module__ == function.__module__:
                queue.append(value)
            elif type(value) in (int, float, str, bool):
                constants.append(f"{name} = {value!r}")
            else:       # an engine bug: the file would not run
                outcome.errors.append(where.error(
                    stmt, f"internal error: the helper `{function.__name__}` written into "
                          f"the file reads `{name}`, which the file rewriter cannot write "
                          "there", "please report this with the file"))
    return out, constants


def _drop_unused_marks(module: cst.Module, namespace: dict,
                       made_unused: frozenset = frozenset()) -> cst.Module:
    """Remove the names of this package's decorators from the module's imports when nothing
    uses them any more (the rewritten file no longer needs the package), and the imports of
    ``made_unused``."""
    import vectorize as package
    used = _names_used(module)
    ours = {name for name, value in namespace.items()
            if value is package or (getattr(value, "__module__", None) or "").startswith(
                "vectorize.") and mark_of(ast.Name(name), namespace) is not None}
    ours |= set(made_unused)
    body = []
    for stmt in module.body:
        if not _is_import(stmt):
            body.append(stmt)
            continue
        small = []
        for part in stmt.body:
            names = part.names if not isinstance(part.names, cst.ImportStar) else None
            if names is None:
                small.append(part)
                continue
            kept = [a for a in names if _bound(a) not in ours or _bound(a) in used]
            if len(kept) == len(names):
                small.append(part)
            elif kept:
                kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
                small.append(part.with_changes(names=kept))
        if small:
            small[-1] = small[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
            body.append(stmt.with_changes(body=small))
        elif any(line.comment is not None for line in stmt.leading_lines):
            # the comments above it go with the next statement
            body.append(_Carry(stmt.leading_lines))
    return module.with_changes(body=_attach_carried(body))


def _bound(alias: cst.ImportAlias) -> str:
    if alias.asname is not None:
        return alias.asname.name.value
    name = alias.name
    while isinstance(name, cst.Attribute):
        name = name.value
    return name.value


class _Carry:
    def __init__(self, lines):
        self.lines = lines


def _attach_carried(body: list) -> list:
    out, carried = [], []
    for stmt in body:
        if isinstance(stmt, _Carry):
            carried += list(stmt.lines)
            continue
        if carried:
            stmt = stmt.with_changes(leading_lines=carried + list(stmt.leading_lines))
            carried = []
        out.append(stmt)
    return out
