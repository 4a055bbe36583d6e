"""Vmapped calls written inside a mapped function, as the peers' users write them: a lambda
mapped there that reads the function's values (``vmap(lambda y: x * y)(v)``), per-example
values passed by keyword to a vmapped function, dict and list arguments that mix per-example
and shared values, and ``OrderedDict`` / ``dict([...])`` results. Each compared with the
per-example loop at every level (NumPy and torch), N = 0, 1, 5."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest
import torch
from vmap_reference import assert_same_tree, loop_vmap

from vectorize import VectorizeError, vmap
from vectorize.pytree import flatten
from vectorize.vmap import _MEMO

R = np.random.default_rng(7)


def outer_times(x, v):
    return vmap(lambda y: x * y)(v)


def shared_and_mapped(x, w):
    return vmap(lambda r: (r * w).sum() + x.sum())(x)


def with_axes(x):
    return vmap(lambda a, b: a @ b + x.sum(), in_axes=(0, None))(x, x[0])


def out_axes_inner(m):
    return vmap(lambda row: row * 2, out_axes=1)(m)


def constant_lambda(m):
    return vmap(lambda row: row.sum())(m)


def branchy_inner(x, t):
    return vmap(lambda r: r * t if r > t else r - t)(x)


def scale(x, factor, shift=0.0):
    return x * factor + shift


vscale = vmap(scale)


def keyword_inner(x, f):
    return vscale(x, factor=f)


def keywords_inner(x, f):
    return vscale(x, shift=f, factor=f)


def pair_sum(d):
    return d["a"] * d["b"] + d["c"]


vpair = vmap(pair_sum, in_axes=({"a": 0, "b": 0, "c": None},))


def dict_inner(x, w):
    return vpair({"a": x, "b": w, "c": 1.5})


def first_times_second(pair):
    return pair[0] * pair[1]


vfirst = vmap(first_times_second)


def list_inner(x, w):
    return vfirst([x, w])


def odict_result(x):
    return OrderedDict([("sin", np.sin(x)), ("twice", x * 2)])


def dict_pairs_result(x):
    return dict([("a", x.sum()), ("b", x)])


CASES = [
    (outer_times, [(3,), (4,)], (0, None)),
    (outer_times, [(3,), (4,)], (0, 0)),
    (shared_and_mapped, [(4, 3), (3,)], (0, None)),
    (with_axes, [(3, 2, 2)], 0),
    (out_axes_inner, [(2, 3)], 0),
    (constant_lambda, [(2, 3)], 0),
    (branchy_inner, [(5,), ()], (0, 0)),
    (keyword_inner, [(3,), ()], (0, 0)),
    (keywords_inner, [(3,), ()], (0, 0)),
    (dict_inner, [(3,), (3,)], (0, None)),
    (list_inner, [(3,), (3,)], (0, None)),
    (odict_result, [(3,)], 0),
    (dict_pairs_result, [(3,)], 0),
]


def _args(shapes, in_axes, n):
    axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(shapes)
    return [R.normal(size=((n,) if ax is not None else ()) + shape)
            for shape, ax in zip(shapes, axes)]


@pytest.mark.parametrize("n", [0, 1, 5])
@pytest.mark.parametrize("f, shapes, in_axes", CASES, ids=[c[0].__name__ for c in CASES])
def test_inner_vmap_equals_the_loop(f, shapes, in_axes, n):
    args = _args(shapes, in_axes, n)
    got = vmap(f, in_axes)(*args)
    if n == 0:      # no example to run: shapes and dtypes as one example's
        one = loop_vmap(f, in_axes)(*_args(shapes, in_axes, 1))
        assert type(got) is type(one)
        for g, o in zip(flatten(got), flatten(one)):
            assert g[1].shape == (0,) + o[1].shape[1:] and g[1].dtype == o[1].dtype
    else:
        assert_same_tree(got, loop_vmap(f, in_axes)(*args), rtol=1e-12)
    if f in (odict_result,):
        assert type(got) is OrderedDict and list(got) == ["sin", "twice"]


@pytest.mark.parametrize("f, shapes, in_axes", [c for c in CASES if c[0] not in (
    odict_result, dict_pairs_result, dict_inner, list_inner, branchy_inner)],
    ids=[c[0].__name__ for c in CASES if c[0] not in (
        odict_result, dict_pairs_result, dict_inner, list_inner, branchy_inner)])
def test_inner_vmap_on_tensors_with_gradients(f, shapes, in_axes):
    args = [torch.tensor(a, requires_grad=True) for a in _args(shapes, in_axes, 4)]
    refs = [a.detach().clone().requires_grad_() for a in args]
    got = vmap(f, in_axes)(*args)
    axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
    want = torch.stack([f(*[r if ax is None else r[i] for r, ax in zip(refs, axes)])
                        for i in range(4)])
    torch.testing.assert_close(got, want)
    got.sum().backward()
    want.sum().backward()
    for a, r in zip(args, refs):
        torch.testing.assert_close(a.grad, r.grad)


def test_a_lambda_mapped_inside_stays_warm():
    f = vmap(shared_and_mapped, in_axes=(0, None))
    x, w = R.normal(size=(5, 4, 3)), R.normal(size=3)
    f(x, w)
    before = len(_MEMO)
    for _ in range(3):
        f(x, w)
    assert len(_MEMO) == before          # one vmap of the lambda, made once
    assert "lambda x, w, r: (r * w).sum() + x.sum()" in f.source(x, w)


def test_keyword_that_cannot_be_passed_by_position_is_refused_located():
    def skips(x, f):
        return vscale(x, shift=f)        # `factor` is skipped: no position for `shift`
    with pytest.raises(VectorizeError, match="by keyword") as info:
        vmap(skips)(R.normal(size=(4, 3)), R.normal(size=4))
    assert str(info.value).startswith(__file__)


OFFSET = np.zeros(3)


def reads_a_global(x):
    return vmap(lambda r: r + OFFSET + x.sum())(x)


def test_a_global_the_lambda_reads_is_guarded():
    global OFFSET
    f = vmap(reads_a_global)
    x = R.normal(size=(4, 2, 3))
    assert_same_tree(f(x), loop_vmap(reads_a_global)(x))
    saved = OFFSET
    try:
        OFFSET = np.ones((2, 3))          # rebound to another shape: a new specialization
        assert_same_tree(f(x), loop_vmap(reads_a_global)(x))
    finally:
        OFFSET = saved
