"""Reading a user function: its source (decorators stripped, dedented; lambdas too), its
globals and closure, and where each node sits in the user's file (for error messages)."""

from __future__ import annotations

import inspect
import linecache
import os
import textwrap
import types
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from .body_constructs import (
    appended_results_as_displays,
    bind_closure_arguments,
    consumers_as_displays,
    hoist_helpers,
    hoist_imports,
    inline_closures,
    inline_statement_closures,
    keyed_extrema,
    map_as_display,
    sums_as_loops,
    unroll_comprehensions,
)
from .body_constructs.helpers import helper_name
from .body_sugar import (
    concatenated_fstrings_as_sums,
    empty_range_loops,
    finally_as_statements,
    in_place_functions_as_methods,
    local_dict_lookups,
    loop_else_as_flag,
    match_as_if,
    membership_as_equality,
    one_statement_per_line,
    ufunc_out_as_write,
    walrus_as_assignment,
)
from .errors import Unsupported, VectorizeError
from .introspect import dedent_margin, lookup, source_lines, source_matches_code
from .syntax.traversal import children, rewrite, statements


@dataclass
class FunctionSource:
    func: types.FunctionType
    name: str
    filename: str
    text: str                      # dedented source, decorators stripped
    tree: cst.FunctionDef
    line_offset: int               # file line of text line 1, minus 1
    col_offset: int                # indentation removed by dedenting
    file_lines: list[str]
    module: cst.Module | None = None      # the parsed text, for positions on demand
    original_def: cst.CSTNode | None = None
    _positions: dict | None = field(default=None, repr=False)
    # names the body binds by `import` statements and helper `def`s, which
    # `body_constructs` took out of it -> their values
    local_imports: dict = field(default_factory=dict)
    # a statement a rewrite of `body_sugar` made -> the user's it stands for (a `try` without
    # its `finally:`), located where that one is
    origins: dict = field(default_factory=dict)
    # free names bound to a list, dict or set whose items `body_sugar` wrote into the code
    # (``x in TABLE`` as comparisons): guarded by their items (`introspect.ContentsGuard`)
    contents_read: frozenset = frozenset()

    @property
    def positions(self) -> dict:
        """Node -> CodeRange in the dedented text; computed only when an error needs it."""
        if self._positions is None:
            self._positions = {}
            if self.module is not None:
                wrapper = MetadataWrapper(self.module, unsafe_skip_copy=True)
                self._positions = dict(wrapper.resolve(PositionProvider))
                anchor = self._positions.get(self.original_def)
                self._positions[self.tree] = anchor
                for made, original in self.origins.items():
                    if original in self._positions:
                        self._positions.setdefault(made, self._positions[original])
                for stmt in self.tree.body.body:
                    self._positions.setdefault(stmt, anchor)
        return self._positions

    @property
    def globals(self) -> dict:
        return self.func.__globals__

    @property
    def closure(self) -> dict:
        cells = self.func.__closure__ or ()
        out = {}
        for name, cell in zip(self.func.__code__.co_freevars, cells):
            try:
                out[name] = cell.cell_contents
            except ValueError:       # empty cell: not assigned yet
                pass
        return out

    def lookup(self, name: str):
        """Resolve a free name as Python would: closure, then globals, then builtins.
        Returns (found, value, scope); a name the body imports has the scope "import"."""
        if name in self.local_imports:
            return True, self.local_imports[name], "import"
        return lookup(self.func, name)

    def location(self, node) -> tuple[int, int]:
        rng: CodeRange | None = self.positions.get(node) if node is not None else None
        if rng is None:
            rng = self.positions.get(self.tree)
        if rng is None:
            return self.line_offset + 1, 0
        return rng.start.line + self.line_offset, rng.start.column + self.col_offset

    def nearest_location(self, node) -> tuple[int, int]:
        """`location` of ``node``, or where the engine made it (an ``if`` merged into a
        conditional expression), of its first part that comes from the user's code."""
        positions = self.positions
        stack = [node]
        while stack:
            part = stack.pop()
            if part in positions:
                return self.location(part)
            stack.extend(reversed(children(part)))
        return self.location(None)

    def error(self, problem: Unsupported) -> VectorizeError:
        # (a node a rewrite made, `body_sugar`: where its first part from the user's code is)
        line, col = self.location(problem.node) if problem.node is None or \
            problem.node in self.positions else self.nearest_location(problem.node)
        src = self.file_lines[line - 1] if 0 < line <= len(self.file_lines) else ""
        return VectorizeError(problem.message, filename=self.filename, line=line, col=col,
                              source_line=src, suggestion=problem.suggestion,
                              kind=problem.kind, subject=problem.subject)


