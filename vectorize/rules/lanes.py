"""Engine-internal operations across lanes, used by the loop passes and for ``raise``.

``__any_lane__(active)`` is, per example, just ``bool(active)``; on a batch it asks whether any
example is still running, which is what keeps a masked loop going (``active.any()``), or
whether any example raises (``if np.any(x < 0): raise ...``, `guard_indices`).
``__first_lane__(failed)`` and ``__lane__(x, lane)`` pick the example whose values make the
message of such an exception: per example ``__lane__(x, lane)`` is ``x`` itself; on a batch
it is ``x`` of the first example that raises (``x[np.argmax(failed)]``).
"""

from __future__ import annotations

import sys

import libcst as cst

from ..abstract import unbatched
from ..errors import Unsupported
from ..syntax.templates import expr, parse_expr
from .lane_copies import LANES_COPY, lanes_copy
from .lists import LIST_ARRAY, list_array
from .python_errors import RAISE_LANE, raise_lane
from .python_errors import register as register_checks
from .registry import Registry, Rule

ANY_LANE = "__any_lane__"


def any_lane(active) -> bool:
    """Per example: whether this example is still running."""
    return bool(active)


FIRST_LANE = "__first_lane__"
LANE = "__lane__"


def first_lane(failed) -> int:
    """Per example: there is one lane, its own."""
    return 0


def lane(x, index):
    """Per example: the example's own value."""
    return x


WARN_LANES = "__warn_lanes__"


def warn_lanes(failed) -> list:
    """Per example: its own lane if it warns."""
    return [0] if failed else []


SUM_ITEM = "__sum_item__"


def sum_item(x):
    """Per example: the item itself (an item that ``sum(... for ...)``, written as the loop
    Python's ``sum`` runs, adds: `body_constructs.comprehensions.sums_as_loops`)."""
    return x


def check_sum_item(value, python_semantics, node=None) -> None:
    """Refuse an item of a float sum written as a loop where the examples are Python numbers
    (`vectorize`) on Python 3.12 and later: Python adds Python floats with Neumaier's
    compensation there, NumPy scalars left to right, and which an item is per example is
    not known (a display, ``sum([a, b, c])``, is `pymath.python_sum`)."""
    if python_semantics and sys.version_info >= (3, 12) and \
            getattr(value, "kind", None) in ("f", "c"):
        raise Unsupported("`sum` of a generator of floats on Python 3.12 and later (Python "
                          "floats are added with compensation, NumPy scalars left to right: "
                          "which each item is per example is not known)", node,
                          "sum a list display of the items, or add them to a running "
                          "total with `+`")


def _sum_item(site):
    check_sum_item(site.args[0], site.python_semantics, site.original)
    return site.nodes[0]


LANE_KINDS = "__lane_kinds__"


def lane_kinds(value, kinds, table):
    """Per example: the value itself (``kinds``, the code of its type, says on a batch which
    type each lane's value has: `passes.lane_kinds`)."""
    return value


def _lane_kinds(site):
    if not site.args[0].batched:
        return site.nodes[0]
    return expr(site.spelled.settle_kinds("{v}", "{k}", "{t}"), v=site.nodes[0],
                k=site.nodes[1], t=site.nodes[2])


ENGINE_NAMES = {ANY_LANE: any_lane, FIRST_LANE: first_lane, LANE: lane, RAISE_LANE: raise_lane,
                LANE_KINDS: lane_kinds, WARN_LANES: warn_lanes, LIST_ARRAY: list_array,
                LANES_COPY: lanes_copy, SUM_ITEM: sum_item}


