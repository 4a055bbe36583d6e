"""Abstract values: what the engine knows about every value of a per-example function.

Each value is *batched* (it carries the batch axis, physically at axis 0, in generated code)
or not, and has an *example*: a representative per-example value. For batched values the
example is a NumPy scalar or array of the per-example dtype and shape (so rank, shape and
dtype come from NumPy itself: inference is done by running the scalar operation on
examples, as ``jax.eval_shape`` does). For unbatched values it is the actual value where it is
statically known (constants, globals), else a representative of the argument's type.
``UNKNOWN`` marks a value whose type the engine cannot know.
"""

from __future__ import annotations

import contextvars
import functools
import itertools
import math
import weakref
from dataclasses import dataclass

import numpy as np

from .spec_facts import note as note_fact


class _Unknown:
    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()

# How examples combine where the analysis runs for a backend whose semantics differ from
# NumPy's (`vectorize.backends.base.Backend.analysing`): an object with ``join(a, b)`` (the
# example of a value that is ``a`` on some lanes and ``b`` on others) and ``weak`` (whether
# a per-example Python number stays a Python number, as PyTorch's weakly typed scalars do);
# None: NumPy's.
EXAMPLE_SEMANTICS: contextvars.ContextVar = contextvars.ContextVar("vectorize_examples",
                                                                   default=None)
_PYTHON_NUMBERS = (bool, int, float, complex)

class ValueFacts:
    """A fact of abstract values (`Value`, `TupleValue`) kept on each value itself, as
    `record_fact` keeps its facts: a set (``add``, ``in``) or a mapping (``[]``, ``get``,
    ``in``) by identity. A fact of this very object, which another object made from it
    (`dataclasses.replace`) or another transform's values, in another thread too, never
    share; it goes with the value. What is not an abstract value holds no fact (``in``: False;
    ``get``: the default, TypeError as a weak table's for what cannot be weakly referenced;
    setting one: TypeError)."""

    def __init__(self, attribute: str):
        self.attribute = attribute

    def _holder(self, value) -> dict:
        if not isinstance(value, (Value, TupleValue)):
            raise TypeError(f"no fact of a {type(value).__name__}")
        return value.__dict__

    def __contains__(self, value) -> bool:
        return isinstance(value, (Value, TupleValue)) and self.attribute in value.__dict__

    def get(self, value, default=None):
        if not isinstance(value, (Value, TupleValue)):
            weakref.ref(value)          # (TypeError, as a weak table's lookup)
            return default
        return value.__dict__.get(self.attribute, default)

    def __getitem__(self, value):
        try:
            return self._holder(value)[self.attribute]
        except KeyError:
            raise KeyError(value) from None

    def __setitem__(self, value, fact) -> None:
        self._holder(value)[self.attribute] = fact

    def add(self, value) -> None:
        self[value] = True


MIXED_TYPES: contextvars.ContextVar = contextvars.ContextVar("vectorize_mixed_types",
                                                            default=None)
"""During a transform, a list that `note_mixed_types` appends to where values of different
types meet per example (`join` of per-example values, `min`/`max` of an int and a float): the
type of such an example's result depends on its values (`codegen.Generated.mixed_types`)."""


MIXED_KINDS = ValueFacts("_mixed_kinds")
"""Per-example values that are different kinds of number on different lanes (`join` of an
int and a float, a bool and an int): their joined type is not each lane's, which `str()`
and f-strings without a float presentation type show (`analysis.expressions.string_piece`)."""


MIXED_PARTS = ValueFacts("_mixed_parts")
"""For a per-example value that is different kinds of number on different lanes (`join`,
`min`/`max` of an int and a float): an example of each lane type it joins (one per type),
which `analysis.expressions` computes an operation of on its own (`lane_types_differ`)."""


