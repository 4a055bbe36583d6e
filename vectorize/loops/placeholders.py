"""Typed placeholders: a literal of a value's type, given to a name before a loop (or a
branch) that binds it on some lanes only, so that the name has the right dtype on every lane
(no lane reads the placeholder: each reads the name only once it has bound it).

Used by `masked_loops` (names first bound inside a masked loop, a loop's ``result``),
`early_return` (the function's ``result``) and `batch_rules` (a carry that may be unbound
before its loop).
"""

from __future__ import annotations

from ..abstract import TupleValue


def has_literal(value) -> bool:
    """Whether `literal_for` gives ``value``'s type exactly (per-example numbers)."""
    if isinstance(value, TupleValue):
        return all(has_literal(v) for v in value.items)
    return value is not None and value.rank == 0 and value.kind in "biufcUS"


def literal_for(value) -> str:
    """A weak Python literal of the right kind, to give ``result`` a type before the loop."""
    if isinstance(value, TupleValue):
        return "(" + ", ".join(literal_for(v) for v in value.items) + ",)"
    return {"b": "False", "i": "0", "u": "0", "f": "0.0", "c": "0j", "U": '""', "S": 'b""'
            }.get(value.kind, "0.0")
