"""Generated programs where a hidden fuzzer goes beyond the other generators: four families,
each drawn from one seed by ``case(family, seed)`` and run by ``run_case``.

``axes``     ``vmap`` calling patterns: ``in_axes`` as ints (negative ones too), None, tuples
             and nested pytree prefixes (tuple and dict arguments, a None argument read by
             ``is None``), ``out_axes`` as ints (negative too), None or containers, nested
             vmap (``vmap(vmap(f, ...), ...)``), keyword arguments at call time, shared and
             mapped arguments of different ranks (0-d arrays, Python numbers), batch sizes 0,
             1, 2, 5 and a larger one. The reference is the per-example loop at every level
             (`ref_vmap`: ``np.take`` of each mapped leaf, results stacked at ``out_axes``),
             with the exact dtype.
``dtypes``   scalar programs ``f(x, y)`` over int8/16/32/64, uint8, bool, float16/32/64 and
             complex64/128 examples (two dtypes mixed or one), with weak Python literals
             (NEP 50), ``//`` and ``%`` by negative and zero divisors, shifts, bitwise ops,
             comparison chains, ``is None`` of a default argument, ``abs``/``.real``/``.imag``.
``flow``     control flow over float examples: nested ``while``/``for`` with ``break`` /
             ``continue`` at several depths, early ``return`` inside loops, trip counts that
             depend on the example, ``for`` over a shared array, augmented assignment to a
             list's subscript, tuple swaps ``a, b = b, a + b``, ternaries in comprehensions.
``vecops``   NumPy functions on per-example vectors and matrices (``vmap`` only): ``axis`` /
             ``keepdims``, reductions of empty rows, ``argmax`` ties, stable ``sort`` /
             ``argsort``, ``cumsum``, ``where`` with broadcasting, ``clip`` with None.
``condwrites`` writes into arrays under per-example conditions: ``out[i] = ...``,
             ``out[i] += ...``, ``acc[j] -= ...``, ``out[k] = ...`` with a per-example ``k``
             (guarded, wrapped, or out of range on lanes that raise), slices, item swaps,
             rows of a matrix, in ``if``/``elif``/``else``, ``for`` with ``break`` /
             ``continue``, ``while`` with per-example tests, helpers; and what programs of
             that shape also write: copies by ``np.array(v)``, ``np.full`` / ``np.roll`` of
             per-example values, two names for one array, a helper writing into its argument,
             slices mixed with per-example indices. ``vmap``: ``x`` a per-example vector of 4,
             ``y`` a per-example int; ``vectorize``: both scalars, the vector ``x * ARR``.

``lists``    local Python lists over float examples ``x``, ``y``: made as displays, repeated
             displays, displays of per-example values or comprehensions over a fixed range,
             of floats or ints; written at literal, loop and per-example indexes (guarded,
             wrapped, or out of range on lanes that raise IndexError), ``=`` and ``+=`` /
             ``-=``, under ``if``/``elif``/``else``, in ``for`` loops with ``break`` /
             ``continue`` and in ``while`` loops; read by index, ``sum``/``min``/``max``/
             ``len``, unpacking, ``for v in vals``, as a divisor; helpers writing into an
             array under a condition; and what stays refused: items of two types, a list
             returned, appended to or bound to a second name.

``dtypes``, ``flow``, ``vecops`` and ``lists`` run through `harness.run_construct_case`
(``vectorize`` against numpy.vectorize itself, ``vmap`` against the loop over NumPy scalars);
``axes`` through
`run_axes_case`. A `VectorizeError` is a refusal (fine, counted); a mismatch or any other
exception is a bug.

Invariants: every program is valid Python; every name is assigned on every path before it is
read; loops terminate (counters, bounded ranges); indexes are in range; outputs have one
type on every path (``* 1.0``); booleans take no arithmetic under ``vectorize``
(NumPy's boolean ``+`` is ``or``: docs/semantics.md).
"""

from __future__ import annotations

import functools
import random
import sys
import traceback
import warnings
from pathlib import Path

import numpy as np

try:
    from fuzz.harness import (
        ModuleWriter,
        Outcome,
        Program,
        _outcome_of,
        _same,
        normalize_reason,
        run_construct_case,
    )
except ImportError:   # run outside pytest (benchmarks/fuzz_wide.py puts tests/ on the path)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from fuzz.harness import (
        ModuleWriter,
        Outcome,
        Program,
        _outcome_of,
        _same,
        normalize_reason,
        run_construct_case,
    )

from vectorize import VectorizeError, vectorize, vmap

FAMILIES = ("axes", "dtypes", "flow", "vecops", "condwrites", "lists")

HEADER = '''import math

import numpy as np

ARR = np.array([0.5, -1.5, 2.0, 3.0])
WEIGHTS = [1.0, -2.0, 0.25]


'''


# =============================================================================== axes

class _Leaf:
    """A per-example array leaf (``shape``: its per-example shape; ``dtype``) or None."""

    def __init__(self, shape, dtype, none=False, number=False):
        self.shape, self.dtype, self.none, self.number = shape, dtype, none, number


def _axes_program(rng):
    """(source, params spec, kw) of an ``axes`` program.

    params spec: per parameter ("leaf", leaf) / ("tuple", [leaf, leaf]) / ("dict", {k: leaf})."""
    shape = rng.choice([(), (3,), (2, 3)])
    dtype = rng.choice(["float64", "float64", "float32", "int64"])
    nparams = rng.randint(1, 3)
    params, reads = [], []
    for p in range(nparams):
        kind = rng.choice(["leaf", "leaf", "tuple", "dict"])
        name = f"a{p}"
        if kind == "leaf":
            if p > 0 and rng.random() < 0.15:
                params.append(("leaf", _Leaf((), dtype, none=True)))
                continue
            lshape = shape if rng.random() < 0.8 else ()
            params.append(("leaf", _Leaf(lshape, dtype)))
            reads.append(name)
        elif kind == "tuple":
            params.append(("tuple", [_Leaf(shape, dtype), _Leaf(rng.choice([shape, ()]),
                                                                  dtype)]))
            reads += [f"{name}[0]", f"{name}[1]"]
        else:
            params.append(("dict", {"u": _Leaf(shape, dtype),
                                    "w": _Leaf(rng.choice([shape, ()]), dtype)}))
            reads += [f"{name}['u']", f"{name}[\"w\"]"]
    if not reads:
        params[0] = ("leaf", _Leaf(shape, dtype))
        reads.append("a0")
    kw = rng.random() < 0.4
    names = [f"a{p}" for p in range(nparams)]
    lines = []

    def leaf():
        return rng.choice(reads)

    def expr(depth=2):
        if depth == 0 or rng.random() < 0.3:
            return rng.choice([leaf(), leaf(), "2.0", "3", "s" if kw else "1.5"])
        a, b = expr(depth - 1), expr(depth - 1)
        return rng.choice([f"({a} + {b})", f"({a} * {b})", f"({a} - {b})",
                           f"np.maximum({a}, {b})", f"np.where({a} > {b}, {a}, {b})",
                           f"np.abs({a})", f"({a} * 0.5)"])

    lines.append(f"r = {expr()} * 1.0")
    full = [r for r, lf in zip(reads, [lf for spec in params for lf in _leaves(spec)
                                       if not lf.none]) if lf.shape]
    if full and shape and rng.random() < 0.35:
        # a vmap called inside the mapped function: of a lambda closing over a per-example
        # value, or of a module-level function with a shared argument
        v, w = rng.choice(full), rng.choice(reads)
        lines.append(rng.choice([
            f"r = r + vmap(lambda q: q * 2.0 - {w})({v}) * 1.0",
            f"r = r + vmap(inner_h, in_axes=(0, None))({v}, 3.0)",
            f"r = r + np.sum(vmap(inner_h, in_axes=(0, None))({v}, {w}))",
            f"r = r + vmap(inner_h, in_axes=(-1, None), out_axes=-1)({v}, 0.5)",
            f"r = r + vmap(vmap(inner_h, in_axes=(0, None)), in_axes=(0, None))"
            f"({v}[None], 2.0)[0]"]))
    for p, (kind, spec) in enumerate(params):
        if kind == "leaf" and spec.none:
            lines += [f"if a{p} is None:", "    r = r + 1.0", "else:", "    r = r - 1.0"]
    if rng.random() < 0.4:
        lines += ["if np.sum(r) > 0:", f"    r = r * {rng.choice(['2.0', '-1.0'])}"]
    if rng.random() < 0.3:
        lines += ["t = 0.0", f"for k in range({rng.randint(0, 3)}):",
                  f"    t = t + np.sum({leaf()}) * k"]
    else:
        lines.append(f"t = np.sum({leaf()})")
    if shape and rng.random() < 0.3:
        # (`* np.ones`: r has the rank of the shape, whichever leaves it is made of)
        lines.append(f"r = np.sum(r * np.ones({shape}), axis=-1, "
                     f"keepdims={rng.choice(['True', 'False'])})")
    ret = rng.choice(["r", "r", "(r, t)", "{'p': r, 'q': t}", "(t, {'p': r})", "t"])
    lines.append(f"return {ret}")
    sig = ", ".join(names) + (", s=1.0" if kw else "")
    source = (HEADER.replace("import numpy as np\n", "import numpy as np\n\nfrom vectorize "
                             "import vmap\n") + "def inner_h(u, c):\n    return u * c + 1.0\n\n\n"
              + f"def f({sig}):\n" + "".join(f"    {ln}\n" for ln in lines))
    return source, params, kw


