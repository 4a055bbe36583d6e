"""JAX's ``tests/batching_test.py`` (BatchingTest) and the vmap tests of ``tests/api_test.py``
as JAX writes them, in ``jax.numpy``, run with ``vmap(..., backend="jax")``; the reference is
``jax.vmap`` itself on the same function and arguments (values, dtype kinds, and for errors
the exception type and JAX's message). ``tests/peers/test_jax_vmap.py`` runs the same peer
tests rewritten in NumPy against the per-example loop; this file checks the JAX spelling:
``jnp`` operations, ``.at[]`` updates, ``jax.lax`` indexing, and JAX's error messages.

Ported but left out of the suite (its time budget): the cases that run here as in
test_jax_vmap.py (testConstantFunction, testRevNumpy, testNpGtrThan, testDot2-4, testCumProd,
testGatherBatchedBoth, testNumpyIndexing2, testTranspose, test_vmap_unmapped_last: all pass),
and those written with ``lax`` primitives, batched by the JAX backend's ``jax.lax`` rules
(jax.vmap's own rules) as testSort, testConcatenate, testSliceLax, testRevLax, testPad and
testSelect here are: testDotGeneral, testSortKeyVal, testDynamicUpdateSlice
(lax.dynamic_update_index_in_dim and its ``x.at[i].set`` spelling), testIssue3883
(lax.dynamic_slice).

Not ported, with the reason:
- testPerExampleGradients, testNpMaximumPerExampleGrad, testJacobians, testHessian,
  testGather*Grad*, testGradOfPsum, testAllGatherVjp, testReduceScatterAutodiff,
  testPpermuteBatcherTrivial, test_vmap_caching: gradients (``grad``/``jvp``/``vjp``), which
  the generated code does not differentiate (test_jax_vmap.py has the hand-written ones).
- testBatchOfCompile, test_jit_lower_compile_vmap: ``jit`` tracing counts.
- testRandom, testIssue489: PRNG keys.
- testCommAssocCollective, testPPermute, testAllToAll*, testAxisIndex, testAllGather*,
  testBatchedAllGather*, testArgAllReduce: ``axis_name`` collectives.
- testIssue1170: ``pmap``.
- testConvGeneralDilated*, testMinMaxPool, testSumPool: ``lax.conv``/``reduce_window``
  (test_jax_vmap.py has the pools written as NumPy loops).
- testBatchingPreservesWeakType: weak types are JAX tracing internals.
- the ``jax.custom_batching`` / vmappable-type tests (test_basic, test_to_elt_..., ...).
- test_vmap_inconsistent_sizes_..._kwargs, test_vmap_mismatched_keyword: JAX maps keyword
  arguments; ours passes them as they are (torch.func's rule, docs/semantics.md).
"""

from __future__ import annotations

import collections
import os
import re
import sys
import warnings

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from vmap_reference import assert_same_tree  # noqa: E402

from vectorize import VectorizeError, vmap  # noqa: E402

R = np.random.default_rng(29)
CASES: dict = {}
REFUSED: dict = {}    # case -> why a located VectorizeError is the expected outcome


def case(peer: str, refused: str | None = None):
    def register(fn):
        CASES[peer] = fn
        if refused is not None:
            REFUSED[peer] = refused
        return fn
    return register


def _jnp(tree):
    """NumPy arrays as jax arrays (JAX's tests index with traced values: jnp arrays)."""
    return jax.tree_util.tree_map(
        lambda x: jnp.asarray(x) if isinstance(x, np.ndarray) else x, tree)


def _np(tree):
    return jax.tree_util.tree_map(np.asarray, tree)


def close(got, want):
    """The same tree, dtype kinds and values (JAX computes in float32 here, without x64)."""
    got, want = _np(got), _np(want)
    flat_got, tree_got = jax.tree_util.tree_flatten(got)
    flat_want, tree_want = jax.tree_util.tree_flatten(want)
    assert tree_got == tree_want, (tree_got, tree_want)
    for g, w in zip(flat_got, flat_want):
        assert np.shape(g) == np.shape(w), (np.shape(g), np.shape(w))
        assert np.asarray(g).dtype.kind == np.asarray(w).dtype.kind, (g, w)
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


def same(f, in_axes, out_axes, *args, **kw):
    """``vmap(f, backend="jax")`` equals ``jax.vmap(f)`` (values, dtype kinds, tree)."""
    got = vmap(f, in_axes, out_axes, backend="jax", **kw)(*args)
    close(got, jax.vmap(f, in_axes, out_axes, **kw)(*_jnp(args)))
    return got


