"""Facts learned from a comparison hold for the values as compared: a NumPy float16/float32
number compares with a Python float literal in its own dtype (NEP 50), so ``x <= 709.78``
of a float16 is ``x <= 710.0``, and the `math` check that the fact would make unnecessary
(``math.exp(710.0)`` overflows) must stay. Differential: `vmap` against the per-example
loop on NumPy scalars, `vectorize` against numpy.vectorize (equal values and dtype, or the
same exception type)."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from vectorize import VectorizeError, vectorize, vmap


def exp_below(x):
    if x <= 709.78:                 # float16: the literal is 710.0
        return math.exp(x)
    return 0.0


def exp_else(x):
    if x > 709.78:
        return 0.0
    return math.exp(x)


def exp_below_f32(x):
    # float32(709.782711893384) = 709.78271484375, beyond log(DBL_MAX) = 709.782712893384
    if x <= 709.782711893384:
        return math.exp(x)
    return -1.0


def exp_and(x):
    if x >= 0.0 and x <= 709.78:
        return math.exp(x)
    return -1.0


def log_from(x):
    if x >= 1e-8:                   # float16 (and float32): the literal is 0.0
        return math.log(x)
    return -1.0


def log_from_tiny(x):
    if x >= 1e-46:                  # float32: 0.0
        return math.log(x)
    return -1.0


def log_unless_small(x):
    if not x < 1e-8:
        return math.log(x)
    return -1.0


def recip_root(x):
    if x >= 1e-8:                   # the value ranges: sqrt(x) may be 0 for a float16
        return 1.0 / math.sqrt(x)
    return 0.0


def int_log(n):
    if n >= 0.5:                    # an int with a float: compared in float64, n >= 1
        return math.log(n)
    return -1.0


def uint_log(n):
    if n > -1:                      # an unsigned int with a negative literal: exact
        return math.log(n)
    return -1.0


def acosh_from(x):
    if x >= 0.99999:                # float16: 1.0, acosh's domain
        return math.acosh(x)
    return -1.0


def exp_huge_bound(x):
    if x <= 1e39:                   # float32: inf
        return math.exp(x)
    return -1.0


def outcome(call, *args):
    """``call(*args)`` as an array, or the type of the exception it raised (not ours)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return np.asarray(call(*args))
        except VectorizeError:
            raise
        except Exception as exc:    # noqa: BLE001 -- the exception is the outcome
            return type(exc)


def loop(func, xs):
    return np.array([func(x) for x in xs])


def same(got, want, n):
    if isinstance(want, type) or isinstance(got, type):
        assert got == want
        return
    assert got.shape == want.shape
    # (NumPy's exp and log may differ from `math`'s in the last bit)
    np.testing.assert_allclose(got, want, rtol=1e-15, atol=0)
    if n:
        assert got.dtype == want.dtype


def check_vmap(func, dtype, values):
    for xs in [[v] for v in values] + [values, []]:
        batch = np.array(xs, dtype=dtype)
        same(outcome(vmap(func), batch), outcome(loop, func, batch), len(xs))


F16_NEAR = [700.0, 709.0, 709.5, 709.78, 710.0, 711.0, 65504.0, -700.0, math.inf, -math.inf,
            math.nan]


@pytest.mark.parametrize("func", [exp_below, exp_else, exp_and])
def test_vmap_float16_exp_bound_rounds_up(func):
    check_vmap(func, np.float16, F16_NEAR)
    ok = np.array([0.0, 1.0, 709.5, -5.0, 12.0], dtype=np.float16)
    same(outcome(vmap(func), ok), outcome(loop, func, ok), 5)


def test_vmap_float16_exp_raises_where_the_loop_does():
    with pytest.raises(OverflowError):
        vmap(exp_below)(np.array([700.0, 710.0], dtype=np.float16))
    assert np.float16(710.0) <= 709.78          # (the premise: NEP 50)


def test_vmap_float32_exp_bound_rounds_past_the_limit():
    top = np.float32(709.782711893384)
    assert float(top) > math.log(np.finfo(float).max)
    below = np.nextafter(top, np.float32(0))
    values = [float(top), float(below), 709.0, float(np.nextafter(top, np.float32(1e9))),
              math.inf, math.nan]
    check_vmap(exp_below_f32, np.float32, values)
    check_vmap(exp_below_f32, np.float64, values)
    with pytest.raises(OverflowError):
        vmap(exp_below_f32)(np.array([top], dtype=np.float32))


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("func", [log_from, log_unless_small, recip_root])
def test_vmap_zero_bound_rounds_down_to_zero(func, dtype):
    tiny = float(np.finfo(dtype).smallest_subnormal)
    check_vmap(func, dtype, [0.0, -0.0, 1e-8, tiny, 1e-3, 1.0, -1.0, math.nan, math.inf])
    if dtype is np.float16:         # (float32 keeps 1e-8 above 0: no error)
        with pytest.raises((ValueError, ZeroDivisionError)):
            vmap(func)(np.array([1.0, 0.0], dtype=dtype))


