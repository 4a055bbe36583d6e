"""Calls (`Calls`, a part of `Analysis`): of a function with a rule in the registry, a
method of a per-example value, a random draw (the registry's random family), the user's own
functions (analysed as helpers), and calls without a rule (run per example where fallbacks
are allowed)."""

from __future__ import annotations

import builtins
import math
import types
from collections import OrderedDict

import libcst as cst
import numpy as np

from .. import backends
from ..abstract import (
    MIXED_PARTS,
    UNKNOWN,
    UNPACKED_AT_ONCE,
    TupleValue,
    Value,
    all_exact,
    batched_like,
    exact,
    note_mixed_types,
    unbatched,
)
from ..body_constructs import generators
from ..body_constructs.classes import WHY_NOT, fields_function, is_record, record_of
from ..body_constructs.named_attributes import attribute_name, fixed_string
from ..errors import Unsupported
from ..introspect import python_function_of
from ..rules.lanes import ENGINE_NAMES
from ..rules.registry import Site, default_infer
from ..spec_facts import note as note_fact
from ..syntax.traversal import walk
from .float_semantics import evaluate as _evaluate
from .float_semantics import huge_int_power, made_once
from .float_semantics import numpy_math as _numpy_math
from .float_semantics import numpy_scalar_for as _numpy_scalar_for
from .purity import PURE_BUILTINS, in_package, pure_method
from .purity import is_number as _is_number
from .purity import pure_numpy as _pure_numpy
from .syntax import code_of as _code
from .syntax import names_in as _names_in