def raises_like(f, in_axes, out_axes, *args, match=None, **kw):
    """``jax.vmap`` raises here: ours raises the same type (and message, where given)."""
    with pytest.raises(Exception) as theirs:
        jax.vmap(f, in_axes, out_axes, **kw)(*_jnp(args))
    try:
        vmap(f, in_axes, out_axes, backend="jax", **kw)(*args)
    except type(theirs.value) as exc:
        if match is not None:
            assert re.search(match, str(theirs.value)), "the pattern must match JAX's message"
            assert re.search(match, str(exc)), f"message {str(exc)!r} lacks {match!r}"
        return
    except Exception as exc:      # noqa: BLE001 -- another type is wrong
        raise AssertionError(f"raised {type(exc).__name__}: {exc}; JAX raises "
                             f"{type(theirs.value).__name__}") from exc
    raise AssertionError(f"accepted where JAX raises {type(theirs.value).__name__}")


# ============================================================================ BatchingTest


@case("testNestedBatchingMatMat")
def _():
    matvec = vmap(jnp.vdot, in_axes=(0, None), backend="jax")
    matmat = vmap(matvec, in_axes=(None, 1), out_axes=1, backend="jax")
    a, b = R.normal(size=(10, 3)), R.normal(size=(3, 2))
    assert_same_tree(_np(matmat(a, b)), np.dot(a, b), rtol=1e-5, exact_dtype=False)


@case("testSliceNumpy")
def _():
    same(lambda x: x[:, 2:4], 1, 1, R.normal(size=(10, 5, 8)))


@case("testNpMaximum")
def _():
    same(lambda x: jnp.maximum(x, 0.0), 0, 0, R.normal(size=(10, 5)))


@case("testDot")
def _():
    def vecvec(a, b):
        dot = jnp.dot
        for ndim in range(1, max(a.ndim, b.ndim)):
            a_ax = 0 if a.ndim > ndim else None
            b_ax = 0 if b.ndim > ndim else None
            dot = vmap(dot, in_axes=(a_ax, b_ax), backend="jax")
        return dot(a, b)
    assert np.shape(vecvec(np.zeros((2, 3)), np.zeros((3,)))) == (2,)
    assert np.shape(vecvec(np.zeros((4, 2, 3)), np.zeros((3,)))) == (4, 2)
    a, b = R.normal(size=(4, 2, 3)), R.normal(size=(3,))
    assert_same_tree(_np(vecvec(a, b)), a @ b, rtol=1e-5, exact_dtype=False)
    same(jnp.dot, (1, None), 0, R.normal(size=(3, 10)), R.normal(size=(3,)))
    same(jnp.dot, (None, 1), 0, R.normal(size=(3,)), R.normal(size=(3, 10)))


@case("testConcatenate")
def _():
    x, y, z = R.normal(size=(3, 4)), R.normal(size=(3, 5)), R.normal(size=(10, 3, 6))
    f = lambda *args: lax.concatenate(args, dimension=1)  # noqa: E731
    same(f, (None, None, 0), 0, x, y, z)
    same(lambda *a: jnp.concatenate(a, axis=1), (None, None, 0), 0, x, y, z)
    same(lambda *a: jnp.concatenate(a, axis=1), 0, 0, R.normal(size=(4, 3, 2)),
         R.normal(size=(4, 3, 5)))


@case("testSliceLax")
def _():
    same(lambda x: lax.slice(x, (2,), (4,)), 0, 0, R.normal(size=(5, 10)))


@case("testRevLax")
def _():
    x = R.normal(size=(2, 3))
    same(lambda x: lax.rev(x, [0]), 0, 0, x)
    same(lambda x: lax.rev(x, [0]), 1, 1, x)


@case("testPad")
def _():
    same(lambda x: lax.pad(x, np.float32(0), [(1, 2, 1)]), 0, 0,
         R.normal(size=(5, 10)).astype(np.float32))
    same(lambda x: lax.pad(x, np.float32(0), [(1, 2, 1), (0, 1, 0)]), 0, 0,
         R.normal(size=(5, 10, 3)).astype(np.float32))


@case("testSelect")
def _():
    select = lambda p, a, b: lax.select(p, a, b)  # noqa: E731
    same(select, 0, 0, np.array([True, False]), np.array([0, 1]), np.array([2, 3]))
    same(select, (0, None, None), 0, np.array([False, True]), np.array([0, 1]),
         np.array([2, 3]))
    same(select, (None, 0, None), 0, True, np.array([0, 1], np.float32),
         np.array(3, np.float32))


