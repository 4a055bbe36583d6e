"""A differential fuzzer over `vmap`'s ARGUMENT PATTERNS, against the peers themselves.

    python benchmarks/fuzz_vmapargs35.py --n 300 --seed 0
    python benchmarks/fuzz_vmapargs35.py --n 200 --only torch --verbose

Each seed draws one case: arguments that are pytrees (leaves, tuples, lists, dicts, a dict
of a tuple) of 0-d, 1-d and 2-d leaves of float32/float64/int32/int64/bool; ``in_axes`` as an
int, None, a negative int, a tuple (or a list) of per-argument tree prefixes with per-leaf
axes and None leaves; results that are one leaf, a tuple, a dict or a dict in a tuple, with
``out_axes`` an int, a negative int, None (for results that are not batched) or a tree;
batch sizes 0, 1, 2 and 5; vmap nested 1, 2 and 3 deep with other ``in_axes``/``out_axes``
per level, either ``vmap(vmap(f))`` or a vmapped function called inside another vmapped
function's body; keyword arguments (not mapped, as torch.func); JAX's ``axis_size``; and the
calls JAX refuses (mapped sizes that differ, an axis out of range, an ``in_axes`` whose
structure does not match the arguments), where the exception type must be JAX's and ours a
located `VectorizeError`. Bodies: elementwise, reductions (``.sum()``, ``x @ w``) and a
per-example ``if``.

The reference: for NumPy arrays, the per-example loop (stacked at ``out_axes``; the shapes
are cross-checked with ``jax.vmap`` where JAX accepts the function); for torch tensors,
``torch.func.vmap`` (the loop where the body has a per-example ``if``); for JAX arrays,
``jax.vmap`` (x64 on; the loop over JAX arrays where there is an ``if``, and where keyword
arguments are passed: JAX maps those, ``docs/semantics.md`` says why vmap does not).

Outcomes: ok, rejected (a located VectorizeError where the peer computes), mismatch (a
different result: structure, shape, dtype or values), crash (any other exception from
vmap), error-mismatch (an error case: a different exception type, or one not located),
peer-error (the peer raised on a valid case: not compared). Exit status 1 on a mismatch,
crash or error-mismatch.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
import tempfile
import time
import traceback
import warnings
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

DTYPES = ("float32", "float64", "int32", "int64", "bool")
SHAPES = ((), (3,), (2, 3))
LIBS = ("numpy", "torch", "jax")


# ------------------------------------------------------------------ the peers, lazily

def _jax():
    import jax
    jax.config.update("jax_enable_x64", True)
    return jax


def _torch():
    import torch
    return torch


def to_lib(lib, a):
    if lib == "numpy":
        return a
    if lib == "torch":
        return _torch().from_numpy(np.array(a))
    return _jax().numpy.asarray(a)


def _is_leaf(x) -> bool:
    return not isinstance(x, (tuple, list, dict))


def tree_map(fn, tree):
    if isinstance(tree, dict):
        return {k: tree_map(fn, v) for k, v in tree.items()}
    if isinstance(tree, (tuple, list)):
        return type(tree)(tree_map(fn, v) for v in tree)
    return fn(tree)


def leaves(tree) -> list:
    if isinstance(tree, dict):
        return [x for v in tree.values() for x in leaves(v)]
    if isinstance(tree, (tuple, list)):
        return [x for v in tree for x in leaves(v)]
    return [tree]


# ------------------------------------------------------------------ the per-example loop

def _take(lib, leaf, axis, n):
    if axis is None:
        return leaf
    if lib == "torch":
        return leaf.select(axis, n)
    if lib == "jax":
        return _jax().numpy.take(leaf, n, axis=axis)
    return np.take(leaf, n, axis=axis)


def _stack(lib, items, axis):
    if lib == "torch":
        torch = _torch()
        return torch.movedim(torch.stack([torch.as_tensor(i) for i in items]), 0, axis)
    if lib == "jax":
        jnp = _jax().numpy
        return jnp.moveaxis(jnp.stack([jnp.asarray(i) for i in items]), 0, axis)
    return np.moveaxis(np.stack([np.asarray(i) for i in items]), 0, axis)


def _spec_leaves(spec, tree) -> list:
    """The axis of every leaf of ``tree`` (``spec`` a tree prefix of it)."""
    if spec is None or isinstance(spec, int):
        return [spec] * len(leaves(tree))
    if isinstance(tree, dict):
        assert isinstance(spec, dict) and set(spec) == set(tree), (spec, tree)
        return [a for k in tree for a in _spec_leaves(spec[k], tree[k])]
    assert type(spec) is type(tree) and len(spec) == len(tree), (spec, tree)
    return [a for s, t in zip(spec, tree) for a in _spec_leaves(s, t)]


def _rebuild(tree, it):
    if isinstance(tree, dict):
        return {k: _rebuild(v, it) for k, v in tree.items()}
    if isinstance(tree, (tuple, list)):
        return type(tree)(_rebuild(v, it) for v in tree)
    return next(it)


def loop_vmap(lib):
    """vmap by its definition over ``lib``'s arrays: the reference for bodies with an ``if``."""
    def make(f, in_axes=0, out_axes=0, axis_size=None):
        def mapped(*args, **kwargs):
            spec = tuple(in_axes) if isinstance(in_axes, (tuple, list)) else \
                (in_axes,) * len(args)
            axes = _spec_leaves(spec, tuple(args))
            flat = leaves(tuple(args))
            sizes = {leaf.shape[ax] for leaf, ax in zip(flat, axes) if ax is not None}
            if axis_size is not None:
                sizes.add(axis_size)
            assert len(sizes) == 1, sizes
            (size,) = sizes
            norm = [None if ax is None else ax % len(leaf.shape) for leaf, ax in zip(flat, axes)]
            rows = [f(*_rebuild(tuple(args), iter([_take(lib, leaf, ax, n)
                                                    for leaf, ax in zip(flat, norm)])),
                      **kwargs) for n in range(size)]
            assert rows, "the loop needs an example"
            template = rows[0]
            columns = list(zip(*[leaves(r) for r in rows]))
            outs = []
            spec = out_axes
            if isinstance(out_axes, tuple) and len(out_axes) == 1 and _is_leaf(template):
                spec = out_axes[0]       # torch.func's one-output edge case
            for column, axis in zip(columns, _spec_leaves(spec, template)):
                if axis is None:
                    assert all(_same_value(column[0], c) for c in column), "mapped, None"
                    outs.append(column[0])
                else:
                    ndim = len(np.shape(np.asarray(column[0]))) + 1
                    outs.append(_stack(lib, column, axis % ndim))
            return _rebuild(template, iter(outs))
        return mapped
    return make


