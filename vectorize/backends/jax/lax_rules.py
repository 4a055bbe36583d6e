"""``jax.lax`` in the user's per-example code: each call batched by ``jax.vmap``'s own rule.

JAX users write their scalar code with ``jax.lax`` as well as ``jax.numpy``: ``lax.select``,
``lax.dynamic_slice`` at a per-example offset, ``lax.cond`` on a per-example predicate,
``lax.fori_loop`` with per-example bounds, ``lax.while_loop``. Every ``lax`` primitive has a
batching rule in JAX (``jax/_src/lax/*.py``: ``_select_batch_rule``,
``_dynamic_slice_batching_rule`` (a gather), ``_cond_batching_rule`` (both branches and a
select where the predicate is batched), ``_while_loop_batching_rule`` (the loop runs until
no lane's predicate holds, the carry kept where it stopped)...). The batched code is that
rule, applied where it applies: the call as the user wrote it, mapped over the batch axis by
``jax.vmap`` with the operands that are per example mapped (``in_axes`` 0, per leaf of a
tuple operand) and the others passed as they are::

    y = lax.dynamic_slice(v, (i,), (2,))   ->   y = jax.vmap(lambda x0, x1: lax.dynamic_slice(
                                                    x0, x1, (2,)))(v, (i,))

so the results are ``jax.vmap``'s, bit for bit, out-of-bounds offsets (clamped) included.
The functions a control-flow call takes (``lax.cond``'s branches, a loop's body) are its
operands as written: a lambda or a function of the module that reads none of the
function's values (the analysis refuses one that reads them: pass them as operands, as
JAX's own style has it). ``jax.vmap`` refuses what it refuses (a Python ``if`` on a traced
value inside a branch), as the per-example call would.

The analysis learns each call's result by running it on the examples as ``jax.Array`` s,
with 64-bit types enabled as the generated code runs (`on_jax`). On the NumPy and PyTorch
backends a ``jax`` function of per-example values is refused at the call (`refuse_jax`).
"""

from __future__ import annotations

import libcst as cst
import numpy as np

from ...abstract import UNKNOWN, TupleValue, Value
from ...errors import Unsupported
from ...rules.registry import Registry, Rule, Site, result_value

FAMILY = "jax.lax"

# the operations of `jax.lax` each rule covers (the rest: `lax.function`)
INDEXING = ("slice", "slice_in_dim", "dynamic_slice", "dynamic_slice_in_dim",
            "dynamic_index_in_dim", "dynamic_update_slice", "dynamic_update_slice_in_dim",
            "dynamic_update_index_in_dim", "index_in_dim", "gather", "scatter", "scatter_add",
            "scatter_mul", "scatter_min", "scatter_max", "scatter_apply")
STRUCTURE = ("rev", "pad", "concatenate", "sort", "sort_key_val", "top_k", "dot_general",
             "dot", "select", "select_n", "clamp", "reshape", "transpose", "broadcast_in_dim",
             "squeeze", "expand_dims", "cumsum", "cumprod", "cummax", "cummin", "argmax",
             "argmin", "reduce_sum", "reduce_max", "reduce_min", "reduce_prod")
CONTROL = ("cond", "switch", "fori_loop", "while_loop", "scan", "map")


def _lax_functions() -> dict[int, str]:
    import jax.lax as lax
    return {id(fn): name for name, fn in vars(lax).items()
            if not name.startswith("_") and callable(fn) and not isinstance(fn, type)}


def on_jax(fn):
    """``fn`` run on NumPy examples as JAX runs it in the generated code: the examples made
    ``jax.Array`` s (Python numbers and functions passed as they are), 64-bit types enabled,
    the result's leaves NumPy examples again."""
    def run(*args, **kwargs):
        import jax
        import jax.numpy as jnp

        def to_jax(leaf):
            return jnp.asarray(leaf) if isinstance(leaf, (np.ndarray, np.generic)) else leaf

        def to_numpy(leaf):
            if isinstance(leaf, jax.Array):
                out = np.asarray(leaf)
                return out[()] if out.ndim == 0 else out
            return leaf
        if any(leaf is UNKNOWN for leaf in jax.tree_util.tree_leaves((args, kwargs))):
            # (not a TypeError: the analysis refuses those as raising per example; `infer`
            # refuses an operand it cannot tell)
            raise LookupError("an operand the engine cannot tell")
        with jax.enable_x64(True):
            args, kwargs = jax.tree_util.tree_map(to_jax, (args, kwargs))
            return jax.tree_util.tree_map(to_numpy, fn(*args, **kwargs))
    run.__name__ = getattr(fn, "__name__", "lax")
    return run


