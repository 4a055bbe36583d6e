"""The scalar tail of a compacted ``while`` loop (`passes.compact._Compact._scalar_tail`)
computes the bits the array passes compute: the generated code of each loop that gets a
tail runs with the tail taken from the first pass on (its lane-count test made always
true) and with the tail off (its flag starts false), and both give equal values (NaN,
signed zeros), dtypes and exception types; the function as vectorized is checked against
the per-example reference too. Loops: every ``while`` of `loop_corpus` (on its edge
inputs, shuffled and repeated), Mandelbrot's escape count with NaN, inf and -0.0 points, and
int64 loops whose values wrap under ``vmap`` (NumPy scalars) or overflow under
``vectorize`` (Python ints: the engine's own checks raise), with int carries and int tests
(Mandelbrot's count, Collatz, a gcd).
"""

from __future__ import annotations

import importlib.util
import inspect
import re
import sys
import warnings

import numpy as np
import pytest
from test_loops import CASES

import vectorize as vz

TAIL_TEST = re.compile(r"0 < (running(?:_\d+)?) <= [^:]+ and (scalar_tail(?:_\d+)?):")
TAIL_FLAG = re.compile(r"(scalar_tail(?:_\d+)?) = True")


def _forms(source: str, name: str) -> dict:
    """The function ``name`` of ``source`` with its tail taken as soon as it can ("on") and
    never ("off")."""
    on, count = TAIL_TEST.subn(r"0 < \1 and \2:", source)
    off, count_off = TAIL_FLAG.subn(r"\1 = False", source)
    assert count and count_off, source
    out = {}
    for what, text in (("on", on), ("off", off)):
        namespace: dict = {}
        exec(compile(text, f"<tail {what} {name}>", "exec"), namespace)
        out[what] = namespace[name]
    return out


