"""Per-example loops and compaction: the whole story, and the facts the passes share about it.

A loop whose examples stop at different times (a ``while`` with a per-example test, a
``for`` left by a per-example ``break``/``return``, a ``for`` over a per-example range) and
an ``if`` on a per-example test take one of two strategies: *select* (every lane runs every
pass and branch; results merged with ``where``) or *compact* (only the lanes that need it
run, gathered and scattered back). Four passes carry it out, in pipeline order, each one
file in ``vectorize/passes/``; what they share lives here:

1. `passes.masked_loops` lowers each such loop into a *masked loop* over an unbatched test
   (``active = ...``, ``while __any_lane__(active):``, the body under ``if active:``) and
   records its mask and strategy (`records.MaskedLoopFacts`): compact unless a comment
   says ``select`` (`strategy`). Names first bound in the loop, and a ``return``'s result,
   get typed placeholders before it (`placeholders`, which `early_return` uses too).
2. `passes.compact_ifs` chooses each per-example ``if``'s strategy (a comment,
   `strategy.strategy_comment`, or its cost model) and gives the ones it compacts a fresh
   test name (`records.CompactedIfs`); it keeps select where compaction could not give
   the same values, among them a loop carry that cannot be an array when the ``if`` runs
   (`carries`).
3. `passes.batch_rules`, the last pass over scalar-style code, makes *carries* arrays
   before their loops (a name that enters the loop the same for every example and is per
   example at its head: `promotions`, with `carries.carries_needed` and
   `carries.promoted_value`), and records
   while the analysis can still read the code what `compact` needs: the carried and
   read-only values of each compacted loop, the values around each compacted ``if``
   (`facts`: `records.BatchedLoopFacts`, `records.CompactedIfs`).
4. `passes.compact` rewrites the array code: a compacted loop runs on gathered lanes,
   shrunk once the passes run for finished lanes have cost what compacting costs; each
   branch of a compacted ``if`` runs on its own lanes (`facts.loop_mask` recognises the
   loops by their masks).

The backends that cannot gather lanes (``Backend.compaction`` false) get select
everywhere; JAX then writes masked loops as ``lax.while_loop`` (`backends.jax.loops`).
``docs/design.md`` ("Control-flow strategies", "Heuristic") says why and when.
"""
