"""The one-attribute warm calls of `vectorize` and `vmap` (``_warm``: the fast path's whole
warm call, kept only while the options it was made under hold) and the warm checks' guards
read as the maker's own names (`frontend.guard_checks`): each warm call must give what a
fresh object gives (numpy.vectorize for `vectorize`, the per-example loop for `vmap`), after
a set of any option it depends on and after a guarded global changes or goes away."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest
from differential import assert_like_numpy_vectorize, numpy_vectorize_outcome

from vectorize import chunks, vectorize, vmap

sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent.parent))
from benchmarks import workloads  # noqa: E402

SCALE = 2.0


def scaled(t, b):
    if t * b > 5:
        r = t * SCALE
    else:
        r = -t
    return r


def scaled_row(x, w):
    return max(x.dot(w), 0.0) * SCALE


def _warm(vf, *args):
    for _ in range(3):
        vf(*args)


def _close(got, expected):
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def _loop_rows(f, x, w):
    return np.array([f(row, w) for row in x])


@pytest.mark.parametrize("work", workloads.WORKLOADS, ids=lambda w: w.name)
def test_the_workloads_warm_calls_match_the_references(work):
    """Each benchmark workload, called warm (the `_warm` path), against numpy.vectorize (or
    the per-example loop for vmap) on the same arguments."""
    args = work.args(64)
    ours = work.ours()
    _warm(ours, *args)
    if work.api == "vmap":
        assert ours._warm is not None
        batched = [a for a, b in zip(args, work.batched) if b]
        rows = [work.scalar(*[a[i] if b else a for a, b in zip(args, work.batched)])
                for i in range(len(batched[0]))]
        expected = np.array(rows)
        got = ours(*args)
        assert got.dtype == expected.dtype and got.shape == expected.shape
        # (a batch's matrix product sums in another order than each row's dot product)
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    else:
        assert ours._warm is not None
        reference, raised = numpy_vectorize_outcome(work.scalar, *args)
        assert raised is None
        assert_like_numpy_vectorize(ours(*args), reference)


def test_vectorize_options_set_after_a_warm_call_are_heeded():
    x = np.linspace(-3.0, 9.0, 40)
    vf = vectorize(scaled)
    _warm(vf, x, 1.0)
    assert vf._warm is not None
    vf.otypes = ["f"]
    assert vf._warm is None
    got = vf(x, 1.0)
    assert_like_numpy_vectorize(got, np.vectorize(scaled, otypes=["f"])(x, 1.0))
    assert got.dtype == np.float32
    vf.otypes = None
    _warm(vf, x, 1.0)
    assert vf._warm is not None
    vf.backend = "numpy"
    assert vf._warm is None
    assert_like_numpy_vectorize(vf(x, 1.0), np.vectorize(scaled)(x, 1.0))


def test_vectorize_excluded_set_in_place_after_a_warm_call_is_heeded():
    """`excluded` mutated in place (numpy.vectorize reads it on every call): the warm call
    is not taken for a call with an excluded argument."""
    x = np.linspace(-3.0, 9.0, 40)
    vf = vectorize(scaled)
    _warm(vf, x, 1.0)
    vf.excluded.add(1)
    expected = np.vectorize(scaled, excluded={1})(x, 1.0)
    assert_like_numpy_vectorize(vf(x, 1.0), expected)


def test_vectorize_warm_call_sees_a_changed_or_deleted_global():
    x = np.linspace(-3.0, 9.0, 40)
    vf = vectorize(scaled)
    _warm(vf, x, 1.0)
    try:
        globals()["SCALE"] = 3.0
        assert_like_numpy_vectorize(vf(x, 1.0), np.vectorize(scaled)(x, 1.0))
        del globals()["SCALE"]
        with pytest.raises(NameError):
            np.vectorize(scaled)(x, 1.0)
        with pytest.raises(NameError):
            vf(x, 1.0)
    finally:
        globals()["SCALE"] = 2.0
    assert_like_numpy_vectorize(vf(x, 1.0), np.vectorize(scaled)(x, 1.0))


def test_vmap_warm_call_sees_a_changed_or_deleted_global():
    x = np.linspace(-1.0, 1.0, 30).reshape(10, 3)
    w = np.array([1.0, -2.0, 0.5])
    vm = vmap(scaled_row, in_axes=(0, None))
    _warm(vm, x, w)
    assert vm._warm is not None
    try:
        globals()["SCALE"] = 3.0
        _close(vm(x, w), _loop_rows(scaled_row, x, w))
        del globals()["SCALE"]
        with pytest.raises(Exception) as fresh:     # (what a fresh vmap raises)
            vmap(scaled_row, in_axes=(0, None))(x, w)
        with pytest.raises(type(fresh.value)):
            vm(x, w)
    finally:
        globals()["SCALE"] = 2.0
    _close(vm(x, w), _loop_rows(scaled_row, x, w))


def test_vmap_chunk_size_set_after_a_warm_call_runs_chunks(monkeypatch):
    """A warm vmap whose ``chunk_size`` is then set small: the next call runs in chunks
    (`chunks.run`), not the warm call made for ``"auto"``."""
    x = np.linspace(-1.0, 1.0, 3000).reshape(1000, 3)
    w = np.array([1.0, -2.0, 0.5])
    vm = vmap(scaled_row, in_axes=(0, None))
    _warm(vm, x, w)
    assert vm._warm is not None
    ran = []
    real = chunks.run

    def spy(*a, **k):
        ran.append(1)
        return real(*a, **k)
    monkeypatch.setattr(chunks, "run", spy)
    vm.chunk_size = 100
    assert vm._warm is None
    _close(vm(x, w), _loop_rows(scaled_row, x, w))
    assert ran, "the call with chunk_size=100 did not run in chunks"


def test_vmap_warm_call_of_math_function_global():
    """A guard on a module global (`math`) read through the maker's bound ``get``."""
    def f(x):
        return math.sqrt(abs(x)) + 1.0
    vm = vmap(f)
    x = np.linspace(-4.0, 4.0, 9)
    _warm(vm, x)
    np.testing.assert_array_equal(vm(x), np.array([f(float(v)) for v in x]))


