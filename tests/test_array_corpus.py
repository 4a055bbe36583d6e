"""The realistic per-example functions of `array_corpus`, vectorized for real.

``vmap(f, in_axes, fallback="error")`` (no per-example loop anywhere: anything the engine
cannot batch raises) is compared with the per-example loop
``np.stack([f(*[a[n] if mapped else a ...]) for n in range(N)])`` on inputs drawn by hypothesis
(batch sizes 0..5, core sizes 1..4, every in_axes combination the corpus lists, the mapped
axis first or last). ``vectorize(f, signature=..., fallback="error")`` is compared with
``numpy.vectorize(f, signature=...)`` on batches with one or two loop dimensions.

Values are multiples of 0.5 (see `array_corpus`): products and sums are exact, so the batched
einsum and the per-example BLAS dot agree bit for bit, and an ``if`` on a computed value cannot
go the other way in one of them; transcendental functions are compared to 1e-12 relative.
"""

from __future__ import annotations

import os
import warnings

import array_corpus as ac
import numpy as np
import pytest
from array_corpus import CORPUS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from vectorize import vectorize, vmap

MAX_EXAMPLES = int(os.environ.get("TEST_ARRAY_CORPUS_MAX_EXAMPLES", "12"))
HALVES = st.integers(-8, 8).map(lambda k: k / 2)
POSITIVE = st.integers(1, 8).map(lambda k: k / 2)

# ------------------------------------------------------------------------------ reference


def parse(arg: str):
    """``"h,d:f"`` -> (["h", "d"], "f")."""
    core, kind = arg.split(":")
    return [c for c in core.split(",") if c], kind


def per_example(f, args, in_axes):
    """The loop's stacked results (a tuple for tuple results); N = 0: an empty stack of what
    f returns for a zero example."""
    size = next(np.shape(a)[ax] for a, ax in zip(args, in_axes) if ax is not None)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        if size == 0:
            example = [a if ax is None else np.zeros(np.delete(np.shape(a), ax),
                                                     np.asarray(a).dtype)[()]
                       for a, ax in zip(args, in_axes)]
            out = f(*example)
            outs = out if isinstance(out, tuple) else (out,)
            stacked = tuple(np.zeros((0,) + np.shape(o), np.asarray(o).dtype) for o in outs)
            return stacked if isinstance(out, tuple) else stacked[0]
        rows = [f(*[a if ax is None else np.take(a, n, axis=ax)
                    for a, ax in zip(args, in_axes)]) for n in range(size)]
    if isinstance(rows[0], tuple):
        return tuple(np.stack([np.asarray(r[k]) for r in rows]) for k in range(len(rows[0])))
    return np.stack([np.asarray(r) for r in rows])


def assert_same(got, expected, what=""):
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected), what
        for k, (g, e) in enumerate(zip(got, expected)):
            assert_same(g, e, f"{what}output {k}: ")
        return
    got = np.asarray(got)
    assert got.shape == expected.shape, f"{what}shape {got.shape} != {expected.shape}"
    assert got.dtype == expected.dtype, f"{what}dtype {got.dtype} != {expected.dtype}"
    if expected.dtype.kind == "f":
        # (atol: sums of inexact terms such as tanh values may cancel, in another order)
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-13, equal_nan=True,
                                   err_msg=what)
    else:
        np.testing.assert_array_equal(got, expected, err_msg=what)


# ------------------------------------------------------------------------------ inputs


