"""Constructs of issue 20 that were refused (nested `def`/`lambda` called in branches and as
`max`/`min` keys, generator expressions over per-example items, a parameter rebound to its
own copy, appended lists of ints, labels bound on some paths only), each differential:
`vectorize` against numpy.vectorize itself (values and dtype, or the same exception type),
`vmap` against the per-example loop of NumPy scalars (NumPy and PyTorch backends), at
N = 0, 1, 5 and 10,000."""

from __future__ import annotations

import itertools
import math
import sys
import warnings

import numpy as np
import pytest
from batch_sizes import check_sizes
from differential import assert_values_equal, outcome
from hypothesis import given, settings
from hypothesis import strategies as st

from vectorize import VectorizeError, vectorize, vmap

SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -3.0, 7.0, math.nan, math.inf, -math.inf]
floats = st.one_of(st.sampled_from(SPECIAL), st.floats(-20, 20, allow_nan=False))


def same_as_numpy_vectorize(f, *args, excluded=(), bits=False):
    """`vectorize(f)` against numpy.vectorize(f): equal values and dtype (bit for bit where
    ``bits``), or the same exception type."""
    expected, raised = outcome(lambda: np.vectorize(f, excluded=set(excluded))(*args))
    got, got_raised = outcome(lambda: vectorize(f, excluded=set(excluded),
                                                 fallback="error")(*args))
    if raised is not None:
        assert type(got_raised) is type(raised), (raised, got, got_raised)
        return
    assert got_raised is None, got_raised
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    if bits:
        np.testing.assert_array_equal(got, expected)
    assert_values_equal(got, expected)


def check_every_size(f, make, excluded=()):
    """numpy.vectorize's answer at N = 1, 5 and twice at 10,000; the shape at N = 0."""
    empty = make(0)
    got = vectorize(f, excluded=set(excluded), fallback="error")(*empty)
    assert np.shape(got) == (0,)
    for n in (1, 5, 10_000, 10_000):
        same_as_numpy_vectorize(f, *make(n), excluded=excluded)


def pairs(n, seed=0):
    rng = np.random.default_rng(seed + n)
    x = np.round(rng.uniform(-6, 6, n), 1)
    y = np.round(rng.uniform(-6, 6, n), 1)
    special = rng.random(n) < 0.05
    x[special] = rng.choice([0.0, -0.0, math.inf, -math.inf, math.nan], special.sum())
    return x, y


# ------------------------------------------------------------- 1. nested def and lambda
def closure_with_statements_in_branches(x, y):
    def g(t):
        u = t * y
        if u > 1:
            u = u - 1
        return u
    if x > 0:
        return g(x)
    return g(-x) + g(y)


def closure_in_a_conditional_expression(x, y):
    def g(t):
        u = t * y
        return 1.0 / u
    return g(x) * 2 if x * y != 0 else g(1.0) if y != 0 else 0.0


def closure_of_a_closure(x, y):
    f = lambda t: t * y + 1      # noqa: E731 -- the construct under test
    return f(f(x)) - f(y)


def closure_called_in_a_loop(x, y):
    def step(t):
        half = t * 0.5
        return half + y * 0.1
    t = x
    for _ in range(4):
        t = step(t)
    return t


def closure_called_in_a_while(x, y):
    f = lambda t: t * 0.5 + y      # noqa: E731 -- the construct under test
    n = 0
    t = x
    while abs(t - y) > 1e-3 and n < 40:
        t = f(t) - y
        n += 1
    return t + n


def max_of_a_list_by_a_lambda(x, y):
    vals = [x, y, x * y]
    return max(vals, key=lambda v: v * v)


def min_of_arguments_by_abs(x, y):
    return min(x, y, -x, key=abs)


def min_of_a_display_by_a_closure(x, y):
    def dist(v):
        return abs(v - y)
    return min((x, 0.5, -1.0, y + 1), key=dist) + 1


