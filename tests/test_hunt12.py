"""Regressions found by `benchmarks/fuzz_hunt12.py` (typed constructs, dtypes changing between
calls, ``otypes``): `vectorize` against numpy.vectorize itself (values, dtype, exception
type), and a fixed small set of the fuzz programs."""

from __future__ import annotations

import numpy as np
import pytest

from vectorize import VectorizeError, vectorize


def _agree(f, *args, otypes=None):
    """vectorize(f) gives numpy.vectorize(f)'s values and dtype, or raises its exception."""
    ref = np.vectorize(f, otypes=otypes)
    ours = vectorize(f, fallback="error", otypes=otypes)
    try:
        with np.errstate(all="ignore"):
            expected = ref(*args)
    except Exception as exc:  # noqa: BLE001 -- the same type is expected
        with pytest.raises(type(exc)):
            ours(*args)
        return
    got = ours(*args)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


# ------------------------------------------------ Python bools through tuple assignment
def swapped_bools(n):
    v, t = n, n
    v, t = t, v + t
    return v * 2 - t


def walrus_bools(x):
    return (t := x > 0) + t + 0


def test_bools_through_a_tuple_assignment_count_as_ints():
    # `v + t` of Python bools is 2 per example; the batch's bool arrays gave `or` (1)
    _agree(swapped_bools, np.array([True, False, True]))
    _agree(walrus_bools, np.array([1.0, -1.0, 3.0]))


def _helper_bools(a):
    return a > 0, a < 2


def unpacked_from_call(x):
    p, q = _helper_bools(x)
    return p + q + 0


def unpacked_from_list(x):
    p = [x > 0, x < 2]
    a, b = p
    return a + b + 0


@pytest.mark.parametrize("f", [unpacked_from_call, unpacked_from_list])
def test_bools_of_unknown_origin_in_arithmetic_are_refused(f):
    # numpy.vectorize: 2 where 0 < x < 2; the batch added them as NumPy bools (1)
    with pytest.raises(VectorizeError, match="origin"):
        vectorize(f, fallback="error")(np.array([1.0, -1.0, 3.0]))
    assert np.vectorize(f)(np.array([1.0, -1.0, 3.0])).tolist() == [2, 1, 1]


# ------------------------------------------------ the test of an `if` whose merges are dead
def dead_if_on_complex(x, y):
    if x > y:
        v = 2.0  # noqa: F841 -- dead on purpose: the test is what matters
    else:
        v = 1.0  # noqa: F841
    return x


def dead_try_on_complex(x, y):
    try:
        if x > y:
            raise ValueError("big")
        v = 1.0  # noqa: F841 -- dead on purpose
    except ValueError:
        v = 2.0  # noqa: F841
    return x


@pytest.mark.parametrize("f", [dead_if_on_complex, dead_try_on_complex])
def test_a_dead_branch_test_that_raises_for_every_example_is_refused(f):
    # numpy.vectorize: TypeError ('>' of complex numbers); the batch dropped the `if`
    # (nothing reads `v`) and returned x
    z = np.array([1 + 1j, 2 - 1j]), np.array([0.5 + 0j, 3 + 0j])
    with pytest.raises(TypeError):
        np.vectorize(f)(*z)
    with pytest.raises(VectorizeError, match="ordering comparison"):
        vectorize(f, fallback="error")(*z)
    _agree(f, np.array([1.0, -2.0]), np.array([0.5, 3.0]))


# ------------------------------------------------ complex powers that overflow
def complex_square(z):
    return z ** 2


def complex_inverse_square(z):
    return z ** -2


def complex_power(z, w):
    return z ** w


def squared_modulus(x):
    return abs(complex(x, 0.5) ** 2)


@pytest.mark.parametrize("f, args", [
    # Python: OverflowError('complex exponentiation'); the batch gave inf+infj / inf
    (complex_square, (np.array([1 + 1j, 1e200 + 1j]),)),
    (squared_modulus, (np.array([2.0, 1e200]),)),
    # Python: the power underflows to 0, then 1 / 0: ZeroDivisionError
    (complex_inverse_square, (np.array([1 + 1j, 1e-200 + 1e-200j]),)),
    (complex_power, (np.array([2 + 1j, 2 + 1j]), np.array([3 + 0j, 1 - 2000j]))),
    (complex_power, (np.array([2 + 1j, 2 + 0j]), np.array([3 + 0j, 1030.5 + 0j]))),
])
def test_complex_powers_raise_where_python_raises(f, args):
    with pytest.raises(ArithmeticError):
        np.vectorize(f)(*args)
    _agree(f, *args)
    # and where nothing overflows, the values are the loop's
    _agree(f, *(a[:1] for a in args))



