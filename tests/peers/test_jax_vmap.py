"""JAX's own vmap tests, adapted: ``tests/batching_test.py`` (BatchingTest) and the vmap tests
of ``tests/api_test.py`` (APITest), with ``jnp`` -> ``np`` and ``lax`` operations written as
the NumPy code they stand for. Each case names the peer test it adapts; every result is
compared with the per-example loop (`vmap_reference.loop_vmap`), at every nesting level, and
every error with the exception type JAX raises. Not adapted: tests of JAX machinery we do
not have (jit, grad, pmap, collectives, PRNG keys, jaxprs, weak types); the cases that
compute a gradient use the gradient written out by hand.

Each case ends one of four ways (`classify`): pass; refused (a located `VectorizeError`
where JAX computes a result); wrong (a different result, or a result where JAX raises, or
another exception type); crash (any other exception). ``python tests/peers/test_jax_vmap.py``
prints the counts. A case refused for want of a NumPy operator rule (another part of the
project adds them) is a strict xfail that must raise `VectorizeError`, never a wrong answer.

Beyond JAX: the data-dependent control flow JAX refuses under vmap (``if`` on a mapped
value, ``while`` with a mapped condition, ``break``), which must pass here.
"""

from __future__ import annotations

import collections
import functools
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from vmap_reference import assert_same_tree, loop_vmap  # noqa: E402

from vectorize import VectorizeError, vmap  # noqa: E402

R = np.random.default_rng(1234)
CASES: dict = {}
OPERATOR_SURFACE: dict = {}   # case id -> the operator whose rule is missing


def case(peer: str, operator: str | None = None):
    """Register a case adapting the peer test ``peer`` (``BatchingTest.testX`` /
    ``APITest.test_x``, with a suffix for a sub-case)."""
    def register(fn):
        CASES[peer] = fn
        if operator is not None:
            OPERATOR_SURFACE[peer] = operator
        return fn
    return register


def same(f, in_axes, out_axes, *args, **kwargs):
    """``vmap(f)`` equals the per-example loop (dtype kinds, as JAX's check_dtypes=False)."""
    got = vmap(f, in_axes, out_axes)(*args, **kwargs)
    assert_same_tree(got, loop_vmap(f, in_axes, out_axes)(*args, **kwargs), rtol=1e-10,
                     exact_dtype=False)
    return got


def raises(types, fn, match=None):
    """JAX raises ``types`` here: so must we (accepting it, or another type, is wrong)."""
    try:
        fn()
    except types as exc:
        if match is not None:
            import re
            assert re.search(match, str(exc)), f"message {str(exc)!r} lacks {match!r}"
        return
    except Exception as exc:      # noqa: BLE001 -- classified: another type is wrong
        raise AssertionError(f"raised {type(exc).__name__}, JAX raises {types}: {exc}") from exc
    raise AssertionError(f"accepted where JAX raises {types}")


# ============================================================================ BatchingTest


@case("BatchingTest.testConstantFunction")
def _():
    same(lambda x: 3, 0, 0, np.ones(4))


def vdot(a, b):
    return np.vdot(a, b)


@case("BatchingTest.testNestedBatchingMatMat")
def _():
    matvec = vmap(np.vdot, in_axes=(0, None))
    matmat = vmap(matvec, in_axes=(None, 1), out_axes=1)
    a, b = R.normal(size=(4, 3)), R.normal(size=(3, 2))
    got = matmat(a, b)
    assert_same_tree(got, loop_vmap(loop_vmap(np.vdot, (0, None)), (None, 1), 1)(a, b))
    np.testing.assert_allclose(got, a @ b)


def predict_grad(params, inputs, targets):
    """The gradient of testPerExampleGradients' loss by hand (two layers of tanh)."""
    (w1, b1), (w2, b2) = params
    h_pre = w1 @ inputs + b1
    h = np.tanh(h_pre)
    out = w2 @ h + b2
    d_out = 2.0 * (out - targets)
    dw2 = np.outer(d_out, h)
    db2 = d_out
    d_h = (w2.T @ d_out) * (1.0 - h ** 2)
    dw1 = np.outer(d_h, inputs)
    return (dw1, d_h), (dw2, db2)


@case("BatchingTest.testPerExampleGradients")
def _():
    sizes = [3, 2, 4]
    params = [(R.normal(size=(m, n)), R.normal(size=m)) for m, n in zip(sizes[1:], sizes[:-1])]
    batch = (R.normal(size=(5, 3)), R.normal(size=(5, 4)))
    f = functools.partial(lambda p, data: predict_grad(p, *data), params)
    got = same(f, 0, 0, batch)
    for (dw, db), (w, b) in zip(got, params):
        assert dw.shape == (5,) + w.shape and db.shape == (5,) + b.shape


