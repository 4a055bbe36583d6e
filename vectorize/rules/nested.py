"""A vmapped function called inside a vmapped (or vectorized) function: ``vmap(h)(x)`` where
``x`` is per example.

Per example the call maps ``h`` over an axis of the example; on the batch it maps ``h`` over
that axis of every example, which is the vmap of the vmapped function over the batch axis:
``vmap(vmap(h))(x)``, with ``in_axes`` 0 for the per-example arguments and None for the
others (`vectorize.vmap` computes a vmap of a vmapped function as one batched call over both
axes). The rule holds for every array namespace, so every registry has it.
"""

from __future__ import annotations

import libcst as cst

from ..abstract import TupleValue, batched_like
from ..errors import Unsupported, VectorizeError
from ..syntax.templates import expr
from .registry import Registry, Rule, Site


def _as_value(out):
    """The per-example abstract value of what a vmapped function returned on the
    examples (a pytree of them: tuples, lists, dicts, namedtuples)."""
    from ..pytree import is_node, items_of, keys_of
    if is_node(out):
        kind = None if type(out) is tuple else type(out)
        return TupleValue(tuple(_as_value(o) for o in items_of(out)), keys_of(out), kind)
    return batched_like(out)


def axis_of(value, node):
    """The in_axes entry of one argument: 0 for a per-example value (its batch axis), None
    for one the same for every example."""
    if isinstance(value, TupleValue):
        entries = [axis_of(v, node) for v in value.items]
        if all(e == 0 for e in entries):
            return 0
        if all(e is None for e in entries):
            return None
        if value.kind is list:
            return entries
        if value.kind is dict and all(type(k) in (str, int) for k in value.keys or ()):
            return dict(zip(value.keys, entries))    # an in_axes dict: a tree prefix
        if value.kind is not None:
            raise Unsupported("a namedtuple or dict subclass argument of a vmapped function "
                              "that holds both "
                              "per-example values and values the same for every example",
                              node, "pass its parts as separate arguments")
        return tuple(entries)
    return 0 if value.batched else None


def _infer(site: Site, backend):
    fn = site.func
    from ..vmap_vectorize import is_vectorized
    if is_vectorized(fn) and fn.cache and not fn.otypes and fn.signature is None:
        # (`vmap_vectorize.call_vectorized`: it runs per example, where it is not refused)
        raise Unsupported("a vectorize object made with cache=True called on per-example "
                          "values: per example numpy.vectorize keeps its first result from "
                          "the call that learns the output types, on NumPy scalars, which "
                          "one call on the batch does not", site.original,
                          "drop cache=True, or give otypes")
    if any(getattr(v, "batched", False) for _, v in site.kwargs.values()):
        _keywords_as_positions(site)        # refuses where they cannot be
    for value in site.args:
        axis_of(value, site.original)
    examples = [_example_of(v) for v in site.args]
    kwargs = {k: _example_of(v) for k, (_, v) in site.kwargs.items()}
    try:
        out = backend.on_examples(fn)(*examples, **kwargs)
    except VectorizeError:
        raise
    except Exception as exc:   # the vmapped call raises for these arguments per example
        raise Unsupported(f"the vmapped call raises per example: {type(exc).__name__}: "
                          f"{exc}", site.original, kind="raises") from None
    from .. import backends
    from ..pytree import flatten, unflatten
    # (its own arrays, where the backend's examples are not NumPy's, as NumPy examples)
    out = unflatten(out, [backend.from_examples(leaf) for _, leaf in flatten(out)])
    if backends.of_value(out) not in (None, backend.name):
        raise Unsupported("a vmapped call that returns another namespace's arrays",
                          site.original)
    return _as_value(out)


def _example_of(value):
    """What a value's examples stand for: a container as its own type (a dict with its
    keys), not the tuple of its items' examples."""
    if not isinstance(value, TupleValue):
        return value.example
    items = [_example_of(v) for v in value.items]
    if value.keys is not None and value.kind is not None and issubclass(value.kind, dict):
        return value.kind(zip(value.keys, items))
    if value.kind is list:
        return items
    if value.kind is not None:
        return value.kind(*items)
    return tuple(items)


