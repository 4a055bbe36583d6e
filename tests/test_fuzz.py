"""Differential fuzzing in CI: generated scalar-style programs, per example vs ``vectorize``.

Each generated program (see ``tests/fuzz/programs.py``) is written to a module file, imported,
run per example (the reference of ``tests/differential.py``) and through
``vectorize(f, fallback="error")``, on inputs with NaN, +-inf, +-0.0 and negatives. The result
must be equal, or the engine must refuse with its own `VectorizeError`; any other exception is
an internal error. A failure shrinks to a minimal program, printed with its inputs.

Bounded for CI (about a minute on two cores); ``benchmarks/fuzz_long.py`` is the long run.
Rejection reasons are collected as hypothesis events (``--hypothesis-show-statistics``) and
summarized at the end of the module's run.
"""

from __future__ import annotations

import ast
from collections import Counter

import numpy as np
import pytest
from fuzz.harness import (
    FULL,
    HEADER,
    ModuleWriter,
    Program,
    bounded_shrinking,
    format_case,
    run_case,
)
from fuzz.programs import cases, programs, well_formed
from hypothesis import HealthCheck, event, given, settings

# 240 programs in all (a fixed set: benchmarks/fuzz_long.py runs as many as you like): half
# here, half other draws in test_fuzz_more35.py, a file of its own so that `--dist loadfile`
# runs the halves on two workers (the suite's longest test was this one)
MAX_EXAMPLES = 120
SHRINK_SECONDS = 45    # shrinking stops after this long, with the smallest failure found

_tally: Counter = Counter()
_reasons: Counter = Counter()
_failed: list = []


@pytest.fixture(scope="module")
def writer(tmp_path_factory, request):
    with bounded_shrinking(SHRINK_SECONDS):
        yield ModuleWriter(tmp_path_factory.mktemp("fuzz_programs"))
    total = sum(_tally.values())
    if not total:
        return
    lines = [f"fuzz: {total} programs (until the first failure): "
             + ", ".join(f"{k} {v}" for k, v in sorted(_tally.items())),
             f"fuzz: rejected {100 * _tally['rejected'] / total:.1f}%"]
    lines += [f"fuzz:   {n:4d}  {reason}" for reason, n in _reasons.most_common()]
    reporter = request.config.pluginmanager.getplugin("terminalreporter")
    if reporter is not None:
        reporter.write_line("")
        for line in lines:
            reporter.write_line(line)
    else:
        print("\n" + "\n".join(lines))


def _check(case, writer):
    program, args, seed = case
    outcome = run_case(program, args, writer, protocol=FULL, seed=seed)
    if not _failed:      # shrinking runs are not counted
        _tally[outcome.kind] += 1
        if outcome.kind == "rejected":
            _reasons[outcome.reason] += 1
    event(f"outcome: {outcome.kind}")
    if outcome.kind == "rejected":
        event(f"rejected: {outcome.reason}")
    if outcome.failed:
        _failed.append(True)
        raise AssertionError("\n" + format_case(program, args, outcome))


# derandomized: CI runs the same programs every time (a red run is a real regression, never a
# new random find); benchmarks/fuzz_long.py explores at random
@settings(max_examples=MAX_EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.large_base_example, HealthCheck.filter_too_much])
@given(case=cases())
def test_generated_programs_match_the_loop_or_are_rejected(case, writer):
    _check(case, writer)


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(program=programs())
def test_generated_programs_are_well_formed(program):
    """The generator's promise, checked on the text: no variable is read where it may be
    unbound, and every path returns (the programs are valid scalar code)."""
    compile(program.source, "<generated>", "exec")
    assert well_formed(program.source), program.source


# ------------------------------------------------------------------ bugs found by the fuzzer
# Minimal programs (reduced by hand from the fuzzer's shrunk ones), as regression tests.
# must_vectorize=True: the engine must translate the program (the bug was a VectorizeError it
# should not raise, or a crash on a program it can translate); False: equal results or a
# VectorizeError are both fine. Marked ones are open; the others were fixed since.