def _np(x):
    if type(x).__module__.startswith("torch"):
        return x.detach().numpy()
    return np.asarray(x)


def _same_value(a, b) -> bool:
    return np.array_equal(_np(a), _np(b))


def compare(got, expected, path="out") -> str | None:
    """None where ``got`` is ``expected`` (structure, shapes, dtypes, values), else why not."""
    if isinstance(expected, (tuple, list, dict)):
        if type(got) is not type(expected):
            return f"{path}: type {type(got).__name__}, expected {type(expected).__name__}"
        if isinstance(expected, dict):
            if list(got) != list(expected):
                return f"{path}: keys {list(got)}, expected {list(expected)}"
            pairs = [(got[k], expected[k], f"{path}[{k!r}]") for k in expected]
        else:
            if len(got) != len(expected):
                return f"{path}: length {len(got)}, expected {len(expected)}"
            pairs = [(g, e, f"{path}[{i}]") for i, (g, e) in enumerate(zip(got, expected))]
        for g, e, p in pairs:
            why = compare(g, e, p)
            if why:
                return why
        return None
    if type(expected).__module__.startswith("torch") and \
            not type(got).__module__.startswith("torch"):
        return f"{path}: {type(got).__name__}, expected a tensor"
    if type(expected).__module__.startswith("jax") and \
            not type(got).__module__.startswith("jax"):
        return f"{path}: {type(got).__name__}, expected a jax.Array"
    g, e = _np(got), _np(expected)
    if g.shape != e.shape:
        return f"{path}: shape {g.shape}, expected {e.shape}"
    if g.dtype != e.dtype:
        return f"{path}: dtype {g.dtype}, expected {e.dtype}"
    if e.dtype.kind == "f":
        ok = np.allclose(g, e, rtol=1e-5 if e.dtype == np.float32 else 1e-12, atol=1e-6,
                         equal_nan=True)
    else:
        ok = np.array_equal(g, e)
    return None if ok else f"{path}: values differ\n{g}\nexpected\n{e}"