def _keywords_as_positions(site: Site) -> list:
    """The keyword arguments of a call of a vmapped function, as the positional arguments
    that follow the call's own (their names in order): keyword arguments are passed to each
    example's call as they are (not mapped), so a per-example one is mapped on the batch
    only, which a vmap takes by position. Refused where they do not bind so (a ``partial``,
    a parameter skipped, keyword-only parameters)."""
    import inspect
    fn = site.func
    problem = Unsupported("per-example values passed by keyword to a vmapped function (its "
                          "keyword arguments are not mapped) that the engine cannot pass "
                          "by position", site.original, "pass them positionally")
    target = getattr(fn, "func", None)
    if getattr(fn, "_lead", ()) or getattr(fn, "_bound", {}) or not inspect.isfunction(
            target) or getattr(fn, "_grad", None) is not None:
        raise problem
    params = list(inspect.signature(target).parameters.values())
    after = params[len(site.args):len(site.args) + len(site.kwargs)]
    names = [p.name for p in after]
    if sorted(names) != sorted(site.kwargs) or any(
            p.kind is not p.POSITIONAL_OR_KEYWORD for p in after):
        raise problem
    return names


def _rewrite(site: Site) -> cst.BaseExpression:
    call = site.node
    axes = tuple(axis_of(v, site.original) for v in site.args)
    inner = call.func
    if any(getattr(v, "batched", False) for _, v in site.kwargs.values()):
        # vmap(vmap(h.func, in_axes=h's + None for each), ...)(*args, *keyword values)
        names = _keywords_as_positions(site)
        fn = site.func
        count = len(site.args)
        inner_axes = fn.in_axes if isinstance(fn.in_axes, tuple) else (fn.in_axes,) * count
        inner = expr("vmap({f}.func, in_axes=" + repr(tuple(inner_axes) + (None,) * len(
            names)) + ", out_axes={f}.out_axes)", f=inner)
        axes += tuple(axis_of(site.kwargs[n][1], site.original) for n in names)
        by_name = {a.keyword.value: a for a in call.args if a.keyword is not None}
        call = call.with_changes(args=[a for a in call.args if a.keyword is None] + [
            by_name[n].with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)
            for n in names])
    if all(a == 0 for a in axes):
        outer = expr("vmap({f})", f=inner)
    else:
        outer = expr("vmap({f}, in_axes=" + repr(axes) + ")", f=inner)
    return call.with_changes(func=outer)


def _refuse_batched(site: Site):
    raise Unsupported("`vmap` of a per-example value: the function to map must be the same "
                      "for every example", site.original, "vmap a function of your module")


def register(reg: Registry, vmap, is_vmapped) -> None:
    """The rules of ``vmap`` (the function) and of the functions it makes (``is_vmapped``),
    which `vectorize.vmap` hands in (`registry.EVERY_NAMESPACE`)."""
    rule = Rule(
        "vmap.nested", "vmap",
        "A vmapped function called on per-example values maps over an axis of each example: "
        "on the batch it is the vmap of the vmapped function over the batch axis (`in_axes` "
        "0 for per-example arguments, None for the others), which runs as one batched call "
        "over both axes.",
        "y = vmap(h)(x)\nz = vmap(g, in_axes=(0, None))(x, w)",
        "y = vmap(vmap(h))(x)\nz = vmap(vmap(g, in_axes=(0, None)), in_axes=(0, None))(x, w)",
        _rewrite, infer=lambda site: _infer(site, reg.backend), takes_trees=True)
    reg.add_family(is_vmapped, rule)
    reg.add_call(vmap, Rule(
        "vmap.function", "vmap",
        "`vmap(h, ...)` itself is the same for every example (a function of the module); "
        "only the function it makes is called on per-example values (`vmap.nested`).",
        "y = vmap(h)(x)", "y = vmap(vmap(h))(x)", lambda site: _refuse_batched(site),
        infer=_refuse_batched))
