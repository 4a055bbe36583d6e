"""Regressions on the PyTorch backend: values whose float dtype differs between lanes, a
Python bool augmented with a bool tensor, an out_axes of None on a path every example
takes alike. Each against the per-example loop over 0-d tensors / rows (torch.func
semantics)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from vectorize import VectorizeError, vmap  # noqa: E402


def _loop(f, *args):
    return [f(*row) for row in zip(*args)]


# ------------------------------------------ a join of float32 and float64 lanes, then rounded
def min_then_squared(x, y):
    r = torch.exp(x << 2)
    r = min(r, y)           # a float32 tensor on some lanes, the float64 `y` on others
    return r ** 2


def branch_then_scaled(x, y):
    r = x
    if y > 1:
        r = y
    return r * 1.1


def ternary_then_scaled(x, y):
    r = x if y > 1 else y
    return r * 1.1


@pytest.mark.parametrize("f,xdtype", [(min_then_squared, torch.int32),
                                      (branch_then_scaled, torch.float32),
                                      (ternary_then_scaled, torch.float32)])
def test_float32_lanes_of_a_float64_join_refused_where_they_round_on_their_own(f, xdtype):
    """Per example the float32 lanes compute ``r ** 2`` / ``r * 1.1`` in float32; the batch
    held every lane in the float64 join and computed in float64 (other values: fuzz_torch27
    seed 3515). Refused, located at the operation."""
    x = torch.tensor([-2, 1, 2], dtype=xdtype)
    y = torch.tensor([5.0, 1e-9, 0.5], dtype=torch.float64)
    rows = _loop(f, x, y)
    assert {r.dtype for r in rows} == {torch.float32, torch.float64}     # the premise
    with pytest.raises(VectorizeError, match="type differs between lanes"):
        vmap(f)(x, y)


def passed_on(x, y):
    r = x
    if y > 1:
        r = y
    return r


def max_plus_float64(x, y):
    return max(x, y) + y        # float32 + float64 is float64 on every lane


@pytest.mark.parametrize("f", [passed_on, max_plus_float64])
def test_a_float32_float64_join_that_no_lane_rounds_on_its_own_still_computes(f):
    x = torch.tensor([-2.1, 2.3, 1.7], dtype=torch.float32)
    y = torch.tensor([5.1, 1e-9, 0.5], dtype=torch.float64)
    got = vmap(f)(x, y)
    expected = [float(r) for r in _loop(f, x, y)]
    assert got.dtype == torch.float64 and got.tolist() == expected


@pytest.mark.parametrize("name", ["and_or_values", "if_elif_return", "if_compact",
                                  "builtins_minmax"])
def test_corpus_functions_with_float32_and_float64_arguments_are_refused(name):
    """The corpus cases whose mixed float32 / float64 run rounds float32 lanes on their own
    (tests/torch_corpus.py, ``mixed=False``): located refusals (``and_or_values``' lanes are
    in fact never float32 on both operands; the engine does not follow that)."""
    import torch_corpus
    f = getattr(torch_corpus, name)
    x = torch.tensor([-3.0, 0.0, 0.5, 2.0], dtype=torch.float32)
    y = torch.tensor([1.5, -2.0, 0.25, 3.0], dtype=torch.float64)
    with pytest.raises(VectorizeError) as info:
        vmap(f)(x, y)
    assert "torch_corpus.py:" in str(info.value)


# -------------------------------------------------- a Python bool augmented with a bool tensor
def bool_accumulated(a, b):
    flag = bool(a)
    flag += a               # Python bool + bool tensor: a bool tensor (a logical or)
    return ((flag > 0.5) * (flag > 0.5)) + (a if (a == 0) else a)


@pytest.mark.parametrize("backend", ["torch", "numpy"])
def test_python_bool_augmented_with_a_bool_tensor_stays_a_bool_tensor(backend):
    """`flag += a` made ``flag`` a bool tensor (NumPy: a NumPy bool) per example; the pass
    that counts Python bools took it for the Python bool of `bool(a)` and made ``flag >
    0.5`` an int: 2 where the loop gives True (fuzz_torch27 seed 3807)."""
    a = torch.tensor([True, False, True, True])
    b = torch.tensor([1.0, 2.0, 3.0, 4.0])
    if backend == "numpy":
        a, b = a.numpy(), b.numpy()
    rows = _loop(bool_accumulated, a, b)
    got = vmap(bool_accumulated)(a, b)
    assert got.dtype == (torch.bool if backend == "torch" else np.bool_)
    assert got.tolist() == [bool(r) for r in rows] == [True, False, True, True]


# ------------------------------------------- out_axes None on a path every example takes alike
def early_same(x0, x1, w):
    if x0 > 0:
        return {"z": x1, "q": w * 2 + 1}
    t = x1.sum()
    if t > x0:
        return {"z": x1, "q": w * 2 + 1}
    return {"z": -x1, "q": w * 2 + 1}


@pytest.mark.parametrize("backend", ["torch", "numpy"])
def test_out_axes_none_of_a_value_an_unbatched_branch_returns(backend):
    """The `if` on the unmapped ``x0`` returned ``q`` the same for every example; the batch
    broadcast it to (batch, 2) though its out_axes is None (fuzz_hunt13 seed 69: a shape
    (2, 4, 2) where the loop gives (4, 2)). The loop returns the one value."""
    x1 = torch.tensor([[1.0, 2.0], [-3.0, 1.0], [1.0, 1.0]], dtype=torch.float64)
    w = torch.arange(2.0, dtype=torch.float64)
    if backend == "numpy":
        x1, w = x1.numpy(), w.numpy()
    out = vmap(early_same, in_axes=(None, 0, None), out_axes={"z": 0, "q": None},
               backend=backend)(1.0, x1, w)
    assert tuple(out["q"].shape) == (2,)
    np.testing.assert_array_equal(np.asarray(out["q"]), np.asarray(w * 2 + 1))
    assert tuple(out["z"].shape) == (3, 2)


# ------------------------------------------- the file rewriter: ints to a float64 parameter
INT_ITEMS = '''\
import numpy as np

from vectorize import vectorize

INTS = [2, -3]


@vectorize
def f2(x, b):
    if b > 1.0:
        return x
    y = x
    k = 0
    while y > 5.0 and k < 30:
        y = y / 2.0
        k += 1
    return x + x


def best():
    out = 0.0
    for x in INTS:
        out = max(out, f2(x, np.pi))
    return out


def both():
    return [f2(x, 0.5) for x in INTS]
'''


def test_a_torch_file_calling_a_float64_function_with_ints_still_runs(tmp_path):
    """The rewriter specializes an unannotated ``x`` for float64 (docs/cli.md) and keeps
    the loop over int items; the rewritten function got the ints as an int64 tensor and its
    write of the `if`'s lanes into a float64 result raised RuntimeError, where the decorated
    file returned 2 (fuzz_clihunt27 --backend torch seed 110)."""
    import importlib.util

    from vectorize.rewrite import rewrite_text
    original, path = tmp_path / "original29.py", tmp_path / "rewritten29.py"
    original.write_text(INT_ITEMS)
    outcome = rewrite_text(INT_ITEMS, str(path), backend="torch")
    assert not outcome.errors
    path.write_text(outcome.text)

    def load(p):
        spec = importlib.util.spec_from_file_location(p.stem, p)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    before, after = load(original), load(path)
    assert float(after.best()) == float(before.best()) == 2.0
    assert [float(v) for v in after.both()] == [float(v) for v in before.both()] == [4.0, -6.0]


# ------------------------------------- Python's and PyTorch's raises the batch did not write
def shift_by_a_negative_literal(a, b):
    return int(a) << -2


def shift_augmented(a, b):
    r = int(a)
    r <<= -2
    return r


@pytest.mark.parametrize("backend", ["torch", "numpy"])
@pytest.mark.parametrize("f", [shift_by_a_negative_literal, shift_augmented])
def test_python_int_shifted_by_a_negative_count_raises_as_the_loop(f, backend):
    """Python raises ValueError("negative shift count"); the check was only written where
    the analysis could bound the result, and NumPy's examples shift to 0: the batch gave
    zeros."""
    a = torch.tensor([1, -2, 0, 100, 7], dtype=torch.int8)
    if backend == "numpy":
        a = a.numpy()
    with pytest.raises(ValueError, match="negative shift count"):
        f(a[0], a[0])
    with pytest.raises(ValueError, match="negative shift count"):
        vmap(f)(a, a)


def int_tensor_to_python_int(a, b):
    return a ** int(b)


def int_tensor_to_python_int_augmented(a, b):
    r = a
    r **= int(b)
    return r


def int_tensor_to_int_tensor(a, b):
    return a ** b


@pytest.mark.parametrize("f", [int_tensor_to_python_int, int_tensor_to_python_int_augmented])
def test_int_tensor_to_a_negative_python_int_raises_as_the_loop(f):
    """Per example ``tensor(int8) ** -2`` raises RuntimeError; the batch's int64 exponent
    tensor computes (garbage: -9 for 7 ** 7 wrapped, 0 for 100 ** 100)."""
    a = torch.tensor([1, -2, 0, 100, 7], dtype=torch.int8)
    b = torch.tensor([1, -2, 0, 100, 7], dtype=torch.int32)
    with pytest.raises(RuntimeError, match="negative integer powers"):
        _loop(f, a, b)
    with pytest.raises(RuntimeError, match="negative integer powers"):
        vmap(f)(a, b)
    ok = torch.tensor([1, 2, 0, 3, 1], dtype=torch.int32)
    assert vmap(f)(a, ok).tolist() == [int(r) for r in _loop(f, a, ok)]


def test_int_tensor_to_an_int_tensor_still_computes():
    a = torch.tensor([1, -2, 0, 100, 7], dtype=torch.int8)
    b = torch.tensor([1, -2, 0, 100, 7], dtype=torch.int32)
    got = vmap(int_tensor_to_int_tensor)(a, b)
    assert got.dtype == torch.int32
    assert got.tolist() == [int(r) for r in _loop(int_tensor_to_int_tensor, a, b)]