def test_vmap_float32_tiny_literal():
    check_vmap(log_from_tiny, np.float32, [0.0, 1e-45, 1.0, -1.0])
    with pytest.raises(ValueError):
        vmap(log_from_tiny)(np.array([2.0, 0.0], dtype=np.float32))


def test_vmap_float16_rounded_bound_still_proves():
    # x >= float16(0.99999) = 1.0: acosh's domain holds on every example that gets there
    check_vmap(acosh_from, np.float16, [0.99951171875, 1.0, 1.5, 0.5, math.nan, math.inf])


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int64])
def test_vmap_int_with_float_literal(dtype):
    check_vmap(int_log, dtype, [-3, -1, 0, 1, 5])
    assert vmap(int_log)(np.array([1, 2], dtype=dtype)).tolist() == [0.0, math.log(2)]


@pytest.mark.parametrize("dtype", [np.uint8, np.uint64])
def test_vmap_unsigned_with_negative_literal(dtype):
    check_vmap(uint_log, dtype, [0, 1, 255])
    with pytest.raises(ValueError):
        vmap(uint_log)(np.array([3, 0], dtype=dtype))


def test_vmap_float32_literal_beyond_range():
    big = float(np.finfo(np.float32).max)
    check_vmap(exp_huge_bound, np.float32, [1.0, 709.0, 710.0, big, math.inf, -math.inf,
                                            math.nan])


def test_vmap_float16_large_repeated():
    rng = np.random.default_rng(5)
    batch = rng.uniform(-700.0, 709.5, 10_000).astype(np.float16)
    f = vmap(exp_below)
    want = outcome(loop, exp_below, batch)
    for _ in range(2):
        same(outcome(f, batch), want, len(batch))
    batch[-1] = 710.0
    assert outcome(f, batch) is OverflowError


# ---------------------------------------------------------------- vectorize
def exp_half(x):
    y = np.float16(x)
    if y <= 709.78:
        return math.exp(y)
    return 0.0


def log_half(x):
    y = np.float16(x)
    if y >= 1e-8:
        return math.log(y)
    return -1.0


def exp_single(x):
    y = np.float32(x)
    if y <= 709.782711893384:
        return math.exp(y)
    return -1.0


def exp_python(x):
    if x <= 709.78:                 # Python floats: float64, exact
        return math.exp(x)
    return 0.0


def check_vectorize(func, values, dtype=np.float64):
    for xs in [[v] for v in values] + [values]:
        batch = np.array(xs, dtype=dtype)
        same(outcome(vectorize(func), batch), outcome(np.vectorize(func), batch), len(xs))


def test_vectorize_narrow_conversion_compares_narrow():
    check_vectorize(exp_half, [700.0, 709.5, 709.78, 709.9, 710.0, 711.0, math.inf, math.nan])
    with pytest.raises(OverflowError):
        vectorize(exp_half)(np.array([1.0, 709.9]))
    check_vectorize(log_half, [0.0, 1e-9, 1e-8, 1e-7, 1.0, -1.0])
    with pytest.raises(ValueError):
        vectorize(log_half)(np.array([1.0, 1e-8]))
    top = float(np.float32(709.782711893384))
    check_vectorize(exp_single, [709.0, 709.782711893384, top, 710.0])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_vectorize_python_floats_compare_in_float64(dtype):
    # numpy.vectorize hands Python floats: 710.0 > 709.78 there, no overflow
    check_vectorize(exp_python, [700.0, 709.5, 709.78, 710.0, 711.0, math.inf], dtype)


def at_most_2_53(n):
    return n <= 9007199254740992.0


def above_2_53(n):
    if n > 9007199254740992.0:      # Python: exact; the int64 array must not round n
        return 1
    return 0


def within_uint64(n):
    return -1e19 < n < 1.8446744073709552e19


