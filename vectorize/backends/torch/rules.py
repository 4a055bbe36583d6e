"""The PyTorch rule tables: how operators, torch functions, tensor methods, ``math`` and
builtins batch when the arguments are tensors.

Shared with NumPy (the same rules, spelled by the backend): ``not``, masked loops, indexing,
and products, which become one ``torch.einsum`` with a batch letter on batched operands only
(`vectorize.rules`). Here: what only PyTorch has or computes differently.

**What an operation gives per example** is computed by PyTorch itself, on tensors made from
the analysis' NumPy examples (`examples.run`): dtypes, shapes and errors are PyTorch's, so an
operation the per-example code could not run (``torch.dot`` of a 0-d tensor, ``mean`` of an
integer tensor) is refused where it is written.

**Dtypes of the batched code equal the per-example ones.** PyTorch gives a 0-d tensor and a
Python number less weight in promotion than a tensor with dims, and in the batched code a
per-example scalar is a tensor with dims (the batch axis). Where that changes an operation's
dtype (a float32 per-example scalar times a shared float64 0-d tensor: float64 per example,
float32 on the batch), the operands that gained weight are converted to the per-example
common dtype first (`_matched`), or the operation is refused when no conversion gives it.

**Python numbers per example.** ``float(x)``, ``int(x)``, ``bool(x)``, ``x.item()`` and
``math`` functions of a tensor give Python numbers per example: no gradient flows through
them, and they promote weakly. In the batched code they are tensors of float64, int64 or
bool (exactly the Python values), detached, and promote as the Python numbers did.
"""

from __future__ import annotations

import builtins
import dataclasses
import math
import operator

import libcst as cst
import numpy as np

from ...abstract import UNKNOWN, TupleValue, Value, batched_like, unbatched
from ...errors import Unsupported
from ...rules import arrays, lanes, linalg, operators
from ...rules.families import pad
from ...rules.random import random_name, register_python_random
from ...rules.registry import Registry, Rule, Site, broadcast_rank
from ...syntax.templates import expr, parse_expr
from . import examples, torch_module
from . import random as torch_random

_PYTHON_NUMBERS = (bool, int, float, complex)


def _is_weak(value) -> bool:
    """A per-example Python number (a batched value whose example is one)."""
    return isinstance(value, Value) and type(value.example) in _PYTHON_NUMBERS


def _name_of(fn) -> str:
    return fn if isinstance(fn, str) else getattr(fn, "__name__", repr(fn))


# ---------------------------------------------------------------------------- examples


def _per_example(fn, what: str | None = None):
    """An ``infer`` that runs ``fn`` (a torch function, or a method name) on the examples.
    A PyTorch error means the per-example code raises: refused."""
    call = _method(fn) if isinstance(fn, str) else fn
    label = what or f"`{_name_of(fn)}`"

    def infer(site: Site):
        values = list(site.args) + [v for _, v in site.kwargs.values()]
        if any(not v.known for v in values if isinstance(v, (Value, TupleValue))):
            return Value(True, UNKNOWN)
        args = [v.example for v in site.args]
        kwargs = {k: v.example for k, (_, v) in site.kwargs.items()}
        try:
            out = examples.run(call, *args, **kwargs)
        except (TypeError, ValueError, IndexError) as exc:
            raise Unsupported(f"{label} raises for {_described(site)} in the per-example "
                              f"code ({_first_line(exc)})") from None
        if isinstance(out, tuple):
            return TupleValue(tuple(batched_like(o) for o in out))
        return batched_like(out)
    return infer


def _described(site: Site) -> str:
    return ", ".join(v.describe() for v in site.args if isinstance(v, (Value, TupleValue)))


def _first_line(exc) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _method(name: str):
    def call(x, *args, **kwargs):
        return getattr(x, name)(*args, **kwargs)
    call.__name__ = name
    return call


def _shadow(fn):
    """``fn`` as the analysis runs it on examples the same for every example."""
    call = _method(fn) if isinstance(fn, str) else fn
    return examples.on_examples(call)


# ----------------------------------------------------------- dtypes: batch = per example


def _batched_example(value: Value, rank: int, dtype=None):
    """The tensor an operand is in the batched code, for a batch of one: a batched value
    gets the batch axis and the axes `pad` gives it; a shared one is as it is."""
    torch = torch_module()
    if not value.batched:
        return examples.to_tensor(value.example)
    arr = np.asarray(value.example)
    arr = arr.astype(dtype or arr.dtype).reshape((1,) * (1 + rank - arr.ndim) + arr.shape)
    return torch.from_numpy(np.array(arr))


def _dtype_of(out):
    torch = torch_module()
    if isinstance(out, torch.Tensor):
        return np.dtype(str(out.dtype).rpartition(".")[2])
    return examples.materialized(out)