@case("testAny")
def _():
    same(lambda x: jnp.any(x > 0), 0, 0, np.array([[True, False], [False, False]]) - 0.5)
    same(jnp.any, 0, 0, np.array([[True, False], [False, False]]))


@case("testDynamicSlice")
def _():
    x = np.arange(30).reshape((10, 3))
    same(lambda x, i: x[i], (0, None), 0, x, 1)
    idx = np.array([0, 1, 2, 1, 0] * 2)
    same(lambda x, i: x[i], (0, 0), 0, x, idx)
    same(lambda x, i: x[i], (None, 0), 0, np.arange(3), idx)


@case("testSort")
def _():
    v = np.arange(12)[::-1].reshape(3, 4)
    same(lambda x: jnp.sort(x), 0, 0, v)
    same(lambda x: jnp.sort(x), 1, 1, v)
    same(lambda x: lax.sort(x), 0, 0, v)


@case("testLaxLinalgCholesky")
def _():
    a = R.normal(size=(10, 5, 5)).astype(np.float32)
    a = np.matmul(a, np.conj(np.swapaxes(a, -1, -2)))
    same(jnp.linalg.cholesky, 0, 0, a)
    same(jnp.linalg.cholesky, 1, 1, np.swapaxes(a, 0, 1))


@case("testGatherBatchedIndices")
def _():
    x = np.arange(5.0)
    idx = np.array([[0, 2], [1, 3], [4, 4]])
    same(lambda x, i: x[i], (None, 0), 0, x, idx)
    same(lambda x, i: jnp.take(x, i), (None, 0), 0, x, idx)


@case("testNumpyIndexing1")
def _():
    a = np.arange(2 * 3 * 4).reshape((2, 3, 4))
    ind = np.array([[0, 1], [2, 0]])

    def f(a, ind):
        return a[:, ind]
    same(f, (None, 0), 0, a, ind)


@case("testTransposePermutation")
def _():
    x = np.arange(6 * 3 * 4 * 5).reshape((6, 3, 4, 5))
    same(lambda x: jnp.transpose(x, (1, 0, 2)), 3, 0, np.moveaxis(x, 0, 3).copy())
    same(lambda x: jnp.transpose(x, (1, 2, 0)), 1, 0, np.moveaxis(x, 0, 1).copy())


@case("testIssue354")
def _():
    def psd_sqrt(a):
        w, v = jnp.linalg.eigh(a)
        return jnp.dot(v * jnp.sqrt(w), v.T)

    def f(x, m):
        return jnp.sum(jnp.dot(psd_sqrt(m), x))

    m = R.normal(size=(6, 4)).astype(np.float32)
    same(f, (0, None), 0, R.normal(size=(5, 4)), m.T @ m)


@case("testEmptyTuples")
def _():
    same(lambda x, _: x + 1, 0, 0, np.array([0, 1]), ())
    result, empty = vmap(lambda x: (x + 1, ()), backend="jax")(np.array([0, 1]))
    assert_same_tree(_np(result), np.array([1, 2]), exact_dtype=False)
    assert empty == ()


@case("testIndexAddBatchedIndexesOnly")
def _():
    f = lambda x, idx, y: jnp.asarray(x).at[idx].add(y)  # noqa: E731
    got = same(f, (None, 0, None), 0, np.zeros((10,)), np.arange(10), 1.0)
    assert_same_tree(_np(got), np.eye(10), exact_dtype=False)


@case("testNegativeAxes")
def _():
    x = np.arange(3 * 4 * 5).reshape(3, 4, 5)
    for axis in (-3, -2, -1):
        same(jnp.sum, axis, 0, x)
    raises_like(jnp.sum, -4, 0, x,
                match=r"vmap was requested to map its argument along axis -4, which implies "
                      r"that its rank should be at least 4, but is only 3 \(its shape is "
                      r"\(3, 4, 5\)\)")
    for out_axis in (-3, -2, -1):
        same(lambda y: y, 0, out_axis, x)
    raises_like(lambda y: y, 0, -4, x, match="axis -4 is out of bounds")
    got = same(lambda *xs: xs, (0, None), (0, -1), np.arange(5), 7)
    assert_same_tree(_np(got[1]), np.full((5,), 7), exact_dtype=False)
    raises_like(lambda *xs: xs, (0, None), (0, -2), np.arange(5), 7,
                match="axis -2 is out of bounds")


