"""PyTorch's vmap tests not ported in ``test_torch_vmap.py``: the rest of ``TestVmapAPI``
(``test/functorch/test_vmap.py`` of pytorch/pytorch) and ``TestRandomness``, run by
`vectorize.vmap`. Every test names the peer test it adapts.

Random draws: ours draw independently for every example, as ``randomness="different"``
(docs/torch.md, "Random draws"), but not the numbers PyTorch's batched call draws, so where
the peer compares with a seeded batched call, the port checks what "different" promises: the
per-example shape and dtype, a distinct draw for every example, and the bounds of the
distribution. ``randomness="same"`` and ``"error"`` (PyTorch raises where the function draws)
are refused with a located `VectorizeError`; so are the draws without a per-example rule
(``torch.binomial``, the dropout family in training mode, ``torch.randperm``, the in-place
random methods), each listed in ``REFUSED`` with the reason.
"""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn.functional as F

from vectorize import VectorizeError, vmap

B0 = 4


@pytest.fixture(autouse=True)
def _seeded():
    with torch.random.fork_rng():
        torch.manual_seed(1234567)
        yield


def refused(f, args, match=None, **options):
    """A located refusal: a `VectorizeError` at a line of this file."""
    with pytest.raises(VectorizeError, match=match) as info:
        vmap(f, **options)(*args)
    assert str(info.value).split(":")[0] == __file__, str(info.value)


def image(where):
    """The peer's ``_get_image`` (smaller): ones, batched first, last or not at all."""
    return {"first": torch.ones(B0, 3, 4), "last": torch.ones(3, 4, B0),
            "none": torch.ones(3, 4)}[where]


def in_dims(*where):
    """The peer's ``_in_dims``: the dims of the images, then 0 for ``always_batched``."""
    return tuple({"first": 0, "last": -1, "none": None}[w] for w in where) + (0,)


def assert_all_slices_unique(out):
    flat = out.reshape(out.shape[0], -1)
    for i in range(len(flat)):
        for j in range(i):
            assert not torch.equal(flat[i], flat[j]), (i, j)


# ====================================================================== TestVmapAPI


def test_multiple_outputs2():
    x = torch.randn(3)
    out = vmap(lambda x: (x, x))(x)
    assert isinstance(out, tuple) and all(torch.equal(o, x) for o in out)
    out = vmap(lambda x: [x, x])(x)
    assert isinstance(out, list) and len(out) == 2 and all(torch.equal(o, x) for o in out)
    out = vmap(lambda x: [x])(x)
    assert isinstance(out, list) and len(out) == 1 and torch.equal(out[0], x)


def test_pytree_returns_broadcast_nested():
    x = torch.randn(2, 3)

    def f(x):
        y = x.sin()
        return y, (y, y)
    y0, (y1, y2) = vmap(f, out_dims=(0, 1))(x)
    torch.testing.assert_close(y0, x.sin())
    torch.testing.assert_close(y1, y0.t())
    torch.testing.assert_close(y2, y0.t())


def test_fallback_zero_dim():
    # PyTorch's fallback raises for a batch of size 0 ("does not support vmap over dims of
    # size 0"); ours answers with the empty batch, as the batched op on the empty stack does
    op = torch.copysign
    x, y = torch.randn(0, 11), torch.randn(11)
    for got in (vmap(op, (0, None))(x, y), vmap(op, (None, 0))(y, x), vmap(op)(x, x)):
        assert got.shape == (0, 11) and got.dtype == torch.float32
    x, y = torch.randn(0, 3, 11), torch.randn(3, 11)
    for got in (vmap(op, (0, None))(x, y), vmap(op, (None, 0))(y, x), vmap(op)(x, x)):
        assert got.shape == (0, 3, 11)


def test_fallback_does_not_warn_by_default():
    x, y = torch.randn(11), torch.randn(11)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = vmap(torch.copysign)(x, y)
    assert not caught, [str(w.message) for w in caught]
    torch.testing.assert_close(got, torch.copysign(x, y))


def test_restore_vmap_pytree_input_output():
    # the peer compares restore_vmap with vmap(in_dims=((0, 0), 1), out_dims={'a': 0, 'b': 1})
    def f(x, y):
        return {'a': x[0] + x[1], 'b': y}
    x0, x1, y = torch.randn(2, 3), torch.randn(2), torch.randn(4, 2)
    out = vmap(f, in_dims=((0, 0), 1), out_dims={'a': 0, 'b': 1})((x0, x1), y)
    torch.testing.assert_close(out['a'], x0 + x1[:, None])
    torch.testing.assert_close(out['b'], y)


