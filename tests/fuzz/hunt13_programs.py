"""Random `vmap` cases: scalar/row programs under random in_axes / out_axes at 1-3 levels.

A case is a module source (one function ``f`` and a helper ``h``) written for an array
namespace (``np`` for the NumPy and JAX backends, ``torch`` for PyTorch), the per-example
structure of its arguments (0-d leaves, rows of length 4, per-example ints used as
indices, bools used as conditions, a tuple / dict / list of leaves as one argument, a
shared argument that is never mapped, a keyword argument passed as it is) and the levels of
``vmap`` around it, innermost first: each level's ``in_axes`` (an int, negative or not,
None, or a tree matching the argument), ``out_axes`` (an int, negative or not, None for
the outputs that never vary, or a tree), its size (0 and 1 included) and, where no
argument is mapped at a level, ``axis_size``.

The body draws per-example ``if`` / ``else``, early ``return``, a bounded ``while``, a call
of the helper, ``.dot`` / ``@``, reductions over rows, indexing with a per-example int,
``where``, ``math``/NumPy functions and pytree reads (``p[0]``, ``p["b"]``).

The reference is the per-example loop at every level (`loop_level`, JAX's and
torch.func's definition of vmap): over NumPy scalars / rows for the NumPy and JAX backends,
over tensor elements for PyTorch. A level of size 0 has no example to call: its reference
is the loop at size 6 (a size no other axis has), the expected result that one with the 6
made 0 (the shapes of the program's results do not depend on values; their dtypes may,
through the path the examples take, so only shapes are compared).

`run_case` gives (kind, detail): ``ok``, ``both raise``, ``refused`` (a VectorizeError the
loop does not raise: counted by reason), ``mismatch``, ``internal`` (an exception that is
not a VectorizeError where the loop returns), ``raises-vs-returns`` (vmap returns where
the loop raises), ``joined dtype`` (equal values where the batch's dtype is the join of
the paths' dtypes, docs/semantics.md "Decisions" and "PyTorch"). Tolerances: 1e-12
relative for float64 results of float64 arguments; where a result or an argument is float32,
2e-6 (NumPy, PyTorch: a batched reduction adds in another order) and 1e-5 for JAX
(docs/jax.md, "Divergences": XLA's transcendental functions are within a few ulps, a
product feeding a sum may be fused into one rounding).
"""

from __future__ import annotations

import random
import traceback
import warnings
from dataclasses import dataclass, field

import numpy as np

LENGTH = 4          # every row's length
EMPTY_MARK = 6      # the size a level of size 0 is computed at by the reference

NP_DTYPES = {"f64": np.float64, "f32": np.float32, "i32": np.int32, "i64": np.int64,
             "bool": np.bool_}


# ------------------------------------------------------------------------ the reference
def _is_tensor(x) -> bool:
    return type(x).__module__.startswith("torch") and hasattr(x, "dim")


def _node(x) -> bool:
    return type(x) in (tuple, list, dict)


def _children(x) -> list:
    return list(x.values()) if isinstance(x, dict) else list(x)


def _remake(x, items):
    return dict(zip(x.keys(), items)) if isinstance(x, dict) else type(x)(items)


def _leaves(tree) -> list:
    return [leaf for c in _children(tree) for leaf in _leaves(c)] if _node(tree) else [tree]


def _rebuild(tree, it):
    return _remake(tree, [_rebuild(c, it) for c in _children(tree)]) if _node(tree) \
        else next(it)


def _axes_for(spec, tree) -> list:
    if not _node(spec):
        return [spec] * len(_leaves(tree))
    parts = [spec[k] for k in tree] if isinstance(tree, dict) else list(spec)
    return [a for p, t in zip(parts, _children(tree)) for a in _axes_for(p, t)]


def _take(leaf, axis, n):
    if axis is None:
        return leaf
    if _is_tensor(leaf):
        return leaf.select(axis, n)
    return np.take(np.asarray(leaf), n, axis=axis)