@case("testVmapKwargs")
def _():
    def f(a, b):
        return (2 * a, 3 * b)
    same(f, 0, 0, np.array([1]), np.array([2]))


@case("testNonJaxTypedOutput")
def _():
    raises_like(lambda x: "hello", 0, 0, np.arange(5))


# ================================================================================ APITest


@case("test_vmap_in_axes_list")
def _():
    def f(dct, x, y):
        return dct["a"] + dct["b"] + x + y
    dictionary = {"a": 5.0, "b": np.ones(2)}
    x, y = np.zeros(3), np.arange(3.0)
    out1 = same(f, (None, 0, 0), 0, dictionary, x, y)
    out2 = same(f, [None, 0, 0], 0, dictionary, x, y)
    assert_same_tree(_np(out2), _np(out1))


@case("test_vmap_in_axes_wrong_length_tuple_error")
def _():
    raises_like(lambda x: x["a"], (0, {"a": 0}), 0, {"a": np.zeros((3, 3))},
                match=r"len\(in_axes\)=2, len\(args\)=1")


@case("test_vmap_in_axes_tree_prefix_error")
def _():
    raises_like(lambda x: x, ([0],), 0, np.ones(3),
                match="vmap in_axes specification must be a tree prefix of the "
                      "corresponding value")


@case("test_vmap_unbatched_object_passthrough_issue_183")
def _():
    got = same(lambda f, x: f(x), (None, 0), 0, jnp.negative, np.arange(3))
    assert_same_tree(_np(got), -np.arange(3), exact_dtype=False)


@case("test_vmap_mismatched_axis_sizes_error_message_issue_705")
def _():
    def h(a, b):
        return jnp.sum(a) + jnp.sum(b)
    x = R.normal(size=(10, 4)).astype("float32")
    u = R.normal(size=(10, 2)).astype("float32")
    raises_like(h, (0, 1), 0, x, u,
                match="vmap got inconsistent sizes for array axes to be mapped:\n"
                      r"  \* one axis had size 10: axis 0 of argument a of type float32\[10,4\];"
                      "\n"
                      r"  \* one axis had size 2: axis 1 of argument b of type float32\[10,2\]")
    raises_like(lambda x, y, z: None, (0, 1, 0), 0, x, u, x,
                match="vmap got inconsistent sizes for array axes to be mapped:\n"
                      r"  \* most axes \(2 of them\) had size 10, e.g. axis 0 of argument x "
                      r"of type float32\[10,4\];" "\n"
                      r"  \* one axis had size 2: axis 1 of argument y of type float32\[10,2\]")
    raises_like(h, (0, 1), 0, x, [u, u],
                match="vmap got inconsistent sizes for array axes to be mapped:\n"
                      r"  \* most axes \(2 of them\) had size 2, e.g. axis 1 of argument b\[0\] "
                      r"of type float32\[10,2\];" "\n"
                      r"  \* one axis had size 10: axis 0 of argument a of type float32\[10,4\]")
    raises_like(lambda x: x, 0, 0, 1.0,
                match=r"vmap was requested to map its argument along axis 0, which implies "
                      r"that its rank should be at least 1, but is only 0 \(its shape is \(\)\)")
    raises_like(lambda x: x, None, 0, np.array([1.0, 2.0]),
                match="vmap must have at least one non-None value in in_axes")
    raises_like(lambda x: x, 1, 0, np.array([1.0, 2.0]),
                match=r"vmap was requested to map its argument along axis 1, which implies "
                      r"that its rank should be at least 2, but is only 1 \(its shape is "
                      r"\(2,\)\)")
    raises_like(lambda x: x, 0, (2, 3), np.array([1.0, 2.0]),
                match="vmap out_axes specification must be a tree prefix of the "
                      "corresponding value")
    raises_like(lambda x: x, 0, None, np.array([1.0, 2.0]), match="at vmap out_axes")


@case("test_vmap_explicit_axis_size_mismatch")
def _():
    raises_like(lambda x: x, 0, 0, np.arange(8, dtype=np.int32), axis_size=2,
                match=r"vmap got inconsistent sizes for array axes to be mapped:\n"
                      r"  \* the `axis_size` argument was 2;\n"
                      r"  \* one axis had size 8: axis 0 of argument x of type int32\[8\]")


@case("axis_size with nothing mapped (vmap docstring)")
def _():
    same(lambda x: x + 1, None, 0, 1.0, axis_size=3)
    same(lambda x, y: x * y, (None, None), 1, np.arange(2.0), 3.0, axis_size=4)


