"""The scalar tail's lane pass, tidied (`vectorize.loops.tail_tidy`): merge copies folded
into the assignment, dead stores of the mask's constant and zero checks before a division
Python checks itself dropped, and only where each is exact.

The rewrites are checked one by one on statements (each done where it holds, left where a
name is read or written in between, a division is conditional, or a divisor changes), and
on loops whose passes copy, swap, shift and divide: each loop's generated code runs with
the tail taken from the first pass on and with the tail off (equal bits, dtypes and
exception types, `test_live27_tails._check_tail`), and the vectorized function against
``numpy.vectorize`` (values and dtype, or the exception type) on inputs with NaN, inf,
signed zeros and zero divisors.
"""

from __future__ import annotations

import importlib.util
import sys
from functools import partial

import numpy as np
import pytest
from differential import outcome
from test_live27_tails import _check_tail, _same_bits

import vectorize as vz
from vectorize.loops.tail_tidy import hoist, tidy
from vectorize.syntax.templates import parse_stmt, render


def _tidied(lines: list[str], own: set) -> list[str]:
    stmts = [parse_stmt(line + "\n") for line in lines]
    return [render(s).strip() for s in tidy(stmts, own)]


# ------------------------------------------------------------------- the rewrites, one by one
def test_copy_coalesced_into_its_assignment():
    assert _tidied(["t = x * 2.0", "c = t > 1.0", "x = t"], {"t"}) == \
        ["x = x * 2.0", "c = x > 1.0"]


def test_copy_kept_where_the_target_is_read_in_between():
    # (``y = x`` reads the old ``x``: binding ``x`` at ``t``'s assignment would change it)
    lines = ["t = x * 2.0", "y = x", "x = t"]
    assert _tidied(lines, {"t"}) == lines


def test_copy_kept_where_the_target_is_written_after():
    lines = ["t = x * 2.0", "x = t", "x = x + t"]
    assert _tidied(lines, {"t"}) == lines


def test_copy_kept_for_a_carried_name():
    # (``t`` is not the pass's own: the next pass, or the loop's end, reads it)
    lines = ["t = x * 2.0", "x = t"]
    assert _tidied(lines, set()) == lines


def test_copy_kept_where_the_temporary_is_read_before_its_assignment():
    lines = ["y = t + 1.0", "t = x * 2.0", "x = t"]
    assert _tidied(lines, {"t"}) == lines


def test_tuple_assignment_copies():
    assert _tidied(["u, v = b, a % b", "a = u", "b = v", "c = v != 0"], {"u", "v"}) == \
        ["a, b = b, a % b", "c = b != 0"]


def test_unread_own_name_dropped():
    assert _tidied(["t = x * 2.0", "x = x + 1.0"], {"t"}) == ["x = x + 1.0"]
    assert _tidied(["t = x / 2.0", "x = x + 1.0"], {"t"}) == ["t = x / 2.0", "x = x + 1.0"]


def test_dead_store_of_a_constant():
    assert _tidied(["c = True", "x = x * 0.5", "c = x > 1.0", "m = c"], {"c"}) == \
        ["x = x * 0.5", "m = x > 1.0"]


def test_store_kept_where_read_or_where_it_may_raise():
    read = ["c = True", "y = c", "c = x > 1.0"]
    assert _tidied(read, set()) == read
    raises = ["q = a / x", "q = x"]            # (a zero ``x`` stops the tail here)
    assert _tidied(raises, set()) == raises


def test_zero_check_before_the_division_dropped():
    lines = ["if x == 0:\n    raise ZeroDivisionError('float division by zero')",
             "y = 0.5 * (y + a / x)"]
    assert _tidied(lines, set()) == ["y = 0.5 * (y + a / x)"]
    lines[1] = "y = a % x"
    assert _tidied(lines, set()) == ["y = a % x"]


@pytest.mark.parametrize("division", [
    "y = a / x if c else y",            # (in a branch: may not run)
    "y = c and a / x",                  # (after ``and``: may not run)
    "y = a / z",                        # (another divisor)
    "y = x / a",                        # (``x`` divided, not dividing)
])
def test_zero_check_kept_where_the_division_may_not_run(division):
    lines = ["if x == 0:\n    raise ZeroDivisionError('float division by zero')", division]
    assert len(_tidied(lines, set())) == 2


def test_zero_check_kept_where_the_divisor_changes_before():
    lines = ["if x == 0:\n    raise ZeroDivisionError('float division by zero')",
             "x = x + 1.0", "y = a / x"]
    assert len(_tidied(lines, set())) == 3


