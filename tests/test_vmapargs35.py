"""vmap's argument patterns against the peers themselves (`benchmarks/fuzz_vmapargs35.py`):
the regressions its runs found, and a fixed-seed run of it.

- torch: a vmapped function called inside a mapped function with a dict argument that mixes
  per-example and shared leaves (the analysis ran the vmapped call on the dict's NumPy
  examples instead of tensors: a refusal, "'numpy.ndarray' object has no attribute
  'select'", where torch.func.vmap computes);
- jax: an int array times a Python float, then a float32 operand (``a * 2.0 + b``): NumPy's
  product is a strongly typed float64 and the sum float64; JAX's product is a *weak* float64
  that the float32 operand pulled down to float32: the result was float32 (neither NumPy's
  dtype nor precision).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from vectorize import vmap

ROOT = Path(__file__).resolve().parents[1]


def _fuzzer():
    spec = importlib.util.spec_from_file_location(
        "fuzz_vmapargs35", ROOT / "benchmarks" / "fuzz_vmapargs35.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("fuzz_vmapargs35", module)
    spec.loader.exec_module(module)
    return module


# ------------------------------------------------------------------ torch: dict examples

def dict_body(p0, p1, p2):
    return (p2["b"] * 3 + p1).sum() + p0.sum()


inner_dict = vmap(dict_body, in_axes=[0, 0, {"w": None, "b": 1}], out_axes=-1)


def calls_inner_dict(p0, p1, p2):
    return inner_dict(p0, p1, p2)


def test_torch_vmapped_call_inside_with_a_mixed_dict_argument():
    torch = pytest.importorskip("torch")
    from torch.func import vmap as tvmap
    gen = torch.Generator().manual_seed(0)
    p0 = torch.randn(5, 2, 3, generator=gen)
    p1 = torch.randn(5, 2, 3, generator=gen)
    p2 = {"w": torch.randn(5, 3, generator=gen), "b": torch.randn(5, 3, 2, 3, generator=gen)}
    got = vmap(calls_inner_dict)(p0, p1, p2)
    inner = tvmap(dict_body, in_dims=(0, 0, {"w": None, "b": 1}), out_dims=-1)
    expected = tvmap(lambda a, b, c: inner(a, b, c))(p0, p1, p2)
    assert isinstance(got, torch.Tensor)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    torch.testing.assert_close(got, expected)


def test_torch_examples_of_a_dict_are_tensors():
    pytest.importorskip("torch")
    from vectorize.backends.torch import examples
    out = examples.to_tensor({"a": np.ones(2), "b": (np.float32(1.0), 3)})
    assert type(out["a"]).__name__ == "Tensor" and type(out["b"][0]).__name__ == "Tensor"
    assert out["b"][1] == 3


# ------------------------------------------------------------------ jax: weak products

def int_times_float_plus(a, b):
    return a * 2.0 + b


def shift_then_scale(a, b):
    return (a + 1) * b


@pytest.mark.parametrize("f, a_dtype, b_dtype", [
    (int_times_float_plus, np.int64, np.float32),
    (int_times_float_plus, np.int32, np.float32),
    (int_times_float_plus, np.int8, np.float16),
    (shift_then_scale, np.bool_, np.int8),
])
def test_jax_python_number_deciding_the_kind_is_strongly_typed(f, a_dtype, b_dtype):
    pytest.importorskip("jax")
    import jax.numpy as jnp
    rng = np.random.default_rng(0)
    a = (rng.integers(-4, 5, size=(5, 3)) if a_dtype is not np.bool_ else
         rng.random((5, 3)) < 0.5).astype(a_dtype)
    b = rng.normal(size=5).astype(b_dtype) if np.dtype(b_dtype).kind == "f" else \
        rng.integers(-3, 4, size=5).astype(b_dtype)
    expected = np.stack([f(a[n], b[n]) for n in range(5)])
    for got in (vmap(f)(jnp.asarray(a), jnp.asarray(b)), vmap(f, backend="jax")(a, b)):
        got = np.asarray(got)
        assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
        np.testing.assert_array_equal(got, expected)


def test_jax_float_array_times_python_float_stays_float32():
    # (the Python float does not decide the kind here: NumPy's and JAX's are float32)
    pytest.importorskip("jax")
    import jax.numpy as jnp
    a = np.linspace(-1, 1, 15, dtype=np.float32).reshape(5, 3)
    got = vmap(int_times_float_plus)(jnp.asarray(a), jnp.asarray(a[:, 0]))
    assert got.dtype == np.float32


# ------------------------------------------------------------------ the fuzzer, fixed seeds

SEEDS = (0, 1, 2, 4, 5, 9, 17, 19, 33, 47, 64, 133, 154, 185, 247, 1029, 1070, 1127)


def test_fuzzer_fixed_seeds():
    pytest.importorskip("torch")
    pytest.importorskip("jax")
    import warnings

    import jax
    fuzz = _fuzzer()
    writer = fuzz.Writer()
    bad = []
    x64 = jax.config.jax_enable_x64      # (the fuzzer turns it on for JAX's references)
    try:
        for seed in SEEDS:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                kind, detail, _ = fuzz.run_case(seed, writer)
            if kind in ("mismatch", "crash", "error-mismatch"):
                bad.append(f"seed {seed}: {kind}\n{detail}")
    finally:
        jax.config.update("jax_enable_x64", x64)
    assert not bad, "\n".join(bad)


# ------------------------------------------------------------------ nested, a level of size 0

def pair(x, c):
    return x * 2.0, c + 1.0


@pytest.mark.parametrize("shape", [(0, 2, 3), (2, 0, 3)])
def test_nested_out_axes_none_with_an_empty_level_is_refused_honestly(shape):
    # JAX computes it (tracing tells it the output does not depend on the mapped
    # arguments); the flat call of a nested vmap has no example to take it from: a located
    # refusal that says so, not the claim that the output differs along the axis
    from vectorize import VectorizeError
    x, c = np.ones(shape), np.ones(3)
    inner = vmap(pair, in_axes=(0, None), out_axes=(0, None))
    with pytest.raises(VectorizeError, match="no examples") as info:
        vmap(inner, in_axes=(0, None), out_axes=(0, None))(x, c)
    assert "test_vmapargs35.py" in info.value.filename and info.value.suggestion
    # one example at each level: computed, the same as the loop's
    x = np.arange(6.0).reshape(1, 2, 3) if shape[0] == 0 else np.arange(6.0).reshape(2, 1, 3)
    doubled, shifted = vmap(inner, in_axes=(0, None), out_axes=(0, None))(x, c)
    np.testing.assert_array_equal(doubled, x * 2.0)
    np.testing.assert_array_equal(shifted, c + 1.0)


# ------------------------------------------------------------------ a dict into a vmapped call

def dict_pair(p0, p1):
    w = p0["w"]
    b = p0["b"]
    return w * 3, b * 2.0


inner_pair = vmap(dict_pair, in_axes=(None, 1), out_axes=(0, -3))


def calls_inner_pair(p0, p1):
    return inner_pair(p0, p1)


def test_vmapped_call_inside_with_a_dict_argument_returning_a_tuple():
    # was refused: the analysis' check that the call does not raise ran the vmapped
    # function on the dict's examples as a tuple ("tuple indices must be integers")
    rng = np.random.default_rng(1)
    p0 = {"w": rng.random((2, 3, 5)) < 0.5, "b": rng.integers(-3, 4, size=(2, 3, 5))}
    p1 = rng.integers(-3, 4, size=(3, 2, 5)).astype(np.int32)
    got = vmap(calls_inner_pair, in_axes=(-1, 2))(p0, p1)
    rows = []
    for n in range(5):
        q0 = {k: v[..., n] for k, v in p0.items()}
        q1 = p1[..., n]
        inner = [dict_pair(q0, q1[:, i]) for i in range(2)]
        rows.append((np.stack([r[0] for r in inner]),
                     np.moveaxis(np.stack([r[1] for r in inner]), 0, -3)))
    expected = (np.stack([r[0] for r in rows]), np.stack([r[1] for r in rows]))
    for g, e in zip(got, expected):
        assert g.shape == e.shape and g.dtype == e.dtype, (g.shape, e.shape, g.dtype, e.dtype)
        np.testing.assert_array_equal(g, e)
