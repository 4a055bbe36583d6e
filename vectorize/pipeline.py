"""The order of the passes, in one place. Every pass maps a ``FunctionDef`` to a
``FunctionDef``; all but the last keep scalar-style code (so each one's output can be run per
example and analysed again)."""

from __future__ import annotations

from .passes import batch_rules, compact, early_return, if_to_where, masked_loops, simplify

PIPELINE = [
    # Loops first: a `return` inside a loop becomes a flag the loop leaves by, followed by
    # `if returned: return result` after the loop, which `early_return` then lowers.
    masked_loops,
    # `return` under a batched `if` must become an assignment before `if` can become `where`:
    # a branch that returns has no value to merge.
    early_return,
    # After returns are lowered every batched `if` only assigns, so it can become merges.
    if_to_where,
    # Tidies the single-exit form (`result = e; return result`) once merges are in place.
    simplify,
    # Its output is array code, which the scalar-semantics analysis cannot read.
    batch_rules,
    # Array code to array code: masked loops chosen for compaction gather their lanes.
    compact,
]