def _example(value):
    if isinstance(value, TupleValue):
        items = tuple(_example(item) for item in value.items)
        if value.keys is not None and value.kind is not None and issubclass(value.kind, dict):
            return value.kind(zip(value.keys, items))
        if value.kind is list:
            return list(items)
        if value.kind is not None and hasattr(value.kind, "_fields"):
            return value.kind(*items)
        return items
    return value.example


def _known(value) -> bool:
    if isinstance(value, TupleValue):
        return all(_known(item) for item in value.items)
    return value.known


def _axes(value):
    """``jax.vmap``'s ``in_axes`` entry of an operand: 0 where per example, None where the same
    for every example, a tuple of them for a tuple of values tracked one by one."""
    if isinstance(value, TupleValue):
        if not value.batched:
            return None
        if value.kind not in (None, tuple, list):
            return 0 if all(isinstance(i, Value) and i.batched for i in value.items) else \
                _refuse_tree(value)
        axes = tuple(_axes(item) for item in value.items)
        if all(a == 0 for a in axes):
            return 0
        return list(axes) if value.kind is list else axes
    return 0 if value.batched else None


def _refuse_tree(value):
    raise Unsupported("a `jax.lax` operand that is a dict or namedtuple of values some of "
                      "which are per example and some not",
                      suggestion="pass the per-example values in a tuple")


def _name(rule_name: str, site: Site) -> str:
    return f"`{cst.Module([]).code_for_node(site.original.func)}`" \
        if isinstance(site.original, cst.Call) else rule_name


def infer(site: Site):
    """The call run on the examples as JAX runs it (`on_jax`)."""
    values = list(site.args) + [v for _, v in site.kwargs.values()]
    if any(not isinstance(v, (Value, TupleValue)) or not _known(v) for v in values):
        raise Unsupported(f"{_name('the call', site)} of an operand the engine cannot tell "
                          "(a lambda reading the function's values, or a value of a call it "
                          "cannot look into)", site.original,
                          "pass the function's values to it as operands")
    try:
        out = on_jax(site.func)(*[_example(v) for v in site.args],
                                **{k: _example(v) for k, (_, v) in site.kwargs.items()})
    except Exception as error:     # what the per-example call raises, for every example
        raise Unsupported(f"{_name('the call', site)} raises on the examples "
                          f"({type(error).__name__}: {str(error).splitlines()[0][:200]})",
                          site.original, kind="raises") from None
    return result_value(out)


def _unused(node: cst.CSTNode, count: int) -> list[str]:
    """``count`` parameter names no name in ``node`` is spelled as."""
    taken = {n.value for n in _names(node)}
    out, k = [], 0
    while len(out) < count:
        name = f"x{k}"
        if name not in taken:
            out.append(name)
        k += 1
    return out


def _names(node):
    class Collect(cst.CSTVisitor):
        def __init__(self):
            self.found = []

        def visit_Name(self, n):
            self.found.append(n)
    c = Collect()
    node.visit(c)
    return c.found


def lifted(site: Site) -> cst.BaseExpression:
    """``jax.vmap(lambda <per-example operands>: <the call>, in_axes=...)(<their batches>)``:
    the call with each operand that holds per-example values replaced by a parameter."""
    call = site.node
    positional = [a for a in call.args if a.keyword is None]
    if any(a.star for a in call.args) or len(positional) != len(site.nodes):
        raise Unsupported("`*`/`**` unpacking in a call of `jax.lax`", site.original,
                          "pass the arguments one by one")
    lifted_args, passed, axes = [], [], []
    slots = []
    for k, arg in enumerate(call.args):
        if arg.keyword is None:
            value, node = site.args[k], site.nodes[k]
        else:
            node, value = site.kwargs[arg.keyword.value]
            node = arg.value if node is None else node
        spec = _axes(value)
        slots.append((arg, node, spec))
    names = iter(_unused(call, sum(spec is not None for _, _, spec in slots)))
    params = []
    for arg, node, spec in slots:
        if spec is None:
            lifted_args.append(arg.with_changes(value=node))
            continue
        name = next(names)
        params.append(name)
        passed.append(node)
        axes.append(spec)
        lifted_args.append(arg.with_changes(value=cst.Name(name)))
    return _vmapped(call.with_changes(args=lifted_args), params, passed, axes)


