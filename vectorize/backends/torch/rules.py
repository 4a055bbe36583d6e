"""The PyTorch rule tables: how torch functions, tensor methods, ``math`` and builtins batch.

Shared with NumPy (the same rules, spelled by the backend): operators and ``and``/``or``/
``not``/conditional expressions (``torch.where``), masked loops, indexing, and products, which
become one ``torch.einsum`` with a batch letter on batched operands only (`vectorize.rules`).
Here: what only PyTorch has or spells differently.

- elementwise torch functions and their tensor methods (``torch.sin``, ``x.relu()``,
  ``torch.where``, ``torch.clamp``, ``torch.nn.functional.relu``...): as written, operands of
  lower per-example rank get new axes after the batch axis;
- reductions with ``dim``/``keepdim`` (``torch.sum``, ``x.mean(dim=0)``...): per-example dims
  shift by one, ``dim=None`` is every per-example dim;
- ``math`` functions and builtins on tensors: their torch equivalent, in the tensor's dtype;
- ``torch.autograd.grad`` with per-example ``grad_outputs``: one call with
  ``is_grads_batched=True`` (a vector-Jacobian product per example);
- ``.shape``, ``.ndim``, ``.T``, ``len``, ``.size()``, dtype conversions (``.float()``...).

Every rule carries what its operation gives on the analysis' NumPy examples (``infer``, and
``shadow`` for calls without per-example arguments): dtypes follow PyTorch (a float function of
an integer tensor gives the default float dtype).
"""

from __future__ import annotations

import builtins
import math

import libcst as cst
import numpy as np

from ...abstract import TupleValue, Value, batched_like, unbatched
from ...cst_util import expr, parse_expr
from ...errors import Unsupported
from ...rules import arrays, lanes, linalg, operators
from ...rules.families import pad
from ...rules.registry import Registry, Rule, Site, evaluate
from . import torch_module

# ---------------------------------------------------------------------------- examples


def _default_float() -> np.dtype:
    return np.dtype(str(torch_module().get_default_dtype()).rpartition(".")[2])


def _float_result(out, examples):
    """``out`` computed by NumPy, in the dtype PyTorch gives: a float function of integer
    or boolean tensors gives the default float dtype (NumPy: float64)."""
    if out is None or not hasattr(out, "dtype"):
        return out
    kinds = [np.asarray(e).dtype.kind for e in examples if isinstance(e, (np.ndarray,
                                                                        np.generic))]
    if out.dtype.kind == "f" and kinds and all(k in "biu" for k in kinds):
        return np.asarray(out).astype(_default_float())[()]
    return out


def _shadow_infer(shadow, float_op: bool = False):
    """An ``infer`` that runs ``shadow`` (a NumPy function computing the same lane by lane) on
    the examples."""
    def infer(site: Site):
        examples = [a.example for a in site.args]
        kw = {k: v.example for k, (_, v) in site.kwargs.items()}
        out = evaluate(shadow, *examples, **kw)
        if float_op:
            out = _float_result(out, examples)
        return batched_like(out)
    return infer


def _call_shadow(shadow, float_op: bool = False):
    """``shadow`` as the analysis runs it on unbatched examples."""
    if not float_op:
        return shadow

    def run(*args, **kwargs):
        return _float_result(shadow(*args, **kwargs), args)
    return run


# ------------------------------------------------------------------------- rewriting


def _padded_call(site: Site, first_is_base: bool = False) -> cst.Call:
    """The call as written, every per-example operand (positional or keyword) of lower
    per-example rank given new axes after the batch axis; ``first_is_base``: a method call
    ``x.f(...)``, whose object is ``site.nodes[0]``."""
    call = site.node
    values = list(site.args) + [v for _, v in site.kwargs.values()]
    rank = max((v.rank for v in values if isinstance(v, Value)), default=0)
    positional = iter(zip(site.nodes[1:] if first_is_base else site.nodes,
                          site.args[1:] if first_is_base else site.args))
    args = []
    for arg in call.args:
        if arg.keyword is None and not arg.star:
            node, value = next(positional)
            arg = arg.with_changes(value=pad(node, value, rank))
        elif arg.keyword is not None and arg.keyword.value in site.kwargs:
            node, value = site.kwargs[arg.keyword.value]
            arg = arg.with_changes(value=pad(node if node is not None else arg.value, value,
                                             rank))
        args.append(arg)
    func = call.func
    if first_is_base:
        func = func.with_changes(value=pad(site.nodes[0], site.args[0], rank))
    return call.with_changes(func=func, args=args)


