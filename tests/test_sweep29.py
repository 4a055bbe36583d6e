"""Regressions found by the fresh-seed sweep of the differential fuzzers (seeds 20000+)."""

import math

import numpy as np
import pytest
from fuzz.harness import ModuleWriter, _raises_on_every_example, run_construct_case

from vectorize import VectorizeError, vectorize, vmap

POW_MINUS_ONE = """\
def f(x, y):
    v0 = x ** -1
    return float(v0)
"""


def pow_minus_one(x, y):
    v0 = x ** -1
    return float(v0)


def test_vmap_empty_batch_raises_what_every_example_raises():
    # `x ** -1` of a uint8 `x`: NEP 50's OverflowError on every example, whatever its value,
    # and so on the empty batch (docs/semantics.md: an error every example meets)
    x, y = np.zeros(0, np.uint8), np.zeros(0)
    with pytest.raises(OverflowError):
        vmap(pow_minus_one)(x, y)
    with pytest.raises(OverflowError):
        vmap(pow_minus_one)(np.arange(1, 4, dtype=np.uint8), np.zeros(3))
    # vectorize: the empty batch has a result (numpy.vectorize needs otypes there)
    assert vectorize(pow_minus_one)(x, y).shape == (0,)


def test_construct_harness_accepts_an_empty_batch_raising_what_every_example_raises(
        tmp_path):
    # fuzz_constructs seed 20026 (vmap) was reported "internal" at N=0 for the program above
    arg_sets = [(np.arange(1, 9, dtype=np.uint8), np.linspace(0, 1, 8)),
                (np.zeros(0, np.uint8), np.zeros(0)),
                (np.ones(1, np.uint8), np.ones(1))]
    outcome = run_construct_case(POW_MINUS_ONE, arg_sets, ModuleWriter(tmp_path), "vmap")
    assert outcome.kind == "ok", outcome


def test_every_example_check_is_not_fooled_by_a_function_that_returns():
    empty = (np.zeros(0, np.uint8), np.zeros(0))
    calls = [empty, (np.arange(1, 4, dtype=np.uint8), np.zeros(3))]
    exc = OverflowError("x")
    assert _raises_on_every_example(pow_minus_one, empty, calls, exc)
    assert not _raises_on_every_example(lambda x, y: x + y, empty, calls, exc)
    assert not _raises_on_every_example(pow_minus_one, empty, calls, ValueError("x"))


RAGGED = {0: (1.0, 2.0), 1: (0.5, -1.0, 3.0), 2: (4.0,)}


def real_of_a_ragged_table_item(x, y):
    t0 = RAGGED[int(y) % 3]
    z = x + 1j * (t0[-1] * x)
    return float(z.real)


def test_torch_attribute_of_an_unknown_example_leaves_the_refusal_to_the_table():
    # fuzz_constructs --backend torch seed 20157: `.real` of a value made from an item of a
    # per-example choice between tables of different lengths was refused as "`.real` raises
    # per example ('_Unknown' object has no attribute 'real')" (no example raises; an
    # internal name): the refusal is the table's, where it is written
    pytest.importorskip("torch")
    x, y = np.array([3.0, 0.5, -2.5]), np.array([0.0, 1.0, 2.0])
    for wrap in (lambda f: vectorize(f, fallback="error", backend="torch"),
                 lambda f: vmap(f, backend="torch")):
        with pytest.raises(VectorizeError, match="tables of different lengths") as info:
            wrap(real_of_a_ragged_table_item)(x, y)
        assert info.value.line == real_of_a_ragged_table_item.__code__.co_firstlineno + 1


TABLE = [1.0, -1.0, 4.0]
NESTED = [[1.0, 2.0, 3.0], [-1.0, 0.5, 4.0]]


def sqrt_of_a_table_item(x):
    t = TABLE[int(x) % 3]
    return t ** 0.5


def sqrt_of_a_nested_table_item(x, y):
    v0 = NESTED[int(y) % 2][int(x) % 3]
    v3 = v0 ** 0.5
    return v3 + v3


