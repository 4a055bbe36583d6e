"""Loops in per-example functions (issue 4), tested differentially against the scalar loop.

Every function of `loop_corpus` runs once per example (the reference, as ``numpy.vectorize``
hands it the example) and vectorized with ``fallback="error"``; both must agree lane by lane
(`differential.assert_lanes_equal`: same shape, dtype kind, values, NaN and signed zeros).
Loops with two strategies are checked in both forms (the ``_select`` and ``_compact`` copies
of a function differ only in the strategy comment on the loop line), and the two forms must
give *identical* results. Inputs come from hypothesis, with NaN, +-inf, +-0, negatives and
empty batches (N = 0), after a fixed set of edge inputs that always runs first.

When the per-example code is silent for every lane (no warning, no exception), the vectorized
call runs with warnings as errors: dead lanes must not warn.

Loops that could spin forever when wrongly masked run in a child process with a deadline
(`test_terminates`), so a hang fails one test instead of the whole run.

Known engine bugs are strict xfails whose reason starts with ``bug:``; their minimal inputs
are the case's edge inputs, so the xfail does not depend on hypothesis finding them.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import re
import subprocess
import sys
import textwrap
import warnings

import hypothesis.extra.numpy as hnp
import hypothesis.strategies as st
import loop_corpus as L
import numpy as np
import pytest
from differential import (
    assert_lanes_equal,
    assert_like_numpy_vectorize,
    numpy_vectorize_outcome,
)
from hypothesis import HealthCheck, given, settings

from vectorize import VectorizeError, vectorize, vmap

NAN, INF = math.nan, math.inf
MAX_N = 9
HERE = os.path.dirname(os.path.abspath(__file__))
# VECTORIZE_LOOP_EXAMPLES=500 python -m pytest tests/test_loops.py  -- a deeper search
SETTINGS = settings(max_examples=int(os.environ.get("VECTORIZE_LOOP_EXAMPLES", "20")),
                    deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# ------------------------------------------------------------------------------- bugs found
BUG_NOT_ON_CARRY = ""   # fixed
BUG_UNBATCHED_ENTRY = ""   # fixed
BUG_WHILE_TRUE_UNBOUND = ""   # fixed
BUG_TRUTHY_MASK = ""   # fixed
BUG_TUPLE_CARRY = ""   # fixed
BUG_UNMASKED_LOOP = ""   # fixed
BUG_FOR_COMPACT_IGNORED = ""   # fixed
BUG_AUG_ASSIGN_WARNS = ""   # fixed
BUG_SELECT_DTYPE_DEPENDS_ON_DATA = ""   # fixed
BUG_AND_GUARD_WARNS = ""   # fixed


BUG_HELPER_ON_CARRY = ""   # fixed
BUG_AND_GUARDED_INDEX = ""   # fixed
BUG_COMPACT_VECTOR_CARRY = ""   # fixed


# ------------------------------------------------------------------------------ strategies
def floats(lo, hi, *edges):
    return st.one_of(st.floats(lo, hi), st.sampled_from([0.0, -0.0, *edges]))


def ints(lo, hi, *edges):
    return st.one_of(st.integers(lo, hi), st.sampled_from(edges)) if edges else \
        st.integers(lo, hi)


FLOAT_EDGES = (NAN, INF, -INF, 1e-300, -1e-300)


@dataclasses.dataclass
class Case:
    name: str
    elements: tuple                 # per batched argument: a hypothesis element strategy
    edge: tuple                     # per batched argument: a list of edge inputs (run first)
    variants: tuple = ("select", "compact")   # ("",): a single function named `name`
    mode: str = "vectorize"         # "vmap": arguments are (N, D) arrays, examples are rows
    unbatched: tuple = ()           # strategies of trailing unbatched (excluded) arguments
    unbatched_edge: tuple = ()
    bugs: dict = dataclasses.field(default_factory=dict)   # variant or "*" -> reason
    dtypes: tuple = ()              # NumPy dtype per batched argument (default: from edge)
    # a known dead-lane *warning* bug: values are still checked here, warnings are not (the
    # warning is a strict xfail in `test_dead_lanes_emit_no_warnings`)
    warning_bug: str = ""
    # the carry starts as an int and becomes a float in the loop: when no lane enters, every
    # per-example result is an int (np.array gives int64) while the vectorized type is the
    # join, float64 (the reference gap noted in test_corpus.py); compare values then
    int_when_no_lane_enters: bool = False

    def func(self, variant):
        return getattr(L, f"{self.name}_{variant}" if variant else self.name)

    def bug(self, variant):
        return self.bugs.get(variant) or self.bugs.get("*")

    @property
    def open_bugs(self) -> dict:
        """The bugs not fixed yet (a fixed one keeps its entry with an empty reason)."""
        return {k: v for k, v in self.bugs.items() if v}


CASES = [
    # unbatched trip counts: Python loops with a batched body
    Case("newton_sqrt_fixed", (floats(-10, 1e6, *FLOAT_EDGES, 1e300),),
         ([0.0, -0.0, 2.0, 1e-8, 1e300, NAN, INF, -INF, -4.0],), variants=("",)),
    Case("horner", (floats(-1e3, 1e3, *FLOAT_EDGES),), ([0.0, -0.0, 1.5, -2.0, NAN, INF, -INF],),
         variants=("",)),
    Case("horner_coeffs", (floats(-1e3, 1e3, *FLOAT_EDGES),), ([0.0, -0.0, 1.5, NAN, -INF],),
         variants=("",), unbatched=(st.lists(st.floats(-10, 10), max_size=6),),
         unbatched_edge=([2.0, -1.0, 0.5],)),
    Case("point_in_polygon", (floats(-1, 5, NAN, INF, 0.5, 1.5, 4.0),
                              floats(-1, 5, NAN, -INF, 0.5, 1.5, 3.0)),
         ([1.0, 2.0, 3.9, 0.0, NAN, 1.0, -0.0], [0.5, 1.0, 1.0, 0.0, 1.0, 3.5, 0.25]),
         variants=("",)),
    Case("point_in_polygon_flip", (floats(-1, 5, NAN, INF), floats(-1, 5, NAN, -INF)),
         ([1.0, 2.0, 3.9, NAN], [0.5, 1.0, 1.0, 1.0]), variants=("",),
         bugs={"*": BUG_NOT_ON_CARRY}),
    Case("sum_of_divisors", (ints(-50, 500),), ([0, 1, 12, -12, 7, 360],), variants=("",)),
    Case("nested_grid", (floats(-20, 20, *FLOAT_EDGES),), ([0.0, 1.0, 5.0, -3.0, NAN, INF],),
         variants=("",)),
    Case("int_to_float_carry", (floats(-1e3, 1e3, *FLOAT_EDGES),), ([0.0, -0.0, 2.5, NAN, -INF],),
         variants=("",)),
    Case("newton_until_converged", (floats(0, 1e6, NAN, INF, 1e-300),),
         ([0.0, -0.0, 2.0, 1e6, NAN, INF],), variants=("",)),
    Case("escape", (floats(-2.5, 1.5, NAN, INF), floats(-1.5, 1.5, NAN, -INF)),
         ([-2.0, 0.0, 0.25, -0.75, 1.0, NAN, INF], [0.0, 0.0, 0.0, 0.1, 1.0, 0.0, 0.0]),
         variants=("for", "for_compact")),
    Case("argmax_by_hand", (floats(-3, 3, NAN, INF, -INF, 1.0, 2.0),),
         ([[1.0, 3.0, 3.0], [NAN, 1.0, 2.0], [-INF, -INF, -1.0]],), variants=("",), mode="vmap"),
    Case("first_negative", (floats(-3, 3, NAN, INF, -INF, -1.0),),
         ([[1.0, -3.0, 3.0], [NAN, 1.0, 2.0], [-0.0, 0.0, -1.0]],), variants=("",), mode="vmap"),
    Case("first_nonnegative", (floats(-3, 3, NAN, -1.0),),
         ([[-1.0, -2.0, 3.0], [1.0, -1.0, -1.0], [-1.0, -1.0, -1.0]],), mode="vmap",
         bugs={"*": BUG_AND_GUARDED_INDEX}),
    Case("halve_vector", (floats(0, 1e3, NAN, 1.0),),
         ([[10.0, 3.0], [0.5, 7.0], [1e3, NAN]],), mode="vmap",
         bugs={"compact": BUG_COMPACT_VECTOR_CARRY}),
    Case("collatz_pair", (ints(-5, 2000, 0, 1),), ([-5, 0, 1, 2, 27, 97],), variants=("",)),
    Case("collatz_of_multiples", (ints(0, 1000),), ([0, 1, 2, 7],), variants=("",),
         bugs={"*": BUG_HELPER_ON_CARRY}),
    # masked while loops
    Case("collatz_steps", (ints(-5, 3000, 0, 1, 2, 27),), ([-5, 0, 1, 2, 3, 27, 97, 2999],)),
    Case("gcd", (ints(-10**4, 10**4, 0), ints(-10**4, 10**4, 0)),
         ([0, 12, 0, -12, 7, 832040, 5], [0, 0, 18, 18, -21, 514229, -5])),
    Case("bisect_cbrt", (floats(-1e3, 1e3, NAN, INF, -INF), floats(1e-9, 10, NAN, INF, -1.0)),
         ([8.0, -27.0, 0.0, NAN, INF, 2.0, -0.0], [1e-9, 1e-3, 0.0, 1e-6, 1.0, NAN, -1.0])),
    Case("escape_while", (floats(-2.5, 1.5, NAN, INF), floats(-1.5, 1.5, NAN, -INF)),
         ([-2.0, 0.0, 0.25, -0.75, 1.0, NAN, 3.0], [0.0, 0.0, 0.0, 0.1, 1.0, 0.0, 0.0])),
    Case("isqrt", (ints(-100, 10**9, 0, 1, 2, 3),), ([0, 1, 2, 3, 4, 15, 16, 10**9, -7],)),
    Case("smallest_factor", (ints(-10, 10**5, 0, 1, 2),), ([-4, 0, 1, 2, 9, 97, 99991, 65536],)),
    Case("skip_thirds", (ints(-5, 300),), ([-5, 0, 1, 3, 7, 300],)),
    Case("halving_exit", (ints(-5, 10**6, 0, 1),), ([-5, 0, 1, 2, 5, 7, 8, 96, 10**6],)),
    Case("digital_root", (ints(-100, 10**12, 0, 9, 10),), ([-100, 0, 9, 10, 99, 987654321],)),
    Case("power_by_squaring", (floats(-3, 3, NAN, INF, -INF, 1e100), ints(-3, 64, 0, 1)),
         ([2.0, 0.5, -1.5, NAN, INF, -0.0, 1e100, 3.0], [10, 3, 5, 2, 0, 3, 1, -2]),
         warning_bug=BUG_AUG_ASSIGN_WARNS),
    Case("log_steps", (floats(-10, 1e300, NAN, -INF, 1.0, math.e),),
         ([-1.0, 0.0, -0.0, 0.5, 1.0, math.e, 1e300, NAN, -INF],)),
    Case("halve_to_float", (floats(-1e3, 1e3, *FLOAT_EDGES), ints(-3, 20)),
         ([1.0, -2.0, NAN, INF, 0.0], [0, 3, 2, -1, 5]), int_when_no_lane_enters=True,
         bugs={"agree": BUG_SELECT_DTYPE_DEPENDS_ON_DATA}),
    Case("newton_sqrt_tol", (floats(1e-6, 1e6, NAN, INF, -1.0),),
         ([2.0, 1e-6, 1e6, 0.0, NAN, INF, -1.0],)),
    # per-example ranges
    Case("triangular", (ints(-5, 200),), ([-5, 0, 1, 2, 200],)),
    Case("harmonic", (ints(-5, 300),), ([-5, 0, 1, 2, 300],)),
    Case("falling_product", (ints(-5, 25),), ([-5, 0, 1, 2, 7, 25],)),
    Case("fib_mod", (ints(-5, 500),), ([-5, 0, 1, 2, 10, 500],)),
    Case("odd_sum_to", (ints(-20, 20), ints(-20, 40), floats(-10, 10, NAN, INF, -INF)),
         ([0, 1, -20, 5, 3, 0], [10, 40, 40, 5, 2, 9], [1.0, 3.0, NAN, 2.0, 1.0, -INF])),
    # known engine bugs
    Case("newton_sqrt_step", (floats(1e-3, 1e3, NAN),), ([2.0, 9.0, 0.25],),
         bugs={"*": BUG_UNBATCHED_ENTRY}),
    Case("first_power_above", (floats(0.5, 10, NAN, 1.0),), ([0.5, 2.0, 3.0, 1.0, NAN, 10.0],),
         bugs={"*": BUG_UNBATCHED_ENTRY}),
    Case("halve_below", (floats(-10, 1e6, NAN),), ([0.5, 2.0, 10.0, 1e5, 0.0, -3.0],),
         bugs={"*": BUG_WHILE_TRUE_UNBOUND}),
    Case("tuple_carry", (floats(-10, 1e6, NAN),), ([0.5, 2.0, 10.0, -3.0, NAN],),
         bugs={"*": BUG_TUPLE_CARRY}),
    # the compact form of this one can hang: its differential test runs in a child process
    Case("count_bits", (ints(0, 10**6),), ([0, 1, 2, 3, 7, 12, 255, 1024],),
         bugs={"compact": BUG_TRUTHY_MASK}),
    # regressions of BUG_HELPER_ON_CARRY: carries that start unbatched, read as arrays
    Case("builtins_on_carry", (ints(-50, 50),), ([0, 1, 5, -3, -50, 50],), variants=("",)),
    Case("scaled_matrix_entries", (floats(-10, 10, NAN, INF, -INF),),
         ([0.0, -0.0, 1.5, -2.0, NAN, INF],), variants=("",)),
    # regressions of BUG_WHILE_TRUE_UNBOUND: names first bound in `while True`
    Case("settle", (floats(-10, 1e3, NAN, INF, -INF, 1e-300, 0.5),),
         ([0.1, 3.0, 200.0, -1.0, NAN, 1e-300, INF, -0.0, 0.5],)),
    Case("doubled_thrice", (floats(-1e3, 1e3, *FLOAT_EDGES),), ([1.0, -0.0, NAN, INF],),
         variants=("",)),
    # regressions of BUG_AND_GUARDED_INDEX without per-example vectors (see also
    # test_indexes_guarded_by_per_example_conditions)
    Case("table_is_positive", (ints(-10, 10, -1, 0, 3, 4),), ([-3, -1, 0, 1, 2, 3, 4, 7],),
         variants=("",)),
]
CASE_BY_NAME = {c.name: c for c in CASES}
HANGS = {("count_bits", "compact")}


# ------------------------------------------------------------------------------- machinery
_VECTORIZED: dict = {}


def vectorized(case: Case, variant: str):
    """One vectorized callable per (case, variant): the transform runs once per test run."""
    key = (case.name, variant)
    if key not in _VECTORIZED:
        f = case.func(variant)
        if case.mode == "vmap":
            _VECTORIZED[key] = vmap(f, in_axes=(0,) * len(case.elements))
        else:
            n = len(case.elements)
            excluded = set(range(n, n + len(case.unbatched))) or None
            _VECTORIZED[key] = vectorize(f, fallback="error", excluded=excluded)
    return _VECTORIZED[key]


def run_lanes(f, batched: list, unbatched: tuple):
    """The per-example loop: (results, indices of lanes that raised, whether any warned)."""
    n = len(batched[0])
    results, raised, warned = [], [], False
    for k in range(n):
        call = [a[k] for a in batched] + list(unbatched)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with np.errstate(all="warn", under="ignore"):
                try:
                    results.append(f(*call))
                except (ArithmeticError, ValueError, TypeError):
                    results.append(None)
                    raised.append(k)
        warned = warned or bool(caught)
    return results, raised, warned


def check_case(case: Case, variant: str, batched: list, unbatched: tuple = ()):
    """Vectorized ``case`` (one strategy) against its per-example loop on these inputs."""
    f = case.func(variant)
    vf = vectorized(case, variant)
    reference = None
    if case.mode == "vectorize":
        n = len(batched)
        # (a result type that depends on the data, an int where no lane enters the loop:
        # numpy.vectorize's is the first example's, and it casts the others' into it)
        reference, expected = numpy_vectorize_outcome(
            f, *batched, *unbatched, excluded=tuple(range(n, n + len(unbatched))))
        if expected is not None:
            # numpy.vectorize's Python numbers raise (a zero divisor on a live lane): so must
            # vectorize, with the same exception
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with pytest.raises(type(expected), match=re.escape(str(expected))):
                    vf(*batched, *unbatched)
            return None
    lanes, raised, warned = run_lanes(f, batched, unbatched)
    with warnings.catch_warnings():
        quiet = not (warned or raised or case.warning_bug)
        warnings.simplefilter("error" if quiet else "ignore")
        with np.errstate(all="warn", under="ignore"):
            got = vf(*batched, *unbatched)
    shape = (len(batched[0]),)
    if reference is not None:
        assert_like_numpy_vectorize(got, reference)
        return got
    if (case.int_when_no_lane_enters and np.asarray(got).dtype.kind == "f"
            and all(isinstance(r, (int, np.integer)) for r in lanes)):
        lanes = [float(r) for r in lanes]
    if isinstance(got, tuple):
        for k, g in enumerate(got):
            part = [None if r is None else r[k] for r in lanes]
            assert_lanes_equal(g, part, shape, raised, what=f"output {k}: ")
    else:
        assert_lanes_equal(got, lanes, shape, raised)
    return got


def edge_inputs(case: Case):
    batched = [np.array(col, dtype=dt) if dt else np.array(col)
               for col, dt in zip(case.edge, case.dtypes or (None,) * len(case.edge))]
    return batched, tuple(case.unbatched_edge)


@st.composite
def case_inputs(draw, case: Case):
    n = draw(st.integers(0, MAX_N))
    batched = []
    for k, elements in enumerate(case.elements):
        dtype = np.asarray(case.edge[k]).dtype
        if dtype.kind == "f":
            dtype = np.dtype(np.float64)
        shape = (n,) if case.mode == "vectorize" else (n, len(case.edge[k][0]))
        if case.mode == "vmap" and k == 0:
            shape = (n, draw(st.integers(1, 5)))
        batched.append(draw(hnp.arrays(dtype, shape, elements=elements)))
    unbatched = tuple(draw(s) for s in case.unbatched)
    return batched, unbatched


def variant_params(cases):
    out = []
    for case in cases:
        for variant in case.variants:
            marks = []
            reason = case.bug(variant)
            if reason:
                marks.append(pytest.mark.xfail(strict=True, reason=reason))
            out.append(pytest.param(case, variant, marks=marks,
                                    id=f"{case.name}-{variant}" if variant else case.name))
    return out


# ------------------------------------------------------------------ the differential tests
@pytest.mark.parametrize(("case", "variant"), variant_params(CASES))
def test_edge_inputs(case, variant):
    if (case.name, variant) in HANGS:
        result = isolated_result(f"{case.name}_{variant}")
        assert result["stage"] == "done" and result["equal"], result
        return
    batched, unbatched = edge_inputs(case)
    check_case(case, variant, batched, unbatched)


@pytest.mark.parametrize(("case", "variant"), variant_params(
    [c for c in CASES if set(c.open_bugs) != {"*"}]))
def test_hypothesis(case, variant):
    if (case.name, variant) in HANGS:
        result = isolated_result(f"{case.name}_{variant}")
        assert result["stage"] == "done" and result["equal"], result
        return
    batched, unbatched = edge_inputs(case)
    check_case(case, variant, batched, unbatched)      # the minimal inputs first

    @SETTINGS
    @given(case_inputs(case))
    def run(inputs):
        check_case(case, variant, *inputs)
    run()


def _both(cases):
    out = []
    for case in cases:
        if len(case.variants) != 2:
            continue
        bugs = [r for r in (case.bug(v) for v in case.variants) if r]
        bugs += [case.bugs["agree"]] if case.bugs.get("agree") else []
        marks = [pytest.mark.xfail(strict=True, reason=bugs[0])] if bugs else []
        if any((case.name, v) in HANGS for v in case.variants):
            continue
        out.append(pytest.param(case, marks=marks, id=case.name))
    return out


@pytest.mark.parametrize("case", _both(CASES))
def test_select_and_compact_agree_exactly(case):
    """Both strategies of a loop give identical results: same dtypes, same bits."""
    a, b = case.variants

    def compare(batched, unbatched):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                got_a = vectorized(case, a)(*batched, *unbatched)
            except (ArithmeticError, ValueError) as exc:
                # (numpy.vectorize's Python numbers raise, or its conversion of them to the
                # first example's type: NaN into an int)
                with pytest.raises(type(exc)):
                    vectorized(case, b)(*batched, *unbatched)
                return
            got_b = vectorized(case, b)(*batched, *unbatched)
        got_a = got_a if isinstance(got_a, tuple) else (got_a,)
        got_b = got_b if isinstance(got_b, tuple) else (got_b,)
        assert len(got_a) == len(got_b)
        for x, y in zip(got_a, got_b):
            x, y = np.asarray(x), np.asarray(y)
            assert x.dtype == y.dtype and x.shape == y.shape, (x.dtype, y.dtype)
            assert np.array_equal(x, y, equal_nan=x.dtype.kind in "fc"), (x, y)
            if x.dtype.kind == "f":
                assert np.array_equal(np.signbit(x), np.signbit(y))

    compare(*edge_inputs(case))

    @SETTINGS
    @given(case_inputs(case))
    def run(inputs):
        compare(*inputs)
    run()


# ----------------------------------------------------------------- strategies and shapes
STRATEGY_CASES = [(c, v) for c in CASES if c.variants == ("select", "compact") and not c.bugs
                  for v in c.variants]


@pytest.mark.parametrize(("case", "variant"), [
    *[pytest.param(c, v, id=f"{c.name}-{v}") for c, v in STRATEGY_CASES],
    pytest.param(CASE_BY_NAME["escape"], "for_compact", id="escape-for_compact",
                 marks=[pytest.mark.xfail(strict=True, reason=BUG_FOR_COMPACT_IGNORED)]
                 if BUG_FOR_COMPACT_IGNORED else []),
])
def test_strategy_comment_is_honoured(case, variant):
    batched, unbatched = edge_inputs(case)
    source = vectorized(case, variant).source(*batched, *unbatched)
    compact = "np.flatnonzero(" in source
    assert compact == variant.endswith("compact"), source


def test_default_strategies():
    """Without a comment every loop whose examples stop at different times is compacted:
    `while` loops, per-example ranges, and `for` loops left by a per-example `break`."""
    n = np.arange(10)
    assert "np.flatnonzero(" in vectorize(_plain_while, fallback="error").source(n)
    assert "np.flatnonzero(" in vectorize(_plain_range, fallback="error").source(n)
    assert "np.flatnonzero(" in vectorize(_plain_break, fallback="error").source(n)


def _plain_break(x):
    for _ in range(200):
        d = 0.5 * x
        x = x - d
        if abs(d) < 1e-3:
            break
    return x


def _plain_while(n):
    steps = 0
    while n > 1:
        n = n // 2
        steps += 1
    return steps


def _plain_range(n):
    s = 0
    for i in range(n):
        s += i
    return s


def test_select_source_reads_like_a_masked_loop():
    source = vectorized(CASE_BY_NAME["collatz_steps"], "select").source(np.arange(5))
    assert "active = n > 1" in source
    assert "while active.any():" in source
    assert "n = np.where(active, " in source
    assert "steps = steps + active" in source


# -------------------------------------------------------------- integers stay integers
DTYPE_CASES = [
    ("collatz_steps_select", (np.arange(-3, 40),)),
    ("collatz_steps_compact", (np.arange(-3, 40),)),
    ("gcd_select", (np.arange(-6, 30), np.arange(30, -6, -1))),
    ("gcd_compact", (np.arange(-6, 30), np.arange(30, -6, -1))),
    ("isqrt_select", (np.arange(0, 300, 7),)),
    ("isqrt_compact", (np.arange(0, 300, 7),)),
    ("triangular_select", (np.arange(-3, 30),)),
    ("triangular_compact", (np.arange(-3, 30),)),
    ("fib_mod_select", (np.arange(-3, 60),)),
    ("fib_mod_compact", (np.arange(-3, 60),)),
    ("digital_root_select", (np.arange(0, 10**6, 9973),)),
    ("digital_root_compact", (np.arange(0, 10**6, 9973),)),
    ("sum_of_divisors", (np.arange(-3, 60),)),
    ("escape_for", (np.linspace(-2, 1, 25), np.linspace(-1, 1, 25))),
    ("escape_while_compact", (np.linspace(-2, 1, 25), np.linspace(-1, 1, 25))),
    ("halving_exit_compact", (np.arange(0, 2000, 37),)),
]


def _dtype_params():
    out = []
    for name, args in DTYPE_CASES:
        floating = any(np.asarray(a).dtype.kind == "f" for a in args)
        for dtype in ((np.float64, np.float32) if floating else (np.int64, np.int32, np.uint16)):
            out.append(pytest.param(name, args, dtype, id=f"{name}-{np.dtype(dtype).name}"))
    return out


@pytest.mark.parametrize(("name", "args", "in_dtype"), _dtype_params())
def test_integer_results_keep_the_loops_dtype(name, args, in_dtype):
    """Integer counters and carries stay integers, with the dtype the per-example loop's
    results stack to (`np.array` of them), for int64, int32 and uint16 (or float64 and
    float32) inputs."""
    f = getattr(L, name)
    if np.dtype(in_dtype).kind == "u" and any(np.asarray(a).min() < 0 for a in args):
        args = tuple(np.abs(a) for a in args)
    args = tuple(np.asarray(a).astype(in_dtype) for a in args)
    lanes, raised, _ = run_lanes(f, list(args), ())
    assert not raised
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = vectorize(f, fallback="error")(*args)
    got = got if isinstance(got, tuple) else (got,)
    lanes = [r if isinstance(r, tuple) else (r,) for r in lanes]
    for k, g in enumerate(got):
        expected = np.array([r[k] for r in lanes])
        assert expected.dtype.kind in "iu"
        assert g.dtype == expected.dtype, f"output {k}: {g.dtype} != {expected.dtype}"
        np.testing.assert_array_equal(g, expected)


def test_int_carry_becomes_float_in_the_loop():
    """`s = 0` then `s = s + x * 0.5` in the loop: float64, not an int that truncates."""
    for f in (L.halve_to_float_select, L.halve_to_float_compact):
        got = vectorize(f, fallback="error")(np.array([1.0, 3.0]), np.array([3, 0]))
        assert got.dtype == np.float64
        np.testing.assert_array_equal(got, [1.5, 0.0])
    got = vectorize(L.int_to_float_carry, fallback="error")(np.array([0.25]))
    assert got.dtype == np.float64 and got[0] == 1.5


# ------------------------------------------ indexes Python evaluates on some lanes only
GUARDED_INDEX_FUNCS = [L.sum_from_select, L.sum_from_compact, L.negative_at, L.entry_or_zero,
                       L.past_end_or_positive, L.next_entry]
GUARDED_INDEX_EDGE = (
    np.array([[1.0, -2.0, 3.0], [-1.0, -2.0, -3.0], [NAN, 0.0, -0.0], [4.0, 5.0, -6.0],
              [-1.0, INF, 2.0], [0.0, 0.0, 0.0]]),
    np.array([0, 2, 3, -3, -1, 6]))


@st.composite
def vectors_and_indices(draw):
    """(v, i): N vectors of length D >= 1 and per-example integers from -D (Python's
    smallest valid index) to D + 3 (past the end, where only a guard keeps Python out)."""
    n, d = draw(st.integers(0, MAX_N)), draw(st.integers(1, 5))
    v = draw(hnp.arrays(np.float64, (n, d), elements=floats(-3, 3, NAN, INF, -INF, -1.0)))
    i = draw(hnp.arrays(np.int64, (n,), elements=st.integers(-d, d + 3)))
    return v, i


def _check_guarded(func, v, i):
    lanes, raised, warned = run_lanes(func, [v, i], ())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore" if warned or raised else "error")
        with np.errstate(all="warn", under="ignore"):
            got = vmap(func)(v, i)
    assert_lanes_equal(got, lanes, (len(v),), raised)


@pytest.mark.parametrize("func", GUARDED_INDEX_FUNCS, ids=lambda f: f.__name__)
def test_indexes_guarded_by_per_example_conditions(func):
    """`i < len(v) and v[i]`, `v[i] if 0 <= i < len(v) else 0`, `i >= len(v) or v[i]`, an
    index in a batched `if` branch (whose test the branch changes) and in a masked loop's
    body: lanes Python keeps out of `v[i]` must not read it (IndexError), and every other
    lane reads exactly `v[i]` (`first_nonnegative` is a `Case` above)."""
    _check_guarded(func, *GUARDED_INDEX_EDGE)
    _check_guarded(func, GUARDED_INDEX_EDGE[0][:0], GUARDED_INDEX_EDGE[1][:0])

    @SETTINGS
    @given(vectors_and_indices())
    def run(inputs):
        _check_guarded(func, *inputs)
    run()


def test_unguarded_indexes_no_lane_reaches_still_raise():
    """Documented in docs/semantics.md: an index that is the same for every example is not
    guarded (a guard would turn `v[:, k]` into a gather), and no index fits an axis of
    length 0; where no lane reaches them the batched code raises, and vmap runs the
    per-example loop, which decides: never a wrong value."""
    v, x = np.ones((3, 2)), np.array([-1.0, 0.0, -2.0])
    assert [L.entry_if_positive(a, b, 5) for a, b in zip(v, x)] == [0.0] * 3
    # a Python int is taken by its value: an index no example can take is refused where
    # it is written
    with pytest.raises(VectorizeError, match="does not fit"):
        vmap(L.entry_if_positive, in_axes=(0, 0, None))(v, x, 5)
    empty, i = np.ones((3, 0)), np.array([0, 1, 2])
    assert [L.negative_at(a, b) for a, b in zip(empty, i)] == [0] * 3
    vm = vmap(L.negative_at)
    vm(np.ones((2, 3)), np.array([0, 5]))       # the specialization for vectors
    # the batched code's IndexError (no lane reaches the index) makes vmap run the loop,
    # which decides: it returns
    np.testing.assert_array_equal(vm(empty, i), [L.negative_at(a, b) for a, b in zip(empty, i)])


def test_guarded_gather_source():
    """The index of the gather is chosen by the guard; the guard of a branch is its test,
    computed once."""
    v, i = GUARDED_INDEX_EDGE
    source = vmap(L.first_nonnegative_select).source(v)
    assert ("v[np.arange(len(v)), np.where(active & (i_if < v.shape[1]), i_if, 0)]"
            in source), source
    source = vmap(L.next_entry).source(v, i)
    assert "cond = i < v.shape[1] - 1\n" in source, source


def test_plain_loops_keep_a_scalar_start_only_inside():
    """Carries of loops that only do arithmetic start as Python numbers (broadcasting takes
    them) when only the loop uses them; a carry the code after the loop reads, or one that
    reaches an operation that needs arrays, becomes an array first (what the loop leaves
    must be an array, as the analysis says: later code may gather or index it)."""
    x = np.linspace(-1, 1, 5)
    assert "np.full(" not in vectorize(L.carry_used_only_inside, fallback="error").source(x)
    assert "acc = np.full(len(x), 0.0, dtype=np.float64)" in vectorize(
        L.horner, fallback="error").source(x)
    source = vectorize(L.builtins_on_carry, fallback="error").source(np.arange(5))
    assert "m = np.full(len(n), " in source

def test_names_first_bound_in_while_true_need_every_exit_to_bind_them():
    """A name bound before only some of the breaks of a `while True` may be unbound after
    it (valid Python, but an error per example): UnboundLocalError where a lane reads it
    unbound, as numpy.vectorize raises; the value where every lane bound it."""
    f = vectorize(L.unbound_after_some_breaks, fallback="error")
    with pytest.raises(UnboundLocalError):
        np.vectorize(L.unbound_after_some_breaks)(np.array([0.5, 2.0]))
    with pytest.raises(UnboundLocalError):
        f(np.array([0.5, 2.0]))
    x = np.array([0.5, 0.0, 0.75, 0.9])
    got = f(x)
    want = np.vectorize(L.unbound_after_some_breaks)(x)
    assert got.dtype == want.dtype and np.array_equal(got, want)


def test_arrays_first_bound_in_a_masked_while_true_are_rejected():
    """The masked form needs a start value for `w` (a per-example vector) before the loop;
    its shape is not known there: rejected, never guessed."""
    from vectorize import VectorizeError
    with pytest.raises(VectorizeError, match="give `w` a value before the loop") as info:
        vmap(L.halve_vector_until_small)(np.array([[4.0, 1.0], [0.5, 3.0]]))
    assert "loop_corpus.py" in str(info.value)


# --------------------------------------------------------------------- dead lanes are quiet
DEAD_LANE_CASES = [
    pytest.param(L.gcd_select, (np.array([12, 7, 0, 5]), np.array([0, 3, 0, 10**4])),
                 id="gcd-select-mod-zero"),
    pytest.param(L.gcd_compact, (np.array([12, 7, 0, 5]), np.array([0, 3, 0, 10**4])),
                 id="gcd-compact-mod-zero"),
    pytest.param(L.isqrt_select, (np.array([0, 1, 10**6, 0]),), id="isqrt-select-div-zero"),
    pytest.param(L.isqrt_compact, (np.array([0, 1, 10**6, 0]),), id="isqrt-compact-div-zero"),
    pytest.param(L.log_steps_select, (np.array([-1.0, 0.0, 0.5, NAN, -INF, 1e300, 3.0]),),
                 id="log-select-nonpositive"),
    pytest.param(L.log_steps_compact, (np.array([-1.0, 0.0, 0.5, NAN, -INF, 1e300, 3.0]),),
                 id="log-compact-nonpositive"),
    pytest.param(L.power_by_squaring_select, (np.array([1e100, 2.0]), np.array([1, 40])),
                 id="power-select-overflow"),
    pytest.param(L.power_by_squaring_compact, (np.array([1e100, 2.0, 1.5]),
                                               np.array([1, 40, 60])),
                 id="power-compact-overflow"),
    pytest.param(L.newton_sqrt_fixed, (np.array([-INF, 4.0, 0.0, -1.0]),),
                 id="newton-early-return"),
    pytest.param(L.harmonic_select, (np.array([-3, 0, 4]),), id="harmonic-empty-ranges"),
    pytest.param(L.point_in_box, (np.array([1.0, 2.0, 5.0, 1.0]), np.array([0.5, 1.0, 1.0, 2.0])),
                 id="box-and-guard"),
]


@pytest.mark.parametrize(("func", "args"), DEAD_LANE_CASES)
def test_dead_lanes_emit_no_warnings(func, args):
    lanes, raised, warned = run_lanes(func, list(args), ())
    assert not raised and not warned, "the per-example code must be silent on these inputs"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="warn", under="ignore"):
            got = vectorize(func, fallback="error")(*args)
    got = got if isinstance(got, tuple) else (got,)
    lanes = [r if isinstance(r, tuple) else (r,) for r in lanes]
    for k, g in enumerate(got):
        assert_lanes_equal(g, [r[k] for r in lanes], (len(args[0]),), [])


# ------------------------------------------------------------ lanes that never enter
NEVER_ENTER = [pytest.param(f, n, id=f.__name__) for f, n in [
    (L.collatz_steps_select, np.array([1, 0, -4])), (L.collatz_steps_compact, np.array([1, 0])),
    (L.log_steps_select, np.array([0.5, NAN, -INF])), (L.log_steps_compact, np.array([1.0])),
    (L.triangular_select, np.array([0, -3])), (L.triangular_compact, np.array([0, -3])),
    (L.skip_thirds_compact, np.array([0])), (L.digital_root_compact, np.array([3, 9])),
    (L.halving_exit_compact, np.array([1, 0])), (L.isqrt_compact, np.array([0, 1, -5])),
]]


@pytest.mark.parametrize(("func", "n"), NEVER_ENTER)
@pytest.mark.parametrize("size", ["none-enter", "empty-batch"])
def test_no_lane_enters_the_loop(func, n, size):
    if size == "empty-batch":
        n = n[:0]
    lanes, raised, warned = run_lanes(func, [n], ())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = vectorize(func, fallback="error")(n)
    got = got if isinstance(got, tuple) else (got,)
    lanes = [r if isinstance(r, tuple) else (r,) for r in lanes]
    for k, g in enumerate(got):
        assert_lanes_equal(g, [r[k] for r in lanes], (len(n),), [])
        if len(n):
            assert g.dtype == np.array([r[k] for r in lanes]).dtype


# ---------------------------------------------------- shared values, specializations
def test_horner_coefficient_lists_of_every_length_share_one_vectorized_function():
    vf = vectorize(L.horner_coeffs, fallback="error", excluded={1})
    x = np.array([-1.0, 0.5, 2.0])
    for coeffs in ([1.0, 2.0], [], [3.0], [1, 2, 3], (1.0, -1.0, 0.5, 2.0)):
        expected = np.array([L.horner_coeffs(v, coeffs) for v in x])
        np.testing.assert_array_equal(vf(x, coeffs), expected)


def test_rebinding_the_module_coefficients_respecializes(monkeypatch):
    vf = vectorize(L.horner, fallback="error")
    x = np.array([-1.0, 0.5, 2.0])
    np.testing.assert_array_equal(vf(x), [L.horner(v) for v in x])
    monkeypatch.setattr(L, "COEFFS", [1.0, 0.0])
    np.testing.assert_array_equal(vf(x), x)


def test_argmax_over_vectors_of_several_lengths():
    vm = vmap(L.argmax_by_hand)
    rng = np.random.default_rng(4)
    for d in (1, 2, 5):
        v = rng.integers(0, 3, size=(6, d)).astype(float)
        np.testing.assert_array_equal(vm(v), [L.argmax_by_hand(r) for r in v])
    assert "for i in range(" in vm.source(v)        # a Python loop over the unbatched length


@pytest.mark.parametrize("func", [L.bisect_cbrt_select, L.bisect_cbrt_compact],
                         ids=["select", "compact"])
def test_bisection_with_a_shared_tolerance(func):
    """The tolerance passed as a plain float (unbatched): the condition is unbatched on
    entry and batched after the first step."""
    c = np.array([8.0, -27.0, 2.0])
    got = vectorize(func, fallback="error")(c, 1e-9)
    expected = [func(v, 1e-9) for v in c]
    np.testing.assert_array_equal(got[0], [e[0] for e in expected])


# ------------------------------------------------------------------------ termination
# name -> (arguments as Python source, bug reason or None). Each runs in its own child
# process; the child gives the vectorized call a deadline and reports instead of hanging.
TERMINATION = {
    "collatz_steps_select": ("np.arange(-5, 3000)", None),
    "collatz_steps_compact": ("np.arange(-5, 3000)", None),
    "gcd_compact": ("np.array([832040, 0, 12, 7] * 50), np.array([514229, 5, 0, 3] * 50)",
                    None),
    "digital_root_compact": ("np.arange(0, 10**15, 10**12 + 37)", None),
    "escape_while_compact": ("np.linspace(-2.5, 1.5, 400), np.linspace(-1.5, 1.5, 400)",
                             None),
    "count_bits_select": ("np.arange(0, 2000)", None),
    "count_bits_compact": ("np.arange(0, 2000)", BUG_TRUTHY_MASK),
    "countdown_nested_select": ("np.arange(-3, 40)", BUG_UNMASKED_LOOP),
    "countdown_nested_compact": ("np.arange(-3, 40)", BUG_UNMASKED_LOOP),
    "guarded_collatz_select": ("np.arange(-5, 50)", BUG_UNMASKED_LOOP),
    "guarded_collatz_compact": ("np.arange(-5, 50)", BUG_UNMASKED_LOOP),
    "early_return_collatz_select": ("np.arange(-5, 50)", BUG_UNMASKED_LOOP),
    "early_return_collatz_compact": ("np.arange(-5, 50)", BUG_UNMASKED_LOOP),
}
CALL_DEADLINE_S = 3.0

CHILD = textwrap.dedent("""
    import json, os, sys, threading, warnings
    import numpy as np
    sys.path.insert(0, {here!r})
    import loop_corpus as L
    from vectorize import vectorize

    def report(**kw):
        print(json.dumps(kw), flush=True)

    def run(name, args):
        f = getattr(L, name)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            expected = [f(*lane) for lane in zip(*args)]   # the scalar loop ends for each lane
        vf = vectorize(f, fallback="error")
        try:
            vf.source(*args)
        except Exception as e:
            return report(name=name, stage="transform", error=repr(e))
        out = {{}}

        def call():
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    out["got"] = vf(*args)
            except Exception as e:
                out["error"] = f"{{type(e).__name__}}: {{e}}"

        worker = threading.Thread(target=call, daemon=True)
        worker.start()
        worker.join({deadline})
        if worker.is_alive():
            report(name=name, stage="hang", error="no result after {deadline} s")
            os._exit(0)                      # the spinning thread dies with the process
        if "error" in out:
            return report(name=name, stage="call", error=out["error"])
        got = out["got"]
        got = np.stack(got, axis=-1) if isinstance(got, tuple) else np.asarray(got)
        report(name=name, stage="done", equal=bool(np.array_equal(got, np.array(expected))))

    for name, args in {cases}:
        run(name, eval(args, {{"np": np}}))