# ------------------------------------------------------------------ drawing a case

class Leaf:
    def __init__(self, name, path, shape, dtype):
        self.name, self.path, self.shape, self.dtype = name, path, shape, dtype
        self.axes = []      # the axis at each level, innermost first (None: not mapped)

    @property
    def expr(self):
        return f"({self.name} * 3)" if self.dtype == "bool" else self.name


def _draw_param(rng, p, counter):
    """(the argument's structure: a tree of `Leaf`s, its kind)."""
    def leaf(path):
        counter[0] += 1
        return Leaf(f"l{counter[0]}", f"{p}{path}", rng.choice(SHAPES), rng.choice(DTYPES))
    kind = rng.choice(("leaf", "leaf", "leaf", "tuple", "list", "dict", "nested"))
    if kind == "leaf":
        return leaf("")
    if kind == "tuple":
        return (leaf("[0]"), leaf("[1]"))
    if kind == "list":
        return [leaf("[0]"), leaf("[1]")]
    if kind == "dict":
        return {"w": leaf("['w']"), "b": leaf("['b']")}
    return {"p": (leaf("['p'][0]"), leaf("['p'][1]")), "s": leaf("['s']")}


def _axis_spec(rng, tree, level):
    """The in_axes entry of one argument at ``level``: a single int/None where every leaf
    has the same axis (sometimes negative), else a tree of the same structure."""
    flat = leaves(tree)
    axes = [lf.axes[level] for lf in flat]
    ranks = {len(lf.shape) + sum(a is not None for a in lf.axes[:level + 1]) for lf in flat}
    if len(set(axes)) == 1 and rng.random() < 0.8:
        a = axes[0]
        if a is not None and len(ranks) == 1 and rng.random() < 0.3:
            a -= ranks.pop()
        return a

    def spec(t):
        if isinstance(t, dict):
            return {k: spec(v) for k, v in t.items()}
        if isinstance(t, (tuple, list)):
            return type(t)(spec(v) for v in t)
        a = t.axes[level]
        if a is not None and rng.random() < 0.3:
            a -= len(t.shape) + sum(x is not None for x in t.axes[:level + 1])
        return a
    return spec(tree)


def _shape_at(lf, level, sizes):
    """The leaf's shape as the vmap at ``level`` (0: innermost) receives it."""
    shape = list(lf.shape)
    for lv in range(level + 1):
        if lf.axes[lv] is not None:
            shape.insert(lf.axes[lv], sizes[lv])
    return tuple(shape)


def _value(rng, shape, dtype, nprng):
    if dtype == "bool":
        return nprng.random(shape) < 0.5
    if dtype.startswith("int"):
        return nprng.integers(-5, 6, size=shape).astype(dtype)
    return nprng.normal(size=shape).astype(dtype)


def _broadcast(*shapes):
    return tuple(np.broadcast_shapes(*shapes))


class Case:
    pass


