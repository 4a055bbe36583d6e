"""Running a generated program per example and batched, under one calling protocol.

Both generators (`programs`: scalar examples; `vector_programs`: per-example vectors) hand a
`Program` and the arguments of one drawn call to ``run_case(program, args, writer, layout,
protocol, seed)``, which writes the program to a real module file (so that
``inspect.getsource`` works), imports it, wraps ``f`` as the `Layout` says (``vectorize``,
``vmap(f, in_axes=...)`` or ``vectorize(f, signature=...)``, always ``fallback="error"``) and
compares every call with the per-example reference (`differential.assert_values_equal`:
values, shapes, dtype kinds, NaN and signed zeros). The outcome (`Outcome.kind`):

``ok``        every call gave the per-example results;
``vacuous``   every example of the drawn call raised in the scalar code: nothing to compare;
``rejected``  the engine raised its own `VectorizeError` (the reason is recorded);
``mismatch``  a call gave different results: an engine bug;
``known``     (construct programs) a difference of float16/float32 examples, documented;
``internal``  any other exception from a call, from building the compacted form or from
              ``.source(*args)``: an engine bug;
``generator`` the scalar program itself misbehaved (an exception the reference does not
              tolerate, e.g. IndexError): a bug of the generator.

The calling protocol (`Protocol`; ``protocol=None`` makes only the drawn call):

1. the drawn call (a few examples with NaN, +-inf, +-0.0, negatives); its program's form with
   every compactable ``if`` compacted is compared with the select form directly;
2. N = 0, 1 and 5 examples;
3. `Protocol.large_calls` calls of 20,000 to 32,767 examples (one batch-size class of
   `vectorize.chunks.run`) with fresh data each call, with ``chunk_size="auto"`` and
   `vectorize.chunks.TRIALS` lowered to `Protocol.trials`, so that the adaptive runtime times
   every (form, way) pair it may pick, select and compacted, one call and chunks on threads,
   and then runs the one it decided on, within these calls;
4. one large call with every shared (unbatched) argument changed;
5. for programs over vectors, one call with vectors of another length;
6. ``.source(*args)`` on the drawn and on a large call's arguments.

A call that raises where an example of it raised the very same exception in the scalar code
is not compared (the per-example loop raises there too); any other exception is internal.

A large batch is made of a few hundred distinct random rows (`Pool`: the drawn rows first,
then values of the same mix) tiled and shuffled to N, so the reference runs once per distinct
row; each large call takes its own random subset (sometimes one row only: every lane on the
same path) in random or sorted order. The runtime's own safety net (the first timed call of the
compacted form compared with the select form, a difference dropping it silently) is watched:
a difference it finds is a mismatch here.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import importlib.util
import math
import re
import sys
import tempfile
import traceback
import warnings
from collections import Counter
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path

import numpy as np

try:
    from differential import assert_values_equal
except ImportError:   # run outside pytest (benchmarks/fuzz_long.py puts tests/ on the path)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from differential import assert_values_equal
from batch_sizes import explore_at_once

from vectorize import VectorizeError, chunks, vectorize, vmap

HEADER = "import math\n\nimport numpy as np\n"

NICE_VALUES = [0.0, 1.0, -1.0, 2.0, 0.5, -0.0, 3.0, -2.5, 10.0, -7.25]
SPECIAL_VALUES = [math.nan, math.inf, -math.inf, 1e300, -1e300, 1e-300, 5e-324, -1e-12]


#: Loop features that need masked loops (a loop whose iterations differ per example). The engine
#: may support them or refuse them with `VectorizeError`; both are fine, and the run reports
#: how many programs with them were refused.
LOOP_FEATURES = {
    "while_batched": "`while` whose condition differs per example",
    "exit_batched": "`break`/`continue` under a condition that differs per example",
    "return_in_loop": "`return` inside a loop",
}


@dataclass(frozen=True)
class Program:
    """A generated module: ``source`` defines ``f(*params)`` returning ``n_out`` values;
    ``layout``: how it is called (None: as the drawn arguments say, `Layout.of_args`)."""

    source: str
    params: tuple[str, ...]
    n_out: int                      # 1: one value; 2 or more: a tuple
    features: frozenset = frozenset()
    layout: Layout | None = None

    def __repr__(self) -> str:
        return f"Program(<<<\n{self.source}>>>)"

    @property
    def loop_features(self) -> set[str]:
        return set(self.features) & set(LOOP_FEATURES)


@dataclass(frozen=True)
class Layout:
    """How a program is called. ``api``: ``"vectorize"`` (numpy.vectorize's drop-in: every
    argument broadcast, examples are scalars), ``"vmap"`` (``in_axes`` 0 for a batched
    argument, None for a shared one) or ``"signature"`` (``vectorize`` with a gufunc signature,
    ``(n)`` for a vector, ``()`` for a scalar; a shared argument has no loop dimensions).
    ``cores``: per parameter, 1 when its examples are vectors, else 0; ``shared``: per
    parameter, whether it is passed unbatched; ``out_cores``: per output, 1 for a vector."""

    api: str = "vectorize"
    cores: tuple = ()
    shared: tuple = ()
    out_cores: tuple = (0,)
    backend: str | None = None      # None: as the inputs say (NumPy); "jax": backend="jax"

    @classmethod
    def of_args(cls, args, n_out: int = 1) -> Layout:
        """The layout of a call of scalar examples: a scalar argument is shared."""
        return cls("vectorize", (0,) * len(args),
                   tuple(np.ndim(a) == 0 for a in args), (0,) * n_out)

    @property
    def in_axes(self) -> tuple:
        return tuple(None if s else 0 for s in self.shared)

    @property
    def signature(self) -> str:
        dims = {0: "()", 1: "(n)"}
        return (",".join(dims[c] for c in self.cores) + "->"
                + ",".join(dims[c] for c in self.out_cores))

    def describe(self) -> str:
        if self.api == "vmap":
            return f"vmap(f, in_axes={self.in_axes})"
        if self.api == "signature":
            return f'vectorize(f, signature="{self.signature}", fallback="error")'
        return 'vectorize(f, fallback="error")'

    def wrap(self, f):
        extra = {} if self.backend is None else {"backend": self.backend}
        if self.api == "vmap":
            return vmap(f, in_axes=self.in_axes, **extra)
        if self.api == "signature":
            return vectorize(f, signature=self.signature, fallback="error", **extra)
        return vectorize(f, fallback="error", **extra)

    def example_value(self, value):
        """A shared argument as the per-example function gets it: vmap passes it as it is,
        numpy.vectorize as an element of an array (a NumPy scalar; a vector stays one)."""
        return value if self.api == "vmap" else np.asarray(value)[()]


@dataclass(frozen=True)
class Protocol:
    """The calls `run_case` makes after the drawn one (see the module docstring)."""

    small: tuple = (0, 1, 5)
    large_calls: int = 12
    large_lanes: tuple = (20_000, 32_768)     # [lo, hi): one power-of-two class
    pool_rows: int = 256
    trials: int = 2                           # vectorize.chunks.TRIALS during the calls
    shared_changed: bool = True
    length_changed: bool = True


FULL = Protocol()
#: Under ``backend="jax"`` every new batch size is a new `jax.jit` compile: fewer large calls
#: (the adaptive runtime's forms and ways are NumPy's; XLA has one form).
JAX = Protocol(large_calls=2)


# ------------------------------------------------------------------------------- inputs

def random_values(rng, shape) -> np.ndarray:
    """float64 values of the strategies' mix: nice values, uniform ones in [-100, 100],
    NaN, +-inf, huge, tiny and subnormal ones."""
    kind = rng.random(shape)
    nice = np.asarray(NICE_VALUES)[rng.integers(0, len(NICE_VALUES), shape)]
    special = np.asarray(SPECIAL_VALUES)[rng.integers(0, len(SPECIAL_VALUES), shape)]
    return np.where(kind < 0.5, nice, np.where(kind < 0.8, rng.uniform(-100, 100, shape),
                                                special))


class Pool:
    """Distinct examples: per parameter an array with one row per example (a batched one) or
    the value itself (a shared one)."""

    def __init__(self, layout: Layout, columns: list, size: int):
        self.layout, self.columns, self.size = layout, columns, size

    @classmethod
    def of_args(cls, layout: Layout, args) -> Pool:
        """The examples of a call's arguments (a scalar given for a batched parameter is
        repeated)."""
        size = max([np.shape(a)[0] for a, s, c in zip(args, layout.shared, layout.cores)
                    if not s and np.ndim(a) > c] or [1])
        columns = []
        for a, s, c in zip(args, layout.shared, layout.cores):
            if s:
                columns.append(a)
            else:
                a = np.asarray(a, dtype=np.float64)
                columns.append(np.broadcast_to(a, (size,) + a.shape[a.ndim - c:]).copy()
                               if a.ndim == c else a)
        return cls(layout, columns, size)

    def extended(self, rng, rows: int, length: int | None = None) -> Pool:
        """This pool's rows followed by random ones, ``rows`` in all (``length``: the vectors
        of all new rows, and of the shared vectors, have this length instead; no old row is
        kept then)."""
        columns = []
        for col, s, c in zip(self.columns, self.layout.shared, self.layout.cores):
            n = length if length is not None else (np.shape(col)[-1] if c else None)
            if s:
                columns.append(random_values(rng, (n,)) if c and length is not None else col)
                continue
            core = (n,) if c else ()
            keep = col if length is None else np.empty((0,) + core)
            extra = random_values(rng, (max(rows - len(keep), 0),) + core)
            columns.append(np.concatenate([keep, extra]))
        size = max(rows, self.size if length is None else 0)
        return Pool(self.layout, columns, size)

    def with_shared(self, rng) -> Pool:
        """The same rows with every shared argument changed."""
        columns = []
        for col, s, c in zip(self.columns, self.layout.shared, self.layout.cores):
            if not s:
                columns.append(col)
            elif c:
                columns.append(random_values(rng, np.shape(col)))
            else:
                new = float(random_values(rng, ()))
                columns.append(type(col)(new) if isinstance(col, (float, np.floating))
                               else new)
        return Pool(self.layout, columns, self.size)

    def example(self, row: int) -> tuple:
        """The arguments of the per-example function for one row."""
        return tuple(self.layout.example_value(col) if s else col[row]
                     for col, s in zip(self.columns, self.layout.shared))

    def args(self, lanes) -> tuple:
        """The batched call's arguments for these rows, one lane each."""
        return tuple(col if s else col[lanes]
                     for col, s in zip(self.columns, self.layout.shared))