""")

_CHILDREN: dict = {}      # case name -> the child process that runs it


def _start_children():
    """The loops expected to end share one child; each suspected hang gets its own (a hang
    ends its child). All children start at once and wait on their deadlines in parallel."""
    if _CHILDREN:
        return
    groups = [[n for n, (_a, bug) in TERMINATION.items() if not bug]]
    groups += [[n] for n, (_a, bug) in TERMINATION.items() if bug]
    for group in groups:
        cases = [(n, f"({TERMINATION[n][0]},)") for n in group]
        code = CHILD.format(here=HERE, cases=repr(cases), deadline=CALL_DEADLINE_S)
        proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        for n in group:
            _CHILDREN[n] = proc


_OUTPUTS: dict = {}


def isolated_result(name: str) -> dict:
    """What the child reported for ``name`` (a loop from `TERMINATION`)."""
    _start_children()
    proc = _CHILDREN[name]
    if proc not in _OUTPUTS:
        try:
            _OUTPUTS[proc] = proc.communicate(timeout=240)
        except subprocess.TimeoutExpired:
            proc.kill()
            _OUTPUTS[proc] = proc.communicate()
    out, err = _OUTPUTS[proc]
    for line in out.splitlines():
        if line.startswith("{") and json.loads(line)["name"] == name:
            return json.loads(line)
    return {"stage": "no report", "error": err[-2000:]}


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=[pytest.mark.xfail(strict=True, reason=bug)] if bug else [], id=n)
    for n, (_a, bug) in TERMINATION.items()])
def test_terminates(name):
    """A loop whose scalar version ends for every lane ends vectorized, with the loop's
    results."""
    result = isolated_result(name)
    assert result["stage"] == "done", result
    assert result["equal"], result
