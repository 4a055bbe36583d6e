"""Hostile and edge inputs, concurrency and memory (issue 5, items 2 and 3).

Every result is compared with the per-example loop (`differential.loop_reference`); every
failure must be Python's / NumPy's own exception (the one the scalar function or
``numpy.vectorize`` would raise) or the project's `VectorizeError`, never an exception from
inside the engine.
"""

from __future__ import annotations

import functools
import gc
import importlib.util
import inspect
import math
import sys
import textwrap
import threading
import tracemalloc
import warnings
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction

import numpy as np
import pytest
from differential import (
    assert_lanes_equal,
    assert_values_equal,
    loop_reference,
    numpy_vectorize_outcome,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import vectorize.api as vapi
import vectorize.transform as vtransform
from vectorize import VectorizeError, VectorizeFallbackWarning, vectorize, vmap

# --------------------------------------------------------------------------------------------
# per-example functions


def piecewise(x, y):
    if x > y:
        return x - y
    return x * y


def guarded(x):
    if x > 0:
        return math.sqrt(x) + 1 / x
    elif x < -1:
        return math.log(-x)
    return x * 0.5


def guarded_np(x):
    if x > 0:
        return np.sqrt(x) + 1 / x
    elif x < -1:
        return np.log(-x)
    return x * 0.5


def poly(x):
    return x * x - 3 * x + 1


def split(x):
    if x > 0:
        return x, x * 2
    return -x, x


def halve_int(n):
    if n > 0:
        return n // 2
    return n % 3


def sqrt_or_negate(x):
    if x > 0:
        return math.sqrt(x)
    return -x


def bump(x):
    x += 1.0
    return x


def bump_alias(x):
    y = x
    y *= 2
    return y


def shrink_other(x, y):
    if x > 0:
        x *= 2.0
    y -= x
    return y


def one_line(x): return x * 2 + 1  # noqa: E704 - the layout under test


def countdown(n):
    if n <= 0:
        return 0
    return countdown(n - 1) + 1


def ping(n):
    if n <= 0:
        return 0.0
    return pong(n - 1) + 1.0


def pong(n):
    return ping(n) * 1.0


def upper_first(s):
    return s.upper()[:1]


def add_fraction(v):
    return v + Fraction(1, 3)


_VECTORIZED: dict = {}


def _compare(func, *args, fallback="error", excluded=()):
    """`func` vectorized (one callable per function and options, shared by the tests, so
    hypothesis examples mostly take the warm path) against the per-example loop."""
    key = (func, fallback, tuple(excluded))
    if key not in _VECTORIZED:
        _VECTORIZED[key] = vectorize(func, fallback=fallback, excluded=set(excluded) or None)
    vf = _VECTORIZED[key]
    result, expected = numpy_vectorize_outcome(func, *args, excluded=excluded)
    if expected is not None:
        # numpy.vectorize's Python ints do not fit its int8 output (`x * x` at 100): it
        # raises, and so must vectorize
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(type(expected)):
                vf(*args)
        return None
    lanes, shape, raised = loop_reference(func, *args, excluded=excluded)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        got = vf(*args)
    try:
        if isinstance(got, tuple):
            for k, g in enumerate(got):
                assert_lanes_equal(g, [None if r is None else r[k] for r in lanes], shape,
                                   raised, what=f"output {k}: ")
        else:
            assert_lanes_equal(got, lanes, shape, raised)
    except AssertionError:
        # where Python's numbers and NumPy's scalars differ (float32 items are Python floats
        # per example: `x * x - 3 * x` of 3e38 is no nan there), numpy.vectorize's values
        if result is None or raised:
            raise
        for g, r in zip(got if isinstance(got, tuple) else (got,),
                        result if isinstance(got, tuple) else (result,)):
            assert_values_equal(np.asarray(g), np.asarray(r))
    return got


# --------------------------------------------------------------------------------------------
# empty batches and 0-d inputs


@pytest.mark.parametrize(("func", "args"), [
    (piecewise, (np.zeros(0), np.zeros(0))),
    (piecewise, (np.zeros((0, 3)), np.zeros(3))),
    (piecewise, (np.zeros((3, 0)), 1.0)),
    (guarded, (np.zeros(0, np.float32),)),
    (halve_int, (np.zeros(0, np.int64),)),
    (split, (np.zeros(0),)),
])
def test_empty_batch(func, args):
    shape = np.broadcast_shapes(*[np.shape(a) for a in args])
    got = vectorize(func, fallback="error")(*args)
    ones = [np.ones(tuple(max(n, 1) for n in np.shape(a))).astype(np.asarray(a).dtype)
            if np.ndim(a) else a for a in args]
    with np.errstate(all="ignore"):
        full = vectorize(func, fallback="error")(*ones)
    for g, f in zip(got if isinstance(got, tuple) else (got,),
                    full if isinstance(full, tuple) else (full,)):
        assert g.shape == shape
        assert g.dtype == f.dtype, "an empty batch must give the dtype a full one gives"


@pytest.mark.parametrize("args", [
    (np.array(2.0), np.array(1.0)),
    (np.float64(2.0), 1.0),
    (2.0, 3.0),
    (np.array(-2.0), np.arange(3.0)),
    (np.int8(3), np.int8(5)),
])
def test_zero_d_inputs_like_numpy_vectorize(args):
    got = _compare(piecewise, *args)
    expected = np.vectorize(piecewise)(*args)
    assert type(got) is type(expected)
    assert got.shape == expected.shape


# --------------------------------------------------------------------------------------------
# huge / tiny / NaN / inf values

SPECIAL = [0.0, -0.0, math.nan, math.inf, -math.inf, 1e308, -1e308, 5e-324, -5e-324,
           2.2250738585072014e-308, 1.0, -1.0, -1.5, 0.5]


@settings(max_examples=40, deadline=None)
@given(arrays(np.float64, st.integers(0, 8),
              elements=st.one_of(st.sampled_from(SPECIAL), st.floats())),
       arrays(np.float64, st.integers(0, 8),
              elements=st.one_of(st.sampled_from(SPECIAL), st.floats())))
def test_extreme_floats(x, y):
    n = min(len(x), len(y))
    _compare(piecewise, x[:n], y[:n])
    _compare(guarded, x)
    _compare(poly, y)
    _compare(split, x)


@settings(max_examples=20, deadline=None)
@given(arrays(np.float32, st.integers(0, 8),
              elements=st.one_of(st.sampled_from([3e38, -3e38, 1e-45, math.nan, math.inf]),
                                 st.floats(width=32))))
def test_extreme_float32(x):
    assert _compare(guarded_np, x).dtype == np.float32
    assert _compare(poly, x).dtype == np.float32


# --------------------------------------------------------------------------------------------
# non-contiguous and read-only inputs are never written


def _layouts():
    base = np.linspace(-3, 3, 24)
    m = base.reshape(4, 6)
    return {
        "strided": base[::3],
        "reversed": base[::-1],
        "transposed": m.T,
        "fortran": np.asfortranarray(m),
        "column": m[:, 2],
        "broadcast-view": np.broadcast_to(base[:6], (4, 6)),
        "contiguous": base.copy(),
    }


@pytest.mark.parametrize("layout", list(_layouts()))
@pytest.mark.parametrize("readonly", [False, True], ids=["writeable", "readonly"])
def test_layouts_and_readonly(layout, readonly):
    x = _layouts()[layout]
    if readonly and x.flags.writeable:
        x.flags.writeable = False
    before = x.copy()
    _compare(guarded, x)
    _compare(piecewise, x, x.T if x.ndim == 2 and x.shape[0] == x.shape[1] else 0.5)
    _compare(split, x)
    np.testing.assert_array_equal(x, before)
    if x.ndim == 2:
        # per example a column vector: elementwise code maps, an `if` on it is rejected
        # (Python raises "truth value of an array is ambiguous" for every example)
        got = vmap(poly, in_axes=1)(x)
        expected = np.stack([poly(x[:, j]) for j in range(x.shape[1])])
        np.testing.assert_allclose(got, expected)
        with pytest.raises(VectorizeError, match="truth value"):
            vmap(piecewise, in_axes=(1, None))(x, 0.5)
        np.testing.assert_array_equal(x, before)


INPLACE_BUG = ("bug: augmented assignment to a parameter (`x += 1.0`) is emitted as an "
               "in-place NumPy operation on the caller's array: the input is overwritten "
               "(and read-only inputs raise 'output array is read-only')")


@pytest.mark.parametrize("func", [bump, bump_alias])
def test_augmented_assignment_never_writes_the_input(func):
    x = np.linspace(-2, 2, 5)
    before = x.copy()
    _compare(func, x)
    np.testing.assert_array_equal(x, before)


def test_augmented_assignment_never_writes_the_second_input():
    x, y = np.linspace(-2, 2, 5), np.ones(5)
    x0, y0 = x.copy(), y.copy()
    _compare(shrink_other, x, y)
    np.testing.assert_array_equal(x, x0)
    np.testing.assert_array_equal(y, y0)


def test_augmented_assignment_on_readonly_input():
    x = np.linspace(-2, 2, 5)
    x.flags.writeable = False
    _compare(bump, x)


def test_augmented_assignment_changes_dtype_like_python():
    _compare(bump, np.arange(-2, 3))


# --------------------------------------------------------------------------------------------
# input dtypes

DTYPES = [np.float32, np.float64, np.int8, np.int64, np.uint8, np.uint64, np.bool_,
          np.complex128]


def _dtype_values(dtype):
    if dtype is np.bool_:
        return st.booleans()
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        return st.integers(max(int(info.min), -100), min(int(info.max), 100))
    if np.issubdtype(dtype, np.complexfloating):
        return st.complex_numbers(max_magnitude=100, allow_nan=False)
    return st.floats(-100, 100, width=32 if dtype is np.float32 else 64)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(DTYPES).flatmap(
    lambda d: arrays(d, st.integers(0, 6), elements=_dtype_values(d))))
