"""Both strategies of a batched ``if`` (issue 4), tested differentially against the scalar code.

Every function of `if_corpus` exists twice, ``name_select`` and ``name_compact``, differing only
in the strategy comment on the ``if`` line. Each form runs vectorized (``fallback="error"``)
and per example, and must agree lane by lane (`differential.assert_lanes_equal`); the two
forms must give *identical* results (same dtype, same bits, same signs of zero). Inputs come
from hypothesis, with NaN, +-inf, +-0, negatives and empty batches, after fixed edge inputs;
the machinery is `test_loops`'s (when the per-example code is silent, the vectorized call
runs with warnings as errors: the lanes a branch does not take must not warn).
"""

from __future__ import annotations

import dataclasses
import math
import warnings

import if_corpus as I
import numpy as np
import pytest
from differential import (
    assert_lanes_equal,
    assert_like_numpy_vectorize,
    numpy_vectorize_outcome,
)
from hypothesis import given
from test_loops import (
    FLOAT_EDGES,
    SETTINGS,
    Case,
    case_inputs,
    check_case,
    edge_inputs,
    floats,
    ints,
    variant_params,
    vectorized,
)

from vectorize import vectorize, vmap

NAN, INF = math.nan, math.inf


@dataclasses.dataclass
class IfCase(Case):
    of: str = ""          # the corpus function, when ``name`` tells two cases of it apart

    def func(self, variant):
        name = self.of or self.name
        return getattr(I, f"{name}_{variant}" if variant else name)


CASES = [
    IfCase("elif_chain", (floats(-5, 5, *FLOAT_EDGES, -1.0, 1.0),),
           ([-3.0, -1.0, -0.5, 0.0, -0.0, 0.5, 1.0, 7.0, NAN, INF, -INF],)),
    IfCase("nested", (floats(-5, 5, *FLOAT_EDGES), floats(-5, 5, *FLOAT_EDGES)),
           ([1.0, 1.0, -1.0, 0.0, -0.0, NAN, INF, 2.0],
            [1.0, -1.0, 3.0, -0.0, 0.0, 1.0, 1.0, INF])),
    IfCase("halvings", (floats(-10, 1e6, NAN, -INF, 1e300, 1.0),),
           ([-3.0, 0.0, -0.0, 0.5, 1.0, 2.0, 9.0, 1e300, NAN, -INF],)),
    IfCase("helper_branch", (floats(-10, 10, *FLOAT_EDGES), floats(-3, 3, NAN, 0.0)),
           ([-3.0, 0.0, 0.5, 2.0, NAN, INF, -INF], [0.5, 0.0, 0.5, -1.0, 1.0, 0.0, 2.0])),
    # `a` the same for every example: used as it is in each branch, never gathered
    IfCase("helper_branch_shared_a", (floats(-10, 10, *FLOAT_EDGES),),
           ([-3.0, 0.0, 0.5, 2.0, NAN, INF, -INF],),
           unbatched=(floats(-3, 3),), unbatched_edge=(0.5,), of="helper_branch"),
    IfCase("vector_branch", (floats(-3, 3, NAN, INF, -INF, 0.0),),
           ([[1.0, -3.0, 3.0], [-1.0, -1.0, 0.5], [NAN, 1.0, 2.0], [0.0, -0.0, 0.0]],),
           mode="vmap"),
    IfCase("vector_kept", (floats(-3, 3, NAN, INF, 0.0),),
           ([[1.0, -3.0, 3.0], [2.0, 1.0, 0.5], [NAN, 1.0, 2.0], [0.0, -0.0, -1.0]],),
           mode="vmap"),
    # where every lane takes the integer branch, the loop's results are ints (np.array makes
    # them int64) while the vectorized type is the join, float64: values are compared then
    IfCase("int_or_float", (ints(-1000, 1000, 0, 3, -3),), ([-6, -1, 0, 1, 3, 7, 999],),
           int_when_no_lane_enters=True),
    IfCase("weak_int", (ints(-100, 100, 10, 11),), ([-5, 0, 10, 11, 50],), dtypes=(np.int32,)),
    IfCase("counter", (floats(-5, 5, *FLOAT_EDGES, 2.0, -2.0),),
           ([-3.0, -2.0, 0.0, 2.0, 2.5, NAN, INF, -INF],)),
    IfCase("some_lanes", (floats(-5, 5, *FLOAT_EDGES), floats(-5, 5, *FLOAT_EDGES)),
           ([1.0, -1.0, 0.0, -0.0, NAN, INF, 3.0], [0.5, 2.0, -0.0, 0.0, 1.0, 1.0, INF])),
    IfCase("safe_log", (floats(-5, 1e300, *FLOAT_EDGES),),
           ([-3.0, -0.0, 0.0, 1e-300, 0.5, 1.0, 1e300, NAN, INF, -INF],)),
    IfCase("early_return", (floats(-5, 50, *FLOAT_EDGES),),
           ([-3.0, -0.0, 0.0, 0.25, 1.0, 4.0, 49.0, NAN, INF, -INF],),
           unbatched=(floats(0, 5),), unbatched_edge=(1.0,)),
    IfCase("truthy", (ints(-5, 5, 0), floats(-5, 5, *FLOAT_EDGES)),
           ([0, 1, -2, 0, 3, 5], [1.0, 2.0, NAN, -0.0, INF, -INF])),
    IfCase("collatz_if", (ints(-5, 3000, 0, 1, 2, 27),), ([-5, 0, 1, 2, 3, 27, 97, 2999],)),
    IfCase("bounce", (floats(-3, 8, NAN, INF, -INF, 0.0), ints(-2, 6)),
           ([-1.0, 0.0, 0.5, 3.0, 7.5, NAN, INF], [3, 0, 2, 5, -1, 4, 2])),
]
CASE_BY_NAME = {c.name: c for c in CASES}
TWO_ARGUMENTS = ["nested", "some_lanes", "helper_branch", "truthy", "bounce"]


