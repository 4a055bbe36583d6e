"""Tensors the function makes from constants, and conversions that read only a dtype.

``torch.tensor(1.6)``, ``torch.ones(2)``, ``torch.eye(3)``, ``torch.arange(4)`` inside the
per-example function are the same for every example: the analysis computes them on the
examples (their dtype and shape, with PyTorch's defaults) and the generated code keeps them
as written. Made from per-example values (``torch.tensor(x)``, ``torch.full((3,), x)``)
they are refused: one tensor would be made from the whole batch.

``x.to(o)`` and ``x.type_as(o)`` read only ``o``'s dtype (and device), never its values:
``o`` is used as it is (never given new axes), and ``x`` converted as written.
"""

from __future__ import annotations

import libcst as cst
import numpy as np

from ...abstract import Value, unbatched
from ...errors import Unsupported
from ...rules.families import with_batch
from ...rules.registry import Registry, Rule, Site
from ...syntax.templates import expr
from . import examples
from .dtypes import torch_module

CONSTANT_FACTORIES = ("tensor", "as_tensor", "ones", "zeros", "full", "empty", "eye",
                      "arange", "linspace", "logspace", "scalar_tensor")


def _factory_shadow(fn):
    def shadow(*args, **kwargs):
        return examples.run(fn, *args, **kwargs)
    return shadow


def _made_from_per_example(site: Site):
    name = getattr(site.func, "__name__", "this function")
    raise Unsupported(f"`torch.{name}` of per-example values makes one tensor of the whole "
                      "batch, not one per example",
                      suggestion="compute it from the tensors with operations "
                                 "(`x.new_full`, `torch.stack`, `x * w`...)")


def _full_operands(site: Site, nodes: bool = False):
    """``torch.full``'s size and fill value (their abstract values; their expressions where
    ``nodes``), positional or by keyword; None where it is called with anything else
    (``out=``, ``requires_grad=``...)."""
    operands = list(site.nodes if nodes else site.args)
    for name in ("size", "fill_value"):
        if name in site.kwargs:
            operands.append(site.kwargs[name][0 if nodes else 1])
    if len(operands) != 2 or set(site.kwargs) - {"size", "fill_value", "dtype", "device"}:
        return None
    return operands


def _full_check(site: Site):
    """``torch.full(size, x)`` with a per-example number ``x`` (a 0-d tensor) and a size the
    same for every example: the value of the result (PyTorch's dtype: ``x`` read as a Python
    number), or Unsupported."""
    values = _full_operands(site)
    others = [v for _, v in site.kwargs.values()]
    if not values or values[0].batched or not isinstance(values[1], Value) or \
            not values[1].batched or values[1].rank != 0 or not values[1].known or \
            any(v.batched for v in others):
        _made_from_per_example(site)
    from .common import per_example
    out = per_example(torch_module().full, "`torch.full`")(Site(
        args=values, nodes=[], func=site.func, backend=site.backend,
        kwargs={k: v for k, v in site.kwargs.items() if k in ("dtype", "device")}))
    if not isinstance(out, Value) or not out.known:
        _made_from_per_example(site)
    source, result = np.dtype(values[1].dtype), np.dtype(out.dtype)
    if not (np.can_cast(source, result, "safe") or _FLOAT_NARROWING.get(source.char)
            == result.char):
        raise Unsupported(
            f"`torch.full` of a per-example {source} value makes a {result} tensor, a "
            "conversion that may not fit the value (PyTorch raises where it does not)",
            suggestion="pass dtype= the value's own dtype, or build it from the tensor: "
                       "`x.expand(3).clone()`", kind="raises")
    return out


# a narrowing `torch.full` makes without dtype= (a float64 value into the default float32)
# that the batched code checks (`_full`): PyTorch raises where a value overflows
_FLOAT_NARROWING = {"d": "f"}
_FLOAT_LIMITS = {"f": "3.4028234663852886e+38"}


def _full(site: Site):
    """``torch.full((3,), x)`` of a per-example number: ``x`` converted to the result's
    dtype, given the size's axes after the batch's and copied, where ``x`` does not record
    gradients (PyTorch refuses such a fill value: the call as written raises, and the
    per-example loop decides) and, for a narrowing conversion, every value fits."""
    size, fill = _full_operands(site, nodes=True)
    size_value, fill_value = _full_operands(site)
    source, result = np.dtype(fill_value.dtype), np.dtype(site.result.dtype)
    rank = len(tuple(size_value.example))
    value = fill
    if result != source:
        value = expr("{x}.to({d})", x=value, d=cst.parse_expression(
            site.spelled.dtype_code(result)))
    value = expr("{x}[:, " + ", ".join(["None"] * rank) + "]", x=value) if rank else value
    if isinstance(size, (cst.Tuple, cst.List)) and all(
            isinstance(e, cst.Element) for e in size.elements):
        # a literal size: its items as expand's arguments
        new = expr("{x}.expand(" + ", ".join(["-1"] + [
            f"{{s{i}}}" for i in range(rank)]) + ").clone()", x=value,
            **{f"s{i}": e.value for i, e in enumerate(size.elements)})
    else:
        new = expr("{x}.expand(-1, *{s}).clone()", x=value, s=size)
    test = "not {x}.requires_grad"
    if _FLOAT_NARROWING.get(source.char) == result.char:
        # finite values that would overflow the narrower type: PyTorch raises for them
        limit = _FLOAT_LIMITS[result.char]
        test += " and not bool(({x}.isfinite() & ({x}.abs() > " + limit + ")).any())"
    return expr("{new} if " + test + " else {call}", new=new, x=fill, call=site.node)


