"""The torch table of ``math`` functions and builtins (``min``, ``max``, ``round``, ``float``,
``int``, ``bool``, ``.item()``) of tensors: Python numbers per example."""

from __future__ import annotations

import builtins
import math
import operator

import libcst as cst
import numpy as np

from ...abstract import (
    ASSIGNED_AS_IS,
    DEFERRED_JOINS,
    MIXED_KINDS,
    MIXED_PARTS,
    RETURNED_AS_IS,
    UNKNOWN,
    Value,
    inexact_int_lanes,
    join_examples,
    mixed_lane_types,
    note_mixed_parts,
    note_mixed_types,
    same_type,
)
from ...errors import Unsupported
from ...rules.families import pad, same_shaped_choices
from ...rules.registry import Registry, Rule, Site, broadcast_rank, default_infer
from ...syntax.templates import expr
from . import examples
from .common import chosen_alike, described, first_line, is_weak, matched, per_example
from .operators import select

# ---------------------------------------------------------------------- math, builtins
# Per example these give Python numbers (PyTorch calls `.item()`): no gradient flows
# through them. In the batched code: float64 / int64 / bool tensors of the same values,
# detached.

_MATH = {"sqrt": "sqrt", "exp": "exp", "expm1": "expm1", "log2": "log2", "log10": "log10",
         "log1p": "log1p", "sin": "sin", "cos": "cos", "tan": "tan", "asin": "asin",
         "acos": "acos", "atan": "atan", "atan2": "atan2", "sinh": "sinh", "cosh": "cosh",
         "tanh": "tanh", "asinh": "asinh", "acosh": "acosh", "atanh": "atanh",
         "fabs": "abs", "hypot": "hypot", "copysign": "copysign", "fmod": "fmod",
         "degrees": "rad2deg", "radians": "deg2rad", "erf": "erf", "erfc": "erfc",
         "lgamma": "lgamma", "isnan": "isnan", "isinf": "isinf", "isfinite": "isfinite",
         "exp2": "exp2", "log": "log", "pow": "pow"}
_MATH_ROUNDING = {"floor": "floor", "ceil": "ceil", "trunc": "trunc"}


def _python_float(node, value) -> cst.BaseExpression:
    """A per-example value as the Python float per example: float64, detached."""
    if is_weak(value) and value.kind == "f":
        return node
    if is_weak(value) or not value.batched:
        return expr("{x}.double()", x=node) if value.batched else node
    return expr("{x}.detach().double()", x=node)


def _python_int(node, value) -> cst.BaseExpression:
    if is_weak(value) and value.kind == "i":
        return node
    return expr("{x}.long()" if is_weak(value) else "{x}.detach().long()", x=node)


def _python_numbers_only(site: Site, what: str) -> None:
    for v in site.args:
        if isinstance(v, Value) and v.batched and v.rank > 0:
            raise Unsupported(f"{what} of a per-example tensor with dims (PyTorch converts "
                              "only one-element tensors to Python numbers)")


def _math_rule(name: str, torch_name: str):
    def rewrite(site: Site):
        if site.kwargs:
            raise Unsupported("keyword arguments of `math` functions on tensors")
        _python_numbers_only(site, f"`math.{name}`")
        batched = [v for v in site.args if v.batched][0]
        like = site.nodes[site.args.index(batched)]
        args = []
        for node, value in zip(site.nodes, site.args):
            if value.batched:
                args.append(_python_float(node, value))
            else:   # torch's two-argument functions take tensors only
                args.append(expr("torch.as_tensor({n}, dtype=torch.float64, "
                                 "device={x}.device)", n=node, x=like))
        if name == "log" and len(args) == 2:
            return expr("torch.log({x}) / torch.log({b})", x=args[0], b=args[1])
        if name == "hypot" and len(args) != 2:
            # math.hypot(a, b, c): the Euclidean norm of any number of coordinates, folded
            # pairwise as NumPy's rule folds it (torch.hypot takes two); one coordinate: |a|
            if len(args) == 1:
                return expr("torch.abs({a})", a=args[0])
            out = args[0]
            for arg in args[1:]:
                out = expr("torch.hypot({a}, {b})", a=out, b=arg)
            return out
        names = ", ".join(f"{{a{i}}}" for i in range(len(args)))
        return expr(f"torch.{torch_name}({names})", **{f"a{i}": a for i, a in enumerate(args)})
    return rewrite