@pytest.mark.parametrize(("case", "variant"), variant_params(CASES))
def test_edge_inputs(case, variant):
    check_case(case, variant, *edge_inputs(case))


@pytest.mark.parametrize(("case", "variant"), variant_params(CASES))
def test_hypothesis(case, variant):
    @SETTINGS
    @given(case_inputs(case))
    def run(inputs):
        check_case(case, variant, *inputs)
    run()


def assert_identical(a, b):
    a = a if isinstance(a, tuple) else (a,)
    b = b if isinstance(b, tuple) else (b,)
    assert len(a) == len(b)
    for x, y in zip(a, b):
        x, y = np.asarray(x), np.asarray(y)
        assert x.dtype == y.dtype and x.shape == y.shape, (x.dtype, y.dtype, x.shape, y.shape)
        assert np.array_equal(x, y, equal_nan=x.dtype.kind in "fc"), (x, y)
        if x.dtype.kind == "f":
            assert np.array_equal(np.signbit(x), np.signbit(y))


def _quiet(f, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return f(*args)


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in CASES])
def test_select_and_compact_agree_exactly(case):
    def compare(batched, unbatched):
        assert_identical(_quiet(vectorized(case, "select"), *batched, *unbatched),
                         _quiet(vectorized(case, "compact"), *batched, *unbatched))

    compare(*edge_inputs(case))

    @SETTINGS
    @given(case_inputs(case))
    def run(inputs):
        compare(*inputs)
    run()


# ------------------------------------------------------------- the strategy is honoured
@pytest.mark.parametrize(("case", "variant"), variant_params(
    [c for c in CASES if not c.unbatched]))
def test_strategy_comment_is_honoured(case, variant):
    batched, unbatched = edge_inputs(case)
    source = vectorized(case, variant).source(*batched, *unbatched)
    compacted = "np.flatnonzero(cond" in source
    assert compacted == (variant == "compact"), source
    if variant == "compact":
        head = source.split("while ")[0]
        assert "np.where(cond" not in head and "merge.blend(cond" not in head, source


def test_compacted_branches_need_no_errstate():
    """Only the lanes that take a branch run it: nothing to silence."""
    x = np.array([-1.0, 0.0, 2.0])
    assert "errstate" in vectorize(I.safe_log_select, fallback="error").source(x)
    assert "errstate" not in vectorize(I.safe_log_compact, fallback="error").source(x)


def test_default_heuristic():
    """Without a comment: a branch with a loop, or enough work for the data it moves, is
    compacted; cheap branches are selected."""
    x = np.linspace(-2, 2, 9)
    for f, compacted in [(I.default_loop_branch, True), (I.default_heavy_branch, True),
                         (I.default_cheap_branch, False)]:
        source = vectorize(f, fallback="error").source(x)
        assert ("np.flatnonzero(cond" in source) == compacted, source
        got = vectorize(f, fallback="error")(x)
        assert_lanes_equal(got, [f(v) for v in x], x.shape, [])


def test_select_comment_overrides_the_heuristic():
    x = np.linspace(-2, 2, 9)
    assert "np.flatnonzero" not in vectorize(I.halvings_select, fallback="error").source(x) \
        .split("while")[0]


# ------------------------------------------------------- all lanes, no lane, empty batch
def _lane_sets():
    out = []
    for case in CASES:
        if case.mode == "vmap":
            rows = np.array(case.edge[0])
            picks = {"first": rows[:1], "all-of-one": np.repeat(rows[:1], 4, axis=0)}
        else:
            cols = [np.array(col, dtype=dt) if dt else np.array(col)
                    for col, dt in zip(case.edge, case.dtypes or (None,) * len(case.edge))]
            picks = {f"lane-{k}": [np.repeat(c[k:k + 1], 5) for c in cols]
                     for k in range(len(cols[0]))}
        for label, batched in picks.items():
            batched = [batched] if case.mode == "vmap" else batched
            out.append(pytest.param(case, batched, id=f"{case.name}-{label}"))
            out.append(pytest.param(case, [b[:0] for b in batched],
                                    id=f"{case.name}-{label}-empty"))
    return out


