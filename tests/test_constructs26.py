"""Constructs of issue 20 that were refused: closures and lambdas passed to the user's own
helpers (a root finder written in the same package), `sorted` on CPython 3.13; each
differential: `vectorize` against numpy.vectorize itself (values and dtype, or the same
exception type), `vmap` against the per-example loop of NumPy scalars, at N = 0, 1, 5 and
10,000."""

from __future__ import annotations

import itertools
import math
import sys

import numpy as np
import pytest
from differential import assert_values_equal
from test_constructs21 import same_as_numpy_vectorize

from vectorize import VectorizeError, vectorize, vmap
from vectorize.body_constructs import keyed

NAN = math.nan

# ------------------------------------------------------------------ sorted on CPython 3.13

# CPython 3.13.0's `sorted(range(n), key=keys.__getitem__)` on keys where its sort and 3.12's
# put NaN keys in different places (recorded by running 3.13; 3.12 gives other orders)
SORTED_BY_313 = [
    ((1.0, 0.0, NAN, 1.0), [1, 2, 3, 0]),
    ((NAN, 1.0, 1.0, 0.0), [3, 0, 1, 2]),
    ((NAN, 2.0, 2.0, 1.0), [3, 0, 1, 2]),
    ((NAN, 2.0, 0.0), [2, 0, 1]),
    ((2.0, 0.0, NAN, 2.0), [1, 2, 3, 0]),
    ((1.0, 0.0, NAN, 0.0), [1, 2, 3, 0]),
    ((NAN, 0.0, 2.0, 1.0), [3, 0, 1, 2]),
    ((2.0, NAN, 2.0, 1.0), [3, 0, 1, 2]),
    ((NAN, 0.0, 2.0, 0.0), [3, 0, 1, 2]),
    ((NAN, 2.0, 0.0, 2.0), [2, 0, 1, 3]),
    ((2.0, 2.0, 0.0, NAN), [2, 3, 0, 1]),
    ((2.0, 0.0, 0.0, NAN), [1, 2, 3, 0]),
]


def _leaf(tree, keys):
    while tree[0] == "cmp":
        _, i, j, less, otherwise = tree
        tree = less if keys[i] < keys[j] else otherwise
    return tree[1]


@pytest.mark.parametrize(("keys", "order"), SORTED_BY_313)
def test_the_313_decision_tree_gives_313s_order(keys, order):
    """The tree `sorted` is written out as, for 3.13's run detection, ends where CPython
    3.13 puts each item; 3.12's tree, for these keys, does not."""
    assert _leaf(keyed._decisions(len(keys), through_equal=True), keys) == order
    assert _leaf(keyed._decisions(len(keys), through_equal=False), keys) != order


def test_the_decision_tree_of_the_running_python_is_its_sort():
    """Every list of up to 5 keys of 0, -0, 1, 2 and NaN: the running interpreter's order."""
    assert keyed.SORTS == (sys.version_info[:2] <= (3, 13))
    for n in range(6):
        tree = keyed._decisions(n)
        for keys in itertools.product([0.0, -0.0, 1.0, 2.0, NAN], repeat=n):
            assert _leaf(tree, keys) == sorted(range(n), key=keys.__getitem__), keys


# ------------------------------------------- closures and lambdas handed to the user's helpers

def newton(f, fprime, x0, tol=1e-12, maxiter=60):
    """A root finder of the package's own, as real code writes one."""
    x = x0
    for _ in range(maxiter):
        step = f(x) / fprime(x)
        x = x - step
        if abs(step) < tol:
            return x
    raise RuntimeError("did not converge")


def bisect(f, lo, hi, n=60):
    flo = f(lo)
    for _ in range(n):
        mid = 0.5 * (lo + hi)
        fm = f(mid)
        if (fm < 0) == (flo < 0):
            lo = mid
            flo = fm
        else:
            hi = mid
    return 0.5 * (lo + hi)


def around(f, x0):
    """A helper handing its function on to another one."""
    return bisect(f, x0 - 1.0, x0 + 10.0)


def integrate(f, a, b, n=8):
    h = (b - a) / n
    s = 0.5 * (f(a) + f(b))
    for i in range(1, n):
        s += f(a + i * h)
    return s * h