def register(reg: Registry) -> None:
    reg.add_call(any_lane, Rule(
        "loop.any_lane", "control flow",
        "A loop whose examples stop at different times runs while any example is still "
        "active; finished examples keep their values (each carried variable is merged with "
        "`np.where(active, new, old)`).",
        "while abs(x - y) > tol:\n    y = step(y)",
        "active = abs(x - y) > tol\nwhile active.any():\n    y_next = step(y)\n"
        "    y = np.where(active, y_next, y)\n    active = active & (abs(x - y) > tol)",
        _any_lane,
        infer=_any_lane_infer))
    reg.add_call(first_lane, Rule(
        "raise.first_lane", "control flow",
        "A `raise` that some examples reach raises for the batch if any example does; an "
        "exception made from per-example values is made from the first such example's.",
        'if x < 0:\n    raise ValueError(f"negative: {x}")',
        "failed = x < 0\nif failed.any():\n    lane = np.argmax(failed)\n"
        '    raise ValueError(f"negative: {x[lane]}")',
        lambda site: expr(site.spelled.first_lane("{m}"), m=site.nodes[0]),
        infer=lambda site: unbatched(0)))
    reg.add_call(lane, Rule(
        "raise.lane", "control flow",
        "The value of one example (the first that raises), for the exception's message.",
        'raise ValueError(f"negative: {x}")', 'raise ValueError(f"negative: {x[lane]}")',
        lambda site: expr("{x}[{i}]", x=site.nodes[0], i=site.nodes[1])
        if site.args[0].batched else site.nodes[0],
        infer=lambda site: unbatched(site.args[0].example)))
    reg.add_call(warn_lanes, Rule(
        "warn.lanes", "control flow",
        "A warning with a per-example message is issued once for each example that takes "
        "its branch, in example order, as the per-example loop issues it (Python's warnings "
        "filter then shows each distinct message once, by default).",
        'if eta > 1:\n    warnings.warn(f"eta {eta:.2f} capped")',
        "failed = eta > 1\nfor lane in np.flatnonzero(failed):\n"
        '    warnings.warn(f"eta {eta[lane]:.2f} capped")',
        lambda site: expr(site.spelled.warn_lanes("{m}"), m=site.nodes[0]),
        infer=lambda site: unbatched([0])))
    reg.add_call(sum_item, Rule(
        "sum.item", "control flow",
        "`sum` of a generator that cannot be written out as a display runs the loop Python's "
        "`sum` runs; each item it adds is the item itself. Where the examples are Python "
        "numbers (`vectorize`) on Python 3.12 and later, floats are refused: Python adds "
        "Python floats with compensation and NumPy scalars left to right.",
        "total = sum(w * x for w in WEIGHTS if w > x)",
        "total = 0\nfor w in WEIGHTS:\n    if w > x:\n        total = total + w * x",
        _sum_item, infer=lambda site: site.args[0]))
    if getattr(reg.backend, "settles_lane_kinds", False):
        _register_lane_kinds(reg)
    register_checks(reg, _any_lane, _any_lane_infer)


def _register_lane_kinds(reg: Registry) -> None:
    reg.add_call(lane_kinds, Rule(
        "vmap.lane_kinds", "control flow",
        "A `vmap` result that is a different type of number on different lanes (`x if x > 0 "
        "else 0` of a float `x`: an int on some lanes) is cast, on each call, to the type "
        "the per-example loop's `np.stack` gives the lanes of that call (the types of the "
        "ones they hold: int64 where every lane takes the int); the code of each lane's "
        "type is carried beside the value from every assignment of it. An empty batch keeps "
        "the join.",
        "r = 0\nif x > 0:\n    r = x\nreturn r",
        "r_kind = 0\nr = 0\nr_kind = np.where(x > 0, 1, r_kind)\nr = np.where(x > 0, x, r)\n"
        "return merge.settle(r, r_kind, ('int64', 'float64'))",
        _lane_kinds, infer=lambda site: site.args[0]))


def _any_lane(site):
    """``active.any()`` of a mask's name, ``np.any(x < 0)`` of anything else (the backend's
    spelling of either)."""
    (x,) = site.nodes
    if not site.args[0].batched:
        return expr("bool({x})", x=x)
    zero = _compared_to_zero(x)
    spelled = site.spelled.zero_lane("__value__") if zero is not None else None
    if spelled is not None:
        return expr(spelled, value=zero)
    if type(x) is cst.Name:
        return parse_expr(site.spelled.any_lane(x.value))
    divisor = _masked_zero(x)
    spelled = site.spelled.zero_lane(divisor) if divisor is not None else None
    if spelled is not None:
        # a zero divisor on the lanes that get there (`guard_indices`): asked first of every
        # lane in one pass with no temporary, which is false on most calls
        return expr(f"{spelled} and " + site.spelled.any_lane("{x}"), x=x)
    return expr(site.spelled.any_lane("{x}"), x=x)


def _masked_zero(x) -> str | None:
    """``d`` of ``guard & (d == 0)`` (a division's check on some lanes) where ``d`` is a
    name (cheap to read twice), also of ``guard & (test & (d == 0))`` (a check of a zero
    result, `python_errors.signed_zero_checks`, on some lanes), else None."""
    if type(x) is not cst.BinaryOperation or type(x.operator) is not cst.BitAnd or x.lpar:
        return None
    right = x.right.with_changes(lpar=[], rpar=[])
    divisor = _compared_to_zero(right)
    if divisor is None:
        return _masked_zero(right)
    return divisor.value if type(divisor) is cst.Name else None


def _compared_to_zero(x):
    """``v`` of ``v == 0`` (a division's check), else None."""
    if type(x) is not cst.Comparison or len(x.comparisons) != 1:
        return None
    (target,) = x.comparisons
    zero = target.comparator
    if type(target.operator) is not cst.Equal \
            or type(zero) not in (cst.Integer, cst.Float) or zero.lpar \
            or zero.evaluated_value != 0:
        return None
    return x.left


def _any_lane_infer(site):
    """True, or what the representative lane says where it is known: a loop whose entry
    test is false on every lane for the arguments' representatives (a guard the same for
    every example: `Analysis.boolean`) is not entered for them."""
    example = site.args[0].example
    try:
        return unbatched(any_lane(example) if site.args[0].known else True)
    except Exception:
        return unbatched(True)
