"""The abstract values of expressions (`Expressions`, a part of `Analysis`): names, literals,
operators, comparisons, conditional expressions, attributes and subscripts; the truth of
tests, and which side of one the representatives of the arguments take."""

from __future__ import annotations

import ast
import contextlib
import math
import operator as _op
import re
import sys
import types

import libcst as cst
import numpy as np

from .. import backends
from ..abstract import (
    DEFERRED_JOINS,
    EXAMPLE_SEMANTICS,
    FRESH_PER_EXAMPLE,
    INT_PART_SIZES,
    MIXED_KINDS,
    MIXED_PARTS,
    NONE_ON_SOME_LANES,
    UNKNOWN,
    TupleValue,
    Value,
    all_exact,
    batched_like,
    exact,
    has_fact,
    join,
    lane_combinations,
    mixed_kinds,
    mixed_lane_types,
    note_lane_results,
    note_mixed_parts,
    note_mixed_types,
    number_kind,
    one_like,
    record_fact,
    unbatched,
    uniform_narrow_lanes,
)
from ..body_constructs.chosen_tables import choosable, guarded_arm
from ..body_constructs.classes import record_of
from ..errors import UNDEFINED_NAME, Unsupported
from ..introspect import stable_attribute
from ..rules.lanes import ENGINE_NAMES
from ..rules.lists import check_index
from ..rules.python_errors import signed_zero_operation
from ..rules.registry import Site
from ..spec_facts import note as note_fact
from ..syntax.edit import AUGMENTED_TO_BINARY
from ..syntax.traversal import walk
from .calls import class_constant, record_class, record_member
from .environments import (
    Env,
    deferred_join_read,
    inexact_join,
    no_per_example_choice_between,
)
from .float_semantics import BINARY_FUNCS, COMPARE_FUNCS, UNARY_FUNCS, huge_int_power
from .float_semantics import evaluate as _evaluate
from .float_semantics import evaluate_inexact as _evaluate_inexact
from .float_semantics import numpy_scalar_for as _numpy_scalar_for
from .purity import immutable as _immutable
from .purity import is_library as _library
from .purity import is_number as _is_number
from .purity import type_predicate as _type_predicate
from .syntax import CONSTANTS as _CONSTANTS
from .syntax import NUMBERS as _NUMBERS
from .syntax import SYNTAX as _SYNTAX
from .syntax import code_of as _code
from .syntax import formatted_expressions as _formatted_expressions
from .syntax import names_in as _names_in
from .syntax import string_of as _string

_REPR_CONVERSION = re.compile(r"%(\([^)]*\))?[-#0 +]*[\d*]*(\.[\d*]*)?[hlL]?[ra]")


def _real_power(operator, left, right, out):
    """``a ** b`` of a negative Python number ``a`` per example and a fractional ``b``: Python
    gives a complex number, which the batch never computes (`python_raises` checks those
    lanes: `vmap`'s per-example loop runs them); the representative lane is the real power
    of ``abs(a)``, of the float type the lanes that pass the check have (a complex one made
    ``6.4 * x ** -2.4`` a complex product, a complex128 result where every lane is real)."""
    if type(operator) not in (cst.Power, cst.PowerAssign) or type(out) is not complex or \
            not isinstance(left, Value) or not isinstance(right, Value) or \
            type(left.example) not in (int, float) or \
            type(right.example) not in (int, float) or left.example >= 0:
        return out
    try:
        return abs(left.example) ** right.example
    except (OverflowError, ZeroDivisionError):
        return out


def _string_operands(operator, left, right) -> bool:
    """``"..." % x`` with a per-example ``x``, or ``+`` with a per-example string."""
    if not (left.batched or right.batched):
        return False
    if type(operator) is cst.Modulo:
        return isinstance(left, Value) and not left.batched and left.known and isinstance(
            left.example, str)
    if type(operator) is cst.Add:
        return all(isinstance(v, Value) and (isinstance(v.example, (str, np.str_)))
                   for v in (left, right))
    return False


