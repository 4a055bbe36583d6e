"""Wrong results a sweep left: the sign of a zero on lanes that are ints per example (a
value that is an int on some lanes and a float on others: the batch's float gives -0.0
where the int lane's 0 stacks as 0.0; a run-time check lets the per-example code decide
there). `vectorize` against numpy.vectorize (values, dtype and the sign of zeros), `vmap`
against the loop over NumPy scalars, or a located refusal."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from vectorize import VectorizeError, vectorize, vmap


def _same_bits(got, want):
    assert got.dtype == want.dtype, (got, want)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def _loop(f, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return np.stack([np.asarray(f(*row)) for row in zip(*args)])


def _neg(a, c):
    r = int(a) if c > 0 else a * 1.0
    return -r


def _times_minus_one(a, c):
    r = int(a) if c > 0 else a * 1.0
    return r * -1


def _floordiv_minus_three(a, c):
    if c > 0:
        r = int(a)
    else:
        r = a * 1.0
    return r // -3


def _mod_minus_one(a, c):
    if c > 0:
        r = int(a)
    else:
        r = a * 1.0
    return r % -1


def _divmod_minus_one(a, c):
    r = int(a) if c > 0 else a * 1.0
    q, m = divmod(r, -1)
    return q + m * 0.5


def _np_mod_minus_one(a, c):
    r = int(a) if c > 0 else a * 1.0
    return np.mod(r, -1)


def _times_zero(a, c):
    r = int(a) if c > 0 else a * 1.0
    return r * 0


def _copysign_of_negated_double(a, c):
    r = int(a) if c > 0 else a * 1.0
    return math.copysign(1.0, -(r * 2))


def _np_fmod(a, c):
    r = int(a) if c > 0 else a * 1.0
    return np.fmod(r, 1)


def _augmented_times_minus_one(a, c):
    r = int(a) if c > 0 else a * 1.0
    r *= -1
    return r


def _augmented_floordiv_minus_three(a, c):
    r = int(a) if c > 0 else a * 1.0
    r //= -3
    return r


# float lane first: numpy.vectorize's output is float64; lanes 1 and 4 are int zeros
# (-0 and -2 * 0 / -2 % 1 on ints), lane 2 a float zero (-0.0 kept)
A = np.array([1.0, 0.0, 0.0, 3.0, -2.0, 5.0])
C = np.array([-1.0, 1.0, -1.0, 1.0, 1.0, -1.0])


@pytest.mark.parametrize("f", [_neg, _times_minus_one, _floordiv_minus_three,
                               _mod_minus_one, _divmod_minus_one, _np_mod_minus_one,
                               _times_zero, _copysign_of_negated_double, _np_fmod,
                               _augmented_times_minus_one, _augmented_floordiv_minus_three])
def test_vectorize_int_lane_zero_keeps_its_sign(f):
    want = np.vectorize(f)(A, C)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = vectorize(f)(A, C)
    _same_bits(got, want)
    # (computed: the check of the operation's -0.0 replays numpy.vectorize here)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same_bits(vectorize(f, fallback="error")(A, C), want)


def _times_three_floordiv_two_mod_seven(a, c):
    r = int(a) if c > 0 else a * 1.0
    return r * 3 + r // 2 + r % 7 + (0 - r)


def test_vectorize_positive_constants_stay_batched():
    want = np.vectorize(_times_three_floordiv_two_mod_seven)(A, C)
    got = vectorize(_times_three_floordiv_two_mod_seven, fallback="error")(A, C)
    _same_bits(got, want)


def _vmap_neg(x, y, c):
    r = x if c > 0 else y
    return np.negative(r)


def _vmap_floordiv(x, y, c):
    if c > 0:
        r = x
    else:
        r = y
    return r // -3


@pytest.mark.parametrize("f", [_vmap_neg, _vmap_floordiv])
def test_vmap_int64_lane_zero_refused_or_same(f):
    x = np.array([1, 0, 0, 3, -2, 5])
    y = x.astype(np.float64)
    want = _loop(f, x, y, C)
    try:
        got = vmap(f)(x, y, C)
    except VectorizeError as exc:
        assert "test_wrong31b.py:" in str(exc).splitlines()[0]
        return
    _same_bits(got, want)


def _big_constant(x, y):
    return 2 ** 70


def test_jax_returned_int_beyond_int64_refused_located():
    pytest.importorskip("jax")
    x = np.arange(3.0)
    # (NumPy's loop: an object array of the int; no jax.Array holds it)
    with pytest.raises(VectorizeError, match=r"test_wrong31b\.py:\d+:\d+.*beyond int64"):
        vmap(_big_constant, backend="jax")(x, x)


def _scaled_by_unmapped_sum(x, w):
    return x * np.sum(w)


def test_torch_numpy_sum_of_unmapped_numpy_argument():
    pytest.importorskip("torch")
    x, w = np.arange(3.0), np.array([1.0, 2.0])
    mapped = vmap(_scaled_by_unmapped_sum, in_axes=(0, None), backend="torch")
    # (`w`, not mapped, stays NumPy as torch.func.vmap leaves it: np.sum computes in NumPy,
    # no fallback, and an empty batch is an empty result)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = mapped(x, w)
        empty = mapped(x[:0], w)
    _same_bits(got, _loop(lambda xi: _scaled_by_unmapped_sum(xi, w), x))
    assert empty.shape == (0,) and empty.dtype == np.float64


def _python_int_meets_float16(a, b):
    flag = 0.5
    flag += (a < 0.5)
    return max(a, flag) + b ** True


def test_jax_python_int_meets_float16_as_numpy_vectorize():
    # fuzz_jax27 --only bools seed 1185: per example `a` is the Python int 2**63 - 1,
    # which meets np.float16 as a float16 (inf); the analysis' int64 stand-in made JAX's
    # code convert it to float64 (9.22e18)
    pytest.importorskip("jax")
    a, b = np.array(2 ** 63 - 1), np.float16(-0.0)
    with np.errstate(all="ignore"):
        want = np.vectorize(_python_int_meets_float16)(a, b)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = vectorize(_python_int_meets_float16, backend="jax")(a, b)
    _same_bits(np.asarray(got), want)
    with pytest.raises(VectorizeError, match=r"test_wrong31b\.py:\d+:\d+.*Python int"):
        vectorize(_python_int_meets_float16, backend="jax", fallback="error")(a, b)


@pytest.mark.parametrize("f", [_neg, _times_minus_one, _floordiv_minus_three,
                               _mod_minus_one, _copysign_of_negated_double,
                               _augmented_times_minus_one])
def test_vmap_python_int_lane_zero_same(f):
    # (`int(a)` of a NumPy float is a Python int per example: 0 where the batch gives -0.0;
    # the check of the operation's -0.0 runs the loop here)
    want = _loop(f, A, C)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same_bits(vmap(f)(A, C), want)