@pytest.mark.parametrize("dtype", [np.int64, np.uint64])
def test_vectorize_big_ints_compare_exactly_with_floats(dtype):
    info = np.iinfo(dtype)
    values = [0, 1, 2 ** 53 - 1, 2 ** 53, 2 ** 53 + 1, 2 ** 53 + 2, int(info.max), int(info.min)]
    for func in (at_most_2_53, above_2_53, within_uint64):
        check_vectorize(func, values, dtype)
        check_vmap(func, dtype, values)       # (NumPy scalars: float64, as the batch)


def past_2_60(n):
    if n > 1152921504606846976.0:   # n >= 2**60 + 1, not the next float (2**60 + 256)
        return 1 / ((n - 1152921504606846976) - 1)
    return 0.0


def test_vectorize_strict_bound_beyond_2_53_is_one_int_away():
    values = [2 ** 60 - 1, 2 ** 60, 2 ** 60 + 1, 2 ** 60 + 2, 2 ** 60 + 300]
    check_vectorize(past_2_60, values, np.int64)
    with pytest.raises(ZeroDivisionError):
        vectorize(past_2_60)(np.array([2 ** 60 + 5, 2 ** 60 + 1]))


def test_vmap_torch_float16_compares_in_float16():
    torch = pytest.importorskip("torch")
    with pytest.raises(OverflowError):
        [exp_below(x) for x in torch.tensor([700.0, 710.0], dtype=torch.float16)]
    with pytest.raises(OverflowError):
        vmap(exp_below)(torch.tensor([700.0, 710.0], dtype=torch.float16))
    got = vmap(exp_below)(torch.tensor([700.0, 709.5, 711.0], dtype=torch.float16))
    want = [exp_below(x) for x in torch.tensor([700.0, 709.5, 711.0], dtype=torch.float16)]
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-15)


def shifted_exp(x, t):
    if t <= 709.782711893384:
        return x + math.exp(t)
    return x


@pytest.mark.parametrize("t", [np.float32(709.78271484375), np.float32(709.0),
                               np.float16(709.78), np.float16(709.5)])
def test_vectorize_excluded_numpy_scalar_compares_in_its_dtype(t):
    # an excluded argument is handed as it is: a NumPy float32 compares in float32
    xs = np.array([1.0, 2.0])
    same(outcome(vectorize(shifted_exp, excluded={1}), xs, t),
         outcome(np.vectorize(shifted_exp, excluded={1}), xs, t), 2)


def through_helper(x):
    return exp_below(x) + 1.0


def chained(x):
    if 0.0 <= x <= 709.78:
        return math.exp(x)
    return 0.0


def ternary(x):
    return math.exp(x) if x <= 709.78 else 0.0


def short_circuit(x):
    return x <= 709.78 and math.exp(x) > 1.0


def early(x):
    if x > 709.78:
        return -1.0
    return math.exp(x)


def looped(x):
    s = 0.0
    for _ in range(2):
        if x <= 709.78:
            s += math.exp(x)
    return s


def caught(x):
    try:
        if x <= 709.78:
            return math.exp(x)
        return 0.0
    except OverflowError:
        return -5.0


@pytest.mark.parametrize("func", [through_helper, chained, ternary, short_circuit, early,
                                  looped, caught])
def test_vmap_float16_bound_in_every_construct(func):
    check_vmap(func, np.float16, [700.0, 709.5, 710.0, 711.0, math.nan])


def test_nested_vmap_float16():
    rows = np.array([[700.0, 710.0], [1.0, 2.0]], dtype=np.float16)
    with pytest.raises(OverflowError):
        [[exp_below(x) for x in row] for row in rows]
    with pytest.raises(OverflowError):
        vmap(vmap(exp_below))(rows)
    ok = np.array([[700.0, 711.0], [1.0, 709.5]], dtype=np.float16)
    want = np.array([[exp_below(x) for x in row] for row in ok])
    np.testing.assert_allclose(vmap(vmap(exp_below))(ok), want, rtol=1e-15)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_vmap_narrow_floats_match_the_loop(data):
    dtype = data.draw(st.sampled_from([np.float16, np.float32]))
    func = data.draw(st.sampled_from([exp_below, exp_below_f32, log_from, log_from_tiny,
                                      recip_root, acosh_from, early, ternary]))
    edge = st.sampled_from([0.0, -0.0, 1e-8, 1e-46, 709.5, 709.78, 709.782711893384, 710.0,
                            1.0, 0.99999, math.inf, -math.inf, math.nan])
    xs = data.draw(hnp.arrays(dtype, st.integers(0, 5),
                              elements=st.one_of(edge, hnp.from_dtype(np.dtype(dtype)))))
    same(outcome(vmap(func), xs), outcome(loop, func, xs), len(xs))