def draw(seed: int) -> Case:
    rng = random.Random(seed)
    c = Case()
    c.seed = seed
    c.lib = LIBS[seed % 3]
    c.depth = rng.choice((1, 1, 1, 2, 2, 3))
    c.style = "inside" if c.depth >= 2 and rng.random() < 0.4 else "stacked"
    c.body = rng.choice(("elementwise", "reduction", "if"))
    counter = [0]
    nparams = rng.choice((1, 2, 2, 3))
    c.params = [f"p{i}" for i in range(nparams)]
    c.trees = [_draw_param(rng, p, counter) for p in c.params]
    flat = [lf for t in c.trees for lf in leaves(t)]
    # axes per level: mapped at random, at least one leaf mapped per level (or axis_size)
    c.axis_size = [None] * c.depth
    for level in range(c.depth):
        for lf in flat:
            rank = len(lf.shape) + sum(a is not None for a in lf.axes)
            lf.axes.append(rng.randint(0, rank) if rng.random() < 0.7 else None)
        if all(lf.axes[level] is None for lf in flat):
            if c.lib != "torch" and rng.random() < 0.5:
                c.axis_size[level] = True
            else:
                lf = rng.choice(flat)
                rank = len(lf.shape) + sum(a is not None for a in lf.axes[:level])
                lf.axes[level] = rng.randint(0, rank)
    c.sizes = [rng.choice((0, 1, 2, 5, 2, 5)) for _ in range(c.depth)]
    c.axis_size = [s if a else None for s, a in zip(c.sizes, c.axis_size)]
    c.in_axes = []
    for level in range(c.depth):
        specs = tuple(_axis_spec(rng, t, level) for t in c.trees)
        if len(set(map(repr, specs))) == 1 and (specs[0] is None or isinstance(specs[0], int)) \
                and rng.random() < 0.6:
            c.in_axes.append(specs[0])
        else:
            c.in_axes.append(list(specs) if rng.random() < 0.2 else specs)
    # keyword argument: one more leaf, not mapped (torch.func's semantics)
    c.kwarg = None
    if rng.random() < 0.15 and c.style == "stacked":
        c.kwarg = Leaf("k", "k", rng.choice(SHAPES), rng.choice(("float64", "int64")))
        c.kwarg.axes = [None] * c.depth
    # the body's outputs: (expression, per-example shape, the leaves it reads)
    usable = flat + ([c.kwarg] if c.kwarg else [])
    outs = []
    for _ in range(rng.choice((1, 1, 2, 3))):
        outs.append(_draw_expr(rng, c.body, usable))
    if rng.random() < 0.15:
        # an output that no level maps: a shared leaf or a constant
        shared = [lf for lf in usable if all(a is None for a in lf.axes)]
        if shared:
            lf = rng.choice(shared)
            outs.append((f"{lf.expr} + 1", lf.shape, [lf]))
    c.outs = outs
    c.form = rng.choice(("leaf", "tuple", "dict", "nested")) if len(outs) > 1 else "leaf"
    if len(outs) == 1:
        c.form = "leaf"
    elif c.form == "nested" and len(outs) < 3:
        c.form = "tuple"
    c.out_axes = [_draw_out_axes(rng, c, level) for level in range(c.depth)]
    c.error = None
    if rng.random() < 0.12:
        c.error = rng.choice(("sizes", "range", "structure", "length"))
    return c


def _draw_expr(rng, body, usable):
    a = rng.choice(usable)
    b = rng.choice(usable)
    c1 = rng.choice(("2.0", "3", "0.5"))
    if body == "reduction":
        # `@` of mixed dtypes differs between the libraries (torch refuses it): float64 only
        vec = [lf for lf in usable if lf.shape == (3,) and lf.dtype == "float64"]
        mat = [lf for lf in usable if lf.shape == (2, 3) and lf.dtype == "float64"]
        if len(vec) >= 1 and rng.random() < 0.5:
            w = rng.choice(vec)
            x = rng.choice(vec + mat)
            return (f"{x.name} @ {w.name}", x.shape[:-1], [x, w])
        return (f"({a.expr} * {c1} + {b.expr}).sum()", (), [a, b])
    shape = _broadcast(a.shape, b.shape)
    exprs = (f"{a.expr} * {c1} + {b.expr}", f"{a.expr} - {b.expr}",
             f"abs({a.expr}) + {b.expr}", f"{a.expr} * {b.expr}")
    expr = rng.choice(exprs)
    if body == "if":
        cond = f"{a.expr}.sum() > 0"
        return (("if", cond, expr, rng.choice(exprs)), shape, [a, b])
    return (expr, shape, [a, b])


def _out_batched(c, out, level):
    return any(lf.axes[level] is not None for lf in out[2]) or c.axis_size[level] is not None