def _stack(items, axis):
    if any(_is_tensor(i) for i in items):
        import torch
        # a Python number per example comes back as a float64 / int64 / bool tensor
        # (docs/semantics.md, "PyTorch"; torch.func.vmap refuses a non-tensor output)
        items = [i if _is_tensor(i) else torch.tensor(i) for i in items]
        return torch.movedim(torch.stack(list(items)), 0, axis)
    return np.moveaxis(np.stack([np.asarray(i) for i in items]), 0, axis)


def _same_value(a, b) -> bool:
    if _is_tensor(a):
        import torch
        return bool(torch.equal(a, b))
    return bool(np.array_equal(a, b, equal_nan=np.asarray(a).dtype.kind in "fc"))


class OutAxesNone(ValueError):
    """The loop's error for a mapped output with out_axes None."""


def loop_level(f, in_axes, out_axes, axis_size=None):
    """vmap by its definition, one level: each example's leaves taken along their axes,
    ``f`` called, each output leaf stacked along its out_axes (None: every example gave the
    same value, returned once); with no mapped leaf, ``axis_size`` examples."""
    def mapped(*args, **kwargs):
        spec = tuple(in_axes) if isinstance(in_axes, (tuple, list)) else (in_axes,) * len(args)
        axes = _axes_for(spec, tuple(args))
        leaves = _leaves(tuple(args))
        sizes = {leaf.shape[ax] for leaf, ax in zip(leaves, axes) if ax is not None}
        size = sizes.pop() if sizes else axis_size
        rows = []
        for n in range(size):
            example = _rebuild(tuple(args), iter([_take(leaf, ax, n)
                                                  for leaf, ax in zip(leaves, axes)]))
            rows.append(f(*example, **kwargs))
        template = rows[0]
        columns = list(zip(*[_leaves(r) for r in rows]))
        outs = []
        spec = out_axes
        if isinstance(spec, tuple) and len(spec) == 1 and not _node(template):
            spec = spec[0]            # torch.func's one-entry out_dims of a single output
        for column, axis in zip(columns, _axes_for(spec, template)):
            if axis is None:
                if not all(_same_value(column[0], c) for c in column):
                    raise OutAxesNone("a mapped output with out_axes None")
                outs.append(column[0])
            else:
                outs.append(_stack(column, axis))
        return _rebuild(template, iter(outs))
    return mapped


# ------------------------------------------------------------------------ the programs
@dataclass
class Param:
    name: str
    kind: str                 # "s", "r" (row), "k" (int index), "b", "tuple", "dict", "list"
    leaves: list              # [(access expression, leaf kind, dtype key)]
    shared: bool = False      # never mapped (in_axes None at every level)


@dataclass
class Case:
    source: str
    params: list
    kwarg: tuple | None       # (name, value) passed by keyword
    levels: list              # innermost first: dict(in_axes, out_axes, size, axis_size)
    args: list                # NumPy arguments (pytrees)
    out_kind: str
    description: str = ""
    extra: dict = field(default_factory=dict)


