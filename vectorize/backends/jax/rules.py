"""The JAX rule tables: NumPy's, spelled with ``jnp``, and JAX's own functions as twins.

``jax.numpy`` follows NumPy's API, and with 64-bit types enabled (as the generated code runs,
`runtime`) its dtypes and promotion too, so every rule of NumPy's tables holds as it is. They
are registered here against this backend: the shared rules (operators, ``if`` → ``where``,
lanes, indexing, products → ``einsum``) write through its primitives (``jnp.where``,
``jnp.einsum``); NumPy's own tables spell ``np.``, which `finish.spelled_with_jnp` turns into
``jnp.`` (refused, located, where ``jax.numpy`` has no such function).

**Twins.** A call of JAX's own function (``jnp.sin(x)``, ``jnp.sum(v, axis=0)``) batches as
its NumPy twin's (``np.sin``, ``np.sum``): `register_twins` gives each one the twin's rule,
with the analysis computing on NumPy examples through the twin (``Rule.shadow``).

What no rule can do under ``jit`` is refused by `finish` (per-example loops until they are
lowered to ``lax.while_loop``; in-place writes into arrays the function creates are not made:
``in_place_writes`` is off, `analysis.aliasing` refuses them).
"""

from __future__ import annotations

import builtins as builtins_module
import dataclasses
import math

import numpy as np

from ...rules.registry import Registry, Rule, Site
from ...syntax.templates import expr


def build(backend) -> Registry:
    from ..numpy import register_tables
    reg = Registry(backend)
    register_tables(reg)
    from . import lax_rules
    lax_rules.register(reg)     # `jax.lax` in the user's code: mapped by jax.vmap's rules
    _replace(reg, builtins_module.complex, _complex_parts)
    for func in (math.gcd, math.lcm, np.gcd, np.lcm):
        _replace(reg, func, _no_gcd)
    # `x.size` per example: the product of static ints (jnp.prod takes no tuple)
    size = reg.attributes["size"]
    reg.attributes["size"] = dataclasses.replace(size, rewrite=lambda s: expr(
        "math.prod({x}.shape[1:])", x=s.nodes[0]))
    reg.all_rules[:] = [reg.attributes["size"] if r is size else r for r in reg.all_rules]
    pairs = twins()
    register_twins(reg, pairs)
    from .dtypes import make_faithful
    make_faithful(reg, {id(np_fn): jfn for jfn, np_fn in pairs})
    from .ints import wrap_operators
    wrap_operators(reg)     # Python ints beyond an integer array's type, as NumPy takes them
    from . import bool_products
    bool_products.wrap(reg)     # a float times a bool array as NumPy multiplies it
    from . import signs
    signs.wrap(reg)     # a signed integer's abs, which XLA must not take for non-negative
    return reg


def _replace(reg: Registry, func, rewrite) -> None:
    """``func``'s rule with JAX's ``rewrite``, which gives None where NumPy's rule holds."""
    rule = reg.for_call(func)
    original = rule.rewrite

    def rewritten(site):
        out = rewrite(site)
        return original(site) if out is None else out
    new = dataclasses.replace(rule, rewrite=rewritten)
    reg.replace_call(func, new)
    reg.relist({id(rule): new})


def _complex_parts(site: Site):
    """``complex(re, im)``: ``lax.complex`` of the float64 parts (NumPy's rule views the
    stacked pair as complex, which ``jnp`` computes as ``re + 1j * im``: NaN for an infinite
    imaginary part)."""
    if site.kwargs or len(site.nodes) != 2 or any(v.kind == "c" for v in site.args):
        return None
    from ...rules.families import padded_args
    re, im = padded_args(site)
    # (`float` is float64: the code runs with x64)
    return expr("lax.complex(*jnp.broadcast_arrays(jnp.asarray({re}, float), "
                "jnp.asarray({im}, float)))", re=re, im=im)


GCD_REFUSAL = ("`gcd`/`lcm` on per-example integers: jnp.gcd loops until every lane is done "
               "and never ends for the most negative int64 (which a lane, or the int of a "
               "lane's NaN or infinity, may hold), so the JAX backend does not write it")


def _no_gcd(site: Site):
    from ...errors import Unsupported
    raise Unsupported(GCD_REFUSAL, site.original, "compute it with backend=\"numpy\"")


def _twin_site(site: Site, func) -> Site:
    return dataclasses.replace(site, func=func)


def _twin_rule(rule: Rule, np_func) -> Rule:
    """``rule`` for a JAX function whose NumPy twin is ``np_func``: the rule sees the twin
    (its infer, rewrite and the analysis' examples), the call keeps JAX's spelling."""
    infer = rule.infer
    rewrite = rule.rewrite
    return dataclasses.replace(
        rule,
        rewrite=lambda site: rewrite(_twin_site(site, np_func)),
        infer=None if infer is None else (lambda site: infer(_twin_site(site, np_func))),
        shadow=rule.shadow or np_func)


def twins():
    """(JAX function, NumPy twin) of every function of ``jax.numpy`` (and its ``linalg``
    and ``fft``) whose NumPy namesake is a function."""
    import jax.numpy as jnp
    out = []
    for jax_mod, np_mod in ((jnp, np), (jnp.linalg, np.linalg), (jnp.fft, np.fft)):
        for name, jfn in vars(jax_mod).items():
            if name.startswith("_") or not callable(jfn) or isinstance(jfn, type):
                continue
            np_fn = getattr(np_mod, name, None)
            if np_fn is not None and callable(np_fn) and not isinstance(np_fn, type):
                out.append((jfn, np_fn))
    return out


def register_twins(reg: Registry, pairs) -> None:
    """JAX's functions get their NumPy twins' rules (not listed again among the registry's
    rules: the rules page documents each once, under NumPy's name); ``pairs``: `twins`."""
    for jfn, np_fn in pairs:
        for lookup, creation in ((reg.for_call, False), (reg.creation_for, True)):
            rule = lookup(np_fn)
            if rule is not None and lookup(jfn) is None:
                reg.add_unlisted(jfn, _twin_rule(rule, np_fn), creation=creation)