class Calls:
    """The `Analysis` methods that give the abstract value of a call."""

    def call(self, node: cst.Call, env):
        if self.registry.indexed_update is not None and indexed_update_of(node) is not None:
            return self._indexed_update(node, env)
        if type(node.func) is cst.Attribute and _zero_argument_super(node.func.value):
            return self._super_method(node, env)
        if _zero_argument_super(node):
            raise Unsupported("`super()` other than to call a method of the parent class of a "
                              "per-example record (`super().name(...)`)", node,
                              "call the parent class's function with `self`")
        if type(node.func) is cst.Attribute:
            base = self.expr(node.func.value, env)
            method = record_member(base, node.func.attr.value)
            if isinstance(method, (types.FunctionType, classmethod, staticmethod)):
                return self._record_method(node, base, method, env)
            if base.batched:
                return self.method_call(node, base, env)
            if isinstance(base.example, (np.ndarray, np.generic)) and \
                    node.func.attr.value in self.registry.methods and any(
                        getattr(self.expr(a.value, env), "batched", False)
                        for a in node.args):
                return self.method_call(node, base, env)   # shared.dot(x)
        func = self.expr(node.func, env)
        args, kwargs = [], {}
        unpacked = None     # `f(*t)` of a tuple of per-example values (a pytree argument)
        for arg in node.args:
            if arg.star == "*" and type(arg.value) is cst.Call:
                # (`f(*g(x))`: Python pulls every item of `g(x)` before calling `f`)
                at_once = UNPACKED_AT_ONCE.set((arg.value, None))
                try:
                    value = self.expr(arg.value, env)
                finally:
                    UNPACKED_AT_ONCE.reset(at_once)
            else:
                value = self.expr(arg.value, env)
            if arg.star == "*" and isinstance(value, TupleValue) and value.keys is None:
                args.extend(value.items)
                unpacked = arg
                continue
            if arg.star:
                if value.batched:
                    raise Unsupported("`*`/`**` unpacking of per-example values", arg,
                                      "pass the arguments one by one")
                if arg.star == "*" and value.known:
                    try:
                        args.extend(unbatched(v) for v in value.example)
                        continue
                    except TypeError:
                        pass
                if arg.star == "**" and value.known and type(value.example) is dict and all(
                        type(k) is str for k in value.example):
                    # `g(x, **options)` of a dict the same for every call (a helper's
                    # `**kwargs`): its items are keyword arguments, exact where it is
                    kwargs.update({k: unbatched(v, value.exact)
                                   for k, v in value.example.items()})
                    continue
                raise Unsupported("`*`/`**` unpacking in calls is not supported yet", arg,
                                  "pass the arguments one by one")
            if arg.keyword is not None:
                kwargs[arg.keyword.value] = value
            else:
                args.append(value)
        fn = python_function_of(func.example)     # numba's compiled function: its source
        if func.batched:
            raise Unsupported("calling a per-example value", node)
        if fn is getattr and func.known and len(args) == 2 and len(node.args) == 2 and \
                not kwargs and unpacked is None and getattr(args[0], "batched", False):
            self._named_attribute(node, args[0], args[1])
        if func.known and fn in _DUNDERS and len(args) == 1 and not kwargs and \
                self.helpers is not None:
            dunder = record_member(args[0], _DUNDERS[fn], dunders=True)
            if isinstance(dunder, types.FunctionType):
                # `float(t)` of a record whose class says how: its method, as a helper
                value = self.helpers(dunder, args, {}, node)
                self.helper_calls[node] = value
                return value
        if func.known:
            _note_facts(fn, args, kwargs)
        if func.known and fn in (builtins.round, math.trunc) and args and \
                not self.python_semantics:
            self._no_0d_array_rounded(node, fn, args[0])
        if fn is len and func.known and len(args) == 1 and not kwargs and isinstance(
                args[0], TupleValue) and args[0].kind in (None, tuple, list):
            # the length of a tuple of values tracked one by one (`*args`): the same for
            # every example, Python's `len` in the generated code too (`batch_rules`)
            self.tuple_lengths.add(node)
            return exact(len(args[0].items))
        if fn in (isinstance, hasattr) and func.known and len(args) == 2 and not kwargs:
            found = (self.isinstance_of if fn is isinstance else self.hasattr_of)(node, *args)
            if found is not None:
                if args[0].batched:
                    # the answer for one example, not for the arrays the generated code
                    # holds (`isinstance(x, float)` of an array is False): written as the
                    # literal (`batch_rules`)
                    self._no_effects_in_type_test(node)
                    self.type_tests[node] = found.example
                return found
        if self._exception_of_one_example and (
                isinstance(fn, type) and issubclass(fn, BaseException)
                or isinstance(getattr(fn, "__self__", None), str)       # "{}".format(x)
                or fn in (str, repr, format)):
            return unbatched(UNKNOWN)      # made from one example's values
        if fn is len and len(args) == 1 and getattr(args[0], "batched", False) and \
                isinstance(getattr(args[0], "example", None), np.str_):
            raise Unsupported("`len` of a string made per example", node,
                              "compute the length from the numbers it is made of")
        if func.known and _formats(fn, args, kwargs) and any(
                v.batched for v in [*args, *kwargs.values()]):
            return self.string_piece(node, [(a.value, self.values.get(a.value))
                                            for a in node.args])
        draw = self.registry.draw_for(fn) if func.known else None
        if draw is not None:
            if not any(v.batched for v in self.params.values()):
                return unbatched(UNKNOWN)
            self.random_calls[node] = draw
            return draw.infer(Site(args=args, nodes=[], func=fn, original=node,
                                   kwargs={k: (None, v) for k, v in kwargs.items()}))
        if not any(v.batched for v in [*args, *kwargs.values()]):
            if func.known and fn in (float, int, bool, complex) and not all(
                    a.known for a in args):
                return unbatched(fn(1))     # the type is known even if the value is not
            if isinstance(fn, types.FunctionType) and self.helpers is not None and not \
                    in_package(fn, "numpy", "math", "vectorize") and \
                    not backends.owns_function(fn) \
                    and not self.registry.knows(fn):
                # the user's own function on unbatched values: analysed (not run) to learn
                # what it returns; if it cannot be analysed it is simply called as written
                # (once: the same for every example), except where it writes into an array
                # argument on some lanes only
                self._no_change_of_a_shared_container_by(fn, node, env)
                self._no_write_into_an_argument_on_some_lanes(fn, node, args, kwargs)
                args, kwargs = self._arguments_written_by(fn, node, args, kwargs)
                try:
                    value = self.helpers(fn, args, kwargs, node)
                except Exception:
                    value = None
                if node in self.raising_helper_calls and (
                        self.every_lane_runs() or self.raised_before_here(node)):
                    # every path of it raises (on these values the same for every example),
                    # in code every example runs: every example raises there, and the code
                    # after it is dead, as after a builtin's
                    return self.raised_for_every_example(node)
                if (value is None or type(value) is Value and not value.known) and \
                        all_exact(*args, *kwargs.values()):
                    # called on constants, it is run once to learn what it returns, as
                    # tracing runs it (`_constructs`); a representative, never baked in
                    out = _evaluate(fn, *[a.example for a in args],
                                    **{k: v.example for k, v in kwargs.items()})
                    if out is not UNKNOWN and not isinstance(out, tuple):
                        if value is None:
                            return unbatched(out)     # (called as written)
                        value = Value(False, out)
                if value is None:
                    return unbatched(UNKNOWN)
                self.helper_calls[node] = value
                return value
            rule = self.registry.for_call(fn) if func.known else None
            if rule is None and func.known:
                # a function creating a fresh array that computes on NumPy examples through
                # its twin (`jnp.zeros(3)`: `np.zeros`), the same for every example
                created = self.registry.creation_for(fn)
                rule = created if created is not None and created.shadow is not None \
                    else None
            # the operation as it computes on NumPy examples (a torch function's shadow)
            evaluated = rule.shadow if rule is not None and rule.shadow is not None else fn
            if rule is not None and rule.family == "math":
                # hoisted out of a per-example condition, this call runs for every lane, also
                # where the scalar code would skip it: math functions follow NumPy (nan
                # instead of a domain error) on unbatched values too
                self.math_in_branches.add(node)
            if fn is pow and len(args) == 2 and not kwargs and all_exact(*args) and \
                    huge_int_power(args[0].example, args[1].example):
                raise Unsupported(f"`{_code(node)}` is a Python int of more than 2**22 bits "
                                  "(the same for every example): Python would take too long "
                                  "to compute it, and the batch computes it on every lane",
                                  node, "compute it in floats, or keep the exponent small")
            if (fn is divmod or fn is pow) and len(args) == 2 and not kwargs and (
                    self.speculative or self._batched_depth):
                # like `a % b` / `a ** b` on Python numbers in code every lane runs
                scalar = _numpy_scalar_for(cst.Modulo() if fn is divmod else cst.Power(),
                                           *args)
                if scalar is not None:
                    self.numpy_scalar_ops[node] = scalar
                    # (where Python raises for these numbers, NumPy's value is no exact one)
                    raises = _evaluate(fn, args[0].example, args[1].example) is UNKNOWN
                    args = [args[0], unbatched(scalar(args[1].example),
                                               args[1].exact and not raises)]
            if rule is not None and rule.shadow is not None and args and getattr(
                    self, "_loop_stack", None):
                self._takes_numbers(evaluated, args, kwargs, node)
            if func.known and (fn in PURE_BUILTINS or rule is not None
                               or self.registry.knows(fn) or isinstance(fn, np.ufunc)
                               or _pure_numpy(fn) or pure_method(fn)):
                out = _evaluate(evaluated, *[a.example for a in args],
                                **{k: v.example for k, v in kwargs.items()})
                # a method of a value not known exactly (`w.min()` of a shared array, whose
                # example is made up) is not known exactly either
                known = all_exact(*args, *kwargs.values()) and (
                    func.exact or type(node.func) is not cst.Attribute)
                if out is UNKNOWN and rule is not None and rule.family == "math" and known \
                        and not (self.speculative or self._batched_depth):
                    # Python's math raises on these constants in code every example runs
                    # (`math.ceil(np.sqrt(-2))`): every example raises, so the call stays
                    # as written (NumPy's function would give nan, and no exception)
                    self.math_in_branches.discard(node)
                if out is UNKNOWN and fn in PURE_BUILTINS and evaluated is fn and \
                        (self.every_lane_runs() or self.raised_before_here(node)) and \
                        _raises_for_all(fn, args, kwargs, known):
                    # Python raises on these values (`max(1j, 2)`) in code every example
                    # runs: every example raises it, so the call stays as written and the
                    # code after it is dead (`Analysis.raised_for_every_example`)
                    return self.raised_for_every_example(node)
                if out is UNKNOWN and rule is not None and rule.family == "math" \
                        and not kwargs:
                    # Python's math raised (`math.fmod(0.0, 0.0)`); the generated code calls
                    # NumPy's function (`math_in_branches`), whose value it then has
                    out, known = _numpy_math(fn, [a.example for a in args]), False
                if isinstance(out, tuple) and fn is not tuple:   # divmod, np.modf, frexp...
                    return TupleValue(tuple(unbatched(item, known) for item in out))
                return unbatched(out, known)
            if func.known and _constructs(fn) and all_exact(*args, *kwargs.values()):
                # an object made from constants (`Ellipsoid.from_name("wgs84")`,
                # `Ellipsoid(6378137.0, 6356752.3)`): made once here, as tracing makes it
                # (`jax.eval_shape`), to learn what its attributes are; a representative,
                # never baked into the code, which makes it as written
                out = made_once(self.constructed, fn, *[a.example for a in args],
                                **{k: v.example for k, v in kwargs.items()})
                if out is not UNKNOWN and not isinstance(out, tuple):
                    return unbatched(out)
            return unbatched(UNKNOWN)
        if not func.known:
            raise Unsupported(f"cannot tell what `{_code(node.func)}` is, so cannot vectorize "
                              "a call of it on per-example values", node.func)
        if fn is sorted and node.args and type(node.args[0].value) is cst.Name and \
                not node.args[0].star and node.args[0].keyword is None and args:
            self._sorted_items(node, args[0])
        rule = self.registry.for_call(fn)
        if rule is not None and fn is ENGINE_NAMES.get("__lane_kinds__") and args:
            return args[0]      # (per example the value itself: `passes.lane_kinds`)
        if rule is not None and unpacked is not None:
            self._spread_items(node, unpacked, fn)
        if rule is not None:
            args, kwargs = self._array_operands(node, rule, args, kwargs)
            if not kwargs and fn is not ENGINE_NAMES.get("__any_lane__") and \
                    fn is not ENGINE_NAMES.get("__raise_lane__") and not rule.takes_trees:
                # (a rule that takes pytrees runs the call on the examples in its own
                # `infer`, a dict argument as a dict: `.example` of one is a tuple)
                self._must_not_raise(rule.shadow or fn, args, node,
                                     lambda: f"`{_code(node.func)}`")
            site = Site(args=args, nodes=[], kwargs={k: (None, v) for k, v in kwargs.items()},
                        func=fn, original=node)
            infer = rule.infer or default_infer
            if rule.ragged:
                self.ragged.add(node)
            elif rule.masked is not None and node.args:
                self.ragged_operands(node, node.args[0].value)
                if fn in _EMPTY_FLOAT_REDUCTIONS and any(
                        f in self.int_sequence_slices
                        for f in self.masked_reductions.get(node, ())):
                    # per example NumPy makes an empty slice of ints a float64 array (its
                    # sum 0.0, its product 1.0), the others int64 ones: the same values,
                    # and numpy.vectorize's first example decides the output type
                    if not getattr(self, "python_semantics", None):
                        raise Unsupported(
                            f"`{_code(node.func)}` of a slice of a list or tuple of ints "
                            "with a per-example bound (`vmap`): per example NumPy makes an "
                            "empty slice a float64 array (its sum 0.0, its product 1.0) and "
                            "the others int64 ones, so the loop's results are float64 where "
                            "an example's slice is empty and int64 where none is", node,
                            "use Python's sum(...) (0 for an empty slice), or make the "
                            "table an int array (np.array([...]))")
                    note_fact("joins")
                    note_mixed_types()
                if fn is len and node in self.masked_reductions:
                    return batched_like(np.int64(0))    # each example's own count
                if fn is builtins.sum and node in self.masked_reductions and len(
                        node.args) == 1:
                    # an example with no element sums to the int 0, the others to floats:
                    # numpy.vectorize's first example decides the output type
                    note_fact("joins")
                    note_mixed_types()
            value = self._python_number_result(fn, args, infer(site))
            if not kwargs:
                # (``np.floor(r)`` of an r that is an int8 on some lanes: int8 there too)
                value = self._lanes_of(rule.shadow or fn, args, value)
            return value
        if isinstance(fn, type) and issubclass(fn, np.generic):
            return batched_like(_evaluate(fn, args[0].example) if args else UNKNOWN)
        if isinstance(fn, type) and issubclass(fn, tuple) and hasattr(fn, "_fields"):
            return _namedtuple_of(fn, args, kwargs, node)   # a pytree of per-example values
        if plain_dataclass(fn):
            return _record_of(fn, args, kwargs, node)       # its fields, looked up by name
        if is_record(fn) and not kwargs:
            # (the instance `fields_function`'s code returns: its fields as it has them)
            return TupleValue(tuple(args), fn.__vectorize_fields__, fn)
        made = fields_function(fn) if isinstance(fn, type) and self.helpers is not None \
            and unpacked is None else None
        if made is not None:
            # `Temp(x, "c")` of a small class of the user's: its `__init__` as a function
            # returning the fields (`body_constructs.classes`)
            value = self.helpers(made[0], args, kwargs, node)
            self.helper_calls[node] = value
            return value

        if fn is dict and not args:
            return TupleValue(tuple(kwargs.values()), tuple(kwargs), dict)
        if fn in (dict, OrderedDict) and len(args) == 1 and not kwargs:
            pairs = _key_value_pairs(args[0])      # dict([("a", x), ...]): a pytree
            if pairs is not None:
                return TupleValue(tuple(v for _, v in pairs), tuple(k for k, _ in pairs), fn)
        if fn is OrderedDict and not args:
            return TupleValue(tuple(kwargs.values()), tuple(kwargs), fn)
        if unpacked is not None and not (isinstance(fn, types.FunctionType)
                                         and self.helpers is not None):
            raise Unsupported("`*` unpacking of a tuple of per-example values into a call "
                              "with a batching rule", unpacked, "pass the items one by one")
        if isinstance(fn, types.FunctionType) and self.helpers is not None \
                and not in_package(fn, "numpy", "math") \
                and not backends.owns_function(fn):       # a library's code is not the user's
            if generators.is_generator(fn):
                fn = self._generator_items(fn, node, args)
            self._no_update_of_an_argument(fn, node, env)
            self._no_change_of_a_shared_container_by(fn, node, env)
            self._no_write_into_an_argument_on_some_lanes(fn, node, args, kwargs)
            args, kwargs = self._arguments_written_by(fn, node, args, kwargs)
            value = self.helpers(fn, args, kwargs, node)
            self.helper_calls[node] = value
            return value
        receiver = self._constant_receiver(node, fn)
        if receiver is not None:
            # `self.conv.to_si(p)`: a method of an object the same for every example (the
            # bound method's own object, read as the code reads it), its code specialized
            # as a helper, called as `to_si(self.conv, p)` (as a record's method)
            args = [receiver, *args]
            self._no_write_into_an_argument_on_some_lanes(fn.__func__, node, args, kwargs)
            value = self.helpers(fn.__func__, args, kwargs, node)
            self.helper_calls[node] = value
            self.__dict__.setdefault("record_methods", set()).add(node)
            return value
        name = _code(node.func)     # as the user wrote it
        if self.allow_fallback and all(not isinstance(v, TupleValue) and v.rank == 0
                                       for v in [*args, *kwargs.values()]):
            out = self._per_example_number(fn, args, kwargs, node)
            self.fallback_calls[node] = f"`{name}` has no batching rule"
            # the array of the per-example results has the dtype NumPy gives a list of
            # such numbers (Python ints are int64, floats float64)
            return Value(True, np.asarray([out])[0])
        if fn is getattr:
            raise Unsupported("`getattr` of a per-example value by a name that is not a string "
                              "the same on every run of this line (a literal, or a parameter "
                              "or free name the function never rebinds)", node,
                              "write the attribute itself (`obj.name`), or choose between "
                              "attributes with `if`")
        if fn in WHY_NOT:
            number = next((t.__name__ for t in (bool, int, float, complex)
                           if issubclass(fn, t)), None)
            raise Unsupported(f"`{name}` is a class whose instances the engine cannot make "
                              f"from per-example values: {WHY_NOT[fn]}", node,
                              (f"compute with the number itself (`{number}(...)`) and make "
                               f"the `{fn.__name__}` outside the function" if number else
                               "make it a @dataclass or NamedTuple of its values") +
                              ", or pass fallback='warn' to run this call per example")
        raise Unsupported(f"`{name}` has no batching rule, so it cannot be called on "
                          "per-example values", node,
                          "use a NumPy equivalent, register a rule with "
                          "vectorize.register_rule, or pass fallback='warn' to run this call "
                          "per example")

    def _named_attribute(self, node: cst.Call, base, name) -> None:
        """``getattr(obj, name)`` of a per-example record (or a value whose attribute has a
        rule) and a string ``name`` the same on every run of the line: `NamedAttribute`,
        which `transform` answers with ``obj.<name>``, the attribute Python reads. Anything
        else goes on as a call without a rule."""
        if not (isinstance(name, Value) and name.exact and not name.batched and
                attribute_name(name.example) and
                fixed_string(self.tree, node.args[1].value, self.params)):
            return
        if not (isinstance(base, TupleValue) and base.keys is not None or
                name.example in self.registry.attributes):
            return
        arg = node.args[1].value
        raise NamedAttribute(f"`getattr` of a per-example value by the name "
                             f"{name.example!r}", node,
                             f"write the attribute itself (`.{name.example}`)",
                             name=name.example, reads=frozenset(
                                 [arg.value] if type(arg) is cst.Name and
                                 arg.value not in self.params else []))

    def _spread_items(self, node: cst.Call, unpacked: cst.Arg, fn) -> None:
        """``f(*t)`` of a tuple of per-example values and a function with a batching rule:
        `transform` retries with ``t``'s items passed one by one (`SpreadItems`) where
        ``t`` is a name (read once per item: the same tuple); refused, located, otherwise."""
        seq = self.values.get(unpacked.value)
        if type(unpacked.value) is cst.Name and isinstance(seq, TupleValue) and \
                0 < len(seq.items) <= 64 and sum(1 for a in node.args if a.star) == 1:
            raise SpreadItems(f"`*` unpacking of {len(seq.items)} per-example values into "
                              f"`{_code(node.func)}`", unpacked, "pass the items one by one",
                              length=len(seq.items))
        raise Unsupported(f"`*` unpacking of a tuple of per-example values into "
                          f"`{_code(node.func)}`, which has a batching rule: only a tuple "
                          "bound to a name is passed item by item", unpacked,
                          "bind the tuple to a name first (`t = ...; f(*t)`), or pass the "
                          "items one by one")

    def _sorted_items(self, node: cst.Call, seq) -> None:
        """``sorted(seq)`` of a name bound to a per-example row or a tuple of per-example
        values of a few items: `transform` retries with it written out (`SortedItems`)."""
        from ..body_constructs.keyed import SORTED_ITEMS, SORTS
        if isinstance(seq, TupleValue) and seq.keys is None and seq.kind in (
                None, tuple, list):
            length = len(seq.items)
        elif isinstance(seq, Value) and seq.batched and isinstance(
                seq.example, np.ndarray) and seq.example.ndim == 1:
            length = seq.example.shape[0]
        else:
            return
        if SORTS and 0 < length <= SORTED_ITEMS:
            raise SortedItems(f"`sorted` of {length} per-example values", node,
                              "sort a list display of the items", length=length)

    def _generator_items(self, fn, node: cst.Call, args):
        """The function returning the items of the generator function ``fn`` as a tuple
        (`body_constructs.generators`), where the call is unpacked at once into as many
        names as it yields, or into a call's arguments (``f(*g(x))``); else refused."""
        name = _code(node.func)
        made = generators.items_function(fn, generators.star_items(fn, len(args)))
        if type(made) is str:
            raise Unsupported(f"`{name}` is a generator function the engine cannot read as "
                              f"a tuple of its items: {made}", node,
                              "return the values as a tuple")
        at_once = UNPACKED_AT_ONCE.get()
        if at_once is None or at_once[0] is not node:
            raise Unsupported(f"the generator `{name}(...)` on per-example values is used "
                              "otherwise than unpacked into names at once: a batch has "
                              "no array of generators", node,
                              "unpack its items into names, or return them as a tuple")
        if at_once[1] is not None and at_once[1] != made.__vectorize_yields__:
            raise Unsupported(f"the generator `{name}(...)` yields "
                              f"{made.__vectorize_yields__} items here and is unpacked into "
                              f"{at_once[1]} names: Python stops pulling items at the first "
                              "that does not fit", node, "unpack as many names as it yields")
        return made

    def _constant_receiver(self, node: cst.Call, fn):
        """The value of ``obj`` in ``obj.method(...)``, where it is the same for every example
        (not a module, a class or a NumPy value), ``method`` a plain function of the user's
        (or a library's Python code) bound to ``obj`` itself and nothing is unpacked into the
        call; None otherwise."""
        if not (type(node.func) is cst.Attribute and isinstance(fn, types.MethodType)
                and self.helpers is not None and isinstance(fn.__func__, types.FunctionType)
                and all(not arg.star for arg in node.args)):
            return None
        base = self.values.get(node.func.value)
        owner = fn.__self__
        if not (isinstance(base, Value) and not base.batched and base.known
                and base.example is owner) or isinstance(owner, (
                    type, types.ModuleType, np.ndarray, np.generic, bool, int, float, complex, str,
                    bytes, tuple, list, dict, set, frozenset)):
            return None
        func = fn.__func__
        if in_package(func, "numpy", "math", "vectorize") or backends.owns_function(func) \
                or self.registry.knows(fn) or self.registry.knows(func):
            return None
        return base

    def _indexed_update(self, node: cst.Call, env):
        """``x.at[index].op(...)`` (the registry's `indexed_update` rule): its operands are
        ``x``, each element of ``index`` that is no slice (`Site.parts`: each element's
        value, None for a slice) and the arguments of ``op``."""
        sub = node.func.value
        base = self.expr(sub.value.value, env)
        parts = []
        for element in sub.slice:
            if isinstance(element.slice, cst.Index):
                parts.append(self.expr(element.slice.value, env))
                continue
            for bound in (element.slice.lower, element.slice.upper, element.slice.step):
                if bound is not None and self.expr(bound, env).batched:
                    raise Unsupported("a slice bound that differs per example in `.at[]`",
                                      bound, "use lax.dynamic_slice / "
                                             "lax.dynamic_update_slice")
            parts.append(None)
        args, kwargs = [], {}
        for arg in node.args:
            if arg.star:
                raise Unsupported("`*`/`**` unpacking in a call of `.at[]`", arg,
                                  "pass the arguments one by one")
            value = self.expr(arg.value, env)
            if arg.keyword is not None:
                kwargs[arg.keyword.value] = value
            else:
                args.append(value)
        rule = self.registry.indexed_update
        for part in (sub.value, sub, node.func):     # no attribute reads or subscripts
            self.values[part] = Value(False, UNKNOWN)
        site = Site(args=[base, *[p for p in parts if p is not None], *args],
                    nodes=[], kwargs={k: (None, v) for k, v in kwargs.items()},
                    func=node.func.attr.value, original=node, parts=parts)
        value = rule.infer(site)
        if any(v.batched for v in [*site.args, *kwargs.values()]):
            self.indexed_updates[node] = rule
            return value
        return unbatched(value.example) if isinstance(value, Value) else value

    def isinstance_of(self, node, value, classes):
        """``isinstance(value, classes)``, known for the specialization (its arguments' types
        are part of its key): None where the engine cannot tell. A per-example number is
        what the front end hands each example: a Python number for `vectorize` (as
        numpy.vectorize gives it; `abstract.PythonSemantics`), a NumPy scalar for `vmap`.
        A number the function computes may be either under `vectorize` (``x * 2`` is a Python
        number, ``np.sin(x)`` a NumPy one): where the two answers differ, refused. A tuple,
        list or dict tracked item by item (`TupleValue`) is an instance of its container's
        class, the same for every example."""
        if not (classes.known and classes.exact):
            return None
        try:
            if isinstance(value, TupleValue):
                kind = _container_class(value)
                return None if kind is None else unbatched(issubclass(kind, classes.example),
                                                           True)
            return self._type_test(node, value, lambda v: isinstance(v, classes.example),
                                   "isinstance")
        except TypeError:
            return None         # isinstance's own error: the call runs and raises it

    def hasattr_of(self, node, value, name):
        """``hasattr(value, name)``, known for the specialization as `isinstance_of` is: of a
        per-example number (a Python number for `vectorize`, a NumPy scalar for `vmap`), of
        a tuple, list or dict tracked item by item (its class's attributes: their instances
        have no others), of a record (its fields and its class's attributes; None where
        neither has it: an instance may have set one)."""
        if not (name.known and name.exact and type(name.example) is str):
            return None
        attr = name.example
        if isinstance(value, TupleValue):
            kind = _container_class(value)
            if kind is None:
                return None
            found = hasattr(kind, attr) or value.keys is not None and attr in value.keys
            if not found and kind not in (tuple, list, dict):
                return None
            return unbatched(found, True)
        return self._type_test(node, value, lambda v: hasattr(v, attr), "hasattr")

    def _type_test(self, node, value, test, what):
        """``test(example)`` of a value that is not a tracked container: None where unknown;
        the Python number's answer under `vectorize` where they differ (see
        `isinstance_of`)."""
        if not value.known:
            return None
        example = value.example
        answer = test(example)
        python_values = getattr(self.python_semantics, "numbers", ())
        if python_values and isinstance(example, np.generic) and value.rank == 0:
            python = test(example.item())
            if any(value is v for v in python_values):
                if python != answer:
                    # numpy.vectorize's first call, on NumPy scalars, takes the other
                    # branch (`Generated.first_call_differs`)
                    self.first_call_differs = True
                answer = python
            elif python != answer and not any(value is p for p in self.params.values()):
                raise Unsupported(
                    f"`{what}` of a number the function computed: per example it is a "
                    "Python number or a NumPy scalar depending on how it was computed, "
                    "and the two answers differ here", node,
                    "test a parameter, or its dtype kind (`np.asarray(x).dtype.kind`)")
        return unbatched(answer, True)

    def _no_effects_in_type_test(self, node):
        """The type test of a per-example value is written as its answer (`type_tests`):
        its arguments must be names, attributes, constants or displays of them (nothing
        whose evaluation could raise or act, which the literal would drop)."""
        def simple(e):
            if type(e) in (cst.Name, cst.SimpleString, cst.Integer, cst.Float):
                return True
            if type(e) is cst.Attribute:
                return simple(e.value)
            if type(e) in (cst.Tuple, cst.List):
                return all(type(el) is cst.Element and simple(el.value) for el in e.elements)
            return False
        if not all(simple(a.value) for a in node.args):
            raise Unsupported(f"`{_code(node.func)}` of a per-example value computed in the "
                              "call itself", node,
                              "compute the value first, into a variable, and test the variable")

    def _super_method(self, node: cst.Call, env):
        """``super().name(...)`` in a method of a per-example record's class (``self`` its
        first parameter, not rebound): the function the next class after the method's own
        (``__class__``) in the record's MRO defines as ``name``, called with ``self`` first
        (`_record_method`), as Python resolves it."""
        name = node.func.attr.value
        found, klass, scope = self.source.lookup("__class__")
        first = next(iter(self.params), None)
        base = env.values.get(first) if first is not None else None
        if not found or scope != "closure" or not isinstance(klass, type) or \
                base is None or base is not self.params[first] or not (
                    isinstance(base, TupleValue) and base.keys is not None and
                    base.batched and record_class(base.kind)):
            raise Unsupported(f"`super().{name}(...)` other than in a method of a per-example "
                              "record's class, its `self` not rebound", node,
                              "call the parent class's function with `self`")
        mro = base.kind.__mro__
        member = None
        if klass in mro:
            for k in mro[mro.index(klass) + 1:]:
                if name in k.__dict__:
                    member = k.__dict__[name]
                    break
        if not isinstance(member, types.FunctionType) or \
                member.__code__.co_filename.startswith("<"):
            raise Unsupported(f"`super().{name}(...)`: the parent class's `{name}` is not a "
                              "plain method of the user's", node,
                              "call the parent class's function with `self`")
        value = self._record_method(node, base, member, env)
        self.__dict__.setdefault("record_super", {})[node] = first
        return value

    def _record_method(self, node: cst.Call, base, method, env):
        """``p.norm(k)`` of a namedtuple or dataclass of per-example values (`record_member`):
        the method's code specialized as a helper, ``self`` the record (its fields looked
        up by name), called as ``norm(p, k)`` (`batch_rules`)."""
        kind = "record_methods"
        if isinstance(method, classmethod):
            # `self.convert(...)`: the class's, `cls` the user's class (its record class at
            # run time, `type(self)`: a subclass with the same class attributes)
            args, kwargs, kind = [exact(record_of(base.kind))], {}, "record_classmethods"
            method = method.__func__
        elif isinstance(method, staticmethod):
            args, kwargs, kind = [], {}, "record_staticmethods"
            method = method.__func__
        else:
            args, kwargs = [base], {}
        for arg in node.args:
            if arg.star:
                raise Unsupported("`*`/`**` unpacking in a call of a method of a record",
                                  arg, "pass the arguments one by one")
            value = self.expr(arg.value, env)
            if arg.keyword is not None:
                kwargs[arg.keyword.value] = value
            else:
                args.append(value)
        if self.helpers is None:
            raise Unsupported(f"the method `.{node.func.attr.value}()` of a per-example "
                              "record", node)
        self._no_write_into_an_argument_on_some_lanes(method, node, args, kwargs)
        value = self.helpers(method, args, kwargs, node)
        self.helper_calls[node] = value
        self.__dict__.setdefault(kind, set()).add(node)
        return value

    def record_property(self, node: cst.Attribute, base, getter):
        """``p.s`` of a namedtuple or dataclass of per-example values where ``s`` is a
        property of its class: its getter specialized as a helper, called as ``s(p)``."""
        if self.helpers is None:
            raise Unsupported(f"the property `.{node.attr.value}` of a per-example record",
                              node)
        value = self.helpers(getter, [base], {}, node)
        self.__dict__.setdefault("record_properties", {})[node] = value
        return value

    def method_call(self, node: cst.Call, base, env):
        """``x.sum(axis=0)`` on a batched ``x``: a method rule from the registry."""
        name = node.func.attr.value
        if isinstance(base, Value) and np.asarray(base.example).dtype.kind == "U" and \
                name in _STRING_METHODS:
            return self._string_method(node, base, name, env)
        if name == "get" and isinstance(base, TupleValue) and base.kind is not None \
                and issubclass(base.kind, dict):
            return self._dict_get(node, base, env)
        rule = self.registry.methods.get(name)
        if rule is not None and name.endswith("_") and not name.endswith("__"):
            self._no_in_place_method_on_a_shared_object(node)
        if base.known and not hasattr(base.example, name) and (rule is None
                                                                or rule.infer is None):
            raise Unsupported(f"per example this value ({base.describe()}) has no method "
                              f"`.{name}()`", node, "call the NumPy function instead")
        if rule is None or isinstance(base, TupleValue):
            raise Unsupported(f"the method `.{name}()` of a per-example value has no batching "
                              "rule", node, "use the NumPy function instead, or register a "
                                            "rule with vectorize.register_rule")
        args, kwargs = [base], {}
        for arg in node.args:
            value = self.expr(arg.value, env)
            if arg.star:
                raise Unsupported("`*`/`**` unpacking in a method call", arg,
                                  "pass the arguments one by one")
            if arg.keyword is not None:
                kwargs[arg.keyword.value] = value
            else:
                args.append(value)
        args, kwargs = self._array_operands(node, rule, args, kwargs, receiver=True)
        if isinstance(base, Value) and base in MIXED_PARTS and not kwargs and all(
                isinstance(a, Value) and a.known for a in args):
            # a value of different types on different lanes (`u.sum()` of a float32 row on
            # some, a float64 one on others): as for operators and calls
            def method(receiver, *rest):
                return getattr(receiver, name)(*rest)
            out = _evaluate(method, *[a.example for a in args])
            if out is not UNKNOWN:
                self._lane_types(method, args, out, node, lambda: f"`.{name}()`")
        if rule.masked is not None:
            self.ragged_operands(node, node.func.value, method=True)
        self.method_calls[node] = rule
        self.values[node.func] = Value(False, UNKNOWN)   # not an attribute read
        site = Site(args=args, nodes=[], kwargs={k: (None, v) for k, v in kwargs.items()},
                    func=name, original=node)
        if rule.infer is not None:
            return rule.infer(site)
        method = getattr(base.example, name, None) if base.known else None
        if method is None:
            return Value(True, UNKNOWN)
        value = batched_like(_evaluate(method, *[a.example for a in args[1:]],
                                      **{k: v.example for k, v in kwargs.items()}))
        if name == "item" and len(args) == 1 and not kwargs:
            # a NumPy scalar's Python number, weak in what it meets (NEP 50: ``x **
            # x.item()`` of a uint64 ``x`` is a uint64), as `analysis.python_numbers` tells
            # the rules
            value = self._weak_python_number(value)
        return value

    def _string_method(self, node: cst.Call, base, name: str, env):
        """``s.upper()`` of a per-example string (``zone_letter.upper() >= "N"``): Python's
        own method, lane by lane, as a string piece (`rules/strings.py`), with arguments the
        same for every example."""
        args = []
        for arg in node.args:
            value = self.expr(arg.value, env)
            if arg.star or arg.keyword is not None or not getattr(value, "exact", False):
                raise Unsupported(f"`.{name}()` of a per-example string with arguments that "
                                  "are not constants", node, "pass constants")
            args.append(value.example)
        self.values[node.func] = Value(False, UNKNOWN)   # not an attribute read
        example = _evaluate(getattr(str(base.example), name), *args)
        if not isinstance(example, str):
            raise Unsupported(f"`.{name}()` of a per-example string with these arguments",
                              node)
        return self.string_piece(node, [(node.func.value, base)], example)

    @staticmethod
    def _takes_numbers(evaluated, args, kwargs, node) -> None:
        """A library function that takes no examples (a rule with a ``shadow``: a torch
        function) called in a loop on Python numbers only (`torch.sign(r)` of `r = 1`
        before the loop): where it raises TypeError for them, so does every example that
        gets there; refused here rather than computed on the tensor such a value becomes as
        the loop's carry (elsewhere the call stays as written and raises as per example)."""
        values = list(args) + list(kwargs.values())
        if not all(isinstance(v, Value) and type(v.example) in (bool, int, float, complex)
                   for v in values):
            return
        try:
            evaluated(*[a.example for a in args], **{k: v.example for k, v in kwargs.items()})
        except TypeError as exc:
            kinds = ", ".join(f"a Python {type(v.example).__name__}" for v in values)
            raise Unsupported(f"`{_code(node.func)}` raises TypeError for {kinds} in the "
                              f"per-example code ({str(exc).strip().splitlines()[0]})", node,
                              "pass it an array of the library (a tensor), not a Python "
                              "number", kind="raises") from None
        except Exception:   # noqa: BLE001 -- decided where it runs
            return

    def _no_0d_array_rounded(self, node: cst.Call, fn, value) -> None:
        """``round(r)`` / ``math.trunc(r)`` of a per-example value that may be a 0-d array
        (``r = np.where(c, x, y)`` of scalars gives one per example, not a NumPy scalar):
        Python raises TypeError there (an ndarray has no ``__round__`` / ``__trunc__``),
        where the batch would round. Refused, located: which examples raise is the loop's."""
        if not (isinstance(value, Value) and value.batched and value.rank == 0) or \
                not node.args or node.args[0].star:
            return
        arg = node.args[0].value
        if self._aliases is None:
            self._init_aliases()
        if not (self._may_give_0d_array(arg) or type(arg) is cst.Name and
                self._may_hold_0d_array(arg.value, node)):
            return
        name = getattr(fn, "__name__", "round")
        raise Unsupported(f"`{_code(node.func)}` of a value that may be a 0-d array per "
                          f"example (`np.where` of numbers gives one, not a NumPy scalar): "
                          f"Python raises TypeError there (an ndarray has no __{name}__)",
                          node, "take a NumPy scalar first, e.g. round(float(...)) or "
                                "round(np.where(...)[()]), or use np.round(...)", kind="raises")

    def _python_number_result(self, fn, args, value):
        """`vmap` on NumPy (JAX): ``math.*``, ``float()``, ``int()``, ``round(x)`` give a
        Python number per example, weak in promotion (NEP 50: ``np.float32(x) *
        math.sqrt(y)`` is float32), which its example keeps, so that what it meets is
        inferred as the loop computes it (the rules convert the batch's float64 or int64
        array where it meets a narrower float: `rules.operators.narrow_weak_operands`)."""
        python = fn in (builtins.float, builtins.int) or (
            fn is builtins.round and len(args) == 1) or (
            getattr(fn, "__module__", None) == "math" and getattr(
                math, getattr(fn, "__name__", ""), None) is fn)
        return self._weak_python_number(value) if python else value

    def _weak_python_number(self, value):
        """``value``, a batched value that is a Python number per example, with that Python
        number as its example where Python numbers are weak (`_python_number_result`)."""
        if self.python_semantics or not self.registry.primitives.weak_python_numbers or \
                not isinstance(value, Value) or not value.batched or not value.known:
            return value
        if isinstance(value.example, (np.number, np.bool_)):
            return Value(True, value.example.item())
        return value

    def _dict_get(self, node: cst.Call, base, env):
        """``d.get(k)`` / ``d.get(k, default)`` of a dict of per-example values (a helper's
        result, a pytree argument) at a constant key: the item, or the default where the key
        is not one of the dict's (the call runs as it is, on the dict of arrays)."""
        args = [self.expr(a.value, env) for a in node.args]
        if not 1 <= len(args) <= 2 or any(a.keyword is not None or a.star for a in node.args):
            raise Unsupported("`.get()` of a dict takes a key and a default", node,
                              "write d.get(key, default)")
        key = args[0]
        if isinstance(key, TupleValue) or key.batched or not key.exact:
            raise Unsupported("looking up a dict of per-example values with a key that is "
                              "not a constant", node, "use a constant key")
        self.values[node.func] = Value(False, UNKNOWN)   # not an attribute read
        try:
            return base.item_for(key.example)
        except (KeyError, TypeError):
            return args[1] if len(args) == 2 else unbatched(None, True)

    def _array_operands(self, node: cst.Call, rule, args, kwargs, receiver=False):
        """The operands of a rule's call with every list or tuple display of per-example
        values (``np.mean([a, b, c])``, ``sum((x, y))``, or a name bound to one) taken as
        what it is per example: one array, ``np.asarray([a, b, c])``. A rule that takes
        pieces (``np.stack([a, b])``) keeps its first operand a list; displays nested in it
        are arrays (``np.array([[a, b], [c, d]])``)."""
        if "stacked_display" not in self.registry.operators or rule.takes_trees:
            return args, kwargs     # a backend (or a rule) that takes such lists as they are
        positional = [a.value for a in node.args if a.keyword is None and not a.star]
        if receiver:
            positional = [node.func.value] + positional
        if len(positional) != len(args):
            return args, kwargs
        by_name = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        out = []
        for k, (arg_node, value) in enumerate(zip(positional, args)):
            if k == 0 and rule.takes_pieces:
                value = self._pieces_operand(arg_node, value)
            elif not (receiver and k == 0):
                value = self.array_operand(arg_node, value)
            out.append(value)
        return out, {name: self.array_operand(by_name[name], value) if name in by_name
                     else value for name, value in kwargs.items()}

    def ragged_operands(self, reduction: cst.Call, operand, method: bool = False) -> None:
        """A reduction of an expression built lane by lane from ``np.arange`` calls with
        per-example bounds (``np.sum(x ** np.arange(n))``): recorded, so that it reduces the
        padded vectors under a mask of each example's length. A slice of a list or tuple is
        one only as the reduction's argument itself (Python has no lane-by-lane operation
        on lists, and they have no ``.sum()``)."""
        found = self._ragged_in(operand)
        listed = [f for f in found if f in self.sequence_slices]
        if listed and (method or operand is not listed[0] or len(found) > 1):
            raise Unsupported("a slice of a list or tuple with a per-example bound that is "
                              + ("the receiver of a method (a list has none of the array's: "
                                 "Python raises AttributeError)" if method else
                                 "not the reduction's own argument (Python computes no "
                                 "lane-by-lane operation on a list)"), listed[0],
                              "reduce the slice itself (sum(t[:k]), np.mean(t[:k])), or make "
                              "the table an array (np.array([...]))", kind="raises")
        if found:
            self.masked_reductions[reduction] = found

    def assignment_count(self, name: str) -> int:
        """How many statements of the function assign ``name`` (loop targets, ``+=``,
        walrus and ``with``/``except`` names included)."""
        if self._assignment_counts is None:
            from ..liveness import writes
            counts: dict[str, int] = {}
            for n in walk(self.tree.body):
                if isinstance(n, (cst.BaseSmallStatement, cst.For, cst.With, cst.NamedExpr,
                                  cst.ExceptHandler)):
                    for written in set(writes(n)):
                        counts[written] = counts.get(written, 0) + 1
            self._assignment_counts = counts
        return self._assignment_counts.get(name, 0)

    def _ragged_binding(self, name: str, value_node) -> None:
        """``name = <lane-by-lane expression of a selection>``: ``name`` stands for the
        padded value in later masked reductions, when it and every name the masks read are
        assigned once (so the mask a reduction writes again means what it meant here)."""
        found = self._ragged_in(value_node, consume=False)
        if not found or self.assignment_count(name) != 1:
            return
        masks_read = set()
        for node in found:
            masks_read |= set(_names_in(node))
        if all(self.assignment_count(n) <= 1 for n in masks_read):
            self.ragged_names[name] = found

    def _ragged_in(self, node, consume: bool = True) -> list:
        """The ragged ranges and boolean selections ``node`` is computed from through
        lane-by-lane operations only (operators, ufuncs, ``math``, ``scipy.special``,
        ``.real``/``.imag``, a name bound once to such a value): per example their vectors
        line up element by element with the result's."""
        if node in self.ragged:
            return [node, *self.selections.get(node, ())]
        kind = type(node)
        if kind is cst.Name:
            found = self.ragged_names.get(node.value, [])
            if found and consume:
                self.ragged_consumed_reads.add(node)
            return list(found)
        if kind is cst.Attribute and node.attr.value in ("real", "imag"):
            return self._ragged_in(node.value, consume)
        if kind is cst.BinaryOperation:
            return self._ragged_in(node.left, consume) + self._ragged_in(node.right, consume)
        if kind is cst.UnaryOperation:
            return self._ragged_in(node.expression, consume)
        if kind is cst.Comparison:
            return self._ragged_in(node.left, consume) + [
                r for c in node.comparisons for r in self._ragged_in(c.comparator, consume)]
        if kind is cst.Call:
            fn = getattr(self.values.get(node.func), "example", None)
            rule = self.registry.for_call(fn) if fn is not None else None
            if rule is not None and (rule.family in ("numpy", "math", "scipy")
                                     or rule.name in ("builtin.abs", "builtin.float",
                                                      "builtin.pow")):
                return [r for a in node.args for r in self._ragged_in(a.value, consume)]
        return []

    def _pieces_operand(self, node, value):
        if not (isinstance(value, TupleValue) and isinstance(node, (cst.List, cst.Tuple))
                and len(node.elements) == len(value.items)):
            return value
        items = tuple(self.array_operand(e.value, v) if isinstance(v, TupleValue) else v
                      for e, v in zip(node.elements, value.items))
        if all(a is b for a, b in zip(items, value.items)):
            return value
        value = TupleValue(items)
        self.values[node] = value
        return value

    def array_operand(self, node, value):
        """``value`` (of the expression ``node``), and where it is a list or tuple of
        per-example values: the per-example array it makes, recorded in ``stacked`` for
        `passes/batch_rules.py`, which writes the stacking (`Backend.stack_pieces`)."""
        if not isinstance(value, TupleValue) or not value.batched:
            return value
        if isinstance(node, (cst.List, cst.Tuple)) and len(node.elements) == len(value.items):
            items = [self.array_operand(e.value, v) for e, v in zip(node.elements, value.items)]
        elif type(node) is cst.Name:
            items = list(value.items)
        else:
            return value
        if any(isinstance(v, TupleValue) or not v.known for v in items):
            raise Unsupported("a list of per-example values whose items are not all numbers "
                              "or arrays of a known shape, as one array", node,
                              "write the items out as numbers or arrays")
        example = _evaluate(np.asarray, [v.example for v in items])
        if example is UNKNOWN or example.dtype.kind not in "biufc" or len(
                {np.shape(v.example) for v in items}) > 1:
            raise Unsupported("a list of per-example values that is not one array of numbers "
                              "per example (its items have different shapes, or are not "
                              "numbers)", node, "give every item the same shape")
        if self.python_semantics and example.dtype.kind == "f" and all(
                np.asarray(v.example).dtype.kind in "biu" for v in items):
            # uint64 items beside signed ones: NumPy's array of them is float64 (digits past
            # 2**53 lost), where the Python ints numpy.vectorize hands the function are exact
            raise Unsupported("a list of unsigned and signed int values as one array: no "
                              "NumPy int dtype holds both, and Python's ints are exact",
                              node, "convert the items to one int type first")
        stacked = Value(True, example)
        self.values[node] = stacked
        self.stacked[node] = tuple(v.batched for v in items)
        return stacked

    def _per_example_number(self, fn, args, kwargs, node):
        """A call without a rule runs per example (a list of its results, one per lane) only
        where each result is a number: the rest of the function treats the list as one
        number per lane. Its result is learned by calling it on the examples where that has
        no side effects; a result that is not a number, or one that cannot be learned, is
        refused, so that with fallbacks allowed the whole function runs per example."""
        pure = fn in PURE_BUILTINS or isinstance(fn, np.ufunc) or _pure_numpy(fn) or \
            getattr(fn, "__module__", None) in ("math", "cmath")
        out = _evaluate(fn, *[a.example for a in args],
                        **{k: v.example for k, v in kwargs.items()}) if pure else UNKNOWN
        if _is_number(out):
            return out
        if out is UNKNOWN:
            what = ("its result cannot be learned without running it (it may have side "
                    "effects)" if not pure else "it raised on the examples")
        else:
            shape = np.shape(out)
            what = (f"it gives {type(out).__name__}" + (f" of shape {shape}" if shape else "")
                    + " per example, not a number")
        raise Unsupported(f"`{_code(node)}` has no batching rule and would run per example, "
                          f"but {what}: the rest of the function cannot take its results as "
                          "one number per example, so the whole function runs per example",
                          node, "compute it with operations that have batching rules (see "
                          "docs/rules.md), or register a rule with vectorize.register_rule")


