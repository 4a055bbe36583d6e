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

from ...abstract import unbatched
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
