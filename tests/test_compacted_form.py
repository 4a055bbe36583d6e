"""The compacted form, as the adaptive runtime runs it, against the per-example loop.

With ``chunk_size="auto"`` the first calls of a large batch time the select form against the
specialization with every compactable per-example ``if`` compacted (`vectorize.chunks.run`,
docs/design.md "Chunked execution"), and the faster one runs from then on. That form must be
as correct as the select form on every program the select form accepts. Here every program of
the four corpora (if, loop, array and realistic scalar functions; the if corpus without its
``# vectorize: select`` comments, which would forbid the alternative) that has a compacted form
runs in it

- at N = 0, 1 and 5 (its function put in place of the select form's), and
- 12 calls in a row at a large N through ``vectorize``/``vmap`` with ``chunk_size="auto"``
  (`chunks.TRIALS` lowered and a clock that makes the compacted form the faster, so that every
  way of running it is timed and the decided state keeps it),

each call compared with the per-example loop. Large batches are made of the lanes of a small
one, drawn again for every call, so the loop runs once per distinct example.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import sys
import tempfile
import warnings

import array_corpus as AC
import loop_corpus as L
import numpy as np
import pytest
from corpus import CORPUS
from differential import assert_like_numpy_vectorize, numpy_vectorize_outcome
from test_compact_ifs import CASES as IF_CASES
from test_loops import CASES as LOOP_CASES
from test_loops import HANGS

from vectorize import chunks, vectorize, vmap
from vectorize.frontend import COMPACTED_NOTE

LARGE = 20_000        # lanes of a large batch (>= 2 * chunks.AUTO_MIN_LANES: it is timed)
CALLS = 12
LANES = 48            # distinct examples a batch is drawn from


# ------------------------------------------------------------ the if corpus, without select
def _if_corpus_without_select_comments():
    """`if_corpus` with its ``# vectorize: select`` comments removed, as a module of its own
    (the engine reads functions from their files)."""
    import if_corpus
    with open(if_corpus.__file__) as f:
        text = re.sub(r"  # vectorize: select\b", "", f.read())
    folder = tempfile.mkdtemp(prefix="vectorize_if_corpus_")
    with open(os.path.join(folder, "if_corpus_unmarked.py"), "w") as f:
        f.write(text)
    sys.path.insert(0, folder)
    import if_corpus_unmarked
    return if_corpus_unmarked


IF = _if_corpus_without_select_comments()


# -------------------------------------------------------------------------------- entries
@dataclasses.dataclass
class Entry:
    """A program with its inputs: ``columns`` are the distinct examples of each mapped
    argument (axis 0), ``shared`` the arguments every example gets as they are, at
    positions ``shared_at``."""

    name: str
    func: object
    columns: list
    mode: str = "vectorize"                 # or "vmap"
    shared: tuple = ()
    shared_at: tuple = ()
    in_axes: tuple | None = None            # vmap

    def make(self):
        if self.mode == "vmap":
            return vmap(self.func, in_axes=self.in_axes, fallback="error")
        excluded = set(self.shared_at) or None
        return vectorize(self.func, fallback="error", excluded=excluded)

    def args(self, index):
        """The arguments of the batch made of the examples ``index``."""
        mapped = iter([c[index] for c in self.columns])
        shared = dict(zip(self.shared_at, self.shared))
        count = len(self.columns) + len(self.shared)
        return [shared[k] if k in shared else next(mapped) for k in range(count)]

    def example(self, k):
        shared = dict(zip(self.shared_at, self.shared))
        mapped = iter([c[k] for c in self.columns])
        count = len(self.columns) + len(self.shared)
        return [shared[i] if i in shared else next(mapped) for i in range(count)]


def _quiet(f, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return f(*args)


def _columns_from_edges(edge, dtypes, rng, mode):
    """``LANES`` examples: the edge inputs, then random combinations of their values."""
    cols = [np.array(col, dtype=dt) if dt else np.array(col)
            for col, dt in zip(edge, dtypes or (None,) * len(edge))]
    n = len(cols[0])
    extra = LANES - n
    out = []
    for col in cols:
        pick = rng.integers(0, n, extra)
        if mode == "vmap":      # rows of values of the column
            flat = col.reshape(-1)
            rows = flat[rng.integers(0, flat.size, (extra,) + col.shape[1:])]
            out.append(np.concatenate([col, rows]))
        else:
            out.append(np.concatenate([col, col[pick]]))
    return out


def _case_entries(cases, module, label, variants_of):
    out = []
    for case in cases:
        for variant in variants_of(case):
            rng = np.random.default_rng(len(out))
            name = f"{case.name}_{variant}" if variant else case.name
            columns = _columns_from_edges(case.edge, case.dtypes, rng, case.mode)
            n = len(columns)
            shared = tuple(case.unbatched_edge)
            out.append(Entry(f"{label}:{name}", getattr(module, name), columns, case.mode,
                             shared, tuple(range(n, n + len(shared))),
                             (0,) * n + (None,) * len(shared)))
    return out


def _if_entries():
    # one function per case: the `_select` one, whose comments are gone
    return _case_entries([c for c in IF_CASES if not c.of], IF, "if",
                         lambda case: ["select"])


def _loop_entries():
    def variants(case):
        return [v for v in case.variants if not case.bug(v) and (case.name, v) not in HANGS]
    return _case_entries(LOOP_CASES, L, "loop", variants)


_SCALAR_POOLS = {
    "f": [0.0, -0.0, math.nan, math.inf, -math.inf, 1.0, -1.0, 0.5, -2.5, 1e308, -1e308,
          5e-324, 1e-300, 3.0, 20.0, 1e16, 2.0, -3.5, 7.25, 0.1],
    "fm": [0.0, -0.0, 0.5, -0.5, 1.5, -2.5, math.nan, math.inf, -math.inf, 1e9, -1e9, 3.7,
           -7.2, 12.0, 100.5],
    "f32": [0.0, -0.0, math.nan, math.inf, -math.inf, 1.0, -1.0, 0.5, -2.5, 3e38, -3e38,
            1e-45, 3.0, 0.1, 7.5],
    "i": [0, 1, -1, 2, -2, 3, 15, -15, 100, 400, -400, 1900, 2000, 7, 12345, -99999],
    "b": [True, False],
}
_SCALAR_DTYPES = {"f": np.float64, "fm": np.float64, "f32": np.float32, "i": np.int64,
                  "b": np.bool_}


def _scalar_entries():
    out = []
    for func, kinds in CORPUS.items():
        rng = np.random.default_rng(len(out))
        columns, shared, shared_at = [], [], []
        for k, kind in enumerate(kinds):
            if kind == "n":
                shared.append(3)
                shared_at.append(k)
                continue
            pool = np.array(_SCALAR_POOLS[kind], dtype=_SCALAR_DTYPES[kind])
            if kind in ("f", "fm"):
                pool = np.concatenate([pool, rng.uniform(-50, 50, 12)])
            columns.append(pool[rng.integers(0, pool.size, LANES)])
        out.append(Entry(f"corpus:{func.__name__}", func, columns, shared=tuple(shared),
                         shared_at=tuple(shared_at)))
    return out


def _array_entries():
    out = []
    for func, spec in AC.CORPUS.items():
        for in_axes in spec.in_axes:
            if in_axes in spec.bug:
                continue
            rng = np.random.default_rng(len(out))
            parsed = [(([c for c in core.split(",") if c]), kind)
                      for core, kind in (a.split(":") for a in spec.args)]
            dims = {}
            columns, shared, shared_at = [], [], []
            for k, ((core, kind), axis) in enumerate(zip(parsed, in_axes)):
                shape = tuple(int(c) if c.isdigit() else dims.setdefault(c, 3) for c in core)
                if kind.startswith("i"):
                    value = rng.integers(0, dims.setdefault(kind[1:], 3),
                                         ((LANES,) if axis is not None else ()) + shape)
                else:
                    low = 1 if kind == "p" else -8
                    value = rng.integers(low, 9, ((LANES,) if axis is not None else ())
                                         + shape) / 2
                if axis is None:
                    shared.append(value)
                    shared_at.append(k)
                else:
                    columns.append(value)
            out.append(Entry(f"array:{func.__name__}-{in_axes}", func, columns, "vmap",
                             tuple(shared), tuple(shared_at), in_axes))
    return out


ENTRIES = _if_entries() + _loop_entries() + _scalar_entries() + _array_entries()


# ----------------------------------------------------------------------------- reference
def _reference(entry):
    """(the distinct examples on which the scalar code returns, their results stacked per
    output: a tuple of arrays for tuple results)."""
    good, results = [], []
    for k in range(LANES):
        args = entry.example(k)
        try:
            result = _quiet(entry.func, *args)
            if entry.mode == "vectorize":
                # as numpy.vectorize calls it, with Python numbers: `vectorize` raises where
                # they do (`x % 0.0`), so such an example is not one to compare on; the
                # values compared stay NumPy's, but for float16/32 and complex64 items,
                # which numpy.vectorize computes with as Python floats (complex) and casts
                # to the types of the NumPy scalars' result
                python = _quiet(entry.func, *[a.item() if isinstance(a, np.generic) else a
                                              for a in args])
                if any(isinstance(a, np.generic) and a.dtype.char in "efF" for a in args):
                    result = tuple(np.asarray(p, np.asarray(r).dtype)[()] for p, r in
                                   zip(python, result)) if isinstance(result, tuple) else \
                        np.asarray(python, np.asarray(result).dtype)[()]
            results.append(result)
        except (ArithmeticError, ValueError, TypeError, OverflowError, IndexError):
            continue
        good.append(k)
    if results and isinstance(results[0], tuple):
        stacked = tuple(np.array([r[j] for r in results]) for j in range(len(results[0])))
    else:
        stacked = np.array(results)
    return np.array(good, dtype=np.intp), stacked


def _check_call(entry, vf, good, positions, stacked, what):
    """``vf`` on the examples ``good[positions]`` against the loop's results ``stacked``, or
    for `vectorize` against numpy.vectorize's: its types are the first example's, into which
    it converts the others' results (numpy.vectorize run on the distinct examples after the
    first, where that gives an answer: a large batch repeats them)."""
    args = entry.args(good[positions])
    if entry.mode != "vectorize" or not len(positions):
        _check(_quiet(vf, *args), _expected(stacked, positions), what)
        return
    order = np.concatenate([positions[:1], np.arange(good.size)])
    reference, raised = numpy_vectorize_outcome(entry.func, *entry.args(good[order]),
                                                excluded=entry.shared_at)
    if raised is None:
        reference = tuple(r[1:][positions] for r in reference) if isinstance(
            reference, tuple) else reference[1:][positions]
    else:
        reference, raised = numpy_vectorize_outcome(entry.func, *args,
                                                    excluded=entry.shared_at)
    if raised is not None:      # (its conversion to the first example's type: NaN)
        with pytest.raises(type(raised)):
            _quiet(vf, *args)
        return
    assert_like_numpy_vectorize(_quiet(vf, *args), reference, what)


def _check(got, expected, what):
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected), what
        for k, (g, e) in enumerate(zip(got, expected)):
            _check(g, e, f"{what}output {k}: ")
        return
    got = np.asarray(got)
    assert got.shape == expected.shape, f"{what}shape {got.shape} != {expected.shape}"
    kinds = {got.dtype.kind, expected.dtype.kind}
    assert len(kinds) == 1 or kinds <= {"i", "u"} or kinds <= {"i", "f"}, \
        f"{what}dtype {got.dtype} != {expected.dtype}"   # (int / float: test_loops' note)
    if kinds & {"f", "c"}:
        coarsest = max(float(np.finfo(d).eps) for d in (got.dtype, expected.dtype)
                       if d.kind in "fc")
        np.testing.assert_allclose(got, expected, rtol=max(1e-12, 8 * coarsest), atol=1e-13,
                                   equal_nan=True, err_msg=what)
        zero = (expected == 0) & (got == 0)
        assert np.array_equal(np.signbit(got[zero]), np.signbit(expected[zero])), \
            f"{what}sign of zero differs"
    else:
        np.testing.assert_array_equal(got, expected, err_msg=what)


def _expected(stacked, positions):
    if isinstance(stacked, tuple):
        return tuple(s[positions] for s in stacked)
    return stacked[positions]


def _cached(vf):
    """The specialization ``vf`` made last, as it keeps it (`frontend.Entry`)."""
    return next(reversed(vf._specs._entries.values()))


# ---------------------------------------------------------------------------------- clock
class _Clock:
    """`chunks`' clock, moved only by the timed functions: the compacted form takes half the
    select form's time, so every way of running it is timed and the decided state keeps it."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self):
        return self.now


