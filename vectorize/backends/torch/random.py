"""PyTorch's random draws inside a per-example function: independent draws for every example.

Per example, ``torch.randn(3)`` draws three numbers; the batched call draws ``len(x)`` rows of
three (``torch.randn(len(x), 3)``), like ``torch.vmap(randomness="different")``. Parameters
that differ per example (``torch.normal(mu, 0.5)``, ``torch.bernoulli(p)``) already give one
draw per element of the batch; a tensor parameter shared by every example is expanded to the
batch first (``torch.bernoulli(p.expand(len(x), *p.shape))``), so that every example still
gets its own draw. The numbers are independent draws from the same distributions, not the
numbers the per-example loop would draw (the stream is consumed in another order).

The analysis learns the shape and dtype of one draw by drawing it on the examples, with the
user's random state saved and restored (``torch.random.fork_rng``) and without the user's
``generator``: looking at a function never consumes the user's random numbers.

Refused, where the batch cannot give each example its own draw with the same call: a size
that differs per example, ``torch.randint`` with per-example bounds, ``out=``, and
``torch.randperm`` (a permutation per example is ``torch.argsort(torch.rand(n))``, which has
rules).
"""

from __future__ import annotations

import functools

import libcst as cst
import numpy as np

from ...abstract import UNKNOWN, Value, batched_like
from ...errors import Unsupported
from ...rules.families import rewrite_call_args
from ...rules.registry import Registry, Rule, Site
from ...syntax.templates import expr, parse_expr
from . import examples
from .dtypes import torch_module

#: draws whose per-example size is given as dims (``rand(2, 3)``, ``rand((2, 3))``, ``size=``)
SIZED = ("rand", "randn")
#: draws shaped like their tensor parameters (one draw per element)
ELEMENTWISE = ("normal", "bernoulli", "poisson", "rand_like", "randn_like", "randint_like",
               "multinomial")
REFUSED = ("randperm",)
DRAWS = SIZED + ("randint",) + ELEMENTWISE + REFUSED


def torch_draw_name(fn) -> str | None:
    """The name of the ``torch`` random function ``fn`` is, or None."""
    name = getattr(fn, "__name__", None)
    if name not in DRAWS:
        return None
    torch = torch_module()
    return name if getattr(torch, name, None) is fn else None


def _one_draw(fn, site: Site):
    """What one example's draw gives: drawn on the examples on the CPU, the user's random
    state untouched."""
    torch = torch_module()
    kwargs = {k: v.example for k, (_, v) in site.kwargs.items()
              if k not in ("generator", "device", "out")}
    with torch.random.fork_rng(devices=[]):
        try:
            return examples.run(fn, *[a.example for a in site.args], **kwargs)
        except Exception as exc:
            raise Unsupported(f"`torch.{fn.__name__}` does not take these arguments per "
                              f"example ({exc})", site.original) from None


def infer(site: Site):
    name = site.func.__name__
    if name in REFUSED:
        raise Unsupported(f"`torch.{name}` inside a per-example function: the batch cannot "
                          "draw one per example with the same call", site.original,
                          "draw a permutation per example as `torch.argsort(torch.rand(n))`")
    if "out" in site.kwargs:
        raise Unsupported(f"`torch.{name}(..., out=...)` of per-example draws", site.original,
                          "assign the draw instead of passing out=")
    if name == "randint" and any(v.batched for v in site.args[:-1]):
        raise Unsupported("`torch.randint` with bounds that differ per example: its bounds "
                          "must be numbers", site.original,
                          "draw `low + torch.floor(torch.rand(()) * (high - low))` instead")
    size = _size_operand(site)
    if size is not None and size[1].batched:
        raise Unsupported(f"a random draw (`torch.{name}`) whose size differs per example",
                          site.original)
    if name == "multinomial" and site.args and site.args[0].batched \
            and site.args[0].rank > 1:
        raise Unsupported("`torch.multinomial` of per-example 2-D probabilities: the batch "
                          "would be 3-D, which it does not take", site.original)
    return batched_like(_one_draw(site.func, site))


