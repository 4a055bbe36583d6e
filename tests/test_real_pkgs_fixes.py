"""Regression tests for what real packages' functions (``tests/real_pkgs``) found wrong.

- A function compiled by numba (``@njit``: a dispatcher; ``@numba.vectorize``: a ``DUFunc``),
  handed to ``vectorize``/``vmap`` or called from the function being vectorized, was refused
  with a false message ("the source of `DUFunc.__call__` ... is not the code it runs: the file
  changed since ..."), or as a call with no batching rule. PsychroLib compiles every function
  of its module this way when numba is installed, so all of it was refused. Now the engine
  vectorizes the Python function numba compiled (``py_func``).
- The check that a function's file still holds the code it runs compiled the text again and
  compared instructions: where the recompiled text needed an ``EXTENDED_ARG`` prefix for a
  long jump and the module's own code did not (method calls on an imported module are shorter
  in a module's code on CPython 3.11), an unchanged file was taken for an edited one and the
  function refused ("the file changed since the function was defined").
"""

from __future__ import annotations

import enum
import importlib
import math
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vectorize import vectorize, vmap

numba = pytest.importorskip("numba")      # in the `test` extra: installed wherever CI runs

SIZES = (0, 1, 5, 1000)


def _same(got, ref):
    got, ref = np.asarray(got), np.asarray(ref)
    assert got.shape == ref.shape and got.dtype == ref.dtype, (got, ref)
    np.testing.assert_allclose(got, ref, rtol=1e-12, equal_nan=True)


def _check_vectorize(func, py_func, *arrays, otypes="d"):
    """vectorize(func) against numpy.vectorize(py_func) (Python semantics), exceptions
    compared by type."""
    ours = vectorize(func, fallback="error")
    ref_f = np.vectorize(py_func, otypes=otypes)
    try:
        ref = ref_f(*arrays)
    except Exception as exc:  # noqa: BLE001 - compared by type
        with pytest.raises(type(exc)):
            ours(*arrays)
        return
    _same(ours(*arrays), ref)


def _source_module(tmp_path, name, text):
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    sys.path.insert(0, str(tmp_path))
    try:
        importlib.invalidate_caches()
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop(name, None)


NUMBA_MODULE = '''
import math
from numba import njit, vectorize

LIMIT = 100.0


@njit
def is_hot(t):
    return t > LIMIT


def _sat_pressure(t):
    if t < -100.0 or t > 200.0:
        raise ValueError("temperature out of range")
    if t >= 0.0:
        return 611.21 * math.exp((18.678 - t / 234.5) * (t / (257.14 + t)))
    return 611.15 * math.exp((23.036 - t / 333.7) * (t / (279.82 + t)))


sat_pressure = vectorize(_sat_pressure)
sat_pressure_jit = njit(_sat_pressure)


def _vapour_pressure(t, rh):
    if rh < 0 or rh > 1:
        raise ValueError("relative humidity outside [0, 1]")
    if is_hot(t):
        return 0.0
    return rh * sat_pressure(t)


vapour_pressure = vectorize(_vapour_pressure)


def dew_margin(t, rh):
    return sat_pressure_jit(t) - vapour_pressure(t, rh)
'''


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    return _source_module(tmp_path_factory.mktemp("numba_mod"), "compiled_helpers",
                          NUMBA_MODULE)


def _draw(rng, n, lo, hi, edges):
    x = rng.uniform(lo, hi, n)
    if n >= 5:
        x[rng.choice(n, 2, replace=False)] = rng.choice(edges, 2)
    return x


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", ["sat_pressure", "sat_pressure_jit"])
def test_numba_compiled_function_is_vectorized_from_its_python_source(compiled, name, n):
    func = getattr(compiled, name)
    rng = np.random.default_rng(n)
    t = _draw(rng, n, -60.0, 90.0, [0.0, np.nan, -100.0, 200.0])
    _check_vectorize(func, compiled._sat_pressure, t)
    t_bad = t.copy()
    if n:
        t_bad[-1] = 250.0           # ValueError, as numpy.vectorize raises it
    _check_vectorize(func, compiled._sat_pressure, t_bad)


@pytest.mark.parametrize("n", SIZES)
def test_numba_compiled_helpers_called_from_a_plain_function(compiled, n):
    rng = np.random.default_rng(10 + n)
    t = _draw(rng, n, -60.0, 150.0, [0.0, 100.0, np.nan])
    rh = _draw(rng, n, 0.0, 1.0, [0.0, 1.0, 1.5])      # 1.5: ValueError in a helper
    _check_vectorize(compiled.dew_margin, compiled.dew_margin, t, rh)
    ok = (rh >= 0) & (rh <= 1)
    _check_vectorize(compiled.dew_margin, compiled.dew_margin, t[ok], rh[ok])


@pytest.mark.parametrize("n", SIZES)
def test_vmap_of_a_numba_compiled_function(compiled, n):
    t = np.random.default_rng(20 + n).uniform(-60.0, 90.0, n)
    ours = vmap(compiled.sat_pressure)(t)
    ref = np.asarray([compiled._sat_pressure(v) for v in t], dtype=float)
    _same(ours, ref)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(-100.0, 200.0) | st.sampled_from([math.nan, 0.0]), max_size=8))
