"""Operations that raise in Python on some examples get the ``raise`` Python runs for them.

Assumes: scalar-style code after `early_return` (every condition is an ``if``, an
``and``/``or`` or a ternary); the current analysis; a `vectorize` specialization
(``ctx.module.python_semantics``: numpy.vectorize hands the function Python numbers), or a
`vmap` one, whose examples are NumPy scalars: there only the values
`analysis.python_numbers` shows to be Python numbers (``float(y)``, ``int(y)``, ``math.*``...)
get the checks of their operations, and `math.*`, ``int(x)``, ``round(x)`` of any value;
where one fires, `vmap` runs the per-example loop, which decides.
Reads and writes no record (`records`).
Guarantees: before each statement, for each operation in it on Python numbers that Python
raises for on some examples (`rules.python_errors`: a zero divisor, a `math` domain or range
error, an int result beyond the output's int64), ``if <condition>: raise <Exception>(<Python's
message>)``, in evaluation order; the condition includes the left side of an ``and``/``or``
and the test of a ternary it sits under. Per example this raises exactly where Python raises
(or, near a float or int64 limit, a little more often: `vectorize` then runs the per-example
loop, which decides), so the meaning is unchanged; `guard_indices` then checks it on the
lanes that get there only (``if np.any(cond & (y == 0)):``).

    if x > 1:                      if x > 1:
        z = 1.0 / y       ->           if y == 0:
                                           raise ZeroDivisionError("float division by zero")
                                       z = 1.0 / y

Refuses (`vectorize`, a located `Unsupported`) an operation where NumPy's promotion of the
example's values differs from the batch's: a NumPy float16/float32/complex64 value meeting a
per-example Python number (NEP 50 makes the number narrow; the batch holds it in a float64
array), a uint64 meeting a signed int (`weak_meeting`).

No check is written where it cannot fire: a divisor that is a nonzero constant or provably
nonzero (``x * x + 1``, ``abs(d) + eps``, ``math.exp(a) + 1``; the value ranges of
`analysis.ranges`: ``x = max(a, 1.0)``, a Newton step for a square root of ``a > 0``, a
helper's parameter its callers pass a positive number), or that the enclosing ``if``
(``if d != 0:``, ``else`` of ``if d == 0:``) or ``and`` tests; operations on NumPy values
(``np.sqrt(x)``, an element of an array: NumPy's semantics per example too). What a test
says holds for the values as compared (`_Checks.as_compared`): ``x <= 709.78`` of a NumPy
float16 is ``x <= 710.0`` (NEP 50 rounds the literal to float16), which leaves
``math.exp(x)``'s overflow check in place.
"""

from __future__ import annotations

import builtins
import cmath
import math
import types

import libcst as cst
import numpy as np

from ..abstract import INT_PART_SIZES, MIXED_PARTS, Value
from ..analysis import ranges
from ..analysis.float_semantics import numpy_scalar_for
from ..analysis.python_numbers import PythonNumbers
from ..errors import Unsupported
from ..liveness import bound_names, changes, reads, writes
from ..rules import python_errors
from ..rules.lists import list_subscript, stored_values
from ..rules.operators import INT_KEEPING_UFUNCS
from ..syntax.edit import AUGMENTED_TO_BINARY, paren
from ..syntax.templates import bare_code, expr, unshared
from ..syntax.traversal import children, walk

_CAST_MESSAGE = "a float that does not fit the int array it is written into"
_PYTHON_OF_KIND = {"b": True, "i": 1, "u": 1, "f": 1.0, "c": 1j}
_NARROWED_OPERATORS = frozenset({
    cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo, cst.Power,
    cst.BitAnd, cst.BitOr, cst.BitXor, cst.LeftShift, cst.RightShift})
_PYTHON_TYPES = {"b": bool, "i": int, "u": int, "f": float, "c": complex}
_PYTHON_OF_TYPE = (bool, int, float, complex)

_INEXACT_COMPARISON = "an int beyond 2**53 compared with a float (Python compares exactly)"
_ROUNDED_INT = ("an int beyond 2**53 held as a float, beside float lanes (Python computes "
                "with the exact int)")
_INT_ZERO_DIVISOR = ("a zero divisor of NumPy's int division on a lane that is an int per "
                     "example (0 there, nan or inf in the batch's float)")
_NUMPY_INT_DIVISION = frozenset({"floor_divide", "remainder", "fmod", "divmod"})
# operations whose result on an int lane is an int again (its lanes stay ints per example)
_INT_KEEPING_OPS = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo,
                    cst.Power, cst.LeftShift, cst.RightShift, cst.BitAnd, cst.BitOr,
                    cst.BitXor)
# calls that compute with an int argument exactly (not converting it to a float first)
_EXACT_INT_CALLS = (builtins.int, builtins.round, builtins.divmod, builtins.pow, builtins.min,
                    builtins.max, math.floor, math.ceil, math.trunc, math.isqrt, math.comb,
                    math.perm, math.factorial, math.gcd, math.lcm, math.prod)
_COMPARE_OPS = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual,
                cst.Equal, cst.NotEqual)


class _Fact:
    """A test known to hold (``negated``: known not to hold) where a statement runs."""

    def __init__(self, test, negated: bool):
        self.test = test
        self.negated = negated
        self.names = reads(test)


class _Raiser:
    """An operand that may raise inside the statement itself, where it runs (a lookup at a
    per-example key, a call of a function of the user's), not by a check written before
    it. ``root``: the operand to compute first, before the checks of the operands Python
    evaluates after it (``raiser`` itself, or the outermost ``and``/``or``/ternary/chained
    comparison it sits in); ``start``/``end``: the span of the statement's checks made
    while ``root`` was walked (checks from ``end`` on come after it)."""

    def __init__(self, raiser, root, start: int):
        self.raiser = raiser
        self.root = root
        self.start = start
        self.end: int | None = None


class _UnboundRead:
    """In a statement's checks: where it first reads a name bound on some paths only, the
    check `body_sugar.check_unbound` wrote before the statement (``if not u_bound: raise
    UnboundLocalError(...)``), which belongs there in evaluation order (``1.0 / x + u``
    raises ZeroDivisionError first)."""

    def __init__(self, check):
        self.check = check


_ORDER = object()
"""In a statement's checks: a point before which the operands that may raise where they run
(`_Raiser`) are computed, as before a check (the arguments of ``min``/``max``)."""