def _draw_out_axes(rng, c, level):
    """The out_axes of ``level``; ``c.placed[level][i]``: whether output ``i`` gets an axis
    there (its rank at the next level is one more)."""
    if level == 0:
        c.placed = []

    def one(i, out):
        batched = _out_batched(c, out, level)
        if not batched and rng.random() < 0.6:
            return None
        rank = len(out[1]) + sum(c.placed[lv][i] for lv in range(level)) + 1
        a = rng.randint(0, rank - 1)
        return a - rank if rng.random() < 0.3 else a
    specs = [one(i, o) for i, o in enumerate(c.outs)]
    c.placed.append([sp is not None for sp in specs])
    c.negative_unbatched = getattr(c, "negative_unbatched", False) or any(
        sp is not None and sp < 0 and not _out_batched(c, o, level)
        for sp, o in zip(specs, c.outs))
    if len(set(map(repr, specs))) == 1 and rng.random() < 0.6 and \
            (specs[0] is None or len({len(o[1]) for o in c.outs}) == 1 or specs[0] >= 0):
        return specs[0]
    if c.form == "leaf":
        # a one-entry tuple for one output: torch.func's edge case, which JAX refuses
        return specs[0] if rng.random() < 0.7 or c.lib == "jax" else (specs[0],)
    if c.form == "tuple":
        return tuple(specs)
    if c.form == "dict":
        return {f"y{i}": s for i, s in enumerate(specs)}
    return ({"y0": specs[0], "y1": specs[1]}, tuple(specs[2:]))


# ------------------------------------------------------------------ writing the module

def source(c) -> str:
    lines = ["from vectorize import vmap  # IMPORT", "", ""]
    kw = ", *, k" if c.kwarg else ""
    lines.append(f"def f({', '.join(c.params)}{kw}):")
    for t in c.trees:
        for lf in leaves(t):
            lines.append(f"    {lf.name} = {lf.path}")
    names = []
    for i, (expr, _, _) in enumerate(c.outs):
        if isinstance(expr, tuple):
            _, cond, yes, no = expr
            lines += [f"    if {cond}:", f"        y{i} = {yes}", "    else:",
                      f"        y{i} = {no}"]
        else:
            lines.append(f"    y{i} = {expr}")
        names.append(f"y{i}")
    if c.form == "leaf":
        lines.append(f"    return {names[0]}")
    elif c.form == "tuple":
        lines.append(f"    return ({', '.join(names)},)")
    elif c.form == "dict":
        lines.append("    return {" + ", ".join(f"'{n}': {n}" for n in names) + "}")
    else:
        lines.append("    return ({'y0': y0, 'y1': y1}, (" +
                     ", ".join(names[2:]) + ",))")
    lines += ["", ""]
    if c.style == "inside":
        # level 0 is `f`'s vmap; each further level's function calls the previous one's
        prev = "f"
        for level in range(c.depth - 1):
            opts = _opts(c, level)
            lines.append(f"v{level} = vmap({prev}{opts})")
            lines += ["", ""]
            lines.append(f"def g{level}({', '.join(c.params)}):")
            lines.append(f"    return v{level}({', '.join(c.params)})")
            lines += ["", ""]
            prev = f"g{level}"
    return "\n".join(lines) + "\n"


def _opts(c, level):
    text = f", in_axes={c.in_axes[level]!r}, out_axes={c.out_axes[level]!r}"
    if c.axis_size[level] is not None:
        text += f", axis_size={c.axis_size[level]}"
    return text


class Writer:
    def __init__(self):
        self.dir = Path(tempfile.mkdtemp(prefix="vectorize_vmapargs35_"))
        self.count = 0

    def load(self, text: str):
        self.count += 1
        name = f"vmapargs35_{self.count}"
        path = self.dir / f"{name}.py"
        path.write_text(text)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module


def build(c, module, vmap):
    """The vmapped function of the case with ``vmap`` (ours or a peer's)."""
    if c.style == "inside":
        fn = getattr(module, f"g{c.depth - 2}")
        return _wrap(vmap, fn, c, c.depth - 1)
    fn = module.f
    for level in range(c.depth):
        fn = _wrap(vmap, fn, c, level)
    return fn


def _wrap(vmap, fn, c, level):
    kw = {}
    if c.axis_size[level] is not None:
        kw["axis_size"] = c.axis_size[level]
    return vmap(fn, in_axes=c.in_axes[level], out_axes=c.out_axes[level], **kw)