@st.composite
def corpus_inputs(draw, spec, in_axes, batch_shape=None):
    """Arguments for ``in_axes`` (mapped axis first or last) or, with ``batch_shape``, for a
    signature call (loop dimensions in front; unmapped arguments without them)."""
    parsed = [parse(a) for a in spec.args]
    letters = sorted({c for core, _ in parsed for c in core if not c.isdigit()})
    dims = {c: draw(st.integers(1, 4)) for c in letters}
    n = draw(st.integers(0, 5)) if batch_shape is None else None
    args, axes = [], []
    for (core, kind), axis in zip(parsed, in_axes):
        shape = tuple(int(c) if c.isdigit() else dims[c] for c in core)
        if axis is not None:
            shape = (n,) + shape if batch_shape is None else tuple(batch_shape) + shape
        if kind.startswith("i"):
            bound = dims[kind[1:]]
            value = draw(arrays(np.int64, shape, elements=st.integers(0, bound - 1)))
        else:
            value = draw(arrays(np.float64, shape, elements=POSITIVE if kind == "p" else HALVES))
        if axis is not None and batch_shape is None and np.ndim(value) > 1 and draw(
                st.booleans()):
            value, axis = np.moveaxis(value, 0, -1), -1
        if axis is None and not shape:
            value = value[()]
        args.append(value)
        axes.append(axis)
    return tuple(axes), args


def _params():
    out = []
    for f, spec in CORPUS.items():
        for in_axes in spec.in_axes:
            marks = []
            if in_axes in spec.bug:
                marks = [pytest.mark.xfail(strict=True, reason=spec.bug[in_axes])]
            out.append(pytest.param(f, in_axes, id=f"{f.__name__}-{in_axes}", marks=marks))
    return out


_VMAPPED: dict = {}


def vmapped(f, in_axes):
    key = (f, in_axes)
    if key not in _VMAPPED:
        _VMAPPED[key] = vmap(f, in_axes=in_axes, fallback="error")
    return _VMAPPED[key]


# ------------------------------------------------------------------------------ the tests


def test_corpus_is_big_enough():
    assert len(CORPUS) >= 15


@pytest.mark.parametrize("f, in_axes", _params())
@settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_vmap_matches_the_loop(f, in_axes, data):
    axes, args = data.draw(corpus_inputs(CORPUS[f], in_axes))
    expected = per_example(f, args, axes)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        got = vmapped(f, axes)(*args)
    assert_same(got, expected, f"{f.__name__} in_axes={axes} "
                               f"shapes={[np.shape(a) for a in args]}: ")


def _signature_params():
    return [pytest.param(f, id=f.__name__, marks=[
        pytest.mark.xfail(strict=True, reason=spec.bug["signature"])]
        if "signature" in spec.bug else []) for f, spec in CORPUS.items() if spec.signature]


@pytest.mark.parametrize("f", _signature_params())
@settings(max_examples=max(3, MAX_EXAMPLES // 3), deadline=None,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_signature_matches_numpy_vectorize(f, data):
    spec = CORPUS[f]
    in_axes = spec.in_axes[0]
    batch_shape = data.draw(st.sampled_from([(1,), (4,), (2, 3)]))
    _, args = data.draw(corpus_inputs(spec, in_axes, batch_shape))
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        expected = np.vectorize(f, signature=spec.signature)(*args)
        got = vectorize(f, signature=spec.signature, fallback="error")(*args)
    if isinstance(expected, tuple):
        assert_same(got, tuple(np.asarray(e) for e in expected), f"{f.__name__}: ")
    else:
        assert_same(got, np.asarray(expected), f"{f.__name__}: ")


def test_the_main_functions_are_products_not_loops():
    """Their generated code is batched products (`@` of the batch, einsum,
    `merge.rows_dot` of a batch of rows and a shared vector) / NumPy reductions, never a
    per-example loop."""
    x = np.ones((4, 3))
    cases = [
        (ac.relu_linear, (x, np.ones(3)), (0, None)),
        (ac.mlp, (x, np.ones((5, 3)), np.ones(5), np.ones((2, 5))), (0, None, None, None)),
        (ac.quadratic_form, (x, np.eye(3)), (0, None)),
        (ac.attention, (x, np.ones((6, 3)), np.ones((6, 2))), (0, None, None)),
    ]
    for f, args, in_axes in cases:
        source = vmapped(f, in_axes).source(*args)
        body = source.split(f"def {f.__name__}(", 1)[1]
        assert "np.einsum(" in body or " @ " in body or "merge.rows_dot(" in body, source
        assert " for " not in body and "vectorize(" not in body, source