def _size_operand(site: Site):
    """The size of a sized draw as ``(node, value, keyword)``; None where the draw has none
    (its shape comes from its tensor parameters)."""
    name = site.func.__name__
    call = site.node if site.node is not None else site.original
    positional = [a for a in call.args if a.keyword is None]
    if "size" in site.kwargs:
        node, value = site.kwargs["size"]
        return node, value, True
    if name in SIZED and positional:
        if len(positional) == 1 and not isinstance(site.args[0].example, (int, np.integer)):
            return positional[0].value, site.args[0], False     # rand((2, 3)), rand(shape)
        # rand(2, 3): the dims as one operand, per example where any of them is
        return None, Value(any(v.batched for v in site.args), UNKNOWN), False
    if name == "randint" and len(positional) in (2, 3):
        return positional[-1].value, site.args[len(positional) - 1], False
    if name == "normal" and len(positional) == 3 and all(
            isinstance(v.example, (int, float, np.integer, np.floating)) and not v.batched
            for v in site.args[:2]):
        return positional[2].value, site.args[2], False    # normal(0.0, 1.0, (3, 3))
    return None


def _batched_size(size: cst.BaseExpression, value, batch: cst.BaseExpression):
    """A per-example size with the batch in front, spelled for torch."""
    if isinstance(size, (cst.Tuple, cst.List)):
        return cst.Tuple([cst.Element(batch)] + [cst.Element(e.value) for e in size.elements])
    if isinstance(getattr(value, "example", None), (int, np.integer)):
        return cst.Tuple([cst.Element(batch), cst.Element(size)])
    return expr("({b}, *{s})", b=batch, s=size)


def _comma():
    return cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


def rewrite(site: Site):
    call, name, batch = site.node, site.func.__name__, site.batch
    size = _size_operand(site)
    if size is not None:
        node, value, keyword = size
        if keyword:
            args = [a.with_changes(value=_batched_size(a.value, value, batch))
                    if a.keyword is not None and a.keyword.value == "size" else a
                    for a in call.args]
            return call.with_changes(args=args)
        positional = [a for a in call.args if a.keyword is None]
        if node is None:                              # rand(2, 3): the batch is one more dim
            first = parse_expr("f(0)").args[0].with_changes(value=batch, comma=_comma()
                                                            if call.args else
                                                            cst.MaybeSentinel.DEFAULT)
            return call.with_changes(args=[first, *call.args])
        target = positional[-1] if name in ("randint", "normal") else positional[0]
        if name in SIZED and isinstance(node, cst.Tuple) and not node.elements:
            value = None      # rand(()): one number per example is rand(len(x))
        return call.with_changes(args=[
            a.with_changes(value=batch if value is None else _batched_size(a.value, value,
                                                                            batch))
            if a is target else a for a in call.args])
    if any(v.batched for v in site.args):
        return rewrite_call_args(site)     # a draw per element of per-example parameters
    # every parameter shared: expand the tensor that shapes the draw to the batch
    tensors = [i for i, v in enumerate(site.args) if v.known and hasattr(v.example, "shape")
               and not isinstance(v.example, (int, float, bool))]
    if len(tensors) != 1 or not isinstance(site.nodes[tensors[0]], (cst.Name, cst.Attribute)):
        raise Unsupported(f"`torch.{name}` of tensors shared by every example", site.original,
                          "assign the shared tensor to a name first, or pass the draw in")
    i = tensors[0]
    node = site.nodes[i]
    expanded = expr("{x}.expand({b}, *{x}.shape)", x=node, b=batch)
    positional = iter(range(len(site.args)))
    args = [a.with_changes(value=expanded) if a.keyword is None and next(positional) == i
            else a for a in call.args]
    return call.with_changes(args=args)


#: random torch functions without a per-example rule: ``name -> position of ``training``
#: (None: always random)``. Called per example they draw on every call; the batched call
#: would draw once for the whole batch (or, on values shared by every example, once for all
#: of them), so they are refused, except in evaluation mode (``training=False``), where they
#: are deterministic and elementwise (dropout is the identity, ``rrelu`` a leaky ReLU).
OTHER_DRAWS = {
    "torch.binomial": None, "torch._standard_gamma": None, "torch._sample_dirichlet": None,
    "torch.dropout": 2, "torch.alpha_dropout": 2, "torch.feature_dropout": 2,
    "torch.feature_alpha_dropout": 2, "torch.rrelu": 3,
    "torch.nn.functional.dropout": 2, "torch.nn.functional.alpha_dropout": 2,
    "torch.nn.functional.feature_alpha_dropout": 2, "torch.nn.functional.dropout1d": 2,
    "torch.nn.functional.dropout2d": 2, "torch.nn.functional.dropout3d": 2,
    "torch.nn.functional.rrelu": 3, "torch.nn.functional.gumbel_softmax": None,
}
#: where ``training`` is by default False (``rrelu``); the others default to True
_EVAL_BY_DEFAULT = ("torch.rrelu", "torch.nn.functional.rrelu")