def apply_twice(g, t):
    return g(g(t))


def kepler(M, e):
    def f(E):
        return E - e * math.sin(E) - M

    def fp(E):
        return 1.0 - e * math.cos(E)
    return newton(f, fp, M)


def cube_root(y):
    return bisect(lambda t: t ** 3 - y, 0.0, 10.0)


def cube_root_around(y):
    return around(lambda t: t * t * t - y, 0.0)


def power_area(k, p):
    return integrate(lambda t, k=k: k * t ** p, 0.0, 1.0)


def several_statements(a, b):
    def f(x):
        u = x * a
        v = u - b
        return v * v
    return integrate(f, 0.0, 2.0)


def reciprocal_area(a, b):
    """1 / (t - a) on the integration points: ZeroDivisionError where one hits `a`."""
    return integrate(lambda t: 1.0 / (t - a), 0.0, 1.0, 4) + b


def moments(a, b):
    return sum([integrate(lambda t: t ** k * a + b, 0.0, 1.0) for k in range(3)])  # noqa: B023


def called_and_handed(a, b):
    def f(x):
        return a * x + b
    return f(2.0) + integrate(f, 0.0, 1.0) + apply_twice(f, b)


def read_where_called(a, b):
    c = a
    def f(x):  # noqa: E306
        return x + c
    c = 2.0 * a + b
    return integrate(f, 0.0, 1.0)


def defaults_in_a_loop(a, b):
    total = 0.0
    for j in range(3):
        total += integrate(lambda t, j=j: t * j + a * b, 0.0, 1.0)
    return total


def under_a_condition(a, b):
    if a > 0:
        r = integrate(lambda t: math.sqrt(t * a) - b, 0.0, 1.0)
    else:
        r = -1.0
    return r


CLOSURES = [several_statements, reciprocal_area, moments, called_and_handed,
            read_where_called, defaults_in_a_loop, under_a_condition]


def _pairs(n, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-3, 3, n)
    b = rng.uniform(-3, 3, n)
    if n >= 5:
        a[:5] = [0.0, 0.25, -1.0, 0.5, 1.0]     # (1 / (t - a) meets a zero at 0, 0.25, ...)
    return a, b


def _every_size(f, make):
    """numpy.vectorize's answer (values and dtype, or the exception type) at N = 1, 5 and
    twice at 2,000 (one decorated function, called again); the shape at N = 0."""
    batched = vectorize(f, fallback="error")
    assert batched(*make(0)).shape == (0,)
    for n in (1, 5, 2000, 2000):
        args = make(n)
        try:
            with np.errstate(all="ignore"):
                want = np.vectorize(f)(*args)
        except Exception as exc:  # noqa: BLE001 -- the type is compared
            with pytest.raises(type(exc)):
                batched(*args)
            continue
        got = batched(*args)
        assert got.dtype == want.dtype
        assert_values_equal(got, want)


def _same_as_the_loop(f, *args):
    with np.errstate(all="ignore"):
        got = vmap(f, fallback="error")(*args)
        want = np.array([f(*row) for row in zip(*args)], dtype=np.float64)
    np.testing.assert_allclose(got, want, rtol=1e-12, equal_nan=True)


@pytest.mark.parametrize("f", CLOSURES, ids=lambda f: f.__name__)
def test_closures_handed_to_helpers_match_numpy_vectorize(f):
    _every_size(f, _pairs)
    a, b = _pairs(40, seed=1)
    if f is not reciprocal_area:
        _same_as_the_loop(f, a[5:], b[5:])


def test_a_root_finder_given_two_closures_and_a_lambda_given_to_helpers():
    rng = np.random.default_rng(2)
    cases = [(kepler, lambda n: (rng.uniform(0, 6, n), rng.uniform(0, 0.9, n))),
             (cube_root, lambda n: (rng.uniform(0, 900, n),)),
             (cube_root_around, lambda n: (rng.uniform(0, 900, n),)),
             (power_area, lambda n: (rng.uniform(0, 3, n), rng.integers(0, 4, n)))]
    for f, make in cases:
        batched = vectorize(f, fallback="error")
        assert batched(*make(0)).shape == (0,)
        for n in (1, 5, 300):
            args = make(n)
            want = np.vectorize(f)(*args)
            got = batched(*args)
            assert got.dtype == want.dtype
            assert_values_equal(got, want)
        _same_as_the_loop(f, *make(20))


