"""The torch table of elementwise functions and tensor methods, activations, conversions and
``*_like`` creations."""

from __future__ import annotations

import libcst as cst

from ...rules.registry import Registry, Rule, Site
from ...syntax.templates import expr
from .common import per_example, rewrite_elementwise, rewrite_where, shadow

# ----------------------------------------------------------------------- elementwise

_UNARY = ["abs", "absolute", "neg", "negative", "sign", "sgn", "square", "floor", "ceil",
          "trunc", "fix", "round", "frac", "sqrt", "rsqrt", "exp", "exp2", "expm1", "log",
          "log2", "log10", "log1p", "sin", "cos", "tan", "asin", "arcsin", "acos", "arccos",
          "atan", "arctan", "sinh", "cosh", "tanh", "asinh", "arcsinh", "acosh", "arccosh",
          "atanh", "arctanh", "sigmoid", "reciprocal", "erf", "erfc", "erfinv", "lgamma",
          "digamma", "deg2rad", "rad2deg", "relu", "isnan", "isinf", "isfinite", "isposinf",
          "isneginf", "isreal", "signbit", "logical_not", "bitwise_not", "nan_to_num",
          "positive", "sinc", "logit", "i0", "angle", "conj", "real", "imag"]
# elementwise backward operators of `torch.ops.aten` (the gradient and the input, both of
# the output's shape)
_ATEN_BACKWARD = ["silu_backward", "sigmoid_backward", "tanh_backward", "mish_backward",
                  "hardsigmoid_backward", "hardswish_backward"]
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


_NUMBERS = (bool, int, float)


def rewrite_clamp(site: Site):
    """``torch.clamp(x, lo, 2.0)`` with a per-example ``lo``: per example a 0-d tensor and a
    number, which PyTorch takes as two numbers; on the batch a tensor and a number, which no
    overload of ``clamp`` takes. Every operand is then a tensor of the per-example result's
    dtype (`x`, the bounds converted; the number a tensor on the bound's device)."""
    call = rewrite_elementwise(site)
    method = isinstance(site.func, str)
    bounds = {}                 # position among the call's arguments -> abstract value
    for k, value in enumerate(site.args[1:3], start=0 if method else 1):
        bounds[k] = value
    keys = {arg.keyword.value: k for k, arg in enumerate(call.args) if arg.keyword is not None}
    for name in ("min", "max"):
        if name in site.kwargs and name in keys:
            bounds[keys[name]] = site.kwargs[name][1]
    numbers = [k for k, v in bounds.items() if not v.batched and type(v.example) in _NUMBERS]
    tensors = [k for k, v in bounds.items() if v.batched]
    if not numbers or not tensors or site.result is None or not site.result.known:
        return call
    dtype = site.spelled.dtype_code(site.result.dtype)
    device = call.args[tensors[0]].value
    if type(device) is cst.Subscript and type(device.value) is cst.Name:
        device = device.value           # (a bound given new axes: its device is the name's)
    args = list(call.args)
    for k in bounds:
        value = args[k].value
        if type(value) is cst.Name and value.value == "None":
            continue
        if k in numbers:
            new = expr(f"torch.tensor({{v}}, dtype={dtype}, device={{d}}.device)", v=value,
                       d=device)
        else:
            new = expr(f"{{v}}.to({dtype})", v=value)
        args[k] = args[k].with_changes(value=new)
    if method:
        tensors_call = call.with_changes(func=call.func.with_changes(
            value=expr(f"{{x}}.to({dtype})", x=call.func.value)), args=args)
    else:
        args[0] = args[0].with_changes(value=expr(f"{{x}}.to({dtype})", x=args[0].value))
        tensors_call = call.with_changes(args=args)
    # (a bound that records gradients is no number per example: PyTorch raises TypeError
    # there, and so does the call as written, after which the per-example loop decides)
    return expr("{t} if not {b}.requires_grad else {c}", t=tensors_call, b=device, c=call)


def register_elementwise(reg: Registry, torch) -> None:
    def add(owner, fn_names, name, explanation, before, after, rewrite=rewrite_elementwise,
            methods=True):
        for fn_name in fn_names:
            fn = getattr(owner, fn_name, None)
            if fn is not None:
                reg.add_call(fn, Rule(name, "torch", explanation, before, after, rewrite,
                                      infer=per_example(fn, f"`{owner.__name__}.{fn_name}`"),
                                      shadow=shadow(fn)))
            if methods and hasattr(torch.Tensor, fn_name):
                reg.add_method(fn_name, Rule(name, "torch", explanation, before, after,
                                             rewrite, infer=per_example(fn_name,
                                                                         f"`.{fn_name}()`"),
                                             shadow=shadow(fn_name)))

    elementwise = ("Elementwise torch functions and tensor methods (`torch.sin`, `x.relu()`, "
                   "`torch.maximum`...) act lane by lane: as written, operands of lower "
                   "per-example rank get new axes after the batch axis.",
                   "y = torch.sin(x) + x.relu()", "y = torch.sin(x) + x.relu()")
    add(torch, _UNARY + _BINARY, "torch.elementwise", *elementwise)
    add(torch, ["where"], "torch.where",
        "`torch.where(c, a, b)` chooses lane by lane: as written (operands aligned by "
        "per-example rank).", "y = torch.where(t > 5.0, t * b, -t)",
        "y = torch.where(t > 5.0, t * b, -t)", rewrite=rewrite_where, methods=False)
    add(torch, ["clamp", "clip", "clamp_min", "clamp_max"], "torch.clamp",
        "`torch.clamp(x, min, max)` / `x.clamp(...)` act lane by lane; per-example bounds "
        "get new axes after the batch axis (a per-example bound with a number for the other: "
        "both tensors of the result's dtype).", "y = x.clamp(min=lo)", "y = x.clamp(min=lo)",
        rewrite=rewrite_clamp)
    add(torch.ops.aten, _ATEN_BACKWARD, "torch.aten_backward",
        "The elementwise backward operators of activations (`torch.ops.aten.silu_backward"
        "(grad, x)`...) act lane by lane: as written.",
        "g = torch.ops.aten.silu_backward(d, x)", "g = torch.ops.aten.silu_backward(d, x)",
        methods=False)
    add(torch.nn.functional, _ACTIVATIONS, "torch.activation",
        "Activations of `torch.nn.functional` (`F.relu`, `F.gelu`, `F.softplus`...) act "
        "lane by lane: as written.", "y = F.gelu(x)", "y = F.gelu(x)", methods=False)
    conversion = ("Dtype conversions (`x.float()`, `x.long()`, `x.to(torch.float64)`...) act "
                  "lane by lane: as written.", "k = x.long()", "k = x.long()")
    for method in _CONVERSIONS:
        reg.add_method(method, Rule("torch.conversion", "torch", *conversion, rewrite_elementwise,
                                    infer=per_example(method, f"`.{method}()`")))
    for method in _IDENTITY:
        reg.add_method(method, Rule(
            "torch.identity_method", "torch",
            "`x.detach()`, `x.clone()`, `x.contiguous()` act on the whole batch as on each "
            "example.", "y = x.clone()", "y = x.clone()", rewrite_elementwise,
            infer=per_example(method, f"`.{method}()`")))
    add(torch, _LIKE, "torch.like", "`torch.zeros_like(x)`, `torch.full_like(x, v)` of a "
        "per-example tensor: a batched tensor of the same shape, as written.",
        "z = torch.zeros_like(v)", "z = torch.zeros_like(v)", methods=False)
