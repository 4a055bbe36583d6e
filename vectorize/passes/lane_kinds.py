"""Give a `vmap` result that is a different type of number on different lanes the type the
per-example loop's stack gives it on each call.

Assumes: scalar-style code after `early_return` (a function with a per-example ``return``
ends in one ``return``); the current analysis (`abstract.MIXED_PARTS`: the lane types of a
value joined from numbers of different types). Runs for `vmap` only
(`transform.ModuleContext.lane_kinds`) on a backend that settles kinds
(`Backend.settles_lane_kinds`), and only on the main function. Reads and writes no record.
Guarantees: where a returned value (an item of a returned tuple display) is such a join and
some of its lane types stack to another dtype than the join (``x if x > 0 else 0`` of a
float64 ``x``: an int on some lanes), every assignment of the names it is returned from gets
a companion code of the lane's type, assigned before it (``r_kind = 0``, or ``r_kind =
s_kind`` of ``r = s``; a conditional expression's ``k_a if c else k_b``), which the passes
after merge and carry as they do any per-example int; the ``return`` returns
``__lane_kinds__(r, r_kind, ("float64", "int64"))``, per example ``r`` itself, on a batch
the join cast to ``np.result_type`` of the types the lanes of that call hold, as ``np.stack``
of the loop's results promotes them (`backends.numpy.merge.settle`; an empty batch keeps the
join: the loop has no example). ``s op= e`` gets the code of ``s op e``; an operation of
several such operands a choice of the code each combination of theirs gives. A helper's
result raises `inline_helpers.InlineForKinds`: the pipeline runs again with the helper
written out into the function (a helper that cannot be is left called: the result keeps
the join). Where the code cannot be followed (a name bound by a ``for``) the result keeps
the join; where the joined type does not hold every lane type's values exactly (a Python
float beside float32 lanes) and the code differs between the examples of a call (a choice
by a test that is the same for every example joins no lanes), it is refused, located; ints
in a float join are checked on the calls where every lane is an int (`merge.settle`).

    r = 0                        r_kind = 0
    if x > 0:                    r = 0
        r = x           ->       if x > 0:
    return r                         r_kind = 1
                                     r = x
                                 return __lane_kinds__(r, r_kind, ("int64", "float64"))
"""

from __future__ import annotations

import builtins
import operator
import types
import warnings

import libcst as cst
import numpy as np

from ..abstract import MIXED_KINDS, MIXED_PARTS, UNKNOWN, TupleValue, Value
from ..analysis.purity import PURE_BUILTINS, in_package, pure_numpy
from ..errors import Unsupported
from ..inline_helpers import InlineForKinds
from ..introspect import forwarded_target, python_function_of
from ..rules.lanes import LANE_KINDS
from ..syntax.traversal import walk
from .batch_rules import is_docstring as _is_docstring

_SUGGESTION = ("give every path the same type of number (`0.0` beside floats, `float(x)`), "
               "or return the value from a name assigned it as it is")


class _Untracked(Exception):
    def __init__(self, node, why: str, lossy: bool = False, helper=None):
        super().__init__(why)
        self.node = node
        self.why = why
        self.lossy = lossy      # (the join itself changes a lane's value: refused)
        self.helper = helper    # (a helper's result: followed once written out)


def transform(func: cst.FunctionDef, ctx) -> cst.FunctionDef:
    if not getattr(ctx.module, "lane_kinds", False) or getattr(ctx, "helper", False) or \
            not getattr(ctx.registry.backend, "settles_lane_kinds", False):
        return func
    analysis = ctx.analyze(func)
    wanted = [(ret, value) for ret, value in analysis.returns
              if ret.value is not None and _needs(value)]
    if not wanted:
        return func
    tracker = _Tracker(func, analysis, ctx)
    try:
        # (rounds until the codes of names assigned from each other settle: each round
        # starts from the codes the last one found)
        for _ in range(8):
            tracker.start_round()
            replace = {ret: ret.with_changes(value=tracker.returned(ret.value, value, ret))
                       for ret, value in wanted}
            if tracker.settled_round():
                break
        else:
            raise _Untracked(wanted[0][0], "the types its names take do not settle")
        tracker.check()
    except _Untracked as problem:
        if problem.helper is not None and problem.helper not in ctx.kinds_not_inlined:
            # (the pipeline runs again with the helper's calls written out, and those of the
            # other helpers whose results are such joins: `inline_helpers`)
            raise InlineForKinds([problem.helper, *tracker.joined_helpers(
                problem.helper)], problem.node) from None
        if not problem.lossy:
            # (a value the codes do not follow, mostly one the analysis joins from paths
            # no example takes alone, `s = 0` then a loop of float sums, or a helper's
            # result: the result keeps the join's type, every lane's value exact;
            # docs/semantics.md, "vmap: a value of different types on different lanes")
            return func
        raise Unsupported(
            "a result that is a different type of number on different lanes (the "
            "per-example loop stacks each call's lanes to the type of the ones it holds) "
            f"where {problem.why}", problem.node, _SUGGESTION) from None
    ctx.module.settles_kinds = True     # (never run in chunks: `Generated.settles_kinds`)
    return tracker.rewritten(replace)