# methods of a str that return a new str from it and constant arguments
_STRING_METHODS = frozenset({"upper", "lower", "strip", "lstrip", "rstrip", "title",
                             "capitalize", "casefold", "swapcase", "replace", "zfill",
                             "center", "ljust", "rjust", "removeprefix", "removesuffix"})


_PYTHON_INTS = frozenset({builtins.int, builtins.round, math.floor, math.ceil, math.trunc,
                          math.gcd, math.lcm, math.isqrt, math.comb, math.perm,
                          math.factorial})
"""What returns a Python int per example of a NumPy number (`SpecFacts.python_ints`)."""

_NUMPY_SCALAR_RAISES = frozenset({math.ldexp})
"""What raises on NumPy scalars where it computes on Python numbers: `math.ldexp`'s exponent
must be a Python int (TypeError for an `np.int64`, `SpecFacts.scalar_raises`)."""


def _raises_for_all(fn, args, kwargs, known: bool) -> bool:
    """Whether the builtin ``fn`` raises on every value ``args`` and ``kwargs`` stand for:
    on their examples where those are the values (``known``); else a TypeError on examples
    that stand for numbers of their types (`max(x, 1j)`), which the types alone decide."""
    values = [*args, *kwargs.values()]
    if any(not isinstance(v, Value) or not v.known for v in values):
        return False
    try:
        fn(*[a.example for a in args], **{k: v.example for k, v in kwargs.items()})
    except TypeError:
        return known or all(v.exact or type(v.example) in _NUMBER_TYPES
                            or isinstance(v.example, np.generic) for v in values)
    except Exception:
        return known
    return False