@case("BatchingTest.testSliceLax")
def _():
    same(lambda x: x[2:4], 0, 0, R.normal(size=(5, 10)))


@case("BatchingTest.testSliceNumpy")
def _():
    same(lambda x: x[:, 2], 0, 0, R.normal(size=(10, 5, 3, 7)))


@case("BatchingTest.testRevLax")
def _():
    x = R.normal(size=(2, 3))
    same(lambda x: x[::-1], 0, 0, x)
    same(lambda x: x[::-1], (1,), 1, x)


@case("BatchingTest.testRevLax[np.flip]")
def _():
    x = R.normal(size=(2, 3))
    same(lambda x: np.flip(x, 0), 0, 0, x)
    same(lambda x: np.flip(x, 0), (1,), 1, x)


@case("BatchingTest.testRevNumpy")
def _():
    x = R.normal(size=(3, 2, 4))
    same(lambda x: x[:, ::-1], 0, 0, x)
    same(lambda x: x[:, ::-1], (1,), 1, x)
    same(lambda x: x[:, ::-1], (2,), 2, x)


@case("BatchingTest.testNpMaximum")
def _():
    same(lambda x: np.maximum(x, 0.0), 0, 0, R.normal(size=(10, 5, 3, 7)))


@case("BatchingTest.testNpGtrThan")
def _():
    same(lambda x: x > 1.0, 0, 0, R.normal(size=(10, 5, 3, 7)))


@case("BatchingTest.testNpMaximumPerExampleGrad")
def _():
    x, w = R.normal(size=(10, 5)), R.normal(size=(5, 5))

    def grad_w(w, x):      # d/dW sum(maximum(x @ W, 0) ** 2), by hand
        return 2.0 * np.outer(x, np.maximum(np.dot(x, w), 0.0))
    got = same(functools.partial(grad_w, w), 0, 0, x)
    for i in range(10):
        np.testing.assert_allclose(got[i], 2.0 * np.outer(x[i], np.maximum(x[i] @ w, 0.0)))


def dot_general_batch(x, y):
    """lax.dot_general(x, y, [((2,), (1,)), ((0,), (0,))])."""
    return np.einsum("bij,bjk->bik", x, y)


def dot_general_vec(x, y):
    """lax.dot_general(x, y, [((0,), (0,)), ((), ())])."""
    return np.einsum("i,ij->j", x, y)


@case("BatchingTest.testDotGeneral")
def _():
    same(dot_general_batch, 0, 0, R.normal(size=(10, 3, 4, 5)), R.normal(size=(10, 3, 5, 6)))
    same(dot_general_batch, (2, 1), 0, R.normal(size=(3, 4, 10, 5)),
         R.normal(size=(3, 10, 5, 6)))
    same(dot_general_batch, (3, None), 0, R.normal(size=(3, 4, 5, 10)), R.normal(size=(3, 5, 6)))
    same(dot_general_batch, (None, 2), 0, R.normal(size=(3, 4, 5)), R.normal(size=(3, 5, 10, 6)))
    same(lambda x, y: np.einsum("i,i->", x, y), (None, 1), 0, R.normal(size=4),
         R.normal(size=(4, 10)))


@case("BatchingTest.testDotGeneral[2-d contraction]")
def _():
    same(dot_general_vec, (None, 2), 0, R.normal(size=4), R.normal(size=(4, 3, 10)))


def vecvec(a, b):
    dot, ref = np.dot, np.dot
    for ndim in range(1, max(a.ndim, b.ndim)):
        a_ax = 0 if a.ndim > ndim else None
        b_ax = 0 if b.ndim > ndim else None
        dot = vmap(dot, in_axes=(a_ax, b_ax))
        ref = loop_vmap(ref, in_axes=(a_ax, b_ax))
    return dot(a, b), ref(a, b)


@case("BatchingTest.testDot")
def _():
    for a_shape, b_shape, shape in (((3,), (3,), ()), ((2, 3), (3,), (2,)),
                                    ((4, 2, 3), (3,), (4, 2))):
        a, b = R.normal(size=a_shape), R.normal(size=b_shape)
        if a_shape == (3,):
            continue      # no vmap at all: np.dot itself
        got, expected = vecvec(a, b)
        assert np.shape(got) == shape
        assert_same_tree(got, expected, rtol=1e-10)


@case("BatchingTest.testDot2")
def _():
    xs, ys = R.normal(size=(10, 3)), R.normal(size=(10, 3))
    got = same(np.dot, 0, 0, xs, ys)
    np.testing.assert_allclose(got, np.einsum("ni,ni->n", xs, ys))


@case("BatchingTest.testDot3")
def _():
    same(np.dot, (1, None), 0, R.normal(size=(5, 8, 10)), R.normal(size=(10, 1)))


