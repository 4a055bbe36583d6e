"""Picking, repeating and differencing per-example arrays, and looking values up in shared
tables: ``np.take``, ``np.diagonal``, ``np.tile``, ``np.repeat``, ``np.diff``, ``np.interp``,
``np.searchsorted``, ``np.polyval``.

Axes count per example and are shifted past the batch axis (`rules.axes.shift_axis`); what
decides the per-example shape (``tile``'s reps, ``repeat``'s counts, ``diagonal``'s offset,
``diff``'s order) must be a constant written in the function, since every example must have
the same shape. A table the same for every example (``np.interp(x, xp, fp)``,
``np.searchsorted(edges, x)``) is looked up by every lane at once: both functions are
elementwise in their per-example argument, so the call stays as written. A per-example index
picks with a per-lane gather (``a[np.arange(len(a))[:, None], i]``), which raises IndexError
where NumPy raises per example.
"""

from __future__ import annotations

import numpy as np

from ...abstract import UNKNOWN, batched_like
from ...errors import Unsupported
from ...rules.axes import argument as _arg
from ...rules.axes import constant as _const
from ...rules.axes import flattened, positive, shift_axis
from ...rules.registry import Registry, Rule, Site, evaluate, infer_by_calling
from ...syntax.templates import expr


def _method_or(fn, method: str):
    """``fn`` for the function spelling, ``x.method(...)`` for the method one."""
    def call(x, *args, **kwargs):
        return getattr(np.asarray(x), method)(*args, **kwargs)
    call.__name__ = method
    return call


def _shape_argument(site: Site, position: int, name: str, default, what: str):
    """A constant argument that decides the per-example shape (refused where it differs per
    example or is not known when the code is written)."""
    node, value = _arg(site, position, name)
    if value is None:
        return default
    if value.batched:
        raise Unsupported(f"{what} differs per example, so the examples would have different "
                          "shapes", suggestion=f"write {what} as a constant")
    return _const(value, what)


def _per_example_array(site: Site, what: str):
    if not site.args[0].batched:
        raise Unsupported(f"`{what}` of an array the same for every example with a "
                          "per-example option (each example would get a different shape)",
                          suggestion="compute it before the per-example code")
    return site.nodes[0], site.args[0].rank, np.shape(site.args[0].example)


def _array_operand(site: Site, node):
    """A list or tuple display passed where an array is expected, as an array for a namespace
    that takes only arrays there (``jnp.take``, ``jnp.repeat``)."""
    import libcst as cst
    if type(node) in (cst.List, cst.Tuple) and site.spelled.name != "numpy":
        return expr("np.asarray({v})", v=node)
    return node


# --------------------------------------------------------------------------- take


def _integer_indices(value, what: str) -> None:
    kind = np.asarray(value.example).dtype.kind if value.known else "i"
    if kind not in "iu":
        raise Unsupported(f"`{what}` with indices of dtype kind {kind!r} (NumPy raises per "
                          "example: indices must be integers)", suggestion="cast with int()",
                          kind="raises")


def _checked(site: Site, i, size, a=None, dim=None):
    """Indices ``i`` into an axis of ``size`` as the backend checks them (JAX clamps where
    NumPy raises IndexError: `Backend.checked_index`). Where the array ``a`` is a name, the
    size is read from it (``a.shape[dim]``, ``a.size`` for a ``dim`` of None): a
    specialization is made for the arguments' ranks, not their shapes."""
    if size is None:
        return i
    import libcst as cst
    if type(a) is cst.Name:
        size = f"{a.value}.size" if dim is None else f"{a.value}.shape[{dim}]"
    return expr(site.spelled.checked_index("{k}", size if type(size) is str else int(size)),
                k=i)


