"""Facts read from the code alone: literals, how the user writes a construct (for
messages, `SYNTAX`), and whether a block can fall off its end."""

from __future__ import annotations

import ast

import libcst as cst

from ..syntax.printer import code
from ..syntax.traversal import walk

CONSTANTS = {"True": True, "False": False, "None": None}


# the value of a number literal, as `ast.literal_eval` gives it (without parsing it again)
NUMBERS = {cst.Integer: lambda text: int(text, 0), cst.Float: float, cst.Imaginary: complex}


# how the user writes the constructs libcst names by class (for messages)
SYNTAX = {"ListComp": "list comprehension", "SetComp": "set comprehension",
           "DictComp": "dict comprehension", "GeneratorExp": "generator expression",
           "Lambda": "lambda", "Yield": "yield", "Await": "await", "FunctionDef": "def",
           "ClassDef": "class", "Try": "try", "TryStar": "try", "ImportFrom": "from ... import",
           "Match": "match", "AsyncFunctionDef": "async def", "AsyncFor": "async for",
           "AsyncWith": "async with"}


def code_of(node) -> str:
    return code(node)


def string_of(text: str):
    """The value of a string literal, as `ast.literal_eval` gives it: without a prefix or a
    backslash, the text between the quotes."""
    quote = text[:3] if text[:3] in ('"""', "'''") else text[:1]
    if quote in ('"', "'", '"""', "'''") and "\\" not in text:
        return text[len(quote):-len(quote)]
    return ast.literal_eval(text)


def is_none(node) -> bool:
    return type(node) is cst.Name and node.value == "None"


def _is_true(node) -> bool:
    return type(node) is cst.Name and node.value == "True"


def may_fall_off(stmts) -> bool:
    """Whether running ``stmts`` can reach their end (read from the code: a ``return`` or
    ``raise`` ends a path, an ``if`` reaches its end where a branch does; loops, and
    everything else, may)."""
    last = stmts[-1] if stmts else None
    if type(last) is cst.SimpleStatementLine:
        return not any(type(s) in (cst.Return, cst.Raise) for s in last.body)
    if type(last) is cst.If:
        if last.orelse is None or may_fall_off(last.body.body):
            return True
        if type(last.orelse) is cst.If:
            return may_fall_off([last.orelse])
        return may_fall_off(last.orelse.body.body)
    if type(last) is cst.With:
        return may_fall_off(last.body.body)
    if type(last) is cst.While and _is_true(last.test):
        return any(type(n) is cst.Break for n in walk(last.body))
    return True


def always_true(test, loop: cst.While) -> bool:
    """``while True:``: a test known exactly, truthy, and reading no name the loop assigns."""
    if test.batched or not test.exact:
        return False
    try:
        truthy = bool(test.example)
    except Exception:
        return False
    from ..liveness import reads, writes
    return truthy and not reads(loop.test) & writes(loop.body)


def formatted_expressions(parts):
    """The ``{...}`` parts of an f-string, those nested in format specs too, in order."""
    for part in parts:
        if type(part) is cst.FormattedStringExpression:
            yield part
            if part.format_spec:
                yield from formatted_expressions(part.format_spec)


def names_in(node) -> set[str]:
    from ..liveness import all_names
    return all_names(node)