def _matched(site: Site, op, operands, keep=()):
    """The nodes of ``operands`` (``[(value, node)]``, in the order ``op`` takes them), each
    converted where needed so that ``op`` of the batched operands gives the dtype the
    analysis found per example (``site.result``). Operands at the positions in ``keep`` (a
    `where`'s condition) are never converted."""
    values = [v for v, _ in operands]
    nodes = [n for _, n in operands]
    result = site.result
    if not isinstance(result, Value) or not result.known or not all(
            isinstance(v, Value) and v.known for v in values):
        return nodes
    if len(values) < 2 or all(v.rank > 0 and not _is_weak(v) for v in values if v.batched):
        # batched operands have dims per example too: they weigh the same in promotion
        # per example and on the batch
        return nodes
    want = examples.materialized(result.example)
    rank = max(v.rank for v in values)
    dtypes = [None] * len(values)

    def batched_dtype():
        try:
            out = op(*[_batched_example(v, rank, d) for v, d in zip(values, dtypes)])
        except Exception:
            return None
        return _dtype_of(out)

    got = batched_dtype()
    if got is None or got == want:
        return nodes
    common = want if want.kind != "b" else _common_dtype(values, keep)
    if common is None:
        _refuse(site, want, got)
    torch_name = f"torch.{common.name}"
    new = list(nodes)
    # first the per-example scalars that gained weight on the batch, then the shared
    # Python numbers (a choice between two Python floats is float64, as Python's)
    for shared in (False, True):
        for i, v in enumerate(values):
            if i in keep or v.kind not in "iufc" or new[i] is not nodes[i]:
                continue
            if shared:
                if v.batched or not _is_weak(v):
                    continue
                new[i] = expr(f"torch.tensor({{x}}, dtype={torch_name})", x=nodes[i])
                values[i] = Value(False, np.ones((), common)[()])
                if batched_dtype() == want:
                    return new
            elif v.batched and (v.rank == 0 or _is_weak(v)) and v.dtype != common:
                new[i] = expr(f"{{x}}.to({torch_name})", x=nodes[i])
                dtypes[i] = common
        got = batched_dtype()
        if got == want:
            return new
    _refuse(site, want, got)


def _common_dtype(values, keep):
    torch = torch_module()
    operands = [examples.to_tensor(v.example) for i, v in enumerate(values) if i not in keep]
    if len(operands) != 2:
        return None
    try:
        return np.dtype(str(torch.result_type(*operands)).rpartition(".")[2])
    except Exception:
        return None


def _refuse(site: Site, want, got):
    raise Unsupported(f"PyTorch gives this operation {want} per example but {got} on the "
                      "batch (a 0-d tensor or a Python number weighs less in PyTorch's "
                      "promotion than a tensor with dims, and per-example scalars get dims "
                      "on the batch)",
                      suggestion="convert the operands to one dtype first, e.g. with "
                                 "x.to(torch.float64)")


# ------------------------------------------------------------------------- operators

_BINARY_OPS = {cst.Add: operator.add, cst.Subtract: operator.sub, cst.Multiply: operator.mul,
               cst.Divide: operator.truediv, cst.FloorDivide: operator.floordiv,
               cst.Modulo: operator.mod, cst.Power: operator.pow, cst.BitAnd: operator.and_,
               cst.BitOr: operator.or_, cst.BitXor: operator.xor,
               cst.LeftShift: operator.lshift, cst.RightShift: operator.rshift}
_COMPARE_OPS = {cst.LessThan: operator.lt, cst.LessThanEqual: operator.le,
                cst.GreaterThan: operator.gt, cst.GreaterThanEqual: operator.ge,
                cst.Equal: operator.eq, cst.NotEqual: operator.ne}


def _with_nodes(site: Site, nodes) -> Site:
    return dataclasses.replace(site, nodes=list(nodes))


def _binary(site: Site):
    op = _BINARY_OPS.get(type(site.node.operator))
    if op is not None:
        site = _with_nodes(site, _matched(site, op, list(zip(site.args, site.nodes))))
    return operators._binary(site)


def _compare(site: Site):
    node: cst.Comparison = site.node
    if len(node.comparisons) == 1:
        op = _COMPARE_OPS.get(type(node.comparisons[0].operator))
        if op is not None:
            site = _with_nodes(site, _matched(site, op, list(zip(site.args, site.nodes))))
    return operators._compare(site)


def _select(cond, a, b):
    torch = torch_module()
    return torch.where(torch.as_tensor(cond) != 0, a, b)


def _ifexp(site: Site):
    tv, bv, ov = site.args
    if tv.batched:
        test, body, orelse = site.nodes
        body, orelse = _matched(site, _select, [(tv, test), (bv, body), (ov, orelse)],
                                keep={0})[1:]
        site = _with_nodes(site, [test, body, orelse])
    return operators._ifexp(site)


def _and_or(shared):
    def rewrite(site: Site):
        if not operators._all_bool(site):
            a, b = site.args
            if shared is operators._and:
                op = lambda x, y: _select(x, y, x)        # noqa: E731
            else:
                op = lambda x, y: _select(x, x, y)        # noqa: E731
            site = _with_nodes(site, _matched(site, op, list(zip(site.args, site.nodes))))
        return shared(site)
    return rewrite


def _python_number_division(site: Site):
    """``a / b`` of Python numbers in code every lane runs: computed by a 0-d float64 tensor
    and made a Python number again, so that a divisor of zero gives inf/nan (as on tensors)
    on lanes whose per-example code never gets there, instead of ZeroDivisionError."""
    node = site.node
    dtype = np.dtype(site.func)
    if dtype.kind in "iu":
        raise Unsupported("`//`, `%` or `divmod` of Python integers the same for every example, "
                          "in code that runs on every lane: PyTorch raises for an integer "
                          "divisor of zero where the per-example code would not get there",
                          suggestion="compute it before the `if` or loop, or use floats")
    if isinstance(node, cst.Call):
        raise Unsupported("`divmod`/`pow` of Python numbers in code that runs on every lane",
                          suggestion="compute it before the `if` or loop")
    if not isinstance(node, cst.BinaryOperation):
        raise Unsupported("this operation of Python numbers in code that runs on every lane",
                          suggestion="compute it before the `if` or loop")
    left = expr("torch.tensor({a}, dtype=torch.float64)", a=node.left)
    return expr("({x}).item()", x=node.with_changes(left=left, lpar=[], rpar=[]))