def _elementwise(site: Site):
    return _padded_call(site, first_is_base=isinstance(site.func, str))


# ----------------------------------------------------------------------- elementwise

# torch function name -> (NumPy shadow, float result)
_UNARY = {
    "abs": (np.abs, False), "absolute": (np.abs, False), "neg": (np.negative, False),
    "negative": (np.negative, False), "sign": (np.sign, False), "sgn": (np.sign, False),
    "square": (np.square, False), "floor": (np.floor, False), "ceil": (np.ceil, False),
    "trunc": (np.trunc, False), "round": (np.round, False), "frac": (lambda x: x - np.trunc(x),
                                                                      False),
    "sqrt": (np.sqrt, True), "rsqrt": (lambda x: 1 / np.sqrt(x), True),
    "exp": (np.exp, True), "exp2": (np.exp2, True), "expm1": (np.expm1, True),
    "log": (np.log, True), "log2": (np.log2, True), "log10": (np.log10, True),
    "log1p": (np.log1p, True), "sin": (np.sin, True), "cos": (np.cos, True),
    "tan": (np.tan, True), "asin": (np.arcsin, True), "arcsin": (np.arcsin, True),
    "acos": (np.arccos, True), "arccos": (np.arccos, True), "atan": (np.arctan, True),
    "arctan": (np.arctan, True), "sinh": (np.sinh, True), "cosh": (np.cosh, True),
    "tanh": (np.tanh, True), "asinh": (np.arcsinh, True), "acosh": (np.arccosh, True),
    "atanh": (np.arctanh, True), "sigmoid": (lambda x: 1 / (1 + np.exp(-x)), True),
    "reciprocal": (np.reciprocal, True), "erf": (np.tanh, True), "erfc": (np.tanh, True),
    "lgamma": (np.log, True), "digamma": (np.log, True), "deg2rad": (np.deg2rad, True),
    "rad2deg": (np.rad2deg, True), "relu": (lambda x: np.maximum(x, 0 * x), False),
    "isnan": (np.isnan, False), "isinf": (np.isinf, False), "isfinite": (np.isfinite, False),
    "signbit": (np.signbit, False), "logical_not": (np.logical_not, False),
    "nan_to_num": (np.nan_to_num, False), "positive": (np.positive, False),
}
_BINARY = {
    "add": np.add, "sub": np.subtract, "subtract": np.subtract, "mul": np.multiply,
    "multiply": np.multiply, "div": np.true_divide, "divide": np.true_divide,
    "true_divide": np.true_divide, "floor_divide": np.floor_divide, "remainder": np.remainder,
    "fmod": np.fmod, "pow": np.power, "float_power": np.float_power, "atan2": np.arctan2,
    "arctan2": np.arctan2, "hypot": np.hypot, "copysign": np.copysign,
    "maximum": np.maximum, "minimum": np.minimum, "fmax": np.fmax, "fmin": np.fmin,
    "logical_and": np.logical_and, "logical_or": np.logical_or,
    "logical_xor": np.logical_xor, "eq": np.equal, "ne": np.not_equal, "lt": np.less,
    "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal, "logaddexp": np.logaddexp,
    "xlogy": lambda x, y: x * np.log(y), "heaviside": np.heaviside,
}
_FLOAT_BINARY = {"true_divide", "div", "divide", "float_power", "atan2", "arctan2", "hypot",
                 "logaddexp", "xlogy"}
# torch.nn.functional activations: elementwise, dtype kept
_ACTIVATIONS = {"relu", "relu6", "gelu", "silu", "mish", "elu", "selu", "celu", "softplus",
                "softsign", "leaky_relu", "hardtanh", "hardsigmoid", "hardswish", "sigmoid",
                "tanh", "logsigmoid", "tanhshrink", "softshrink", "hardshrink"}
# dtype conversions (methods): the NumPy dtype they give
_CONVERSIONS = {"float": "float32", "double": "float64", "half": "float16", "int": "int32",
                "long": "int64", "short": "int16", "bool": "bool", "cfloat": "complex64",
                "cdouble": "complex128"}


