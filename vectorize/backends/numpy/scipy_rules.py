"""SciPy, where it is installed: the ufuncs of ``scipy.special`` and the distributions of
``scipy.stats``.

Every function of ``scipy.special`` that is a ufunc (``erf``, ``gamma``, ``gammaln``,
``expit``, ``j0``, ``kv``... about 230) already works lane by lane: one family rule recognises
any of them (without importing SciPy: a ufunc found under its name in an imported
``scipy.special``) and keeps the call as written. The methods of a ``scipy.stats``
distribution that give one number per point (``pdf``, ``logpdf``, ``cdf``, ``logcdf``,
``sf``, ``logsf``, ``ppf``, ``isf``, ``pmf``, ``logpmf``), on the distribution itself
(``norm.cdf(x, loc, scale)``) or on a frozen one (``norm(0, 1).cdf(x)``, also frozen with
per-example parameters), broadcast their arguments: the same family, as written.
"""

from __future__ import annotations

import sys

import numpy as np

from ...errors import Unsupported
from ...rules.families import pad
from ...rules.registry import Registry, Rule, Site

POINTWISE_METHODS = frozenset({"pdf", "logpdf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf",
                               "pmf", "logpmf"})


def is_special_ufunc(fn) -> bool:
    """A ufunc of ``scipy.special`` (looked for only where SciPy is already imported), public
    or one of the private ufuncs its Python functions call (``lambertw(z, k, tol)`` returns
    ``_lambertw(z, k, tol)``, from ``scipy.special._ufuncs``)."""
    if type(fn) is not np.ufunc or fn.signature is not None:
        return False
    return any(module is not None and getattr(module, fn.__name__, None) is fn
               for module in (sys.modules.get("scipy.special"),
                              sys.modules.get("scipy.special._ufuncs")))


def _distribution_classes():
    stats = sys.modules.get("scipy.stats")
    if stats is None:
        return None
    from scipy.stats._distn_infrastructure import rv_frozen
    return (stats.rv_continuous, stats.rv_discrete, rv_frozen)


def is_distribution_method(fn) -> bool:
    """A pointwise method (``cdf``...) bound to a ``scipy.stats`` distribution, frozen or not."""
    owner = getattr(fn, "__self__", None)
    if owner is None or getattr(fn, "__name__", None) not in POINTWISE_METHODS:
        return False
    classes = _distribution_classes()
    return classes is not None and isinstance(owner, classes)


def is_distribution(fn) -> bool:
    """A ``scipy.stats`` distribution (called, it is frozen with its parameters)."""
    stats = sys.modules.get("scipy.stats")
    return stats is not None and isinstance(fn, (stats.rv_continuous, stats.rv_discrete))


def _broadcasting(site: Site):
    """The call as written, every per-example operand (positional or keyword) given the axes
    it lacks after the batch axis."""
    call = site.node
    values = list(site.args) + [v for _, v in site.kwargs.values()]
    rank = max((getattr(v, "rank", 0) for v in values), default=0)
    positional = iter(zip(site.nodes, site.args))
    args = []
    for arg in call.args:
        if arg.star:
            raise Unsupported("`*`/`**` arguments of a SciPy function on per-example values",
                              suggestion="pass the arguments one by one")
        if arg.keyword is None:
            node, value = next(positional)
        else:
            node, value = site.kwargs[arg.keyword.value]
        args.append(arg.with_changes(value=pad(node, value, rank)))
    return call.with_changes(args=args)


def _frozen_method(site: Site):
    """``d.cdf(x)`` of a distribution frozen with per-example parameters (``d = norm(mu,
    s)``): its parameters have the batch axis only, so the points must be per-example
    scalars too."""
    values = list(site.args[1:]) + [v for _, v in site.kwargs.values()]
    if any(getattr(v, "rank", 0) > 0 for v in values):
        raise Unsupported("a distribution frozen with per-example parameters, evaluated at "
                          "per-example arrays of points",
                          suggestion="call the distribution's method with the parameters: "
                                     "norm.cdf(x, loc=mu, scale=s)")
    call = site.node
    return call.with_changes(func=call.func.with_changes(value=site.nodes[0]))


def _freeze(site: Site):
    values = list(site.args) + [v for _, v in site.kwargs.values()]
    if any(getattr(v, "rank", 0) > 0 for v in values):
        raise Unsupported("a distribution frozen with per-example arrays of parameters",
                          suggestion="pass the parameters to its method: "
                                     "norm.cdf(x, loc=mu, scale=s)")
    return site.node


def register(reg: Registry) -> None:
    reg.add_family(is_special_ufunc, Rule(
        "scipy.special_ufunc", "scipy",
        "Every ufunc of `scipy.special` (`erf`, `gamma`, `gammaln`, `expit`, `jv`...) works "
        "lane by lane: the call stays as written, operands aligned by per-example rank.",
        "y = scipy.special.erf(x) * scipy.special.jv(2, r)",
        "y = scipy.special.erf(x) * scipy.special.jv(2, r)", _broadcasting, may_warn=True))
    reg.add_family(is_distribution_method, Rule(
        "scipy.stats_method", "scipy",
        "The pointwise methods of a `scipy.stats` distribution (`pdf`, `logpdf`, `cdf`, `sf`, "
        "`ppf`, `isf`, `pmf`...), on the distribution or a frozen one, broadcast their "
        "arguments: the call stays as written, operands aligned by per-example rank.",
        "p = stats.norm.cdf(x, loc=mu, scale=s)\nq = stats.norm(0, 2).sf(x)",
        "p = stats.norm.cdf(x, loc=mu, scale=s)\nq = stats.norm(0, 2).sf(x)", _broadcasting,
        may_warn=True))
    reg.add_family(is_distribution, Rule(
        "scipy.stats_freeze", "scipy",
        "A `scipy.stats` distribution frozen with per-example scalar parameters is one frozen "
        "distribution of arrays of parameters; its pointwise methods then take per-example "
        "scalars.", "d = stats.norm(mu, s)\np = d.cdf(x)", "d = stats.norm(mu, s)\np = d.cdf(x)",
        _freeze))
    frozen = Rule(
        "scipy.stats_frozen_method", "scipy",
        "A pointwise method (`cdf`, `pdf`, `ppf`...) of a distribution frozen with per-example "
        "parameters: as written, at per-example scalar points.",
        "d = stats.gamma(a)\np = d.pdf(x)", "d = stats.gamma(a)\np = d.pdf(x)", _frozen_method,
        may_warn=True)
    for name in sorted(POINTWISE_METHODS):
        reg.add_method(name, frozen)