def _math_rounding(name: str):
    def rewrite(site: Site):
        (x,), (value,) = site.nodes, site.args
        _python_numbers_only(site, f"`math.{name}`")
        if name == "trunc" and not is_weak(value):
            raise Unsupported("`math.trunc` of a tensor raises in PyTorch (tensors have no "
                              "`__trunc__`)", suggestion="use int(x), or math.trunc(float(x))",
                              kind="raises")
        if value.kind in "biu":
            if not is_weak(value) and value.dtype is not None and value.dtype.itemsize == 8:
                # a tensor has no `__floor__` / `__ceil__`: math rounds its `float()`, from
                # 2**53 on not the int64 itself; beyond int64 checked (`rules.python_errors`)
                return expr("{x}.detach().double().long()", x=x)
            return _python_int(x, value)
        return expr(f"torch.{name}({{x}}).long()", x=_python_float(x, value))
    return rewrite


def _math_infer(fn):
    def infer(site: Site):
        if site.kwargs or not all(v.known for v in site.args):
            return Value(True, UNKNOWN)
        _python_numbers_only(site, f"`math.{fn.__name__}`")
        args = [examples.to_tensor(v.example) for v in site.args]
        try:
            out = fn(*args)
        except (ValueError, OverflowError, ZeroDivisionError) as exc:
            if all(v.rank == 0 for v in site.args) and "one element" not in str(exc):
                # the example's value is outside the domain (math.sqrt(-x) of the example
                # x = 1, math.log(x, b) of b = 1): other examples differ, and those that raise
                # are checked as Python raises (`passes.python_raises`); the type is a Python
                # float (int)
                return Value(True, 1 if fn.__name__ in _MATH_ROUNDING else 1.0)
            raise Unsupported(f"`math.{fn.__name__}` raises for {described(site)} in the "
                              f"per-example code ({first_line(exc)})", kind="raises") from None
        except (TypeError, RuntimeError) as exc:
            if fn is math.trunc:
                return Value(True, 1)
            raise Unsupported(f"`math.{fn.__name__}` raises for {described(site)} in the "
                              f"per-example code ({first_line(exc)})", kind="raises") from None
        return Value(True, out)       # a Python number per example
    return infer


def _min_max(op: str):
    compare = operator.lt if op == "<" else operator.gt

    def choose(*xs):
        out = xs[0]
        for nxt in xs[1:]:
            out = select(compare(nxt, out), nxt, out)
        return out

    def rewrite(site: Site):
        name = "min" if op == "<" else "max"
        if site.kwargs or len(site.nodes) < 2:
            raise Unsupported(f"`{name}` of one per-example tensor or with keywords",
                              suggestion="use torch.amin / torch.amax with a dim")
        same_shaped_choices(site, f"`{name}`")
        chosen_alike(site.args)
        rank = broadcast_rank(site.args)
        strong = _unheld_numbers(site.args)
        if strong is not None:
            # per example Python compares the number in the tensor's dtype (float16 inf >
            # 1e300 is False) and keeps the number itself where it wins: the comparison
            # reads the nodes as written, the choice holds every lane in float64 (complex128)
            if len(site.nodes) > 2:
                raise Unsupported(
                    f"`{name}` of more than two arguments, one a Python number that the "
                    "narrower tensors cannot hold (compared in their dtype, kept as itself on "
                    "the lanes it wins)",
                    suggestion=f"nest the calls: {name}({name}(a, b), c), or convert the "
                               "number with torch.tensor(..., dtype=torch.float64)")
            weak = [pad(n, v, rank) for n, v in zip(site.nodes, site.args)]
            wide = f"torch.{strong.name}"
            held = [n if k in _python_positions(site.args) else
                    expr("{x}.to(" + wide + ")", x=n) for k, n in enumerate(weak)]
            return expr("torch.where({wb} " + op + " {wa}, {b}, {a})", wb=weak[1],
                        wa=weak[0], b=held[1], a=held[0])
        nodes = matched(site, choose, list(zip(site.args, site.nodes)))
        args = [pad(n, v, rank) for n, v in zip(nodes, site.args)]
        # Python keeps the earlier argument unless a later one is strictly smaller (larger):
        # NaN and -0.0 results included
        out = args[0]
        for nxt in args[1:]:
            out = expr("torch.where({b} " + op + " {a}, {b}, {a})", a=out, b=nxt)
        return out
    return rewrite


