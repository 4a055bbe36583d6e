"""Dicts the same for every example looked up by a per-example key (``TABLE.get(k, d)``):
the checks and the rewrite every backend shares; each backend spells the lookup itself
(`Backend.lookup`)."""

from __future__ import annotations

import libcst as cst

from ..errors import Unsupported
from ..syntax.templates import expr
from .registry import Site


def is_dict_get(func) -> bool:
    """``TABLE.get`` of a dict (a bound ``dict.get``)."""
    return getattr(func, "__name__", None) == "get" and type(
        getattr(func, "__self__", None)) is dict


def dict_get_checked(site: Site):
    """The dict of ``TABLE.get(k, d)`` where every backend can look it up by a per-example
    key (numbers keyed by numbers, or strings; values and default of one type), else
    `Unsupported`."""
    table = site.func.__self__
    if len(site.args) != 2 or site.kwargs:
        raise Unsupported("`dict.get` on a per-example key without a default",
                          suggestion="give the default: TABLE.get(k, 0.0)")
    default = site.args[1]
    kinds = {type(v) for v in table.values()}
    keys = {type(k) for k in table}
    strings = bool(keys) and keys == {str}
    if strings != (site.args[0].kind == "U"):
        raise Unsupported("`.get` on a dict by a per-example key of another kind than its "
                          "keys (a string key into a dict keyed by numbers, or the reverse)",
                          suggestion="look it up with a key of the dict's kind")
    if not (strings or keys <= {int, float, bool}) or len(kinds) > 1 or not (
            kinds <= {int, float, bool, str}) or (default.known and not default.batched and
                                                   kinds and type(default.example) not in
                                                   kinds):
        raise Unsupported("`.get` on a dict whose keys are not all numbers or whose values "
                          "and default are not all of one type (int, float, bool or str)",
                          suggestion="make the values and the default one type (1.0, not 1)")
    return table


def dict_get(site: Site):
    """``TABLE.get(k, d)`` by a per-example key: the backend's ``lookup`` primitive."""
    dict_get_checked(site)
    table = site.node.func.value if type(site.node.func) is cst.Attribute else None
    if table is None:
        raise Unsupported("`.get` of a dict that is not named")
    if not site.spelled.string_arrays and any(
            type(v) is str for v in (*site.func.__self__.values(), site.args[1].example)):
        raise Unsupported("a table of strings indexed per example (`.get` of a dict of "
                          "strings by a per-example key)",
                          suggestion="look up a number per example and map it to its string "
                                     "outside the batched function")
    return expr(site.spelled.lookup("{t}", "{k}", "{d}"), t=table, k=site.nodes[0],
                d=site.nodes[1])
