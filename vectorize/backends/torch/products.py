"""The torch table of products: ``dot``, ``matmul``, ``outer``, ``einsum`` as one einsum."""

from __future__ import annotations

import warnings

from ...errors import Unsupported
from ...rules import contractions
from ...rules.registry import Registry, Rule, Site
from ...syntax.templates import expr
from .common import per_example, shadow

# ---------------------------------------------------------------------------- products


def _quiet(fn):
    """``fn`` without PyTorch's warning that ``torch.cross`` without a dim is deprecated
    (the per-example code warns; the analysis runs it on examples, the batch never)."""
    def quiet(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "Using torch.cross without", UserWarning)
            return fn(*args, **kwargs)
    return quiet


def _cross(site: Site):
    """``torch.cross(a, b, dim)`` / ``torch.linalg.cross`` / ``a.cross(b)`` of per-example
    vectors: ``torch.linalg.cross`` on the batch with the dim shifted past the batch dim; a
    shared operand gets a batch dim of one (``linalg.cross`` broadcasts it). Without a dim,
    ``torch.cross`` takes the first dim of size 3 of ``a``'s example: read from the batch's
    shape when it runs (``a.shape[1:].index(3) + 1``), so each call's sizes decide it, as
    per example."""
    from .dims import shifted
    if len(site.args) < 2:
        raise Unsupported("`cross` with its tensors passed by keyword",
                          suggestion="pass both tensors by position")
    (a, av), (b, bv) = zip(site.nodes[:2], site.args[:2])
    if av.rank != bv.rank:
        raise Unsupported("`cross` of tensors of different per-example ranks (PyTorch raises "
                          "per example)", kind="raises")
    rank = av.rank
    dim = site.kwargs["dim"][1] if "dim" in site.kwargs else \
        site.args[2] if len(site.args) > 2 else None
    if dim is not None and dim.known and dim.exact and dim.example is None:
        dim = None
    if dim is not None:
        if dim.batched or not dim.exact:
            raise Unsupported("the dim of `cross` must be a constant written in the function",
                              suggestion="write the dim as a number")
        where = str(shifted(int(dim.example), rank))
    elif not isinstance(site.func, str) and site.func.__name__ == "linalg_cross":
        where = "-1"
    else:
        where = "{a}.shape[1:].index(3) + 1" if av.batched else "{a}.shape.index(3) + 1"
    operands = [x if v.batched else expr("{x}[None]", x=x) for x, v in ((a, av), (b, bv))]
    return expr(f"torch.linalg.cross({{x}}, {{y}}, dim={where})", x=operands[0],
                y=operands[1], a=a)


def register_products(reg: Registry, torch) -> None:
    def add(fn_names, rewrite, name, explanation, before, after):
        for fn_name in fn_names:
            for key, adder in ((getattr(torch, fn_name, None), reg.add_call),
                               (fn_name if hasattr(torch.Tensor, fn_name) else None,
                                reg.add_method)):
                if key is not None:
                    rule = adder(key, Rule(name, "linear algebra", explanation, before, after,
                                           rewrite, infer=per_example(key),
                                           shadow=shadow(key)))
        return rule

    add(["dot", "vdot", "inner"], contractions.inner, "linalg.dot",
        "`torch.dot(a, b)` / `a.dot(b)` of per-example vectors: one einsum; a shared operand "
        "is used as it is.", "s = torch.dot(v, w)", 's = torch.einsum("bi,i->b", v, w)')
    matmul = add(["matmul", "mm", "mv"], contractions.matrix_product, "linalg.matmul",
                 "`a @ b`, `torch.matmul`, `torch.mm`, `torch.mv`: one einsum.",
                 "y = W @ x", 'y = torch.einsum("ij,bj->bi", W, x)')
    reg.add_operator("matmul", matmul)
    add(["outer", "ger"], contractions.outer, "linalg.outer",
        "`torch.outer(a, b)` of per-example vectors: the products broadcast.",
        "m = torch.outer(a, b)", "m = a[:, :, None] * b[:, None, :]")
    for key, adder in ((torch.cross, reg.add_call), (torch.linalg.cross, reg.add_call),
                       ("cross", reg.add_method)):
        adder(key, Rule("torch.cross", "linear algebra",
                        "`torch.cross(a, b, dim)` / `torch.linalg.cross` / `a.cross(b)`: "
                        "`torch.linalg.cross` on the batch, the dim shifted past the batch "
                        "dim; without a dim, the first dim of size 3 of each call's `a`.",
                        "c = torch.cross(u, w)",
                        "c = torch.linalg.cross(u, w, dim=u.shape[1:].index(3) + 1)", _cross,
                        infer=_quiet(per_example(key)), shadow=_quiet(shadow(key))))
    add(["einsum"], contractions.einsum, "linalg.einsum",
        "`torch.einsum` itself: batched operands get a batch letter, which the output keeps.",
        's = torch.einsum("i,ij->j", v, m)', 's = torch.einsum("bi,ij->bj", v, m)')