def max_by_a_helper_in_a_branch(x, y):
    if x > y:
        best = max([x, y - 1, 2.0], key=_distance_to_one)
    else:
        best = y
    return best


def _distance_to_one(v):
    return abs(v - 1.0)


NESTED = [closure_with_statements_in_branches, closure_in_a_conditional_expression,
          closure_of_a_closure, closure_called_in_a_loop,
          closure_called_in_a_while, max_of_a_list_by_a_lambda, min_of_arguments_by_abs,
          min_of_a_display_by_a_closure, max_by_a_helper_in_a_branch]


@pytest.mark.parametrize("f", NESTED, ids=lambda f: f.__name__)
def test_nested_functions_at_every_size(f):
    check_every_size(f, pairs)


@pytest.mark.parametrize("f", NESTED, ids=lambda f: f.__name__)
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_nested_functions_on_special_values(f, data):
    n = data.draw(st.integers(1, 6))
    x = np.array(data.draw(st.lists(floats, min_size=n, max_size=n)))
    y = np.array(data.draw(st.lists(floats, min_size=n, max_size=n)))
    same_as_numpy_vectorize(f, x, y)


@pytest.mark.parametrize("f", NESTED, ids=lambda f: f.__name__)
def test_nested_functions_under_vmap(f):
    check_sizes(vmap(f, fallback="error"), f, pairs, sizes=(0, 1, 5), large=10_000,
                repeats=2)


def test_a_closure_in_the_branch_not_taken_raises_nothing():
    x, y = np.array([0.0, 2.0, 3.0]), np.array([0.0, 0.0, 1.0])
    got = vectorize(closure_in_a_conditional_expression, fallback="error")(x, y)
    np.testing.assert_array_equal(got, [closure_in_a_conditional_expression(a, b)
                                        for a, b in zip(x.tolist(), y.tolist())])


def test_key_ties_keep_the_first_item_as_python_does():
    # |-2| == |2|: max keeps the first of the tied items, min too; a NaN key never wins
    x = np.array([2.0, -2.0, math.nan, 0.0, -0.0])
    y = np.array([-2.0, 2.0, 1.0, -0.0, 0.0])
    for f in (min_of_arguments_by_abs, max_of_a_list_by_a_lambda):
        got = vectorize(f, fallback="error")(x, y)
        want = np.array([f(a, b) for a, b in zip(x.tolist(), y.tolist())])
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def int_items_by_a_lambda(n, m):
    return max([n, m, n - m], key=lambda v: v % 3)


def test_a_key_over_ints_keeps_ints():
    n = np.arange(-6, 6)
    m = n[::-1].copy()
    same_as_numpy_vectorize(int_items_by_a_lambda, n, m)
    assert vectorize(int_items_by_a_lambda)(n, m).dtype == np.int64


def test_nested_functions_on_torch():
    torch = pytest.importorskip("torch")
    x, y = pairs(7, seed=3)
    for f in (min_of_arguments_by_abs,):
        xt, yt = torch.tensor(x), torch.tensor(y)
        got = vmap(f, fallback="error")(xt, yt)
        want = torch.stack([torch.as_tensor(f(a, b)) for a, b in zip(xt, yt)])
        assert torch.equal(torch.nan_to_num(got), torch.nan_to_num(want.to(got.dtype)))


def returned_closure(x, y):
    def g(t):
        return t * y
    return g


def stored_closure(x, y):
    def g(t):
        return t * y
    fs = [g, g]
    return fs[0](x)


def closure_with_nonlocal(x, y):
    acc = 0.0

    def add(t):
        nonlocal acc
        acc += t
    add(x)
    add(y)
    return acc


def sorted_of_five_items(x, y):
    s = sorted((x, y, x + y, x - y, 2.0 * y))       # (at most 4 items are written out)
    return s[0] - s[2]