def _python_positions(values) -> set:
    """The positions of the Python numbers the same for every example among ``values``."""
    return {k for k, v in enumerate(values) if isinstance(v, Value) and not v.batched
            and v.known and type(v.example) in (bool, int, float, complex)}


def _unheld_numbers(values):
    """``torch.float64`` / ``torch.complex128`` (as its NumPy dtype) where a Python float
    (complex) the same for every example among ``min``/``max``'s arguments is one the
    floating tensors beside it cannot hold exactly (``1e300``, ``1e-300``, ``70000.0``
    beside float16): per example the lanes it wins keep the Python number itself, which the
    loop's results stack to float64; else None (a number they hold, ``0.5``, compares and
    is kept alike in their dtype)."""
    python = _python_positions(values)
    dtypes = [np.dtype(v.dtype) for k, v in enumerate(values) if k not in python
              and isinstance(v, Value) and v.known and v.dtype is not None]
    if not python or not dtypes or any(d.kind not in "fc" for d in dtypes):
        return None
    for k in python:
        number = values[k].example
        if type(number) not in (float, complex) or number != number:
            continue
        with np.errstate(all="ignore"):
            try:
                held = all(complex(np.asarray(number, dtype=d)[()]) == number for d in dtypes)
            except (OverflowError, ValueError, TypeError):
                held = False
        if not held:
            complex_ = type(number) is complex or any(d.kind == "c" for d in dtypes)
            return np.dtype(np.complex128 if complex_ else np.float64)
    return None


def _min_max_infer(site: Site) -> Value:
    """``max(2.0, x)`` of per-example values: Python returns one of the arguments, so per
    example the result is a Python float on some lanes and a 0-d tensor on others, as the
    values decide; the batch's `torch.where` holds every lane in the joined dtype. The
    result is that join, a value whose type differs between lanes (`abstract.MIXED_PARTS`):
    operations that raise or compute differently for one of the lane types are refused
    where they meet it (``max(2.0, x) ** -1`` of an int tensor)."""
    values = site.args
    if len(values) < 2 or site.kwargs or not all(
            isinstance(v, Value) and v.known and v.rank == 0 for v in values):
        return default_infer(site)
    strong = _unheld_numbers(values)
    if strong is not None:
        # (the lanes the number wins hold it as it is: the batch holds every lane in
        # float64, as the loop's results stack)
        result = Value(any(v.batched for v in values), np.zeros((), strong)[()])
        note_mixed_types()
        if result.batched:
            note_mixed_parts(result, *values)
        return result
    examples_ = [v.example for v in values]
    if all(same_type(examples_[0], e) for e in examples_[1:]):
        return default_infer(site)
    # (tensors of one kind and two dtypes, `max(x_int8, y_int32)`: the batch holds every lane
    # in the promoted dtype; the lanes of the narrower dtype compute in it per example,
    # `abstract.mixed_lane_types`)
    joined = examples_[0]
    for e in examples_[1:]:
        joined = join_examples(joined, e)
    if joined is UNKNOWN:
        return Value(any(v.batched for v in values), UNKNOWN)
    result = Value(any(v.batched for v in values), joined)
    if any(mixed_lane_types(a, b) for a in examples_ for b in examples_):
        note_mixed_types()
        if result.batched:
            MIXED_KINDS.add(result)
            note_mixed_parts(result, *values)
            lane = inexact_int_lanes(joined, *values)
            tensors_only = lane is not None and inexact_int_lanes(
                joined, *values, python_ints_only=True) is None
            if tensors_only and site.original in ASSIGNED_AS_IS.get():
                # (bound to names as it is: refused where they are read, `inexact_join`)
                DEFERRED_JOINS[result] = (f"`{getattr(site.func, '__name__', 'min/max')}` "
                                          "gives", lane, joined.dtype)
            elif lane is not None and (site.original not in RETURNED_AS_IS.get() or
                                       not tensors_only):
                # (int tensor lanes returned as they are: the loop's stacking casts them to
                # the joined float as the batch's `torch.where` does, `inexact_join`)
                name = getattr(site.func, "__name__", "min/max")
                raise Unsupported(
                    f"`{name}` gives {lane} on some lanes and a {joined.dtype} on others: "
                    f"each lane keeps its integer, the batch's {joined.dtype} "
                    f"rounds integers beyond 2**{np.finfo(joined.dtype).nmant + 1}",
                    suggestion="give the arguments one type (e.g. float(...))")
    return result


