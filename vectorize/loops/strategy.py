"""Which strategy a per-example loop or ``if`` takes when a comment says so.

``# vectorize: compact`` / ``# vectorize: select`` on the statement's line (or the line
before) overrides the heuristics: `masked_loops` compacts loops whose examples stop at
different times unless told ``select``; `compact_ifs` weighs an ``if``'s work against its
transfers unless told either.
"""

from __future__ import annotations

import libcst as cst


def strategy_of(loop, default: str) -> str:
    """``# vectorize: compact`` / ``# vectorize: select`` on the loop's line (or the line
    before it) chooses the strategy; otherwise ``default``: loops whose examples stop at
    different times (`while` loops, `for` loops left by a per-example exit or over a
    per-example range) are compacted: one slow example would otherwise keep every lane
    running (docs/design.md, "Heuristic")."""
    comments = [loop.body.header.comment] if loop.body.header.comment else []
    comments += [line.comment for line in loop.leading_lines if line.comment]
    for comment in comments:
        text = comment.value.lstrip("#").strip().replace(" ", "")
        if text.startswith("vectorize:"):
            choice = text.split(":", 1)[1]
            if choice in ("compact", "select"):
                return choice
    return default


def strategy_comment(node: cst.If) -> str | None:
    """``"compact"`` / ``"select"`` from a ``# vectorize:`` comment on the ``if``, or None."""
    if not isinstance(node.body, cst.IndentedBlock):      # `if c: y = f(x)  # comment`
        node = node.with_changes(body=cst.IndentedBlock(
            body=[], header=node.body.trailing_whitespace))
    return strategy_of(node, default=None)
