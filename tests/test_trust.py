"""Silently wrong results found by reviewing the engine against its contract (issue 20): the
source read from a file edited after import, types the analysis got wrong, warnings and
exceptions numpy.vectorize does not give."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
import warnings

import numpy as np
import pytest

from vectorize import VectorizeError, VectorizeFallbackWarning, diskcache, vectorize, vmap

_count = [0]


def load(tmp_path, text: str, name: str | None = None):
    """``text`` written to a module file and imported (a new module object each time)."""
    _count[0] += 1
    name = name or f"vz_trust_{_count[0]}"
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(text))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module, path


def edit(path, text: str) -> None:
    path.write_text(textwrap.dedent(text))


# ------------------------------------------------- a file edited after its module was imported

OLD = """\
    def f(x):
        return x + 1.0


    def helper(x):
        return x - 3.0


    def g(x):
        return helper(x) * 2.0
    """
NEW = """\
    def f(x):
        return x * 100.0


    def helper(x):
        return x + 30.0


    def g(x):
        return helper(x) * 2.0
    """


@pytest.mark.parametrize("name", ["f", "g"])
@pytest.mark.parametrize("front", ["vectorize", "vmap"])
def test_a_file_edited_after_import_is_refused(tmp_path, name, front):
    module, path = load(tmp_path, OLD)
    edit(path, NEW)
    fn = getattr(module, name)
    x = np.arange(5.0)
    wrapped = vectorize(fn, fallback="error") if front == "vectorize" else vmap(fn)
    with pytest.raises(VectorizeError, match="file changed since") as info:
        wrapped(x)
    assert info.value.filename == str(path)
    assert info.value.line == (1 if name == "f" else 5)    # the edited function's def


def test_a_file_edited_after_import_falls_back_to_the_function_itself(tmp_path):
    module, path = load(tmp_path, OLD)
    edit(path, NEW)
    x = np.arange(5.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = vectorize(module.g, fallback="loop")(x)
    np.testing.assert_array_equal(got, np.vectorize(module.g)(x))
    np.testing.assert_array_equal(got, (x - 3.0) * 2.0)


def test_an_edited_file_gives_no_disk_cache_key(tmp_path):
    module, path = load(tmp_path, OLD)
    diskcache.function_print(module.f)
    edit(path, NEW)
    with pytest.raises(diskcache.Uncacheable, match="not its code"):
        diskcache.function_print(module.f)


def test_an_edited_file_does_not_reuse_the_new_texts_disk_cache_entry(tmp_path):
    """Another process imported the new text and cached its code; this one still runs the
    old function: the entry (same module, name, file and lines) must not be used."""
    name = f"vz_trust_disk_{_count[0] + 1}"
    old, path = load(tmp_path, OLD, name)
    edit(path, NEW)
    new, _ = load(tmp_path, NEW, name)
    cache = tmp_path / "cache"
    x = np.arange(5.0)
    np.testing.assert_array_equal(vectorize(new.f, cache_dir=cache)(x), x * 100.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = vectorize(old.f, cache_dir=cache)(x)
    np.testing.assert_array_equal(got, x + 1.0)


UNCHANGED = """\
    from __future__ import annotations

    import math


    class Base:
        def scale(self, x):
            return x * 2.0


    class Shape(Base):
        __k = 3.0

        def area(self, x: float) -> float:
            return super().scale(x) + self.__k


    def outer(c):
        d = c * 2.0

        def inner(x):
            e = [d, c]
            return x * e[0] + e[1] + math.pi
        return inner


    pairs = [(1, 2),
             (3, lambda x:
                  x * 3.0 + 1.0)]


    def documented(x):
        '''A docstring.
    over lines'''
        s = '''a string
    at column 0'''
        return x + len(s)
    """


def test_unchanged_files_are_not_refused(tmp_path):
    module, _ = load(tmp_path, UNCHANGED)
    x = np.array([0.0, 1.5, -2.0])
    inner = module.outer(0.5)
    np.testing.assert_allclose(vectorize(inner, fallback="error")(x),
                               np.vectorize(inner)(x))
    lam = module.pairs[1][1]
    np.testing.assert_allclose(vectorize(lam, fallback="error")(x), x * 3.0 + 1.0)
    np.testing.assert_allclose(vectorize(module.documented, fallback="error")(x),
                               np.vectorize(module.documented)(x))
    from vectorize.source import read_function
    for fn in (module.Shape.area, inner, lam, module.documented, module.Base.scale):
        read_function(fn)       # no refusal
    diskcache.function_print(inner)


# (found by the fuzzers: 1 generated program in 10 was refused as "not the code it runs") a
# module-level `np.clip(...)` call is LOAD_METHOD in the recompiled function and LOAD_ATTR in
# the module's, so the jumps over it cover another number of bytes, and one of them needed an
# EXTENDED_ARG prefix in one compile and not in the other
LONG_JUMPS = """\
    import math

    import numpy as np


    def f(x, y):
        if ((x if (x < x) else y) == x):
            v0 = math.fmod(np.arctan2((x ** -1.0), (y ** 2)), -2.5)
            v1 = (float((v0 != v0 != y)) + math.copysign((y - -math.inf),
                  (0.0 if math.isnan(np.rint(v0)) else np.rint(v0))))
            for i0 in range(3):
                v2, v3 = ((x * i0) * (-1.0 * x)), x
                v4, v5 = divmod(((math.inf and y) + x), x)
                v6 = v3
        x = np.clip(np.where((y == y), (x + x), (x and y)), -1.0, 1.0)
        return 1.0
    """


@pytest.mark.parametrize("n", [0, 1, 5, 10_000])
def test_a_jump_with_an_extended_arg_in_one_compile_only_is_the_same_code(tmp_path, n):
    from vectorize.introspect import source_lines, source_matches_code
    module, _ = load(tmp_path, LONG_JUMPS)
    lines, _ = source_lines(module.f)
    assert source_matches_code(module.f, textwrap.dedent("".join(lines)))
    x = np.linspace(-2.0, 2.0, n)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(vectorize(module.f, fallback="error")(x, x + 0.5),
                                      np.vectorize(module.f, otypes=[float])(x, x + 0.5))


def test_a_method_is_compiled_in_its_class(tmp_path):
    from vectorize.introspect import source_matches_code
    module, _ = load(tmp_path, UNCHANGED)
    text = "def area(self, x: float) -> float:\n    return super().scale(x) + self.__k\n"
    assert source_matches_code(module.Shape.area, text)
    assert not source_matches_code(module.Shape.area, text.replace("__k", "_k"))
    assert not source_matches_code(module.Shape.area, text.replace("scale(x)", "scale(-x)"))


# ------------------------------------------------------------------- types of min and max

MINMAX = """\
    def low(x):
        return int(min(x, 2.5)) * 1.0


    def high(x):
        return int(max(2.5, x)) + 0.0


    def low3(x, y):
        return int(min(x, y, 2.5))
    """


@pytest.mark.parametrize("dtype", ["int64", "int8", "uint8"])
@pytest.mark.parametrize("n", [0, 1, 5, 10_000])
def test_int_of_min_of_an_int_and_a_float_keeps_its_int(tmp_path, dtype, n):
    """min(3, 2.5) is the float 2.5 and int() of it 2: the analysis took min/max of an int
    and a float for an int (the example's choice) and dropped int(), giving 2.5."""
    module, _ = load(tmp_path, MINMAX)
    rng = np.random.default_rng(n)
    x = rng.integers(0, 9, n).astype(dtype)
    y = rng.integers(0, 9, n).astype(dtype)
    for fn, args in ((module.low, (x,)), (module.high, (x,)), (module.low3, (x, y))):
        loop = [fn(*[a[i] for a in args]) for i in range(n)]
        got = vmap(fn)(*args)
        np.testing.assert_array_equal(got, np.array(loop, dtype=got.dtype))
        if n:
            np.testing.assert_array_equal(vectorize(fn, fallback="error")(*args),
                                          np.vectorize(fn)(*args))


# ------------------------------------------------- the float power's overflow check

POWERS = """\
    import math


    def dead_lane(a, b):
        if a < 0:
            return math.pow(-a, b)
        return 0.0


    def power(a, b):
        if a < 0:
            return abs(a) ** b
        return -1.0


    def raising(a, b):
        return abs(a) ** b
    """


@pytest.mark.parametrize("name", ["dead_lane", "power"])
@pytest.mark.parametrize("n", [0, 1, 5, 10_000])
def test_the_float_power_check_computes_no_power(tmp_path, name, n):
    """The overflow check of ``a ** b`` / ``math.pow`` computed ``abs(a) ** b`` on every lane:
    NumPy's overflow RuntimeWarning leaked where numpy.vectorize gives none (a lane the `if`
    keeps out, or any lane before the OverflowError)."""
    module, _ = load(tmp_path, POWERS)
    fn = getattr(module, name)
    rng = np.random.default_rng(n)
    a = np.where(rng.random(n) < 0.5, 1e300, -rng.uniform(0.5, 3, n))
    b = np.where(a > 0, 1e10, rng.uniform(-3, 3, n))
    a[:1] = 5.0                     # the first example takes the dead lane
    wrapped = vectorize(fn, fallback="error")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = wrapped(a, b)
    if n:     # (NumPy's array power and libm's pow may differ in the last bit)
        np.testing.assert_allclose(got, np.vectorize(fn)(a, b), rtol=1e-14)
    assert got.shape == (n,)


def test_the_float_power_check_raises_without_a_warning(tmp_path):
    module, _ = load(tmp_path, POWERS)
    a, b = np.array([2.0, 3.0, 10.0, 0.5]), np.array([3.0, 2.0, 400.0, -2000.0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(OverflowError):
            vectorize(module.raising, fallback="error")(a, b)
        with pytest.raises(OverflowError):
            np.vectorize(module.raising)(a, b)
    # numpy.vectorize itself warns for none of them (its first example is 2.0 ** 3.0)
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)]
    np.testing.assert_array_equal(vectorize(module.raising, fallback="error")(a[:2], b[:2]),
                                  [8.0, 9.0])


# ------------------------------------------------- np.arange with a step of 0

RANGES = """\
    import numpy as np


    def total(n, s):
        return np.sum(np.arange(0, n, s))


    def guarded(n, s):
        if s != 0:
            return np.sum(np.arange(0, n, s))
        return -1
    """


@pytest.mark.parametrize("n_examples", [1, 5, 10_000])
def test_a_range_with_a_zero_step_raises_as_numpy_vectorize(tmp_path, n_examples):
    """The padded range of a reduction made a step of 0 an empty range (0 and a warning)
    where numpy.vectorize raises ZeroDivisionError."""
    module, _ = load(tmp_path, RANGES)
    rng = np.random.default_rng(n_examples)
    n = rng.integers(0, 9, n_examples)
    s = rng.integers(1, 3, n_examples)
    wrapped = vectorize(module.total, fallback="error")
    np.testing.assert_array_equal(wrapped(n, s), np.vectorize(module.total)(n, s))
    s[-1] = 0
    # (Python ints raise ZeroDivisionError; numpy.vectorize's first example is a NumPy
    # scalar, whose arange raises ValueError)
    with pytest.raises((ZeroDivisionError, ValueError)) as expected:
        np.vectorize(module.total)(n, s)
    with pytest.raises(expected.type):
        wrapped(n, s)
    guarded = vectorize(module.guarded, fallback="error")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(guarded(n, s), np.vectorize(module.guarded)(n, s))


# ------------------------------------------------- sum of a list of NumPy scalars (vmap)

SUMS = """\
    def three(x, y):
        return sum([y, x, 7.0])


    def two(x, y):
        return sum([y, x])


    def guarded(x, y):
        if x > 100:
            r = sum((y, x))
        else:
            r = x
        return r
    """


@pytest.mark.parametrize("dtype", ["uint8", "int8", "float32", "float64"])
@pytest.mark.parametrize("n", [0, 1, 5, 10_000])
def test_sum_of_a_list_adds_as_the_numpy_scalars_do(tmp_path, dtype, n):
    """vmap's reference is the loop over NumPy scalars: `sum([y, x])` of two uint8 wraps
    (200 + 100 is 44) and stays uint8; the batch stacked the items (promoted together) and
    summed them in int64 (300)."""
    module, _ = load(tmp_path, SUMS)
    rng = np.random.default_rng(n)
    x = rng.integers(0, 250, n).astype(dtype)
    y = rng.integers(0, 250, n).astype(dtype)
    for fn in (module.three, module.two, module.guarded):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            loop = [fn(a, b) for a, b in zip(x, y)]
        got = vmap(fn)(x, y)
        assert got.shape == (n,)
        if n:
            expected = np.array(loop)
            assert got.dtype == expected.dtype
            np.testing.assert_array_equal(got, expected)
        shared = vmap(fn, in_axes=(0, None))(x, y[0] if n else y.dtype.type(7))
        assert shared.shape == (n,)


# ------------------------------------------------- round(n, -k) of ints near the dtype's ends

ROUNDS = """\
    def tens(y):
        return round(y, -1)


    def hundreds(y):
        return round(y, -2) + 1
    """


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int64"])
@pytest.mark.parametrize("n", [1, 5, 10_000])
def test_round_of_an_int_to_tens_raises_where_numpy_vectorize_does(tmp_path, dtype, n):
    """`round(255, -1)` is 260, which numpy.vectorize cannot store in uint8 (OverflowError);
    the batch rounded in uint8 and wrapped to 4."""
    module, _ = load(tmp_path, ROUNDS)
    info = np.iinfo(dtype)
    rng = np.random.default_rng(n)
    for fn in (module.tens, module.hundreds):
        wrapped = vectorize(fn, fallback="error")
        for ends in (False, True):
            y = rng.integers(max(info.min, -100), min(info.max, 100), n).astype(dtype)
            if ends:
                y[-1] = info.max if n % 2 else info.min
            try:
                expected = np.vectorize(fn)(y)
            except OverflowError:
                with pytest.raises(OverflowError):
                    wrapped(y)
                continue
            got = wrapped(y)
            assert got.dtype == expected.dtype
            np.testing.assert_array_equal(got, expected)


# ------------------------------------------------- the whole-function fallback loop

STARS = """\
    def npv(rate, *flows):
        total = 0.0
        for t, c in enumerate(flows):
            total += c / (1 + rate) ** t
        return total
    """


@pytest.mark.parametrize("fallback", ["warn", "loop"])
def test_the_whole_function_loop_hands_python_numbers_to_the_first_example(tmp_path, fallback):
    """The loop kept the first example's result from numpy.vectorize's type-learning call
    (cache=True), which gets NumPy scalars: 1 / 0 there was inf where numpy.vectorize
    raises ZeroDivisionError."""
    module, _ = load(tmp_path, STARS)
    wrapped = vectorize(module.npv, fallback=fallback)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for rate in ([-1.0], [0.5, -1.0], [-1.0, 0.5, 0.1, 0.2, 0.3]):
            rate = np.array(rate)
            with pytest.raises(ZeroDivisionError):
                np.vectorize(module.npv)(rate, 1.0, 2.0)
            with pytest.raises(ZeroDivisionError):
                wrapped(rate, 1.0, 2.0)
        rate = np.array([0.5, 0.25])
        np.testing.assert_array_equal(wrapped(rate, 1.0, 2.0),
                                      np.vectorize(module.npv)(rate, 1.0, 2.0))


WRAPPED = """\
    import functools


    def doubled(fn):
        @functools.wraps(fn)
        def wrapper(x):
            return 2.0 * fn(x)
        return wrapper


    @doubled
    def f(x):
        return x + 1.0
    """


@pytest.mark.parametrize("front", ["vectorize", "vmap"])
def test_a_wrapper_is_not_vectorized_as_the_function_it_wraps(tmp_path, front):
    """`inspect` follows `__wrapped__` to the inner function's text, while the code called
    is the wrapper's: the batch computed x + 1 where the function gives 2 * (x + 1). The
    wrapper's own text is read (its closure calls the function it wraps)."""
    module, _ = load(tmp_path, WRAPPED)
    x = np.arange(5.0)
    wrapped = vectorize(module.f, fallback="error") if front == "vectorize" else vmap(module.f)
    np.testing.assert_array_equal(wrapped(x), 2.0 * (x + 1.0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(vectorize(module.f)(x), 2.0 * (x + 1.0))


# ------------------------------------------------- abs of a Python complex

COMPLEX = """\
    TABLE = [0.5, -1.25, 3.0, 8.0]


    def f(x, y):
        z = complex(y, x)
        r = abs(z * z)
        return TABLE[int(r) % 4] * x
    """


@pytest.mark.parametrize("n", [1, 5, 10_000])
def test_abs_of_a_complex_is_pythons(tmp_path, n):
    """`abs(-9991+600j)` is 10009.0 in Python and 10008.999999999998 in NumPy: int() of it
    picked another table entry (found by the construct fuzzer)."""
    module, _ = load(tmp_path, COMPLEX)
    rng = np.random.default_rng(n)
    x = rng.integers(0, 256, n).astype(np.uint8)
    y = rng.integers(0, 256, n).astype(np.uint8)
    x[0], y[0] = 100, 3
    got = vectorize(module.f, fallback="error")(x, y)
    np.testing.assert_array_equal(got, np.vectorize(module.f)(x, y))


def _times_shared(x, s):
    return x * s + 1


@pytest.mark.parametrize("dtype, scalar", [
    (float, np.float32(0.1)), (float, np.float16(0.1)), (float, np.complex64(1 + 2j)),
    (np.int64, np.int32(3)), (np.int64, np.int8(-2)), (np.int64, np.uint64(3)),
    (np.int64, np.float32(0.1)), (np.float32, np.float32(0.1))],
    ids=lambda v: getattr(v, "__name__", type(v).__name__))
@pytest.mark.parametrize("n", [1, 5, 1000])
def test_a_narrow_numpy_scalar_argument_gives_numpy_vectorizes_values(dtype, scalar, n):
    # numpy.vectorize hands a NumPy scalar on as it is, and the Python numbers of the examples
    # take its dtype (NEP 50: 1/3 * np.float32(0.1) is a float32): the batched float64 arrays
    # gave 0.033333333830038704 where numpy.vectorize gives 0.03333333507180214
    x = (np.linspace(-3.0, 1 / 3, n).astype(dtype) if np.dtype(dtype).kind == "f"
         else np.arange(n, dtype=dtype))
    try:
        expected = np.vectorize(_times_shared)(x, scalar)
    except Exception as exc:    # noqa: BLE001 -- the same exception type, then
        with pytest.raises(type(exc)), pytest.warns(VectorizeFallbackWarning):
            vectorize(_times_shared)(x, scalar)
    else:
        # (a float scalar is converted as NumPy converts the Python numbers it meets, NEP 50:
        # computed; the others run numpy.vectorize, with a warning that says why)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = vectorize(_times_shared)(x, scalar)
        fallbacks = [w for w in caught if issubclass(w.category, VectorizeFallbackWarning)]
        assert all("NumPy" in str(w.message) for w in fallbacks)
        assert got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_array_equal(got, expected)
        if not fallbacks:
            computed = vectorize(_times_shared, fallback="error")(x, scalar)
            assert computed.dtype == expected.dtype
            np.testing.assert_array_equal(computed, expected)
            return
    with pytest.raises(VectorizeError, match="NEP 50"):
        vectorize(_times_shared, fallback="error")(x, scalar)


@pytest.mark.parametrize("scalar, dtype", [(np.float64(0.1), float), (np.int64(3), float),
                                           (np.bool_(True), float), (np.int32(3), np.float32),
                                           (np.int32(3), float)],
                         ids=lambda s: type(s).__name__)
def test_a_numpy_scalar_promoting_as_the_arrays_do_is_still_vectorized(scalar, dtype):
    x = np.linspace(-3.0, 1 / 3, 7).astype(dtype)
    got = vectorize(_times_shared, fallback="error")(x, scalar)
    expected = np.vectorize(_times_shared)(x, scalar)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)
