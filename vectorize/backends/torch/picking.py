"""The torch table of picking, repeating and differencing per-example tensors, and of lookups in
shared sorted tables: ``torch.take``, ``torch.tile``, ``torch.repeat_interleave``,
``torch.diff``, ``torch.searchsorted``, ``torch.bucketize`` (NumPy's are in
`vectorize.backends.numpy.picking`).

Dims count per example and are shifted past the batch dim (`dims.shifted`); what decides the
per-example shape (``tile``'s reps, ``repeat_interleave``'s counts, ``diff``'s order) must be
a constant written in the function or a tensor the same for every example. A shared sorted
table looked up by per-example values is elementwise in them: the call stays as written.
"""

from __future__ import annotations

from ...abstract import TupleValue, Value
from ...errors import Unsupported
from ...rules.axes import argument as _arg
from ...rules.registry import Registry, Rule, Site
from ...syntax.templates import expr
from .common import per_example, shadow
from .dims import shifted


def _constant(value, what: str):
    """The value of a constant argument (a tuple display's items too)."""
    if isinstance(value, TupleValue):
        return tuple(_constant(item, what) for item in value.items)
    if not isinstance(value, Value) or value.batched or not value.exact:
        raise Unsupported(f"{what} must be a constant written in the function (or an "
                          "argument that is not mapped)", suggestion=f"write {what} out")
    return value.example


def _is_method(site: Site) -> bool:
    return isinstance(site.func, str)


def _name(site: Site, name: str) -> str:
    return f"`.{name}()`" if _is_method(site) else f"`torch.{name}`"


def _flat(x, rank: int):
    return expr("{x}.flatten(1)", x=x) if rank else expr("{x}.reshape(len({x}), 1)", x=x)


def _shared(site: Site, position: int, key: str, what: str):
    """(node, value) of an argument that must be the same for every example."""
    node, value = _arg(site, position, key)
    if value is not None and value.batched:
        raise Unsupported(f"{what} differs per example, so the examples would have different "
                          "shapes", suggestion=f"write {what} as a constant")
    return node, value


def _take(site: Site):
    x, xv = site.nodes[0], site.args[0]
    i, iv = _arg(site, 1, "index")
    if iv is None:
        raise Unsupported("`torch.take` without its index")
    if not xv.batched:
        # a shared tensor picked by per-example indices: its flat items, the indices' shape
        return site.node
    flat = _flat(x, xv.rank)
    if not iv.batched:
        return expr("{f}[:, {i}]", f=flat, i=i)
    lanes = site.spelled.lanes_index("{x}")
    if iv.rank:
        lanes = f"{lanes}.view(-1{', 1' * iv.rank})"
    return expr("{f}[" + lanes + ", {i}]", f=flat, x=x, i=i)


def _tile(site: Site):
    x, xv = site.nodes[0], site.args[0]
    if not xv.batched:
        raise Unsupported("`torch.tile` of a tensor the same for every example by per-example "
                          "repetitions")
    if _is_method(site) and len(site.args) > 2:     # x.tile(2, 3)
        reps = tuple(_constant(v, "the repetitions") for v in site.args[1:])
    else:
        _, value = _shared(site, 1, "dims", "the repetitions")
        reps = _constant(value, "the repetitions")
        reps = tuple(reps) if isinstance(reps, (tuple, list)) else (reps,)
    full = max(xv.rank, len(reps))
    reps = (1,) * (full - len(reps)) + tuple(int(r) for r in reps)
    if full > xv.rank:
        x = expr("{x}[:, " + ", ".join(["None"] * (full - xv.rank)) + "]", x=x)
    return expr(f"{{x}}.tile({(1,) + reps!r})", x=x)


def _repeat_interleave(site: Site):
    x, xv = site.nodes[0], site.args[0]
    name = _name(site, "repeat_interleave")
    r, rv = _shared(site, 1, "repeats", "the number of repeats")
    if rv is None:
        raise Unsupported(f"{name} of the counts alone (each example would get a different "
                          "length)")
    if not xv.batched:
        raise Unsupported(f"{name} of a tensor the same for every example")
    if not rv.exact and rv.rank == 0:
        _constant(rv, "the number of repeats")
    _, dv = _shared(site, 2, "dim", "the dim")
    dim = None if dv is None else _constant(dv, "the dim")
    for key in ("output_size",):
        if key in site.kwargs:
            raise Unsupported(f"{name} with `{key}`", suggestion="leave it out")
    if dim is None:
        return expr("torch.repeat_interleave({x}, {r}, dim=1)", x=_flat(x, xv.rank), r=r)
    if xv.rank == 0:
        raise Unsupported(f"{name} along a dim of a per-example 0-d tensor")
    return expr(f"torch.repeat_interleave({{x}}, {{r}}, dim={shifted(dim, xv.rank)})", x=x, r=r)