class _Checks:
    def __init__(self, analysis, func: cst.FunctionDef, numpy_scalars: bool = False,
                 python_params=frozenset()):
        self.analysis = analysis
        # `vmap`: the examples are NumPy scalars, whose arithmetic raises nothing; what NumPy
        # itself raises per example and the batched code would not is checked, and the
        # operations on the Python numbers the function makes of them (`self.python`)
        self.numpy_scalars = numpy_scalars
        # the backend converts a Python int meeting a narrow NumPy int to its type (NEP 50)
        self.narrow_ints = False
        # ... and to a narrower int it is merged with (`narrowing_join`)
        self.narrow_joins = False
        self.unsigned_comparisons = False   # (`Backend.unsigned_comparisons`)
        self.func = func
        self._reads: dict | None = None
        self.int_power_checks = False
        # `Backend.python_int_power_raises`
        self.python_int_power = False
        # code made for numpy.vectorize's output types only (`PythonSemantics.types_only`)
        self.types_only = False
        # ids of the parameters' values that are Python numbers per example
        # (`PythonSemantics.numbers`)
        self.python_arguments: frozenset = frozenset()
        # a helper's parameters are what its callers pass (`python_arguments` names the
        # function's own): Python numbers where the caller's are
        self.in_helper = False
        # ids of those of int8..int32 and uint8..uint32 arguments (`PythonSemantics`)
        self.small_ints: frozenset = frozenset()
        # int names' ranges that the statement's checks so far establish (a check that does
        # not fire leaves its operand inside its bounds): reset for each statement
        self.assumed: dict[str, tuple[int, int]] = {}
        # ... and those of names the function assigns once, at the top level of its body
        # (every lane runs that assignment, after its checks): valid to the end
        self.known: dict[str, tuple[int, int]] = {}
        self.defs = _definitions(func)
        # ids of the operands of augmented assignments to names among ``defs`` (`n += v`:
        # per example `n` is then what `n + v` gives, a NumPy value where `v` is one)
        self.augmented = {id(n.value) for n in walk(func.body)
                          if type(n) is cst.AugAssign and type(n.target) is cst.Name}
        self.params = {p.name.value for p in func.params.params}
        self.lists = stored_values(func)
        self.counters = _counters(func)
        self.range_counters = _range_counters(func)
        self.numpy_names: dict[str, bool] = {}
        # the outermost `and`/`or`/ternary/chained comparison being walked (its start in
        # the statement's checks, and the raisers found inside it: `_Raiser`)
        self.region = None
        # `FunctionJob.unreplayed_raising_call` (the file rewriter's helpers that may raise)
        self.unreplayed = lambda node: False
        # (a name bound on some paths, its check held back until the statement reads it:
        # `_UnboundRead`)
        self.unbound = None
        # `vmap`: which values are Python numbers all the same (``float(y)``, ``int(y)``,
        # ``math.*``, ``len``, literals combined with those), whose operations get the checks
        self.python = PythonNumbers(analysis, func, python_params) if numpy_scalars else None
        # the spans of the numbers (`analysis.ranges`), made on the first divisor that needs
        # them (`make_ranges`): a divisor never 0 needs no check
        self.make_ranges = None
        self._ranges = False
        # the analyses after the merges compute operations on Python numbers that may raise
        # on NumPy scalars (`FunctionJob.branches_per_example`, a helper)
        self.speculative = False
        # the file rewriter's (nothing replays its checks)
        self.standalone = False
        # `vmap`: ids of the analysis' ``signed_zeros`` the checks were written for
        self.signed_zeros_met: set[int] = set()
        # ... and of its ``zero_divisors``
        self.zero_divisors_met: set[int] = set()
        # ... and of its ``bool_lanes``
        self.bool_lanes_met: set[int] = set()

    # ---------------------------------------------------------------- provenance
    def numpy_valued(self, node, seen=frozenset()) -> bool:
        """Whether ``node`` is per example a NumPy scalar (NumPy's semantics, no check) rather
        than a Python number. Unsure: a Python number (a check too many only costs a loop).
        `vmap`: a NumPy scalar unless `analysis.python_numbers` shows it a Python number."""
        if self.python is not None:
            return not self.python.python_valued(node)
        t = type(node)
        if t is cst.Name:
            name = node.value
            if name in seen:
                return False
            value = self.value(node)
            if value is not None and any(
                    d is not None and self.value(d) is value and self.numpy_valued(
                        d, seen | {name}) for d in self.defs.get(name) or ()):
                return True     # (`x = np.asarray(x)` reaches it: a NumPy value here)
            if name not in self.numpy_names:
                values = self.defs.get(name)
                value = self.value(node)
                if values == [None] and name in self.params and value is not None and (
                        value.batched or isinstance(value.example, np.generic)) and \
                        id(value) not in self.python_arguments and not self.in_helper:
                    # a per-example parameter that is a NumPy scalar per example
                    # (`vectorize(f, signature=...)` hands those out, and a bool's `+`, `-`
                    # and `abs` are NumPy's there), or a NumPy scalar argument, which
                    # numpy.vectorize hands to every example as it is (`np.int64(5) % 0`
                    # is 0 with NumPy's warning, no ZeroDivisionError)
                    self.numpy_names[name] = True
                    return True
                self.numpy_names[name] = bool(values) and all(
                    v is not None and self.numpy_valued(v, seen | {name}) for v in values)
            return self.numpy_names[name]
        if t is cst.BinaryOperation:
            return self.numpy_valued(node.left, seen) or self.numpy_valued(node.right, seen)
        if t is cst.UnaryOperation:
            # (`not x` is a Python bool whatever `x` is)
            return type(node.operator) is not cst.Not and self.numpy_valued(node.expression,
                                                                             seen)
        if t is cst.Comparison:     # (a NumPy operand: a NumPy bool)
            return self.numpy_valued(node.left, seen) or any(
                self.numpy_valued(c.comparator, seen) for c in node.comparisons)
        if t is cst.IfExp:
            return self.numpy_valued(node.body, seen) and self.numpy_valued(node.orelse, seen)
        if t is cst.Subscript:
            name = list_subscript(node, self.lists)
            if name is not None:
                # an item of a local list (an array only in the engine: `passes.local_lists`)
                # is what was stored into it: NumPy's only if everything stored is
                return f"{name}[]" in seen or all(
                    self.numpy_valued(v, seen | {f"{name}[]"}) for v in self.lists[name])
            item = _nested_item(node, self.example)
            if item is not None:
                # `NESTED[i][j]` of a list of lists: the row is an array on the batch only,
                # per example a list, whose items are what the table holds
                return isinstance(item, (np.generic, np.ndarray))
            return isinstance(self.example(node.value), np.ndarray)
        if t is cst.Call:
            fn = self.example(node.func)
            if fn in (builtins.abs, builtins.min, builtins.max):
                return any(self.numpy_valued(a.value, seen) for a in node.args)
            if fn is builtins.round:
                return len(node.args) > 1 and self.numpy_valued(node.args[0].value, seen)
            module = getattr(fn, "__module__", None) or ""
            if isinstance(fn, np.ufunc) or module == "numpy" or module.startswith("numpy."):
                return True
            owner = getattr(fn, "__self__", None)
            return isinstance(owner, (np.ndarray, np.generic))
        return False

    def example(self, node):
        value = self.analysis.values.get(node)
        return value.example if isinstance(value, Value) else None

    def value(self, node):
        value = self.analysis.values.get(node)
        return value if isinstance(value, Value) else None

    # ---------------------------------------------------------------- collection
    def of(self, node, guards: list, facts: list, out: list) -> None:
        """The checks of the operations in ``node`` in evaluation order, each with the
        ``and``/``or``/ternary ``guards`` (node, negated) it sits under; after an operand
        that may raise where it runs (`raiser`), a `_Raiser` in its place (``(_Raiser,
        guards)``), so that the checks Python makes after it can be written after it."""
        if type(node) is cst.Name and self.unbound is not None and \
                node.value == self.unbound[0]:
            out.append((_UnboundRead(self.unbound[1]), guards))
            self.unbound = None
            return
        start = len(out)
        outer = self.region
        opens = not guards and outer is None and (type(node) in (
            cst.BooleanOperation, cst.IfExp) or type(node) is cst.Comparison and len(
                node.comparisons) > 1)
        if opens:
            self.region = region = (node, start, [])
        try:
            self._of(node, guards, facts, out)
        finally:
            if opens:
                self.region = outer
        if opens:
            for raiser in region[2]:
                raiser.end = len(out)
        if guards and type(node) is cst.Call and self.unreplayed(node) and any(
                getattr(self.value(g), "batched", True) for g, _ in guards):
            raise Unsupported(
                "a call of a function that may raise, under a per-example `and`/`or` or "
                "conditional expression: its batched version would run on every example, "
                "also where Python does not call it, and raise there (the rewritten file "
                "has no per-example loop to fall back on)", node,
                "call it in a statement of its own under an `if` on the same condition",
                kind="raises")
        if self.raiser(node):
            if guards and self.region is not None:
                root, begin, inside = self.region
                marker = _Raiser(node, root, begin)
                inside.append(marker)
            else:
                marker = _Raiser(node, node, start)
                marker.end = len(out) + 1
            out.append((marker, guards))

    def raiser(self, node) -> bool:
        """Whether ``node`` may raise where it is computed in the batched code (no check
        before the statement stands for it): an item at a per-example index or key (a
        dict's KeyError, a list's or array's IndexError), a call of a function of the
        user's (its own checks and `raise`s run inside the call)."""
        t = type(node)
        if node in self.analysis.raises_for_every_example:
            return True     # (Python's exception for every example: `max(1j, 2)`)
        if t is cst.Subscript:
            if len(node.slice) != 1 or type(node.slice[0].slice) is not cst.Index:
                return False
            links = _item_links(node, self.example)
            if links is not None:
                # `NESTED[i][j]` of a list of rows: the item is computed whole (a row on
                # its own is no value of the batched code), where any index is per example
                return bool(links) and any(
                    getattr(self.value(link), "batched", False) for link in links)
            index = self.value(node.slice[0].slice.value)
            return index is not None and index.batched and isinstance(
                self.example(node.value), (dict, list, tuple))
        if t is cst.Call:
            return user_function(self.example(node.func))
        return False

    def _of(self, node, guards: list, facts: list, out: list) -> None:
        t = type(node)
        if t in (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp):
            return
        if t is cst.Attribute:
            missing = self.python_attribute(node)
            if missing is not None:
                # every example that gets here raises: so does the batch, where any lane
                # gets here (numpy.vectorize's loop then gives its AttributeError)
                self.of(node.value, guards, facts, out)
                out.append((missing, guards))
                return
        elif t is cst.Subscript:
            missing = self.python_subscript(node)
            if missing is not None:
                # every example that gets here raises TypeError (`x[()]` of a float)
                self.of(node.value, guards, facts, out)
                out.append((missing, guards))
                return
        elif t is cst.BinaryOperation:
            self.python_sequence(node)
        if t is cst.BooleanOperation:
            self.of(node.left, guards, facts, out)
            self.of(node.right, guards + [(node.left, isinstance(node.operator, cst.Or))],
                    facts, out)
            return
        if t is cst.IfExp:
            self.of(node.test, guards, facts, out)
            self.of(node.body, guards + [(node.test, False)], facts, out)
            self.of(node.orelse, guards + [(node.test, True)], facts, out)
            out.extend((check, guards + [(node.test, negated)])
                       for check, negated in self.narrowed_choice(node))
            return
        post: list = []     # checks of the operation itself, after its operands
        if t is cst.Comparison:
            # (`np.float32(a) == 0.1` compares in float32 per example: NEP 50)
            left = node.left
            for link in node.comparisons:
                if type(link.operator) not in (cst.Is, cst.IsNot, cst.In, cst.NotIn):
                    self.weak_meeting(node, [left, link.comparator], comparison=True)
                    operands = [left, link.comparator]
                elif type(link.operator) in (cst.In, cst.NotIn) and type(
                        link.comparator) in (cst.Tuple, cst.List, cst.Set):
                    operands = [left] + [e.value for e in link.comparator.elements]
                else:
                    operands = []
                # (after the operands: Python compares once it has them)
                self.inexact_comparison(operands, guards, post)
                left = link.comparator
        if t is cst.Call and self.example(node.func) in (builtins.min, builtins.max) and len(
                node.args) > 1 and not any(a.star or a.keyword is not None for a in node.args):
            # `min(np.float32(a), y)` compares as `y < a` does: in float32 per example
            self.weak_meeting(node, [a.value for a in node.args])
            # (its batched form may compute its arguments in another order: `np.where(b > a,
            # b, a)`; those that may raise where they run are computed first, in order)
            post.append((_ORDER, guards))
            self.inexact_comparison([a.value for a in node.args], guards, post)
            post.extend((check, guards) for check, _ in self.narrowed_choice(node))
        if t is cst.Comparison and len(node.comparisons) > 1:
            # `a < b < c`: each operand after the second is evaluated only where the links
            # before it hold (`f != 0.0 < 1.0 / f` never divides by zero)
            self.of(node.left, guards, facts, out)
            held, left = list(guards), node.left
            for link in node.comparisons:
                self.of(link.comparator, held, facts, out)
                held = held + [(cst.Comparison(left=left, comparisons=[link]), False)]
                left = link.comparator
            out.extend(post)
            return
        post.extend((check, guards) for check in self.rounded_int_operands(node))
        zero_checks = self.zero_divisor(node) + self.signed_zero(node) + self.bool_lane(node)
        affine = self.affine(node)
        if affine is not None:
            # `3 * n + 1` on ints: wrapping in between is harmless (int64 arithmetic is exact
            # modulo 2**64), so one check of the result, as bounds on n
            self.of(affine[0], guards, facts, out)
            if affine[1] is not None and not self.proved(affine[1]):
                out.append((affine[1], guards))
                self.assume(affine[1], guards)
            out.extend(post)
            out.extend((check, guards) for check in zero_checks)
            return
        for child in children(node):
            if isinstance(child, (cst.BaseExpression, cst.Arg, cst.BaseSlice,
                                  cst.SubscriptElement, cst.Element, cst.BaseFormattedStringContent,
                                  cst.ComparisonTarget, cst.BaseDictElement)):
                self.of(child, guards, facts, out)
        out.extend(post)
        for check in self.checks_of(node):
            if check.divisor is not None and self.nonzero(check.divisor, guards, facts) or \
                    self.refuted(check, guards, facts) or self.proved(check) or \
                    self.computed_by_python(check, node):
                continue
            out.append((check, guards))
            self.assume(check, guards)
        # (after the operation's own: its -0.0 is looked for where it computes)
        out.extend((check, guards) for check in zero_checks)

    def item_cast(self, target: cst.Subscript, node) -> list:
        """``y[i] = v`` of a float ``v`` into an int array: the example converts ``v`` as
        ``int()`` does, raising for NaN (ValueError), infinities and values beyond the
        array's dtype (OverflowError), where the batch's cast would make garbage (NumPy
        only warns). Into an unsigned array only a Python float raises (a NumPy float
        wraps, in the example as in the batch). A per-example array written into a slice
        (``y[:] = v``) is cast as the batch casts it: NumPy only warns there too."""
        value = self.value(node)
        if value is not None and value.rank > 0:
            return []
        return self.float_into_int(target, node, value is not None and value.kind == "f",
                                   self.numpy_valued(node))

    def item_update_cast(self, target: cst.Subscript, operator: type, node) -> list:
        """``y[i] += v`` (any augmented operator) into an int array: per example ``y[i] =
        y[i] + v``, whose float result the example converts as `item_cast` says (``y[i]``
        is a NumPy int: the sum is a NumPy float, which an unsigned array wraps)."""
        a, b = self.value(target), self.value(node)
        if a is None or b is None or a.rank != 0 or b.rank != 0:
            return []
        floats = "f" in (a.kind, b.kind) or operator is cst.Divide and \
            {a.kind, b.kind} <= set("biu")
        update = cst.BinaryOperation(left=target, operator=operator(), right=node)
        return self.float_into_int(target, update, floats, True)

    def float_into_int(self, target: cst.Subscript, node, floats: bool, numpy_valued: bool):
        """The checks of a float ``node`` (``floats``) written into an item of the int array
        ``target.value``."""
        array = self.example(target.value)
        if not isinstance(array, np.ndarray) or not floats:
            return []
        kind = array.dtype.kind
        if kind not in "iu" or kind == "u" and numpy_valued:
            return []
        info = np.iinfo(array.dtype)
        if info.bits == 64:
            low = "" if kind == "u" else f"{-float(2 ** 63)!r} <= "
            test = f"not {low}{{x}} < {float(info.max + 1)!r}" if low else \
                f"not -1.0 < {{x}} < {float(info.max + 1)!r}"
        else:
            test = f"not {float(info.min - 1)!r} < {{x}} < {float(info.max + 1)!r}"
        return [python_errors.Check("OverflowError", _CAST_MESSAGE, test, {"x": node})]

    def computed_by_python(self, check, node=None) -> bool:
        """`vmap`: whether the check is about an operation the generated code leaves to
        Python itself, on the same Python numbers (its operands are the same for every
        example: ``len(v) ** 2``), which raises or computes exactly as the loop does. A zero
        divisor is still checked, and so is every operation the analysis computes on NumPy
        scalars (`analysis.numpy_scalar_ops`: once a per-example ``if`` is a merge, every
        lane runs it, so that lanes Python keeps out cannot raise; ``0.0 ** -1`` there
        gives inf where Python, running it on every example, raises). Nor is a `math` call
        itself: its rule may compute it with NumPy (in a helper, in a condition), where
        ``np.log(0)`` is -inf; where the code keeps it Python, the check raises as it would."""
        if self.python is None or check.divisor is not None or (
                node is not None and self.numpy_scalar_op(node)):
            return False
        values = [self.value(n) for n in check.nodes.values()]
        return all(v is not None and not v.batched for v in values) and not any(
            self.math_call_in(n) for n in check.nodes.values()) and not (
            node is not None and self.math_call_in(node))

    def math_call_in(self, node) -> bool:
        """Whether ``node`` calls a `math` / `cmath` function: its rule computes it with
        NumPy (`math.sqrt(0.0)` as `np.sqrt(0.0)`, a NumPy float at run time, whose
        `** -1` is inf where Python's raises), also where every example gets the same."""
        for n in walk(node):
            if type(n) is cst.Call:
                fn = self.example(n.func)
                if getattr(fn, "__module__", None) in ("math", "cmath") and (
                        getattr(math, getattr(fn, "__name__", ""), None) is fn or
                        getattr(cmath, getattr(fn, "__name__", ""), None) is fn):
                    return True
        return False

    def numpy_scalar_op(self, node) -> bool:
        """Whether the analysis of the code after the merges computes the operation
        ``node`` on NumPy scalars (`analysis.float_semantics.numpy_scalar_for`): where this
        pass's analysis ran before the first merge (``speculative`` is what the later ones
        run with), from the operands' values here, not from a node of a later tree."""
        if node in self.analysis.numpy_scalar_ops:
            return True
        if not self.speculative:
            return False
        if type(node) is cst.BinaryOperation:
            operator, nodes = node.operator, [node.left, node.right]
        elif type(node) is cst.Call and len(node.args) == 2 and not any(
                a.keyword is not None or a.star for a in node.args) and \
                self.example(node.func) in (builtins.pow, builtins.divmod):
            operator = cst.Power() if self.example(node.func) is builtins.pow else cst.Modulo()
            nodes = [a.value for a in node.args]
        else:
            return False
        values = [self.value(n) for n in nodes]
        return None not in values and numpy_scalar_for(operator, *values) is not None

    # ---------------------------------------------------------------- int ranges
    def assume(self, check, guards) -> None:
        """After ``check`` (on every lane: no guards), its operand is within its bounds."""
        proof = check.proof
        if guards or proof is None or proof[0] != "within":
            return
        node = check.nodes.get(proof[1])
        if type(node) is cst.Name:
            lo, hi = self.assumed.get(node.value, (proof[2], proof[3]))
            self.assumed[node.value] = (max(lo, proof[2]), min(hi, proof[3]))

    def proved(self, check) -> bool:
        """Whether the operands' ranges show that ``check`` cannot fire (`Check.proof`)."""
        proof = check.proof
        if proof is None:
            return False
        if proof[0] == "within":
            node = check.nodes.get(proof[1])
            span = self.interval(node) if node is not None else None
        else:
            a, b = (self.interval(check.nodes.get(k)) for k in "ab")
            span = _combine(proof[1], a, b) if a is not None and b is not None else None
        return span is not None and proof[2] <= span[0] and span[1] <= proof[3]

    def interval(self, node, depth: int = 0):
        """(lo, hi) holding every per-example value of the int expression ``node`` on
        lanes that pass the checks so far, or None: a literal, a name the statement's
        checks bound, the range of a small int dtype (a value of that dtype is inside it:
        the checks keep every int result within its dtype), and ``+``, ``-``, ``*``, unary
        ``-`` and ``**`` by a literal of those."""
        value = self.value(node)
        if value is None or value.kind not in "biu" or value.rank != 0 or depth > 32:
            return None
        exact = python_errors.exact_int(value)
        if exact is not None:
            return exact, exact
        own = (0, 1) if value.kind == "b" else python_errors.int_limits(value)
        t = type(node)
        found = None
        if t is cst.Name:
            found = self.assumed.get(node.value) or self.known.get(node.value)
        elif t is cst.UnaryOperation and type(node.operator) is cst.Minus:
            inner = self.interval(node.expression, depth + 1)
            found = None if inner is None else (-inner[1], -inner[0])
        elif t is cst.Call and len(node.args) == 1 and self.example(node.func) in (
                builtins.int, builtins.round):
            # `int(n)` of an int or bool: the same value (`int(x > 0)` is 0 or 1)
            found = self.interval(node.args[0].value, depth + 1)
        elif t is cst.BinaryOperation:
            op = python_errors.BINARY_SYMBOL.get(type(node.operator))
            if op in ("+", "-", "*", "**", "//"):
                a = self.interval(node.left, depth + 1)
                b = self.interval(node.right, depth + 1)
                found = _combine(op, a, b) if a is not None and b is not None else None
        if found is None:
            return own if own is not None and own[1] - own[0] < 2 ** 40 else None
        if own is not None:
            found = (max(found[0], own[0]), min(found[1], own[1]))
        return found

    def affine(self, node):
        """(the non-literal operand, its check) where ``node`` is an int ``c * v + d`` of
        literal ints c, d (nested ``+``, ``-``, ``*``, unary ``-``; two operations at least),
        else None."""
        if type(node) is not cst.BinaryOperation or type(node.operator) not in (
                cst.Add, cst.Subtract, cst.Multiply):
            return None
        result = self.value(node)
        limits = python_errors.int_limits(result)
        form = self._affine_form(node)
        if limits is None or form is None or form[3] < 2:
            return None
        var, coef, const, _ = form
        v = self.value(var)
        if v is None or v.kind not in "iu" or v.rank != 0 or result.rank != 0 or \
                self.numpy_valued(var) or coef == 0:
            return None
        return var, python_errors.affine_check(var, coef, const, limits)

    def _affine_form(self, node):
        """(v, c, d, number of operations) with node == c * v + d, or None."""
        t = type(node)
        c = python_errors.exact_int(self.value(node))
        if c is not None:
            return None, 0, c, 0
        if t is cst.UnaryOperation and type(node.operator) is cst.Minus:
            inner = self._affine_form(node.expression)
            return None if inner is None else (inner[0], -inner[1], -inner[2], inner[3] + 1)
        if t is cst.BinaryOperation and type(node.operator) in (cst.Add, cst.Subtract,
                                                                cst.Multiply):
            left, right = self._affine_form(node.left), self._affine_form(node.right)
            if left is None or right is None:
                return None
            if left[0] is not None and right[0] is not None:
                return None
            var = left[0] if left[0] is not None else right[0]
            n = left[3] + right[3] + 1
            if type(node.operator) is cst.Multiply:
                if left[0] is not None and right[0] is None:
                    return var, left[1] * right[2], left[2] * right[2], n
                if right[0] is not None and left[0] is None:
                    return var, right[1] * left[2], right[2] * left[2], n
                return None
            sign = 1 if type(node.operator) is cst.Add else -1
            return var, left[1] + sign * right[1], left[2] + sign * right[2], n
        if t in (cst.Name, cst.Attribute, cst.Subscript, cst.Call, cst.BinaryOperation):
            return node, 1, 0, 0
        return None

    def checks_of(self, node) -> list:
        t = type(node)
        if t is cst.BinaryOperation:
            self.weak_meeting(node, [node.left, node.right])
            return self.binary(type(node.operator), node.left, node.right, node)
        if t is cst.UnaryOperation and type(node.operator) is cst.Minus:
            if self.numpy_valued(node.expression):
                return []
            a, result = self.value(node.expression), self.value(node)
            if a is None:
                return []
            return python_errors.negation_checks(node.expression, a, result)
        if t is cst.UnaryOperation and type(node.operator) is cst.BitInvert:
            a = self.value(node.expression)
            if a is None or self.numpy_valued(node.expression):
                return []
            return python_errors.inversion_checks(node.expression, a)
        if t is cst.Call:
            return self.call(node)
        return []

    def python_number(self, node) -> bool:
        """`vectorize`: whether ``node`` may be per example a Python number (not a NumPy
        scalar, not a value the same for every example that the code holds as it is)."""
        value = self.value(node)
        if value is None or value.rank != 0 or value.kind not in _PYTHON_TYPES or \
                value.exact and not value.batched or self.numpy_valued(node):
            return False
        # an argument handed as it is (a NumPy scalar, an excluded one) is not
        return not (type(node) is cst.Name and not value.batched and node.value in self.params
                    and self.defs.get(node.value) == [None]
                    and id(value) not in self.python_arguments)

    def surely_python(self, node, seen=frozenset()) -> bool:
        """`vectorize`: whether ``node`` is per example certainly a Python number: a
        per-example parameter as numpy.vectorize hands it, a number literal, or arithmetic
        and names made of those only (`python_number` also counts the unsure ones)."""
        t = type(node)
        if t in (cst.Integer, cst.Float):
            return True
        if t is cst.Name:
            name = node.value
            values = self.defs.get(name)
            if name in seen or not values:
                return False
            if values == [None]:
                value = self.value(node)
                return name in self.params and value is not None and value.batched and (
                    self.in_helper or id(value) in self.python_arguments)
            return all(v is not None and self.surely_python(v, seen | {name}) for v in values)
        if t is cst.BinaryOperation:
            return self.surely_python(node.left, seen) and self.surely_python(node.right, seen)
        if t is cst.UnaryOperation:
            return self.surely_python(node.expression, seen)
        return False

    def python_sequence(self, node: cst.BinaryOperation) -> None:
        """`vectorize`: refuse arithmetic of a Python list or tuple (an excluded or shared
        argument, a global) with a per-example Python number: Python repeats the sequence
        or raises TypeError, where the code, on a NumPy scalar or an array, would compute
        item by item (the batched operands' rule refuses those; this is the code that stays
        as written: a call whose arguments are all the same for every example)."""
        if self.python is not None or self.types_only:
            return
        for seq, other in ((node.left, node.right), (node.right, node.left)):
            value = self.value(seq)
            if value is not None and not value.batched and type(value.example) in (
                    list, tuple) and self.python_number(other):
                raise Unsupported(
                    "arithmetic on a Python list or tuple with a per-example Python number: "
                    "Python repeats or concatenates it (`[1.0] * 2` is `[1.0, 1.0]`) or "
                    "raises TypeError (`1.0 + [2.0]`), where arrays compute item by item",
                    node, "pass an array of it instead of the list or tuple", kind="raises")

    def python_subscript(self, node: cst.Subscript):
        """`vectorize`: the check (it always fires) of an item of a value that is a NumPy
        scalar in the batch and the Python number numpy.vectorize hands the function per
        example (``x[()]``, ``x[m]``): Python raises TypeError there ("'float' object is not
        subscriptable"); None where the value is not such a number."""
        if self.python is not None or self.types_only or not self.python_number(node.value) \
                or node.value in self.analysis.raises_for_every_example:
            return None     # (an item of a call every example raises in: never taken)
        value = self.value(node.value)
        if type(node.value) is cst.Name and any(
                d is not None and self.value(d) is value and self.numpy_valued(d)
                for d in self.defs.get(node.value.value) or ()):
            return None     # (`z = np.asarray(z)` reaches it: a NumPy value there)
        python_type = _PYTHON_TYPES[value.kind]
        if not self.surely_python(node.value):
            raise Unsupported(
                "an item of a value that may be a Python "
                f"{python_type.__name__} per example, which has no items: numpy.vectorize "
                "hands the function Python numbers (Python raises TypeError there)", node,
                "make it an array first (asarray), or use vmap, which hands the function "
                "NumPy scalars", kind="raises")
        return python_errors.Check(
            "TypeError", f"'{python_type.__name__}' object is not subscriptable", "True", {})

    def python_attribute(self, node: cst.Attribute):
        """`vectorize`: the check (it always fires) of an attribute (or method) that a NumPy
        scalar has and the Python number numpy.vectorize hands the function per example has
        not (``x.ndim``, ``x.dtype``, ``x.sum()``, an int's ``x.is_integer()`` before Python
        3.12): Python raises AttributeError there, where the batch (or a NumPy scalar) would
        answer; None for any other attribute."""
        if self.python is not None or self.types_only or not self.python_number(node.value):
            return None
        python_type = _PYTHON_TYPES[self.value(node.value).kind]
        attr = node.attr.value
        if hasattr(python_type, attr):
            return None
        if not self.surely_python(node.value):
            # unsure (a helper's result, an item unpacked from a call: maybe a NumPy scalar
            # per example): a check that always fires would replay every call, silently
            raise Unsupported(
                f"`.{attr}` of a value that may be a Python {python_type.__name__} per "
                "example, which has no such attribute: numpy.vectorize hands the function "
                "Python numbers (Python raises AttributeError there)", node,
                "use the array library's function of that name where there is one, or vmap, "
                "which hands the function NumPy scalars", kind="raises")
        return python_errors.Check(
            "AttributeError", f"'{python_type.__name__}' object has no attribute '{attr}'",
            "True", {})

    def weak_meeting(self, node, operands, comparison: bool = False) -> None:
        """`vectorize`: refuse an operation where, per example, a NumPy float16, float32 or
        complex64 value meets a per-example Python number (NEP 50: the Python number takes
        the NumPy value's type, `np.float32(a) * y` is a float32), which the batch holds in
        a wider array (float64: the product would be float64). Python numbers the same for
        every example stay Python numbers in the batch too (weak there as well)."""
        if self.python is not None or self.types_only:
            return
        if not (comparison and self.unsigned_comparisons):
            self.unsigned_meeting(node, operands)
        for other, dtype, weak in self.weak_operands(operands)[:1]:
            value = self.value(other)
            raise Unsupported(
                f"a NumPy {dtype} scalar meets a per-example Python number here: "
                f"NumPy makes the Python number {weak} (NEP 50), which the batch's "
                f"{value.dtype} array would not be", node,
                f"convert one side explicitly: NumPy's {dtype}(...) of the Python "
                f"number to compute in {dtype}, or float(...) of the NumPy value to "
                "compute in float64")

    def weak_operands(self, operands) -> list:
        """`vectorize`: ``(node, dtype, weak)`` for each per-example Python number among
        ``operands`` that meets a NumPy float16, float32 or complex64 value of ``dtype``
        and that NEP 50 makes a ``weak`` (the narrow type, or its complex) where the batch's
        array would give another type (see `weak_meeting`)."""
        if self.python is not None or self.types_only:
            return []
        narrow = [(n, d) for n in operands if (d := self.narrow_numpy(n)) is not None]
        if not narrow:
            return []
        out = []
        for other in operands:
            value = self.value(other)
            # (a Python-number argument the same for every example is a NumPy scalar in the
            # batch, `vectorize._plan`: strong there too)
            if value is None or not (value.batched or id(value) in self.python_arguments) or \
                    value.rank != 0 or value.kind not in "biufc" or self.numpy_valued(other):
                continue
            for _, dtype in narrow:
                weak = np.result_type(dtype, _PYTHON_OF_KIND[value.kind])
                if weak != np.result_type(dtype, value.dtype):
                    out.append((other, dtype, weak))
        return out

    def inexact_comparison(self, operands, guards, out) -> None:
        """`vectorize`: a per-example Python int compared with a per-example Python float
        (``<``, ``==``..., chains, ``in`` a display, ``min``/``max``, which pick by
        comparison): Python compares exactly, NumPy converts the int to float64, which rounds
        it from 2**53 on (``2**53 + 1 > 2.0**53`` is true, in the batch false). Both agree
        where the int is within 2**53 (converted exactly): checked there, the replay decides
        beyond (no check where the int's range proves it: int32 and narrower, literals); an
        int literal beyond 2**53 that no float equals differs only where the float equals
        the literal rounded. NumPy scalars on either side compare as NumPy does."""
        if self.python is not None or self.types_only or len(operands) < 2:
            return
        values = [self.value(n) for n in operands]
        if any(v is None or v.rank != 0 or v.kind not in "biuf" for v in values):
            return
        if any(self.numpy_valued(n) for n in operands):
            return
        ints = [(n, v) for n, v in zip(operands, values) if v.kind in "iu"]
        floats = [(n, v) for n, v in zip(operands, values) if v.kind == "f"]
        if not ints or not floats or not any(v.batched for v in values):
            return
        for n, v in ints:
            c = python_errors.exact_int(v)
            if c is not None:
                if abs(c) <= 2 ** 53 or float(c) == c:
                    continue
                for x, w in floats:
                    if python_errors.exact_int(w) is None and not w.exact:
                        check = python_errors.Check(
                            "OverflowError", _INEXACT_COMPARISON, f"{{x}} == {float(c)!r}",
                            {"x": x})
                        out.append((check, guards))
                continue
            if not (v.batched or self.python_number(n)) or self.small_int(n) or \
                    type(n) is cst.Name and (n.value in self.counters
                                             or n.value in self.range_counters):
                # (a counter, or a loop over a range, from a small int by small steps
                # reaches 2**53 only after more than 2**32 iterations of its loop)
                continue
            # (a float literal of 2**53 or more becomes the int it equals where the int is
            # per example in an int64 array: `rules.operators._exact_int_comparands`)
            if all(w.exact and (abs(w.example) < 2.0 ** 53 or v.batched and v.dtype is not
                                None and np.dtype(v.dtype).itemsize >= 8)
                   for _, w in floats):
                continue
            check = python_errors.Check(
                "OverflowError", _INEXACT_COMPARISON,
                f"{{n}} < {-2 ** 53} or {{n}} > {2 ** 53}", {"n": n},
                proof=("within", "n", -2 ** 53, 2 ** 53))
            if not self.proved(check):
                out.append((check, guards))
                self.assume(check, guards)

    def int_lanes(self, node, seen=frozenset(), beyond: bool = True) -> bool:
        """Whether ``node``'s per-example value is an int on some lanes and a float on
        others (a choice per example: ``r = 2**60 + k if x > 0 else 0.5``; arithmetic of
        such a value with ints, names assigned it) whose int lanes may lie beyond 2**53:
        the batch holds every lane in float64, which rounds them, where each example keeps
        the exact int (`abstract.MIXED_PARTS`, `abstract.INT_PART_SIZES`). ``beyond``
        false: whatever their size (bool lanes too: ``-r`` of False is the int 0)."""
        value = self.value(node)
        if value is None or not value.batched or value.rank != 0 or value.kind != "f":
            return False
        parts = MIXED_PARTS.get(value)
        if parts:
            sizes = INT_PART_SIZES.get(value, {})
            for p in parts:
                if not beyond and isinstance(p, (bool, int, np.bool_, np.integer)):
                    return True
                if isinstance(p, (bool, np.bool_)) or not isinstance(p, (int, np.integer)):
                    continue
                if type(p) is not int and self.python is not None and p.dtype.itemsize < 8:
                    continue        # (`vmap`: an int32 lane is exact in float64)
                if sizes.get((type(p), getattr(p, "dtype", None)), math.inf) > 2 ** 53:
                    return True
            return False
        t = type(node)
        if t is cst.BinaryOperation and type(node.operator) in _INT_KEEPING_OPS:
            for side, other in ((node.left, node.right), (node.right, node.left)):
                v = self.value(other)
                if v is not None and v.kind in "iub" and self.int_lanes(side, seen, beyond):
                    return True
            return False
        if t is cst.UnaryOperation and type(node.operator) in (cst.Minus, cst.Plus):
            return self.int_lanes(node.expression, seen, beyond)
        if t is cst.IfExp:
            return self.int_lanes(node.body, seen, beyond) or self.int_lanes(
                node.orelse, seen, beyond)
        if t is cst.Call and self.example(node.func) is builtins.abs and len(node.args) == 1:
            return self.int_lanes(node.args[0].value, seen, beyond)
        if t is cst.Name and node.value not in seen:
            return any(d is not None and self.int_lanes(d, seen | {node.value}, beyond)
                       for d in self.defs.get(node.value, ()))
        return False

    def signed_zero(self, node, at=None) -> list:
        """The run-time checks (`python_errors.signed_zero_checks`) of an operation on a
        value that is an int on some lanes and a float on others whose float result may be
        -0.0 where the int one is 0 (``-r`` of 0, ``r * -1``, ``r // -3``, ``r % -1``,
        ``np.fmod(r, 1)`` of -2: `python_errors.signed_zero_operation` decides): per example
        the int 0 becomes 0.0 where the results are stacked, while the batch's float64 keeps
        -0.0 (a later ``1 / r`` or ``math.copysign`` tells them apart). Where some lane's
        result is -0.0, the per-example code decides. `vectorize`: the operands' int lanes
        are found here (`int_lanes`); `vmap`: the analysis found the operation
        (``signed_zeros``). ``at``: the augmented assignment ``node`` stands for. The file
        rewriter, which has no per-example code to replay, refuses it."""
        if self.types_only:
            return []
        operation = _signed_zero_operands(self, node)
        if self.python is not None:
            recorded = self.analysis.signed_zeros
            if node not in recorded and (at is None or at not in recorded):
                return []
            self.signed_zeros_met.add(id(at if at is not None and at in recorded else node))
        elif operation is None:
            return []
        else:
            name, operands = operation
            lanes = [self.int_lanes(o, beyond=False) for o in operands]
            if not any(lanes):
                return []
            kinds = []
            for operand, lane in zip(operands, lanes):
                v = self.value(operand)
                if lane:
                    kinds.append("int")
                elif v is None or v.kind not in "iub":
                    kinds.append("float")   # (an int meeting a float is converted per example)
                elif not v.batched and v.exact and isinstance(
                        v.example, (int, np.integer)) and v.example > 0:
                    kinds.append("positive")
                else:
                    kinds.append("int")
            zero_divisor = self.int_zero_divisor(node, name, operands, kinds)
            if not python_errors.signed_zero_operation(name, kinds):
                return zero_divisor
        results = _signed_zero_results(node, operation)
        if results is None or self.standalone:
            raise Unsupported(
                "this operation of a value that is an int on some lanes and a float on "
                "others may give -0.0 on an int lane, where per example the int 0 "
                "gives 0 (the batch computes every lane in float64)", at or node,
                "give the value one type on every path (e.g. float(...) where it is "
                "assigned)")
        checks = [check for r in results for check in python_errors.signed_zero_checks(r)]
        return checks if self.python is not None else zero_divisor + checks

    def bool_lane(self, node) -> list:
        """`vectorize`: the run-time check (`python_errors.bool_lane_checks`) of a NumPy
        call the analysis found raising TypeError on the lanes where its argument is a
        Python bool (``bool_lanes``), before the call; the file rewriter, which has no
        per-example code to replay, refuses it."""
        recorded = getattr(self.analysis, "bool_lanes", {})
        if node not in recorded or self.types_only:
            return []
        self.bool_lanes_met.add(id(node))
        if self.standalone:
            raise Unsupported("a NumPy function of a value that is a Python bool on some "
                              "lanes, which raises TypeError there", node,
                              "give the value one type on every path (e.g. float(...) where "
                              "it is assigned)", kind="raises")
        operands, message = recorded[node]
        return [check for o in operands for check in python_errors.bool_lane_checks(o, message)]

    def zero_divisor(self, node, at=None) -> list:
        """`vmap`: the run-time check of an int division on a lane that computes in a
        NumPy int (the analysis' ``zero_divisors``: ``r // k`` of an int64 ``r`` on some
        lanes and a float on others) that its divisor is not zero on any lane (NumPy's
        int gives 0 there, the batch's float nan or inf); where it is, the loop decides.
        ``at``: the augmented assignment ``node`` stands for. Where no check can be
        written (the file rewriter, an operation not named here), the operation stays
        unmet and `transform` refuses it."""
        if self.python is None or self.types_only or self.standalone:
            return []
        recorded = self.analysis.zero_divisors
        key = at if at is not None and at in recorded else node
        if key not in recorded:
            return []
        operation = _signed_zero_operands(self, node)
        if operation is None or len(operation[1]) != 2:
            return []
        self.zero_divisors_met.add(id(key))
        divisor = operation[1][1]
        return [python_errors.Check("OverflowError", _INT_ZERO_DIVISOR, "{d} == 0",
                                    {"d": divisor}, divisor=divisor)]

    def int_zero_divisor(self, node, name, operands, kinds) -> list:
        """`vectorize`: ``np.mod``, ``np.fmod``, ``np.floor_divide``, ``np.divmod`` of an
        int on some lanes (`int_lanes`) by an int: NumPy's int division by zero gives 0 per
        example (no exception, unlike Python's ``%``), the batch's float nan or inf; a
        divisor that is zero on some lane lets the per-example code decide. None for a
        divisor that is a constant other than zero."""
        if type(node) is not cst.Call or name not in _NUMPY_INT_DIVISION or \
                "float" in kinds or len(operands) != 2:
            return []
        divisor = self.value(operands[1])
        if divisor is not None and not divisor.batched and divisor.exact and isinstance(
                divisor.example, (int, np.integer)) and divisor.example != 0:
            return []
        return [python_errors.Check("OverflowError", _INT_ZERO_DIVISOR, "{d} == 0",
                                    {"d": operands[1]}, divisor=operands[1])]

    def rounded_int_operands(self, node) -> list:
        """Checks that the int lanes of the operands of ``node`` that `int_lanes` finds
        lie within 2**53, where the operation computes with them exactly per example
        (arithmetic with an int, a comparison, ``int``/``round``/``math.floor``...): the
        batch's float64 holds such an int exactly, and an operation of exact operands
        rounds once, as the example's result does where it is stored (or converted to a
        float). Beyond, the check fires and the per-example loop decides. An int meeting
        a float is converted to one per example too (``r * 0.5``): no check."""
        if self.types_only:
            return []
        t = type(node)
        operands = []
        if t is cst.BinaryOperation:
            for side, other in ((node.left, node.right), (node.right, node.left)):
                v = self.value(other)
                if v is None or v.kind not in "fc":
                    operands.append(side)
        elif t is cst.Comparison:
            operands = [node.left] + [c.comparator for c in node.comparisons
                                      if type(c.operator) not in (cst.Is, cst.IsNot)]
        elif t is cst.Call and any(self.example(node.func) is f for f in _EXACT_INT_CALLS):
            operands = [a.value for a in node.args if not a.star and a.keyword is None]
        checks = []
        for operand in operands:
            if not self.int_lanes(operand):
                continue
            check = python_errors.Check(
                "OverflowError", _ROUNDED_INT, f"{{n}} < {-2 ** 53} or {{n}} > {2 ** 53}",
                {"n": operand}, proof=("within", "n", -2 ** 53, 2 ** 53))
            if not self.proved(check):
                checks.append(check)
        return checks

    def small_int(self, node) -> bool:
        """Whether ``node`` reads a parameter, assigned nowhere, whose examples are of an
        int8..int32 or uint8..uint32 argument (`PythonSemantics.small_ints`)."""
        return type(node) is cst.Name and node.value in self.params and \
            self.defs.get(node.value) == [None] and \
            id(self.value(node)) in self.small_ints

    def unsigned_meeting(self, node, operands) -> None:
        """`vectorize`: refuse a uint64 value meeting a signed int that is not a literal
        (a per-example int, an int argument the same for every example): per example both
        are Python ints, exact; NumPy computes uint64 with int64 in float64, which loses the
        low bits from 2**53 on (`x % 3` of 2**64 - 1)."""
        values = [self.value(n) for n in operands]
        if not any(v is not None and v.rank == 0 and v.dtype == np.uint64 for v in values):
            return
        for value in values:
            if value is not None and value.rank == 0 and value.kind == "i" and not (
                    value.exact and type(value.example) is int):
                raise Unsupported(
                    "a uint64 value meets a signed int here: per example both are Python "
                    "ints (exact), while NumPy computes uint64 with int64 in float64", node,
                    "convert the uint64 argument to int64 (or the other to uint64) first")

    def narrow_numpy(self, node):
        """The dtype of ``node`` where it is per example a NumPy float16, float32 or
        complex64 scalar (a NumPy function of a bool, `np.float32(x)`, an item of a float32
        array, a float32 global), else None."""
        value = self.value(node)
        if value is None or value.rank != 0:
            return None
        dtype = value.dtype
        if dtype is None or dtype.kind not in "fc" or dtype.itemsize >= (8 if dtype.kind == "f"
                                                                          else 16):
            return None
        numpy = self.numpy_valued(node) if value.batched else isinstance(value.example,
                                                                           np.generic)
        return dtype if numpy else None

    def binary(self, operator, left, right, node) -> list:
        if operator in (cst.Add, cst.Subtract) and _is_counter_step(left, right, self.counters):
            return []       # `count + 1`: a counter would need 2**63 steps to overflow
        a, b, result = self.value(left), self.value(right), self.value(node)
        if a is None or b is None:
            return []
        if self.numpy_valued(left) or self.numpy_valued(right):
            return self.int_power(operator, left, right) + \
                self.narrow_int_meeting(operator, left, right)
        return python_errors.binary_checks(operator, left, right, a, b, result)

    def int_power(self, operator, base, exponent) -> list:
        """`vmap` on a backend whose integer powers do not raise (JAX's): NumPy's ValueError
        of an integer to a negative integer power (`np.int8(x) ** y`)."""
        if operator not in (cst.Power, cst.PowerAssign):
            return []
        a, b = self.value(base), self.value(exponent)
        if a is None or b is None or a.rank != 0 or b.rank != 0 or a.dtype is None or \
                b.dtype is None or a.dtype.kind not in "biu" or b.dtype.kind != "i":
            return []
        if self.python_int_power and self.python is not None and b.batched and \
                self.numpy_valued(base) and not self.numpy_valued(exponent):
            # (PyTorch: an int tensor to a negative Python int raises per example, to a
            # negative int tensor it does not; the batch's exponent is an int64 tensor)
            return [python_errors.Check("RuntimeError", python_errors.NUMPY_NEGATIVE_POWER,
                                        "{b} < 0", {"b": exponent, "a": base})]
        if not self.int_power_checks:
            return []
        # (the base among the nodes: an exponent the same for every example still meets
        # per-example bases, a power Python does not compute, `computed_by_python`)
        return [python_errors.Check("ValueError", python_errors.NUMPY_NEGATIVE_POWER,
                                    "{b} < 0", {"b": exponent, "a": base})]

    def narrow_int_meeting(self, operator, left, right, python_before=None) -> list:
        """`vmap` (NumPy, JAX): a per-example Python int meeting a NumPy int narrower than
        int64, or a uint64, in arithmetic takes its type (NEP 50,
        `rules.operators.narrow_weak_operands`), and raises OverflowError per example where
        it is beyond it (`np.int8(x) + int(y)` of y = 300). ``python_before``: the value
        ``left`` (an augmented assignment's target) holds before the statement, a Python
        number per example (`r -= np.sign(x)` of `r = y.item() - 1`)."""
        if self.python is None or not self.narrow_ints or operator in (
                cst.Divide, cst.DivideAssign) or operator not in _NARROWED_OPERATORS:
            return []
        for numpy_side, python_side in ((left, right), (right, left)):
            n, p = self.value(numpy_side), self.value(python_side)
            python = not self.numpy_valued(python_side)
            if python_before is not None and python_side is left:
                p, python = python_before, True
            if n is None or p is None or not p.batched or p.rank != 0 or p.kind != "i" or \
                    n.dtype is None or n.kind not in "iu" or not (
                        n.dtype.itemsize < 8 or n.kind == "u") or \
                    not self.numpy_valued(numpy_side) or not python or (
                        python_before is not None and numpy_side is left):
                continue
            info = np.iinfo(n.dtype)
            test = f"{{x}} < {info.min}" + (f" or {{x}} > {info.max}"
                                             if info.max < 2 ** 63 else "")
            return [python_errors.Check("OverflowError",
                                        f"Python integer out of bounds for {n.dtype}", test,
                                        {"x": python_side})]
        return []

    def narrowing_join(self, name: str, value) -> list:
        """`vmap` where the backend converts a per-example Python int to the narrower int
        array it meets at a merge (`Backend.narrowing_joins`): ``r = x.item()`` where `r`
        is an int32 elsewhere (``r = y``) is held as int32 after the merge, wrapping, where
        per example the lane keeps the int: it must fit, else the batch raises and `vmap`
        replays the loop, which decides. The narrowest int type a read of the name has."""
        if self.python is None or not self.narrow_joins:
            return []
        narrowest = None
        for node in self.reads_of(name):
            dtype = self.narrow_int_of(node)
            if dtype is not None and (narrowest is None or dtype.itemsize <
                                      narrowest.itemsize or dtype.kind == "u"):
                narrowest = dtype
        return self.narrowed(value, narrowest)

    def narrowed_choice(self, node) -> list:
        """(check, side) of the sides of a choice (``a if c else b``; ``min``/``max``) that
        are per-example Python ints the batch holds as the choice's narrower int
        (`narrowing_join`)."""
        if self.python is None or not self.narrow_joins:
            return []
        dtype = self.narrow_int_of(node)
        if type(node) is cst.IfExp:
            sides = [(node.body, False), (node.orelse, True)]
        else:
            sides = [(a.value, None) for a in node.args]
        return [(check, side) for value, side in sides
                for check in self.narrowed(value, dtype)]

    def narrow_int_of(self, node):
        """The int dtype narrower than int64 (or a uint) of ``node``'s per-example value,
        where it is no Python int; else None."""
        value = self.value(node)
        if value is None or not value.batched or value.rank != 0 or value.dtype is None or \
                value.kind not in "iu" or type(value.example) in _PYTHON_OF_TYPE or \
                value.dtype.itemsize >= 8 and value.kind != "u":
            return None
        return value.dtype

    def narrowed(self, value, dtype) -> list:
        if dtype is None:
            return []
        v = self.value(value)
        if v is None or not v.batched or type(v.example) is not int or \
                not self.python.python_valued(value):
            return []
        info = np.iinfo(dtype)
        return [python_errors.Check(
            "OverflowError", f"a Python int beyond {dtype}, which the batch holds it in",
            f"{{x}} < {info.min} or {{x}} > {info.max}", {"x": value},
            proof=("within", "x", info.min, info.max))]

    def reads_of(self, name: str) -> list:
        if self._reads is None:
            self._reads = {}
            for node in walk(self.func):
                if type(node) is cst.Name:
                    self._reads.setdefault(node.value, []).append(node)
        return self._reads.get(name, [])

    def numpy_call(self, node: cst.Call) -> list:
        """NumPy's own errors on NumPy scalars: ``np.arange`` with a step of 0 raises
        ``ValueError`` per example, where the padded range of a reduction is empty."""
        if self.example(node.func) is not np.arange or len(node.args) != 3 or any(
                a.keyword is not None or a.star for a in node.args):
            return []
        nodes = [a.value for a in node.args]
        values = [self.value(n) for n in nodes]
        if values[2] is None:
            return []
        return [c._replace(exception="ValueError", message=python_errors.ARANGE_ZERO_STEP)
                for c in python_errors.arange_checks(nodes, values)]

    def call(self, node: cst.Call) -> list:
        if self.numpy_scalars and type(node.func) is cst.Attribute and \
                node.func.attr.value == "item" and not node.args:
            # `n.item()` of a uint64 per example: a Python int, which the batch's int64
            # holds only below 2**63 (the replay gives the loop's answer from there on)
            value = self.value(node.func.value)
            if isinstance(value, Value) and value.batched:
                return python_errors.uint64_to_int(value, node.func.value)
        fn = self.example(node.func)
        if fn is None or any(a.keyword is not None or a.star for a in node.args):
            return []
        nodes = [a.value for a in node.args]
        values = [self.value(n) for n in nodes]
        if fn in (builtins.divmod, builtins.pow) and len(nodes) == 2:
            # `divmod(x, n)` / `pow(x, n)` meet their operands as `x // n` / `x ** n` do
            # (a uint64 and a per-example signed int: exact Python ints per example)
            self.weak_meeting(node, nodes)
        if isinstance(fn, np.ufunc) and len(nodes) > 1:
            self.weak_meeting(node, nodes)
            if len(nodes) == 2 and fn is np.power:
                powered = self.int_power(cst.Power, nodes[0], nodes[1])
                if powered:
                    return powered
            if len(nodes) == 2 and fn.__name__ in INT_KEEPING_UFUNCS:
                narrowed = self.narrow_int_meeting(cst.Add, nodes[0], nodes[1])
                if narrowed:
                    return narrowed
        if fn is np.arange and len(nodes) == 3 and values[2] is not None:
            # a step of 0: Python numbers raise ZeroDivisionError, NumPy ones ValueError;
            # the padded range of a reduction would make it an empty range
            if self.numpy_scalars:
                return self.numpy_call(node)
            return python_errors.arange_checks(nodes, values)
        if any(v is None for v in values):
            return []
        # `math.*`, `int(x)` and `round(x)` make Python numbers of NumPy scalars too, and
        # raise as Python does for them (`math.sqrt(np.float64(-1))`, `int(np.float64(nan))`)
        if getattr(fn, "__module__", None) == "math" and getattr(math, getattr(
                fn, "__name__", ""), None) is fn:
            if fn.__name__ in python_errors.MATH_ERRORS and any(
                    not v.known for v in values):
                # (no type for an operand, `x = math.prod((a, a))`: its domain and range
                # errors cannot be checked; computing on would miss them)
                raise Unsupported(
                    f"cannot tell the type of an operand of `math.{fn.__name__}` (it comes "
                    f"from a call the engine cannot evaluate), so not where it raises "
                    f"ValueError / OverflowError", node,
                    "compute the operand with operators or `math` functions that have a "
                    "batching rule, or pass fallback='warn'", kind="raises")
            return python_errors.math_checks(fn.__name__, nodes, values, self.numpy_scalars
                                             and self.numpy_valued(nodes[0]))
        if fn in (builtins.int, builtins.round) and len(nodes) == 1:
            return python_errors.builtin_checks(fn, nodes, values, self.value(node))
        if isinstance(fn, type) and issubclass(fn, np.integer) and len(nodes) == 1 and \
                not self.numpy_valued(nodes[0]):
            # (`np.int64(float(x))`: the constructor raises for the Python number, where
            # the batch's conversion of the array wraps)
            return python_errors.numpy_int_checks(fn, nodes[0], values[0])
        # (`round(n, k)` of a Python int `n` is Python's whatever `k` is: a NumPy int `k`
        # is only the number of digits)
        if any(self.numpy_valued(n) for n in (nodes[:1] if fn is builtins.round else nodes)):
            if fn in (builtins.divmod, builtins.pow) and len(nodes) == 2:
                # `divmod(y, r)` / `pow(y, r)` of a narrow NumPy int and a per-example
                # Python int: NEP 50 as for the operators (`y // r`, `y ** r`)
                return self.narrow_int_meeting(
                    cst.FloorDivide if fn is builtins.divmod else cst.Power, *nodes)
            return []
        if fn in (builtins.round, builtins.abs, builtins.divmod, builtins.pow, builtins.sum):
            checks = python_errors.builtin_checks(fn, nodes, values, self.value(node))
            if fn is builtins.sum and not checks:
                checks = python_errors.int_prefix_sum_checks(nodes, values, self.value)
            return checks
        return []

    # ---------------------------------------------------------------- elision
    def refuted(self, check, guards, facts) -> bool:
        """Whether the code runs only where the check's condition is known false (the
        ``else`` of ``if x <= 0:`` for ``math.log(x)``, as `try_except` writes it)."""
        known = [(g, neg) for g, neg in guards] + [(f.test, f.negated) for f in facts]
        if not known:
            return False
        condition = expr(check.template, **check.nodes)
        text = bare_code(condition)
        if any(neg and bare_code(test) == text for test, neg in known):
            return True
        if "abs(" in text and any(self._abs_may_wrap(n) for n in check.nodes.values()):
            return False    # (`_never_true` takes `abs(S)` for non-negative)
        return _never_true(condition, known, self.as_compared)

    def _abs_may_wrap(self, node) -> bool:
        """Whether ``node`` is ``abs(S)`` of a NumPy signed int, which wraps at its type's
        minimum (``abs(np.int16(-32768))`` is -32768: ``math.sqrt`` of it raises)."""
        if not (type(node) is cst.Call and type(node.func) is cst.Name
                and node.func.value == "abs" and len(node.args) == 1):
            return False
        arg = node.args[0].value
        value = self.value(arg)
        if value is None or value.dtype is None or value.dtype.kind != "i":
            return False
        return bool(self.numpy_valued(arg) if value.batched
                    else isinstance(value.example, np.generic))

    def as_compared(self, subject, c: float, literal):
        """The number literal ``literal`` (value ``c``) as a comparison with ``subject``
        computes it, or None where no float64 value says: a fact learned from a comparison
        holds for the values as compared. A NumPy float16/float32 ``subject`` takes the
        literal into its own dtype (NEP 50: ``np.float16(710.0) <= 709.78`` is true, the
        literal rounded to 710.0; one beyond float32's range is inf); a NumPy int64/uint64
        one meets a float literal in float64, which rounds the int from 2**53 on. Python
        numbers, float64 and small ints compare exactly (a Python int literal too: Python
        and NumPy compare ints exactly, `np.uint8(0) > -1` included)."""
        if type(literal) is cst.Integer or type(literal) is cst.UnaryOperation and \
                type(literal.expression) is cst.Integer:
            if abs(c) != int(literal.evaluated_value if type(literal) is cst.Integer
                             else literal.expression.evaluated_value):
                return None     # (a float64 bound that is not the literal's value)
        value = self.value(subject)
        if value is None or value.rank != 0 or value.dtype is None or not (
                self.numpy_valued(subject) if value.batched
                else isinstance(value.example, np.generic)):
            return c
        dtype = value.dtype
        if dtype.kind == "f" and dtype.itemsize < 8:
            with np.errstate(over="ignore"):
                return float(dtype.type(c))
        if dtype.kind in "iu" and dtype.itemsize >= 8 and type(literal) is not cst.Integer \
                and abs(c) >= 2.0 ** 53:
            return None
        if dtype.kind not in "fiub":
            return None
        return c

    def spans(self):
        """`analysis.ranges.Ranges` of the function, or None."""
        if self._ranges is False:
            self._ranges = self.make_ranges() if self.make_ranges is not None else None
        return self._ranges

    def nonzero(self, node, guards, facts) -> bool:
        if _sign(node, self) == 2 or ranges.excludes_zero(self.spans(), node):
            return True
        code = bare_code(node)
        known = [(g, neg) for g, neg in guards] + [(f.test, f.negated) for f in facts]
        return any(_implies_nonzero(test, negated, code, self.as_compared)
                   for test, negated in known)