class _Body:
    def __init__(self, rng: random.Random, ns: str):
        self.rng, self.ns = rng, ns
        self.scalars: list[str] = []      # float-ish per-example 0-d expressions
        self.rows: list[str] = []
        self.ints: list[str] = []
        self.bools: list[str] = []
        self.lines: list[str] = []
        self.count = 0

    def fresh(self, prefix):
        self.count += 1
        return f"{prefix}{self.count}"

    def s(self):
        return self.rng.choice(self.scalars)

    def r(self):
        return self.rng.choice(self.rows)

    def scalar_expr(self, depth=0):
        rng, M = self.rng, self.ns
        s, r = self.s, self.r
        options = [
            lambda: f"{s()} + {s()}",
            lambda: f"{s()} * {s()} - 1.5",
            lambda: f"{M}.sin({s()})",
            lambda: f"{M}.exp(-{M}.abs({s()}))",
            lambda: f"{M}.tanh({s()}) * 2",
            lambda: f"{r()}.sum()",
            lambda: f"{r()}.max()",
            lambda: f"{r()}.dot({r()})",
            lambda: f"{r()} @ {r()}",
            lambda: f"{M}.where({s()} > 0, {s()}, -{s()})",
            lambda: f"h({s()}, {s()})",
            lambda: f"{s()} / ({s()} * {s()} + 1)",
            lambda: f"{M}.sqrt({M}.abs({s()}) + 1)",
            lambda: f"max({s()}, {s()})",
            lambda: f"-{s()}",
        ]
        if self.ints:
            k = rng.choice(self.ints)
            options += [lambda: f"{r()}[{k}]", lambda: f"{r()}[{k}] * {s()}"]
        if M == "np":
            options += [lambda: f"math.sqrt(abs({s()}) + 1.0)",
                        lambda: f"math.cos({s()})",
                        lambda: f"float({s()}) * 0.5",
                        lambda: f"np.mean({r()})",
                        lambda: f"np.linalg.norm({r()})"]
        else:
            options += [lambda: f"torch.mean({r()} * 1.0)",
                        lambda: f"torch.linalg.norm({r()} * 1.0)"]
        return rng.choice(options)()

    def row_expr(self):
        rng, M = self.rng, self.ns
        s, r = self.s, self.r
        options = [
            lambda: f"{r()} * {s()}",
            lambda: f"{r()} + {r()}",
            lambda: f"{M}.where({r()} > {s()}, {r()}, {s()})",
            lambda: f"{M}.sqrt({M}.abs({r()}))",
            lambda: f"{M}.cumsum({r()}, 0)",
            lambda: f"{M}.flip({r()}, (0,))",
            lambda: f"{M}.clip({r()}, -1, 1)",
            lambda: f"{r()} - {r()}.mean()" if M == "np" else f"{r()} - {r()}.sum() / 4",
            lambda: f"{M}.exp(-{r()} * {r()})",
            lambda: f"h({r()}, {s()})",
        ]
        if M == "np":
            options += [lambda: f"{r()}[::-1] * 2"]
        return rng.choice(options)()

    def cond(self):
        rng = self.rng
        options = [lambda: f"{self.s()} > {self.s()}", lambda: f"{self.s()} > 0",
                   lambda: f"{self.r()}.sum() > 0"]
        if self.bools:
            options.append(lambda: rng.choice(self.bools))
            options.append(lambda: f"{rng.choice(self.bools)} and {self.s()} < 1")
        if self.ints:
            options.append(lambda: f"{rng.choice(self.ints)} > 0")
        return rng.choice(options)()

    def statement(self, indent="    "):
        rng = self.rng
        what = rng.choice(["scalar", "scalar", "row", "row", "if", "if", "while", "helper"])
        if what == "scalar":
            name = self.fresh("t")
            self.lines.append(f"{indent}{name} = {self.scalar_expr()}")
            self.scalars.append(name)
        elif what == "row":
            name = self.fresh("u")
            self.lines.append(f"{indent}{name} = {self.row_expr()}")
            self.rows.append(name)
        elif what == "if":
            kind = rng.choice(["s", "r"])
            name = self.fresh("t" if kind == "s" else "u")
            expr = self.scalar_expr if kind == "s" else self.row_expr
            self.lines.append(f"{indent}if {self.cond()}:")
            self.lines.append(f"{indent}    {name} = {expr()}")
            if rng.random() < 0.3:
                self.lines.append(f"{indent}elif {self.cond()}:")
                self.lines.append(f"{indent}    {name} = {expr()}")
            self.lines.append(f"{indent}else:")
            self.lines.append(f"{indent}    {name} = {expr()}")
            (self.scalars if kind == "s" else self.rows).append(name)
        elif what == "while":
            t, n = self.fresh("t"), self.fresh("n")
            self.lines.append(f"{indent}{t} = {self.s()} * 1.0")
            self.lines.append(f"{indent}{n} = 0")
            self.lines.append(f"{indent}while {t} < {rng.choice([2, 5, 10])} and {n} < 6:")
            self.lines.append(f"{indent}    {t} = {t} * 2 + {rng.choice(['1', '0.5'])}")
            self.lines.append(f"{indent}    {n} = {n} + 1")
            self.scalars.append(t)
            self.ints.append(f"({n} % 4)") if rng.random() < 0.5 else None
        else:
            name = self.fresh("t")
            self.lines.append(f"{indent}{name} = h({self.s()}, {self.r()}).sum()")
            self.scalars.append(name)