def test_input_dtypes(x):
    # complex numbers are not ordered (`if x > y` raises per example); bool batches hit the
    # dead-lane bug of test_bool_batch_that_never_takes_the_subtracting_branch
    if x.dtype.kind not in "cb":
        _compare(piecewise, x, x[::-1].copy())
    _compare(poly, x)


@pytest.mark.parametrize("x", [
    np.array([-128, -1, 0, 5, 127], np.int8),
    np.array([0, 1, 2**63, 2**64 - 1], np.uint64),
    np.array([0, 7, 255], np.uint8),
    np.array([1 + 2j, -1j, 0j]),
    np.array([0.5, -3.0, 1e38, -1e-40], np.float32),
], ids=["int8", "uint64", "uint8", "complex", "float32"])
def test_input_dtype_edges(x):
    _compare(poly, x)
    if x.dtype.kind in "iuf":
        _compare(halve_int if x.dtype.kind in "iu" else guarded_np, x)


BOOL_DEAD_LANE = ("bug: dead-lane exception - the untaken branch is evaluated on every lane "
                  "and NumPy refuses `-` on bool arrays, so the batch raises TypeError where "
                  "no example takes that branch")


def test_bool_batch_that_never_takes_the_negating_branch():
    # (was a strict xfail, BOOL_DEAD_LANE: the dead lanes' TypeError now makes vectorize
    # replay numpy.vectorize, which gives the per-example results)
    _compare(sqrt_or_negate, np.array([True, True, True]))