def peer_vmap(lib):
    if lib == "torch":
        from torch.func import vmap

        def wrap(f, in_axes=0, out_axes=0, **kw):
            assert not kw
            if isinstance(in_axes, list):
                in_axes = tuple(in_axes)        # (a list at the top: JAX's spelling)
            return vmap(f, in_dims=in_axes, out_dims=out_axes)
        return wrap
    return _jax().vmap


def arguments(c, lib, nprng):
    top = c.depth - 1
    args = []
    for t in c.trees:
        args.append(tree_map(lambda lf: to_lib(lib, _value(None, _shape_at(lf, top, c.sizes),
                                                           lf.dtype, nprng)), t))
    kwargs = {}
    if c.kwarg:
        kwargs["k"] = to_lib(lib, _value(None, c.kwarg.shape, c.kwarg.dtype, nprng))
    return args, kwargs


def _break(c, rng, args):
    """Make the call one that JAX refuses; None where this case has no such variant."""
    top = c.depth - 1
    flat = [lf for t in c.trees for lf in leaves(t)]
    if c.error == "sizes":
        mapped = [lf for lf in flat if lf.axes[top] is not None]
        if len(mapped) < 2 or c.sizes[top] == 0:
            return None
        lf = mapped[-1]
        old = c.sizes[top]
        c.sizes[top] = old + 1
        shape = _shape_at(lf, top, c.sizes)
        c.sizes[top] = old
        return ("sizes", lf, shape)
    if c.error == "range":
        if not isinstance(c.in_axes[top], int):
            return None
        rank = min(len(_shape_at(lf, top, c.sizes)) for lf in flat)
        c.in_axes[top] = rank + rng.randint(0, 1)
        return ("range",)
    if c.error == "structure":
        i = rng.randrange(len(c.trees))
        if _is_leaf(c.trees[i]):
            return None
        spec = list(c.in_axes[top]) if isinstance(c.in_axes[top], (tuple, list)) else \
            [c.in_axes[top]] * len(c.trees)
        spec[i] = {"zz": 0} if not isinstance(c.trees[i], dict) else (0, 0, 0)
        c.in_axes[top] = tuple(spec)
        return ("structure",)
    if c.error == "length":
        spec = list(c.in_axes[top]) if isinstance(c.in_axes[top], (tuple, list)) else \
            [c.in_axes[top]] * len(c.trees)
        c.in_axes[top] = tuple(spec + [0]) if rng.random() < 0.5 or len(spec) == 1 \
            else tuple(spec[:-1])
        return ("length",)
    return None


# ------------------------------------------------------------------ running one case

def _peer_call(c, text, writer, vmap, args, kwargs):
    module = writer.load(_with_vmap(text, "REF"))
    module.REF = vmap
    if c.style == "inside":
        _rebind(module, c, vmap)
    return build(c, module, vmap)(*args, **kwargs)


def _jax_args(args, kwargs):
    jnp = _jax().numpy
    return ([tree_map(lambda a: jnp.asarray(_np(a)), a) for a in args],
            {k: jnp.asarray(_np(v)) for k, v in kwargs.items()})


class Shapes:
    """What is compared where only JAX's vmap computes (torch.func refuses a batch of 0)."""

    def __init__(self, text):
        self.text = text


def _shapes(tree):
    return repr(tree_map(lambda a: tuple(np.shape(_np(a))), tree))