@case("BatchingTest.testDot4")
def _():
    same(np.dot, (1, None), 0, R.normal(size=(3, 2)), R.normal(size=3))


@case("BatchingTest.testPad")
def _():
    same(lambda x: np.pad(x, (1, 2)), 0, 0, R.normal(size=(5, 10)).astype(np.float32))
    same(lambda x: np.pad(x, [(1, 2), (0, 1)]), 0, 0,
         R.normal(size=(5, 10, 3)).astype(np.float32))


def concatenate0(*args):
    return np.concatenate(args, axis=0)


def concatenate1(*args):
    return np.concatenate(args, axis=1)


@case("BatchingTest.testConcatenate")
def _():
    f32 = np.float32
    same(concatenate0, (0, 1, None), 0, R.normal(size=(10, 2, 3)).astype(f32),
         R.normal(size=(1, 10, 3)).astype(f32), R.normal(size=(4, 3)).astype(f32))
    same(concatenate1, (0, None, 2), 0, R.normal(size=(10, 2, 1)).astype(f32),
         R.normal(size=(2, 3)).astype(f32), R.normal(size=(2, 4, 10)).astype(f32))


@case("BatchingTest.testConcatenate[all mapped]")
def _():
    same(concatenate0, (0, 1), 0, R.normal(size=(10, 2, 3)), R.normal(size=(1, 10, 3)))


@case("BatchingTest.testAny")
def _():
    got = same(np.any, 0, 0, np.array([[True, False], [False, False]]))
    assert_same_tree(got, np.array([True, False]))


@case("BatchingTest.testDynamicSlice")
def _():
    x = np.arange(30).reshape((10, 3))
    same(lambda x, i: x[i], (0, None), 0, x, 1)
    idx = np.array([0, 1, 2, 1, 0] * 2)
    same(lambda x, i: x[i], (0, 0), 0, x, idx)
    same(lambda x, i: x[i], (None, 0), 0, np.arange(3), idx)


def update_index(x, y, i):
    """lax.dynamic_update_index_in_dim(x, y, i, axis=0)."""
    x = x.copy()
    x[i] = y
    return x


@case("BatchingTest.testDynamicUpdateSlice")
def _():
    same(update_index, (0, 0, None), 0, R.normal(size=(10, 3)), R.normal(size=10), 1)


@case("BatchingTest.testDynamicUpdateSlice[per-example index]")
def _():
    idx = np.array([0, 1, 2, 1, 0] * 2)
    same(update_index, (None, 0, 0), 0, R.normal(size=3), R.normal(size=10), idx)


@case("BatchingTest.testSort")
def _():
    v = np.arange(12)[::-1].reshape(3, 4)
    same(lambda v: np.sort(v, axis=0), (0,), 0, v)
    same(lambda v: np.sort(v, axis=-1), (0,), 0, v)
    same(lambda v: np.sort(v, axis=0), (1,), 0, v)
    same(lambda v: np.sort(v, axis=0), (1,), 1, v)


def sort_key_val(k, v):
    order = np.argsort(k, axis=0)
    return np.take_along_axis(k, order, axis=0), np.take_along_axis(v, order, axis=0)


@case("BatchingTest.testSortKeyVal")
def _():
    k = np.arange(12)[::-1].reshape(3, 4)
    v = R.permutation(12).reshape(3, 4)
    same(sort_key_val, (0, 0), 0, k, v)
    same(sort_key_val, (1, 1), 1, k, v)
    same(sort_key_val, (0, 1), 0, k, v.T)
    same(sort_key_val, (None, 0), 0, k[0], v)


@case("BatchingTest.testCumProd")
def _():
    same(lambda x: np.cumprod(x, axis=-1), 0, 0, np.arange(9).reshape(3, 3) + 1)


def select(pred, on_true, on_false):
    return np.where(pred, on_true, on_false)


@case("BatchingTest.testSelect")
def _():
    same(select, 0, 0, np.array([True, False]), np.array([0, 1]), np.array([2, 3]))
    same(select, (0, None, None), 0, np.array([False, True]), np.array([0, 1]),
         np.array([2, 3]))
    same(select, (None, 0, None), 0, True, np.array([0, 1], np.float32),
         np.array(3, np.float32))
    same(select, (0, 0, None), 0, np.array([False, True]), np.array([0, 1], np.float32),
         np.array(3, np.float32))
    same(select, (0, None, 1), 1, np.array([False, True]), np.array([2], np.float32),
         np.array([[3, 4]], np.float32))


@case("BatchingTest.testLaxLinalgCholesky")
def _():
    a = R.normal(size=(10, 5, 5))
    a = a @ np.swapaxes(a, -1, -2)
    same(np.linalg.cholesky, 0, 0, a)
    same(np.linalg.cholesky, 1, 0, np.swapaxes(a, 0, 1))