INT_PART_SIZES = ValueFacts("_int_part_sizes")
"""For a value in `MIXED_PARTS`: the largest magnitude each of its integer lane types
(``(type, dtype)``) holds where every value it comes from is an exact int the same for
every example (``r = 128`` before a loop); inf (or no entry) where it is per-example
(`inexact_int_lanes`)."""


def _int_size(value, key) -> float:
    if value in MIXED_PARTS:
        return INT_PART_SIZES.get(value, {}).get(key, math.inf)
    if isinstance(value, Value) and not value.batched and value.exact and isinstance(
            value.example, (int, np.integer)):
        return float(abs(int(value.example)))
    return math.inf


def note_mixed_parts(joined, *values) -> None:
    """Record the lane types of ``joined`` from the values it joins (their own parts, or
    their examples)."""
    parts, sizes = {}, {}
    for value in values:
        for example in MIXED_PARTS.get(value, (getattr(value, "example", value),)):
            if example is UNKNOWN or number_kind(example) is None:
                return
            key = (type(example), getattr(example, "dtype", None))
            parts.setdefault(key, example)
            sizes[key] = max(sizes.get(key, 0.0), _int_size(value, key))
    if len(parts) > 1:
        try:
            MIXED_PARTS[joined] = tuple(parts.values())
            INT_PART_SIZES[joined] = sizes
        except TypeError:
            pass


RETURNED_AS_IS: contextvars.ContextVar = contextvars.ContextVar("vectorize_returned_as_is",
                                                                 default=frozenset())
"""The expressions the mapped function itself returns as they are (``return r``, ``return k
if k > 0 else 0.5``, the items of ``return a, b``): per example their values are only
stacked, which casts each lane to the joined dtype as the batch's ``where`` does."""

ASSIGNED_AS_IS: contextvars.ContextVar = contextvars.ContextVar("vectorize_assigned_as_is",
                                                                 default=frozenset())
"""The expression an assignment to names binds as it is (``r = k if k > 0 else 0.5``): a
choice it makes between an int tensor and a narrower float is kept, refused where the names
are read (`DEFERRED_JOINS`)."""

UNPACKED_AT_ONCE: contextvars.ContextVar = contextvars.ContextVar("vectorize_unpacked_at_once",
                                                                   default=None)
"""``(call, n)`` where the statement being analysed assigns the call, as it is, to a tuple (or
list) of ``n`` targets (``a, b = g(x)``): a generator's items are all pulled at once there
(`body_constructs.generators`)."""

DEFERRED_JOINS = ValueFacts("_deferred_joins")
"""A per-example value joined from an int tensor on some lanes and a float narrower than
float64 on others (`inexact_int_lanes`): returned as it is, the batch's join is the loop's
stacking; anything else done with it computes in each lane's own type per example. The
value -> (``what``, the int lane, the joined dtype), refused where it is read
(`analysis.expressions`) other than by a ``return`` (`RETURNED_AS_IS`)."""


def inexact_int_lanes(joined, *values, python_ints_only: bool = False) -> str | None:
    """Where Python numbers stay weak (`EXAMPLE_SEMANTICS.weak`, PyTorch): the lane type of
    ``values`` (per-example values a per-example choice joins into ``joined``) that is an
    integer the joined float narrower than float64 cannot hold exactly (a Python int or an
    int32 tensor on some lanes, a float32 tensor on others: the batch's float32 rounds
    2147483645 to 2147483648 where the lane keeps the int), described; else None. (A
    float64 join converts as Python converts an int meeting a float.)"""
    if not getattr(EXAMPLE_SEMANTICS.get(), "weak", False):
        return None
    dtype = getattr(joined, "dtype", None)
    if dtype is None or dtype.kind != "f" or dtype.itemsize >= 8:
        return None
    digits = np.finfo(dtype).nmant + 1
    for value in values:
        if not isinstance(value, Value):
            continue
        for example in MIXED_PARTS.get(value, (value.example,)):
            if type(example) is int:
                bits, name = 63, "a Python int"
            elif isinstance(example, np.integer) and not python_ints_only:
                info = np.iinfo(example.dtype)
                bits, name = info.bits - (info.min < 0), f"an {example.dtype} tensor"
            else:
                continue
            size = _int_size(value, (type(example), getattr(example, "dtype", None)))
            if size == math.inf and not value.batched and value not in MIXED_PARTS:
                continue        # (a shared int of unknown value: as before)
            if bits > digits and size > 2 ** digits:
                return name
    return None