def _timed(function, seconds, clock, ran, label):
    def run(*args):
        clock.now += seconds
        ran.append(label)
        return function(*args)
    return run


# ---------------------------------------------------------------------------------- tests
def run_in_compacted_form(entry, monkeypatch):
    """``entry`` in its compacted form at N = 0, 1, 5 and `CALLS` times at N = `LARGE` through
    ``chunk_size="auto"``, every call compared with the loop; False where it has none."""
    monkeypatch.setattr(chunks, "TRIALS", 1)
    monkeypatch.setattr(chunks, "EXPLORE_SHARE", 0.0)
    clock = _Clock()
    monkeypatch.setattr(chunks, "time", clock)
    good, stacked = _reference(entry)
    assert good.size, "no example to compare with"
    vf = entry.make()
    rng = np.random.default_rng(7)
    positions = np.arange(5) % good.size
    _check_call(entry, vf, good, positions, stacked, "select form, N = 5: ")
    cached = _cached(vf)
    spec, tuning = cached.spec, cached.tuning
    alternative = chunks.compacted(tuning)
    if not alternative:
        assert not spec.switchable_ifs or spec.fallbacks
        return False            # nothing compactable: the select form is all there is
    # the compacted form at small N, in the select form's place
    select = spec.function
    spec.function = alternative.function
    try:
        for n in (0, 1, 5):
            positions = rng.integers(0, good.size, n)
            _check_call(entry, vf, good, positions, stacked, f"compacted form, N = {n}: ")
    finally:
        spec.function = select
    # large batches: timed (every way of each form, one call each), then decided
    ran: list = []
    spec.function = _timed(select, 2.0, clock, ran, "select")
    alternative.function = _timed(alternative.function, 1.0, clock, ran, "compacted")
    for call in range(CALLS):
        positions = rng.integers(0, good.size, LARGE)
        args = entry.args(good[positions])
        source = vf.source(*args)
        shown = COMPACTED_NOTE.split("\n")[0] in source
        del ran[:]
        _check_call(entry, vf, good, positions, stacked, f"N = {LARGE}, call {call + 1}: ")
        # what `.source` showed runs (on its first timed call, the compacted form's result
        # is compared with the select form's too)
        assert ran and ran[0] == ("compacted" if shown else "select"), (call, ran)
    # it never raised (which would have dropped it) and is kept
    assert tuning.compacted is alternative and alternative in tuning.variants.values()
    return True