_PYTHON_DIVISION = (
    "`/` or `**` of Python numbers the same for every example, in code that runs on every "
    "lane (a branch of a per-example `if`, a masked loop): computed on a float64 tensor and "
    "made a Python number again, so a lane whose scalar code never gets there cannot raise "
    "ZeroDivisionError.",
    "y = torch.where(x > 0, x + (torch.tensor(a, dtype=torch.float64) / b).item(), x)")


def _register_operators(reg: Registry) -> None:
    """The shared operator rules, with the dtype check of `_matched` in front of those that
    combine operands."""
    operators.register(reg)
    replaced = {}
    for key, rewrite in (("binary", _binary), ("compare", _compare), ("ifexp", _ifexp),
                         ("and", _and_or(operators._and)), ("or", _and_or(operators._or)),
                         ("python_number_division", _python_number_division)):
        old = reg.operators[key]
        changes = {"rewrite": rewrite}
        if key == "python_number_division":
            changes["explanation"], changes["after"] = _PYTHON_DIVISION
        replaced[id(old)] = dataclasses.replace(old, **changes)
        reg.add_operator(key, replaced[id(old)])
    reg.all_rules[:] = [r for r in reg.all_rules if id(r) not in replaced]


# ------------------------------------------------------------------------- rewriting


def _padded_call(site: Site, first_is_base: bool = False, keep=()) -> cst.Call:
    """The call as written, every per-example operand (positional or keyword) of lower
    per-example rank given new axes after the batch axis and converted where the batch
    would promote it otherwise (`_matched`); ``first_is_base``: a method call ``x.f(...)``,
    whose object is ``site.nodes[0]``."""
    call = site.node
    names = [k for k in site.kwargs]
    kw_given = {arg.keyword.value: arg.value for arg in call.args if arg.keyword is not None}
    operands = list(zip(site.args, site.nodes)) + [
        (site.kwargs[k][1], site.kwargs[k][0] or kw_given[k]) for k in names]
    fn = _method(site.func) if isinstance(site.func, str) else site.func
    count = len(site.args)

    def op(*xs):
        return fn(*xs[:count], **dict(zip(names, xs[count:])))
    converted = _matched(site, op, operands, keep=keep)
    nodes, kw_nodes = converted[:count], dict(zip(names, converted[count:]))
    values = list(site.args) + [v for _, v in site.kwargs.values()]
    rank = broadcast_rank(values)
    positional = iter(zip(nodes[1:] if first_is_base else nodes,
                          site.args[1:] if first_is_base else site.args))
    args = []
    for arg in call.args:
        if arg.keyword is None and not arg.star:
            node, value = next(positional)
            arg = arg.with_changes(value=pad(node, value, rank))
        elif arg.keyword is not None and arg.keyword.value in site.kwargs:
            arg = arg.with_changes(value=pad(kw_nodes[arg.keyword.value],
                                             site.kwargs[arg.keyword.value][1], rank))
        args.append(arg)
    func = call.func
    if first_is_base:
        func = func.with_changes(value=pad(nodes[0], site.args[0], rank))
    return call.with_changes(func=func, args=args)


def _elementwise(site: Site):
    return _padded_call(site, first_is_base=isinstance(site.func, str))


def _where(site: Site):
    if len(site.args) + len(site.kwargs) < 3:
        raise Unsupported("`torch.where(cond)` gives the indices of each example's nonzero "
                          "elements, a different number per example",
                          suggestion="use torch.where(cond, a, b)")
    return _padded_call(site, first_is_base=isinstance(site.func, str), keep={0})


# ----------------------------------------------------------------------- elementwise

_UNARY = ["abs", "absolute", "neg", "negative", "sign", "sgn", "square", "floor", "ceil",
          "trunc", "fix", "round", "frac", "sqrt", "rsqrt", "exp", "exp2", "expm1", "log",
          "log2", "log10", "log1p", "sin", "cos", "tan", "asin", "arcsin", "acos", "arccos",
          "atan", "arctan", "sinh", "cosh", "tanh", "asinh", "arcsinh", "acosh", "arccosh",
          "atanh", "arctanh", "sigmoid", "reciprocal", "erf", "erfc", "erfinv", "lgamma",
          "digamma", "deg2rad", "rad2deg", "relu", "isnan", "isinf", "isfinite", "isposinf",
          "isneginf", "isreal", "signbit", "logical_not", "bitwise_not", "nan_to_num",
          "positive", "sinc", "logit", "i0", "angle", "conj", "real", "imag"]
_BINARY = ["add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide",
           "floor_divide", "remainder", "fmod", "pow", "float_power", "atan2", "arctan2",
           "hypot", "copysign", "maximum", "minimum", "fmax", "fmin", "logical_and",
           "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "eq",
           "ne", "lt", "le", "gt", "ge", "greater", "less", "greater_equal", "less_equal",
           "not_equal", "logaddexp", "logaddexp2", "xlogy", "heaviside", "nextafter", "ldexp",
           "isclose", "lerp", "addcmul", "addcdiv"]
# torch.nn.functional activations: elementwise
_ACTIVATIONS = ["relu", "relu6", "gelu", "silu", "mish", "elu", "selu", "celu", "softplus",
                "softsign", "leaky_relu", "hardtanh", "hardsigmoid", "hardswish", "sigmoid",
                "tanh", "logsigmoid", "tanhshrink", "softshrink", "hardshrink", "threshold"]