def unwrap(func):
    """The plain Python function behind a callable, or raise Unsupported."""
    if isinstance(func, types.MethodType):
        func = func.__func__
    if not isinstance(func, types.FunctionType):
        raise Unsupported(f"{func!r} is not a Python function with source code",
                          suggestion="vectorize a plain `def` function")
    return func


class _IndentSuites(cst.CSTTransformer):
    """``def f(x): return x`` and ``if c: y = 1`` become indented blocks, so that every pass
    sees one shape of block. The statements themselves are kept (positions still resolve)."""

    def leave_SimpleStatementSuite(self, original_node, updated_node):
        return cst.IndentedBlock(body=[cst.SimpleStatementLine(body=list(updated_node.body))])


def _same_code(code, lam: cst.Lambda) -> bool:
    """Whether the lambda ``lam`` compiles to the bytecode of ``code``."""
    try:
        compiled = compile("(" + cst.Module([]).code_for_node(lam) + ")", "<lambda>", "eval")
    except SyntaxError:
        return False
    inner = next((c for c in compiled.co_consts if isinstance(c, types.CodeType)), None)
    if inner is None:
        return False

    def plain(consts):
        return tuple(c for c in consts if not isinstance(c, types.CodeType))
    return (inner.co_code == code.co_code and inner.co_names == code.co_names
            and inner.co_varnames == code.co_varnames
            and plain(inner.co_consts) == plain(code.co_consts))


def _lambda_as_def(func, module: cst.Module) -> cst.FunctionDef:
    lambdas = []

    class Collect(cst.CSTVisitor):
        def visit_Lambda(self, node):
            lambdas.append(node)

    module.visit(Collect())
    params = list(func.__code__.co_varnames[:func.__code__.co_argcount])
    candidates = [lam for lam in lambdas
                  if [p.name.value for p in lam.params.params] == params]
    if len(candidates) > 1:
        # several lambdas with these parameters on its lines: the one compiled to its code
        # (lambdas of the same text are the same function)
        same = [lam for lam in candidates if _same_code(func.__code__, lam)]
        texts = {module.code_for_node(lam) for lam in same}
        candidates = same[:1] if len(texts) == 1 else same
    if len(candidates) != 1:
        raise Unsupported("cannot tell which lambda on its source line this is",
                          suggestion="define the function with `def`")
    lam = candidates[0]
    body = cst.IndentedBlock([cst.SimpleStatementLine([cst.Return(lam.body)])])
    return cst.FunctionDef(name=cst.Name(func.__name__ if func.__name__.isidentifier()
                                         else "function"),
                           params=lam.params, body=body), lam


def _lambda_text(func, file_lines: list[str]):
    """(``(lambda ...)`` as text, its file line minus 1, its column minus 1) of the lambda
    ``func`` in its file, found by Python's parser among the lambdas of its first line with
    its parameters (those whose body holds the code's positions, where there are several);
    None where the file does not parse or the lambda is not found for sure."""
    import ast
    code = func.__code__
    try:
        tree = ast.parse("".join(file_lines))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    params = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
    found = [node for node in ast.walk(tree) if isinstance(node, ast.Lambda)
             and node.lineno == code.co_firstlineno
             and [a.arg for a in (*node.args.posonlyargs, *node.args.args,
                                  *node.args.kwonlyargs)] == params]
    if len(found) > 1:
        positions = {(line, col) for line, _, col, _ in code.co_positions()
                     if line is not None and col is not None}
        found = [node for node in found if any(
            (node.body.lineno, node.body.col_offset) <= p
            <= (node.body.end_lineno, node.body.end_col_offset) for p in positions)]
    if len(found) != 1:
        return None
    node = found[0]
    segment = ast.get_source_segment("".join(file_lines), node)
    if segment is None:
        return None
    return "(" + segment + ")\n", node.lineno - 1, node.col_offset - 1


def _check_unchanged(func, text: str, filename: str, file_lines: list[str],
                     margin: str = "") -> None:
    """Refuse a function whose file no longer holds its code: `inspect` reads the file as it
    is now, so a file edited after its module was imported would be vectorized from the new
    text while the function (and numpy.vectorize, and the loop) run the old code.
    ``margin``: what dedenting took off the text's lines (`dedent_margin`)."""
    if source_matches_code(func, text, margin):
        return
    code = func.__code__
    line = code.co_firstlineno
    src = file_lines[line - 1] if 0 < line <= len(file_lines) else ""
    raise VectorizeError(
        f"the source of `{func.__qualname__}` in {os.path.basename(filename)} is not the code "
        "it runs: the file changed since the function was defined (imported), or its text "
        "is not what `inspect` finds for it", filename=filename, line=line, col=0,
        source_line=src, suggestion="reload the module (importlib.reload) or restart, so that "
                                    "the function and its file agree")


