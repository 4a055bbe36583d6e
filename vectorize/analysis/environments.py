"""Environments: the abstract values of the local variables at one program point, and how
two paths' environments meet (`join_envs`): under a per-example condition a variable either
path changes becomes per example, and the two values must fit in one array."""

from __future__ import annotations

import contextvars

import libcst as cst
import numpy as np

from ..abstract import (
    ASSIGNED_AS_IS,
    DEFERRED_JOINS,
    EXAMPLE_SEMANTICS,
    MIXED_KINDS,
    RETURNED_AS_IS,
    TupleValue,
    Value,
    inexact_int_lanes,
    join,
    mixed_kinds,
    mixed_lane_types,
    note_mixed_parts,
)
from ..errors import Unsupported


class Env:
    """Abstract values of the local variables at one program point."""

    def __init__(self, values=None, unbound=None, unreached: bool = False):
        self.values: dict[str, object] = dict(values or {})
        self.unbound: set[str] = set(unbound or ())   # bound on some paths only
        # a path the arguments' representatives do not take (`Analysis._reached`)
        self.unreached = unreached
        # a path that ended in a `raise` some examples reach (`Analysis.lane_raises`): the
        # batch raises if any example gets there, so the code after continues on every lane
        # (it is no exit that makes lanes differ), with no values from this path
        self.raised = False

    def copy(self, unreached: bool = False) -> Env:
        return Env(self.values, self.unbound, self.unreached or unreached)

    def assign(self, name: str, value) -> None:
        self.values[name] = value
        self.unbound.discard(name)


def join_envs(a: Env | None, b: Env | None, *, batched: bool, before: Env,
              written: frozenset[str] = frozenset(), at=None) -> Env | None:
    """The values after two paths meet. Under a batched condition a changed variable becomes
    batched; so does every name the paths ``written`` assign, even to the value it had
    (``a, b = b, a`` twice): the passes merge assigned names with ``np.where``, so the two
    values must have a common type (refused at ``at`` otherwise)."""
    if a is None or a.raised and b is not None:
        return b
    if b is None or b.raised:
        return a
    out = Env()
    for name in set(a.values) | set(b.values):
        if name in a.values and name in b.values:
            va, vb = a.values[name], b.values[name]
            changed = va is not vb or name in written
            if batched and changed:
                number = _number_or_none(va, vb)
                if number is not None:
                    raise MaybeNone(f"`{name}` holds None on some paths and a number on "
                                    "others, depending on a per-example condition", at,
                                    f"give `{name}` a number on every path", name=name,
                                    value=number)
                keys = _same_keys(va, vb) if type(at) is cst.If else None
                if keys is not None:
                    raise ChosenBindings(f"`{name}` holds one of two dicts, depending on a "
                                         "per-example condition", at, "choose each item "
                                         "with its own conditional expression", name=name,
                                         keys=keys)
                no_per_example_choice_between(va, vb, f"`{name}` holds", at)
            out.values[name] = join(va, vb, force_batched=batched and changed) if changed else va
            if batched and changed:
                inexact_join(out.values[name], (va, vb), f"`{name}` holds", at)
            if changed and type(at) in (cst.For, cst.While, cst.If) and isinstance(
                    va, Value) and isinstance(vb, Value) and (
                        mixed_kinds(va.example, vb.example) or EXAMPLE_SEMANTICS.get()
                        is not None and mixed_lane_types(va.example, vb.example)):
                # a loop's carry: the batch holds the joined type, each example the type of
                # its last pass (or the entry's where it never runs); an `if` on a value the
                # same for every example: each example the type of the branch the call takes
                MIXED_KINDS.add(out.values[name])
                note_mixed_parts(out.values[name], va, vb)
        else:
            out.values[name] = a.values.get(name, b.values.get(name))
            out.unbound.add(name)
    out.unbound |= a.unbound | b.unbound
    out.unreached = a.unreached and b.unreached
    return out


def inexact_join(joined, values, what: str, at, users: bool | None = None, *,
                 node=None, final: bool = False) -> None:
    """A per-example choice between an integer and a float narrower than float64 (PyTorch:
    a Python int or an int tensor on some lanes, a float32 tensor on others,
    `abstract.inexact_int_lanes`): each lane keeps its int, the batch rounds it to the joined
    float. Where the lanes' ints are tensors, the per-example loop's stacking casts them to
    that float as the batch's `where` does (`tensor.to(float32)`): a value the mapped
    function returns as it is (``final``: the join of its returns; ``node``: an expression in
    `RETURNED_AS_IS`) is the loop's, and a variable's (``node`` None) is kept, refused where
    it is read (`abstract.DEFERRED_JOINS`). Refused at ``at`` otherwise, and for Python int
    lanes (held as int64, converted otherwise than PyTorch converts a Python int)."""
    if not isinstance(joined, Value) or not (PER_EXAMPLE_SHAPES.get() if users is None
                                             else users):
        return      # (a pass's placeholder, never a lane's result: `PER_EXAMPLE_SHAPES`)
    lane = inexact_int_lanes(joined.example, *values)
    if lane is None:
        return
    if inexact_int_lanes(joined.example, *values, python_ints_only=True) is None:
        if final or node is not None and node in RETURNED_AS_IS.get():
            return
        if node is None or node in ASSIGNED_AS_IS.get():
            DEFERRED_JOINS[joined] = (what, lane, joined.example.dtype)
            return
    raise Unsupported(f"{what} {lane} on some lanes and a {joined.example.dtype} on others, "
                      "depending on a per-example condition: each lane keeps its integer, "
                      f"the batch's {joined.example.dtype} rounds integers beyond "
                      f"2**{np.finfo(joined.example.dtype).nmant + 1}", at,
                      "give the value one type on every path (e.g. float(...) where it "
                      "is assigned, or a float64 tensor)")