_CONVERSIONS = ["float", "double", "half", "int", "long", "short", "bool", "cfloat",
                "cdouble", "to", "type_as"]
_IDENTITY = ["detach", "clone", "contiguous"]
_LIKE = ["zeros_like", "ones_like", "empty_like", "full_like"]


def _register_elementwise(reg: Registry, torch) -> None:
    def add(owner, fn_names, name, explanation, before, after, rewrite=_elementwise,
            methods=True):
        for fn_name in fn_names:
            fn = getattr(owner, fn_name, None)
            if fn is not None:
                reg.add_call(fn, Rule(name, "torch", explanation, before, after, rewrite,
                                      infer=_per_example(fn, f"`{owner.__name__}.{fn_name}`"),
                                      shadow=_shadow(fn)))
            if methods and hasattr(torch.Tensor, fn_name):
                reg.add_method(fn_name, Rule(name, "torch", explanation, before, after,
                                             rewrite, infer=_per_example(fn_name,
                                                                         f"`.{fn_name}()`"),
                                             shadow=_shadow(fn_name)))

    elementwise = ("Elementwise torch functions and tensor methods (`torch.sin`, `x.relu()`, "
                   "`torch.maximum`...) act lane by lane: as written, operands of lower "
                   "per-example rank get new axes after the batch axis.",
                   "y = torch.sin(x) + x.relu()", "y = torch.sin(x) + x.relu()")
    add(torch, _UNARY + _BINARY, "torch.elementwise", *elementwise)
    add(torch, ["where"], "torch.where",
        "`torch.where(c, a, b)` chooses lane by lane: as written (operands aligned by "
        "per-example rank).", "y = torch.where(t > 5.0, t * b, -t)",
        "y = torch.where(t > 5.0, t * b, -t)", rewrite=_where, methods=False)
    add(torch, ["clamp", "clip", "clamp_min", "clamp_max"], "torch.clamp",
        "`torch.clamp(x, min, max)` / `x.clamp(...)` act lane by lane; per-example bounds "
        "get new axes after the batch axis.", "y = x.clamp(min=lo)", "y = x.clamp(min=lo)")
    add(torch.nn.functional, _ACTIVATIONS, "torch.activation",
        "Activations of `torch.nn.functional` (`F.relu`, `F.gelu`, `F.softplus`...) act "
        "lane by lane: as written.", "y = F.gelu(x)", "y = F.gelu(x)", methods=False)
    conversion = ("Dtype conversions (`x.float()`, `x.long()`, `x.to(torch.float64)`...) act "
                  "lane by lane: as written.", "k = x.long()", "k = x.long()")
    for method in _CONVERSIONS:
        reg.add_method(method, Rule("torch.conversion", "torch", *conversion, _elementwise,
                                    infer=_per_example(method, f"`.{method}()`")))
    for method in _IDENTITY:
        reg.add_method(method, Rule(
            "torch.identity_method", "torch",
            "`x.detach()`, `x.clone()`, `x.contiguous()` act on the whole batch as on each "
            "example.", "y = x.clone()", "y = x.clone()", _elementwise,
            infer=_per_example(method, f"`.{method}()`")))
    add(torch, _LIKE, "torch.like", "`torch.zeros_like(x)`, `torch.full_like(x, v)` of a "
        "per-example tensor: a batched tensor of the same shape, as written.",
        "z = torch.zeros_like(v)", "z = torch.zeros_like(v)", methods=False)


# ------------------------------------------------------------------------ reductions

_REDUCTIONS = ["sum", "mean", "prod", "amax", "amin", "std", "var", "any", "all",
               "logsumexp", "nansum", "nanmean", "count_nonzero", "norm"]
_SINGLE_DIM = {"prod", "any", "all", "logsumexp"}     # take one dim at a time


def _dim_of(site: Site):
    """(dim, keepdim) of a reduction call, as constants (None: every dim)."""
    dim = None
    if "dim" in site.kwargs:
        dim = site.kwargs["dim"][1]
    elif len(site.args) > 1:
        dim = site.args[1]
    keep = site.kwargs.get("keepdim", (None, None))[1]
    for value, what in ((dim, "dim"), (keep, "keepdim")):
        if value is not None and (value.batched or not value.exact):
            raise Unsupported(f"the reduction's `{what}` must be a constant written in the "
                              "function")
    return (None if dim is None else dim.example), bool(keep.example if keep else False)


def _reduction(site: Site):
    method = isinstance(site.func, str)
    name = site.func if method else site.func.__name__
    x_value = site.args[0]
    if not x_value.batched:
        raise Unsupported("a reduction of a shared tensor with per-example arguments",
                          suggestion="reduce before mixing in per-example values")
    if len(site.args) > 2:
        raise Unsupported(f"`{name}` with more than a dim given by position",
                          suggestion="pass the other arguments by keyword")
    rank = x_value.rank
    dim, keep = _dim_of(site)
    if dim is None:
        dims = tuple(range(1, rank + 1))
    elif rank == 0 and all(d in (0, -1) for d in (dim if isinstance(dim, (tuple, list))
                                                 else (dim,))):
        dims = ()      # PyTorch takes dim 0 / -1 of a 0-d tensor as the tensor itself
    elif isinstance(dim, (tuple, list)):
        dims = tuple(arrays.shift_axis(int(d), rank) for d in dim)
    else:
        dims = arrays.shift_axis(int(dim), rank)
    if dims == ():
        # a reduction of a per-example scalar: the scalar itself, in the dtype it gives
        return _retyped(site.nodes[0], x_value, site.result)
    x = site.nodes[0]
    if isinstance(dims, tuple) and len(dims) == 1:
        dims = dims[0]
    if isinstance(dims, tuple) and name in _SINGLE_DIM:
        if keep:
            raise Unsupported(f"`{name}` over several dims with keepdim=True",
                              suggestion="reduce one dim at a time")
        x = arrays.flattened(x, rank)
        dims = 1
    args = [f"dim={dims!r}"] + (["keepdim=True"] if keep else [])
    rest = [a for a in site.node.args
            if a.keyword is not None and a.keyword.value not in ("dim", "keepdim")]
    call = (f"{{x}}.{name}(" + ", ".join(args) + ")") if method else \
        f"torch.{name}({{x}}, " + ", ".join(args) + ")"
    out = expr(call, x=x)
    if rest:
        out = out.with_changes(args=list(out.args) + rest)
    return out