def _leaves(spec):
    kind, value = spec
    if kind == "leaf":
        return [value]
    return list(value) if kind == "tuple" else list(value.values())


def _draw_in_axes(rng, params, ranks_extra):
    """(in_axes entry per parameter, per-leaf axes per parameter) at one level.
    ``ranks_extra``: per parameter, per leaf, the rank its array has at this level."""
    entries, per_leaf = [], []
    for (kind, spec), ranks in zip(params, ranks_extra):
        leaves = _leaves((kind, spec))
        if kind == "leaf" and spec.none:
            entries.append(None)
            per_leaf.append([None])
            continue
        if rng.random() < 0.25:
            entries.append(None)
            per_leaf.append([None] * len(leaves))
            continue
        if kind == "leaf" or rng.random() < 0.4:
            top = min(ranks)
            pos = rng.randint(0, top)
            ax = pos - (top + 1) if rng.random() < 0.3 else pos
            if ax < 0 and any(r != top for r in ranks):
                ax = pos    # a negative axis means another position in leaves of other ranks
            entries.append(ax)
            per_leaf.append([ax] * len(leaves))
            continue
        axes = []
        for r in ranks:
            if rng.random() < 0.25:
                axes.append(None)
            else:
                pos = rng.randint(0, r)
                axes.append(pos - (r + 1) if rng.random() < 0.3 else pos)
        per_leaf.append(axes)
        entries.append(tuple(axes) if kind == "tuple" else dict(zip(spec, axes)))
    return entries, per_leaf


def _insert(arrays, axes, n, rng, dtype, lengths=None):
    """Each array with a new axis of ``n`` at its axis (None: unchanged): fresh values."""
    out = []
    for a, ax in zip(arrays, axes):
        if ax is None:
            out.append(a)
            continue
        base = np.asarray(a)
        rank = base.ndim + 1
        pos = ax % rank
        reps = [_values(rng, base.shape, dtype) for _ in range(n)]
        out.append(np.stack(reps, axis=pos) if n else
                   np.empty(base.shape[:pos] + (0,) + base.shape[pos:], dtype))
    return out


def _values(rng, shape, dtype):
    vals = [rng.choice([0.0, -0.0, 1.0, -2.0, 0.5, 3.0, np.nan, np.inf, -np.inf])
            if rng.random() < 0.3 else rng.uniform(-5, 5)
            for _ in range(int(np.prod(shape, dtype=int)))]
    arr = np.array(vals, dtype=np.float64).reshape(shape)
    if np.dtype(dtype).kind == "i":
        arr = np.round(np.nan_to_num(arr, nan=0.0, posinf=7.0, neginf=-7.0))
    return arr.astype(dtype)


def _build(params, flat_leaves):
    out, k = [], 0
    for kind, spec in params:
        n = len(_leaves((kind, spec)))
        vals = flat_leaves[k:k + n]
        k += n
        if kind == "leaf":
            out.append(vals[0])
        elif kind == "tuple":
            out.append(tuple(vals))
        else:
            out.append(dict(zip(spec, vals)))
    return out


def _tree_prefix(prefix, tree):
    """``prefix`` (int / None / container) broadcast to the leaves of ``tree``."""
    if isinstance(tree, (tuple, list)):
        if isinstance(prefix, (tuple, list)):
            return [_tree_prefix(p, t) for p, t in zip(prefix, tree)]
        return [_tree_prefix(prefix, t) for t in tree]
    if isinstance(tree, dict):
        if isinstance(prefix, dict):
            return {k: _tree_prefix(prefix[k], tree[k]) for k in tree}
        return {k: _tree_prefix(prefix, tree[k]) for k in tree}
    return prefix


def _flatten(tree):
    if isinstance(tree, (tuple, list)):
        return [leaf for t in tree for leaf in _flatten(t)]
    if isinstance(tree, dict):
        return [leaf for k in tree for leaf in _flatten(tree[k])]
    return [tree]


def _unflatten(tree, leaves):
    it = iter(leaves)

    def go(t):
        if isinstance(t, tuple):
            return tuple(go(x) for x in t)
        if isinstance(t, list):
            return [go(x) for x in t]
        if isinstance(t, dict):
            return {k: go(t[k]) for k in t}
        return next(it)
    return go(tree)


class _ZeroBatch(Exception):
    pass


def ref_vmap(f, in_axes, out_axes=0):
    """The per-example loop of ``vmap(f, in_axes, out_axes)``: each example's arguments are
    ``np.take`` of the mapped leaves (NumPy scalars for rank 0), the results stacked at
    ``out_axes`` (None: every example's must be equal)."""

    def run(*args, **kwargs):
        prefix = in_axes if isinstance(in_axes, (tuple, list)) else (in_axes,) * len(args)
        axes = _flatten(_tree_prefix(list(prefix), list(args)))
        leaves = _flatten(list(args))
        sizes = {np.shape(a)[ax] for a, ax in zip(leaves, axes) if ax is not None}
        (n,) = sizes
        if n == 0:
            raise _ZeroBatch
        outs = []
        for i in range(n):
            taken = [a if ax is None else np.take(a, i, axis=ax) for a, ax in zip(leaves, axes)]
            outs.append(f(*_unflatten(list(args), taken), **kwargs))
        first = outs[0]
        oaxes = _flatten(_tree_prefix(out_axes, first))
        columns = list(zip(*[_flatten(o) for o in outs]))
        stacked = []
        for col, ax in zip(columns, oaxes):
            if ax is None:
                if not all(np.array_equal(c, col[0], equal_nan=True) for c in col):
                    raise ValueError("out_axes None with an output that differs")
                stacked.append(np.asarray(col[0]))
            else:
                stacked.append(np.stack([np.asarray(c) for c in col], axis=ax))
        return _unflatten(first, stacked)
    return run


def _out_axes(rng, example_out):
    """A random out_axes tree prefix for a result like ``example_out``."""
    leaves = _flatten(example_out)
    ranks = [np.ndim(x) for x in leaves]

    def one(r):
        if rng.random() < 0.08:
            return None     # (the same output for every example, else a ValueError)
        pos = rng.randint(0, r)
        return pos - (r + 1) if rng.random() < 0.3 else pos
    if rng.random() < 0.5 or not isinstance(example_out, (tuple, dict)):
        return one(min(ranks)) if rng.random() < 0.8 else 0
    return _unflatten(example_out, [one(r) for r in ranks])