class Expressions:
    """The `Analysis` methods that give the abstract value of an expression."""

    def expr(self, node, env: Env):
        value = self._expr(node, env)
        self.values[node] = value
        return value

    def _helper_of_examples(self, node) -> bool:
        """A call of a function of the user's: its result may be the same on every example
        (``return 5``, or one item of a tuple it returns) while its body raises on some, or
        on all of them (of arguments the same for every example: ``True % u`` of ``u =
        False``): a test calling it is not decided, dropping the call would drop the raise."""
        if type(node) is not cst.Call:
            return False
        fn = getattr(self.values.get(node.func), "example", None)
        return isinstance(fn, types.FunctionType) and not _library(
            sys.modules.get(getattr(fn, "__module__", None) or "")) and not _type_predicate(fn)

    def _any_batched_input(self, call: cst.Call) -> bool:
        return any(getattr(self.values.get(a.value), "batched", False) for a in call.args)

    def _expr(self, node, env: Env):
        kind = type(node)     # the common kinds first, by identity (isinstance is slow here)
        if kind is cst.Name:
            return self.name(node, env)
        number = _NUMBERS.get(kind)
        if number is not None:
            return exact(number(node.value))
        if kind is cst.BinaryOperation:
            value = self.binary(node.operator, node.left, node.right, env, node)
            if isinstance(value, Value) and value.batched and value.known and \
                    value.rank == 0 and value.dtype is not None and value.dtype.kind in "fc":
                # (float arithmetic makes a new object per example: `x is NAN` is false)
                record_fact(value, FRESH_PER_EXAMPLE)
            return value
        if kind is cst.Call:
            return self.call(node, env)
        if kind is cst.Comparison:
            return self.comparison(node, env)
        if kind is cst.UnaryOperation:
            return self.unary(node, env)
        if kind is cst.IfExp:
            return self.ifexp(node, env)
        if kind is cst.Attribute:
            return self.attribute(node, env)
        if kind is cst.BooleanOperation:
            return self.boolean(node, env)
        if kind is cst.Subscript:
            return self.subscript(node, env)
        if kind is cst.SimpleString:
            return exact(_string(node.value))
        if isinstance(node, cst.ConcatenatedString):
            # "abc" "def", "a" f"{b}": constant when both halves are
            left, right = self.expr(node.left, env), self.expr(node.right, env)
            return unbatched(_evaluate(_op.add, left.example, right.example),
                             all_exact(left, right))
        if isinstance(node, cst.Ellipsis):
            return exact(Ellipsis)
        if isinstance(node, cst.FormattedString):
            return self.formatted_string(node, env)
        if isinstance(node, cst.Tuple):
            items = [self.expr(e.value, env) for e in node.elements
                     if not isinstance(e, cst.StarredElement)]
            if len(items) != len(node.elements):
                raise Unsupported("starred tuple items", node, "write the items out")
            return TupleValue(tuple(items))
        if isinstance(node, (cst.List, cst.Set, cst.Dict)):
            items = [self.expr(e.value, env) for e in getattr(node, "elements", [])
                     if hasattr(e, "value")]
            if isinstance(node, cst.List) and any(i.batched for i in items) and not any(
                    isinstance(e, cst.StarredElement) for e in node.elements):
                return TupleValue(tuple(items), kind=list)   # a list of per-example values
            if isinstance(node, cst.Dict) and not any(i.batched for i in items):
                try:            # a table of constants (looked up as a module-level one)
                    return exact(ast.literal_eval(_code(node)))
                except Exception:
                    pass
            if isinstance(node, cst.Dict):
                # (with no per-example value too: `{"p": r}` of a constant `r`, returned
                # next to per-example values, is a pytree as a tuple of constants is)
                keyed = self._dict_of_per_example_values(node, items, env)
                if keyed is not None:
                    return keyed
            if isinstance(node, cst.Dict) or any(i.batched for i in items):
                raise Unsupported(f"a {type(node).__name__.lower()} of per-example values is "
                                  "not supported yet", node, "use separate variables or a tuple")
            try:
                return exact(ast.literal_eval(_code(node)))
            except Exception:
                pass
            if isinstance(node, cst.List) and all(i.known for i in items):
                return unbatched([i.example for i in items], all_exact(*items))
            return unbatched(UNKNOWN)
        if isinstance(node, cst.NamedExpr):
            value = self.expr(node.value, env)
            self._walrus_on_some_lanes(node)
            self.bind(node.target, value, env, node)
            return value
        if isinstance(node, (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp,
                             cst.GeneratorExp)):
            used = _names_in(node)
            if isinstance(node, cst.Lambda):
                # its own parameters are not the function's values of the same names
                used = set(used) - {p.name.value for p in node.params.params}
                if not any(n in env.values for n in used):
                    return self._lambda_of_globals(node, used)
            if any(getattr(env.values.get(n), "batched", False) for n in used):
                what = _SYNTAX[type(node).__name__]
                length = self._fixed_comprehension(node, env)
                if length is not None:
                    # (`transform` retries with the comprehension written out)
                    raise WrittenOutComprehension(
                        f"a {what} over per-example values is not supported yet", node,
                        "write the computation out", length=length)
                raise Unsupported(f"a {what} over per-example values is not supported yet",
                                  node, "write the computation out")
            # the generated code evaluates it as it is: the module names it reads (``TABLE``
            # of ``[t for t in TABLE if t != k]``) are free names of the code, bound in its
            # module and guarded (unbound, the batched code raised NameError)
            for ident in used:
                if ident not in env.values:
                    found, value, _scope = self.source.lookup(ident)
                    if found:
                        self.free_names.setdefault(ident, value)
            return unbatched(UNKNOWN)
        kind = type(node).__name__
        hints = {"Yield": "return the values as a tuple (a generator function's call is an "
                          "object that runs its body when iterated: numpy.vectorize returns "
                          "an array of them, one per example, which no batch can be; a "
                          "helper generator is vectorized where its caller unpacks its "
                          "items into names at once)",
                 "Await": "await outside the per-example function"}
        raise Unsupported(f"`{_SYNTAX.get(kind, kind)}` expressions are not supported", node,
                          hints.get(kind, "rewrite it with plain expressions"))

    def _fixed_comprehension(self, node, env) -> int | None:
        """The number of items of ``[e for t in seq]`` (one ``for`` of a name, no ``if``)
        over a tuple or list of per-example values (a helper's list of dicts, a local list
        display): every example has that many, so `body_sugar.comprehension_items` writes
        it out; None for any other comprehension."""
        if type(node) is not cst.ListComp:
            return None
        target = node.for_in.target
        if node.for_in.inner_for_in is not None or \
                node.for_in.ifs or node.for_in.asynchronous is not None or not (
                    type(target) is cst.Name or type(target) is cst.Tuple and all(
                        type(e) is cst.Element and type(e.value) is cst.Name
                        for e in target.elements)):
            return None
        try:
            seq = self.expr(node.for_in.iter, env)
        except Unsupported:
            return None
        if isinstance(seq, TupleValue) and seq.keys is None and seq.kind in (
                None, tuple, list) and 0 < len(seq.items) <= COMPREHENSION_ITEMS:
            items = list(seq.items)
        elif isinstance(seq, Value) and not seq.batched and seq.exact and type(
                seq.example) in (range, tuple) and 0 < len(seq.example) <= COMPREHENSION_ITEMS:
            # (`range(N)` of a module's int, a module's tuple: the same on every call of
            # this specialization)
            items = list(seq.example)
        else:
            return None
        if type(target) is cst.Tuple:
            # each item unpacks into the names without raising (a tuple of that length)
            width = len(target.elements)
            for item in items:
                if isinstance(item, TupleValue):
                    if item.keys is not None or item.kind not in (None, tuple, list) or len(
                            item.items) != width:
                        return None
                elif isinstance(item, Value):
                    if item.batched or not item.exact or type(item.example) is not tuple \
                            or len(item.example) != width:
                        return None
                elif type(item) is not tuple or len(item) != width:
                    return None
        return len(items)

    def _lambda_of_globals(self, node: cst.Lambda, used):
        """A lambda that reads none of the function's values: the function it makes (every
        call makes the same one), with its text where the engine reads sources (a
        `vectorize.vmap` of it inside the function, `passes.inner_lambdas`). The globals
        it reads are guarded as the function's own are (rebinding one makes a new
        specialization)."""
        import linecache
        for ident in used:
            found, value, _scope = self.source.lookup(ident)
            if found:
                self.free_names[ident] = value
        text = "(" + _code(node) + ")\n"
        filename = f"<vectorize lambda of {self.source.filename}:{hash(text) & 0xffffffff:x}>"
        try:
            code = compile(text, filename, "eval")
        except SyntaxError:
            return unbatched(UNKNOWN)
        linecache.cache[filename] = (len(text), None, [text], filename)
        try:
            made = eval(code, self.source.func.__globals__)   # noqa: S307 - the user's lambda
        except Exception:
            return unbatched(UNKNOWN)
        return unbatched(made, True)

    def _dict_of_per_example_values(self, node: cst.Dict, items, env):
        """``{"a": x, "b": y}`` with per-example values and constant keys: a pytree (a
        `TupleValue` with keys, as vmap's dict arguments), None for anything else."""
        if not all(isinstance(e, cst.DictElement) for e in node.elements):
            return None
        keys = [self.expr(e.key, env) for e in node.elements]
        if not all(k.exact and not k.batched for k in keys):
            return None
        try:
            if len({k.example for k in keys}) != len(keys):
                return None
        except TypeError:
            return None
        return TupleValue(tuple(items), tuple(k.example for k in keys), dict)

    def formatted_string(self, node: cst.FormattedString, env: Env):
        """An f-string: constant when every value formatted into it is (and it does not
        show an expression's text, ``f"{x=}"``), else a string formatted from the values'
        representatives (or of unknown value)."""
        parts = list(_formatted_expressions(node.parts))
        values = [self.expr(p.expression, env) for p in parts]
        if any(v.batched for v in values) and self._exception_of_one_example:
            return unbatched("")          # the message of one example
        if any(v.batched for v in values):
            for part, value in zip(parts, values):
                if value.batched and part.equal is not None:
                    raise Unsupported("`{...=}` of a per-example value in an f-string (it "
                                      "shows the expression's text)", part,
                                      "write the name into the text: f\"x={x}\"")
                if value.batched and part.conversion in ("r", "a"):
                    raise Unsupported(f"`!{part.conversion}` of a per-example value (a NumPy "
                                      "number's repr is not a Python number's)", part,
                                      "use `!s` or a format spec")
            return self.string_piece(node, [(p.expression, v) for p, v in zip(parts, values)],
                                     kind_free={id(p.expression) for p in parts
                                                if _float_presentation(p)})
        if not all(v.known for v in values):
            return unbatched(UNKNOWN)
        placeholders = {id(p.expression): f"_value{k}" for k, p in enumerate(parts)}

        class _Placeholders(cst.CSTTransformer):
            def leave_FormattedStringExpression(self, original, updated):
                return updated.with_changes(
                    expression=cst.Name(placeholders[id(original.expression)]))

        text = _code(node.visit(_Placeholders()))
        try:
            value = eval(text, {"__builtins__": {}},   # noqa: S307 - constants only
                         {f"_value{k}": v.example for k, v in enumerate(values)})
        except Exception:
            return unbatched(UNKNOWN)
        return unbatched(value, all_exact(*values) and all(p.equal is None for p in parts))

    def string_piece(self, node, operands, example="", kind_free=frozenset()):
        """A string made from per-example values (`rules/strings.py`: formatted per lane):
        recorded with its per-example ``operands`` ((node, value) pairs, the others are
        left out) for `passes/batch_rules.py`; one string per example. Refused where a
        lane's string could differ from the loop's: an operand that is a per-example array
        or tuple (but see `_formatted_tuple`), a float32/float16 number (the loop may hold a
        NumPy float32, whose digits are not a Python float's), or of a type the engine does
        not know."""
        batched = []
        for operand, value in operands:
            if not getattr(value, "batched", False):
                continue
            if isinstance(value, TupleValue) and self._formatted_tuple(operand, value,
                                                                       kind_free):
                batched.append(operand)
                continue
            self._formatted_number(operand, value, kind_free)
            batched.append(operand)
        self.string_pieces[node] = tuple(batched)
        return Value(True, np.str_(example if isinstance(example, str) else ""))

    def _formatted_tuple(self, operand, value, kind_free) -> bool:
        """A tuple of per-example numbers formatted into a string (great-circle-calculator's
        ``f"Point {point!s} is probably reversed!"``): for `vectorize` only, whose examples
        are Python numbers (a tuple prints its items' reprs: a NumPy scalar's is not a
        Python number's, which `vmap`'s loop would print), every item a per-example number
        (`rules/strings.py` formats ``zip(*items)`` lane by lane). numpy.vectorize's first
        call holds NumPy scalars: that example is run as it does (`first_call_differs`)."""
        if not self.python_semantics or value.kind not in (None, tuple) or not value.items \
                or not all(isinstance(item, Value) and item.batched for item in value.items):
            return False
        for item in value.items:
            self._formatted_number(operand, item, kind_free)
        self.first_call_differs = True
        return True

    def _formatted_number(self, operand, value, kind_free) -> None:
        """Refuse a per-example operand of a string that a lane could print otherwise than
        the loop (see `string_piece`)."""
        dtype = value.dtype if isinstance(value, Value) else None
        if isinstance(value, TupleValue) or value.rank > 0 or dtype is None:
            raise Unsupported("formatting a per-example array, tuple or value of unknown "
                              "type into a string", operand,
                              "format one number per example")
        if dtype.kind not in "biufcU" or dtype.kind == "f" and dtype.itemsize < 8 or (
                dtype.kind == "c" and dtype.itemsize < 16):
            raise Unsupported(f"formatting a per-example {dtype} value into a string (the "
                              "loop may hold a NumPy scalar of it, whose digits differ "
                              "from a Python number's)", operand,
                              "convert it with float(...) first")
        if value in MIXED_KINDS and id(operand) not in kind_free and not (
                value in MIXED_PARTS and {number_kind(p) for p in MIXED_PARTS[value]}
                in ({"int"}, {"bool"})):
            # (ints of different widths, or Python and NumPy bools, on different lanes
            # print alike)
            # an int on some lanes and a float on others (`r = 0`, then `r = x / 2` under
            # a per-example `if`): each lane prints its own type ("0" / "0.5"), the
            # batch holds the joined one ("0.0")
            raise Unsupported("formatting into a string a per-example value that is a "
                              "different kind of number on different lanes (an int on "
                              "some, a float on others): each example prints its own",
                              operand, "give it one type on every path (`r = 0.0`), or "
                              "a float format: f\"{r:g}\"")

    def name(self, node: cst.Name, env: Env):
        ident = node.value
        if ident in env.values:
            if ident in self.ragged_names:
                self.ragged_name_reads.add(node)
            if ident in env.unbound:
                raise MaybeUnbound(f"`{ident}` is assigned on some paths only, so it may be "
                                   "unbound here for some examples", node,
                                   f"give `{ident}` a value before the `if` or loop that "
                                   f"assigns it", name=ident, value=env.values[ident])
            value = env.values[ident]
            deferred_join_read(value, node, ident)
            return value
        if ident in _CONSTANTS:
            return exact(_CONSTANTS[ident])
        found, value, _scope = self.source.lookup(ident)
        if not found and ident == "np":
            return exact(np)   # the array namespace of generated code (np.errstate...)
        if not found and ident == "math":
            # the checks `passes.python_raises` writes (math.isinf...), in a module that does
            # not import math itself (codegen imports it for the generated code)
            import math
            return exact(math)
        if not found and ident in ENGINE_NAMES:
            return exact(ENGINE_NAMES[ident])
        if not found:
            raise Unsupported(f"name `{ident}` is not defined", node,
                              "define it at module level before calling the function",
                              kind=UNDEFINED_NAME, subject=ident)
        self.free_names[ident] = value
        example = backends.foreign_example(value)
        if example is not None:
            # another namespace's array (a closed-over torch tensor): the analysis works on
            # a NumPy example of it; the code keeps using the name
            return unbatched(example)
        # guarded: a rebinding makes a new specialization; what a mutable object holds
        # (a list's items, an instance's attributes) can change without one
        return unbatched(value, _immutable(value))

    def _must_not_raise(self, fn, args, node, what, narrows=False):
        """A batched operation whose scalar version raises a TypeError for these dtypes and
        shapes raises on every example that reaches it; rejected rather than guessed.
        Returns ``fn`` of the examples, as `_evaluate` gives it (UNKNOWN where it raised).
        ``narrows``: the operation's rule converts an operand that is a Python float on some
        lanes to the narrow float it meets (`rules.operators.narrow_weak_operands`), so
        where every lane computes in that float (`abstract.uniform_narrow_lanes`), so does
        the batch, and the result is of that dtype."""
        examples = [a.example for a in args]
        if any(e is UNKNOWN for e in examples):
            return UNKNOWN
        try:
            out = fn(*examples)
        except (ZeroDivisionError, OverflowError):
            out = _as_numpy_scalars(fn, examples)
        except Exception:   # noqa: BLE001 -- decided below
            out = _NOT_COMPUTED
        if out is not _NOT_COMPUTED:
            narrow = self._narrowed_lanes(fn, args, out) if narrows else None
            if narrow is not None:
                with np.errstate(all="ignore"):
                    return np.asarray(out).astype(narrow)[()]
            self._lane_types(fn, args, out, node, what)
            return out
        try:
            try:
                return fn(*examples)
            except TypeError:
                # per example, int()/round()/float() give Python numbers: only reject what
                # fails for those too
                fn(*[e.item() if isinstance(e, np.generic) else e for e in examples])
        except TypeError as exc:
            kinds = ", ".join(a.describe() for a in args)
            raise Unsupported(f"{what()} raises for {kinds} in the per-example code ({exc})",
                              node, "convert the values first (e.g. float(x)) or use a "
                                    "NumPy function that accepts them", kind="raises") from None
        except ValueError as exc:
            if "truth value" in str(exc) or "size-1" in str(exc) or "only length-1" in str(
                    exc):
                raise Unsupported(f"{what()} needs a single number but gets a per-example "
                                  f"array ({exc})", node,
                                  "reduce the array first, e.g. with .any(), .all() or "
                                  "np.sum") from None
        except Exception:
            pass
        return UNKNOWN

    def _lanes_of(self, fn, args, result):
        """``result``, what ``fn`` of ``args`` gives, with the lane types it has where an
        operand's type differs between lanes (`abstract.note_lane_results`)."""
        if not getattr(self, "python_semantics", None) and all(
                isinstance(a, Value) for a in args):
            note_lane_results(result, fn, args, [a.example for a in args])
        return result

    def _narrowed_lanes(self, fn, args, out):
        """`_must_not_raise`'s ``narrows``: the narrow dtype every lane computes in, where
        the batch computes in it too once the Python floats among its lanes are converted
        (`vmap` on NumPy and JAX, whose Python numbers are weak per example); None
        otherwise."""
        if getattr(self, "python_semantics", None) or not getattr(
                self.registry.backend, "weak_python_numbers", False) or not all(
                isinstance(a, Value) for a in args) or not any(
                a in MIXED_PARTS for a in args):
            return None
        joined = getattr(out, "dtype", None)
        if joined is None:
            return None
        return uniform_narrow_lanes(fn, args, joined)

    def _lane_types(self, fn, args, out, node, what):
        """A batched operation on a value that is different kinds of number on different
        lanes (`abstract.MIXED_PARTS`: ``r = x`` of a uint32 on some, ``r = 2.0`` on others):
        the batch computes every lane in the joined type, each example in its own. Where
        that type decides the outcome, rejected: an operation that raises for one lane type
        (``r ** -1`` of a NumPy int, ``np.sign`` of a bool), or gives a narrower float
        (``np.exp`` of an int16: float32) or a NumPy int narrower than int64 (which wraps
        where the joined float does not) than the joined type's result."""
        mixed = [i for i, a in enumerate(args) if isinstance(a, Value) and a in MIXED_PARTS]
        if not mixed:
            return
        if getattr(self, "python_semantics", None):
            # (`vectorize`: the lanes hold Python numbers, `python_raises`), but a NumPy
            # function of a Python bool lane raises where the batch's joined type does not
            # (``np.negative(r)`` of ``r = (a > 1) if c > 0 else a * 0.5``: TypeError on
            # the lanes where ``c > 0``, -1.0 in the batch's float)
            numpy_function = isinstance(fn, np.ufunc) or str(
                getattr(fn, "__module__", None) or "").startswith("numpy")
            for examples, part in lane_combinations(
                    args, [a.example for a in args], one_like):
                if not numpy_function or not isinstance(part, (bool, np.bool_)):
                    continue    # (Python's operators take a bool for the int it is)
                try:
                    with np.errstate(all="ignore"):
                        fn(*examples)
                except TypeError as exc:
                    operands = self._bool_lane_operands(args, mixed, node)
                    if operands is not None:
                        # checked at run time on the lanes that may hold the bool
                        # (`passes.python_raises`, `python_errors.bool_lane_checks`)
                        self.bool_lanes[node] = (operands, str(exc))
                        return
                    raise Unsupported(
                        f"{what()} of a per-example value whose type differs between lanes "
                        f"(a Python bool on some): there it raises TypeError ({exc}), while "
                        "the batch computes every lane in the joined type", node,
                        "give the value one type on every path (e.g. float(...) where it "
                        "is assigned)", kind="raises") from None
                except Exception:   # noqa: BLE001 -- only a bool lane's TypeError decides
                    pass
            return
        if isinstance(out, tuple):
            # each item of a pair (`divmod(r, y)` of a bool lane: int8 0 for a zero
            # divisor, nan in the joined float)
            for k, item in enumerate(out):
                self._lane_types(_item_of(fn, k), args, item, node, what)
            return
        joined = np.asarray(out).dtype if isinstance(out, (np.generic, np.ndarray, int,
                                                           float, complex)) else None
        held = {id(p) for a in args if isinstance(a, Value) and a in MIXED_PARTS
                for p in MIXED_PARTS[a] if type(p) is int and abs(p) > 1 and
                INT_PART_SIZES.get(a, {}).get((int, None), math.inf) < math.inf}
        for examples, part in lane_combinations(
                args, [a.example for a in args], lambda p: p if id(p) in held else one_like(p)):
            # a Python int lane the same for every example that takes it (``max(y, 2 **
            # 40)`` of a float16 ``y``) raises where it meets a narrow NumPy int
            # (``np.minimum(r, x)`` of an int32 ``x``: OverflowError), which 1 does not
            try:
                with np.errstate(all="ignore"):
                    fn(*examples)
            except OverflowError as exc:
                raise Unsupported(
                    f"{what()} of a per-example value whose type differs between lanes (a "
                    f"Python int on some, {part!r}): there it raises OverflowError ({exc}), "
                    "while the batch computes every lane in the joined type", node,
                    "give the value one type on every path (e.g. np.int64(...) or "
                    "float(...) where it is assigned)", kind="raises") from None
            except Exception:   # noqa: BLE001 -- the lane types' checks below decide
                pass
        for examples, part in lane_combinations(args, [a.example for a in args], one_like):
            problem = None
            try:
                with np.errstate(all="ignore"):
                    lane = fn(*examples)
            except (TypeError, ValueError, OverflowError) as exc:
                problem = f"raises {type(exc).__name__} ({exc})"
            except Exception:
                continue
            else:
                dtype = getattr(lane, "dtype", None)
                if dtype is None and type(lane) in (float, complex):
                    dtype = np.asarray(lane).dtype      # a Python float: a double
                if dtype is None and type(lane) is int and joined is not None and \
                        joined.kind in "fc" and self._signed_zero(fn, args, node):
                    # (a Python int lane, ``int(y)`` on some: its 0 is 0 where stacked,
                    # the batch's float may give -0.0, as of an int64 lane)
                    problem = (f"computes in Python ints, where a zero result is 0 (the "
                               f"batch: {joined}, -0.0 for a negation, a negative factor or "
                               "a negative divisor)")
                if problem is not None:
                    pass
                elif joined is None or dtype is None or dtype == joined:
                    continue
                elif dtype.kind in "fc" and joined.kind in "fc" and (
                        np.finfo(dtype).bits != np.finfo(joined).bits):
                    # float32 lanes round to float32, float64 lanes (and Python
                    # floats) keep the double: the batch rounds every lane alike
                    problem = f"computes in {dtype} (the batch: {joined})"
                elif np.asarray(lane).ndim != 0:
                    continue
                elif dtype == np.uint64 and joined.kind in "fc" and getattr(
                        fn, "__name__", None) in _BELOW_ZERO:
                    # (a uint32 or a Python int lane minus a uint64 `x`: the lane's uint64
                    # wraps below zero, 2**64 - 8, where the batch's float gives -8; the
                    # examples, ones, do not go below zero)
                    problem = f"computes in uint64, which wraps below zero (the batch: {joined})"
                elif dtype.kind in "iu" and dtype.itemsize < 8 and (joined.kind in "fc" or (
                        joined.kind in "iu" and dtype.itemsize < joined.itemsize and (
                            EXAMPLE_SEMANTICS.get() is None or getattr(
                                EXAMPLE_SEMANTICS.get(), "weak", False)))) \
                        and getattr(fn, "__name__", None) in _WRAPPING:
                    # (PyTorch: a Python int on some lanes takes the uint8 it meets there,
                    # the batch's int32 join of it computes in int32)
                    problem = f"computes in {dtype}, which may wrap (the batch: {joined})"
                elif dtype.kind in "iu" and joined.kind in "iub" and np.promote_types(
                        dtype, joined) != joined and getattr(fn, "__name__", None) in _WRAPPING:
                    # a lane wider than the batch (``r + b`` of a bool ``b``, ``r`` a Python
                    # int on some lanes, an int32 on others: int64 there, so 2**31 - 1 + True
                    # is 2**31, where the batch's int32 wraps)
                    problem = (f"computes in {dtype}, which the batch's {joined} cannot hold "
                               "(it may wrap where the lane does not)")
                elif dtype.kind in "iu" and joined.kind in "fc" and getattr(
                        fn, "__name__", None) in _WRAPPING and (getattr(
                            EXAMPLE_SEMANTICS.get(), "weak", False) or (
                            type(part) is not int and getattr(fn, "__name__", None)
                            not in _INT_DIVISION) or (
                            isinstance(lane, np.integer) and getattr(fn, "__name__", None)
                            in ("pow", "power"))):
                    # a NumPy int64 lane computes exactly, and wraps beyond int64, where
                    # the batch's float rounds beyond 2**53 (``min(x, r) - 7`` of an int64
                    # 2**53 + 1: 2**53 - 6 there, 2**53 - 7 in float64; of int64's
                    # minimum + 3: 2**63 - 4 there, -2**63 - 4 in float64). (A Python int
                    # lane does not wrap; it and `//` are exact below 2**53: computed.)
                    # PyTorch: a Python int meeting an int64 tensor, the batch's float32
                    # beyond 2**24. A Python int lane raised to a NumPy int's power computes
                    # in that int (NEP 50), wrapping already at ``300 ** 8``
                    problem = f"computes in {dtype} (the batch: {joined})"
                elif dtype.kind == "b" and joined.kind in "iufc" and getattr(
                        fn, "__name__", None) in _WRAPPING:
                    # (bools add as a logical or: True + True is True)
                    problem = f"computes in bool (the batch: {joined})"
                elif dtype.kind in "iu" and joined.kind in "fc" and getattr(
                        fn, "__name__", None) in _INT_DIVISION and not _nonzero_divisor(
                            args) and self._zero_divisor(node):
                    problem = (f"computes in {dtype}, where a zero divisor gives 0 (the "
                               f"batch: {joined}, nan)")
                elif dtype.kind in "iu" and joined.kind in "fc" and self._signed_zero(
                        fn, args, node):
                    # (``r % -1``, ``-r``, ``r * k`` of an int lane is 0 there, -0.0 in the
                    # batch's float)
                    problem = (f"computes in {dtype}, where a zero result is 0 (the batch: "
                               f"{joined}, -0.0 for a negation, a negative factor or a "
                               "negative divisor)")
                elif dtype.kind in "iub" and joined.kind in "fc":
                    # an operand cast into the lane's narrow int where the batch keeps it
                    # (``np.where(c, r, 300)`` of an int8 lane: 300 wraps to 44)
                    problem = _narrow_lane_values(fn, args, examples, lane, dtype, joined)
                elif dtype.kind in "iu" and joined.kind in "iu" and \
                        dtype.itemsize < joined.itemsize and getattr(
                            EXAMPLE_SEMANTICS.get(), "weak", False):
                    # (PyTorch: `r % 300` of an int8 lane converts 300 to int8 there, 44;
                    # the batch's int64 keeps 300)
                    problem = _shared_int_wraps(args, dtype, joined)
            if problem is not None:
                lane_type = f"a Python {type(part).__name__}" if type(part) in (
                    bool, int, float, complex) else getattr(part, "dtype", None) or type(
                    part).__name__
                raise Unsupported(
                    f"{what()} of a per-example value whose type differs between lanes "
                    f"({lane_type} on some): as {lane_type} it {problem}, while the "
                    "batch computes every lane in the joined type", node,
                    "give the value one type on every path (e.g. float(...) or "
                    "np.float64(...) where it is assigned)")

    def _bool_lane_operands(self, args, mixed, node):
        """`vectorize`: the argument nodes of the NumPy call ``node`` that are a Python bool
        on some lanes (``np.negative(r)`` of ``r = (a > 1) if c > 0 else a * 0.5``), whose
        TypeError there `passes.python_raises` checks at run time where a lane may hold one;
        None where no check can be written (not a call of positional arguments; a helper
        whose raising batch does not replay, `_signed_zero`), and it is refused."""
        if type(node) is not cst.Call or len(node.args) != len(args) or any(
                a.star or a.keyword is not None for a in node.args) or getattr(
                self, "helper", False) and not getattr(self, "replayed", False) or \
                not getattr(self.registry.backend, "exception_checks", False):
            return None
        operands = [node.args[i].value for i in mixed if any(
            isinstance(p, (bool, np.bool_)) for p in MIXED_PARTS.get(args[i], ()))]
        return operands or None

    def _signed_zero(self, fn, args, node) -> bool:
        """Whether ``fn`` of ``args``, computed in float on a lane that computes in ints per
        example, may give -0.0 where the lane's int is 0 (`python_errors.signed_zero_operation`)
        and is refused: in the function itself, and in a helper where a raising batch
        replays the per-example loop (`replayed`: the check may fire on lanes its caller
        never calls it for, and the loop decides), the operation is recorded instead
        (``signed_zeros``), and `passes.python_raises` checks its result at run time; the
        helper's specialization is keyed by its arguments' lane types
        (`transform.abstract_key`). Elsewhere (JAX's helpers) it is refused."""
        kinds = ["positive" if _positive_constant(a) else "int" for a in args]
        if not signed_zero_operation(getattr(fn, "__name__", None), kinds):
            return False
        if type(node) not in _SIGNED_ZERO_NODES or getattr(self, "helper", False) and not \
                getattr(self, "replayed", False):
            return True
        self.signed_zeros[node] = None
        return False

    def _zero_divisor(self, node) -> bool:
        """An int division (`_INT_DIVISION`) on a lane that computes in a NumPy int, whose
        divisor may be zero (0 there, nan or inf in the batch's float): refused in a
        helper's body; in the function itself recorded (``zero_divisors``), and
        `passes.python_raises` checks the divisor at run time (the loop decides where it is
        0 on some lane)."""
        if getattr(self, "helper", False) or type(node) not in _SIGNED_ZERO_NODES:
            return True
        self.zero_divisors[node] = None
        return False

    @staticmethod
    def container_truth(value):
        """A tuple or list whose items are tracked is true where it has any, on every
        example whatever its items hold (``if args:`` in a helper taking ``*args``)."""
        if isinstance(value, TupleValue) and value.kind in (None, tuple, list):
            return exact(bool(value.items))
        return value

    def _truth(self, value, node):
        """A value used for its truth (if/while tests, and/or/not, ternaries) must be one
        number per example, as Python requires."""
        if (not isinstance(value, TupleValue) and value.batched and value.rank > 0
                and np.size(value.example) != 1):
            raise Unsupported("the truth value of a per-example array is ambiguous (Python "
                              "raises here for every example)", node,
                              "use (...).any() or (...).all(), or np.where for elementwise "
                              "choices", kind="raises")

    def binary(self, operator, left_node, right_node, env, node):
        left, right = self.expr(left_node, env), self.expr(right_node, env)
        if self._exception_of_one_example and isinstance(left, Value) and isinstance(
                left.example, str) and type(operator) is cst.Modulo:
            return unbatched("")        # "bad input %s" % x: the message of one example
        if _string_operands(operator, left, right):
            return self._string_operation(operator, left_node, left, right_node, right, node)
        if type(operator) in (cst.Power, cst.PowerAssign) and isinstance(
                left, Value) and isinstance(right, Value) and all_exact(left, right) and \
                huge_int_power(left.example, right.example):
            raise Unsupported(f"`{_code(node)}` is a Python int of more than 2**22 bits "
                              "(the same for every example): Python would take too long to "
                              "compute it, and the batch computes it on every lane", node,
                              "compute it in floats, or keep the exponent small")
        fn = self.registry.backend.on_examples(
            BINARY_FUNCS[AUGMENTED_TO_BINARY.get(type(operator), type(operator))])
        if isinstance(left, TupleValue) or isinstance(right, TupleValue):
            if left.batched or right.batched:
                raise Unsupported("arithmetic on tuples of per-example values", node)
            return unbatched(_evaluate(fn, _sequence_example(left), _sequence_example(right)),
                             all_exact(left, right))
        if not (left.batched or right.batched):
            if self.speculative or self._batched_depth:
                scalar = _numpy_scalar_for(operator, left, right)
                if scalar is not None:
                    # runs on every lane (both branches of a per-example `if`, a masked
                    # loop's body): lanes that skip it in the scalar code must not raise;
                    # where Python raises for these numbers, NumPy's value is no exact one
                    # (no pass may decide a test from it: `python_raises` checks it)
                    self.numpy_scalar_ops[node] = scalar
                    raises = _evaluate(fn, left.example, right.example) is UNKNOWN
                    return unbatched(_evaluate(fn, left.example, scalar(right.example)),
                                     all_exact(left, right) and not raises)
            out = _evaluate_inexact(fn, left, right)
            if out is UNKNOWN and self._type_error_for_every_example(
                    node, BINARY_FUNCS[AUGMENTED_TO_BINARY.get(type(operator), type(operator))],
                    left, right):
                return self.raised_for_every_example(node)
            return unbatched(out, all_exact(left, right))
        if type(operator) in (cst.MatrixMultiply, cst.MatrixMultiplyAssign):
            if left.rank == 0 or right.rank == 0:
                raise Unsupported("`@` of a per-example scalar (NumPy raises here)", node,
                                  "use * for scalars", kind="raises")
            return batched_like(_evaluate(fn, left.example, right.example))
        out = self._must_not_raise(fn, [left, right], node,
                                   lambda: f"`{_code(operator).strip()}`",
                                   narrows=type(operator) in _NARROWING_OPERATORS)
        out = _real_power(operator, left, right, out)
        return self._lanes_of(fn, [left, right], self._weak_result([left, right], out))

    def _string_operation(self, operator, left_node, left, right_node, right, node):
        """``"%5.2f" % x``, ``"%d-%d" % (a, b)`` and ``s + t`` with per-example values: a
        string piece (`string_piece`)."""
        if type(operator) is cst.Add:
            return self.string_piece(node, [(left_node, left), (right_node, right)])
        if isinstance(right, TupleValue):
            if type(right_node) is not cst.Tuple or len(right_node.elements) != len(
                    right.items):
                raise Unsupported("`%` formatting of a tuple of per-example values named "
                                  "elsewhere", right_node, "write the tuple in the `%`")
            operands = [(e.value, self.values.get(e.value)) for e in right_node.elements]
        else:
            operands = [(right_node, right)]
        if _REPR_CONVERSION.search(left.example):
            raise Unsupported("`%r`/`%a` of a per-example value (a NumPy number's repr is not "
                              "a Python number's)", node, "use %s or a format")
        return self.string_piece(node, operands)

    def unary(self, node: cst.UnaryOperation, env):
        value = self.expr(node.expression, env)
        fn = self.registry.backend.on_examples(UNARY_FUNCS[type(node.operator)])
        if not value.batched:
            return unbatched(_evaluate(fn, value.example), all_exact(value))
        if type(node.operator) is cst.Not and isinstance(value, TupleValue) and value.kind in (
                None, tuple, list):
            return exact(not value.items)      # `not args`: whether it is empty, per call
        if type(node.operator) is cst.Not:
            self._truth(value, node)
            # per example `not x` is a Python bool, whatever x is (`(not a) + True` is 2)
            return Value(True, True)
        return self._lanes_of(fn, [value], self._weak_result([value], self._must_not_raise(
            fn, [value], node, lambda: f"`{_code(node.operator).strip()}`")))

    def _weak_result(self, operands, out):
        """The batched result ``out`` of an operator: where every operand is a Python number
        per example (its example one: ``math.sqrt(y) * 2``, ``TABLE[k] * 2``) and Python
        numbers are weak (`vmap` on NumPy or JAX), a Python number per example too, weak in
        what it meets next (``x + math.sqrt(y) * 2 - math.floor(y)`` of a float32 ``x`` is
        float32), as `analysis.python_numbers` tells the rules; else strongly typed."""
        if type(out) in (float, int, complex, bool) and all(
                isinstance(v, Value) and type(v.example) in (float, int, complex, bool)
                for v in operands) and not getattr(self, "python_semantics", None) and \
                self.registry.primitives.weak_python_numbers and (
                    type(out) is not int or -2 ** 63 <= out < 2 ** 63):
            return Value(True, out)
        return batched_like(out)

    def boolean(self, node: cst.BooleanOperation, env):
        left = self.expr(node.left, env)
        is_and = type(node.operator) is cst.And
        decided = self._decided(node, node.left, left)
        if decided is not None:
            # `False and ...`, `True or ...`: Python never evaluates the right side; else
            # the value is the right side's
            return left if decided != is_and else self.expr(node.right, env)
        taken = self._representative_truth(left)
        raising = self.__dict__.get("_statement_raises", False)
        with self._reached(taken is None or taken == is_and), self._on_some_lanes(
                node.right, left.batched):
            right = self.expr(node.right, env)
        right_raises, self._statement_raises = self._arm_raises(raising)
        if right_raises:
            # Python raises for every example that evaluates the right side (`b or (0.5 &
            # b)` of a float `b` the same for every example): the value is the left side's
            # (the left side, the same for every example, decides whether it is evaluated)
            return left
        if taken is not None and taken != is_and:
            # for the representatives Python stops at the left side, so the whole is as true
            # as it on every lane (a loop test `j + 1 < len(v) and ...`: never entered)
            self.short_circuits[node] = taken
        if not (left.batched or right.batched):
            if left.known and right.known:
                return unbatched((left.example and right.example) if is_and
                                 else (left.example or right.example), all_exact(left, right))
            return unbatched(UNKNOWN)
        for side in (left, right):
            if isinstance(side, TupleValue):
                raise Unsupported("`and`/`or` on tuples of per-example values", node)
        nones = [side for side in (left, right) if side.example is None]
        if len(nones) == 1 and nones[0].exact and not (
                not is_and and id(node) in self._truth_tests()):
            # per example one side or the other: a number on some examples, None on others
            # (only the truth of `x or None` is read where it is a test: that of `x`)
            raise Unsupported("`and`/`or` of a per-example value and None: it is None on "
                              "some examples and the value on others, which one array "
                              "cannot hold", node, "test `w is None` separately with `if`")
        self._truth(left, node.left)
        if left.batched or not left.known:
            self._truth(right, node.right)
        if left.kind == "b" and right.kind == "b" and not mixed_kinds(left.example,
                                                                      right.example):
            # the representative lane: what Python stops at, where the left side decides
            return batched_like(np.bool_(self.short_circuits.get(node, True)))
        # (a bool of another type on some lanes: under PyTorch a Python bool on some, a
        # bool tensor on others, `abstract.mixed_kinds`)
        joined = join(left, right, force_batched=True)
        inexact_join(joined, (left, right), "the `and`/`or` gives", node, node=node)
        return joined

    def _type_error_for_every_example(self, node, fn, left, right) -> bool:
        """Whether Python's operator ``fn`` raises TypeError on the values the same for every
        example ``left`` and ``right`` (``1j < 2``, ``1j % 2``), numbers whose types alone
        decide it, in code every example runs (`Analysis.raised_for_every_example`)."""
        values = (left, right)
        if not all(isinstance(v, Value) and v.known and (
                type(v.example) in (bool, int, float, complex) or
                isinstance(v.example, np.generic)) for v in values):
            return False
        if not (self.every_lane_runs() or self.raised_before_here(node)):
            return False
        try:
            fn(left.example, right.example)
        except TypeError:
            return True
        except Exception:
            return False
        return False

    def comparison(self, node: cst.Comparison, env):
        operands = [self.expr(node.left, env)]
        operands += [self.expr(c.comparator, env) for c in node.comparisons]
        for o in operands:
            if isinstance(o, TupleValue) and o.batched and o.keys is not None and \
                    record_class(o.kind) and not issubclass(o.kind, tuple):
                raise Unsupported(f"comparing an instance of `{record_of(o.kind).__name__}` "
                                  "made from per-example values (its class decides what "
                                  "`==` or `<` means)", node, "compare its fields")
        if len(operands) == 2 and type(node.comparisons[0].operator) in (cst.Is, cst.IsNot):
            if any(has_fact(o, NONE_ON_SOME_LANES) for o in operands):
                op = _code(node.comparisons[0].operator).strip()
                raise Unsupported(f"`{op}` of a value that is None on some examples and a "
                                  "number on others (a conditional expression with a "
                                  "per-example test and a None arm): the batch holds one "
                                  "array, which cannot say which examples are None", node,
                                  "test the condition itself, or bind the name with an "
                                  "`if` statement (`y = None` / `if c: y = x`)")
            identical = _identical(*operands)
            if identical is not None:    # `w is not None` where w is known not to be None
                return exact(identical == (type(node.comparisons[0].operator) is cst.Is))
            if any(isinstance(o, Value) and o.exact and type(o.example) is bool
                   for o in operands) and any(o.batched for o in operands):
                op = _code(node.comparisons[0].operator).strip()
                raise Unsupported(f"`{op}` of a per-example truth value and True/False: per "
                                  "example it is a Python bool on some calls (`x > 0` of a "
                                  "Python float: `is True` where it holds) and a NumPy bool "
                                  "on others (never `True` itself), which the batch cannot "
                                  "tell apart", node,
                                  "test the value itself (`if c:` / `if not c:`) or compare "
                                  "with ==")
        if not any(o.batched for o in operands):
            out = True
            try:
                for a, c, b in zip(operands, node.comparisons, operands[1:]):
                    out = out and self.registry.backend.on_examples(
                        COMPARE_FUNCS[type(c.operator)])(a.example, b.example)
                return unbatched(out if all(o.known for o in operands) else UNKNOWN,
                                 all_exact(*operands))
            except (KeyError, Exception):
                for a, c, b in zip(operands, node.comparisons, operands[1:]):
                    compare = COMPARE_FUNCS.get(type(c.operator))
                    if compare is not None and self._type_error_for_every_example(
                            node, compare, a, b):
                        return self.raised_for_every_example(node)
                    held = _evaluate(compare, a.example, b.example) if compare is not None \
                        else UNKNOWN
                    if type(held) not in (bool, np.bool_) or not held:
                        break   # (Python stops at the first false comparison)
                return unbatched(UNKNOWN)
        if len(node.comparisons) == 1 and type(node.comparisons[0].operator) in (
                cst.In, cst.NotIn):
            _membership_of_numbers(node, *operands)
        for c in node.comparisons:
            if type(c.operator) not in COMPARE_FUNCS or type(c.operator) in (cst.Is,
                                                                             cst.IsNot):
                raise Unsupported(f"`{_code(c.operator).strip()}` on per-example values", node,
                                  "compare values with == / != / < ...")
        if len(node.comparisons) > 1:
            for a, b in zip(operands, operands[1:]):
                for v in (a, b):
                    self._truth(v, node)
        result, outs = np.True_, []
        for a, c, b in zip(operands, node.comparisons, operands[1:]):
            out = _evaluate(self.registry.backend.on_examples(COMPARE_FUNCS[type(c.operator)]),
                            a.example, b.example)
            if out is not UNKNOWN:
                outs.append(out)
                result = out if result is np.True_ else _evaluate(np.logical_and, result, out)
        if len(outs) > 1 and all(type(o) is bool for o in outs) and result is not UNKNOWN:
            # (`3 < r < 10` of Python numbers is `3 < r and r < 10`: a Python bool per
            # example, as each comparison is; PyTorch's `-` of it is an int's)
            result = bool(result)
        value = batched_like(result)
        if len(node.comparisons) == 1 and len(outs) == 1:
            self._lanes_of(self.registry.backend.on_examples(
                COMPARE_FUNCS[type(node.comparisons[0].operator)]), operands, value)
        if any(mixed_kinds(a, b) for a in outs for b in outs):
            # `x < 1 < 10` is `x < 1 and 1 < 10`: per example the first false comparison or
            # the last, which under PyTorch is a bool tensor on some lanes and a Python bool
            # on others (`abstract.mixed_kinds`)
            value = Value(True, np.bool_(True))
            MIXED_KINDS.add(value)
            note_mixed_parts(value, *[Value(True, out) for out in outs])
        return value

    def ifexp(self, node: cst.IfExp, env):
        test = self.container_truth(self.expr(node.test, env))
        self._truth(test, node.test)
        decided = self._decided(node, node.test, test)
        if decided is not None:
            return self.expr(node.body if decided else node.orelse, env)
        taken = self._representative_truth(test)
        self._batched_depth += test.batched       # both sides run on every lane
        raising = self.__dict__.get("_statement_raises", False)
        try:
            with self._reached(taken is not False), self._on_some_lanes(node.body,
                                                                        test.batched):
                body = self.expr(node.body, env)
            body_raises, self._statement_raises = self._arm_raises(raising)
            with self._reached(taken is not True), self._on_some_lanes(node.orelse,
                                                                       test.batched):
                orelse = self.expr(node.orelse, env)
            orelse_raises, self._statement_raises = self._arm_raises(raising)
        finally:
            self._batched_depth -= test.batched
        if body_raises or orelse_raises:
            # an arm Python raises for on every example that takes it (`(0.5 & b) if b
            # else ...` of a float `b` the same for every example): the statement ends
            # only where both do; else its value is the other arm's (the test, the same
            # for every example, stays Python's: a call that takes the raising arm raises)
            self._statement_raises = raising or (body_raises and orelse_raises)
            if not self._statement_raises:
                return orelse if body_raises else body
        if test.batched and isinstance(body, Value) and isinstance(orelse, Value) and \
                body.known and orelse.known and not body.batched and not orelse.batched \
                and all(v.exact or guarded_arm(arm, self.tree, self.params)
                        for v, arm in ((body, node.body), (orelse, node.orelse))):
            # (the keys written into the code are those the dicts have: constants, or a
            # module's dicts, guarded by their items)
            keys = choosable(node, body.example, orelse.example)
            if keys is not None:
                raise ChosenItems("a per-example choice between two dicts", node,
                                  "choose each item with its own conditional expression",
                                  keys=keys)
        if test.batched and not any(isinstance(v, Value) and v.known and v.example is None
                                    for v in (body, orelse)):
            # (`s if x > 5 else x * 2`: per example a string or an int, which numpy.vectorize
            # stores by the first example's type; one array of strings would not. A number
            # or None is stored by the first example's type as numpy.vectorize does: `join`)
            no_per_example_choice_between(body, orelse, "the conditional expression gives",
                                          node)
        joined = join(body, orelse, force_batched=test.batched)
        if test.batched and any(isinstance(v, Value) and v.known and v.example is None
                                for v in (body, orelse)):
            # (`None if x > 0 else x`: None on some examples, a number on others, which an
            # identity test must not take for a number on every example: `_identical`)
            record_fact(joined, NONE_ON_SOME_LANES)
        if test.batched:
            inexact_join(joined, (body, orelse), "the conditional expression gives", node,
                         node=node)
            if getattr(self, "python_semantics", None) and joined.batched and isinstance(
                    body, Value) and isinstance(orelse, Value) and mixed_kinds(
                        body.example, orelse.example):
                # (`vectorize`: each example the Python number of its arm, a Python bool
                # on some: what `_lane_types` checks a NumPy function of it for)
                note_mixed_parts(joined, body, orelse)
        elif joined.batched and isinstance(body, Value) and isinstance(orelse, Value) and (
                mixed_kinds(body.example, orelse.example) or EXAMPLE_SEMANTICS.get()
                is not None and mixed_lane_types(body.example, orelse.example)):
            # a test the same for every example (``n if n else (b > 0)`` of a Python int
            # ``n``): each example has the type of the arm the call takes, as after an `if`
            # statement (`environments.join_envs`), the batch the joined type; numpy.vectorize's
            # output type is then the arm's the call takes (`SpecFacts.joins`: learned from
            # the first example, ``(1 if k > 1 else x) + 1`` an int where k > 1)
            note_fact("joins")
            MIXED_KINDS.add(joined)
            note_mixed_parts(joined, body, orelse)
        arm = body if taken else orelse
        if taken is not None and joined.batched and isinstance(joined, Value) \
                and joined.known and isinstance(arm, Value) and arm.known:
            # the representative lane takes the arm Python takes for the representatives
            example = _evaluate(lambda a: np.asarray(a).astype(joined.dtype), arm.example)
            if example is not UNKNOWN and example.shape == np.shape(joined.example):
                lane = Value(True, example[()])
                if joined in DEFERRED_JOINS:    # (an assignment's: refused where read)
                    DEFERRED_JOINS[lane] = DEFERRED_JOINS[joined]
                if joined in MIXED_KINDS:       # (its lanes' own types: `_lane_types`)
                    MIXED_KINDS.add(lane)
                if joined in MIXED_PARTS:
                    MIXED_PARTS[lane] = MIXED_PARTS[joined]
                    if joined in INT_PART_SIZES:
                        INT_PART_SIZES[lane] = INT_PART_SIZES[joined]
                return lane
        return joined

    def _arm_raises(self, before: bool) -> tuple:
        """(whether the part of an expression just analysed raises for every example that
        runs it, `Analysis.raised_for_every_example`; the flag as it was before it)."""
        return self.__dict__.get("_statement_raises", False) and not before, before

    @contextlib.contextmanager
    def _on_some_lanes(self, part, per_example: bool):
        """While analysing ``part``, an operand Python evaluates on some examples only
        (the right side of `and`/`or` after a per-example left side, a branch of a
        conditional expression with a per-example test)."""
        stack = self.__dict__.setdefault("_partial_operands", [])
        if per_example:
            stack.append(part)
        try:
            yield
        finally:
            if per_example:
                stack.pop()

    def _walrus_on_some_lanes(self, node: cst.NamedExpr) -> None:
        """``(t := e)`` that Python evaluates on some examples only: the batched code
        evaluates it on every lane, so ``t`` must not be read (or bound) anywhere outside
        that operand, where the other examples keep their old ``t``."""
        stack = self.__dict__.get("_partial_operands")
        if not stack or type(node.target) is not cst.Name:
            return
        name, part = node.target.value, stack[-1]

        def uses(tree) -> int:       # (other walruses' targets bind it where they are)
            targets = {id(n.target) for n in walk(tree) if type(n) is cst.NamedExpr}
            return sum(1 for n in walk(tree) if type(n) is cst.Name and n.value == name
                       and id(n) not in targets)

        if uses(self.tree.body) > uses(part):
            raise Unsupported(f"`{name} := ...` runs on some examples only (on the right of "
                              "`and`/`or`, or in a branch of a conditional expression, whose "
                              f"deciding value differs per example), and `{name}` is used "
                              "elsewhere: the examples that skip it keep their old value",
                              node, f"assign `{name}` in a statement of its own, under an "
                                    "`if` where it is conditional")

    def _decided(self, node, test_node, test) -> bool | None:
        """The truth of a test known exactly (the same on every call of this
        specialization: literals, globals, the values the code is specialized on): Python
        runs only one side of it, so only that side is analysed, and `python_conditions`
        keeps only that side. None otherwise, and where a loop's passes disagree."""
        outcome = None
        if not test.batched and test.exact and not any(
                type(n) is cst.NamedExpr or self._helper_of_examples(n)
                for n in walk(test_node)):
            try:
                outcome = bool(test.example)
            except Exception:
                outcome = None
        previous = self.decided.get(node, outcome)
        self.decided[node] = outcome if previous is outcome else None
        return outcome

    def _truth_tests(self) -> set:
        """ids of the expressions of the function whose truth alone is read: the tests of
        ``if``/``while``/conditional expressions, operands of ``not``, and the operands of
        ``and``/``or`` that are such a test."""
        found = self.__dict__.get("_truth_test_ids")
        if found is None:
            found = set()
            stack = []
            for n in walk(self.tree):
                t = type(n)
                if t in (cst.If, cst.While, cst.IfExp):
                    stack.append(n.test)
                elif t is cst.UnaryOperation and type(n.operator) is cst.Not:
                    stack.append(n.expression)
            while stack:
                n = stack.pop()
                found.add(id(n))
                if type(n) is cst.BooleanOperation:
                    stack += [n.left, n.right]
            self.__dict__["_truth_test_ids"] = found
        return found

    def chain_truth(self, node, env) -> bool | None:
        """The truth of an ``if``'s test that is an ``and`` chain with an operand known
        exactly to be false (``rho and fase and drho`` with ``fase=None``), or an ``or``
        chain with one known true, where the operands before it are names or literals
        (reading them does nothing): the test is that for every example, whatever the
        others hold (the chain's value differs per example, maybe None on some: its truth
        does not). None otherwise; the operands up to the deciding one are evaluated."""
        operator = type(node.operator)
        operands = []
        while type(node) is cst.BooleanOperation and type(node.operator) is operator:
            operands.append(node.right)
            node = node.left
        operands.append(node)
        for operand in reversed(operands):
            if not _plain_test(operand):
                return None
            value = self.expr(operand, env)
            if not isinstance(value, Value) or not value.known or type(
                    operand) is cst.Comparison and value.kind != "b":
                return None         # (`None < 0` raises: its value is not known)
            if not value.batched and value.exact:
                try:
                    truth = bool(value.example)
                except Exception:
                    return None
                if truth == (operator is cst.Or):
                    return truth
        return None

    @staticmethod
    def _representative_truth(test) -> bool | None:
        """Which way a test the same for every example goes for the arguments'
        representatives (its code stays a Python condition); None where it differs per
        example or is unknown. (Code after a per-example test that is the same on every
        lane for these arguments is not skipped: its merge evaluates it on every lane.)"""
        if test.batched or not test.known or isinstance(test, TupleValue):
            return None
        try:
            return bool(test.example)
        except Exception:
            return None

    @contextlib.contextmanager
    def _reached(self, reached: bool):
        """Code that Python runs only where a condition the same for every example holds
        (not known exactly, only from the arguments' representatives), and which it would
        not run for these: ``v[j + 1]`` under ``j + 1 < len(v)``. Indexes out of the
        representatives' bounds there are no reason to refuse."""
        self._unreached += not reached
        try:
            yield
        finally:
            self._unreached -= not reached

    def attribute(self, node: cst.Attribute, env):
        base = self.expr(node.value, env)
        attr = node.attr.value
        if isinstance(base, TupleValue) and base.keys is not None and base.kind is not dict:
            try:
                return base.item_for(attr)     # a field of a namedtuple
            except KeyError:
                pass
            member = record_member(base, attr)
            if isinstance(member, property):
                return self.record_property(node, base, member.fget)
            constant = class_constant(base, attr)
            if constant is not None:
                return constant     # (a number or string of the class: `self.K`)
            if isinstance(member, (types.FunctionType, classmethod, staticmethod)):
                raise MethodAlias(f"the method `.{attr}` of a per-example record read "
                                  "without calling it", node,
                                  f"call it where it is read (`{_code(node)}(...)`)")
        if base.batched:
            rule = self.registry.attributes.get(attr)
            if rule is None or isinstance(base, TupleValue):
                raise Unsupported(f"attribute `.{attr}` of a per-example value is not "
                                  "supported yet", node)
            site = Site(args=[base], nodes=[], original=node)
            if rule.infer is not None:
                return rule.infer(site)
            return batched_like(_evaluate(getattr, base.example, attr))
        if not base.known:
            return unbatched(UNKNOWN)
        try:
            value = self.registry.backend.example_attribute(base.example, attr)
            self._guard_attribute(node, env, base.example, value)
            return unbatched(value, base.exact and _immutable(value) and (
                not isinstance(base.example, types.ModuleType) or _library(base.example)
                or callable(value) or isinstance(value, types.ModuleType)))
        except AttributeError:
            raise Unsupported(f"`{_code(node.value)}` has no attribute `{attr}`", node) from None

    def _guard_attribute(self, node: cst.Attribute, env, owner, value) -> None:
        """Remember ``root.a.b`` read from a free name (a global or closure, not a library
        module): the specialization holds what it resolved to (a helper it transformed, a
        module or class, a constant of a module or class), so rebinding the attribute must
        make a new one (`AttributePath`). Not where each read gives a new object (a
        property, a builtin method of an array): no specialization could rely on one."""
        attrs = [node.attr.value]
        root = node.value
        while type(root) is cst.Attribute:
            attrs.append(root.attr.value)
            root = root.value
        if type(root) is not cst.Name or root.value in env.values:
            return
        found, root_value, _ = self.source.lookup(root.value)
        if not found or isinstance(root_value, types.ModuleType) and _library(root_value):
            return
        if not (callable(value) or isinstance(value, types.ModuleType) or isinstance(
                owner, (types.ModuleType, type)) and _immutable(value)):
            # an array or number of an instance (`model.weights`) is read when the code runs
            # (a guard would make a new specialization each time a program rebinds it)
            return
        stable = stable_attribute(owner, value)
        if stable is not stable_attribute(owner, getattr(owner, node.attr.value, None)):
            return
        self.free_attributes[(root.value, tuple(reversed(attrs)))] = stable

    def subscript(self, node: cst.Subscript, env):
        if type(node.value) is cst.Subscript and len(node.slice) == 1 and type(
                node.slice[0].slice) is cst.Index:
            # `NESTED[i][j]`: the row `NESTED[i]` is read by one index only
            self.__dict__.setdefault("_indexed_rows", set()).add(node.value)
        base = self.expr(node.value, env)
        parts = []          # abstract value of each index component (None for slices)
        examples = []       # the index as it would be per example
        for element in node.slice:
            sl = element.slice
            if isinstance(sl, cst.Index):
                value = self.expr(sl.value, env)
                parts.append(value)
                examples.append(value.example if not value.batched else (
                    np.zeros(np.shape(value.example), np.asarray(value.example).dtype)[()]
                    if value.known else UNKNOWN))
            else:
                bounds = [self.expr(p, env) if p is not None else unbatched(None)
                          for p in (sl.lower, sl.upper, sl.step)]
                if any(b.batched for b in bounds):
                    return self._slice_selection(node, base, bounds)
                parts.append(None)
                examples.append(slice(*[b.example for b in bounds]))
        if type(node.value) is cst.Name and node.value.value in self.list_arrays:
            check_index(node, parts)      # a list's index, as the array of its items takes it
            user = _bounded_name(node)
            if user is not None:
                # (the index `passes.ragged_tables.bounded_index` spelled from the user's;
                # the subscript is the engine's, its sequence's name the user's)
                try:
                    check_index(node, [self.values.get(user)])
                except Unsupported as problem:
                    problem.node = node.value
                    raise
        index_example = examples[0] if len(examples) == 1 and not (
            len(node.slice) == 1 and isinstance(node.slice[0].comma, cst.Comma)) \
            else tuple(examples)
        if isinstance(base, TupleValue) and base.kind is not None and issubclass(
                base.kind, dict):
            if len(parts) == 1 and parts[0] is not None and parts[0].exact:
                try:
                    return base.item_for(parts[0].example)
                except (KeyError, TypeError):
                    raise Unsupported(f"key {parts[0].example!r} is not in this dict "
                                      f"(its keys: {', '.join(map(repr, base.keys))})",
                                      node) from None
            raise Unsupported("looking up a dict of per-example values with a key that is "
                              "not a constant", node, "use a constant key")
        if isinstance(base, TupleValue):
            if len(parts) == 1 and parts[0] is not None and parts[0].exact \
                    and isinstance(parts[0].example, int):
                try:
                    return base.items[parts[0].example]
                except IndexError:
                    if self._unreached:      # Python's IndexError, where it gets there
                        return unbatched(UNKNOWN)
                    raise Unsupported("tuple index out of range", node) from None
            if base.batched and len(parts) == 1 and parts[0] is not None and not parts[
                    0].batched and parts[0].kind in "iu" and uniform_items(base) is not None:
                # items alike (`*args` of one dtype): the item at a position the same for
                # every example is an array like each of them (Python's IndexError as is)
                return uniform_items(base)
            if base.batched:
                # (a shared index: the `if`s stay Python, one item for every example)
                if len(parts) == 1 and parts[0] is not None and \
                        parts[0].kind in "iu" and parts[0].rank == 0 and base.items and (
                            base.kind is None or issubclass(base.kind, (tuple, list))):
                    # (`transform` retries with the item picked by an `if` per position)
                    raise PickedPerExample("indexing a tuple of per-example values with "
                                           "a computed index", node, "use a constant index",
                                           length=len(base.items))
                raise Unsupported("indexing a tuple of per-example values with a computed "
                                  "index", node, "use a constant index")
        batched_parts = [p for p in parts if p is not None and p.batched]
        if not base.batched and batched_parts and isinstance(
                base.example, (list, tuple, dict, str)):
            return self._lookup_per_example(node, base, parts)
        if not base.batched and not batched_parts:
            if base.known and all(e is not UNKNOWN for e in examples):
                return unbatched(self._weak_item(node, _evaluate(
                    lambda b, i: b[i], base.example, index_example)),
                                 base.exact and all(p is None or p.exact for p in parts))
            return unbatched(UNKNOWN)
        for p in batched_parts:
            if p.kind == "b":
                return self._selection(node, base, parts)
            if p.kind not in "iu?":
                raise Unsupported("indexing with per-example values that are not integers",
                                  node, "convert the index with int() or .astype(int)")
        if not base.known or any(e is UNKNOWN for e in examples):
            return Value(True, UNKNOWN)
        try:
            out = base.example[index_example]
        except IndexError as exc:
            if not self._unreached:
                raise Unsupported(f"this index does not fit the per-example value ({exc})",
                                  node) from None
            # not reached for these arguments: the type of an element is what matters
            return batched_like(_evaluate(lambda b, i: b[i], base.example,
                                          _in_bounds(index_example)))
        except (TypeError, ValueError) as exc:
            raise Unsupported(f"this index does not fit the per-example value ({exc})",
                              node) from None
        if isinstance(out, np.generic) and base.batched and not batched_parts \
                and type(node.value) is cst.Name:
            # per example a NumPy scalar (a copy); on the batch `y[:, 0]` is a view
            self._scalar_reads[node] = node.value.value
        elif base.batched and batched_parts and type(node.value) is cst.Name and (
                isinstance(out, np.ndarray) and out.ndim or isinstance(out, np.generic)
                and self.registry.primitives.item_views) and all(
                p is None or p.kind in "iu" and np.ndim(p.example) == 0 for p in parts):
            # basic indexing per example (integers): a view (a row; PyTorch's 0-d item);
            # on the batch a gather, `y[arange, i]`, a copy (`Aliasing._bind_scalar_reads`)
            self._gathered_views[node] = node.value.value
        item = self._weak_item(node, out)
        # (a Python number per example keeps its example weak: `calls._python_number_result`)
        return batched_like(out) if item is out else Value(True, item)

    def _weak_item(self, node: cst.Subscript, out):
        """An item of a list of Python numbers read only by index (`rules.lists.weak_list`):
        the Python number it is per example (weakly typed: NEP 50), not the array's NumPy
        number."""
        if type(node.value) is cst.Name and node.value.value in getattr(
                self, "weak_lists", ()) and node.value.value not in self.strong_lists and \
                isinstance(out, np.generic) and out.dtype.kind in "bifc":
            return out.item()
        return out

    def _slice_selection(self, node: cst.Subscript, base, bounds):
        """``v[lo:hi]`` of a vector (per example or the same for every example) with a
        per-example integer bound: a different number of elements per example, so only a
        reduction of it is vectorized, as of a selection (`_selection`) by the mask of the
        positions the slice keeps (`Backend.slice_mask`: Python's negative bounds, clamped
        to the vector)."""
        lower, upper, step = bounds
        sl = node.slice[0].slice if len(node.slice) == 1 else None
        example = base.example if base.known else None
        if isinstance(base, TupleValue) and not base.batched and all(
                i.exact and not i.batched for i in base.items):
            example = [i.example for i in base.items]      # a tuple of the module
        if not base.batched and type(example) in (list, tuple) and example and (
                all(type(v) is float for v in example) or all(
                type(v) is int and abs(v) < 2 ** 31 for v in example)):
            # a list of the module of Python floats (or of small ints: their sums fit
            # int64) is sliced and reduced as the array of its items
            if type(example[0]) is int:
                self.int_sequence_slices.add(node)
            example = np.asarray(example)
            self.sequence_slices.add(node)
        if sl is None or not isinstance(sl, cst.Slice) or step.batched or not (
                step.example is None or step.exact and step.example == 1) or not isinstance(
                example, np.ndarray) or example.ndim != 1 or base.rank not in (1, None) or \
                "slice_selection" not in self.registry.operators or any(
                b.batched and (b.kind not in "iu" or b.rank != 0) or not b.batched and not (
                    b.example is None or isinstance(b.example, (int, np.integer)) and not
                    isinstance(b.example, bool)) for b in (lower, upper)):
            raise Unsupported("a slice whose bounds differ per example has a different "
                              "length per example (only a reduction of a slice of a vector "
                              "with integer bounds and no step can be vectorized)", node,
                              "use np.where with an index comparison instead")
        inner = self._ragged_in(node.value)
        self.ragged.add(node)
        self.selections[node] = inner
        self.slice_selections.add(node)
        return Value(True, example)

    def _selection(self, node: cst.Subscript, base, parts):
        """``v[mask]`` of a per-example vector and a per-example boolean mask of its shape:
        a different number of elements per example, so only a reduction of it can be
        vectorized (`Calls.ragged_operands`): its value is ``v`` itself, padded, and the
        reduction takes the mask (`array.masked_selection`); anything else that reads it is
        refused where it does (`passes/batch_rules.py`)."""
        mask = parts[0] if len(parts) == 1 else None
        if mask is not None and mask.batched and mask.kind == "b" and mask.rank == 0 and (
                base.batched and base.rank == 0):
            # (`transform` retries with the statement under `if mask:`, when it is a write
            # `a[mask] = e` whose reads by the mask are ufuncs' operands)
            refusal = Unsupported("indexing with a per-example boolean mask gives a "
                                  "different number of elements per example (only a "
                                  "reduction of a vector's selection by a mask of its "
                                  "shape can be vectorized)", node,
                                  "use np.where(mask, x, 0) or np.sum(x, where=mask)")
            raise MaskedScalarWrite(refusal.message, node, refusal.suggestion)
        if mask is None or not base.batched or base.rank != 1 or mask.rank != 1 or not (
                base.known and mask.known) or np.shape(base.example) != np.shape(
                mask.example) or "masked_selection" not in self.registry.operators:
            raise Unsupported("indexing with a per-example boolean mask gives a different "
                              "number of elements per example (only a reduction of a "
                              "vector's selection by a mask of its shape can be vectorized)",
                              node, "use np.where(mask, x, 0) or np.sum(x, where=mask)")
        # a selection of a selection (`pos = real[real > 0]`, `real` itself selected): both
        # masks hold; a mask may read the selection it selects from, nothing else ragged
        inner = self._ragged_in(node.value)
        if not set(map(id, self._ragged_in(node.slice[0].slice.value))) <= set(
                map(id, inner)):
            raise Unsupported("a selection by a mask made from a value of another length per "
                              "example", node, "select with a mask of the same vector")
        self.ragged.add(node)
        self.selections[node] = inner
        return Value(True, base.example)

    def _lookup_per_example(self, node: cst.Subscript, base, parts):
        """``TABLE[k]`` with a per-example ``k`` into a list or tuple of numbers the same for
        every example: a gather from the array of its items (`array.index`; Python's
        negative indexes and IndexError are NumPy's too). A dict looked up by a per-example
        key runs per example where fallbacks are allowed; anything else is refused."""
        seq = base.example
        what = _code(node.value)
        # a choice per example between the items, whose types may differ (`(1, 2.5)[k]` is an
        # int on some examples, a float on others): numpy.vectorize's first example decides
        # the output type (`SpecFacts.joins`, `Generated.mixed_types`)
        items = seq.values() if isinstance(seq, dict) else seq if isinstance(
            seq, (list, tuple)) else ()
        if len({number_kind(v) if _is_number(v) else type(v) for v in items}) > 1:
            note_fact("joins")
            note_mixed_types()
        if isinstance(seq, str):
            seq = tuple(seq)       # "ABCD"[k]: its characters (`array.index`)
        if isinstance(seq, dict) and len(parts) == 1 and parts[0] is not None and \
                parts[0].rank:
            # per example an array is no dict key (TypeError: unhashable), where the lookup
            # of every item would give an array
            raise Unsupported(f"`{what}` is a dict looked up by a per-example array (per "
                              "example Python raises TypeError: unhashable)", node,
                              "look up one number per example (`TABLE[k[0]]`)", kind="raises")
        if isinstance(seq, dict) and len(parts) == 1 and parts[0] is not None and \
                parts[0].batched and type(parts[0].example) not in (int, float, bool) and \
                not getattr(self, "python_semantics", None) and \
                not self.registry.primitives.keys_by_value:
            # per example the key is a 0-d tensor, which hashes by identity: no key is found
            raise Unsupported(f"`{what}` is a dict looked up by a per-example tensor, which "
                              "per example hashes by identity (the loop finds no key: "
                              "KeyError)", node, f"look it up by the number: "
                              f"`{what}[int(k)]` or `{what}[k.item()]`")
        if isinstance(seq, dict) and seq and len(parts) == 1 and (all(
                type(k) in (int, float, bool) for k in seq) or all(
                type(k) is str for k in seq) and parts[0].kind == "U") and len(
                {type(v) for v in seq.values()}) == 1 and type(next(iter(seq.values()))) in (
                int, float, bool, str):
            # numbers or strings of one type keyed by numbers, or by strings with a
            # per-example string key: a binary search of the sorted keys (`array.index`,
            # `pymath.lookup`), Python's KeyError where one is missing; a Python number
            # per example where the backend's rules read it as one (`python_number_items`)
            first = next(iter(seq.values()))
            if type(first) in (int, float) and not getattr(self, "python_semantics", None) \
                    and self.registry.primitives.python_number_items:
                return Value(True, np.asarray(list(seq.values()))[0].item())
            return batched_like(np.asarray(list(seq.values()))[0])
        if isinstance(seq, dict):
            if self.allow_fallback and all(_is_number(v) for v in seq.values()):
                self.fallback_calls[node] = f"`{what}[...]` is a dict looked up per example"
                return batched_like(np.asarray(list(seq.values()) or [0.0])[0])
            raise Unsupported(f"`{what}` is a dict looked up by a per-example key", node,
                              "use a list or array indexed by an integer (e.g. "
                              "`np.array([...])[k]`), compute the value with np.where, or "
                              "pass fallback='warn' to look it up per example")
        if len(parts) == 1 and parts[0].kind in "iu" and parts[0].rank == 0 and \
                node in self.__dict__.get("_indexed_rows", ()) and _list_rows(seq):
            # `NESTED[i][j]` of a table of lists of numbers, all of one length: the row of
            # each example gathered from the 2-D array of the items (Python's IndexError and
            # negative indexes are NumPy's), then indexed as a per-example vector; a row
            # read otherwise (a list per example: `row * 2` repeats it) stays refused
            return batched_like(np.asarray(seq)[0])
        if len(parts) != 1 or not (all(_is_number(v) for v in seq) or _gatherable(seq)):
            raise Unsupported(f"`{what}` is indexed by a per-example integer, and only a flat "
                              "list or tuple of numbers can be gathered from", node,
                              f"make `{what}` a NumPy array (np.array(...)) of one dtype")
        (part,) = parts
        if part.kind not in "iu" or part.rank > 0:
            raise Unsupported(f"`{what}` is indexed by a per-example value that is not an "
                              "integer", node, "convert the index with int()")
        if _rows(seq):
            # a row is a tuple per example: its items, each gathered (`array.index`)
            return TupleValue(tuple(batched_like(v) for v in np.asarray(seq)[0]))
        if seq and all(type(v) is str for v in seq):
            # one string per example, as a string piece makes (`string_piece`)
            return Value(True, np.str_(seq[0]))
        if seq and len({type(v) for v in seq}) == 1 and type(seq[0]) in (
                int, float, complex) and not getattr(self, "python_semantics", None) and (
                    self.registry.primitives.weak_python_numbers or
                    self.registry.primitives.python_number_items):
            # `vmap`: an item of a table of Python numbers of one type is that Python number
            # per example, weak (NEP 50: ``y * TABLE[k]`` of a float32 ``y`` is float32), as
            # `analysis.python_numbers` tells the rules, which convert it where it meets a
            # narrower type (`rules.operators.narrow_weak_operands`)
            return Value(True, np.asarray(seq)[0].item())
        return batched_like(np.asarray(seq if seq else [0.0])[0])