def _retyped(node, value: Value, result) -> cst.BaseExpression:
    """``node`` in the dtype of ``result`` (a reduction of a scalar: `sum` of a bool is an
    int64, `mean` of a 0-d float32 is itself)."""
    if isinstance(result, Value) and result.known and value.known \
            and result.dtype != value.dtype:
        return expr(f"{{x}}.to(torch.{result.dtype.name})", x=node)
    return node


def _register_reductions(reg: Registry, torch) -> None:
    explanation = ("Reductions (`torch.sum`, `x.mean(dim=0)`, `torch.amax`...) reduce the "
                   "per-example dims: `dim=k` becomes `dim=k + 1` (negative dims stay), no "
                   "`dim` every per-example dim.")
    for name in _REDUCTIONS:
        for owner, key in ((torch, getattr(torch, name, None)),
                           (torch.Tensor, name if hasattr(torch.Tensor, name) else None)):
            if key is None:
                continue
            rule = Rule("torch.reduction", "torch", explanation,
                        "s = torch.sum(v)\nm = x.mean(dim=0)",
                        "s = torch.sum(v, dim=1)\nm = x.mean(dim=1)", _reduction,
                        infer=_per_example(key), shadow=_shadow(key))
            if owner is torch:
                reg.add_call(key, rule)
            else:
                reg.add_method(key, rule)
    for name in ("max", "min"):
        def rewrite(site, name=name):
            if site.kwargs or len(site.args) > 1:
                raise Unsupported(f"`{name}` with a dim gives values and indices per example; "
                                  f"use `torch.a{name}` for the values",
                                  suggestion=f"use torch.a{name}(x, dim=...)")
            rank = site.args[0].rank
            if rank == 0:
                return site.nodes[0]
            dims = tuple(range(1, rank + 1)) if rank > 1 else 1
            return expr(f"torch.a{name}({{x}}, dim={dims!r})", x=site.nodes[0])
        for key, add in ((getattr(torch, name), reg.add_call), (name, reg.add_method)):
            add(key, Rule(f"torch.{name}", "torch",
                          f"`torch.{name}(x)` / `x.{name}()` without a dim is the {name}imum of "
                          f"each example: `torch.a{name}` over its per-example dims.",
                          f"m = v.{name}()", f"m = torch.a{name}(v, dim=1)", rewrite,
                          infer=_per_example(key), shadow=_shadow(key)))


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
    if _is_weak(value) and value.kind == "f":
        return node
    if _is_weak(value) or not value.batched:
        return expr("{x}.double()", x=node) if value.batched else node
    return expr("{x}.detach().double()", x=node)


def _python_int(node, value) -> cst.BaseExpression:
    if _is_weak(value) and value.kind == "i":
        return node
    return expr("{x}.long()" if _is_weak(value) else "{x}.detach().long()", x=node)


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
        names = ", ".join(f"{{a{i}}}" for i in range(len(args)))
        return expr(f"torch.{torch_name}({names})", **{f"a{i}": a for i, a in enumerate(args)})
    return rewrite


def _math_rounding(name: str):
    def rewrite(site: Site):
        (x,), (value,) = site.nodes, site.args
        _python_numbers_only(site, f"`math.{name}`")
        if name == "trunc" and not _is_weak(value):
            raise Unsupported("`math.trunc` of a tensor raises in PyTorch (tensors have no "
                              "`__trunc__`)", suggestion="use int(x), or math.trunc(float(x))")
        if value.kind in "biu":
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
        except (TypeError, ValueError, RuntimeError) as exc:
            if fn is math.trunc:
                return Value(True, 1)
            raise Unsupported(f"`math.{fn.__name__}` raises for {_described(site)} in the "
                              f"per-example code ({_first_line(exc)})") from None
        return Value(True, out)       # a Python number per example
    return infer


def _min_max(op: str):
    compare = operator.lt if op == "<" else operator.gt

    def choose(*xs):
        out = xs[0]
        for nxt in xs[1:]:
            out = _select(compare(nxt, out), nxt, out)
        return out

    def rewrite(site: Site):
        name = "min" if op == "<" else "max"
        if site.kwargs or len(site.nodes) < 2:
            raise Unsupported(f"`{name}` of one per-example tensor or with keywords",
                              suggestion="use torch.amin / torch.amax with a dim")
        rank = broadcast_rank(site.args)
        nodes = _matched(site, choose, list(zip(site.args, site.nodes)))
        args = [pad(n, v, rank) for n, v in zip(nodes, site.args)]
        # Python keeps the earlier argument unless a later one is strictly smaller (larger):
        # NaN and -0.0 results included
        out = args[0]
        for nxt in args[1:]:
            out = expr("torch.where({b} " + op + " {a}, {b}, {a})", a=out, b=nxt)
        return out
    return rewrite


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
            raise Unsupported("`float()` of a complex tensor raises per example")
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
            raise Unsupported(f"`{kind}()` of a complex tensor raises per example")
        return Value(True, py(1))
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
    py = {"b": bool, "i": int, "u": int, "f": float, "c": complex}.get(value.kind)
    return Value(True, py(1) if py else UNKNOWN)