@pytest.mark.parametrize("entry", [pytest.param(e, id=e.name) for e in ENTRIES])
def test_corpus_in_compacted_form(entry, monkeypatch):
    compacted = run_in_compacted_form(entry, monkeypatch)
    if entry.name.startswith("if:") and not compacted:
        # every `if` of the if corpus is compactable: compacted in one form or the other
        source = entry.make().source(*entry.args(np.arange(3)))
        assert "np.flatnonzero(cond" in source, source


# ------------------------------------------------------------- regressions (issue 13, 1)
def counts_below(v):
    """A counter the loop's `if` adds to, dead after the loop (the compacted form gathered it
    while it was still the int 0: `'int' object is not subscriptable`)."""
    tot = 0.0
    cnt = 0
    for i in range(len(v)):
        if v[i] < 0.5:
            tot += v[i]
            cnt += 1
    return tot


def sum_after_first_above(v, x):
    """The `if`'s test is a carry that starts as False (`np.flatnonzero(False)`, then
    `found.astype(...)` on a bool)."""
    found = False
    for i in range(len(v)):
        if found:
            x = x + v[i]
        if v[i] > x:
            found = True
    return x


def halve_until_small(x):
    done = False
    y = x
    for _ in range(5):
        if not done:
            y = y * 0.5 + np.sin(y)
            if y < 0.1:
                done = True
    return y