_SINGLETONS = (None, True, False, Ellipsis, NotImplemented)

MEMBERSHIP_ITEMS = 16
"""The most items of a constant tuple, list or set that ``x in C`` is written out for."""


def _membership_of_numbers(node: cst.Comparison, left, right) -> None:
    """Raises `MembershipOfNumbers` for ``x in C`` of a per-example number named ``x`` and a
    constant tuple, list, set or frozenset ``C`` of Python ints (within int64), floats and
    bools: per example Python tests ``x is c or x == c`` for each item (a set hashes first,
    and equal numbers hash alike), which for a number is ``x == c``, except for a NaN item,
    which only ``x`` itself is (never, where ``x`` is fresh per example); else returns."""
    if type(node.left) is not cst.Name or not (isinstance(left, Value) and left.batched and
                                                isinstance(left.example, (np.number, np.bool_))):
        return
    display = node.comparisons[0].comparator
    if isinstance(right, TupleValue) and right.keys is None and type(display) in (
            cst.Tuple, cst.List, cst.Set) and len(display.elements) == len(right.items):
        _membership_of_a_display(node, left, right, display)
        return
    if isinstance(right, Value) and not right.batched and not right.exact and type(
            right.example) in (list, set, dict) and all(_is_number(v) for v in right.example):
        what = type(right.example).__name__
        raise Unsupported(f"`{_code(node.comparisons[0].operator).strip()}` of a {what} the "
                          "code does not create: it may change in place between calls, "
                          "which the code made for the first would not see", node,
                          "make it a tuple or a frozenset")
    if not (isinstance(right, Value) and not right.batched and right.exact and right.known
            and type(right.example) in (tuple, list, set, frozenset)
            and 0 < len(right.example) <= MEMBERSHIP_ITEMS):
        return
    literals, nan_items = [], False
    for item in right.example:
        if type(item) is float and math.isnan(item):
            if not has_fact(left, FRESH_PER_EXAMPLE):
                _maybe_itself(node, node.comparisons[0].comparator)
            nan_items = True
            continue
        if type(item) is float:
            literals.append(repr(item) if math.isfinite(item) else f'float("{item!r}")')
        elif type(item) is bool or type(item) is int and -2 ** 63 <= item < 2 ** 63:
            literals.append(repr(item))
        else:
            return
    if literals:
        if nan_items:
            note_fact("identities")
        raise MembershipOfNumbers(f"`{_code(node.comparisons[0].operator).strip()}` of a "
                                  "per-example number and constant numbers", node,
                                  "compare with == / != one by one",
                                  literals=tuple(dict.fromkeys(literals)))


