"""The one error type users see, and how it points at their source."""

from __future__ import annotations

from dataclasses import dataclass


class VectorizeError(ValueError):
    """A construct that vectorize cannot translate faithfully.

    The message carries ``file:line:col``, the offending source line with a caret under the
    column, what is unsupported and a concrete suggestion.
    """

    def __init__(self, message: str, *, filename: str = "<unknown>", line: int = 0, col: int = 0,
                 source_line: str = "", suggestion: str = ""):
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
    piece when the user allows fallbacks.
    """

    message: str
    node: object = None
    suggestion: str = ""
    fallback_ok: bool = True

    def __str__(self) -> str:
        return self.message