def _where_shadow(cond, a, b):
    return np.where(cond, a, b)


def _clamp_shadow(x, min=None, max=None):          # noqa: A002 -- torch's names
    out = x
    if min is not None:
        out = np.maximum(out, min)
    if max is not None:
        out = np.minimum(out, max)
    return np.asarray(out).astype(np.result_type(x, *(v for v in (min, max)
                                                     if v is not None)))[()]


def _keep_dtype_shadow(x, *args, **kwargs):
    return x


def _conversion_shadow(dtype):
    def shadow(x, *args, **kwargs):
        return np.asarray(x).astype(dtype)[()]
    return shadow


def _to_shadow(x, *args, **kwargs):
    for a in (*args, *kwargs.values()):
        name = str(a).rpartition(".")[2]
        if name in ("bool", "uint8", "int8", "int16", "int32", "int64", "float16",
                    "float32", "float64", "complex64", "complex128"):
            return np.asarray(x).astype(name)[()]
    return x


def _register_elementwise(reg: Registry, torch) -> None:
    def add(fn_names, owner, shadow, float_op, name, explanation, before, after,
            methods=True):
        rule = Rule(name, "torch", explanation, before, after, _elementwise,
                    infer=_shadow_infer(shadow, float_op),
                    shadow=_call_shadow(shadow, float_op))
        for fn_name in fn_names:
            fn = getattr(owner, fn_name, None)
            if fn is not None:
                reg.add_call(fn, rule)
            if methods and hasattr(torch.Tensor, fn_name):
                reg.add_method(fn_name, rule)
        return rule

    elementwise = ("Elementwise torch functions and tensor methods (`torch.sin`, `x.relu()`, "
                   "`torch.maximum`...) act lane by lane: as written, operands of lower "
                   "per-example rank get new axes after the batch axis.",
                   "y = torch.sin(x) + x.relu()", "y = torch.sin(x) + x.relu()")
    for fn_name, (shadow, float_op) in _UNARY.items():
        add([fn_name], torch, shadow, float_op, "torch.elementwise", *elementwise)
    for fn_name, shadow in _BINARY.items():
        add([fn_name], torch, shadow, fn_name in _FLOAT_BINARY, "torch.elementwise",
            *elementwise)
    add(["where"], torch, _where_shadow, False, "torch.where",
        "`torch.where(c, a, b)` chooses lane by lane: as written (operands aligned by "
        "per-example rank).", "y = torch.where(t > 5.0, t * b, -t)",
        "y = torch.where(t > 5.0, t * b, -t)", methods=False)
    add(["clamp", "clip"], torch, _clamp_shadow, False, "torch.clamp",
        "`torch.clamp(x, min, max)` / `x.clamp(...)` act lane by lane; per-example bounds "
        "get new axes after the batch axis.", "y = x.clamp(min=lo)", "y = x.clamp(min=lo)")
    functional = torch.nn.functional
    for fn_name in sorted(_ACTIVATIONS):
        float_op = fn_name not in ("relu", "relu6", "hardtanh", "leaky_relu")
        add([fn_name], functional, _UNARY.get(fn_name, (_keep_dtype_shadow,))[0]
            if fn_name in _UNARY else _keep_dtype_shadow, float_op, "torch.activation",
            "Activations of `torch.nn.functional` (`F.relu`, `F.gelu`, `F.softplus`...) act "
            "lane by lane: as written.", "y = F.gelu(x)", "y = F.gelu(x)", methods=False)
    for method, dtype in _CONVERSIONS.items():
        reg.add_method(method, Rule(
            "torch.conversion", "torch",
            "Dtype conversions (`x.float()`, `x.long()`, `x.to(torch.float64)`...) act lane by "
            "lane: as written.", "k = x.long()", "k = x.long()", _elementwise,
            infer=_shadow_infer(_conversion_shadow(dtype))))
    for method in ("to", "type_as"):
        reg.add_method(method, Rule(
            "torch.conversion", "torch",
            "Dtype conversions (`x.float()`, `x.long()`, `x.to(torch.float64)`...) act lane by "
            "lane: as written.", "k = x.to(torch.int64)", "k = x.to(torch.int64)",
            _elementwise, infer=_shadow_infer(_to_shadow)))
    for method in ("detach", "clone", "contiguous"):
        reg.add_method(method, Rule(
            "torch.identity_method", "torch",
            "`x.detach()`, `x.clone()`, `x.contiguous()` act on the whole batch as on each "
            "example.", "y = x.clone()", "y = x.clone()", _elementwise,
            infer=_shadow_infer(_keep_dtype_shadow)))
    for fn_name in ("zeros_like", "ones_like", "empty_like", "full_like", "rand_like",
                    "randn_like"):
        if fn_name in ("rand_like", "randn_like"):
            continue        # random draws: not yet (independent per example, like np.random)
        add([fn_name], torch, {"zeros_like": np.zeros_like, "ones_like": np.ones_like,
                               "empty_like": np.ones_like, "full_like": np.full_like}[fn_name],
            False, "torch.like", "`torch.zeros_like(x)`, `torch.full_like(x, v)` of a "
            "per-example tensor: a batched tensor of the same shape, as written.",
            "z = torch.zeros_like(v)", "z = torch.zeros_like(v)", methods=False)