@case("BatchingTest.testLaxLinalgTriangularSolve")
def _():
    a = R.normal(size=(4, 10, 4)) + np.eye(4)[:, None, :]
    b = R.normal(size=(4, 5, 10))
    same(np.linalg.solve, (1, 2), 0, a, b)
    same(np.linalg.solve, (None, 2), 0, a[:, 0], b)
    same(np.linalg.solve, (1, None), 0, a, b[..., 0])


@case("BatchingTest.testGatherBatchedOperand")
def _():
    idx = np.array([[0, 1], [2, 0]])
    same(lambda x: x[idx], 0, 0, R.normal(size=(4, 5)))
    same(lambda x: x[:, 1:3], 1, 0, R.normal(size=(5, 4, 6)))


@case("BatchingTest.testGatherBatchedIndices")
def _():
    x = R.normal(size=(5,))
    same(lambda i: x[i], 0, 0, np.array([0, 3, 4, 1]))


@case("BatchingTest.testGatherBatchedIndices[index arrays]")
def _():
    x = R.normal(size=(5, 3))
    same(lambda i: x[i], 0, 0, np.array([[0, 1], [3, 4], [2, 2]]))


@case("BatchingTest.testGatherBatchedBoth")
def _():
    same(lambda x, i: x[i, 1], (1, 0), 0, R.normal(size=(5, 4, 3)), np.array([0, 4, 2, 1]))


@case("BatchingTest.testNumpyIndexing1")
def _():
    a = np.arange(2 * 3 * 4).reshape((2, 3, 4))
    same(lambda a, ind: a[:, ind], (None, 0), 0, a, np.array([[0, 1], [2, 0]]))
    # (and after two slices, of a per-example index of rank 0, and a batch of none)
    same(lambda a, ind: a[1:, :, ind], (None, 0), 0, a, np.array([[0, 3], [2, 0], [1, 1]]))
    same(lambda a, k: a[:, k], (None, 0), 0, a, np.array([2, 0, 1]))
    empty = vmap(lambda a, ind: a[:, ind], (None, 0))(a, np.zeros((0, 2), dtype=int))
    assert empty.shape == (0, 2, 2, 4) and empty.dtype == a.dtype


def index_with_constant(a):
    inds = np.array([0, 2])
    return a[:, inds]


@case("BatchingTest.testNumpyIndexing2")
def _():
    same(index_with_constant, 1, 1, np.arange(2 * 3 * 4).reshape((2, 3, 4)))


@case("BatchingTest.testTranspose")
def _():
    same(lambda x: x + x.T, 0, 0, np.arange(4 * 3 * 3).reshape((4, 3, 3)))


@case("BatchingTest.testTransposePermutation")
def _():
    x = np.arange(6 * 3 * 4 * 5).reshape((6, 3, 4, 5))
    same(lambda x: np.transpose(x, (1, 0, 2)), 0, 0, x)
    same(lambda x: np.transpose(x, (1, 2, 0)), 0, 0, x)
    same(lambda x: np.transpose(x, (1, 2, 0)), 2, 0, x.reshape((3, 4, 6, 5)))


def issue354(scale, psd_mat, vec):
    scaled_mat = scale[np.newaxis] * psd_mat
    chol = np.linalg.cholesky(scaled_mat)
    return -0.5 * np.sum((np.einsum("ij,j->i", chol, vec)) ** 2)


@case("BatchingTest.testIssue354")
def _():
    m = R.normal(size=(20, 10))
    same(issue354, (0, None, None), 0, np.array([[0.1], [0.2], [0.3], [0.4], [0.5]]),
         m.T @ m, R.normal(size=10))


@case("BatchingTest.testEmptyTuples")
def _():
    same(lambda x, _: x + 1, 0, 0, np.array([0, 1]), ())
    result, empty = vmap(lambda x: (x + 1, ()))(np.array([0, 1]))
    assert_same_tree(result, np.array([1, 2]))
    assert empty == ()


def index_add(x, idx, y):
    """jnp.asarray(x).at[idx].add(y)."""
    x = x.copy()
    x[idx] += y
    return x


@case("BatchingTest.testIndexAddBatchedIndexesOnly")
def _():
    same(index_add, (None, 0, None), 0, np.zeros((10,)), np.arange(10), 1.0)


@case("BatchingTest.testIssue3883")
def _():
    same(lambda x: x[()], 0, 0, np.array([1, 2, 3, 4]))