def _to_infer(per_example):
    def infer(site: Site):
        x = site.args[0]
        if not x.batched:       # `w.to(o)`: only o's dtype is read, the same per example
            return unbatched(examples.to_example(
                getattr(examples.to_tensor(x.example), site.func)(*[
                    examples.to_tensor(v.example) for v in site.args[1:]])))
        return per_example(site)
    return infer


# tensors the function creates and may write per-example data into (`analysis.aliasing`):
# made with the batch in front of their sizes, or as one copy per example
SHAPED = ("zeros", "ones", "empty", "full")
REPEATED = ("zeros_like", "ones_like", "empty_like", "full_like", "clone")


def _repeated(site: Site):
    """The tensor created per example, one copy for every example (``site.batch``)."""
    return expr(site.spelled.repeat("{a}", "{n}"), a=site.node, n=site.batch)


def _shaped(site: Site):
    """``torch.zeros(3, 4)`` / ``torch.zeros((3, 4))`` / ``torch.full((3,), 0.5)`` with the
    batch length in front of the sizes."""
    call = site.node
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if not positional or any(a.star for a in call.args):
        return _repeated(site)
    name = getattr(site.func, "__name__", "")
    if name == "full" or len(positional) == 1:
        first = positional[0]
        shape = with_batch(first.value, site.args[0], site.batch, site.spelled)
        return call.with_changes(args=[first.with_changes(value=shape)] + [
            a for a in call.args if a is not first])
    # sizes as separate arguments: the batch length is one more, in front
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return call.with_changes(args=[cst.Arg(site.batch, comma=comma)] + list(call.args))


def register(reg: Registry) -> None:
    from .common import per_example
    torch = torch_module()
    shaped = Rule(
        name="creation.batched_shape", family="creation",
        explanation="A tensor created with sizes (`torch.zeros`, `torch.ones`, `torch.empty`, "
                    "`torch.full`) that per-example data is written into is created with the "
                    "batch length in front of its sizes (see `array.scatter`).",
        before="y = torch.zeros(3)\ny[0] = x", after="y = torch.zeros((len(x), 3))\ny[:, 0] = x",
        rewrite=_shaped)
    repeated = Rule(
        name="creation.repeated", family="creation",
        explanation="Any other tensor the function creates (`torch.zeros_like`, `.clone()`...) "
                    "that per-example data is written into starts as copies of the "
                    "per-example tensor, one for every example.",
        before="y = w.clone()\ny[0] = x",
        after="y = w.clone().expand(len(x), *w.clone().shape).clone()\ny[:, 0] = x",
        rewrite=_repeated)
    for name in SHAPED:
        reg.add_creation(getattr(torch, name), shaped)
    for name in REPEATED:
        reg.add_creation(getattr(torch, name), repeated)
    reg.add_creation_method("clone", repeated)
    reg.add_call(torch.full, Rule(
        "torch.full_of_per_example", "creation",
        "`torch.full(size, x)` of a per-example number `x` (a size the same for every "
        "example): `x` in the result's dtype (PyTorch's: `x` read as a number), the size's "
        "axes after the batch's, copied. Where `x` records gradients (PyTorch refuses it) or "
        "a narrowing conversion overflows (PyTorch raises), the call as written raises and "
        "the per-example loop decides. Other conversions that may not fit are refused.",
        "y = torch.full((3,), x)", "y = x.to(torch.float32)[:, None].expand(-1, *(3,)).clone()",
        _full, infer=_full_check, shadow=_factory_shadow(torch.full)))
    for name in CONSTANT_FACTORIES:
        fn = getattr(torch, name, None)
        if fn is None or reg.for_call(fn) is not None:
            continue
        reg.add_call(fn, Rule(
            "torch.constant_tensor", "creation",
            "`torch.tensor(1.6)`, `torch.ones(2)`, `torch.eye(3)`, `torch.arange(4)` of "
            "constants are the same for every example: as written. Of per-example values "
            "they are refused.", "y = x + torch.tensor(1.6)", "y = x + torch.tensor(1.6)",
            _made_from_per_example, infer=_made_from_per_example,
            shadow=_factory_shadow(fn)))
    for method in ("to", "type_as"):
        reg.add_method(method, Rule(
            "torch.convert_like", "torch",
            "`x.to(o)` / `x.type_as(o)` take only `o`'s dtype and device: as written, `o` "
            "never given new axes.", "y = x.to(o)", "y = x.to(o)", lambda site: site.node,
            infer=_to_infer(per_example(method, f"`.{method}()`"))))
