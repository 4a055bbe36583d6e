"""Products of per-example arrays as one einsum, for every backend.

``a.dot(b)``, ``@``, ``matmul``, ``inner``, ``outer``, ``tensordot`` and ``einsum`` itself: the
per-example contraction is written out with one letter per axis, and batched operands (only
those) get a fresh batch letter in front, which the output keeps. An unbatched operand (a
shared weight matrix) is never broadcast or copied. Where the einsum of numeric arrays is one
matrix product over the batch, the backend may write it as one (`Backend.matmul`: ``x @ w``,
``x @ w.T``, as hand-written code has it); otherwise, when both operands keep free axes
around a contracted one, the einsum is asked to plan its path, which hands the work to BLAS.
The einsum itself is the backend's (`Backend.einsum`); its tables register these rules.
"""

from __future__ import annotations

import numpy as np

from ..errors import Unsupported
from ..syntax.templates import expr
from .families import pad, padded_args
from .registry import Site

_LETTERS = "ijklmnopqrstuvwxyzacdefgh"


def fresh(count: int, used: set) -> list[str]:
    out = []
    for letter in _LETTERS:
        if len(out) == count:
            break
        if letter not in used:
            used.add(letter)
            out.append(letter)
    if len(out) < count:
        raise Unsupported("too many axes for one einsum")
    return out


def _batch_letter(used: set) -> str:
    for letter in "bnzBNZ" + _LETTERS.upper():
        if letter not in used:
            used.add(letter)
            return letter
    raise Unsupported("too many axes for one einsum")


def as_matmul(subscripts: str, operands: list[str], transposed, stacks: bool = True
              ) -> str | None:
    """A two-operand einsum that is one matrix product, as ``a @ b`` (operands in either
    order, a matrix operand maybe transposed: ``x @ w.T`` for ``"ij,bj->bi"``); None for
    any other. ``transposed(operand, rank)`` spells an operand's last two axes swapped (None:
    the backend cannot); ``stacks=False`` keeps to products of operands of at most two axes
    (vectors and matrices: one BLAS call)."""
    inputs, _, out = subscripts.partition("->")
    specs = inputs.split(",")
    if len(specs) != 2 or "." in subscripts or any(len(set(s)) != len(s) for s in specs):
        return None
    if not stacks and any(len(s) > 2 for s in specs):
        return None
    options = []
    for first, second in ((0, 1), (1, 0)):
        for flip_a in (False, True):
            for flip_b in (False, True):
                a, b = specs[first], specs[second]
                if (flip_a and len(a) < 2) or (flip_b and len(b) < 2):
                    continue
                if (flip_a and transposed(operands[first], len(a)) is None) or \
                        (flip_b and transposed(operands[second], len(b)) is None):
                    continue
                a = a[:-2] + a[-1] + a[-2] if flip_a else a
                b = b[:-2] + b[-1] + b[-2] if flip_b else b
                k = a[-1]
                if (b[0] if len(b) == 1 else b[-2]) != k or k in out \
                        or (set(a) & set(b)) - {k} - set(a[:-2]):
                    continue
                batch_a, batch_b = a[:-2], (b[:-2] if len(b) >= 2 else "")
                if batch_a and batch_b and batch_a != batch_b:
                    continue
                result = (batch_a or batch_b) + (a[-2] if len(a) >= 2 else "") + \
                    (b[-1] if len(b) >= 2 else "")
                if result == out:
                    options.append((flip_a + flip_b, first, second, flip_a, flip_b))
    if not options:
        return None
    _, first, second, flip_a, flip_b = min(options)

    def spelled(i, flip):
        return transposed(operands[i], len(specs[i])) if flip else operands[i]
    return f"{spelled(first, flip_a)} @ {spelled(second, flip_b)}"


def _plain_array(value) -> bool:
    """A numeric array where the generated code runs: a batched value, or a shared one whose
    value is an ndarray (a shared list has no ``@`` and no ``.T``)."""
    if value.kind not in "biufc":
        return False
    return value.batched or isinstance(value.example, np.ndarray)


def einsum_call(specs: list[str], out: str, operands: list, values: list, used: set,
                backend=None):
    """The backend's einsum (``np.einsum``) of per-example ``specs -> out``, batch letter on
    batched operands; a matrix product of numeric arrays the backend writes as one
    (`Backend.matmul`: ``x @ w`` hands NumPy's vectors and matrices straight to BLAS, where
    ``np.einsum`` loops in C, or plans a path in Python on every call)."""
    batch = _batch_letter(used)
    specs = [(batch + s) if v.batched else s for s, v in zip(specs, values)]
    out = batch + out
    subscripts = ",".join(specs) + "->" + out
    args = [f"{{o{i}}}" for i in range(len(operands))]
    if backend is None:
        from .. import backends
        backend = backends.get(backends.DEFAULT)
    template = None
    if all(_plain_array(v) for v in values):
        template = backend.matmul(subscripts, args)
    if template is None:
        # worth planning a path (BLAS) only where both operands keep free axes and share a
        # contracted one: an outer product has nothing to hand to BLAS
        free = [set(s) - set(other) for s, other in zip(specs, specs[::-1])]
        contracted = (set(specs[0]) & set(specs[-1])) - set(out)
        matrix_product = len(specs) == 2 and bool(contracted) and all(f & set(out)
                                                                     for f in free)
        template = backend.einsum(subscripts, args, matrix_product)
    return expr(template, **{f"o{i}": node for i, node in enumerate(operands)})


