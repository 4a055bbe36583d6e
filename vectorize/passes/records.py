"""What a pass tells the passes after it: one typed record per writing pass.

Passes share no fields of their own on the function's job (``ctx``): a pass that leaves facts
for later passes writes them into its record, and a later pass reads them through the record's
owner, ``Record.get(ctx)`` (as libcst's codemod context keys scratch data by its owner). The
records live on ``ctx.records``, made empty on first use, one per function.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst


class Record:
    """A record of facts one pass leaves for later ones (``get(ctx)``: this function's)."""

    @classmethod
    def get(cls, ctx):
        record = ctx.records.get(cls)
        if record is None:
            record = ctx.records[cls] = cls()
        return record


@dataclass
class MaskedLoopFacts(Record):
    """Written by `masked_loops`: the masks it made (``active``), each mask's strategy
    (``"select"`` / ``"compact"``: `loops.strategy.strategy_of`), and the placeholders: the
    values it gives the result of a loop's ``return`` before the loop (no lane reads them:
    each reads the result only once it returned), each with the loop's first ``return``
    (`alias` records a copy `if_to_where` makes of one)."""

    masks: set[str] = field(default_factory=set)
    strategy: dict[str, str] = field(default_factory=dict)
    placeholders: dict[str, cst.Return] = field(default_factory=dict)
    # each mask's loop as the user wrote it (where a backend refuses it, the place to point at)
    loops: dict[str, cst.CSTNode] = field(default_factory=dict)
    # compacted loops whose body calls a helper that may raise, in code nothing replays
    # (`compact_ifs`): their finished lanes leave at the end of every pass (`compact`)
    every_pass: set[str] = field(default_factory=set)

    def alias(self, copy: str, name: str) -> None:
        """``copy`` holds the placeholder ``name`` (a branch's copy of it)."""
        self.placeholders[copy] = self.placeholders[name]


@dataclass
class CompactedIfs(Record):
    """Written by `compact_ifs`: the test name of each ``if`` chosen for compaction; the
    scalar-form analysis' ``if_envs`` of it, or None (`loops.facts.record_if_facts`, called by
    `batch_rules` before its output hides them), for `compact`."""

    tests: dict[str, tuple | None] = field(default_factory=dict)


@dataclass
class BatchedLoopFacts(Record):
    """Written by `batch_rules`, for `compact`: each masked loop to be compacted (by its mask)
    with the variables it carries (and their dtypes) and the batched values it only reads;
    the name set to the batch length on entry, where one is needed; the parameters whose
    ``len()`` stands for the batch length."""

    loops: dict[str, tuple] = field(default_factory=dict)
    # each loop's batched values (carried and read) by name, the analysis's (by its mask)
    values: dict[str, dict] = field(default_factory=dict)
    batch_size_name: str | None = None
    batch_len_params: set[str] = field(default_factory=set)


@dataclass
class ArrayValues(Record):
    """Written by `batch_rules`, for `temporaries`: the abstract value of each expression of
    the array code a batching rule made, and of each operand it was given, by node: the
    analysis' value of the scalar-form expression it stands for (array code cannot be
    analysed again). Nodes later passes rebuild are not in it."""

    values: dict = field(default_factory=dict)