def _membership_of_a_display(node, left, right, display) -> None:
    """`_membership_of_numbers` of ``x in (a, b, ...)``, a display of names and number
    literals: ``x is e`` adds nothing to ``x == e`` where either holds ints or bools, where
    ``e`` is a constant number that is not NaN, or where ``x`` and ``e`` are both new
    objects per example (parameters, float arithmetic: `FRESH_PER_EXAMPLE`) bound to
    different computations; a NaN constant is never ``x`` where ``x`` is fresh. Anything
    else (``m in (a, b)`` of ``m = max(a, b)``: NaN there is ``a`` itself) returns."""
    def kind(v):
        return np.asarray(v.example).dtype.kind if v.known else None
    fresh = has_fact(left, FRESH_PER_EXAMPLE)
    literals, nan_items = [], False
    for element, item in zip(display.elements, right.items):
        value = element.value
        bare = value.expression if type(value) is cst.UnaryOperation and type(
            value.operator) in (cst.Minus, cst.Plus) else value
        if type(element) is not cst.Element or type(bare) not in (
                cst.Name, cst.Integer, cst.Float, cst.Imaginary) or not isinstance(item, Value):
            return
        if not item.batched and item.exact and item.known and _is_number(item.example):
            if item.example != item.example:        # (a NaN object)
                if not fresh:
                    _maybe_itself(node, value)
                nan_items = True
                continue
        elif not (kind(left) in ("i", "u", "b") or kind(item) in ("i", "u", "b") or (
                fresh and has_fact(item, FRESH_PER_EXAMPLE) and item is not left)):
            _maybe_itself(node, value)
        literals.append(_code(value))
    if literals:
        if nan_items:
            note_fact("identities")
        raise MembershipOfNumbers(f"`{_code(node.comparisons[0].operator).strip()}` of a "
                                  "per-example number and a display of numbers", node,
                                  "compare with == / != one by one", literals=tuple(literals))