@dataclass
class Call:
    label: str
    pool: Pool
    lanes: np.ndarray        # lane -> row of the pool

    @property
    def args(self) -> tuple:
        return self.pool.args(self.lanes)


def protocol_calls(pool: Pool, protocol: Protocol, rng):
    """The calls of the protocol after the drawn one (a generator: each large call's data is
    made when it comes)."""
    big = pool.extended(rng, protocol.pool_rows)
    for n in protocol.small:
        lanes = np.arange(n) if n <= big.size else rng.integers(0, big.size, n)
        yield Call(f"N={n}", big, lanes)
    lo, hi = protocol.large_lanes
    for k in range(protocol.large_calls):
        yield Call(f"large call {k + 1} of {protocol.large_calls}", big,
                   _large_lanes(rng, big.size, int(rng.integers(lo, hi))))
    layout = pool.layout
    if protocol.large_calls and protocol.shared_changed and any(layout.shared):
        changed = big.with_shared(rng)
        yield Call("a large call with the shared arguments changed", changed,
                   _large_lanes(rng, min(64, changed.size), int(rng.integers(lo, hi))))
    if protocol.length_changed and any(layout.cores):
        length = np.shape(next(c for c, k in zip(pool.columns, layout.cores) if k))[-1]
        length = length + 1 if length < 4 else length - 2
        yield Call(f"N=7 with vectors of length {length}",
                   pool.extended(rng, 16, length=length), rng.integers(0, 16, 7))


def _large_lanes(rng, rows: int, n: int) -> np.ndarray:
    """``n`` lanes over a random subset of the rows (sometimes one row only), shuffled or
    sorted."""
    k = int(rng.choice([1, 2, 8, 32, rows]))
    subset = rng.choice(rows, size=min(k, rows), replace=False)
    lanes = subset[rng.integers(0, len(subset), n)]
    if rng.random() < 0.25:
        lanes.sort()
    return lanes


# -------------------------------------------------------------------------- the reference

TOLERATED = (ArithmeticError, ValueError, TypeError, OverflowError)
"""Exceptions the scalar code may raise on an example: that example is not compared."""


class Reference:
    """The per-example results of a pool's rows, computed when first asked for."""

    def __init__(self, f, pool: Pool, n_out: int):
        self.f, self.pool, self.n_out = f, pool, n_out
        self.results: dict[int, object] = {}
        self.raised: set[int] = set()
        self.raised_types: set[type] = set()     # the exceptions the examples raised
        self.warned = False      # a RuntimeWarning in the scalar code (drawn rows only)

    def compute(self, rows, watch_warnings: bool = False) -> None:
        for row in rows:
            row = int(row)
            if row in self.results or row in self.raised:
                continue
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always" if watch_warnings else "ignore")
                with np.errstate(divide="warn", over="warn", invalid="warn", under="ignore"):
                    try:
                        self.results[row] = self.f(*self.pool.example(row))
                    except TOLERATED as exc:
                        self.raised.add(row)
                        self.raised_types.add(type(exc))
            if watch_warnings and any(issubclass(w.category, RuntimeWarning) for w in caught):
                self.warned = True

    def all_raised(self, lanes) -> bool:
        return all(int(r) in self.raised for r in np.unique(lanes))

    def loop_raises(self, lanes, exc) -> bool:
        """Whether the per-example loop over ``lanes`` raises too, as ``exc`` (an example
        raised an exception of its very type): a batch that raises it is then faithful."""
        return type(exc) in self.raised_types and any(
            int(r) in self.raised for r in np.unique(lanes))

    def parts(self, rows):
        """Per output, the stacked results of ``rows`` (each computed and not raised)."""
        values = [self.results[int(r)] for r in rows]
        if self.n_out == 1:
            return [np.array(values)]
        return [np.array([v[k] for v in values]) for k in range(self.n_out)]

    def core_shapes(self):
        """Per output, the shape of one example's result (None when no row has one)."""
        if not self.results:
            return [None] * self.n_out
        first = next(iter(self.results.values()))
        return [np.shape(first)] if self.n_out == 1 else [np.shape(v) for v in first]


def numpy_vectorize_raises(wrapped, args, exc) -> bool:
    """Whether ``wrapped`` is a `vectorize` whose reference, numpy.vectorize itself (Python
    numbers per example: ``1.0 / 0.0`` raises), raises ``exc``'s type on ``args``."""
    if not isinstance(wrapped, vectorize):
        return False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            wrapped._replay(args, {})
        except Exception as ref:  # noqa: BLE001 -- the reference's outcome
            return type(ref) is type(exc)
    return False


def numpy_vectorize_gives(wrapped, args, got, signed_zeros: bool) -> bool:
    """Whether ``got`` is what numpy.vectorize itself gives (where Python's numbers and NumPy
    scalars differ: ``round(1e308, 1)``, an int beyond int64 in between)."""
    if not isinstance(wrapped, vectorize):
        return False
    from differential import assert_values_equal
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            expected = wrapped._replay(args, {})
            for g, e in zip(got if isinstance(got, tuple) else (got,),
                            expected if isinstance(got, tuple) else (expected,)):
                assert_values_equal(np.asarray(g), np.asarray(e), "", signed_zeros)
        except Exception:  # noqa: BLE001 -- not numpy.vectorize's either
            return False
    return True