def _extremum(function) -> str | None:
    """"max" or "min" where ``function`` (an abstract value) is Python's builtin."""
    example = getattr(function, "example", None)
    return "max" if example is builtins.max else "min" if example is builtins.min else None


def _needs(value) -> bool:
    if isinstance(value, TupleValue):
        return any(_needs(item) for item in value.items)
    return isinstance(value, Value) and value.batched and (
        value in MIXED_KINDS or value in MIXED_PARTS) and _stacks_differently(value)


def _stacks_differently(value) -> bool:
    """Whether some lane type of ``value`` stacks to another dtype than its join (a value of
    mixed lanes whose parts are unknown: assumed so)."""
    parts = MIXED_PARTS.get(value)
    joined = _dtype(value.example)
    if parts is None or joined is None:
        return True
    return any(_dtype(p) != joined for p in parts)


def _dtype(example):
    """The dtype ``np.stack`` gives a lane holding ``example`` (a Python int: int64)."""
    if example is UNKNOWN:
        return None
    try:
        dtype = np.asarray(example).dtype
    except Exception:  # noqa: BLE001 -- not a number
        return None
    return dtype if dtype.kind in "biufc" else None


def _holds(joined, dtype, constants=None) -> bool:
    """Whether every value of ``dtype`` a lane may have (``constants``, where every such
    value is one of them) is exactly a value of ``joined`` (so that the join cast back to
    ``dtype`` gives the lane's own value)."""
    if dtype == joined or dtype.kind == "b":
        return True
    if constants is not None and joined.kind in "iufc":
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                # (compared as Python numbers: NEP 50 would convert ``c`` to a float16)
                return all(joined.type(c).item() == c or c != c and joined.kind in "fc"
                           for c in constants)
        except Exception:  # noqa: BLE001 -- not held
            return False
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        span = (int(info.min), int(info.max))
        if joined.kind in "iu":
            info = np.iinfo(joined)
            return int(info.min) <= span[0] and span[1] <= int(info.max)
        # (in a float join: where every lane of a call is an int, `merge.settle` checks
        # that the join holds each exactly, else the per-example loop decides)
        return joined.kind == "f"
    if dtype.kind in "fc":
        return joined.kind in "fc" and np.can_cast(dtype, joined, "safe")
    return False


def _pure(node, values=None) -> bool:
    """Whether ``node`` may be evaluated again for the kind code: no assignment, and no call
    but of a function without side effects the analysis knows (``values``: its values),
    ``math.floor(k)`` of a test ``math.floor(k) and x`` (the code chooses as the value)."""
    for n in walk(node):
        t = type(n)
        if t in (cst.NamedExpr, cst.Await, cst.Yield, cst.Lambda):
            return False
        if t is cst.Call:
            fn = getattr(values.get(n.func), "example", None) if values else None
            if not (fn is not None and _pure_function(fn)):
                return False
    return True


def _pure_function(fn) -> bool:
    try:
        if fn in PURE_BUILTINS:
            return True
    except TypeError:       # (unhashable)
        return False
    return pure_numpy(fn) or in_package(fn, "math", "cmath")


_BINARY = {cst.Add: operator.add, cst.Subtract: operator.sub, cst.Multiply: operator.mul,
           cst.Divide: operator.truediv, cst.FloorDivide: operator.floordiv,
           cst.Modulo: operator.mod, cst.Power: operator.pow, cst.BitAnd: operator.and_,
           cst.BitOr: operator.or_, cst.BitXor: operator.xor,
           cst.LeftShift: operator.lshift, cst.RightShift: operator.rshift}
_AUGMENTED = {cst.AddAssign: operator.add, cst.SubtractAssign: operator.sub,
              cst.MultiplyAssign: operator.mul, cst.DivideAssign: operator.truediv,
              cst.FloorDivideAssign: operator.floordiv, cst.ModuloAssign: operator.mod,
              cst.PowerAssign: operator.pow, cst.BitAndAssign: operator.and_,
              cst.BitOrAssign: operator.or_, cst.BitXorAssign: operator.xor,
              cst.LeftShiftAssign: operator.lshift, cst.RightShiftAssign: operator.rshift}
