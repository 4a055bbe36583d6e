"""The torch table of products: ``dot``, ``matmul``, ``outer``, ``einsum`` as one einsum."""

from __future__ import annotations

from ...rules import contractions
from ...rules.registry import Registry, Rule
from .common import per_example, shadow

# ---------------------------------------------------------------------------- products


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
    add(["einsum"], contractions.einsum, "linalg.einsum",
        "`torch.einsum` itself: batched operands get a batch letter, which the output keeps.",
        's = torch.einsum("i,ij->j", v, m)', 's = torch.einsum("bi,ij->bj", v, m)')