def run_case(seed: int, writer: Writer, verbose=False):
    """(outcome, detail, the reason of a refusal)."""
    from vectorize import VectorizeError, vmap
    c = draw(seed)
    rng = random.Random(seed * 31 + 7)
    nprng = np.random.default_rng(seed)
    broken = _break(c, rng, None) if c.error else None
    if c.error and broken is None:
        c.error = None
    text = source(c)
    lib = c.lib
    args, kwargs = arguments(c, lib, nprng)
    if broken and broken[0] == "sizes":
        # one mapped leaf with one example more
        _, lf, shape = broken
        args = _replace_leaf(c, args, lf, to_lib(lib, _value(None, shape, lf.dtype, nprng)))
    detail = f"lib={lib} depth={c.depth} style={c.style} sizes={c.sizes} " \
             f"in_axes={c.in_axes} out_axes={c.out_axes} axis_size={c.axis_size}\n{text}"
    # JAX accepts the function: no per-example `if` (and its keyword arguments, which it
    # maps, are not compared with it)
    jax_accepts = c.body != "if" and not c.kwarg
    exc_expected = None
    if c.error:
        # JAX's exception type is the reference for the calls it refuses
        try:
            _peer_call(c, text, writer, _jax().vmap, *_jax_args(args, kwargs))
        except Exception as exc:  # noqa: BLE001 -- what JAX raises
            exc_expected = exc
        else:
            return "peer-error", f"{detail}jax accepted the broken call ({broken})", ""
    expected, ref_name, raised = None, "loop", None
    if not c.error:
        if lib == "torch" and 0 in c.sizes:
            # torch.func.vmap crashes the process on some of these (a segfault in
            # `_remove_batch_dim`)
            ref_vmap = None
        elif lib == "numpy" or c.body == "if" or (lib == "jax" and c.kwarg) or \
                (lib == "torch" and any(s is not None for s in c.axis_size)) or \
                (lib == "torch" and c.negative_unbatched):
            # (torch.func.vmap with a negative out_dims on an output it does not batch:
            # a garbage shape, (34359738368,), or a segfault)
            ref_vmap = loop_vmap(lib)
        else:
            ref_vmap, ref_name = peer_vmap(lib), lib
        try:
            if ref_vmap is None:
                raise ValueError("not run")
            expected = _peer_call(c, text, writer, ref_vmap, args, kwargs)
        except Exception as exc:  # noqa: BLE001 -- refused (torch: batch size 0; the loop)
            raised = exc
            if not jax_accepts:
                # nothing to compare with: only that ours does not crash
                expected = "NONE"
            else:
                try:
                    expected = Shapes(_shapes(_peer_call(
                        c, text, writer, _jax().vmap, *_jax_args(args, kwargs))))
                except Exception:  # noqa: BLE001
                    return "peer-error", f"{detail}{ref_name}: {type(exc).__name__}: " \
                        f"{str(exc)[:300]}", ""
    try:
        got = build(c, writer.load(text), vmap)(*args, **kwargs)
    except VectorizeError as exc:
        if not c.error:
            return "rejected", f"{detail}{exc}", exc.reason[:110]
        if not exc.line or not exc.suggestion or "fuzz_vmapargs35" not in exc.filename:
            return "error-mismatch", f"{detail}not located at the call: {exc}", ""
        if not isinstance(exc, type(exc_expected)):
            return "error-mismatch", f"{detail}ours {type(exc).__name__}: {exc}\n" \
                f"jax {type(exc_expected).__name__}: {exc_expected}", ""
        return "ok-error", "", ""
    except Exception as exc:  # noqa: BLE001 -- anything else from vmap is a crash
        if raised is not None and type(exc) is type(raised):
            return "ok-raises", "", ""      # the function raises, as the reference does
        return "crash", f"{detail}{traceback.format_exc()}", ""
    if c.error:
        return "error-mismatch", f"{detail}ours computed where jax raised " \
            f"{type(exc_expected).__name__}: {exc_expected}", ""
    if isinstance(expected, str):
        return "ok-unchecked", "", ""
    if isinstance(expected, Shapes):
        if _shapes(got) != expected.text:
            return "mismatch", f"{detail}shapes {_shapes(got)}, jax.vmap's {expected.text}", ""
        return "ok-shapes", "", ""
    why = compare(got, expected)
    if why and lib == "jax" and "dtype" in why.split("\n")[0]:
        # the JAX backend computes in NumPy's dtypes (docs/jax.md, "float64"): the loop
        # over NumPy arrays is the reference for the dtype
        nargs = [tree_map(_np, a) for a in args]
        nkw = {k: _np(v) for k, v in kwargs.items()}
        try:
            npref = _peer_call(c, text, writer, loop_vmap("numpy"), nargs, nkw)
        except AssertionError:
            # an empty batch: no loop; the NumPy backend's result on the same arrays
            # (shapes and dtypes: its own checks are the NumPy cases of this fuzzer)
            try:
                npref = build(c, writer.load(text), vmap)(*nargs, **nkw)
            except Exception:  # noqa: BLE001
                npref = None
        except Exception:  # noqa: BLE001
            npref = None
        if npref is not None and compare(tree_map(_np, got), npref) is None:
            return "documented-dtype", "", ""
    if why and lib != "numpy" and c.body == "if" and "dtype" in why.split("\n")[0] and \
            compare(tree_map(lambda a: _np(a).astype(np.result_type(_np(a), np.float64)), got),
                    tree_map(lambda e: _np(e).astype(np.result_type(_np(e), np.float64)),
                             expected)) is None:
        # branches of different dtypes: with PyTorch and JAX the result keeps the join on
        # every call, where their loop stacks the lanes' own (docs/semantics.md)
        return "documented-join", "", ""
    if why and ref_name != "loop":
        # the peer against its own per-example loop: where the loop gives our answer, the
        # peer is the odd one out (torch.func.vmap's out_dims=-1 on an output it does not
        # batch gives a garbage shape)
        try:
            looped = _peer_call(c, text, writer, loop_vmap(lib), args, kwargs)
        except Exception:  # noqa: BLE001
            looped = None
        if looped is not None and compare(got, looped) is None:
            return "peer-differs", f"{detail}{ref_name}: {why}", ""
    if why:
        return "mismatch", f"{detail}{why}", ""
    if lib == "numpy" and jax_accepts:
        # the loop's shapes cross-checked with JAX's own vmap
        try:
            jout = _peer_call(c, text, writer, _jax().vmap, *_jax_args(args, kwargs))
        except Exception:  # noqa: BLE001 -- JAX refused: nothing to cross-check
            return "ok", "", ""
        if _shapes(got) != _shapes(jout):
            return "mismatch", f"{detail}shapes {_shapes(got)}, jax.vmap's {_shapes(jout)}", ""
    return "ok", "", ""