def compare(got, reference: Reference, lanes, batch_shape, signed_zeros: bool) -> None:
    """``got`` (the batched call's outputs) against the reference rows of ``lanes``."""
    n_out = reference.n_out
    if n_out == 1:
        if isinstance(got, tuple):
            raise AssertionError(f"a tuple of {len(got)} came back for one output")
        outs = [got]
    else:
        if not isinstance(got, tuple) or len(got) != n_out:
            raise AssertionError(f"expected a tuple of {n_out}, got {type(got)}")
        outs = list(got)
    lanes = np.asarray(lanes)
    raised = reference.raised     # (one test over the array: a large call has 30,000 lanes)
    ok = ~np.isin(lanes, np.fromiter(raised, np.int64, len(raised))) if raised else \
        np.ones(len(lanes), dtype=bool)
    cores = reference.core_shapes()
    rows, positions = np.unique(lanes[ok], return_inverse=True)
    parts = reference.parts(rows) if len(rows) else None
    for k, (out, core) in enumerate(zip(outs, cores)):
        what = f"output {k}: " if n_out > 1 else ""
        out = np.asarray(out)
        if core is not None and out.shape != tuple(batch_shape) + core:
            raise AssertionError(f"{what}shape {out.shape} != {tuple(batch_shape) + core}")
        if core is None and out.shape[:len(batch_shape)] != tuple(batch_shape):
            raise AssertionError(f"{what}shape {out.shape} does not start with "
                                 f"{tuple(batch_shape)}")
        flat = out.reshape((len(lanes),) + out.shape[len(batch_shape):])
        if parts is not None:
            assert_values_equal(flat[ok], parts[k][positions], what, signed_zeros)
        elif core is not None and len(lanes) == 0 and reference.results:
            # an empty batch: the dtype kind of the examples' results
            sample = reference.parts([next(iter(reference.results))])[k]
            assert_values_equal(flat[:0], sample[:0], what, signed_zeros)


class _NumpyMath:
    """``math`` with NumPy's float functions where the engine uses them."""

    def __getattr__(self, name):
        from vectorize.backends.numpy.math_rules import FLOAT_FUNCTIONS
        if name in FLOAT_FUNCTIONS:
            return getattr(np, FLOAT_FUNCTIONS[name])
        return getattr(math, name)


def _array_pow(a, b):
    """``a ** b`` as NumPy's array loop computes it (one lane of an array)."""
    if isinstance(a, (np.ndarray, np.generic)) or isinstance(b, (np.ndarray, np.generic)):
        return (np.asarray(a)[None] ** b)[0]
    return a ** b


class _ArrayPowers(ast.NodeTransformer):
    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Pow):
            return ast.copy_location(ast.Call(ast.Name("_array_pow", ast.Load()),
                                              [node.left, node.right], []), node)
        return node


def numpy_variants(f, source: str):
    """``f`` as NumPy's arrays compute it where they may differ from its scalars in the last
    bit, which a later cancellation or comparison can magnify past any tolerance
    (docs/semantics.md): with NumPy's functions for `math`'s (the engine calls `np.tanh` for
    `math.tanh`), with every power computed by the array loop (`x ** 3` of a NumPy float is
    the C library's `pow`, of an array a product), and both; only those that apply."""
    options = []
    if "math." in source:
        options.append((True, False))
    if "**" in source:
        options.append((False, True))
    if len(options) == 2:
        options.append((True, True))
    for with_math, with_pow in options:
        tree = ast.parse(source)
        if with_pow:
            tree = ast.fix_missing_locations(_ArrayPowers().visit(tree))
        namespace = dict(f.__globals__)
        namespace["_array_pow"] = _array_pow
        exec(compile(tree, f.__code__.co_filename, "exec"), namespace)
        if with_math:       # (after the module's own `import math`)
            namespace["math"] = _NumpyMath()
        yield namespace[f.__name__]


# ------------------------------------------------------------------------------ running