def _maybe_itself(node, item):
    op = _code(node.comparisons[0].operator).strip()
    raise Unsupported(f"`{op}` of a per-example float and `{_code(item)}`, which may be the "
                      f"very object `{_code(node.left)}` is on some examples: Python tests "
                      "`x is e or x == e`, so a NaN is in a tuple holding itself, and the "
                      "batch cannot tell objects apart", node,
                      "compare with == (or test math.isnan separately)")


def _identical(a, b) -> bool | None:
    """``a is b`` where it is the same on every call of this specialization though the
    values are not known exactly: a per-example value (a NumPy scalar or array per example)
    is never a singleton such as None, and a value of a known type other than NoneType is
    never None. None where it is not known: a per-example truth value against ``True`` or
    ``False``, which per example is a Python bool on some calls (`vectorize`'s examples are
    Python numbers, so ``x > 0`` is one: ``(x > 0) is True`` holds where it is true) and a
    NumPy bool on others (``np.isnan(x)``, `vmap`'s examples: never ``True`` itself)."""
    for x, y in ((a, b), (b, a)):
        if has_fact(x, NONE_ON_SOME_LANES) or has_fact(y, NONE_ON_SOME_LANES):
            return None
        if has_fact(x, FRESH_PER_EXAMPLE) and isinstance(y, Value) and not y.batched and y.exact \
                and y.known and not any(y.example is o for o in _SINGLETONS) and not (
                    type(y.example) is int and x.dtype.kind in "iu"):
            # (`x is NAN`, `x is math.nan`: never the same object. An int example of a
            # Python int parameter can be a cached small int: `n is 0` is refused)
            note_fact("identities")
            return False
        if not (isinstance(y, Value) and y.exact and any(y.example is o for o in _SINGLETONS)):
            continue
        if isinstance(x, Value) and x.batched:
            if type(y.example) is bool and any(
                    np.asarray(part).dtype.kind == "b"
                    for part in MIXED_PARTS.get(x, (x.example,))):
                return None
            return False
        if y.example is None and isinstance(x, Value) and x.known:
            return x.example is None
    return None