def one_like(example):
    """1 in the type of ``example`` (a lane type of a mixed value): the operation's outcome
    for the type, not for the representative's value."""
    if isinstance(example, (bool, np.bool_)):
        return type(example)(True)
    if not isinstance(example, (int, float, complex, np.number)):
        return example
    try:
        return type(example)(1)
    except Exception:   # noqa: BLE001 -- keep the representative
        return example


def lane_combinations(values, examples, part=lambda p: p) -> list:
    """The argument lists, each with the lane type it stands for, an operation on ``values``
    (abstract values; ``examples`` their examples) takes on the lanes of the values among
    them whose type differs between lanes (`MIXED_PARTS`; ``part`` makes the argument of a
    lane type): each such value's each lane type alone, then, where several are such values,
    every combination of their lane types (values computed from one value of mixed lane
    types, ``r > 0`` and ``-r``, are Python numbers on the same lanes)."""
    mixed = [i for i, v in enumerate(values) if isinstance(v, Value) and v in MIXED_PARTS]
    out = []
    for i in mixed:
        for p in MIXED_PARTS[values[i]]:
            lane = list(examples)
            lane[i] = part(p)
            out.append((lane, p))
    if len(mixed) > 1:
        choices = [MIXED_PARTS[values[i]] for i in mixed]
        if math.prod(len(c) for c in choices) <= 32:
            for parts in itertools.product(*choices):
                lane = list(examples)
                for i, p in zip(mixed, parts):
                    lane[i] = part(p)
                python = [p for p in parts if type(p) in _PYTHON_NUMBERS]
                out.append((lane, python[0] if python else parts[0]))
    return out


_NARROW_INEXACT = frozenset(np.dtype(t) for t in (np.float16, np.float32, np.complex64))


def narrows_exactly(value, dtype) -> bool:
    """Whether ``value``, a per-example value that is a Python float on some lanes and a
    NumPy value on others (`MIXED_PARTS`: ``min(y * 1.0, 0.0)`` of a float32 ``y``), is made
    ``dtype`` (a float16, float32 or complex64) as each lane's own NumPy promotion makes it,
    by converting the batch's joined array to ``dtype``: every NumPy lane type is ``dtype``
    itself (its values are ``dtype``'s, which the joined double holds exactly) and every
    Python lane a float (or, for a complex ``dtype``, a complex), which NEP 50 converts to
    ``dtype`` (rounded once, from the double the batch holds) where it meets a ``dtype``
    value (``np.float32(x) - 0.0`` is a float32)."""
    dtype = np.dtype(dtype)
    parts = MIXED_PARTS.get(value) if isinstance(value, Value) else None
    if dtype not in _NARROW_INEXACT or not parts:
        return False
    python = (float, complex) if dtype.kind == "c" else (float,)
    return all(type(p) in python if type(p) in _PYTHON_NUMBERS else
               getattr(p, "dtype", None) == dtype and np.ndim(p) == 0 for p in parts)