def _index_chain(node: cst.Subscript):
    """``TABLE`` and the single indexes of ``TABLE[i][j]...`` (outermost first); None where
    a link is a slice or several indexes."""
    links, root = [], node
    while type(root) is cst.Subscript:
        if len(root.slice) != 1 or type(root.slice[0].slice) is not cst.Index:
            return None
        links.append(root.slice[0].slice.value)
        root = root.value
    return root, links


_NO_ITEM = object()


def _first_item(table, depth: int):
    """The first item ``depth`` levels into nested lists or tuples, else `_NO_ITEM`."""
    item = table
    for _ in range(depth):
        if not isinstance(item, (list, tuple)) or not item:
            return _NO_ITEM
        item = item[0]
    return item


def _item_links(node: cst.Subscript, example):
    """``TABLE[i][j]...`` of a Python list or tuple of rows the same for every example: the
    indexes of the chain (outermost first) where ``node`` is an item of the table, ``[]``
    where it is still a row (``TABLE[i]`` indexed further); None where ``node`` is not
    such a chain."""
    chain = _index_chain(node)
    if chain is None:
        return None
    root, links = chain
    table = example(root)
    if not isinstance(table, (list, tuple)) or not table or not all(
            isinstance(row, (list, tuple)) for row in table):
        return None
    item = _first_item(table, len(links))
    if item is _NO_ITEM:
        return None
    return [] if isinstance(item, (list, tuple)) else links


