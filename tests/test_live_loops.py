"""Loops that pay for the slow lanes only (issue 20): a compacted loop shrinks its gathered
lanes once the passes run for finished lanes have cost what compacting costs (`idle` against
a threshold written in the code, `passes.compact._compaction_cost`).

Each function is checked in every form against ``numpy.vectorize`` (Python scalars per
example: values, NaN, dtype, and the exception type where an example raises):

- *default*: what ``vectorize`` writes (compacted, the cost model's threshold);
- *select*: the same function with ``# vectorize: select`` on its loop (every lane runs
  until the last finishes);
- *eager*: the default form's source with the threshold replaced by ``idle >= 0`` (compact
  after every pass), run as written: the form the cost model takes on large batches, where
  compaction happens mid-loop, on every batch size;
- *torch*, *torch eager*: the default and eager forms on torch tensors (float64).

Batches: N = 0, 1, 5 and 1e4 (which compacts mid-loop in the default form too), with every
lane finishing at once, one straggler, no lane active, NaN that never converges (a
``while`` with a maximum count), ``break``, early ``return`` and nested loops. One test counts
the lanes each pass runs: their sum stays within twice the live iterations (the iterations
each example needs) on a heavy-tailed Newton iteration.
"""

from __future__ import annotations

import importlib.util
import math
import re
import sys
import warnings

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import vectorize as vz

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent.parent))

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# The functions, written once with `{S}` where a loop's strategy comment goes: imported twice
# from files, the default form (no comment) and the select form; the workloads shared with
# the benchmark come from `benchmarks/live_workloads.py` (`{T}`: their select twins there).
SOURCE = '''
import math

from benchmarks.live_workloads import newton_step
from benchmarks.live_workloads import newton_tail{T} as newton_tail
from benchmarks.live_workloads import sqrt_newton{T} as sqrt_newton


def mandelbrot(cr, ci):
    zr = 0.0
    zi = 0.0
    n = 0
    while zr * zr + zi * zi <= 4.0 and n < 60:{S}
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        n += 1
    return n


def first_root(c):
    x = 0.0
    k = 0
    while k < 80:{S}
        f = math.cos(x) - c * x
        if abs(f) < 1e-9:
            return x
        x = x + 0.5 * f / (math.sin(x) + c)
        k += 1
    return -1.0


def capped(a):
    """NaN never converges: the count stops it."""
    x = a
    k = 0
    while abs(x - 1.0) > 1e-9 and k < 40:{S}
        x = math.sqrt(x)
        k += 1
    return x + k


def halvings_break(n):
    steps = 0
    for _ in range(64):{S}
        if n <= 1:
            break
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def nested(m, x):
    total = 0.0
    for i in range(m):{S}
        y = x + i
        while y > 1.0:
            y = y / 3.0
            total += y
    return total


def lagged(a):
    """A carry that takes another's old value: the carries share arrays between passes."""
    x = a
    y = -1.0
    k = 0
    while x > 1.0:{S}
        y = x
        x = x / 2.0
        k += 1
    return y * 1000.0 + k


def swapped(a, b):
    k = 0
    while k < 20 and a < 1e6:{S}
        a, b = b, a + b
        k += 1
    return a + 1e-3 * b + k


def halves(n):
    """An int carry that the loop makes a float."""
    x = n
    while x > 3:{S}
        x = x / 2
    return x


def steps_else(n):
    """`n` is read after the loop (by its `else`) on some lanes: it is scattered back; in
    halvings_break it is not (dead after the loop: never copied, never written)."""
    steps = 0
    for _ in range(40):{S}
        if n <= 1:
            break
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    else:
        steps = -n
    return steps


def divides(a, d):
    """A zero divisor raises only on the lanes that divide by it."""
    k = 0
    while k < 3 and a > 1.0:{S}
        a = a / d
        k += 1
    return a


def dead_domain(x):
    \"\"\"`x` is dead after the loop: its merge is dropped, and on a finished lane it goes on
    falling below -3, where `math.sqrt` would raise if its check saw finished lanes.\"\"\"
    k = 0
    s = 0.0
    while x > 0.0:{S}
        s = s + math.sqrt(x + 3.0)
        x = x - 1.0
        k += 1
    return s + k


def dead_divisor(d):
    \"\"\"An int dead carry that reaches 0 and below on finished lanes: `100 // d` raises
    there if its check sees them.\"\"\"
    q = 0
    while d > 1:{S}
        q = q + 100 // d
        d = d - 1
    return q


def dead_overflow(x):
    \"\"\"A float dead carry that overflows to inf, then nan, on finished lanes (no warning
    may leave the loop).\"\"\"
    k = 0
    while x < 1e30 and k < 40:{S}
        x = x * x + 2.0
        k += 1
    return k


def dead_power(x):
    \"\"\"A dead carry squared (`** 2`, a literal exponent: no lane can raise).\"\"\"
    k = 0
    while abs(x) < 100.0 and k < 30:{S}
        x = x ** 2 + 0.5
        k += 1
    return k


def dead_helper(x):
    \"\"\"A dead carry through a helper: the helper is not known to be elementwise, so its
    merge stays.\"\"\"
    k = 0
    while x > 1.0:{S}
        x = newton_step(x, 2.0) - 0.5
        k += 1
    return k


def tail_branches(a, b):
    """Float and truth values only: the last lanes finish in Python floats
    (`compact._scalar_tail`): an `if` in the loop, a count kept as a float (lanes that reach
    its maximum), a per-example divisor that may be zero on a lane that divides."""
    x = a
    s = 0.0
    while x > 1.0 and s < 60.0:{S}
        if x > b:
            x = x / b
        else:
            x = x - 0.25
        s = s + 1.0
    return x * 1000.0 + s


def tail_return(a, c):
    """An early return from the loop (its flag and result are carries too)."""
    x = a
    while x > 1e-3:{S}
        if x * c < 2e-3:
            return -x
        x = x * 0.8 - c
    return x


def tail_break(a, c):
    x = a
    t = 0.0
    while t < 50.0:{S}
        x = x * c + 1.0
        if abs(x) > 1e3:
            break
        t = t + 1.0
    return x + t


def tail_user_raise(a):
    """A raise of the user's that is no ArithmeticError: no tail (it catches only those)."""
    x = a
    while x > 1.0:{S}
        if x > 1e300:
            raise ValueError("too large")
        x = x * 0.5
    return x


def raises_late(a):
    x = a
    k = 0
    while k < 30 and x > 1e-3:{S}
        x = x / 2.0
        k += 1
    return 1.0 / (k - 25)
'''