def axes_case(seed: int):
    """(source, spec) of one ``axes`` program: spec has the levels' in_axes / out_axes and
    the argument sets of each call."""
    rng = random.Random(seed)
    source, params, kw = _axes_program(rng)
    nested = rng.random() < 0.35
    leaves = [leaf for spec in params for leaf in _leaves(spec)]
    dtype = next(lf.dtype for lf in leaves if not lf.none)
    base_ranks = [[len(lf.shape) for lf in _leaves(spec)] for spec in params]
    # inner level (the only one when not nested)
    while True:
        inner, inner_leaf = _draw_in_axes(rng, params, base_ranks)
        if any(ax is not None for axes in inner_leaf for ax in axes):
            break
    outer = outer_leaf = None
    if nested:
        ranks1 = [[r + (ax is not None) for r, ax in zip(rs, axs)]
                  for rs, axs in zip(base_ranks, inner_leaf)]
        while True:
            outer, outer_leaf = _draw_in_axes(rng, params, ranks1)
            if any(ax is not None for axes in outer_leaf for ax in axes):
                break
    flat_inner = [ax for axs in inner_leaf for ax in axs]
    flat_outer = [ax for axs in outer_leaf for ax in axs] if nested else None
    number_shared = rng.random() < 0.3
    calls = []
    for n in rng.sample([0, 1, 2, 5, 40], 3) + [rng.choice([3, 7])]:
        m = rng.choice([0, 1, 3]) if nested and n else (rng.choice([1, 2]) if nested else None)
        arrays = []
        for lf, ax_in, ax_out in zip(leaves, flat_inner,
                                     flat_outer or [None] * len(leaves)):
            if lf.none:
                arrays.append(None)
                continue
            if ax_in is None and (not nested or ax_out is None) and not lf.shape and \
                    number_shared:
                arrays.append(float(_values(rng, (), "float64")) if dtype != "int64" else 3)
                continue
            arrays.append(_values(rng, lf.shape, lf.dtype))
        arrays = _insert(arrays, flat_inner, m if nested else n, rng, dtype)
        if nested:
            arrays = _insert(arrays, flat_outer, n, rng, dtype)
        kwargs = {"s": float(rng.choice([2.0, -0.5, 0.0]))} if kw and rng.random() < 0.7 \
            else {}
        calls.append((_build(params, arrays), kwargs))
    top_inner = inner[0] if len(set(map(repr, inner))) == 1 and rng.random() < 0.5 and \
        not isinstance(inner[0], (tuple, dict)) else tuple(inner)
    top_outer = None
    if nested:
        top_outer = outer[0] if len(set(map(repr, outer))) == 1 and rng.random() < 0.5 and \
            not isinstance(outer[0], (tuple, dict)) else tuple(outer)
    return source, {"inner": top_inner, "outer": top_outer, "nested": nested,
                    "calls": calls, "out_seed": rng.randrange(1 << 30)}


def _describe(spec, out_in, out_out):
    text = f"vmap(f, in_axes={spec['inner']!r}, out_axes={out_in!r})"
    if spec["nested"]:
        text = f"vmap({text}, in_axes={spec['outer']!r}, out_axes={out_out!r})"
    return text


def _compare_tree(got, expected, what):
    gl, el = _flatten(got), _flatten(expected)
    if type(got) is not type(expected) and not (
            isinstance(got, np.ndarray) and isinstance(expected, np.ndarray)):
        if isinstance(expected, (tuple, list, dict)) or isinstance(got, (tuple, list, dict)):
            return f"{what}: structure {type(got).__name__}, expected {type(expected).__name__}"
    if len(gl) != len(el):
        return f"{what}: {len(gl)} leaves, expected {len(el)}"
    if isinstance(expected, dict) and list(got) != list(expected):
        return f"{what}: keys {list(got)}, expected {list(expected)}"
    for g, e in zip(gl, el):
        g, e = np.asarray(g), np.asarray(e)
        if g.dtype != e.dtype:
            return f"{what}: dtype {g.dtype}, expected {e.dtype}"
        # (float32 sums: NumPy's order along a batched axis is not a row's pairwise one)
        low = e.dtype in (np.float32, np.float16, np.complex64)
        problem = _same(g, e, what, 64 * float(np.finfo(e.dtype).eps) if low else 0.0)
        if problem:
            return problem
    return ""


def _internal(exc, call) -> Outcome:
    """An exception from inside the engine (or its generated code): its tail of traceback."""
    tb = "".join(traceback.format_exception(exc))[-3000:]
    return Outcome("internal", f"{type(exc).__name__}: {exc}\n{tb}", call=call)


def run_axes_case(source: str, spec: dict, writer: ModuleWriter) -> Outcome:
    f = writer.load(Program(source, (), 1))
    rng = random.Random(spec["out_seed"])
    # the out_axes from one example's result structure (the first call with a nonempty batch)
    out_in = out_out = 0
    example = None
    for args, kwargs in spec["calls"]:
        try:
            ref_fn = ref_vmap(f, spec["inner"])
            if spec["nested"]:
                ref_fn = ref_vmap(ref_fn, spec["outer"])
            example = ref_fn(*args, **kwargs)
            break
        except _ZeroBatch:
            continue
        except Exception:    # noqa: BLE001 -- the scalar code raises: nothing to compare
            return Outcome("vacuous")
    if example is not None:
        one = _flatten(example)
        out_in = _out_axes(rng, _unflatten(example, [np.asarray(x)[(0,) * (
            1 + spec["nested"])] if np.ndim(x) >= 1 + spec["nested"] else x for x in one])) \
            if spec["nested"] else _out_axes(rng, _unflatten(example, [
                np.asarray(x)[0] for x in one]))
        if spec["nested"]:
            out_out = rng.choice([0, -1]) if rng.random() < 0.5 else 0
    try:
        inner = spec["inner"]
        if isinstance(inner, tuple) and rng.random() < 0.2:
            inner = list(inner)          # (a list at the top is taken as a tuple)
        if rng.random() < 0.2:           # torch.func's spelling
            wrapped = vmap(f, in_dims=inner, out_dims=out_in)
        else:
            wrapped = vmap(f, in_axes=inner, out_axes=out_in)
        if spec["nested"]:
            wrapped = vmap(wrapped, in_axes=spec["outer"], out_axes=out_out)
    except VectorizeError as exc:
        return Outcome("rejected", str(exc), normalize_reason(str(exc)), call="wrap")
    reference = ref_vmap(f, spec["inner"], out_in)
    if spec["nested"]:
        reference = ref_vmap(reference, spec["outer"], out_out)
    desc = _describe(spec, out_in, out_out)
    for k, (args, kwargs) in enumerate(spec["calls"]):
        call = f"call {k + 1}: {desc}"
        ref = _outcome_of(functools.partial(reference, **kwargs), *args)
        got = _outcome_of(functools.partial(wrapped, **kwargs), *args)
        if got[0] == "raised" and isinstance(got[1], VectorizeError):
            if ref[0] == "raised" and isinstance(ref[1], ValueError) and \
                    not isinstance(ref[1], _ZeroBatch):
                continue      # (out_axes None over a differing output: both refuse)
            return Outcome("rejected", str(got[1]), normalize_reason(str(got[1])), call=call)
        if ref[0] == "raised" and isinstance(ref[1], _ZeroBatch):
            if got[0] == "raised":
                return _internal(got[1], call)
            continue
        if ref[0] == "raised":
            continue           # the loop raises: nothing to compare (vmap semantics)
        if got[0] == "raised":
            return _internal(got[1], call)
        problem = _compare_tree(got[1], ref[1], call)
        if problem:
            return Outcome("mismatch", f"{problem}\n got {got[1]!r}\n expected {ref[1]!r}",
                           call=call)
    return Outcome("ok")


# ============================================================================= dtypes

DTYPES = ["int8", "int16", "int32", "int64", "uint8", "bool", "float16", "float32",
          "float64", "complex64", "complex128"]


def _kind(dtype: str) -> str:
    return np.dtype(dtype).kind      # b i u f c


