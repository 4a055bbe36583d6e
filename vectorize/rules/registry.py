"""The batching-rule registry: every piece of "how does operation X batch" knowledge.

A rule has a name, a one-line explanation, a before/after example and a ``rewrite`` that
turns one call site (given the abstract values of its arguments) into batched code. Rules are
registered by family helpers (see `families.py`), so a rule is a few lines and a family is one
call, as in JAX's ``defvectorized``/``defbroadcasting``. An operation whose inputs are all
unbatched never reaches a rule: it is left exactly as written.

The same registry drives the rewriting pass, ``--explain`` and ``docs/rules.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import libcst as cst
import numpy as np

from ..abstract import UNKNOWN, Value, batched_like


@dataclass
class Site:
    """One application of a rule: a call (or operator) whose inputs include batched values."""

    args: list            # abstract values of the positional operands
    nodes: list           # their (already rewritten) libcst expressions
    kwargs: dict = field(default_factory=dict)   # name -> (node, abstract value)
    func: object = None   # the Python callable, for call rules
    node: cst.CSTNode | None = None       # the site itself, children already rewritten
    original: cst.CSTNode | None = None
    result: object = None  # the analysis' abstract value of the whole site
    parts: list | None = None   # subscripts: abstract value of each index (None: a slice)
    func_is_method: bool = False
    backend: object = None      # the `Backend` the code is written for (None: NumPy)
    # the batch length, for rules that make new data for every example (random draws,
    # arrays created for per-example data): ``len(x)`` of a parameter, or a name set to it
    batch: cst.BaseExpression | None = None
    # the examples are Python numbers (`vectorize`): Python's semantics where NumPy's differ
    # (`round(x, n)`), not NumPy scalars' (`vmap`)
    python_semantics: bool = False
    # inside a loop of the user's (a merge there runs once per iteration)
    in_loop: bool = False
    # code for a file (the rewriter's), which must not need this package at run time
    standalone: bool = False
    # code for a file: its literals stay as the user wrote them (`operators.float_literals`)
    keep_literals: bool = False
    # `vmap`: per operand, whether it is a Python number per example (`math.sqrt(x)`,
    # `float(x)`, a literal), weak in NumPy's promotion (NEP 50); empty where not asked
    weak: tuple = ()
    # the code is made only to learn numpy.vectorize's output types on NumPy scalars of the
    # arguments' own dtypes (`abstract.PythonSemantics.types_only`): never run on examples
    types_only: bool = False
    # per operand, where the rule asks (`Rule.python_operands`): whether it is surely a
    # Python number in every call of the function, numpy.vectorize's first call on NumPy
    # scalars included (`int(x)`, `len(v)`, a literal; not a parameter, which is a NumPy
    # scalar there), so that a method only Python's numbers have (`.bit_length()`) is there
    python_first: tuple = ()

    @property
    def spelled(self):
        """The backend whose spellings the rule writes (`vectorize.backends.base.Backend`)."""
        if self.backend is None:
            from .. import backends
            return backends.get(backends.DEFAULT)
        return self.backend

    @property
    def max_rank(self) -> int:
        """The largest per-example rank among the operands (what they broadcast to)."""
        return broadcast_rank(self.args)


def broadcast_rank(values) -> int:
    """The largest per-example rank among operands combined lane by lane; an unbatched
    operand whose shape the engine cannot tell (a call it cannot look into) among
    per-example ones is refused: guessing it a scalar would broadcast it against the batch
    axis."""
    values = [v for v in values if isinstance(v, Value)]
    if any(v.batched for v in values) and any(not v.known and not v.batched for v in values):
        from ..errors import Unsupported
        raise Unsupported("cannot tell the shape of an unbatched operand combined with "
                          "per-example values (its value comes from a call the engine "
                          "cannot look into)",
                          suggestion="give it a known type, e.g. float(...) or "
                                     "np.asarray(...), or compute it outside the function")
    return max((v.rank for v in values), default=0)


@dataclass
class Rule:
    name: str
    family: str
    explanation: str
    before: str
    after: str
    rewrite: Callable[[Site], cst.BaseExpression]
    infer: Callable[[Site], Value] | None = None
    may_warn: bool = False   # can emit floating-point warnings on some inputs (log, /, sqrt)
    # the operation computed on NumPy examples, for a backend whose own function does not
    # take them (`torch.sin` of a NumPy example): what the analysis runs to learn dtypes and
    # shapes, and to evaluate the call where no argument is per example
    shadow: Callable | None = None
    # the first operand is a sequence of pieces (``np.stack([a, b])``): a list or tuple
    # display of per-example values there stays a list; for every other rule such a display
    # is one per-example array (`Calls.array_operand`)
    takes_pieces: bool = False
    # every operand is a pytree (a vmapped function's arguments): list and tuple displays
    # stay lists and tuples, never one per-example array
    takes_trees: bool = False
    # per example a vector whose length differs between examples (``np.arange(n)``): only a
    # reduction with a `masked` form may consume it (`Calls.ragged_operands`)
    ragged: bool = False
    # this reduction's rule over an operand built from ragged vectors (padded, masked)
    masked: Rule | None = None
    # the rule asks which operands are Python numbers where the function first meets them
    # (`Site.python_first`)
    python_operands: bool = False


def evaluate(fn, *args, **kwargs):
    """Run ``fn`` on per-example examples to learn the result's dtype and shape."""
    if any(a is UNKNOWN for a in args) or any(v is UNKNOWN for v in kwargs.values()):
        return UNKNOWN
    try:
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)
    except Exception:
        return UNKNOWN