@pytest.mark.parametrize(("case", "batched"), _lane_sets())
def test_every_lane_takes_the_same_branch(case, batched):
    """A batch whose lanes all take one branch (so the other branches get no lanes at all),
    and the empty batch: both forms agree with the loop and with each other."""
    unbatched = tuple(case.unbatched_edge)
    for variant in ("select", "compact"):
        check_case(case, variant, batched, unbatched)
    assert_identical(_quiet(vectorized(case, "select"), *batched, *unbatched),
                     _quiet(vectorized(case, "compact"), *batched, *unbatched))


# ------------------------------------------------------ batched and unbatched arguments
def _patterns():
    out = []
    for name in TWO_ARGUMENTS:
        case = next(c for c in CASES if c.name == name and not c.unbatched)
        for pattern in ("bb", "bu", "ub"):
            out.append(pytest.param(case, pattern, id=f"{name}-{pattern}"))
    return out


@pytest.mark.parametrize(("case", "pattern"), _patterns())
def test_argument_patterns(case, pattern):
    """Each argument per example or shared: the shared one is used as it is inside a
    compacted branch, the per-example one gathered."""
    cols, _ = edge_inputs(case)
    args = [c if p == "b" else c[k].item() for k, (c, p) in enumerate(zip(cols, pattern))]
    n = len(cols[0])
    results = {}
    for variant in ("select", "compact"):
        f = case.func(variant)
        got = _quiet(vectorize(f, fallback="error"), *args)
        lanes = [_quiet(f, *[a[i] if isinstance(a, np.ndarray) else a for a in args])
                 for i in range(n)]
        assert_lanes_equal(np.broadcast_to(got, (n,)), lanes, (n,), [])
        results[variant] = got
    assert_identical(results["select"], results["compact"])


# ---------------------------------------------------------------------------- dtypes
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint16, np.float32, np.float64])
@pytest.mark.parametrize("name", ["int_or_float", "weak_int", "collatz_if", "counter",
                                  "elif_chain", "safe_log"])
def test_dtypes_match_the_select_form(name, dtype):
    """The joined dtype of a compacted `if` is the one `np.where` gives the select form."""
    case = CASE_BY_NAME[name]
    (col,), _ = edge_inputs(case)
    if np.dtype(dtype).kind in "iu":
        col = col[np.isfinite(col)] if col.dtype.kind == "f" else col
        col = np.abs(col) if np.dtype(dtype).kind == "u" else col
        col = col[np.abs(col) < 1e4]
    with np.errstate(all="ignore"):
        args = (col.astype(dtype),)
    select = _quiet(vectorize(case.func("select"), fallback="error"), *args)
    compact = _quiet(vectorize(case.func("compact"), fallback="error"), *args)
    assert_identical(select, compact)
    # (the type numpy.vectorize learns from the first example: -6 % 3 == 0, an int)
    reference, _ = numpy_vectorize_outcome(case.func("compact"), *args)
    assert_like_numpy_vectorize(compact, reference)


# ---------------------------------------------------------- where compaction is refused
def test_a_name_without_a_value_on_some_lanes_raises_as_by_select():
    """Where a lane reads `y` unbound, both forms raise Python's UnboundLocalError; where
    every lane bound it, both give the loop's values."""
    for f in (I.only_then_defined_select, I.only_then_defined_compact):
        with pytest.raises(UnboundLocalError):
            vectorize(f, fallback="error")(np.array([1.0, -1.0]))
        x = np.array([1.0, 4.0, 0.25])
        np.testing.assert_array_equal(vectorize(f, fallback="error")(x), np.vectorize(f)(x))


def test_random_draws_keep_the_select_form():
    """Drawing only on some lanes would consume the generator differently."""
    source = vectorize(I.random_branch_compact, fallback="error").source(np.zeros(3))
    assert "np.flatnonzero" not in source


# ------------------------------------------------------------------ generated code
def test_compacted_source_reads_like_numpy_written_by_hand():
    x = np.linspace(-1, 1, 5)
    source = vectorize(I.some_lanes_compact, fallback="error").source(x, x)
    for line in ["cond = x > y", "lanes = np.flatnonzero(cond)", "x_lanes = x[lanes]",
                 "t = np.hypot(x_lanes, y_lanes)", "z = z.astype(np.float64)",
                 "z[lanes] = z_lanes"]:
        assert line in source, source
    source = vmap(I.vector_branch_compact).source(np.ones((2, 3)))
    assert "w = np.empty((len(cond), *w_lanes.shape[1:]), dtype=np.float64)" in source