def test_the_helper_is_written_with_the_closure_bound_in():
    source = vectorize(cube_root, fallback="error").source(np.array([1.0, 8.0]))
    assert "def bisect(y, lo, hi" in source and "return bisect(y, 0.0, 10.0)" in source
    assert "lambda" not in source and "f(" not in source


def test_rebinding_the_helper_makes_a_new_specialization():
    global integrate
    f = vectorize(several_statements, fallback="error")
    a, b = _pairs(5)
    first = f(a, b)
    kept = integrate
    try:
        integrate = ends
        assert_values_equal(f(a, b), np.vectorize(several_statements)(a, b))
        assert not np.allclose(f(a, b), first)
    finally:
        integrate = kept


def ends(f, a, b):
    return f(a) + f(b)


def captured_then_rebound(a, b):
    c = a
    def f(x, c=c):  # noqa: E306
        return x + c
    c = b
    return integrate(f, 0.0, 1.0)


def test_a_default_rebound_after_the_definition_stays_refused():
    a, b = _pairs(5)
    with pytest.raises(VectorizeError, match="passed to `integrate` and cannot be bound") \
            as info:
        vectorize(captured_then_rebound, fallback="error")(a, b)
    assert "test_constructs26.py:" in str(info.value)


# ------------------------------------------- a name None on some paths, with a `try` around

def _saturation(h):
    if h > 3.0:
        raise NotImplementedError("outside the fit")
    return 2.0 * h


def region_of(p, h):
    """A steam-table region lookup: None outside every region, a `try` in one branch."""
    region = None
    if 0.0 <= p <= 10.0:
        if h <= 1.0:
            region = 1
        elif 1.0 < h < 4.0:
            try:
                limit = _saturation(h)
            except NotImplementedError:
                limit = 5.0
            if p < limit:
                region = 4
            else:
                region = 3
        elif h <= 6.0:
            region = 2
    elif 10.0 < p <= 20.0 and h < 5.0:
        region = 5
    return region


def region_checked(p, h):
    r = region_of(p, h)
    if r is None:
        return -1
    return r * 10


def test_a_region_none_on_some_paths_with_a_try_is_vectorized():
    """numpy.vectorize's answer: ints where every example has a region; an object array
    where the first example has none; its TypeError where a later one has none."""
    rng = np.random.default_rng(4)
    inside = vectorize(region_of, fallback="error")
    checked = vectorize(region_checked, fallback="error")
    for n in (1, 5, 2000):
        p, h = rng.uniform(0, 10, n), rng.uniform(0, 6, n)
        same_as_numpy_vectorize(region_of, p, h)
        assert_values_equal(inside(p, h), np.vectorize(region_of)(p, h))
        p2, h2 = rng.uniform(-5, 25, n), rng.uniform(-1, 8, n)
        same_as_numpy_vectorize(region_of, p2, h2)
        same_as_numpy_vectorize(region_checked, p2, h2)
        assert_values_equal(checked(p2, h2), np.vectorize(region_checked)(p2, h2))
    # the first example has no region: an object array, as numpy.vectorize gives
    p, h = np.array([-1.0, 5.0, 15.0]), np.array([0.5, 0.5, 1.0])
    got, want = inside(p, h), np.vectorize(region_of)(p, h)
    assert got.dtype == want.dtype == object and list(got) == list(want)
    # a later one has none: numpy.vectorize's TypeError
    with pytest.raises(TypeError):
        inside(p[::-1], h[::-1])
    assert inside(np.zeros(0), np.zeros(0)).shape == (0,)
    with np.errstate(all="ignore"):
        _same_as_the_loop(region_checked, p2, h2)


# ------------------------------------------- calls in a `try` through a lazy-import wrapper

def lambertw(*args, **kwargs):
    """A lazy-import wrapper, as fluids writes one."""
    from scipy.special import lambertw
    return lambertw(*args, **kwargs)


