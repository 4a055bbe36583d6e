"""The examples of the rules only JAX has (`lax_rules`: ``jax.lax`` and ``x.at[]`` in the
user's code), for ``docs/rules.md``: each runs on ``jax.Array`` s of the page's arguments
(float32 and int32, JAX's default types) and is checked by ``tests/test_rules_doc.py`` as
every other rule's example is. `JaxBackend.rule_examples` hands them to
`vectorize.rules.examples`."""

from __future__ import annotations

RANDOM: set[str] = set()
REFUSED: set[str] = set()


def _jax(body: str, args: str, in_axes, backend: str = "jax") -> dict:
    return dict(source=body.strip("\n") + "\n", args=args, in_axes=in_axes,
                imports="jax, jax.lax as lax", backend=backend)


JAX_EXAMPLES: dict[str, dict] = {
    "lax.indexing": _jax('''
def f(v, k):
    return lax.dynamic_slice(v, (k,), (2,))
''', "V, K", (0, 0)),
    "lax.structure": _jax('''
def f(v, x):
    return lax.select(v > x, lax.rev(v, (0,)), v)
''', "V, X", (0, 0)),
    "lax.control_flow": _jax('''
def f(x, n):
    return lax.fori_loop(0, n, lambda i, a: a * 0.5 + i, x)
''', "X, N", (0, 0)),
    "lax.function": _jax('''
def f(x):
    return lax.sin(x) * 2
''', "X", (0,)),
    "jax.indexed_update": _jax('''
def f(v, k, x):
    return v.at[k].add(x)
''', "V, K, X", (0, 0, 0)),
}