def _vmapped(body, params, passed, axes) -> cst.Call:
    """``jax.vmap(lambda <params>: <body>, in_axes=<axes>)(<passed>)``."""
    lam = cst.Lambda(params=cst.Parameters(params=[cst.Param(cst.Name(p)) for p in params]),
                     body=body)
    vmap_args = [cst.Arg(lam)]
    if any(a != 0 for a in axes):
        vmap_args.append(cst.Arg(cst.parse_expression(repr(tuple(axes))),
                                 keyword=cst.Name("in_axes"),
                                 equal=cst.AssignEqual(cst.SimpleWhitespace(""),
                                                       cst.SimpleWhitespace(""))))
    vmap = cst.Call(func=cst.Attribute(cst.Name("jax"), cst.Name("vmap")), args=vmap_args)
    return cst.Call(func=vmap, args=[cst.Arg(n) for n in passed])


def _index_of(site: Site):
    """The index of ``x.at[index]`` on the examples: the elements' examples, a slice as
    written (its bounds literal ints)."""
    import ast
    elements = site.original.func.value.slice
    values = iter(site.args[1:])
    out = []
    for element in elements:
        if isinstance(element.slice, cst.Index):
            out.append(_example(next(values)))
            continue
        try:
            bounds = [None if b is None else ast.literal_eval(cst.Module([]).code_for_node(b))
                      for b in (element.slice.lower, element.slice.upper,
                                element.slice.step)]
            if not all(b is None or type(b) is int for b in bounds):
                raise ValueError
            out.append(slice(*bounds))
        except (ValueError, SyntaxError):
            raise Unsupported("a slice in `.at[]` whose bounds are not literal ints",
                              site.original, "write its bounds as numbers, or use "
                                             "lax.dynamic_slice") from None
    return out[0] if len(elements) == 1 and isinstance(elements[0].slice, cst.Index) and \
        elements[0].comma is cst.MaybeSentinel.DEFAULT else tuple(out)


def infer_indexed_update(site: Site):
    """``x.at[index].op(...)`` run on the examples as JAX runs it."""
    count = sum(p is not None for p in site.parts)
    values = list(site.args) + [v for _, v in site.kwargs.values()]
    if any(not isinstance(v, (Value, TupleValue)) or not _known(v) for v in values):
        raise Unsupported("`.at[]` of an operand the engine cannot tell", site.original)
    index = _index_of(site)
    op = site.func

    def update(x, *args, **kwargs):
        return getattr(x.at[index], op)(*args, **kwargs)
    try:
        out = on_jax(update)(_example(site.args[0]),
                             *[_example(v) for v in site.args[1 + count:]],
                             **{k: _example(v) for k, (_, v) in site.kwargs.items()})
    except Exception as error:
        raise Unsupported(f"`.at[...].{op}()` raises on the examples "
                          f"({type(error).__name__}: {str(error).splitlines()[0][:200]})",
                          site.original, kind="raises") from None
    return result_value(out)


def indexed_update(site: Site) -> cst.BaseExpression:
    """``x.at[index].op(args)`` with the per-example operands (``x``, the index's elements,
    the arguments) lifted into a ``jax.vmap`` (`lifted`)."""
    call = site.node
    sub = call.func.value
    specs = [_axes(v) for v in site.args] + [_axes(v) for _, v in site.kwargs.values()]
    names = iter(_unused(call, sum(s is not None for s in specs)))
    params, passed, axes = [], [], []

    def lift(node, value):
        spec = _axes(value)
        if spec is None:
            return node
        name = next(names)
        params.append(name)
        passed.append(node)
        axes.append(spec)
        return cst.Name(name)
    operands = iter(zip(site.nodes, site.args))
    x = lift(*next(operands))
    elements = [e.with_changes(slice=e.slice.with_changes(value=lift(*next(operands))))
                if isinstance(e.slice, cst.Index) else e for e in sub.slice]
    args = [a.with_changes(value=lift(*next(operands))) if a.keyword is None else
            a.with_changes(value=lift(*site.kwargs[a.keyword.value])) for a in call.args]
    body = call.with_changes(func=call.func.with_changes(value=sub.with_changes(
        value=sub.value.with_changes(value=x), slice=elements)), args=args)
    return _vmapped(body, params, passed, axes)


INDEXED_UPDATE_RULE = Rule(
    name="jax.indexed_update", family=FAMILY,
    explanation="`x.at[index].set(v)` (`.add`, `.multiply`, `.min`, `.max`, `.get`...) with a "
                "per-example array, index or value: mapped by `jax.vmap` (JAX's batching "
                "rule: a scatter or gather with the batch as one more dimension; negative "
                "indices wrap, out-of-bounds updates are dropped and reads clamped, as per "
                "example).",
    before="x.at[i].set(v)",
    after="jax.vmap(lambda x0, x1, x2: x0.at[x1].set(x2))(x, i, v)",
    rewrite=indexed_update, infer=infer_indexed_update)


def _rule(name: str, explanation: str, before: str, after: str) -> Rule:
    return Rule(name=name, family=FAMILY, explanation=explanation, before=before,
                after=after, rewrite=lifted, infer=infer, takes_trees=True)