def uniform_narrow_lanes(fn, values, joined):
    """The one float16, float32 or complex64 dtype that ``fn`` of ``values`` gives on every
    combination of the lane types of the values among them whose type differs between
    lanes (`lane_combinations`), where each such value `narrows_exactly` to it and ``joined``
    (the batch's dtype) is another: the batch computes every lane in that dtype once those
    values are converted to it (`rules.operators.narrow_weak_operands`). None otherwise."""
    combos = lane_combinations(values, [v.example for v in values], one_like)
    if not combos:
        return None
    dtypes = set()
    for lane, _ in combos:
        try:
            with np.errstate(all="ignore"):
                out = fn(*lane)
        except Exception:   # noqa: BLE001 -- a lane that raises: not this case
            return None
        if np.ndim(out) != 0 or getattr(out, "dtype", None) is None:
            return None
        dtypes.add(out.dtype)
    if len(dtypes) != 1:
        return None
    (dtype,) = dtypes
    if dtype == joined or dtype not in _NARROW_INEXACT:
        return None
    for v in values:
        if v in MIXED_PARTS and not narrows_exactly(v, dtype):
            return None
        if v not in MIXED_PARTS and v.known and getattr(v, "dtype", None) is not None and \
                np.dtype(v.dtype) != dtype and type(v.example) not in _PYTHON_NUMBERS:
            return None
    return dtype


def note_lane_results(result, fn, values, examples, **kwargs) -> None:
    """Where Python numbers stay weak (`EXAMPLE_SEMANTICS.weak`, PyTorch; NumPy's NEP 50):
    ``result``, what ``fn`` of ``values`` gives, is of mixed lane types too where ``fn`` gives
    a different type on the lane types of its operands (`lane_combinations`): ``-r`` or
    ``r > 0`` of a value that is a Python float on some lanes and a tensor on others is a
    Python number on the first, which the operations that take only tensors raise for
    (`MIXED_PARTS`); ``np.floor(r)`` of an r that is an int8 on some lanes is an int8 there,
    which a later ``r + np.floor(r)`` wraps in."""
    semantics = EXAMPLE_SEMANTICS.get()
    if (semantics is not None and not getattr(semantics, "weak", False)) or not isinstance(
            result, Value) or not result.batched or result in MIXED_PARTS:
        return
    combos = lane_combinations(values, examples, one_like)
    if not combos:
        return
    parts = {}
    for lane, _ in combos:
        try:
            with np.errstate(all="ignore"):
                out = fn(*lane, **kwargs)
        except Exception:   # noqa: BLE001 -- the lane raises: the operation's checks decide
            continue
        if number_kind(out) is None or np.ndim(out) != 0:
            return
        parts.setdefault((type(out), getattr(out, "dtype", None)), out)
    if len(parts) > 1:
        try:
            MIXED_PARTS[result] = tuple(parts.values())
        except TypeError:
            return
        MIXED_KINDS.add(result)


def mixed_kinds(a, b) -> bool:
    """Whether examples ``a`` and ``b`` are different kinds of number (bool, int, float,
    complex) per example; where Python numbers stay weak (`EXAMPLE_SEMANTICS.weak`: a
    PyTorch example is a 0-d tensor or a Python number), also a Python number and an array's
    scalar of one kind: the operations that take one raise for the other (``torch.sqrt`` of
    an int, ``x ** -1`` of an int tensor) and promote differently."""
    ka, kb = number_kind(a), number_kind(b)
    if ka is None or kb is None:
        return False
    if ka != kb:
        return True
    semantics = EXAMPLE_SEMANTICS.get()
    return bool(getattr(semantics, "weak", False)) and (
        type(a) in _PYTHON_NUMBERS) != (type(b) in _PYTHON_NUMBERS)