_NUMBER_TYPES = (bool, int, float, complex)


_EMPTY_FLOAT_REDUCTIONS = (np.sum, np.prod, np.nansum, np.nanprod)
"""NumPy reductions whose result for an empty list is a float64 (0.0, 1.0), for ints else."""


def indexed_update_of(node: cst.Call):
    """The subscript ``x.at[index]`` of a call ``x.at[index].op(...)``, else None."""
    func = node.func
    if type(func) is cst.Attribute and type(func.value) is cst.Subscript and \
            type(func.value.value) is cst.Attribute and func.value.value.attr.value == "at":
        return func.value
    return None


def _note_facts(fn, args, kwargs) -> None:
    """The `SpecFacts` a call of ``fn`` on ``args`` makes true (`spec_facts.note`)."""
    try:
        if fn in _NUMPY_SCALAR_RAISES:
            note_fact("scalar_raises")
            return
        per_example = any(getattr(v, "batched", False) for v in [*args, *kwargs.values()])
        if not per_example:
            return
        if fn is builtins.max or fn is builtins.min:
            note_fact("joins")      # (one of the arguments per example)
        elif fn in _PYTHON_INTS:
            note_fact("python_ints")
    except TypeError:       # an unhashable callable
        return


def _constructs(fn) -> bool:
    """A class of the user's or a library's Python code, or a classmethod of one (an
    alternative constructor): called on constants, it makes an object whose attributes
    the function reads. Not builtins, exceptions or the array libraries' types."""
    owner = fn.__self__ if isinstance(fn, types.MethodType) else fn
    if not isinstance(owner, type) or issubclass(owner, BaseException) or (
            isinstance(fn, types.MethodType) and not isinstance(fn.__func__,
                                                                types.FunctionType)):
        return False
    module = getattr(owner, "__module__", None) or ""
    return module.split(".")[0] not in ("builtins", "numpy", "torch", "jax", "jaxlib",
                                        "vectorize", "collections", "typing", "abc")