@pytest.mark.parametrize("f, line, why", [
    (returned_closure, "def g", "is returned"),
    (stored_closure, "def g", "stored or passed"),
    (closure_with_nonlocal, "def add", "nonlocal"),
    (sorted_of_five_items, "sorted(", "sorted")], ids=lambda v: getattr(v, "__name__", ""))
def test_nested_functions_that_escape_are_refused_where_they_are(f, line, why):
    x, y = pairs(3)
    with pytest.raises(VectorizeError) as info:
        vectorize(f, fallback="error")(x, y)
    message = str(info.value)
    assert line in message and why in message.splitlines()[0]
    assert f"{__file__.rsplit('/', 1)[-1]}:" in message


def sorted_pair(x, y):
    s = sorted([x, y])
    return s[0] - 2 * s[1]


def sorted_by_a_key(x, y):
    a, b, c = sorted((x, y, x + y), key=abs)
    return a + 2 * b + 4 * c


def sorted_list_of_four(x, y):
    vals = [x, y, 1.0, x * y]
    s = sorted(vals)
    return s[0] + 2 * s[1] + 4 * s[2] + 8 * s[3]


def sorted_by_a_lambda(x, y):
    s = sorted([x, y, -x, 0.5], key=lambda v: abs(v - y))
    return s[0] + 2 * s[1] + 4 * s[2] + 8 * s[3]


SORTS = [sorted_pair, sorted_by_a_key, sorted_list_of_four, sorted_by_a_lambda]


@pytest.mark.skipif(sys.version_info[:2] > (3, 13), reason="a CPython after 3.13 may sort "
                    "NaN keys differently: sorted stays refused there")
@pytest.mark.parametrize("f", SORTS, ids=lambda f: f.__name__)
def test_sorted_puts_every_item_where_python_does(f):
    """Every pair of special values (NaN keys, ties, signed zeros): the order CPython's sort
    gives, under vectorize and vmap; and numpy.vectorize at every size."""
    special = [0.0, -0.0, 1.0, -1.0, 2.0, math.nan, math.inf, 0.5]
    x, y = (np.array(v) for v in zip(*itertools.product(special, special)))
    same_as_numpy_vectorize(f, x, y, bits=True)
    with np.errstate(all="ignore"):      # (inf - inf on NumPy scalars warns, per example too)
        got = vmap(f, fallback="error")(x, y)
        want = np.array([f(a, b) for a, b in zip(x, y)])
    np.testing.assert_array_equal(got, want)
    check_every_size(f, pairs)


def countdown(t):
    """A module function of the same name as the nested one below."""
    return 100.0


def recursive_closure_named_like_a_global(x, y):
    def countdown(t):
        return y if t <= 0 else countdown(t - 1) * 2
    return countdown(x)


def fact(n):
    return 0


def recursive_helper_named_like_a_global(x, y):
    def fact(n):
        return 1 if n <= 1 else n * fact(n - 1)
    return fact(3) * x


@pytest.mark.parametrize("f", [recursive_closure_named_like_a_global,
                               recursive_helper_named_like_a_global],
                         ids=lambda f: f.__name__)