def mixed_lane_types(a, b) -> bool:
    """Whether examples ``a`` and ``b`` give their lanes different types that compute
    differently: different kinds of number (`mixed_kinds`), or floats or complex numbers of
    different widths (a float32 on some lanes, a float64 or a Python float on others:
    ``u * 1.1`` rounds to float32 on the first, the batch computes every lane in float64;
    PyTorch's joined dtype is kept where the value is only passed on, `analysis.expressions`
    refuses an operation that rounds differently in a lane's own type)."""
    if mixed_kinds(a, b):
        return True
    semantics = EXAMPLE_SEMANTICS.get()
    if semantics is not None:
        # (PyTorch: 0-d tensors of one kind and different dtypes, an int16 on some lanes
        # and an int32 on others: the narrower lanes wrap in their own width, `r + 1`; a
        # float32 on some and a float64 on others: the first round to float32, `r ** 2`)
        return bool(getattr(semantics, "weak", False)) and number_kind(a) in (
            "int", "float", "complex") and number_kind(b) == number_kind(a) and \
            type(a) not in _PYTHON_NUMBERS and type(b) not in _PYTHON_NUMBERS and \
            _lane_dtype(a) != _lane_dtype(b)
    ka = number_kind(a)
    if ka == "bool" == number_kind(b):
        # a Python bool on some lanes, a NumPy bool on others: Python's are the ints 0 and 1
        # in arithmetic (``r + r`` is 2, ``-r`` is -1), NumPy's add as a logical or and
        # raise for ``-`` (`passes.python_raises` refuses those)
        return (type(a) is bool) != (type(b) is bool)
    if ka == "int" == number_kind(b):
        # ints of different widths or signedness (an int16 on some lanes, an int32 or a
        # Python int on others): the narrower lanes wrap in their own type, ``r * 1000``
        return _lane_dtype(a) != _lane_dtype(b)
    if ka not in ("float", "complex") or ka != number_kind(b):
        return False
    return _lane_dtype(a).itemsize != _lane_dtype(b).itemsize


def _lane_dtype(example):
    dtype = getattr(example, "dtype", None)
    return dtype if dtype is not None else np.asarray(example).dtype


def note_mixed_types(a=None, b=None) -> None:
    """Say that values of different types meet per example (``a`` and ``b``, examples:
    only where they are different kinds of Python number, or unknown)."""
    seen = MIXED_TYPES.get()
    if seen is None or seen:
        return
    if a is not None and number_kind(a) == number_kind(b) is not None:
        return
    seen.append(True)


