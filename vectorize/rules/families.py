"""Family helpers: one call registers a whole family of rules (JAX's ``defvectorized``)."""

from __future__ import annotations

import libcst as cst
import numpy as np

from ..abstract import Value
from ..errors import Unsupported
from ..syntax.templates import expr, parse_expr
from .registry import Registry, Rule, Site


def pad(node: cst.BaseExpression, value, rank: int) -> cst.BaseExpression:
    """Give a batched operand of lower per-example rank new axes right after the batch axis,
    so that it broadcasts against higher-rank operands as it would per example
    (``x[:, None]``). Unbatched operands broadcast by themselves and are never touched."""
    if not isinstance(value, Value) or not value.batched or value.rank >= rank:
        return node
    missing = ", ".join(["None"] * (rank - value.rank))
    return expr("{x}[:, " + missing + "]", x=node)


def real_operands(site: Site, what: str, numpy_too: bool = False) -> None:
    """Refuse ``what`` (an operation Python defines for real numbers only: ordering, `min`,
    `int()`, `math.*`) of a per-example complex value where the examples are Python numbers
    (`vectorize`: Python raises TypeError for every example that gets there, NumPy's
    arrays order complex numbers lexicographically or drop the imaginary part); with
    ``numpy_too`` also for NumPy scalars (`vmap`)."""
    if not (site.python_semantics or numpy_too):
        return
    values = list(site.args) + [v for _, v in site.kwargs.values()]
    if any(isinstance(v, Value) and v.kind == "c" for v in values):
        raise Unsupported(f"{what} of a complex number: Python raises TypeError for each "
                          "example (complex numbers have no order and no real value)",
                          suggestion="compare or convert z.real or abs(z), or pass "
                                     "fallback='warn' to run the examples one by one",
                                     kind="raises")


def same_shaped_choices(site: Site, what: str) -> None:
    """Refuse ``what`` (Python's ``min`` / ``max`` of several values, which returns one of
    them whole) where the values have different per-example shapes: each example's result
    has the shape of the one it picks (``max(x, w)`` of a number ``x`` and a shared array
    ``w`` of shape (1,)), which no batch can hold; the loop cannot stack them either."""
    shapes = {np.shape(v.example) for v in site.args if isinstance(v, Value) and v.known}
    if len(site.args) >= 2 and len(shapes) > 1:
        listed = " and ".join(str(s) for s in sorted(shapes, key=len))
        raise Unsupported(f"{what} of values of different per-example shapes ({listed}): "
                          "Python returns one of them whole, so each example's result has "
                          "the shape of the one it picks", suggestion="give the values one "
                          "shape (np.maximum broadcasts them), or index the array first")


def padded_args(site: Site) -> list[cst.BaseExpression]:
    rank = site.max_rank
    return [pad(n, v, rank) for n, v in zip(site.nodes, site.args)]


def padded_method_call(site: Site, rank: int) -> cst.Call:
    """The method call ``site.node`` on its vectorized receiver (``site.nodes[0]``), every
    positional and keyword operand padded to per-example ``rank`` (`pad`)."""
    call = site.node
    positional = iter(zip(site.nodes[1:], site.args[1:]))
    args = []
    for arg in call.args:
        if arg.keyword is None and not arg.star:
            node, value = next(positional)
            arg = arg.with_changes(value=pad(node, value, rank))
        elif arg.keyword is not None and arg.keyword.value in site.kwargs:
            node, value = site.kwargs[arg.keyword.value]
            arg = arg.with_changes(value=pad(node, value, rank))
        args.append(arg)
    return call.with_changes(func=call.func.with_changes(value=site.nodes[0]), args=args)


def with_batch(size: cst.BaseExpression, size_value, batch: cst.BaseExpression, backend):
    """A per-example shape or size (``size``, of abstract value ``size_value``) with the batch
    length ``batch`` in front: ``(len(x), <size>)`` spelled as simply as the size allows
    (``backend``: the `Backend` whose spelling the general case takes)."""
    if isinstance(size, cst.Tuple):
        return cst.Tuple([cst.Element(batch)] + [cst.Element(e.value) for e in size.elements])
    if isinstance(size_value.example, (int, np.integer)):
        return cst.Tuple([cst.Element(batch), cst.Element(size)])
    return expr(backend.with_batch("{b}", "{s}"), b=batch, s=size)


def rewrite_call_args(site: Site, func: str | None = None) -> cst.Call:
    """The call as written (or with ``func`` as its new callee), operands padded."""
    call = site.node
    new_args = []
    rank = site.max_rank
    positional = iter(zip(site.nodes, site.args))
    for arg in call.args:
        if arg.keyword is None and arg.star == "":
            node, value = next(positional)
            arg = arg.with_changes(value=pad(node, value, rank))
        new_args.append(arg)
    changes = {"args": new_args}
    if func is not None:
        changes["func"] = parse_expr(func)
    return call.with_changes(**changes)


def elementwise(registry: Registry, funcs, *, family: str, name: str, explanation: str,
                before: str, after: str, target=None, may_warn=False, infer=None,
                prepare=None) -> Rule:
    """Functions that act lane by lane: the call stays as written (or is renamed to
    ``target``), operands of different per-example rank are aligned by `pad`; ``prepare``:
    called on the site first (it may convert its operands)."""

    def rewrite(site: Site) -> cst.BaseExpression:
        new_func = target(site) if callable(target) else target
        if prepare is not None:
            prepare(site)
        return rewrite_call_args(site, new_func)

    rule = Rule(name=name, family=family, explanation=explanation, before=before, after=after,
                rewrite=rewrite, may_warn=may_warn, infer=infer)
    for f in funcs:
        registry.add_call(f, rule)
    return rule


def template_rule(registry: Registry, funcs, template: str, *, family: str, name: str,
                  explanation: str, before: str, after: str, params=("x",), may_warn=False,
                  infer=None) -> Rule:
    """A call rewritten by an expression template over its (padded) positional operands."""

    def rewrite(site: Site) -> cst.BaseExpression:
        args = padded_args(site)
        return expr(template, **dict(zip(params, args)))

    rule = Rule(name=name, family=family, explanation=explanation, before=before, after=after,
                rewrite=rewrite, may_warn=may_warn, infer=infer)
    for f in funcs:
        registry.add_call(f, rule)
    return rule