@case("BatchingTest.testNegativeAxes")
def _():
    x = np.arange(3 * 4 * 5).reshape(3, 4, 5)
    for axis in (-3, -2, -1):
        same(np.sum, axis, 0, x)
    raises(ValueError, lambda: vmap(np.sum, in_axes=-4)(x),
           r"requested to map .* along axis -4, which implies that its rank should be at "
           r"least 4, but is only 3")
    for out_axis in (-3, -2, -1):
        same(lambda y: y, 0, out_axis, x)
    raises(ValueError, lambda: vmap(lambda y: y, in_axes=0, out_axes=-4)(x), "out of bounds")


def star_identity(*xs):
    return xs


@case("BatchingTest.testNegativeAxes[star args]")
def _():
    got = vmap(star_identity, in_axes=(0, None), out_axes=(0, -1))(np.arange(5), 7)[1]
    assert_same_tree(got, np.full((5,), 7))
    assert_same_tree(vmap(star_identity, (0, None), (0, -1))(np.arange(5), 7),
                     loop_vmap(star_identity, (0, None), (0, -1))(np.arange(5), 7))
    raises(ValueError, lambda: vmap(star_identity, in_axes=(0, None),
                                    out_axes=(0, -2))(np.arange(5), 7), "out of bounds")


def two_outputs(a, b):
    return (2 * a, 3 * b)


@case("BatchingTest.testVmapKwargs")
def _():
    # JAX maps keyword arguments along axis 0; here (as in torch.func) they are passed as
    # they are: the JAX call by keyword is the torch.func one, positional
    same(two_outputs, 0, 0, np.array([1]), np.array([2]))
    same(two_outputs, (0,), 0, np.array([1]), b=np.array([2]))


@case("BatchingTest.testNonJaxTypedOutput")
def _():
    raises(TypeError, lambda: vmap(lambda x: "hello")(np.arange(5)), "not an array")


# ================================================================================ APITest


def superfun(a):
    """Does things with stuff."""
    return a


@case("APITest.test_vmap_preserves_docstr")
def _():
    assert superfun.__doc__ in vmap(superfun).__doc__


def dict_sum(dct, x, y):
    return dct["a"] + dct["b"] + x + y


@case("APITest.test_vmap_in_axes_list")
def _():
    dictionary = {"a": 5.0, "b": np.ones(2)}
    x, y = np.zeros(3), np.arange(3.0)
    out1 = same(dict_sum, (None, 0, 0), 0, dictionary, x[:, None], y[:, None])
    out2 = vmap(dict_sum, [None, 0, 0])(dictionary, x[:, None], y[:, None])
    assert_same_tree(out2, out1)


@case("APITest.test_vmap_in_axes_non_tuple_error")
def _():
    raises(TypeError, lambda: vmap(lambda x: x["a"], in_axes={"a": 0}),
           r"vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
           r"positional arguments passed to the function, but got \{'a': 0\}")


@case("APITest.test_vmap_in_axes_wrong_length_tuple_error")
def _():
    raises(ValueError, lambda: vmap(lambda x: x["a"], in_axes=(0, {"a": 0}))(
        {"a": np.zeros((3, 3))}), r"len\(in_axes\)=2, len\(args\)=1")


def add3(a, b, c):
    return a + b + c


@case("APITest.test_vmap_in_axes_tuple_with_kwargs_error")
def _():
    raises(ValueError, lambda: vmap(add3, in_axes=(0, 0, None))(
        a=np.array([1, 2]), b=np.array([2, 4]), c=0.5),
        r"len\(in_axes\)=3, len\(args\)=0.*keyword arguments \['a', 'b', 'c'\]")


def kwonly(a, *, b):
    return a @ b


@case("APITest.test_vmap_in_axes_tuple_with_kwonly_error")
def _():
    raises(ValueError, lambda: vmap(kwonly, in_axes=(None, 0))(
        np.ones((2, 4)), b=np.ones((10, 4, 2))), r"len\(in_axes\)=2, len\(args\)=1")


@case("APITest.test_vmap_in_axes_tree_prefix_error")
def _():
    raises(ValueError, lambda: vmap(lambda x: x, in_axes=([0],))(np.ones(3)),
           "vmap in_axes specification must be a tree prefix of the corresponding value")


@case("APITest.test_vmap_in_axes_leaf_types")
def _():
    raises(TypeError, lambda: vmap(lambda x: x, in_axes=(np.array([1.0, 2.0]),))(
        np.array([1.0, 2.0])), "vmap in_axes must be an int, None, or")


@case("APITest.test_vmap_out_axes_leaf_types")
def _():
    raises(TypeError, lambda: vmap(lambda x: x, out_axes=(np.array([1.0, 2.0]),))(
        np.array([1.0, 2.0])), "vmap out_axes must be an int, None, or")


@case("APITest.test_vmap_unbatched_object_passthrough_issue_183")
def _():
    got = same(lambda f, x: f(x), (None, 0), 0, np.negative, np.arange(3))
    assert_same_tree(got, -np.arange(3))