def test_numba_compiled_function_on_drawn_inputs(compiled, ts):
    t = np.asarray(ts, dtype=float)
    _check_vectorize(compiled.sat_pressure, compiled._sat_pressure, t)


def _branchy_module(sizes):
    lines = ["import math", ""]
    for n in sizes:
        up = "\n".join("        y = y + math.pow(x, 2)" for _ in range(n))
        lines.append(f"def branchy_{n}(x):\n    y = 0.0\n    if x > 0:\n{up}\n"
                     f"    else:\n{up.replace('+', '-')}\n    return y\n")
    return "\n".join(lines)


BRANCHY = tuple(range(4, 40, 2))     # some of these need EXTENDED_ARG in one compilation only


@pytest.fixture(scope="module")
def branchy(tmp_path_factory):
    return _source_module(tmp_path_factory.mktemp("branchy"), "branchy_module",
                          _branchy_module(BRANCHY))


def test_unchanged_file_with_long_jumps_matches_its_code(branchy):
    import inspect
    import textwrap

    from vectorize.introspect import source_matches_code

    for k in BRANCHY:
        func = getattr(branchy, f"branchy_{k}")
        assert source_matches_code(func, textwrap.dedent(inspect.getsource(func))), k


def test_unchanged_file_with_long_jumps_is_read(branchy):
    func = branchy.branchy_10      # refused before: EXTENDED_ARG in the recompiled text only
    ours = vectorize(func, fallback="error")
    rng = np.random.default_rng(3)
    for n in SIZES:
        x = rng.uniform(-3.0, 3.0, n)
        _same(ours(x), np.vectorize(func, otypes="d")(x))


# ------------------------------------------------------------- vmap: raise in a helper
# PsychroLib's functions check their inputs in helpers (`GetVapPresFromRelHum` raises
# ValueError for a relative humidity outside [0, 1]) and call each other under per-example
# conditions: `vmap` refused 24 of them ("`raise` under a per-example condition in a function
# called from another"), which `vectorize` runs by replaying the loop where the batch raises.
# `vmap` now does the same: the per-example loop decides.

def _checked_sqrt(x):
    if x < 0:
        raise ValueError("negative input")
    return math.sqrt(x)


def guarded(x):
    if x >= 0:
        return _checked_sqrt(x) + 1.0
    return -1.0          # the helper is never called here: no example raises


def unguarded(x):
    return _checked_sqrt(x) * 2.0


def _row_loop(f, x):
    return np.asarray([f(v) for v in x], dtype=float)


@pytest.mark.parametrize("n", SIZES)
def test_vmap_runs_a_helper_that_raises_under_a_per_example_condition(n):
    x = np.random.default_rng(30 + n).uniform(-5.0, 5.0, n)
    _same(vmap(guarded)(x), _row_loop(guarded, x))
    ok = np.abs(x)
    _same(vmap(unguarded)(ok), _row_loop(unguarded, ok))
    if n:
        with pytest.raises(ValueError, match="negative input"):
            _row_loop(unguarded, -ok - 1.0)
        with pytest.raises(ValueError, match="negative input"):
            vmap(unguarded)(-ok - 1.0)


def test_vmap_of_a_raising_helper_is_vectorized_not_a_loop():
    x = np.linspace(-1.0, 1.0, 7)
    assert "def guarded" in vmap(guarded).source(x)    # generated code, no fallback
    assert "def _checked_sqrt" in vmap(guarded).source(x)     # the helper, batched


def test_vmap_of_a_raising_helper_on_torch_tensors():
    torch = pytest.importorskip("torch")
    x = torch.linspace(-3.0, 3.0, 11, dtype=torch.float64)
    got = vmap(guarded)(x)
    ref = torch.stack([torch.as_tensor(guarded(v.item()), dtype=torch.float64) for v in x])
    assert torch.equal(got, ref)
    with pytest.raises(ValueError, match="negative input"):
        vmap(unguarded)(x)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(-10.0, 10.0) | st.sampled_from([0.0, -0.0, math.nan]),
                max_size=8))
def test_vmap_raising_helper_on_drawn_inputs(xs):
    x = np.asarray(xs, dtype=float)
    _same(vmap(guarded)(x), _row_loop(guarded, x))


# ------------------------------------------ scipy.special's Python functions over ufuncs
# `scipy.special.lambertw` is a Python function that returns the private ufunc `_lambertw`
# (`scipy.special._ufuncs`): the ufunc had no rule, so fluids' `Prandtl_von_Karman_Nikuradse`
# and every function calling `lambertw` were refused. Private ufuncs of scipy.special are now
# recognised by the same family rule as its public ones.
special = pytest.importorskip("scipy.special")


def prandtl_karman(re):
    c1 = 1.151292546497022842008995727342182103801
    c2 = 1.325474527619599502640416597148504422899
    return c2 / float(special.lambertw((c1 * re) / 2.51).real) ** 2


@pytest.mark.parametrize("n", SIZES)
def test_scipy_special_private_ufunc_behind_a_python_function(n):
    re = np.exp(np.random.default_rng(40 + n).uniform(np.log(1e3), np.log(1e8), n))
    if n >= 5:
        re[:3] = [0.0, np.inf, np.nan]
    _check_vectorize(prandtl_karman, prandtl_karman, re)
    live = re[re != 0]       # 0: ZeroDivisionError of a Python float in the loop, inf in vmap
    _same(vmap(prandtl_karman)(live), np.asarray([prandtl_karman(v) for v in live], dtype=float))
    assert "return _lambertw(z, k, tol)" in vectorize(prandtl_karman, fallback="error").source(re)


