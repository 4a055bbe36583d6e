"""Wrong results found by sweep35's fresh-seed sweep of the fuzzers (`benchmarks/fuzz_*.py`,
seeds 35000 and up), each as its minimized program against its reference: numpy.vectorize for
`vectorize`, the per-example loop for `vmap`."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vectorize import vectorize, vmap

BACKENDS = ["numpy", "jax", "torch"]
NOT_TORCH = ["numpy", "jax"]     # (PyTorch refuses `round` of a tensor)


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)


def _tuple_same(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
    else:
        _same(got, want)


def _flag_counted(a, b):
    flag = True
    flag += (b < 0)
    return (abs(b) - (a and flag)), a


def _flag_sum_and(a, b):
    flag = (b < 0) + (b < 1)
    return a and flag


def _flag_or_negated(a, b):
    return a or -(b < 0)


def _flag_abs_or(a, b):
    return a or abs(b < 0) + (b < 0)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("func", [_flag_counted, _flag_sum_and, _flag_or_negated,
                                  _flag_abs_or])
@pytest.mark.parametrize("b", [-32768, -5, 3, np.array(-5)])
def test_shared_python_bool_arithmetic_is_an_int(func, b, backend):
    """fuzz_bools seed 35121: ``flag = True; flag += (b < 0)`` of a shared Python int ``b``
    is the int 2 (Python's bools add as ints), which the analysis, on numpy.vectorize's
    first example of NumPy scalars, took for the bool ``np.True_ + np.True_``: ``a and
    flag`` of a per-example bool ``a`` became ``a & flag``, ``True & 2`` 0 (32768 where
    numpy.vectorize gives 32766)."""
    a = np.array([True, False, True])
    want = np.vectorize(func)(a, b)
    got = vectorize(func, fallback="error", backend=backend)(a, b)
    _tuple_same(got, want)


def _rounded(a, n=1):
    return round(a, n)


def _outcome(call):
    try:
        return call(), None
    except Exception as exc:  # noqa: BLE001 -- compared by type
        return None, type(exc)


INT64 = np.iinfo(np.int64)


@pytest.mark.parametrize("backend", NOT_TORCH)
@pytest.mark.parametrize("n", [-1, -2, -20, 1, np.int64(-1), np.array(-1)])
@pytest.mark.parametrize("a", [
    [INT64.min], [INT64.max], [INT64.min + 3], [INT64.max - 4, 15], [15, -7, 250]])
def test_round_of_an_int_to_a_shared_number_of_digits_overflows(a, n, backend):
    """fuzz_options seed 35105: ``round(a, n)`` of an int64 ``a`` and a shared ``n`` (not a
    literal) had no OverflowError check: ``round(-2**63, -1)`` is -2**63 - 2 to Python
    (numpy.vectorize: OverflowError), the batch wrapped it to 2**63 - 2; with a NumPy int
    ``n`` (handed as it is) not even the values near the ends were checked."""
    a = np.array(a)
    want, want_exc = _outcome(lambda: np.vectorize(_rounded)(a, n))
    got, got_exc = _outcome(lambda: vectorize(_rounded, fallback="error", backend=backend)(a, n))
    assert got_exc is want_exc
    if want_exc is None:
        _same(got, want)


def _divmod_of_python_bools(x, y, n):
    v0 = float(n).is_integer()
    v2 = math.isclose(y, y, rel_tol=1e-3)
    q3, v3 = divmod(v0, v2)
    return v3 + q3


def _method_bools_added(x, y, n):
    v0 = float(n).is_integer()
    v2 = math.isclose(y, y, rel_tol=1e-3)
    return v0 + v2, v0 // v2, v0 * 3 - v2


X3 = np.array([1.0, -2.0, 0.5, 3.0])
Y3 = np.array([3, 4, 5, 6])
N3 = np.array([1, 2, 3, -4])


@pytest.mark.parametrize("backend", NOT_TORCH)
@pytest.mark.parametrize("func", [_divmod_of_python_bools])
def test_divmod_of_python_bools_is_of_ints(func, backend):
    """fuzz_hunt12 seed 35283: ``divmod(v0, v2)`` of two per-example Python bools is
    ``(1, 0)``, ints (numpy.vectorize: int64); the batch's ``np.divmod`` of bool arrays
    makes int8 (the operators ``//``, ``%`` already counted such bools as ints)."""
    want = np.vectorize(func)(X3, Y3, N3)
    got = vectorize(func, fallback="error", backend=backend)(X3, Y3, N3)
    _tuple_same(got, want)


@pytest.mark.parametrize("backend", NOT_TORCH)
@pytest.mark.parametrize("func", [_divmod_of_python_bools, _method_bools_added])
def test_vmap_bools_of_python_methods_count_as_ints(func, backend):
    """The same program under vmap: ``float(n).is_integer()`` is a Python bool per example
    (of a NumPy scalar too), which `analysis.python_numbers` took for a NumPy bool, so
    ``v0 + v2`` stayed NumPy's logical or (True where the loop gives 2) and ``divmod`` an
    int8."""
    rows = [func(X3[i], Y3[i], N3[i]) for i in range(len(X3))]
    if isinstance(rows[0], tuple):
        want = tuple(np.stack([np.asarray(r[k]) for r in rows]) for k in range(len(rows[0])))
    else:
        want = np.stack([np.asarray(r) for r in rows])
    got = vmap(func, backend=backend)(X3, Y3, N3)
    _tuple_same(got, want)


def _floor_shifted(a, b):
    m = math.floor(b)
    acc = m
    for _ in range(4):
        acc = (acc << 13) ^ m
    return acc % 1000 + a


def _rounded_products(a, b):
    return math.ceil(b) * 2 ** 60 % 1000 + a, math.trunc(b) * 2 ** 60 % 7


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("func", [_floor_shifted, _rounded_products])
@pytest.mark.parametrize("b", [1e16, 1e19, -2.5, float("nan")])
def test_math_floor_of_an_excluded_python_float_is_a_python_int(func, b, backend):
    """fuzz_hunt14 seed 35273: ``math.floor(b)`` of an argument excluded by name (a Python
    float handed to every example as it is) became ``np.floor(b).astype(int)``, an int64,
    and nothing checked the arithmetic after it (a value held as it is is Python's): the
    shifts of 10**16 wrapped (672 where numpy.vectorize gives 32)."""
    a = np.array([0.5, 2.0])
    want, want_exc = _outcome(lambda: np.vectorize(func, excluded={"b"})(a, b=b))
    got, got_exc = _outcome(lambda: vectorize(func, excluded={"b"}, fallback="error",
                                              backend=backend)(a, b=b))
    assert got_exc is want_exc
    if want_exc is None:
        _tuple_same(got, want)


def _isclose_doubled(x, y, n):
    v0 = math.isclose(n, n, rel_tol=1e-3)
    return v0 + v0


@pytest.mark.parametrize("backend", NOT_TORCH)
@pytest.mark.parametrize("n", [3, np.array([3, 4, 5, 6, 7])])
def test_shared_isclose_doubled_is_two(n, backend):
    """fuzz_hunt12 seed 35243: ``v0 + v0`` of ``math.isclose(n, n)`` for a shared ``n`` is
    2 per example (numpy.vectorize: int64 2), the batch's NumPy bool 1 (the cause of
    `test_shared_python_bool_arithmetic_is_an_int`)."""
    x = np.arange(1, 6, dtype=np.uint64)
    _same(vectorize(_isclose_doubled, fallback="error", backend=backend)(x, x, n),
          np.vectorize(_isclose_doubled)(x, x, n))


def _abs_of_a_bool_arm(a, b):
    return abs(b if b else (not a)), 0.5


@pytest.mark.parametrize("backend", NOT_TORCH)
@pytest.mark.parametrize("b", [0, 3, -2])
def test_abs_of_a_choice_with_a_python_bool_arm_is_an_int(b, backend):
    """fuzz_bools seed 35655: ``abs(b if b else (not a))`` with a shared ``b`` of 0 is
    ``abs`` of a Python bool per example, an int (numpy.vectorize: int64 0 and 1); the
    batch took the bool arm's array as it is (bool). The arm is made the int the choice
    joins into, as for ``+`` (`bool_arms_counted`)."""
    a = np.array([-np.inf, 0.5, 0.0, 2.0, np.nan, -0.0])
    _tuple_same(vectorize(_abs_of_a_bool_arm, fallback="error", backend=backend)(a, b),
                np.vectorize(_abs_of_a_bool_arm)(a, b))