def _dtypes_program(rng, api: str):
    """(source, dtypes of x and y, features) of a ``dtypes`` program."""
    dx = rng.choice(DTYPES)
    dy = dx if rng.random() < 0.5 else rng.choice(DTYPES)
    kinds = {"x": _kind(dx), "y": _kind(dy)}
    if api == "vectorize":
        # (numpy.vectorize's first call is on NumPy scalars, the others on Python numbers:
        # bool arithmetic is `or` there; see the module docstring)
        pass
    env = dict(kinds)            # name -> kind b / i / f / c
    lines, features = [], []
    ints = lambda: [n for n, k in env.items() if k in "iu"]            # noqa: E731
    nums = lambda: [n for n, k in env.items() if k in "iuf"]           # noqa: E731
    anys = lambda: [n for n, k in env.items() if k != "b"]             # noqa: E731
    bools = lambda: [n for n, k in env.items() if k == "b"]            # noqa: E731
    count = [0]

    def new(kind):
        count[0] += 1
        name = f"v{count[0]}"
        env[name] = kind
        return name

    def result_kind(a, b):
        order = "iufc"
        ka, kb = env.get(a, "f"), env.get(b, "f")
        ka, kb = ("i" if ka in "iub" else ka), ("i" if kb in "iub" else kb)
        return order[max(order.index(ka), order.index(kb))]

    for _ in range(rng.randint(1, 4)):
        choice = rng.choice(["literal", "literal", "floordiv", "mod", "shift", "bitwise",
                             "chain", "none", "complex", "div", "bool", "neg", "minmax",
                             "convert", "pow", "abs", "andor", "not", "divmod", "round",
                             "eq_mixed"])
        if choice == "literal" and anys():
            a = rng.choice(anys())
            lit = rng.choice(["2", "-3", "300", "2.5", "-0.5", "1e10", "True", "1j", "0",
                              "127", "-1"])
            op = rng.choice(["+", "-", "*"])
            if lit == "1j" and env[a] in "iub" and rng.random() < 0.5:
                lit = "2"
            k = "c" if (lit == "1j" or env[a] == "c") else (
                "f" if ("." in lit or "e" in lit or env[a] == "f") else "i")
            name = new(k)
            lines.append(f"{name} = {a} {op} {lit}" if rng.random() < 0.6
                         else f"{name} = {lit} {op} {a}")
            features.append("weak_literal")
        elif choice in ("floordiv", "mod") and nums():
            a = rng.choice(nums())
            b = rng.choice(nums() + ["-3", "-2.5", "0", "7", "-1"])
            op = "//" if choice == "floordiv" else "%"
            k = result_kind(a, b) if b in env else ("f" if "." in b or env[a] == "f" else "i")
            name = new(k)
            lines.append(f"{name} = {a} {op} {b}")
            features.append(choice + ("_neg" if b.startswith("-") else "_var" if b in env
                                      else "_lit"))
        elif choice == "shift" and ints():
            a = rng.choice(ints())
            amount = rng.choice(["1", "3", "-1", "(y & 3)" if env["y"] in "iu" else "2",
                                 "0"])
            name = new("i")
            lines.append(f"{name} = {a} {rng.choice(['<<', '>>'])} {amount}")
            features.append("shift")
        elif choice == "bitwise" and (ints() or bools()):
            pool = ints() or bools()
            a = rng.choice(pool)
            same = [n for n in pool if (env[n] == "b") == (env[a] == "b")]
            b = rng.choice(same + (["5", "-2"] if env[a] != "b" else ["True"]))
            op = rng.choice(["&", "|", "^"])
            name = new("b" if env[a] == "b" and (b == "True" or env.get(b) == "b") else "i")
            if rng.random() < 0.3 and env[a] != "b":
                lines.append(f"{name} = ~{a} {op} {b}")
            else:
                lines.append(f"{name} = {a} {op} {b}")
            features.append("bitwise")
        elif choice == "chain" and nums():
            a, b = rng.choice(nums()), rng.choice(nums())
            c = rng.choice(["0", "2.5", "-1"])
            name = new("b")
            lines.append(f"{name} = {c} < {a} <= {b}" if rng.random() < 0.5 else
                         f"{name} = {a} != {b} == {c}")
            features.append("chain")
        elif choice == "none":
            a = rng.choice(anys() or ["1"])
            k = env.get(a, "i")
            name = new("f" if k in "iub" else k)
            lines += ["if z is None:", f"    {name} = {a} * 1.0", "else:",
                      f"    {name} = {a} * 2.0"]
            features.append("is_none")
        elif choice == "complex" and anys():
            a = rng.choice(anys())
            name = new("f")
            if env[a] == "c":
                lines.append(f"{name} = abs({a}) + {a}.real * 1.0 - {a}.imag")
            else:
                lines.append(f"{name} = abs(complex({a}, 1.0)) * 1.0")
            features.append("complex")
        elif choice == "div" and anys():
            a, b = rng.choice(anys()), rng.choice(anys() + ["0.5", "-2"])
            k = "c" if "c" in (env[a], env.get(b, "f")) else "f"
            name = new(k)
            lines.append(f"{name} = {a} / {b}")
            features.append("div")
        elif choice == "bool" and bools():
            a = rng.choice(bools())
            name = new("i")
            lines.append(f"{name} = int({a}) * 3 if not {a} else -int({a})")
            features.append("bool")
        elif choice == "neg" and nums():
            a = rng.choice(nums())
            name = new(env[a])
            lines.append(f"{name} = -{a} + abs({a})")
            features.append("neg_abs")
        elif choice == "minmax" and len(nums()) >= 1:
            a, b = rng.choice(nums()), rng.choice(nums())
            name = new(result_kind(a, b))
            lines.append(f"{name} = max({a}, {b}) - min({a}, {b})" if env[a] == env[b]
                         else f"{name} = {a} * 1.0 + {b} * 1.0")
            if env[a] != env[b]:
                env[name] = "f" if "c" not in (env[a], env[b]) else "c"
            features.append("minmax")
        elif choice == "pow" and nums():
            a = rng.choice(nums())
            e = rng.choice(["2", "3", "-1", "0.5", "0"])
            if env[a] in "iu" and rng.random() < 0.4:
                b = rng.choice(ints())
                name = new("f")
                lines.append(f"{name} = 2.0 ** ({b} % 5) * 1.0" if rng.random() < 0.5
                             else f"{name} = (-1) ** {b} * 1.0")
            else:
                k = "f" if (env[a] == "f" or e in ("-1", "0.5")) else "i"
                name = new(k)
                lines.append(f"{name} = {a} ** {e}")
            features.append("pow")
        elif choice == "abs" and nums():
            a = rng.choice(nums())
            name = new(env[a])
            lines.append(f"{name} = abs({a}) - {a}")
            features.append("abs")
        elif choice == "andor" and nums():
            a, b = rng.choice(nums()), rng.choice(nums())
            name = new("b")
            lines.append(f"{name} = bool({a} and {b})" if rng.random() < 0.5
                         else f"{name} = ({a} > 0) or ({b} < 0)")
            features.append("and_or")
        elif choice == "not" and (nums() or bools()):
            a = rng.choice(nums() + bools())
            name = new("b")
            lines.append(f"{name} = not {a}")
            features.append("not")
        elif choice == "divmod" and nums():
            a, b = rng.choice(nums()), rng.choice(nums() + ["-2", "3"])
            k = "f" if "f" in (env[a], env.get(b, "i")) else "i"
            q, name = new(k), new(k)
            lines.append(f"{q}, {name} = divmod({a}, {b})")
            features.append("divmod")
        elif choice == "round" and [n for n in nums() if env[n] == "f"]:
            a = rng.choice([n for n in nums() if env[n] == "f"])
            if rng.random() < 0.5:
                name = new("i")
                lines.append(f"{name} = round({a}) if math.isfinite({a}) else 0")
            else:
                name = new("f")
                lines.append(f"{name} = round({a}, {rng.choice([0, 1, 2, -1])})")
            features.append("round")
        elif choice == "eq_mixed" and anys():
            a, b = rng.choice(anys()), rng.choice(anys())
            name = new("b")
            lines.append(f"{name} = {a} == {b} or {a} != 0")
            features.append("eq_mixed")
        elif choice == "convert" and nums():
            a = rng.choice(nums())
            if env[a] == "f":
                name = new("i")
                lines.append(f"{name} = int({a}) if math.isfinite({a}) else 0")
            else:
                name = new("f")
                lines.append(f"{name} = float({a})")
            features.append("convert")
    if not lines:
        name = new(env["x"])
        lines.append(f"{name} = x")
    last = list(env)[-1]
    k = env[last]
    if k == "b" and api == "vectorize" and rng.random() < 0.5:
        ret = f"return int({last})"
    elif rng.random() < 0.3 and len(env) > 3:
        other = rng.choice(list(env)[2:-1])
        ret = f"return {last}, {other}"
    else:
        ret = f"return {last}"
    source = HEADER + "def f(x, y, z=None):\n" + "".join(f"    {ln}\n" for ln in lines + [ret])
    return source, (dx, dy), features