def add2(x, y):
    return x + y


@case("APITest.test_vmap_mismatched_keyword")
def _():
    # JAX maps `y=` too and then raises for its size; here keyword arguments are not mapped
    # (torch.func): per example x + the whole y, as the loop computes it
    same(add2, 0, 0, np.array([1], "int32"), y=np.array([1, 2], "int32"))


def sums(a, b):
    return np.sum(a) + np.sum(b)


@case("APITest.test_vmap_mismatched_axis_sizes_error_message_issue_705")
def _():
    x, u = R.normal(size=(10, 4)), R.normal(size=(10, 2))
    raises(ValueError, lambda: vmap(sums, in_axes=(0, 1))(x, u),
           "vmap got inconsistent sizes for array axes to be mapped")
    raises(ValueError, lambda: vmap(lambda x, y, z: None, in_axes=(0, 1, 0))(x, u, x),
           "inconsistent sizes")
    raises(ValueError, lambda: vmap(sums, in_axes=(0, 1))(x, [u, u]), "inconsistent sizes")
    raises(ValueError, lambda: vmap(lambda x: x)(1.0),
           r"rank should be at least 1, but is only 0 \(its shape is \(\)\)")
    raises(ValueError, lambda: vmap(lambda x: x, in_axes=None)(np.array([1.0, 2.0])),
           "vmap must have at least one non-None value in in_axes")
    raises(ValueError, lambda: vmap(lambda x: x, in_axes=1)(np.array([1.0, 2.0])),
           r"rank should be at least 2, but is only 1 \(its shape is \(2,\)\)")
    raises(ValueError, lambda: vmap(lambda x: x, in_axes=0, out_axes=(2, 3))(
        np.array([1.0, 2.0])), "vmap out_axes specification must be a tree prefix")
    raises(ValueError, lambda: vmap(lambda x: x, out_axes=None)(np.array([1.0, 2.0])),
           "out_axes is None")


def structured(tree_arg):
    x, (y, z) = tree_arg
    return np.dot(x, np.dot(y, z))


def structured_dict(tree_arg):
    x, dct = tree_arg
    y, z = dct["a"], dct["b"]
    return np.dot(x, np.dot(y, z))


Point = collections.namedtuple("Point", ["x", "y"])


@case("APITest.test_vmap_structured_in_axes")
def _():
    x, y, z = np.ones((6, 2, 3)), R.normal(size=(3, 6, 4)), R.normal(size=(4, 5, 6))
    assert same(structured, ((0, (1, 2)),), 0, (x, (y, z))).shape == (6, 2, 5)
    assert same(structured, ((0, Point(1, 2)),), 0, (x, Point(y, z))).shape == (6, 2, 5)
    assert same(structured_dict, ((0, {"a": 1, "b": 2}),), 0,
                (x, {"a": y, "b": z})).shape == (6, 2, 5)
    od = collections.OrderedDict
    assert same(structured_dict, ((0, od([("a", 1), ("b", 2)])),), 0,
                (x, od([("a", y), ("b", z)]))).shape == (6, 2, 5)


@case("APITest.test_vmap_in_axes_bool_error")
def _():
    raises(TypeError, lambda: vmap(lambda x: x, in_axes=False)(np.zeros(3)), "must be an int")


@case("APITest.test_vmap_empty_arguments")
def _():
    raises(ValueError, lambda: vmap(lambda x: x)({}),
           "vmap wrapped function must be passed at least one argument containing an array")


@case("APITest.test_vmap_scalar")
def _():
    raises(ValueError, lambda: vmap(lambda x: x, in_axes=0)(1.0),
           r"requested to map .* along axis 0")
    raises(ValueError, lambda: vmap(lambda x: x, in_axes=1)(1.0),
           r"requested to map .* along axis 1")


def apply_add(x1, x2, g):
    return g(x1, x2)


@case("APITest.test_vmap_inconsistent_sizes_constructs_proper_error_message")
def _():
    raises(ValueError, lambda: vmap(apply_add, (0, 0, None))(np.ones(2), np.ones(3), np.add),
           "vmap got inconsistent sizes for array axes to be mapped:")


def minus_sum(x, *args):
    return x - sum(args)


@case("APITest.test_vmap_inconsistent_sizes_constructs_proper_error_message_starargs")
def _():
    raises(ValueError, lambda: vmap(minus_sum)(np.ones(4), np.ones(2), np.ones(2)),
           "vmap got inconsistent sizes for array axes to be mapped:")
    same(minus_sum, 0, 0, np.ones(4), np.arange(4.0), np.arange(4.0) * 2)