def infer_by_calling(fn):
    """A rule's ``infer``: ``fn`` called on the examples of the site's arguments and keywords
    (`evaluate`), the value its batched result has."""
    def infer(site: Site):
        return batched_like(evaluate(fn, *[a.example for a in site.args],
                                     **{k: v.example for k, (_, v) in site.kwargs.items()}))
    return infer


# other representatives of a number, tried when the function raises on the first one
# (``math.sqrt(x - 10.0)`` with the representative x = 1.0): the result's type and structure
# (divmod's pair) do not depend on which value represents the examples
_OTHER_REPRESENTATIVES = (0.5, 2.0, 100.0, -0.5)


def default_infer(site: Site) -> Value:
    examples = [v.example for v in site.args]
    kw = {k: v.example for k, (_, v) in site.kwargs.items()}
    out = evaluate(site.func, *examples, **kw)
    ints = [e.dtype for e in examples if isinstance(e, np.integer)]
    if out is UNKNOWN and ints and any(type(e) is int for e in examples):
        # a Python int beyond a NumPy int's type (``divmod(np.uint16(m), -3)``: NEP 50
        # raises OverflowError) computes in that type where it fits, which is the result's
        # (the Python ints below made ``m`` of ``m = divmod(m, -3)[0]`` in a loop an int64,
        # a result where the per-example loop raises)
        weak = np.result_type(*ints).type(1)
        out = evaluate(site.func, *[weak if type(e) is int else e for e in examples], **kw)
    if out is UNKNOWN and any(isinstance(e, np.integer) for e in examples):
        # (`math.ldexp(x, n)` takes a Python int only, which numpy.vectorize's examples
        # are: an unknown result would know no dtype, and no check after it would be made)
        out = evaluate(site.func, *[int(e) if isinstance(e, np.integer) else e
                                    for e in examples], **kw)
    if out is UNKNOWN:
        out = _evaluate_other_representatives(site, examples, kw)
    return result_value(out)