# ------------------------------------------------------------------------ reductions

_REDUCTIONS = {"sum": np.sum, "mean": np.mean, "prod": np.prod, "amax": np.amax,
               "amin": np.amin, "std": np.std, "var": np.var, "any": np.any, "all": np.all,
               "logsumexp": lambda x, axis=None: np.log(np.sum(np.exp(x), axis=axis)),
               "nansum": np.nansum, "nanmean": np.nanmean, "count_nonzero": np.count_nonzero,
               "norm": lambda x, axis=None: np.sqrt(np.sum(x * x, axis=axis))}
_FLOAT_REDUCTIONS = {"mean", "std", "var", "logsumexp", "nanmean", "norm"}
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
    rank = x_value.rank
    dim, keep = _dim_of(site)
    if dim is None:
        dims = tuple(range(1, rank + 1))
    elif isinstance(dim, (tuple, list)):
        dims = tuple(arrays.shift_axis(int(d), rank) for d in dim)
    else:
        dims = arrays.shift_axis(int(dim), rank)
    if dims == ():
        return site.nodes[0]            # a reduction of a per-example scalar is itself
    x = site.nodes[0]
    if isinstance(dims, tuple) and len(dims) == 1:
        dims = dims[0]
    if isinstance(dims, tuple) and name in _SINGLE_DIM:
        if keep:
            raise Unsupported(f"`{name}` over several dims with keepdim=True",
                              suggestion="reduce one dim at a time")
        x = arrays.flattened(x, rank)
        dims = 1
    args = ["{x}"] + [f"dim={dims!r}"] + (["keepdim=True"] if keep else [])
    rest = [a for a in site.node.args if (a.keyword is None and False) or (
        a.keyword is not None and a.keyword.value not in ("dim", "keepdim"))]
    call = (f"{{x}}.{name}(" + ", ".join(args[1:]) + ")") if method else \
        f"torch.{name}(" + ", ".join(args) + ")"
    out = expr(call, x=x)
    if rest:
        out = out.with_changes(args=list(out.args) + rest)
    return out


def _reduction_shadow(fn, float_op):
    def shadow(x, dim=None, keepdim=False, **kwargs):
        axis = tuple(dim) if isinstance(dim, (list, tuple)) else dim
        out = fn(np.asarray(x), axis=axis)
        if keepdim:
            out = np.expand_dims(out, axis if axis is not None else tuple(range(np.ndim(x))))
        return _float_result(np.asarray(out)[()], [x]) if float_op else np.asarray(out)[()]
    return shadow


