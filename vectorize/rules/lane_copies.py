"""A copy of an array for a helper that writes into it on some lanes only.

`passes.helper_writes` writes ``if c: h(a, x)``, where ``h`` writes into its argument, as
``if c: a_call = __lanes_copy__(a); h(a_call, x); a[:] = a_call``: per example
``__lanes_copy__(a)`` is ``a.copy()``, so the example changes its array only where it makes
the call, as before. On the batch every lane runs the call, into a copy, and the masked write
back (`passes.if_to_where`) keeps the copy's rows only on the lanes that take the branch. The
analysis lets a helper write into such a copy under a per-example condition
(`analysis.aliasing`): the lanes that do not make the call throw their rows of it away.
"""

from __future__ import annotations

import libcst as cst
import numpy as np

from ..abstract import batched_like
from ..syntax.templates import expr
from ..syntax.traversal import walk
from .registry import Registry, Rule, Site

LANES_COPY = "__lanes_copy__"


def lanes_copy(a):
    """Per example: a copy of the array, for a helper to write into."""
    return np.copy(a)


def is_lanes_copy(fn) -> bool:
    """Whether ``fn`` is the copy, a fresh array the function owns (may write into)."""
    return fn is lanes_copy


def copies(tree) -> set[str]:
    """The names bound to ``__lanes_copy__(...)`` in ``tree``."""
    return {t.target.value for n in walk(tree) if type(n) is cst.Assign
            and type(n.value) is cst.Call and type(n.value.func) is cst.Name
            and n.value.func.value == LANES_COPY
            for t in n.targets if type(t.target) is cst.Name}


def _copy(site: Site):
    return expr(site.spelled.copy("{a}"), a=site.nodes[0])


def register(reg: Registry) -> None:
    before = ("if x > 0:\n    a_call = __lanes_copy__(a)\n    bump(a_call, 1)\n"
              "    a[:] = a_call")
    reg.add_call(lanes_copy, Rule(
        "helper.lanes_copy", "arrays",
        "A helper that writes into its argument under a per-example condition writes into a "
        "copy of the caller's array on every lane; the caller keeps the copy's rows on the "
        "lanes that make the call (a masked write back).",
        before,
        "a_call = a.copy()\nbump(a_call, 1)\na[:] = np.where(x > 0, a_call, a)",
        _copy, infer=lambda site: batched_like(np.copy(site.args[0].example))))