def _formats(fn, args, kwargs) -> bool:
    """``str(x)``, ``format(x[, spec])`` or ``"...".format(...)`` (whose text has no ``!r``
    or ``!a``): a string made from its arguments."""
    if fn is str:
        return len(args) == 1 and not kwargs
    if fn is format:
        return len(args) in (1, 2) and not kwargs
    template = getattr(fn, "__self__", None)
    return (isinstance(template, str) and getattr(fn, "__name__", None) == "format"
            and "!r" not in template and "!a" not in template)


_DUNDERS = {float: "__float__", int: "__int__", complex: "__complex__", str: "__str__",
            abs: "__abs__", round: "__round__"}


def record_class(kind) -> bool:
    """A class of the user's (or a library's Python code) whose instances the engine tracks
    field by field (`TupleValue` with ``keys`` and this ``kind``): a namedtuple, or a
    dataclass whose ``__init__`` is the one `dataclasses` made (it stores its arguments as
    they are) and that has no ``__post_init__``."""
    if not isinstance(kind, type):
        return False
    if is_record(kind):
        return True
    if issubclass(kind, tuple):
        return hasattr(kind, "_fields")
    return plain_dataclass(kind)


def plain_dataclass(cls) -> bool:
    """A dataclass whose instances are their fields as passed: the ``__init__`` that
    `dataclasses` wrote (every field an argument, no ``default_factory``, no ``InitVar``),
    no ``__post_init__``, no ``__slots__`` or ``__setattr__`` of the user's."""
    import dataclasses
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)) or hasattr(
            cls, "__post_init__"):
        return False
    init = cls.__dict__.get("__init__")
    code = getattr(init, "__code__", None)
    if code is None or not code.co_filename.startswith("<") or any(
            "__setattr__" in k.__dict__ and k is not object and not (
                k is cls and cls.__dataclass_params__.frozen)
            for k in cls.__mro__):
        return False
    fields = getattr(cls, "__dataclass_fields__", {})
    return all(f._field_type is dataclasses._FIELD and f.init
               and f.default_factory is dataclasses.MISSING for f in fields.values())