def _register_reductions(reg: Registry, torch) -> None:
    explanation = ("Reductions (`torch.sum`, `x.mean(dim=0)`, `torch.amax`...) reduce the "
                   "per-example dims: `dim=k` becomes `dim=k + 1` (negative dims stay), no "
                   "`dim` every per-example dim.")
    for name, fn in _REDUCTIONS.items():
        shadow = _reduction_shadow(fn, name in _FLOAT_REDUCTIONS)
        rule = Rule("torch.reduction", "torch", explanation,
                    "s = torch.sum(v)\nm = x.mean(dim=0)",
                    "s = torch.sum(v, dim=1)\nm = x.mean(dim=1)", _reduction,
                    infer=_shadow_infer(shadow), shadow=shadow)
        if hasattr(torch, name):
            reg.add_call(getattr(torch, name), rule)
        if hasattr(torch.Tensor, name):
            reg.add_method(name, rule)
    for name in ("max", "min"):
        fn = np.amax if name == "max" else np.amin
        shadow = _reduction_shadow(fn, False)

        def rewrite(site, name=name):
            if site.kwargs or len(site.args) > 1:
                raise Unsupported(f"`{name}` with a dim gives values and indices per example; "
                                  f"use `torch.a{name}` for the values",
                                  suggestion=f"use torch.a{name}(x, dim=...)")
            rank = site.args[0].rank
            if rank == 0:
                return site.nodes[0]
            return expr(f"torch.a{name}({{x}}, dim={tuple(range(1, rank + 1))!r})"
                        if rank > 1 else f"torch.a{name}({{x}}, dim=1)", x=site.nodes[0])
        rule = Rule(f"torch.{name}", "torch",
                    f"`torch.{name}(x)` / `x.{name}()` without a dim is the {name}imum of each "
                    f"example: `torch.a{name}` over its per-example dims.",
                    f"m = v.{name}()", f"m = torch.a{name}(v, dim=1)", rewrite,
                    infer=_shadow_infer(shadow), shadow=shadow)
        reg.add_call(getattr(torch, name), rule)
        reg.add_method(name, rule)


# ---------------------------------------------------------------------- math, builtins

_MATH = {"sqrt": "sqrt", "exp": "exp", "expm1": "expm1", "log2": "log2", "log10": "log10",
         "log1p": "log1p", "sin": "sin", "cos": "cos", "tan": "tan", "asin": "asin",
         "acos": "acos", "atan": "atan", "atan2": "atan2", "sinh": "sinh", "cosh": "cosh",
         "tanh": "tanh", "asinh": "asinh", "acosh": "acosh", "atanh": "atanh",
         "fabs": "abs", "hypot": "hypot", "copysign": "copysign", "fmod": "fmod",
         "degrees": "rad2deg", "radians": "deg2rad", "erf": "erf", "erfc": "erfc",
         "lgamma": "lgamma", "isnan": "isnan", "isinf": "isinf", "isfinite": "isfinite",
         "exp2": "exp2", "log": "log"}
_MATH_ROUNDING = {"floor": "floor", "ceil": "ceil", "trunc": "trunc"}


def _math_rule(torch_name: str):
    def rewrite(site: Site):
        if site.kwargs:
            raise Unsupported("keyword arguments of `math` functions on tensors")
        args = list(site.nodes)
        if torch_name == "log" and len(args) == 2:
            return expr("torch.log({x}) / torch.log(torch.as_tensor({b}))", x=args[0],
                        b=args[1])
        values = list(site.args)
        rank = max(v.rank for v in values)
        padded = [pad(n, v, rank) for n, v in zip(args, values)]
        # a Python number operand of a two-argument function becomes a tensor of the other
        # operand's dtype and device (torch.atan2 takes tensors only)
        batched = next(n for n, v in zip(padded, values) if v.batched)
        padded = [n if v.batched else expr("torch.as_tensor({n}, dtype={x}.dtype, "
                                           "device={x}.device)", n=n, x=batched)
                  for n, v in zip(padded, values)] if len(padded) > 1 else padded
        names = ", ".join(f"{{a{i}}}" for i in range(len(padded)))
        return expr(f"torch.{torch_name}({names})",
                    **{f"a{i}": n for i, n in enumerate(padded)})
    return rewrite


def _math_rounding(torch_name: str):
    def rewrite(site: Site):
        (x,) = site.nodes
        if site.args[0].kind in "iu":
            return x
        return expr(f"torch.{torch_name}({{x}}).long()", x=x)
    return rewrite


def _math_shadow(name: str):
    np_fn = {"fabs": np.abs, "degrees": np.rad2deg, "radians": np.deg2rad, "erf": np.tanh,
             "erfc": np.tanh, "lgamma": np.log, "asin": np.arcsin, "acos": np.arccos,
             "atan": np.arctan, "atan2": np.arctan2, "asinh": np.arcsinh,
             "acosh": np.arccosh, "atanh": np.arctanh}.get(name) or getattr(np, name)

    def shadow(*args):
        out = np_fn(*args[:2])
        if out.dtype.kind == "b":
            return out
        return _float_result(out, args)
    return shadow