def _in_bounds(index):
    """An index with every integer replaced by 0 (slices and the rest as they are)."""
    def zero(i):
        return 0 if isinstance(i, (int, np.integer)) and not isinstance(i, bool) else i
    return tuple(zero(i) for i in index) if isinstance(index, tuple) else zero(index)


def _gatherable(seq) -> bool:
    """A table that gathers as the NumPy array of its items, besides a flat one of numbers:
    strings (``MONTHS[k]``: an item of the array's ``<U`` dtype; the result is sized as
    numpy.vectorize sizes it, `vectorize._output`), or rows of numbers, all of one length
    (``a, b, c = COEF[k]``)."""
    if seq and all(type(v) is str for v in seq):
        return True
    return _rows(seq)


def _list_rows(seq) -> bool:
    """A list or tuple of lists of real numbers (not bools), all of one nonzero length."""
    return bool(seq) and all(type(row) is list and len(row) == len(seq[0]) and row and all(
        type(v) in (int, float) for v in row) for row in seq)


def _rows(seq) -> bool:
    """A table of tuples of numbers, all of one length: an item is a tuple per example."""
    return bool(seq) and all(type(row) is tuple and len(row) == len(seq[0])
                             and row and all(_is_number(v) and not isinstance(v, complex)
                                             for v in row) for row in seq)