def counted_once(v, x):
    """The loop may run no pass, so `cnt` is made an array before it, though its body (left
    on every pass) sees it as shared: the compacted `if` took it whole on its own lanes."""
    cnt = 0
    for j in range(len(v)):
        if v[j] > x:
            cnt = cnt + 1
        break
    return cnt + x


def shared_flag(v, x):
    """Both branches' early returns set the engine's `returned` flag: per example after the
    masked loop, the same for every example after the loop that always returns. The
    compacted form took both `if returned:` for the per-example one."""
    t = 0.0
    if x > 0.5:
        t = t + 1.0
    else:
        t = t - 0.5
        for _ in range(3):
            return t
    for _ in range(len(v)):
        if x > 0.5:
            return t
    return t + 1.0


def flag_set_in_loops(v, x, m):
    """`found` is set in loops that may run no pass (the first under the `np.errstate` block
    the engine hoists around it): what the else branch reads of it from before the `if` was
    taken as assigned in that block, and not passed in (`UnboundLocalError`)."""
    t = 0.0
    found = False
    if x > 0.5:
        t = t + x
    else:
        for _ in range(m):
            t = t - 0.5
            found = True
        for j in range(m):
            if v[j] > x:
                found = True  # noqa: F841 -- (dead after the `if`: the program that failed)
    return t