def _outcome(call, args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return np.asarray(call(*args)), None
        except Exception as exc:  # noqa: BLE001 -- compared across the forms
            return None, type(exc)


def _same_bits(got, expected, what):
    assert got.dtype == expected.dtype, (what, got.dtype, expected.dtype)
    assert got.shape == expected.shape, what
    if got.dtype.kind == "f":
        np.testing.assert_array_equal(np.signbit(got), np.signbit(expected), err_msg=what)
    np.testing.assert_array_equal(got, expected, err_msg=what)


def _check_tail(vf, name: str, args) -> bool:
    """The generated code of ``vf`` on ``args`` gives the same with the tail and without;
    False where it has no tail."""
    source = vf.source(*args)
    if "scalar_tail = True" not in source:
        return False
    forms = _forms(source, name)
    results = {what: _outcome(call, args) for what, call in forms.items()}
    expected, error = results["off"]
    for what, (got, raised) in results.items():
        assert raised is error, (name, what, raised, error)
        if error is None:
            _same_bits(got, expected, f"{name} {what}")
    return True


def _corpus_inputs(case):
    dtypes = case.dtypes or [np.asarray(e).dtype for e in case.edge]
    edge = [np.asarray(e, dtype=d) for e, d in zip(case.edge, dtypes)]
    order = np.random.default_rng(0).permutation(np.tile(np.arange(len(edge[0])), 3))
    return [[e[order] for e in edge]]


def test_loop_corpus_with_and_without_the_tail():
    tailed = []
    for case in CASES:
        if case.unbatched or case.mode != "vectorize" or case.open_bugs:
            continue
        for variant in case.variants:
            if variant == "select":         # (every lane runs: no compaction, no tail)
                continue
            f = case.func(variant)
            if "while " not in inspect.getsource(f):   # (only a `while` gets a tail)
                continue
            vf = vz.vectorize(f)
            for args in _corpus_inputs(case):
                try:
                    has = _check_tail(vf, f.__name__, args)
                except vz.VectorizeError:
                    break
                if has and f.__name__ not in tailed:
                    tailed.append(f.__name__)
    # int loops (Collatz, gcd, isqrt, counts) and float ones: the test tests something
    assert {"collatz_steps_compact", "gcd_compact", "escape_while_compact"} <= set(tailed), \
        tailed
    assert len(tailed) >= 10, tailed


SOURCE = '''
def mandelbrot(cr, ci):
    zr = 0.0
    zi = 0.0
    n = 0
    while zr * zr + zi * zi <= 4.0 and n < 100:
        zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
        n += 1
    return n


def grow(n, m):
    """``n * 7 + 1`` wraps in int64 (vmap) or overflows (vectorize) on the long lanes."""
    k = 0
    while k < m:
        n = n * 7 + 1
        k += 1
    return n


def wraps_negative(n, m):
    """The int64 ``n`` wraps negative (vmap) and stops the lane, whose count is all that
    is kept: a tail without the range check would count on."""
    k = 0
    while n > 0 and k < m:
        n = n * 7 + 1
        k += 1
    return k


def collatz(n):
    k = 0
    while n > 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        k += 1
    return k


def gcd_steps(a, b):
    k = 0
    while b != 0:
        a, b = b, a % b
        k = k + 1
    return a * 1000 + k


def counted_float(x, m):
    """An int count beside float values, the count scaled into a float."""
    k = 0
    while x > 1.0 and k < m:
        x = x * 0.5 + k * 0.25
        k += 1
    return x + k


def beyond_floats(n, x):
    """An int64 past 2**53 against a float: NumPy compares the nearest float (2**53 + 1 is
    not above 2.0**53 there), Python exactly; the tail takes no such comparison."""
    k = 0
    while n > x and k < 3:
        n = n - 2
        k += 1
    return k


def flags(x):
    """A truth carry and an int carry."""
    seen = False
    k = 0
    while x > 0.5 and k < 40:
        seen = seen | (x > 10.0)
        x = x * 0.75
        k += 1
    return seen, k
'''


@pytest.fixture(scope="module")
def loops(tmp_path_factory):
    path = tmp_path_factory.mktemp("live27") / "live27_tail_loops.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location("live27_tail_loops", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["live27_tail_loops"] = module
    spec.loader.exec_module(module)
    return module


def _mandelbrot_args(n, rng):
    cr, ci = rng.uniform(-2.0, 0.5, n), rng.uniform(-1.25, 1.25, n)
    cr[:4] = [np.nan, np.inf, -0.0, 0.25]
    ci[:4] = [0.0, -np.inf, -0.0, np.nan]
    return cr, ci


@pytest.mark.parametrize("front", ["vectorize", "vmap"])
def test_int_loops_with_and_without_the_tail(loops, front):
    rng = np.random.default_rng(27)
    wrap = getattr(vz, front)
    n = np.concatenate([np.arange(-3, 5), [2 ** 62, -(2 ** 62), 2 ** 63 - 1]]).astype(np.int64)
    m = np.array([0, 1, 5, 25, 30, 40, 3, 2, 1, 1, 0], dtype=np.int64)
    cases = [
        ("mandelbrot", _mandelbrot_args(300, rng)),
        ("grow", (n, m)),
        ("grow", (n[:8], np.minimum(m[:8], 20))),
        ("wraps_negative", (n, m)),
        ("collatz", (np.concatenate([rng.integers(-5, 5000, 200), [27, 97, 1, 0]]),)),
        ("gcd_steps", (rng.integers(-10 ** 6, 10 ** 6, 200), rng.integers(-500, 500, 200))),
        ("counted_float", (np.concatenate([np.exp(rng.uniform(-1, 40, 100)),
                                           [np.nan, np.inf, -0.0, 1e308]]),
                           np.concatenate([rng.integers(0, 60, 100), [5, 90, 2, 2000]]))),
        ("beyond_floats", (np.array([2 ** 53 + 1, 2 ** 53 + 5, 7, 2 ** 60 + 1], dtype=np.int64),
                           np.array([2.0 ** 53, 2.0 ** 53, 1.0, 2.0 ** 60]))),
        ("flags", (np.concatenate([np.exp(rng.uniform(-2, 5, 100)), [np.nan, np.inf]]),)),
    ]
    for name, args in cases:
        f = getattr(loops, name)
        tailed = _check_tail(wrap(f), name, args)
        if name in ("mandelbrot", "grow", "wraps_negative", "collatz", "gcd_steps"):
            assert tailed, (front, name)
        # and the tail as written against the per-example reference
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            if front == "vmap":
                scalars = [np.asarray(a)[i] for i in range(len(args[0])) for a in args]
                per = len(args)
                rows = [f(*scalars[i:i + per]) for i in range(0, len(scalars), per)]
                got = wrap(f)(*args)
                if isinstance(rows[0], tuple):
                    expected = tuple(np.array(col) for col in zip(*rows))
                    for g, e in zip(got, expected):
                        _same_bits(np.asarray(g), e, f"{front} {name}")
                else:
                    _same_bits(np.asarray(got), np.array(rows), f"{front} {name}")
            else:
                expected, error = _outcome(np.vectorize(f), args)
                got, raised = _outcome(wrap(f), args)
                assert raised is error, (name, raised, error)
                if error is None and not isinstance(f(*[a[0] for a in args]), tuple):
                    _same_bits(got, expected, f"{front} {name}")


def test_int_tail_hands_back_where_the_arrays_wrap(loops):
    """A lane whose int64 wraps in the arrays (``vmap``: NumPy scalars) stops the tail at
    the range check, and the array passes finish it: the wrapped value, as the per-example
    loop over NumPy scalars gives."""
    n = np.array([3, 2 ** 62, 5], dtype=np.int64)
    m = np.array([2, 3, 40], dtype=np.int64)
    vf = vz.vmap(loops.grow)
    source = vf.source(n, m)
    assert "raise OverflowError" in source
    with np.errstate(all="ignore"):
        expected = np.array([loops.grow(a, b) for a, b in zip(n, m)])
    on = _forms(source, "grow")["on"]
    _same_bits(on(n, m), expected, "on")
    _same_bits(vf(n, m), expected, "as written")
    assert expected[2] != 5 * 7 ** 40      # (it wrapped)
    # a lane that wraps negative stops there: 23 passes, not the 25 of exact ints
    n, m = np.array([1, 2, 3], dtype=np.int64), np.array([25, 25, 24], dtype=np.int64)
    with np.errstate(all="ignore"):
        expected = np.array([loops.wraps_negative(a, b) for a, b in zip(n, m)])
    assert list(expected) != [25, 25, 24]
    on = _forms(vz.vmap(loops.wraps_negative).source(n, m), "wraps_negative")["on"]
    _same_bits(on(n, m), expected, "on")


def test_mandelbrot_count_finishes_in_python_ints(loops):
    """Mandelbrot's int count no longer keeps the last lanes in array passes: the tail is
    written, and its count is an int64 again after it."""
    cr, ci = _mandelbrot_args(64, np.random.default_rng(1))
    source = vz.vectorize(loops.mandelbrot).source(cr, ci)
    assert "n_tail = n_lanes.tolist()" in source, source
    got = _forms(source, "mandelbrot")["on"](cr, ci)
    _same_bits(got, np.vectorize(loops.mandelbrot)(cr, ci), "on")


def test_tail_threshold_from_the_cost_model(loops):
    """The tail takes over at more lanes where a pass costs more NumPy calls per Python
    operation of a lane's pass (`passes.compact._tail_lanes`), within its bounds."""
    from vectorize.passes.compact import _TAIL_LANES, _tail_lanes
    from vectorize.syntax.templates import parse_stmt

    def stmts(lines):
        return [parse_stmt(line + "\n") for line in lines]

    heavy = stmts([f"y{k} = np.sqrt(x_lanes) + np.abs(x_lanes) * 2.0" for k in range(8)])
    light = stmts(["x_lane = x_lane * 0.5"])
    assert _tail_lanes(heavy, light) == _TAIL_LANES[1]
    assert _tail_lanes(light, heavy) == _TAIL_LANES[0]
    assert _tail_lanes(heavy[:1], light) < _tail_lanes(heavy[:3], light)
    cr, ci = _mandelbrot_args(50, np.random.default_rng(2))
    for f, args in ((loops.mandelbrot, (cr, ci)), (loops.collatz, (np.arange(1, 60),))):
        source = vz.vectorize(f).source(*args)
        limit = int(re.search(r"0 < running <= (\d+) and scalar_tail:", source).group(1))
        assert _TAIL_LANES[0] <= limit <= _TAIL_LANES[1], source