def test_other_statements_left_as_they_are():
    lines = ["t = x * 2.0", "x = t", "for k in range(3):\n    x = x + k"]
    stmts = [parse_stmt(line + "\n") for line in lines]
    assert tidy(stmts, {"t"}) is stmts


def _hoisted(lines: list[str]) -> tuple[list[str], list[str]]:
    names = iter(f"h{k}" for k in range(10))
    before, stmts = hoist([parse_stmt(line + "\n") for line in lines], lambda _: next(names))
    return [render(s).strip() for s in before], [render(s).strip() for s in stmts]


def test_invariant_arithmetic_hoisted_once():
    assert _hoisted(["x = 0.5 * (x + a / x)", "c = abs(x * x - a) > 1e-12 * a",
                     "y = (1e-12 * a) + x"]) == (
        ["h0 = 1e-12 * a"], ["x = 0.5 * (x + a / x)", "c = abs(x * x - a) > h0",
                             "y = h0 + x"])


@pytest.mark.parametrize("line", [
    "y = x * a",                        # (``x`` changes from pass to pass)
    "y = x if c else 2.0 * a",          # (in a branch: may not run)
    "y = c and 2.0 * a > x",            # (after ``and``: may not run)
    "y = a",                            # (a name: nothing to compute)
])
def test_nothing_hoisted(line):
    assert _hoisted(["x = x + 1.0", line]) == ([], ["x = x + 1.0", line])


# ------------------------------------------------------------------- loops, tail on and off
SOURCE = '''
def newton(a, x):
    while abs(x * x - a) > 1e-12 * a:
        x = 0.5 * (x + a / x)
    return x


def shift(x, y, m):
    """``y`` takes ``x``'s old value in the same pass."""
    k = 0
    while k < m:
        t = x * 0.5 + y
        y = x
        x = t
        k += 1
    return x - y


def swap_divide(a, b, m):
    """A tuple swap, a division by a carry that may reach zero (``a == 1.5 * b``)."""
    k = 0
    while k < m:
        a, b = b, a / b - 1.5
        k += 1
    return a + b


def climb(n, m):
    """``n + 3`` passes the int64 maximum on lanes that start near it: only that bound."""
    k = 0
    while k < m:
        n = n + 3
        k += 1
    return n


def descend(n, m):
    """``n - 3`` passes the int64 minimum on lanes that start near it."""
    k = 0
    while k < m:
        n = n - 3
        k += 1
    return n


def divides_on_one_branch(x, d):
    """The division runs on some lanes' passes only: its zero check stays."""
    k = 0
    while x > 1.0 and k < 60:
        x = x / d if x > 4.0 else x - 0.5
        d = d - 0.25
        k += 1
    return x
'''