def _nested_item(node: cst.Subscript, example):
    """``TABLE[i][j]...`` (two or more single indexes) of a Python list or tuple of rows the
    same for every example: a representative item (the first at that depth), which is a
    Python number per example where the table holds Python numbers; else None."""
    chain = _index_chain(node)
    if chain is None:
        return None
    root, links = chain
    table = example(root)
    if len(links) < 2 or not isinstance(table, (list, tuple)):
        return None
    item = _first_item(table, len(links))
    return None if item is _NO_ITEM else item


def _sign(node, checks: _Checks) -> int:
    """2: positive (or NaN), 1: not negative (or NaN), 0: unknown."""
    t = type(node)
    value = checks.value(node)
    if value is not None and value.exact and isinstance(
            value.example, (int, float, np.integer, np.floating)):
        ex = value.example
        return 2 if ex > 0 else 1 if ex == 0 else 0
    if t in (cst.Integer, cst.Float):
        return 2 if float(node.evaluated_value) > 0 else 1
    if t is cst.BinaryOperation:
        op = type(node.operator)
        if op is cst.Multiply and bare_code(node.left) == bare_code(node.right):
            return 1
        if op is cst.Power and type(node.right) is cst.Integer and \
                int(node.right.evaluated_value) % 2 == 0:
            return 1
        sl, sr = _sign(node.left, checks), _sign(node.right, checks)
        if op is cst.Add and sl and sr:
            return 2 if 2 in (sl, sr) else 1
        if op in (cst.Multiply, cst.Divide) and sl and sr:
            return 1
        return 0
    if t is cst.Call:
        fn = checks.example(node.func)
        args = [a.value for a in node.args]
        if fn in (builtins.abs, math.fabs, math.sqrt, math.exp, math.hypot, np.abs,
                  np.sqrt, np.exp, np.hypot, np.fabs, math.exp2, np.exp2):
            return 1
        if fn in (math.cosh, np.cosh):
            return 2
        if fn is builtins.max and any(_sign(a, checks) == 2 for a in args):
            return 2
        return 0
    return 0