def colebrook_like(re, ed):
    try:
        sub = 0.15872763924382155 * 10.0 ** (0.10767739851405189 * ed * re) * re * re
        if math.isinf(sub):
            raise OverflowError
        term = float(lambertw(1.1512925464970229 * math.sqrt(sub)).real)
        den = 2.302585092994046 * ed * re - 18.574 * term
        return 457.28006463294372 / (den * den)
    except OverflowError:
        return -1.0


def test_a_scipy_function_through_a_lazy_wrapper_inside_a_try():
    """`lambertw` raises nothing on numbers and returns NumPy values (its `.real` is
    quiet): the `try` is lowered; lanes whose power overflows take the handler, lanes
    with a negative argument raise math's ValueError, as the loop does."""
    pytest.importorskip("scipy.special")
    rng = np.random.default_rng(5)
    f = vectorize(colebrook_like, fallback="error")
    assert f(np.zeros(0), np.zeros(0)).shape == (0,)
    for n in (1, 5, 2000):
        re = np.exp(rng.uniform(np.log(1e3), np.log(1e8), n))
        ed = np.exp(rng.uniform(np.log(1e-6), np.log(0.05), n))
        if n >= 5:
            ed[:3] = [2.0, 0.04, 1e-5]          # (10 ** 2e7 overflows: the handler)
            re[:3] = [1e7, 1e8, 1e4]
        with np.errstate(all="ignore"):     # (numpy.vectorize's first call: NumPy scalars)
            want = np.vectorize(colebrook_like)(re, ed)
        got = f(re, ed)
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-12)
    same_as_numpy_vectorize(colebrook_like, np.array([1e5, -1e5]), np.array([1e-4, 1e-4]))


# ------------------------------------------------------- lists appended bool parameters

def count_flags(b, x):
    out = []
    for k in range(3):
        if x > k:
            out.append(b)
    return sum(out) + len(out)


def any_flag(b, x):
    out = [b]
    if x > 1:
        out.append(x > 2)
    return max(out)


@pytest.mark.parametrize("f", [count_flags, any_flag], ids=lambda f: f.__name__)
def test_lists_appended_bool_parameters(f):
    """A list of a bool parameter's values (and comparisons): bools per example, summed to
    an int as Python sums them; numpy.vectorize's values and dtype, the loop's under vmap."""
    rng = np.random.default_rng(6)

    def make(n):
        return rng.random(n) < 0.5, rng.uniform(-1, 4, n)
    _every_size(f, make)
    b, x = make(50)
    got = vmap(f, fallback="error")(b, x)
    want = np.array([f(p, q) for p, q in zip(b, x)])
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)


# ------------------------------------------------ lists appended NumPy ints of other dtypes

def scaled_counts(n, x):
    out = []
    for k in range(3):
        if x > k:
            out.append(n * k + 1)
    return sum(out) + len(out)


def test_lists_appended_narrow_ints_stay_refused():
    """Not followed yet under vmap, refused where the item is written: `len(out)` is a
    Python int per example, which int8 arithmetic keeps int8 (NEP 50) and an int64 array of
    lengths would not."""
    n, x = np.array([1, 2], dtype=np.int8), np.array([0.5, 2.5])
    with pytest.raises(VectorizeError, match="the list `out`") as info:
        vmap(scaled_counts, fallback="error")(n, x)
    assert "test_constructs26.py:" in str(info.value)


def test_lists_appended_narrow_ints_vectorize_as_numpy_vectorize():
    """numpy.vectorize computes the examples on Python ints and types its output by a first
    call on NumPy scalars (int8 here), which `vectorize` makes too: the same values and
    dtype, and numpy.vectorize's OverflowError where a sum does not fit the int8 output."""
    n, x = np.array([1, 2, -3, 7], dtype=np.int8), np.array([0.5, 2.5, 1.5, -1.0])
    got = vectorize(scaled_counts, fallback="error")(n, x)
    want = np.vectorize(scaled_counts)(n, x)
    assert got.dtype == want.dtype == np.int8
    np.testing.assert_array_equal(got, want)
    big = np.array([1, 100], dtype=np.int8), np.array([0.5, 2.5])
    with pytest.raises(OverflowError):
        np.vectorize(scaled_counts)(*big)
    with pytest.raises(OverflowError):
        vectorize(scaled_counts, fallback="error")(*big)