HELPERS = [
    "def h(a, b):\n    return a * b + 1\n",
    "def h(a, b):\n    if a > 0:\n        return a - b\n    return b * 2\n",
    "def h(a, b):\n    c = {M}.abs(b) + 1\n    return a / c\n",
]
HELPER_SAFE_IF = HELPERS[1]      # `if a > 0` needs a 0-d `a`


def _leaf_dtype(rng, kind):
    if kind == "s":
        return rng.choice(["f64", "f64", "f32", "i32"])
    if kind == "r":
        return rng.choice(["f64", "f64", "f32", "i32"])
    if kind == "k":
        return rng.choice(["i32", "i64"])
    return "bool"


def program(rng: random.Random, ns: str):
    """(source, params, kwarg name or None, output kind, shared output?)."""
    params = []
    n_params = rng.randint(1, 3)
    for i in range(n_params):
        name = f"x{i}"
        kind = rng.choice(["s", "s", "r", "r", "k", "b", "tuple", "dict", "list"])
        if kind in ("s", "r", "k", "b"):
            params.append(Param(name, kind, [(name, kind, _leaf_dtype(rng, kind))]))
        elif kind == "tuple":
            params.append(Param(name, kind, [(f"{name}[0]", "s", _leaf_dtype(rng, "s")),
                                             (f"{name}[1]", "r", _leaf_dtype(rng, "r"))]))
        elif kind == "dict":
            params.append(Param(name, kind, [(f'{name}["a"]', "s", _leaf_dtype(rng, "s")),
                                             (f'{name}["b"]', "r", _leaf_dtype(rng, "r"))]))
        else:
            params.append(Param(name, kind, [(f"{name}[0]", "r", _leaf_dtype(rng, "r")),
                                             (f"{name}[1]", "k", _leaf_dtype(rng, "k"))]))
    shared = None
    if rng.random() < 0.4:
        kind = rng.choice(["s", "r"])
        shared = Param("w", kind, [("w", kind, "f64")], shared=True)
        params.append(shared)
    kwarg = "c" if rng.random() < 0.4 else None
    body = _Body(rng, ns)
    for p in params:
        for access, kind, _ in p.leaves:
            {"s": body.scalars, "r": body.rows, "k": body.ints, "b": body.bools}[kind].append(
                access if kind != "k" else f"{access}")
    if kwarg:
        body.scalars.append(kwarg)
    if not body.scalars:
        body.lines.append("    z0 = 0.5")
        body.scalars.append("z0")
        if body.bools:
            body.lines[-1] = f"    z0 = {ns}.where({body.bools[0]}, 1.5, -0.5)"
    if not body.rows:
        body.lines.append(f"    z1 = {body.s()} * {ns}.ones(4)" if ns == "np"
                          else f"    z1 = {body.s()} * torch.ones(4, dtype=torch.float64)")
        body.rows.append("z1")
    # per-example ints index rows of length 4: keep them in [-4, 3]
    body.ints = [f"({k} % 4)" if "%" not in k else k for k in body.ints]
    out_kind = rng.choice(["s", "r", "tuple", "dict"])
    shared_out = shared is not None and rng.random() < 0.6

    def output():
        s, r = body.scalar_expr() if rng.random() < 0.3 else body.s(), body.r()
        items = {"s": [s], "r": [r], "tuple": [s, r], "dict": [s, r]}[out_kind]
        if shared_out:
            items.append("w * 2 + 1")
        if out_kind == "dict" or (shared_out and out_kind in ("s", "r")):
            keys = ["y", "z", "q"]
            if out_kind in ("s", "r"):
                return "{" + ", ".join(f'"{k}": {v}' for k, v in zip(["y", "q"], items)) + "}"
            return "{" + ", ".join(f'"{k}": {v}' for k, v in zip(keys, items)) + "}"
        if len(items) == 1:
            return items[0]
        return "(" + ", ".join(items) + ")"

    for _ in range(rng.randint(1, 5)):
        body.statement()
        if rng.random() < 0.15:
            body.lines.append(f"    if {body.cond()}:")
            body.lines.append(f"        return {output()}")
    body.lines.append(f"    return {output()}")
    sig = ", ".join(p.name for p in params)
    if kwarg:
        sig += ", *, c=1.0" if rng.random() < 0.5 else ", c=1.0"
    helper = rng.choice(HELPERS).replace("{M}", ns)
    source = ("import math\n\nimport numpy as np\n" + ("import torch\n" if ns == "torch" else "")
              + "\n\n" + helper + "\n\ndef f(" + sig + "):\n" + "\n".join(body.lines) + "\n")
    return source, params, kwarg, out_kind, shared_out