def _implies_nonzero(test, negated: bool, code: str, compared=None) -> bool:
    """Whether ``test`` (``not test`` when ``negated``) holding means ``code`` is not 0
    (``compared``: `_Checks.as_compared`, the literal as the comparison computes it)."""
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        return _implies_nonzero(test.expression, not negated, code, compared)
    if type(test) is cst.BooleanOperation:
        conjunction = isinstance(test.operator, cst.And) != negated
        if conjunction:
            return (_implies_nonzero(test.left, negated, code, compared)
                    or _implies_nonzero(test.right, negated, code, compared))
        return (_implies_nonzero(test.left, negated, code, compared)
                and _implies_nonzero(test.right, negated, code, compared))
    if type(test) is not cst.Comparison or len(test.comparisons) != 1:
        return False
    op = type(test.comparisons[0].operator)
    left, right = test.left, test.comparisons[0].comparator
    constant = _constant(right)
    subject, literal = left, right
    if constant is None:
        constant, subject, literal = _constant(left), right, left
        op = {cst.LessThan: cst.GreaterThan, cst.GreaterThan: cst.LessThan,
              cst.LessThanEqual: cst.GreaterThanEqual,
              cst.GreaterThanEqual: cst.LessThanEqual}.get(op, op)
    if constant is not None and compared is not None:
        constant = compared(subject, constant, literal)
    if constant is None:
        return False
    is_abs = (type(subject) is cst.Call and type(subject.func) is cst.Name
              and subject.func.value == "abs" and len(subject.args) == 1)
    if bare_code(subject) != code and not (is_abs and bare_code(subject.args[0].value) == code):
        return False
    if negated:
        return op is cst.Equal and constant == 0
    return ((op is cst.NotEqual and constant == 0) or (op is cst.Equal and constant != 0)
            or (op is cst.GreaterThan and constant >= 0)
            or (op is cst.GreaterThanEqual and constant > 0)
            or (not is_abs and op is cst.LessThan and constant <= 0)
            or (not is_abs and op is cst.LessThanEqual and constant < 0))


_FLIP = {cst.LessThan: cst.GreaterThan, cst.GreaterThan: cst.LessThan,
         cst.LessThanEqual: cst.GreaterThanEqual, cst.GreaterThanEqual: cst.LessThanEqual,
         cst.Equal: cst.Equal, cst.NotEqual: cst.NotEqual}
_NEGATE = {cst.LessThan: cst.GreaterThanEqual, cst.GreaterThanEqual: cst.LessThan,
           cst.GreaterThan: cst.LessThanEqual, cst.LessThanEqual: cst.GreaterThan,
           cst.Equal: cst.NotEqual, cst.NotEqual: cst.Equal}


def _bounds(test, negated: bool, out: list, compared=None) -> None:
    """(subject text, operator, constant) facts that hold where ``test`` (``not test``) does:
    of a comparison with a number, and of each side of an ``and`` that holds. A negated
    comparison also holds for NaN, which makes every comparison false, so the checks (all
    comparisons, false for NaN) may ignore it. ``compared(subject, c, literal)``: the
    constant as the comparison computes it (`_Checks.as_compared`: rounded to a float16
    subject's dtype...), None for no fact; the facts hold for the values as compared."""
    if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        _bounds(test.expression, not negated, out, compared)
        return
    if type(test) is cst.BooleanOperation:
        if isinstance(test.operator, cst.And) != negated:
            _bounds(test.left, negated, out, compared)
            _bounds(test.right, negated, out, compared)
        return
    if type(test) is not cst.Comparison:
        return
    operands = [test.left] + [c.comparator for c in test.comparisons]
    if len(test.comparisons) > 1 and negated:
        return
    for left, link, right in zip(operands, test.comparisons, operands[1:]):
        op = type(link.operator)
        if op not in _FLIP:
            continue
        c = _constant(right)
        subject, literal = left, right
        if c is None:
            c, subject, literal, op = _constant(left), right, left, _FLIP[op]
        if c is not None and compared is not None:
            c = compared(subject, c, literal)
        if c is None:
            continue
        out.append((bare_code(subject), _NEGATE[op] if negated else op, c))


def _holds(op, v, c) -> bool:
    return {cst.LessThan: v < c, cst.LessThanEqual: v <= c, cst.GreaterThan: v > c,
            cst.GreaterThanEqual: v >= c, cst.Equal: v == c, cst.NotEqual: v != c}[op]


def _never_true(condition, known, compared=None) -> bool:
    """Whether the facts ``known`` make the comparison ``condition`` false wherever the code
    runs: each link ``S op c`` of it (``abs(S) op c`` too) against the facts on ``S``
    (``compared``: `_bounds`'s, for the facts and the links alike)."""
    if type(condition) is cst.BooleanOperation:
        if isinstance(condition.operator, cst.And):
            return _never_true(condition.left, known, compared) or _never_true(
                condition.right, known, compared)
        return _never_true(condition.left, known, compared) and _never_true(
            condition.right, known, compared)
    facts: list = []
    for test, negated in known:
        _bounds(test, negated, facts, compared)
    links: list = []
    _bounds(condition, False, links, compared)
    if type(condition) is not cst.Comparison or not links:
        return False
    for subject, op, c in links:
        wrapped = subject.startswith("abs(") and subject.endswith(")")
        inner = _unfloated(subject[4:-1] if wrapped else subject)
        lo, hi = -math.inf, math.inf          # closed bounds, nudged inward for strict facts
        for s, fop, fc in facts:
            if s != inner:
                continue
            if fop in (cst.GreaterThan, cst.GreaterThanEqual):
                lo = max(lo, _above(fc) if fop is cst.GreaterThan else fc)
            elif fop in (cst.LessThan, cst.LessThanEqual):
                hi = min(hi, -_above(-fc) if fop is cst.LessThan else fc)
            elif fop is cst.Equal:
                lo, hi = max(lo, fc), min(hi, fc)
        if lo > hi:
            return True
        if wrapped:
            lo, hi = (0.0 if lo <= 0 <= hi else min(abs(lo), abs(hi))), max(abs(lo), abs(hi))
        # the link can hold somewhere in [lo, hi] unless both ends and the constant say not
        if op in (cst.LessThan, cst.LessThanEqual) and not _holds(op, lo, c):
            return True
        if op in (cst.GreaterThan, cst.GreaterThanEqual) and not _holds(op, hi, c):
            return True
        if op is cst.Equal and not lo <= c <= hi:
            return True
    return False


def _above(v: float) -> float:
    """The least number above ``v`` that a float or an int may be (ints beyond 2**53 lie
    between floats: ``n > 2.0**53`` is ``n >= 2**53 + 1``, not the next float)."""
    return math.nextafter(v, math.inf) if abs(v) < 2.0 ** 53 or math.isinf(v) else v


def _unfloated(subject: str) -> str:
    """``float(S)`` is ``S``'s value (a `math` check's argument, converted as `math` converts
    it): the facts on ``S`` bound it."""
    while subject.startswith("float(") and subject.endswith(")") and _balanced(subject[6:-1]):
        subject = subject[6:-1]
    return subject


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            return False
    return depth == 0


def _constant(node):
    sign = 1
    if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus:
        sign, node = -1, node.expression
    if type(node) in (cst.Integer, cst.Float):
        return sign * float(node.evaluated_value)
    return None


_SMALL_STEP = 2 ** 20


def _small_int(node) -> bool:
    c = _constant(node)
    return c is not None and type(node) is not cst.Float and abs(c) <= _SMALL_STEP and not (
        type(node) is cst.UnaryOperation and type(node.expression) is cst.Float)


def _is_counter_step(left, right, counters) -> bool:
    return type(left) is cst.Name and left.value in counters and _small_int(right)


def _range_counters(func: cst.FunctionDef) -> set:
    """Names written only as the target of ``for k in range(...)`` whose start (0 where
    absent) and step (1) are small int literals (`_SMALL_STEP`)."""
    steps: dict[str, bool] = {}
    for n in walk(func.body):
        t = type(n)
        if t is cst.For and type(n.target) is cst.Name:
            it = n.iter
            ok = type(it) is cst.Call and type(it.func) is cst.Name and \
                it.func.value == "range" and 1 <= len(it.args) <= 3 and not any(
                    a.star or a.keyword is not None for a in it.args) and (
                    len(it.args) == 1 or _small_int(it.args[0].value)) and (
                    len(it.args) < 3 or _small_int(it.args[2].value))
            steps[n.target.value] = steps.get(n.target.value, True) and ok
        elif t in (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.NamedExpr, cst.For):
            for name in writes(n.target if t in (cst.For, cst.NamedExpr, cst.AugAssign)
                               else n):
                steps[name] = False
    params = {p.name.value for p in func.params.params}
    return {name for name, ok in steps.items() if ok and name not in params}


def _counters(func: cst.FunctionDef) -> set:
    """Names only ever set to a small int literal or stepped by one (``n = 0``, ``n += 1``,
    ``n = n + 1``): counting, they stay far from the int64 limits."""
    steps: dict[str, bool] = {}
    for n in walk(func.body):
        t = type(n)
        if t is cst.Assign:
            for target in n.targets:
                for name in writes(n):
                    value = n.value
                    ok = type(target.target) is cst.Name and (_small_int(value) or (
                        type(value) is cst.BinaryOperation
                        and type(value.operator) in (cst.Add, cst.Subtract)
                        and _is_counter_step(value.left, value.right, {name})))
                    steps[name] = steps.get(name, True) and ok
        elif t is cst.AugAssign and type(n.target) is cst.Name:
            ok = type(n.operator) in (cst.AddAssign, cst.SubtractAssign) and _small_int(n.value)
            steps[n.target.value] = steps.get(n.target.value, True) and ok
        elif t in (cst.For, cst.NamedExpr, cst.AnnAssign):
            for name in writes(n.target if t is not cst.For else n.target) if t is not \
                    cst.AnnAssign else writes(n):
                steps[name] = False
    params = {p.name.value for p in func.params.params}
    return {name for name, ok in steps.items() if ok and name not in params}


def _range_fact(stmt: cst.For):
    """``k >= start`` for ``for k in range(start, ...)`` with a literal start and no step
    (or a positive literal one), else None."""
    it = stmt.iter
    if not (type(stmt.target) is cst.Name and type(it) is cst.Call and type(it.func) is cst.Name
            and it.func.value == "range" and 2 <= len(it.args) <= 3):
        return None
    start = _constant(it.args[0].value)
    step = _constant(it.args[2].value) if len(it.args) == 3 else 1
    if start is None or step is None or step <= 0:
        return None
    return _Fact(cst.Comparison(cst.Name(stmt.target.value), [cst.ComparisonTarget(
        cst.GreaterThanEqual(), cst.Integer(str(int(start))) if start >= 0 else
        cst.UnaryOperation(cst.Minus(), cst.Integer(str(int(-start)))))]), False)