def _conversion(kind: str):
    def rewrite(site: Site):
        (x,), (value,) = site.nodes, site.args
        _python_numbers_only(site, f"`{kind}()`")
        if kind == "bool":
            return x if value.kind == "b" else expr("{x} != 0", x=x)
        if kind == "int":
            return _python_int(x, value)
        if kind == "complex":
            return expr("{x}.detach().to(torch.complex128)", x=x)
        if value.kind in "c":
            raise Unsupported("`float()` of a complex tensor raises per example", kind="raises")
        return _python_float(x, value)
    return rewrite


def _conversion_infer(kind: str):
    py = {"int": int, "float": float, "bool": bool, "complex": complex}[kind]

    def infer(site: Site):
        if site.kwargs or len(site.args) != 1:
            raise Unsupported(f"`{kind}()` of a per-example value with more arguments")
        _python_numbers_only(site, f"`{kind}()`")
        value = site.args[0]
        if value.kind == "c" and kind in ("int", "float"):
            raise Unsupported(f"`{kind}()` of a complex tensor raises per example", kind="raises")
        return Value(True, py(1))
    return infer


def _dict_get_infer(checked):
    def infer(site: Site):
        table = checked(site)
        if site.args[0].kind == "c":
            raise Unsupported("`.get` on a dict by a per-example complex key")
        if not site.python_semantics and not is_weak(site.args[0]):
            # per example a 0-d tensor is a key by identity: the loop gets the default
            raise Unsupported("`.get` on a dict by a per-example tensor, which per example "
                              "hashes by identity (the loop finds no key: the default)",
                              suggestion="look it up by the number: TABLE.get(int(k), 0.0)")
        if site.args[1].batched:
            # per example a Python number on the lanes that find their key and the tensor
            # on the others, of the dtype `torch.where` of them gives: not modelled
            raise Unsupported("`.get` on a dict with a per-example default",
                              suggestion="give a constant default (TABLE.get(k, 0.0))")
        values = list(table.values()) or [site.args[1].example]
        return Value(True, values[0])
    return infer


def _item(site: Site):
    (x,), (value,) = site.nodes, site.args
    _python_numbers_only(site, "`.item()`")
    if value.kind == "b":
        return expr("{x}.detach()", x=x)
    if value.kind in "iu":
        return _python_int(x, value)
    if value.kind == "c":
        return expr("{x}.detach().to(torch.complex128)", x=x)
    return _python_float(x, value)


def _item_infer(site: Site):
    _python_numbers_only(site, "`.item()`")
    value = site.args[0]
    if is_weak(value) or value in MIXED_PARTS and any(
            type(part) in (bool, int, float, complex) for part in MIXED_PARTS[value]):
        # (`math.fmod(x, 3).item()`: a Python number per example, on every lane or on some)
        raise Unsupported("`.item()` of a value that is a Python number per example (on "
                          "some examples at least): Python numbers have no `.item()` "
                          "(AttributeError per example)",
                          suggestion="drop `.item()` where the value is already a number")
    py = {"b": bool, "i": int, "u": int, "f": float, "c": complex}.get(value.kind)
    return Value(True, py(1) if py else UNKNOWN)


def _round(site: Site):
    (value, *rest) = site.args
    if not is_weak(value):
        raise Unsupported("`round()` of a tensor raises in PyTorch (tensors have no "
                          "`__round__`)", suggestion="use torch.round(x), or round(float(x))",
                          kind="raises")
    if rest or site.kwargs:
        raise Unsupported("`round(v, ndigits)`: Python rounds the decimal value exactly, "
                          "`torch.round(v, decimals=n)` scales by 10**n first and can differ "
                          "in the last digit", suggestion="call torch.round(x, decimals=n) "
                                                          "if its rounding will do")
    x = site.nodes[0]
    return x if value.kind in "biu" else expr("torch.round({x}).long()", x=x)


def _round_infer(site: Site):
    value = site.args[0]
    if not is_weak(value):
        raise Unsupported("`round()` of a tensor raises in PyTorch (tensors have no "
                          "`__round__`)", suggestion="use torch.round(x), or round(float(x))",
                          kind="raises")
    return Value(True, 1)