class ModuleWriter:
    """Writes programs to real module files (``inspect.getsource`` needs a file) and imports
    them; every program gets a fresh module name and file."""

    def __init__(self, directory: str | Path | None = None):
        self.directory = Path(directory or tempfile.mkdtemp(prefix="vectorize_fuzz_"))
        self.directory.mkdir(parents=True, exist_ok=True)
        self.count = 0

    def load(self, program: Program, name: str = "f"):
        self.count += 1
        digest = hashlib.sha1(program.source.encode()).hexdigest()[:10]
        module_name = f"fuzzprog_{digest}_{self.count}"
        path = self.directory / f"{module_name}.py"
        path.write_text(program.source)
        spec = importlib.util.spec_from_file_location(module_name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return getattr(module, name)


@dataclass
class Outcome:
    kind: str                  # ok / vacuous / rejected / mismatch / internal / generator /
    #                            documented (a difference docs/semantics.md lists)
    detail: str = ""
    reason: str = ""           # normalized VectorizeError reason (kind == "rejected")
    lanes: int = 0             # examples compared (the drawn call's)
    spurious_warning: bool = False   # RuntimeWarning from vectorized code, none per example
    compacted: bool = False    # a compacted form was built and compared with the select form
    call: str = ""             # the call of the protocol that failed (or was rejected)
    calls: int = 0             # calls compared
    layout: Layout = field(default_factory=Layout)
    seed: int = 0

    @property
    def failed(self) -> bool:
        return self.kind in ("mismatch", "internal", "generator")


_GENERATED_NAME = re.compile(r"\b(?:[vin]\d+|h0|[xyzabfvwejk]|tot|cnt|e\d+)\b")


def normalize_reason(reason: str) -> str:
    """The reason with the program's own names blanked, so that reasons group."""
    reason = re.sub(r"`[^`]*`", lambda m: "`_`" if _GENERATED_NAME.search(m.group()) else
                    m.group(), reason)
    return reason.split("\n")[0].strip()


# NumPy picks either zero for these when the operands are +0.0 and -0.0, and its array loop
# and its scalar loop pick differently (docs/semantics.md): zero signs are not compared
ZERO_SIGN_FREE = re.compile(r"\bnp\.(fmin|fmax|minimum|maximum)\(")


@contextlib.contextmanager
def adaptive_runtime(trials: int):
    """`vectorize.chunks` with ``TRIALS = trials`` (so that a few calls reach the decided
    state), and its safety net watched: yields a list that gets an entry whenever the
    runtime found its compacted form differing from the select form (it then drops the
    compacted form silently, which would hide the difference from the comparison)."""
    differed: list = []
    same = chunks._same_outputs
    saved = chunks.TRIALS

    def watched(a, b):
        result = same(a, b)
        if not result:
            differed.append(True)
        return result

    chunks.TRIALS, chunks._same_outputs = trials, watched
    try:
        with explore_at_once():
            yield differed
    finally:
        chunks.TRIALS, chunks._same_outputs = saved, same


def run_case(program: Program, args: tuple, writer: ModuleWriter, layout: Layout | None = None,
             protocol: Protocol | None = None, seed: int = 0,
             backend: str | None = None) -> Outcome:
    """The drawn call ``f(*args)`` and then the calls of ``protocol``, each compared with the
    per-example reference (see the module docstring); ``backend``: the program is wrapped
    with ``backend=...`` (``"jax"``: XLA's documented divergences are accepted, each by a
    named predicate of `JAX_DIVERGENCES`)."""
    layout = layout or program.layout or Layout.of_args(args, program.n_out)
    if backend is not None:
        layout = replace(layout, backend=backend)
    outcome = _run(program, args, writer, layout, protocol, seed)
    outcome.layout, outcome.seed = layout, seed
    return outcome


def _run(program, args, writer, layout, protocol, seed) -> Outcome:
    signed_zeros = not ZERO_SIGN_FREE.search(program.source)
    f = writer.load(program)
    pool = Pool.of_args(layout, args)
    reference = Reference(f, pool, program.n_out)
    drawn = np.arange(pool.size)
    batch_shape = (pool.size,) if not all(layout.shared) else ()
    try:
        reference.compute(drawn, watch_warnings=True)
    except Exception:
        return Outcome("generator", "the scalar program raised outside the reference's "
                       "tolerated exceptions:\n" + traceback.format_exc(limit=-3),
                       call="the drawn call")
    checked = pool.size - len(reference.raised)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        wrapped = layout.wrap(f)
        try:
            got = wrapped(*args)
        except VectorizeError as exc:
            return _refused(exc, "the drawn call")
        except Exception as exc:
            if checked == 0:
                return Outcome("vacuous", f"both raise ({type(exc).__name__})")
            if not reference.loop_raises(drawn, exc) and not numpy_vectorize_raises(
                    wrapped, args, exc):
                return Outcome("internal", f"{type(exc).__name__}: {exc}\n"
                               + traceback.format_exc(limit=-6), lanes=checked,
                               call="the drawn call")
            got = _RAISED      # the per-example loop raises it too: nothing to compare
    vector_warned = any(issubclass(w.category, RuntimeWarning) for w in caught)
    if got is _RAISED:
        return _after_drawn(f, program, wrapped, pool, layout, protocol, seed, signed_zeros,
                            checked, Outcome("ok", lanes=checked))
    problem = _compare_call(f, program, got, reference, drawn, batch_shape, signed_zeros,
                            layout.backend)
    if problem and numpy_vectorize_gives(wrapped, args, got, signed_zeros):
        problem = ""
    if problem:
        return Outcome("mismatch", problem, lanes=checked, call="the drawn call")
    compacted = _compacted_form_problem(wrapped, layout, args, got, signed_zeros)
    if compacted not in (None, "same"):
        return Outcome(compacted[0], compacted[1], lanes=checked, call="the drawn call, "
                       "its form with every `if` compacted")
    problem = _source_problem(wrapped, args)
    if problem:
        return Outcome("internal", problem, lanes=checked, call=".source() of the drawn call")
    if checked == 0:
        return Outcome("vacuous", "every example raised in the scalar code")
    spurious = vector_warned and not reference.warned and not reference.raised
    return _after_drawn(f, program, wrapped, pool, layout, protocol, seed, signed_zeros,
                        checked, Outcome("ok", lanes=checked, spurious_warning=spurious,
                                         compacted=compacted == "same", calls=1))


_RAISED = object()


def _refused(exc, call: str) -> Outcome:
    """A `VectorizeError`: a rejection, unless it reports an exception of the engine's own
    (``internal error while vectorizing``), which is a crash however it is worded."""
    reason = getattr(exc, "reason", str(exc))
    kind = "internal" if reason.startswith("internal error") else "rejected"
    return Outcome(kind, str(exc), normalize_reason(reason), call=call)


def _after_drawn(f, program, wrapped, pool, layout, protocol, seed, signed_zeros, checked,
                 outcome: Outcome) -> Outcome:
    """``outcome`` of the drawn call, after the protocol's calls when there are any."""
    if protocol is None:
        return outcome
    result = _run_protocol(f, program, wrapped, pool, layout, protocol, seed, signed_zeros)
    if isinstance(result, Outcome):
        result.lanes = checked
        return result
    outcome.calls += result
    return outcome


def _run_protocol(f, program, wrapped, pool, layout, protocol, seed, signed_zeros):
    """The protocol's calls after the drawn one: their count, or the Outcome of the first
    that failed or was rejected."""
    rng = np.random.default_rng(seed)
    if all(layout.shared):       # nothing batched in the drawn call: batch the first argument
        layout = replace(layout, shared=(False,) + layout.shared[1:])
        pool = Pool.of_args(layout, pool.args(np.arange(pool.size)))
    references: dict[int, Reference] = {}
    count = 0
    last_args = None
    with adaptive_runtime(protocol.trials) as differed:
        for call in protocol_calls(pool, protocol, rng):
            label = f"{call.label} (N={len(call.lanes)})"
            reference = references.get(id(call.pool))
            if reference is None:
                reference = references[id(call.pool)] = Reference(f, call.pool, program.n_out)
            try:       # (an empty batch is checked against a few examples' shape and kind)
                reference.compute(np.unique(call.lanes) if len(call.lanes)
                                  else np.arange(min(8, call.pool.size)))
            except Exception:
                return Outcome("generator", "the scalar program raised outside the "
                               "reference's tolerated exceptions:\n"
                               + traceback.format_exc(limit=-3), call=label)
            args = call.args
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    got = wrapped(*args)
                except VectorizeError as exc:
                    return _refused(exc, label)
                except Exception as exc:
                    if len(call.lanes) and (reference.all_raised(call.lanes)
                                            or reference.loop_raises(call.lanes, exc)
                                            or numpy_vectorize_raises(wrapped, args, exc)):
                        continue
                    return Outcome("internal", f"{type(exc).__name__}: {exc}\n"
                                   + traceback.format_exc(limit=-6), call=label)
            if differed:
                return Outcome("mismatch", "the runtime's own check found the compacted form "
                               "differing from the select form (and dropped it)", call=label)
            problem = _compare_call(f, program, got, reference, call.lanes,
                                    (len(call.lanes),), signed_zeros, layout.backend)
            if problem and numpy_vectorize_gives(wrapped, args, got, signed_zeros):
                problem = ""
            if problem:
                return Outcome("mismatch", problem, call=label)
            count += 1
            if len(call.lanes) >= protocol.large_lanes[0]:
                last_args = args
    if last_args is not None:
        problem = _source_problem(wrapped, last_args)
        if problem:
            return Outcome("internal", problem, call=".source() of a large call")
    return count


def _compare_call(f, program, got, reference, lanes, batch_shape, signed_zeros,
                  backend: str | None = None) -> str:
    """'' when ``got`` is what the examples give, else what differs. A result is also accepted
    when it is what the examples give computed as NumPy's arrays compute (`numpy_variants`:
    NumPy's functions for `math`'s, array powers); under ``backend="jax"`` also when a named
    divergence of `JAX_DIVERGENCES` (docs/jax.md) accounts for the difference."""
    try:
        compare(got, reference, lanes, batch_shape, signed_zeros)
        return ""
    except Exception as exc:
        problem = f"{type(exc).__name__}: {exc}"
    for variant in numpy_variants(f, program.source):
        alternative = Reference(variant, reference.pool, program.n_out)
        try:
            alternative.compute(np.unique(lanes))
            compare(got, alternative, lanes, batch_shape, signed_zeros)
            return ""
        except Exception:
            continue
    if backend == "jax":
        name = jax_divergence(f, program, got, reference, lanes, batch_shape, signed_zeros)
        if name is not None:
            ACCEPTED_DIVERGENCES[name] += 1
            return ""
    if backend == "torch" and "%" in program.source:
        variant = torch_remainder_variant(f, program.source)
        alternative = Reference(variant, reference.pool, program.n_out)
        try:
            alternative.compute(np.unique(lanes))
            compare(got, alternative, lanes, batch_shape, signed_zeros)
        except Exception:  # noqa: BLE001 -- it does not account for the difference
            return problem
        ACCEPTED_DIVERGENCES[_TORCH_REMAINDER] += 1
        return ""
    return problem


_TORCH_REMAINDER = "PyTorch's vectorized remainder of a quotient beyond the float range"


def _torch_remainder(a, b):
    """``a % b`` as PyTorch's vectorized loop computes it (docs/semantics.md, "PyTorch"):
    NaN where the quotient ``a / b`` of finite floats is beyond the float range (a subnormal
    ``b``, ``1e300 % 1e-10``), where the 0-d path (and Python) give the exact remainder."""
    result = a % b
    numbers = (float, np.floating)
    if not (isinstance(a, numbers) or isinstance(b, numbers)) or not all(
            isinstance(v, (int, float, np.number)) for v in (a, b)):
        return result
    dtype = np.result_type(result)
    with np.errstate(all="ignore"):
        q = np.divide(np.asarray(a, dtype), np.asarray(b, dtype))
    if np.isfinite(a) and np.isfinite(b) and b != 0 and np.isinf(q):
        return type(result)(math.nan)
    return result


class _TorchRemainders(ast.NodeTransformer):
    """``a % b`` (and ``a %= b``) as `_torch_remainder`."""

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Mod):
            return ast.copy_location(ast.Call(ast.Name("_torch_remainder", ast.Load()),
                                              [node.left, node.right], []), node)
        return node

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Mod) and isinstance(node.target, ast.Name):
            value = ast.Call(ast.Name("_torch_remainder", ast.Load()),
                             [ast.Name(node.target.id, ast.Load()), node.value], [])
            return ast.copy_location(ast.Assign([node.target], value), node)
        return node