def test_bool_batch_that_never_takes_the_subtracting_branch():
    _compare(piecewise, np.array([False, True]), np.array([False, True]))


# --------------------------------------------------------------------------------------------
# object arrays and strings: per-example fallback, or a clear VectorizeError


def test_object_array_falls_back_per_example():
    x = np.array([Fraction(1, 2), Fraction(-3, 4), 2], dtype=object)
    expected = np.vectorize(add_fraction)(x)
    with pytest.warns(VectorizeFallbackWarning):
        got = vectorize(add_fraction)(x)
    assert got.dtype == object
    assert list(got) == list(expected)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert list(vectorize(add_fraction, fallback="loop")(x)) == list(expected)


def test_strings_fall_back_per_example():
    x = np.array(["alpha", "beta", "gamma"])
    expected = np.vectorize(upper_first)(x)
    with pytest.warns(VectorizeFallbackWarning):
        got = vectorize(upper_first)(x)
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("x", [
    np.array([Fraction(1, 2), 2], dtype=object),
    np.array(["a", "b"]),
    np.array([b"a", b"b"]),
    np.array(["2020-01-01"], dtype="datetime64[D]"),
], ids=["object", "str", "bytes", "datetime"])
def test_unsupported_dtypes_give_a_clear_error(x):
    with pytest.raises(VectorizeError) as info:
        vectorize(add_fraction, fallback="error")(x)
    assert type(info.value) is VectorizeError
    message = str(info.value)
    assert "`v`" in message and str(x.dtype) in message
    assert "suggestion" in message