def _zero_argument_super(node) -> bool:
    return type(node) is cst.Call and type(node.func) is cst.Name and \
        node.func.value == "super" and not node.args


def record_member(base, name: str, dunders: bool = False):
    """The function (a method) or property the class of ``base`` defines as ``name``, where
    ``base`` is a record of per-example values (`record_class`) and ``name`` is not one of
    its fields; None otherwise (also for what `tuple` or `object` define)."""
    if not (isinstance(base, TupleValue) and base.keys is not None and base.batched
            and record_class(base.kind)) or name in base.keys or (
                name.startswith("__") and not dunders):
        return None
    for klass in base.kind.__mro__:
        if klass in (tuple, object):
            return None
        if name in klass.__dict__:
            if is_record(klass):
                continue        # (its `__init__`, which stores the fields)
            member = klass.__dict__[name]
            function = member.fget if isinstance(member, property) else member
            if isinstance(member, (classmethod, staticmethod)):
                function = member.__func__
            if not isinstance(function, types.FunctionType) or function.__code__.co_filename \
                    .startswith("<") or function.__module__ in ("collections", "dataclasses",
                                                                "typing"):
                return None     # (what `namedtuple` or `dataclass` wrote: `_replace`...)
            if isinstance(member, property) and member.fset is None or isinstance(
                    member, (classmethod, staticmethod)):
                return member
            return member if isinstance(member, types.FunctionType) else None
    return None