def dtype_inputs(rng, dtypes, n: int):
    out = []
    for dtype in dtypes:
        vals = [rng.choice([0.0, -0.0, 1.0, -1.0, 2.0, -3.0, 127.0, 100.0, -128.0, 0.5,
                            float("nan"), float("inf"), -float("inf"), 7.0, 255.0, 1e5])
                if rng.random() < 0.5 else rng.uniform(-50, 50) for _ in range(n)]
        arr = np.array(vals, dtype=np.float64)
        kind = _kind(dtype)
        if kind in "iub":
            arr = np.round(np.nan_to_num(arr, nan=0.0, posinf=5.0, neginf=-5.0))
            info = np.iinfo(dtype) if kind != "b" else None
            if info is not None:
                arr = np.clip(arr, info.min, info.max)
            if kind == "u":
                arr = np.abs(arr)
        if kind == "c":
            im = np.array([rng.choice([0.0, -0.0, 1.0, -2.5, float("nan")])
                           for _ in range(n)])
            arr = arr + 1j * im
        with np.errstate(all="ignore"):
            out.append(arr.astype(dtype))
    return tuple(out)


# =============================================================================== flow

def _flow_program(rng):
    """(source, features) of a ``flow`` program over float examples x, y."""
    features = []
    acc = "[0.0, 0.0, 0.0]" if rng.random() < 0.3 else "np.zeros(3)"
    writes = rng.random() < 0.4         # (writes into `acc` are often refused)
    lines = ["a = x * 1.0", "b = y * 1.0", f"acc = {acc}", "tot = 0.0", "cnt = 0"]
    n_counter = [0]

    def counter():
        n_counter[0] += 1
        return f"k{n_counter[0]}"

    def cond():
        return rng.choice(["a > b", "a < 0.5", "tot > 3.0", "b <= -1.0", "abs(a) < 2.0",
                           "a != a", "b > tot"])

    def simple(indent):
        sp = "    " * indent
        opts = [
            ("swap", [f"{sp}a, b = b, a + b"]),
            ("aug", [f"{sp}tot += a * 0.5"]),
            ("aug_sub", [f"{sp}acc[{rng.randint(0, 2)}] += b"]),
            ("aug_sub_idx", [f"{sp}acc[int(tot) % 3 if math.isfinite(tot) else 0] -= 1.0"]),
            ("assign", [f"{sp}a = a * 0.5 - 1.0"]),
            ("int_count", [f"{sp}cnt += 1"]),
            ("int_floordiv", [f"{sp}tot = tot + cnt // 2 - cnt % 3"]),
            ("ternary_comp", [f"{sp}tot = tot + sum([a if a > j else j * 1.0 "
                              f"for j in range(3)])"]),
        ]
        # (writes into `acc` under a per-example condition are refused: seldom)
        if not writes or indent and rng.random() < 0.8:
            opts = opts[:2] + opts[4:]
        feat, body = rng.choice(opts)
        features.append(feat)
        return body

    ret = rng.choice(["return a + tot + acc[0] - acc[2] * 1.0", "return b - tot",
                      "return (a, tot)", "return sum(acc) + a", "return (cnt, a + tot)"])
    early = ("return (cnt + 1, a)" if "cnt" in ret else "return (a + tot, b)"
             if "(" in ret and "sum" not in ret else "return a + tot")

    def block(indent, depth, loops):
        out = []
        for _ in range(rng.randint(1, 3)):
            r = rng.random()
            sp = "    " * indent
            if r < 0.35 or depth >= 3:
                out += simple(indent)
            elif r < 0.5 and loops:
                exit_kind = rng.choice(["break", "continue", "return"])
                features.append(f"{exit_kind}_depth{len(loops)}")
                out.append(f"{sp}if {cond()}:")
                if exit_kind == "return":
                    out.append(f"{sp}    {early}")
                else:
                    if exit_kind == "continue" and loops[-1] == "while":
                        return out + [f"{sp}    break"]   # (a while's counter step is last)
                    out.append(f"{sp}    {exit_kind}")
            elif r < 0.62:
                out.append(f"{sp}if {cond()}:")
                out += block(indent + 1, depth + 1, loops)
                if rng.random() < 0.5:
                    out.append(f"{sp}else:")
                    out += block(indent + 1, depth + 1, loops)
            elif r < 0.68:
                c = counter()
                features.append("for_else")
                out.append(f"{sp}for {c} in range({rng.randint(1, 3)}):")
                out.append(f"{sp}    if {cond()}:")
                out.append(f"{sp}        break")
                out += block(indent + 1, depth + 1, loops + ["for"])
                out.append(f"{sp}else:")
                out.append(f"{sp}    cnt += 2")
            elif r < 0.75:
                c = counter()
                bound = rng.choice(["3", "int(min(abs(x), 4.0)) if math.isfinite(x) else 2",
                                    "len(WEIGHTS)"])
                features.append("for_range" if bound == "3" else
                                "for_trip_per_example" if "x" in bound else "for_len")
                out.append(f"{sp}for {c} in range({bound}):")
                out += block(indent + 1, depth + 1, loops + ["for"])
            elif r < 0.85:
                c = counter()
                features.append("for_shared_array")
                src = rng.choice(["ARR", "WEIGHTS"])
                out.append(f"{sp}for {c} in {src}:")
                out.append(f"{sp}    tot = tot + {c} * a")
                out += block(indent + 1, depth + 1, loops + ["for"])
            else:
                c = counter()
                features.append("while")
                out.append(f"{sp}{c} = 0")
                out.append(f"{sp}while {c} < {rng.randint(1, 4)} and "
                           f"{rng.choice(['a < 50.0', 'tot < 10.0', 'True'])}:")
                body = block(indent + 1, depth + 1, loops + ["while"])
                out += body
                out.append(f"{sp}    {c} += 1")
        return out

    lines += block(0, 0, [])
    source = HEADER + "def f(x, y):\n" + "".join(f"    {ln}\n" for ln in lines + [ret])
    return source, features


def flow_inputs(rng, n: int, dtype: str):
    vals = [[rng.choice([0.0, -0.0, 1.0, -1.0, 2.5, 3.0, -7.0, 0.5, float("nan"),
                         float("inf"), -float("inf"), 100.0])
             if rng.random() < 0.4 else rng.uniform(-10, 10) for _ in range(n)]
            for _ in range(2)]
    with np.errstate(all="ignore"):
        return tuple(np.array(v).astype(dtype) for v in vals)


# ============================================================================== lists

