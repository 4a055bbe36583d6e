"""Random numbers inside a per-example function: independent draws for every example.

Per example, ``np.random.normal(0.0, 1.0)`` draws one number; the batched call draws one per
example (``size=len(x)`` in front of any per-example ``size``), like
``torch.vmap(randomness="different")``. Arguments that differ per example broadcast as NumPy
does. The legacy ``np.random.*`` functions and the methods of a ``np.random.Generator`` both
work; the stream is consumed in a different order than the per-example loop would, so the
numbers are independent draws from the same distributions, not the same numbers.
"""

from __future__ import annotations

import sys

import numpy as np

from ..abstract import batched_like
from ..errors import Unsupported
from ..syntax.templates import parse_expr
from .families import with_batch
from .registry import Registry, Rule, Site, evaluate

# name -> how many leading positional parameters come before `size`
DISTRIBUTIONS = {
    "normal": 2, "uniform": 2, "standard_normal": 0, "random": 0, "random_sample": 0,
    "exponential": 1, "poisson": 1, "binomial": 2, "beta": 2, "gamma": 2, "lognormal": 2,
    "laplace": 2, "logistic": 2, "gumbel": 2, "chisquare": 1, "geometric": 1,
    "standard_exponential": 0, "standard_gamma": 1, "standard_cauchy": 0, "integers": 2,
    "randint": 2, "rayleigh": 1, "weibull": 1, "pareto": 1, "triangular": 3, "vonmises": 2,
}
DIMS_POSITIONAL = {"rand", "randn"}          # np.random.rand(d0, d1, ...)


def random_name(fn) -> str | None:
    """The distribution a callable draws from, when it is NumPy's random machinery."""
    name = getattr(fn, "__name__", None)
    if name not in DISTRIBUTIONS and name not in DIMS_POSITIONAL:
        return None
    if "numpy.random" not in sys.modules:
        # NumPy imports it on first use (about 8 ms): until then nothing can come from it
        return None
    owner = getattr(fn, "__self__", None)
    from_module = getattr(fn, "__module__", "") in ("numpy.random", "numpy.random.mtrand")
    from_generator = isinstance(owner, (np.random.Generator, np.random.RandomState))
    if from_generator or from_module or fn is getattr(np.random, name, None):
        return name
    return None


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


def python_random_name(fn) -> str | None:
    """The name of a draw from Python's ``random`` module (a method of its hidden
    ``random.Random``, or of one of the user's), or None."""
    owner = getattr(fn, "__self__", None)
    if "random" not in sys.modules or not isinstance(owner, sys.modules["random"].Random):
        return None
    return getattr(fn, "__name__", None)


def register_python_random(reg: Registry) -> None:
    instead = reg.primitives.random_hint

    def refused(site: Site):
        raise Unsupported(f"`random.{site.func.__name__}` draws from Python's generator, one "
                          "number per call: the batch would call it once and give every "
                          "example the same number", site.original,
                          f"draw with {instead}, which draws for every example")

    reg.add_draws(lambda fn: python_random_name(fn) is not None, Rule(
        name="random.python_refused", family="random",
        explanation="A draw from Python's `random` module inside a per-example function is "
                    "refused: the batch would call it once, so every example would get the "
                    "same number.", before="noise = random.gauss(0.0, 1.0)", after="(refused)",
        rewrite=refused, infer=refused))


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