def class_constant(base, name: str):
    """``p.K`` of a record (`record_class`) where ``K`` is a number or a string of its class
    (not a field): its exact value, the same for every example; None otherwise."""
    if not (isinstance(base, TupleValue) and base.keys is not None and base.batched
            and record_class(base.kind)) or name in base.keys or name.startswith("__"):
        return None
    import inspect
    try:
        value = inspect.getattr_static(base.kind, name)
    except AttributeError:
        return None
    if type(value) in (int, float, complex, str, bool) and not issubclass(base.kind, tuple):
        return exact(value)
    return None


def _record_of(cls, args, kwargs, node):
    """``Point(x, y)`` of a plain dataclass (`plain_dataclass`): its fields in order, a
    default where the call gives none."""
    import dataclasses
    fields = [f.name for f in dataclasses.fields(cls)]
    values = dict(zip(fields, args))
    values.update(kwargs)
    defaults = {f.name: f.default for f in dataclasses.fields(cls)
                if f.default is not dataclasses.MISSING}
    if len(args) > len(fields) or set(values) - set(fields) or any(
            f not in values and f not in defaults for f in fields):
        raise Unsupported(f"call of `{cls.__name__}` does not match its fields "
                          f"{tuple(fields)}", node)
    items = tuple(values[f] if f in values else unbatched(defaults[f], True) for f in fields)
    return TupleValue(items, tuple(fields), cls)