@pytest.fixture(scope="module")
def loops(tmp_path_factory):
    path = tmp_path_factory.mktemp("live29") / "live29_loops.py"
    path.write_text(SOURCE)
    spec = importlib.util.spec_from_file_location("live29_loops", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["live29_loops"] = module
    spec.loader.exec_module(module)
    return module


def _edges(x, values):
    x = np.array(x, dtype=np.float64)
    x[:len(values)] = values
    return x


def _inputs(rng, n=120):
    heavy = 2.0 ** np.minimum(rng.pareto(1.5, n), 60.0)
    a = rng.uniform(1.0, 2.0, n)
    return {
        "newton": (_edges(a, [np.nan, np.inf, 0.0, 2.0, 2.0, 1.0]),
                   _edges(a * heavy, [1.0, 1.0, 1.0, 0.0, -0.0, np.nan])),
        "shift": (_edges(rng.normal(size=n), [np.nan, -0.0, np.inf]),
                  _edges(rng.normal(size=n), [0.0, -0.0, -np.inf]),
                  rng.integers(0, 40, n)),
        "swap_divide": (_edges(rng.normal(size=n) * 3.0, [np.nan, 1.0, -0.0, 1.0]),
                        _edges(rng.normal(size=n), [1.0, np.inf, 2.0, -0.0]),
                        rng.integers(0, 30, n)),
        "divides_on_one_branch": (_edges(rng.uniform(0.0, 60.0, n), [np.nan, 50.0, 8.0]),
                                  _edges(rng.uniform(-3.0, 3.0, n), [1.0, 0.25, np.inf])),
    }


def _same_outcome(got, expected, what):
    (value, error), (value_ref, error_ref) = got, expected
    assert type(error) is type(error_ref), (what, error, error_ref)
    if error is None:
        _same_bits(np.asarray(value), np.asarray(value_ref), what)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_tidied_tails_against_the_arrays_and_numpy_vectorize(loops, seed):
    tailed = []
    for name, args in _inputs(np.random.default_rng(seed)).items():
        f = getattr(loops, name)
        vf = vz.vectorize(f)
        if _check_tail(vf, name, args):
            tailed.append(name)
        _same_outcome(outcome(partial(vf, *args)), outcome(partial(np.vectorize(f), *args)),
                      name)
    assert {"newton", "shift", "swap_divide", "divides_on_one_branch"} <= set(tailed), tailed


def test_zero_divisor_in_the_tail_raises_as_python(loops):
    """A lane whose divisor reaches zero in the tail: Python's own division stops it (the
    lane's pass has no check of its own), and the arrays raise what ``numpy.vectorize``
    raises; without that lane, the same values."""
    rng = np.random.default_rng(5)
    a, b = rng.uniform(1.0, 2.0, 40), rng.uniform(1.0, 2.0, 40)
    m = rng.integers(1, 30, 40)
    a[7], b[7], m[7] = 3.0, 2.0, 25         # (2.0, 0.0) after one pass, then 2.0 / 0.0
    vf = vz.vectorize(loops.swap_divide)
    source = vf.source(a, b, m)
    arrays, lane = source.split("while active_lane:")
    assert "ZeroDivisionError" in arrays and "ZeroDivisionError" not in lane.split(
        "except ArithmeticError")[0], source
    reference = np.vectorize(loops.swap_divide)
    for args in ((a, b, m), (np.delete(a, 7), np.delete(b, 7), np.delete(m, 7))):
        assert _check_tail(vf, "swap_divide", args)
        _same_outcome(outcome(partial(vf, *args)), outcome(partial(reference, *args)), "zero")
    assert type(outcome(lambda: vf(a, b, m))[1]) is ZeroDivisionError


def test_newton_lane_pass_is_two_statements(loops):
    """The heavy-tailed Newton loop's lane pass: the update and the test, nothing else (its
    tolerance computed once per lane)."""
    a = np.linspace(1.0, 2.0, 50)
    source = vz.vectorize(loops.newton).source(a, a * 1e6)
    lane_pass = source.split("while active_lane:\n")[1].split("x_tail[lane]")[0]
    assert [line.strip() for line in lane_pass.strip().split("\n")] == [
        "x_lane = 0.5 * (x_lane + a_lane / x_lane)",
        "active_lane = abs(x_lane * x_lane - a_lane) > invariant_lane"], source
    assert "invariant_lane = 1e-12 * a_lane\n" in source, source


@pytest.mark.parametrize("name, start, check", [
    ("climb", 2 ** 63 - 10, "n_lane > 9223372036854775807"),
    ("descend", -(2 ** 63) + 10, "n_lane < -9223372036854775808"),
])
def test_one_sided_range_check_stops_the_tail_where_the_arrays_wrap(loops, name, start, check):
    """An int64 of the loop's plus (minus) a literal can pass only the int64 maximum
    (minimum): the tail checks that bound alone, and a lane past it hands back to the arrays,
    which wrap (``vmap``: the per-example loop over NumPy scalars) or raise where Python ints
    are exact (``vectorize``: ``numpy.vectorize`` gives the exact int, which fits no int64)."""
    f = getattr(loops, name)
    n = np.array([start, 5, -5, start, 0], dtype=np.int64)
    m = np.array([6, 40, 40, 2, 33], dtype=np.int64)
    vf = vz.vmap(f)
    source = vf.source(n, m)
    assert f"if {check}:" in source, source
    with np.errstate(all="ignore"):
        expected = np.array([f(a, b) for a, b in zip(n, m)])
    assert _check_tail(vf, name, (n, m))
    _same_bits(np.asarray(vf(n, m)), expected, name)
    wrapped = (expected[0] < 0) if name == "climb" else (expected[0] > 0)
    assert wrapped, expected
    ok = (n[1:3], m[1:3])
    assert _check_tail(vz.vectorize(f), name, ok)
    _same_outcome(outcome(partial(vz.vectorize(f), *ok)),
                  outcome(partial(np.vectorize(f), *ok)), name)
    _same_outcome(outcome(partial(vz.vectorize(f), n, m)),
                  outcome(partial(np.vectorize(f), n, m)), name)