# ------------------------------------------ a ufunc of per-example arrays in its operand
import vectorize.passes.temporaries as temporaries  # noqa: E402


def layer(x, w1, b1, w2):
    return w2 @ np.tanh(w1 @ x + b1)


def layer_sum(x, w, b):
    return np.sum(np.exp(w @ x - b) * 2.0)


def layer_assigned(x, w, b):
    h = np.sqrt(w @ x + b)
    return h + 1.0


def int_layer(x, w):
    return np.negative(w @ x) * 2       # ints: np.negative keeps int64 (rewritten)


def int_to_float(x, w):
    return np.tanh(w @ x) @ w           # int64 in, float64 out: left as it is


def _args(func, n, rng, dtype=np.float64):
    if func is layer:
        return (rng.normal(size=(n, 4)).astype(dtype), rng.normal(size=(3, 4)).astype(dtype),
                rng.normal(size=3).astype(dtype), rng.normal(size=(2, 3)).astype(dtype))
    if func in (int_layer, int_to_float):
        return (rng.integers(-5, 5, size=(n, 3)), rng.integers(-5, 5, size=(3, 3)))
    return (rng.normal(size=(n, 4)).astype(dtype), rng.normal(size=(3, 4)).astype(dtype),
            rng.normal(size=3).astype(dtype))


def _axes(func):
    return (0,) + (None,) * (len(_args(func, 1, np.random.default_rng(0))) - 1)


@pytest.mark.parametrize("func, line", [
    (layer, "np.tanh(result, out=result)"),
    (layer, 'result = merge.update(result, "+", b1)'),
    (layer_sum, "np.exp(result, out=result)"),
    (layer_assigned, "np.sqrt(h, out=h)"),
    (int_layer, "np.negative(result, out=result)"),
])
def test_array_ufunc_computed_in_its_operand(func, line):
    args = _args(func, 4, np.random.default_rng(0))
    text = vmap(func, in_axes=_axes(func)).source(*args)
    assert line in text, text


def test_array_ufunc_changing_dtype_left_alone():
    args = _args(int_to_float, 4, np.random.default_rng(0))
    text = vmap(int_to_float, in_axes=_axes(int_to_float)).source(*args)
    assert "out=" not in text, text