def ranks(site: Site, count: int = 2):
    values = site.args[:count]
    if any(not v.known for v in values):
        raise Unsupported("the rank of an operand of this product is unknown")
    return [v.rank for v in values]


def _scalar_product(site: Site):
    a, b = padded_args(site)[:2]
    return expr("{a} * {b}", a=a, b=b)


def dot(site: Site):
    ra, rb = ranks(site)
    if ra == 0 or rb == 0:
        return _scalar_product(site)
    used: set = set()
    a = fresh(ra, used)
    if rb == 1:
        b, out = [a[-1]], a[:-1]
    else:
        b = fresh(rb, used)
        b[-2] = a[-1]
        out = a[:-1] + b[:-2] + b[-1:]
    return einsum_call(["".join(a), "".join(b)], "".join(out), site.nodes[:2], site.args[:2],
                       used, site.backend)


def matrix_product(site: Site):
    ra, rb = ranks(site)
    if ra == 0 or rb == 0:
        raise Unsupported("matmul of a per-example scalar (NumPy raises here)",
                          suggestion="use * for scalars", kind="raises")
    used: set = set()
    if ra == 1 and rb == 1:
        a = fresh(1, used)
        b, out = list(a), []
    elif rb == 1:
        a = fresh(ra, used)
        b, out = [a[-1]], a[:-1]
    elif ra == 1:
        b = fresh(rb, used)
        a, out = [b[-2]], b[:-2] + b[-1:]
    elif ra == rb:
        lead = fresh(ra - 2, used)
        i, j, k = fresh(3, used)
        a, b, out = lead + [i, j], lead + [j, k], lead + [i, k]
    else:
        # stacks of matrices of different ranks broadcast from the right (sizes of one
        # included): the batched operand of fewer dims gets axes after its batch axis, so
        # the batch axes line up, and matmul broadcasts the stacks as per example
        rank = max(ra, rb)
        a, b = (pad(n, v, rank) for n, v in zip(site.nodes[:2], site.args[:2]))
        return expr("{a} @ {b}", a=a, b=b)
    return einsum_call(["".join(a), "".join(b)], "".join(out), site.nodes[:2], site.args[:2],
                       used, site.backend)


def inner(site: Site):
    ra, rb = ranks(site)
    if ra == 0 or rb == 0:
        return _scalar_product(site)
    used: set = set()
    a = fresh(ra, used)
    b = fresh(rb - 1, used) + [a[-1]]
    return einsum_call(["".join(a), "".join(b)], "".join(a[:-1] + b[:-1]), site.nodes[:2],
                       site.args[:2], used, site.backend)


def outer(site: Site):
    ra, rb = ranks(site)
    if ra != 1 or rb != 1:
        raise Unsupported("np.outer of per-example arrays that are not vectors",
                          suggestion="flatten them first with .ravel()")
    # the products themselves, broadcast (as NumPy, PyTorch and JAX compute an outer product
    # per example): exact, where an einsum adds each product to a zero and so turns a -0.0
    # product into 0.0
    a, b = site.nodes[:2]
    va, vb = site.args[:2]
    left = expr("{a}[:, :, None]" if va.batched else "{a}[:, None]", a=a)
    right = expr("{b}[:, None, :]", b=b) if vb.batched else b
    return expr("{a} * {b}", a=left, b=right)


def tensordot(site: Site):
    ra, rb = ranks(site)
    axes_value = site.args[2] if len(site.args) > 2 else site.kwargs.get("axes", (None, None))[1]
    axes = 2 if axes_value is None else axes_value.example
    if axes_value is not None and (axes_value.batched or not axes_value.exact):
        raise Unsupported("np.tensordot axes must be a constant written in the function")
    if isinstance(axes, (int, np.integer)):
        a_axes, b_axes = list(range(ra - axes, ra)), list(range(axes))
    else:
        a_axes, b_axes = ([axes[0]] if isinstance(axes[0], int) else list(axes[0]),
                          [axes[1]] if isinstance(axes[1], int) else list(axes[1]))
    a_axes = [x % ra for x in a_axes]
    b_axes = [x % rb for x in b_axes]
    used: set = set()
    a = fresh(ra, used)
    b = fresh(rb, used)
    for i, j in zip(a_axes, b_axes):
        b[j] = a[i]
    out = [x for k, x in enumerate(a) if k not in a_axes]
    out += [x for k, x in enumerate(b) if k not in b_axes]
    return einsum_call(["".join(a), "".join(b)], "".join(out), site.nodes[:2], site.args[:2],
                       used, site.backend)


def einsum(site: Site):
    spec_value = site.args[0]
    if spec_value.batched or not spec_value.exact or not isinstance(spec_value.example, str):
        raise Unsupported("np.einsum needs its subscripts as a constant string")
    if any(k != "optimize" for k in site.kwargs):
        raise Unsupported("np.einsum keyword arguments other than optimize=")
    text = spec_value.example.replace(" ", "")
    if "->" in text:
        inputs, out = text.split("->")
    else:
        inputs = text
        letters = [c for c in inputs if c.isalpha()]
        out = ("..." if "..." in inputs else "") + "".join(
            sorted(c for c in set(letters) if letters.count(c) == 1))
    specs = inputs.split(",")
    operands, values = site.nodes[1:], site.args[1:]
    if len(specs) != len(operands):
        raise Unsupported("np.einsum subscripts do not match the operands")
    return einsum_call(specs, out, operands, values, set(text), site.backend)