def _gather(site: Site, a, axis: int, i, i_rank: int, mode, size):
    """Per lane ``np.take(a_e, i_e, axis)`` of a batched ``a`` and batched indices ``i``
    (``axis`` counted per example from 0): a gather by the lane number and the index."""
    if mode == "wrap":
        i = expr("{i} % {a}.shape[" + str(axis + 1) + "]", i=i, a=a)
    elif mode == "clip":
        i = expr("np.clip({i}, 0, {a}.shape[" + str(axis + 1) + "] - 1)", i=i, a=a)
    else:
        i = _checked(site, i, size, a, axis + 1)
    lanes = site.spelled.lanes_index("{a}")
    if i_rank:
        lanes = lanes + "[:, " + ", ".join(["None"] * i_rank) + "]"
    picked = expr("{a}[" + lanes + ", " + ":, " * axis + "{i}]", a=a, i=i)
    if axis == 0 or i_rank == 0:
        return picked
    # (advanced indices apart from each other put the index's axes first)
    moved = list(range(1, 1 + i_rank))
    to = list(range(1 + axis, 1 + axis + i_rank))
    if i_rank == 1:
        moved, to = moved[0], to[0]
    return expr(f"np.moveaxis({{p}}, {moved!r}, {to!r})", p=picked)


def _take(site: Site):
    name = "np.take" if not isinstance(site.func, str) else ".take()"
    (a, a_value) = site.nodes[0], site.args[0]
    i_node, i_value = _arg(site, 1, "indices")
    if i_value is None:
        raise Unsupported(f"`{name}` without indices")
    i_node = _array_operand(site, i_node)
    _integer_indices(i_value, name)
    axis = _shape_argument(site, 2, "axis", None, "the axis")
    if "out" in site.kwargs or len(site.args) > 3:
        raise Unsupported(f"`{name}` with `out=`", suggestion="assign the result instead")
    mode = _shape_argument(site, 4, "mode", "raise", "the mode")
    if mode not in ("raise", "wrap", "clip"):
        raise Unsupported(f"`{name}` with mode {mode!r}")
    mode_code = "" if mode == "raise" else f", mode={mode!r}"
    rank = a_value.rank
    shape = np.shape(a_value.example) if a_value.known else None

    def size(k):
        if shape is None:
            return None
        return int(np.prod(shape)) if k is None else shape[k]

    if not a_value.batched:
        # a shared table picked by per-example indices: the indices' axes come where the
        # axis was, so the batch axis (their first) is moved to the front
        if mode == "raise":
            dim = None if axis is None else positive(axis, rank)
            i_node = _checked(site, i_node, size(dim), a, dim)
        if axis is None:
            return expr(f"np.take({{a}}, {{i}}{mode_code})", a=a, i=i_node)
        k = positive(axis, rank)
        taken = expr(f"np.take({{a}}, {{i}}, axis={k}{mode_code})", a=a, i=i_node)
        return taken if k == 0 else expr(f"np.moveaxis({{t}}, {k}, 0)", t=taken)
    if axis is None:
        n = size(None)
        a, rank, axis = flattened(a, rank), 1, 0
    elif rank == 0:
        raise Unsupported(f"`{name}` along an axis of a per-example scalar (NumPy raises per "
                          "example)", kind="raises")
    else:
        axis = positive(axis, rank)
        n = size(axis)
    if not i_value.batched:
        if mode == "raise":
            i_node = _checked(site, i_node, n, a, axis + 1)
        return expr(f"np.take({{a}}, {{i}}, axis={axis + 1}{mode_code})", a=a, i=i_node)
    return _gather(site, a, axis, i_node, i_value.rank, mode, n)


def _take_infer(fn):
    def infer(site: Site):
        args = [v.example for v in site.args]
        kw = {k: v.example for k, (_, v) in site.kwargs.items()}
        out = evaluate(fn, *args, **kw)
        if out is UNKNOWN and len(args) > 1:
            # (the indices' representative, 1, may be out of range for a short axis)
            out = evaluate(fn, args[0], np.zeros_like(args[1]), *args[2:], **kw)
        return batched_like(out)
    return infer


# --------------------------------------------------------------------------- diagonal, trace


def _diagonal_axes(site: Site, first: int, what: str):
    """(offset, axis1, axis2) of ``diagonal``/``trace``, the axes shifted past the batch."""
    rank = site.args[0].rank
    if rank < 2:
        raise Unsupported(f"`{what}` of a per-example value of rank {rank} (NumPy raises per "
                          "example: it needs at least two axes)", kind="raises")
    offset = _shape_argument(site, first, "offset", 0, "the offset")
    axis1 = _shape_argument(site, first + 1, "axis1", 0, "axis1")
    axis2 = _shape_argument(site, first + 2, "axis2", 1, "axis2")
    a1, a2 = positive(axis1, rank), positive(axis2, rank)
    if a1 == a2:
        raise Unsupported(f"`{what}` with axis1 == axis2 (NumPy raises per example)", kind="raises")
    return offset, shift_axis(a1, rank), shift_axis(a2, rank)