def _values(rng: np.random.Generator, shape, dtype_key):
    dtype = NP_DTYPES[dtype_key]
    if dtype_key == "bool":
        return rng.random(shape) < 0.5
    if dtype_key in ("i32", "i64"):
        return rng.integers(-5, 6, size=shape).astype(dtype)
    return (rng.standard_normal(shape) * 2).astype(dtype)


def case(seed: int, ns: str = "np") -> Case:
    rng = random.Random(seed)
    source, params, kwarg, out_kind, shared_out = program(rng, ns)
    n_levels = rng.choice([1, 1, 2, 2, 3])
    empty_level = rng.randrange(n_levels) if rng.random() < 0.1 else None
    # shapes of every leaf, grown level by level (innermost first)
    shapes = [[() if kind in ("s", "k", "b") else (LENGTH,) for _, kind, _ in p.leaves]
              for p in params]
    # output leaves: [key in the output, rank now, shared]
    shared_param = next((p for p in params if p.shared), None)
    w_rank = 0 if shared_param is None or shared_param.kind == "s" else 1
    if out_kind in ("s", "r"):
        outs = [["y", 0 if out_kind == "s" else 1, False]]
        if shared_out:
            outs.append(["q", w_rank, True])
    elif out_kind == "tuple":
        outs = [[0, 0, False], [1, 1, False]] + ([[2, w_rank, True]] if shared_out else [])
    else:
        outs = [["y", 0, False], ["z", 1, False]] + ([["q", w_rank, True]] if shared_out else [])
    single = out_kind in ("s", "r") and not shared_out
    levels = []
    for level in range(n_levels):
        size = 0 if level == empty_level else rng.choice([1, 2, 2, 3, 3])
        entries = []
        any_mapped = False
        no_map = rng.random() < 0.1 and level != empty_level
        for p, pshapes in zip(params, shapes):
            if p.shared or no_map:
                entries.append(None)
                continue
            ranks = [len(s) for s in pshapes]
            choice = rng.random()
            if choice < 0.2:
                entries.append(None)
            elif len(p.leaves) > 1 and choice < 0.55:
                sub = []
                for rk in ranks:
                    sub.append(None if rng.random() < 0.25 else rng.randint(-rk - 1, rk))
                any_mapped |= any(a is not None for a in sub)
                entries.append(tuple(sub) if p.kind == "tuple" else
                               {"a": sub[0], "b": sub[1]} if p.kind == "dict" else list(sub))
            else:
                lo = min(ranks)
                entries.append(rng.randint(-lo - 1, lo))
                any_mapped = True
        if not any_mapped and not no_map:
            mappable = [i for i, p in enumerate(params) if not p.shared]
            if not mappable:
                no_map = True
                entries = [None] * len(params)
            else:
                i = rng.choice(mappable)
                lo = min(len(s) for s in shapes[i])
                entries[i] = rng.randint(-lo - 1, lo)
        axis_size = size if no_map else None
        if no_map and size == 0:
            size = axis_size = 1
        # grow the shapes
        for i, (p, entry) in enumerate(zip(params, entries)):
            axes = _axes_for(entry, _spec_tree(p))
            new = []
            for s, a in zip(shapes[i], axes):
                if a is None:
                    new.append(s)
                else:
                    pos = a if a >= 0 else len(s) + 1 + a
                    new.append(s[:pos] + (size,) + s[pos:])
            shapes[i] = new
        # out_axes
        out_entries = []
        for o in outs:
            key, rank, is_shared = o
            if is_shared and rng.random() < 0.6:
                out_entries.append(None)
            else:
                out_entries.append(rng.randint(-rank - 1, rank))
                o[1] = rank + 1
        if single:
            out_axes = out_entries[0]
            if rng.random() < 0.2:
                out_axes = (out_axes,) if out_axes is not None else out_axes
        elif rng.random() < 0.3 and all(e is not None for e in out_entries):
            # one int for the whole tree: valid where it fits every leaf
            lo = min(o[1] - 1 for o in outs)
            whole = rng.randint(-lo - 1, lo)
            out_axes = whole
        elif out_kind == "tuple":
            out_axes = tuple(out_entries)
        else:
            out_axes = {o[0]: e for o, e in zip(outs, out_entries)}
        in_axes = tuple(entries)
        if all(not _node(e) for e in entries) and len(set(map(repr, entries))) == 1 and \
                rng.random() < 0.5:
            in_axes = entries[0]
        elif rng.random() < 0.1:
            in_axes = list(entries)
        levels.append({"in_axes": in_axes, "out_axes": out_axes, "size": size,
                       "axis_size": axis_size})
    nrng = np.random.default_rng(seed)
    args = []
    for p, pshapes in zip(params, shapes):
        vals = [_values(nrng, s, dt) for s, (_, _, dt) in zip(pshapes, p.leaves)]
        if p.kind in ("s", "r", "k", "b"):
            args.append(vals[0])
        elif p.kind == "tuple":
            args.append(tuple(vals))
        elif p.kind == "dict":
            args.append({"a": vals[0], "b": vals[1]})
        else:
            args.append(list(vals))
    kw = (kwarg, rng.choice([0.5, -2.0, 3])) if kwarg else None
    desc = " | ".join(f"in={lv['in_axes']} out={lv['out_axes']} size={lv['size']}"
                      + (f" axis_size={lv['axis_size']}" if lv["axis_size"] is not None else "")
                      for lv in levels)
    return Case(source, params, kw, levels, args, out_kind, desc)


