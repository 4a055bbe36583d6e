"""Regressions found by hunt13's vmap fuzzer (`benchmarks/fuzz_hunt13.py`): each compares
`vmap` with the per-example loop over NumPy scalars / rows (values and dtype where it
returns) or asserts the located refusal that replaces a wrong result; each fails without
its fix. A short fixed run of the fuzzer itself closes the file."""

import random
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from vectorize import VectorizeError, vmap

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fuzz import hunt13_programs as hp  # noqa: E402
from vmap_reference import loop_vmap  # noqa: E402


def _mixed_row(x32, y64):
    if y64.sum() > 0:
        u = x32
    else:
        u = y64
    return np.linalg.norm(u)


def _mixed_scalar(x32, y64):
    if y64 > 0:
        u = x32
    else:
        u = y64
    return u * 1.1


def _python_float_lane(x32):
    if x32 > 0:
        r = x32
    else:
        r = 0.3
    return r * 1.1


def _mixed_sqrt(x32, y64):
    if y64.sum() > 0:
        u = x32
    else:
        u = y64
    return np.sqrt(np.abs(u))


def _mixed_method(x32, y64):
    if y64.sum() > 0:
        u = x32
    else:
        u = y64
    return u.sum()


def _mixed_but_harmless(x32, y64):
    if y64 > 0:
        u = x32
    else:
        u = y64
    return u + y64, u > 0, u


def _max_of_shapes(x, w):
    return max(x, w)


def _sin_of_shared(x, k):
    if x > 0:
        return np.sin(k)
    return 0.5


def _divided_shared(x, k):
    return k / 3 + x


def _exp_of_shared_int(x, c):
    if x > 0:
        t = np.exp(-np.abs(c))
    else:
        t = -x
    return t


def _cumsum_int32(v):
    return np.cumsum(v, 0)


def _where_of_literals(b, v32):
    z = np.where(b, 1.5, -0.5)
    return (z * v32).sum()


def _centred(v):
    return v - v.mean()


def _two_keys(x):
    return {"y": x * 2, "q": x + 1}


def _shared_choice_then_loop(a, b, c=1.0):
    if c > 0:
        t = np.linalg.norm(b)
    else:
        t = -a
    n = 0
    while t < 5 and n < 6:
        n = n + 1
        t = t * 2 + 1.1
    return t