INDEXING_RULE = _rule(
    "lax.indexing",
    "`jax.lax` slices, dynamic slices and updates, gathers and scatters of per-example "
    "values: the call mapped by `jax.vmap` (JAX's batching rule: a gather or scatter with "
    "the batch as one more dimension; out-of-bounds offsets clamped as per example).",
    "lax.dynamic_slice(v, (i,), (2,))",
    "jax.vmap(lambda x0, x1: lax.dynamic_slice(x0, x1, (2,)))(v, (i,))")
STRUCTURE_RULE = _rule(
    "lax.structure",
    "`jax.lax` reversals, pads, concatenations, sorts, contractions (`dot_general`) and "
    "selects of per-example values: the call mapped by `jax.vmap` (JAX's batching rule: the "
    "dimensions numbered past the batch axis, unbatched operands broadcast).",
    "lax.rev(v, (0,))",
    "jax.vmap(lambda x0: lax.rev(x0, (0,)))(v)")
CONTROL_RULE = _rule(
    "lax.control_flow",
    "`lax.cond`, `lax.switch`, `lax.fori_loop`, `lax.while_loop`, `lax.scan` and `lax.map` "
    "on per-example operands, predicates or bounds: mapped by `jax.vmap` (JAX's batching "
    "rule: a per-example predicate runs both branches and selects; a loop runs until no "
    "lane goes on, each lane's carry kept where its own loop stopped).",
    "lax.fori_loop(0, n, lambda i, a: a + i, x)",
    "jax.vmap(lambda x0, x1: lax.fori_loop(0, x0, lambda i, a: a + i, x1))(n, x)")
FUNCTION_RULE = _rule(
    "lax.function",
    "Every other `jax.lax` function (elementwise `lax.sin`, `lax.add`, conversions, "
    "reductions) of per-example values: the call mapped by `jax.vmap`.",
    "lax.sin(x)",
    "jax.vmap(lambda x0: lax.sin(x0))(x)")


def register(reg: Registry) -> None:
    """The `jax.lax` rules, looked up before any other family (`refuse_jax` among them)."""
    functions = _lax_functions()
    groups = {name: rule for names, rule in ((INDEXING, INDEXING_RULE),
                                              (STRUCTURE, STRUCTURE_RULE),
                                              (CONTROL, CONTROL_RULE)) for name in names}

    def shadowed(rule, fn):
        import dataclasses
        return dataclasses.replace(rule, shadow=on_jax(fn))
    import jax.lax as lax
    for name, fn in vars(lax).items():
        if id(fn) in functions and not reg.registered(fn):
            rule = groups.get(name, FUNCTION_RULE)
            reg.add_unlisted(fn, shadowed(rule, fn))
    for rule in (INDEXING_RULE, STRUCTURE_RULE, CONTROL_RULE, FUNCTION_RULE):
        reg.list_rule(rule)
    reg.indexed_update = INDEXED_UPDATE_RULE
    reg.list_rule(INDEXED_UPDATE_RULE)


# ------------------------------------------------------------ the other backends
JAX_FUNCTION = Rule(
    name="refused.jax_function", family=FAMILY,
    explanation="A function of `jax` (`jax.lax`, `jax.numpy`) called on per-example values "
                "is refused by the NumPy and PyTorch backends (its arguments would be "
                "converted to JAX arrays per example): the JAX backend batches it.",
    before="lax.rev(v, (0,))", after="(refused: backend=\"jax\")",
    rewrite=lambda site: _refuse(site), infer=lambda site: _refuse(site),
    shadow=lambda *args, **kwargs: _not_computed())


def _not_computed():
    # (a call the same for every example is left as written, its value unknown to the
    # analysis, as before the rule: the NumPy backend never computes on JAX's arrays)
    raise LookupError("a function of jax")


def _refuse(site: Site):
    raise Unsupported(f"{_name('a function of `jax`', site)} is JAX's: the "
                      f"{site.spelled.name if site.backend is not None else 'numpy'} backend "
                      "does not batch it", site.original,
                      "pass jax.Array arguments or backend=\"jax\" (the JAX backend maps it "
                      "with jax.vmap's own batching rule)")


def is_jax_function(fn) -> bool:
    """Whether ``fn`` is a function of ``jax`` (without importing it)."""
    module = getattr(fn, "__module__", None) or ""
    return (module == "jax" or module.startswith("jax.")) and callable(fn)


def refuse_jax(reg: Registry) -> None:
    """A located refusal of ``jax`` functions for a backend other than JAX's."""
    reg.add_family(is_jax_function, JAX_FUNCTION)