def _lists_program(rng):
    """(source, features) of a ``lists`` program over float examples x, y."""
    features = []
    size = rng.randint(2, 4)
    ints = rng.random() < 0.2
    zero = "0" if ints else "0.0"
    make = rng.choice(["display", "repeat", "per_example", "comprehension"])
    features.append(make)
    if make == "display" or ints and make in ("per_example", "comprehension"):
        create = "[" + ", ".join([zero] * size) + "]"
    elif make == "repeat":
        create = f"[{zero}] * {size}"
    elif make == "per_example":
        items = ["x", "y", "x + y", "x * 0.5", "1.5"]
        create = "[" + ", ".join(rng.choice(items) for _ in range(size)) + "]"
    else:
        create = f"[x * j + y for j in range({size})]"
    one = "1" if ints else "1.0"
    lines = ["a = x * 1.0", "b = y * 1.0", f"vals = {create}", "tot = 0.0",
             "arr = np.zeros(3)"]
    refusal = rng.random()
    if refusal < 0.04:
        lines[2] = f"vals = [{zero}, 0.5] + [{zero}] * {size - 2}"
        features.append("mixed_types")
    n_loop = [0]

    def value():
        return rng.choice([one, "a", "b * 0.5", "a - b", "tot"]) if not ints else \
            rng.choice(["1", "2", "int(tot) if abs(tot) < 100.0 else 0"])

    def cond():
        return rng.choice(["a > b", "a < 0.5", "tot > 3.0", "b <= -1.0", "abs(a) < 2.0",
                           "a != a", f"vals[0] > {one}"])

    def index(loops):
        choice = rng.random()
        if loops and choice < 0.35:
            return f"{loops[-1]} % {size}", "loop_index"
        if choice < 0.6:
            return str(rng.randint(-size, size - 1)), "literal_index"
        if choice < 0.85:
            return (f"int(abs(a)) % {size} if math.isfinite(a) else 0", "per_example_index")
        return ("int(a) if math.isfinite(a) and abs(a) < 100.0 else 0", "unguarded_index")

    def simple(sp, loops):
        i, feat = index(loops)
        opts = [
            ("set", f"vals[{i}] = {value()}"),
            ("add", f"vals[{i}] += {value()}"),
            ("sub", f"vals[{i}] -= {value()}"),
            ("read", f"tot = tot + vals[{i}] * 0.5"),
            ("reduce", rng.choice(["tot = tot + sum(vals)", "tot = max(vals) - tot",
                                   "tot = tot + min(vals) * len(vals)"])),
            ("swap", "vals[0], vals[-1] = vals[-1], vals[0]"),
            ("helper_write", f"bump(arr, {rng.randint(0, 2)})"),
            ("plain", "a = a * 0.5 - 1.0"),
        ]
        if not ints:
            opts.append(("divide_by_item", f"tot = b / vals[{i}]"))
        kind, text = rng.choice(opts)
        features.append(kind)
        if kind in ("set", "add", "sub", "read", "divide_by_item"):
            features.append(feat)
        return [f"{sp}{text}"]

    def block(indent, depth, loops):
        sp = "    " * indent
        out = []
        for _ in range(rng.randint(1, 3)):
            r = rng.random()
            if r < 0.4 or depth >= 2:
                out += simple(sp, loops)
            elif r < 0.6:
                out.append(f"{sp}if {cond()}:")
                out += block(indent + 1, depth + 1, loops)
                q = rng.random()
                if q < 0.3:
                    features.append("elif")
                    out.append(f"{sp}elif {cond()}:")
                    out += block(indent + 1, depth + 1, loops)
                if q < 0.6:
                    out.append(f"{sp}else:")
                    out += block(indent + 1, depth + 1, loops)
            elif r < 0.8:
                n_loop[0] += 1
                c = f"k{n_loop[0]}"
                out.append(f"{sp}for {c} in range({rng.randint(1, size + 1)}):")
                if rng.random() < 0.4:
                    kind = rng.choice(["break", "continue"])
                    features.append(kind)
                    out.append(f"{sp}    if {cond()}:")
                    out.append(f"{sp}        {kind}")
                out += block(indent + 1, depth + 1, loops + [c])
            elif r < 0.9:
                n_loop[0] += 1
                c = f"k{n_loop[0]}"
                features.append("while")
                out.append(f"{sp}{c} = 0")
                out.append(f"{sp}while {c} < {rng.randint(1, 3)} and {cond()}:")
                out += block(indent + 1, depth + 1, loops + [c])
                out.append(f"{sp}    {c} += 1")
            else:
                features.append("for_elem")
                out.append(f"{sp}for v in vals:")
                out.append(f"{sp}    tot = tot + v * 0.25")
        return out

    lines += block(0, 0, [])
    if refusal > 0.96:
        lines.append(rng.choice(["vals.append(tot)", "other = vals"]))
        features.append("refused_use")
    if rng.random() < 0.2:
        lines.append(", ".join(f"u{j}" for j in range(size)) + " = vals")
        features.append("unpack")
        ret = "return u0 + tot + arr[1]"
    else:
        ret = rng.choice(["return vals[0] + tot * 1.0 + arr[0]", "return sum(vals) + tot",
                          "return (vals[-1] * 1.0, tot)", "return max(vals) * 1.0"])
    source = (HEADER + "def bump(w, i):\n    w[i] += 1.0\n\n\n" + "def f(x, y):\n"
              + "".join(f"    {ln}\n" for ln in lines + [ret]))
    return source, features


# ============================================================================= vecops

_VEC_OPS = [
    ("sum_axis", "np.sum(x, axis={ax}, keepdims={kd})"),
    ("mean_axis", "np.mean(x, axis={ax}, keepdims={kd})"),
    ("max_axis", "np.max(x, axis={ax}, keepdims={kd})"),
    ("min_method", "x.min(axis={ax}, keepdims={kd})"),
    ("argmax", "np.argmax(x, axis={ax})"),
    ("argmin", "np.argmin(x, axis={ax})"),
    ("sort", "np.sort(x, axis={ax})"),
    ("argsort_stable", "np.argsort(x, axis={ax}, kind='stable')"),
    ("cumsum", "np.cumsum(x, axis={ax})"),
    ("cumprod", "np.cumprod(x, axis={ax})"),
    ("where_bcast", "np.where(x > y, x, y)"),
    ("where_scalar", "np.where(x > 0, x, 0.0)"),
    ("clip_none_hi", "np.clip(x, y, None)"),
    ("clip_none_lo", "np.clip(x, None, y)"),
    ("any_axis", "np.any(x > y, axis={ax})"),
    ("all_axis", "np.all(x >= 0, axis={ax}, keepdims={kd})"),
    ("prod_axis", "np.prod(x, axis={ax})"),
    ("std_axis", "np.std(x, axis={ax})"),
    ("diff", "np.diff(x, axis={ax})"),
    ("count_nonzero", "np.count_nonzero(x > y, axis={ax})"),
    ("nansum", "np.nansum(x, axis={ax})"),
    ("max_initial", "np.max(x, axis={ax}, initial=-1.0)"),
    ("sum_all", "np.sum(x)"),
    ("mean_all", "x.mean()"),
    ("argmax_all", "np.argmax(x)"),
    ("sort_desc", "-np.sort(-x, axis={ax})"),
]


def _vecops_program(rng):
    """(source, per-example shape of x, features) of a ``vecops`` program (vmap only)."""
    shape = rng.choice([(5,), (4,), (3, 4), (0,), (1,), (2, 0)])
    features, lines = [], []
    rank = len(shape)
    for k in range(rng.randint(1, 2)):
        feat, template = rng.choice(_VEC_OPS)
        ax = rng.choice(list(range(-rank, rank)) + ([None] if rng.random() < 0.2 else []))
        kd = rng.choice(["True", "False"])
        lines.append(f"r{k} = " + template.format(ax=ax, kd=kd))
        features.append(feat)
    if rng.random() < 0.3:
        lines += ["if np.sum(x) > y:", "    r0 = r0 * 2", "else:", "    r0 = r0 - 1"]
        features.append("if_around")
    ret = rng.choice(["return r0", "return r0, y * 1.0"] +
                     (["return r0, r1"] if len(lines) > 1 and "r1" in lines[1] else []))
    source = HEADER + "def f(x, y):\n" + "".join(f"    {ln}\n" for ln in lines + [ret])
    return source, shape, features


def vecops_inputs(rng, n: int, shape, dtype: str):
    size = int(np.prod(shape, dtype=int)) * n
    # small ints as floats: ties for argmax / sort stability
    vals = [rng.choice([0.0, 1.0, 1.0, -1.0, 2.0, 2.0, -0.0, 3.0, float("nan"),
                        float("inf")]) if rng.random() < 0.7 else rng.uniform(-3, 3)
            for _ in range(size)]
    x = np.array(vals).reshape((n,) + tuple(shape))
    y = np.array([rng.choice([0.0, 1.0, 2.5, -1.0]) for _ in range(n)])
    with np.errstate(all="ignore"):
        return x.astype(dtype), y.astype(dtype)


# ========================================================================= condwrites