def uniform_items(seq):
    """The abstract value every item of the tuple ``seq`` has, where its items are all
    per-example values of one type, dtype and per-example shape (`*args` of like arrays, a
    tuple display of like values); else None."""
    from ..abstract import TupleValue, same_type
    items = seq.items if isinstance(seq, TupleValue) else ()
    if not items or seq.kind not in (None, tuple, list) or any(
            isinstance(v, TupleValue) or not v.batched or not v.known for v in items):
        return None
    first = items[0]
    if not all(same_type(first.example, v.example) and np.shape(first.example) == np.shape(
            v.example) for v in items):
        return None
    return batched_like(first.example)


def _plain_test(node) -> bool:
    """A name, a literal, ``not`` of one or a comparison of them (``w is None``, ``t > 0``):
    evaluating it runs no code of the user's (a name is bound: the analysis checks that
    when it reads one; `chain_truth` checks that a comparison is one of numbers)."""
    if type(node) is cst.UnaryOperation and type(node.operator) is cst.Not:
        return _plain_test(node.expression)
    if type(node) is cst.Comparison:
        return type(node.left) in _PLAIN and all(type(c.comparator) in _PLAIN
                                                 for c in node.comparisons)
    return type(node) in _PLAIN


_PLAIN = (cst.Name, cst.Integer, cst.Float, cst.SimpleString)