def register_math_builtins(reg: Registry, torch) -> None:
    for name, torch_name in _MATH.items():
        if not hasattr(math, name):
            continue
        fn = getattr(math, name)
        reg.add_call(fn, Rule(
            f"math.{name}", "torch math",
            f"`math.{name}` of a tensor gives a Python float per example (no gradient): "
            f"`torch.{torch_name}` of the detached tensor in float64.",
            f"y = math.{name}(x)", f"y = torch.{torch_name}(x.detach().double())",
            _math_rule(name, torch_name), infer=_math_infer(fn)))
    for name in _MATH_ROUNDING:
        fn = getattr(math, name)
        reg.add_call(fn, Rule(
            f"math.{name}", "torch math", f"`math.{name}(x)` of a tensor gives a Python int "
            f"per example: `torch.{name}(x).long()`, detached.", f"k = math.{name}(x)",
            f"k = torch.{name}(x.detach().double()).long()", _math_rounding(name),
            infer=_math_infer(fn)))
    reg.add_call(builtins.abs, Rule(
        "builtin.abs", "builtins", "`abs(x)` works on tensors lane by lane.",
        "d = abs(x - y)", "d = abs(x - y)", lambda site: site.node,
        infer=per_example(abs, "`abs`")))
    for name, op in (("min", "<"), ("max", ">")):
        reg.add_call(getattr(builtins, name), Rule(
            f"builtin.{name}", "builtins",
            f"`{name}(a, b)` keeps `a` unless `b {op} a`, exactly as Python decides it: "
            f"`torch.where(b {op} a, b, a)`.", f"m = {name}(x, y)",
            f"m = torch.where(y {op} x, y, x)", _min_max(op), infer=_min_max_infer))
    for kind in ("int", "float", "bool", "complex"):
        reg.add_call(getattr(builtins, kind), Rule(
            f"builtin.{kind}", "builtins",
            {"int": "`int(x)` of a tensor is a Python int per example (truncated toward zero, "
                    "no gradient): `x.detach().long()`.",
             "float": "`float(x)` of a tensor is a Python float per example (no gradient): "
                      "`x.detach().double()`.",
             "bool": "`bool(x)` is `x != 0`.",
             "complex": "`complex(x)` is `x.detach().to(torch.complex128)`."}[kind],
            f"y = {kind}(x)", {"int": "y = x.detach().long()",
                               "float": "y = x.detach().double()", "bool": "y = x != 0",
                               "complex": "y = x.detach().to(torch.complex128)"}[kind],
            _conversion(kind), infer=_conversion_infer(kind)))
    from ...rules.dict_tables import dict_get, dict_get_checked, is_dict_get
    reg.add_family(is_dict_get, Rule(
        "builtin.dict_get", "builtins",
        "`TABLE.get(k, default)` on a dict of numbers (the same for every example) keyed by "
        "numbers: a Python number per example, `dict_lookup` (`torch.searchsorted` of the "
        "sorted keys, then a gather of the values, on the key's device; values and default "
        "of one type).",
        "p = TABLE.get(k, 0.0)", "p = dict_lookup(TABLE, k, 0.0)", dict_get,
        infer=_dict_get_infer(dict_get_checked)))
    reg.add_method("item", Rule(
        "torch.item", "torch", "`x.item()` is a Python number per example (no gradient): "
        "`x.detach()` as float64, int64 or bool.", "v = x.item()", "v = x.detach().double()",
        _item, infer=_item_infer))
    reg.add_call(builtins.round, Rule(
        "builtin.round", "builtins", "`round(v)` of a Python number (`round(float(x))`) rounds "
        "half to even, to an int: `torch.round(v).long()`; `round` of a tensor raises in "
        "PyTorch and is refused.", "k = round(float(x))",
        "k = torch.round(x.detach().double()).long()", _round, infer=_round_infer))

    def power(site: Site):
        nodes = matched(site, operator.pow, list(zip(site.args, site.nodes)))
        rank = broadcast_rank(site.args)
        a, b = (pad(n, v, rank) for n, v in zip(nodes, site.args))
        return expr("{a} ** {b}", a=a, b=b)
    reg.add_call(builtins.pow, Rule(
        "builtin.pow", "builtins", "`pow(a, b)` is `a ** b`.", "y = pow(x, 3)", "y = x ** 3",
        power, infer=per_example(operator.pow, "`pow`")))