@pytest.mark.parametrize("func", [layer, layer_sum, layer_assigned, int_layer, int_to_float])
@pytest.mark.parametrize("n", [0, 1, 7])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_array_ufunc_same_as_simple_form_and_loop(monkeypatch, func, n, dtype):
    rng = np.random.default_rng(n)
    args = _args(func, n, rng, dtype)
    if args[0].dtype.kind == "f" and n:
        args[0][:, 0] = [(math.nan, -0.0, math.inf, 3e38)[k % 4] for k in range(n)]
    before = [a.copy() for a in args]
    with np.errstate(all="ignore"):
        got = vmap(func, in_axes=_axes(func))(*args)
        rows = [func(args[0][i], *args[1:]) for i in range(n)]
        monkeypatch.setattr(temporaries, "transform", lambda tree, ctx: tree)
        simple = vmap(func, in_axes=_axes(func))
        assert "out=" not in simple.source(*args)
        plain = simple(*args)
    assert got.dtype == plain.dtype and got.shape == plain.shape
    assert got.tobytes() == plain.tobytes()         # the same bits as the simple form
    for a, b in zip(args, before):                   # no argument written into
        assert a.tobytes() == b.tobytes()
    if n:
        want = np.array(rows)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-12,
                                   atol=1e-6, equal_nan=True)


# ----------------------------------------------- merge.update: a step in the array it updates
from vectorize.backends.numpy import merge  # noqa: E402

_A64 = np.array([[1.5, -0.0, np.nan], [np.inf, -2.0, 3.0]])


@pytest.mark.parametrize("a, b, in_place", [
    (_A64, np.array([1.0, -0.0, 2.0]), True),               # trailing, broadcast
    (_A64, np.array([[2.0], [-1.0]]), True),                # a 1 per row
    (_A64, _A64 * 3, True),                                 # the same shape
    (_A64, np.array([0.5]), True),
    (_A64, 2.5, True),                                      # Python numbers
    (_A64, 3, True),
    (_A64[:, :1], np.array([1.0, 2.0, 3.0]), False),        # broadcasts past `a`: new array
    (_A64, np.array([1.0, 2.0, 3.0], np.float32), False),   # another dtype
    (_A64.astype(np.float32), np.float64(2.0), False),      # a NumPy float64 promotes
    (_A64.astype(np.float32), 2.0, True),                   # a Python float does not
    (np.array([[1, 2], [3, 4]]), np.array([1, 1]), False),  # ints: the operator's
    (_A64 + 1j, np.array([1.0 + 2j, 0j, -1j]), True),
    (_A64, np.ones((2, 2, 3)), False),                      # more dimensions than `a`
])
@pytest.mark.parametrize("op", ["+", "-", "*", "/"])
def test_update_same_as_the_operator(a, b, in_place, op):
    import operator
    plain = {"+": operator.add, "-": operator.sub, "*": operator.mul,
             "/": operator.truediv}[op]
    with np.errstate(all="ignore"):
        want = plain(a.copy(), b)
        fresh = a.copy()
        got = merge.update(fresh, op, b)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()
    assert (got is fresh) == (in_place and a.dtype.kind in "fc")


def wide_bias(x, w1, b1):
    return np.tanh(w1 @ x + b1)      # per-example (1,) + (3,): a (3,) per example


def test_update_where_the_bias_widens_the_rows():
    """A specialization made on fitting shapes, called where the bias broadcasts past the
    matrix product's rows: the operator's new array, as the per-example loop gives."""
    rng = np.random.default_rng(3)
    vm = vmap(wide_bias, in_axes=(0, None, None))
    x, w1, b1 = rng.normal(size=(5, 4)), rng.normal(size=(3, 4)), rng.normal(size=3)
    _close(vm(x, w1, b1), np.array([wide_bias(r, w1, b1) for r in x]))
    assert "merge.update(" in vm.source(x, w1, b1)
    w1 = rng.normal(size=(1, 4))
    _close(vm(x, w1, b1), np.array([wide_bias(r, w1, b1) for r in x]))