def _definitions(func: cst.FunctionDef) -> dict:
    """name -> the expressions assigned to it (None for one the pass cannot read: a tuple
    target, a loop variable, a walrus); parameters are Python numbers (None)."""
    defs: dict[str, list] = {}
    for p in func.params.params:
        defs.setdefault(p.name.value, []).append(None)
    for n in walk(func.body):
        t = type(n)
        if t is cst.Assign:
            for target in n.targets:
                if type(target.target) is cst.Name:
                    defs.setdefault(target.target.value, []).append(n.value)
                elif _parallel(target.target, n.value):
                    # `a, b = b, a + b`: each name is its own element's
                    for t_el, v_el in zip(target.target.elements, n.value.elements):
                        defs.setdefault(t_el.value.value, []).append(v_el.value)
                else:
                    for name in writes(n):
                        defs.setdefault(name, []).append(None)
        elif t is cst.AnnAssign and type(n.target) is cst.Name and n.value is not None:
            defs.setdefault(n.target.value, []).append(n.value)
        elif t is cst.AugAssign and type(n.target) is cst.Name:
            defs.setdefault(n.target.value, []).append(n.value)
        elif t is cst.NamedExpr and type(n.target) is cst.Name:
            defs.setdefault(n.target.value, []).append(n.value)
        elif t in (cst.For, cst.NamedExpr):
            for name in writes(n.target if t is cst.For else n):
                defs.setdefault(name, []).append(None)
    return defs


def _parallel(target, value) -> bool:
    """Whether ``target = value`` is a tuple (or list) of names assigned a display of as many
    elements, none starred (``a, b = b, a + b``)."""
    sequences = (cst.Tuple, cst.List)
    return (type(target) in sequences and type(value) in sequences
            and len(target.elements) == len(value.elements)
            and all(type(e) is cst.Element and type(e.value) is cst.Name
                    for e in target.elements)
            and all(type(e) is cst.Element for e in value.elements))


# -------------------------------------------------------------------- rewriting
def _combine(op: str, a: tuple, b: tuple):
    """The range of ``x <op> y`` for x in ``a``, y in ``b`` (Python ints: exact)."""
    if op == "+":
        return a[0] + b[0], a[1] + b[1]
    if op == "-":
        return a[0] - b[1], a[1] - b[0]
    if op == "*":
        ends = [x * y for x in a for y in b]
        return min(ends), max(ends)
    if op == "//" and b[0] == b[1] and b[0] > 0:      # by a positive literal: monotone
        return a[0] // b[0], a[1] // b[0]
    if op == "**" and b[0] == b[1] and 0 <= b[0] <= 64:
        k = b[0]
        ends = [a[0] ** k, a[1] ** k] + ([0] if a[0] <= 0 <= a[1] else [])
        return min(ends), max(ends)
    return None


class _Writer:
    def __init__(self, checks: _Checks, local: set[str], namer=None):
        self.checks = checks
        self.namer = namer
        # the file rewriter's code: nothing replays the loop where the batch raises
        self.standalone = False
        self.changed = False
        self.local = local      # the function's parameters and the names it assigns
        # the checks written before the statement at hand on every path to it, with the
        # names they read, none changed since: the same test again cannot fire (`raises`)
        self.written: dict[tuple, frozenset] = {}

    def block(self, stmts, facts: list, top: bool = False, kept=None) -> list:
        """``stmts`` with their checks; the checks written before the block hold in it,
        where they read none of ``kept`` (a loop's changes: they hold on its first pass
        only; None: a branch's block, all hold)."""
        outer = self.written
        self.written = {key: names for key, names in outer.items()
                        if kept is None or not names & kept}
        out = []
        held = self.checks.unbound
        self.checks.unbound = None
        waiting = None      # an unbound-name check held back for the statement after it
        for stmt in stmts:
            name = unbound_check(stmt)
            if name is not None:
                if waiting is not None:
                    out.append(waiting[1])
                waiting = (name, stmt)
                continue
            self.checks.unbound = waiting
            written = self.statement(stmt, facts)
            if self.checks.unbound is not None:     # (not read where `of` looks)
                out.append(self.checks.unbound[1])
            self.checks.unbound = waiting = None
            out.extend(written)
            changed = changes(stmt)
            self.written = {key: names for key, names in self.written.items()
                            if not names & changed}
            if top:
                self.learn(stmt)
        if waiting is not None:
            out.append(waiting[1])
        self.checks.unbound = held
        self.written = outer
        return out

    def learn(self, stmt) -> None:
        """``k = <int expression>`` at the top level of the body, ``k`` assigned nowhere
        else: its range (`_Checks.interval`, with the statement's checks passed) holds for
        every later read."""
        if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
                and type(stmt.body[0]) is cst.Assign and len(stmt.body[0].targets) == 1
                and type(stmt.body[0].targets[0].target) is cst.Name):
            return
        name = stmt.body[0].targets[0].target.value
        analysis = self.checks.analysis
        if analysis.assignment_count(name) != 1:
            return
        span = self.checks.interval(stmt.body[0].value)
        if span is not None:
            self.checks.known[name] = span

    def statement(self, stmt, facts) -> list:
        found: list = []
        self.checks.assumed = {}
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                self.small(small, facts, found)
            return self.raises(found, stmt)
        if isinstance(stmt, cst.If):
            return self.if_statement(stmt, facts)
        if isinstance(stmt, cst.For):
            self.checks.of(stmt.iter, [], facts, found)
            return self.raises(found, self.with_bodies(stmt, facts, _range_fact(stmt)))
        if isinstance(stmt, (cst.While, cst.With)):
            return [self.with_bodies(stmt, facts)]
        return [stmt]

    def small(self, small, facts, found) -> None:
        self.checks.assumed = {}
        t = type(small)
        if t is cst.AugAssign:
            operator = AUGMENTED_TO_BINARY.get(type(small.operator))
            self.checks.of(small.value, [], facts, found)
            if operator in (cst.Add, cst.Subtract) and _is_counter_step(
                    small.target, small.value, self.checks.counters):
                return      # `count += 1`
            # a name's operand is its value before: `r //= 0` of a Python float `r` (the
            # result the analysis gives, inf or NumPy's, is no operand to check)
            before = getattr(self.checks.analysis, "augmented_reads", {}).get(small.target)
            if before is not None and self.checks.python is not None and \
                    isinstance(before, Value) and not before.batched and before.known and \
                    not (isinstance(before.example, np.generic) and type(small.target) is
                         cst.Name):
                numpy_target = type(before.example) not in (bool, int, float, complex)
            elif before is not None and self.checks.python is not None and isinstance(
                    before, Value) and type(small.target) is cst.Name:
                # (what the name holds before the statement: the analysis gives the target
                # its value after it, `r %= r` then `r = r` under an `if`)
                numpy_target = not self.checks.python.python_before(small.target, before)
            else:
                numpy_target = self.checks.numpy_valued(small.target)
            if operator is not None and (numpy_target or self.checks.numpy_valued(small.value)):
                python_before = before if (
                    not numpy_target and isinstance(before, Value) and before.batched) \
                    else None
                found.extend((check, []) for check in self.checks.narrow_int_meeting(
                    operator, small.target, small.value, python_before))
                if self.checks.python_int_power and numpy_target:
                    # (`r **= int(b)` of an int tensor `r`: as `r ** int(b)`)
                    found.extend((check, []) for check in self.checks.int_power(
                        operator, small.target, small.value))
            elif operator is not None:
                a, b = self.checks.value(small.target), self.checks.value(small.value)
                # the result's dtype is the target's (an int target stays int)
                if a is not None and b is not None:
                    for check in python_errors.binary_checks(operator, small.target,
                                                             small.value, before or a, b, a):
                        if not (check.divisor is not None and self.checks.nonzero(
                                check.divisor, [], facts) or self.checks.refuted(
                                check, [], facts)):
                            found.append((check, []))
            if operator is not None and type(small.target) is cst.Name:
                # (`r -= 2**60` as `r - 2**60`)
                binary = cst.BinaryOperation(left=small.target, operator=operator(),
                                             right=small.value)
                found.extend((check, []) for check in self.checks.rounded_int_operands(
                    binary))
                found.extend((check, []) for check in self.checks.zero_divisor(
                    binary, at=small) + self.checks.signed_zero(
                    binary, at=small))      # (`r *= -1`, `r //= k`)
            if operator is not None and type(small.target) is cst.Subscript:
                found.extend((check, []) for check in self.checks.item_update_cast(
                    small.target, operator, small.value))
            return
        if t in (cst.Assign, cst.AnnAssign, cst.Expr, cst.Return):
            if small.value is not None:
                self.checks.of(small.value, [], facts, found)
        if t is cst.Assign and len(small.targets) == 1 and \
                type(small.targets[0].target) is cst.Name:
            found.extend((check, []) for check in self.checks.narrowing_join(
                small.targets[0].target.value, small.value))
        if t is cst.Assign and len(small.targets) == 1 and \
                type(small.targets[0].target) is cst.Subscript:
            found.extend((check, []) for check in self.checks.item_cast(
                small.targets[0].target, small.value))

    def if_statement(self, stmt: cst.If, facts) -> list:
        found: list = []
        self.checks.assumed = {}
        self.checks.of(stmt.test, [], facts, found)
        body = self.block(stmt.body.body, _inside(facts + [_Fact(stmt.test, False)], stmt.body))
        orelse = stmt.orelse
        else_facts = facts + [_Fact(stmt.test, True)]
        if isinstance(orelse, cst.If):
            # (the checks of an `elif`'s test run on its path only: `written` after the
            # `if` is what it was before its test)
            outer = self.written
            self.written = dict(outer)
            inner = self.if_statement(orelse, _inside(else_facts, orelse))
            self.written = outer
            if len(inner) == 1:
                orelse = inner[0]
            else:       # `elif t:` whose test has checks: `else:` / checks / `if t:`
                orelse = cst.Else(body=cst.IndentedBlock(inner))
        elif orelse is not None:
            orelse = orelse.with_changes(body=orelse.body.with_changes(
                body=self.block(orelse.body.body, _inside(else_facts, orelse.body))))
        new = stmt.with_changes(body=stmt.body.with_changes(body=body), orelse=orelse)
        return self.raises(found, new)

    def with_bodies(self, stmt, facts, loop_fact=None):
        inner = _inside(facts, stmt)
        in_body = inner + _inside([loop_fact], stmt.body) if loop_fact is not None else inner
        loop = changes(stmt) if isinstance(stmt, (cst.For, cst.While)) else None
        new = stmt.with_changes(body=stmt.body.with_changes(
            body=self.block(stmt.body.body, in_body, kept=loop)))
        orelse = getattr(stmt, "orelse", None)
        if orelse is not None:
            new = new.with_changes(orelse=orelse.with_changes(body=orelse.body.with_changes(
                body=self.block(orelse.body.body, inner, kept=loop))))
        return new

    def raises(self, found, stmt) -> list:
        """The checks ``found`` as ``if ...: raise ...`` statements, then ``stmt`` (its
        leading comments move to the first check). An operand that may raise where it runs
        (`_Raiser`) and is followed by checks of operands Python evaluates after it is
        computed first, into a fresh name, between the checks of the operands before it and
        those after (``T[k] + 1 / x``: ``item = T[k]``, then ``x``'s check, then ``item + 1
        / x``), so that each example raises what Python's left-to-right evaluation reaches
        first."""
        out, seen = [], set()
        hoisted: dict[int, cst.Name] = {}
        pending: list[_Raiser] = []
        can_hoist = _hoistable(stmt)
        for at, (check, guards) in enumerate(found):
            if isinstance(check, _Raiser):
                check.guards = guards
                pending.append(check)
                continue
            if pending and can_hoist:
                pending = self.hoist(pending, at, guards, hoisted, out)
            if check is _ORDER:
                continue
            if isinstance(check, _UnboundRead):
                out.append(check.check)
                self.changed = True
                continue
            test = unshared(expr(check.template, **{
                k: _replaced(v, hoisted).deep_clone() for k, v in check.nodes.items()}))
            for at, (guard, negated) in enumerate(reversed(guards)):
                g = _replaced(guard, hoisted).deep_clone()
                if negated:
                    g = cst.UnaryOperation(cst.Not(), g)
                # (a check that always fires, `True`, is its guards)
                test = g if at == 0 and check.template == "True" else cst.BooleanOperation(
                    g, cst.And(), test)
            key = (check.exception, bare_code(test))
            if key in seen or key in self.written:
                continue
            seen.add(key)
            names = _plain_reads(test)
            if names is not None and names - _BUILTINS <= self.local:
                self.written[key] = names
            message = check.message
            if self.checks.numpy_scalars:
                message = python_errors.VMAP_MESSAGES.get(message, message)
            exc = cst.Call(cst.Name(check.exception), [cst.Arg(_string(message))])
            out.append(cst.If(test=test, body=cst.IndentedBlock(
                [cst.SimpleStatementLine([cst.Raise(exc=exc)])])))
        if hoisted:
            stmt = _replaced(stmt, hoisted)
        if not out:
            return [stmt]
        self.changed = True
        if stmt.leading_lines:
            out[0] = out[0].with_changes(leading_lines=stmt.leading_lines)
            stmt = stmt.with_changes(leading_lines=())
        return out + [stmt]

    def hoist(self, pending: list, at: int, guards: list, hoisted: dict, out: list) -> list:
        """Before the check at ``at`` (with ``guards``): the raisers found before it
        computed into fresh names (their roots, outermost first where one holds another);
        -> those still pending (a raiser in the same ``and``/``or``/ternary as the check,
        on another branch: computed with the whole of it where a later check needs that)."""
        left, roots = [], []
        for raiser in pending:
            if raiser.end is not None and raiser.start <= at < raiser.end:
                # the check is in the raiser's own `and`/`or`/ternary: on its path after
                # it, the order cannot be kept by computing something first (the checks run
                # before the statement): where nothing replays the loop, refused; on the
                # other branch of a ternary nothing to keep
                if self.standalone and not _exclusive(raiser.guards, guards):
                    raise Unsupported(
                        "an operand that may raise where it runs, followed under the same "
                        "`and`/`or` or conditional expression by an operation checked "
                        "before the statement: the check would fire first, where Python "
                        "raises the operand's exception (the rewritten file has no "
                        "per-example loop to fall back on)", raiser.raiser,
                        "compute it in a statement of its own first", kind="raises")
                left.append(raiser)
                continue
            roots.append(raiser)
        for raiser in roots:
            if id(raiser.root) in hoisted or any(
                    other is not raiser and other.start <= raiser.start and (
                        other.end or 0) >= (raiser.end or 0) and other.root is not raiser.root
                    for other in roots):
                continue        # (computed already, or inside an outer root computed here)
            name = cst.Name(self.namer.fresh(_hoisted_name(raiser.raiser)))
            # (not one `simplify` may substitute back into the statement: it would compute
            # it after what it was computed before)
            self.namer.generated.discard(name.value)
            value = _replaced(raiser.root, hoisted).deep_clone()
            value = value.with_changes(lpar=[], rpar=[]) if getattr(value, "lpar", None) \
                else value
            out.append(cst.SimpleStatementLine([cst.Assign(
                targets=[cst.AssignTarget(name)], value=value)]))
            hoisted[id(raiser.root)] = name
            self.changed = True
        return left


def user_function(fn) -> bool:
    """Whether ``fn`` is a Python function of the user's (not vectorize's, NumPy's or
    math's, nor a lambda): its own checks and `raise`s run inside a call of it, so the call
    may raise where it runs, with no check before the statement standing for it."""
    if not isinstance(fn, types.FunctionType):
        return False
    module = getattr(fn, "__module__", None) or ""
    return not (module.split(".")[0] in ("vectorize", "numpy", "math")
                or fn.__name__ == "<lambda>")