def _min_max(op: str):
    def rewrite(site: Site):
        if site.kwargs or len(site.nodes) < 2:
            raise Unsupported(f"`{'min' if op == '<' else 'max'}` of one per-example tensor "
                              "or with keywords", suggestion="use torch.amin / torch.amax "
                                                             "with a dim")
        rank = max(v.rank for v in site.args)
        args = [pad(n, v, rank) for n, v in zip(site.nodes, site.args)]
        # Python keeps the earlier argument unless a later one is strictly smaller (larger):
        # NaN and -0.0 results included
        out = args[0]
        for nxt in args[1:]:
            out = expr("torch.where({b} " + op + " {a}, {b}, {a})", a=out, b=nxt)
        return out
    return rewrite


def _builtin_conversion(kind: str):
    def rewrite(site: Site):
        (x,) = site.nodes
        value = site.args[0]
        if kind == "bool":
            return x if value.kind == "b" else expr("{x} != 0", x=x)
        if kind == "int":
            return x if value.kind in "iu" else expr("{x}.long()", x=x)
        if kind == "round":
            if len(site.nodes) > 1 or site.kwargs:
                digits = site.nodes[1] if len(site.nodes) > 1 else site.kwargs["ndigits"][0]
                return expr("torch.round({x}, decimals={n})", x=x, n=digits)
            return x if value.kind in "iu" else expr("torch.round({x}).long()", x=x)
        return x if value.kind == "f" else expr("{x}.double()", x=x)     # float
    return rewrite


def _register_math_builtins(reg: Registry, torch) -> None:
    for name, torch_name in _MATH.items():
        if not hasattr(math, name):
            continue
        shadow = _math_shadow(name)
        reg.add_call(getattr(math, name), Rule(
            f"math.{name}", "torch math",
            f"`math.{name}` of a tensor is `torch.{torch_name}`, in the tensor's dtype.",
            f"y = math.{name}(x)", f"y = torch.{torch_name}(x)", _math_rule(torch_name),
            infer=_shadow_infer(shadow)))
    for name, torch_name in _MATH_ROUNDING.items():
        reg.add_call(getattr(math, name), Rule(
            f"math.{name}", "torch math", f"`math.{name}(x)` returns an int: "
            f"`torch.{torch_name}(x).long()`.", f"k = math.{name}(x)",
            f"k = torch.{torch_name}(x).long()", _math_rounding(torch_name),
            infer=_shadow_infer(lambda x: np.int64(1))))
    reg.add_call(builtins.abs, Rule(
        "builtin.abs", "builtins", "`abs(x)` works on tensors lane by lane.",
        "d = abs(x - y)", "d = abs(x - y)", lambda site: site.node))
    for name, op in (("min", "<"), ("max", ">")):
        reg.add_call(getattr(builtins, name), Rule(
            f"builtin.{name}", "builtins",
            f"`{name}(a, b)` keeps `a` unless `b {op} a`, exactly as Python decides it: "
            f"`torch.where(b {op} a, b, a)`.", f"m = {name}(x, y)",
            f"m = torch.where(y {op} x, y, x)", _min_max(op)))
    for name, dtype in (("int", np.int64(1)), ("float", np.float64(1)), ("bool", np.True_),
                        ("round", np.int64(1))):
        def infer(site, dtype=dtype, name=name):
            if name == "round" and (len(site.args) > 1 or site.kwargs):
                return batched_like(site.args[0].example)
            if name in ("int", "round") and site.args[0].kind in "iu":
                return batched_like(site.args[0].example)
            return batched_like(dtype)
        reg.add_call(getattr(builtins, name), Rule(
            f"builtin.{name}", "builtins",
            {"int": "`int(x)` truncates toward zero: `x.long()`.",
             "float": "`float(x)` is `x.double()` (Python floats are doubles).",
             "bool": "`bool(x)` is `x != 0`.",
             "round": "`round(x)` rounds half to even, to an int: `torch.round(x).long()`."}[
                name], f"y = {name}(x)", f"y = {name}(x)", _builtin_conversion(name),
            infer=infer))
    reg.add_call(builtins.pow, Rule(
        "builtin.pow", "builtins", "`pow(a, b)` is `a ** b`.", "y = pow(x, 3)", "y = x ** 3",
        lambda site: expr("{a} ** {b}", a=site.nodes[0], b=site.nodes[1])))


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


