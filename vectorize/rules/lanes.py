"""Engine-internal operations across lanes, used by the loop passes.

``__any_lane__(active)`` is, per example, just ``bool(active)``; on a batch it asks whether any
example is still running, which is what keeps a masked loop going (``active.any()``).
"""

from __future__ import annotations

from ..abstract import unbatched
from ..cst_util import expr
from .registry import Registry, Rule

ANY_LANE = "__any_lane__"


def any_lane(active) -> bool:
    """Per example: whether this example is still running."""
    return bool(active)


ENGINE_NAMES = {ANY_LANE: any_lane}


def register(reg: Registry) -> None:
    reg.add_call(any_lane, Rule(
        "loop.any_lane", "control flow",
        "A loop whose examples stop at different times runs while any example is still "
        "active; finished examples keep their values (each carried variable is merged with "
        "`np.where(active, new, old)`).",
        "while abs(x - y) > tol:\n    y = step(y)",
        "active = abs(x - y) > tol\nwhile active.any():\n    y_next = step(y)\n"
        "    y = np.where(active, y_next, y)\n    active = active & (abs(x - y) > tol)",
        lambda site: expr("{x}.any()", x=site.nodes[0]) if site.args[0].batched
        else expr("bool({x})", x=site.nodes[0]),
        infer=_any_lane_infer))


def _any_lane_infer(site):
    """True, or what the representative lane says where it is known: a loop whose entry
    test is false on every lane for the arguments' representatives (a guard the same for
    every example: `Analysis.boolean`) is not entered for them."""
    example = site.args[0].example
    try:
        return unbatched(any_lane(example) if site.args[0].known else True)
    except Exception:
        return unbatched(True)