def _diagonal(site: Site):
    offset, a1, a2 = _diagonal_axes(site, 1, "np.diagonal")
    off = f"{offset}, " if offset else ""
    return expr(f"np.diagonal({{m}}, {off}axis1={a1}, axis2={a2})", m=site.nodes[0])


def trace(site: Site):
    offset, a1, a2 = _diagonal_axes(site, 1, "np.trace")
    extra = ""
    for key, position in (("dtype", 4),):
        node, value = _arg(site, position, key)
        if value is not None:
            if value.batched:
                raise Unsupported("a per-example dtype")
            extra += ", " + key + "={" + key + "}"
    if "out" in site.kwargs or len(site.args) > 5:
        raise Unsupported("`np.trace` with `out=`", suggestion="assign the result instead")
    off = f"{offset}, " if offset else ""
    nodes = {"m": site.nodes[0]}
    if extra:
        nodes["dtype"] = _arg(site, 4, "dtype")[0]
    return expr(f"np.trace({{m}}, {off}axis1={a1}, axis2={a2}{extra})", **nodes)


# --------------------------------------------------------------------------- tile, repeat


def _tile(site: Site):
    x, rank, _ = _per_example_array(site, "np.tile")
    reps = _shape_argument(site, 1, "reps", None, "the repetitions")
    if reps is None:
        raise Unsupported("`np.tile` without repetitions")
    reps = tuple(reps) if isinstance(reps, (tuple, list)) else (reps,)
    if not all(isinstance(r, (int, np.integer)) and not isinstance(r, bool) for r in reps):
        raise Unsupported(f"`np.tile` by {reps!r}: the repetitions must be integers")
    full = max(rank, len(reps))
    reps = (1,) * (full - len(reps)) + tuple(int(r) for r in reps)
    if full > rank:       # the example gets leading axes of length 1 first
        x = expr("{x}[:, " + ", ".join(["None"] * (full - rank)) + "]", x=x)
    return expr(f"np.tile({{x}}, {(1,) + reps!r})", x=x)


def _repeat(site: Site):
    name = "np.repeat" if not isinstance(site.func, str) else ".repeat()"
    x, rank, _ = _per_example_array(site, name)
    node, value = _arg(site, 1, "repeats")
    if value is None:
        raise Unsupported(f"`{name}` without repeats")
    if value.batched:
        raise Unsupported(f"`{name}` by per-example counts: the examples would have "
                          "different lengths", suggestion="write the counts as constants")
    _const(value, "the repeats")
    node = _array_operand(site, node)
    axis = _shape_argument(site, 2, "axis", None, "the axis")
    if axis is None:
        return expr("np.repeat({x}, {r}, axis=1)", x=flattened(x, rank), r=node)
    if rank == 0:
        raise Unsupported(f"`{name}` along an axis of a per-example scalar")
    return expr(f"np.repeat({{x}}, {{r}}, axis={shift_axis(axis, rank)})", x=x, r=node)


# --------------------------------------------------------------------------- diff


def _diff(site: Site):
    x, rank = site.nodes[0], site.args[0].rank
    dims = np.shape(site.args[0].example)
    if not site.args[0].batched:
        # a shared array with a per-example `prepend`/`append`: the array for every lane
        p = next(node for key in ("prepend", "append")
                 for node, value in [_arg(site, 99, key)] if value is not None and value.batched)
        x = expr("np.broadcast_to({x}, (len({p}),) + np.shape({x}))", x=x, p=p)
    if rank == 0:
        raise Unsupported("`np.diff` of a per-example scalar (NumPy raises per example)",
                          kind="raises")
    n = _shape_argument(site, 1, "n", 1, "the order `n`")
    axis = _shape_argument(site, 2, "axis", -1, "the axis")
    if not isinstance(n, (int, np.integer)) or n < 0:
        raise Unsupported(f"`np.diff` of order {n!r} (NumPy raises per example)", kind="raises")
    k = positive(axis, rank)
    extra, nodes = "", {"x": x}
    for key in ("prepend", "append"):
        node, value = _arg(site, 99, key)
        if value is None:
            continue
        if value.rank == 0 and value.batched:
            # a per-example number: NumPy broadcasts it to the example's shape but along the
            # axis, per example
            if rank == 1:
                node = expr("{p}[:, None]", p=node)
            else:
                ones = ", ".join(["1"] * rank)
                dims_code = ", ".join("1" if d == k else str(size) for d, size in enumerate(dims))
                node = expr(f"np.broadcast_to({{p}}.reshape(-1, {ones}), (len({{p}}), "
                            f"{dims_code}))", p=node)
        elif value.rank == rank and not value.batched:
            # an array the same for every example: given to every lane
            node = _array_operand(site, node)
            node = expr("np.broadcast_to({p}, (len({x}),) + np.shape({p}))", p=node, x=x)
        elif value.rank not in (0, rank):
            raise Unsupported(f"`np.diff` with a `{key}` of rank {value.rank} for a per-example "
                              f"array of rank {rank} (NumPy raises per example)", kind="raises")
        extra += f", {key}={{{key}}}"
        nodes[key] = node
    order = f", n={int(n)}" if n != 1 else ""
    return expr(f"np.diff({{x}}{order}, axis={shift_axis(k, rank)}{extra})", **nodes)