_KIND_OF = {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex"}


def number_kind(example):
    """The kind of Python number an example stands for per example (None: not a number)."""
    if example is UNKNOWN:
        return None
    dtype = getattr(example, "dtype", None)
    if dtype is None:
        if type(example) not in _PYTHON_NUMBERS:
            return None
        dtype = np.asarray(example).dtype
    return _KIND_OF.get(dtype.kind)



@dataclass(frozen=True, eq=False)
class PythonSemantics:
    """What the front end hands the function per example, where it is `vectorize`'s
    (numpy.vectorize's): Python numbers, so operations raise where Python's do
    (`passes.python_raises`). The front ends say it with ``python_semantics``: False for
    `vmap` and the file rewriter (NumPy scalars per example), an instance for `vectorize`.
    ``numbers``: the parameters' abstract values (`Value` objects, by identity) that are
    Python numbers per example: numpy.vectorize hands each example of an array (and of a
    Python number) as a Python bool, int, float or complex, and a NumPy scalar argument as it
    is; ``isinstance(n, int)`` depends on it (`analysis.calls.Calls.isinstance_of`).
    ``types_only``: the code is made for the output types numpy.vectorize learns from its
    first call on NumPy scalars of the arguments' own dtypes, not run on examples (`vectorize`
    computes with Python's wider values): `passes.python_raises` refuses nothing about how
    NumPy values and Python numbers meet there."""

    numbers: tuple = ()
    types_only: bool = False
    # the values of ``numbers`` of an int8..int32 or uint8..uint32 argument, which the
    # generated code computes with as int64 (`vectorize._plan`): within 2**31 in size
    # (an int compared with a float needs no check: `passes.python_raises`)
    small_ints: tuple = ()


@dataclass(frozen=True, eq=False)
class Value:
    batched: bool
    example: object = UNKNOWN
    # the example IS the value (a literal, a global, or computed from those) rather than a
    # representative of its type: only exact values may be baked into generated code
    exact: bool = False

    @property
    def known(self) -> bool:
        return self.example is not UNKNOWN

    @functools.cached_property
    def rank(self) -> int:
        """Per-example rank (0 for scalars and for things that are not arrays)."""
        if not self.known:
            return 0
        try:
            return int(np.ndim(self.example))
        except (TypeError, ValueError):
            return 0

    @property
    def dtype(self) -> np.dtype | None:
        if not self.known:
            return None
        try:
            return np.asarray(self.example).dtype
        except Exception:
            return None

    @property
    def kind(self) -> str:
        """NumPy dtype kind of the per-example value ('b', 'i', 'u', 'f', 'c', 'O'...)."""
        dt = self.dtype
        return dt.kind if dt is not None else "?"

    def describe(self) -> str:
        if not self.known:
            return "batched value" if self.batched else "value"
        if self.batched:
            shape = np.shape(self.example)
            return f"batched {self.dtype}" + (f" of per-example shape {shape}" if shape else "")
        return f"{type(self.example).__name__}"


NONE_ON_SOME_LANES = "_none_on_some_lanes"
"""A fact of a per-example value that is None on some examples (a conditional expression
with a per-example test and a None arm): whether one `is None` differs per example
(`record_fact`)."""

FRESH_PER_EXAMPLE = "_fresh_per_example"
"""A fact of the values of the function's own per-example number parameters as it receives
them (`Analysis._interpret`), and of per-example float arithmetic: a new object per example
(numpy.vectorize hands each example a float, complex or int made from the array's item;
`vmap`'s loop a NumPy scalar, a tensor, a tracer), so never the same object as a global or a
literal of the function (`record_fact`)."""


def record_fact(value, fact: str) -> None:
    """Record ``fact`` (`NONE_ON_SOME_LANES`, `FRESH_PER_EXAMPLE`) of the abstract value
    ``value`` (a `Value` or `TupleValue`) on that object itself: a fact of this very object
    (membership by identity, as its cached properties), which another object made from it
    (`dataclasses.replace`) or another transform's values, in another thread too, never
    share."""
    object.__setattr__(value, fact, True)


def has_fact(value, fact: str) -> bool:
    """Whether `record_fact` recorded ``fact`` of ``value`` (anything: False for what is not
    an abstract value)."""
    return getattr(value, "__dict__", {}).get(fact, False)


@dataclass(frozen=True, eq=False)
class TupleValue:
    """A tuple whose items are tracked one by one (tuple returns, tuple assignment); also
    the other containers of a pytree (`vectorize.pytree`): ``kind`` is the container's type
    where it is not a tuple (list, dict, a namedtuple class) and ``keys`` a dict's keys or a
    namedtuple's fields, which constant subscripts and attribute reads look up."""

    items: tuple
    keys: tuple | None = None
    kind: type | None = None

    def item_for(self, key):
        """The item of a dict key or namedtuple field ``key``; KeyError where none."""
        if self.keys is None:
            raise KeyError(key)
        for k, item in zip(self.keys, self.items):
            if type(k) is type(key) and k == key:
                return item
        raise KeyError(key)

    @property
    def batched(self) -> bool:
        return any(item.batched for item in self.items)

    @property
    def example(self):
        return tuple(item.example for item in self.items)

    @property
    def known(self) -> bool:
        return all(item.known for item in self.items)

    @property
    def exact(self) -> bool:
        return all(getattr(item, "exact", False) for item in self.items)

    def describe(self) -> str:
        return "tuple(" + ", ".join(item.describe() for item in self.items) + ")"


def unbatched(example=UNKNOWN, exact: bool = False) -> Value:
    return Value(False, example, exact and example is not UNKNOWN)


def exact(example) -> Value:
    """An unbatched value known exactly (a literal, a global, a constant expression)."""
    return unbatched(example, True)


def all_exact(*values) -> bool:
    return all(isinstance(v, Value) and v.exact for v in values)


def batched_like(example) -> Value:
    """A batched value whose per-example representative is ``example`` (made strongly typed:
    in generated code every batched value is an array, never a weak Python scalar)."""
    if example is UNKNOWN:
        return Value(True, UNKNOWN)
    if type(example) in _PYTHON_NUMBERS:
        semantics = EXAMPLE_SEMANTICS.get()
        if semantics is not None and semantics.weak:
            return Value(True, example)
    arr = np.asarray(example)
    if arr.dtype.kind not in "biufcmM?" and arr.dtype != object:
        return Value(True, UNKNOWN)
    return Value(True, arr[()] if arr.ndim == 0 else arr)


def representative(value):
    """A per-example representative for a real argument value: ones of the same dtype and
    per-example shape (ones keep inference clear of division by zero and log(0))."""
    arr = np.asarray(value)
    if arr.dtype.kind in "biufc":
        return np.ones(arr.shape, arr.dtype)[()]
    return arr[()] if arr.ndim == 0 else arr


def same_type(a, b) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, (np.ndarray, np.generic)):
        return a.dtype == b.dtype and np.shape(a) == np.shape(b)
    return True