def _condwrites_program(rng, api: str, dtype: str):
    """(source, features) of a ``condwrites`` program ``f(x, y)``: ``v`` a vector of 4, ``k``
    an int, both per example; ``out`` (4), ``acc`` (3) and ``mat`` (3x4) arrays the function
    creates and writes into under per-example conditions."""
    features = []
    start = "x * ARR" if api == "vectorize" else "x * 1.0"
    # (an int array only for int inputs: a NaN or inf written into one raises ValueError /
    # OverflowError per example, which the batch does not check, written under a condition
    # or not)
    out_init = rng.choice(["np.zeros(4)", "np.zeros(4)", "v.copy()", "np.ones(4) * 0.5"]
                          + (["np.zeros(4, dtype=np.int64)"] if dtype == "int64" else []))
    lines = [f"v = {start}", "k = y", f"out = {out_init}", "acc = np.zeros(3)", "tot = 0.0"]
    uses_mat = rng.random() < 0.2
    if uses_mat:
        lines.append("mat = np.zeros((3, 4))")
    extra = rng.random()
    # the other shapes generated programs write (a few per program, most programs none)
    if extra < 0.08:
        lines.append("out = np.array(v)")
        features.append("np_array_copy")
    elif extra < 0.14:
        lines.append("out = np.full(4, v[0])")
        features.append("full_per_example")
    elif extra < 0.19:
        lines.append("out = np.roll(v, 1)")
        features.append("roll_per_example")
    n_loop = [0]

    def index_names(loops):
        return [n for n in loops] or ["0"]

    def value(loops):
        i = rng.choice(index_names(loops))
        return rng.choice([f"v[{i}] * 2.0", f"v[{i}] - v[0]", "tot * 0.5", "1.0",
                           f"v[{i}] + k", f"out[{i}] * 0.5 + 1.0", f"abs(v[{i}])"])

    def cond(loops):
        i = rng.choice(index_names(loops))
        return rng.choice([f"v[{i}] > 0", f"v[{i}] > v[0]", "tot > 1.0", "k > 0",
                           f"out[{i}] < 0.5", f"v[{i}] != v[{i}]", "k % 2 == 0",
                           f"abs(v[{i}]) < 1.5"])

    def write(sp, loops):
        i = rng.choice(index_names(loops))
        opts = [
            ("set", f"out[{i}] = {value(loops)}"),
            ("add", f"out[{i}] += {value(loops)}"),
            ("sub_acc", f"acc[{i} % 3] -= {value(loops)}"),
            ("mul", f"out[{i}] *= 0.5"),
            ("idx_wrap", f"out[k % 4] = {value(loops)}"),
            ("idx_wrap_add", f"acc[k % 3] += {value(loops)}"),
            ("idx_guarded", None),
            ("slice", f"out[1:3] = {value(loops)}"),
            ("swap", f"out[{i}], out[3 - {i}] = out[3 - {i}], out[{i}]"),
            ("read", f"tot += out[{i}]"),
            ("helper_value", f"out[{i}] = scaled(v, {i})"),
        ]
        if uses_mat:
            opts += [("mat_row", f"mat[{i} % 3] = v * 0.5"),
                     ("mat_item", f"mat[{i} % 3, {i}] += 1.0"),
                     ("mat_mixed", f"mat[k % 3, 1:3] = {value(loops)}")]
        if rng.random() < 0.05:
            opts.append(("helper_in_place", f"bump(out, {i})"))
        if rng.random() < 0.05:
            opts.append(("alias", f"alias = out\nalias[{i}] = 2.0\ntot += out[{i}]"))
        if rng.random() < 0.03:
            opts.append(("idx_unguarded", "out[k] += 1.0"))
        feat, text = rng.choice(opts)
        features.append(feat)
        if feat == "idx_guarded":
            return [f"{sp}if 0 <= k < 4:", f"{sp}    out[k] = {value(loops)}"]
        return [f"{sp}{ln}" for ln in text.split("\n")]

    def block(indent, depth, loops):
        sp = "    " * indent
        body = []
        for _ in range(rng.randint(1, 3)):
            r = rng.random()
            if r < 0.3 or depth >= 2:
                body += write(sp, loops)
            elif r < 0.55:
                body.append(f"{sp}if {cond(loops)}:")
                body += block(indent + 1, depth + 1, loops)
                q = rng.random()
                if q < 0.3:
                    features.append("elif")
                    body.append(f"{sp}elif {cond(loops)}:")
                    body += block(indent + 1, depth + 1, loops)
                if q < 0.6:
                    features.append("else")
                    body.append(f"{sp}else:")
                    body += block(indent + 1, depth + 1, loops)
            elif r < 0.75 and len(loops) < 2:
                n_loop[0] += 1
                i = f"i{n_loop[0]}"
                body.append(f"{sp}for {i} in range(4):")
                if rng.random() < 0.35:
                    exit_kind = rng.choice(["break", "continue"])
                    features.append(exit_kind)
                    body.append(f"{sp}    if {cond(loops + [i])}:")
                    body.append(f"{sp}        {exit_kind}")
                body += block(indent + 1, depth + 1, loops + [i])
            elif r < 0.88 and len(loops) < 2:
                n_loop[0] += 1
                j = f"j{n_loop[0]}"
                features.append("while")
                body.append(f"{sp}{j} = 0")
                body.append(f"{sp}while {j} < 4 and v[{j}] < {rng.choice(['2.0', '0.5'])}:")
                body += block(indent + 1, depth + 1, loops + [j])
                body.append(f"{sp}    {j} += 1")
            else:
                features.append("return_early")
                body.append(f"{sp}if {cond(loops)}:")
                body.append(f"{sp}    return {ret}")
        return body

    if api == "vectorize":
        ret = "np.sum(out) * 1.0 + acc[0] - acc[2] + tot"
    else:
        ret = rng.choice(["out * 1.0", "(out * 1.0, acc[0] + tot)", "acc + tot",
                          "out[0] + out[3] * 1.0"])
        if uses_mat:
            ret = rng.choice([ret, "mat + out[0]"])
    lines += block(0, 0, [])
    source = (HEADER + "def scaled(w, i):\n    if w[i] > 0:\n        return w[i] * 3.0\n"
              "    return -w[i]\n\n\n"
              "def bump(w, i):\n    w[i] += 1.0\n\n\n"
              + "def f(x, y):\n" + "".join(f"    {ln}\n" for ln in lines + [f"return {ret}"]))
    return source, features


def torch_spelling(source: str) -> str:
    """A ``condwrites`` program written with PyTorch instead of NumPy (``torch.zeros(4,
    dtype=torch.float64)``, ``.clone()``, ``torch.sum``...), for ``backend="torch"``."""
    import re
    out = source.replace("import numpy as np\n", "import numpy as np\nimport torch\n")
    out = re.sub(r"ARR = np\.array\((\[[^\]]*\])\)", r"ARR = torch.tensor(\1, dtype=torch.float64)",
                 out)
    out = out.replace("np.zeros(4, dtype=np.int64)", "torch.zeros(4, dtype=torch.int64)")
    out = re.sub(r"np\.(zeros|ones)\((\(3, 4\)|\d)\)", r"torch.\1(\2, dtype=torch.float64)", out)
    out = out.replace("np.array(v)", "v.clone()").replace(".copy()", ".clone()")
    out = out.replace("np.full(4, v[0])", "torch.full((4,), v[0])")
    out = out.replace("np.roll(v, 1)", "torch.roll(v, 1)").replace("np.sum(", "torch.sum(")
    return out


def run_torch_case(source: str, arg_sets: list, writer: ModuleWriter, api: str) -> Outcome:
    """A ``condwrites`` program in PyTorch's spelling (`torch_spelling`) through ``vmap`` /
    ``vectorize`` on tensors (vmap's semantics, docs/torch.md) against the loop over the
    examples as tensors, results stacked: equal values (NaN where NaN) and dtype."""
    import torch
    f = writer.load(Program(torch_spelling(source), ("x", "y"), 1))
    wrapped = vectorize(f, fallback="error") if api == "vectorize" else vmap(f)
    for k, args in enumerate(arg_sets):
        args = tuple(torch.as_tensor(a) for a in args)
        call = f"call {k + 1} (N={len(args[0])})"
        got = _outcome_of(wrapped, *args)
        if got[0] == "raised" and isinstance(got[1], VectorizeError):
            return Outcome("rejected", str(got[1]), normalize_reason(str(got[1])), call=call)
        if len(args[0]) == 0:
            if got[0] == "raised":
                return Outcome("internal", f"{type(got[1]).__name__}: {got[1]}", call=call)
            continue
        try:
            rows = [f(*row) for row in zip(*args)]
        except Exception:  # noqa: BLE001 -- an example raises: nothing to compare
            continue
        if got[0] == "raised":
            tb = "".join(traceback.format_exception(got[1]))[-3000:]
            return Outcome("internal", f"{type(got[1]).__name__}: {got[1]}\n{tb}", call=call)
        expected = tuple(torch.stack([torch.as_tensor(r[i]) for r in rows])
                         for i in range(len(rows[0]))) if isinstance(rows[0], tuple) \
            else torch.stack([torch.as_tensor(r) for r in rows])
        pairs = zip(got[1], expected) if isinstance(expected, tuple) else [(got[1], expected)]
        for g, e in pairs:
            try:
                torch.testing.assert_close(torch.as_tensor(g), e, rtol=1e-12, atol=0,
                                           equal_nan=True)
            except AssertionError as exc:
                return Outcome("mismatch", f"{exc}\n got {g!r}\n expected {e!r}", call=call)
    return Outcome("ok")


