"""The order of the passes, in one place. Every pass maps a ``FunctionDef`` to a
``FunctionDef``; all but the last keep scalar-style code (so each one's output can be run per
example and analysed again)."""

from __future__ import annotations

from .passes import (
    appended_lists,
    array_aliases,
    asserts,
    batch_rules,
    compact,
    compact_ifs,
    early_return,
    guard_indices,
    helper_writes,
    if_to_where,
    inner_lambdas,
    lane_kinds,
    local_dicts,
    local_lists,
    masked_loops,
    python_conditions,
    python_raises,
    ragged_tables,
    sequence_loops,
    shared_subexpressions,
    short_circuits,
    simplify,
    temporaries,
    try_except,
)

PIPELINE = [
    # Before any analysis: a lambda mapped inside the function (`vmap(lambda y: x * y)(v)`)
    # takes the function's values it reads as unmapped arguments, so that it closes over
    # nothing and the vmapped-call rule batches it like a function of the module.
    inner_lambdas,
    # Before any analysis: an `assert` on per-example values is the `raise` it stands for,
    # which the analysis and `guard_indices` know how to batch.
    asserts,
    # Also before any analysis: a `try` around arithmetic becomes the tests Python makes and
    # a per-example choice of handler (`vectorize` only; the analysis refuses `try`).
    try_except,
    # Before any analysis: a second name bound to an array that is written into (`alias =
    # out`, then `alias[i] = v`) is the first name wherever both are the same object, so the
    # passes after see one name per array (and `local_lists` one per list).
    array_aliases,
    # Before any analysis: a local dict of literal keys (`d = {}; d["a"] = x`) is one
    # variable per key, which every pass after knows.
    local_dicts,
    # Before any analysis: a lookup in a dict of the module at a per-example key is the
    # chain of key tests Python makes; a name bound to tables of different lengths (or read
    # at a per-example index) is the padded array of their items and its length.
    ragged_tables,
    # Before any analysis: a local list appended to a bounded number of times is a padded
    # array and its length, each example's items in its row.
    appended_lists,
    # Before any analysis: a local list the function writes into item by item is the array
    # of its items (the analysis writes into arrays only), before `sequence_loops`, which
    # then sees `for v in vals` over that array.
    local_lists,
    # Before any analysis too: a helper that writes into its argument under a condition
    # writes into a copy that the caller writes back (masked, once `if`s are merges): the
    # analysis lets a helper write on some lanes only into such a copy.
    helper_writes,
    # `for e in v` over a per-example array is a loop over `range(len(v))` reading `v[i]`
    # (every example has the same length): the passes after know only loops over ranges.
    sequence_loops,
    # First: code that cannot run for this specialization (`if w is not None:` with w=None)
    # is neither analysed nor rewritten by the passes after, and an `and` whose left side is
    # the same for every example becomes a choice before any pass evaluates both sides.
    python_conditions,
    # Loops first: a `return` inside a loop becomes a flag the loop leaves by, followed by
    # `if returned: return result` after the loop, which `early_return` then lowers.
    masked_loops,
    # `return` under a batched `if` must become an assignment before `if` can become `where`:
    # a branch that returns has no value to merge.
    early_return,
    # `vmap`: a result of lanes of different types of number carries the code of each
    # lane's type from every assignment of it, once returns are single-exit and before
    # `if_to_where` merges the codes with the values (`passes.lane_kinds`).
    lane_kinds,
    # Again: the two passes above copy loop tests into assignments before the loop
    # (`active = j + 1 < len(v) and v[j + 1] <= x`), where the left side is the same for
    # every example.
    python_conditions,
    # The file rewriter's code (nothing replays it): an `and`/`or` or conditional expression
    # on per-example values whose lazy operand may raise becomes an `if` before the
    # statement, after the two passes above (every condition is an `if`, `and`/`or` or
    # ternary) and before `python_raises`, which then checks each branch under its
    # condition, and `compact_ifs`, which runs a helper that may raise on its lanes only.
    short_circuits,
    # Operations that raise in Python on some examples (a zero divisor, a `math` domain
    # error, an int too large) get the `if <condition>: raise ...` Python runs for them
    # (`vectorize` only): after the two passes above every condition is an `if`, `and`/`or`
    # or ternary, so each check knows the conditions Python gets there under; before
    # `guard_indices`, which checks them on those lanes only.
    python_raises,
    # Per-example indexes that Python evaluates on some lanes only (`i < len(v) and v[i]`,
    # batched `if` branches, masked loop bodies) are kept in bounds on the other lanes:
    # after the two passes above every such condition is an `if`, `and`/`or` or ternary,
    # and before `if_to_where` makes every lane evaluate them.
    guard_indices,
    # Batched `if`s whose branches are worth running only on their own lanes (a heuristic, or
    # `# vectorize: compact`) keep their `if`, testing a fresh `cond`; the rest are selected.
    compact_ifs,
    # After returns are lowered every batched `if` only assigns, so it can become merges.
    if_to_where,
    # Tidies the single-exit form (`result = e; return result`) once merges are in place.
    simplify,
    # A per-example subexpression computed twice in a row of statements (a loop's test and
    # its body after rotation: `zr * zr`) is computed once, under a name.
    shared_subexpressions,
    # Its output is array code, which the scalar-semantics analysis cannot read.
    batch_rules,
    # Array code to array code: masked loops and `if`s chosen for compaction gather their
    # lanes.
    compact,
    # Last: a chain of arithmetic computes in the array its first operation made (`y = 2 *
    # x`, `y += 1`); it needs the values `batch_rules` recorded, and leaves what `compact`
    # rebuilt alone.
    temporaries,
]
