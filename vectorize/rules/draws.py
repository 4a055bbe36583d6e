"""Which calls are random draws: NumPy's (``np.random.*``, a ``Generator``'s methods) and
Python's ``random``, for every backend.

A backend's tables decide what a draw becomes (NumPy's draws one number per example, PyTorch's
refuses a NumPy draw in code for tensors); Python's ``random`` is refused everywhere, with the
backend's own way to draw as the suggestion (`register_python_random`).
"""

from __future__ import annotations

import sys

import numpy as np

from ..errors import Unsupported
from .registry import Registry, Rule, Site

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