def condwrites_inputs(rng, n: int, api: str, dtype: str):
    def number():
        return rng.choice([0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -3.0, float("nan"), float("inf")]) \
            if rng.random() < 0.3 else rng.uniform(-3, 3)
    shape = (n,) if api == "vectorize" else (n, 4)
    x = np.array([number() for _ in range(int(np.prod(shape)))]).reshape(shape)
    if dtype == "int64":
        x = np.nan_to_num(x, nan=0.0, posinf=5.0).round()
    y = np.array([rng.choice([0, 1, 2, 3, -1, 5, -4]) for _ in range(n)], dtype=np.int64)
    return x.astype(dtype), y


# ============================================================================== cases

def case(family: str, seed: int, backend: str | None = None):
    """(source, api, features, run) of one program: ``run(writer)`` gives its `Outcome`;
    ``backend``: wrapped with ``backend=...`` (the construct families), against the same
    references."""
    rng = random.Random(f"{family}:{seed}")
    if family == "axes":
        source, spec = axes_case(seed)
        return source, "vmap", ["nested" if spec["nested"] else "flat"], \
            lambda writer: run_axes_case(source, spec, writer)
    api = rng.choice(["vectorize", "vmap"])
    sizes = [rng.randint(6, 24), 0, 1, 5, 300]
    if family == "dtypes":
        source, dtypes, features = _dtypes_program(rng, api)
        arg_sets = [dtype_inputs(random.Random(seed * 31 + n), dtypes, n) for n in sizes]
    elif family == "flow":
        source, features = _flow_program(rng)
        dtype = rng.choice(["float64", "float64", "float64", "float32", "int64"])
        arg_sets = [flow_inputs(random.Random(seed * 31 + n), n, dtype) for n in sizes]
    elif family == "condwrites":
        dtype = rng.choice(["float64", "float64", "float64", "int64"])
        source, features = _condwrites_program(rng, api, dtype)
        arg_sets = [condwrites_inputs(random.Random(seed * 31 + n), n, api, dtype)
                    for n in sizes]
    elif family == "lists":
        source, features = _lists_program(rng)
        dtype = rng.choice(["float64", "float64", "float64", "float32"])
        arg_sets = [flow_inputs(random.Random(seed * 31 + n), n, dtype) for n in sizes]
    elif family == "vecops":
        api = "vmap"
        source, shape, features = _vecops_program(rng)
        dtype = rng.choice(["float64", "float64", "float32", "int64"])
        if dtype == "int64":
            source = source.replace("float('nan')", "0")
        arg_sets = [vecops_inputs(random.Random(seed * 31 + n), n, shape, dtype)
                    for n in sizes]
        if dtype == "int64":
            arg_sets = [tuple(np.nan_to_num(a, nan=0, posinf=9).astype("int64") for a in s)
                        for s in arg_sets]
        if rng.random() < 0.4:
            return source, "signature", features, \
                lambda writer: run_signature_case(source, arg_sets, writer, len(shape))
    else:
        raise ValueError(family)
    if family == "condwrites" and backend == "torch":
        return torch_spelling(source), api, features, \
            lambda writer: run_torch_case(source, arg_sets, writer, api)
    return source, api, features, \
        lambda writer: _run_construct(source, arg_sets, writer, api, backend)


def _run_construct(source, arg_sets, writer, api, backend=None):
    """`run_construct_case`; an exception at N = 0 where every example of the drawn call
    raises in the scalar code (an out-of-range literal for the dtype under NEP 50, the
    argmax of an empty row) is what the loop would raise: not a bug."""
    outcome = run_construct_case(source, arg_sets, writer, api, backend=backend)
    if outcome.kind == "mismatch" and outcome.detail.startswith("a RuntimeWarning") and (
            "np.zeros(" in source or "ARR" in source):
        # numpy.vectorize's own "invalid value encountered in f (vectorized)" comes from the
        # FPU flags a Python `inf - inf` leaves; a NumPy scalar operation after it (on
        # `acc[0]`, an item of ARR) clears them: whether it warns is an artefact there
        return Outcome("known", outcome.detail, call=outcome.call)
    if outcome.kind != "internal" or "(N=0)" not in outcome.call:
        return outcome
    f = writer.load(Program(source, ("x", "y"), 1))
    raised = set()
    with np.errstate(all="ignore"):
        for i in range(len(arg_sets[0][0])):
            try:
                f(*[a[i] for a in arg_sets[0]])
            except Exception as exc:  # noqa: BLE001 -- the type is compared
                raised.add(type(exc).__name__)
                continue
            return outcome
    if raised:
        # (every example raises: the empty batch may raise what another statement of every
        # example raises, `x * 300` of int8 (NEP 50) after `y ** -1` of ints)
        return Outcome("vacuous", outcome.detail, call=outcome.call)
    return outcome


def run_signature_case(source: str, arg_sets: list, writer: ModuleWriter,
                       rank: int) -> Outcome:
    """A ``vecops`` program through ``vectorize(f, signature=...)`` against
    ``numpy.vectorize(f, signature=...)`` itself: ``x`` has ``rank`` core dimensions, ``y``
    none, and each output the core dimensions of its result on the first example."""
    f = writer.load(Program(source, ("x", "y"), 1))
    drawn = arg_sets[0]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            first = f(drawn[0][0], drawn[1][0])
        except Exception:  # noqa: BLE001 -- the first example raises: nothing to compare
            return Outcome("vacuous")
    outs = first if isinstance(first, tuple) else (first,)
    names = iter("pqrstu")
    core = "(" + ",".join(f"a{k}" for k in range(rank)) + ")"
    sig = f"{core},()->" + ",".join(
        "(" + ",".join(next(names) + str(k) for k in range(np.ndim(o))) + ")" for o in outs)
    wrapped = vectorize(f, signature=sig, fallback="error")
    for k, args in enumerate(arg_sets):
        call = f"call {k + 1} (N={len(args[0])}) signature={sig!r}"
        if len(args[0]) == 0:
            got = _outcome_of(wrapped, *args)
            if got[0] == "raised" and not isinstance(got[1], (VectorizeError, ValueError)):
                return Outcome("internal", f"{type(got[1]).__name__}: {got[1]}", call=call)
            continue
        ref = _outcome_of(np.vectorize(f, signature=sig), *args)
        got = _outcome_of(wrapped, *args)
        if got[0] == "raised" and isinstance(got[1], VectorizeError):
            return Outcome("rejected", str(got[1]), normalize_reason(str(got[1])), call=call)
        if ref[0] == "raised":
            if got[0] == "raised" and type(got[1]) is type(ref[1]):
                continue
            return Outcome("mismatch", f"numpy.vectorize raises {type(ref[1]).__name__}: "
                           f"{ref[1]}; got " + (f"{type(got[1]).__name__}: {got[1]}"
                                                if got[0] == "raised" else repr(got[1])),
                           call=call)
        if got[0] == "raised":
            return _internal(got[1], call)
        problem = _same(got[1], ref[1], call)
        if problem:
            return Outcome("mismatch", f"{problem}\n got {got[1]!r}\n expected {ref[1]!r}",
                           call=call)
    return Outcome("ok")