# ================================================================== TestRandomness


@pytest.mark.parametrize("op", [
    lambda _, shape: torch.randn(shape),
    lambda _, shape: torch.rand(shape),
    lambda _, shape: torch.randint(100, shape),
    lambda _, shape: torch.randint(5, 100, shape),
    lambda _, shape: torch.normal(0., 1., shape),
], ids=["randn", "rand", "randint", "randint_low", "normal"])
def test_factory_ops(op):
    shape = (3, 3)
    got = vmap(op, in_dims=(0, None))(torch.randn(B0), shape)
    one = op(None, shape)
    assert got.shape == (B0, *shape) and got.dtype == one.dtype
    assert_all_slices_unique(got)
    if one.dtype == torch.int64:
        assert int(got.min()) >= 0 and int(got.max()) < 100


def test_factory_ops_with_generator():
    generator = torch.Generator()
    generator.manual_seed(0)
    got = vmap(lambda _, s: torch.randn(s, generator=generator), in_dims=(0, None))(
        torch.randn(B0), (3, 3))
    assert got.shape == (B0, 3, 3)
    assert_all_slices_unique(got)


def test_randperm():
    refused(lambda _: torch.randperm(10), (torch.randn(B0),), "randperm")


@pytest.mark.parametrize("randomness", ["error", "same"])
def test_randomness_error_and_same_are_refused(randomness):
    refused(lambda t: t + torch.rand(()), (torch.zeros(B0),), "randomness",
            randomness=randomness)


def test_randomness_error_allows_a_function_that_does_not_draw():
    x = torch.randn(B0, 3)
    torch.testing.assert_close(vmap(lambda t: t * 2, randomness="error")(x), x * 2)


@pytest.mark.parametrize("batched", ["first", "last", "none"])
@pytest.mark.parametrize("name, op", [
    ("dropout", lambda t, _: F.dropout(torch.ones_like(t), training=True)),
    ("alpha_dropout", lambda t, _: F.alpha_dropout(torch.ones_like(t), training=True)),
    ("dropout2d", lambda t, _: F.dropout2d(torch.ones_like(t), training=True)),
    ("feature_alpha_dropout",
     lambda t, _: F.feature_alpha_dropout(torch.ones_like(t), training=True)),
])
def test_dropout(name, op, batched):
    # was: on a tensor shared by every example ("none"), one mask for the whole batch
    refused(op, (image(batched), torch.randn(B0)), "draws random numbers",
            in_dims=in_dims(batched))


def test_dropout_unbatched():
    x, y = torch.randn(3), torch.randn(1, 3)
    refused(lambda x, y: x + F.dropout(y, p=0.5).mean(1), (x, y), "draws random numbers",
            in_dims=(0, None))


@pytest.mark.parametrize("batched", ["first", "none"])
def test_dropout_in_evaluation_mode_is_the_identity(batched):
    def f(t, _):
        return F.dropout(t, 0.5, training=False) + F.rrelu(t)
    t = image(batched) * 3.0
    got = vmap(f, in_dims=in_dims(batched))(t, torch.randn(B0))
    rows = t if batched == "first" else t.expand(B0, *t.shape)
    torch.testing.assert_close(got, torch.stack([f(r, None) for r in rows]))


@pytest.mark.parametrize("batched", ["first", "last", "none"])
@pytest.mark.parametrize("op", [
    lambda t, _: torch.randint_like(t, 20),
    lambda t, _: torch.randint_like(t, 0, 20),
    lambda t, _: torch.rand_like(t),
    lambda t, _: torch.randn_like(t),
], ids=["randint_like", "randint_like_low", "rand_like", "randn_like"])
def test_like_functions(op, batched):
    got = vmap(op, in_dims=in_dims(batched))(image(batched), torch.randn(B0))
    assert got.shape == (B0, 3, 4) and got.dtype == torch.float32
    assert_all_slices_unique(got)


@pytest.mark.parametrize("batched", ["first", "last", "none"])
@pytest.mark.parametrize("name, op", [
    ("normal_std", lambda t, _: torch.normal(0., torch.abs(t))),
    ("normal_mean", lambda t, _: torch.normal(t, 1.)),
    ("bernoulli", lambda t, _: torch.bernoulli(t - 0.5)),
    ("bernoulli_p", lambda t, _: torch.bernoulli(t, 0.5)),
    ("poisson", lambda t, _: torch.poisson(t)),
])
def test_random_unary_out_of_place(name, op, batched):
    args = (image(batched), torch.randn(B0))
    if batched == "none" and name in ("normal_std", "bernoulli"):
        # the shared parameter is an expression, not a name the batch can expand
        refused(op, args, "shared by every example", in_dims=in_dims(batched))
        return
    got = vmap(op, in_dims=in_dims(batched))(*args)
    assert got.shape == (B0, 3, 4) and got.dtype == torch.float32
    assert_all_slices_unique(got)
    if name.startswith("bernoulli"):
        assert set(got.unique().tolist()) <= {0.0, 1.0}