def returns_in_a_series(x, y):
    """Returns in both branches of a series of per-example `if`s: what follows the first
    runs under `if not returned:` (copying it into both branches of each doubled the code)."""
    a, b, c, d = x, y, x + y, x - y
    if a > 0.1:
        if b > 0.5:
            return a + b
        a = a + b
    else:
        if c > 0.9:
            return c - d
        b = b - a
    if b > 0.2:
        if c > 0.5:
            return b + c
        b = b + c
    else:
        if d > 0.8:
            return d - a
        c = c - b
    if c > 0.3:
        if d > 0.5:
            return c * d
        c = c * 0.5
    else:
        if a > 0.7:
            return a - b
        d = d + 1.0
    return a + b + c + d


def bound_where_it_goes_on(x, y):
    """A long continuation (copied into both branches it would be) that reads a name the
    `if` binds only on the paths that go on: it stays in the branches (under a flag after the
    `if`, `lo` would be merged where it may have no value, and the function refused)."""
    if x < 0:
        lo = x
    elif x > 10.0:
        return -1.0
    else:
        lo = x - y
    a = lo + 1.0
    b = a * y
    c = b - lo
    d = c * 0.5
    e = d + a
    f = e * e
    g = f - b
    h = g + c
    k = h * 0.25
    m = k - d
    n = m + e
    p = n * 0.5
    return p + lo


def hi_lo(x):
    """String results: the compacted form's scatter cannot allocate them (`np.result_type`
    on 'hi': "data type 'hi' not understood")."""
    if x > 0.5:
        return "hi"
    return "lo"


_RNG = np.random.default_rng(13)
REGRESSIONS = [   # (program, whether it has a compacted form)
    (Entry("counts_below", counts_below, [_RNG.random((LANES, 4))], "vmap", in_axes=(0,)),
     True),
    (Entry("sum_after_first_above", sum_after_first_above,
           [_RNG.random((LANES, 4)), _RNG.random(LANES)], "vmap", in_axes=(0, 0)), True),
    (Entry("halve_until_small", halve_until_small, [_RNG.uniform(-1, 3, LANES)]), True),
    # the loop's `if` can only be selected: its compacted form cannot be proved valid
    (Entry("counted_once", counted_once, [_RNG.random((LANES, 4)), _RNG.random(LANES)],
           "vmap", in_axes=(0, 0)), False),
    (Entry("shared_flag", shared_flag, [_RNG.random((LANES, 4)), _RNG.random(LANES)], "vmap",
           in_axes=(0, 0)), True),
    (Entry("returns_in_a_series", returns_in_a_series,
           [_RNG.uniform(-1, 1.5, LANES), _RNG.uniform(-1, 1.5, LANES)]), True),
    (Entry("bound_where_it_goes_on", bound_where_it_goes_on,
           [_RNG.uniform(-5, 15, LANES), _RNG.uniform(-1, 1, LANES)]), True),
    (Entry("flag_set_in_loops", flag_set_in_loops,
           [_RNG.random((LANES, 4)), _RNG.random(LANES), _RNG.integers(0, 5, LANES)], "vmap",
           in_axes=(0, 0, 0)), True),
]


@pytest.mark.parametrize(("entry", "offered"),
                         [pytest.param(e, o, id=e.name) for e, o in REGRESSIONS])
def test_carries_and_flags_in_compacted_ifs(entry, offered, monkeypatch):
    assert run_in_compacted_form(entry, monkeypatch) == offered


def test_a_long_continuation_is_guarded_not_copied():
    source = vectorize(returns_in_a_series, chunk_size=None).source(np.zeros(3), np.zeros(3))
    assert "returned = False" in source and "not returned" in source, source


def test_string_results_keep_the_select_form(monkeypatch):
    monkeypatch.setattr(chunks, "TRIALS", 1)
    monkeypatch.setattr(chunks, "EXPLORE_SHARE", 0.0)
    vf = vectorize(hi_lo)
    rng = np.random.default_rng(3)
    for _ in range(CALLS):
        x = rng.random(70_000)
        got = vf(x)
        assert got.dtype.kind == "U" and np.array_equal(got, np.where(x > 0.5, "hi", "lo"))
    assert _cached(vf).spec.switchable_ifs == 0
