"""A step of arithmetic on a fresh array (`passes.temporaries`) by a number the same for
every example (unbatched, rank 0: a Python number, a NumPy scalar, a 0-d array) is the plain
augmented assignment (``result += 1.0``): such an operand broadcasts into any array without
growing it. An operand whose shape the specialization does not fix (an unbatched array of
rank >= 1) keeps the run-time check (``merge.update``). Each compared with the per-example
loop (values, dtype, shape) on its own specialization, and after a call with other shapes."""

from __future__ import annotations

import numpy as np
import pytest

from vectorize import vmap


def plus_number(x, w):
    return np.tanh(x @ w.T + 1.0)


def scaled_shift(x, w, s):
    return np.tanh(x @ w.T * s - 2)


def divided(x, w, s):
    return np.exp(x @ w.T / s + s)


def plus_bias(x, w, b):
    return np.tanh(x @ w.T + b)


def _loop(func, x, *shared):
    return np.stack([func(row, *shared) for row in x])


def _same(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=1e-5 if got.dtype.itemsize <= 8 else 1e-12)


_RNG = np.random.default_rng(33)
_X64 = _RNG.normal(size=(6, 3))
_W64 = _RNG.normal(size=(4, 3))


@pytest.mark.parametrize("func, shared, step", [
    (plus_number, (), "result += 1.0"),
    (scaled_shift, (0.5,), "result *= s"),
    (scaled_shift, (3,), "result *= s"),
    (scaled_shift, (np.float64(0.5),), "result *= s"),
    (scaled_shift, (np.array(0.5),), "result *= s"),
    (scaled_shift, (np.array(0.5, np.float32),), "result *= s"),
    (divided, (4.0,), "result /= s"),
])
def test_a_number_for_every_example_is_the_augmented_assignment(func, shared, step):
    vm = vmap(func, in_axes=(0, None) + (None,) * len(shared))
    text = vm.source(_X64, _W64, *shared)
    assert step in text and "merge.update(" not in text, text
    _same(vm(_X64, _W64, *shared), _loop(func, _X64, _W64, *shared))
    # other shapes on the same specialization: a number never grows the array
    x, w = _RNG.normal(size=(2, 5)), _RNG.normal(size=(1, 5))
    _same(vm(x, w, *shared), _loop(func, x, w, *shared))


@pytest.mark.parametrize("dtype, shared", [
    (np.float32, (0.5,)),           # a Python float keeps float32 (NumPy 2)
    (np.float32, (3,)),
    (np.float32, (np.float64(0.5),)),     # float64 steps: not in place, the operator's
    (np.float32, (np.array(0.5),)),
    (np.complex128, (0.5,)),
    (np.float64, (0.5j,)),          # complex steps of a float array
])
def test_dtypes_as_the_loop(dtype, shared):
    x, w = _X64.astype(dtype), _W64.astype(dtype)
    if dtype is np.complex128:
        x = x + 1j * x[::-1]
    vm = vmap(scaled_shift, in_axes=(0, None, None))
    _same(vm(x, w, *shared), _loop(scaled_shift, x, w, *shared))


def test_an_array_operand_keeps_the_run_time_check():
    """The bias's shape is not part of the specialization: a (3,) bias on a (1,) product
    per example grows the row, as the loop does."""
    vm = vmap(plus_bias, in_axes=(0, None, None))
    b = _RNG.normal(size=4)
    text = vm.source(_X64, _W64, b)
    assert 'merge.update(result, "+", b)' in text and "+=" not in text, text
    _same(vm(_X64, _W64, b), _loop(plus_bias, _X64, _W64, b))
    w1, b3 = _RNG.normal(size=(1, 3)), _RNG.normal(size=3)
    _same(vm(_X64, w1, b3), _loop(plus_bias, _X64, w1, b3))


# ------------------------------------------ per-value facts of the analysis, no module state
import dataclasses  # noqa: E402
import threading  # noqa: E402
import types  # noqa: E402

from vectorize import VectorizeError, vectorize  # noqa: E402
from vectorize.abstract import (  # noqa: E402
    FRESH_PER_EXAMPLE,
    NONE_ON_SOME_LANES,
    Value,
    has_fact,
    record_fact,
)

NAN = float("nan")


def none_on_some_examples(x):
    y = None if x > 0 else x
    if y is None:
        return 1.0
    return y


def skip_nan_sentinel(x):
    if x is NAN:
        return 0.0
    return x + 1.0


def test_a_fact_is_of_that_value_only():
    value, other = Value(True, np.float64(1.0)), Value(True, np.float64(1.0))
    record_fact(value, FRESH_PER_EXAMPLE)
    assert has_fact(value, FRESH_PER_EXAMPLE)
    assert not has_fact(value, NONE_ON_SOME_LANES)
    assert not has_fact(other, FRESH_PER_EXAMPLE)
    assert not has_fact(dataclasses.replace(value), FRESH_PER_EXAMPLE)
    assert not has_fact(None, FRESH_PER_EXAMPLE) and not has_fact(1.0, FRESH_PER_EXAMPLE)


def _copy(func):
    """A new function of the same code (no specialization of another thread's to reuse)."""
    return types.FunctionType(func.__code__, func.__globals__, func.__name__)


def test_transforms_in_threads_keep_their_own_facts():
    """Threads transforming at once: each refuses the identity that differs per example and
    computes the one that is false on every example, as numpy.vectorize does."""
    x = np.array([1.0, -2.0, np.nan, 0.0])
    want = np.vectorize(skip_nan_sentinel)(x)
    start, outcomes = threading.Barrier(4), []

    def work(k):
        start.wait()
        for _ in range(3):
            func = _copy(none_on_some_examples if k % 2 else skip_nan_sentinel)
            try:
                got = vectorize(func, fallback="error")(x)
            except VectorizeError as exc:
                outcomes.append((k, "refused" if "None on some examples" in str(exc)
                                 else str(exc)))
            else:
                outcomes.append((k, "same" if got.dtype == want.dtype and np.array_equal(
                    got, want, equal_nan=True) else repr(got)))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == sorted((k, "refused" if k % 2 else "same")
                                      for k in range(4) for _ in range(3))