@functools.lru_cache(maxsize=1)
def _other_draws() -> dict:
    """``id(function) -> (function, qualified name)`` of `OTHER_DRAWS` that this torch has."""
    torch = torch_module()
    found = {}
    for qualified in OTHER_DRAWS:
        obj = torch
        for part in qualified.split(".")[1:]:
            obj = getattr(obj, part, None)
        if obj is not None:
            found[id(obj)] = (obj, qualified)
    return found


#: the random methods of a tensor (`Tensor.bernoulli`, the in-place ones): refused
TENSOR_DRAWS = ("bernoulli", "bernoulli_", "multinomial", "normal_", "uniform_",
                "exponential_", "geometric_", "log_normal_", "cauchy_", "random_")


def other_draw_name(fn) -> str | None:
    """The qualified name of the `OTHER_DRAWS` function (or `TENSOR_DRAWS` method of a
    tensor) ``fn`` is, or None."""
    if isinstance(fn, examples.ExampleMethod) and fn.__name__ in TENSOR_DRAWS:
        return f"Tensor.{fn.__name__}"      # of a tensor shared by every example
    entry = _other_draws().get(id(fn))
    return entry[1] if entry is not None and entry[0] is fn else None


def _training(site: Site, qualified: str):
    """The ``training`` argument: True, False, or None where it is not known."""
    position = OTHER_DRAWS.get(qualified)
    if position is None:
        return True
    if "training" in site.kwargs:
        value = site.kwargs["training"][1]
    elif len(site.args) > position:
        value = site.args[position]
    else:
        return qualified not in _EVAL_BY_DEFAULT
    if value.batched or not value.known or not isinstance(value.example, (bool, np.bool_)):
        return None
    return bool(value.example)


def other_infer(site: Site):
    qualified = other_draw_name(site.func)
    short = qualified.replace("torch.nn.functional.", "F.")
    if _training(site, qualified) is not False:
        raise Unsupported(f"`{short}` draws random numbers, and has no rule to draw them "
                          "for every example", site.original,
                          ("pass training=False where it is evaluation, or draw"
                           if OTHER_DRAWS.get(qualified) is not None else "draw")
                          + " the noise for the whole batch outside the function and pass "
                            "it in")
    try:
        out = examples.run(site.func, *[a.example for a in site.args],
                           **{k: v.example for k, (_, v) in site.kwargs.items()})
    except Exception as exc:
        raise Unsupported(f"`{short}` does not take these arguments per example ({exc})",
                          site.original) from None
    if any(v.batched for v in [*site.args, *(v for _, v in site.kwargs.values())]):
        return batched_like(out)
    return Value(False, out)


def other_rewrite(site: Site):
    return site.node       # evaluation mode: elementwise, the same call on the batch


def register(reg: Registry) -> None:
    reg.add_draws(lambda fn: other_draw_name(fn) is not None, Rule(
        "torch.random.no_rule", "random",
        "`torch.binomial`, the dropout family (`F.dropout`, `alpha_dropout`, `dropout1d/2d/3d`, "
        "`feature_alpha_dropout`), `F.rrelu`, `F.gumbel_softmax` and a tensor's random methods "
        "(`w.bernoulli()`, `w.normal_()`) draw random numbers "
        "without a rule to draw them per example: refused, except in evaluation mode "
        "(`training=False`), where the call is elementwise and kept as written.",
        "y = F.dropout(x, 0.5, training=False)", "y = F.dropout(x, 0.5, training=False)",
        other_rewrite, infer=other_infer))
    reg.add_draws(lambda fn: torch_draw_name(fn) is not None, Rule(
        "torch.random.per_example", "random",
        "`torch.rand`, `randn`, `randint`, `normal`, `bernoulli`, `poisson`, `multinomial` "
        "and the `_like` draws inside a per-example function draw independently for every "
        "example (the batch length in front of the size; a shared tensor parameter expanded "
        "to the batch), like `torch.vmap(randomness=\"different\")`.",
        "noise = torch.randn(3)", "noise = torch.randn(len(x), 3)", rewrite, infer=infer))
