"""The one error type users see, and how it points at their source."""

from __future__ import annotations

import re
from dataclasses import dataclass

# What a refusal means to the code that decides on it (``Unsupported.kind``,
# ``VectorizeError.kind``): decisions read this, never the message's wording
# (tests/test_typed32.py). Most refusals keep the default, "".
RAISES = "raises"                   # the examples raise there, per example, as the
#                                     per-example code (numpy.vectorize's first call) does
UNDEFINED_NAME = "undefined_name"   # a name the function reads is not defined
#                                     (``subject``: the name)
KINDS = frozenset({"", RAISES, UNDEFINED_NAME})


class VectorizeWarning(UserWarning):
    """Something the user should know about a batched call that still gives the right
    answer (`vmap` replayed its per-example loop where the batched code raised an exception
    the function's own code cannot raise: `vectorize.vmap_replays`)."""


class VectorizeError(ValueError):
    """A construct that vectorize cannot translate faithfully.

    The message carries ``file:line:col``, the offending source line with a caret under the
    column, what is unsupported and a concrete suggestion.
    """

    def __init__(self, message: str, *, filename: str = "<unknown>", line: int = 0, col: int = 0,
                 source_line: str = "", suggestion: str = "", kind: str = "",
                 subject: str = ""):
        assert kind in KINDS, kind
        self.kind = kind
        self.subject = subject
        self.reason = message
        self.filename = filename
        self.line = line
        self.col = col
        self.source_line = source_line
        self.suggestion = suggestion
        super().__init__(self._render())

    def _render(self) -> str:
        text = f"{self.filename}:{self.line}:{self.col + 1}: {self.reason}"
        if self.source_line:
            stripped = self.source_line.rstrip("\n")
            text += f"\n    {stripped}\n    {' ' * self.col}^"
        if self.suggestion:
            text += f"\n  suggestion: {self.suggestion}"
        return text


@dataclass
class Unsupported(Exception):
    """Raised inside the engine; turned into a located `VectorizeError` at the boundary.

    ``node`` is the libcst node the problem is about (its position is looked up in the
    original source); ``fallback_ok`` says whether a per-example loop may replace the
    piece when the user allows fallbacks. ``kind``: what the refusal means to the code
    that decides on it (`KINDS`); ``subject``: the name it is about, where its kind has one.
    """

    message: str
    node: object = None
    suggestion: str = ""
    fallback_ok: bool = True
    kind: str = ""
    subject: str = ""

    def __post_init__(self):
        assert self.kind in KINDS, self.kind

    def __str__(self) -> str:
        return self.message


def quoted_names(message: str) -> set[str]:
    """The identifiers a refusal's message quotes (`` `name` ``, `` `name.attr` ``...)."""
    return set(re.findall(r"`([A-Za-z_]\w*)", message))


def fallback_record(filename: str, line: int, reason: str) -> str:
    """What `Generated.fallbacks` holds for a piece that runs per example (it is shown as
    it is in warnings, and kept in the disk cache): ``file:line: reason``."""
    return f"{filename}:{line}: {reason}"


def fallback_parts(record: str) -> tuple[str, int, str]:
    """(file, line, reason) of a `fallback_record` (line 0 where it has none)."""
    place, _, message = record.partition(": ")
    path, _, line = place.rpartition(":")
    return path, int(line) if line.isdigit() else 0, message


class BackendFailure(Exception):
    """The library of a backend could not run generated code for a reason of its own, not of
    the examples' (JAX could neither trace it under ``jit`` nor run it op by op: a
    ``ConcretizationTypeError``, a ``TypeError`` from ``jnp``). Raised by a backend's runtime
    (`Backend.runnable`); the front ends turn it into a located `VectorizeError` (`located`)
    or, where the user allows fallbacks, run the function per example.

    ``error``: the library's exception; ``generated_line``: the line of generated code it
    was raised at (or "")."""

    def __init__(self, backend: str, error: BaseException, generated_line: str = ""):
        self.backend = backend
        self.error = error
        self.generated_line = generated_line.strip()
        first = str(error).splitlines()[0] if str(error) else ""
        super().__init__(f"{type(error).__name__}: {first}")

    def located(self, func, who: str = "vectorize") -> VectorizeError:
        """The failure as a `VectorizeError` at the line of ``func`` (the user's function)
        that reads most of the names the failing generated line does (the ``def`` line when
        none does)."""
        filename, line, col, text = _nearest_line(func, self.generated_line)
        where = f" (at the generated line `{self.generated_line}`)" if self.generated_line \
            else ""
        return VectorizeError(
            f"{who}: the {self.backend} backend cannot run the code generated for this "
            f"function: {self}{where}", filename=filename, line=line, col=col,
            source_line=text, suggestion="use backend='numpy' for this function (or pass "
                                         "fallback='warn' to run it per example)")


def _nearest_line(func, generated: str) -> tuple[str, int, int, str]:
    """(file, line, column, text) of the line of ``func`` sharing most names with the
    generated line ``generated``; the ``def`` line where none shares one."""
    import inspect
    import re

    names = set(re.findall(r"[A-Za-z_]\w*", generated)) - {
        "jnp", "np", "lax", "jax", "where", "asarray", "dtype", "float64", "int64", "bool_",
        "if", "else", "and", "or", "not", "in", "is", "for", "while", "return", "True",
        "False", "None", "carry"}
    code = getattr(func, "__code__", None)
    if code is None:
        return "<unknown>", 0, 0, ""
    filename = code.co_filename
    try:
        lines, first = inspect.getsourcelines(func)
    except (OSError, TypeError):
        return filename, code.co_firstlineno, 0, ""
    best, best_score = 0, 0
    for k, text in enumerate(lines):
        if text.lstrip().startswith(("def ", "async def ", "@")):
            continue        # (its parameters' names are everywhere)
        score = len(names & set(re.findall(r"[A-Za-z_]\w*", text.split("#")[0])))
        if score > best_score:
            best, best_score = k, score
    if best_score == 0:
        best = next((k for k, t in enumerate(lines) if t.lstrip().startswith(
            ("def ", "async def ", "lambda"))), 0)
    text = lines[best]
    return filename, first + best, len(text) - len(text.lstrip()), text
