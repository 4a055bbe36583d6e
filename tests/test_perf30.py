"""The per-call costs cut for the seed `if` at 1e4 lanes: int literals beside per-example
floats written as floats (`rules.operators.float_literals`), and `merge.blend`'s small
batches through ``np.where`` without its ``__array_function__`` dispatch. Differential:
`vectorize` against ``numpy.vectorize`` (values and dtype), `vmap` against the loop over
NumPy scalars, `blend` against ``np.where`` bit for bit."""

import math

import numpy as np
import pytest

from vectorize import vectorize, vmap
from vectorize.backends.numpy import merge

SPECIAL = [np.nan, -np.nan, np.inf, -np.inf, -0.0, 0.0, 5.0, 4.999999999999999, -5.0, 1.0,
           2.0 ** 53 + 2, 2.0 ** 60, -(2.0 ** 24) - 1, 65504.0, 2049.0, 2048.0, 1e300]


def _same(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()


def seed(t, b):
    tmp = t * b
    if tmp > 5:
        root = t * b
    else:
        root = -t
    return root


def literals(x):
    y = 2 * x + 1 - (x - 3) / 3
    if x < 0 or x == -2 or 7 <= x:
        y = x * -4
    return y + 0x10


def huge(x):
    # 2**53 + 1 and 2**60: no float64 holds them; Python compares exactly
    return (x > 9007199254740993) + 2 * (x >= 1152921504606846976)


def narrow(x):
    # 2049 and 16777217: not a float16 / float32
    return (x > 2049) + 2 * (x < 16777217) + 4 * (x > 5) + x * 3


FLOATS = np.array(SPECIAL + list(np.linspace(-10, 10, 23)))


def test_int_literals_beside_floats_are_floats_in_the_code():
    src = vectorize(seed).source(np.zeros(3), 1.0)
    assert "merge.blend(tmp > 5.0, tmp, -t)" in src
    src = vectorize(literals).source(np.zeros(3))
    assert "y = 2.0 * x\n" in src and "y += 1.0\n" in src and "(x - 3.0) / 3.0" in src
    assert "x * -4.0" in src and "x == -2.0" in src and "7.0 <= x" in src
    assert "0x10" not in src and "y + 16.0" in src


@pytest.mark.parametrize("func", [seed, literals, huge, narrow])
@pytest.mark.parametrize("n", [0, 1, 7, len(FLOATS)])
def test_vectorize_matches_numpy_vectorize(func, n):
    x = FLOATS[:n]
    args = (x, 1.0) if func is seed else (x,)
    # (an empty batch: numpy.vectorize needs otypes, ours does not: docs/semantics.md)
    otypes = None if n else ["l" if func is huge else "d"]
    with np.errstate(all="ignore"):
        want = np.vectorize(func, otypes=otypes)(*args)
        got = vectorize(func)(*args)
    _same(got, want)


def test_ints_not_held_exactly_stay_ints():
    src = vectorize(huge).source(np.zeros(3))
    assert "9007199254740993" in src and "1152921504606846976" in src
    src = vmap(narrow).source(np.zeros(3, np.float16))
    assert "x > 2049)" in src and "x < 16777217)" in src and "x > 5.0" in src
    assert "x * 3.0" in src
    src = vmap(narrow).source(np.zeros(3, np.float32))
    assert "x > 2049.0" in src and "x < 16777217)" in src


def test_int_operands_keep_their_ints():
    src = vectorize(seed).source(np.zeros(3, np.int64), 1)
    assert "tmp > 5," in src or "tmp > 5\n" in src
    x = np.array([-7, 0, 5, 6, 2 ** 40])
    _same(vectorize(seed)(x, 3), np.vectorize(seed)(x, 3))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
@pytest.mark.parametrize("func", [literals, narrow, huge])
def test_vmap_matches_the_loop_over_numpy_scalars(dtype, func):
    x = FLOATS.astype(dtype) if dtype is np.float64 else np.array(
        [v for v in SPECIAL if abs(v) <= 60000 or not math.isfinite(v)] + [3.0, -2.0, 7.0],
        dtype)
    with np.errstate(all="ignore"):
        want = np.array([func(v) for v in x])
        got = vmap(func)(x)
    _same(got, want)


def test_non_contiguous_and_broadcast_batches():
    x = FLOATS[::2]
    want = np.vectorize(seed)(x, 1.5)
    _same(vectorize(seed)(x, 1.5), want)
    grid = np.linspace(-10, 10, 12).reshape(3, 4).T        # (4, 3), Fortran order
    b = np.array([0.5, -1.0, 2.0])
    _same(vectorize(seed)(grid, b), np.vectorize(seed)(grid, b))


def test_a_rewritten_file_keeps_its_literals(tmp_path):
    from vectorize.rewrite import rewrite_text

    text = ("from vectorize import vectorize\n\n\n@vectorize\ndef f(x: float) -> float:\n"
            "    if x > 5:\n        return 2 * x\n    return x\n")
    out = rewrite_text(text, str(tmp_path / "f.py")).text
    assert "x > 5" in out and "2 * x" in out and "5.0" not in out and "2.0" not in out


# ------------------------------------------------------- merge.blend: np.where undispatched
@pytest.mark.parametrize("n", [0, 1, 5, 1000])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.uint8, np.bool_,
                                   np.complex128])
def test_small_blend_is_where(n, dtype):
    rng = np.random.default_rng(n)
    cond = rng.random(n) < 0.5
    a = (rng.standard_normal(n) * 100).astype(dtype)
    b = (rng.standard_normal(n) * 100).astype(dtype)
    if dtype is np.float64 and n:
        a[0], b[-1] = np.nan, -0.0
    for x, y in [(a, b), (a, 2.5), (3, b), (True, b), (a, np.float32(1.5)),
                 (a[::-1], b), (a, 1j), (np.int8(-3), b)]:
        _same(merge.blend(cond, x, y), np.where(cond, x, y))
    wide = (rng.standard_normal(2 * n) * 100).astype(dtype).reshape(n, 2)
    _same(merge.blend(cond[:, None], wide, b[:, None]), np.where(cond[:, None], wide,
                                                                  b[:, None]))
    _same(merge.blend(cond[::-1], a, b), np.where(cond[::-1], a, b))


class _Overrides:
    """An operand that overrides ``np.where`` (NEP 18): `blend` must dispatch to it."""

    def __array_function__(self, func, types, args, kwargs):
        return ("overridden", func.__name__)


def test_blend_dispatches_to_an_override():
    cond = np.array([True, False])
    assert merge.blend(cond, _Overrides(), 1.0) == ("overridden", "where")
    assert merge.blend(cond, np.zeros(2), _Overrides()) == ("overridden", "where")


class _Sub(np.ndarray):
    pass


def test_blend_of_a_subclass_is_where_of_it():
    cond = np.array([True, False, True])
    a = np.arange(3.0).view(_Sub)
    got, want = merge.blend(cond, a, -1.0), np.where(cond, a, -1.0)
    assert type(got) is type(want)
    _same(got, want)