def torch_remainder_variant(f, source: str):
    """``f`` with PyTorch's vectorized remainders (`_torch_remainder`)."""
    tree = ast.fix_missing_locations(_TorchRemainders().visit(ast.parse(source)))
    namespace = dict(f.__globals__)
    namespace["_torch_remainder"] = _torch_remainder
    exec(compile(tree, f.__code__.co_filename, "exec"), namespace)
    return namespace[f.__name__]


# ------------------------------------------------------------ XLA's documented divergences

def _flush(value):
    """``value`` with every subnormal float replaced by a zero of its sign (XLA's CPU code
    runs with flush-to-zero and denormals-are-zero)."""
    if isinstance(value, tuple):
        return tuple(_flush(v) for v in value)
    a = np.asarray(value)
    if a.dtype.kind != "f":
        return value
    tiny = np.finfo(a.dtype).tiny
    sub = (a != 0) & (np.abs(a) < tiny)
    if not sub.any():
        return value
    flushed = np.where(sub, np.copysign(0.0, a), a).astype(a.dtype)
    if isinstance(value, float):
        return float(flushed)
    return flushed[()] if a.ndim == 0 and not isinstance(value, np.ndarray) else flushed


class _FlushedReference(Reference):
    """The per-example results with subnormal inputs and results flushed to signed zeros."""

    def __init__(self, f, pool: Pool, n_out: int):
        flushed = Pool(pool.layout, [_flush(c) for c in pool.columns], pool.size)
        super().__init__(f, flushed, n_out)

    def parts(self, rows):
        return [_flush(p) for p in super().parts(rows)]


def _flushed_subnormals(f, program, got, reference, lanes, batch_shape, signed_zeros):
    # (XLA's comparisons see a subnormal as zero, while a select or a negation may pass it
    # through: the result is compared flushed too)
    alternative = _FlushedReference(f, reference.pool, program.n_out)
    alternative.compute(np.unique(lanes))
    compare(_flush(got), alternative, lanes, batch_shape, signed_zeros)


def _zero_signs(f, program, got, reference, lanes, batch_shape, signed_zeros):
    compare(got, reference, lanes, batch_shape, False)


def _both(f, program, got, reference, lanes, batch_shape, signed_zeros):
    _flushed_subnormals(f, program, got, reference, lanes, batch_shape, False)


def _xla_round(a, ndigits=None):
    """``round(a, ndigits)`` as XLA computes it: ``rint(a * 10**n) * (1 / 10**n)``."""
    if ndigits is None or ndigits <= 0 or not isinstance(a, (float, np.floating)):
        return round(a, ndigits)
    factor = 10.0 ** ndigits
    if isinstance(a, (np.float16, np.float32)):
        # `jnp.round` computes a float32 (and a float16 converted) in float32: the product,
        # the reciprocal and the last product each rounded to it
        f32 = np.float32
        with np.errstate(all="ignore"):
            return type(a)(np.round(f32(a) * f32(factor)) * f32(1.0 / factor))
    result = np.round(np.float64(a) * factor) * (1.0 / factor)
    return float(result) if isinstance(a, float) else type(a)(result)


class _XlaDivisions(ast.NodeTransformer):
    """``a / c`` with ``c`` a number literal as ``a * (1 / c)``; ``round(a, n)`` as XLA's."""

    def visit_BinOp(self, node):
        self.generic_visit(node)
        right = node.right
        sign = 1.0
        if isinstance(right, ast.UnaryOp) and isinstance(right.op, ast.USub):
            right, sign = right.operand, -1.0
        if (isinstance(node.op, ast.Div) and isinstance(right, ast.Constant)
                and type(right.value) in (int, float) and right.value != 0):
            inverse = ast.Constant(1.0 / (sign * right.value))
            return ast.copy_location(ast.BinOp(node.left, ast.Mult(), inverse), node)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, ast.Name) and node.func.id == "round" and len(node.args) == 2:
            node.func = ast.copy_location(ast.Name("_xla_round", ast.Load()), node.func)
        return node


def xla_division_variant(f, source: str):
    """``f`` with XLA's divisions by a constant (docs/jax.md), or None where it has none."""
    if "/" not in source.replace("//", "") and "round(" not in source:
        return None
    tree = ast.fix_missing_locations(_XlaDivisions().visit(ast.parse(source)))
    namespace = dict(f.__globals__)
    namespace["_xla_round"] = _xla_round
    exec(compile(tree, f.__code__.co_filename, "exec"), namespace)
    return namespace[f.__name__]


def _fma(a, b, c):
    """``a * b + c`` rounded once, as a fused multiply-add computes it (in the type of the
    float operands, NumPy's where one is NumPy's)."""
    values = (a, b, c)
    kind = next((type(v) for v in values if isinstance(v, np.floating)), float)
    try:
        exact = Fraction(float(a)) * Fraction(float(b)) + Fraction(float(c))
        result = float(exact)
    except (ValueError, OverflowError, TypeError):   # inf, nan, a huge exact value
        with np.errstate(all="ignore"):
            return a * b + c
    if result == 0.0 and math.copysign(1.0, float(a) * float(b)) < 0 and \
            math.copysign(1.0, float(c)) < 0:
        result = -0.0
    return kind(result)


def _fma_round(a, ndigits, c, sign=1.0):
    """``round(a, ndigits) + sign * c`` with XLA's round (`_xla_round`) fused into the sum."""
    if ndigits is None or ndigits <= 0 or not isinstance(a, (float, np.floating)) or \
            not isinstance(c, (float, int, np.floating, np.integer)):
        return _xla_round(a, ndigits) + sign * c
    factor = 10.0 ** ndigits
    return _fma(np.round(np.float64(a) * factor), 1.0 / factor, sign * c)


class _XlaFusedSums(ast.NodeTransformer):
    """(after `_XlaDivisions`) ``a * b + c``, ``c + a * b``, ``a * b - c`` and XLA's
    ``round(a, n) + c`` with the product and the sum rounded once (`_fma`)."""

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if not isinstance(node.op, (ast.Add, ast.Sub)):
            return node
        negate = isinstance(node.op, ast.Sub)
        for product, other, product_first in ((node.left, node.right, True),
                                              (node.right, node.left, False)):
            if isinstance(product, ast.Call) and isinstance(product.func, ast.Name) and \
                    product.func.id == "_xla_round" and len(product.args) == 2 and \
                    product_first:
                sign = ast.Constant(-1.0 if negate else 1.0)
                return ast.copy_location(ast.Call(ast.Name("_fma_round", ast.Load()), [
                    *product.args, other, sign], []), node)
            if isinstance(product, ast.BinOp) and isinstance(product.op, ast.Mult):
                a, b = product.left, product.right
                c = other
                if negate and product_first:
                    c = ast.UnaryOp(ast.USub(), other)
                elif negate:
                    a = ast.UnaryOp(ast.USub(), a)
                return ast.copy_location(ast.Call(ast.Name("_fma", ast.Load()), [a, b, c],
                                                  []), node)
        return node