_UNARY = {cst.Minus: operator.neg, cst.Plus: operator.pos, cst.BitInvert: operator.invert}


_CONSTANTS = 16
"""The most constants a kind code keeps (more: its values are any of its type)."""


def _constants_of(compute, constants):
    """``compute`` of each of ``constants`` (None: not only constants)."""
    if constants is None:
        return None
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return frozenset(compute(c) for c in constants)
    except Exception:  # noqa: BLE001 -- raises for one: not followed as constants
        return None


def _constant(value) -> bool:
    return not value.batched and value.exact and type(value.example) in (bool, int, float,
                                                                         complex)


def _choice(test, body, orelse) -> cst.BaseExpression:
    """The kind code ``body if test else orelse``; of two codes and a comparison, written
    ``orelse + (body - orelse) * (test)`` (a comparison is a bool: no merge, whose branch
    per lane costs where the lanes are in no order)."""
    if type(body) is cst.Integer and type(orelse) is cst.Integer and \
            type(test) is cst.Comparison and len(test.comparisons) == 1:
        step = int(body.value) - int(orelse.value)
        term = test.deep_clone().with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        if step == -1 and int(orelse.value) == 1:
            # (codes 0 and 1: the comparison's negation as a bool, `(x > 0.0) ^ True`,
            # NaN-safe where `x <= 0.0` is not, and settled without counting ints)
            return cst.BinaryOperation(term, cst.BitXor(), cst.Name("True"),
                                       lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        if step != 1:
            term = cst.BinaryOperation(cst.Integer(str(step)) if step >= 0 else
                                       cst.UnaryOperation(cst.Minus(), cst.Integer(str(-step))),
                                       cst.Multiply(), term)
        out = cst.BinaryOperation(orelse, cst.Add(), term) if int(orelse.value) else term
        return out.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.IfExp(test=test.deep_clone(), body=body, orelse=orelse,
                     lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


class _Tracker:
    def __init__(self, func, analysis, ctx):
        self.func = func
        self.analysis = analysis
        self.ctx = ctx
        # kind code -> (whether a Python number, the dtype name a lane of it stacks to)
        self.keys: list[tuple] = []
        self.examples: list = []        # kind code -> an example of its type (the value 1)
        self.constants: list = []       # kind code -> its values, where all are constants
        # (tracked name, path of the item of its tuple) -> its kind code's name, the codes
        self.names: dict[tuple, str] = {}
        self.codes_of: dict[tuple, frozenset] = {}
        self.before: dict = {}          # assignment statement -> {kind code's name: value}
        self.open: dict[tuple, bool] = {}   # names whose codes settle -> read meanwhile
        self.hoisted: dict = {}         # `max`/`min` call -> the names of its operands
        self.kind_names: dict = {}      # (name, path) -> its kind code's name, every round
        self.last_codes: dict = {}      # the codes of the round before
        self.unsettled: list = []       # (node, why) an operation's codes do not give one
        self.initial: dict = {}         # a parameter's kind code's name -> its code
        self.substitute: dict = {}      # such a call -> the call of those names
        # kind codes that differ between the examples of a call (their names; the choices
        # written of per-example tests), and the statements under a per-example test
        self.batched_kinds: set = set()
        self.batched_choices: set = set()
        self.per_example: set = set()
        self._mark(func.body.body, False)

    def start_round(self) -> None:
        self.last_codes = dict(self.codes_of)
        self.last_batched = set(self.batched_kinds)
        self.names, self.before, self.open = {}, {}, {}
        self.substitute, self.initial, self.unsettled = {}, {}, []
        self.empty: list = []

    def settled_round(self) -> bool:
        return self.codes_of == self.last_codes and self.batched_kinds == self.last_batched

    def _mark(self, stmts, under: bool) -> None:
        """Note the statements of ``stmts`` that run under a per-example test."""
        for stmt in stmts:
            if under:
                self.per_example.add(stmt)
                for small in getattr(stmt, "body", ()) if type(
                        stmt) is cst.SimpleStatementLine else ():
                    self.per_example.add(small)
            if type(stmt) in (cst.If, cst.While):
                inner = under or self.analysis.batched_tests.get(stmt, True)
            elif type(stmt) is cst.For:
                value = self.analysis.values.get(stmt.iter)
                inner = under or self.analysis.batched_tests.get(stmt, False) or not (
                    isinstance(value, Value) and not value.batched)
            else:
                inner = under
            if type(stmt) is cst.If:
                self._mark(stmt.body.body, inner)
                orelse = stmt.orelse
                while type(orelse) is cst.If:
                    inner = inner or self.analysis.batched_tests.get(orelse, True)
                    self._mark(orelse.body.body, inner)
                    orelse = orelse.orelse
                if orelse is not None:
                    self._mark(orelse.body.body, inner)
            elif type(stmt) in (cst.For, cst.While):
                self._mark(stmt.body.body, inner)
                if stmt.orelse is not None:
                    self._mark(stmt.orelse.body.body, inner)
            elif type(stmt) not in (cst.SimpleStatementLine,) and hasattr(stmt, "body") and \
                    hasattr(stmt.body, "body"):
                self._mark(stmt.body.body, inner)

    def _batched_test(self, *nodes) -> bool:
        """Whether any of ``nodes`` (of the analysed tree) differs between examples."""
        for node in nodes:
            value = self.analysis.values.get(node)
            if not isinstance(value, Value) or value.batched:
                return True
        return False

    def batched(self, expression) -> bool:
        """Whether the kind code ``expression`` may differ between a call's examples."""
        return any(n in self.batched_choices or type(n) is cst.Name and
                   n.value in self.batched_kinds for n in walk(expression))

    def check(self) -> None:
        """After the last round: what was left unfollowed is refused."""
        for node, why in self.unsettled + self.empty:
            raise _Untracked(node, why)

    @property
    def table(self) -> list[str]:
        return [dtype for _, dtype in self.keys]

    # -- the return ---------------------------------------------------------------------

    def returned(self, node, value, top=None):
        """``node`` (returning ``value``; the whole value of the statement ``top``) with
        each of its items of lanes of different types settled."""
        if isinstance(value, TupleValue):
            if type(node) in (cst.Tuple, cst.List) and len(node.elements) == len(
                    value.items) and all(type(e) is cst.Element for e in node.elements):
                return node.with_changes(elements=[
                    e.with_changes(value=self.returned(e.value, v))
                    if _needs(v) else e
                    for k, (e, v) in enumerate(zip(node.elements, value.items))])
            if type(node) is cst.Dict and value.keys is not None and len(
                    node.elements) == len(value.items) and all(
                    type(e) is cst.DictElement for e in node.elements):
                return node.with_changes(elements=[
                    e.with_changes(value=self.returned(e.value, v))
                    if _needs(v) else e
                    for k, (e, v) in enumerate(zip(node.elements, value.items))])
            if type(node) is cst.Name and value.keys is None and not any(
                    isinstance(v, TupleValue) and _needs(v) for v in value.items):
                # (``return result`` of a tuple: each item read from it, settled)
                items = []
                for k, v in enumerate(value.items):
                    item = cst.Subscript(node, [cst.SubscriptElement(cst.Index(
                        cst.Integer(str(k))))])
                    items.append(cst.Element(self.settled(item, v, *self.kind(node, (k,)))
                                             if _needs(v) else item))
                return cst.Tuple(items)
            if type(node) is cst.Call and node in self.ctx.helper_nodes:
                self.helper_call(node)      # (`return h(x)` of a tuple)
            raise _Untracked(node, "several results are returned other than as a tuple "
                                   "display, a dict display or a name bound to tuple "
                                   "displays")
        return self.settled(node, value, *self.kind(node, top=top))

    def settled(self, node, value, kind, codes):
        """``__lane_kinds__`` of ``node``, of ``value``, whose kind code is ``kind``."""
        joined = _dtype(value.example)
        if joined is None:
            raise _Untracked(node, "the joined type is not known")
        for code in codes:
            dtype = np.dtype(self.keys[code][1])
            # (a code the same for every example of a call: the batch keeps Python's choice,
            # no lane is joined with another)
            if not _holds(joined, dtype, self.constants[code]) and self.batched(kind):
                raise _Untracked(node, f"the joined {joined} does not hold every {dtype} "
                                       "value a lane may have", lossy=True)
        elements = [cst.Element(cst.SimpleString(f'"{d}"')) for d in self.table]
        if len(elements) == 1:
            elements = [elements[0].with_changes(comma=cst.Comma())]
        return cst.Call(cst.Name(LANE_KINDS), [cst.Arg(node), cst.Arg(kind),
                                               cst.Arg(cst.Tuple(elements))])

    # -- kind codes ---------------------------------------------------------------------

    def code(self, example, node, constants=None) -> int:
        dtype = _dtype(example)
        if dtype is None:
            raise _Untracked(node, "a path gives it a value whose type is not known")
        python = type(example) in (bool, int, float, complex)
        key = (python, dtype.name)
        if key not in self.keys:
            self.keys.append(key)
            self.examples.append(type(example)(1) if python else dtype.type(1))
            self.constants.append(constants)
            return len(self.keys) - 1
        code = self.keys.index(key)
        old = self.constants[code]
        self.constants[code] = None if old is None or constants is None or len(
            old | constants) > _CONSTANTS else old | constants
        return code

    def value_code(self, value, node) -> int:
        example = value.example
        constants = None
        if not value.batched and value.exact and type(example) in (bool, int, float, complex):
            constants = frozenset([example])
        return self.code(example, node, constants)

    def kind(self, node, path=(), top=None) -> tuple:
        """An expression of ``node``'s kind code per example (of its item at ``path``, a
        tuple's), and the codes it may be. ``top``: the statement ``node`` is the whole
        value of (whose operands may be computed before it, under names)."""
        if path:
            return self.item_kind(node, path)
        value = self.analysis.values.get(node)
        if isinstance(value, TupleValue) or value is None:
            raise _Untracked(node, "a path gives it a value the engine does not follow")
        if not (value in MIXED_KINDS or value in MIXED_PARTS):
            code = self.value_code(value, node)
            return cst.Integer(str(code)), frozenset([code])
        if type(node) is cst.Name:
            return self.name_kind(node, ())
        if type(node) is cst.IfExp and _pure(node.test, self.analysis.values):
            (body, a), (orelse, b) = self.kind(node.body), self.kind(node.orelse)
            return self.noted(_choice(node.test, body, orelse), node.test), a | b
        if type(node) is cst.BooleanOperation and _pure(node.left, self.analysis.values):
            (left, a), (right, b) = self.kind(node.left), self.kind(node.right)
            # (`a and b` is `a` where `a` is false, `a or b` where it is true)
            first, second = (right, left) if type(node.operator) is cst.And else (left, right)
            return self.noted(cst.IfExp(test=node.left.deep_clone(), body=first,
                                        orelse=second, lpar=[cst.LeftParen()],
                                        rpar=[cst.RightParen()]), node.left), a | b
        if type(node) is cst.Call and _extremum(self.analysis.values.get(node.func)) and \
                len(node.args) == 2 and not any(a.keyword or a.star for a in node.args):
            return self.extremum(node, top)
        if type(node) is cst.Call and node in self.ctx.helper_nodes:
            self.helper_call(node)
        if type(node) is cst.Call and not any(a.keyword or a.star for a in node.args):
            function = self.analysis.values.get(node.func)
            args = [self.analysis.values.get(a.value) for a in node.args]
            mixed = [isinstance(v, Value) and (v in MIXED_KINDS or v in MIXED_PARTS)
                     for v in args]
            if isinstance(function, Value) and function.known and callable(
                    function.example) and mixed.count(True) == 1 and all(
                    isinstance(v, Value) and v.known for v in args):
                k = mixed.index(True)
                examples = [v.example for v in args]
                return self.mapped(node.args[k].value, lambda e: function.example(
                    *examples[:k], e, *examples[k + 1:]), False)
            if isinstance(function, Value) and function.known and callable(
                    function.example) and mixed.count(True) > 1:
                return self.crossed(node, [a.value for a in node.args], function.example)
        if type(node) is cst.UnaryOperation and type(node.operator) in _UNARY:
            op = _UNARY[type(node.operator)]
            return self.mapped(node.expression, op, True)
        if type(node) is cst.BinaryOperation and type(node.operator) in _BINARY:
            op = _BINARY[type(node.operator)]
            left = self.analysis.values.get(node.left)
            right = self.analysis.values.get(node.right)
            mixed = [v is not None and not isinstance(v, TupleValue) and
                     (v in MIXED_KINDS or v in MIXED_PARTS) for v in (left, right)]
            if mixed == [True, False] and isinstance(right, Value) and right.known:
                other = right.example
                return self.mapped(node.left, lambda e: op(e, other), _constant(right))
            if mixed == [False, True] and isinstance(left, Value) and left.known:
                other = left.example
                return self.mapped(node.right, lambda e: op(other, e), _constant(left))
            if mixed == [True, True]:
                return self.crossed(node, [node.left, node.right], op)
        raise _Untracked(node, "it is computed from a value of several types (only names, "
                               "conditional expressions, `and`/`or` and arithmetic with one "
                               "such operand are followed)")

    def joined_helpers(self, first) -> list:
        """The other helpers whose calls in the function give a join `_needs` settles."""
        out = []
        for node in self.ctx.helper_nodes:
            value = self.analysis.values.get(node)
            if type(node) is not cst.Call or not isinstance(value, Value) or not (
                    value in MIXED_KINDS or value in MIXED_PARTS) or \
                    not _stacks_differently(value):
                continue
            try:
                self.helper_call(node)
            except _Untracked as problem:
                fn = problem.helper
            if fn is not None and fn is not first and fn not in out and \
                    fn not in self.ctx.kinds_not_inlined:
                out.append(fn)
        return out

    def helper_call(self, node):
        """A helper's result: not followed here; the pipeline runs again with the helper
        written out (`inline_helpers`), or the result keeps the join."""
        example = python_function_of(getattr(self.analysis.values.get(node.func), "example",
                                             None))
        example = forwarded_target(example) or example
        raise _Untracked(node, "it is a helper's result", helper=example if isinstance(
            example, types.FunctionType) else None)

    def extremum(self, node, top) -> tuple:
        """``max(a, b)`` (``min``): per example Python's choice, ``b`` where ``b > a``
        (``b < a``), else ``a``; operands that cannot be evaluated again are computed
        before the statement under names, where the call is its whole value."""
        a, b = (arg.value for arg in node.args)
        if not (_pure(a, self.analysis.values) and _pure(b, self.analysis.values)):
            if top is None:
                raise _Untracked(node, "`max`/`min` of it is not the whole value assigned or "
                                       "returned")
            if node not in self.hoisted:
                self.hoisted[node] = [self.ctx.namer.fresh("low" if _extremum(
                    self.analysis.values.get(node.func)) == "min" else "high")
                    for _ in range(2)]
            names = self.hoisted[node]
            hoist = self.before.setdefault(top, {})
            hoist[names[0]], hoist[names[1]] = a, b
            self.substitute[node] = node.with_changes(args=[
                arg.with_changes(value=cst.Name(name))
                for arg, name in zip(node.args, names)])
            first, second = (cst.Name(n) for n in self.hoisted[node])
        else:
            first, second = a.deep_clone(), b.deep_clone()
        (ka, ca), (kb, cb) = self.kind(a), self.kind(b)
        operator_ = cst.GreaterThan() if _extremum(
            self.analysis.values.get(node.func)) == "max" else cst.LessThan()
        test = cst.Comparison(second, [cst.ComparisonTarget(operator_, first)])
        return self.noted(cst.IfExp(test=test, body=kb, orelse=ka, lpar=[cst.LeftParen()],
                                    rpar=[cst.RightParen()]), a, b), ca | cb

    def noted(self, choice, *tests):
        """``choice``, a kind code chosen by ``tests``, noted where they are per example."""
        if self._batched_test(*tests):
            self.batched_choices.add(choice)
        return choice

    def item_kind(self, node, path) -> tuple:
        if type(node) in (cst.Tuple, cst.List) and path[0] < len(node.elements) and all(
                type(e) is cst.Element for e in node.elements):
            return self.kind(node.elements[path[0]].value, path[1:])
        if type(node) is cst.Name:
            return self.name_kind(node, path)
        if type(node) is cst.IfExp and _pure(node.test, self.analysis.values):
            (body, a), (orelse, b) = self.kind(node.body, path), self.kind(node.orelse, path)
            return self.noted(_choice(node.test, body, orelse), node.test), a | b
        raise _Untracked(node, "a tuple of results is made other than by a tuple display")

    def name_kind(self, node, path) -> tuple:
        key = (node.value, path)
        name = self.track(node.value, node, path)
        if key in self.open:
            self.open[key] = True   # (read while its codes are settling: once more)
        return cst.Name(name), self.codes_of.get(key, frozenset())

    def crossed(self, node, operands, compute) -> tuple:
        """The kind code of an operation of several operands of several types: per
        combination of their lane types, the type the operation gives (``r - s / d`` of
        floats and ints: a float), chosen by the operands' codes where they differ."""
        return self.combined(node, [self.kind(operand) for operand in operands], compute)

    def combined(self, node, kinds, compute) -> tuple:
        """``crossed`` of operands whose kind codes and codes are ``kinds``."""
        table = {}
        combinations = [()]
        for _, codes in kinds:
            combinations = [c + (code,) for c in combinations for code in sorted(codes)]
        for combination in combinations:
            try:
                with np.errstate(all="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    out = compute(*[self.examples[code] for code in combination])
            except Exception:  # noqa: BLE001 -- the lane types' raise: not followed
                raise _Untracked(node, "an operation on it raises for one of its lane "
                                       "types") from None
            table[combination] = self.code(out, node)
        results = frozenset(table.values())
        if len(results) != 1:
            # (no codes yet: a name of a loop read before its codes settled, next round)
            if not results:
                return cst.Integer("0"), results
            chosen = self.chosen([kind for kind, _ in kinds], table, ())
            if any(self.batched(kind) for kind, _ in kinds):
                self.batched_choices.add(chosen)
            return chosen, results
        (code,) = results
        return cst.Integer(str(code)), results

    def chosen(self, kinds, table, prefix) -> cst.BaseExpression:
        """The code ``table`` gives the combination of the operands' codes (``kinds``: their
        expressions) that starts with ``prefix``: a choice on the next operand's code."""
        if len(prefix) == len(kinds):
            return cst.Integer(str(table[prefix]))
        codes = sorted({c[len(prefix)] for c in table if c[:len(prefix)] == prefix})
        out = self.chosen(kinds, table, prefix + (codes[-1],))
        for code in codes[:-1][::-1]:
            body = self.chosen(kinds, table, prefix + (code,))
            if body.deep_equals(out):
                continue
            out = cst.IfExp(
                test=cst.Comparison(kinds[len(prefix)].deep_clone(), [cst.ComparisonTarget(
                    cst.Equal(), cst.Integer(str(code)))]),
                body=body, orelse=out, lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        return out

    def mapped(self, operand, compute, exact: bool) -> tuple:
        """The kind code of an operation of one operand of several types: per code of the
        operand, the code of the operation on an example of its type (``exact``: the other
        operand is a constant, so a code's constants stay constants)."""
        kind, codes = self.kind(operand)
        return self.mapped_codes(operand, kind, codes, compute, exact)

    def mapped_codes(self, operand, kind, codes, compute, exact: bool) -> tuple:
        """`mapped` of an operand whose kind code is ``kind``, its codes ``codes``."""
        mapping = {}
        for code in sorted(codes):
            try:
                with np.errstate(all="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    out = compute(self.examples[code])
            except Exception:  # noqa: BLE001 -- the lane's type raises: not followed
                raise _Untracked(operand, "an operation on it raises for one of its lane "
                                          "types") from None
            mapping[code] = self.code(out, operand, _constants_of(
                compute, self.constants[code]) if exact else None)
        results = frozenset(mapping.values())
        if len(results) == 1:
            return cst.Integer(str(next(iter(results)))), results
        if all(code == new for code, new in mapping.items()):
            return kind, results
        expression = cst.Integer(str(mapping[max(mapping)]))
        for code in sorted(mapping)[:-1][::-1]:
            if type(expression) is cst.Integer and int(expression.value) == mapping[code]:
                continue    # (the same code either way: no choice)
            expression = cst.IfExp(
                test=cst.Comparison(kind.deep_clone(), [cst.ComparisonTarget(
                    cst.Equal(), cst.Integer(str(code)))]),
                body=cst.Integer(str(mapping[code])), orelse=expression,
                lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        if self.batched(kind):
            self.batched_choices.add(expression)
        return expression, results

    def track(self, name: str, node, path=()) -> str:
        """The kind code's name of the local ``name`` (of its item at ``path``), every
        assignment of it paired with one."""
        if (name, path) in self.names:
            return self.names[name, path]
        if (name, path) not in self.kind_names:
            self.kind_names[name, path] = self.ctx.namer.fresh(
                "_".join([name, "kind", *map(str, path)]))
        kind = self.names[name, path] = self.kind_names[name, path]
        # (a name assigned from itself, a loop's carry `r = r + 0.5`: its codes grow until
        # they settle, a few rounds at most: the codes are types)
        self.open[name, path] = True
        for _ in range(8):
            self.open[name, path] = False
            before = self.codes_of.get((name, path), frozenset())
            self.codes_of[name, path] = before | self.assignments(name, node, path, kind)
            if not self.open[name, path] or self.codes_of[name, path] == before:
                break
        else:
            raise _Untracked(node, f"the types `{name}` takes in its loop do not settle")
        del self.open[name, path]
        if not self.codes_of[name, path]:
            # (a name assigned from names whose codes are still settling: next round)
            self.empty.append((node, f"`{name}` is not assigned in the function"))
        return kind

    def assignments(self, name, node, path, kind) -> frozenset:
        """Pair every assignment of ``name`` with one of its kind code ``kind``: the codes
        they give."""
        codes: frozenset = frozenset()
        if any(type(p) is cst.Param and p.name.value == name for p in walk(self.func.params)):
            # (a parameter the body assigns: its own type until then)
            value = self.analysis.params.get(name)
            if not isinstance(value, Value) or path:
                raise _Untracked(node, f"the parameter `{name}` is assigned")
            code = self.value_code(value, node)
            self.initial[kind] = cst.Integer(str(code))
            codes |= {code}
        for stmt in walk(self.func.body):
            if type(stmt) in (cst.FunctionDef, cst.ClassDef, cst.Lambda):
                if any(type(n) is cst.Name and n.value == name for n in walk(stmt)):
                    raise _Untracked(node, f"`{name}` is used in a nested function")
                continue
            if type(stmt) is cst.Assign:
                if any(type(n) is cst.Name and n.value == name
                       for t in stmt.targets for n in walk(t.target)):
                    if len(stmt.targets) != 1 or type(stmt.targets[0].target) is not cst.Name:
                        if type(stmt.value) is cst.Call and stmt.value in self.ctx.helper_nodes:
                            # (`a, b = h(x)`: followed once the helper is written out)
                            self.helper_call(stmt.value)
                        raise _Untracked(stmt, f"`{name}` is bound with other names")
                    expression, more = self.kind(stmt.value, path, stmt)
                    self.before.setdefault(stmt, {})[kind] = expression
                    codes |= more
                    self.note_assigned(kind, stmt, expression)
            elif type(stmt) is cst.AugAssign and type(stmt.target) is cst.Name and \
                    stmt.target.value == name and not path and \
                    type(stmt.operator) in _AUGMENTED:
                # (`s += e`: the kind code of `s + e`, assigned before it)
                expression, more = self.augmented(stmt, node)
                self.before.setdefault(stmt, {})[kind] = expression
                codes |= more
                self.note_assigned(kind, stmt, expression)
            elif type(stmt) in (cst.AugAssign, cst.AnnAssign, cst.For, cst.NamedExpr,
                                cst.AsName, cst.Global, cst.Nonlocal, cst.Del,
                                cst.CompFor):
                bound = getattr(stmt, "target", None) or getattr(stmt, "name", None)
                names = stmt.names if type(stmt) in (cst.Global, cst.Nonlocal) else None
                if names is not None:
                    hit = any(n.name.value == name for n in names)
                else:
                    hit = bound is not None and any(
                        type(n) is cst.Name and n.value == name for n in walk(bound))
                if hit:
                    raise _Untracked(stmt, f"`{name}` is bound other than by `{name} = ...`")
        return codes

    def note_assigned(self, kind: str, stmt, expression) -> None:
        """Note the kind code ``kind`` per example where ``stmt`` assigns it on some
        examples only or ``expression`` differs between them."""
        if stmt in self.per_example or self.batched(expression):
            self.batched_kinds.add(kind)

    def augmented(self, stmt, node) -> tuple:
        """The kind code of ``s op= e`` (``stmt``) and its codes."""
        op = _AUGMENTED[type(stmt.operator)]
        left = self.name_kind(stmt.target, ())
        right = self.analysis.values.get(stmt.value)
        if isinstance(right, Value) and not (right in MIXED_KINDS or right in MIXED_PARTS):
            if not right.known:
                raise _Untracked(stmt, "an augmented assignment of a value whose type is "
                                       "not known")
            other = right.example
            return self.mapped_codes(stmt.target, *left, lambda e: op(e, other),
                                     _constant(right))
        return self.combined(stmt, [left, self.kind(stmt.value)], op)

    # -- the rewrite --------------------------------------------------------------------

    def rewritten(self, replace: dict) -> cst.FunctionDef:
        func = self.func.visit(_Insert(self.before, replace, self.substitute))
        if not self.initial:
            return func
        first = [cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(kind))],
                                                     code)])
                 for kind, code in self.initial.items()]
        body = list(func.body.body)
        at = 1 if body and _is_docstring(body[0]) else 0
        return func.with_changes(body=func.body.with_changes(
            body=[*body[:at], *first, *body[at:]]))


class _Insert(cst.CSTTransformer):
    def __init__(self, before: dict, replace: dict, substitute: dict):
        self.before = before
        self.replace = replace
        self.substitute = substitute

    def leave_Call(self, original, updated):
        return self.substitute.get(original, updated)

    def leave_Return(self, original, updated):
        new = self.replace.get(original)
        if new is None:
            return updated
        return new.visit(_Substitute(self.substitute)) if self.substitute else new

    def leave_SimpleStatementLine(self, original, updated):
        if not any(s in self.before for s in original.body):
            return updated
        body = []
        for orig, small in zip(original.body, updated.body):
            for kind, value in self.before.get(orig, {}).items():
                body.append(cst.Assign([cst.AssignTarget(cst.Name(kind))], value))
            body.append(small)
        if len(original.body) == 1:
            return cst.FlattenSentinel([updated.with_changes(body=[b]) for b in body])
        return updated.with_changes(body=body)


class _Substitute(cst.CSTTransformer):
    def __init__(self, substitute: dict):
        self.substitute = substitute

    def leave_Call(self, original, updated):
        return self.substitute.get(original, updated)
