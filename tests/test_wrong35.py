"""wrong35: the fuzzers' crashes and refusals where the reference returns.

A merge whose condition is the same for every example (`if math.isclose(0.0, k) and x:`
with a shared ``k``): Python's ``and``/``or`` with a shared left side gives that Python
value where it stops, which ``torch.where`` refused (TypeError, or a warned fallback). Each
program runs on every backend through ``vmap`` against the per-example loop and through
``vectorize(fallback="error")`` against ``numpy.vectorize``, with warnings as errors (a
fallback is a failure here).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from vectorize import VectorizeError, vectorize, vmap

BACKENDS = ["numpy", "torch", "jax"]
X = np.array([0.0, 1.0, 2.0, -1.0, 0.5])
SHARED = [0, 1, 0.5, 2, 0.0]


def and_isclose_if(x, k):
    r = 1.0
    if math.isclose(0.0, k) and x:
        r = 2.0
    return r


def and_floor_plus(x, k):
    return (math.floor(k) and x) + 1.5


def or_isclose_choice(x, k):
    return 3.0 if (math.isclose(1.0, k) or x > 1.5) else -1.0


def not_and(x, k):
    if not (math.isclose(0.0, k) and x):
        return x * 2.0
    return x


def choice_of_unknown(x, k):
    t = x if math.isclose(0.0, k) else math.isclose(1.0, k)
    return 1.0 if t else 0.0


def and_in_while(x, k):
    i = 0
    while (math.isclose(0.0, k) or x > i) and i < 4:
        i += 1
    return i


def and_abs(x, k):
    s = abs(k) - 1 and x
    return s * 2.0


def or_shared_float(x, k):
    return (k * 0.5 or x) + 1.0


def _is_zero(k):
    return math.isclose(k, 0.0)


def helper_left(x, k):
    return (_is_zero(k) and x > 1.0) or x < 0.5


PROGRAMS = [and_isclose_if, and_floor_plus, or_isclose_choice, not_and, choice_of_unknown,
            and_in_while, and_abs, or_shared_float, helper_left]


def _numpy(value):
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    return np.asarray(value)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("func", PROGRAMS, ids=lambda f: f.__name__)
def test_shared_left_side_of_and_or(func, backend):
    pytest.importorskip({"numpy": "numpy", "torch": "torch", "jax": "jax"}[backend])
    for k in SHARED:
        want = np.stack([np.asarray(func(v, k)) for v in X])
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            got = _numpy(vmap(func, in_axes=(0, None), backend=backend)(X, k))
            np.testing.assert_array_equal(got, want, err_msg=f"vmap k={k!r}")
            got = _numpy(vectorize(func, backend=backend, fallback="error")(X, k))
        reference = np.vectorize(func)(X, k)
        np.testing.assert_array_equal(got, reference, err_msg=f"vectorize k={k!r}")
        assert got.dtype == reference.dtype, (k, got.dtype, reference.dtype)


# ---------------------------------------------------------------- vmap over an empty batch
def negated_bool_in_a_branch(v, x):
    y = np.zeros(len(v), dtype=bool)
    for i in range(len(y)):
        if y[i] != 0:
            y[i] = x if x > 1.0 else -y[i]
    return y


def negated_bool_arm(v, x):
    y = np.roll(v, -1)
    if not x > 0:
        y[np.argmax(v)] = max(len(v), -x)
    return y


def _inverse(a):
    if a == 0.0:
        raise ZeroDivisionError("zero")
    return 1.0 / a


def shared_raise_in_a_helper(x, w):
    d = _inverse(w[0])
    if x > 5.0:
        raise ValueError("bad example")
    return x * d


def raises_after_a_check(v, x):
    if x > -10.0:
        raise ValueError("bad example")
    return x + 3 // 0


@pytest.mark.parametrize("func, v_dtype, x_dtype", [
    (negated_bool_in_a_branch, np.int32, np.float64),
    (negated_bool_arm, np.float64, np.bool_),
], ids=["bool_negation_not_reached", "bool_negation_in_arm"])
def test_empty_batch_does_not_raise_what_no_example_reaches(func, v_dtype, x_dtype):
    # per example `-y[i]` of a NumPy bool raises TypeError, but only where a lane gets there:
    # over no example the loop returns (the empty result of the example's type and shape)
    v, x = np.ones((3, 4), v_dtype), np.ones(3, x_dtype)
    want = np.stack([func(v[i], x[i]) for i in range(1)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # (N > 0: the batch raises, the loop decides)
        np.testing.assert_array_equal(vmap(func)(v[:1], x[:1]), want)
    got = vmap(func)(v[:0], x[:0])
    assert got.shape == (0,) + want.shape[1:] and got.dtype == want.dtype, (got.shape,
                                                                            got.dtype)


def test_empty_batch_raises_what_every_example_raises():
    # a helper the function calls on a shared value raises for every example (where the
    # function's per-example check comes after it: the module's other functions are no
    # statements run before the helper's)
    x, w = np.array([0.0, 1.0, 2.0]), np.array([0.0])
    with pytest.raises(ZeroDivisionError):
        shared_raise_in_a_helper(x[0], w)
    with pytest.raises(ZeroDivisionError):
        vmap(shared_raise_in_a_helper, in_axes=(0, None))(x[:0], w)
    np.testing.assert_array_equal(
        vmap(shared_raise_in_a_helper, in_axes=(0, None))(x[:0], w + 2.0), np.zeros(0))


def test_empty_batch_of_a_function_no_example_returns_from():
    # every example raises (the check, else `3 // 0`): no example returns, so no result type
    # is known over no example: a located refusal (docs/semantics.md: empty batches), not
    # None in place of the arrays
    v, x = np.ones((3, 2)), np.array([0.0, 1.0, 2.0])
    for i in range(3):
        with pytest.raises(ValueError):
            raises_after_a_check(v[i], x[i])
    with pytest.raises(VectorizeError, match="empty batch") as info:
        vmap(raises_after_a_check)(v[:0], x[:0])
    assert "test_wrong35.py" in str(info.value)


# ------------------------------------------- a helper that raises on every path, on constants
def _log_pair(a):
    return 2.0, math.log(a - a)


def unpacks_a_raising_helper(x, k):
    s, t = _log_pair(k)
    return x + s + t


def item_of_a_raising_helper(x, k):
    s = _log_pair(k)[1] * False
    return x + s


@pytest.mark.parametrize("func", [unpacks_a_raising_helper, item_of_a_raising_helper],
                         ids=lambda f: f.__name__)
def test_helper_raising_on_every_path_raises_for_every_example(func):
    # (was refused: the helper's value, which no example gets, could not be unpacked or
    # indexed)
    x = np.array([0.5, 1.0, 2.0])
    with pytest.raises(ValueError):
        np.vectorize(func)(x, 3)
    with pytest.raises(ValueError, match="math domain error"):
        vectorize(func, fallback="error")(x, 3)
    with pytest.raises(ValueError, match="math domain error"):
        vmap(func, in_axes=(0, None))(x, 3)


# ------------------------------------- helpers called on several kinds, under torch and JAX
# (the per-call kind refinement of a helper's result is NumPy's; on torch and JAX the
# helper's result is the join: these show the join gives each call the dtype its loop does)
def _plus_one(a):
    return a + 1


def _square(a):
    return a * a


def _add(a, b):
    return a + b


def _floor1(a):
    return a // 1


def _half(a):
    return a / 2


def _larger(a, b):
    return a if a > b else b


def _factorial(m):
    if m <= 1:
        return 1
    return m * _factorial(m - 1)


def kinds_plus_one(x, n):
    return _plus_one(n) // 2, _plus_one(x), _plus_one(x > 1.0)


def kinds_square(x, n):
    return _square(x > 1.0), _square(n), _square(x)


def kinds_add(x, n):
    return _add(x > 1.0, x > 2.0), _add(n, x > 1.0), _add(x, n)


def kinds_floor(x, n):
    return _floor1(n), _floor1(x), _floor1(x > 1.0)


def kinds_half(x, n):
    return _half(n), _half(x)


def kinds_larger(x, n):
    return _larger(n, 2), _larger(x, 0.5)


def recursion_in_a_loop(x, n):
    s = 0
    for _ in range(3):
        s = s + _factorial(n % 5)
    return s, x


KIND_PROGRAMS = [kinds_plus_one, kinds_square, kinds_add, kinds_floor, kinds_half,
                 kinds_larger, recursion_in_a_loop]


def _stacked_loop(func, xs, ns, stack, as_array):
    lanes = [func(xs[i], ns[i]) for i in range(len(xs))]
    return tuple(np.asarray(stack([as_array(v) for v in column]))
                 for column in zip(*lanes))


@pytest.mark.parametrize("backend", ["torch", "jax"])
@pytest.mark.parametrize("func", KIND_PROGRAMS, ids=lambda f: f.__name__)
def test_helper_results_per_call_kind(func, backend):
    x, n = np.array([0.5, 1.5, 2.0, 3.0]), np.array([1, 2, 3, 4])
    if backend == "torch":
        torch = pytest.importorskip("torch")
        xs, ns = torch.tensor(x), torch.tensor(n)
        want = _stacked_loop(func, xs, ns, torch.stack, torch.as_tensor)
    else:
        pytest.importorskip("jax")
        import jax
        import jax.numpy as jnp
        if func is recursion_in_a_loop:
            # (recursion is refused on JAX, located: no replay there to unroll it for)
            with pytest.raises(Exception, match="calls itself"):
                vmap(func, backend="jax")(x, n)
            return
        with jax.enable_x64(True):
            xs, ns = jnp.asarray(x), jnp.asarray(n)
            want = _stacked_loop(func, xs, ns, jnp.stack, jnp.asarray)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = vmap(func, backend=backend)(xs, ns)
    for ours, reference in zip(got, want):
        ours = _numpy(ours)
        np.testing.assert_array_equal(ours, reference)
        assert ours.dtype == reference.dtype, (ours.dtype, reference.dtype)


def bool_minus_true(x, y):
    s = 0.0
    r = x
    r -= True
    return s, r


def test_torch_empty_batch_library_exception_is_no_examples():
    # on NumPy arguments the per-example code computes `np.float64 - True` (a float), where
    # PyTorch's batch raises its own RuntimeError for a bool operand (N > 0: the warned
    # per-example loop): over no example none raises that. The empty result of the
    # example's types, or a located refusal where the engine cannot tell them (the analysis
    # computes on tensors, where the subtraction raises); never PyTorch's RuntimeError
    pytest.importorskip("torch")
    from vectorize import VectorizeError
    x = np.array([0.5, 1.5])
    try:
        got = vmap(bool_minus_true, backend="torch")(x[:0], x[:0])
    except VectorizeError as refusal:
        assert "empty batch" in str(refusal)
        return
    for ours, first in zip(got, bool_minus_true(x[0], x[0])):
        ours = _numpy(ours)
        assert ours.shape == (0,) and ours.dtype == np.asarray(first).dtype, ours