def _round(site: Site):
    (value, *rest) = site.args
    if not _is_weak(value):
        raise Unsupported("`round()` of a tensor raises in PyTorch (tensors have no "
                          "`__round__`)", suggestion="use torch.round(x), or round(float(x))")
    if rest or site.kwargs:
        raise Unsupported("`round(v, ndigits)`: Python rounds the decimal value exactly, "
                          "`torch.round(v, decimals=n)` scales by 10**n first and can differ "
                          "in the last digit", suggestion="call torch.round(x, decimals=n) "
                                                          "if its rounding will do")
    x = site.nodes[0]
    return x if value.kind in "biu" else expr("torch.round({x}).long()", x=x)


def _round_infer(site: Site):
    value = site.args[0]
    if not _is_weak(value):
        raise Unsupported("`round()` of a tensor raises in PyTorch (tensors have no "
                          "`__round__`)", suggestion="use torch.round(x), or round(float(x))")
    return Value(True, 1)


def _register_math_builtins(reg: Registry, torch) -> None:
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
        infer=_per_example(abs, "`abs`")))
    for name, op in (("min", "<"), ("max", ">")):
        reg.add_call(getattr(builtins, name), Rule(
            f"builtin.{name}", "builtins",
            f"`{name}(a, b)` keeps `a` unless `b {op} a`, exactly as Python decides it: "
            f"`torch.where(b {op} a, b, a)`.", f"m = {name}(x, y)",
            f"m = torch.where(y {op} x, y, x)", _min_max(op)))
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
        nodes = _matched(site, operator.pow, list(zip(site.args, site.nodes)))
        rank = broadcast_rank(site.args)
        a, b = (pad(n, v, rank) for n, v in zip(nodes, site.args))
        return expr("{a} ** {b}", a=a, b=b)
    reg.add_call(builtins.pow, Rule(
        "builtin.pow", "builtins", "`pow(a, b)` is `a ** b`.", "y = pow(x, 3)", "y = x ** 3",
        power, infer=_per_example(operator.pow, "`pow`")))


# ------------------------------------------------------------------- shapes, indexing


def _size_method(site: Site):
    rank = site.args[0].rank
    if len(site.args) > 1 or "dim" in site.kwargs:
        dim = site.args[1] if len(site.args) > 1 else site.kwargs["dim"][1]
        if dim.batched or not dim.exact:
            raise Unsupported("the dim of `.size(dim)` must be a constant")
        return expr(f"{{x}}.size({arrays.shift_axis(int(dim.example), rank)})",
                    x=site.nodes[0])
    return expr("{x}.shape[1:]", x=site.nodes[0])


def _size_infer(site: Site):
    shape = np.shape(site.args[0].example)
    if len(site.args) > 1 or "dim" in site.kwargs:
        dim = site.args[1] if len(site.args) > 1 else site.kwargs["dim"][1]
        if not dim.exact:
            return unbatched()
        try:
            return unbatched(shape[int(dim.example)])
        except IndexError:
            raise Unsupported(f"`.size({dim.example})` of a per-example tensor of "
                              f"{len(shape)} dims") from None
    return unbatched(shape)


def _transposed(site: Site):
    rank = site.args[0].rank
    if rank < 2:
        return site.nodes[0]
    return expr("{x}.permute(" + ", ".join(["0"] + [str(i) for i in range(rank, 0, -1)])
                + ")", x=site.nodes[0])


def _len_infer(site: Site):
    value = site.args[0]
    if value.known and value.rank == 0:
        raise Unsupported("`len()` of a per-example 0-d tensor raises per example")
    return unbatched(len(value.example) if value.known else None)


def _dims(site: Site, what: str):
    """The constant dims given to a shape method (positionally after the tensor, or as
    ``dim=``), and the tensor's per-example rank."""
    values = list(site.args[1:]) + [v for _, v in site.kwargs.values()]
    dims = []
    for value in values:
        if value.batched or not value.exact:
            raise Unsupported(f"the dims of {what} must be constants written in the function")
        dims.append(value.example)
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = list(dims[0])
    return dims, site.args[0].rank


def _shifted(dim: int, rank: int) -> int:
    """A per-example dim of a tensor of per-example rank ``rank`` as a dim of the batch."""
    return dim + 1 if dim >= 0 else dim


def _unsqueeze(site: Site):
    (dim,), rank = _dims(site, "`unsqueeze`")
    return expr(f"{{x}}.unsqueeze({_shifted(dim, rank + 1)})", x=site.nodes[0])


def _squeeze(site: Site):
    dims, rank = _dims(site, "`squeeze`")
    if not dims:
        raise Unsupported("`squeeze()` without a dim depends on the sizes of each example "
                          "(and would squeeze a batch of one)", suggestion="name the dim: "
                                                                           "x.squeeze(0)")
    shifted = [_shifted(int(d), rank) for d in dims]
    text = str(shifted[0]) if len(shifted) == 1 else repr(tuple(shifted))
    return expr(f"{{x}}.squeeze({text})", x=site.nodes[0])


