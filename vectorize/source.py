"""Reading a user function: its source (decorators stripped, dedented; lambdas too), its
globals and closure, and where each node sits in the user's file (for error messages)."""

from __future__ import annotations

import builtins
import inspect
import linecache
import textwrap
import types
from dataclasses import dataclass, field

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from .cst_util import children, rewrite, statements
from .errors import Unsupported, VectorizeError


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
        Returns (found, value, scope)."""
        closure = self.closure
        if name in closure:
            return True, closure[name], "closure"
        if name in self.func.__globals__:
            return True, self.func.__globals__[name], "global"
        b = self.func.__globals__.get("__builtins__", builtins)
        bdict = b if isinstance(b, dict) else vars(b)
        if name in bdict:
            return True, bdict[name], "builtin"
        return False, None, None

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
        line, col = self.location(problem.node)
        src = self.file_lines[line - 1] if 0 < line <= len(self.file_lines) else ""
        return VectorizeError(problem.message, filename=self.filename, line=line, col=col,
                              source_line=src, suggestion=problem.suggestion)


class ClosureView:
    """Live read access to a function's closure cells, by name (for cache guards)."""

    def __init__(self, func):
        self._cells = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))

    def get(self, name, default=None):
        cell = self._cells.get(name)
        try:
            return cell.cell_contents if cell is not None else default
        except ValueError:
            return default


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


def _lambda_as_def(func, module: cst.Module) -> cst.FunctionDef:
    lambdas = []

    class Collect(cst.CSTVisitor):
        def visit_Lambda(self, node):
            lambdas.append(node)

    module.visit(Collect())
    params = list(func.__code__.co_varnames[:func.__code__.co_argcount])
    candidates = [lam for lam in lambdas
                  if [p.name.value for p in lam.params.params] == params]
    if len(candidates) != 1:
        raise Unsupported("cannot tell which lambda on its source line this is",
                          suggestion="define the function with `def`")
    lam = candidates[0]
    body = cst.IndentedBlock([cst.SimpleStatementLine([cst.Return(lam.body)])])
    return cst.FunctionDef(name=cst.Name(func.__name__ if func.__name__.isidentifier()
                                         else "function"),
                           params=lam.params, body=body), lam


def source_lines(func) -> tuple[list[str], int]:
    """``inspect.getsourcelines(func)`` for a function: its lines and the number of the first.

    Where the function is laid out simply (`_block`), the end of its block is found from the
    lines' indentation, as `inspect.getblock` would find it by tokenizing them (a quarter of
    the cost of parsing them); otherwise `inspect.getblock` finds it."""
    func = inspect.unwrap(func)
    lines, start = inspect.findsource(func)
    block = _block(lines, start)
    return (inspect.getblock(lines[start:]) if block is None else block), start + 1


def _block(lines: list[str], start: int) -> list[str] | None:
    """The lines of the ``def`` at ``lines[start]`` (with its decorators) as
    `inspect.getblock` gives them, or None where that needs a tokenizer: a line holds a
    string, a backslash, a bracket it does not close, a tab or form feed in its indentation,
    or a character that is not ASCII; the header takes more than one line or holds the body.

    The rest is what `inspect.BlockFinder` does with the tokens of such lines: the block
    ends before the first line of code indented no deeper than the ``def`` (or indented to
    a level no enclosing block has: tokenize's IndentationError), and takes the comments up
    to there that are indented at least as deep as its body."""
    index = start
    while index < len(lines) and lines[index].lstrip(" ").startswith("@"):
        if _code(lines[index]) is None:
            return None
        index += 1
    if index == len(lines):
        return None
    header = _code(lines[index])
    if header is None or not header.rstrip().endswith(":") or not header.lstrip(
            " ").startswith(("def ", "async def ")):
        return None
    levels = [_indentation(header)]      # the def's, then those of the open blocks
    body = None                          # the body's indentation
    last = index
    for number in range(index + 1, len(lines)):
        line = lines[number]
        if not line.strip(" \t\f\v\r\n"):
            continue                     # a blank line
        indent = _indentation(line)
        if line[indent] == "#":
            if body is not None and indent >= body:
                last = number
            continue
        if _code(line) is None:
            return None
        if indent <= levels[0]:
            break
        if indent > levels[-1]:
            body = indent if body is None else body
            levels.append(indent)
        else:
            while indent < levels[-1]:
                levels.pop()
            if indent != levels[-1]:
                break
        last = number
    return lines[start:last + 1]


def _indentation(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _code(line: str) -> str | None:
    """The code of a physical line that is a whole logical line tokenize reads plainly (no
    string, backslash or unclosed bracket, indented with spaces, ASCII): the line without
    its comment. None for other lines."""
    code = line.split("#", 1)[0]
    first = line.lstrip(" ")[:1]
    if (not line.isascii() or "'" in code or '"' in code or "\\" in code
            or first in ("", "\t", "\f", "\v")):
        return None
    opened = code.count("(") + code.count("[") + code.count("{")
    if opened != code.count(")") + code.count("]") + code.count("}"):
        return None
    return code


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
        try:
            module = cst.parse_module(text.strip() + "\n")
        except cst.ParserSyntaxError:
            module = cst.parse_module("(" + text.strip() + ")\n")
        tree, lam = _lambda_as_def(func, module)
        if any(type(n) is cst.SimpleStatementSuite for n in statements(tree)):
            tree = rewrite(tree, _IndentSuites())
        return FunctionSource(func, tree.name.value, filename, text, tree, line_offset,
                              col_offset, file_lines, module, lam)
    module = cst.parse_module(text)
    defs = [s for s in module.body if isinstance(s, cst.FunctionDef)]
    if not defs:
        raise Unsupported(f"could not find the `def` of `{func.__qualname__}` in its source",
                          suggestion="define the function with a plain `def`")
    tree = defs[0]
    stripped = tree.with_changes(decorators=[])
    if any(type(n) is cst.SimpleStatementSuite for n in statements(stripped)):
        stripped = rewrite(stripped, _IndentSuites())
    return FunctionSource(func, func.__name__, filename, text, stripped, line_offset,
                          col_offset, file_lines, module, tree)
