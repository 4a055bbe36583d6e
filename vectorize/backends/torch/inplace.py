"""In-place tensor methods (``y.add_(1)``, ``x.sin_()``, ``t.fill_(v)``, ``t.zero_()``).

Per example an in-place method changes that example's tensor; on the batch it changes the
batched tensor, which is the same memory wherever the batched tensor is the examples' own
(the analysis requires it: `analysis.aliasing.Aliasing._no_in_place_method_on_a_shared_object`).
The tensor changed keeps its dtype and shape, so it is used as it is (never given new axes or
converted); the other operands get new axes after the batch axis to its per-example rank. A
tensor the same for every example is refused: per example every example would change it
again.
"""

from __future__ import annotations

from ...errors import Unsupported
from ...rules.families import pad, padded_method_call
from ...rules.registry import Registry, Rule, Site
from ...syntax.templates import expr
from .dtypes import torch_module

# out-of-place rules whose in-place twin acts lane by lane
_LANE_BY_LANE = ("torch.elementwise", "torch.clamp")
_OWN = ("fill_", "zero_", "copy_")


def _in_place(site: Site):
    x = site.args[0]
    if not x.batched:
        raise Unsupported(f"`.{site.func}()` of a tensor shared by every example with "
                          "per-example values (each example would change it again)",
                          suggestion="write it out of place")
    rank = x.rank
    values = list(site.args[1:]) + [v for _, v in site.kwargs.values()]
    if any(getattr(v, "batched", False) and v.rank > rank for v in values):
        raise Unsupported(f"`.{site.func}()` with an operand of more dims than the tensor "
                          "it changes")
    if site.func == "fill_" and site.args[1:] and site.args[1].batched:
        return expr("{x}.copy_({v})", x=site.nodes[0], v=pad(site.nodes[1], site.args[1],
                                                            rank))
    return padded_method_call(site, rank)


def register(reg: Registry) -> None:
    from .common import per_example
    torch = torch_module()
    names = [name for name, rule in list(reg.methods.items())
             if rule.name in _LANE_BY_LANE and hasattr(torch.Tensor, name + "_")]
    for method in [n + "_" for n in names] + list(_OWN):
        if method in reg.methods:
            continue
        reg.add_method(method, Rule(
            "torch.in_place", "torch",
            "In-place methods (`y.add_(1)`, `x.sin_()`, `t.fill_(v)`) on tensors the function "
            "owns (a parameter it never rebinds, a new tensor no other name holds) change the "
            "batch as each example changes its own: as written, the other operands given new "
            "axes after the batch axis.", "y = x * 2\ny.add_(b)", "y = x * 2\ny.add_(b[:, None])",
            _in_place, infer=per_example(method, f"`.{method}()`")))
