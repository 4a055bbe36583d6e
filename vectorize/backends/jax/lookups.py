"""Dicts of numbers looked up by per-example keys on JAX (`JaxBackend.lookup`).

``TABLE[k]`` and ``TABLE.get(k, default)``, with ``TABLE`` a dict of numbers keyed by
numbers, the same for every example, and ``k`` a per-example number: the NumPy backend's
binary search of the sorted keys (`pymath.lookup`), in ``jnp``. The keys and values are
constants of the trace (arrays made from the dict when ``jit`` traces the code). A key is
found where it equals one of the dict's as Python compares them (``4.0`` finds ``4``, NaN
finds nothing). A key missing without a default is Python's ``KeyError``: under ``jit`` a
``checkify`` check (`runtime.jit_twin` counts `dict_lookup` calls as it counts `in_bounds`:
a failed check runs the function again op by op), and op by op the ``KeyError`` of the
first missing key, as the per-example code raises it. Lanes a per-example ``if`` or loop
does not reach hold a key the dict has (the passes mask them, as for NumPy).
"""

from __future__ import annotations

DICT_LOOKUP = "dict_lookup"


def dict_lookup(table, key, *default):
    """``table[key]`` lane by lane (``table.get(key, default)`` with a ``default``), for a
    dict of numbers keyed by numbers (module docstring). (Self-contained: the file
    rewriter copies it into the files it writes.)"""
    import jax
    import numpy as np
    from jax.experimental import checkify
    jnp = jax.numpy
    keys = sorted(table)
    values = np.asarray([table[k] for k in keys]) if keys else np.zeros(1)
    sorted_keys = np.asarray(keys if keys else [0])
    key = jnp.asarray(key)
    at = jnp.minimum(jnp.searchsorted(jnp.asarray(sorted_keys), key), len(sorted_keys) - 1)
    found = (jnp.asarray(sorted_keys)[at] == key) if keys else jnp.zeros(key.shape, bool)
    if default:
        if not keys:
            return jnp.broadcast_arrays(jnp.asarray(default[0]), key)[0]
        return jnp.where(found, jnp.asarray(values)[at], default[0])
    if isinstance(key, jax.core.Tracer):
        checkify.check(jnp.all(found), "key missing")
    else:
        missing = ~np.asarray(found)
        if missing.any():
            raise KeyError(np.asarray(key)[missing].flat[0].item())
    return jnp.asarray(values)[at]