def _spec_tree(p: Param):
    if p.kind in ("s", "r", "k", "b"):
        return 0
    if p.kind == "tuple":
        return (0, 0)
    if p.kind == "dict":
        return {"a": 0, "b": 0}
    return [0, 0]


# ------------------------------------------------------------------------ running a case
class Loader:
    """Writes each case's source to a module file (vectorize reads the source) and imports
    its ``f``."""

    def __init__(self, directory=None):
        import tempfile
        from pathlib import Path
        self.directory = Path(directory or tempfile.mkdtemp(prefix="vectorize_hunt13_"))
        self.count = 0

    def load(self, source: str):
        import importlib.util
        self.count += 1
        name = f"hunt13prog_{self.count}"
        path = self.directory / f"{name}.py"
        path.write_text(source)
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module.f


def _outcome(call):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return call(), None
        except Exception as exc:  # noqa: BLE001 -- compared
            return None, exc


def _to_backend(tree, backend):
    if backend != "torch":
        return tree
    import torch
    if _node(tree):
        return _remake(tree, [_to_backend(c, backend) for c in _children(tree)])
    return torch.from_numpy(np.array(tree))      # (0-d stays 0-d)


def _with_size(c: Case, level_index: int, size: int) -> Case:
    """The same case with one level's size changed (for the empty batch's reference)."""
    import copy
    new = copy.deepcopy(c)
    new.levels[level_index]["size"] = size
    nrng = np.random.default_rng(12345)

    def grow(x):
        if _node(x):
            return _remake(x, [grow(ch) for ch in _children(x)])
        return x
    # rebuild every argument with the level's axis of size `size`: repeat the arrays
    # along that axis from fresh values of the right shape
    new.args = _resized_args(c, level_index, size, nrng)
    return new


