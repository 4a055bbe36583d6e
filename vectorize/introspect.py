"""Reading a user function without parsing it: the lines of its ``def`` in its file, and its
closure by name.

Kept apart from `vectorize.source` (which parses with libcst) because the disk cache
(`vectorize.diskcache`) needs both to check an entry, and a cache hit must not import libcst.
"""

from __future__ import annotations

import builtins
import inspect


def lookup(func, name: str):
    """Resolve a free name of ``func`` as Python would: closure, then globals, then builtins.
    Returns (found, value, scope), scope one of "closure", "global", "builtin"."""
    cells = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))
    if name in cells:
        try:
            return True, cells[name].cell_contents, "closure"
        except ValueError:       # empty cell: not assigned yet
            pass
    if name in func.__globals__:
        return True, func.__globals__[name], "global"
    b = func.__globals__.get("__builtins__", builtins)
    bdict = b if isinstance(b, dict) else vars(b)
    if name in bdict:
        return True, bdict[name], "builtin"
    return False, None, None


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