def test_vmap_item_of_a_table_of_python_floats_is_a_python_float():
    # fuzz_constructs --backend jax seed 20225 (every backend): an item of a global list of
    # Python floats taken with a per-example index is a Python float per example, whose
    # `** 0.5` of a negative number is complex; the batch computed NumPy's nan instead
    x = np.array([0.0, 1.0, 2.0])
    want = np.array([sqrt_of_a_table_item(v) for v in x])
    assert want.dtype.kind == "c"
    got = vmap(sqrt_of_a_table_item)(x)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-15, atol=1e-15)
    y = np.array([1.0, 0.0, 1.0])
    want = np.array([sqrt_of_a_nested_table_item(a, b) for a, b in zip(x, y)])
    got = vmap(sqrt_of_a_nested_table_item)(x, y)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-15, atol=1e-15)


def sqrt_zero_to_minus_one(x, y):
    return math.sqrt(abs(0)) ** -1


def test_vmap_math_result_every_example_shares_raises_as_python():
    # fuzz_nep50 seed 20335: `math.sqrt(abs(0)) ** -1`, the same Python float 0.0 for every
    # example, raises ZeroDivisionError in the loop; the batch computed it as NumPy's
    # `np.sqrt(0) ** -1` (inf) and returned inf, its check skipped as "Python's own"
    x, y = np.zeros(3, np.float16), np.zeros(3, np.uint32)
    with pytest.raises(ZeroDivisionError):
        sqrt_zero_to_minus_one(x[0], y[0])
    with pytest.raises(ZeroDivisionError):
        vmap(sqrt_zero_to_minus_one)(x, y)


def divmod_of_uint32_and_python_int(x, y):
    r = math.ceil(x - 1)
    return divmod(y, r)[0]


def test_vmap_divmod_of_narrow_int_and_python_int_raises_as_nep50():
    # fuzz_nep50 seed 20352: `divmod(y, r)` of a uint32 `y` and a Python int `r` of -1
    # raises OverflowError per example (NEP 50 makes -1 a uint32), as `y // r` does; the
    # batch returned -1
    y = np.array([1, 2, 3], np.uint32)
    x = np.array([0, 5, 3], np.int8)
    with pytest.raises(OverflowError):
        divmod_of_uint32_and_python_int(x[0], y[0])
    with pytest.raises(OverflowError):
        vmap(divmod_of_uint32_and_python_int)(x, y)
    # in bounds: the values (the batch's dtype is int64 where the loop's is uint32: open)
    x = np.array([3, 5, 3], np.int8)
    want = np.array([divmod_of_uint32_and_python_int(a, b) for a, b in zip(x, y)])
    np.testing.assert_array_equal(vmap(divmod_of_uint32_and_python_int)(x, y), want)


def where_then_divide_in_place(x):
    r = np.where(x > 0, 3, 4)
    r /= 2.0
    return r


def int_vector_then_add_float_in_place(x):
    v = np.zeros(3, dtype=np.int64)
    v += x * 1.5
    return v


@pytest.mark.parametrize("func", [where_then_divide_in_place,
                                  int_vector_then_add_float_in_place])
def test_in_place_float_update_of_an_int_array_is_refused(func):
    # fuzz_nep50 seed 21116 (minimized): `r = np.where(...)` is a 0-d int array per example
    # and `r /= 2.0` raises UFuncTypeError (NumPy casts in place only within a kind); the
    # batch rebound `r` to floats and returned them. Same for a local int vector.
    x = np.array([1, 2, -3], np.int64)
    with pytest.raises(TypeError):      # (NumPy's UFuncTypeError)
        func(x[0])
    with pytest.raises(VectorizeError, match="in place") as info:
        vmap(func)(x)
    assert info.value.filename == __file__
    with pytest.raises(VectorizeError, match="in place"):
        vectorize(func, fallback="error", signature="()->()" if func is
                  where_then_divide_in_place else "()->(3)")(x)
