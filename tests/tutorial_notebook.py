"""docs/tutorial.md as a notebook: ``python tests/tutorial_notebook.py`` writes
examples/tutorial.ipynb (outputs stripped); `tests/test_tutorial_notebook.py` checks that it
is current and runs it.

Prose becomes markdown cells (relative links made relative to examples/), each ``python``
block a code cell, and each ``text`` block (what the code cell before it prints) a markdown
cell that shows it, under "Expected output:".
"""

from __future__ import annotations

import json
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
TUTORIAL = ROOT / "docs" / "tutorial.md"
NOTEBOOK = ROOT / "examples" / "tutorial.ipynb"
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```\n?", re.S | re.M)


def pieces(markdown: str) -> list[tuple[str, str]]:
    """(kind, text) in order: kind "prose", "python", "text" or another fence's language."""
    out, at = [], 0
    for match in _FENCE.finditer(markdown):
        if markdown[at:match.start()].strip():
            out.append(("prose", markdown[at:match.start()].strip("\n")))
        out.append((match.group(1) or "text", match.group(2).rstrip("\n")))
        at = match.end()
    if markdown[at:].strip():
        out.append(("prose", markdown[at:].strip("\n")))
    return out


def _relinked(prose: str) -> str:
    """Links relative to docs/ made relative to examples/."""
    return re.sub(r"\]\((?!https?:|#|/|\.\./)([^)]+)\)", r"](../docs/\1)", prose)


def build(markdown: str) -> dict:
    cells = []

    def add(kind: str, source: str) -> None:
        cell = {"cell_type": kind, "id": f"cell-{len(cells) + 1}", "metadata": {},
                "source": source.splitlines(True)}
        if kind == "code":
            cell.update(execution_count=None, outputs=[])
        cells.append(cell)

    markdown_run: list[str] = []
    for kind, text in pieces(markdown):
        if kind == "python":
            if markdown_run:
                add("markdown", "\n\n".join(markdown_run))
                markdown_run = []
            add("code", text)
        elif kind == "prose":
            markdown_run.append(_relinked(text))
        elif kind == "text" and cells and cells[-1]["cell_type"] == "code" and not markdown_run:
            add("markdown", f"Expected output:\n\n```text\n{text}\n```")
        else:
            markdown_run.append(f"```{kind}\n{text}\n```")
    if markdown_run:
        add("markdown", "\n\n".join(markdown_run))
    return {"cells": cells,
            "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python",
                                        "name": "python3"},
                         "language_info": {"name": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def text() -> str:
    return json.dumps(build(TUTORIAL.read_text()), indent=1, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    NOTEBOOK.write_text(text())