class _ForwardProducts(ast.NodeTransformer):
    """A name assigned once, from a product or a ``round(a, n)``, read as an operand of a
    ``+``/``-``: the expression itself there (XLA fuses across statements)."""

    def __init__(self, tree):
        counts: Counter = Counter()
        values = {}
        for node in ast.walk(tree):
            targets = node.targets if isinstance(node, ast.Assign) else \
                [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For))\
                else []
            for target in targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        counts[name.id] += 1
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(
                    node.targets[0], ast.Name) and (
                    isinstance(node.value, ast.BinOp) and isinstance(node.value.op, ast.Mult)
                    or isinstance(node.value, ast.Call) and isinstance(
                        node.value.func, ast.Name) and node.value.func.id == "round"
                    and len(node.value.args) == 2):
                values[node.targets[0].id] = node.value
        self.values = {k: v for k, v in values.items() if counts[k] == 1}

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, (ast.Add, ast.Sub)):
            for side in ("left", "right"):
                operand = getattr(node, side)
                if isinstance(operand, ast.Name) and operand.id in self.values:
                    import copy
                    setattr(node, side, copy.deepcopy(self.values[operand.id]))
        return node


def xla_fused_variant(f, source: str):
    """``f`` with XLA's divisions by a constant and its products feeding a sum fused into
    one rounding (docs/jax.md), or None where it has neither a product nor a ``round``."""
    if "*" not in source.replace("**", "") and "round(" not in source:
        return None
    tree = ast.parse(source)
    tree = _ForwardProducts(tree).visit(tree)
    tree = _XlaFusedSums().visit(_XlaDivisions().visit(tree))
    tree = ast.fix_missing_locations(tree)
    namespace = dict(f.__globals__)
    namespace.update(_xla_round=_xla_round, _fma=_fma, _fma_round=_fma_round)
    exec(compile(tree, f.__code__.co_filename, "exec"), namespace)
    return namespace[f.__name__]


def _fused_sums(f, program, got, reference, lanes, batch_shape, signed_zeros):
    variant = xla_fused_variant(f, program.source)
    if variant is None:
        raise AssertionError("no product feeding a sum")
    alternative = Reference(variant, reference.pool, program.n_out)
    alternative.compute(np.unique(lanes))
    try:
        compare(got, alternative, lanes, batch_shape, False)
    except AssertionError:      # with subnormals flushed too (both in one call)
        flushed = _FlushedReference(variant, reference.pool, program.n_out)
        flushed.compute(np.unique(lanes))
        compare(_flush(got), flushed, lanes, batch_shape, False)


def _divisions_by_constants(f, program, got, reference, lanes, batch_shape, signed_zeros):
    variant = xla_division_variant(f, program.source)
    if variant is None:
        raise AssertionError("no division by a constant")
    alternative = Reference(variant, reference.pool, program.n_out)
    alternative.compute(np.unique(lanes))
    try:
        compare(got, alternative, lanes, batch_shape, signed_zeros)
    except AssertionError:
        compare(got, alternative, lanes, batch_shape, False)


def _int_division_by_zero(f, example) -> bool:
    """Whether the example divides an integer by zero (NumPy warns and gives 0; XLA gives its
    own value: docs/jax.md)."""
    with warnings.catch_warnings(record=True) as caught, np.errstate(all="warn"):
        warnings.simplefilter("always")
        try:
            f(*example)
        except Exception:  # noqa: BLE001 -- an example that raises is not compared anyway
            return False
    return any(re.search(r"divide by zero encountered in scalar (floor_divide|remainder|"
                         r"divmod)", str(w.message)) for w in caught)


def _complex_with_an_infinite_part(source, example) -> bool:
    """Whether ``complex(...)`` of the program may get an infinite part on this example
    (NumPy: ``0.5+infj``; JAX's pair viewed as complex: ``nan+infj``; docs/jax.md)."""
    return "complex(" in source and any(
        np.isinf(np.asarray(v, dtype=float)).any() for v in example
        if np.asarray(v).dtype.kind in "fc")


#: Lanes XLA may compute otherwise, by name (docs/jax.md): such a lane is not compared; the
#: other lanes of the call still are.
JAX_LANE_DIVERGENCES = {
    "an integer division by zero": lambda f, source, example: _int_division_by_zero(
        f, example),
    "complex() with an infinite part": lambda f, source, example:
        _complex_with_an_infinite_part(source, example),
}


def _lane_divergence(f, program, got, reference, lanes, batch_shape, signed_zeros):
    for name, diverges in JAX_LANE_DIVERGENCES.items():
        left = Reference(f, reference.pool, reference.n_out)
        left.results, left.raised_types = dict(reference.results), set(reference.raised_types)
        left.raised = set(reference.raised) | {
            int(r) for r in np.unique(lanes)
            if diverges(f, program.source, reference.pool.example(int(r)))}
        if left.raised == reference.raised:
            continue
        try:
            compare(got, left, lanes, batch_shape, False)
        except Exception:  # noqa: BLE001 -- not this one
            continue
        return name
    raise AssertionError("no lane divergence accounts for it")


#: Named predicates, one per divergence docs/jax.md lists (tried in this order; each raises
#: when it does not account for the difference): subnormal inputs and results flushed to zero;
#: the sign of a zero result (`x + 0.0` folded, min/max ties, `//`, `%`); both together.
JAX_DIVERGENCES = {
    "subnormals flushed to zero": _flushed_subnormals,
    "sign of a zero result": _zero_signs,
    "subnormals flushed and the sign of a zero": _both,
    "a division by a constant as a product with its reciprocal": _divisions_by_constants,
    "a product feeding a sum, fused (one rounding)": _fused_sums,
    "lanes": _lane_divergence,
}
ACCEPTED_DIVERGENCES: Counter = Counter()


def jax_divergence(f, program, got, reference, lanes, batch_shape, signed_zeros):
    """The name of the documented divergence that accounts for ``got``, or None."""
    for name, accounts in JAX_DIVERGENCES.items():
        try:
            named = accounts(f, program, got, reference, lanes, batch_shape, signed_zeros)
        except Exception:  # noqa: BLE001 -- it does not account for the difference
            continue
        return named or name
    return None


def _source_problem(wrapped, args) -> str:
    try:
        wrapped.source(*args)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}\n" + traceback.format_exc(limit=-6)
    return ""


def _planned(wrapped, layout: Layout, args):
    """(specialization as the front end keeps it, `frontend.Entry`; a function running a
    generated function of it on ``args`` to the final outputs) for the call
    ``wrapped(*args)``, or None."""
    if layout.api == "vmap":
        from vectorize import backends
        from vectorize.vmap import _place_outputs
        entry, call_args, _, size, _, _ = wrapped._plan(args)
        return entry, lambda gen: _place_outputs(gen.function(*call_args), gen.result,
                                                 wrapped.out_axes, size,
                                                 backends.get(gen.backend), call_args)
    if layout.api == "signature":
        plan = wrapped._signature_plan(args, {})
        if plan is None:
            return None
        entry, call_args, loop_shape, size, dim_sizes, _ = plan
        return entry, lambda gen: wrapped._signature_outputs(
            wrapped._call(gen.function, call_args), gen.result, loop_shape, size, dim_sizes,
            call_args)
    entry, call_args, shape, _ = wrapped._plan(args, {}, announce=False)
    return entry, lambda gen: wrapped._outputs(wrapped._call(gen.function, call_args),
                                               gen.result, shape, call_args)


