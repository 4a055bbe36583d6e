"""The PyTorch rule tables: how operators, torch functions, tensor methods, ``math`` and
builtins batch when the arguments are tensors. One module per family (`operators`,
`elementwise`, `reductions`, `math_builtins`, `shapes`, `products`, `autograd`, what they
share in `common`); `register` here puts them in one registry.

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
common dtype first (`matched`), or the operation is refused when no conversion gives it.

**Python numbers per example.** ``float(x)``, ``int(x)``, ``bool(x)``, ``x.item()`` and
``math`` functions of a tensor give Python numbers per example: no gradient flows through
them, and they promote weakly. In the batched code they are tensors of float64, int64 or
bool (exactly the Python values), detached, and promote as the Python numbers did.
"""

from __future__ import annotations

from ...errors import Unsupported
from ...rules import lanes
from ...rules.draws import random_name, register_python_random
from ...rules.registry import Registry, Rule, Site
from . import random as torch_random
from .autograd import grad, grad_infer, grad_shadow
from .dtypes import torch_module
from .elementwise import register_elementwise
from .math_builtins import register_math_builtins
from .operators import register_operators
from .picking import register_picking
from .products import register_products
from .reductions import register_reductions
from .shapes import register_shapes

# -------------------------------------------------------------------------- the table


def register(reg: Registry) -> None:
    torch = torch_module()
    register_operators(reg)
    lanes.register(reg)
    register_shapes(reg, torch)
    register_picking(reg, torch)
    register_elementwise(reg, torch)
    register_reductions(reg, torch)
    register_math_builtins(reg, torch)
    register_products(reg, torch)
    reg.add_call(torch.autograd.grad, Rule(
        "torch.autograd.grad", "autograd",
        "`torch.autograd.grad(y, x, v)` with a per-example `v` (a vector-Jacobian product per "
        "example) is one call with `is_grads_batched=True`: the result has the batch axis in "
        "front.", "g = torch.autograd.grad(y, x, v)[0]",
        "g = torch.autograd.grad(y, x, v, is_grads_batched=True)[0]", grad,
        infer=grad_infer, shadow=grad_shadow))
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
