"""Constructs of a function's body that Python evaluates the same way on every call, made
ready for the engine when the function is read (`source.read_function`), one module each:

- ``import`` / ``from ... import`` at the top level of the body (`imports.hoist_imports`):
  read as globals (`FunctionSource.lookup`, scope "import");
- nested ``def`` s and ``name = lambda ...`` that read none of the function's own names
  (`helpers.hoist_helpers`): made once, vectorized as helpers;
- closures over the function's own variables handed to the user's own helpers
  (`bound_closures.bind_closure_arguments`): the helper read again with the closure bound
  into its body;
- closures over the function's own variables, inlined where they are called
  (`closures.inline_closures`, `closures.inline_statement_closures`);
- ``max``/``min`` with a ``key=`` over a sequence of a known length
  (`keyed.keyed_extrema`): the comparisons Python makes, written out;
- comprehensions over ``range`` of literals or a global tuple of numbers
  (`comprehensions.unroll_comprehensions`): written out as the list of their items, and
  ``tuple``/``list``/``any``/``all`` of such a list as displays
  (`comprehensions.consumers_as_displays`); ``map(f, [a, b])`` unpacked or consumed whole as
  ``(f(a), f(b))`` (`comprehensions.map_as_display`); ``sum``, ``len``, ``any``,
  ``all``, ``max`` or ``min`` of a comprehension it cannot write out (a global list, an
  ``if``, nested ``for`` s), as the loop the builtin runs (`comprehensions.sums_as_loops`);
- a list appended to a number of times the code fixes and returned
  (`appended_results.appended_results_as_displays`): the display of its items;
- calls of the function by its own name (`recursion.unroll_recursion`): written out a few
  levels deep, an example going deeper raising in the batch for the per-example loop to
  decide (applied by `transform.ModuleContext.specialize`, where a specialization that
  replays is made, not when the function is read).

Each takes a statement out of the tree (or rewrites an expression) only where the result is
what Python computes; anything else stays for the analysis, which refuses it with its
location.
"""

from __future__ import annotations

from .appended_results import appended_results_as_displays
from .bound_closures import bind_closure_arguments
from .closures import inline_closures, inline_statement_closures
from .comprehensions import (
    consumers_as_displays,
    map_as_display,
    sums_as_loops,
    unroll_comprehensions,
)
from .helpers import hoist_helpers
from .imports import hoist_imports
from .keyed import keyed_extrema

__all__ = ["appended_results_as_displays", "bind_closure_arguments", "consumers_as_displays",
           "hoist_helpers", "hoist_imports",
           "inline_closures", "inline_statement_closures", "keyed_extrema", "map_as_display",
           "sums_as_loops", "unroll_comprehensions"]