def _compacted_form_problem(wrapped, layout, args, got, signed_zeros):
    """The form with every compactable per-example ``if`` compacted, which large batches may
    run instead (`vectorize.chunks.run` times both), must give exactly what the select form
    gave: ("mismatch" | "internal", detail); "same" when it does; None when there is none."""
    planned = _planned(wrapped, layout, args)
    if planned is None:
        return None
    entry, outputs = planned
    build = entry.tuning.build_compacted if entry.tuning is not None else None
    if build is None:
        return None
    try:
        compacted = build()
    except VectorizeError as exc:
        if "internal error" in str(exc):
            return "internal", f"building the compacted form: {exc}"
        return None         # it cannot be compacted: the select form runs
    except Exception as exc:
        return "internal", (f"building the compacted form raised {type(exc).__name__}: "
                            f"{exc}\n" + traceback.format_exc(limit=-6))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = outputs(compacted)
        except Exception as exc:
            # a check of the generated code that is conservative (a Python error where an
            # example's NumPy scalar gives inf) raises in the select form too: the front
            # end then replays the examples, whichever form ran (`_run_or_replay`)
            try:
                outputs(entry.spec)
            except type(exc):
                return "same"
            except Exception:   # noqa: BLE001 -- another error: reported below
                pass
            return "internal", (f"the compacted form raised {type(exc).__name__}: {exc}\n"
                                + compacted.source)
    try:
        _assert_identical(out, got, signed_zeros)
    except AssertionError as exc:
        return "mismatch", f"the compacted form differs from the select form: {exc}\n" \
                           + compacted.source
    return "same"


def _assert_identical(a, b, signed_zeros: bool) -> None:
    if isinstance(a, tuple) or isinstance(b, tuple):
        assert isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            _assert_identical(x, y, signed_zeros)
        return
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, a.shape, b.dtype, b.shape)
    assert np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"), (a, b)
    if signed_zeros and a.dtype.kind == "f":
        assert np.array_equal(np.signbit(a[a == 0]), np.signbit(b[b == 0])), (a, b)


def format_case(program: Program, args: tuple, outcome: Outcome) -> str:
    """A self-contained report of one case: the program, how it was called, its drawn
    inputs, which call of the protocol failed, what happened."""
    def text(a):
        return f"np.array({a.tolist()!r})" if isinstance(a, np.ndarray) else repr(a)

    features = ", ".join(sorted(program.features)) or "-"
    call = f"failing call: {outcome.call} (protocol seed {outcome.seed})\n" \
        if outcome.call else ""
    return (f"{outcome.kind.upper()} (features: {features})\n"
            f"{program.source}\n"
            f"called as: {outcome.layout.describe()}\n"
            f"drawn args: f({', '.join(text(a) for a in args)})\n"
            f"{call}"
            f"{outcome.detail}")


@contextlib.contextmanager
def bounded_shrinking(seconds: float):
    """Hypothesis gives up shrinking after a fixed five minutes; programs are slow to check,
    so bound it to ``seconds`` (the best failing example so far is reported). This sets a
    constant of hypothesis' engine, and does nothing if a hypothesis version lacks it."""
    try:
        from hypothesis.internal.conjecture import engine
    except ImportError:     # pragma: no cover - a hypothesis without this module
        engine = None
    old = getattr(engine, "MAX_SHRINKING_SECONDS", None)
    if old is None:
        yield
        return
    engine.MAX_SHRINKING_SECONDS = seconds
    try:
        yield
    finally:
        engine.MAX_SHRINKING_SECONDS = old


# ------------------------------------------------------- construct programs (issue 20)

def _outcome_of(call, *args):
    """('ok', value, warned) or ('raised', exception, warned) of ``call(*args)``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = call(*args)
        except Exception as exc:  # noqa: BLE001 -- the outcome is compared
            return "raised", exc, False
    warned = any(issubclass(w.category, RuntimeWarning) for w in caught)
    return "ok", value, warned


def _first_example_warns(f, args) -> bool:
    """Whether ``numpy.vectorize(f)`` warns (a RuntimeWarning) on some example of ``args``
    alone, that example first: its call on NumPy scalars, which warn where Python's floats
    only set the processor's flags."""
    flat = [a.reshape(-1) for a in np.broadcast_arrays(*[np.asarray(a) for a in args])]
    return any(_outcome_of(np.vectorize(f), *[a[i:i + 1] for a in flat])[2]
               for i in range(len(flat[0]) if flat else 0))


def _raises_on_every_example(f, empty, arg_sets, exc) -> bool:
    """Whether ``f`` raises ``exc``'s type on an example of ones of the empty batch
    ``empty``'s dtypes and on the first example of every non-empty call of ``arg_sets``: an
    error no lane decides (`x ** -1` of a uint8 `x`), which `vmap` raises on an empty batch
    too (docs/semantics.md, operations every example runs)."""
    examples = [tuple(np.ones(1, a.dtype) for a in empty)]
    examples += [args for args in arg_sets if len(args[0])]
    for args in examples:
        ref = _outcome_of(_vmap_loop, f, tuple(a[:1] for a in args))
        if ref[0] != "raised" or type(ref[1]) is not type(exc):
            return False
    return True


def _vmap_loop(f, args, python: bool = False):
    """The per-example loop over NumPy scalars that `vmap` is compared with (``python``:
    over Python numbers), its results stacked by `np.array`."""
    n = len(args[0])
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        rows = [f(*[a[i].item() if python else a[i] for a in args]) for i in range(n)]
    if rows and isinstance(rows[0], tuple):
        return tuple(np.array([r[k] for r in rows]) for k in range(len(rows[0])))
    return np.array(rows)


def _same(got, expected, what: str, rtol: float = 0.0, join: bool = False,
          signed_zeros: bool = True) -> str:
    """'' when ``got`` equals ``expected`` (values, shapes, dtype kinds; ``rtol``: relative
    tolerance, for float32/float16 inputs computed in their precision, docs/semantics.md),
    else what differs."""
    gots = got if isinstance(got, tuple) else (got,)
    exps = expected if isinstance(expected, tuple) else (expected,)
    if len(gots) != len(exps):
        return f"{what}: {len(gots)} outputs, expected {len(exps)}"
    for g, e in zip(gots, exps):
        g, e = np.asarray(g), np.asarray(e)
        if e.dtype in (np.float32, np.float16, np.complex64) and g.dtype.kind == \
                e.dtype.kind and \
                g.dtype.itemsize > e.dtype.itemsize:
            with np.errstate(all="ignore"):     # numpy.vectorize stores in the first's dtype
                g = g.astype(e.dtype)
        if join and g.dtype.kind != e.dtype.kind and g.dtype.kind in "fc":
            e = e.astype(g.dtype)     # an int path's results in the joined float dtype
        if g.shape != e.shape:
            return f"{what}: shape {g.shape}, expected {e.shape}"
        if g.size == 0:
            continue
        try:
            if rtol and g.dtype.kind in "fc" and e.dtype.kind in "fc":
                np.testing.assert_allclose(g, e, rtol=rtol, atol=rtol, equal_nan=True,
                                           err_msg=what)
                continue
            assert_values_equal(g, e, what + ": ", signed_zeros=signed_zeros)
        except AssertionError as exc:
            return str(exc)[:600]
    return ""