def deferred_join_read(value, node, name: str) -> None:
    """A read of ``name``, whose value is an int tensor on some lanes and a narrower float
    on others (`abstract.DEFERRED_JOINS`), other than by the mapped function's ``return``:
    refused, located at the read."""
    found = DEFERRED_JOINS.get(value) if isinstance(value, Value) else None
    if found is None or node in RETURNED_AS_IS.get():
        return
    _what, lane, dtype = found
    raise Unsupported(f"`{name}` holds {lane} on some lanes and a {dtype} on others, "
                      "depending on a per-example condition: used here, each lane computes "
                      f"with its integer, the batch with its {dtype}, which rounds integers "
                      f"beyond 2**{np.finfo(dtype).nmant + 1} (returned as it is, the value "
                      "is the per-example loop's)", node,
                      "give the value one type on every path (e.g. float(...) where it "
                      "is assigned, or a float64 tensor)")


#: whether a per-example choice between values of different shapes is refused: in the
#: user's code (the per-example results would not make one array; broadcasting one against
#: the other would give the number's lanes a vector), not in what passes made of it (a
#: number placeholder before a loop that returns vectors, `masked_loops`)
PER_EXAMPLE_SHAPES: contextvars.ContextVar = contextvars.ContextVar("per_example_shapes",
                                                                     default=False)


class MaybeNone(Unsupported):
    """A name that holds None on some paths and a number (``value``) on others under a
    per-example condition: `transform` retries with None read as unbound
    (`body_sugar.check_none`)."""

    def __init__(self, message, node=None, suggestion="", *, name: str, value):
        super().__init__(message, node, suggestion)
        self.name = name
        self.value = value


class ChosenBindings(Unsupported):
    """A name that holds one of two dicts with the same ``keys`` after an ``if`` on a
    per-example condition: `transform` retries with each binding of the name written as
    the dict of its items (`body_constructs.chosen_tables.chosen_bindings`)."""

    def __init__(self, message, node=None, suggestion="", *, name: str, keys: list):
        super().__init__(message, node, suggestion)
        self.name = name
        self.keys = keys


def _same_keys(a, b) -> list | None:
    """The keys of two dicts the same for every example with the same keys, else None."""
    if not (type(a) is Value and type(b) is Value and a.known and b.known and not a.batched
            and not b.batched and type(a.example) is dict and type(b.example) is dict):
        return None
    keys = list(a.example)
    if not keys or keys != list(b.example) or not all(
            type(k) is str or type(k) is int and k >= 0 for k in keys):
        return None
    return keys


def _number_or_none(a, b):
    """The number of the two where one is None and the other a per-example number."""
    if isinstance(a, TupleValue) or isinstance(b, TupleValue) or not (a.known and b.known):
        return None
    if (a.example is None) == (b.example is None):
        return None
    number = b if a.example is None else a
    if np.ndim(number.example) or np.asarray(number.example).dtype.kind not in "biuf":
        return None
    return number


def _shape_phrase(example) -> str:
    shape = np.shape(example)
    return "a number" if not shape else f"an array of shape {shape}"


def no_per_example_choice_between(a, b, what: str, at) -> None:
    """Two values that differ per example end up in one array (`join` under a per-example
    condition): a tuple and a single value, tuples of different lengths, or values with no
    common dtype (a string and a number) cannot."""
    if isinstance(a, TupleValue) or isinstance(b, TupleValue):
        if isinstance(a, TupleValue) and isinstance(b, TupleValue):
            if len(a.items) == len(b.items):
                for x, y in zip(a.items, b.items):
                    no_per_example_choice_between(x, y, what, at)
                return
            problem = "tuples of different lengths"
        else:
            problem = "a tuple on some paths and a single value on others"
    elif a.known and b.known and np.shape(a.example) != np.shape(b.example) \
            and PER_EXAMPLE_SHAPES.get() and type(at) not in (cst.For, cst.While):
        # (a loop's carry that changes shape is refused where it is written, `batch_rules`)
        problem = (f"values of different shapes ({_shape_phrase(a.example)} and "
                   f"{_shape_phrase(b.example)})")
    elif a.known and b.known and a.example is not b.example:
        kinds = {np.asarray(a.example).dtype.kind, np.asarray(b.example).dtype.kind}
        try:
            dtype = np.result_type(np.asarray(a.example), np.asarray(b.example))
        except Exception:
            dtype = np.dtype(object)
        # a string and a number: np.array of the results makes strings of the numbers,
        # np.where refuses to
        if dtype.kind != "O" and not (kinds & set("USO") and len(kinds) > 1):
            return
        problem = (f"values of kinds that do not mix in one array ({type(a.example).__name__} "
                   f"and {type(b.example).__name__})")
    else:
        return
    raise Unsupported(f"{what} {problem}, depending on a per-example condition: the batch "
                      "cannot hold both in one array", at,
                      "return (or assign) values of one kind and shape on every path, e.g. "
                      "a number code instead of a string, np.zeros_like(v) instead of 0.0, "
                      "or tuples of the same length")


def bound_values(env: Env) -> dict:
    return {k: v for k, v in env.values.items() if k not in env.unbound}
