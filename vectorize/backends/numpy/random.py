"""Random numbers inside a per-example function: independent draws for every example.

Per example, ``np.random.normal(0.0, 1.0)`` draws one number; the batched call draws one per
example (``size=len(x)`` in front of any per-example ``size``), like
``torch.vmap(randomness="different")``. Arguments that differ per example broadcast as NumPy
does. The legacy ``np.random.*`` functions and the methods of a ``np.random.Generator`` both
work; the stream is consumed in a different order than the per-example loop would, so the
numbers are independent draws from the same distributions, not the same numbers.
"""

from __future__ import annotations

import numpy as np

from ...abstract import batched_like
from ...errors import Unsupported
from ...rules.draws import DIMS_POSITIONAL, DISTRIBUTIONS, random_name, register_python_random
from ...rules.families import with_batch
from ...rules.registry import Registry, Rule, Site, evaluate
from ...syntax.templates import parse_expr


def infer(site: Site):
    """A draw per example: batched, with the per-example shape of one draw. The example is
    drawn from a private generator, so the user's random state is never consumed."""
    fn = site.func
    name = fn.__name__
    private = np.random.default_rng(0) if hasattr(np.random.Generator, name) and (
        isinstance(getattr(fn, "__self__", None), np.random.Generator)) \
        else np.random.RandomState(0)
    out = evaluate(getattr(private, name), *[a.example for a in site.args],
                   **{k: v.example for k, (_, v) in site.kwargs.items()})
    return batched_like(out)


def rewrite(site: Site):
    """Put the batch length (``site.batch``) in front of the size of each per-example
    draw."""
    call, name, batch = site.node, site.func.__name__, site.batch
    if name in DIMS_POSITIONAL:
        dims = [a for a in call.args]
        return call.with_changes(args=[parse_expr("f(0)").args[0].with_changes(
            value=batch, comma=_comma(bool(dims)))] + dims)
    leading = DISTRIBUTIONS[name]
    positional = [a for a in call.args if a.keyword is None]
    size = None
    if len(positional) > leading:
        size = positional[leading].value
    elif "size" in site.kwargs:
        size = site.kwargs["size"][0]
    if any(getattr(v, "batched", False) for v in site.args) and size is None:
        return call        # per-example parameters already give one draw per example
    if size is None:
        new_size = batch
    else:
        size_value = (site.args[leading] if len(site.args) > leading
                      else site.kwargs["size"][1])
        if size_value.batched:
            raise Unsupported("a random draw whose size differs per example")
        new_size = with_batch(size, size_value, batch, site.spelled)
    kept = [a for a in call.args if not (a.keyword is not None and a.keyword.value == "size")]
    kept = [a for i, a in enumerate(kept) if not (a.keyword is None and i == leading)]
    size_arg = parse_expr("f(size=0)").args[0].with_changes(value=new_size)
    args = [a.with_changes(comma=_comma(True)) for a in kept] + [size_arg]
    return call.with_changes(args=args)


def _comma(needed: bool):
    import libcst as cst
    return cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if needed else \
        cst.MaybeSentinel.DEFAULT


def register(reg: Registry) -> None:
    reg.add_draws(lambda fn: random_name(fn) is not None, Rule(
        name="random.per_example", family="random",
        explanation="`np.random.*` and `Generator` draws inside a per-example function draw "
                    "independently for every example (`size=len(x)` in front of any "
                    "per-example size), like `torch.vmap(randomness=\"different\")`: the same "
                    "distributions, not the same numbers as a loop would draw.",
        before="noise = np.random.normal(0.0, 1.0)",
        after="noise = np.random.normal(0.0, 1.0, size=len(x))",
        rewrite=rewrite, infer=infer))
    register_python_random(reg)