@case("APITest.test_vmap_unmapped_last")
def _():
    same(lambda x: np.zeros((2,)), 0, -1, np.zeros((5,)))


# ===================================== BatchingTest cases of lax operations, written in NumPy


def dist_sq(points):
    d = points[:, np.newaxis, :] - points[np.newaxis, :, :]
    zero = np.zeros_like(d)
    d = d - np.where(np.abs(d) < 0.5, zero, 0.5 * np.sign(d))
    return np.sum(d ** 2, axis=2)


@case("BatchingTest.testIssue387")
def _():
    # JAX takes the hessian of a function calling dist_sq; here dist_sq itself, mapped over
    # a batch of point sets (broadcast differences, where, sign, a reduction), nested too
    points = R.uniform(size=(3, 7, 2))
    same(dist_sq, 0, 0, points)
    nested = R.uniform(size=(3, 2, 7, 2))      # outer examples along axis 1
    assert_same_tree(vmap(vmap(dist_sq), in_axes=1)(nested),
                     loop_vmap(loop_vmap(dist_sq), in_axes=1)(nested))


def table_index(index1, index2):
    return np.arange(36).reshape(6, 6)[index1, index2]


@case("BatchingTest.testIssue1170")
def _():
    # pmap with the indices by keyword; here vmap of both (by position: keyword arguments
    # are passed as they are), and one mapped with the other passed by keyword
    same(table_index, 0, 0, np.asarray([1, 3, 5]), np.asarray([2, 0, 4]))
    same(table_index, (0,), 0, np.asarray([1, 3, 5]), index2=np.int64(4))


def tridiagonal_solve(dl, d, du, b):
    """lax.linalg.tridiagonal_solve(dl, d, du, b): dl[0] and du[-1] are unused; b is (m, n)
    with the systems' right-hand sides as its columns' rows (solves A x = b for b (n, m))."""
    n = d.shape[0]
    a = np.zeros((n, n))
    i = np.arange(n)
    a[i, i] = d
    a[i[:-1], i[:-1] + 1] = du[:-1]
    a[i[1:], i[1:] - 1] = dl[1:]
    return np.linalg.solve(a, b)


def tridiagonal_solve_diag(dl, d, du, b):
    a = np.diag(d) + np.diag(du[:-1], 1) + np.diag(dl[1:], -1)
    return np.linalg.solve(a, b)


TRIDIAGONAL = (R.normal(size=(4, 10)), R.normal(size=(4, 10)) + 4.0, R.normal(size=(4, 10)),
               R.normal(size=(4, 5, 10)))


@case("BatchingTest.testLaxLinalgTridiagonalSolve")
def _():
    dl, d, du, b = TRIDIAGONAL
    same(tridiagonal_solve, (1, 1, 1, 2), 0, dl, d, du, b)
    same(tridiagonal_solve, (None, None, None, 2), 0, dl[:, 0], d[:, 0], du[:, 0], b)
    same(tridiagonal_solve, (1, 1, 1, None), 0, dl, d, du, b[..., 0])


@case("BatchingTest.testLaxLinalgTridiagonalSolve[np.diag]", operator="np.diag")
def _():
    dl, d, du, b = TRIDIAGONAL
    same(tridiagonal_solve_diag, (1, 1, 1, 2), 0, dl, d, du, b)


def conv_same(params, x):
    """lax.conv_general_dilated(x, params, (1, 1), 'SAME', ...) of one NHWC image of
    shape (h, w, c) with HWIO weights (3, 3, c, o), as the sum over the nine offsets."""
    h, w = x.shape[0], x.shape[1]
    padded = np.pad(x, ((1, 1), (1, 1), (0, 0)))
    y = np.zeros((h, w, params.shape[3]))
    for i in range(3):
        for j in range(3):
            y = y + np.einsum("hwc,co->hwo", padded[i:i + h, j:j + w, :], params[i, j])
    return y


def sum_pool(params, x):
    """testSumPool's f: the convolution, then lax.reduce_window of 2 x 2 windows, stride 1,
    'SAME' padding (one row and one column of zeros after)."""
    y = np.pad(conv_same(params, x), ((0, 1), (0, 1), (0, 0)))
    return y[:-1, :-1] + y[1:, :-1] + y[:-1, 1:] + y[1:, 1:]


def max_pool(params, x):
    """testMinMaxPool's f with lax.max (the padding is -inf, the max's unit)."""
    y = np.pad(conv_same(params, x), ((0, 1), (0, 1), (0, 0)), constant_values=-np.inf)
    return np.maximum(np.maximum(y[:-1, :-1], y[1:, :-1]), np.maximum(y[:-1, 1:], y[1:, 1:]))