# --------------------------------------------------------------------------- shared tables


def _shared_table(name: str, table_positions: dict, lookup: int):
    """``name(...)`` with per-example values only at position ``lookup`` (elementwise in
    them): the call stays as written; a per-example table is refused."""
    def rewrite(site: Site):
        for key, position in table_positions.items():
            _, value = _arg(site, position, key)
            if value is not None and value.batched:
                raise Unsupported(
                    f"`{name}` with a per-example `{key}`: only the looked-up values may "
                    "differ per example", suggestion=f"pass a `{key}` the same for every "
                    "example (a module-level table or an argument that is not mapped)")
        return site.node
    return rewrite


def _polyval(site: Site):
    """``np.polyval(p, x)``. Coefficients the same for every example (a module-level table):
    elementwise in ``x``, so the call stays as written. Per-example coefficient vectors:
    NumPy's own Horner steps (``y = zeros_like(x)``, then ``y = y * x + c`` for each
    coefficient), written out over the coefficient axis, so each lane computes what the
    example computes."""
    if len(site.nodes) != 2 or site.kwargs:
        raise Unsupported("`np.polyval` with other than two positional arguments",
                          suggestion="call it as np.polyval(p, x)")
    (p, x), (vp, vx) = site.nodes, site.args
    if vp.rank != 1:
        raise Unsupported(f"`np.polyval` of coefficients of rank {vp.rank} (only a vector of "
                          "coefficients is evaluated lane by lane)",
                          suggestion="pass a 1-d array of coefficients")
    if not vp.batched:
        q = _array_operand(site, p)
        return site.node if q is p else expr("np.polyval({p}, {x})", p=q, x=x)
    import libcst as cst
    if type(p) in (cst.List, cst.Tuple):
        raise Unsupported("`np.polyval` of a list display of per-example coefficients",
                          suggestion="build the coefficients with np.array(...) first")
    if vx.rank != 0:
        raise Unsupported("`np.polyval` of per-example coefficients at per-example arrays of "
                          "points", suggestion="evaluate it at one point per example")
    terms = np.shape(vp.example)[0] if vp.known else None
    if not terms:
        raise Unsupported("`np.polyval` of per-example coefficients whose number is not known "
                          "when the code is written (or is zero)",
                          suggestion="give the coefficients a constant length")
    y = "np.zeros_like(x)"
    for k in range(terms):
        y = f"({y} * x + p[:, {k}])" if k < terms - 1 else f"{y} * x + p[:, {k}]"
    return expr(f"(lambda p, x: {y})({{p}}, np.asarray({{x}}))", p=p, x=x)