def _module(name: str, strategy: str, tmp_dir):
    path = tmp_dir / f"{name}.py"
    path.write_text(SOURCE.replace("{S}", strategy).replace("{T}", "_select" if strategy else ""))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def forms(tmp_path_factory):
    where = tmp_path_factory.mktemp("live_loops")
    return (_module("live_loops_default", "", where),
            _module("live_loops_select", "  # vectorize: select", where))


THRESHOLD = re.compile(r"(idle(?:_\d+)?) >= [0-9.]+ \* lanes(?:_\d+)?\.(?:size|numel\(\)) \+ \d+")


_MADE: dict = {}     # (function, what) -> the vectorized function (transforms take time)


def _vectorized(f):
    if (f, "") not in _MADE:
        _MADE[f, ""] = vz.vectorize(f)
    return _MADE[f, ""]


def _eager(vf, args):
    """The default form's source, compacting after every pass, as a function."""
    source = vf.source(*args)
    if (source, "eager") not in _MADE:
        eager, count = THRESHOLD.subn(r"\1 >= 0", source)
        assert count, source                # (the test would otherwise test nothing)
        namespace: dict = {}
        exec(compile(eager, f"<eager {vf.__name__}>", "exec"), namespace)
        _MADE[source, "eager"] = namespace[vf.__name__]
    return _MADE[source, "eager"]