@case("BatchingTest.testSumPool")
def _():
    weights, images = R.normal(size=(3, 3, 1, 5)), R.normal(size=(4, 5, 5, 1))
    same(sum_pool, (None, 0), 0, weights, images)
    # the per-example results are the batch's (JAX compares with f on the whole batch)
    got = vmap(functools.partial(sum_pool, weights))(images)
    assert got.shape == (4, 5, 5, 5)


@case("BatchingTest.testMinMaxPool")
def _():
    weights, images = R.normal(size=(3, 3, 1, 5)), R.normal(size=(4, 5, 5, 1))
    same(max_pool, (None, 0), 0, weights, images)
    same(functools.partial(max_pool, weights), 0, 0, images)


def as_rows(xs):
    return np.array(list(xs))


@case("BatchingTest.testJacobianIssue54", operator="list")
def _():
    # JAX's jacrev/jacfwd of `jnp.array(list(xs))` (a list of a per-example array's rows)
    same(as_rows, 0, 0, R.normal(size=(3, 5, 1)))


def betainc_ones(x):
    import scipy.special
    return scipy.special.betainc(np.ones(3), 1.0, x)


@case("BatchingTest.testIssue6096")
def _():
    pytest.importorskip("scipy")
    same(betainc_ones, 0, 0, R.uniform(size=(2, 3)))


# ===================================== beyond JAX: data-dependent control flow it refuses


def relu_or_square(x):
    if x > 0:
        return x * x
    return -x


def newton_sqrt(a):
    x = a
    while abs(x * x - a) > 1e-10 * a:
        x = 0.5 * (x + a / x)
    return x


def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def first_above(v, t):
    found = -1
    for i in range(len(v)):
        if v[i] > t:
            found = i
            break
    return found


def clipped_norm(v, limit):
    n = np.sqrt(np.sum(v * v))
    if n > limit:
        return v * (limit / n)
    return v


def piecewise3(x):
    if x < -1.0:
        y = -1.0
    elif x < 1.0:
        y = x ** 3
    else:
        y = 1.0 + np.log(x)
    return y


def inner_branchy(row):
    return vmap(relu_or_square)(row)


@case("control flow: if on a mapped value (jax: ConcretizationTypeError)")
def _():
    same(relu_or_square, 0, 0, R.normal(size=50))
    same(piecewise3, 0, 0, R.normal(size=50) * 3)


@case("control flow: while with a mapped condition")
def _():
    same(newton_sqrt, 0, 0, R.uniform(0.1, 100.0, size=40))
    same(collatz_steps, 0, 0, np.arange(1, 60))


@case("control flow: break in a loop over a per-example vector")
def _():
    same(first_above, (0, None), 0, R.normal(size=(30, 8)), 0.5)


@case("control flow: if on a per-example reduction of a vector")
def _():
    same(clipped_norm, (0, None), 0, R.normal(size=(20, 3)) * 2, 1.5)


@case("control flow: nested vmap with a data-dependent if inside")
def _():
    x = R.normal(size=(4, 6))
    assert_same_tree(vmap(vmap(relu_or_square))(x), loop_vmap(loop_vmap(relu_or_square))(x))
    same(inner_branchy, 0, 0, x)


# ====================================================================== running the cases


def classify(peer: str) -> str:
    """pass / refused / wrong / crash for one case."""
    import warnings
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            CASES[peer]()
    except AssertionError:
        return "wrong"
    except VectorizeError:
        return "refused"
    except Exception:     # noqa: BLE001 -- any other exception is a crash
        return "crash"
    return "pass"


def _params():
    for peer in CASES:
        marks = ()
        if peer in OPERATOR_SURFACE:
            marks = pytest.mark.xfail(strict=True, raises=VectorizeError,
                                      reason=f"refused: {OPERATOR_SURFACE[peer]} "
                                             "(operator surface)")
        yield pytest.param(peer, id=peer, marks=marks)


@pytest.mark.parametrize("peer", list(_params()))
def test_jax_vmap_case(peer):
    import warnings
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        CASES[peer]()


def test_no_case_is_wrong_or_crashes():
    outcomes = {peer: classify(peer) for peer in CASES}
    bad = {p: o for p, o in outcomes.items() if o in ("wrong", "crash")}
    assert bad == {}
    # every refusal is one waiting for a NumPy operator rule, and the rest pass
    assert {p for p, o in outcomes.items() if o == "refused"} == set(OPERATOR_SURFACE)
    assert all(outcomes[p] == "pass" for p in CASES if p not in OPERATOR_SURFACE)


if __name__ == "__main__":
    counts = collections.Counter()
    for peer in CASES:
        outcome = classify(peer)
        counts[outcome] += 1
        if outcome != "pass" or "-v" in sys.argv:
            print(f"{outcome:8} {peer}")
    print(dict(counts), "of", len(CASES))