def unbound_check(stmt) -> str | None:
    """``if not <flag>: raise UnboundLocalError("cannot access local variable 'u' ...")``
    (`body_sugar.check_unbound`) -> ``"u"``; else None."""
    if type(stmt) is not cst.If or stmt.orelse is not None or type(
            stmt.test) is not cst.UnaryOperation or len(stmt.body.body) != 1:
        return None
    line = stmt.body.body[0]
    if type(line) is not cst.SimpleStatementLine or type(line.body[0]) is not cst.Raise:
        return None
    exc = line.body[0].exc
    if type(exc) is not cst.Call or type(exc.func) is not cst.Name or \
            exc.func.value != "UnboundLocalError" or len(exc.args) != 1 or \
            type(exc.args[0].value) is not cst.SimpleString:
        return None
    text = exc.args[0].value.evaluated_value
    if not isinstance(text, str) or not text.startswith("cannot access local variable '"):
        return None
    return text.split("'")[1]


def _exclusive(guards: list, others: list) -> bool:
    """Whether no example runs both under ``guards`` and under ``others``: one holds a
    test that the other holds negated (the two branches of a ternary)."""
    mine = {(id(g), negated) for g, negated in guards}
    return any((id(g), not negated) in mine for g, negated in others)


def _hoistable(stmt) -> bool:
    """Whether operands of ``stmt`` may be computed before it into fresh names: one small
    statement (the next ones of a line may read what the first assigns), no walrus."""
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) != 1:
        return False
    head = stmt.test if isinstance(stmt, cst.If) else stmt.iter if isinstance(
        stmt, cst.For) else stmt
    return not any(type(n) is cst.NamedExpr for n in walk(head))


def _hoisted_name(node) -> str:
    if type(node) is cst.Call:
        func = node.func
        base = func.value if type(func) is cst.Name else func.attr.value if type(
            func) is cst.Attribute else "call"
        return f"{base}_value"
    if type(node) is not cst.Subscript:     # an operation (`0.5 | bool(b)`)
        return "operand"
    value = node.value
    base = value.value if type(value) is cst.Name else "item"
    return f"{base.lower()}_item"


class _Replace(cst.CSTTransformer):
    def __init__(self, hoisted: dict):
        self.hoisted = hoisted

    def on_leave(self, original_node, updated_node):
        name = self.hoisted.get(id(original_node))
        if name is not None:
            return name.deep_clone().with_changes(lpar=getattr(original_node, "lpar", ()),
                                                  rpar=getattr(original_node, "rpar", ()))
        return updated_node


def _replaced(node, hoisted: dict):
    """``node`` with the operands computed first (`_Writer.hoist`) read from their names."""
    if not hoisted:
        return node
    name = hoisted.get(id(node))
    if name is not None:
        return name.deep_clone()
    return node.visit(_Replace(hoisted))


def _plain_reads(test) -> frozenset | None:
    """The names ``test`` reads, where it reads nothing else that could change (no item,
    no attribute but a module's function: ``math.isinf``, ``np.isnan``); else None."""
    names, attributes = set(), set()
    for n in walk(test):
        t = type(n)
        if t is cst.Subscript:
            return None
        if t is cst.Attribute:
            if type(n.value) is not cst.Name or n.value.value not in _MODULES:
                return None
            attributes.update((id(n.value), id(n.attr)))
        elif t is cst.Name and id(n) not in attributes:
            names.add(n.value)
    return frozenset(names)


_MODULES = frozenset(("math", "cmath", "np", "numpy"))
_BUILTINS = frozenset(dir(builtins)) - {"__debug__"}


def _string(text: str) -> cst.SimpleString:
    quoted = repr(text)
    if quoted.startswith("'") and '"' not in text:
        quoted = '"' + quoted[1:-1].replace("\\'", "'") + '"'
    return cst.SimpleString(quoted)


def _inside(facts: list, region) -> list:
    """The facts that still hold inside ``region`` (none of their names is assigned there)."""
    assigned = set(writes(region))
    return [f for f in facts if not (f.names & assigned)]


# arithmetic whose result on two Python bools is an int (``True + True`` is 2), where NumPy's
# bool arrays give a bool (`+` a logical or, `*` an and) or an int8 (`//`, `%`, `**`, shifts)
_BOOL_TO_INT_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo,
                          cst.Power, cst.LeftShift, cst.RightShift)


_INT8_OPERATORS = (cst.FloorDivide, cst.Modulo, cst.Power, cst.LeftShift, cst.RightShift)


class _WeakOperands(cst.CSTTransformer):
    """`vectorize`: ``a * t`` (an arithmetic operator) where ``a`` is per example a NumPy
    float16, float32 or complex64 and ``t`` a per-example Python number becomes
    ``a * np.float32(t)`` (the backend's scalar of the type NEP 50 gives ``t``): per example
    the same number (NumPy converts the Python number to ``a``'s type, with the same
    overflow to inf), on the batch a float32 array where ``t``'s array is float64 or int64
    (the product would be float64). Comparisons are refused (`weak_meeting`)."""

    OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo,
                 cst.Power)

    def __init__(self, checks: _Checks, prims):
        self.checks, self.prims = checks, prims
        self.cast = False

    def leave_BinaryOperation(self, original_node, updated_node):
        if type(original_node.operator) not in self.OPERATORS:
            return updated_node
        found = self.checks.weak_operands([original_node.left, original_node.right])
        changes = {}
        for other, _, weak in found:
            side = "left" if other is original_node.left else "right"
            changes[side] = expr(self.prims.scalar("{x}", weak), x=getattr(updated_node, side))
        if not changes:
            return updated_node
        self.cast = True
        return updated_node.with_changes(**changes)


class _PythonBoolArithmetic(cst.CSTTransformer):
    """`vectorize`: ``a + b`` where both are per example Python bools (comparisons of the
    Python numbers numpy.vectorize hands the function, `not`, its bool arguments) and one is
    per example becomes ``int(a) + b``: Python computes with bools as with the ints 0 and 1
    (``(x > 0) + (y > 0) + 1`` counts), NumPy's bool arrays would not (``+`` is a logical
    or, ``-`` raises). NumPy bools (``np.isnan(x)``) keep NumPy's meaning."""

    def __init__(self, checks: _Checks):
        self.checks = checks
        self.counted: set = set()       # the originals made ints here
        # whether bools the same for every example, of the arguments, are used as numbers
        # (`abs(b < 0.5)`, `-(n > 0)` of a shared `n`): computed on the Python numbers as
        # they are, where numpy.vectorize's first example, NumPy bools, has another type
        # (`np.True_ + np.True_` is True) or raises (`-np.True_`): the output types are
        # learned from that example (`Generated.python_bools`), decided here once
        self.shared: bool = False

    def shared_bools(self, operands) -> bool:
        """Whether ``operands`` are all the same for every example and Python bools of the
        arguments (not literals: `True + True` is 2 in the first example too)."""
        values = [self.checks.value(n) for n in operands]
        if any(v is None or v.batched for v in values) or not all(
                map(self.python_bool, operands)):
            return False
        if any(not v.exact for v in values):
            self.shared = True
        return True

    def shared_counted(self, operands, original) -> bool:
        """Whether ``original``, arithmetic on ``operands``, is on Python bools the same for
        every example, of the arguments (`shared_bools`): it computes an int then (``True +
        (k < 0)`` is 2), which the analysis, on NumPy scalars for them (numpy.vectorize's
        first example, a NumPy bool), took for a bool, and a rule for bools would treat it
        as one (``a and flag`` as ``a & flag``: ``True & 2`` is 0). The caller writes it on
        ``int(...)`` of an operand, which the analysis then sees as the int it is."""
        if not self.shared_bools(operands) or all(
                self.checks.value(n).exact for n in operands):
            return False
        self.counted.add(original)
        return True

    def python_bool(self, node) -> bool:
        if node in self.counted:
            return False                # (an int already)
        value = self.checks.value(node)
        if value is None or value.rank != 0 or value.kind != "b":
            return False
        if value.exact and not value.batched:
            return type(value.example) is bool
        return self.checks.python_number(node) and not self.numpy_bool(node)

    def unknown_origin(self, node, seen=frozenset()) -> bool:
        """Whether ``node`` reads a name assigned where the pass cannot tell its value (an
        element of a tuple a call returns, a loop variable, a starred target): `numpy_bool`
        takes such a bool for NumPy's, which per example it may not be."""
        checks = self.checks
        for c in walk(node):
            if type(c) is not cst.Name or c.value in seen:
                continue
            for d in checks.defs.get(c.value, ()):
                if d is None and c.value not in checks.params or d is not None and \
                        self.unknown_origin(d, seen | {c.value}):
                    return True
        return False

    def refuse_unknown(self, operands, node) -> None:
        """Refuses bool arithmetic (``node``) on per-example bools of which one may be a
        Python bool (an int to Python: ``True + True`` is 2) or a NumPy bool (``+`` a
        logical or), and the pass cannot tell which."""
        values = [self.checks.value(n) for n in operands]
        if not all(v is not None and v.rank == 0 and v.kind == "b" for v in values) or \
                not any(v.batched for v in values):
            return
        if any(self.unknown_origin(n) for n in operands):
            raise Unsupported(
                f"`{cst.Module([]).code_for_node(node).strip()}`: arithmetic on a per-example "
                "bool whose origin the engine cannot follow (unpacked from a call or a "
                "list, a loop variable): a Python bool computes as the int 0 or 1, a NumPy "
                "bool as NumPy's bool", node,
                "convert it first: int(...), or assign the comparisons to names one by one")

    def numpy_bool(self, node, seen=frozenset()) -> bool:
        """Whether ``node`` may be per example a NumPy bool: NumPy's comparisons (of a NumPy
        scalar argument handed as it is, `np.True_ > 0`), NumPy's functions; `not` and
        `bool(...)` are Python bools whatever they are of."""
        checks = self.checks
        t = type(node)
        if t is cst.UnaryOperation and type(node.operator) is cst.Not:
            return False
        if t is cst.Call and checks.example(node.func) is builtins.bool:
            return False
        if t is cst.Name:
            name = node.value
            if name in seen:
                return False
            for d in checks.defs.get(name, ()):
                if d is None and name in checks.params:
                    # (a NumPy scalar argument handed as it is)
                    value = checks.value(node)
                    if value is not None and not value.batched and isinstance(
                            value.example, np.generic) and \
                            id(value) not in checks.python_arguments:
                        return True
                elif d is None or self.numpy_bool(d, seen | {name}) or id(
                        d) in checks.augmented and checks.numpy_valued(d):
                    # (`flag = bool(a); flag += a` of a NumPy bool `a`: `True + a` is
                    # NumPy's, a logical or, per example)
                    return True
            return False
        if checks.numpy_valued(node):
            return True
        return any(self.numpy_bool(c, seen) for c in walk(node)
                   if c is not node and type(c) is cst.Name)

    def refuse_mixed_bools(self, operands, node) -> None:
        """`vmap`: refuses bool arithmetic (``node``) where an operand is a Python bool on some
        examples and a NumPy bool on others (``x < 128 < 10`` is the Python ``128 < 10``
        where ``x < 128`` holds; ``r = True``, then ``r = x > y`` under an ``if``): Python's
        bools compute as the ints 0 and 1 (``-r`` is 0 or -1, ``r + r`` is 2), NumPy's as
        bools (``-`` raises, ``+`` is a logical or), and the batch holds one kind."""
        python = self.checks.python
        if python is None:
            return
        for n in operands:
            value = self.checks.value(n)
            if value is None or not value.batched or value.rank != 0 or value.kind != "b" \
                    or n in self.counted:
                continue
            # the pass would count a Python bool that is NumPy's on some examples (which
            # `PythonNumbers` tells, flow-insensitively), or the analysis joined the two
            # kinds of bool (`abstract.MIXED_PARTS`, flow-sensitive)
            parts = {type(p) is bool for p in MIXED_PARTS.get(value, ())}
            if self.python_bool(n) and python.mixed(n) or parts == {True, False}:
                raise Unsupported(
                    f"`{cst.Module([]).code_for_node(node).strip()}`: arithmetic on a "
                    "per-example bool that is a Python bool on some examples and a NumPy "
                    "bool on others: the first compute as the ints 0 and 1, the others as "
                    "NumPy's bools (`-` raises, `+` is a logical or)", node,
                    "convert it first: int(...) or bool(...)", kind="raises")

    def leave_UnaryOperation(self, original_node, updated_node):
        # `-b`, `+b`, `~b`: ints in Python (NumPy raises for bool arrays; its `~` is `not`)
        if type(original_node.operator) not in (cst.Minus, cst.Plus, cst.BitInvert):
            return updated_node
        self.refuse_mixed_bools([original_node.expression], original_node)
        if not self.batched_bool(original_node.expression):
            self.refuse_unknown([original_node.expression], original_node)
            if self.shared_counted([original_node.expression], original_node):
                return updated_node.with_changes(expression=_as_int(updated_node.expression))
            return updated_node
        self.counted.add(original_node)
        return updated_node.with_changes(expression=_as_int(updated_node.expression))

    def leave_Call(self, original_node, updated_node):
        if self.checks.example(original_node.func) in (builtins.divmod, builtins.pow):
            return self.counted_call(original_node, updated_node)
        # `abs(b)`: an int in Python, a bool in NumPy: `int(b)`
        if self.checks.example(original_node.func) is not builtins.abs or len(
                original_node.args) != 1 or original_node.args[0].keyword is not None or \
                original_node.args[0].star:
            return updated_node
        if not self.batched_bool(original_node.args[0].value):
            # (`abs(c if k else (not a))`: an int per example where the bool arm runs)
            counted = self.arms_counted(original_node.args[0].value, updated_node.args[0].value) \
                if self.bool_on_some_lanes(original_node.args[0].value) else None
            if counted is not None:
                self.counted.add(original_node)
                return updated_node.with_changes(
                    args=[updated_node.args[0].with_changes(value=counted)])
            self.refuse_unknown([original_node.args[0].value], original_node)
            if self.shared_counted([original_node.args[0].value], original_node):
                return _as_int(updated_node.args[0].value).with_changes(
                    lpar=updated_node.lpar, rpar=updated_node.rpar)
            return updated_node
        self.counted.add(original_node)
        return _as_int(updated_node.args[0].value).with_changes(
            lpar=updated_node.lpar, rpar=updated_node.rpar)

    def counted_call(self, original_node, updated_node):
        """``divmod(a, b)`` / ``pow(a, b)`` of Python bools per example (``divmod(True,
        True)`` is ``(1, 0)``), or of one and a Python int: ints in Python, NumPy's int8 on
        bool arrays (no bool loop). The bool made an int, as for the operators
        (`leave_BinaryOperation`)."""
        args = original_node.args
        if len(args) != 2 or any(a.star or a.keyword is not None for a in args):
            return updated_node
        operands = (args[0].value, args[1].value)
        values = [self.checks.value(n) for n in operands]
        if not any(v is not None and v.batched for v in values):
            if self.shared_counted(operands, original_node):
                return updated_node.with_changes(args=[
                    updated_node.args[0].with_changes(
                        value=_as_int(updated_node.args[0].value)),
                    updated_node.args[1]])
            return updated_node
        bools = [self.python_bool(n) for n in operands]
        if all(bools):
            self.refuse_mixed_bools(operands, original_node)
            k = 0 if values[0].batched else 1
        else:
            found = [k for k, (b, v, other) in enumerate(zip(bools, values, operands[::-1]))
                     if b and v.batched and self._python_int(other)]
            if not found:
                self.refuse_unknown(operands, original_node)
                return updated_node
            k = found[0]
        self.counted.add(original_node)
        new = list(updated_node.args)
        new[k] = new[k].with_changes(value=_as_int(new[k].value))
        return updated_node.with_changes(args=new)

    def batched_bool(self, node) -> bool:
        value = self.checks.value(node)
        return value is not None and value.batched and self.python_bool(node)

    def leave_AugAssign(self, original_node, updated_node):
        # `n += b` of a bool name: `n = int(n) + b`
        operator = AUGMENTED_TO_BINARY.get(type(original_node.operator))
        if operator not in _BOOL_TO_INT_OPERATORS or type(original_node.target) is not cst.Name:
            return updated_node
        operands = (original_node.target, original_node.value)
        chosen = self.chosen_bools_counted(operands, updated_node, ("target", "value"))
        if chosen is not None:
            self.counted.add(original_node)
            return chosen
        values = [self.checks.value(n) for n in operands]
        shared = not any(v is not None and v.batched for v in values)
        if shared and not self.shared_counted(operands, original_node):
            return updated_node
        if not shared and not (self.python_bool(original_node.value) and self.target_bool(
                original_node.target)):
            self.refuse_unknown(operands, original_node)
            return updated_node
        target = updated_node.target
        self.counted.add(original_node)
        counted = cst.BinaryOperation(
            cst.Call(cst.Name("int"), [cst.Arg(cst.Name(target.value))]), operator(),
            updated_node.value if type(updated_node.value) in (
                cst.Name, cst.Call, cst.Attribute, cst.Subscript) else paren(updated_node.value))
        return cst.Assign([cst.AssignTarget(target)], counted)

    def leave_BinaryOperation(self, original_node, updated_node):
        if type(original_node.operator) not in _BOOL_TO_INT_OPERATORS:
            return updated_node
        operands = (original_node.left, original_node.right)
        values = [self.checks.value(n) for n in operands]
        if not any(v is not None and v.batched for v in values):
            if self.shared_counted(operands, original_node):
                return updated_node.with_changes(left=_as_int(updated_node.left))
            return updated_node
        if all(v is not None and v.rank == 0 and v.kind == "b" for v in values) or type(
                original_node.operator) in _INT8_OPERATORS:
            self.refuse_mixed_bools(operands, original_node)
        for n, other in (operands, operands[::-1]):
            value = self.checks.value(n)
            if value is not None and value.rank == 0 and value.kind == "b" and \
                    self.numpy_bool(n) and self.bool_on_some_lanes(other):
                raise Unsupported(
                    f"`{cst.Module([]).code_for_node(original_node.operator).strip()}` of a "
                    "NumPy bool and a value "
                    "that is a bool on some examples and a number on others: per example "
                    "NumPy's bool arithmetic (a NumPy True plus True is True) or a "
                    "number's applies, the batch holds them all as numbers", original_node,
                    "convert the operands first: int(...) or float(...)")
        chosen = self.chosen_bools_counted(operands, updated_node)
        if chosen is not None:
            self.counted.add(original_node)
            return chosen
        bools = [self.python_bool(n) for n in operands]
        joined = self.bool_arms_counted(operands, bools, updated_node)
        if joined is not None:
            return joined
        if not all(bools):
            self.refuse_unknown(operands, original_node)
        if all(bools):
            side = "left" if values[0].batched else "right"
        elif type(original_node.operator) in _INT8_OPERATORS and any(
                b and v.batched and self._python_int(other)
                for b, v, other in zip(bools, values, reversed(operands))):
            # a bool array meeting a Python int where NumPy has no bool loop (`b ** 2`,
            # `b // 2`, `b << 1`) makes int8 (NEP 50), the example a Python int
            side = "left" if bools[0] and values[0].batched else "right"
        else:
            return updated_node
        self.counted.add(original_node)
        return updated_node.with_changes(**{side: _as_int(getattr(updated_node, side))})

    def bool_arms_counted(self, operands, bools, updated_node):
        """``a + b`` where each operand is a Python bool per example or a number that is one
        on some examples (an arm of a choice the same for every example, ``(not a) if c
        else a``, `bool_on_some_lanes`), at least one of the latter: its Python bool arms
        made the number the choice joins into (``int(...)``), as Python computes with a bool
        (``True + True`` is 2), where the batch may hold the bool arm's array (``+`` a
        logical or, ``-`` raises). A NumPy bool arm keeps NumPy's meaning. None where no
        operand is such."""
        some = [self.bool_on_some_lanes(n) for n in operands]
        if not any(some) or not all(b or s for b, s in zip(bools, some)):
            return None
        changes = {}
        for side, n, on_some in zip(("left", "right"), operands, some):
            counted = self.arms_counted(n, getattr(updated_node, side)) if on_some else None
            if counted is not None:
                changes[side] = counted
        if not changes:
            return None
        self.counted.update(operands)
        return updated_node.with_changes(**changes)

    def mixed_choice(self, node):
        """``node``'s choice (a conditional expression, itself or the one a name it reads is
        assigned) of a per-example bool whose arms are a Python bool and a NumPy bool
        (``(b > 1) if k else (not a)`` of a NumPy scalar ``b``), as ``(choice, its Python
        bool arm's field)``; None for another node."""
        choices = [node] if type(node) is cst.IfExp else [
            d for d in self.checks.defs.get(node.value, ()) if type(d) is cst.IfExp] \
            if type(node) is cst.Name else []
        for choice in choices:
            value = self.checks.value(choice)
            if value is None or value.rank != 0 or value.kind != "b":
                continue
            python = [f for f in ("body", "orelse")
                      if self.python_bool(getattr(choice, f))]
            others = [self.checks.value(getattr(choice, f)) for f in ("body", "orelse")
                      if f not in python]
            if len(python) == 1 and others[0] is not None and others[0].rank == 0 and \
                    others[0].kind == "b":
                return choice, python[0]
        return None

    def chosen_bools_counted(self, operands, updated_node, sides=("left", "right")):
        """``c + y`` where ``c`` is a choice between a Python bool and a NumPy bool
        (`mixed_choice`) and ``y`` a Python bool per example: Python's ``True + True`` is 2
        where the Python bool arm runs, NumPy's bool arithmetic (a logical or) where the
        NumPy one does. A choice whose test is the same for every example, written in the
        operation, has its Python bool arm made an int (``int(not a)``): the type of the
        result follows the shared test, as per example. Refused where the test is per
        example (the batch holds one kind), the choice is assigned to a name first, or ``y``
        is such a choice too (``True + np.True_`` is NumPy's). ``sides``: the fields of
        ``updated_node`` holding the operands (``n += c``: its target, a Python bool before,
        `target_bool`)."""
        for k, (n, other) in enumerate((operands, operands[::-1])):
            found = self.mixed_choice(n)
            if found is None:
                continue
            choice, field = found
            test = self.checks.value(choice.test)
            side = sides[k]
            python_other = self.target_bool(other) if side == "value" else \
                self.python_bool(other)
            if not python_other and self.mixed_choice(other) is None:
                continue
            new = getattr(updated_node, side)
            if python_other and choice is n and test is not None and not test.batched \
                    and type(new) is cst.IfExp:
                arm = _as_int(getattr(new, field))
                return updated_node.with_changes(**{side: new.with_changes(**{field: arm})})
            raise Unsupported(
                f"`{cst.Module([]).code_for_node(updated_node).strip()}`: arithmetic on a "
                "choice between a Python bool and a NumPy bool: a Python bool computes as "
                "the int 0 or 1 (`True + True` is 2), a NumPy bool as NumPy's bool (`+` a "
                "logical or)", n,
                "convert the operands first: int(...), or make both arms the same kind of "
                "bool (bool(...))")
        return None

    def arms_counted(self, n, new):
        """``new`` (the rewritten ``n``), a choice whose number is a Python bool on some
        examples (`bool_on_some_lanes`), with each Python bool arm made the number the
        choice joins into (``int(...)``); None where there is no such arm."""
        value = self.checks.value(n)
        if not (value is not None and value.kind in _NUMBER_OF_KIND and type(n) is cst.IfExp
                and type(new) is cst.IfExp):
            return None
        # (each bool arm made the number: `int(...)` of the joined int would be no
        # conversion in the batch)
        arms = {}
        for field in ("body", "orelse"):
            arm = self.checks.value(getattr(n, field))
            if arm is not None and arm.rank == 0 and arm.kind == "b" and \
                    self.python_bool(getattr(n, field)):
                arms[field] = cst.Call(cst.Name(_NUMBER_OF_KIND[value.kind]), [
                    cst.Arg(getattr(new, field).with_changes(lpar=[], rpar=[]))])
        return new.with_changes(**arms) if arms else None

    def target_bool(self, target) -> bool:
        """Whether the target of ``n += ...`` is a Python bool per example before (the
        analysis gives the target's value before as `augmented_reads`)."""
        if self.python_bool(target):
            return True
        before = getattr(self.checks.analysis, "augmented_reads", {}).get(target)
        if not isinstance(before, Value) or before.rank != 0 or before.kind != "b" or \
                target in self.counted:
            return False
        if before.exact and not before.batched:
            return type(before.example) is bool
        return not self.checks.numpy_valued(target) and not self.numpy_bool(target)

    def bool_on_some_lanes(self, node, seen=frozenset()) -> bool:
        """Whether ``node``, a per-example number in the batch (a joined int or float), is a
        bool on some examples: an arm of a conditional expression, or an assignment to a name
        it reads, that is a bool."""
        value = self.checks.value(node)
        if value is None or not value.batched or value.kind not in "iuf":
            return False
        t = type(node)
        if t is cst.IfExp:
            arms = (node.body, node.orelse)
        elif t is cst.Name and node.value not in seen:
            arms = [d for d in self.checks.defs.get(node.value, ()) if d is not None]
            seen = seen | {node.value}
        else:
            return False
        for arm in arms:
            arm_value = self.checks.value(arm)
            if arm_value is not None and arm_value.rank == 0 and arm_value.kind == "b" or \
                    self.bool_on_some_lanes(arm, seen):
                return True
        return False

    def _python_int(self, node) -> bool:
        value = self.checks.value(node)
        return value is not None and not value.batched and value.rank == 0 and (
            type(value.example) is int or value.kind == "i" and self.checks.python_number(node))