@case("test_vmap_structured_in_axes")
def _():
    def f(tree_arg):
        x, (y, z) = tree_arg
        return jnp.dot(x, jnp.dot(y, z))

    def g(tree_arg):
        x, dct = tree_arg
        return jnp.dot(x, jnp.dot(dct["a"], dct["b"]))
    x, y, z = np.ones((6, 2, 3)), R.normal(size=(3, 6, 4)), R.normal(size=(4, 5, 6))
    Point = collections.namedtuple("Point", ["x", "y"])
    assert same(f, ((0, (1, 2)),), 0, (x, (y, z))).shape == (6, 2, 5)
    assert same(f, ((0, Point(1, 2)),), 0, (x, Point(y, z))).shape == (6, 2, 5)
    assert same(g, ((0, {"a": 1, "b": 2}),), 0, (x, {"a": y, "b": z})).shape == (6, 2, 5)


@case("test_vmap_empty_arguments")
def _():
    raises_like(lambda x: x, 0, 0, {},
                match="vmap wrapped function must be passed at least one argument "
                      "containing an array")


@case("test_vmap_scalar")
def _():
    raises_like(lambda x: x, 0, 0, 1.0, match="along axis 0")
    raises_like(lambda x: x, 1, 0, 1.0, match="along axis 1")


@case("test_vmap_inconsistent_sizes_constructs_proper_error_message")
def _():
    def f(x1, x2, g):
        return g(x1, x2)
    raises_like(f, (0, 0, None), 0, np.ones(2), np.ones(3), jnp.add,
                match="vmap got inconsistent sizes for array axes to be mapped:")


@case("test_lax_empty_vmap")
def _():
    inp = np.arange(8, dtype=np.int32).reshape(4, 2)
    got = vmap(lambda x: jnp.empty(x.shape, x.dtype), backend="jax")(inp)
    assert np.shape(got) == inp.shape


# ============================== vmap forms a scalar-code user relies on (jax.vmap's docstring)


@case("outputs: dict, nested tuple, scalar, None")
def _():
    x = R.normal(size=(4, 3))
    same(lambda v: {"s": jnp.sum(v), "m": (jnp.max(v), v * 2)}, 0,
         {"s": 0, "m": (0, 1)}, x)
    same(lambda v: jnp.sum(v) > 0, 0, 0, x)
    got = vmap(lambda v: None, backend="jax")(x)
    assert got is None and jax.vmap(lambda v: None)(x) is None


@case("in_axes: dict argument with per-key axes, negative axes inside a tree")
def _():
    d = {"w": R.normal(size=(3, 5)), "b": R.normal(size=(5,))}
    same(lambda p, v: p["w"] @ v + p["b"], ({"w": -1, "b": 0}, None), 0, d, R.normal(size=3))


@case("nested vmap: outer over rows, inner over columns, with None inside")
def _():
    x, y = R.normal(size=(4, 6)), R.normal(size=(6,))
    inner = jax.vmap(lambda a, b: jnp.tanh(a) * b, (0, 0))
    outer = vmap(vmap(lambda a, b: jnp.tanh(a) * b, (0, 0), backend="jax"), (0, None),
                 backend="jax")
    assert_same_tree(_np(outer(x, y)), _np(jax.vmap(inner, (0, None))(x, y)), rtol=1e-5,
                     exact_dtype=False)


@case("reductions and elementwise on a per-example vector")
def _():
    x = R.normal(size=(5, 7))
    same(lambda v: (jnp.mean(v), jnp.std(v), jnp.argmax(v), jnp.linalg.norm(v),
                    jnp.clip(v, -0.5, 0.5) ** 2), 1, 0, x)


# ====================================================================== running the cases


def classify(peer: str) -> str:
    """pass / refused / wrong / crash for one case."""
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
        if peer in REFUSED:
            marks = pytest.mark.xfail(strict=True, raises=VectorizeError, reason=REFUSED[peer])
        yield pytest.param(peer, id=peer, marks=marks)


@pytest.mark.parametrize("peer", list(_params()))
def test_jax_batching_case(peer):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        CASES[peer]()


if __name__ == "__main__":
    counts = collections.Counter()
    for peer in CASES:
        outcome = classify(peer)
        counts[outcome] += 1
        if outcome != "pass" or "-v" in sys.argv:
            print(f"{outcome:8} {peer}")
    print(dict(counts), "of", len(CASES))