def _evaluate_other_representatives(site: Site, examples: list, kw: dict):
    values = list(site.args) + [v for _, v in site.kwargs.values()]
    if not any(getattr(v, "batched", False) for v in values):
        return UNKNOWN     # exact values raise for real: never replaced
    movable = [i for i, v in enumerate(site.args)
               if not getattr(v, "exact", True) and isinstance(v.example, (float, np.floating))
               and np.ndim(v.example) == 0]
    if not movable:
        return UNKNOWN
    for other in _OTHER_REPRESENTATIVES:
        tried = [type(e)(other) if i in movable else e for i, e in enumerate(examples)]
        out = evaluate(site.func, *tried, **kw)
        if out is not UNKNOWN:
            return out
    return UNKNOWN


def result_value(out):
    from ..abstract import TupleValue
    if isinstance(out, tuple):
        return TupleValue(tuple(batched_like(o) for o in out))
    return batched_like(out)


class Registry:
    """The rules of one array namespace (its `vectorize.backends.base.Backend`, which also
    spells the operations the passes write themselves)."""

    def __init__(self, backend):
        self.backend = backend
        self.namespace = backend.name
        self.primitives = backend    # what the passes write (`Backend`'s spellings)
        self._calls: dict[int, tuple[object, Rule]] = {}
        self.operators: dict[str, Rule] = {}
        self.methods: dict[str, Rule] = {}
        self.attributes: dict[str, Rule] = {}
        # calls the analysis asks about by what they do rather than by their operands: random
        # draws (recognised, not looked up: a generator's bound methods are new objects on
        # every attribute read) and the functions and methods that create a fresh array
        self._draws: list[tuple[Callable[[object], bool], Rule]] = []
        # families recognised by what a callable is rather than which it is (any ufunc of
        # `scipy.special`, the methods of any `scipy.stats` distribution, a vmapped function:
        # `nested`), looked up after the functions registered one by one
        self._families: list[tuple[Callable[[object], bool], Rule]] = []
        self._creations: dict[int, tuple[object, Rule]] = {}
        self.creation_methods: dict[str, Rule] = {}
        self.all_rules: list[Rule] = []
        # operations on values the same for every example are left as written, except where
        # the namespace computes them in another dtype than NumPy: ``unbatched(site)`` gives
        # the site's operand nodes to write instead (None: as written; `backends.jax.dtypes`)
        self.unbatched: Callable[[Site], list | None] | None = None
        # ``x.at[index].set(v)`` (JAX's indexed updates and reads), where the namespace has
        # them: the rule of every such call (its ``func`` the method's name, ``parts`` the
        # index's elements as a subscript's are)
        self.indexed_update: Rule | None = None
        from .. import backends
        for register in backends.EVERY_NAMESPACE:     # rules that hold for every namespace
            register(self)

    # -- registration ----------------------------------------------------------------------
    def add_call(self, func, rule: Rule) -> Rule:
        self._calls[id(func)] = (func, rule)
        self._remember(rule)
        return rule

    def add_operator(self, key: str, rule: Rule) -> Rule:
        self.operators[key] = rule
        self._remember(rule)
        return rule

    def add_method(self, method: str, rule: Rule) -> Rule:
        self.methods[method] = rule
        self._remember(rule)
        return rule

    def add_attribute(self, attr: str, rule: Rule) -> Rule:
        self.attributes[attr] = rule
        self._remember(rule)
        return rule

    def add_draws(self, recognise: Callable[[object], bool], rule: Rule) -> Rule:
        """A family of random draws: ``recognise(fn)`` says whether a callable is one. Per
        example a draw gives one value; its rule's ``infer`` gives the per-example value and
        its ``rewrite`` draws one for every example (``site.batch`` of them)."""
        self._draws.append((recognise, rule))
        self._remember(rule)
        return rule

    def add_family(self, recognise: Callable[[object], bool], rule: Rule) -> Rule:
        """A family of callables that ``recognise(fn)`` tells (a library's ufuncs, bound
        methods made anew on every attribute read): `for_call` finds ``rule`` for each."""
        self._families.append((recognise, rule))
        self._remember(rule)
        return rule

    def add_creation(self, func, rule: Rule) -> Rule:
        """A function that creates a fresh array (``np.zeros``), which the function may
        write into; its rule's ``rewrite`` creates it with the batch axis in front
        (``site.batch``) where per-example data is written into it."""
        self._creations[id(func)] = (func, rule)
        self._remember(rule)
        return rule

    def add_creation_method(self, method: str, rule: Rule) -> Rule:
        """A method that creates a fresh array (``x.copy()``), as `add_creation`."""
        self.creation_methods[method] = rule
        self._remember(rule)
        return rule

    def replace_call(self, func, rule: Rule) -> None:
        """``func``'s rule replaced by ``rule`` (a backend's version of a shared rule); the
        rules listed (`all_rules`) are left as they are: `relist` swaps them."""
        self._calls[id(func)] = (func, rule)

    def add_unlisted(self, func, rule: Rule, *, creation: bool = False) -> None:
        """``func`` given ``rule`` (a call's, or with ``creation`` an array creation's)
        without listing it among the rules: a twin of a function whose rule is documented
        under that function's name (JAX's ``jnp.sin`` has ``np.sin``'s)."""
        (self._creations if creation else self._calls)[id(func)] = (func, rule)

    def registered(self, func) -> bool:
        """Whether ``func`` has a rule of its own (`add_call`), families aside."""
        entry = self._calls.get(id(func))
        return entry is not None and entry[0] is func

    def call_rules(self) -> list[tuple[object, Rule]]:
        """(function, rule) of every function registered one by one, in registration order."""
        return list(self._calls.values())

    def list_rule(self, rule: Rule) -> None:
        """``rule`` listed among the rules (documented, checked by the case table) where it
        is not yet: for rules a backend gives functions through `add_unlisted`."""
        self._remember(rule)

    def relist(self, swaps: dict[int, Rule]) -> None:
        """The listed rules (`all_rules`) with each rule whose id is in ``swaps`` replaced
        by its new version, in place (after `replace_call` and the tables' own edits)."""
        self.all_rules[:] = [swaps.get(id(r), r) for r in self.all_rules]

    def forget_unused(self) -> None:
        """The listed rules that no table holds any more (replaced by a family's) unlisted."""
        used = {id(r) for r in (*self.operators.values(), *self.methods.values(),
                                *self.attributes.values(), *self.creation_methods.values())}
        used |= {id(r) for _, r in (*self._calls.values(), *self._creations.values())}
        used |= {id(r) for _, r in (*self._draws, *self._families)}
        self.all_rules[:] = [r for r in self.all_rules if id(r) in used]

    def creates_arrays(self) -> bool:
        """Whether the namespace has functions or methods that create a fresh array the
        function may write per-example data into (`add_creation`)."""
        return bool(self._creations or self.creation_methods)

    def _remember(self, rule: Rule) -> None:
        # (identity, as `is`, but compared in C: a generator expression here cost a cold
        # first call some 10 ms over the few hundred rules; the backends edit `all_rules` in
        # place, so it is the only record)
        if id(rule) not in map(id, self.all_rules):
            self.all_rules.append(rule)

    # -- lookup ----------------------------------------------------------------------------
    def for_call(self, func) -> Rule | None:
        entry = self._calls.get(id(func))
        if entry is not None and entry[0] is func:
            return entry[1]
        for recognise, rule in self._families:
            if recognise(func):
                return rule
        return None

    def draw_for(self, func) -> Rule | None:
        """The rule of a random draw, where ``func`` is one."""
        for recognise, rule in self._draws:
            if recognise(func):
                return rule
        return None

    def creation_for(self, func) -> Rule | None:
        """The rule of a function that creates a fresh array, where ``func`` is one."""
        entry = self._creations.get(id(func))
        if entry is not None and entry[0] is func:
            return entry[1]
        return None

    def knows(self, func) -> bool:
        return self.for_call(func) is not None

    def rules_by_name(self) -> dict[str, Rule]:
        return {r.name: r for r in self.all_rules}