def _diff(site: Site):
    x, xv = site.nodes[0], site.args[0]
    name = _name(site, "diff")
    if not xv.batched:
        p = next(node for key in ("prepend", "append")
                 for node, value in [_arg(site, 3 if key == "prepend" else 4, key)]
                 if value is not None and value.batched)
        x = expr("{x}.expand(len({p}), *{x}.shape)", x=x, p=p)
    rank = xv.rank
    if rank == 0:
        raise Unsupported(f"{name} of a per-example 0-d tensor (PyTorch raises per example)",
                          kind="raises")
    _, nv = _shared(site, 1, "n", "the order `n`")
    n = 1 if nv is None else _constant(nv, "the order `n`")
    _, dv = _shared(site, 2, "dim", "the dim")
    dim = -1 if dv is None else _constant(dv, "the dim")
    extra, nodes = "", {"x": x}
    for key, position in (("prepend", 3), ("append", 4)):
        node, value = _arg(site, position, key)
        if value is None or (isinstance(value, Value) and value.exact
                             and value.example is None):
            continue        # not given, or given as None
        if value.rank != rank:
            raise Unsupported(f"{name} with a `{key}` of {value.rank} dims for per-example "
                              f"tensors of {rank} (PyTorch raises per example)", kind="raises")
        if not value.batched:
            node = expr("{p}.expand(len({x}), *{p}.shape)", p=node, x=x)
        extra += f", {key}={{{key}}}"
        nodes[key] = node
    order = f", n={int(n)}" if n != 1 else ""
    return expr(f"torch.diff({{x}}{order}, dim={shifted(dim, rank)}{extra})", **nodes)


def _sorted_table(name: str, table: int, table_key: str):
    def rewrite(site: Site):
        _, value = _arg(site, table, table_key)
        if value is not None and value.batched:
            raise Unsupported(f"`torch.{name}` in a per-example table: only the looked-up "
                              "values may differ per example",
                              suggestion="pass a table the same for every example")
        if value is not None and value.rank > 1:
            raise Unsupported(f"`torch.{name}` in a table of {value.rank} dims with "
                              "per-example values", suggestion="look up in a 1-d table")
        for key, (_, v) in site.kwargs.items():
            if key != table_key and v.batched and key not in ("input", "self"):
                raise Unsupported(f"a per-example `{key}=` of `torch.{name}`")
        return site.node
    return rewrite


def register_picking(reg: Registry, torch) -> None:
    def add(name, rule, functions=True, methods=True):
        fn = getattr(torch, name)
        if functions:
            reg.add_call(fn, Rule(*rule, infer=per_example(fn), shadow=shadow(fn)))
        if methods and hasattr(torch.Tensor, name):
            reg.add_method(name, Rule(*rule, infer=per_example(name, f"`.{name}()`"),
                                      shadow=shadow(name)))

    add("take", ("torch.take", "picking", "`torch.take(x, i)` picks from each example "
                 "flattened: a shared `i` picks the same items of every example, a per-example "
                 "`i` one gather by lane and index; a shared `x` picked by per-example `i` as "
                 "written.", "y = torch.take(m, k)",
                 "y = m.flatten(1)[torch.arange(len(m), device=m.device), k]", _take))
    add("tile", ("torch.tile", "picking", "`torch.tile(x, reps)` / `x.tile(reps)` with "
                 "constant reps (padded as PyTorch pads them; the batch dim tiled once).",
                 "y = torch.tile(v, (2, 1))", "y = v[:, None].tile((1, 2, 1))", _tile))
    add("repeat_interleave", (
        "torch.repeat_interleave", "picking", "`torch.repeat_interleave(x, r, dim)` with "
        "counts the same for every example (`dim=None`: each example flattened).",
        "y = torch.repeat_interleave(v, 2)", "y = torch.repeat_interleave(v, 2, dim=1)",
        _repeat_interleave))
    add("diff", ("torch.diff", "picking", "`torch.diff(x, n, dim, prepend, append)` of each "
                 "example with a constant order; a shared `prepend`/`append` given to every "
                 "example.", "d = torch.diff(v, prepend=w)",
                 "d = torch.diff(v, dim=1, prepend=w.expand(len(v), *w.shape))", _diff))
    add("searchsorted", ("torch.searchsorted", "picking", "`torch.searchsorted(edges, x)` of "
                         "per-example `x` in a shared 1-d sorted table: elementwise in `x`, "
                         "as written.", "k = torch.searchsorted(edges, x)",
                         "k = torch.searchsorted(edges, x)",
                         _sorted_table("searchsorted", 0, "sorted_sequence")), methods=False)
    add("bucketize", ("torch.bucketize", "picking", "`torch.bucketize(x, edges)` of "
                      "per-example `x` in a shared 1-d table of edges: elementwise in `x`, as "
                      "written.", "k = torch.bucketize(x, edges)", "k = torch.bucketize(x, "
                      "edges)", _sorted_table("bucketize", 1, "boundaries")), methods=False)