def _namedtuple_of(cls, args, kwargs, node):
    """``Point(x, y)`` of per-example values: a namedtuple of them (its fields looked up by
    name afterwards), as vmap's namedtuple arguments and results."""
    fields = cls._fields
    values = dict(zip(fields, args))
    values.update(kwargs)
    defaults = getattr(cls, "_field_defaults", {})
    if len(args) > len(fields) or set(values) - set(fields) or any(
            f not in values and f not in defaults for f in fields):
        raise Unsupported(f"call of `{cls.__name__}` does not match its fields {fields}", node)
    items = tuple(values[f] if f in values else unbatched(defaults[f], True) for f in fields)
    return TupleValue(items, tuple(fields), cls)


def _key_value_pairs(value):
    """The (key, value) pairs of a list or tuple display of pairs with constant keys
    (``[("sin", a), ("cos", b)]``); None for anything else."""
    if not isinstance(value, TupleValue) or value.keys is not None or value.kind not in (
            None, list):
        return None
    pairs = []
    for item in value.items:
        if not (isinstance(item, TupleValue) and item.kind is None and item.keys is None
                and len(item.items) == 2):
            return None
        key, entry = item.items
        if not (isinstance(key, Value) and key.exact and type(key.example) in (str, int)):
            return None
        pairs.append((key.example, entry))
    if len({k for k, _ in pairs}) != len(pairs):
        return None
    return pairs


class NamedAttribute(Unsupported):
    """``getattr(obj, name)`` (``node``) of a per-example ``obj`` and a string ``name`` the
    same on every run of the line: `transform` retries with ``obj.<name>``
    (`body_constructs.named_attributes.getattr_written`)."""

    def __init__(self, message, node=None, suggestion="", *, name: str,
                 reads: frozenset = frozenset()):
        super().__init__(message, node, suggestion)
        self.name = name
        self.reads = reads      # the free name that gave ``name``: guarded all the same


class SpreadItems(Unsupported):
    """``f(*t)`` (``node`` is the starred argument) of a name bound to a tuple of
    ``length`` per-example values and a function with a batching rule: `transform` retries
    with ``f(t[0], t[1], ...)`` (`body_sugar.spread_items`)."""

    def __init__(self, message, node=None, suggestion="", *, length: int):
        super().__init__(message, node, suggestion)
        self.length = length


class SortedItems(Unsupported):
    """``sorted(seq)`` of a name bound to a per-example row or tuple of ``length`` items (at
    most `body_constructs.keyed.SORTED_ITEMS`): `transform` retries with ``seq`` written as
    the list of its items, ``sorted([seq[0], seq[1], ...])``, which
    `body_constructs.keyed.keyed_extrema` writes out as the comparisons CPython's sort makes
    (`body_constructs.keyed.sorted_of_items`)."""

    def __init__(self, message, node=None, suggestion="", *, length: int):
        super().__init__(message, node, suggestion)
        self.length = length


def _container_class(value):
    """The class of a container tracked item by item (`TupleValue`): ``kind``, a tuple's
    None; None where it is not a class."""
    kind = tuple if value.kind is None else value.kind
    return kind if isinstance(kind, type) else None