def _transposed(site: Site):
    rank = site.args[0].rank
    if rank < 2:
        return site.nodes[0]
    return expr("{x}.permute(" + ", ".join(["0"] + [str(i) for i in range(rank, 0, -1)])
                + ")", x=site.nodes[0])


def _register_shapes(reg: Registry, torch) -> None:
    reg.add_operator("subscript", Rule(
        "array.index", "arrays",
        "Indexing a per-example tensor gets `:` for the batch axis in front; a per-example "
        "integer index gathers one element per example.",
        "first = x[0]\npick = x[k]",
        "first = x[:, 0]\npick = x[torch.arange(len(x), device=x.device), k]",
        arrays._subscript))
    shape_of = arrays._unbatched_attr("shape")
    reg.add_attribute("shape", Rule(
        "array.shape", "arrays", "`x.shape` is the per-example shape: `x.shape[1:]`.",
        "n, m = x.shape", "n, m = x.shape[1:]", lambda s: expr("{x}.shape[1:]", x=s.nodes[0]),
        infer=shape_of))
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
        infer=lambda s: unbatched(np.shape(s.args[0].example)[int(s.args[1].example)]
                                  if len(s.args) > 1 and s.args[1].exact
                                  else np.shape(s.args[0].example))))
    reg.add_method("dim", Rule(
        "torch.dim", "arrays", "`x.dim()` is the per-example rank.", "r = x.dim()",
        "r = x.dim() - 1", lambda s: expr("{x}.dim() - 1", x=s.nodes[0]),
        infer=lambda s: unbatched(s.args[0].rank)))
    reg.add_call(builtins.len, Rule(
        "builtin.len", "builtins", "`len(x)` of a per-example tensor is `x.shape[1]`.",
        "n = len(v)", "n = v.shape[1]", lambda s: expr("{x}.shape[1]", x=s.nodes[0]),
        infer=lambda s: unbatched(len(s.args[0].example) if s.args[0].known else None)))


# ---------------------------------------------------------------------------- products


def _register_products(reg: Registry, torch) -> None:
    def add(fn_names, rewrite, shadow, name, explanation, before, after):
        rule = Rule(name, "linear algebra", explanation, before, after, rewrite,
                    infer=_shadow_infer(shadow), shadow=shadow)
        for fn_name in fn_names:
            if hasattr(torch, fn_name):
                reg.add_call(getattr(torch, fn_name), rule)
            if hasattr(torch.Tensor, fn_name):
                reg.add_method(fn_name, rule)
        return rule

    add(["dot", "vdot", "inner"], linalg._inner, np.inner, "linalg.dot",
        "`torch.dot(a, b)` / `a.dot(b)` of per-example vectors: one einsum; a shared operand "
        "is used as it is.", "s = torch.dot(v, w)", 's = torch.einsum("bi,i->b", v, w)')
    matmul = add(["matmul", "mm", "mv"], linalg._matmul, np.matmul, "linalg.matmul",
                 "`a @ b`, `torch.matmul`, `torch.mm`, `torch.mv`: one einsum.",
                 "y = W @ x", 'y = torch.einsum("ij,bj->bi", W, x)')
    reg.add_operator("matmul", matmul)
    add(["outer", "ger"], linalg._outer, np.outer, "linalg.outer",
        "`torch.outer(a, b)` of per-example vectors.", "m = torch.outer(a, b)",
        'm = torch.einsum("bi,bj->bij", a, b)')
    add(["einsum"], linalg._einsum, np.einsum, "linalg.einsum",
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


def _grad_infer(site: Site):
    _, inputs, _ = _grad_args(site)
    items = inputs.items if isinstance(inputs, TupleValue) else (inputs,)
    return TupleValue(tuple(batched_like(item.example) for item in items))


# -------------------------------------------------------------------------- the table


def register(reg: Registry) -> None:
    torch = torch_module()
    operators.register(reg)
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
        infer=_grad_infer))