def _with_vmap(text, name):
    # the module-level vmaps are made by `_rebind` with the peer's vmap
    return text.replace("from vectorize import vmap  # IMPORT",
                        f"def {name}(*args, **kwargs):\n    return None") \
        .replace("vmap(", f"{name}(")


def _rebind(module, c, vmap):
    prev = module.f
    for level in range(c.depth - 1):
        setattr(module, f"v{level}", _wrap(vmap, prev, c, level))
        prev = getattr(module, f"g{level}")


def _replace_leaf(c, args, target, value):
    out = []
    for t, a in zip(c.trees, args):
        out.append(_swap(t, a, target, value))
    return out


def _swap(t, a, target, value):
    if isinstance(t, dict):
        return {k: _swap(t[k], a[k], target, value) for k in t}
    if isinstance(t, (tuple, list)):
        return type(t)(_swap(x, y, target, value) for x, y in zip(t, a))
    return value if t is target else a


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", choices=LIBS, default=None)
    parser.add_argument("--verbose", action="store_true")
    opts = parser.parse_args(argv)
    writer = Writer()
    counts, reasons = Counter(), Counter()
    bad = 0
    start = time.time()
    for seed in range(opts.seed, opts.seed + opts.n):
        if opts.only and LIBS[seed % 3] != opts.only:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                kind, detail, reason = run_case(seed, writer, opts.verbose)
            except Exception:  # noqa: BLE001 -- the fuzzer's own failure
                kind, detail, reason = "internal", traceback.format_exc(), ""
        counts[(LIBS[seed % 3], kind)] += 1
        if opts.verbose:
            print(f"seed {seed}: {kind}", flush=True)
        if kind == "rejected":
            reasons[reason] += 1
        if kind in ("mismatch", "crash", "error-mismatch", "internal") or \
                (opts.verbose and kind in ("rejected", "peer-error", "peer-differs")):
            bad += kind != "rejected" and kind != "peer-error"
            print(f"== seed {seed}: {kind}\n{detail}\n", flush=True)
    print(f"{opts.n} seeds in {time.time() - start:.0f} s")
    for lib in LIBS:
        row = {k: v for (lb, k), v in sorted(counts.items()) if lb == lib}
        if row:
            print(f"  {lib:6s} {row}")
    for reason, count in reasons.most_common(12):
        print(f"  {count:5d} rejected: {reason}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