def test_dtype_error_points_at_the_function():
    with pytest.raises(VectorizeError) as info:
        vectorize(add_fraction, fallback="error")(np.array([Fraction(1, 2)], dtype=object))
    lines, start = inspect.getsourcelines(add_fraction)
    assert f"{inspect.getsourcefile(add_fraction)}:{start}" in str(info.value)


def _vmap_exact_or_clear(func, x):
    """vmap over an object / string batch: the per-example results, the exception the
    per-example function raises, or a VectorizeError; nothing else."""
    try:
        expected = [func(v) for v in x]
    except Exception as exc:  # noqa: BLE001 - compared by type below
        with pytest.raises((VectorizeError, type(exc))):
            vmap(func)(x)
        return
    try:
        got = vmap(func)(x)
    except VectorizeError as exc:
        assert type(exc) is VectorizeError
        return
    assert list(np.asarray(got)) == expected


def root(v):
    return math.sqrt(v)


def compare_to_zero(v):
    if v > 0:
        return v
    return -v


@pytest.mark.parametrize(("func", "x"), [
    (add_fraction, np.array([Fraction(1, 2), Fraction(-3, 4)], dtype=object)),
    (upper_first, np.array(["ab", "cd"])),
    (compare_to_zero, np.array(["a"])),
    (halve_int, np.array([4, 9, -3], dtype=object)),
], ids=["fractions", "str-method", "str-compare", "object-ints"])
def test_vmap_object_and_string_batches(func, x):
    _vmap_exact_or_clear(func, x)


def test_vmap_object_floats_with_math():
    _vmap_exact_or_clear(root, np.array([4.0, 9.0], dtype=object))


# --------------------------------------------------------------------------------------------
# shapes and calling conventions


def test_mismatched_shapes_numpy_broadcasting_error():
    with pytest.raises(ValueError) as ours:
        vectorize(piecewise, fallback="error")(np.zeros(3), np.zeros(4))
    with pytest.raises(ValueError):
        np.vectorize(piecewise)(np.zeros(3), np.zeros(4))
    assert not isinstance(ours.value, VectorizeError)
    assert "(3,)" in str(ours.value) and "(4,)" in str(ours.value)
    with pytest.raises(ValueError) as ours:
        vectorize(piecewise, fallback="error")(np.zeros((2, 3)), np.zeros((3, 2)))
    assert not isinstance(ours.value, VectorizeError)


BAD_CALLS = [
    pytest.param((np.zeros(3),), {}, id="too-few"),
    pytest.param((1.0, 2.0, 3.0), {}, id="too-many"),
    pytest.param((1.0,), {"z": 2.0}, id="unknown-keyword"),
    pytest.param((1.0, 2.0), {"z": 2.0}, id="extra-unknown-keyword"),
    pytest.param((1.0,), {"x": 2.0}, id="duplicate"),
]


def _direct_error(args, kwargs):
    with pytest.raises(TypeError) as direct:
        piecewise(*args, **kwargs)
    return direct.value