@pytest.mark.parametrize("batched_input, batched_other", [
    ("first", "first"), ("first", "last"), ("first", "none"), ("last", "first"),
    ("none", "first"), ("none", "last")])
def test_random_binary_out_of_place(batched_input, batched_other):
    def op(t, o, _):
        return torch.normal(t, o)
    got = vmap(op, in_dims=in_dims(batched_input, batched_other))(
        image(batched_input), image(batched_other), torch.randn(B0))
    assert got.shape == (B0, 3, 4)
    assert_all_slices_unique(got)


@pytest.mark.parametrize("batched_input, batched_other", [("first", "first"), ("none", "none")])
def test_random_binary_out_of_place_binomial(batched_input, batched_other):
    # was: on tensors shared by every example, one draw for the whole batch
    refused(lambda t, o, _: torch.binomial(t, o - 0.5),
            (image(batched_input), image(batched_other), torch.randn(B0)),
            "draws random numbers", in_dims=in_dims(batched_input, batched_other))


@pytest.mark.parametrize("batched", ["first", "none"])
@pytest.mark.parametrize("op", [
    lambda t, _: t.random_(), lambda t, _: t.normal_(), lambda t, _: t.uniform_(),
    lambda t, _: t.bernoulli_(), lambda t, _: t.exponential_(),
], ids=["random_", "normal_", "uniform_", "bernoulli_", "exponential_"])
def test_random_unary_inplace(op, batched):
    refused(op, (image(batched), torch.randn(B0)), in_dims=in_dims(batched))


def test_random_method_of_a_shared_tensor():
    # was: `w.bernoulli()` of a tensor shared by every example drew once for the batch
    w = torch.full((50,), 0.5)
    refused(lambda x: x + w.bernoulli(), (torch.zeros(6, 50),), "draws random numbers")


def test_multinomial():
    p = torch.tensor([0.2, 0.3, 0.5])
    got = vmap(lambda x: torch.multinomial(p, 10, replacement=True) + x)(torch.zeros(B0, 10))
    assert got.shape == (B0, 10) and set(got.unique().tolist()) <= {0.0, 1.0, 2.0}
    assert_all_slices_unique(got)
    got = vmap(lambda q: torch.multinomial(q, 10, replacement=True))(torch.rand(B0, 3))
    assert got.shape == (B0, 10) and got.dtype == torch.int64
    assert_all_slices_unique(got)


def test_unsupported_random():
    y = torch.randn(3).abs()
    refused(lambda x: torch.randn(3, out=y), (torch.randn(3),), "out=")
    refused(lambda z: F.rrelu(z, training=True), (torch.randn(3),), "draws random numbers")


@pytest.mark.parametrize("in_dim, out_dim", [(0, 0), (1, 2), (2, 1)])
def test_vmap_chunksize(in_dim, out_dim):
    x = torch.randn(4, 5, 6)

    def f(x):
        return x.sin() + torch.rand_like(x)
    for chunk_size in (1, 2, 3, 4, 7, 10, 16, 100):
        out = vmap(f, in_dims=in_dim, out_dims=out_dim, chunk_size=chunk_size)(x)
        assert_all_slices_unique(out.movedim(out_dim, 0))
        lo = x.movedim(in_dim, 0).sin().movedim(0, out_dim)
        assert bool(((out >= lo) & (out <= lo + 1)).all())


# the peer's tests where PyTorch computes and ours refuses, and why
REFUSED = {
    "test_randperm": "a permutation per example is not one call (argsort(rand(n)) is)",
    "test_randomness_error_and_same_are_refused": "randomness='same' is not supported; "
                                                  "'error' refuses a function that draws",
    "test_dropout": "the dropout family in training mode has no per-example rule",
    "test_dropout_unbatched": "the dropout family in training mode has no per-example rule",
    "test_random_unary_out_of_place[none]": "a shared parameter that is an expression",
    "test_random_binary_out_of_place_binomial": "torch.binomial has no per-example rule",
    "test_random_unary_inplace": "in-place random methods",
    "test_unsupported_random": "PyTorch raises too (out=, rrelu in training mode)",
}