def join_examples(a, b):
    """The example of a value that is ``a`` on some lanes and ``b`` on others, as
    ``np.where`` would promote it; UNKNOWN where no single per-example type exists."""
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    if same_type(a, b):
        return a
    semantics = EXAMPLE_SEMANTICS.get()
    if semantics is not None:
        return semantics.join(a, b)
    try:
        with np.errstate(all="ignore"):
            out = np.where(True, a, b)
    except Exception:
        return UNKNOWN
    if out.dtype == object:
        return UNKNOWN
    return out[()] if out.ndim == 0 else out


def _stacked(value, other, per_example: bool = False):
    """The example of ``value`` as the batch holds it beside ``other``, a NumPy value of
    another type: a Python number per example (``round(x)``, ``int(y)`` of a batched value)
    is a lane the loop's results stack as NumPy's default type of its kind (int64,
    float64), never the narrow type of what it is joined with (NEP 50's weak scalars apply
    to operations, not to stacking: ``np.stack([np.int16(1), 2 ** 40])`` is int64); so is
    a number the same for every example that ``other``'s type cannot hold (``-1`` beside a
    uint8 would wrap to 255, a float that float16 rounds). Other such numbers keep NumPy's
    weak join (``0`` beside an int16: int16, the same values). A float the narrow float
    rounds (``math.log(3.0)`` beside a float16) counts only on a path every lane takes
    (not ``per_example``: a loop of a shared trip count), where the batch holds the number
    on every lane; a per-example choice of them has no one type (refused where it matters:
    `MIXED_KINDS`). PyTorch's examples join by their own rules."""
    example = value.example
    if type(example) not in _PYTHON_NUMBERS or EXAMPLE_SEMANTICS.get() is not None:
        return example
    if value.batched or not value.exact or not _holds(getattr(other, "example", UNKNOWN),
                                                      example, rounds=not per_example):
        return np.asarray(example)[()]
    return example


def _holds(example, number, rounds: bool = False) -> bool:
    """Whether the NumPy type of ``example`` holds the Python number ``number`` without
    wrapping or overflowing (as `rules.operators.refuse_wrapping_constant` judges)."""
    dtype = getattr(example, "dtype", None)
    if dtype is None or type(number) is bool:
        return True
    if type(number) is int and dtype.kind in "iu":
        info = np.iinfo(dtype)
        return info.min <= number <= info.max
    if type(number) in (int, float) and dtype.kind in "fc":
        if not math.isfinite(number):
            return True
        if abs(number) > np.finfo(dtype).max:
            return False
        # (``rounds``: a float the dtype rounds, ``math.log(3.0)`` beside a float16, is not
        # held: the lane holds the number itself, which the batch's float64 keeps)
        return not rounds or float(dtype.type(number).real) == number
    return True


def _mixed(value) -> bool:
    """Whether ``value`` has different types on different lanes (`MIXED_KINDS`, or lane
    types `MIXED_PARTS` records: ``min(y, r)`` of a uint8 and a float)."""
    return value in MIXED_KINDS or value in MIXED_PARTS