# ------------------------------------------------------------- math.gamma of tiny x
# CPython computes gamma(x) as 1 / x for |x| < 1e-20 and raises OverflowError where that is
# inf (0 < |x| <= 1 / DBL_MAX); the batched code returned +-inf there (found by
# tests/test_rules.py's hypothesis draws: math.gamma(2.2250738585e-313)).

def gamma_of(x):
    return math.gamma(x)


TINY = 5.562684646268003e-309        # the largest x with 1 / x == inf


@pytest.mark.parametrize("n", SIZES)
def test_math_gamma_of_a_tiny_argument_overflows_as_in_python(n):
    x = np.random.default_rng(50 + n).uniform(0.1, 20.0, n)
    _check_vectorize(gamma_of, gamma_of, x)
    for tiny in (2.2250738585e-313, TINY, -TINY, 5e-324):
        if n:
            bad = x.copy()
            bad[n // 2] = tiny
            _check_vectorize(gamma_of, gamma_of, bad)       # OverflowError, as Python's
    edge = np.array([np.nextafter(TINY, 1.0), -np.nextafter(TINY, 1.0), 1e-20, -1e-300])
    _check_vectorize(gamma_of, gamma_of, edge)              # finite: no error


# --------------------------------------------------------- lazy-import forwarding wrappers
# fluids wraps SciPy in `def lambertw(*args, **kwargs): from scipy.special import lambertw;
# return lambertw(*args, **kwargs)`: the helper was refused ("takes *args/**kwargs", with a
# suggestion the user cannot follow in a library). A helper whose whole body forwards its
# `*args`/`**kwargs` to one function (after imports) is now that function.
FORWARDING_MODULE = '''
def _target(x, scale=2.0):
    if x > 0:
        return x * scale
    return -x


def lazy(*args, **kwargs):
    """Imports on first use."""
    from forwarding_helpers import _target
    return _target(*args, **kwargs)


def lazy_positional(*args):
    return _target(*args)


def use(x, s):
    return lazy(x) + lazy(x, scale=s) + lazy_positional(x, 3.0)


def not_forwarding(*args):
    return _target(args[0])


def use_not_forwarding(x):
    return not_forwarding(x)
'''


@pytest.fixture(scope="module")
def forwarding(tmp_path_factory):
    path = tmp_path_factory.mktemp("forwarding")
    module = _source_module(path, "forwarding_helpers", FORWARDING_MODULE)
    sys.modules["forwarding_helpers"] = module      # what `lazy` imports
    yield module
    sys.modules.pop("forwarding_helpers", None)


@pytest.mark.parametrize("n", SIZES)
def test_forwarding_wrapper_is_its_target(forwarding, n):
    rng = np.random.default_rng(60 + n)
    x, s = rng.uniform(-3.0, 3.0, n), rng.uniform(0.5, 4.0, n)
    _check_vectorize(forwarding.use, forwarding.use, x, s)
    _same(vmap(forwarding.use)(x, s),
          np.asarray([forwarding.use(a, b) for a, b in zip(x, s)], dtype=float))
    source = vectorize(forwarding.use, fallback="error").source(x, s)
    assert "def _target" in source and "lazy" not in source.split("def use")[1]


def test_a_wrapper_that_does_more_than_forward_is_not_its_target(forwarding):
    # (refused before helpers taking *args were specialized: see
    # `test_helpers_taking_star_args_and_kwargs`; now its own body, `args[0]`, runs)
    x = np.array([1.0, -1.0, 0.5])
    _check_vectorize(forwarding.use_not_forwarding, forwarding.use_not_forwarding, x)
    source = vectorize(forwarding.use_not_forwarding, fallback="error").source(x)
    assert "def not_forwarding" in source and "args[0]" in source


# ---------------------------------------------------------------- `try` under vmap
# chemicals' `Wagner_original` guards `tau / Tr` with `try: ... except: return 0.0`.
# `vectorize` takes the handler where Python raises; `vmap` refused it with "`try`
# statements are not supported in a vectorized function", which `vectorize` contradicts.
# Under vmap the examples are NumPy scalars: `(1.0 - tr) / tr` at tr == 0 is inf with a
# RuntimeWarning per example, never ZeroDivisionError, so the handler is never taken and vmap
# gives the loop's inf (it refused the `try` before).

def guarded_ratio(t, tc):
    tr = t / tc
    try:
        ratio = (1.0 - tr) / tr
    except ZeroDivisionError:
        return 0.0
    return ratio


def test_vmap_takes_no_handler_where_numpy_scalars_do_not_raise_and_vectorize_takes_it():
    t = np.array([0.0, 300.0, 647.0])
    _check_vectorize(guarded_ratio, guarded_ratio, t, 647.0)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        expected = np.array([guarded_ratio(v, 647.0) for v in t])
        got = vmap(guarded_ratio, in_axes=(0, None))(t, 647.0)
    assert np.isinf(expected[0]) and got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


# ------------------------------------------------------- formulas written across lines
# pvlib's solar position code writes its polynomials across lines inside parentheses:
#     x0 = (297.85036
#           + 445267.111480 * julian_ephemeris_century
#           - 0.0019142 * julian_ephemeris_century**2)
# The pass that updates a fresh array in place (`temporaries`) split the sum into
# `x0 = 297.85036\n + ...` / `x0 -= ...` and dropped the parentheses that made the line
# break legal: the generated code did not compile (IndentationError, a crash of 11 of
# pvlib.spa's functions); the compacted `if` (`compact_ifs`) did the same with a condition
# written across lines. A statement's value that spans lines keeps its parentheses now.

def polynomial_across_lines(jce):
    x0 = (297.85036
          + 445267.111480 * jce
          - 0.0019142 * jce**2
          + jce**3 / 189474)
    return x0


def condition_across_lines(x):
    if (x
            > 0.5):  # vectorize: compact
        y = math.log(x
                     + 1.0)
    else:
        y = (x
             * 2.0)
    return y


def shared_across_lines(x):
    a = abs(x * 2.0
            + 1.0) ** 0.5
    b = abs(x * 2.0
            + 1.0) ** 1.5
    return a + b


def returns_across_lines(x, y):
    if (x > 0
            and y > 0):
        return (x
                * y)
    while (x
           > 10.0):
        x = (x
             / 2.0)
    return ((x
             + y) if x > y else (x
                                 - y))


ACROSS_LINES = [(polynomial_across_lines, 1), (condition_across_lines, 1),
                (shared_across_lines, 1), (returns_across_lines, 2)]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("func, n_args", ACROSS_LINES, ids=lambda v: getattr(v, "__name__", ""))
def test_expressions_written_across_lines(func, n_args, n):
    rng = np.random.default_rng(70 + n)
    args = [rng.uniform(-3.0, 30.0, n) for _ in range(n_args)]
    _check_vectorize(func, func, *args)
    _same(vmap(func)(*args), np.asarray([func(*row) for row in zip(*args)], dtype=float))


# ------------------------------------------------------- names bound on some paths only
# fluids' `friction_plate_Kumar` picks a row of three module tables in a `for ... break`
# whose last iteration binds them in an `elif` (so every path binds them), then loops over
# the row: the rows are per-example arrays, which had no placeholder, so it was refused
# ("`Re_ranges` is assigned on some paths only"). A small per-example array of numbers now
# gets one (a list literal of its shape) and the run-time check (UnboundLocalError where a
# live example reads it unbound). The check was also one statement object put before every
# read: the passes key their facts by statement, so two reads under different conditions
# shared one guard (`name active_2 is not defined`: refused as "this combination of
# per-example control flow"); each read now has its own.

LIMITS = [12.0, 25.0, 40.0]
BAND_COEFS = [[3.0, 1.5, 0.25], [2.5, 1.25, 0.5], [2.0, 1.0, 0.75]]
BAND_EDGES = [[8.0, 90.0], [16.0, 150.0], [30.0, 220.0]]


def banded_law(x, angle):
    n = len(LIMITS)
    for i in range(n):
        if angle <= LIMITS[i]:
            coefs, edges = BAND_COEFS[i], BAND_EDGES[i]
            break
        elif i == n - 1:
            coefs, edges = BAND_COEFS[-1], BAND_EDGES[-1]
    m = len(edges)
    for j in range(m):
        if x <= edges[j]:
            c = coefs[j]
            break
        elif j == m - 1:
            c = coefs[-1]
    return c * abs(x) ** 0.5


def banded_law_open(x, angle):
    for i in range(len(LIMITS)):      # no row past the last limit: unbound there
        if angle <= LIMITS[i]:
            edges = BAND_EDGES[i]
            break
    return x * edges[0] + edges[1]


def read_twice(x):
    if x > 0:
        y = x * 2.0
    if x > 1:
        z = y + 1.0
    else:
        z = 0.0
    if x > 0.5:
        z = z + y
    return z


def _outcome(call):
    try:
        out = call()
    except Exception as exc:  # noqa: BLE001 - compared by type and message
        return None, exc
    return out, None


def _check_like_numpy_vectorize(func, *arrays, otypes="d"):
    """vectorize(func) against numpy.vectorize(func): values, dtype (object arrays too) and
    shape where it returns, exception type and message where it raises (``otypes`` for an
    empty batch, which numpy.vectorize needs)."""
    otypes = otypes if not np.size(arrays[0]) else None
    with np.errstate(all="ignore"):     # (NumPy's cast of the loop's results: NaN)
        want, error = _outcome(lambda: np.vectorize(func, otypes=otypes)(*arrays))
    got, our_error = _outcome(lambda: vectorize(func, fallback="error")(*arrays))
    if error is not None:
        assert type(our_error) is type(error) and str(our_error) == str(error), our_error
        return
    assert our_error is None, our_error
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype == object:
        assert got.tolist() == want.tolist()
    else:
        _same(got, want)


@pytest.mark.parametrize("n", SIZES)
def test_rows_of_module_tables_bound_in_a_loop_with_break(n):
    rng = np.random.default_rng(n)
    x = rng.uniform(0.0, 300.0, n)
    angle = rng.uniform(0.0, 60.0, n)       # past 40 on some lanes: the `elif` binds
    if n:
        x[0], angle[-1] = np.nan, np.nan
    for func in (banded_law, banded_law_open):
        _check_like_numpy_vectorize(func, x, angle)
        _check_like_numpy_vectorize(func, x, np.minimum(angle, 40.0))   # all bound
    _same(vmap(banded_law)(x, angle),
          np.asarray([banded_law(a, b) for a, b in zip(x, angle)], dtype=float))


def test_a_name_read_under_two_conditions_gets_a_check_each():
    for x in ([-1.0, 0.2, 0.7, 3.0], [0.7, 3.0], [-1.0, 0.2], [0.6, 2.0, 0.0]):
        _check_like_numpy_vectorize(read_twice, np.array(x))
    x = np.array([0.7, 3.0, 1.5])
    _same(vmap(read_twice)(x), np.asarray([read_twice(v) for v in x]))


# ----------------------------------------------- functions that do not return on every path
# chemicals' `iapws97_region_3` ends with an `if/elif` chain without `else`: examples outside
# every branch fall off the end and get None. It was refused ("does not return a value on
# every path"). Now the end of such a function raises where a live example reaches it, and
# the per-example loop decides: numpy.vectorize gives an object array where the first
# example's result is None, else the TypeError (int) or NaN (float) of converting None to
# the output's dtype; where no live example falls off, the batch runs as usual.

def subregion(p, t):
    if p > 100.0:
        return 0
    if p > 40.0:
        if t <= 600.0:
            return 1
        return 2
    elif 25.0 < p <= 40.0:
        if t <= 650.0:
            return 3
        elif t <= 700.0:
            return 4


def _tail(x):
    if x > 0.5:
        return x * 3.0


def through_a_tail(x):
    if x > 2.0:
        return 2.5
    elif x > 0.0:
        return _tail(x)
    return -1.0


@pytest.mark.parametrize("n", SIZES)
def test_functions_that_fall_off_the_end_on_some_examples(n):
    rng = np.random.default_rng(80 + n)
    p = rng.uniform(26.0, 120.0, n)
    t = rng.uniform(500.0, 700.0, n)
    _check_like_numpy_vectorize(subregion, p, t, otypes="l")   # every example returns
    x = rng.uniform(0.5, 5.0, n)
    _check_like_numpy_vectorize(through_a_tail, x)
    _same(vmap(through_a_tail)(x), np.asarray([through_a_tail(v) for v in x]))
    if n:
        for p0, t0 in ((10.0, 550.0), (30.0, 800.0)):         # first example falls off
            _check_like_numpy_vectorize(subregion, np.r_[p0, p], np.r_[t0, t])
            _check_like_numpy_vectorize(subregion, np.r_[p, p0], np.r_[t, t0])
        _check_like_numpy_vectorize(through_a_tail, np.r_[x, 0.25])       # None -> NaN
        _check_like_numpy_vectorize(through_a_tail, np.r_[0.25, x])


# ------------------------------------------- sums over a local table of number literals
# iapws' transport properties sum over tables written in the body:
#     H = [1.67752, 2.20462, 0.6366564, -0.241605]
#     mu0 = 100*Tr**0.5/sum(Hi/Tr**i for i, Hi in enumerate(H))
# A generator over a global tuple was written out item by item; over a local list it was
# refused ("a generator expression over per-example values"). A local bound once, by a
# statement of the body, to a display of number literals that nothing changes or hands away
# is now written out the same way, where it is read after that statement.

def local_tables(t, rho):
    tr = t / 647.096
    h = [1.67752, 2.20462, 0.6366564, -0.241605]
    mu0 = 100 * tr ** 0.5 / sum(hi / tr ** i for i, hi in enumerate(h))
    li = [0, 1, 2, 3, 0]
    lj = [0, 0, 1, 1, -2]
    hij = (0.520094, 0.0850895, -1.08374, -0.289555, 0.222531)
    mu1 = sum((1 / tr - 1) ** i * c * (rho - 1) ** j for i, j, c in zip(li, lj, hij))
    return mu0 * math.exp(-abs(mu1)) + max(x * tr for x in h)


def tables_per_branch(t, liquid="H2O"):
    if liquid == "H2O":
        ai = [-7.85951783, 1.84408259, -11.7866497]
        bi = [1, 1.5, 3]
    else:
        ai = [-7.896657, 24.73308, -27.81128]
        bi = [1.0, 1.89, 2]
    tau = 1 - t / 647.096
    return sum(a * tau ** b for a, b in zip(ai, bi))


def tables_per_example(t):
    if t > 500.0:
        ai = [1.0, 2.0]
    else:
        ai = [3.0, -4.0]
    return sum(a * t ** i for i, a in enumerate(ai))


def local_table_changed(t):
    h = [1.0, 2.0, 3.0]
    h.append(t)
    return sum(x * t for x in h)


def local_table_read_before(t):
    if t > 100.0:
        return sum(x * t for x in h)  # noqa: F821 -- UnboundLocalError in Python
    h = [1.0, 2.0]
    return sum(x * t for x in h)


@pytest.mark.parametrize("n", SIZES)
def test_generators_over_local_tables_of_literals(n):
    rng = np.random.default_rng(90 + n)
    t, rho = rng.uniform(250.0, 1200.0, n), rng.uniform(0.5, 3.0, n)
    if n:
        t[0], rho[-1] = 647.096, 1.0
    _check_vectorize(local_tables, local_tables, t, rho)
    for liquid in ("H2O", "D2O"):
        _check_vectorize(tables_per_branch, tables_per_branch, np.minimum(t, 640.0), liquid)
    _check_vectorize(tables_per_example, tables_per_example, t)
    _same(vmap(local_tables)(t, rho),
          np.asarray([local_tables(a, b) for a, b in zip(t, rho)], dtype=float))


def test_local_tables_that_change_or_are_read_unbound_are_not_written_out():
    from vectorize.errors import VectorizeError
    with pytest.raises(VectorizeError):
        vectorize(local_table_read_before, fallback="error")(np.array([1.0, 200.0]))
    # a table appended to is the appended list's padded array, and the generator over it
    # the loop Python's sum runs (`body_constructs.comprehensions.sums_as_loops`)
    t = np.array([1.0, 200.0, -3.0])
    _same(vectorize(local_table_changed, fallback="error")(t),
          np.vectorize(local_table_changed)(t))
    got = vectorize(local_table_read_before, fallback="loop")(np.array([1.0, 2.0]))
    _same(got, np.vectorize(local_table_read_before)(np.array([1.0, 2.0])))


# ------------------------------------------------------ None for every example
# sgp4's `days2mdhms(year, days, round_to_microsecond=6)` takes None to switch rounding off;
# numpy.vectorize broadcasts a None argument as a 0-d object array and hands every example
# None. `vectorize` ran numpy's loop instead ("argument has dtype object"; an error with
# fallback="error"). A 0-d object array of a value the engine specializes on (None, a bool)
# is now passed as it is, as a 0-d string already was.

def rounded_seconds(days, digits=6):
    second = days * 86400.0
    if digits:
        second = round(second, digits)
    minute, second = divmod(second, 60.0)
    return int(minute), second


@pytest.mark.parametrize("n", SIZES)
def test_none_for_every_example(n):
    days = np.random.default_rng(n).uniform(0.0, 2.0, n)
    for digits in (None, np.array(None, dtype=object), 3, 0):
        ours = vectorize(rounded_seconds, fallback="error")(days, digits)
        ref = np.vectorize(rounded_seconds, otypes="ld")(days, digits)
        for got, want in zip(ours, ref):
            _same(got, want)


# ------------------------------------------- `and`/`or` of per-example values and None
# iapws' `_Viscosity(rho, T, fase=None, drho=None)` adds a critical enhancement under
# `if rho and fase and drho:`; with `fase=None` the test is false for every example
# whatever `rho` holds, but the analysis took it per example and analysed the branch
# (refused: "`fase` has no attribute `drhodP_T`"). An `and` chain of names, literals and
# comparisons with an operand known to be false (an `or` chain with one known true) now
# decides its `if` for every example.
# The same values used as a value were silently wrong: `y = rho and fase` is 0.0 where rho
# is 0.0 and None elsewhere, but the batch held rho's values (None dropped), so `y is None`
# was False for every example. Refused now, except where only the truth of `x or None` is
# read (a test), which is that of `x`.

def enhanced(rho, t, fase=None, drho=None):
    mu = rho * t
    if rho and fase and drho:
        mu = mu + fase.drhodP_T / drho
    elif t > 300.0 and fase is None or drho:
        mu = mu * 2.0
    if rho or drho:
        mu = mu + 1.0
    return mu


def none_or_value(rho, fase=None):
    y = rho and fase
    return 1.0 if y is None else 2.0


def value_or_none(rho, w=None):
    z = rho or w
    return 1.0 if z is None else 2.0


@pytest.mark.parametrize("n", SIZES)
def test_and_or_chains_with_none(n):
    from vectorize.errors import VectorizeError
    rng = np.random.default_rng(100 + n)
    rho, t = rng.uniform(0.0, 2.0, n), rng.uniform(250.0, 350.0, n)
    if n:
        rho[0] = 0.0
    _check_vectorize(enhanced, enhanced, rho, t)
    _same(vmap(enhanced)(rho, t), np.asarray([enhanced(a, b) for a, b in zip(rho, t)],
                                             dtype=float))
    for func in (none_or_value, value_or_none):
        with pytest.raises(VectorizeError, match="None"):
            vectorize(func, fallback="error")(rho)
        _same(vectorize(func, fallback="loop", otypes="d")(rho),
              np.vectorize(func, otypes="d")(rho))


# ---------------------------------------------------- None on some paths, a number on others
# iapws' `_Bound_TP(T, P)` (a steam-table region lookup) starts with `region = None` and
# sets a number in each branch of an `if/elif` chain without `else`; the examples outside
# every region return None. Refused ("`region` holds values of kinds that do not mix"), as
# was a function with `return None` on some paths. Now None is read as "not bound": a live
# example that returns it or computes with it makes the batch raise and the per-example loop
# decide (numpy.vectorize: an object array where the first example's result is None, else
# the TypeError (int) or NaN (float) of converting None); `x is None` tests the flag.

def region_of(t, p):
    region = None
    if 1073.15 < t <= 2273.15 and p <= 50.0:
        region = 5
    elif p <= 16.5:
        if 273.15 <= t <= 600.0:
            region = 1
        elif 600.0 < t <= 1073.15:
            region = 2
    return region


def none_tested(t):
    scale = None
    if t > 1.0:
        scale = t * 2.0
    if scale is None:
        return -1.0
    return scale + 1.0


def returns_none_early(t):
    if t < 0.0:
        return None
    if t > 5.0:
        return
    return t * 2.0


@pytest.mark.parametrize("n", SIZES)
def test_none_on_some_paths(n):
    rng = np.random.default_rng(110 + n)
    t, p = rng.uniform(280.0, 2200.0, n), rng.uniform(0.0, 16.0, n)
    _check_like_numpy_vectorize(region_of, t, p, otypes="l")        # every example has one
    x = rng.uniform(0.0, 5.0, n)
    _check_like_numpy_vectorize(none_tested, x)
    _check_like_numpy_vectorize(returns_none_early, x)
    _same(vmap(none_tested)(x), np.asarray([none_tested(v) for v in x], dtype=float))
    if n:
        for t0, p0 in ((250.0, 1.0), (700.0, 30.0)):                # no region
            _check_like_numpy_vectorize(region_of, np.r_[t0, t], np.r_[p0, p])
            _check_like_numpy_vectorize(region_of, np.r_[t, t0], np.r_[p, p0])
        for x0 in (-1.0, 7.0):
            _check_like_numpy_vectorize(returns_none_early, np.r_[x0, x])
            _check_like_numpy_vectorize(returns_none_early, np.r_[x, x0])


# --------------------------------------------- `map` over a display; modules named numpy*
# numpy-financial converts its arguments with `(rate, nper, pv) = map(np.asarray, [rate,
# nper, pv])`: refused ("`map` has no batching rule"). A `map` of a name over a list or
# tuple display that is consumed whole (unpacked, or handed to `sum`/`tuple`/...) is now
# the tuple of the calls. Its helpers were not analysed at all: a function whose module's
# name merely starts with "numpy" or "math" (`numpy_financial`, a user's `mathutils`) was
# taken for NumPy's or `math`'s own ("no batching rule", or run on the examples as a pure
# NumPy function); only `numpy`, `math` and their submodules are now.

def loan_payment(rate, nper, pv):
    rate, nper, pv = map(np.asarray, [rate, nper, pv])
    growth = (1 + rate) ** nper
    total = sum(map(float, (rate, nper)))
    return -pv * growth * rate / np.where(rate == 0, 1.0, growth - 1) + 0.0 * total


def _scaled(x):
    if x > 1.0:
        return x * 2.0
    return -x


_scaled.__module__ = "mathutils"       # as if defined in a user's module of that name


def through_mathutils(x):
    return _scaled(x) + 1.0


@pytest.mark.parametrize("n", SIZES)
def test_map_over_a_display_and_helpers_of_modules_named_like_numpy(n):
    rng = np.random.default_rng(120 + n)
    rate, nper, pv = rng.uniform(0.001, 0.02, n), rng.uniform(1.0, 360.0, n), \
        rng.uniform(1e3, 1e6, n)
    _check_vectorize(loan_payment, loan_payment, rate, nper, pv)
    x = rng.uniform(0.0, 3.0, n)
    _check_vectorize(through_mathutils, through_mathutils, x)
    _same(vmap(through_mathutils)(x), np.asarray([through_mathutils(v) for v in x],
                                                 dtype=float))


# ------------------------------------------------------- helpers that take *args / **kwargs
# PyGeodesy's helpers take their optional arguments as `*args` and `**options`
# (`_fast(x, *cs)`: a Horner loop over `reversed(cs)`; `euclid(x, y, *x0_y0, **half)`;
# `_map0(_f, x, y, x0=0.0, y0=0.0, *unused)`): every function calling one was refused
# ("`_fast` takes *args/**kwargs"), and `vmap` of a function taking `**kwargs` itself was
# refused ("name `half` is not defined"). A helper's `*args` is now the tuple of the extra
# positional arguments of each call (their number is the call's, their items batched or
# not), its `**kwargs` the dict of exactly known extra keywords (a keyword that differs per
# example is refused, located), which it may pass on (`g(x, **options)`); `vmap`'s
# `**kwargs` is the empty dict (it refuses unknown keywords).

def _horner(x, *cs):
    h = 0
    for c in reversed(cs):
        h = x * h + c if h else c
    return h


def _norm(x, y, *x0_y0, **half):
    if x0_y0:
        x, y = x - x0_y0[0], y - x0_y0[1]
    x, y = abs(x), abs(y)
    if x < y:
        x, y = y, x
    return x + y * (0.5 if half else 0.4142)


def cubic(x):
    return _horner(x, 1.0, -0.5, 0.25) + _horner(x, 2.0) - _horner(x)


def offset_norm(x, y, x0):
    return _norm(x, y, x0, 1.0) + _norm(x, y, half=True)


def per_example_option(x, y):
    return _norm(x, y, half=x > 0.0)


def _affine(x, **options):
    coef = options.get("coef", (1.0, 0.0))
    return x * coef[0] + coef[1] + len(options)


def _total(x, *rest):
    for r in rest:
        x = x + r
    return x


def _forwarding(x, **options):     # (PyGeodesy's `_Fm2(x, **nonfinites)`)
    return _affine(x, **options) * 2.0


def with_options_and_rest(x, y):
    return _affine(x, coef=(2.0, -1.0)) + _affine(y) + _total(x, y, y) + \
        _forwarding(x) + _forwarding(y, coef=(3.0, 1.0))


def norm_with_options(x, y, *x0_y0, **half):
    return _norm(x, y) + (1.0 if half else 0.0) + len(x0_y0)


@pytest.mark.parametrize("n", SIZES)
def test_helpers_taking_star_args_and_kwargs(n):
    from vectorize.errors import VectorizeError
    rng = np.random.default_rng(130 + n)
    x, y, x0 = (rng.uniform(-2.0, 2.0, n) for _ in range(3))
    if n >= 5:
        x[:3] = (0.0, 2.0, 1.0)       # h = 0 inside the loop; x < y on some lanes only
        y[1] = 2.0
    for func, args in ((cubic, (x,)), (offset_norm, (x, y, x0)),
                       (with_options_and_rest, (x, y))):
        _check_vectorize(func, func, *args)
        _same(vmap(func)(*args), np.asarray([func(*row) for row in zip(*args)], dtype=float))
    _same(vmap(norm_with_options)(x, y),
          np.asarray([norm_with_options(a, b) for a, b in zip(x, y)], dtype=float))
    with pytest.raises(VectorizeError, match=r"(?s)test_real_pkgs_fixes.py:\d+:\d+: .*\*\*half"):
        vectorize(per_example_option, fallback="error")(x, y)


# ------------------------------------------------------ an enum member passed for every example
# astral's `hour_angle(latitude, declination, zenith, direction)` takes a `SunDirection`
# member: numpy.vectorize broadcasts it as a 0-d object array and hands each example the
# member itself; `vectorize` refused ("argument `direction` has dtype object"). A member is
# now passed as it is (as None and flags were), known by its type: the code for one member
# serves the others, its `direction == SunDirection.SETTING` a Python `if`.

class Direction(enum.Enum):
    RISING = 1
    SETTING = -1


def signed_angle(lat, direction):
    angle = math.acos(math.cos(math.radians(lat)) * 0.5)
    if direction == Direction.SETTING:
        angle = -angle
    return angle * direction.value


@pytest.mark.parametrize("n", SIZES)
def test_an_enum_member_for_every_example(n):
    lat = np.random.default_rng(140 + n).uniform(-80.0, 80.0, n)
    ours = vectorize(signed_angle, fallback="error")
    for direction in (Direction.RISING, Direction.SETTING, Direction.RISING):
        _same(ours(lat, direction), np.vectorize(signed_angle, otypes="d")(lat, direction))
    _same(vmap(signed_angle, in_axes=(0, None))(lat, Direction.SETTING),
          np.asarray([signed_angle(v, Direction.SETTING) for v in lat], dtype=float))


# ------------------------------------------------ docstrings of methods and nested functions
# haversine's kernels are closures a factory builds (`_create_haversine_kernel(math)`), each
# with a multi-line docstring; py_lets_be_rational's functions have docstrings with lines of
# blanks. Both were refused with a false message ("the source of ... is not the code it
# runs: the file changed since the function was defined"): the check compiles the function's
# dedented text, and dedenting also takes the margin off the lines inside a docstring and
# empties its lines of blanks, so the docstring constant differed from the one the function
# has. Every method and nested function with a multi-line docstring was refused so (on
# CPython before 3.13, which keeps docstrings as written). String constants are now compared
# as dedenting leaves them.

class Kernels:
    @staticmethod
    def twice(x):
        """Twice x.

        A method's docstring, its lines indented.
        """
        return 2.0 * x - 1.0


def _factory(scale):
    def kernel(x):
        """Scaled x.

        A closure's docstring.
        """
        return scale * x + 1.0
    return kernel


BLANK_LINES = 'def blank_lines(x):\n    """First line.\n    \n    Blanks above.\n    """\n' \
    '    return x * x\n'


@pytest.mark.parametrize("n", SIZES)
def test_docstrings_of_methods_closures_and_blank_lines(n, tmp_path):
    x = np.random.default_rng(150 + n).uniform(-5.0, 5.0, n)
    blank_lines = _source_module(tmp_path, f"blank_lines_{n}", BLANK_LINES).blank_lines
    for func in (Kernels.twice, _factory(3.0), blank_lines):
        _check_vectorize(func, func, x)
        _same(vmap(func)(x), np.asarray([func(v) for v in x], dtype=float))


# --------------------------------------- a string or enum member for every example, signature=
# haversine's `haversine(point1, point2, unit=Unit.KILOMETERS, ...)` takes (lat, lon) pairs:
# a user vectorizes it with `signature="(2),(2),()->()"`. A unit (a string, an enum member)
# passed for every example was refused there ("argument `unit` has dtype <U2"), although
# the same call without a signature passes it as it is. Now both do.

def scaled_norm(point, unit):
    lat, lon = point
    factor = 1.0 if unit == "km" or unit == Direction.RISING else 0.621
    return factor * math.hypot(lat, lon)


@pytest.mark.parametrize("n", SIZES)
def test_a_string_or_enum_member_for_every_example_with_a_signature(n):
    points = np.random.default_rng(160 + n).uniform(-90.0, 90.0, (n, 2))
    ours = vectorize(scaled_norm, fallback="error", signature="(2),()->()")
    for unit in ("km", "mi", Direction.RISING, Direction.SETTING):
        ref = np.vectorize(scaled_norm, otypes="d", signature="(2),()->()")(points, unit)
        _same(ours(points, unit), ref)
