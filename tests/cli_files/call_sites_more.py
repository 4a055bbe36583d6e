"""Loops over examples at call sites, each in a function ``case_*`` (tests/
test_cli_call_sites_more.py runs them as written and as ``python -m vectorize -w`` rewrites
them, and compares the results exactly): the rewriter either leaves a loop as it is or makes
it one batched call that computes the same values of the same types."""

import math
from contextlib import suppress

import numpy as np

from vectorize import vectorize


@vectorize
def ramp(x):
    if x < 0.0:
        return -0.5 * x
    return x * 2.0


@vectorize
def twice(n: int):
    return n * 2


@vectorize
def checked(x):
    if x > 0.5:
        raise ValueError(f"too big: {x}")
    return math.sqrt(x) if x > 0.0 else 0.0


@vectorize
def label(x):
    return "big" if x > 0.5 else "small"


@vectorize
def positive(x):
    return x > 0.0


@vectorize
def same(x):
    return x


@vectorize
def both(x):
    return x, x * 2.0


@vectorize(signature="(n)->()")
def norm(v):
    return np.sqrt(np.sum(v * v))


@vectorize(signature="(n),(n)->()")
def dot(u, v):
    return np.sum(u * v)


@vectorize(signature="(n),(n)->(n)")
def scaled(u, v):
    return u * v


VALUES = [0.25, -1.5, 3.0, -0.0, 1e-300]
MIXED = [1, -2.5, 3]
ROWS = np.linspace(-1.0, 1.0, 12).reshape(4, 3)
OTHER = np.arange(12.0).reshape(4, 3) / 7.0
ROW_LISTS = [[1.0, 2.0, 2.0], [3.0, 4.0, 0.0]]
TABLE = {0.5: "half", -2.0: "minus two"}
SEEN = {3.0, -1.0}
INTS = np.array([1, -2, 3])
SINGLES = np.array([0.5, -2.0], dtype=np.float32)
REBOUND = [1.0, 2.0]
REBOUND_LATER = [f"{v}" for v in REBOUND]


# ---------------------------------------------------------------- rewritten (proven)
def case_module_list():
    return [ramp(x) for x in VALUES]


def case_local_display():
    return [ramp(x) for x in [0.25, -1.0, 4.0]]


def case_local_list_read():
    xs = [0.25, -1.0, 4.0]
    return [same(x) for x in xs], len(xs)


def case_linspace_arithmetic():
    xs = np.linspace(-3.0, 3.0, 13) * 0.5 + 1.0
    return [ramp(x) for x in xs]


def case_ndarray_module():
    return [norm(row) for row in ROWS]


def case_range_int_function():
    return [twice(n) for n in range(-3, 4)]


def case_map():
    return list(map(ramp, np.linspace(-1.0, 1.0, 5)))


def case_map_zip():
    return list(map(dot, ROWS, OTHER))


def case_zip_rows():
    return [dot(u, v) for u, v in zip(ROWS, OTHER)]


def case_zip_rows_out():
    return [scaled(u, v) for u, v in zip(ROWS, OTHER)]


def case_append():
    xs = np.linspace(-1.0, 1.0, 7)
    out = []
    for x in xs:
        out.append(ramp(x))
    return out


def case_array_of_results():
    xs = np.linspace(-1.0, 1.0, 7)
    return np.array([ramp(x) for x in xs])


def case_array_is_a_new_array():
    xs = np.linspace(0.0, 1.0, 4)
    result = np.array([same(x) for x in xs])
    result[0] = 99.0            # the loop's array is new: `xs` keeps its values
    return xs, result


def case_array_of_ints():
    return np.array([twice(n) for n in range(5)])


def case_stack_rows():
    return np.stack([scaled(u, v) for u, v in zip(ROWS, ROWS)])


def case_nested_inner():
    xs = np.linspace(-1.0, 1.0, 3)
    return [[ramp(x) for x in xs] for _ in range(2)]


def case_strings_result():
    return [label(x) for x in np.linspace(0.0, 1.0, 5)]


def case_booleans_result():
    return [positive(x) for x in np.linspace(-1.0, 1.0, 5)]


def case_raises_in_comprehension():
    return [checked(x) for x in np.linspace(0.0, 1.0, 5)]


def case_total():
    xs = np.linspace(-1.0, 1.0, 101)
    total = 0.0
    for x in xs:
        total += ramp(x)
    return total


def case_total_plain_assignment():
    xs = np.linspace(0.1, 0.9, 9) ** 3
    total = 0.0
    for x in xs:
        total = total + ramp(x)
    return total