@pytest.mark.parametrize(("args", "kwargs"), BAD_CALLS)
def test_bad_calls_raise_type_error(args, kwargs):
    _direct_error(args, kwargs)
    with pytest.raises(TypeError):
        vectorize(piecewise, fallback="error")(*args, **kwargs)


@pytest.mark.parametrize(("args", "kwargs"), BAD_CALLS)
def test_bad_calls_use_pythons_wording(args, kwargs):
    direct = _direct_error(args, kwargs)
    with pytest.raises(TypeError) as ours:
        vectorize(piecewise, fallback="error")(*args, **kwargs)
    assert str(ours.value) == str(direct)


def test_keyword_arguments_work():
    x = np.linspace(-1, 1, 5)
    got = vectorize(piecewise, fallback="error")(x, y=0.25)
    np.testing.assert_array_equal(got, [piecewise(v, 0.25) for v in x])
    got = vectorize(piecewise, fallback="error")(y=x, x=0.25)
    np.testing.assert_array_equal(got, [piecewise(0.25, v) for v in x])


# --------------------------------------------------------------------------------------------
# functions without (plain) source


class Scaler:
    factor = 3.0

    def method(self, x):
        if x > 0:
            return x * self.factor
        return x

    @classmethod
    def klass(cls, x):
        return x * cls.factor

    @staticmethod
    def static(x):
        return x - 1

    def __call__(self, x):
        return x + self.factor


_NS: dict = {}
exec("def made_by_exec(x):\n    if x > 0:\n        return x * 2\n    return -x\n", _NS)

square_or_negate = lambda x: x * x if x > 0 else -x  # noqa: E731


WITHOUT_SOURCE = {
    "builtin-abs": abs,
    "math.sin": math.sin,
    "np.sin-ufunc": np.sin,
    "partial-positional": functools.partial(piecewise, 0.5),
    "partial-keyword": functools.partial(piecewise, y=0.5),
    "bound-method": Scaler().method,
    "classmethod": Scaler.klass,
    "staticmethod": Scaler.static,
    "callable-object": Scaler(),
    "lambda": square_or_negate,
    "exec": _NS["made_by_exec"],
}


@pytest.mark.parametrize("name", list(WITHOUT_SOURCE))
def test_functions_without_plain_source(name):
    func = WITHOUT_SOURCE[name]
    x = np.linspace(-2, 2, 7)
    lanes, shape, raised = loop_reference(func, x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", VectorizeFallbackWarning)
        assert_lanes_equal(vectorize(func)(x), lanes, shape, raised)
    assert_lanes_equal(vectorize(func, fallback="loop")(x), lanes, shape, raised)
    try:
        got = vectorize(func, fallback="error")(x)
    except VectorizeError as exc:
        assert type(exc) is VectorizeError and "suggestion" in str(exc)
    else:
        assert_lanes_equal(got, lanes, shape, raised)


VMAP_BUGS: dict[str, str] = {}   # all fixed


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=[pytest.mark.xfail(strict=True, reason=VMAP_BUGS[n])]
                 if n in VMAP_BUGS else []) for n in WITHOUT_SOURCE])
def test_vmap_functions_without_plain_source(name):
    func = WITHOUT_SOURCE[name]
    x = np.linspace(-2, 2, 7)
    expected = np.stack([np.asarray(func(v)) for v in x])
    for fallback in ("loop", "error"):
        try:
            got = vmap(func, fallback=fallback)(x)
        except VectorizeError as exc:
            assert fallback == "error" and type(exc) is VectorizeError
            assert "suggestion" in str(exc)
            assert "is not defined" not in str(exc)
            continue
        np.testing.assert_allclose(got, expected)


def test_one_line_def():
    _compare(one_line, np.linspace(-1, 1, 5))


def test_self_recursion_is_written_out():
    n = np.arange(-1, 12)
    got = vectorize(countdown, fallback="error")(n)
    np.testing.assert_array_equal(got, np.vectorize(countdown)(n))
    assert got.dtype == np.vectorize(countdown)(n).dtype
    np.testing.assert_array_equal(vmap(countdown)(n), [countdown(k) for k in n])


