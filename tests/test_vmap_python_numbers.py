"""`vmap` where the per-example code makes Python numbers: its reference is the loop over
NumPy scalars, inside which ``float(y)``, ``int(y)``, ``round(y)``, ``len(v)``, ``math.*``
and ``y.item()`` are Python numbers, with Python's semantics (ints that do not wrap,
``(-4.0) ** 0.5`` complex, ``1.0 / 0.0`` raising). The batched code checks the operations on
them where Python's result differs from NumPy's (`analysis.python_numbers`,
`passes.python_raises`) and runs the per-example loop where a check fires; the results are
the loop's, stacked as ``np.stack`` stacks them (an object array for ints beyond int64,
complex128 where an example is complex). Also: `vmap`'s replays are counted, and a replay
after an exception the function's own code cannot raise is warned about
(`vectorize.vmap_replays`)."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vectorize import VectorizeWarning, vmap


# ---------------------------------------------------------------- the table of functions
def sqrt_pow(y):
    return float(y) ** 0.5


def int_pow(n):
    return int(n) ** 30


def int_square(n):
    return int(n) * int(n)


def int_sum(n):
    return int(n) + 2 ** 62


def int_shift(n):
    return int(n) << 10


def int_abs(n):
    return abs(int(n))


def int_negation(n):
    return -int(n)


def inverse(y):
    return 1.0 / float(y)


def int_floor_division(n):
    return 7 // int(n)


def int_modulo(n):
    return 7 % int(n)


def int_divmod(n):
    q, r = divmod(7, int(n))
    return q * 10 + r


def math_sqrt(y):
    return math.sqrt(y)


def math_log(y):
    return math.log(y)


def math_exp(y):
    return math.exp(y)


def to_int(y):
    return int(y)


def rounded(y):
    return round(y)


def floored_cube(y):
    return math.floor(y) ** 3


def item_pow(y):
    return y.item() ** 0.5


def negative_power(n):
    return pow(int(n), -2)


def int_true_division(n):
    return int(n) / 2


def chained(y):
    return 0.0 < float(y) < 5.0


def chained_division(y):
    return float(y) != 0.0 < 1.0 / float(y) < 5.0     # no division where y == 0


def float_square(y):
    return float(y) ** 2


def through_a_name(y):
    r = float(y)
    if r > 1.0:
        return r ** 0.5
    return (r - 2.0) ** 1.5


def smaller_root(y):
    return min(float(y), 2.0) ** 0.5


def scaled_int(n):
    return int(n) * 100


def _root(a):
    return a ** 0.5


def root_of_a_python_float(y):
    return _root(float(y)) + _root(y)     # the helper twice: a Python float, a NumPy one


def rounded_to_3(y):
    return round(float(y), 3)


def unsigned_successor(n):
    return int(n) + 1


FLOAT_FUNCTIONS = [sqrt_pow, inverse, math_sqrt, math_log, math_exp, to_int, rounded,
                   floored_cube, item_pow, chained, float_square, through_a_name, smaller_root,
                   rounded_to_3, root_of_a_python_float, chained_division]
INT_FUNCTIONS = [int_pow, int_square, int_sum, int_shift, int_abs, int_negation,
                 int_floor_division, int_modulo, int_divmod, negative_power,
                 int_true_division, scaled_int]

_VMAPPED: dict = {}


def _vmapped(f):
    if f not in _VMAPPED:
        _VMAPPED[f] = vmap(f)
    return _VMAPPED[f]


def _loop(f, x):
    """The reference: ``f`` on each NumPy scalar, the results stacked by ``np.stack``."""
    return np.stack([np.asarray(f(v)) for v in x])


def _same(got, want) -> None:
    got = np.asarray(got)
    assert got.dtype == want.dtype, (got.dtype, want.dtype, got, want)
    assert got.shape == want.shape
    if want.dtype == object:
        assert all(type(g) is type(w) and g == w for g, w in zip(got.tolist(), want.tolist()))
    elif want.dtype.kind in "fc":
        # (`x ** 0.5` is the C library's pow per example, NumPy's sqrt batched: the last bit
        # may differ, as for `math` functions: docs/semantics.md, "Differences")
        np.testing.assert_allclose(got, want, rtol=1e-15, atol=0)
        np.testing.assert_array_equal(np.signbit(got.real), np.signbit(want.real))
    else:
        np.testing.assert_array_equal(got, want)


def _check(f, x) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            want = _loop(f, x) if len(x) else None
        except Exception as exc:       # noqa: BLE001 -- the loop's exception is the reference
            with pytest.raises(type(exc)):
                _vmapped(f)(x)
            return
        got = _vmapped(f)(x)
    if want is None:
        assert np.shape(got) == (0,)
    else:
        _same(got, want)


FLOATS = st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                   st.sampled_from([0.0, -0.0, 4.0, -4.0, 2.5, -2.5, 1e300, -1e300, 1e19,
                                    709.0, 710.0, 1e-320]))
INTS = st.one_of(st.integers(-2 ** 63, 2 ** 63 - 1), st.integers(-40, 40),
                 st.sampled_from([0, -1, 2 ** 31, -2 ** 62, 2 ** 62, 2 ** 63 - 1, -2 ** 63]))


@pytest.mark.parametrize("f", FLOAT_FUNCTIONS, ids=lambda f: f.__name__)
@settings(max_examples=20, deadline=None)
@given(st.lists(FLOATS, max_size=6))
def test_python_floats_are_the_loops(f, values):
    _check(f, np.array(values, dtype=np.float64))


@pytest.mark.parametrize("f", INT_FUNCTIONS, ids=lambda f: f.__name__)
@settings(max_examples=20, deadline=None)
@given(st.lists(INTS, max_size=6))
def test_python_ints_are_the_loops(f, values):
    _check(f, np.array(values, dtype=np.int64))


@pytest.mark.parametrize("n", [0, 1, 5, 10_000])
@pytest.mark.parametrize("f", [sqrt_pow, int_pow, inverse, math_sqrt, to_int],
                         ids=lambda f: f.__name__)
def test_batch_sizes(f, n):
    rng = np.random.default_rng(n)
    x = rng.uniform(0.5, 9.0, n) if f is not int_pow else rng.integers(-4, 5, n)
    _check(f, x)                # every check passes: the batched code's answer
    if n:
        x = x.copy()
        x[-1] = -4 if f is not int_pow else 7      # the last example is Python's own
        _check(f, x)


# ---------------------------------------------------------------- regressions
def test_a_negative_float_to_a_fractional_power_is_complex():
    got = vmap(sqrt_pow)(np.array([4.0, -4.0, 9.0]))
    assert got.dtype == np.complex128           # (was [2, nan, 3])
    np.testing.assert_allclose(got, [2.0, 2j, 3.0], atol=1e-15)


def test_python_ints_do_not_wrap():
    got = vmap(int_pow)(np.array([3, 5, 7]))
    assert got.dtype == object                 # (was wrapped int64: 8985370930000934825)
    assert list(got) == [3 ** 30, 5 ** 30, 7 ** 30]


def test_python_errors_raise_as_in_the_loop():
    x = np.array([1.0, 0.0, -1.0])
    with pytest.raises(ZeroDivisionError):
        vmap(inverse)(x)
    with pytest.raises(ValueError, match="math domain error"):
        vmap(math_sqrt)(x)                      # (was nan)
    with pytest.raises(ValueError):
        vmap(to_int)(np.array([1.0, np.nan]))   # (was -2**63)
    with pytest.raises(ZeroDivisionError):
        vmap(int_modulo)(np.array([3, 0]))


def test_a_chained_comparison_evaluates_its_operands_as_python_does():
    x = np.array([0.0, 0.5, 0.1])
    np.testing.assert_array_equal(vmap(chained_division)(x), [False, True, False])
    from vectorize import vectorize
    assert "raise" not in vectorize(chained_division).source(x)     # (checked `y == 0`:
    np.testing.assert_array_equal(vectorize(chained_division)(x),  # replayed each time)
                                  np.vectorize(chained_division)(x))


def sqrt_of_a_sine(x):
    return math.sqrt(np.sin(x))


def test_vectorize_checks_math_of_numpy_values_too():
    from vectorize import vectorize
    x = np.array([1.0, -1.0])
    with pytest.raises(ValueError, match="math domain error"):
        np.vectorize(sqrt_of_a_sine)(x)
    with pytest.raises(ValueError, match="math domain error"):
        vectorize(sqrt_of_a_sine)(x)             # (was nan)
    with pytest.raises(ValueError, match="math domain error"):
        vmap(sqrt_of_a_sine)(x)
    x = np.array([-0.0, 4.0])                    # -0.0 ** 0.5 is 0.0 in Python
    _same(vectorize(sqrt_pow)(x), np.vectorize(sqrt_pow)(x))


def root_or_default(y):
    r = -1.0
    if y > 0:
        r = y
    return r ** 0.5


def test_a_python_literal_kept_on_some_lanes():
    x = np.array([4.0, -2.0])
    got = vmap(root_or_default)(x)
    assert got.dtype == np.complex128            # (-1.0) ** 0.5 is 1j (was nan)
    np.testing.assert_allclose(got, [2.0, 1j], atol=1e-15)


def test_a_narrow_int_made_a_python_int_does_not_wrap():
    got = vmap(scaled_int)(np.array([100, -100, 7], dtype=np.int8))
    assert got.dtype == np.int64                # (was int8: [16, -16, -68])
    assert got.tolist() == [10000, -10000, 700]


def test_a_helper_passed_a_python_number_checks_it():
    x = np.array([4.0, -4.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        got = vmap(root_of_a_python_float)(x)
        want = _loop(root_of_a_python_float, x)
    assert got.dtype == want.dtype == np.complex128       # (was [4, nan])
    np.testing.assert_allclose(got, want, rtol=1e-15)
    source = vmap(root_of_a_python_float).source(np.array([4.0]))
    assert source.count("raise ") == 1, source     # only the specialization for Python's


def test_round_of_a_python_float_rounds_as_python():
    x = np.array([0.0005, 2.6985, -1.5])
    np.testing.assert_array_equal(vmap(rounded_to_3)(x), [0.001, 2.699, -1.5])  # (np.round:
    np.testing.assert_array_equal(vmap(lambda y: round(y, 3))(x), [0.0, 2.698, -1.5])  # 0.0)


def test_the_python_int_of_a_uint64_does_not_wrap():
    x = np.array([2 ** 64 - 1, 3], dtype=np.uint64)
    _same(vmap(unsigned_successor)(x), _loop(unsigned_successor, x))   # (was [0, 4])


def test_item_is_a_python_number():
    x = np.array([1.5, 4.0], dtype=np.float32)
    np.testing.assert_array_equal(vmap(lambda y: y.item() * 0.1)(x), _loop(
        lambda y: y.item() * 0.1, x))
    assert vmap(lambda y: y.item() * 0.1)(x).dtype == np.float64


# ------------------------------------------------- no check where none is needed
def numpy_values(y):
    return y ** 0.5 + np.sqrt(abs(y)) * 2 + (y * y) // 3


def bounded_python_int(y):
    return int(y > 0) * 1000 + len("abc") ** 2


def shared_length(v):
    return v[0] * len(v) ** 2


@pytest.mark.parametrize("f, x", [
    (numpy_values, np.array([1.0, -4.0])),
    (bounded_python_int, np.array([1.0, -4.0])),
    (shared_length, np.ones((3, 4))),
], ids=["numpy_values", "bounded_python_int", "shared_length"])
def test_no_check_where_none_can_fire(f, x):
    source = vmap(f).source(x)
    assert "raise" not in source, source
    _check(f, x)


def test_checks_only_the_python_operations():
    source = vmap(lambda y: y ** 0.5 + float(y) ** 0.5).source(np.array([1.0]))
    assert source.count("raise ") == 1, source


# ---------------------------------------------------------------- PyTorch
def test_torch_python_numbers_are_the_loops():
    torch = pytest.importorskip("torch")
    x = torch.tensor([4.0, -4.0, 9.0], dtype=torch.float64)
    got = vmap(sqrt_pow)(x)
    assert got.dtype == torch.complex128        # (was [2, nan, 3])
    np.testing.assert_allclose(got.numpy(), [2.0, 2j, 3.0], atol=1e-15)
    got = vmap(item_pow)(x)
    assert got.dtype == torch.complex128
    with pytest.raises(ZeroDivisionError):
        vmap(inverse)(torch.tensor([1.0, 0.0], dtype=torch.float64))
    with pytest.raises(ValueError, match="math domain error"):
        vmap(math_sqrt)(torch.tensor([1.0, -1.0], dtype=torch.float64))
    ok = torch.tensor([4.0, 9.0], dtype=torch.float64)
    np.testing.assert_array_equal(vmap(sqrt_pow)(ok).numpy(), [2.0, 3.0])
    with pytest.raises(ValueError):             # (an int beyond int64: no tensor holds it)
        vmap(int_pow)(torch.tensor([3, 5, 7]))


# ---------------------------------------------------------------- JAX
def test_jax_raises_where_a_check_fires():
    pytest.importorskip("jax")
    x = np.array([4.0, 9.0])
    np.testing.assert_allclose(vmap(sqrt_pow, backend="jax")(x), [2.0, 3.0])
    # a check that fires hands the call to the per-example loop (the traced code cannot
    # compute Python's complex result): the loop's values
    x = np.array([4.0, -4.0])
    got = vmap(sqrt_pow, backend="jax")(x)
    np.testing.assert_array_equal(got, np.array([sqrt_pow(v) for v in x]))
    with pytest.raises(ValueError, match="math domain error"):
        vmap(math_sqrt, backend="jax")(np.array([4.0, -4.0]))


def scaled_by_a_shared_int(n, k):
    return int(n) * k


def test_a_python_int_passed_as_it_is_meets_a_python_int():
    x = np.array([3, 2 ** 40])
    got = vmap(scaled_by_a_shared_int, in_axes=(0, None))(x, 2 ** 40)
    _same(got, np.stack([np.asarray(scaled_by_a_shared_int(v, 2 ** 40)) for v in x]))
    assert got.dtype == object


# ---------------------------------------------------------------- replays made visible
def _guarded_log(x):
    if x <= 0:
        raise ValueError("not positive")
    return math.log(x)


def guarded_caller(x):
    if x > 0:
        return _guarded_log(x)
    return 0.0


def doubled(x):
    return x * 2.0


def test_replays_are_counted_and_legitimate_ones_do_not_warn():
    vm = vmap(guarded_caller)
    x = np.array([1.0, -1.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error", VectorizeWarning)
        got = vm(x)
        np.testing.assert_array_equal(got, _loop(guarded_caller, x))
    assert vm.replays == 1 and "not positive" in vm.last_replay
    vm(np.array([1.0, 2.0]))
    assert vm.replays == 1
    square = vmap(sqrt_pow)
    with warnings.catch_warnings():
        warnings.simplefilter("error", VectorizeWarning)
        square(np.array([-1.0]))
    assert square.replays == 1
    reciprocal = vmap(inverse)
    with pytest.raises(ZeroDivisionError):      # the loop raised: counted too
        reciprocal(np.array([0.0]))
    assert reciprocal.replays == 1 and reciprocal.last_replay.startswith("ZeroDivisionError")


def test_a_replay_after_an_exception_the_code_cannot_raise_warns_once():
    vm = vmap(doubled)
    x = np.array([1.0, 2.0])
    vm(x)
    # an engine bug, simulated: generated code (its file name) that fails where the
    # per-example code cannot
    namespace: dict = {}
    exec(compile("def doubled(x):\n    return x.no_such_attribute\n", "<vectorize:doubled:0>",
                 "exec"), namespace)
    vm._plan((x,))[0].spec.function = namespace["doubled"]
    vm._fast = vm._fast_numpy = None        # the warm path holds the function it calls
    with pytest.warns(VectorizeWarning, match="AttributeError"):
        got = vm(x)
    np.testing.assert_array_equal(got, _loop(doubled, x))       # the loop's answer
    with warnings.catch_warnings():
        warnings.simplefilter("error", VectorizeWarning)
        vm(x)                                   # once per specialization
    assert vm.replays == 2


def test_which_exceptions_the_code_could_raise():
    from vectorize.vmap_replays import suspicious

    def raised(exc):
        try:
            raise exc
        except Exception as caught:        # noqa: BLE001
            return caught
    # raised in this (the user's) file: legitimate whatever its type
    assert not suspicious(raised(TypeError("x")), doubled)
    namespace: dict = {}
    exec(compile("def f(e):\n    raise e\n",
                 "<vectorize:f:0>", "exec"), namespace)

    def from_generated(exc):
        try:
            namespace["f"](exc)
        except Exception as caught:        # noqa: BLE001
            return caught
    # generated code's `raise` (the line is not registered here: judged by type)
    assert not suspicious(from_generated(ZeroDivisionError()), doubled)
    assert not suspicious(from_generated(ValueError()), doubled)
    assert suspicious(from_generated(TypeError()), doubled)
    assert not suspicious(from_generated(RuntimeError("ZeroDivisionError")), doubled)  # torch
    assert suspicious(from_generated(RuntimeError("shapes do not match")), doubled)
    assert suspicious(from_generated(IndexError()), doubled)          # no subscripts
    assert not suspicious(from_generated(IndexError()), shared_length)  # subscripts