def read_function(func) -> FunctionSource:
    func = unwrap(func)
    try:
        lines, start = source_lines(func)
        filename = inspect.getsourcefile(func) or func.__code__.co_filename
    except (OSError, TypeError) as exc:
        raise Unsupported(f"the source of `{func.__qualname__}` is not available ({exc})",
                          suggestion="define the function in a file (not in exec() or a "
                                     "REPL), or pass fallback='loop'") from None
    raw = "".join(lines)
    text = textwrap.dedent(raw)
    col_offset = (len(lines[0]) - len(lines[0].lstrip())) if lines else 0
    line_offset = max(start - 1, 0)
    file_lines = linecache.getlines(filename) or [""] * line_offset + raw.splitlines()
    if func.__name__ == "<lambda>":
        found = _lambda_text(func, file_lines)
        if found is not None:
            # the lambda alone, wherever its line is (a continuation line, a `for` header)
            text, line_offset, col_offset = found
            module = cst.parse_module(text)
        else:
            try:
                module = cst.parse_module(text.strip() + "\n")
            except cst.ParserSyntaxError:
                try:
                    module = cst.parse_module("(" + text.strip() + ")\n")
                except cst.ParserSyntaxError:
                    raise Unsupported("cannot read this lambda alone from its source lines",
                                      suggestion="define the function with `def`") from None
        _check_unchanged(func, module.code, filename, file_lines)
        tree, lam = _lambda_as_def(func, module)
        if any(type(n) is cst.SimpleStatementSuite for n in statements(tree)):
            tree = rewrite(tree, _IndentSuites())
        return FunctionSource(func, tree.name.value, filename, text, tree, line_offset,
                              col_offset, file_lines, module, lam)
    module = cst.parse_module(text)
    _check_unchanged(func, text, filename, file_lines, dedent_margin(raw, text))
    defs = [s for s in module.body if isinstance(s, cst.FunctionDef)]
    if not defs:
        raise Unsupported(f"could not find the `def` of `{func.__qualname__}` in its source",
                          suggestion="define the function with a plain `def`")
    tree = defs[0]
    stripped = tree.with_changes(decorators=[])
    if any(type(n) is cst.SimpleStatementSuite for n in statements(stripped)):
        stripped = rewrite(stripped, _IndentSuites())
    stripped, imports = hoist_imports(stripped, func)
    unhoisted = stripped
    stripped, helpers = hoist_helpers(stripped, func, module, line_offset, col_offset,
                                      filename, set(imports))
    imports.update(helpers)
    # (before the closures are inlined: a closure handed to a helper is bound into a copy of
    # it, and its other uses are then calls; a hoisted one too, where a helper is handed it)
    stripped, bound = bind_closure_arguments(stripped, func, imports, hoisted={
        name: s for s in unhoisted.body.body for name in [helper_name(s)] if name in helpers})
    imports.update(bound)
    # (before the closures are inlined: a key of `max(..., key=f)` becomes calls `f(item)`)
    stripped = inline_statement_closures(inline_closures(keyed_extrema(stripped, func)))
    origins: dict = {}
    stripped = match_as_if(loop_else_as_flag(empty_range_loops(walrus_as_assignment(
        finally_as_statements(one_statement_per_line(stripped), origins)), func)))
    stripped = concatenated_fstrings_as_sums(stripped)
    stripped = appended_results_as_displays(stripped, func, origins)
    contents_read: set = set()
    stripped = membership_as_equality(stripped, func, imports, contents_read)
    stripped = ufunc_out_as_write(stripped, func, imports)
    stripped = in_place_functions_as_methods(stripped, func, imports)
    lazy: set = set()      # (the displays written for generators)
    stripped = consumers_as_displays(unroll_comprehensions(map_as_display(stripped, func),
                                                           func, imports, lazy), func, lazy)
    stripped = sums_as_loops(local_dict_lookups(stripped, func), func)
    return FunctionSource(func, func.__name__, filename, text, stripped, line_offset,
                          col_offset, file_lines, module, tree, local_imports=imports,
                          origins=origins, contents_read=frozenset(contents_read))