def test_mutually_recursive_functions_give_a_clear_error():
    for func in (ping,):
        with pytest.raises(VectorizeError) as info:
            vectorize(func, fallback="error")(np.arange(4))
        message = str(info.value)
        assert "recurs" in message.lower() or "calls itself" in message
        assert f"{inspect.getsourcefile(func)}:" in message
        assert "suggestion" in message
        with pytest.raises(VectorizeError):
            vmap(func)(np.arange(4))
        with pytest.warns(VectorizeFallbackWarning):
            got = vectorize(func)(np.arange(4))
        np.testing.assert_array_equal(got, [func(n) for n in range(4)])


# --------------------------------------------------------------------------------------------
# a module whose globals change between calls

MODULE_SOURCE = '''
import math

SCALE = 2.0
OFFSET = 1


def helper(x):
    return x * SCALE


def f(x):
    if x > 0:
        return helper(x) + OFFSET
    return math.fabs(x) - SCALE


def g(n):
    return n * OFFSET
'''


@pytest.fixture
def user_module(tmp_path):
    path = tmp_path / "hostile_user_module.py"
    path.write_text(textwrap.dedent(MODULE_SOURCE))
    spec = importlib.util.spec_from_file_location("hostile_user_module", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


def _per_example(func, x):
    return np.array([func(v) for v in x])


def test_module_global_changes_are_seen(user_module):
    x = np.array([-1.5, 0.0, 2.0, 3.5])
    vf = vectorize(user_module.f, fallback="error")
    vm = vmap(user_module.f)
    for change in (lambda m: None,
                   lambda m: setattr(m, "SCALE", 10.0),
                   lambda m: setattr(m, "OFFSET", 0.25),
                   lambda m: setattr(m, "helper", lambda v: v - 100.0),
                   lambda m: setattr(m, "SCALE", -1.0)):
        change(user_module)
        expected = _per_example(user_module.f, x)
        np.testing.assert_array_equal(vf(x), expected)
        np.testing.assert_array_equal(vm(x), expected)
    assert len(vf._specs) <= vapi.MAX_SPECIALIZATIONS


def test_module_global_type_change_changes_dtype(user_module):
    n = np.array([1, 2, 3])
    vf = vectorize(user_module.g, fallback="error")
    assert vf(n).dtype.kind == "i"
    user_module.OFFSET = 0.5
    got = vf(n)
    np.testing.assert_array_equal(got, _per_example(user_module.g, n))
    assert got.dtype.kind == "f"


def test_respecializations_do_not_grow_memory(user_module):
    import linecache

    x = np.linspace(-1, 1, 8)
    vf = vectorize(user_module.f, fallback="error")
    vf(x)
    entries = len(linecache.cache)
    for i in range(100):
        user_module.SCALE = 1.0 + i
        np.testing.assert_array_equal(vf(x), _per_example(user_module.f, x))
    assert len(vf._specs) <= vapi.MAX_SPECIALIZATIONS
    assert len(linecache.cache) - entries <= vapi.MAX_SPECIALIZATIONS + 8


def test_closure_changes_are_seen():
    k = 1.0

    def scaled(x):
        if x > 0:
            return x * k
        return x

    x = np.array([-1.0, 2.0, 3.0])
    vf = vectorize(scaled, fallback="error")
    np.testing.assert_array_equal(vf(x), _per_example(scaled, x))
    k = 10.0
    np.testing.assert_array_equal(vf(x), _per_example(scaled, x))


# --------------------------------------------------------------------------------------------
# concurrency, bounded cache, memory


@pytest.fixture
def count_transforms(monkeypatch):
    calls = []
    original = vtransform.transform_function

    def counting(*args, **kwargs):
        calls.append(threading.get_ident())
        import time
        time.sleep(0.02)            # widen the window in which other threads arrive
        return original(*args, **kwargs)

    monkeypatch.setattr(vtransform, "transform_function", counting)
    return calls


def _race(call, n_threads=16):
    barrier = threading.Barrier(n_threads)

    def work(i):
        barrier.wait()
        return i, call(i)

    with ThreadPoolExecutor(n_threads) as pool:
        return list(pool.map(work, range(n_threads)))


def test_concurrent_first_calls_build_one_specialization(count_transforms):
    x = np.linspace(-2, 2, 101)
    y = x[::-1].copy()
    vf = vectorize(piecewise, fallback="error")
    results = _race(lambda i: vf(x * i, y))
    for i, got in results:
        np.testing.assert_array_equal(got, np.where(x * i > y, x * i - y, x * i * y))
    assert len(count_transforms) == 1
    assert len(vf._specs) == 1


def test_concurrent_first_calls_with_distinct_keys(count_transforms):
    inputs = [np.linspace(-2, 2, 11).astype(d) for d in (np.float64, np.float32)] + \
             [np.arange(-5, 6, dtype=d) for d in (np.int64, np.int8)]
    vf = vectorize(guarded_np, fallback="error")
    results = _race(lambda i: vf(inputs[i % 4]))
    for i, got in results:
        lanes, shape, raised = loop_reference(guarded_np, inputs[i % 4])
        assert_lanes_equal(got, lanes, shape, raised)
    # (float32 and int8: one transform for the code, in float64 or int64, one for the
    # output types)
    assert len(count_transforms) == 6
    assert len(vf._specs) == 4


def test_concurrent_first_calls_vmap(count_transforms):
    x = np.linspace(-2, 2, 21)
    vm = vmap(piecewise, in_axes=(0, None))
    results = _race(lambda i: vm(x, float(i)))
    for i, got in results:
        np.testing.assert_array_equal(got, [piecewise(v, float(i)) for v in x])
    assert len(count_transforms) == 1


def test_concurrent_fallback_warns_once():
    x = np.linspace(-2, 2, 5)
    vf = vectorize(ping)  # (mutual recursion: refused, run per example)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = _race(lambda i: vf(np.arange(5)))
    assert all(list(got) == [0, 1, 2, 3, 4] for _, got in results)
    assert len([w for w in caught if issubclass(w.category, VectorizeFallbackWarning)]) == 1
    del x


def test_number_of_specializations_is_bounded():
    # (fallback="loop": a NumPy scalar of another width than the batch is numpy.vectorize's)
    vf = vectorize(piecewise, fallback="loop")
    kinds = [np.float64, np.float32, np.float16, np.int8, np.int16, np.int32, np.int64,
             np.uint8]
    calls = 0
    for a in kinds:
        for b in kinds:
            for pattern in range(2):
                x = np.arange(1, 4).astype(a)
                y = np.arange(3, 0, -1).astype(b) if pattern else b(2)
                vf(x, y)
                calls += 1
                assert len(vf._specs) <= vapi.MAX_SPECIALIZATIONS
    assert calls > vapi.MAX_SPECIALIZATIONS
    # evicted specializations are rebuilt correctly
    x = np.linspace(-1, 1, 5)
    np.testing.assert_array_equal(vf(x, 0.0), [piecewise(v, 0.0) for v in x])


def _growth(call, n=2000):
    for _ in range(50):
        call()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        for _ in range(n):
            call()
        gc.collect()
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    return sum(stat.size_diff for stat in after.compare_to(before, "filename"))


@pytest.mark.parametrize("entry", ["vectorize", "vmap", "vectorize-broadcast", "fallback"])
def test_warm_calls_do_not_grow_memory(entry):
    x = np.linspace(-2, 2, 64)
    y = x[::-1].copy()
    if entry == "vectorize":
        vf = vectorize(piecewise, fallback="error")
        call = lambda: vf(x, y)
    elif entry == "vmap":
        vm = vmap(piecewise)
        call = lambda: vm(x, y)
    elif entry == "vectorize-broadcast":
        vf = vectorize(piecewise, fallback="error")
        call = lambda: vf(x[:, None], 0.5)
    else:
        vf = vectorize(ping, fallback="loop")
        n = np.arange(4)
        call = lambda: vf(n)
    assert _growth(call, 2000 if entry != "fallback" else 300) < 64 * 1024