_NUMBER_OF_KIND = {"i": "int", "u": "int", "f": "float"}


_SIGNED_ZERO_OPERATORS = {cst.Multiply: "mul", cst.FloorDivide: "floordiv",
                          cst.Modulo: "mod"}


def _signed_zero_operands(checks, node):
    """``node``'s operation as `python_errors.signed_zero_operation` names it, and its
    operand nodes: ``("neg", [r])`` of ``-r``, ``("divmod", [r, y])`` of ``divmod(r, y)``
    or ``np.divmod(r, y)``; None for another node."""
    t = type(node)
    if t is cst.UnaryOperation and type(node.operator) is cst.Minus:
        return "neg", [node.expression]
    if t is cst.BinaryOperation and type(node.operator) in _SIGNED_ZERO_OPERATORS:
        return _SIGNED_ZERO_OPERATORS[type(node.operator)], [node.left, node.right]
    if t is cst.Call and not any(a.star or a.keyword is not None for a in node.args):
        fn = checks.example(node.func)
        if fn is builtins.divmod and len(node.args) == 2:
            return "divmod", [a.value for a in node.args]
        if isinstance(fn, np.ufunc) and len(node.args) == fn.nin:
            return fn.__name__, [a.value for a in node.args]
    return None


_ATOMS = (cst.Name, cst.Integer, cst.Float, cst.Call, cst.Attribute, cst.Subscript)


def _signed_zero_results(node, operation):
    """The nodes of the numbers ``node`` computes (``a // b`` and ``a % b`` of a divmod),
    whose -0.0 the checks look for; None where they cannot be written."""
    if type(node) is cst.Call:
        if operation is None:
            return None
        name, operands = operation
        if name == "divmod":
            a, b = (o if type(o) in _ATOMS or o.lpar else paren(o) for o in operands)
            return [cst.BinaryOperation(left=a, operator=cst.FloorDivide(), right=b),
                    cst.BinaryOperation(left=a, operator=cst.Modulo(), right=b)]
    return [node]


def _as_int(node) -> cst.Call:
    return cst.Call(cst.Name("int"), [cst.Arg(node.with_changes(lpar=[], rpar=[]))])


def transform(func: cst.FunctionDef, ctx) -> cst.FunctionDef:
    numpy_scalars = not getattr(ctx.module, "python_semantics", False)
    if not (ctx.registry.backend.exception_checks or numpy_scalars):
        return func     # (a backend whose examples are never Python's: PyTorch's tensors)
    analysis = ctx.analyze(func)
    checks = _Checks(analysis, func, numpy_scalars, getattr(ctx, "python_params", frozenset()))
    semantics = ctx.module.python_semantics
    if not getattr(semantics, "types_only", False):
        # (`vmap`: the Python bools the function makes of its NumPy scalars, `not a`)
        checks.python_arguments = frozenset(map(id, getattr(semantics, "numbers", ())))
        checks.in_helper = bool(getattr(ctx, "helper", False))
        counting = _PythonBoolArithmetic(checks)
        counted = func.visit(counting)
        if counting.shared and not numpy_scalars:
            ctx.module.python_bools = True
        if counting.counted:        # (analysed again: the operands are ints now)
            func = counted
            if not numpy_scalars:
                ctx.module.python_bools = True
            analysis = ctx.analyze(func)
            checks = _Checks(analysis, func, numpy_scalars,
                             getattr(ctx, "python_params", frozenset()))
        checks.python_arguments = frozenset(map(id, getattr(semantics, "numbers", ())))
        weak = _WeakOperands(checks, ctx.registry.primitives)
        cast = func.visit(weak) if ctx.registry.backend.analysed_scalars else func
        if weak.cast:               # (analysed again: the operands are NumPy scalars now)
            func = cast
            analysis = ctx.analyze(func)
            checks = _Checks(analysis, func, numpy_scalars,
                             getattr(ctx, "python_params", frozenset()))
    checks.types_only = getattr(semantics, "types_only", False)
    checks.speculative = bool(getattr(ctx, "helper", False)
                              or getattr(ctx, "branches_per_example", False))
    checks.narrow_ints = ctx.registry.backend.weak_python_numbers
    checks.narrow_joins = ctx.registry.backend.narrowing_joins
    checks.unsigned_comparisons = ctx.registry.backend.unsigned_comparisons
    checks.int_power_checks = numpy_scalars and ctx.registry.backend.int_power_checks
    checks.python_int_power = numpy_scalars and ctx.registry.backend.python_int_power_raises
    checks.python_arguments = frozenset(map(id, getattr(semantics, "numbers", ())))
    checks.in_helper = bool(getattr(ctx, "helper", False))
    checks.small_ints = frozenset(map(id, getattr(semantics, "small_ints", ())))
    checks.make_ranges = lambda: ranges.of_function(
        ctx.source, func, ctx.params, getattr(ctx, "param_signs", frozenset()),
        not numpy_scalars, getattr(ctx.module, "range_sources", None))
    checks.unreplayed = getattr(ctx, "unreplayed_raising_call", checks.unreplayed)
    writer = _Writer(checks, bound_names(func), ctx.namer)
    writer.standalone = bool(getattr(ctx.module, "standalone", False))
    checks.standalone = writer.standalone
    body = writer.block(func.body.body, [], top=True)
    for node in checks.analysis.signed_zeros:
        if id(node) not in checks.signed_zeros_met:
            # (an operation no check was written for: refused, as it was)
            raise Unsupported(
                "this operation of a value that is an int on some lanes and a float on "
                "others may give -0.0 on an int lane, where per example the int 0 gives 0 "
                "(the batch computes every lane in the joined float)", node,
                "give the value one type on every path (e.g. float(...) where it is "
                "assigned)")
    for node in checks.analysis.zero_divisors:
        if id(node) not in checks.zero_divisors_met:
            raise Unsupported(
                "this int division of a value that is a NumPy int on some lanes and a float "
                "on others may divide by zero: there the int gives 0, the batch's float nan "
                "or inf", node,
                "give the value one type on every path (e.g. float(...) where it is "
                "assigned)")
    for node in getattr(checks.analysis, "bool_lanes", {}):
        if id(node) not in checks.bool_lanes_met and not checks.types_only:
            raise Unsupported(
                "a NumPy function of a value that is a Python bool on some lanes, which "
                "raises TypeError there, while the batch computes every lane in the joined "
                "type", node, "give the value one type on every path (e.g. float(...) where "
                "it is assigned)", kind="raises")
    if not writer.changed:
        return func
    return func.with_changes(body=func.body.with_changes(body=body))