def _flatten_method(site: Site):
    dims, rank = _dims(site, "`flatten`")
    start, end = (list(dims) + [0, -1][len(dims):])[:2]
    if rank == 0:
        return expr("{x}.reshape(len({x}), 1)", x=site.nodes[0])
    return expr(f"{{x}}.flatten({_shifted(int(start), rank)}, {_shifted(int(end), rank)})",
                x=site.nodes[0])


def _transpose_method(site: Site):
    dims, rank = _dims(site, "`transpose`")
    a, b = (int(d) + rank if int(d) < 0 else int(d) for d in dims)
    return expr(f"{{x}}.transpose({a + 1}, {b + 1})", x=site.nodes[0])


def _permute(site: Site):
    dims, rank = _dims(site, "`permute`")
    order = ", ".join(["0"] + [str((int(d) + rank if int(d) < 0 else int(d)) + 1)
                               for d in dims])
    return expr(f"{{x}}.permute({order})", x=site.nodes[0])


def _register_shape_methods(reg: Registry) -> None:
    from ...rules.shapes import _reshape
    for names, rewrite, before, after, explanation in (
            (("reshape", "view"), _reshape, "m = v.reshape(3, 4)", "m = v.reshape(len(v), 3, 4)",
             "`x.reshape(...)` / `x.view(...)` keep the batch length in front."),
            (("unsqueeze",), _unsqueeze, "c = v.unsqueeze(1)", "c = v.unsqueeze(2)",
             "`x.unsqueeze(d)`: the per-example dim `d` is `d + 1` (negative dims stay)."),
            (("squeeze",), _squeeze, "v = c.squeeze(1)", "v = c.squeeze(2)",
             "`x.squeeze(d)`: the per-example dim `d` is `d + 1`; without a dim it is "
             "refused (it depends on each example's sizes)."),
            (("flatten",), _flatten_method, "f = m.flatten()", "f = m.flatten(1, -1)",
             "`x.flatten()` flattens each example: from dim 1."),
            (("transpose", "swapaxes", "swapdims"), _transpose_method, "t = m.transpose(0, 1)",
             "t = m.transpose(1, 2)", "`x.transpose(a, b)` swaps per-example dims."),
            (("permute",), _permute, "t = m.permute(1, 0)", "t = m.permute(0, 2, 1)",
             "`x.permute(...)` keeps the batch dim first.")):
        for name in names:
            reg.add_method(name, Rule(f"torch.{names[0]}", "shapes", explanation, before,
                                      after, rewrite,
                                      infer=_per_example(name, f"`.{name}()`")))


def _register_shapes(reg: Registry, torch) -> None:
    _register_shape_methods(reg)
    reg.add_operator("subscript", Rule(
        "array.index", "arrays",
        "Indexing a per-example tensor gets `:` for the batch axis in front; a per-example "
        "integer index gathers one element per example.",
        "first = x[0]\npick = x[k]",
        "first = x[:, 0]\npick = x[torch.arange(len(x), device=x.device), k]",
        arrays._subscript))
    reg.add_attribute("shape", Rule(
        "array.shape", "arrays", "`x.shape` is the per-example shape: `x.shape[1:]`.",
        "n, m = x.shape", "n, m = x.shape[1:]", lambda s: expr("{x}.shape[1:]", x=s.nodes[0]),
        infer=arrays._unbatched_attr("shape")))
    reg.add_attribute("ndim", Rule(
        "array.ndim", "arrays", "`x.ndim` is the per-example rank: `x.ndim - 1`.",
        "r = x.ndim", "r = x.ndim - 1", lambda s: expr("{x}.ndim - 1", x=s.nodes[0]),
        infer=arrays._unbatched_attr("ndim")))
    for attr in ("dtype", "device"):
        reg.add_attribute(attr, Rule(
            f"array.{attr}", "arrays", f"`x.{attr}` is the same for every example.",
            f"t = x.{attr}", f"t = x.{attr}", lambda s: s.node, infer=lambda s: unbatched()))
    reg.add_attribute("T", Rule(
        "array.T", "arrays", "`x.T` reverses the per-example dims only.",
        "y = m.T", "y = m.permute(0, 2, 1)", _transposed,
        infer=lambda s: batched_like(np.transpose(s.args[0].example))))
    reg.add_method("size", Rule(
        "torch.size", "arrays", "`x.size()` is the per-example shape, `x.size(k)` is "
        "`x.size(k + 1)`.", "n = x.size(0)", "n = x.size(1)", _size_method,
        infer=_size_infer))
    for method in ("numel", "nelement"):
        reg.add_method(method, Rule(
            "torch.numel", "arrays", "`x.numel()` is the number of elements of one example: "
            "`x.shape[1:].numel()`.", "n = x.numel()", "n = x.shape[1:].numel()",
            lambda s: expr("{x}.shape[1:].numel()", x=s.nodes[0]),
            infer=lambda s: unbatched(int(np.size(s.args[0].example)))))
    reg.add_method("dim", Rule(
        "torch.dim", "arrays", "`x.dim()` is the per-example rank.", "r = x.dim()",
        "r = x.dim() - 1", lambda s: expr("{x}.dim() - 1", x=s.nodes[0]),
        infer=lambda s: unbatched(s.args[0].rank)))
    reg.add_call(builtins.len, Rule(
        "builtin.len", "builtins", "`len(x)` of a per-example tensor is `x.shape[1]`.",
        "n = len(v)", "n = v.shape[1]", lambda s: expr("{x}.shape[1]", x=s.nodes[0]),
        infer=_len_infer))


# ---------------------------------------------------------------------------- products