class MaybeUnbound(Unsupported):
    """A read of ``name``, which some paths reach without assigning it (``value``: what the
    others assign): `transform` retries with a placeholder and a run-time check
    (`body_sugar.check_unbound`)."""

    def __init__(self, message, node=None, suggestion="", *, name: str, value):
        super().__init__(message, node, suggestion)
        self.name = name
        self.value = value


COMPREHENSION_ITEMS = 64
"""Items of a list comprehension over per-example values that are written out."""


class WrittenOutComprehension(Unsupported):
    """``[e for t in seq]`` over a tuple or list of ``length`` per-example values: `transform`
    retries with the comprehension written out (`body_sugar.comprehension_items`)."""

    def __init__(self, message, node=None, suggestion="", *, length: int):
        super().__init__(message, node, suggestion)
        self.length = length


class MembershipOfNumbers(Unsupported):
    """``x in C`` / ``x not in C`` of a per-example number ``x`` (a name) and a tuple, list
    or set ``C`` of Python numbers the same for every call: `transform` retries with it
    written as the comparisons Python makes (``x == c0 or x == c1 ...``, ``x != c0 and ...``
    for ``not in``; `body_sugar.membership_as_comparisons`). ``literals`` are the source
    texts of the items that can equal ``x`` (a NaN item only is ``x`` itself, which a value
    fresh per example never is)."""

    def __init__(self, message, node=None, suggestion="", *, literals: tuple):
        super().__init__(message, node, suggestion)
        self.literals = literals


class MaskedScalarWrite(Unsupported):
    """``x[m]`` of a per-example 0-d value and a per-example truth value ``m`` (0 or 1
    items): `transform` retries with ``a[m] = e(x[m])`` as ``if m: a[()] = e(x)``
    (`body_sugar.masked_scalar_write`), else refuses with this message."""


class ChosenItems(Unsupported):
    """``a if test else b`` (``node``) of two dicts of constants with the same ``keys`` and
    a per-example test: `transform` retries with the dict of per-key choices
    (`body_constructs.chosen_tables.chosen_items`)."""

    def __init__(self, message, node=None, suggestion="", *, keys: list):
        super().__init__(message, node, suggestion)
        self.keys = keys


class MethodAlias(Unsupported):
    """``f = obj.method`` of a per-example record (``node`` the attribute), not called
    there: `transform` retries with each later ``f(...)`` written as ``obj.method(...)``
    (`body_constructs.named_attributes.method_alias_inlined`)."""


class PickedPerExample(Unsupported):
    """``seq[k]`` of a tuple or list of per-example values (``length`` of them) with a
    per-example integer ``k``: `transform` retries with the item picked by an ``if`` per
    position (`body_sugar.pick_item`)."""

    def __init__(self, message, node=None, suggestion="", *, length: int):
        super().__init__(message, node, suggestion)
        self.length = length


class MayFallOff(Unsupported):
    """Some examples may reach the end of the function, which returns values on its other
    paths: `transform` retries with a ``raise`` at the end (`body_sugar.check_fall_off`)."""


def _bounded_name(node: cst.Subscript):
    """The user's index name ``i`` of a read ``c[(i + n if i < 0 else i) if -n <= i < n
    else size]`` that `passes.ragged_tables.bounded_index` spelled, or None."""
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return None
    index = node.slice[0].slice.value
    if type(index) is not cst.IfExp or type(index.test) is not cst.Comparison:
        return None
    test = index.test
    if type(test.left) is not cst.UnaryOperation or len(test.comparisons) != 2:
        return None
    name = test.comparisons[0].comparator
    return name if type(name) is cst.Name else None


def _float_presentation(part) -> bool:
    """Whether an f-string's ``{...}`` formats ints, bools and floats alike (a format spec
    ending in a float presentation type: ``:g``, ``:.3f``, ``:e``, ``:%``), no conversion."""
    spec = part.format_spec
    if part.conversion is not None or not spec or any(
            type(p) is not cst.FormattedStringText for p in spec):
        return False
    text = "".join(p.value for p in spec)
    return bool(text) and text[-1] in "eEfFgG%"


_NOT_COMPUTED = object()
# the arithmetic operators whose rule converts a Python float meeting a narrow float to it
# (`rules.operators.binary`; `/` too: a float16 or float32 division)
_NARROWING_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.AddAssign,
                        cst.SubtractAssign, cst.MultiplyAssign, cst.DivideAssign)


def _item_of(fn, k):
    """``fn``'s ``k``-th result (of a function that returns a tuple, ``divmod``), named as
    ``fn`` (`Expressions._lane_types` decides by the name)."""
    def item(*args):
        return fn(*args)[k]
    item.__name__ = getattr(fn, "__name__", "")
    return item


def _shared_int_wraps(args, dtype, joined):
    """Where a lane computes in the int ``dtype``, narrower than the batch's ``joined``: the
    problem (or None) of an int operand the same for every example that ``dtype`` does not
    hold, which the lane converts to it (PyTorch's weak Python ints: 300 is 44 in int8)."""
    info = np.iinfo(dtype)
    for a in args:
        if isinstance(a, Value) and not a.batched and a.exact and type(a.example) is int \
                and not info.min <= a.example <= info.max:
            return f"converts {a.example} to {dtype}, which wraps it (the batch: {joined})"
    return None


def _narrow_lane_values(fn, args, lane_examples, lane, dtype, joined):
    """Where ``fn`` gives a lane of a value of mixed lane types (`abstract.MIXED_PARTS`) a
    narrow int or bool and the batch the joined float: the problem (or None) where that
    lane's value is not the batch's for the same operands (``np.where(c, r, 300)`` with ``r``
    an int8 there casts 300 to int8, 44; the batch's float64 keeps 300)."""
    batch = [one_like(a.example) if isinstance(a, Value) and a in MIXED_PARTS else e
             for a, e in zip(args, lane_examples)]
    try:
        with np.errstate(all="ignore"):
            want = np.asarray(fn(*batch))
            got = np.asarray(lane).astype(want.dtype)
    except Exception:   # noqa: BLE001 -- no comparison: the other checks decide
        return None
    if got.shape != want.shape or np.array_equal(got, want, equal_nan=True):
        return None
    return (f"computes in {dtype}, which gives {lane.item() if hasattr(lane, 'item') else lane}"
            f" (the batch, in {joined}: {want.item() if want.ndim == 0 else want})")


# operations whose int result can wrap (`Expressions._lane_types`): operators, `abs` and
# the ufuncs of the same arithmetic

def _as_numpy_scalars(fn, examples):
    """``fn`` of ``examples`` where Python numbers among them raised (``2 * a / b`` of the
    Python floats ``math.sin`` gives, whose examples make ``b`` zero): the type of the
    result, not the probe's values, is what the analysis learns, so it is computed on NumPy
    scalars of the same values (a Python number again where every operand was one); the
    raise itself, where some example's real values make it, is the per-example code's
    (``try``/``except``, `python_raises`). `_NOT_COMPUTED` where that fails too."""
    numbers = (int, float, complex)
    if not any(type(e) in numbers for e in examples):
        return _NOT_COMPUTED
    # a Python int meeting a NumPy int (``np.int8(m) - 128``: NEP 50 raises OverflowError
    # for an int beyond the type) is of that type, as NumPy takes it where it fits: an
    # int64 in its place made ``m -= 128`` in a loop widen ``m`` to int64, a result where
    # the per-example loop raises
    ints = [e.dtype for e in examples if isinstance(e, np.integer)]
    weak_int = np.result_type(*ints).type(1) if ints else None

    def scalar(e):
        if type(e) is int and weak_int is not None:
            return weak_int
        return np.asarray(e)[()] if type(e) in numbers else e
    try:
        with np.errstate(all="ignore"):
            out = fn(*[scalar(e) for e in examples])
    except Exception:   # noqa: BLE001 -- not computed, as before
        return _NOT_COMPUTED
    if isinstance(out, np.generic) and all(type(e) in numbers or not isinstance(
            e, (np.generic, np.ndarray)) for e in examples):
        out = out.item()
    return out

_WRAPPING = frozenset({
    "add", "sub", "mul", "pow", "lshift", "neg", "floordiv", "abs", "absolute", "negative",
    "subtract", "multiply", "power", "square", "left_shift", "floor_divide"})

# ... and those whose unsigned result wraps below zero
_BELOW_ZERO = frozenset({"sub", "neg", "subtract", "negative"})

# ... and those whose int result differs from the float one for a zero divisor
_INT_DIVISION = frozenset({"floordiv", "mod", "floor_divide", "remainder", "fmod", "divmod"})


# the nodes of the operations `Expressions._signed_zero` leaves to a run-time check
# (`passes.python_raises.signed_zero`)
_SIGNED_ZERO_NODES = (cst.UnaryOperation, cst.BinaryOperation, cst.Call, cst.AugAssign)


def _positive_constant(arg) -> bool:
    if not isinstance(arg, Value) or arg.batched or not arg.exact or not arg.known:
        return False
    d = arg.example
    return isinstance(d, (int, float, np.integer, np.floating)) and not isinstance(
        d, (bool, np.bool_)) and bool(d > 0)


def _nonzero_divisor(args) -> bool:
    """Whether the operation divides by a constant that is not zero (``minutes % 1``): no
    lane's divisor is zero, where int and float lanes would differ."""
    if len(args) != 2:
        return False
    divisor = args[1]
    if not isinstance(divisor, Value) or divisor.batched or not divisor.exact \
            or not divisor.known:
        return False
    d = divisor.example
    return isinstance(d, (int, float, np.integer, np.floating)) and not isinstance(
        d, (bool, np.bool_)) and d != 0 and bool(np.isfinite(d))


def _sequence_example(value):
    """The example of ``value`` as the sequence the code made: a list display tracked item
    by item (``[1] + coefs``) is a list, which a tuple of its items is not (``(1,) +
    [2.0]`` raises TypeError, where ``[1] + [2.0]`` concatenates)."""
    if isinstance(value, TupleValue) and value.kind is list:
        return list(value.example)
    return value.example
