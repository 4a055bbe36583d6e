"""What the engine learns while it makes a specialization that decides how a call of it runs
(`codegen.Generated.facts`, read by `vectorize`'s call paths): whether numpy.vectorize's answer
may differ from the batched code's, so that the examples are replayed or the output types
learned from the first example.

Each fact is set where the engine meets the construct (the analysis, whatever the backend
spells it as), never read off the generated text: a `SpecFacts` is collected while a transform
runs (`collecting`, `note`) and kept with the specialization (the disk cache stores it; an
entry without it has every fact, `SpecFacts.from_payload`).
"""

from __future__ import annotations

import contextvars
from contextlib import contextmanager
from dataclasses import asdict, dataclass, fields


@dataclass(frozen=True)
class SpecFacts:
    """``joins``: the code chooses between values per example (a merge of an ``if``, a
    conditional expression, ``and``/``or``, ``max``/``min``, a loop some examples leave
    earlier), so that an example's result type may depend on its values, as numpy.vectorize's
    first example decides it (`api._probes`, and the check of a ``signature`` call).

    ``python_ints``: the code makes a Python int per example of a per-example number
    (``int(x)``, ``round(x)``, ``math.floor`` / ``ceil`` / ``trunc``): beside a narrow NumPy
    int (numpy.vectorize's examples under a ``signature``) it is weak (NEP 50) and computes in
    that dtype, where the batched code computes in int64: the examples are replayed.

    ``scalar_raises``: the code calls a function that raises on NumPy scalars where it computes
    on Python numbers (`math.ldexp`'s exponent must be a Python int): numpy.vectorize's first
    call, on NumPy scalars, raises where the examples would not, and so does every example
    with a ``signature``.

    ``identities``: the code decided ``x is NAN`` (a per-example parameter against a global or
    a literal, `analysis.expressions._identical`) as false on every example: each example of
    an array is a new object, but numpy.vectorize hands the items of a list or tuple argument
    as they are (its object array holds them), so such a call runs numpy.vectorize.

    ``handled_raises``: a ``try`` whose handler catches what a call in its body raises is
    left to the per-example loop (`passes.try_except`: the batch raises, the loop takes the
    handler), so what the batched code raises over an empty batch, where no loop runs, may
    be caught on every example: `vmap` returns the empty result there."""

    joins: bool = False
    python_ints: bool = False
    scalar_raises: bool = False
    identities: bool = False
    handled_raises: bool = False

    def payload(self) -> dict:
        """What the disk cache stores of it."""
        return asdict(self)

    @classmethod
    def from_payload(cls, payload) -> SpecFacts:
        """The facts stored by `payload`; every one for an entry that stored none."""
        if not isinstance(payload, dict):
            return ASSUMED
        return cls(**{f.name: bool(payload.get(f.name, True)) for f in fields(cls)})


ASSUMED = SpecFacts(joins=True, python_ints=True, scalar_raises=True)
"""The facts of code the engine did not make or did not say: every one (a replay too many,
never one too few)."""

_NAMES = frozenset(f.name for f in fields(SpecFacts))
_SEEN: contextvars.ContextVar = contextvars.ContextVar("vectorize_spec_facts", default=None)


def note(fact: str) -> None:
    """Say that the transform running now met ``fact`` (a `SpecFacts` field's name); nothing
    outside a transform (`collecting`)."""
    seen = _SEEN.get()
    if seen is not None:
        if fact not in _NAMES:
            raise ValueError(f"no such fact: {fact!r}")
        seen.add(fact)


@contextmanager
def collecting():
    """The names of the facts noted while the block runs (a set, filled as it runs)."""
    seen: set[str] = set()
    token = _SEEN.set(seen)
    try:
        yield seen
    finally:
        _SEEN.reset(token)


def of(seen) -> SpecFacts:
    """The `SpecFacts` of the names `collecting` gathered."""
    return SpecFacts(**{f.name: f.name in seen for f in fields(SpecFacts)})