def _register_products(reg: Registry, torch) -> None:
    def add(fn_names, rewrite, name, explanation, before, after):
        for fn_name in fn_names:
            for key, adder in ((getattr(torch, fn_name, None), reg.add_call),
                               (fn_name if hasattr(torch.Tensor, fn_name) else None,
                                reg.add_method)):
                if key is not None:
                    rule = adder(key, Rule(name, "linear algebra", explanation, before, after,
                                           rewrite, infer=_per_example(key),
                                           shadow=_shadow(key)))
        return rule

    add(["dot", "vdot", "inner"], linalg._inner, "linalg.dot",
        "`torch.dot(a, b)` / `a.dot(b)` of per-example vectors: one einsum; a shared operand "
        "is used as it is.", "s = torch.dot(v, w)", 's = torch.einsum("bi,i->b", v, w)')
    matmul = add(["matmul", "mm", "mv"], linalg._matmul, "linalg.matmul",
                 "`a @ b`, `torch.matmul`, `torch.mm`, `torch.mv`: one einsum.",
                 "y = W @ x", 'y = torch.einsum("ij,bj->bi", W, x)')
    reg.add_operator("matmul", matmul)
    add(["outer", "ger"], linalg._outer, "linalg.outer",
        "`torch.outer(a, b)` of per-example vectors.", "m = torch.outer(a, b)",
        'm = torch.einsum("bi,bj->bij", a, b)')
    add(["einsum"], linalg._einsum, "linalg.einsum",
        "`torch.einsum` itself: batched operands get a batch letter, which the output keeps.",
        's = torch.einsum("i,ij->j", v, m)', 's = torch.einsum("bi,ij->bj", v, m)')


# ---------------------------------------------------------------------------- autograd


def _grad_args(site: Site):
    """(outputs, inputs, grad_outputs) values of ``torch.autograd.grad``."""
    names = ("outputs", "inputs", "grad_outputs")
    values = list(site.args[:3])
    for name in names[len(values):]:
        values.append(site.kwargs[name][1] if name in site.kwargs else None)
    return values


def _grad(site: Site):
    outputs, inputs, grad_outputs = _grad_args(site)
    if outputs.batched or inputs.batched:
        raise Unsupported("`torch.autograd.grad` of per-example outputs or inputs",
                          suggestion="compute the outputs outside the function and map "
                                     "over the vectors of the product (grad_outputs)")
    if grad_outputs is None or not grad_outputs.batched:
        return site.node
    if "is_grads_batched" in site.kwargs:
        raise Unsupported("`is_grads_batched` given already")
    call = site.node
    return call.with_changes(args=list(call.args[:-1]) + [
        call.args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(
            " ")))] + [parse_expr("f(is_grads_batched=True)").args[0]])


def _grad_shadow(outputs, inputs, grad_outputs=None, **kwargs):
    """What ``torch.autograd.grad`` gives on examples: one gradient per input, shaped like
    it (the analysis never differentiates anything)."""
    return tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)


def _grad_infer(site: Site):
    _, inputs, _ = _grad_args(site)
    allow_unused = site.kwargs.get("allow_unused", (None, None))[1]
    if allow_unused is not None and (not allow_unused.exact or allow_unused.example):
        raise Unsupported("`torch.autograd.grad(..., allow_unused=True)`: whether a gradient "
                          "is None is not known before it runs",
                          suggestion="pass materialize_grads=True (zeros for unused inputs)")
    # one per input: one tensor, a tuple, a list display (an example that is a list)
    if isinstance(inputs, TupleValue):
        examples_ = [item.example for item in inputs.items]
    elif isinstance(inputs.example, (list, tuple)):
        examples_ = list(inputs.example)
    else:
        examples_ = [inputs.example]
    return TupleValue(tuple(batched_like(examples.of_tensor(e)) for e in examples_))


# -------------------------------------------------------------------------- the table


def register(reg: Registry) -> None:
    torch = torch_module()
    _register_operators(reg)
    lanes.register(reg)
    _register_shapes(reg, torch)
    _register_elementwise(reg, torch)
    _register_reductions(reg, torch)
    _register_math_builtins(reg, torch)
    _register_products(reg, torch)
    reg.add_call(torch.autograd.grad, Rule(
        "torch.autograd.grad", "autograd",
        "`torch.autograd.grad(y, x, v)` with a per-example `v` (a vector-Jacobian product per "
        "example) is one call with `is_grads_batched=True`: the result has the batch axis in "
        "front.", "g = torch.autograd.grad(y, x, v)[0]",
        "g = torch.autograd.grad(y, x, v, is_grads_batched=True)[0]", _grad,
        infer=_grad_infer, shadow=_grad_shadow))
    reg.add_draws(lambda fn: random_name(fn) is not None, Rule(
        "torch.numpy_random", "random",
        "A NumPy random draw (`np.random.*`, a `Generator` method) in code for tensors is "
        "refused: NumPy would draw one array, not a tensor of draws per example.",
        "noise = np.random.normal(0.0, 1.0)", "(refused)", _numpy_draw, infer=_numpy_draw))
    torch_random.register(reg)
    register_python_random(reg)
    for rule in reg.all_rules:
        if rule.infer is not None:
            rule.infer = _located(rule.infer)


def _numpy_draw(site: Site):
    raise Unsupported("a NumPy random draw in a function vectorized for PyTorch tensors",
                      site.original, "draw the noise with torch for the whole batch outside "
                                     "the function and pass it in as an argument")


def _located(infer):
    """``infer`` whose refusals point at the call they are about."""
    def located(site: Site):
        try:
            return infer(site)
        except Unsupported as problem:
            problem.node = problem.node or site.original
            raise
    return located