_X = np.array([-1.0, 0.5, 2.0, 12.0, np.nan, -0.0, np.inf])

FOUND = [
    pytest.param("augmented_assignment", """
def f(x):
    x += 1.0
    return x
""", (_X,), True, id="augmented_assignment"),
    pytest.param("continue_under_batched_if_in_for", """
def f(x):
    for i in range(2):
        if x < 0.0:
            continue
        x = x + 1.0
    return x
""", (_X,), True, id="continue_under_batched_if_in_for"),
    pytest.param("helper_called_with_a_constant_and_a_batch", """
def h0(a):
    return float(a < 1.0) + a


def f(x):
    return h0(1.0) + h0(x)
""", (_X,), True, id="helper_called_with_a_constant_and_a_batch"),
    pytest.param("math_domain_error_of_a_broadcast_scalar_in_a_dead_branch", """
def f(x, y):
    return math.sqrt(y) if x > 0.0 else x
""", (np.array([-1.0, -2.0]), -2.5), True,
        id="math_domain_error_of_a_broadcast_scalar_in_a_dead_branch"),
    pytest.param("math_domain_error_of_a_broadcast_scalar_in_a_dead_if", """
def f(x, y):
    if x > 0.0:
        r = math.sqrt(y)
    else:
        r = x
    return r
""", (np.array([-1.0, -2.0]), -2.5), True,
        id="math_domain_error_of_a_broadcast_scalar_in_a_dead_if"),
    pytest.param("math_domain_error_of_a_constant_in_a_short_circuited_or", """
def h0(a):
    return math.sqrt(a)


def f(x):
    for i in range(2):
        x = x or h0(0.5 - i)
    return x
""", (np.array([1.0, -2.0, 3.0]),), False,
        id="math_domain_error_of_a_constant_in_a_short_circuited_or"),
    pytest.param("return_under_batched_if_in_counted_while", """
def f(x):
    n = 0
    while n < 2:
        n += 1
        if x > 0.0:
            return x
    return 1.0
""", (_X,), False, id="return_under_batched_if_in_counted_while"),
    pytest.param("break_under_batched_if_in_counted_while", """
def f(x):
    for i in range(2):
        n = 0
        while n < 2:
            n += 1
            if x > 0.0:
                break
        x = x + 1.0
    return x
""", (_X,), False, id="break_under_batched_if_in_counted_while"),
    pytest.param("break_under_batched_if_in_nested_counted_while", """
def f(x):
    n1 = 0
    while n1 < 2:
        n1 += 1
        n2 = 0
        while n2 < 2:
            n2 += 1
            if x < 0.0:
                break
    return x
""", (_X,), False, id="break_under_batched_if_in_nested_counted_while"),
    pytest.param("continue_under_batched_if_in_while_under_batched_if", """
def f(x):
    if x > 0.0:
        n = 0
        while n < 3:
            n += 1
            if x == 1.0:
                continue
    return x
""", (_X,), False, id="continue_under_batched_if_in_while_under_batched_if"),
    pytest.param("loop_in_batched_if_rejected_as_unbound", """
def f(x, y):
    if x > 0.0:
        y = x + x
        for i in range(2):
            x = y
    return x
""", (_X, _X), True,
        id="loop_in_batched_if_rejected_as_unbound"),
    pytest.param("loop_in_batched_else_rejected_as_unbound", """
def f(x, y):
    if x < 0.0:
        pass
    else:
        for i in range(2):
            x = y
    return x
""", (_X, _X), True,
        id="loop_in_batched_else_rejected_as_unbound"),
    pytest.param("inner_for_after_nested_batched_break_rejected_as_undefined", """
def f(x):
    for i in range(2):
        if x < 0.0:
            if x < 1.0:
                break
        for j in range(2):
            if j < 1:
                break
    return x
""", (_X,), True,
        id="inner_for_after_nested_batched_break_rejected_as_undefined"),
    pytest.param("loop_counter_reused_in_both_branches_rejected_as_undefined", """
def f(x):
    if x < 1.0:
        for i in range(2):
            x = x + i
    else:
        for i in range(2):
            if i < 1:
                break
    return x
""", (_X,), True,
        id="loop_counter_reused_in_both_branches_rejected_as_undefined"),
    pytest.param("divmod_unpacking_when_the_example_value_raises", """
def f(x):
    a, b = divmod(x, math.sqrt(x - 10.0))
    return a
""", (_X,), True, id="divmod_unpacking_when_the_example_value_raises"),
    pytest.param("divmod_unpacking_of_a_helper_result", """
def h0(a):
    for i in range(2):
        a = a
    return a


def f(x):
    a, b = divmod(h0(1.0), x)
    return a
""", (_X,), True, id="divmod_unpacking_of_a_helper_result"),
    pytest.param("value_swapped_back_under_a_batched_if", """
def h0(a, b):
    if a * 0:
        a = a
    else:
        a, b = b, a
        b, a = a, b
    if np.isfinite(b):
        a = a + 1.0
    return a + b


def f(x):
    return h0(x, 3.0)
""", (_X,), True, id="value_swapped_back_under_a_batched_if"),
    pytest.param("value_swapped_back_in_a_masked_loop", """
def f(x, y):
    n = 0
    while n < 3 and x > n:
        n += 1
        x, y = y, x
        y, x = x, y
    if y > 0.0:
        y = y + 1.0
    return y
""", (_X, 2.0), True, id="value_swapped_back_in_a_masked_loop"),
    pytest.param("compacted_loop_copied_into_the_branches_of_an_early_return", """
def f(x, y, z):
    for i0 in range(2):
        if x == 0.0:
            return y
        elif y > 0.5:
            z, y = y, z
        n2 = 0
        while n2 < 2 and x > 10.0:
            n2 += 1
            y = y * z
    return y
""", (np.array([0.0, 12.0, 13.5, 30.0, -1.0, np.nan]),
      np.array([1.0, 60.0, np.inf, 2.0, 0.25, 1.0]),
      np.array([3.0, 10.0, -87.5, 1.5, 2.0, np.nan])), True,
        id="compacted_loop_copied_into_the_branches_of_an_early_return"),
    pytest.param("returned_value_overwritten_by_the_code_after_the_loop", """
def f(x, y):
    for i0 in range(2):
        if ((x ** 2) < x):
            x = (np.where((x < x), x, (x + x)) ** 2)
        else:
            return y
    for i0 in range(0):
        if ((i0 == 0) or ((x > x) or (x != y))):
            v2 = (-((x - 10.0) if (not (x >= y)) else (i0 + -2.5)))
            v3 = y
            return (x / (v2 and (v3 * v2)))
        else:
            y, x = x, y
    return float(10.0)
""", (np.array([-0.0, np.inf, 1.0, -2.5, 1e-102, -np.inf]),
      np.array([-1e300, 3e-59, 3.0, -17.9, -19.5, -1e300])), True,
        id="returned_value_overwritten_by_the_code_after_the_loop"),
    pytest.param("batch_size_taken_from_a_rebound_parameter", """
def h0(a, b):
    for i0 in range(2):
        v2, a = a, b
    return a


def f(x, y):
    for i0 in range(2):
        y = x
    return y + (x if (h0(x, 1.0) < x) else x)
""", (0.5, _X), True, id="batch_size_taken_from_a_rebound_parameter"),
    pytest.param("batch_size_kept_in_a_name_inside_a_compacted_loop", """
def f(x):
    n = x
    x = 2.0
    k = 0
    t = 0.0
    while n > 1.0:  # vectorize: compact
        if x > 3.0:
            t = n
        else:
            t = 0.0
        n = n / 2.0 + t
        k += 1
    return n + k + t
""", (np.array([0.5, 2.0, 8.0, 1e10, 3.0, -np.inf, np.nan]),), True,
        id="batch_size_kept_in_a_name_inside_a_compacted_loop"),
    pytest.param("value_read_after_a_loop_that_may_not_run_in_the_other_branch", """
def f(x, y):
    v0, v1 = divmod((math.atan2(x, x) ** 2), x)
    n0 = 0
    while n0 < 2 and n0 != 1:
        n0 += 1
        x, y = (1.0 + y), np.hypot((x and x), (x // x))
        v0 = ((x - x) or round(float((v1 >= x)), 2))
        y /= math.tanh((0.0 if (x >= x) else x))
    if (x == (x % x)):
        for i0 in range(0):
            v2 = (abs(math.copysign(v0, y)) + 3)
    elif (not bool(v0)):
        v3, v4 = divmod(((y / v0) + v0), min((y if math.isnan(0.5) else y), x, (y * n0)))
        v5, v6 = 10.0, v3
        return (((v6 or y) and y) if (not ((v6 < v0) and (x != v1))) else -2.5)
    elif (y <= math.hypot(0.25, x)):
        n1 = 0
        while n1 < 2:
            n1 += 1
            y = v0
    else:
        for i0 in range(0):
            v1 = y
        return v1
    if ((x > -math.inf) and (n0 < 3)):
        for i0 in range(3):
            x, v0 = y, (np.ceil(float(math.isnan(0.0))) + y)
    v1 = ((round(v1, 0) / (v0 if np.isinf(y) else v0)) + x)
    return v1
""", (np.array([3.0, -np.inf, 1.0]), np.array([-7.25, -1e-12, 1.0])), True,
        id="value_read_after_a_loop_that_may_not_run_in_the_other_branch"),
    pytest.param("in_place_update_of_a_0d_array_another_name_holds", """
def f(x, y):
    x = np.where((x < x), (x if (x < x) else x), x)
    n0 = 0
    while n0 < 2:
        n0 += 1
        y = x
    x += ((-x) + x)
    return x, y
""", (np.array([np.inf, 1.0]), np.array([0.0, 2.0])), False,
        id="in_place_update_of_a_0d_array_another_name_holds"),
    pytest.param("fmin_of_opposite_zeros", """
def f(x, y, z):
    return (np.fmin((x if (0.0 == y) else z), y) / float((x == x)))
""", (np.array([np.inf, 40.5, -0.0, 9e-260, 5e-324, 2.9e-40]),
      np.array([9.8e-228, 1e300, 0.0, -57.6, 0.0, -2.5]), -57.6), True,
        id="fmin_of_opposite_zeros"),
    pytest.param("python_divmod_by_zero_in_a_helper_under_a_condition", """
def h0(a):
    v0, v1 = divmod(a, (a if (a < a) else (a - a)))
    return (a if ((a if (a < a) else a) < (a if (a < a) else a)) else a)


def f(x, y, z):
    x += (x and h0(1.0))
    return x
""", (np.array([0.0, -0.0]), np.array([0.0, 1.0]), np.array([0.0, 2.0])), True,
        id="python_divmod_by_zero_in_a_helper_under_a_condition"),
    pytest.param("scalar_start_of_a_plain_loop_left_to_a_compacted_loop", """
def f(x, y, z):
    v0 = (np.clip((x % x), -1.0, 1.0) ** 2)
    for i0 in range(1):
        v0, z = z, v0
    if (x == 1.0):
        x = round(v0, 1)
    else:
        n1 = 0
        while n1 < 1 and (v0 > 2.0 < x):
            n1 += 1
            z = x
    y += (np.arcsinh(math.inf) if (y <= z) else (x or 0.0))
    return (-(math.nan + (v0 / x)))
""", (-11.393151975475192, np.array([-1.0, 3.0, 0.5]), np.array([-1e300, 2.5, 9.0])), True,
        id="scalar_start_of_a_plain_loop_left_to_a_compacted_loop"),
    pytest.param("math_function_a_last_bit_apart_then_cancelled", """
def f(x, y):
    x, y = y, x
    return (1 + ((x - x) + math.tanh(x)))
""", (np.array([0.0, 1.0]), np.array([-7.25, 0.5])), True,
        id="math_function_a_last_bit_apart_then_cancelled"),
    pytest.param("python_float_joined_with_a_numpy_scalar_then_divided_in_a_helper", """
def h0(a, b):
    v0 = math.atan2(((a % a) if (b < a) else math.atan(1.0)), a)
    return a


def f(x, y):
    v0, v1 = (math.tanh(x) + (x + x)), 100.0
    if ((x and x) < (x if (v1 < x) else -1.0)):
        x, y = y, x
    else:
        if bool(x):
            v4 = np.exp(math.atan2(np.expm1(x), (x + x)))
            x *= h0((y if (y > v1) else -0.0), v4)
    return (-2.5 * v0)
""", (np.array([1.0, 2.0, 2.0, 10.713131456333286, 13.475529646010258]), 4.465806460213955),
        True, id="python_float_joined_with_a_numpy_scalar_then_divided_in_a_helper"),
    pytest.param("helper_specialized_for_one_exact_value_reused_for_another", """
def h0(a, b):
    v0 = math.atan2(((a % a) if (b < a) else math.atan(1.0)), a)
    return a


def f(x, y):
    v0, v1 = (math.tanh(x) + (x + x)), 100.0
    if ((x and x) < (x if (v1 < x) else -1.0)):
        return float(((v0 % v0) < x))
    else:
        n0 = 0
        while n0 < 4:
            n0 += 1
            v1 = (h0(h0(v1, b=x), y) - float(((y <= v1) or (n0 != 2))))
        y = (np.fmin(math.atan(h0(0.0, v1)), np.sign((1.0 // 2.0))) + y)
    return x
""", (np.array([0.0, 1.0, -3.0]), np.array([0.5, 2.0, 0.1])), True,
        id="helper_specialized_for_one_exact_value_reused_for_another"),
    pytest.param("python_float_division_by_zero_in_a_helper_under_a_condition", """
def h0(a, b):
    a += ((a / a) if (a < b) else a)
    return a


def f(x):
    return (-(x + h0(0.0, x)))
""", (np.array([0.0, -1.0, -2.5]),), True,
        id="python_float_division_by_zero_in_a_helper_under_a_condition"),
    pytest.param("loop_variable_read_after_a_per_example_break", """
def f(x):
    for i in range(4):
        y = x * i
        if x > y:
            break
    return y + i
""", (_X,), True, id="loop_variable_read_after_a_per_example_break"),
    pytest.param("carry_of_unknown_type_read_by_a_nested_masked_loop", """
def f(x, y):
    n0 = 0
    while n0 < 2 and n0 != 1:
        n0 += 1
        n1 = 0
        while n1 < 2 and (y < x):
            n1 += 1
        if (min(x, x, x) == float((x < x))):
            v2, v3 = ((x + x) and math.atan2(x, x)), math.tanh(x)
        elif (x <= (x + 1)):
            x += math.acosh((y % y))
            y = (0.25 + x)
    return (((3.0 - y) and 0.5) * ((x // -math.inf) and (x - x)))
""", (np.array([np.inf, 0.5, 10.0, -1.0, 92.11732294562069, -46.228119403122605, -2.5, 0.0]),
      -58.7352951313587), True, id="carry_of_unknown_type_read_by_a_nested_masked_loop"),
    # seed 12: `y /= y` of a shared Python float under a per-example `if` is a division whose
    # divisor becomes a NumPy scalar; the rule read `.lpar` of the statement (internal error)
    pytest.param("python_number_augmented_division_in_a_branch", """
def h0(a):
    return a, (1 + ((a if (a < a) else a) if (a < a) else a))
def f(x, y):
    v4, v5 = h0(float(((1.0 < 1.0) and math.isnan(y))))
    if ((x + x) < x):
        x = x
    else:
        y /= y
    return (x if (v4 < x) else (x + x)), x
""", (np.array([0.0, -1.0, 2.5, np.nan]), 0.0), True,
        id="python_number_augmented_division_in_a_branch"),
    pytest.param("python_number_augmented_floor_division_and_modulo", """
def f(x, y):
    if x > 0:
        y //= 2
    else:
        y %= 3
    return x + y
""", (np.array([1.0, -1.0, 0.0, -np.inf]), 7), True,
        id="python_number_augmented_floor_division_and_modulo"),
    # seed 13: `simplify` forwarded the copy `v1_if = v1` into `v1_if += e` as `v1 += e` (an
    # augmented assignment was not counted as a write), so the unbatched `if (1 + v1)` of the
    # other branch read the batched sum: "truth value of an array ... is ambiguous"
    pytest.param("copy_forwarded_into_an_augmented_assignment", """
def f(x, y):
    v1 = 1.0
    if (x < x):
        if (x < (x if (x < x) else x)):
            x, y = y, x
            v1 += (np.where((x < x), x, x) if (x < x) else x)
        elif (1 + v1):
            v3 = x
    return x
""", (np.array([0.0, 0.0, -1.5]), np.array([0.0, 2.0, np.nan])), True,
        id="copy_forwarded_into_an_augmented_assignment"),
    # seed 14: `x = z` (z a 0-d array from `np.where` in one arm of a conditional expression)
    # then `x *= ...` changes z per example; the alias check looked only at names bound FROM
    # x and at 0-d arrays from calls, so the batch returned the unchanged z. Now rejected.
    pytest.param("in_place_update_of_a_0d_array_bound_from_another_name", """
def h0(a, b):
    return b
def f(x, y, z):
    if ((x + x) < x):
        return x, x
    else:
        if float((not (z <= y))):
            z = (np.where((y <= x), x, h0(y, b=x)) if (np.sin(y) != (x - z)) else z)
            x = z
        x *= (math.fabs(1.0) * z)
    return ((((z * -1) if (y <= z) else (z - 1.0)) if (h0(z, y) < x)
             else ((y % 1.0) or math.sin(x))), (np.maximum((x // z), z) // 1e-08))
""", (np.array([-0.0, 94.60847031098228, np.nan, 6.773394814588869, 2.0]),
      np.array([0.5630134210895932, -76.68662206329633, np.inf, -7.25, -7.25]),
      np.array([np.nan, 1.0, 0.5, np.inf, 1.0])), False,
        id="in_place_update_of_a_0d_array_bound_from_another_name"),
    # seed 14 (7 rejections, worded with names the engine made): `x *= 2.0` under an unbatched
    # `if` inside a per-example branch became `x_if = x` ... `x_if *= 2.0`, which the analysis
    # of the rewritten code took for an update of an array bound to two names. Branch-local
    # names are now rebound (`x_if = x_if * 2.0`).
    pytest.param("augmented_assignment_in_a_block_inside_a_branch", """
def f(x, y):
    x = np.where(x > 0, x, 0.0)
    if x > 1.0:
        if 1 > 0:
            x *= y + 1.0
    else:
        x += 1.0
    return x
""", (np.array([2.0, -1.0, 0.5, np.inf]), np.array([1.0, 2.0, -3.0, 0.5])), True,
        id="augmented_assignment_in_a_block_inside_a_branch"),
    pytest.param("augmented_assignment_in_a_block_inside_an_else", """
def f(x, y):
    x = np.where(x > 0, x, 0.0)
    if x > 1.0:
        x += 5.0
    else:
        if 1 > 0:
            x *= y
            x -= y - 3.0
    return x
""", (np.array([2.0, -1.0, 0.5, np.nan]), np.array([1.0, 2.0, -3.0, 0.5])), True,
        id="augmented_assignment_in_a_block_inside_an_else"),
    # seeds 13 and 14 (14 to 19 rejections per 3,000 programs): an operation on values the
    # same for every example raised on their representatives (`1.0 / math.fmod(y, y)` with y
    # represented by 1.0), or a math function raised on exact values; the result's shape was
    # unknown, so combining it with per-example values was refused. Other representatives
    # are tried, and a math function's NumPy value is used (the generated code calls it).
    pytest.param("division_by_an_unbatched_value_zero_on_its_representative", """
def f(x, y):
    return x, min((float(math.isnan(y)) / math.fmod(y, y)), x, x)
""", (np.array([0.0, -1.0, 2.5]), 2.5), True,
        id="division_by_an_unbatched_value_zero_on_its_representative"),
    pytest.param("math_domain_error_of_constants_on_a_branch_no_lane_takes", """
def f(x):
    if x > 100.0:
        z = math.fmod(0.0, 0.0) + x
    else:
        z = x * 2.0
    return z
""", (np.array([0.0, -1.0, 2.5, np.nan]),), True,
        id="math_domain_error_of_constants_on_a_branch_no_lane_takes"),
    # seed 20: inside a compacted loop the batch size that `batch_rules` wrote as `len(x)`
    # (x not gathered by the loop) was the whole batch's, not the lanes still running:
    # "operands could not be broadcast together with shapes (2,) () (3,)"
    pytest.param("batch_size_inside_a_compacted_loop", """
def f(x, y):
    for i0 in range(2):
        v0, v1 = x, x
        n0 = 0
        while n0 < 2 and (v0 < y):
            n0 += 1
            if ((y < y) and (y < y)):
                break
            if (i0 < 1):
                break
    return x
""", (np.array([0.0, 0.0, 0.0, -1.0]), np.array([0.0, 1.0, 1.0, np.nan])), True,
        id="batch_size_inside_a_compacted_loop"),
    # seed 21: the code after an early return is copied into each branch; a loop's mask was
    # per-example in one copy and the same for every lane in another (v2 differs), but it was
    # restricted to the branch's lanes in both, so the uniform copy's `if active:` (a Python
    # `if`) tested an array: "truth value of an array ... is ambiguous"
    pytest.param("loop_mask_uniform_in_one_copy_of_the_code_after_a_return", """
def f(x, y, z):
    v2 = 0.25
    if y < 0:
        x = -x
    elif x > 1:
        return z
    else:
        v2 += z
    if x < z:
        return v2
    else:
        for i0 in range(1):
            if np.signbit(v2):
                break
    return x
""", (np.array([31.5, 3.0, 12.5, 0.5, 2.0, -3.0]), np.array([0.0, 1e-300, -1.0, -2.0, 2.0, 100.0]),
      np.array([-1.0, -1e-12, -1e+300, 100.0, 10.0, -75.3])), True,
        id="loop_mask_uniform_in_one_copy_of_the_code_after_a_return"),
    # issue 13 (vector fuzzer, FINDINGS N1): a masked loop (per-example `break`) rebinds `i`,
    # which an earlier loop that may not have run bound: the batch promotes it before the
    # loop (`i = np.full(len(x), i)`) and raised UnboundLocalError; now a carry that may be
    # unbound starts from a literal where the loop reads it, and is not promoted elsewhere.
    pytest.param("loop_variable_of_a_loop_that_may_not_run_rebound_in_a_masked_loop", """
def f(x):
    for i in range(0):
        pass
    for k in range(3):
        if x > k:
            break
        for i in range(2):
            x = x + 1.0
    return x
""", (np.array([0.5, -3.0, 10.0]),), True,
        id="loop_variable_of_a_loop_that_may_not_run_rebound_in_a_masked_loop"),
]


@pytest.mark.parametrize("name, body, args, must_vectorize", FOUND)
def test_bugs_found_by_the_fuzzer(name, body, args, must_vectorize, writer):
    source = HEADER + "\n" + body.lstrip("\n")
    tree = ast.parse(source)
    f = next(d for d in tree.body if isinstance(d, ast.FunctionDef) and d.name == "f")
    returns = [n for n in ast.walk(f) if isinstance(n, ast.Return)]
    n_out = len(returns[0].value.elts) if isinstance(returns[0].value, ast.Tuple) else 1
    program = Program(source, tuple(a.arg for a in f.args.args), n_out)
    outcome = run_case(program, args, writer)
    assert not outcome.failed, "\n" + format_case(program, args, outcome)
    if must_vectorize:
        assert outcome.kind in ("ok", "vacuous"), "\n" + format_case(program, args, outcome)