def test_a_recursive_nested_function_is_refused_not_bound_to_a_global(f):
    """fix: the inlined (or hoisted) body of a nested function that calls itself called the
    module's function of that name instead (200.0 where Python gives 8.0; 0.0 where it gives
    15.0): refused, where it is defined, naming the recursion."""
    x, y = np.array([2.5, -1.0]), np.array([1.0, 3.0])
    with pytest.raises(VectorizeError, match="calls itself"):
        vectorize(f, fallback="error")(x, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = vectorize(f, fallback="warn")(x, y)
    np.testing.assert_array_equal(got, np.vectorize(f)(x, y))


# ------------------------------------------------------------ 2. generator expressions
COEFFS = (1.0, 0.5, -0.25, 0.125)


def poly(x, y):
    return sum(c * x * i for i, c in enumerate(COEFFS)) + y


def largest_magnitude(x, y):
    a = x + y
    return max(abs(v) for v in (a, x - y, -y))


def any_above(x, y):
    return 1.0 if any(v > 1 for v in (x, y, x * y)) else 0.0


def all_above(x, y):
    return 1.0 if all(v > 1 for v in (x, -y)) else 0.0


def doubled_tuple(x, y):
    t = tuple(v * 2 for v in (x, y - x))
    return t[0] - t[1]


def smallest_multiple(x, y):
    return min(x * i - y for i in range(1, 4))


def cancelling_sum(x, y):
    return sum(v for v in (x, 1e16, -1e16, y))


def long_sum(x, y):
    return sum([x, y, x * y, 0.1, -x, 0.7, y * 3, 1e-3, x + 1, 1e5, 0.3, x / 3])


def long_generator_sum(x, y):
    return sum(v * 0.1 for v in (x - y, x + y, -x, y * x, 0.1, 1e16, x * 1e-3, y, x, 1.5,
                                 -1e16, x - 1))


GENERATORS = [poly, largest_magnitude, any_above, all_above, doubled_tuple, smallest_multiple,
              cancelling_sum, long_sum, long_generator_sum]


@pytest.mark.parametrize("f", GENERATORS, ids=lambda f: f.__name__)
def test_generators_at_every_size(f):
    check_every_size(f, pairs)


@pytest.mark.parametrize("f", GENERATORS, ids=lambda f: f.__name__)
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_generators_on_special_values(f, data):
    n = data.draw(st.integers(1, 6))
    x = np.array(data.draw(st.lists(floats, min_size=n, max_size=n)))
    y = np.array(data.draw(st.lists(floats, min_size=n, max_size=n)))
    same_as_numpy_vectorize(f, x, y)


@pytest.mark.parametrize("f", [cancelling_sum, long_sum, long_generator_sum, poly],
                         ids=lambda f: f.__name__)
def test_sums_of_floats_add_left_to_right(f):
    """Python's sum of floats adds from the left: bit-equal, not a pairwise np.sum (which
    differs in the last bits once there are 8 items or more)."""
    rng = np.random.default_rng(5)
    x, y = rng.normal(size=2000) * 1e3, rng.normal(size=2000)
    same_as_numpy_vectorize(f, x, y, bits=True)
    got = vectorize(f, fallback="error")(x, y)
    want = np.array([f(a, b) for a, b in zip(x.tolist(), y.tolist())])
    assert np.array_equal(got, want)


@pytest.mark.parametrize("f", GENERATORS, ids=lambda f: f.__name__)
def test_generators_under_vmap(f):
    check_sizes(vmap(f, fallback="error"), f, pairs, sizes=(0, 1, 5), large=10_000,
                repeats=2)


# --------------------------------------------------------------- 3. a parameter's copy
def rebound_copy(v, x):
    v = v.copy()
    v[0] = x
    return v.sum()


def rebound_array(v, x):
    v = np.array(v)
    if x > 0:
        v[1] = x
    return v[0] * v[1] + v[2]


def rebound_plus_zero(v, x):
    v = v + 0
    v[2] = v[0] - x
    return v.sum()


def rebound_then_updated(v, x):
    v = v.copy()
    v += x
    return v[0] - v[2]


def copy_under_a_name_of_its_own(v, x):
    a = v.copy()
    for i in range(3):
        a[i] = a[i] * x
    return a.sum() + v[0]


def rebound_list(v, x):
    v = list(v)
    v[1] = x
    return v[0] * v[1] + v[2]


def list_of_its_own(v, x):
    a = list(v)
    if x > 0:
        a[0] = x
    return a[0] + a[1] - a[2] + v[0]


COPIES = [rebound_copy, rebound_array, rebound_plus_zero, rebound_then_updated,
          copy_under_a_name_of_its_own, rebound_list, list_of_its_own]


def shared_and_scalars(n, seed=0):
    rng = np.random.default_rng(seed + n)
    return np.array([1.5, -2.0, 3.0]), np.round(rng.uniform(-4, 4, n), 1)


def rows_and_scalars(n, seed=0):
    rng = np.random.default_rng(seed + n)
    return np.round(rng.uniform(-4, 4, (n, 3)), 1), np.round(rng.uniform(-4, 4, n), 1)


@pytest.mark.parametrize("f", COPIES, ids=lambda f: f.__name__)
def test_copies_of_a_shared_argument(f):
    v = np.array([1.5, -2.0, 3.0])
    check_every_size(f, shared_and_scalars, excluded=(0,))
    np.testing.assert_array_equal(v, shared_and_scalars(1)[0])


@pytest.mark.parametrize("f", COPIES, ids=lambda f: f.__name__)
def test_copies_of_a_per_example_argument_leave_it_unchanged(f):
    v, x = rows_and_scalars(5)
    before = v.copy()
    got = vmap(f, fallback="error")(v, x)
    np.testing.assert_array_equal(v, before)
    want = np.array([f(v[i].copy(), x[i]) for i in range(5)])
    assert_values_equal(got, want)
    check_sizes(vmap(f, fallback="error"), f, rows_and_scalars, sizes=(0, 1, 5),
                large=10_000, repeats=2)
    g = vectorize(f, signature="(n),()->()", fallback="error")
    assert_values_equal(g(v, x), np.vectorize(f, signature="(n),()->()")(v.copy(), x))
    np.testing.assert_array_equal(v, before)


def test_copies_on_torch():
    torch = pytest.importorskip("torch")
    v, x = rows_and_scalars(6)
    vt, xt = torch.tensor(v), torch.tensor(x)

    def cloned(v, x):
        v = v.clone()
        v[0] = x
        return v.sum()
    got = vmap(cloned, fallback="error")(vt, xt)
    want = torch.stack([cloned(vt[i], xt[i]) for i in range(6)])
    assert torch.allclose(got, want)
    assert torch.equal(vt, torch.tensor(v))


def writes_the_argument(v, x):
    v[0] = x
    return v.sum()


def copies_on_one_branch(v, x):
    if x > 0:
        v = v.copy()
    v[0] = x
    return v.sum()


def copies_after_the_write(v, x):
    v[0] = x
    v = v.copy()
    return v.sum()


def copies_then_rebinds(v, w, x):
    v = v.copy()
    v = w
    v[0] = x
    return v.sum()


@pytest.mark.parametrize("f", [writes_the_argument, copies_on_one_branch,
                               copies_after_the_write, copies_then_rebinds],
                         ids=lambda f: f.__name__)
def test_writes_into_the_callers_array_stay_refused(f):
    v, x = rows_and_scalars(4)
    args = (v, v.copy(), x) if f is copies_then_rebinds else (v, x)
    with pytest.raises(VectorizeError, match="writing into `v`"):
        vmap(f, fallback="error")(*args)


# -------------------------------------------------------------- 4. appended int lists
def appended_ints(n, m):
    out = []
    for i in range(3):
        out.append(n * i + m)
    return out[0] + out[1] * out[2]


def appended_powers(n, m):
    out = []
    out.append(n ** 3)
    out.append(m)
    return out[0] * out[1]


def appended_under_conditions(n, m):
    out = [m]
    for k in (1, 2, 3):
        if n > k:
            out.append(n // k - m % k)
    return sum(out) + max(out) * len(out)


def appended_abs(n, m):
    out = []
    for i in range(4):
        out.append(abs(n - i) * m)
    return min(out) - out[-1]


APPENDED = [appended_ints, appended_powers, appended_under_conditions, appended_abs]


def ints(n, seed=0):
    rng = np.random.default_rng(seed + n)
    return rng.integers(-50, 50, n), rng.integers(-50, 50, n)


@pytest.mark.parametrize("f", APPENDED, ids=lambda f: f.__name__)
def test_appended_ints_keep_int_dtype(f):
    check_every_size(f, ints)
    assert vectorize(f, fallback="error")(*ints(5)).dtype == np.int64


@pytest.mark.parametrize("f", APPENDED, ids=lambda f: f.__name__)
def test_appended_ints_under_vmap(f):
    check_sizes(vmap(f, fallback="error"), f, ints, sizes=(0, 1, 5), large=10_000,
                repeats=2)


@pytest.mark.parametrize("n, m", [([1, 3_000_000_000, 5], [2, 3_000_000_000, 4]),
                                  ([2 ** 62, 1], [2 ** 62, 3])])
@pytest.mark.parametrize("f", [appended_ints, appended_powers], ids=lambda f: f.__name__)
def test_python_ints_do_not_wrap(f, n, m):
    """Python's ints are exact: where the result does not fit the output numpy.vectorize
    raises OverflowError, and so does the batch (never a wrapped int64)."""
    n, m = np.array(n), np.array(m)
    same_as_numpy_vectorize(f, n, m)
    # (numpy.vectorize calls f on the first example's NumPy scalars first, to find the
    # output's dtype: those may wrap, with a warning; then on Python ints)
    with pytest.raises(OverflowError), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        np.vectorize(f)(n, m)


def appended_int_then_float(n, x):
    out = []
    for i in range(3):
        out.append(n * i)
    out.append(x)
    return sum(out)


def test_a_list_of_ints_and_floats_stays_refused():
    with pytest.raises(VectorizeError, match="list `out`"):
        vectorize(appended_int_then_float, fallback="error")(np.arange(3), np.ones(3))


# -------------------------------------------------------- 5. labels bound on some paths
def phase_label(p, t):
    if p < 1.0:
        phase = "liquid"
    elif p >= 1.0:
        phase = "vapor"
    if phase == "liquid":
        return t
    return -t


def region_number(p, t):
    if p < 1.0:
        region = 1
    elif p < 5.0:
        region = 2
    elif p < 50.0:
        region = 3
    return region * t


@pytest.mark.parametrize("f", [phase_label, region_number], ids=lambda f: f.__name__)
def test_labels_bound_on_some_paths(f):
    def make(n, seed=0):
        rng = np.random.default_rng(seed + n)
        p = rng.uniform(-2, 40, n)
        p[rng.random(n) < 0.05] = math.nan     # NaN takes no branch: unbound
        return p, rng.normal(size=n)
    check_every_size(f, make)
    x = np.array([0.5, 2.0, 60.0])
    same_as_numpy_vectorize(f, x, np.ones(3))      # (60.0: UnboundLocalError for region)
    same_as_numpy_vectorize(f, x[:2], np.ones(2))


# ------------------------------------------------------------ 6. methods of a number
def sum_of_an_array(a, b):
    return np.array([a, b, a * b]).sum() + np.array([a, b]).mean()


def sum_of_a_float(a, b):
    c = a + b
    return c.sum()


def test_methods_of_an_array_built_in_the_body():
    check_every_size(sum_of_an_array, pairs)
    check_sizes(vmap(sum_of_an_array, fallback="error"), sum_of_an_array, pairs,
                sizes=(0, 1, 5), large=10_000, repeats=2)


def test_methods_of_a_python_float_raise_as_python_raises():
    x, y = pairs(3)
    with pytest.raises(AttributeError):
        np.vectorize(sum_of_a_float)(x, y)
    # (the batch raises where an example gets to the method)
    with pytest.raises(AttributeError, match="'float' object has no attribute 'sum'"):
        vectorize(sum_of_a_float, fallback="error")(x, y)
    # vmap hands NumPy scalars, which have the method
    check_sizes(vmap(sum_of_a_float, fallback="error"), sum_of_a_float, pairs,
                sizes=(0, 1, 5), large=10_000, repeats=2)