# ------------------------------------------------ complex products and quotients as CPython's
def modulus_squared(z):
    return z * z.conjugate()


def complex_quotient(x, z):
    return x / z


def built_product(x, y):
    z = x + 1j * y
    return z * z.conjugate() + 1e300


def test_complex_products_and_quotients_are_python_s_to_the_last_bit():
    rng = np.random.default_rng(12)
    z = rng.uniform(-10, 10, 64) + 1j * rng.uniform(-3, 3, 64)
    x = rng.uniform(-10, 10, 64)
    # NumPy's loop fuses a product: 8.98-1.2e-16j for (1.3+2.7j) * (1.3-2.7j), Python 8.98+0j
    _agree(modulus_squared, np.concatenate([[1.3 + 2.7j], z]))
    # and divides by a reciprocal: 25 of these 64 differed in the last bit
    _agree(complex_quotient, x, z)
    _agree(complex_quotient, z, x)
    _agree(complex_quotient, np.arange(64, dtype=np.uint8) * 3, z)
    _agree(built_product, x, z.imag)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e308, 5e-324, -2.5])
    a, b = np.meshgrid(specials, specials)
    _agree(modulus_squared, (a + 1j * b).ravel())
    _agree(complex_quotient, np.ones(64), (a + 1j * b).ravel()[(a + 1j * b).ravel() != 0])


# ------------------------------------------------ a fixed small set of the fuzz programs
FUZZ_SEEDS = range(24)


def test_hunt12_fuzz_programs(tmp_path):
    from fuzz import hunt12_programs
    from fuzz.harness import ModuleWriter, Program

    writer = ModuleWriter(tmp_path)
    kinds, failures = {}, []
    for seed in FUZZ_SEEDS:
        text, _features, calls, otypes = hunt12_programs.case(seed)
        f = writer.load(Program(text, ("x", "y", "n"), 1))
        result = hunt12_programs.run_case(f, calls, otypes)
        kinds[result.kind] = kinds.get(result.kind, 0) + 1
        if result.kind not in ("ok", "ulp", "rejected"):
            failures.append(f"seed {seed}: {result.kind} {result.call}\n{result.detail}\n{text}")
    assert not failures, "\n\n".join(failures)
    assert kinds.get("ok", 0) >= len(FUZZ_SEEDS) // 4, kinds


# ------------------------------------------------ a shared int to a negative power
def shared_inverse(x, n):
    v = n ** -1
    return v + v



@pytest.mark.parametrize("n", [-3, 0, 2, np.array(4), np.int64(5)])
def test_a_shared_int_to_a_negative_power_raises_as_numpy_vectorize(n):
    # numpy.vectorize's first call has NumPy ints (np.int64(-3) ** -1: ValueError); the
    # batch computed the Python int's power, -0.333...
    x = np.array([1.0, 2.0, 3.0])
    with pytest.raises(ValueError):
        np.vectorize(shared_inverse)(x, n)
    _agree(shared_inverse, x, n)


# ------------------------------------------------ round(n, -k) of large ints, exactly
def round_to_tens(n):
    return round(n, -1)


def round_to_thousands(n):
    return round(n, -3) + round(n, 2)


@pytest.mark.parametrize("values, dtype", [
    # NumPy rounds ints through float64: 2**62 + 5 became 2**62 (Python: 2**62 + 10)
    ([5, 25, 35, -25, 2 ** 62 + 5, 2 ** 53 + 15, -(2 ** 60) - 5], np.int64),
    # and a uint64 beyond int64 became 0 (Python: 18446744073709551580)
    ([5, 2 ** 64 - 35, 2 ** 63 + 4, 2 ** 63 - 5], np.uint64),
    ([-128, 127, 15, -15, 45], np.int8),
])
def test_round_of_ints_to_negative_digits_is_exact(values, dtype):
    n = np.array(values, dtype=dtype)
    _agree(round_to_tens, n)
    _agree(round_to_thousands, n)