def register(reg: Registry) -> None:
    def rule(name, explanation, before, after, rewrite, fn=None, infer=None):
        return Rule(name, "picking", explanation, before, after, rewrite,
                    infer=infer or (infer_by_calling(fn) if fn is not None else None))

    take = rule("pick.take", "`np.take(a, i, axis)` per example: a shared `i` picks along "
                "the shifted axis (`axis=None`: of each flattened example); a per-example `i` "
                "is a gather by lane and index (IndexError where NumPy raises per example); a "
                "shared `a` picked by per-example `i` keeps the batch axis first.",
                "p = np.take(v, [2, 0])\nq = np.take(v, k)",
                "p = np.take(v, [2, 0], axis=1)\nq = v[np.arange(len(v)), k]", _take,
                infer=_take_infer(np.take))
    reg.add_call(np.take, take)
    reg.add_method("take", rule("pick.take_method", take.explanation, "p = v.take(k)",
                                "p = v[np.arange(len(v)), k]", _take,
                                infer=_take_infer(_method_or(np.take, "take"))))
    diagonal = rule("pick.diagonal", "`np.diagonal(m, offset, axis1, axis2)` of each "
                    "example: the axes shifted past the batch axis; a constant offset.",
                    "d = np.diagonal(m, 1)", "d = np.diagonal(m, 1, axis1=1, axis2=2)",
                    _diagonal, np.diagonal)
    reg.add_call(np.diagonal, diagonal)
    reg.add_method("diagonal", rule("pick.diagonal_method", diagonal.explanation,
                                    "d = m.diagonal()", "d = np.diagonal(m, axis1=1, axis2=2)",
                                    _diagonal, _method_or(np.diagonal, "diagonal")))
    reg.add_method("trace", rule("pick.trace_method", "`m.trace(offset, axis1, axis2)` of "
                                 "each example: `np.trace` with the axes shifted.",
                                 "t = m.trace()", "t = np.trace(m, axis1=1, axis2=2)", trace,
                                 _method_or(np.trace, "trace")))
    reg.add_call(np.tile, rule(
        "pick.tile", "`np.tile(v, reps)` of each example with constant reps (padded as NumPy "
        "pads them; the batch axis repeated once).", "t = np.tile(v, 2)",
        "t = np.tile(v, (1, 2))", _tile, np.tile))
    repeat = rule("pick.repeat", "`np.repeat(v, r, axis)` of each example with constant "
                  "counts (`axis=None`: of each flattened example).",
                  "r = np.repeat(m, 2)", "r = np.repeat(m.reshape(len(m), m.shape[1] * "
                  "m.shape[2]), 2, axis=1)", _repeat, np.repeat)
    reg.add_call(np.repeat, repeat)
    reg.add_method("repeat", rule("pick.repeat_method", repeat.explanation,
                                  "r = v.repeat(2)", "r = np.repeat(v, 2, axis=1)", _repeat,
                                  _method_or(np.repeat, "repeat")))
    reg.add_call(np.diff, rule(
        "pick.diff", "`np.diff(v, n, axis)` of each example with a constant order; "
        "`prepend`/`append` a shared scalar, or a per-example scalar for vectors.",
        "d = np.diff(v, prepend=x0)", "d = np.diff(v, axis=1, prepend=x0[:, None])",
        _diff, np.diff))
    reg.add_call(np.interp, rule(
        "pick.interp", "`np.interp(x, xp, fp)` of per-example `x` in a shared table: "
        "elementwise in `x`, so the call stays as written (a per-example table is refused).",
        "y = np.interp(x, XP, FP)", "y = np.interp(x, XP, FP)",
        _shared_table("np.interp", {"xp": 1, "fp": 2, "left": 3, "right": 4, "period": 5}, 0),
        np.interp))
    # (products and sums warn on inf * 0 and inf - inf: lanes a batched `if` throws away
    # must be silenced)
    reg.add_call(np.polyval, Rule(
        "pick.polyval", "picking", "`np.polyval(p, x)`: shared coefficients are elementwise "
        "in `x`, so the call stays as written; per-example coefficient vectors at a "
        "per-example point are NumPy's Horner steps written out over the coefficients.",
        "y = np.polyval(c, x)",
        "y = (lambda p, x: (np.zeros_like(x) * x + p[:, 0]) * x + p[:, 1])(c, np.asarray(x))",
        _polyval, infer=infer_by_calling(np.polyval), may_warn=True))
    reg.add_call(np.searchsorted, rule(
        "pick.searchsorted", "`np.searchsorted(edges, x, side)` of per-example `x` in a "
        "shared sorted table: elementwise in `x`, so the call stays as written (a per-example "
        "table is refused).", "k = np.searchsorted(EDGES, x)",
        "k = np.searchsorted(EDGES, x)",
        _shared_table("np.searchsorted", {"a": 0, "side": 2, "sorter": 3}, 1),
        np.searchsorted))