def join(a, b, *, force_batched: bool = False):
    """Merge two abstract values of one variable at a control-flow join (``force_batched``:
    one under a per-example condition, a choice per example: `SpecFacts.joins`)."""
    if force_batched:
        note_fact("joins")
    if isinstance(a, TupleValue) and isinstance(b, TupleValue) and len(a.items) == len(b.items):
        same_keys = a.keys == b.keys and a.kind is b.kind
        return TupleValue(tuple(join(x, y, force_batched=force_batched)
                                for x, y in zip(a.items, b.items)),
                          a.keys if same_keys else None, a.kind if same_keys else None)
    if isinstance(a, TupleValue) or isinstance(b, TupleValue):
        return Value(force_batched or a.batched or b.batched, UNKNOWN)
    out = _join_values(a, b, force_batched)
    deferred = DEFERRED_JOINS.get(a) or DEFERRED_JOINS.get(b)
    if deferred is not None and out.batched:
        DEFERRED_JOINS[out] = deferred  # (its int lanes still compute as ints per example)
    return out


def _join_values(a, b, force_batched: bool):
    is_batched = force_batched or a.batched or b.batched
    if not is_batched:
        if a.example is b.example:
            return Value(False, a.example, a.exact and b.exact)
        if same_type(a.example, b.example):
            return Value(False, a.example)
        numeric = (int, float, complex, bool, np.generic, np.ndarray)
        if isinstance(a.example, numeric) and isinstance(b.example, numeric):
            # one of two numbers, the path the call takes deciding which (so the type of
            # what is computed from it: `False if b else 0.5`, numpy.vectorize's outputs
            # take the first example's)
            note_mixed_types(a.example, b.example)
            return Value(False, join_examples(a.example, b.example))
        return Value(False, UNKNOWN)
    if all(isinstance(x.example, (str, np.str_)) for x in (a, b)):
        # a string per example (`'lo' if x < 0 else 'mid'`): NumPy's `<U` of the longer
        return Value(True, np.str_(max(str(a.example), str(b.example), key=len)))
    if not same_type(a.example, b.example):
        note_mixed_types(a.example, b.example)
        joined = batched_like(join_examples(_stacked(a, b, force_batched),
                                            _stacked(b, a, force_batched)))
        if _mixed(a) or _mixed(b) or force_batched and mixed_lane_types(
                a.example, b.example):
            # (force_batched: the lanes take different paths; on a path every lane takes,
            # such as a loop every example runs as often, each lane has the batch's type)
            MIXED_KINDS.add(joined)
            note_mixed_parts(joined, a, b)
        return joined
    if _mixed(a) or _mixed(b):
        joined = batched_like(a.example)
        MIXED_KINDS.add(joined)
        note_mixed_parts(joined, a, b)
        return joined
    return batched_like(join_examples(a.example, b.example))


def _part_types(value) -> frozenset:
    return frozenset((type(p), getattr(p, "dtype", None)) for p in MIXED_PARTS.get(value, ()))


def same(a, b) -> bool:
    """Whether two abstract values describe the same thing (for fixed points)."""
    if isinstance(a, TupleValue) or isinstance(b, TupleValue):
        return (isinstance(a, TupleValue) and isinstance(b, TupleValue)
                and len(a.items) == len(b.items)
                and all(same(x, y) for x, y in zip(a.items, b.items)))
    if a.batched != b.batched or a.exact != b.exact:
        return False     # (exactness decides which side of a test runs: `python_conditions`)
    if (a in MIXED_KINDS) != (b in MIXED_KINDS) or _part_types(a) != _part_types(b):
        # (a loop's carry that becomes of mixed lane types on a later pass, `r = min(y, r)`
        # of a uint8 `y` and a float `r`: the body runs again on the mixed value)
        return False
    if a.example is b.example:
        return True
    if a.example is UNKNOWN or b.example is UNKNOWN:
        return False
    return same_type(a.example, b.example)