def case_total_result_first():
    xs = np.linspace(0.1, 0.9, 9) ** 3
    total = 0.0
    for x in xs:
        total = ramp(x) + total
    return total


def case_total_int():
    total = 0
    for n in range(10):
        total += twice(n)
    return total


def case_total_of_nothing():
    xs = np.zeros(0)
    total = 0.0
    for x in xs:
        total += ramp(x)
    return total


def case_product():
    xs = np.linspace(0.5, 1.5, 11)
    product = 1.0
    for x in xs:
        product *= ramp(x)
    return product


def case_max_and_min():
    xs = np.linspace(-1.0, 1.0, 9)
    best = -np.inf
    for x in xs:
        best = max(best, ramp(x))
    worst = math.inf
    for x in xs:
        worst = min(worst, ramp(x))
    return best, worst


def case_zip_total():
    total = 0.0
    for u, v in zip(ROWS, OTHER):
        total += dot(u, v)
    return total


# ---------------------------------------------------------------- left as they are
def over(xs):
    return [ramp(x) for x in xs]


def case_generator():
    return over(v for v in VALUES)


def case_generator_map():
    return list(map(ramp, (v for v in VALUES)))


def case_set():
    return sorted(float(ramp(x)) for x in SEEN), [ramp(x) for x in {2.0, -2.0}]


def case_dict_keys():
    return [ramp(x) for x in TABLE]


def case_mixed_numbers():
    return [same(x) for x in MIXED]         # 1 and 3 give ints back, -2.5 a float


def case_int_array_to_float_function():
    return [ramp(x) for x in INTS]


def case_float32_items():
    return [ramp(x) for x in SINGLES]


def case_row_lists():
    return [norm(row) for row in ROW_LISTS]


def case_name_rebound_later():
    return [ramp(x) for x in REBOUND]


def case_zip_of_other_lengths():
    return [dot(u, v) for u, v in zip(ROWS, OTHER[:2])]


def case_two_fors():
    xs = np.linspace(-1.0, 1.0, 3)
    return [ramp(x) for _ in xs for x in xs]


def case_filtered():
    xs = np.linspace(-1.0, 1.0, 5)
    return [ramp(x) for x in xs if x > 0]


def case_tuple_results():
    return [both(x) for x in np.linspace(0.0, 1.0, 3)]


def case_array_of_ints_maybe_empty():
    return np.array([twice(n) for n in np.arange(0)])


def case_append_in_try():
    xs = np.linspace(0.0, 1.0, 5)
    try:
        out = []
        for x in xs:
            out.append(checked(x))
    except ValueError:
        return out        # the items before the failing one
    return None


def case_total_in_suppress():
    xs = np.linspace(0.0, 1.0, 5)
    with suppress(ValueError):
        total = 0.0
        for x in xs:
            total += checked(x)
    return total          # the sum of the items before the failing one


def case_total_is_an_array():
    total = np.zeros(3)
    for x in np.linspace(0.0, 1.0, 5):
        total += ramp(x)
    return total


def case_max_reversed():
    xs = np.linspace(-1.0, 1.0, 9)
    best = -np.inf
    for x in xs:
        best = max(ramp(x), best)
    return best


def case_loop_variable_read_after():
    total = 0.0
    for x in np.linspace(0.0, 1.0, 3):
        total += ramp(x)
    return total, x


def case_indexed():
    xs = np.linspace(0.0, 1.0, 4)
    out = np.zeros(4)
    for i in range(4):
        out[i] = ramp(xs[i])
    return out


def case_enclosing_name():
    VALUES = {2.0, -2.0}         # not the module's list

    def inner():
        return [ramp(x) for x in VALUES]
    return inner()


def case_local_list_changed():
    xs = [1.0, 2.0]
    xs.append(3)                 # an int item: `same` gives it back as an int
    return [same(x) for x in xs]


def case_closure_reads_the_variable():
    xs = np.linspace(0.0, 1.0, 3)

    def last():
        return x

    out = []
    for x in xs:
        out.append(ramp(x))
    return out, last()


MODULE_OUT = []
for v in np.linspace(0.0, 1.0, 3):
    MODULE_OUT.append(ramp(v))
LAST = v                         # the loop's last item, read at module level


def case_module_level_loop():
    return MODULE_OUT, LAST


def case_numpy_name_is_local():
    np = 3
    return [twice(n) for n in range(np)]


def arange_of(n):
    return [same(x) for x in np.arange(n)]       # ints or floats: as `n` is


def case_items_of_unknown_dtype():
    return arange_of(3), arange_of(2.5)


def case_list_shadowed(list=tuple):
    return list([ramp(x) for x in np.linspace(0.0, 1.0, 3)])
