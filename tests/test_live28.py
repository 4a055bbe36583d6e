"""Compacted loops' per-pass work.

The scalar tail of a compacted ``while`` loop runs loops that call helpers
(`passes.compact._ScalarBody._inlined`): a helper whose generated body is one ``return``
is its expression in the lane's pass, translated by the same rules as the loop's own
operations. Each loop's generated code runs with the tail taken from the first pass on and
with the tail off, and both give equal bits, dtypes and exception types; the vectorized
function is checked against ``numpy.vectorize`` (values and dtype, or the exception type)
on inputs with NaN, inf, signed zeros, zero divisors and int64 overflow.

A check Python's semantics needs (`passes.python_raises`) is written once where the same
test was checked before on every path to it and nothing it reads changed since (the
``math.isinf(x)`` of ``math.cos(x)`` and ``math.sin(x)`` in one pass of a loop): each test
counts the checks in the generated code and compares with ``numpy.vectorize``, the
exception type included.
"""

from __future__ import annotations

import importlib.util
import math
import sys
import warnings

import numpy as np
import pytest
from test_live27_tails import _check_tail, _same_bits

import vectorize as vz

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent.parent))

SOURCE = '''
import math

from benchmarks.live_workloads import first_root, mandelbrot, newton_tail, sqrt_newton


def step_to(x, c):
    """A zero divisor on some lanes: Python raises where the arrays give inf."""
    return x - (x * x - c) / (2.0 * x)


def roots(x, c):
    k = 0
    while abs(x * x - c) > 1e-9 and k < 60:
        x = step_to(x, c)
        k += 1
    return x


def double(v):
    return v + v


def quad(v):
    return double(double(v))


def nested(x, m):
    """A helper calling a helper, in an expression of the loop's."""
    k = 0
    while x < m and k < 100:
        x = 1.0 + quad(x) * 0.5
        k += 1
    return x + k


def changed_between(x):
    """``x`` changes between the two square roots: two checks."""
    y = math.sqrt(x)
    x = x - 1.0
    return y + math.sqrt(x)


def branch_only(x, t):
    """The first check runs on one branch only: the second stays."""
    y = 0.0
    if t > 0:
        y = math.sqrt(x)
    return y + math.sqrt(x)


def after_elif(x, t):
    """The first check is of an ``elif``'s test, on its path only: the second stays."""
    if t > 0:
        y = 1.0
    elif math.sqrt(x) > 2.0:
        y = 2.0
    else:
        y = 3.0
    return y + math.sqrt(x)


def before_the_loop(x, n):
    """Checked before the loop: again in it where the loop changes ``x``, not for ``c``."""
    y = math.sqrt(x) + math.log(n)
    k = 0
    while k < n:
        y = y + math.sqrt(x) + math.log(n)
        x = x - 1.0
        k += 1
    return y


def truth_choices(x, y):
    """Choices between a truth and a constant: operations on truths, no ``where``."""
    a = x > 0
    b = True if y > 1 else a
    c = False if y > 2 else a
    d = a if y > 3 else True
    e = a if y > 4 else False
    return int(b) + 2 * int(c) + 4 * int(d) + 8 * int(e)


def counted_from(x, n):
    """A count from a per-example start (int64 past its top wraps under ``vmap``)."""
    while x > 1.0:
        x = x * 0.5
        n += 1
    return n


def int_invariant(x, a):
    """``a * 3 - 1`` is the same every pass (it may pass the int64 top)."""
    k = 0
    while x < a * 3 - 1 and k < 50:
        x = x + 1
        k += 1
    return k


def halve(n):
    return n // 2


def triple(n):
    return 3 * n + 1


def collatz(n):
    """int64 helpers: floor division, and ``3 * n + 1``, which overflows on some lanes."""
    k = 0
    while n > 1:
        if n % 2 == 0:
            n = halve(n)
        else:
            n = triple(n)
        k += 1
    return k


def close(x, y):
    return abs(x - y) < 1e-6


def truth_helper(x):
    """A helper that gives a truth, in the loop's test."""
    k = 0
    while not close(x * x, 2.0) and k < 80:
        x = 0.5 * (x + 2.0 / x)
        k += 1
    return k


def scaled(x, s):
    y = x * s
    return y - 1.0


def statements(x):
    """A helper with statements before its return."""
    k = 0
    while x > 1.0 and k < 50:
        x = scaled(x, 0.75)
        k += 1
    return x


def decay(x):
    return x * math.exp(-x)


def transcendental(x):
    """A helper of ``math.exp`` (NumPy's may differ from Python's in the last bit): no
    tail, the arrays run."""
    k = 0
    while x > 1e-3 and k < 50:
        x = decay(x) + 0.25 * x
        k += 1
    return x
'''


@pytest.fixture(scope="module")
def loops(tmp_path_factory):
    path = tmp_path_factory.mktemp("live28") / "live28_helper_loops.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location("live28_helper_loops", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["live28_helper_loops"] = module
    spec.loader.exec_module(module)
    return module