def _reference(f, args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return np.vectorize(f)(*args), None
        except Exception as exc:  # noqa: BLE001 -- the reference's outcome
            return None, exc


def _outcome(call, args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return np.asarray(call(*args)), None
        except Exception as exc:  # noqa: BLE001 -- compared with the reference's
            return None, exc


def _check(forms, name, args, torch_too=False):
    """Every form of ``name`` against numpy.vectorize on ``args`` (N >= 1)."""
    default, select = (getattr(m, name) for m in forms)
    expected, error = _reference(default, args)
    vd, vs = _vectorized(default), _vectorized(select)
    calls = {"default": vd, "select": vs}
    if error is None:
        calls["eager"] = _eager(vd, args)
    if torch_too:
        torch = pytest.importorskip("torch")
        tensors = [torch.as_tensor(x) for x in args]
        calls["torch"] = lambda *a: vd(*tensors).numpy()
        if error is None:
            eager = _eager(vd, tensors)
            calls["torch eager"] = lambda *a: eager(*tensors).numpy()
    for what, call in calls.items():
        got, raised = _outcome(call, args)
        if error is not None:
            assert raised is not None and type(raised) is type(error), (what, raised, error)
            continue
        assert raised is None, (what, raised)
        assert got.dtype == expected.dtype, (what, got.dtype, expected.dtype)
        np.testing.assert_array_equal(got, expected, err_msg=what)


# --------------------------------------------------------------------------- batch sizes
@pytest.mark.parametrize("name,make", [
    ("newton_tail", lambda n, r: (r.uniform(1.0, 2.0, n),
                                  r.uniform(1.0, 2.0, n) * 2.0 ** np.minimum(r.pareto(1.5, n),
                                                                              60.0))),
    ("sqrt_newton", lambda n, r: (r.uniform(-10.0, 1e6, n) * (r.random(n) < 0.9),)),
    ("mandelbrot", lambda n, r: (r.uniform(-2.0, 0.5, n), r.uniform(-1.25, 1.25, n))),
    ("first_root", lambda n, r: (np.exp(r.uniform(-3.0, 2.0, n)),)),
    ("capped", lambda n, r: (np.where(r.random(n) < 0.05, np.nan, r.uniform(0.0, 1e9, n)),)),
    ("halvings_break", lambda n, r: (r.integers(1, 10_000, n),)),
    ("nested", lambda n, r: (r.integers(0, 4, n), r.uniform(0.0, 50.0, n))),
    ("lagged", lambda n, r: (np.exp(r.uniform(-1.0, 30.0, n)),)),
    ("swapped", lambda n, r: (r.uniform(-5.0, 50.0, n), r.uniform(0.0, 50.0, n))),
    ("halves", lambda n, r: (r.integers(-5, 10_000, n),)),
    ("divides", lambda n, r: (r.uniform(0.0, 3.0, n), r.uniform(0.0, 2.0, n))),
    ("steps_else", lambda n, r: (r.integers(-3, 100_000, n),)),
    ("dead_domain", lambda n, r: (np.where(r.random(n) < 0.01, 60.0, r.uniform(-1.0, 6.0, n)),)),
    ("dead_divisor", lambda n, r: (np.where(r.random(n) < 0.01, 90, r.integers(-3, 9, n)),)),
    ("dead_overflow", lambda n, r: (r.uniform(-3.0, 3.0, n),)),
    ("dead_helper", lambda n, r: (r.uniform(-1.0, 1e3, n),)),
    ("dead_power", lambda n, r: (r.uniform(-1.5, 1.5, n),)),
    ("tail_branches", lambda n, r: (np.exp(r.uniform(-1.0, 8.0, n)), r.uniform(0.2, 9.0, n))),
    ("tail_return", lambda n, r: (np.exp(r.uniform(-8.0, 8.0, n)), r.uniform(-0.1, 0.3, n))),
    ("tail_break", lambda n, r: (r.uniform(-5.0, 5.0, n), r.uniform(-1.5, 1.2, n))),
])
@pytest.mark.parametrize("n", [1, 5, 10_000])
def test_sizes(forms, name, make, n):
    # (torch's cos, sin and sqrt may differ from math's in the last bit: not first_root nor
    # dead_domain there, nor halves, whose int / 2 is torch's default float32; the eager form
    # compacts mid-loop at N = 5 already, and torch's small operations are slow)
    _check(forms, name, make(n, np.random.default_rng(n)),
           torch_too=n == 5 and name not in ("first_root", "halves", "dead_domain"))


def test_empty_batch(forms):
    for name in ("newton_tail", "mandelbrot", "first_root", "halvings_break", "lagged",
                 "swapped", "halves", "divides"):
        default = getattr(forms[0], name)
        args = (np.empty(0),) * (2 if name in ("newton_tail", "mandelbrot", "swapped",
                                               "divides") else 1)
        if name in ("halvings_break", "halves"):      # (int arguments)
            args = (np.empty(0, dtype=np.int64),)
        out = vz.vectorize(default)(*args)
        assert np.asarray(out).shape == (0,)
        selected = vz.vectorize(getattr(forms[1], name))(*args)
        assert np.asarray(out).dtype == np.asarray(selected).dtype, name


# ------------------------------------------------------------------ lanes finishing patterns
def test_all_lanes_finish_at_once(forms):
    """Every example needs the same iterations: no compaction before the end (idle stays 0)."""
    _check(forms, "capped", (np.full(10_000, 7.0),))
    _check(forms, "halvings_break", (np.full(10_000, 1024),))


def test_one_straggler(forms):
    x0 = np.full(10_000, 1.5)
    x0[1234] = 2.0 ** 50
    _check(forms, "newton_tail", (np.full(10_000, 2.0), x0))


def test_no_lane_active(forms):
    _check(forms, "newton_tail", (np.full(10_000, 4.0), np.full(10_000, 2.0)))
    _check(forms, "mandelbrot", (np.full(5, 3.0), np.full(5, 3.0)))
    _check(forms, "halvings_break", (np.ones(5, dtype=np.int64),))


def test_nan_never_converges(forms):
    a = np.full(10_000, np.nan)
    a[::7] = 3.0
    _check(forms, "capped", (a,))


def test_carries_that_share_arrays(forms):
    """`y = x` and `a, b = b, a + b` in the loop: while every lane runs, the carries are the
    new values themselves (no merge), so two carries may hold one array, or one the array
    of another's old value; the compaction's copies and scatters must not mix them up: every
    lane finishing at once, one straggler, and all but one lane never entering."""
    # every lane finishes after one pass, whose new `y` is the array of the old `x`
    _check(forms, "lagged", (np.full(10_000, 1.5),))
    _check(forms, "lagged", (np.full(5, 1.5),))
    a = np.full(10_000, 1e3)
    a[5] = 1e30
    _check(forms, "lagged", (a,))
    _check(forms, "lagged", (np.full(10_000, 1e3),))
    a = np.full(10_000, 0.5)
    a[17] = 7.0
    _check(forms, "lagged", (a,))
    b = np.full(10_000, 3.0)
    b[::3] = 30.0
    _check(forms, "swapped", (np.full(10_000, 1.0), b))


def test_zero_divisor_only_where_a_lane_divides(forms):
    d = np.full(10_000, 0.5)
    a = np.full(10_000, 2.0)
    d[10] = 0.0
    a[10] = 0.5             # never enters the loop: no division by its zero
    _check(forms, "divides", (a, d))
    a[10] = 1.5             # divides by zero: ZeroDivisionError
    _check(forms, "divides", (a, d))
    d[10] = -0.0
    _check(forms, "divides", (a, d))
    a[10] = 0.5
    d[:5000] = 0.0          # half the lanes hold a zero divisor, none of them divides
    a[:5000] = 1.0
    _check(forms, "divides", (a, d))


def test_dead_carries_are_not_written_back(forms):
    """A carry that nothing reads after the loop (`zr`, `zi` of mandelbrot, the parameter
    `n` of halvings_break) is gathered, never copied nor scattered: the caller's array stays
    as it was, and the values are numpy.vectorize's."""
    n = np.random.default_rng(5).integers(1, 10_000, 10_000)
    before = n.copy()
    _check(forms, "halvings_break", (n,))
    np.testing.assert_array_equal(n, before)
    source = vz.vectorize(forms[0].mandelbrot).source(np.zeros(3), np.zeros(3))
    assert "zr[lanes] = " not in source and "zr = zr_lanes.astype" not in source, source
    assert "n[lanes] = n_lanes" in source, source
    _check(forms, "steps_else", (np.array([1, 2, 3, 27, 97, 2 ** 40 + 1, -5]),))


def test_merges_of_dead_carries_are_dropped(forms):
    """A carry nothing reads after the loop is not merged at all where the body is
    elementwise (finished lanes go on computing it, masked out of every check and of what
    the loop keeps); a kept carry, or a body that calls a helper, keeps its merge."""
    source = vz.vectorize(forms[0].mandelbrot).source(np.zeros(3), np.zeros(3))
    assert "zr_lanes = zr_if\n" in source and "zi_lanes = zi_if\n" in source, source
    assert "n_lanes = n_lanes + active_lanes if idle else n_if" in source, source
    source = vz.vectorize(forms[0].dead_domain).source(np.zeros(3))
    assert "x_lanes = x_if\n" in source, source
    source = vz.vectorize(forms[0].dead_power).source(np.zeros(3))
    assert "x_lanes = x_if\n" in source, source
    source = vz.vectorize(forms[0].dead_helper).source(np.zeros(3))
    assert "x_lanes = merge.blend_pass(active_lanes, x_if, x_lanes) if idle else x_if" in \
        source
    # finished lanes run the body many passes (a long tail): nothing they compute raises,
    # warns or reaches another lane
    x = np.full(10_000, 0.5)
    x[::1000] = 400.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _check(forms, "dead_domain", (x,))
        _check(forms, "dead_overflow", (np.where(np.arange(10_000) % 997, 1.5, 1.0 + 1e-12),))
    d = np.full(10_000, 3)
    d[::999] = 500
    _check(forms, "dead_divisor", (d,))


def test_a_checked_divisor_is_computed_once(forms):
    """first_root divides by ``math.sin(x) + c``, which its zero check tests first: one
    ``np.sin`` per pass, named, and the zero divisor (c = 0 at x = 0) raises
    ZeroDivisionError as numpy.vectorize does, on a lane that divides only."""
    source = vz.vectorize(forms[0].first_root).source(np.ones(3))
    assert source.count("np.sin(") == 1, source
    assert "/ shared" in source, source
    _check(forms, "first_root", (np.array([0.5, 0.0, 1.0]),))
    _check(forms, "first_root", (np.array([-0.0]),))
    c = np.exp(np.random.default_rng(1).uniform(-3.0, 2.0, 10_000))
    c[7777] = 0.0
    _check(forms, "first_root", (c,))


def test_raises_as_numpy_vectorize(forms):
    a = np.full(10_000, 1.0)
    a[77] = 1e5             # needs 27 halvings: k - 25 is nonzero (no raise) ...
    a[78] = 2 ** 25 * 1e-3  # ... 25 halvings: 1.0 / 0 raises ZeroDivisionError
    _check(forms, "raises_late", (a,))


# --------------------------------------------------------------------------------- hypothesis
FLOATS_SMALL = st.one_of(st.floats(-50.0, 50.0), st.sampled_from([math.nan, math.inf,
                                                                    -math.inf, 0.0, -0.0]))
FLOATS = st.one_of(st.floats(-1e6, 1e6), st.sampled_from([math.nan, math.inf, -math.inf,
                                                           0.0, -0.0, 1.0, 1e-300]))


@SETTINGS
@given(st.lists(FLOATS, min_size=1, max_size=12))
def test_hypothesis_capped_and_sqrt(forms, values):
    a = np.array(values, dtype=np.float64)
    _check(forms, "capped", (a,))
    _check(forms, "sqrt_newton", (a,))


@SETTINGS
@given(st.lists(st.tuples(st.floats(-3.0, 3.0), st.floats(-3.0, 3.0)), min_size=1,
                max_size=12))
def test_hypothesis_mandelbrot(forms, points):
    cr, ci = (np.array(v, dtype=np.float64) for v in zip(*points))
    _check(forms, "mandelbrot", (cr, ci))


@SETTINGS
@given(st.lists(st.tuples(st.integers(-2, 5), st.floats(-10.0, 100.0)), min_size=1,
                max_size=10))
def test_hypothesis_nested(forms, pairs):
    m, x = (np.array(v) for v in zip(*pairs))
    _check(forms, "nested", (m.astype(np.int64), x.astype(np.float64)))


@SETTINGS
@given(st.lists(FLOATS_SMALL, min_size=1, max_size=12))
def test_hypothesis_dead_carries(forms, values):
    a = np.array(values, dtype=np.float64)
    _check(forms, "dead_domain", (np.where(a == np.inf, 50.0, a),))   # (inf never stops)
    _check(forms, "dead_overflow", (a,))
    _check(forms, "dead_power", (a,))
    _check(forms, "dead_divisor", (np.nan_to_num(a, posinf=9, neginf=-9).astype(np.int64) % 50,))


# ------------------------------------------------------------------------- pay for live lanes
def test_lane_passes_within_twice_the_live_iterations(forms):
    """A heavy-tailed Newton iteration (median 5 iterations, a few ~60): the lanes the
    compacted loop runs, summed over its passes, stay within twice the iterations the
    examples need (the select form runs every lane in every pass: ~10x here)."""
    rng = np.random.default_rng(3)
    n = 10_000
    a = rng.uniform(1.0, 2.0, n)
    x0 = a * 2.0 ** np.minimum(rng.pareto(1.5, n), 60.0)
    vf = vz.vectorize(forms[0].newton_tail)
    source = vf.source(a, x0)
    assert "keep = np.flatnonzero(active_lanes)" in source
    counted = source.replace("        while lanes.size:\n",
                             "        while lanes.size:\n            PASSES.append(lanes.size)\n")
    assert counted != source, source
    passes: list = []
    namespace: dict = {"PASSES": passes}
    exec(compile(counted, "<counted>", "exec"), namespace)
    np.testing.assert_array_equal(namespace["newton_tail"](a, x0), np.vectorize(
        forms[0].newton_tail)(a, x0))
    x, live, active, rounds = x0.copy(), 0, np.abs(x0 * x0 - a) > 1e-12 * a, 0
    while active.any():
        live += int(active.sum())
        rounds += 1
        x = np.where(active, 0.5 * (x + a / x), x)
        active &= np.abs(x * x - a) > 1e-12 * a
    select_work = n * rounds
    # (the last lanes finish in Python floats, `compact._scalar_tail`: fewer array passes)
    assert len(passes) < rounds
    assert live * 10 < select_work                    # the tail is heavy: worth compacting
    assert sum(passes) <= 2 * live, (sum(passes), live, len(passes))


def test_select_comment_keeps_every_lane(forms):
    a = np.linspace(1.0, 2.0, 8)
    source = vz.vectorize(forms[1].newton_tail).source(a, a * 10)
    assert "idle" not in source and "flatnonzero" not in source


# ------------------------------------------------------- the last lanes, in Python floats
TAILED = ("newton_tail", "tail_branches", "tail_return", "tail_break")


@pytest.mark.parametrize("name", TAILED)
def test_scalar_tail_is_written_for_float_loops(forms, name):
    """Loops of float64, int64 and truth values finish their last lanes in Python numbers
    (Mandelbrot's count too, and a loop calling a helper of those: its expression runs in
    the lane's pass); loops with a transcendental function (``math.cos``) or in the select
    form do not."""
    args = (np.linspace(1.0, 9.0, 5), np.linspace(0.5, 1.1, 5))[:2]
    assert "scalar_tail = True" in vz.vectorize(getattr(forms[0], name)).source(*args)
    assert "scalar_tail = True" not in vz.vectorize(getattr(forms[1], name)).source(*args)
    for other, n in (("mandelbrot", 2), ("divides", 2), ("dead_helper", 1)):
        assert "scalar_tail = True" in vz.vectorize(getattr(forms[0], other)).source(
            *args[:n]), other
    for other, n in (("first_root", 1), ("tail_user_raise", 1)):
        assert "scalar_tail = True" not in vz.vectorize(getattr(forms[0], other)).source(
            *args[:n]), other
    _check(forms, "tail_user_raise", (np.array([3.0, 1e301, 0.5]),))
    _check(forms, "tail_user_raise", (np.array([3.0, 1e30, 0.5, np.nan]),))


def test_scalar_tail_passes_ruff(forms):
    """Generated code passes ``ruff check`` with its default rules (no blind ``except``)."""
    import subprocess
    if importlib.util.find_spec("ruff") is None:
        pytest.skip("ruff is not installed (the test extra pins it)")
    source = vz.vectorize(forms[0].tail_branches).source(np.ones(3), np.ones(3))
    assert "scalar_tail = True" in source
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache",
                             "--stdin-filename", "tail.py", "-"], input=source,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


@SETTINGS
@given(st.lists(st.tuples(st.floats(-1e3, 1e3) | st.just(math.nan),
                          st.floats(-3.0, 10.0) | st.sampled_from([0.0, -0.0, math.nan])),
                min_size=1, max_size=40))
def test_hypothesis_scalar_tail(forms, pairs):
    """Lanes that never enter, reach the maximum count, raise (a zero divisor on a lane that
    divides), return early or break, with NaN and signed zeros, at sizes the tail takes from
    the first pass on: every form equals numpy.vectorize (values, dtype, exception type)."""
    a, b = (np.array(v, dtype=np.float64) for v in zip(*pairs))
    _check(forms, "tail_branches", (a, b))
    _check(forms, "tail_return", (a, np.clip(np.nan_to_num(b), -0.1, 0.3)))
    _check(forms, "tail_break", (a, np.clip(b, -1.5, 1.2)))


def test_scalar_tail_hands_back_where_python_raises(forms):
    """Python raises where NumPy scalars give inf (``vmap``'s semantics): a lane that divides
    by zero stops the tail, and the array passes finish every lane as before."""
    def divide(a, d):
        s = 0.0
        while a > 1.0 and s < 4.0:
            a = a / d
            s = s + 1.0
        return a

    a = np.array([3.0, 5.0, 0.5, 9.0, 2.0])
    d = np.array([2.0, 0.0, 1.0, -0.0, 4.0])
    vf = vz.vmap(divide)
    source = vf.source(a, d) if hasattr(vf, "source") else ""
    with np.errstate(all="ignore"):
        expected = np.array([divide(x, y) for x, y in zip(a, d)])
        got = vf(a, d)
    np.testing.assert_array_equal(got, expected)
    assert "scalar_tail = True" in source or not source
    with pytest.raises(ZeroDivisionError):
        vz.vectorize(divide)(a, d)
    np.testing.assert_array_equal(vz.vectorize(divide)(a[[0, 2, 4]], d[[0, 2, 4]]),
                                  np.vectorize(divide)(a[[0, 2, 4]], d[[0, 2, 4]]))


def test_scalar_tail_after_compactions(forms):
    """N = 1e4 with ~40 stragglers: the array passes compact to them, then the tail."""
    r = np.random.default_rng(7)
    a = np.exp(r.uniform(-1.0, 3.0, 10_000))
    b = r.uniform(1.5, 9.0, 10_000)
    b[r.choice(10_000, 40, replace=False)] = 0.97        # these run to the maximum count
    _check(forms, "tail_branches", (a, b))