# ------------------------------------- a `try` the engine cannot lower, in a branch never run

def by_mode(x, mode=None):
    if mode == -1:
        return x
    elif mode == 0:
        try:
            from math import lgamma as exact
        except ImportError:
            return -1.0
        return exact(x)
    try:
        return 1.0 / x
    except ZeroDivisionError:
        return 0.0


def test_a_try_in_a_branch_the_parameters_rule_out_is_not_refused():
    """`mode` passed None (the same for every example): the `try` around an import under
    `elif mode == 0:` never runs, so it is not refused; passed 0 it does, and it is."""
    x = np.array([2.0, 0.0, -4.0, 0.5, 0.0])
    _every_size(by_mode, lambda n: (np.resize(x, n),))
    with pytest.raises(VectorizeError, match="cannot model") as info:
        vectorize(by_mode, excluded={"mode"}, fallback="error")(x, mode=0)
    assert "test_constructs26.py:" in str(info.value)


def handed_to_a_library(a, b):
    import functools

    def f(u, v):
        return u * v + b
    return functools.reduce(f, (a, b, 2.0))


def test_a_closure_handed_to_a_library_function_is_refused_naming_it():
    a, b = _pairs(5)
    with pytest.raises(VectorizeError, match="passed to `functools.reduce`") as info:
        vectorize(handed_to_a_library, fallback="error")(a, b)
    assert "def f" in str(info.value) and "test_constructs26.py:" in str(info.value)


SCALE = 10.0


def apply_scaled(f, x):
    SCALE = 2.0     # noqa: N806 -- a local of the helper named like the module's constant
    return f(x) + SCALE


def reads_a_global_the_helper_hides(a, b):
    return apply_scaled(lambda t: t * SCALE + a, b)


def test_a_closure_reading_a_global_the_helper_hides_is_not_bound():
    """Bound into the helper's body, the lambda would read the helper's local `SCALE`
    instead of the module's: refused, never a different answer."""
    a, b = _pairs(5)
    with pytest.raises(VectorizeError) as info:
        vectorize(reads_a_global_the_helper_hides, fallback="error")(a, b)
    assert "test_constructs26.py:" in str(info.value)
    got = vectorize(reads_a_global_the_helper_hides, fallback="loop")(a, b)
    assert_values_equal(got, np.vectorize(reads_a_global_the_helper_hides)(a, b))


STEPS = 3


def weighted_ends(f, a, n=STEPS, *, w=STEPS):
    return f(a) * n + w


STEPS = 7       # (rebound after the helper was defined: its defaults keep 3)


def defaults_made_when_the_helper_was(a, b):
    return weighted_ends(lambda t: t + b, a)


def test_the_bound_helper_keeps_the_helpers_defaults():
    _every_size(defaults_made_when_the_helper_was, _pairs)


def recurse_with(f, n):
    if n <= 0:
        return f(0.0)
    return recurse_with(f, n - 1) + 1.0


def hands_a_closure_to_a_recursion(a, b):
    return recurse_with(lambda t: t + b, int(a))


def test_a_helper_handing_its_closure_to_itself_is_refused_at_once():
    """Each bound copy would bind the closure into the next: refused, located, instead of
    recursing until Python's limit."""
    a, b = _pairs(5)
    with pytest.raises(VectorizeError, match="lambda"):
        vectorize(hands_a_closure_to_a_recursion, fallback="error")(a, b)


def stored_in_a_local(a, b):
    def f(t):
        return t * a + b
    h = f
    return h(2.0) + integrate(h, a, b)


def lambda_stored_in_a_local(a, b):
    sq = lambda t: t * t + a  # noqa: E731
    k = sq
    return k(b) - k(a)


@pytest.mark.parametrize("f", [stored_in_a_local, lambda_stored_in_a_local],
                         ids=lambda f: f.__name__)
def test_a_closure_stored_in_another_local_and_called_later(f):
    _every_size(f, _pairs)
    a, b = _pairs(30, seed=8)
    _same_as_the_loop(f, a, b)
