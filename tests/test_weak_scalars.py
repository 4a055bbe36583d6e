"""Narrow dtypes and Python numbers under `vectorize`, against numpy.vectorize itself.

numpy.vectorize calls the function once on the first example's NumPy scalars (`np.int8`,
`np.float32`, `np.bool_`...) to learn the output types, with NumPy's scalar promotion, in
which Python numbers are weak (NEP 50: `np.float32(x) * math.sqrt(2)` is float32, `np.sin`
of an `np.int8` float16); then it hands every example, the first again, as Python numbers
(int, float, complex, bool) and converts the Python results to those types (NaN into an int
type raises ValueError, a too large int OverflowError). `vectorize` must give the same values
(NaN, zero signs included), dtype and exception type."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from vectorize import VectorizeError, vectorize


def scaled(x):
    return x * 0.1 / 3


def shifted(x):
    return x + 1


def sine(x):
    return np.sin(x) + 0.5


def with_math(x):
    return math.sqrt(abs(x)) * x


def as_float(x):
    return float(x) + x


def smaller(x):
    return min(x, 2)


def larger_half(x):
    return max(x, 0.5)


def either(x):
    return x and 3


def other(x):
    return x or 2.5


def chosen(x):
    return x if x > 1 else 0.25


def branchy(x):
    if x > 2:
        r = x * 3
    else:
        r = 1.5
    return r


def listed(x):
    return sum([x, x, 1])


def big(x):
    return x * 1000000007


def pair(x):
    return x - 1, x * 0.5


FUNCTIONS = [scaled, shifted, sine, with_math, as_float, smaller, larger_half, either,
             other, chosen, branchy, listed, big, pair]
DTYPES = ["int8", "int16", "int32", "uint8", "uint16", "uint32", "uint64", "float16",
          "float32", "bool"]
OURS = {}


def ours(func):
    if func not in OURS:
        OURS[func] = vectorize(func, fallback="error")
    return OURS[func]


def outcome(fn, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return fn(*args), None
        except Exception as exc:     # noqa: BLE001 -- compared by type
            return None, exc


def assert_same(expected, got):
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for e, g in zip(expected, got):
            assert_same(e, g)
        return
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)      # bit for bit (NaN equal to NaN)
    if expected.dtype.kind in "fc":     # zero signs (a NaN's sign is unspecified: IEEE 754)
        same = np.signbit(got.real) == np.signbit(expected.real)
        assert same[~np.isnan(expected.real)].all()


def check(func, *args):
    expected, error = outcome(np.vectorize(func), *args)
    got, our_error = outcome(ours(func), *args)
    if func is listed and np.asarray(args[0]).dtype == np.uint64:
        # a list of uint64 and Python int values: NumPy's array of them is float64, Python's
        # ints are exact: refused where the list is made (the loop gives numpy.vectorize's)
        assert isinstance(our_error, VectorizeError), our_error
        assert "unsigned and signed" in str(our_error)
        got, our_error = outcome(vectorize(func, fallback="loop"), *args)
    if error is not None:
        assert our_error is not None and type(our_error) is type(error), (error, our_error,
                                                                           got)
        return
    assert our_error is None, our_error
    assert_same(expected, got)


def edges(dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return [False, True]
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return [0, 1, 2, 3, info.max, info.min, info.max - 1] + ([-1, -2] if info.min else [])
    info = np.finfo(dtype)
    return [0.0, -0.0, 1.5, -2.25, np.nan, np.inf, -np.inf, float(info.max), float(info.tiny),
            float(info.smallest_subnormal), 3.0, 0.1]


def batch(dtype, n, seed=0):
    rng = np.random.default_rng(seed)
    values = edges(dtype)
    return np.array([values[k] for k in rng.integers(0, len(values), n)], dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_narrow_dtypes_match_numpy_vectorize(dtype, data):
    func = data.draw(st.sampled_from(FUNCTIONS), label="func")
    x = data.draw(hnp.arrays(dtype, st.integers(1, 6), elements=hnp.from_dtype(
        np.dtype(dtype))), label="x")
    check(func, x)


@pytest.mark.parametrize("n", [1, 5, 10_000])
@pytest.mark.parametrize("dtype", DTYPES)
def test_sizes_with_edge_values(dtype, n):
    x = batch(dtype, n, seed=n)
    for func in FUNCTIONS:
        check(func, x)
        if n > 1:       # a first example that takes the other path
            check(func, x[::-1].copy())
    if n == 10_000:     # the same call again, warm
        for func in (scaled, sine, chosen):
            check(func, x)


@pytest.mark.parametrize("dtype", DTYPES)
def test_empty_batches_with_otypes(dtype):
    x = np.zeros(0, dtype)
    for func, otypes in ((scaled, [np.float32]), (shifted, [np.int8]), (pair, "lf")):
        assert_same(np.vectorize(func, otypes=otypes)(x),
                    vectorize(func, otypes=otypes, fallback="error")(x))


def mixed(x, y):
    return min(x, y)


def plus(x, y):
    return x + y * 0.5


@pytest.mark.parametrize("other", ["float64", "int64", "float32", "int8", "bool"])
@pytest.mark.parametrize("dtype", ["int8", "uint16", "float16", "float32", "bool"])
def test_two_arguments_of_different_dtypes(dtype, other):
    x, y = batch(dtype, 50, seed=1), batch(other, 50, seed=2)
    for func in (mixed, plus):
        check(func, x, y)
        check(func, y, x)


def test_value_dependent_types_of_wide_arrays():
    # float64 / int64 arguments too: the type is the first example's branch's
    x = np.array([1.5, -0.0, np.nan, 7.0])
    n = np.array([3, -4, 2 ** 62, 0])
    for func in (smaller, larger_half, either, other, chosen, branchy):
        check(func, x)
        check(func, x[::-1].copy())
        check(func, n)
        check(func, n[::-1].copy())
    check(mixed, n, x)
    check(mixed, x, n)


def test_first_example_raising_raises_as_numpy_vectorize():
    # np.int8(5) * 1000000007 raises OverflowError in numpy.vectorize's first call (NEP 50:
    # a Python int beyond int8), before any example
    check(big, np.array([5, 6], np.int8))
    with pytest.raises(OverflowError):
        ours(big)(np.array([5, 6], np.int8))


def test_narrow_int_results_beyond_their_type_raise():
    # 127 + 1 is the Python int 128, which int8 cannot hold (numpy.vectorize: OverflowError);
    # the batch computed it in int8 and wrapped
    with pytest.raises(OverflowError):
        ours(shifted)(np.array([3, 127], np.int8))
    assert_same(np.vectorize(shifted)(np.array([3, 126], np.int8)),
                ours(shifted)(np.array([3, 126], np.int8)))


def test_sine_of_int8_is_float16_of_the_double():
    # per example np.sin of a Python int is a float64, stored in numpy.vectorize's float16
    x = np.arange(-128, 128, dtype=np.int8)
    got = ours(sine)(x)
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got, (np.sin(x.astype(np.float64)) + 0.5).astype(np.float16))


def test_sum_of_a_list_of_int64_raises_where_the_total_does_not_fit():
    x = np.array([1, 2 ** 62, -(2 ** 62)], np.int64)
    with pytest.raises(OverflowError):
        ours(listed)(x)     # 2**62 + 2**62 + 1 is beyond int64
    check(listed, np.array([1, 2 ** 61, -(2 ** 62)], np.int64))


def augmented(x):
    y = np.zeros(3, dtype=int)
    y[1] += x
    return y[1]


def augmented_unsigned(x):
    y = np.zeros(3, dtype=np.uint8)
    y[1] -= x
    return y[1]


@pytest.mark.parametrize("n", [1, 5, 10_000])
def test_a_float_added_into_an_int_item_raises_as_the_example(n):
    # per example `y[1] += x` is `y[1] = y[1] + x`: the NumPy float converts into the int
    # array as int() does (NaN: ValueError, inf and beyond int64: OverflowError); the batch
    # cast it into an arbitrary int (found: -9223372036854775808)
    rng = np.random.default_rng(n)
    fine = rng.normal(0, 100, n)
    check(augmented, fine)
    for bad in (np.nan, np.inf, -np.inf, 1e30):
        x = fine.copy()
        x[n // 2] = bad
        check(augmented, x)
        check(augmented_unsigned, x)    # (an unsigned array wraps a NumPy float: no raise)


def shared_scale(x, s):
    return math.sqrt(abs(x)) + float(s * 3) * 2


def shared_meets(x, s):
    return x * s


def sine_plus(b, y):
    return np.sin(b) + y


def narrowed_equal(x, y):
    return np.float32(x) == y


@pytest.mark.parametrize("n", [1, 5, 1000])
@pytest.mark.parametrize("s", [np.float32(0.1), np.float16(0.1), np.complex64(1 + 2j)],
                         ids=lambda s: type(s).__name__)
def test_a_narrow_numpy_scalar_argument(s, n):
    # numpy.vectorize hands it on as it is: in NumPy operations with NumPy values and
    # literals it is what the batch makes of it (vectorized), while a per-example Python
    # number meeting it in arithmetic takes its type (NEP 50), which the batch's float64
    # arrays would not: the Python number is made that type there (`np.float32(x) * s`)
    x = np.linspace(-3, 3, n)
    if not np.iscomplexobj(s):
        expected = np.vectorize(shared_scale)(x, s)
        assert_same(expected, vectorize(shared_scale, fallback="error")(x, s))
    assert_same(np.vectorize(shared_meets)(x, s), vectorize(shared_meets, fallback="error")(x, s))


def test_narrow_numpy_values_meeting_python_numbers_computed_or_refused_in_comparisons():
    # per example `np.sin(True)` is a float16 and `+ y` of a Python float stays float16:
    # computed so (`np.float16(y)`); `np.float32(x) == y` compares in float32 (0.1 ==
    # np.float32(0.1) per example), where the batch gave False: refused
    b = np.array([True, False, True])
    y = np.array([0.1, 0.7, 1.5])
    # (a Python int argument, the same for every example, is weak per example too)
    for func, args in ((sine_plus, (b, y)), (sine_plus, (b, 3))):
        assert_same(np.vectorize(func)(*args), vectorize(func, fallback="error")(*args))
    for func, args in ((narrowed_equal, (y, y)),):
        with pytest.raises(VectorizeError, match="NEP 50") as info:
            vectorize(func, fallback="error")(*args)
        assert info.value.line == func.__code__.co_firstlineno + 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert_same(np.vectorize(func)(*args), vectorize(func)(*args))


def math_scaled(x):
    return x * math.sqrt(2.0) + math.floor(x)


def test_vmap_math_results_meeting_float32_stay_float32():
    # under vmap a math.* result is a Python float per example, weak against a float32
    # (NEP 50: a float32 result); the batch's math results are float64 arrays (and
    # `math.sqrt(2.0)` a NumPy float64), converted to float32 where they meet one
    from vectorize import vmap
    x = np.array([1.5, 2.5, -0.1], np.float32)
    expected = np.array([math_scaled(v) for v in x])
    got = vmap(math_scaled)(x)
    assert got.dtype == expected.dtype == np.float32
    np.testing.assert_array_equal(got, expected)


def root_scaled(x):
    return x * math.sqrt(abs(x)) - float(x) / 3


def exp_times(x):
    y = math.exp(min(x, 10.0))
    return y * x + math.pi


def compared(x):
    return x == float(x) * 1.0 + (x < math.sqrt(2.0)) + (x > math.floor(x))


def complex_scaled(z):
    return z * complex(1.0, math.e) + abs(z)


@pytest.mark.parametrize("func", [math_scaled, root_scaled, exp_times, compared])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64])
@pytest.mark.parametrize("backend", ["numpy", "jax"])
def test_vmap_python_numbers_meeting_narrow_floats_as_the_loop(func, dtype, backend):
    # NEP 50 (NumPy, JAX and torch.func alike): a Python number per example takes the
    # narrow float's type where they meet
    from vectorize import vmap
    if backend == "jax":
        pytest.importorskip("jax")
        if dtype is not np.float32:
            return      # (every call an XLA compile: float32 is the case; JAX's float16
            #             arithmetic rounds differently from NumPy's scalars)
    values = np.array([1.5, 2.5, -0.1, 0.0, -0.0, 7.25, -3.0, 1e4], dtype)
    wrapped = vmap(func, backend=backend)
    for n in ((0, 1, 5, 10_000) if backend == "numpy" else (0, 1, 8)):
        x = np.resize(values, n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            got = np.asarray(wrapped(x))
            if n == 0:
                assert got.shape == (0,)
                continue
            expected = np.array([func(v) for v in x])
        assert got.dtype == expected.dtype, (n, got.dtype, expected.dtype)
        # (XLA's float32 arithmetic may round an ulp apart, which a cancellation shows)
        np.testing.assert_allclose(got, expected, rtol=1e-5 if backend == "jax" else 0)


def test_vmap_python_numbers_meeting_complex64_as_the_loop():
    from vectorize import vmap
    z = np.array([1 + 2j, -0.5j, 3.0, 0j], np.complex64)
    expected = np.array([complex_scaled(v) for v in z])
    got = vmap(complex_scaled)(z)
    assert got.dtype == expected.dtype == np.complex64
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def modulo(x, y):
    return x % y


def test_uint64_meeting_a_signed_int_is_refused_where_they_meet():
    # per example Python ints (exact); NumPy computes uint64 % int64 in float64: the batch
    # gave 1.0 for (2**64 - 1) % 3, which is 0
    x = np.array([2 ** 64 - 1, 2 ** 63 + 5, 7], np.uint64)
    with pytest.raises(VectorizeError, match="uint64") as info:
        vectorize(modulo, fallback="error")(x, 3)
    assert info.value.line == modulo.__code__.co_firstlineno + 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_same(np.vectorize(modulo)(x, 3), vectorize(modulo)(x, 3))
    check(modulo, x, np.uint64(3))      # (uint64 with uint64: exact, vectorized)



@pytest.mark.parametrize("otype", [np.float32, np.float16, np.complex64])
def test_an_int_converts_to_a_narrow_float_through_a_double(otype):
    # numpy.vectorize converts the examples' Python ints through a double (twice rounded):
    # int64 -> float32 directly gives 1.1529216e+18 for 2**60 + 2**36 + 1, it 1.1529215e+18
    from vectorize.api import _cast
    n = np.array([2 ** 60 + 2 ** 36 + 1, 3, -(2 ** 62) - 2 ** 38 - 1, 70000], np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = np.asanyarray(np.array(n.tolist(), dtype=object), dtype=otype)
        assert_same(expected, _cast(n, otype))