def _reference(func, args):
    """``numpy.vectorize`` of ``func`` on ``args``: (values, None) or (None, exception type)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return np.asarray(np.vectorize(func)(*args)), None
        except Exception as exc:  # noqa: BLE001 -- compared with ours
            return None, type(exc)


def _check(module, name, args, tail=True):
    """Tail on against off (the generated code), and ours against numpy.vectorize."""
    func = getattr(module, name)
    vf = vz.vectorize(func)
    assert _check_tail(vf, name, args) is tail, vf.source(*args)
    expected, error = _reference(func, args)
    try:
        got = np.asarray(vf(*args))
    except Exception as exc:  # noqa: BLE001 -- compared with numpy.vectorize's
        assert error is type(exc), (name, exc, error)
        return
    assert error is None, (name, error)
    _same_bits(got, expected, name)


def _floats(rng, n, lo, hi):
    return np.exp(rng.uniform(lo, hi, n))


def test_helper_in_the_tail(loops):
    rng = np.random.default_rng(28)
    a = _floats(rng, 400, -30.0, 40.0) * rng.choice([-1.0, 1.0, 1.0], 400)
    a[:6] = [0.0, -0.0, math.inf, math.nan, 5e-324, 1.7e308]
    _check(loops, "sqrt_newton", (rng.permutation(a),))
    source = vz.vectorize(loops.sqrt_newton).source(a)
    tail = source[source.index("while active_lane"):]
    # the lane's pass computes the helper's expression on Python floats, no array call
    assert "newton_step" not in tail.split("_tail[lane] =")[0], source


def test_zero_divisor_in_a_helper(loops):
    # x reaches 0.0 where c == 0 and x == 0 at the start (a zero divisor: Python raises)
    rng = np.random.default_rng(1)
    x = rng.uniform(-3.0, 3.0, 200)
    c = rng.uniform(0.0, 9.0, 200)
    _check(loops, "roots", (x, c))
    x[7], c[7] = 0.0, 0.0
    _check(loops, "roots", (x, c))
    x[7], c[7] = math.nan, 1.0
    x[9], c[9] = math.inf, -0.0
    _check(loops, "roots", (x[1:], c[1:]))


def test_nested_helpers(loops):
    rng = np.random.default_rng(2)
    x = rng.uniform(-2.0, 2.0, 300)
    m = _floats(rng, 300, 0.0, 30.0)
    x[:4] = [math.nan, -0.0, math.inf, -math.inf]
    _check(loops, "nested", (x, m))


def test_int_helpers(loops):
    n = np.concatenate([np.arange(1, 300), [2 ** 62 + 1, 27, 97, 871]]).astype(np.int64)
    _check(loops, "collatz", (np.random.default_rng(3).permutation(n[:-4]),))
    # 3 * n + 1 overflows int64 on the large lane: Python ints raise in vectorize, as
    # numpy.vectorize's Python ints do not overflow (the engine's check raises)
    _check(loops, "collatz", (n,))


def test_truth_helper(loops):
    x = np.concatenate([_floats(np.random.default_rng(4), 100, -20.0, 20.0),
                        [math.nan, math.inf, 0.5, 1e300]])
    _check(loops, "truth_helper", (x,))


def test_helper_with_statements(loops):
    x = _floats(np.random.default_rng(5), 100, -5.0, 30.0)
    x[:3] = [math.nan, math.inf, -0.0]
    _check(loops, "statements", (x,))


def test_helper_the_tail_cannot_run_keeps_the_arrays(loops):
    x = _floats(np.random.default_rng(7), 100, -5.0, 5.0)
    vf = vz.vectorize(loops.transcendental)
    assert _check_tail(vf, "transcendental", (x,)) is False
    # (NumPy's exp and math.exp may differ in the last bit: values close, not equal bits)
    np.testing.assert_allclose(vf(x), np.vectorize(loops.transcendental)(x), rtol=1e-12)


def test_vmap_helper_in_the_tail(loops):
    a = _floats(np.random.default_rng(6), 300, -30.0, 40.0)
    a[:3] = [0.0, math.inf, math.nan]
    vf = vz.vmap(loops.sqrt_newton)
    assert _check_tail(vf, "sqrt_newton", (a,))
    with np.errstate(all="ignore"):
        expected = np.array([loops.sqrt_newton(v) for v in a])
        got = np.asarray(vf(a))
    _same_bits(got, expected, "vmap sqrt_newton")


def _count(vf, args, text):
    return vf.source(*args).count(text)


def _against_numpy(func, args):
    vf = vz.vectorize(func)
    expected, error = _reference(func, args)
    try:
        got = np.asarray(vf(*args))
    except Exception as exc:  # noqa: BLE001 -- compared with numpy.vectorize's
        assert error is type(exc), (func.__name__, exc, error)
        return vf
    assert error is None, (func.__name__, error)
    _same_bits(got, expected, func.__name__)
    return vf


def test_a_check_written_once_a_pass(loops):
    c = _floats(np.random.default_rng(8), 200, -4.0, 3.0)
    vf = _against_numpy(loops.first_root, (c,))
    assert _count(vf, (c,), "isinf(") == 1, vf.source(c)
    _against_numpy(loops.first_root, (np.concatenate([c, [math.inf]]),))
    _against_numpy(loops.first_root, (np.concatenate([c, [math.nan, -0.0, 0.0]]),))


def test_checks_that_must_stay(loops):
    x = np.array([4.0, 0.5, 2.0, 1.0])
    vf = _against_numpy(loops.changed_between, (x,))
    assert _count(vf, (x,), "raise ValueError") == 2, vf.source(x)
    _against_numpy(loops.changed_between, (x - 0.75,))
    _against_numpy(loops.changed_between, (np.array([0.25, 4.0, -0.0]),))

    t = np.array([1.0, -1.0, 1.0, -1.0])
    vf = _against_numpy(loops.branch_only, (x, t))
    assert _count(vf, (x, t), "raise ValueError") == 2, vf.source(x, t)
    _against_numpy(loops.branch_only, (x - 3.0, -t))
    _against_numpy(loops.branch_only, (np.array([-1.0, 4.0]), np.array([-1.0, -1.0])))

    vf = _against_numpy(loops.after_elif, (x, t))
    assert _count(vf, (x, t), "raise ValueError") == 2, vf.source(x, t)
    # (t > 0 and x < 0: only the last square root raises, in Python as here)
    _against_numpy(loops.after_elif, (np.array([-1.0, 4.0]), np.array([1.0, -1.0])))

    n = np.array([3.0, 5.0, 1.0, 2.0])
    vf = _against_numpy(loops.before_the_loop, (x + 2.0, n))
    source = vf.source(x + 2.0, n)
    # the log's check (``n <= 0``) before the loop only; the square root's in it again
    assert source.count("raise ValueError") == 3, source
    _against_numpy(loops.before_the_loop, (x, n))
    _against_numpy(loops.before_the_loop, (x, n - 1.0))


def test_truth_choices(loops):
    rng = np.random.default_rng(9)
    x, y = rng.uniform(-1.0, 1.0, 200), rng.uniform(0.0, 5.0, 200)
    x[:3], y[:3] = [math.nan, -0.0, 0.0], [math.nan, 1.0, 4.0]
    vf = _against_numpy(loops.truth_choices, (x, y))
    source = vf.source(x, y)
    assert "np.where(" not in source and "blend(" not in source, source
    for backend in ("torch",):
        pytest.importorskip(backend)
        got = np.asarray(vz.vmap(loops.truth_choices, backend=backend)(x, y))
        np.testing.assert_array_equal(got, np.vectorize(loops.truth_choices)(x, y))


def test_counts_merge_by_adding_the_mask(loops):
    rng = np.random.default_rng(10)
    cr, ci = rng.uniform(-2.0, 0.5, 300), rng.uniform(-1.25, 1.25, 300)
    cr[:3], ci[:3] = [math.nan, math.inf, -0.0], [0.0, 0.0, -0.0]
    vf = _against_numpy(loops.mandelbrot, (cr, ci))
    assert "n_lanes = n_lanes + active_lanes if idle else n_if" in vf.source(cr, ci)
    x = _floats(rng, 300, -3.0, 40.0)
    n = rng.integers(-5, 5, 300)
    n[:3] = [2 ** 63 - 1, 2 ** 63 - 10, -2 ** 63]
    vf = _against_numpy(loops.counted_from, (x[3:], n[3:]))
    assert "n_lanes + active_lanes" in vf.source(x[3:], n[3:])
    _against_numpy(loops.counted_from, (x, n))     # (Python ints pass the int64 top)
    vm = vz.vmap(loops.counted_from)
    with np.errstate(all="ignore"):
        expected = np.array([loops.counted_from(a, b) for a, b in zip(x, n)])
        got = np.asarray(vm(x, n))
    _same_bits(got, expected, "vmap counted_from")


def test_loop_invariant_arithmetic_once(loops):
    rng = np.random.default_rng(11)
    a = rng.uniform(1.0, 2.0, 300)
    x0 = a * 2.0 ** np.minimum(rng.pareto(1.5, 300), 88.0)
    a[:4], x0[:4] = [math.nan, math.inf, 4.0, 1e300], [1.0, 2.0, -0.0, 1e300]
    _check(loops, "newton_tail", (a, x0))
    source = vz.vectorize(loops.newton_tail).source(a, x0)
    assert "invariant = 1e-12 * a_lanes" in source and "> invariant" in source, source
    # (computed again on the kept lanes at each compaction, not gathered: test_live32)
    assert source.count("invariant = 1e-12 * a_lanes") == 2, source
    x = rng.integers(-60, 60, 200)
    n = rng.integers(-20, 20, 200)
    # (a loop of ints runs outside np.errstate: nothing is moved before it)
    _against_numpy(loops.int_invariant, (x, n))
    n[5] = 2 ** 62
    _against_numpy(loops.int_invariant, (x, n))
    vm = vz.vmap(loops.int_invariant)
    with np.errstate(all="ignore"):
        expected = np.array([loops.int_invariant(p, q) for p, q in zip(x, n)])
        got = np.asarray(vm(x, n))
    _same_bits(got, expected, "vmap int_invariant")