def _resized_args(c: Case, level_index: int, size: int, nrng):
    shapes = [[() if kind in ("s", "k", "b") else (LENGTH,) for _, kind, _ in p.leaves]
              for p in c.params]
    for li, lv in enumerate(c.levels):
        spec = lv["in_axes"]
        entries = list(spec) if isinstance(spec, (tuple, list)) else [spec] * len(c.params)
        sz = size if li == level_index else lv["size"]
        for i, (p, entry) in enumerate(zip(c.params, entries)):
            axes = _axes_for(entry, _spec_tree(p))
            new = []
            for s, a in zip(shapes[i], axes):
                if a is None:
                    new.append(s)
                else:
                    pos = a if a >= 0 else len(s) + 1 + a
                    new.append(s[:pos] + (sz,) + s[pos:])
            shapes[i] = new
    args = []
    for p, pshapes in zip(c.params, shapes):
        vals = [_values(nrng, s, dt) for s, (_, _, dt) in zip(pshapes, p.leaves)]
        if p.kind in ("s", "r", "k", "b"):
            args.append(vals[0])
        elif p.kind == "tuple":
            args.append(tuple(vals))
        elif p.kind == "dict":
            args.append({"a": vals[0], "b": vals[1]})
        else:
            args.append(list(vals))
    return args


def reference(f, c: Case, backend: str, args=None, levels=None):
    levels = levels or c.levels
    g = f
    for lv in levels:
        g = loop_level(g, lv["in_axes"], lv["out_axes"], lv["axis_size"])
    kwargs = dict([c.kwarg]) if c.kwarg else {}
    return _outcome(lambda: g(*_to_backend(args if args is not None else c.args, backend),
                              **kwargs))


def mapped(f, c: Case, backend: str):
    from vectorize import vmap
    g = f
    for lv in c.levels:
        opts = {}
        if lv["axis_size"] is not None:
            opts["axis_size"] = lv["axis_size"]
        g = vmap(g, in_axes=lv["in_axes"], out_axes=lv["out_axes"], backend=backend, **opts)
    kwargs = dict([c.kwarg]) if c.kwarg else {}
    return _outcome(lambda: g(*_to_backend(c.args, backend), **kwargs))


def _to_numpy(tree):
    if _node(tree):
        return _remake(tree, [_to_numpy(ch) for ch in _children(tree)])
    if _is_tensor(tree):
        return tree.detach().numpy()
    return np.asarray(tree)


JOINED: list = []
NARROW_INPUTS = False       # set by `run_case`: whether an argument is float32
BRANCHY = __import__("re").compile(r"^\s+(if|elif|while) |\b(max|min)\(", __import__("re").M)


