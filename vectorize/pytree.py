"""Pytrees as JAX and ``torch.func`` define them, for `vmap`'s arguments, results and axes.

A pytree is a leaf or a container of pytrees: a ``tuple``, ``list``, ``dict`` (any mapping
type that is a ``dict``: ``OrderedDict``, ``defaultdict``), namedtuple or struct sequence
(``torch.return_types.max``, as ``torch.utils._pytree`` takes it). ``None`` is a leaf
here (an argument the same for every example). ``in_axes`` / ``out_axes`` are *prefixes* of
the trees they describe (as in JAX): an ``int`` or ``None`` applies to every leaf below it,
a container must have the type and the keys (or length) of the container it stands for.
"""

from __future__ import annotations


def is_namedtuple(value) -> bool:
    return isinstance(value, tuple) and type(value) is not tuple and hasattr(
        type(value), "_fields")


def is_structseq(value) -> bool:
    """A struct sequence: a tuple of named fields made in C (``torch.return_types.max``,
    what ``torch.max(x, 0)`` returns), which has no ``_fields``; remade from its items."""
    t = type(value)
    return isinstance(value, tuple) and t is not tuple and t.__base__ is tuple and all(
        hasattr(t, a) for a in ("n_fields", "n_sequence_fields", "n_unnamed_fields"))


def is_node(value) -> bool:
    """Whether ``value`` is a container of pytrees (not a leaf)."""
    t = type(value)
    return t is tuple or t is list or isinstance(value, dict) or is_namedtuple(value) or \
        is_structseq(value)


def keys_of(node) -> tuple | None:
    """The keys of a dict (in its order) or the fields of a namedtuple; None for a plain
    tuple or list."""
    if isinstance(node, dict):
        return tuple(node)
    if is_namedtuple(node):
        return type(node)._fields
    return None


def items_of(node) -> list:
    return list(node.values()) if isinstance(node, dict) else list(node)


def rebuild(node, items):
    """A container like ``node`` (its type, and keys for a dict) holding ``items``."""
    if isinstance(node, dict):
        out = type(node)() if type(node) is not dict else {}
        if hasattr(node, "default_factory"):
            out = type(node)(node.default_factory)
        for key, item in zip(node, items):
            out[key] = item
        return out
    if is_namedtuple(node):
        return type(node)(*items)
    return type(node)(items)


def flatten(tree, path: str = "") -> list:
    """The leaves of ``tree`` as (path, leaf) pairs, depth first (``path`` as Python spells
    the access: ``args[0]['a'][1]``)."""
    if not is_node(tree):
        return [(path, tree)]
    out = []
    keys = keys_of(tree)
    for i, item in enumerate(items_of(tree)):
        if keys is None:
            step = f"[{i}]"
        elif isinstance(tree, dict):
            step = f"[{keys[i]!r}]"
        else:
            step = f".{keys[i]}"
        out.extend(flatten(item, path + step))
    return out


def unflatten(tree, leaves) -> object:
    """``tree`` with its leaves replaced, in `flatten`'s order, by ``leaves`` (an iterator
    or a sequence)."""
    it = iter(leaves)

    def build(node):
        if not is_node(node):
            return next(it)
        return rebuild(node, [build(item) for item in items_of(node)])
    return build(tree)


def describe(tree) -> str:
    """The structure of a tree, leaves as ``*`` (for error messages)."""
    if not is_node(tree):
        return "*"
    keys = keys_of(tree)
    items = [describe(item) for item in items_of(tree)]
    if isinstance(tree, dict):
        inner = ", ".join(f"{k!r}: {v}" for k, v in zip(keys, items))
        return ("{" + inner + "}") if type(tree) is dict else f"{type(tree).__name__}({inner})"
    if keys is not None:
        return f"{type(tree).__name__}(" + ", ".join(
            f"{k}={v}" for k, v in zip(keys, items)) + ")"
    if type(tree) is list:
        return "[" + ", ".join(items) + "]"
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


class PrefixError(ValueError):
    """An axes specification that is not a tree prefix of the value it describes."""


def broadcast_prefix(prefix, tree, path: str = "") -> list:
    """The entry of ``prefix`` (an ``in_axes`` / ``out_axes`` tree) that applies to each leaf
    of ``tree``, in `flatten`'s order. Raises `PrefixError` (saying where) when ``prefix`` is
    not a tree prefix of ``tree``."""
    if not is_node(prefix):
        return [prefix] * len(flatten(tree))
    # (a plain tuple stands for a struct sequence: out_axes=(0, 1) for torch.max(x, 0))
    if not is_node(tree) or (type(prefix) is not type(tree) and not (
            type(prefix) is tuple and is_structseq(tree))):
        raise PrefixError(f"at {path or 'the top'}, the specification is {describe(prefix)} "
                          f"but the value is {describe(tree)} (different types: "
                          f"{type(prefix).__name__} and {type(tree).__name__})")
    pk, tk = keys_of(prefix), keys_of(tree)
    if isinstance(tree, dict):
        if set(pk) != set(tk):
            raise PrefixError(f"at {path or 'the top'}, the specification has keys "
                              f"{sorted(map(repr, pk))} but the value has "
                              f"{sorted(map(repr, tk))}")
        prefix_items = [prefix[k] for k in tk]
    else:
        prefix_items = items_of(prefix)
        if len(prefix_items) != len(tree):
            raise PrefixError(f"at {path or 'the top'}, the specification has "
                              f"{len(prefix_items)} entries but the value has {len(tree)}")
    out = []
    keys = tk
    for i, (p, item) in enumerate(zip(prefix_items, items_of(tree))):
        step = f"[{i}]" if keys is None else (f"[{keys[i]!r}]" if isinstance(tree, dict)
                                              else f".{keys[i]}")
        out.extend(broadcast_prefix(p, item, path + step))
    return out


def leaves_of_spec(spec) -> list:
    """The leaves of an axes specification (its ints and Nones)."""
    if not is_node(spec):
        return [spec]
    return [leaf for item in items_of(spec) for leaf in leaves_of_spec(item)]


def freeze(spec):
    """A hashable form of an axes specification (for caches)."""
    if not is_node(spec):
        return spec
    keys = keys_of(spec)
    return (type(spec), keys, tuple(freeze(item) for item in items_of(spec)))