def _loop(f, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return loop_vmap(f)(*args)


RNG = np.random.default_rng(13)
X32_ROWS = RNG.standard_normal((6, 4)).astype(np.float32)
Y64_ROWS = RNG.standard_normal((6, 4)) * np.array([1, -1, 1, -1, 1, -1])[:, None] * 5
X32 = RNG.standard_normal(6).astype(np.float32)
Y64 = np.array([1.5, -2.0, 0.7, -0.1, 3.0, -4.0])


@pytest.mark.parametrize("f,args", [
    (_mixed_row, (X32_ROWS, Y64_ROWS)),
    (_mixed_scalar, (X32, Y64)),
    (_python_float_lane, (np.array([1.5, -1.0, 2.0, -3.0], dtype=np.float32),)),
    (_mixed_sqrt, (X32_ROWS, Y64_ROWS)),
    (_mixed_method, (X32_ROWS, Y64_ROWS)),
], ids=["norm_of_float32_or_float64_row", "float32_or_float64_times_literal",
        "float32_or_python_float_times_literal", "sqrt_of_float32_or_float64_row",
        "sum_method_of_float32_or_float64_row"])
def test_a_value_float32_on_some_lanes_and_float64_on_others_is_refused(f, args):
    # per example the float32 lanes compute in float32 (the loop's stack of them is not
    # the float64 result); the batch computed every lane in the joined float64 (or, with
    # a Python float, float32): values off by float32's rounding (fuzz_hunt13 seeds 20,
    # 21, 278; a method, `u.sum()`: seed 2011). Refused, located at the operation.
    expected = _loop(f, *args)
    with pytest.raises(VectorizeError, match="type differs between lanes"):
        got = vmap(f)(*args)
        # (without the fix: the batch returns, and differs from the loop)
        np.testing.assert_array_equal(got, expected)


def test_a_join_of_float32_and_float64_that_computes_alike_still_vectorizes():
    got = vmap(_mixed_but_harmless)(X32, Y64)
    expected = _loop(_mixed_but_harmless, X32, Y64)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_builtin_max_of_a_number_and_a_shared_array_of_shape_1_is_refused(backend):
    # per example max(x, w) returns x (shape ()) or w (shape (1,)): the loop cannot stack
    # the results (ValueError / RuntimeError); the batch broadcast them into (n, 1) and
    # returned (fuzz_hunt13 seed 1191, torch: shape (3, 3) where the loop gave (3,))
    x, w = np.array([0.5, 3.0, -1.0]), np.array([1.25])
    if backend == "torch":
        torch = pytest.importorskip("torch")
        x, w = torch.from_numpy(x), torch.from_numpy(w)
    with pytest.raises((ValueError, RuntimeError)):
        loop_vmap(_max_of_shapes, (0, None))(x, w)
    with pytest.raises(VectorizeError, match="different per-example shapes"):
        vmap(_max_of_shapes, in_axes=(0, None))(x, w)
    # a shared number of the example's shape still vectorizes
    same = vmap(_max_of_shapes, in_axes=(0, None))(x, w[0])
    assert [float(v) for v in same] == [1.25, 3.0, 1.25]


@pytest.mark.parametrize("f", [_sin_of_shared, _divided_shared])
def test_jax_operations_on_a_shared_int32_compute_in_numpys_dtype(f):
    # np.sin(k) of a shared int32 k was written jnp.sin(k), which JAX computes in float32
    # (NumPy: float64): 0.90929741 where the loop gives 0.90929743 (fuzz_hunt13 seed 1318)
    pytest.importorskip("jax")
    x, k = np.array([1.0, 2.0, -1.0]), np.int32(2)
    got = vmap(f, in_axes=(0, None), backend="jax")(x, k)
    expected = _loop(lambda a: f(a, k), x)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def test_jax_a_ufunc_of_a_shared_python_number_is_strongly_typed_as_numpys():
    # np.exp(-np.abs(3)) is a NumPy float64 per example, which float32 lanes meet as
    # float64; JAX kept it weak and the batch came back float32: 0.04978707 rounded to
    # float32 (fuzz_hunt13 seed 3113)
    pytest.importorskip("jax")
    x = np.array([1.5, -2.0, 0.5], dtype=np.float32)
    got = vmap(_exp_of_shared_int, in_axes=(0, None), backend="jax")(x, 3)
    expected = _loop(lambda a: _exp_of_shared_int(a, 3), x)
    assert got.dtype == expected.dtype == np.float64
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("f,args", [
    (_cumsum_int32, (np.arange(8, dtype=np.int32).reshape(2, 4),)),
    (_where_of_literals, (np.array([True, False, True]),
                          np.arange(12, dtype=np.float32).reshape(3, 4) / 7)),
    (_centred, (np.arange(8, dtype=np.int32).reshape(2, 4),)),
], ids=["cumsum_of_int32_is_int64", "where_of_python_floats_is_strong_float64",
        "mean_method_of_int32_is_float64"])
def test_jax_results_have_numpys_dtype(f, args):
    # jnp.cumsum of int32 is int32 (NumPy: int64; seed 3228); jnp.where(b, 1.5, -0.5) is a
    # weak float that a float32 row meets as float32 (NumPy: a float64 array; seed 3457);
    # the method v.mean() of int32 was float32 (NumPy: float64; seed 5015)
    pytest.importorskip("jax")
    got = vmap(f, backend="jax")(*args)
    expected = _loop(f, *args)
    assert got.dtype == expected.dtype
    np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_jax_returns_dicts_with_the_functions_key_order():
    # jit hands dicts back with sorted keys: {'q', 'y'} where the function (and the NumPy
    # backend, and the loop) give {'y', 'q'} (fuzz_hunt13 seeds 1000, 1018, ...)
    pytest.importorskip("jax")
    got = vmap(_two_keys, backend="jax")(np.arange(3.0))
    assert list(got) == ["y", "q"]
    np.testing.assert_array_equal(got["q"], np.arange(3.0) + 1)


def test_pytorch_refuses_rounding_the_float32_lanes_of_a_joined_value():
    """docs/semantics.md, "PyTorch": the join holds one dtype (float64), but per example the
    float32 lanes compute ``u * 1.1`` in float32: refused, as on NumPy (the joined dtype is
    kept where the value is only passed on: tests/test_torch29.py)."""
    torch = pytest.importorskip("torch")
    x, y = torch.from_numpy(X32), torch.from_numpy(Y64)
    with pytest.raises(VectorizeError, match="type differs between lanes"):
        vmap(_mixed_scalar)(x, y)


def test_a_shared_choice_between_float32_and_float64_before_a_masked_loop():
    a = np.array([-1.3, 2.7, 0.2], dtype=np.float32)
    b = np.ones((3, 4), dtype=np.int32)
    got = vmap(_shared_choice_then_loop)(a, b, c=-2.0)
    expected = _loop(lambda x, y: _shared_choice_then_loop(x, y, c=-2.0), a, b)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("backend,seeds", [("numpy", range(0, 12)), ("torch", range(0, 6))])
def test_fuzz_hunt13_fixed_seeds(backend, seeds, tmp_path):
    if backend == "torch":
        pytest.importorskip("torch")
    loader = hp.Loader(tmp_path)
    bad = []
    for seed in seeds:
        c = hp.case(seed, "torch" if backend == "torch" else "np")
        kind, detail = hp.run_case(c, loader.load(c.source), backend)
        if kind in ("mismatch", "internal", "raises-vs-returns"):
            bad.append((seed, kind, detail[:300]))
    assert not bad, bad


def test_fuzz_hunt13_cases_are_deterministic():
    a, b = hp.case(5, "np"), hp.case(5, "np")
    assert a.source == b.source and a.description == b.description
    assert random.Random(5).random() == random.Random(5).random()