def run_construct_case(source: str, arg_sets: list, writer: ModuleWriter,
                       api: str = "vectorize", rebind: bool = False,
                       backend: str | None = None) -> Outcome:
    """One construct program (`construct_programs`) through ``api`` on each argument tuple of
    ``arg_sets`` in turn (``rebind``: the module's helper ``g`` is rebound to ``g_alt`` before
    the last call). ``vectorize``: against ``numpy.vectorize(f)`` (same values and dtype, the
    same exception type, no RuntimeWarning it does not give); ``vmap``: against the loop over
    NumPy scalars (where the loop raises, nothing is compared). ``backend``: wrapped with
    ``backend=...`` (``"jax"``: the divergences of `JAX_DIVERGENCES` accepted by name)."""
    program = Program(source, ("x", "y"), 1)
    f = writer.load(program)
    namespace = f.__globals__
    extra = {} if backend is None else {"backend": backend}
    wrapped = (vectorize(f, fallback="error", **extra) if api == "vectorize"
               else vmap(f, **extra))
    for k, args in enumerate(arg_sets):
        if rebind and k == len(arg_sets) - 1:
            namespace["g"] = namespace["g_alt"]
        call = f"call {k + 1} (N={len(args[0])})"
        if len(args[0]) == 0:
            # numpy.vectorize raises without otypes and the loop has no result to stack: the
            # empty batch must only not fail (docs/semantics.md: empty batches)
            got = _outcome_of(wrapped, *args)
            if got[0] == "raised" and not isinstance(got[1], VectorizeError) and not (
                    api == "vmap" and _raises_on_every_example(f, args, arg_sets, got[1])):
                return Outcome("internal", f"{type(got[1]).__name__}: {got[1]}", call=call)
            continue
        if api == "vectorize":
            ref = _outcome_of(np.vectorize(f), *args)
        else:
            ref = _outcome_of(_vmap_loop, f, args)
        got = _outcome_of(wrapped, *args)
        if got[0] == "raised" and isinstance(got[1], VectorizeError):
            return Outcome("rejected", str(got[1]), normalize_reason(str(got[1])), call=call)
        low = [np.finfo(a.dtype).eps for a in args
               if a.dtype in (np.float32, np.float16, np.complex64)]
        if ref[0] == "raised":
            if api == "vmap":
                continue
            if got[0] == "raised" and type(got[1]) is type(ref[1]):
                continue
            detail = (f"numpy.vectorize raises {type(ref[1]).__name__}: {ref[1]}; got "
                      + (f"{type(got[1]).__name__}: {got[1]}" if got[0] == "raised"
                         else f"a result {got[1]!r}"))
            return Outcome("mismatch", detail, call=call)
        if got[0] == "raised":
            tb = "".join(traceback.format_exception(got[1]))[-3000:]
            return Outcome("internal", f"{type(got[1]).__name__}: {got[1]}\n{tb}", call=call)
        problem = _same(got[1], ref[1], call, 64 * max(low) if low else 0.0)
        if problem and "dtype kind" in problem:
            # results of different types on different paths: `np.array`'s promotion of the
            # examples' results, not the first result's type (docs/semantics.md)
            joined = _outcome_of(_vmap_loop, f, args, api == "vectorize")
            if joined[0] == "ok":
                problem = _same(got[1], joined[1], call, 64 * max(low) if low else 0.0,
                                join=True)
        if problem:
            # NumPy's array powers and functions may differ from its scalars in the last bit
            # (or, `(-0.0) ** 0.5`, the zero's sign; docs/semantics.md): the reference run
            # with them is accepted too
            for variant in numpy_variants(f, source):
                again = _outcome_of(np.vectorize(variant), *args) if api == "vectorize" \
                    else _outcome_of(_vmap_loop, variant, args)
                if again[0] == "ok" and not _same(got[1], again[1], call,
                                                  64 * max(low) if low else 0.0):
                    problem = ""
                    break
        if problem and backend == "jax":
            name = _construct_jax_divergence(f, api, args, got[1], call,
                                             64 * max(low) if low else 0.0)
            if name is not None:
                ACCEPTED_DIVERGENCES[name] += 1
                problem = ""
        if problem and backend == "torch" and "%" in source:
            variant = torch_remainder_variant(f, source)
            again = _outcome_of(np.vectorize(variant), *args) if api == "vectorize" \
                else _outcome_of(_vmap_loop, variant, args)
            if again[0] == "ok" and not _same(got[1], again[1], call,
                                              64 * max(low) if low else 0.0):
                ACCEPTED_DIVERGENCES[_TORCH_REMAINDER] += 1
                problem = ""
        if problem:
            # float16 / float32 examples computed in their own precision, against Python's
            # doubles (vectorize) or weak Python floats (vmap's `float(x)`, `math.*`): a
            # documented divergence (docs/semantics.md) that `//`, `%`, int() magnify
            kind = "known" if low else "mismatch"
            return Outcome(kind, f"{problem}\n got {got[1]!r}\n expected {ref[1]!r}",
                           call=call)
        if api == "vectorize" and got[2] and not ref[2] and not low:
            # (float32 / float16 arithmetic may overflow where Python's doubles do not:
            # docs/semantics.md)
            if _first_example_warns(f, args):
                # Python's arithmetic makes a NaN or inf there, silently, setting the
                # processor's flags that numpy.vectorize reports only where no later ufunc
                # cleared them; on NumPy scalars (the example first, as numpy.vectorize
                # learns its output types) it warns: docs/semantics.md, the documented
                # difference of warnings
                return Outcome("documented", "a RuntimeWarning of Python arithmetic that "
                               "numpy.vectorize's loop does not report", call=call)
            return Outcome("mismatch", "a RuntimeWarning numpy.vectorize does not give",
                           call=call, spurious_warning=True)
    return Outcome("ok")


def _construct_jax_divergence(f, api, args, got, call, rtol):
    """The name of the divergence of `JAX_DIVERGENCES` accounting for ``got`` (a construct
    program's call), or None."""
    for name, flush, signed in (("subnormals flushed to zero", True, True),
                                ("sign of a zero result", False, False),
                                ("subnormals flushed and the sign of a zero", True, False)):
        inputs = tuple(_flush(a) for a in args) if flush else args
        again = _outcome_of(np.vectorize(f), *inputs) if api == "vectorize" \
            else _outcome_of(_vmap_loop, f, inputs)
        if again[0] != "ok":
            continue
        expected = _flush(again[1]) if flush else again[1]
        if not _same(_flush(got) if flush else got, expected, call, rtol,
                     signed_zeros=signed):
            return name
    source = Path(f.__code__.co_filename).read_text()
    variant = xla_division_variant(f, source)
    if variant is not None:
        again = _outcome_of(np.vectorize(variant), *args) if api == "vectorize" \
            else _outcome_of(_vmap_loop, variant, args)
        if again[0] == "ok" and not _same(got, again[1], call, rtol, signed_zeros=False):
            return "a division by a constant as a product with its reciprocal"
    variant = xla_fused_variant(f, source)
    for flush in (False, True) if variant is not None else ():
        # (with subnormals flushed too: both divergences in one call)
        inputs = tuple(_flush(a) for a in args) if flush else args
        again = _outcome_of(np.vectorize(variant), *inputs) if api == "vectorize" \
            else _outcome_of(_vmap_loop, variant, inputs)
        if again[0] == "ok" and not _same(_flush(got) if flush else got,
                                          _flush(again[1]) if flush else again[1], call,
                                          rtol, signed_zeros=False):
            return "a product feeding a sum, fused (one rounding)"
    for name, diverges in JAX_LANE_DIVERGENCES.items():
        n = len(args[0])
        keep = np.array([not diverges(f, source, tuple(a[i] for a in args)) for i in range(n)],
                        dtype=bool)
        if keep.all():
            continue
        kept = tuple(a[keep] for a in args)
        again = _outcome_of(np.vectorize(f), *kept) if api == "vectorize" \
            else _outcome_of(_vmap_loop, f, kept)
        if again[0] != "ok":
            continue
        part = tuple(g[keep] for g in got) if isinstance(got, tuple) else got[keep]
        if not _same(part, again[1], call, rtol, signed_zeros=False):
            return name
    return None