def compare(got, expected, backend: str, empty: bool = False, source: str = "") -> str:
    """'' where equal: structure, shapes, dtypes, values (``empty``: shapes/dtypes only)."""
    if _node(expected):
        if type(got) is not type(expected):
            return f"container {type(got).__name__} vs {type(expected).__name__}"
        if isinstance(expected, dict) and list(got) != list(expected):
            return f"keys {list(got)} vs {list(expected)}"
        if len(got) != len(expected):
            return f"length {len(got)} vs {len(expected)}"
        for i, (g, e) in enumerate(zip(_children(got), _children(expected))):
            problem = compare(g, e, backend, empty, source)
            if problem:
                return f"[{i}] {problem}"
        return ""
    if backend == "torch" and _is_tensor(expected) and not _is_tensor(got):
        return f"type {type(got).__name__} vs a tensor"
    g, e = _to_numpy(got), _to_numpy(expected)
    if empty:
        e_shape = tuple(0 if d == EMPTY_MARK else d for d in e.shape)
        if g.shape != e_shape:
            return f"shape {g.shape} vs {e_shape}"
    elif g.shape != e.shape:
        return f"shape {g.shape} vs {e.shape}"
    if empty:
        # no example ran: the dtype of a result whose dtype depends on the path the
        # examples take (an early return of an int or of a float) is not defined
        return ""
    if g.dtype != e.dtype:
        if not (BRANCHY.search(source) and g.dtype.kind in "fciu" and e.dtype.kind in "fciub"):
            return f"dtype {g.dtype} vs {e.dtype}"
        # docs/semantics.md, "Decisions": a value of different types on different paths
        # is the joined type on every lane; the loop's stack has the dtype of the paths
        # the examples took. Accepted where the values are the same in the wider dtype
        # (counted as "joined dtype")
        wide = np.promote_types(g.dtype, e.dtype)
        g, e = g.astype(wide), e.astype(wide)
        JOINED.append(True)
    if e.dtype.kind in "fc":
        # float32: a batched reduction adds in another order than one example's (NumPy,
        # PyTorch: a few ulps; docs/semantics.md, "Differences"), XLA more (docs/jax.md)
        # (and a float64 result of float32 values carries their rounding: float32's
        # tolerance wherever an argument is float32)
        narrow = e.dtype.itemsize < 8 or NARROW_INPUTS
        rtol = 1e-12 if not narrow else 1e-5 if backend == "jax" else 2e-6
        atol = rtol
        if not np.allclose(g, e, rtol=rtol, atol=atol, equal_nan=True):
            if not (backend == "torch" and BRANCHY.search(source) and np.allclose(
                    g, e, rtol=2e-6, atol=2e-6, equal_nan=True)):
                return f"values\n{g!r}\nvs\n{e!r}"
            # PyTorch: branches of different dtypes give every lane torch.where's joined
            # dtype (float32 for a float32 tensor and a Python float: docs/semantics.md,
            # "PyTorch"), the loop each lane its branch's
            JOINED.append(True)
    elif not np.array_equal(g, e):
        return f"values\n{g!r}\nvs\n{e!r}"
    return ""


def run_case(c: Case, f, backend: str) -> tuple[str, str]:
    """(kind, detail) of one case on one backend (module function ``f`` already loaded)."""
    from vectorize import VectorizeError
    empty_level = next((i for i, lv in enumerate(c.levels) if lv["size"] == 0), None)
    if empty_level is not None:
        ref_args = _resized_args(c, empty_level, EMPTY_MARK, np.random.default_rng(7))
        expected, exc = reference(f, c, backend, args=ref_args)
    else:
        expected, exc = reference(f, c, backend)
    if backend == "jax":
        import jax
        with jax.enable_x64(True):
            got, got_exc = mapped(f, c, backend)
    else:
        got, got_exc = mapped(f, c, backend)
    if exc is not None:
        if empty_level is not None:
            return "skipped", "the empty batch's reference raises"
        if got_exc is None:
            return "raises-vs-returns", f"loop raises {type(exc).__name__}: {exc}"
        if isinstance(got_exc, VectorizeError) and not isinstance(exc, ValueError):
            return "refused", str(got_exc).splitlines()[0]
        return "both raise", ""
    if isinstance(got_exc, VectorizeError):
        return "refused", str(got_exc).splitlines()[0]
    if got_exc is not None:
        return "internal", "".join(traceback.format_exception(got_exc))[-2500:]
    JOINED.clear()
    global NARROW_INPUTS
    NARROW_INPUTS = any(getattr(leaf, "dtype", None) == np.float32
                        for leaf in _leaves(tuple(c.args)))
    problem = compare(got, expected, backend, empty_level is not None, c.source)
    if problem:
        return "mismatch", problem
    return ("joined dtype", "") if JOINED else ("ok", "")
